//! Inversion by Bernstein–Yang divsteps, in constant time: what
//! [`FieldElement::invert`](super::FieldElement::invert) (and `invert_batch`) use on the carry-less
//! backends from m = 571 ([`Divstep::DIVSTEP_FROM`]); Itoh–Tsujii
//! (`algorithms::invert`) below and on the portable backend. The hidden
//! `Dispatch::invert_divstep` reaches it at every m (tests, `fieldwork
//! speed`).
//!
//! # The algorithm
//!
//! Bernstein and Yang, "Fast constant-time gcd computation and modular
//! inversion", TCHES 2019(3) (IACR ePrint 2019/266), the polynomial case:
//! for f of degree d with f(0) ≠ 0 and g of degree < d, the divstep over
//! GF(2) (where f(0) = 1 throughout) is
//!
//! ```text
//! divstep(δ, f, g) = (1 − δ, g, (g + f)/x)           if δ > 0 and g(0) = 1
//!                    (1 + δ, f, (g + g(0)·f)/x)      otherwise
//! ```
//!
//! and from δ = 1, f = the modulus P (degree m, P(0) = 1: the reversal of
//! the monic polynomial of their gcd theorem), g = a (degree < m), after
//! 2m − 1 divsteps g = 0 and f = the reversed gcd, here 1 (P irreducible,
//! a ≠ 0). After n steps x^n·(f_n, g_n) = T·(P, a) for a 2 × 2 matrix
//! T = (u v; q r) of polynomials, so x^n = v·a mod P and a^(−1) =
//! v·x^(−n) mod P. The code tracks d ≡ v·c, e ≡ r·c (mod P) for a public
//! constant c, from (d, e) = (0, c), c chosen so that d ends as a^(−1)
//! with no final product. For a = 0, g stays 0, no step swaps and v stays
//! 0: 0 maps to 0.
//!
//! # Batches
//!
//! The first j divsteps depend only on the low j bits of f and g, so they
//! run on one word each ([`divsteps`]), giving the batch's matrix with
//! entries of degree ≤ j; the code keeps them multiplied by x^(63 − j)
//! (one word each, degree ≤ 63) and applies them to the whole (f, g),
//! `(u·f + v·g)·x^(63 − j)/x^63` (4W word products and a shift by 63), and
//! to (d, e) modulo P (4W word products and a sparse fold of the top
//! word; the factor x^(63 − j) a batch goes into c = x^(−63·batches) mod
//! P). j ≤ 55 (below) and the number of batches depend on m only:
//! ⌈(2m − 1)/55⌉ batches of ⌈(2m − 1)/batches⌉ steps (the few extra
//! steps are harmless: with g = 0 a divstep leaves f and g alone).
//!
//! | m | batches × j | divsteps |
//! |---|---|---|
//! | 163 | 6 × 55 | 330 |
//! | 233 | 9 × 52 | 468 |
//! | 283 | 11 × 52 | 572 |
//! | 409 | 15 × 55 | 825 |
//! | 571 | 21 × 55 | 1 155 |
//!
//! # The inner loop
//!
//! Both rows of the matrix evolve as f and g do, scaled: keep the entries
//! divided by x^i after i steps (x^0 at bit 63, x^(−k) at bit 63 − k), and
//! the update of a row is exactly that of its value — select on a swap,
//! (row_g + g(0)·row_f)/x a right shift. So a value and one column of the
//! matrix share a word: `af` = f's low bits and u (divided by x: f(0) = 1
//! is implicit), `ag` = g's low bits and q, `bf` = v/x, `bg` = r. The
//! values' live bits (below j − i) and the matrix (from 63 − i up) never
//! meet, but the dead bits between them carry stale value bits, which
//! move between `af` and `ag` on swaps and, in `af`, do not shift; they
//! are cleared eight at a time in both words before each block of eight
//! steps, just before the matrix can reach them (which needs j ≤ 63 − 8).
//! One step, no branch and no index on a secret (δ included):
//!
//! - portable: masks m = −g(0) and swap = m ∧ (δ > 0), δ kept as η = −δ
//!   (libsecp256k1's `modinv64` does so) so δ > 0 is η's sign; 19 integer
//!   operations, a 4-operation chain;
//! - x86-64: `cmov` in inline assembly (no compiler-made branch), δ kept as
//!   δ − 1 so that `test` g(0) (ZF) then `bt` the sign (CF, ZF kept) make
//!   the swap `cmova` and m `cmovnz`; 13 operations, a 3-cycle chain.
//!
//! The matrix products: PCLMULQDQ on (f, g) and (d, e) stored as word
//! pairs (word i of f in lane 0 of an xmm register, of g in lane 1), so a
//! row's u·f_i + v·g_i is `pclmulqdq` 0x00 and 0x11 and a XOR, and the
//! shift by 63 and the fold run on both rows at once; with VPCLMULQDQ
//! (the `vpclmulqdq-ymm` backend) two word pairs per ymm instruction.
//! Portable: the `gf2x` word products on plain words.
//!
//! Idea credits: the divstep, its batching and the 2 × 2 transition
//! matrices are Bernstein–Yang's; η = −δ is libsecp256k1's; the code is
//! ours.
//!
//! # Operation counts and where it is used
//!
//! Per inversion: batches × j steps (13 integer operations on a 3-cycle
//! chain each on x86-64, 19 on a 4-operation chain portable) and
//! (8·batches − 4)·W `pclmulqdq` for the matrix products (four per word
//! pair for both rows; the last batch skips (f, g)), on ymm two word pairs
//! per instruction (an odd last pair on xmm). At m = 571 the 1 155 steps
//! alone are a latency floor of about 3 500 cycles.
//!
//! [`Divstep::DIVSTEP_FROM`]: never (Itoh–Tsujii at every m) on the
//! carry-less backends since F283/F571 multiply on 128-bit digits
//! (`xmmfold.rs`; Intel Xeon family 6 model 207: Itoh–Tsujii 6 150
//! cycles at m = 571 against the divsteps' 6 530, and the divsteps were
//! already slower at 283 and 409; on Zen 3 with the older kernels they
//! were level from m = 283); never on the portable backend, whose word
//! products (25 integer multiplications each) the divsteps need about
//! three times as many of as Itoh–Tsujii. The divsteps stay for a core
//! where PCLMULQDQ is slow against the integer chain.
//!
//! Measured history: `docs/notes/gf2m-divstep.md`.
//!
//! # Rejected
//!
//! - The products of a batch spread over the next batch's blocks of steps:
//!   the steps slow down more than the products overlap.
//! - Word 0 of the new (f, g) computed and moved to the integer registers
//!   before the other products: no change.
//! - The (v, r) column in an xmm register (masks moved over by `movq`):
//!   no faster than in general registers.
//! - Blocks of four steps between clearings (j ≤ 59): slower.
//! - δ as η = −δ in the `cmov` step (a second `test`): slower than δ − 1
//!   with `bt`.
//! - Masks instead of `cmov` on x86-64: a 4-cycle chain against 3.
// Indexing is bounded by construction: fixed-size `[_; W]` and
// `[_; W + 1]` arrays with `i < W` (W1 = W + 1 checked at compile time),
// and word positions below ⌈m/64⌉ = W of the field's own modulus.
#![allow(clippy::indexing_slicing)]

use super::maps::MapKernel;
use super::words::{TABLE_DIV, fold_sparse};
use crate::gf2x::{InlineFixed, PortableWord};
#[cfg(target_arch = "x86_64")]
use crate::gf2x::{PclmulLane, YmmLane};

/// The most divsteps one batch runs: the values' bits and the matrix share
/// a word, and the stale bits are cleared `BLOCK` at a time (module doc).
const MAX_STEPS: usize = 63 - BLOCK as usize;

/// Divsteps between two clearings of f's stale bits.
const BLOCK: u32 = 8;

/// One field's constants: the modulus, the batch shape, the start value.
pub(super) struct Plan<'t, const W: usize> {
    /// m.
    m: usize,
    /// The modulus' exponents below m (with 0).
    terms: &'t [usize],
    /// The modulus P as W words (degree m < 64W).
    modulus: [u64; W],
    /// Batches.
    batches: usize,
    /// Divsteps per batch, 1..=55.
    steps: u32,
    /// x^(−63·batches) mod P: each batch multiplies (d, e) by its matrix
    /// times x^(63 − j), and x^(j·batches) is the divsteps' own factor.
    start: [u64; W],
}

/// The plan of the field x^m + Σ x^terms on W words (compile time: each
/// fixed field's `DIVSTEP_PLAN`, from its own terms; at run time, once per
/// field: `runtime.rs`, after [`plan_fits`]).
// `terms[i] < m < 64W` (asserted), so every index is in range.
pub(super) const fn plan<'t, const W: usize>(m: usize, terms: &'t [usize]) -> Plan<'t, W> {
    assert!(m < 64 * W && m > 64 * (W - 1));
    let mut modulus = [0u64; W];
    modulus[m / 64] |= 1 << (m % 64);
    let mut i = 0;
    while i < terms.len() {
        // One fold of a word above m must land below m.
        assert!(terms[i] + 64 < m);
        modulus[terms[i] / 64] |= 1 << (terms[i] % 64);
        i += 1;
    }
    assert!(modulus[0] & 1 == 1);
    let n = 2 * m - 1;
    let batches = n.div_ceil(MAX_STEPS);
    let steps = n.div_ceil(batches);
    // x^(−1) = (P + 1)/x mod P, since P(0) = 1: y/x is y + y(0)·P shifted.
    let mut y = [0u64; W];
    y[0] = 1;
    let mut k = 0;
    while k < 63 * batches {
        let odd = (y[0] & 1).wrapping_neg();
        let mut w = 0;
        while w < W {
            y[w] ^= modulus[w] & odd;
            w += 1;
        }
        let mut w = 0;
        while w < W {
            let next = if w + 1 < W { y[w + 1] } else { 0 };
            y[w] = (y[w] >> 1) | (next << 63);
            w += 1;
        }
        k += 1;
    }
    Plan {
        m,
        terms,
        modulus,
        batches,
        steps: steps as u32,
        start: y,
    }
}

/// Whether [`plan`] takes the field x^m + Σ x^terms on W words (what it
/// asserts): 64(W − 1) < m < 64W, every term below m − 64, and the
/// constant term.
pub(super) fn plan_fits(m: usize, terms: &[usize], words: usize) -> bool {
    words >= 1
        && 64 * (words - 1) < m
        && m < 64 * words
        && terms.contains(&0)
        && terms.iter().all(|&k| k + 64 < m)
}

impl<const W: usize> Plan<'_, W> {
    /// The same plan lending other terms (the run-time fields keep the
    /// plan and the terms apart).
    pub(super) fn with_terms<'u>(&self, terms: &'u [usize]) -> Plan<'u, W> {
        Plan {
            m: self.m,
            terms,
            modulus: self.modulus,
            batches: self.batches,
            steps: self.steps,
            start: self.start,
        }
    }
}

/// From this degree the carry-less backends invert by divsteps: never
/// (Intel Xeon family 6 model 207: Itoh–Tsujii faster at every NIST
/// degree; see the module documentation).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const DIVSTEP_FROM_CARRYLESS: usize = usize::MAX;

/// The carry-less backends' [`Divstep::table_from`]: m/12. With the
/// carry-less fold's squares (13–22 cycles) a Frobenius map is worth
/// about 50 squarings at m = 571 (Intel Xeon family 6 model 207: 571
/// invert 6 150 → 5 570 cycles against m/20).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const TABLE_DIV_CARRYLESS: usize = 12;

/// A backend's divstep inversion on W words (W1 = W + 1): the portable
/// kernels, or PCLMULQDQ on interleaved (f, g) and (d, e) lanes.
pub(super) trait Divstep: super::FieldKernel + MapKernel {
    /// The smallest degree m from which [`FieldElement::invert`](super::FieldElement::invert) takes the
    /// divsteps on these kernels rather than Itoh–Tsujii (`usize::MAX`:
    /// never). Tuned on Zen 3 (AMD EPYC, family 25 model 1); the figures
    /// are in `docs/notes/gf2m-divstep.md`.
    const DIVSTEP_FROM: usize;
    /// Itoh–Tsujii's multi-squaring steps k take a Frobenius table on
    /// these kernels from k ≥ `table_from(m)` (the field keeps tables from
    /// m/`words::TABLE_DIV` on, the smallest bound); below, the squarings
    /// are cheaper than the map.
    fn table_from(m: usize) -> usize;
    /// `a^(−1)` (0 for 0), `a` reduced.
    fn invert_words<const W: usize, const W1: usize>(
        self,
        a: &[u64; W],
        plan: &Plan<'_, W>,
    ) -> [u64; W];
}

/// One divstep on the packed words (see [`divsteps`]): `af` = f's low
/// bits and u, divided by x; `ag` = g's low bits and q; `bf`, `bg` = v/x,
/// r; `h` = δ in the stepper's own encoding. With m = −g(0) and swap =
/// m ∧ (δ > 0): `ag ← ag/x + m·af`, `af ← swap ? ag/x : af`, the same for
/// (bf, bg), δ ← swap ? 1 − δ : 1 + δ.
trait Step: Copy {
    /// δ = 1 in this stepper's encoding.
    const DELTA_ONE: i64;
    /// The step, in constant time.
    fn step(self, af: &mut u64, ag: &mut u64, bf: &mut u64, bg: &mut u64, h: &mut i64);
}

/// The step with masks (any target).
#[derive(Clone, Copy)]
struct MaskStep;

/// δ as η = −δ (libsecp256k1's `modinv64` keeps it so): δ > 0 is η's
/// sign bit.
impl Step for MaskStep {
    const DELTA_ONE: i64 = -1;
    #[inline(always)]
    fn step(self, af: &mut u64, ag: &mut u64, bf: &mut u64, bg: &mut u64, h: &mut i64) {
        let g1 = *ag >> 1;
        let m = (*ag & 1).wrapping_neg();
        let swap = m & ((*h >> 63) as u64);
        *ag = g1 ^ (*af & m);
        *af ^= (*af ^ g1) & swap;
        let b1 = *bg >> 1;
        *bg = b1 ^ (*bf & m);
        *bf ^= (*bf ^ b1) & swap;
        // δ ← 1 − δ on a swap, else 1 + δ: η ← ¬η, else η − 1.
        *h = (*h ^ swap as i64).wrapping_add(!swap as i64);
    }
}

/// `j` divsteps (1 ≤ j ≤ 55) on the low words `f0`, `g0` (f0 odd) from
/// δ (in `S`'s encoding): returns the matrix (u, v, q, r)·x^(63 − j) (each entry one word:
/// degree ≤ 63), for which x^63·(f_j, g_j) = (u·f + v·g, q·f + r·g)
/// scaled alike, and updates δ. Constant time: the same operations
/// whatever the inputs.
#[inline(always)]
fn divsteps<S: Step>(st: S, f0: u64, g0: u64, delta: &mut i64, j: u32) -> [u64; 4] {
    const ONE: u64 = 1 << 63; // x^0 of a matrix entry
    let low = (1u64 << j) - 1;
    // f's low j bits and u, divided by x (f(0) = 1 is implicit); g's low
    // j bits and q.
    let mut af = ((f0 & low) | ONE) >> 1;
    let mut ag = g0 & low;
    let (mut bf, mut bg) = (0u64, ONE); // v / x, r
    let mut h = *delta;
    // Before the block from step s: clear the BLOCK bits below the matrix
    // (`af`: 62 − BLOCK − s ..= 61 − s, the matrix from 62 − s; `ag`: one
    // higher), dead since j ≤ 63 − BLOCK (module doc).
    let mut keep = !(((1u64 << BLOCK) - 1) << (62 - BLOCK));
    for _ in 0..j / BLOCK {
        af &= keep;
        ag &= keep.rotate_left(1);
        keep = keep.rotate_right(BLOCK);
        for _ in 0..BLOCK {
            st.step(&mut af, &mut ag, &mut bf, &mut bg, &mut h);
        }
    }
    af &= keep;
    ag &= keep.rotate_left(1);
    for _ in 0..j % BLOCK {
        st.step(&mut af, &mut ag, &mut bf, &mut bg, &mut h);
    }
    *delta = h;
    // The matrix is bits 63 − j and up; below, the values' dead bits.
    let matrix = !((1u64 << (63 - j)) - 1);
    [(af << 1) & matrix, bf << 1, ag & matrix, bg]
}

/// `x·a + y·b` (x, y one word; a, b W words as the kernel's digits) as
/// W + 1 words.
#[inline(always)]
fn combine<K: InlineFixed, const W: usize, const W1: usize>(
    k: K,
    x: u64,
    a: &[K::Limb; W],
    y: u64,
    b: &[K::Limb; W],
) -> [u64; W1] {
    let [x] = k.limbs(&[x]);
    let [y] = k.limbs(&[y]);
    let mut acc = k.limbs(&[0u64; W1]);
    // i < W, i + 1 < W1 = W + 1.
    for i in 0..W {
        let [p0, p1] = k.mul1(&[x], &[a[i]]);
        let [q0, q1] = k.mul1(&[y], &[b[i]]);
        acc[i] ^= p0 ^ q0;
        acc[i + 1] ^= p1 ^ q1;
    }
    k.words(acc)
}

/// `c / x^63` (its low 63 bits are zero) in W words (the quotient has
/// degree ≤ m < 64W).
#[inline(always)]
fn shift_down<const W: usize, const W1: usize>(c: &[u64; W1]) -> [u64; W] {
    let mut out = [0u64; W];
    // i < W, i + 1 < W1.
    for i in 0..W {
        out[i] = (c[i] >> 63) | (c[i + 1] << 1);
    }
    out
}

/// The low W words (the fold cleared the top one).
#[inline(always)]
fn low_words<const W: usize, const W1: usize>(c: &[u64; W1]) -> [u64; W] {
    let mut out = [0u64; W];
    out.copy_from_slice(&c[..W]);
    out
}

/// [`Divstep`] for the kernels `$k`: the divsteps from degree `$from`,
/// the inversion `$body` (the kernels, `a` and the plan bound to the names
/// given).
macro_rules! divstep_for {
    ($($(#[$attr:meta])* $(@[$($gen:tt)*])? $k:ty: from $from:expr, tables from |$m:ident| $tables:expr,
       |$s:ident, $a:ident, $plan:ident| $body:expr;)*) => {$(
        $(#[$attr])*
        impl $(<$($gen)*>)? Divstep for $k {
            const DIVSTEP_FROM: usize = $from;
            #[inline(always)]
            fn table_from($m: usize) -> usize {
                $tables
            }
            #[inline(always)]
            fn invert_words<const W: usize, const W1: usize>(
                self,
                $a: &[u64; W],
                $plan: &Plan<'_, W>,
            ) -> [u64; W] {
                let $s = self;
                $body
            }
        }
    )*};
}

divstep_for! {
    /// The portable body: the matrix applied by the kernels' word products,
    /// four W-word rows a batch. Three times the word products of
    /// Itoh–Tsujii: slower at every m (`docs/notes/gf2m-divstep.md`).
    PortableWord: from usize::MAX, tables from |m| m / TABLE_DIV,
        |k, a, plan| invert_words_masked::<_, W, W1>(k, a, plan);
    /// PMULL (AArch64): the portable body with `PMULL` word products. Not the
    /// inversion [`FieldElement::invert`](super::FieldElement::invert) takes
    /// (Itoh–Tsujii there) until timed on hardware.
    #[cfg(target_arch = "aarch64")]
    crate::gf2x::PmullWord: from usize::MAX, tables from |m| m / TABLE_DIV,
        |k, a, plan| invert_words_masked::<_, W, W1>(k, a, plan);
    /// PCLMULQDQ: the word pairs on xmm (`x86`).
    #[cfg(target_arch = "x86_64")]
    PclmulLane: from DIVSTEP_FROM_CARRYLESS, tables from |m| m / TABLE_DIV_CARRYLESS,
        |k, a, plan| x86::invert_words::<x86::Xmm, W, W1>(x86::Xmm(k.0), a, plan);
    /// VPCLMULQDQ: two word pairs per ymm instruction (`x86`).
    #[cfg(target_arch = "x86_64")]
    YmmLane: from DIVSTEP_FROM_CARRYLESS, tables from |m| m / TABLE_DIV_CARRYLESS,
        |k, a, plan| x86::invert_words::<x86::Ymm, W, W1>(x86::Ymm(k.0), a, plan);
    /// [`YmmLane`]'s, on the wide backend (AMD), with the chain's steps
    /// from 10, 14 and 25 on tables at m = 163, 233 and 409 (m/16) and
    /// m/12 at 283 and 571. AMD EPYC Zen 4 (family 25 model 17): a map
    /// costs about 6, 11, 13, 15 and 42 of this backend's squares with its
    /// table in L1, 204 against 137 ns at 409 from L2 (four tables of
    /// 23 KiB), and one table more at 571 (k = 35) made inversion slower
    /// in `peer-bench --filter invert` (7 405 against 7 056–7 191 cycles:
    /// 41 KiB more to fetch between the peers' calls); 283's k = 17 map
    /// slower in a loop of inversions alone (658 against 604 ns).
    #[cfg(target_arch = "x86_64")]
    super::ymm::YmmWide: from DIVSTEP_FROM_CARRYLESS,
        tables from |m| if matches!(m, 163 | 233 | 409) { m / 16 } else { m / TABLE_DIV_CARRYLESS },
        |k, a, plan| x86::invert_words::<x86::Ymm, W, W1>(x86::Ymm(k.0), a, plan);
    /// The wide backend's, its maps on mask registers and half tables, and
    /// a fourth table at 571 (k = 35; its map on the half table now
    /// cheaper than 35 squares: AMD EPYC Zen 4, `peer-bench --filter
    /// invert --quick`, 2 runs alternated, 571 inversion 0.79× the wide
    /// backend's time against 0.81× with m/12).
    #[cfg(target_arch = "x86_64")]
    @[const S: bool] super::ymm::Avx512Wide<S>: from DIVSTEP_FROM_CARRYLESS,
        tables from |m| if m == 571 { m / 16 } else { super::ymm::YmmWide::table_from(m) },
        |k, a, plan| x86::invert_words::<x86::Ymm, W, W1>(x86::Ymm(k.0.avx2_clmul()), a, plan);
}

/// The divstep inversion with the mask stepper on general registers and
/// the kernels' word products for the batch matrices, for any kernels.
#[inline(always)]
fn invert_words_masked<K: InlineFixed, const W: usize, const W1: usize>(
    k: K,
    a: &[u64; W],
    plan: &Plan<'_, W>,
) -> [u64; W] {
    let (mut f, mut g) = (plan.modulus, *a);
    let (mut d, mut e) = ([0u64; W], plan.start);
    let mut delta = MaskStep::DELTA_ONE;
    for batch in 0..plan.batches {
        let [u, v, q, r] = divsteps(MaskStep, f[0], g[0], &mut delta, plan.steps);
        if batch + 1 < plan.batches {
            // (f, g) ← (u·f + v·g, q·f + r·g)/x^63; the last batch
            // needs only d.
            let (fl, gl) = (k.limbs(&f), k.limbs(&g));
            f = shift_down(&combine::<_, W, W1>(k, u, &fl, v, &gl));
            g = shift_down(&combine::<_, W, W1>(k, q, &fl, r, &gl));
        }
        // (d, e) ← (u·d + v·e, q·d + r·e) mod P.
        let (dl, el) = (k.limbs(&d), k.limbs(&e));
        let mut dx: [u64; W1] = combine(k, u, &dl, v, &el);
        let mut ex: [u64; W1] = combine(k, q, &dl, r, &el);
        fold_sparse(&mut dx, plan.m, plan.terms);
        fold_sparse(&mut ex, plan.m, plan.terms);
        d = low_words(&dx);
        e = low_words(&ex);
    }
    d
}

/// PCLMULQDQ: (f, g) and (d, e) as W xmm registers each, word i of both
/// in one (lane 0: f or d, lane 1: g or e); the matrix as (u, v) and
/// (q, r) in two more, so a row's word product u·f_i + v·g_i is two
/// `pclmulqdq` (imm 0x00 and 0x11) and a XOR, and the shifts and the
/// modular fold run on both rows of a pair at once.
#[cfg(target_arch = "x86_64")]
mod x86 {
    #![allow(unsafe_code)]

    use super::{Plan, Step, divsteps};
    use crate::cpu::{Avx2Clmul, Clmul};
    use crate::vex256::_mm256_clmulepi64_epi128;
    use core::arch::asm;
    use core::arch::x86_64::{
        __m128i, __m256i, _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64,
        _mm_set_epi64x, _mm_setzero_si128, _mm_sll_epi64, _mm_slli_epi64, _mm_srl_epi64,
        _mm_srli_epi64, _mm_unpackhi_epi64, _mm_unpacklo_epi64, _mm_xor_si128,
        _mm256_broadcastsi128_si256, _mm256_castsi256_si128, _mm256_extracti128_si256,
        _mm256_set_m128i, _mm256_unpackhi_epi64, _mm256_unpacklo_epi64, _mm256_xor_si256,
    };

    /// The step with `cmov` (inline assembly, so the compiler can neither
    /// turn a selection into a branch nor lengthen the chain), δ kept as
    /// δ − 1: `test` g(0) sets ZF, `bt` δ − 1's sign sets CF (leaving ZF),
    /// so swap is `cmova` and m is `cmovnz`. ag → `test` → `cmov` → `xor`
    /// is three cycles against four with masks, 13 integer operations
    /// against 19 (the measured steps: `docs/notes/gf2m-divstep.md`).
    #[derive(Clone, Copy)]
    pub(super) struct CmovStep;

    impl Step for CmovStep {
        const DELTA_ONE: i64 = 0;
        #[inline(always)]
        fn step(self, af: &mut u64, ag: &mut u64, bf: &mut u64, bg: &mut u64, h: &mut i64) {
            // SAFETY: register operations only (no memory, no stack);
            // `cmov`, `bt` and every other instruction here is in the
            // x86-64 baseline. Constant time: no branch; `cmov` takes the
            // same time whichever operand it picks.
            unsafe {
                asm!(
                    // g1 = ag/x, b1 = bg/x (before the flags are set).
                    "mov {g1}, {ag}",
                    "shr {g1}, 1",
                    "mov {b1}, {bg}",
                    "shr {b1}, 1",
                    "xor {t:e}, {t:e}",
                    "xor {t2:e}, {t2:e}",
                    // ZF = ¬g(0); CF = (δ − 1 < 0) = ¬(δ > 0), ZF kept.
                    "test {ag:l}, 1",
                    "bt {h}, 63",
                    // δ − 1 ← swap ? −δ = ¬(δ − 1) : δ.
                    "lea {hp}, [{h} + 1]",
                    "not {h}",
                    "cmovna {h}, {hp}",
                    // t = m·af, t2 = m·bf; swap: af ← g1, bf ← b1.
                    "cmovnz {t}, {af}",
                    "cmovnz {t2}, {bf}",
                    "cmova {af}, {g1}",
                    "cmova {bf}, {b1}",
                    // ag ← g1 + t, bg ← b1 + t2.
                    "xor {t}, {g1}",
                    "mov {ag}, {t}",
                    "xor {t2}, {b1}",
                    "mov {bg}, {t2}",
                    ag = inout(reg) *ag,
                    af = inout(reg) *af,
                    bf = inout(reg) *bf,
                    bg = inout(reg) *bg,
                    h = inout(reg) *h,
                    g1 = out(reg) _,
                    t = out(reg) _,
                    t2 = out(reg) _,
                    b1 = out(reg) _,
                    hp = out(reg) _,
                    options(pure, nomem, nostack),
                );
            }
        }
    }

    #[inline(always)]
    fn xor(a: __m128i, b: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_xor_si128(a, b) }
    }

    /// Both lanes shifted left by `s` < 64 bits.
    #[inline(always)]
    fn shl(a: __m128i, s: usize) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_sll_epi64(a, _mm_cvtsi64_si128(s as i64)) }
    }

    /// Both lanes shifted right by `s` < 64 bits.
    #[inline(always)]
    fn shr(a: __m128i, s: usize) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_srl_epi64(a, _mm_cvtsi64_si128(s as i64)) }
    }

    /// `m·x` for the matrix row `m` = (a, b) and the pairs `x`: per pair
    /// i, a·x_i.lane0 + b·x_i.lane1 (128 bits).
    #[inline(always)]
    fn row(t: Clmul, m: __m128i, x: __m128i) -> __m128i {
        let _ = t;
        // SAFETY: the `Clmul` token proves PCLMULQDQ.
        unsafe {
            _mm_xor_si128(
                _mm_clmulepi64_si128::<0x00>(m, x),
                _mm_clmulepi64_si128::<0x11>(m, x),
            )
        }
    }

    /// [`row`] on two pairs, one per 128-bit lane of `x`, the row `m`
    /// broadcast to both lanes.
    ///
    /// # Safety
    ///
    /// Needs VPCLMULQDQ and AVX2.
    #[inline(always)]
    unsafe fn row_ymm(m: __m256i, x: __m256i) -> __m256i {
        // SAFETY: VPCLMULQDQ and AVX2 per the caller.
        unsafe {
            let (lo, hi) = (
                _mm256_clmulepi64_epi128::<0x00>(m, x),
                _mm256_clmulepi64_epi128::<0x11>(m, x),
            );
            _mm256_xor_si256(lo, hi)
        }
    }

    /// The pairs of `c` (W + 1 words per lane, degree < m + 63) reduced
    /// modulo P, both lanes at once: `words::fold_sparse` on lanes.
    #[inline(always)]
    fn fold<const W: usize, const W1: usize>(
        c: &[__m128i; W1],
        m: usize,
        terms: &[usize],
    ) -> [__m128i; W] {
        let mut out = [c[0]; W];
        out.copy_from_slice(&c[..W]);
        // Word W, at x^(64W) = x^(64W − m)·(P − x^m): lands below word W − 1
        // (terms + 64 < m).
        let t = c[W];
        for &term in terms {
            let pos = 64 * W - m + term;
            let (w, s) = (pos / 64, pos % 64);
            out[w] = xor(out[w], shl(t, s));
            if s != 0 {
                out[w + 1] = xor(out[w + 1], shr(t, 64 - s));
            }
        }
        // The bits of word W − 1 from m on (m = 64(W − 1) + r, 0 < r).
        let r = m % 64;
        let t = shr(out[W - 1], r);
        out[W - 1] = xor(out[W - 1], shl(t, r));
        for &term in terms {
            let (w, s) = (term / 64, term % 64);
            out[w] = xor(out[w], shl(t, s));
            if s != 0 && w + 1 < W {
                out[w + 1] = xor(out[w + 1], shr(t, 64 - s));
            }
        }
        out
    }

    /// The two lanes' words.
    #[inline(always)]
    fn lanes(x: __m128i) -> [u64; 2] {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            [
                _mm_cvtsi128_si64(x) as u64,
                _mm_cvtsi128_si64(_mm_unpackhi_epi64(x, x)) as u64,
            ]
        }
    }

    /// The products of one word pair `x` with both rows (`ma`, `mb`):
    /// the low and the high words of the two results, interleaved.
    #[inline(always)]
    fn pair(t: Clmul, ma: __m128i, mb: __m128i, x: __m128i) -> (__m128i, __m128i) {
        let pa = row(t, ma, x);
        let pb = row(t, mb, x);
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { (_mm_unpacklo_epi64(pa, pb), _mm_unpackhi_epi64(pa, pb)) }
    }

    /// Word k of (f, g)/x^63 from words k and k + 1 of the products.
    #[inline(always)]
    fn down63(lo: __m128i, hi: __m128i) -> __m128i {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { xor(_mm_srli_epi64::<63>(lo), _mm_slli_epi64::<1>(hi)) }
    }

    /// The matrix products of a backend: both rows (`mf`, `mg`) applied to
    /// the word pairs `x`, the W + 1 words of the two results interleaved
    /// (row `mf` in lane 0).
    pub(super) trait Products: Copy {
        /// PCLMULQDQ, and VPCLMULQDQ on ymm where the backend takes it
        /// (known at compile time).
        fn tokens(self) -> (Clmul, Option<Avx2Clmul>);

        /// The products: on ymm two word pairs per `vpclmulqdq` pair (the
        /// same 2-cycle issue rate as `pclmulqdq` on Zen 3, so half the
        /// time), the rest one word pair per `pclmulqdq` pair.
        #[inline(always)]
        fn apply<const W: usize, const W1: usize>(
            self,
            mf: __m128i,
            mg: __m128i,
            x: &[__m128i; W],
        ) -> [__m128i; W1] {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            let zero = unsafe { _mm_setzero_si128() };
            let mut out = [zero; W1];
            let mut carry = zero;
            let mut i = 0;
            if self.tokens().1.is_some() {
                // SAFETY: the `Avx2Clmul` token `self.tokens()` returned proves
                // AVX2 (and AVX).
                let (mf2, mg2) = unsafe {
                    (
                        _mm256_broadcastsi128_si256(mf),
                        _mm256_broadcastsi128_si256(mg),
                    )
                };
                // i + 1 < W < W1.
                while i + 1 < W {
                    // SAFETY: the same token proves VPCLMULQDQ, AVX2 and
                    // AVX.
                    let (l0, l1, h0, h1) = unsafe {
                        let y = _mm256_set_m128i(x[i + 1], x[i]);
                        let pf = row_ymm(mf2, y);
                        let pg = row_ymm(mg2, y);
                        let lo = _mm256_unpacklo_epi64(pf, pg);
                        let hi = _mm256_unpackhi_epi64(pf, pg);
                        (
                            _mm256_castsi256_si128(lo),
                            _mm256_extracti128_si256::<1>(lo),
                            _mm256_castsi256_si128(hi),
                            _mm256_extracti128_si256::<1>(hi),
                        )
                    };
                    out[i] = xor(l0, carry);
                    out[i + 1] = xor(l1, h0);
                    carry = h1;
                    i += 2;
                }
            }
            // i < W < W1.
            while i < W {
                let (lo, hi) = pair(self.tokens().0, mf, mg, x[i]);
                out[i] = xor(lo, carry);
                carry = hi;
                i += 1;
            }
            out[W] = carry;
            out
        }
    }

    /// PCLMULQDQ: one word pair per `pclmulqdq` pair.
    #[derive(Clone, Copy)]
    pub(super) struct Xmm(pub(super) Clmul);

    impl Products for Xmm {
        #[inline(always)]
        fn tokens(self) -> (Clmul, Option<Avx2Clmul>) {
            (self.0, None)
        }
    }

    /// VPCLMULQDQ on ymm: two word pairs per `vpclmulqdq` pair; an odd
    /// last pair on xmm.
    #[derive(Clone, Copy)]
    pub(super) struct Ymm(pub(super) Avx2Clmul);

    impl Products for Ymm {
        #[inline(always)]
        fn tokens(self) -> (Clmul, Option<Avx2Clmul>) {
            (self.0.clmul(), Some(self.0))
        }
    }

    /// The whole inversion (see [`super::Divstep`]).
    #[inline(always)]
    pub(super) fn invert_words<P: Products, const W: usize, const W1: usize>(
        t: P,
        a: &[u64; W],
        plan: &Plan<'_, W>,
    ) -> [u64; W] {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let zero = unsafe { _mm_setzero_si128() };
        let mut fg = [zero; W];
        let mut de = [zero; W];
        // i < W for the four arrays.
        for i in 0..W {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe {
                fg[i] = _mm_set_epi64x(a[i] as i64, plan.modulus[i] as i64);
                de[i] = _mm_set_epi64x(plan.start[i] as i64, 0);
            }
        }
        let mut delta = CmovStep::DELTA_ONE;
        for batch in 0..plan.batches {
            let [f0, g0] = lanes(fg[0]);
            let [u, v, q, r] = divsteps(CmovStep, f0, g0, &mut delta, plan.steps);
            // SAFETY: SSE2 is part of the x86-64 baseline.
            let (mf, mg) = unsafe {
                (
                    _mm_set_epi64x(v as i64, u as i64),
                    _mm_set_epi64x(r as i64, q as i64),
                )
            };
            if batch + 1 < plan.batches {
                // (f, g) ← (u·f + v·g, q·f + r·g)/x^63; the last batch
                // needs only d.
                let s: [__m128i; W1] = t.apply(mf, mg, &fg);
                // i < W, i + 1 < W1.
                for i in 0..W {
                    fg[i] = down63(s[i], s[i + 1]);
                }
            }
            // (d, e) ← (u·d + v·e, q·d + r·e) mod P.
            let s: [__m128i; W1] = t.apply(mf, mg, &de);
            de = fold::<W, W1>(&s, plan.m, plan.terms);
        }
        let mut d = [0u64; W];
        for (x, pair) in d.iter_mut().zip(de) {
            [*x, _] = lanes(pair);
        }
        d
    }
}

#[cfg(test)]
mod tests {
    use super::super::words::top_mask;
    use super::super::{Dispatch, F163, F233, F283, F409, F571, FieldElement};
    use crate::test_util::splitmix64;
    extern crate std;
    use std::vec::Vec;

    /// 0, 1, x^(m−1), x^(m−1) + 1, all ones, and `random` random elements
    /// (every eighth with the top bit set, every sixteenth sparse).
    fn inputs<F: FieldElement>(seed: u64, random: usize) -> Vec<F> {
        let top = top_mask(F::M);
        let topbit = 1u64 << ((F::M - 1) % 64);
        let mut rng = seed;
        let mut w = std::vec![0u64; F::WORDS];
        let mut out = Vec::new();
        let mut push = |w: &[u64]| {
            let mut w = w.to_vec();
            if let Some(t) = w.last_mut() {
                *t &= top;
            }
            out.push(F::from_word_slice(&w).unwrap_or(F::ZERO));
        };
        push(&w);
        w[0] = 1;
        push(&w);
        w[0] = 0;
        w[F::WORDS - 1] = topbit;
        push(&w);
        w[0] = 1;
        push(&w);
        push(&std::vec![u64::MAX; F::WORDS]);
        for i in 0..random {
            for x in w.iter_mut() {
                *x = splitmix64(&mut rng);
                if i % 16 == 15 {
                    *x &= splitmix64(&mut rng) & splitmix64(&mut rng) & splitmix64(&mut rng);
                }
            }
            if i % 8 == 7 {
                w[F::WORDS - 1] |= topbit;
            }
            push(&w);
        }
        out
    }

    fn check<F: FieldElement>(exponents: &[usize], seed: u64, random: usize) {
        assert_eq!(F::modulus_exponents(), exponents, "the plan's modulus");
        let xs = inputs::<F>(seed, random);
        for b in Dispatch::all() {
            for a in &xs {
                let want = Dispatch::portable().invert(a);
                let got = b.invert_divstep(a);
                assert_eq!(got, want, "m = {}, {}, a = {a}", F::M, b.name());
            }
            assert_eq!(b.invert_divstep(&F::ZERO), F::ZERO);
            assert_eq!(b.invert_divstep(&F::ONE), F::ONE);
        }
    }

    /// One test per field: [`check`] on it.
    macro_rules! per_field {
        ($($name:ident: $f:ty, $args:expr;)*) => {$(
            #[test]
            fn $name() {
                let (terms, seed, random) = $args;
                check::<$f>(terms, seed, random);
            }
        )*};
    }

    per_field! {
        divstep_matches_itoh_tsujii_f163: F163, (&[163, 7, 6, 3, 0], 163, 3000);
        divstep_matches_itoh_tsujii_f233: F233, (&[233, 74, 0], 233, 3000);
        divstep_matches_itoh_tsujii_f283: F283, (&[283, 12, 7, 5, 0], 283, 3000);
        divstep_matches_itoh_tsujii_f409: F409, (&[409, 87, 0], 409, 2000);
        divstep_matches_itoh_tsujii_f571: F571, (&[571, 10, 5, 2, 0], 571, 2000);
    }

    /// 100·`DIVSTEP_ROUNDS` (default 10) inversions of each kind on the
    /// best backend, for instruction counts (ignored: run one under
    /// `valgrind --tool=callgrind` with `FIELDWORK_MAX_ISA=clmul` —
    /// valgrind has no ymm VPCLMULQDQ — at two round counts and divide the
    /// difference of the inclusive counts of `clmul::run_tf` for
    /// `one_op::Invert` and for `one_op::InvertDivstep`: the first `invert`
    /// builds its tables; at m = 571 `invert` is itself the divsteps on
    /// this backend).
    fn count<F: FieldElement>() {
        let b = Dispatch::best();
        let xs = inputs::<F>(7, 100);
        let rounds = std::env::var("DIVSTEP_ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(10);
        let mut acc = F::ZERO;
        for _ in 0..rounds {
            for a in xs.iter().take(100) {
                acc += b.invert(std::hint::black_box(a));
                acc += b.invert_divstep(std::hint::black_box(a));
            }
        }
        std::hint::black_box(acc);
    }

    /// `cargo test --release -p fieldwork-crypto --lib callgrind_f571 --
    /// --ignored` under callgrind, one per field.
    macro_rules! callgrind_tests {
        ($($name:ident: $f:ty),*) => {$(
            #[test]
            #[ignore]
            fn $name() {
                count::<$f>();
            }
        )*};
    }
    callgrind_tests!(
        callgrind_f163: F163,
        callgrind_f233: F233,
        callgrind_f283: F283,
        callgrind_f409: F409,
        callgrind_f571: F571
    );

    /// The batch shapes of the module doc.
    #[test]
    fn plans() {
        let shape = |m: usize, b: usize, s: u32| (m, b, s, b * s as usize);
        let (p163, p233) = (&F163::DIVSTEP_PLAN, &F233::DIVSTEP_PLAN);
        let (p283, p409, p571) = (
            &F283::DIVSTEP_PLAN,
            &F409::DIVSTEP_PLAN,
            &F571::DIVSTEP_PLAN,
        );
        assert_eq!(shape(p163.m, p163.batches, p163.steps), (163, 6, 55, 330));
        assert_eq!(shape(p233.m, p233.batches, p233.steps), (233, 9, 52, 468));
        assert_eq!(shape(p283.m, p283.batches, p283.steps), (283, 11, 52, 572));
        assert_eq!(shape(p409.m, p409.batches, p409.steps), (409, 15, 55, 825));
        assert_eq!(shape(p571.m, p571.batches, p571.steps), (571, 21, 55, 1155));
    }
}
