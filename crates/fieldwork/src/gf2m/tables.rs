//! The precomputed linear maps of the fixed fields, built on first use
//! with the portable kernels (once per process): the k-fold Frobenius maps
//! a ↦ a^(2^k) of the inversion chain and the half-trace, each as its m
//! images of x^i, in the layout of `maps` (four rows per `Quad`). Applying
//! one (`FieldSpec::apply_map_k`, a `maps::MapKernel`) costs m·W masked
//! word XORs (four to a blend on AVX2, two on SSE4.1), in place of k
//! squarings or the half-trace's m − 1.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// tables of the field's degree `m` rows, indexed by counters below `m`.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::FieldElement;
use super::maps::{Quad, quads_from_rows};
use crate::gf2x::PortableWord;
use std::vec::Vec;

/// x as an element (m ≥ 2).
fn x<F: FieldElement>() -> F {
    let mut w = [0u64; 16];
    w[0] = 2;
    F::from_word_slice(&w[..F::WORDS]).unwrap_or(F::ONE)
}

/// The table of the k-fold Frobenius map.
pub(super) fn frobenius_table<F: FieldElement>(k: usize) -> Vec<Quad> {
    let rows = frobenius_rows::<F>(&x_to_2k::<F>(k), F::M);
    quads_from_rows(rows.iter().map(F::as_words), F::WORDS)
}

/// The half table of the k-fold Frobenius map (`maps.rs`, "Half
/// tables"): the rows (x^j)^(2^(k+1)) for j < ⌈m/2⌉, and x^(2^k).
pub(super) fn frobenius_half_table<F: FieldElement>(k: usize) -> (Vec<Quad>, F) {
    let shift = x_to_2k::<F>(k);
    let rows = frobenius_rows::<F>(&F::square_k(PortableWord, &shift), F::M.div_ceil(2));
    (
        quads_from_rows(rows.iter().map(F::as_words), F::WORDS),
        shift,
    )
}

/// The table of the half-trace.
pub(super) fn half_trace_table<F: FieldElement>() -> Vec<Quad> {
    let rows = half_trace_rows::<F>();
    quads_from_rows(rows.iter().map(F::as_words), F::WORDS)
}

/// x^(2^k): k squarings.
fn x_to_2k<F: FieldElement>(k: usize) -> F {
    let mut big_x = x::<F>();
    for _ in 0..k {
        big_x = F::square_k(PortableWord, &big_x);
    }
    big_x
}

/// (x^i)^(2^k) = X^i for i < n, X = `big_x` = x^(2^k): n − 1 products by X.
fn frobenius_rows<F: FieldElement>(big_x: &F, n: usize) -> Vec<F> {
    let mut rows = Vec::with_capacity(n);
    let mut r = F::ONE;
    for _ in 0..n {
        rows.push(r);
        r = F::mul_k(PortableWord, &r, big_x);
    }
    rows
}

/// H(x^i) for i < m: by the recurrence for odd i, and H(x^(2j)) = H(x^j)²
/// (H commutes with squaring) for even i.
fn half_trace_rows<F: FieldElement>() -> Vec<F> {
    let mut rows: Vec<F> = Vec::with_capacity(F::M);
    let mut xi = F::ONE;
    for i in 0..F::M {
        let h = if i % 2 == 0 && i > 0 {
            F::square_k(PortableWord, &rows[i / 2])
        } else {
            let mut h = xi;
            for _ in 0..(F::M - 1) / 2 {
                h = F::square_k(PortableWord, &F::square_k(PortableWord, &h)) + xi;
            }
            h
        };
        rows.push(h);
        xi = F::mul_k(PortableWord, &xi, &x::<F>());
    }
    rows
}
