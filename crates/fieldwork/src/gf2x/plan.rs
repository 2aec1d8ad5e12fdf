//! Target features: none — Toom-Cook 3-way steps over GF(2)\[x\], generic
//! over a backend's fixed kernels ([`Backend`]), and the per-backend [`Plan`]
//! that chooses, for each balanced size, between a Karatsuba step and the two
//! Toom-3 steps.
//!
//! # The math
//!
//! Cut each `n`-word operand into pieces of `k = ⌈n/3⌉`, `k` and
//! `h = n − 2k` words (`1 ≤ h ≤ k`) and read them as polynomials in
//! `t = x^(64k)`: `a(t) = a0 + a1·t + a2·t²`, likewise `b`. The product
//! `c(t) = c0 + c1·t + c2·t² + c3·t³ + c4·t⁴` has five unknown coefficients
//! (each below `2k` words, `c4` below `2h`), so five values determine it.
//! GF(2) has only two constants, so besides 0, 1 and ∞ the points are
//! polynomials: `X` and `X + 1` for a polynomial `X`. Bodrato (*Towards
//! Optimal Toom-Cook Multiplication for Univariate and Multivariate
//! Polynomials in Characteristic 2 and 0*, WAIFI 2007, LNCS 4547, §4) takes
//! `X = x`; Brent, Gaudry, Thomé and Zimmermann (*Faster Multiplication in
//! GF(2)\[x\]*, ANTS VIII 2008, §3, gf2x's `TC3` and `TC3W`) also use the
//! word-aligned `X = x^64`. Both are here, as [`toom3`] over [`BitPoint`] and
//! [`WordPoint`]:
//!
//! ```text
//! W0 = a0·b0                                          (k × k words)
//! W1 = (a0+a1+a2)·(b0+b1+b2)                          (k × k)
//! WX = a(X)·b(X),          a(X)   = a0 + X·a1 + X²·a2 (k+g × k+g)
//! WY = a(X+1)·b(X+1),      a(X+1) = a(X) + a1 + a2    (k+g × k+g)
//! W∞ = a2·b2                                          (h × h)
//! ```
//!
//! where an operand evaluated at `X` grows by `g = 1` word for `X = x` (the
//! two top bits) and `g = 2` for `X = x^64`.
//!
//! # Interpolation
//!
//! `c0 = W0`, `c4 = W∞`. Since `(X+1)² + X² = 1`, `(X+1)³ + X³ = X² + X + 1`
//! and `(X+1)⁴ + X⁴ = 1` in characteristic 2, the sequence used here (derived
//! for this file; two exact divisions by `1 + X`, as the determinant
//! `X²(1 + X)²` of the evaluation matrix requires) is
//!
//! ```text
//! WY + WX + W1 + c0                                = c3·X·(1 + X)
//! (WX + c0 + X³·c3 + X⁴·c4)/X + (W1 + c0 + c3 + c4) = c2·(1 + X)
//! c1 = (W1 + c0 + c3 + c4) + c2
//! ```
//!
//! Division by `X` is a one-bit (or one-word) shift. Division by `1 + X`
//! undoes `q ↦ q + X·q`: from the low end `q_i = d_i + q_(i−1)` — for
//! `X = x^64` one XOR a word; for `X = x` each quotient bit is the parity of
//! the dividend's bits up to it, a prefix XOR inside each word (`w ^= w << 1;
//! w ^= w << 2; … w ^= w << 32`, independent words, vectorised) then the
//! parity of the words below XORed in as a mask (a one-XOR chain).
//!
//! # Operation counts
//!
//! Five products of about `n/3` words against Karatsuba's three of `n/2`:
//! with `M(n) ∝ n^1.585` a Toom-3 level saves about 12 % of the products, and
//! the exponent drops to `log 5 / log 3 ≈ 1.465`. The linear part is about
//! ten passes over `k`-word vectors for the evaluations and about ten over
//! `2k`-word vectors for the interpolation and recomposition. This generic
//! code is compiled for the x86-64 baseline (SSE2), and the bit-level
//! passes (`X = x`) cost about twice the word-level ones (`X = x^64`) and
//! four times a Karatsuba step's, which is why the word-aligned variant,
//! with products one word longer, is the one the plans choose at most sizes.
//!
//! # Memory
//!
//! `c0`, `W1` and `c4` go straight into the output (its `2n` words are
//! exactly `2k + 2k + 2h`); the scratch holds the two evaluated operands
//! (`k + g` words each) and `WX`, `WY` (`2k + 2g` each): `6k + 6g` words, the
//! rest going to the sub-products (bounded for every plan by
//! [`mul_balanced_scratch`]).
//!
//! # Choosing the step: why a plan, not a threshold
//!
//! The fixed kernels make the cost of a product a step function of its size:
//! on the VPCLMULQDQ backend a 17-word product costs as much as a 24-word
//! one (three 8-word limbs), and a 257-word Karatsuba product about twice a
//! 256-word one. A Toom-3 step's pieces of `⌈n/3⌉ + g` words land on such
//! steps differently from Karatsuba's `⌈n/2⌉`, so a single size threshold
//! lost at powers of two: with (bit-level) Toom-3 from 300 words on, 512
//! words took 1.46× and 4096 words 1.45× the Karatsuba time on that
//! backend, while 300 words gained 9 %.
//!
//! So each backend has a [`Plan`]: the cheapest step for every size below
//! [`PLAN_LEN`] by a cost model, computed at compile time by dynamic
//! programming upwards from one word ([`Plan::new`]). A fixed kernel costs
//! its measured time (the backend's `Backend::COSTS`: ticks a call, from a batch of
//! independent products through `mul_into_with_scratch`, minus the call
//! overhead on the PCLMULQDQ backend); a step costs its sub-products plus its
//! linear work, `PER_WORD·n + PER_STEP` (fitted by least squares to measured
//! products whose top step was forced, with the sub-products Karatsuba:
//! Karatsuba 2 ticks a word + 40 a step, Toom-3 9.5 + 100, Toom-3W 6.5 +
//! 100). A Toom-3 step must beat Karatsuba by 1/32 of the cost. From
//! [`PLAN_LEN`] words up every step is Toom-3W: by the model it is within 2 %
//! of the best single step there on every backend. The model is within about
//! ±10–15 % of measured products, so some sizes lose a few percent (below).
//! When a backend's fixed kernels change, re-measure its `COSTS.fixed` row.
//!
//! # Measured
//!
//! Against Karatsuba alone, the plans are level (±2 %) up to 2 048 words on
//! VPCLMULQDQ and 10–50 % faster above (about 0.6× the time at 32 768 and
//! 65 536 words); on PCLMULQDQ and portable they gain 10–50 % from a few
//! hundred words, with isolated losses of up to 7–9 % just above powers of
//! two. `cargo run --release -p peer-bench --features system-peers --
//! --filter gf2x_mul --heavy` gives the current figures against gf2x and NTL.
//!
//! # FFT thresholds
//!
//! From a backend's `COSTS.fft_min` words up, balanced products take the
//! additive FFT of [`super::fft`] ([`Step::Fft`]). Its cost is a step
//! function of the size (one transform length per doubling of `4n`), so it
//! loses just above each power of two until the Toom cost catches up; the
//! threshold is the first size from which it wins at the top of each step
//! and loses at most about 10 % just above a power of two (the thresholds
//! were found by timing `Dispatch::mul_into_with_scratch` with every
//! threshold disabled against `Dispatch::mul_fft`).
//!
//! Chosen: VPCLMULQDQ 11 000 (loses 1 % at 16 385), PCLMULQDQ 24 000 (loses
//! up to 10 % from 32 769 to about 37 000), portable 6 000. Below those, the
//! FFT also wins at the top of each of its cost steps (VPCLMULQDQ: 3 500 to
//! 4 096 and about 5 900 to 8 192 words; portable 3 500 to 4 096): sizes
//! from `COSTS.fft_dense_min` words that fill at least 85 % of their transform
//! (`4n ≥ 0.85·2^r`) take it too — 3 400 on VPCLMULQDQ and portable,
//! 15 000 on PCLMULQDQ (16 384: 1.34; 12 000: 0.88).
//!
//! VPCLMULQDQ-ymm has its own butterflies (`fft/ymm.rs`, 2.5–3× the
//! PCLMULQDQ backend's scalar ones) against a Toom plan about twice as
//! fast as PCLMULQDQ's: plain threshold 22 000, dense windows from 3 400
//! (3 482–4 096, 6 963–8 192, 13 926–16 384 words). The measured ratios
//! behind the thresholds are in `docs/notes/gf2x.md`.
//!
//! # Constant time
//!
//! Only the lengths choose the step, branches and indices; shifts are by
//! constants; the bit-level division's carry is a mask from `wrapping_neg`.
//!
//! # Not done
//!
//! - Toom-4 (gf2x's `TC4`, points `0, 1, x, x+1, 1/x, 1/(x+1), ∞`): seven
//!   products of `n/4`, but more linear work, which costs more here than in
//!   gf2x (see above).
//! - Unbalanced Toom (gf2x's `TC3U`): unbalanced products still go through
//!   chunks of balanced ones ([`mul`]).
//! - The linear passes compiled with the backend's vector features (AVX2,
//!   AVX-512): they would need the recursion instantiated inside each
//!   backend's `#[target_feature]` entry point.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// offsets into operands, result and scratch come from the plan, computed from the operand lengths that `mul_into` checked (`InsufficientOutput`, scratch sized by `scratch_len`); fuzzed against portable.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::formulas::{BASE_MAX, xor_into};
use super::{Backend, Costs};

/// Scratch words [`mul_balanced`] needs for `n`-word operands, whatever
/// step the backend's plan takes at each size.
///
/// A Karatsuba step needs `4l + B(l)` (`l = ⌈n/2⌉`: the two sums and their
/// product, then the sub-products' scratch), a Toom-3 step at most
/// `6k + 12 + B(k + 2)` (`k = ⌈n/3⌉`: two evaluated operands of `k + 2`
/// words and their two products, for the word-aligned variant; the
/// bit-level one needs less, see [`super::plan`]). With
/// `k + 2 ≤ l` (from 12 words) and `B` monotone both are at most
/// `max(4l, 6k + 12) + B(l)`, which is monotone itself: one chain of
/// `log2(n)` calls, and a step that hands its scratch to sub-products of
/// several sizes need only provide for the largest.
///
/// From [`FFT_MIN_ANY`] words up a backend may take the FFT
/// instead, which needs [`super::fft::scratch_len`]`(n, n)` words (monotone
/// in `n`): the bound is the larger of the two.
pub(crate) const fn mul_balanced_scratch(n: usize, base_max: usize) -> usize {
    if n <= base_max || n < 2 {
        return 0;
    }
    let l = n - n / 2;
    let own = if n >= TOOM3_MIN {
        let toom = 6 * n.div_ceil(3) + 12;
        if toom > 4 * l { toom } else { 4 * l }
    } else {
        4 * l
    };
    let steps = own + mul_balanced_scratch(l, base_max);
    if n >= FFT_MIN_ANY {
        let fft = super::fft::scratch_len(n, n);
        if fft > steps {
            return fft;
        }
    }
    steps
}

/// Scratch words one [`karatsuba`] step needs for `n`-word operands: the two
/// sums and their product, `4·⌈n/2⌉` words, plus what the sub-products need.
pub(crate) const fn karatsuba_scratch(n: usize, base_max: usize) -> usize {
    let l = n - n / 2;
    4 * l + mul_balanced_scratch(l, base_max)
}

/// Balanced product `out = a·b`, `a.len() == b.len() == n`, `out.len() == 2n`,
/// `scratch.len() ≥ mul_balanced_scratch(n)`: the backend's fixed kernel if
/// it has one for `n`, else the step the backend's plan gives for `n`
/// (Karatsuba or one of the Toom-3 variants, [`Plan`]); the
/// sub-products come back here.
fn mul_balanced<K: Backend>(k: K, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
    debug_assert_eq!(b.len(), a.len());
    debug_assert_eq!(out.len(), 2 * a.len());
    if k.fixed(out, a, b) {
        return;
    }
    debug_assert!(
        a.len() > BASE_MAX,
        "sizes up to BASE_MAX have fixed kernels"
    );
    match plan_of::<K>().step(a.len()) {
        Step::Karatsuba => karatsuba(k, out, a, b, scratch),
        Step::Toom3 => toom3::<K, BitPoint>(k, out, a, b, scratch),
        Step::Toom3Word => toom3::<K, WordPoint>(k, out, a, b, scratch),
        Step::Fft => super::fft::mul(k.fft(), out, a, b, scratch),
    }
}

/// One balanced Karatsuba step: `out = a·b`, `a.len() == b.len() == n`,
/// `out.len() == 2n`, `scratch.len() ≥ karatsuba_scratch(n)`; the three
/// sub-products go through [`mul_balanced`].
fn karatsuba<K: Backend>(k: K, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
    let n = a.len();
    debug_assert_eq!(b.len(), n);
    debug_assert_eq!(out.len(), 2 * n);
    debug_assert!(scratch.len() >= karatsuba_scratch(n, BASE_MAX));
    let l = n - n / 2; // low part, ≥ high part
    let h = n / 2;
    let (a0, a1) = a.split_at(l);
    let (b0, b1) = b.split_at(l);
    {
        let (lo, hi) = out.split_at_mut(2 * l);
        mul_balanced(k, lo, a0, b0, scratch);
        mul_balanced(k, hi, a1, b1, scratch);
    }
    let (sums, rest) = scratch.split_at_mut(2 * l);
    let (p1, rest) = rest.split_at_mut(2 * l);
    let (sa, sb) = sums.split_at_mut(l);
    sa.copy_from_slice(a0);
    xor_into(sa, a1);
    sb.copy_from_slice(b0);
    xor_into(sb, b1);
    mul_balanced(k, p1, sa, sb, rest);
    // p1 += p0 + p2, then out += p1·x^(64l).
    xor_into(p1, &out[..2 * l]);
    for i in 0..2 * h {
        p1[i] ^= out[2 * l + i];
    }
    xor_into(&mut out[l..], p1);
}

/// Scratch words [`mul`] needs for operands of `an` and `bn` words. Mirrors
/// the recursion of [`mul`] exactly.
pub(crate) const fn mul_scratch(an: usize, bn: usize, base_max: usize) -> usize {
    let (big, small) = if an >= bn { (an, bn) } else { (bn, an) };
    if small == 0 {
        return 0;
    }
    let balanced = mul_balanced_scratch(small, base_max);
    if big == small {
        return balanced;
    }
    // Chunks of `small` words share a 2·small product buffer; full chunks
    // then need the balanced scratch, the last, shorter chunk (if any) the
    // scratch of its own unbalanced product with the roles swapped.
    let rest = big % small;
    let last = if rest == 0 {
        0
    } else {
        mul_scratch(small, rest, base_max)
    };
    2 * small + if balanced > last { balanced } else { last }
}

/// `out = a·b` for any lengths (`out.len() == a.len() + b.len()`),
/// `scratch.len() ≥ mul_scratch(..)`. Unbalanced operands are cut into
/// chunks the size of the shorter one, each a balanced product
/// ([`mul_balanced`]).
pub(crate) fn mul<K: Backend>(k: K, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let (m, n) = (a.len(), b.len());
    debug_assert_eq!(out.len(), m + n);
    if n == 0 {
        out.fill(0);
        return;
    }
    if m == n {
        mul_balanced(k, out, a, b, scratch);
        return;
    }
    out.fill(0);
    let (prod, rest) = scratch.split_at_mut(2 * n);
    let mut off = 0;
    while off < m {
        let chunk = &a[off..(off + n).min(m)];
        let p = &mut prod[..chunk.len() + n];
        if chunk.len() == n {
            mul_balanced(k, p, chunk, b, rest);
        } else {
            mul(k, p, chunk, b, rest);
        }
        xor_into(&mut out[off..], p);
        off += n;
    }
}

/// The smallest size the Toom-3 steps accept: every piece at least a word.
const STEP_MIN: usize = 8;

/// The smallest size a plan sends to a Toom-3 step. (The scratch bound in
/// [`mul_balanced_scratch`] needs `⌈n/3⌉ + 2 ≤ ⌈n/2⌉`, true from
/// 12 words.)
pub(crate) const TOOM3_MIN: usize = 16;
const _: () = assert!(TOOM3_MIN >= 12 && TOOM3_MIN >= STEP_MIN);

/// The point `X` of a Toom-3 step (the other points are 0, 1, `X + 1`, ∞)
/// and the three operations that depend on it.
trait Point {
    /// Words an operand grows by when evaluated at `X` (or `X + 1`).
    const GROWTH: usize;
    /// `e = a0 + X·a1 + X²·a2` (`e.len() == a0.len() + GROWTH`,
    /// `a1.len() == a0.len() ≥ a2.len() ≥ 1`).
    fn eval(e: &mut [u64], a0: &[u64], a1: &[u64], a2: &[u64]);
    /// `w += X³·c3 + X⁴·c4` (`w` long enough for both).
    fn add_x3_x4(w: &mut [u64], c3: &[u64], c4: &[u64]);
    /// `w = (w/X + add) / (1 + X)`, both divisions exact; `add` is
    /// zero-extended to `w`'s length (and shorter than it).
    fn divide(w: &mut [u64], add: &[u64]);
}

/// `X = x`: Bodrato's points; bit shifts and a bit-level prefix parity.
struct BitPoint;

/// `X = x^64`: word offsets and a word-level prefix XOR.
struct WordPoint;

impl Point for BitPoint {
    const GROWTH: usize = 1;

    #[inline]
    fn eval(e: &mut [u64], a0: &[u64], a1: &[u64], a2: &[u64]) {
        let (k, h) = (a0.len(), a2.len());
        e[k] = a1[k - 1] >> 63;
        e[0] = a0[0] ^ (a1[0] << 1) ^ (a2[0] << 2);
        for i in 1..h {
            e[i] = a0[i] ^ (a1[i] << 1 | a1[i - 1] >> 63) ^ (a2[i] << 2 | a2[i - 1] >> 62);
        }
        for i in h..k {
            e[i] = a0[i] ^ (a1[i] << 1 | a1[i - 1] >> 63);
        }
        e[h] ^= a2[h - 1] >> 62;
    }

    #[inline]
    fn add_x3_x4(w: &mut [u64], c3: &[u64], c4: &[u64]) {
        let (m3, m4) = (c3.len(), c4.len());
        debug_assert!(m4 <= m3 && m3 < w.len());
        w[0] ^= (c3[0] << 3) ^ (c4[0] << 4);
        for i in 1..m4 {
            w[i] ^= (c3[i] << 3 | c3[i - 1] >> 61) ^ (c4[i] << 4 | c4[i - 1] >> 60);
        }
        for i in m4..m3 {
            w[i] ^= c3[i] << 3 | c3[i - 1] >> 61;
        }
        w[m4] ^= c4[m4 - 1] >> 60;
        w[m3] ^= c3[m3 - 1] >> 61;
    }

    /// Quotient bit `i` of a division by `1 + x` is the parity of the
    /// dividend's bits `0..=i`. The first pass forms each word's in-word
    /// prefix parities (independent words: the compiler vectorises it), the
    /// second XORs in the parity of the words below, a one-XOR chain from
    /// word to word.
    #[inline]
    fn divide(w: &mut [u64], add: &[u64]) {
        let n = w.len();
        debug_assert!(add.len() < n);
        debug_assert!(w[0] & 1 == 0, "not divisible by x");
        let prefix = |mut q: u64| {
            q ^= q << 1;
            q ^= q << 2;
            q ^= q << 4;
            q ^= q << 8;
            q ^= q << 16;
            q ^= q << 32;
            q
        };
        for i in 0..add.len() {
            w[i] = prefix((w[i] >> 1 | w[i + 1] << 63) ^ add[i]);
        }
        for i in add.len()..n - 1 {
            w[i] = prefix(w[i] >> 1 | w[i + 1] << 63);
        }
        w[n - 1] = prefix(w[n - 1] >> 1);
        let mut below = 0u64; // parity of the words below, 0 or 1
        for d in w.iter_mut() {
            let p = *d;
            *d = p ^ below.wrapping_neg();
            below ^= p >> 63;
        }
        debug_assert_eq!(below, 0, "not divisible by 1 + x");
    }
}

impl Point for WordPoint {
    const GROWTH: usize = 2;

    #[inline]
    fn eval(e: &mut [u64], a0: &[u64], a1: &[u64], a2: &[u64]) {
        let k = a0.len();
        e[..k].copy_from_slice(a0);
        e[k] = 0;
        e[k + 1] = 0;
        xor_into(&mut e[1..], a1);
        xor_into(&mut e[2..], a2);
    }

    #[inline]
    fn add_x3_x4(w: &mut [u64], c3: &[u64], c4: &[u64]) {
        xor_into(&mut w[3..], c3);
        xor_into(&mut w[4..], c4);
    }

    /// `q_j = w_(j+1) + add_j + q_(j−1)`: one XOR chain over the words.
    #[inline]
    fn divide(w: &mut [u64], add: &[u64]) {
        let n = w.len();
        debug_assert!(add.len() < n);
        debug_assert!(w[0] == 0, "not divisible by x^64");
        let mut q = 0u64;
        for j in 0..add.len() {
            q ^= w[j + 1] ^ add[j];
            w[j] = q;
        }
        for j in add.len()..n - 1 {
            q ^= w[j + 1];
            w[j] = q;
        }
        debug_assert_eq!(q, 0, "not divisible by 1 + x^64");
        w[n - 1] = 0;
    }
}

/// Scratch words one Toom-3 step at point `P` needs for `n`-word operands:
/// its own `6k + 6g` (`g` = `P::GROWTH`) plus what the largest sub-product,
/// `k + g` words, needs (the smaller ones need no more:
/// [`mul_balanced_scratch`] is monotone).
const fn step_scratch(n: usize, growth: usize, base_max: usize) -> usize {
    let k = n.div_ceil(3);
    6 * k + 6 * growth + mul_balanced_scratch(k + growth, base_max)
}

/// Scratch words one [`toom3`] step at `X = x` needs for `n`-word operands.
#[cfg(test)]
const fn toom3_scratch(n: usize, base_max: usize) -> usize {
    step_scratch(n, BitPoint::GROWTH, base_max)
}

/// Scratch words one [`toom3`] step at `X = x^64` needs for `n`-word
/// operands.
#[cfg(test)]
const fn toom3w_scratch(n: usize, base_max: usize) -> usize {
    step_scratch(n, WordPoint::GROWTH, base_max)
}

/// One Toom-3 step at 0, 1, X, X + 1, ∞ — `X = x` with `P =`
/// [`BitPoint`], `X = x^64` with [`WordPoint`]: `out = a·b`,
/// `a.len() == b.len() == n ≥ 8`, `out.len() == 2n`,
/// `scratch.len() ≥ toom3_scratch(n)` (`toom3w_scratch(n)` at `X = x^64`).
/// The five sub-products go back through [`mul_balanced`].
fn toom3<K: Backend, P: Point>(
    kern: K,
    out: &mut [u64],
    a: &[u64],
    b: &[u64],
    scratch: &mut [u64],
) {
    let n = a.len();
    let g = P::GROWTH;
    debug_assert!(n >= STEP_MIN);
    debug_assert_eq!(b.len(), n);
    debug_assert_eq!(out.len(), 2 * n);
    debug_assert!(scratch.len() >= step_scratch(n, g, BASE_MAX));
    let k = n.div_ceil(3);
    debug_assert!(1 <= n - 2 * k && n - 2 * k <= k);
    let (a0, a12) = a.split_at(k);
    let (a1, a2) = a12.split_at(k);
    let (b0, b12) = b.split_at(k);
    let (b1, b2) = b12.split_at(k);

    // c0 = W0 and c4 = W∞ go straight to their places, with all the scratch.
    {
        let (c0, rest) = out.split_at_mut(2 * k);
        mul_balanced(kern, c0, a0, b0, scratch);
        mul_balanced(kern, &mut rest[2 * k..], a2, b2, scratch);
    }

    let (ea, rest) = scratch.split_at_mut(k + g);
    let (eb, rest) = rest.split_at_mut(k + g);
    let (wx, rest) = rest.split_at_mut(2 * (k + g));
    let (wy, rest) = rest.split_at_mut(2 * (k + g));

    // W1 into the middle of the output (it becomes c1 there).
    eval_at_one(&mut ea[..k], a0, a1, a2);
    eval_at_one(&mut eb[..k], b0, b1, b2);
    mul_balanced(kern, &mut out[2 * k..4 * k], &ea[..k], &eb[..k], rest);

    // WX, then WY from a(X + 1) = a(X) + a1 + a2.
    P::eval(ea, a0, a1, a2);
    P::eval(eb, b0, b1, b2);
    mul_balanced(kern, wx, ea, eb, rest);
    add_two(ea, a1, a2);
    add_two(eb, b1, b2);
    mul_balanced(kern, wy, ea, eb, rest);

    interpolate::<P>(out, wx, wy, k);
}

/// `e = a0 + a1 + a2` (`e.len() == a0.len() == a1.len() ≥ a2.len()`).
#[inline]
fn eval_at_one(e: &mut [u64], a0: &[u64], a1: &[u64], a2: &[u64]) {
    let h = a2.len();
    for (((d, &x), &y), &z) in e.iter_mut().zip(a0).zip(a1).zip(a2) {
        *d = x ^ y ^ z;
    }
    for ((d, &x), &y) in e[h..].iter_mut().zip(&a0[h..]).zip(&a1[h..]) {
        *d = x ^ y;
    }
}

/// `e += a1 + a2` (`e.len() ≥ a1.len() ≥ a2.len()`).
#[inline]
fn add_two(e: &mut [u64], a1: &[u64], a2: &[u64]) {
    let h = a2.len();
    for ((d, &y), &z) in e.iter_mut().zip(a1).zip(a2) {
        *d ^= y ^ z;
    }
    xor_into(&mut e[h..], &a1[h..]);
}

/// Recovers `c = a·b` from the five values: on entry `out` is
/// `[c0 (2k) | W1 (2k) | c4 (2h)]`, `wx = WX` and `wy = WY` (`2(k + g)` words
/// each); on exit `out` is the product (`wx`, `wy` are clobbered).
fn interpolate<P: Point>(out: &mut [u64], wx: &mut [u64], wy: &mut [u64], k: usize) {
    let (c0, rest) = out.split_at_mut(2 * k);
    let (w1, c4) = rest.split_at_mut(2 * k);
    let h2 = c4.len();

    // c3·(X² + X) = WY + WX + W1 + c0; and WX + c0 for the next step.
    for i in 0..2 * k {
        wy[i] ^= wx[i] ^ w1[i] ^ c0[i];
        wx[i] ^= c0[i];
    }
    for i in 2 * k..wy.len() {
        wy[i] ^= wx[i];
    }
    P::divide(wy, &[]);
    let c3 = &wy[..2 * k];
    debug_assert!(wy[2 * k..].iter().all(|&w| w == 0));

    // c2·(1 + X) = (WX + c0 + X³·c3 + X⁴·c4)/X + (W1 + c0 + c3 + c4), the
    // last sum (= c1 + c2) kept in place of W1.
    P::add_x3_x4(wx, c3, c4);
    for (((d, &z), &t), &u) in w1.iter_mut().zip(&*c0).zip(c3).zip(&*c4) {
        *d ^= z ^ t ^ u;
    }
    for ((d, &z), &t) in w1[h2..].iter_mut().zip(&c0[h2..]).zip(&c3[h2..]) {
        *d ^= z ^ t;
    }
    P::divide(wx, w1);
    let c2 = &wx[..2 * k];
    debug_assert!(wx[2 * k..].iter().all(|&w| w == 0));

    // out = [c0 | c1 + c2 | c4] → c0 + c1·t + c2·t² + c3·t³ + c4·t⁴: c1 moves
    // down k words, c2 and c3 are added; the middle 3k words in one pass.
    for i in 0..k {
        let c1_lo = out[2 * k + i] ^ c2[i];
        let c1_hi = out[3 * k + i] ^ c2[k + i];
        out[k + i] ^= c1_lo;
        out[2 * k + i] = c1_hi ^ c2[i];
        out[3 * k + i] = c2[k + i] ^ c3[i];
    }
    // c3's top half (its top k − h words are zero) onto c4.
    xor_into(&mut out[4 * k..], &c3[k..2 * k]);
}

/// The step a balanced product takes (above the backend's fixed kernels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// One Karatsuba step ([`karatsuba`]).
    Karatsuba,
    /// Toom-3 at 0, 1, x, x + 1, ∞ ([`toom3`] over [`BitPoint`]).
    Toom3,
    /// Toom-3 at 0, 1, X, X + 1, ∞, X = x^64 ([`toom3`] over [`WordPoint`]).
    Toom3Word,
    /// The additive FFT ([`super::fft`]), from the plan's
    /// [`Plan::fft_min`] words up.
    Fft,
}

/// Sizes below this have a planned step; from here up every balanced product
/// takes a [`Step::Toom3Word`] (by the cost model within 2 % of the best
/// single step on every backend).
pub(crate) const PLAN_LEN: usize = 8192;

/// A backend's step for every balanced size below [`PLAN_LEN`], two bits a
/// size, chosen at compile time by [`Plan::new`] from the backend's measured
/// fixed-kernel costs.
pub(crate) struct Plan {
    /// Two bits a size: the step below [`PLAN_LEN`].
    steps: [u8; PLAN_LEN / 4],
    /// Balanced products of at least this many words take [`Step::Fft`].
    fft_min: usize,
    /// From this many words, sizes that fill their transform well
    /// ([`fft_dense`]) take [`Step::Fft`] too.
    fft_dense_min: usize,
}

/// Whether `n`-word balanced operands fill at least 85 % of their FFT's
/// `2^r ≥ 4n` points (the top of a step of the FFT's cost, where it beats
/// Toom below the plain threshold).
const fn fft_dense(n: usize) -> bool {
    let points = (4 * n).next_power_of_two();
    80 * n >= 17 * points
}

/// Costs of the model in quarter ticks (so the fitted 2, 9.5 and 6.5 ticks a
/// word are integers): a step's own linear work is `PER_WORD·n + PER_STEP`
/// on top of its sub-products (see the module docs).
const KARATSUBA_PER_WORD: u64 = 8;
const KARATSUBA_PER_STEP: u64 = 160;
const TOOM3_PER_WORD: u64 = 38;
const TOOM3_PER_STEP: u64 = 400;
const TOOM3W_PER_WORD: u64 = 26;
const TOOM3W_PER_STEP: u64 = 400;
/// A Toom-3 step must beat Karatsuba by `1/TOOM_MARGIN` of the cost: within
/// the model's error the simpler step stays.
const TOOM_MARGIN: u64 = 32;

impl Plan {
    /// The cheapest step for every size by the cost model: a fixed kernel
    /// costs `fixed[n]` ticks (`fixed[n] == 0`: the backend has none at
    /// `n`), a step its sub-products plus its own linear work. Dynamic
    /// programming upwards from 1 word; const, so each backend's plan is
    /// computed by the compiler.
    /// From `fft_min` words up every balanced product takes the FFT, and
    /// from `fft_dense_min` those that fill their transform well
    /// (thresholds measured, see the module docs).
    pub(crate) const fn new(costs: &Costs) -> Plan {
        let fixed = &costs.fixed;
        let mut cost = [0u64; PLAN_LEN];
        let mut plan = [0u8; PLAN_LEN / 4];
        let mut n = 1;
        while n < PLAN_LEN {
            if n < fixed.len() && fixed[n] > 0 {
                cost[n] = 4 * fixed[n] as u64;
                n += 1;
                continue;
            }
            let (l, h) = (n - n / 2, n / 2);
            let mut best =
                2 * cost[l] + cost[h] + KARATSUBA_PER_WORD * n as u64 + KARATSUBA_PER_STEP;
            let mut step = Step::Karatsuba;
            if n >= TOOM3_MIN {
                let k = n.div_ceil(3);
                let h = n - 2 * k;
                let common = 2 * cost[k] + cost[h];
                let t = common + 2 * cost[k + 1] + TOOM3_PER_WORD * n as u64 + TOOM3_PER_STEP;
                let w = common + 2 * cost[k + 2] + TOOM3W_PER_WORD * n as u64 + TOOM3W_PER_STEP;
                let bar = best - best / TOOM_MARGIN;
                if t < bar && t < w {
                    best = t;
                    step = Step::Toom3;
                } else if w < bar {
                    best = w;
                    step = Step::Toom3Word;
                }
            }
            cost[n] = best;
            plan[n / 4] |= (step as u8) << (2 * (n % 4));
            n += 1;
        }
        Plan {
            steps: plan,
            fft_min: costs.fft_min,
            fft_dense_min: costs.fft_dense_min,
        }
    }

    /// Balanced products of at least this many words take [`Step::Fft`].
    #[cfg(test)]
    pub(crate) fn fft_min(&self) -> usize {
        self.fft_min
    }

    /// The step for `n`-word operands without a fixed kernel.
    #[inline]
    pub(crate) fn step(&self, n: usize) -> Step {
        if n >= self.fft_min || (n >= self.fft_dense_min && fft_dense(n)) {
            return Step::Fft;
        }
        match self.steps.get(n / 4).map(|b| (b >> (2 * (n % 4))) & 3) {
            None => Step::Toom3Word,
            Some(1) => Step::Toom3,
            Some(2) => Step::Toom3Word,
            Some(_) => Step::Karatsuba,
        }
    }
}

/// A backend's [`Plan`], computed by the compiler from its
/// [`Backend::COSTS`] (one constant per backend type).
struct PlanOf<B>(core::marker::PhantomData<B>);

impl<B: Backend> PlanOf<B> {
    const PLAN: Plan = {
        assert!(B::COSTS.fft_min >= FFT_MIN_ANY && B::COSTS.fft_dense_min >= FFT_MIN_ANY);
        Plan::new(&B::COSTS)
    };
}

/// The plan of the backend `B`.
#[inline]
pub(crate) fn plan_of<B: Backend>() -> &'static Plan {
    &PlanOf::<B>::PLAN
}

/// The smallest size any backend sends to the FFT (each backend's
/// thresholds are checked against it when its plan is built): from here up
/// the scratch bound covers it.
pub(crate) const FFT_MIN_ANY: usize = 3_400;

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::portable::Portable;
    use super::*;
    use crate::test_util::{mul_bitwise, words};
    use std::{vec, vec::Vec};

    /// `w · x^(64·word + bit)`, `len` words long (the bits above dropped).
    fn shifted(w: &[u64], word: usize, bit: u32, len: usize) -> Vec<u64> {
        let mut out = vec![0u64; len];
        for (i, &x) in w.iter().enumerate() {
            if let Some(d) = out.get_mut(i + word) {
                *d ^= x << bit;
            }
            if bit > 0
                && let Some(d) = out.get_mut(i + word + 1)
            {
                *d ^= x >> (64 - bit);
            }
        }
        out
    }

    fn add(a: &mut [u64], b: &[u64]) {
        for (x, y) in a.iter_mut().zip(b) {
            *x ^= y;
        }
    }

    /// `X^i · w` for the point's `X`.
    fn times_point<P: Point>(w: &[u64], i: usize, len: usize) -> Vec<u64> {
        if P::GROWTH == 1 {
            shifted(w, 0, i as u32, len)
        } else {
            shifted(w, i, 0, len)
        }
    }

    fn check_divide<P: Point>() {
        let mut s = 0x700f_0001;
        for n in 1..12 {
            for add_len in [0, n / 2, n] {
                let q = words(&mut s, n);
                let extra = words(&mut s, add_len);
                // w = X·(q·(1 + X) + extra), exactly divisible.
                let len = n + 2 * P::GROWTH;
                let mut d = times_point::<P>(&q, 0, len);
                add(&mut d, &times_point::<P>(&q, 1, len));
                add(&mut d, &extra);
                let mut w = times_point::<P>(&d, 1, len);
                P::divide(&mut w, &extra);
                assert_eq!(w[..n], q[..], "{n} words, add {add_len}");
                assert!(w[n..].iter().all(|&x| x == 0));
            }
        }
    }

    #[test]
    fn exact_divisions() {
        check_divide::<BitPoint>();
        check_divide::<WordPoint>();
        // 192 ones after the shift: the parity crosses every word boundary.
        let mut w = vec![!0u64 << 1, !0, !0, 1];
        BitPoint::divide(&mut w, &[]);
        assert_eq!(
            w,
            [0x5555_5555_5555_5555; 3]
                .into_iter()
                .chain([0])
                .collect::<Vec<_>>()
        );
        // X·(1 + X)·(1 + X²) = X + X² + X³ + X⁴.
        let mut w = vec![0, 1, 1, 1, 1, 0];
        WordPoint::divide(&mut w, &[]);
        assert_eq!(w, [1, 0, 1, 0, 0, 0]);
    }

    fn check_eval_and_shifts<P: Point>() {
        let mut s = 0x700f_0004;
        for k in 1..10 {
            for h in 1..=k {
                let (a0, a1, a2) = (words(&mut s, k), words(&mut s, k), words(&mut s, h));
                let len = k + P::GROWTH;
                let mut want = times_point::<P>(&a0, 0, len);
                add(&mut want, &times_point::<P>(&a1, 1, len));
                add(&mut want, &times_point::<P>(&a2, 2, len));
                let mut e = vec![!0u64; len];
                P::eval(&mut e, &a0, &a1, &a2);
                assert_eq!(e, want, "eval, k = {k}, h = {h}");

                let (c3, c4) = (words(&mut s, 2 * k), words(&mut s, 2 * h));
                let len = 2 * k + 2 * P::GROWTH;
                let w0 = words(&mut s, len);
                let mut want = w0.clone();
                add(&mut want, &times_point::<P>(&c3, 3, len));
                add(&mut want, &times_point::<P>(&c4, 4, len));
                let mut w = w0;
                P::add_x3_x4(&mut w, &c3, &c4);
                assert_eq!(w, want, "X³c3 + X⁴c4, k = {k}, h = {h}");
            }
        }
    }

    #[test]
    fn evaluation_and_shifts() {
        check_eval_and_shifts::<BitPoint>();
        check_eval_and_shifts::<WordPoint>();
    }

    const BASE: usize = BASE_MAX;

    /// Both Toom-3 steps on `n`-word operands with the kernel `kern`
    /// (sub-products by its plan), against `want`.
    fn check_steps<K: Backend>(kern: K, a: &[u64], b: &[u64], want: &[u64]) {
        let n = a.len();
        let mut out = vec![0xa5a5u64; 2 * n];
        let mut scratch = vec![!0u64; toom3_scratch(n, BASE)];
        toom3::<K, BitPoint>(kern, &mut out, a, b, &mut scratch);
        assert!(out == want, "toom3, {n} words");
        let mut out = vec![0x5a5au64; 2 * n];
        let mut scratch = vec![!0u64; toom3w_scratch(n, BASE)];
        toom3::<K, WordPoint>(kern, &mut out, a, b, &mut scratch);
        assert!(out == want, "toom3w, {n} words");
    }

    /// Every backend's kernel the CPU has.
    fn for_each_kernel(mut f: impl FnMut(&dyn Fn(&[u64], &[u64], &[u64]))) {
        f(&|a, b, w| check_steps(Portable, a, b, w));
        macro_rules! simd {
            ($($arch:literal $backend:ty;)*) => {$(
                #[cfg(target_arch = $arch)]
                if let Some(t) = <<$backend as Backend>::Token>::get() {
                    f(&|a, b, w| check_steps(<$backend>::new(t), a, b, w));
                }
            )*};
        }
        simd! {
            "x86_64" super::super::clmul::Pclmulqdq;
            "x86_64" super::super::vpclmul::Vpclmulqdq;
            "x86_64" super::super::ymm::VpclmulqdqYmm;
            "aarch64" super::super::pmull::Pmull;
        }
    }

    #[test]
    fn steps_match_reference() {
        let mut s = 0x700f_0002;
        for n in STEP_MIN..=70 {
            for _ in 0..2 {
                let (a, b) = (words(&mut s, n), words(&mut s, n));
                let want = mul_bitwise(&a, &b);
                for_each_kernel(|check| check(&a, &b, &want));
            }
        }
    }

    #[test]
    fn steps_on_extreme_operands() {
        for n in [STEP_MIN, 9, 10, 11, 30, 31, 32, 100] {
            let shapes: [(Vec<u64>, Vec<u64>); 3] = [
                (vec![!0; n], vec![!0; n]),
                (
                    (0..n).map(|i| u64::from(i == n - 1) << 63).collect(),
                    vec![!0; n],
                ),
                (
                    (0..n).map(|i| u64::from(i % 3 == 1)).collect(),
                    (0..n).map(|i| (i as u64) << 60).collect(),
                ),
            ];
            for (a, b) in shapes {
                let want = mul_bitwise(&a, &b);
                for_each_kernel(|check| check(&a, &b, &want));
            }
        }
    }

    #[test]
    fn steps_agree_with_karatsuba_at_larger_sizes() {
        let mut s = 0x700f_0003;
        let k = Portable;
        for n in [299, 300, 301, 1001] {
            let (a, b) = (words(&mut s, n), words(&mut s, n));
            let mut want = vec![0u64; 2 * n];
            let mut scratch = vec![0u64; karatsuba_scratch(n, BASE)];
            karatsuba(k, &mut want, &a, &b, &mut scratch);
            for_each_kernel(|check| check(&a, &b, &want));
        }
    }

    #[test]
    fn scratch_bound_covers_every_step() {
        let mut last = 0;
        for n in 1..5000 {
            let bound = mul_balanced_scratch(n, BASE);
            assert!(bound >= last, "not monotone at {n}");
            last = bound;
            if n > BASE {
                assert!(bound >= karatsuba_scratch(n, BASE), "karatsuba at {n}");
            }
            if n >= TOOM3_MIN {
                assert!(bound >= toom3_scratch(n, BASE), "toom3 at {n}");
                assert!(bound >= toom3w_scratch(n, BASE), "toom3w at {n}");
            }
        }
    }

    fn check_plan(plan: &Plan) {
        for n in 0..TOOM3_MIN {
            assert_eq!(plan.step(n), Step::Karatsuba, "{n}");
        }
        for n in [PLAN_LEN, PLAN_LEN + 1, 1 << 20] {
            let dense = n >= plan.fft_dense_min && fft_dense(n);
            let want = if n >= plan.fft_min() || dense {
                Step::Fft
            } else {
                Step::Toom3Word
            };
            assert_eq!(plan.step(n), want, "{n}");
        }
        assert_eq!(plan.step(plan.fft_min()), Step::Fft);
        assert_ne!(plan.step(plan.fft_min() - 1), Step::Fft);
        assert!(plan.fft_min() >= FFT_MIN_ANY);
        // Tiny sizes take the cheap step the model finds (the fixed kernels
        // are gone from 33 words on every backend).
        assert!((33..64).any(|n| plan.step(n) == Step::Karatsuba));
    }

    #[test]
    fn plans_are_sane() {
        // The dense window below the plain FFT threshold.
        assert_eq!(plan_of::<Portable>().step(4096), Step::Fft);
        assert_eq!(plan_of::<Portable>().step(3500), Step::Fft);
        assert_ne!(plan_of::<Portable>().step(4097), Step::Fft);
        assert_ne!(plan_of::<Portable>().step(3000), Step::Fft);
        check_plan(plan_of::<Portable>());
        #[cfg(target_arch = "x86_64")]
        check_plan(plan_of::<super::super::clmul::Pclmulqdq>());
        #[cfg(target_arch = "x86_64")]
        check_plan(plan_of::<super::super::vpclmul::Vpclmulqdq>());
        #[cfg(target_arch = "x86_64")]
        check_plan(plan_of::<super::super::ymm::VpclmulqdqYmm>());
        #[cfg(target_arch = "aarch64")]
        check_plan(plan_of::<super::super::pmull::Pmull>());
        // The ymm plan's dense windows below its plain threshold.
        #[cfg(target_arch = "x86_64")]
        {
            let ymm = plan_of::<super::super::ymm::VpclmulqdqYmm>();
            assert_eq!(ymm.step(4096), Step::Fft);
            assert_eq!(ymm.step(8192), Step::Fft);
            assert_ne!(ymm.step(4097), Step::Fft);
            assert_ne!(ymm.step(16_385), Step::Fft);
            assert_eq!(ymm.step(22_000), Step::Fft);
        }
    }
}
