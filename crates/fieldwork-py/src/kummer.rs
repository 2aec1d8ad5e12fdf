//! Kummer-surface Diffie–Hellman in the shape of pyca/cryptography's X25519
//! classes.

use crate::{bytes_like, urandom};
use fieldwork::kummer::{PublicKey, SecretKey};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

/// A Kummer-surface Diffie–Hellman private key: 32 bytes, little-endian
/// (the key is zeroized when the object is freed).
#[pyclass(frozen, name = "KummerPrivateKey", module = "fieldwork")]
pub struct KummerPrivateKey(SecretKey);

/// A Kummer-surface public key: 48 bytes, validated on the way in.
#[pyclass(frozen, eq, hash, name = "KummerPublicKey", module = "fieldwork")]
#[derive(PartialEq, Eq, Hash)]
pub struct KummerPublicKey(PublicKey);

#[pymethods]
impl KummerPrivateKey {
    /// A fresh key: 32 bytes from ``os.urandom`` with the 5 unused top bits
    /// cleared.
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let r = urandom(py, 32)?;
        let mut b = Zeroizing::new([0u8; 32]);
        b.copy_from_slice(&r);
        b[31] &= 0x07;
        Ok(KummerPrivateKey(SecretKey::from_bytes(*b)))
    }

    /// The key with these 32 bytes (used as they are); ``ValueError`` for
    /// another length.
    #[staticmethod]
    fn from_private_bytes(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = bytes_like(data, "data")?;
        let mut b = Zeroizing::new([0u8; 32]);
        if d.as_slice().len() != 32 {
            return Err(PyValueError::new_err(
                "A Kummer private key is 32 bytes long",
            ));
        }
        b.copy_from_slice(d.as_slice());
        Ok(KummerPrivateKey(SecretKey::from_bytes(*b)))
    }

    /// The 32 private bytes.
    fn private_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.as_bytes())
    }

    /// The 32 private bytes (pyca's name for the raw form).
    fn private_bytes_raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.private_bytes(py)
    }

    /// The matching public key.
    fn public_key(&self, py: Python<'_>) -> KummerPublicKey {
        KummerPublicKey(py.detach(|| self.0.public_key()))
    }

    /// The 48-byte shared secret with ``peer_public_key``; ``ValueError``
    /// when it is degenerate or the neutral element (a small-order or
    /// neutral peer key), as pyca's X25519 does for an all-zero result.
    fn exchange<'py>(
        &self,
        py: Python<'py>,
        peer_public_key: &Bound<'py, KummerPublicKey>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let peer = &peer_public_key.get().0;
        let shared = py
            .detach(|| self.0.diffie_hellman(peer))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(PyBytes::new(py, shared.as_bytes()))
    }

    fn __repr__(&self) -> &'static str {
        "<KummerPrivateKey>"
    }
}

#[pymethods]
impl KummerPublicKey {
    /// Parses and validates 48 bytes; ``ValueError`` for another length, a
    /// non-canonical or zero coordinate, or a point not on the surface.
    #[staticmethod]
    fn from_public_bytes(data: &Bound<'_, PyAny>) -> PyResult<Self> {
        let d = bytes_like(data, "data")?;
        let b: &[u8; 48] = d
            .as_slice()
            .try_into()
            .map_err(|_| PyValueError::new_err("A Kummer public key is 48 bytes long"))?;
        PublicKey::from_bytes(b)
            .map(KummerPublicKey)
            .map_err(|e| PyValueError::new_err(e.to_string()))
    }

    /// The 48 public bytes.
    fn public_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.0.as_bytes())
    }

    /// The 48 public bytes (pyca's name for the raw form).
    fn public_bytes_raw<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        self.public_bytes(py)
    }

    fn __repr__(&self) -> String {
        let hex: String = self
            .0
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("KummerPublicKey.from_public_bytes(bytes.fromhex('{hex}'))")
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<KummerPrivateKey>()?;
    m.add_class::<KummerPublicKey>()?;
    Ok(())
}
