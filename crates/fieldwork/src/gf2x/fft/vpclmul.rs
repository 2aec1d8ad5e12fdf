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
//!
//! # Layout
//!
//! The product, the fused passes, the twiddles and the pass schedule are
//! written once for both widths in [`super::wide`] (`Wide`,
//! `register_ops!`); this file gives the zmm register's intrinsics,
//! its `xor3` and the bottom levels' shuffles (`Wide::bottom`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::clmul::ClmulMul;
use super::field::{CANTOR, span};
use super::levels::FieldMul;
use super::wide::{self, Wide, butterfly, inverse_butterfly};
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
/// [`Zmm::bottom`]): level 2 `[0 ×4, span(2) ×4]`, level 1
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

fft_entries!(
    ZmmFft(Avx512Clmul),
    "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1",
    wide,
    |t| Zmm(t)
);

/// Eight values of `F` in a zmm register (see [`Wide`]); holding one
/// proves AVX-512F and VPCLMULQDQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Zmm(Avx512Clmul);

impl Wide for Zmm {
    const WORDS: usize = 8;
    const BOTTOM: u32 = 3;

    wide::register_ops!(__m512i:
        zero _mm512_setzero_si512, splat _mm512_set1_epi64, xor _mm512_xor_si512,
        load _mm512_loadu_si512, store _mm512_storeu_si512, clmul _mm512_clmulepi64_epi128,
        unpack _mm512_unpacklo_epi64, _mm512_unpackhi_epi64,
        shift _mm512_slli_epi64, _mm512_srli_epi64
    );

    #[inline(always)]
    fn xor3(self, a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F; no memory access.
        unsafe { _mm512_ternarylogic_epi64::<0x96>(a, b, c) }
    }

    /// Levels 2, 1 and 0 on each 16 values (module docs), forward or
    /// inverse.
    #[inline(always)]
    fn bottom<const INVERSE: bool>(self, data: &mut [u64], pos: u64) {
        let w = self;
        let lanes = [
            w.constant(&BOTTOM_TWIDDLES[0]),
            w.constant(&BOTTOM_TWIDDLES[1]),
            w.constant(&BOTTOM_TWIDDLES[2]),
        ];
        let base = [span(pos), span(pos >> 1), span(pos >> 2)];
        let (lo1, hi1) = (w.constant(&GATHER_LEVEL1_LO), w.constant(&GATHER_LEVEL1_HI));
        let (ilo, ihi) = (w.constant(&INTERLEAVE_LO), w.constant(&INTERLEAVE_HI));
        let (evens, odds) = (w.constant(&EVENS), w.constant(&ODDS));
        for (gi, grp) in data.chunks_exact_mut(16).enumerate() {
            let [t0, t1, t2] = w.bottom_twiddles(&base, &lanes, (gi * 16) as u64);
            let p = grp.as_mut_ptr();
            // SAFETY: the token proves AVX-512F and VPCLMULQDQ; each group
            // is 16 words, read and written as two 64-byte halves.
            unsafe {
                let a = w.load(p);
                let b = w.load(p.add(8));
                let (lo, hi) = if INVERSE {
                    let f0 = _mm512_permutex2var_epi64(a, evens, b);
                    let f1 = _mm512_permutex2var_epi64(a, odds, b);
                    let (f0, f1) = inverse_butterfly(w, f0, f1, t0);
                    let e0 = _mm512_unpacklo_epi64(f0, f1);
                    let e1 = _mm512_unpackhi_epi64(f0, f1);
                    let (e0, e1) = inverse_butterfly(w, e0, e1, t1);
                    let d0 = _mm512_permutex2var_epi64(e0, lo1, e1);
                    let d1 = _mm512_permutex2var_epi64(e0, hi1, e1);
                    let (d0, d1) = inverse_butterfly(w, d0, d1, t2);
                    (
                        _mm512_shuffle_i64x2::<0x44>(d0, d1),
                        _mm512_shuffle_i64x2::<0xee>(d0, d1),
                    )
                } else {
                    // Level 2: values 0–3 | 8–11 against 4–7 | 12–15.
                    let d0 = _mm512_shuffle_i64x2::<0x44>(a, b);
                    let d1 = _mm512_shuffle_i64x2::<0xee>(a, b);
                    let (d0, d1) = butterfly(w, d0, d1, t2);
                    // Level 1: 0 1 4 5 8 9 12 13 against 2 3 6 7 10 11 14 15.
                    let e0 = _mm512_permutex2var_epi64(d0, lo1, d1);
                    let e1 = _mm512_permutex2var_epi64(d0, hi1, d1);
                    let (e0, e1) = butterfly(w, e0, e1, t1);
                    // Level 0: evens against odds.
                    let f0 = _mm512_unpacklo_epi64(e0, e1);
                    let f1 = _mm512_unpackhi_epi64(e0, e1);
                    let (f0, f1) = butterfly(w, f0, f1, t0);
                    (
                        _mm512_permutex2var_epi64(f0, ilo, f1),
                        _mm512_permutex2var_epi64(f0, ihi, f1),
                    )
                };
                w.store(p, lo);
                w.store(p.add(8), hi);
            }
        }
    }

    #[inline(always)]
    fn scalar(self) -> impl FieldMul {
        ClmulMul(self.0.clmul())
    }
}

impl Zmm {
    /// A constant vector.
    #[inline(always)]
    fn constant(self, v: &[u64; 8]) -> __m512i {
        // SAFETY: `v` is 64 readable bytes.
        unsafe { self.load(v.as_ptr()) }
    }

    /// The twiddle vectors of levels 2, 1, 0 for the 16 values at
    /// `pos + off` (`pos` a multiple of `data.len()`, `off < data.len()`, so
    /// `span((pos + off) >> i) = span(pos >> i) ^ span(off >> i)`).
    #[inline(always)]
    fn bottom_twiddles(self, base: &[u64; 3], lanes: &[__m512i; 3], off: u64) -> [__m512i; 3] {
        [
            self.xor(self.splat(base[0] ^ span(off)), lanes[0]),
            self.xor(self.splat(base[1] ^ span(off >> 1)), lanes[1]),
            self.xor(self.splat(base[2] ^ span(off >> 2)), lanes[2]),
        ]
    }
}
