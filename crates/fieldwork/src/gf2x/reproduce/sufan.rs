//! Every multiplication strategy of Su & Fan's Table 1 for 3, 4, 5, 7 and 9
//! words, as separate kernels, so the table can be reproduced here.
//!
//! CPU features: none of its own. Every kernel is generic over the digit `T`
//! and the digit product `M: DigitMul<T>` of `gf2x::formulas`; a backend
//! compiles it with its word product (`pclmulqdq` on an xmm lane, or the
//! portable masked-multiplication product) inside its `#[target_feature]`
//! entry points. Everything is `#[inline(always)]` straight-line code: no
//! branch and no memory index depends on the operands.
//!
//! Source of the strategy list: C. Su and H. Fan, *Impact of Intel's new
//! instruction sets on software implementation of GF(2)\[x\] multiplication*,
//! Information Processing Letters (2012), ePrint 2011/540, Table 1. The
//! five- and seven-term formulae are P. L. Montgomery's, *Five, six, and
//! seven-term Karatsuba-like formulae*, IEEE Transactions on Computers 54(3),
//! 2005, pp. 362–369, reduced to characteristic 2.
//!
//! # Representation
//!
//! Operands are `N` digits, digit 0 lowest (a digit is one 64-bit word); the
//! product is `2N` digits. A formula over `P` terms cuts each operand into
//! pieces `a0 … a(P−1)` of `K` digits, `a = Σ aᵢ·tⁱ` with `t = x^(64·K)`; the
//! top piece may be shorter (`top` digits, zero-padded). Notation:
//!
//! ```text
//! mS = (Σ_{i∈S} aᵢ)·(Σ_{i∈S} bᵢ)     e.g. m0 = a0·b0, m01 = (a0+a1)(b0+b1),
//!                                          m0124 = (a0+a1+a2+a4)(b0+b1+b2+b4)
//! Φ  = 1 + t + t²                      (1 + t³ = (1 + t)·Φ, 1 + t⁴ = (1 + t)⁴)
//! ```
//!
//! A *product* is one 64×64→128-bit carry-less multiplication (`DigitMul`
//! call); an *addition* is one XOR of two 64-bit digits. Additions are
//! counted as the compiler leaves them: XOR with a constant zero (array
//! initialisation, the padding of a short top piece) is free.
//!
//! # The strategies
//!
//! Both counts are asserted by the tests (a counting `DigitMul`, and a
//! counting digit type). A trailing `m` marks a *factored* (modified)
//! evaluation of a formula the paper's table lists in its printed form.
//!
//! | name | words | products | additions | strategy |
//! |---|---|---|---|---|
//! | 3-1 | 3 | 6 | 24 | three-term formula of \[13\] (Weimerskirch–Stebila–Shantz), coefficients summed as printed |
//! | 3-1m | 3 | 6 | 18 | Su & Fan's modified three-term formula (4) |
//! | 3-1h | 3 | 6 | 20 | Su & Fan's formula (7): halved granularity, common subexpressions |
//! | 3-S | 3 | 9 | 12 | schoolbook |
//! | 4-1 | 4 | 9 | 40 | two-term Karatsuba over 2 + 2, recursively, as printed |
//! | 4-1m | 4 | 9 | 35 | the same with the refined recombination at both levels |
//! | 4-2 | 4 | 9 | 52 | non-recursive four-term formula (2), as printed |
//! | 4-2m | 4 | 9 | 34 | Su & Fan's modified four-term formula (5) |
//! | 5-1 | 5 | 13 | 70 | Su & Fan's formula (6): Cenk–Özbudak's five-term products, modified recombination |
//! | 5-1 Montgomery | 5 | 13 | 58 | Montgomery's five-term formula, factored (not the paper's) |
//! | 5-2 | 5 | 15 | 60 | two-term over 3 + 2 words (3-1m, refined 2-word Karatsuba) |
//! | 5-3 | 5 | 16 | 65 | three-term (factored) over pieces of 2, 2, 1 words |
//! | 7-1 | 7 | 22 | 288 | the paper's seven-term products (listing `mul7_64_0`), coefficient by coefficient |
//! | 7-1 Montgomery | 7 | 22 | 112 | Montgomery's seven-term formula, factored (not the paper's) |
//! | 7-2 | 7 | 24 | 110 | two-term over 4 + 3 words (4-2m, 3-1m) |
//! | 7-3 | 7 | 25 | 116 | four-term (factored) over pieces of 2, 2, 2, 1 words |
//! | 9-1 | 9 | 35 | 205 | two-term over 5 + 4 words (5-1 by formula (6), 4-2m) |
//! | 9-1 Montgomery | 9 | 35 | 181 | two-term over 5 + 4 words (Montgomery's 5-1, 4-2m; not the paper's) |
//! | 9-2 | 9 | 36 | 162 | three-term (factored) over 3-word pieces, each 3-1m |
//! | 9-3 | 9 | 37 | 212 | formula (6) over pieces of 2, 2, 2, 2, 1 words |
//! | 9-3 Montgomery | 9 | 37 | 188 | Montgomery's five-term (factored) over pieces of 2, 2, 2, 2, 1 words (not the paper's) |
//!
//! The composite strategies use the cheapest smaller kernel (the factored or
//! refined form) inside. The split strategies put the short piece on top: Su
//! & Fan's "5-3 (1,2,2)" is pieces of 2, 2, 1 words here, which has the same
//! product count. `STRATEGIES` holds the table (without the additions) for
//! reports.
//!
//! **Duplicate products in uneven splits.** When the pieces are uneven, one
//! sub-product repeats: in 5-2 the middle product `(A0 + A1)(B0 + B1)` has
//! top word `a2`, so its inner three-term formula recomputes `a2·b2` of
//! `A0·B0`. Likewise with a zero-padded top piece `aₜ = (w, 0)`: the high
//! word of `Σ_{i∈S} aᵢ` is that of `Σ_{i∈S∖t} aᵢ`, so where `S∖t` is also a
//! product of the formula (5-3: `m02`, `m12`; 7-3: `m13`, `m23`; 9-3: `m04`,
//! `m34`, `m0234`) the 2-word Karatsuba inside repeats one word product. The
//! source keeps the paper's counts, but LLVM merges the duplicates: the
//! compiled `pclmulqdq` kernels perform 14 products for 5-2 and 5-3, 23 for
//! 7-2 and 7-3, 34 for 9-1 and 9-3 (counted in the compiled assembly). Sharing them explicitly would lower those rows of the table.
//!
//! # The formulas
//!
//! **Two-term (Karatsuba).** As printed: `C = m0 + (m01 + m0 + m1)·t + m1·t²`.
//! Modified: Su & Fan's formula (3) (§2.2, crediting Moenck 1976 \[11\] and
//! Bernstein 2000 \[12\]; Bernstein's "refined Karatsuba"):
//! `C = m01·t + (1 + t)·(m0 + m1·t)`: 5 additions instead of 6 for one-word
//! pieces. With pieces of L > H digits the same holds with `t = x^(64·L)`.
//!
//! **Three-term, the formula of Su & Fan's \[13\]** (Weimerskirch, Stebila
//! and Shantz, ACISP 2003; Su & Fan's formula (1) is the *two*-term
//! formula), 6 products:
//!
//! ```text
//! c0 = m0            c1 = m01 + m0 + m1      c2 = m02 + m0 + m1 + m2
//! c3 = m12 + m1 + m2 c4 = m2                 C = Σ cᵢ·tⁱ
//! ```
//!
//! Modified, Su & Fan's formula (4) (§2.2):
//! `C = Φ·(m0 + m1·t + m2·t²) + m01·t + m02·t² + m12·t³`: 12
//! additions to recombine one-word pieces against 18, plus 3 operand sums per
//! operand.
//!
//! **Four-term, Su & Fan formula (2)** (the two-term formula applied twice,
//! written out), 9 products:
//!
//! ```text
//! c0 = m0                      c1 = m01 + m0 + m1       c2 = m02 + m0 + m1 + m2
//! c3 = m0123 + m01 + m23 + m02 + m13 + m0 + m1 + m2 + m3
//! c4 = m13 + m1 + m2 + m3      c5 = m23 + m2 + m3       c6 = m3
//! ```
//!
//! Modified, Su & Fan's formula (5) (§2.2), nested:
//! `C = m0123·t³ + (1 + t²)·[m01·t + m23·t³ + (1 + t)·(m0 + m1·t +
//! m2·t² + m3·t³)] + (1 + t)·(m02·t² + m13·t³)`: 24 additions to recombine
//! against 42; 5 operand sums per operand (`s0123 = s01 + s23`).
//!
//! **Five-term, Montgomery 2005**, 13 products. In characteristic 2 each
//! product enters the coefficients given by its polynomial `E(t)`,
//! `C = Σ mS·E_S(t)`:
//!
//! ```text
//! m0     1+t+t²+t⁴+t⁵+t⁶ = Φ(1+t⁴)        m4     t²(1+t+t²+t⁴+t⁵+t⁶)
//! m1     t+t⁴ = t(1+t³)                   m3     t⁴+t⁷
//! m01    t+t²+t⁴+t⁵ = t(1+t)(1+t³)        m34    t³+t⁴+t⁶+t⁷
//! m04    t²+t³+t⁵+t⁶                      m01234 t³+t⁴+t⁵ = t³Φ
//! m124   t²+t⁴ = t²(1+t²)                 m023   t⁴+t⁶
//! m0134  t³+t⁵                            m0124  t²+t⁵        m0234  t³+t⁶
//! ```
//!
//! Every `E_S` is `tᵏ·(1 + t)ⁱ·Φʲ`, so the sum can be nested; ours:
//!
//! ```text
//! C = (1+t³)·[ m1·t + m3·t⁴ + m0124·t² + m0234·t³
//!              + (1+t)·( m01·t + m04·t² + m34·t³ + (1+t²)·(m0 + m4·t²) ) ]
//!   + (1+t²)·( m124·t² + m0134·t³ + m023·t⁴ ) + Φ·m01234·t³
//! ```
//!
//! 40 additions to recombine one-word pieces (72 coefficient by coefficient),
//! and the nine operand sums in nine additions per operand: `s04, s34, s01,
//! s0134 = s01 + s34, s01234 = s0134 + a2, s0124 = s01234 + a3, s0234 =
//! s01234 + a1, s023 = s0234 + a4, s124 = s0134 + s023`.
//!
//! **Seven-term, Montgomery 2005**, 22 products:
//!
//! ```text
//! m0  Φ(1+t⁴)          m2  t²Φ(1+t⁴)       m4  t⁴Φ(1+t⁴)       m6  t⁶Φ(1+t⁴)
//! m1  t(1+t)(1+t³)     m3  t⁴(1+t)(1+t³)   m5  t⁷(1+t)(1+t³)
//! m01 t(1+t²)(1+t⁶)    m56 t³(1+t²)(1+t⁶)  m02 t²(1+t³)(1+t⁴)  m46 t³(1+t³)(1+t⁴)
//! m04 t⁴(1+t³)         m26 t⁵(1+t³)        m13 t³(1+t)(1+t³)   m35 t⁵(1+t)(1+t³)
//! m01345 t³(1+t³)      m12356 t⁶(1+t³)     m02346 t³(1+t⁶)     m02356 t³(1+t⁴)
//! m01346 t⁵(1+t⁴)      m1245 t³(1+t²)(1+t⁴)                    m0123456 t⁵Φ
//! ```
//!
//! Nested (ours):
//!
//! ```text
//! C = (1+t³)·[ m01345·t³ + m04·t⁴ + m26·t⁵ + m12356·t⁶
//!      + (1+t)·( m1·t + m13·t³ + m3·t⁴ + m35·t⁵ + m5·t⁷ + Φ·m02346·t³
//!        + (1+t²)·( m0 + m2·t² + m4·t⁴ + m6·t⁶ + (1+t)·(m02·t² + m46·t³)
//!                   + Φ·(m01·t + m56·t³) ) ) ]
//!   + (1+t⁴)·[ m02356·t³ + m01346·t⁵ + (1+t²)·m1245·t³ ] + Φ·m0123456·t⁵
//! ```
//!
//! 80 additions to recombine (148 coefficient by coefficient); the fifteen
//! operand sums take sixteen additions per operand (`s023 = s02 + a3` is the
//! helper; see the code).
//!
//! A factor `1 + tˢ` is one shift-and-XOR of the bracket (free where the
//! bracket is no longer than `s` blocks, as `(1+t⁴)·m02356·…`); `Φ` shares
//! the pair sums of adjacent blocks, about `3L/2` block additions for `L`
//! blocks.
//!
//! # Which is expected to be fastest
//!
//! On this machine a 64×64 carry-less product (`pclmulqdq`) costs about as
//! much as 2–3 XORs. With cost = additions + c·products (c = 2 / c = 3):
//!
//! | words | strategies (cost at c = 2 / 3) | expected best |
//! |---|---|---|
//! | 3 | 3-1 36/42, 3-1m 30/36, 3-S 30/39 | 3-1m or 3-S (3-S: no operand sums, short chains) |
//! | 4 | 4-1 58/67, 4-1m 53/62, 4-2 70/79, 4-2m 52/61 | 4-2m ≈ 4-1m |
//! | 5 | 5-1 84/97, 5-2 90/105, 5-3 97/113 | 5-1 (with the merged duplicates 5-2 is 88/102) |
//! | 7 | 7-1 156/178, 7-2 158/182, 7-3 166/191 | 7-1 ≈ 7-2 |
//! | 9 | 9-1 251/286, 9-2 234/270, 9-3 262/299 | 9-2 |
//!
//! The model ignores latency and register pressure: the formulas with fewer
//! products have longer addition chains, and from 5 words on the digits
//! exceed the 16 xmm registers and spill, so the measured order (below)
//! differs from the model's: the as-printed forms (3-1, 4-2), whose long
//! coefficient sums are serial chains, are much slower than their factored
//! forms.
//!
//! # Alternatives not taken
//!
//! - Evaluating Montgomery's formulae coefficient by coefficient: 72 and
//!   148 additions to recombine, against 40 and 80 nested.
//! - A greedy common-subexpression search over the same word-level
//!   recombination (Paar's pair-extraction heuristic, best of 300
//!   randomised runs): 12, 24, 39 and 84 additions for three, four, five and
//!   seven terms, against our 12, 24, 40 and 80. The nested forms are kept:
//!   they read as formulas and are instantiated for any piece size by one
//!   macro each.
//!
//! # Sources and own derivations
//!
//! - Strategy list, product counts: Su & Fan, Table 1 (text conversion in
//!   `../shared/seeds/000_*.txt`, read in full, with the paper's C listing).
//!   Formula numbers are the paper's: (1) two-term Karatsuba, (2) the
//!   non-recursive four-term formula, (3) the modified two-term formula
//!   (Moenck/Bernstein), (4) the modified three-term formula, (5) the
//!   modified four-term formula, (6) the modified five-term formula of
//!   Cenk–Özbudak \[10\], (7) the three-term formula with halved
//!   granularity and common subexpressions. The `m` rows 3-1m and 4-2m are
//!   the paper's (4) and (5), not our own; 4-1m applies (3) at both levels.
//! - 5-1 and 9-3 (formula (6)) and 7-1 (the listing's `mul7_64_0`): see
//!   their kernels. Text-conversion losses: (6)'s third term lacks a factor
//!   `x` (restored, the only identity-preserving reading); the listing's
//!   definitions of 7-1's `m[17]` and `m[18]` are lost: of all pairs of
//!   operand subsets only {p1345, p0123456} and {p0125, p0123456} complete
//!   the 20 surviving products to an identity (exhaustive search); we take
//!   p1345, whose operand `t6 = t5 ^ bc[4]` (bc1+bc3+bc5+bc4) the surviving
//!   listing computes right before the lost lines. 7-1's recombination
//!   (the listing's XOR sequence is partly lost too) is solved by GF(2)
//!   linear algebra and evaluated coefficient by coefficient: it is the
//!   paper's set of products, not its addition schedule.
//! - Formula (7) (§2.3, 20 additions at halved granularity) is strategy
//!   3-1h (`s3_1h`); §3.1 says the paper did *not* use it for its
//!   timings of 3-1 (the odd word granularity costs 64-bit XORs), so Table
//!   1's 3-1 row is 3-1 / 3-1m and 3-1h is an extra row. The emphasis that
//!   marked its common subexpressions is lost in the text: see `s3_1h`.
//! - The word-addition counts the paper prints for (1)–(7) are set beside
//!   the formulas evaluated on counting words, and beside these kernels'
//!   counts, in the `counts` module beside this one (the counting rule that recovers them is
//!   stated there).
//! - 9-1 uses the paper's 5-1 (formula (6)) inside, as Table 1 says
//!   ("five-term formula \[10\]"); row "9-1 Montgomery" keeps the earlier
//!   version with Montgomery's 5-1.
//! - Montgomery's forms (rows "… Montgomery") are kept for comparison; the
//!   paper does not use them for 5-1/7-1/9-3.
//! - The five- and seven-term products and their exponent sets: Montgomery
//!   2005, reduced to characteristic 2, in the form tabulated by M4RIE
//!   (M. Albrecht, `karatsuba.c`, whose documentation credits Montgomery) and
//!   cross-checked against the general-characteristic five-term formula
//!   (products `(a0 − a2 − a3 − a4)(b0 − b2 − b3 − b4)`, …) as implemented in
//!   gnark-crypto. We could not consult Montgomery's paper itself, so no
//!   section or equation number is given; the identities are proved by test.
//! - Our own: every nesting above (found by a small exhaustive search over
//!   nestings by `1 + t`, `1 + t²`, `1 + t³`, `1 + t⁴` and `Φ`, costed in
//!   word additions), the operand-sum chains (a randomised greedy search),
//!   the pair-sharing `Φ` product, and all the additions counts.
//!
//! # Verification
//!
//! The tests compare every strategy with a bit-by-bit product on random and
//! edge inputs, and on every pair of unit-word operands `(x·eᵢ, y·eⱼ)`: each
//! kernel is bilinear over GF(2) in the words, so that is a proof for all
//! inputs. A counting `DigitMul` asserts the product counts and a counting
//! digit the addition counts of the table above.
//!
//! # Measured
//!
//! `cargo run --release -p peer-bench -- --filter sufan` times every strategy
//! on every backend of this CPU, chained calls, against the defaults; the
//! defaults in `clmul.rs` (schoolbook 3-S at 3 words, 5-2 at 5 words) come
//! from it. The fewest products win only where they do not lengthen the
//! dependency chains or the spills.
#![forbid(unsafe_code)]

use crate::gf2x::formulas::{Digit, DigitMul, mul1, sum, xor_into};
use crate::gf2x::sufan::{
    add_at, four_term_factored, mul2_refined, part, three_term_factored, times_one_plus, times_phi,
    two_term_refined,
};
/// The strategies production uses are defined there; the table has them all.
pub(crate) use crate::gf2x::sufan::{s3_1m, s3_school, s4_1m, s4_2m, s5_2};

/// Every strategy here: name as in Su & Fan's Table 1 (a trailing `m` marks
/// the factored form of a formula the table lists unfactored), operand words,
/// word products, and what it is. The word additions are in the module docs.
#[rustfmt::skip]
pub(crate) const STRATEGIES: &[(&str, usize, usize, &str)] = &[
    ("3-1",  3,  6, "three-term formula of [13], coefficients summed as printed"),
    ("3-1m", 3,  6, "modified three-term formula (4): Φ·(m0 + m1·t + m2·t²) + …"),
    ("3-1h", 3,  6, "three-term formula (7): halved granularity, common subexpressions"),
    ("3-S",  3,  9, "schoolbook"),
    ("4-1",  4,  9, "two-term Karatsuba over 2 + 2, recursively, as printed"),
    ("4-1m", 4,  9, "two-term Karatsuba over 2 + 2, recursively, refined"),
    ("4-2",  4,  9, "four-term non-recursive formula (2), as printed"),
    ("4-2m", 4,  9, "modified four-term formula (5)"),
    ("5-1",  5, 13, "Cenk–Özbudak's five-term products [10], recombined by formula (6)"),
    ("5-1 Montgomery", 5, 13, "Montgomery's five-term formula, factored (not the paper's)"),
    ("5-2",  5, 15, "two-term over 3 + 2 words (3-1m, refined 2-word)"),
    ("5-3",  5, 16, "three-term (factored) over pieces of 2, 2, 1 words"),
    ("7-1",  7, 22, "the listing's seven-term products (Cenk–Özbudak moduli [10]), by coefficients"),
    ("7-1 Montgomery", 7, 22, "Montgomery's seven-term formula, factored (not the paper's)"),
    ("7-2",  7, 24, "two-term over 4 + 3 words (4-2m, 3-1m)"),
    ("7-3",  7, 25, "four-term (factored) over pieces of 2, 2, 2, 1 words"),
    ("9-1",  9, 35, "two-term over 5 + 4 words (5-1 by formula (6), 4-2m)"),
    ("9-1 Montgomery", 9, 35, "two-term over 5 + 4 words (Montgomery's 5-1, 4-2m; not the paper's)"),
    ("9-2",  9, 36, "three-term (factored) over 3-word pieces, each 3-1m"),
    ("9-3",  9, 37, "formula (6) over pieces of 2, 2, 2, 2, 1 words"),
    ("9-3 Montgomery", 9, 37, "Montgomery's five-term (factored) over pieces of 2, 2, 2, 2, 1 words"),
];

/// `Σ cᵢ·tⁱ` (`t = x^(64·k)`) with every coefficient `cᵢ` summed from its
/// list of products exactly as printed: the textbook evaluation of a formula,
/// kept to reproduce the unmodified rows of Su & Fan's table.
#[inline(always)]
fn by_coefficients<T: Digit, const W: usize, const N: usize>(
    coefficients: &[&[&[T; W]]],
    k: usize,
) -> [T; N] {
    let mut c = [T::ZERO; N];
    for (i, terms) in coefficients.iter().enumerate() {
        let mut ci = [T::ZERO; W];
        for p in terms.iter() {
            xor_into(&mut ci, *p);
        }
        add_at(&mut c, i * k, &ci);
    }
    c
}

/// Two-term Karatsuba over H + H digits, recombined as printed:
/// `C = P0 + (P1 + P0 + P2)·t + P2·t²`.
macro_rules! two_term_plain {
    ($name:ident, $n:literal = $h:literal + $h2:literal, $mul_h:ident, $doc:literal) => {
        $crate::gf2x::formulas::kernel!(
            #[doc = $doc]
            $name,
            $n,
            |m, a, b| {
                const { assert!($h == $h2 && 2 * $h == $n) };
                let (a0, a1): ([T; $h], [T; $h]) = (part(a, 0), part(a, $h));
                let (b0, b1): ([T; $h], [T; $h]) = (part(b, 0), part(b, $h));
                let p0 = $mul_h(m, &a0, &b0);
                let p2 = $mul_h(m, &a1, &b1);
                let p1 = $mul_h(m, &sum(&a0, &a1), &sum(&b0, &b1));
                by_coefficients(&[&[&p0], &[&p1, &p0, &p2], &[&p2]], $h)
            }
        );
    };
}

/// Montgomery's five-term formula in characteristic 2 (13 products),
/// factored (our nesting):
/// `C = (1 + t³)·[m1·t + m3·t⁴ + m0124·t² + m0234·t³
///        + (1 + t)·(m04·t² + m01·t + m34·t³ + (1 + t²)·(m0 + m4·t²))]
///    + (1 + t²)·(m124·t² + m023·t⁴ + m0134·t³) + Φ·m01234·t³`.
macro_rules! five_term {
    ($name:ident, $n:literal = 5 x $k:literal top $top:literal,
     $mul_k:ident, $mul_top:ident, $doc:literal) => {
        $crate::gf2x::sufan::pieces_kernel!(
            #[doc = $doc]
            $name, $n = 5 x $k top $top,
            |m, x, y| {
                // The nine operand sums, nine additions each (one per sum).
                let sums = |x: &[[T; K]; 5]| {
                    let s04 = sum(&x[0], &x[4]);
                    let s34 = sum(&x[3], &x[4]);
                    let s01 = sum(&x[0], &x[1]);
                    let s0134 = sum(&s01, &s34);
                    let s01234 = sum(&s0134, &x[2]);
                    let s0124 = sum(&s01234, &x[3]);
                    let s0234 = sum(&s01234, &x[1]);
                    let s023 = sum(&s0234, &x[4]);
                    let s124 = sum(&s0134, &s023);
                    [s04, s34, s01, s0134, s01234, s0124, s0234, s023, s124]
                };
                let [a04, a34, a01, a0134, a01234, a0124, a0234, a023, a124] = sums(&x);
                let [b04, b34, b01, b0134, b01234, b0124, b0234, b023, b124] = sums(&y);
                let m0 = $mul_k(m, &x[0], &y[0]);
                let m1 = $mul_k(m, &x[1], &y[1]);
                let m3 = $mul_k(m, &x[3], &y[3]);
                let m4: [T; 2 * K] = part(&$mul_top(m, &part(&x[4], 0), &part(&y[4], 0)), 0);
                let m04 = $mul_k(m, &a04, &b04);
                let m01 = $mul_k(m, &a01, &b01);
                let m34 = $mul_k(m, &a34, &b34);
                let m124 = $mul_k(m, &a124, &b124);
                let m023 = $mul_k(m, &a023, &b023);
                let m0134 = $mul_k(m, &a0134, &b0134);
                let m0124 = $mul_k(m, &a0124, &b0124);
                let m0234 = $mul_k(m, &a0234, &b0234);
                let m01234 = $mul_k(m, &a01234, &b01234);
                let mut c = [T::ZERO; 10 * K];
                add_at(&mut c, 0, &m0);
                add_at(&mut c, 2 * K, &m4);
                times_one_plus(&mut c, 0, 4 * K, 2 * K);
                add_at(&mut c, K, &m01);
                add_at(&mut c, 2 * K, &m04);
                add_at(&mut c, 3 * K, &m34);
                times_one_plus(&mut c, 0, 6 * K, K);
                add_at(&mut c, K, &m1);
                add_at(&mut c, 2 * K, &m0124);
                add_at(&mut c, 3 * K, &m0234);
                add_at(&mut c, 4 * K, &m3);
                times_one_plus(&mut c, 0, 7 * K, 3 * K);
                let mut v = [T::ZERO; 10 * K];
                add_at(&mut v, 2 * K, &m124);
                add_at(&mut v, 3 * K, &m0134);
                add_at(&mut v, 4 * K, &m023);
                times_one_plus(&mut v, 2 * K, 6 * K, 2 * K);
                xor_into(&mut c, &v);
                let mut w = [T::ZERO; 10 * K];
                add_at(&mut w, 3 * K, &m01234);
                xor_into(&mut c, &times_phi(&w, 3 * K, 5 * K, K));
                part(&c, 0)
            }
        );
    };
}

/// Montgomery's seven-term formula in characteristic 2 (22 products),
/// factored (our nesting):
/// `C = (1 + t³)·[m01345·t³ + m04·t⁴ + m26·t⁵ + m12356·t⁶
///        + (1 + t)·(m1·t + m13·t³ + m3·t⁴ + m35·t⁵ + m5·t⁷ + Φ·m02346·t³
///          + (1 + t²)·(m0 + m2·t² + m4·t⁴ + m6·t⁶ + (1 + t)·(m02·t² + m46·t³)
///            + Φ·(m01·t + m56·t³)))]
///    + (1 + t⁴)·[m02356·t³ + m01346·t⁵ + (1 + t²)·m1245·t³] + Φ·m0123456·t⁵`.
macro_rules! seven_term {
    ($name:ident, $n:literal = 7 x $k:literal top $top:literal,
     $mul_k:ident, $mul_top:ident, $doc:literal) => {
        $crate::gf2x::sufan::pieces_kernel!(
            #[doc = $doc]
            $name, $n = 7 x $k top $top,
            |m, x, y| {
                // The fifteen operand sums in sixteen additions.
                let sums = |x: &[[T; K]; 7]| {
                    let s46 = sum(&x[4], &x[6]);
                    let s56 = sum(&x[5], &x[6]);
                    let s13 = sum(&x[1], &x[3]);
                    let s01 = sum(&x[0], &x[1]);
                    let s26 = sum(&x[2], &x[6]);
                    let s35 = sum(&x[3], &x[5]);
                    let s04 = sum(&x[0], &x[4]);
                    let s02 = sum(&x[0], &x[2]);
                    let s023 = sum(&s02, &x[3]);
                    let s02356 = sum(&s023, &s56);
                    let s12356 = sum(&s02356, &s01);
                    let s02346 = sum(&s023, &s46);
                    let s0123456 = sum(&s12356, &s04);
                    let s01345 = sum(&s0123456, &s26);
                    let s01346 = sum(&s01345, &s56);
                    let s1245 = sum(&s01345, &s023);
                    [
                        s46, s56, s13, s01, s26, s35, s04, s02, s02356, s12356, s02346, s0123456,
                        s01345, s01346, s1245,
                    ]
                };
                let [
                    a46,
                    a56,
                    a13,
                    a01,
                    a26,
                    a35,
                    a04,
                    a02,
                    a02356,
                    a12356,
                    a02346,
                    a0123456,
                    a01345,
                    a01346,
                    a1245,
                ] = sums(&x);
                let [
                    b46,
                    b56,
                    b13,
                    b01,
                    b26,
                    b35,
                    b04,
                    b02,
                    b02356,
                    b12356,
                    b02346,
                    b0123456,
                    b01345,
                    b01346,
                    b1245,
                ] = sums(&y);
                let m0 = $mul_k(m, &x[0], &y[0]);
                let m1 = $mul_k(m, &x[1], &y[1]);
                let m2 = $mul_k(m, &x[2], &y[2]);
                let m3 = $mul_k(m, &x[3], &y[3]);
                let m4 = $mul_k(m, &x[4], &y[4]);
                let m5 = $mul_k(m, &x[5], &y[5]);
                let m6: [T; 2 * K] = part(&$mul_top(m, &part(&x[6], 0), &part(&y[6], 0)), 0);
                let m01 = $mul_k(m, &a01, &b01);
                let m02 = $mul_k(m, &a02, &b02);
                let m04 = $mul_k(m, &a04, &b04);
                let m13 = $mul_k(m, &a13, &b13);
                let m26 = $mul_k(m, &a26, &b26);
                let m35 = $mul_k(m, &a35, &b35);
                let m46 = $mul_k(m, &a46, &b46);
                let m56 = $mul_k(m, &a56, &b56);
                let m1245 = $mul_k(m, &a1245, &b1245);
                let m01345 = $mul_k(m, &a01345, &b01345);
                let m01346 = $mul_k(m, &a01346, &b01346);
                let m02346 = $mul_k(m, &a02346, &b02346);
                let m02356 = $mul_k(m, &a02356, &b02356);
                let m12356 = $mul_k(m, &a12356, &b12356);
                let m0123456 = $mul_k(m, &a0123456, &b0123456);

                // From the innermost bracket of the nesting outwards.
                let mut c = [T::ZERO; 14 * K];
                add_at(&mut c, 0, &m0);
                add_at(&mut c, 2 * K, &m2);
                add_at(&mut c, 4 * K, &m4);
                add_at(&mut c, 6 * K, &m6);
                let mut u = [T::ZERO; 14 * K];
                add_at(&mut u, 2 * K, &m02);
                add_at(&mut u, 3 * K, &m46);
                times_one_plus(&mut u, 2 * K, 5 * K, K);
                xor_into(&mut c, &u);
                let mut u = [T::ZERO; 14 * K];
                add_at(&mut u, K, &m01);
                add_at(&mut u, 3 * K, &m56);
                xor_into(&mut c, &times_phi(&u, K, 5 * K, K));
                times_one_plus(&mut c, 0, 8 * K, 2 * K);
                let mut u = [T::ZERO; 14 * K];
                add_at(&mut u, 3 * K, &m02346);
                xor_into(&mut c, &times_phi(&u, 3 * K, 5 * K, K));
                add_at(&mut c, K, &m1);
                add_at(&mut c, 3 * K, &m13);
                add_at(&mut c, 4 * K, &m3);
                add_at(&mut c, 5 * K, &m35);
                add_at(&mut c, 7 * K, &m5);
                times_one_plus(&mut c, 0, 10 * K, K);
                add_at(&mut c, 3 * K, &m01345);
                add_at(&mut c, 4 * K, &m04);
                add_at(&mut c, 5 * K, &m26);
                add_at(&mut c, 6 * K, &m12356);
                times_one_plus(&mut c, 0, 11 * K, 3 * K);

                let mut v = [T::ZERO; 14 * K];
                add_at(&mut v, 3 * K, &m1245);
                times_one_plus(&mut v, 3 * K, 5 * K, 2 * K);
                add_at(&mut v, 3 * K, &m02356);
                add_at(&mut v, 5 * K, &m01346);
                times_one_plus(&mut v, 3 * K, 7 * K, 4 * K);
                xor_into(&mut c, &v);
                let mut w = [T::ZERO; 14 * K];
                add_at(&mut w, 5 * K, &m0123456);
                xor_into(&mut c, &times_phi(&w, 5 * K, 7 * K, K));
                part(&c, 0)
            }
        );
    };
}

/// Su & Fan's formula (6) (§2.2): Cenk–Özbudak's five-term products \[10\]
/// recombined in the paper's modified form, 13 products. The products, in
/// the numbering of the paper's listing `ins_mul5_64` (strategy 5-1):
/// `m1 = p0, m2 = p1, m3 = p2, m4 = p3, m5 = p4, m6 = p01, m7 = p02,
/// m8 = p24, m9 = p34, m10 = p023, m11 = p124, m12 = p0134, m13 = p01234`
/// (`pS = (Σ_{i∈S} aᵢ)(Σ_{i∈S} bᵢ)`), and
///
/// ```text
/// C = (m5·t³ + m1)(1 + t)(1 + t² + t⁴) + m12·(t³ + t⁵)
///   + (m4·t³ + m3·t² + m2·t)(1 + t)(1 + t³) + (m11·t + m10)(t³ + t⁴)
///   + (m9·t³ + m8·t² + m7·t + m6)(t⁴ + t) + m13·(t³ + t⁴ + t⁵).
/// ```
///
/// **The text as converted prints the third term `(m4·x² + m3·x + m2)(x + 1)
/// (x³ + 1)`, without the factor `x`**: with it the identity fails (m2 = p1
/// must enter at t¹, t², t⁴, t⁵). We use `x·(m4·x² + m3·x + m2)`, the only
/// reading under which (6) is an identity with these products (solved by
/// linear algebra over GF(2), and the coefficients the listing's XORs
/// compute). Groups are summed first, then multiplied by their factor, as
/// printed; operand sums as in the listing (`s023 = s02 + a3`, `s124 = s24 + a1`,
/// `s0134 = s01 + s34`, `s01234 = s0134 + a2`).
macro_rules! formula6 {
    ($name:ident, $n:literal = 5 x $k:literal top $top:literal,
     $mul_k:ident, $mul_top:ident, $doc:literal) => {
        $crate::gf2x::sufan::pieces_kernel!(
            #[doc = $doc]
            $name, $n = 5 x $k top $top,
            |m, x, y| {
                let sums = |x: &[[T; K]; 5]| {
                    let s01 = sum(&x[0], &x[1]);
                    let s02 = sum(&x[0], &x[2]);
                    let s24 = sum(&x[2], &x[4]);
                    let s34 = sum(&x[3], &x[4]);
                    let s023 = sum(&s02, &x[3]);
                    let s124 = sum(&s24, &x[1]);
                    let s0134 = sum(&s01, &s34);
                    let s01234 = sum(&s0134, &x[2]);
                    [s01, s02, s24, s34, s023, s124, s0134, s01234]
                };
                let [a01, a02, a24, a34, a023, a124, a0134, a01234] = sums(&x);
                let [b01, b02, b24, b34, b023, b124, b0134, b01234] = sums(&y);
                let m1 = $mul_k(m, &x[0], &y[0]);
                let m2 = $mul_k(m, &x[1], &y[1]);
                let m3 = $mul_k(m, &x[2], &y[2]);
                let m4 = $mul_k(m, &x[3], &y[3]);
                let m5: [T; 2 * K] = part(&$mul_top(m, &part(&x[4], 0), &part(&y[4], 0)), 0);
                let m6 = $mul_k(m, &a01, &b01);
                let m7 = $mul_k(m, &a02, &b02);
                let m8 = $mul_k(m, &a24, &b24);
                let m9 = $mul_k(m, &a34, &b34);
                let m10 = $mul_k(m, &a023, &b023);
                let m11 = $mul_k(m, &a124, &b124);
                let m12 = $mul_k(m, &a0134, &b0134);
                let m13 = $mul_k(m, &a01234, &b01234);
                // (m5·t³ + m1)(1 + t)(1 + t² + t⁴)
                let mut g = [T::ZERO; 10 * K];
                add_at(&mut g, 0, &m1);
                add_at(&mut g, 3 * K, &m5);
                let mut c = times_phi(&g, 0, 5 * K, 2 * K);
                times_one_plus(&mut c, 0, 9 * K, K);
                // + m12·(t³ + t⁵)
                add_at(&mut c, 3 * K, &m12);
                add_at(&mut c, 5 * K, &m12);
                // + t·(m4·t² + m3·t + m2)(1 + t)(1 + t³)
                let mut g = [T::ZERO; 10 * K];
                add_at(&mut g, K, &m2);
                add_at(&mut g, 2 * K, &m3);
                add_at(&mut g, 3 * K, &m4);
                times_one_plus(&mut g, K, 5 * K, K);
                times_one_plus(&mut g, K, 6 * K, 3 * K);
                xor_into(&mut c, &g);
                // + (m11·t + m10)(t³ + t⁴)
                let mut g = [T::ZERO; 10 * K];
                add_at(&mut g, 3 * K, &m10);
                add_at(&mut g, 4 * K, &m11);
                times_one_plus(&mut g, 3 * K, 6 * K, K);
                xor_into(&mut c, &g);
                // + (m9·t³ + m8·t² + m7·t + m6)(t⁴ + t)
                let mut g = [T::ZERO; 10 * K];
                add_at(&mut g, K, &m6);
                add_at(&mut g, 2 * K, &m7);
                add_at(&mut g, 3 * K, &m8);
                add_at(&mut g, 4 * K, &m9);
                times_one_plus(&mut g, K, 6 * K, 3 * K);
                xor_into(&mut c, &g);
                // + m13·(t³ + t⁴ + t⁵)
                let mut g = [T::ZERO; 10 * K];
                add_at(&mut g, 3 * K, &m13);
                xor_into(&mut c, &times_phi(&g, 3 * K, 5 * K, K));
                part(&c, 0)
            }
        );
    };
}

/// A formula given as its products `pS` and, for each, the exponents of
/// `t` at which it is added (`C = Σ E_S(t)·pS`): the unmodified,
/// coefficient-by-coefficient evaluation. Operand sums are formed per
/// product from the pieces (no sharing).
macro_rules! by_exponents {
    ($name:ident, $n:literal = $p:literal x $k:literal top $top:literal,
     $mul_k:ident, $mul_top:ident,
     [$( [$($i:literal),+] => [$($e:literal),+] ),+ $(,)?], $doc:literal) => {
        $crate::gf2x::sufan::pieces_kernel!(
            #[doc = $doc]
            $name, $n = $p x $k top $top,
            |m, x, y| {
                let mut c = [T::ZERO; 2 * $p * K];
                $({
                    let mut sa = [T::ZERO; K];
                    let mut sb = [T::ZERO; K];
                    $(
                        xor_into(&mut sa, &x[$i]);
                        xor_into(&mut sb, &y[$i]);
                    )+
                    let p: [T; 2 * K] = if [$($i),+][..] == [$p - 1] {
                        part(&$mul_top(m, &part(&sa, 0), &part(&sb, 0)), 0)
                    } else {
                        $mul_k(m, &sa, &sb)
                    };
                    $(add_at(&mut c, $e * K, &p);)+
                })+
                part(&c, 0)
            }
        );
    };
}

formula6!(
    s5_1_co, 5 = 5 x 1 top 1, mul1, mul1,
    "5 words, strategy 5-1 as in the paper (Table 1: \"five-term formula \\[10\\]\"; the listing \
     `ins_mul5_64`): Cenk–Özbudak's 13 products, recombined by formula (6)."
);
formula6!(
    s9_3_co, 9 = 5 x 2 top 1, mul2_refined, mul1,
    "9 words, strategy 9-3 as in the paper (Table 1: \"five-term formula (6)\"): formula (6) \
     over pieces of 2, 2, 2, 2 and 1 words. 12 × 3 + 1 = 37 products."
);
by_exponents!(
    s7_1_co, 7 = 7 x 1 top 1, mul1, mul1,
    [
        [0] => [0, 1, 2, 3, 4, 8],
        [1] => [1, 2, 3, 4, 5, 9],
        [0, 2] => [2, 4, 6, 7, 8, 9],
        [0, 1] => [1, 3, 5, 6, 7, 8],
        [4] => [3, 5, 7, 8, 9, 10],
        [5] => [4, 6, 8, 9, 10, 11],
        [4, 6] => [3, 5, 7, 8, 9, 10],
        [5, 6] => [3, 4, 5, 6, 7, 11],
        [0, 2, 4, 6] => [3, 4, 7, 9],
        [1, 3, 5] => [3, 4, 7, 9],
        [0, 1, 4, 6] => [4, 5, 7, 8],
        [0, 1, 3, 4, 6] => [3, 6, 8, 9],
        [0, 3, 5, 6] => [3, 9],
        [0, 2, 3, 5, 6] => [3, 4, 5, 8],
        [2] => [2, 4, 6, 7, 8, 9],
        [6] => [5, 7, 9, 10, 11, 12],
        [1, 2, 4, 5] => [4, 5, 6, 9],
        [2, 4, 5, 6] => [3, 4, 6, 7],
        [0, 2, 3, 4] => [5, 6, 8, 9],
        [1, 2, 3, 6] => [3, 5, 6, 8],
        [1, 3, 4, 5] => [3, 4, 5, 7, 8, 9],
        [0, 1, 2, 3, 4, 5, 6] => [4, 8, 9],
    ],
    "7 words, strategy 7-1 as in the paper (Table 1: \"seven-term formula\", generated from \
     Cenk–Özbudak's moduli \\[10\\]; the listing `mul7_64_0`): its 22 products, each added at the \
     exponents of `t` it enters (solved over GF(2); see the module docs)."
);

// ---------------------------------------------------------------------------
// The strategies.
// ---------------------------------------------------------------------------

/// 3 words, strategy 3-1: the three-term formula (Su & Fan's \[13\]) with
/// its coefficients summed as printed. 6 products.
#[inline(always)]
pub(crate) fn s3_1<T: Digit, M: DigitMul<T>>(m: M, a: &[T; 3], b: &[T; 3]) -> [T; 6] {
    let (a01, a02, a12) = (a[0] ^ a[1], a[0] ^ a[2], a[1] ^ a[2]);
    let (b01, b02, b12) = (b[0] ^ b[1], b[0] ^ b[2], b[1] ^ b[2]);
    let m0 = m.mul(a[0], b[0]);
    let m1 = m.mul(a[1], b[1]);
    let m2 = m.mul(a[2], b[2]);
    let m01 = m.mul(a01, b01);
    let m02 = m.mul(a02, b02);
    let m12 = m.mul(a12, b12);
    by_coefficients(
        &[
            &[&m0],
            &[&m01, &m0, &m1],
            &[&m02, &m0, &m1, &m2],
            &[&m12, &m1, &m2],
            &[&m2],
        ],
        1,
    )
}

/// 3 words, strategy 3-1h: Su & Fan's formula (7) (§2.3), the three-term
/// formula of \[13\] at halved granularity — every product split into its
/// low and high words `mₖₗ`, `mₖₕ`, the coefficients of `x^(64·i)` summed
/// word by word:
///
/// ```text
/// c0 = m0l                          c1 = u + m3l
/// c2 = u + m2l + m4l + m1h + m3h    c3 = v + m0h + m4h + m1l + m5l
/// c4 = v + m5h                      c5 = m2h
/// u = m0l + m1l + m0h               v = m1h + m2h + m2l
/// ```
///
/// with `m0 = a0b0, m1 = a1b1, m2 = a2b2, m3 = (a0+a1)(b0+b1),
/// m4 = (a0+a2)(b0+b2), m5 = (a1+a2)(b1+b2)`. **The text as converted has
/// lost the emphasis** that marked (7)'s common subexpressions; we take `u`
/// and `v`, the sums the printed terms list first (`m0l + m1l + m0h` in
/// `x^l` and `x^(2l)`, `m1h + m2h + m2l` in `x^(3l)` and `x^(4l)`), which
/// gives the paper's 20 additions (8 recombining … 14 with the 6 operand
/// sums; `m1h + m2l` shared once more would give 19). 6 products.
#[inline(always)]
pub(crate) fn s3_1h<T: Digit, M: DigitMul<T>>(m: M, a: &[T; 3], b: &[T; 3]) -> [T; 6] {
    let [m0l, m0h] = m.mul(a[0], b[0]);
    let [m1l, m1h] = m.mul(a[1], b[1]);
    let [m2l, m2h] = m.mul(a[2], b[2]);
    let [m3l, m3h] = m.mul(a[0] ^ a[1], b[0] ^ b[1]);
    let [m4l, m4h] = m.mul(a[0] ^ a[2], b[0] ^ b[2]);
    let [m5l, m5h] = m.mul(a[1] ^ a[2], b[1] ^ b[2]);
    let u = m0l ^ m1l ^ m0h;
    let v = m1h ^ m2h ^ m2l;
    [
        m0l,
        u ^ m3l,
        u ^ m2l ^ m4l ^ m1h ^ m3h,
        v ^ m0h ^ m4h ^ m1l ^ m5l,
        v ^ m5h,
        m2h,
    ]
}

two_term_plain!(
    mul2_plain,
    2 = 1 + 1,
    mul1,
    "2 words: Karatsuba, recombined as printed. 3 products."
);
two_term_plain!(
    s4_1,
    4 = 2 + 2,
    mul2_plain,
    "4 words, strategy 4-1: Karatsuba over 2 + 2 words, recursively, recombined as \
     printed at both levels. 9 products."
);
/// 4 words, strategy 4-2: the non-recursive four-term formula (Su & Fan
/// formula (2)) with its coefficients summed as printed. 9 products.
#[inline(always)]
pub(crate) fn s4_2<T: Digit, M: DigitMul<T>>(m: M, a: &[T; 4], b: &[T; 4]) -> [T; 8] {
    let (a01, a23) = (a[0] ^ a[1], a[2] ^ a[3]);
    let (b01, b23) = (b[0] ^ b[1], b[2] ^ b[3]);
    let m0 = m.mul(a[0], b[0]);
    let m1 = m.mul(a[1], b[1]);
    let m2 = m.mul(a[2], b[2]);
    let m3 = m.mul(a[3], b[3]);
    let m01 = m.mul(a01, b01);
    let m23 = m.mul(a23, b23);
    let m02 = m.mul(a[0] ^ a[2], b[0] ^ b[2]);
    let m13 = m.mul(a[1] ^ a[3], b[1] ^ b[3]);
    let m0123 = m.mul(a01 ^ a23, b01 ^ b23);
    by_coefficients(
        &[
            &[&m0],
            &[&m01, &m0, &m1],
            &[&m02, &m0, &m1, &m2],
            &[&m0123, &m01, &m23, &m02, &m13, &m0, &m1, &m2, &m3],
            &[&m13, &m1, &m2, &m3],
            &[&m23, &m2, &m3],
            &[&m3],
        ],
        1,
    )
}

five_term!(
    s5_1, 5 = 5 x 1 top 1, mul1, mul1,
    "5 words, strategy 5-1: Montgomery's five-term formula, factored. 13 products."
);
three_term_factored!(
    s5_3, 5 = 3 x 2 top 1, mul2_refined, mul1,
    "5 words, strategy 5-3: the factored three-term formula over pieces of 2, 2 and 1 \
     words. 5 × 3 + 1 = 16 products."
);
seven_term!(
    s7_1, 7 = 7 x 1 top 1, mul1, mul1,
    "7 words, strategy 7-1: Montgomery's seven-term formula, factored. 22 products."
);
two_term_refined!(
    s7_2,
    7 = 4 + 3,
    s4_2m,
    s3_1m,
    "7 words, strategy 7-2: Karatsuba over 4 + 3 words (4-2m and 3-1m inside). \
     9 + 6 + 9 = 24 products."
);
four_term_factored!(
    s7_3, 7 = 4 x 2 top 1, mul2_refined, mul1,
    "7 words, strategy 7-3: the factored four-term formula over pieces of 2, 2, 2 and 1 \
     words. 8 × 3 + 1 = 25 products."
);
two_term_refined!(
    s9_1_co,
    9 = 5 + 4,
    s5_1_co,
    s4_2m,
    "9 words, strategy 9-1 as in the paper (Table 1: \"two-term KA … 4 words and 5 words; \
     multiplication of 5-word polynomials is done using five-term formula \\[10\\]\"): Karatsuba \
     over 5 + 4 words, the 5-word products by 5-1 (formula (6)), the 4-word one by 4-2m. \
     13 + 9 + 13 = 35 products."
);
two_term_refined!(
    s9_1,
    9 = 5 + 4,
    s5_1,
    s4_2m,
    "9 words, row \"9-1 Montgomery\": Karatsuba over 5 + 4 words with Montgomery's \
     five-term formula inside (not the paper's; kept for comparison). \
     13 + 9 + 13 = 35 products."
);
three_term_factored!(
    s9_2, 9 = 3 x 3 top 3, s3_1m, s3_1m,
    "9 words, strategy 9-2: the factored three-term formula over 3-word pieces, each \
     product by 3-1m. 6 × 6 = 36 products."
);
five_term!(
    s9_3, 9 = 5 x 2 top 1, mul2_refined, mul1,
    "9 words, strategy 9-3: the five-term formula over pieces of 2, 2, 2, 2 and 1 words. \
     12 × 3 + 1 = 37 products."
);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::gf2x::portable::PortableWord;
    use core::cell::Cell;
    use std::{vec, vec::Vec};

    /// Calls `$check!(name, kernel, words)` for every strategy.
    macro_rules! for_each_strategy {
        ($check:ident) => {
            $check!("3-1", s3_1, 3);
            $check!("3-1m", s3_1m, 3);
            $check!("3-1h", s3_1h, 3);
            $check!("3-S", s3_school, 3);
            $check!("4-1", s4_1, 4);
            $check!("4-1m", s4_1m, 4);
            $check!("4-2", s4_2, 4);
            $check!("4-2m", s4_2m, 4);
            $check!("5-1", s5_1_co, 5);
            $check!("5-1 Montgomery", s5_1, 5);
            $check!("5-2", s5_2, 5);
            $check!("5-3", s5_3, 5);
            $check!("7-1", s7_1_co, 7);
            $check!("7-1 Montgomery", s7_1, 7);
            $check!("7-2", s7_2, 7);
            $check!("7-3", s7_3, 7);
            $check!("9-1", s9_1_co, 9);
            $check!("9-1 Montgomery", s9_1, 9);
            $check!("9-2", s9_2, 9);
            $check!("9-3", s9_3_co, 9);
            $check!("9-3 Montgomery", s9_3, 9);
        };
    }

    /// Word additions (XORs of two digits neither of which is a known zero)
    /// of each strategy, as stated in the module docs.
    const ADDITIONS: &[(&str, usize)] = &[
        ("3-1", 24),
        ("3-1m", 18),
        ("3-1h", 20),
        ("3-S", 12),
        ("4-1", 40),
        ("4-1m", 35),
        ("4-2", 52),
        ("4-2m", 34),
        ("5-1", 70),
        ("5-1 Montgomery", 58),
        ("5-2", 60),
        ("5-3", 65),
        ("7-1", 288),
        ("7-1 Montgomery", 112),
        ("7-2", 110),
        ("7-3", 116),
        ("9-1", 205),
        ("9-1 Montgomery", 181),
        ("9-2", 162),
        ("9-3", 212),
        ("9-3 Montgomery", 188),
    ];

    struct SplitMix64(u64);

    impl SplitMix64 {
        fn next(&mut self) -> u64 {
            crate::test_util::splitmix64(&mut self.0)
        }

        fn words<const N: usize>(&mut self) -> [u64; N] {
            core::array::from_fn(|_| self.next())
        }
    }

    /// The product bit by bit: for every set bit of `a`, XOR in `b` shifted.
    fn reference(a: &[u64], b: &[u64]) -> Vec<u64> {
        let mut c = vec![0u64; a.len() + b.len()];
        for (i, &w) in a.iter().enumerate() {
            for bit in 0..64 {
                if (w >> bit) & 1 == 0 {
                    continue;
                }
                for (j, &v) in b.iter().enumerate() {
                    c[i + j] ^= v << bit;
                    if bit > 0 {
                        c[i + j + 1] ^= v >> (64 - bit);
                    }
                }
            }
        }
        c
    }

    fn table_entry(name: &str) -> (usize, usize) {
        let rows: Vec<_> = STRATEGIES.iter().filter(|r| r.0 == name).collect();
        assert_eq!(rows.len(), 1, "{name}: one row in STRATEGIES");
        (rows[0].1, rows[0].2)
    }

    #[test]
    fn reference_is_right() {
        // (x^63 + 1)·(x + 1) = x^64 + x^63 + x + 1.
        assert_eq!(reference(&[(1 << 63) | 1], &[0b11]), [(1 << 63) | 0b11, 1]);
        // (t + 1)² = t² + 1 with t = x^64.
        assert_eq!(reference(&[1, 1], &[1, 1]), [1, 0, 1, 0]);
    }

    #[test]
    fn every_strategy_is_tested_once() {
        let mut names = Vec::new();
        macro_rules! collect {
            ($name:literal, $f:ident, $n:literal) => {
                names.push($name);
            };
        }
        for_each_strategy!(collect);
        let table: Vec<_> = STRATEGIES.iter().map(|r| r.0).collect();
        assert_eq!(names, table);
        let additions: Vec<_> = ADDITIONS.iter().map(|r| r.0).collect();
        assert_eq!(names, additions);
    }

    #[test]
    fn strategies_match_the_bitwise_reference_on_random_inputs() {
        let mut rng = SplitMix64(0x5afa_0001);
        macro_rules! check {
            ($name:literal, $f:ident, $n:literal) => {
                for round in 0..2000 {
                    let mut a: [u64; $n] = rng.words();
                    let mut b: [u64; $n] = rng.words();
                    // Edge cases too: all ones, zero, single top bit.
                    match round {
                        0 => (a, b) = ([u64::MAX; $n], [u64::MAX; $n]),
                        1 => a = [0; $n],
                        2 => (a[$n - 1], b[$n - 1]) = (1 << 63, 1 << 63),
                        _ => {}
                    }
                    let c = $f(PortableWord, &a, &b);
                    assert_eq!(&c[..], &reference(&a, &b)[..], "{} on {a:x?} {b:x?}", $name);
                }
            };
        }
        for_each_strategy!(check);
    }

    /// Every kernel is bilinear over GF(2) in the operand words (each product
    /// is `mul(Σ aᵢ, Σ bⱼ)` with `mul` bilinear). So agreeing with the
    /// reference on `a = x·eᵢ`, `b = y·eⱼ` for every pair of word positions
    /// `(i, j)` and one pair of non-zero words `x`, `y` proves the kernel for
    /// all inputs: a wrong coefficient `D ≠ {i + j}` of `x·y` would leave
    /// `x·y·Σ_{d ∈ D Δ {i+j}} t^d ≠ 0` in the difference (GF(2)[x] has no
    /// zero divisors).
    #[test]
    fn strategies_are_exact_on_every_pair_of_unit_words() {
        let mut rng = SplitMix64(77);
        macro_rules! check {
            ($name:literal, $f:ident, $n:literal) => {
                for i in 0..$n {
                    for j in 0..$n {
                        let (x, y) = (rng.next() | 1, rng.next() | (1 << 63));
                        let mut a = [0u64; $n];
                        let mut b = [0u64; $n];
                        a[i] = x;
                        b[j] = y;
                        let c = $f(PortableWord, &a, &b);
                        assert_eq!(&c[..], &reference(&a, &b)[..], "{} at ({i}, {j})", $name);
                    }
                }
            };
        }
        for_each_strategy!(check);
    }

    /// A word multiplier that counts its calls.
    #[derive(Clone, Copy)]
    struct Counting<'a>(&'a Cell<usize>);

    impl DigitMul<u64> for Counting<'_> {
        fn mul(self, a: u64, b: u64) -> [u64; 2] {
            self.0.set(self.0.get() + 1);
            PortableWord.mul(a, b)
        }
    }

    #[test]
    fn strategies_use_their_stated_number_of_products() {
        let mut rng = SplitMix64(3);
        macro_rules! check {
            ($name:literal, $f:ident, $n:literal) => {
                let (words, products) = table_entry($name);
                assert_eq!(words, $n, "{}", $name);
                let calls = Cell::new(0);
                let (a, b): ([u64; $n], [u64; $n]) = (rng.words(), rng.words());
                let c = $f(Counting(&calls), &a, &b);
                assert_eq!(calls.get(), products, "{}: word products", $name);
                assert_eq!(&c[..], &reference(&a, &b)[..], "{}", $name);
            };
        }
        for_each_strategy!(check);
    }

    #[cfg(feature = "std")]
    #[test]
    fn strategies_use_their_stated_number_of_additions() {
        use super::super::tally::{Tally, TallyMul, counting};
        let mut rng = SplitMix64(11);
        let mut report = std::string::String::new();
        let mut wrong = false;
        macro_rules! check {
            ($name:literal, $f:ident, $n:literal) => {
                let (a, b): ([u64; $n], [u64; $n]) = (rng.words(), rng.words());
                let (c, xors) = counting(|| $f(TallyMul, &a.map(Tally::word), &b.map(Tally::word)));
                let values: Vec<u64> = c.iter().map(|d| d.value).collect();
                assert_eq!(values, reference(&a, &b), "{}", $name);
                let stated = ADDITIONS.iter().find(|r| r.0 == $name).unwrap().1;
                report.push_str(&std::format!("{}: {xors} (stated {stated})\n", $name));
                wrong |= xors != stated;
            };
        }
        for_each_strategy!(check);
        assert!(!wrong, "word additions differ from the docs:\n{report}");
    }
}
