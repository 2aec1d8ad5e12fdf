//! # fieldwork
//!
//! Finite-field arithmetic for cryptography, fast and constant time: binary
//! polynomials GF(2)\[x\], binary fields GF(2^m), GHASH/POLYVAL and AES-GCM,
//! Poly1305 and ChaCha20-Poly1305, and Diffie–Hellman on a Kummer surface.
//!
//! Every primitive has a portable backend in plain Rust that runs everywhere
//! in constant time, and accelerated backends for x86-64 (PCLMULQDQ, AVX2,
//! VAES/VPCLMULQDQ, AVX-512, AVX-512 IFMA) chosen at run time from what the
//! CPU supports. The environment variable `FIELDWORK_MAX_ISA` caps the choice
//! (see [`cpu`]), so every backend can be tested on one machine.
//!
//! | module | what it is | status |
//! |---|---|---|
//! | [`gf2x`] | multiplication and algebra in GF(2)\[x\] | products of any size (portable, PCLMULQDQ, VPCLMULQDQ; fixed formulas, Karatsuba, Toom-3, additive FFT), squaring, [`gf2x::Gf2Poly`] algebra; every Su–Fan strategy in `gf2x::reproduce` (feature `reproduce`) |
//! | [`gf2m`] | binary fields GF(2^m) | the NIST fields `F163` … `F571` and [`gf2m::BinaryField`] for any irreducible modulus: product, square, Itoh–Tsujii inversion, square root, trace, half-trace, quadratic solving, batches; PCLMULQDQ and portable; Gaussian normal bases of any type in [`gf2m::normal`] (Gauss-period embedding, conversion to and from the polynomial basis pinned by FIPS 186-2) and every source algorithm in `gf2m::normal::reproduce` (feature `reproduce`) |
//! | [`ghash`] | GHASH and POLYVAL | done: streaming, `universal-hash` traits, one-shot; portable / PCLMULQDQ / VPCLMULQDQ; the white paper's algorithm progression in `ghash::reproduce` (feature `reproduce`) |
//! | [`aes`], [`gcm`] | AES and AES-GCM | done: AES-128/192/256; AES-GCM with the `aead` traits and SP 800-38D's detached-IV API; stitched VAES/VPCLMULQDQ kernels on zmm and ymm, AES-NI and portable engines |
//! | [`gcm_siv`] | AES-GCM-SIV (RFC 8452) | AES-128/256-GCM-SIV with the `aead` traits; POLYVAL's kernels and counter mode on VAES zmm/ymm, AES-NI, portable |
//! | [`poly1305`] | Poly1305 (RFC 8439) | done: streaming, `universal-hash` traits, one-shot `tag`/`verify`; AVX-512 IFMA, AVX2 (Goll–Gueron and complete 4-decimation), portable |
//! | [`chacha20`], [`chachapoly`] | ChaCha20, XChaCha20; ChaCha20-Poly1305, XChaCha20-Poly1305 | ChaCha20 on AVX-512, AVX2 (hand-written kernels), portable; the AEADs with the `aead` traits, stitched with a scalar Poly1305 on AVX2 |
//! | [`kummer`] | Kummer-surface Diffie–Hellman over 2^127 − 1 | done: safe keys and raw SUPERCOP API; AVX-512 IFMA, AVX2, portable |
//! | [`cpu`] | feature detection, the ISA cap, what is in effect | done |
//! | [`hazmat`] | every backend of a keyed type by name | for differential tests, fuzzing and benchmarks ([`hazmat::Backends`]) |
//!
//! # Example
//!
//! ```
//! use fieldwork::gf2x::clmul64;
//!
//! // (x^2 + x + 1)·(x + 1) = x^3 + 1 over GF(2).
//! assert_eq!(clmul64(0b111, 0b11), 0b1001);
//!
//! // Which instruction-set level is in effect on this machine.
//! let level = fieldwork::cpu::report().map(|r| r.level);
//! println!("{level:?}");
//! ```
//!
//! # Features
//!
//! | feature | default | enables | costs |
//! |---|---|---|---|
//! | `std` | yes | run-time CPU detection (cached once per process) and the `FIELDWORK_MAX_ISA` cap; `std::error::Error` on the error types; implies `alloc` | links `std`. Without it the crate is `no_std` and uses only the features the compiler was told about at build time (`-C target-cpu=…`, `-C target-feature=…`) |
//! | `alloc` | yes | heap-allocating APIs: [`gf2x::Gf2Poly`], scratch on the heap for `gf2x::mul_into` above its stack buffer (without `alloc` such products need `mul_into_with_scratch`), the allocating `aead::Aead` methods | an allocator |
//! | `reproduce` | no | the papers' algorithm variants kept to reproduce their tables (`gf2x::reproduce`: every Su–Fan strategy; `ghash::reproduce`: the white paper's GHASH progression, Algorithms 3 and 6–9; `gcm::reproduce`: its Table 1 rows as AES-128-GCM; `poly1305::goll_gueron`: Bhattacharyya's Goll–Gueron baseline and 8-decimation; `gf2m::normal::reproduce`: every normal-basis multiplier of P1363, Ning–Yin, Reyhani-Masoleh–Hasan and Fan–Dai, and Koç–Acar's Montgomery product) | compile time and code size; not for production use |
//!
//! Random sources are `rand_core` 0.10 traits ([`rand_core`], re-exported),
//! the version `rand` 0.10 and RustCrypto's `aead` 0.6 use.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(unsafe_code)]
#![warn(missing_docs)]
// Bad input is an error, never a panic (issue 27): no unwrap, expect or
// panic in library code; the few documented panics (operators on elements
// of different fields, division by the zero polynomial, an invalid
// FIELDWORK_MAX_ISA) carry an `allow` with their reason. Tests are exempt
// (clippy.toml).
#![warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// Nor an out-of-bounds index: `[]` indexing and slicing are warned
// crate-wide. Code reached with a caller's bytes, hex or text (decoders,
// parsers, constructors, the AEAD and MAC buffer handling, the
// FIELDWORK_MAX_ISA value) uses `get`, `split_at`, iterators,
// `chunks_exact` and `try_into`; the kernel modules, whose indices are
// loop counters over fixed-size arrays or offsets below lengths checked
// on entry, allow it at module level with the bound stated (SECURITY.md).
#![warn(clippy::indexing_slicing)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

/// The `rand_core` (0.10) whose `CryptoRng` / `TryCryptoRng` the key
/// generators take: the version `rand` 0.10 and RustCrypto's 0.6 traits
/// use, re-exported so that callers can name it.
pub use rand_core;

mod aead_util;
pub mod aes;
pub mod chacha20;
pub mod chachapoly;
pub mod cpu;
mod dispatch;
pub mod gcm;
pub mod gcm_siv;
pub mod gf2m;
pub mod gf2x;
pub mod ghash;
pub mod hazmat;
pub mod kummer;
#[cfg(all(feature = "std", target_arch = "aarch64", target_os = "linux"))]
mod midr;
mod partial;
pub mod poly1305;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(test)]
mod test_util;
mod tuning;
mod uhf;
#[cfg(target_arch = "x86_64")]
mod vex256;
mod wipe;
#[cfg(test)]
mod zeroize_tests;

/// The README's Rust examples, compiled and run as doctests
/// (`cargo test -p fieldwork --doc`), so the front page cannot drift from
/// the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
