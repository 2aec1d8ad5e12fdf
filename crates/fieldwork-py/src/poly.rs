//! `fieldwork.Gf2Poly` and `fieldwork.gf2x.mul`.

use fieldwork::gf2x::{self, Gf2Poly as Poly};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::{PyTypeError, PyValueError, PyZeroDivisionError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyString, PyTuple};

/// Products at least this many words in total run with the GIL released.
const DETACH_WORDS: usize = 256;

/// A polynomial over GF(2): bit i of its integer value is the coefficient of
/// x^i. Immutable and hashable.
///
/// ``Gf2Poly(value)`` takes an ``int`` (>= 0), a ``Gf2Poly`` or the text
/// form ``"x^163 + x^7 + 1"``; ``Gf2Poly.from_hex``, ``Gf2Poly.from_bytes``
/// and ``Gf2Poly.from_exponents`` build one from other encodings. The
/// operators ``+ - * // % divmod << >> ==`` work between polynomials and
/// with non-negative ints (taken as polynomials).
#[pyclass(frozen, name = "Gf2Poly", module = "fieldwork")]
pub struct Gf2Poly(pub(crate) Poly);

/// A non-negative Python int as a polynomial.
fn from_int(n: &Bound<'_, PyInt>) -> PyResult<Poly> {
    if n.lt(0)? {
        return Err(PyValueError::new_err(
            "a Gf2Poly is built from a non-negative int",
        ));
    }
    let bits: usize = n.call_method0("bit_length")?.extract()?;
    let b = n.call_method1("to_bytes", (bits.div_ceil(8), "big"))?;
    Ok(Poly::from_be_bytes(b.cast::<PyBytes>()?.as_bytes()))
}

/// Parses the text form.
fn from_text(s: &str) -> PyResult<Poly> {
    s.parse::<Poly>()
        .map_err(|e| PyValueError::new_err(format!("not a GF(2)[x] polynomial: {e}")))
}

/// A polynomial from an int, a Gf2Poly or text; `None` for other types.
pub(crate) fn coerce(obj: &Bound<'_, PyAny>) -> PyResult<Option<Poly>> {
    if let Ok(p) = obj.cast::<Gf2Poly>() {
        return Ok(Some(p.get().0.clone()));
    }
    if let Ok(n) = obj.cast::<PyInt>() {
        return from_int(n).map(Some);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return from_text(&s.to_cow()?).map(Some);
    }
    Ok(None)
}

/// Like [`coerce`], with a TypeError for other types.
pub(crate) fn require(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Poly> {
    coerce(obj)?.ok_or_else(|| {
        let ty = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default();
        PyTypeError::new_err(format!("{what} must be a Gf2Poly, int or str, not {ty}"))
    })
}

fn divrem(py: Python<'_>, a: &Poly, b: &Poly) -> PyResult<(Poly, Poly)> {
    let big = a.as_words().len() + b.as_words().len() >= DETACH_WORDS;
    let r = if big {
        py.detach(|| a.checked_divrem(b))
    } else {
        a.checked_divrem(b)
    };
    r.ok_or_else(|| PyZeroDivisionError::new_err("division by the zero polynomial"))
}

fn mul(py: Python<'_>, a: &Poly, b: &Poly) -> Poly {
    if a.as_words().len() + b.as_words().len() >= DETACH_WORDS {
        py.detach(|| a * b)
    } else {
        a * b
    }
}

#[pymethods]
impl Gf2Poly {
    #[new]
    #[pyo3(signature = (value = None))]
    fn py_new(value: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        match value {
            None => Ok(Gf2Poly(Poly::zero())),
            Some(v) => require(v, "Gf2Poly()'s argument").map(Gf2Poly),
        }
    }

    /// The polynomial whose coefficients are the bits of ``data``, read as
    /// a big-endian number (the last byte holds x^0..x^7).
    #[staticmethod]
    fn from_bytes(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let b = crate::bytes_like(data, "data")?;
        Ok(Gf2Poly(Poly::from_be_bytes(b.as_slice())))
    }

    /// Parses big-endian hexadecimal (optional ``0x``); ``ValueError`` if
    /// it is not hex.
    #[staticmethod]
    fn from_hex(s: &str) -> PyResult<Self> {
        Poly::from_hex(s)
            .map(Gf2Poly)
            .map_err(|e| PyValueError::new_err(format!("not a hexadecimal polynomial: {e}")))
    }

    /// Parses the text form ``"x^163 + x^7 + 1"``; ``ValueError`` if it is
    /// malformed.
    #[staticmethod]
    fn from_str(s: &str) -> PyResult<Self> {
        from_text(s).map(Gf2Poly)
    }

    /// The sum of x^e for the given exponents (repeated ones cancel).
    #[staticmethod]
    fn from_exponents(exponents: Vec<usize>) -> PyResult<Self> {
        if exponents.iter().any(|&e| e > Poly::MAX_PARSE_DEGREE) {
            return Err(PyValueError::new_err(format!(
                "exponents go up to {}",
                Poly::MAX_PARSE_DEGREE
            )));
        }
        Ok(Gf2Poly(Poly::from_exponents(&exponents)))
    }

    /// The coefficients as a Python int (bit i is the coefficient of x^i).
    fn to_int<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let b = PyBytes::new(py, &self.0.to_be_bytes());
        py.get_type::<PyInt>()
            .call_method1("from_bytes", (b, "big"))
    }

    fn __int__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_int(py)
    }

    fn __index__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.to_int(py)
    }

    /// Big-endian bytes of minimal length (``b""`` for zero); the inverse
    /// of ``from_bytes`` up to leading zero bytes.
    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.0.to_be_bytes())
    }

    /// Lower-case hexadecimal without prefix (``"0"`` for zero).
    fn to_hex(&self) -> String {
        self.0.to_hex()
    }

    /// The exponents of the nonzero terms, highest first.
    fn exponents(&self) -> Vec<usize> {
        let mut v = Vec::new();
        for i in (0..self.0.bit_len()).rev() {
            if self.0.coeff(i) {
                v.push(i);
            }
        }
        v
    }

    /// The coefficient of x^i (0 or 1).
    fn coeff(&self, i: usize) -> u8 {
        u8::from(self.0.coeff(i))
    }

    /// The degree; -1 for the zero polynomial.
    #[getter]
    fn degree(&self) -> isize {
        self.0.degree().map_or(-1, |d| d as isize)
    }

    fn __str__(&self) -> String {
        self.0.to_string()
    }

    fn __repr__(&self) -> String {
        format!("Gf2Poly('{}')", self.0)
    }

    fn __bool__(&self) -> bool {
        !self.0.is_zero()
    }

    /// The hash of the equal int, so that ``hash(p) == hash(int(p))``.
    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.to_int(py)?.hash()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(match coerce_num(other)? {
            Some(o) => self.0 == o,
            None => false,
        })
    }

    fn __add__<'py>(&self, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        ret(
            other.py(),
            coerce_num(other)?.map(|o| Gf2Poly(&self.0 + &o)),
        )
    }

    fn __radd__<'py>(&self, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.__add__(other)
    }

    /// Subtraction is addition over GF(2).
    fn __sub__<'py>(&self, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.__add__(other)
    }

    fn __rsub__<'py>(&self, other: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.__add__(other)
    }

    fn __mul__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        ret(
            py,
            coerce_num(other)?.map(|o| Gf2Poly(mul(py, &self.0, &o))),
        )
    }

    fn __rmul__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.__mul__(py, other)
    }

    fn __floordiv__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match coerce_num(other)? {
            Some(o) => ret(py, Some(Gf2Poly(divrem(py, &self.0, &o)?.0))),
            None => ret(py, None),
        }
    }

    fn __rfloordiv__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match coerce_num(other)? {
            Some(o) => ret(py, Some(Gf2Poly(divrem(py, &o, &self.0)?.0))),
            None => ret(py, None),
        }
    }

    fn __mod__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match coerce_num(other)? {
            Some(o) => ret(py, Some(Gf2Poly(divrem(py, &self.0, &o)?.1))),
            None => ret(py, None),
        }
    }

    fn __rmod__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match coerce_num(other)? {
            Some(o) => ret(py, Some(Gf2Poly(divrem(py, &o, &self.0)?.1))),
            None => ret(py, None),
        }
    }

    fn __divmod__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match coerce_num(other)? {
            Some(o) => {
                let (q, r) = divrem(py, &self.0, &o)?;
                Ok(PyTuple::new(py, [Gf2Poly(q), Gf2Poly(r)])?.into_any())
            }
            None => ret(py, None),
        }
    }

    fn __rdivmod__<'py>(
        &self,
        py: Python<'py>,
        other: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match coerce_num(other)? {
            Some(o) => {
                let (q, r) = divrem(py, &o, &self.0)?;
                Ok(PyTuple::new(py, [Gf2Poly(q), Gf2Poly(r)])?.into_any())
            }
            None => ret(py, None),
        }
    }

    fn __lshift__(&self, n: usize) -> PyResult<Self> {
        let top = self.0.bit_len().saturating_add(n);
        if !self.0.is_zero() && top > Poly::MAX_PARSE_DEGREE + 1 {
            return Err(PyValueError::new_err(format!(
                "the shifted polynomial would exceed degree {}",
                Poly::MAX_PARSE_DEGREE
            )));
        }
        Ok(Gf2Poly(&self.0 << n))
    }

    fn __rshift__(&self, n: usize) -> Self {
        Gf2Poly(&self.0 >> n)
    }

    /// The square (faster than ``self * self``).
    fn square(&self) -> Self {
        Gf2Poly(self.0.square())
    }

    /// The monic greatest common divisor (0 only when both are 0).
    fn gcd(&self, other: &Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(Gf2Poly(self.0.gcd(&require(other, "other")?)))
    }

    /// ``(g, s, t)`` with ``g = gcd(self, other) = s*self + t*other``.
    fn xgcd(&self, other: &Bound<'_, PyAny>) -> PyResult<(Self, Self, Self)> {
        let (g, s, t) = self.0.xgcd(&require(other, "other")?);
        Ok((Gf2Poly(g), Gf2Poly(s), Gf2Poly(t)))
    }

    /// ``self**e mod m`` for an exponent ``0 <= e < 2**64``;
    /// ``ZeroDivisionError`` when ``m`` is 0.
    fn pow_mod(&self, py: Python<'_>, e: u64, m: &Bound<'_, PyAny>) -> PyResult<Self> {
        let m = require(m, "m")?;
        let big = m.as_words().len() >= DETACH_WORDS / 4;
        let r = if big {
            py.detach(|| self.0.pow_mod(e, &m))
        } else {
            self.0.pow_mod(e, &m)
        };
        r.map(Gf2Poly)
            .ok_or_else(|| PyZeroDivisionError::new_err("pow_mod modulo the zero polynomial"))
    }

    /// The inverse modulo ``m``; ``ValueError`` when ``gcd(self, m) != 1``,
    /// ``ZeroDivisionError`` when ``m`` is 0.
    fn inverse_mod(&self, m: &Bound<'_, PyAny>) -> PyResult<Self> {
        let m = require(m, "m")?;
        if m.is_zero() {
            return Err(PyZeroDivisionError::new_err(
                "inverse modulo the zero polynomial",
            ));
        }
        self.0
            .inverse_mod(&m)
            .map(Gf2Poly)
            .ok_or_else(|| PyValueError::new_err("not invertible: gcd(self, m) != 1"))
    }

    /// Whether the polynomial is irreducible over GF(2) (Rabin's test).
    fn is_irreducible(&self, py: Python<'_>) -> bool {
        py.detach(|| self.0.is_irreducible())
    }
}

/// An operator's result: the polynomial, or `NotImplemented` for an
/// operand of another type.
fn ret(py: Python<'_>, p: Option<Gf2Poly>) -> PyResult<Bound<'_, PyAny>> {
    match p {
        Some(p) => Ok(Bound::new(py, p)?.into_any()),
        None => Ok(py.NotImplemented().into_bound(py)),
    }
}

/// An int or Gf2Poly operand as a polynomial (text is not taken by the
/// operators); `None` so that Python returns `NotImplemented`.
fn coerce_num(obj: &Bound<'_, PyAny>) -> PyResult<Option<Poly>> {
    if obj.cast::<PyString>().is_ok() {
        return Ok(None);
    }
    coerce(obj)
}

/// The product of two polynomials given as uint64 word arrays (word 0
/// lowest), of length ``len(a) + len(b)``.
#[pyfunction]
fn gf2x_mul<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, u64>,
    b: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let a = a.as_slice()?;
    let b = b.as_slice()?;
    let n = a.len() + b.len();
    let mut out = vec![0u64; n];
    if !a.is_empty() && !b.is_empty() {
        let r = if n >= DETACH_WORDS {
            py.detach(|| gf2x::mul_into(&mut out, a, b))
        } else {
            gf2x::mul_into(&mut out, a, b)
        };
        r.map_err(|e| PyValueError::new_err(format!("gf2x.mul: {e}")))?;
    }
    Ok(PyArray1::from_vec(py, out))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Gf2Poly>()?;
    m.add_function(wrap_pyfunction!(gf2x_mul, m)?)?;
    Ok(())
}
