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
//! Chosen once per key, best first:
//!
//! - `vaes-avx512`: the stitched kernel (`gcm/vaes512.rs`): counter-mode AES with
//!   VAES on zmm (four blocks per instruction) and GHASH of the same data
//!   with VPCLMULQDQ in one loop, 16 blocks per iteration, with aggregated
//!   reduction (Gueron & Kounavis, Intel white paper 323640); its
//!   derivations are in `docs/gcm-stitched-kernels.md`.
//! - `vaes-avx512-split` (every CPU with AVX-512): the zmm kernel for
//!   long messages, the ymm kernel for short ones, where its
//!   short-message path is faster: on AMD (Zen 4 on) below 1 KiB (AES-128)
//!   or 1.5 KiB (AES-192/256) of message and associated data, on Intel
//!   below 160 bytes (the measurements: `docs/notes/gcm.md`).
//! - `vaes-avx2`: the same stitched kernel on ymm (`gcm/vaes256.rs`, two
//!   blocks per instruction, 16 blocks per iteration) for CPUs with VAES
//!   and VPCLMULQDQ but without AVX-512; tails go through a zeroed stack
//!   buffer instead of masked loads and stores.
//! - `aes-ni`: the same stitched kernel on xmm (`gcm/aesni.rs`, one block
//!   per `aesenc`, 8 blocks per iteration, SSE encodings) for CPUs with
//!   AES-NI and PCLMULQDQ but without VAES.
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
#[cfg(target_arch = "x86_64")]
mod pad;
mod portable;
#[cfg(target_arch = "x86_64")]
mod stitch;
mod tuning;
#[cfg(target_arch = "x86_64")]
mod vaes256;
#[cfg(target_arch = "x86_64")]
mod vaes512;

pub use aead;

#[cfg(target_arch = "x86_64")]
use crate::cpu;
use aead::consts::{U12, U16, U24, U32};
use aead::{Key, KeyInit};
use core::fmt;

/// The longest plaintext SP 800-38D allows: 2^39 − 256 bits.
pub const MAX_PLAINTEXT_BYTES: u64 = (1 << 36) - 32;
/// Associated data and IVs must be shorter than 2^64 bits.
pub const MAX_AAD_BYTES: u64 = (1 << 61) - 1;

/// Why an AES-GCM call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The IV was empty or 2^61 bytes or longer.
    IvLength,
    /// A tag of fewer than 4 or more than 16 bytes was given to decrypt.
    TagLength,
    /// The plaintext or ciphertext exceeds 2^36 − 32 bytes.
    MessageTooLong,
    /// The associated data is 2^61 bytes or longer.
    AadTooLong,
    /// Authentication failed: the ciphertext, associated data, IV or tag was
    /// altered (or the key is wrong). The buffer has been zeroed.
    TagMismatch,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::IvLength => "AES-GCM: the IV must be 1 to 2^61 - 1 bytes long",
            Error::TagLength => "AES-GCM: a tag must be 4 to 16 bytes long",
            Error::MessageTooLong => "AES-GCM: the message exceeds 2^36 - 32 bytes",
            Error::AadTooLong => "AES-GCM: the associated data exceeds 2^61 - 1 bytes",
            Error::TagMismatch => "AES-GCM: authentication failed (tag mismatch)",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Which way the bulk loop runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encrypt,
    Decrypt,
}

/// How the ymm kernel ([`vaes256`]) forms its GHASH products, chosen once
/// per key from the CPU ([`Schedule::for_this_cpu`]); both are tested on
/// every CPU with VAES and VPCLMULQDQ.
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

impl Schedule {
    /// This CPU's, from the tuning table (`tuning.rs`).
    pub(crate) fn for_this_cpu() -> Schedule {
        tuning::GCM.pick().schedule
    }
}

/// One AES-GCM key on the engine chosen for it: each variant holds exactly
/// its engine's AES key schedule and GHASH tables. Dispatch happens once,
/// here, per call. (The vector engines' tables make the variants differ in
/// size by a few KiB; keys are built once and the crate is `no_std`
/// without `alloc`, so they are not boxed.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
enum Dispatch {
    #[cfg(target_arch = "x86_64")]
    Vaes512(vaes512::Key),
    /// CPUs with AVX-512: the zmm kernel for long messages, the ymm one
    /// below [`Split::narrow_below`] bytes (see [`Split`]).
    #[cfg(target_arch = "x86_64")]
    Vaes512Split(Split),
    #[cfg(target_arch = "x86_64")]
    Vaes256(vaes256::Key),
    #[cfg(target_arch = "x86_64")]
    AesNi(aesni::Key),
    Portable(portable::Key),
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Dispatch {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512(k) => k.secret_spans(s),
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512Split(k) => {
                k.wide.secret_spans(s);
                k.narrow.secret_spans(s);
            }
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes256(k) => k.secret_spans(s),
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(k) => k.secret_spans(s),
            Dispatch::Portable(k) => k.secret_spans(s),
        }
    }
}

/// The zmm and ymm engines of one key, for CPUs with AVX-512: the zmm
/// kernel's short-message path (byte-masked zmm loads and stores, the zmm
/// set-up of a call) costs more than the whole ymm kernel on short
/// messages; the crossover is measured per core (`tuning.rs`).
#[cfg(target_arch = "x86_64")]
#[derive(Clone)]
struct Split {
    wide: vaes512::Key,
    narrow: vaes256::Key,
    /// Messages (plaintext and associated data together) shorter than
    /// this run on `narrow`.
    narrow_below: usize,
}

impl Dispatch {
    /// The best engine this CPU runs.
    fn best(key: &[u8]) -> Dispatch {
        #[cfg(target_arch = "x86_64")]
        if let Some(e) = Dispatch::vaes512_split(key) {
            return e;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(e) = Dispatch::vaes256(key) {
            return e;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(e) = Dispatch::aesni(key) {
            return e;
        }
        Dispatch::portable(key)
    }

    fn portable(key: &[u8]) -> Dispatch {
        Dispatch::Portable(portable::Key::new(key))
    }

    #[cfg(target_arch = "x86_64")]
    fn aesni(key: &[u8]) -> Option<Dispatch> {
        Some(Dispatch::AesNi(aesni::Key::new(cpu::AesClmul::get()?, key)))
    }

    /// The ymm engine with its GHASH schedule chosen for this CPU.
    #[cfg(target_arch = "x86_64")]
    fn vaes256(key: &[u8]) -> Option<Dispatch> {
        Dispatch::vaes256_with(key, Schedule::for_this_cpu())
    }

    #[cfg(target_arch = "x86_64")]
    fn vaes256_with(key: &[u8], schedule: Schedule) -> Option<Dispatch> {
        Some(Dispatch::Vaes256(vaes256::Key::new(
            cpu::VaesAvx2::get()?,
            key,
            schedule,
        )))
    }

    #[cfg(target_arch = "x86_64")]
    fn vaes512(key: &[u8]) -> Option<Dispatch> {
        Some(Dispatch::Vaes512(vaes512::Key::new(
            cpu::VaesAvx512::get()?,
            key,
        )))
    }

    /// Both vector engines, the ymm one with this CPU's schedule, and the
    /// crossover measured on this CPU's vendor (see [`Split`]).
    #[cfg(target_arch = "x86_64")]
    fn vaes512_split(key: &[u8]) -> Option<Dispatch> {
        let tuning = tuning::GCM.pick();
        Some(Dispatch::Vaes512Split(Split {
            wide: vaes512::Key::new(cpu::VaesAvx512::get()?, key),
            narrow: vaes256::Key::new(cpu::VaesAvx2::get()?, key, tuning.schedule),
            narrow_below: tuning.narrow_below(key.len()),
        }))
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn vaes512_split(_key: &[u8]) -> Option<Dispatch> {
        None
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn aesni(_key: &[u8]) -> Option<Dispatch> {
        None
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn vaes256(_key: &[u8]) -> Option<Dispatch> {
        None
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn vaes256_with(_key: &[u8], _schedule: Schedule) -> Option<Dispatch> {
        None
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn vaes512(_key: &[u8]) -> Option<Dispatch> {
        None
    }

    fn name(&self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512(_) => "vaes-avx512",
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512Split(_) => "vaes-avx512-split",
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes256(k) => match k.schedule() {
                Schedule::Schoolbook => "vaes-avx2",
                Schedule::Karatsuba => "vaes-avx2-karatsuba",
            },
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(_) => "aes-ni",
            Dispatch::Portable(_) => "portable",
        }
    }

    /// GHASH of `data` (zero-padded) into `acc`.
    fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512(k) => k.ghash_padded(acc, data),
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512Split(k) => k.wide.ghash_padded(acc, data),
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes256(k) => k.ghash_padded(acc, data),
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(k) => k.ghash_padded(acc, data),
            Dispatch::Portable(k) => k.ghash_padded(acc, data),
        }
    }

    /// `J0` for `iv` (SP 800-38D §7.1 step 2).
    fn j0(&self, iv: &[u8]) -> Result<[u8; 16], Error> {
        if iv.is_empty() || iv.len() as u64 > MAX_AAD_BYTES {
            return Err(Error::IvLength);
        }
        if iv.len() == 12 {
            let mut j0 = [0u8; 16];
            j0[..12].copy_from_slice(iv);
            j0[15] = 1;
            return Ok(j0);
        }
        let acc = self.ghash_padded(0, iv);
        let acc = self.ghash_padded(acc, &((iv.len() as u128) * 8).to_be_bytes());
        Ok(acc.to_be_bytes())
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
        let j0 = self.j0(iv)?;
        Ok(match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512(k) => k.seal(dir, &j0, aad, buf),
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512Split(k) => {
                if buf.len().saturating_add(aad.len()) < k.narrow_below {
                    k.narrow.seal(dir, &j0, aad, buf)
                } else {
                    k.wide.seal(dir, &j0, aad, buf)
                }
            }
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes256(k) => k.seal(dir, &j0, aad, buf),
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(k) => k.seal(dir, &j0, aad, buf),
            Dispatch::Portable(k) => k.seal(dir, &j0, aad, buf),
        })
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

macro_rules! gcm_type {
    ($(#[$doc:meta])* $name:ident, $bytes:literal, $ksize:ty) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: Dispatch,
        }

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

            /// The backend in use: `vaes-avx512`, `vaes-avx512-split` (CPUs
            /// with AVX-512: the ymm kernel for short messages),
            /// `vaes-avx2` (Intel's schedule), `vaes-avx2-karatsuba`
            /// (AMD's), `aes-ni` or `portable`.
            pub fn backend_name(&self) -> &'static str {
                self.key.name()
            }

            #[doc(hidden)]
            pub fn new_portable(key: &[u8; $bytes]) -> $name {
                $name { key: Dispatch::portable(key) }
            }

            #[doc(hidden)]
            pub fn new_aesni(key: &[u8; $bytes]) -> Option<$name> {
                Dispatch::aesni(key).map(|key| $name { key })
            }

            #[doc(hidden)]
            pub fn new_vaes256(key: &[u8; $bytes]) -> Option<$name> {
                Dispatch::vaes256(key).map(|key| $name { key })
            }

            /// The ymm engine with schoolbook GHASH products (the
            /// schedule chosen on Intel CPUs).
            #[doc(hidden)]
            pub fn new_vaes256_schoolbook(key: &[u8; $bytes]) -> Option<$name> {
                Dispatch::vaes256_with(key, Schedule::Schoolbook).map(|key| $name { key })
            }

            /// The ymm engine with Karatsuba GHASH products (the schedule
            /// chosen on AMD CPUs).
            #[doc(hidden)]
            pub fn new_vaes256_karatsuba(key: &[u8; $bytes]) -> Option<$name> {
                Dispatch::vaes256_with(key, Schedule::Karatsuba).map(|key| $name { key })
            }

            #[doc(hidden)]
            pub fn new_vaes512(key: &[u8; $bytes]) -> Option<$name> {
                Dispatch::vaes512(key).map(|key| $name { key })
            }

            /// The zmm engine for long messages and the ymm one (this CPU's
            /// schedule) for short ones: the choice on CPUs with AVX-512.
            #[doc(hidden)]
            pub fn new_vaes512_split(key: &[u8; $bytes]) -> Option<$name> {
                Dispatch::vaes512_split(key).map(|key| $name { key })
            }

            /// One instance per backend this CPU can run, portable first
            /// and the one `KeyInit::new` picks last (tests and
            /// benchmarks): of the two ymm schedules, the other vendor's
            /// comes first.
            #[doc(hidden)]
            #[cfg(feature = "alloc")]
            pub fn all_backends(key: &[u8; $bytes]) -> alloc::vec::Vec<$name> {
                let mut v = alloc::vec![$name::new_portable(key)];
                v.extend($name::new_aesni(key));
                if Schedule::for_this_cpu() == Schedule::Karatsuba {
                    v.extend($name::new_vaes256_schoolbook(key));
                    v.extend($name::new_vaes256_karatsuba(key));
                } else {
                    v.extend($name::new_vaes256_karatsuba(key));
                    v.extend($name::new_vaes256_schoolbook(key));
                }
                v.extend($name::new_vaes512(key));
                v.extend($name::new_vaes512_split(key));
                v
            }
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> $name {
                $name { key: Dispatch::best(key.as_slice()) }
            }
        }

        crate::aead_util::aead_traits!(
            $name,
            key: $ksize,
            nonce: U12,
            encrypt_in_place_detached_iv,
            decrypt_in_place_detached_iv,
            debug: backend_name
        );

        #[cfg(test)]
        impl crate::test_util::SecretSpans for $name {
            fn secret_spans(&self, s: &mut crate::test_util::Spans) {
                self.key.secret_spans(s);
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
