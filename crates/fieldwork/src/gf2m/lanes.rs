//! Vectors of 128-bit lanes, lane-wise: the one vocabulary `xmmfold.rs`'s
//! digit products and fold, and `ymmfold.rs`'s leaves, are written in, so
//! that the same code runs one element on xmm (PCLMULQDQ), two on ymm
//! (VPCLMULQDQ, element i in lane i) or four on zmm (AVX-512 VPCLMULQDQ).
//!
//! Every operation used here is lane-wise on the x86 vector units:
//! `pclmulqdq`'s immediate picks the same words in each lane, and the byte
//! shifts, `palignr` and `punpcklqdq` work within lanes; the 64-bit shifts
//! and the logic are element-wise. So a kernel written once over
//! [`Lanes`] computes, in lane i of its result, what the xmm kernel
//! computes for lane i's inputs: the batch kernels are the single ones by
//! construction, and the tests compare them all the same.
//!
//! Loading and storing the lanes of several elements ([`load_lanes`],
//! [`store_lanes`]) gathers digit j of each element into one register:
//! 16-byte loads and stores, so the elements' own 16-byte stores forward.
#![allow(unsafe_code)]
// Word, digit and element indices are compile-time functions of the
// field's W and of loop counters below it, not of input.
#![allow(clippy::indexing_slicing)]

use crate::cpu::{Avx2Clmul, Avx512Clmul, Clmul};
use crate::vex256::_mm256_clmulepi64_epi128;
use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _MM_PERM_BADC, _mm_alignr_epi8, _mm_and_si128, _mm_clmulepi64_si128,
    _mm_loadl_epi64, _mm_loadu_si128, _mm_move_epi64, _mm_set_epi64x, _mm_setzero_si128,
    _mm_shuffle_epi32, _mm_sll_epi64, _mm_slli_si128, _mm_srl_epi64, _mm_srli_si128,
    _mm_storel_epi64, _mm_storeu_si128, _mm_unpacklo_epi64, _mm_xor_si128, _mm256_alignr_epi8,
    _mm256_and_si256, _mm256_blend_epi32, _mm256_castsi256_si128, _mm256_extracti128_si256,
    _mm256_set_epi64x, _mm256_set_m128i, _mm256_setzero_si256, _mm256_shuffle_epi32,
    _mm256_sll_epi64, _mm256_slli_si256, _mm256_srl_epi64, _mm256_srli_si256,
    _mm256_unpacklo_epi64, _mm256_xor_si256, _mm512_alignr_epi8, _mm512_and_si512,
    _mm512_bslli_epi128, _mm512_bsrli_epi128, _mm512_castsi512_si128, _mm512_clmulepi64_epi128,
    _mm512_extracti32x4_epi32, _mm512_inserti32x4, _mm512_maskz_mov_epi64, _mm512_set_epi64,
    _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_sll_epi64, _mm512_srl_epi64,
    _mm512_unpacklo_epi64, _mm512_xor_si512,
};

// SAFETY (every `unsafe` block below): values of these types are made and
// used only inside the kernels of `xmmfold.rs` and `ymmfold.rs`, whose
// entries take the token of their width (`Clmul`: PCLMULQDQ and SSE4.1;
// `Avx2Clmul`: VPCLMULQDQ and AVX2 as well; `Avx512Clmul`: VPCLMULQDQ,
// AVX512F and AVX512BW as well) and are `inline(always)` into the
// backend's `#[target_feature]` functions. Memory is touched only by
// [`load_lanes`] and [`store_lanes`], bounds at each.

/// A vector of 128-bit lanes (xmm: one, ymm: two, zmm: four), lane-wise.
pub(super) trait Lanes: Copy {
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

/// A [`Lanes`] type whose lanes can be filled from, and emptied into,
/// `LANES` elements of W words: digit j of lane i is words 2j, 2j + 1 of
/// element i (the last digit of odd W: word W − 1 and 0).
pub(super) trait LoadLanes: Lanes {
    /// The capability token the width's instructions need: a kernel over
    /// `Self` takes one.
    type Token: Copy;
    /// Digit j of the elements `x` (16 bytes at word 2j, 8 for the last
    /// digit of odd W), lane i from `x[i]`.
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self;
    /// Lane i of `d` into digit j of `out[i]` (16 bytes, 8 for the last).
    fn store_digit<const W: usize>(d: Self, out: &mut [&mut [u64; W]], j: usize);
}

/// One 128-bit digit of `x`: 16 bytes at word 2j, or 8 when 2j is the
/// last word.
#[inline(always)]
fn load1<const W: usize>(x: &[u64; W], j: usize) -> __m128i {
    debug_assert!(2 * j < W);
    // SAFETY: 2j < W (the callers' loops), so 16 bytes at word 2j when
    // 2j + 1 < W, else 8, are inside `x`; unaligned loads.
    unsafe {
        let p = x.as_ptr().add(2 * j).cast::<__m128i>();
        if 2 * j + 1 < W {
            _mm_loadu_si128(p)
        } else {
            _mm_loadl_epi64(p)
        }
    }
}

/// [`load1`]'s store.
#[inline(always)]
fn store1<const W: usize>(d: __m128i, out: &mut [u64; W], j: usize) {
    debug_assert!(2 * j < W);
    // SAFETY: as in `load1`.
    unsafe {
        let p = out.as_mut_ptr().add(2 * j).cast::<__m128i>();
        if 2 * j + 1 < W {
            _mm_storeu_si128(p, d)
        } else {
            _mm_storel_epi64(p, d)
        }
    }
}

impl LoadLanes for __m128i {
    type Token = Clmul;
    #[inline(always)]
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self {
        load1(x[0], j)
    }
    #[inline(always)]
    fn store_digit<const W: usize>(d: Self, out: &mut [&mut [u64; W]], j: usize) {
        store1(d, out[0], j)
    }
}

impl LoadLanes for __m256i {
    type Token = Avx2Clmul;
    #[inline(always)]
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_set_m128i(load1(x[1], j), load1(x[0], j)) }
    }
    #[inline(always)]
    fn store_digit<const W: usize>(d: Self, out: &mut [&mut [u64; W]], j: usize) {
        // SAFETY: see above.
        let (lo, hi) = unsafe { (_mm256_castsi256_si128(d), _mm256_extracti128_si256::<1>(d)) };
        store1(lo, out[0], j);
        store1(hi, out[1], j);
    }
}

impl LoadLanes for __m512i {
    type Token = Avx512Clmul;
    #[inline(always)]
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self {
        // SAFETY: see above.
        unsafe {
            let mut v = _mm512_setzero_si512();
            v = _mm512_inserti32x4::<0>(v, load1(x[0], j));
            v = _mm512_inserti32x4::<1>(v, load1(x[1], j));
            v = _mm512_inserti32x4::<2>(v, load1(x[2], j));
            _mm512_inserti32x4::<3>(v, load1(x[3], j))
        }
    }
    #[inline(always)]
    fn store_digit<const W: usize>(d: Self, out: &mut [&mut [u64; W]], j: usize) {
        // SAFETY: see above.
        let l = unsafe {
            [
                _mm512_castsi512_si128(d),
                _mm512_extracti32x4_epi32::<1>(d),
                _mm512_extracti32x4_epi32::<2>(d),
                _mm512_extracti32x4_epi32::<3>(d),
            ]
        };
        for (i, x) in l.into_iter().enumerate() {
            store1(x, out[i], j);
        }
    }
}

/// The digits of `x[..V::LANES]` (element i in lane i), the rest of the
/// array 0: [`LoadLanes::load_digit`] for each of the ⌈W/2⌉ digits.
#[inline(always)]
pub(super) fn load_lanes<V: LoadLanes, const W: usize>(x: &[&[u64; W]]) -> [V; W] {
    debug_assert!(x.len() == V::LANES);
    let mut d = [V::zero(); W];
    for (j, v) in d.iter_mut().enumerate().take(W.div_ceil(2)) {
        *v = V::load_digit(x, j);
    }
    d
}

/// The first ⌈W/2⌉ digits of `d` into `out[..V::LANES]`.
#[inline(always)]
pub(super) fn store_lanes<V: LoadLanes, const W: usize>(d: &[V; W], out: &mut [&mut [u64; W]]) {
    debug_assert!(out.len() == V::LANES);
    for (j, &v) in d.iter().enumerate().take(W.div_ceil(2)) {
        V::store_digit(v, out, j);
    }
}
