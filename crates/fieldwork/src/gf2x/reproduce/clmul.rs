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

/// Su & Fan's appendix `ins_mul2_64`: the 2-word product `t1 = a0·b0`,
/// `t2 = a1·b1`, `v1 = (a0 + a1)(b0 + b1)`, `v2 = v1 + t1 + t2` added at
/// `x^64` (Karatsuba, formula (1)), with the listing's ways of forming the
/// middle product's operands (its macros `_XOR64`, `_SHIFT`, `_SHUF`,
/// `_UPK`; `_SHIFT` is the listing's default). The listing's last lines
/// (adding `v2` into `t1`, `t2` before the stores) are lost in the text;
/// we shift it in with `pslldq`/`psrldq` as the listing's 3-word code does.
pub(crate) mod mul2 {
    use crate::cpu::Clmul;
    use core::arch::x86_64::*;

    /// `_XOR64`: the sums in general-purpose registers (`b[0] ^ b[1]`),
    /// moved to xmm (`movq`).
    pub(crate) const XOR64: u8 = 0;
    /// `_SHIFT`: `v ^ (v >> 64)` in xmm (`psrldq` + `pxor`).
    pub(crate) const SHIFT: u8 = 1;
    /// `_SHUF`: the text is garbled (the two shuffles are lost; what is
    /// left is `t3 = v1 ^ t4; t4 = v2 ^ t4; clmul(t3, t4, 16)`); we read
    /// `t4 = pshufd(v, 0x4e)` (the halves swapped) before each XOR.
    pub(crate) const SHUF: u8 = 2;
    /// `_UPK`: `unpackhi(v1, v2) ^ unpacklo(v1, v2)` puts both sums in one
    /// register; one PCLMULQDQ with immediate 1 multiplies its halves.
    pub(crate) const UPK: u8 = 3;

    #[target_feature(enable = "pclmulqdq,sse4.1")]
    #[inline(never)]
    fn ins_mul2_64<const V: u8>(b: &[u64; 2], c: &[u64; 2]) -> [u64; 4] {
        // SAFETY: 16-byte unaligned loads of two-word arrays.
        let (v1, v2) = unsafe {
            (
                _mm_loadu_si128(b.as_ptr().cast()),
                _mm_loadu_si128(c.as_ptr().cast()),
            )
        };
        let t1 = _mm_clmulepi64_si128(v1, v2, 0x00);
        let t2 = _mm_clmulepi64_si128(v1, v2, 0x11);
        let mid = match V {
            XOR64 => {
                let t3 = _mm_cvtsi64_si128((b[0] ^ b[1]) as i64);
                let t4 = _mm_cvtsi64_si128((c[0] ^ c[1]) as i64);
                _mm_clmulepi64_si128(t3, t4, 0x00)
            }
            SHIFT => {
                let t3 = _mm_xor_si128(v1, _mm_srli_si128(v1, 8));
                let t4 = _mm_xor_si128(v2, _mm_srli_si128(v2, 8));
                _mm_clmulepi64_si128(t3, t4, 0x00)
            }
            SHUF => {
                let t3 = _mm_xor_si128(v1, _mm_shuffle_epi32(v1, 0x4e));
                let t4 = _mm_xor_si128(v2, _mm_shuffle_epi32(v2, 0x4e));
                _mm_clmulepi64_si128(t3, t4, 0x10)
            }
            _ => {
                let t3 = _mm_unpackhi_epi64(v1, v2);
                let t4 = _mm_xor_si128(t3, _mm_unpacklo_epi64(v1, v2));
                _mm_clmulepi64_si128(t4, t4, 0x01)
            }
        };
        let v2 = _mm_xor_si128(_mm_xor_si128(mid, t2), t1);
        let lo = _mm_xor_si128(t1, _mm_slli_si128(v2, 8));
        let hi = _mm_xor_si128(t2, _mm_srli_si128(v2, 8));
        let mut out = [0u64; 4];
        // SAFETY: two 16-byte unaligned stores into a four-word array.
        unsafe {
            _mm_storeu_si128(out.as_mut_ptr().cast(), lo);
            _mm_storeu_si128(out.as_mut_ptr().add(2).cast(), hi);
        }
        out
    }

    /// `ins_mul2_64` with the variant `V`; the token proves PCLMULQDQ and
    /// SSE4.1.
    pub(crate) fn variant<const V: u8>(_: Clmul, a: &[u64; 2], b: &[u64; 2]) -> [u64; 4] {
        // SAFETY: the token proves the features.
        unsafe { ins_mul2_64::<V>(a, b) }
    }
}
