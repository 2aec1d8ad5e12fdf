//! GF(2^409) and GF(2^571) products with two 128-bit digits a ymm
//! register: the `vpclmulqdq-ymm-wide` backend's product, square and
//! square root for the two largest fields, for cores whose `vpclmulqdq`
//! issues as often on ymm as on xmm (AMD family 25: one every two cycles
//! on either, `peer-bench --isa-rates`), where `xmmfold.rs`'s
//! one-product-an-instruction kernels are bound by that rate alone.
//!
//! # The product
//!
//! The four full digits D0..D3 of each factor (at 409 the last is
//! (a6, 0)) by Karatsuba over digit pairs, `xmmfold.rs`'s
//! `Halves<Halves<_>>`, with the two halves' products lo = (D0, D1)·(D0',
//! D1') and hi = (D2, D3)·(D2', D3') computed side by side, lo in each
//! register's low lane and hi in its high lane: X = [D0 | D2] and
//! Y = [D1 | D3], and every step of a two-digit Karatsuba product is then
//! one ymm instruction for both. The middle product (D0 + D2, D1 + D3)·(…)
//! puts its two outer leaves in the lanes of one register and its middle
//! leaf on xmm. Leaves are Karatsuba too (three `vpclmulqdq` and two
//! in-lane `vpshufd`: on these cores the product's port, not the XORs'
//! four, is the bound). The ninth word of F571, t, by
//! a_i·b_t + a_t·b_i = (a_i + a_t)(b_i + b_t) + a_i·b_i + a_t·b_t on the
//! registers X ⊕ t and Y ⊕ t (a_i·b_i are the leaves' outer products).
//! Then `xmmfold.rs`'s word-parity [`Split`] and its carry-less fold.
//!
//! | product | xmm `vpclmulqdq` (`xmmfold.rs`) | here (ymm + xmm) |
//! |---|---|---|
//! | 4 digits (409) | 36 | 9 + 3 + 3 = 15 |
//! | 4 digits + t (571) | 45 | 15 + 4 + 1 = 20 |
//!
//! plus 10 lane extractions (`vextracti128`) and 2 insertions.
//! Squares: each word squared by one `vpclmulqdq` (two words a ymm
//! instruction, the results' lanes extracted into digits), then the fold;
//! a chain of squares (`square_n`) keeps the element in digits between
//! them.
//!
//! Port model (AMD EPYC Zen 4, `peer-bench --isa-rates`: `vpclmulqdq`
//! latency 4, one every 2 cycles on xmm and ymm; XOR four a cycle): the
//! F571 product's 20 `vpclmulqdq` and the fold's 10 are 60 cycles of that
//! port (the xmm digits' 45 + 10: 110), measured 73 a chained product;
//! F409 15 + 12 = 54 (xmm 36 + 12: 96), measured 65. A chained square is
//! latency-bound (about 30 cycles: `vpclmulqdq`, lane moves, the fold's
//! two `vpclmulqdq` steps).
//!
//! Rejected (Zen 4): the fold's landing terms two a ymm `vpclmulqdq`
//! (h_k and h_(k+2) in the lanes; 5 instructions instead of 9 at 571):
//! 73.0 → 73.5 cycles a chained product, square 29.8 → 30.1 — the chain
//! is latency-bound; the square root's product here: 102 cycles at 409
//! against 72 on `xmmfold.rs`'s (kept there).
#![allow(unsafe_code)]
// Digit and word indices are compile-time functions of the field's W.
#![allow(clippy::indexing_slicing)]

use super::xmmfold::{load, reduce, reduce_digits, store};
use crate::cpu::Avx2Clmul;
use crate::gf2x::digits::{CAP, Lanes, Split};
use core::arch::x86_64::{
    __m128i, __m256i, _mm256_castsi128_si256, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_inserti128_si256, _mm256_set1_epi64x,
};

// SAFETY (every `unsafe` block below): the `Avx2Clmul` token, taken by
// every entry, proves VPCLMULQDQ, AVX2, AVX, PCLMULQDQ and SSE4.1; the
// functions are `inline(always)` into the backend's `#[target_feature]`
// entry. No memory is touched here but through `xmmfold`'s loads.

/// A digit product in each lane: its terms at words 0 (`lo`), 1 (`mid`)
/// and 2 (`hi`) of the lane's 256-bit result.
#[derive(Clone, Copy)]
struct Leaf<T> {
    lo: T,
    mid: T,
    hi: T,
}

impl<T: Lanes> Leaf<T> {
    /// x·y lane-wise by Karatsuba: x_l·y_l, x_h·y_h and
    /// (x_l + x_h)(y_l + y_h) less the two.
    #[inline(always)]
    fn mul(x: T, y: T) -> Self {
        let lo = x.clmul::<0x00>(y);
        let hi = x.clmul::<0x11>(y);
        let m = x.xor(x.swap()).clmul::<0x00>(y.xor(y.swap()));
        Leaf {
            lo,
            hi,
            mid: m.xor(lo.xor(hi)),
        }
    }

    #[inline(always)]
    fn xor(self, b: Self) -> Self {
        Leaf {
            lo: self.lo.xor(b.lo),
            mid: self.mid.xor(b.mid),
            hi: self.hi.xor(b.hi),
        }
    }
}

/// A two-digit product in each lane as a word-parity split: `e[j]` the
/// terms at word 2j, `o[j]` at word 2j + 1 (four digits, three
/// straddling sums).
#[derive(Clone, Copy)]
struct Two<T> {
    e: [T; 4],
    o: [T; 3],
}

impl<T: Lanes> Two<T> {
    /// Karatsuba from the leaves: l0 = x0·y0, l1 = x1·y1 and
    /// lm = (x0 + x1)(y0 + y1).
    #[inline(always)]
    fn from_leaves(l0: Leaf<T>, l1: Leaf<T>, lm: Leaf<T>) -> Self {
        let k = lm.xor(l0.xor(l1));
        Two {
            e: [l0.lo, l0.hi.xor(k.lo), l1.lo.xor(k.hi), l1.hi],
            o: [l0.mid, k.mid, l1.mid],
        }
    }
}

#[inline(always)]
fn lo_lane(x: __m256i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm256_castsi256_si128(x) }
}

#[inline(always)]
fn hi_lane(x: __m256i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm256_extracti128_si256::<1>(x) }
}

/// [x | y]: x in the low lane, y in the high one.
#[inline(always)]
fn join(x: __m128i, y: __m128i) -> __m256i {
    // SAFETY: see above.
    unsafe { _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x), y) }
}

#[inline(always)]
fn leaf_lanes(l: Leaf<__m256i>) -> (Leaf<__m128i>, Leaf<__m128i>) {
    (
        Leaf {
            lo: lo_lane(l.lo),
            mid: lo_lane(l.mid),
            hi: lo_lane(l.hi),
        },
        Leaf {
            lo: hi_lane(l.lo),
            mid: hi_lane(l.mid),
            hi: hi_lane(l.hi),
        },
    )
}

/// The product of the four digits `a[..4]` by `b[..4]` as a [`Split`] of
/// eight digits (module documentation), and the outer leaves of X·X' and
/// Y·Y' ([D0 | D2] and [D1 | D3] by the same of `b`: the words' own
/// products a_i·b_i, i = 0, 4 in `lo`, 1, 5 in `hi`; 2, 6 and 3, 7 in
/// the second).
#[inline(always)]
fn product4(a: &[__m128i], b: &[__m128i]) -> (Split<__m128i>, Leaf<__m256i>, Leaf<__m256i>) {
    let (x, y) = (join(a[0], a[2]), join(a[1], a[3]));
    let (xb, yb) = (join(b[0], b[2]), join(b[1], b[3]));
    // lo in the low lanes, hi in the high ones.
    let lx = Leaf::mul(x, xb);
    let ly = Leaf::mul(y, yb);
    let lm = Leaf::mul(x.xor(y), xb.xor(yb));
    let pair = Two::from_leaves(lx, ly, lm);
    // The middle product: (D0 + D2, D1 + D3) by the same of b.
    let (m0, m1) = (a[0].xor(a[2]), a[1].xor(a[3]));
    let (n0, n1) = (b[0].xor(b[2]), b[1].xor(b[3]));
    let (l0, l1) = leaf_lanes(Leaf::mul(join(m0, m1), join(n0, n1)));
    let mid = Two::from_leaves(l0, l1, Leaf::mul(m0.xor(m1), n0.xor(n1)));
    // lo + (mid − lo − hi)·X^2 + hi·X^4 (X = x^128).
    let mut s = Split::<__m128i>::zero();
    for j in 0..4 {
        let (lo, hi) = (lo_lane(pair.e[j]), hi_lane(pair.e[j]));
        s.e[j] = s.e[j].xor(lo);
        s.e[j + 4] = s.e[j + 4].xor(hi);
        s.e[j + 2] = s.e[j + 2].xor(mid.e[j].xor(lo.xor(hi)));
    }
    for j in 0..3 {
        let (lo, hi) = (lo_lane(pair.o[j]), hi_lane(pair.o[j]));
        s.o[j] = s.o[j].xor(lo);
        s.o[j + 4] = s.o[j + 4].xor(hi);
        s.o[j + 2] = s.o[j + 2].xor(mid.o[j].xor(lo.xor(hi)));
    }
    (s, lx, ly)
}

/// The 14-word product of two 7-word elements (digit 7 of the result is
/// 0: below 2^(2·409 − 1)).
#[inline(always)]
fn mul409(_: Avx2Clmul, a: &[u64; 7], b: &[u64; 7]) -> [__m128i; 7] {
    let (a, b) = (load(a), load(b));
    product4(&a[..4], &b[..4]).0.digits::<7>()
}

/// The 18-word product of two 9-word elements: [`product4`] and the
/// terms of t = word 8.
#[inline(always)]
fn mul571(_: Avx2Clmul, a: &[u64; 9], b: &[u64; 9]) -> [__m128i; 9] {
    let (da, db) = (load(a), load(b));
    let (mut s, lx, ly) = product4(&da[..4], &db[..4]);
    // SAFETY: see above.
    let (at, bt) = unsafe {
        (
            _mm256_set1_epi64x(a[8] as i64),
            _mm256_set1_epi64x(b[8] as i64),
        )
    };
    let tt = da[4].clmul::<0x00>(db[4]);
    // (a_i + t)(b_i + t) + a_i·b_i at word 8 + i: X's lanes hold words 0, 1
    // and 4, 5; Y's 2, 3 and 6, 7.
    let (x, y) = (join(da[0], da[2]), join(da[1], da[3]));
    let (xb, yb) = (join(db[0], db[2]), join(db[1], db[3]));
    let (sx, sxb) = (x.xor(at), xb.xor(bt));
    let (sy, syb) = (y.xor(at), yb.xor(bt));
    let w_x0 = sx.clmul::<0x00>(sxb).xor(lx.lo); // words 8, 12
    let w_x1 = sx.clmul::<0x11>(sxb).xor(lx.hi); // words 9, 13
    let w_y0 = sy.clmul::<0x00>(syb).xor(ly.lo); // words 10, 14
    let w_y1 = sy.clmul::<0x11>(syb).xor(ly.hi); // words 11, 15
    s.e[4] = s.e[4].xor(lo_lane(w_x0).xor(tt));
    s.e[6] = s.e[6].xor(hi_lane(w_x0).xor(tt));
    s.o[4] = s.o[4].xor(lo_lane(w_x1).xor(tt));
    s.o[6] = s.o[6].xor(hi_lane(w_x1).xor(tt));
    s.e[5] = s.e[5].xor(lo_lane(w_y0).xor(tt));
    s.e[7] = s.e[7].xor(hi_lane(w_y0).xor(tt));
    s.o[5] = s.o[5].xor(lo_lane(w_y1).xor(tt));
    s.o[7] = s.o[7].xor(hi_lane(w_y1).xor(tt));
    s.e[8] = s.e[8].xor(tt);
    s.digits::<9>()
}

/// The squares of the words of `x` (digits as [`load`] makes them) as
/// the 2W-word D's W digits (digit i = word i squared): two words a ymm
/// instruction.
#[inline(always)]
fn squares<const W: usize>(x: [__m128i; W]) -> [__m128i; W] {
    const { assert!(W <= CAP) };
    let mut d = x;
    let pairs = W.div_ceil(2);
    let mut j = 0;
    while j + 1 < pairs {
        let v = join(x[j], x[j + 1]);
        let lo = v.clmul::<0x00>(v);
        let hi = v.clmul::<0x11>(v);
        d[2 * j] = lo_lane(lo);
        d[2 * j + 1] = lo_lane(hi);
        d[2 * j + 2] = hi_lane(lo);
        if 2 * j + 3 < W {
            d[2 * j + 3] = hi_lane(hi);
        }
        j += 2;
    }
    if j < pairs {
        d[2 * j] = x[j].clmul::<0x00>(x[j]);
        if 2 * j + 1 < W {
            d[2 * j + 1] = x[j].clmul::<0x11>(x[j]);
        }
    }
    d
}

/// One field's `mul` and `square` on the ymm products, the signatures of
/// `xmmfold.rs`'s with the [`Avx2Clmul`] token (the square root stays
/// there: its product by √x on ymm ran 102 cycles at m = 409 against 72).
macro_rules! field_kernels {
    ($(#[$doc:meta])* $name:ident: W = $w:literal, M = $m:literal, R = $r:expr, $product:path) => {
        $(#[$doc])*
        pub(super) mod $name {
            use super::*;

            /// `a·b`: the product's digits, then the fold.
            #[inline(always)]
            pub(in super::super) fn mul(t: Avx2Clmul, a: &[u64; $w], b: &[u64; $w]) -> [u64; $w] {
                reduce::<$w, $m, { $r }>(&$product(t, a, b))
            }

            /// `a²`.
            #[inline(always)]
            pub(in super::super) fn square(_: Avx2Clmul, a: &[u64; $w]) -> [u64; $w] {
                reduce::<$w, $m, { $r }>(&squares(load(a)))
            }

            /// `a^(2^n)`: n squares, the element kept in digits between
            /// them (no store and load a step).
            #[inline(always)]
            pub(in super::super) fn square_n(_: Avx2Clmul, a: &[u64; $w], n: usize) -> [u64; $w] {
                let mut d = load(a);
                for _ in 0..n {
                    d = reduce_digits::<__m128i, $w, $m, { $r }>(&squares(d));
                }
                store(&d)
            }
        }
    };
}

field_kernels!(
    /// GF(2^409): x^409 + x^87 + 1, the product [`mul409`].
    ymm409: W = 7, M = 409, R = (1 << 87) | 1, mul409
);
field_kernels!(
    /// GF(2^571): x^571 + x^10 + x^5 + x^2 + 1, the product [`mul571`].
    ymm571: W = 9, M = 571, R = 0x425, mul571
);

#[cfg(test)]
mod tests {
    use super::super::words::reduce_sparse;
    use super::super::xmmfold::tests::inputs;
    use crate::gf2x::mul_fixed;

    macro_rules! field_test {
        ($test:ident, $module:ident, $w:literal, $m:literal, $terms:expr) => {
            #[test]
            fn $test() {
                let Some(t) = crate::cpu::Avx2Clmul::get() else {
                    return;
                };
                let xs = inputs::<$w>($m);
                for (i, a) in xs.iter().enumerate() {
                    for b in xs.iter().cycle().skip(i).take(9) {
                        let want = reduce_sparse::<$w, { 2 * $w }>(mul_fixed(a, b), $m, $terms);
                        assert_eq!(super::$module::mul(t, a, b), want, "{a:x?} {b:x?}");
                    }
                    let sq = reduce_sparse::<$w, { 2 * $w }>(mul_fixed(a, a), $m, $terms);
                    assert_eq!(super::$module::square(t, a), sq, "{a:x?}");
                    let mut sq3 = sq;
                    for _ in 0..2 {
                        sq3 = reduce_sparse::<$w, { 2 * $w }>(mul_fixed(&sq3, &sq3), $m, $terms);
                    }
                    assert_eq!(super::$module::square_n(t, a, 3), sq3, "{a:x?}");
                    assert_eq!(super::$module::square_n(t, a, 0), *a, "{a:x?}");
                }
            }
        };
    }
    field_test!(f409_against_words, ymm409, 7, 409, &[87, 0]);
    field_test!(f571_against_words, ymm571, 9, 571, &[10, 5, 2, 0]);
}
