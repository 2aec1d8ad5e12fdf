//! What ChaCha20-Poly1305 sealing and opening leave in their dead stack
//! frames — the ChaCha20 probe's secrets ([`crate::chacha20::stack_tests`])
//! and the one-time Poly1305 key: a census probe for every backend
//! (`cargo test --release -p fieldwork-crypto --lib chachapoly::stack_tests
//! -- --ignored --nocapture`; `SECURITY.md` records its findings), and a
//! test that the wiped backends leave none of them.
#![allow(clippy::indexing_slicing)]

use super::ChaCha20Poly1305;
use crate::chacha20::stack_tests::{census_case, secrets};
use crate::chacha20::tests::reference;
use crate::chacha20::{KeyWords, nonce_words};
use crate::hazmat::Backends;
use crate::wipe::stack_probe::{blocks, bytes, image};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// Text lengths for the kernels' wipe tests: below one block, each
/// sealing and opening shape, and the tails after whole 512-byte groups
/// that choose the long opening's shape.
pub(crate) const SHAPE_LENS: [usize; 35] = [
    0, 1, 63, 64, 65, 100, 128, 129, 192, 193, 200, 256, 257, 300, 320, 321, 400, 448, 449, 500,
    511, 512, 576, 700, 704, 705, 800, 900, 1000, 1024, 1100, 1300, 1500, 2100, 4100,
];

/// The secrets of sealing or opening `len` bytes under `key` and `nonce`:
/// the ChaCha20 probe's (`secrets`: key words, key rows, the keystream
/// from block 1), the one-time Poly1305 key (block 0's first 32 bytes) and
/// its `r` clamped, as the MAC holds it (RFC 8439 §2.5).
pub(crate) fn aead_secrets(
    key: &[u32; 8],
    nonce: &[u32; 3],
    len: usize,
) -> Vec<(&'static str, [u8; 16])> {
    let mut ks = alloc::vec![0u8; 64 + len];
    reference(key, nonce, 0, &mut ks);
    let mut s = secrets(key, &ks[64..]);
    blocks(&mut s, "Poly1305 key", &ks[..32]);
    let mut r = [0u8; 16];
    r.copy_from_slice(&ks[..16]);
    let r = u128::from_le_bytes(r) & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
    blocks(&mut s, "Poly1305 r, clamped", &r.to_le_bytes());
    s
}

/// Seals and opens a message of each length on backend `name` and
/// reports, per call, the kinds of secret its dead frames hold
/// (`census_case`).
fn seal_open_census(name: &str) -> BTreeMap<&'static str, usize> {
    let key_bytes: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5c);
    let key = KeyWords::new(&key_bytes);
    let nonce_bytes = [9u8; 12];
    let nonce = nonce_words(&nonce_bytes);
    let aad = [0x42u8; 13];
    let mut count = BTreeMap::new();
    let Some(aead) = ChaCha20Poly1305::with_backend(name, &key_bytes) else {
        return count;
    };
    for len in SHAPE_LENS {
        let s = aead_secrets(&key.0, &nonce, len);
        let mut buf = bytes(len, 0);
        let mut tag = None;
        let img = image(|| {
            tag = aead
                .encrypt_in_place_detached(&nonce_bytes, &aad, &mut buf)
                .ok()
        });
        census_case(name, len, &img, &s, &mut count);
        assert!(tag.is_some(), "{name} {len}: sealing failed");
        let tag = tag.unwrap_or_default();
        let mut ok = false;
        let img = image(|| {
            ok = aead
                .decrypt_in_place_detached(&nonce_bytes, &aad, &mut buf, &tag)
                .is_ok()
        });
        assert!(ok, "{name} {len}: opening failed");
        assert_eq!(buf, bytes(len, 0), "{name} {len}");
        census_case(name, len, &img, &s, &mut count);
    }
    std::eprintln!(
        "{name}: {} lengths sealed and opened; {count:?}",
        SHAPE_LENS.len()
    );
    count
}

#[test]
#[ignore = "a census printed for the docs, not a test: run it by name"]
fn census() {
    for &name in <ChaCha20Poly1305 as Backends>::NAMES {
        seal_open_census(name);
    }
}

/// Every backend, sealing or opening, leaves none of the secrets searched
/// for, the one-time key included, at any length: the two-pass backends
/// (ChaCha20's per-path wipes, then on x86-64 the wipe after the Poly1305
/// tag) and the stitched kernels (wiped after each out-of-line shape:
/// `stack_wipe` in `avx2.rs`; on AArch64 after the kernels).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the wipes are sized for the release build's frames"
)]
fn every_backend_leaves_no_secret() {
    for &name in <ChaCha20Poly1305 as Backends>::NAMES {
        assert_eq!(seal_open_census(name), BTreeMap::new(), "{name}");
    }
}
