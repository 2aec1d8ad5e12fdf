//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`] ([`ymm`]); `avx512f`, `avx512bw`,
//! `avx512vl`, `avx512dq`, `vpclmulqdq`, `pclmulqdq`, `sse4.1` — capability
//! token [`Avx512Clmul`] ([`zmm`]).
//!
//! The white paper's aggregated reduction (Gueron & Kounavis, Intel white
//! paper 323640 rev. 2.02, § "aggregated reduction"; see
//! [`super::whitepaper`] for the math) in fieldwork's form (Montgomery
//! reduction, not the paper's Algorithm 5; its Figure 8 is in
//! `super::paper`), widened to vector registers of L
//! blocks, written once over the width (a macro, as the Linux kernel's
//! `aes-gcm-avx10` is over the vector length) and instantiated for ymm
//! (L = 2; groups of N = 8, 16 or 32 blocks) and zmm (L = 4; N = 16 or
//! 32): a group of N blocks is N/L registers, register c lane l holding
//! block `Lc + l`, which meets the power `H^(N − Lc − l)` (L powers per
//! register, laid out once per call). Each register costs three
//! `vpclmulqdq` (Karatsuba, the powers' `h₀ ⊕ h₁` prepared once per call)
//! and one `vpshufb` (GHASH's byte order); the three sums of a group are
//! folded lane into lane and reduced once on xmm (Montgomery, two
//! `pclmulqdq`). Per block: 3/L `vpclmulqdq` + 2/N `pclmulqdq`. The
//! accumulator enters lane 0 of the first register only. A tail of fewer
//! than N blocks is one xmm group with the powers `H^r … H^1`. The zmm
//! kernel is the method of `ghash::vpclmul` with the group size a
//! parameter (that one is fixed at 32 and is what
//! [`crate::ghash::GHash`] runs).
//!
//! On ymm, at N = 8 a group is too short to hide the reduction's latency;
//! N = 16 and N = 32 run at the same speed. On zmm, at N = 16 (four
//! registers per group) the kernel is latency-bound and slower than ymm
//! with N = 16; N = 32 is the fastest of the progression (`peer-bench
//! --filter ghash_progression`; figures in
//! `docs/notes/ghash-progression.md`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the white paper's kernels over fixed-size tables, not a production path.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

#[cfg(doc)]
use crate::cpu::{Avx2Clmul, Avx512Clmul};

/// The aggregated kernel on registers of `$lanes` blocks: `aggregated::<N>`
/// (the token's entry point) and `$kernel::<N>` (compiled with
/// `$features`), over the width's intrinsics given by name.
macro_rules! aggregated_wide {
    (
        token: $token:ty,
        features: $features:literal,
        kernel: $kernel:ident,
        vector: $v:ty,
        lanes: $lanes:literal,
        from_u128s: $from_u128s:path,
        load: $load:ident,
        xor: $xor:ident,
        clmul: $clmul:ident,
        bytes: $shuffle_bytes:ident,
        swap: $swap:ident::<$swap_imm:tt>,
        lanes_sum: |$sum_v:ident| $lanes_sum:block,
        lane_powers: |$pw:ident, $pc:ident| $lane_powers:expr,
        first_lane: |$fa:ident| $first_lane:expr $(,)?
    ) => {
        use super::super::whitepaper::{
            aggregate_group, dot_powers, from_x, karatsuba_half, polyval_key, reduce_montgomery,
            to_x,
        };
        use crate::cpu::Clmul;
        use crate::ghash::field::POWERS;
        use core::arch::x86_64::{__m128i, _mm_slli_si128, _mm_srli_si128, _mm_xor_si128};
        use zeroize::Zeroize;

        /// Blocks per register.
        const LANES: usize = $lanes;

        /// The XOR of the register's 128-bit lanes.
        #[inline]
        #[target_feature(enable = $features)]
        fn lanes_sum($sum_v: $v) -> __m128i $lanes_sum

        /// Aggregated reduction over `N` blocks (a multiple of the lanes, at
        /// most 32): `body` is whole groups of N blocks, `tail` at most N
        /// blocks.
        #[inline]
        pub(in super::super) fn aggregated<const N: usize>(
            t: $token,
            h: &[u8; 16],
            body: &[u8],
            tail: &[u8],
        ) -> [u8; 16] {
            // SAFETY: the token proves every feature the kernel is compiled
            // for.
            unsafe { $kernel::<N>(t.clmul(), h, body, tail) }
        }

        #[inline]
        #[target_feature(enable = $features)]
        fn $kernel<const N: usize>(t: Clmul, h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
            const { assert!(N.is_multiple_of(LANES) && N >= LANES && N <= POWERS) };
            let mut powers = [0u128; N];
            dot_powers(t, polyval_key(h), &mut powers);
            // Register c, lane l: H^(N − Lc − l); registers beyond N/L unused.
            let mut p = [$from_u128s([0; LANES]); POWERS / LANES];
            let mut px = p;
            for c in 0..N / LANES {
                p[c] = {
                    let ($pw, $pc) = (&powers, c);
                    $from_u128s($lane_powers)
                };
                px[c] = $xor(p[c], $swap::<{ $swap_imm }>(p[c]));
            }
            // Byte reversal within each 128-bit lane (GHASH's block order).
            let rev = $from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; LANES]);
            let mut acc = to_x(0);
            for g in body.chunks_exact(16 * N) {
                let z = $from_u128s([0; LANES]);
                let (mut lo, mut hi, mut mid) = (z, z, z);
                for c in 0..N / LANES {
                    // SAFETY: `g` has 16·N bytes; this reads the 16·L bytes
                    // from 16·Lc.
                    let y = unsafe { $load(g.as_ptr().add(16 * LANES * c).cast()) };
                    let mut y = $shuffle_bytes(y, rev);
                    if c == 0 {
                        let $fa = from_x(acc);
                        y = $xor(y, $from_u128s($first_lane));
                    }
                    lo = $xor(lo, $clmul::<0x00>(y, p[c]));
                    hi = $xor(hi, $clmul::<0x11>(y, p[c]));
                    let yx = $xor(y, $swap::<{ $swap_imm }>(y));
                    mid = $xor(mid, $clmul::<0x00>(yx, px[c]));
                }
                // The lanes summed, then Karatsuba's recombination and one
                // reduction.
                let (lo, hi, mid) = (lanes_sum(lo), lanes_sum(hi), lanes_sum(mid));
                let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
                acc = reduce_montgomery(
                    _mm_xor_si128(lo, _mm_slli_si128::<8>(mid)),
                    _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)),
                );
            }
            // The tail: r ≤ N blocks as one xmm group with H^r … H^1.
            let r = (tail.len() / 16).min(N);
            let mut hs = [to_x(0); POWERS];
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
    };
}

/// Two blocks per ymm register (VPCLMULQDQ with AVX2).
pub(super) mod ymm {
    use crate::cpu::Avx2Clmul;
    use crate::vex256::_mm256_clmulepi64_epi128;
    use core::arch::x86_64::{
        __m256i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
        _mm256_shuffle_epi8, _mm256_shuffle_epi32, _mm256_xor_si256,
    };

    aggregated_wide! {
        token: Avx2Clmul,
        features: "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1",
        kernel: aggregated_ymm,
        vector: __m256i,
        lanes: 2,
        from_u128s: crate::simd::ymm_from_u128s,
        load: _mm256_loadu_si256,
        xor: _mm256_xor_si256,
        clmul: _mm256_clmulepi64_epi128,
        bytes: _mm256_shuffle_epi8,
        swap: _mm256_shuffle_epi32::<0x4e>,
        lanes_sum: |v| {
            _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
        },
        lane_powers: |powers, c| [powers[N - 1 - 2 * c], powers[N - 2 - 2 * c]],
        first_lane: |acc| [acc, 0],
    }
}

/// Four blocks per zmm register (VPCLMULQDQ with AVX-512).
pub(super) mod zmm {
    use crate::cpu::Avx512Clmul;
    use core::arch::x86_64::{
        __m512i, _MM_PERM_BADC, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_xor_si256,
        _mm512_castsi512_si256, _mm512_clmulepi64_epi128, _mm512_extracti64x4_epi64,
        _mm512_loadu_si512, _mm512_shuffle_epi8, _mm512_shuffle_epi32, _mm512_xor_si512,
    };

    aggregated_wide! {
        token: Avx512Clmul,
        features: "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1",
        kernel: aggregated_zmm,
        vector: __m512i,
        lanes: 4,
        from_u128s: crate::simd::zmm_from_u128s,
        load: _mm512_loadu_si512,
        xor: _mm512_xor_si512,
        clmul: _mm512_clmulepi64_epi128,
        bytes: _mm512_shuffle_epi8,
        swap: _mm512_shuffle_epi32::<_MM_PERM_BADC>,
        lanes_sum: |v| {
            let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
            _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
        },
        lane_powers: |powers, c| {
            let top = N - 1 - 4 * c;
            [powers[top], powers[top - 1], powers[top - 2], powers[top - 3]]
        },
        first_lane: |acc| [acc, 0, 0, 0],
    }
}
