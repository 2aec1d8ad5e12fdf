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
//! | [`gf2x`] | multiplication and algebra in GF(2)\[x\] | products of any size (portable, PCLMULQDQ, VPCLMULQDQ), squaring, [`gf2x::Gf2Poly`] algebra; Su–Fan strategy table and Toom in progress |
//! | [`gf2m`] | binary fields GF(2^m), polynomial and normal basis | planned |
//! | [`ghash`] | GHASH and POLYVAL | done: streaming, `universal-hash` traits, one-shot; portable / PCLMULQDQ / VPCLMULQDQ; the white paper's algorithm progression ([`ghash::ghash_with`]) |
//! | [`aes`], [`gcm`] | AES and AES-GCM | done (speed targets partly missed): AES-128/192/256; AES-GCM with the `aead` traits and SP 800-38D's detached-IV API; stitched VAES/VPCLMULQDQ kernels on zmm and ymm, AES-NI and portable engines |
//! | [`poly1305`], [`chacha20`] | Poly1305, ChaCha20, ChaCha20-Poly1305 | planned |
//! | [`kummer`] | Kummer-surface Diffie–Hellman over 2^127 − 1 | done: safe keys and raw SUPERCOP API; AVX-512 IFMA, AVX2, portable |
//! | [`cpu`] | feature detection, the ISA cap, what is in effect | done |
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
//! - `std` (default): run-time CPU detection and the `FIELDWORK_MAX_ISA` cap.
//!   Without it the crate is `no_std` and uses the features the compiler was
//!   told about at build time (`-C target-cpu=…`).
//! - `alloc` (default, implied by `std`): heap-allocating types.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod aes;
pub mod chacha20;
pub mod cpu;
pub mod gcm;
pub mod gf2m;
pub mod gf2x;
pub mod ghash;
pub mod kummer;
pub mod poly1305;
#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(test)]
mod test_util;

/// The README's Rust examples, compiled and run as doctests
/// (`cargo test -p fieldwork --doc`), so the front page cannot drift from
/// the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
