//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! Aggregated reduction on xmm (Gueron–Kounavis, white paper 323640 §
//! "aggregated reduction"): up to 32 blocks `Yⱼ` are multiplied by the
//! powers `H^(n−j)` with Karatsuba (three `pclmulqdq` per block, the
//! power's `h₀ ⊕ h₁` prepared once per call), the 256-bit products summed
//! unreduced, and one Montgomery reduction (two `pclmulqdq` by 0xc2…)
//! ends the group. Eight blocks per group on this path; the zmm path uses
//! it for tails.
#![allow(unsafe_code)]

use super::{C_HI, POWERS};
use crate::cpu::Clmul;
use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_shuffle_epi32, _mm_slli_si128, _mm_srli_si128, _mm_xor_si128,
};

#[inline(always)]
fn to_x(v: u128) -> __m128i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<u128, __m128i>(v) }
}

#[inline(always)]
fn from_x(v: __m128i) -> u128 {
    // SAFETY: as in `to_x`.
    unsafe { core::mem::transmute::<__m128i, u128>(v) }
}

/// `dot(a, b)` with PCLMULQDQ.
pub(super) fn dot(t: Clmul, a: u128, b: u128) -> u128 {
    let _ = t;
    // SAFETY: the token proves PCLMULQDQ and SSE4.1.
    unsafe { aggregate(&[a], &[b], 0) }
}

/// `Σ dot(ys[j], hs[j])` ⊕ `acc` folded into the first block: one
/// reduction for the whole group.
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn aggregate(ys: &[u128], hs: &[u128], acc: u128) -> u128 {
    let z = to_x(0);
    let (mut lo, mut hi, mut mid) = (z, z, z);
    for (j, (&y, &h)) in ys.iter().zip(hs).enumerate() {
        let y = to_x(if j == 0 { y ^ acc } else { y });
        let h = to_x(h);
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(y, h));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(y, h));
        // Karatsuba: (y₀ ⊕ y₁)·(h₀ ⊕ h₁).
        let yx = _mm_xor_si128(y, _mm_shuffle_epi32::<0x4e>(y));
        let hx = _mm_xor_si128(h, _mm_shuffle_epi32::<0x4e>(h));
        mid = _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x00>(yx, hx));
    }
    reduce(lo, hi, mid)
}

/// `(hi·x^128 + lo + mid'·x^64)·x^(−128)` where `mid' = mid ⊕ lo ⊕ hi`
/// (Karatsuba's middle term), by two folds with `C`.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce(lo: __m128i, hi: __m128i, mid: __m128i) -> u128 {
    let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
    let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
    let c = to_x(u128::from(C_HI));
    let fold = |v: __m128i| {
        _mm_xor_si128(
            _mm_shuffle_epi32::<0x4e>(v),
            _mm_clmulepi64_si128::<0x00>(v, c),
        )
    };
    from_x(_mm_xor_si128(hi, fold(fold(lo))))
}

/// Absorbs whole blocks of `data` into `acc`: groups of eight, then the
/// tail as one group.
pub(super) fn update(
    t: Clmul,
    powers: &[u128; POWERS],
    acc: u128,
    data: &[u8],
    reflect: bool,
) -> u128 {
    let _ = t;
    // SAFETY: the token proves PCLMULQDQ and SSE4.1.
    unsafe { update_blocks(powers, acc, data, reflect) }
}

#[target_feature(enable = "pclmulqdq,sse4.1")]
fn update_blocks(powers: &[u128; POWERS], mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    // Powers in the order the blocks meet them: H^8 … H^1.
    let h8: [u128; 8] = core::array::from_fn(|j| powers[7 - j]);
    let mut chunks = data.chunks_exact(128);
    for c in &mut chunks {
        let ys: [u128; 8] = core::array::from_fn(|j| super::load(&c[16 * j..16 * j + 16], reflect));
        acc = aggregate(&ys, &h8, acc);
    }
    tail(powers, acc, chunks.remainder(), reflect)
}

/// The last `n < 32` blocks (or fewer than a group) as one group with
/// powers `H^n … H^1`.
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn tail(powers: &[u128; POWERS], acc: u128, data: &[u8], reflect: bool) -> u128 {
    let n = data.len() / 16;
    if n == 0 {
        return acc;
    }
    let mut ys = [0u128; POWERS];
    let mut hs = [0u128; POWERS];
    for j in 0..n {
        ys[j] = super::load(&data[16 * j..16 * j + 16], reflect);
        hs[j] = powers[n - 1 - j];
    }
    aggregate(&ys[..n], &hs[..n], acc)
}
