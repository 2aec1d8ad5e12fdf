//! The 256-bit carry-less multiplication and AES rounds (VPCLMULQDQ, VAES on
//! ymm) as every ymm kernel names them, and their emulation for the
//! constant-time check.
//!
//! Valgrind (3.19 to 3.24) cannot execute VPCLMULQDQ or VAES, so under it
//! the CPU appears to lack them and the ymm backends (`gf2x`, `gf2m`,
//! `ghash`, the AVX2 AES-GCM kernel) never ran in ct-check. With the
//! test-only feature `valgrind-isa`, each such instruction is two of its
//! 128-bit forms (`pclmulqdq`, `aesenc`, `aesenclast`) joined by AVX2 lane
//! moves, and [`crate::cpu`] reports VPCLMULQDQ where PCLMULQDQ and AVX2
//! are, VAES where AES-NI and AVX2 are. The kernels' data flow — every
//! branch and every address — is then the ymm backends' own, and valgrind
//! can follow it; only the timing of the two instructions themselves is
//! outside the check. (The same feature reports ADX, which valgrind runs
//! but hides; see [`crate::cpu`].) The emulation is slower and is never for
//! production: nothing but `crates/ct-check` turns the feature on.
//!
//! Without the feature the names are `core::arch`'s intrinsics.
#![allow(unsafe_code)]

#[cfg(not(feature = "valgrind-isa"))]
pub(crate) use core::arch::x86_64::{
    _mm256_aesenc_epi128, _mm256_aesenclast_epi128, _mm256_clmulepi64_epi128,
};
#[cfg(feature = "valgrind-isa")]
pub(crate) use emulated::{
    _mm256_aesenc_epi128, _mm256_aesenclast_epi128, _mm256_clmulepi64_epi128,
};

/// The emulations (always compiled, so the unit test below checks them on
/// every build against the real instructions where the CPU has them).
#[allow(dead_code)]
pub(crate) mod emulated {
    use core::arch::x86_64::{
        __m256i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_clmulepi64_si128,
        _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_set_m128i,
    };

    /// `$name`, a ymm instruction, as its xmm form `$xmm` on each 128-bit
    /// lane: lane k of the result from lane k of `a` and of `b`.
    macro_rules! per_lane {
        ($($(#[$doc:meta])* $name:ident $(<$imm:ident>)? = $xmm:ident, $features:literal;)*) => {$(
            $(#[$doc])*
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn $name$(<const $imm: i32>)?(a: __m256i, b: __m256i) -> __m256i {
                let lo = $xmm$(::<$imm>)?(_mm256_castsi256_si128(a), _mm256_castsi256_si128(b));
                let hi = $xmm$(::<$imm>)?(
                    _mm256_extracti128_si256::<1>(a),
                    _mm256_extracti128_si256::<1>(b),
                );
                _mm256_set_m128i(hi, lo)
            }
        )*};
    }

    per_lane! {
        /// `vpclmulqdq ymm` as two `pclmulqdq`: in each 128-bit lane, the
        /// product of the 64-bit halves `IMM8` selects (bit 0: `a`'s, bit 4:
        /// `b`'s).
        _mm256_clmulepi64_epi128<IMM8> = _mm_clmulepi64_si128, "avx2,pclmulqdq";
        /// `vaesenc ymm` as two `aesenc`: one AES round per 128-bit lane
        /// (`b` the round keys).
        _mm256_aesenc_epi128 = _mm_aesenc_si128, "avx2,aes";
        /// `vaesenclast ymm` as two `aesenclast`: the last AES round per lane.
        _mm256_aesenclast_epi128 = _mm_aesenclast_si128, "avx2,aes";
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::emulated;
    use crate::simd::ymm_from_u128s;
    use core::arch::x86_64::__m256i;

    fn words(v: __m256i) -> [u128; 2] {
        // SAFETY: same size, every bit pattern valid for both.
        unsafe { core::mem::transmute::<__m256i, [u128; 2]>(v) }
    }

    /// The carry-less product of two words, bit by bit.
    fn clmul(a: u64, b: u64) -> u128 {
        (0..64)
            .filter(|i| (b >> i) & 1 == 1)
            .fold(0u128, |acc, i| acc ^ (u128::from(a) << i))
    }

    fn inputs() -> impl Iterator<Item = ([u128; 2], [u128; 2])> {
        let mut s = 0x9e37_79b9_7f4a_7c15u128;
        core::iter::repeat_with(move || {
            let mut next = || {
                s = s.wrapping_mul(0x2360_ed05_1fc6_5da4_4385_df64_9fcc_f645) ^ (s >> 67);
                s
            };
            ([next(), next()], [next(), next()])
        })
        .take(64)
    }

    /// Each selector's lanes against the definition, and against the real
    /// instruction where the CPU has it.
    #[test]
    fn clmul_matches_the_definition_and_the_instruction() {
        let hw =
            std::is_x86_feature_detected!("vpclmulqdq") && std::is_x86_feature_detected!("avx2");
        if !(std::is_x86_feature_detected!("pclmulqdq") && std::is_x86_feature_detected!("avx2")) {
            return;
        }
        macro_rules! check {
            ($imm:literal, $a:expr, $b:expr) => {{
                let (a, b) = ($a, $b);
                // SAFETY: PCLMULQDQ and AVX2 were detected above.
                let got = words(unsafe {
                    emulated::_mm256_clmulepi64_epi128::<$imm>(ymm_from_u128s(a), ymm_from_u128s(b))
                });
                for l in 0..2 {
                    let x = (a[l] >> (64 * ($imm & 1))) as u64;
                    let y = (b[l] >> (64 * (($imm >> 4) & 1))) as u64;
                    assert_eq!(got[l], clmul(x, y), "imm {:#x} lane {l}", $imm);
                }
                if hw {
                    // SAFETY: VPCLMULQDQ and AVX2 were detected above.
                    let want = words(unsafe {
                        core::arch::x86_64::_mm256_clmulepi64_epi128::<$imm>(
                            ymm_from_u128s(a),
                            ymm_from_u128s(b),
                        )
                    });
                    assert_eq!(got, want, "imm {:#x}", $imm);
                }
            }};
        }
        for (a, b) in inputs() {
            check!(0x00, a, b);
            check!(0x01, a, b);
            check!(0x10, a, b);
            check!(0x11, a, b);
        }
    }

    /// The AES rounds lane by lane against `aesenc`/`aesenclast` on xmm,
    /// and against the real instructions where the CPU has them.
    #[test]
    fn aes_rounds_match_the_instructions() {
        use core::arch::x86_64::{_mm_aesenc_si128, _mm_aesenclast_si128};
        if !(std::is_x86_feature_detected!("aes") && std::is_x86_feature_detected!("avx2")) {
            return;
        }
        let hw = std::is_x86_feature_detected!("vaes");
        for (a, k) in inputs() {
            let (ya, yk) = (ymm_from_u128s(a), ymm_from_u128s(k));
            // SAFETY: AES-NI and AVX2 were detected above.
            let (enc, last) = unsafe {
                (
                    words(emulated::_mm256_aesenc_epi128(ya, yk)),
                    words(emulated::_mm256_aesenclast_epi128(ya, yk)),
                )
            };
            for l in 0..2 {
                let (xa, xk) = (crate::simd::from_u128(a[l]), crate::simd::from_u128(k[l]));
                // SAFETY: AES-NI was detected above.
                let (e, z) = unsafe { (_mm_aesenc_si128(xa, xk), _mm_aesenclast_si128(xa, xk)) };
                assert_eq!(enc[l], crate::simd::to_u128(e));
                assert_eq!(last[l], crate::simd::to_u128(z));
            }
            if hw {
                // SAFETY: VAES and AVX2 were detected above.
                let (e, z) = unsafe {
                    (
                        words(core::arch::x86_64::_mm256_aesenc_epi128(ya, yk)),
                        words(core::arch::x86_64::_mm256_aesenclast_epi128(ya, yk)),
                    )
                };
                assert_eq!(enc, e);
                assert_eq!(last, z);
            }
        }
    }
}
