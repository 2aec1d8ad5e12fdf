"""fieldwork: finite-field cryptography, fast and constant time, from Rust.

- :class:`Gf2Poly` — polynomials over GF(2); :mod:`fieldwork.gf2x` —
  products of uint64 word arrays.
- :class:`GF2m` — binary fields GF(2^m) (the NIST degrees 163 … 571 and any
  irreducible modulus) with numpy-backed element arrays
  (:class:`GF2mArray`) whose operations run in Rust, batched, with the GIL
  released; :class:`GaussianNormalBasis` — normal-basis arithmetic and
  conversion.
- :class:`AESGCM`, :class:`ChaCha20Poly1305`, :class:`XChaCha20Poly1305` —
  AEADs in the shape of ``cryptography.hazmat.primitives.ciphers.aead``;
  a failed decryption raises :class:`InvalidTag`.
- :mod:`fieldwork.poly1305`, :func:`ghash`, :func:`polyval` — the
  universal hashes, one-shot.
- :class:`KummerPrivateKey`, :class:`KummerPublicKey` — Diffie–Hellman on a
  Kummer surface, in the shape of pyca's X25519 classes.
"""

from ._native import (
    AESGCM,
    ChaCha20Poly1305,
    Gf2Poly,
    InvalidTag,
    KummerPrivateKey,
    KummerPublicKey,
    XChaCha20Poly1305,
    ghash,
    polyval,
)
from ._gf2m import GF2m, GF2mArray
from ._normal import GaussianNormalBasis
from . import gf2x, poly1305

__all__ = [
    "AESGCM",
    "ChaCha20Poly1305",
    "GF2m",
    "GF2mArray",
    "GaussianNormalBasis",
    "Gf2Poly",
    "InvalidTag",
    "KummerPrivateKey",
    "KummerPublicKey",
    "XChaCha20Poly1305",
    "ghash",
    "gf2x",
    "poly1305",
    "polyval",
]

__version__ = "0.1.0"
