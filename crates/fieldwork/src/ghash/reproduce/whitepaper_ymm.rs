//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! The white paper's aggregated reduction (Gueron & Kounavis, Intel white
//! paper 323640 rev. 2.02, § "aggregated reduction"; see
//! [`super::whitepaper`] for the math) widened to 256-bit registers: a
//! group of N = 8, 16 or 32 blocks is N/2 ymm registers of two blocks each,
//! register c lane l holding block `2c + l`, which meets the power
//! `H^(N − 2c − l)` (two powers per register, laid out once per call).
//! Each register costs three `vpclmulqdq` (Karatsuba, the powers' `h₀ ⊕ h₁`
//! prepared once per call) and one `vpshufb` (GHASH's byte order); the
//! three sums of a group are folded lane into lane and reduced once on xmm
//! (Montgomery, two `pclmulqdq`). Per block: 1.5 `vpclmulqdq` + 2/N
//! `pclmulqdq`. The accumulator enters lane 0 of the first register only.
//! A tail of fewer than N blocks is one xmm group with the powers
//! `H^r … H^1`.
//!
//! At N = 8 a group is too short to hide the reduction's latency; N = 16
//! and N = 32 run at the same speed (`peer-bench --filter
//! ghash_progression`; figures in `docs/notes/ghash-progression.md`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the white paper's kernels over fixed-size tables, not a production path.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::whitepaper::{
    aggregate_group, dot_powers, from_x, karatsuba_half, polyval_key, reduce_montgomery, to_x,
};
use crate::cpu::{Avx2Clmul, Clmul};
use crate::simd::ymm_from_u128s as from_u128s;
use crate::vex256::_mm256_clmulepi64_epi128;
use core::arch::x86_64::{
    __m128i, __m256i, _mm_slli_si128, _mm_srli_si128, _mm_xor_si128, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_shuffle_epi8, _mm256_shuffle_epi32,
    _mm256_xor_si256,
};
use zeroize::Zeroize;

/// The XOR of the two 128-bit lanes.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn lanes_sum(v: __m256i) -> __m128i {
    _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
}

/// Aggregated reduction over `N` blocks (N = 8, 16 or 32) on ymm: `body`
/// is whole groups of N blocks, `tail` at most N blocks.
pub(super) fn aggregated<const N: usize>(
    t: Avx2Clmul,
    h: &[u8; 16],
    body: &[u8],
    tail: &[u8],
) -> [u8; 16] {
    // SAFETY: the token proves every feature `aggregated_ymm` is compiled for.
    unsafe { aggregated_ymm::<N>(t.clmul(), h, body, tail) }
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn aggregated_ymm<const N: usize>(t: Clmul, h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
    const { assert!(N.is_multiple_of(2) && N >= 2 && N <= crate::ghash::field::POWERS) };
    let mut powers = [0u128; N];
    dot_powers(t, polyval_key(h), &mut powers);
    // Register c, lane l: H^(N − 2c − l); registers beyond N/2 unused.
    let mut p = [from_u128s([0; 2]); crate::ghash::field::POWERS / 2];
    let mut px = p;
    for c in 0..N / 2 {
        p[c] = from_u128s([powers[N - 1 - 2 * c], powers[N - 2 - 2 * c]]);
        px[c] = _mm256_xor_si256(p[c], _mm256_shuffle_epi32::<0x4e>(p[c]));
    }
    // Byte reversal within each 128-bit lane (GHASH's block order).
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 2]);
    let mut acc = to_x(0);
    for g in body.chunks_exact(16 * N) {
        let z = from_u128s([0; 2]);
        let (mut lo, mut hi, mut mid) = (z, z, z);
        for c in 0..N / 2 {
            // SAFETY: `g` has 16·N bytes; this reads bytes 32c..32c + 32.
            let y = unsafe { _mm256_loadu_si256(g.as_ptr().add(32 * c).cast()) };
            let mut y = _mm256_shuffle_epi8(y, rev);
            if c == 0 {
                y = _mm256_xor_si256(y, from_u128s([from_x(acc), 0]));
            }
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(y, p[c]));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(y, p[c]));
            let yx = _mm256_xor_si256(y, _mm256_shuffle_epi32::<0x4e>(y));
            mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128::<0x00>(yx, px[c]));
        }
        // The lanes summed, then Karatsuba's recombination and one reduction.
        let (lo, hi, mid) = (lanes_sum(lo), lanes_sum(hi), lanes_sum(mid));
        let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
        acc = reduce_montgomery(
            _mm_xor_si128(lo, _mm_slli_si128::<8>(mid)),
            _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)),
        );
    }
    // The tail: r ≤ N blocks as one xmm group with H^r … H^1.
    let r = (tail.len() / 16).min(N);
    let mut hs = [to_x(0); crate::ghash::field::POWERS];
    let mut hxs = hs;
    for j in 0..r {
        hs[j] = to_x(powers[r - 1 - j]);
        hxs[j] = karatsuba_half(hs[j]);
    }
    acc = aggregate_group(&tail[..16 * r], &hs[..r], &hxs[..r], acc);
    powers.zeroize();
    p.zeroize();
    px.zeroize();
    hs.zeroize();
    hxs.zeroize();
    from_x(acc).to_be_bytes()
}
