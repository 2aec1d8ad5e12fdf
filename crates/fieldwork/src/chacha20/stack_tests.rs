//! What the ChaCha20 kernels leave in their dead stack frames: the
//! secrets searched for (shared with the AArch64 kernels' `stack_wipe`
//! tests and ChaCha20-Poly1305's probe) and a census probe, not a test
//! (`cargo test --release -p fieldwork-crypto --lib stack_tests::census
//! -- --ignored --nocapture`; `SECURITY.md` records its x86-64 findings).
//! Per backend and length it prints how deep the call wrote below the
//! probe (the probe's own call frames included) and which kinds of secret
//! the dead frames hold. The x86-64 kernels are not wiped yet; the AArch64
//! ones are, and their `stack_wipe` tests assert it.
#![allow(clippy::indexing_slicing)]

use super::Dispatch;
use super::tests::reference;
use crate::wipe::stack_probe::{blocks, bytes, depth, found, image};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// Text lengths: below one block, one, the vector kernels' widths and
/// their tails.
pub(crate) const LENS: [usize; 14] = [
    0, 1, 17, 63, 64, 65, 100, 128, 200, 256, 300, 511, 1024, 4100,
];

/// The secrets of `key` and the keystream `ks`: the key's words broadcast
/// to four lanes (a vertical kernel's rows, any width), its two rows (a
/// horizontal kernel's), the keystream's 16-byte blocks.
pub(crate) fn secrets(key: &[u32; 8], ks: &[u8]) -> Vec<(&'static str, [u8; 16])> {
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

/// One census case: prints backend `name`'s findings in `img` at length
/// `len` and counts each kind found in `count`.
pub(crate) fn census_case(
    name: &str,
    len: usize,
    img: &[u8],
    s: &[(&'static str, [u8; 16])],
    count: &mut BTreeMap<&'static str, usize>,
) {
    let mut kinds: Vec<&str> = found(img, s).iter().map(|f| f.0).collect();
    kinds.sort_unstable();
    kinds.dedup();
    std::eprintln!("  {name} {len}: {} deep; {kinds:?}", depth(img));
    for k in kinds {
        *count.entry(k).or_default() += 1;
    }
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
        let mut count = BTreeMap::new();
        for len in LENS {
            let mut ks = alloc::vec![0u8; len];
            reference(&key, &nonce, 1, &mut ks);
            let mut buf = bytes(len, 0);
            let img = image(|| d.xor(&key, &nonce, 1, &mut buf));
            census_case(name, len, &img, &secrets(&key, &ks), &mut count);
        }
        std::eprintln!("{name}: {} lengths; {count:?}", LENS.len());
    }
}
