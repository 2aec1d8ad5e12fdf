//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! # Four field products on ymm
//!
//! The zmm kernels of [`super::vpclmul`] at half the width: `vpclmulqdq`
//! with immediate `0x00` multiplies the even values of a register by their
//! twiddles and `0x11` the odd ones, 128 bits each; `vpunpcklqdq` /
//! `vpunpckhqdq` (in-lane, so no lane crossing) gather the low words `L`
//! and the high words `H` of the four products in natural order, and the
//! reduction of [`super::field::reduce`] is two right shifts, three left
//! shifts and six XORs (no `vpternlogq` without AVX-512):
//!
//! ```text
//! U = H ^ H>>61 ^ H>>60;   x·t = L ^ U ^ U<<1 ^ U<<3 ^ U<<4
//! ```
//!
//! A forward butterfly on four pairs (`D0 += t·D1; D1 += D0`) is 2
//! `vpclmulqdq`, 2 unpacks, 5 shifts and 8 XORs: 17 vector instructions,
//! plus two loads and two stores, for four butterflies — the two
//! `vpclmulqdq` take 4 cycles on Zen 3, against 8 for four `pclmulqdq`
//! and their scalar reductions.
//!
//! # Passes
//!
//! Levels with halves of at least 4 values take whole registers as `D0`
//! and `D1` with one broadcast twiddle; up to three levels are fused (eight
//! registers loaded, twelve butterflies, eight stored). The two lowest
//! levels (halves of 2 and 1 values) run on 8 values in two registers:
//! gathered with `vperm2i128` so that `D0`/`D1` are whole registers for
//! level 1, regathered with `vpunpck{l,h}qdq` for level 0, and put back in
//! natural order with two unpacks and two `vperm2i128`.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::FftKernel;
use super::clmul::ClmulMul;
use super::field::span;
use super::levels;
use crate::cpu::Avx2Clmul;
use crate::vex256::_mm256_clmulepi64_epi128;
use core::arch::x86_64::{
    __m256i, _mm256_loadu_si256, _mm256_permute2x128_si256, _mm256_set_epi64x, _mm256_set1_epi64x,
    _mm256_setzero_si256, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm256_xor_si256,
};

/// The ymm FFT kernels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct YmmFft(pub(crate) Avx2Clmul);

impl FftKernel for YmmFft {
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

/// Four field products `x[i]·t[i]` (module docs).
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ.
#[inline(always)]
unsafe fn mul4(x: __m256i, t: __m256i) -> __m256i {
    // SAFETY: AVX2 and VPCLMULQDQ per the caller; no memory access.
    unsafe {
        let even = _mm256_clmulepi64_epi128::<0x00>(x, t);
        let odd = _mm256_clmulepi64_epi128::<0x11>(x, t);
        let l = _mm256_unpacklo_epi64(even, odd);
        let h = _mm256_unpackhi_epi64(even, odd);
        let u = _mm256_xor_si256(
            h,
            _mm256_xor_si256(_mm256_srli_epi64::<61>(h), _mm256_srli_epi64::<60>(h)),
        );
        let r = _mm256_xor_si256(l, _mm256_xor_si256(u, _mm256_slli_epi64::<1>(u)));
        _mm256_xor_si256(
            r,
            _mm256_xor_si256(_mm256_slli_epi64::<3>(u), _mm256_slli_epi64::<4>(u)),
        )
    }
}

/// Forward butterfly on four pairs: `(d0 + t·d1, d1 + d0 + t·d1)`.
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ.
#[inline(always)]
unsafe fn butterfly(d0: __m256i, d1: __m256i, t: __m256i) -> (__m256i, __m256i) {
    // SAFETY: as the caller's.
    unsafe {
        let d0 = _mm256_xor_si256(d0, mul4(d1, t));
        (d0, _mm256_xor_si256(d1, d0))
    }
}

/// Inverse butterfly on four pairs.
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ.
#[inline(always)]
unsafe fn inverse_butterfly(d0: __m256i, d1: __m256i, t: __m256i) -> (__m256i, __m256i) {
    // SAFETY: as the caller's.
    unsafe {
        let d1 = _mm256_xor_si256(d1, d0);
        (_mm256_xor_si256(d0, mul4(d1, t)), d1)
    }
}

/// The `2^G − 1` broadcast twiddles of one block of `2^(top+1)` values at
/// point index `q`: level `top − g` for `g < G`, sub-block `s < 2^g` at index
/// `2^g − 1 + s`.
///
/// # Safety
///
/// Needs AVX.
#[inline(always)]
unsafe fn block_twiddles<const G: usize>(q: u64, top: u32) -> [__m256i; 7] {
    let block = 2u64 << top;
    // SAFETY: AVX per the caller; no memory access.
    unsafe {
        let mut tw = [_mm256_setzero_si256(); 7];
        for g in 0..G {
            for s in 0..(1usize << g) {
                let start = q + s as u64 * (block >> g);
                tw[(1 << g) - 1 + s] = _mm256_set1_epi64x(span(start >> (top - g as u32)) as i64);
            }
        }
        tw
    }
}

/// `G` fused levels `top, …, top − G + 1` (all at least 2) on every block
/// of `data`: forward butterflies from the top level down, or with
/// `INVERSE` the inverse butterflies from the lowest level up.
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ; `top + 1 ≥ G + 2`.
#[inline(always)]
unsafe fn radix<const G: usize, const INVERSE: bool>(data: &mut [u64], pos: u64, top: u32) {
    let block = 2usize << top;
    let h = block >> G; // the lowest level's half: a multiple of 4
    let n = 1usize << G;
    debug_assert!(h >= 4 && data.len().is_multiple_of(block));
    for (bi, blk) in data.chunks_exact_mut(block).enumerate() {
        // SAFETY: AVX2 and VPCLMULQDQ per the caller. The accesses are at
        // `m·h + col .. + 4` with `m < n`, `col + 4 ≤ h`: inside the block of
        // `n·h` words.
        unsafe {
            let tw = block_twiddles::<G>(pos + (bi * block) as u64, top);
            let p = blk.as_mut_ptr();
            let mut col = 0;
            while col < h {
                let mut x = [_mm256_setzero_si256(); 8];
                for (m, v) in x.iter_mut().enumerate().take(n) {
                    *v = _mm256_loadu_si256(p.add(m * h + col).cast());
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
                    _mm256_storeu_si256(p.add(m * h + col).cast(), *v);
                }
                col += 4;
            }
        }
    }
}

/// The twiddle vectors of levels 1 and 0 for the 8 values at `pos + off`
/// (`pos` a multiple of `data.len()`, `off < data.len()` a multiple of 8,
/// so `span((pos + off) >> i) = span(pos >> i) ^ span(off >> i)`). Level 1
/// works on `[v0 v1 | v4 v5]` against `[v2 v3 | v6 v7]` (blocks at `off`
/// and `off + 4`: twiddles `s` and `s + span(2)`); level 0 on
/// `[v0 v2 | v4 v6]` against `[v1 v3 | v5 v7]` (blocks at `off + 2j`:
/// `s + span(2j)`).
///
/// # Safety
///
/// Needs AVX.
#[inline(always)]
unsafe fn bottom_twiddles(base: &[u64; 2], lanes: &[__m256i; 2], off: u64) -> [__m256i; 2] {
    // SAFETY: AVX per the caller; no memory access.
    unsafe {
        let t0 = _mm256_set1_epi64x((base[0] ^ span(off)) as i64);
        let t1 = _mm256_set1_epi64x((base[1] ^ span(off >> 1)) as i64);
        [
            _mm256_xor_si256(t0, lanes[0]),
            _mm256_xor_si256(t1, lanes[1]),
        ]
    }
}

/// The per-lane parts of [`bottom_twiddles`] (`_mm256_set_epi64x` takes
/// the highest word first).
///
/// # Safety
///
/// Needs AVX.
#[inline(always)]
unsafe fn bottom_lanes() -> [__m256i; 2] {
    let s = |k: u64| span(k) as i64;
    // SAFETY: AVX per the caller; no memory access.
    unsafe {
        [
            _mm256_set_epi64x(s(6), s(4), s(2), 0),
            _mm256_set_epi64x(s(2), s(2), 0, 0),
        ]
    }
}

/// Forward levels 1 and 0 on each 8 values of `data` (module docs).
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ; `data.len()` a multiple of 8 and `pos` a
/// multiple of `data.len()`.
#[inline(always)]
unsafe fn bottom_forward(data: &mut [u64], pos: u64) {
    // SAFETY: AVX2 and VPCLMULQDQ per the caller; each group is 8 words,
    // read and written as two 32-byte halves.
    unsafe {
        let lanes = bottom_lanes();
        let base = [span(pos), span(pos >> 1)];
        for (gi, grp) in data.chunks_exact_mut(8).enumerate() {
            let [t0, t1] = bottom_twiddles(&base, &lanes, (gi * 8) as u64);
            let p = grp.as_mut_ptr();
            let a = _mm256_loadu_si256(p.cast());
            let b = _mm256_loadu_si256(p.add(4).cast());
            // Level 1: [v0 v1 | v4 v5] against [v2 v3 | v6 v7].
            let d0 = _mm256_permute2x128_si256::<0x20>(a, b);
            let d1 = _mm256_permute2x128_si256::<0x31>(a, b);
            let (d0, d1) = butterfly(d0, d1, t1);
            // Level 0: [v0 v2 | v4 v6] against [v1 v3 | v5 v7].
            let f0 = _mm256_unpacklo_epi64(d0, d1);
            let f1 = _mm256_unpackhi_epi64(d0, d1);
            let (f0, f1) = butterfly(f0, f1, t0);
            // Back to [v0 v1 | v4 v5], [v2 v3 | v6 v7], then natural order.
            let e0 = _mm256_unpacklo_epi64(f0, f1);
            let e1 = _mm256_unpackhi_epi64(f0, f1);
            _mm256_storeu_si256(p.cast(), _mm256_permute2x128_si256::<0x20>(e0, e1));
            _mm256_storeu_si256(p.add(4).cast(), _mm256_permute2x128_si256::<0x31>(e0, e1));
        }
    }
}

/// Inverse levels 0 and 1: the inverse of [`bottom_forward`].
///
/// # Safety
///
/// As [`bottom_forward`].
#[inline(always)]
unsafe fn bottom_inverse(data: &mut [u64], pos: u64) {
    // SAFETY: as in `bottom_forward`.
    unsafe {
        let lanes = bottom_lanes();
        let base = [span(pos), span(pos >> 1)];
        for (gi, grp) in data.chunks_exact_mut(8).enumerate() {
            let [t0, t1] = bottom_twiddles(&base, &lanes, (gi * 8) as u64);
            let p = grp.as_mut_ptr();
            let a = _mm256_loadu_si256(p.cast());
            let b = _mm256_loadu_si256(p.add(4).cast());
            let e0 = _mm256_permute2x128_si256::<0x20>(a, b);
            let e1 = _mm256_permute2x128_si256::<0x31>(a, b);
            let f0 = _mm256_unpacklo_epi64(e0, e1);
            let f1 = _mm256_unpackhi_epi64(e0, e1);
            let (f0, f1) = inverse_butterfly(f0, f1, t0);
            let d0 = _mm256_unpacklo_epi64(f0, f1);
            let d1 = _mm256_unpackhi_epi64(f0, f1);
            let (d0, d1) = inverse_butterfly(d0, d1, t1);
            _mm256_storeu_si256(p.cast(), _mm256_permute2x128_si256::<0x20>(d0, d1));
            _mm256_storeu_si256(p.add(4).cast(), _mm256_permute2x128_si256::<0x31>(d0, d1));
        }
    }
}

/// The `#[target_feature]` entry points, reached only through [`YmmFft`].
mod tf {
    use super::*;

    /// Shapes the vector passes do not cover (fewer than 8 values, or a
    /// range of levels ending inside the bottom two): the scalar code.
    fn vector_shape(data: &[u64], pos: u64, hi: u32, lo: u32) -> bool {
        data.len() >= 8
            && hi >= 2
            && (lo == 0 || lo >= 2)
            && data.len().is_power_of_two()
            && pos.is_multiple_of(data.len() as u64)
    }

    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    pub(super) fn forward(t: Avx2Clmul, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
        if !vector_shape(data, pos, hi, lo) {
            levels::forward_levels(ClmulMul(t.clmul()), data, pos, hi, lo);
            return;
        }
        let stop = lo.max(2);
        let mut level = hi;
        // SAFETY: compiled with AVX2 and VPCLMULQDQ (the token proves
        // them); every pass's lowest level is at least 2, and the bottom
        // pass gets a multiple of 8 values at a position aligned to them.
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

    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    pub(super) fn inverse(t: Avx2Clmul, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
        if !vector_shape(data, pos, hi, lo) {
            levels::inverse_levels(ClmulMul(t.clmul()), data, pos, lo, hi);
            return;
        }
        // SAFETY: as in `forward`.
        unsafe {
            if lo == 0 {
                bottom_inverse(data, pos);
            }
            let mut level = lo.max(2);
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

    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    pub(super) fn pointwise(t: Avx2Clmul, a: &mut [u64], b: &[u64]) {
        let n = a.len().min(b.len());
        let full = n - n % 4;
        let (a_vec, a_tail) = a[..n].split_at_mut(full);
        let (b_vec, b_tail) = b[..n].split_at(full);
        for (x, y) in a_vec.chunks_exact_mut(4).zip(b_vec.chunks_exact(4)) {
            // SAFETY: compiled with AVX2 and VPCLMULQDQ (the token); both
            // chunks are 4 words.
            unsafe {
                let p = mul4(
                    _mm256_loadu_si256(x.as_ptr().cast()),
                    _mm256_loadu_si256(y.as_ptr().cast()),
                );
                _mm256_storeu_si256(x.as_mut_ptr().cast(), p);
            }
        }
        levels::pointwise_scalar(ClmulMul(t.clmul()), a_tail, b_tail);
    }

    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    pub(super) fn to_novel(_: Avx2Clmul, data: &mut [u64], hi: u32, lo: u32) {
        levels::to_novel_levels(data, hi, lo);
    }

    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    pub(super) fn from_novel(_: Avx2Clmul, data: &mut [u64], lo: u32, hi: u32) {
        levels::from_novel_levels(data, lo, hi);
    }
}
