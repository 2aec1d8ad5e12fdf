//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! Each field operation compiled with VPCLMULQDQ on ymm, as `clmul.rs`
//! does with PCLMULQDQ: one `#[target_feature]` function per operation and
//! field, with the kernels of [`YmmLane`] (the PCLMULQDQ formulas on xmm
//! lanes, VEX-encoded, for the fields whose product is folded in lanes; the
//! `gf2x` ymm limb kernels for the products folded in words: 7 and 9
//! words) and, for `mul_slices` and `square_slices`, [`PairLane`]: two
//! elements per instruction, one per 128-bit lane, an odd last element on
//! [`YmmLane`].
#![allow(unsafe_code)]

use super::FieldElement;
use super::ops;
use crate::cpu::Avx2Clmul;
use crate::gf2x::{PairLane, YmmLane};

macro_rules! entries {
    ($($(#[$attr:meta])* $op:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = |$t:ident| $body:expr;)*) => {
        $(
            $(#[$attr])*
            #[inline]
            pub(super) fn $op<F: FieldElement>(t: Avx2Clmul, $($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the token proves VPCLMULQDQ, AVX2, AVX, PCLMULQDQ
                // and SSE4.1, all `tf::$op` enables.
                unsafe { tf::$op::<F>(t, $($arg),*) }
            }
        )*

        /// The `#[target_feature]` bodies, reached through the token-taking
        /// wrappers above.
        mod tf {
            use super::*;
            $(
                $(#[$attr])*
                #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
                pub(super) fn $op<F: FieldElement>($t: Avx2Clmul, $($arg: $ty),*) $(-> $ret)? {
                    $body
                }
            )*
        }
    };
}

entries! {
    mul(a: &F, b: &F) -> F = |t| ops::mul::<F, _>(YmmLane(t), a, b);
    square(a: &F) -> F = |t| ops::square::<F, _>(YmmLane(t), a);
    sqrt(a: &F) -> F = |t| ops::sqrt::<F, _>(YmmLane(t), a);
    invert(a: &F) -> F = |t| ops::invert::<F, _>(YmmLane(t), a);
    invert_divstep(a: &F) -> F = |t| ops::invert_divstep::<F, _>(YmmLane(t), a);
    half_trace(a: &F) -> F = |t| ops::half_trace::<F, _>(YmmLane(t), a);
    pow2k(a: &F, n: usize) -> F = |t| ops::pow2k::<F, _>(YmmLane(t), a, n);
    pow(a: &F, e: &[u64]) -> F = |t| ops::pow::<F, _>(YmmLane(t), a, e);
    mul_slices(out: &mut [F], a: &[F], b: &[F]) =
        |t| ops::mul_slices_pairs::<F, _, _>(PairLane(t), YmmLane(t), out, a, b);
    square_slices(out: &mut [F], a: &[F]) =
        |t| ops::square_slices_pairs::<F, _, _>(PairLane(t), YmmLane(t), out, a);
    #[cfg(feature = "alloc")]
    invert_batch(v: &mut [F], scratch: &mut [F]) =
        |t| ops::invert_batch::<F, _>(YmmLane(t), v, scratch);
}
