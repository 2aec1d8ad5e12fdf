//! Polynomials on 128-bit digits (two words an xmm lane, as loaded), for
//! the products whose `pclmulqdq` immediate picks the words: the lane
//! vocabulary [`Lanes`] (one element on xmm, two on ymm, four on zmm, the
//! same code), products split by word parity ([`Split`]), and the digit
//! products over it — [`Schoolbook`] leaves, two- and three-way Karatsuba
//! on digits ([`Halves`], [`Thirds`]), an odd last word ([`product_odd`]).
//! `gf2m`'s fold fields (`xmmfold.rs`) and `gf2x`'s small products on
//! Intel (`clmul::digit_karatsuba`) are written with them.
//!
//! Every operation of [`Lanes`] is lane-wise on the x86 vector units:
//! `pclmulqdq`'s immediate picks the same words in each lane, and the byte
//! shifts, `palignr` and `punpcklqdq` work within lanes; the 64-bit shifts
//! and the logic are element-wise. A kernel written once over [`Lanes`]
//! computes in lane i what the xmm kernel computes for lane i's inputs.
//!
//! Operation counts (digit products, each leaf 4 `pclmulqdq` and 1 XOR):
//!
//! | digits | schoolbook | [`Halves`] | [`Thirds`] |
//! |---|---|---|---|
//! | 2 | 4 leaves | 3 leaves, 2 operand sums | – |
//! | 3 | 9 leaves | – | 6 leaves, 6 operand sums |
//! | 4 | 16 leaves | 9 leaves | – |
#![allow(unsafe_code)]
// Digit indices are compile-time functions of the sizes and of loop
// counters below them, not of input.
#![allow(clippy::indexing_slicing)]

use crate::vex256::_mm256_clmulepi64_epi128;
use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _MM_PERM_BADC, _mm_alignr_epi8, _mm_and_si128, _mm_clmulepi64_si128,
    _mm_loadl_epi64, _mm_loadu_si128, _mm_move_epi64, _mm_set_epi64x, _mm_setzero_si128,
    _mm_shuffle_epi32, _mm_sll_epi64, _mm_slli_si128, _mm_srl_epi64, _mm_srli_si128,
    _mm_storel_epi64, _mm_storeu_si128, _mm_unpacklo_epi64, _mm_xor_si128, _mm256_alignr_epi8,
    _mm256_and_si256, _mm256_blend_epi32, _mm256_set_epi64x, _mm256_setzero_si256,
    _mm256_shuffle_epi32, _mm256_sll_epi64, _mm256_slli_si256, _mm256_srl_epi64, _mm256_srli_si256,
    _mm256_unpacklo_epi64, _mm256_xor_si256, _mm512_alignr_epi8, _mm512_and_si512,
    _mm512_bslli_epi128, _mm512_bsrli_epi128, _mm512_clmulepi64_epi128, _mm512_maskz_mov_epi64,
    _mm512_set_epi64, _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_sll_epi64,
    _mm512_srl_epi64, _mm512_unpacklo_epi64, _mm512_xor_si512,
};
use core::marker::PhantomData;

// SAFETY (every `unsafe` block below): values of these types are made and
// used only inside kernels whose entries take the token of their width
// (`Clmul`: PCLMULQDQ and SSE4.1; `Avx2Clmul`: VPCLMULQDQ and AVX2 as
// well; `Avx512Clmul`: VPCLMULQDQ, AVX512F and AVX512BW as well) and are
// `inline(always)` into `#[target_feature]` functions. Memory is touched
// only by [`load_digit`] and [`store_digit`], whose bounds are checked
// there.

/// Digit j of the words `x` (words 2j, 2j + 1): 16 bytes at word 2j, 8
/// when 2j is the last word (the high half 0), zero past the end. The
/// bounds are compile-time constants in the unrolled callers, so the tests
/// fold away. Loaded as the results are stored, so a 16-byte store of the
/// previous product forwards; building digits from words
/// (`_mm_set_epi64x`) made LLVM emit `movq`/`pinsrq` pairs (F163 mul
/// 19.9 → 25.1 cycles).
#[inline(always)]
pub(crate) fn load_digit<const W: usize>(x: &[u64; W], j: usize) -> __m128i {
    let p = x.as_ptr().wrapping_add(2 * j).cast::<__m128i>();
    // SAFETY: 16 bytes at word 2j only when 2j + 1 < W, 8 only when
    // 2j < W: inside `x`; unaligned loads; SSE2 is in the x86-64 baseline.
    unsafe {
        if 2 * j + 1 < W {
            _mm_loadu_si128(p)
        } else if 2 * j < W {
            _mm_loadl_epi64(p)
        } else {
            _mm_setzero_si128()
        }
    }
}

/// [`load_digit`]'s store: 16 bytes, 8 for a last odd word, nothing past
/// the end.
#[inline(always)]
pub(crate) fn store_digit<const W: usize>(d: __m128i, out: &mut [u64; W], j: usize) {
    let p = out.as_mut_ptr().wrapping_add(2 * j).cast::<__m128i>();
    // SAFETY: as in `load_digit`.
    unsafe {
        if 2 * j + 1 < W {
            _mm_storeu_si128(p, d)
        } else if 2 * j < W {
            _mm_storel_epi64(p, d)
        }
    }
}

/// The digits `d` into the words `out` ([`store_digit`] each: digits
/// past the end store nothing).
#[inline(always)]
pub(crate) fn store_digits<const W: usize, const D: usize>(d: &[__m128i; D], out: &mut [u64; W]) {
    for (j, &x) in d.iter().enumerate() {
        store_digit(x, out, j);
    }
}

/// The words `x` as D digits ([`load_digit`] each; zero past the end).
#[inline(always)]
pub(crate) fn load_digits<const W: usize, const D: usize>(x: &[u64; W]) -> [__m128i; D] {
    let mut d = [<__m128i as Lanes>::zero(); D];
    for (j, v) in d.iter_mut().enumerate() {
        *v = load_digit(x, j);
    }
    d
}

#[inline(always)]
fn xor<V: Lanes>(a: V, b: V) -> V {
    a.xor(b)
}

/// A vector of 128-bit lanes (xmm: one, ymm: two, zmm: four), lane-wise.
pub(crate) trait Lanes: Copy {
    /// Elements (lanes) per register.
    const LANES: usize;
    /// All bits 0.
    fn zero() -> Self;
    fn xor(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    /// The product of the words `IMM` selects in each lane (bit 0: `self`'s
    /// high word, bit 4: `b`'s), as `pclmulqdq`.
    fn clmul<const IMM: i32>(self, b: Self) -> Self;
    /// Each lane's two words exchanged.
    fn swap(self) -> Self;
    /// Each lane shifted up one word (`pslldq 8`).
    fn up8(self) -> Self;
    /// Each lane shifted down one word (`psrldq 8`).
    fn down8(self) -> Self;
    /// Each lane the middle 16 bytes of (`hi`'s lane, `lo`'s lane):
    /// `lo`'s high word low, `hi`'s low word high (`palignr 8`).
    fn align8(hi: Self, lo: Self) -> Self;
    /// Each lane's high word cleared (`movq`).
    fn low_word(self) -> Self;
    /// Each lane's low word in both words (`punpcklqdq x, x`).
    fn dup_low(self) -> Self;
    /// Each 64-bit word shifted left by the count in `n`'s low word.
    fn shl(self, n: __m128i) -> Self;
    /// Each 64-bit word shifted right by the count in `n`'s low word.
    fn shr(self, n: __m128i) -> Self;
    /// Every lane (`lo`, `hi`).
    fn splat(lo: u64, hi: u64) -> Self;
}

impl Lanes for __m128i {
    const LANES: usize = 1;
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see above.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    fn xor(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_xor_si128(self, b) }
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_and_si128(self, b) }
    }
    #[inline(always)]
    fn clmul<const IMM: i32>(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_clmulepi64_si128::<IMM>(self, b) }
    }
    #[inline(always)]
    fn swap(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_shuffle_epi32::<0x4e>(self) }
    }
    #[inline(always)]
    fn up8(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_slli_si128::<8>(self) }
    }
    #[inline(always)]
    fn down8(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_srli_si128::<8>(self) }
    }
    #[inline(always)]
    fn align8(hi: Self, lo: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_alignr_epi8::<8>(hi, lo) }
    }
    #[inline(always)]
    fn low_word(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_move_epi64(self) }
    }
    #[inline(always)]
    fn dup_low(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm_unpacklo_epi64(self, self) }
    }
    #[inline(always)]
    fn shl(self, n: __m128i) -> Self {
        // SAFETY: see above.
        unsafe { _mm_sll_epi64(self, n) }
    }
    #[inline(always)]
    fn shr(self, n: __m128i) -> Self {
        // SAFETY: see above.
        unsafe { _mm_srl_epi64(self, n) }
    }
    #[inline(always)]
    fn splat(lo: u64, hi: u64) -> Self {
        // SAFETY: see above.
        unsafe { _mm_set_epi64x(hi as i64, lo as i64) }
    }
}

impl Lanes for __m256i {
    const LANES: usize = 2;
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see above.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    fn xor(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_xor_si256(self, b) }
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_and_si256(self, b) }
    }
    #[inline(always)]
    fn clmul<const IMM: i32>(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_clmulepi64_epi128::<IMM>(self, b) }
    }
    #[inline(always)]
    fn swap(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_shuffle_epi32::<0x4e>(self) }
    }
    #[inline(always)]
    fn up8(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_slli_si256::<8>(self) }
    }
    #[inline(always)]
    fn down8(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_srli_si256::<8>(self) }
    }
    #[inline(always)]
    fn align8(hi: Self, lo: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_alignr_epi8::<8>(hi, lo) }
    }
    #[inline(always)]
    fn low_word(self) -> Self {
        // SAFETY: see above. Dwords 0, 1 of each lane kept, 2, 3 from 0.
        unsafe { _mm256_blend_epi32::<0x33>(_mm256_setzero_si256(), self) }
    }
    #[inline(always)]
    fn dup_low(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_unpacklo_epi64(self, self) }
    }
    #[inline(always)]
    fn shl(self, n: __m128i) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_sll_epi64(self, n) }
    }
    #[inline(always)]
    fn shr(self, n: __m128i) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_srl_epi64(self, n) }
    }
    #[inline(always)]
    fn splat(lo: u64, hi: u64) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_set_epi64x(hi as i64, lo as i64, hi as i64, lo as i64) }
    }
}

impl Lanes for __m512i {
    const LANES: usize = 4;
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: see above.
        unsafe { _mm512_setzero_si512() }
    }
    #[inline(always)]
    fn xor(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_xor_si512(self, b) }
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_and_si512(self, b) }
    }
    #[inline(always)]
    fn clmul<const IMM: i32>(self, b: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_clmulepi64_epi128::<IMM>(self, b) }
    }
    #[inline(always)]
    fn swap(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_shuffle_epi32::<_MM_PERM_BADC>(self) }
    }
    #[inline(always)]
    fn up8(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_bslli_epi128::<8>(self) }
    }
    #[inline(always)]
    fn down8(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_bsrli_epi128::<8>(self) }
    }
    #[inline(always)]
    fn align8(hi: Self, lo: Self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_alignr_epi8::<8>(hi, lo) }
    }
    #[inline(always)]
    fn low_word(self) -> Self {
        // SAFETY: see above. Words 0, 2, 4, 6 kept.
        unsafe { _mm512_maskz_mov_epi64(0x55, self) }
    }
    #[inline(always)]
    fn dup_low(self) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_unpacklo_epi64(self, self) }
    }
    #[inline(always)]
    fn shl(self, n: __m128i) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_sll_epi64(self, n) }
    }
    #[inline(always)]
    fn shr(self, n: __m128i) -> Self {
        // SAFETY: see above.
        unsafe { _mm512_srl_epi64(self, n) }
    }
    #[inline(always)]
    fn splat(lo: u64, hi: u64) -> Self {
        let (lo, hi) = (lo as i64, hi as i64);
        // SAFETY: see above.
        unsafe { _mm512_set_epi64(hi, lo, hi, lo, hi, lo, hi, lo) }
    }
}

/// Capacity of a [`Split`]: F571's 18-word product is 9 digits.
pub(crate) const CAP: usize = 9;

/// A product split by word parity: `e[j]` is the sum of the 128-bit terms
/// at word 2j (digit j), `o[j]` of those at word 2j + 1 (straddling digits
/// j and j + 1). Summed apart, the straddling terms are shifted into the
/// digits once, at the end ([`Split::digits`]).
#[derive(Clone, Copy)]
pub(crate) struct Split<V> {
    pub(crate) e: [V; CAP],
    pub(crate) o: [V; CAP],
}

impl<V: Lanes> Split<V> {
    /// Both halves 0.
    #[inline(always)]
    pub(crate) fn zero() -> Self {
        let z = V::zero();
        Self {
            e: [z; CAP],
            o: [z; CAP],
        }
    }

    /// The first W digits: digit j = e\[j\] + (o\[j\]·x^64 + o\[j − 1\]/x^64
    /// mod x^128), one `pslldq` or `palignr` each.
    #[inline(always)]
    // j indexes e and o at j and j − 1.
    #[allow(clippy::needless_range_loop)]
    pub(crate) fn digits<const W: usize>(&self) -> [V; W] {
        const { assert!(W <= CAP) };
        let mut d = self.e;
        d[0] = xor(d[0], self.o[0].up8());
        for j in 1..W {
            d[j] = xor(d[j], V::align8(self.o[j], self.o[j - 1]));
        }
        let mut out = [d[0]; W];
        out.copy_from_slice(&d[..W]);
        out
    }
}

/// A product of two N-digit polynomials (`a`, `b`: N digits each) as a
/// [`Split`] of 2N digits: the leaf ([`Schoolbook`]) and the digit-level
/// Karatsuba step over it ([`Halves`]).
pub(crate) trait DigitProduct {
    /// Digits of each factor.
    const N: usize;
    /// `a·b`, lane-wise.
    fn mul<V: Lanes>(a: &[V], b: &[V]) -> Split<V>;
}

/// One digit by one: the four word products (4 PCLMULQDQ, 1 XOR).
pub(crate) struct Schoolbook;

impl DigitProduct for Schoolbook {
    const N: usize = 1;
    #[inline(always)]
    fn mul<V: Lanes>(a: &[V], b: &[V]) -> Split<V> {
        let (a, b) = (a[0], b[0]);
        let mut s = Split::zero();
        s.e[0] = a.clmul::<0x00>(b);
        s.e[1] = a.clmul::<0x11>(b);
        s.o[0] = xor(a.clmul::<0x01>(b), a.clmul::<0x10>(b));
        s
    }
}

/// One digit by one with Karatsuba on its words: a_l·b_l, a_h·b_h and
/// (a_l + a_h)(b_l + b_h) less the two (3 PCLMULQDQ, where [`Schoolbook`]
/// takes 4; the operand folds are `pshufd` and XOR, off the multiplier's
/// port on Intel).
pub(crate) struct KaratsubaLeaf;

impl DigitProduct for KaratsubaLeaf {
    const N: usize = 1;
    #[inline(always)]
    fn mul<V: Lanes>(a: &[V], b: &[V]) -> Split<V> {
        let (a, b) = (a[0], b[0]);
        let mut s = Split::zero();
        let lo = a.clmul::<0x00>(b);
        let hi = a.clmul::<0x11>(b);
        let mid = xor(a, a.swap()).clmul::<0x00>(xor(b, b.swap()));
        s.e[0] = lo;
        s.e[1] = hi;
        s.o[0] = xor(mid, xor(lo, hi));
        s
    }
}

/// 2N digits by 2N from three N-digit products (Karatsuba over the halves
/// A = A0 + A1·X^N: A0B0, A1B1 and (A0 + A1)(B0 + B1) − A0B0 − A1B1 at
/// X^N); the halves' XORs are digit-wide.
pub(crate) struct Halves<T>(PhantomData<T>);

impl<T: DigitProduct> DigitProduct for Halves<T> {
    const N: usize = 2 * T::N;
    #[inline(always)]
    fn mul<V: Lanes>(a: &[V], b: &[V]) -> Split<V> {
        let h = T::N;
        let lo = T::mul(&a[..h], &b[..h]);
        let hi = T::mul(&a[h..2 * h], &b[h..2 * h]);
        let mut sa = [a[0]; CAP];
        let mut sb = [b[0]; CAP];
        for i in 0..h {
            sa[i] = xor(a[i], a[h + i]);
            sb[i] = xor(b[i], b[h + i]);
        }
        let mid = T::mul(&sa[..h], &sb[..h]);
        let mut s = Split::zero();
        for i in 0..2 * h {
            s.e[i] = lo.e[i];
            s.o[i] = lo.o[i];
            s.e[2 * h + i] = hi.e[i];
            s.o[2 * h + i] = hi.o[i];
        }
        for i in 0..2 * h {
            s.e[h + i] = xor(s.e[h + i], xor(mid.e[i], xor(lo.e[i], hi.e[i])));
        }
        for i in 0..2 * h - 1 {
            s.o[h + i] = xor(s.o[h + i], xor(mid.o[i], xor(lo.o[i], hi.o[i])));
        }
        s
    }
}

/// Part `i` of `h` digits of `x`, the rest of the array don't-care.
/// (Functions, not closures: a closure would not inherit the caller's
/// target features, and its intrinsics would not inline.)
#[inline(always)]
fn part<V: Lanes>(x: &[V], i: usize, h: usize) -> [V; CAP] {
    let mut p = [x[0]; CAP];
    p[..h].copy_from_slice(&x[i * h..(i + 1) * h]);
    p
}

/// Parts `i` and `j` of `h` digits of `x` added.
#[inline(always)]
fn sum<V: Lanes>(x: &[V], i: usize, j: usize, h: usize) -> [V; CAP] {
    let mut p = [x[0]; CAP];
    for k in 0..h {
        p[k] = xor(x[i * h + k], x[j * h + k]);
    }
    p
}

/// 3N digits by 3N from six N-digit products (Karatsuba's three-way
/// split, A = A0 + A1·X + A2·X² with X = x^(128N): A0B0, A1B1, A2B2 and
/// (Ai + Aj)(Bi + Bj) for i < j; the term at X^k is the sum of the
/// products whose indices add to k, each cross term (Ai + Aj)(Bi + Bj) −
/// AiBi − AjBj). Six products where the schoolbook takes nine; six
/// operand sums, 12 product sums a component.
pub(crate) struct Thirds<T>(PhantomData<T>);

impl<T: DigitProduct> DigitProduct for Thirds<T> {
    const N: usize = 3 * T::N;
    #[inline(always)]
    fn mul<V: Lanes>(a: &[V], b: &[V]) -> Split<V> {
        let h = T::N;
        let (a0, a1, a2) = (part(a, 0, h), part(a, 1, h), part(a, 2, h));
        let (b0, b1, b2) = (part(b, 0, h), part(b, 1, h), part(b, 2, h));
        let p0 = T::mul(&a0[..h], &b0[..h]);
        let p1 = T::mul(&a1[..h], &b1[..h]);
        let p2 = T::mul(&a2[..h], &b2[..h]);
        let p01 = T::mul(&sum(a, 0, 1, h)[..h], &sum(b, 0, 1, h)[..h]);
        let p02 = T::mul(&sum(a, 0, 2, h)[..h], &sum(b, 0, 2, h)[..h]);
        let p12 = T::mul(&sum(a, 1, 2, h)[..h], &sum(b, 1, 2, h)[..h]);
        // X^0: p0; X^1: p01 + p0 + p1; X^2: p02 + p0 + p2 + p1;
        // X^3: p12 + p1 + p2; X^4: p2.
        let mut s = Split::zero();
        for i in 0..2 * h {
            let (q0, q1, q2) = (xor(p0.e[i], p1.e[i]), xor(p1.e[i], p2.e[i]), p0.e[i]);
            s.e[i] = xor(s.e[i], p0.e[i]);
            s.e[h + i] = xor(s.e[h + i], xor(p01.e[i], q0));
            s.e[2 * h + i] = xor(s.e[2 * h + i], xor(p02.e[i], xor(q2, q1)));
            s.e[3 * h + i] = xor(s.e[3 * h + i], xor(p12.e[i], q1));
            s.e[4 * h + i] = xor(s.e[4 * h + i], p2.e[i]);
        }
        for i in 0..2 * h - 1 {
            let (q0, q1, q2) = (xor(p0.o[i], p1.o[i]), xor(p1.o[i], p2.o[i]), p0.o[i]);
            s.o[i] = xor(s.o[i], p0.o[i]);
            s.o[h + i] = xor(s.o[h + i], xor(p01.o[i], q0));
            s.o[2 * h + i] = xor(s.o[2 * h + i], xor(p02.o[i], xor(q2, q1)));
            s.o[3 * h + i] = xor(s.o[3 * h + i], xor(p12.o[i], q1));
            s.o[4 * h + i] = xor(s.o[4 * h + i], p2.o[i]);
        }
        s
    }
}

/// The 2W-word product of two W-word elements (W = 2N + 1: N full digits
/// and a last one-word digit t, as `gf2m`'s loads leave them) as W digits:
/// `T` on the full digits, then the terms of t at word i + 2N by
/// a_i·b_t + a_t·b_i = (a_i + a_t)(b_i + b_t) + a_i·b_i + a_t·b_t (one
/// PCLMULQDQ a word instead of two: a_i·b_i is `T`'s own leaf product,
/// which LLVM shares), and a_t·b_t at word 4N.
#[inline(always)]
pub(crate) fn product_odd<V: Lanes, T: DigitProduct, const W: usize>(
    a: [V; W],
    b: [V; W],
) -> [V; W] {
    const { assert!(W == 2 * T::N + 1 && W <= CAP) };
    let n = T::N;
    let mut s = T::mul(&a[..n], &b[..n]);
    let at = a[n].dup_low();
    let bt = b[n].dup_low();
    let tt = a[n].clmul::<0x00>(b[n]);
    for p in 0..n {
        let (sa, sb) = (xor(a[p], at), xor(b[p], bt));
        let lo = xor(sa.clmul::<0x00>(sb), a[p].clmul::<0x00>(b[p]));
        let hi = xor(sa.clmul::<0x11>(sb), a[p].clmul::<0x11>(b[p]));
        s.e[n + p] = xor(s.e[n + p], xor(lo, tt));
        s.o[n + p] = xor(s.o[n + p], xor(hi, tt));
    }
    s.e[2 * n] = xor(s.e[2 * n], tt);
    s.digits::<W>()
}
