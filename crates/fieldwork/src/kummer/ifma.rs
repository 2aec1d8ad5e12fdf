//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `avx512ifma` — capability token [`cpu::Avx512Ifma`]; the backend
//! [`Avx512Ifma`]. Its key generation is the lane-parallel comb below
//! ("The lane comb"; its row scans are the AVX2 backend's, the token
//! implies AVX2).
//!
//! Measured history: `docs/notes/kummer-ifma.md`.
//!
//! # Layout
//!
//! One zmm register holds a limb of eight field elements: lanes 0–3 the
//! coordinates (x, y, z, t) of R0, lanes 4–7 those of R1, so one ladder step
//! is a handful of 8-lane operations. This follows the four-coordinate
//! vectorisation of Bernstein, Chuengsatiansup, Lange & Schwabe (*Kummer
//! strikes back*, ePrint 2014/134, §4), widened to both ladder points (see
//! "No swap" below for what replaces the conditional swap).
//!
//! # Representation: 43-, 43- and 41-bit limbs under a 52-bit multiplier
//!
//! An element is `l0 + l1·2^43 + l2·2^86` with 64-bit limbs, reduced only
//! loosely: limb 2 nominally holds 41 bits, and what it carries past them
//! sits at 2^127 ≡ 1, limb 0. `vpmadd52luq` / `vpmadd52huq` multiply the
//! low 52 bits of two lanes and add the low or high 52 bits of the 104-bit
//! product to a 64-bit accumulator. Limbs well under 52 bits leave headroom:
//! the Hadamard transforms run with no carry at all.
//!
//! # Products split at the limb boundary
//!
//! The multiplier splits a product at bit 52; the limbs want it split at
//! bit 43 (or 41). Scaling the operands so that their product is
//! `a·b·2^9` moves the split: the low half is `(a·b mod 2^43)·2^9` and the
//! high half is `a·b >> 43`, exactly the carry into the next limb. For a
//! term `a_i·b_j` in column `s = i + j`:
//!
//! - `s = 0, 1`: scale 2^9; low half (÷ 2^9) in column s, high half in
//!   column s + 1.
//! - `s = 2`: scale 2^11; the split is at 41 bits: low half (÷ 2^11) in
//!   column 2, high half at 2^127 ≡ 1, column 0.
//! - `s = 3, 4`: `a·b·2^(43s) ≡ 4·a·b·2^(43(s−3))` (2^129 ≡ 4); with scale
//!   2^11 the low half is `4·(a·b mod 2^41)·2^9`, in column s − 3 in the
//!   same ÷ 2^9 units as the others, and the high half `a·b >> 41` lands in
//!   column s − 2 unscaled.
//!
//! So a product is nine `vpmadd52luq` into three accumulators and nine
//! `vpmadd52huq` into three more, then `limb_k = (low_k >> 9 or 11) +
//! high_k`: three shifts and three adds, no carry round ("lazy" products,
//! [`mul_lazy`] and [`square_lazy`]). The scalings come from shifting the
//! operands (the two factors' shifts must add up to 9 or 11 and keep both
//! under 52 bits). Outputs are not tight (up to 2^51.3) but every consumer
//! of a lazy product multiplies it, and the multiplier takes up to 52 bits.
//! The same trick with a scaled constant makes [`mul_small`] (⊙ CH) come
//! out carried. The last product of a step feeds a Hadamard transform,
//! which needs tight limbs, so [`mul_carried`] splits at bit 52 as usual
//! (high halves shifted by 9, column 2's by 11 into column 0), with the
//! wrap factor 4 on the constant operand, and ends with one parallel carry
//! round.
//!
//! # Bounds (exclusive, per limb; proved here, checked at the edges by the
//! tests `field_ops_match_portable_at_their_bounds` and
//! `hadamard_matches_portable`)
//!
//! - Transform inputs (outputs of [`mul_small`] and [`mul_carried`]) below
//!   `(2^43 + 2^21, 2^43 + 2^21, 2^41 + 2^20)`. The first butterfly layer
//!   subtracts from a bias of `2p` (limbs `(2^44 − 2, 2^44 − 2, 2^42 − 2)`),
//!   the second from `4p`, so outputs are below `A = 7·2^43 + 2^21`
//!   (limbs 0, 1) and `C = 7·2^41 + 2^20` (limb 2).
//! - Lazy products of transform outputs: the high accumulator of column 0
//!   is at most `(2·A·C + A²) / 2^41 < 2^51.2`, column 1's `A²/2^43 +
//!   2·A·C/2^41 < 2^50.2`, column 2's `2·A²/2^43 + C²/2^41 < 2^49.7`; the
//!   low accumulators add at most `3·2^43`. Outputs below
//!   `(5·2^49, 5·2^48, 7·2^47)`, under the multiplier's 52 bits. The
//!   operand shifts keep every factor under 2^52 (largest: `A·2^6`).
//! - [`mul_small`] of a lazy output by `c < 2^12`: high halves below 2^21,
//!   so the output meets the transform-input bound.
//! - [`mul_carried`] of a lazy output by a canonical constant (limbs below
//!   2^43, 2^43, 2^41; `4·k < 2^45`): column sums below 2^54.5, carries
//!   below 2^13.1, outputs below `(2^43 + 2^14, 2^43 + 2^12, 2^41 + 2^12)`.
//!
//! # The Hadamard transforms without a final permutation, and CH's sign
//!
//! Two butterfly layers — pairs (0,1),(2,3) with an in-lane `vpshufd`, then
//! pairs (0,2),(1,3) with `vpermq` — give `σ·H` where σ swaps coordinates 1
//! and 2. A butterfly is `t = perm(v)`, `w = v` with the lanes of a mask
//! replaced by `bias − v` (one masked subtract), `v' = t + w`. The first
//! transform of a step (masks 0xaa, 0xcc) leaves its output σ-ordered, and
//! the vector of |CH| is stored σ-ordered to match. CH's one negative entry
//! is not applied: the second transform takes masks 0x99, 0x66, which on a
//! σ-ordered input with coordinate 0 negated give H in natural order up to
//! the sign of each output — and each output is squared next. (Found by
//! enumerating the mask pairs; checked by `hadamard_matches_portable`.)
//!
//! # No swap
//!
//! The ladder never swaps R0 and R1. The scalar bit chooses which half is
//! doubled: the first product multiplies both halves by the transform of
//! the doubled half, broadcast with `vpermq` from a bit-dependent index
//! vector, and the last product's constant puts CD on the doubled half and
//! (1, u1, u2, u3) on the other, selected by a bitwise mask. Both choices
//! are register operations whose timing does not depend on the bit; R0 and
//! R1 stay in place, so the final swap disappears too.
//!
//! # Cost per ladder step, and what limits it
//!
//! Per step: 54 multiply-accumulates (18 + 6 + 12 + 18) and about 100
//! other zmm instructions: the two transforms 36, operand shifts for the
//! lazy products 14, their column shifts and adds 12, ⊙ CH's 6, the last
//! product's columns, split chains and carry round 21, the selections and
//! broadcasts about 12.
//!
//! Measured on this machine (Intel Xeon, family 6 model 207; cycles
//! estimated from the time-stamp counter, no performance counters):
//! `vpmadd52luq` zmm has latency 4 and throughput ≈ 2 per cycle (ports 0
//! and 5); integer zmm adds and logic 2 per cycle, shifts 1 per cycle (port
//! 0 only), `vpermq`/`vpshufd` 1 per cycle (port 5 only), cross-lane
//! permutes latency 3; a multiply-add result feeding an integer add and
//! back costs ≈ 2 cycles more than the sum of the latencies (bypass).
//!
//! Where the time goes: the step is one dependency chain — transform,
//! broadcast, product, ⊙ CH, transform, square, product — of about 70
//! cycles of latency, over about 158 instructions on the two 512-bit vector
//! ports (≥ 79 cycles); a single ladder runs near 100 cycles a step, two
//! interleaved ladders ([`Dispatch::scalarmult_pair`](super::Dispatch::scalarmult_pair))
//! nearer their port floor. Each phase on the chain costs about twice its
//! latency, and instructions off the chain (the constants' selection)
//! nothing measurable: instructions on the chain matter twice, those off
//! it hardly at all.
//!
//! # The lane comb (key generation)
//!
//! `fixed_base.rs`'s comb with digit `i` added into sum `i mod 4` and the
//! four sums in the four lanes of [`Y4`] (three ymm limbs in this radix,
//! `vpmadd52luq`/`huq` on ymm under AVX-512 VL): 8 lane-parallel mixed
//! additions ([`mixed_add4`], the scalar one's 41 products line for line)
//! instead of 35 scalar ones, then [`fixed_base::combine`] (the sums made
//! affine by one inversion, three scalar mixed additions) and the map.
//!
//! - Products ([`y4`]'s `mul`): 18 multiply-adds split at bit 52 as
//!   [`mul_carried`] does, the factor 4 of the wrapped columns on the
//!   second operand, one carry round: ≈ 36 instructions (squares 12
//!   multiply-adds). Operands below 2^48 a limb, outputs carried (`C`,
//!   limbs below `(2^43 + 2^18, 2^43 + 2^16, 2^41 + 2^16)`); sums and
//!   biased differences go uncarried into products (at most `10C`), the
//!   bounds beside each line of [`mixed_add4`].
//! - The exceptional case: every addition multiplies `Y` by `δ·s₁`, so a
//!   lane met one exactly when its final `Y ≡ 0`; `combine` checks that
//!   and its own three additions, and the caller falls back to the ladder.
//! - The next four rows' scans are issued in eight parts spread through
//!   each vector addition, as the scalar comb does (their compares and
//!   blends take the vector port the multiply-adds leave free).
//! - Lanes go back to field elements through the scalar `from_limbs`, no
//!   vector compare (the AVX2 experiment's `to_fe` compiled to branches).
//!   The only branches in the compiled comb are on loop counters and the
//!   last addition's missing next rows (checked in the disassembly).
//!
//! Measured on the Xeon f6m207: keygen 17 430 → 14 900 cycles, aws-lc-rs
//! / ours 1.04 → 1.21 (`docs/notes/kummer-fixed-base.md`).
//!
//! Rejected: the product's three-term chains split 2 + 1 (as
//! [`mul_carried`]): six adds more, slower (≈ 15 300 cycles a key).
//!
//! # Rejected
//!
//! - Carried products with radix-2^43 limbs (the first version): slower
//!   than the lazy products split at the limb boundary with a 41-bit top
//!   limb and CH's sign in the masks.
//! - Chains of three multiply-adds in the last product instead of two plus
//!   one: six instructions fewer but slower alone.
//! - The broadcast composed with the first transform's second layer: two
//!   cycles off the chain, six instructions more, slower.
//! - The steps' masks made before the loop and broadcast from memory:
//!   slower.
//! - ⊙ CH applied to the non-broadcast factor with a plain carry round: a
//!   phase off the chain but twelve instructions more, slower.
//! - The constants' selection by `vpblendmq` under a mask register instead
//!   of `vpternlogq`: slower.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// limb and lane indices are constants or loop counters over fixed limb and lane arrays (no input-dependent index: inputs are fixed-size arrays).
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::encoding::scalar_bit;
use super::field::{Fe, P};
use super::fixed_base::{self, Scan};
use super::fixed_base_table::{F, TABLE, WINDOWS};
use crate::cpu;
use core::arch::x86_64::{
    __m256i, __m512i, _MM_PERM_BADC, _mm512_add_epi64, _mm512_and_si512, _mm512_madd52hi_epu64,
    _mm512_madd52lo_epu64, _mm512_mask_sub_epi64, _mm512_permutex_epi64, _mm512_permutexvar_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_slli_epi64,
    _mm512_srli_epi64, _mm512_ternarylogic_epi64,
};

const M43: u64 = (1 << 43) - 1;
const M41: u64 = (1 << 41) - 1;

/// Limbs of `m·p`: `m·(2^43 − 1, 2^43 − 1, 2^41 − 1)`, added before a
/// subtraction to keep limbs nonnegative.
const fn bias(m: u64) -> [u64; 3] {
    [m * M43, m * M43, m * M41]
}

/// Eight field elements, limb-sliced: `.0[k]` holds limb k of every lane.
#[derive(Clone, Copy)]
struct V([__m512i; 3]);

/// The three limbs (43, 43 and 41 bits) of a canonical element.
fn limbs(x: Fe) -> [u64; 3] {
    let x = x.0;
    [
        (x as u64) & M43,
        ((x >> 43) as u64) & M43,
        (x >> 86) as u64, // < 2^41
    ]
}

/// The canonical element of limbs `< 2^60`.
fn from_limbs(l: [u64; 3]) -> Fe {
    // l2 at 2^86: its bits from 41 up are at 2^127 ≡ 1.
    let l2 = u128::from(l[2]);
    let x =
        u128::from(l[0]) + (u128::from(l[1]) << 43) + ((l2 & u128::from(M41)) << 86) + (l2 >> 41);
    // x < 2^60 + 2^103 + 2^127 + 2^19 < 2^128; fold bit 127, then `add`
    // reduces fully.
    Fe((x & P) + (x >> 127)).add(Fe(0))
}

impl V {
    /// Lanes from eight elements' limbs.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn from_lanes(l: [[u64; 3]; 8]) -> V {
        V(core::array::from_fn(|k| {
            let lanes: [u64; 8] = core::array::from_fn(|i| l[i][k]);
            // SAFETY: `[u64; 8]` and `__m512i` have the same size and every
            // bit pattern is valid for both.
            unsafe { core::mem::transmute::<[u64; 8], __m512i>(lanes) }
        }))
    }

    /// The same limbs in every lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn splat(l: [u64; 3]) -> V {
        V(l.map(|x| _mm512_set1_epi64(x as i64)))
    }

    /// Lanes 0–3 (R0, where the ladder leaves its result), canonical.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn low_half(self) -> [Fe; 4] {
        let r = self.to_lanes();
        [r[0], r[1], r[2], r[3]].map(from_limbs)
    }

    /// Every lane's limbs.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn to_lanes(self) -> [[u64; 3]; 8] {
        // SAFETY: as in `from_lanes`.
        let l: [[u64; 8]; 3] = self
            .0
            .map(|v| unsafe { core::mem::transmute::<__m512i, [u64; 8]>(v) });
        core::array::from_fn(|i| [l[0][i], l[1][i], l[2][i]])
    }
}

use _mm512_madd52hi_epu64 as hi;
use _mm512_madd52lo_epu64 as lo;
use _mm512_slli_epi64 as sll;
use _mm512_srli_epi64 as srl;
use zeroize::Zeroize;

/// `v << s` limb-wise.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn shl<const S: u32>(v: V) -> V {
    V(v.0.map(|x| sll::<S>(x)))
}

/// The limbs of a lazy product from its accumulators (module docs,
/// "Products split at the limb boundary"): `l` the low halves, in units of
/// 2^9 (limbs 0, 1) or 2^11 (limb 2), `g` the high halves, already in
/// place.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn lazy_limbs(l: [__m512i; 3], g: [__m512i; 3]) -> V {
    V([
        _mm512_add_epi64(srl::<9>(l[0]), g[0]),
        _mm512_add_epi64(srl::<9>(l[1]), g[1]),
        _mm512_add_epi64(srl::<11>(l[2]), g[2]),
    ])
}

/// `a ⊙ b` lane-wise, not carried (module docs): inputs below
/// `(A, A, C)`, outputs below `(2^51.3, 2^50.3, 2^49.8)`.
///
/// `a3 = a << 3`, `a1_5 = a1 << 5`, `a2_5 = a2 << 5`, `b6 = (b0 << 6,
/// b1 << 6, b2 << 8)`: every term's two scalings add up to 9 (columns 0 and
/// 1) or 11 (column 2 and the wrapped columns 3 and 4).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn mul_lazy(a3: V, a1_5: __m512i, a2_5: __m512i, b6: V) -> V {
    let z = _mm512_setzero_si512();
    let ([a0, a1, a2], [b0, b1, b2]) = (a3.0, b6.0);
    // Terms (i, j) with their scaling: 00, 01, 10 at 2^9; 02, 12, 22 as
    // a_i·2^3 × b2·2^8, 11 and 21 as a_i·2^5 × b_j·2^6, 20 as a2·2^5 × b0·2^6.
    let l = [
        lo(lo(lo(z, a0, b0), a1, b2), a2_5, b1),
        lo(lo(lo(z, a0, b1), a1, b0), a2, b2),
        lo(lo(lo(z, a0, b2), a1_5, b1), a2_5, b0),
    ];
    let g = [
        hi(hi(hi(z, a0, b2), a1_5, b1), a2_5, b0),
        hi(hi(hi(z, a0, b0), a1, b2), a2_5, b1),
        hi(hi(hi(z, a0, b1), a1, b0), a2, b2),
    ];
    lazy_limbs(l, g)
}

/// `a ⊙ a` lane-wise, not carried: inputs below `(A, A, C)`, outputs below
/// `(2^51.3, 2^50.3, 2^49.8)` (module docs).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn square_lazy(a: V) -> V {
    let z = _mm512_setzero_si512();
    let [a0, a1, a2] = a.0;
    let (a0_4, a0_5) = (sll::<4>(a0), sll::<5>(a0));
    let (a1_5, a1_6) = (sll::<5>(a1), sll::<6>(a1));
    let (a2_4, a2_7) = (sll::<4>(a2), sll::<7>(a2));
    // a0² at 2^9 (4 + 5), 2·a0·a1 at 2^9 (5 + 5), 2·a0·a2 at 2^11 (5 + 7),
    // a1² at 2^11 (5 + 6), 2·a1·a2 at 2^11 (5 + 7), a2² at 2^11 (4 + 7).
    let l = [
        lo(lo(z, a0_4, a0_5), a1_5, a2_7),
        lo(lo(z, a0_5, a1_5), a2_4, a2_7),
        lo(lo(z, a0_5, a2_7), a1_5, a1_6),
    ];
    let g = [
        hi(hi(z, a0_5, a2_7), a1_5, a1_6),
        hi(hi(z, a0_4, a0_5), a1_5, a2_7),
        hi(hi(z, a0_5, a1_5), a2_4, a2_7),
    ];
    lazy_limbs(l, g)
}

/// `a ⊙ k` lane-wise, carried: `a` below 2^52 per limb, `k` canonical
/// (limbs below 2^43, 2^43, 2^41) with `k4 = 4·k`; outputs below
/// `(2^43 + 2^14, 2^43 + 2^12, 2^41 + 2^12)` (module docs).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn mul_carried(a: V, k: V, k4: V) -> V {
    let z = _mm512_setzero_si512();
    let ([a0, a1, a2], [k0, k1, k2], [_, f1, f2]) = (a.0, k.0, k4.0);
    // Each three-term column is two chains (two terms and one) added
    // afterwards: multiply latency 8 instead of 12 for one add more.
    let add = _mm512_add_epi64;
    let l = [
        add(lo(lo(z, a0, k0), a1, f2), lo(z, a2, f1)),
        add(lo(lo(z, a0, k1), a1, k0), lo(z, a2, f2)),
        add(lo(lo(z, a0, k2), a1, k1), lo(z, a2, k0)),
    ];
    let g = [
        add(hi(hi(z, a0, k2), a1, k1), hi(z, a2, k0)),
        add(hi(hi(z, a0, k0), a1, f2), hi(z, a2, f1)),
        add(hi(hi(z, a0, k1), a1, k0), hi(z, a2, f2)),
    ];
    // Column sums: high halves of column k sit 52 bits up, at column k + 1
    // plus 9 bits; column 2's at 2^138 ≡ 2^11, column 0.
    let c = [
        add(l[0], sll::<11>(g[0])),
        add(l[1], sll::<9>(g[1])),
        add(l[2], sll::<9>(g[2])),
    ];
    // One carry round; limb 2 keeps 41 bits, its carry sits at 2^127 ≡ 1.
    let m43 = _mm512_set1_epi64(M43 as i64);
    let m41 = _mm512_set1_epi64(M41 as i64);
    V([
        add(_mm512_and_si512(c[0], m43), srl::<41>(c[2])),
        add(_mm512_and_si512(c[1], m43), srl::<43>(c[0])),
        add(_mm512_and_si512(c[2], m41), srl::<43>(c[1])),
    ])
}

/// `a ⊙ c` for one-limb constants `c < 2^12`, given as `c9 = c·2^9` and
/// `c11 = c·2^11`; inputs below 2^52 per limb, outputs carried, below
/// `(2^43 + 2^21, 2^43 + 2^21, 2^41 + 2^20)`.
///
/// With the constant scaled the multiplier splits each product at the limb
/// boundary: for limbs 0 and 1 the low half is `(a_k·c mod 2^43)·2^9` and
/// the high half `a_k·c >> 43`, the carry into limb k + 1; for limb 2 the
/// split is at 41 bits and the high half lands at 2^127 ≡ 1, limb 0.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn mul_small(a: V, c9: __m512i, c11: __m512i) -> V {
    let z = _mm512_setzero_si512();
    let [a0, a1, a2] = a.0;
    V([
        _mm512_add_epi64(srl::<9>(lo(z, a0, c9)), hi(z, a2, c11)),
        _mm512_add_epi64(srl::<9>(lo(z, a1, c9)), hi(z, a0, c9)),
        _mm512_add_epi64(srl::<11>(lo(z, a2, c11)), hi(z, a1, c9)),
    ])
}

/// Two butterfly layers on both halves — pairs (0,1), (2,3) with an in-lane
/// `vpshufd`, then pairs (0,2), (1,3) with `vpermq` — subtracting in the
/// lanes of `m1` and `m2` (module docs, "Hadamard transforms"). Inputs below
/// `(2^43 + 2^21, 2^43 + 2^21, 2^41 + 2^20)`, outputs below
/// `(A, A, C) = (7·2^43 + 2^21, 7·2^43 + 2^21, 7·2^41 + 2^20)`; no carry.
///
/// The masks are values, not constants, and the ladder passes them through
/// [`Consts`]: with constant masks LLVM saw that the second transform's two
/// (0x99, 0x66) are complements and built the first layer as a subtraction
/// in every lane plus a masked move under the other mask, one instruction
/// more per limb (measured: 2 % on the whole shared secret).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn hadamard(v: V, m: Masks, b1: V, b2: V) -> V {
    V(core::array::from_fn(|k| {
        let x = v.0[k];
        let t = _mm512_shuffle_epi32::<_MM_PERM_BADC>(x);
        let w = _mm512_mask_sub_epi64(x, m.0, b1.0[k], x);
        let x = _mm512_add_epi64(t, w);
        let t = _mm512_permutex_epi64::<0x4e>(x);
        let w = _mm512_mask_sub_epi64(x, m.1, b2.0[k], x);
        _mm512_add_epi64(t, w)
    }))
}

/// The subtracting lanes of a transform's two butterfly layers.
type Masks = (u8, u8);

/// The first transform: H in σ order (coordinates 1 and 2 swapped).
const H1: Masks = (0xaa, 0xcc);
/// The second: H in natural order, up to output signs, of a σ-ordered input
/// whose coordinate 0 is negated (the sign of CH's first entry).
const H2: Masks = (0x99, 0x66);

super::token_backend! {
    /// The AVX-512 IFMA Kummer backend (see [`super::Backend`]): the ladders on
    /// zmm, key generation by the AVX2 backend's comb.
    Avx512Ifma(cpu::Avx512Ifma) = "avx512ifma";

    /// The ladder of the module docs (same inputs and output as the
    /// portable backend's, which the tests check).
    #[inline]
    fn ladder(self, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        // SAFETY: the token proves the CPU supports every feature
        // `ladder_zmm` is compiled for.
        unsafe { ladder_zmm(scalar, u) }
    }

    /// Two independent ladders, interleaved step by step: neither waits
    /// for the other, so each fills the other's latency gaps (≈ 94 cycles
    /// per step each instead of ≈ 107 for one alone; module docs).
    #[inline]
    fn ladder_pair(self, scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
        // SAFETY: the token proves the CPU supports every feature
        // `ladder_pair_zmm` is compiled for.
        unsafe { ladder_pair_zmm(scalars, u) }
    }

    /// The lane-parallel comb ([`lane_comb`]): four sums in the ymm lanes
    /// of [`Y4`], the rows read by the AVX2 scan.
    #[inline]
    fn comb(self, scalar: &[u8; 32]) -> ([Fe; 4], subtle::Choice) {
        // SAFETY: the token proves the CPU supports every feature
        // `lane_comb` is compiled for.
        unsafe { lane_comb(self.0.avx2(), scalar) }
    }
}

/// Four field elements in the lanes of three ymm registers, limb-sliced in
/// the ladder's radix (43, 43 and 41 bits), for the lane-parallel comb.
///
/// Products are split at bit 52 as [`mul_carried`] does and carried once
/// ([`y4::mul`]); `C` below is a carried value, limbs below `(2^43 + 2^18,
/// 2^43 + 2^16, 2^41 + 2^16)`.
#[derive(Clone, Copy)]
struct Y4([__m256i; 3]);

/// The lane comb's field operations on [`Y4`]. Each is
/// `#[inline(always)]` and reached only from [`lane_comb`], compiled with
/// AVX-512 IFMA and VL (the intrinsics inline there).
mod y4 {
    use super::{M41, M43, Y4, bias};
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_madd52hi_epu64, _mm256_madd52lo_epu64,
        _mm256_set1_epi64x, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_sub_epi64,
    };

    /// `vpmadd52luq`: `z + lo52(a·b)`.
    #[inline(always)]
    fn lo(z: __m256i, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: reached only from `lane_comb` (module docs), which enables
        // avx512ifma and avx512vl.
        unsafe { _mm256_madd52lo_epu64(z, a, b) }
    }

    /// `vpmadd52huq`: `z + hi52(a·b)`.
    #[inline(always)]
    fn hi(z: __m256i, a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `lo`.
        unsafe { _mm256_madd52hi_epu64(z, a, b) }
    }

    /// `vpaddq`.
    #[inline(always)]
    fn add(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `lo` (AVX2).
        unsafe { _mm256_add_epi64(a, b) }
    }

    /// `vpsubq`.
    #[inline(always)]
    fn sub(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `lo` (AVX2).
        unsafe { _mm256_sub_epi64(a, b) }
    }

    /// `x` in every lane.
    #[inline(always)]
    pub(super) fn splat(x: u64) -> __m256i {
        // SAFETY: as in `lo` (AVX).
        unsafe { _mm256_set1_epi64x(x as i64) }
    }

    /// `vpsllq` by `S`.
    #[inline(always)]
    fn shl<const S: i32>(a: __m256i) -> __m256i {
        // SAFETY: as in `lo` (AVX2).
        unsafe { _mm256_slli_epi64::<S>(a) }
    }

    /// `vpsrlq` by `S`.
    #[inline(always)]
    fn shr<const S: i32>(a: __m256i) -> __m256i {
        // SAFETY: as in `lo` (AVX2).
        unsafe { _mm256_srli_epi64::<S>(a) }
    }

    /// `vpand`.
    #[inline(always)]
    fn and(a: __m256i, b: __m256i) -> __m256i {
        // SAFETY: as in `lo` (AVX2).
        unsafe { _mm256_and_si256(a, b) }
    }

    /// Column sums `c` (limb `k` at 2^(43k)) to limbs: one carry round, limb 2
    /// keeps 41 bits and its carry sits at 2^127 ≡ 1, limb 0. For `c` below
    /// 2^59 the outputs are below `C`.
    #[inline(always)]
    fn carry_round(c: [__m256i; 3]) -> Y4 {
        let (m43, m41) = (splat(M43), splat(M41));
        Y4([
            add(and(c[0], m43), shr::<41>(c[2])),
            add(and(c[1], m43), shr::<43>(c[0])),
            add(and(c[2], m41), shr::<43>(c[1])),
        ])
    }

    /// `a·b`, carried (`C`): limbs of `a` and `b` below 2^48.
    ///
    /// Columns (2^129 ≡ 4): `a0b0 + 4a1b2 + 4a2b1`, `a0b1 + a1b0 + 4a2b2`,
    /// `a0b2 + a1b1 + a2b0`; the factor 4 on `b` (below 2^50, under the
    /// multiplier's 52 bits). Eighteen multiply-adds; the high halves sit
    /// 52 bits up, at the next column plus 9 bits (column 2's at 2^138 ≡
    /// 2^11, column 0). Each high half is below 2^46, so the column sums
    /// are below `3·2^52 + 3·2^57 < 2^59`.
    #[inline(always)]
    pub(super) fn mul(a: Y4, b: Y4) -> Y4 {
        let z = splat(0);
        let ([a0, a1, a2], [b0, b1, b2]) = (a.0, b.0);
        let (f1, f2) = (shl::<2>(b1), shl::<2>(b2));
        let l = [
            lo(lo(lo(z, a0, b0), a1, f2), a2, f1),
            lo(lo(lo(z, a0, b1), a1, b0), a2, f2),
            lo(lo(lo(z, a0, b2), a1, b1), a2, b0),
        ];
        let g = [
            hi(hi(hi(z, a0, b0), a1, f2), a2, f1),
            hi(hi(hi(z, a0, b1), a1, b0), a2, f2),
            hi(hi(hi(z, a0, b2), a1, b1), a2, b0),
        ];
        carry_round([
            add(l[0], shl::<11>(g[2])),
            add(l[1], shl::<9>(g[0])),
            add(l[2], shl::<9>(g[1])),
        ])
    }

    /// `a²`, carried (`C`): limbs below 2^48. Columns `a0² + 8a1a2`,
    /// `2a0a1 + 4a2²`, `2a0a2 + a1²`: twelve multiply-adds.
    #[inline(always)]
    pub(super) fn square(a: Y4) -> Y4 {
        let z = splat(0);
        let [a0, a1, a2] = a.0;
        let (d0, a2_4, a2_8) = (shl::<1>(a0), shl::<2>(a2), shl::<3>(a2));
        let l = [
            lo(lo(z, a0, a0), a1, a2_8),
            lo(lo(z, d0, a1), a2, a2_4),
            lo(lo(z, d0, a2), a1, a1),
        ];
        let g = [
            hi(hi(z, a0, a0), a1, a2_8),
            hi(hi(z, d0, a1), a2, a2_4),
            hi(hi(z, d0, a2), a1, a1),
        ];
        carry_round([
            add(l[0], shl::<11>(g[2])),
            add(l[1], shl::<9>(g[0])),
            add(l[2], shl::<9>(g[1])),
        ])
    }

    /// `a + b` limb-wise, not carried.
    #[inline(always)]
    pub(super) fn plus(a: Y4, b: Y4) -> Y4 {
        Y4([
            add(a.0[0], b.0[0]),
            add(a.0[1], b.0[1]),
            add(a.0[2], b.0[2]),
        ])
    }

    /// `a + M·p − b` limb-wise, not carried: limb `k` of `b` at most `M·p`'s
    /// (`M = 2` covers `C`, `M = 4` covers `3C`).
    #[inline(always)]
    pub(super) fn minus<const M: u64>(a: Y4, b: Y4) -> Y4 {
        let m = bias(M);
        Y4(core::array::from_fn(|k| {
            sub(add(a.0[k], splat(m[k])), b.0[k])
        }))
    }

    /// One carry round of limbs below 2^59: outputs below `C`.
    #[inline(always)]
    pub(super) fn carry(a: Y4) -> Y4 {
        carry_round(a.0)
    }
}

/// [`Y4`] from four elements (canonical limbs).
#[inline(always)]
fn y4_from(x: [Fe; 4]) -> Y4 {
    let l = x.map(limbs);
    Y4(core::array::from_fn(|k| {
        let lanes = [l[0][k], l[1][k], l[2][k], l[3][k]];
        // SAFETY: `[u64; 4]` and `__m256i` have the same size and every bit
        // pattern is valid for both.
        unsafe { core::mem::transmute::<[u64; 4], __m256i>(lanes) }
    }))
}

/// The four lanes' elements (as integers below `P`, through the scalar
/// [`from_limbs`]: no vector comparison a compiler could turn into a
/// branch).
#[inline(always)]
fn y4_to(x: Y4) -> [u128; 4] {
    // SAFETY: as in `y4_from`.
    let l =
        x.0.map(|v| unsafe { core::mem::transmute::<__m256i, [u64; 4]>(v) });
    core::array::from_fn(|i| from_limbs([l[0][i], l[1][i], l[2][i]]).0)
}

/// `fixed_base.rs`'s mixed addition, four at a time: lane `j` adds the
/// affine `t` of lane `j` to the sum `r = (A1, A0, B1, B0, Zu, Y)` of lane
/// `j`, line for line the same formulas (41 products and squares, each
/// carried by [`y4::mul`]). The bound of each value is written beside it
/// in units of `C`; inputs `r` and `t` are `C` and so are the outputs, and
/// every operand of a product is at most `10C < 2^47`. The exceptional
/// case is not flagged here: it makes `Y` zero for good (the last product),
/// which [`fixed_base::combine`] checks once.
///
/// Part `k` of the next four rows' reads ([`Scan::scan_part`], into
/// `reads`) is issued at the `part!(k)` marks, as the scalar comb does: the
/// scans' compares and blends fill the vector port the multiply-adds leave
/// free.
#[inline(always)]
fn mixed_add4(
    r: [Y4; 6],
    t: [Y4; 4],
    f4: Y4,
    s: cpu::Avx2,
    next: Option<[&fixed_base::Row; 4]>,
    reads: &mut [<cpu::Avx2 as Scan>::Read; 4],
) -> [Y4; 6] {
    use y4::{carry, minus, mul, plus, square};
    // A macro, not a closure: a closure loses the target features.
    macro_rules! part {
        ($k:literal) => {
            if let Some(rows) = next {
                for (read, row) in reads.iter_mut().zip(rows) {
                    s.scan_part(row, $k, read);
                }
            }
        };
    }
    let [a1, a0, b1, b0, zu, y] = r;
    let [c1, c0, d1, d0] = t;
    let zv = mul(zu, y);
    let z1 = minus::<2>(a1, mul(c1, zu)); // 3C
    let z0 = minus::<2>(a0, mul(c0, zu)); // 3C
    let e1 = minus::<2>(mul(d1, zv), b1); // 3C
    let e0 = minus::<2>(mul(d0, zv), b0); // 3C
    part!(0);
    let t0 = minus::<2>(z0, mul(c1, z1)); // 5C
    let dl = plus(mul(z0, t0), mul(c0, square(z1))); // 2C
    let s1 = minus::<2>(mul(e1, z0), mul(e0, z1)); // 3C
    part!(1);
    let s0 = plus(mul(mul(e1, z1), c0), mul(e0, t0)); // 2C
    let dy = mul(y, dl);
    part!(2);
    let (s11, s00, dd, s10) = (square(s1), square(s0), square(dy), mul(s1, s0));
    let s10x2 = plus(s10, s10); // 2C
    let n1 = carry(plus(mul(zu, minus::<2>(s10x2, dd)), mul(z1, s11))); // 4C operand
    part!(3);
    let b1dl = mul(b1, dl);
    let f4z = minus::<2>(minus::<4>(plus(a1, a1), z1), mul(f4, zu)); // 8C
    let n0 = carry(plus(
        plus(plus(mul(zu, s00), mul(z1, s10x2)), mul(t0, s11)),
        plus(mul(plus(b1dl, b1dl), s1), mul(f4z, dd)),
    )); // 5C before the carry
    part!(4);
    let w = plus(minus::<2>(mul(c1, s11), s10), dd); // 4C
    let mid = plus(mul(a0, s1), mul(a1, s0)); // 2C
    let a0s0 = mul(a0, s0);
    part!(5);
    let s13 = mul(s11, s1);
    let v1 = carry(plus(
        minus::<2>(mul(w, n1), mul(s13, plus(b1dl, mid))), // 2C operand
        mul(s11, n0),
    )); // 4C before the carry
    part!(6);
    let v0 = carry(minus::<2>(mul(w, n0), mul(s13, plus(mul(b0, dl), a0s0)))); // 3C before the carry
    part!(7);
    [n1, n0, v1, v0, mul(zu, s11), mul(dy, s1)]
}

/// The rows `first .. first + 4` and their entry numbers, one row per
/// lane.
#[inline(always)]
fn lane_rows(d: &[i8; WINDOWS], first: usize) -> [(&'static fixed_base::Row, u64); 4] {
    core::array::from_fn(|j| (&TABLE[first + j], fixed_base::entry_index(d[first + j])))
}

/// The entries read from rows `first .. first + 4` (`words`, by the ymm
/// scan: no address depends on a digit) for their digits, signed
/// ([`fixed_base::signed_entry`]), one row per lane: `(c1, c0, d1, d0)`.
#[inline(always)]
fn lane_entries(words: &[[u64; 8]; 4], d: &[i8; WINDOWS], first: usize) -> [Y4; 4] {
    // Limb k of coordinate c of lane j; the coordinates are at most p
    // (`signed_entry`'s negation is `loose`), whose limbs `limbs` takes.
    let mut l = [[[0u64; 4]; 3]; 4];
    for j in 0..4 {
        let e = fixed_base::signed_entry(words[j], d[first + j]);
        for c in 0..4 {
            let x = limbs(Fe(e[c]));
            for k in 0..3 {
                l[c][k][j] = x[k];
            }
        }
    }
    // SAFETY: `[u64; 4]` and `__m256i` have the same size and every bit
    // pattern is valid for both.
    l.map(|c| Y4(c.map(|v| unsafe { core::mem::transmute::<[u64; 4], __m256i>(v) })))
}

/// The lane-parallel comb (issue 60 item 3; the AVX2 experiment of
/// `docs/notes/kummer-fixed-base.md` on the IFMA multiplier): digit `i`
/// into sum `i mod 4`, the four sums in the four lanes of [`Y4`], eight
/// [`mixed_add4`]s; then [`fixed_base::combine`] (one inversion, three
/// scalar mixed additions) and the map.
///
/// # Safety
///
/// The CPU supports every feature enabled here.
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
#[inline(never)]
unsafe fn lane_comb(t: cpu::Avx2, scalar: &[u8; 32]) -> ([Fe; 4], subtle::Choice) {
    const _: () = assert!(WINDOWS.is_multiple_of(4));
    let mut d = fixed_base::digits(scalar);
    let one = y4_from([Fe::ONE; 4]);
    let f4 = y4_from([Fe(F[4]); 4]);
    // Rows 0–3 start the sums; rows 4k + 4 .. 4k + 8 are read during
    // addition k (rows 4–7 whole, before the first addition).
    let whole = |first| lane_rows(&d, first).map(|(row, idx)| t.scan(row, idx));
    let [c1, c0, d1, d0] = lane_entries(&whole(0), &d, 0);
    let mut r = [c1, c0, d1, d0, one, one];
    let mut words = whole(4);
    for k in 1..WINDOWS / 4 {
        let e = lane_entries(&words, &d, 4 * k);
        let next = (k + 1 < WINDOWS / 4).then(|| lane_rows(&d, 4 * k + 4));
        // Loops, not closures: a closure would not inherit this function's
        // target features (the scan's intrinsics would stay calls).
        let mut reads = [t.begin(0); 4];
        if let Some(rows) = next {
            for (read, (_, idx)) in reads.iter_mut().zip(rows) {
                *read = t.begin(idx);
            }
        }
        r = mixed_add4(
            r,
            e,
            f4,
            t,
            next.map(|rows| rows.map(|(row, _)| row)),
            &mut reads,
        );
        words = reads.map(|read| t.end(read));
    }
    // The digits spell the secret scalar; `words` is zero (the last
    // addition read no row).
    d.zeroize();
    let mut sums = [[0u128; 6]; 4];
    for (c, v) in r.iter().enumerate() {
        for (sum, x) in sums.iter_mut().zip(y4_to(*v)) {
            sum[c] = x;
        }
    }
    let (point, bad) = fixed_base::combine(t, sums);
    (
        point,
        subtle::Choice::from(core::hint::black_box(bad as u8)),
    )
}

/// Per-ladder constants: the last product's two constant vectors (and
/// their ×4), |CH| scaled, the biases and the broadcast index.
#[derive(Clone, Copy)]
struct Consts {
    k0: V,
    k1: V,
    k0_4: V,
    k1_4: V,
    ch9: __m512i,
    ch11: __m512i,
    b1: V,
    b2: V,
    idx_lo: __m512i,
    /// [`H1`] and [`H2`], opaque to the optimiser (see [`hadamard`]).
    h1: Masks,
    h2: Masks,
}

impl Consts {
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn new(u: [Fe; 3]) -> Consts {
        let [u1, u2, u3] = u;
        let small = |c: i64| limbs(Fe::small(c));
        // The last product of a step: the doubled point's lanes by CD, the
        // sum's by (1, u1, u2, u3). Which half is which depends on the bit.
        let cd = super::CD.map(small);
        let ud = [Fe::ONE, u1, u2, u3].map(limbs);
        let k0 = V::from_lanes([cd[0], cd[1], cd[2], cd[3], ud[0], ud[1], ud[2], ud[3]]);
        let k1 = V::from_lanes([ud[0], ud[1], ud[2], ud[3], cd[0], cd[1], cd[2], cd[3]]);
        // ⊙ CH on σ-ordered vectors: |CH| with coordinates 1 and 2 swapped;
        // the sign of the first entry is left to the second transform.
        let ch = super::CH;
        debug_assert!(ch[0] < 0 && ch[1] > 0 && ch[2] > 0 && ch[3] > 0);
        let chs = [-ch[0], ch[2], ch[1], ch[3]].map(|c| c as u64);
        let lanes = |s: u32| V::from_lanes(core::array::from_fn(|i| [chs[i % 4] << s, 0, 0])).0[0];
        Consts {
            k0,
            k1,
            k0_4: shl::<2>(k0),
            k1_4: shl::<2>(k1),
            ch9: lanes(9),
            ch11: lanes(11),
            b1: V::splat(bias(2)),
            b2: V::splat(bias(4)),
            // Lane indices broadcasting the low half (bit 0) or the high half.
            idx_lo: V::from_lanes(core::array::from_fn(|i| [(i % 4) as u64, 0, 0])).0[0],
            h1: core::hint::black_box(H1),
            h2: core::hint::black_box(H2),
        }
    }

    /// The starting vector: NEUTRAL in the low half, the point in the high.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn start(u: [Fe; 3]) -> V {
        let r1 = super::encoding::point_from_ratios(u).map(limbs);
        let n = super::NEUTRAL.map(|c| limbs(Fe::small(c)));
        V::from_lanes([n[0], n[1], n[2], n[3], r1[0], r1[1], r1[2], r1[3]])
    }
}

/// One ladder step: `step!(consts, r, bit)` is the new `r` for scalar bit
/// `bit` (0 or 1). A macro rather than a function so that it is inlined
/// into its `target_feature` caller (LLVM declines to inline a function
/// this size, and a call costs the zmm state a round trip through memory).
macro_rules! step {
    ($c:expr, $r:expr, $bit:expr) => {{
        let c: &Consts = $c;
        let bit: u8 = $bit;
        // No swap: the bit selects which half is doubled. `h` = σ·H of both
        // points; `w` = the doubled one's transform in both halves (vpermq's
        // timing does not depend on its index vector); `k` puts CD on the
        // doubled half and (1, u) on the other.
        let idx = _mm512_add_epi64(c.idx_lo, _mm512_set1_epi64(i64::from(bit) << 2));
        let mask = _mm512_set1_epi64(-i64::from(bit));
        let sel = |a: V, b: V| {
            V(core::array::from_fn(|l| {
                _mm512_ternarylogic_epi64::<0xca>(mask, a.0[l], b.0[l])
            }))
        };
        let (k, k4) = (sel(c.k1, c.k0), sel(c.k1_4, c.k0_4));
        let h = hadamard($r, c.h1, c.b1, c.b2);
        let [h0, h1, h2] = h.0;
        let bcast = |x| _mm512_permutexvar_epi64(idx, x);
        let w6 = V([
            bcast(sll::<6>(h0)),
            bcast(sll::<6>(h1)),
            bcast(sll::<8>(h2)),
        ]);
        // σ(doubled²), σ(sum-product), not carried.
        let m = mul_lazy(shl::<3>(h), sll::<5>(h1), sll::<5>(h2), w6);
        let m = mul_small(m, c.ch9, c.ch11);
        let h = hadamard(m, c.h2, c.b1, c.b2);
        mul_carried(square_lazy(h), k, k4)
    }};
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn ladder_zmm(scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
    let c = Consts::new(u);
    let mut r = Consts::start(u);
    for i in (0..251).rev() {
        r = step!(&c, r, scalar_bit(scalar, i));
    }
    r.low_half()
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn ladder_pair_zmm(scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
    let (c0, c1) = (Consts::new(u[0]), Consts::new(u[1]));
    let (mut r0, mut r1) = (Consts::start(u[0]), Consts::start(u[1]));
    for i in (0..251).rev() {
        r0 = step!(&c0, r0, scalar_bit(scalars[0], i));
        r1 = step!(&c1, r1, scalar_bit(scalars[1], i));
    }
    [r0.low_half(), r1.low_half()]
}

#[cfg(test)]
mod tests {
    use super::super::test_rng::Rng;
    use super::*;
    extern crate std;

    /// Limbs from the tests' generator.
    trait Limbs {
        fn limbs(&mut self, max: [u64; 3]) -> [u64; 3];
        fn lanes(&mut self, max: [u64; 3]) -> [[u64; 3]; 8];
    }

    impl Limbs for Rng {
        /// Limbs below `max`, biased towards the maximum.
        fn limbs(&mut self, max: [u64; 3]) -> [u64; 3] {
            core::array::from_fn(|k| {
                let m = max[k] - 1;
                match self.next_u64() % 4 {
                    0 => m,
                    1 => m - (self.next_u64() & 0xffff),
                    _ => self.next_u64() % max[k],
                }
            })
        }
        fn lanes(&mut self, max: [u64; 3]) -> [[u64; 3]; 8] {
            core::array::from_fn(|_| self.limbs(max))
        }
    }

    /// The lane-parallel comb against the AVX2 backend's scalar comb (the
    /// same point, the same verdict) for 200 random scalars and edge
    /// scalars (0, N2 and its neighbours, all ones, small multiples); and
    /// [`fixed_base::combine`] flags a sum whose `Y` is zero in each lane
    /// position.
    #[test]
    fn lane_comb_matches_the_scalar_comb() {
        use super::super::Backend;
        use super::super::encoding::encode;
        let Some(t) = token() else {
            return;
        };
        let mut rng = Rng::new(0x006b_6966_6d61);
        let le = |l: [u64; 4]| {
            let mut out = [0u8; 32];
            for (o, x) in out.chunks_exact_mut(8).zip(l) {
                o.copy_from_slice(&x.to_le_bytes());
            }
            out
        };
        let n2 = fixed_base::N2;
        let minus = |a: [u64; 4], b: u64| {
            let mut r = a;
            let (d, borrow) = r[0].overflowing_sub(b);
            r[0] = d;
            r[1] = r[1].wrapping_sub(u64::from(borrow));
            r
        };
        let mut cases = std::vec![
            [0u8; 32],
            le(n2),
            le(minus(n2, 1)),
            le(minus(n2, 2)),
            [0xff; 32],
            [7u8; 32],
        ];
        for v in 1u64..=40 {
            cases.push(le([v, 0, 0, 0]));
        }
        for _ in 0..200 {
            cases.push(rng.scalar());
        }
        let scalar_comb = super::super::avx2::Avx2(t.avx2());
        for k in &cases {
            let (want, want_bad) = scalar_comb.comb(k);
            // SAFETY: `t` proves every feature `lane_comb` enables.
            let (got, bad) = unsafe { lane_comb(t.avx2(), k) };
            if bool::from(bad) {
                // Flagged: the ladder answers (as for 0 and N2).
                assert_eq!(
                    fixed_base::scalarmult_base(Avx512Ifma(t), k),
                    encode(
                        Avx512Ifma(t)
                            .ladder(k, super::super::encoding::decode(&super::super::BASE_POINT))
                    ),
                    "{k:02x?}"
                );
            } else {
                assert!(!bool::from(want_bad), "{k:02x?}");
                assert_eq!(encode(got), encode(want), "{k:02x?}");
            }
        }
        for k in [[0u8; 32], le(n2)] {
            // SAFETY: as above.
            assert!(bool::from(unsafe { lane_comb(t.avx2(), &k) }.1));
        }
        // A zero Y in any lane is flagged.
        let e = |i: usize| {
            let w = TABLE[i][3];
            let j = |lo: u64, hi: u64| u128::from(lo) | (u128::from(hi) << 64);
            [
                j(w[0], w[1]),
                j(w[2], w[3]),
                j(w[4], w[5]),
                j(w[6], w[7]),
                1,
                1,
            ]
        };
        let sums = [e(0), e(1), e(2), e(3)];
        assert_eq!(fixed_base::combine(t.avx2(), sums).1, 0);
        for lane in 0..4 {
            for zero in [0, P] {
                let mut s = sums;
                s[lane][5] = zero;
                assert_eq!(fixed_base::combine(t.avx2(), s).1, 1, "lane {lane}");
            }
        }
    }

    fn token() -> Option<cpu::Avx512Ifma> {
        let t = cpu::Avx512Ifma::get();
        if t.is_none() {
            std::eprintln!("skipped: no AVX-512 IFMA on this CPU (or capped)");
        }
        t
    }

    /// The bounds of the module docs, as limb vectors (exclusive).
    const HAD: [u64; 3] = [
        (7 << 43) + (1 << 21),
        (7 << 43) + (1 << 21),
        (7 << 41) + (1 << 20),
    ];
    const LAZY: [u64; 3] = [5 << 49, 5 << 48, 7 << 47];
    const SMALL: [u64; 3] = [
        (1 << 43) + (1 << 21),
        (1 << 43) + (1 << 21),
        (1 << 41) + (1 << 20),
    ];
    const CARRIED: [u64; 3] = [
        (1 << 43) + (1 << 14),
        (1 << 43) + (1 << 12),
        (1 << 41) + (1 << 12),
    ];

    fn below(r: [[u64; 3]; 8], max: [u64; 3]) {
        for (i, l) in r.iter().enumerate() {
            for k in 0..3 {
                assert!(
                    l[k] < max[k],
                    "lane {i} limb {k}: {:#x} ≥ {:#x}",
                    l[k],
                    max[k]
                );
            }
        }
    }

    fn fes(l: [[u64; 3]; 8]) -> [Fe; 8] {
        l.map(from_limbs)
    }

    #[test]
    fn limb_conversion() {
        let mut rng = Rng::new(1);
        for _ in 0..1000 {
            let x = rng.fe();
            assert_eq!(from_limbs(limbs(x)), x);
        }
        assert_eq!(from_limbs([M43, M43, M41]), Fe(0)); // p itself
        assert_eq!(from_limbs(bias(4)), Fe(0));
        let l = (1u64 << 60) - 1;
        let fl = Fe(l.into());
        let w = fl.add(fl.mul(Fe(1 << 43))).add(fl.mul(Fe(1 << 86)));
        assert_eq!(from_limbs([l, l, l]), w);
    }

    /// Every field operation against the portable field, with inputs at the
    /// bounds the module docs derive and outputs checked against theirs.
    #[test]
    fn field_ops_match_portable_at_their_bounds() {
        let Some(_t) = token() else { return };
        let mut rng = Rng::new(2);
        let chs = [833u64, 1617, 2499, 561];
        for _ in 0..3000 {
            let (a, b) = (rng.lanes(HAD), rng.lanes(HAD));
            let x = rng.lanes(LAZY);
            let k: [[u64; 3]; 8] = core::array::from_fn(|_| limbs(rng.fe()));
            // SAFETY: the token proves the features these functions need.
            let (m, s, c, p) = unsafe {
                let (va, vb) = (V::from_lanes(a), V::from_lanes(b));
                let [_, a1, a2] = va.0;
                let [b0, b1, b2] = vb.0;
                let b6 = V([sll::<6>(b0), sll::<6>(b1), sll::<8>(b2)]);
                let m = mul_lazy(shl::<3>(va), sll::<5>(a1), sll::<5>(a2), b6);
                let s = square_lazy(va);
                let cl = |sh: u32| {
                    V::from_lanes(core::array::from_fn(|i| [chs[i % 4] << sh, 0, 0])).0[0]
                };
                let c = mul_small(V::from_lanes(x), cl(9), cl(11));
                let vk = V::from_lanes(k);
                let p = mul_carried(V::from_lanes(x), vk, shl::<2>(vk));
                (m.to_lanes(), s.to_lanes(), c.to_lanes(), p.to_lanes())
            };
            let (fa, fb, fx, fk) = (fes(a), fes(b), fes(x), fes(k));
            for i in 0..8 {
                assert_eq!(
                    from_limbs(m[i]),
                    fa[i].mul(fb[i]),
                    "mul_lazy {:x?} {:x?}",
                    a[i],
                    b[i]
                );
                assert_eq!(from_limbs(s[i]), fa[i].square(), "square_lazy {:x?}", a[i]);
                let ch = Fe(chs[i % 4].into());
                assert_eq!(from_limbs(c[i]), fx[i].mul(ch), "mul_small {:x?}", x[i]);
                assert_eq!(
                    from_limbs(p[i]),
                    fx[i].mul(fk[i]),
                    "mul_carried {:x?}",
                    x[i]
                );
            }
            below(m, LAZY);
            below(s, LAZY);
            below(c, SMALL);
            below(p, CARRIED);
        }
    }

    /// Both transforms on each half, against the portable field: H1 gives
    /// H in σ order; H2, given a σ-ordered input with coordinate 0 negated,
    /// gives H in natural order up to the sign of each output.
    #[test]
    fn hadamard_matches_portable() {
        let Some(_t) = token() else { return };
        let mut rng = Rng::new(3);
        let h = |v: [Fe; 4]| {
            let [x, y, z, t] = v;
            [
                x.add(y).add(z).add(t),
                x.add(y).sub(z).sub(t),
                x.sub(y).add(z).sub(t),
                x.sub(y).sub(z).add(t),
            ]
        };
        for _ in 0..3000 {
            let a = rng.lanes(SMALL);
            // SAFETY: the token proves the features.
            let (r1, r2) = unsafe {
                let (b1, b2) = (V::splat(bias(2)), V::splat(bias(4)));
                let v = V::from_lanes(a);
                (
                    hadamard(v, H1, b1, b2).to_lanes(),
                    hadamard(v, H2, b1, b2).to_lanes(),
                )
            };
            below(r1, HAD);
            below(r2, HAD);
            let fa = fes(a);
            for half in 0..2 {
                let v: [Fe; 4] = core::array::from_fn(|i| fa[4 * half + i]);
                let want1 = h(v);
                let want2 = h([Fe(0).sub(v[0]), v[2], v[1], v[3]]);
                for i in 0..4 {
                    let sigma = [0, 2, 1, 3][i];
                    assert_eq!(
                        from_limbs(r1[4 * half + i]),
                        want1[sigma],
                        "H1 half {half} lane {i}"
                    );
                    let got = from_limbs(r2[4 * half + i]);
                    assert!(
                        got == want2[i] || got == Fe(0).sub(want2[i]),
                        "H2 half {half} lane {i}"
                    );
                }
            }
        }
    }
}
