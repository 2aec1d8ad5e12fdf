//! Python bindings for fieldwork: the native module `fieldwork._native`.
//!
//! The Python package `fieldwork` (in `python/fieldwork`) re-exports these
//! classes and functions and adds the pure-Python parts (the `GF2m` element
//! arrays, `galois` conversion). Every input is checked here: wrong lengths
//! and encodings raise `ValueError`, wrong types `TypeError`, a failed
//! authentication `fieldwork.InvalidTag`; nothing panics on user input.

use pyo3::exceptions::{PyException, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView};
use zeroize::Zeroizing;

mod aead;
mod field;
mod kummer;
mod normal;
mod poly;

pyo3::create_exception!(
    fieldwork,
    InvalidTag,
    PyException,
    "Authentication failed: the ciphertext, tag, nonce or associated data was altered, or the key is wrong."
);

/// Inputs at least this long are processed with the GIL released.
pub(crate) const DETACH_BYTES: usize = 8192;

/// A bytes-like argument: `bytes` borrowed, `bytearray` and `memoryview`
/// copied (the copy is zeroized when dropped).
pub(crate) enum ByteArg<'py> {
    Borrowed(Bound<'py, PyBytes>),
    Owned(Zeroizing<Vec<u8>>),
}

impl ByteArg<'_> {
    /// The bytes.
    pub(crate) fn as_slice(&self) -> &[u8] {
        match self {
            ByteArg::Borrowed(b) => b.as_bytes(),
            ByteArg::Owned(v) => v,
        }
    }
}

/// Reads a `bytes`, `bytearray` or `memoryview` argument named `what`.
pub(crate) fn bytes_like<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<ByteArg<'py>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(ByteArg::Borrowed(b.clone()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(ByteArg::Owned(Zeroizing::new(b.to_vec())));
    }
    if let Ok(m) = obj.cast::<PyMemoryView>() {
        let b = m.call_method0("tobytes")?;
        let b = b.cast::<PyBytes>()?;
        return Ok(ByteArg::Owned(Zeroizing::new(b.as_bytes().to_vec())));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be bytes, bytearray or memoryview, not {}",
        obj.get_type().name()?
    )))
}

/// Reads an optional bytes-like argument (`None` is empty).
pub(crate) fn opt_bytes_like<'py>(
    obj: Option<&Bound<'py, PyAny>>,
    what: &str,
) -> PyResult<ByteArg<'py>> {
    match obj {
        Some(o) if !o.is_none() => bytes_like(o, what),
        _ => Ok(ByteArg::Owned(Zeroizing::new(Vec::new()))),
    }
}

/// `n` bytes from the operating system's generator (`os.urandom`).
pub(crate) fn urandom(py: Python<'_>, n: usize) -> PyResult<Zeroizing<Vec<u8>>> {
    let b = py.import("os")?.call_method1("urandom", (n,))?;
    let b = b.cast::<PyBytes>()?;
    Ok(Zeroizing::new(b.as_bytes().to_vec()))
}

/// The native half of the `fieldwork` package.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InvalidTag", m.py().get_type::<InvalidTag>())?;
    poly::register(m)?;
    field::register(m)?;
    aead::register(m)?;
    kummer::register(m)?;
    normal::register(m)?;
    Ok(())
}
