"""Poly1305 against pyca/cryptography; GHASH and POLYVAL against the Rust
tests' known answers and against AES-GCM's definition."""

import random

import pytest

import fieldwork
from conftest import rust_data
from fieldwork import InvalidTag, ghash, polyval

RNG = random.Random(1305)


def test_poly1305_against_pyca():
    poly = pytest.importorskip("cryptography.hazmat.primitives.poly1305")
    for n in list(range(0, 200)) + [1000, 4096, 16384, 65537]:
        key, data = RNG.randbytes(32), RNG.randbytes(n)
        tag = fieldwork.poly1305.tag(key, data)
        assert tag == poly.Poly1305.generate_tag(key, data)
        fieldwork.poly1305.verify(key, bytearray(data), memoryview(tag))
        bad = bytearray(tag)
        bad[RNG.randrange(16)] ^= 1 << RNG.randrange(8)
        with pytest.raises(InvalidTag):
            fieldwork.poly1305.verify(key, data, bytes(bad))


def test_poly1305_rfc8439_vector():
    key = bytes.fromhex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
    msg = b"Cryptographic Forum Research Group"
    assert fieldwork.poly1305.tag(key, msg).hex() == "a8061dc1305136c6c22b8baf0c0127a9"


def test_poly1305_errors():
    with pytest.raises(ValueError):
        fieldwork.poly1305.tag(b"k" * 31, b"")
    with pytest.raises(ValueError):
        fieldwork.poly1305.verify(b"k" * 32, b"", b"t" * 15)
    with pytest.raises(TypeError):
        fieldwork.poly1305.tag("k" * 32, b"")


def test_ghash_polyval_known_answers():
    n = 0
    for line in rust_data("ghash_vectors.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        kind, key, data, result = line.split()
        data = b"" if data == "-" else bytes.fromhex(data)
        if kind == "ghash":
            assert ghash(bytes.fromhex(key), data).hex() == result
        elif kind == "polyval":
            assert polyval(bytes.fromhex(key), data).hex() == result
        else:
            continue
        n += 1
    assert n >= 5


def test_ghash_against_aes_gcm():
    """GCM's tag for a 12-byte IV is E(K, IV‖1) ⊕ GHASH(H, A‖pad‖C‖pad‖len),
    with H = E(K, 0^128): computed with pyca's AES-ECB and AES-GCM."""
    ciphers = pytest.importorskip("cryptography.hazmat.primitives.ciphers")
    aead = pytest.importorskip("cryptography.hazmat.primitives.ciphers.aead")

    def pad(b):
        return b + b"\0" * (-len(b) % 16)

    for n in (0, 1, 16, 33, 100):
        key, iv = RNG.randbytes(16), RNG.randbytes(12)
        aad, msg = RNG.randbytes(RNG.randrange(40)), RNG.randbytes(n)
        enc = ciphers.Cipher(ciphers.algorithms.AES(key), ciphers.modes.ECB()).encryptor()
        h = enc.update(b"\0" * 16)
        ej0 = enc.update(iv + b"\0\0\0\1")
        sealed = aead.AESGCM(key).encrypt(iv, msg, aad)
        ct, tag = sealed[:-16], sealed[-16:]
        lens = (8 * len(aad)).to_bytes(8, "big") + (8 * len(ct)).to_bytes(8, "big")
        s = ghash(h, pad(aad) + pad(ct) + lens)
        assert bytes(x ^ y for x, y in zip(s, ej0)) == tag


def test_polyval_ghash_relation():
    """RFC 8452 appendix A: POLYVAL(H, X) = rev(GHASH(mulX_GHASH(rev(H)),
    rev(X_1), …)), rev reversing each 16-byte block."""

    def mulx_ghash(b):
        v = int.from_bytes(b, "big")
        carry = v & 1
        v >>= 1
        if carry:
            v ^= 0xE1 << 120
        return v.to_bytes(16, "big")

    for n in (0, 1, 2, 5, 17):
        h = RNG.randbytes(16)
        blocks = [RNG.randbytes(16) for _ in range(n)]
        lhs = polyval(h, b"".join(blocks))
        rhs = ghash(mulx_ghash(h[::-1]), b"".join(b[::-1] for b in blocks))[::-1]
        assert lhs == rhs


def test_hash_key_length():
    with pytest.raises(ValueError):
        ghash(b"h" * 15, b"")
    with pytest.raises(ValueError):
        polyval(b"h" * 17, b"")
