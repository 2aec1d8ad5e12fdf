//! Target features: none — the portable, constant-time backend
//! ([`Portable`]).
//!
//! The ladder of the module docs, step for step, on the field of
//! [`super::field`]: 251 steps, masked swaps, products and squares of
//! fully reduced elements; a pair of ladders is two ladders. Key
//! generation is the comb of `fixed_base.rs` with its portable scan
//! ([`PortableScan`]). No branch, memory index or variable-time
//! instruction depends on a value.
#![forbid(unsafe_code)]

use super::Backend;
use super::encoding::{point_from_ratios, scalar_bit};
use super::field::Fe;
use super::fixed_base::{self, PortableScan};
use subtle::Choice;

/// The portable Kummer backend (see [`Backend`]): plain Rust, every target.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Backend for Portable {
    const NAME: &'static str = "portable";

    #[inline]
    fn ladder(self, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        ladder(scalar, u)
    }

    #[inline]
    fn ladder_pair(self, scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
        let ([s0, s1], [u0, u1]) = (scalars, u);
        [ladder(s0, u0), ladder(s1, u1)]
    }

    fn comb(self, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
        fixed_base::comb(PortableScan, scalar)
    }
}

/// Swaps `a` and `b` when `bit` is 1, by mask.
#[inline(always)]
fn cswap(a: &mut [Fe; 4], b: &mut [Fe; 4], bit: u8) {
    let mask = (u128::from(bit & 1)).wrapping_neg();
    for (x, y) in a.iter_mut().zip(b.iter_mut()) {
        let t = (x.0 ^ y.0) & mask;
        x.0 ^= t;
        y.0 ^= t;
    }
}

/// The Hadamard transform.
#[inline(always)]
fn hadamard(v: [Fe; 4]) -> [Fe; 4] {
    let [x, y, z, t] = v;
    let (s, d) = (x.add(y), x.sub(y));
    let (s2, d2) = (z.add(t), z.sub(t));
    [s.add(s2), s.sub(s2), d.add(d2), d.sub(d2)]
}

#[inline(always)]
fn times(a: [Fe; 4], b: [Fe; 4]) -> [Fe; 4] {
    [
        a[0].mul(b[0]),
        a[1].mul(b[1]),
        a[2].mul(b[2]),
        a[3].mul(b[3]),
    ]
}

/// The ladder of the module docs on the point with ratios `u`; returns
/// `scalar·P` projectively.
fn ladder(scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
    let neutral = super::NEUTRAL.map(Fe::small);
    let ch = super::CH.map(Fe::small);
    let cd = super::CD.map(Fe::small);
    let [u1, u2, u3] = u;
    let mut r0 = neutral;
    let mut r1 = point_from_ratios(u);
    let diff = [Fe::ONE, u1, u2, u3];
    let mut prev = 0u8;
    for i in (0..251).rev() {
        let b = scalar_bit(scalar, i);
        cswap(&mut r0, &mut r1, b ^ prev);
        prev = b;
        let a = hadamard(r0);
        let b4 = hadamard(r1);
        let b4 = times(b4, a);
        let a = times(a, a);
        let b4 = times(b4, ch);
        let a = times(a, ch);
        let b4 = hadamard(b4);
        let a = hadamard(a);
        let b4 = times(b4, b4);
        let a = times(a, a);
        r1 = times(b4, diff);
        r0 = times(a, cd);
    }
    cswap(&mut r0, &mut r1, prev);
    r0
}
