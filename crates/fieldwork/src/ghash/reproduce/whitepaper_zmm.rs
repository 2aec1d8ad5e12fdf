//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `vpclmulqdq`, `pclmulqdq`, `sse4.1` — capability token [`Avx512Clmul`].
//!
//! The white paper's aggregated reduction (Gueron & Kounavis, Intel white
//! paper 323640 rev. 2.02, § "aggregated reduction"; see
//! [`super::whitepaper`] for the math) widened to 512-bit registers: a
//! group of N = 16 or 32 blocks is N/4 zmm registers of four blocks each,
//! register c lane l holding block `4c + l`, which meets the power
//! `H^(N − 4c − l)`. Each register costs three `vpclmulqdq` (Karatsuba)
//! and one `vpshufb`; the three sums of a group are folded lane into lane
//! and reduced once on xmm (Montgomery, two `pclmulqdq`). Per block: 0.75
//! `vpclmulqdq` + 2/N `pclmulqdq`. The method of `ghash::vpclmul`'s kernel
//! with the group size a parameter (that one is fixed at 32 and is what
//! [`crate::ghash::GHash`] runs). A tail of fewer than N blocks is one xmm group
//! with the powers `H^r … H^1`.
//!
//! At N = 16 (four registers per group) the kernel is latency-bound and
//! slower than ymm with N = 16; N = 32 is the fastest of the progression
//! (`peer-bench --filter ghash_progression`; figures in
//! `docs/notes/ghash-progression.md`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the white paper's kernels over fixed-size tables, not a production path.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::whitepaper::{
    aggregate_group, dot_powers, from_x, karatsuba_half, polyval_key, reduce_montgomery, to_x,
};
use crate::cpu::{Avx512Clmul, Clmul};
use crate::simd::zmm_from_u128s as from_u128s;
use core::arch::x86_64::{
    __m128i, __m512i, _MM_PERM_BADC, _mm_slli_si128, _mm_srli_si128, _mm_xor_si128,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_xor_si256, _mm512_castsi512_si256,
    _mm512_clmulepi64_epi128, _mm512_extracti64x4_epi64, _mm512_loadu_si512, _mm512_shuffle_epi8,
    _mm512_shuffle_epi32, _mm512_xor_si512,
};
use zeroize::Zeroize;

/// The XOR of the four 128-bit lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
fn lanes_sum(v: __m512i) -> __m128i {
    let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
}

/// Aggregated reduction over `N` blocks (N = 16 or 32) on zmm: `body` is
/// whole groups of N blocks, `tail` at most N blocks.
pub(super) fn aggregated<const N: usize>(
    t: Avx512Clmul,
    h: &[u8; 16],
    body: &[u8],
    tail: &[u8],
) -> [u8; 16] {
    // SAFETY: the token proves every feature `aggregated_zmm` is compiled for.
    unsafe { aggregated_zmm::<N>(t.clmul(), h, body, tail) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
fn aggregated_zmm<const N: usize>(t: Clmul, h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
    const { assert!(N.is_multiple_of(4) && N >= 4 && N <= crate::ghash::field::POWERS) };
    let mut powers = [0u128; N];
    dot_powers(t, polyval_key(h), &mut powers);
    // Register c, lane l: H^(N − 4c − l); registers beyond N/4 unused.
    let mut p = [from_u128s([0; 4]); crate::ghash::field::POWERS / 4];
    let mut px = p;
    for c in 0..N / 4 {
        p[c] = from_u128s(core::array::from_fn(|l| powers[N - 1 - 4 * c - l]));
        px[c] = _mm512_xor_si512(p[c], _mm512_shuffle_epi32::<_MM_PERM_BADC>(p[c]));
    }
    // Byte reversal within each 128-bit lane (GHASH's block order).
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 4]);
    let mut acc = to_x(0);
    for g in body.chunks_exact(16 * N) {
        let z = from_u128s([0; 4]);
        let (mut lo, mut hi, mut mid) = (z, z, z);
        for c in 0..N / 4 {
            // SAFETY: `g` has 16·N bytes; this reads bytes 64c..64c + 64.
            let y = unsafe { _mm512_loadu_si512(g.as_ptr().add(64 * c).cast()) };
            let mut y = _mm512_shuffle_epi8(y, rev);
            if c == 0 {
                y = _mm512_xor_si512(y, from_u128s([from_x(acc), 0, 0, 0]));
            }
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(y, p[c]));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(y, p[c]));
            let yx = _mm512_xor_si512(y, _mm512_shuffle_epi32::<_MM_PERM_BADC>(y));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128::<0x00>(yx, px[c]));
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
