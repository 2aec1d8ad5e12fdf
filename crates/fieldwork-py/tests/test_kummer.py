"""Kummer DH: the Rust tests' known answers, agreement, invalid points."""

import os

import pytest

from conftest import rust_data
from fieldwork import KummerPrivateKey, KummerPublicKey


@pytest.fixture(scope="module")
def kat():
    values = {}
    for line in rust_data("kummer_kat.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, value = line.split()
            values[name] = bytes.fromhex(value)
    return values


def test_known_answers(kat):
    a = KummerPrivateKey.from_private_bytes(kat["sk_a"])
    b = KummerPrivateKey.from_private_bytes(kat["sk_b"])
    assert a.private_bytes() == kat["sk_a"] == a.private_bytes_raw()
    assert a.public_key().public_bytes() == kat["pk_a"]
    assert b.public_key().public_bytes() == kat["pk_b"]
    pka = KummerPublicKey.from_public_bytes(kat["pk_a"])
    pkb = KummerPublicKey.from_public_bytes(kat["pk_b"])
    assert pka == a.public_key() and pkb.public_bytes_raw() == kat["pk_b"]
    assert a.exchange(pkb) == kat["shared"] == b.exchange(pka)


def test_base_point_and_group_order(kat):
    one = KummerPrivateKey.from_private_bytes((1).to_bytes(32, "little"))
    assert one.public_key().public_bytes() == kat["base"]
    two = KummerPrivateKey.from_private_bytes((2).to_bytes(32, "little"))
    assert two.public_key().public_bytes() == kat["twice_base"]
    base = KummerPublicKey.from_public_bytes(kat["base"])
    assert two.exchange(base) == kat["twice_base"]
    n2 = int.from_bytes(kat["n2"], "little")
    for k in (n2 - 1, n2 + 1):
        sk = KummerPrivateKey.from_private_bytes(k.to_bytes(32, "little"))
        assert sk.public_key().public_bytes() == kat["base"]
    # N2 · base is the neutral element: a valid public key, but never a
    # shared secret.
    order = KummerPrivateKey.from_private_bytes(kat["n2"])
    assert order.public_key().public_bytes() == kat["neutral"]
    with pytest.raises(ValueError, match="neutral"):
        order.exchange(base)
    neutral = KummerPublicKey.from_public_bytes(kat["neutral"])
    with pytest.raises(ValueError, match="neutral"):
        one.exchange(neutral)
    with pytest.raises(ValueError):
        KummerPrivateKey.from_private_bytes(bytes(32)).exchange(base)


def test_agreement():
    for _ in range(20):
        a, b = KummerPrivateKey.generate(), KummerPrivateKey.generate()
        assert a.private_bytes()[31] < 8  # the 5 unused top bits are cleared
        s = a.exchange(b.public_key())
        assert len(s) == 48 and s == b.exchange(a.public_key())
        again = KummerPrivateKey.from_private_bytes(bytearray(a.private_bytes()))
        assert again.public_key() == a.public_key()
        assert hash(again.public_key()) == hash(a.public_key())
    assert KummerPrivateKey.generate().private_bytes() != KummerPrivateKey.generate().private_bytes()


def test_invalid_public_keys(kat):
    p = (1 << 127) - 1
    pk = bytearray(kat["pk_a"])
    for i in range(48 * 8):
        bad = bytearray(pk)
        bad[i // 8] ^= 1 << (i % 8)
        with pytest.raises(ValueError):
            KummerPublicKey.from_public_bytes(bytes(bad))
    with pytest.raises(ValueError, match="zero"):
        KummerPublicKey.from_public_bytes(bytes(48))
    for coord in range(3):
        bad = bytearray(pk)
        bad[16 * coord : 16 * coord + 16] = p.to_bytes(16, "little")
        with pytest.raises(ValueError, match="not below"):
            KummerPublicKey.from_public_bytes(bytes(bad))
    for n in (0, 32, 47, 49, 96):
        with pytest.raises(ValueError, match="48 bytes"):
            KummerPublicKey.from_public_bytes(os.urandom(n))
    for n in (0, 31, 33, 48):
        with pytest.raises(ValueError, match="32 bytes"):
            KummerPrivateKey.from_private_bytes(os.urandom(n))
    with pytest.raises(TypeError):
        KummerPrivateKey.generate().exchange(kat["pk_a"])
    with pytest.raises(TypeError):
        KummerPublicKey.from_public_bytes("00" * 48)
