//! Target features: `neon` — capability token [`cpu::Neon`]; the backend
//! [`Neon`].
//!
//! The ladder of [the module docs](super) on AArch64 Advanced SIMD, with
//! the arithmetic of `avx2.rs` (the same radix, limb formulas, biases and
//! so the same bounds table) in 128-bit registers. The 4-way structure of
//! the step and the 5-limb, radix-2^25.5 unsigned representation with
//! `32 × 32 → 64`-bit multiply-accumulates are §5 of Bernstein,
//! Chuengsatiansup, Lange & Schwabe, *Kummer strikes back: new DH speed
//! records* (ASIACRYPT 2014, ePrint 2014/134), written for the ARMv7
//! Cortex-A8.
//!
//! # Representation
//!
//! An element is five limbs at bit offsets `OFFSET = [0, 26, 51, 77, 102]`
//! (widths `[26, 25, 26, 25, 25]`), as in `avx2.rs`, whose module docs give
//! the product formula (some terms doubled by the mixed radix) and the
//! bounds of every stage. Two forms:
//!
//! - **narrow** ([`Fe4`]): five `uint32x4_t`, register `l` holding limb `l`
//!   of the four coordinates `(x, y, z, t)`, one 32-bit lane each (the
//!   state, Hadamard outputs, operands of every product);
//! - **wide** ([`Wide`]): five pairs of `uint64x2_t`, limb `l` of `(x, y)`
//!   and of `(z, t)` (sums of products, before their carry).
//!
//! A product limb is `umull` on the low halves (`x`, `y`) and `umull2` on
//! the high halves (`z`, `t`) of two narrow registers, then `umlal` /
//! `umlal2` for the other four terms: 10 instructions per output limb, 50
//! per product, 30 per square, no permutation. The paper arranges the four
//! elements as `(x0, y0, x1, y1); (x2, y2, x3, y3); (x4, y4, z4, t4); (z0,
//! t0, z1, t1); (z2, t2, z3, t3)` ("designed to minimize permutations in M,
//! S, and H … The Cortex-A8 multiplications take two pairs of inputs at a
//! time, rather than four as on Sandy Bridge, so there is little
//! motivation to put (x0, y0, z0, t0) into a vector"). On AArch64 the
//! `umull2`/`umlal2` forms read the upper pair of a q register directly, so
//! `(x_l, y_l, z_l, t_l)` per register costs the products nothing and
//! keeps the Hadamard transform inside one register per limb.
//!
//! A carry is `usra` (shift right and accumulate into the next limb) and
//! `and`: 2 instructions per 64-bit register, 4 per limb (the paper's 3
//! are shift, add, and). After a product's carry chain the limbs fit 32
//! bits and one `uzp1` per limb narrows the two halves back into one
//! register. A product by the small constants of `σ(CH)` and `CD` is
//! `smull`/`smull2` per limb (signed, lane 0's constant is negative), a
//! bias of a multiple of p and a parallel carry, as in `avx2.rs`.
//!
//! # The Hadamard transform and the swap
//!
//! `W(x, y, z, t) = (x+y+z+t, x−y+z−t, x+y−z−t, x−y−z+t)` (`avx2.rs`: `H`
//! with coordinates 1 and 2 exchanged; the ladder multiplies by `σ(CH)`)
//! on a narrow register `v`, 32-bit wrapping, after `3p`'s limb is added to
//! lane 0: `rev64` gives `(y, x, t, z)` and `mla` by `(1, −1, 1, −1)`
//! gives `(x+y, x−y, z+t, z−t)`; `ext` by 8 bytes gives the halves
//! exchanged and `mla` by `(1, 1, −1, −1)` the second level — 5
//! instructions a limb, 25 a transform. The two transforms after `⊙ σ(CH)`
//! skip the `add`: the `3p` is folded into that product's bias
//! ([`BIAS_CH_W`]: lane `x` of wide limb `l` gets `3·mask(l + 1)·2^w` more,
//! which the parallel carry hands on exactly as `3·mask(l + 1)` into limb
//! `l + 1`), so they cost 4 a limb. The conditional swap is `bsl` under a
//! mask of all ones or zeros (2 instructions a limb).
//!
//! # Cost
//!
//! Per step (one ladder): 160 `umull`-class multiplications (two general
//! products of 25, three squares of 15, two constant products of 5 — each
//! ×2 halves), 4 × 25 for the transforms, five carry chains of 24 and three
//! parallel carries of 20 instructions, 10 for the swap, 40 narrowing and
//! the doubles. The loop invariants (`σ(CH)`, `CD`, the difference and its
//! double) pass through an empty `asm!` each step ([`v::opaque`]): else
//! LLVM hoists their high halves out of the loop as 64-bit values of their
//! own and pays an `ext` of the other operand for each `umull2` (20 a
//! step, and 36 more stack accesses). The measured dynamic count is in
//! `docs/notes/kummer.md`.
//!
//! Constant time: the only branch is the loop's; the swap mask comes from
//! the scalar bit by arithmetic; no address depends on a secret; `umull`,
//! `mla`, `bsl` have data-independent timing.
//!
//! The comb (key generation, `fixed_base.rs`) keeps its scalar additions
//! and reads its table rows with a NEON scan (`Scan for cpu::Neon`: every
//! entry loaded and kept under a `cmeq` mask by `bit`, about 8
//! instructions an entry against 24 for the portable scan).
//!
//! # Rejected
//!
//! - The paper's mixed layout (two limbs of two coordinates per register):
//!   made for ARMv7's d-register halves; with `umull2` it only adds
//!   permutations to the transform.
//! - Negation in the transform by `rev64`/`add`/`sub`/`trn1` (8 a limb):
//!   `mla` by ±1 does a level in 2.
//! - The pair's two steps in one loop (as `avx2.rs`): 11 % more
//!   instructions executed than two ladders (spills: 32 q registers).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// limb and lane indices are constants or loop counters over fixed arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::field::{Fe, P};
use super::fixed_base::{self, PART, Row, Scan};
use crate::cpu;
use core::arch::aarch64::{
    int32x2_t, int32x4_t, uint32x4_t, uint64x2_t, vaddq_u32, vaddq_u64, vandq_u64, vbslq_u32,
    vbslq_u64, vceqq_u64, vdupq_n_u32, vdupq_n_u64, vextq_u32, vget_low_s32, vget_low_u32,
    vld1q_u32, vld1q_u64, vmlal_high_u32, vmlal_u32, vmlaq_u32, vmull_high_s32, vmull_high_u32,
    vmull_s32, vmull_u32, vreinterpretq_s32_u32, vreinterpretq_u32_s32, vreinterpretq_u32_u64,
    vreinterpretq_u64_s64, vrev64q_u32, vsraq_n_u64, vst1q_u32, vst1q_u64, vuzp1q_u32,
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

/// `m·p` in limbs: limb `l` is `m·(2^WIDTH[l] − 1)`.
const fn p_multiple(m: u64) -> [u64; 5] {
    [
        m * mask(0),
        m * mask(1),
        m * mask(2),
        m * mask(3),
        m * mask(4),
    ]
}

/// Added to `x` before `W` (as in `avx2.rs`).
const BIAS_HADAMARD: [u64; 5] = p_multiple(3);
/// Added to `X ⊙ σ(CH)` before its carry.
const BIAS_CH: [u64; 5] = p_multiple(1024);
/// Added to `A ⊙ CD` before its carry.
const BIAS_CD: [u64; 5] = p_multiple(128);

/// [`BIAS_CH`] per lane `(x, y, z, t)` with the next transform's `3p` on
/// `x` folded in: lane `x` of wide limb `l` also gets `3·mask(l + 1)·
/// 2^WIDTH[l]`, which the parallel carry hands on exactly as `3·mask(l +
/// 1)` into limb `l + 1` (limb 4's into limb 0: `2^127 ≡ 1`), while limb
/// `l`'s own bits are unchanged. So `X ⊙ σ(CH)` carried with this bias is,
/// limb for limb, the carried product plus `(3p, 0, 0, 0)`: the input
/// [`Fe4::hadamard_biased`] expects, without its 5 `add`.
const BIAS_CH_W: [[u64; 4]; 5] = {
    let mut out = [[0; 4]; 5];
    let mut l = 0;
    while l < 5 {
        let b = BIAS_CH[l];
        out[l] = [b + ((3 * mask((l + 1) % 5)) << WIDTH[l]), b, b, b];
        l += 1;
    }
    out
};

/// Every lane's bias the same: `[b; 4]` per limb.
const fn lanes(bias: [u64; 5]) -> [[u64; 4]; 5] {
    [
        [bias[0]; 4],
        [bias[1]; 4],
        [bias[2]; 4],
        [bias[3]; 4],
        [bias[4]; 4],
    ]
}

/// One-instruction wrappers of the NEON intrinsics used.
///
/// Each calls a `#[target_feature(enable = "neon")]` intrinsic. They are
/// reached only from the `#[target_feature(enable = "neon")]` entry points
/// of [`tf`], which only [`Neon`] (holding the [`cpu::Neon`] token) calls,
/// and they inline there (`#[inline(always)]`, no closures).
mod v {
    use super::*;

    /// Safe wrappers: `fn name(args) -> T = intrinsic;`.
    macro_rules! wrap {
        ($($(#[$doc:meta])* fn $name:ident($($a:ident: $t:ty),*) -> $r:ty = $f:expr;)*) => {$(
            $(#[$doc])*
            #[inline(always)]
            pub(super) fn $name($($a: $t),*) -> $r {
                // SAFETY: NEON is present: these run only inside the
                // entry points of `tf`, reached through the `cpu::Neon`
                // token (module docs of `v`).
                unsafe { $f($($a),*) }
            }
        )*};
    }

    wrap! {
        /// `add` (32-bit lanes).
        fn add32(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t = vaddq_u32;
        /// `add` (64-bit lanes).
        fn add64(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t = vaddq_u64;
        /// `and` (64-bit lanes).
        fn and64(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t = vandq_u64;
        /// `bsl`: `b` where `m` is set, else `c`.
        fn bsl(m: uint32x4_t, b: uint32x4_t, c: uint32x4_t) -> uint32x4_t = vbslq_u32;
        /// `dup`.
        fn splat32(x: u32) -> uint32x4_t = vdupq_n_u32;
        /// `dup`.
        fn splat64(x: u64) -> uint64x2_t = vdupq_n_u64;
        /// `ext #8`: the 64-bit halves exchanged.
        fn swap_halves(a: uint32x4_t) -> uint32x4_t = ext8;
        /// `rev64`: the 32-bit lanes of each 64-bit half exchanged.
        fn swap_pairs(a: uint32x4_t) -> uint32x4_t = vrev64q_u32;
        /// `mla`: `a + b·c` (32-bit lanes, wrapping).
        fn mla32(a: uint32x4_t, b: uint32x4_t, c: uint32x4_t) -> uint32x4_t = vmlaq_u32;
        /// `umull`: the low two lanes' 64-bit products.
        fn mul_lo(a: uint32x4_t, b: uint32x4_t) -> uint64x2_t = umull_lo;
        /// `umull2`: the high two lanes' 64-bit products.
        fn mul_hi(a: uint32x4_t, b: uint32x4_t) -> uint64x2_t = vmull_high_u32;
        /// `umlal`: `acc` plus the low two lanes' products.
        fn mla_lo(acc: uint64x2_t, a: uint32x4_t, b: uint32x4_t) -> uint64x2_t = umlal_lo;
        /// `umlal2`: `acc` plus the high two lanes' products.
        fn mla_hi(acc: uint64x2_t, a: uint32x4_t, b: uint32x4_t) -> uint64x2_t = vmlal_high_u32;
        /// `smull`: the low two lanes' signed products (two's complement).
        fn smul_lo(a: uint32x4_t, c: int32x4_t) -> uint64x2_t = smull_lo;
        /// `smull2`: the high two lanes' signed products.
        fn smul_hi(a: uint32x4_t, c: int32x4_t) -> uint64x2_t = smull_hi;
        /// `uzp1`: the low 32 bits of each 64-bit lane of `a` then `b`.
        fn narrow(a: uint64x2_t, b: uint64x2_t) -> uint32x4_t = uzp1;
    }

    /// `usra`: `acc + (a >> WIDTH[l])`.
    #[inline(always)]
    pub(super) fn add_shr(acc: uint64x2_t, a: uint64x2_t, l: usize) -> uint64x2_t {
        // SAFETY: as for `wrap!`.
        unsafe {
            if WIDTH[l] == 26 {
                vsraq_n_u64::<26>(acc, a)
            } else {
                vsraq_n_u64::<25>(acc, a)
            }
        }
    }

    /// Lane `i` is `x[i]` (64-bit lanes).
    #[inline(always)]
    pub(super) fn new64(x: [u64; 2]) -> uint64x2_t {
        // SAFETY: as for `wrap!`; the load reads the 16 bytes of `x`.
        unsafe { vld1q_u64(x.as_ptr()) }
    }

    /// `c`, hidden from the optimiser (an empty `asm!` with the register
    /// as input and output, kept in the loop: not `pure`): the high half
    /// of a loop invariant (`σ(CH)`, `CD`, the difference and its double)
    /// is otherwise hoisted out of the loop as a 64-bit value of its own
    /// (or loaded as a `d` register from the stack), and each product on
    /// it takes an `ext` of the other operand and `umull` instead of one
    /// `umull2` (20 `ext` a step).
    #[inline(always)]
    pub(super) fn opaque(mut c: uint32x4_t) -> uint32x4_t {
        // SAFETY: an empty instruction string: no effect but that the
        // register's contents are unknown to the optimiser.
        unsafe {
            core::arch::asm!("/* {c:v} */", c = inout(vreg) c,
                options(nomem, nostack, preserves_flags));
        }
        c
    }

    /// [`opaque`] on signed lanes.
    #[inline(always)]
    pub(super) fn opaque_s(c: int32x4_t) -> int32x4_t {
        // SAFETY: as for `wrap!` (reinterpretations).
        unsafe { vreinterpretq_s32_u32(opaque(vreinterpretq_u32_s32(c))) }
    }

    /// Lane `i` is `x[i]`.
    #[inline(always)]
    pub(super) fn new32(x: [u32; 4]) -> uint32x4_t {
        // SAFETY: as for `wrap!`; the load reads the 16 bytes of `x`.
        unsafe { vld1q_u32(x.as_ptr()) }
    }

    /// The four lanes.
    #[inline(always)]
    pub(super) fn to_array(a: uint32x4_t) -> [u32; 4] {
        let mut out = [0u32; 4];
        // SAFETY: as for `wrap!`; the store writes the 16 bytes of `out`.
        unsafe { vst1q_u32(out.as_mut_ptr(), a) };
        out
    }

    #[inline(always)]
    unsafe fn ext8(a: uint32x4_t) -> uint32x4_t {
        // SAFETY: the caller's (NEON present).
        unsafe { vextq_u32::<2>(a, a) }
    }
    #[inline(always)]
    unsafe fn umull_lo(a: uint32x4_t, b: uint32x4_t) -> uint64x2_t {
        // SAFETY: the caller's.
        unsafe { vmull_u32(vget_low_u32(a), vget_low_u32(b)) }
    }
    #[inline(always)]
    unsafe fn umlal_lo(acc: uint64x2_t, a: uint32x4_t, b: uint32x4_t) -> uint64x2_t {
        // SAFETY: the caller's.
        unsafe { vmlal_u32(acc, vget_low_u32(a), vget_low_u32(b)) }
    }
    #[inline(always)]
    unsafe fn smull_lo(a: uint32x4_t, c: int32x4_t) -> uint64x2_t {
        // SAFETY: the caller's.
        unsafe {
            let a: int32x2_t = vget_low_s32(vreinterpretq_s32_u32(a));
            vreinterpretq_u64_s64(vmull_s32(a, vget_low_s32(c)))
        }
    }
    #[inline(always)]
    unsafe fn smull_hi(a: uint32x4_t, c: int32x4_t) -> uint64x2_t {
        // SAFETY: the caller's.
        unsafe { vreinterpretq_u64_s64(vmull_high_s32(vreinterpretq_s32_u32(a), c)) }
    }
    #[inline(always)]
    unsafe fn uzp1(a: uint64x2_t, b: uint64x2_t) -> uint32x4_t {
        // SAFETY: the caller's.
        unsafe { vuzp1q_u32(vreinterpretq_u32_u64(a), vreinterpretq_u32_u64(b)) }
    }
}

/// Four field elements, narrow: register `l` is limb `l` of `(x, y, z,
/// t)`, 32 bits a lane.
#[derive(Clone, Copy)]
struct Fe4([uint32x4_t; 5]);

/// Four field elements, wide: `[l][0]` is limb `l` of `(x, y)`, `[l][1]`
/// of `(z, t)`, 64 bits a lane.
#[derive(Clone, Copy)]
struct Wide([[uint64x2_t; 2]; 5]);

impl Fe4 {
    /// Canonical elements, one per lane.
    #[inline(always)]
    fn from_fe(x: [Fe; 4]) -> Fe4 {
        let mut out = [v::splat32(0); 5];
        for (l, limb) in out.iter_mut().enumerate() {
            let part = |i: usize| ((x[i].0 >> OFFSET[l]) as u64 & mask(l)) as u32;
            *limb = v::new32([part(0), part(1), part(2), part(3)]);
        }
        Fe4(out)
    }

    /// The fully reduced elements (limbs with `Σ limb_l·2^OFFSET[l] <
    /// 2^128`, true for every state of the table in `avx2.rs`).
    #[inline(always)]
    fn to_fe(self) -> [Fe; 4] {
        let mut limbs = [[0u32; 4]; 5];
        for (limb, &r) in limbs.iter_mut().zip(&self.0) {
            *limb = v::to_array(r);
        }
        core::array::from_fn(|i| {
            let v = (0..5).fold(0u128, |acc, l| acc + (u128::from(limbs[l][i]) << OFFSET[l]));
            let r = (v & P) + (v >> 127);
            let (d, borrow) = r.overflowing_sub(P);
            let keep = u128::from(borrow).wrapping_neg();
            Fe((r & keep) | (d & !keep))
        })
    }

    /// `2·self`, limb-wise (32-bit).
    #[inline(always)]
    fn double(self) -> Fe4 {
        let mut out = self.0;
        for x in out.iter_mut() {
            *x = v::add32(*x, *x);
        }
        Fe4(out)
    }

    /// Exchanges `a` and `b` where `m` is all ones: 10 `bsl`.
    #[inline(always)]
    fn cswap(a: &mut Fe4, b: &mut Fe4, m: uint32x4_t) {
        for l in 0..5 {
            let (x, y) = (a.0[l], b.0[l]);
            a.0[l] = v::bsl(m, y, x);
            b.0[l] = v::bsl(m, x, y);
        }
    }

    /// `W(self + (3p, 0, 0, 0)) = W(self) + 3p` in 32-bit lanes: per limb
    /// `add`, `rev64`, `mla`, `ext`, `mla`.
    ///
    /// Preconditions and postconditions: those of `avx2.rs`'s
    /// `Packed::hadamard` (limbs `≤ 2^w + 3523` in; `[0, 7·2^w + 2^14)`
    /// out).
    #[inline(always)]
    fn hadamard(self) -> Fe4 {
        let mut x = self.0;
        for (l, x) in x.iter_mut().enumerate() {
            *x = v::add32(*x, v::new32([BIAS_HADAMARD[l] as u32, 0, 0, 0]));
        }
        Fe4(x).hadamard_biased()
    }

    /// `W(self)` of an input whose lane `x` already holds the `3p` of
    /// [`Fe4::hadamard`] (limbs `≤ 2^w + 3523` in `y`, `z`, `t`, and `≤
    /// 2^w + 3523 + 3·mask(l)` in `x`): `rev64`, `mla`, `ext`, `mla` a
    /// limb.
    #[inline(always)]
    fn hadamard_biased(self) -> Fe4 {
        let pairs = v::new32([1, u32::MAX, 1, u32::MAX]);
        let halves = v::new32([1, 1, u32::MAX, u32::MAX]);
        let mut out = self.0;
        for x0 in out.iter_mut() {
            // (y, x, t, z) + (x, −y, z, −t)
            let s = v::mla32(v::swap_pairs(*x0), *x0, pairs);
            // (s2, s3, s0, s1) + (s0, s1, −s2, −s3)
            *x0 = v::mla32(v::swap_halves(s), s, halves);
        }
        Fe4(out)
    }

    /// The uncarried product `self ⊙ b` with `e = 2·b` (the formula of
    /// `avx2.rs`): 50 `umull`/`umlal`(`2`).
    #[inline(always)]
    fn mul(self, b: &Fe4, e: &Fe4) -> Wide {
        let [a0, a1, a2, a3, a4] = self.0;
        let [b0, b1, b2, b3, b4] = b.0;
        let [_, e1, e2, e3, e4] = e.0;
        Wide([
            sum([(a0, b0), (a1, e4), (a2, e3), (a3, e2), (a4, e1)]),
            sum([(a0, b1), (a1, b0), (a2, b4), (a3, e3), (a4, b2)]),
            sum([(a0, b2), (a1, e1), (a2, b0), (a3, e4), (a4, e3)]),
            sum([(a0, b3), (a1, b2), (a2, b1), (a3, b0), (a4, b4)]),
            sum([(a0, b4), (a1, e3), (a2, b2), (a3, e1), (a4, b0)]),
        ])
    }

    /// The uncarried square: 30 `umull`/`umlal`(`2`) and 7 `add` for
    /// the doubled and quadrupled operands.
    #[inline(always)]
    fn square(self) -> Wide {
        let [a0, a1, a2, a3, a4] = self.0;
        let [d0, d1, d2, d3] = [
            v::add32(a0, a0),
            v::add32(a1, a1),
            v::add32(a2, a2),
            v::add32(a3, a3),
        ];
        let [q1, q2, q3] = [v::add32(d1, d1), v::add32(d2, d2), v::add32(d3, d3)];
        Wide([
            sum([(a0, a0), (q1, a4), (q2, a3)]),
            sum([(d0, a1), (d2, a4), (d3, a3)]),
            sum([(d0, a2), (d1, a1), (q3, a4)]),
            sum([(d0, a3), (d1, a2), (a4, a4)]),
            sum([(d0, a4), (q1, a3), (a2, a2)]),
        ])
    }

    /// Limb-wise signed product by small constants (one per lane) plus
    /// `bias` (limb `l`, lane `i`: `bias[l][i]`): 10 `smull`(`2`), 10
    /// `add` (or `mov` and `smlal`(`2`)).
    #[inline(always)]
    fn mul_small(self, c: int32x4_t, bias: &[[u64; 4]; 5]) -> Wide {
        let mut out = [[v::splat64(0); 2]; 5];
        for l in 0..5 {
            let [b0, b1, b2, b3] = bias[l];
            out[l] = [
                v::add64(v::smul_lo(self.0[l], c), v::new64([b0, b1])),
                v::add64(v::smul_hi(self.0[l], c), v::new64([b2, b3])),
            ];
        }
        Wide(out)
    }
}

/// `Σ a·b` over the `N` pairs, both halves: `umull` + `N − 1` `umlal`,
/// `umull2` + `N − 1` `umlal2` (`N` is 5 for products, 3 for squares).
#[inline(always)]
fn sum<const N: usize>(t: [(uint32x4_t, uint32x4_t); N]) -> [uint64x2_t; 2] {
    let (mut lo, mut hi) = (v::mul_lo(t[0].0, t[0].1), v::mul_hi(t[0].0, t[0].1));
    for &(a, b) in &t[1..] {
        lo = v::mla_lo(lo, a, b);
        hi = v::mla_hi(hi, a, b);
    }
    [lo, hi]
}

impl Wide {
    /// Carries limb `l` into limb `l + 1` (limb 4 into limb 0: 2^127 ≡ 1):
    /// `usra`, `and` on each half.
    #[inline(always)]
    fn carry_one(&mut self, l: usize) {
        let m = v::splat64(mask(l));
        let n = (l + 1) % 5;
        for h in 0..2 {
            self.0[n][h] = v::add_shr(self.0[n][h], self.0[l][h], l);
            self.0[l][h] = v::and64(self.0[l][h], m);
        }
    }

    /// The carry chain 0 → 1 → 2 → 3 → 4 → 0 → 1, narrowed: 24 + 5
    /// instructions. Pre- and postconditions: `avx2.rs`'s `Fe4::carry`
    /// (limbs `< 2^63` in; `< 2^WIDTH[l]`, limb 1 `≤ 2^25 + 2^12`, out).
    #[inline(always)]
    fn carry(mut self) -> Fe4 {
        for l in [0, 1, 2, 3, 4, 0] {
            self.carry_one(l);
        }
        self.narrow()
    }

    /// One parallel carry pass, narrowed: every limb masked, then the
    /// carry out of the limb below accumulated (`and`, `usra` per half;
    /// 20 + 5). Pre- and postconditions: `avx2.rs`'s
    /// `Fe4::carry_parallel`.
    #[inline(always)]
    fn carry_parallel(self) -> Fe4 {
        let mut out = self.0;
        for (l, x) in out.iter_mut().enumerate() {
            let m = v::splat64(mask(l));
            let k = (l + 4) % 5;
            for h in 0..2 {
                x[h] = v::add_shr(v::and64(x[h], m), self.0[k][h], k);
            }
        }
        Wide(out).narrow()
    }

    /// The low 32 bits of every lane, one `uzp1` a limb.
    #[inline(always)]
    fn narrow(self) -> Fe4 {
        let mut out = [v::splat32(0); 5];
        for (o, x) in out.iter_mut().zip(&self.0) {
            *o = v::narrow(x[0], x[1]);
        }
        Fe4(out)
    }
}

super::token_backend! {
    /// The NEON Kummer backend (see [`super::Backend`]): the ladder in q registers;
    /// the comb with the portable row scan.
    Neon(cpu::Neon) = "neon";

    /// The ladder of the module docs: exactly what the portable backend
    /// returns.
    #[inline]
    fn ladder(self, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        // SAFETY: the token proves NEON, all `tf::ladder` enables.
        unsafe { tf::ladder(self.0, scalar, u) }
    }

    /// Two ladders, one after the other (the shared inversion is the
    /// caller's): one loop running both steps spills more and executed
    /// 11 % more instructions than two ladders (`docs/notes/kummer.md`).
    #[inline]
    fn ladder_pair(self, scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
        let ([s0, s1], [u0, u1]) = (scalars, u);
        // SAFETY: the token proves NEON, all `tf::ladder` enables.
        unsafe { [tf::ladder(self.0, s0, u0), tf::ladder(self.0, s1, u1)] }
    }

    /// The fixed-base comb (`fixed_base.rs`) with the NEON row scan
    /// ([`Scan`] for [`cpu::Neon`]).
    fn comb(self, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
        fixed_base::comb(self.0, scalar)
    }
}

/// The comb's row reads (`fixed_base.rs`) in q registers: every entry is
/// loaded (four q registers, two `ldp`) and kept under a 64-bit lane mask
/// that is all ones for entry `idx` only (`cmeq` of the entry's number
/// against the broadcast index; the number counted up by an `add`), by
/// `bit`/`bsl`: about 8 instructions an entry against about 24 for the
/// portable scan's scalar `and`/`orr` of eight words. No branch or address
/// depends on `idx`. Read whole before each addition (not interleaved):
/// the comb's additions are scalar, and a row read between them only
/// adds register pressure there.
impl Scan for cpu::Neon {
    const INTERLEAVED: bool = false;
    fixed_base::plain_read!();

    #[inline(always)]
    fn scan(self, row: &Row, idx: u64) -> [u64; 8] {
        let mut acc = [0; 8];
        scan_entries(&mut acc, row, idx, 0);
        acc
    }

    #[inline(always)]
    fn scan_part(self, row: &Row, k: usize, read: &mut Self::Read) {
        if let Some(entries) = row.get(PART * k..PART * (k + 1)) {
            scan_entries(&mut read.0, entries, read.1, PART * k);
        }
    }
}

/// Entry `idx − first` of `entries` (numbered from `first`) where it is
/// among them, else `acc` unchanged (zero, in the comb): 2 `ldp`, `cmeq`,
/// `add` and 4 `bit` an entry.
#[inline(always)]
fn scan_entries(acc: &mut [u64; 8], entries: &[[u64; 8]], idx: u64, first: usize) {
    // SAFETY: NEON is part of the aarch64 target (the `cpu::Neon` token
    // that reaches here proves it at run time too); every load and store
    // reads or writes 16 bytes inside an `[u64; 8]`.
    unsafe {
        let want = v::splat64(idx);
        let one = v::splat64(1);
        let mut number = v::splat64(first as u64);
        let mut a: [uint64x2_t; 4] =
            core::array::from_fn(|q| v::new64([acc[2 * q], acc[2 * q + 1]]));
        for e in entries {
            let m = vceqq_u64(number, want);
            for (q, aq) in a.iter_mut().enumerate() {
                *aq = vbslq_u64(m, vld1q_u64(e[2 * q..].as_ptr()), *aq);
            }
            number = v::add64(number, one);
        }
        for (q, aq) in a.iter().enumerate() {
            vst1q_u64(acc[2 * q..].as_mut_ptr(), *aq);
        }
    }
}

/// The `#[target_feature]` entry points, reached only through [`Neon`].
mod tf {
    use super::*;

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
        fn new(u: [Fe; 3]) -> Ladder {
            let [u1, u2, u3] = u;
            let diff = Fe4::from_fe([Fe::ONE, u1, u2, u3]);
            Ladder {
                r0: Fe4::from_fe(super::super::NEUTRAL.map(Fe::small)),
                r1: Fe4::from_fe(crate::kummer::encoding::point_from_ratios(u)),
                diff: (diff, diff.double()),
                prev: 0,
            }
        }

        /// The portable ladder's step for scalar bit `bit` with `W` for
        /// `H` (`avx2.rs`); `ch` is `σ(CH)`, `cd` is `CD`.
        #[inline(always)]
        fn step(&mut self, bit: u8, ch: int32x4_t, cd: int32x4_t) {
            let (ch, cd) = (v::opaque_s(ch), v::opaque_s(cd));
            let swap = v::splat32(u32::from(bit ^ self.prev).wrapping_neg());
            self.prev = bit;
            Fe4::cswap(&mut self.r0, &mut self.r1, swap);
            let a = self.r0.hadamard();
            let b = self.r1.hadamard();
            let b = b.mul(&a, &a.double()).carry();
            let a = a.square().carry();
            let b = b.mul_small(ch, &BIAS_CH_W).carry_parallel();
            let a = a.mul_small(ch, &BIAS_CH_W).carry_parallel();
            let b = b.hadamard_biased().square().carry();
            let a = a.hadamard_biased().square().carry();
            let (mut diff, mut diff2) = self.diff;
            for l in 0..5 {
                diff.0[l] = v::opaque(diff.0[l]);
                // Limb 0 of the double is not read.
                if l > 0 {
                    diff2.0[l] = v::opaque(diff2.0[l]);
                }
            }
            self.r1 = b.mul(&diff, &diff2).carry();
            self.r0 = a.mul_small(cd, &lanes(BIAS_CD)).carry_parallel();
        }

        /// Undoes the last swap; the result, fully reduced.
        #[inline(always)]
        fn finish(mut self) -> [Fe; 4] {
            let swap = v::splat32(u32::from(self.prev).wrapping_neg());
            Fe4::cswap(&mut self.r0, &mut self.r1, swap);
            self.r0.to_fe()
        }
    }

    /// `σ(CH)` and `CD` as signed lanes.
    #[inline(always)]
    fn constants() -> (int32x4_t, int32x4_t) {
        let [c0, c1, c2, c3] = super::super::CH;
        let s = |c: [i64; 4]| {
            // SAFETY: as for `v`'s wrappers.
            unsafe { vreinterpretq_s32_u32(v::new32(c.map(|c| c as i32 as u32))) }
        };
        (s([c0, c2, c1, c3]), s(super::super::CD))
    }

    /// # Safety
    ///
    /// The CPU has NEON (the token is the proof).
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn ladder(_: cpu::Neon, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        let (ch, cd) = constants();
        let mut l = Ladder::new(u);
        for i in (0..251).rev() {
            l.step(crate::kummer::encoding::scalar_bit(scalar, i), ch, cd);
        }
        l.finish()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::test_rng::Rng;
    use super::*;

    /// The elements of raw narrow limbs, mod p.
    fn value(limbs: &[[u32; 4]; 5]) -> [Fe; 4] {
        core::array::from_fn(|i| {
            (0..5).fold(Fe(0), |acc, l| {
                acc.add(Fe(u128::from(limbs[l][i])).mul(Fe(1 << OFFSET[l])))
            })
        })
    }

    fn raw(x: &Fe4) -> [[u32; 4]; 5] {
        core::array::from_fn(|l| v::to_array(x.0[l]))
    }

    fn fe4(limbs: &[[u32; 4]; 5]) -> Fe4 {
        Fe4(core::array::from_fn(|l| v::new32(limbs[l])))
    }

    /// Limbs up to `bound` (at it one time in three).
    fn limbs(rng: &mut Rng, bound: [u64; 5]) -> [[u32; 4]; 5] {
        core::array::from_fn(|l| {
            core::array::from_fn(|_| match rng.below(3) {
                0 => bound[l] as u32,
                _ => (rng.next_u64() % (bound[l] + 1)) as u32,
            })
        })
    }

    fn times(a: [Fe; 4], b: [Fe; 4]) -> [Fe; 4] {
        core::array::from_fn(|i| a[i].mul(b[i]))
    }

    /// The NEON row scan against the portable one: every entry of a random
    /// row, whole and by parts, and an index past the row (nothing kept).
    #[test]
    fn scan_matches_portable() {
        let Some(t) = cpu::Neon::get() else {
            std::println!("skipped: no NEON (or FIELDWORK_MAX_ISA)");
            return;
        };
        let mut rng = Rng::new(0x7363_616e);
        let row: Row = core::array::from_fn(|_| core::array::from_fn(|_| rng.next_u64()));
        for idx in 0..=row.len() as u64 {
            let want = fixed_base::PortableScan.scan(&row, idx);
            assert_eq!(t.scan(&row, idx), want, "entry {idx}");
            let mut read = t.begin(idx);
            for k in 0..row.len() / PART {
                t.scan_part(&row, k, &mut read);
            }
            assert_eq!(t.end(read), want, "entry {idx} by parts");
        }
    }

    /// The operations against the portable field at the bounds of
    /// `avx2.rs`'s table: the transform (against `W`), products, squares,
    /// constant products and the swap.
    #[test]
    fn operations_match_portable() {
        if cpu::Neon::get().is_none() {
            std::println!("skipped: no NEON (or FIELDWORK_MAX_ISA)");
            return;
        }
        let mut rng = Rng::new(0x6e65_6f6e);
        let state: [u64; 5] = core::array::from_fn(|l| mask(l) + 3523);
        let had: [u64; 5] = core::array::from_fn(|l| (7 << WIDTH[l]) + (1 << 14) - 1);
        let carried: [u64; 5] = core::array::from_fn(|l| mask(l) + 296);
        let [c0, c1, c2, c3] = super::super::CH;
        let sch = [c0, c2, c1, c3];
        // SAFETY: NEON checked above.
        let (ch, cd) = unsafe {
            (
                vreinterpretq_s32_u32(v::new32(sch.map(|c| c as i32 as u32))),
                vreinterpretq_s32_u32(v::new32(super::super::CD.map(|c| c as i32 as u32))),
            )
        };
        for _ in 0..2000 {
            let x = limbs(&mut rng, state);
            let [a, b, c, d] = value(&x);
            let h = raw(&fe4(&x).hadamard());
            let w = [
                a.add(b).add(c).add(d),
                a.sub(b).add(c).sub(d),
                a.add(b).sub(c).sub(d),
                a.sub(b).sub(c).add(d),
            ];
            assert_eq!(value(&h), w, "{x:x?}");
            for (l, lanes) in h.iter().enumerate() {
                assert!(lanes.iter().all(|&y| u64::from(y) <= had[l]), "{h:x?}");
            }
            let (p, q) = (limbs(&mut rng, had), limbs(&mut rng, had));
            let (fp, fq) = (fe4(&p), fe4(&q));
            let got = raw(&fp.mul(&fq, &fq.double()).carry());
            assert_eq!(value(&got), times(value(&p), value(&q)), "{p:x?} {q:x?}");
            let got = raw(&fp.square().carry());
            assert_eq!(value(&got), times(value(&p), value(&p)), "{p:x?}");
            let y = limbs(&mut rng, carried);
            for (cs, c, bias) in [(sch, ch, BIAS_CH), (super::super::CD, cd, BIAS_CD)] {
                let got = raw(&fe4(&y).mul_small(c, &lanes(bias)).carry_parallel());
                assert_eq!(value(&got), times(value(&y), cs.map(Fe::small)));
            }
            // The step's fused bias: the carried `⊙ σ(CH)` plus exactly
            // `(3p, 0, 0, 0)` limb for limb, and the same transform.
            let plain = fe4(&y).mul_small(ch, &lanes(BIAS_CH)).carry_parallel();
            let fused = fe4(&y).mul_small(ch, &BIAS_CH_W).carry_parallel();
            let mut want = raw(&plain);
            for (l, lanes) in want.iter_mut().enumerate() {
                lanes[0] += BIAS_HADAMARD[l] as u32;
            }
            assert_eq!(raw(&fused), want, "{y:x?}");
            assert_eq!(raw(&fused.hadamard_biased()), raw(&plain.hadamard()));
            for bit in [0u32, 1] {
                let (mut s, mut t) = (fe4(&x), fe4(&y));
                Fe4::cswap(&mut s, &mut t, v::splat32(bit.wrapping_neg()));
                let want = if bit == 1 { (y, x) } else { (x, y) };
                assert_eq!((raw(&s), raw(&t)), want);
            }
        }
    }
}
