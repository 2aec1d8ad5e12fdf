//! Inversion by Bernstein–Yang divsteps, in constant time: the candidate of
//! issue 24 against Itoh–Tsujii (`algorithms::invert`), reached only through
//! the hidden `Backend::invert_divstep` (tests and `fieldwork speed`), not
//! through [`FieldElement::invert`].
//!
//! # The algorithm
//!
//! Bernstein and Yang, "Fast constant-time gcd computation and modular
//! inversion", TCHES 2019(3), §6 (polynomials): for f of degree d with
//! f(0) ≠ 0 and g of degree < d, the divstep over GF(2) (where f(0) = 1
//! throughout) is
//!
//! ```text
//! divstep(δ, f, g) = (1 − δ, g, (g + f)/x)           if δ > 0 and g(0) = 1
//!                    (1 + δ, f, (g + g(0)·f)/x)      otherwise
//! ```
//!
//! and from δ = 1, f = the modulus P (degree m, P(0) = 1: the reversal of
//! the x^m-monic polynomial of their theorem), g = a (degree < m), after
//! 2m − 1 divsteps g = 0 and f = the reversed gcd, here 1 (P irreducible,
//! a ≠ 0; their Theorem 6.2). After n steps x^n·(f_n, g_n) = T·(P, a) for a
//! 2 × 2 matrix T = (u v; q r) of polynomials, so x^n = v·a mod P and
//! a^(−1) = v·x^(−n) mod P. The code tracks d ≡ v·x^(−N), e ≡ r·x^(−N)
//! (mod P) from (d, e) = (0, x^(−N) mod P), N the public total step count,
//! so d ends as a^(−1) with no final product. For a = 0, v stays 0 (g stays
//! 0: no swap ever), so 0 maps to 0.
//!
//! # Batches
//!
//! The first j ≤ 62 divsteps depend only on the low j bits of f and g, so
//! they run on one word each ([`divsteps`]), producing the matrix of the
//! batch (entries of degree ≤ j, one word each); the matrix is then applied
//! to the whole (f, g), `(u·f + v·g)/x^j` (4W word products and a shift),
//! and to (d, e) modulo P (4W word products and a sparse fold of the top
//! word). j and the number of batches depend on m only: ⌈(2m − 1)/62⌉
//! batches of ⌈(2m − 1)/batches⌉ steps (extra steps are harmless: with
//! g = 0 a divstep leaves f and g alone, and the count N is public).
//!
//! | m | batches × j | N |
//! |---|---|---|
//! | 163 | 6 × 55 | 330 |
//! | 233 | 8 × 59 | 472 |
//! | 283 | 10 × 57 | 570 |
//! | 409 | 14 × 59 | 826 |
//! | 571 | 19 × 61 | 1 159 |
//!
//! # The inner loop
//!
//! Both rows of the matrix evolve as f and g do, scaled: keep the entries
//! divided by x^i after i steps (x^0 at bit 63, x^(−k) at bit 63 − k), and
//! the update of a row is exactly that of its value — select on a swap,
//! and (row_g + g(0)·row_f)/x, a right shift. So the value and one column
//! of the matrix share a word: `af` = f's low bits and u, `ag` = g's low
//! bits and q, `bf` = v, `bg` = r, and one step is, with masks
//! `m = −g(0)` and `swap = m ∧ (δ > 0)`, three operations per word and
//! row plus the masks — no branch and no index on a secret (δ included).
//! The values' live bits (below j − i) and the matrix (from 63 − i up)
//! never meet, except that f does not shift: its stale bits are cleared one
//! per step, bit 62 − i before step i, just before the matrix reaches them
//! (which needs j ≤ 62). δ is kept as η = −δ, so δ > 0 is the sign bit and
//! the update is η ← swap ? ¬η : η − 1.
//!
//! Idea credits: the batching and the 2 × 2 transition matrices are
//! Bernstein–Yang's (§§ 2–3, "jumpdivstep"); keeping δ negated as η is
//! libsecp256k1's `modinv64`; the code is ours.
//
// Indexing is bounded by construction: fixed-size `[_; W]` and
// `[_; W + 1]` arrays with `i < W` (checked at compile time per field).
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::FieldElement;
use super::words::{fold_sparse, top_mask};
use crate::gf2x::InlineFixed;

/// The most divsteps one batch runs (the values' bits and the matrix share
/// a word: see the module doc).
const MAX_STEPS: usize = 62;

/// One field's constants: the modulus, the batch shape, the start value
/// x^(−N) mod P.
struct Plan<const W: usize> {
    /// m.
    m: usize,
    /// The modulus' exponents below m (with 0).
    terms: &'static [usize],
    /// The modulus P as W words (degree m < 64W).
    modulus: [u64; W],
    /// Batches.
    batches: usize,
    /// Divsteps per batch, 1..=62.
    steps: u32,
    /// x^(−N) mod P, N = batches·steps.
    start: [u64; W],
}

/// The plan of the field x^m + Σ x^terms on W words (compile time).
// `terms[i] < m < 64W` (asserted), so every index is in range.
const fn plan<const W: usize>(m: usize, terms: &'static [usize]) -> Plan<W> {
    assert!(m < 64 * W && m > 64 * (W - 1));
    let mut modulus = [0u64; W];
    modulus[m / 64] |= 1 << (m % 64);
    let mut i = 0;
    while i < terms.len() {
        assert!(terms[i] < m);
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
    while k < batches * steps {
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

// The five NIST moduli (FIPS 186-4 D.1.3; the same as `fixed.rs`, checked
// against `FieldElement::modulus_exponents` by the tests).
const P163: Plan<3> = plan(163, &[7, 6, 3, 0]);
const P233: Plan<4> = plan(233, &[74, 0]);
const P283: Plan<5> = plan(283, &[12, 7, 5, 0]);
const P409: Plan<7> = plan(409, &[87, 0]);
const P571: Plan<9> = plan(571, &[10, 5, 2, 0]);

/// `a^(−1)`, and 0 for 0, by divsteps on the kernels `k`. (A field other
/// than the five — none exists: the trait is sealed — falls back to
/// Itoh–Tsujii.)
#[inline(always)]
pub(super) fn invert<F: FieldElement, K: InlineFixed>(k: K, a: &F) -> F {
    match F::M {
        163 => run::<F, K, 3, 4>(k, a, &P163),
        233 => run::<F, K, 4, 5>(k, a, &P233),
        283 => run::<F, K, 5, 6>(k, a, &P283),
        409 => run::<F, K, 7, 8>(k, a, &P409),
        571 => run::<F, K, 9, 10>(k, a, &P571),
        _ => super::ops::invert(k, a),
    }
}

/// The inversion on W words (W1 = W + 1 for the products).
#[inline(always)]
fn run<F: FieldElement, K: InlineFixed, const W: usize, const W1: usize>(
    k: K,
    a: &F,
    plan: &Plan<W>,
) -> F {
    const { assert!(W1 == W + 1) };
    // The word count is public; it always matches (F::M picked the plan).
    let Ok(&g) = <&[u64; W]>::try_from(a.as_words()) else {
        return F::ZERO;
    };
    let mut f = plan.modulus;
    let mut g = g;
    let mut d = [0u64; W];
    let mut e = plan.start;
    let mut eta: i64 = -1; // η = −δ, δ = 1
    for batch in 0..plan.batches {
        let t = divsteps(f[0], g[0], &mut eta, plan.steps);
        let [u, v, q, r] = t;
        if batch + 1 < plan.batches {
            // (f, g) ← (u·f + v·g, q·f + r·g)/x^j; the last batch needs
            // only d.
            let (fl, gl) = (k.limbs(&f), k.limbs(&g));
            let fx: [u64; W1] = combine(k, u, &fl, v, &gl);
            let gx: [u64; W1] = combine(k, q, &fl, r, &gl);
            f = shift_down(&fx, plan.steps);
            g = shift_down(&gx, plan.steps);
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
    // Reduced already (the fold clears bits ≥ m); the mask lets the
    // compiler drop `from_word_slice`'s check, a branch on the value.
    d[W - 1] &= top_mask(plan.m);
    F::from_word_slice(&d).unwrap_or(F::ZERO)
}

/// `j` divsteps (1 ≤ j ≤ 62) on the low words `f0`, `g0` (f0 odd) from
/// η = −δ: returns the matrix (u, v, q, r) with x^j·(f_j, g_j) =
/// (u·f + v·g, q·f + r·g) (entries of degree ≤ j) and updates η. Constant
/// time: the same operations whatever the inputs.
#[inline(always)]
fn divsteps(f0: u64, g0: u64, eta: &mut i64, j: u32) -> [u64; 4] {
    const ONE: u64 = 1 << 63; // x^0 of a matrix entry
    let low = (1u64 << j) - 1;
    let mut af = (f0 & low) | ONE; // f's low j bits, and u
    let mut ag = g0 & low; // g's low j bits, and q
    let mut bf = 0u64; // v
    let mut bg = ONE; // r
    let mut h = *eta;
    let mut keep = !(1u64 << 62);
    for _ in 0..j {
        // f's stale bit 62 − i, before the matrix reaches it.
        af &= keep;
        keep = keep.rotate_right(1);
        let m = (ag & 1).wrapping_neg();
        let swap = m & ((h >> 63) as u64);
        let xa = (af ^ ag) & swap;
        ag = (ag ^ (af & m)) >> 1;
        af ^= xa;
        let xb = (bf ^ bg) & swap;
        bg = (bg ^ (bf & m)) >> 1;
        bf ^= xb;
        // δ ← 1 − δ on a swap, else 1 + δ: η ← ¬η, else η − 1.
        h = (h ^ swap as i64).wrapping_add(!swap as i64);
    }
    *eta = h;
    let s = 63 - j;
    [af >> s, bf >> s, ag >> s, bg >> s]
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

/// `c / x^j` (its low j bits are zero), 1 ≤ j ≤ 62, in W words (the
/// quotient has degree ≤ m < 64W).
#[inline(always)]
fn shift_down<const W: usize, const W1: usize>(c: &[u64; W1], j: u32) -> [u64; W] {
    let mut out = [0u64; W];
    // i < W, i + 1 < W1.
    for i in 0..W {
        out[i] = (c[i] >> j) | (c[i + 1] << (64 - j));
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

#[cfg(test)]
mod tests {
    use super::super::{Backend, F163, F233, F283, F409, F571, FieldElement};
    use super::*;
    extern crate std;
    use std::vec::Vec;

    /// SplitMix64: reproducible test inputs.
    struct SplitMix(u64);

    impl SplitMix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    /// 0, 1, x^(m−1), x^(m−1) + 1, all ones, and `random` random elements
    /// (every eighth with the top bit set, every sixteenth sparse).
    fn inputs<F: FieldElement>(seed: u64, random: usize) -> Vec<F> {
        let top = top_mask(F::M);
        let topbit = 1u64 << ((F::M - 1) % 64);
        let mut rng = SplitMix(seed);
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
                *x = rng.next();
                if i % 16 == 15 {
                    *x &= rng.next() & rng.next() & rng.next();
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
        for b in Backend::all() {
            for a in &xs {
                let want = Backend::portable().invert(a);
                let got = b.invert_divstep(a);
                assert_eq!(got, want, "m = {}, {}, a = {a}", F::M, b.name());
            }
            assert_eq!(b.invert_divstep(&F::ZERO), F::ZERO);
            assert_eq!(b.invert_divstep(&F::ONE), F::ONE);
        }
    }

    #[test]
    fn divstep_matches_itoh_tsujii_f163() {
        check::<F163>(&[163, 7, 6, 3, 0], 163, 3000);
    }

    #[test]
    fn divstep_matches_itoh_tsujii_f233() {
        check::<F233>(&[233, 74, 0], 233, 3000);
    }

    #[test]
    fn divstep_matches_itoh_tsujii_f283() {
        check::<F283>(&[283, 12, 7, 5, 0], 283, 3000);
    }

    #[test]
    fn divstep_matches_itoh_tsujii_f409() {
        check::<F409>(&[409, 87, 0], 409, 2000);
    }

    #[test]
    fn divstep_matches_itoh_tsujii_f571() {
        check::<F571>(&[571, 10, 5, 2, 0], 571, 2000);
    }

    /// The batch shapes of the module doc.
    #[test]
    fn plans() {
        let shape = |m: usize, b: usize, s: u32| (m, b, s, b * s as usize);
        assert_eq!(shape(P163.m, P163.batches, P163.steps), (163, 6, 55, 330));
        assert_eq!(shape(P233.m, P233.batches, P233.steps), (233, 8, 59, 472));
        assert_eq!(shape(P283.m, P283.batches, P283.steps), (283, 10, 57, 570));
        assert_eq!(shape(P409.m, P409.batches, P409.steps), (409, 14, 59, 826));
        assert_eq!(shape(P571.m, P571.batches, P571.steps), (571, 19, 61, 1159));
    }
}
