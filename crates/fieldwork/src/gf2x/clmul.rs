//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! The 64×64→128 carry-less product with one `pclmulqdq` (Intel white paper
//! 323640, "Intel Carry-Less Multiplication Instruction and its Usage for
//! Computing the GCM Mode", section 2), and the fixed-size kernels of
//! [`super::formulas`] compiled with it. On this machine's core (Intel, family 6
//! model 207) `pclmulqdq` has a latency of about 3 cycles and a throughput of
//! about one per cycle on xmm (Intel's published figures for Golden Cove
//! cores); a lone call through the non-inlined `clmul64` entry is
//! dominated by moving the operands between general and xmm registers.
//!
//! Squaring is one `pclmulqdq` of each word with itself (the bit-spreading of
//! [`super::formulas::square_spread`] takes about 15 instructions per word).
//!
//! # Representation in the fixed kernels
//!
//! The formulas of [`super::formulas`] run on [`Lane64`] digits: a word in the
//! low lane of an xmm register. A word product is `pclmulqdq` (imm8 0x00)
//! plus one `psrldq` for its high word; sums and the recombination are
//! `pxor`s; only the operands' loads and the result's stores touch memory.
//!
//! # Rejected
//!
//! - Products moved back to general registers (`movq` + `pextrq`) and
//!   summed there: the moves cost more than the products (up to 1.9× the
//!   time at 2 words).
//! - Two words per register (128-bit limbs, 3–4 `pclmulqdq` a product):
//!   halves the registers (the 8-word kernel spills) but adds shuffles; the
//!   VPCLMULQDQ backend groups four products per instruction instead.
//! - Returning the product as an array and copying it to the caller's
//!   buffer (store-forwarding stalls): lanes are stored straight into it.
//!
//! `cargo run --release -p peer-bench -- --filter gf2x_mul` times every
//! size against gf2x and NTL (with `--features system-peers`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size kernels: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::formulas::{self, DigitMul};
use super::{Backend, Costs};
use crate::cpu::Clmul;
use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_extract_epi64,
    _mm_sll_epi64, _mm_srl_epi64, _mm_srli_si128, _mm_storeu_si128, _mm_unpacklo_epi64,
    _mm_xor_si128,
};

/// The product with the instruction; callers must run with PCLMULQDQ and
/// SSE4.1 enabled (the token proves the CPU has them).
#[inline(always)]
fn clmul_words(_: Clmul, a: u64, b: u64) -> [u64; 2] {
    // SAFETY: a `Clmul` token exists only if PCLMULQDQ and SSE4.1 are usable.
    unsafe {
        let p =
            _mm_clmulepi64_si128::<0x00>(_mm_cvtsi64_si128(a as i64), _mm_cvtsi64_si128(b as i64));
        [
            _mm_cvtsi128_si64(p) as u64,
            _mm_extract_epi64::<1>(p) as u64,
        ]
    }
}

/// A 64-bit digit in the low lane of an xmm register; the high lane is
/// don't-care (XOR is lane-wise and `pclmulqdq` with imm8 = 0x00 reads only
/// the low lanes, so it never leaks into a result).
///
/// Running the fixed formulas on this digit keeps every partial product and
/// sum in vector registers: a word product is one `pclmulqdq` plus one
/// `psrldq` for its high word, where the `u64` digit needs a `movq` and a
/// `pextrq` to bring the product back to general registers and XORs there.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lane64(__m128i);

formulas::vector_digit!(Lane64(__m128i; 2), _mm_xor_si128);

/// The lane multiplier: callers run with PCLMULQDQ enabled (the token
/// proves the CPU has it).
#[derive(Clone, Copy, Debug)]
pub struct PclmulLane(pub(crate) Clmul);

formulas::lane_multiplier!(PclmulLane: Lane64 = _mm_clmulepi64_si128, _mm_srli_si128);

#[inline(always)]
pub(crate) fn to_lanes<const N: usize>(a: &[u64; N]) -> [Lane64; N] {
    // SAFETY: SSE2 is part of the x86-64 baseline.
    a.map(|w| Lane64(unsafe { _mm_cvtsi64_si128(w as i64) }))
}

/// Stores the lanes' words straight into the caller's buffer, two words per
/// 16-byte store. (Building an array and copying it, or storing 8 bytes at a
/// time, makes a chained caller's 16-byte loads straddle two narrower
/// stores: store-forwarding stalls.)
#[inline(always)]
pub(crate) fn store_lanes<const N: usize>(out: &mut [u64; N], c: [Lane64; N]) {
    let mut i = 0;
    while i + 1 < N {
        // SAFETY: SSE2 is part of the x86-64 baseline; `i + 1 < N`, so the
        // 16 bytes at `out[i]` are inside `out`; the store is unaligned.
        unsafe {
            let pair = _mm_unpacklo_epi64(c[i].0, c[i + 1].0);
            _mm_storeu_si128(out.as_mut_ptr().add(i).cast::<__m128i>(), pair);
        }
        i += 2;
    }
    if N % 2 == 1 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        out[N - 1] = unsafe { _mm_cvtsi128_si64(c[N - 1].0) } as u64;
    }
}

super::simd_backend! {
    /// The PCLMULQDQ backend (see [`Backend`]); holding one proves the
    /// instructions.
    Pclmulqdq(Clmul) = "pclmulqdq", fft super::fft::clmul::ClmulFft,
    /// As measured less 15 ticks of call overhead: in the recursion the
    /// small kernels cost that much less than through the public entry
    /// point. The FFT from 24 000 words, and from 15 000 where it fills its
    /// transform (see `plan.rs`).
    costs [
        0, 4, 4, 4, 12, 18, 28, 41, 49, 69, 0, 0, 0, 0, 0, 0, 205, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0,
    ], fft_min 24_000, fft_dense_min 15_000;
    fixed mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16;
    {
        #[inline]
        fn clmul64(self, a: u64, b: u64) -> u128 {
            // SAFETY: the token proves PCLMULQDQ and SSE4.1, all `tf::clmul64` enables.
            let [lo, hi] = unsafe { tf::clmul64(self.0, a, b) };
            (u128::from(hi) << 64) | u128::from(lo)
        }
    }
}

/// Defines `#[target_feature(enable = $features)]` functions
/// `$name(t, a, b, out)`: the `$n`-word product by `$formula` on xmm lanes
/// (this backend's representation), compiled with the features of the
/// backend that calls them (VEX or EVEX encodings where it has AVX), the
/// lane multiplier `$lane` made from the token `t`: the array kernels of a
/// backend's `tf` module.
macro_rules! lane_products {
    ($features:literal, $token:ty, |$t:ident| $lane:expr;
     $($(#[$attr:meta])* $name:ident $n:literal = $formula:path),* $(,)?) => {$(
        $(#[$attr])*
        #[target_feature(enable = $features)]
        pub(super) fn $name($t: $token, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
            use $crate::gf2x::clmul::{store_lanes, to_lanes};
            store_lanes(out, $formula($lane, &to_lanes(a), &to_lanes(b)));
        }
    )*};
}
pub(crate) use lane_products;

macro_rules! fixed_entries {
    ($($name:ident $n:literal = $formula:path),*) => {
        /// The same kernels `#[inline(always)]` on xmm lanes, for another
        /// area's `#[target_feature(enable = "pclmulqdq,sse4.1")]` entry
        /// points.
        impl formulas::InlineFixed for PclmulLane {
            type Limb = Lane64;
            #[inline(always)]
            fn limbs<const N: usize>(self, a: &[u64; N]) -> [Lane64; N] {
                to_lanes(a)
            }
            #[inline(always)]
            fn words<const N: usize>(self, a: [Lane64; N]) -> [u64; N] {
                let mut out = [0u64; N];
                store_lanes(&mut out, a);
                out
            }
            formulas::vector_shifts!(Lane64, _mm_sll_epi64, _mm_srl_epi64);
            $(
                #[inline(always)]
                fn $name(self, a: &[Lane64; $n], b: &[Lane64; $n]) -> [Lane64; 2 * $n] {
                    $formula(self, a, b)
                }
            )*
            #[inline(always)]
            fn square_limb(self, a: Lane64) -> [Lane64; 2] {
                self.mul(a, a)
            }
        }

        /// The `#[target_feature]` functions, reached only through the
        /// token-taking wrappers above.
        mod tf {
            use super::*;

            #[target_feature(enable = "pclmulqdq,sse4.1")]
            pub(super) fn clmul64(t: Clmul, a: u64, b: u64) -> [u64; 2] {
                clmul_words(t, a, b)
            }

            formulas::fixed_slice_entry!("pclmulqdq,sse4.1", Clmul);

            #[target_feature(enable = "pclmulqdq,sse4.1")]
            pub(super) fn square(t: Clmul, out: &mut [u64], a: &[u64]) {
                for (i, &w) in a.iter().enumerate() {
                    let [lo, hi] = clmul_words(t, w, w);
                    out[2 * i] = lo;
                    out[2 * i + 1] = hi;
                }
            }

            // Not inlined into `fixed`: one function holding every size
            // would need a stack frame as large as the largest.
            lane_products!("pclmulqdq,sse4.1", Clmul, |t| PclmulLane(t);
                $(#[inline(never)] $name $n = $formula),*
            );
        }
    };
}

// The formula per size: the Karatsuba/three-term defaults of `formulas`, except
// where peer-bench's `sufan` group measured a Su–Fan strategy faster on this
// core (cycles per chained call): schoolbook 3-S at 3 words
// (36.1 against 42.0 for the three-term formula) and the 3 + 2 split 5-2 at
// 5 words (60.3 against 63.0 for Montgomery's 5-1 and 68 for the default).
fixed_entries!(
    mul1 1 = formulas::mul1,
    mul2 2 = formulas::mul2,
    mul3 3 = crate::gf2x::sufan::s3_school,
    mul4 4 = formulas::mul4,
    mul5 5 = crate::gf2x::sufan::s5_2,
    mul6 6 = formulas::mul6,
    mul7 7 = formulas::mul7,
    mul8 8 = formulas::mul8,
    mul9 9 = formulas::mul9,
    mul16 16 = formulas::mul16
);
