//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! Each field operation compiled with PCLMULQDQ: the `gf2x` fixed kernel
//! of the field's size ([`PclmulLane`], its partial products in xmm
//! registers), the reduction and the loop around them (Itoh–Tsujii's
//! squarings, the half-trace recurrence, a batch) inlined into one
//! `#[target_feature]` function per operation and field, so a compound
//! operation pays one call.
#![allow(unsafe_code)]

use super::FieldElement;
use super::ops;
use crate::cpu::Clmul;
use crate::gf2x::PclmulLane;

macro_rules! entries {
    ($($(#[$attr:meta])* $op:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?;)*) => {
        $(
            $(#[$attr])*
            #[inline]
            pub(super) fn $op<F: FieldElement>(t: Clmul, $($arg: $ty),*) $(-> $ret)? {
                // SAFETY: the token proves PCLMULQDQ and SSE4.1, all `tf::$op`
                // enables.
                unsafe { tf::$op::<F>(t, $($arg),*) }
            }
        )*

        /// The `#[target_feature]` bodies, reached through the token-taking
        /// wrappers above.
        mod tf {
            use super::*;
            $(
                $(#[$attr])*
                #[target_feature(enable = "pclmulqdq,sse4.1")]
                pub(super) fn $op<F: FieldElement>(t: Clmul, $($arg: $ty),*) $(-> $ret)? {
                    ops::$op::<F, _>(PclmulLane(t), $($arg),*)
                }
            )*
        }
    };
}

entries! {
    mul(a: &F, b: &F) -> F;
    square(a: &F) -> F;
    sqrt(a: &F) -> F;
    invert(a: &F) -> F;
    invert_divstep(a: &F) -> F;
    half_trace(a: &F) -> F;
    pow2k(a: &F, n: usize) -> F;
    pow(a: &F, e: &[u64]) -> F;
    mul_slices(out: &mut [F], a: &[F], b: &[F]);
    square_slices(out: &mut [F], a: &[F]);
    #[cfg(feature = "alloc")]
    invert_batch(v: &mut [F], scratch: &mut [F]);
}
