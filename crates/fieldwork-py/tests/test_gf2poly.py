"""Gf2Poly and gf2x.mul against reference arithmetic on Python ints
(bit i = coefficient of x^i), written here from the definitions."""

import random

import numpy as np
import pytest

import fieldwork
from fieldwork import Gf2Poly

# --- The reference: GF(2)[x] on Python ints. ---------------------------------


def ref_mul(a: int, b: int) -> int:
    """Carry-less product by shifting and XOR."""
    if bin(a).count("1") > bin(b).count("1"):
        a, b = b, a
    r = 0
    while a:
        low = a & -a
        r ^= b << (low.bit_length() - 1)
        a ^= low
    return r


def ref_divmod(a: int, b: int):
    """Long division: subtract (XOR) shifted copies of b."""
    if b == 0:
        raise ZeroDivisionError
    q = 0
    db = b.bit_length()
    while a.bit_length() >= db:
        s = a.bit_length() - db
        q |= 1 << s
        a ^= b << s
    return q, a


def ref_gcd(a: int, b: int) -> int:
    while b:
        a, b = b, ref_divmod(a, b)[1]
    return a


def ref_pow_mod(a: int, e: int, m: int) -> int:
    r = ref_divmod(1, m)[1]
    a = ref_divmod(a, m)[1]
    while e:
        if e & 1:
            r = ref_divmod(ref_mul(r, a), m)[1]
        a = ref_divmod(ref_mul(a, a), m)[1]
        e >>= 1
    return r


def ref_irreducible(f: int) -> bool:
    """Trial division by every polynomial of degree 1 .. deg(f)/2."""
    d = f.bit_length() - 1
    if d < 1:
        return False
    for g in range(2, 1 << (d // 2 + 1)):
        if ref_divmod(f, g)[1] == 0:
            return False
    return True


def ref_text(a: int) -> str:
    terms = []
    for i in range(a.bit_length() - 1, -1, -1):
        if a >> i & 1:
            terms.append("1" if i == 0 else "x" if i == 1 else f"x^{i}")
    return " + ".join(terms) if terms else "0"


RNG = random.Random(20261122)


def rand_poly(max_bits: int) -> int:
    return RNG.getrandbits(RNG.randint(0, max_bits))


SIZES = [0, 1, 2, 63, 64, 65, 127, 128, 129, 300, 1000, 4000, 20000]

# --- Conversions. -----------------------------------------------------------


@pytest.mark.parametrize("bits", SIZES)
def test_int_bytes_hex_text_round_trips(bits):
    for _ in range(20):
        a = RNG.getrandbits(bits) if bits else 0
        p = Gf2Poly(a)
        assert int(p) == a == p.to_int()
        assert p.to_bytes() == (a.to_bytes((a.bit_length() + 7) // 8, "big"))
        assert Gf2Poly.from_bytes(p.to_bytes()) == p
        assert Gf2Poly.from_bytes(bytearray(p.to_bytes())) == p
        assert Gf2Poly.from_bytes(memoryview(p.to_bytes())) == p
        assert p.to_hex() == format(a, "x")
        assert Gf2Poly.from_hex(p.to_hex()) == p
        assert Gf2Poly.from_hex("0x" + format(a, "X")) == p
        assert str(p) == ref_text(a)
        assert Gf2Poly(str(p)) == p == Gf2Poly.from_str(str(p))
        assert p.degree == a.bit_length() - 1
        assert bool(p) == bool(a)
        assert hash(p) == hash(a)
        assert eval(repr(p), {"Gf2Poly": Gf2Poly}) == p
        exps = [i for i in range(a.bit_length()) if a >> i & 1][::-1]
        assert p.exponents() == exps
        assert Gf2Poly.from_exponents(exps) == p
        assert all(p.coeff(i) == (a >> i & 1) for i in range(bits + 2))


def test_text_forms():
    assert int(Gf2Poly("x^163 + x^7 + x^6 + x^3 + 1")) == (1 << 163) | 0xC9
    assert int(Gf2Poly("x + x")) == 0
    assert int(Gf2Poly(" x^2+x +1 ")) == 7
    assert str(Gf2Poly(0)) == "0"
    assert int(Gf2Poly.from_exponents([3, 3, 1])) == 2


@pytest.mark.parametrize(
    "bad",
    ["", "x^", "y", "x^-1", "2x", "x^2 +", "x^99999999999999999999"],
)
def test_bad_text_is_a_value_error(bad):
    with pytest.raises(ValueError):
        Gf2Poly(bad)


@pytest.mark.parametrize("bad", ["", "0x", "12g4", "x^2"])
def test_bad_hex_is_a_value_error(bad):
    with pytest.raises(ValueError):
        Gf2Poly.from_hex(bad)


def test_bad_values():
    with pytest.raises(ValueError):
        Gf2Poly(-1)
    with pytest.raises(TypeError):
        Gf2Poly(1.5)
    with pytest.raises(TypeError):
        Gf2Poly.from_bytes("abc")
    with pytest.raises(ZeroDivisionError):
        Gf2Poly(5) % 0
    with pytest.raises(ZeroDivisionError):
        divmod(Gf2Poly(5), Gf2Poly(0))
    with pytest.raises(ZeroDivisionError):
        Gf2Poly(5).pow_mod(3, 0)
    with pytest.raises(ValueError):
        Gf2Poly(6).inverse_mod(10)  # gcd(x^2 + x, x^3 + x) = x^2 + x
    with pytest.raises(OverflowError):
        Gf2Poly(5).pow_mod(-1, 7)
    with pytest.raises(TypeError):
        Gf2Poly(5) + "x"


# --- Arithmetic against the reference. -------------------------------------


@pytest.mark.parametrize("bits", SIZES)
def test_add_mul_divmod(bits):
    for _ in range(12):
        a, b = rand_poly(bits), rand_poly(bits)
        pa, pb = Gf2Poly(a), Gf2Poly(b)
        assert int(pa + pb) == a ^ b == int(pa - pb) == int(a + pb) == int(pa + b)
        assert int(pa * pb) == ref_mul(a, b) == int(a * pb) == int(pa * b)
        assert int(pa.square()) == ref_mul(a, a)
        assert int(pa << 7) == a << 7 and int(pa >> 5) == a >> 5
        # The dividend twice as long as the divisor, and the other way.
        for x, y in ((ref_mul(a, b) ^ a, b), (a, b), (b, a)):
            if y == 0:
                continue
            q, r = ref_divmod(x, y)
            pq, pr = divmod(Gf2Poly(x), Gf2Poly(y))
            assert (int(pq), int(pr)) == (q, r)
            assert int(Gf2Poly(x) // y) == q and int(Gf2Poly(x) % y) == r
            assert int(x % Gf2Poly(y)) == r


@pytest.mark.parametrize("bits", [1, 8, 64, 65, 200, 1000, 3000])
def test_gcd_xgcd(bits):
    for _ in range(8):
        c = rand_poly(bits // 2) | 1
        a, b = ref_mul(rand_poly(bits), c), ref_mul(rand_poly(bits), c)
        g = ref_gcd(a, b)
        pa, pb = Gf2Poly(a), Gf2Poly(b)
        assert int(pa.gcd(pb)) == g  # over GF(2) the gcd is monic anyway
        pg, s, t = pa.xgcd(b)
        assert int(pg) == g
        assert int(s * a + t * b) == g


@pytest.mark.parametrize("bits", [2, 9, 64, 163, 571, 2000])
def test_pow_mod_and_inverse(bits):
    for _ in range(6):
        m = RNG.getrandbits(bits) | (1 << bits) | 1
        a = RNG.getrandbits(bits + 20)
        e = RNG.getrandbits(64)
        assert int(Gf2Poly(a).pow_mod(e, m)) == ref_pow_mod(a, e, m)
        assert int(Gf2Poly(a).pow_mod(0, m)) == 1
        if ref_gcd(a, m) == 1:
            inv = int(Gf2Poly(a).inverse_mod(m))
            assert ref_divmod(ref_mul(inv, a), m)[1] == 1


def test_is_irreducible_against_trial_division():
    for f in range(2, 1 << 11):
        assert Gf2Poly(f).is_irreducible() == ref_irreducible(f), f
    for _ in range(200):
        f = RNG.getrandbits(20) | (1 << 20)
        assert Gf2Poly(f).is_irreducible() == ref_irreducible(f), f


def test_nist_moduli_are_irreducible():
    for text in [
        "x^163 + x^7 + x^6 + x^3 + 1",
        "x^233 + x^74 + 1",
        "x^283 + x^12 + x^7 + x^5 + 1",
        "x^409 + x^87 + 1",
        "x^571 + x^10 + x^5 + x^2 + 1",
    ]:
        f = Gf2Poly(text)
        assert f.is_irreducible()
        assert not (f * Gf2Poly("x + 1")).is_irreducible()
        # x^(2^m) = x mod f for irreducible f of degree m: Fermat in GF(2^m).
        x = Gf2Poly("x")
        y = x
        for _ in range(f.degree):
            y = y.pow_mod(2, f)
        assert y == x


# --- gf2x.mul on word arrays. ------------------------------------------------


def words_to_int(w) -> int:
    return int.from_bytes(np.asarray(w, dtype="<u8").tobytes(), "little")


@pytest.mark.parametrize("la", [0, 1, 2, 3, 5, 9, 17, 33, 64, 100, 257, 600])
def test_gf2x_mul(la):
    np_rng = np.random.default_rng(la)
    for lb in sorted({0, 1, la, max(la - 1, 0), la + 3, 2 * la + 1}):
        a = np_rng.integers(0, 2**64, size=la, dtype=np.uint64)
        b = np_rng.integers(0, 2**64, size=lb, dtype=np.uint64)
        c = fieldwork.gf2x.mul(a, b)
        assert c.dtype == np.uint64 and c.shape == (la + lb,)
        assert words_to_int(c) == ref_mul(words_to_int(a), words_to_int(b))


def test_gf2x_mul_big_against_gf2poly():
    np_rng = np.random.default_rng(7)
    a = np_rng.integers(0, 2**64, size=5000, dtype=np.uint64)
    b = np_rng.integers(0, 2**64, size=3000, dtype=np.uint64)
    c = fieldwork.gf2x.mul(a, b)
    assert words_to_int(c) == int(Gf2Poly(words_to_int(a)) * Gf2Poly(words_to_int(b)))
    # Strided input is made contiguous.
    assert words_to_int(fieldwork.gf2x.mul(a[::2], b[:5])) == ref_mul(
        words_to_int(a[::2]), words_to_int(b[:5])
    )


def test_gf2x_mul_errors():
    with pytest.raises(ValueError):
        fieldwork.gf2x.mul(np.zeros(3, dtype=np.int64), np.zeros(3, dtype=np.uint64))
    with pytest.raises(ValueError):
        fieldwork.gf2x.mul(np.zeros((2, 2), dtype=np.uint64), np.zeros(3, dtype=np.uint64))
    with pytest.raises(ValueError):
        fieldwork.gf2x.mul([-1], [1])
    assert list(fieldwork.gf2x.mul([3], [3])) == [5, 0]
