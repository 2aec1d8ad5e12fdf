//! Conversion between a Gaussian normal basis and a polynomial basis of
//! the same field, as a pair of precomputed GF(2) matrices.
//!
//! The isomorphism sends β to a root θ of β's minimal polynomial g in the
//! polynomial-basis field; the m roots θ^(2^r) give the m isomorphisms,
//! which differ by a rotation of the normal-basis coordinates.
//!
//! 1. g: the coordinates of β⁰ … β^m in the normal basis, and the linear
//!    relation β^m = Σ gⱼ βʲ (Gaussian elimination over GF(2)).
//! 2. A root of g (irreducible of degree m over GF(2), so it splits into
//!    the m conjugates over GF(2^m)) by the trace method (Berlekamp,
//!    *Factoring polynomials over large finite fields*, Math. Comp. 24,
//!    1970; the equal-degree splitting of Cantor and Zassenhaus): for a
//!    random δ, gcd(h, Tr(δz) mod h) splits h. Since g has coefficients in
//!    GF(2), z^(2^i) mod g is a GF(2) polynomial, computed once; then
//!    Tr(δz) mod g = Σᵢ δ^(2^i)·(z^(2^i) mod g) costs only additions.
//! 3. Which root: for the fields of FIPS 186-2's curves, the one that maps
//!    the polynomial-basis b of the B-curve to its published normal-basis
//!    value (FIPS 186-2 Appendix 6; pinned below); for other fields, the
//!    one for which the image of x, read as an m-bit string a₀ … a₍ₘ₋₁₎, is
//!    smallest (a documented convention of this library).
//!
//! Applying a matrix is m masked XORs of rows, no index or branch on the
//! element's bits. Setting up costs O(m²) field products (the gcds) and
//! O(m³/64) bit operations (the eliminations): milliseconds at m = 571.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// conversion matrices of the basis' dimension, built by the basis constructor and indexed by counters below it.
#![allow(clippy::indexing_slicing)]

use super::{GaussianNormalBasis, NormalBasisError, NormalElement};
use crate::gf2m::{BinaryField, Element};
use crate::gf2x::Gf2Poly;
use alloc::vec;
use alloc::vec::Vec;

/// The conversions both ways between a Gaussian normal basis and a
/// polynomial-basis field of the same degree.
///
/// ```
/// use fieldwork::gf2m::BinaryField;
/// use fieldwork::gf2m::normal::{GaussianNormalBasis, Isomorphism};
///
/// let nb = GaussianNormalBasis::new(233, 2)?;
/// let pb = BinaryField::sparse_irreducible(233)?;
/// let iso = Isomorphism::new(&nb, &pb)?;
/// // B-233's b (FIPS 186-4, polynomial basis) is FIPS 186-2's normal-basis b.
/// let b = pb.from_hex("0066647ede6c332c7f8c0923bb58213b333b20e9ce4281fe115f7d8f90ad")?;
/// assert_eq!(
///     iso.to_normal(&b)?.to_hex(),
///     "01a003e0962d4f9a8e407c904a9538163adb825212600c7752ad52233279"
/// );
/// assert_eq!(iso.from_normal(&iso.to_normal(&b)?)?, b);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct Isomorphism {
    basis: GaussianNormalBasis,
    field: BinaryField,
    /// Row i: θ^(2^i) in the polynomial basis (the image of β^(2^i)).
    to_pb: Vec<Vec<u64>>,
    /// Row j: the normal-basis coordinates of x^j.
    to_nb: Vec<Vec<u64>>,
}

/// FIPS 186-2 Appendix 6's B-curves: (m, t, b in the polynomial basis as
/// FIPS 186-4 D.1.3 prints it, b in the normal basis as FIPS 186-2 prints
/// it; both also in `tests/data/nist_binary_curves{,_normal}.txt` with
/// their sources). They pin which of the m isomorphisms is the standard one.
const PINS: &[(usize, usize, &str, &str)] = &[
    (
        163,
        4,
        "20a601907b8c953ca1481eb10512f78744a3205fd",
        "6645f3cacf1638e139c6cd13ef61734fbc9e3d9fb",
    ),
    (
        233,
        2,
        "066647ede6c332c7f8c0923bb58213b333b20e9ce4281fe115f7d8f90ad",
        "1a003e0962d4f9a8e407c904a9538163adb825212600c7752ad52233279",
    ),
    (
        283,
        6,
        "27b680ac8b8596da5a4af8a19a0303fca97fd7645309fa2a581485af6263e313b79a2f5",
        "157261b894739fb5a13503f55f0b3f10c5601166633102201138cc180c0206bdafbc951",
    ),
    (
        409,
        4,
        "0021a5c2c8ee9feb5c4b9a753b7b476b7fd6422ef1f3dd674761fa99d6ac27c8a9a197b272822f6cd57a55aa4f50ae317b13545f",
        "124d0651c3d3772f7f5a1fe6e715559e2129bdfa04d52f7b6ac7c532cf0ed06f610072d88ad2fdcc50c6fde72843670f8b3742a",
    ),
    (
        571,
        10,
        "02f40e7e2221f295de297117b7f3d62f5c6a97ffcb8ceff1cd6ba8ce4a9a18ad84ffabbd8efa59332be7ad6756a66e294afd185a78ff12aa520e4de739baca0c7ffeff7f2955727a",
        "3762d0d47116006179da35688eeaccf591a5cdea75000118d9608c59132d43426101a1dfb3774115f586623f75f00001ce611983c1275fa31f5bc9f4be1a0f467f01ca885c74777",
    ),
];

/// Σ over the set bits i of `bits` of `rows[i]`, with masks.
fn apply(rows: &[Vec<u64>], bits: &[u64], width: usize) -> Vec<u64> {
    let mut acc = vec![0u64; width];
    for (i, row) in rows.iter().enumerate() {
        let mask = core::hint::black_box((bits[i / 64] >> (i % 64)) & 1).wrapping_neg();
        for (a, r) in acc.iter_mut().zip(row) {
            *a ^= r & mask;
        }
    }
    acc
}

fn bit(v: &[u64], i: usize) -> bool {
    (v[i / 64] >> (i % 64)) & 1 == 1
}

/// The inverse of the m×m GF(2) matrix with rows `rows` (each m bits), as
/// rows: `inv[j]` with Σⱼ x_j·inv\[j\]… i.e. if y = Σ aᵢ rows\[i\] then
/// a = Σ_j y_j inv\[j\]. None if singular.
fn invert_matrix(rows: &[Vec<u64>], m: usize) -> Option<Vec<Vec<u64>>> {
    let w = m.div_ceil(64);
    // Augmented [rows | I]; eliminate so that the left becomes I.
    let mut a: Vec<(Vec<u64>, Vec<u64>)> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut e = vec![0u64; w];
            e[i / 64] |= 1 << (i % 64);
            (r.clone(), e)
        })
        .collect();
    // Column by column: rows are combinations of the original rows; we
    // want, for each output bit j, the combination whose left is e_j.
    for col in 0..m {
        let pivot = (col..m).find(|&r| bit(&a[r].0, col))?;
        a.swap(col, pivot);
        let (pl, pr) = a[col].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != col && bit(&row.0, col) {
                for (x, y) in row.0.iter_mut().zip(&pl) {
                    *x ^= y;
                }
                for (x, y) in row.1.iter_mut().zip(&pr) {
                    *x ^= y;
                }
            }
        }
    }
    // a[j] = (e_j, c_j): e_j = Σ c_j[i]·rows[i], so inv[j] = c_j.
    Some(a.into_iter().map(|(_, c)| c).collect())
}

/// A polynomial over the field, lowest coefficient first, no trailing zeros.
type Poly = Vec<Element>;

fn trim(p: &mut Poly) {
    while p.last().is_some_and(|c| bool::from(c.is_zero())) {
        p.pop();
    }
}

/// `a mod b` (b nonzero, trimmed).
fn poly_rem(mut a: Poly, b: &Poly) -> Option<Poly> {
    let lead_inv = Option::<Element>::from(b.last()?.invert())?;
    let db = b.len() - 1;
    trim(&mut a);
    while a.len() > db {
        let q = &a[a.len() - 1] * &lead_inv;
        let shift = a.len() - 1 - db;
        for (i, c) in b.iter().enumerate() {
            a[shift + i] = &a[shift + i] + &(&q * c);
        }
        trim(&mut a);
    }
    Some(a)
}

fn poly_gcd(mut a: Poly, mut b: Poly) -> Option<Poly> {
    trim(&mut a);
    trim(&mut b);
    while !b.is_empty() {
        let r = poly_rem(a, &b)?;
        a = b;
        b = r;
    }
    // Monic.
    let lead_inv = Option::<Element>::from(a.last()?.invert())?;
    Some(a.iter().map(|c| c * &lead_inv).collect())
}

/// `a / b` exactly (b divides a).
fn poly_div(mut a: Poly, b: &Poly) -> Option<Poly> {
    let lead_inv = Option::<Element>::from(b.last()?.invert())?;
    let db = b.len() - 1;
    trim(&mut a);
    let mut q = vec![a.first()?.field().zero(); a.len().saturating_sub(db)];
    while a.len() > db {
        let c = &a[a.len() - 1] * &lead_inv;
        let shift = a.len() - 1 - db;
        for (i, bc) in b.iter().enumerate() {
            a[shift + i] = &a[shift + i] + &(&c * bc);
        }
        q[shift] = c;
        trim(&mut a);
    }
    trim(&mut q);
    Some(q)
}

/// A deterministic generator for the splitting elements δ (public values).
pub(super) struct SplitMix(pub(super) u64);

impl SplitMix {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

impl Isomorphism {
    /// The standard conversion between `basis` and `field` (see the module
    /// docs for which of the m isomorphisms).
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::FieldDegree`] if the degrees differ.
    pub fn new(
        basis: &GaussianNormalBasis,
        field: &BinaryField,
    ) -> Result<Isomorphism, NormalBasisError> {
        let m = basis.degree();
        if field.degree() != m {
            return Err(NormalBasisError::FieldDegree {
                expected: m,
                actual: field.degree(),
            });
        }
        let w = m.div_ceil(64);
        // 1. β's minimal polynomial g from the coordinates of β^0 … β^m.
        let mut e0 = vec![0u64; w];
        e0[0] = 1;
        let beta = basis
            .from_coordinates(&e0)
            .map_err(|_| NormalBasisError::Degree(m))?;
        let mut powers = Vec::with_capacity(m + 1);
        let mut pw = basis.one();
        for _ in 0..=m {
            powers.push(pw.coordinates());
            pw = &pw * &beta;
        }
        // Rows of M: β^j's coordinates; solve c·M = β^m's coordinates by
        // inverting M (β^0 … β^(m−1) are a basis: β has degree m).
        let inv = invert_matrix(&powers[..m], m).ok_or(NormalBasisError::Degree(m))?;
        let g_low = apply(&inv, &powers[m], w);
        let mut g = Gf2Poly::from_u64s(&g_low);
        g.set_coeff(m, true);
        // 2. A root of g in the field.
        let theta = find_root(&g, field, m).ok_or(NormalBasisError::Degree(m))?;
        let mut iso = Isomorphism::from_root(basis, field, &theta)?;
        // 3. The standard rotation.
        let pin = PINS
            .iter()
            .find(|&&(pm, pt, _, _)| pm == m && pt == basis.basis_type() && field_is_nist(field));
        let r = match pin {
            Some(&(_, _, b_pb, b_nb)) => {
                let b = field
                    .from_hex(b_pb)
                    .map_err(|_| NormalBasisError::Encoding)?;
                let want = basis.from_hex(b_nb)?.coordinates();
                let got = iso.to_normal(&b)?.coordinates();
                (0..m)
                    .find(|&r| super::rotate_coordinates(&got, r, m) == want)
                    .ok_or(NormalBasisError::Encoding)?
            }
            None => {
                let mut x = vec![0u64; field.words()];
                x[0] = 2;
                let img = iso.to_normal(&field.from_words(&x).map_err(|_| {
                    NormalBasisError::FieldDegree {
                        expected: m,
                        actual: field.degree(),
                    }
                })?)?;
                let c = img.coordinates();
                (0..m)
                    .min_by_key(|&r| {
                        // a₀ most significant: compare the strings a₀ a₁ ….
                        let rc = super::rotate_coordinates(&c, r, m);
                        (0..m).map(|i| bit(&rc, i)).collect::<Vec<bool>>()
                    })
                    .unwrap_or(0)
            }
        };
        if r != 0 {
            // Rotating the images by r: the root θ^(2^(m − r)).
            let theta_r = theta.pow2k(m - r);
            iso = Isomorphism::from_root(basis, field, &theta_r)?;
        }
        Ok(iso)
    }

    /// The isomorphism β ↦ θ (θ a root of β's minimal polynomial).
    fn from_root(
        basis: &GaussianNormalBasis,
        field: &BinaryField,
        theta: &Element,
    ) -> Result<Isomorphism, NormalBasisError> {
        let m = basis.degree();
        let mut to_pb = Vec::with_capacity(m);
        let mut c = theta.clone();
        for _ in 0..m {
            to_pb.push(c.as_words().to_vec());
            c = c.square();
        }
        let to_nb = invert_matrix(&to_pb, m).ok_or(NormalBasisError::Degree(m))?;
        Ok(Isomorphism {
            basis: basis.clone(),
            field: field.clone(),
            to_pb,
            to_nb,
        })
    }

    /// The normal basis.
    pub fn basis(&self) -> &GaussianNormalBasis {
        &self.basis
    }

    /// The polynomial-basis field.
    pub fn field(&self) -> &BinaryField {
        &self.field
    }

    /// The normal-basis form of a polynomial-basis element.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::BasisMismatch`] if `a` is not of this field.
    pub fn to_normal(&self, a: &Element) -> Result<NormalElement, NormalBasisError> {
        if a.field() != &self.field {
            return Err(NormalBasisError::BasisMismatch);
        }
        let m = self.basis.degree();
        let c = apply(&self.to_nb, a.as_words(), m.div_ceil(64));
        self.basis.from_coordinates(&c)
    }

    /// The polynomial-basis form of a normal-basis element.
    ///
    /// # Errors
    ///
    /// [`NormalBasisError::BasisMismatch`] if `a` is not of this basis.
    pub fn from_normal(&self, a: &NormalElement) -> Result<Element, NormalBasisError> {
        if a.basis() != &self.basis {
            return Err(NormalBasisError::BasisMismatch);
        }
        let w = apply(&self.to_pb, &a.coordinates(), self.field.words());
        self.field
            .from_words(&w)
            .map_err(|_| NormalBasisError::Encoding)
    }
}

/// Whether the field's modulus is the NIST (lowest-weight) one of its
/// degree, to which the FIPS 186-2 pins refer.
fn field_is_nist(field: &BinaryField) -> bool {
    matches!(field.degree(), 163 | 233 | 283 | 409 | 571)
        && BinaryField::sparse_irreducible(field.degree())
            .is_ok_and(|nist| nist.modulus() == field.modulus())
}

/// A root of `g` (irreducible over GF(2) of degree m, so split into
/// conjugates over the field) by trace splitting.
fn find_root(g: &Gf2Poly, field: &BinaryField, m: usize) -> Option<Element> {
    // z^(2^i) mod g for i < m, as GF(2) polynomials.
    let mut zi = Vec::with_capacity(m);
    let mut z = Gf2Poly::x_pow(1);
    for _ in 0..m {
        zi.push(z.clone());
        z = z.square().checked_rem(g)?;
    }
    let lift = |p: &Gf2Poly| -> Poly {
        (0..=p.degree().unwrap_or(0))
            .map(|k| {
                if p.coeff(k) {
                    field.one()
                } else {
                    field.zero()
                }
            })
            .collect()
    };
    let mut h: Poly = lift(g);
    let mut rng = SplitMix(0x005e_ed0f_90a1_5b1d);
    // Each try splits h with probability about 1/2; 64·log2(m) tries fail
    // only with negligible probability.
    for _ in 0..64 * (usize::BITS as usize) {
        if h.len() == 2 {
            // h = z + h₀ (monic): the root is h₀ (characteristic 2).
            return Some(h[0].clone());
        }
        let delta = field.random(&mut RngAdapter(&mut rng));
        // T = Σ δ^(2^i)·(z^(2^i) mod g), then mod h.
        let mut t: Poly = vec![field.zero(); m];
        let mut d = delta;
        for p in &zi {
            for (k, tk) in t.iter_mut().enumerate() {
                if p.coeff(k) {
                    *tk = &*tk + &d;
                }
            }
            d = d.square();
        }
        let t = poly_rem(t, &h)?;
        let f = poly_gcd(h.clone(), t)?;
        if f.len() > 1 && f.len() < h.len() {
            let other = poly_div(h.clone(), &f)?;
            h = if f.len() <= other.len() { f } else { other };
        }
    }
    None
}

/// `rand_core::Rng` over [`SplitMix`].
struct RngAdapter<'a>(&'a mut SplitMix);

impl rand_core::TryRng for RngAdapter<'_> {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.next() as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.next())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for b in dst {
            *b = self.0.next() as u8;
        }
        Ok(())
    }
}
