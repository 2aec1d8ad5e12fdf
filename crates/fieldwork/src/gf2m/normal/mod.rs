//! Gaussian normal bases of GF(2^m): elements as coordinates on
//! {β, β², β⁴, …, β^(2^(m−1))}, where squaring is a rotation.
//!
//! # The basis
//!
//! For m and t with p = t·m + 1 prime and gcd(t·m / ord_p(2), m) = 1, let K
//! be the subgroup of order t of Z_p^* and γ a primitive p-th root of unity
//! over GF(2). The Gauss period β = Σ_{u∈K} γ^u lies in GF(2^m) and its
//! conjugates β^(2^i) form a normal basis, the type-t Gaussian normal basis
//! (IEEE P1363-2000 A.3.6; ANSI X9.62; FIPS 186-2 Appendix 6 uses t = 4,
//! 2, 6, 4, 10 for m = 163, 233, 283, 409, 571). t = 1 is the type-I
//! optimal normal basis, t = 2 the type-II.
//!
//! # Multiplication: the Gauss-period embedding
//!
//! Since ⟨2⟩·K = Z_p^*, the exponents 2^i·u (i < m, u ∈ K) run over Z_p^*
//! exactly once, so a = Σ aᵢ β^(2^i) is the image of
//! A(x) = Σᵢ aᵢ Σ_{u∈K} x^(2^i·u mod p) under x ↦ γ, a ring map
//! GF(2)\[x\]/(x^p − 1) → GF(2^(ord_p 2)) whose kernel contains
//! Φ_p = 1 + x + … + x^(p−1) (Gao, von zur Gathen, Panario and Shoup,
//! *Algorithms for exponentiation in finite fields*, J. Symbolic
//! Computation 29, 2000). An element is kept in that form — p bits,
//! symmetric under x ↦ x^u, coefficient of x⁰ zero (which picks one
//! representative modulo Φ_p) — so that:
//!
//! - a product is one p-bit carry-less product (the `gf2x` kernels), the
//!   fold x^p = 1, and a masked complement when the x⁰ coefficient came out
//!   set (subtracting Φ_p);
//! - a square is A(x²): a linear-time `gf2x` square and the fold; a
//!   square root is A(x^((p+1)/2)): the even/odd split and a rotation;
//! - the m coordinates are read at the positions 2^i mod p (u = 1), and
//!   written to all t positions of each, only when converting.
//!
//! The faithful word-level algorithms of the sources (Fan and Dai's
//! Algorithms 1 and 2 and formula (14), the RH algorithm of
//! Reyhani-Masoleh and Hasan and its improved form, Ning and Yin as Fan and
//! Dai list it, P1363 A.3.8, and Table 4's Koç–Acar Montgomery column) are
//! in `gf2m::normal::reproduce` (feature `reproduce`), for the comparison;
//! `peer-bench --reproduce fan-dai` writes the page
//! `docs/reproduce/004-fan-dai-<cpu>.md`.
//!
//! # Performance
//!
//! `cargo run --release -p peer-bench --features system-peers -- --filter
//! normal` reproduces Fan and Dai's Tables 3 and 4: the source algorithms
//! of `reproduce` and the polynomial basis against this embedding, and
//! one p-bit `gf2x` product beside each; the generated pages in
//! `docs/benchmarks/` hold the figures. Measured history and next ideas:
//! `docs/notes/gf2m-normal.md`.
//!
//! A product is one p-bit `gf2x` product (p = t·m + 1), the fold
//! x^p = 1 and the masked complement, so the p-bit product is its floor:
//! for type II (p = 2m + 1; m = 233: 8 words against the polynomial
//! basis' 4) about a 2m-bit product. Where the p-bit form has a `gf2x`
//! fixed kernel (1–9 or 16 words: every type-I field, and m = 131, 233,
//! 491 of type II) the product and the fold run with constant sizes
//! (`mul_fixed_size`, `fold_fixed`; the product written into the fold's
//! array by `mul_fixed_into`, not moved out of a returned one). Elsewhere
//! the fold is one straight pass over the words (`fold_into`, the
//! complement folded in) and no fixed-size buffer is zeroed; above the
//! p-bit product such a product pays the fold, the dispatch and the copy
//! of the call.
//!
//! Inversion is Itoh–Tsujii with the k-fold Frobenius maps done by reading
//! the coordinates out, rotating and writing back (m + t·m bit moves);
//! converting to the polynomial basis and inverting there would be faster
//! where an [`Isomorphism`] is at hand.
//!
//! # Rejected
//!
//! - For type II, two (m+1)-bit products instead of the p-bit one (after
//!   Bernstein and Lange's type-II optimal polynomial bases, WAIFI 2010):
//!   exact, but the glue (the halves, shifts by a run-time m, the mirror's
//!   bit reversal) cost more than the half-product saved.
//! - Elements kept as m-bit coordinates (reasoned, not measured): squaring
//!   a rotation, but every product would also scatter 2·t·m bits and
//!   gather m, bit by bit, on top of the p-bit product.
//! - `fold_into`'s body shared by the constant-size fold: slower, its
//!   bounds-checked `get`s not folded away.
//!
//! # Encoding
//!
//! Bytes and hex follow X9.62 / FIPS 186-2: the m-bit string a₀ a₁ … a₍ₘ₋₁₎
//! with a₀ the most significant bit, right-aligned in ⌈m/8⌉ bytes; the
//! element 1 is all ones.
//!
//! ```
//! use fieldwork::gf2m::normal::GaussianNormalBasis;
//!
//! let nb = GaussianNormalBasis::new(163, 4)?; // the basis of FIPS 186-2's B-163
//! let b = nb.from_hex("6645f3cacf1638e139c6cd13ef61734fbc9e3d9fb")?;
//! let x = nb.from_hex("0311103c17167564ace77ccb09c681f886ba54ee8")?;
//! let y = nb.from_hex("333ac13c6447f2e67613bf7009daf98c87bb50c7f")?;
//! // y² + xy = x³ + x² + b: the base point of B-163 in the normal basis.
//! assert_eq!(&y.square() + &(&x * &y), &(&(&x.square() * &x) + &x.square()) + &b);
//! assert_eq!(nb.one().to_hex(), "07".to_string() + &"f".repeat(40));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod convert;
#[cfg(feature = "reproduce")]
pub mod reproduce;

use super::algorithms::{self, Arith};
use super::runtime::{bit, or_bit, set_bit};
use super::{BinaryField, FieldElement};
use crate::gf2x::{Dispatch, Gf2Poly};
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec;
use alloc::vec::Vec;
use core::fmt;
use core::ops::{Add, Mul};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

pub use convert::Isomorphism;

/// Why a normal basis or a normal-basis element could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NormalBasisError {
    /// m must be at least 2 and at most [`GaussianNormalBasis::MAX_DEGREE`].
    Degree(usize),
    /// t must be at least 1, and t·m + 1 must fit the search.
    Type(usize),
    /// p = t·m + 1 is not prime.
    NotPrime {
        /// t·m + 1.
        p: usize,
    },
    /// gcd(t·m / ord_p(2), m) ≠ 1: the Gauss period does not generate a
    /// normal basis.
    NotNormal {
        /// t·m + 1.
        p: usize,
        /// The multiplicative order of 2 modulo p.
        order_of_2: usize,
    },
    /// No type t ≤ the search limit gives a Gaussian normal basis of this
    /// degree (only when m is divisible by 8).
    NoType(usize),
    /// A byte string or hex text of the wrong length, or bits past m.
    Encoding,
    /// Elements of two different bases combined.
    BasisMismatch,
    /// The polynomial-basis field has another degree than the basis.
    FieldDegree {
        /// The basis' degree.
        expected: usize,
        /// The field's degree.
        actual: usize,
    },
}

impl fmt::Display for NormalBasisError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NormalBasisError::Degree(m) => write!(f, "degree m = {m} is outside 2..=10000"),
            NormalBasisError::Type(t) => write!(f, "type t = {t} is outside 1..=64"),
            NormalBasisError::NotPrime { p } => write!(f, "p = t·m + 1 = {p} is not prime"),
            NormalBasisError::NotNormal { p, order_of_2 } => write!(
                f,
                "gcd(t·m / ord_p(2), m) ≠ 1 for p = {p} (2 has order {order_of_2} mod p): \
                 no Gaussian normal basis of this type"
            ),
            NormalBasisError::NoType(m) => {
                write!(f, "no Gaussian normal basis of degree {m} with t ≤ 64")
            }
            NormalBasisError::Encoding => {
                f.write_str("not an m-bit normal-basis string (length, hex digit, or bits past m)")
            }
            NormalBasisError::BasisMismatch => f.write_str("elements of different bases combined"),
            NormalBasisError::FieldDegree { expected, actual } => write!(
                f,
                "the polynomial-basis field has degree {actual}, the normal basis {expected}"
            ),
        }
    }
}

impl core::error::Error for NormalBasisError {}

pub(crate) struct Inner {
    m: usize,
    t: usize,
    p: usize,
    /// Words of a p-bit element.
    pw: usize,
    /// `index[k]` = i with k ≡ 2^i·u (mod p), u ∈ K, for 1 ≤ k < p (P1363
    /// A.3.7's F); `index[0]` unused.
    index: Vec<u32>,
    /// Bits at the positions 2^i mod p (the u = 1 copy of each coordinate).
    coordinate_mask: Vec<u64>,
    backend: Dispatch,
    /// The conversion to the polynomial basis of the fixed type of degree
    /// m, built on first use.
    #[cfg(feature = "std")]
    fixed_iso: std::sync::OnceLock<Result<Isomorphism, NormalBasisError>>,
}

/// A type-t Gaussian normal basis of GF(2^m). Cloning is cheap.
#[derive(Clone)]
pub struct GaussianNormalBasis(Arc<Inner>);

impl fmt::Debug for GaussianNormalBasis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GaussianNormalBasis {{ m: {}, t: {}, p: {} }}",
            self.0.m, self.0.t, self.0.p
        )
    }
}

impl PartialEq for GaussianNormalBasis {
    fn eq(&self, other: &GaussianNormalBasis) -> bool {
        self.0.m == other.0.m && self.0.t == other.0.t
    }
}

impl Eq for GaussianNormalBasis {}

fn is_prime(n: usize) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2;
    while d * d <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 1;
    }
    true
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The multiplicative order of 2 modulo the odd prime p.
fn order_of_2(p: usize) -> usize {
    let mut x = 2 % p;
    let mut k = 1;
    while x != 1 {
        x = x * 2 % p;
        k += 1;
    }
    k
}

impl GaussianNormalBasis {
    /// The largest degree accepted.
    pub const MAX_DEGREE: usize = 10_000;
    /// The largest type searched by [`Self::lowest_type`].
    pub const MAX_TYPE: usize = 64;

    /// The type-t Gaussian normal basis of GF(2^m).
    ///
    /// # Errors
    ///
    /// Which condition fails: the degree or type range, p = t·m + 1 not
    /// prime, or gcd(t·m / ord_p(2), m) ≠ 1.
    pub fn new(m: usize, t: usize) -> Result<GaussianNormalBasis, NormalBasisError> {
        if !(2..=Self::MAX_DEGREE).contains(&m) {
            return Err(NormalBasisError::Degree(m));
        }
        if !(1..=Self::MAX_TYPE).contains(&t) {
            return Err(NormalBasisError::Type(t));
        }
        let (p, index) = gauss_period_index(m, t)?;
        let pw = p.div_ceil(64);
        let mut coordinate_mask = vec![0u64; pw];
        let mut two_i = 1usize;
        for _ in 0..m {
            set_bit(&mut coordinate_mask, two_i);
            two_i = two_i * 2 % p;
        }
        Ok(GaussianNormalBasis(Arc::new(Inner {
            m,
            t,
            p,
            pw,
            index,
            coordinate_mask,
            backend: Dispatch::best(),
            #[cfg(feature = "std")]
            fixed_iso: std::sync::OnceLock::new(),
        })))
    }

    /// The Gaussian normal basis of GF(2^m) of the lowest type t.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::Degree`] out of range; [`NormalBasisError::NoType`]
    /// if no t ≤ [`Self::MAX_TYPE`] works (a Gaussian normal basis exists
    /// exactly when 8 ∤ m).
    pub fn lowest_type(m: usize) -> Result<GaussianNormalBasis, NormalBasisError> {
        if !(2..=Self::MAX_DEGREE).contains(&m) {
            return Err(NormalBasisError::Degree(m));
        }
        (1..=Self::MAX_TYPE)
            .find_map(|t| GaussianNormalBasis::new(m, t).ok())
            .ok_or(NormalBasisError::NoType(m))
    }

    /// The degree m.
    pub fn degree(&self) -> usize {
        self.0.m
    }

    /// The type t.
    pub fn basis_type(&self) -> usize {
        self.0.t
    }

    /// p = t·m + 1, the length of the embedding's products in bits.
    pub fn prime(&self) -> usize {
        self.0.p
    }

    /// Bytes of the encoding, ⌈m/8⌉.
    pub fn bytes(&self) -> usize {
        self.0.m.div_ceil(8)
    }

    fn element(&self, words: Vec<u64>) -> NormalElement {
        NormalElement {
            basis: self.clone(),
            words,
        }
    }

    /// 0.
    pub fn zero(&self) -> NormalElement {
        self.element(vec![0; self.0.pw])
    }

    /// 1 = Σ β^(2^i): every coordinate one.
    pub fn one(&self) -> NormalElement {
        let mut w = vec![u64::MAX; self.0.pw];
        if let Some(w0) = w.first_mut() {
            *w0 &= !1;
        }
        mask_to_p(&mut w, self.0.p);
        self.element(w)
    }

    /// The element with coordinates `coords` (bit i of word i/64 is the
    /// coefficient of β^(2^i)).
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::Encoding`] for a length other than ⌈m/64⌉ words
    /// or bits past m.
    pub fn from_coordinates(&self, coords: &[u64]) -> Result<NormalElement, NormalBasisError> {
        let m = self.0.m;
        if coords.len() != m.div_ceil(64)
            || coords
                .last()
                .is_some_and(|&w| !m.is_multiple_of(64) && w >> (m % 64) != 0)
        {
            return Err(NormalBasisError::Encoding);
        }
        Ok(self.element(self.arith().scatter(coords)))
    }

    /// The element of the X9.62 / FIPS 186-2 m-bit string a₀ … a₍ₘ₋₁₎ (a₀ the
    /// most significant bit) in ⌈m/8⌉ big-endian bytes.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::Encoding`] for another length or bits past m.
    pub fn from_be_bytes(&self, bytes: &[u8]) -> Result<NormalElement, NormalBasisError> {
        let m = self.0.m;
        if bytes.len() != self.bytes() {
            return Err(NormalBasisError::Encoding);
        }
        // Bit j of the big-endian integer is a_(m−1−j).
        let mut coords = vec![0u64; m.div_ceil(64)];
        for (j_byte, &byte) in bytes.iter().rev().enumerate() {
            for b in 0..8 {
                let j = 8 * j_byte + b;
                let bit = u64::from((byte >> b) & 1);
                if j >= m {
                    if bit != 0 {
                        return Err(NormalBasisError::Encoding);
                    }
                    continue;
                }
                or_bit(&mut coords, m - 1 - j, bit);
            }
        }
        self.from_coordinates(&coords)
    }

    /// The element from hexadecimal (optional `0x`, at most 2·⌈m/8⌉ digits).
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::Encoding`] for bad digits, too many, or bits past m.
    pub fn from_hex(&self, s: &str) -> Result<NormalElement, NormalBasisError> {
        let mut bytes = vec![0u8; self.bytes()];
        super::parse_hex(s, &mut bytes).map_err(|_| NormalBasisError::Encoding)?;
        self.from_be_bytes(&bytes)
    }

    /// A uniformly random element.
    pub fn random<R: rand_core::Rng + ?Sized>(&self, rng: &mut R) -> NormalElement {
        let m = self.0.m;
        let mut c: Vec<u64> = (0..m.div_ceil(64)).map(|_| rng.next_u64()).collect();
        if !m.is_multiple_of(64)
            && let Some(last) = c.last_mut()
        {
            *last &= (1 << (m % 64)) - 1;
        }
        match self.from_coordinates(&c) {
            Ok(e) => e,
            Err(_) => self.zero(),
        }
    }

    fn arith(&self) -> NbArith<'_> {
        NbArith(&self.0)
    }

    /// The conversion to and from the fixed polynomial-basis type of this
    /// degree (built on first use and kept, with `std`).
    fn fixed_isomorphism<F: FieldElement>(&self) -> Result<Isomorphism, NormalBasisError> {
        if F::M != self.0.m {
            return Err(NormalBasisError::FieldDegree {
                expected: self.0.m,
                actual: F::M,
            });
        }
        let build = || {
            let field = BinaryField::new(Gf2Poly::from_exponents(F::modulus_exponents()))
                .map_err(|_| NormalBasisError::Degree(F::M))?;
            Isomorphism::new(self, &field)
        };
        #[cfg(feature = "std")]
        return self.0.fixed_iso.get_or_init(build).clone();
        #[cfg(not(feature = "std"))]
        build()
    }

    /// The normal-basis form of a polynomial-basis element of the fixed
    /// type of this degree (e.g. [`F163`](crate::gf2m::F163) for m = 163),
    /// by the standard [`Isomorphism`].
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::FieldDegree`] if `F`'s degree is not m.
    pub fn to_normal<F: FieldElement>(&self, a: &F) -> Result<NormalElement, NormalBasisError> {
        let iso = self.fixed_isomorphism::<F>()?;
        let e = iso
            .field()
            .from_words(a.as_words())
            .map_err(|_| NormalBasisError::Encoding)?;
        iso.to_normal(&e)
    }

    /// The polynomial-basis form, as the fixed type `F` of this degree.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::FieldDegree`] if `F`'s degree is not m,
    /// [`NormalBasisError::BasisMismatch`] if `a` is of another basis.
    pub fn from_normal<F: FieldElement>(&self, a: &NormalElement) -> Result<F, NormalBasisError> {
        let iso = self.fixed_isomorphism::<F>()?;
        let e = iso.from_normal(a)?;
        F::from_word_slice(e.as_words()).map_err(|_| NormalBasisError::Encoding)
    }
}

/// p = t·m + 1 and P1363 A.3.7's F as a table (`index[k]` = i with
/// k ≡ 2^i·u (mod p), u in the order-t subgroup K; `index[0]` unused), if
/// the type-t Gaussian normal basis of GF(2^m) exists: p prime and
/// gcd(t·m / ord_p(2), m) = 1 (P1363 A.3.6). Shared by the basis and the
/// reproduction tables.
pub(super) fn gauss_period_index(
    m: usize,
    t: usize,
) -> Result<(usize, Vec<u32>), NormalBasisError> {
    let p = t * m + 1;
    if !is_prime(p) {
        return Err(NormalBasisError::NotPrime { p });
    }
    let k = order_of_2(p);
    if gcd(t * m / k, m) != 1 {
        return Err(NormalBasisError::NotNormal { p, order_of_2: k });
    }
    // A generator u of K: an element of order exactly t.
    let u = (2..p)
        .find(|&u| pow_mod(u, t, p) == 1 && (1..t).all(|j| pow_mod(u, j, p) != 1))
        .unwrap_or(1);
    let mut index = vec![u32::MAX; p];
    let mut two_i = 1usize;
    for i in 0..m {
        let mut k = two_i;
        for _ in 0..t {
            // k < p = index.len(): a residue mod p.
            if let Some(slot) = index.get_mut(k) {
                *slot = i as u32;
            }
            k = k * u % p;
        }
        two_i = two_i * 2 % p;
    }
    Ok((p, index))
}

fn pow_mod(b: usize, e: usize, p: usize) -> usize {
    let mut r = 1;
    for _ in 0..e {
        r = r * b % p;
    }
    r
}

/// Clears the bits at or above p.
fn mask_to_p(w: &mut [u64], p: usize) {
    if !p.is_multiple_of(64)
        && let Some(last) = w.last_mut()
    {
        *last &= (1 << (p % 64)) - 1;
    }
}

/// The embedding's arithmetic on p-bit word vectors.
struct NbArith<'a>(&'a Inner);

impl NbArith<'_> {
    /// [`fold_into`] a fresh element.
    fn fold(&self, c: &[u64]) -> Vec<u64> {
        let mut out = vec![0u64; self.0.pw];
        fold_into(self.0, c, &mut out);
        out
    }

    /// The p-bit form of m-bit coordinates: each coordinate written to its
    /// t positions (P1363's F, public indices).
    fn scatter(&self, coords: &[u64]) -> Vec<u64> {
        let mut w = vec![0u64; self.0.pw];
        for (k, &i) in self.0.index.iter().enumerate().skip(1) {
            or_bit(&mut w, k, bit(coords, i as usize));
        }
        w
    }

    /// The m coordinates of a p-bit form (read at the positions 2^i).
    // Arithmetic on the basis' p-bit vectors (`pw` words, indices below p or
    // m, set by the constructor), not input handling (issue 27's lint scope).
    #[allow(clippy::indexing_slicing)]
    fn gather(&self, words: &[u64]) -> Vec<u64> {
        let mut c = vec![0u64; self.0.m.div_ceil(64)];
        let mut k = 1usize;
        for i in 0..self.0.m {
            c[i / 64] |= ((words[k / 64] >> (k % 64)) & 1) << (i % 64);
            k = k * 2 % self.0.p;
        }
        c
    }
}

/// m-bit coordinates rotated by r: position i to (i + r) mod m.
// Arithmetic on the basis' p-bit vectors (`pw` words, indices below p or
// m, set by the constructor), not input handling (issue 27's lint scope).
#[allow(clippy::indexing_slicing)]
fn rotate_coordinates(c: &[u64], r: usize, m: usize) -> Vec<u64> {
    let mut out = vec![0u64; c.len()];
    for i in 0..m {
        let j = (i + r) % m;
        out[j / 64] |= ((c[i / 64] >> (i % 64)) & 1) << (j % 64);
    }
    out
}

impl Arith for NbArith<'_> {
    type E = Vec<u64>;
    fn degree(&self) -> usize {
        self.0.m
    }
    fn one(&self) -> Vec<u64> {
        let mut w = vec![u64::MAX; self.0.pw];
        if let Some(w0) = w.first_mut() {
            *w0 &= !1;
        }
        mask_to_p(&mut w, self.0.p);
        w
    }
    fn mul(&self, a: &Vec<u64>, b: &Vec<u64>) -> Vec<u64> {
        let mut out = vec![0u64; self.0.pw];
        if mul_fixed_size(self.0, a, b, &mut out) {
            return out;
        }
        let mut c = vec![0u64; 2 * self.0.pw];
        let done = self.0.backend.mul_into(&mut c, a, b);
        debug_assert!(done.is_ok(), "output sized a.len() + b.len()");
        self.fold(&c)
    }
    fn square(&self, a: &Vec<u64>) -> Vec<u64> {
        let mut c = vec![0u64; 2 * self.0.pw];
        let done = self.0.backend.square_into(&mut c, a);
        debug_assert!(done.is_ok(), "output sized 2·a.len()");
        // A(x)² = A(x²) keeps x⁰'s coefficient at zero: no flip happens.
        self.fold(&c)
    }
    /// `a^(2^k)`: k squarings for small k, else the coordinates read out,
    /// rotated by k and written back (m + p bit moves at public positions),
    /// whatever k.
    fn pow2k(&self, a: &Vec<u64>, k: usize) -> Vec<u64> {
        let k = k % self.0.m;
        if k < 4 {
            return algorithms::pow2k_by_squaring(self, a, k);
        }
        let c = self.gather(a);
        self.scatter(&rotate_coordinates(&c, k, self.0.m))
    }
    fn add(&self, a: &Vec<u64>, b: &Vec<u64>) -> Vec<u64> {
        a.iter().zip(b).map(|(x, y)| x ^ y).collect()
    }
    fn select(&self, a: &Vec<u64>, b: &Vec<u64>, choice: Choice) -> Vec<u64> {
        a.iter()
            .zip(b)
            .map(|(x, y)| u64::conditional_select(x, y, choice))
            .collect()
    }
}

/// An element of GF(2^m) in a Gaussian normal basis, tied to its basis.
///
/// Operators between elements of different bases panic (a programming
/// error); [`NormalElement::try_mul`] returns an error instead.
///
/// Not zeroized on drop (every operation makes and drops elements): wipe
/// one holding a secret with [`zeroize::Zeroize`].
#[derive(Clone)]
pub struct NormalElement {
    basis: GaussianNormalBasis,
    /// The embedding: p bits, symmetric, x⁰ coefficient zero.
    words: Vec<u64>,
}

/// Overwrites the element's words with zero (volatile writes), in place
/// before its heap buffer is freed; the element is then zero. Not done on
/// drop, as for [`crate::gf2m::Element`].
impl zeroize::Zeroize for NormalElement {
    fn zeroize(&mut self) {
        zeroize::Zeroize::zeroize(self.words.as_mut_slice());
    }
}

impl NormalElement {
    fn with(&self, words: Vec<u64>) -> NormalElement {
        NormalElement {
            basis: self.basis.clone(),
            words,
        }
    }

    /// The basis.
    pub fn basis(&self) -> &GaussianNormalBasis {
        &self.basis
    }

    /// The coordinates: bit i of word i/64 is the coefficient of β^(2^i).
    pub fn coordinates(&self) -> Vec<u64> {
        self.basis.arith().gather(&self.words)
    }

    /// The X9.62 / FIPS 186-2 m-bit string in ⌈m/8⌉ big-endian bytes.
    pub fn to_be_bytes(&self) -> Vec<u8> {
        let m = self.basis.0.m;
        let c = self.coordinates();
        let n = self.basis.bytes();
        let mut out = vec![0u8; n];
        for i in 0..m {
            let j = m - 1 - i; // bit j of the integer
            if let Some(byte) = out.iter_mut().rev().nth(j / 8) {
                *byte |= (bit(&c, i) as u8) << (j % 8);
            }
        }
        out
    }

    /// The bytes in lowercase hexadecimal, 2·⌈m/8⌉ digits.
    pub fn to_hex(&self) -> String {
        use core::fmt::Write;
        let mut s = String::new();
        for b in self.to_be_bytes() {
            let _ = write!(s, "{b:02x}");
        }
        s
    }

    /// Whether this is 0.
    pub fn is_zero(&self) -> Choice {
        self.words.iter().fold(0, |a, w| a | w).ct_eq(&0)
    }

    fn same_basis(&self, other: &NormalElement) -> Result<(), NormalBasisError> {
        if self.basis == other.basis {
            Ok(())
        } else {
            Err(NormalBasisError::BasisMismatch)
        }
    }

    /// `self · other`.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::BasisMismatch`] for elements of different bases.
    pub fn try_mul(&self, other: &NormalElement) -> Result<NormalElement, NormalBasisError> {
        self.same_basis(other)?;
        Ok(self.with(self.basis.arith().mul(&self.words, &other.words)))
    }

    /// `self + other`.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::BasisMismatch`] for elements of different bases.
    pub fn try_add(&self, other: &NormalElement) -> Result<NormalElement, NormalBasisError> {
        self.same_basis(other)?;
        Ok(self.with(self.basis.arith().add(&self.words, &other.words)))
    }

    /// `a²`: the coordinates rotated by one.
    pub fn square(&self) -> NormalElement {
        self.with(self.basis.arith().square(&self.words))
    }

    /// `√a`: the coordinates rotated back by one; A(x^((p+1)/2)).
    // Arithmetic on the basis' p-bit vectors (`pw` words, indices below p or
    // m, set by the constructor), not input handling (issue 27's lint scope).
    #[allow(clippy::indexing_slicing)]
    pub fn sqrt(&self) -> NormalElement {
        // √ is the (m − 1)-fold square: one rotation the other way, done
        // here as m − 1 linear-time squarings would be wasteful; instead
        // A(x) = E(x²) + x·O(x²) ⇒ A(x^((p+1)/2)) = E(x) + x^((p+1)/2)·O(x)
        // (x^(p+1) = x).
        let inner = &self.basis.0;
        let (p, pw) = (inner.p, inner.pw);
        let mut e = vec![0u64; pw];
        let mut o = vec![0u64; pw];
        for (i, &w) in self.words.iter().enumerate() {
            let (we, wo) = (
                u64::from(super::words::gather_even(w)),
                u64::from(super::words::gather_even(w >> 1)),
            );
            e[i / 2] |= we << (32 * (i % 2));
            o[i / 2] |= wo << (32 * (i % 2));
        }
        // O(x)·x^h mod x^p − 1, h = (p+1)/2: a rotation of the p-bit O.
        let h = p.div_ceil(2);
        let mut r = vec![0u64; 2 * pw + 1];
        for (i, &w) in o.iter().enumerate() {
            let at = 64 * i + h;
            r[at / 64] ^= w << (at % 64);
            if at % 64 != 0 {
                r[at / 64 + 1] ^= w >> (64 - at % 64);
            }
        }
        let r = NbArith(inner).fold(&r);
        self.with(e.iter().zip(&r).map(|(x, y)| x ^ y).collect())
    }

    /// `a^(2^k)`: the coordinates rotated by k.
    pub fn pow2k(&self, k: usize) -> NormalElement {
        let k = k % self.basis.0.m;
        self.with(algorithms::pow2k(&self.basis.arith(), &self.words, k))
    }

    /// `a^e`, the exponent as little-endian words.
    pub fn pow(&self, exponent: &[u64]) -> NormalElement {
        self.with(algorithms::pow(&self.basis.arith(), &self.words, exponent))
    }

    /// `a^(−1)` by Itoh–Tsujii; none for 0.
    pub fn invert(&self) -> CtOption<NormalElement> {
        let inv = self.with(algorithms::invert(&self.basis.arith(), &self.words));
        CtOption::new(inv, !self.is_zero())
    }

    /// The trace Tr(a) = Σ aᵢ: the parity of the coordinates.
    pub fn trace(&self) -> Choice {
        let t = self
            .words
            .iter()
            .zip(&self.basis.0.coordinate_mask)
            .fold(0u64, |t, (x, m)| t ^ (x & m));
        Choice::from((t.count_ones() & 1) as u8)
    }
}

impl fmt::Debug for NormalElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NormalElement({})", self.to_hex())
    }
}

/// The X9.62 hex string.
impl fmt::Display for NormalElement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

/// Same basis and value; the values compared in constant time.
impl PartialEq for NormalElement {
    fn eq(&self, other: &NormalElement) -> bool {
        self.basis == other.basis && bool::from(self.words.ct_eq(&other.words))
    }
}

impl Eq for NormalElement {}

impl ConstantTimeEq for NormalElement {
    fn ct_eq(&self, other: &NormalElement) -> Choice {
        if self.basis != other.basis {
            return Choice::from(0);
        }
        self.words.ct_eq(&other.words)
    }
}

/// The product in place: the p-bit product in a stack buffer (when it
/// fits), folded into `self`'s words — no allocation.
///
/// # Panics
///
/// If the elements belong to different bases.
impl core::ops::MulAssign<&NormalElement> for NormalElement {
    #[allow(
        clippy::panic,
        reason = "operator traits cannot return an error: elements of different bases are a documented panic; `try_mul` / `try_add` return it"
    )]
    // The stack tiers are sliced to `2·pw`, checked against their sizes
    // just before (issue 27's lint scope: arithmetic, not input handling).
    #[allow(clippy::indexing_slicing)]
    fn mul_assign(&mut self, rhs: &NormalElement) {
        if let Err(e) = self.same_basis(rhs) {
            panic!("{e}");
        }
        let inner = &self.basis.0;
        let pw = inner.pw;
        // Stack buffers in two tiers (zeroing 2 KiB would cost more than
        // a 653-bit product's overhead).
        let (a, b) = (&self.words, &rhs.words);
        if has_fixed_size(pw) {
            let mut fixed = [0u64; 16];
            if mul_fixed_size(inner, a, b, &mut fixed) {
                self.words.copy_from_slice(&fixed[..pw]);
                return;
            }
        }
        if 2 * pw <= 32 {
            let mut c = [0u64; 32];
            let done = inner.backend.mul_into(&mut c[..2 * pw], a, b);
            debug_assert!(done.is_ok(), "output sized a.len() + b.len()");
            fold_into(inner, &c[..2 * pw], &mut self.words);
        } else if 2 * pw <= 256 {
            let mut c = [0u64; 256];
            let done = inner.backend.mul_into(&mut c[..2 * pw], a, b);
            debug_assert!(done.is_ok(), "output sized a.len() + b.len()");
            fold_into(inner, &c[..2 * pw], &mut self.words);
        } else {
            self.words = NbArith(inner).mul(a, b);
        }
    }
}

/// The sum in place (no allocation): XOR in characteristic 2.
///
/// # Panics
///
/// If the elements belong to different bases.
#[allow(clippy::suspicious_op_assign_impl)]
impl core::ops::AddAssign<&NormalElement> for NormalElement {
    #[allow(
        clippy::panic,
        reason = "operator traits cannot return an error: elements of different bases are a documented panic; `try_mul` / `try_add` return it"
    )]
    fn add_assign(&mut self, rhs: &NormalElement) {
        if let Err(e) = self.same_basis(rhs) {
            panic!("{e}");
        }
        for (x, y) in self.words.iter_mut().zip(&rhs.words) {
            *x ^= y;
        }
    }
}

/// Calls the macro `$m` with the word counts that have a `gf2x` fixed
/// kernel: the one list [`has_fixed_size`] and [`mul_fixed_size`] share.
macro_rules! fixed_sizes {
    ($m:ident) => {
        $m!(1 2 3 4 5 6 7 8 9 16)
    };
}

/// Whether [`mul_fixed_size`] takes p-bit forms of `pw` words.
#[inline(always)]
fn has_fixed_size(pw: usize) -> bool {
    macro_rules! one_of {
        ($($n:literal)*) => {
            matches!(pw, $($n)|*)
        };
    }
    fixed_sizes!(one_of)
}

/// `out = a·b` when the p-bit form has a `gf2x` fixed kernel (pw = 1…9 or
/// 16 words: the type-I fields, and m = 131, 233, 491 of type II): the
/// product and the fold with constant sizes, no dispatch on the length.
/// `false` (and `out` untouched) for other sizes; `out` holds at least pw
/// words.
fn mul_fixed_size(inner: &Inner, a: &[u64], b: &[u64], out: &mut [u64]) -> bool {
    macro_rules! sizes {
        ($($n:literal)*) => {
            match inner.pw {
                $($n => {
                    let (Ok(x), Ok(y)) = (<&[u64; $n]>::try_from(a), <&[u64; $n]>::try_from(b)) else {
                        return false;
                    };
                    let mut c = [0u64; 2 * $n];
                    inner.backend.mul_fixed_into(&mut c, x, y);
                    fold_fixed::<$n, { 2 * $n }>(inner.p, &c, out);
                    true
                })*
                _ => false,
            }
        };
    }
    fixed_sizes!(sizes)
}

/// [`fold_into`] with constant sizes (`P2 = 2·PW`). Kept apart: `fold_into`'s
/// body inlined with a literal pw was slower, its bounds-checked `get`s not
/// folded away (the figures: `docs/notes/gf2m-normal.md`).
#[inline(always)]
// Arithmetic on the basis' p-bit vectors (`pw` words, indices below p or
// m, set by the constructor), the hot fold: no checked access (issue 27's lint scope).
#[allow(clippy::indexing_slicing)]
fn fold_fixed<const PW: usize, const P2: usize>(p: usize, c: &[u64; P2], out: &mut [u64]) {
    let (w, s) = (p / 64, p % 64);
    let low_last = if s == 0 { u64::MAX } else { (1u64 << s) - 1 };
    // c >> p, word by word: c has 2·PW words and p ≥ 64·(PW − 1).
    let mut hi = [0u64; PW];
    for (i, h) in hi.iter_mut().enumerate() {
        let lo = if w + i < P2 { c[w + i] } else { 0 };
        let up = if w + i + 1 < P2 { c[w + i + 1] } else { 0 };
        *h = if s == 0 {
            lo
        } else {
            (lo >> s) | (up << (64 - s))
        };
    }
    let mut r = [0u64; PW];
    for i in 0..PW {
        r[i] = c[i] ^ hi[i];
    }
    r[PW - 1] &= low_last;
    // The representative with a zero x⁰ coefficient: add Φ_p when it is 1.
    let flip = core::hint::black_box(r[0] & 1).wrapping_neg();
    for x in r.iter_mut() {
        *x ^= flip;
    }
    r[PW - 1] &= low_last;
    out[..PW].copy_from_slice(&r);
}

/// `c mod (x^p − 1)` (c of degree < 2p − 1) written into `out` (pw words),
/// then the representative with a zero x⁰ coefficient (adding Φ_p when it
/// is one, a masked complement).
///
/// p is an odd prime, so p = 64·(pw − 1) + s with 0 < s < 64: word i of
/// `c >> p` is `c[w+i] >> s | c[w+i+1] << (64 − s)` with w = pw − 1, all
/// inside c's 2·pw words, and the bits of word pw − 1 at and above s (of
/// `c`, of `c >> p`, which has degree < p − 1, and of the complement) are
/// cleared once at the end. One straight loop with no per-word
/// conditions: at m = 163, t = 4 (11 words) the earlier per-word `get`s,
/// edge cases and second pass cost about as much as a third of the
/// product.
// Arithmetic on the basis' p-bit vectors (`pw` words, indices below p or
// m, set by the constructor), the hot fold: no checked access (issue 27's lint scope).
#[allow(clippy::indexing_slicing)]
fn fold_into(inner: &Inner, c: &[u64], out: &mut [u64]) {
    let (p, pw) = (inner.p, inner.pw);
    let (w, s) = (p / 64, p % 64);
    let (Some(low), Some(high), Some(next)) =
        (c.get(..pw), c.get(w..w + pw), c.get(w + 1..w + 1 + pw))
    else {
        // Not reached: c holds 2·pw words and w = pw − 1 (p odd).
        return fold_into_general(inner, c, out);
    };
    if s == 0 {
        return fold_into_general(inner, c, out);
    }
    let Some(out) = out.get_mut(..pw) else {
        return;
    };
    // The x⁰ coefficient of the folded value decides the complement, so
    // it is known before the loop (`next[0] << (64 − s)` has bit 0 clear):
    // one pass.
    let flip = core::hint::black_box((low[0] ^ (high[0] >> s)) & 1).wrapping_neg();
    // Indexed over slices of one known length (the form LLVM vectorises).
    for i in 0..pw {
        out[i] = low[i] ^ (high[i] >> s) ^ (next[i] << (64 - s)) ^ flip;
    }
    out[pw - 1] &= (1u64 << s) - 1;
}

/// [`fold_into`] for any p and any length of `c` (words past its end read
/// as zero).
// `out` holds pw ≥ 1 words (the basis' form length, set by the
// constructor), as for `fold_into`.
#[allow(clippy::indexing_slicing)]
fn fold_into_general(inner: &Inner, c: &[u64], out: &mut [u64]) {
    let (p, pw) = (inner.p, inner.pw);
    let (w, s) = (p / 64, p % 64);
    let low_last = if s == 0 { u64::MAX } else { (1u64 << s) - 1 };
    for (i, o) in out.iter_mut().enumerate().take(pw) {
        let lo = c.get(w + i).copied().unwrap_or(0);
        let lo = if i == 0 && s != 0 { lo & !low_last } else { lo };
        let hi = c.get(w + i + 1).copied().unwrap_or(0);
        let high = if s == 0 {
            lo
        } else {
            (lo >> s) | (hi << (64 - s))
        };
        let low = if i == pw - 1 {
            c.get(i).copied().unwrap_or(0) & low_last
        } else {
            c.get(i).copied().unwrap_or(0)
        };
        *o = low ^ high;
    }
    out[pw - 1] &= low_last;
    let flip = core::hint::black_box(out[0] & 1).wrapping_neg();
    for x in out.iter_mut() {
        *x ^= flip;
    }
    out[pw - 1] &= low_last;
}

/// `impl $Op for &NormalElement` by `try_$op`, panicking on a basis
/// mismatch (one body for `+` and `*`).
macro_rules! by_reference {
    ($Op:ident, $op:ident, $try_op:ident) => {
        impl $Op for &NormalElement {
            type Output = NormalElement;
            /// # Panics
            ///
            /// If the elements belong to different bases.
            #[allow(
                clippy::panic,
                reason = "operator traits cannot return an error: elements of different bases are a documented panic; `try_mul` / `try_add` return it"
            )]
            fn $op(self, rhs: &NormalElement) -> NormalElement {
                match self.$try_op(rhs) {
                    Ok(e) => e,
                    Err(e) => panic!("{e}"),
                }
            }
        }
    };
}

by_reference!(Add, add, try_add);
by_reference!(Mul, mul, try_mul);

#[cfg(test)]
mod tests {
    use super::{GaussianNormalBasis, fold_into, fold_into_general, mul_fixed_size};
    use alloc::vec;
    use alloc::vec::Vec;

    /// Marsaglia's xorshift64 from `state` (nonzero): reproducible test
    /// words.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    /// The fixed-size product (a `gf2x` fixed kernel, the fold with constant
    /// sizes) gives the words of the general one (any-length product, then
    /// [`fold_into`]), through `mul_fixed_size`, `*=` and `try_mul`, for p-bit
    /// forms of every fixed kernel size.
    #[test]
    fn fixed_size_product_matches_the_general_one() {
        let mut next = xorshift(0x243f_6a88_85a3_08d3_u64);
        let mut seen = Vec::new();
        for (m, t) in [
            (4, 1),
            (10, 1),
            (28, 1),
            (60, 1),
            (66, 1),
            (100, 1),
            (130, 1),
            (162, 1),
            (226, 1),
            (292, 1),
            (348, 1),
            (418, 1),
            (508, 1),
            (562, 1),
            (131, 2),
            (233, 2),
            (491, 2),
            (5, 2),
            (29, 2),
            (53, 2),
            (163, 4),
        ] {
            let Ok(nb) = GaussianNormalBasis::new(m, t) else {
                continue;
            };
            let inner = &nb.0;
            seen.push(inner.pw);
            for _ in 0..20 {
                let mut coords = |k: u64| -> Vec<u64> {
                    let mut c: Vec<u64> = (0..m.div_ceil(64)).map(|_| next() ^ k).collect();
                    if m % 64 != 0 {
                        let last = c.len() - 1;
                        c[last] &= (1 << (m % 64)) - 1;
                    }
                    c
                };
                let (ca, cb) = (coords(0), coords(1));
                let (a, b) = (nb.arith().scatter(&ca), nb.arith().scatter(&cb));
                let mut c = vec![0u64; 2 * inner.pw];
                assert!(inner.backend.mul_into(&mut c, &a, &b).is_ok());
                let mut want = vec![0u64; inner.pw];
                fold_into(inner, &c, &mut want);
                let mut got = [0u64; 16];
                if mul_fixed_size(inner, &a, &b, &mut got) {
                    assert_eq!(&got[..inner.pw], &want[..], "({m}, {t})");
                }
                let (Ok(x), Ok(y)) = (nb.from_coordinates(&ca), nb.from_coordinates(&cb)) else {
                    panic!("coordinates below m");
                };
                let Ok(xy) = x.try_mul(&y) else {
                    panic!("same basis");
                };
                assert_eq!(xy.words, want, "({m}, {t}) try_mul");
                let mut z = x.clone();
                z *= &y;
                assert_eq!(z.words, want, "({m}, {t}) *=");
            }
        }
        for pw in [1, 2, 3, 4, 5, 8, 9, 16] {
            assert!(
                seen.contains(&pw),
                "no test field with a {pw}-word form: {seen:?}"
            );
        }
    }

    /// The straight-loop fold equals the general one (per-word bounds and
    /// edge cases, the earlier form) on random products of degree < 2p − 1,
    /// for every type of Fan–Dai's Table 4 and the type-I fields.
    #[test]
    fn straight_fold_matches_the_general_one() {
        let mut next = xorshift(0x1319_8a2e_0370_7344_u64);
        for (m, t) in [
            (163, 4),
            (277, 4),
            (409, 4),
            (283, 6),
            (571, 10),
            (563, 14),
            (131, 2),
            (233, 2),
            (162, 1),
            (4, 1),
        ] {
            let Ok(nb) = GaussianNormalBasis::new(m, t) else {
                panic!("({m}, {t}) is a Gaussian normal basis");
            };
            let inner = &nb.0;
            let (p, pw) = (inner.p, inner.pw);
            for _ in 0..50 {
                let mut c: Vec<u64> = (0..2 * pw).map(|_| next()).collect();
                // Degree < 2p − 1: clear bits 2p − 1 and up.
                let top = 2 * p - 1;
                for (i, x) in c.iter_mut().enumerate() {
                    if 64 * i >= top {
                        *x = 0;
                    } else if 64 * (i + 1) > top {
                        *x &= (1u64 << (top - 64 * i)) - 1;
                    }
                }
                let (mut got, mut want) = (vec![0u64; pw], vec![0u64; pw]);
                fold_into(inner, &c, &mut got);
                fold_into_general(inner, &c, &mut want);
                assert_eq!(got, want, "({m}, {t})");
            }
        }
    }
}
