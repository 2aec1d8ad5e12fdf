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
//! unauthenticated plaintext is released (the AVX2 backend decrypts whole
//! 512-byte groups in the same pass that authenticates them, and wipes them
//! on a mismatch; the others check the tag before decrypting).
//!
//! # Backends
//!
//! - ChaCha20 on its AVX2 backend and a CPU with BMI2 and ADX
//!   (`chachapoly/avx2.rs`): one pass, stitched —
//!   the vector ChaCha20 kernels of `chacha20/avx2.rs` with a scalar
//!   radix-2^64 Poly1305 (`mulx`) between their double rounds, so the MAC
//!   runs on the integer ports while ChaCha20 holds the vector ones.
//! - ChaCha20 on its AVX-512 backend: the same stitched kernel below
//!   1 KiB when sealing and 2 KiB when opening (1 KiB on Intel), two
//!   passes from there (the 16-block zmm ChaCha20, then the IFMA
//!   Poly1305, each faster alone than the stitched pair once the message
//!   is long). `peer-bench --filter chachapoly` shows both pinned paths on
//!   AVX-512 CPUs. Figure (AMD EPYC Zen 4, family 25 model 17, the Zen 4
//!   page): 16 KiB seals at 0.95 cycles/byte, 1.45× ring; 64 B at 544
//!   cycles, 1.21× aws-lc-rs.
//! - Otherwise the cipher and the MAC one after the other over the
//!   buffer, each on its fastest backend ([`crate::chacha20`],
//!   [`crate::poly1305`]).
//!
//! The public constructors dispatch at each call; hidden ones pin a key to
//! one of these paths (portable; ChaCha20 on AVX2 or AVX-512, then
//! Poly1305; stitched), so that tests reach each in one process.
//!
//! Rejected: two passes on AVX2 (ChaCha20, then the AVX2 Poly1305)
//! instead of the stitched kernel — slower at every length, 7–30 %.
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
#[cfg(target_arch = "x86_64")]
mod tuning;

use crate::chacha20::{Core, nonce_words, xchacha_subkey};
#[cfg(target_arch = "x86_64")]
use crate::cpu;
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

/// Which backend a key runs on: chosen at each call from what the CPU
/// runs (the public constructors), or pinned (the hidden `new_*`
/// constructors, so that tests reach every backend in one process).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Path {
    /// The stitched AVX2 kernel when ChaCha20 runs on AVX2 and the CPU has
    /// BMI2 and ADX; otherwise two passes on the fastest backends.
    Best,
    /// Two passes, ChaCha20 and Poly1305 both portable.
    Portable,
    /// Two passes: ChaCha20 on AVX2, Poly1305 on its fastest backend (the
    /// path of an AVX2 CPU without BMI2 or ADX).
    Avx2TwoPass,
    /// Two passes: ChaCha20 on AVX-512, Poly1305 on its fastest backend.
    Avx512TwoPass,
    /// The stitched AVX2 kernel at every length, whichever ChaCha20 backend
    /// `Best` would pick (reaches it on AVX-512 CPUs for long messages).
    Avx2Stitched,
}

/// The stitched kernel's token and ChaCha20 key words, if `path` runs
/// `len` bytes through it.
#[cfg(target_arch = "x86_64")]
fn stitched(
    core: &Core,
    path: Path,
    len: usize,
    opening: bool,
) -> Option<(cpu::Avx2Bmi2, &[u32; 8])> {
    let t = cpu::Avx2Bmi2::get()?;
    let (key, avx512) = core.vector_key()?;
    let take = match path {
        // With AVX-512 ChaCha20, stitched below the core's crossover
        // (`tuning.rs`), two passes above.
        Path::Best => {
            !avx512 || {
                let c = tuning::crossovers();
                let below = if opening {
                    c.open_stitched_below
                } else {
                    c.seal_stitched_below
                };
                len < below as usize
            }
        }
        Path::Avx2Stitched => true,
        Path::Portable | Path::Avx2TwoPass | Path::Avx512TwoPass => false,
    };
    take.then_some((t, key))
}

impl Path {
    /// The ChaCha20 core of `key` on this path (a pinned path was checked
    /// to run on this CPU when the key was made; `Core::new` otherwise).
    fn core(self, key: &[u8; 32]) -> Core {
        match self {
            Path::Best | Path::Avx2Stitched => Core::new(key),
            Path::Portable => Core::new_portable(key),
            Path::Avx2TwoPass => Core::new_avx2(key).unwrap_or_else(|| Core::new(key)),
            Path::Avx512TwoPass => Core::new_avx512(key).unwrap_or_else(|| Core::new(key)),
        }
    }

    /// Whether this CPU runs the path.
    fn available(self) -> bool {
        match self {
            Path::Best | Path::Portable => true,
            Path::Avx2TwoPass => Core::new_avx2(&[0; 32]).is_some(),
            Path::Avx512TwoPass => Core::new_avx512(&[0; 32]).is_some(),
            #[cfg(target_arch = "x86_64")]
            Path::Avx2Stitched => {
                cpu::Avx2Bmi2::get().is_some() && Core::new(&[0; 32]).vector_key().is_some()
            }
            #[cfg(not(target_arch = "x86_64"))]
            Path::Avx2Stitched => false,
        }
    }

    /// The Poly1305 tag of the AEAD on this path.
    fn tag(self, otk: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
        if self == Path::Portable {
            crate::poly1305::aead_tag_portable(otk, aad, ct)
        } else {
            crate::poly1305::aead_tag(otk, aad, ct)
        }
    }
}

/// Seals `buf` in place under `core` and `nonce`; returns the tag.
fn seal(
    core: &Core,
    path: Path,
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
) -> Result<[u8; 16], Error> {
    if buf.len() as u64 > MAX_PLAINTEXT_BYTES {
        return Err(Error::MessageTooLong);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some((t, key)) = stitched(core, path, buf.len(), false) {
        return Ok(avx2::seal(t, key, nonce, aad, buf));
    }
    let mut block0 = core.xor_after_block0(nonce, buf);
    let mut otk = [0u8; 32];
    otk.copy_from_slice(&block0[..32]);
    let tag = path.tag(&otk, aad, buf);
    wipe_key_block(&mut otk, &mut block0);
    Ok(tag)
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

/// Opens `buf` in place if `tag` authenticates it.
fn open(
    core: &Core,
    path: Path,
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> Result<(), Error> {
    if buf.len() as u64 > MAX_PLAINTEXT_BYTES {
        return Err(Error::MessageTooLong);
    }
    #[cfg(target_arch = "x86_64")]
    if let Some((t, key)) = stitched(core, path, buf.len(), true) {
        return if avx2::open(t, key, nonce, aad, buf, tag) {
            Ok(())
        } else {
            Err(Error::TagMismatch)
        };
    }
    let mut block0 = core.block(nonce, 0);
    let mut otk = [0u8; 32];
    otk.copy_from_slice(&block0[..32]);
    let mut expected = path.tag(&otk, aad, buf);
    wipe_key_block(&mut otk, &mut block0);
    crate::aead_util::check_tag(&mut expected, tag, buf, Error::TagMismatch)?;
    core.xor(nonce, 1, buf);
    Ok(())
}

macro_rules! aead_type {
    ($(#[$doc:meta])* $name:ident, $nonce_len:literal, $nonce_size:ty, $setup:expr) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: [u8; 32],
            path: Path,
        }

        impl $name {
            /// The cipher core and state nonce for `nonce`.
            fn core(&self, nonce: &[u8; $nonce_len]) -> (Core, [u32; 3]) {
                #[allow(clippy::redundant_closure_call)]
                ($setup)(&self.key, nonce, self.path)
            }

            /// A key pinned to `path`, if this CPU runs it.
            fn pinned(key: &[u8; 32], path: Path) -> Option<$name> {
                path.available().then(|| $name { key: *key, path })
            }

            /// ChaCha20 and Poly1305 portable, one after the other.
            #[doc(hidden)]
            pub fn new_portable(key: &[u8; 32]) -> $name {
                $name { key: *key, path: Path::Portable }
            }

            /// ChaCha20 on AVX2, then Poly1305 (the path of an AVX2 CPU
            /// without BMI2 or ADX).
            #[doc(hidden)]
            pub fn new_avx2_two_pass(key: &[u8; 32]) -> Option<$name> {
                $name::pinned(key, Path::Avx2TwoPass)
            }

            /// ChaCha20 on AVX-512, then Poly1305.
            #[doc(hidden)]
            pub fn new_avx512_two_pass(key: &[u8; 32]) -> Option<$name> {
                $name::pinned(key, Path::Avx512TwoPass)
            }

            /// The stitched AVX2 kernel at every length, if this CPU runs
            /// it (AVX2, BMI2, ADX).
            #[doc(hidden)]
            pub fn new_avx2_stitched(key: &[u8; 32]) -> Option<$name> {
                $name::pinned(key, Path::Avx2Stitched)
            }

            /// One instance per backend this CPU runs, with its name,
            /// portable first (tests and benchmarks).
            #[doc(hidden)]
            #[cfg(feature = "alloc")]
            pub fn all_backends(key: &[u8; 32]) -> alloc::vec::Vec<(&'static str, $name)> {
                let mut v = alloc::vec![("portable", $name::new_portable(key))];
                v.extend($name::new_avx2_two_pass(key).map(|c| ("avx2-two-pass", c)));
                v.extend($name::new_avx512_two_pass(key).map(|c| ("avx512-two-pass", c)));
                v.extend($name::new_avx2_stitched(key).map(|c| ("avx2-stitched", c)));
                v
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
                let (core, n) = self.core(nonce);
                seal(&core, self.path, &n, aad, buf)
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
                let (core, n) = self.core(nonce);
                open(&core, self.path, &n, aad, buf, tag)
            }

            /// The ChaCha20 backend in use (`avx512`, `avx2` or
            /// `portable`).
            pub fn backend_name(&self) -> &'static str {
                self.path.core(&self.key).name()
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
                $name { key: k, path: Path::Best }
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
    |key: &[u8; 32], nonce: &[u8; 12], path: Path| (path.core(key), nonce_words(nonce))
}

aead_type! {
    /// XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03): 32-byte key,
    /// 24-byte nonce (safe to choose at random), 16-byte tag. See the
    /// [module docs](self).
    XChaCha20Poly1305, 24, U24,
    |key: &[u8; 32], nonce: &[u8; 24], path: Path| {
        let (mut subkey, n12) = xchacha_subkey(key, nonce);
        let core = path.core(&subkey);
        subkey.zeroize();
        (core, nonce_words(&n12))
    }
}
