//! Helpers shared by the crate's unit tests (the integration tests have
//! their own in `tests/common`).

extern crate std;
use std::{vec, vec::Vec};

/// One step of SplitMix64 (Steele, Lea & Flood, 2014): advances `state`
/// and returns the next output. Reproducible test inputs from a seed.
pub(crate) fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `n` pseudo-random words from an xorshift64* state (must be nonzero).
pub(crate) fn words(state: &mut u64, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| {
            *state ^= *state >> 12;
            *state ^= *state << 25;
            *state ^= *state >> 27;
            state.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// The product by the bit-by-bit definition (no word products).
pub(crate) fn mul_bitwise(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    for i in 0..64 * b.len() {
        if (b[i / 64] >> (i % 64)) & 1 == 1 {
            let (w, s) = (i / 64, i % 64);
            for (j, &x) in a.iter().enumerate() {
                out[w + j] ^= x << s;
                if s != 0 {
                    out[w + j + 1] ^= x >> (64 - s);
                }
            }
        }
    }
    out
}
