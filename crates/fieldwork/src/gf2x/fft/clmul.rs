//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! The scalar butterflies of [`super::portable`] with the field product as
//! one `pclmulqdq` and the shift-and-XOR reduction of [`super::field::reduce`] on
//! general registers (about 16 instructions a product), and the
//! conversions' XOR loops compiled with these features.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::levels::{self, FieldMul};
use crate::cpu::Clmul;
use core::arch::x86_64::{
    _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_extract_epi64,
};

/// The field product with `pclmulqdq`; used only inside functions compiled
/// with PCLMULQDQ and SSE4.1 (the token proves the CPU has them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClmulMul(pub(crate) Clmul);

impl FieldMul for ClmulMul {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        // SAFETY: a `Clmul` token exists only if PCLMULQDQ and SSE4.1 are
        // usable; no memory is touched.
        let (lo, hi) = unsafe {
            let p = _mm_clmulepi64_si128::<0x00>(
                _mm_cvtsi64_si128(a as i64),
                _mm_cvtsi64_si128(b as i64),
            );
            (
                _mm_cvtsi128_si64(p) as u64,
                _mm_extract_epi64::<1>(p) as u64,
            )
        };
        super::field::reduce(lo, hi)
    }
}

/// The PCLMULQDQ FFT kernels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClmulFft(pub(crate) Clmul);

fft_entries!(ClmulFft(Clmul), "pclmulqdq,sse4.1", levels, |t| ClmulMul(t));
