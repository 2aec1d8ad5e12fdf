//! What the x86-64 AES-GCM kernels leave in their dead stack frames.
//!
//! Each case seals or opens one message through a backend by name and
//! scans the 8 KiB below the caller's stack pointer
//! ([`crate::wipe::stack_probe`]) for every 16-byte chunk of the key
//! object's secret fields (round keys, the broadcast round keys, the power
//! and round-1 tables), for `AES(K, J0)`, and for the message's keystream
//! and plaintext.
//!
//! The assertion is what the kernels guarantee today: none of those
//! secrets in any kernel's frame — no round key, no table entry, no
//! keystream, no `AES(K, J0)` ([`NEVER_LEFT`]). The control is a
//! function that leaves a copy of the key schedule in its dead frame: the
//! scan sees every round key of it. (The portable backend's frame held its
//! whole schedule on Zen 4 and the Xeon, and was the control until it
//! held none on Zen 3.) The `census` probe counts what each backend leaves
//! (`SECURITY.md` records it); intermediate AES states and GHASH sums are
//! not searched, nor is the plaintext asserted on (the caller's own
//! buffer holds it).
#![allow(clippy::indexing_slicing)]

use super::*;
use crate::wipe::stack_probe::{blocks, bytes, found, image};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;

/// Key sizes, associated-data lengths and text lengths of the cases: the
/// short paths (partial and whole blocks, one to eight registers), the
/// loops with and without a tail, both directions.
const KEYS: [usize; 3] = [16, 24, 32];
const AADS: [usize; 3] = [0, 13, 300];
const LENS: [usize; 20] = [
    0, 1, 15, 16, 17, 40, 64, 100, 128, 129, 160, 200, 255, 256, 257, 1000, 1024, 1536, 4096, 16391,
];

/// One case's findings: the kinds of secret found (by name) and how many
/// of the key schedule's round keys appear.
struct Found {
    kinds: Vec<&'static str>,
    round_keys: usize,
}

/// Runs every case on backend `name` (if this CPU has it) and passes each
/// one's findings to `each`.
fn each_case(name: &str, mut each: impl FnMut((usize, usize, usize, bool), Found)) -> bool {
    let Some(t) = crate::cpu::AesClmul::get() else {
        return false;
    };
    let mut ran = false;
    for klen in KEYS {
        let key = bytes(klen, 0x33);
        let Some(d) = Dispatch::with_backend(name, &key) else {
            continue;
        };
        ran = true;
        let key_chunks = crate::test_util::secret_chunks(&d);
        let (rk, schedule) = expanded(t, &key);
        for alen in AADS {
            let aad = bytes(alen, 1);
            for len in LENS {
                let iv: [u8; 12] = core::array::from_fn(|i| (i + len + alen) as u8);
                let mut j0 = [[0u8; 16]];
                j0[0][..12].copy_from_slice(&iv);
                j0[0][15] = 1;
                crate::aes::aesni::encrypt_blocks(t, &rk, &mut j0);
                let pt = bytes(len, 0x5c);
                let mut ct = pt.clone();
                assert!(d.encrypt(&iv, &aad, &mut ct).is_ok());
                let mut secrets = key_chunks.clone();
                // With neither data nor text, GHASH is 0 and the (public)
                // tag is `AES(K, J0)` itself.
                if alen + len > 0 {
                    secrets.push(("AES(K, J0)", j0[0]));
                }
                let ks: Vec<u8> = pt.iter().zip(&ct).map(|(p, c)| p ^ c).collect();
                blocks(&mut secrets, "keystream", &ks);
                blocks(&mut secrets, "plaintext", &pt);
                for enc in [true, false] {
                    let (dir, mut buf) = if enc {
                        (Direction::Encrypt, pt.clone())
                    } else {
                        (Direction::Decrypt, ct.clone())
                    };
                    let mut ok = false;
                    let img = image(|| ok = d.seal_or_open(dir, &iv, &aad, &mut buf).is_ok());
                    assert!(ok);
                    let mut kinds: Vec<&str> = found(&img, &secrets).iter().map(|f| f.0).collect();
                    kinds.sort_unstable();
                    kinds.dedup();
                    let round_keys = schedule
                        .iter()
                        .filter(|r| !found(&img, &[("round key", **r)]).is_empty())
                        .count();
                    each((klen, alen, len, enc), Found { kinds, round_keys });
                }
            }
        }
    }
    ran
}

/// What the kernels leave in no frame at all: no round key (the ymm
/// kernel's rounds take their keys only inside `asm!` blocks,
/// [`stitch::Keys::round8`]; the zmm kernel's loops load theirs in the
/// loop where they would not fit the registers; one AES-128 round key is
/// the whole key), no table entry, no keystream (the xmm and ymm kernels'
/// last round takes the data into its key,
/// [`stitch::Keys::last_round8_xor`]; the zmm kernel's keystream stays in
/// its 32 registers) and no `AES(K, J0)` ([`stitch::tag_mask`] is one
/// `asm!` block).
const NEVER_LEFT: [&str; 8] = [
    "AES round keys",
    "broadcast round keys",
    "H power table",
    "uniform power table",
    "Karatsuba half-sums",
    "round-1 table",
    "keystream",
    "AES(K, J0)",
];

#[test]
#[cfg_attr(
    any(debug_assertions, feature = "valgrind-isa"),
    ignore = "the frames are the production kernels' in a release build: a debug build spills everything, and `valgrind-isa` emulates the ymm AES and carry-less products"
)]
fn kernels_leave_no_secret_in_their_frames() {
    // The control: a dead frame holding a copy of the key schedule is seen
    // by the scan, every round key of it.
    let Some(t) = crate::cpu::AesClmul::get() else {
        return;
    };
    for klen in KEYS {
        let (_, schedule) = expanded(t, &bytes(klen, 0x33));
        let img = image(|| leave_a_copy(&schedule));
        let seen = schedule
            .iter()
            .filter(|r| !found(&img, &[("round key", **r)]).is_empty())
            .count();
        assert_eq!(
            seen,
            schedule.len(),
            "the scan did not see a key schedule left in a dead frame"
        );
    }
    for name in [
        "vaes-avx512-split",
        "vaes-avx512",
        "vaes-avx2",
        "vaes-avx2-karatsuba",
        "aes-ni",
    ] {
        each_case(name, |case, f| {
            assert_eq!(f.round_keys, 0, "{name} {case:?}: round keys in the frame");
            for t in NEVER_LEFT {
                assert!(!f.kinds.contains(&t), "{name} {case:?}: {t} in the frame");
            }
        });
    }
}

/// The AES key schedule of `key` and its round keys as the bytes a frame
/// would hold.
fn expanded(t: crate::cpu::AesClmul, key: &[u8]) -> (crate::aes::RoundKeys, Vec<[u8; 16]>) {
    let rk = crate::aes::aesni::expand(t, key);
    let schedule = rk
        .rk
        .iter()
        .take(rk.rounds + 1)
        .map(|r| r.to_le_bytes())
        .collect();
    (rk, schedule)
}

/// Copies `schedule` into this function's frame and returns, leaving the
/// copy there: the control of [`kernels_leave_no_secret_in_their_frames`].
#[inline(never)]
fn leave_a_copy(schedule: &[[u8; 16]]) {
    let mut copy = [[0u8; 16]; 15];
    for (c, r) in copy.iter_mut().zip(schedule) {
        *c = *r;
    }
    core::hint::black_box(&copy);
}

/// The census behind `SECURITY.md`: per backend, in how many of its cases
/// each kind of secret is found. A probe, not a test: `cargo test
/// --release -p fieldwork-crypto --lib gcm::stack_tests::census --
/// --ignored --nocapture`.
#[test]
#[ignore = "a census printed for the docs, not a test: run it by name"]
fn census() {
    for &name in Dispatch::NAMES {
        let mut count: BTreeMap<&str, usize> = BTreeMap::new();
        let (mut cases, mut most) = (0, 0);
        each_case(name, |_, f| {
            cases += 1;
            most = most.max(f.round_keys);
            for k in f.kinds {
                *count.entry(k).or_default() += 1;
            }
        });
        std::eprintln!("{name}: {cases} cases, at most {most} round keys in one; {count:?}");
    }
}
