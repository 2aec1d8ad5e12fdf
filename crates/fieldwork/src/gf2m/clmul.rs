//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! The fields' operations compiled with PCLMULQDQ: the `gf2x` fixed kernel
//! of the field's size ([`PclmulLane`], its partial products in xmm
//! registers; F233's own two-digit kernels, `xmm233.rs`), the reduction and
//! whatever loop the caller's [`Computation`](super::Computation) puts
//! around them, inlined into one `#[target_feature]` entry point
//! ([`Pclmulqdq::run`]), so a chain of operations pays one call.
#![allow(unsafe_code)]

use crate::cpu::Clmul;
use crate::gf2x::PclmulLane;

super::simd_backend!(
    /// The PCLMULQDQ `gf2m` backend (see [`Backend`](super::Backend));
    /// holding one proves the instructions.
    Pclmulqdq(Clmul), PclmulLane, "pclmulqdq", "pclmulqdq,sse4.1"
);
