//! GF(2^163), GF(2^283), GF(2^409) and GF(2^571) on 128-bit digits with a
//! carry-less reduction: the PCLMULQDQ and VPCLMULQDQ backends' product,
//! square and square root for the three pentanomial fields and the
//! trinomial F409 (`FieldKernel::clmul`), one shape for the four
//! (`field_kernels!`), as `xmm233.rs` is F233's.
//!
//! The digit products (`gf2x::digits`) and the fold are written over
//! `gf2x::digits::Lanes`: on `__m128i` they are the one-element kernels;
//! on `__m256i` and `__m512i` (`mul_lanes`, `square_lanes`, elements
//! loaded by `lanes.rs`) the same instructions compute two or four
//! elements, element i in 128-bit lane i — the batch kernels.
//!
//! # The fold
//!
//! The four moduli are f = x^m + r with r of degree d
//! (r = x^7 + x^6 + x^3 + 1, x^12 + x^7 + x^5 + 1, x^87 + 1,
//! x^10 + x^5 + x^2 + 1) and m in the top word of W = ⌈m/64⌉ (W = 3, 5,
//! 7, 9, odd). A product D (below 2^(2m−1),
//! 2W words in W digits of two words) is reduced in two carry-less steps,
//! where `words::reduce_sparse` takes two shifted XORs per word per term
//! of r (4 terms × W words, each fold waiting on the one above):
//!
//! 1. x^(64W) ≡ c = x^(64W−m)·r (degree 36, 49, 15: one word; at 409
//!    c = x^126 + x^39, two words c_0, c_1), so with D = L + H·x^(64W):
//!    D ≡ L + H·c, each word h_k of H (the ⌈(2m−1)/64⌉ − W that can be
//!    nonzero) one PCLMULQDQ by c_0 landing at word k (the digit's word
//!    chosen by the immediate: no shuffle), at 409 a second by c_1 at
//!    word k + 1, all side by side. The result is below
//!    2^max(64W, m−1+d): at m = 571 it overflows into word W (4 bits), at
//!    409 (2^495) 47 bits, which the same digit holds (W odd: word W − 1
//!    is a digit's low word).
//! 2. T = the bits from m on (below 2^29, 2^37, 2^86, 2^9) times r: one
//!    PCLMULQDQ below 2^64 XORed into word 0; at 409 (T two words, r =
//!    x^87 + 1) T + (T·x^23)·x^64 by shifts (T·x^23 below 2^109: 4 word
//!    shifts, 3 byte shifts, 4 XORs) into digits 0 and 1; another
//!    two-word r would take a one-digit schoolbook product. Then the top
//!    word masked.
//!
//! The idea (reduce by a carry-less product with the folded tail of the
//! modulus, not by shifts) is the one of Gueron and Kounavis's GCM
//! reduction and of Intel's CRC folding by PCLMULQDQ ("Fast CRC
//! Computation for Generic Polynomials Using PCLMULQDQ", 2009), applied
//! here to the word-aligned fold x^(64W) ≡ c; written from that
//! description.
//!
//! # Cost (W words)
//!
//! - Fold: W + 1 PCLMULQDQ (at 409: 6 + 6), (W − 1)/2 + 1 shuffles for the odd words'
//!   products (`palignr` between neighbours), 3 shifts and 1 shuffle for
//!   T, 1 `movq`, 1 AND and about W + 3 XORs; depth after the product
//!   about 10 (PCLMULQDQ, XOR, shift, shuffle, XOR, PCLMULQDQ, XOR).
//! - Square: W PCLMULQDQ (each word with itself: the digits of D
//!   directly), then the fold.
//! - Product at m = 163 (`mul163`): schoolbook on the digits (a0, a1) and
//!   (a2): 9 PCLMULQDQ, 3 shuffles, 6 XORs, then the fold.
//! - Products at m = 283 and 571 (`product_odd`, one shape): the N = (W −
//!   1)/2 full digits by Karatsuba over digit halves (`Halves`, 3^log2(N)
//!   one-digit leaves), the terms kept apart by word parity (`Split`: the
//!   straddling ones shifted into digits once, one `palignr` a digit), the
//!   last word t by a_i·b_t + a_t·b_i = (a_i + a_t)(b_i + b_t) + a_i·b_i +
//!   a_t·b_t (a_i·b_i is a leaf's product already: one PCLMULQDQ a word).
//!   Port model (Golden Cove: PCLMULQDQ port 5 only, latency 3; shuffles
//!   ports 1/5; XOR ports 0/1/5), schoolbook leaves (4 PCLMULQDQ, 1 XOR):
//!
//!   | W, product | PCLMULQDQ | shuffles | XORs | port 5 | all / 3 |
//!   |---|---|---|---|---|---|
//!   | 5, schoolbook on words | 25 | 5 | 21 | 28 | 17 |
//!   | 5, `Halves<Schoolbook>` | 12 + 4 + 1 = 17 | 7 | 34 | 21 | 19 |
//!   | 9, schoolbook on words | 81 | 9 | 73 | 86 | 54 |
//!   | 9, `Halves<Halves<Schoolbook>>` | 36 + 8 + 1 = 45 | 11 | 103 | 50 | 53 |
//!
//!   (port 5: PCLMULQDQ and half the shuffles; depth 3 + 6 + 2 and
//!   3 + 8 + 2: PCLMULQDQ, the XOR tree, `palignr` and XOR), then the
//!   fold (W + 1 PCLMULQDQ). At W = 9 both bounds meet: the product is
//!   throughput-bound, the fold's chain after it.
//!   At m = 409 (`mul409`) the four digits of [`load`], the last (a6, 0),
//!   by `Halves<Halves<Schoolbook>>` as at 571 (36 PCLMULQDQ, 9 of them
//!   by a zero word): measured 49.8 cycles a chained product (fold
//!   included) against 61.5 for `gf2x`'s 7-word product and the
//!   word-wise trinomial fold. Rejected: the 3-digit Karatsuba in
//!   `product_odd` (`gf2x::digits::Thirds`: 24 + 6 + 1 = 31 PCLMULQDQ;
//!   Xeon, batches 9 % faster in two runs, the whole field 20–30 % slower
//!   in two others; unsettled).
//!   Rejected: Karatsuba leaves (3 PCLMULQDQ, 2 `pshufd`, 4 XORs: one
//!   port-5 operation fewer for five more elsewhere; 0.1 and 1.4 cycles
//!   slower at W = 5 and 9).
//! - Square root: the even/odd split of `words::split_even_odd`, the
//!   product by √x and one XOR per word.
//!
//! Rejected: step 2 at 409 by a loop over r's 128 bit positions (369
//! cycles a product as compiled); T·r there as a schoolbook digit
//! product (4 PCLMULQDQ: product 51.1, square 22.6 cycles against 49.8
//! and 19.9 by the shifts). Measured history:
//! `docs/notes/gf2m.md`.
#![allow(unsafe_code)]
// Digit and word indices are functions of the const W and of loop
// counters below W (`reduce`'s bounds are asserted at compile time), not
// of input: the arrays are the kernels' registers.
#![allow(clippy::indexing_slicing)]

use super::lanes::{LoadLanes, load_lanes, store_lanes};
use super::words::split_even_odd;
use crate::cpu::Clmul;
use crate::gf2x::digits::{
    DigitProduct, Halves, Lanes, Schoolbook, load_digits, product_odd, store_digits,
};
use crate::gf2x::{InlineFixed, PclmulLane};
use core::arch::x86_64::{__m128i, _mm_cvtsi64_si128};

// SAFETY (every `unsafe` block below): the `Clmul` token, taken by every
// entry, proves PCLMULQDQ and SSE4.1 (SSSE3's `palignr` with them); the
// rest is SSE2, in the x86-64 baseline. Loads and stores are unaligned and
// inside the word arrays they name (bounds in each block).

#[inline(always)]
fn xor<V: Lanes>(a: V, b: V) -> V {
    a.xor(b)
}

/// The product of word `la` of `a` by word `lb` of `b` (each 0 or 1,
/// known at compile time: the immediate).
#[inline(always)]
fn clmul_lanes<V: Lanes>(a: V, la: usize, b: V, lb: usize) -> V {
    match (la, lb) {
        (0, 0) => a.clmul::<0x00>(b),
        (1, 0) => a.clmul::<0x01>(b),
        (0, _) => a.clmul::<0x10>(b),
        _ => a.clmul::<0x11>(b),
    }
}

/// The terms of step 1 landing at word w (w ≤ W) of the 2W-word `d`:
/// h_w·c_0 + h_(w−1)·c_1 (h_k = word W + k = digit (W + k)/2's word
/// (W + k) % 2, for k < `high`, the high words that can be nonzero; c_1 =
/// 0 skipped), `None` when no term lands there (known at compile time).
#[inline(always)]
fn landing<V: Lanes, const W: usize>(
    d: &[V; W],
    w: usize,
    high: usize,
    c: V,
    two_words: bool,
) -> Option<V> {
    let lo = if w < high {
        Some(clmul_lanes(d[(W + w) / 2], (W + w) % 2, c, 0))
    } else {
        None
    };
    let hi = if two_words && w >= 1 && w - 1 < high {
        Some(clmul_lanes(d[(W + w - 1) / 2], (W + w - 1) % 2, c, 1))
    } else {
        None
    };
    match (lo, hi) {
        (Some(x), Some(y)) => Some(xor(x, y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The words of `a` as digits of two (digit j: words 2j, 2j + 1; for odd
/// W the last digit holds word W − 1 and 0), the rest of the array 0:
/// [`load_digit`](crate::gf2x::digits::load_digit) each (16-byte loads, so the results' stores forward).
#[inline(always)]
pub(super) fn load<const W: usize>(a: &[u64; W]) -> [__m128i; W] {
    load_digits::<W, W>(a)
}

/// The W words of `r`'s first ⌈W/2⌉ digits (the last digit's low word).
#[inline(always)]
pub(super) fn store<const W: usize>(r: &[__m128i; W]) -> [u64; W] {
    let mut out = [0u64; W];
    store_digits(r, &mut out);
    out
}

/// The degree d of r and the bound 2^wide of [`reduce`]'s step-1 result
/// (wide = max(64W, M − 1 + d): H·c is below 2^(2M−1−64W)·2^(64W−M+d+1)).
const fn bounds(w: usize, m: usize, r: u128) -> (usize, usize) {
    let deg = (127 - r.leading_zeros()) as usize;
    let wide = if 64 * w > m - 1 + deg {
        64 * w
    } else {
        m - 1 + deg
    };
    (deg, wide)
}

/// `D` mod f = x^M + R for D = Σ d\[j\]·x^(128j) (2W words, below
/// 2^(2M−1)): the two carry-less steps of the module documentation. The
/// bounds they need are checked at compile time.
#[inline(always)]
pub(super) fn reduce<const W: usize, const M: usize, const R: u128>(d: &[__m128i; W]) -> [u64; W] {
    store(&reduce_digits::<__m128i, W, M, R>(d))
}

/// [`reduce`]'s result as digits, as [`load`] makes them (the digits past
/// the top one unspecified), for the next operation without a store.
#[inline(always)]
pub(super) fn reduce_digits<V: Lanes, const W: usize, const M: usize, const R: u128>(
    d: &[V; W],
) -> [V; W] {
    // The words of D that can be nonzero, the high ones among them, and
    // the bound of step 1's result (2^wide).
    let words = (2 * M - 1).div_ceil(64);
    let high = if words - W < W { words - W } else { W };
    let (deg, wide) = bounds(W, M, R);
    let c_all = R << (64 * W - M);
    let two_words = (c_all >> 64) != 0;
    // T·r in one word (the pentanomials) or two digits (F409).
    let short = wide - M + deg < 64;
    const {
        let (deg, wide) = bounds(W, M, R);
        // W odd, m in the top word, c two words, the step-1 overflow in
        // word W, T two words, T·r below x^m and in the digits below the
        // top one.
        assert!(!W.is_multiple_of(2) && M / 64 == W - 1 && !M.is_multiple_of(64));
        assert!(64 * W - M + deg < 128);
        assert!(M - 1 + deg < 64 * (W + 1));
        assert!(wide - M < 128);
        assert!(wide - M + deg < M);
        assert!(wide - M + deg < 64 || (wide - M + deg < 256 && 256 <= 64 * (W - 1)));
    }
    let top = (W - 1) / 2;
    let s = (M % 64) as i64;
    let (c, r, mask) = (
        V::splat(c_all as u64, (c_all >> 64) as u64),
        V::splat(R as u64, (R >> 64) as u64),
        V::splat((1u64 << s) - 1, 0),
    );
    // SAFETY: see above (SSE2).
    let (sr, sl) = unsafe { (_mm_cvtsi64_si128(s), _mm_cvtsi64_si128(64 - s)) };
    // Step 1: L (words below W: the top digit's high word cleared) plus
    // the terms landing at each word w ≤ W ([`landing`]).
    let mut acc = *d;
    acc[top] = d[top].low_word();
    for w in (0..W).step_by(2) {
        if let Some(x) = landing(d, w, high, c, two_words) {
            acc[w / 2] = xor(acc[w / 2], x);
        }
    }
    // The odd words' terms straddle digits: digit j gets the high word of
    // those at 2j − 1 and the low word of those at 2j + 1 in one `palignr`.
    let mut below = None;
    for (j, x) in acc.iter_mut().enumerate().take(top + 1) {
        let above = landing(d, 2 * j + 1, high, c, two_words);
        let t = match (above, below) {
            (Some(a), Some(b)) => Some(V::align8(a, b)),
            (Some(a), None) => Some(a.up8()),
            (None, Some(b)) => Some(b.down8()),
            (None, None) => None,
        };
        if let Some(t) = t {
            *x = xor(*x, t);
        }
        below = above;
    }
    // Step 2: T = bits M.. (the top digit shifted right by s across its
    // two words), T·r into the low words, the top word masked.
    let hi = acc[top];
    let t = xor(hi.shr(sr), hi.shl(sl).down8());
    if short {
        acc[0] = xor(acc[0], t.clmul::<0x00>(r));
    } else if (R >> 64).is_power_of_two() && R as u64 == 1 {
        // r = x^(64 + b) + 1: T + (T·x^b)·x^64, T·x^b a 128-bit shift
        // (below 2^128 by the bound).
        let b = (R >> 64).trailing_zeros() as i64;
        // SAFETY: see above (SSE2).
        let (nb, nr) = unsafe { (_mm_cvtsi64_si128(b), _mm_cvtsi64_si128(64 - b)) };
        let u = xor(t.shl(nb), t.shr(nr).up8());
        acc[0] = xor(acc[0], xor(t, u.up8()));
        acc[1] = xor(acc[1], u.down8());
    } else {
        let tr = Schoolbook::mul(&[t], &[r]).digits::<2>();
        acc[0] = xor(acc[0], tr[0]);
        acc[1] = xor(acc[1], tr[1]);
    }
    acc[top] = hi.and(mask);
    acc
}

/// `a²` mod x^M + R: word i's square (its PCLMULQDQ with itself) is
/// digit i of D.
#[inline(always)]
fn square<const W: usize, const M: usize, const R: u128>(a: &[u64; W]) -> [u64; W] {
    reduce::<W, M, R>(&square_digits(load(a)))
}

/// `a^(2^n)`: n squares, the element kept in digits between them (no
/// store and load a step).
#[inline(always)]
fn square_n<const W: usize, const M: usize, const R: u128>(a: &[u64; W], n: usize) -> [u64; W] {
    let mut x = load(a);
    for _ in 0..n {
        x = reduce_digits::<__m128i, W, M, R>(&square_digits(x));
    }
    store(&x)
}

/// The squares of the words of `x` (digits as [`load`] makes them): D's
/// digits.
#[inline(always)]
fn square_digits<V: Lanes, const W: usize>(x: [V; W]) -> [V; W] {
    let mut d = x;
    for (i, di) in d.iter_mut().enumerate() {
        *di = if i % 2 == 0 {
            x[i / 2].clmul::<0x00>(x[i / 2])
        } else {
            x[i / 2].clmul::<0x11>(x[i / 2])
        };
    }
    d
}

/// The 2W words of a product as W digits.
#[inline(always)]
fn digits<const W: usize, const W2: usize>(c: &[u64; W2]) -> [__m128i; W] {
    const { assert!(W2 == 2 * W) };
    load_digits::<W2, W>(c)
}

/// The 6-word product of two 3-word elements on digits: a = A0 + A1·x^128
/// with A0 = (a0, a1), A1 = (a2, 0); schoolbook, the terms summed by the
/// word they start at (X_i at word i), then the odd ones split across
/// digits (`pslldq`, `palignr`, `psrldq`). 9 PCLMULQDQ, the top terms
/// first (they feed the fold's first products).
#[inline(always)]
fn mul163(_: Clmul, a: &[u64; 3], b: &[u64; 3]) -> [__m128i; 3] {
    product163(load(a), load(b))
}

/// The square root's product at m = 163: `gf2x`'s 3-word kernel on xmm
/// lanes (schoolbook), as digits; [`mul163`] there, its factor √x·o's o
/// just computed in general registers, ran 50.5 cycles a chained square
/// root against 46.7.
#[inline(always)]
fn mul163_sqrt(t: Clmul, a: &[u64; 3], b: &[u64; 3]) -> [__m128i; 3] {
    let k = PclmulLane(t);
    digits(&k.words(k.mul3(&k.limbs(a), &k.limbs(b))))
}

/// [`mul163`] on digits.
#[inline(always)]
fn product163<V: Lanes>(a: [V; 3], b: [V; 3]) -> [V; 3] {
    let x4 = a[1].clmul::<0x00>(b[1]);
    let x3 = xor(a[0].clmul::<0x01>(b[1]), a[1].clmul::<0x10>(b[0]));
    let x2 = xor(
        a[0].clmul::<0x11>(b[0]),
        xor(a[0].clmul::<0x00>(b[1]), a[1].clmul::<0x00>(b[0])),
    );
    let x1 = xor(a[0].clmul::<0x01>(b[0]), a[0].clmul::<0x10>(b[0]));
    let x0 = a[0].clmul::<0x00>(b[0]);
    [
        xor(x0, x1.up8()),
        xor(x2, V::align8(x3, x1)),
        xor(x4, x3.down8()),
    ]
}

/// The 10-word product of two 5-word elements on digits: Karatsuba over
/// the two full digits, schoolbook leaves, the fifth word by
/// [`product_odd`].
#[inline(always)]
fn mul283(_: Clmul, a: &[u64; 5], b: &[u64; 5]) -> [__m128i; 5] {
    product_odd::<_, Halves<Schoolbook>, 5>(load(a), load(b))
}

/// The 18-word product of two 9-word elements on digits: two Karatsuba
/// levels over the four full digits, schoolbook leaves, the ninth word by
/// [`product_odd`].
#[inline(always)]
fn mul571(_: Clmul, a: &[u64; 9], b: &[u64; 9]) -> [__m128i; 9] {
    product_odd::<_, Halves<Halves<Schoolbook>>, 9>(load(a), load(b))
}

/// The 14-word product of two 7-word elements on digits: two Karatsuba
/// levels over four digits, the last one (a6, 0) as [`load`] leaves it
/// (its products by zero halves wasted: 9 of 36 PCLMULQDQ), schoolbook
/// leaves; digit 7 of the product is 0 (below 2^(2·409 − 1)).
#[inline(always)]
fn mul409(_: Clmul, a: &[u64; 7], b: &[u64; 7]) -> [__m128i; 7] {
    product409(load(a), load(b))
}

/// [`mul409`] on digits, lane-wise.
#[inline(always)]
fn product409<V: Lanes>(a: [V; 7], b: [V; 7]) -> [V; 7] {
    Halves::<Halves<Schoolbook>>::mul(&a[..4], &b[..4]).digits::<7>()
}

/// One field's `mul`, `square` and `sqrt` (the signatures of `xmm233.rs`,
/// which `fixed.rs` calls), in a module `$name`: W words, degree M, tail
/// R, the product's digits from `$product(t, a, b)` (and from
/// `$sqrt_product` in the square root, whose second factor was just
/// computed in general registers).
macro_rules! field_kernels {
    ($(#[$doc:meta])* $name:ident: W = $w:literal, M = $m:literal, R = $r:expr, $product:path, $sqrt_product:path, $lanes:path) => {
        $(#[$doc])*
        pub(super) mod $name {
            use super::*;

            /// `a·b`: the product's digits, then the fold.
            #[inline(always)]
            pub(in super::super) fn mul(t: Clmul, a: &[u64; $w], b: &[u64; $w]) -> [u64; $w] {
                reduce::<$w, $m, { $r }>(&$product(t, a, b))
            }

            /// `a²`.
            #[inline(always)]
            pub(in super::super) fn square(_: Clmul, a: &[u64; $w]) -> [u64; $w] {
                super::square::<$w, $m, { $r }>(a)
            }

            /// `a^(2^n)`.
            #[inline(always)]
            pub(in super::super) fn square_n(_: Clmul, a: &[u64; $w], n: usize) -> [u64; $w] {
                super::square_n::<$w, $m, { $r }>(a, n)
            }

            /// `out[i] = a[i]·b[i]` for the `V::LANES` elements, element i
            /// in lane i: the product of [`mul`] and its fold, lane-wise.
            #[inline(always)]
            pub(in super::super) fn mul_lanes<V: LoadLanes>(
                _: V::Token,
                a: &[&[u64; $w]],
                b: &[&[u64; $w]],
                out: &mut [&mut [u64; $w]],
            ) {
                let p = $lanes(load_lanes::<V, $w>(a), load_lanes::<V, $w>(b));
                store_lanes(&reduce_digits::<V, $w, $m, { $r }>(&p), out);
            }

            /// `out[i] = a[i]²` for the `V::LANES` elements.
            #[inline(always)]
            pub(in super::super) fn square_lanes<V: LoadLanes>(
                _: V::Token,
                a: &[&[u64; $w]],
                out: &mut [&mut [u64; $w]],
            ) {
                let d = square_digits(load_lanes::<V, $w>(a));
                store_lanes(&reduce_digits::<V, $w, $m, { $r }>(&d), out);
            }

            /// `√a` = e(x) + √x·o(x) for a = e(x²) + x·o(x²).
            #[inline(always)]
            pub(in super::super) fn sqrt(t: Clmul, a: &[u64; $w], sqrt_x: &[u64; $w]) -> [u64; $w] {
                let (e, o) = split_even_odd(a);
                let p = reduce::<$w, $m, { $r }>(&$sqrt_product(t, sqrt_x, &o));
                let mut out = e;
                for (x, y) in out.iter_mut().zip(p) {
                    *x ^= y;
                }
                out
            }
        }
    };
}

field_kernels!(
    /// GF(2^163): x^163 + x^7 + x^6 + x^3 + 1, the schoolbook product on
    /// digits ([`mul163`]).
    xmm163: W = 3, M = 163, R = 0xc9, mul163, mul163_sqrt, product163
);
field_kernels!(
    /// GF(2^283): x^283 + x^12 + x^7 + x^5 + 1, the digit product
    /// [`mul283`].
    xmm283: W = 5, M = 283, R = 0x10a1, mul283, mul283, product_odd::<_, Halves<Schoolbook>, 5>
);
field_kernels!(
    /// GF(2^409): x^409 + x^87 + 1, the digit product [`mul409`]; its c =
    /// x^126 + x^39 two words, T two words.
    xmm409: W = 7, M = 409, R = (1 << 87) | 1, mul409, mul409, product409
);
field_kernels!(
    /// GF(2^571): x^571 + x^10 + x^5 + x^2 + 1, the digit product
    /// [`mul571`].
    xmm571: W = 9, M = 571, R = 0x425, mul571, mul571, product_odd::<_, Halves<Halves<Schoolbook>>, 9>
);

#[cfg(test)]
pub(super) mod tests {
    use super::super::lanes::LoadLanes;
    use super::super::words::reduce_sparse;
    use crate::gf2x::mul_fixed;
    use core::arch::x86_64::{__m128i, __m256i, __m512i};
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    /// Random and edge elements of W words below 2^m: 0, 1, all ones,
    /// x^(m−1), and xorshift values.
    pub(in crate::gf2m) fn inputs<const W: usize>(m: usize) -> Vec<[u64; W]> {
        let top = (1u64 << (m % 64)) - 1;
        let mut all = [u64::MAX; W];
        all[W - 1] = top;
        let mut high = [0u64; W];
        high[W - 1] = 1 << (m % 64 - 1);
        let mut one = [0u64; W];
        one[0] = 1;
        let mut v = vec![[0; W], one, all, high];
        let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ m as u64;
        for _ in 0..300 {
            let mut a = [0u64; W];
            for w in &mut a {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                *w = s;
            }
            a[W - 1] &= top;
            v.push(a);
        }
        v
    }

    macro_rules! field_test {
        ($test:ident, $module:ident, $w:literal, $m:literal, $terms:expr) => {
            #[test]
            fn $test() {
                let Some(t) = crate::cpu::Clmul::get() else {
                    return;
                };
                let xs = inputs::<$w>($m);
                for (i, a) in xs.iter().enumerate() {
                    // Every input against the next 8, and itself.
                    for b in xs.iter().cycle().skip(i).take(9) {
                        let want = reduce_sparse::<$w, { 2 * $w }>(mul_fixed(a, b), $m, $terms);
                        assert_eq!(super::$module::mul(t, a, b), want, "{a:x?} {b:x?}");
                    }
                    let sq = reduce_sparse::<$w, { 2 * $w }>(mul_fixed(a, a), $m, $terms);
                    assert_eq!(super::$module::square(t, a), sq, "{a:x?}");
                    let sq2 = reduce_sparse::<$w, { 2 * $w }>(mul_fixed(&sq, &sq), $m, $terms);
                    assert_eq!(super::$module::square_n(t, a, 2), sq2, "{a:x?}");
                    assert_eq!(super::$module::square_n(t, a, 0), *a, "{a:x?}");
                    // √a by the field's √x: its square is a.
                    let sqrt_x = super::super::words::sqrt_x::<$w, { 2 * $w }>($m, $terms);
                    let r = super::$module::sqrt(t, a, &sqrt_x);
                    assert_eq!(super::$module::square(t, &r), *a, "√{a:x?}");
                }
                // The lane-wise kernels on ymm and zmm, element i in lane i,
                // against the one-element kernel.
                fn lanes<V: LoadLanes>(v: V::Token, t: crate::cpu::Clmul, xs: &[[u64; $w]]) {
                    let n = V::LANES;
                    for w in xs.windows(2 * n).step_by(3) {
                        let (a, b) = w.split_at(n);
                        let (ar, br): (Vec<&[u64; $w]>, Vec<&[u64; $w]>) =
                            (a.iter().collect(), b.iter().collect());
                        let mut out = vec![[0u64; $w]; n];
                        let mut refs: Vec<&mut [u64; $w]> = out.iter_mut().collect();
                        super::$module::mul_lanes::<V>(v, &ar, &br, &mut refs);
                        for i in 0..n {
                            assert_eq!(out[i], super::$module::mul(t, &a[i], &b[i]), "lane {i}/{n}");
                        }
                        let mut refs: Vec<&mut [u64; $w]> = out.iter_mut().collect();
                        super::$module::square_lanes::<V>(v, &ar, &mut refs);
                        for i in 0..n {
                            assert_eq!(out[i], super::$module::square(t, &a[i]), "lane {i}/{n}");
                        }
                    }
                }
                lanes::<__m128i>(t, t, &xs);
                if let Some(v) = crate::cpu::Avx2Clmul::get() {
                    lanes::<__m256i>(v, t, &xs);
                }
                if let Some(v) = crate::cpu::Avx512Clmul::get() {
                    lanes::<__m512i>(v, t, &xs);
                }
            }
        };
    }
    field_test!(f163_against_words, xmm163, 3, 163, &[7, 6, 3, 0]);
    field_test!(f283_against_words, xmm283, 5, 283, &[12, 7, 5, 0]);
    field_test!(f409_against_words, xmm409, 7, 409, &[87, 0]);
    field_test!(f571_against_words, xmm571, 9, 571, &[10, 5, 2, 0]);
}
