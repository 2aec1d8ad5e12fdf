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

/// Su & Fan's Table 4 (§3.2): strategies 4-1, 7-2, 9-1 and 9-2 as the
/// listing's `_USE_AVX_` code paths (`mul4_64_avx`, `mul7_64_1`,
/// `mul9_64_1`, `mul9_64_2`): the sub-products are stored to memory and the
/// Karatsuba recombination is added there in 256-bit chunks
/// (`_mm256_xor_pd` on unaligned loads and stores: `vxorpd`), with a
/// 128-bit `pxor` and a word XOR for the tails, as the listing does. The
/// sub-products use our formulas for the listing's (4-1: the printed 2-word
/// Karatsuba; 7-2: 4-2m and 3-1m; 9-1: 5-1 by formula (6) and 4-2m; 9-2:
/// 3-1m), compiled with AVX (VEX encoding), as the listing must be. 4-1, 7-2
/// and 9-1 recombine in the two-term form the listing prints,
/// `C = P0 + (P1 + P0 + P2)·t + P2·t²`; 9-2 in the three-term form of its
/// `mul9_64_2`: `t1 += P0 + P1`, `t2 += P1 + P2`, `t3 += P0 + P2`, then
/// `t3`, `t1`, `t2` added at `x^(64·6)`, `x^(64·3)`, `x^(64·9)`. The text of
/// these paths is partly garbled (casts and some stores are lost: 7-2's
/// store at `c + 4` and 9-1's at `c + 13` are missing); we add what the
/// recombination needs.
pub(crate) mod vxorpd {
    use crate::cpu::Avx2Clmul;

    macro_rules! entries {
        ($($f:ident $n:literal),*) => {$(
            #[doc = concat!("`", stringify!($f), "` with `vxorpd` additions; false on wrong lengths.")]
            pub(crate) fn $f(t: Avx2Clmul, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
                let Some((x, y, o)) = crate::gf2x::formulas::fixed_arrays!($n, a, b, out) else {
                    return false;
                };
                // SAFETY: the token proves AVX, PCLMULQDQ and SSE4.1.
                unsafe { tf::$f(t, x, y, o) };
                true
            }
        )*};
    }
    entries!(s4_1 4, s7_2 7, s9_1_co 9, s9_2 9);

    /// The `#[target_feature]` kernels, reached only through the entries.
    mod tf {
        use crate::cpu::Avx2Clmul;
        use crate::gf2x::clmul::{PclmulLane, store_lanes, to_lanes};
        use crate::gf2x::reproduce::sufan::{mul2_plain, s3_1m, s4_2m, s5_1_co};
        use core::arch::x86_64::*;

        /// `dst[..n] ^= src[..n]`, `n` the shorter length: 256-bit `vxorpd`
        /// chunks, then a 128-bit `pxor`, then a word.
        #[inline(always)]
        fn xor_assign(dst: &mut [u64], src: &[u64]) {
            let n = dst.len().min(src.len());
            let (d, s) = (dst.as_mut_ptr(), src.as_ptr());
            let mut i = 0;
            // SAFETY: every access is inside the first `n` words of both
            // slices (`i + 4 <= n`, `i + 2 <= n`, `i < n`), unaligned; the
            // calling kernel's target features include AVX.
            unsafe {
                while i + 4 <= n {
                    let p = d.add(i).cast::<f64>();
                    let x = _mm256_xor_pd(_mm256_loadu_pd(p), _mm256_loadu_pd(s.add(i).cast()));
                    _mm256_storeu_pd(p, x);
                    i += 4;
                }
                if i + 2 <= n {
                    let p = d.add(i).cast::<__m128i>();
                    let x = _mm_xor_si128(_mm_loadu_si128(p), _mm_loadu_si128(s.add(i).cast()));
                    _mm_storeu_si128(p, x);
                    i += 2;
                }
                if i < n {
                    *d.add(i) ^= *s.add(i);
                }
            }
        }

        /// `x[off ..]` as an `N`-word array, zero past the end.
        #[inline(always)]
        fn piece<const N: usize>(x: &[u64], off: usize) -> [u64; N] {
            core::array::from_fn(|i| x.get(off + i).copied().unwrap_or(0))
        }

        /// The two-term strategies over `H + K` words: `P0` into `c[..2H]`,
        /// `P2` into `c[2H..]`, `P1` of the piece sums into `t3`, then
        /// `t3 += P0`, `t3 += P2`, `c[H..3H] += t3`, in `vxorpd` chunks.
        macro_rules! two_term {
            ($($(#[$attr:meta])* $name:ident $n:literal = $h:literal + $k:literal,
               $lo:ident, $hi:ident;)*) => {$(
                $(#[$attr])*
                #[target_feature(enable = "pclmulqdq,sse4.1,avx")]
                #[inline(never)]
                pub(super) fn $name(t: Avx2Clmul, a: &[u64; $n], b: &[u64; $n], c: &mut [u64; 2 * $n]) {
                    const { assert!($h + $k == $n && $k <= $h) };
                    let m = PclmulLane(t.clmul());
                    let (a0, b0): ([u64; $h], [u64; $h]) = (piece(a, 0), piece(b, 0));
                    let (a1, b1): ([u64; $k], [u64; $k]) = (piece(a, $h), piece(b, $h));
                    let (p0, p2) = c.split_at_mut(2 * $h);
                    if let (Some(p0), Some(p2)) = (
                        p0.first_chunk_mut::<{ 2 * $h }>(),
                        p2.first_chunk_mut::<{ 2 * $k }>(),
                    ) {
                        store_lanes(p0, $lo(m, &to_lanes(&a0), &to_lanes(&b0)));
                        store_lanes(p2, $hi(m, &to_lanes(&a1), &to_lanes(&b1)));
                    }
                    let (mut s, mut u) = (a0, b0);
                    xor_assign(&mut s, &a1);
                    xor_assign(&mut u, &b1);
                    let mut t3 = [0u64; 2 * $h];
                    store_lanes(&mut t3, $lo(m, &to_lanes(&s), &to_lanes(&u)));
                    xor_assign(&mut t3, &c[..2 * $h]);
                    xor_assign(&mut t3, &c[2 * $h..]);
                    xor_assign(&mut c[$h..3 * $h], &t3);
                }
            )*};
        }

        two_term! {
            /// 4-1 (`mul4_64_avx`): three 2-word products.
            s4_1 4 = 2 + 2, mul2_plain, mul2_plain;
            /// 7-2 (`mul7_64_1`): 4 + 3 words.
            s7_2 7 = 4 + 3, s4_2m, s3_1m;
            /// 9-1 (`mul9_64_1`): 5 + 4 words.
            s9_1_co 9 = 5 + 4, s5_1_co, s4_2m;
        }

        /// One 3-1m product of 3-word pieces, stored.
        #[inline(always)]
        fn mul3(m: PclmulLane, x: &[u64; 3], y: &[u64; 3]) -> [u64; 6] {
            let mut p = [0u64; 6];
            store_lanes(&mut p, s3_1m(m, &to_lanes(x), &to_lanes(y)));
            p
        }

        /// `x + y` on 3-word pieces.
        #[inline(always)]
        fn add3(x: &[u64; 3], y: &[u64; 3]) -> [u64; 3] {
            [x[0] ^ y[0], x[1] ^ y[1], x[2] ^ y[2]]
        }

        /// 9-2 (`mul9_64_2`): the three-term formula over 3-word pieces,
        /// its six 3-word products by 3-1m, recombined in memory (each
        /// 6-word sum as one `vxorpd` chunk and one `pxor`).
        #[target_feature(enable = "pclmulqdq,sse4.1,avx")]
        #[inline(never)]
        pub(super) fn s9_2(t: Avx2Clmul, a: &[u64; 9], b: &[u64; 9], c: &mut [u64; 18]) {
            let m = PclmulLane(t.clmul());
            let ap: [[u64; 3]; 3] = [piece(a, 0), piece(a, 3), piece(a, 6)];
            let bp: [[u64; 3]; 3] = [piece(b, 0), piece(b, 3), piece(b, 6)];
            c[0..6].copy_from_slice(&mul3(m, &ap[0], &bp[0]));
            c[6..12].copy_from_slice(&mul3(m, &ap[1], &bp[1]));
            c[12..18].copy_from_slice(&mul3(m, &ap[2], &bp[2]));
            let mut t1 = mul3(m, &add3(&ap[0], &ap[1]), &add3(&bp[0], &bp[1]));
            let mut t2 = mul3(m, &add3(&ap[1], &ap[2]), &add3(&bp[1], &bp[2]));
            let mut t3 = mul3(m, &add3(&ap[0], &ap[2]), &add3(&bp[0], &bp[2]));
            xor_assign(&mut t1, &c[0..6]);
            xor_assign(&mut t1, &c[6..12]);
            xor_assign(&mut t2, &c[12..18]);
            xor_assign(&mut t2, &c[6..12]);
            xor_assign(&mut t3, &c[0..6]);
            xor_assign(&mut t3, &c[12..18]);
            xor_assign(&mut c[6..12], &t3);
            xor_assign(&mut c[3..9], &t1);
            xor_assign(&mut c[9..15], &t2);
        }
    }
}
