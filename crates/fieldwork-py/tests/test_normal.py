"""GaussianNormalBasis: FIPS 186-2's curve parameters in both bases (the
Rust tests' data files), and the isomorphism against polynomial-basis
arithmetic on random elements."""

import numpy as np
import pytest

from conftest import rust_data
from fieldwork import GF2m, GaussianNormalBasis


def records(name):
    recs, cur = [], {}
    for line in rust_data(name).read_text().splitlines():
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                recs.append(cur)
            cur = {}
            continue
        k, v = (s.strip() for s in line.split("=", 1))
        cur[k] = v
    if cur:
        recs.append(cur)
    return {r["curve"]: r for r in recs}


def test_fips_186_2_parameters_in_both_bases():
    poly = records("nist_binary_curves.txt")
    normal = records("nist_binary_curves_normal.txt")
    assert len(normal) == 10
    for name, nrec in normal.items():
        m, t = int(nrec["m"]), int(nrec["t"])
        nb, F = GaussianNormalBasis(m, t), GF2m(m)
        assert (nb.m, nb.t, nb.p) == (m, t, t * m + 1)
        prec = poly[name]
        for key in ("a", "b", "gx", "gy"):
            pb = F(int(prec[key], 16))
            want = nb.from_hex(nrec[key])
            got = nb.from_polynomial(pb)
            assert np.array_equal(got, want), (name, key)
            assert nb.to_polynomial(want, F) == pb, (name, key)
        # y^2 + xy = x^3 + a x^2 + b in the normal basis.
        a, b, x, y = (nb.from_hex(nrec[k]) for k in ("a", "b", "gx", "gy"))
        lhs = nb.square(y) ^ nb.mul(x, y)
        x2 = nb.square(x)
        rhs = nb.mul(x2, x) ^ nb.mul(a, x2) ^ b
        assert np.array_equal(lhs, rhs), name
        assert nb.to_hex(nb.one()).lower().lstrip("0") == format((1 << m) - 1, "x")


@pytest.mark.parametrize("m,t", [(163, 4), (233, 2), (283, 6), (409, 4), (571, 10), (10, None), (67, None)])
def test_arithmetic_matches_polynomial_basis(m, t):
    nb = GaussianNormalBasis(m, t)
    F = GF2m(m) if m in (163, 233, 283, 409, 571) else GF2m.from_modulus(
        {10: "x^10 + x^3 + 1", 67: "x^67 + x^5 + x^2 + x + 1"}[m]
    )
    rng = np.random.default_rng(m)
    a = F.random(64, rng=rng)
    b = F.from_ints([v | 1 for v in F.random(64, rng=rng).to_ints()])
    na, nbb = nb.from_polynomial(a), nb.from_polynomial(b)
    assert na.shape == (64, nb.words)
    assert (nb.to_polynomial(na, F) == a).all()
    assert np.array_equal(nb.mul(na, nbb), nb.from_polynomial(a * b))
    assert np.array_equal(nb.square(na), nb.from_polynomial(a.square()))
    assert np.array_equal(nb.sqrt(na), nb.from_polynomial(a.sqrt()))
    assert np.array_equal(nb.invert(nbb), nb.from_polynomial(b.invert()))
    assert list(nb.trace(na)) == list(a.trace())
    assert np.array_equal(nb.from_polynomial(F(1)), nb.one())
    # One element against many.
    assert np.array_equal(nb.mul(na[3], nbb), nb.from_polynomial(a[3] * b))


def test_errors():
    with pytest.raises(ValueError):
        GaussianNormalBasis(163, 3)  # 3*163 + 1 = 490 is not prime
    with pytest.raises(ValueError):
        GaussianNormalBasis(8)  # 8 | m: no Gaussian normal basis
    nb = GaussianNormalBasis(163, 4)
    bad = nb.random(3)
    bad[1, 2] |= np.uint64(1 << 40)
    with pytest.raises(ValueError, match="element 1"):
        nb.square(bad)
    with pytest.raises(ValueError):
        nb.mul(np.zeros(2, dtype=np.uint64), nb.one())
    with pytest.raises(ZeroDivisionError):
        nb.invert(np.zeros(3, dtype=np.uint64))
    with pytest.raises(ValueError):
        nb.to_polynomial(nb.one(), GF2m(233))
    with pytest.raises(ValueError):
        nb.from_hex("zz")
