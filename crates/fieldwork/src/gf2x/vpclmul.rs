//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `vpclmulqdq`, `pclmulqdq`, `sse4.1` — capability token [`Avx512Clmul`].
//!
//! # The 8×8-word product on zmm
//!
//! `vpclmulqdq` on a zmm register computes four independent 64×64 products,
//! one per 128-bit lane, each lane choosing the low or high word of each
//! operand by the immediate. With `A = [a0 a1 | a2 a3 | a4 a5 | a6 a7]`
//! (lane k holds words 2k, 2k+1) and `Bt` the pair `[b2t b2t+1]` broadcast to
//! every lane, the four immediates give, in lane k,
//!
//! ```text
//! 0x00: a(2k)·b(2t)        at word 2k+2t     = lane k+t
//! 0x11: a(2k+1)·b(2t+1)    at word 2k+2t+2   = lane k+t+1
//! 0x01: a(2k+1)·b(2t)  ┐
//! 0x10: a(2k)·b(2t+1)  ┘   at word 2k+2t+1   = lane k+t, plus one word
//! ```
//!
//! So for t = 0..4 the products are XORed, without moving them, into
//! accumulators indexed by their lane shift (five for the even-offset
//! products, four for the odd ones); at the end each accumulator is shifted
//! into place across the two result registers with `valignq`, and the odd
//! sum is shifted by one word. That is all 64 word products in 16
//! `vpclmulqdq`, 4 lane broadcasts (`vshufi64x2`), 14 `valignq` and about
//! 30 XORs — against 27 products and about 330 instructions for the 8-word
//! Karatsuba kernel on xmm lanes. (Schoolbook, not Karatsuba, at this level:
//! four products per instruction make the multiplications cheaper than the
//! additions and shuffles Karatsuba would add.)
//!
//! # Larger sizes
//!
//! The generic formulas of [`super::formulas`] run on [`Limb512`] digits (8 words
//! each), so 16 words is one Karatsuba step over three 8×8 products, 24 the
//! three-term formula, 32 two Karatsuba levels, and so on — every partial
//! product and sum held in zmm registers (32 of them with AVX-512).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size kernels: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::formulas;
use super::{Backend, Costs};
use crate::cpu::Avx512Clmul;
use core::arch::x86_64::{
    __m128i, __m512i, _mm256_set_m128i, _mm512_alignr_epi64, _mm512_castsi256_si512,
    _mm512_clmulepi64_epi128, _mm512_inserti64x4, _mm512_loadu_si512, _mm512_mask_storeu_epi64,
    _mm512_maskz_loadu_epi64, _mm512_permutex2var_epi64, _mm512_set_epi64, _mm512_setzero_si512,
    _mm512_shuffle_i64x2, _mm512_storeu_si512, _mm512_xor_si512,
};

formulas::limb_multiplier!(
    /// Eight words of a polynomial in one zmm register, word 0 in the lowest lane.
    Limb512(__m512i; 8), _mm512_xor_si512;
    /// The 8×8-word multiplier (see the module docs).
    ZmmMul(Avx512Clmul) = mul8x8
);

/// The 16-word product of two 8-word polynomials, as (low, high) registers.
///
/// # Safety
///
/// Needs AVX-512F and VPCLMULQDQ.
#[inline(always)]
unsafe fn mul8x8(a: __m512i, b: __m512i) -> (__m512i, __m512i) {
    // SAFETY: the caller guarantees AVX-512F and VPCLMULQDQ, all the
    // intrinsics below need; none touches memory.
    unsafe {
        let zero = _mm512_setzero_si512();
        let mut even = [zero; 5];
        let mut odd = [zero; 4];
        macro_rules! column {
            ($t:literal, $sel:literal) => {
                // [b(2t) b(2t+1)] in every lane.
                let bt = _mm512_shuffle_i64x2::<$sel>(b, b);
                even[$t] = _mm512_xor_si512(even[$t], _mm512_clmulepi64_epi128::<0x00>(a, bt));
                even[$t + 1] =
                    _mm512_xor_si512(even[$t + 1], _mm512_clmulepi64_epi128::<0x11>(a, bt));
                odd[$t] = _mm512_xor_si512(
                    odd[$t],
                    _mm512_xor_si512(
                        _mm512_clmulepi64_epi128::<0x01>(a, bt),
                        _mm512_clmulepi64_epi128::<0x10>(a, bt),
                    ),
                );
            };
        }
        column!(0, 0x00);
        column!(1, 0x55);
        column!(2, 0xaa);
        column!(3, 0xff);
        // Shift accumulator s left by s lanes (2s words) across (lo, hi).
        // `valignq` concatenates its first operand above its second and
        // shifts right by the immediate number of words.
        let mut lo = even[0];
        let mut hi = even[4];
        macro_rules! place {
            ($v:expr, $s:literal, $lo:ident, $hi:ident) => {
                $lo = _mm512_xor_si512($lo, _mm512_alignr_epi64::<{ 8 - 2 * $s }>($v, zero));
                $hi = _mm512_xor_si512($hi, _mm512_alignr_epi64::<{ 8 - 2 * $s }>(zero, $v));
            };
        }
        place!(even[1], 1, lo, hi);
        place!(even[2], 2, lo, hi);
        place!(even[3], 3, lo, hi);
        let mut odd_lo = odd[0];
        let mut odd_hi = zero;
        place!(odd[1], 1, odd_lo, odd_hi);
        place!(odd[2], 2, odd_lo, odd_hi);
        place!(odd[3], 3, odd_lo, odd_hi);
        // The odd-offset products sit one word higher.
        lo = _mm512_xor_si512(lo, _mm512_alignr_epi64::<7>(odd_lo, zero));
        hi = _mm512_xor_si512(hi, _mm512_alignr_epi64::<7>(odd_hi, odd_lo));
        (lo, hi)
    }
}

/// Eight words at `p` as a zmm register, read as four 16-byte quarters: a
/// 64-byte load of words written by narrower stores (as a copy or most
/// callers' code writes them) cannot be store-forwarded and waits for the
/// stores to retire. `asm!` keeps LLVM from merging the loads back.
///
/// # Safety
///
/// Needs AVX-512F; `p` points to eight readable words.
#[inline(always)]
unsafe fn load_quarters(p: *const u64) -> __m512i {
    let (q0, q1, q2, q3): (__m128i, __m128i, __m128i, __m128i);
    // SAFETY: the caller guarantees AVX-512F and 64 readable bytes at
    // `p`; the four unaligned loads read exactly those bytes and write
    // nothing.
    unsafe {
        core::arch::asm!(
            "vmovdqu {q0}, xmmword ptr [{p}]",
            "vmovdqu {q1}, xmmword ptr [{p} + 16]",
            "vmovdqu {q2}, xmmword ptr [{p} + 32]",
            "vmovdqu {q3}, xmmword ptr [{p} + 48]",
            p = in(reg) p,
            q0 = out(xmm_reg) q0,
            q1 = out(xmm_reg) q1,
            q2 = out(xmm_reg) q2,
            q3 = out(xmm_reg) q3,
            options(pure, readonly, nostack, preserves_flags),
        );
        let lo = _mm256_set_m128i(q1, q0);
        let hi = _mm256_set_m128i(q3, q2);
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
    }
}

/// Loads `N` words (`N ≤ 8·L`) into `L` limbs, zero-padding the last.
/// A loop, not `array::from_fn`: its closure is a function of its own,
/// without this backend's target features, and one build left it out of
/// line (8 words 41.8 → 146 ticks, Xeon).
///
/// # Safety
///
/// Needs AVX-512F.
#[inline(always)]
unsafe fn load_limbs<const L: usize>(a: &[u64]) -> [Limb512; L] {
    // SAFETY: AVX-512F per the caller; no memory access.
    let mut limbs = [Limb512(unsafe { _mm512_setzero_si512() }); L];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let start = (8 * i).min(a.len());
        let chunk = &a[start..a.len().min(8 * i + 8)];
        // SAFETY: AVX-512F per the caller; a full chunk is 64 readable
        // bytes; a short one is loaded with a mask of its length, which does
        // not touch memory past it.
        *limb = unsafe {
            if chunk.len() == 8 && L == 1 {
                // The 8-word product's operands, written by the caller's
                // narrower stores (larger products' limbs come from our
                // own 64-byte stores).
                Limb512(load_quarters(chunk.as_ptr()))
            } else if chunk.len() == 8 {
                Limb512(_mm512_loadu_si512(chunk.as_ptr().cast()))
            } else {
                let mask = ((1u32 << chunk.len()) - 1) as u8;
                Limb512(_mm512_maskz_loadu_epi64(mask, chunk.as_ptr().cast()))
            }
        };
    }
    limbs
}

/// Stores the first `out.len()` words of the limbs.
///
/// # Safety
///
/// Needs AVX-512F.
#[inline(always)]
unsafe fn store_limbs<const L: usize>(out: &mut [u64], c: &[Limb512; L]) {
    for (i, limb) in c.iter().enumerate() {
        let start = 8 * i;
        if start >= out.len() {
            break;
        }
        let end = (start + 8).min(out.len());
        let dst = &mut out[start..end];
        if dst.len() == 8 {
            // SAFETY: AVX-512F per the caller; `dst` has 64 writable bytes.
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().cast(), limb.0) };
        } else {
            let mask = ((1u32 << dst.len()) - 1) as u8;
            // SAFETY: AVX-512F per the caller; the mask writes only the
            // `dst.len()` words of `dst` (masked-off lanes touch no memory).
            unsafe { _mm512_mask_storeu_epi64(dst.as_mut_ptr().cast(), mask, limb.0) };
        }
    }
}

super::simd_backend! {
    /// The VPCLMULQDQ backend on zmm (see [`Backend`]); holding one proves the
    /// instructions.
    Vpclmulqdq(Avx512Clmul) = "vpclmulqdq", fft super::fft::vpclmul::ZmmFft,
    /// 8, 16, 24, 32 words are one to four 8-word limbs; sizes in between
    /// cost as the next limb count. 25–32 words: 255 ticks (peer-bench, 32
    /// words) since each limb count has its own non-inlined kernel; they
    /// measured 327 while the four were inlined into one function. The FFT
    /// from 11 000 words, and from 3 400 where it fills its transform (see
    /// `plan.rs`).
    costs [
        0, 29, 28, 28, 25, 38, 32, 32, 28, 83, 80, 80, 79, 79, 80, 80, 79, 159, 159, 159, 158,
        159, 159, 159, 158, 255, 255, 255, 255, 255, 255, 255, 255,
    ], fft_min 11_000, fft_dense_min 3_400;
    {
        #[inline]
        fn clmul64(self, a: u64, b: u64) -> u128 {
            super::clmul::Pclmulqdq(self.0.clmul()).clmul64(a, b)
        }

        fn fixed(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            // Where the two-word-digit schoolbook or the ymm kernels are
            // faster on this core (the tables, with their measurements, in
            // `tuning.rs`).
            if a.len() > super::tuning::ZMM_ALWAYS_MAX {
                let choice = super::tuning::fixed_choice();
                if choice.schoolbook.zmm.has(a.len()) {
                    return tf::schoolbook(self.0, out, a, b);
                }
                if choice.on_ymm.has(a.len()) {
                    return super::ymm::VpclmulqdqYmm(self.0.avx2_clmul()).fixed_lanes(out, a, b);
                }
            }
            // SAFETY: the token proves every feature `tf::fixed` enables.
            unsafe { tf::fixed(self.0, out, a, b) }
        }

        /// `mul_fixed`'s arrays: there the xmm lanes stay faster at 5 words on
        /// Zen 4 too (60 against 73 cycles; 6 words 90 against 56 on the ymm
        /// kernel). Not inlined into the array products, which other crates
        /// inline (as `fixed`, it keeps the `#[target_feature]` entry a direct
        /// call).
        fn fixed_arrays(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            if a.len() == 5 {
                // SAFETY: the token proves every feature `tf::fixed` enables.
                return unsafe { tf::fixed(self.0, out, a, b) };
            }
            self.fixed(out, a, b)
        }
    }
}

/// The `#[target_feature]` functions, reached only through [`Vpclmulqdq`].
mod tf {
    use super::*;

    formulas::fixed_slice_entry!(
        /// Sizes 1–7 and 9 run the formulas of [`formulas`] on xmm lanes compiled
        /// here, with AVX-512 enabled: VEX/EVEX encodings and 32 vector
        /// registers instead of the SSE build's 16 (the 9-word kernel stops
        /// spilling). 8 words is one zmm 8×8 product (unless `tuning.rs`
        /// sends it to the ymm kernel, as on the Intel f6m207); 10–16, 17–24 and 25–32
        /// the zmm formulas over 2, 3 and 4 limbs, zero-padded. Chosen by
        /// peer-bench (median ticks per chained `mul_into` with
        /// constant-length chaining copies), lanes here against the same
        /// formulas in the SSE build and against one zero-padded zmm limb:
        ///
        /// | words | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 |
        /// |---|---|---|---|---|---|---|---|---|---|
        /// | lanes, AVX-512 build | 18.0 | 17.3 | 18.7 | 20.1 | 24.6 | 28.4 | 35.9 | – | 51.6 |
        /// | lanes, SSE build | 15.8 | 16.6 | 18.0 | 22.9 | 30.5 | 36.1 | 47.1 | 60.1 | 71.6 |
        /// | one zmm limb (masked) | – | – | – | 43 | – | 48 | 54 | 45.3 | – |
        ///
        /// The padded zmm limb loses at 4–7 words because its masked loads and
        /// stores do not forward to and from the chained caller's narrower
        /// stores and loads.
        ///
        /// Formulas: with 32 registers the schoolbook (all products independent,
        /// no sums of operands before the products) has the shortest dependency
        /// chain and wins at 2, 5 and 6 words (5 words 24.6 → 19.7 ticks, 6 words
        /// 28.4 → 24.6–28); Karatsuba stays at 4 and 7 (schoolbook: 23.2 and
        /// 79.8, the 49 products of 7 words exceed the registers), the
        /// three-term formula at 9. At 4 words Karatsuba's recombination is
        /// Su–Fan's refined one (4-1m; Zen 4, ticks: `mul_fixed` 27.0 → 24.6,
        /// the `sufan` group's chained `mul_into` 26.9 → 25.3, the `gf2x_mul`
        /// row unchanged at 26.0). Where `tuning::SCHOOLBOOK` lists 4 words
        /// (Intel: `pclmulqdq` once a cycle), the backend's `fixed` sends them
        /// to `tf::schoolbook` instead, the schoolbook on two-word digits (16
        /// products, none behind an operand sum; Xeon 20.8 → 17.2 ticks).
        /// The 8-word lane kernel measured 382 ticks in
        /// the chain (some stall we did not pin down; gf2x's native 8-word
        /// kernel shows the same figure without a `vzeroupper`), so 8 words stay
        /// on the zmm product (45 ticks).
        ///
        /// Why 8 words cost 45 ticks for 16 `vpclmulqdq`: on this core
        /// `vpclmulqdq` zmm has a throughput of 1 a cycle and a latency of about
        /// 3, but it issues on port 5 like every
        /// cross-lane shuffle: 16 products + 4 `vshufi64x2` + 14 `valignq` make
        /// 34 port-5 µops, so the kernel is port-bound, not multiplier-bound.
        /// On Ice Lake `vpclmulqdq` zmm issues once per two cycles (xmm once
        /// a cycle), and `tuning::SCHOOLBOOK` sends 8 and 9 words to the
        /// digit Karatsuba on xmm (27 and 35 `pclmulqdq`; 57 → 38 and 70 →
        /// 48 ticks there).
        "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1",
        Avx512Clmul,
        |t, out, a, b| {
            use formulas::call_fixed as lanes;
            match a.len() {
                1 => lanes!(lanes1(t), 1, a, b, out),
                2 => lanes!(lanes2(t), 2, a, b, out),
                3 => lanes!(lanes3(t), 3, a, b, out),
                4 => lanes!(lanes4(t), 4, a, b, out),
                5 => lanes!(lanes5(t), 5, a, b, out),
                6 => lanes!(lanes6(t), 6, a, b, out),
                7 => lanes!(lanes7(t), 7, a, b, out),
                9 => lanes!(lanes9(t), 9, a, b, out),
                8 => limbs1(t, out, a, b),
                10..=16 => limbs2(t, out, a, b),
                17..=24 => limbs3(t, out, a, b),
                25..=32 => limbs4(t, out, a, b),
                0 => {}
                _ => return false,
            }
            true
        }
    );

    /// `out = a²`, `out.len() == 2·a.len()`: eight words at a time, each
    /// squared by `vpclmulqdq` of the word with itself (imm 0x00 squares
    /// the even words, 0x11 the odd ones, four to an instruction), the two
    /// results interleaved back into word order by two `vpermt2q`: four
    /// port-5 µops per 8 words against eight `pclmulqdq` and eight stores
    /// on xmm. The tail (under 8 words) goes to the xmm loop.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1")]
    pub(super) fn square(t: Avx512Clmul, out: &mut [u64], a: &[u64]) {
        debug_assert_eq!(out.len(), 2 * a.len());
        let full = a.len() / 8;
        // SAFETY: compiled with AVX-512F and VPCLMULQDQ, which the token
        // proves; each 64-byte load reads `a[8i..8i + 8]` and each pair of
        // stores writes `out[16i..16i + 16]`, inside the slices (`i < full`).
        unsafe {
            let lo_idx = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
            let hi_idx = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
            for i in 0..full {
                let x = _mm512_loadu_si512(a.as_ptr().add(8 * i).cast());
                let even = _mm512_clmulepi64_epi128::<0x00>(x, x);
                let odd = _mm512_clmulepi64_epi128::<0x11>(x, x);
                let dst = out.as_mut_ptr().add(16 * i);
                _mm512_storeu_si512(dst.cast(), _mm512_permutex2var_epi64(even, lo_idx, odd));
                _mm512_storeu_si512(
                    dst.add(8).cast(),
                    _mm512_permutex2var_epi64(even, hi_idx, odd),
                );
            }
        }
        super::super::clmul::Pclmulqdq(t.clmul()).square(&mut out[16 * full..], &a[8 * full..]);
    }

    // The products of `N ≤ 8·L` words, zero-padded to `L` limbs, by the
    // formula `mulL` over 8-word limbs.
    formulas::limb_products!(
        "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1", Avx512Clmul, ZmmMul;
        limbs1 mul1 1, limbs2 mul2 2, limbs3 mul3 3, limbs4 mul4 4
    );

    // The schoolbooks at 3-5 words and the digit Karatsuba at 6-9, where
    // `tuning::SCHOOLBOOK` says (the 5-word one is `lanes5` below, this
    // backend's kernel at 5 words anyway).
    super::super::clmul::schoolbook_entry!(
        "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1",
        Avx512Clmul,
        |t| t.clmul(),
        five lanes5,
        leaf crate::gf2x::digits::KaratsubaLeaf
    );

    // The `N`-word products by a formula of `formulas` on xmm lanes,
    // compiled with AVX-512 (VEX/EVEX encodings, 32 vector registers). The
    // 1–3-word kernels are inlined into `fixed` (one call level less, as the
    // ymm backend does; figures in docs/notes/gf2x.md); from 4 words they
    // keep their own frames (4 inlined: no gain).
    super::super::clmul::lane_products!(
        "avx512f,avx512bw,avx512vl,avx512dq,vpclmulqdq,pclmulqdq,sse4.1", Avx512Clmul, |t| super::super::clmul::PclmulLane(t.clmul());
        #[inline] lanes1 1 = formulas::mul1,
        #[inline] lanes2 2 = crate::gf2x::sufan::schoolbook,
        #[inline] lanes3 3 = crate::gf2x::sufan::s3_school,
        #[inline(never)] lanes4 4 = crate::gf2x::sufan::s4_1m,
        #[inline(never)] lanes5 5 = crate::gf2x::sufan::schoolbook,
        #[inline(never)] lanes6 6 = crate::gf2x::sufan::schoolbook,
        #[inline(never)] lanes7 7 = formulas::mul7,
        #[inline(never)] lanes9 9 = formulas::mul9
    );
}

#[cfg(test)]
mod schoolbook_tests {
    use super::*;

    /// This backend's schoolbook entry against the definition
    /// (`clmul::check_schoolbook_entry`).
    #[test]
    fn schoolbook_entry_against_the_definition() {
        let Some(t) = crate::cpu::Avx512Clmul::get() else {
            return;
        };
        super::super::clmul::check_schoolbook_entry(|out, a, b| tf::schoolbook(t, out, a, b));
    }
}
