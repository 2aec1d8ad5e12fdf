//! The Kummer ladder with the paper's own Sandy Bridge arithmetic (feature
//! `reproduce`; not for production use): six floating-point limbs in radix
//! 2^(127/6), parallel carries by rounding constants, the negated-z
//! formats, the three-limb Hadamard transform and the conditional move
//! after the first H row — §§3–4 of Bernstein, Chuengsatiansup, Lange &
//! Schwabe, *Kummer strikes back: new DH speed records* (ASIACRYPT 2014,
//! ePrint 2014/134; seed 001), as the text describes them. It exists to
//! measure the paper's design beside fieldwork's (`peer-bench --reproduce
//! kummer`), not to be used.
//!
//! Two backends implement the crate's `Backend` trait on one generic step
//! (`ladder` over `Lanes`, one `f64` per coordinate in each of four
//! lanes): `float-portable` (`[f64; 4]`, plain Rust, every target) and
//! `float-avx` (`__m256d` with the very instructions §4 names —
//! `vaddsubpd`, `vpermilpd`, `vperm2f128`, `vblendvpd` — behind the
//! `cpu::Avx2` token). They give the production backends' bytes (the known
//! answers and the every-backend test of `kummer/mod.rs` run on them,
//! `tests/kummer_reproduce.rs` compares them with [`super::scalarmult`]).
//! The public door is [`scalarmult_with`] / [`NAMES`].
//!
//! # Representation (§3.2)
//!
//! `f = f0 + f1 + f2 + f3 + f4 + f5`, `f_i` a small multiple of
//! `2^OFF[i]`, `OFF = [0, 22, 43, 64, 85, 106]` (`⌈127·i/6⌉`), each an `f64`
//! holding its weight (not scaled). A vector of four field elements is six
//! `Lanes` values, limb `i` of the four coordinates in one. Every
//! integer below 2^53 times a power of two is exact in a double, so every
//! sum of products below is computed exactly; the congruence uses
//! `2^−127 ≡ 1 (mod p)`.
//!
//! # Operations and where the text describes them
//!
//! - M (`mul`, §3.2): the six sums `h_k` with the wrapped terms times
//!   `2^−127`, 36 multiplications and 30 additions, the `2^−127` products
//!   precomputed on one operand (5 multiplications, or none for the M4 by
//!   `(1 : x1/y1 : x1/z1 : x1/t1)`, computed before the loop).
//! - S (`square`, §3.3): 21 multiplications and 15 additions after
//!   precomputing `2f1…2f5` and `εf3, εf4, εf5` (8 operations).
//! - m (`mul_const`, §3.3): six multiplications by a lane constant
//!   below 2^12 (the constants of §2.6).
//! - Carries (`carry6`, `carry_odd3`, `carry_even3`, `carry_chain`,
//!   §3.4): `h_i → h_{i+1}` takes the multiple of `2^OFF[i+1]` closest to
//!   `h_i` as `(h_i + α) − α` with `α = 2^OFF[i+1]·(2^52 + 2^51)` (the
//!   approach of the paper's reference \[8\] that §3.4 ends with: 4
//!   additions, no multiplication; `h5 → h0` rounds at 2^127 and
//!   multiplies the carry by `2^−127`). Six in parallel after each M and S
//!   (§3.4 "second" to "fourth": round all, subtract all, add all); three
//!   after each m, which feeds an H (§4.4).
//! - H (`hadamard`, §§4.1–4.2): per vector `vpermilpd`, `vaddsubpd`,
//!   `vperm2f128` and `vpermilpd`, `vaddsubpd`: from `(x, y, −z, t)` it
//!   gives `(x', t', −z', y')` and from `(x, t, −z, y)` it gives
//!   `(x', y', −z', t')` — the same instructions for all four H.
//! - Three-limb H (§4.4, `to_three`, `to_six`): just before H the six
//!   limbs become `(h0 + h1, h2 + h3, h4 + h5)` (still exact), and after
//!   it each is split back at 2^22, 2^64, 2^106. The m before H then skips
//!   the carries `h0 → h1`, `h2 → h3`, `h4 → h5` (`carry_odd3`); the M4 by
//!   `(1 : x1/y1 : x1/z1 : x1/t1)` carries `h0 → h1, h2 → h3, h4 → h5` and
//!   then `h1 → h2, h3 → h4, h5 → h0` (§4.4's nine carries, replacing
//!   §3.4's two four-carry chains).
//! - Conditional move (§4.5, `Lanes::select`): the state is swapped not
//!   before the step but after the first H row, and only the operand of
//!   the doubling's squaring is selected: the M4 of the two H outputs is
//!   commutative. One `vblendvpd` per limb, six per step.
//!
//! # The step and its formats (Figure 2.4(b), Figure 4.3)
//!
//! The state `(R0, R1)` is kept as the three-limb inputs of the first H
//! row, in `(x, y, −z, t)` lane order (§4.2: "the (x, y, −z, t) format at
//! the top and bottom, and the (x, t, −z, y) format between the two H
//! rows"). Per scalar bit `b` (with the previous bit `b'`):
//!
//! ```text
//! P = six(H(R0)), Q = six(H(R1))                      (x, t, −z, y)
//! S = b ⊕ b' ? Q : P                                   §4.5
//! B = carry6(M(P, Q)), A = carry6(S(S))               (x, t,  z, y)
//! B, A = three(carry_odd3(m(·, σCH)))                 (x, t, −z, y)
//! B = six(H(B)), A = six(H(A))                        (x, y, −z, t)
//! B = carry6(S(B)), A = carry6(S(A))                  (x, y,  z, t)
//! R1 = three(carry_odd3(carry_even3(M(B, (1, u1, −u2, u3)))))
//! R0 = three(carry_odd3(m(A, (−114, 57, −66, 418))))   (x, y, −z, t)
//! ```
//!
//! with `σCH = (−833, 561, −1617, 2499)`: the module's `CH` in
//! `(x, t, z, y)` order with z negated, so the negations S and M drop are
//! put back by the constants (§4.2, "we simply negate the appropriate
//! constants"). Per step: 2 M4, 3 S4, 3 m4, 4 H, 51 carries counting the
//! 12 splits of `to_six` (§4.6's count). After the last bit the
//! selected state is split, fully carried (§3.4's sequential chain, seven
//! carries) and converted to integers mod p; the start state is the exact
//! limb split of `NEUTRAL` and of the point.
//!
//! # Where the text is garbled, truncated or silent, and what we chose
//!
//! - Figures 2.2, 2.4 and 4.3 are pictures, absent from the text: the step
//!   is the module's ladder (the same formulas as Figure 2.4(b) per §4.6's
//!   `2M4 + 3S4 + 3m4 + 4H` and §4.5), and the formats of Figure 4.3 are
//!   rebuilt from §4.2's sentences (table above).
//! - The exponents lost their superscripts (`2�127`, `2127/6`, `α22 =
//!   222(252+251)`): read as `2^−127`, `2^(127/6)` and `2^22·(2^52 + 2^51)`,
//!   the only readings that make the sums exact and congruent.
//! - §4.6 converts "10 multiplications" of S doublings to additions and
//!   some carries (those eliminating "35 multiplications", i.e. 17 carries
//!   and one `h5 → h0`) to the rounding constant, without saying which: we
//!   double by addition in all three S and use the rounding constant in
//!   every carry (portable Rust has no `vroundpd` below SSE4.1; the
//!   constant is what the text calls lower latency). Our counts are then
//!   not §4.6's 310 additions and 239 multiplications; the test
//!   `op_counts` computes ours from this code (the page prints both).
//! - "the bounds … defined by a rather tedious, but verifiable, collection
//!   of bounds" (§3.2) are not printed: the test `bounds_hold` recomputes
//!   them by interval arithmetic through the same generic step (every
//!   product and sum below 2^53 units of its granularity, every rounding
//!   within `2^(w+51)`, the state's bounds a fixed point of the step).
//! - Haswell's arithmetic (Appendix B) and the Cortex-A8 H (Appendix A) are
//!   "online" only: not in the text, not reproduced (no FMA variant).
//! - The key generation is not in the paper: this backend's comb is the
//!   portable one (`fixed_base.rs`), only its ladder is the paper's.
//!
//! # Cost
//!
//! Per step (`op_counts`, test `op_counts`): 348 additions, 175
//! multiplications, 36 permutations, 6 selects; the compiled `float-avx`
//! loop has exactly these plus about 143 register moves (16 ymm registers
//! do not hold both points). Port floor on a Golden Cove-class core ≈ 188
//! cycles a step; measured ≈ 51 k cycles a `scalarmult` on an Emerald
//! Rapids Xeon (`docs/notes/kummer-float.md`), slower than the production
//! `avx2` (≈ 37 k) and `avx512ifma` (≈ 22 k) backends; `float-portable`
//! (SSE2 pairs) ≈ 140 k against the portable backend's ≈ 125 k.
//!
//! Constant time: no branch or index depends on a secret; the swap is a
//! mask select; every double is an integer times 2^k with k ≥ −127, never
//! subnormal, so floating-point latency does not depend on the values.
//!
//! # Rejected
//!
//! - Summing the wrapped products before one `2^−127` multiplication (§3.2
//!   mentions it, "5 multiplications such as 2^−127(f4g5 + f5g4)"): the
//!   paper precomputes instead, and so do we.
// Indexing is bounded by construction: limb indices are constants or loop
// counters over the fixed six-limb arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::encoding::{self, point_from_ratios, scalar_bit};
use super::field::{Fe, P};
use super::fixed_base::{self, PortableScan};
use subtle::Choice;

/// `2^k` as an `f64`, for `−1022 ≤ k ≤ 1023`.
const fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

/// The limb offsets `⌈127·i/6⌉` of §3.2: limb `i` is a multiple of
/// `2^OFF[i]`.
pub(crate) const OFF: [i32; 6] = [0, 22, 43, 64, 85, 106];
/// `ε = 2^−127` (§3.3).
const EPS: f64 = pow2(-127);

/// The rounding constant of §3.4 (after the paper's \[8\]) for a carry at `2^w`:
/// `α = 2^w·(2^52 + 2^51)`; `(h + α) − α` is the multiple of `2^w`
/// nearest to `h` for `|h| < 2^(w+51)`.
pub(crate) const fn alpha(w: i32) -> f64 {
    pow2(w + 52) + pow2(w + 51)
}

/// Four `f64` lanes (one per coordinate) and the operations of §§3–4 on
/// them. One type per instruction set; [`ladder`] is written once over
/// this trait (and the tests run it on bounds and on counters).
pub(crate) trait Lanes: Copy {
    /// All four lanes `c`.
    fn splat(c: f64) -> Self;
    /// The lanes `a`.
    fn from_array(a: [f64; 4]) -> Self;
    /// The lanes.
    fn to_array(self) -> [f64; 4];
    /// Lane-wise `+` (`vaddpd`).
    fn add(self, o: Self) -> Self;
    /// Lane-wise `−` (`vsubpd`).
    fn sub(self, o: Self) -> Self;
    /// Lane-wise `×` (`vmulpd`).
    fn mul(self, o: Self) -> Self;
    /// `vaddsubpd`: `(a0 − b0, a1 + b1, a2 − b2, a3 + b3)`.
    fn addsub(self, o: Self) -> Self;
    /// `vpermilpd` with control `0b0101`: `(a1, a0, a3, a2)`.
    fn swap_pairs(self) -> Self;
    /// `vperm2f128` with control `0x01`: `(a2, a3, a0, a1)`.
    fn swap_halves(self) -> Self;
    /// `vblendvpd`: the lanes of `o` where `mask` has its sign bit set,
    /// else of `self`; `mask` is [`Lanes::mask`].
    fn select(self, o: Self, mask: Self) -> Self;
    /// All lanes all ones when `bit` is 1, all zero when 0.
    fn mask(bit: u64) -> Self;
    /// `(t, h − t)` for `t` the multiple of `2^w` nearest to each lane
    /// `h`, `t = (h + α) − α` (§3.4): three additions. (A method so that
    /// the bounds test can see that `|h − t| ≤ 2^(w−1)`.)
    #[inline(always)]
    fn split_at(self, w: i32) -> (Self, Self) {
        let a = Self::splat(alpha(w));
        let t = self.add(a).sub(a);
        (t, self.sub(t))
    }
}

/// Six limbs of four field elements (§3.2).
pub(crate) type Six<V> = [V; 6];
/// Three limbs `(h0 + h1, h2 + h3, h4 + h5)` of four field elements, the
/// form H works on (§4.4).
pub(crate) type Three<V> = [V; 3];

/// `2^−127 g1 … 2^−127 g5` (limb 0 unused): the precomputation of §3.2.
#[inline(always)]
pub(crate) fn eps_limbs<V: Lanes>(g: &Six<V>) -> Six<V> {
    let e = V::splat(EPS);
    [
        g[0],
        g[1].mul(e),
        g[2].mul(e),
        g[3].mul(e),
        g[4].mul(e),
        g[5].mul(e),
    ]
}

/// M, §3.2: `h_k = Σ_{i+j=k} f_i g_j + Σ_{i+j=k+6} 2^−127 f_i g_j`, with
/// `ge = eps_limbs(g)`: 36 multiplications, 30 additions, no carry.
#[inline(always)]
pub(crate) fn mul<V: Lanes>(f: &Six<V>, g: &Six<V>, ge: &Six<V>) -> Six<V> {
    let [f0, f1, f2, f3, f4, f5] = *f;
    let [g0, g1, g2, g3, g4, g5] = *g;
    let [_, e1, e2, e3, e4, e5] = *ge;
    [
        f0.mul(g0)
            .add(f1.mul(e5))
            .add(f2.mul(e4))
            .add(f3.mul(e3))
            .add(f4.mul(e2))
            .add(f5.mul(e1)),
        f0.mul(g1)
            .add(f1.mul(g0))
            .add(f2.mul(e5))
            .add(f3.mul(e4))
            .add(f4.mul(e3))
            .add(f5.mul(e2)),
        f0.mul(g2)
            .add(f1.mul(g1))
            .add(f2.mul(g0))
            .add(f3.mul(e5))
            .add(f4.mul(e4))
            .add(f5.mul(e3)),
        f0.mul(g3)
            .add(f1.mul(g2))
            .add(f2.mul(g1))
            .add(f3.mul(g0))
            .add(f4.mul(e5))
            .add(f5.mul(e4)),
        f0.mul(g4)
            .add(f1.mul(g3))
            .add(f2.mul(g2))
            .add(f3.mul(g1))
            .add(f4.mul(g0))
            .add(f5.mul(e5)),
        f0.mul(g5)
            .add(f1.mul(g4))
            .add(f2.mul(g3))
            .add(f3.mul(g2))
            .add(f4.mul(g1))
            .add(f5.mul(g0)),
    ]
}

/// S, §3.3: precompute `2f1 … 2f5` (by addition, §4.6's first option) and
/// `εf3, εf4, εf5`, then 21 multiplications and 15 additions:
///
/// ```text
/// h0 = f0f0 + ε2f1f5 + ε2f2f4 + εf3f3    h1 = 2f0f1 + ε2f2f5 + ε2f3f4
/// h2 = 2f0f2 + f1f1 + ε2f3f5 + εf4f4     h3 = 2f0f3 + 2f1f2 + ε2f4f5
/// h4 = 2f0f4 + 2f1f3 + f2f2 + εf5f5      h5 = 2f0f5 + 2f1f4 + 2f2f3
/// ```
#[inline(always)]
pub(crate) fn square<V: Lanes>(f: &Six<V>) -> Six<V> {
    let [f0, f1, f2, f3, f4, f5] = *f;
    let (d1, d2, d3, d4, d5) = (f1.add(f1), f2.add(f2), f3.add(f3), f4.add(f4), f5.add(f5));
    let e = V::splat(EPS);
    let (e3, e4, e5) = (f3.mul(e), f4.mul(e), f5.mul(e));
    [
        f0.mul(f0).add(d1.mul(e5)).add(d2.mul(e4)).add(f3.mul(e3)),
        f0.mul(d1).add(d2.mul(e5)).add(d3.mul(e4)),
        f0.mul(d2).add(f1.mul(f1)).add(d3.mul(e5)).add(f4.mul(e4)),
        f0.mul(d3).add(f1.mul(d2)).add(d4.mul(e5)),
        f0.mul(d4).add(f1.mul(d3)).add(f2.mul(f2)).add(f5.mul(e5)),
        f0.mul(d5).add(f1.mul(d4)).add(f2.mul(d3)),
    ]
}

/// m, §3.3: `h_i = c·f_i`, six multiplications by the lane constants `c`.
#[inline(always)]
pub(crate) fn mul_const<V: Lanes>(f: &Six<V>, c: V) -> Six<V> {
    [
        f[0].mul(c),
        f[1].mul(c),
        f[2].mul(c),
        f[3].mul(c),
        f[4].mul(c),
        f[5].mul(c),
    ]
}

/// The carry `h_i → h_{i+1}` of §3.4 applied in place: `t` = the multiple
/// of `2^OFF[i+1]` nearest to `h_i` (of `2^127` for `i = 5`), `h_i −= t`,
/// `h_{i+1} += t` (`h0 += 2^−127·t`). 4 additions, and one multiplication
/// for `h5 → h0`.
#[inline(always)]
fn carry<V: Lanes>(h: &mut Six<V>, i: usize) {
    if i == 5 {
        let (t, r) = h[5].split_at(127);
        h[5] = r;
        h[0] = h[0].add(t.mul(V::splat(EPS)));
    } else {
        let (t, r) = h[i].split_at(OFF[i + 1]);
        h[i] = r;
        h[i + 1] = h[i + 1].add(t);
    }
}

/// The carries `h_i → h_{i+1}` for every `i` of `from`, in parallel (§3.4
/// "Second"): all roundings and subtractions first (from the same `h`),
/// then all additions, so no carry waits for another.
#[inline(always)]
fn carry_parallel<V: Lanes, const N: usize>(h: &mut Six<V>, from: [usize; N]) {
    let mut t = [V::splat(0.0); N];
    for k in 0..N {
        let i = from[k];
        let (tk, r) = h[i].split_at(if i == 5 { 127 } else { OFF[i + 1] });
        t[k] = tk;
        h[i] = r;
    }
    for k in 0..N {
        let i = from[k];
        if i == 5 {
            h[0] = h[0].add(t[k].mul(V::splat(EPS)));
        } else {
            h[i + 1] = h[i + 1].add(t[k]);
        }
    }
}

/// Six parallel carries (§3.4 "Second" to "Fourth"): the output of an M
/// feeding an m, of an m, of an S.
#[inline(always)]
pub(crate) fn carry6<V: Lanes>(mut h: Six<V>) -> Six<V> {
    carry_parallel(&mut h, [0, 1, 2, 3, 4, 5]);
    h
}

/// `h1 → h2, h3 → h4, h5 → h0` in parallel: the carries left before the
/// three-limb H, which skips `h0 → h1, h2 → h3, h4 → h5` (§4.4).
#[inline(always)]
pub(crate) fn carry_odd3<V: Lanes>(mut h: Six<V>) -> Six<V> {
    carry_parallel(&mut h, [1, 3, 5]);
    h
}

/// `h0 → h1, h2 → h3, h4 → h5` in parallel: the first pass of the M4 by
/// `(1 : x1/y1 : x1/z1 : x1/t1)` before H (§4.4, "h0 is large enough to
/// affect h2").
#[inline(always)]
pub(crate) fn carry_even3<V: Lanes>(mut h: Six<V>) -> Six<V> {
    carry_parallel(&mut h, [0, 2, 4]);
    h
}

/// §3.4's sequential chain `h0 → h1 → … → h5 → h0 → h1` (seven carries):
/// used once, on the ladder's output, to bring every limb within
/// `2^(OFF[i+1] − OFF[i] − 1)` units (plus a small carry-in).
#[inline(always)]
pub(crate) fn carry_chain<V: Lanes>(mut h: Six<V>) -> Six<V> {
    for i in 0..6 {
        carry(&mut h, i);
    }
    carry(&mut h, 0);
    h
}

/// Six limbs to three, §4.4: `(h0 + h1, h2 + h3, h4 + h5)`.
#[inline(always)]
pub(crate) fn to_three<V: Lanes>(h: &Six<V>) -> Three<V> {
    [h[0].add(h[1]), h[2].add(h[3]), h[4].add(h[5])]
}

/// Three limbs back to six, §4.4 ("the same operations as three carries"):
/// each `v_k` split at `2^OFF[2k+1]` into its nearest multiple `t` (the
/// odd limb) and `v_k − t` (the even limb, at most half that weight).
#[inline(always)]
pub(crate) fn to_six<V: Lanes>(v: &Three<V>) -> Six<V> {
    let (t0, r0) = v[0].split_at(OFF[1]);
    let (t1, r1) = v[1].split_at(OFF[3]);
    let (t2, r2) = v[2].split_at(OFF[5]);
    [r0, t0, r1, t1, r2, t2]
}

/// H on one vector, §4.2: `vpermilpd`, `vaddsubpd` give `(e, f, g, h)`;
/// `vperm2f128` gives `(g, h, e, f)` and `vpermilpd` `(f, e, h, g)`; a
/// last `vaddsubpd` gives `(f − g, e + h, h − e, f + g)`. From lanes
/// `(x, y, −z, t)` that is `(x', t', −z', y')`; from `(x, t, −z, y)` it is
/// `(x', y', −z', t')`, for `(x', y', z', t') = H(x, y, z, t)`.
#[inline(always)]
fn hadamard1<V: Lanes>(a: V) -> V {
    let efgh = a.addsub(a.swap_pairs());
    efgh.swap_pairs().addsub(efgh.swap_halves())
}

/// H on three limbs (§4.4): 6 additions, 9 permutations.
#[inline(always)]
pub(crate) fn hadamard<V: Lanes>(v: &Three<V>) -> Three<V> {
    [hadamard1(v[0]), hadamard1(v[1]), hadamard1(v[2])]
}

/// `CH` of the module in the `(x, t, −z, y)` format (§4.2).
const SIGMA_CH: [f64; 4] = [
    super::CH[0] as f64,
    super::CH[3] as f64,
    -(super::CH[2] as f64),
    super::CH[1] as f64,
];
/// `CD` of the module in the `(x, y, −z, t)` format (§4.2).
const NEG_Z_CD: [f64; 4] = [
    super::CD[0] as f64,
    super::CD[1] as f64,
    -(super::CD[2] as f64),
    super::CD[3] as f64,
];

/// The exact six-limb split of four canonical elements (§3.2), lane 2
/// negated (the `(x, y, −z, t)` format): limb `i` is bits
/// `OFF[i] .. OFF[i+1]` of the coordinate times `2^OFF[i]`.
#[inline(always)]
pub(crate) fn split<V: Lanes>(x: [Fe; 4]) -> Six<V> {
    let mut out = [V::splat(0.0); 6];
    for (i, o) in out.iter_mut().enumerate() {
        let hi = if i == 5 { 127 } else { OFF[i + 1] };
        let width = hi - OFF[i];
        let mut lanes = [0.0f64; 4];
        for (l, (lane, c)) in lanes.iter_mut().zip(x).enumerate() {
            let bits = (c.0 >> OFF[i]) & ((1u128 << width) - 1);
            // bits < 2^22: exact; times a power of two: exact.
            let v = bits as u64 as f64 * pow2(OFF[i]);
            *lane = if l == 2 { -v } else { v };
        }
        *o = V::from_array(lanes);
    }
    out
}

/// The four canonical elements of a state in the `(x, y, −z, t)` format:
/// the inverse of [`split`] for any three-limb value the step leaves.
#[inline(always)]
pub(crate) fn join<V: Lanes>(v: &Three<V>) -> [Fe; 4] {
    let c = carry_chain(to_six(v));
    let mut h = [[0.0f64; 4]; 6];
    for i in 0..6 {
        h[i] = c[i].to_array();
    }
    let mut out = [Fe(0); 4];
    for (l, o) in out.iter_mut().enumerate() {
        // After the chain |h5| ≤ 2^126 and |h_i| < 2^(OFF[i+1] − 1) plus a
        // small carry-in: each h_i/2^OFF[i] is an integer below 2^22 and
        // the sum s has |s| < 2^127 (the bounds test checks it).
        let mut s: i128 = 0;
        for (i, limb) in h.iter().enumerate() {
            let n = (limb[l] * pow2(-OFF[i])) as i64;
            s += i128::from(n) << OFF[i];
        }
        // s + p ∈ [0, 2^128): reduce it as an unsigned value.
        let x = Fe::reduced((s as u128).wrapping_add(P));
        // Lane 2 holds −z: negate it back.
        *o = if l == 2 { Fe(0).sub(x) } else { x };
    }
    out
}

/// The ladder of the module docs with the arithmetic of §§3–4 (the step in
/// this file's docs), generic over the lanes; `scalar·P` projectively,
/// fully reduced — the same four elements as every backend.
#[inline(always)]
pub(crate) fn ladder<V: Lanes>(scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
    let [u1, u2, u3] = u;
    // The M4 by (1 : x1/y1 : x1/z1 : x1/t1): z negated (§4.2), its 2^−127
    // multiples computed before the loop (§4.6).
    let diff: Six<V> = split([Fe::ONE, u1, u2, u3]);
    let diff_eps = eps_limbs(&diff);
    let neutral = super::NEUTRAL.map(Fe::small);
    let mut r0 = to_three(&split::<V>(neutral));
    let mut r1 = to_three(&split::<V>(point_from_ratios(u)));
    let mut prev = 0u8;
    for i in (0..251).rev() {
        let bit = scalar_bit(scalar, i);
        let (n0, n1) = step(&r0, &r1, &diff, &diff_eps, V::mask(u64::from(bit ^ prev)));
        prev = bit;
        r0 = n0;
        r1 = n1;
    }
    // The last step's output is swapped when its bit was 1.
    let m = V::mask(u64::from(prev));
    let out = [
        r0[0].select(r1[0], m),
        r0[1].select(r1[1], m),
        r0[2].select(r1[2], m),
    ];
    join(&out)
}

/// One ladder step (this file's docs, "The step and its formats"): from
/// the three-limb `(R0, R1)` to `(double, difference-add)`, with the
/// operand of the doubling selected by `mask` after the first H row
/// (§4.5).
#[inline(always)]
pub(crate) fn step<V: Lanes>(
    r0: &Three<V>,
    r1: &Three<V>,
    diff: &Six<V>,
    diff_eps: &Six<V>,
    mask: V,
) -> (Three<V>, Three<V>) {
    // First H row: (x, y, −z, t) → (x, t, −z, y).
    let p = to_six(&hadamard(r0));
    let q = to_six(&hadamard(r1));
    // §4.5: a conditional move, not a swap.
    let s = [
        p[0].select(q[0], mask),
        p[1].select(q[1], mask),
        p[2].select(q[2], mask),
        p[3].select(q[3], mask),
        p[4].select(q[4], mask),
        p[5].select(q[5], mask),
    ];
    // M4 and S4: (x, t, z, y), six parallel carries each (§3.4).
    let b = carry6(mul(&p, &q, &eps_limbs(&q)));
    let a = carry6(square(&s));
    // m4 by CH with z negated: back to (x, t, −z, y), ready for H (§4.4).
    let ch = V::from_array(SIGMA_CH);
    let b = to_three(&carry_odd3(mul_const(&b, ch)));
    let a = to_three(&carry_odd3(mul_const(&a, ch)));
    // Second H row: (x, t, −z, y) → (x, y, −z, t).
    let b = to_six(&hadamard(&b));
    let a = to_six(&hadamard(&a));
    // S4 ×2: (x, y, z, t).
    let b = carry6(square(&b));
    let a = carry6(square(&a));
    // M4 by (1, u1, −u2, u3) and m4 by CD with z negated: (x, y, −z, t).
    let r1 = to_three(&carry_odd3(carry_even3(mul(&b, diff, diff_eps))));
    let r0 = to_three(&carry_odd3(mul_const(&a, V::from_array(NEG_Z_CD))));
    (r0, r1)
}

/// Four `f64` lanes in an array: the portable [`Lanes`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct F64x4(pub(crate) [f64; 4]);

impl Lanes for F64x4 {
    #[inline(always)]
    fn splat(c: f64) -> Self {
        F64x4([c; 4])
    }
    #[inline(always)]
    fn from_array(a: [f64; 4]) -> Self {
        F64x4(a)
    }
    #[inline(always)]
    fn to_array(self) -> [f64; 4] {
        self.0
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        let (a, b) = (self.0, o.0);
        F64x4([a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]])
    }
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        let (a, b) = (self.0, o.0);
        F64x4([a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]])
    }
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        let (a, b) = (self.0, o.0);
        F64x4([a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]])
    }
    #[inline(always)]
    fn addsub(self, o: Self) -> Self {
        let (a, b) = (self.0, o.0);
        F64x4([a[0] - b[0], a[1] + b[1], a[2] - b[2], a[3] + b[3]])
    }
    #[inline(always)]
    fn swap_pairs(self) -> Self {
        let a = self.0;
        F64x4([a[1], a[0], a[3], a[2]])
    }
    #[inline(always)]
    fn swap_halves(self) -> Self {
        let a = self.0;
        F64x4([a[2], a[3], a[0], a[1]])
    }
    #[inline(always)]
    fn select(self, o: Self, mask: Self) -> Self {
        let (a, b, m) = (self.0, o.0, mask.0);
        let pick = |x: f64, y: f64, m: f64| {
            let m = m.to_bits();
            f64::from_bits((x.to_bits() & !m) | (y.to_bits() & m))
        };
        F64x4([
            pick(a[0], b[0], m[0]),
            pick(a[1], b[1], m[1]),
            pick(a[2], b[2], m[2]),
            pick(a[3], b[3], m[3]),
        ])
    }
    #[inline(always)]
    fn mask(bit: u64) -> Self {
        F64x4([f64::from_bits(0u64.wrapping_sub(bit & 1)); 4])
    }
}

/// The portable float backend (`float-portable`): [`ladder`] on
/// [`F64x4`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct FloatPortable;

impl Backend for FloatPortable {
    const NAME: &'static str = "float-portable";

    fn ladder(self, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        ladder::<F64x4>(scalar, u)
    }

    fn ladder_pair(self, scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
        [self.ladder(scalars[0], u[0]), self.ladder(scalars[1], u[1])]
    }

    fn comb(self, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
        fixed_base::comb(PortableScan, scalar)
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use avx::FloatAvx;

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::{Backend, Fe, Lanes, PortableScan, fixed_base, ladder};
    use crate::cpu;
    use core::arch::x86_64::{
        __m256d, _mm256_add_pd, _mm256_addsub_pd, _mm256_blendv_pd, _mm256_loadu_pd, _mm256_mul_pd,
        _mm256_permute_pd, _mm256_permute2f128_pd, _mm256_set1_pd, _mm256_storeu_pd, _mm256_sub_pd,
    };
    use subtle::Choice;

    /// Four `f64` lanes in a ymm register: the [`Lanes`] of §4's
    /// instructions. Only made inside [`FloatAvx`]'s AVX-enabled ladder.
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct M256d(__m256d);

    // SAFETY (every method): the intrinsics need AVX; these methods are
    // `#[inline(always)]` and called only from `ladder_avx`, whose
    // `#[target_feature(enable = "avx")]` is proved by the `cpu::Avx2`
    // token `FloatAvx` holds. Loads and stores go through arrays of four
    // f64 (`loadu`/`storeu`: no alignment needed).
    impl Lanes for M256d {
        #[inline(always)]
        fn splat(c: f64) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_set1_pd(c) })
        }
        #[inline(always)]
        fn from_array(a: [f64; 4]) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_loadu_pd(a.as_ptr()) })
        }
        #[inline(always)]
        fn to_array(self) -> [f64; 4] {
            let mut a = [0.0; 4];
            // SAFETY: AVX, proved where this inlines (see above).
            unsafe { _mm256_storeu_pd(a.as_mut_ptr(), self.0) };
            a
        }
        #[inline(always)]
        fn add(self, o: Self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_add_pd(self.0, o.0) })
        }
        #[inline(always)]
        fn sub(self, o: Self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_sub_pd(self.0, o.0) })
        }
        #[inline(always)]
        fn mul(self, o: Self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_mul_pd(self.0, o.0) })
        }
        #[inline(always)]
        fn addsub(self, o: Self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_addsub_pd(self.0, o.0) })
        }
        #[inline(always)]
        fn swap_pairs(self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_permute_pd::<0b0101>(self.0) })
        }
        #[inline(always)]
        fn swap_halves(self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_permute2f128_pd::<0x01>(self.0, self.0) })
        }
        #[inline(always)]
        fn select(self, o: Self, mask: Self) -> Self {
            // SAFETY: AVX, proved where this inlines (see above).
            M256d(unsafe { _mm256_blendv_pd(self.0, o.0, mask.0) })
        }
        #[inline(always)]
        fn mask(bit: u64) -> Self {
            Self::splat(f64::from_bits(0u64.wrapping_sub(bit & 1)))
        }
    }

    /// The AVX float backend (`float-avx`): [`ladder`] on [`M256d`].
    #[derive(Clone, Copy, Debug)]
    pub(crate) struct FloatAvx(pub(crate) cpu::Avx2);

    impl FloatAvx {
        /// The backend, if AVX is usable (under `FIELDWORK_MAX_ISA`).
        pub(crate) fn get() -> Option<FloatAvx> {
            cpu::Avx2::get().map(FloatAvx)
        }
    }

    /// [`ladder`] with AVX enabled, so that [`M256d`]'s methods inline as
    /// ymm instructions.
    #[target_feature(enable = "avx")]
    fn ladder_avx(scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
        ladder::<M256d>(scalar, u)
    }

    impl Backend for FloatAvx {
        const NAME: &'static str = "float-avx";

        fn ladder(self, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
            // SAFETY: the token proves AVX (and AVX2).
            unsafe { ladder_avx(scalar, u) }
        }

        fn ladder_pair(self, scalars: [&[u8; 32]; 2], u: [[Fe; 3]; 2]) -> [[Fe; 4]; 2] {
            [self.ladder(scalars[0], u[0]), self.ladder(scalars[1], u[1])]
        }

        fn comb(self, scalar: &[u8; 32]) -> ([Fe; 4], Choice) {
            fixed_base::comb(PortableScan, scalar)
        }
    }
}

/// How many vector operations one of the text's operations takes in this
/// code (each counts four lanes once, as an instruction would).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpCounts {
    /// Additions and subtractions, `vaddsubpd` and the rounding constant's
    /// two additions included.
    pub additions: u32,
    /// Multiplications.
    pub multiplications: u32,
    /// Permutations (`vpermilpd`, `vperm2f128`).
    pub permutations: u32,
    /// Conditional selects (`vblendvpd`).
    pub blends: u32,
}

/// Lanes that only count: constants carry no counter, values derived from
/// a counted input do, and each operation on one adds to it.
#[derive(Clone, Copy, Debug)]
struct Counting<'a>(Option<&'a core::cell::Cell<OpCounts>>);

impl Counting<'_> {
    fn bump(self, o: Self, f: fn(&mut OpCounts)) -> Self {
        let c = self.0.or(o.0);
        if let Some(cell) = c {
            let mut n = cell.get();
            f(&mut n);
            cell.set(n);
        }
        Counting(c)
    }
}

impl Lanes for Counting<'_> {
    fn splat(_: f64) -> Self {
        Counting(None)
    }
    fn from_array(_: [f64; 4]) -> Self {
        Counting(None)
    }
    fn to_array(self) -> [f64; 4] {
        [0.0; 4]
    }
    fn add(self, o: Self) -> Self {
        self.bump(o, |n| n.additions += 1)
    }
    fn sub(self, o: Self) -> Self {
        self.bump(o, |n| n.additions += 1)
    }
    fn mul(self, o: Self) -> Self {
        self.bump(o, |n| n.multiplications += 1)
    }
    fn addsub(self, o: Self) -> Self {
        self.bump(o, |n| n.additions += 1)
    }
    fn swap_pairs(self) -> Self {
        self.bump(self, |n| n.permutations += 1)
    }
    fn swap_halves(self) -> Self {
        self.bump(self, |n| n.permutations += 1)
    }
    fn select(self, o: Self, _: Self) -> Self {
        self.bump(o, |n| n.blends += 1)
    }
    fn mask(_: u64) -> Self {
        Counting(None)
    }
}

/// The operations of §§3.2–4.6 as this code runs them, each with the
/// section that describes it and its counts, computed by running the
/// generic code on counting lanes (not written down): M, its `2^−127`
/// precomputation, S (with its precomputation), m, H on three limbs, the
/// conversions, the carry blocks, and one whole ladder step.
pub fn op_counts() -> [(&'static str, &'static str, OpCounts); 11] {
    fn run(f: fn(Counting<'_>)) -> OpCounts {
        let cell = core::cell::Cell::new(OpCounts::default());
        f(Counting(Some(&cell)));
        cell.get()
    }
    fn six(c: Counting<'_>) -> Six<Counting<'_>> {
        [c; 6]
    }
    fn three(c: Counting<'_>) -> Three<Counting<'_>> {
        [c; 3]
    }
    type Op = (&'static str, &'static str, fn(Counting<'_>));
    let ops: [Op; 11] = [
        ("M", "§3.2", |c| {
            let _ = mul(&six(c), &six(c), &six(c));
        }),
        ("M's 2^−127 precomputation", "§3.2", |c| {
            let _ = eps_limbs(&six(c));
        }),
        ("S (with its precomputation)", "§3.3", |c| {
            let _ = square(&six(c));
        }),
        ("m", "§3.3", |c| {
            let _ = mul_const(&six(c), Counting(None));
        }),
        ("H (three limbs)", "§§4.2, 4.4", |c| {
            let _ = hadamard(&three(c));
        }),
        ("six limbs to three", "§4.4", |c| {
            let _ = to_three(&six(c));
        }),
        ("three limbs to six", "§4.4", |c| {
            let _ = to_six(&three(c));
        }),
        ("six parallel carries", "§3.4", |c| {
            let _ = carry6(six(c));
        }),
        ("carries h1→h2, h3→h4, h5→h0", "§4.4", |c| {
            let _ = carry_odd3(six(c));
        }),
        ("carries h0→h1, h2→h3, h4→h5", "§4.4", |c| {
            let _ = carry_even3(six(c));
        }),
        ("ladder step", "§4.6", |c| {
            let _ = step(&three(c), &three(c), &six(c), &six(c), Counting(None));
        }),
    ];
    ops.map(|(name, section, f)| (name, section, run(f)))
}

/// The float backends' names, fastest first: `float-avx` (x86-64 with
/// AVX2 usable) and `float-portable`.
pub const NAMES: [&str; 2] = ["float-avx", "float-portable"];

/// `scalar · point` (the bytes of [`super::scalarmult`]) by the named
/// float backend of [`NAMES`]; `None` for an unknown name or one this CPU
/// (under `FIELDWORK_MAX_ISA`) cannot run.
pub fn scalarmult_with(name: &str, scalar: &[u8; 32], point: &[u8; 48]) -> Option<[u8; 48]> {
    let u = encoding::decode(point);
    let r = match name {
        "float-portable" => FloatPortable.ladder(scalar, u),
        #[cfg(target_arch = "x86_64")]
        "float-avx" => FloatAvx::get()?.ladder(scalar, u),
        _ => return None,
    };
    Some(encoding::encode(r))
}

#[cfg(test)]
#[path = "float_tests.rs"]
mod tests;
