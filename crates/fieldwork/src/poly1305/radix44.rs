//! Target features: none (plain Rust, constant time).
//!
//! Scalar arithmetic modulo `2^130 − 5` in radix 2^44, shared by the SIMD
//! backends: the IFMA kernel's representation ([`limbs_of`], the masks)
//! and the AVX2 key's powers of `r` ([`square`], [`mul`]).
//!
//! An element is `l₀ + l₁·2^44 + l₂·2^88` (44, 44 and 42 bits nominal);
//! `2^132 ≡ 20`, so the limb products above 2^132 fold back times 20.
//! [`square`] and [`mul`] take limbs below `2^44`, `2^44 + 2^5` and
//! `2^42` (and [`limbs_of`]'s values below 2^130) and return the same
//! bounds, a value below `2^130 + 2^49`, not fully reduced.
#![forbid(unsafe_code)]

pub(super) const MASK44: u64 = (1 << 44) - 1;
pub(super) const MASK42: u64 = (1 << 42) - 1;

/// Three limbs.
pub(super) type Limbs = [u64; 3];

/// A value below 2^131 (`top` the bits from 2^128) as radix-2^44 limbs.
#[inline(always)]
pub(super) fn limbs_of(v: u128, top: u64) -> Limbs {
    let lo = v as u64;
    let hi = (v >> 64) as u64;
    [
        lo & MASK44,
        ((lo >> 44) | (hi << 20)) & MASK44,
        (hi >> 24) | (top << 40),
    ]
}

/// Column sums carried to limbs: `0→1→2`, the bits from 2^130 (limb 2
/// past 42 bits) folded into limb 0 times 5, and limb 0's carry into the
/// next limb. For the columns of [`square`] and [`mul`] (`d₀ < 2^91.5`,
/// `d₁ < 2^89.8`, `d₂ < 2^88.6`) the fold is `< 5·2^46.6 < 2^49`, so
/// limb 1 ends below `2^44 + 2^5`.
#[inline(always)]
fn carry(d: [u128; 3]) -> Limbs {
    let [d0, d1, d2] = d;
    let d1 = d1 + (d0 >> 44);
    let d2 = d2 + (d1 >> 44);
    let l0 = (d0 as u64 & MASK44) + 5 * (d2 >> 42) as u64;
    let l1 = (d1 as u64 & MASK44) + (l0 >> 44);
    [l0 & MASK44, l1, d2 as u64 & MASK42]
}

/// `a²`: `d₀ = a₀² + 40·a₁a₂`, `d₁ = 2a₀a₁ + 20a₂²`, `d₂ = 2a₀a₂ + a₁²`;
/// six `mul`, the small factors (`40·a₂ < 2^47.4`) formed on 64 bits.
#[inline(always)]
pub(super) fn square(a: Limbs) -> Limbs {
    let [a0, a1, a2] = a;
    let w = |x: u64, y: u64| u128::from(x) * u128::from(y);
    carry([
        w(a0, a0) + w(a1, 40 * a2),
        w(a0, 2 * a1) + w(a2, 20 * a2),
        w(a0, 2 * a2) + w(a1, a1),
    ])
}

/// `a·b` (nine `mul`).
#[inline(always)]
pub(super) fn mul(a: Limbs, b: Limbs) -> Limbs {
    let [a0, a1, a2] = a;
    let [b0, b1, b2] = b;
    let w = |x: u64, y: u64| u128::from(x) * u128::from(y);
    carry([
        w(a0, b0) + w(a1, 20 * b2) + w(a2, 20 * b1),
        w(a0, b1) + w(a1, b0) + w(a2, 20 * b2),
        w(a0, b2) + w(a1, b1) + w(a2, b0),
    ])
}
