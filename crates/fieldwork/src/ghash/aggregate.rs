//! Aggregated reduction on vector registers, shared by the stitched AES-GCM
//! kernels (`gcm::aesni` on xmm, `gcm::vaes256` on ymm, `gcm::vaes512` on
//! zmm) and the GHASH kernels: the unreduced sums of 128×128-bit carry-less
//! products, lane by lane, and their Montgomery reduction.
//!
//! # The math
//!
//! In POLYVAL's domain (RFC 8452 appendix A; see [`super`]) the product of
//! two field elements `d = d₁·x^64 + d₀` and `p = p₁·x^64 + p₀` is
//! `T·x^(−128)` with `T = hi·x^128 + mid·x^64 + lo`, `lo = d₀p₀`,
//! `hi = d₁p₁`, `mid = d₀p₁ ⊕ d₁p₀` (schoolbook: four carry-less products).
//! Aggregated reduction (Gueron & Kounavis, Intel white paper 323640)
//! sums the `T` of many blocks before one reduction: block `j` of a group
//! of `n` meets `H^(n−j)`, and `Σ Tⱼ·x^(−128)` is reduced once. The
//! reduction is `T·x^(−128) = hi ⊕ fold(mid ⊕ fold(lo))`, `fold(v) =
//! swap64(v) ⊕ v₀·C` with `C = x^63 + x^62 + x^57` ([`super::mont_reduce`]
//! on scalars): the middle sum is never split into halves, so no byte
//! shifts — two shuffles, two carry-less products and four XORs (two
//! ternary XORs on zmm), on every lane at once.
//!
//! Schoolbook by default: `vpclmulqdq` and `vpshufd` share one port on
//! the Intel cores measured, so Karatsuba's three products plus the
//! shuffle and XOR that form `d₀ ⊕ d₁` save no slot on that port and cost
//! an XOR (the xmm GHASH kernel, which keeps `p₀ ⊕ p₁` per key, uses
//! Karatsuba and recombines before [`xmm::reduce`]). The ymm sums can also
//! be Karatsuba's, for AMD cores (see [`ymm`]).
//!
//! Every function here is `#[inline]` with the features it needs, so that
//! it inlines into kernels compiled for a superset.
#![allow(unsafe_code)]

/// The unreduced schoolbook sums of a group (`Sums`: `lo`, `hi`, `mid`,
/// per lane) and empty ones (`zero_sums`), on registers of type `$v`
/// compiled with `$features`: the same at every width but ymm's, whose
/// sums also carry their form.
macro_rules! schoolbook_sums {
    ($features:literal, $v:ty, $zero:expr) => {
        /// The unreduced schoolbook sums `lo`, `hi`, `mid` of a group, per
        /// lane.
        #[derive(Clone, Copy)]
        pub(crate) struct Sums {
            pub(crate) lo: $v,
            pub(crate) hi: $v,
            pub(crate) mid: $v,
        }

        /// Empty sums.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn zero_sums() -> Sums {
            let z = $zero;
            Sums {
                lo: z,
                hi: z,
                mid: z,
            }
        }
    };
}

/// The sums `lo`, `mid`, `hi` reduced lane by lane, `hi ⊕ fold(mid ⊕
/// fold(lo))` with `fold(v) = swap64(v) ⊕ v₀·C` (`c` holds `C` in each
/// lane's low word), from the width's XOR, 64-bit-halves swap and
/// carry-less product: the xmm and ymm reductions (the zmm one XORs three
/// at a time).
macro_rules! montgomery {
    ($xor:ident, $swap:ident, $clmul:ident, $lo:expr, $mid:expr, $hi:expr, $c:expr) => {{
        let (lo, c) = ($lo, $c);
        let m = $xor($mid, $xor($swap::<0x4e>(lo), $clmul::<0x00>(lo, c)));
        $xor($hi, $xor($swap::<0x4e>(m), $clmul::<0x00>(m, c)))
    }};
}

/// One 128-bit lane (xmm): the AES-NI kernel and the PCLMULQDQ GHASH kernel.
pub(crate) mod xmm {
    use core::arch::x86_64::{
        __m128i, _mm_clmulepi64_si128, _mm_setzero_si128, _mm_shuffle_epi32, _mm_xor_si128,
    };

    schoolbook_sums!("pclmulqdq,sse4.1", __m128i, _mm_setzero_si128());

    /// The sums reduced: `hi ⊕ fold(mid ⊕ fold(lo))`; `c` holds `C` in its
    /// low word.
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    pub(crate) fn reduce(s: Sums, c: __m128i) -> __m128i {
        montgomery!(
            _mm_xor_si128,
            _mm_shuffle_epi32,
            _mm_clmulepi64_si128,
            s.lo,
            s.mid,
            s.hi,
            c
        )
    }

    /// Accumulates the product `d·p` (four `pclmulqdq`).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse4.1")]
    pub(crate) fn mul_acc(d: __m128i, p: __m128i, s: &mut Sums) {
        s.lo = _mm_xor_si128(s.lo, _mm_clmulepi64_si128::<0x00>(d, p));
        s.hi = _mm_xor_si128(s.hi, _mm_clmulepi64_si128::<0x11>(d, p));
        s.mid = _mm_xor_si128(
            s.mid,
            _mm_xor_si128(
                _mm_clmulepi64_si128::<0x01>(d, p),
                _mm_clmulepi64_si128::<0x10>(d, p),
            ),
        );
    }
}

/// Two 128-bit lanes (ymm): the VAES/VPCLMULQDQ AVX2 kernel.
///
/// Its sums take the products in one of two forms, fixed when the sums are
/// made ([`ymm::zero_sums`]): schoolbook (four `vpclmulqdq` per register), or
/// Karatsuba — `mid` accumulates `(d₀ ⊕ d₁)(p₀ ⊕ p₁)` (three
/// `vpclmulqdq`, a `vpshufd` and a `vpxor` for each operand's half-sum) and
/// [`ymm::reduce`] recombines `mid ⊕ lo ⊕ hi` once. Karatsuba is the schedule for
/// cores where `vpclmulqdq` is the scarce instruction (AMD Zen 3: one per
/// two cycles, against two `vpshufd` and four `vpxor` per cycle;
/// `peer-bench --isa-rates`); schoolbook for cores where it is not (the
/// Intel cores measured, where `vpclmulqdq` and `vpshufd` share a port).
pub(crate) mod ymm {
    use crate::vex256::_mm256_clmulepi64_epi128;
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_xor_si128, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_xor_si256,
    };

    /// The unreduced sums of a group, per lane, and their form.
    #[derive(Clone, Copy)]
    pub(crate) struct Sums {
        lo: __m256i,
        hi: __m256i,
        mid: __m256i,
        /// Karatsuba's `mid` (else schoolbook's): a public, per-key choice.
        pub(crate) karatsuba: bool,
    }

    /// Empty sums of the given form.
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn zero_sums(karatsuba: bool) -> Sums {
        let z = _mm256_setzero_si256();
        Sums {
            lo: z,
            hi: z,
            mid: z,
            karatsuba,
        }
    }

    /// `v₀ ⊕ v₁` in each lane's low word (and high word).
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    fn halves(v: __m256i) -> __m256i {
        _mm256_xor_si256(v, _mm256_shuffle_epi32::<0x4e>(v))
    }

    /// The middle product of `d·p` in the sums' form.
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    fn mid_product(d: __m256i, p: __m256i, karatsuba: bool) -> __m256i {
        if karatsuba {
            _mm256_clmulepi64_epi128::<0x00>(halves(d), halves(p))
        } else {
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128::<0x01>(d, p),
                _mm256_clmulepi64_epi128::<0x10>(d, p),
            )
        }
    }

    /// Accumulates the two lanes' products `d·p`.
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn mul_acc(d: __m256i, p: __m256i, s: &mut Sums) {
        s.lo = _mm256_xor_si256(s.lo, _mm256_clmulepi64_epi128::<0x00>(d, p));
        s.hi = _mm256_xor_si256(s.hi, _mm256_clmulepi64_epi128::<0x11>(d, p));
        s.mid = _mm256_xor_si256(s.mid, mid_product(d, p, s.karatsuba));
    }

    /// The low and high products of `d·p` and `e·q` into the sums (both
    /// forms have them).
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    fn lo_hi2(d: __m256i, p: __m256i, e: __m256i, q: __m256i, s: &mut Sums) {
        s.lo = _mm256_xor_si256(
            s.lo,
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128::<0x00>(d, p),
                _mm256_clmulepi64_epi128::<0x00>(e, q),
            ),
        );
        s.hi = _mm256_xor_si256(
            s.hi,
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128::<0x11>(d, p),
                _mm256_clmulepi64_epi128::<0x11>(e, q),
            ),
        );
    }

    /// [`mul_acc`] for two registers: each sum takes both registers'
    /// products XORed together (the same number of XORs as two
    /// [`mul_acc`], with half the dependency chain through the sums).
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn mul_acc2(d: __m256i, p: __m256i, e: __m256i, q: __m256i, s: &mut Sums) {
        lo_hi2(d, p, e, q, s);
        let (md, me) = (
            mid_product(d, p, s.karatsuba),
            mid_product(e, q, s.karatsuba),
        );
        s.mid = _mm256_xor_si256(s.mid, _mm256_xor_si256(md, me));
    }

    /// [`mul_acc2`] for Karatsuba sums with the powers' half-sums given:
    /// `ph` and `qh` hold each lane's `p₀ ⊕ p₁` and `q₀ ⊕ q₁` in its low word
    /// (a per-key table), which saves the `vpshufd` and `vpxor` of
    /// [`halves`] for each power register.
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn mul_acc2_halves(
        d: __m256i,
        p: __m256i,
        ph: __m256i,
        e: __m256i,
        q: __m256i,
        qh: __m256i,
        s: &mut Sums,
    ) {
        debug_assert!(s.karatsuba);
        lo_hi2(d, p, e, q, s);
        let md = _mm256_clmulepi64_epi128::<0x00>(halves(d), ph);
        let me = _mm256_clmulepi64_epi128::<0x00>(halves(e), qh);
        s.mid = _mm256_xor_si256(s.mid, _mm256_xor_si256(md, me));
    }

    /// The two lanes' sums reduced, each in its lane (`c` holds `C` in each
    /// lane's low word).
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn reduce_lanes(s: Sums, c: __m256i) -> __m256i {
        let mid = if s.karatsuba {
            _mm256_xor_si256(s.mid, _mm256_xor_si256(s.lo, s.hi))
        } else {
            s.mid
        };
        montgomery!(
            _mm256_xor_si256,
            _mm256_shuffle_epi32,
            _mm256_clmulepi64_epi128,
            s.lo,
            mid,
            s.hi,
            c
        )
    }

    /// The two lanes' sums reduced ([`reduce_lanes`]) and XORed together.
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn reduce(s: Sums, c: __m256i) -> __m128i {
        let r = reduce_lanes(s, c);
        _mm_xor_si128(_mm256_castsi256_si128(r), _mm256_extracti128_si256::<1>(r))
    }

    /// The lane-wise dot products `a·b·x^(−128)`, reduced in each lane
    /// (schoolbook products).
    #[inline]
    #[target_feature(enable = "avx,avx2,vpclmulqdq")]
    pub(crate) fn dot2(a: __m256i, b: __m256i, c: __m256i) -> __m256i {
        let mut s = zero_sums(false);
        mul_acc(a, b, &mut s);
        reduce_lanes(s, c)
    }
}

/// Four 128-bit lanes (zmm): the VAES/VPCLMULQDQ AVX-512 kernel and the
/// zmm GHASH key setup.
pub(crate) mod zmm {
    use core::arch::x86_64::{
        __m128i, __m512i, _MM_PERM_BADC, _mm_xor_si128, _mm256_castsi256_si128,
        _mm256_extracti128_si256, _mm256_xor_si256, _mm512_castsi512_si256,
        _mm512_clmulepi64_epi128, _mm512_extracti64x4_epi64, _mm512_set1_epi32,
        _mm512_shuffle_epi32, _mm512_ternarylogic_epi64, _mm512_xor_si512,
    };

    schoolbook_sums!("avx2,avx512f,vpclmulqdq", __m512i, _mm512_set1_epi32(0));

    /// Accumulates the four lanes' products `d·p`.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,vpclmulqdq")]
    pub(crate) fn mul_acc(d: __m512i, p: __m512i, s: &mut Sums) {
        s.lo = _mm512_xor_si512(s.lo, _mm512_clmulepi64_epi128::<0x00>(d, p));
        s.hi = _mm512_xor_si512(s.hi, _mm512_clmulepi64_epi128::<0x11>(d, p));
        s.mid = _mm512_ternarylogic_epi64::<0x96>(
            s.mid,
            _mm512_clmulepi64_epi128::<0x01>(d, p),
            _mm512_clmulepi64_epi128::<0x10>(d, p),
        );
    }

    /// [`mul_acc`] for two registers, the new products entering the sums
    /// by ternary XORs: four XOR operations for eight products.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,vpclmulqdq")]
    pub(crate) fn mul_acc2(d: __m512i, p: __m512i, e: __m512i, q: __m512i, s: &mut Sums) {
        s.lo = _mm512_ternarylogic_epi64::<0x96>(
            s.lo,
            _mm512_clmulepi64_epi128::<0x00>(d, p),
            _mm512_clmulepi64_epi128::<0x00>(e, q),
        );
        s.hi = _mm512_ternarylogic_epi64::<0x96>(
            s.hi,
            _mm512_clmulepi64_epi128::<0x11>(d, p),
            _mm512_clmulepi64_epi128::<0x11>(e, q),
        );
        let m = _mm512_ternarylogic_epi64::<0x96>(
            s.mid,
            _mm512_clmulepi64_epi128::<0x01>(d, p),
            _mm512_clmulepi64_epi128::<0x10>(d, p),
        );
        s.mid = _mm512_ternarylogic_epi64::<0x96>(
            m,
            _mm512_clmulepi64_epi128::<0x01>(e, q),
            _mm512_clmulepi64_epi128::<0x10>(e, q),
        );
    }

    /// The four lanes' sums reduced, each in its lane (`c` holds `C` in
    /// each lane's low word).
    #[inline]
    #[target_feature(enable = "avx2,avx512f,vpclmulqdq")]
    pub(crate) fn reduce_lanes(s: Sums, c: __m512i) -> __m512i {
        let m = _mm512_ternarylogic_epi64::<0x96>(
            s.mid,
            _mm512_shuffle_epi32::<_MM_PERM_BADC>(s.lo),
            _mm512_clmulepi64_epi128::<0x00>(s.lo, c),
        );
        _mm512_ternarylogic_epi64::<0x96>(
            s.hi,
            _mm512_shuffle_epi32::<_MM_PERM_BADC>(m),
            _mm512_clmulepi64_epi128::<0x00>(m, c),
        )
    }

    /// The four lanes' sums reduced ([`reduce_lanes`]) and XORed together.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,vpclmulqdq")]
    pub(crate) fn reduce(s: Sums, c: __m512i) -> __m128i {
        let r = reduce_lanes(s, c);
        let y = _mm256_xor_si256(_mm512_castsi512_si256(r), _mm512_extracti64x4_epi64::<1>(r));
        _mm_xor_si128(_mm256_castsi256_si128(y), _mm256_extracti128_si256::<1>(y))
    }

    /// The lane-wise dot products `a·b·x^(−128)`, reduced in each lane.
    #[inline]
    #[target_feature(enable = "avx2,avx512f,vpclmulqdq")]
    pub(crate) fn dot4(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
        let s = Sums {
            lo: _mm512_clmulepi64_epi128::<0x00>(a, b),
            hi: _mm512_clmulepi64_epi128::<0x11>(a, b),
            mid: _mm512_xor_si512(
                _mm512_clmulepi64_epi128::<0x01>(a, b),
                _mm512_clmulepi64_epi128::<0x10>(a, b),
            ),
        };
        reduce_lanes(s, c)
    }
}
