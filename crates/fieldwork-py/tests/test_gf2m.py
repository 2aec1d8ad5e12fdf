"""GF2m element arrays, differential against ``galois`` on random arrays for
every NIST degree and for run-time moduli."""

import numpy as np
import pytest

from fieldwork import GF2m, GF2mArray, Gf2Poly

galois = pytest.importorskip("galois", reason="the differential tests need galois")

NIST = {
    163: [163, 7, 6, 3, 0],
    233: [233, 74, 0],
    283: [283, 12, 7, 5, 0],
    409: [409, 87, 0],
    571: [571, 10, 5, 2, 0],
}

# Run-time fields: the AES field, a trinomial (word folding), a dense
# modulus (Barrett reduction), an even degree, and a NIST modulus given
# explicitly (so the run-time path is checked on it too).
RUNTIME = [
    "x^8 + x^4 + x^3 + x + 1",
    "x^127 + x + 1",
    "x^64 + x^4 + x^3 + x + 1",
    "x^163 + x^7 + x^6 + x^3 + 1",
]


def dense_irreducible(m: int, seed: int) -> Gf2Poly:
    rng = np.random.default_rng(seed)
    while True:
        low = int.from_bytes(rng.bytes((m + 7) // 8), "little") & ((1 << m) - 1)
        f = Gf2Poly((1 << m) | low | 1)
        if f.is_irreducible():
            return f


def sample(F: GF2m, n: int, seed: int) -> GF2mArray:
    """n random elements with 0, 1, x^(m-1) and 2^m - 1 among them."""
    r = F.random(n, rng=np.random.default_rng(seed)).to_ints()
    r[:4] = [0, 1, 1 << (F.m - 1), (1 << F.m) - 1]
    return F.from_ints(r)


def gal(F: GF2m, x: GF2mArray):
    return x.to_galois()


def same(x: GF2mArray, g) -> bool:
    ints = [int(v) for v in np.asarray(g.view(np.ndarray)).reshape(-1)]
    return x.to_ints() == ints


FIELDS = [pytest.param(("nist", m), id=f"GF2m({m})") for m in NIST] + [
    pytest.param(("runtime", f), id=f"from_modulus({f.split(' ')[0]}…)") for f in RUNTIME
] + [pytest.param(("dense", 100), id="from_modulus(dense deg 100)")]


def make(spec):
    kind, v = spec
    if kind == "nist":
        return GF2m(v)
    if kind == "dense":
        return GF2m.from_modulus(dense_irreducible(v, 5))
    return GF2m.from_modulus(v)


@pytest.fixture(params=FIELDS)
def field(request):
    return make(request.param)


def test_field_matches_galois_definition(field):
    G = field.galois_field()
    assert G.order == 2**field.m
    assert int(G.irreducible_poly) == int(field.modulus)


def galois_trace(ga):
    """Tr(a) = a + a^2 + ... + a^(2^(m-1)), by squarings in galois (galois'
    own field_trace takes minutes for these degrees)."""
    m = type(ga).degree
    t, acc = ga.copy(), ga.copy()
    for _ in range(m - 1):
        t = t**2
        acc = acc + t
    return [int(v) for v in acc]


def test_arithmetic_against_galois(field):
    n = 256
    a, b = sample(field, n, 1), sample(field, n, 2)
    ga, gb = gal(field, a), gal(field, b)
    assert same(a + b, ga + gb)
    assert same(a - b, ga - gb)
    assert same(a * b, ga * gb)
    assert same(a.square(), ga**2)
    assert same(a**5, ga**5)
    e = 0xFEDCBA987654321  # below 2^63: galois' small fields take int64 exponents
    assert same(a**e, ga**e)
    # Exponents of several words: a^(2^64 + 3) = (a^(2^32))^(2^32) * a^3.
    assert ((a ** (2**64 + 3)) == (a ** (2**32)) ** (2**32) * a**3).all()
    # The square root is unique in characteristic 2: check its square.
    r = gal(field, a.sqrt())
    assert same(a, r**2)
    # Inversion: the whole batch through galois products, 16 elements
    # through galois' own (slow for large m) inversion.
    nz = field.from_ints([v if v else 1 for v in b.to_ints()])
    gnz = gal(field, nz)
    inv = nz.invert()
    assert all(int(v) == 1 for v in gal(field, inv) * gnz)
    assert same(inv[:16], gnz[:16] ** -1)
    assert same(a[:16] / nz[:16], ga[:16] / gnz[:16])
    assert same(nz[:8] ** -3, (gnz[:8] ** -1) ** 3)


def test_half_trace_and_quadratics_against_galois(field):
    a = sample(field, 32, 3)
    ga = gal(field, a)
    tr = galois_trace(ga)
    assert list(a.trace()) == tr
    z, ok = a.solve_quadratic()
    gz = gal(field, z)
    assert list(ok) == [t == 0 for t in tr]
    # Where a root exists it is one: z^2 + z = a (checked in galois).
    roots = gz**2 + gz
    for i in range(len(a)):
        if ok[i]:
            assert int(roots[i]) == int(ga[i])
            assert a[i].solve_quadratic() == z[i]
        else:
            assert int(z[i]) == 0
            assert a[i].solve_quadratic() is None
    if field.m % 2 == 1:
        # H(a) = sum a^(4^i), i = 0 .. (m-1)/2, computed in galois.
        h = ga.copy()
        for _ in range((field.m - 1) // 2):
            h = h**4 + ga
        assert same(a.half_trace(), h)
    else:
        with pytest.raises(ValueError, match="odd m"):
            a.half_trace()


def test_galois_round_trip_and_scalars(field):
    a = sample(field, 20, 4)
    g = a.to_galois()
    assert (field.from_galois(g) == a).all()
    s = a[5]
    assert s.is_scalar and s.shape == ()
    assert int(field.from_galois(g[5])) == int(s)
    assert int(s.to_galois()) == int(s)
    # Scalar broadcasting, ints as elements.
    gs = g[5]
    assert same(a * s, g * gs)
    assert same(s * a, gs * g)
    assert same(a + 1, g + field.galois_field()(1))
    assert int(s * s) == int(gs * gs)
    assert (s * 1) == s and not bool(field(0))
    assert field.from_bytes(s.to_bytes()) == s


def test_words_layout_and_validation():
    F = GF2m(233)
    assert F.words == 4 and F.m == 233 and F.is_nist
    assert F.modulus == Gf2Poly("x^233 + x^74 + 1")
    x = F(1 << 200)
    assert x.words.dtype == np.uint64 and x.words.shape == (4,)
    assert list(x.words) == [0, 0, 0, 1 << (200 - 192)]
    arr = F.random(10)
    assert arr.words.shape == (10, 4)
    assert (F.from_words(arr.words) == arr).all()
    assert (F(arr.words.copy()) == arr).all()  # a uint64 (n, words) array
    bad = arr.words.copy()
    bad[3, 3] |= np.uint64(1 << (233 - 192))
    with pytest.raises(ValueError, match="element 3"):
        F.from_words(bad)
    with pytest.raises(ValueError):
        F.from_words(np.zeros((2, 3), dtype=np.uint64))
    with pytest.raises(ValueError):
        F.from_words(np.zeros((2, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        F(1 << 233)
    with pytest.raises(ValueError):
        F([-1])
    with pytest.raises(ZeroDivisionError):
        F.from_ints([1, 0, 2]).invert()
    with pytest.raises(ValueError):
        F.random(3) * F.random(4)
    with pytest.raises(ValueError):
        F.random(3) * GF2m(163).random(3)
    with pytest.raises(ValueError):
        GF2m(100)
    with pytest.raises(ValueError):
        GF2m.from_modulus("x^8 + 1")  # reducible
    with pytest.raises(ValueError):
        bool(F.random(2))
    with pytest.raises(ValueError):
        arr.words[0, 0] = 1  # read-only


def test_large_batches_match_elementwise():
    """A 10^4-element batch (one batch inversion) equals scalar results."""
    for m in NIST:
        F = GF2m(m)
        a = F.random(10_000, rng=np.random.default_rng(m))
        b = F.from_ints([v | 1 for v in F.random(10_000, rng=np.random.default_rng(m + 1)).to_ints()])
        inv = b.invert()
        assert (inv * b == 1).all()
        prod = a * b
        for i in (0, 1, 4999, 9999):
            assert prod[i] == a[i] * b[i]
            assert inv[i] == b[i].invert()
        assert (a.sqrt().square() == a).all()


def test_errors_name_the_element_across_chunks():
    """Batches run in chunks of 1024: errors still name the global index,
    and results cross chunk boundaries intact."""
    F = GF2m(409)
    a = F.random(5000, rng=np.random.default_rng(9))
    ints = [v | 1 for v in a.to_ints()]
    ints[2500] = 0
    with pytest.raises(ZeroDivisionError, match="element 2500 "):
        F.from_ints(ints).invert()
    bad = a.words.copy()
    bad[1500, -1] |= np.uint64(1 << 63)
    with pytest.raises(ValueError, match="element 1500:"):
        F._f.mul(bad, a.words)
    with pytest.raises(ValueError, match="element 1500:"):
        F._f.square(bad)
    ints[2500] = 1
    b = F.from_ints(ints)
    for n in (1023, 1024, 1025, 2049):
        assert ((b[:n].invert() * b[:n]) == 1).all()
        assert (a[:n] * b[:n])[n - 1] == a[n - 1] * b[n - 1]
