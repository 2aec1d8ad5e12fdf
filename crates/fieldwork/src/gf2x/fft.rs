//! Target features: none here — the additive FFT over GF(2^64) for the
//! largest products, generic over a backend's butterfly kernels
//! (`FftKernel`: `portable`, and on x86-64 `clmul`, `vpclmulqdq` and `ymm`).
//!
//! # The idea
//!
//! Cut each operand into 32-bit chunks and read every chunk as an element of
//! the field `F = GF(2^64) = GF(2)[z]/(z^64 + z^4 + z^3 + z + 1)` (chunk bit
//! `i` is the coefficient of `z^i`). An operand of `n` words becomes a
//! polynomial over `F` with `2n` coefficients (`x^32` becomes the variable).
//! The product of two chunks has degree at most 62 in `z`, below 64, so the
//! product of the two polynomials *over F* has exactly the chunk
//! convolution of the binary product as coefficients: no reduction modulo
//! the field polynomial ever changes a coefficient of the result. The
//! product over `F` is computed by evaluation at `2^r ≥ 2(na + nb)` points,
//! pointwise products and interpolation, and its 63-bit coefficients are
//! added back into words with an overlap of 31 bits (coefficient `k` starts
//! at bit `32k`). (Chen, Cheng, Kuo, Li, Yang, *Faster multiplication for
//! long binary polynomials*, IACR ePrint 2017/1190, use this reduction of
//! GF(2)\[x\] to an additive FFT, over GF(2^128) with 64-bit chunks.)
//!
//! # The additive FFT of Lin, Chung and Han
//!
//! Characteristic two has no roots of unity of even order; the evaluation
//! points are instead a GF(2)-subspace of `F`. Lin, Chung and Han (*Novel
//! polynomial basis and its application to Reed–Solomon erasure codes*,
//! FOCS 2014) write the polynomial in a *novel basis* in which the FFT is
//! one butterfly per pair and level, with one twiddle per block:
//!
//! - Cantor basis (Cantor, *On arithmetical algorithms over finite fields*,
//!   JCTA 1989; Gao and Mateer, *Additive fast Fourier transforms over
//!   finite fields*, IEEE Trans. IT 2010): `β0 = 1`, `β_i² + β_i = β_(i−1)`.
//!   It exists up to `i = 63` because 64 is a power of two. Squaring plus
//!   identity is GF(2)-linear with kernel `{0, 1}`, and in a field of even
//!   degree the half-trace does not invert it, so each `β_i` is found by
//!   solving the 64×64 linear system, at compile time (`CANTOR`; the
//!   solution with bit 0 clear).
//! - Subspace polynomials `s_i(x) = ∏ (x − w)` over `w ∈ W_i =
//!   span(β0 … β(i−1))`. With the Cantor basis `s1 = x² + x`,
//!   `s_(i+1) = s1 ∘ s_i`, so `s_i = Σ_j C(i, j) x^(2^j)` (Lucas: the terms
//!   `x^(2^j)` for every bit-submask `j` of `i`), its coefficients lie in
//!   GF(2), it is GF(2)-linear, `s_i(β_i) = 1` and `s_i(β_j) = β_(j−i)` for
//!   `j ≥ i`. So LCH's normalised `ŝ_i = s_i / s_i(β_i)` is `s_i` itself, and
//!   the twiddle `s_i(ω)` of a block whose points start at `ω = span(q)`
//!   (`span(q) = Σ q_j β_j` for the bits `q_j` of the index `q`) is
//!   `span(q >> i)`: a shift of the index. `span` is byte tables of sums
//!   of basis elements.
//! - Novel basis `X_k = ∏ s_i` over the set bits `i` of `k` (`deg X_k = k`).
//!   Since `X_(k + 2^i) = s_i·X_k` for `k < 2^i`, a polynomial of `2^(i+1)`
//!   coefficients is `f0 + s_i·f1`, and at the points `ω + W_i`,
//!   `s_i = s_i(ω) = t` while at `ω + β_i + W_i` it is `t + 1`:
//!
//!   ```text
//!   forward butterfly:  D0 += t·D1;  D1 += D0      (t = span(q >> i))
//!   inverse butterfly:  D1 += D0;    D0 += t·D1
//!   ```
//!
//!   on the halves of each block of `2^(i+1)` values, from the top level
//!   down (forward) or up (inverse); values come out in natural order
//!   (index `u` is the value at `span(u)`).
//! - Conversion monomial → novel basis: `f = f0 + s_i·f1` is a division by
//!   `s_i`, whose lower terms are the `x^(2^j)` for the proper submasks `j`
//!   of `i`: the quotient's coefficients fold onto the remainder at
//!   distances `2^i − 2^j ≥ 2^(i−1)`, so each level is a few XOR passes of
//!   whole vectors; recursing on both halves gives the basis. The inverse
//!   conversion undoes the passes in reverse order. Only XORs: the
//!   conversions are linear over GF(2) and work on coefficients as bit
//!   vectors.
//!
//! # The product
//!
//! `na`-word `a`, `nb`-word `b`: `2^r ≥ 2(na + nb)` points, `r ≥ 4`. The
//! operand with more chunks (`2^ra` after padding) is converted once and
//! copied into each of the `2^(r−ra)` cosets `c·2^ra + W_ra` of the point
//! set (its top `r − ra` butterfly levels would only copy: its novel
//! coefficients above `2^ra` are zero), each transformed there; the other
//! likewise, one coset at a time, multiplied into the first. Then one
//! inverse transform of length `2^r`, the inverse conversion, and the
//! overlap-add. Scratch: `2^r` words for the first operand and the product,
//! and `2^(rb+1)` (at most `2^r`) for the second ([`scratch_len`]).
//!
//! # Memory order
//!
//! Depth-first: a transform of more than `LEAF_LOG` levels does its top
//! levels in passes of up to three fused levels (radix 8: eight vectors in
//! registers, seven twiddles per block) over the whole block, then recurses
//! on the sub-blocks; a block of `2^LEAF_LOG` words (16 KiB, in L1) is one
//! backend call doing every remaining level. The conversions likewise do
//! their top levels one pass each and a block of `2^CONV_LEAF_LOG` words in
//! one call.
//!
//! # Costs and measurements
//!
//! A transform of `2^r` points is `r·2^(r−1)` butterflies (one field
//! product each; the VPCLMULQDQ backend does eight in 14 vector
//! instructions, see `vpclmul`). The conversions are only XORs: level `k`
//! costs `2^popcount(k) − 1` XORs per quotient coefficient, about `33·2^r`
//! word XORs in all for `r = 17`; the three lowest levels run on 16
//! coefficients at a time with constant indices (`bottom16`): done level by
//! level with short slices they took 60 % of a 65 536-word product.
//!
//! At 65 536 words about half of the time is the three conversions
//! (levels 4 to 16), a quarter the forward transforms. Figure (VPCLMULQDQ
//! backend, Intel Xeon family 6 model 207, `cargo run --release -p
//! peer-bench --features system-peers -- --filter gf2x_mul --heavy`):
//! 65 536 words 2.62× gf2x 1.3 built with `-march=native`, 2^20 words
//! 3.48×; the dated run is in `docs/notes/gf2x.md`.
//!
//! Where it loses:
//! - The cost is a step function: `n` words take `2^⌈log2 4n⌉` points, so
//!   `2^k + 1` words cost twice `2^k` (a truncated transform would not);
//!   the plans in `super::plan` only take the FFT where it wins.
//! - Scratch: `2^(r+1)` words, up to `16n` for `n`-word operands (Toom:
//!   about `4n`).
//! - PCLMULQDQ and portable backends use the scalar butterflies: 3–4×
//!   (PCLMULQDQ) and about 30× (portable) the VPCLMULQDQ time.
//!
//! Not done: fused multi-level conversion passes (the Gao–Mateer /
//! Chen et al. Taylor-expansion form has about half the XORs), the forward
//! conversion on packed 32-bit chunks, a truncated transform, reuse of one
//! operand's transform across the chunks of an unbalanced product.
//!
//! # Constant time
//!
//! Sizes, twiddles and every index depend only on the lengths (public); the
//! data go only through XORs and field products (carry-less multiplies, or
//! masked integer products in the portable backend), never into a branch or
//! an index.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// indices into buffers and twiddle tables sized from the transform length the plan chose for the checked operand lengths.
#![allow(clippy::indexing_slicing)]
#![deny(unsafe_code)]

/// The [`FftKernel`] impl of `$kernel` (a tuple struct of its token) and
/// its `#[target_feature(enable = $features)]` entry points: the
/// butterflies and pointwise products of `$passes` (`levels`, one value at a
/// time, or `wide`, a register at a time) on the value `$make` builds from
/// the token `$t`; the conversions of [`levels`] compiled with the features.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! fft_entries {
    ($kernel:ident($token:ty), $features:literal, $passes:ident, |$t:ident| $make:expr) => {
        impl super::FftKernel for $kernel {
            fn forward(self, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
                // SAFETY: the token proves every feature `tf::forward` enables.
                unsafe { tf::forward(self.0, data, pos, hi, lo) }
            }

            fn inverse(self, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
                // SAFETY: the token proves every feature `tf::inverse` enables.
                unsafe { tf::inverse(self.0, data, pos, lo, hi) }
            }

            fn pointwise(self, a: &mut [u64], b: &[u64]) {
                // SAFETY: the token proves every feature `tf::pointwise` enables.
                unsafe { tf::pointwise(self.0, a, b) }
            }

            fn monomial_to_novel(self, data: &mut [u64], hi: u32, lo: u32) {
                // SAFETY: the token proves every feature `tf::to_novel` enables.
                unsafe { tf::to_novel(self.0, data, hi, lo) }
            }

            fn novel_to_monomial(self, data: &mut [u64], lo: u32, hi: u32) {
                // SAFETY: the token proves every feature `tf::from_novel` enables.
                unsafe { tf::from_novel(self.0, data, lo, hi) }
            }
        }

        /// The `#[target_feature]` entry points, reached only through the
        /// `FftKernel` impl.
        mod tf {
            use super::*;

            #[target_feature(enable = $features)]
            pub(super) fn forward($t: $token, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
                $passes::forward($make, data, pos, hi, lo);
            }

            #[target_feature(enable = $features)]
            pub(super) fn inverse($t: $token, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
                $passes::inverse($make, data, pos, lo, hi);
            }

            #[target_feature(enable = $features)]
            pub(super) fn pointwise($t: $token, a: &mut [u64], b: &[u64]) {
                $passes::pointwise($make, a, b);
            }

            #[target_feature(enable = $features)]
            pub(super) fn to_novel(_: $token, data: &mut [u64], hi: u32, lo: u32) {
                super::super::levels::to_novel(data, hi, lo);
            }

            #[target_feature(enable = $features)]
            pub(super) fn from_novel(_: $token, data: &mut [u64], lo: u32, hi: u32) {
                super::super::levels::from_novel(data, lo, hi);
            }
        }
    };
}

pub(crate) mod field;
pub(crate) mod levels;
#[cfg(feature = "std")]
pub(crate) mod parallel;
pub(crate) mod portable;

#[cfg(target_arch = "x86_64")]
pub(crate) mod clmul;
#[cfg(target_arch = "aarch64")]
pub(crate) mod pmull;
#[cfg(target_arch = "x86_64")]
pub(crate) mod vpclmul;
#[cfg(target_arch = "x86_64")]
mod wide;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ymm;

/// A backend's kernels: butterflies, pointwise products and the basis
/// conversions on one block.
///
/// In every method, `data.len()` is a power of two that the block size of
/// the top level divides, and `pos` (the point index of `data[0]`) is a
/// multiple of `data.len()`.
pub(crate) trait FftKernel: Copy + Send + Sync {
    /// Forward butterflies of levels `hi` down to `lo` on each block of
    /// `2^(hi+1)` values of `data`.
    fn forward(self, data: &mut [u64], pos: u64, hi: u32, lo: u32);
    /// Inverse butterflies of levels `lo` up to `hi`.
    fn inverse(self, data: &mut [u64], pos: u64, lo: u32, hi: u32);
    /// `a[i] = a[i]·b[i]` in `F`, `a.len() == b.len()`.
    fn pointwise(self, a: &mut [u64], b: &[u64]);
    /// Monomial → novel basis, levels `hi` down to `lo` (division by
    /// `s_k` on each block of `2^(k+1)` coefficients).
    fn monomial_to_novel(self, data: &mut [u64], hi: u32, lo: u32);
    /// Novel → monomial basis, levels `lo` up to `hi`.
    fn novel_to_monomial(self, data: &mut [u64], lo: u32, hi: u32);
}

/// Transforms of at most this many levels are one backend call (16 KiB).
pub(crate) const LEAF_LOG: u32 = 11;
/// Conversions of at most this many levels are one backend call (128 KiB).
pub(crate) const CONV_LEAF_LOG: u32 = 12;
/// Smallest transform: 16 points (the vector kernels' bottom block).
const MIN_LOG: u32 = 4;

/// `⌈log2 x⌉` for `x ≥ 1`.
const fn ceil_log2(x: usize) -> u32 {
    usize::BITS - (x - 1).leading_zeros()
}

/// Transform sizes for an `na`×`nb`-word product (both nonzero): `(r, ra,
/// rb)`, logs of the product's and each operand's point counts.
const fn sizes(na: usize, nb: usize) -> (u32, u32, u32) {
    let r = max_u32(ceil_log2(2 * (na + nb)), MIN_LOG);
    let ra = max_u32(ceil_log2(2 * na), MIN_LOG);
    let rb = max_u32(ceil_log2(2 * nb), MIN_LOG);
    (r, ra, rb)
}

/// The larger of two `u32` (const).
const fn max_u32(a: u32, b: u32) -> u32 {
    if a > b { a } else { b }
}

/// Scratch words the FFT product ([`mul`]) needs for an `na`×`nb`-word
/// product: `2^r` for the product's values plus `2^(rs+1)` (or `2^r` if `rs == r`) for the operand
/// with fewer chunks (`rs` its log), and with `std` from
/// [`PARALLEL_MIN_WORDS`] words one more `2^rs` for the threaded path:
/// at most `2^(r+1) + 2^(r-1) < 20(na + nb)`.
pub(crate) const fn scratch_len(na: usize, nb: usize) -> usize {
    if na == 0 || nb == 0 {
        return 0;
    }
    let (r, ra, rb) = sizes(na, nb);
    let rs = if ra < rb { ra } else { rb };
    let second = if rs == r { 1usize << r } else { 2usize << rs };
    // The threaded path's second copy of the shorter operand's transform
    // (`parallel.rs`: one per thread of its coset phase).
    let threaded = if cfg!(feature = "std") && rs < r && na + nb >= PARALLEL_MIN_WORDS {
        1usize << rs
    } else {
        0
    };
    (1usize << r) + second + threaded
}

/// Products of at least this many words in all (`na + nb`) may run on
/// several threads (`parallel.rs`, feature `std`).
pub(crate) const PARALLEL_MIN_WORDS: usize = 1 << 12;

/// Forward transform of `data` (`2^m` values at points `pos + u`),
/// depth-first (module docs).
fn forward_rec<K: FftKernel>(k: K, data: &mut [u64], pos: u64, m: u32) {
    if m <= LEAF_LOG {
        k.forward(data, pos, m - 1, 0);
        return;
    }
    let t = if m - LEAF_LOG >= 3 { 3 } else { m - LEAF_LOG };
    k.forward(data, pos, m - 1, m - t);
    let sub = 1usize << (m - t);
    for (i, part) in data.chunks_exact_mut(sub).enumerate() {
        forward_rec(k, part, pos + (i * sub) as u64, m - t);
    }
}

/// Inverse of [`forward_rec`].
fn inverse_rec<K: FftKernel>(k: K, data: &mut [u64], pos: u64, m: u32) {
    if m <= LEAF_LOG {
        k.inverse(data, pos, 0, m - 1);
        return;
    }
    let t = if m - LEAF_LOG >= 3 { 3 } else { m - LEAF_LOG };
    let sub = 1usize << (m - t);
    for (i, part) in data.chunks_exact_mut(sub).enumerate() {
        inverse_rec(k, part, pos + (i * sub) as u64, m - t);
    }
    k.inverse(data, pos, m - t, m - 1);
}

/// Monomial → novel basis for `2^m` coefficients, depth-first.
fn to_novel_rec<K: FftKernel>(k: K, data: &mut [u64], m: u32) {
    if m <= CONV_LEAF_LOG {
        if m > 0 {
            k.monomial_to_novel(data, m - 1, 0);
        }
        return;
    }
    k.monomial_to_novel(data, m - 1, m - 1);
    let (lo, hi) = data.split_at_mut(1 << (m - 1));
    to_novel_rec(k, lo, m - 1);
    to_novel_rec(k, hi, m - 1);
}

/// Novel → monomial basis, the inverse of [`to_novel_rec`].
fn from_novel_rec<K: FftKernel>(k: K, data: &mut [u64], m: u32) {
    if m <= CONV_LEAF_LOG {
        if m > 0 {
            k.novel_to_monomial(data, 0, m - 1);
        }
        return;
    }
    {
        let (lo, hi) = data.split_at_mut(1 << (m - 1));
        from_novel_rec(k, lo, m - 1);
        from_novel_rec(k, hi, m - 1);
    }
    k.novel_to_monomial(data, m - 1, m - 1);
}

/// Chunks of `a` (32 bits each) into `dst`, one a word, zero-padded.
fn spread(dst: &mut [u64], a: &[u64]) {
    let (pairs, rest) = dst.split_at_mut(2 * a.len());
    for (d, &w) in pairs.chunks_exact_mut(2).zip(a) {
        d[0] = w & 0xffff_ffff;
        d[1] = w >> 32;
    }
    rest.fill(0);
}

/// `out[w] = c[2w] ^ c[2w+1] << 32 ^ c[2w−1] >> 32`: the 63-bit coefficient
/// `k` added in at bit `32k`. `c.len() ≥ 2·out.len()`.
fn overlap_add(out: &mut [u64], c: &[u64]) {
    let mut carry = 0u64;
    for (o, pair) in out.iter_mut().zip(c.chunks_exact(2)) {
        *o = pair[0] ^ (pair[1] << 32) ^ carry;
        carry = pair[1] >> 32;
    }
}

/// `out = a·b` by the additive FFT, any sizes, `out.len() == a.len() +
/// b.len()`, `scratch.len() ≥ scratch_len(a.len(), b.len())`.
pub(crate) fn mul<K: FftKernel>(k: K, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
    debug_assert_eq!(out.len(), a.len() + b.len());
    if a.is_empty() || b.is_empty() {
        out.fill(0);
        return;
    }
    let (a, b) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let (r, ra, rb) = sizes(a.len(), b.len());
    debug_assert!(scratch.len() >= scratch_len(a.len(), b.len()));
    let (values, rest) = scratch.split_at_mut(1 << r);
    #[cfg(feature = "std")]
    if parallel::worth(a.len(), b.len()) {
        parallel::mul(k, out, a, b, values, rest);
        return;
    }

    // The longer operand: converted once, copied to every coset, transformed.
    let len_a = 1usize << ra;
    spread(&mut values[..len_a], a);
    to_novel_rec(k, &mut values[..len_a], ra);
    {
        let (first, others) = values.split_at_mut(len_a);
        for coset in others.chunks_exact_mut(len_a) {
            coset.copy_from_slice(first);
        }
    }
    for (c, coset) in values.chunks_exact_mut(len_a).enumerate() {
        forward_rec(k, coset, (c * len_a) as u64, ra);
    }

    // The shorter one: converted once, transformed coset by coset (a copy
    // for all but the last), multiplied in.
    let len_b = 1usize << rb;
    let (b_novel, b_copy) = rest.split_at_mut(len_b);
    spread(b_novel, b);
    to_novel_rec(k, b_novel, rb);
    let cosets = 1usize << (r - rb);
    for (c, target) in values.chunks_exact_mut(len_b).enumerate() {
        let pos = (c * len_b) as u64;
        if c + 1 < cosets {
            let copy = &mut b_copy[..len_b];
            copy.copy_from_slice(b_novel);
            forward_rec(k, copy, pos, rb);
            k.pointwise(target, copy);
        } else {
            forward_rec(k, b_novel, pos, rb);
            k.pointwise(target, b_novel);
        }
    }

    inverse_rec(k, values, 0, r);
    from_novel_rec(k, values, r);
    overlap_add(out, values);
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::field::*;
    use super::*;
    use crate::test_util::words;
    use std::vec::Vec;

    fn mul(a: u64, b: u64) -> u64 {
        gf64_mul_const(a, b)
    }

    /// `s_i(x)` by its definition, the product over the subspace.
    fn subspace_poly_at(i: u32, x: u64) -> u64 {
        (0..1u64 << i).fold(1, |acc, w| mul(acc, x ^ span(w)))
    }

    #[test]
    fn cantor_basis_relation() {
        assert_eq!(CANTOR[0], 1);
        for i in 1..64 {
            assert_eq!(mul(CANTOR[i], CANTOR[i]) ^ CANTOR[i], CANTOR[i - 1], "β{i}");
        }
        // Linearly independent: the span of all 64 has full rank.
        let mut rows = CANTOR;
        let mut rank = 0;
        for bit in 0..64 {
            if let Some(p) = (rank..64).find(|&p| (rows[p] >> bit) & 1 == 1) {
                rows.swap(rank, p);
                let r = rows[rank];
                for (q, row) in rows.iter_mut().enumerate() {
                    if q != rank && (*row >> bit) & 1 == 1 {
                        *row ^= r;
                    }
                }
                rank += 1;
            }
        }
        assert_eq!(rank, 64);
    }

    #[test]
    fn field_reduction_matches_definition() {
        let mut s = 0xf00d;
        for _ in 0..200 {
            let (a, b) = (words(&mut s, 1)[0], words(&mut s, 1)[0]);
            // Reduce bit by bit from the top.
            let mut p = clmul_const(a, b);
            for bit in (64..128).rev() {
                if (p >> bit) & 1 == 1 {
                    p ^= (u128::from(FIELD_LOW) | 1 << 64) << (bit - 64);
                }
            }
            assert_eq!(mul(a, b), p as u64);
            // The portable backend's product.
            assert_eq!(portable::mul_portable(a, b), p as u64);
        }
        // x^64 = x^4 + x^3 + x + 1.
        assert_eq!(mul(1 << 63, 2), FIELD_LOW);
    }

    #[test]
    fn subspace_polynomials() {
        for i in 0..6u32 {
            for j in 0..10u32 {
                let v = subspace_poly_at(i, CANTOR[j as usize]);
                let want = if j < i { 0 } else { CANTOR[(j - i) as usize] };
                assert_eq!(v, want, "s_{i}(β_{j})");
            }
            // Twiddles: s_i(span(q)) = span(q >> i).
            for q in [0u64, 1, 5, 77, 1000, 12345] {
                assert_eq!(
                    subspace_poly_at(i, span(q)),
                    span(q >> i),
                    "s_{i}(span({q}))"
                );
            }
            // s_i has the terms x^(2^j), j a submask of i: check at points.
            for x in [0x1234_5678_9abc_def1u64, 3, CANTOR[40]] {
                assert_eq!(subspace_poly_at(i, x), subspace_poly_terms(i, x), "s_{i}");
            }
        }
    }

    /// `s_i(x)` by its terms `x^(2^j)`, `j` a submask of `i` (checked
    /// against the definition in `subspace_polynomials`).
    fn subspace_poly_terms(i: u32, x: u64) -> u64 {
        let mut acc = 0;
        let mut p = x; // x^(2^j)
        for j in 0..=i {
            if j & i == j {
                acc ^= p;
            }
            p = mul(p, p);
        }
        acc
    }

    /// `f(x)` for coefficients `c` in the novel basis: `X_k` built up one
    /// factor at a time, `X_k = X_(k without its low bit)·s_low(x)`.
    fn eval_novel(c: &[u64], x: u64) -> u64 {
        let s: Vec<u64> = (0..usize::BITS)
            .map(|i| subspace_poly_terms(i, x))
            .collect();
        let mut xk = Vec::with_capacity(c.len());
        let mut acc = 0;
        for (k, &ck) in c.iter().enumerate() {
            let v = if k == 0 {
                1
            } else {
                mul(xk[k & (k - 1)], s[k.trailing_zeros() as usize])
            };
            xk.push(v);
            acc ^= mul(ck, v);
        }
        acc
    }

    fn eval_monomial(c: &[u64], x: u64) -> u64 {
        c.iter().rev().fold(0, |acc, &ck| mul(acc, x) ^ ck)
    }

    fn for_each_kernel(mut f: impl FnMut(&str, &dyn Fn(&mut dyn FnMut(&dyn KernelDyn)))) {
        f("portable", &|g| g(&portable::PortableFft));
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Clmul::get() {
            f("clmul", &|g| g(&clmul::ClmulFft(t)));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx512Clmul::get() {
            f("vpclmul", &|g| g(&vpclmul::ZmmFft(t)));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::cpu::Avx2Clmul::get() {
            f("ymm", &|g| g(&ymm::YmmFft(t)));
        }
    }

    /// Object-safe view of a kernel for the tests.
    trait KernelDyn {
        fn fwd(&self, data: &mut [u64], pos: u64, m: u32);
        fn inv(&self, data: &mut [u64], pos: u64, m: u32);
        fn conv(&self, data: &mut [u64], m: u32);
        fn unconv(&self, data: &mut [u64], m: u32);
        fn pw(&self, a: &mut [u64], b: &[u64]);
    }

    impl<K: FftKernel> KernelDyn for K {
        fn fwd(&self, data: &mut [u64], pos: u64, m: u32) {
            forward_rec(*self, data, pos, m);
        }
        fn inv(&self, data: &mut [u64], pos: u64, m: u32) {
            inverse_rec(*self, data, pos, m);
        }
        fn conv(&self, data: &mut [u64], m: u32) {
            to_novel_rec(*self, data, m);
        }
        fn unconv(&self, data: &mut [u64], m: u32) {
            from_novel_rec(*self, data, m);
        }
        fn pw(&self, a: &mut [u64], b: &[u64]) {
            self.pointwise(a, b);
        }
    }

    #[test]
    fn conversion_matches_evaluation_and_round_trips() {
        let mut s = 0xc0ffee;
        for_each_kernel(|name, with| {
            with(&mut |k| {
                for m in 1..=7u32 {
                    let f = words(&mut s, 1 << m);
                    let mut g = f.clone();
                    k.conv(&mut g, m);
                    for x in [0u64, 1, 2, 0xdead_beef, CANTOR[9], 0x8000_0000_0000_0001] {
                        assert_eq!(eval_novel(&g, x), eval_monomial(&f, x), "{name} m={m}");
                    }
                    k.unconv(&mut g, m);
                    assert_eq!(g, f, "{name} round trip m={m}");
                }
                // Large: several levels above the leaf.
                let m = CONV_LEAF_LOG + 2;
                let f = words(&mut s, 1 << m);
                let mut g = f.clone();
                k.conv(&mut g, m);
                let mut h = f.clone();
                for part in h.chunks_exact_mut(1 << m) {
                    for kk in (0..m).rev() {
                        for block in part.chunks_exact_mut(2 << kk) {
                            levels::divide_by_subspace(block, kk);
                        }
                    }
                }
                assert_eq!(g, h, "{name} large conversion");
                k.unconv(&mut g, m);
                assert!(g == f, "{name} large round trip");
            });
        });
    }

    #[test]
    fn transform_matches_direct_evaluation() {
        let mut s = 0xfeed;
        for_each_kernel(|name, with| {
            with(&mut |k| {
                for m in MIN_LOG..=7u32 {
                    for pos in [0u64, 1 << m, 5 << m] {
                        let c = words(&mut s, 1 << m);
                        let mut v = c.clone();
                        k.fwd(&mut v, pos, m);
                        for (u, &vu) in v.iter().enumerate() {
                            let x = span(pos + u as u64);
                            assert_eq!(vu, eval_novel(&c, x), "{name} m={m} pos={pos} u={u}");
                        }
                        k.inv(&mut v, pos, m);
                        assert_eq!(v, c, "{name} inverse m={m}");
                    }
                }
            });
        });
    }

    #[test]
    fn large_transforms_agree_and_invert() {
        let mut s = 0xbead;
        let m = LEAF_LOG + 4;
        let c = words(&mut s, 1 << m);
        let pos = 3u64 << m;
        let mut want = c.clone();
        forward_rec(portable::PortableFft, &mut want, pos, m);
        // Spot values against the definition.
        for u in [0usize, 1, 17, 1000, (1 << m) - 1] {
            assert_eq!(want[u], eval_novel(&c, span(pos + u as u64)), "u={u}");
        }
        for_each_kernel(|name, with| {
            with(&mut |k| {
                let mut v = c.clone();
                k.fwd(&mut v, pos, m);
                assert!(v == want, "{name} forward");
                k.inv(&mut v, pos, m);
                assert!(v == c, "{name} inverse");
                let b = words(&mut s, 1 << m);
                let mut p = c.clone();
                k.pw(&mut p, &b);
                for i in 0..p.len() {
                    assert_eq!(p[i], mul(c[i], b[i]), "{name} pointwise");
                }
            });
        });
    }

    #[test]
    fn scratch_len_covers_sizes() {
        for (na, nb) in [
            (1, 1),
            (3, 1),
            (8, 8),
            (9, 7),
            (1000, 3),
            (4096, 4096),
            (4097, 4097),
            (8192, 8192),
            (16_000, 500),
        ] {
            let (r, ra, rb) = sizes(na, nb);
            assert!(1usize << r >= 2 * (na + nb));
            assert!(ra <= r && rb <= r);
            assert!(scratch_len(na, nb) <= (2usize << r) + (1 << (r - 1)));
            assert!(scratch_len(na, nb) < 20 * (na + nb) + 32);
        }
    }
}
