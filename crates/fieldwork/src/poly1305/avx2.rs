//! Target features: `avx`, `avx2` — capability token [`Avx2`].
//!
//! Measured history and rejected ideas' figures: `docs/notes/poly1305-avx2.md`.
//!
//! # Math: four interleaved Horner chains
//!
//! For `N = 4t` blocks `c₁ … c_N` and an incoming accumulator `h`,
//!
//! ```text
//! (h + c₁)·r^N + c₂·r^(N−1) + … + c_N·r  =  Σ_{j=0..3} H_j · r^(4−j),
//! H_j = Σ_{g=0..t−1} c'_{4g+j+1} · r^(4(t−1−g)),   c'₁ = h + c₁, c'_k = c_k otherwise,
//! ```
//!
//! so lane `j` of a 4-lane vector runs Horner's rule with the multiplier
//! `r^4` over every fourth block (`H ← H·r^4 + (c_{4g+1}, …, c_{4g+4})`),
//! and the lanes are combined once at the end by multiplying lane `j` by
//! `r^(4−j)` and adding them. This is the vectorisation of M. Goll and S.
//! Gueron, *Vectorization of Poly1305 message authentication code*
//! (ITNG 2015, §3): powers `r^1 … r^4`, four blocks per step, lanes
//! combined at the end.
//!
//! Two ways to handle a block count that is not a multiple of 4:
//!
//! - Goll–Gueron ([`Schedule::GOLL_GUERON`]): the vector loop takes `4⌊n/4⌋` blocks
//!   and the lanes are combined; the other `n mod 4` go through the scalar
//!   Horner loop (the portable backend) as in Goll & Gueron, but first,
//!   not last: on a key's first input they run while the powers are
//!   computed.
//! - Complete decimation ([`Schedule::DECIMATION`]): S. Bhattacharyya and P. Sarkar, *Improved
//!   SIMD implementation of Poly1305* (ePrint 2019/842, §3), observe that
//!   prepending zero blocks does not change the polynomial (a zero block
//!   contributes `0·r^k`), so the whole message is processed by the
//!   4-decimation Horner scheme: `z = (4 − n mod 4) mod 4` zero blocks are
//!   prepended *logically* — the first vector step loads the first `4 − z`
//!   blocks into lanes `z … 3` (lanes below `z` are zero, with no 2^128
//!   bit) and `h` is added to lane `z`, the lane of `c₁`. No scalar tail
//!   and no second lane layout. The first group is the message's first 64
//!   bytes moved up by `z` blocks in registers (`vperm2i128`).
//!
//! The default ([`Schedule::by_count`], from the tuning table,
//! `poly1305/tuning.rs`) takes decimation when the block count is 3 mod 4
//! and Goll–Gueron otherwise: one or two scalar head blocks hide behind the
//! powers' chain, three do not, and decimation's extra vector step on a
//! first group of one or two real blocks costs more than the hidden head.
//! The key holds its schedule and crossovers, picked when it is made; the
//! schedule is chosen per call from the (public) block count.
//!
//! # The message's end
//!
//! When the caller knows where the message ends (the one-shot tag, the
//! AEAD's tag), up to two final blocks that are not plain 16-byte blocks
//! (a partial block with 0x01 after its bytes and no 2^128 bit; the AEAD's
//! padded block and length block) come as a [`Tail`]; the last group is
//! then the message's last whole blocks and the tail, built with two
//! 32-byte stores, with per-lane 2^128 bits (`LastGroup`). The tag then
//! waits for no scalar product after the combination.
//!
//! # Representation
//!
//! Radix 2^26: an element is `l₀ + l₁·2^26 + l₂·2^52 + l₃·2^78 +
//! l₄·2^104` with each limb in a 64-bit lane of its own ymm register (five
//! registers hold four elements), so `vpmuludq` (32×32 → 64 per lane)
//! forms the 25 limb products; `r^k` is kept with `5·r^k` limbs, since
//! `2^130 ≡ 5` folds the products above 2^130 back into the low limbs:
//! `d_i = Σ_{j≤i} h_j·r_{i−j} + Σ_{j>i} h_j·5r_{i−j+5}`. Blocks sit in
//! lanes in `LANE_OF` order, the order the in-lane unpacks leave them in
//! (no lane-crossing `vpermq`).
//!
//! # Preconditions
//!
//! Multiplier inputs: accumulator limbs `< 2^28`; power limbs `< 2^26 +
//! 2^8` (the powers come from one carry pass, not a full reduction: see
//! `Power::mul`). Then each product `< 2^28·5·(2^26 + 2^8) < 2^58.4` and
//! each column of five `< 2^60.7`. In the loop the accumulator limbs are
//! below `2^27 + 2^11` and the message limbs below 2^26, so a column of
//! `H·r^12 + G₁·r^8 + G₂·r^4` stays below `2^57.7 + 2·2^56.7 < 2^59`:
//! no overflow, and within [`carry`]'s input bound of 2^61.
//!
//! # Postconditions
//!
//! [`carry`] (two interleaved carry chains, `d₀→d₁→d₂→d₃→d₄→5·d₀` run as
//! `(0→1, 3→4), (1→2, 4→0), (2→3, 0→1), (3→4)`) leaves limbs 0, 2, 3 below
//! 2^26, limb 1 below `2^26 + 2^11`, limb 4 below `2^26 + 2^9`. Adding a
//! message block (limbs `< 2^26`, limb 4 `< 2^25`) keeps every limb below
//! `2^27 + 2^11`; the incoming accumulator (from [`portable::Acc`], `h₂ ≤
//! 4`) has limb 4 below `5·2^24`: all within the multiplier's
//! precondition.
//!
//! # The loop and its floor
//!
//! From 128 blocks the loop takes three groups (192 bytes) per iteration,
//! `H ← H·r^12 + G₁·r^8 + G₂·r^4 + G₃`, with one carry; below that, two
//! (`H·r^8 + G₁·r^4 + G₂`); an odd group takes `H·r^4 + G`, before the
//! pairs (it needs only `r^4`, so it runs while `r^8` is squared). Only
//! the product by `H` and the carry are on the dependency chain; the
//! message products are not.
//!
//! The triple and pair loops are `asm!` ([`triples_asm`], [`pairs_asm`]):
//! the broadcast powers and the masks are `vpmuludq`/`vpand` memory
//! operands from a 32-byte-aligned [`LoopTable`], and `H` (5 registers),
//! the columns (5) and one group's limbs (5) stay in the 16 ymm registers
//! with one temporary, so the loop stores nothing. (LLVM's allocation of
//! the same steps kept powers in registers and spilled loop-variant
//! values, 37 stack accesses per iteration; on AMD Zen 4 that loop ran
//! at anything from 0.37 to 0.73 cycles/byte at 16 KiB from one process
//! of the same binary to the next, peer-bench's always at the slow end;
//! the store-free loop runs at 0.345 in every process — see
//! `docs/notes/poly1305-avx2.md`.) Each column adds the products
//! by `H` last, so the chain through `H` is a product, five additions,
//! the carry (≈ 10) and one addition: ≈ 19 cycles an iteration.
//!
//! Key material on the stack: the powers exist only in the table (each
//! broadcast stored straight to its row); the steps outside the loops
//! read a row's limb at the product that uses it ([`mul_columns_at`], a
//! volatile load), so no copy of a power lives across the loops' `asm!`
//! to be spilled; the table is wiped (32 stores) before [`horner4`]
//! returns. The test `stack_tests` probes the stack below the caller for
//! every row, with a control that finds them when the table is not wiped.
//! (Zeroing the whole dead frame after each kernel instead, 3 KiB, cost
//! 90–120 cycles a tag.)
//!
//! Per 64 bytes the work that cannot go away is 25 `vpmuludq` (the 5×5
//! limb products; `5·r` limbs are broadcast once, outside the loop), 20
//! `vpaddq` for the columns, the message: 2 loads, 2 `vpunpck{l,h}qdq`, 5
//! shifts, 1 `vpor`, 4 `vpand`, 1 `vpor` of the 2^128 bit, and 5 `vpaddq` to
//! add it; and per carry 7 steps of shift, `vpand`, `vpaddq` plus 2 for the
//! ×5, spread over the groups of an iteration. Zen 3 and Zen 4 run vector
//! integer ops on four pipes: `vpmuludq` on two (0.5 cycles reciprocal
//! throughput, latency 3), shifts and shuffles on the other two, adds and
//! logic on all four (`peer-bench --isa-rates`). The three-group loop is
//! 219 instructions per 192 bytes: 75 `vpmuludq` (with their loads), 83
//! `vpaddq`, 19 `vpand`, 6 `vpor`, 23 shifts, 6 unpacks, 6 message loads
//! and 3 for the loop. Floors per 64 bytes: multiplier pipes 12.5 cycles
//! (0.20 cycles/byte), all four ALU pipes 17.7 cycles (0.28 cycles/byte)
//! — the binding one. The loop runs at about 1.2× that floor (0.345
//! cycles/byte at 16 KiB on Zen 4 under the avx2 cap).
//!
//! The combination at the end is one more product with the per-lane
//! multipliers `(r^4, r^3, r^2, r)` (in `LANE_OF` order) and a horizontal
//! sum. The powers `r … r^4, r^8` are computed on the first call that
//! needs them (three chained radix-2^44 squares, 32-bit limbs), `r^12` on
//! the first of the tuning's `min_triple_blocks` blocks or more, and inputs
//! below its `min_vector_blocks` stay on the scalar loop. A short tag's time is
//! mostly two chains end to end: the powers (three squares, each a product
//! and a carry) and the loop (pairs of groups, each bound by the four
//! vector pipes), then the combination; [`tag`] moves no state.
//!
//! [`tag`]: super::tag
//!
//! Figure (AMD EPYC Zen 3, f25m1, `cargo run --release -p peer-bench
//! --features system-peers -- --poly1305-sweep FILE.csv`): the one-shot
//! tag is faster than OpenSSL 3.0.22 at every length from 49 to 4 000 B;
//! the 16 KiB and marginal figures are on the CPU's page in
//! `docs/benchmarks/`.
//!
//! # Rejected
//!
//! - The tail's group built in a stack buffer by byte copies, or outside
//!   the `target_feature` kernels — ≈ 9 % slower at 353 B; `array::map`
//!   inside the kernels compiles to an out-of-line call.
//! - Decimation for every block count — 1–5 % slower than the default per
//!   count class from 336 to 1 024 B.
//! - Radix 2^32/2^64 limbs — AVX2 has no 64×64 multiply.
//! - The vector path from 8 blocks — slower than the scalar loop at 256
//!   B; hence the tuning's `min_vector_blocks`.
//! - One group per iteration below 128 blocks — latency-bound, 2–14 %
//!   slower.
//! - Three groups per iteration at every length — `r^12` on the powers'
//!   chain, ≈ 25 % slower at 576 B; hence the tuning's `min_triple_blocks`.
//! - The powers on the vector unit (three vector products) — fewer
//!   instructions, 6–9 % slower.
//! - `r^2 … r^4` by the radix-2^64 `portable` product plus freeze — fewer
//!   instructions, no measurable change.
//! - Four more scalar blocks ahead of the vector loop on a key's first
//!   input — four chained blocks outlast the powers; 4–6 % slower.
//! - Squares in [`Power::mul`] taken once (15 products instead of 25) —
//!   no change: LLVM already merges the symmetric products.
//! - Building `Poly1305::new`'s engine in place to drop its `memcpy` —
//!   LLVM merged the arms and kept the copy, or added a second.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// limb and lane indices are constants or loop counters over fixed 5-limb and 4-lane arrays; data offsets step by whole 64-byte groups below the whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::portable::{self, Acc, Tail};
use super::radix44;
use super::tuning::Avx2Tuning;
pub(crate) use super::tuning::Schedule;
use crate::cpu::Avx2;
use core::arch::x86_64::*;
use zeroize::Zeroize;

const MASK26: u64 = (1 << 26) - 1;
/// The 2^128 bit of a whole block, in limb 4.
const HIBIT: u64 = 1 << 24;

/// Five 26-bit limbs (scalar).
type Limbs = [u64; 5];

/// A fully reduced value (`< 2^130`) as 26-bit limbs.
#[inline(always)]
fn limbs_of(v: u128, top: u64) -> Limbs {
    let lo = v as u64;
    let hi = (v >> 64) as u64;
    [
        lo & MASK26,
        (lo >> 26) & MASK26,
        ((lo >> 52) | (hi << 12)) & MASK26,
        (hi >> 14) & MASK26,
        (hi >> 40) | (top << 24),
    ]
}

/// An accumulator (`h₂ ≤ 4`) as 26-bit limbs; limb 4 below `5·2^24`.
#[inline(always)]
fn limbs_of_acc(h: &Acc) -> Limbs {
    limbs_of((h[1] as u128) << 64 | h[0] as u128, h[2])
}

/// One carry pass over scalar column sums (each `< 2^62`): limb by limb
/// from 0 to 4, the carry out of limb 4 folded into limb 0 times 5 (`2^130
/// ≡ 5`), and once more into limb 1. Afterwards limbs 0, 2, 3, 4 are below
/// 2^26 and limb 1 below `2^26 + ((d₀ + 5·⌊d₄/2^26⌋) >> 26)`.
#[inline(always)]
fn carry_columns(d: &mut Limbs) {
    d[1] += d[0] >> 26;
    d[0] &= MASK26;
    d[2] += d[1] >> 26;
    d[1] &= MASK26;
    d[3] += d[2] >> 26;
    d[2] &= MASK26;
    d[4] += d[3] >> 26;
    d[3] &= MASK26;
    d[0] += (d[4] >> 26) * 5;
    d[4] &= MASK26;
    d[1] += d[0] >> 26;
    d[0] &= MASK26;
}

/// Carries scalar column sums (each `< 2^62`) to limbs and packs them into
/// an accumulator with `h₂ ≤ 4`.
#[inline(always)]
fn acc_of_columns(mut d: Limbs) -> Acc {
    carry_columns(&mut d);
    // Now d₀, d₂, d₃, d₄ < 2^26 and d₁ < 2^27: the value is below 2^131.
    // Added, not ORed: d₁ can reach 2^26 (the last carry into it), and its
    // bit 26 then overlaps bit 0 of d₂ (an OR lost that carry: a wrong tag
    // for about one key and message in 10^5, found by the mac_poly1305 fuzz
    // target; fuzz/regressions/mac_poly1305).
    let lo =
        d[0] as u128 + ((d[1] as u128) << 26) + ((d[2] as u128) << 52) + ((d[3] as u128) << 78);
    let mid = (lo >> 64) + ((d[4] as u128) << 40);
    [lo as u64, mid as u64, (mid >> 64) as u64]
}

/// `r^k` for the vector loop: five 26-bit limbs of the fully reduced
/// power (the `5·` limbs are formed when they are broadcast, outside the
/// loop). 32-bit limbs keep [`Key`] — and every `Poly1305` move — small: with
/// `u64` limbs and stored `5·` limbs the powers took 400 bytes, and moving
/// the state cost a `memcpy` of about 200 instructions per one-shot tag.
#[derive(Clone, Default)]
#[repr(C, align(8))]
struct Power {
    r: [u32; 5],
    /// Zero: makes the value three whole words, wiped by three stores.
    pad: u32,
}

impl Power {
    fn new(l: Limbs) -> Power {
        // Limbs below 2^26 + 2^8 (see `mul`): the casts are exact.
        Power {
            r: l.map(|x| x as u32),
            pad: 0,
        }
    }

    fn limbs(&self) -> Limbs {
        self.r.map(u64::from)
    }

    /// `self·other` by the scalar radix-2^26 product (25 independent `u64`
    /// products: more instruction-level parallelism than the radix-2^64
    /// `portable` product chained eight times) and one carry pass, not
    /// fully reduced: limbs `< 2^26 + 2^8` for inputs with limbs `< 2^26 +
    /// 2^8` (each column `< 5·5·(2^26 + 2^8)^2 < 2^57`; after the pass
    /// limbs 0, 2, 3, 4 are below 2^26 and limb 1 below `2^26 +
    /// ((2^26 + 5·2^32) >> 26) < 2^26 + 2^8`).
    fn mul(&self, other: &Power) -> Power {
        let a = self.limbs();
        let b = other.limbs();
        let mut d: Limbs = [0; 5];
        for i in 0..5 {
            for j in 0..5 {
                if j <= i {
                    d[i] += a[j] * b[i - j];
                } else {
                    d[i] += a[j] * 5 * b[i + 5 - j];
                }
            }
        }
        carry_columns(&mut d);
        Power::new(d)
    }
}

impl Drop for Power {
    /// Three volatile `u64` stores (five `u32` ones through `zeroize`: the
    /// stores of a short tag's wipes measured about 5 % of its time).
    fn drop(&mut self) {
        let p = (self as *mut Power).cast::<u64>();
        // SAFETY: `Power` is `repr(C, align(8))` and 24 bytes (five `u32`
        // limbs and the pad), so the three aligned `u64` writes cover
        // exactly `*self`, an exclusive reference; zero is a valid value of
        // every field.
        unsafe {
            for i in 0..3 {
                core::ptr::write_volatile(p.add(i), 0);
            }
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

const _: () = assert!(size_of::<Power>() == 24);

/// The powers the kernels use: `r^4` for the loop; lane `j` of the
/// combination multiplies by `r^(4−j)`.
#[derive(Clone)]
struct Powers {
    /// `r^4`, for one group per step.
    r4: Power,
    /// The combination's multipliers, limb-major: 32-bit field `j` of
    /// `by_lane.0[i]` is limb `i` of the power that lane `j` meets, `r^(4 −
    /// LANE_OF[j])`.
    by_lane: ByLane,
    /// `r^8`, for two groups per iteration.
    r8: Power,
    /// `r^12`, for three groups per iteration: computed for the first
    /// input of at least the tuning's `min_triple_blocks` blocks (one more product, on
    /// the chain after `r^8`, costs short inputs more than they gain).
    r12: Option<Power>,
}

impl Powers {
    /// `r^2 = r²`, `r^4 = (r^2)²`, `r^8 = (r^4)²` and `r^3 = r^2·r` in
    /// radix 2^44 ([`radix44`]), then as 26-bit limbs: the squares are the
    /// chain a short input waits for. Six `mul` a square against fifteen
    /// `imul` in radix 2^26: a 576-byte tag 1.4 % faster on Zen 3
    /// (`scripts/ab-time.sh` on `examples/poly_one`, 176.0 → 173.6 ns).
    fn new(scalar: &portable::Key) -> Powers {
        let mut rv = scalar.r();
        let r1 = radix44::limbs_of(rv, 0);
        let p1 = Power::new(limbs_of(rv, 0));
        rv.zeroize();
        let r2 = radix44::square(r1);
        let r4 = radix44::square(r2);
        let r8 = radix44::square(r4);
        let r3 = radix44::mul(r2, r1);
        let by_power = [power_of_l44(r4), power_of_l44(r3), power_of_l44(r2), p1];
        let mut by_lane = ByLane([0; 5]);
        for (i, row) in by_lane.0.iter_mut().enumerate() {
            for (j, &k) in LANE_OF.iter().enumerate() {
                // Lane j holds block LANE_OF[j] (an involution) and is
                // multiplied by r^(4 − LANE_OF[j]) = by_power[LANE_OF[j]].
                *row |= u128::from(by_power[k].r[i]) << (32 * j);
            }
        }
        let [r4, ..] = by_power;
        Powers {
            r4,
            by_lane,
            r8: power_of_l44(r8),
            r12: None,
        }
    }
}

/// Limb-major per-lane powers (see [`Powers::by_lane`]): one
/// `vpmovzxdq` load a limb in the combination, instead of assembling
/// each vector from four scalars.
#[derive(Clone)]
struct ByLane([u128; 5]);

impl Drop for ByLane {
    fn drop(&mut self) {
        crate::wipe::wipe(&mut self.0);
    }
}

/// A [`radix44::Limbs`] value as the 26-bit limbs of a [`Power`]: bits 0–25, 26–51,
/// 52–77, 78–103 and 104–129, limb 1's excess past 44 bits landing in limb
/// 3 (`< 2^26 + 1`); every limb within [`Power`]'s `2^26 + 2^8`.
#[inline(always)]
fn power_of_l44(l: radix44::Limbs) -> Power {
    let [l0, l1, l2] = l;
    Power::new([
        l0 & MASK26,
        (l0 >> 26) | ((l1 << 18) & MASK26),
        (l1 >> 8) & MASK26,
        (l1 >> 34) + ((l2 << 10) & MASK26),
        l2 >> 16,
    ])
}

impl Schedule {
    /// The backend's name on this schedule.
    fn name(self) -> &'static str {
        match (self.forced, self.decimation) {
            (false, _) => <Key as Backend>::NAME,
            (true, 0) => GOLL_GUERON,
            (true, _) => DECIMATION,
        }
    }
}

/// The AVX2 key: `r` for the scalar path, once a long input needs them
/// its powers `r^1 … r^4`, and its tuning (the crossovers and the
/// schedule, picked when the key is made).
#[derive(Clone)]
pub(crate) struct Key {
    token: Avx2,
    scalar: portable::Key,
    powers: Option<Powers>,
    tuning: Avx2Tuning,
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.scalar.secret_spans(s);
        if let Some(p) = &self.powers {
            s.secret("r^4", &p.r4.r);
            s.secret("r^4, r^3, r^2, r by lane", &p.by_lane.0);
            s.secret("r^8", &p.r8.r);
            if let Some(r12) = &p.r12 {
                s.secret("r^12", &r12.r);
            }
        }
    }
}

impl Backend for Key {
    type Token = Avx2;
    const NAME: &'static str = "avx2";

    /// The key with this CPU's tuning ([`super::tuning`]).
    #[inline]
    fn new(token: Avx2, key: &[u8; 32]) -> Key {
        Key::tuned(token, key, super::tuning::pick().avx2)
    }

    fn name(&self) -> &'static str {
        self.tuning.schedule.name()
    }

    fn scalar(&self) -> &portable::Key {
        &self.scalar
    }

    /// Whole blocks by the key's schedule for their count: with the
    /// tuning table's, complete decimation when the count is 3 mod 4 (one
    /// zero block prepended, where Goll–Gueron runs three chained scalar
    /// blocks first), Goll–Gueron otherwise (its one or two scalar head
    /// blocks run while the powers are computed, where decimation spends a
    /// vector step on a group of one or two blocks).
    fn blocks(&mut self, h: &mut Acc, data: &[u8]) {
        if self.tuning.schedule.decimation(data.len() / 16) {
            self.decimation_blocks(h, data);
        } else {
            self.goll_gueron_blocks(h, data);
        }
    }

    /// [`Backend::blocks`] for whole blocks and then `tail`, by the count
    /// of both.
    fn blocks_tail(&mut self, h: &mut Acc, data: &[u8], tail: &Tail) {
        if self
            .tuning
            .schedule
            .decimation(data.len() / 16 + tail.len())
        {
            self.decimation_tail(h, data, tail);
        } else {
            self.goll_gueron_tail(h, data, tail);
        }
    }
}

/// The name of [`Schedule::GOLL_GUERON`].
pub(crate) const GOLL_GUERON: &str = "avx2-goll-gueron";
/// The name of [`Schedule::DECIMATION`].
pub(crate) const DECIMATION: &str = "avx2-decimation";

impl Key {
    /// The key with the given tuning (a forced schedule, or in tests
    /// forced crossovers).
    #[inline]
    pub(crate) fn tuned(token: Avx2, key: &[u8; 32], tuning: Avx2Tuning) -> Key {
        Key {
            token,
            scalar: portable::Key::new(key),
            powers: None,
            tuning,
        }
    }

    /// The key on `schedule` with this CPU's crossovers.
    #[inline]
    pub(crate) fn scheduled(token: Avx2, key: &[u8; 32], schedule: Schedule) -> Key {
        let mut tuning = super::tuning::pick().avx2;
        tuning.schedule = schedule;
        Key::tuned(token, key, tuning)
    }

    /// Whether `blocks` blocks in all stay on the scalar loop.
    #[inline(always)]
    fn scalar_below(&self, blocks: usize) -> bool {
        blocks < usize::from(self.tuning.min_vector_blocks)
    }

    /// The powers, with `r^12` from the tuning's `min_triple_blocks`
    /// blocks.
    fn powers(&mut self, blocks: usize) -> &Powers {
        let scalar = &self.scalar;
        let p = self.powers.get_or_insert_with(|| Powers::new(scalar));
        if blocks >= usize::from(self.tuning.min_triple_blocks) && p.r12.is_none() {
            p.r12 = Some(p.r8.mul(&p.r4));
        }
        p
    }

    /// Absorbs whole blocks (`data.len()` a multiple of 16) the Goll–Gueron
    /// way: `4⌊n/4⌋` blocks on the vector unit, the rest scalar. Inputs
    /// below the tuning's `min_vector_blocks` stay scalar.
    fn goll_gueron_blocks(&mut self, h: &mut Acc, data: &[u8]) {
        let n = data.len() / 16;
        if n < 4 || self.scalar_below(n) {
            self.scalar.blocks(h, data);
            return;
        }
        let (head, body) = data.split_at(16 * (n % 4));
        self.scalar.blocks(h, head);
        let token = self.token;
        let powers = self.powers(n);
        // SAFETY: the token proves AVX and AVX2 (cpu::Avx2).
        unsafe { goll_gueron(token, powers, h, body, None) };
    }

    /// Absorbs whole blocks (`data.len()` a multiple of 16) and then
    /// `tail` the Goll–Gueron way, the tail's blocks in the vector loop's
    /// last group (the scalar path below the tuning's `min_vector_blocks`
    /// in all).
    fn goll_gueron_tail(&mut self, h: &mut Acc, data: &[u8], tail: &Tail) {
        let total = data.len() / 16 + tail.len();
        if tail.len() == 0 || total < 4 || self.scalar_below(total) {
            self.goll_gueron_blocks(h, data);
            tail.absorb(&self.scalar, h);
            return;
        }
        // The first `total mod 4` blocks scalar; the rest is whole groups
        // and then the last group, `4 − c` whole blocks and the `c` tail
        // blocks (`total ≥ 4`, so they are there).
        let (head, body) = data.split_at(16 * (total % 4));
        let Some((body, end)) =
            body.split_at_checked(body.len().saturating_sub(16 * (4 - tail.len())))
        else {
            // Unreachable (the counts above): the plain path.
            self.goll_gueron_blocks(h, data);
            tail.absorb(&self.scalar, h);
            return;
        };
        self.scalar.blocks(h, head);
        let token = self.token;
        let powers = self.powers(total);
        // SAFETY: the token proves AVX and AVX2 (cpu::Avx2).
        unsafe { goll_gueron(token, powers, h, body, Some((end, tail))) };
    }

    /// [`Key::goll_gueron_tail`] by complete 4-decimation.
    fn decimation_tail(&mut self, h: &mut Acc, data: &[u8], tail: &Tail) {
        let total = data.len() / 16 + tail.len();
        match data.len().checked_sub(16 * (4 - tail.len())) {
            Some(at) if (1..=2).contains(&tail.len()) && !self.scalar_below(total) => {
                let (body, end) = data.split_at(at);
                let token = self.token;
                let powers = self.powers(total);
                // SAFETY: the token proves AVX and AVX2 (cpu::Avx2).
                unsafe { decimation(token, powers, h, body, Some((end, tail))) };
            }
            _ => {
                self.decimation_blocks(h, data);
                tail.absorb(&self.scalar, h);
            }
        }
    }

    /// Absorbs whole blocks (`data.len()` a multiple of 16) by complete
    /// 4-decimation Horner, zero blocks prepended logically. Inputs below
    /// the tuning's `min_vector_blocks` stay scalar.
    fn decimation_blocks(&mut self, h: &mut Acc, data: &[u8]) {
        let n = data.len() / 16;
        if n == 0 || self.scalar_below(n) {
            self.scalar.blocks(h, data);
            return;
        }
        let token = self.token;
        let powers = self.powers(n);
        // SAFETY: the token proves AVX and AVX2 (cpu::Avx2).
        unsafe { decimation(token, powers, h, data, None) };
    }
}

/// Four elements, limb by limb.
type Vec5 = [__m256i; 5];

/// Block `k` of a group sits in lane `LANE_OF[k]`: the lanes hold blocks
/// `(0, 2, 1, 3)`, the order `vpunpck{l,h}qdq` leaves them in, so the loads
/// need no lane-crossing `vpermq` (two per group, latency ≈ 6.6 cycles on
/// Zen 3 by `--isa-rates`). Only the combination and the first group care
/// which block a lane holds; the permutation is its own inverse.
const LANE_OF: [usize; 4] = [0, 2, 1, 3];

/// Four blocks (64 bytes) as limbs, block `k` in lane `LANE_OF[k]`, with
/// `hibit` (per lane) added to limb 4.
#[inline(always)]
fn load4(block: &[u8; 64], hibit: __m256i) -> Vec5 {
    // These helpers are reached only from the `#[target_feature(enable =
    // "avx,avx2")]` kernels, which take the `cpu::Avx2` token.
    // SAFETY: AVX and AVX2 are available (the kernels' token, cpu::Avx2);
    // the loads read the 64 bytes of `block`.
    unsafe {
        let a = _mm256_loadu_si256(block.as_ptr().cast::<__m256i>());
        let b = _mm256_loadu_si256(block.as_ptr().add(32).cast::<__m256i>());
        limbs4(a, b, hibit)
    }
}

/// [`load4`] of the blocks already in registers: `a` holds blocks 0 and
/// 1, `b` blocks 2 and 3.
#[inline(always)]
fn limbs4(a: __m256i, b: __m256i, hibit: __m256i) -> Vec5 {
    // SAFETY: AVX and AVX2 are available (as in `load4`).
    unsafe {
        // (lo0, lo2, lo1, lo3) and (hi0, hi2, hi1, hi3): LANE_OF.
        let lo = _mm256_unpacklo_epi64(a, b);
        let hi = _mm256_unpackhi_epi64(a, b);
        let m = _mm256_set1_epi64x(MASK26 as i64);
        [
            _mm256_and_si256(lo, m),
            _mm256_and_si256(_mm256_srli_epi64::<26>(lo), m),
            _mm256_and_si256(
                _mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)),
                m,
            ),
            _mm256_and_si256(_mm256_srli_epi64::<14>(hi), m),
            _mm256_or_si256(_mm256_srli_epi64::<40>(hi), hibit),
        ]
    }
}

#[inline(always)]
fn add(a: &Vec5, b: &Vec5) -> Vec5 {
    [
        s(a[0], b[0]),
        s(a[1], b[1]),
        s(a[2], b[2]),
        s(a[3], b[3]),
        s(a[4], b[4]),
    ]
}

#[inline(always)]
fn m(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 is available: only the kernels, which take cpu::Avx2, reach here.
    unsafe { _mm256_mul_epu32(a, b) }
}

#[inline(always)]
fn s(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 is available: only the kernels, which take cpu::Avx2, reach here.
    unsafe { _mm256_add_epi64(a, b) }
}

/// [`mul_columns_by`] by the power in a [`LoopTable`] row pair, each limb
/// read by a volatile load at the product that uses it: no copy of the
/// power outlives its product (held for the whole step, the ten vectors
/// were spilled to stack slots nothing wipes).
#[inline(always)]
fn mul_columns_at(h: &Vec5, rows: &[Vec5; 2]) -> Vec5 {
    // SAFETY: each element is a valid, aligned `__m256i` of the table.
    let at = |v: &Vec5, i: usize| unsafe { core::ptr::read_volatile(&v[i]) };
    mul_columns_by(h, |i| at(&rows[0], i), |i| at(&rows[1], i))
}

/// Column sums of `h·r` (not carried; see the module docs for bounds),
/// the limbs of `r` and `5·r` from `r(i)` and `r5(i)`.
#[inline(always)]
fn mul_columns_by(h: &Vec5, r: impl Fn(usize) -> __m256i, r5: impl Fn(usize) -> __m256i) -> Vec5 {
    let [h0, h1, h2, h3, h4] = *h;
    [
        s(
            s(s(s(m(h0, r(0)), m(h1, r5(4))), m(h2, r5(3))), m(h3, r5(2))),
            m(h4, r5(1)),
        ),
        s(
            s(s(s(m(h0, r(1)), m(h1, r(0))), m(h2, r5(4))), m(h3, r5(3))),
            m(h4, r5(2)),
        ),
        s(
            s(s(s(m(h0, r(2)), m(h1, r(1))), m(h2, r(0))), m(h3, r5(4))),
            m(h4, r5(3)),
        ),
        s(
            s(s(s(m(h0, r(3)), m(h1, r(2))), m(h2, r(1))), m(h3, r(0))),
            m(h4, r5(4)),
        ),
        s(
            s(s(s(m(h0, r(4)), m(h1, r(3))), m(h2, r(2))), m(h3, r(1))),
            m(h4, r(0)),
        ),
    ]
}

/// Carries column sums (`< 2^61`) to limbs (see the module docs).
#[inline(always)]
fn carry(d: Vec5) -> Vec5 {
    // SAFETY: AVX2 is available: only the kernels, which take cpu::Avx2, reach here.
    unsafe {
        let m = _mm256_set1_epi64x(MASK26 as i64);
        let [mut d0, mut d1, mut d2, mut d3, mut d4] = d;
        carry_step(&mut d0, &mut d1, m);
        carry_step(&mut d3, &mut d4, m);
        carry_step(&mut d1, &mut d2, m);
        // d₄ → d₀ with the factor 5 = 4 + 1.
        let c = _mm256_srli_epi64::<26>(d4);
        d4 = _mm256_and_si256(d4, m);
        d0 = _mm256_add_epi64(d0, _mm256_add_epi64(c, _mm256_slli_epi64::<2>(c)));
        carry_step(&mut d2, &mut d3, m);
        carry_step(&mut d0, &mut d1, m);
        carry_step(&mut d3, &mut d4, m);
        [d0, d1, d2, d3, d4]
    }
}

/// `to += from >> 26; from &= 2^26 − 1` (`mask` = 2^26 − 1 in every lane).
#[inline(always)]
fn carry_step(from: &mut __m256i, to: &mut __m256i, mask: __m256i) {
    // SAFETY: AVX2 is available: only the kernels, which take cpu::Avx2, reach here.
    unsafe {
        let c = _mm256_srli_epi64::<26>(*from);
        *from = _mm256_and_si256(*from, mask);
        *to = _mm256_add_epi64(*to, c);
    }
}

/// The loops' multipliers in memory (32-byte aligned), read by
/// [`triples_asm`] and [`pairs_asm`] as `vpmuludq` memory operands: `r^4`,
/// `r^8`, `r^12` broadcast, each as its five limbs then its `5·` limbs
/// (`5·r₀` unused), then the limb mask and the 2^128 bit.
#[repr(C, align(32))]
struct LoopTable {
    powers: [[Vec5; 2]; 3],
    mask: __m256i,
    hibit: __m256i,
}

impl LoopTable {
    /// The table for `powers` (`r^8` in the `r^12` rows when there is no
    /// `r^12`: no triples then), each broadcast stored straight to its row
    /// (built as values first, the 30 vectors were spilled to other stack
    /// slots, which nothing wiped).
    #[inline(always)]
    fn new(powers: &Powers) -> LoopTable {
        let mut table = LoopTable {
            powers: [[[zero(); 5]; 2]; 3],
            // SAFETY: AVX2 is available: only the kernels, which take
            // cpu::Avx2, reach here.
            mask: unsafe { _mm256_set1_epi64x(MASK26 as i64) },
            // SAFETY: as above.
            hibit: unsafe { _mm256_set1_epi64x(HIBIT as i64) },
        };
        let r12 = powers.r12.as_ref().unwrap_or(&powers.r8);
        for ([r, r5], p) in table.powers.iter_mut().zip([&powers.r4, &powers.r8, r12]) {
            for ((ri, r5i), &limb) in r.iter_mut().zip(r5.iter_mut()).zip(&p.r) {
                // SAFETY: as above.
                unsafe {
                    *ri = _mm256_set1_epi64x(i64::from(limb));
                    *r5i = _mm256_set1_epi64x(5 * i64::from(limb));
                }
            }
        }
        table
    }

    /// Zeroes the table (its powers are key material) by 32-byte volatile
    /// stores, 32 of them (`zeroize` would store element by element).
    #[inline(always)]
    fn wipe(&mut self) {
        let p = core::ptr::from_mut(self).cast::<__m256i>();
        for i in 0..size_of::<LoopTable>() / 32 {
            // SAFETY: `p` points to the table, 32-byte aligned and
            // `size_of::<LoopTable>()` bytes long (a multiple of 32); every
            // bit pattern is a valid `LoopTable`.
            unsafe { core::ptr::write_volatile(p.add(i), core::mem::zeroed()) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

/// Byte offsets in [`LoopTable`]: the powers, the mask, the 2^128 bit.
const R4: usize = core::mem::offset_of!(LoopTable, powers);
const R8: usize = R4 + size_of::<[Vec5; 2]>();
const R12: usize = R8 + size_of::<[Vec5; 2]>();
const MASK: usize = core::mem::offset_of!(LoopTable, mask);
const HIB: usize = core::mem::offset_of!(LoopTable, hibit);

/// Template text of `d (+)= G·P` by rows: limb `G_j` (register `ymm{g_j}`)
/// times the power at `[{t} + P]` (limb `i` at `32·i`, `5·` limb `i` at
/// `160 + 32·i`) into the columns `ymm5`–`ymm9`; `first` writes row 0
/// into them instead of adding. Row `j` meets `r_{i−j}` in column `i ≥ j`
/// and `5·r_{i−j+5}` below. Temporary: `ymm15`.
macro_rules! rows {
    (@row $p:literal, $g:literal, $o0:literal, $o1:literal, $o2:literal, $o3:literal, $o4:literal) => {
        concat!(
            "vpmuludq ymm15, ymm", $g, ", [{t} + ", $p, " + ", $o0, "]\n",
            "vpaddq ymm5, ymm5, ymm15\n",
            "vpmuludq ymm15, ymm", $g, ", [{t} + ", $p, " + ", $o1, "]\n",
            "vpaddq ymm6, ymm6, ymm15\n",
            "vpmuludq ymm15, ymm", $g, ", [{t} + ", $p, " + ", $o2, "]\n",
            "vpaddq ymm7, ymm7, ymm15\n",
            "vpmuludq ymm15, ymm", $g, ", [{t} + ", $p, " + ", $o3, "]\n",
            "vpaddq ymm8, ymm8, ymm15\n",
            "vpmuludq ymm15, ymm", $g, ", [{t} + ", $p, " + ", $o4, "]\n",
            "vpaddq ymm9, ymm9, ymm15\n",
        )
    };
    (@tail $p:literal, $g1:literal, $g2:literal, $g3:literal, $g4:literal) => {
        concat!(
            rows!(@row $p, $g1, "288", "0", "32", "64", "96"),
            rows!(@row $p, $g2, "256", "288", "0", "32", "64"),
            rows!(@row $p, $g3, "224", "256", "288", "0", "32"),
            rows!(@row $p, $g4, "192", "224", "256", "288", "0"),
        )
    };
    (first $p:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $g4:literal) => {
        concat!(
            "vpmuludq ymm5, ymm", $g0, ", [{t} + ", $p, "]\n",
            "vpmuludq ymm6, ymm", $g0, ", [{t} + ", $p, " + 32]\n",
            "vpmuludq ymm7, ymm", $g0, ", [{t} + ", $p, " + 64]\n",
            "vpmuludq ymm8, ymm", $g0, ", [{t} + ", $p, " + 96]\n",
            "vpmuludq ymm9, ymm", $g0, ", [{t} + ", $p, " + 128]\n",
            rows!(@tail $p, $g1, $g2, $g3, $g4),
        )
    };
    (add $p:literal, $g0:literal, $g1:literal, $g2:literal, $g3:literal, $g4:literal) => {
        concat!(
            rows!(@row $p, $g0, "0", "32", "64", "96", "128"),
            rows!(@tail $p, $g1, $g2, $g3, $g4),
        )
    };
}

/// Template text of [`load4`] on the group at `[{m} + OFFSET]` into
/// `ymm10`–`ymm14` (limbs 0–4), with `ymm15` as the one temporary.
macro_rules! group {
    ($off:literal) => {
        concat!(
            "vmovdqu ymm14, [{m} + ",
            $off,
            "]\n",
            "vmovdqu ymm15, [{m} + ",
            $off,
            " + 32]\n",
            "vpunpcklqdq ymm10, ymm14, ymm15\n",
            "vpunpckhqdq ymm13, ymm14, ymm15\n",
            "vpsrlq ymm11, ymm10, 26\n",
            "vpsrlq ymm12, ymm10, 52\n",
            "vpsllq ymm15, ymm13, 12\n",
            "vpor ymm12, ymm12, ymm15\n",
            "vpsrlq ymm14, ymm13, 40\n",
            "vpsrlq ymm13, ymm13, 14\n",
            "vpand ymm10, ymm10, [{t} + {mask}]\n",
            "vpand ymm11, ymm11, [{t} + {mask}]\n",
            "vpand ymm12, ymm12, [{t} + {mask}]\n",
            "vpand ymm13, ymm13, [{t} + {mask}]\n",
            "vpor ymm14, ymm14, [{t} + {hib}]\n",
        )
    };
}

/// Template text of [`carry`] on the columns `ymm5`–`ymm9` (temporaries
/// `ymm15`, `ymm10`), then `H = columns + G` with `G` in `ymm10`–`ymm14`
/// loaded from `[{m} + OFFSET]` into `ymm0`–`ymm4`.
macro_rules! carry_and_add {
    ($off:literal) => {
        concat!(
            "vpsrlq ymm15, ymm5, 26\n",
            "vpand ymm5, ymm5, [{t} + {mask}]\n",
            "vpaddq ymm6, ymm6, ymm15\n",
            "vpsrlq ymm15, ymm8, 26\n",
            "vpand ymm8, ymm8, [{t} + {mask}]\n",
            "vpaddq ymm9, ymm9, ymm15\n",
            "vpsrlq ymm15, ymm6, 26\n",
            "vpand ymm6, ymm6, [{t} + {mask}]\n",
            "vpaddq ymm7, ymm7, ymm15\n",
            "vpsrlq ymm15, ymm9, 26\n",
            "vpand ymm9, ymm9, [{t} + {mask}]\n",
            "vpsllq ymm10, ymm15, 2\n",
            "vpaddq ymm15, ymm15, ymm10\n",
            "vpaddq ymm5, ymm5, ymm15\n",
            "vpsrlq ymm15, ymm7, 26\n",
            "vpand ymm7, ymm7, [{t} + {mask}]\n",
            "vpaddq ymm8, ymm8, ymm15\n",
            "vpsrlq ymm15, ymm5, 26\n",
            "vpand ymm5, ymm5, [{t} + {mask}]\n",
            "vpaddq ymm6, ymm6, ymm15\n",
            "vpsrlq ymm15, ymm8, 26\n",
            "vpand ymm8, ymm8, [{t} + {mask}]\n",
            "vpaddq ymm9, ymm9, ymm15\n",
            group!($off),
            "vpaddq ymm0, ymm5, ymm10\n",
            "vpaddq ymm1, ymm6, ymm11\n",
            "vpaddq ymm2, ymm7, ymm12\n",
            "vpaddq ymm3, ymm8, ymm13\n",
            "vpaddq ymm4, ymm9, ymm14\n",
        )
    };
}

/// The store-free loop over `$groups` (whole `$step`-byte chunks) with
/// the iteration `$body` (template lines) and the powers' offsets it names
/// (`{r4}`, …): `H` in and out of `ymm0`–`ymm4`,
/// the other twelve ymm registers clobbered, `{m}` the chunk's address,
/// `{t}` the [`LoopTable`]. At least one iteration: callers check.
macro_rules! store_free_loop {
    ($hv:expr, $t:expr, $groups:expr, $step:literal, [$($p:ident = $off:expr),+], $($body:expr),+ $(,)?) => {{
        let [mut h0, mut h1, mut h2, mut h3, mut h4] = $hv;
        let m = $groups.as_ptr().cast::<u8>();
        // SAFETY: one past the end of `$groups`.
        let end = unsafe { m.add($step * $groups.len()) };
        // SAFETY: AVX2 is available (the caller's features); the loop reads
        // `$groups` (`$step` bytes an iteration from `m` until `end`, at
        // least one iteration) and the table, and writes only registers.
        unsafe {
            core::arch::asm!(
                "2:",
                $($body,)+
                concat!("add {m}, ", $step),
                "cmp {m}, {end}",
                "jne 2b",
                m = inout(reg) m => _,
                end = in(reg) end,
                t = in(reg) $t,
                $($p = const $off,)+
                mask = const MASK,
                hib = const HIB,
                inout("ymm0") h0, inout("ymm1") h1, inout("ymm2") h2,
                inout("ymm3") h3, inout("ymm4") h4,
                out("ymm5") _, out("ymm6") _, out("ymm7") _, out("ymm8") _,
                out("ymm9") _, out("ymm10") _, out("ymm11") _, out("ymm12") _,
                out("ymm13") _, out("ymm14") _, out("ymm15") _,
                options(nostack, readonly),
            );
        }
        [h0, h1, h2, h3, h4]
    }};
}

/// `H ← H·r^12 + G₁·r^8 + G₂·r^4 + G₃` over `groups` (whole 192-byte
/// triples), as one loop in `asm!`: the multipliers are memory operands,
/// `H` (`ymm0`–`ymm4`), the columns (`ymm5`–`ymm9`) and a group's limbs
/// (`ymm10`–`ymm14`) stay in registers, and nothing is stored. The same
/// arithmetic, bounds and carry as the Rust steps ([`mul_columns_by`],
/// [`carry`], [`load4`]); the products by `H` come last in each column's
/// sum, so that the chain through `H` is a product, five additions, the
/// carry and one addition.
#[inline]
#[target_feature(enable = "avx,avx2")]
fn triples_asm(hv: Vec5, t: &LoopTable, groups: &[[u8; 192]]) -> Vec5 {
    if groups.is_empty() {
        return hv;
    }
    store_free_loop!(
        hv,
        t,
        groups,
        192,
        [r4 = R4, r8 = R8, r12 = R12],
        group!("0"),
        rows!(first "{r8}", "10", "11", "12", "13", "14"),
        group!("64"),
        rows!(add "{r4}", "10", "11", "12", "13", "14"),
        rows!(add "{r12}", "0", "1", "2", "3", "4"),
        carry_and_add!("128"),
    )
}

/// `H ← H·r^8 + G₁·r^4 + G₂` over `groups` (whole 128-byte pairs): the
/// loop of [`triples_asm`] with two groups.
#[inline]
#[target_feature(enable = "avx,avx2")]
fn pairs_asm(hv: Vec5, t: &LoopTable, groups: &[[u8; 128]]) -> Vec5 {
    if groups.is_empty() {
        return hv;
    }
    store_free_loop!(
        hv,
        t,
        groups,
        128,
        [r4 = R4, r8 = R8],
        group!("0"),
        rows!(first "{r4}", "10", "11", "12", "13", "14"),
        rows!(add "{r8}", "0", "1", "2", "3", "4"),
        carry_and_add!("64"),
    )
}

#[inline(always)]
fn zero() -> __m256i {
    // SAFETY: AVX2 is available: only the kernels, which take cpu::Avx2, reach here.
    unsafe { _mm256_set1_epi64x(0) }
}

/// `Σ_j H_j·r^(4−j)` as an accumulator: the lanes combined.
#[inline(always)]
fn combine(hv: &Vec5, powers: &Powers) -> Acc {
    // Each limb widened at the product that uses it, from a volatile load
    // (as `mul_columns_at`): ten vectors held for the whole product were
    // spilled to stack slots nothing wipes.
    let limb = |i: usize| {
        // SAFETY: AVX2 is available (the kernels take cpu::Avx2); the load
        // reads the 16 bytes of `by_lane.0[i]`.
        unsafe {
            let v = core::ptr::read_volatile(&raw const powers.by_lane.0[i]);
            _mm256_cvtepu32_epi64(_mm_set_epi64x((v >> 64) as i64, v as i64))
        }
    };
    // SAFETY: as above.
    let times5 = |x: __m256i| unsafe { _mm256_add_epi64(x, _mm256_slli_epi64::<2>(x)) };
    let d = mul_columns_by(hv, limb, |i| times5(limb(i)));
    let mut cols = [0u64; 5];
    for (c, v) in cols.iter_mut().zip(d) {
        // Four columns below 2^61 each: the sum fits.
        // SAFETY: AVX2 is available (the kernels take cpu::Avx2).
        *c = unsafe {
            let s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            _mm_cvtsi128_si64(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s))) as u64
        };
    }
    let acc = acc_of_columns(cols);
    crate::wipe::wipe(&mut cols);
    acc
}

/// The accumulator `h` in lane `lane` (0 elsewhere), as limbs: each limb
/// broadcast and masked (a variable lane costs no store and reload).
#[inline(always)]
fn acc_in_lane(h: &Acc, lane: usize) -> Vec5 {
    let l = limbs_of_acc(h);
    let m = |j: usize| -i64::from(j == lane);
    let mut out = [zero(); 5];
    // Loops, not `array::map`: in the kernels' AVX2 context `map` became
    // an out-of-line call passing the vectors through memory (≈ 180
    // instructions a tag, callgrind).
    // SAFETY: AVX2 is available: only the kernels, which take cpu::Avx2, reach here.
    unsafe {
        let mask = _mm256_setr_epi64x(m(0), m(1), m(2), m(3));
        for i in 0..5 {
            out[i] = _mm256_and_si256(_mm256_set1_epi64x(l[i] as i64), mask);
        }
    }
    out
}

/// Complete decimation's first group: `z` zero blocks, then the first
/// `4 − z` blocks of `data`, as [`load4`]'s two 32-byte halves. Built in
/// registers from two loads of `data` (a copy into a zeroed stack block
/// would make the loads wait: no store-to-load forwarding from the copy's
/// smaller stores).
#[inline(always)]
fn shifted_first(data: &[u8; 64], z: usize) -> (__m256i, __m256i) {
    // SAFETY: AVX2 is available (only the kernels, which take cpu::Avx2,
    // reach here); the loads read the 64 bytes of `data`.
    unsafe {
        let a = _mm256_loadu_si256(data.as_ptr().cast::<__m256i>());
        let b = _mm256_loadu_si256(data.as_ptr().add(32).cast::<__m256i>());
        // Blocks (d0, d1 | d2, d3) moved up by z: the low 128 bits of a
        // `permute2x128` result come from selector bits 0–1 (3 zeroes
        // them), the high from bits 4–5 (7 zeroes them).
        match z {
            0 => (a, b),
            1 => (
                _mm256_permute2x128_si256::<0x08>(a, a),
                _mm256_permute2x128_si256::<0x21>(a, b),
            ),
            2 => (zero(), a),
            _ => (zero(), _mm256_permute2x128_si256::<0x08>(a, a)),
        }
    }
}

/// `H ← H·r^4 + next group`, over the groups of `rest` (a multiple of 64
/// bytes), then the combination. Two groups per iteration, as `H ← H·r^8
/// + G₁·r^4 + G₂` with one carry: the product `G₁·r^4` is off the
/// dependency chain through `H`, which is what limits a single chain.
///
/// One compiled copy for both entry points (not inlined into each): with a
/// copy in each, the compiler allocated registers differently in the two
/// and the Goll–Gueron copy spilled twice as many vectors (234 against 119
/// stack accesses), which made the comparison of the two schemes a
/// comparison of register allocations.
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn horner4(mut hv: Vec5, powers: &Powers, rest: &[u8], last: Option<&LastGroup>) -> Acc {
    let hibit = _mm256_set1_epi64x(HIBIT as i64);
    // Without r^12 (a short input), no triples.
    let (triples, rest) = match &powers.r12 {
        Some(_) => rest.as_chunks::<192>(),
        None => (&[][..], rest),
    };
    // The powers live only in the table, read where each product uses them
    // (`mul_columns_at`), and the table is wiped before returning.
    let mut table = LoopTable::new(powers);
    hv = triples_asm(hv, &table, triples);
    let r4 = &table.powers[0];
    // The groups left are those of `rest` (fewer than three if there were
    // triples), then `last`. An odd number: the single step first, which
    // needs only r^4, while r^8 (one square further on the powers' chain)
    // is computed.
    let mut last = last;
    let left = rest.len() / 64 + usize::from(last.is_some());
    let rest = if left % 2 == 1 {
        match (rest.split_first_chunk::<64>(), last) {
            (Some((group, tail)), _) => {
                hv = add(&carry(mul_columns_at(&hv, r4)), &load4(group, hibit));
                tail
            }
            (None, Some(l)) => {
                hv = add(&carry(mul_columns_at(&hv, r4)), &load4(&l.bytes, l.hibit));
                last = None;
                rest
            }
            (None, None) => rest,
        }
    } else {
        rest
    };
    // An even number of groups is left: pairs only, the last pair's second
    // group `last` if there is one.
    let (pairs, odd) = rest.as_chunks::<128>();
    hv = pairs_asm(hv, &table, pairs);
    if let (Ok(g1), Some(l)) = (<&[u8; 64]>::try_from(odd), last) {
        let d = add(
            &mul_columns_at(&hv, &table.powers[1]),
            &mul_columns_at(&load4(g1, hibit), &table.powers[0]),
        );
        hv = add(&carry(d), &load4(&l.bytes, l.hibit));
    }
    table.wipe();
    combine(&hv, powers)
}

/// The last group of a message that ends in [`Tail`] blocks: its whole
/// blocks and the tail's, stored with two 32-byte stores (so that
/// [`load4`]'s two loads are forwarded from them; byte copies would stall
/// them), and the per-lane 2^128 bits.
struct LastGroup {
    bytes: [u8; 64],
    hibit: __m256i,
}

impl LastGroup {
    /// The group of `end` (the message's last `4 − c` whole blocks) and the
    /// `c` blocks of `tail` (`c` = 1 or 2); `None` if the lengths do not
    /// fit that.
    #[inline(always)]
    fn new(end: &[u8], tail: &Tail) -> Option<LastGroup> {
        let c = tail.len();
        if !(1..=2).contains(&c) || end.len() != 16 * (4 - c) {
            return None;
        }
        let mut vals = [0u128; 2];
        let mut hibits = [1u64; 4];
        for (i, (m, hb)) in tail.blocks().enumerate() {
            vals[i] = m;
            hibits[4 - c + i] = hb;
        }
        let bit = |j: usize| (hibits[LANE_OF[j]] * HIBIT) as i64;
        let mut bytes = [0u8; 64];
        let half = |v: u128| (v as i64, (v >> 64) as i64);
        let ((l0, h0), (l1, h1)) = (half(vals[0]), half(vals[1]));
        // SAFETY: AVX2 is available (reached only from the kernels' callers,
        // which hold cpu::Avx2); `end` is 48 bytes for `c = 1` and 32 for
        // `c = 2` (checked above), so the loads stay inside it; the stores
        // write the 64 bytes of `bytes`.
        unsafe {
            let p = end.as_ptr();
            let a = _mm256_loadu_si256(p.cast::<__m256i>());
            let b = if c == 1 {
                _mm256_inserti128_si256::<1>(
                    _mm256_castsi128_si256(_mm_loadu_si128(p.add(32).cast::<__m128i>())),
                    _mm_set_epi64x(h0, l0),
                )
            } else {
                _mm256_setr_epi64x(l0, h0, l1, h1)
            };
            _mm256_storeu_si256(bytes.as_mut_ptr().cast::<__m256i>(), a);
            _mm256_storeu_si256(bytes.as_mut_ptr().add(32).cast::<__m256i>(), b);
        }
        vals.zeroize();
        Some(LastGroup {
            bytes,
            // SAFETY: AVX is available (as above).
            hibit: unsafe { _mm256_setr_epi64x(bit(0), bit(1), bit(2), bit(3)) },
        })
    }
}

impl Drop for LastGroup {
    fn drop(&mut self) {
        for half in self.bytes.as_chunks_mut::<32>().0 {
            crate::wipe::wipe(half);
        }
    }
}

/// Goll–Gueron: `body` (a multiple of 64 bytes), then `last`; at least one
/// group in all.
///
/// # Safety
/// The CPU must support AVX and AVX2 (the caller holds [`Avx2`]).
#[target_feature(enable = "avx,avx2")]
unsafe fn goll_gueron(
    _: Avx2,
    powers: &Powers,
    h: &mut Acc,
    body: &[u8],
    last: Option<(&[u8], &Tail)>,
) {
    debug_assert!(body.len().is_multiple_of(64));
    // Built here, where the intrinsics inline (AVX2 enabled).
    let last = last.and_then(|(end, tail)| LastGroup::new(end, tail));
    let last = last.as_ref();
    let hibit = _mm256_set1_epi64x(HIBIT as i64);
    let ((first, first_hibit), rest, last) = match (body.split_first_chunk::<64>(), last) {
        (Some((f, rest)), l) => ((f, hibit), rest, l),
        (None, Some(l)) => ((&l.bytes, l.hibit), body, None),
        (None, None) => return,
    };
    let hv = add(&load4(first, first_hibit), &acc_in_lane(h, LANE_OF[0]));
    *h = horner4(hv, powers, rest, last);
}

/// Complete 4-decimation: `data` (a multiple of 16 bytes), then `last`;
/// at least one block in all.
///
/// # Safety
/// The CPU must support AVX and AVX2 (the caller holds [`Avx2`]).
#[target_feature(enable = "avx,avx2")]
unsafe fn decimation(
    _: Avx2,
    powers: &Powers,
    h: &mut Acc,
    data: &[u8],
    last: Option<(&[u8], &Tail)>,
) {
    // Built here, where the intrinsics inline (AVX2 enabled).
    let last = last.and_then(|(end, tail)| LastGroup::new(end, tail));
    let last = last.as_ref();
    let n = data.len() / 16;
    debug_assert!(data.len().is_multiple_of(16));
    if n == 0 {
        // The last group alone: no zero blocks to prepend.
        if let Some(l) = last {
            let hv = add(&load4(&l.bytes, l.hibit), &acc_in_lane(h, LANE_OF[0]));
            *h = horner4(hv, powers, &[], None);
        }
        return;
    }
    // z zero blocks prepended (the last group's four blocks do not change
    // the count mod 4): the first group holds 4 − z real blocks in lanes
    // z…3, and no 2^128 bit in lanes below z.
    let z = (4 - n % 4) % 4;
    let (first, rest) = data.split_at(16 * (4 - z));
    // Lane j holds block LANE_OF[j]: a real block (2^128 bit) if ≥ z.
    let bit = |j: usize| if LANE_OF[j] >= z { HIBIT as i64 } else { 0 };
    let hibit = _mm256_setr_epi64x(bit(0), bit(1), bit(2), bit(3));
    let g = match data.first_chunk::<64>() {
        Some(d) => {
            let (a, b) = shifted_first(d, z);
            limbs4(a, b, hibit)
        }
        None => {
            // Fewer than four blocks in all (forced short inputs only).
            let mut block = [0u8; 64];
            block[16 * z..].copy_from_slice(first);
            let g = load4(&block, hibit);
            block.fill(0);
            core::hint::black_box(&mut block);
            g
        }
    };
    let hv = add(&g, &acc_in_lane(h, LANE_OF[z]));
    *h = horner4(hv, powers, rest, last);
}

#[cfg(test)]
mod stack_tests {
    use super::*;
    use crate::wipe::stack_probe::{found, image, lanes_row};

    /// The broadcast limbs of `r^4`, `r^8` and `r^12` and their `5·`
    /// multiples, 32 bytes each, as [`LoopTable`] holds them; then the
    /// combination's per-lane limbs (`r^4, r^3, r^2, r`) and their `5·`.
    fn table_rows(p: &Powers) -> alloc::vec::Vec<(&'static str, [u8; 32])> {
        let mut rows = alloc::vec::Vec::new();
        for power in [Some(&p.r4), Some(&p.r8), p.r12.as_ref()]
            .into_iter()
            .flatten()
        {
            for &limb in &power.r {
                for v in [u64::from(limb), 5 * u64::from(limb)] {
                    rows.push(("loop table row", lanes_row([v; 4])));
                }
            }
        }
        // The combination's per-lane powers, as `combine` widens them.
        for &limbs in &p.by_lane.0 {
            for k in [1u64, 5] {
                let lane = |j: u32| k * u64::from((limbs >> (32 * j)) as u32);
                rows.push((
                    "per-lane row",
                    lanes_row([lane(0), lane(1), lane(2), lane(3)]),
                ));
            }
        }
        rows
    }

    /// The vector paths (both schedules, whole blocks and with a tail, long
    /// enough for the three-group loop) leave none of the loop table's rows
    /// below the stack pointer: neither the table (wiped) nor a spilled
    /// copy (none is made). The control — the same table built and used by
    /// the loop without its wipe — is seen to leave them, so the probe can
    /// fail.
    #[test]
    fn no_power_rows_left_on_the_stack() {
        let Some(token) = crate::cpu::Avx2::get() else {
            return;
        };
        let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5c);
        let msg: alloc::vec::Vec<u8> = (0..4096).map(|i| (i as u8).wrapping_mul(11)).collect();
        let mut tail = portable::Tail::new();
        tail.push(0x1234_5678_9abc_def0_1122_3344_5566_7788, 1);
        let mut last_powers = None;
        for schedule in [Schedule::GOLL_GUERON, Schedule::DECIMATION] {
            for len in [4096, 4096 - 16, 4096 - 48, 1024 + 32] {
                for with_tail in [false, true] {
                    let mut k = Key::scheduled(token, &key, schedule);
                    let mut h: Acc = [0; 3];
                    let data = &msg[..len];
                    let img = image(|| {
                        if with_tail {
                            k.blocks_tail(&mut h, data, &tail);
                        } else {
                            k.blocks(&mut h, data);
                        }
                    });
                    let powers = k.powers(len / 16).clone();
                    assert!(
                        len < 4000 || powers.r12.is_some(),
                        "no three-group loop at {len}"
                    );
                    let left = found(&img, &table_rows(&powers));
                    assert!(
                        left.is_empty(),
                        "left on the stack: {left:?}, {schedule:?}, {len} bytes, tail {with_tail}"
                    );
                    last_powers = Some(powers);
                }
            }
        }

        #[inline(never)]
        #[target_feature(enable = "avx,avx2")]
        fn control(p: &Powers, msg: &[u8]) {
            let table = LoopTable::new(p);
            let (triples, _) = msg.as_chunks::<192>();
            core::hint::black_box(triples_asm([zero(); 5], &table, triples));
        }
        let Some(powers) = last_powers else {
            return;
        };
        // SAFETY: AVX2 is available (the token above).
        let img = image(|| unsafe { control(&powers, &msg) });
        assert!(
            !found(&img, &table_rows(&powers)).is_empty(),
            "the control left no table row: the probe cannot see the table"
        );
    }
}
