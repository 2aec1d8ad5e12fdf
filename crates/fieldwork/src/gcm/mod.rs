//! AES-GCM authenticated encryption (NIST SP 800-38D).
//!
//! [`Aes128Gcm`], [`Aes192Gcm`] and [`Aes256Gcm`] implement RustCrypto's
//! [`aead`] 0.6 traits (`KeyInit`, `AeadCore`, `AeadInOut`, and `Aead`
//! with `alloc`), with 96-bit nonces and 16-byte tags appended to the
//! ciphertext, so code written for the `aes-gcm` crate works with them. Each
//! type also offers SP 800-38D's full interface:
//! [`Aes128Gcm::encrypt_in_place_detached_iv`] and
//! [`Aes128Gcm::decrypt_in_place_detached_iv`] take an IV of any length
//! (≥ 1 byte; other than 12 bytes, `J0 = GHASH(IV ∥ 0 ∥ [len(IV)]₆₄)`) and,
//! on decryption, a tag of 4 to 16 bytes.
//!
//! **Truncated tags are weak.** A `t`-byte tag is forged with probability
//! about `2^(−8t)` per attempt, and for `t` < 16 SP 800-38D appendix C
//! limits how much data one key may authenticate (4- and 8-byte tags only
//! for short messages and few invocations). Use 16 bytes unless a protocol
//! fixes otherwise.
//!
//! # Construction
//!
//! `C = P ⊕ AES-CTR(K, inc32(J0))`, `S = GHASH(H, A ∥ 0^v ∥ C ∥ 0^u ∥
//! [len(A)]₆₄ ∥ [len(C)]₆₄)` with `H = AES(K, 0^128)`, and the tag
//! `T = MSB_t(AES(K, J0) ⊕ S)`. The counter is incremented modulo 2^32 in
//! its last four bytes (`inc32`). Limits: plaintext at most 2^36 − 32
//! bytes, associated data and IV below 2^61 bytes; longer inputs are
//! errors.
//!
//! # Backends
//!
//! Chosen once per key, best first. Each is a type implementing the
//! crate-private `Backend` trait (`vaes512::Key`, `vaes256::Key`,
//! `aesni::Key`, `portable::Key`: `new(token, key, tuning)`,
//! `ghash_padded`, `seal`), held by one variant of the per-key `Dispatch`
//! enum; [`crate::hazmat::Backends`] makes a key on any backend or
//! schedule by its name:
//!
//! - `vaes-avx512`: the stitched kernel (`gcm/vaes512.rs`): counter-mode AES with
//!   VAES on zmm (four blocks per instruction) and GHASH of the same data
//!   with VPCLMULQDQ in one loop, 16 blocks per iteration, with aggregated
//!   reduction (Gueron & Kounavis, Intel white paper 323640); its
//!   derivations are in `docs/gcm-stitched-kernels.md`. Where the tuning
//!   table (`gcm/tuning.rs`) gives this core a crossover, the key also
//!   holds the ymm kernel's key and runs messages (plaintext and associated
//!   data together) below it there, whose short-message path is faster:
//!   on AMD (Zen 4 on) below 1 KiB (AES-128) or 1.5 KiB (AES-192/256; Zen
//!   5: 1 KiB), on Intel below 160 bytes (the measurements:
//!   `docs/notes/gcm.md`). Such a key reports `vaes-avx512-split`; the
//!   hazmat name `vaes-avx512` forces the zmm kernel alone.
//! - `vaes-avx2`: the same stitched kernel on ymm (`gcm/vaes256.rs`, two
//!   blocks per instruction, 16 blocks per iteration) for CPUs with VAES
//!   and VPCLMULQDQ but without AVX-512; tails go through AVX2's masked
//!   dword loads and stores. Its GHASH products are schoolbook or
//!   Karatsuba (`vaes-avx2-karatsuba`), a schedule the tuning table picks
//!   per core and the hazmat names force.
//! - `aes-ni`: the same stitched kernel on xmm (`gcm/aesni.rs`, one block
//!   per `aesenc`, 8 blocks per iteration, SSE encodings) for CPUs with
//!   AES-NI and PCLMULQDQ but without VAES.
//! - `aes-pmull` (AArch64, AES and PMULL): the stitched kernel
//!   (`gcm/armv8.rs`): eight counter blocks through `AESE`/`AESMC` and
//!   the PMULL GHASH of eight ciphertext blocks (one reduction) in one
//!   loop body.
//! - `portable`: counter mode and GHASH on the portable AES and GHASH, in
//!   alternating chunks of 512 bytes that stay in L1.
//!
//! The key schedule and the powers of H are computed once per key; nothing
//! is allocated per call. On a tag mismatch the buffer is zeroed and
//! [`Error::TagMismatch`] returned; the tag comparison is constant time
//! (`subtle`). Keys, round keys and powers are zeroized on drop.
//!
//! ```
//! use fieldwork::gcm::aead::{Aead, KeyInit};
//! use fieldwork::gcm::Aes128Gcm;
//!
//! let cipher = Aes128Gcm::new(&[0x42; 16].into());
//! let nonce = [7u8; 12].into();
//! let sealed = cipher.encrypt(&nonce, b"attack at dawn".as_slice()).unwrap();
//! assert_eq!(sealed.len(), 14 + 16);
//! let opened = cipher.decrypt(&nonce, sealed.as_slice()).unwrap();
//! assert_eq!(opened, b"attack at dawn");
//! ```

#[cfg(target_arch = "x86_64")]
mod aesni;
#[cfg(target_arch = "aarch64")]
mod armv8;
#[cfg(target_arch = "x86_64")]
mod pad;
mod portable;
#[cfg(all(feature = "reproduce", target_arch = "x86_64"))]
pub mod reproduce;
#[cfg(target_arch = "x86_64")]
mod stitch;
// Its schedules and crossovers are the x86 kernels'.
#[cfg(all(test, target_arch = "x86_64"))]
mod stack_tests;
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod tuning;
#[cfg(target_arch = "x86_64")]
mod vaes256;
#[cfg(target_arch = "x86_64")]
mod vaes512;

pub use aead;

use crate::aead_util::on_backend;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu;
use aead::consts::{U12, U16, U24, U32};
use tuning::GcmTuning;

/// The longest plaintext SP 800-38D allows: 2^39 − 256 bits.
pub const MAX_PLAINTEXT_BYTES: u64 = (1 << 36) - 32;
/// Associated data and IVs must be shorter than 2^64 bits.
pub const MAX_AAD_BYTES: u64 = (1 << 61) - 1;

crate::aead_util::aead_error! {
    /// Why an AES-GCM call was refused.
    "AES-GCM" {
        /// The IV was empty or 2^61 bytes or longer.
        IvLength => "the IV must be 1 to 2^61 - 1 bytes long",
        /// A tag of fewer than 4 or more than 16 bytes was given to decrypt.
        TagLength => "a tag must be 4 to 16 bytes long",
        /// The plaintext or ciphertext exceeds 2^36 − 32 bytes.
        MessageTooLong => "the message exceeds 2^36 - 32 bytes",
        /// The associated data is 2^61 bytes or longer.
        AadTooLong => "the associated data exceeds 2^61 - 1 bytes",
        /// Authentication failed: the ciphertext, associated data, IV or tag
        /// was altered (or the key is wrong). The buffer has been zeroed.
        TagMismatch => "authentication failed (tag mismatch)",
    }
}

/// Which way the bulk loop runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encrypt,
    Decrypt,
}

/// How the ymm kernel ([`vaes256`]) forms its GHASH products: a schedule
/// of the `vaes-avx2` backend (and of `vaes-avx512-split`'s ymm kernel),
/// chosen once per key from the tuning table ([`tuning::GCM`]); both are
/// reachable by name through [`crate::hazmat`] and tested on every CPU
/// with VAES and VPCLMULQDQ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Schedule {
    /// Four `vpclmulqdq` per register of two blocks: where `vpclmulqdq`
    /// shares a port with the shuffles Karatsuba adds (Intel).
    Schoolbook,
    /// Three `vpclmulqdq`, a `vpshufd` and a `vpxor` per operand: where
    /// `vpclmulqdq` issues once per two cycles and shuffles are plentiful
    /// (AMD Zen 3; see the module docs).
    Karatsuba,
}

/// One AES-GCM backend: a key (AES round keys, GHASH key and tables) on
/// one instruction set. Implemented by [`vaes512::Key`], [`vaes256::Key`],
/// [`aesni::Key`] and [`portable::Key`] with the same signatures; each is
/// one variant of [`Dispatch`].
trait Backend: Clone {
    /// The proof of the backend's instructions: a capability token, `()`
    /// for the portable backend.
    type Token: Copy;

    /// The backend's name (`backend_name()`) with its default schedule.
    const NAME: &'static str;

    /// Expands `key` (16, 24 or 32 bytes) and builds the backend's tables,
    /// with the schedule `tuning` gives (this core's entry of
    /// [`tuning::GCM`], or a schedule forced by name).
    fn new(token: Self::Token, key: &[u8], tuning: GcmTuning) -> Self;

    /// The name of this key's backend and schedule.
    fn name(&self) -> &'static str {
        Self::NAME
    }

    /// GHASH of `data` (zero-padded) into `acc`: `J0` of an IV other than
    /// 96 bits.
    fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128;

    /// The whole of GCM-AE / GCM-AD after `J0`: GHASH of `aad`, counter
    /// mode over `buf` from `inc32(J0)` with the GHASH of the ciphertext,
    /// the lengths block, and the full tag `AES(K, J0) ⊕ S`. `j0` is
    /// `J0`'s bytes read little-endian, passed by value: built in
    /// registers, not stored piecewise and reloaded whole (a
    /// store-forwarding stall, about 10 cycles a call on Zen 4).
    fn seal(&self, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16];
}

crate::aead_util::dispatch_enum! {
    /// One AES-GCM key on the backend chosen for it: each variant holds
    /// exactly its backend's AES key schedule and GHASH tables (and the
    /// schedule the tuning table chose). Dispatch happens once, here, per
    /// call. (The vector backends' tables make the variants differ in size
    /// by a few KiB; keys are built once and the crate is `no_std` without
    /// `alloc`, so they are not boxed.)
    x86_64: vaes512::Key, vaes256::Key, aesni::Key;
    aarch64: armv8::Key;
    portable::Key
}

impl Dispatch {
    /// Every backend and forced schedule by name, best first
    /// ([`crate::hazmat::Backends::NAMES`]): `vaes-avx512-split` is the zmm
    /// kernel with this core's crossover to the ymm kernel for short
    /// messages, `vaes-avx512` the zmm kernel alone, `vaes-avx2` and
    /// `vaes-avx2-karatsuba` the ymm kernel's two GHASH schedules.
    #[cfg(target_arch = "x86_64")]
    const NAMES: &[&str] = &[
        "vaes-avx512-split",
        vaes512::Key::NAME,
        vaes256::Key::NAME,
        "vaes-avx2-karatsuba",
        aesni::Key::NAME,
        portable::Key::NAME,
    ];
    #[cfg(target_arch = "aarch64")]
    const NAMES: &[&str] = &[armv8::Key::NAME, portable::Key::NAME];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const NAMES: &[&str] = &[portable::Key::NAME];

    /// The best backend this CPU runs, with this core's schedules.
    fn best(key: &[u8]) -> Dispatch {
        let tuning = tuning::GCM.pick();
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::VaesAvx512::get().zip(cpu::VaesAvx2::get()) {
            return Dispatch::Vaes512(Backend::new(t, key, tuning));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::VaesAvx2::get() {
            return Dispatch::Vaes256(Backend::new(t, key, tuning));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::AesClmul::get() {
            return Dispatch::AesNi(Backend::new(t, key, tuning));
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = cpu::NeonAes::get() {
            return Dispatch::AesPmull(Backend::new(t, key, tuning));
        }
        Dispatch::Portable(Backend::new((), key, tuning))
    }

    /// The backend or forced schedule named `name` ([`Dispatch::NAMES`]),
    /// if this CPU runs it.
    fn with_backend(name: &str, key: &[u8]) -> Option<Dispatch> {
        let tuning = tuning::GCM.pick();
        Some(match name {
            #[cfg(target_arch = "x86_64")]
            "vaes-avx512-split" | vaes512::Key::NAME => {
                let t = cpu::VaesAvx512::get().zip(cpu::VaesAvx2::get())?;
                let tuning = if name == vaes512::Key::NAME {
                    tuning.zmm_only()
                } else {
                    tuning
                };
                Dispatch::Vaes512(Backend::new(t, key, tuning))
            }
            #[cfg(target_arch = "x86_64")]
            vaes256::Key::NAME | "vaes-avx2-karatsuba" => {
                let schedule = if name == vaes256::Key::NAME {
                    Schedule::Schoolbook
                } else {
                    Schedule::Karatsuba
                };
                let tuning = GcmTuning { schedule, ..tuning };
                Dispatch::Vaes256(Backend::new(cpu::VaesAvx2::get()?, key, tuning))
            }
            #[cfg(target_arch = "x86_64")]
            aesni::Key::NAME => Dispatch::AesNi(Backend::new(cpu::AesClmul::get()?, key, tuning)),
            #[cfg(target_arch = "aarch64")]
            armv8::Key::NAME => Dispatch::AesPmull(Backend::new(cpu::NeonAes::get()?, key, tuning)),
            portable::Key::NAME => Dispatch::Portable(Backend::new((), key, tuning)),
            _ => return None,
        })
    }

    fn name(&self) -> &'static str {
        on_backend!(self, k => k.name())
    }

    /// The full tag: `AES(K, J0) ⊕ GHASH(…)`, running counter mode over
    /// `buf` in direction `dir`.
    fn seal_or_open(
        &self,
        dir: Direction,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; 16], Error> {
        if buf.len() as u64 > MAX_PLAINTEXT_BYTES {
            return Err(Error::MessageTooLong);
        }
        if aad.len() as u64 > MAX_AAD_BYTES {
            return Err(Error::AadTooLong);
        }
        on_backend!(self, k => Ok(k.seal(dir, j0(k, iv)?, aad, buf)))
    }

    fn encrypt(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error> {
        self.seal_or_open(Direction::Encrypt, iv, aad, buf)
    }

    fn decrypt(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        if !(4..=16).contains(&tag.len()) {
            return Err(Error::TagLength);
        }
        let mut expected = self.seal_or_open(Direction::Decrypt, iv, aad, buf)?;
        crate::aead_util::check_tag(&mut expected, tag, buf, Error::TagMismatch)
    }
}

/// `J0` for `iv` (SP 800-38D §7.1 step 2) on the backend `key`, its bytes
/// read little-endian.
#[inline]
fn j0<B: Backend>(key: &B, iv: &[u8]) -> Result<u128, Error> {
    if iv.is_empty() || iv.len() as u64 > MAX_AAD_BYTES {
        return Err(Error::IvLength);
    }
    // IV ‖ 0³¹ ‖ 1, from two loads of the IV.
    if let Some((head, tail)) = iv.split_first_chunk::<8>()
        && let Ok(tail) = <[u8; 4]>::try_from(tail)
    {
        return Ok(u128::from(u64::from_le_bytes(*head))
            | u128::from(u32::from_le_bytes(tail)) << 64
            | 1 << 120);
    }
    let acc = key.ghash_padded(0, iv);
    let acc = key.ghash_padded(acc, &((iv.len() as u128) * 8).to_be_bytes());
    Ok(acc.swap_bytes())
}

macro_rules! gcm_type {
    ($(#[$doc:meta])* $name:ident, $bytes:literal, $ksize:ty) => {
        crate::aead_util::keyed_aead!(
            $(#[$doc])* $name,
            key: $bytes, $ksize,
            nonce: U12,
            encrypt_in_place_detached_iv,
            decrypt_in_place_detached_iv
        );

        impl $name {
            /// Encrypts `buf` in place and returns the 16-byte tag, for an IV
            /// of any length from 1 byte (SP 800-38D's `GCM-AE`). Truncate
            /// the tag yourself if a protocol needs a shorter one (see the
            /// module docs on truncated tags).
            ///
            /// # Errors
            /// [`Error::IvLength`], [`Error::AadTooLong`],
            /// [`Error::MessageTooLong`]; `buf` is untouched then.
            pub fn encrypt_in_place_detached_iv(
                &self,
                iv: &[u8],
                aad: &[u8],
                buf: &mut [u8],
            ) -> Result<[u8; 16], Error> {
                self.key.encrypt(iv, aad, buf)
            }

            /// Decrypts `buf` in place if `tag` (4 to 16 bytes, compared in
            /// constant time) authenticates it (SP 800-38D's `GCM-AD`).
            ///
            /// # Errors
            /// [`Error::TagMismatch`] with `buf` zeroed; [`Error::TagLength`],
            /// [`Error::IvLength`], [`Error::AadTooLong`],
            /// [`Error::MessageTooLong`] with `buf` untouched.
            pub fn decrypt_in_place_detached_iv(
                &self,
                iv: &[u8],
                aad: &[u8],
                buf: &mut [u8],
                tag: &[u8],
            ) -> Result<(), Error> {
                self.key.decrypt(iv, aad, buf, tag)
            }

            /// The backend in use: `vaes-avx512-split` (CPUs with AVX-512:
            /// the ymm kernel for short messages), `vaes-avx512` (the zmm
            /// kernel alone), `vaes-avx2` (Intel's schedule),
            /// `vaes-avx2-karatsuba` (AMD's), `aes-ni`, `aes-pmull`
            /// (AArch64) or `portable`.
            pub fn backend_name(&self) -> &'static str {
                self.key.name()
            }
        }
    };
}

gcm_type! {
    /// AES-128-GCM. See the [module docs](self).
    Aes128Gcm, 16, U16
}
gcm_type! {
    /// AES-192-GCM. See the [module docs](self).
    Aes192Gcm, 24, U24
}
gcm_type! {
    /// AES-256-GCM. See the [module docs](self).
    Aes256Gcm, 32, U32
}
