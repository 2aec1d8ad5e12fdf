//! `gcm`: AES-128-GCM and AES-256-GCM (NIST SP 800-38D) with 96-bit nonces
//! and 16-byte tags, fieldwork (`fieldwork::gcm`) against aws-lc-rs, ring,
//! RustCrypto's `aes-gcm` and, with `system-peers`, the system OpenSSL's EVP
//! interface. The group makes four tables, `gcm128_encrypt`,
//! `gcm128_decrypt`, `gcm256_encrypt` and `gcm256_decrypt` (each title also
//! says `13 B AAD`); `--filter gcm` selects all four, `--filter
//! gcm128_encrypt` one, `--filter gcm128` the AES-128 pair.
//!
//! # Rows
//!
//! Every implementation is keyed once, outside the timed region (the key
//! schedule and, for ours, the powers of H), and a call is one message, as
//! a TLS record layer does it: a 12-byte nonce, 13 bytes of additional data
//! (the size of TLS 1.2's AAD), the message processed in place, the 16-byte
//! tag separate. The nonce, AAD and message are the same every call and
//! hidden from the optimiser (a benchmark may repeat a nonce; nothing else
//! may). Calls are independent.
//!
//! - `N B` (N = 16, 64, 256, 1024, 1420, 8192, 16384, 65536) and `1 MiB`:
//!   - encrypt tables: encryption of an N-byte buffer in place, returning
//!     the tag (the buffer is encrypted again each call: encryption does not
//!     care what it encrypts). 1420 bytes is a typical TLS record inside a
//!     1500-byte MTU: 88 blocks and 12 bytes, so the row also pays a partial
//!     last block.
//!   - decrypt tables: decryption and verification of a valid ciphertext.
//!     The APIs decrypt in place, so each call first copies the pristine
//!     ciphertext and tag (N + 16 bytes) into the work buffer, then opens
//!     it and checks it was authentic. Every implementation does the same
//!     copy, so the comparison stays fair, but every figure includes it: a
//!     `memcpy` of N + 16 bytes, measured alone (2026-11-21, a 2-core
//!     AVX-512 Xeon VM, in TSC ticks) at about 10 per call for 16 B,
//!     0.02 per byte up to 16 KiB, 0.10 at 64 KiB and 0.13 at 1 MiB (the
//!     two buffers no longer fit in L1, then in L2), which is much of the
//!     gap between a decrypt row and its encrypt row at those sizes. The
//!     copy's source sits 2 KiB from the work buffer modulo 4 KiB: on an
//!     AMD EPYC Zen 3 glibc's `memcpy` of 16 KiB took 5.4 µs instead of
//!     0.17 µs when the destination was 16 bytes past the source modulo
//!     4 KiB (`examples/gcm_dec_probe` in the fieldwork crate), and with
//!     the source wherever the allocator put it, one implementation's row
//!     in some runs paid that (fieldwork's 16 KiB AES-256 row, 2026-11-24).
//!     (Re-encrypting the buffer would not be a decryption benchmark.)
//! - `GMAC: 16384 B AAD, empty message` (encrypt tables only): GCM as a MAC,
//!   16 KiB of additional data and nothing to encrypt; the cycles/byte are
//!   per AAD byte. This is the hash alone plus the fixed cost (`J0` and the
//!   final `AES_K(J0)` block).
//! - `16384 B, buffer at line + 16` (encrypt tables only): the 16 KiB row
//!   with the message 16 bytes past a cache-line boundary, as a buffer
//!   from `malloc` often is (16-byte aligned).
//!
//! Every message buffer (and decryption's work buffer) starts on a 4 KiB
//! page boundary (so on a cache line), except in the `line + 16` row: the same placement
//! for every implementation. (The allocator's placement differs from
//! buffer to buffer, so implementations were compared at different
//! alignments by chance; a 64-byte load or store that straddles two lines
//! costs more: fieldwork's zmm kernel, 2026-11-21, minima of repeated runs,
//! 16 KiB in place, is up to 4 % slower 48 bytes past a line than on it.)
//!
//! Each cell shows cycles per byte of message (of AAD in the GMAC row) and
//! cycles per call; the per-call figure is the one to read for the short
//! rows.
//!
//! # Implementations
//!
//! - `fieldwork best (<backend>)`: `KeyInit::new`, which chooses the
//!   fastest backend (named from `backend_name()`), then per call
//!   `encrypt_in_place_detached_iv` / `decrypt_in_place_detached_iv` (the
//!   `AeadInOut` methods call the same code); the reference for the ratios.
//! - `fieldwork (<backend>)`: every other backend and schedule this CPU
//!   runs, by name through `fieldwork::hazmat::Backends` (`vaes-avx512`,
//!   `vaes-avx2`, `vaes-avx2-karatsuba`, `aes-ni`, `portable`, …).
//! - `aws-lc-rs` and `ring`: `aead::LessSafeKey` with `AES_128_GCM` /
//!   `AES_256_GCM`; `seal_in_place_separate_tag`, and `open_in_place` on
//!   ciphertext ‖ tag.
//! - `RustCrypto aes-gcm`: `Aes128Gcm` / `Aes256Gcm`, `encrypt_inout_detached`
//!   and `decrypt_inout_detached` on the buffer in place (default features
//!   off: no `getrandom`). It makes two passes over the message, counter
//!   mode (`aes` 0.9 picks AES-NI, 256-bit or 512-bit VAES at run time)
//!   and then GHASH (`ghash`/`polyval`, PCLMULQDQ), where our
//!   `vaes-avx512` backend and the assembly of the three C libraries
//!   stitch the two into one loop.
//! - OpenSSL (`system-peers`): the EVP cipher interface (see
//!   `openssl::AesGcm` in this crate): one `EVP_CIPHER_CTX` per key, keyed
//!   once; per message `EVP_EncryptInit_ex` with the nonce alone,
//!   `EVP_EncryptUpdate` for the AAD and for the message (in place),
//!   `EVP_EncryptFinal_ex`, `EVP_CTRL_GCM_GET_TAG`; to decrypt, the
//!   `EVP_Decrypt*` counterparts with `EVP_CTRL_GCM_SET_TAG` before the
//!   final call, which verifies.
//!
//! # Checks before timing
//!
//! fieldwork's default backend against test cases 4 (AES-128) and 16
//! (AES-256) of McGrew & Viega's GCM specification (60-byte message, 20
//! bytes of AAD; the library's `tests/data/gcm_nist.txt` has all 18); then
//! every implementation, through the same calls and the same keyed object
//! kind as its timed routine, against that vector and against fieldwork's
//! default backend on the table's random key, nonce and AAD at every timed
//! length and a few more (0, 1, 15, 17, 100, 4097 bytes): the same
//! ciphertext and tag; opening fieldwork's ciphertext gives the plaintext
//! back; opening it with one tag bit flipped fails. The GMAC row's tag is
//! checked the same way. One object serves every check, encrypting and
//! decrypting in turn, so reusing a key (OpenSSL: a context) is checked too.
//! Any disagreement stops the run with the implementation, the length and
//! what differed.

use super::{hex, hexed};
use crate::harness::{Case, Impl};
use crate::util::Rng;
use aes_gcm::aead::consts::{U12, U16};
use aes_gcm::aead::{AeadInOut, KeyInit};
use benchtime::Routine;
use fieldwork::hazmat::Backends;
use std::hint::black_box;
use std::rc::Rc;

/// The timed message lengths in bytes.
const SIZES: &[usize] = &[16, 64, 256, 1024, 1420, 8192, 16384, 65536, 1 << 20];
/// Lengths checked but not timed: empty, partial blocks, an odd long one.
const CHECK_ONLY: &[usize] = &[0, 1, 15, 17, 100, 4097];
/// Bytes of additional data in every size row (TLS 1.2's AAD is 13 bytes).
const AAD_BYTES: usize = 13;
/// Bytes of additional data in the GMAC row.
const GMAC_AAD_BYTES: usize = 16384;
/// Tag bytes.
pub(super) const TAG: usize = 16;
/// The misaligned row's message length and its offset from a cache line.
const MISALIGNED: (usize, usize) = (16384, 16);

/// A byte buffer placed `offset` bytes past a 4 KiB boundary (so past a
/// 64-byte one too).
pub(super) struct Placed {
    store: Vec<u8>,
    start: usize,
    len: usize,
}

impl Placed {
    /// A copy of `data` at `offset` (< 4096) bytes past a page boundary.
    pub(super) fn new(data: &[u8], offset: usize) -> Placed {
        let mut store = vec![0u8; data.len() + 8192];
        let start = (4096 - store.as_ptr() as usize % 4096) % 4096 + offset;
        store[start..start + data.len()].copy_from_slice(data);
        Placed {
            store,
            start,
            len: data.len(),
        }
    }

    /// The placed bytes.
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.store[self.start..self.start + self.len]
    }
}

/// McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", appendix
/// B, test cases 4 and 16: the IV …
const KAT_IV: [u8; 12] = hex("cafebabefacedbaddecaf888");
/// … the message …
const KAT_PT: [u8; 60] = hex(concat!(
    "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72",
    "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39"
));
/// … and the additional data, shared by both cases.
const KAT_AAD: [u8; 20] = hex("feedfacedeadbeeffeedfacedeadbeefabaddad2");

/// One keyed AES-GCM (or AES-GCM-SIV: the same calls, see `gcm_siv.rs`)
/// implementation, as the timed routines call it.
pub(super) trait Gcm: 'static {
    /// Encrypts `buf` in place and returns the tag (`None` on an error).
    fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]>;
    /// Decrypts `sealed` (ciphertext ‖ tag) in place; whether it was
    /// authentic.
    fn open(&mut self, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool;
}

/// One of fieldwork's AES-GCM types, with its backends by name
/// (`fieldwork::hazmat`; each `None` for a key of the wrong length or a CPU
/// without the backend).
trait Ours: Gcm + Sized {
    fn best(key: &[u8]) -> Option<Self>;
    fn with_backend(name: &str, key: &[u8]) -> Option<Self>;
    /// Every backend and forced schedule's name, best first.
    fn names() -> &'static [&'static str];
    fn backend(&self) -> &'static str;
}

macro_rules! ours {
    ($($t:ty, $bytes:literal;)*) => {$(
        impl Gcm for $t {
            #[inline(always)]
            fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
                self.encrypt_in_place_detached_iv(nonce, aad, buf).ok()
            }
            #[inline(always)]
            fn open(&mut self, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool {
                let Some(split) = sealed.len().checked_sub(TAG) else {
                    return false;
                };
                let (ciphertext, tag) = sealed.split_at_mut(split);
                self.decrypt_in_place_detached_iv(nonce, aad, ciphertext, tag)
                    .is_ok()
            }
        }

        impl Ours for $t {
            fn best(key: &[u8]) -> Option<Self> {
                let key = <[u8; $bytes]>::try_from(key).ok()?;
                Some(<$t as fieldwork::gcm::aead::KeyInit>::new(&key.into()))
            }
            fn with_backend(name: &str, key: &[u8]) -> Option<Self> {
                <$t as Backends>::with_backend(name, key.try_into().ok()?)
            }
            fn names() -> &'static [&'static str] {
                <$t as Backends>::NAMES
            }
            fn backend(&self) -> &'static str {
                self.backend_name()
            }
        }
    )*};
}

ours! {
    fieldwork::gcm::Aes128Gcm, 16;
    fieldwork::gcm::Aes256Gcm, 32;
}

/// RustCrypto's `aes-gcm` types, through `AeadInOut` on a buffer in place.
pub(super) struct RustCrypto<T>(pub(super) T);

impl<T> Gcm for RustCrypto<T>
where
    T: AeadInOut<NonceSize = U12, TagSize = U16> + 'static,
{
    #[inline(always)]
    fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
        self.0
            .encrypt_inout_detached(nonce.into(), aad, buf.into())
            .ok()
            .map(Into::into)
    }
    #[inline(always)]
    fn open(&mut self, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool {
        let Some(split) = sealed.len().checked_sub(TAG) else {
            return false;
        };
        let (ciphertext, tag) = sealed.split_at_mut(split);
        let Ok(tag) = (&*tag).try_into() else {
            return false;
        };
        self.0
            .decrypt_inout_detached(nonce.into(), aad, ciphertext.into(), tag)
            .is_ok()
    }
}

/// aws-lc-rs and ring have the same `LessSafeKey` interface.
macro_rules! less_safe_key {
    ($($krate:ident)*) => {$(
        impl Gcm for $krate::aead::LessSafeKey {
            #[inline(always)]
            fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
                use $krate::aead::{Aad, Nonce};
                let tag = self
                    .seal_in_place_separate_tag(
                        Nonce::assume_unique_for_key(*nonce),
                        Aad::from(aad),
                        buf,
                    )
                    .ok()?;
                tag.as_ref().try_into().ok()
            }
            #[inline(always)]
            fn open(&mut self, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool {
                use $krate::aead::{Aad, Nonce};
                self.open_in_place(Nonce::assume_unique_for_key(*nonce), Aad::from(aad), sealed)
                    .is_ok()
            }
        }
    )*};
}

less_safe_key!(aws_lc_rs ring);

#[cfg(feature = "system-peers")]
impl Gcm for crate::openssl::AesGcm {
    #[inline(always)]
    fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
        self.seal_in_place(nonce, aad, buf).ok()
    }
    #[inline(always)]
    fn open(&mut self, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool {
        let Some(split) = sealed.len().checked_sub(TAG) else {
            return false;
        };
        let (ciphertext, tag) = sealed.split_at_mut(split);
        let Ok(tag) = <[u8; TAG]>::try_from(&*tag) else {
            return false;
        };
        self.open_in_place(nonce, aad, ciphertext, &tag).is_ok()
    }
}

/// AES-128-GCM or AES-256-GCM: the tables, the test vector, our type and
/// the peers' algorithms.
trait Variant {
    const ENCRYPT: &'static str;
    const DECRYPT: &'static str;
    const KEY_BYTES: usize;
    /// The test case's key, ciphertext and tag.
    const KAT: (&'static [u8], [u8; 60], [u8; TAG]);
    type Ours: Ours;
    type RustCrypto: AeadInOut<NonceSize = U12, TagSize = U16> + KeyInit + 'static;
    fn aws_lc() -> &'static aws_lc_rs::aead::Algorithm;
    fn ring() -> &'static ring::aead::Algorithm;
}

/// AES-128-GCM.
struct Aes128;
/// AES-256-GCM.
struct Aes256;

impl Variant for Aes128 {
    const ENCRYPT: &'static str = "gcm128_encrypt (13 B AAD)";
    const DECRYPT: &'static str = "gcm128_decrypt (13 B AAD)";
    const KEY_BYTES: usize = 16;
    const KAT: (&'static [u8], [u8; 60], [u8; TAG]) = (
        &hex::<16>("feffe9928665731c6d6a8f9467308308"),
        hex(concat!(
            "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e",
            "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
        )),
        hex("5bc94fbc3221a5db94fae95ae7121a47"),
    );
    type Ours = fieldwork::gcm::Aes128Gcm;
    type RustCrypto = aes_gcm::Aes128Gcm;
    fn aws_lc() -> &'static aws_lc_rs::aead::Algorithm {
        &aws_lc_rs::aead::AES_128_GCM
    }
    fn ring() -> &'static ring::aead::Algorithm {
        &ring::aead::AES_128_GCM
    }
}

impl Variant for Aes256 {
    const ENCRYPT: &'static str = "gcm256_encrypt (13 B AAD)";
    const DECRYPT: &'static str = "gcm256_decrypt (13 B AAD)";
    const KEY_BYTES: usize = 32;
    const KAT: (&'static [u8], [u8; 60], [u8; TAG]) = (
        &hex::<32>("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"),
        hex(concat!(
            "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa",
            "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662"
        )),
        hex("76fc6ece0f4e1768cddf8853bb2d551b"),
    );
    type Ours = fieldwork::gcm::Aes256Gcm;
    type RustCrypto = aes_gcm::Aes256Gcm;
    fn aws_lc() -> &'static aws_lc_rs::aead::Algorithm {
        &aws_lc_rs::aead::AES_256_GCM
    }
    fn ring() -> &'static ring::aead::Algorithm {
        &ring::aead::AES_256_GCM
    }
}

/// A table pair's random key, nonce, AAD and message, and fieldwork's
/// results on them, which every implementation must reproduce.
struct Inputs {
    key: Vec<u8>,
    nonce: [u8; 12],
    /// The AAD of the size rows.
    aad: Rc<[u8]>,
    /// The longest message; shorter ones (and the GMAC row's AAD) are its
    /// prefixes.
    data: Vec<u8>,
    /// For each of [`Inputs::check_lengths`], in order: fieldwork's
    /// ciphertext ‖ tag, shared by the decrypt routines as their pristine
    /// input.
    sealed: Vec<Rc<[u8]>>,
    /// fieldwork's tag for the GMAC row.
    gmac_tag: [u8; TAG],
}

impl Inputs {
    /// Random inputs, sealed by fieldwork's default backend after it has
    /// passed the test vector.
    fn new<V: Variant>(seed: u64) -> Result<Inputs, String> {
        let mut reference = V::Ours::best(V::KAT.0).ok_or("fieldwork: wrong key length")?;
        check_kat::<V, _>("fieldwork (default)", &mut reference)?;

        let mut rng = Rng(seed);
        let mut bytes = |n: usize| -> Vec<u8> {
            (0..n.div_ceil(8))
                .flat_map(|_| rng.next_u64().to_le_bytes())
                .take(n)
                .collect()
        };
        let key = bytes(V::KEY_BYTES);
        let nonce: [u8; 12] = bytes(12).try_into().map_err(|_| "nonce length")?;
        let aad: Rc<[u8]> = bytes(AAD_BYTES).into();
        let longest = Self::check_lengths()
            .chain([GMAC_AAD_BYTES])
            .max()
            .unwrap_or(0);
        let data = bytes(longest);
        let mut ours = V::Ours::best(&key).ok_or("fieldwork: wrong key length")?;
        let mut sealed = Vec::new();
        for n in Self::check_lengths() {
            let mut buf = data[..n].to_vec();
            let tag = ours
                .seal(&nonce, &aad, &mut buf)
                .ok_or_else(|| format!("fieldwork: encrypting {n} bytes failed"))?;
            buf.extend_from_slice(&tag);
            sealed.push(buf.into());
        }
        let gmac_tag = ours
            .seal(&nonce, &data[..GMAC_AAD_BYTES], &mut [])
            .ok_or("fieldwork: GMAC failed")?;
        Ok(Inputs {
            key,
            nonce,
            aad,
            data,
            sealed,
            gmac_tag,
        })
    }

    /// Every checked length: the timed ones first, then the others.
    fn check_lengths() -> impl Iterator<Item = usize> {
        SIZES.iter().chain(CHECK_ONLY).copied()
    }
}

/// The cases: for AES-128 then AES-256, the encrypt table (a case per size
/// and the GMAC case) and the decrypt table, after every check.
pub fn cases() -> Result<Vec<Case>, String> {
    let mut out = tables::<Aes128>(0x6763_6d31_3238)?;
    out.extend(tables::<Aes256>(0x6763_6d32_3536)?);
    Ok(out)
}

/// One key size's two tables. Each column is checked and built whole (an
/// encrypt routine per size and the GMAC one, a decrypt routine per size),
/// then the columns are dealt out to the cases.
fn tables<V: Variant>(seed: u64) -> Result<Vec<Case>, String> {
    let inputs = Inputs::new::<V>(seed)?;
    let best = V::Ours::best(&inputs.key)
        .ok_or("fieldwork: wrong key length")?
        .backend();
    let mut columns = vec![column::<V, _>(
        format!("fieldwork best ({best})"),
        true,
        |k| V::Ours::best(k).ok_or_else(|| "wrong key length".into()),
        &inputs,
    )?];
    let mut seen = vec![best];
    for &forced in V::Ours::names() {
        let Some(name) = V::Ours::with_backend(forced, &inputs.key).map(|g| g.backend()) else {
            continue;
        };
        if seen.contains(&name) {
            continue;
        }
        seen.push(name);
        columns.push(column::<V, _>(
            format!("fieldwork ({name})"),
            true,
            move |k| {
                V::Ours::with_backend(forced, k).ok_or_else(|| format!("{name}: not available"))
            },
            &inputs,
        )?);
    }
    columns.push(column::<V, _>(
        concat!("aws-lc-rs ", env!("PEER_VERSION_AWS_LC_RS")).into(),
        false,
        |k| {
            aws_lc_rs::aead::UnboundKey::new(V::aws_lc(), k)
                .map(aws_lc_rs::aead::LessSafeKey::new)
                .map_err(|e| format!("UnboundKey::new: {e}"))
        },
        &inputs,
    )?);
    columns.push(column::<V, _>(
        concat!("ring ", env!("PEER_VERSION_RING")).into(),
        false,
        |k| {
            ring::aead::UnboundKey::new(V::ring(), k)
                .map(ring::aead::LessSafeKey::new)
                .map_err(|e| format!("UnboundKey::new: {e}"))
        },
        &inputs,
    )?);
    // The version is not in build.rs's list of versioned peers; 0.11 is
    // the requirement in Cargo.toml (the lock file has 0.11.1).
    columns.push(column::<V, _>(
        "RustCrypto aes-gcm 0.11".into(),
        false,
        |k| {
            V::RustCrypto::new_from_slice(k)
                .map(RustCrypto)
                .map_err(|e| format!("new_from_slice: {e}"))
        },
        &inputs,
    )?);
    #[cfg(feature = "system-peers")]
    columns.push(column::<V, _>(
        format!("{} (system)", crate::openssl::version()),
        false,
        crate::openssl::AesGcm::new,
        &inputs,
    )?);

    let mut encrypt: Vec<Vec<Impl>> = (0..SIZES.len() + 2).map(|_| Vec::new()).collect();
    let mut decrypt: Vec<Vec<Impl>> = (0..SIZES.len()).map(|_| Vec::new()).collect();
    for (enc, dec) in columns {
        for (impls, imp) in encrypt.iter_mut().zip(enc) {
            impls.push(imp);
        }
        for (impls, imp) in decrypt.iter_mut().zip(dec) {
            impls.push(imp);
        }
    }
    let size_label = |n: usize| {
        if n == 1 << 20 {
            "1 MiB".to_string()
        } else {
            format!("{n} B")
        }
    };
    let case = |group, size, bytes: usize, impls| Case {
        group,
        size,
        bytes: Some(bytes as u64),
        impls,
        heavy: false,
        per_second: None,
    };
    let mut out: Vec<Case> = encrypt
        .into_iter()
        .enumerate()
        .map(|(i, impls)| match SIZES.get(i) {
            Some(&n) => case(V::ENCRYPT, size_label(n), n, impls),
            None if i == SIZES.len() => case(
                V::ENCRYPT,
                format!("GMAC: {GMAC_AAD_BYTES} B AAD, empty message"),
                GMAC_AAD_BYTES,
                impls,
            ),
            None => case(
                V::ENCRYPT,
                format!("{} B, buffer at line + {}", MISALIGNED.0, MISALIGNED.1),
                MISALIGNED.0,
                impls,
            ),
        })
        .collect();
    out.extend(
        decrypt
            .into_iter()
            .zip(SIZES)
            .map(|(impls, &n)| case(V::DECRYPT, size_label(n), n, impls)),
    );
    Ok(out)
}

/// Checks an implementation against test case 4 or 16: the ciphertext and
/// tag, and opening them.
fn check_kat<V: Variant, G: Gcm>(name: &str, g: &mut G) -> Result<(), String> {
    let (_, ct, tag) = V::KAT;
    let mut buf = KAT_PT.to_vec();
    let got = g.seal(&KAT_IV, &KAT_AAD, &mut buf);
    if got != Some(tag) || buf != ct {
        return Err(format!(
            "{name} ({}) disagrees with the GCM specification's test vector: {} ‖ {}",
            V::ENCRYPT,
            hexed(&buf),
            got.map_or("(error)".into(), |t| hexed(&t))
        ));
    }
    buf.extend_from_slice(&tag);
    if !g.open(&KAT_IV, &KAT_AAD, &mut buf) || buf[..KAT_PT.len()] != KAT_PT {
        return Err(format!(
            "{name} ({}) fails to open the GCM specification's test vector",
            V::DECRYPT
        ));
    }
    Ok(())
}

/// A column's routines: the encrypt table's (a routine per size of
/// [`SIZES`], then the GMAC one) and the decrypt table's.
type Column = (Vec<Impl>, Vec<Impl>);

/// Checks one implementation (keyed by `new`) against the test vector and
/// fieldwork's results, then returns its routines, each with its own keyed
/// object.
fn column<V, G>(
    name: String,
    ours: bool,
    new: impl Fn(&[u8]) -> Result<G, String>,
    inputs: &Inputs,
) -> Result<Column, String>
where
    V: Variant,
    G: Gcm,
{
    let keyed = |key: &[u8]| new(key).map_err(|e| format!("{name}: {e}"));
    let mut g = keyed(V::KAT.0)?;
    check_kat::<V, _>(&name, &mut g)?;

    let mut g = keyed(&inputs.key)?;
    let nonce = &inputs.nonce;
    for (n, want) in Inputs::check_lengths().zip(&inputs.sealed) {
        let message = &inputs.data[..n];
        let mut buf = message.to_vec();
        let tag = g.seal(nonce, &inputs.aad, &mut buf);
        if tag.is_none_or(|t| t[..] != want[n..]) || buf[..] != want[..n] {
            return Err(format!(
                "{name} ({}) disagrees with fieldwork at {n} bytes: tag {} instead of {}{}",
                V::ENCRYPT,
                tag.map_or("(error)".into(), |t| hexed(&t)),
                hexed(&want[n..]),
                if buf[..] == want[..n] {
                    ""
                } else {
                    ", and the ciphertext differs"
                }
            ));
        }
        let mut sealed = want.to_vec();
        if !g.open(nonce, &inputs.aad, &mut sealed) || sealed[..n] != *message {
            return Err(format!(
                "{name} ({}) fails to open fieldwork's ciphertext of {n} bytes",
                V::DECRYPT
            ));
        }
        let mut forged = want.to_vec();
        forged[n] ^= 1;
        if g.open(nonce, &inputs.aad, &mut forged) {
            return Err(format!(
                "{name} ({}) accepts a wrong tag at {n} bytes",
                V::DECRYPT
            ));
        }
    }
    let gmac = g.seal(nonce, &inputs.data[..GMAC_AAD_BYTES], &mut []);
    if gmac != Some(inputs.gmac_tag) {
        return Err(format!(
            "{name} ({}) disagrees with fieldwork on GMAC of {GMAC_AAD_BYTES} bytes: {} instead of {}",
            V::ENCRYPT,
            gmac.map_or("(error)".into(), |t| hexed(&t)),
            hexed(&inputs.gmac_tag)
        ));
    }

    let impl_of = |routine| Impl {
        name: name.clone(),
        ours,
        routine,
    };
    let mut encrypt = Vec::new();
    let mut decrypt = Vec::new();
    for (&n, sealed) in SIZES.iter().zip(&inputs.sealed) {
        encrypt.push(impl_of(seal_routine(
            keyed(&inputs.key)?,
            inputs.nonce,
            Rc::clone(&inputs.aad),
            Placed::new(&inputs.data[..n], 0),
        )));
        decrypt.push(impl_of(open_routine(
            keyed(&inputs.key)?,
            inputs.nonce,
            Rc::clone(&inputs.aad),
            Rc::clone(sealed),
        )));
    }
    encrypt.push(impl_of(seal_routine(
        keyed(&inputs.key)?,
        inputs.nonce,
        inputs.data[..GMAC_AAD_BYTES].into(),
        Placed::new(&[], 0),
    )));
    encrypt.push(impl_of(seal_routine(
        keyed(&inputs.key)?,
        inputs.nonce,
        Rc::clone(&inputs.aad),
        Placed::new(&inputs.data[..MISALIGNED.0], MISALIGNED.1),
    )));
    Ok((encrypt, decrypt))
}

/// `n` encryptions of `buf` in place (the buffer's contents change each
/// call; the cost does not).
pub(super) fn seal_routine<G: Gcm>(
    mut g: G,
    nonce: [u8; 12],
    aad: Rc<[u8]>,
    mut buf: Placed,
) -> Routine<'static> {
    Box::new(move |n| {
        for _ in 0..n {
            let tag = g
                .seal(black_box(&nonce), black_box(&aad), black_box(buf.bytes()))
                .expect("encryption (checked before timing)");
            black_box(tag);
        }
    })
}

/// `n` decryptions of `pristine` (ciphertext ‖ tag): each copies it into
/// the work buffer, then opens it there.
pub(super) fn open_routine<G: Gcm>(
    mut g: G,
    nonce: [u8; 12],
    aad: Rc<[u8]>,
    pristine: Rc<[u8]>,
) -> Routine<'static> {
    let mut work = Placed::new(&pristine, 0);
    // The copy's source half a page from the work buffer (module docs).
    let mut source = Placed::new(&pristine, 2048);
    Box::new(move |n| {
        for _ in 0..n {
            let work = work.bytes();
            work.copy_from_slice(black_box(source.bytes()));
            let authentic = g.open(black_box(&nonce), black_box(&aad), black_box(work));
            assert!(authentic, "decryption (checked before timing)");
        }
        black_box(work.bytes());
    })
}
