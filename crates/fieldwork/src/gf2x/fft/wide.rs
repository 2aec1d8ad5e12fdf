//! Target features: none of its own — the additive FFT's vector passes
//! written once over the register width ([`Wide`]): the fused butterfly
//! passes of up to three levels (radix 8), their twiddles, the pointwise
//! product and the pass schedule. `vpclmul.rs` (zmm, eight values a
//! register, three bottom levels) and `ymm.rs` (ymm, four values, two)
//! supply the register's field product, loads and stores, and the bottom
//! levels, whose shuffles differ by width. Every function is
//! `#[inline(always)]`, so each backend's `#[target_feature]` entry point
//! compiles the whole pass with its instructions (the generic code adds no
//! call and no instruction: the zmm and ymm entry points compile as they did
//! when each width had its own copy).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::field::span;
use super::levels::{self, FieldMul};

/// A vector register of field values, as the passes use it. Implemented by
/// a type holding the capability token that proves the instructions, so
/// the register operations are safe to call; they are `#[inline(always)]`
/// and reach their instructions only inside the backend's
/// `#[target_feature]` entry points.
pub(crate) trait Wide: Copy {
    /// A register of [`Wide::WORDS`] values.
    type V: Copy;
    /// Values a register holds: 8 (zmm) or 4 (ymm).
    const WORDS: usize;
    /// The levels [`Wide::bottom`] does: those whose halves are shorter
    /// than a register (3 on zmm, 2 on ymm).
    const BOTTOM: u32;
    /// The zero register.
    fn zero(self) -> Self::V;
    /// `x` in every value.
    fn splat(self, x: u64) -> Self::V;
    /// `a + b`.
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a + b + c`.
    fn xor3(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `x[i]·t[i]` in `F` for every value (written once, for both widths,
    /// by [`register_ops!`]).
    fn mul(self, x: Self::V, t: Self::V) -> Self::V;
    /// The register at `p`.
    ///
    /// # Safety
    ///
    /// `p` points to [`Wide::WORDS`] readable words.
    unsafe fn load(self, p: *const u64) -> Self::V;
    /// Stores `v` at `p`.
    ///
    /// # Safety
    ///
    /// `p` points to [`Wide::WORDS`] writable words.
    unsafe fn store(self, p: *mut u64, v: Self::V);
    /// Forward levels `BOTTOM − 1` down to 0 on each `2^(BOTTOM+1)` values of
    /// `data`, or with `INVERSE` the inverse levels 0 up to `BOTTOM − 1`;
    /// `data.len()` a multiple of `2^(BOTTOM+1)` and `pos` a multiple of
    /// `data.len()`.
    fn bottom<const INVERSE: bool>(self, data: &mut [u64], pos: u64);
    /// The scalar field product on the same token, for the shapes the
    /// vector passes do not cover.
    fn scalar(self) -> impl FieldMul;
}

/// [`Wide`]'s register operations for the register type `$v`, one
/// intrinsic each, and the field product [`Wide::mul`] from them and the
/// implementation's `xor3` (the `Wide` type holds the token that proves
/// the instructions).
macro_rules! register_ops {
    ($v:ty: zero $zero:path, splat $splat:path, xor $xor:path,
     load $load:path, store $store:path, clmul $clmul:ident,
     unpack $unpack_lo:ident, $unpack_hi:ident, shift $shl:ident, $shr:ident) => {
        type V = $v;

        /// The products of the even values (immediate `0x00`) and of the
        /// odd ones (`0x11`), 128 bits each; their low words `L` and high
        /// words `H` gathered in natural order (in-lane unpacks); and the
        /// reduction of `field::reduce`, two right shifts, three left
        /// shifts and three three-way XORs:
        ///
        /// ```text
        /// U = H ^ H>>61 ^ H>>60;   x·t = L ^ U ^ U<<1 ^ U<<3 ^ U<<4
        /// ```
        #[inline(always)]
        fn mul(self, x: $v, t: $v) -> $v {
            // SAFETY: the token in `self` proves the instructions; no memory access.
            unsafe {
                let even = $clmul::<0x00>(x, t);
                let odd = $clmul::<0x11>(x, t);
                let l = $unpack_lo(even, odd);
                let h = $unpack_hi(even, odd);
                let u = self.xor3(h, $shr::<61>(h), $shr::<60>(h));
                let r = self.xor3(l, u, $shl::<1>(u));
                self.xor3(r, $shl::<3>(u), $shl::<4>(u))
            }
        }

        #[inline(always)]
        fn zero(self) -> $v {
            // SAFETY: the token in `self` proves the instructions; no memory access.
            unsafe { $zero() }
        }

        #[inline(always)]
        fn splat(self, x: u64) -> $v {
            // SAFETY: the token in `self` proves the instructions; no memory access.
            unsafe { $splat(x as i64) }
        }

        #[inline(always)]
        fn xor(self, a: $v, b: $v) -> $v {
            // SAFETY: the token in `self` proves the instructions; no memory access.
            unsafe { $xor(a, b) }
        }

        #[inline(always)]
        unsafe fn load(self, p: *const u64) -> $v {
            // SAFETY: the token in `self` proves the instructions; the
            // caller guarantees a register's readable words at `p`.
            unsafe { $load(p.cast()) }
        }

        #[inline(always)]
        unsafe fn store(self, p: *mut u64, v: $v) {
            // SAFETY: the token in `self` proves the instructions; the
            // caller guarantees a register's writable words at `p`.
            unsafe { $store(p.cast(), v) }
        }
    };
}
pub(crate) use register_ops;

/// Forward butterflies on a register of pairs: `(d0 + t·d1, d1 + d0 + t·d1)`.
#[inline(always)]
pub(crate) fn butterfly<W: Wide>(w: W, d0: W::V, d1: W::V, t: W::V) -> (W::V, W::V) {
    let d0 = w.xor(d0, w.mul(d1, t));
    (d0, w.xor(d1, d0))
}

/// Inverse butterflies on a register of pairs.
#[inline(always)]
pub(crate) fn inverse_butterfly<W: Wide>(w: W, d0: W::V, d1: W::V, t: W::V) -> (W::V, W::V) {
    let d1 = w.xor(d1, d0);
    (w.xor(d0, w.mul(d1, t)), d1)
}

/// The `2^G − 1` broadcast twiddles of one block of `2^(top+1)` values at
/// point index `q`: level `top − g` for `g < G`, sub-block `s < 2^g` at index
/// `2^g − 1 + s`.
#[inline(always)]
fn block_twiddles<W: Wide, const G: usize>(w: W, q: u64, top: u32) -> [W::V; 7] {
    let block = 2u64 << top;
    let mut tw = [w.zero(); 7];
    for g in 0..G {
        for s in 0..(1usize << g) {
            let start = q + s as u64 * (block >> g);
            tw[(1 << g) - 1 + s] = w.splat(span(start >> (top - g as u32)));
        }
    }
    tw
}

/// `G` fused levels `top, …, top − G + 1` (all at least `BOTTOM`) on every
/// block of `data`: forward butterflies from the top level down, or with
/// `INVERSE` the inverse butterflies from the lowest level up. `top + 1 ≥
/// G + BOTTOM`, so the lowest level's half is a multiple of a register.
#[inline(always)]
fn radix<W: Wide, const G: usize, const INVERSE: bool>(w: W, data: &mut [u64], pos: u64, top: u32) {
    let block = 2usize << top;
    let h = block >> G; // the lowest level's half: a multiple of `W::WORDS`
    let n = 1usize << G;
    debug_assert!(h >= W::WORDS && data.len().is_multiple_of(block));
    for (bi, blk) in data.chunks_exact_mut(block).enumerate() {
        let tw = block_twiddles::<W, G>(w, pos + (bi * block) as u64, top);
        let p = blk.as_mut_ptr();
        let mut col = 0;
        while col < h {
            let mut x = [w.zero(); 8];
            // SAFETY: the accesses are at `m·h + col .. + W::WORDS` with
            // `m < n`, `col + W::WORDS ≤ h`: inside the block of `n·h` words.
            unsafe {
                for (m, v) in x.iter_mut().enumerate().take(n) {
                    *v = w.load(p.add(m * h + col));
                }
            }
            for step in 0..G {
                let g = if INVERSE { G - 1 - step } else { step };
                let stride = n >> (g + 1);
                for s in 0..(1usize << g) {
                    let t = tw[(1 << g) - 1 + s];
                    for m in 2 * s * stride..2 * s * stride + stride {
                        (x[m], x[m + stride]) = if INVERSE {
                            inverse_butterfly(w, x[m], x[m + stride], t)
                        } else {
                            butterfly(w, x[m], x[m + stride], t)
                        };
                    }
                }
            }
            // SAFETY: as the loads.
            unsafe {
                for (m, v) in x.iter().enumerate().take(n) {
                    w.store(p.add(m * h + col), *v);
                }
            }
            col += W::WORDS;
        }
    }
}

/// Whether the vector passes cover the shape: at least one bottom block of
/// values, and a range of levels that does not end inside the bottom ones
/// (otherwise the scalar code runs).
#[inline(always)]
fn vector_shape<W: Wide>(data: &[u64], pos: u64, hi: u32, lo: u32) -> bool {
    data.len() >= 2 << W::BOTTOM
        && hi >= W::BOTTOM
        && (lo == 0 || lo >= W::BOTTOM)
        && data.len().is_power_of_two()
        && pos.is_multiple_of(data.len() as u64)
}

/// Forward butterflies of levels `hi` down to `lo` (see
/// `FftKernel::forward`): radix-8 passes down to the bottom levels, then
/// the bottom pass.
#[inline(always)]
pub(crate) fn forward<W: Wide>(w: W, data: &mut [u64], pos: u64, hi: u32, lo: u32) {
    if !vector_shape::<W>(data, pos, hi, lo) {
        levels::forward(w.scalar(), data, pos, hi, lo);
        return;
    }
    let stop = lo.max(W::BOTTOM);
    let mut level = hi;
    while level >= stop {
        match level - stop + 1 {
            1 => radix::<W, 1, false>(w, data, pos, level),
            2 => radix::<W, 2, false>(w, data, pos, level),
            _ => radix::<W, 3, false>(w, data, pos, level),
        }
        let done = (level - stop + 1).min(3);
        if level < stop + done {
            break;
        }
        level -= done;
    }
    if lo == 0 {
        w.bottom::<false>(data, pos);
    }
}

/// Inverse butterflies of levels `lo` up to `hi`.
#[inline(always)]
pub(crate) fn inverse<W: Wide>(w: W, data: &mut [u64], pos: u64, lo: u32, hi: u32) {
    if !vector_shape::<W>(data, pos, hi, lo) {
        levels::inverse(w.scalar(), data, pos, lo, hi);
        return;
    }
    if lo == 0 {
        w.bottom::<true>(data, pos);
    }
    let mut level = lo.max(W::BOTTOM);
    while level <= hi {
        let g = (hi - level + 1).min(3);
        let top = level + g - 1;
        match g {
            1 => radix::<W, 1, true>(w, data, pos, top),
            2 => radix::<W, 2, true>(w, data, pos, top),
            _ => radix::<W, 3, true>(w, data, pos, top),
        }
        level += g;
    }
}

/// `a[i] = a[i]·b[i]`: a register at a time, the tail scalar.
#[inline(always)]
pub(crate) fn pointwise<W: Wide>(w: W, a: &mut [u64], b: &[u64]) {
    let n = a.len().min(b.len());
    let full = n - n % W::WORDS;
    let (a_vec, a_tail) = a[..n].split_at_mut(full);
    let (b_vec, b_tail) = b[..n].split_at(full);
    for (x, y) in a_vec
        .chunks_exact_mut(W::WORDS)
        .zip(b_vec.chunks_exact(W::WORDS))
    {
        // SAFETY: both chunks are `W::WORDS` words.
        unsafe {
            let p = w.mul(w.load(x.as_ptr()), w.load(y.as_ptr()));
            w.store(x.as_mut_ptr(), p);
        }
    }
    levels::pointwise(w.scalar(), a_tail, b_tail);
}
