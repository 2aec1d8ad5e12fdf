//! Target features: `neon`, `aes` (AES + PMULL) — capability token
//! [`NeonAes`].
//!
//! The AArch64 backend: the 64×64→128 carry-less product is one `PMULL`
//! (`vmull_p64`, the low 64-bit lanes of two q registers) or `PMULL2`
//! (`vmull_high_p64`, the high lanes), the fixed kernels are the formulas of
//! [`super::formulas`] compiled with it, and the FFT is the scalar
//! butterflies of `fft/levels.rs` with a `PMULL` field product
//! (`fft/pmull.rs`).
//!
//! # Representation: two words per register
//!
//! The fixed kernels run on [`Q`] digits of **two** words (a 128-bit limb in
//! one q register, lane 0 the lower word), so every XOR of the formulas adds
//! two words, and loads and stores move two words an instruction. One digit
//! product (128×128→256 bits, [`PmullPair`]) is the schoolbook product of its
//! four word products, 10 instructions:
//!
//! ```text
//! ll = PMULL (a, b)        a0·b0
//! hh = PMULL2(a, b)        a1·b1
//! s  = EXT   (b, b, #8)    (b1, b0)
//! lh = PMULL (a, s)        a0·b1
//! hl = PMULL2(a, s)        a1·b0
//! m  = EOR   (lh, hl)
//! lo = ll ^ EXT(0, m, #8)  (0, m0)
//! hi = hh ^ EXT(m, 0, #8)  (m1, 0)
//! ```
//!
//! (Karatsuba inside the digit, three `PMULL`s, needs two `EXT`s and two
//! `EOR`s to fold the operands and two more `EOR`s for the middle term: 13
//! instructions. With `PMULL` at 2–3 cycles latency and one or two per
//! cycle on Neoverse cores, the shorter schoolbook form is the one built.)
//!
//! An even N-word kernel is the `N/2`-digit formula. An odd N = 2D + 1
//! is the D-digit formula on the low 2D words plus the top word's terms
//! (`add_top_word`: four `PMULL`/`PMULL2`, three `EOR` and two `EXT` per
//! digit, one `PMULL` for the top words' product): 29 instructions at 3
//! words against 49 for the product padded to 4, 232 against 257 at 9.
//! One word is one `PMULL`.
//! The formula per size is the table at the end of the file; instruction
//! counts of the compiled kernels (`aarch64-linux-gnu-objdump -d`, loads
//! and stores included) are in `docs/notes/gf2x.md`.
//!
//! Squaring is one `PMULL` and one `PMULL2` per two words (a q register
//! squared lane by lane), two stores.
//!
//! # Costs for the size plan
//!
//! There is no AArch64 hardware to time on: [`Pmull`]'s `COSTS.fixed` are
//! the kernels' instruction counts divided by 4 (a Neoverse N1/V1 core
//! retires about 3–4 of these simple vector instructions a cycle), in the
//! plan's ticks, which the portable costs measured on x86 also use;
//! the FFT thresholds are the PCLMULQDQ backend's (the same shape: scalar
//! butterflies around a one-instruction product).
//!
//! # Rejected / not done
//!
//! - One word per register (the PCLMULQDQ backend's `Lane64`): every XOR of
//!   a formula then adds one word, and each word product needs an `EXT` for
//!   its high word.
//! - Odd sizes padded with a zero word to whole digits: 49 instructions at
//!   3 words, 102 at 5, 158 at 7, 257 at 9 (the `add_top_word` kernels:
//!   29, 75, 144, 232).
//! - Schoolbook over digits with even- and odd-offset accumulators (one
//!   `EXT` pair per odd column at the end): by count level with Karatsuba
//!   at 4 words (about 47), more above.
//! - Not done: `EOR3` (SHA3 extension) for the formulas' three-way sums, a
//!   `pmull-eor3` variant on `NeonSha3`.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size kernels: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::formulas::{self, Digit, DigitMul};
use super::{Backend, Costs};
use crate::cpu::NeonAes;
use core::arch::aarch64::{
    uint64x2_t, vcombine_u64, vcreate_u64, vdupq_laneq_u64, vdupq_n_u64, veorq_u64, vextq_u64,
    vgetq_lane_u64, vld1q_u64, vmull_high_p64, vmull_p64, vreinterpretq_p64_u64, vst1q_u64,
};

/// A 128-bit digit: two words in one q register, lane 0 the lower.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Q(uint64x2_t);

formulas::vector_digit!(Q(uint64x2_t; 2), veorq_u64);

/// `PMULL` on two words. A `#[target_feature]` function rather than an
/// `#[inline(always)]` helper: the intrinsic is `#[inline(always)]` with
/// these features, which a caller without them cannot inline; this one is
/// inlined into the backend's `#[target_feature]` kernels by LLVM.
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull64(a: u64, b: u64) -> u128 {
    vmull_p64(a, b)
}

/// `PMULL`: the product of the low lanes of `a` and `b`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull_lanes_lo(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let p = vmull_p64(vgetq_lane_u64::<0>(a), vgetq_lane_u64::<0>(b));
    // SAFETY: both types are 128 bits, every bit pattern valid.
    unsafe { core::mem::transmute::<u128, uint64x2_t>(p) }
}

/// `PMULL2`: the product of the high lanes of `a` and `b`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull_lanes_hi(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let p = vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b));
    // SAFETY: both types are 128 bits, every bit pattern valid.
    unsafe { core::mem::transmute::<u128, uint64x2_t>(p) }
}

/// The word product; callers run with NEON and AES (PMULL) enabled (a
/// [`NeonAes`] token proves the CPU has them).
#[inline(always)]
fn pmull_words(_: NeonAes, a: u64, b: u64) -> u128 {
    // SAFETY: a `NeonAes` token exists only if NEON and PMULL are usable.
    unsafe { pmull64(a, b) }
}

/// [`pmull_lanes_lo`] behind the token.
#[inline(always)]
fn pmull_lo(_: NeonAes, a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    // SAFETY: a `NeonAes` token exists only if NEON and PMULL are usable.
    unsafe { pmull_lanes_lo(a, b) }
}

/// [`pmull_lanes_hi`] behind the token.
#[inline(always)]
fn pmull_hi(_: NeonAes, a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    // SAFETY: a `NeonAes` token exists only if NEON and PMULL are usable.
    unsafe { pmull_lanes_hi(a, b) }
}

/// The digit multiplier: the 10-instruction schoolbook product of two
/// 128-bit digits (module docs). Callers run with NEON and PMULL enabled.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PmullPair(pub(crate) NeonAes);

impl DigitMul<Q> for PmullPair {
    #[inline(always)]
    fn mul(self, a: Q, b: Q) -> [Q; 2] {
        let t = self.0;
        // SAFETY: NEON is part of the AArch64 baseline; no memory access.
        unsafe {
            let z = vdupq_n_u64(0);
            let ll = pmull_lo(t, a.0, b.0);
            let hh = pmull_hi(t, a.0, b.0);
            let s = vextq_u64::<1>(b.0, b.0);
            let m = veorq_u64(pmull_lo(t, a.0, s), pmull_hi(t, a.0, s));
            [
                Q(veorq_u64(ll, vextq_u64::<1>(z, m))),
                Q(veorq_u64(hh, vextq_u64::<1>(m, z))),
            ]
        }
    }
}

/// The `N` words of `a` as `D = ⌈N/2⌉` digits, the top one zero-padded for
/// odd `N`.
#[inline(always)]
fn to_pairs<const N: usize, const D: usize>(a: &[u64; N]) -> [Q; D] {
    debug_assert_eq!(D, N.div_ceil(2));
    let mut out = [Q::ZERO; D];
    for (i, d) in out.iter_mut().enumerate() {
        // SAFETY: NEON is part of the AArch64 baseline; for `2i + 1 < N`
        // the 16 bytes at `a[2i]` are inside `a` (unaligned load).
        *d = Q(unsafe {
            if 2 * i + 1 < N {
                vld1q_u64(a.as_ptr().add(2 * i))
            } else {
                vcombine_u64(vcreate_u64(a[2 * i]), vcreate_u64(0))
            }
        });
    }
    out
}

/// Stores the first `W/2` digits of `c` (`W` even) into `out`; the rest of
/// `c` is the zero top of a padded product.
#[inline(always)]
fn store_pairs<const W: usize, const E: usize>(out: &mut [u64; W], c: &[Q; E]) {
    debug_assert!(W % 2 == 0 && 2 * E >= W);
    for (i, d) in c.iter().take(W / 2).enumerate() {
        // SAFETY: NEON is part of the AArch64 baseline; `2i + 1 < W`, so
        // the 16 bytes at `out[2i]` are inside `out` (unaligned store).
        unsafe { vst1q_u64(out.as_mut_ptr().add(2 * i), d.0) };
    }
}

/// `c += x^(128D)·(A0·b_t + a_t·B0) + x^(256D)·a_t·b_t`: the terms of a
/// (2D+1)-word product `(A0 + a_t·x^(128D))·(B0 + b_t·x^(128D))` beyond
/// `A0·B0` (already in `c`'s first 2D digits; digit 2D zero), where `x` and
/// `y` hold A0, B0 in their first D = D1 − 1 digits and the top words
/// a_t, b_t in lane 0 of digit D (lane 1 zero). Per digit of A0: four
/// `PMULL`/`PMULL2` (lanes 0 and 1 of A0's and B0's digit times the other's
/// top word), three `EOR` and two `EXT` to add them at their word offsets;
/// one `PMULL` for a_t·b_t.
#[inline(always)]
fn add_top_word<const D1: usize, const E: usize>(
    t: NeonAes,
    c: &mut [Q; E],
    x: &[Q; D1],
    y: &[Q; D1],
) {
    let d = D1 - 1;
    debug_assert_eq!(E, 2 * d + 1);
    let (at, bt) = (x[d].0, y[d].0);
    // SAFETY: NEON is part of the AArch64 baseline; no memory access.
    unsafe {
        let z = vdupq_n_u64(0);
        let (at2, bt2) = (vdupq_laneq_u64::<0>(at), vdupq_laneq_u64::<0>(bt));
        for i in 0..d {
            // Word offset 2i: the low lanes; 2i + 1: the high lanes.
            let l = veorq_u64(pmull_lo(t, x[i].0, bt), pmull_lo(t, y[i].0, at));
            let h = veorq_u64(pmull_hi(t, x[i].0, bt2), pmull_hi(t, y[i].0, at2));
            c[d + i] ^= Q(veorq_u64(l, vextq_u64::<1>(z, h)));
            c[d + i + 1] ^= Q(vextq_u64::<1>(h, z));
        }
        c[2 * d] ^= Q(pmull_lo(t, at, bt));
    }
}

/// The one-word product: one `PMULL`.
#[inline(always)]
fn mul1_word(t: NeonAes, a: &[u64; 1], b: &[u64; 1], out: &mut [u64; 2]) {
    let p = pmull_words(t, a[0], b[0]);
    // SAFETY: NEON is part of the AArch64 baseline; the 16 bytes at `out`
    // are `out` (unaligned store); both types are 128 bits.
    unsafe {
        vst1q_u64(
            out.as_mut_ptr(),
            core::mem::transmute::<u128, uint64x2_t>(p),
        )
    };
}

/// The word square: one `PMULL` of the word with itself.
#[inline(always)]
pub(crate) fn square_word(t: NeonAes, a: u64) -> [u64; 2] {
    let p = pmull_words(t, a, a);
    [p as u64, (p >> 64) as u64]
}

/// `out = a²`, two words a q register: `PMULL` and `PMULL2` of the
/// register with itself.
#[inline(always)]
fn square_words(t: NeonAes, out: &mut [u64], a: &[u64]) {
    let (pairs, rest) = a.as_chunks::<2>();
    let (outs, out_rest) = out.as_chunks_mut::<4>();
    for (o, w) in outs.iter_mut().zip(pairs) {
        // SAFETY: NEON is part of the AArch64 baseline; the loads and
        // stores are of whole arrays (`w`: 16 bytes, `o`: 32 bytes).
        unsafe {
            let q = vld1q_u64(w.as_ptr());
            vst1q_u64(o.as_mut_ptr(), pmull_lo(t, q, q));
            vst1q_u64(o.as_mut_ptr().add(2), pmull_hi(t, q, q));
        }
    }
    if let (Some(&w), [lo, hi]) = (rest.first(), out_rest) {
        [*lo, *hi] = square_word(t, w);
    }
}

super::simd_backend! {
    /// The PMULL backend (see [`Backend`]); holding one proves the
    /// instructions.
    Pmull(NeonAes) = "pmull", fft super::fft::pmull::PmullFft,
    /// Instruction counts of the compiled kernels (loads, stores and
    /// `ret` included: 5, 14, 29, 47, 75, 97, 144, 157, 232 at 1–9 words,
    /// 546 at 16; `docs/notes/gf2x.md`) divided by 4 and rounded up, the
    /// plan's ticks (module docs); the FFT thresholds of the PCLMULQDQ
    /// backend. Estimates, not timings: re-derive from measurements once
    /// there is hardware.
    costs [
        0, 2, 4, 8, 12, 19, 25, 36, 40, 58, 0, 0, 0, 0, 0, 0, 137, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0,
    ], fft_min 24_000, fft_dense_min 15_000;
    fixed mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16;
    {
        #[inline]
        fn clmul64(self, a: u64, b: u64) -> u128 {
            // SAFETY: the token proves NEON and PMULL, all `tf::clmul64` enables.
            unsafe { tf::clmul64(self.0, a, b) }
        }
    }
}

/// The PMULL kernels on `u64` words, `#[inline(always)]`, for another
/// area's `#[target_feature(enable = "neon,aes")]` entry points (`gf2m`):
/// the limbs are words in general registers (where AArch64's shifted-operand
/// `EOR` folds a reduction term in one instruction); a product moves its
/// operands into q registers two words at a time and its result back.
#[derive(Clone, Copy, Debug)]
pub struct PmullWord(pub(crate) NeonAes);

/// The inline kernels, the per-size `#[target_feature]` functions and the
/// slice entry, from the table of formulas: `$name $n = pairs $d $formula`
/// (the `$d`-digit formula over two-word digits) or `= word` (one `PMULL`).
macro_rules! fixed_entries {
    ($($name:ident $n:literal = $how:ident $($d:literal $formula:path)?),* $(,)?) => {
        /// The `N`-word products on `u64` arrays, `#[inline(always)]`.
        mod kernels {
            use super::*;
            $(fixed_entries!(@kernel $name $n = $how $($d $formula)?);)*
        }

        impl formulas::InlineFixed for PmullWord {
            formulas::word_limbs!();
            $(
                #[inline(always)]
                fn $name(self, a: &[u64; $n], b: &[u64; $n]) -> [u64; 2 * $n] {
                    let mut c = [0u64; 2 * $n];
                    kernels::$name(self.0, a, b, &mut c);
                    c
                }
            )*
            #[inline(always)]
            fn square_limb(self, a: u64) -> [u64; 2] {
                square_word(self.0, a)
            }
        }

        /// The `#[target_feature]` functions, reached only through the
        /// token-taking wrappers above.
        mod tf {
            use super::*;

            #[target_feature(enable = "neon,aes")]
            pub(super) fn clmul64(_: NeonAes, a: u64, b: u64) -> u128 {
                vmull_p64(a, b)
            }

            formulas::fixed_slice_entry!("neon,aes", NeonAes);

            #[target_feature(enable = "neon,aes")]
            pub(super) fn square(t: NeonAes, out: &mut [u64], a: &[u64]) {
                square_words(t, out, a);
            }

            // Not inlined into `fixed`: one function holding every size
            // would need a stack frame as large as the largest.
            $(
                #[inline(never)]
                #[target_feature(enable = "neon,aes")]
                pub(super) fn $name(
                    t: NeonAes,
                    a: &[u64; $n],
                    b: &[u64; $n],
                    out: &mut [u64; 2 * $n],
                ) {
                    super::kernels::$name(t, a, b, out);
                }
            )*
        }
    };
    (@kernel $name:ident $n:literal = word) => {
        #[inline(always)]
        pub(super) fn $name(t: NeonAes, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
            mul1_word(t, a, b, out);
        }
    };
    (@kernel $name:ident $n:literal = odd $d:literal $formula:path) => {
        #[inline(always)]
        pub(super) fn $name(t: NeonAes, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
            let x = to_pairs::<$n, { $d + 1 }>(a);
            let y = to_pairs::<$n, { $d + 1 }>(b);
            let x0: [Q; $d] = core::array::from_fn(|i| x[i]);
            let y0: [Q; $d] = core::array::from_fn(|i| y[i]);
            let mut c = [Q::ZERO; 2 * $d + 1];
            c[..2 * $d].copy_from_slice(&$formula(PmullPair(t), &x0, &y0));
            add_top_word(t, &mut c, &x, &y);
            store_pairs(out, &c);
        }
    };
    (@kernel $name:ident $n:literal = pairs $d:literal $formula:path) => {
        #[inline(always)]
        pub(super) fn $name(t: NeonAes, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
            let x = to_pairs::<$n, $d>(a);
            let y = to_pairs::<$n, $d>(b);
            store_pairs(out, &$formula(PmullPair(t), &x, &y));
        }
    };
}

// The formula per size over two-word digits: `pairs D f` is the D-digit
// formula f (an odd size zero-padded to D digits), `odd D f` the D-digit
// formula on the low 2D words and the top word's terms by
// `add_top_word`. Chosen by instruction count of the compiled kernels
// (`docs/notes/gf2x.md`): `odd` beats the padded product at every odd size.
fixed_entries!(
    mul1 1 = word,
    mul2 2 = pairs 1 formulas::mul1,
    mul3 3 = odd 1 formulas::mul1,
    mul4 4 = pairs 2 formulas::mul2,
    mul5 5 = odd 2 formulas::mul2,
    mul6 6 = pairs 3 formulas::mul3,
    mul7 7 = odd 3 formulas::mul3,
    mul8 8 = pairs 4 formulas::mul4,
    mul9 9 = odd 4 formulas::mul4,
    mul16 16 = pairs 8 formulas::mul8,
);
