//! Target features: none — the portable backend of the additive FFT
//! ([`PortableFft`]): the level functions of [`super::levels`] with the
//! portable field product, [`super::super::word::clmul64`] (25 masked
//! integer multiplications, constant time) and the reduction of
//! [`super::field::reduce`]: about 60 instructions a butterfly, against
//! about 2 on the VPCLMULQDQ backend.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::FftKernel;
use super::field::reduce;
use super::levels::{self, FieldMul};

/// The portable product in `F`: masked integer multiplications.
#[inline(always)]
pub(crate) fn mul_portable(a: u64, b: u64) -> u64 {
    let p = super::super::word::clmul64(a, b);
    reduce(p as u64, (p >> 64) as u64)
}

/// The portable field multiplier.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableMul;

impl FieldMul for PortableMul {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        mul_portable(a, b)
    }
}

/// The portable backend: plain Rust, constant time.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableFft;

impl FftKernel for PortableFft {
    fn forward(self, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
        levels::forward(PortableMul, data, pos, hi, lo);
    }

    fn inverse(self, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
        levels::inverse(PortableMul, data, pos, lo, hi);
    }

    fn pointwise(self, a: &mut [u64], b: &[u64]) {
        levels::pointwise(PortableMul, a, b);
    }

    fn monomial_to_novel(self, data: &mut [u64], hi: u32, lo: u32) {
        levels::to_novel(data, hi, lo);
    }

    fn novel_to_monomial(self, data: &mut [u64], lo: u32, hi: u32) {
        levels::from_novel(data, lo, hi);
    }
}
