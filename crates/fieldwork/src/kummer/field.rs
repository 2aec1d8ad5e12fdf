//! The field GF(p), p = 2^127 − 1, shared by every Kummer backend: the
//! canonical element type [`Fe`] that keys, encodings and the portable
//! ladder use, and the loosely reduced products of the inversion chain.
//!
//! Elements are `u128` values kept fully reduced in `[0, p)` after every
//! operation. Reduction uses 2^127 ≡ 1 (mod p): a value `x < 2^128` is
//! `(x mod 2^127) + ⌊x / 2^127⌋`, at most `p + 1`, then one subtraction of
//! `p` selected by a mask. A product of two elements (< 2^254) is assembled
//! from four 64×64→128 multiplications and folded the same way. No branch,
//! memory index or variable-time instruction depends on a value:
//! `u64 × u64 → u128` is a single `mul` on x86-64 and AArch64.
#![forbid(unsafe_code)]

/// p = 2^127 − 1.
pub(crate) const P: u128 = (1 << 127) - 1;

/// An element of GF(2^127 − 1), fully reduced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fe(pub(crate) u128);

/// `x mod p` for any `x < 2^128`: fold the top bit (2^127 ≡ 1), then
/// subtract `p` if the result is at least `p`, by mask.
#[inline(always)]
fn reduce(x: u128) -> u128 {
    let r = (x & P) + (x >> 127); // ≤ p + 1
    let (d, borrow) = r.overflowing_sub(P);
    // borrow: r < p, keep r; else keep r − p. The borrow passes through
    // `black_box` as a u64: seeing a 0/1 value, LLVM turned the masked
    // select into a branch on it (x86 cmov conversion), a secret-dependent
    // jump in every field operation of the portable ladder, which ct-check
    // (valgrind, secrets undefined) reported. Cost on an AMD EPYC Zen 3:
    // portable shared secret 122 k → 146 k TSC ticks (`fieldwork speed`).
    let keep = u128::from(core::hint::black_box(u64::from(borrow))).wrapping_neg();
    (r & keep) | (d & !keep)
}

impl Fe {
    #[cfg(test)]
    pub(crate) const ZERO: Fe = Fe(0);
    pub(crate) const ONE: Fe = Fe(1);

    /// From 16 little-endian bytes, bit 127 ignored, reduced mod p.
    pub(crate) fn from_bytes(b: &[u8; 16]) -> Fe {
        Fe(reduce(u128::from_le_bytes(*b) & P))
    }

    /// The canonical 16 little-endian bytes.
    pub(crate) fn to_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// The canonical element congruent to `x` (any `x < 2^128`).
    #[inline(always)]
    pub(crate) fn reduced(x: u128) -> Fe {
        Fe(reduce(x))
    }

    /// A small signed constant.
    pub(crate) const fn small(c: i64) -> Fe {
        if c >= 0 {
            Fe(c as u128)
        } else {
            Fe(P - (c.unsigned_abs() as u128))
        }
    }

    #[inline(always)]
    pub(crate) fn add(self, o: Fe) -> Fe {
        Fe(reduce(self.0 + o.0))
    }

    #[inline(always)]
    pub(crate) fn sub(self, o: Fe) -> Fe {
        Fe(reduce(self.0 + (P - o.0)))
    }

    #[inline(always)]
    pub(crate) fn mul(self, o: Fe) -> Fe {
        Fe(reduce(mul_fold(self.0, o.0)))
    }

    #[inline(always)]
    pub(crate) fn square(self) -> Fe {
        Fe(reduce(square_fold(self.0)))
    }

    /// `self^(p − 2)` (0 for 0), by a fixed addition chain:
    /// p − 2 = (2^125 − 1)·4 + 1. The chain runs on loosely reduced values
    /// (`≤ 2^127`, one fold and no masked subtraction per step); only the
    /// result is made canonical.
    pub(crate) fn invert(self) -> Fe {
        let x = self.0;
        let sq = |mut v: u128, k: u32| {
            for _ in 0..k {
                v = square_loose(v);
            }
            v
        };
        let mul = mul_loose;
        let t2 = mul(sq(x, 1), x); // 2^2 − 1
        let t3 = mul(sq(t2, 1), x); // 2^3 − 1
        let t5 = mul(sq(t3, 2), t2); // 2^5 − 1
        let t10 = mul(sq(t5, 5), t5);
        let t20 = mul(sq(t10, 10), t10);
        let t40 = mul(sq(t20, 20), t20);
        let t80 = mul(sq(t40, 40), t40);
        let t120 = mul(sq(t80, 40), t40);
        let t125 = mul(sq(t120, 5), t5);
        Fe(reduce(mul(sq(t125, 2), x)))
    }
}

/// One fold of `x < 2^128` (2^127 ≡ 1): the result is `≤ 2^127`, congruent
/// to x, not necessarily canonical.
#[inline(always)]
pub(crate) fn loose(x: u128) -> u128 {
    (x & P) + (x >> 127)
}

// The loose operations (values `≤ 2^127` in, `≤ p` out; sums and
// differences take `[0, p]`): `mul_loose` (`a·b` folded twice: the fold is
// `≤ 2^128 − 2`, so the result is `≤ p`, and loose values — the inversion
// chain — and values in `[0, p]` — the fixed-base comb — stay in range),
// `square_loose`, `add_loose` and `sub_loose`. On x86-64 the assembly of
// `field_x86.rs` (fewer µops, shorter latency), elsewhere `reference`.
#[cfg(target_arch = "x86_64")]
pub(super) use super::field_x86::{add as add_loose, mul_loose, square_loose, sub as sub_loose};
#[cfg(not(target_arch = "x86_64"))]
pub(super) use reference::{add as add_loose, mul_loose, square_loose, sub as sub_loose};

/// The loose product, square, sum and difference in Rust: what
/// `mul_loose`, `square_loose`, `add_loose` and `sub_loose` are off
/// x86-64, and the reference the assembly is tested against.
#[cfg(any(test, not(target_arch = "x86_64")))]
pub(crate) mod reference {
    use super::{P, loose, mul_fold, square_fold};

    /// `loose(a·b folded)`, for `a, b ≤ 2^127`.
    #[inline(always)]
    pub(crate) fn mul_loose(a: u128, b: u128) -> u128 {
        loose(mul_fold(a, b))
    }

    /// `loose(a² folded)`, for `a ≤ 2^127`.
    #[inline(always)]
    pub(crate) fn square_loose(a: u128) -> u128 {
        loose(square_fold(a))
    }

    /// `loose(a + b)`, for `a, b ∈ [0, p]` (the sum is `≤ 2p < 2^128`).
    #[inline(always)]
    pub(crate) fn add(a: u128, b: u128) -> u128 {
        loose(a + b)
    }

    /// `loose(a + (p − b))`, for `a, b ∈ [0, p]`.
    #[inline(always)]
    pub(crate) fn sub(a: u128, b: u128) -> u128 {
        loose(a + (P - b))
    }
}

/// `a·b` folded to below 2^128 (congruent mod p), for `a, b ≤ 2^127`.
#[inline(always)]
fn mul_fold(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    let (b0, b1) = (b as u64 as u128, b >> 64);
    // a1, b1 ≤ 2^63 and a0, b0 < 2^64: each middle product is < 2^127, so
    // the middle sum fits in 128 bits.
    let mid = a0 * b1 + a1 * b0;
    let (lo, c) = (a0 * b0).overflowing_add(mid << 64);
    let hi = a1 * b1 + (mid >> 64) + c as u128;
    // x = hi·2^128 + lo < 2^254, so hi < 2^126; x ≡ ⌊x / 2^127⌋ + (x mod
    // 2^127), both < 2^127.
    let top = (hi << 1) | (lo >> 127);
    top + (lo & P)
}

/// `a²` folded to below 2^128, for `a ≤ 2^127`: three products.
#[inline(always)]
fn square_fold(a: u128) -> u128 {
    let (a0, a1) = (a as u64 as u128, a >> 64);
    // 2·a0·a1 < 2^128.
    let mid = (a0 * a1) << 1;
    let (lo, c) = (a0 * a0).overflowing_add(mid << 64);
    let hi = a1 * a1 + (mid >> 64) + c as u128;
    let top = (hi << 1) | (lo >> 127);
    top + (lo & P)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_basics() {
        let a = Fe(P - 5);
        assert_eq!(a.add(Fe(7)), Fe(2));
        assert_eq!(Fe(3).sub(Fe(5)), Fe(P - 2));
        assert_eq!(Fe(P - 1).mul(Fe(P - 1)), Fe::ONE); // (−1)² = 1
        assert_eq!(Fe(1 << 126).mul(Fe(2)), Fe::ONE); // 2^127 ≡ 1
        for x in [2u128, 3, 0x1234_5678_9abc_def0, P - 2, 1 << 100] {
            assert_eq!(Fe(x).mul(Fe(x).invert()), Fe::ONE, "{x:#x}");
        }
        assert_eq!(Fe::ZERO.invert(), Fe::ZERO);
        assert_eq!(reduce(P), 0);
        assert_eq!(reduce(P + 1), 1);
        assert_eq!(reduce(u128::MAX), reduce(u128::MAX - P - P));
        // The loose range of the inversion chain reaches 2^127 (≡ 1).
        assert_eq!(reduce(square_fold(1 << 127)), 1);
        assert_eq!(reduce(mul_fold(1 << 127, P - 1)), P - 1);
        assert_eq!(reduce(mul_fold(1 << 127, 1 << 127)), 1);
        assert_eq!(loose(u128::MAX), 1 << 127);
        for x in [3u128, P - 1, 1 << 127, (1 << 127) - 5] {
            assert_eq!(reduce(square_fold(x)), reduce(mul_fold(x, x)), "{x:#x}");
        }
    }
}
