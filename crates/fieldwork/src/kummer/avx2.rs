//! Target features: `avx`, `avx2` — capability token [`cpu::Avx2`]; the
//! backend [`Avx2`].
//!
//! The ladder of [the module docs](super) with the four coordinates
//! `(x, y, z, t)` of a point in the four 64-bit lanes of ymm registers: the
//! coordinate-wise products `⊙` become vector products and the Hadamard
//! transform a few lane permutations. That every step of this ladder is
//! four independent field operations at a time, made for 4-way SIMD, is
//! the observation of Bernstein, Chuengsatiansup, Lange & Schwabe, *Kummer
//! strikes back: new DH speed records* (ASIACRYPT 2014, ePrint 2014/134).
//! The representation is theirs too: §5.2 (their Cortex-A8 software)
//! writes an element as five unsigned integer limbs in radix 2^(127/5),
//! `f0 + 2^26·f1 + 2^51·f2 + 2^77·f3 + 2^102·f4` — our `OFFSET` below — and
//! §5.3 gives the product `h0 … h4` with exactly the doubled terms of our
//! `c0 … c4` (§5.6: serial carries, §5.5: negation by a multiple of p in
//! limb form, as our bias). Ours are the mapping to AVX2 (four
//! coordinates per ymm, where §5.2 puts two coordinates per NEON vector),
//! the packed 32-bit Hadamard transform, the bounds and the instruction
//! choices. The paper's Sandy Bridge arithmetic (§§3–4: six `f64` limbs)
//! is reproduced in `float.rs` (feature `reproduce`) and measured beside
//! this backend by `peer-bench --reproduce kummer`.
//!
//! Measured history and next ideas: `docs/notes/kummer-avx2.md`.
//!
//! # Representation
//!
//! An element of GF(p), p = 2^127 − 1, is five limbs of radix 2^25.4
//! (2^(127/5), the paper's §5.2):
//! limb `l` weighs `2^OFFSET[l]`, `OFFSET = [0, 26, 51, 77, 102]`
//! (`⌈127·l/5⌉`), and is nominally `WIDTH[l] = [26, 25, 26, 25, 25]` bits
//! (`w` below). A vector [`Fe4`] is five ymm registers; register `l` holds
//! limb `l` of the four coordinates, one 64-bit lane each. Products use
//! `vpmuludq` (32 × 32 → 64 bits, four per instruction). The top of limb 4
//! is bit 127 and 2^127 ≡ 1, so carries and product terms wrap from limb 4
//! to limb 0 with factor 1; the mixed radix makes `OFFSET[i] + OFFSET[j]`
//! either the offset of limb `(i + j) mod 5` (plus 127 when wrapping) or
//! one more, so some terms count twice — folded into doubles `e_j = 2·b_j`
//! of one operand:
//!
//! ```text
//! c0 = a0·b0 + a1·e4 + a2·e3 + a3·e2 + a4·e1
//! c1 = a0·b1 + a1·b0 + a2·b4 + a3·e3 + a4·b2
//! c2 = a0·b2 + a1·e1 + a2·b0 + a3·e4 + a4·e3
//! c3 = a0·b3 + a1·b2 + a2·b1 + a3·b0 + a4·b4
//! c4 = a0·b4 + a1·e3 + a2·b2 + a3·e1 + a4·b0
//! ```
//!
//! A square takes 15 products (`c0 = a0² + 4·a1·a4 + 4·a2·a3`, …) with
//! doubled and quadrupled operands. A product by the small constants of
//! `CH` or `CD` is one `vpmuldq` (the signed multiply) per limb and has
//! negative limbs in lane 0; before a carry, a multiple of p in limb form
//! (`m·(2^w − 1)` in limb `l`, weighing `m·p ≡ 0`) is added so every limb
//! is nonnegative for the logical shifts.
//!
//! # The Hadamard transform
//!
//! `W(x, y, z, t) = (x+y+z+t, x−y+z−t, x+y−z−t, x−y−z+t)` is `H` of the
//! module docs with coordinates 1 and 2 exchanged (`W = σH`, and `σ`
//! commutes with `W`); the ladder uses `W`, which is the cheaper, and
//! multiplies by `σ(CH) = (−833, 1617, 2499, 561)`: `W(σ(X) ⊙ σ(CH)) =
//! H(X ⊙ CH)` exactly. `W` is computed on 32-bit halves (every value fits),
//! two limbs to a lane ([`Packed`]: limbs 0 and 1 in one register, 2 and 3
//! in the next, 4 alone), so five limbs cost three registers: per register
//! and butterfly level one `vpshufd` (pairs inside a 128-bit lane) or
//! `vpermq` (across the halves), one `vpsignd` (negating the lanes that
//! subtract) and one `vpaddd`. `3·p` added to `x` first makes every output
//! nonnegative. The conditional swap runs on the packed form too.
//!
//! # The step and its bounds
//!
//! Each step, for both points at once (two independent dependency chains):
//!
//! | stage | operation | limb `l` bounds after it |
//! |---|---|---|
//! | state `R0`, `R1` | | `[0, 2^w + 546]` |
//! | swap | pack; masked `vpxor`/`vpand` by (bit ⊕ previous bit) | same |
//! | `A = W(R0)`, `B = W(R1)` | bias `3p`, packed `W`, unpack | `[0, 7·2^w + 2^14)` (< 2^28.81) |
//! | `X = A ⊙ σ(CH)` | `vpmuldq`, bias `6144·p`, one parallel carry pass | `[0, 2^w + 23637]` |
//! | `B ⊙ X`, `A ⊙ X` | 25 `vpmuludq` each (`2·X` shared) | `< 2^56.81` |
//! | carry | two chains, (0→1, 3→4), (1→2, 4→0), (2→3, 0→1), 3→4 | `[0, 2^w + 344]` |
//! | `W` | as above | `[0, 7·2^w + 2^14)` |
//! | squares | 15 `vpmuludq` each, two carry chains | `[0, 2^w + 344]` |
//! | `R1 = B ⊙ (1, u1, u2, u3)` | 25 `vpmuludq`, carry chain | `[0, 2^w + 7]` |
//! | `R0 = A ⊙ CD` | `vpmuldq`, bias `128·p`, parallel carry | `[0, 2^w + 546]` |
//!
//! So every `vpmuludq` operand (a square's quadrupled ones included) is
//! below 2^31, every sum of products below 2^60, every biased limb
//! nonnegative and below 2^63. The test `bounds_hold` recomputes this
//! table by interval arithmetic from the constants and checks each of
//! these conditions; the unit tests run every operation on inputs at these
//! bounds (and with garbage in the ignored high halves) against the
//! portable field. The final point (limbs `≤ 2^w + 546`, value `< 2^128`)
//! is assembled into a `u128` per coordinate and fully reduced as the
//! portable backend reduces.
//!
//! Constant time: the only branch is the loop's; the swap mask comes from
//! the scalar bit by arithmetic; no memory address depends on a secret; all
//! instructions used have data-independent timing.
//!
//! # Cost
//!
//! `(B ⊙ A) ⊙ σ(CH) = B ⊙ (A ⊙ σ(CH))` and `(A ⊙ A) ⊙ σ(CH) = A ⊙ (A ⊙
//! σ(CH))`: the step multiplies `A` by the constants once, before the
//! products (`X` in the table), where the paper's order multiplies both
//! products' results — one constant product, bias and parallel carry
//! instead of two, for a general product (25 multiplications) in place of
//! the square `A ⊙ A` (15).
//!
//! One step for both points compiles (rustc 1.95, LLVM 22) to 475 vector
//! ALU instructions: 115 multiplications (105 `vpmuludq`, 10 `vpmuldq`),
//! 182 `vpaddq`/`vpaddd`, 58 shifts, 24 `vpsignd`, 32 permutes (`vpshufd`,
//! `vperm2i128`), 64 `vpand`/`vpxor`/`vpor` — plus 28 spill stores and
//! about 37 reloads, 10 loads of `(1, u1, u2, u3)` and the scalar bit
//! extraction (566 instructions in the loop). On Intel cores
//! multiplications, shifts and `vpsignd` issue on two of the three vector
//! ports, so the step needs at least ≈ 158 cycles there: only fewer
//! instructions a step would lower that floor, not a better schedule. The
//! portable step is 32 `u128` field multiplications (four `mul` and the
//! folds each) and 32 additions or subtractions, ≈ 490 cycles.
//!
//! On Zen 3 (four vector pipes; `vpmuludq`, shifts and shuffles two a
//! cycle, additions four, `peer-bench --isa-rates`) the 475 are ≈ 119
//! cycles of work on each pipe; the step measures ≈ 151 cycles (29 550
//! TSC ticks a ladder), so it is as much latency- as throughput-bound:
//! each point's chain runs two transforms, two products and three carries
//! in a row. Four of the five carries are therefore two chains side by
//! side ([`Fe4::carry_two`], three instructions more than one chain), and
//! statement order moves the time by up to 30 % at the same instruction
//! counts (the stages are written for both points at once: both products,
//! then both carries, and so on). The exchange of 128-bit halves in each
//! transform is `vperm2i128` (3.1 cycles of latency on Zen 3) rather than
//! the `vpermq` LLVM makes of it (6.4).
//!
//! `scalarmult_pair` runs both ladders' steps in one loop, so that the
//! out-of-order core overlaps each step with the other ladder's.
//!
//! # The comb's row reads
//!
//! Key generation (`fixed_base.rs`) reads its table rows here: this file
//! implements the comb's [`Scan`] for the [`cpu::Avx2`] token, and
//! [`Avx2::comb`](super::Backend::comb) compiles the whole comb with AVX2
//! enabled so that the parts of a row's read, spread through each scalar
//! mixed addition, inline as ymm code that runs beside the scalar
//! products.
//!
//! A read selects in two levels ([`Read`]): entry `idx = 8a + b` is entry
//! `b` of part `a`. [`tf::begin`] makes the seven masks of `b` once a row
//! (`vpcmpeqq`); each part ([`tf::scan_part`]) picks its entry `b` with 14
//! `vpblendvb` (the entries as memory operands) and merges it under the
//! mask of `a = k` with two more: ≈ 2.4 instructions an entry against 3.25
//! for a mask and two blends per entry. Every entry is loaded; no address
//! or branch depends on the index.
//!
//! Each part is pinned to its place in the addition by [`tf::pin`], an
//! empty `asm!` that takes the read's accumulator and a value the addition
//! has just computed: without it LLVM moved all eight parts into one block
//! after the addition, where they ran alone (a key on Zen 3: 7.43 µs
//! against 6.15 µs pinned, `scripts/ab-time.sh` on `kummer_keygen_one`;
//! pinned, a key takes the time of the same comb with no scan at all).
//!
//! # Rejected
//!
//! - Two parallel carry passes instead of each sequential chain (depth 4
//!   instead of 12, 12 more instructions a carry): about 6 % slower, so
//!   the step is bound by vector throughput, not by the chains' latency.
//! - Closures (`array::map`, `array::from_fn`) in the helpers: a closure
//!   does not inherit the entry point's target features, so the intrinsics
//!   inside stay calls. The helpers use loops.
//! - Signed limbs and `vpmuldq` for every product: LLVM rewrote the sign
//!   extensions and doubled operands into extra instructions (slower);
//!   with `vpmuludq`, re-reading `(1, u1, u2, u3)` through
//!   [`core::hint::black_box`] each step keeps a loop-invariant operand's
//!   rewrite away.
//! - `W` on full 64-bit lanes straight after `⊙ σ(CH)` with one carry after
//!   it: slower than carrying first and using the 32-bit `W`.
//! - Unpacking limbs 1 and 3 with `vpsrlq` instead of `vpshufd`: LLVM
//!   rewrote their doubles into one more instruction each.
//! - The two-chain carry ([`Fe4::carry_two`]) after `R1`'s product by
//!   the difference too: 2 % slower on Zen 3 (it is 3 % faster on the
//!   other four chains, where it replaced [`Fe4::carry`]; before the
//!   statement order of the step changed it measured within the noise).
//! - One point's whole step before the other's instead of interleaved
//!   statements: slower.
//! - The carry chains after the products, and after the squares,
//!   interleaved carry by carry: one ladder 0.7 % faster, the pair 1 %
//!   slower.
//! - The pair's two steps interleaved statement by statement instead of
//!   one after the other: 1 % faster, not worth a second copy of the
//!   step.
//! - Two points per register pair: about 60 instructions a step more by
//!   count; not written.
//! - Other statement orders (Zen 3, one ladder): `R0`'s constant product
//!   before `R1`'s product by the difference 22 % slower; the two final
//!   products before both of their carries 30 % slower; `X` before `B`'s
//!   transform 3 %; `A`'s stages before `B`'s 2–6 %.
//!
//! The schedule LLVM picks is fragile (the same instruction counts have
//! measured 6 % apart): re-measure after edits.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// limb and lane indices are constants or loop counters over fixed limb and lane arrays (no input-dependent index: inputs are fixed-size arrays).
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::field::{Fe, P};
use super::fixed_base::{self, PART, Row, Scan};
use super::fixed_base_table::ENTRIES;
use crate::cpu;
use core::arch::x86_64::{
    __m256i, _mm256_add_epi32, _mm256_add_epi64, _mm256_and_si256, _mm256_blendv_epi8,
    _mm256_cmpeq_epi64, _mm256_loadu_si256, _mm256_mul_epi32, _mm256_mul_epu32, _mm256_or_si256,
    _mm256_set_epi64x, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_shuffle_epi32,
    _mm256_sign_epi32, _mm256_slli_epi64, _mm256_srli_epi64, _mm256_storeu_si256, _mm256_xor_si256,
};
use subtle::Choice;

/// Limb `l` nominally holds bits `OFFSET[l] .. OFFSET[l] + WIDTH[l]`.
const WIDTH: [u32; 5] = [26, 25, 26, 25, 25];
/// The weight of limb `l` is `2^OFFSET[l]` (`⌈127·l/5⌉`).
const OFFSET: [u32; 5] = [0, 26, 51, 77, 102];

/// `2^WIDTH[l] − 1`.
const fn mask(l: usize) -> u64 {
    (1 << WIDTH[l]) - 1
}

/// `m·p` in limbs: limb `l` is `m·(2^WIDTH[l] − 1)`, so the limbs weigh
/// `m·p ≡ 0`.
const fn p_multiple(m: u64) -> [u64; 5] {
    [
        m * mask(0),
        m * mask(1),
        m * mask(2),
        m * mask(3),
        m * mask(4),
    ]
}

/// Added to `x` before `W`: every output gains it, and it covers the most
/// negative output, `−2·(2^w + 3523)`.
const BIAS_HADAMARD: [u64; 5] = p_multiple(3);
/// Added to `A ⊙ σ(CH)` before its carry: covers lane 0,
/// `−833·(7·2^w + 2^14)` (`A` a Hadamard transform's output).
const BIAS_CH: [u64; 5] = p_multiple(6144);
/// Added to `A ⊙ CD` before its carry: covers lane 0, `−114·(2^w + 344)`.
const BIAS_CD: [u64; 5] = p_multiple(128);

/// Four 64-bit lanes of a ymm register, one per coordinate `(x, y, z, t)`.
///
/// A value carries the [`cpu::Avx2`] token, so it exists only where AVX and AVX2
/// are usable; the operations rely on that. Arithmetic is lane-wise and
/// wrapping.
#[derive(Clone, Copy)]
struct Lanes {
    v: __m256i,
    t: cpu::Avx2,
}

/// Lane-wise methods of [`Lanes`] by one intrinsic (or one instruction's
/// function): `fn name(o) = f` is `f(self, o)`, `fn name() = f` is
/// `f(self)`.
macro_rules! lane_methods {
    ($($(#[$doc:meta])* fn $name:ident($($o:ident)?) = $f:expr;)*) => {$(
        $(#[$doc])*
        #[inline(always)]
        fn $name(self $(, $o: Lanes)?) -> Lanes {
            // SAFETY: `self.t` proves AVX and AVX2, all the intrinsics
            // (and `vperm2i128_swap`) need.
            let v = unsafe { $f(self.v $(, $o.v)?) };
            Lanes { v, t: self.t }
        }
    )*};
}

/// A lane-wise operator by one intrinsic.
macro_rules! lane_operator {
    ($($(#[$doc:meta])* $trait:ident $method:ident = $intrinsic:ident;)*) => {$(
        $(#[$doc])*
        impl core::ops::$trait for Lanes {
            type Output = Lanes;
            lane_methods! { fn $method(o) = $intrinsic; }
        }
    )*};
}

lane_operator! {
    /// `vpaddq`, wrapping.
    Add add = _mm256_add_epi64;
    /// `vpmuludq`: the 64-bit product of the low 32 bits of each lane (the
    /// high 32 bits are ignored).
    Mul mul = _mm256_mul_epu32;
    /// `vpand`.
    BitAnd bitand = _mm256_and_si256;
    /// `vpxor`.
    BitXor bitxor = _mm256_xor_si256;
    /// `vpor`.
    BitOr bitor = _mm256_or_si256;
}

impl Lanes {
    /// Lane `i` is `x[i]`.
    #[inline(always)]
    fn new(t: cpu::Avx2, x: [u64; 4]) -> Lanes {
        // SAFETY: the token proves AVX.
        let v = unsafe { _mm256_set_epi64x(x[3] as i64, x[2] as i64, x[1] as i64, x[0] as i64) };
        Lanes { v, t }
    }

    #[inline(always)]
    fn splat(t: cpu::Avx2, x: u64) -> Lanes {
        Lanes::new(t, [x; 4])
    }

    #[inline(always)]
    fn to_array(self) -> [u64; 4] {
        let mut out = [0u64; 4];
        // SAFETY: `self.t` proves AVX; the unaligned store writes the 32
        // bytes of `out`.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast::<__m256i>(), self.v) };
        out
    }

    lane_methods! {
        /// `vpmuldq`: the signed 64-bit product of the low 32 bits of each
        /// lane, read as signed.
        fn mul_signed(o) = _mm256_mul_epi32;
        /// `vpaddd`: lane-wise on the eight 32-bit halves.
        fn add32(o) = _mm256_add_epi32;
        /// `vpsllq` by 32: the low half moved to the high half.
        fn low_to_high() = _mm256_slli_epi64::<32>;
        /// `vpshufd`: the high half copied to the low half.
        fn high_to_low() = _mm256_shuffle_epi32::<0xf5>;
        /// `vpsignd`: each 32-bit half negated where `o`'s half is
        /// negative, kept where it is positive.
        fn sign32(o) = _mm256_sign_epi32;
        /// `(v1, v0, v3, v2)`: `vpshufd` exchanging the 64-bit halves of
        /// each 128-bit lane.
        fn swap_pairs() = _mm256_shuffle_epi32::<0x4e>;
        /// `(v2, v3, v0, v1)`: `vperm2i128` exchanging the 128-bit halves,
        /// written as inline assembly because LLVM turns
        /// `_mm256_permute2x128_si256` of one register into `vpermq`, which
        /// on Zen 3 has twice the latency (6.4 against 3.1 cycles, measured
        /// by a dependent chain of each) and sits twice on each point's
        /// dependency chain per ladder step; on Intel cores both take 3
        /// cycles.
        fn swap_halves() = vperm2i128_swap;
    }

    /// `vpsrlq` by `WIDTH[l]` (`l` is a constant after inlining).
    #[inline(always)]
    fn shr_width(self, l: usize) -> Lanes {
        // SAFETY: `self.t` proves AVX2.
        let v = unsafe {
            if WIDTH[l] == 26 {
                _mm256_srli_epi64::<26>(self.v)
            } else {
                _mm256_srli_epi64::<25>(self.v)
            }
        };
        Lanes { v, t: self.t }
    }
}

/// [`Lanes::swap_halves`]'s instruction. A `#[target_feature]` function
/// (inline assembly on ymm registers needs the feature enabled), inlined
/// into the ladder, which enables the same features.
///
/// # Safety
///
/// The CPU has AVX2.
#[target_feature(enable = "avx,avx2")]
#[inline]
unsafe fn vperm2i128_swap(x: __m256i) -> __m256i {
    let v: __m256i;
    // SAFETY: AVX2 by the contract; the instruction reads and writes
    // registers only.
    unsafe {
        core::arch::asm!(
            "vperm2i128 {o}, {i}, {i}, 0x01",
            o = lateout(ymm_reg) v,
            i = in(ymm_reg) x,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    v
}

/// `vpsignd` operands: keep both 32-bit halves of a lane, or negate both.
const KEEP: u64 = (1 << 32) | 1;
const NEGATE: u64 = u64::MAX;

/// The limbs of [`Fe4`] two to a lane for the Hadamard transform and the
/// swap, which work on 32-bit halves: limbs 0 and 1 in the low and high
/// halves of register 0, limbs 2 and 3 in register 1, limb 4 in register
/// 2 — three registers instead of five.
#[derive(Clone, Copy)]
struct Packed([Lanes; 3]);

impl Packed {
    /// Exchanges `a` and `b` where `mask` is all ones: 9 `vpxor`, 3 `vpand`.
    #[inline(always)]
    fn cswap(a: &mut Packed, b: &mut Packed, mask: Lanes) {
        for (x, y) in a.0.iter_mut().zip(&mut b.0) {
            let d = (*x ^ *y) & mask;
            *x = *x ^ d;
            *y = *y ^ d;
        }
    }

    /// `W(v + (3p, 0, 0, 0)) = W(v) + (3p, 3p, 3p, 3p)` on the 32-bit
    /// halves, `W(x, y, z, t) = (x+y+z+t, x−y+z−t, x+y−z−t, x−y−z+t)`:
    /// one bias `vpaddd` per register, then per butterfly level one
    /// `vpshufd` or `vpermq`, one `vpsignd` and one `vpaddd`; two `vpshufd`
    /// copy limbs 1 and 3 down to low halves (23 instructions). (`vpsrlq`
    /// by 32 would do too, but LLVM then turns the doubling of those limbs
    /// into a shift by 31 and a mask, one instruction more each.)
    ///
    /// # Preconditions
    ///
    /// Limbs `≤ 2^WIDTH[l] + 3523`.
    ///
    /// # Postconditions
    ///
    /// The low 32 bits of limb `l` are in `[0, 7·2^WIDTH[l] + 2^14)`; the
    /// high 32 bits are garbage (only `vpmuludq` reads the result).
    #[inline(always)]
    fn hadamard(self) -> Fe4 {
        let t = self.0[0].t;
        let pairs = Lanes::new(t, [KEEP, NEGATE, KEEP, NEGATE]);
        let halves = Lanes::new(t, [KEEP, KEEP, NEGATE, NEGATE]);
        let b = BIAS_HADAMARD;
        let bias = [
            Lanes::new(t, [b[0] | (b[1] << 32), 0, 0, 0]),
            Lanes::new(t, [b[2] | (b[3] << 32), 0, 0, 0]),
            Lanes::new(t, [b[4], 0, 0, 0]),
        ];
        let mut w = self.0;
        for (v, bias) in w.iter_mut().zip(bias) {
            let x = v.add32(bias);
            // (x+y, x−y, z+t, z−t), then (s0+s2, s1+s3, s0−s2, s1−s3).
            let x = x.swap_pairs().add32(x.sign32(pairs));
            *v = x.swap_halves().add32(x.sign32(halves));
        }
        Fe4([w[0], w[0].high_to_low(), w[1], w[1].high_to_low(), w[2]])
    }
}

/// Four field elements, one per lane, as five limbs of radix 2^25.4; the
/// bounds between operations are in the module docs.
#[derive(Clone, Copy)]
struct Fe4([Lanes; 5]);

impl Fe4 {
    /// Canonical elements, one per lane.
    #[inline(always)]
    fn from_fe(t: cpu::Avx2, x: [Fe; 4]) -> Fe4 {
        let mut out = Fe4([Lanes::splat(t, 0); 5]);
        for (l, limb) in out.0.iter_mut().enumerate() {
            let part = |i: usize| (x[i].0 >> OFFSET[l]) as u64 & mask(l);
            *limb = Lanes::new(t, [part(0), part(1), part(2), part(3)]);
        }
        out
    }

    /// The fully reduced elements.
    ///
    /// # Preconditions
    ///
    /// Limbs nonnegative with `Σ limb_l·2^OFFSET[l] < 2^128` (true for
    /// limbs `≤ 2^WIDTH[l] + 2^20`).
    #[inline(always)]
    fn to_fe(self) -> [Fe; 4] {
        let mut limbs = [[0u64; 4]; 5];
        for (limb, v) in limbs.iter_mut().zip(&self.0) {
            *limb = v.to_array();
        }
        core::array::from_fn(|i| {
            let v = (0..5).fold(0u128, |acc, l| acc + (u128::from(limbs[l][i]) << OFFSET[l]));
            // Fold bit 127 (2^127 ≡ 1), then subtract p by mask if the
            // result (≤ p + 1) is at least p, as the portable backend does.
            let r = (v & P) + (v >> 127);
            let (d, borrow) = r.overflowing_sub(P);
            let keep = u128::from(borrow).wrapping_neg();
            Fe((r & keep) | (d & !keep))
        })
    }

    /// `2·self`, limb-wise.
    #[inline(always)]
    fn double(mut self) -> Fe4 {
        for l in 0..5 {
            self.0[l] = self.0[l] + self.0[l];
        }
        self
    }

    /// Adds `bias` (the limbs of a multiple of p) to every lane.
    #[inline(always)]
    fn add_bias(mut self, bias: &[u64; 5]) -> Fe4 {
        for (v, &b) in self.0.iter_mut().zip(bias) {
            *v = *v + Lanes::splat(v.t, b);
        }
        self
    }

    /// Two limbs to a lane (4 instructions).
    ///
    /// # Preconditions
    ///
    /// Limbs `< 2^32`.
    #[inline(always)]
    fn pack(self) -> Packed {
        let l = self.0;
        Packed([l[0] | l[1].low_to_high(), l[2] | l[3].low_to_high(), l[4]])
    }

    /// Limb-wise signed product by small constants, one per lane (5
    /// `vpmuldq`, no carry).
    ///
    /// # Preconditions
    ///
    /// Limbs and constants `< 2^31` in absolute value.
    #[inline(always)]
    fn mul_small(mut self, c: Lanes) -> Fe4 {
        for l in 0..5 {
            self.0[l] = self.0[l].mul_signed(c);
        }
        self
    }

    /// The uncarried product `self ⊙ b`, with `b2 = 2·b`: 25 `vpmuludq`
    /// and 20 `vpaddq` (the formula of the module docs).
    ///
    /// # Preconditions
    ///
    /// The low 32 bits of the limbs of `self`, `b` and `b2` are the limbs
    /// (unsigned); every sum below 2^64 (see the module docs).
    #[inline(always)]
    fn mul(self, b: &Fe4, b2: &Fe4) -> Fe4 {
        let [a0, a1, a2, a3, a4] = self.0;
        let [b0, b1, b2, b3, b4, e1, e2, e3, e4] = [
            b.0[0], b.0[1], b.0[2], b.0[3], b.0[4], b2.0[1], b2.0[2], b2.0[3], b2.0[4],
        ];
        Fe4([
            a0 * b0 + a1 * e4 + a2 * e3 + a3 * e2 + a4 * e1,
            a0 * b1 + a1 * b0 + a2 * b4 + a3 * e3 + a4 * b2,
            a0 * b2 + a1 * e1 + a2 * b0 + a3 * e4 + a4 * e3,
            a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + a4 * b4,
            a0 * b4 + a1 * e3 + a2 * b2 + a3 * e1 + a4 * b0,
        ])
    }

    /// The uncarried square: 15 `vpmuludq`, 10 `vpaddq` for the sums and 7
    /// to double and quadruple operands.
    ///
    /// # Preconditions
    ///
    /// The low 32 bits of the limbs are the limbs, and `4·a_l < 2^32`.
    #[inline(always)]
    fn square(self) -> Fe4 {
        let [a0, a1, a2, a3, a4] = self.0;
        let [d0, d1, d2, d3] = [a0 + a0, a1 + a1, a2 + a2, a3 + a3];
        let [q1, q2, q3] = [d1 + d1, d2 + d2, d3 + d3];
        Fe4([
            a0 * a0 + q1 * a4 + q2 * a3,
            d0 * a1 + d2 * a4 + d3 * a3,
            d0 * a2 + d1 * a1 + q3 * a4,
            d0 * a3 + d1 * a2 + a4 * a4,
            d0 * a4 + q1 * a3 + a2 * a2,
        ])
    }

    /// Carries limb `l` into limb `l + 1`; limb 4 into limb 0 (its top is
    /// bit 127, and 2^127 ≡ 1).
    #[inline(always)]
    fn carry_one(&mut self, l: usize) {
        let h = self.0[l].shr_width(l);
        self.0[l] = self.0[l] & Lanes::splat(h.t, mask(l));
        self.0[(l + 1) % 5] = self.0[(l + 1) % 5] + h;
    }

    /// The carry chain 0 → 1 → 2 → 3 → 4 → 0 → 1: 18 instructions.
    ///
    /// # Preconditions
    ///
    /// Limbs `< 2^63`.
    ///
    /// # Postconditions
    ///
    /// Limb `l < 2^WIDTH[l]`, except limb 1 `≤ 2^25 + 2^12` (its final
    /// carry in is at most `(2^26 + 2^38 + 2^13) / 2^26`).
    #[inline(always)]
    fn carry(mut self) -> Fe4 {
        self.carry_one(0);
        self.carry_one(1);
        self.carry_one(2);
        self.carry_one(3);
        self.carry_one(4);
        self.carry_one(0);
        self
    }

    /// Two carry chains side by side: (0 → 1, 3 → 4), (1 → 2, 4 → 0),
    /// (2 → 3, 0 → 1), then 3 → 4: 21 instructions, four carries deep
    /// where [`Fe4::carry`] is six.
    ///
    /// # Preconditions
    ///
    /// Limbs `< 2^63`.
    ///
    /// # Postconditions
    ///
    /// Limb `l < 2^WIDTH[l]`, except limbs 1 and 4 `≤ 2^25 + 2^12` (their
    /// last carries in are at most `(2^26 + 2^38 + 2^13) / 2^26` and
    /// `(2^25 + 2^37 + 2^12) / 2^25`).
    #[inline(always)]
    fn carry_two(mut self) -> Fe4 {
        self.carry_one(0);
        self.carry_one(3);
        self.carry_one(1);
        self.carry_one(4);
        self.carry_one(2);
        self.carry_one(0);
        self.carry_one(3);
        self
    }

    /// One parallel carry pass: all five carries taken, then added (15
    /// instructions, two deep).
    ///
    /// # Preconditions
    ///
    /// Limbs `< 2^63`.
    ///
    /// # Postconditions
    ///
    /// Limb `l ≤ 2^WIDTH[l] − 1 + ⌊c_(l−1) / 2^WIDTH[l−1]⌋`.
    #[inline(always)]
    fn carry_parallel(self) -> Fe4 {
        let mut high = self.0;
        for (l, h) in high.iter_mut().enumerate() {
            *h = h.shr_width(l);
        }
        let mut out = self;
        for (l, v) in out.0.iter_mut().enumerate() {
            *v = (*v & Lanes::splat(v.t, mask(l))) + high[(l + 4) % 5];
        }
        out
    }

    /// Exchanges `a` and `b` where `mask` is all ones (the same in every
    /// lane): 15 `vpxor`, 5 `vpand`.
    #[inline(always)]
    fn cswap(a: &mut Fe4, b: &mut Fe4, mask: Lanes) {
        for l in 0..5 {
            let d = (a.0[l] ^ b.0[l]) & mask;
            a.0[l] = a.0[l] ^ d;
            b.0[l] = b.0[l] ^ d;
        }
    }
}

super::token_backend! {
    /// The AVX2 Kummer backend (see [`super::Backend`]): the ladder on ymm, and the
    /// fixed-base comb compiled with AVX2 enabled around the ymm row scan.
    Avx2(cpu::Avx2) = "avx2";

    /// The ladder of the module docs: exactly what the portable backend
    /// returns.
    #[inline]
    fn ladder(self, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        // SAFETY: the token proves AVX and AVX2, all `tf::ladder` enables.
        unsafe { tf::ladder(self.0, scalar, u) }
    }

    /// Two ladders, their steps one after the other in one loop (the
    /// out-of-order core overlaps each step with the next; see the module
    /// docs for the measured effect).
    #[inline]
    fn ladder_pair(self, scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
        // SAFETY: the token proves AVX and AVX2, all `tf::ladder_pair` enables.
        unsafe { tf::ladder_pair(self.0, scalars, u) }
    }

    /// The fixed-base comb (`fixed_base.rs`) compiled with AVX2 enabled, so
    /// that the row reads it spreads through its scalar arithmetic
    /// ([`Scan::scan_part`]) inline as ymm code.
    fn comb(self, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
        // SAFETY: the token proves AVX and AVX2, all `tf::comb` enables.
        unsafe { tf::comb(self.0, scalar) }
    }
}

/// The comb's scan on ymm, interleaved: the parts of the next row's read
/// run on the vector unit while the scalar units multiply. Implemented on
/// the token, which the comb compiled by [`Avx2::comb`](super::Backend::comb) carries.
impl Scan for cpu::Avx2 {
    const INTERLEAVED: bool = true;
    type Read = Read;

    /// The whole row: [`Scan::begin`], each of its parts of
    /// [`PART`] entries, [`Scan::end`].
    #[inline(always)]
    fn scan(self, row: &Row, idx: u64) -> [u64; 8] {
        // SAFETY: the token proves AVX and AVX2, all `tf::scan_row` enables.
        unsafe { tf::scan_row(row, idx) }
    }

    #[inline(always)]
    fn begin(self, idx: u64) -> Read {
        // SAFETY: the token proves AVX and AVX2, all `tf::begin` needs.
        unsafe { tf::begin(idx) }
    }

    /// Part `k` of the row: [`tf::scan_part`]. For [`Avx2::comb`](super::Backend::comb)'s AVX2
    /// context, where it is inlined and the intrinsics become single
    /// instructions; anywhere else they would stay calls (correct, since
    /// the token proves the features, but slow).
    #[inline(always)]
    fn scan_part(self, row: &Row, k: usize, read: &mut Read) {
        // SAFETY: the token proves AVX and AVX2, all `tf::scan_part` needs.
        unsafe { tf::scan_part(read, row, PART * k) }
    }

    #[inline(always)]
    fn end(self, read: Read) -> [u64; 8] {
        // SAFETY: the token proves AVX, all `tf::end` needs.
        unsafe { tf::end(read) }
    }

    /// [`tf::pin`]: an empty `asm!` with the read's accumulator and `x`'s
    /// words as operands (no instruction), so the part before it stays
    /// before it and the arithmetic after it stays after.
    #[inline(always)]
    fn pin(self, read: &mut Read, x: u128) -> u128 {
        // SAFETY: the token proves AVX, all `tf::pin` enables.
        unsafe { tf::pin(read, x) }
    }
}

/// A row read of the AVX2 scan, in two levels: entry `idx = PART·a + b`
/// is entry `b` of part `a`. Each part first selects its own entry `b`
/// (`low`: the masks of `b = 1, …, PART − 1`, made once by [`tf::begin`]
/// and shared by the parts), then merges that into `(lo, hi)` under the
/// mask of `a = k` (one `vpcmpeqq` of `high`, the broadcast `a`).
#[derive(Clone, Copy)]
pub(super) struct Read {
    lo: __m256i,
    hi: __m256i,
    low: [__m256i; PART - 1],
    high: __m256i,
}

/// The `#[target_feature]` entry points, reached only through [`Avx2`]'s
/// [`super::Backend`] methods and the token's [`Scan`].
mod tf {
    use super::*;

    /// A read of entry `idx` ([`Read`]): nothing merged, the masks of
    /// `b = idx mod PART` against `1, …, PART − 1` (all ones where equal)
    /// and the broadcast `a = ⌊idx / PART⌋`.
    ///
    /// # Safety
    ///
    /// The CPU has AVX and AVX2.
    #[inline(always)]
    pub(super) unsafe fn begin(idx: u64) -> Read {
        // SAFETY: AVX and AVX2 by the contract; register-only intrinsics.
        unsafe {
            let b = _mm256_set1_epi64x((idx % PART as u64) as i64);
            // A loop, not `array::from_fn`: its closure would not inherit
            // the caller's target features (the intrinsics would stay calls).
            let mut low = [_mm256_setzero_si256(); PART - 1];
            for (j, m) in (1i64..).zip(low.iter_mut()) {
                *m = _mm256_cmpeq_epi64(b, _mm256_set1_epi64x(j));
            }
            Read {
                lo: _mm256_setzero_si256(),
                hi: _mm256_setzero_si256(),
                low,
                high: _mm256_set1_epi64x((idx / PART as u64) as i64),
            }
        }
    }

    /// [`Scan::pin`] on ymm (see there).
    ///
    /// # Safety
    ///
    /// The CPU has AVX.
    #[target_feature(enable = "avx")]
    #[inline]
    pub(super) unsafe fn pin(read: &mut Read, x: u128) -> u128 {
        let (mut lo, mut hi) = (x as u64, (x >> 64) as u64);
        // SAFETY: an empty template (a comment): no instruction, no memory
        // access; the operands come back unchanged.
        unsafe {
            core::arch::asm!(
                "/* {a} {b} {c} {d} */",
                a = inout(ymm_reg) read.lo,
                b = inout(ymm_reg) read.hi,
                c = inout(reg) lo,
                d = inout(reg) hi,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        u128::from(lo) | (u128::from(hi) << 64)
    }

    /// The entry `read` merged.
    ///
    /// # Safety
    ///
    /// The CPU has AVX.
    #[inline(always)]
    pub(super) unsafe fn end(read: Read) -> [u64; 8] {
        let mut out = [0u64; 8];
        // SAFETY: AVX by the contract; the stores write the two 32-byte
        // halves of `out`.
        unsafe {
            let q = out.as_mut_ptr().cast::<__m256i>();
            _mm256_storeu_si256(q, read.lo);
            _mm256_storeu_si256(q.add(1), read.hi);
        }
        out
    }

    /// The part of a row read (`fixed_base.rs`) of entries `[first, first
    /// + PART)`: its entry `b` selected by `PART − 1` `vpblendvb` a half
    /// (each entry after the first as the memory operand, under the shared
    /// mask of its number), then merged into `read` by one more under the
    /// mask of `first / PART = a`. No address or branch depends on the
    /// index: ≈ 2⅜ instructions an entry (19 a part and 7 a row for the
    /// masks), against 3¼ for one `vpcmpeqq` and two `vpblendvb` an entry.
    ///
    /// An `unsafe fn` rather than a `#[target_feature]` one so that it
    /// inlines into the comb (no closures either: a closure does not
    /// inherit target features).
    ///
    /// # Safety
    ///
    /// The CPU has AVX and AVX2.
    #[inline(always)]
    pub(super) unsafe fn scan_part(read: &mut Read, row: &Row, first: usize) {
        let Some(part) = row.get(first..first + PART) else {
            return;
        };
        let Some((head, rest)) = part.split_first() else {
            return;
        };
        // SAFETY: AVX and AVX2 by the contract; the loads are the 32-byte
        // halves of 8-word arrays.
        unsafe {
            let p = head.as_ptr().cast::<__m256i>();
            let (mut lo, mut hi) = (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)));
            for (entry, m) in rest.iter().zip(read.low) {
                let p = entry.as_ptr().cast::<__m256i>();
                lo = _mm256_blendv_epi8(lo, _mm256_loadu_si256(p), m);
                hi = _mm256_blendv_epi8(hi, _mm256_loadu_si256(p.add(1)), m);
            }
            let a = _mm256_cmpeq_epi64(read.high, _mm256_set1_epi64x((first / PART) as i64));
            read.lo = _mm256_blendv_epi8(read.lo, lo, a);
            read.hi = _mm256_blendv_epi8(read.hi, hi, a);
        }
    }

    #[target_feature(enable = "avx,avx2")]
    #[inline(never)]
    pub(super) fn comb(t: cpu::Avx2, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
        fixed_base::comb(t, scalar)
    }

    #[target_feature(enable = "avx,avx2")]
    #[inline(never)]
    pub(super) fn scan_row(row: &Row, idx: u64) -> [u64; 8] {
        // SAFETY: this function's target features are the contract of
        // begin, scan_part and end.
        let mut read = unsafe { begin(idx) };
        for first in (0..ENTRIES).step_by(PART) {
            // SAFETY: as above.
            unsafe { scan_part(&mut read, row, first) };
        }
        // SAFETY: as above.
        unsafe { end(read) }
    }

    /// One ladder's state and its loop invariants.
    #[derive(Clone, Copy)]
    struct Ladder {
        r0: Fe4,
        r1: Fe4,
        /// `(1, u1, u2, u3)` and its double.
        diff: (Fe4, Fe4),
        /// The previous scalar bit.
        prev: u8,
    }

    impl Ladder {
        #[inline(always)]
        fn new(t: cpu::Avx2, u: [Fe; 3]) -> Ladder {
            let [u1, u2, u3] = u;
            let diff = Fe4::from_fe(t, [Fe::ONE, u1, u2, u3]);
            Ladder {
                r0: Fe4::from_fe(t, super::super::NEUTRAL.map(Fe::small)),
                r1: Fe4::from_fe(t, crate::kummer::encoding::point_from_ratios(u)),
                diff: (diff, diff.double()),
                prev: 0,
            }
        }

        /// The portable ladder's step for scalar bit `bit`, both points
        /// interleaved; the bounds after each line are in the module docs'
        /// table. `ch` is `σ(CH)`, `cd` is `CD`.
        #[inline(always)]
        fn step(&mut self, bit: u8, ch: Lanes, cd: Lanes) {
            let t = ch.t;
            let swap = Lanes::splat(t, u64::from(bit ^ self.prev).wrapping_neg());
            self.prev = bit;
            let (mut p0, mut p1) = (self.r0.pack(), self.r1.pack());
            Packed::cswap(&mut p0, &mut p1, swap);
            let b = p1.hadamard();
            let a = p0.hadamard();
            let x = a.mul_small(ch).add_bias(&BIAS_CH).carry_parallel();
            let x2 = x.double();
            let b = b.mul(&x, &x2);
            let a = a.mul(&x, &x2);
            let b = b.carry_two();
            let a = a.carry_two();
            let (b, a) = (b.pack(), a.pack());
            let (b, a) = (b.hadamard(), a.hadamard());
            let (b, a) = (b.square(), a.square());
            let b = b.carry_two();
            let a = a.carry_two();
            // Re-read through an optimisation barrier: hoisted out of the
            // loop, the operand's zero-extension is invisible to the
            // instruction selector, which then multiplies 64 × 32 bits
            // (two `vpmuludq` and three more instructions a product).
            let (diff, diff2) = core::hint::black_box(&self.diff);
            self.r1 = b.mul(diff, diff2).carry();
            self.r0 = a.mul_small(cd).add_bias(&BIAS_CD).carry_parallel();
        }

        /// Undoes the last swap; the result, fully reduced.
        #[inline(always)]
        fn finish(mut self) -> [Fe; 4] {
            let swap = Lanes::splat(self.r0.0[0].t, u64::from(self.prev).wrapping_neg());
            Fe4::cswap(&mut self.r0, &mut self.r1, swap);
            self.r0.to_fe()
        }
    }

    /// `σ(CH)` and `CD` as lanes.
    #[inline(always)]
    fn constants(t: cpu::Avx2) -> (Lanes, Lanes) {
        let [c0, c1, c2, c3] = super::super::CH;
        let ch = Lanes::new(t, [c0, c2, c1, c3].map(|c| c as u64)); // σ(CH)
        let cd = Lanes::new(t, super::super::CD.map(|c| c as u64));
        (ch, cd)
    }

    #[target_feature(enable = "avx,avx2")]
    pub(super) fn ladder(t: cpu::Avx2, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        let (ch, cd) = constants(t);
        let mut l = Ladder::new(t, u);
        for i in (0..251).rev() {
            l.step(crate::kummer::encoding::scalar_bit(scalar, i), ch, cd);
        }
        l.finish()
    }

    #[target_feature(enable = "avx,avx2")]
    pub(super) fn ladder_pair(
        t: cpu::Avx2,
        scalars: [&[u8; 32]; 2],
        u: [[Fe; 3]; 2],
    ) -> [[Fe; 4]; 2] {
        let (ch, cd) = constants(t);
        let (mut l0, mut l1) = (Ladder::new(t, u[0]), Ladder::new(t, u[1]));
        for i in (0..251).rev() {
            l0.step(crate::kummer::encoding::scalar_bit(scalars[0], i), ch, cd);
            l1.step(crate::kummer::encoding::scalar_bit(scalars[1], i), ch, cd);
        }
        [l0.finish(), l1.finish()]
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::test_rng::Rng;
    use super::*;
    use std::println;

    /// Raw limbs from the tests' generator.
    trait Limbs {
        fn limb(&mut self, l: usize, bound: u64) -> u64;
        fn limbs(&mut self, bound: &[u64; 5]) -> [[u64; 4]; 5];
    }

    impl Limbs for Rng {
        /// A limb in `[0, bound]`, often at or next to an end or `mask`.
        fn limb(&mut self, l: usize, bound: u64) -> u64 {
            match self.below(6) {
                0 => 0,
                1 | 2 => bound,
                3 => bound - 1,
                4 => mask(l).min(bound),
                _ => self.next_u64() % (bound + 1),
            }
        }

        /// Raw limbs up to `bound`: every limb at its bound one time in
        /// four, else mixed extremes.
        fn limbs(&mut self, bound: &[u64; 5]) -> [[u64; 4]; 5] {
            let all_max = self.below(4) == 0;
            core::array::from_fn(|l| {
                core::array::from_fn(|_| {
                    if all_max {
                        bound[l]
                    } else {
                        self.limb(l, bound[l])
                    }
                })
            })
        }
    }

    /// The token, the step's bounds and a generator seeded with `seed`;
    /// `None` (the test skipped) without AVX2.
    fn setup(seed: u64) -> Option<(cpu::Avx2, Bounds, Rng)> {
        let Some(t) = cpu::Avx2::get() else {
            println!("skipped: the CPU (or FIELDWORK_MAX_ISA) lacks AVX2");
            return None;
        };
        Some((t, bounds(), Rng::new(seed)))
    }

    fn fe4(t: cpu::Avx2, limbs: &[[u64; 4]; 5]) -> Fe4 {
        let mut out = Fe4([Lanes::splat(t, 0); 5]);
        for (v, &limb) in out.0.iter_mut().zip(limbs) {
            *v = Lanes::new(t, limb);
        }
        out
    }

    fn raw(x: &Fe4) -> [[u64; 4]; 5] {
        core::array::from_fn(|l| x.0[l].to_array())
    }

    /// How to read a limb.
    #[derive(Clone, Copy)]
    enum Read {
        /// The full lane, unsigned.
        Unsigned,
        /// The full lane, two's complement.
        Signed,
        /// The low 32 bits, unsigned (the output of `hadamard`).
        Low32,
    }

    /// The elements the limbs represent, mod p.
    fn value(limbs: &[[u64; 4]; 5], read: Read) -> [Fe; 4] {
        core::array::from_fn(|i| {
            (0..5).fold(Fe(0), |acc, l| {
                let x = limbs[l][i];
                let limb = match read {
                    Read::Unsigned => Fe(u128::from(x)),
                    Read::Signed if (x as i64) < 0 => Fe(P - u128::from(x.wrapping_neg())),
                    Read::Signed => Fe(u128::from(x)),
                    Read::Low32 => Fe(u128::from(x as u32)),
                };
                acc.add(limb.mul(Fe(1 << OFFSET[l])))
            })
        })
    }

    /// Asserts every limb (read as `read`) is in `[0, bound[l]]`.
    fn assert_within(limbs: &[[u64; 4]; 5], read: Read, bound: &[u64; 5], what: &str) {
        for (l, lanes) in limbs.iter().enumerate() {
            for (i, &x) in lanes.iter().enumerate() {
                let x = match read {
                    Read::Low32 => u64::from(x as u32),
                    _ => x,
                };
                assert!(
                    x <= bound[l],
                    "{what}: limb {l} lane {i} = {x:#x} > {:#x}",
                    bound[l]
                );
            }
        }
    }

    /// `W` with the portable field.
    fn hadamard_reference(v: [Fe; 4]) -> [Fe; 4] {
        let [x, y, z, t] = v;
        [
            x.add(y).add(z).add(t),
            x.sub(y).add(z).sub(t),
            x.add(y).sub(z).sub(t),
            x.sub(y).sub(z).add(t),
        ]
    }

    fn times(a: [Fe; 4], b: [Fe; 4]) -> [Fe; 4] {
        core::array::from_fn(|i| a[i].mul(b[i]))
    }

    /// Whether `a_i·b_j` lands at twice the weight of limb `(i + j) mod 5`.
    fn doubled(i: usize, j: usize) -> bool {
        let wrap = if i + j >= 5 { 127 } else { 0 };
        OFFSET[i] + OFFSET[j] > OFFSET[(i + j) % 5] + wrap
    }

    /// Upper bounds of every stage of the step, by interval arithmetic on
    /// nonnegative limbs (the table of the module docs).
    struct Bounds {
        state: [u64; 5],
        hadamard: [u64; 5],
        product: [u64; 5],
        carried: [u64; 5],
        /// The carried first products, the second `W`'s input.
        carried_product: [u64; 5],
        ch: [u64; 5],
        hadamard2: [u64; 5],
        squared: [u64; 5],
    }

    fn bounds() -> Bounds {
        fn carry(c: [u128; 5]) -> [u128; 5] {
            carry_in(c, &[0, 1, 2, 3, 4, 0])
        }
        // `carry_two`'s carries, each level's two in either order (they
        // touch different limbs).
        fn carry_two(c: [u128; 5]) -> [u128; 5] {
            carry_in(c, &[0, 3, 1, 4, 2, 0, 3])
        }
        fn carry_in(mut c: [u128; 5], order: &[usize]) -> [u128; 5] {
            for &l in order {
                let h = c[l] >> WIDTH[l];
                c[l] = c[l].min(u128::from(mask(l)));
                c[(l + 1) % 5] += h;
            }
            c
        }
        fn carry_parallel(c: [u128; 5]) -> [u128; 5] {
            core::array::from_fn(|l| {
                let k = (l + 4) % 5;
                c[l].min(u128::from(mask(l))) + (c[k] >> WIDTH[k])
            })
        }
        fn product(a: [u128; 5], b: [u128; 5]) -> [u128; 5] {
            core::array::from_fn(|k| {
                (0..5)
                    .map(|i| {
                        let j = (k + 5 - i) % 5;
                        (a[i] * b[j]) << u32::from(doubled(i, j))
                    })
                    .sum()
            })
        }
        /// The bound after `hadamard`, checking its bias covers the most
        /// negative output and every product operand (×4) fits 32 bits.
        fn hadamard(r: [u128; 5]) -> [u128; 5] {
            core::array::from_fn(|l| {
                let bias = u128::from(BIAS_HADAMARD[l]);
                assert!(bias >= 2 * r[l], "hadamard bias, limb {l}");
                let h = 4 * r[l] + bias;
                assert!(4 * h < 1 << 31, "operand of a square, limb {l}");
                h
            })
        }
        /// `c·x + bias` for the constants `cs`, checking the bias covers
        /// the negative ones and the operands fit `vpmuldq`.
        fn small(x: [u128; 5], cs: [i64; 4], bias: &[u64; 5]) -> [u128; 5] {
            let pos = cs.iter().map(|&c| c.max(0) as u128).max().unwrap_or(0);
            let neg = cs.iter().map(|&c| (-c).max(0) as u128).max().unwrap_or(0);
            core::array::from_fn(|l| {
                assert!(x[l] < 1 << 31, "vpmuldq operand, limb {l}");
                assert!(u128::from(bias[l]) >= neg * x[l], "bias, limb {l}");
                pos * x[l] + u128::from(bias[l])
            })
        }
        let fits = |v: [u128; 5], limit: u32, what: &str| {
            for (l, &x) in v.iter().enumerate() {
                assert!(x < 1 << limit, "{what}: limb {l} = {x:#x} ≥ 2^{limit}");
            }
            v.map(|x| x as u64)
        };
        let canonical: [u128; 5] = core::array::from_fn(|l| u128::from(mask(l)));
        let mut state = canonical;
        loop {
            let h = hadamard(state);
            let ch = carry_parallel(small(h, super::super::CH, &BIAS_CH));
            let p = product(h, ch);
            let c = carry_two(p);
            let h2 = hadamard(c);
            let s = product(h2, h2);
            let e = carry_two(s);
            let r1 = carry(product(e, canonical));
            let r0 = carry_parallel(small(e, super::super::CD, &BIAS_CD));
            let next = core::array::from_fn(|l| state[l].max(r0[l]).max(r1[l]));
            if next == state {
                return Bounds {
                    state: fits(state, 32, "state"),
                    hadamard: fits(h, 31, "hadamard"),
                    product: fits(p, 63, "product"),
                    carried: fits(core::array::from_fn(|l| c[l].max(e[l])), 31, "carried"),
                    carried_product: fits(c, 31, "carried"),
                    ch: fits(ch, 31, "ch"),
                    hadamard2: fits(h2, 31, "hadamard"),
                    squared: fits(s, 63, "square"),
                };
            }
            state = next;
        }
    }

    /// The table of the module docs holds: every bias covers what it must,
    /// every `vpmuludq` operand fits 32 bits (quadrupled ones included),
    /// every sum of products stays below 2^63, and the state is a fixed
    /// point; `to_fe`'s precondition holds for the final state.
    #[test]
    fn bounds_hold() {
        let b = bounds();
        let over = |v: [u64; 5]| -> [i128; 5] {
            core::array::from_fn(|l| i128::from(v[l]) - i128::from(mask(l)))
        };
        println!("state: 2^w − 1 + {:?}", over(b.state));
        println!(
            "hadamard: {:?}",
            b.hadamard.map(|x| f64::from(x as u32).log2())
        );
        println!("products: {:?}", b.product.map(|x| (x as f64).log2()));
        println!("carried: 2^w − 1 + {:?}", over(b.carried));
        println!("after ⊙ CH: 2^w − 1 + {:?}", over(b.ch));
        println!("squares: {:?}", b.squared.map(|x| (x as f64).log2()));
        for (l, &w) in WIDTH.iter().enumerate() {
            assert!(b.state[l] <= mask(l) + 547);
            assert!(b.hadamard[l].max(b.hadamard2[l]) < (7 << w) + (1 << 14));
            assert!(b.product[l].max(b.squared[l]) < 1 << 60);
            assert!(b.carried[l] <= mask(l) + 345);
            assert!(b.ch[l] <= mask(l) + 23_638);
        }
        let top = (0..5).fold(0u128, |acc, l| acc + (u128::from(b.state[l]) << OFFSET[l]));
        assert!(top >> 127 <= 1, "to_fe: Σ limbs < 2^128");
        // The explicit formula of `mul` is the table `doubled` describes.
        let twice: std::vec::Vec<(usize, usize)> = (0..5)
            .flat_map(|i| (0..5).map(move |j| (i, j)))
            .filter(|&(i, j)| doubled(i, j))
            .collect();
        assert_eq!(
            twice,
            [
                (1, 1),
                (1, 3),
                (1, 4),
                (2, 3),
                (3, 1),
                (3, 2),
                (3, 3),
                (3, 4),
                (4, 1),
                (4, 3)
            ]
        );
    }

    #[test]
    fn conversions_round_trip() {
        let Some((t, b, mut rng)) = setup(1) else {
            return;
        };
        for _ in 0..1000 {
            let x = [
                rng.fe_or_edge(),
                rng.fe_or_edge(),
                rng.fe_or_edge(),
                rng.fe_or_edge(),
            ];
            assert_eq!(Fe4::from_fe(t, x).to_fe(), x);
        }
        // p itself (every limb at its mask) and the largest state.
        let p: [[u64; 4]; 5] = core::array::from_fn(|l| [mask(l); 4]);
        assert_eq!(fe4(t, &p).to_fe(), [Fe(0); 4]);
        for _ in 0..1000 {
            let limbs = rng.limbs(&b.state);
            assert_eq!(fe4(t, &limbs).to_fe(), value(&limbs, Read::Unsigned));
        }
    }

    #[test]
    fn hadamard_matches_portable() {
        let Some((t, b, mut rng)) = setup(2) else {
            return;
        };
        for input in [b.state, b.carried_product] {
            for _ in 0..2000 {
                let limbs = rng.limbs(&input);
                let out = raw(&fe4(t, &limbs).pack().hadamard());
                let bound = if input == b.state {
                    b.hadamard
                } else {
                    b.hadamard2
                };
                assert_within(&out, Read::Low32, &bound, "hadamard");
                let want = hadamard_reference(value(&limbs, Read::Unsigned));
                assert_eq!(value(&out, Read::Low32), want, "{limbs:x?}");
            }
        }
    }

    /// Products of Hadamard outputs (garbage in the high halves, as
    /// `hadamard` leaves them), carried.
    #[test]
    fn products_match_portable() {
        let Some((t, b, mut rng)) = setup(3) else {
            return;
        };
        for _ in 0..3000 {
            let garbage = |limbs: [[u64; 4]; 5], rng: &mut Rng| {
                limbs.map(|lane| lane.map(|x| x | (rng.next_u64() << 32)))
            };
            let x = rng.limbs(&b.hadamard2);
            let x = garbage(x, &mut rng);
            let y = rng.limbs(&b.hadamard2);
            let y = garbage(y, &mut rng);
            let (fx, fy) = (fe4(t, &x), fe4(t, &y));
            let (vx, vy) = (value(&x, Read::Low32), value(&y, Read::Low32));
            let prod = fx.mul(&fy, &fy.double());
            assert_within(&raw(&prod), Read::Unsigned, &b.squared, "product");
            let prod = raw(&prod.carry());
            assert_within(&prod, Read::Unsigned, &b.carried, "carried product");
            assert_eq!(value(&prod, Read::Unsigned), times(vx, vy), "{x:x?} {y:x?}");
            let sq = fx.square();
            assert_within(&raw(&sq), Read::Unsigned, &b.squared, "square");
            let sq = raw(&sq.carry_two());
            assert_within(&sq, Read::Unsigned, &b.carried, "carried square");
            assert_eq!(value(&sq, Read::Unsigned), times(vx, vx), "{x:x?}");
            // The first products: a Hadamard output (`B` or `A`) by
            // `X = A ⊙ σ(CH)`, carried.
            let a = garbage(rng.limbs(&b.hadamard), &mut rng);
            let xc = rng.limbs(&b.ch);
            let fxc = fe4(t, &xc);
            let prod = fe4(t, &a).mul(&fxc, &fxc.double());
            assert_within(&raw(&prod), Read::Unsigned, &b.product, "product by X");
            let prod = raw(&prod.carry_two());
            assert_within(&prod, Read::Unsigned, &b.carried, "carried product by X");
            let want = times(value(&a, Read::Low32), value(&xc, Read::Unsigned));
            assert_eq!(value(&prod, Read::Unsigned), want, "{a:x?} {xc:x?}");
        }
    }

    /// Products by `(1, u1, u2, u3)` (canonical) of carried squares.
    #[test]
    fn products_by_the_difference_match_portable() {
        let Some((t, b, mut rng)) = setup(4) else {
            return;
        };
        for _ in 0..3000 {
            let x = rng.limbs(&b.carried);
            let d = [
                Fe::ONE,
                rng.fe_or_edge(),
                rng.fe_or_edge(),
                rng.fe_or_edge(),
            ];
            let fd = Fe4::from_fe(t, d);
            let out = raw(&fe4(t, &x).mul(&fd, &fd.double()).carry());
            assert_within(&out, Read::Unsigned, &b.state, "⊙ diff");
            assert_eq!(
                value(&out, Read::Unsigned),
                times(value(&x, Read::Unsigned), d)
            );
        }
    }

    /// `⊙ σ(CH)` on Hadamard outputs and `⊙ CD` on carried inputs, with
    /// their biases and carries.
    #[test]
    fn constant_products_match_portable() {
        let Some((t, b, mut rng)) = setup(5) else {
            return;
        };
        let [c0, c1, c2, c3] = super::super::CH;
        for (cs, bias, input, bound) in [
            ([c0, c2, c1, c3], &BIAS_CH, b.hadamard, b.ch),
            (super::super::CD, &BIAS_CD, b.carried, b.state),
        ] {
            let c = Lanes::new(t, cs.map(|c| c as u64));
            for _ in 0..3000 {
                let x = rng.limbs(&input);
                let product = fe4(t, &x).mul_small(c);
                assert_eq!(
                    value(&raw(&product), Read::Signed),
                    times(value(&x, Read::Unsigned), cs.map(Fe::small))
                );
                let out = raw(&product.add_bias(bias).carry_parallel());
                assert_within(&out, Read::Unsigned, &bound, "constant product");
                let want = times(value(&x, Read::Unsigned), cs.map(Fe::small));
                assert_eq!(value(&out, Read::Unsigned), want, "{x:x?}");
            }
        }
    }

    /// Both carries on limbs up to their precondition, 2^63.
    #[test]
    fn carries_keep_the_value() {
        let Some((t, _, mut rng)) = setup(6) else {
            return;
        };
        let top = [(1 << 63) - 1; 5];
        for _ in 0..3000 {
            let x = rng.limbs(&top);
            let seq = raw(&fe4(t, &x).carry());
            let bound = [mask(0), mask(1) + (1 << 12) + 1, mask(2), mask(3), mask(4)];
            assert_within(&seq, Read::Unsigned, &bound, "carry");
            assert_eq!(value(&seq, Read::Unsigned), value(&x, Read::Unsigned));
            let two = raw(&fe4(t, &x).carry_two());
            let bound = [mask(0), bound[1], mask(2), mask(3), mask(4) + (1 << 12) + 1];
            assert_within(&two, Read::Unsigned, &bound, "carry_two");
            assert_eq!(value(&two, Read::Unsigned), value(&x, Read::Unsigned));
            let par = raw(&fe4(t, &x).carry_parallel());
            assert_eq!(value(&par, Read::Unsigned), value(&x, Read::Unsigned));
        }
    }

    #[test]
    fn swap_is_by_mask() {
        let Some((t, _, mut rng)) = setup(7) else {
            return;
        };
        let x: [Fe; 4] = core::array::from_fn(|_| rng.fe_or_edge());
        let y: [Fe; 4] = core::array::from_fn(|_| rng.fe_or_edge());
        let packed = |p: &Packed| p.0.map(Lanes::to_array);
        for (bit, want) in [(0u64, (x, y)), (1, (y, x))] {
            let mask = Lanes::splat(t, bit.wrapping_neg());
            let (mut a, mut b) = (Fe4::from_fe(t, x), Fe4::from_fe(t, y));
            Fe4::cswap(&mut a, &mut b, mask);
            assert_eq!((a.to_fe(), b.to_fe()), want);
            let (mut a, mut b) = (Fe4::from_fe(t, x).pack(), Fe4::from_fe(t, y).pack());
            Packed::cswap(&mut a, &mut b, mask);
            let want = (
                Fe4::from_fe(t, want.0).pack(),
                Fe4::from_fe(t, want.1).pack(),
            );
            assert_eq!((packed(&a), packed(&b)), (packed(&want.0), packed(&want.1)));
        }
    }
}
