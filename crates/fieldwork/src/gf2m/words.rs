//! Word-level building blocks shared by every backend and by the
//! compile-time constants of the fixed fields: reduction modulo a sparse
//! polynomial, bit spreading and gathering, and the constants derived from
//! a modulus (the trace-one positions, √x). Plain Rust, constant time for
//! given (public) sizes and moduli.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// const-generic word counts over fixed-size arrays (the fixed fields' reduction and constants).
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use crate::gf2x::{InlineFixed, spread32};

/// Reduces the product `c` (2W words, degree < 2m − 1) modulo the sparse
/// polynomial f = x^m + Σ x^k, `terms` = the k (all < m − 64, with 0).
///
/// Word-level shift-and-add reduction (Hankerson, Menezes and Vanstone,
/// *Guide to Elliptic Curve Cryptography*, Algorithms 2.41–2.45, written
/// once for any such f): each word above bit m, from the top down, is
/// removed and added back as `word · x^(64i − m) · (f − x^m)`, two shifted
/// XORs per term; then the bits of the partial top word at or above m.
/// With constant `m` and `terms` the loops unroll into the per-modulus
/// shift sequence of the book.
#[inline(always)]
pub(crate) const fn reduce_sparse<const W: usize, const W2: usize>(
    mut c: [u64; W2],
    m: usize,
    terms: &[usize],
) -> [u64; W] {
    fold_sparse(&mut c, m, terms);
    let mut out = [0u64; W];
    let mut k = 0;
    while k < W {
        out[k] = c[k];
        k += 1;
    }
    out
}

/// The fold of [`reduce_sparse`] in place on any number of words: the
/// words from ⌈m/64⌉ on are cleared and the result is in the words below
/// (the run-time fields' sparse reduction too).
#[inline(always)]
pub(crate) const fn fold_sparse(c: &mut [u64], m: usize, terms: &[usize]) {
    let top = m / 64;
    let r = m % 64;
    let mut i = c.len() - 1;
    while i > top {
        let t = c[i];
        c[i] = 0;
        let mut j = 0;
        while j < terms.len() {
            let pos = 64 * i - m + terms[j];
            let (w, s) = (pos / 64, pos % 64);
            c[w] ^= t << s;
            if s != 0 {
                c[w + 1] ^= t >> (64 - s);
            }
            j += 1;
        }
        i -= 1;
    }
    if top < c.len() {
        let t = c[top] >> r;
        c[top] ^= t << r;
        let mut j = 0;
        while j < terms.len() {
            let (w, s) = (terms[j] / 64, terms[j] % 64);
            c[w] ^= t << s;
            if s != 0 && w + 1 < c.len() {
                c[w + 1] ^= t >> (64 - s);
            }
            j += 1;
        }
    }
}

/// [`reduce_sparse`] on a backend's digits (general registers, or xmm
/// lanes for PCLMULQDQ, so a product is reduced where it was computed).
#[inline(always)]
pub(crate) fn reduce_limbs<K: InlineFixed, const W: usize, const W2: usize>(
    k: K,
    mut c: [K::Limb; W2],
    m: usize,
    terms: &[usize],
) -> [K::Limb; W] {
    let top = m / 64;
    let r = (m % 64) as u32;
    // With m a multiple of 64, word m/64 is a whole word to fold.
    let first = if r == 0 { top } else { top + 1 };
    for i in (first..W2).rev() {
        let t = c[i];
        for &term in terms {
            let pos = 64 * i - m + term;
            let (w, s) = (pos / 64, (pos % 64) as u32);
            if s == 0 {
                c[w] ^= t;
            } else {
                c[w] ^= k.shl(t, s);
                c[w + 1] ^= k.shr(t, 64 - s);
            }
        }
        // Word i is dropped below (only words < W are kept), and later
        // folds never read it: they write below i only.
    }
    if top < W && r != 0 {
        let t = k.shr(c[top], r);
        // Clear bits r.. of the top word: XOR back t << r.
        c[top] ^= k.shl(t, r);
        for &term in terms {
            let (w, s) = (term / 64, (term % 64) as u32);
            if s == 0 {
                c[w] ^= t;
            } else {
                c[w] ^= k.shl(t, s);
                if w + 1 < W {
                    c[w + 1] ^= k.shr(t, 64 - s);
                }
            }
        }
    }
    // A copy, not `array::from_fn`: its closure is compiled without the
    // caller's target features (ymm digits would leave their registers).
    let mut out = [c[0]; W];
    out.copy_from_slice(&c[..W]);
    out
}

/// The even-indexed bits of `x` packed into 32 bits (bit 2i to bit i): the
/// inverse of [`spread32`] on its image.
#[inline(always)]
pub(crate) const fn gather_even(x: u64) -> u32 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | (x >> 4)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
    x = (x | (x >> 16)) & 0x0000_0000_ffff_ffff;
    x as u32
}

/// The square of `a` before reduction, by bit spreading.
#[inline(always)]
pub(crate) const fn spread<const W: usize, const W2: usize>(a: &[u64; W]) -> [u64; W2] {
    let mut c = [0u64; W2];
    let mut i = 0;
    while i < W {
        c[2 * i] = spread32(a[i] as u32);
        c[2 * i + 1] = spread32((a[i] >> 32) as u32);
        i += 1;
    }
    c
}

/// The even- and odd-indexed coefficients of `a` as two polynomials:
/// `a = e(x²) + x·o(x²)`. Each has degree < ⌈m/2⌉.
#[inline(always)]
pub(crate) const fn split_even_odd<const W: usize>(a: &[u64; W]) -> ([u64; W], [u64; W]) {
    let mut e = [0u64; W];
    let mut o = [0u64; W];
    let mut i = 0;
    while i < W {
        let (we, wo) = (gather_even(a[i]) as u64, gather_even(a[i] >> 1) as u64);
        // Word i holds coefficients 64i … 64i + 63: its halves land at bit
        // 32i of the half-size polynomials.
        e[i / 2] |= we << (32 * (i % 2));
        o[i / 2] |= wo << (32 * (i % 2));
        i += 1;
    }
    (e, o)
}

/// `a² mod f` in a `const` context (for the constants below).
const fn square_const<const W: usize, const W2: usize>(
    a: &[u64; W],
    m: usize,
    terms: &[usize],
) -> [u64; W] {
    reduce_sparse::<W, W2>(spread::<W, W2>(a), m, terms)
}

/// √x = x^(2^(m−1)) mod f: m − 1 squarings, at compile time.
pub(crate) const fn sqrt_x<const W: usize, const W2: usize>(m: usize, terms: &[usize]) -> [u64; W] {
    let mut a = [0u64; W];
    a[0] = 2;
    let mut i = 1;
    while i < m {
        a = square_const::<W, W2>(&a, m, terms);
        i += 1;
    }
    a
}

/// The positions i < m with Tr(x^i) = 1, as a mask: Tr(a) is the parity of
/// `a & mask`. The power sums s_k = Tr(x^k) = Σ of the k-th powers of f's
/// roots satisfy Newton's identities, over GF(2):
/// s_k = Σ_{j=1}^{k−1} c_j·s_{k−j} + k·c_k with f = x^m + Σ c_j x^(m−j),
/// and s_0 = m mod 2: O(m · terms) work.
pub(crate) const fn trace_mask<const W: usize>(m: usize, terms: &[usize]) -> [u64; W] {
    let mut mask = [0u64; W];
    if m % 2 == 1 {
        mask[0] = 1;
    }
    let mut k = 1;
    while k < m {
        let mut s = 0u64;
        let mut t = 0;
        while t < terms.len() {
            // c_j = 1 for j = m − terms[t].
            let j = m - terms[t];
            if j < k {
                s ^= (mask[(k - j) / 64] >> ((k - j) % 64)) & 1;
            } else if j == k && k % 2 == 1 {
                s ^= 1;
            }
            t += 1;
        }
        mask[k / 64] |= s << (k % 64);
        k += 1;
    }
    mask
}

/// The mask of the valid bits of a W-word element of degree < m.
pub(crate) const fn top_mask(m: usize) -> u64 {
    if m.is_multiple_of(64) {
        u64::MAX
    } else {
        (1u64 << (m % 64)) - 1
    }
}

/// The most Frobenius tables a fixed field keeps.
#[cfg(feature = "std")]
pub(crate) const TABLE_SLOTS: usize = 4;

/// The multi-squaring steps k of the Itoh–Tsujii chain for m − 1 (see
/// `algorithms::invert`) worth a precomputed linear map: those with
/// k ≥ m/[`TABLE_DIV`], the largest [`TABLE_SLOTS`] (four at each of
/// the NIST degrees), 0 for unused slots.
#[cfg(feature = "std")]
pub(crate) const fn table_steps(m: usize) -> [usize; TABLE_SLOTS] {
    let n = m - 1;
    let min = m / TABLE_DIV;
    let mut steps = [0usize; TABLE_SLOTS];
    let bits = usize::BITS - n.leading_zeros();
    let mut k = 1;
    let mut i = bits - 1;
    while i > 0 {
        i -= 1;
        if k >= min {
            // Keep the largest: shift the list down.
            let mut j = 0;
            while j + 1 < TABLE_SLOTS {
                steps[j] = steps[j + 1];
                j += 1;
            }
            steps[TABLE_SLOTS - 1] = k;
        }
        k *= 2;
        if (n >> i) & 1 == 1 {
            k += 1;
        }
    }
    steps
}

/// Tables for the steps k ≥ m/20: applying a map costs about as much as
/// 5 (m = 163) to 20 (m = 571) squarings on the AVX2 kernels
/// (`maps::MapKernel`). m/20 is tuned on Zen 3 (AMD EPYC, family 25
/// model 1; `fieldwork speed --filter invert`, the best of m/12 … m/40 at
/// every NIST m); the figures are in `docs/notes/gf2m-maps.md`. The
/// field keeps these tables; a backend takes them from its own
/// `Divstep::table_from` on (m/12 on the carry-less backends).
pub(crate) const TABLE_DIV: usize = 20;
