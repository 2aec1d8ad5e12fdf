//! What the x86-64 ChaCha20 kernels leave in their dead stack frames: a
//! census probe, not a test (`cargo test --release -p fieldwork-crypto
//! --lib chacha20::stack_tests -- --ignored --nocapture`; `SECURITY.md`
//! records its findings), for ChaCha20 and for ChaCha20-Poly1305 sealing.
//! Per backend and length it prints how deep the call wrote below the
//! probe (the probe's own call frames included) and which kinds of secret
//! the dead frames hold. The x86-64 kernels are not
//! wiped yet; the AArch64 ones are, and their `stack_wipe` tests assert
//! it.
#![allow(clippy::indexing_slicing)]

use super::Dispatch;
use crate::wipe::stack_probe::{blocks, bytes, depth, found, image};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// Text lengths: below one block, one, the vector kernels' widths and
/// their tails.
const LENS: [usize; 14] = [
    0, 1, 17, 63, 64, 65, 100, 128, 200, 256, 300, 511, 1024, 4100,
];

/// The secrets of `key` and the keystream `ks`: each key word in four
/// lanes (a vertical kernel's rows, any width), the key's two rows, the
/// keystream's 16-byte blocks.
fn secrets(key: &[u32; 8], ks: &[u8]) -> Vec<(&'static str, [u8; 16])> {
    let mut s = Vec::new();
    for w in key {
        let b: [u8; 16] = core::array::from_fn(|i| w.to_le_bytes()[i % 4]);
        s.push(("key word in four lanes", b));
    }
    let rows: Vec<u8> = key.iter().flat_map(|w| w.to_le_bytes()).collect();
    blocks(&mut s, "key row", &rows);
    blocks(&mut s, "keystream", ks);
    s
}

#[test]
#[ignore = "a census printed for the docs, not a test: run it by name"]
fn census() {
    let key: [u32; 8] =
        core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1) ^ 0x5a5a_0f0f);
    let nonce = [7, 0x0102_0304, 0x0a0b_0c0d];
    for &name in Dispatch::NAMES {
        let Some(d) = Dispatch::named(name) else {
            continue;
        };
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for len in LENS {
            let mut ks = alloc::vec![0u8; len];
            Dispatch::Portable(super::portable::Portable).xor(&key, &nonce, 1, &mut ks);
            let s = secrets(&key, &ks);
            let mut buf = bytes(len, 0);
            let img = image(|| d.xor(&key, &nonce, 1, &mut buf));
            let mut kinds: Vec<&str> = found(&img, &s).iter().map(|f| f.0).collect();
            kinds.sort_unstable();
            kinds.dedup();
            std::eprintln!("  {name} {len}: {} deep; {kinds:?}", depth(&img));
            for k in kinds {
                *count.entry(k).or_default() += 1;
            }
        }
        std::eprintln!("{name}: {} lengths; {count:?}", LENS.len());
    }
}

/// [`census`] for ChaCha20-Poly1305 sealing (13 bytes of associated
/// data), with the one-time Poly1305 key (block 0's first 32 bytes) among
/// the secrets.
#[test]
#[ignore = "a census printed for the docs, not a test: run it by name"]
fn census_aead() {
    use crate::chachapoly::ChaCha20Poly1305;
    use crate::hazmat::Backends;
    let key_bytes: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5c);
    let key = super::le_words(&key_bytes);
    let nonce_bytes = [9u8; 12];
    let nonce = super::nonce_words(&nonce_bytes);
    let aad = [0x42u8; 13];
    for &name in <ChaCha20Poly1305 as Backends>::NAMES {
        let Some(aead) = ChaCha20Poly1305::with_backend(name, &key_bytes) else {
            continue;
        };
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        for len in LENS {
            let mut ks = alloc::vec![0u8; 64 + len];
            Dispatch::Portable(super::portable::Portable).xor(&key, &nonce, 0, &mut ks);
            let mut s = secrets(&key, &ks[64..]);
            blocks(&mut s, "Poly1305 key", &ks[..32]);
            let mut buf = bytes(len, 0);
            let mut ok = false;
            let img = image(|| {
                ok = aead
                    .encrypt_in_place_detached(&nonce_bytes, &aad, &mut buf)
                    .is_ok()
            });
            assert!(ok);
            let mut kinds: Vec<&str> = found(&img, &s).iter().map(|f| f.0).collect();
            kinds.sort_unstable();
            kinds.dedup();
            std::eprintln!("  {name} {len}: {} deep; {kinds:?}", depth(&img));
            for k in kinds {
                *count.entry(k).or_default() += 1;
            }
        }
        std::eprintln!("{name}: {} lengths; {count:?}", LENS.len());
    }
}
