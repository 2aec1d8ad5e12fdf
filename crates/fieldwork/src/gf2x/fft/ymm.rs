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
//!
//! # Layout
//!
//! The product, the fused passes, the twiddles and the pass schedule are
//! written once for both widths in [`super::wide`] (`Wide`,
//! `register_ops!`); this file gives the ymm register's intrinsics,
//! its `xor3` and the bottom levels' shuffles (`Wide::bottom`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::clmul::ClmulMul;
use super::field::span;
use super::levels::FieldMul;
use super::wide::{self, Wide, butterfly, inverse_butterfly};
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

fft_entries!(
    YmmFft(Avx2Clmul),
    "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1",
    wide,
    |t| Ymm(t)
);

/// Four values of `F` in a ymm register (see [`Wide`]); holding one proves
/// AVX2 and VPCLMULQDQ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ymm(Avx2Clmul);

impl Wide for Ymm {
    const WORDS: usize = 4;
    const BOTTOM: u32 = 2;

    wide::register_ops!(__m256i:
        zero _mm256_setzero_si256, splat _mm256_set1_epi64x, xor _mm256_xor_si256,
        load _mm256_loadu_si256, store _mm256_storeu_si256, clmul _mm256_clmulepi64_epi128,
        unpack _mm256_unpacklo_epi64, _mm256_unpackhi_epi64,
        shift _mm256_slli_epi64, _mm256_srli_epi64
    );

    /// Two XORs (no `vpternlogq` without AVX-512).
    #[inline(always)]
    fn xor3(self, a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        self.xor(a, self.xor(b, c))
    }

    /// Levels 1 and 0 on each 8 values (module docs), forward or inverse.
    #[inline(always)]
    fn bottom<const INVERSE: bool>(self, data: &mut [u64], pos: u64) {
        let w = self;
        let lanes = w.bottom_lanes();
        let base = [span(pos), span(pos >> 1)];
        for (gi, grp) in data.chunks_exact_mut(8).enumerate() {
            let [t0, t1] = w.bottom_twiddles(&base, &lanes, (gi * 8) as u64);
            let p = grp.as_mut_ptr();
            // SAFETY: the token proves AVX2 and VPCLMULQDQ; each group is 8
            // words, read and written as two 32-byte halves.
            unsafe {
                let a = w.load(p);
                let b = w.load(p.add(4));
                // Level 1 works on [v0 v1 | v4 v5] against [v2 v3 | v6 v7],
                // level 0 on [v0 v2 | v4 v6] against [v1 v3 | v5 v7].
                let d0 = _mm256_permute2x128_si256::<0x20>(a, b);
                let d1 = _mm256_permute2x128_si256::<0x31>(a, b);
                let (e0, e1) = if INVERSE {
                    let f0 = _mm256_unpacklo_epi64(d0, d1);
                    let f1 = _mm256_unpackhi_epi64(d0, d1);
                    let (f0, f1) = inverse_butterfly(w, f0, f1, t0);
                    let d0 = _mm256_unpacklo_epi64(f0, f1);
                    let d1 = _mm256_unpackhi_epi64(f0, f1);
                    inverse_butterfly(w, d0, d1, t1)
                } else {
                    let (d0, d1) = butterfly(w, d0, d1, t1);
                    let f0 = _mm256_unpacklo_epi64(d0, d1);
                    let f1 = _mm256_unpackhi_epi64(d0, d1);
                    let (f0, f1) = butterfly(w, f0, f1, t0);
                    // Back to [v0 v1 | v4 v5], [v2 v3 | v6 v7].
                    (_mm256_unpacklo_epi64(f0, f1), _mm256_unpackhi_epi64(f0, f1))
                };
                // Natural order.
                w.store(p, _mm256_permute2x128_si256::<0x20>(e0, e1));
                w.store(p.add(4), _mm256_permute2x128_si256::<0x31>(e0, e1));
            }
        }
    }

    #[inline(always)]
    fn scalar(self) -> impl FieldMul {
        ClmulMul(self.0.clmul())
    }
}

impl Ymm {
    /// The twiddle vectors of levels 1 and 0 for the 8 values at `pos + off`
    /// (`pos` a multiple of `data.len()`, `off < data.len()` a multiple of 8,
    /// so `span((pos + off) >> i) = span(pos >> i) ^ span(off >> i)`). Level 1
    /// works on `[v0 v1 | v4 v5]` against `[v2 v3 | v6 v7]` (blocks at `off`
    /// and `off + 4`: twiddles `s` and `s + span(2)`); level 0 on
    /// `[v0 v2 | v4 v6]` against `[v1 v3 | v5 v7]` (blocks at `off + 2j`:
    /// `s + span(2j)`).
    #[inline(always)]
    fn bottom_twiddles(self, base: &[u64; 2], lanes: &[__m256i; 2], off: u64) -> [__m256i; 2] {
        [
            self.xor(self.splat(base[0] ^ span(off)), lanes[0]),
            self.xor(self.splat(base[1] ^ span(off >> 1)), lanes[1]),
        ]
    }

    /// The per-lane parts of [`Ymm::bottom_twiddles`] (`_mm256_set_epi64x`
    /// takes the highest word first).
    #[inline(always)]
    fn bottom_lanes(self) -> [__m256i; 2] {
        let s = |k: u64| span(k) as i64;
        // SAFETY: the token proves AVX; no memory access.
        unsafe {
            [
                _mm256_set_epi64x(s(6), s(4), s(2), 0),
                _mm256_set_epi64x(s(2), s(2), 0, 0),
            ]
        }
    }
}
