//! AES-GCM-SIV, nonce-misuse-resistant authenticated encryption (RFC 8452).
//!
//! [`Aes128GcmSiv`] and [`Aes256GcmSiv`] implement RustCrypto's [`aead`]
//! 0.6 traits (`KeyInit`, `AeadCore`, `AeadInOut`, and `Aead` with
//! `alloc`) with 96-bit nonces and 16-byte tags appended to the
//! ciphertext, as the `aes-gcm-siv` crate does, so code written for it
//! works with them; [`Aes128GcmSiv::encrypt_in_place_detached`] and
//! [`Aes128GcmSiv::decrypt_in_place_detached`] are the same without the
//! traits.
//!
//! Repeating a nonce with the same key reveals only whether the two
//! (nonce, associated data, message) triples were equal — unlike AES-GCM,
//! where it gives away the authentication key. It is still best to use
//! distinct (for instance random) nonces: RFC 8452 §9 bounds how many
//! messages one key may seal.
//!
//! # Construction (RFC 8452 §4, §5)
//!
//! Per message, from the key-generating key `K` and the nonce `N`:
//!
//! 1. `AES(K, [i]₃₂ ∥ N)` for `i` = 0 … 3 (AES-128) or 0 … 5 (AES-256),
//!    with `[i]₃₂` little-endian, and the first 8 bytes of each: the
//!    message-authentication key (`i` = 0, 1) and the message-encryption
//!    key (the rest);
//! 2. `S = POLYVAL(auth, A ∥ 0^v ∥ P ∥ 0^u ∥ [len(A)]₆₄ ∥ [len(P)]₆₄)`
//!    (bit lengths, little-endian; [`crate::ghash::Polyval`]);
//! 3. the tag `T = AES(enc, (S ⊕ N) with bit 127 cleared)`;
//! 4. `C = P ⊕ AES-CTR(enc, T with bit 127 set)`, the counter being the
//!    first four bytes, little-endian, incremented modulo 2^32.
//!
//! Decryption runs counter mode from the received tag first, then
//! recomputes the tag over the plaintext and compares in constant time
//! (`subtle`); on a mismatch the buffer is zeroed and
//! [`Error::TagMismatch`] returned, so no unauthenticated plaintext is
//! released. Limits: message and associated data at most 2^36 bytes each;
//! longer inputs are errors. The per-message keys, the derivation blocks
//! and the POLYVAL state are zeroized after use, the key-generating key's
//! round keys on drop.
//!
//! # Backends
//!
//! Chosen once per key, best first; each is a type implementing the
//! crate-private `Backend` trait (its AES backend, its POLYVAL kernel and
//! its counter mode from `aes/ctr.rs`), held by one variant of the per-key
//! `Dispatch` enum, and the whole of sealing and opening is written once
//! over it and compiled per backend. [`crate::hazmat::Backends`] makes a
//! key on any of them by its name:
//!
//! - every x86-64 backend: a message of at most 16 text blocks and 8
//!   blocks of associated data in one kernel call in registers
//!   (`gcm_siv/x86.rs`, the shape of the AArch64 one below; VEX
//!   encodings on `vaes-avx512` and `vaes-avx2`, SSE on `aes-ni`); longer
//!   ones as follows;
//! - `vaes-avx512`: counter mode on zmm (32 blocks per iteration) from
//!   [`ZMM_FROM`] bytes, a tail of less than 32 blocks and shorter
//!   messages on ymm; POLYVAL's best kernel;
//! - `vaes-avx2`: counter mode on ymm (16 blocks per iteration), POLYVAL
//!   on ymm;
//! - `aes-ni`: counter mode on xmm (8 blocks per iteration), POLYVAL with
//!   PCLMULQDQ;
//! - `aes-pmull` (AArch64): a message of at most 16 text blocks and 8
//!   blocks of associated data in one kernel call in registers
//!   (`gcm_siv/armv8.rs`: derivation, key expansion, Horner POLYVAL, tag,
//!   counter mode); longer ones counter mode eight blocks per iteration
//!   (`aes/armv8.rs`) and POLYVAL's best kernel;
//! - `portable`: RustCrypto's fixsliced `aes` and the portable POLYVAL.
//!
//! The hash and the counter mode are two passes over the data (the tag,
//! which is the initial counter, depends on the whole message, so they
//! cannot be stitched as in AES-GCM), each at the speed of its kernel.
//!
//! # Cost
//!
//! Per message, before the data: the derivation (the AES blocks of the
//! message keys, built in registers from the nonce: four for AES-128, six
//! for AES-256), the expansion of the message-encryption key (four words at
//! a time, `aes/aesni.rs`: about 130 cycles for AES-256, a chain of 13
//! `pshufb`–`aesenclast`–XOR steps), the POLYVAL of the data, the tag (one
//! AES block). These form one dependency chain — derivation, expansion,
//! tag, first counter block, ≈ 60 + 130 + 60 + 60 cycles on Zen 4 — which
//! bounds short messages; long ones run at the kernels' speed. To keep
//! that chain short, the message keys, the tag's input block and the
//! counter block are built in vector registers or passed by value (never
//! written as narrow stores and read back by a wider load, which the store
//! buffer cannot forward); POLYVAL inputs of at most 128 bytes are hashed
//! in one call from a stack copy without a `Polyval` state
//! (`ghash::polyval_short`); the message keys are wiped by one volatile
//! write each; a one-block message's counter mode runs on xmm and other
//! tails on the fewest of 1, 2, 4 or 8 registers. Messages the one-call
//! kernels take (`gcm_siv/x86.rs`, `gcm_siv/armv8.rs`) keep the keys in
//! registers throughout and hash by Horner's rule, two products deep a
//! block. The ignored test
//! `stage_probe::stage_ticks` (`cargo test --release -p fieldwork-crypto
//! --lib stage_probe -- --ignored --nocapture`) times the stages of a
//! 16-byte seal. Figures: `peer-bench --filter gcm_siv` (against aws-lc-rs
//! and RustCrypto); measured history and the next idea:
//! `docs/notes/gcm-siv.md`.
//!
//! Rejected: the key expansion fused with the tag's rounds (sealing) or
//! the keystream's (opening), as BoringSSL's GCM-SIV assembly does — sealing
//! unchanged, opening of 16–64 B 10–15 % slower (Xeon, avx2 cap).
//!
//! ```
//! use fieldwork::gcm_siv::aead::{Aead, KeyInit};
//! use fieldwork::gcm_siv::Aes256GcmSiv;
//!
//! let cipher = Aes256GcmSiv::new(&[0x42; 32].into());
//! let nonce = [7u8; 12].into();
//! let sealed = cipher.encrypt(&nonce, b"attack at dawn".as_slice()).unwrap();
//! assert_eq!(sealed.len(), 14 + 16);
//! let opened = cipher.decrypt(&nonce, sealed.as_slice()).unwrap();
//! assert_eq!(opened, b"attack at dawn");
//! ```

pub use aead;

#[cfg(target_arch = "aarch64")]
mod armv8;
#[cfg(target_arch = "x86_64")]
mod x86;

use crate::aead_util::on_backend;
#[cfg(target_arch = "x86_64")]
use crate::aes::ctr;
use crate::aes::{self, Backend as _};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu;
use crate::ghash::{Polyval, SHORT_BLOCKS, Short as ShortPolyval, polyval_short};
use aead::consts::{U12, U16, U32};

/// The longest message (plaintext) RFC 8452 allows: 2^36 bytes.
pub const MAX_PLAINTEXT_BYTES: u64 = 1 << 36;
/// The longest associated data RFC 8452 allows: 2^36 bytes.
pub const MAX_AAD_BYTES: u64 = 1 << 36;
/// From this many bytes the `vaes-avx512` backend runs counter mode on zmm
/// registers; below, on ymm.
pub const ZMM_FROM: usize = 512;

crate::aead_util::aead_error! {
    /// Why an AES-GCM-SIV call was refused.
    "AES-GCM-SIV" {
        /// The plaintext or ciphertext exceeds 2^36 bytes.
        MessageTooLong => "the message exceeds 2^36 bytes",
        /// The associated data exceeds 2^36 bytes.
        AadTooLong => "the associated data exceeds 2^36 bytes",
        /// Authentication failed: the ciphertext, associated data, nonce or tag
        /// was altered (or the key is wrong). The buffer has been zeroed.
        TagMismatch => "authentication failed (tag mismatch)",
    }
}

/// One backend of AES-GCM-SIV: the AES backend its keys run on and the
/// POLYVAL and counter-mode kernels of its instruction set. Implemented by
/// [`Portable`] and, on x86-64, by the capability tokens themselves
/// (`AesClmul` for `aes-ni`, `VaesAvx2` for `vaes-avx2`) and [`Vaes512`],
/// with the same signatures; [`Engine`]'s operations are written once over
/// it. The value is the proof of the backend's instructions.
trait Backend: Copy {
    /// The name [`Aes128GcmSiv::backend_name`] reports.
    const NAME: &'static str;

    /// The AES backend of the key-generating and message-encryption keys.
    type Aes: aes::Backend;

    /// `key` (16 or 32 bytes) expanded on [`Backend::Aes`].
    fn aes(self, key: &[u8]) -> Self::Aes;

    /// A POLYVAL state keyed by `h` on this backend's kernel.
    fn polyval(self, h: &[u8; 16]) -> Polyval;

    /// The kernel of [`crate::ghash::polyval_short`] on this backend.
    fn short_polyval(self) -> ShortPolyval;

    /// `data ⊕ AES-CTR(key, ctr)` with RFC 8452's counter (the counter
    /// block read little-endian), in place.
    fn ctr(self, key: &Self::Aes, ctr: u128, data: &mut [u8]);

    /// A whole message under the key-generating key `kgk` in one kernel
    /// call, where the backend has such a path and the message is short
    /// enough for it: `buf` sealed in place and the tag returned
    /// (`received` is `None`), or opened in place with the `received` tag
    /// and the expected tag returned (for the caller's comparison). The
    /// default, `None`, folds away.
    #[inline(always)]
    fn short(
        self,
        kgk: &Self::Aes,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        received: Option<&[u8; 16]>,
    ) -> Option<[u8; 16]> {
        let _ = (kgk, nonce, aad, buf, received);
        None
    }
}

/// RustCrypto's fixsliced `aes` and the portable POLYVAL.
#[derive(Clone, Copy)]
struct Portable;

impl Backend for Portable {
    const NAME: &'static str = "portable";
    type Aes = aes::portable::Key;

    #[inline]
    fn aes(self, key: &[u8]) -> aes::portable::Key {
        aes::Backend::new((), key)
    }

    fn polyval(self, h: &[u8; 16]) -> Polyval {
        Polyval::new_portable(h)
    }

    fn short_polyval(self) -> ShortPolyval {
        ShortPolyval::Portable
    }

    fn ctr(self, key: &aes::portable::Key, ctr: u128, data: &mut [u8]) {
        aes::ctr32le_xor(key, ctr, data);
    }
}

/// The backend of a capability token `$token`, named `$name`: AES-NI
/// keys (`$aes_clmul` of the token), POLYVAL by `Polyval::$polyval` and
/// the short kernel `ShortPolyval::$short` (of the token's `$clmul`),
/// counter mode by `ctr::$ctr`, and short messages in one call of
/// `$one_call` (`gcm_siv/x86.rs`).
macro_rules! token_backend {
    ($token:ty, $name:literal, $aes_clmul:expr, $polyval:ident, $short:ident($clmul:ident), $ctr:ident, $one_call:path) => {
        #[cfg(target_arch = "x86_64")]
        impl Backend for $token {
            const NAME: &'static str = $name;
            type Aes = aes::aesni::Key;

            #[inline]
            fn aes(self, key: &[u8]) -> aes::aesni::Key {
                aes::Backend::new($aes_clmul(self), key)
            }

            fn polyval(self, h: &[u8; 16]) -> Polyval {
                Polyval::$polyval(h).unwrap_or_else(|| Polyval::new_portable(h))
            }

            fn short_polyval(self) -> ShortPolyval {
                ShortPolyval::$short(self.$clmul())
            }

            fn ctr(self, key: &aes::aesni::Key, ctr: u128, data: &mut [u8]) {
                ctr::$ctr(self, &key.rk, ctr, data);
            }

            #[inline]
            fn short(
                self,
                kgk: &aes::aesni::Key,
                nonce: &[u8; 12],
                aad: &[u8],
                buf: &mut [u8],
                received: Option<&[u8; 16]>,
            ) -> Option<[u8; 16]> {
                x86::fits(aad.len(), buf.len())
                    .then(|| $one_call(self, &kgk.rk, nonce, aad, buf, received))
            }
        }
    };
}

// `aes-ni`: counter mode on xmm (8 blocks per iteration), POLYVAL with
// PCLMULQDQ.
token_backend! { cpu::AesClmul, "aes-ni", core::convert::identity, new_pclmulqdq, Xmm(clmul), xor_xmm, x86::short }
// `vaes-avx2`: counter mode on ymm (16 blocks per iteration), POLYVAL on
// ymm.
token_backend! { cpu::VaesAvx2, "vaes-avx2", cpu::VaesAvx2::aes_clmul, new_ymm_tier, Ymm(avx2_clmul), xor_ymm, x86::short_vex }

/// `vaes-avx512`: counter mode on zmm (32 blocks per iteration) from
/// [`ZMM_FROM`] bytes, a tail of less than 32 blocks and shorter messages
/// on ymm; POLYVAL's best kernel.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Vaes512(cpu::VaesAvx512, cpu::VaesAvx2);

#[cfg(target_arch = "x86_64")]
impl Backend for Vaes512 {
    const NAME: &'static str = "vaes-avx512";
    type Aes = aes::aesni::Key;

    #[inline]
    fn aes(self, key: &[u8]) -> aes::aesni::Key {
        self.1.aes(key)
    }

    fn polyval(self, h: &[u8; 16]) -> Polyval {
        Polyval::new(h)
    }

    fn short_polyval(self) -> ShortPolyval {
        self.1.short_polyval()
    }

    #[inline]
    fn short(
        self,
        kgk: &aes::aesni::Key,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        received: Option<&[u8; 16]>,
    ) -> Option<[u8; 16]> {
        x86::fits(aad.len(), buf.len())
            .then(|| x86::short_vex(self.1, &kgk.rk, nonce, aad, buf, received))
    }

    fn ctr(self, key: &aes::aesni::Key, ctr: u128, data: &mut [u8]) {
        if data.len() >= ZMM_FROM {
            let done = ctr::xor_zmm(self.0, &key.rk, ctr, data);
            let next = aes::add32(ctr, (done / 16) as u32);
            if let Some(rest) = data.get_mut(done..) {
                self.1.ctr(key, next, rest);
            }
        } else {
            self.1.ctr(key, ctr, data);
        }
    }
}

/// `aes-pmull` (AArch64): AES with `AESE`/`AESMC` (`aes/armv8.rs`:
/// counter mode eight blocks per iteration), POLYVAL's best kernel (`pmull`
/// or `pmull-eor3`), the short POLYVAL on `pmull`.
#[cfg(target_arch = "aarch64")]
impl Backend for cpu::NeonAes {
    const NAME: &'static str = "aes-pmull";
    type Aes = aes::armv8::Key;

    #[inline]
    fn aes(self, key: &[u8]) -> aes::armv8::Key {
        aes::Backend::new(self, key)
    }

    fn polyval(self, h: &[u8; 16]) -> Polyval {
        Polyval::new(h)
    }

    fn short_polyval(self) -> ShortPolyval {
        ShortPolyval::Pmull(self)
    }

    fn ctr(self, key: &aes::armv8::Key, ctr: u128, data: &mut [u8]) {
        aes::armv8::ctr32le_xor(self, &key.rk, ctr, data);
    }

    #[inline]
    fn short(
        self,
        kgk: &aes::armv8::Key,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        received: Option<&[u8; 16]>,
    ) -> Option<[u8; 16]> {
        armv8::fits(aad.len(), buf.len())
            .then(|| armv8::short(self, &kgk.rk, nonce, aad, buf, received))
    }
}

crate::aead_util::dispatch_enum! {
    /// One key-generating key on one backend: each variant holds exactly
    /// its backend's [`Engine`]. Operations match once and run the engine's
    /// code, compiled per backend.
    x86_64: Engine<Vaes512>, Engine<cpu::VaesAvx2>, Engine<cpu::AesClmul>;
    aarch64: Engine<cpu::NeonAes>;
    Engine<Portable>
}

impl Dispatch {
    /// Every backend's name, best first ([`crate::hazmat::Backends::NAMES`]).
    #[cfg(target_arch = "x86_64")]
    const NAMES: &[&str] = &[
        Vaes512::NAME,
        cpu::VaesAvx2::NAME,
        cpu::AesClmul::NAME,
        Portable::NAME,
    ];
    #[cfg(target_arch = "aarch64")]
    const NAMES: &[&str] = &[cpu::NeonAes::NAME, Portable::NAME];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const NAMES: &[&str] = &[Portable::NAME];

    /// The key on the best backend this CPU runs.
    fn best(key: &[u8]) -> Dispatch {
        Dispatch::NAMES
            .iter()
            .find_map(|name| Dispatch::with_backend(name, key))
            .unwrap_or_else(|| Dispatch::Portable(Engine::new(key, Portable)))
    }

    /// The key on the backend named `name`, if this CPU runs it.
    fn with_backend(name: &str, key: &[u8]) -> Option<Dispatch> {
        Some(match name {
            #[cfg(target_arch = "x86_64")]
            Vaes512::NAME => {
                let t = Vaes512(cpu::VaesAvx512::get()?, cpu::VaesAvx2::get()?);
                Dispatch::Vaes512(Engine::new(key, t))
            }
            #[cfg(target_arch = "x86_64")]
            cpu::VaesAvx2::NAME => Dispatch::Vaes256(Engine::new(key, cpu::VaesAvx2::get()?)),
            #[cfg(target_arch = "x86_64")]
            cpu::AesClmul::NAME => Dispatch::AesNi(Engine::new(key, cpu::AesClmul::get()?)),
            #[cfg(target_arch = "aarch64")]
            cpu::NeonAes::NAME => Dispatch::AesPmull(Engine::new(key, cpu::NeonAes::get()?)),
            Portable::NAME => Dispatch::Portable(Engine::new(key, Portable)),
            _ => return None,
        })
    }

    fn name(&self) -> &'static str {
        on_backend!(self, e => e.name())
    }
}

/// A backend's one-call short kernel (`gcm_siv/x86.rs`,
/// `gcm_siv/armv8.rs`) against the portable backend's general path at
/// every associated-data and text length it takes (and one past), with
/// `(aad_blocks, text_blocks)` its limits: both key sizes, sealing and
/// opening (a wrong tag included).
#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
#[allow(clippy::indexing_slicing)] // `len % 16` indexes a 16-byte tag
fn short_against_portable<B: Backend>(t: B, (aad_blocks, text_blocks): (usize, usize)) {
    let bytes = |n: usize, seed: u8| -> alloc::vec::Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(29) ^ seed).collect()
    };
    for klen in [16, 32] {
        let key = bytes(klen, 0x3c);
        let (fast, slow) = (Engine::new(&key, t), Engine::new(&key, Portable));
        for alen in 0..=16 * aad_blocks + 1 {
            let aad = bytes(alen, 0x11);
            for len in 0..=16 * text_blocks + 1 {
                let nonce: [u8; 12] = core::array::from_fn(|i| (i + alen + 3 * len) as u8);
                let pt = bytes(len, 0xa5);
                let (mut a, mut b) = (pt.clone(), pt.clone());
                let ta = fast.seal(&nonce, &aad, &mut a);
                let tb = slow.seal(&nonce, &aad, &mut b);
                assert_eq!(
                    (ta, &a),
                    (tb, &b),
                    "seal: key {klen}, aad {alen}, {len} bytes"
                );
                let ea = fast.open(&nonce, &aad, &mut a, &ta);
                assert_eq!(
                    (ea, &a),
                    (ta, &pt),
                    "open: key {klen}, aad {alen}, {len} bytes"
                );
                let mut bad = ta;
                bad[len % 16] ^= 1;
                let mut c = b.clone();
                let ea = fast.open(&nonce, &aad, &mut c, &bad);
                let eb = slow.open(&nonce, &aad, &mut b, &bad);
                assert_eq!(
                    (ea, &c),
                    (eb, &b),
                    "bad tag: key {klen}, aad {alen}, {len} bytes"
                );
            }
        }
    }
}

#[cfg(test)]
impl<B: Backend> crate::test_util::SecretSpans for Engine<B>
where
    B::Aes: crate::test_util::SecretSpans,
{
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.kgk.secret_spans(s);
    }
}

/// The two message keys of RFC 8452 §4 for one nonce, as bytes (the
/// encryption key is expanded where it is used: an AES key returned or
/// stored by value is copied whole, about 1 KiB with the portable
/// backend's fixsliced schedule, which cost 10 % of a 16-byte message
/// when every key carried that size).
struct MessageKeys {
    auth: [u8; 16],
    /// 16 or 32 bytes of it are the key ([`Engine::key_len`]).
    enc: [u8; 32],
}

impl Drop for MessageKeys {
    fn drop(&mut self) {
        // One volatile write each (`zeroize` clears byte by byte: 48
        // stores a message).
        crate::wipe::wipe(&mut self.auth);
        crate::wipe::wipe(&mut self.enc);
    }
}

/// One key-generating key on the backend `B` (a variant of [`Dispatch`]).
#[derive(Clone)]
struct Engine<B: Backend> {
    kgk: B::Aes,
    /// 16 or 32: the length of the key-generating key and of the
    /// message-encryption key.
    key_len: usize,
    backend: B,
}

/// POLYVAL inputs (the zero-padded associated data and message and the
/// lengths block) of at most this many bytes are hashed in one call from a
/// stack copy by [`polyval_short`] rather than by a [`Polyval`] state in up
/// to five `update` calls: one group with its key setup fused (on ymm, two
/// to eight blocks), and no state to build, move and wipe.
const ONE_CALL_BYTES: usize = 16 * SHORT_BLOCKS;

/// Sixteen zero bytes: the padding after the associated data and the
/// message.
const ZEROS: [u8; 16] = [0; 16];

/// `a`'s low 64 bits, then `b`'s: on x86-64 in a vector register, so the
/// message keys reach the key expansion and POLYVAL's 16-byte loads
/// through the store buffer (see [`crate::simd::unpack_lo64`]).
#[inline(always)]
fn pack_low64(a: u128, b: u128) -> u128 {
    #[cfg(target_arch = "x86_64")]
    {
        crate::simd::unpack_lo64(a, b)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (a & u128::from(u64::MAX)) | (b << 64)
    }
}

/// `(a ⊕ b) ∧ m`: on x86-64 in a vector register, so the tag's input
/// block reaches the AES rounds' 16-byte load through the store buffer.
#[inline(always)]
fn xor_and(a: u128, b: u128, m: u128) -> u128 {
    #[cfg(target_arch = "x86_64")]
    {
        crate::simd::xor_and(a, b, m)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        (a ^ b) & m
    }
}

/// RFC 8452's length limits.
fn check_lengths(aad: &[u8], buf: &[u8]) -> Result<(), Error> {
    if buf.len() as u64 > MAX_PLAINTEXT_BYTES {
        return Err(Error::MessageTooLong);
    }
    if aad.len() as u64 > MAX_AAD_BYTES {
        return Err(Error::AadTooLong);
    }
    Ok(())
}

/// The counter block of RFC 8452 §4 step 4: the tag with bit 127 set
/// (both read little-endian).
fn counter(tag: u128) -> u128 {
    tag | 1 << 127
}

/// The zero bytes that pad `len` bytes to a whole number of blocks.
fn padding(len: usize) -> &'static [u8] {
    ZEROS.get(..(16 - len % 16) % 16).unwrap_or_default()
}

impl<B: Backend> Engine<B> {
    fn new(key: &[u8], backend: B) -> Engine<B> {
        Engine {
            kgk: backend.aes(key),
            key_len: key.len(),
            backend,
        }
    }

    fn name(&self) -> &'static str {
        B::NAME
    }

    /// The message keys for `nonce` (RFC 8452 §4, `derive_keys`): the low
    /// 8 bytes of `AES(K, [i]₃₂ ∥ N)` for `i` = 0, 1 (authentication) and
    /// 2 … 5 (encryption; 2, 3 for AES-128).
    fn derive(&self, nonce: &[u8; 12]) -> MessageKeys {
        let mut n = [0u8; 16];
        if let Some(tail) = n.get_mut(4..) {
            tail.copy_from_slice(nonce);
        }
        let n = u128::from_le_bytes(n);
        let mut keys = MessageKeys {
            auth: [0; 16],
            enc: [0; 32],
        };
        let (e0, e1) = keys.enc.split_at_mut(16);
        if self.key_len == 16 {
            let mut b = self.kgk.encrypt_counters::<4>(n);
            keys.auth = pack_low64(b[0], b[1]).to_le_bytes();
            e0.copy_from_slice(&pack_low64(b[2], b[3]).to_le_bytes());
            crate::wipe::wipe(&mut b);
        } else {
            let mut b = self.kgk.encrypt_counters::<6>(n);
            keys.auth = pack_low64(b[0], b[1]).to_le_bytes();
            e0.copy_from_slice(&pack_low64(b[2], b[3]).to_le_bytes());
            e1.copy_from_slice(&pack_low64(b[4], b[5]).to_le_bytes());
            crate::wipe::wipe(&mut b);
        }
        keys
    }

    /// The message-encryption key of `keys`, expanded on this backend.
    fn enc_key(&self, keys: &MessageKeys) -> B::Aes {
        self.backend
            .aes(keys.enc.get(..self.key_len).unwrap_or_default())
    }

    /// The tag of `msg` (RFC 8452 §4 steps 2–3), read little-endian.
    fn tag(
        &self,
        keys: &MessageKeys,
        enc: &B::Aes,
        nonce: &[u8; 12],
        aad: &[u8],
        msg: &[u8],
    ) -> u128 {
        let mut lengths = [0u8; 16];
        let (a, m) = lengths.split_at_mut(8);
        a.copy_from_slice(&((aad.len() as u64) * 8).to_le_bytes());
        m.copy_from_slice(&((msg.len() as u64) * 8).to_le_bytes());
        let (a_end, m_end) = (
            aad.len().next_multiple_of(16),
            aad.len().next_multiple_of(16) + msg.len().next_multiple_of(16),
        );
        let s = if m_end + 16 <= ONE_CALL_BYTES {
            // One call on a stack copy (wiped: it holds the message).
            let mut copy = [[0u8; 32]; ONE_CALL_BYTES / 32];
            let flat = copy.as_flattened_mut();
            let (head, rest) = flat.split_at_mut(a_end);
            let (body, tail) = rest.split_at_mut(m_end - a_end);
            head.get_mut(..aad.len())
                .unwrap_or_default()
                .copy_from_slice(aad);
            body.get_mut(..msg.len())
                .unwrap_or_default()
                .copy_from_slice(msg);
            tail.get_mut(..16)
                .unwrap_or_default()
                .copy_from_slice(&lengths);
            let s = polyval_short(
                self.backend.short_polyval(),
                &keys.auth,
                flat.get(..m_end + 16).unwrap_or_default(),
            );
            crate::wipe::wipe(&mut copy);
            s
        } else {
            let mut p = self.backend.polyval(&keys.auth);
            p.update(aad);
            p.update(padding(aad.len()));
            p.update(msg);
            p.update(padding(msg.len()));
            p.update(&lengths);
            p.finalize()
        };
        let mut n = [0u8; 16];
        n.get_mut(..12).unwrap_or_default().copy_from_slice(nonce);
        let s = xor_and(u128::from_le_bytes(s), u128::from_le_bytes(n), !(1 << 127));
        let [tag] = enc.encrypt_array([s]);
        tag
    }

    /// RFC 8452 §4 after the length checks: the tag of `buf`, then `buf`
    /// encrypted in place from it.
    fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        if let Some(tag) = self.backend.short(&self.kgk, nonce, aad, buf, None) {
            return tag;
        }
        let keys = self.derive(nonce);
        let enc = self.enc_key(&keys);
        let tag = self.tag(&keys, &enc, nonce, aad, buf);
        self.backend.ctr(&enc, counter(tag), buf);
        tag.to_le_bytes()
    }

    /// RFC 8452 §5 after the length checks: `buf` decrypted in place from
    /// `tag`, then the expected tag of the plaintext, returned for the
    /// caller's constant-time check.
    fn open(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> [u8; 16] {
        if let Some(expected) = self.backend.short(&self.kgk, nonce, aad, buf, Some(tag)) {
            return expected;
        }
        let keys = self.derive(nonce);
        let enc = self.enc_key(&keys);
        self.backend
            .ctr(&enc, counter(u128::from_le_bytes(*tag)), buf);
        self.tag(&keys, &enc, nonce, aad, buf).to_le_bytes()
    }
}

macro_rules! gcm_siv_type {
    ($(#[$doc:meta])* $name:ident, $bytes:literal, $ksize:ty) => {
        crate::aead_util::keyed_aead!(
            $(#[$doc])* $name,
            key: $bytes, $ksize,
            nonce: U12,
            encrypt_in_place_detached,
            decrypt_in_place_detached
        );

        impl $name {
            /// Encrypts `buf` in place and returns the 16-byte tag (RFC 8452
            /// §4).
            ///
            /// # Errors
            /// [`Error::MessageTooLong`], [`Error::AadTooLong`]; `buf` is
            /// untouched then.
            pub fn encrypt_in_place_detached(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                buf: &mut [u8],
            ) -> Result<[u8; 16], Error> {
                check_lengths(aad, buf)?;
                Ok(on_backend!(&self.key, e => e.seal(nonce, aad, buf)))
            }

            /// Decrypts `buf` in place if `tag` (compared in constant time)
            /// authenticates it (RFC 8452 §5).
            ///
            /// # Errors
            /// [`Error::TagMismatch`] with `buf` zeroed;
            /// [`Error::MessageTooLong`], [`Error::AadTooLong`] with `buf`
            /// untouched.
            pub fn decrypt_in_place_detached(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                buf: &mut [u8],
                tag: &[u8; 16],
            ) -> Result<(), Error> {
                check_lengths(aad, buf)?;
                let mut expected = on_backend!(&self.key, e => e.open(nonce, aad, buf, tag));
                crate::aead_util::check_tag(&mut expected, tag, buf, Error::TagMismatch)
            }

            /// The backend in use: `vaes-avx512`, `vaes-avx2`, `aes-ni`,
            /// `aes-pmull` (AArch64) or `portable`.
            pub fn backend_name(&self) -> &'static str {
                self.key.name()
            }
        }
    };
}

gcm_siv_type! {
    /// AEAD_AES_128_GCM_SIV (RFC 8452). See the [module docs](self).
    Aes128GcmSiv, 16, U16
}
gcm_siv_type! {
    /// AEAD_AES_256_GCM_SIV (RFC 8452). See the [module docs](self).
    Aes256GcmSiv, 32, U32
}

#[cfg(all(test, target_arch = "x86_64"))]
mod stage_probe {
    use super::*;
    use core::hint::black_box;

    /// Prints the time per message of each stage of a 16-byte AES-128
    /// seal (cumulative: each line adds a stage), for locating the
    /// per-message cost; a diagnostic, not a check (see the module docs).
    #[test]
    #[ignore]
    fn stage_ticks() {
        on_backend!(&Dispatch::best(&[7u8; 16]), e => stages(e));
    }

    fn stages<B: Backend>(e: &Engine<B>) {
        let aad = [0x11u8; 13];
        let mut buf = [0x5au8; 16];
        let mut nonce = [3u8; 12];
        let iters = 200_000u32;
        macro_rules! time {
            ($name:literal, $body:expr) => {{
                let t0 = std::time::Instant::now();
                for i in 0..iters {
                    nonce[0] = i as u8;
                    black_box($body);
                }
                let ns = t0.elapsed().as_nanos() as f64;
                std::println!("{:>24}: {:.1} ns", $name, ns / iters as f64);
            }};
        }
        for _ in 0..2 {
            time!("derive", e.derive(black_box(&nonce)).auth[0]);
            time!("derive+expand", {
                let k = e.derive(black_box(&nonce));
                let enc = e.enc_key(&k);
                aes::Backend::encrypt_array(&enc, [0])[0]
            });
            time!("derive+expand+tag", {
                let k = e.derive(black_box(&nonce));
                let enc = e.enc_key(&k);
                e.tag(&k, &enc, &nonce, &aad, black_box(&buf))
            });
            time!("polyval alone", {
                let k = e.derive(black_box(&nonce));
                let mut p = e.backend.polyval(&k.auth);
                p.update(black_box(&[0u8; 48]));
                p.finalize()[0]
            });
            time!(
                "encrypt (in place)",
                e.seal(black_box(&nonce), &aad, &mut buf)
            );
        }
    }
}
