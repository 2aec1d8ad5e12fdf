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
//! # Two-word digits
//!
//! [`pair_school`] is the schoolbook on two words per xmm register, the
//! immediate of `pclmulqdq` choosing the words: the zmm and ymm backends'
//! 3- and 4-word kernel where their tuning table (`tuning::SCHOOLBOOK`)
//! says so (this backend's own kernels are unchanged).
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

use super::digits::{DigitProduct, load_digit, load_digits, store_digit, store_digits};
#[cfg(doc)]
use super::digits::{KaratsubaLeaf, Schoolbook};
use super::formulas::{self, Digit, DigitMul};
use super::{Backend, Costs};
use crate::cpu::Clmul;
use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_extract_epi64,
    _mm_sll_epi64, _mm_slli_si128, _mm_srl_epi64, _mm_srli_si128, _mm_storeu_si128,
    _mm_unpacklo_epi64, _mm_xor_si128,
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

/// The most words [`pair_school`] takes.
const PAIR_MAX: usize = 9;

/// `out = a·b` for `N ≤ 9` words by the schoolbook product on two-word
/// digits: each xmm register holds words 2i, 2i + 1 as loaded (one 16-byte
/// load, an 8-byte one for the top word of an odd size), and `pclmulqdq`'s
/// immediate picks the word of each operand (0x00, 0x01, 0x10, 0x11), so a
/// word product needs no move or shift of its own (the lane kernels
/// need a `movq` per operand word and a `psrldq` per product). Products are
/// summed unshifted by their word offset: even offsets 2k in `even[k]`
/// (already in place: result digit k), odd offsets 2k + 1 in `odd[k]`,
/// whose sum is split once across result digits k and k + 1 by one
/// `pslldq` and one `psrldq` — 2(N − 1) byte shifts in all, not one a
/// product. N² `pclmulqdq`, no operand sums: every product depends only on
/// the loads, the shortest chain of any formula, as gf2x's own small
/// kernels (gf2x 1.3, `mul2`/`mul3` of its pclmul tuning) do for one
/// digit. Products are issued lowest offset first, so the result's low
/// digits (which a chained caller reads back first) are ready first.
///
/// The caller runs with PCLMULQDQ and SSE4.1 enabled (the token proves the
/// CPU has them); everything here is inlined into its
/// `#[target_feature]` function. Constant time: no branch or index depends
/// on the words.
#[inline(always)]
#[allow(
    clippy::needless_range_loop,
    reason = "`x[i]` and `y[i]` are loaded together from `a` and `b`: one index, two arrays"
)]
pub(crate) fn pair_school<const N: usize, const W: usize>(
    _: Clmul,
    a: &[u64; N],
    b: &[u64; N],
    out: &mut [u64; W],
) {
    const { assert!(W == 2 * N && N >= 1 && N <= PAIR_MAX) };
    let digits = N.div_ceil(2);
    // Two-word digits; the top one of an odd size holds one word, the
    // other half zero (its products with that half are skipped below).
    let zero = Lane64::ZERO.0;
    let mut x = [zero; PAIR_MAX.div_ceil(2)];
    let mut y = [zero; PAIR_MAX.div_ceil(2)];
    for i in 0..digits {
        x[i] = load_digit(a, i);
        y[i] = load_digit(b, i);
    }
    let mut even = [zero; PAIR_MAX + 1];
    let mut odd = [zero; PAIR_MAX + 1];
    // By the offset of digit products, lowest first.
    for s in 0..2 * digits - 1 {
        for i in 0..digits {
            if s < i || s - i >= digits {
                continue;
            }
            let j = s - i;
            for (ha, hb) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                // Word 2i + ha of `a`, 2j + hb of `b`: skip the absent top word.
                if 2 * i + ha >= N || 2 * j + hb >= N {
                    continue;
                }
                // SAFETY: PCLMULQDQ per the caller (the token); no memory access.
                let p = unsafe {
                    match (ha, hb) {
                        (0, 0) => _mm_clmulepi64_si128::<0x00>(x[i], y[j]),
                        (1, 0) => _mm_clmulepi64_si128::<0x01>(x[i], y[j]),
                        (0, 1) => _mm_clmulepi64_si128::<0x10>(x[i], y[j]),
                        _ => _mm_clmulepi64_si128::<0x11>(x[i], y[j]),
                    }
                };
                let w = 2 * s + ha + hb;
                if w % 2 == 0 {
                    even[w / 2] = xor128(even[w / 2], p);
                } else {
                    odd[w / 2] = xor128(odd[w / 2], p);
                }
            }
        }
    }
    // Result digit k: even[k], the low word of odd[k] moved up, the high
    // word of odd[k − 1] moved down.
    for k in 0..N {
        let mut r = xor128(even[k], shift_up(odd[k]));
        if k > 0 {
            r = xor128(r, shift_down(odd[k - 1]));
        }
        store_digit(r, out, k);
    }
}

/// `out = a·b` for 6 to 9 words by Karatsuba on two-word digits: 6 and 7
/// words by the three-way split (`digits::Thirds`: 6 digit products,
/// against 9 for the schoolbook), 8 and 9 by two levels of the two-way
/// split (`digits::Halves` of `Halves`: 9 digit products, against 16); the
/// last word of an odd size by `digits::product_odd` (one `pclmulqdq` a
/// word for its cross terms). The digit products are `L`: [`Schoolbook`]
/// (4 `pclmulqdq`: 24, 31, 36 and 44 at 6 to 9 words) or
/// [`KaratsubaLeaf`] (3 and a `pshufd`/XOR operand fold: 18, 25, 27 and
/// 35), the fewer products the better where the build has AVX-512's 32
/// registers (Xeon, ticks per chained product: 6 words 27.9 → 24.9, 7
/// words 33.3 → 30.1), not with 16 (the AVX2 build: 6 words level, 7
/// words 33.1 → 39.5, spills). Operands loaded by 16-byte pieces as
/// [`pair_school`] does; the products' terms summed apart by word parity
/// and shifted into digits once.
#[inline(always)]
pub(crate) fn digit_karatsuba<const N: usize, const W: usize, L: DigitProduct>(
    _: Clmul,
    a: &[u64; N],
    b: &[u64; N],
    out: &mut [u64; W],
) {
    use super::digits::{Halves, Thirds, product_odd};
    const { assert!(L::N == 1) };
    const { assert!(W == 2 * N && 6 <= N && N <= 9) };
    let (x, y) = (load_digits::<N, N>(a), load_digits::<N, N>(b));
    let mut r = [Lane64::ZERO.0; N];
    match N {
        6 => r[..6].copy_from_slice(&Thirds::<L>::mul(&x[..3], &y[..3]).digits::<6>()),
        7 => {
            let mut x7 = [x[0]; 7];
            let mut y7 = [y[0]; 7];
            x7.copy_from_slice(&x[..7]);
            y7.copy_from_slice(&y[..7]);
            r[..7].copy_from_slice(&product_odd::<_, Thirds<L>, 7>(x7, y7));
        }
        8 => r[..8].copy_from_slice(&Halves::<Halves<L>>::mul(&x[..4], &y[..4]).digits::<8>()),
        _ => {
            let mut x9 = [x[0]; 9];
            let mut y9 = [y[0]; 9];
            x9.copy_from_slice(&x[..9]);
            y9.copy_from_slice(&y[..9]);
            r[..9].copy_from_slice(&product_odd::<_, Halves<Halves<L>>, 9>(x9, y9));
        }
    }
    store_digits(&r, out);
}

/// `a ^ b` on xmm (SSE2, the x86-64 baseline).
#[inline(always)]
fn xor128(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86-64 baseline; no memory access.
    unsafe { _mm_xor_si128(a, b) }
}

/// The low word of `x` moved to the high word (`pslldq` by 8).
#[inline(always)]
fn shift_up(x: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86-64 baseline; no memory access.
    unsafe { _mm_slli_si128::<8>(x) }
}

/// The high word of `x` moved to the low word (`psrldq` by 8).
#[inline(always)]
fn shift_down(x: __m128i) -> __m128i {
    // SAFETY: SSE2 is part of the x86-64 baseline; no memory access.
    unsafe { _mm_srli_si128::<8>(x) }
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

/// Defines `schoolbook(t, out, a, b)`, the slice entry of the two-word-digit
/// kernels at the sizes of `tuning::SCHOOLBOOK_SIZES`: 3 and 4 words by
/// [`pair_school`] (the PCLMULQDQ token made from the token `t` by
/// `$clmul`), 5 words by the caller's lane kernel `$five` (Su–Fan's
/// schoolbook on xmm lanes), 6 to 9 by [`digit_karatsuba`], each size its own
/// `#[target_feature(enable = $features)]` function with the kernel
/// inlined (one function for the three measured 2–3 ticks slower at 3 and
/// 4 words on the Xeon): false for mismatched lengths or another size.
/// `$leaf` is the digit Karatsuba's leaf ([`KaratsubaLeaf`] where the
/// build has 32 vector registers, [`Schoolbook`] where 16: see
/// [`digit_karatsuba`]).
macro_rules! schoolbook_entry {
    ($features:literal, $token:ty, |$t:ident| $clmul:expr, five $five:ident, leaf $leaf:ty) => {
        /// The 3-, 4- and 5-word schoolbooks (every product straight from
        /// the loads) and the 6- to 9-word digit Karatsuba, where
        /// `tuning::SCHOOLBOOK` lists them for this backend: one call, to
        /// the size's own function.
        #[inline(always)]
        pub(super) fn schoolbook(t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            // Small matches, not one of seven: LLVM makes five dense
            // cases a jump table, an indirect jump in front of every call
            // (4 words on zmm 15.1 -> 16.2 ticks, Xeon).
            if a.len() < 6 {
                match a.len() {
                    // SAFETY: the token proves every feature `school3` enables.
                    3 => unsafe { school3(t, out, a, b) },
                    // SAFETY: the token proves every feature `school4` enables.
                    4 => unsafe { school4(t, out, a, b) },
                    // SAFETY: the token proves every feature `school5` enables.
                    5 => unsafe { school5(t, out, a, b) },
                    _ => false,
                }
            } else if a.len() < 8 {
                match a.len() {
                    // SAFETY: the token proves every feature `karatsuba6` enables.
                    6 => unsafe { karatsuba6(t, out, a, b) },
                    // SAFETY: the token proves every feature `karatsuba7` enables.
                    7 => unsafe { karatsuba7(t, out, a, b) },
                    _ => false,
                }
            } else {
                match a.len() {
                    // SAFETY: the token proves every feature `karatsuba8` enables.
                    8 => unsafe { karatsuba8(t, out, a, b) },
                    // SAFETY: the token proves every feature `karatsuba9` enables.
                    9 => unsafe { karatsuba9(t, out, a, b) },
                    _ => false,
                }
            }
        }

        /// The 6-word three-way Karatsuba on two-word digits.
        #[target_feature(enable = $features)]
        fn karatsuba6($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            match $crate::gf2x::formulas::fixed_arrays!(6, a, b, out) {
                Some((x, y, o)) => {
                    $crate::gf2x::clmul::digit_karatsuba::<6, 12, $leaf>($clmul, x, y, o)
                }
                None => return false,
            }
            true
        }

        /// The 7-word three-way Karatsuba on two-word digits.
        #[target_feature(enable = $features)]
        fn karatsuba7($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            match $crate::gf2x::formulas::fixed_arrays!(7, a, b, out) {
                Some((x, y, o)) => {
                    $crate::gf2x::clmul::digit_karatsuba::<7, 14, $leaf>($clmul, x, y, o)
                }
                None => return false,
            }
            true
        }

        /// The 8-word two-level Karatsuba on two-word digits.
        #[target_feature(enable = $features)]
        fn karatsuba8($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            match $crate::gf2x::formulas::fixed_arrays!(8, a, b, out) {
                Some((x, y, o)) => {
                    $crate::gf2x::clmul::digit_karatsuba::<8, 16, $leaf>($clmul, x, y, o)
                }
                None => return false,
            }
            true
        }

        /// The 9-word two-level Karatsuba on two-word digits and the top
        /// word's cross terms.
        #[target_feature(enable = $features)]
        fn karatsuba9($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            match $crate::gf2x::formulas::fixed_arrays!(9, a, b, out) {
                Some((x, y, o)) => {
                    $crate::gf2x::clmul::digit_karatsuba::<9, 18, $leaf>($clmul, x, y, o)
                }
                None => return false,
            }
            true
        }

        /// The 3-word schoolbook on two-word digits.
        #[target_feature(enable = $features)]
        fn school3($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            match $crate::gf2x::formulas::fixed_arrays!(3, a, b, out) {
                Some((x, y, o)) => $crate::gf2x::clmul::pair_school($clmul, x, y, o),
                None => return false,
            }
            true
        }

        /// The 4-word schoolbook on two-word digits.
        #[target_feature(enable = $features)]
        fn school4($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            match $crate::gf2x::formulas::fixed_arrays!(4, a, b, out) {
                Some((x, y, o)) => $crate::gf2x::clmul::pair_school($clmul, x, y, o),
                None => return false,
            }
            true
        }

        /// The 5-word lane schoolbook.
        #[target_feature(enable = $features)]
        fn school5($t: $token, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            $crate::gf2x::formulas::call_fixed!($five($t), 5, a, b, out);
            true
        }
    };
}
pub(crate) use schoolbook_entry;

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

/// A backend's schoolbook entry (`schoolbook_entry!`'s `schoolbook`) at
/// 3–9 words against the bit-by-bit product, whatever `tuning::SCHOOLBOOK`
/// picks on this CPU (`Dispatch` reaches it only where the table lists
/// it); another size is refused.
#[cfg(test)]
pub(crate) fn check_schoolbook_entry(entry: impl Fn(&mut [u64], &[u64], &[u64]) -> bool) {
    extern crate std;
    use crate::test_util::{mul_bitwise, words};
    use std::{vec, vec::Vec};
    let mut state = 0x5c40_1b00_9a1e_c0deu64;
    for n in 3..=9 {
        for round in 0..40 {
            let (a, b): (Vec<u64>, Vec<u64>) = if round == 0 {
                (vec![u64::MAX; n], vec![u64::MAX; n])
            } else {
                (words(&mut state, n), words(&mut state, n))
            };
            let mut out = vec![0u64; 2 * n];
            assert!(entry(&mut out, &a, &b), "{n} words");
            assert_eq!(out, mul_bitwise(&a, &b), "{n} words, round {round}");
        }
    }
    let mut out = [0u64; 20];
    assert!(!entry(&mut out, &[1; 10], &[1; 10]));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{mul_bitwise, words};
    extern crate std;
    use std::vec;

    /// [`digit_karatsuba`] with either leaf at 6 to 9 words, against the
    /// bit-by-bit product (each backend's entry picks one leaf).
    #[test]
    fn digit_karatsuba_both_leaves() {
        use crate::gf2x::digits::{KaratsubaLeaf, Schoolbook};
        let Some(t) = Clmul::get() else { return };
        let mut state = 0x1eaf_5c40_9a1e_c0deu64;
        macro_rules! check {
            ($($n:literal),*) => {$(
                for round in 0..60 {
                    let (a, b) = if round == 0 {
                        (vec![u64::MAX; $n], vec![u64::MAX; $n])
                    } else {
                        (words(&mut state, $n), words(&mut state, $n))
                    };
                    let (Ok(x), Ok(y)) = (<[u64; $n]>::try_from(&a[..]), <[u64; $n]>::try_from(&b[..]))
                    else {
                        panic!("{} words", $n);
                    };
                    let (mut k, mut s) = ([0u64; 2 * $n], [0u64; 2 * $n]);
                    digit_karatsuba::<$n, { 2 * $n }, KaratsubaLeaf>(t, &x, &y, &mut k);
                    digit_karatsuba::<$n, { 2 * $n }, Schoolbook>(t, &x, &y, &mut s);
                    assert_eq!(k.to_vec(), mul_bitwise(&a, &b), "{} words, round {round}", $n);
                    assert_eq!(s, k, "{} words, round {round}", $n);
                }
            )*};
        }
        check!(6, 7, 8, 9);
    }

    /// [`pair_school`] at every size it takes, against the bit-by-bit
    /// product, whatever `tuning::SCHOOLBOOK` chooses on this CPU (the
    /// integration tests reach it through `Dispatch` only where the table
    /// lists it).
    #[test]
    fn pair_school_against_the_definition() {
        let Some(t) = Clmul::get() else { return };
        let mut state = 0x9a1e_5c40_1b00_c0deu64;
        macro_rules! check {
            ($($n:literal)*) => {$(
                for round in 0..40 {
                    let (a, b) = if round == 0 {
                        (vec![u64::MAX; $n], vec![u64::MAX; $n])
                    } else {
                        (words(&mut state, $n), words(&mut state, $n))
                    };
                    let (Ok(x), Ok(y)) = (<[u64; $n]>::try_from(&a[..]), <[u64; $n]>::try_from(&b[..])) else {
                        panic!("{} words", $n);
                    };
                    let mut out = [0u64; 2 * $n];
                    pair_school(t, &x, &y, &mut out);
                    assert_eq!(out.to_vec(), mul_bitwise(&a, &b), "{} words, round {round}", $n);
                }
            )*};
        }
        check!(1 2 3 4 5 6 7 8 9);
    }
}
