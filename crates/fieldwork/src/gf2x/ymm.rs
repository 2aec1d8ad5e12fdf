//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! GF(2)\[x\] products on ymm registers, for CPUs with VPCLMULQDQ but
//! without AVX-512 (AMD Zen 3 and Zen 4 client parts, Intel client cores).
//! Measured history and next ideas: `docs/notes/gf2x-ymm.md`.
//!
//! # The 4×4-word product on ymm
//!
//! `vpclmulqdq` on a ymm register computes two independent 64×64 products,
//! one per 128-bit lane, each lane choosing the low or high word of each
//! operand by the immediate (bit 0 for the first source, bit 4 for the
//! second). With `A = [a0 a1 | a2 a3]` (lane k holds words 2k, 2k+1) and
//! `Bt = [b2t b2t+1 | b2t b2t+1]` (one half of `B` in both lanes), lane k
//! of the products is
//!
//! ```text
//! 0x00: a(2k)·b(2t)       at word 2k+2t     = lane k+t
//! 0x11: a(2k+1)·b(2t+1)   at word 2k+2t+2   = lane k+t+1
//! 0x01: a(2k+1)·b(2t)  ┐
//! 0x10: a(2k)·b(2t+1)  ┘  at word 2k+2t+1   = lane k+t, plus one word
//! ```
//!
//! The two odd products of a lane are one Karatsuba middle term, so each
//! column t costs three instructions, not four: with `x` holding
//! `a(2k) + a(2k+1)` in lane k and `y = [s0 s1 | s0 s1]`,
//! `st = b(2t) + b(2t+1)`,
//!
//! ```text
//! odd(k, t) = (a(2k) + a(2k+1))·st + a(2k)·b(2t) + a(2k+1)·b(2t+1)
//! ```
//!
//! (`x`·`y` with imm 0x00 for t = 0, 0x10 for t = 1). The sums are
//! accumulated by their shift in lanes (`s0`, `s1`, `s2`); an odd product's
//! low word moves to the high half of its lane and its high word to the low
//! half of the next (`vpslldq`/`vpsrldq` by 8 bytes, in-lane), and `s1`
//! moves up one lane across the (low, high) result pair. Instructions, as
//! compiled: 6 `vpclmulqdq`, 4 `vpermq` (the two half-broadcasts of `B` and
//! the pair of `st`), 1 `vpshufd`, 4 byte shifts, 1 `vperm2i128` + 1
//! `vextracti128`, 13 `vpxor` — 30, for 16 word products (a Karatsuba
//! 4-word product on xmm lanes takes 9 `pclmulqdq`, 9 `psrldq` and about
//! 40 XORs).
//!
//! # Fixed kernels
//!
//! The formulas of [`super::formulas`] run on [`Limb256`] digits (4 words
//! each), every partial product and sum in ymm registers (16 of them:
//! from six limbs the larger formulas spill some sums, still faster than
//! a Karatsuba step through memory). A size that is not a multiple of 4
//! is zero-padded in its top limb, loaded and stored with one xmm and one
//! 64-bit move (never past the slices). Per size:
//!
//! | words | kernel | `vpclmulqdq` (ymm; xmm for lanes) |
//! |---|---|---|
//! | 1, 2, 3 | xmm lanes: one product, Karatsuba, Su–Fan 3-1m | 1, 3, 6 (xmm) |
//! | 4 | xmm lanes: Su–Fan 4-2m (the modified four-term formula (5)) | 9 (xmm) |
//! | 3, 4 where `tuning::SCHOOLBOOK` lists them (Intel) | `clmul::pair_school`: schoolbook on two-word digits | 9, 16 (xmm) |
//! | 5 where `tuning::SCHOOLBOOK` lists it (Intel) | xmm lanes: schoolbook | 25 (xmm) |
//! | 6, 7 where `tuning::SCHOOLBOOK` lists them (Intel) | `clmul::digit_karatsuba`: three-way Karatsuba on two-word digits | 24, 31 (xmm) |
//! | 8, 9 where `tuning::SCHOOLBOOK` lists them (Ice Lake) | `clmul::digit_karatsuba`: two-way Karatsuba twice on two-word digits | 36, 44 (xmm) |
//! | 5, 6 | three-term formula on 2-word digits, two per register | 9 |
//! | 7, 8 | 2 limbs, Karatsuba: three 4×4 | 18 |
//! | 9 | 8 + 1 words: 2 limbs, Karatsuba, and the top words' cross products | 26 + 1 (xmm) |
//! | 10–12 | 3 limbs, three-term formula: six 4×4 | 36 |
//! | 13–16 | 4 limbs, Karatsuba 2 + 2: nine 4×4 | 54 |
//! | 17–20 | 5 limbs, Karatsuba 3 + 2: fifteen 4×4 | 90 |
//! | 21–24 | 6 limbs, Karatsuba 3 + 3 | 108 |
//! | 25–28 | 7 limbs, Karatsuba 4 + 3 | 144 |
//! | 29–32 | 8 limbs, Karatsuba 4 + 4 | 162 |
//!
//! At 4 words 4-2m, not the 4-1m of the other x86 backends: on Zen 3
//! (the core that runs this backend natively) the chained 4-word product
//! took 36.6–37.5 cycles against 38.3 (`peer-bench --filter gf2x_mul
//! --quick`, two builds alternated; 1.29–1.32× gf2x built for the CPU
//! against 1.26×), as the `sufan` group's reproduction rows had it (4-2m
//! 35.5, 4-1m 38.8).
//!
//! On Intel cores `pclmulqdq` issues once a cycle (AMD's Zen 3 and Zen 4
//! once per 2), so more products with no operand sums before them win:
//! 3 and 4 words take the schoolbook on two-word digits, 5 words the lane
//! schoolbook, 6 and 7 words the three-way Karatsuba on two-word digits
//! (fewer products than the ymm formulas' operand packing costs there; the
//! tuning table's entry carries the Xeon's figures: 4 words 23.5 → 17.4
//! ticks, 5 words 31–33 → 27.7, 7 words 39–40 → 33). Where `vpclmulqdq`
//! on ymm issues only once per two cycles (Ice Lake), 8 and 9 words too
//! take the digit Karatsuba on xmm (8 words 67 → 42 ticks).
//! The chained 6-word product stays near 28 ticks either way: the next
//! call's operand is the low half of this product, which needs 5 of the 6
//! digit products (20 `pclmulqdq` issued one a cycle) before its last
//! digit, then the XORs and the store forwarding.
//!
//! (The xmm backend takes 27 `pclmulqdq` at 8 words and 81 at 16.) "xmm
//! lanes" are the PCLMULQDQ backend's formulas compiled here, with AVX2
//! enabled (VEX three-operand encodings). From 33 words the backend's plan
//! ([`super::plan`], `YMM_FIXED`) chooses Karatsuba or Toom-3 steps down to
//! these kernels, and the additive FFT from 22 000 words (and from 3 400
//! where it fills its transform) with the butterflies of `fft/ymm.rs`:
//! four field products in two `vpclmulqdq`, 2.5–3× the speed of the
//! PCLMULQDQ backend's scalar butterflies.
//!
//! # 5 and 6 words: two digit products per register
//!
//! [`mul_three_digits`] cuts the operands into three 2-word digits and
//! takes the three-term Karatsuba formula's six digit products two to a
//! register (`[A0 | A1]`, `[A2 | A0 + A1]`, `[A0 + A2 | A1 + A2]`, all
//! built from loads and in-lane XORs), each a 2-word Karatsuba in its lane
//! (`lane_karatsuba`: three `vpclmulqdq`), and assembles the 12 result
//! words with three `vperm2i128`: 9 `vpclmulqdq`, about 55 instructions
//! (two padded 4-word limbs would take 18, the Su–Fan 5-2 split on xmm
//! lanes 14 `pclmulqdq`). The operands' first four words are read as two
//! 16-byte halves ([`load_halves`]) instead of one 32-byte load: words
//! written by 16-byte stores — the chaining copy's, and most callers' —
//! cannot be forwarded to a 32-byte load, which waits for the stores to
//! retire. Latency floor: the nine products issue over 18 cycles; the
//! chain is load → operand sums → products → one lane cross → store,
//! about 40 of the ≈ 48 cycles of a chained call, the rest the call.
//!
//! # For `gf2m`
//!
//! [`YmmLane`] hands `gf2m`'s ymm entry points the PCLMULQDQ backend's
//! formulas on xmm lanes (the field products stay there: see `gf2m`'s
//! module docs), and [`PairLane`] runs the same formulas on
//! [`PairLane64`] digits — one word of each of two independent operands,
//! one per 128-bit lane — so each `vpclmulqdq` does the word product of
//! both (`gf2m`'s `mul_slices` and `square_slices`).
//!
//! # Squaring
//!
//! `vpclmulqdq` of each word with itself (imm 0x00 and 0x11, two words to
//! an instruction) and two `vperm2i128` to put the squares in word order:
//! two products per 4 words against four `pclmulqdq`.
//!
//! # Port model and floors
//!
//! Zen 3 (family 25 model 1, `peer-bench --isa-rates`): `vpclmulqdq` has a
//! latency of 4 cycles and issues once per 2 cycles (as on Zen 4), on xmm
//! and on ymm alike — so
//! a ymm instruction is twice the word products per cycle, and the
//! products are the scarce resource (XORs and in-lane shuffles issue on
//! the other vector pipes alongside them). A lane-crossing `vpermq` has a
//! latency of 6.6 cycles (throughput 1.26). Floors: the 8-word kernel's 18
//! `vpclmulqdq` are 36 cycles, the 16-word one's 54 are 108; at 4 words
//! the Karatsuba's 9 `pclmulqdq` are 18 cycles. Chained calls measure
//! about twice these (≈ 75 cycles at 8 words, ≈ 216 at 16 on Zen 3):
//! small products are latency chains — the kernel's own chain plus the
//! product's way through memory into the next call (stores, the caller's
//! chaining copy, forwarded loads), which gf2x pays too. `mul_into`
//! reaches the fixed kernels in one call (see `Dispatch::mul_into`).
//!
//! Intel (Xeon family 6 model 207 under the avx2 cap, `peer-bench
//! --isa-rates`): `vpclmulqdq` one a cycle with a latency of 3 on xmm and
//! ymm, on the pipe that also takes the lane-crossing
//! `vpermq`/`vperm2i128` (latency 3, one a cycle); in-lane shuffles and
//! byte shifts two a cycle, `vpxor` three. A one-word product's chain
//! (call, load, one product, store, the caller's copy forwarded to the
//! next call's load) is already ≈ 18.5 cycles, so at 3 and 4 words the
//! remaining few cycles are below what the products' issue allows: small
//! sizes are at this core's floor. From 7 words the products share their
//! pipe with the limb kernels' lane crossings (per 4×4 product 6
//! `vpclmulqdq`, 3 broadcasts and 2 lane moves: 11 cycles of one pipe for
//! 6 of products).
//!
//! # Rejected
//!
//! Measured chained `mul_into` on Zen 3 unless said otherwise; figures in
//! the notes.
//!
//! - Schoolbook 4×4 (8 `vpclmulqdq`, no operand sums) — level at 4 words,
//!   slower above (8 and 64 words ≈ 7–12 %).
//! - One 4×4 limb at 4 words — the half-broadcasts and operand sums sit
//!   before the products on the latency chain (`vpermq` is 6.6 cycles).
//! - Two limbs at 5 words, xmm lanes at 6 and 9 — slower than xmm lanes
//!   (5-2) and limbs respectively; 5 and 6 now take the three-digit kernel.
//! - The three-digit kernel's two-digit sibling at 3 and 4 words — level
//!   with xmm lanes.
//! - Padding a short limb through a stack buffer — a store-forwarding
//!   stall (7 words 93 against 58 ticks).
//! - Loading limbs with `core::array::from_fn` — its closure is compiled
//!   without the caller's target features and was not inlined.
//! - The schoolbook on xmm lanes at 3 and 4 words (Zen 4) — level chained,
//!   11–12 % slower in the normal-basis products that take `mul_fixed` and
//!   a fold.
//! - At 4 words on ymm (Zen 4): one 4×4 limb, a schoolbook on 128-bit
//!   broadcast loads, two lane Karatsubas — none faster than xmm lanes; the
//!   memory round trip, not the products, dominates.
//! - The 4-word limbs of 7 words and up read as two 16-byte halves — slower
//!   (they keep their 32-byte loads).
//! - Su–Fan strategies on xmm lanes at 7 and 9 words — 1.10–1.33× the time
//!   of the limb kernels.
//! - The PCLMULQDQ backend's scalar FFT — would win only from about 55 000
//!   words against the ymm Toom plan.
//! - Sizes 17–32 through a Karatsuba step over the 9–16-word kernels —
//!   ≈ 1.7–1.8× the time of five limbs at 17–20 words.
//! - The 5/6-word `digits3` inlined into `fixed` like the 1–4-word lanes —
//!   unchanged.
//! - The `B` half-broadcasts as `vbroadcasti128` loads at 8 words (Intel) —
//!   no measurable change chained, where `B`'s broadcasts are not on the
//!   chain.
//!
//! # Figure
//!
//! 9 words (the 8 + 1 kernel): 82.4 cycles per chained `mul_into`
//! against 130 for gf2x 1.3 built `-march=native` (1.58×), AMD EPYC Zen 4
//! with the avx2 cap; `FIELDWORK_MAX_ISA=avx2 cargo run --release -p
//! peer-bench --features system-peers,xs233 -- --filter gf2x_mul`
//! (docs/benchmarks/amd-epyc-f25m17-max-avx2.md).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size kernels: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::formulas::{self, Digit, DigitMul};
use super::{Backend, Costs};
use crate::cpu::Avx2Clmul;
use crate::vex256::_mm256_clmulepi64_epi128;
use core::arch::x86_64::{
    __m128i, __m256i, _mm_clmulepi64_si128, _mm_loadl_epi64, _mm_loadu_si128, _mm_storel_epi64,
    _mm_storeu_si128, _mm_xor_si128, _mm256_blend_epi32, _mm256_bslli_epi128, _mm256_bsrli_epi128,
    _mm256_castsi256_si128, _mm256_extracti128_si256, _mm256_loadu_si256,
    _mm256_permute2x128_si256, _mm256_permute4x64_epi64, _mm256_set_m128i, _mm256_set1_epi64x,
    _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_sll_epi64, _mm256_srl_epi64,
    _mm256_storeu_si256, _mm256_unpacklo_epi64, _mm256_xor_si256, _mm256_zextsi128_si256,
};

formulas::limb_multiplier!(
    /// Four words of a polynomial in one ymm register, word 0 in the lowest
    /// 64 bits.
    Limb256(__m256i; 4), _mm256_xor_si256;
    /// The 4×4-word multiplier (see the module docs).
    YmmMul(Avx2Clmul) = mul4x4
);

/// Each 128-bit lane's two words summed, the sum in both words (the
/// in-lane `vpshufd` swap and a XOR): the middle operands of Karatsuba.
///
/// # Safety
///
/// Needs AVX2.
#[inline(always)]
unsafe fn word_sums(a: __m256i) -> __m256i {
    // SAFETY: AVX2 per the caller; no memory access.
    unsafe { _mm256_xor_si256(a, _mm256_shuffle_epi32::<0x4e>(a)) }
}

/// The 8-word product of two 4-word polynomials, as (low, high) registers:
/// six `vpclmulqdq` (see the module docs).
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ.
#[inline(always)]
unsafe fn mul4x4(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    // SAFETY: the caller guarantees AVX2 and VPCLMULQDQ, all the intrinsics
    // below need; none touches memory.
    unsafe {
        // [b0 b1 | b0 b1] and [b2 b3 | b2 b3].
        let b0 = _mm256_permute2x128_si256::<0x00>(b, b);
        let b1 = _mm256_permute2x128_si256::<0x11>(b, b);
        // Lane k of `x`: a(2k) + a(2k+1) in its low word; `y`: b0 + b1 and
        // b2 + b3 in the low words of both lanes ([s0 · s1 ·] → [s0 s1 | s0 s1]).
        let x = word_sums(a);
        let s = word_sums(b);
        let y = _mm256_permute4x64_epi64::<0x88>(s);
        // Lane k, column t: lo = a(2k)·b(2t), hi = a(2k+1)·b(2t+1),
        // mid = (a(2k) + a(2k+1))·(b(2t) + b(2t+1)).
        let lo0 = _mm256_clmulepi64_epi128::<0x00>(a, b0);
        let hi0 = _mm256_clmulepi64_epi128::<0x11>(a, b0);
        let lo1 = _mm256_clmulepi64_epi128::<0x00>(a, b1);
        let hi1 = _mm256_clmulepi64_epi128::<0x11>(a, b1);
        let mid0 = _mm256_clmulepi64_epi128::<0x00>(x, y);
        let mid1 = _mm256_clmulepi64_epi128::<0x10>(x, y);
        // The odd-offset sums a(2k+1)·b(2t) + a(2k)·b(2t+1), at word
        // 2k + 2t + 1.
        let o0 = _mm256_xor_si256(mid0, _mm256_xor_si256(lo0, hi0));
        let o1 = _mm256_xor_si256(mid1, _mm256_xor_si256(lo1, hi1));
        // Everything by its shift in lanes: s_j lane k lands in result lane
        // k + j. An odd product's low word goes to the high half of its
        // lane, its high word to the low half of the next lane.
        let s0 = _mm256_xor_si256(lo0, _mm256_bslli_epi128::<8>(o0));
        let s1 = _mm256_xor_si256(
            _mm256_xor_si256(hi0, lo1),
            _mm256_xor_si256(_mm256_bsrli_epi128::<8>(o0), _mm256_bslli_epi128::<8>(o1)),
        );
        let s2 = _mm256_xor_si256(hi1, _mm256_bsrli_epi128::<8>(o1));
        // s1 moves up one lane across the (lo, hi) pair.
        let lo = _mm256_xor_si256(s0, _mm256_permute2x128_si256::<0x08>(s1, s1));
        let hi = _mm256_xor_si256(s2, _mm256_permute2x128_si256::<0x81>(s1, s1));
        (lo, hi)
    }
}

/// `a8·Bj + b8·Aj` for one limb pair (`a8`, `b8` broadcast to every
/// word), as its even word products (word 2k of the limb times the top
/// word, at offset 2k of the limb) and its odd ones (word 2k + 1, at
/// offset 2k + 1): four `vpclmulqdq`, for the 9-word kernel.
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ.
#[inline(always)]
unsafe fn cross_terms(aj: __m256i, bj: __m256i, a8: __m256i, b8: __m256i) -> (__m256i, __m256i) {
    // SAFETY: the caller guarantees AVX2 and VPCLMULQDQ; no memory access.
    unsafe {
        let even = _mm256_xor_si256(
            _mm256_clmulepi64_epi128::<0x00>(bj, a8),
            _mm256_clmulepi64_epi128::<0x00>(aj, b8),
        );
        let odd = _mm256_xor_si256(
            _mm256_clmulepi64_epi128::<0x01>(bj, a8),
            _mm256_clmulepi64_epi128::<0x01>(aj, b8),
        );
        (even, odd)
    }
}

/// The two-word Karatsuba product in each 128-bit lane: lane k of `x`
/// and `y` holds a two-word digit; the result is the lane's 256-bit
/// product as (low 128 bits, high 128 bits), each in lane k. Three
/// `vpclmulqdq`: low words, high words, and the sums of each digit's two
/// words (the in-lane `vpshufd` swap).
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ.
#[inline(always)]
unsafe fn lane_karatsuba(x: __m256i, y: __m256i) -> (__m256i, __m256i) {
    // SAFETY: the caller guarantees AVX2 and VPCLMULQDQ; no memory access.
    unsafe {
        let lo = _mm256_clmulepi64_epi128::<0x00>(x, y);
        let hi = _mm256_clmulepi64_epi128::<0x11>(x, y);
        let (xs, ys) = (word_sums(x), word_sums(y));
        let mid = _mm256_xor_si256(
            _mm256_clmulepi64_epi128::<0x00>(xs, ys),
            _mm256_xor_si256(lo, hi),
        );
        (
            _mm256_xor_si256(lo, _mm256_bslli_epi128::<8>(mid)),
            _mm256_xor_si256(hi, _mm256_bsrli_epi128::<8>(mid)),
        )
    }
}

/// A 5- or 6-word operand as the three pairs of two-word digits the
/// three-term formula multiplies (`A = A0 + A1·t + A2·t²`, `t = x^128`):
/// `[A0 | A1]`, `[A2 | A0 + A1]`, `[A0 + A2 | A1 + A2]` (low lane first).
/// At 5 words `A2` is one word, zero-extended; nothing past the slice is
/// read.
///
/// # Safety
///
/// Needs AVX2; `a.len()` is 5 or 6.
#[inline(always)]
unsafe fn digit_pairs(a: &[u64]) -> [__m256i; 3] {
    debug_assert!(a.len() == 5 || a.len() == 6);
    let p = a.as_ptr();
    // SAFETY: AVX2 per the caller; the loads read words 0–3 and then word
    // 4 alone (5 words) or words 4–5 (6 words), inside the slice.
    unsafe {
        let (a01, a0, a1) = load_halves(p);
        let a2 = if a.len() == 6 {
            _mm_loadu_si128(p.add(4).cast())
        } else {
            _mm_loadl_epi64(p.add(4).cast())
        };
        // A0 + A1 from the two xmm loads: no lane-crossing extract.
        let s01 = _mm_xor_si128(a0, a1);
        [
            a01,
            _mm256_set_m128i(s01, a2),
            _mm256_xor_si256(a01, _mm256_set_m128i(a2, a2)),
        ]
    }
}

/// The product of two 5- or 6-word polynomials (`out.len() == 2·a.len()`)
/// by the three-term Karatsuba formula over two-word digits — six digit
/// products, two to a register, each a two-word Karatsuba in its lane:
/// nine `vpclmulqdq` against eighteen for two padded 4-word limbs.
///
/// With `P0 = A0·B0`, `P1`, `P2`, `P01 = (A0 + A1)(B0 + B1)`, `P02`, `P12`,
/// `S = P0 + P1·t + P2·t²` and `R = P01 + P02·t + P12·t²` (digits
/// `s0 … s3`, `r0 … r3`), the product is `S·(1 + t + t²) + R·t`:
///
/// ```text
/// c0 = s0            c3 = s1 + s2 + s3 + r2
/// c1 = s0 + s1 + r0  c4 = s2 + s3 + r3
/// c2 = s0 + s1 + s2 + r1      c5 = s3
/// ```
///
/// assembled as three output registers `[c0 | c1]`, `[c2 | c3]`, `[c4 |
/// c5]` with one lane-crossing `vperm2i128` each.
///
/// # Safety
///
/// Needs AVX2 and VPCLMULQDQ; `a.len() == b.len()` is 5 or 6 and
/// `out.len() == 2·a.len()`.
#[inline(always)]
unsafe fn mul_three_digits(out: &mut [u64], a: &[u64], b: &[u64]) {
    debug_assert!(a.len() == b.len() && out.len() == 2 * a.len());
    // SAFETY: the caller guarantees AVX2, VPCLMULQDQ and the lengths; the
    // stores write words 0–7 and then 8–9 (10 words) or 8–11 (12 words),
    // inside `out`.
    unsafe {
        let [x1, x2, x3] = digit_pairs(a);
        let [y1, y2, y3] = digit_pairs(b);
        // Lanes: (l1, h1) = [P0 | P1], (l2, h2) = [P2 | P01], (l3, h3) =
        // [P02 | P12], each product as its low and high 128 bits.
        let (l1, h1) = lane_karatsuba(x1, y1);
        let (l2, h2) = lane_karatsuba(x2, y2);
        let (l3, h3) = lane_karatsuba(x3, y3);
        let zero = _mm256_setzero_si256();
        let l2_low = _mm256_blend_epi32::<0xf0>(l2, zero); // [p2l | 0]
        let l2_high = _mm256_blend_epi32::<0x0f>(l2, zero); // [0 | p01l]
        let y = _mm256_xor_si256(l1, h1); // [p0l + p0h | p1l + p1h]
        // [c0 | c1] = [p0l | p1l + p01l] + [0 | p0l + p0h].
        let v01 = _mm256_xor_si256(
            _mm256_xor_si256(l1, l2_high),
            _mm256_permute2x128_si256::<0x08>(y, y),
        );
        // [c2 | c3]: in-lane terms [p0l + p0h + p2l + p02l | p1l + p1h +
        // p12l], and across lanes [p1l + p1h + p01h | p0h + p2l + p2h + p02h].
        let w = _mm256_xor_si256(_mm256_xor_si256(y, l3), l2_low);
        let z = _mm256_permute2x128_si256::<0x21>(
            _mm256_xor_si256(y, h2),
            _mm256_xor_si256(_mm256_xor_si256(h1, l2), _mm256_xor_si256(h2, h3)),
        );
        let v23 = _mm256_xor_si256(w, z);
        // [c4 | c5] = [p1h + p12h | p2h] + [p2l + p2h | 0].
        let v45 = _mm256_xor_si256(
            _mm256_permute2x128_si256::<0x21>(_mm256_xor_si256(h1, h3), h2),
            _mm256_blend_epi32::<0xf0>(_mm256_xor_si256(l2, h2), zero),
        );
        let o = out.as_mut_ptr();
        _mm256_storeu_si256(o.cast(), v01);
        _mm256_storeu_si256(o.add(4).cast(), v23);
        if out.len() == 12 {
            _mm256_storeu_si256(o.add(8).cast(), v45);
        } else {
            _mm_storeu_si128(o.add(8).cast(), _mm256_castsi256_si128(v45));
        }
    }
}

/// Four words at `p` as a ymm register, read as two 16-byte halves (also
/// returned): a 32-byte load of words that were written by narrower
/// stores (two xmm stores, as a copy or most callers' code writes them)
/// cannot be store-forwarded and waits for the stores to retire — on Zen 3
/// about 15 cycles on a chained product. The halves are loaded by `asm!`
/// because LLVM merges two adjacent 16-byte loads back into one 32-byte
/// load.
///
/// # Safety
///
/// Needs AVX2; `p` points to four readable words.
#[inline(always)]
unsafe fn load_halves(p: *const u64) -> (__m256i, __m128i, __m128i) {
    let (lo, hi): (__m128i, __m128i);
    // SAFETY: the caller guarantees AVX2 and 32 readable bytes at `p`; the
    // two unaligned loads read exactly those bytes and write nothing.
    unsafe {
        core::arch::asm!(
            "vmovdqu {lo}, xmmword ptr [{p}]",
            "vmovdqu {hi}, xmmword ptr [{p} + 16]",
            p = in(reg) p,
            lo = out(xmm_reg) lo,
            hi = out(xmm_reg) hi,
            options(pure, readonly, nostack, preserves_flags),
        );
        (_mm256_set_m128i(hi, lo), lo, hi)
    }
}

/// Loads `a` (at most `4·L` words) into `L` limbs, zero-padded. A short
/// last limb is read with an xmm load and a 64-bit load, never past the
/// slice (the lengths are public; the data chooses nothing).
///
/// # Safety
///
/// Needs AVX2.
#[inline(always)]
unsafe fn load_limbs<const L: usize>(a: &[u64]) -> [Limb256; L] {
    // A loop, not `array::from_fn`: its closure is compiled without the
    // caller's target features, so it was not inlined (a call and a stack
    // round trip per limb: the 4-word product went from 38 to 87 ticks).
    let mut limbs = [Limb256::ZERO; L];
    for (i, limb) in limbs.iter_mut().enumerate() {
        let start = (4 * i).min(a.len());
        let chunk = &a[start..a.len().min(4 * i + 4)];
        let p = chunk.as_ptr();
        // SAFETY: AVX2 per the caller; every load below reads only words of
        // `chunk` (its length is checked first); the loads are unaligned.
        unsafe {
            limb.0 = match chunk.len() {
                // Two limbs (7–9 words): the top-level operands of a small
                // product, written by the caller's narrower stores; from
                // three limbs a recursive level's operands, from our own
                // 32-byte stores (the halves measured 4–8 % slower there).
                4 if L <= 2 => load_halves(p).0,
                4 => _mm256_loadu_si256(p.cast()),
                3 => _mm256_set_m128i(_mm_loadl_epi64(p.add(2).cast()), _mm_loadu_si128(p.cast())),
                2 => _mm256_zextsi128_si256(_mm_loadu_si128(p.cast())),
                1 => _mm256_zextsi128_si256(_mm_loadl_epi64(p.cast())),
                _ => _mm256_setzero_si256(),
            };
        }
    }
    limbs
}

/// Stores the first `out.len()` words of the limbs; a short last limb with
/// an xmm store and a 64-bit store, never past the slice.
///
/// # Safety
///
/// Needs AVX2.
#[inline(always)]
unsafe fn store_limbs<const L: usize>(out: &mut [u64], c: &[Limb256; L]) {
    for (i, limb) in c.iter().enumerate() {
        let start = 4 * i;
        if start >= out.len() {
            break;
        }
        let end = (start + 4).min(out.len());
        let dst = &mut out[start..end];
        let p = dst.as_mut_ptr();
        // SAFETY: AVX2 per the caller; every store below writes only words
        // of `dst` (its length is checked first); the stores are unaligned.
        unsafe {
            let low = _mm256_castsi256_si128(limb.0);
            match dst.len() {
                4 => _mm256_storeu_si256(p.cast(), limb.0),
                3 => {
                    _mm_storeu_si128(p.cast(), low);
                    _mm_storel_epi64(p.add(2).cast(), _mm256_extracti128_si256::<1>(limb.0));
                }
                2 => _mm_storeu_si128(p.cast(), low),
                _ => _mm_storel_epi64(p.cast(), low),
            }
        }
    }
}

super::simd_backend! {
    /// The VPCLMULQDQ backend on ymm (see [`Backend`]); holding one proves the
    /// instructions.
    VpclmulqdqYmm(Avx2Clmul) = "vpclmulqdq-ymm", fft super::fft::ymm::YmmFft,
    /// Measured on Zen 3 (independent products through
    /// `mul_into_with_scratch`, less 15 ticks of call overhead as for
    /// PCLMULQDQ): 1–5 words xmm lanes, 6–8 two 4-word limbs, 9–12 three,
    /// 13–16 four, … 29–32 eight; sizes in between cost as the next limb
    /// count. The FFT from 22 000 words, and from 3 400 where it fills its
    /// transform (see `plan.rs`).
    costs [
        0, 6, 10, 17, 22, 34, 41, 43, 44, 85, 105, 105, 105, 150, 150, 150, 150, 225, 225, 225,
        225, 322, 322, 322, 322, 410, 410, 410, 410, 475, 475, 475, 475,
    ], fft_min 22_000, fft_dense_min 3_400;
    {
        fn fixed(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
            // Where the two-word-digit schoolbook is faster on this core
            // (the table, with its measurements, in `tuning.rs`).
            if super::tuning::SCHOOLBOOK_SIZES.has(a.len()) && super::tuning::fixed_choice().schoolbook.ymm.has(a.len()) {
                return tf::schoolbook(self.0, out, a, b);
            }
            self.fixed_lanes(out, a, b)
        }

        #[inline]
        fn clmul64(self, a: u64, b: u64) -> u128 {
            super::clmul::Pclmulqdq(self.0.clmul()).clmul64(a, b)
        }
    }
}

impl VpclmulqdqYmm {
    /// The fixed kernels of `tf::fixed` alone, without the two-word-digit
    /// schoolbook's check: [`Backend::fixed`] here, and the zmm backend's
    /// hand-off (which has made its own choice).
    #[inline]
    pub(crate) fn fixed_lanes(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
        // SAFETY: the token proves every feature `tf::fixed` enables.
        unsafe { tf::fixed(self.0, out, a, b) }
    }
}

/// The `#[target_feature]` functions, reached only through [`VpclmulqdqYmm`].
mod tf {
    use super::*;

    formulas::fixed_slice_entry!(
        /// The fixed kernels, per size (see the module docs for the table and
        /// the measurements that chose them).
        "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1",
        Avx2Clmul,
        |t, out, a, b| {
            use formulas::call_fixed as lanes;
            match a.len() {
                0 => {}
                1 => lanes!(lanes1(t), 1, a, b, out),
                2 => lanes!(lanes2(t), 2, a, b, out),
                3 => lanes!(lanes3(t), 3, a, b, out),
                4 => lanes!(lanes4(t), 4, a, b, out),
                5 | 6 => digits3(out, a, b),
                7 | 8 => limbs2(t, out, a, b),
                9 => lanes!(eight_plus_one(t), 9, a, b, out),
                10..=12 => limbs3(t, out, a, b),
                13..=16 => limbs4(t, out, a, b),
                17..=20 => limbs5(t, out, a, b),
                21..=24 => limbs6(t, out, a, b),
                25..=28 => limbs7(t, out, a, b),
                29..=32 => limbs8(t, out, a, b),
                _ => return false,
            }
            true
        }
    );

    /// `out = a²`, `out.len() == 2·a.len()`: four words at a time, each
    /// squared by `vpclmulqdq` of the word with itself (imm 0x00 squares
    /// the even words, 0x11 the odd ones, two to an instruction), put back
    /// in word order by two lane permutes. The tail (under
    /// 4 words) goes to the xmm loop.
    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    pub(super) fn square(t: Avx2Clmul, out: &mut [u64], a: &[u64]) {
        debug_assert_eq!(out.len(), 2 * a.len());
        let full = a.len() / 4;
        // SAFETY: compiled with AVX2 and VPCLMULQDQ, which the token proves;
        // each 32-byte load reads `a[4i..4i + 4]` and each pair of stores
        // writes `out[8i..8i + 8]`, inside the slices (`i < full`).
        unsafe {
            for i in 0..full {
                let x = _mm256_loadu_si256(a.as_ptr().add(4 * i).cast());
                // Lane k: even = (a(2k))², odd = (a(2k+1))², the output
                // words 4k, 4k + 1 and 4k + 2, 4k + 3 of this block.
                let even = _mm256_clmulepi64_epi128::<0x00>(x, x);
                let odd = _mm256_clmulepi64_epi128::<0x11>(x, x);
                let dst = out.as_mut_ptr().add(8 * i);
                _mm256_storeu_si256(dst.cast(), _mm256_permute2x128_si256::<0x20>(even, odd));
                _mm256_storeu_si256(
                    dst.add(4).cast(),
                    _mm256_permute2x128_si256::<0x31>(even, odd),
                );
            }
        }
        super::super::clmul::Pclmulqdq(t.clmul()).square(&mut out[8 * full..], &a[4 * full..]);
    }

    /// The 9-word product as 8 + 1 words: with `A = A0 + a8·X`,
    /// `B = B0 + b8·X`, `X = x^512`,
    /// `A·B = A0·B0 + (a8·B0 + b8·A0)·X + a8·b8·X²`. `A0·B0` is the 8-word
    /// kernel (two limbs, Karatsuba: 18 `vpclmulqdq`); the cross term is
    /// eight `vpclmulqdq` against the broadcast top words, whose products
    /// are independent of the Karatsuba chain; one `pclmulqdq` for
    /// `a8·b8`. 27 instructions, against 36 for three zero-padded limbs.
    #[inline(never)]
    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    fn eight_plus_one(t: Avx2Clmul, a: &[u64; 9], b: &[u64; 9], out: &mut [u64; 18]) {
        // SAFETY: compiled with AVX2 and VPCLMULQDQ, which the token
        // proves; the limb loads and stores go through bounds-checked
        // slices of `a`, `b` and `out`, and the last store writes the 16
        // bytes of `high` (words 16 and 17).
        unsafe {
            let x = load_limbs::<2>(&a[..8]);
            let y = load_limbs::<2>(&b[..8]);
            let p = formulas::mul2(YmmMul(t), &x, &y);
            let a8 = _mm256_set1_epi64x(a[8] as i64);
            let b8 = _mm256_set1_epi64x(b[8] as i64);
            let (e0, o0) = cross_terms(x[0].0, y[0].0, a8, b8);
            let (e1, o1) = cross_terms(x[1].0, y[1].0, a8, b8);
            // An odd product's low word goes to the high half of its
            // lane; its high word (`h`) to the low half of the next lane,
            // across limbs: limb 0 lane 1 ← h0 lane 0, limb 1 ← (h0 lane
            // 1, h1 lane 0), word 8 of the cross term ← h1 lane 1.
            let h0 = _mm256_bsrli_epi128::<8>(o0);
            let h1 = _mm256_bsrli_epi128::<8>(o1);
            let c0 = _mm256_xor_si256(
                _mm256_xor_si256(e0, _mm256_bslli_epi128::<8>(o0)),
                _mm256_permute2x128_si256::<0x08>(h0, h0),
            );
            let c1 = _mm256_xor_si256(
                _mm256_xor_si256(e1, _mm256_bslli_epi128::<8>(o1)),
                _mm256_permute2x128_si256::<0x21>(h0, h1),
            );
            let top = _mm_xor_si128(
                _mm256_extracti128_si256::<1>(h1),
                _mm_clmulepi64_si128::<0x00>(
                    _mm256_castsi256_si128(a8),
                    _mm256_castsi256_si128(b8),
                ),
            );
            let (low, high) = out.split_at_mut(16);
            store_limbs(low, &[p[0], p[1], p[2] ^ Limb256(c0), p[3] ^ Limb256(c1)]);
            _mm_storeu_si128(high.as_mut_ptr().cast(), top);
        }
    }

    /// The 5- and 6-word products by [`mul_three_digits`].
    #[inline(never)]
    #[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
    fn digits3(out: &mut [u64], a: &[u64], b: &[u64]) {
        // SAFETY: compiled with AVX2 and VPCLMULQDQ (the token of `fixed`,
        // the only caller, proves them); `fixed` checked `out.len() ==
        // 2·a.len()`, `a.len() == b.len()`, and the match arm 5 or 6.
        unsafe { mul_three_digits(out, a, b) }
    }

    // The products of `N ≤ 4·L` words, zero-padded to `L` limbs, by the
    // formula `mulL` over 4-word limbs (one function per limb count, as in
    // the zmm backend).
    formulas::limb_products!(
        "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1", Avx2Clmul, YmmMul;
        limbs2 mul2 2, limbs3 mul3 3, limbs4 mul4 4, limbs5 mul5 5, limbs6 mul6 6,
        limbs7 mul7 7, limbs8 mul8 8
    );

    // The schoolbooks at 3-5 words, where `tuning::SCHOOLBOOK` says.
    super::super::clmul::schoolbook_entry!(
        "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1",
        Avx2Clmul,
        |t| t.clmul(),
        five lanes5,
        leaf crate::gf2x::digits::Schoolbook
    );

    // The `N`-word products by a formula on xmm lanes, compiled with AVX2
    // (VEX encodings: three-operand forms, no moves); `lanes5`, the
    // schoolbook, only through `schoolbook`.
    super::super::clmul::lane_products!(
        "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1", Avx2Clmul, |t| super::super::clmul::PclmulLane(t.clmul());
        #[inline] lanes1 1 = formulas::mul1,
        #[inline] lanes2 2 = formulas::mul2,
        #[inline] lanes3 3 = crate::gf2x::sufan::s3_1m,
        #[inline(never)] lanes4 4 = crate::gf2x::sufan::s4_2m,
        #[inline] lanes5 5 = crate::gf2x::sufan::schoolbook
    );
}

/// The fixed kernels `#[inline(always)]` for another area's
/// `#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]`
/// entry points (`gf2m`): the PCLMULQDQ backend's formulas on xmm lanes
/// (VEX-encoded there). (The 4-word limb products of [`VpclmulqdqYmm`] are
/// not faster inside a field product: see `gf2m`'s module docs.)
#[derive(Clone, Copy, Debug)]
pub struct YmmLane(pub(crate) Avx2Clmul);

impl YmmLane {
    #[inline(always)]
    fn lane(self) -> super::clmul::PclmulLane {
        super::clmul::PclmulLane(self.0.clmul())
    }
}

/// Delegates `InlineFixed::$name` to the PCLMULQDQ lanes.
macro_rules! lane_delegates {
    ($($name:ident $n:literal),*) => {$(
        #[inline(always)]
        fn $name(self, a: &[Lane64; $n], b: &[Lane64; $n]) -> [Lane64; 2 * $n] {
            self.lane().$name(a, b)
        }
    )*};
}

use super::clmul::Lane64;
use formulas::{InlineFixed, InlinePair};

impl InlineFixed for YmmLane {
    type Limb = Lane64;
    #[inline(always)]
    fn limbs<const N: usize>(self, a: &[u64; N]) -> [Lane64; N] {
        self.lane().limbs(a)
    }
    #[inline(always)]
    fn words<const N: usize>(self, a: [Lane64; N]) -> [u64; N] {
        self.lane().words(a)
    }
    #[inline(always)]
    fn shl(self, x: Lane64, s: u32) -> Lane64 {
        self.lane().shl(x, s)
    }
    #[inline(always)]
    fn shr(self, x: Lane64, s: u32) -> Lane64 {
        self.lane().shr(x, s)
    }
    lane_delegates!(
        mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16
    );
    #[inline(always)]
    fn square_limb(self, a: Lane64) -> [Lane64; 2] {
        self.lane().square_limb(a)
    }
}

/// One word of each of two operands: the first in the low 64 bits of the
/// low 128-bit lane, the second in the low 64 bits of the high lane; the
/// high word of each lane is don't-care (XOR and shifts are lane-wise and
/// `vpclmulqdq` with imm 0x00 reads only the low words, so it never leaks
/// into a result).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairLane64(__m256i);

formulas::vector_digit!(PairLane64(__m256i; 4), _mm256_xor_si256);

/// Two independent products per instruction: the fixed formulas on
/// [`PairLane64`] digits, a word product being one `vpclmulqdq` (imm 0x00)
/// and one in-lane `vpsrldq` for the high words — the PCLMULQDQ lanes'
/// instruction sequence, doing two elements' work.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairLane(pub(crate) Avx2Clmul);

formulas::lane_multiplier!(PairLane: PairLane64 = _mm256_clmulepi64_epi128, _mm256_bsrli_epi128);

/// The products of `PairLane`: the default formulas of [`formulas`] (the
/// fewest products: the pair kernels are bound by `vpclmulqdq` throughput,
/// not latency), the Su–Fan 3 + 2 split at 5 words, and at 9 words
/// Karatsuba 5 + 4, 39 products (1024 products at m = 571 on Zen 3:
/// 30.1 µs against 32.7 for the three-term formula, whose six live
/// products spill more; 40.6 with the three-term products added into the
/// result one by one). At 3 words the three-term formula, 6 products
/// (m = 163: 6.0 µs against 6.5 for the xmm lanes' schoolbook).
macro_rules! pair_products {
    ($($name:ident $n:literal = $formula:path),*) => {$(
        #[inline(always)]
        fn $name(self, a: &[PairLane64; $n], b: &[PairLane64; $n]) -> [PairLane64; 2 * $n] {
            $formula(self, a, b)
        }
    )*};
}

impl InlineFixed for PairLane {
    type Limb = PairLane64;
    #[inline(always)]
    fn limbs<const N: usize>(self, a: &[u64; N]) -> [PairLane64; N] {
        self.pair_limbs(a, &[0; N])
    }
    #[inline(always)]
    fn words<const N: usize>(self, a: [PairLane64; N]) -> [u64; N] {
        let (mut x, mut y) = ([0u64; N], [0u64; N]);
        self.pair_store(a, &mut x, &mut y);
        x
    }
    formulas::vector_shifts!(PairLane64, _mm256_sll_epi64, _mm256_srl_epi64);
    pair_products!(
        mul1 1 = formulas::mul1,
        mul2 2 = formulas::mul2,
        mul3 3 = formulas::mul3,
        mul4 4 = formulas::mul4,
        mul5 5 = crate::gf2x::sufan::s5_2,
        mul6 6 = formulas::mul6,
        mul7 7 = formulas::mul7,
        mul8 8 = formulas::mul8,
        mul9 9 = formulas::mul9_karatsuba,
        mul16 16 = formulas::mul16
    );
    #[inline(always)]
    fn square_limb(self, a: PairLane64) -> [PairLane64; 2] {
        self.mul(a, a)
    }
}

impl InlinePair for PairLane {
    #[inline(always)]
    fn pair_limbs<const N: usize>(self, x: &[u64; N], y: &[u64; N]) -> [PairLane64; N] {
        let mut c = [PairLane64::ZERO; N];
        let mut i = 0;
        // SAFETY: the token proves AVX2; each load reads `x[i..i + 2]` or
        // `y[i..i + 2]` with `i + 1 < N` (or the single word `N − 1`),
        // inside the arrays; the loads are unaligned.
        unsafe {
            while i + 1 < N {
                // [x(i) x(i+1) | y(i) y(i+1)]: digit i as it is, digit i + 1
                // shifted down one word in each lane.
                let lo = _mm_loadu_si128(x.as_ptr().add(i).cast());
                let hi = _mm_loadu_si128(y.as_ptr().add(i).cast());
                let v = _mm256_set_m128i(hi, lo);
                c[i] = PairLane64(v);
                c[i + 1] = PairLane64(_mm256_bsrli_epi128::<8>(v));
                i += 2;
            }
            if N % 2 == 1 {
                let lo = _mm_loadl_epi64(x.as_ptr().add(N - 1).cast());
                let hi = _mm_loadl_epi64(y.as_ptr().add(N - 1).cast());
                c[N - 1] = PairLane64(_mm256_set_m128i(hi, lo));
            }
        }
        c
    }

    #[inline(always)]
    fn pair_store<const N: usize>(self, c: [PairLane64; N], x: &mut [u64; N], y: &mut [u64; N]) {
        let mut i = 0;
        // SAFETY: the token proves AVX2; each store writes `x[i..i + 2]` or
        // `y[i..i + 2]` with `i + 1 < N` (or the single word `N − 1`),
        // inside the arrays; the stores are unaligned.
        unsafe {
            while i + 1 < N {
                // Lane k: words i and i + 1 of operand k.
                let v = _mm256_unpacklo_epi64(c[i].0, c[i + 1].0);
                _mm_storeu_si128(x.as_mut_ptr().add(i).cast(), _mm256_castsi256_si128(v));
                _mm_storeu_si128(
                    y.as_mut_ptr().add(i).cast(),
                    _mm256_extracti128_si256::<1>(v),
                );
                i += 2;
            }
            if N % 2 == 1 {
                let v = c[N - 1].0;
                _mm_storel_epi64(x.as_mut_ptr().add(N - 1).cast(), _mm256_castsi256_si128(v));
                _mm_storel_epi64(
                    y.as_mut_ptr().add(N - 1).cast(),
                    _mm256_extracti128_si256::<1>(v),
                );
            }
        }
    }
}

#[cfg(test)]
mod schoolbook_tests {
    use super::*;

    /// This backend's schoolbook entry against the definition
    /// (`clmul::check_schoolbook_entry`).
    #[test]
    fn schoolbook_entry_against_the_definition() {
        let Some(t) = crate::cpu::Avx2Clmul::get() else {
            return;
        };
        super::super::clmul::check_schoolbook_entry(|out, a, b| tf::schoolbook(t, out, a, b));
    }
}
