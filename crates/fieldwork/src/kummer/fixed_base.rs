//! Key generation by a fixed-base comb on the Jacobian of the genus-2 curve
//! under the Kummer surface, mapped to the surface at the end.
//!
//! The surface has no addition law, only differential additions, so a
//! fixed base point gains nothing there (see the module docs of
//! [`super`]). Its Jacobian has one: the surface is the quotient of the
//! Jacobian of `C: y² = f(x)`, `f = x(x + 1)(x + λ)(x + μ)(x + ν)` (the
//! Rosenhain form, quadratic twist by −1), by `±1`. With a table of the
//! base point's preimage `D`, `k·D` costs 35 additions instead of 251
//! ladder steps, and one linear map takes the result to the surface.
//!
//! Measured history and next ideas: `docs/notes/kummer-fixed-base.md`.
//!
//! # Where the constants come from
//!
//! `scripts/kummer_fixed_base/derive.py` computes every constant of
//! `fixed_base_table.rs` from the surface alone and checks each step
//! against the ladder: the 16 nodes (theta duplication), a trope (a plane
//! through six nodes, tangent along a conic), the curve (the conic
//! parametrised, the six nodes on it are the Weierstrass points), the
//! unique linear map from the curve's Cassels–Flynn Kummer surface to the
//! squared surface that matches the 2-torsion and commutes with doubling,
//! the base point's preimage `D` (it exists on the −1 twist only, with
//! `N2·D = 0`), and the table, by Cantor's algorithm. The idea of doing
//! fixed-base work on the Jacobian and projecting to the Kummer surface is
//! the one Kummer-based signature schemes use (Chung, Costello & Smith,
//! ePrint 2015/983; Renes & Smith, qDSA, ePrint 2017/518); the derivation
//! and the formulas below are this crate's own.
//!
//! `scripts/check-kummer-table.sh` regenerates the table and compares it
//! with the committed file; the test
//! `table_is_the_multiples_of_the_base_point` checks every entry, and the
//! sign of its `v`, against the ladder.
//!
//! # The comb
//!
//! The scalar `k < 2^251` is reduced mod `N2` (the base point's order);
//! if it is even it is replaced by `N2 − k`, whose multiple is `−k·D` with
//! the same image on the surface (`±1` is what the surface forgets). The
//! odd result is recoded in 36 signed odd digits `k = Σ dᵢ·128ⁱ`,
//! `dᵢ ∈ {±1, ±3, …, ±127}` (every digit odd, so no table entry is the
//! neutral element), and `R = Σ dᵢ·128ⁱ·D` is accumulated from the table
//! `TABLE[i][j] = (2j + 1)·128ⁱ·D` (64 affine entries per window,
//! 144 KiB): each entry is read by a masked scan of its whole row and
//! negated by mask when `dᵢ < 0`.
//!
//! A row is read through the [`Scan`] trait: the portable scan is here, the
//! AVX2 one in `avx2.rs` (this file names no backend; each backend's
//! `Backend::comb` calls [`comb`] with its scan). The portable scan is code
//! that LLVM vectorises on xmm (SSE2 `pand`/`por`, 17 instructions an
//! entry, masks computed on scalars). The AVX2 backend's scan runs on ymm
//! (`vpblendvb` with the entry as memory operand, in two levels: ≈ 2.4
//! instructions an entry; `avx2.rs`), and its comb reads row `i + 1`
//! while it adds row `i`'s entry: the row in eight parts of eight
//! entries, placed between the addition's products and pinned there
//! ([`Scan::pin`]), so the vector unit scans while the scalar units
//! multiply ([`Scan::INTERLEAVED`]; its backend's comb compiles this
//! file's [`comb`] with AVX2 enabled, for the parts to inline).
//!
//! The window width is the generator's `KUMMER_COMB_W`, 7 bits
//! (`KUMMER_COMB_W=6 python3 scripts/kummer_fixed_base/derive.py`
//! regenerates the table for another): 6 bits (41 additions, 32-entry
//! rows, 84 KiB) is slower with the AVX2 scan and faster with the portable
//! one, 5 bits slower still; 8 bits (four additions fewer, twice the
//! scanning in a 256 KiB table) slower by 17 % on Zen 3.
//!
//! The accumulator is projective with separate denominators for `u` and
//! `v`, `(A1, A0, B1, B0, Zu, Y)` for `u = x² + (A1·x + A0)/Zu`, `v =
//! (B1·x + B0)/(Zu·Y)`: the weighting of Lange's "new coordinates" (u over
//! one denominator, v over that one times another), which lets each
//! addition's natural denominators become the output's without products.
//!
//! # Mixed addition (Cantor's composition, homogenised)
//!
//! For `R = (u₁, v₁)` and an affine `T = (u₂, v₂)` with coprime `u`'s:
//! `s ≡ (v₂ − v₁)/u₁ (mod u₂)` is linear; `V = v₁ + s·u₁` meets both;
//! the sum is `u' = (f − V²)/(u₁u₂)` made monic and `v' = −V mod u'`.
//! The inverse of `u₁ mod u₂ = (z₁x + z₀)/Zu` is `Zu·(−z₁x + t₀)/δ` with
//! `t₀ = z₀ − c₁z₁` and `δ = z₀t₀ + c₀z₁²` (the resultant times Zu²), so
//! `s = (S₁x + S₀)/Δ` with `Δ = Y·δ`. Writing `σ = S₀/S₁` and `ω = 1/s₁ =
//! Δ/S₁`, the exact quotient gives (this crate's derivation, in the
//! affine shape of Lange 2005's formulas, checked in `derive.py`)
//!
//! ```text
//! u'₁ = 2σ + z₁ − ω²,   u'₀ = σ² + 2σz₁ + t₀ + 2b₁ω + (a₁ + c₁ − f₄)·ω²,
//! v' = −v₁ − s₁·(l mod u'),   l = (x + σ)·u₁,   l mod u' = l − (x + w)·u',
//! w = c₁ − σ + ω²,
//! ```
//!
//! (`z`, `t₀` affine here). Over denominators: `u' = x² + (N₁x +
//! N₀)/(Zu·S₁²)` and `v'` over `Zu·S₁² · Δ·S₁`, so the output is `(N₁, N₀,
//! V₁, V₀, Zu·S₁², Δ·S₁)` — 41 products and squares, no inversion (the
//! count is written beside each line of [`mixed_add`]); `2A₁ − z₁ = A₁ +
//! c₁Zu` reuses `c₁Zu`. The map takes one denominator: `Z = Zu·Y`, three
//! products once. Rejected:
//!
//! - `(A1 : A0 : B1 : B0 : Z)` with one denominator, Cantor's steps
//!   homogenised directly: 48 products, a key 15 % slower.
//! - `2S₁S₀` as `(S₁ + S₀)² − S₁² − S₀²` with a halving rotation: slower.
//! - `f₄` moved to 0 by running the comb on the curve translated by `f₄/5`
//!   (a new table, entries translated, the sum translated back before the
//!   map): one product less, a key within the noise (the interleaved comb
//!   is partly bound by streaming the table), so not worth a second table.
//!
//! Exceptional cases — `r = 0` (the two `u`'s share a root: `R = ±T`) or
//! `s₁ = 0` (the sum has a degree-1 `u`) — are flagged in constant time;
//! they happen only for scalars whose partial sums meet a table entry
//! (`0`, `N2`, `2^250 − (N2 − 2^250)` and its negation among the values
//! tested; about 2^-120 for a random scalar). A flagged result is thrown
//! away and the ladder runs instead: that branch is the one place the
//! computation reveals anything about the scalar (that it is exceptional),
//! declassified for ct-check like the DH verdicts.
//!
//! # The map to the surface
//!
//! Cassels–Flynn coordinates of `(u, v)` on `C` (`f₅ = 1`, `f₀ = 0`),
//! with `x₁ + x₂ = −u₁`, `x₁x₂ = u₀`, `y₁y₂ = v₁²u₀ − v₁v₀u₁ + v₀²`:
//! `(1 : x₁ + x₂ : x₁x₂ : (F₀(x₁, x₂) − 2y₁y₂)/(x₁ − x₂)²)`, homogenised
//! by `Z³·(u₁² − 4u₀)`; then the 4×4 matrix `MAP`, then the usual
//! encoding (one inversion).
//!
//! # Cost
//!
//! 35 mixed additions (41 products and squares each, scalar `u128`
//! arithmetic, two folds per product, values kept in `[0, p]`), 36
//! masked row scans, the map (≈ 38 products) and the encoding's
//! inversion. Against the machine (Zen 3; the test `cost_probe`, run by
//! hand, times each part: `cargo test --release -p fieldwork-crypto --lib
//! cost_probe -- --ignored --nocapture`):
//!
//! - the additions: one product (`field_x86.rs`'s assembly: four `mul`
//!   and 16 ALU instructions) has a latency of ≈ 14 cycles and a
//!   throughput of ≈ 8–9 (four independent chains), so 41 products are
//!   ≈ 350 cycles of ≈ 450 an addition, not the dependency chain (≈ 8
//!   products deep, ≈ 115 cycles). The loop is ≈ 2 070 instructions an
//!   addition at ≈ 4.6 a cycle; a `mulx` build (a third fewer moves)
//!   times the same, so the bound is the integer ALUs and the one
//!   multiplier (a `mul` issues every ≈ 1.3 cycles), not dispatch. The
//!   compiled Rust product was ≈ 17 and ≈ 11 cycles (two `shld`, two
//!   `and`s with an all-ones word), ≈ 2 600 instructions an addition;
//! - the scans: alone, ≈ 100–130 cycles a row (the `vpblendvb`s; an
//!   L1-resident row is not much faster than one streamed from L2).
//!   Interleaved with the additions (above) they hide under the scalar
//!   work entirely — a key takes the time of the same comb with no scan —
//!   provided each part stays where it is placed ([`Scan::pin`]: LLVM
//!   otherwise gathers the parts after the addition, where they cost
//!   their whole time, ≈ 1.3 µs a key on Zen 3). Read whole before each
//!   addition they cannot hide: a row's scan and the addition that needs
//!   it are ≈ 160 and ≈ 1 700 instructions, more than the 256-entry
//!   reorder buffer holds;
//! - the encoding: mostly the inversion chain (137 dependent products at
//!   ≈ 14 cycles); the map and the recoding are small.
//!
//! Rejected:
//!
//! - The ladder's ymm 4-way field: ≈ 7 ticks a product against ≈ 10
//!   here, too little to pay for the regrouping.
//! - Prefetching the next row (`prefetcht0` on its 64 lines before the
//!   addition): slower.
//! - The next row's whole scan issued before the current addition
//!   (software pipelining): slower.
//! - The parts with no `Option` around them (one basic block, where LLVM
//!   gathered them together again): slower. (With the `Option`, too, LLVM
//!   had gathered them into one block after the addition, unnoticed until
//!   the pins.)
//! - `zeroize` of the scan's accumulator after the loop (a compiler
//!   fence): slower.
//! - The portable scan interleaved the same way: slower (its SSE2 parts
//!   take scalar ports and registers from the additions).
//! - Four sums in the four lanes of the AVX2 `Fe4` (digit `i` into sum
//!   `i mod 4`, 8 vector additions, one inversion to combine): 7 % slower
//!   on the Xeon — the scans no longer hide and the combination costs
//!   ≈ 3 300 cycles (the notes have the port model). On the IFMA
//!   multiplier the same lane comb wins: `ifma.rs` runs it, and
//!   [`combine`] here ends it.
//! - One scalar sum beside four lane sums, each line of the addition
//!   issuing its `mul`s and its `vpmuludq`s together, so the integer and
//!   vector pipes of an AMD core work at once: on Zen 3 a digit costs more
//!   in lanes than in scalars, and the pair ran slower than the two one
//!   after the other (in-order dispatch waits behind a full vector queue).
//!
//! The `vpblendvb` scan replaced a `vpand`/`vpor` one (8 k fewer
//! instructions a key).
#![forbid(unsafe_code)]

use super::encoding::{decode, encode};
use super::field::{
    Fe, P, add_loose as add, loose, mul_loose as mul, square_loose as sq, sub_loose as sub,
};
use super::fixed_base_table::{ENTRIES, F, MAP, TABLE, W, WINDOWS};
use super::{BASE_POINT, Backend};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

/// The base point's order N2, four little-endian 64-bit limbs.
pub(super) const N2: [u64; 4] = [
    0xb88c_f4b4_7bf3_fa43,
    0xad3d_8036_065e_ab00,
    0x0334_d698_20c7_5294,
    0x0400_0000_0000_0000,
];
// N2 is odd and the limbs above read the decimal of the module docs; the
// test `n2_limbs` checks them against the KAT file's bytes.

// ---------------------------------------------------------------- field
// Values are u128 in [0, p] (p itself stands for 0): products, squares,
// sums and differences are the field's `mul_loose`, `square_loose`,
// `add_loose` and `sub_loose`, which keep [0, p] (x86-64 assembly, or Rust
// elsewhere).

/// 1 when `a ≡ 0 (mod p)` (for `a ∈ [0, p]`: 0 or p), else 0, by
/// arithmetic: `a & P` is 0 only for `a = 0` and `(a + 1) & P` only for
/// `a = p`, and `v < 2^127` is nonzero exactly when `v | −v` has bit 127
/// set. (Replaces subtle's `ct_eq` on four 64-bit halves, each through
/// `black_box`: a key 0.8 % faster on Zen 3 by `scripts/ab-time.sh`.)
#[inline(always)]
pub(super) fn zero_bit(a: u128) -> u64 {
    let nonzero = |v: u128| ((v | v.wrapping_neg()) >> 127) as u64;
    (nonzero(a & P) & nonzero((a + 1) & P)) ^ 1
}

// ---------------------------------------------------------------- scalar

/// `a − b` on four limbs, and the final borrow (0 or 1).
#[inline(always)]
fn sub4(a: [u64; 4], b: [u64; 4]) -> ([u64; 4], u64) {
    let mut out = [0u64; 4];
    let mut borrow = 0u64;
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        let (d1, b1) = x.overflowing_sub(y);
        let (d2, b2) = d1.overflowing_sub(borrow);
        *o = d2;
        borrow = u64::from(b1 | b2);
    }
    (out, borrow)
}

/// `a` when `choice` is set, else `b`, limb by limb (subtle's selection).
#[inline(always)]
fn select4(choice: Choice, a: [u64; 4], b: [u64; 4]) -> [u64; 4] {
    let mut out = b;
    for (o, x) in out.iter_mut().zip(a) {
        o.conditional_assign(&x, choice);
    }
    out
}

/// The odd representative of `±scalar mod N2` (its multiple of `D` has
/// the surface image of `scalar·D`), recoded into `WINDOWS` signed odd
/// digits of `W + 1` bits.
pub(super) fn digits(scalar: &[u8; 32]) -> [i8; WINDOWS] {
    let mut k = [0u64; 4];
    for (limb, bytes) in k.iter_mut().zip(scalar.as_chunks::<8>().0) {
        *limb = u64::from_le_bytes(*bytes);
    }
    let [k0, k1, k2, k3] = k;
    k = [k0, k1, k2, k3 & ((1 << 59) - 1)]; // the low 251 bits
    // k < 2^251 < 2·N2: one conditional subtraction reduces it.
    let (d, borrow) = sub4(k, N2);
    k = select4(Choice::from((borrow ^ 1) as u8), d, k);
    // Even (including 0): take N2 − k, which is odd.
    let (neg, _) = sub4(N2, k);
    k = select4(Choice::from((!k[0] & 1) as u8), neg, k);
    // Regular recoding: d = (k mod 2^(W+1)) − 2^W is odd, and the next
    // quotient (k − d)/2^W = 2·⌊k / 2^(W+1)⌋ + 1 = ⌊k / 2^W⌋ | 1 is odd
    // again. So quotient i is ⌊k / 2^(W·i)⌋ | 1, digit i is bits
    // W·i..W·i + W of k with bit 0 set, less 2^W, and the last quotient
    // ⌊k / 2^(W·(WINDOWS − 1))⌋ | 1 ≤ 2^W (k < 2^251) is the last digit.
    // Window offsets are public; no carry runs through the limbs.
    let bits_from = |start: usize| -> u64 {
        let (limb, off) = (start / 64, start % 64);
        let lo = k.get(limb).copied().unwrap_or(0) >> off;
        let hi = match k.get(limb + 1) {
            Some(&next) if off != 0 => next << (64 - off),
            _ => 0,
        };
        lo | hi
    };
    let mut out = [0i8; WINDOWS];
    for (i, o) in out.iter_mut().enumerate() {
        let window = bits_from(W as usize * i) | 1;
        *o = if i + 1 < WINDOWS {
            ((window & ((2 << W) - 1)) as i64 - (1 << W)) as i8
        } else {
            window as i8
        };
    }
    out
}

// ---------------------------------------------------------------- Jacobian

/// A table row.
pub(super) type Row = [[u64; 8]; ENTRIES];

/// A row is read in [`PARTS`] parts of `PART` entries: the parts of the
/// next row's read are spread through the current mixed addition, so the
/// vector unit scans while the scalar units multiply.
const PARTS: usize = 8;
pub(super) const PART: usize = ENTRIES / PARTS;
const _: () = assert!(PART * PARTS == ENTRIES && PART.is_multiple_of(4));

/// How the comb reads a row: entry `idx` (secret), by a scan of all of
/// them that keeps entry `idx` and nothing else (no address or branch
/// depends on `idx`).
pub(super) trait Scan: Copy {
    /// Whether the comb reads row `i + 1` in [`Scan::scan_part`]s spread
    /// through addition `i` (on the vector unit while the scalar units
    /// multiply), rather than whole before it.
    const INTERLEAVED: bool;

    /// A row read in parts, from [`Scan::begin`] to [`Scan::end`]: the
    /// entry merged so far and whatever the parts share (the AVX2 scan's
    /// masks of the index).
    type Read: Copy;

    /// Entry `idx` of `row`.
    fn scan(self, row: &Row, idx: u64) -> [u64; 8];

    /// A read of entry `idx`, nothing merged yet.
    fn begin(self, idx: u64) -> Self::Read;

    /// Merges entries `[PART·k, PART·(k + 1))` of `row` into `read`: entry
    /// `idx`, if it is among them.
    fn scan_part(self, row: &Row, k: usize, read: &mut Self::Read);

    /// The entry read (zero if no part held it).
    fn end(self, read: Self::Read) -> [u64; 8];

    /// `x`, a value the addition has just computed, tied to `read` where
    /// the parts are interleaved: an optimisation barrier that keeps the
    /// part issued before it from moving past it (without it LLVM gathers
    /// every part of an addition into one block after it). Nothing on
    /// scans that are not interleaved.
    #[inline(always)]
    fn pin(self, read: &mut Self::Read, x: u128) -> u128 {
        let _ = read;
        x
    }
}

/// The portable scan: [`scan`] with masks computed on scalars. Not
/// interleaved: spread through the additions its parts made a key 7 %
/// slower on Zen 3 (the SSE2 parts compete with the additions for the
/// scalar ports and registers).
#[derive(Clone, Copy)]
pub(super) struct PortableScan;

impl PortableScan {
    /// The masks of entries `first..first + N` for `idx`, through
    /// `black_box`: seeing a mask that is 0 or all ones, LLVM turns the
    /// selection into `cmov`s on it (ct-check reports those); loaded from
    /// memory, they are plain AND/OR operands.
    #[inline(always)]
    fn masks<const N: usize>(first: usize, idx: u64) -> [u64; N] {
        let mut masks = [0u64; N];
        for (j, m) in (first as u64..).zip(masks.iter_mut()) {
            *m = ((j ^ idx).wrapping_sub(1) >> 63).wrapping_neg();
        }
        core::hint::black_box(masks)
    }
}

/// [`Scan::Read`], [`Scan::begin`] and [`Scan::end`] for a scan whose
/// parts share nothing but the index: the read is the entry merged so far
/// and the index (the portable and NEON scans).
macro_rules! plain_read {
    () => {
        /// The entry merged so far, and the index.
        type Read = ([u64; 8], u64);

        #[inline(always)]
        fn begin(self, idx: u64) -> Self::Read {
            ([0; 8], idx)
        }

        #[inline(always)]
        fn end(self, read: Self::Read) -> [u64; 8] {
            read.0
        }
    };
}
#[cfg_attr(not(target_arch = "aarch64"), allow(unused_imports))]
pub(super) use plain_read;

impl Scan for PortableScan {
    const INTERLEAVED: bool = false;
    plain_read!();

    #[inline(always)]
    fn scan(self, row: &Row, idx: u64) -> [u64; 8] {
        scan(row, &Self::masks::<ENTRIES>(0, idx))
    }

    #[inline(always)]
    fn scan_part(self, row: &Row, k: usize, read: &mut Self::Read) {
        let masks = Self::masks::<PART>(PART * k, read.1);
        let entries = row.get(PART * k..PART * (k + 1));
        if let Some(entries) = entries.and_then(|e| <&[[u64; 8]; PART]>::try_from(e).ok()) {
            or_masked(&mut read.0, entries, &masks);
        }
    }
}

/// The entry number of an odd digit `d`: `(|d| − 1)/2`.
#[inline(always)]
pub(super) fn entry_index(d: i8) -> u64 {
    let sign = i64::from(d) >> 63; // 0 or −1
    (((i64::from(d) ^ sign) - sign) as u64) >> 1
}

/// `d·2^(W·i)·D` for an odd digit `|d| < 2^W`, affine `(u1, u0, v1, v0)`,
/// from entry `(|d| − 1)/2` of its row: `v` negated by mask when `d < 0`.
#[inline(always)]
pub(super) fn signed_entry(e: [u64; 8], d: i8) -> [u128; 4] {
    let e = words_to_coords(e);
    let neg = core::hint::black_box((i128::from(d) >> 127) as u128); // all ones when d < 0
    let flip = |v: u128| (v & !neg) | (loose(P - v) & neg);
    [e[0], e[1], flip(e[2]), flip(e[3])]
}

/// The OR of the row's entries, each ANDed with its mask. Kept out of
/// line: on its own, LLVM vectorises the whole scan (SSE2 `pand`/`por` on
/// four words pairs an entry); inlined into the comb it vectorised only
/// half of each entry.
#[inline(never)]
fn scan(row: &Row, masks: &[u64; ENTRIES]) -> [u64; 8] {
    let mut acc = [0u64; 8];
    or_masked(&mut acc, row, masks);
    acc
}

/// ORs each entry, ANDed with its mask, into `acc` (the portable scan's
/// whole rows and parts).
#[inline(always)]
fn or_masked<const N: usize>(acc: &mut [u64; 8], entries: &[[u64; 8]; N], masks: &[u64; N]) {
    for (entry, &m) in entries.iter().zip(masks) {
        for (x, y) in acc.iter_mut().zip(entry) {
            *x |= y & m;
        }
    }
}

/// An entry's eight little-endian words as its four coordinates.
#[inline(always)]
fn words_to_coords(w: [u64; 8]) -> [u128; 4] {
    let [a, b, c, d, e, f, g, h] = w;
    let join = |lo: u64, hi: u64| u128::from(lo) | (u128::from(hi) << 64);
    [join(a, b), join(c, d), join(e, f), join(g, h)]
}

/// `R + T` (module docs), and 1 if the case was exceptional (else 0).
///
/// `R = (A1, A0, B1, B0, Zu, Y)`: `u = x² + (A1·x + A0)/Zu`, `v = (B1·x +
/// B0)/(Zu·Y)`; `T = (c1, c0, d1, d0)` affine. 41 products and squares
/// (the count beside each line).
#[inline(always)]
fn mixed_add<S: Scan>(
    r: [u128; 6],
    t: [u128; 4],
    s: S,
    next: Option<&Row>,
    read: &mut S::Read,
) -> ([u128; 6], u64) {
    // Part k of the next row's read. A macro, not a closure: a closure does
    // not inherit the AVX2 comb's target features (its intrinsics would
    // stay calls).
    macro_rules! part {
        ($k:literal, $v:ident) => {
            if let Some(row) = next {
                s.scan_part(row, $k, read);
            }
            let $v = s.pin(read, $v);
        };
    }
    let [a1, a0, b1, b0, zu, y] = r;
    let [c1, c0, d1, d0] = t;
    // u₁ mod u₂ = (z1·x + z0)/Zu; v₂ − v₁ = (e1·x + e0)/Zv.
    let zv = mul(zu, y); // 1
    let z1 = sub(a1, mul(c1, zu)); // 2
    let z0 = sub(a0, mul(c0, zu)); // 3
    let e1 = sub(mul(d1, zv), b1); // 4
    let e0 = sub(mul(d0, zv), b0); // 5
    part!(0, e0);
    // δ = r·Zu² (r the resultant); s = (S1·x + S0)/Δ with Δ = Y·δ.
    let t0 = sub(z0, mul(c1, z1)); // 6
    let dl = add(mul(z0, t0), mul(c0, sq(z1))); // 9
    let s1 = sub(mul(e1, z0), mul(e0, z1)); // 11
    part!(1, s1);
    let s0 = add(mul(mul(e1, z1), c0), mul(e0, t0)); // 14
    let dy = mul(y, dl); // 15
    let bad = zero_bit(dl) | zero_bit(s1);
    part!(2, dy);
    let (s11, s00, dd, s10) = (sq(s1), sq(s0), sq(dy), mul(s1, s0)); // 19
    let s10x2 = add(s10, s10);
    // u' = x² + (N1·x + N0)/(Zu·S1²).
    let n1 = add(mul(zu, sub(s10x2, dd)), mul(z1, s11)); // 21
    part!(3, n1);
    let b1dl = mul(b1, dl); // 22
    let f4z = sub(sub(add(a1, a1), z1), mul(F[4], zu)); // 23
    let n0 = add(
        add(add(mul(zu, s00), mul(z1, s10x2)), mul(t0, s11)), // 26
        add(mul(add(b1dl, b1dl), s1), mul(f4z, dd)),          // 28
    );
    part!(4, n0);
    // v' = −(V mod u') with V = v₁ + s·u₁, over Zu·S1²·Y·δ·S1: the
    // quotient's leading term w = W/S1² and l = (x + S0/S1)·u₁.
    let w = add(sub(mul(c1, s11), s10), dd); // 29
    let mid = add(mul(a0, s1), mul(a1, s0)); // 31
    let a0s0 = mul(a0, s0); // 32
    part!(5, a0s0);
    let s13 = mul(s11, s1); // 33
    let v1 = add(
        sub(mul(w, n1), mul(s13, add(b1dl, mid))), // 35
        mul(s11, n0),                              // 36
    );
    part!(6, v1);
    let v0 = sub(mul(w, n0), mul(s13, add(mul(b0, dl), a0s0))); // 39
    part!(7, v0);
    ([n1, n0, v1, v0, mul(zu, s11), mul(dy, s1)], bad) // 41
}

/// A sum `(A1, A0, B1, B0, Zu, Y)` of [`mixed_add`] over the one
/// denominator `Z = Zu·Y` that [`to_surface`] takes.
#[inline(always)]
fn common_denominator(r: [u128; 6]) -> [u128; 5] {
    let [a1, a0, b1, b0, zu, y] = r;
    [mul(a1, y), mul(a0, y), b1, b0, mul(zu, y)]
}

/// The surface point of a projective divisor (module docs, "The map").
fn to_surface(r: [u128; 5]) -> [Fe; 4] {
    let [a1, a0, b1, b0, z] = r;
    let disc = sub(sq(a1), mul(add(add(a0, a0), add(a0, a0)), z));
    let zz = sq(z);
    let a00 = sq(a0);
    // Z³·F₀ with x₁ + x₂ = −A1/Z, x₁x₂ = A0/Z (f₀ = 0, f₅ = 1).
    let f0 = sub(
        add(
            add(
                mul(mul(F[2], a0), add(zz, zz)),
                mul(mul(F[4], a00), add(z, z)),
            ),
            sub(0, mul(mul(F[1], a1), zz)),
        ),
        add(mul(mul(F[3], a0), mul(a1, z)), mul(a00, a1)),
    );
    // Z³·y₁y₂.
    let yy = add(sub(mul(sq(b1), a0), mul(mul(b1, b0), a1)), mul(sq(b0), z));
    let cf = [
        mul(z, disc),
        sub(0, mul(a1, disc)),
        mul(a0, disc),
        sub(f0, add(yy, yy)),
    ];
    MAP.map(|row| {
        let mut acc = 0u128;
        for (m, c) in row.iter().zip(cf) {
            acc = add(acc, mul(*m, c));
        }
        Fe::reduced(acc)
    })
}

/// The lane-parallel comb's end (`ifma.rs`): four sums `(A1, A0, B1, B0,
/// Zu, Y)`, the digits `i ≡ j (mod 4)` in sum `j`, added into sum 0 and
/// mapped to the surface; and 1 if a sum or an addition was exceptional.
///
/// Every addition multiplies `Y` by `δ·s₁` (the last line of
/// [`mixed_add`]) and starts from `Y = 1`, so a sum met an exceptional
/// addition exactly when its `Y ≡ 0`. Sums 1 to 3 are made affine with one
/// inversion (Montgomery's trick on `q = Zu·Y`: `1/Zu = Y/q`, `v`'s
/// denominator is `q`; 6 products, the inversion and 15 products), then
/// added into sum 0 by [`mixed_add`]: 3 additions, flagged as in the comb.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn combine<S: Scan>(s: S, sums: [[u128; 6]; 4]) -> ([Fe; 4], u64) {
    let mut bad = 0u64;
    for sum in &sums {
        bad |= zero_bit(sum[5]);
    }
    let [mut r, p1, p2, p3] = sums;
    let (q1, q2, q3) = (mul(p1[4], p1[5]), mul(p2[4], p2[5]), mul(p3[4], p3[5]));
    let q12 = mul(q1, q2);
    let inv = Fe(mul(q12, q3)).invert().0; // 0 when a q is: flagged above
    let inv12 = mul(inv, q3);
    let inverses = [mul(inv12, q2), mul(inv12, q1), mul(inv, q12)];
    let mut read = s.begin(0);
    for (p, iq) in [p1, p2, p3].into_iter().zip(inverses) {
        let iz = mul(p[5], iq); // 1/Zu
        let t = [mul(p[0], iz), mul(p[1], iz), mul(p[2], iq), mul(p[3], iq)];
        let (sum, b) = mixed_add(r, t, s, None, &mut read);
        r = sum;
        bad |= b;
    }
    (to_surface(common_denominator(r)), bad)
}

/// The comb: `scalar·BASE_POINT` on the surface, projectively, and
/// whether an addition was exceptional (the result is then meaningless).
#[inline(always)]
pub(super) fn comb<S: Scan>(s: S, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
    let mut d = digits(scalar);
    let mut bad = 0u64;
    let mut r = [0u128; 6];
    let mut read = s.begin(0);
    // Row 0, read whole, starts the sum; row i + 1 is read during
    // addition i (row 1 whole, before the first addition).
    let mut steps = TABLE.iter().zip(d.iter().copied()).enumerate();
    if let Some((_, (row, d0))) = steps.next() {
        let [c1, c0, e1, e0] = signed_entry(s.scan(row, entry_index(d0)), d0);
        r = [c1, c0, e1, e0, 1, 1];
    }
    while let Some((i, (row, di))) = steps.next() {
        let e = if i == 1 || !S::INTERLEAVED {
            s.scan(row, entry_index(di))
        } else {
            s.end(read)
        };
        let t = signed_entry(e, di);
        let next = match steps.clone().next() {
            Some((_, (row, dn))) if S::INTERLEAVED => {
                read = s.begin(entry_index(dn));
                Some(row)
            }
            _ => None,
        };
        let (sum, b) = mixed_add(r, t, s, next, &mut read);
        r = sum;
        bad |= b;
    }
    // The digits spell the secret scalar.
    d.zeroize();
    // The last addition read no row (its `read` is the previous one's).
    (
        to_surface(common_denominator(r)),
        Choice::from(core::hint::black_box(bad as u8)),
    )
}

/// The encoding, kept out of [`scalarmult_base`]'s own frame (ct-check's
/// suppression covers that frame's one branch only).
#[inline(never)]
fn encode_result(point: [Fe; 4]) -> [u8; 48] {
    encode(point)
}

/// `scalar·BASE_POINT` by `backend`'s comb, the same bytes as its
/// ladder (tested).
/// Constant time except for the exceptional case of the module docs.
#[inline(never)]
pub(super) fn scalarmult_base<B: Backend>(backend: B, scalar: &[u8; 32]) -> [u8; 48] {
    let (point, bad) = backend.comb(scalar);
    // The declassification point: the comb met an exceptional addition
    // (module docs); the ladder has none.
    if bool::from(bad) {
        ladder_base(backend, scalar)
    } else {
        encode_result(point)
    }
}

/// `scalar·BASE_POINT` by `backend`'s ladder, for the comb's exceptional
/// scalars (out of [`scalarmult_base`]'s frame, as the encoding is).
#[inline(never)]
fn ladder_base<B: Backend>(backend: B, scalar: &[u8; 32]) -> [u8; 48] {
    encode(backend.ladder(scalar, decode(&BASE_POINT)))
}

#[cfg(test)]
mod tests {
    use super::super::Dispatch;
    use super::super::test_rng::Rng;
    use super::super::tests::{Check, each};
    use super::*;
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    fn ladder(k: &[u8; 32]) -> [u8; 48] {
        Dispatch::portable().scalarmult(k, &BASE_POINT)
    }

    fn le(limbs: [u64; 4]) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (o, l) in out.chunks_exact_mut(8).zip(limbs) {
            o.copy_from_slice(&l.to_le_bytes());
        }
        out
    }

    #[test]
    fn n2_limbs() {
        // The KAT file's n2 line, little-endian bytes.
        let hex = "43faf37bb4f48cb800ab5e0636803dad9452c72098d634030000000000000004";
        let bytes: Vec<u8> = (0..32)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
            .collect();
        assert_eq!(bytes, le(N2));
    }

    #[test]
    fn digits_recompose_to_an_odd_representative() {
        let mut rng = Rng::new(0x1234_5678_9abc_def0);
        for _ in 0..200 {
            let k = rng.scalar();
            let d = digits(&k);
            let top = 1i16 << W;
            assert!(
                d.iter()
                    .all(|&x| x % 2 != 0 && (-top..top).contains(&i16::from(x)))
            );
            // The last digit is positive: below 2^(251 − (WINDOWS − 1)·W) + 1.
            let last_bits = 251 - (WINDOWS as u32 - 1) * W;
            assert!((1..=(1i16 << last_bits)).contains(&i16::from(d[WINDOWS - 1])));
            // Horner from the top digit: every partial value is positive.
            let mut v = [0u64; 4];
            for &di in d.iter().rev() {
                let [v0, v1, v2, v3] = v;
                v = [
                    v0 << W,
                    (v1 << W) | (v0 >> (64 - W)),
                    (v2 << W) | (v1 >> (64 - W)),
                    (v3 << W) | (v2 >> (64 - W)),
                ];
                let mut carry = i128::from(di);
                for limb in v.iter_mut() {
                    let t = i128::from(*limb) + carry;
                    *limb = t as u64;
                    carry = t >> 64;
                }
            }
            // Expected: k mod N2, or N2 minus it when that is even.
            let mut e = [0u64; 4];
            for (limb, b) in e.iter_mut().zip(k.chunks_exact(8)) {
                *limb = u64::from_le_bytes(b.try_into().unwrap());
            }
            e[3] &= (1 << 59) - 1;
            let (r, borrow) = sub4(e, N2);
            if borrow == 0 {
                e = r;
            }
            if e[0] & 1 == 0 {
                e = sub4(N2, e).0;
            }
            assert_eq!(v, e, "{k:02x?}");
        }
    }

    #[test]
    fn agrees_with_the_ladder() {
        let n2 = le(N2);
        let c = sub4(N2, [0, 0, 0, 1 << 58]).0; // N2 − 2^250
        let exceptional = sub4([0, 0, 0, 1 << 58], c).0; // 2^250 − c
        let mut cases = vec![
            [0u8; 32],
            n2,
            le(exceptional),
            le(sub4(N2, exceptional).0),
            le(sub4(N2, [1, 0, 0, 0]).0),
            le(sub4(N2, [2, 0, 0, 0]).0),
            [0xff; 32],
            le([u64::MAX, u64::MAX, u64::MAX, (1 << 59) - 1]),
        ];
        for v in 1u64..=40 {
            cases.push(le([v, 0, 0, 0]));
        }
        let mut rng = Rng::new(42);
        for _ in 0..40 {
            cases.push(rng.scalar());
        }
        // The exceptional scalars derive.py reports for this table (0 and
        // N2, whose last addition is S + (−S)) are flagged and fall back;
        // the others are not flagged. Every backend's comb (the AVX2 one
        // interleaved) flags the same scalars and gives the ladder's bytes.
        struct Agrees {
            cases: Vec<[u8; 32]>,
            flagged: [[u8; 32]; 2],
            unflagged: [[u8; 32]; 2],
        }
        impl Check for Agrees {
            fn check<B: Backend>(&mut self, b: B) {
                for k in self.cases.iter().rev() {
                    assert_eq!(scalarmult_base(b, k), ladder(k), "{} {k:02x?}", B::NAME);
                }
                for k in &self.flagged {
                    assert!(bool::from(b.comb(k).1), "{} {k:02x?}", B::NAME);
                }
                for k in &self.unflagged {
                    assert!(!bool::from(b.comb(k).1), "{} {k:02x?}", B::NAME);
                }
                // The same point (the IFMA lane comb reaches it through
                // another projective representative).
                let k = [7u8; 32];
                assert_eq!(
                    encode(b.comb(&k).0),
                    encode(comb(PortableScan, &k).0),
                    "{}",
                    B::NAME
                );
            }
        }
        each(&mut Agrees {
            cases,
            flagged: [[0u8; 32], n2],
            unflagged: [le(exceptional), [7u8; 32]],
        });
    }

    #[test]
    fn scans_read_exactly_the_indexed_entry() {
        // Every index of a few rows, through each scan.
        for i in [0, WINDOWS / 2, WINDOWS - 1] {
            let row = &TABLE[i];
            for idx in 0..ENTRIES {
                assert_eq!(
                    PortableScan.scan(row, idx as u64),
                    row[idx],
                    "row {i} entry {idx}"
                );
                #[cfg(target_arch = "x86_64")]
                if let Some(t) = crate::cpu::Avx2::get() {
                    assert_eq!(
                        t.scan(row, idx as u64),
                        row[idx],
                        "avx2, row {i} entry {idx}"
                    );
                }
            }
        }
    }

    /// The parts of a row's read, each scan: entry `idx` is kept by its
    /// part and by no other, and the parts together give the entry.
    fn check_parts(s: impl Scan, name: &str) {
        for i in [1, WINDOWS / 2, WINDOWS - 1] {
            let row = &TABLE[i];
            for idx in 0..ENTRIES {
                let mut all = s.begin(idx as u64);
                for k in 0..PARTS {
                    let mut one = s.begin(idx as u64);
                    s.scan_part(row, k, &mut one);
                    let want = if idx / PART == k { row[idx] } else { [0; 8] };
                    assert_eq!(s.end(one), want, "{name}, row {i} entry {idx} part {k}");
                    s.scan_part(row, k, &mut all);
                    // A pin changes neither its value nor the read.
                    let x = (u128::from(row[k][0]) << 64) | u128::from(row[k][1]);
                    assert_eq!(s.pin(&mut all, x), x, "{name}: pin");
                }
                assert_eq!(s.end(all), row[idx], "{name}, row {i} entry {idx}");
                assert_eq!(s.end(s.begin(idx as u64)), [0; 8], "{name}: nothing read");
            }
            // An index past the row keeps nothing.
            let mut past = s.begin(ENTRIES as u64);
            for k in 0..PARTS {
                s.scan_part(row, k, &mut past);
            }
            assert_eq!(s.end(past), [0; 8], "{name}, row {i}: index past the row");
        }
    }

    #[test]
    fn scan_parts_read_exactly_the_indexed_entry() {
        check_parts(PortableScan, "portable");
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx2::get() {
            check_parts(t, "avx2");
        }
    }

    /// `odd·2^bit mod N2` as a 32-byte scalar for the ladder: the base
    /// point has order N2, and the value (below 2^253 here, 8·N2 > 2^253)
    /// is reduced by subtraction to below N2 < 2^251, all the ladder reads.
    fn multiple(odd: u64, bit: usize) -> [u8; 32] {
        let mut k = [0u64; 4];
        let v = u128::from(odd) << (bit % 64);
        k[bit / 64] = v as u64;
        match k.get_mut(bit / 64 + 1) {
            Some(next) => *next = (v >> 64) as u64,
            None => assert_eq!(v >> 64, 0),
        }
        loop {
            let (d, borrow) = sub4(k, N2);
            if borrow != 0 {
                return le(k);
            }
            k = d;
        }
    }

    /// The surface image of `r + t` ([`mixed_add`] from an affine `r`).
    fn sum_on_surface(r: [u128; 4], t: [u128; 4]) -> [u8; 48] {
        let [c1, c0, d1, d0] = r;
        let mut read = PortableScan.begin(0);
        let (sum, bad) = mixed_add([c1, c0, d1, d0, 1, 1], t, PortableScan, None, &mut read);
        assert_eq!(bad, 0, "exceptional sum of two table entries");
        encode(to_surface(common_denominator(sum)))
    }

    /// Entry `j` of row `i`, recomputed through the surface: it maps to
    /// the ladder's `(2j + 1)·2^(W·i)·BASE_POINT` (scalars of 2^251 and
    /// more, in the last row, reduced mod N2). The surface forgets the
    /// sign of `v` (it is the Jacobian modulo ±1), so the sign is checked
    /// by a sum: entry `j > 0` plus entry 0 of its row maps to
    /// `(2j + 2)·2^(W·i)` (with `v` negated it would map to `2j·2^(W·i)`),
    /// and entry 0 of row `i > 0` plus entry 0 of row `i − 1` to
    /// `(2^W + 1)·2^(W·(i − 1))`. Over the whole table, every entry is
    /// then its multiple of one divisor `D` (or every entry of `−D`: the
    /// same comb on the surface).
    fn check_entry(i: usize, j: usize) {
        let bit = W as usize * i;
        let odd = 2 * j as u64 + 1;
        let e = words_to_coords(TABLE[i][j]);
        let p = to_surface([e[0], e[1], e[2], e[3], 1]);
        assert_eq!(encode(p), ladder(&multiple(odd, bit)), "row {i} entry {j}");
        let first = words_to_coords(TABLE[i][0]);
        if j > 0 {
            assert_eq!(
                sum_on_surface(first, e),
                ladder(&multiple(odd + 1, bit)),
                "row {i} entry {j}: the sign of v"
            );
        } else if i > 0 {
            let previous = words_to_coords(TABLE[i - 1][0]);
            assert_eq!(
                sum_on_surface(previous, first),
                ladder(&multiple((1 << W) + 1, bit - W as usize)),
                "row {i} entry 0: the sign of v against row {}",
                i - 1
            );
        }
    }

    /// Every entry starts a cache line (the table's `align(64)`), so no
    /// scan load splits two lines whatever the linker's placement.
    #[test]
    fn table_entries_start_cache_lines() {
        assert_eq!(core::mem::align_of_val(&TABLE), 64);
        for row in TABLE.iter() {
            for entry in row {
                assert_eq!(entry.as_ptr() as usize % 64, 0);
            }
        }
    }

    /// The whole table, every row and every entry ([`check_entry`]): about
    /// 4 700 ladders, 0.2 s in release and 2 s in a debug build.
    #[test]
    fn table_is_the_multiples_of_the_base_point() {
        for i in 0..WINDOWS {
            for j in 0..ENTRIES {
                check_entry(i, j);
            }
        }
    }
}

/// The time of each part of a key, for the module docs' "Cost": a
/// profile, not a test of anything (it asserts nothing and is ignored).
/// `cargo test --release -p fieldwork-crypto --lib cost_probe --
/// --ignored --nocapture`.
#[cfg(all(test, target_arch = "x86_64"))]
mod cost_probe {
    use super::*;
    extern crate std;

    /// The fastest of 30 runs of 2 000 calls, in ns a call.
    fn time(name: &str, mut f: impl FnMut(u64) -> u64) {
        let mut best = u128::MAX;
        let mut acc = 0;
        for _ in 0..30 {
            let start = std::time::Instant::now();
            for k in 0..2000u64 {
                acc ^= f(k);
            }
            best = best.min(start.elapsed().as_nanos());
        }
        std::println!("{name:>16}: {:8.1} ns   ({acc:x})", best as f64 / 2000.0);
    }

    #[test]
    #[ignore = "a profile for the module docs, run by hand"]
    fn cost_probe() {
        let Some(t) = crate::cpu::Avx2::get() else {
            return;
        };
        let Some(d) = super::super::Dispatch::avx2() else {
            return;
        };
        let mut sc = [7u8; 32];
        time("key", |k| {
            sc[0] = k as u8;
            u64::from(d.scalarmult_base_comb(core::hint::black_box(&sc))[0])
        });
        let e = words_to_coords(TABLE[1][5]);
        let e2 = words_to_coords(TABLE[2][9]);
        time("35 additions", |_| {
            let mut r = [e[0], e[1], e[2], e[3], 1, 1];
            for _ in 0..35 {
                r = mixed_add(r, core::hint::black_box(e2), t, None, &mut t.begin(0)).0;
            }
            r[0] as u64
        });
        time("36 scans", |k| {
            let mut acc = 0;
            for (i, row) in TABLE.iter().enumerate() {
                acc ^= t.scan(row, core::hint::black_box((k * 7 + i as u64) % 64))[3];
            }
            acc
        });
        time("36 scans, 1 row", |k| {
            let mut acc = 0;
            for i in 0..WINDOWS as u64 {
                acc ^= t.scan(&TABLE[0], core::hint::black_box((k * 7 + i) % 64))[3];
            }
            acc
        });
        // One `u128` product (`mul_loose`): four independent chains of
        // 100 (throughput), one chain of 400 (latency), ns a product × 400.
        let y = core::hint::black_box(e2[1]);
        time("400 products", |k| {
            let mut x = [e[0], e[1], e[2], e[3] ^ u128::from(k)];
            for _ in 0..100 {
                for v in x.iter_mut() {
                    *v = mul(*v, y);
                }
            }
            x.iter().fold(0, |a, v| a ^ *v as u64)
        });
        time("400 dependent", |k| {
            let mut v = e[0] ^ u128::from(k);
            for _ in 0..400 {
                v = mul(v, y);
            }
            v as u64
        });
        time("recoding", |k| {
            sc[0] = k as u8;
            digits(core::hint::black_box(&sc))[3] as u64
        });
        time("to_surface", |k| {
            to_surface(core::hint::black_box([
                e[0],
                e[1],
                e[2],
                e[3],
                u128::from(k) + 1,
            ]))[0]
                .0 as u64
        });
        time("encoding", |k| {
            let p = [Fe(u128::from(k) + 5), Fe(7), Fe(9), Fe(11)];
            u64::from(encode_result(core::hint::black_box(p))[0])
        });
    }
}
