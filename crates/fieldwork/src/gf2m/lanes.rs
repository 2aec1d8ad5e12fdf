//! Field elements in the lanes of vector registers: `xmmfold.rs`'s digit
//! products and fold are written over `gf2x`'s lane vocabulary
//! ([`Lanes`]), so the same code runs one element on xmm (PCLMULQDQ), two
//! on ymm (VPCLMULQDQ, element i in lane i) or four on zmm (AVX-512
//! VPCLMULQDQ): the batch kernels (`mul_slices`, `square_slices`) are the
//! single ones by construction, and the tests compare them all the same.
//!
//! Loading and storing the lanes of several elements ([`load_lanes`],
//! [`store_lanes`]) gathers digit j of each element into one register:
//! 16-byte loads and stores, so the elements' own 16-byte stores forward.
#![allow(unsafe_code)]
// Word, digit and element indices are compile-time functions of the
// field's W and of loop counters below it, not of input.
#![allow(clippy::indexing_slicing)]

use crate::cpu::{Avx2Clmul, Avx512Clmul, Clmul};
pub(super) use crate::gf2x::digits::Lanes;
use crate::gf2x::digits::{load_digit, store_digit};
use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_set_m128i,
    _mm512_castsi512_si128, _mm512_extracti32x4_epi32, _mm512_inserti32x4, _mm512_setzero_si512,
};

// SAFETY (every `unsafe` block below): the kernels of `xmmfold.rs` that
// use these take the token of their width ([`LoadLanes::Token`]) and are
// `inline(always)` into the backend's `#[target_feature]` functions;
// memory bounds at each load and store.

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

impl LoadLanes for __m128i {
    type Token = Clmul;
    #[inline(always)]
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self {
        load_digit(x[0], j)
    }
    #[inline(always)]
    fn store_digit<const W: usize>(d: Self, out: &mut [&mut [u64; W]], j: usize) {
        store_digit(d, out[0], j)
    }
}

impl LoadLanes for __m256i {
    type Token = Avx2Clmul;
    #[inline(always)]
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self {
        // SAFETY: see above.
        unsafe { _mm256_set_m128i(load_digit(x[1], j), load_digit(x[0], j)) }
    }
    #[inline(always)]
    fn store_digit<const W: usize>(d: Self, out: &mut [&mut [u64; W]], j: usize) {
        // SAFETY: see above.
        let (lo, hi) = unsafe { (_mm256_castsi256_si128(d), _mm256_extracti128_si256::<1>(d)) };
        store_digit(lo, out[0], j);
        store_digit(hi, out[1], j);
    }
}

impl LoadLanes for __m512i {
    type Token = Avx512Clmul;
    #[inline(always)]
    fn load_digit<const W: usize>(x: &[&[u64; W]], j: usize) -> Self {
        // SAFETY: see above.
        unsafe {
            let mut v = _mm512_setzero_si512();
            v = _mm512_inserti32x4::<0>(v, load_digit(x[0], j));
            v = _mm512_inserti32x4::<1>(v, load_digit(x[1], j));
            v = _mm512_inserti32x4::<2>(v, load_digit(x[2], j));
            _mm512_inserti32x4::<3>(v, load_digit(x[3], j))
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
            store_digit(x, out[i], j);
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
