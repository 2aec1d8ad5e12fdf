//! The native side of `fieldwork.GF2m`: one field object whose methods take
//! and return numpy `uint64` arrays of shape (n, words), word 0 lowest.
//!
//! The five NIST degrees use the fixed types `F163` … `F571` and their
//! batch kernels (`mul_slices`, `square_slices`, `invert_batch`); any other
//! modulus uses `BinaryField`, element by element. Every call checks the
//! shape and that no bit at or above m is set, and runs with the GIL
//! released.

use crate::poly::{Gf2Poly, require};
use fieldwork::gf2m::{BinaryField, F163, F233, F283, F409, F571, FieldElement, Gf2mError};
use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyValueError, PyZeroDivisionError};
use pyo3::prelude::*;

/// Which arithmetic a field uses.
#[derive(Clone)]
enum Kind {
    F163,
    F233,
    F283,
    F409,
    F571,
    Runtime(BinaryField),
}

/// Why an operation failed, raised as a Python exception after the GIL is
/// taken back.
enum OpError {
    Value(String),
    ZeroDivision(String),
}

impl From<OpError> for PyErr {
    fn from(e: OpError) -> PyErr {
        match e {
            OpError::Value(s) => PyValueError::new_err(s),
            OpError::ZeroDivision(s) => PyZeroDivisionError::new_err(s),
        }
    }
}

fn element_error(i: usize, e: Gf2mError) -> OpError {
    OpError::Value(format!("element {i}: {e}"))
}

/// Runs `$fixed` with `$F` the fixed type, or `$runtime` with `$f` the
/// run-time field.
macro_rules! dispatch {
    ($kind:expr, $F:ident => $fixed:expr, $f:ident => $runtime:expr) => {
        match $kind {
            Kind::F163 => {
                type $F = F163;
                $fixed
            }
            Kind::F233 => {
                type $F = F233;
                $fixed
            }
            Kind::F283 => {
                type $F = F283;
                $fixed
            }
            Kind::F409 => {
                type $F = F409;
                $fixed
            }
            Kind::F571 => {
                type $F = F571;
                $fixed
            }
            Kind::Runtime($f) => $runtime,
        }
    };
}

/// The elements of a fixed field from rows of words.
fn load<F: FieldElement>(words: &[u64]) -> Result<Vec<F>, OpError> {
    words
        .chunks_exact(F::WORDS)
        .enumerate()
        .map(|(i, w)| F::from_word_slice(w).map_err(|e| element_error(i, e)))
        .collect()
}

/// The words of fixed-field elements, row after row.
fn store<F: FieldElement>(v: &[F]) -> Vec<u64> {
    let mut out = Vec::with_capacity(v.len() * F::WORDS);
    for e in v {
        out.extend_from_slice(e.as_words());
    }
    out
}

/// The elements of a run-time field from rows of words.
fn load_rt(f: &BinaryField, words: &[u64]) -> Result<Vec<fieldwork::gf2m::Element>, OpError> {
    words
        .chunks_exact(f.words())
        .enumerate()
        .map(|(i, w)| f.from_words(w).map_err(|e| element_error(i, e)))
        .collect()
}

fn store_rt(v: &[fieldwork::gf2m::Element], words: usize) -> Vec<u64> {
    let mut out = Vec::with_capacity(v.len() * words);
    for e in v {
        out.extend_from_slice(e.as_words());
    }
    out
}

/// `op` on each element, streaming: load, compute, store.
fn fixed_map<F: FieldElement>(a: &[u64], op: impl Fn(&F) -> F) -> Result<Vec<u64>, OpError> {
    let mut out = Vec::with_capacity(a.len());
    for (i, w) in a.chunks_exact(F::WORDS).enumerate() {
        let e = F::from_word_slice(w).map_err(|e| element_error(i, e))?;
        out.extend_from_slice(op(&e).as_words());
    }
    Ok(out)
}

/// Elements per chunk of a batch operation: a chunk's inputs and outputs
/// stay in the L2 cache between loading, computing and storing (at m = 571,
/// 72 KiB per buffer), and a chunked batch inversion pays one field
/// inversion per chunk (at most 2.5 % more than one for the whole batch).
const CHUNK: usize = 1024;

/// Loads rows of words into `dst` (row `first + i` into `dst[i]`).
fn fill<F: FieldElement>(dst: &mut [F], words: &[u64], first: usize) -> Result<(), OpError> {
    for (i, (d, w)) in dst.iter_mut().zip(words.chunks_exact(F::WORDS)).enumerate() {
        *d = F::from_word_slice(w).map_err(|e| element_error(first + i, e))?;
    }
    Ok(())
}

/// `op(first, out, x)` over `a` chunk by chunk, the results appended.
fn chunked1<F: FieldElement>(
    a: &[u64],
    op: impl Fn(usize, &mut [F], &[F]) -> Result<(), OpError>,
) -> Result<Vec<u64>, OpError> {
    let w = F::WORDS;
    let mut out = Vec::with_capacity(a.len());
    let cap = CHUNK.min(a.len() / w);
    let (mut x, mut z) = (vec![F::ZERO; cap], vec![F::ZERO; cap]);
    for (c, ca) in a.chunks(CHUNK * w).enumerate() {
        let k = ca.len() / w;
        fill(&mut x[..k], ca, c * CHUNK)?;
        op(c * CHUNK, &mut z[..k], &x[..k])?;
        for e in &z[..k] {
            out.extend_from_slice(e.as_words());
        }
    }
    Ok(out)
}

/// `op(out, x, y)` over `a` and `b` (of one length) chunk by chunk.
fn chunked2<F: FieldElement>(
    a: &[u64],
    b: &[u64],
    op: impl Fn(&mut [F], &[F], &[F]) -> Result<(), OpError>,
) -> Result<Vec<u64>, OpError> {
    let w = F::WORDS;
    let mut out = Vec::with_capacity(a.len());
    let cap = CHUNK.min(a.len() / w);
    let (mut x, mut y, mut z) = (vec![F::ZERO; cap], vec![F::ZERO; cap], vec![F::ZERO; cap]);
    for (c, (ca, cb)) in a.chunks(CHUNK * w).zip(b.chunks(CHUNK * w)).enumerate() {
        let k = ca.len() / w;
        fill(&mut x[..k], ca, c * CHUNK)?;
        fill(&mut y[..k], cb, c * CHUNK)?;
        op(&mut z[..k], &x[..k], &y[..k])?;
        for e in &z[..k] {
            out.extend_from_slice(e.as_words());
        }
    }
    Ok(out)
}

fn length_error(e: Gf2mError) -> OpError {
    OpError::Value(e.to_string())
}

fn zero_check(first: usize, zero: impl Iterator<Item = bool>) -> Result<(), OpError> {
    for (i, z) in zero.enumerate() {
        if z {
            return Err(OpError::ZeroDivision(format!(
                "element {} is 0, which has no inverse",
                first + i
            )));
        }
    }
    Ok(())
}

/// A binary field GF(2^m) for the ``fieldwork.GF2m`` arrays (internal: use
/// ``fieldwork.GF2m``).
#[pyclass(frozen, name = "Field", module = "fieldwork._native")]
pub struct Field {
    kind: Kind,
    m: usize,
    words: usize,
}

impl Field {
    /// The words of `a` after checking its shape (n, words).
    fn rows<'a>(&self, a: &'a PyReadonlyArray2<'_, u64>, what: &str) -> PyResult<&'a [u64]> {
        let shape = a.shape();
        if shape[1] != self.words {
            return Err(PyValueError::new_err(format!(
                "{what}: GF(2^{}) elements are {} uint64 words, the array has shape {:?}",
                self.m, self.words, shape
            )));
        }
        Ok(a.as_slice()?)
    }

    fn output<'py>(&self, py: Python<'py>, v: Vec<u64>) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let n = v.len() / self.words;
        let arr = Array2::from_shape_vec((n, self.words), v)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyArray2::from_owned_array(py, arr))
    }

    /// A unary operation, element by element, with the GIL released.
    fn unary<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        op: impl Fn(&Kind, &[u64]) -> Result<Vec<u64>, OpError> + Send + Sync,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let words = self.rows(&a, "a")?;
        let kind = &self.kind;
        let v = py.detach(|| op(kind, words))?;
        self.output(py, v)
    }
}

#[pymethods]
impl Field {
    /// The NIST field of degree m (163, 233, 283, 409 or 571).
    #[staticmethod]
    fn nist(m: usize) -> PyResult<Self> {
        let (kind, words) = match m {
            163 => (Kind::F163, F163::WORDS),
            233 => (Kind::F233, F233::WORDS),
            283 => (Kind::F283, F283::WORDS),
            409 => (Kind::F409, F409::WORDS),
            571 => (Kind::F571, F571::WORDS),
            _ => {
                return Err(PyValueError::new_err(format!(
                    "GF2m({m}): the NIST degrees are 163, 233, 283, 409 and 571; \
                     use GF2m.from_modulus(poly) for another field"
                )));
            }
        };
        Ok(Field { kind, m, words })
    }

    /// GF(2)[x]/(f) for an irreducible f of degree 2 to 10000.
    #[staticmethod]
    fn from_modulus(py: Python<'_>, modulus: &Bound<'_, PyAny>) -> PyResult<Self> {
        let f = require(modulus, "modulus")?;
        let field = py
            .detach(|| BinaryField::new(f))
            .map_err(|e| PyValueError::new_err(format!("GF2m.from_modulus: {e}")))?;
        Ok(Field {
            m: field.degree(),
            words: field.words(),
            kind: Kind::Runtime(field),
        })
    }

    /// The degree m.
    #[getter]
    fn m(&self) -> usize {
        self.m
    }

    /// uint64 words per element, ceil(m/64).
    #[getter]
    fn words(&self) -> usize {
        self.words
    }

    /// Whether the field uses a fixed NIST type.
    #[getter]
    fn is_nist(&self) -> bool {
        !matches!(self.kind, Kind::Runtime(_))
    }

    /// The modulus f as a Gf2Poly.
    #[getter]
    fn modulus(&self) -> Gf2Poly {
        let poly = dispatch!(&self.kind,
            F => fieldwork::gf2x::Gf2Poly::from_exponents(F::modulus_exponents()),
            f => f.modulus().clone());
        Gf2Poly(poly)
    }

    /// Checks that every row is an element (ValueError otherwise).
    fn check(&self, py: Python<'_>, a: PyReadonlyArray2<'_, u64>) -> PyResult<()> {
        let words = self.rows(&a, "a")?;
        let kind = &self.kind;
        py.detach(
            || dispatch!(kind, F => load::<F>(words).map(drop), f => load_rt(f, words).map(drop)),
        )?;
        Ok(())
    }

    /// Row-wise products a[i]·b[i] (a and b of one shape).
    fn mul<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        b: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let wa = self.rows(&a, "a")?;
        let wb = self.rows(&b, "b")?;
        if wa.len() != wb.len() {
            return Err(PyValueError::new_err(format!(
                "mul: {} elements times {} elements",
                wa.len() / self.words,
                wb.len() / self.words
            )));
        }
        let kind = &self.kind;
        let v = py.detach(|| -> Result<Vec<u64>, OpError> {
            dispatch!(kind,
            F => chunked2::<F>(wa, wb, |z, x, y| F::mul_slices(z, x, y).map_err(length_error)),
            f => {
                let x = load_rt(f, wa)?;
                let y = load_rt(f, wb)?;
                let out: Vec<_> = x.iter().zip(&y).map(|(p, q)| p * q).collect();
                Ok(store_rt(&out, f.words()))
            })
        })?;
        self.output(py, v)
    }

    /// Row-wise squares.
    fn square<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        self.unary(py, a, |kind, w| {
            dispatch!(kind,
            F => chunked1::<F>(w, |_, z, x| F::square_slices(z, x).map_err(length_error)),
            f => {
                let x = load_rt(f, w)?;
                let out: Vec<_> = x.iter().map(|e| e.square()).collect();
                Ok(store_rt(&out, f.words()))
            })
        })
    }

    /// Row-wise inverses (one batch inversion); ZeroDivisionError if an
    /// element is 0.
    fn invert<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        self.unary(py, a, |kind, w| {
            dispatch!(kind,
            F => chunked1::<F>(w, |first, z, x| {
                zero_check(first, x.iter().map(|e| bool::from(e.is_zero())))?;
                z.copy_from_slice(x);
                F::invert_batch(z);
                Ok(())
            }),
            f => {
                let x = load_rt(f, w)?;
                zero_check(0, x.iter().map(|e| bool::from(e.is_zero())))?;
                let mut out = Vec::with_capacity(x.len());
                for (i, e) in x.iter().enumerate() {
                    let inv = Option::from(e.invert()).ok_or_else(|| {
                        OpError::ZeroDivision(format!("element {i} has no inverse"))
                    })?;
                    out.push(inv);
                }
                Ok(store_rt(&out, f.words()))
            })
        })
    }

    /// Row-wise square roots.
    fn sqrt<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        self.unary(py, a, |kind, w| {
            dispatch!(kind,
            F => fixed_map::<F>(w, |e| e.sqrt()),
            f => {
                let x = load_rt(f, w)?;
                let out: Vec<_> = x.iter().map(|e| e.sqrt()).collect();
                Ok(store_rt(&out, f.words()))
            })
        })
    }

    /// Row-wise half-traces (odd m only; ValueError for even m).
    fn half_trace<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        self.unary(py, a, |kind, w| {
            dispatch!(kind,
            F => fixed_map::<F>(w, |e| e.half_trace()),
            f => {
                let x = load_rt(f, w)?;
                let mut out = Vec::with_capacity(x.len());
                for e in &x {
                    out.push(e.half_trace().ok_or_else(|| OpError::Value(format!(
                        "the half-trace is defined for odd m only (m = {})", f.degree()
                    )))?);
                }
                Ok(store_rt(&out, f.words()))
            })
        })
    }

    /// Row-wise ``a**e`` for the exponent's little-endian uint64 words.
    fn pow<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        exponent: Vec<u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let e = &exponent;
        self.unary(py, a, move |kind, w| {
            dispatch!(kind,
            F => fixed_map::<F>(w, |x| x.pow(e)),
            f => {
                let x = load_rt(f, w)?;
                let out: Vec<_> = x.iter().map(|v| v.pow(e)).collect();
                Ok(store_rt(&out, f.words()))
            })
        })
    }

    /// Row-wise absolute traces, as a uint8 array of 0s and 1s.
    fn trace<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let words = self.rows(&a, "a")?;
        let kind = &self.kind;
        let v = py.detach(|| -> Result<Vec<u8>, OpError> {
            dispatch!(kind,
                F => Ok(load::<F>(words)?.iter().map(|e| u8::from(bool::from(e.trace()))).collect()),
                f => Ok(load_rt(f, words)?.iter().map(|e| u8::from(bool::from(e.trace()))).collect()))
        })?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// Row-wise roots z of z² + z = a: ``(z, ok)`` with ``ok[i] = 1`` where
    /// a root exists (then z + 1 is the other) and ``z[i] = 0`` where none
    /// does.
    #[allow(clippy::type_complexity)]
    fn solve_quadratic<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<(Bound<'py, PyArray2<u64>>, Bound<'py, PyArray1<u8>>)> {
        let words = self.rows(&a, "a")?;
        let kind = &self.kind;
        let (z, ok) = py.detach(|| -> Result<(Vec<u64>, Vec<u8>), OpError> {
            dispatch!(kind,
            F => {
                let x: Vec<F> = load(words)?;
                let mut ok = Vec::with_capacity(x.len());
                let mut z = Vec::with_capacity(x.len());
                for e in &x {
                    let r = e.solve_quadratic();
                    ok.push(u8::from(bool::from(r.is_some())));
                    z.push(r.unwrap_or(F::ZERO));
                }
                Ok((store(&z), ok))
            },
            f => {
                let x = load_rt(f, words)?;
                let mut ok = Vec::with_capacity(x.len());
                let mut z = Vec::with_capacity(x.len());
                for e in &x {
                    let r = e.solve_quadratic();
                    ok.push(u8::from(bool::from(r.is_some())));
                    z.push(Option::from(r).unwrap_or_else(|| f.zero()));
                }
                Ok((store_rt(&z, f.words()), ok))
            })
        })?;
        Ok((self.output(py, z)?, PyArray1::from_vec(py, ok)))
    }

    fn __repr__(&self) -> String {
        let modulus = self.modulus().0;
        format!("GF2m({modulus})")
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Field>()?;
    Ok(())
}
