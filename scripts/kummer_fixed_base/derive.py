#!/usr/bin/env python3
"""Derive the genus-2 curve behind fieldwork's Kummer surface, the map from
its Jacobian to the surface, the base point's preimage and the fixed-base
table; check each against the Kummer ladder; write the Rust constants.

The surface is the squared Kummer surface of Gaudry–Schost used by
Bernstein, Chuengsatiansup, Lange & Schwabe ("Kummer strikes back", 2014):
neutral (-11 : 22 : 19 : 3) over p = 2^127 - 1. Nothing below is taken from
published constants; every step is computed and checked here:

1. The 16 nodes (images of the 2-torsion): with Th = sqrt(H(neutral)),
   the nodes are H(e * sigma(Th) * Th) for the four double transpositions
   sigma and the sign vectors e (theta duplication); each is checked to lie
   on the surface and to double to the neutral point.
2. The 16 tropes: planes through 6 nodes. On one trope the six nodes lie on
   a conic, which is the quotient of the curve by its hyperelliptic
   involution; the nodes are the images of the six Weierstrass points. The
   conic is parametrised by projection from one node, and a Moebius map puts
   three of the six parameters at infinity, 0 and 1 (Rosenhain form).
3. The Kummer surface of y^2 = f(x) in Cassels–Flynn coordinates, and the
   unique linear map from it to the squared surface taking the 2-torsion
   images to the nodes and the neutral element to the neutral point; checked
   against the ladder's doubling on random divisors, for both twists.
4. The base point's preimage (Mumford coordinates); the twist is the one
   where it exists with N2 times it the neutral element.
5. Random scalars: the image of k*D equals the ladder's k*base.

Run: python3 scripts/kummer_fixed_base/derive.py > crates/fieldwork/src/kummer/fixed_base_table.rs
then `cargo fmt` (the committed file is the formatted output; about a minute;
pure Python 3, no packages). KUMMER_COMB_W sets the window width (default 7).
"""
import itertools, os, random, sys

p = 2**127 - 1
def inv(a): return pow(a % p, p - 2, p)
def sqrt(a):
    a %= p; r = pow(a, (p + 1) // 4, p)
    return r if r * r % p == a else None
def log(*a): print(*a, file=sys.stderr)

NEUTRAL = [-11 % p, 22, 19, 3]
CH = [c % p for c in (-833, 2499, 1617, 561)]
CD = [c % p for c in (-114, 57, 66, 418)]
BASE = (6, 0x6b373971f8a71f9d56c7af4d6b1e3068, 1)
N2 = 1809251394333065553571917326471206521441306174399683558571672623546356726339

def H(v):
    x, y, z, t = v
    return [(x+y+z+t) % p, (x+y-z-t) % p, (x-y+z-t) % p, (x-y-z+t) % p]
def times(a, b): return [a[i] * b[i] % p for i in range(4)]
def from_ratios(u):
    u1, u2, u3 = u
    return [u1*u2*u3 % p, u2*u3 % p, u1*u3 % p, u1*u2 % p]
def ladder(k, u):
    r0, r1, diff = NEUTRAL[:], from_ratios(u), [1] + list(u)
    for i in range(250, -1, -1):
        if (k >> i) & 1: r0, r1 = r1, r0
        a, b = H(r0), H(r1)
        b = times(times(b, a), CH); a = times(times(a, a), CH)
        b, a = H(b), H(a)
        r1 = times(times(b, b), diff); r0 = times(times(a, a), CD)
        if (k >> i) & 1: r0, r1 = r1, r0
    return r0
def xdbl(P):
    a = H(P); a = times(times(a, a), CH); a = H(a); return times(times(a, a), CD)
def proj_eq(a, b):
    return all((a[i]*b[j] - a[j]*b[i]) % p == 0 for i in range(len(a)) for j in range(len(a)))
S, SF, SG, SH, E4 = 306475, 485875, 12259, -240875, -344574175176
def on_surface(P):
    x, y, z, t = P
    q = (S*(x*x+y*y+z*z+t*t) - SF*(x*t+y*z) - SG*(x*z+y*t) - SH*(x*y+z*t)) % p
    return (q*q - E4*x*y*z*t) % p == 0

# ---- linear algebra mod p
def solve(A, b):
    n = len(A); M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        r = next((r for r in range(c, n) if M[r][c] % p), None)
        if r is None: return None
        M[c], M[r] = M[r], M[c]; iv = inv(M[c][c]); M[c] = [x*iv % p for x in M[c]]
        for r in range(n):
            if r != c and M[r][c]:
                f = M[r][c]; M[r] = [(x - f*y) % p for x, y in zip(M[r], M[c])]
    return [M[i][n] for i in range(n)]
def null_vector(rows, n):
    M = [r[:] for r in rows]; piv = []; r = 0
    for c in range(n):
        k = next((k for k in range(r, len(M)) if M[k][c] % p), None)
        if k is None: continue
        M[r], M[k] = M[k], M[r]; iv = inv(M[r][c]); M[r] = [x*iv % p for x in M[r]]
        for k in range(len(M)):
            if k != r and M[k][c]:
                f = M[k][c]; M[k] = [(x - f*y) % p for x, y in zip(M[k], M[r])]
        piv.append(c); r += 1
    free = [c for c in range(n) if c not in piv]
    assert len(free) == 1, free
    v = [0]*n; v[free[0]] = 1
    for i, c in enumerate(piv): v[c] = (-M[i][free[0]]) % p
    return v
def det3(a, b, c):
    return (a[0]*(b[1]*c[2]-b[2]*c[1]) - a[1]*(b[0]*c[2]-b[2]*c[0]) + a[2]*(b[0]*c[1]-b[1]*c[0])) % p
def mat_vec(M, v): return [sum(M[i][j]*v[j] for j in range(4)) % p for i in range(4)]
def mat_inv(M):
    cols = [solve(M, [int(r == c) for r in range(4)]) for c in range(4)]
    return [[cols[c][r] for c in range(4)] for r in range(4)]
def proj_map(src, dst):
    """The projective map taking src[i] to dst[i] (five points), or None."""
    A = [[src[j][i] for j in range(4)] for i in range(4)]
    B = [[dst[j][i] for j in range(4)] for i in range(4)]
    a, b = solve(A, src[4]), solve(B, dst[4])
    if a is None or b is None or 0 in a or 0 in b: return None
    k = [b[j]*inv(a[j]) % p for j in range(4)]
    Ai = mat_inv(A)
    return [[sum(B[i][m]*k[m]*Ai[m][j] for m in range(4)) % p for j in range(4)] for i in range(4)]

# ---- polynomials (lists, low degree first) and Cantor's algorithm
def trim(a):
    a = [x % p for x in a]
    while a and a[-1] == 0: a.pop()
    return a
def padd(a, b):
    n = max(len(a), len(b))
    return trim([(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(n)])
def pneg(a): return trim([-x for x in a])
def psub(a, b): return padd(a, pneg(b))
def pmul(a, b):
    if not a or not b: return []
    r = [0]*(len(a)+len(b)-1)
    for i, x in enumerate(a):
        for j, y in enumerate(b): r[i+j] += x*y
    return trim(r)
def pdivmod(a, b):
    a, b = trim(a), trim(b); q = [0]*max(len(a)-len(b)+1, 1); il = inv(b[-1])
    while len(a) >= len(b) and a:
        c = a[-1]*il % p; d = len(a)-len(b); q[d] = c
        for i, y in enumerate(b): a[i+d] = (a[i+d] - c*y) % p
        a = trim(a)
    return trim(q), a
def monic(a): il = inv(a[-1]); return [x*il % p for x in a]
def xgcd(a, b):
    r0, r1, s0, s1, t0, t1 = trim(a), trim(b), [1], [], [], [1]
    while r1:
        q, r = pdivmod(r0, r1)
        r0, r1 = r1, r; s0, s1 = s1, psub(s0, pmul(q, s1)); t0, t1 = t1, psub(t0, pmul(q, t1))
    il = inv(r0[-1]); return [x*il % p for x in r0], [x*il % p for x in s0], [x*il % p for x in t0]
ZERO = ([1], [])
def cantor_add(f, D1, D2):
    (u1, v1), (u2, v2) = D1, D2
    d1, e1, e2 = xgcd(u1, u2)
    d, c1, c2 = xgcd(d1, padd(v1, v2))
    s1, s2 = pmul(c1, e1), pmul(c1, e2)
    u = pdivmod(pmul(u1, u2), pmul(d, d))[0]
    num = padd(padd(pmul(pmul(s1, u1), v2), pmul(pmul(s2, u2), v1)), pmul(c2, padd(pmul(v1, v2), f)))
    v = pdivmod(pdivmod(num, d)[0], u)[1]
    while len(u) > 3:
        u = monic(pdivmod(psub(f, pmul(v, v)), u)[0]); v = pdivmod(pneg(v), u)[1]
    return (monic(u) if u else [1], v)
def cantor_mul(f, k, D):
    R, Q = ZERO, D
    if k < 0: k, Q = -k, (D[0], pneg(D[1]))
    while k:
        if k & 1: R = cantor_add(f, R, Q)
        Q = cantor_add(f, Q, Q); k >>= 1
    return R
def peval(f, x): return sum(c*pow(x, i, p) for i, c in enumerate(f)) % p

def cassels_flynn(f, D):
    """Cassels–Flynn Kummer coordinates of a degree-2 divisor (u, v)."""
    u, v = D
    u = u + [0]*(3-len(u)); v = v + [0]*(2-len(v)); fc = f + [0]*(7-len(f))
    u0, u1, v0, v1 = u[0], u[1], v[0], v[1]
    s, q = -u1 % p, u0  # x1 + x2, x1 x2
    F0 = (2*fc[0] + fc[1]*s + 2*fc[2]*q + fc[3]*q*s + 2*fc[4]*q*q + fc[5]*q*q*s + 2*fc[6]*q**3) % p
    y1y2 = (v1*v1*u0 - v1*v0*u1 + v0*v0) % p
    disc = (u1*u1 - 4*u0) % p
    return [disc, s*disc % p, q*disc % p, (F0 - 2*y1y2) % p]

def derive():
    # 1. nodes
    Th = [sqrt(-x) for x in H(NEUTRAL)]
    assert all(t is not None for t in Th)
    nodes = []
    for s in [(0, 1, 2, 3), (1, 0, 3, 2), (2, 3, 0, 1), (3, 2, 1, 0)]:
        for e in itertools.product([1, -1], repeat=4):
            v = H([e[i]*Th[s[i]]*Th[i] % p for i in range(4)])
            if on_surface(v) and proj_eq(xdbl(v), NEUTRAL) and not any(proj_eq(v, n) for n in nodes):
                nodes.append(v)
    assert len(nodes) == 16
    # 2. a trope, its conic, the six branch points
    for a, b, c in itertools.combinations(range(16), 3):
        pl = null_vector([nodes[a], nodes[b], nodes[c]], 4)
        on = [n for n in nodes if sum(pl[k]*n[k] for k in range(4)) % p == 0]
        if len(on) == 6: break
    drop = next(k for k in range(4) if pl[k])
    pts = [[n[k] for k in range(4) if k != drop] for n in on]
    mono = lambda v: [v[0]*v[0], v[0]*v[1], v[0]*v[2], v[1]*v[1], v[1]*v[2], v[2]*v[2]]
    q = null_vector([[x % p for x in mono(v)] for v in pts[:5]], 6)
    assert sum(x*y for x, y in zip(q, mono(pts[5]))) % p == 0
    Mq = [[2*q[0], q[1], q[2]], [q[1], 2*q[3], q[4]], [q[2], q[4], 2*q[5]]]
    Q0, R1, R2 = pts[0], [1, 2, 3], [5, -7, 11]
    g = [sum(Q0[i]*Mq[i][j] for i in range(3)) % p for j in range(3)]
    ts = [-sum(g[j]*R1[j] for j in range(3)) * inv(sum(g[j]*R2[j] for j in range(3))) % p]
    ts += [-det3(Q0, Qi, R1) * inv(det3(Q0, Qi, R2)) % p for Qi in pts[1:]]
    assert len(set(ts)) == 6
    t1, t2, t3 = ts[:3]
    ros = [(x - t2)*(t3 - t1) % p * inv((x - t1)*(t3 - t2)) % p for x in ts[3:]]
    log("Rosenhain invariants", ros)
    # 3./4. per twist: map, base point lift
    for tw in (1, -1):
        roots = [r*tw % p for r in [0, 1] + ros]
        f = [1]
        for r in roots: f = pmul(f, [-r % p, 1])
        tors = [cassels_flynn(f, (pmul([-roots[i], 1], [-roots[j], 1]), []))
                for i, j in itertools.combinations(range(5), 2)]
        cf0 = [0, 0, 0, 1]
        pick = next(c for c in itertools.combinations(range(10), 4)
                    if proj_map([tors[i] for i in c] + [cf0], [tors[i] for i in c] + [cf0]))
        rest = [tors[i] for i in range(10) if i not in pick]
        others = [n for n in nodes if not proj_eq(n, NEUTRAL)]
        maps = []
        for tup in itertools.permutations(range(15), 4):
            M = proj_map([tors[i] for i in pick] + [cf0], [others[j] for j in tup] + [NEUTRAL])
            if M and all(any(proj_eq(mat_vec(M, c), n) for n in nodes) for c in rest):
                maps.append(M)
        assert len(maps) == 1, len(maps)
        M = maps[0]
        # lift the base point
        k1, k2, k3, k4 = mat_vec(mat_inv(M), from_ratios(BASE))
        u1, u0 = -k2*inv(k1) % p, k3*inv(k1) % p
        u = [u0, u1, 1]
        r = pdivmod(f, u)[1] + [0, 0]
        r0, r1 = r[0], r[1]
        # v = v1 x + v0 with v^2 = f mod u: w = v1^2 solves
        # (4u0 - u1^2) w^2 + (4 r0 - 2 r1 u1) w - r1^2 = 0
        A2, A1, A0 = (4*u0 - u1*u1) % p, (4*r0 - 2*r1*u1) % p, (-r1*r1) % p
        dsc = sqrt(A1*A1 - 4*A2*A0)
        lifts = []
        if dsc is not None:
            for w in ((-A1 + dsc)*inv(2*A2) % p, (-A1 - dsc)*inv(2*A2) % p):
                v1 = sqrt(w)
                if v1 is None or v1 == 0: continue
                v0 = (r1 + u1*w)*inv(2*v1) % p
                D = (u, trim([v0, v1]))
                if proj_eq(mat_vec(M, cassels_flynn(f, D)), from_ratios(BASE)):
                    lifts.append(D)
        log("twist", tw, "lifts", len(lifts))
        if lifts:
            D = lifts[0]
            assert cantor_mul(f, N2, D) == ZERO
            rnd = random.Random(7)
            for _ in range(4):
                k = rnd.getrandbits(251)
                assert proj_eq(mat_vec(M, cassels_flynn(f, cantor_mul(f, k, D))), ladder(k, BASE))
            log("checked: k*D maps to the ladder's k*base")
            return f, M, D
    raise SystemExit("no twist carries the base point")


# ---- the fixed-base comb, as the Rust code computes it
# Signed odd digits in base 2^W of an odd k < 2^251: WINDOWS − 1 steps leave
# a quotient below 2^(251 − (WINDOWS − 1)·W) + 1 ≤ 2^W, the last digit.
W = int(os.environ.get("KUMMER_COMB_W", "7"))
WINDOWS = 250 // W + 1
ENTRIES = 1 << (W - 1)

def mixed_add(f4, R, T):
    """R + T for R = (A1, A0, B1, B0, Zu, Y) projective (u = x^2 + (A1 x +
    A0)/Zu, v = (B1 x + B0)/(Zu Y)) and T = (c1, c0, d1, d0) affine, u's
    coprime: the 41-product formula of fixed_base.rs. Returns the sum and
    the two values whose vanishing marks an exceptional case (the
    resultant times Zu^2, and S1)."""
    A1, A0, B1, B0, Zu, Y = R; c1, c0, d1, d0 = T
    Zv = Zu*Y % p
    z1 = (A1 - c1*Zu) % p; z0 = (A0 - c0*Zu) % p
    e1 = (d1*Zv - B1) % p; e0 = (d0*Zv - B0) % p
    t0 = (z0 - c1*z1) % p
    dl = (z0*t0 + c0*z1*z1) % p
    S1 = (e1*z0 - e0*z1) % p
    S0 = (e1*z1*c0 + e0*t0) % p
    Dy = Y*dl % p                                   # s = (S1 x + S0)/Dy
    s11, s00, DD, s10 = S1*S1 % p, S0*S0 % p, Dy*Dy % p, S1*S0 % p
    # u' = x^2 + (N1 x + N0)/(Zu S1^2)
    N1 = (Zu*(2*s10 - DD) + z1*s11) % p
    B1dl = B1*dl % p
    N0 = (Zu*s00 + 2*z1*s10 + t0*s11 + 2*B1dl*S1 + (2*A1 - z1 - f4*Zu)*DD) % p
    # v' = -(V mod u'), V = v1 + s u1, over Zu S1^2 * Dy S1
    Wq = (c1*s11 - s10 + DD) % p
    mid = (A0*S1 + A1*S0) % p
    s13 = s11*S1 % p
    V1 = (Wq*N1 - s13*(B1dl + mid) + s11*N0) % p
    V0 = (Wq*N0 - s13*(B0*dl + A0*S0)) % p
    return (N1, N0, V1, V0, Zu*s11 % p, Dy*S1 % p), dl, S1

def affine(Dv):
    u, v = Dv; u = u + [0]*3; v = v + [0]*2
    return (u[1], u[0], v[1], v[0])

def table(f, D):
    rows = []
    base = D
    for i in range(WINDOWS):
        two = cantor_add(f, base, base)
        divs = [base]
        while len(divs) < ENTRIES: divs.append(cantor_add(f, divs[-1], two))
        # every entry has a degree-2 u (the mixed addition needs it)
        assert all(len(u) == 3 for u, _ in divs)
        row = [affine(dv) for dv in divs]
        rows.append(row)
        for _ in range(W): base = cantor_add(f, base, base)
    return rows

def recode(k):
    digits = []
    for _ in range(WINDOWS - 1):
        d = (k & ((2 << W) - 1)) - (1 << W); digits.append(d); k = (k - d) >> W
    digits.append(k)
    return digits

def kummer_of(f, M, R):
    A1, A0, B1, B0, Zu, Y = R
    A1, A0, Z = A1*Y % p, A0*Y % p, Zu*Y % p  # one denominator
    disc = (A1*A1 - 4*A0*Z) % p
    k4 = (-f[1]*A1*Z*Z + 2*f[2]*A0*Z*Z - f[3]*A0*A1*Z + 2*f[4]*A0*A0*Z - A0*A0*A1
          - 2*(B1*B1*A0 - B1*B0*A1 + B0*B0*Z)) % p
    return mat_vec(M, [Z*disc % p, -A1*disc % p, A0*disc % p, k4])

def comb(f, M, tab, scalar):
    """The Kummer point scalar*base, or None on an exceptional case."""
    k = scalar & ((1 << 251) - 1)
    if k >= N2: k -= N2
    if k % 2 == 0: k = N2 - k
    ok = True
    R = None
    for i, d in enumerate(recode(k)):
        c1, c0, d1, d0 = tab[i][(abs(d) - 1) // 2]
        T = (c1, c0, d1, d0) if d > 0 else (c1, c0, -d1 % p, -d0 % p)
        if R is None: R = T + (1, 1); continue
        R, dl, s1 = mixed_add(f[4], R, T)
        ok = ok and dl != 0 and s1 != 0
    return kummer_of(f, M, R) if ok else None

def rust_table(f, M, tab):
    out = ["// @generated by scripts/kummer_fixed_base/derive.py: do not edit.",
           "//! Constants of the fixed-base method (see `fixed_base.rs`).", "",
           "/// f = x^5 + f4 x^4 + f3 x^3 + f2 x^2 + f1 x (f0 = 0).",
           "pub(super) const F: [u128; 5] = [" + ", ".join(f"{c:#034x}" for c in f[:5]) + "];",
           "/// Cassels–Flynn coordinates to the squared Kummer surface, row by row.",
           "pub(super) const MAP: [[u128; 4]; 4] = ["]
    for row in M: out.append("    [" + ", ".join(f"{c:#034x}" for c in row) + "],")
    out.append("];")
    out.append("/// Window width of the comb, its number of windows, entries per window.")
    out.append(f"pub(super) const W: u32 = {W};")
    out.append(f"pub(super) const WINDOWS: usize = {WINDOWS};")
    out.append(f"pub(super) const ENTRIES: usize = {ENTRIES};")
    out.append("/// The table's rows, aligned to 64 bytes: each 64-byte entry is one cache")
    out.append("/// line, and no 32- or 64-byte load of the scans splits two (with the")
    out.append("/// array's own 8-byte alignment the linker's placement decided, and")
    out.append("/// key generation moved by 15 % between builds).")
    out.append("#[repr(C, align(64))]")
    out.append("pub(super) struct Table(pub(super) [[[u64; 8]; ENTRIES]; WINDOWS]);")
    out.append("")
    out.append("impl core::ops::Deref for Table {")
    out.append("    type Target = [[[u64; 8]; ENTRIES]; WINDOWS];")
    out.append("    #[inline(always)]")
    out.append("    fn deref(&self) -> &Self::Target {")
    out.append("        &self.0")
    out.append("    }")
    out.append("}")
    out.append("")
    out.append(f"/// `TABLE[i][j]` = (2j + 1)·2^({W}i)·D, affine (u1, u0, v1, v0), each")
    out.append("/// coordinate as two little-endian 64-bit words.")
    out.append("pub(super) static TABLE: Table = Table([")
    for row in tab:
        out.append("    [")
        for e in row:
            words = [w for c in e for w in (c & (2**64 - 1), c >> 64)]
            out.append("        [" + ", ".join(f"{w:#018x}" for w in words) + "],")
        out.append("    ],")
    out.append("]);")
    return "\n".join(out) + "\n"

if __name__ == "__main__":
    f, M, D = derive()
    tab = table(f, D)
    rnd = random.Random(11)
    c = N2 - (1 << 250)
    specials = [0, 1, 2, 3, N2 - 1, N2, N2 + 1, (1 << 251) - 1, (1 << 250) - c, N2 - ((1 << 250) - c)]
    for k in specials + [rnd.getrandbits(251) for _ in range(20)]:
        got = comb(f, M, tab, k)
        if got is None:
            log("exceptional scalar", hex(k)); continue
        assert proj_eq(got, ladder(k, BASE)), hex(k)
    log("checked: the comb agrees with the ladder")
    sys.stdout.write(rust_table(f, M, tab))
