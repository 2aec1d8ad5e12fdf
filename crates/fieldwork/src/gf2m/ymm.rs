//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! The fields' operations compiled with VPCLMULQDQ on ymm, as `clmul.rs`
//! does with PCLMULQDQ: one `#[target_feature]` entry point
//! ([`VpclmulqdqYmm::run`]) around the caller's [`Computation`], with the
//! kernels of [`YmmLane`] (the PCLMULQDQ formulas on xmm lanes,
//! VEX-encoded, for the fields whose product is folded in lanes; the
//! `gf2x` ymm limb kernels for the products folded in words: 7 and 9
//! words) and, for `mul_slices` and `square_slices`, `PairLane`: two
//! elements per instruction, one per 128-bit lane, an odd last element on
//! [`YmmLane`].
#![allow(unsafe_code)]

use super::private::Kernels;
use super::{Backend, Computation};
use crate::cpu::Avx2Clmul;
use crate::gf2x::YmmLane;

/// The VPCLMULQDQ-on-ymm `gf2m` backend (see [`Backend`]); holding one
/// proves the instructions.
#[derive(Clone, Copy, Debug)]
pub struct VpclmulqdqYmm(pub(super) Avx2Clmul);

impl Kernels for VpclmulqdqYmm {
    type K = YmmLane;
    #[inline(always)]
    fn kernels(self) -> YmmLane {
        YmmLane(self.0)
    }
}

impl Backend for VpclmulqdqYmm {
    fn name(self) -> &'static str {
        "vpclmulqdq-ymm"
    }
}

impl VpclmulqdqYmm {
    /// `computation` compiled with VPCLMULQDQ, AVX2, AVX, PCLMULQDQ and
    /// SSE4.1.
    #[inline]
    pub(super) fn run<C: Computation>(self, computation: C) -> C::Output {
        // SAFETY: the token in `self` proves VPCLMULQDQ, AVX2, AVX,
        // PCLMULQDQ and SSE4.1, all `run_tf` enables.
        unsafe { run_tf(self, computation) }
    }
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn run_tf<C: Computation>(backend: VpclmulqdqYmm, computation: C) -> C::Output {
    computation.run(backend)
}
