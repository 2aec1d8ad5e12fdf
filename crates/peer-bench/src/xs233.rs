//! Thomas Pornin's constant-time GF(2^233) arithmetic from c-xs233
//! (*Faster Complete Addition Laws for Ordinary Binary Elliptic Curves*,
//! ePrint 2022/1325; public domain), the reference issue 24 names for
//! m = 233: feature `xs233`, sources from `scripts/fetch-xs233.sh`, compiled
//! with the flags of c-xs233's own Makefile (`-O2 -mpclmul -mavx2`; its field
//! code uses PCLMULQDQ and SSE4.1) through `shim/xs233_shim.c`.
//!
//! Each call runs a whole chain of `n` operations inside C (the header's
//! functions are `static inline`), so the peer pays no call per operation
//! where fieldwork's rows pay one; its elements stay partially reduced along
//! the chain, as c-xs233 keeps them, and are fully reduced on the way out.

use crate::binary_fields::Op;
use std::hint::black_box;

unsafe extern "C" {
    fn fw_xs233_pclmul() -> i32;
    fn fw_xs233_mul(x: *mut u64, y: *const u64, n: usize);
    fn fw_xs233_sqr(x: *mut u64, n: usize);
    fn fw_xs233_inv(x: *mut u64, n: usize);
    fn fw_xs233_sqrt(x: *mut u64, n: usize);
    fn fw_xs233_halftrace(x: *mut u64, n: usize);
    fn fw_xs233_mul_batch(c: *mut u64, a: *const u64, b: *const u64, count: usize);
}

/// The column's name.
pub const NAME: &str = "c-xs233 gf233 (Pornin)";

/// An operation of the peer: one of the shared rows, or the half-trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xs233Op {
    /// A row the other peers have too.
    Shared(Op),
    /// `x ← H(x)`, chained.
    HalfTrace,
}

/// Whether this CPU runs the shim: c-xs233's Makefile flags let the
/// compiler use AVX2 anywhere in it, and its field code was compiled with
/// PCLMULQDQ.
pub fn available() -> bool {
    // SAFETY: a constant getter with no arguments.
    let pclmul = unsafe { fw_xs233_pclmul() } == 1;
    pclmul && std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("pclmulqdq")
}

fn element(words: &[u64]) -> Result<[u64; 4], String> {
    <[u64; 4]>::try_from(words).map_err(|_| format!("c-xs233: {} words, not 4", words.len()))
}

/// `n` chained operations on `x` (the multiplier `y` for products).
fn chain(op: Xs233Op, x: &mut [u64; 4], y: &[u64; 4], n: usize) {
    // SAFETY: `x` and `y` are 4 words each, as every wrapper reads and
    // writes; `available()` was checked by the caller.
    unsafe {
        match op {
            Xs233Op::Shared(Op::Mul) => fw_xs233_mul(x.as_mut_ptr(), y.as_ptr(), n),
            Xs233Op::Shared(Op::Square) => fw_xs233_sqr(x.as_mut_ptr(), n),
            Xs233Op::Shared(Op::Invert) => fw_xs233_inv(x.as_mut_ptr(), n),
            Xs233Op::Shared(Op::Sqrt) => fw_xs233_sqrt(x.as_mut_ptr(), n),
            Xs233Op::HalfTrace => fw_xs233_halftrace(x.as_mut_ptr(), n),
            Xs233Op::Shared(Op::BatchMul) => unreachable!("the batch is not a chain"),
        }
    }
}

/// The batch's left and right operands, each as one flat run of words.
fn flatten(pairs: &[(Vec<u64>, Vec<u64>)]) -> (Vec<u64>, Vec<u64>) {
    (
        pairs.iter().flat_map(|(a, _)| a.iter().copied()).collect(),
        pairs.iter().flat_map(|(_, b)| b.iter().copied()).collect(),
    )
}

/// `c[i] = a[i]·b[i]` on flat 4-word elements.
fn batch(c: &mut [u64], a: &[u64], b: &[u64]) {
    assert!(c.len() == a.len() && a.len() == b.len() && a.len().is_multiple_of(4));
    // SAFETY: the three buffers hold len/4 elements of 4 words (asserted).
    unsafe { fw_xs233_mul_batch(c.as_mut_ptr(), a.as_ptr(), b.as_ptr(), a.len() / 4) }
}

/// The peer's result of `op` on `x` (and `y`, or the batch's pairs, whose
/// products come concatenated).
pub fn compute(
    op: Xs233Op,
    x: &[u64],
    y: &[u64],
    pairs: &[(Vec<u64>, Vec<u64>)],
) -> Result<Vec<u64>, String> {
    if !available() {
        return Err("c-xs233 needs AVX2 and PCLMULQDQ".into());
    }
    if op == Xs233Op::Shared(Op::BatchMul) {
        let (a, b) = flatten(pairs);
        let mut c = vec![0u64; a.len()];
        batch(&mut c, &a, &b);
        return Ok(c);
    }
    let (mut x, y) = (element(x)?, element(y)?);
    chain(op, &mut x, &y, 1);
    Ok(x.to_vec())
}

/// The timed routine of `op`: a chain of `n` operations from `x` in one
/// call, or the batch of products `n` times.
pub fn routine(
    op: Xs233Op,
    x: &[u64],
    y: &[u64],
    pairs: &[(Vec<u64>, Vec<u64>)],
) -> Result<benchtime::Routine<'static>, String> {
    if !available() {
        return Err("c-xs233 needs AVX2 and PCLMULQDQ".into());
    }
    if op == Xs233Op::Shared(Op::BatchMul) {
        let (a, b) = flatten(pairs);
        let mut c = vec![0u64; a.len()];
        return Ok(Box::new(move |n| {
            for _ in 0..n {
                batch(&mut c, black_box(&a), &b);
                black_box(&c);
            }
        }));
    }
    let (mut x, y) = (element(x)?, element(y)?);
    Ok(Box::new(move |n| {
        chain(op, black_box(&mut x), &y, n as usize);
        black_box(&x);
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::binary_fields::{NIST_FIELDS, Op};
    use crate::util::Rng;

    /// c-xs233 against the bit-by-bit reference at m = 233: products,
    /// squares, inverses, square roots, half-traces and a batch.
    #[test]
    fn agrees_with_the_reference() {
        if !available() {
            eprintln!("skipped: c-xs233 needs AVX2 and PCLMULQDQ");
            return;
        }
        let f = &NIST_FIELDS[1];
        assert_eq!(f.m, 233);
        let mut rng = Rng(0x2331);
        let pairs: Vec<(Vec<u64>, Vec<u64>)> = (0..5)
            .map(|_| (f.random(&mut rng), f.random(&mut rng)))
            .collect();
        for _ in 0..50 {
            let (x, y) = (f.random_nonzero(&mut rng), f.random(&mut rng));
            let got = |op| compute(op, &x, &y, &pairs).unwrap();
            assert_eq!(got(Xs233Op::Shared(Op::Mul)), f.reference_mul(&x, &y));
            assert_eq!(got(Xs233Op::Shared(Op::Square)), f.reference_mul(&x, &x));
            assert_eq!(
                f.reference_mul(&x, &got(Xs233Op::Shared(Op::Invert))),
                f.one()
            );
            let r = got(Xs233Op::Shared(Op::Sqrt));
            assert_eq!(f.reference_mul(&r, &r), x);
            // H(a)² + H(a) = a + Tr(a).
            let h = got(Xs233Op::HalfTrace);
            let mut d: Vec<u64> = f.reference_mul(&h, &h);
            d.iter_mut()
                .zip(&h)
                .zip(&x)
                .for_each(|((d, h), a)| *d ^= h ^ a);
            d[0] &= !1;
            assert!(d.iter().all(|&w| w == 0), "half-trace");
            let want: Vec<u64> = pairs
                .iter()
                .flat_map(|(a, b)| f.reference_mul(a, b))
                .collect();
            assert_eq!(got(Xs233Op::Shared(Op::BatchMul)), want);
        }
    }
}
