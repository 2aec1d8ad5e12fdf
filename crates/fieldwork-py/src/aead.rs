//! The AEADs in pyca/cryptography's shape (`AESGCM`, `ChaCha20Poly1305`,
//! plus `XChaCha20Poly1305`), and one-shot Poly1305, GHASH and POLYVAL.

use crate::{ByteArg, DETACH_BYTES, InvalidTag, bytes_like, opt_bytes_like, urandom};
use fieldwork::chachapoly::{ChaCha20Poly1305 as ChaPoly, XChaCha20Poly1305 as XChaPoly};
use fieldwork::gcm::aead::KeyInit;
use fieldwork::gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroizing;

/// The tag length of every AEAD here.
const TAG: usize = 16;
/// Messages and associated data are limited to 2^31 − 1 bytes, as in pyca.
const MAX_LEN: usize = (1 << 31) - 1;

fn check_lengths(data: &ByteArg<'_>, aad: &ByteArg<'_>) -> PyResult<()> {
    if data.as_slice().len() > MAX_LEN || aad.as_slice().len() > MAX_LEN {
        return Err(PyOverflowError::new_err(
            "data and associated_data must each be shorter than 2**31 bytes",
        ));
    }
    Ok(())
}

fn invalid_tag() -> PyErr {
    InvalidTag::new_err("authentication failed")
}

/// Seals `data` into a new `bytes` of ciphertext ‖ tag with `seal(buf)`
/// encrypting `buf` in place and returning the tag.
fn seal_into<'py, S>(py: Python<'py>, data: &[u8], seal: S) -> PyResult<Bound<'py, PyBytes>>
where
    S: Fn(&mut [u8]) -> Option<[u8; TAG]> + Send + Sync,
{
    PyBytes::new_with(py, data.len() + TAG, |out| {
        let (body, tag_out) = out.split_at_mut(data.len());
        body.copy_from_slice(data);
        let tag = if data.len() >= DETACH_BYTES {
            py.detach(|| seal(body))
        } else {
            seal(body)
        };
        let tag = tag.ok_or_else(|| PyValueError::new_err("message too long for this AEAD"))?;
        tag_out.copy_from_slice(&tag);
        Ok(())
    })
}

/// Opens ciphertext ‖ tag into a new `bytes` of plaintext with
/// `open(buf, tag)` decrypting `buf` in place; InvalidTag when it fails.
fn open_into<'py, O>(py: Python<'py>, data: &[u8], open: O) -> PyResult<Bound<'py, PyBytes>>
where
    O: Fn(&mut [u8], &[u8; TAG]) -> bool + Send + Sync,
{
    let Some(body_len) = data.len().checked_sub(TAG) else {
        return Err(invalid_tag());
    };
    let (body, tag) = data.split_at(body_len);
    let mut t = [0u8; TAG];
    t.copy_from_slice(tag);
    PyBytes::new_with(py, body_len, |out| {
        out.copy_from_slice(body);
        let ok = if body_len >= DETACH_BYTES {
            py.detach(|| open(out, &t))
        } else {
            open(out, &t)
        };
        if ok { Ok(()) } else { Err(invalid_tag()) }
    })
}

/// The AES-GCM key for one of the three sizes.
enum GcmKey {
    A128(Aes128Gcm),
    A192(Aes192Gcm),
    A256(Aes256Gcm),
}

impl GcmKey {
    fn encrypt(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
        match self {
            GcmKey::A128(k) => k.encrypt_in_place_detached_iv(iv, aad, buf).ok(),
            GcmKey::A192(k) => k.encrypt_in_place_detached_iv(iv, aad, buf).ok(),
            GcmKey::A256(k) => k.encrypt_in_place_detached_iv(iv, aad, buf).ok(),
        }
    }

    fn decrypt(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8; TAG]) -> bool {
        match self {
            GcmKey::A128(k) => k.decrypt_in_place_detached_iv(iv, aad, buf, tag).is_ok(),
            GcmKey::A192(k) => k.decrypt_in_place_detached_iv(iv, aad, buf, tag).is_ok(),
            GcmKey::A256(k) => k.decrypt_in_place_detached_iv(iv, aad, buf, tag).is_ok(),
        }
    }
}

/// AES-GCM with a 128-, 192- or 256-bit key and a 16-byte tag, in the shape
/// of ``cryptography.hazmat.primitives.ciphers.aead.AESGCM``: nonces of 8
/// to 128 bytes (12 recommended), ``encrypt`` returns ciphertext ‖ tag,
/// ``decrypt`` raises ``InvalidTag`` if authentication fails.
#[pyclass(frozen, name = "AESGCM", module = "fieldwork")]
pub struct AesGcm {
    /// Boxed: the key's tables are 64-byte aligned (a zmm load of a round
    /// key then never straddles two cache lines), and PyO3 places a
    /// class's fields in objects that are only 16-byte aligned.
    key: Box<GcmKey>,
}

fn gcm_nonce(nonce: &ByteArg<'_>) -> PyResult<()> {
    let n = nonce.as_slice().len();
    if !(8..=128).contains(&n) {
        return Err(PyValueError::new_err(format!(
            "Nonce must be between 8 and 128 bytes (got {n})"
        )));
    }
    Ok(())
}

#[pymethods]
impl AesGcm {
    #[new]
    fn py_new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
        let key = bytes_like(key, "key")?;
        let k = key.as_slice();
        let bad = || PyValueError::new_err("AESGCM key must be 128, 192, or 256 bits.");
        let key = match k.len() {
            16 => GcmKey::A128(Aes128Gcm::new_from_slice(k).map_err(|_| bad())?),
            24 => GcmKey::A192(Aes192Gcm::new_from_slice(k).map_err(|_| bad())?),
            32 => GcmKey::A256(Aes256Gcm::new_from_slice(k).map_err(|_| bad())?),
            _ => return Err(bad()),
        };
        Ok(AesGcm { key: Box::new(key) })
    }

    /// A fresh random key of ``bit_length`` bits (128, 192 or 256) from
    /// ``os.urandom``.
    #[staticmethod]
    fn generate_key<'py>(py: Python<'py>, bit_length: usize) -> PyResult<Bound<'py, PyBytes>> {
        if !matches!(bit_length, 128 | 192 | 256) {
            return Err(PyValueError::new_err("bit_length must be 128, 192, or 256"));
        }
        let k = urandom(py, bit_length / 8)?;
        Ok(PyBytes::new(py, &k))
    }

    /// Encrypts and authenticates ``data`` and authenticates
    /// ``associated_data`` (may be None); returns ciphertext ‖ 16-byte tag.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let nonce = bytes_like(nonce, "nonce")?;
        let data = bytes_like(data, "data")?;
        let aad = opt_bytes_like(associated_data, "associated_data")?;
        check_lengths(&data, &aad)?;
        gcm_nonce(&nonce)?;
        let (n, a) = (nonce.as_slice(), aad.as_slice());
        seal_into(py, data.as_slice(), |buf| self.key.encrypt(n, a, buf))
    }

    /// Checks and decrypts ciphertext ‖ tag; raises ``InvalidTag`` if the
    /// tag does not authenticate it with ``nonce`` and ``associated_data``.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let nonce = bytes_like(nonce, "nonce")?;
        let data = bytes_like(data, "data")?;
        let aad = opt_bytes_like(associated_data, "associated_data")?;
        check_lengths(&data, &aad)?;
        gcm_nonce(&nonce)?;
        let (n, a) = (nonce.as_slice(), aad.as_slice());
        open_into(py, data.as_slice(), |buf, tag| {
            self.key.decrypt(n, a, buf, tag)
        })
    }
}

/// A 32-byte key from a bytes-like argument.
fn key32(key: &Bound<'_, PyAny>, class: &str) -> PyResult<Zeroizing<[u8; 32]>> {
    let key = bytes_like(key, "key")?;
    let mut k = Zeroizing::new([0u8; 32]);
    if key.as_slice().len() != 32 {
        return Err(PyValueError::new_err(format!(
            "{class} key must be 32 bytes."
        )));
    }
    k.copy_from_slice(key.as_slice());
    Ok(k)
}

/// A nonce of exactly `N` bytes.
fn nonce_n<const N: usize>(nonce: &Bound<'_, PyAny>) -> PyResult<[u8; N]> {
    let nonce = bytes_like(nonce, "nonce")?;
    nonce
        .as_slice()
        .try_into()
        .map_err(|_| PyValueError::new_err(format!("Nonce must be {N} bytes")))
}

macro_rules! chacha_class {
    ($(#[$doc:meta])* $py:ident, $pyname:literal, $rust:ty, $nlen:literal) => {
        $(#[$doc])*
        #[pyclass(frozen, name = $pyname, module = "fieldwork")]
        pub struct $py {
            cipher: $rust,
        }

        // Held in place: PyO3's objects are 16-byte aligned (a type that
        // needs more goes in a `Box`, as `AesGcm`'s key does).
        const _: () = assert!(core::mem::align_of::<$rust>() <= 16);

        #[pymethods]
        impl $py {
            #[new]
            fn py_new(key: &Bound<'_, PyAny>) -> PyResult<Self> {
                let k = key32(key, $pyname)?;
                let cipher = <$rust>::new_from_slice(&k[..])
                    .map_err(|_| PyValueError::new_err(concat!($pyname, " key must be 32 bytes.")))?;
                Ok($py { cipher })
            }

            /// A fresh random 32-byte key from ``os.urandom``.
            #[staticmethod]
            fn generate_key(py: Python<'_>) -> PyResult<Bound<'_, PyBytes>> {
                let k = urandom(py, 32)?;
                Ok(PyBytes::new(py, &k))
            }

            /// Encrypts and authenticates ``data`` and authenticates
            /// ``associated_data`` (may be None); returns ciphertext ‖
            /// 16-byte tag.
            #[pyo3(signature = (nonce, data, associated_data))]
            fn encrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: &Bound<'py, PyAny>,
                data: &Bound<'py, PyAny>,
                associated_data: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                let data = bytes_like(data, "data")?;
                let aad = opt_bytes_like(associated_data, "associated_data")?;
                check_lengths(&data, &aad)?;
                let n = nonce_n::<$nlen>(nonce)?;
                let a = aad.as_slice();
                seal_into(py, data.as_slice(), |buf| {
                    self.cipher.encrypt_in_place_detached(&n, a, buf).ok()
                })
            }

            /// Checks and decrypts ciphertext ‖ tag; raises ``InvalidTag``
            /// if the tag does not authenticate it with ``nonce`` and
            /// ``associated_data``.
            #[pyo3(signature = (nonce, data, associated_data))]
            fn decrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: &Bound<'py, PyAny>,
                data: &Bound<'py, PyAny>,
                associated_data: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                let data = bytes_like(data, "data")?;
                let aad = opt_bytes_like(associated_data, "associated_data")?;
                check_lengths(&data, &aad)?;
                let n = nonce_n::<$nlen>(nonce)?;
                let a = aad.as_slice();
                open_into(py, data.as_slice(), |buf, tag| {
                    self.cipher.decrypt_in_place_detached(&n, a, buf, tag).is_ok()
                })
            }
        }
    };
}

chacha_class! {
    /// ChaCha20-Poly1305 (RFC 8439): 32-byte key, 12-byte nonce, 16-byte
    /// tag, in the shape of pyca/cryptography's ``ChaCha20Poly1305``.
    ChaCha20Poly1305, "ChaCha20Poly1305", ChaPoly, 12
}

chacha_class! {
    /// XChaCha20-Poly1305 (draft-irtf-cfrg-xchacha-03): 32-byte key,
    /// 24-byte nonce (safe to choose at random), 16-byte tag; the same
    /// methods as ``ChaCha20Poly1305``.
    XChaCha20Poly1305, "XChaCha20Poly1305", XChaPoly, 24
}

/// The 16-byte Poly1305 tag of ``data`` under the one-time 32-byte ``key``.
#[pyfunction]
fn poly1305_tag<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let k = key32(key, "Poly1305")?;
    let data = bytes_like(data, "data")?;
    let d = data.as_slice();
    let t = if d.len() >= DETACH_BYTES {
        py.detach(|| fieldwork::poly1305::tag(&k, d))
    } else {
        fieldwork::poly1305::tag(&k, d)
    };
    Ok(PyBytes::new(py, &t))
}

/// Checks in constant time that ``tag`` is the Poly1305 tag of ``data``;
/// raises ``InvalidTag`` if not.
#[pyfunction]
fn poly1305_verify(
    key: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    tag: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let k = key32(key, "Poly1305")?;
    let data = bytes_like(data, "data")?;
    let tag = bytes_like(tag, "tag")?;
    let t: [u8; 16] = tag
        .as_slice()
        .try_into()
        .map_err(|_| PyValueError::new_err("a Poly1305 tag is 16 bytes"))?;
    fieldwork::poly1305::verify(&k, data.as_slice(), &t).map_err(|_| invalid_tag())
}

fn hash_key(h: &Bound<'_, PyAny>) -> PyResult<Zeroizing<[u8; 16]>> {
    let h = bytes_like(h, "h")?;
    let mut k = Zeroizing::new([0u8; 16]);
    if h.as_slice().len() != 16 {
        return Err(PyValueError::new_err("the hash key h must be 16 bytes"));
    }
    k.copy_from_slice(h.as_slice());
    Ok(k)
}

/// GHASH (NIST SP 800-38D) of ``data`` under the 16-byte key ``h``; a
/// final partial block is zero-padded.
#[pyfunction]
fn ghash<'py>(
    py: Python<'py>,
    h: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let k = hash_key(h)?;
    let data = bytes_like(data, "data")?;
    let d = data.as_slice();
    Ok(PyBytes::new(
        py,
        &py.detach(|| fieldwork::ghash::ghash(&k, d)),
    ))
}

/// POLYVAL (RFC 8452) of ``data`` under the 16-byte key ``h``; a final
/// partial block is zero-padded.
#[pyfunction]
fn polyval<'py>(
    py: Python<'py>,
    h: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let k = hash_key(h)?;
    let data = bytes_like(data, "data")?;
    let d = data.as_slice();
    Ok(PyBytes::new(
        py,
        &py.detach(|| fieldwork::ghash::polyval(&k, d)),
    ))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AesGcm>()?;
    m.add_class::<ChaCha20Poly1305>()?;
    m.add_class::<XChaCha20Poly1305>()?;
    m.add_function(wrap_pyfunction!(poly1305_tag, m)?)?;
    m.add_function(wrap_pyfunction!(poly1305_verify, m)?)?;
    m.add_function(wrap_pyfunction!(ghash, m)?)?;
    m.add_function(wrap_pyfunction!(polyval, m)?)?;
    Ok(())
}
