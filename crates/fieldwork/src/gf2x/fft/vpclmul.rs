//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `vpclmulqdq`, `pclmulqdq`, `sse4.1` — capability token [`Avx512Clmul`].
//!
//! # Eight field products on zmm
//!
//! `vpclmulqdq` multiplies one 64-bit half of each 128-bit lane of its two
//! sources; with the twiddles `t` (broadcast, or one per value) in the
//! second source, immediate `0x00` gives the products of the even values and
//! `0x11` those of the odd ones, 128 bits each. `vpunpcklqdq` /
//! `vpunpckhqdq` of the two gather the low words `L` and the high words `H`
//! of all eight products in natural order, and the reduction of
//! [`super::field::reduce`] is two right shifts, three left shifts and three
//! three-way XORs (`vpternlogq`):
//!
//! ```text
//! U = H ^ H>>61 ^ H>>60;   x·t = L ^ U ^ U<<1 ^ U<<3 ^ U<<4
//! ```
//!
//! A forward butterfly on eight pairs (`D0 += t·D1; D1 += D0`) is 2
//! `vpclmulqdq` + 2 unpacks (port 5 on this core), 5 shifts (port 0) and 5
//! XOR / ternary-logic operations: 14 vector instructions, plus two loads and
//! two stores, for eight butterflies. (A reduction by a second and third
//! carry-less multiply by `0x1b` would put 4 more instructions on port 5,
//! which the products and unpacks already load.)
//!
//! # Passes
//!
//! Levels with halves of at least 8 values take whole registers as `D0` and
//! `D1` with one broadcast twiddle; up to three levels are fused (radix 8:
//! eight registers loaded, twelve butterflies, eight stored; seven
//! twiddles). The three lowest levels (halves of 4, 2 and 1 values) run on
//! 16 values in two registers: gathered with `vshufi64x2` so that `D0`/`D1`
//! are whole registers for level 2, regathered with `vpermt2q` for level 1
//! and with `vpunpck{l,h}qdq` for level 0, and put back in natural order with
//! two more `vpermt2q` — 8 shuffles for 24 butterflies, twiddle vectors from
//! one broadcast XOR a constant vector per level.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::FftKernel;
use super::clmul::ClmulMul;
use super::field::{CANTOR, span};
use super::levels;
use crate::cpu::Avx512Clmul;
use core::arch::x86_64::{
    __m512i, _mm512_clmulepi64_epi128, _mm512_loadu_si512, _mm512_permutex2var_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_shuffle_i64x2, _mm512_slli_epi64,
    _mm512_srli_epi64, _mm512_storeu_si512, _mm512_ternarylogic_epi64, _mm512_unpackhi_epi64,
    _mm512_unpacklo_epi64, _mm512_xor_si512,
};

/// `span(k)` at compile time.
const fn span_const(k: usize) -> u64 {
    let mut acc = 0;
    let mut i = 0;
    while i < usize::BITS as usize {
        if (k >> i) & 1 == 1 {
            acc ^= CANTOR[i];
        }
        i += 1;
    }
    acc
}

/// The per-lane part of the bottom levels' twiddles (see
/// [`bottom_forward`]): level 2 `[0 ×4, span(2) ×4]`, level 1
/// `span(2·⌊lane/2⌋)`, level 0 `span(2·lane)`.
const BOTTOM_TWIDDLES: [[u64; 8]; 3] = {
    let mut t = [[0u64; 8]; 3];
    let mut lane = 0;
    while lane < 8 {
        t[0][lane] = span_const(2 * lane);
        t[1][lane] = span_const(2 * (lane / 2));
        t[2][lane] = if lane >= 4 { span_const(2) } else { 0 };
        lane += 1;
    }
    t
};

/// Index vectors for `vpermt2q` (0–7 the first source, 8–15 the second).
const GATHER_LEVEL1_LO: [u64; 8] = [0, 1, 8, 9, 4, 5, 12, 13];
const GATHER_LEVEL1_HI: [u64; 8] = [2, 3, 10, 11, 6, 7, 14, 15];
const INTERLEAVE_LO: [u64; 8] = [0, 8, 1, 9, 2, 10, 3, 11];
const INTERLEAVE_HI: [u64; 8] = [4, 12, 5, 13, 6, 14, 7, 15];
const EVENS: [u64; 8] = [0, 2, 4, 6, 8, 10, 12, 14];
const ODDS: [u64; 8] = [1, 3, 5, 7, 9, 11, 13, 15];

/// The VPCLMULQDQ FFT kernels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ZmmFft(pub(crate) Avx512Clmul);

impl FftKernel for ZmmFft {
    fn forward(self, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
        // SAFETY: the token proves every feature `tf::forward` enables.
        unsafe { tf::forward(self.0, data, pos, hi, lo) }
    }

    fn inverse(self, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
        // SAFETY: the token proves every feature `tf::inverse` enables.
        unsafe { tf::inverse(self.0, data, pos, lo, hi) }
    }

    fn pointwise(self, a: &mut [u64], b: &[u64]) {
        // SAFETY: the token proves every feature `tf::pointwise` enables.
        unsafe { tf::pointwise(self.0, a, b) }
    }

    fn monomial_to_novel(self, data: &mut [u64], hi: u32, lo: u32) {
        // SAFETY: the token proves every feature `tf::to_novel` enables.
        unsafe { tf::to_novel(self.0, data, hi, lo) }
    }

    fn novel_to_monomial(self, data: &mut [u64], lo: u32, hi: u32) {
        // SAFETY: the token proves every feature `tf::from_novel` enables.
        unsafe { tf::from_novel(self.0, data, lo, hi) }
    }
}

/// Loads a constant vector.
///
/// # Safety
///
/// Needs AVX-512F.
#[inline(always)]
unsafe fn constant(v: &[u64; 8]) -> __m512i {
    // SAFETY: AVX-512F per the caller; `v` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// Eight field products `x[i]·t[i]` (module docs).
///
/// # Safety
///
/// Needs AVX-512F and VPCLMULQDQ.
#[inline(always)]
unsafe fn mul8(x: __m512i, t: __m512i) -> __m512i {
    // SAFETY: AVX-512F and VPCLMULQDQ per the caller; no memory access.
    unsafe {
        let even = _mm512_clmulepi64_epi128::<0x00>(x, t);
        let odd = _mm512_clmulepi64_epi128::<0x11>(x, t);
        let l = _mm512_unpacklo_epi64(even, odd);
        let h = _mm512_unpackhi_epi64(even, odd);
        let u = _mm512_ternarylogic_epi64::<0x96>(
            h,
            _mm512_srli_epi64::<61>(h),
            _mm512_srli_epi64::<60>(h),
        );
        let r = _mm512_ternarylogic_epi64::<0x96>(l, u, _mm512_slli_epi64::<1>(u));
        _mm512_ternarylogic_epi64::<0x96>(r, _mm512_slli_epi64::<3>(u), _mm512_slli_epi64::<4>(u))
    }
}

/// Forward butterfly on eight pairs: `(d0 + t·d1, d1 + d0 + t·d1)`.
///
/// # Safety
///
/// Needs AVX-512F and VPCLMULQDQ.
#[inline(always)]
unsafe fn butterfly(d0: __m512i, d1: __m512i, t: __m512i) -> (__m512i, __m512i) {
    // SAFETY: as the caller's.
    unsafe {
        let d0 = _mm512_xor_si512(d0, mul8(d1, t));
        (d0, _mm512_xor_si512(d1, d0))
    }
}

/// Inverse butterfly on eight pairs.
///
/// # Safety
///
/// Needs AVX-512F and VPCLMULQDQ.
#[inline(always)]
unsafe fn inverse_butterfly(d0: __m512i, d1: __m512i, t: __m512i) -> (__m512i, __m512i) {
    // SAFETY: as the caller's.
    unsafe {
        let d1 = _mm512_xor_si512(d1, d0);
        (_mm512_xor_si512(d0, mul8(d1, t)), d1)
    }
}

/// The `2^G − 1` broadcast twiddles of one block of `2^(top+1)` values at
/// point index `q`: level `top − g` for `g < G`, sub-block `s < 2^g` at index
/// `2^g − 1 + s`.
///
/// # Safety
///
/// Needs AVX-512F.
#[inline(always)]
unsafe fn block_twiddles<const G: usize>(q: u64, top: u32) -> [__m512i; 7] {
    let block = 2u64 << top;
    // SAFETY: AVX-512F per the caller; no memory access.
    unsafe {
        let mut tw = [_mm512_setzero_si512(); 7];
        for g in 0..G {
            for s in 0..(1usize << g) {
                let start = q + s as u64 * (block >> g);
                tw[(1 << g) - 1 + s] = _mm512_set1_epi64(span(start >> (top - g as u32)) as i64);
            }
        }
        tw
    }
}

/// `G` fused levels `top, …, top − G + 1` (all at least 3) on every block
/// of `data`: forward butterflies from the top level down, or with
/// `INVERSE` the inverse butterflies from the lowest level up.
///
/// # Safety
///
/// Needs AVX-512F and VPCLMULQDQ; `top + 1 ≥ G + 3`.
#[inline(always)]
unsafe fn radix<const G: usize, const INVERSE: bool>(data: &mut [u64], pos: u64, top: u32) {
    let block = 2usize << top;
    let h = block >> G; // the lowest level's half: a multiple of 8
    let n = 1usize << G;
    debug_assert!(h >= 8 && data.len().is_multiple_of(block));
    for (bi, blk) in data.chunks_exact_mut(block).enumerate() {
        // SAFETY: AVX-512F and VPCLMULQDQ per the caller. The accesses are at
        // `m·h + col .. + 8` with `m < n`, `col + 8 ≤ h`: inside the block of
        // `n·h` words.
        unsafe {
            let tw = block_twiddles::<G>(pos + (bi * block) as u64, top);
            let p = blk.as_mut_ptr();
            let mut col = 0;
            while col < h {
                let mut x = [_mm512_setzero_si512(); 8];
                for (m, v) in x.iter_mut().enumerate().take(n) {
                    *v = _mm512_loadu_si512(p.add(m * h + col).cast());
                }
                for step in 0..G {
                    let g = if INVERSE { G - 1 - step } else { step };
                    let stride = n >> (g + 1);
                    for s in 0..(1usize << g) {
                        let t = tw[(1 << g) - 1 + s];
                        for m in 2 * s * stride..2 * s * stride + stride {
                            (x[m], x[m + stride]) = if INVERSE {
                                inverse_butterfly(x[m], x[m + stride], t)
                            } else {
                                butterfly(x[m], x[m + stride], t)
                            };
                        }
                    }
                }
                for (m, v) in x.iter().enumerate().take(n) {
                    _mm512_storeu_si512(p.add(m * h + col).cast(), *v);
                }
                col += 8;
            }
        }
    }
}

/// The twiddle vectors of levels 2, 1, 0 for the 16 values at
/// `pos + off` (`pos` a multiple of `data.len()`, `off < data.len()`, so
/// `span((pos + off) >> i) = span(pos >> i) ^ span(off >> i)`).
///
/// # Safety
///
/// Needs AVX-512F.
#[inline(always)]
unsafe fn bottom_twiddles(base: &[u64; 3], lanes: &[__m512i; 3], off: u64) -> [__m512i; 3] {
    // SAFETY: AVX-512F per the caller; no memory access.
    unsafe {
        let t0 = _mm512_set1_epi64((base[0] ^ span(off)) as i64);
        let t1 = _mm512_set1_epi64((base[1] ^ span(off >> 1)) as i64);
        let t2 = _mm512_set1_epi64((base[2] ^ span(off >> 2)) as i64);
        [
            _mm512_xor_si512(t0, lanes[0]),
            _mm512_xor_si512(t1, lanes[1]),
            _mm512_xor_si512(t2, lanes[2]),
        ]
    }
}

/// Forward levels 2, 1 and 0 on each 16 values of `data` (module docs).
///
/// # Safety
///
/// Needs AVX-512F and VPCLMULQDQ; `data.len()` a multiple of 16 and `pos`
/// a multiple of `data.len()`.
#[inline(always)]
unsafe fn bottom_forward(data: &mut [u64], pos: u64) {
    // SAFETY: AVX-512F and VPCLMULQDQ per the caller; each group is 16
    // words, read and written as two 64-byte halves.
    unsafe {
        let lanes = [
            constant(&BOTTOM_TWIDDLES[0]),
            constant(&BOTTOM_TWIDDLES[1]),
            constant(&BOTTOM_TWIDDLES[2]),
        ];
        let base = [span(pos), span(pos >> 1), span(pos >> 2)];
        let (lo1, hi1) = (constant(&GATHER_LEVEL1_LO), constant(&GATHER_LEVEL1_HI));
        let (ilo, ihi) = (constant(&INTERLEAVE_LO), constant(&INTERLEAVE_HI));
        for (gi, grp) in data.chunks_exact_mut(16).enumerate() {
            let [t0, t1, t2] = bottom_twiddles(&base, &lanes, (gi * 16) as u64);
            let p = grp.as_mut_ptr();
            let a = _mm512_loadu_si512(p.cast());
            let b = _mm512_loadu_si512(p.add(8).cast());
            // Level 2: values 0–3 | 8–11 against 4–7 | 12–15.
            let d0 = _mm512_shuffle_i64x2::<0x44>(a, b);
            let d1 = _mm512_shuffle_i64x2::<0xee>(a, b);
            let (d0, d1) = butterfly(d0, d1, t2);
            // Level 1: 0 1 4 5 8 9 12 13 against 2 3 6 7 10 11 14 15.
            let e0 = _mm512_permutex2var_epi64(d0, lo1, d1);
            let e1 = _mm512_permutex2var_epi64(d0, hi1, d1);
            let (e0, e1) = butterfly(e0, e1, t1);
            // Level 0: evens against odds.
            let f0 = _mm512_unpacklo_epi64(e0, e1);
            let f1 = _mm512_unpackhi_epi64(e0, e1);
            let (f0, f1) = butterfly(f0, f1, t0);
            _mm512_storeu_si512(p.cast(), _mm512_permutex2var_epi64(f0, ilo, f1));
            _mm512_storeu_si512(p.add(8).cast(), _mm512_permutex2var_epi64(f0, ihi, f1));
        }
    }
}

/// Inverse levels 0, 1 and 2: the inverse of [`bottom_forward`].
///
/// # Safety
///
/// As [`bottom_forward`].
#[inline(always)]
unsafe fn bottom_inverse(data: &mut [u64], pos: u64) {
    // SAFETY: as in `bottom_forward`.
    unsafe {
        let lanes = [
            constant(&BOTTOM_TWIDDLES[0]),
            constant(&BOTTOM_TWIDDLES[1]),
            constant(&BOTTOM_TWIDDLES[2]),
        ];
        let base = [span(pos), span(pos >> 1), span(pos >> 2)];
        let (lo1, hi1) = (constant(&GATHER_LEVEL1_LO), constant(&GATHER_LEVEL1_HI));
        let (evens, odds) = (constant(&EVENS), constant(&ODDS));
        for (gi, grp) in data.chunks_exact_mut(16).enumerate() {
            let [t0, t1, t2] = bottom_twiddles(&base, &lanes, (gi * 16) as u64);
            let p = grp.as_mut_ptr();
            let a = _mm512_loadu_si512(p.cast());
            let b = _mm512_loadu_si512(p.add(8).cast());
            let f0 = _mm512_permutex2var_epi64(a, evens, b);
            let f1 = _mm512_permutex2var_epi64(a, odds, b);
            let (f0, f1) = inverse_butterfly(f0, f1, t0);
            let e0 = _mm512_unpacklo_epi64(f0, f1);
            let e1 = _mm512_unpackhi_epi64(f0, f1);
            let (e0, e1) = inverse_butterfly(e0, e1, t1);
            let d0 = _mm512_permutex2var_epi64(e0, lo1, e1);
            let d1 = _mm512_permutex2var_epi64(e0, hi1, e1);
            let (d0, d1) = inverse_butterfly(d0, d1, t2);
            _mm512_storeu_si512(p.cast(), _mm512_shuffle_i64x2::<0x44>(d0, d1));
            _mm512_storeu_si512(p.add(8).cast(), _mm512_shuffle_i64x2::<0xee>(d0, d1));
        }
    }
}

/// The `#[target_feature]` entry points, reached only through [`ZmmFft`].
mod tf {
    use super::*;

    /// Shapes the vector passes do not cover (fewer than 16 values, or a
    /// range of levels ending inside the bottom three): the scalar code.
    fn vector_shape(data: &[u64], pos: u64, hi: u32, lo: u32) -> bool {
        data.len() >= 16
            && hi >= 3
            && (lo == 0 || lo >= 3)
            && data.len().is_power_of_two()
            && pos.is_multiple_of(data.len() as u64)
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
    pub(super) fn forward(t: Avx512Clmul, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
        if !vector_shape(data, pos, hi, lo) {
            levels::forward_levels(ClmulMul(t.clmul()), data, pos, hi, lo);
            return;
        }
        let stop = lo.max(3);
        let mut level = hi;
        // SAFETY: compiled with AVX-512F and VPCLMULQDQ (the token proves
        // them); every pass's lowest level is at least 3, and the bottom
        // pass gets a multiple of 16 values at a position aligned to them.
        unsafe {
            while level >= stop {
                match level - stop + 1 {
                    1 => radix::<1, false>(data, pos, level),
                    2 => radix::<2, false>(data, pos, level),
                    _ => radix::<3, false>(data, pos, level),
                }
                let done = (level - stop + 1).min(3);
                if level < stop + done {
                    break;
                }
                level -= done;
            }
            if lo == 0 {
                bottom_forward(data, pos);
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
    pub(super) fn inverse(t: Avx512Clmul, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
        if !vector_shape(data, pos, hi, lo) {
            levels::inverse_levels(ClmulMul(t.clmul()), data, pos, lo, hi);
            return;
        }
        // SAFETY: as in `forward`.
        unsafe {
            if lo == 0 {
                bottom_inverse(data, pos);
            }
            let mut level = lo.max(3);
            while level <= hi {
                let g = (hi - level + 1).min(3);
                let top = level + g - 1;
                match g {
                    1 => radix::<1, true>(data, pos, top),
                    2 => radix::<2, true>(data, pos, top),
                    _ => radix::<3, true>(data, pos, top),
                }
                level += g;
            }
        }
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
    pub(super) fn pointwise(t: Avx512Clmul, a: &mut [u64], b: &[u64]) {
        let n = a.len().min(b.len());
        let full = n - n % 8;
        let (a_vec, a_tail) = a[..n].split_at_mut(full);
        let (b_vec, b_tail) = b[..n].split_at(full);
        for (x, y) in a_vec.chunks_exact_mut(8).zip(b_vec.chunks_exact(8)) {
            // SAFETY: compiled with AVX-512F and VPCLMULQDQ (the token);
            // both chunks are 8 words.
            unsafe {
                let p = mul8(
                    _mm512_loadu_si512(x.as_ptr().cast()),
                    _mm512_loadu_si512(y.as_ptr().cast()),
                );
                _mm512_storeu_si512(x.as_mut_ptr().cast(), p);
            }
        }
        levels::pointwise_scalar(ClmulMul(t.clmul()), a_tail, b_tail);
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
    pub(super) fn to_novel(_: Avx512Clmul, data: &mut [u64], hi: u32, lo: u32) {
        levels::to_novel_levels(data, hi, lo);
    }

    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
    pub(super) fn from_novel(_: Avx512Clmul, data: &mut [u64], lo: u32, hi: u32) {
        levels::from_novel_levels(data, lo, hi);
    }
}
