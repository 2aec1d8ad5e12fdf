//! What the ChaCha20 kernels leave in their dead stack frames: the
//! secrets searched for (shared with ChaCha20-Poly1305's probe), the
//! stack-wipe test every vector backend's `stack_wipe` module runs
//! ([`run`]: each path's out-of-line kernel alone writes within its wipe
//! and leaves secrets, the entry with its wipes leaves none), and a census
//! probe, not a test (`cargo test --release -p fieldwork-crypto --lib
//! stack_tests::census -- --ignored --nocapture`), which prints per
//! backend and length how deep the call wrote below the probe (the
//! probe's own call frames included) and which kinds of secret the dead
//! frames hold.
#![allow(clippy::indexing_slicing)]

use super::Dispatch;
use super::tests::reference;
use crate::wipe::stack_probe::{Tally, blocks, bytes, depth, found, image};
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

/// Text lengths for [`run`]: below one block, one (inline on NEON, no
/// frame), two to four blocks (the horizontal kernels), the 4-, 8- and
/// 16-block loops and their tails.
const WIPE_LENS: [usize; 20] = [
    0, 1, 17, 63, 64, 65, 100, 128, 129, 192, 200, 256, 257, 300, 511, 512, 700, 1024, 1100, 2100,
];

/// A backend's cases. `xor(alone, data)` XORs the keystream from
/// block 1 into `data`: the entry with its wipe, or (`alone`) the
/// out-of-line kernel of the length's path; `after0(alone, data)` the
/// same for block 0 (returned) and the data from block 1;
/// `limit(len, after0)` the wipe of the entry's path.
pub(crate) fn run(
    name: &str,
    xor: impl Fn(bool, &[u32; 8], &[u32; 3], &mut [u8]),
    after0: impl Fn(bool, &[u32; 8], &[u32; 3], &mut [u8]) -> [u8; 64],
    limit: impl Fn(usize, bool) -> usize,
) {
    let mut tally = Tally::new();
    let key: [u32; 8] =
        core::array::from_fn(|i| 0x9e37_79b9u32.wrapping_mul(i as u32 + 1) ^ 0x5a5a_0f0f);
    let nonce = [7, 0x0102_0304, 0x0a0b_0c0d];
    for len in WIPE_LENS {
        // The keystream from block 0; the text from block 1.
        let mut ks = alloc::vec![0u8; 64 + len];
        reference(&key, &nonce, 0, &mut ks);
        let pt = bytes(len, 0xa5);
        let want: Vec<u8> = pt.iter().zip(&ks[64..]).map(|(p, k)| p ^ k).collect();
        let s = secrets(&key, &ks);
        let (mut b0, mut b1) = (pt.clone(), pt.clone());
        let (control, wiped) = (
            || {
                xor(true, &key, &nonce, &mut b0);
                [0; 16]
            },
            || {
                xor(false, &key, &nonce, &mut b1);
                [0; 16]
            },
        );
        tally.case(
            &(name, "xor", len),
            &s,
            limit(len, false),
            [0; 16],
            control,
            wiped,
        );
        assert_eq!((&b0, &b1), (&want, &want), "{name} xor {len}");
        let (mut b0, mut b1) = (pt.clone(), pt.clone());
        let (mut k0, mut k1) = ([0; 64], [0; 64]);
        let (control, wiped) = (
            || {
                k0 = after0(true, &key, &nonce, &mut b0);
                [0; 16]
            },
            || {
                k1 = after0(false, &key, &nonce, &mut b1);
                [0; 16]
            },
        );
        tally.case(
            &(name, "after0", len),
            &s,
            limit(len, true),
            [0; 16],
            control,
            wiped,
        );
        assert_eq!((&b0, &b1), (&want, &want), "{name} after0 {len}");
        assert_eq!(
            (&k0[..], &k1[..]),
            (&ks[..64], &ks[..64]),
            "{name} after0 {len}"
        );
    }
    tally.finish(name);
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
