//! Gaussian normal bases: `fieldwork.GaussianNormalBasis` on coordinate
//! arrays, and the conversion to and from a polynomial basis.
//!
//! Elements are numpy `uint64` arrays of shape (n, ceil(m/64)): bit i of
//! word i/64 is the coefficient of β^(2^i). The library keeps an element in
//! its Gauss-period embedding; each call converts in and out (the cost of
//! reading m coordinates), element by element, with the GIL released.

use crate::poly::require;
use fieldwork::gf2m::BinaryField;
use fieldwork::gf2m::normal::{GaussianNormalBasis, Isomorphism, NormalBasisError, NormalElement};
use fieldwork::gf2x::Gf2Poly as Poly;
use numpy::ndarray::Array2;
use numpy::{PyArray1, PyArray2, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyValueError, PyZeroDivisionError};
use pyo3::prelude::*;
use std::sync::Mutex;

fn basis_error(e: NormalBasisError) -> PyErr {
    PyValueError::new_err(format!("normal basis: {e}"))
}

/// A type-t Gaussian normal basis of GF(2^m) (internal: use
/// ``fieldwork.GaussianNormalBasis``).
#[pyclass(frozen, name = "NormalBasis", module = "fieldwork._native")]
pub struct NormalBasis {
    nb: GaussianNormalBasis,
    words: usize,
    /// The last isomorphism used, by polynomial modulus.
    iso: Mutex<Option<(Poly, Isomorphism)>>,
}

impl NormalBasis {
    fn wrap(nb: GaussianNormalBasis) -> Self {
        NormalBasis {
            words: nb.degree().div_ceil(64),
            nb,
            iso: Mutex::new(None),
        }
    }

    fn rows<'a>(&self, a: &'a PyReadonlyArray2<'_, u64>) -> PyResult<&'a [u64]> {
        let shape = a.shape();
        if shape[1] != self.words {
            return Err(PyValueError::new_err(format!(
                "normal-basis elements of degree {} are {} uint64 words, the array has shape {:?}",
                self.nb.degree(),
                self.words,
                shape
            )));
        }
        Ok(a.as_slice()?)
    }

    fn load(&self, w: &[u64]) -> Result<Vec<NormalElement>, String> {
        w.chunks_exact(self.words)
            .enumerate()
            .map(|(i, c)| {
                self.nb
                    .from_coordinates(c)
                    .map_err(|e| format!("element {i}: {e}"))
            })
            .collect()
    }

    fn output<'py>(&self, py: Python<'py>, v: Vec<u64>) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let n = v.len() / self.words;
        let arr = Array2::from_shape_vec((n, self.words), v)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyArray2::from_owned_array(py, arr))
    }

    fn map<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        op: impl Fn(&NormalElement) -> NormalElement + Send + Sync,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let w = self.rows(&a)?;
        let v = py
            .detach(|| -> Result<Vec<u64>, String> {
                let x = self.load(w)?;
                Ok(x.iter().flat_map(|e| op(e).coordinates()).collect())
            })
            .map_err(PyValueError::new_err)?;
        self.output(py, v)
    }

    /// The isomorphism with GF(2)[x]/(modulus), built once per modulus.
    fn isomorphism(&self, py: Python<'_>, modulus: Poly) -> PyResult<Isomorphism> {
        let mut cache = self
            .iso
            .lock()
            .map_err(|_| PyValueError::new_err("normal basis: conversion cache poisoned"))?;
        if let Some((m, iso)) = cache.as_ref()
            && *m == modulus
        {
            return Ok(iso.clone());
        }
        let nb = &self.nb;
        let iso = py.detach(|| -> PyResult<Isomorphism> {
            let field = BinaryField::new(modulus.clone())
                .map_err(|e| PyValueError::new_err(format!("normal basis: {e}")))?;
            Isomorphism::new(nb, &field).map_err(basis_error)
        })?;
        *cache = Some((modulus, iso.clone()));
        Ok(iso)
    }
}

#[pymethods]
impl NormalBasis {
    /// The type-t Gaussian normal basis of GF(2^m); ValueError if it does
    /// not exist.
    #[new]
    fn py_new(m: usize, t: usize) -> PyResult<Self> {
        GaussianNormalBasis::new(m, t)
            .map(NormalBasis::wrap)
            .map_err(basis_error)
    }

    /// The Gaussian normal basis of GF(2^m) of the lowest type.
    #[staticmethod]
    fn lowest_type(m: usize) -> PyResult<Self> {
        GaussianNormalBasis::lowest_type(m)
            .map(NormalBasis::wrap)
            .map_err(basis_error)
    }

    /// The degree m.
    #[getter]
    fn m(&self) -> usize {
        self.nb.degree()
    }

    /// The type t.
    #[getter]
    fn t(&self) -> usize {
        self.nb.basis_type()
    }

    /// The prime p = t·m + 1.
    #[getter]
    fn p(&self) -> usize {
        self.nb.prime()
    }

    /// uint64 words per element, ceil(m/64).
    #[getter]
    fn words(&self) -> usize {
        self.words
    }

    /// The coordinates of 1 (all m bits set).
    fn one(&self) -> Vec<u64> {
        self.nb.one().coordinates()
    }

    /// Coordinates from the X9.62 / FIPS 186-2 hex string (a0 the most
    /// significant bit); ValueError if malformed.
    fn parse_hex(&self, s: &str) -> PyResult<Vec<u64>> {
        self.nb
            .from_hex(s)
            .map(|e| e.coordinates())
            .map_err(basis_error)
    }

    /// The X9.62 / FIPS 186-2 hex string of coordinates.
    fn to_hex(&self, coords: Vec<u64>) -> PyResult<String> {
        self.nb
            .from_coordinates(&coords)
            .map(|e| e.to_hex())
            .map_err(basis_error)
    }

    /// Checks that every row is an element (ValueError otherwise).
    fn check(&self, py: Python<'_>, a: PyReadonlyArray2<'_, u64>) -> PyResult<()> {
        let w = self.rows(&a)?;
        py.detach(|| self.load(w).map(drop))
            .map_err(PyValueError::new_err)
    }

    /// Row-wise products.
    fn mul<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        b: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let wa = self.rows(&a)?;
        let wb = self.rows(&b)?;
        if wa.len() != wb.len() {
            return Err(PyValueError::new_err(format!(
                "mul: {} elements times {} elements",
                wa.len() / self.words,
                wb.len() / self.words
            )));
        }
        let v = py
            .detach(|| -> Result<Vec<u64>, String> {
                let x = self.load(wa)?;
                let y = self.load(wb)?;
                Ok(x.iter()
                    .zip(&y)
                    .flat_map(|(p, q)| (p * q).coordinates())
                    .collect())
            })
            .map_err(PyValueError::new_err)?;
        self.output(py, v)
    }

    /// Row-wise squares (a rotation of the coordinates).
    fn square<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        self.map(py, a, |e| e.square())
    }

    /// Row-wise square roots.
    fn sqrt<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        self.map(py, a, |e| e.sqrt())
    }

    /// Row-wise inverses; ZeroDivisionError if an element is 0.
    fn invert<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let w = self.rows(&a)?;
        let v = py.detach(|| -> PyResult<Vec<u64>> {
            let x = self.load(w).map_err(PyValueError::new_err)?;
            let mut out = Vec::with_capacity(w.len());
            for (i, e) in x.iter().enumerate() {
                let inv: Option<NormalElement> = e.invert().into();
                let inv = inv.ok_or_else(|| {
                    PyZeroDivisionError::new_err(format!("element {i} is 0, which has no inverse"))
                })?;
                out.extend(inv.coordinates());
            }
            Ok(out)
        })?;
        self.output(py, v)
    }

    /// Row-wise absolute traces (uint8 0/1).
    fn trace<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
    ) -> PyResult<Bound<'py, PyArray1<u8>>> {
        let w = self.rows(&a)?;
        let v = py
            .detach(|| -> Result<Vec<u8>, String> {
                Ok(self
                    .load(w)?
                    .iter()
                    .map(|e| u8::from(bool::from(e.trace())))
                    .collect())
            })
            .map_err(PyValueError::new_err)?;
        Ok(PyArray1::from_vec(py, v))
    }

    /// Polynomial-basis words (modulo ``modulus``, of degree m) of
    /// normal-basis coordinates, by the standard isomorphism.
    fn normal_to_poly<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        modulus: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let iso = self.isomorphism(py, require(modulus, "modulus")?)?;
        let w = self.rows(&a)?;
        let v = py.detach(|| -> Result<Vec<u64>, String> {
            let mut out = Vec::with_capacity(w.len());
            for (i, e) in self.load(w)?.iter().enumerate() {
                let p = iso
                    .from_normal(e)
                    .map_err(|err| format!("element {i}: {err}"))?;
                out.extend_from_slice(p.as_words());
            }
            Ok(out)
        });
        self.output(py, v.map_err(PyValueError::new_err)?)
    }

    /// Normal-basis coordinates of polynomial-basis words (modulo
    /// ``modulus``), by the standard isomorphism.
    fn poly_to_normal<'py>(
        &self,
        py: Python<'py>,
        a: PyReadonlyArray2<'py, u64>,
        modulus: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray2<u64>>> {
        let iso = self.isomorphism(py, require(modulus, "modulus")?)?;
        let w = self.rows(&a)?;
        let v = py.detach(|| -> Result<Vec<u64>, String> {
            let field = iso.field();
            let mut out = Vec::with_capacity(w.len());
            for (i, c) in w.chunks_exact(self.words).enumerate() {
                let e = field
                    .from_words(c)
                    .map_err(|err| format!("element {i}: {err}"))?;
                let n = iso
                    .to_normal(&e)
                    .map_err(|err| format!("element {i}: {err}"))?;
                out.extend(n.coordinates());
            }
            Ok(out)
        });
        self.output(py, v.map_err(PyValueError::new_err)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "GaussianNormalBasis({}, {})",
            self.nb.degree(),
            self.nb.basis_type()
        )
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NormalBasis>()?;
    Ok(())
}
