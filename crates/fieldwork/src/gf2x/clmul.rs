//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! The 64×64→128 carry-less product with one `pclmulqdq` (Intel white paper
//! 323640, "Intel Carry-Less Multiplication Instruction and its Usage for
//! Computing the GCM Mode", section 2), and the fixed-size kernels of
//! [`super::algo`] compiled with it. On this machine's core (Intel, family 6
//! model 207) `pclmulqdq` has a latency of 3 cycles and a throughput of one
//! per cycle on xmm; a lone call through the non-inlined [`clmul64`] entry
//! costs about 10 cycles in a dependent chain, dominated by moving the
//! operands between general and xmm registers.
//!
//! Squaring is one `pclmulqdq` of each word with itself (the bit-spreading of
//! [`super::algo::square_spread`] takes about 15 instructions per word).
#![allow(unsafe_code)]

use super::algo::{self, Kernel, WordMul};
use crate::cpu::Clmul;
use core::arch::x86_64::{
    _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_extract_epi64,
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

/// The word multiplier for the generic kernels.
#[derive(Clone, Copy, Debug)]
struct PclmulWord(Clmul);

impl WordMul for PclmulWord {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> [u64; 2] {
        clmul_words(self.0, a, b)
    }
}

/// The 128-bit carry-less product of `a` and `b`.
#[inline]
pub(crate) fn clmul64(t: Clmul, a: u64, b: u64) -> u128 {
    // SAFETY: the token proves PCLMULQDQ and SSE4.1, all `tf::clmul64` enables.
    let [lo, hi] = unsafe { tf::clmul64(t, a, b) };
    (u128::from(hi) << 64) | u128::from(lo)
}

/// The PCLMULQDQ base case and squaring for the recursive algorithms.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClmulKernel(pub(crate) Clmul);

impl Kernel for ClmulKernel {
    const BASE_MAX: usize = super::BASE_MAX;

    fn base(self, out: &mut [u64], a: &[u64], b: &[u64]) {
        // SAFETY: the token proves PCLMULQDQ and SSE4.1.
        unsafe { tf::base(self.0, out, a, b) }
    }

    fn square(self, out: &mut [u64], a: &[u64]) {
        // SAFETY: the token proves PCLMULQDQ and SSE4.1.
        unsafe { tf::square(self.0, out, a) }
    }
}

macro_rules! fixed_entries {
    ($($name:ident $n:literal),*) => {
        $(
            #[doc = concat!("The ", $n, "-word product with PCLMULQDQ.")]
            #[inline]
            pub(crate) fn $name(t: Clmul, a: &[u64; $n], b: &[u64; $n]) -> [u64; 2 * $n] {
                // SAFETY: the token proves PCLMULQDQ and SSE4.1.
                unsafe { tf::$name(t, a, b) }
            }
        )*

        /// The `#[target_feature]` functions, reached only through the
        /// token-taking wrappers above.
        mod tf {
            use super::*;

            #[target_feature(enable = "pclmulqdq,sse4.1")]
            pub(super) fn clmul64(t: Clmul, a: u64, b: u64) -> [u64; 2] {
                clmul_words(t, a, b)
            }

            #[target_feature(enable = "pclmulqdq,sse4.1")]
            pub(super) fn base(t: Clmul, out: &mut [u64], a: &[u64], b: &[u64]) {
                if !algo::mul_small(PclmulWord(t), out, a, b) {
                    algo::schoolbook(PclmulWord(t), out, a, b);
                }
            }

            #[target_feature(enable = "pclmulqdq,sse4.1")]
            pub(super) fn square(t: Clmul, out: &mut [u64], a: &[u64]) {
                for (i, &w) in a.iter().enumerate() {
                    let [lo, hi] = clmul_words(t, w, w);
                    out[2 * i] = lo;
                    out[2 * i + 1] = hi;
                }
            }

            $(
                #[target_feature(enable = "pclmulqdq,sse4.1")]
                pub(super) fn $name(t: Clmul, a: &[u64; $n], b: &[u64; $n]) -> [u64; 2 * $n] {
                    algo::$name(PclmulWord(t), a, b)
                }
            )*
        }
    };
}

fixed_entries!(mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9);
