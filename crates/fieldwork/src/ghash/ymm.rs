//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`crate::cpu::Avx2Clmul`].
//!
//! GHASH / POLYVAL on ymm, for CPUs with VPCLMULQDQ but without AVX-512
//! (AMD Zen 3 and Zen 4 client parts, Intel's client cores from Ice Lake
//! on without AVX-512): aggregated reduction (Gueron & Kounavis, Intel
//! white paper 323640, rev. 2.02) over [`GROUP`] = 16 blocks, two blocks
//! per register. Register `c`, lane `l` holds block `2c + l` of a group and
//! meets `H^(16 − 2c − l)`; the accumulator enters block 0 only, so the
//! loop-carried chain is one product, the XOR tree, the lane sum and the
//! reduction. Messages of fewer than 32 blocks, and the last 0–15 blocks,
//! go through the xmm path ([`super::clmul`]).
//!
//! # Representation
//!
//! Blocks and powers are 128-bit lanes in the POLYVAL domain (GHASH's
//! byte reversal is one `vpshufb` per register). Products are Karatsuba —
//! three `vpclmulqdq` per register, the powers' `h₀ ⊕ h₁` prepared once
//! per call, the middle term recombined once per group — because
//! `vpclmulqdq` is the scarce instruction on the cores this path is for:
//! on Zen 3 it issues once per two cycles, xmm or ymm, while shuffles and
//! XORs issue two to four per cycle (`peer-bench --isa-rates`).
//!
//! # Operation count (per 16 blocks)
//!
//! 24 `vpclmulqdq` for the products: 48 cycles at one per two cycles,
//! 0.19 cycles/byte — the floor on Zen 3. Beside them: 8 `vpshufd` and
//! 8 `vpxor` for the blocks' half-sums, 8 `vpshufb` (GHASH only), 24
//! `vpxor` into the sums, ≈ 8 for the recombination and lane sum — ≈ 56
//! operations on four vector ports, under the `vpclmulqdq` bound — and
//! the reduction in scalar shifts ([`mont_reduce`]), off the vector ports.
//!
//! # Rejected
//!
//! - 32 blocks per group — the same speed on Zen 3 as 16 (the white
//!   paper's progression, `peer-bench --filter ghash_progression`), and
//!   twice the key powers to compute for medium messages.
//!
//! # Figure
//!
//! See the `ghash` rows of `docs/benchmarks/` (`cargo run --release -p
//! peer-bench -- --filter ghash`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// power indices are loop counters below `GROUP` (16) within the 32 powers made for it; data offsets step by whole groups below the whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::field::{C_HI, mont_reduce};
use crate::cpu::Avx2Clmul;
use crate::simd::{from_u128, to_u128, ymm_from_u128s as from_u128s};
use core::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm_xor_si128, _mm256_broadcastsi128_si256,
    _mm256_bslli_epi128, _mm256_bsrli_epi128, _mm256_castsi256_si128, _mm256_clmulepi64_epi128,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_set_m128i, _mm256_set1_epi64x,
    _mm256_shuffle_epi8, _mm256_shuffle_epi32, _mm256_storeu_si256, _mm256_xor_si256,
    _mm256_zextsi128_si256,
};

/// Blocks per aggregated reduction.
pub(super) const GROUP: usize = 16;

/// Messages of fewer blocks stay on the xmm path: at 16 blocks, computing
/// the eight extra powers cost more than the ymm group saved (peer-bench,
/// Zen 3: 256-byte POLYVAL 351 ticks against 241 on xmm).
pub(super) const MIN_BLOCKS: usize = 2 * GROUP;

/// Absorbs whole blocks of `data` into `acc`; `powers` holds `H^1 …
/// H^16` if `data` has at least [`MIN_BLOCKS`] blocks, else what the xmm
/// path needs.
pub(super) fn update(t: Avx2Clmul, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
    if data.len() < 16 * MIN_BLOCKS {
        return super::clmul::update(t.clmul(), powers, acc, data, reflect);
    }
    // SAFETY: the token proves every feature `update_ymm` is compiled for.
    unsafe { update_ymm(powers, acc, data, reflect) }
}

/// Extends the dot-powers `H^1 … H^8` in `powers[..8]` to `H^1 … H^16`:
/// `H^(8+i) = H^i·H^8`, four independent two-lane products (dot-powers
/// multiply to the dot-power of the summed exponent), instead of eight
/// one-lane products in a chain through memory.
pub(super) fn extend_powers(t: Avx2Clmul, powers: &mut [u128]) {
    let _ = t;
    assert!(powers.len() >= GROUP);
    // SAFETY: the token proves every feature `extend_ymm` is compiled for.
    unsafe { extend_ymm(powers) }
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn extend_ymm(powers: &mut [u128]) {
    let c = _mm256_set1_epi64x(C_HI as i64);
    let h8 = _mm256_broadcastsi128_si256(lane(powers, 7));
    for k in 0..4 {
        let v = pair(powers, 2 * k, 2 * k + 1);
        let r = super::aggregate::ymm::dot2(v, h8, c);
        // One 32-byte store: `H^(9+2k)`, `H^(10+2k)` are adjacent.
        // SAFETY: `10 + 2k ≤ 16 ≤ powers.len()`: 32 writable bytes.
        unsafe { _mm256_storeu_si256(powers.as_mut_ptr().add(8 + 2 * k).cast(), r) };
    }
}

/// `powers[i]` as an xmm register, loaded as 16 bytes: the powers were
/// stored by whole vector stores, and a load that spans several stores
/// (as a `u128` pair moved into a ymm register would be) cannot take its
/// data from the store buffer and waits for them to retire.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn lane(powers: &[u128], i: usize) -> __m128i {
    let v: &u128 = &powers[i];
    // SAFETY: `v` is 16 readable bytes; `loadu` has no alignment demand.
    unsafe { _mm_loadu_si128((v as *const u128).cast()) }
}

/// `powers[lo]` in lane 0 and `powers[hi]` in lane 1 (see [`lane`]).
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn pair(powers: &[u128], lo: usize, hi: usize) -> __m256i {
    _mm256_set_m128i(lane(powers, hi), lane(powers, lo))
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn update_ymm(powers: &[u128], mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    const R: usize = GROUP / 2;
    let p: [__m256i; R] =
        core::array::from_fn(|c| pair(powers, GROUP - 1 - 2 * c, GROUP - 2 - 2 * c));
    let px: [__m256i; R] =
        core::array::from_fn(|c| _mm256_xor_si256(p[c], _mm256_shuffle_epi32::<0x4e>(p[c])));
    // Byte reversal within each 128-bit lane (GHASH's block order).
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 2]);
    let mut groups = data.chunks_exact(16 * GROUP);
    for g in &mut groups {
        let z = from_u128s([0; 2]);
        let (mut lo, mut hi, mut mid) = (z, z, z);
        // Block 0's register, the only one that waits for `acc`, last.
        for c in (0..R).rev() {
            // SAFETY: `g` has 256 bytes; this reads bytes 32c..32c + 32.
            let mut y = unsafe { _mm256_loadu_si256(g.as_ptr().add(32 * c).cast()) };
            if reflect {
                y = _mm256_shuffle_epi8(y, rev);
            }
            if c == 0 {
                y = _mm256_xor_si256(y, _mm256_zextsi128_si256(from_u128(acc)));
            }
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(y, p[c]));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(y, p[c]));
            let yx = _mm256_xor_si256(y, _mm256_shuffle_epi32::<0x4e>(y));
            mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128::<0x00>(yx, px[c]));
        }
        // Karatsuba recombination per lane, then the two lanes summed.
        let mid = _mm256_xor_si256(mid, _mm256_xor_si256(lo, hi));
        let lo = _mm256_xor_si256(lo, _mm256_bslli_epi128::<8>(mid));
        let hi = _mm256_xor_si256(hi, _mm256_bsrli_epi128::<8>(mid));
        acc = mont_reduce(lanes_sum(lo), lanes_sum(hi));
    }
    // Fewer than 16 blocks left: the xmm path.
    super::clmul::update_blocks(powers, acc, groups.remainder(), reflect)
}

/// The XOR of the two 128-bit lanes.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn lanes_sum(v: __m256i) -> u128 {
    to_u128(_mm_xor_si128(
        _mm256_castsi256_si128(v),
        _mm256_extracti128_si256::<1>(v),
    ))
}
