//! The Su–Fan formulas the backends use (C. Su and H. Fan, *Impact of
//! Intel's new instruction sets on software implementation of GF(2)\[x\]
//! multiplication*, IPL 2012, Table 1): schoolbook 3-S at 3 words, 3-1m,
//! 4-1m and 4-2m (the ymm backend's 4 words) and the two-term split 5-2 at
//! 5 words, with the helpers and formula templates they are built from. Every strategy of the table is in
//! `gf2x::reproduce` (feature `reproduce`), which `clmul.rs`'s choice
//! was measured against.
//!
//! CPU features: none of its own. Every kernel is generic over the digit `T`
//! and the digit product `M: DigitMul<T>` of [`super::formulas`]; a backend
//! compiles it with its word product inside its `#[target_feature]` entry
//! points. Everything is `#[inline(always)]` straight-line code: no branch
//! and no memory index depends on the operands.
//!
//! Operands are `N` digits, digit 0 lowest; a formula over `K`-digit pieces
//! works on blocks of `K` digits, `t = x^(64·K)`, and `Φ = 1 + t + t²`.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size formulas: const-generic word counts over arrays and slices of those sizes (checked by the caller).
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::formulas::{Digit, DigitMul, mul1, sum, xor_into};

// ---------------------------------------------------------------------------
// Helpers on digit arrays. Offsets are in digits; a formula over K-digit
// pieces works on blocks of K digits, t = x^(64·K).
// ---------------------------------------------------------------------------

/// Digits `off .. off + W` of `x`, zero past its end (so the top piece of an
/// operand whose length is not a multiple of the piece size is zero-padded).
#[inline(always)]
pub(crate) fn part<T: Digit, const N: usize, const W: usize>(x: &[T; N], off: usize) -> [T; W] {
    core::array::from_fn(|i| if off + i < N { x[off + i] } else { T::ZERO })
}

/// `acc += x^(64·off)·p`.
#[inline(always)]
pub(crate) fn add_at<T: Digit, const N: usize, const W: usize>(
    acc: &mut [T; N],
    off: usize,
    p: &[T; W],
) {
    debug_assert!(off + W <= N);
    xor_into(&mut acc[off..], p);
}

/// Multiplies the polynomial held in digits `lo..hi` of `z` by
/// `1 + x^(64·s)`, in place. Digits `hi .. hi + s` must be zero: the product
/// grows into them. Costs one XOR per digit where the two copies overlap.
#[inline(always)]
pub(crate) fn times_one_plus<T: Digit, const N: usize>(
    z: &mut [T; N],
    lo: usize,
    hi: usize,
    s: usize,
) {
    debug_assert!(hi + s <= N);
    // From the top down, so every digit is read before it is changed.
    for i in (lo..hi).rev() {
        let d = z[i];
        z[i + s] ^= d;
    }
}

/// `Φ·z` with `Φ = 1 + t + t²`, `t = x^(64·k)`, for the polynomial in digits
/// `lo..hi` of `z` (zero elsewhere); the result occupies `lo .. hi + 2k`.
///
/// Output block `j` is `B(j−2) + B(j−1) + B(j)` over the input blocks `B`.
/// The pair sums `Q(e) = B(e) + B(e+1)` for even `e` (counted from `lo`) are
/// shared: output `e+1` is `B(e−1) + Q(e)`, output `e+2` is `Q(e) + B(e+2)`.
/// For `L` blocks that is about `3L/2` block additions, not `2L`.
#[inline(always)]
pub(crate) fn times_phi<T: Digit, const N: usize>(
    z: &[T; N],
    lo: usize,
    hi: usize,
    k: usize,
) -> [T; N] {
    // Written as one loop over even blocks with a small body, no division
    // and no closure writing `out`: so LLVM unrolls it fully and keeps every
    // digit in registers (a version with a writing closure left arrays on
    // the stack; one indexing by `d / k` was not unrolled at 2-digit blocks).
    let blocks = (hi - lo).div_ceil(k);
    let at = |d: usize| if d < hi { z[d] } else { T::ZERO };
    let mut out = [T::ZERO; N];
    let mut j = 0;
    while j <= blocks {
        for r in 0..k {
            let d = lo + j * k + r;
            let q = at(d) ^ at(d + k);
            if j == 0 {
                out[d] = at(d);
            }
            let before = if j == 0 { T::ZERO } else { at(d - k) };
            if d + k < N {
                out[d + k] = before ^ q;
            }
            if d + 2 * k < N {
                out[d + 2 * k] = q ^ at(d + 2 * k);
            }
        }
        j += 2;
    }
    out
}

/// The schoolbook product: all N² digit products, each added at its offset.
#[inline(always)]
pub(crate) fn schoolbook<T: Digit, M: DigitMul<T>, const N: usize, const W: usize>(
    m: M,
    a: &[T; N],
    b: &[T; N],
) -> [T; W] {
    const { assert!(W == 2 * N) };
    let mut c = [T::ZERO; W];
    for (i, &ai) in a.iter().enumerate() {
        for (j, &bj) in b.iter().enumerate() {
            add_at(&mut c, i + j, &m.mul(ai, bj));
        }
    }
    c
}

// ---------------------------------------------------------------------------
// Formula templates. Each defines an N-digit kernel from a formula over P
// pieces of K digits (the last piece may be shorter: `top` digits, padded
// with zeros; the product of that piece alone uses the `top`-digit kernel).
// ---------------------------------------------------------------------------

/// Defines `$name` as [`kernel!`](super::formulas::kernel) does, for a
/// formula over `$p` pieces of `$k` digits, the top one `$top ≤ $k` digits
/// (zero-padded): the operands cut into pieces bound to the patterns `$x`
/// and `$y` (arrays of `[T; K]`, `K = $k` a constant of the body).
macro_rules! pieces_kernel {
    ($(#[$attr:meta])* $name:ident, $n:literal = $p:literal x $k:literal top $top:literal,
     |$m:ident, $x:pat_param, $y:pat_param| $body:block) => {
        $crate::gf2x::formulas::kernel!($(#[$attr])* $name, $n, |$m, a, b| {
            const K: usize = $k;
            const { assert!($n == ($p - 1) * K + $top && $top <= K) };
            let $x: [[T; K]; $p] = core::array::from_fn(|i| $crate::gf2x::sufan::part(a, i * K));
            let $y: [[T; K]; $p] = core::array::from_fn(|i| $crate::gf2x::sufan::part(b, i * K));
            $body
        });
    };
}
pub(crate) use pieces_kernel;

/// Two-term Karatsuba over L + H digits (L ≥ H), `t = x^(64·L)`, with the
/// Su & Fan's modified two-term formula (3) (§2.2, after Moenck \[11\] and
/// Bernstein \[12\]) `C = t·P1 + (1 + t)·(P0 + t·P2)`, where
/// `P0 = A0·B0`, `P2 = A1·B1`, `P1 = (A0 + A1)(B0 + B1)`.
macro_rules! two_term_refined {
    ($name:ident, $n:literal = $l:literal + $h:literal,
     $mul_l:ident, $mul_h:ident, $doc:literal) => {
        $crate::gf2x::formulas::kernel!(
            #[doc = $doc]
            $name,
            $n,
            |m, a, b| {
                const { assert!($l >= $h && $l + $h == $n) };
                let (a0, a1): ([T; $l], [T; $h]) = (part(a, 0), part(a, $l));
                let (b0, b1): ([T; $l], [T; $h]) = (part(b, 0), part(b, $l));
                let p0 = $mul_l(m, &a0, &b0);
                let p2 = $mul_h(m, &a1, &b1);
                let p1 = $mul_l(m, &sum(&a0, &a1), &sum(&b0, &b1));
                let mut c = [T::ZERO; 2 * $n];
                add_at(&mut c, 0, &p0);
                add_at(&mut c, $l, &p2);
                times_one_plus(&mut c, 0, $l + 2 * $h, $l);
                add_at(&mut c, $l, &p1);
                c
            }
        );
    };
}

#[cfg(feature = "reproduce")]
pub(crate) use two_term_refined;

/// Su & Fan's modified three-term formula (4) (§2.2, generalising the
/// two-term trick (3) to the three-term formula of their \[13\]):
/// `C = Φ·(m0 + m1·t + m2·t²) + m01·t + m02·t² + m12·t³`.
macro_rules! three_term_factored {
    ($name:ident, $n:literal = 3 x $k:literal top $top:literal,
     $mul_k:ident, $mul_top:ident, $doc:literal) => {
        $crate::gf2x::sufan::pieces_kernel!(
            #[doc = $doc]
            $name, $n = 3 x $k top $top,
            |m, [a0, a1, a2], [b0, b1, b2]| {
                let m0 = $mul_k(m, &a0, &b0);
                let m1 = $mul_k(m, &a1, &b1);
                let m2: [T; 2 * K] = part(&$mul_top(m, &part(&a2, 0), &part(&b2, 0)), 0);
                let m01 = $mul_k(m, &sum(&a0, &a1), &sum(&b0, &b1));
                let m02 = $mul_k(m, &sum(&a0, &a2), &sum(&b0, &b2));
                let m12 = $mul_k(m, &sum(&a1, &a2), &sum(&b1, &b2));
                let mut x = [T::ZERO; 6 * K];
                add_at(&mut x, 0, &m0);
                add_at(&mut x, K, &m1);
                add_at(&mut x, 2 * K, &m2);
                let mut c = times_phi(&x, 0, 4 * K, K);
                add_at(&mut c, K, &m01);
                add_at(&mut c, 2 * K, &m02);
                add_at(&mut c, 3 * K, &m12);
                part(&c, 0)
            }
        );
    };
}

#[cfg(feature = "reproduce")]
pub(crate) use three_term_factored;

/// Four-term formula (Su & Fan formula (2)), factored:
/// `C = m0123·t³ + (1 + t²)·[m01·t + m23·t³ + (1 + t)·(m0 + m1·t + m2·t² + m3·t³)]
///    + (1 + t)·(m02·t² + m13·t³)`.
macro_rules! four_term_factored {
    ($name:ident, $n:literal = 4 x $k:literal top $top:literal,
     $mul_k:ident, $mul_top:ident, $doc:literal) => {
        $crate::gf2x::sufan::pieces_kernel!(
            #[doc = $doc]
            $name, $n = 4 x $k top $top,
            |m, [a0, a1, a2, a3], [b0, b1, b2, b3]| {
                let (sa01, sb01) = (sum(&a0, &a1), sum(&b0, &b1));
                let (sa23, sb23) = (sum(&a2, &a3), sum(&b2, &b3));
                let m0 = $mul_k(m, &a0, &b0);
                let m1 = $mul_k(m, &a1, &b1);
                let m2 = $mul_k(m, &a2, &b2);
                let m3: [T; 2 * K] = part(&$mul_top(m, &part(&a3, 0), &part(&b3, 0)), 0);
                let m01 = $mul_k(m, &sa01, &sb01);
                let m23 = $mul_k(m, &sa23, &sb23);
                let m02 = $mul_k(m, &sum(&a0, &a2), &sum(&b0, &b2));
                let m13 = $mul_k(m, &sum(&a1, &a3), &sum(&b1, &b3));
                let m0123 = $mul_k(m, &sum(&sa01, &sa23), &sum(&sb01, &sb23));
                let mut c = [T::ZERO; 8 * K];
                add_at(&mut c, 0, &m0);
                add_at(&mut c, K, &m1);
                add_at(&mut c, 2 * K, &m2);
                add_at(&mut c, 3 * K, &m3);
                times_one_plus(&mut c, 0, 5 * K, K);
                add_at(&mut c, K, &m01);
                add_at(&mut c, 3 * K, &m23);
                times_one_plus(&mut c, 0, 6 * K, 2 * K);
                let mut v = [T::ZERO; 8 * K];
                add_at(&mut v, 2 * K, &m02);
                add_at(&mut v, 3 * K, &m13);
                times_one_plus(&mut v, 2 * K, 5 * K, K);
                xor_into(&mut c, &v);
                add_at(&mut c, 3 * K, &m0123);
                part(&c, 0)
            }
        );
    };
}

#[cfg(feature = "reproduce")]
pub(crate) use four_term_factored;

// ---------------------------------------------------------------------------
// The formulas the backends use.
// ---------------------------------------------------------------------------

three_term_factored!(
    s3_1m, 3 = 3 x 1 top 1, mul1, mul1,
    "3 words, strategy 3-1m: Su & Fan's modified three-term formula (4), \
     `Φ·(m0 + m1·t + m2·t²) + m01·t + m02·t² + m12·t³`. 6 products."
);

/// 3 words, schoolbook: 9 products.
#[inline(always)]
pub(crate) fn s3_school<T: Digit, M: DigitMul<T>>(m: M, a: &[T; 3], b: &[T; 3]) -> [T; 6] {
    schoolbook(m, a, b)
}

two_term_refined!(
    mul2_refined,
    2 = 1 + 1,
    mul1,
    mul1,
    "2 words: Karatsuba, refined recombination `t·m01 + (1 + t)·(m0 + m1·t)`. 3 products."
);
two_term_refined!(
    s4_1m,
    4 = 2 + 2,
    mul2_refined,
    mul2_refined,
    "4 words, strategy 4-1m: Karatsuba over 2 + 2 words with the refined \
     recombination at both levels. 9 products."
);
two_term_refined!(
    s5_2,
    5 = 3 + 2,
    s3_1m,
    mul2_refined,
    "5 words, strategy 5-2: Karatsuba over 3 + 2 words (3-1m and refined 2-word \
     Karatsuba inside). 6 + 3 + 6 = 15 products."
);
four_term_factored!(
    s4_2m, 4 = 4 x 1 top 1, mul1, mul1,
    "4 words, strategy 4-2m: the four-term formula, factored by (1 + t) and (1 + t²). \
     9 products."
);
