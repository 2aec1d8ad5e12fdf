//! Word-addition counts of Su & Fan's formulas (§2.1–2.3, formulas
//! (1)–(7)) beside the figures the paper prints, each computed by running
//! the formula on counting words (`Tally`): nothing here is a typed-in
//! count.
//!
//! Two counts per formula:
//!
//! - **the paper's rule**: the formula evaluated as printed, under the
//!   counting rule below, which recovers every printed figure we can
//!   evaluate;
//! - **our kernel**: the additions our kernel for that formula performs
//!   (`super::sufan`, counted the same way), which shares more.
//!
//! # The counting rule that recovers the printed figures
//!
//! Operands are one-word pieces, every product two words; an addition is
//! one XOR of two 64-bit words, neither a known zero. Then:
//!
//! 1. every operand sum of a product is formed from its pieces, without
//!    reusing another product's sum (`m8 = (a2+a0+a1+a3)(b2+b0+b1+b3)` of
//!    (2) costs 3 + 3, not 1 + 1 from `m6`, `m7`'s sums);
//! 2. a bracket `Σ mₖ·xᵉ` is summed word by word where its products
//!    overlap;
//! 3. a bracket times a factor of `k` terms is `k` shifted copies of the
//!    bracket added, every overlapping word one addition (no sharing of
//!    partial sums: `(1+x+x²)` in (4) costs 6 on a 4-word bracket, not 4);
//!    a product of factors, as (5)'s `(x+1)(x²+1)`, is applied factor by
//!    factor (its first line, one factor `x³+x²+x+1`, would cost 46);
//! 4. the terms are added into the result.
//!
//! Under this rule (1) is 8, (3) 7, the three-term formula of \[13\] 24
//! (22 with its one common subexpression `m0 + m1`), (4) 20, (2) 56, (5)
//! 42, Cenk–Özbudak's five-term formula \[10\] 102 and (6) 85 (with its
//! third term's lost factor `x` restored) — the printed figures, asserted
//! by the test. Formula (7) and the recursive (2) (40) are counted on our kernels,
//! which follow them addition by addition; (2) with common subexpressions
//! (38) is not reproduced: the text does not say which subexpressions.
//!
//! Our kernels count lower where they share more: 3-1m (formula (4)) 18,
//! sharing `y0+y1` and `y2+y3` inside `Φ`; 4-2 (formula (2)) 52 and 4-2m
//! (formula (5)) 34, reusing operand sums (`s0123 = s01 + s23`) and
//! nesting; 5-1 (formula (6)) 70, the listing's shared operand sums and
//! `Φ` with shared pairs.
#![forbid(unsafe_code)]
// Counting code over fixed formula tables (no secrets, no inputs from
// outside): an index out of range is a wrong table entry and should panic.
#![allow(clippy::indexing_slicing)]

use super::sufan;
use super::tally::{Tally, TallyMul, counting};
use crate::gf2x::formulas::{Digit, DigitMul};
use crate::gf2x::portable::PortableWord;
use std::vec;
use std::vec::Vec;

/// One formula's word additions: the figure the paper prints, the count of
/// the formula evaluated as printed under the paper's rule (module docs),
/// and the count of our kernel for it.
#[derive(Clone, Debug)]
pub struct AdditionRow {
    /// The formula, as the paper names it.
    pub formula: &'static str,
    /// Operand words.
    pub words: usize,
    /// The figure printed in §2.
    pub printed: usize,
    /// The formula as printed, counted under the paper's rule; `None` where
    /// the count is our kernel's (it follows the formula addition by
    /// addition) or the formula is not reproduced.
    pub rule: Option<usize>,
    /// Our kernel for it (Table 1 strategy name) and its additions.
    pub kernel: Option<(&'static str, usize)>,
}

/// A term `(Σ value·xᵉ)·f1·f2·…`: the bracket's (value index, exponent)
/// pairs and the factors' exponent lists.
type Term = (Vec<(usize, usize)>, Vec<Vec<usize>>);

/// A formula as printed: its products' operand subsets, its common
/// subexpressions (sums of values formed once; value `products.len() + i`)
/// and its terms.
struct Printed {
    pieces: usize,
    products: Vec<Vec<usize>>,
    shared: Vec<Vec<usize>>,
    terms: Vec<Term>,
}

/// The terms of a formula written coefficient by coefficient, from each
/// value's exponent list.
fn by_coefficients(exponents: &[&[usize]]) -> Vec<Term> {
    let top = exponents
        .iter()
        .flat_map(|e| e.iter())
        .max()
        .copied()
        .unwrap_or(0);
    (0..=top)
        .map(|e| {
            let bracket = (0..exponents.len())
                .filter(|&v| exponents[v].contains(&e))
                .map(|v| (v, 0))
                .collect();
            (bracket, vec![vec![e]])
        })
        .collect()
}

/// The schoolbook product of word slices (the reference).
fn reference(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut c = vec![0u64; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let [lo, hi] = PortableWord.mul(x, y);
            c[i + j] ^= lo;
            c[i + j + 1] ^= hi;
        }
    }
    c
}

impl Printed {
    /// The additions under the paper's rule; panics if the formula is not
    /// the product (so every encoding here is checked as an identity).
    fn additions(&self) -> usize {
        let mut state = 0x5eed_5f00_2012_u64;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let a: Vec<u64> = (0..self.pieces).map(|_| next()).collect();
        let b: Vec<u64> = (0..self.pieces).map(|_| next()).collect();
        let len = 2 * self.pieces + 8;
        let (c, n) = counting(|| {
            let operand = |x: &[u64], s: &[usize]| {
                s.iter()
                    .fold(Tally::ZERO, |acc, &i| acc ^ Tally::word(x[i]))
            };
            let mut values: Vec<[Tally; 2]> = self
                .products
                .iter()
                .map(|s| TallyMul.mul(operand(&a, s), operand(&b, s)))
                .collect();
            for s in &self.shared {
                let v = s.iter().fold([Tally::ZERO; 2], |acc, &i| {
                    [acc[0] ^ values[i][0], acc[1] ^ values[i][1]]
                });
                values.push(v);
            }
            let mut c = vec![Tally::ZERO; len];
            for (bracket, factors) in &self.terms {
                let mut y = vec![Tally::ZERO; len];
                for &(v, e) in bracket {
                    y[e] ^= values[v][0];
                    y[e + 1] ^= values[v][1];
                }
                for f in factors {
                    let mut z = vec![Tally::ZERO; len];
                    for &e in f {
                        for i in 0..len - e {
                            z[i + e] ^= y[i];
                        }
                        assert!(y[len - e..].iter().all(|w| w.known_zero), "shifted out");
                    }
                    y = z;
                }
                for (ci, yi) in c.iter_mut().zip(&y) {
                    *ci ^= *yi;
                }
            }
            c
        });
        let values: Vec<u64> = c.iter().map(|w| w.value).collect();
        let mut want = reference(&a, &b);
        want.resize(len, 0);
        assert_eq!(values, want, "the encoded formula is not the product");
        n
    }
}

/// Our kernel `$f` on `$n` random counting words: its additions.
macro_rules! kernel_additions {
    ($f:path, $n:literal) => {{
        let a: [Tally; $n] =
            core::array::from_fn(|i| Tally::word(0x0123_4567_89ab_cdef ^ i as u64));
        let b: [Tally; $n] =
            core::array::from_fn(|i| Tally::word(0xfedc_ba98_7654_3210 ^ i as u64));
        let (c, n) = counting(|| $f(TallyMul, &a, &b));
        let got: Vec<u64> = c.iter().map(|w| w.value).collect();
        let x: Vec<u64> = a.iter().map(|w| w.value).collect();
        let y: Vec<u64> = b.iter().map(|w| w.value).collect();
        assert_eq!(got, reference(&x, &y), "{}", stringify!($f));
        n
    }};
}

/// The products `pS` by operand subsets.
fn subsets(s: &[&[usize]]) -> Vec<Vec<usize>> {
    s.iter().map(|s| s.to_vec()).collect()
}

/// One value added at exponent `e`, no factor.
fn at(v: usize, e: usize) -> Term {
    (vec![(v, e)], vec![])
}

/// Every formula of §2 with a printed addition count: the printed figure,
/// the count of the formula evaluated as printed under the paper's rule
/// (module docs), and our kernel's count. Runs each formula on counting
/// words and checks it is the product.
pub fn addition_counts() -> Vec<AdditionRow> {
    // Three-term products: m0 = a0b0, m1, m2, m3 = (a0+a1)(b0+b1),
    // m4 = (a0+a2)(…), m5 = (a1+a2)(…).
    let three = subsets(&[&[0], &[1], &[2], &[0, 1], &[0, 2], &[1, 2]]);
    // Formula (2)'s m0 … m8.
    let four = subsets(&[
        &[0],
        &[1],
        &[2],
        &[3],
        &[0, 1],
        &[2, 3],
        &[0, 2],
        &[1, 3],
        &[2, 0, 1, 3],
    ]);
    // Cenk–Özbudak's five-term products [10], in the listing's numbering
    // m1 … m13 (indices 0 … 12): p0 p1 p2 p3 p4 p01 p02 p24 p34 p023 p124
    // p0134 p01234.
    let five = subsets(&[
        &[0],
        &[1],
        &[2],
        &[3],
        &[4],
        &[0, 1],
        &[0, 2],
        &[2, 4],
        &[3, 4],
        &[0, 2, 3],
        &[1, 2, 4],
        &[0, 1, 3, 4],
        &[0, 1, 2, 3, 4],
    ]);
    let f1 = Printed {
        pieces: 2,
        products: subsets(&[&[0], &[1], &[0, 1]]),
        shared: vec![],
        terms: by_coefficients(&[&[0, 1], &[1, 2], &[1]]),
    };
    let f3 = Printed {
        pieces: 2,
        products: subsets(&[&[0], &[1], &[0, 1]]),
        shared: vec![],
        terms: vec![(vec![(0, 0), (1, 1)], vec![vec![0, 1]]), at(2, 1)],
    };
    let t3 = Printed {
        pieces: 3,
        products: three.clone(),
        shared: vec![],
        terms: by_coefficients(&[&[0, 1, 2], &[1, 2, 3], &[2, 3, 4], &[1], &[2], &[3]]),
    };
    // The one common subexpression of the coefficient form: s = m0 + m1
    // (value 6) in x and x².
    let t3_cse = Printed {
        pieces: 3,
        products: three.clone(),
        shared: vec![vec![0, 1]],
        terms: vec![
            at(0, 0),
            (vec![(3, 1), (6, 1)], vec![]),
            (vec![(4, 2), (6, 2), (2, 2)], vec![]),
            (vec![(5, 3), (1, 3), (2, 3)], vec![]),
            at(2, 4),
        ],
    };
    let f4 = Printed {
        pieces: 3,
        products: three,
        shared: vec![],
        terms: vec![
            (vec![(0, 0), (1, 1), (2, 2)], vec![vec![0, 1, 2]]),
            at(3, 1),
            at(4, 2),
            at(5, 3),
        ],
    };
    let f2 = Printed {
        pieces: 4,
        products: four.clone(),
        shared: vec![],
        terms: by_coefficients(&[
            &[0, 1, 2, 3],
            &[1, 2, 3, 4],
            &[2, 3, 4, 5],
            &[3, 4, 5, 6],
            &[1, 3],
            &[3, 5],
            &[2, 3],
            &[3, 4],
            &[3],
        ]),
    };
    let f5 = Printed {
        pieces: 4,
        products: four,
        shared: vec![],
        terms: vec![
            (
                vec![(0, 0), (1, 1), (2, 2), (3, 3)],
                vec![vec![0, 1], vec![0, 2]],
            ),
            at(8, 3),
            (vec![(4, 0), (5, 2)], vec![vec![1, 3]]),
            (vec![(6, 0), (7, 1)], vec![vec![2, 3]]),
        ],
    };
    let c5 = Printed {
        pieces: 5,
        products: five.clone(),
        shared: vec![],
        terms: by_coefficients(&[
            &[0, 1, 2, 3, 4, 5],
            &[1, 2, 4, 5],
            &[2, 3, 5, 6],
            &[3, 4, 6, 7],
            &[3, 4, 5, 6, 7, 8],
            &[1, 4],
            &[2, 5],
            &[3, 6],
            &[4, 7],
            &[3, 4],
            &[4, 5],
            &[3, 5],
            &[3, 4, 5],
        ]),
    };
    // (6) with the third term's factor x restored (see `sufan::s5_1_co`).
    let f6 = Printed {
        pieces: 5,
        products: five,
        shared: vec![],
        terms: vec![
            (vec![(0, 0), (4, 3)], vec![vec![0, 1], vec![0, 2, 4]]),
            (vec![(11, 0)], vec![vec![3, 5]]),
            (vec![(1, 1), (2, 2), (3, 3)], vec![vec![0, 1], vec![0, 3]]),
            (vec![(9, 0), (10, 1)], vec![vec![3, 4]]),
            (vec![(5, 0), (6, 1), (7, 2), (8, 3)], vec![vec![1, 4]]),
            (vec![(12, 0)], vec![vec![3, 4, 5]]),
        ],
    };
    // Our kernel for a row: its Table 1 name and its additions.
    macro_rules! k {
        ($name:literal, $f:path, $n:literal) => {
            Some(($name, kernel_additions!($f, $n)))
        };
    }
    // (formula, words, printed, formula under the rule, our kernel).
    macro_rules! rows {
        ($(($formula:literal, $words:literal, $printed:literal, $rule:expr, $kernel:expr)),* $(,)?) => {
            vec![$(AdditionRow {
                formula: $formula,
                words: $words,
                printed: $printed,
                rule: $rule.map(Printed::additions),
                kernel: $kernel,
            }),*]
        };
    }
    use crate::gf2x::sufan::mul2_refined;
    use sufan::{mul2_plain, s3_1, s3_1h, s3_1m, s4_1, s4_2, s4_2m, s5_1_co};
    let none: Option<&Printed> = None;
    rows! {
        ("(1) two-term", 2, 8, Some(&f1), k!("2-word plain", mul2_plain, 2)),
        ("(3) two-term, modified", 2, 7, Some(&f3), k!("2-word refined", mul2_refined, 2)),
        ("three-term [13]", 3, 24, Some(&t3), k!("3-1", s3_1, 3)),
        ("three-term [13] with CSE", 3, 22, Some(&t3_cse), None),
        ("(4) three-term, modified", 3, 20, Some(&f4), k!("3-1m", s3_1m, 3)),
        ("(7) three-term, halved granularity, CSE", 3, 20, none, k!("3-1h", s3_1h, 3)),
        ("(2) as two-term recursively", 4, 40, none, k!("4-1", s4_1, 4)),
        ("(2) four-term", 4, 56, Some(&f2), k!("4-2", s4_2, 4)),
        ("(2) with CSE (halved granularity)", 4, 38, none, None),
        ("(5) four-term, modified", 4, 42, Some(&f5), k!("4-2m", s4_2m, 4)),
        ("five-term [10]", 5, 102, Some(&c5), None),
        ("(6) five-term, modified", 5, 85, Some(&f6), k!("5-1", s5_1_co, 5)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 58 item 2: every printed addition count against the formula
    /// counted under the paper's rule, and our kernels' counts.
    #[test]
    fn addition_counts_against_the_printed_ones() {
        let rows = addition_counts();
        let got: Vec<(&str, usize, Option<usize>, Option<usize>)> = rows
            .iter()
            .map(|r| (r.formula, r.printed, r.rule, r.kernel.map(|k| k.1)))
            .collect();
        assert_eq!(
            got,
            [
                ("(1) two-term", 8, Some(8), Some(8)),
                ("(3) two-term, modified", 7, Some(7), Some(7)),
                ("three-term [13]", 24, Some(24), Some(24)),
                ("three-term [13] with CSE", 22, Some(22), None),
                ("(4) three-term, modified", 20, Some(20), Some(18)),
                (
                    "(7) three-term, halved granularity, CSE",
                    20,
                    None,
                    Some(20)
                ),
                ("(2) as two-term recursively", 40, None, Some(40)),
                ("(2) four-term", 56, Some(56), Some(52)),
                ("(2) with CSE (halved granularity)", 38, None, None),
                ("(5) four-term, modified", 42, Some(42), Some(34)),
                ("five-term [10]", 102, Some(102), None),
                ("(6) five-term, modified", 85, Some(85), Some(70)),
            ]
        );
    }
}
