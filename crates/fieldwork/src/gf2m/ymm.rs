//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! The fields' operations compiled with VPCLMULQDQ on ymm, as `clmul.rs`
//! does with PCLMULQDQ: one `#[target_feature]` entry point
//! ([`VpclmulqdqYmm::run`]) around the caller's
//! [`Computation`](super::Computation), with the kernels of [`YmmLane`]
//! (the PCLMULQDQ formulas on xmm lanes, VEX-encoded, for the fields whose
//! product is folded in lanes; the `gf2x` ymm limb kernels for the products
//! folded in words: 7 and 9 words) and, for `mul_slices` and
//! `square_slices`, `PairLane`: two elements per instruction, one per
//! 128-bit lane, an odd last element on [`YmmLane`].
#![allow(unsafe_code)]

use crate::cpu::Avx2Clmul;
use crate::gf2x::YmmLane;

super::simd_backend!(
    /// The VPCLMULQDQ-on-ymm `gf2m` backend (see [`Backend`](super::Backend));
    /// holding one proves the instructions.
    VpclmulqdqYmm(Avx2Clmul), YmmLane, "vpclmulqdq-ymm", "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1"
);
