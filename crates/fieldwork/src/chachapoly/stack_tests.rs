//! What ChaCha20-Poly1305 sealing leaves in its dead stack frames: a
//! census probe, not a test (`cargo test --release -p fieldwork-crypto
//! --lib chachapoly::stack_tests -- --ignored --nocapture`; `SECURITY.md`
//! records its findings), the ChaCha20 probe's secrets
//! ([`crate::chacha20::stack_tests`]) and the one-time Poly1305 key.

use super::ChaCha20Poly1305;
use crate::chacha20::stack_tests::{LENS, census_case, secrets};
use crate::chacha20::tests::reference;
use crate::chacha20::{KeyWords, nonce_words};
use crate::hazmat::Backends;
use crate::wipe::stack_probe::{blocks, bytes, image};
use alloc::collections::BTreeMap;

#[test]
#[ignore = "a census printed for the docs, not a test: run it by name"]
fn census() {
    let key_bytes: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5c);
    let key = KeyWords::new(&key_bytes);
    let nonce_bytes = [9u8; 12];
    let nonce = nonce_words(&nonce_bytes);
    let aad = [0x42u8; 13];
    for &name in <ChaCha20Poly1305 as Backends>::NAMES {
        let Some(aead) = ChaCha20Poly1305::with_backend(name, &key_bytes) else {
            continue;
        };
        let mut count = BTreeMap::new();
        for len in LENS {
            let mut ks = alloc::vec![0u8; 64 + len];
            reference(&key.0, &nonce, 0, &mut ks);
            let mut s = secrets(&key.0, &ks[64..]);
            blocks(&mut s, "Poly1305 key", &ks[..32]);
            let mut buf = bytes(len, 0);
            let mut ok = false;
            let img = image(|| {
                ok = aead
                    .encrypt_in_place_detached(&nonce_bytes, &aad, &mut buf)
                    .is_ok()
            });
            assert!(ok);
            census_case(name, len, &img, &s, &mut count);
        }
        std::eprintln!("{name}: {} lengths; {count:?}", LENS.len());
    }
}
