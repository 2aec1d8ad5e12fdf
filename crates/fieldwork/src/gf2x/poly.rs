//! [`Gf2Poly`]: owned binary polynomials of any size and their algebra —
//! division with remainder, gcd, modular inverse and powers, irreducibility.
//!
//! This is the variable-size algebra type, **not constant time**: loop counts
//! and branches depend on degrees and on coefficients. Do not use it on
//! secret values; the fixed-size field types are for that.
//!
//! # Representation
//!
//! A `Vec<u64>`, word 0 lowest, bit `i` of word `j` the coefficient of
//! x^(64j+i) (the layout of gf2x and NTL), kept *normalised*: no trailing
//! zero words, so the zero polynomial has no words and equal polynomials have
//! equal vectors (`Eq` and `Hash` are derived).
//!
//! # Division
//!
//! Let `d` have degree m and `a` degree n ≥ m, with quotient q of degree
//! n − m. Write rev_k(p) = x^k·p(1/x). Then (von zur Gathen & Gerhard,
//! *Modern Computer Algebra*, 3rd ed., section 9.1, Algorithm 9.5)
//!
//! ```text
//! rev_{n−m}(q) = rev_n(a) · rev_m(d)⁻¹  mod x^(n−m+1),
//! ```
//!
//! and rev_m(d) is invertible as a power series because its constant term is
//! the leading coefficient of d, which is 1. Truncating the identity shows
//! that the top L coefficients of q depend only on the top L coefficients of
//! a and of d, through the inverse of rev_m(d) modulo x^L. So the quotient is
//! produced in blocks of `w` words, top block first: the block of quotient
//! words `s .. s+w` is
//!
//! ```text
//! rev(block) = rev(r[64s+m .. 64(s+w)+m]) · g  mod x^(64w),   g = rev_m(d)⁻¹ mod x^(64w),
//! ```
//!
//! after which `block·d·x^(64s)` is subtracted from the running remainder r.
//! Every block boundary is a word boundary of q, so the subtraction is an
//! aligned word-wise XOR with no shifting. g is computed once per division
//! by Newton iteration with precision doubling (MCA Algorithm 9.3); over
//! GF(2) the step g ← 2g − f·g² is just g ← f·g² mod x^(2l), one
//! multiplication and a linear-time square per doubling.
//!
//! - **w = 1** (schoolbook): each quotient word costs one 64×64 carry-less
//!   product for the block (Barrett's reduction one word at a time: P.
//!   Barrett, CRYPTO '86) and one per divisor word for the subtraction:
//!   about (n − m)·m / 4096 word products, the cost of a schoolbook product,
//!   with no bit-at-a-time loop.
//! - **w > 1** (Newton–Barrett blocks): each block costs a w×w and a w×m
//!   product through the Karatsuba `mul_into_with_scratch`. With w equal to
//!   the whole quotient this is the classical Newton division (MCA
//!   Algorithm 9.5): a few products instead of a quadratic loop.
//!
//! # Choosing the block width
//!
//! Chosen by timing the division with each width forced
//! (`checked_divrem_with_block`, a test-only method) and shape (quotient
//! words qn, divisor words dn) on the PCLMULQDQ backend of an Intel Xeon
//! (family 6 model 207):
//!
//! - w = 1 wins while the work is small: below dn = 16, below qn = 4, or
//!   below qn·dn ≈ 1024, where the fixed cost of the inverse and the block
//!   buffers (about 0.3 µs) is not repaid.
//! - Above, the best width grows with the divisor, about dn/4, and powers of
//!   two (the sizes the fixed kernels and Karatsuba halve cleanly) beat their
//!   neighbours: 8 words up to dn = 63, then 16, 32, … . A block the size of
//!   the whole quotient is never best, because `mul_into` computes full
//!   products where Newton division needs only half of some (at 2048 × 2048
//!   words, 512-word blocks beat one 2048-word block clearly).
//!
//! So w = 1 when dn < 16, qn < 4 or qn·dn < 1024, and otherwise w is the
//! largest power of two ≤ max(dn/4, 8), at most qn. Times with that rule
//! against the two extremes:
//!
//! | qn × dn words | w = 1 | one block (w = min(qn, dn)) | chosen w |
//! |---|---|---|---|
//! | 64 × 16 | 2.6 µs | 2.5 µs | 2.3 µs |
//! | 64 × 64 | 8.4 µs | 6.8 µs | 4.2 µs |
//! | 128 × 128 | 33 µs | 16 µs | 11 µs |
//! | 512 × 512 | 0.50 ms | 0.13 ms | 0.090 ms |
//! | 2048 × 2048 | 7.7 ms | 1.1 ms | 0.77 ms |
//! | 2048 × 64 | 0.26 ms | 0.098 ms | 0.095 ms |
//! | 64 × 2048 | 0.25 ms | 0.050 ms | 0.045 ms |
//!
//! Every product here goes through `mul_into_with_scratch` with one scratch
//! vector per division: plain `mul_into` clears an 8 KiB stack buffer on
//! every call, which alone cost more than a small division's arithmetic.
//!
//! # Gcd, inverse, irreducibility
//!
//! [`Gf2Poly::gcd`] and [`Gf2Poly::xgcd`] are Euclid's algorithm with the
//! division above (quadratic in the degree; no half-gcd). Irreducibility is
//! Rabin's test (M. O. Rabin, "Probabilistic algorithms in finite fields",
//! SIAM J. Comput. 9(2), 1980): f of degree n > 0 is irreducible
//! over GF(2) if and only if x^(2^n) ≡ x (mod f) and
//! gcd(x^(2^(n/p)) − x, f) = 1 for every prime p dividing n. It costs n
//! modular squarings and ω(n) gcds. Ben-Or's test (gcd(x^(2^i) − x, f) for
//! i ≤ n/2) exits early on random inputs but costs up to n/2 gcds on
//! irreducible ones, the case that matters for choosing field moduli.
#![forbid(unsafe_code)]

use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ops::{
    Add, AddAssign, Div, DivAssign, Mul, MulAssign, Rem, RemAssign, Shl, ShlAssign, Shr, ShrAssign,
    Sub, SubAssign,
};
use core::str::FromStr;

use super::{Dispatch, mul_scratch_len};

/// Divisor words from which division uses blocks of several quotient words.
const BLOCKED_MIN_DIVISOR_WORDS: usize = 16;

/// Quotient words × divisor words from which division uses blocks of several
/// quotient words: below it the fixed cost of the inverse and the block
/// buffers (about 0.3 µs) is not repaid.
const BLOCKED_MIN_WORK: usize = 1024;

/// An owned binary polynomial: an element of GF(2)\[x\] of any degree.
///
/// Coefficients are stored as `u64` words, word 0 lowest, bit `i` of word `j`
/// the coefficient of x^(64j+i) — the layout of gf2x and NTL's `GF2X` — and
/// kept normalised (no trailing zero words), so equality and hashing compare
/// polynomials.
///
/// **Not constant time.** Running time depends on degrees and coefficients;
/// this type is for public algebra (choosing and checking moduli, reference
/// computations, tests), not for secret values.
///
/// # Operators
///
/// `+`, `-` (the same as `+` over GF(2)), `*`, `/`, `%`, and their
/// assigning forms work on owned and borrowed operands; `<<` and `>>` by a
/// `usize` multiply by x^n and drop the n lowest coefficients. `/` and `%`
/// panic when the divisor is zero, like integer division; use
/// [`Gf2Poly::checked_divrem`] to get `None` instead.
///
/// # Example
///
/// ```
/// use fieldwork::gf2x::Gf2Poly;
///
/// // The AES field polynomial (FIPS 197, section 4.2).
/// let m: Gf2Poly = "x^8 + x^4 + x^3 + x + 1".parse()?;
/// assert_eq!(m.to_hex(), "11b");
/// assert!(m.is_irreducible());
///
/// let a = Gf2Poly::from_hex("57")?;
/// let b = Gf2Poly::from_hex("83")?;
/// // {57}·{83} = {c1} in GF(2^8) (FIPS 197, section 4.2).
/// assert_eq!((&a * &b) % &m, Gf2Poly::from_hex("c1")?);
/// assert_eq!(a.to_string(), "x^6 + x^4 + x^2 + x + 1");
/// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
/// ```
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct Gf2Poly {
    words: Vec<u64>,
}

// ---------------------------------------------------------------------------
// Word-vector helpers (all on little-endian u64 words).

/// Drops trailing zero words.
fn normalise(words: &mut Vec<u64>) {
    while words.last() == Some(&0) {
        words.pop();
    }
}

/// The degree of a normalised word vector; `None` when it is empty (zero).
fn degree_of(words: &[u64]) -> Option<usize> {
    words
        .last()
        .map(|&top| 64 * (words.len() - 1) + 63 - top.leading_zeros() as usize)
}

/// The 64 coefficients at positions `pos .. pos+64` as a word (bit 0 =
/// coefficient of x^pos); positions past the end read as zero.
#[inline]
fn word_at(words: &[u64], pos: usize) -> u64 {
    let (wi, bit) = (pos / 64, pos % 64);
    let lo = words.get(wi).copied().unwrap_or(0) >> bit;
    if bit == 0 {
        lo
    } else {
        lo | (words.get(wi + 1).copied().unwrap_or(0) << (64 - bit))
    }
}

/// `out[i]` = the coefficients at `start + 64i ..`, for each word of `out`.
fn extract_bits(words: &[u64], start: usize, out: &mut [u64]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = word_at(words, start + 64 * i);
    }
}

/// Bit reversal over `64·src.len()` bits: `out = x^(64k−1)·src(1/x)`.
fn reverse_words(src: &[u64], out: &mut [u64]) {
    debug_assert_eq!(src.len(), out.len());
    for (o, s) in out.iter_mut().zip(src.iter().rev()) {
        *o = s.reverse_bits();
    }
}

/// XORs `src` into `dst`, as far as the shorter reaches.
#[inline]
fn xor_into(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}

/// `words · x^shift`, normalised.
// `out` has `words.len() + shift/64 + 1` words: every index below it.
#[allow(clippy::indexing_slicing)]
fn shl_words(words: &[u64], shift: usize) -> Vec<u64> {
    if words.is_empty() {
        return Vec::new();
    }
    let (ws, bit) = (shift / 64, shift % 64);
    let mut out = vec![0u64; words.len() + ws + 1];
    if bit == 0 {
        out[ws..ws + words.len()].copy_from_slice(words);
    } else {
        for (i, &w) in words.iter().enumerate() {
            out[ws + i] |= w << bit;
            out[ws + i + 1] = w >> (64 - bit);
        }
    }
    normalise(&mut out);
    out
}

/// `floor(words / x^shift)`, normalised.
// `ws < words.len()`, checked on entry.
#[allow(clippy::indexing_slicing)]
fn shr_words(words: &[u64], shift: usize) -> Vec<u64> {
    let (ws, bit) = (shift / 64, shift % 64);
    if ws >= words.len() {
        return Vec::new();
    }
    let src = &words[ws..];
    let mut out: Vec<u64> = (0..src.len()).map(|i| word_at(src, 64 * i + bit)).collect();
    normalise(&mut out);
    out
}

/// The dispatched backend and a scratch buffer reused across products.
///
/// Products go through `mul_into_with_scratch`: plain `mul_into` clears an
/// 8 KiB stack buffer on every call, a fixed cost that dominated the
/// quotient blocks of small divisions when measured.
struct Multiplier {
    backend: Dispatch,
    scratch: Vec<u64>,
}

impl Multiplier {
    fn new() -> Multiplier {
        Multiplier {
            backend: Dispatch::best(),
            scratch: Vec::new(),
        }
    }

    /// The low 64 coefficients of the product of two words.
    #[inline]
    fn clmul_low(&self, a: u64, b: u64) -> u64 {
        self.backend.clmul64(a, b) as u64
    }

    /// `out = a·b`. Callers size `out` as `a.len() + b.len()` and the scratch
    /// is grown to `mul_scratch_len`, the two conditions the backend checks,
    /// so its error case does not arise.
    fn mul_into(&mut self, out: &mut [u64], a: &[u64], b: &[u64]) {
        let needed = mul_scratch_len(a.len(), b.len());
        if self.scratch.len() < needed {
            self.scratch.resize(needed, 0);
        }
        let result = self
            .backend
            .mul_into_with_scratch(out, a, b, &mut self.scratch);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    /// `a·b`, normalised.
    fn mul(&mut self, a: &[u64], b: &[u64]) -> Vec<u64> {
        if a.is_empty() || b.is_empty() {
            return Vec::new();
        }
        let mut out = vec![0u64; a.len() + b.len()];
        self.mul_into(&mut out, a, b);
        normalise(&mut out);
        out
    }

    /// `out = a²`, `out.len() == 2·a.len()`.
    fn square_into(&self, out: &mut [u64], a: &[u64]) {
        let result = self.backend.square_into(out, a);
        debug_assert!(result.is_ok(), "{result:?}");
    }

    /// `a²`, normalised.
    fn square(&self, a: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; 2 * a.len()];
        self.square_into(&mut out, a);
        normalise(&mut out);
        out
    }

    /// `a − q·b` (= a + q·b), normalised.
    fn sub_product(&mut self, a: &[u64], q: &[u64], b: &[u64]) -> Vec<u64> {
        let mut out = self.mul(q, b);
        if out.len() < a.len() {
            out.resize(a.len(), 0);
        }
        xor_into(&mut out, a);
        normalise(&mut out);
        out
    }

    /// `f⁻¹ mod x^(64·prec)` for `f[0]` odd, `f.len() ≥ prec ≥ 1`, by Newton
    /// iteration: g ← f·g² mod x^(2l) doubles the precision l (MCA
    /// Algorithm 9.3 with 2g = 0).
    // `f.len() ≥ prec ≥ 1` (debug-asserted; the divisor's own words), buffers resized to `2p ≥ p`.
    #[allow(clippy::indexing_slicing)]
    fn inverse_series(&mut self, f: &[u64], prec: usize) -> Vec<u64> {
        debug_assert!(prec >= 1 && f.len() >= prec && f[0] & 1 == 1);
        // One word: six doublings from precision 1 (g = 1) to 64.
        let mut g0 = 1u64;
        for _ in 0..6 {
            g0 = self.clmul_low(f[0], self.clmul_low(g0, g0));
        }
        let mut precisions = Vec::new();
        let mut p = prec;
        while p > 1 {
            precisions.push(p);
            p = p.div_ceil(2);
        }
        let mut g = vec![g0];
        let mut g_sq = Vec::new();
        let mut product = Vec::new();
        for &p in precisions.iter().rev() {
            g_sq.resize(2 * g.len(), 0);
            self.square_into(&mut g_sq, &g);
            product.resize(2 * p, 0);
            self.mul_into(&mut product, &f[..p], &g_sq[..p]);
            g.clear();
            g.extend_from_slice(&product[..p]);
        }
        g
    }
}

/// A non-zero divisor with the power-series inverse of its reversal
/// precomputed, for one division or many reductions by the same modulus.
struct Divisor<'a> {
    mul: Multiplier,
    /// The divisor, normalised and non-empty.
    d: &'a [u64],
    /// Its degree m.
    deg: usize,
    /// rev_m(d)⁻¹ mod x^(64·inv.len()).
    inv: Vec<u64>,
}

impl<'a> Divisor<'a> {
    /// `d` must be normalised and non-zero; `prec ≥ 1` words of inverse are
    /// computed (the widest quotient block this divisor will use).
    fn new(d: &'a [u64], prec: usize) -> Divisor<'a> {
        let mut mul = Multiplier::new();
        let deg = degree_of(d).unwrap_or(0);
        let prec = prec.max(1);
        let bits = 64 * prec;
        // rev_m(d) mod x^bits is the reversal of d's top `bits` coefficients
        // (zero-extended below x^0 when d is shorter).
        let mut top = vec![0u64; prec];
        if deg + 1 >= bits {
            extract_bits(d, deg + 1 - bits, &mut top);
        } else {
            extract_bits(&shl_words(d, bits - 1 - deg), 0, &mut top);
        }
        let mut rev = vec![0u64; prec];
        reverse_words(&top, &mut rev);
        let inv = mul.inverse_series(&rev, prec);
        Divisor { mul, d, deg, inv }
    }

    /// A divisor set up for the block width [`choose_block`] picks for a
    /// dividend of `dividend_words`.
    fn for_dividend(d: &'a [u64], dividend_words: usize) -> Divisor<'a> {
        let qn = dividend_words.saturating_sub(d.len()) + 1;
        Divisor::new(d, choose_block(qn, d.len()))
    }

    /// A divisor set up for reducing products of two reduced polynomials.
    fn for_modulus(d: &'a [u64]) -> Divisor<'a> {
        Divisor::new(d, choose_block(d.len(), d.len()))
    }

    /// `(q, r)` with `a = q·d + r`, `deg r < deg d`, both normalised,
    /// quotient blocks of at most `block` words (1 = schoolbook).
    // `r` has `qn + dn ≥ a.len()` words (the degree bound above).
    #[allow(clippy::indexing_slicing)]
    fn divrem(&mut self, a: &[u64], block: usize) -> (Vec<u64>, Vec<u64>) {
        let m = self.deg;
        let dn = self.d.len();
        let n = match degree_of(a) {
            Some(n) if n >= m => n,
            _ => {
                let mut r = a.to_vec();
                normalise(&mut r);
                return (Vec::new(), r);
            }
        };
        let qn = (n - m) / 64 + 1;
        // a has at most qn + dn words (n < 64·qn + m), and every block's
        // subtraction stays below word qn + dn.
        let mut r = vec![0u64; qn + dn];
        r[..a.len()].copy_from_slice(a);
        let mut q = vec![0u64; qn];
        let w = block.min(self.inv.len()).min(qn).max(1);
        if w == 1 {
            self.schoolbook(&mut r, &mut q);
        } else {
            self.blocked(&mut r, &mut q, w);
        }
        r.truncate(dn);
        normalise(&mut r);
        normalise(&mut q);
        (q, r)
    }

    /// Quotient words one at a time: the block is the top 64 coefficients of
    /// r times the one-word inverse, bit-reversed.
    // `s + j + 1 < qn + dn = r.len()`; `inv` has at least one word.
    #[allow(clippy::indexing_slicing)]
    fn schoolbook(&self, r: &mut [u64], q: &mut [u64]) {
        let (m, g0) = (self.deg, self.inv[0]);
        for s in (0..q.len()).rev() {
            let top = word_at(r, 64 * s + m);
            let qw = self.mul.clmul_low(top.reverse_bits(), g0).reverse_bits();
            q[s] = qw;
            if qw == 0 {
                continue;
            }
            for (j, &dw) in self.d.iter().enumerate() {
                let p = self.mul.backend.clmul64(qw, dw);
                r[s + j] ^= p as u64;
                r[s + j + 1] ^= (p >> 64) as u64;
            }
        }
    }

    /// Quotient blocks of `w ≤ inv.len()` words, top first, each with two
    /// products.
    // `bw ≤ w ≤ inv.len()`, buffers sized from `w` and `dn`, `s < hi ≤ q.len()`.
    #[allow(clippy::indexing_slicing)]
    fn blocked(&mut self, r: &mut [u64], q: &mut [u64], w: usize) {
        let (m, dn) = (self.deg, self.d.len());
        let mut window = vec![0u64; w];
        let mut window_rev = vec![0u64; w];
        let mut q_rev = vec![0u64; 2 * w];
        let mut product = vec![0u64; w + dn];
        let mut hi = q.len();
        while hi > 0 {
            let bw = w.min(hi);
            let s = hi - bw;
            extract_bits(r, 64 * s + m, &mut window[..bw]);
            reverse_words(&window[..bw], &mut window_rev[..bw]);
            self.mul
                .mul_into(&mut q_rev[..2 * bw], &window_rev[..bw], &self.inv[..bw]);
            let q_block = &mut q[s..hi];
            reverse_words(&q_rev[..bw], q_block);
            self.mul.mul_into(&mut product[..bw + dn], q_block, self.d);
            xor_into(&mut r[s..], &product[..bw + dn]);
            hi = s;
        }
    }

    /// `a mod d`.
    fn rem(&mut self, a: &[u64]) -> Vec<u64> {
        self.divrem(a, self.inv.len()).1
    }

    /// `a·b mod d`.
    fn mul_mod(&mut self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let product = self.mul.mul(a, b);
        self.rem(&product)
    }

    /// `a² mod d`.
    fn square_mod(&mut self, a: &[u64]) -> Vec<u64> {
        let square = self.mul.square(a);
        self.rem(&square)
    }
}

/// The quotient block width, in words, for `qn` quotient words and `dn`
/// divisor words (see the module docs for the measurements behind it).
fn choose_block(qn: usize, dn: usize) -> usize {
    if dn < BLOCKED_MIN_DIVISOR_WORDS || qn < 4 || qn * dn < BLOCKED_MIN_WORK {
        1
    } else {
        let target = (dn / 4).max(8);
        (1usize << target.ilog2()).min(qn)
    }
}

/// The distinct prime factors of `n ≥ 1`, by trial division.
fn distinct_prime_factors(mut n: usize) -> Vec<usize> {
    let mut primes = Vec::new();
    let mut p = 2;
    while p * p <= n {
        if n.is_multiple_of(p) {
            primes.push(p);
            while n.is_multiple_of(p) {
                n /= p;
            }
        }
        p += 1;
    }
    if n > 1 {
        primes.push(n);
    }
    primes
}

// ---------------------------------------------------------------------------
// Gf2Poly: construction and inspection.

impl Gf2Poly {
    /// The largest exponent [`FromStr`] accepts, 2^26 − 1: a string of a few
    /// bytes must not be able to ask for an unbounded allocation (a
    /// polynomial of degree n takes n/8 bytes).
    pub const MAX_PARSE_DEGREE: usize = (1 << 26) - 1;

    /// The zero polynomial (no words).
    pub fn zero() -> Gf2Poly {
        Gf2Poly { words: Vec::new() }
    }

    /// The constant polynomial 1.
    pub fn one() -> Gf2Poly {
        Gf2Poly { words: vec![1] }
    }

    /// The monomial x^n (allocates about n/8 bytes).
    pub fn x_pow(n: usize) -> Gf2Poly {
        let mut words = vec![0u64; n / 64 + 1];
        if let Some(top) = words.last_mut() {
            *top = 1 << (n % 64);
        }
        Gf2Poly { words }
    }

    /// The polynomial with these words (word 0 lowest; bit `i` of word `j` is
    /// the coefficient of x^(64j+i)). Trailing zero words are dropped.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// // x^64 + x + 1, with a trailing zero word that is dropped.
    /// let p = Gf2Poly::from_u64s(&[0b11, 1, 0]);
    /// assert_eq!(p.degree(), Some(64));
    /// assert_eq!(p.as_words(), &[0b11, 1]);
    /// assert_eq!(p.to_string(), "x^64 + x + 1");
    /// ```
    pub fn from_u64s(words: &[u64]) -> Gf2Poly {
        Gf2Poly::from_words(words.to_vec())
    }

    /// The polynomial with these words, taking the vector (see
    /// [`Gf2Poly::from_u64s`]). Trailing zero words are dropped.
    pub fn from_words(mut words: Vec<u64>) -> Gf2Poly {
        normalise(&mut words);
        Gf2Poly { words }
    }

    /// The words, normalised (no trailing zero word), in a new vector.
    pub fn to_u64s(&self) -> Vec<u64> {
        self.words.clone()
    }

    /// The words, normalised (no trailing zero word); empty for zero.
    pub fn as_words(&self) -> &[u64] {
        &self.words
    }

    /// The words, normalised, giving up the polynomial.
    pub fn into_words(self) -> Vec<u64> {
        self.words
    }

    /// The sum of x^e for each `e` in `exponents`. A repeated exponent
    /// cancels (1 + 1 = 0 over GF(2)). Allocates `max(exponents)/8` bytes.
    pub fn from_exponents(exponents: &[usize]) -> Gf2Poly {
        let Some(&max) = exponents.iter().max() else {
            return Gf2Poly::zero();
        };
        let mut words = vec![0u64; max / 64 + 1];
        for &e in exponents {
            // e ≤ max: always a word.
            if let Some(w) = words.get_mut(e / 64) {
                *w ^= 1 << (e % 64);
            }
        }
        Gf2Poly::from_words(words)
    }

    /// The coefficient of x^i.
    pub fn coeff(&self, i: usize) -> bool {
        self.words
            .get(i / 64)
            .is_some_and(|w| (w >> (i % 64)) & 1 == 1)
    }

    /// Sets the coefficient of x^i.
    pub fn set_coeff(&mut self, i: usize, value: bool) {
        let (wi, bit) = (i / 64, i % 64);
        if value {
            if wi >= self.words.len() {
                self.words.resize(wi + 1, 0);
            }
            if let Some(w) = self.words.get_mut(wi) {
                *w |= 1 << bit;
            }
        } else if let Some(w) = self.words.get_mut(wi) {
            *w &= !(1 << bit);
            normalise(&mut self.words);
        }
    }

    /// The degree, `None` for the zero polynomial.
    pub fn degree(&self) -> Option<usize> {
        degree_of(&self.words)
    }

    /// The number of coefficients up to the leading one: degree + 1, or 0
    /// for the zero polynomial.
    pub fn bit_len(&self) -> usize {
        self.degree().map_or(0, |d| d + 1)
    }

    /// Whether this is the zero polynomial.
    pub fn is_zero(&self) -> bool {
        self.words.is_empty()
    }

    /// Whether this is the constant polynomial 1.
    pub fn is_one(&self) -> bool {
        self.words == [1]
    }

    // -----------------------------------------------------------------------
    // Hex and bytes.

    /// Parses big-endian hex digits, most significant first, with an optional
    /// `0x`/`0X` prefix; surrounding whitespace is ignored, digits may be
    /// either case and leading zeros are allowed. Bit `i` of the number is
    /// the coefficient of x^i.
    ///
    /// # Errors
    ///
    /// [`ParsePolyError`] when there are no digits or a character is not a
    /// hex digit.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// let aes = Gf2Poly::from_hex("0x11b")?;
    /// assert_eq!(aes, Gf2Poly::from_exponents(&[8, 4, 3, 1, 0]));
    /// assert_eq!(aes.to_hex(), "11b");
    /// assert_eq!(format!("{aes:#x}"), "0x11b");
    /// assert!(Gf2Poly::from_hex("11g").is_err());
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn from_hex(s: &str) -> Result<Gf2Poly, ParsePolyError> {
        let trimmed = s.trim();
        let digits = trimmed
            .strip_prefix("0x")
            .or_else(|| trimmed.strip_prefix("0X"))
            .unwrap_or(trimmed);
        if digits.is_empty() {
            return Err(ParsePolyError::new(ErrorKind::NoHexDigits));
        }
        if let Some((at, ch)) = digits.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
            return Err(ParsePolyError::new(ErrorKind::BadHexDigit {
                ch,
                at: trimmed.len() - digits.len() + at,
            }));
        }
        let mut words = vec![0u64; digits.len().div_ceil(16)];
        // Sixteen digits a word from the right (the first chunk may be short).
        for (word, chunk) in words.iter_mut().zip(digits.as_bytes().rchunks(16)) {
            for &c in chunk {
                let v = match c {
                    b'0'..=b'9' => c - b'0',
                    b'a'..=b'f' => c - b'a' + 10,
                    _ => c - b'A' + 10,
                };
                *word = (*word << 4) | u64::from(v);
            }
        }
        Ok(Gf2Poly::from_words(words))
    }

    /// Lower-case big-endian hex digits without prefix or leading zeros; `"0"`
    /// for zero. The inverse of [`Gf2Poly::from_hex`].
    pub fn to_hex(&self) -> String {
        use core::fmt::Write;
        let mut s = String::with_capacity(16 * self.words.len().max(1));
        let Some((top, rest)) = self.words.split_last() else {
            return String::from("0");
        };
        // Writing to a String cannot fail.
        let _ = write!(s, "{top:x}");
        for w in rest.iter().rev() {
            let _ = write!(s, "{w:016x}");
        }
        s
    }

    /// The polynomial whose coefficients are the bits of this big-endian
    /// byte string (the last byte's bit 0 is the coefficient of x^0).
    pub fn from_be_bytes(bytes: &[u8]) -> Gf2Poly {
        let mut words = vec![0u64; bytes.len().div_ceil(8)];
        // Eight bytes a word from the right (the first chunk may be short).
        for (word, chunk) in words.iter_mut().zip(bytes.rchunks(8)) {
            for &b in chunk {
                *word = (*word << 8) | u64::from(b);
            }
        }
        Gf2Poly::from_words(words)
    }

    /// The coefficients as big-endian bytes of minimal length
    /// (`ceil(bit_len / 8)`): the inverse of [`Gf2Poly::from_be_bytes`] up to
    /// leading zero bytes. The zero polynomial gives an empty vector.
    pub fn to_be_bytes(&self) -> Vec<u8> {
        be_bytes(&self.words, self.bit_len().div_ceil(8))
    }

    // -----------------------------------------------------------------------
    // Arithmetic.

    /// The square, in linear time (squaring is linear over GF(2)).
    pub fn square(&self) -> Gf2Poly {
        Gf2Poly {
            words: Multiplier::new().square(&self.words),
        }
    }

    /// `(q, r)` with `self = q·d + r` and `deg r < deg d`; `None` when `d`
    /// is zero.
    ///
    /// Small divisions run word-at-a-time long division (one carry-less
    /// product per quotient word and divisor word, no bit loop). Larger ones
    /// compute the inverse of the reversed divisor by Newton iteration and
    /// produce the quotient in Barrett blocks of several words, each costing
    /// two Karatsuba products, so a division costs a few multiplications of
    /// the same size.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// let a: Gf2Poly = "x^5 + x^2 + 1".parse()?;
    /// let d: Gf2Poly = "x^2 + x + 1".parse()?;
    /// let (q, r) = a.checked_divrem(&d).expect("d is not zero");
    /// assert_eq!(q.to_string(), "x^3 + x^2");
    /// assert_eq!(r.to_string(), "1");
    /// assert_eq!(&q * &d + &r, a);
    /// assert!(a.checked_divrem(&Gf2Poly::zero()).is_none());
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn checked_divrem(&self, d: &Gf2Poly) -> Option<(Gf2Poly, Gf2Poly)> {
        if d.is_zero() {
            return None;
        }
        let mut divisor = Divisor::for_dividend(&d.words, self.words.len());
        let (q, r) = divisor.divrem(&self.words, usize::MAX);
        Some((Gf2Poly { words: q }, Gf2Poly { words: r }))
    }

    /// `self mod d`; `None` when `d` is zero.
    pub fn checked_rem(&self, d: &Gf2Poly) -> Option<Gf2Poly> {
        self.checked_divrem(d).map(|(_, r)| r)
    }

    /// [`Gf2Poly::checked_divrem`] with quotient blocks of at most
    /// `block_words` words: 1 forces the schoolbook loop, larger values the
    /// Newton path (clamped to the quotient and divisor sizes). For the
    /// tests of the two paths.
    #[cfg(test)]
    fn checked_divrem_with_block(
        &self,
        d: &Gf2Poly,
        block_words: usize,
    ) -> Option<(Gf2Poly, Gf2Poly)> {
        if d.is_zero() {
            return None;
        }
        let qn = self.words.len().saturating_sub(d.words.len()) + 1;
        let w = block_words.clamp(1, qn.min(d.words.len()));
        let mut divisor = Divisor::new(&d.words, w);
        let (q, r) = divisor.divrem(&self.words, w);
        Some((Gf2Poly { words: q }, Gf2Poly { words: r }))
    }

    /// The greatest common divisor (monic, as every non-zero polynomial over
    /// GF(2) is); `gcd(0, 0) = 0`. Euclid's algorithm, quadratic in the
    /// degree.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// let f: Gf2Poly = "x^2 + x + 1".parse()?;
    /// let a = &f * &"x^3 + x + 1".parse::<Gf2Poly>()?;
    /// let b = &f * &"x^5 + x^2 + 1".parse::<Gf2Poly>()?;
    /// assert_eq!(a.gcd(&b), f);
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn gcd(&self, other: &Gf2Poly) -> Gf2Poly {
        let (mut a, mut b) = (self.words.clone(), other.words.clone());
        while !b.is_empty() {
            let r = Divisor::for_dividend(&b, a.len()).rem(&a);
            a = core::mem::replace(&mut b, r);
        }
        Gf2Poly { words: a }
    }

    /// The extended gcd `(g, s, t)` with `s·self + t·other = g = gcd(self,
    /// other)`, by the extended Euclidean algorithm. When neither operand
    /// divides the other (`deg g` below both degrees), the cofactors are the
    /// small ones: `deg s < deg other − deg g` and `deg t < deg self − deg g`.
    /// `xgcd(0, 0) = (0, 1, 0)`.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// let a: Gf2Poly = "x^4 + x + 1".parse()?;
    /// let b: Gf2Poly = "x^3 + 1".parse()?;
    /// let (g, s, t) = a.xgcd(&b);
    /// assert_eq!(&s * &a + &t * &b, g);
    /// assert_eq!(g, a.gcd(&b));
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn xgcd(&self, other: &Gf2Poly) -> (Gf2Poly, Gf2Poly, Gf2Poly) {
        let mut mul = Multiplier::new();
        let (mut r0, mut r1) = (self.words.clone(), other.words.clone());
        let (mut s0, mut s1) = (vec![1u64], Vec::new());
        let (mut t0, mut t1) = (Vec::new(), vec![1u64]);
        while !r1.is_empty() {
            let (q, r) = Divisor::for_dividend(&r1, r0.len()).divrem(&r0, usize::MAX);
            r0 = core::mem::replace(&mut r1, r);
            let s = mul.sub_product(&s0, &q, &s1);
            s0 = core::mem::replace(&mut s1, s);
            let t = mul.sub_product(&t0, &q, &t1);
            t0 = core::mem::replace(&mut t1, t);
        }
        (
            Gf2Poly { words: r0 },
            Gf2Poly { words: s0 },
            Gf2Poly { words: t0 },
        )
    }

    /// The inverse of `self` modulo `m`: the `u` with `deg u < deg m` and
    /// `self·u ≡ 1 (mod m)`. `None` when `m` is zero or `gcd(self, m) ≠ 1`.
    /// Modulo the constant 1 every polynomial is 0 and the answer is
    /// `Some(0)`.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// // FIPS 197, section 4.2: {53}·{CA} = {01} modulo the AES polynomial.
    /// let m = Gf2Poly::from_hex("11b")?;
    /// let inv = Gf2Poly::from_hex("53")?.inverse_mod(&m);
    /// assert_eq!(inv, Some(Gf2Poly::from_hex("ca")?));
    /// // x + 1 divides x^2 + 1, so it has no inverse there.
    /// let x2_1 = Gf2Poly::from_hex("5")?;
    /// assert_eq!(Gf2Poly::from_hex("3")?.inverse_mod(&x2_1), None);
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn inverse_mod(&self, m: &Gf2Poly) -> Option<Gf2Poly> {
        if m.is_zero() {
            return None;
        }
        if m.is_one() {
            return Some(Gf2Poly::zero());
        }
        // Euclid on (self mod m, m), tracking only the cofactor of self.
        let mut mul = Multiplier::new();
        let mut r0 = Divisor::for_dividend(&m.words, self.words.len()).rem(&self.words);
        let mut r1 = m.words.clone();
        let (mut s0, mut s1) = (vec![1u64], Vec::new());
        // Invariant: s0·self ≡ r0 and s1·self ≡ r1 (mod m).
        while !r0.is_empty() && r0 != [1] {
            let (q, r) = Divisor::for_dividend(&r0, r1.len()).divrem(&r1, usize::MAX);
            r1 = core::mem::replace(&mut r0, r);
            let s = mul.sub_product(&s1, &q, &s0);
            s1 = core::mem::replace(&mut s0, s);
        }
        if r0 == [1] {
            let s = Divisor::for_dividend(&m.words, s0.len()).rem(&s0);
            Some(Gf2Poly { words: s })
        } else {
            None
        }
    }

    /// `self^e mod m` by left-to-right square-and-multiply; `None` when `m`
    /// is zero. `self^0 = 1` (reduced: 0 when `m` is 1).
    pub fn pow_mod(&self, e: u64, m: &Gf2Poly) -> Option<Gf2Poly> {
        if m.is_zero() {
            return None;
        }
        let mut divisor = Divisor::for_modulus(&m.words);
        let base = divisor.rem(&self.words);
        let mut acc = divisor.rem(&[1]);
        for i in (0..64 - e.leading_zeros()).rev() {
            acc = divisor.square_mod(&acc);
            if (e >> i) & 1 == 1 {
                acc = divisor.mul_mod(&acc, &base);
            }
        }
        Some(Gf2Poly { words: acc })
    }

    /// `self^(2^k) mod m`, by `k` modular squarings; `None` when `m` is zero.
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// // In GF(2^8) = GF(2)[x]/(x^8 + x^4 + x^3 + x + 1), a^(2^8) = a.
    /// let m = Gf2Poly::from_hex("11b")?;
    /// let a = Gf2Poly::from_hex("57")?;
    /// assert_eq!(a.pow2k_mod(8, &m), Some(a.clone()));
    /// assert_eq!(a.pow2k_mod(3, &m), a.pow_mod(8, &m));
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn pow2k_mod(&self, k: usize, m: &Gf2Poly) -> Option<Gf2Poly> {
        if m.is_zero() {
            return None;
        }
        let mut divisor = Divisor::for_modulus(&m.words);
        let mut acc = divisor.rem(&self.words);
        for _ in 0..k {
            acc = divisor.square_mod(&acc);
        }
        Some(Gf2Poly { words: acc })
    }

    /// Whether this polynomial is irreducible over GF(2), by Rabin's test
    /// (M. O. Rabin, "Probabilistic algorithms in finite fields", SIAM J.
    /// Comput. 9(2), 1980): f of degree n is irreducible if and only if
    /// x^(2^n) ≡ x (mod f) and gcd(x^(2^(n/p)) − x, f) = 1 for every prime
    /// p dividing n. Constants (zero and one) are not irreducible; x and
    /// x + 1 are. Costs n modular squarings and a gcd per prime factor of n
    /// for an irreducible f; a reducible f with a factor of degree ≤ 24
    /// (most of them) is rejected after at most 24 squarings, 24 products
    /// and three gcds, by Ben-Or's early test (an irreducible factor of
    /// degree d divides x^(2^d) − x; M. Ben-Or, "Probabilistic algorithms
    /// in finite fields", FOCS 1981).
    ///
    /// # Example
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// // The NIST B-163 / K-163 reduction polynomial (FIPS 186-4, D.1.3).
    /// let f: Gf2Poly = "x^163 + x^7 + x^6 + x^3 + 1".parse()?;
    /// assert!(f.is_irreducible());
    /// // x^2 + 1 = (x + 1)^2.
    /// assert!(!Gf2Poly::from_hex("5")?.is_irreducible());
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    pub fn is_irreducible(&self) -> bool {
        let n = match self.degree() {
            None | Some(0) => return false,
            Some(1) => return true,
            Some(n) => n,
        };
        if self.words.first().is_none_or(|w| w & 1 == 0) {
            return false; // divisible by x
        }
        let f = Gf2Poly {
            words: self.words.clone(),
        };
        let mut divisor = Divisor::for_modulus(&self.words);
        let primes = distinct_prime_factors(n);
        let x = [0b10u64]; // reduced, as n ≥ 2
        let mut h = x.to_vec();
        let mut checkpoints = Vec::with_capacity(primes.len());
        // Ben-Or's early rejection: `small` = Π (x^(2^j) − x) mod f over
        // j ≤ k, and gcd(small, f) ≠ 1 at a checkpoint k < n means f has an
        // irreducible factor of degree dividing some j ≤ k < n: a proper
        // factor. (A product that reaches 0 mod f has gcd f: the same.)
        let mut small = vec![1u64];
        for k in 1..=n {
            h = divisor.square_mod(&h);
            if k < n && k <= EARLY_REJECT_DEGREE {
                let mut t = h.clone();
                t.resize(t.len().max(1), 0);
                if let Some(t0) = t.first_mut() {
                    *t0 ^= 0b10;
                }
                normalise(&mut t);
                small = divisor.mul_mod(&small, &t);
                if EARLY_REJECT_CHECKPOINTS.contains(&k) {
                    let product = Gf2Poly {
                        words: small.clone(),
                    };
                    if !product.gcd(&f).is_one() {
                        return false;
                    }
                }
            }
            if primes.iter().any(|&p| n / p == k) {
                checkpoints.push(h.clone());
            }
        }
        if h != x {
            return false;
        }
        checkpoints.into_iter().all(|mut hk| {
            // hk − x, then gcd with f.
            if hk.is_empty() {
                hk.push(0);
            }
            if let Some(h0) = hk.first_mut() {
                *h0 ^= 0b10;
            }
            normalise(&mut hk);
            Gf2Poly { words: hk }.gcd(&f).is_one()
        })
    }
}

/// The largest factor degree [`Gf2Poly::is_irreducible`] looks for before
/// Rabin's test proper.
const EARLY_REJECT_DEGREE: usize = 24;

/// The squaring counts at which [`Gf2Poly::is_irreducible`] takes the gcd
/// of the product so far with f (each at most [`EARLY_REJECT_DEGREE`]).
const EARLY_REJECT_CHECKPOINTS: [usize; 3] = [6, 12, 24];

// ---------------------------------------------------------------------------
// Conversions and formatting.

impl From<u64> for Gf2Poly {
    /// The polynomial whose coefficients are the bits of `w`.
    fn from(w: u64) -> Gf2Poly {
        Gf2Poly::from_words(vec![w])
    }
}

impl fmt::Display for Gf2Poly {
    /// Terms in descending order, `x^163 + x^7 + x^6 + x^3 + 1`; `x` for
    /// degree 1, `1` for the constant term, `0` for zero.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let mut first = true;
        for (j, &word) in self.words.iter().enumerate().rev() {
            let mut w = word;
            while w != 0 {
                let bit = 63 - w.leading_zeros() as usize;
                w ^= 1 << bit;
                if !first {
                    f.write_str(" + ")?;
                }
                first = false;
                match 64 * j + bit {
                    0 => f.write_str("1")?,
                    1 => f.write_str("x")?,
                    e => write!(f, "x^{e}")?,
                }
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Gf2Poly {
    /// `Gf2Poly(0x…)`: hex stays short for dense polynomials.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Gf2Poly(0x{})", self.to_hex())
    }
}

impl fmt::LowerHex for Gf2Poly {
    /// As [`Gf2Poly::to_hex`]; `{:#x}` adds `0x`, and width and fill work as
    /// for integers.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad_integral(true, "0x", &self.to_hex())
    }
}

impl FromStr for Gf2Poly {
    type Err = ParsePolyError;

    /// Parses the [`Display`](fmt::Display) form: terms `0`, `1`, `x` or
    /// `x^n` joined by `+`, in any order, with any whitespace around terms,
    /// `+` and `^`. Repeated terms cancel (`x + x` is 0). Exponents go up to
    /// [`Gf2Poly::MAX_PARSE_DEGREE`].
    ///
    /// ```
    /// use fieldwork::gf2x::Gf2Poly;
    ///
    /// let p: Gf2Poly = "x^128 + x^7 + x^2 + x + 1".parse()?;
    /// assert_eq!(p.to_string(), "x^128 + x^7 + x^2 + x + 1");
    /// assert_eq!("1+x^0+x ^ 3".parse::<Gf2Poly>()?, Gf2Poly::x_pow(3));
    /// let err = "x^2 + y".parse::<Gf2Poly>().unwrap_err();
    /// assert_eq!(err.to_string(), "invalid polynomial: term 2 (\"y\") is not 0, 1, x or x^n");
    /// # Ok::<(), fieldwork::gf2x::ParsePolyError>(())
    /// ```
    fn from_str(s: &str) -> Result<Gf2Poly, ParsePolyError> {
        if s.trim().is_empty() {
            return Err(ParsePolyError::new(ErrorKind::Empty));
        }
        let mut exponents = Vec::new();
        for (index, raw) in s.split('+').enumerate() {
            let term = raw.trim();
            let number = index + 1;
            if term.is_empty() {
                return Err(ParsePolyError::new(ErrorKind::EmptyTerm { number }));
            }
            let bad = || {
                ParsePolyError::new(ErrorKind::BadTerm {
                    number,
                    text: term.chars().take(40).collect(),
                })
            };
            let exponent = match term {
                "0" => continue,
                "1" => 0,
                "x" => 1,
                _ => {
                    let digits = term
                        .strip_prefix('x')
                        .and_then(|rest| rest.trim_start().strip_prefix('^'))
                        .map(str::trim_start)
                        .ok_or_else(bad)?;
                    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                        return Err(bad());
                    }
                    match digits.parse::<usize>() {
                        Ok(e) if e <= Gf2Poly::MAX_PARSE_DEGREE => e,
                        _ => {
                            return Err(ParsePolyError::new(ErrorKind::ExponentTooLarge {
                                number,
                            }));
                        }
                    }
                }
            };
            exponents.push(exponent);
        }
        Ok(Gf2Poly::from_exponents(&exponents))
    }
}

/// A string that is not a polynomial: what [`Gf2Poly::from_str`] and
/// [`Gf2Poly::from_hex`] return. Its `Display` says what was wrong and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePolyError {
    kind: ErrorKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum ErrorKind {
    Empty,
    EmptyTerm { number: usize },
    BadTerm { number: usize, text: String },
    ExponentTooLarge { number: usize },
    NoHexDigits,
    BadHexDigit { ch: char, at: usize },
}

impl ParsePolyError {
    fn new(kind: ErrorKind) -> ParsePolyError {
        ParsePolyError { kind }
    }
}

impl fmt::Display for ParsePolyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            ErrorKind::Empty => f.write_str("invalid polynomial: empty string"),
            ErrorKind::EmptyTerm { number } => {
                write!(f, "invalid polynomial: term {number} is empty (stray '+')")
            }
            ErrorKind::BadTerm { number, text } => write!(
                f,
                "invalid polynomial: term {number} ({text:?}) is not 0, 1, x or x^n"
            ),
            ErrorKind::ExponentTooLarge { number } => write!(
                f,
                "invalid polynomial: the exponent of term {number} is above {}",
                Gf2Poly::MAX_PARSE_DEGREE
            ),
            ErrorKind::NoHexDigits => f.write_str("invalid polynomial hex: no digits"),
            ErrorKind::BadHexDigit { ch, at } => write!(
                f,
                "invalid polynomial hex: {ch:?} at byte {at} is not a hex digit"
            ),
        }
    }
}

impl core::error::Error for ParsePolyError {}

// ---------------------------------------------------------------------------
// Operators.

impl AddAssign<&Gf2Poly> for Gf2Poly {
    fn add_assign(&mut self, rhs: &Gf2Poly) {
        if self.words.len() < rhs.words.len() {
            self.words.resize(rhs.words.len(), 0);
        }
        xor_into(&mut self.words, &rhs.words);
        normalise(&mut self.words);
    }
}

impl AddAssign<Gf2Poly> for Gf2Poly {
    fn add_assign(&mut self, rhs: Gf2Poly) {
        if self.words.len() < rhs.words.len() {
            let lhs = core::mem::replace(self, rhs);
            *self += &lhs;
        } else {
            *self += &rhs;
        }
    }
}

impl Add<&Gf2Poly> for &Gf2Poly {
    type Output = Gf2Poly;
    fn add(self, rhs: &Gf2Poly) -> Gf2Poly {
        let (long, short) = if self.words.len() >= rhs.words.len() {
            (self, rhs)
        } else {
            (rhs, self)
        };
        let mut sum = long.clone();
        sum += short;
        sum
    }
}

impl Add<&Gf2Poly> for Gf2Poly {
    type Output = Gf2Poly;
    fn add(mut self, rhs: &Gf2Poly) -> Gf2Poly {
        self += rhs;
        self
    }
}

impl Add<Gf2Poly> for &Gf2Poly {
    type Output = Gf2Poly;
    fn add(self, rhs: Gf2Poly) -> Gf2Poly {
        rhs + self
    }
}

impl Add<Gf2Poly> for Gf2Poly {
    type Output = Gf2Poly;
    fn add(mut self, rhs: Gf2Poly) -> Gf2Poly {
        self += rhs;
        self
    }
}

/// Subtraction is addition over GF(2).
macro_rules! sub_is_add {
    ($($lhs:ty, $rhs:ty;)*) => {$(
        impl Sub<$rhs> for $lhs {
            type Output = Gf2Poly;
            fn sub(self, rhs: $rhs) -> Gf2Poly {
                Add::add(self, rhs)
            }
        }
    )*};
}

sub_is_add! {
    &Gf2Poly, &Gf2Poly;
    &Gf2Poly, Gf2Poly;
    Gf2Poly, &Gf2Poly;
    Gf2Poly, Gf2Poly;
}

impl SubAssign<&Gf2Poly> for Gf2Poly {
    fn sub_assign(&mut self, rhs: &Gf2Poly) {
        AddAssign::add_assign(self, rhs);
    }
}

impl SubAssign<Gf2Poly> for Gf2Poly {
    fn sub_assign(&mut self, rhs: Gf2Poly) {
        AddAssign::add_assign(self, rhs);
    }
}

/// The product and the division operators for the four operand ownerships,
/// all through one function on two borrows.
macro_rules! borrowed_binop {
    ($Trait:ident, $method:ident, $AssignTrait:ident, $assign:ident, $f:expr) => {
        impl $Trait<&Gf2Poly> for &Gf2Poly {
            type Output = Gf2Poly;
            fn $method(self, rhs: &Gf2Poly) -> Gf2Poly {
                let f: fn(&Gf2Poly, &Gf2Poly) -> Gf2Poly = $f;
                f(self, rhs)
            }
        }
        impl $Trait<Gf2Poly> for &Gf2Poly {
            type Output = Gf2Poly;
            fn $method(self, rhs: Gf2Poly) -> Gf2Poly {
                self.$method(&rhs)
            }
        }
        impl $Trait<&Gf2Poly> for Gf2Poly {
            type Output = Gf2Poly;
            fn $method(self, rhs: &Gf2Poly) -> Gf2Poly {
                (&self).$method(rhs)
            }
        }
        impl $Trait<Gf2Poly> for Gf2Poly {
            type Output = Gf2Poly;
            fn $method(self, rhs: Gf2Poly) -> Gf2Poly {
                (&self).$method(&rhs)
            }
        }
        impl $AssignTrait<&Gf2Poly> for Gf2Poly {
            fn $assign(&mut self, rhs: &Gf2Poly) {
                *self = (&*self).$method(rhs);
            }
        }
        impl $AssignTrait<Gf2Poly> for Gf2Poly {
            fn $assign(&mut self, rhs: Gf2Poly) {
                *self = (&*self).$method(&rhs);
            }
        }
    };
}

borrowed_binop!(Mul, mul, MulAssign, mul_assign, |a, b| Gf2Poly {
    words: Multiplier::new().mul(&a.words, &b.words),
});

/// `a.checked_divrem(b)`; panics if `b` is zero, as the integers' operators
/// do (documented; the checked methods return `None` instead), with
/// "Gf2Poly: `what` the zero polynomial".
fn divrem_or_panic(a: &Gf2Poly, b: &Gf2Poly, what: &str) -> (Gf2Poly, Gf2Poly) {
    match a.checked_divrem(b) {
        Some(qr) => qr,
        #[allow(
            clippy::panic,
            reason = "division by the zero polynomial panics in the operators, as for the integers (documented); the checked methods return None"
        )]
        None => panic!("Gf2Poly: {what} the zero polynomial"),
    }
}

borrowed_binop!(Div, div, DivAssign, div_assign, |a, b| {
    divrem_or_panic(a, b, "division by").0
});

borrowed_binop!(Rem, rem, RemAssign, rem_assign, |a, b| {
    divrem_or_panic(a, b, "remainder modulo").1
});

/// `$Op` (on a reference and by value) and `$OpAssign` by `n`, through
/// `$words`.
macro_rules! shift_ops {
    ($Op:ident $op:ident, $OpAssign:ident $op_assign:ident, $words:ident, $doc:literal) => {
        impl $Op<usize> for &Gf2Poly {
            type Output = Gf2Poly;
            #[doc = $doc]
            fn $op(self, n: usize) -> Gf2Poly {
                Gf2Poly {
                    words: $words(&self.words, n),
                }
            }
        }

        impl $Op<usize> for Gf2Poly {
            type Output = Gf2Poly;
            #[doc = $doc]
            fn $op(self, n: usize) -> Gf2Poly {
                (&self).$op(n)
            }
        }

        impl $OpAssign<usize> for Gf2Poly {
            fn $op_assign(&mut self, n: usize) {
                self.words = $words(&self.words, n);
            }
        }
    };
}

shift_ops!(Shl shl, ShlAssign shl_assign, shl_words, "Multiplication by x^n.");
shift_ops!(
    Shr shr,
    ShrAssign shr_assign,
    shr_words,
    "The quotient by x^n: the n lowest coefficients are dropped."
);

/// The low `len` bytes of the little-endian words `words` (zero past
/// them) as a big-endian byte string.
pub(crate) fn be_bytes(words: &[u64], len: usize) -> Vec<u8> {
    (0..len)
        .rev()
        .map(|i| {
            let w = words.get(i / 8).copied().unwrap_or(0);
            (w >> (8 * (i % 8))) as u8
        })
        .collect()
}

#[cfg(test)]
mod tests {
    //! The two division paths (schoolbook, Newton in quotient blocks) and a
    //! random block width against [`Gf2Poly::checked_divrem`], on the
    //! division tests' shapes of inputs (`tests/gf2x_poly.rs` checks the
    //! public results against the definition).
    use super::*;
    use crate::test_util::splitmix64;

    /// A value with a random number of random bits set (as the integration
    /// tests' `Rng::next_u64_shaped`).
    fn shaped(s: &mut u64) -> u64 {
        let x = splitmix64(s);
        match splitmix64(s) % 8 {
            0 => x & splitmix64(s) & splitmix64(s),
            1 => x | splitmix64(s) | splitmix64(s),
            2 => 1u64 << (x % 64),
            3 => !(1u64 << (x % 64)),
            4 => x >> (splitmix64(s) % 64),
            _ => x,
        }
    }

    fn random_poly(s: &mut u64, words: usize) -> Gf2Poly {
        Gf2Poly::from_words((0..words).map(|_| shaped(s)).collect())
    }

    fn random_of_degree(s: &mut u64, deg: usize) -> Gf2Poly {
        let mut p = random_poly(s, deg / 64 + 1);
        for i in deg + 1..64 * (deg / 64 + 1) {
            p.set_coeff(i, false);
        }
        p.set_coeff(deg, true);
        p
    }

    /// Block width 1 (schoolbook), unlimited (Newton) and a random one give
    /// `checked_divrem`'s quotient and remainder.
    fn check_paths(s: &mut u64, a: &Gf2Poly, d: &Gf2Poly) -> (Gf2Poly, Gf2Poly) {
        let want = a.checked_divrem(d).expect("non-zero divisor");
        let random = (splitmix64(s) % 48) as usize + 1;
        for block in [1, usize::MAX, random] {
            let got = a.checked_divrem_with_block(d, block);
            assert!(
                got.as_ref() == Some(&want),
                "{block}-word blocks, a = {a:?}, d = {d:?}"
            );
        }
        want
    }

    #[test]
    fn paths_agree_small_and_medium() {
        let mut s = 0x5eed_9017_0003;
        for an in 0..=40 {
            for dn in [1usize, 2, 3, 5, 8, 13, 14, 15, 16, 20, 27, 40] {
                let a = random_poly(&mut s, an);
                let d = random_poly(&mut s, dn) + Gf2Poly::one();
                check_paths(&mut s, &a, &d);
            }
        }
        for deg in (0..=70).chain([127, 128, 129, 191, 192]) {
            let d = random_of_degree(&mut s, deg);
            for an in [0usize, 1, 2, 5, 20] {
                let a = random_poly(&mut s, an);
                check_paths(&mut s, &a, &d);
            }
        }
    }

    #[test]
    fn paths_agree_on_exact_division_and_zero() {
        let mut s = 0x5eed_9017_0004;
        let a = random_poly(&mut s, 9);
        let b = random_poly(&mut s, 30) + Gf2Poly::one();
        let c = random_poly(&mut s, 25) + Gf2Poly::one();
        let bc = &b * &c;
        assert_eq!(check_paths(&mut s, &bc, &c), (b.clone(), Gf2Poly::zero()));
        assert_eq!(check_paths(&mut s, &bc, &b), (c, Gf2Poly::zero()));
        assert_eq!(a.checked_divrem_with_block(&Gf2Poly::zero(), 1), None);
    }

    #[test]
    fn paths_agree_at_large_sizes() {
        let mut s = 0x5eed_9017_0005;
        for (an, dn) in [
            (4000, 2000),
            (2000, 1000),
            (2100, 2000),
            (2000, 30),
            (2000, 300),
            (2001, 1999),
            (130, 64),
        ] {
            let a = random_poly(&mut s, an);
            let d = random_poly(&mut s, dn) + Gf2Poly::one();
            check_paths(&mut s, &a, &d);
        }
        let b = Gf2Poly::from_words((0..1200).map(|_| splitmix64(&mut s)).collect());
        let c = Gf2Poly::from_words((0..900).map(|_| splitmix64(&mut s)).collect());
        let (q, r) = check_paths(&mut s, &(&b * &c), &c);
        assert_eq!(q, b);
        assert!(r.is_zero());
    }
}
