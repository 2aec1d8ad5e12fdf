//! Target features: `pclmulqdq`, `sse4.1` — capability token
//! [`crate::cpu::Clmul`].
//!
//! Every Su–Fan strategy of [`super::sufan`] compiled on 64-bit lanes of xmm
//! registers, as the PCLMULQDQ backend compiles its own fixed kernels,
//! behind slice entry points for [`super::Strategy`].
#![allow(unsafe_code)]

use crate::cpu::Clmul;
use crate::gf2x::clmul::PclmulLane;

macro_rules! entries {
    ($($f:ident $n:literal),*) => {$(
        #[doc = concat!("`", stringify!($f), "` with PCLMULQDQ; false on wrong lengths.")]
        pub(crate) fn $f(t: Clmul, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
            let Some((x, y, o)) = crate::gf2x::formulas::fixed_arrays!($n, a, b, out) else {
                return false;
            };
            // SAFETY: the token proves PCLMULQDQ and SSE4.1.
            unsafe { tf::$f(t, x, y, o) };
            true
        }
    )*

    mod tf {
        use super::*;
        crate::gf2x::clmul::lane_products!("pclmulqdq,sse4.1", Clmul, |t| PclmulLane(t);
            $(#[inline(never)] $f $n = super::super::sufan::$f),*
        );
    }};
}

entries!(
    s3_1 3, s3_1m 3, s3_1h 3, s3_school 3, s4_1 4, s4_1m 4, s4_2 4, s4_2m 4, s5_1_co 5, s5_1 5, s5_2 5, s5_3 5,
    s7_1_co 7, s7_1 7, s7_2 7, s7_3 7, s9_1_co 9, s9_1 9, s9_2 9, s9_3_co 9, s9_3 9
);

/// Su & Fan's Table 5 (§3.2): the same kernels compiled with AVX enabled,
/// so every SIMD instruction takes the VEX three-operand (non-destructive)
/// encoding, as their `-mavx` build; the entries above are the
/// destructive-syntax build (`-msse4.2`). The token is the ymm VPCLMULQDQ
/// backend's (it proves AVX; the kernels use only xmm PCLMULQDQ).
macro_rules! vex_entries {
    ($($f:ident $n:literal),*) => {
        pub(crate) mod vex {
            use crate::cpu::Avx2Clmul;
            use crate::gf2x::clmul::PclmulLane;
            $(
                #[doc = concat!("`", stringify!($f), "` VEX-encoded; false on wrong lengths.")]
                pub(crate) fn $f(t: Avx2Clmul, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
                    let Some((x, y, o)) = crate::gf2x::formulas::fixed_arrays!($n, a, b, out) else {
                        return false;
                    };
                    // SAFETY: the token proves AVX, PCLMULQDQ and SSE4.1.
                    unsafe { tf::$f(t, x, y, o) };
                    true
                }
            )*
            mod tf {
                use super::*;
                crate::gf2x::clmul::lane_products!("pclmulqdq,sse4.1,avx", Avx2Clmul,
                    |t| PclmulLane(t.clmul());
                    $(#[inline(never)] $f $n = super::super::super::sufan::$f),*
                );
            }
        }
    };
}

vex_entries!(
    s3_1 3, s3_1m 3, s3_school 3, s4_1 4, s4_2 4, s4_2m 4, s5_1_co 5, s7_1_co 7, s7_2 7, s9_1_co 9,
    s9_1 9, s9_2 9
);
