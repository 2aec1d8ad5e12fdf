//! Target features: none — the portable, constant-time backend.
//!
//! Field elements of GF(p), p = 2^127 − 1, are `u128` values kept fully
//! reduced in `[0, p)` after every operation. Reduction uses
//! 2^127 ≡ 1 (mod p): a value `x < 2^128` is `(x mod 2^127) + ⌊x / 2^127⌋`,
//! at most `p + 1`, then one subtraction of `p` selected by a mask. A
//! product of two elements (< 2^254) is assembled from four 64×64→128
//! multiplications and folded the same way. No branch, memory index or
//! variable-time instruction depends on a value: `u64 × u64 → u128` is a
//! single `mul` on x86-64 and AArch64.
//!
//! The ladder is the one of the module docs, step for step: 251 steps,
//! masked swaps, inversion by a fixed addition chain.
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
    // borrow: r < p, keep r; else keep r − p.
    let keep = (borrow as u128).wrapping_neg();
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
        let (a0, a1) = (self.0 as u64 as u128, self.0 >> 64);
        let (b0, b1) = (o.0 as u64 as u128, o.0 >> 64);
        // a1, b1 < 2^63: the middle sum fits in 128 bits.
        let mid = a0 * b1 + a1 * b0;
        let (lo, c) = (a0 * b0).overflowing_add(mid << 64);
        let hi = a1 * b1 + (mid >> 64) + c as u128;
        // x = hi·2^128 + lo ≡ ⌊x / 2^127⌋ + (x mod 2^127); both < 2^127.
        let top = (hi << 1) | (lo >> 127);
        Fe(reduce(top + (lo & P)))
    }

    #[inline(always)]
    pub(crate) fn square(self) -> Fe {
        self.mul(self)
    }

    /// `self^(2^k)`.
    fn pow2k(self, k: u32) -> Fe {
        let mut x = self;
        for _ in 0..k {
            x = x.square();
        }
        x
    }

    /// `self^(p − 2)` (0 for 0), by a fixed addition chain:
    /// p − 2 = (2^125 − 1)·4 + 1.
    pub(crate) fn invert(self) -> Fe {
        let x = self;
        let t2 = x.square().mul(x); // 2^2 − 1
        let t3 = t2.square().mul(x); // 2^3 − 1
        let t5 = t3.pow2k(2).mul(t2); // 2^5 − 1
        let t10 = t5.pow2k(5).mul(t5);
        let t20 = t10.pow2k(10).mul(t10);
        let t40 = t20.pow2k(20).mul(t20);
        let t80 = t40.pow2k(40).mul(t40);
        let t120 = t80.pow2k(40).mul(t40);
        let t125 = t120.pow2k(5).mul(t5);
        t125.pow2k(2).mul(x)
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
pub(crate) fn ladder(scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
    let neutral = super::NEUTRAL.map(Fe::small);
    let ch = super::CH.map(Fe::small);
    let cd = super::CD.map(Fe::small);
    let [u1, u2, u3] = u;
    let mut r0 = neutral;
    let mut r1 = [u1.mul(u2).mul(u3), u2.mul(u3), u1.mul(u3), u1.mul(u2)];
    let diff = [Fe::ONE, u1, u2, u3];
    let mut prev = 0u8;
    for i in (0..251).rev() {
        let b = (scalar[i / 8] >> (i % 8)) & 1;
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

/// The 48-byte encoding of `(X : Y : Z : T)`: X/Y, X/Z, X/T, canonical;
/// all zero when Y·Z·T = 0.
pub(crate) fn encode(p: [Fe; 4]) -> [u8; 48] {
    let [x, y, z, t] = p;
    let r = x.mul(y.mul(z).mul(t).invert());
    let mut out = [0u8; 48];
    out[..16].copy_from_slice(&r.mul(z).mul(t).to_bytes());
    out[16..32].copy_from_slice(&r.mul(y).mul(t).to_bytes());
    out[32..].copy_from_slice(&r.mul(y).mul(z).to_bytes());
    out
}

/// The three ratios of a 48-byte point (bit 127 of each ignored).
pub(crate) fn decode(point: &[u8; 48]) -> [Fe; 3] {
    core::array::from_fn(|i| {
        let mut b = [0u8; 16];
        b.copy_from_slice(&point[16 * i..16 * i + 16]);
        Fe::from_bytes(&b)
    })
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
    }
}
