//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! The fields' operations compiled with PCLMULQDQ: the `gf2x` fixed kernel
//! of the field's size ([`PclmulLane`], its partial products in xmm
//! registers; F233's own two-digit kernels, `xmm233.rs`), the reduction
//! and whatever loop the caller's [`Computation`] puts around them, inlined
//! into one `#[target_feature]` entry point ([`Pclmulqdq::run`]), so a
//! chain of operations pays one call.
#![allow(unsafe_code)]

use super::private::Kernels;
use super::{Backend, Computation};
use crate::cpu::Clmul;
use crate::gf2x::PclmulLane;

/// The PCLMULQDQ `gf2m` backend (see [`Backend`]); holding one proves the
/// instructions.
#[derive(Clone, Copy, Debug)]
pub struct Pclmulqdq(pub(super) Clmul);

impl Kernels for Pclmulqdq {
    type K = PclmulLane;
    #[inline(always)]
    fn kernels(self) -> PclmulLane {
        PclmulLane(self.0)
    }
}

impl Backend for Pclmulqdq {
    fn name(self) -> &'static str {
        "pclmulqdq"
    }
}

impl Pclmulqdq {
    /// `computation` compiled with PCLMULQDQ and SSE4.1.
    #[inline]
    pub(super) fn run<C: Computation>(self, computation: C) -> C::Output {
        // SAFETY: the token in `self` proves PCLMULQDQ and SSE4.1, all
        // `run_tf` enables.
        unsafe { run_tf(self, computation) }
    }
}

#[target_feature(enable = "pclmulqdq,sse4.1")]
fn run_tf<C: Computation>(backend: Pclmulqdq, computation: C) -> C::Output {
    computation.run(backend)
}
