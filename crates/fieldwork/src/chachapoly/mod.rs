//! ChaCha20-Poly1305 (RFC 8439 §2.8) and XChaCha20-Poly1305
//! (draft-irtf-cfrg-xchacha-03), authenticated encryption.
//!
//! [`ChaCha20Poly1305`] and [`XChaCha20Poly1305`] implement RustCrypto's
//! [`aead`] 0.6 traits (`KeyInit`, `AeadCore`, `AeadInOut`, and `Aead` with
//! `alloc`), with 12- and 24-byte nonces and 16-byte tags appended to the
//! ciphertext, exactly as the AES-GCM types of [`crate::gcm`] do, so code
//! written for RustCrypto's `chacha20poly1305` crate works with them.
//!
//! # Construction
//!
//! The one-time Poly1305 key is the first 32 bytes of ChaCha20 block 0
//! under the key and nonce; the plaintext is encrypted from block 1; the tag
//! is Poly1305 of `aad ‖ pad16 ‖ ciphertext ‖ pad16 ‖ le64(len(aad)) ‖
//! le64(len(ciphertext))`. XChaCha20-Poly1305 is the same under the
//! HChaCha20 subkey of the key and the nonce's first 16 bytes, with the
//! nonce `0⁴ ‖ nonce[16..24]`. A message may be at most 2^32 − 1 blocks of
//! 64 bytes (the counter starts at 1); longer ones are refused.
//!
//! On opening, the tag is checked in constant time (`subtle`); on a
//! mismatch the buffer is zeroed and [`Error::TagMismatch`] returned, so no
//! unauthenticated plaintext is released (the stitched backends, AVX2's
//! and `neon-stitched`, decrypt whole 512- or 256-byte groups in the same
//! pass that authenticates them, and wipe them on a mismatch; the others
//! check the tag before decrypting).
//!
//! # Backends
//!
//! - ChaCha20 on its AVX2 backend and a CPU with BMI2 and ADX
//!   (`chachapoly/avx2.rs`): one pass, stitched —
//!   the vector ChaCha20 kernels of `chacha20/avx2.rs` with a scalar
//!   radix-2^64 Poly1305 (`mulx`) between their double rounds, so the MAC
//!   runs on the integer ports while ChaCha20 holds the vector ones.
//! - ChaCha20 on its AVX-512 backend: the same stitched kernel, compiled
//!   with AVX-512VL (32 ymm registers: fewer spills, 4–9 % faster from
//!   576 B on Zen 4), below the tuning table's crossovers (AMD: 576 B when sealing, 2 KiB when
//!   opening; Intel: 544 B and 1 KiB), two passes from there (the
//!   16-block zmm ChaCha20, block 0 in the same call as the first 15 data
//!   blocks, then the IFMA Poly1305, each faster alone than the stitched
//!   pair once the message is long). `peer-bench --filter chachapoly`
//!   shows both pinned paths on AVX-512 CPUs. Figures: AMD EPYC Zen 4,
//!   family 25 model 17, the Zen 4 page: 16 KiB seals at 0.95
//!   cycles/byte, 1.45× ring; 64 B at 544 cycles, 1.21× aws-lc-rs. Intel
//!   Xeon family 6 model 207, `peer-bench --chachapoly-sweep`: 576 B
//!   seals in 0.72 of ring's time.
//! - Otherwise the cipher and the MAC one after the other over the
//!   buffer, each on its fastest backend ([`crate::chacha20`],
//!   [`crate::poly1305`]). On AArch64 this is `neon` (by name, and
//!   below 256 bytes in `neon-stitched`): the NEON ChaCha20, then the
//!   scalar Poly1305 (Poly1305's default on AArch64); `sve2` (the default
//!   where SVE2 is) is the same with ChaCha20's rounds on SVE2's `XAR`.
//! - On AArch64 without SVE2, `neon-stitched` (`chachapoly/neon.rs`): one
//!   pass, the NEON ChaCha20's vertical 4-block rounds with the scalar
//!   radix-2^64 Poly1305 between them, as the x86 kernel does; two
//!   passes (`neon`) below 256 bytes. llvm-mca-19 puts its 256-byte
//!   group at about 200 cycles a 64-byte block on Neoverse N1 and 150 on
//!   V1, against about 316 and 217 for the two passes (the NEON rounds
//!   are latency-bound with the integer pipes idle, and the scalar MAC is
//!   latency-bound on its own chain: each hides much of the other). The
//!   default where ChaCha20's best is `neon`: under qemu it executes
//!   fewer instructions than `neon` at every length from 256 bytes
//!   sealing and opening (16 KiB: 1.1 % and 1.0 % fewer); the
//!   default follows the instruction counts until the code is timed on
//!   hardware (figures in its module docs and the notes). Not on SVE2's
//!   rounds: they run as one fused kernel with no slot between double
//!   rounds.
//!
//! A key's backend is chosen when the key is made (`KeyInit::new`); the
//! length crossovers of `avx512` and `avx2` come from the tuning tables
//! (`chachapoly/tuning.rs`). [`crate::hazmat`] makes a key on any of them
//! by name (`avx512`, `avx512-two-pass`, `avx512-stitched`, `avx2`,
//! `avx2-stitched`, `avx2-two-pass`, on AArch64 `sve2`, `neon-stitched`
//! and `neon`, and `portable`; the last is ChaCha20 and Poly1305 both
//! portable), so that tests and benchmarks reach each in one process.
//!
//! Two passes on AVX2 (ChaCha20, then the AVX2 Poly1305) instead of the
//! stitched kernel: slower at every length, 7–30 %, on the Xeon f6m207,
//! Zen 3 and Zen 4; faster on long messages on Ice Lake (f6m106), whose
//! four ALU ports the stitched kernel's scalar MAC and vector rounds
//! share, so there the default is `avx2`, by length (`tuning.rs`).
//! Measured history: `docs/notes/chachapoly.md`.
//!
//! ```
//! use fieldwork::chachapoly::ChaCha20Poly1305;
//! use fieldwork::chachapoly::aead::{Aead, KeyInit};
//!
//! let cipher = ChaCha20Poly1305::new(&[0x42; 32].into());
//! let nonce = [7u8; 12].into();
//! let sealed = cipher.encrypt(&nonce, b"attack at dawn".as_slice()).unwrap();
//! assert_eq!(sealed.len(), 14 + 16);
//! assert_eq!(cipher.decrypt(&nonce, sealed.as_slice()).unwrap(), b"attack at dawn");
//! ```

pub use aead;

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod scalar;
#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod stack_tests;
#[cfg(target_arch = "x86_64")]
mod tuning;

#[cfg(target_arch = "x86_64")]
use avx2::Stitched;
#[cfg(target_arch = "aarch64")]
use neon::Stitched;

use crate::chacha20::{self, KeyWords, nonce_words, xchacha_subkey};
use aead::consts::{U12, U24, U32};
use aead::{Key, KeyInit};
use core::fmt;
use zeroize::Zeroize;

/// The longest plaintext: 2^32 − 1 blocks of 64 bytes (block 0 makes the
/// Poly1305 key).
pub const MAX_PLAINTEXT_BYTES: u64 = ((1 << 32) - 1) * 64;

/// Why a ChaCha20-Poly1305 call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The message is longer than 2^32 − 1 blocks of 64 bytes.
    MessageTooLong,
    /// Authentication failed: the ciphertext, associated data, nonce or tag
    /// was altered (or the key is wrong). The buffer has been zeroed.
    TagMismatch,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::MessageTooLong => {
                "ChaCha20-Poly1305: the message exceeds 2^32 - 1 blocks of 64 bytes"
            }
            Error::TagMismatch => "ChaCha20-Poly1305: authentication failed (tag mismatch)",
        })
    }
}

impl core::error::Error for Error {}

/// One ChaCha20-Poly1305 backend: sealing and opening in place under the
/// ChaCha20 key's words and the nonce's state words. Implemented by the
/// stitched kernels (`avx2::Stitched`, `neon::Stitched`) and by the two
/// passes ([`TwoPass`]);
/// [`Dispatch`] holds one of them (or, on AVX-512, one of each and the
/// length between them).
pub(crate) trait Backend: Copy {
    /// The backend's name (`backend_name()`).
    fn name(self) -> &'static str;

    /// Encrypts `buf` (at most [`MAX_PLAINTEXT_BYTES`]) in place from
    /// block 1 under `c` and returns the tag.
    fn seal(self, c: &Instance, aad: &[u8], buf: &mut [u8]) -> [u8; 16];

    /// Decrypts `buf` (at most [`MAX_PLAINTEXT_BYTES`]) in place under `c`
    /// if `tag` authenticates it.
    ///
    /// # Errors
    /// [`Error::TagMismatch`], with `buf` zeroed.
    fn open(self, c: &Instance, aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error>;
}

/// One message's ChaCha20 input: the key's state words (wiped on drop)
/// and the nonce's.
pub(crate) struct Instance {
    key: KeyWords,
    nonce: [u32; 3],
}

/// Two passes over the buffer: ChaCha20 on its backend, then Poly1305
/// (portable with the portable ChaCha20, so that `portable` is portable
/// throughout; otherwise Poly1305's fastest backend).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TwoPass(chacha20::Dispatch);

/// Bytes wiped below the stack pointer after the two passes' Poly1305
/// ([`TwoPass::tag`]) on x86-64: where `Poly1305::new` spills the
/// one-time key's `s` or clamped `r` while it builds the engine, and
/// ChaCha20's unwiped frames of [`TwoPass::seal`]. The census
/// (`chachapoly::stack_tests`) found a half of the key on every x86-64
/// two-pass backend between 512 and 768 bytes below (rustc 1.95, Zen 4);
/// the test `wiped_backends_leave_no_secret` checks none is left. Cost
/// (16-byte stores): about 20 cycles a message on Zen 4, less than the
/// ChaCha20 wipe it replaces (seal 576 B 851 → 827 ticks). Not on
/// AArch64, where the census finds nothing there without it.
#[cfg(target_arch = "x86_64")]
const TAG_STACK: usize = 1024;

impl TwoPass {
    /// The Poly1305 tag of the AEAD: [`TwoPass::tag_alone`], then (x86-64)
    /// the wipe of the top of its dead frames, where the one-time key was
    /// spilled.
    #[inline(always)]
    fn tag(self, otk: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        let tag = self.tag_alone(otk, aad, ct);
        // It covers ChaCha20's unwiped frames of `seal` too.
        #[cfg(target_arch = "x86_64")]
        {
            const { assert!(TAG_STACK >= chacha20::AFTER0_UNWIPED_STACK) };
            crate::wipe::wipe_stack_below::<TAG_STACK>();
        }
        tag
    }

    /// The Poly1305 tag, out of line (so that its spills lie below the
    /// caller's stack pointer, where [`TwoPass::tag`] wipes).
    #[inline(never)]
    fn tag_alone(self, otk: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        if self.0.is_portable() {
            crate::poly1305::aead_tag_portable(otk, aad, ct)
        } else {
            crate::poly1305::aead_tag(otk, aad, ct)
        }
    }
}

impl Backend for TwoPass {
    fn name(self) -> &'static str {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            chacha20::Dispatch::Avx512(_) => AVX512_TWO_PASS,
            #[cfg(target_arch = "x86_64")]
            chacha20::Dispatch::Avx2(_) => AVX2_TWO_PASS,
            #[cfg(target_arch = "aarch64")]
            chacha20::Dispatch::Sve2(_) => SVE2,
            #[cfg(target_arch = "aarch64")]
            chacha20::Dispatch::Neon(_) => NEON,
            chacha20::Dispatch::Portable(_) => PORTABLE,
        }
    }

    fn seal(self, c: &Instance, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        // ChaCha20's frames are wiped with the tag's ([`TwoPass::tag`]).
        let mut block0 = self.0.xor_after_block0_unwiped(&c.key.0, &c.nonce, buf);
        let mut otk = [0u8; 32];
        otk.copy_from_slice(&block0[..32]);
        let tag = self.tag(&otk, aad, buf);
        wipe_key_block(&mut otk, &mut block0);
        tag
    }

    fn open(self, c: &Instance, aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let mut block0 = self.0.block(&c.key.0, &c.nonce, 0);
        let mut otk = [0u8; 32];
        otk.copy_from_slice(&block0[..32]);
        let mut expected = self.tag(&otk, aad, buf);
        wipe_key_block(&mut otk, &mut block0);
        crate::aead_util::check_tag(&mut expected, tag, buf, Error::TagMismatch)?;
        self.0.xor(&c.key.0, &c.nonce, 1, buf);
        Ok(())
    }
}

/// Wipes the one-time key and keystream block 0 with 32-byte volatile
/// writes (`zeroize` clears them byte by byte: 96 stores a message).
#[inline(always)]
fn wipe_key_block(otk: &mut [u8; 32], block0: &mut [u8; 64]) {
    crate::wipe::wipe(otk);
    for half in block0.as_chunks_mut::<32>().0 {
        crate::wipe::wipe(half);
    }
}

/// The backend `avx512`.
#[cfg(target_arch = "x86_64")]
const AVX512: &str = "avx512";
/// The backend `avx512-two-pass`.
#[cfg(target_arch = "x86_64")]
const AVX512_TWO_PASS: &str = "avx512-two-pass";
/// The backend `avx512-stitched`: the stitched kernel compiled with
/// AVX-512VL, at every length.
#[cfg(target_arch = "x86_64")]
const AVX512_STITCHED: &str = "avx512-stitched";
/// The backend `avx2`: `avx2-stitched` below the AVX2 tuning table's
/// crossovers, `avx2-two-pass` from there, on the cores the table names
/// (the default there; not usable elsewhere).
#[cfg(target_arch = "x86_64")]
const AVX2: &str = "avx2";
/// The backend `avx2-stitched`.
#[cfg(target_arch = "x86_64")]
const AVX2_STITCHED: &str = "avx2-stitched";
/// The backend `avx2-two-pass`.
#[cfg(target_arch = "x86_64")]
const AVX2_TWO_PASS: &str = "avx2-two-pass";
/// The backend `neon-stitched`: the NEON ChaCha20 rounds with the scalar
/// Poly1305 between them (`chachapoly/neon.rs`), two passes on short
/// messages.
#[cfg(target_arch = "aarch64")]
const NEON_STITCHED: &str = "neon-stitched";
/// The backend `neon`: two passes, the NEON ChaCha20 and Poly1305's
/// fastest backend.
#[cfg(target_arch = "aarch64")]
const NEON: &str = "neon";
/// The backend `sve2`: two passes, the SVE2 ChaCha20 (`neon`'s with its
/// rounds on SVE2's `XAR`) and Poly1305's fastest backend.
#[cfg(target_arch = "aarch64")]
const SVE2: &str = "sve2";
/// The backend `portable`.
const PORTABLE: &str = "portable";

/// A key's backend, chosen when the key is made.
#[derive(Clone, Copy, Debug)]
enum Dispatch {
    /// ChaCha20 on AVX-512 and a CPU with BMI2 and ADX (`avx512`, the
    /// default there): the stitched kernel below the tuning table's
    /// crossovers for this core (`tuning.rs`, picked when the key is
    /// made), two passes (the zmm ChaCha20, then the IFMA or AVX2
    /// Poly1305) from there; the message's length, which is public,
    /// chooses per call. With ChaCha20 on AVX2 (`avx2`), the same where
    /// the AVX2 table has crossovers for this core (the default there).
    #[cfg(target_arch = "x86_64")]
    ByLength {
        stitched: Stitched,
        two_pass: TwoPass,
        below: tuning::Crossovers,
    },
    /// The stitched kernel at every length (`avx2-stitched`, the default
    /// with ChaCha20 on AVX2 and BMI2, ADX; on AArch64 `neon-stitched`,
    /// the default without SVE2, which runs two passes below its own
    /// crossover).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    Stitched(Stitched),
    /// Two passes (`avx512-two-pass`; `avx2-two-pass`, the default on an
    /// AVX2 CPU without BMI2 or ADX; `portable`).
    TwoPass(TwoPass),
}

impl Dispatch {
    /// Every backend's name, the default's order (best first).
    const NAMES: &'static [&'static str] = &[
        #[cfg(target_arch = "x86_64")]
        AVX512,
        #[cfg(target_arch = "x86_64")]
        AVX512_TWO_PASS,
        #[cfg(target_arch = "x86_64")]
        AVX512_STITCHED,
        #[cfg(target_arch = "x86_64")]
        AVX2,
        #[cfg(target_arch = "x86_64")]
        AVX2_STITCHED,
        #[cfg(target_arch = "x86_64")]
        AVX2_TWO_PASS,
        #[cfg(target_arch = "aarch64")]
        SVE2,
        #[cfg(target_arch = "aarch64")]
        NEON_STITCHED,
        #[cfg(target_arch = "aarch64")]
        NEON,
        PORTABLE,
    ];

    /// The best this CPU runs: ChaCha20 on its fastest backend, stitched
    /// with Poly1305 where the CPU runs the stitched kernel.
    fn best() -> Dispatch {
        let chacha = chacha20::Dispatch::best();
        #[cfg(target_arch = "x86_64")]
        if let Some(stitched) = Stitched::get() {
            match chacha {
                chacha20::Dispatch::Avx512(_) => {
                    return Dispatch::ByLength {
                        stitched: Stitched::get_vl().unwrap_or(stitched),
                        two_pass: TwoPass(chacha),
                        below: tuning::crossovers(),
                    };
                }
                chacha20::Dispatch::Avx2(_) => {
                    return match tuning::crossovers_avx2() {
                        Some(below) => Dispatch::ByLength {
                            stitched,
                            two_pass: TwoPass(chacha),
                            below,
                        },
                        None => Dispatch::Stitched(stitched),
                    };
                }
                chacha20::Dispatch::Portable(_) => {}
            }
        }
        // AArch64 without SVE2: the stitched kernel (two passes below 256
        // bytes), which executes fewer instructions than `neon` from 256
        // bytes both ways (`neon.rs`). `sve2` stays two passes: its fused
        // rounds have no slot for the MAC.
        #[cfg(target_arch = "aarch64")]
        if let chacha20::Dispatch::Neon(_) = chacha
            && let Some(stitched) = Stitched::get()
        {
            return Dispatch::Stitched(stitched);
        }
        Dispatch::TwoPass(TwoPass(chacha))
    }

    /// The backend named `name` (one of [`Dispatch::NAMES`]), if this CPU
    /// runs it.
    fn named(name: &str) -> Option<Dispatch> {
        let two_pass = |chacha: &str| chacha20::Dispatch::named(chacha).map(TwoPass);
        Some(match name {
            #[cfg(target_arch = "x86_64")]
            AVX512 => Dispatch::ByLength {
                stitched: Stitched::get_vl()?,
                two_pass: two_pass("avx512")?,
                below: tuning::crossovers(),
            },
            #[cfg(target_arch = "x86_64")]
            AVX512_TWO_PASS => Dispatch::TwoPass(two_pass("avx512")?),
            #[cfg(target_arch = "x86_64")]
            AVX512_STITCHED => Dispatch::Stitched(Stitched::get_vl()?),
            #[cfg(target_arch = "x86_64")]
            AVX2 => Dispatch::ByLength {
                stitched: Stitched::get()?,
                two_pass: two_pass("avx2")?,
                below: tuning::crossovers_avx2()?,
            },
            #[cfg(target_arch = "x86_64")]
            AVX2_STITCHED => Dispatch::Stitched(Stitched::get()?),
            #[cfg(target_arch = "x86_64")]
            AVX2_TWO_PASS => Dispatch::TwoPass(two_pass("avx2")?),
            #[cfg(target_arch = "aarch64")]
            SVE2 => Dispatch::TwoPass(two_pass("sve2")?),
            #[cfg(target_arch = "aarch64")]
            NEON_STITCHED => Dispatch::Stitched(Stitched::get()?),
            #[cfg(target_arch = "aarch64")]
            NEON => Dispatch::TwoPass(two_pass("neon")?),
            PORTABLE => Dispatch::TwoPass(two_pass("portable")?),
            _ => return None,
        })
    }

    fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::ByLength { two_pass, .. } => match two_pass.0 {
                chacha20::Dispatch::Avx512(_) => AVX512,
                _ => AVX2,
            },
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            Dispatch::Stitched(s) => s.name(),
            Dispatch::TwoPass(t) => t.name(),
        }
    }

    /// The one backend that takes a message of `len` bytes (`avx512`:
    /// by the crossover of sealing or, with `opening`, of opening).
    ///
    /// # Errors
    /// [`Error::MessageTooLong`] past [`MAX_PLAINTEXT_BYTES`].
    #[inline(always)]
    fn for_length(self, len: usize, opening: bool) -> Result<One, Error> {
        if len as u64 > MAX_PLAINTEXT_BYTES {
            return Err(Error::MessageTooLong);
        }
        // Only the x86 by-length backend reads it.
        #[cfg(not(target_arch = "x86_64"))]
        let _ = opening;
        Ok(match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::ByLength {
                stitched,
                two_pass,
                below,
            } => {
                let below = if opening {
                    below.open_stitched_below
                } else {
                    below.seal_stitched_below
                };
                if len < below as usize {
                    One::Stitched(stitched)
                } else {
                    One::TwoPass(two_pass)
                }
            }
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            Dispatch::Stitched(s) => One::Stitched(s),
            Dispatch::TwoPass(t) => One::TwoPass(t),
        })
    }

    /// Seals `buf` in place; returns the tag.
    fn seal(self, c: &Instance, aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error> {
        Ok(match self.for_length(buf.len(), false)? {
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            One::Stitched(s) => s.seal(c, aad, buf),
            One::TwoPass(t) => t.seal(c, aad, buf),
        })
    }

    /// Opens `buf` in place if `tag` authenticates it.
    fn open(self, c: &Instance, aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        match self.for_length(buf.len(), true)? {
            #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
            One::Stitched(s) => s.open(c, aad, buf, tag),
            One::TwoPass(t) => t.open(c, aad, buf, tag),
        }
    }
}

/// The backend of one message (see [`Dispatch::for_length`]).
enum One {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    Stitched(Stitched),
    TwoPass(TwoPass),
}

macro_rules! aead_type {
    ($(#[$doc:meta])* $name:ident, $nonce_len:literal, $nonce_size:ty, $setup:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: [u8; 32],
            engine: Dispatch,
        }

        impl $name {
            /// The ChaCha20 key words and state nonce for `nonce`.
            fn setup(&self, nonce: &[u8; $nonce_len]) -> Instance {
                #[allow(clippy::redundant_closure_call)]
                ($setup)(&self.key, nonce)
            }

            /// Encrypts `buf` in place and returns the 16-byte tag.
            ///
            /// # Errors
            /// [`Error::MessageTooLong`]; `buf` is untouched then.
            pub fn encrypt_in_place_detached(
                &self,
                nonce: &[u8; $nonce_len],
                aad: &[u8],
                buf: &mut [u8],
            ) -> Result<[u8; 16], Error> {
                self.engine.seal(&self.setup(nonce), aad, buf)
            }

            /// Decrypts `buf` in place if `tag` (16 bytes, compared in
            /// constant time) authenticates it.
            ///
            /// # Errors
            /// [`Error::TagMismatch`] with `buf` zeroed;
            /// [`Error::MessageTooLong`] with `buf` untouched.
            pub fn decrypt_in_place_detached(
                &self,
                nonce: &[u8; $nonce_len],
                aad: &[u8],
                buf: &mut [u8],
                tag: &[u8; 16],
            ) -> Result<(), Error> {
                self.engine.open(&self.setup(nonce), aad, buf, tag)
            }

            /// The backend in use (see the module docs): `avx512`,
            /// `avx512-two-pass`, `avx512-stitched`, `avx2`, `avx2-stitched`,
            /// `avx2-two-pass`, on
            /// AArch64 `sve2`, `neon-stitched` or `neon`, or `portable`.
            pub fn backend_name(&self) -> &'static str {
                self.engine.name()
            }
        }

        impl crate::hazmat::Backends for $name {
            type Input<'a> = &'a [u8; 32];
            const NAMES: &'static [&'static str] = Dispatch::NAMES;

            fn with_backend(name: &str, key: &[u8; 32]) -> Option<$name> {
                Some($name {
                    key: *key,
                    engine: Dispatch::named(name)?,
                })
            }

            fn backend(&self) -> &'static str {
                self.engine.name()
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                self.key.zeroize();
            }
        }

        #[cfg(test)]
        impl crate::test_util::SecretSpans for $name {
            fn secret_spans(&self, s: &mut crate::test_util::Spans) {
                s.secret("key", &self.key);
            }
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> $name {
                let mut k = [0u8; 32];
                k.copy_from_slice(key.as_slice());
                $name {
                    key: k,
                    engine: Dispatch::best(),
                }
            }
        }

        crate::aead_util::aead_traits!(
            $name,
            key: U32,
            nonce: $nonce_size,
            encrypt_in_place_detached,
            decrypt_in_place_detached
        );

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}

aead_type! {
    /// ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte
    /// tag. See the [module docs](self).
    ChaCha20Poly1305, 12, U12,
    |key: &[u8; 32], nonce: &[u8; 12]| Instance {
        key: KeyWords::new(key),
        nonce: nonce_words(nonce),
    }
}

aead_type! {
    /// XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03): 32-byte key,
    /// 24-byte nonce (safe to choose at random), 16-byte tag. See the
    /// [module docs](self).
    XChaCha20Poly1305, 24, U24,
    |key: &[u8; 32], nonce: &[u8; 24]| {
        let (mut subkey, n12) = xchacha_subkey(key, nonce);
        let key = KeyWords::new(&subkey);
        subkey.zeroize();
        Instance {
            key,
            nonce: nonce_words(&n12),
        }
    }
}
