//! The additive FFT's level functions, generic over the field multiplier
//! ([`FieldMul`]): butterflies, pointwise products and the basis
//! conversions, one value at a time. Every backend builds on them: the
//! portable one entirely, the vector ones for their scalar edges. They are
//! `#[inline(always)]`, so a backend's `#[target_feature]` entry point that
//! calls them gets them compiled with its instructions (the conversions'
//! XOR loops vectorise). Constant time: indices are public positions.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::field::span;

/// A product in `F = GF(2^64)`.
pub(crate) trait FieldMul: Copy {
    /// `a·b` reduced modulo `z^64 + z^4 + z^3 + z + 1`.
    fn mul(self, a: u64, b: u64) -> u64;
}

/// Forward butterflies of levels `hi` down to `lo` (see
/// [`super::FftKernel::forward`]), one value at a time.
#[inline(always)]
pub(crate) fn forward<M: FieldMul>(m: M, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
    for level in (lo..=hi).rev() {
        butterflies::<M, false>(m, data, pos, level);
    }
}

/// Inverse butterflies of levels `lo` up to `hi`.
#[inline(always)]
pub(crate) fn inverse<M: FieldMul>(m: M, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
    for level in lo..=hi {
        butterflies::<M, true>(m, data, pos, level);
    }
}

/// The butterflies of one level on each block of `2^(level+1)` values:
/// forward `x += t·y; y += x`, or with `INVERSE` `y += x; x += t·y`.
#[inline(always)]
fn butterflies<M: FieldMul, const INVERSE: bool>(m: M, data: &mut [u64], pos: u64, level: u32) {
    let half = 1usize << level;
    for (bi, block) in data.chunks_exact_mut(2 * half).enumerate() {
        let t = span((pos + (bi * 2 * half) as u64) >> level);
        let (d0, d1) = block.split_at_mut(half);
        for (x, y) in d0.iter_mut().zip(d1.iter_mut()) {
            if INVERSE {
                *y ^= *x;
                *x ^= m.mul(*y, t);
            } else {
                *x ^= m.mul(*y, t);
                *y ^= *x;
            }
        }
    }
}

/// `a[i] = a[i]·b[i]`.
#[inline(always)]
pub(crate) fn pointwise<M: FieldMul>(m: M, a: &mut [u64], b: &[u64]) {
    for (x, &y) in a.iter_mut().zip(b) {
        *x = m.mul(*x, y);
    }
}

#[inline(always)]
fn xor_into(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
    }
}

/// Words XORed per term and step of a conversion level: the sources of a
/// step are final once every higher step is done (the distances are at
/// least `2^(k−1)`), and a short step keeps the term streams close in cache.
const CONV_STEP: usize = 512;

/// One conversion level on one block of `2^(k+1)` coefficients: its halves
/// become the remainder and the quotient of the division by `s_k`
/// (`inverse`: the multiplication back). The lower terms of `s_k` are
/// `x^(2^j)` for the proper submasks `j` of `k`; quotient coefficient `i`
/// (at `2^k + i`) is added at `i + 2^j` for each, i.e. at distance
/// `2^k − 2^j` below. Top-down in steps no longer than the smallest
/// distance; the inverse undoes the steps bottom-up.
#[inline(always)]
fn subspace_level(block: &mut [u64], k: u32, inverse: bool) {
    if k == 0 {
        return; // s_0 = x: nothing to fold
    }
    let half = 1usize << k;
    debug_assert_eq!(block.len(), 2 * half);
    // The largest proper submask of k is k without its lowest bit.
    let max_j = k & (k - 1);
    let min_dist = half - (1usize << max_j);
    let step = if min_dist < CONV_STEP {
        min_dist
    } else {
        CONV_STEP
    };
    let steps = half.div_ceil(step);
    for n in 0..steps {
        // Step n covers [start, end) of the upper half, from the top down
        // (or from the bottom up for the inverse).
        let idx = if inverse { steps - 1 - n } else { n };
        let end = 2 * half - idx * step;
        let start = if end - half > step { end - step } else { half };
        let (low, high) = block.split_at_mut(start);
        let src = &high[..end - start];
        let mut j = max_j;
        loop {
            let dist = half - (1usize << j);
            let at = start - dist;
            xor_into(&mut low[at..at + src.len()], src);
            if j == 0 {
                break;
            }
            j = (j - 1) & k;
        }
    }
}

/// Divides one block of `2^(k+1)` coefficients by `s_k` in place.
#[cfg(test)]
pub(crate) fn divide_by_subspace(block: &mut [u64], k: u32) {
    subspace_level(block, k, false);
}

/// Levels 3, 2, 1 of the conversion on one block of 16 coefficients
/// (`inverse`: undone, in reverse order), with constant indices: the three
/// lower terms `x^4, x^2, x` of `s_3`, then `x` of `s_2 = x^4 + x` on each
/// half, then `x` of `s_1 = x^2 + x` on each quarter.
#[inline(always)]
fn bottom16(f: &mut [u64; 16], inverse: bool) {
    if !inverse {
        for i in (8..16).rev() {
            let q = f[i];
            f[i - 4] ^= q;
            f[i - 6] ^= q;
            f[i - 7] ^= q;
        }
        for base in [0, 8] {
            for i in (4..8).rev() {
                f[base + i - 3] ^= f[base + i];
            }
        }
        for base in [0, 4, 8, 12] {
            f[base + 2] ^= f[base + 3];
            f[base + 1] ^= f[base + 2];
        }
    } else {
        for base in [0, 4, 8, 12] {
            f[base + 1] ^= f[base + 2];
            f[base + 2] ^= f[base + 3];
        }
        for base in [0, 8] {
            for i in 4..8 {
                f[base + i - 3] ^= f[base + i];
            }
        }
        for i in 8..16 {
            let q = f[i];
            f[i - 4] ^= q;
            f[i - 6] ^= q;
            f[i - 7] ^= q;
        }
    }
}

/// Monomial → novel basis, levels `hi` down to `lo` (see
/// [`super::FftKernel::monomial_to_novel`]); levels 3 to 0 together, 16 coefficients at a
/// time, when `lo == 0`.
#[inline(always)]
pub(crate) fn to_novel(data: &mut [u64], hi: u32, lo: u32) {
    let bottom = lo == 0 && hi >= 3;
    let stop = if bottom { 4 } else { lo };
    for k in (stop..=hi).rev() {
        for block in data.chunks_exact_mut(2usize << k) {
            subspace_level(block, k, false);
        }
    }
    if bottom {
        for block in data.chunks_exact_mut(16) {
            if let Ok(f) = <&mut [u64; 16]>::try_from(block) {
                bottom16(f, false);
            }
        }
    }
}

/// Novel → monomial basis, levels `lo` up to `hi`.
#[inline(always)]
pub(crate) fn from_novel(data: &mut [u64], lo: u32, hi: u32) {
    let bottom = lo == 0 && hi >= 3;
    if bottom {
        for block in data.chunks_exact_mut(16) {
            if let Ok(f) = <&mut [u64; 16]>::try_from(block) {
                bottom16(f, true);
            }
        }
    }
    for k in (if bottom { 4 } else { lo })..=hi {
        for block in data.chunks_exact_mut(2usize << k) {
            subspace_level(block, k, true);
        }
    }
}
