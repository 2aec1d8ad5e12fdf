//! The field algorithms written once over [`Arith`] (a field's product,
//! square and sum): multi-squaring, Itoh–Tsujii inversion, the half-trace,
//! exponentiation and Montgomery's batch inversion. Every loop's shape
//! depends only on the degree m and on public lengths, never on an
//! element's value: constant time whenever the field's product and square
//! are.
#![forbid(unsafe_code)]

use subtle::Choice;

/// [`Arith::add`] for elements as word vectors (the run-time fields):
/// word-wise XOR.
#[cfg(feature = "alloc")]
pub(crate) fn add_words(a: &[u64], b: &[u64]) -> alloc::vec::Vec<u64> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

/// [`Arith::select`] for elements as word vectors: `b` where `choice` is
/// set, else `a`, word by word in constant time.
#[cfg(feature = "alloc")]
pub(crate) fn select_words(a: &[u64], b: &[u64], choice: Choice) -> alloc::vec::Vec<u64> {
    a.iter()
        .zip(b)
        .map(|(x, y)| subtle::ConditionallySelectable::conditional_select(x, y, choice))
        .collect()
}

/// [`Arith::one`] for elements as word arrays: 1 in word 0.
#[inline(always)]
pub(crate) fn one_array<const N: usize>() -> [u64; N] {
    let mut r = [0u64; N];
    if let Some(x) = r.first_mut() {
        *x = 1;
    }
    r
}

/// [`Arith::add`] for elements as word arrays: word-wise XOR.
#[inline(always)]
pub(crate) fn add_array<const N: usize>(a: &[u64; N], b: &[u64; N]) -> [u64; N] {
    let mut r = *a;
    for (d, &x) in r.iter_mut().zip(b) {
        *d ^= x;
    }
    r
}

/// [`Arith::select`] for elements as word arrays: `b` where `choice` is
/// set, else `a`, word by word in constant time.
#[inline(always)]
pub(crate) fn select_array<const N: usize>(a: &[u64; N], b: &[u64; N], choice: Choice) -> [u64; N] {
    let mut r = *a;
    for (d, y) in r.iter_mut().zip(b) {
        subtle::ConditionallySelectable::conditional_assign(d, y, choice);
    }
    r
}

/// A field's arithmetic on its element representation `E`.
pub(crate) trait Arith {
    /// An element.
    type E: Clone;
    /// The extension degree m.
    fn degree(&self) -> usize;
    /// The element 1.
    fn one(&self) -> Self::E;
    /// `a·b`.
    fn mul(&self, a: &Self::E, b: &Self::E) -> Self::E;
    /// `a²`.
    fn square(&self, a: &Self::E) -> Self::E;
    /// `a + b`.
    fn add(&self, a: &Self::E, b: &Self::E) -> Self::E;
    /// `b` if `choice` is set, else `a`, in constant time.
    fn select(&self, a: &Self::E, b: &Self::E, choice: Choice) -> Self::E;
    /// `a^(2^k)`: by default k squarings; a field may apply a precomputed
    /// linear map instead.
    #[inline(always)]
    fn pow2k(&self, a: &Self::E, k: usize) -> Self::E {
        pow2k_by_squaring(self, a, k)
    }
    /// `a^(−1)` (0 for 0): by default Itoh–Tsujii ([`invert`]); a field
    /// may use another constant-time method. (Used by the batch inversion,
    /// which needs `alloc`.)
    #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
    #[inline(always)]
    fn invert(&self, a: &Self::E) -> Self::E {
        invert(self, a)
    }
    /// The half-trace (odd m): by default the recurrence of
    /// [`half_trace_by_squaring`]; a field may apply a precomputed linear
    /// map instead.
    #[inline(always)]
    fn half_trace(&self, c: &Self::E) -> Self::E {
        half_trace_by_squaring(self, c)
    }
}

/// `a^(2^k)`: k squarings.
#[inline(always)]
pub(crate) fn pow2k_by_squaring<A: Arith + ?Sized>(f: &A, a: &A::E, k: usize) -> A::E {
    let mut r = a.clone();
    for _ in 0..k {
        r = f.square(&r);
    }
    r
}

/// `a^(2^k)` with the field's fastest method.
#[inline(always)]
pub(crate) fn pow2k<A: Arith + ?Sized>(f: &A, a: &A::E, k: usize) -> A::E {
    f.pow2k(a, k)
}

/// `a^(−1)`, and 0 for 0: Itoh–Tsujii (Inform. and Comput. 78, 1988).
/// a^(−1) = (a^(2^(m−1) − 1))², and β_k = a^(2^k − 1) satisfies
/// β_(j+k) = β_j^(2^k)·β_k; the chain for m − 1 is its binary expansion
/// read from the top (β_2k from β_k, then β_(2k+1) = β_2k²·a for a set bit):
/// ⌊log₂(m − 1)⌋ + popcount(m − 1) − 1 products and m − 1 squarings. The
/// chain depends on m only.
#[inline(always)]
pub(crate) fn invert<A: Arith + ?Sized>(f: &A, a: &A::E) -> A::E {
    let n = f.degree() - 1;
    if n == 0 {
        // GF(2): a^(−1) = a.
        return a.clone();
    }
    let mut beta = a.clone(); // β_k, k = 1
    let mut k = 1usize;
    let bits = usize::BITS - n.leading_zeros();
    for i in (0..bits - 1).rev() {
        beta = f.mul(&pow2k(f, &beta, k), &beta);
        k *= 2;
        if (n >> i) & 1 == 1 {
            beta = f.mul(&f.square(&beta), a);
            k += 1;
        }
    }
    f.square(&beta)
}

/// The half-trace with the field's fastest method.
#[inline(always)]
pub(crate) fn half_trace<A: Arith>(f: &A, c: &A::E) -> A::E {
    f.half_trace(c)
}

/// The half-trace H(c) = Σ_{i=0}^{(m−1)/2} c^(2^(2i)) for odd m, by the
/// recurrence h ← h⁴ + c: m − 1 squarings. (H(c)² + H(c) = c + Tr(c).)
#[inline(always)]
pub(crate) fn half_trace_by_squaring<A: Arith + ?Sized>(f: &A, c: &A::E) -> A::E {
    let mut h = c.clone();
    for _ in 0..(f.degree() - 1) / 2 {
        h = f.add(&f.square(&f.square(&h)), c);
    }
    h
}

/// `a^e`, `e` as little-endian words, by a fixed left-to-right ladder: one
/// square and one product per exponent bit, the product selected in
/// constant time, so neither `a` nor `e` shows in the timing (only
/// `e.len()` does).
#[inline(always)]
pub(crate) fn pow<A: Arith>(f: &A, a: &A::E, e: &[u64]) -> A::E {
    let mut r = f.one();
    for &w in e.iter().rev() {
        for i in (0..64).rev() {
            r = f.square(&r);
            let ra = f.mul(&r, a);
            r = f.select(&r, &ra, Choice::from(((w >> i) & 1) as u8));
        }
    }
    r
}

/// Replaces each element of `v` by its inverse (0 stays 0) with one
/// inversion: Montgomery's trick (Math. Comp. 48, 1987, §10.3.1): prefix
/// products, one inversion of the whole product, then back-substitution.
/// Zeros are replaced by 1 in the products (selected in constant time) and
/// restored at the end. `scratch.len() == v.len()`.
#[inline(always)]
pub(crate) fn invert_batch<A: Arith>(
    f: &A,
    v: &mut [A::E],
    scratch: &mut [A::E],
    is_zero: impl Fn(&A::E) -> Choice,
) {
    let one = f.one();
    let mut acc = one.clone();
    for (x, s) in v.iter().zip(scratch.iter_mut()) {
        *s = acc.clone();
        let z = is_zero(x);
        let factor = f.select(x, &one, z);
        acc = f.mul(&acc, &factor);
    }
    let mut inv = f.invert(&acc);
    for (x, s) in v.iter_mut().zip(scratch.iter()).rev() {
        let z = is_zero(x);
        let factor = f.select(x, &one, z);
        let xi = f.mul(&inv, s);
        inv = f.mul(&inv, &factor);
        // Zero in, zero out.
        *x = f.select(&xi, x, z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use subtle::ConditionallySelectable;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    /// GF(2^5) = GF(2)[x]/(x^5 + x^2 + 1) on `u64`, by the bit-by-bit
    /// definition: an independent field to check the generic algorithms.
    struct Small;

    impl Arith for Small {
        type E = u64;
        fn degree(&self) -> usize {
            5
        }
        fn one(&self) -> u64 {
            1
        }
        fn mul(&self, a: &u64, b: &u64) -> u64 {
            let mut r = 0u64;
            for i in 0..5 {
                if (b >> i) & 1 == 1 {
                    r ^= a << i;
                }
            }
            for i in (5..10).rev() {
                if (r >> i) & 1 == 1 {
                    r ^= 0b100101 << (i - 5);
                }
            }
            r
        }
        fn square(&self, a: &u64) -> u64 {
            self.mul(a, a)
        }
        fn add(&self, a: &u64, b: &u64) -> u64 {
            a ^ b
        }
        fn select(&self, a: &u64, b: &u64, c: Choice) -> u64 {
            u64::conditional_select(a, b, c)
        }
    }

    #[test]
    fn inverse_half_trace_pow_in_gf32() {
        let f = Small;
        for a in 1..32u64 {
            assert_eq!(f.mul(&a, &invert(&f, &a)), 1, "a = {a}");
            assert_eq!(pow(&f, &a, &[31]), 1);
            assert_eq!(pow(&f, &a, &[2]), f.square(&a));
            // Tr(a) = a + a² + a⁴ + a⁸ + a¹⁶, in {0, 1}.
            let tr = (0..5).fold(0, |t, k| t ^ pow2k(&f, &a, k));
            assert!(tr <= 1);
            let h = half_trace(&f, &a);
            assert_eq!(f.square(&h) ^ h, a ^ tr);
        }
        assert_eq!(invert(&f, &0), 0);
        let mut v: Vec<u64> = (0..32).collect();
        let mut s = vec![0u64; 32];
        invert_batch(&f, &mut v, &mut s, |x| Choice::from((*x == 0) as u8));
        for (a, inv) in v.iter().enumerate() {
            assert_eq!(*inv, invert(&f, &(a as u64)));
        }
    }
}
