//! Target features: `avx`, `avx2` — capability token [`crate::cpu::Avx2`].
//!
//! Eight blocks at a time, word-sliced on ymm registers: the generic
//! block function of [`super::lanes`] with `N` = 8 compiled with AVX2 (one
//! `vpaddd`, `vpxor` and rotation per word and quarter-round step for
//! eight blocks; 16- and 8-bit rotations as byte shuffles, 12 and 7 as
//! shift, shift, or), then four blocks, then one at a time for the tail.
//! The compiler vectorises the rounds (Bernstein's "vertical" layout of
//! ChaCha, "ChaCha, a variant of Salsa20", 2008); [`xor8`] turns the
//! word-sliced keystream into block order by hand (`vpunpck{l,h}dq`,
//! `vpunpck{l,h}qdq`, then `vperm2i128`: 32 shuffles for 8 blocks), which
//! the compiler otherwise lowers to word extracts.
#![allow(unsafe_code)]

use super::lanes::{keystream, xor_groups, xor_partial};
use crate::cpu::Avx2;
use core::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_permute2x128_si256, _mm256_storeu_si256,
    _mm256_unpackhi_epi32, _mm256_unpackhi_epi64, _mm256_unpacklo_epi32, _mm256_unpacklo_epi64,
    _mm256_xor_si256,
};

/// XORs the keystream from block `counter` into `data` (any length).
pub(super) fn xor(t: Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves AVX and AVX2.
    unsafe { xor_avx2(key, nonce, counter, data) }
}

#[target_feature(enable = "avx,avx2")]
fn xor_avx2(key: &[u32; 8], nonce: &[u32; 3], mut counter: u32, data: &mut [u8]) {
    let mut groups = data.chunks_exact_mut(512);
    for g in &mut groups {
        if let Ok(g) = <&mut [u8; 512]>::try_from(g) {
            xor8(key, nonce, counter, g);
        }
        counter = counter.wrapping_add(8);
    }
    let rest = groups.into_remainder();
    let (counter, rest) = xor_groups::<4>(key, nonce, counter, rest);
    let (counter, rest) = xor_groups::<1>(key, nonce, counter, rest);
    xor_partial(key, nonce, counter, rest);
}

/// The keystream of the 8 blocks from `counter`, XORed into `data` in
/// block order.
// `g` indexes the four input rows and the output table alike.
#[allow(clippy::needless_range_loop)]
#[inline]
#[target_feature(enable = "avx,avx2")]
fn xor8(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8; 512]) {
    let ks = keystream::<8>(key, nonce, counter);
    // SAFETY: `ks[i]` is 8 words: one 32-byte load each.
    let row = |i: usize| unsafe { _mm256_loadu_si256(ks[i].as_ptr().cast()) };
    // u[m][g], lane l: words 4g … 4g + 3 of block 4l + m.
    let mut u = [[row(0); 4]; 4];
    for g in 0..4 {
        let (a, b, c, d) = (row(4 * g), row(4 * g + 1), row(4 * g + 2), row(4 * g + 3));
        let t0 = _mm256_unpacklo_epi32(a, b);
        let t1 = _mm256_unpackhi_epi32(a, b);
        let t2 = _mm256_unpacklo_epi32(c, d);
        let t3 = _mm256_unpackhi_epi32(c, d);
        u[0][g] = _mm256_unpacklo_epi64(t0, t2);
        u[1][g] = _mm256_unpackhi_epi64(t0, t2);
        u[2][g] = _mm256_unpacklo_epi64(t1, t3);
        u[3][g] = _mm256_unpackhi_epi64(t1, t3);
    }
    let ptr = data.as_mut_ptr();
    for (m, [a, b, c, d]) in u.into_iter().enumerate() {
        let halves: [(usize, __m256i); 4] = [
            (64 * m, _mm256_permute2x128_si256::<0x20>(a, b)),
            (64 * m + 32, _mm256_permute2x128_si256::<0x20>(c, d)),
            (64 * (4 + m), _mm256_permute2x128_si256::<0x31>(a, b)),
            (64 * (4 + m) + 32, _mm256_permute2x128_si256::<0x31>(c, d)),
        ];
        for (at, k) in halves {
            // SAFETY: `at + 32 ≤ 512`: half of block m or 4 + m of `data`.
            unsafe {
                let p = ptr.add(at).cast::<__m256i>();
                _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), k));
            }
        }
    }
}
