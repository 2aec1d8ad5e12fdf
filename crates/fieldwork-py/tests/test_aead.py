"""The AEADs differential against pyca/cryptography, tampering, input types
and error handling; XChaCha20-Poly1305 against its construction (HChaCha20,
written here from the draft, and pyca's ChaCha20-Poly1305)."""

import os
import random
import struct

import pytest

import fieldwork
from fieldwork import AESGCM, ChaCha20Poly1305, InvalidTag, XChaCha20Poly1305

aead = pytest.importorskip(
    "cryptography.hazmat.primitives.ciphers.aead",
    reason="the differential tests need pyca/cryptography",
)

LENGTHS = list(range(0, 301)) + list(range(301, 1101, 37)) + [1024, 1100, 16384]
RNG = random.Random(29)


def rbytes(n: int) -> bytes:
    return RNG.randbytes(n)


CASES = [
    ("AESGCM-128", lambda k: AESGCM(k), lambda k: aead.AESGCM(k), 16, 12),
    ("AESGCM-192", lambda k: AESGCM(k), lambda k: aead.AESGCM(k), 24, 12),
    ("AESGCM-256", lambda k: AESGCM(k), lambda k: aead.AESGCM(k), 32, 12),
    ("ChaCha20Poly1305", ChaCha20Poly1305, aead.ChaCha20Poly1305, 32, 12),
]


@pytest.mark.parametrize("name,ours,theirs,klen,nlen", CASES, ids=[c[0] for c in CASES])
def test_differential_against_pyca(name, ours, theirs, klen, nlen):
    for n in LENGTHS:
        key, nonce = rbytes(klen), rbytes(nlen)
        data = rbytes(n)
        aad = rbytes(RNG.choice([0, 1, 13, 16, 17, 64, 300])) if n % 3 else None
        mine, ref = ours(key), theirs(key)
        ct = mine.encrypt(nonce, data, aad)
        assert ct == ref.encrypt(nonce, data, aad), n
        assert len(ct) == n + 16
        assert mine.decrypt(nonce, ct, aad) == data
        assert ref.decrypt(nonce, ct, aad) == data


@pytest.mark.parametrize("nlen", [8, 9, 12, 15, 16, 17, 32, 60, 64, 128])
def test_aesgcm_nonce_lengths_against_pyca(nlen):
    for klen in (16, 24, 32):
        key, nonce, data, aad = rbytes(klen), rbytes(nlen), rbytes(100), rbytes(20)
        ct = AESGCM(key).encrypt(nonce, data, aad)
        assert ct == aead.AESGCM(key).encrypt(nonce, data, aad)
        assert AESGCM(key).decrypt(nonce, ct, aad) == data


ALL = [
    ("AESGCM", AESGCM, 32, 12),
    ("ChaCha20Poly1305", ChaCha20Poly1305, 32, 12),
    ("XChaCha20Poly1305", XChaCha20Poly1305, 32, 24),
]


@pytest.mark.parametrize("name,cls,klen,nlen", ALL, ids=[a[0] for a in ALL])
def test_tampering_is_rejected(name, cls, klen, nlen):
    key, nonce = rbytes(klen), rbytes(nlen)
    c = cls(key)
    for n in (0, 1, 15, 16, 17, 100, 1000, 16384):
        data, aad = rbytes(n), rbytes(21)
        ct = c.encrypt(nonce, data, aad)
        # Every bit position of a short ciphertext+tag, samples of a long one.
        positions = range(len(ct) * 8) if len(ct) <= 48 else RNG.sample(range(len(ct) * 8), 64)
        for bit in positions:
            bad = bytearray(ct)
            bad[bit // 8] ^= 1 << (bit % 8)
            with pytest.raises(InvalidTag):
                c.decrypt(nonce, bytes(bad), aad)
        bad_nonce = bytearray(nonce)
        bad_nonce[RNG.randrange(nlen)] ^= 0x80
        with pytest.raises(InvalidTag):
            c.decrypt(bytes(bad_nonce), ct, aad)
        with pytest.raises(InvalidTag):
            c.decrypt(nonce, ct, aad + b"\0")
        with pytest.raises(InvalidTag):
            c.decrypt(nonce, ct, None)
        with pytest.raises(InvalidTag):
            c.decrypt(nonce, ct[:-1], aad)
        with pytest.raises(InvalidTag):
            cls(rbytes(klen)).decrypt(nonce, ct, aad)
        for short in range(16):
            with pytest.raises(InvalidTag):
                c.decrypt(nonce, ct[:short], aad)
        assert c.decrypt(nonce, ct, aad) == data


@pytest.mark.parametrize("name,cls,klen,nlen", ALL, ids=[a[0] for a in ALL])
def test_bytes_like_inputs_and_none(name, cls, klen, nlen):
    key, nonce, data, aad = rbytes(klen), rbytes(nlen), rbytes(77), rbytes(9)
    ct = cls(key).encrypt(nonce, data, aad)
    for wrap in (bytes, bytearray, memoryview):
        c = cls(wrap(key))
        assert c.encrypt(wrap(nonce), wrap(data), wrap(aad)) == ct
        assert c.decrypt(wrap(nonce), wrap(ct), wrap(aad)) == data
    # A non-contiguous memoryview is read as its bytes.
    spread = bytes(b for x in data for b in (x, 0))
    assert cls(key).encrypt(nonce, memoryview(spread)[::2], aad) == ct
    # None and b"" are the same associated data.
    c = cls(key)
    assert c.encrypt(nonce, data, None) == c.encrypt(nonce, data, b"")
    assert c.decrypt(nonce, c.encrypt(nonce, data, None), b"") == data


@pytest.mark.parametrize("name,cls,klen,nlen", ALL, ids=[a[0] for a in ALL])
def test_errors(name, cls, klen, nlen):
    key, nonce = rbytes(klen), rbytes(nlen)
    for bad in (0, 1, 15, 31, 33, 64):
        if name == "AESGCM" and bad in (16, 24, 32):
            continue
        with pytest.raises(ValueError, match="key"):
            cls(rbytes(bad))
    with pytest.raises(TypeError):
        cls("a" * klen)
    c = cls(key)
    bad_nonces = [0, 7, 129] if name == "AESGCM" else [0, nlen - 1, nlen + 1]
    for bad in bad_nonces:
        with pytest.raises(ValueError, match="Nonce"):
            c.encrypt(rbytes(bad), b"x", None)
        with pytest.raises(ValueError, match="Nonce"):
            c.decrypt(rbytes(bad), b"x" * 32, None)
    with pytest.raises(TypeError):
        c.encrypt(nonce, "text", None)
    with pytest.raises(TypeError):
        c.encrypt(nonce, b"x", 5)
    with pytest.raises(TypeError):
        c.encrypt(nonce, b"x")  # associated_data is required, as in pyca


def test_generate_key():
    for bits in (128, 192, 256):
        k = AESGCM.generate_key(bits)
        assert isinstance(k, bytes) and len(k) == bits // 8
        AESGCM(k)
    assert AESGCM.generate_key(bit_length=128) != AESGCM.generate_key(bit_length=128)
    with pytest.raises(ValueError):
        AESGCM.generate_key(64)
    with pytest.raises(TypeError):
        AESGCM.generate_key("128")
    for cls in (ChaCha20Poly1305, XChaCha20Poly1305):
        k = cls.generate_key()
        assert len(k) == 32 and k != cls.generate_key()
        cls(k)


# --- XChaCha20-Poly1305 from its definition. --------------------------------


def _rotl(x: int, n: int) -> int:
    return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF


def hchacha20(key: bytes, nonce16: bytes) -> bytes:
    """HChaCha20 (draft-irtf-cfrg-xchacha-03 §2.2): 20 ChaCha rounds on
    constants, key and the 16-byte nonce; words 0-3 and 12-15, no feed-forward."""
    s = list(struct.unpack("<4I", b"expand 32-byte k"))
    s += list(struct.unpack("<8I", key)) + list(struct.unpack("<4I", nonce16))

    def qr(a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF
        s[d] = _rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF
        s[b] = _rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF
        s[d] = _rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF
        s[b] = _rotl(s[b] ^ s[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15)
        qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14)
    return struct.pack("<8I", *(s[0:4] + s[12:16]))


def test_hchacha20_draft_vector():
    # draft-irtf-cfrg-xchacha-03 §2.2.1.
    key = bytes(range(32))
    nonce = bytes.fromhex("000000090000004a0000000031415927")
    assert hchacha20(key, nonce).hex() == (
        "82413b4227b27bfed30e42508a877d73a0f9e4d58a74a853c12ec41326d3ecdc"
    )


def test_xchacha_against_construction():
    for n in list(range(0, 130)) + [1000, 16384]:
        key, nonce, data = rbytes(32), rbytes(24), rbytes(n)
        aad = rbytes(n % 40) if n % 2 else None
        sub = hchacha20(key, nonce[:16])
        ref = aead.ChaCha20Poly1305(sub).encrypt(b"\0\0\0\0" + nonce[16:], data, aad)
        assert XChaCha20Poly1305(key).encrypt(nonce, data, aad) == ref, n
        assert XChaCha20Poly1305(key).decrypt(nonce, ref, aad) == data


def test_large_message_releases_gil_and_round_trips():
    key, nonce = os.urandom(32), os.urandom(12)
    data = os.urandom(1 << 20)
    ct = AESGCM(key).encrypt(nonce, data, b"a")
    assert ct == aead.AESGCM(key).encrypt(nonce, data, b"a")
    assert AESGCM(key).decrypt(nonce, ct, b"a") == data
    ct = ChaCha20Poly1305(key).encrypt(nonce, data, None)
    assert ct == aead.ChaCha20Poly1305(key).encrypt(nonce, data, None)


def test_invalid_tag_is_an_exception_class():
    assert issubclass(fieldwork.InvalidTag, Exception)
    assert fieldwork.InvalidTag.__module__ == "fieldwork"
