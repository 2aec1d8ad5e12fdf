//! GF(2^m) for an irreducible modulus chosen at run time: [`BinaryField`]
//! and its [`Element`]s.
//!
//! The product is a `gf2x` product (the backend chosen once, when the field
//! is built) and a reduction: word-level folding when f − x^m has all its
//! terms at least 64 below m (every trinomial and pentanomial of cryptographic
//! size), else Barrett's method with two `gf2x` products, which over GF(2)\[x\]
//! needs no correction step: with μ = ⌊x^(2m)/f⌋ and c of degree < 2m − 1,
//! ⌊⌊c/x^m⌋·μ/x^m⌋ is exactly ⌊c/f⌋ (the estimate of Barrett, CRYPTO '86,
//! has no carries to absorb in characteristic 2). Both are constant time for
//! the field's (public) size.
//!
//! Inversion, for a sparse modulus of 2 to 9 words (m < 576, not a multiple
//! of 64, every term below m − 64; every NIST degree): Bernstein–Yang
//! divsteps, the fixed fields' code (`divstep.rs`) on the `gf2m` backend
//! chosen when the field is built, with the plan (batch shape and start
//! value) computed then too; 2m − 1 divsteps in ⌈(2m − 1)/55⌉ batches, the
//! matrix products carry-less. Elsewhere Itoh–Tsujii: m − 1 squarings and
//! ⌊log₂(m − 1)⌋ + popcount(m − 1) − 1 products. A divstep plan for every
//! word count to 16 would double the code the divsteps compile to (about
//! 100 KB for the eight, each backend's copy); 9 words covers 571.
//!
//! Products (`*`, `*=`), squares, `pow2k`, `pow` and the half-trace, where
//! f − x^m is one word (every term below 64: all NIST moduli but 233's and
//! 409's), m is not a multiple of 64 and the element has 2 to 9 words, run
//! as one computation compiled per word count on the carry-less `gf2m`
//! backend (`OneWordFold`: the generic algorithms on `OneWordArith`): the
//! kernels' fixed product or word squares and a carry-less fold, H =
//! ⌊c/x^m⌋ times that word (W word products), then the part of H·(f − x^m)
//! from x^m on (below 63 bits) times it again — W + 1 carry-less products
//! and about 4W word operations a reduction, against the word fold's 2
//! shifts and 2 XORs per term and word above m.
//!
//! The other chains (Itoh–Tsujii where there are no divsteps, √, the even-m
//! quadratic, and the products and squares of the other sparse moduli) run
//! on stack elements for a sparse modulus with m ≤ 1024 (`StackArith`):
//! no allocation per operation. A squaring there is the `gf2x` square and
//! the word fold, a loop over the modulus's terms with run-time shift
//! counts (about 40 ns at m = 163 on the Xeon of `docs/notes/gf2m.md`,
//! against `OneWordArith`'s 5 and the fixed `F163`'s 6). Barrett moduli
//! and m > 1024 take word vectors (`RuntimeArith`).
//!
//! Rejected: terms grouped by word offset so that a group's shifted copies
//! are summed in registers before one write per destination word (the
//! chained writes were not the cost: no faster).
#![forbid(unsafe_code)]

use super::Gf2mError;
use super::algorithms::{self, Arith};
use super::divstep::{self, Divstep, Plan};
use super::words::top_mask;
use crate::gf2x::{Dispatch, Gf2Poly};
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ops::{Add, AddAssign, Mul, MulAssign};
use subtle::{Choice, ConstantTimeEq, CtOption};

/// How products are reduced modulo f.
#[derive(Debug)]
enum Reduction {
    /// f = x^m + Σ x^k with every k ≤ m − 64: fold word by word.
    Sparse(Vec<usize>),
    /// Barrett: μ = ⌊x^(2m)/f⌋ (m + 1 bits) and f itself, as words.
    Barrett { mu: Vec<u64>, f: Vec<u64> },
}

#[derive(Debug)]
struct Inner {
    m: usize,
    words: usize,
    modulus: Gf2Poly,
    reduction: Reduction,
    backend: Dispatch,
    /// The `gf2m` backend of the divstep inversion (chosen once, as
    /// `backend`).
    gf2m: super::Dispatch,
    /// The inversion by divsteps, for the sparse moduli it is built for.
    divstep: Option<DivstepPlan>,
    /// f − x^m as one word, where [`OneWordFold`] takes the chains:
    /// every term below 64 (and m − 64), m not a multiple of 64, 2 to 9
    /// words, a carry-less `gf2m` backend.
    one_word: Option<u64>,
    trace_mask: Vec<u64>,
    sqrt_x: Vec<u64>,
    /// An element of trace one (x^i for the smallest such i), for
    /// z² + z = c when m is even.
    trace_one: Vec<u64>,
}

/// GF(2^m) = GF(2)\[x\]/(f) for an irreducible f chosen at run time, of
/// degree 2 to [`BinaryField::MAX_DEGREE`].
///
/// Cloning is cheap (the field is shared); elements keep their field.
///
/// ```
/// use fieldwork::gf2m::BinaryField;
/// use fieldwork::gf2x::Gf2Poly;
///
/// // The AES field GF(2^8) = GF(2)[x]/(x^8 + x^4 + x^3 + x + 1).
/// let f = BinaryField::new("x^8 + x^4 + x^3 + x + 1".parse()?)?;
/// let a = f.from_be_bytes(&[0x57])?;
/// let b = f.from_be_bytes(&[0x83])?;
/// assert_eq!((&a * &b).to_be_bytes(), [0xc1]); // FIPS 197, 4.2
/// assert_eq!(&a * &a.invert().unwrap(), f.one());
///
/// // The NIST polynomials are the lowest-weight irreducibles.
/// let g = BinaryField::sparse_irreducible(233)?;
/// assert_eq!(g.modulus().to_string(), "x^233 + x^74 + 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct BinaryField(Arc<Inner>);

impl fmt::Debug for BinaryField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BinaryField(GF(2)[x]/({}))", self.0.modulus)
    }
}

impl PartialEq for BinaryField {
    fn eq(&self, other: &BinaryField) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.modulus == other.0.modulus
    }
}

impl Eq for BinaryField {}

impl BinaryField {
    /// The largest degree accepted.
    pub const MAX_DEGREE: usize = 10_000;

    /// The field GF(2)\[x\]/(modulus).
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Degree`] for a modulus of degree below 2 (a constant
    /// or linear polynomial) or above [`Self::MAX_DEGREE`];
    /// [`Gf2mError::Reducible`] if it is not irreducible.
    pub fn new(modulus: Gf2Poly) -> Result<BinaryField, Gf2mError> {
        let m = modulus.degree().unwrap_or(0);
        if !(2..=Self::MAX_DEGREE).contains(&m) {
            return Err(Gf2mError::Degree(m));
        }
        if !modulus.is_irreducible() {
            return Err(Gf2mError::Reducible);
        }
        let words = m.div_ceil(64);
        let terms: Vec<usize> = (0..m).filter(|&i| modulus.coeff(i)).collect();
        let reduction = if m >= 64 && terms.iter().all(|&k| k + 64 <= m) && terms.len() <= 8 {
            Reduction::Sparse(terms.clone())
        } else {
            let mu = Gf2Poly::x_pow(2 * m)
                .checked_divrem(&modulus)
                .map(|(q, _)| q.into_words())
                .ok_or(Gf2mError::Degree(m))?;
            let mut f = modulus.to_u64s();
            f.resize(m / 64 + 1, 0);
            let mut mu = mu;
            mu.resize(m / 64 + 1, 0);
            Reduction::Barrett { mu, f }
        };
        let divstep = match &reduction {
            Reduction::Sparse(terms) => DivstepPlan::new(m, terms, words),
            Reduction::Barrett { .. } => None,
        };
        let gf2m = super::Dispatch::best();
        let one_word = match &reduction {
            Reduction::Sparse(terms)
                if !m.is_multiple_of(64)
                    && (2..=9).contains(&words)
                    && terms.iter().all(|&k| k < 64)
                    && !gf2m.is_portable() =>
            {
                Some(terms.iter().fold(0u64, |g, &k| g | (1 << k)))
            }
            _ => None,
        };
        let mut inner = Inner {
            m,
            words,
            modulus,
            reduction,
            backend: Dispatch::best(),
            gf2m,
            divstep,
            one_word,
            trace_mask: vec![0; words],
            sqrt_x: vec![0; words],
            trace_one: vec![0; words],
        };
        inner.trace_mask = trace_mask(m, &terms);
        let arith = RuntimeArith(&inner);
        let mut x = vec![0u64; words];
        set_bit(&mut x, 1); // x, reduced since m ≥ 2
        inner.sqrt_x = algorithms::pow2k(&arith, &x, m - 1);
        let first = (0..m)
            .find(|&i| bit(&inner.trace_mask, i) == 1)
            .unwrap_or(0);
        set_bit(&mut inner.trace_one, first);
        Ok(BinaryField(Arc::new(inner)))
    }

    /// The field defined by the lowest-weight irreducible polynomial of
    /// degree m: the trinomial x^m + x^k + 1 with the smallest k, else the
    /// pentanomial x^m + x^k3 + x^k2 + x^k1 + 1 with the smallest k3, then
    /// k2, then k1 (the convention of FIPS 186-4 D.1.3 and IEEE 1363; for
    /// the NIST degrees it gives the NIST polynomials).
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Degree`] outside 2..=[`Self::MAX_DEGREE`], and for the
    /// degrees below 5 where no trinomial is irreducible and no pentanomial
    /// exists (m = 4 has x^4 + x + 1; m = 2, 3 have trinomials too — only
    /// impossible degrees are errors).
    pub fn sparse_irreducible(m: usize) -> Result<BinaryField, Gf2mError> {
        if !(2..=Self::MAX_DEGREE).contains(&m) {
            return Err(Gf2mError::Degree(m));
        }
        for k in 1..m {
            let f = Gf2Poly::from_exponents(&[m, k, 0]);
            if f.is_irreducible() {
                return BinaryField::new(f);
            }
        }
        for k3 in 3..m {
            for k2 in 2..k3 {
                for k1 in 1..k2 {
                    let f = Gf2Poly::from_exponents(&[m, k3, k2, k1, 0]);
                    if f.is_irreducible() {
                        return BinaryField::new(f);
                    }
                }
            }
        }
        Err(Gf2mError::Degree(m))
    }

    /// The degree m.
    pub fn degree(&self) -> usize {
        self.0.m
    }

    /// Words per element, `ceil(m/64)`.
    pub fn words(&self) -> usize {
        self.0.words
    }

    /// Bytes of the octet-string encoding, `ceil(m/8)`.
    pub fn bytes(&self) -> usize {
        self.0.m.div_ceil(8)
    }

    /// The modulus f.
    pub fn modulus(&self) -> &Gf2Poly {
        &self.0.modulus
    }

    /// Whether products are reduced by word folding (a sparse modulus)
    /// rather than Barrett's method.
    pub fn has_sparse_reduction(&self) -> bool {
        matches!(self.0.reduction, Reduction::Sparse(_))
    }

    fn element(&self, words: Vec<u64>) -> Element {
        Element {
            field: self.clone(),
            words,
        }
    }

    /// 0.
    pub fn zero(&self) -> Element {
        self.element(vec![0; self.0.words])
    }

    /// 1.
    pub fn one(&self) -> Element {
        let mut w = vec![0; self.0.words];
        set_bit(&mut w, 0);
        self.element(w)
    }

    /// The element from `words()` words, word 0 lowest.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] for another number of words,
    /// [`Gf2mError::NotReduced`] if a bit at or above m is set.
    pub fn from_words(&self, words: &[u64]) -> Result<Element, Gf2mError> {
        if words.len() != self.0.words {
            return Err(Gf2mError::Length {
                expected: self.0.words,
                actual: words.len(),
            });
        }
        if words
            .last()
            .is_some_and(|&top| top & !top_mask(self.0.m) != 0)
        {
            return Err(Gf2mError::NotReduced { m: self.0.m });
        }
        Ok(self.element(words.to_vec()))
    }

    /// The element from its `bytes()`-byte big-endian octet string.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] for another length, [`Gf2mError::NotReduced`]
    /// if a bit at or above m is set.
    pub fn from_be_bytes(&self, bytes: &[u8]) -> Result<Element, Gf2mError> {
        if bytes.len() != self.bytes() {
            return Err(Gf2mError::Length {
                expected: self.bytes(),
                actual: bytes.len(),
            });
        }
        let mut w = vec![0u64; self.0.words];
        // Eight bytes a word from the right (the first chunk may be short);
        // `bytes.len() == bytes() <= 8·words()`.
        for (word, chunk) in w.iter_mut().zip(bytes.rchunks(8)) {
            for &byte in chunk {
                *word = (*word << 8) | u64::from(byte);
            }
        }
        self.from_words(&w)
    }

    /// The element from big-endian hexadecimal (optional `0x`, at most
    /// `2·bytes()` digits).
    ///
    /// # Errors
    ///
    /// [`Gf2mError::InvalidHex`], or as [`Self::from_be_bytes`].
    pub fn from_hex(&self, s: &str) -> Result<Element, Gf2mError> {
        let mut bytes = vec![0u8; self.bytes()];
        super::parse_hex(s, &mut bytes)?;
        self.from_be_bytes(&bytes)
    }

    /// The element of the same polynomial as `p` reduced modulo f (not
    /// constant time: for public values).
    pub fn from_poly_vartime(&self, p: &Gf2Poly) -> Element {
        let r = p
            .checked_rem(&self.0.modulus)
            .map(Gf2Poly::into_words)
            .unwrap_or_default();
        let mut w = vec![0u64; self.0.words];
        for (d, s) in w.iter_mut().zip(&r) {
            *d = *s;
        }
        self.element(w)
    }

    /// A uniformly random element.
    pub fn random<R: rand_core::Rng + ?Sized>(&self, rng: &mut R) -> Element {
        let mut w: Vec<u64> = (0..self.0.words).map(|_| rng.next_u64()).collect();
        if let Some(top) = w.last_mut() {
            *top &= top_mask(self.0.m);
        }
        self.element(w)
    }
}

/// The positions i < m with Tr(x^i) = 1 by Newton's identities (see
/// `words::trace_mask`), for any f given by its terms below x^m.
fn trace_mask(m: usize, terms: &[usize]) -> Vec<u64> {
    let mut mask = vec![0u64; m.div_ceil(64)];
    if m % 2 == 1 {
        set_bit(&mut mask, 0);
    }
    for k in 1..m {
        let mut s = 0u64;
        for &t in terms {
            let j = m - t;
            if j < k {
                s ^= bit(&mask, k - j);
            } else if j == k && k % 2 == 1 {
                s ^= 1;
            }
        }
        if s == 1 {
            set_bit(&mut mask, k);
        }
    }
    mask
}

/// Bit `i` of a word vector (0 past its end). For construction and
/// decoding, not the arithmetic.
pub(super) fn bit(words: &[u64], i: usize) -> u64 {
    words.get(i / 64).map_or(0, |w| (w >> (i % 64)) & 1)
}

/// Sets bit `i` of a word vector (nothing past its end).
pub(super) fn set_bit(words: &mut [u64], i: usize) {
    or_bit(words, i, 1);
}

/// ORs `b` (0 or 1, possibly secret: no branch on it) into bit `i` of a
/// word vector (nothing past its end; `i` is public).
pub(super) fn or_bit(words: &mut [u64], i: usize, b: u64) {
    if let Some(w) = words.get_mut(i / 64) {
        *w |= b << (i % 64);
    }
}

/// The field's arithmetic on word vectors, for the generic algorithms.
struct RuntimeArith<'a>(&'a Inner);

impl RuntimeArith<'_> {
    fn reduce(&self, mut c: Vec<u64>) -> Vec<u64> {
        let inner = self.0;
        let (m, words) = (inner.m, inner.words);
        match &inner.reduction {
            Reduction::Sparse(terms) => {
                super::words::fold_sparse(&mut c, m, terms);
                c.truncate(words);
                c
            }
            Reduction::Barrett { mu, f } => {
                // c1 = ⌊c / x^m⌋ (m − 1 bits at most).
                let c1 = shift_right(&c, m, m / 64 + 1);
                let mut q_wide = vec![0u64; c1.len() + mu.len()];
                mul(inner.backend, &mut q_wide, &c1, mu);
                let q = shift_right(&q_wide, m, m / 64 + 1);
                let mut qf = vec![0u64; q.len() + f.len()];
                mul(inner.backend, &mut qf, &q, f);
                // `qf` has `q.len() + f.len() >= words` words.
                let mut r: Vec<u64> = (0..words)
                    .map(|i| c.get(i).copied().unwrap_or(0) ^ qf.get(i).copied().unwrap_or(0))
                    .collect();
                if let Some(top) = r.last_mut() {
                    *top &= top_mask(m);
                }
                r
            }
        }
    }
}

/// `out = a·b` with the field's `gf2x` backend (lengths are the field's:
/// the output buffer always fits, and scratch is allocated when needed).
fn mul(backend: Dispatch, out: &mut [u64], a: &[u64], b: &[u64]) {
    let done = backend.mul_into(out, a, b);
    debug_assert!(done.is_ok(), "output sized a.len() + b.len()");
}

/// `⌊c / x^m⌋` in `n` words.
fn shift_right(c: &[u64], m: usize, n: usize) -> Vec<u64> {
    let (w, s) = (m / 64, m % 64);
    (0..n)
        .map(|i| {
            let lo = c.get(w + i).copied().unwrap_or(0);
            let hi = c.get(w + i + 1).copied().unwrap_or(0);
            if s == 0 {
                lo
            } else {
                (lo >> s) | (hi << (64 - s))
            }
        })
        .collect()
}

impl Arith for RuntimeArith<'_> {
    type E = Vec<u64>;
    fn degree(&self) -> usize {
        self.0.m
    }
    fn one(&self) -> Vec<u64> {
        let mut w = vec![0; self.0.words];
        set_bit(&mut w, 0);
        w
    }
    fn mul(&self, a: &Vec<u64>, b: &Vec<u64>) -> Vec<u64> {
        let mut c = vec![0u64; 2 * self.0.words];
        mul(self.0.backend, &mut c, a, b);
        self.reduce(c)
    }
    fn square(&self, a: &Vec<u64>) -> Vec<u64> {
        let mut c = vec![0u64; 2 * self.0.words];
        let done = self.0.backend.square_into(&mut c, a);
        debug_assert!(done.is_ok(), "output sized 2·a.len()");
        self.reduce(c)
    }
    fn add(&self, a: &Vec<u64>, b: &Vec<u64>) -> Vec<u64> {
        algorithms::add_words(a, b)
    }
    fn select(&self, a: &Vec<u64>, b: &Vec<u64>, choice: Choice) -> Vec<u64> {
        algorithms::select_words(a, b, choice)
    }
}

/// `a^(−1)` by divsteps on the field's plan: the `gf2m` backend's
/// [`Divstep::invert_words`] on W words (its computation, run once per
/// inversion by [`super::Dispatch::run`]).
struct InvertWords<'t, const W: usize, const W1: usize> {
    a: [u64; W],
    plan: Plan<'t, W>,
}

impl<const W: usize, const W1: usize> super::Computation for InvertWords<'_, W, W1> {
    type Output = [u64; W];
    #[inline(always)]
    fn run<B: super::Backend>(self, b: B) -> [u64; W] {
        b.kernels().invert_words::<W, W1>(&self.a, &self.plan)
    }
}

/// The divstep plans of the word counts the inversion is compiled for
/// (`$v` holds the plan on `$w` words; its terms are lent by the field at
/// each call).
macro_rules! divstep_plans {
    ($($v:ident $w:literal),*) => {
        /// A field's divstep plan (`divstep.rs`): Bernstein–Yang inversion
        /// in constant time, for sparse moduli of 2 to 9 words (m < 576,
        /// not a multiple of 64, every term below m − 64): at m = 163 9×
        /// the speed of Itoh–Tsujii on the stack arithmetic's word fold
        /// (`docs/notes/gf2m.md`; not measured against Itoh–Tsujii on the
        /// carry-less fold of `OneWordArith`, which came later).
        enum DivstepPlan {
            $($v(Plan<'static, $w>),)*
        }

        impl DivstepPlan {
            /// The plan of x^m + Σ x^terms on `words` words, where one is
            /// compiled.
            fn new(m: usize, terms: &[usize], words: usize) -> Option<DivstepPlan> {
                if !divstep::plan_fits(m, terms, words) {
                    return None;
                }
                match words {
                    $($w => Some(DivstepPlan::$v(divstep::plan::<$w>(m, terms).with_terms(&[]))),)*
                    _ => None,
                }
            }

            /// Its word count.
            fn words(&self) -> usize {
                match self {
                    $(DivstepPlan::$v(_) => $w,)*
                }
            }

            /// `a^(−1)` (0 for 0) for `a` of the plan's words, reduced.
            fn invert(&self, backend: super::Dispatch, terms: &[usize], a: &[u64]) -> Vec<u64> {
                match self {
                    $(DivstepPlan::$v(plan) => {
                        let mut x = [0u64; $w];
                        for (d, &s) in x.iter_mut().zip(a) {
                            *d = s;
                        }
                        backend
                            .run(InvertWords::<$w, { $w + 1 }> { a: x, plan: plan.with_terms(terms) })
                            .to_vec()
                    })*
                }
            }
        }
    };
}

divstep_plans!(W2 2, W3 3, W4 4, W5 5, W6 6, W7 7, W8 8, W9 9);

impl fmt::Debug for DivstepPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DivstepPlan({} words)", self.words())
    }
}

/// What [`OneWordFold`] runs: the generic algorithms' chains, on the
/// carry-less arithmetic [`OneWordArith`].
#[derive(Clone, Copy)]
enum Chain<'e> {
    /// `a^(2^k)` (`k` = 1: the square): [`algorithms::pow2k_by_squaring`].
    Pow2k(usize),
    /// The half-trace (odd m): [`algorithms::half_trace_by_squaring`].
    HalfTrace,
    /// `a·b`, `b` the other element's words.
    Mul(&'e [u64]),
    /// `a^e`, `e` as little-endian words: [`algorithms::pow`].
    Pow(&'e [u64]),
}

/// The kernels' fixed W-word product (`InlineFixed::mul2` … `mul9`),
/// named by W for [`OneWordArith`].
trait KernelProduct<const W: usize, const W2: usize> {
    /// `a·b`, 2W words.
    fn product<K: crate::gf2x::InlineFixed>(k: K, a: &[u64; W], b: &[u64; W]) -> [u64; W2];
}

/// The word count W, as a type for [`KernelProduct`].
struct Width<const W: usize>;

/// [`KernelProduct`] for W = `$w` by the kernels' `$mul`.
macro_rules! kernel_products {
    ($($w:literal $mul:ident),*) => {$(
        impl KernelProduct<$w, { 2 * $w }> for Width<$w> {
            #[inline(always)]
            fn product<K: crate::gf2x::InlineFixed>(
                k: K,
                a: &[u64; $w],
                b: &[u64; $w],
            ) -> [u64; 2 * $w] {
                k.words(k.$mul(&k.limbs(a), &k.limbs(b)))
            }
        }
    )*};
}

kernel_products!(2 mul2, 3 mul3, 4 mul4, 5 mul5, 6 mul6, 7 mul7, 8 mul8, 9 mul9);

/// The field's arithmetic on W words (W2 = 2W, W1 = W + 1) with the
/// kernels `K` of a carry-less `gf2m` backend, for a sparse modulus whose
/// f − x^m = `g` is one word and m not a multiple of 64: products are the
/// kernels' fixed product, squares their word squares, each followed by
/// the carry-less fold ([`fold_one_word`]).
struct OneWordArith<K, const W: usize, const W1: usize, const W2: usize> {
    k: K,
    m: usize,
    g: u64,
}

impl<K: crate::gf2x::InlineFixed, const W: usize, const W1: usize, const W2: usize> Arith
    for OneWordArith<K, W, W1, W2>
where
    Width<W>: KernelProduct<W, W2>,
{
    type E = [u64; W];
    #[inline(always)]
    fn degree(&self) -> usize {
        self.m
    }
    #[inline(always)]
    fn one(&self) -> [u64; W] {
        algorithms::one_array()
    }
    #[inline(always)]
    fn mul(&self, a: &[u64; W], b: &[u64; W]) -> [u64; W] {
        let c = <Width<W> as KernelProduct<W, W2>>::product(self.k, a, b);
        fold_one_word::<K, W, W1, W2>(self.k, &c, self.m, self.g)
    }
    #[inline(always)]
    fn square(&self, a: &[u64; W]) -> [u64; W] {
        square_fold::<K, W, W1, W2>(self.k, a, self.m, self.g)
    }
    #[inline(always)]
    fn add(&self, a: &[u64; W], b: &[u64; W]) -> [u64; W] {
        algorithms::add_array(a, b)
    }
    #[inline(always)]
    fn select(&self, a: &[u64; W], b: &[u64; W], choice: Choice) -> [u64; W] {
        algorithms::select_array(a, b, choice)
    }
}

/// A [`Chain`] on W words compiled on the `gf2m` backend over
/// [`OneWordArith`] (the computation [`one_word_fold`] runs).
struct OneWordFold<'e, const W: usize, const W1: usize, const W2: usize> {
    a: [u64; W],
    m: usize,
    g: u64,
    chain: Chain<'e>,
}

impl<const W: usize, const W1: usize, const W2: usize> super::Computation
    for OneWordFold<'_, W, W1, W2>
where
    Width<W>: KernelProduct<W, W2>,
{
    type Output = [u64; W];
    #[inline(always)]
    fn run<B: super::Backend>(self, b: B) -> [u64; W] {
        let OneWordFold { a, m, g, chain } = self;
        let f = OneWordArith::<_, W, W1, W2> {
            k: b.kernels(),
            m,
            g,
        };
        match chain {
            Chain::Pow2k(n) => algorithms::pow2k_by_squaring(&f, &a, n),
            Chain::HalfTrace => algorithms::half_trace_by_squaring(&f, &a),
            Chain::Mul(other) => {
                let mut y = [0u64; W];
                for (d, &x) in y.iter_mut().zip(other) {
                    *d = x;
                }
                f.mul(&a, &y)
            }
            Chain::Pow(e) => algorithms::pow(&f, &a, e),
        }
    }
}

/// `a² mod f` for f = x^m + `g` (deg g < 64, 64(W − 1) < m < 64W): the
/// word squares, then c = L + x^m·H ≡ L + H·g, and the part of H·g from
/// x^m on (degree below deg g − 1) times g once more (its product has
/// degree below 2·deg g − 2 < m).
#[inline(always)]
fn square_fold<K: crate::gf2x::InlineFixed, const W: usize, const W1: usize, const W2: usize>(
    k: K,
    a: &[u64; W],
    m: usize,
    g: u64,
) -> [u64; W] {
    let limbs = k.limbs(a);
    let mut c = [0u64; W2];
    for (pair, &x) in c.chunks_exact_mut(2).zip(&limbs) {
        let [lo, hi] = k.words(k.square_limb(x));
        if let [p0, p1] = pair {
            (*p0, *p1) = (lo, hi);
        }
    }
    fold_one_word::<K, W, W1, W2>(k, &c, m, g)
}

/// `c mod f` for `c` of 2W words and degree below 2m − 1 (see
/// [`square_fold`]).
#[inline(always)]
#[allow(
    clippy::indexing_slicing,
    reason = "W ≥ 2 and W1 = W + 1 (the instances of `one_word_fold`): out[1], out[W − 1] and p[W] exist"
)]
fn fold_one_word<K: crate::gf2x::InlineFixed, const W: usize, const W1: usize, const W2: usize>(
    k: K,
    c: &[u64; W2],
    m: usize,
    g: u64,
) -> [u64; W] {
    let r = (m % 64) as u32; // 1..=63: m is not a multiple of 64
    let mask = (1u64 << r) - 1;
    let gl = k.limbs(&[g]);
    // H_j = bits 64j + m … of c, j < W (word W − 1 + j of c and the next).
    let mut p = [0u64; W1];
    for j in 0..W {
        let lo = c.get(W - 1 + j).copied().unwrap_or(0);
        let hi = c.get(W + j).copied().unwrap_or(0);
        let h = (lo >> r) | ((hi << 1) << (63 - r));
        let [p0, p1] = k.words(k.mul1(&k.limbs(&[h]), &gl));
        if let (Some(x), Some(y)) = (p.get(j).copied(), p.get(j + 1).copied()) {
            (p[j], p[j + 1]) = (x ^ p0, y ^ p1);
        }
    }
    let mut out = [0u64; W];
    for (d, (&x, &y)) in out.iter_mut().zip(c.iter().zip(&p)) {
        *d = x ^ y;
    }
    // Word W − 1 of c is masked below m; its bits from m on are H's.
    out[W - 1] ^= c[W - 1] & !mask;
    let over = (out[W - 1] >> r) | ((p[W] << 1) << (63 - r));
    out[W - 1] &= mask;
    let [q0, q1] = k.words(k.mul1(&k.limbs(&[over]), &gl));
    out[0] ^= q0;
    out[1] ^= q1;
    out
}

/// `chain` on `a` by [`OneWordFold`] for W = `$w` in the listed word
/// counts (none for others).
macro_rules! one_word_fold {
    ($($w:literal)*) => {
        /// `chain` on the field's words `a` in place by [`OneWordFold`] on
        /// `backend`: false, and `a` untouched, for a word count other
        /// than 2 to 9.
        fn one_word_fold(
            backend: super::Dispatch,
            a: &mut [u64],
            m: usize,
            g: u64,
            chain: Chain<'_>,
        ) -> bool {
            match a.len() {
                $($w => {
                    let mut x = [0u64; $w];
                    for (d, &s) in x.iter_mut().zip(a.iter()) {
                        *d = s;
                    }
                    let r = backend
                        .run(OneWordFold::<$w, { $w + 1 }, { 2 * $w }> { a: x, m, g, chain });
                    for (d, s) in a.iter_mut().zip(r) {
                        *d = s;
                    }
                    true
                })*
                _ => false,
            }
        }
    };
}

one_word_fold!(2 3 4 5 6 7 8 9);

/// The run-time arithmetics' element of an element's words, for
/// [`Element::apply`].
trait WordArith: Arith {
    /// The element of these (reduced) words.
    fn load(&self, words: &[u64]) -> Self::E;
}

impl WordArith for RuntimeArith<'_> {
    fn load(&self, words: &[u64]) -> Vec<u64> {
        words.to_vec()
    }
}

/// Words of an element that [`StackArith`] keeps on the stack (m ≤ 1024).
const STACK_WORDS: usize = STACK_PRODUCT_WORDS / 2;

/// The field's arithmetic on elements held in `[u64; STACK_WORDS]` (the
/// words past `words()` zero), for a sparse modulus with m ≤ 1024: the
/// product and the fold on a stack buffer, no allocation per operation —
/// what the chains of squares and products of inversion, exponentiation
/// and the half-trace run on ([`RuntimeArith`] elsewhere).
struct StackArith<'a> {
    inner: &'a Inner,
    terms: &'a [usize],
}

impl<'a> StackArith<'a> {
    /// The stack arithmetic of `inner`, if its modulus is sparse and its
    /// elements fit.
    fn new(inner: &'a Inner) -> Option<StackArith<'a>> {
        match &inner.reduction {
            Reduction::Sparse(terms) if inner.words <= STACK_WORDS => {
                Some(StackArith { inner, terms })
            }
            _ => None,
        }
    }

    /// The reduced element of the double-length product `c` (`2·words()`
    /// words).
    #[inline(always)]
    fn fold(&self, c: &mut [u64]) -> [u64; STACK_WORDS] {
        super::words::fold_sparse(c, self.inner.m, self.terms);
        let mut r = [0u64; STACK_WORDS];
        for (d, &x) in r.iter_mut().zip(c.iter().take(self.inner.words)) {
            *d = x;
        }
        r
    }
}

impl Arith for StackArith<'_> {
    type E = [u64; STACK_WORDS];
    fn degree(&self) -> usize {
        self.inner.m
    }
    fn one(&self) -> Self::E {
        algorithms::one_array()
    }
    fn mul(&self, a: &Self::E, b: &Self::E) -> Self::E {
        let n = self.inner.words;
        let mut buf = [0u64; STACK_PRODUCT_WORDS];
        // `n <= STACK_WORDS` (`StackArith::new`): the slices exist.
        if let (Some(c), Some(a), Some(b)) = (buf.get_mut(..2 * n), a.get(..n), b.get(..n)) {
            mul(self.inner.backend, c, a, b);
            return self.fold(c);
        }
        [0; STACK_WORDS]
    }
    fn square(&self, a: &Self::E) -> Self::E {
        let n = self.inner.words;
        let mut buf = [0u64; STACK_PRODUCT_WORDS];
        if let (Some(c), Some(a)) = (buf.get_mut(..2 * n), a.get(..n)) {
            let done = self.inner.backend.square_into(c, a);
            debug_assert!(done.is_ok(), "output sized 2·a.len()");
            return self.fold(c);
        }
        [0; STACK_WORDS]
    }
    fn add(&self, a: &Self::E, b: &Self::E) -> Self::E {
        algorithms::add_array(a, b)
    }
    fn select(&self, a: &Self::E, b: &Self::E, choice: Choice) -> Self::E {
        algorithms::select_array(a, b, choice)
    }
}

impl WordArith for StackArith<'_> {
    fn load(&self, words: &[u64]) -> Self::E {
        let mut r = [0u64; STACK_WORDS];
        for (d, &x) in r.iter_mut().zip(words) {
            *d = x;
        }
        r
    }
}

/// An operation of the generic algorithms on one element, written once
/// over [`WordArith`] and run by [`Element::apply`]: as a [`Chain`] on the
/// carry-less fold where the field and the operation allow it, else on the
/// stack where the field allows it.
trait Op {
    /// The result of the operation on `x`.
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E;
    /// The operation as a [`Chain`] of [`OneWordFold`], if it is one.
    fn chain(&self) -> Option<Chain<'_>> {
        None
    }
}

/// `x²`.
struct Square;
impl Op for Square {
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E {
        f.square(x)
    }
    fn chain(&self) -> Option<Chain<'_>> {
        Some(Chain::Pow2k(1))
    }
}

/// `x^(2^k)`.
struct Pow2k(usize);
impl Op for Pow2k {
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E {
        algorithms::pow2k(f, x, self.0)
    }
    fn chain(&self) -> Option<Chain<'_>> {
        Some(Chain::Pow2k(self.0))
    }
}

/// `x·y`, `y` the other element's words.
struct MulBy<'e>(&'e [u64]);
impl Op for MulBy<'_> {
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E {
        f.mul(x, &f.load(self.0))
    }
    fn chain(&self) -> Option<Chain<'_>> {
        Some(Chain::Mul(self.0))
    }
}

/// `x^e`, `e` as little-endian words.
struct Pow<'e>(&'e [u64]);
impl Op for Pow<'_> {
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E {
        algorithms::pow(f, x, self.0)
    }
    fn chain(&self) -> Option<Chain<'_>> {
        Some(Chain::Pow(self.0))
    }
}

/// `x^(−1)` (0 for 0).
struct Invert;
impl Op for Invert {
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E {
        f.invert(x)
    }
}

/// The half-trace (odd m).
struct HalfTrace;
impl Op for HalfTrace {
    fn run<A: WordArith>(self, f: &A, x: &A::E) -> A::E {
        algorithms::half_trace(f, x)
    }
    fn chain(&self) -> Option<Chain<'_>> {
        Some(Chain::HalfTrace)
    }
}

/// `e + √x·o` for the square root's halves `e`, `o` (`sqrt_x` = √x).
struct SqrtParts<'a> {
    e: &'a [u64],
    o: &'a [u64],
    sqrt_x: &'a [u64],
}
impl Op for SqrtParts<'_> {
    fn run<A: WordArith>(self, f: &A, _: &A::E) -> A::E {
        f.add(
            &f.load(self.e),
            &f.mul(&f.load(self.sqrt_x), &f.load(self.o)),
        )
    }
}

/// A root of z² + z = x for even m (`tau` of trace one): the Horner form
/// of IEEE 1363-2000, A.4.7 (see [`Element::solve_quadratic`]).
struct SolveEven<'a> {
    tau: &'a [u64],
}
impl Op for SolveEven<'_> {
    fn run<A: WordArith>(self, f: &A, c: &A::E) -> A::E {
        let tau = f.load(self.tau);
        // z ← z² + w²·τ, w ← w² + c, m − 1 times.
        let mut z = f.add(c, c);
        let mut w = c.clone();
        for _ in 1..f.degree() {
            let w2 = f.square(&w);
            z = f.add(&f.square(&z), &f.mul(&w2, &tau));
            w = f.add(&w2, c);
        }
        z
    }
}

/// An element of a [`BinaryField`]: always reduced, and tied to its field.
///
/// Operators between elements of different fields panic (as mixing fields
/// is a programming error); [`Element::try_mul`] and [`Element::try_add`]
/// return [`Gf2mError::FieldMismatch`] instead.
///
/// Not zeroized on drop (every operation makes and drops elements): wipe
/// one holding a secret with [`zeroize::Zeroize`], which overwrites its
/// words in place.
#[derive(Clone)]
pub struct Element {
    field: BinaryField,
    words: Vec<u64>,
}

/// Overwrites the element's words with zero (volatile writes), in place
/// before its heap buffer is freed; the element is then the field's zero.
/// Elements are not zeroized on drop (they are values of the arithmetic,
/// made and dropped by every operation): wipe a secret one with this.
impl zeroize::Zeroize for Element {
    fn zeroize(&mut self) {
        zeroize::Zeroize::zeroize(self.words.as_mut_slice());
    }
}

impl fmt::Debug for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Element({:x})", self)
    }
}

/// The big-endian octet string in hexadecimal.
impl fmt::LowerHex for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.to_be_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(self, f)
    }
}

/// Equal fields and equal values; the values are compared in constant time.
impl PartialEq for Element {
    fn eq(&self, other: &Element) -> bool {
        self.field == other.field && bool::from(self.words.ct_eq(&other.words))
    }
}

impl Eq for Element {}

impl ConstantTimeEq for Element {
    /// Values compared in constant time (elements of different fields are
    /// unequal: the field is public).
    fn ct_eq(&self, other: &Element) -> Choice {
        if self.field != other.field {
            return Choice::from(0);
        }
        self.words.ct_eq(&other.words)
    }
}

impl Element {
    fn arith(&self) -> RuntimeArith<'_> {
        RuntimeArith(&self.field.0)
    }

    /// `op` on this element, in a new one ([`Element::apply_in_place`]).
    fn apply<O: Op>(&self, op: O) -> Element {
        let mut r = self.clone();
        r.apply_in_place(op);
        r
    }

    /// `op` on this element in place: as a [`Chain`] on the carry-less
    /// fold ([`OneWordFold`]) where f − x^m is one word and `op` is a
    /// chain, else on the stack ([`StackArith`]) for a sparse modulus with
    /// m ≤ 1024 (no allocation on either), else on word vectors.
    fn apply_in_place<O: Op>(&mut self, op: O) {
        let Element { field, words } = self;
        let inner = &*field.0;
        if let (Some(g), Some(chain)) = (inner.one_word, op.chain())
            && one_word_fold(inner.gf2m, words, inner.m, g, chain)
        {
            return;
        }
        match StackArith::new(inner) {
            Some(f) => {
                let r = op.run(&f, &f.load(words));
                for (d, &x) in words.iter_mut().zip(&r) {
                    *d = x;
                }
            }
            None => *words = op.run(&RuntimeArith(inner), words),
        }
    }

    fn with(&self, words: Vec<u64>) -> Element {
        Element {
            field: self.field.clone(),
            words,
        }
    }

    /// The field this element belongs to.
    pub fn field(&self) -> &BinaryField {
        &self.field
    }

    /// The words, word 0 lowest.
    pub fn as_words(&self) -> &[u64] {
        &self.words
    }

    /// The big-endian octet string of `ceil(m/8)` bytes.
    pub fn to_be_bytes(&self) -> Vec<u8> {
        crate::gf2x::be_bytes(&self.words, self.field.bytes())
    }

    /// The element as a polynomial.
    pub fn to_poly(&self) -> Gf2Poly {
        Gf2Poly::from_u64s(&self.words)
    }

    /// Whether this is 0.
    pub fn is_zero(&self) -> Choice {
        self.words.iter().fold(0u64, |acc, w| acc | w).ct_eq(&0)
    }

    /// `self · other`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::FieldMismatch`] if the fields differ.
    pub fn try_mul(&self, other: &Element) -> Result<Element, Gf2mError> {
        let mut product = self.clone();
        product.try_mul_assign(other)?;
        Ok(product)
    }

    /// `self ← self · other` in place: no allocation and no new reference
    /// to the field, where `a * b` makes a new element (a heap buffer and an
    /// atomic count on the shared field). With a sparse modulus and m ≤
    /// 1024 the double-length product stays on the stack (in registers
    /// where f − x^m is one word: the module docs); otherwise it is
    /// allocated. The form for loops of products (`MulAssign`: `a *= &b`).
    ///
    /// ```
    /// use fieldwork::gf2m::BinaryField;
    ///
    /// let f = BinaryField::sparse_irreducible(577)?; // no fixed type
    /// let (mut u, mut v) = ([3u64; 10], [5u64; 10]);
    /// (u[9], v[9]) = (1, 0); // bit 576 at most
    /// let (x, y) = (f.from_words(&u)?, f.from_words(&v)?);
    /// let mut z = x.clone();
    /// z.try_mul_assign(&y)?;
    /// assert_eq!(z, &x * &y);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Gf2mError::FieldMismatch`] if the fields differ (`self` is then
    /// unchanged).
    pub fn try_mul_assign(&mut self, other: &Element) -> Result<(), Gf2mError> {
        self.same_field(other)?;
        self.apply_in_place(MulBy(&other.words));
        Ok(())
    }

    /// `self ← self + other` in place (see [`Element::try_mul_assign`]).
    ///
    /// # Errors
    ///
    /// [`Gf2mError::FieldMismatch`] if the fields differ (`self` is then
    /// unchanged).
    pub fn try_add_assign(&mut self, other: &Element) -> Result<(), Gf2mError> {
        self.same_field(other)?;
        for (d, &x) in self.words.iter_mut().zip(&other.words) {
            *d ^= x;
        }
        Ok(())
    }

    /// `self + other`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::FieldMismatch`] if the fields differ.
    pub fn try_add(&self, other: &Element) -> Result<Element, Gf2mError> {
        self.same_field(other)?;
        Ok(self.with(self.arith().add(&self.words, &other.words)))
    }

    fn same_field(&self, other: &Element) -> Result<(), Gf2mError> {
        if self.field == other.field {
            Ok(())
        } else {
            Err(Gf2mError::FieldMismatch)
        }
    }

    /// `a²`.
    pub fn square(&self) -> Element {
        self.apply(Square)
    }

    /// `a^(2^k)`.
    pub fn pow2k(&self, k: usize) -> Element {
        self.apply(Pow2k(k))
    }

    /// `a^e`, the exponent as little-endian words.
    pub fn pow(&self, exponent: &[u64]) -> Element {
        self.apply(Pow(exponent))
    }

    /// `a^(−1)`, none for 0, in constant time: by Bernstein–Yang divsteps
    /// for a sparse modulus of 2 to 9 words (the fixed fields' inversion,
    /// `divstep.rs`), else by Itoh–Tsujii.
    pub fn invert(&self) -> CtOption<Element> {
        let inner = &*self.field.0;
        let inv = match (&inner.divstep, &inner.reduction) {
            (Some(plan), Reduction::Sparse(terms)) => {
                self.with(plan.invert(inner.gf2m, terms, &self.words))
            }
            _ => self.apply(Invert),
        };
        CtOption::new(inv, !self.is_zero())
    }

    /// The square root: e(x) + √x·o(x) for a = e(x²) + x·o(x²).
    pub fn sqrt(&self) -> Element {
        let n = self.words.len();
        let mut e = vec![0u64; n];
        let mut o = vec![0u64; n];
        // Two words' even (odd) bits make one word of `e` (`o`).
        for ((e, o), pair) in e.iter_mut().zip(o.iter_mut()).zip(self.words.chunks(2)) {
            for (half, &w) in pair.iter().enumerate() {
                *e |= u64::from(super::words::gather_even(w)) << (32 * half);
                *o |= u64::from(super::words::gather_even(w >> 1)) << (32 * half);
            }
        }
        self.apply(SqrtParts {
            e: &e,
            o: &o,
            sqrt_x: &self.field.0.sqrt_x,
        })
    }

    /// The absolute trace Tr(a) ∈ {0, 1}.
    pub fn trace(&self) -> Choice {
        let t = self
            .words
            .iter()
            .zip(&self.field.0.trace_mask)
            .fold(0u64, |t, (x, m)| t ^ (x & m));
        Choice::from((t.count_ones() & 1) as u8)
    }

    /// The half-trace Σ_{i=0}^{(m−1)/2} a^(4^i); none when m is even (it
    /// is defined for odd m only; a public property of the field).
    pub fn half_trace(&self) -> Option<Element> {
        (self.field.0.m % 2 == 1).then(|| self.apply(HalfTrace))
    }

    /// A root z of z² + z = a, if there is one (exactly when Tr(a) = 0; the
    /// other root is z + 1). Odd m: the half-trace. Even m: with τ of trace
    /// one, z = Σ_{i=0}^{m−2} (Σ_{j=i+1}^{m−1} τ^(2^j))·a^(2^i) (IEEE 1363-2000,
    /// A.4.7), m squarings of each sum and m products.
    pub fn solve_quadratic(&self) -> CtOption<Element> {
        let ok = !self.trace();
        if let Some(h) = self.half_trace() {
            return CtOption::new(h, ok);
        }
        let z = self.apply(SolveEven {
            tau: &self.field.0.trace_one,
        });
        CtOption::new(z, ok)
    }
}

/// `$op` for `&Element` through `$try` (a documented panic on elements of
/// two fields), and for `Element` through the references.
macro_rules! operators {
    ($($op:ident $method:ident $try:ident),*) => {$(
        impl $op for &Element {
            type Output = Element;
            /// # Panics
            ///
            /// If the elements belong to different fields.
            #[allow(
                clippy::panic,
                reason = "operator traits cannot return an error: elements of different fields are a documented panic; `try_mul` / `try_add` return it"
            )]
            fn $method(self, rhs: &Element) -> Element {
                match self.$try(rhs) {
                    Ok(e) => e,
                    Err(e) => panic!("{e}"),
                }
            }
        }

        impl $op for Element {
            type Output = Element;
            fn $method(self, rhs: Element) -> Element {
                $op::$method(&self, &rhs)
            }
        }
    )*};
}

operators!(Add add try_add, Mul mul try_mul);

/// `$op` (`a op= &b`) through `$try` (a documented panic on elements of two
/// fields, as for the binary operators).
macro_rules! assign_operators {
    ($($op:ident $method:ident $try:ident),*) => {$(
        impl $op<&Element> for Element {
            /// # Panics
            ///
            /// If the elements belong to different fields.
            #[allow(
                clippy::panic,
                reason = "operator traits cannot return an error: elements of different fields are a documented panic; the `try_` form returns it"
            )]
            fn $method(&mut self, rhs: &Element) {
                if let Err(e) = self.$try(rhs) {
                    panic!("{e}");
                }
            }
        }
    )*};
}

assign_operators!(AddAssign add_assign try_add_assign, MulAssign mul_assign try_mul_assign);

/// Words of the double-length product that [`Element::try_mul_assign`]
/// keeps on the stack: elements of up to 16 words (m ≤ 1024).
const STACK_PRODUCT_WORDS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::splitmix64;

    /// A random element of `f` from `state`.
    fn random(f: &BinaryField, state: &mut u64) -> Element {
        let mut w: Vec<u64> = (0..f.words()).map(|_| splitmix64(state)).collect();
        if let Some(top) = w.last_mut() {
            *top &= top_mask(f.degree());
        }
        f.element(w)
    }

    /// `op` on `a` by the stack arithmetic's word fold (never the
    /// carry-less fold).
    fn on_stack<O: Op>(a: &Element, op: O) -> Vec<u64> {
        let Some(f) = StackArith::new(&a.field.0) else {
            panic!("{:?} has no stack arithmetic", a.field);
        };
        let r = op.run(&f, &f.load(&a.words));
        r.get(..a.words.len())
            .map(<[u64]>::to_vec)
            .unwrap_or_default()
    }

    /// 0, 1, all ones and six random elements of `f`.
    fn inputs(f: &BinaryField, state: &mut u64) -> Vec<Element> {
        let mut ones = vec![u64::MAX; f.words()];
        if let Some(top) = ones.last_mut() {
            *top &= top_mask(f.degree());
        }
        let mut inputs = vec![f.zero(), f.one(), f.element(ones)];
        inputs.extend((0..6).map(|_| random(f, state)));
        inputs
    }

    /// The chains of the carry-less fold ([`OneWordFold`]: squares,
    /// `pow2k`, products by `*` and `*=`, `pow`, the half-trace) agree with
    /// the stack arithmetic's word fold on 0, 1, all ones and random
    /// elements, for fields of every word count they are compiled for
    /// (checked to be covered where the best backend is carry-less), through
    /// the elements' methods (the field's backend) and directly on every
    /// carry-less `gf2m` backend of this CPU; fields with a term from 64 on,
    /// or m a multiple of 64, take the word fold.
    #[test]
    fn carry_less_chains_agree_with_the_word_fold() {
        let mut state = 0x7371_7561_7265_7321;
        let mut fields = vec![BinaryField::new(Gf2Poly::from_exponents(&[127, 1, 0])).unwrap()];
        for m in [
            131, 163, 191, 255, 283, 313, 323, 333, 385, 387, 450, 509, 571, 575,
        ] {
            fields.push(BinaryField::sparse_irreducible(m).unwrap());
        }
        let mut covered = Vec::new();
        let e = [0x8000_0000_0000_1235, 3];
        for f in &fields {
            let m = f.degree();
            let Some(g) = f.0.one_word else {
                continue;
            };
            covered.push(f.words());
            let b = random(f, &mut state);
            for a in inputs(f, &mut state) {
                let mul = on_stack(&a, MulBy(&b.words));
                let pow = on_stack(&a, Pow(&e));
                let pow2k = on_stack(&a, Pow2k(7));
                let half = (m % 2 == 1).then(|| on_stack(&a, HalfTrace));
                assert_eq!(a.square().words, on_stack(&a, Square), "m = {m}, a = {a:x}");
                assert_eq!(a.pow2k(7).words, pow2k, "m = {m}, a = {a:x}");
                assert_eq!((&a * &b).words, mul, "m = {m}, a = {a:x}");
                let mut c = b.clone();
                c *= &a;
                assert_eq!(c.words, mul, "m = {m}, a = {a:x}");
                assert_eq!(a.pow(&e).words, pow, "m = {m}, a = {a:x}");
                assert_eq!(a.half_trace().map(|h| h.words), half, "m = {m}");
                for d in crate::gf2m::Dispatch::all().filter(|d| !d.is_portable()) {
                    let run = |chain| {
                        let mut w = a.words.clone();
                        assert!(one_word_fold(d, &mut w, m, g, chain));
                        w
                    };
                    let name = d.name();
                    assert_eq!(run(Chain::Pow2k(7)), pow2k, "{name}, m = {m}, a = {a:x}");
                    assert_eq!(run(Chain::Mul(&b.words)), mul, "{name}, m = {m}");
                    assert_eq!(run(Chain::Pow(&e)), pow, "{name}, m = {m}, a = {a:x}");
                    if let Some(h) = &half {
                        assert_eq!(&run(Chain::HalfTrace), h, "{name}, m = {m}");
                    }
                }
            }
        }
        if !crate::gf2m::Dispatch::best().is_portable() {
            for w in 2..=9 {
                assert!(
                    covered.contains(&w),
                    "no field of {w} words took the carry-less fold"
                );
            }
        }
        for m in [233, 409, 577] {
            assert!(
                BinaryField::sparse_irreducible(m)
                    .unwrap()
                    .0
                    .one_word
                    .is_none(),
                "m = {m}"
            );
        }
        let f = BinaryField::new(Gf2Poly::from_exponents(&[192, 7, 2, 1, 0])).unwrap();
        assert!(f.0.one_word.is_none());
    }

    /// The divstep inversion agrees with Itoh–Tsujii (the generic
    /// algorithm on the stack arithmetic) on 0, 1, all ones and random
    /// elements, for fields of every word count it is compiled for (2 to
    /// 9, checked to be covered), on every `gf2m` backend of this CPU; the
    /// fields it cannot take (m a multiple of 64, past 9 words) have no
    /// plan.
    #[test]
    fn divsteps_agree_with_itoh_tsujii() {
        let mut state = 0x6469_7673_7465_7073;
        let mut fields = vec![BinaryField::new(Gf2Poly::from_exponents(&[127, 1, 0])).unwrap()];
        for m in [
            131, 163, 191, 233, 255, 283, 313, 359, 409, 450, 509, 571, 575,
        ] {
            fields.push(BinaryField::sparse_irreducible(m).unwrap());
        }
        let mut covered = Vec::new();
        for f in &fields {
            let m = f.degree();
            let (Some(plan), Reduction::Sparse(terms)) = (f.0.divstep.as_ref(), &f.0.reduction)
            else {
                continue;
            };
            assert_eq!(plan.words(), f.words(), "m = {m}");
            covered.push(plan.words());
            for a in inputs(f, &mut state) {
                let want = on_stack(&a, Invert);
                let got = Option::<Element>::from(a.invert()).unwrap_or(f.zero());
                assert_eq!(got.words, want, "m = {m}, a = {a:x}");
                for d in crate::gf2m::Dispatch::all() {
                    let got = plan.invert(d, terms, &a.words);
                    assert_eq!(got, want, "{}, m = {m}, a = {a:x}", d.name());
                }
            }
        }
        for w in 2..=9 {
            assert!(
                covered.contains(&w),
                "no field of {w} words took the divsteps"
            );
        }
        for m in [128, 192, 320, 576, 577, 1024] {
            let f = BinaryField::sparse_irreducible(m).unwrap();
            assert!(f.0.divstep.is_none(), "m = {m}");
        }
    }
}
