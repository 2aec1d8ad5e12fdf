//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `vpclmulqdq`, `pclmulqdq`, `sse4.1` — capability token
//! [`crate::cpu::Avx512Clmul`].
//!
//! GHASH / POLYVAL on zmm: aggregated reduction over 32 blocks
//! (Gueron & Kounavis, Intel white paper 323640, rev. 2.02, widened to four
//! blocks per register). Eight zmm registers of four blocks meet the
//! dot-powers `H^32 … H^1`, four per register (lane `l` of register `c`
//! holds block `4c + l` and meets `H^(32−4c−l)`); the accumulator enters
//! the first block only, so the loop-carried chain is one product, the XOR
//! tree, the lane sum and the reduction, and the rest of the 32 blocks'
//! work is independent of it. The four lanes' 256-bit sums are XORed into
//! one and reduced once per 512 bytes (`mont_reduce` in [`super`]).
//! Fewer than 32 blocks go through the xmm path ([`super::clmul`]).
//!
//! # Representation
//!
//! Blocks and powers are 128-bit lanes in the POLYVAL domain (GHASH's
//! byte reversal is one `vpshufb` per register). Products are Karatsuba:
//! three `vpclmulqdq` per register, the powers' `h₀ ⊕ h₁` prepared once
//! per call, the middle term recombined once per group.
//!
//! # Operation count (per 32 blocks)
//!
//! 24 `vpclmulqdq`, 8 `vpshufd` for the blocks' half-sums, 8 `vpshufb`
//! (GHASH only), 2 byte shifts and 4 lane extracts — ≈ 46 shuffle-class
//! operations, which issue on port 5 only on the measured core — plus ≈ 35
//! XORs on any vector port and the xmm reduction (2 `pclmulqdq`). Port 5
//! bounds the loop at ≈ 48 cycles (0.094 cycles/byte); it runs at ≈ 59
//! (the figure below).
//!
//! # Figure
//!
//! GHASH of 16 KiB, key prepared: 0.115 cycles/byte, 4.14× RustCrypto
//! `ghash` 0.6.0 (Intel Xeon family 6 model 207, `cargo run --release -p
//! peer-bench -- --filter ghash`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// power indices are loop counters below `POWERS` (32) within the table made for it; data offsets step by whole groups below the whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::clmul::Pclmulqdq;
use super::field::{C_HI, POWERS, mont_reduce};
use super::ymm::VpclmulqdqYmm;
use crate::cpu::Avx512Clmul;
use crate::simd::{to_u128, zmm_from_u128s as from_u128s};
use core::arch::x86_64::*;

/// The zmm backend: 32-block groups on zmm; what they leave (and calls
/// of fewer than 32 blocks) on xmm. (AMD's split key hands what the groups
/// leave to the ymm kernel instead: `State::blocks`.)
#[derive(Clone, Copy, Debug)]
pub(crate) struct Vpclmulqdq(Avx512Clmul);

impl Vpclmulqdq {
    /// The ymm backend on the same CPU.
    #[inline(always)]
    pub(super) fn ymm(self) -> VpclmulqdqYmm {
        VpclmulqdqYmm::new(self.0.avx2_clmul())
    }

    /// The xmm backend on the same CPU (the ymm token's).
    #[inline(always)]
    pub(super) fn xmm(self) -> Pclmulqdq {
        self.ymm().xmm()
    }
}

impl Backend for Vpclmulqdq {
    super::backend_items!(Avx512Clmul, "vpclmulqdq", wide: POWERS from POWERS);

    /// Whole 32-block groups on zmm, then what is left on xmm.
    fn update(self, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
        let (whole, rest) = data.split_at(data.len() - data.len() % (16 * POWERS));
        let acc = if whole.is_empty() {
            acc
        } else {
            // SAFETY: the token in `self` proves every feature
            // `update_zmm` is compiled for.
            unsafe { update_zmm(powers, acc, whole, reflect) }
        };
        self.xmm().update(powers, acc, rest, reflect)
    }

    /// The first eight powers are the xmm kernel's.
    #[inline(always)]
    fn powers(self, out: &mut [u128], from: usize) {
        self.xmm().powers(out, from);
    }

    /// All 32, four per product: `H^(8+i) = H^i·H^8` for `i ≤ 8`, then
    /// `H^(16+i) = H^i·H^16` (dot-powers multiply to the dot-power of the
    /// summed exponent). Six 4-lane products two deep, instead of 24
    /// one-lane products (measured: the one-lane products made a 1 KiB
    /// one-shot hash slower on zmm than on xmm).
    fn extend_powers(self, table: &mut [u128; POWERS], upto: usize) {
        debug_assert_eq!(upto, POWERS);
        // SAFETY: the token in `self` proves every feature `extend_zmm` is
        // compiled for.
        unsafe { extend_zmm(table) }
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
fn extend_zmm(powers: &mut [u128; POWERS]) {
    // Whole-register loads and stores: four powers assembled from `u128`
    // values would go through scalar stores a vector load cannot forward
    // from (see `gcm::vaes512`'s round keys).
    // SAFETY: `i ≤ 28`: 64 bytes of `powers` from index i.
    let quad = |i: usize| unsafe { _mm512_loadu_si512(powers.as_ptr().add(i).cast()) };
    let (v0, v1) = (quad(0), quad(4));
    // H^8 (lane 3 of v1) and then H^16 (lane 3 of v3), broadcast.
    let h8 = _mm512_shuffle_i64x2::<0xff>(v1, v1);
    let (v2, v3) = (dot4(v0, h8), dot4(v1, h8));
    let h16 = _mm512_shuffle_i64x2::<0xff>(v3, v3);
    let out = [
        v2,
        v3,
        dot4(v0, h16),
        dot4(v1, h16),
        dot4(v2, h16),
        dot4(v3, h16),
    ];
    for (k, v) in out.into_iter().enumerate() {
        // SAFETY: `8 + 4k + 4 ≤ 32`: 64 bytes of `powers`.
        unsafe { _mm512_storeu_si512(powers.as_mut_ptr().add(8 + 4 * k).cast(), v) };
    }
}

/// Lane-wise dot product `a·b·x^(−128)` ([`super::aggregate::zmm::dot4`]).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
fn dot4(a: __m512i, b: __m512i) -> __m512i {
    super::aggregate::zmm::dot4(a, b, _mm512_set1_epi64(C_HI as i64))
}

/// `data`: whole 32-block groups.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
fn update_zmm(powers: &[u128], mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    // Register c, lane l holds block 4c + l of a group, which meets
    // H^(32 − 4c − l).
    let p: [__m512i; 8] =
        core::array::from_fn(|c| from_u128s(core::array::from_fn(|l| powers[31 - 4 * c - l])));
    let px: [__m512i; 8] = core::array::from_fn(|c| {
        _mm512_xor_si512(p[c], _mm512_shuffle_epi32::<_MM_PERM_BADC>(p[c]))
    });
    // Byte reversal within each 128-bit lane (GHASH's block order).
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 4]);
    let mut groups = data.chunks_exact(16 * POWERS);
    for g in &mut groups {
        let z = from_u128s([0; 4]);
        let (mut lo, mut hi, mut mid) = (z, z, z);
        for c in 0..8 {
            // SAFETY: `g` has 512 bytes; this reads bytes 64c..64c + 64.
            let mut y = unsafe { _mm512_loadu_si512(g.as_ptr().add(64 * c).cast()) };
            if reflect {
                y = _mm512_shuffle_epi8(y, rev);
            }
            if c == 0 {
                y = _mm512_xor_si512(y, from_u128s([acc, 0, 0, 0]));
            }
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(y, p[c]));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(y, p[c]));
            let yx = _mm512_xor_si512(y, _mm512_shuffle_epi32::<_MM_PERM_BADC>(y));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128::<0x00>(yx, px[c]));
        }
        // Karatsuba recombination per lane, then the four lanes summed.
        let mid = _mm512_xor_si512(mid, _mm512_xor_si512(lo, hi));
        let lo = _mm512_xor_si512(lo, _mm512_bslli_epi128::<8>(mid));
        let hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128::<8>(mid));
        acc = mont_reduce(lanes_sum(lo), lanes_sum(hi));
    }
    debug_assert!(groups.remainder().is_empty());
    acc
}

/// The XOR of the four 128-bit lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
fn lanes_sum(v: __m512i) -> u128 {
    let y = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    let x = _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y));
    to_u128(x)
}
