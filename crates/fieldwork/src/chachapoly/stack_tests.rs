//! What ChaCha20-Poly1305 sealing and opening leave in their dead stack
//! frames — the ChaCha20 probe's secrets ([`crate::chacha20::stack_tests`])
//! and the one-time Poly1305 key: a census probe for every backend
//! (`cargo test --release -p fieldwork-crypto --lib chachapoly::stack_tests
//! -- --ignored --nocapture`; `SECURITY.md` records its findings), and a
//! test that the wiped backends leave none of them.
#![allow(clippy::indexing_slicing)]

use super::ChaCha20Poly1305;
use crate::chacha20::stack_tests::{LENS, census_case, secrets};
use crate::chacha20::tests::reference;
use crate::chacha20::{KeyWords, nonce_words};
use crate::hazmat::Backends;
use crate::wipe::stack_probe::{blocks, bytes, image};
use alloc::collections::BTreeMap;

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
    for len in LENS {
        let mut ks = alloc::vec![0u8; 64 + len];
        reference(&key.0, &nonce, 0, &mut ks);
        let mut s = secrets(&key.0, &ks[64..]);
        blocks(&mut s, "Poly1305 key", &ks[..32]);
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
        LENS.len()
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

/// The two-pass backends (ChaCha20's per-path wipes, then the wipe after
/// the Poly1305 tag), and on AArch64 `neon-stitched` (wiped after its
/// kernels), sealing or opening, leave none of the secrets searched for,
/// the one-time key included, at any length. (The x86-64 stitched kernel is not wiped yet:
/// `SECURITY.md`.)
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "the wipes are sized for the release build's frames"
)]
fn wiped_backends_leave_no_secret() {
    #[cfg(target_arch = "x86_64")]
    let names = ["avx512-two-pass", "avx2-two-pass", "portable"];
    #[cfg(target_arch = "aarch64")]
    let names = ["sve2", "neon-stitched", "neon", "portable"];
    for name in names {
        assert_eq!(seal_open_census(name), BTreeMap::new(), "{name}");
    }
}
