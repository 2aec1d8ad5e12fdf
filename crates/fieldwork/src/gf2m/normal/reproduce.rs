//! The normal-basis multiplication algorithms of Fan and Dai, *Two software
//! normal basis multiplication algorithms for GF(2^n)* (ePrint 2004/126;
//! `../shared/seeds/004_*.txt`), as the paper writes them, with the
//! algorithms it measures them against: the RH algorithm of
//! Reyhani-Masoleh and Hasan (its §2), the "improved RH" (§5), Ning and
//! Yin's algorithm as the paper describes and lists it (§5 and its ANSI C
//! listing), and the Koç–Acar Montgomery product of Table 4's last column
//! ([`montgomery`]). Feature `reproduce`; not for production use (the
//! default multiplier of `gf2m::normal` is measured against these).
//!
//! # Notation (§2) and our layout
//!
//! N = {β_0, …, β_(n−1)}, β_i = β^(2^i); A = Σ a_i β_i is the vector
//! (a_0, …, a_(n−1)), stored as ⌈n/64⌉ `u64` words with a_i at bit i % 64 of
//! word i / 64, bits ≥ n zero. A_i = A^(2^i); `A >> k` and `A << k` are the
//! paper's k-fold right and left cyclic shift operations (CSO), so
//! A >> k = A_k (position j holds a_(j−k)) and A << k = A_(n−k) (position j
//! holds a_(j+k)). `A & B` is the coordinate-wise AND, ⊕ the addition.
//! β_0 β_i = Σ_(j ∈ S_i) β_j, h_i = |S_i|, w_(i,1) < … < w_(i,h_i) the
//! elements of S_i (formula (1)); v = (n − 1)/2 for odd n and n/2 for even
//! n; C_N = Σ_i h_i (over 0 ≤ i < n) is the complexity of the basis. The
//! S_i come from the multiplication structure of a type-t Gaussian normal
//! basis (p = t·n + 1 prime; IEEE P1363-2000 A.3.7), as the paper's
//! listing computes them.
//!
//! Formula (5) (n odd) and (6)–(7) (n even), from \[3\]:
//! D = (B & A)_1 + Σ_(i=1)^v Σ_(k∈S_i) (R_i)_k with
//! R_i = (B & A_(n−i)) + (A & B_(n−i)), and R_v = A & B_v for even n.
//!
//! # The algorithms ([`NbMulAlgorithm`]) and where they are in the paper
//!
//! | variant | paper | per product (Table 1/2 unit: n-bit operations) |
//! |---|---|---|
//! | `RhOriginal` | §2 "RH Multiplication Algorithm", (5); Table 1 col. 1 | n AND, (C_N+n−2)/2 XOR, (C_N+2n−1)/2 CSO |
//! | `RhImproved` | §2 (the DA/DB tables) and §5 "improved RH"; Table 1 col. 2 | n AND, (C_N+n−2)/2 XOR, (C_N+1)/2 + 3z CSO |
//! | `FanDai1` | §3 Algorithm 1, (8)–(10); Table 1 col. 3 | n AND, (C_N+n−2)/2 XOR, < n + 3z CSO |
//! | `FanDai1NoTables` | §3, the Notes after Algorithm 1 | as `FanDai1`, ≤ 2n CSO and no table |
//! | `FanDai2` | §4 Algorithm 2, (12) and (13); Table 1 col. 4 | ≤ 2n+1 AND, C_N − 1 XOR, 4z CSO |
//! | `Formula14` | §4 formula (14), type-I ONB; Table 2 row 1 | n AND, n − 1 XOR + 1 Hamming weight, 4z CSO |
//! | `NingYin` | §5 and the listing's `Alg2_of_NY`, `Alg3_of_NY_for_ONB2`, `alg4_of_NY_for_ONB1`; Table 2 row 2 | n AND, ≈ C_N XOR of z-bit words per output word, 2z CSO |
//! | `P1363Bitwise` | IEEE P1363-2000 A.3.8 (the paper's \[4\]; the tests' reference) | bit by bit |
//!
//! [`NbMulAlgorithm::counts`] returns our counts and
//! [`NbMulAlgorithm::printed_counts`] the formulas of Tables 1 and 2; the
//! tests compare the two on every field of Tables 3 and 4.
//!
//! z is the width of the processor's data path (§2): the paper's z = 32
//! (Pentium II), ours [`Z`] = 64. The DA/DB tables are built as in §2 and
//! the listing: DA_0 = the periodic sequence a_0 … a_(n−1) a_0 … cut to
//! n + v bits (RH, Algorithm 1) or 2n bits (Algorithm 2, formula (14)),
//! DA_j = DA_(j−1) shifted by one place for 0 < j < z, and A_(n−i) read as
//! ⌈n/z⌉ successive words from DA\[i mod z\]\[⌊i/z⌋\]. Building them is what
//! the paper counts as "about 3z" (resp. 4z, and 2z for Ning–Yin) n-bit
//! CSO; [`NbOpCounts::table_cso`] carries that count.
//!
//! # Where the text is garbled, silent or contradicts itself, and our choice
//!
//! - Formula (2)'s double sums print `Σ_(i=0)^(n−1) Σ_(i=0)^(n−1)` (the
//!   second index is j) and (12)'s last inner sum lost its summand in the
//!   conversion; we read (12) as Algorithm 2's S5–S7 state it (UA sums the
//!   A_(⟨w−i⟩), UB the B_(⟨w−i⟩)).
//! - Algorithm 2's S2 is "D := A_1 & B_1"; the listing computes
//!   (A & B) >> 1 with one CSO. We follow the algorithm and Table 1 (no
//!   run-time CSO): A_1 and B_1 are read from the 2n-bit tables.
//! - Table 1 prints C_N XORs and 2n ANDs for Algorithm 2; the text says
//!   (12) has 2n + 1 ANDs, and S4 skips every w with e_w = 0. Counted as
//!   the algorithm runs: 2·#{w : e_w > 0} + 1 ANDs and Σ 2e_w = C_N − 1
//!   XORs (the tests assert these against the printed bounds).
//! - Algorithms 1 and 2 are stated for odd n only ("for even n, we set
//!   v = n/2", (10) and (13)); for even n we follow (7), (10) and (13): the
//!   i = v term uses R_v = A & B_v, i.e. it enters UB only.
//! - Table 2's "n + 4" XORs of formula (14) count the Hamming weight as at
//!   most 4 additions (§5). The paper computes the weight with a 2^8-entry
//!   byte table; only its parity is used, and a secret-indexed table is not
//!   constant time, so we take the parity by XOR-folding the words (one
//!   n-bit XOR-equivalent, counted in [`NbOpCounts::hamming_weights`]).
//! - Ning–Yin: "no description of the precomputation procedure was
//!   presented in \[5\]"; the paper assumes §2's method with z⌈n/z⌉-bit DA_j
//!   (2z CSO) and its listing is our source: for type I `alg4_of_NY_for_ONB1`,
//!   for type II `Alg3_of_NY_for_ONB2` (row i of the matrix M read as two
//!   word indices), for other types `Alg2_of_NY`, which scans the whole
//!   n × n matrix M for each of the n rows of each output word (this is
//!   why Table 4 has it 20–1000× slower for t ≥ 4). The listing fills M and
//!   its index tables with dummies ("to test performance ONLY"); ours are
//!   the real ones (M is P1363 A.3.8's matrix, J's entries included), so
//!   the products are right. The listing's arrays of 2(N+1) words are read
//!   up to about 2.5N in `alg4_of_NY_for_ONB1` (`pd = B + V`); ours hold
//!   3n + z words.
//! - §5 says "the total number of CSO in Algorithm 1 is at most n + 3z",
//!   Table 1 prints "< n + 3z". We count S2's CSO ((A & B) >> 1: A_1 is
//!   not in the (n + v)-bit table) and the #{k : e_k > 0} result shifts:
//!   where every k but one has e_k > 0 (Table 4's (599, 8)) that is exactly
//!   n + 3z, where every k has ((563, 14)) n + 3z + 1. The paper's bound
//!   leaves out S2's shift (its listing does it too, `In_rol_once(c)`); the
//!   test allows that one.
//!
//! # Constant time
//!
//! Table indices depend only on (n, t), which are public; element bits
//! pass only through AND, XOR, shifts by public amounts and masks made from
//! a bit. Ning–Yin's `Alg2_of_NY` branches on the public matrix M only.
//! The Montgomery column ([`montgomery`]) is the paper's table-lookup
//! method and is **not** constant time (secret-indexed byte tables).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the papers' normal-basis multipliers over vectors of the basis' size, not a production path.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]
#![cfg(feature = "alloc")]

pub mod montgomery;

use alloc::vec;
use alloc::vec::Vec;

/// z of §2, the width of the data path: one `u64` word.
pub const Z: usize = 64;

/// Words of an m-bit vector.
#[inline(always)]
fn words_for(bits: usize) -> usize {
    bits.div_ceil(64)
}

/// The mask of the valid bits of the last word of an m-bit vector.
#[inline(always)]
fn top_mask(bits: usize) -> u64 {
    match bits % 64 {
        0 => u64::MAX,
        r => (1u64 << r) - 1,
    }
}

/// Bit `i` of `v` (public index, secret value).
#[inline(always)]
fn bit(v: &[u64], i: usize) -> u64 {
    (v[i / 64] >> (i % 64)) & 1
}

/// All ones if `b` is 1, zero if 0.
#[inline(always)]
fn mask(b: u64) -> u64 {
    0u64.wrapping_sub(b & 1)
}

/// `out ^= v << shift` for multiword vectors (bits shifted past the end of
/// `out` are dropped).
fn xor_shifted(out: &mut [u64], v: &[u64], shift: usize) {
    let q = shift / 64;
    let r = shift % 64;
    for (k, &w) in v.iter().enumerate() {
        if let Some(o) = out.get_mut(k + q) {
            *o ^= w << r;
        }
        if let (true, Some(o)) = (r != 0, out.get_mut(k + q + 1)) {
            *o ^= w >> (64 - r);
        }
    }
}

/// The first `nbits` bits of the periodic sequence a_0 … a_(n−1) a_0 …, in
/// `words_for(nbits) + 1` words (bits past `nbits` zero).
fn periodic(a: &[u64], n: usize, nbits: usize) -> Vec<u64> {
    let mut e = vec![0u64; words_for(nbits) + 1];
    let mut at = 0;
    while at < nbits {
        xor_shifted(&mut e, a, at);
        at += n;
    }
    let last = words_for(nbits);
    if !nbits.is_multiple_of(64) {
        e[last - 1] &= top_mask(nbits);
    }
    e[last] = 0;
    e
}

/// `out = X << s` (`XOR = false`) or `out ^= X << s` (`XOR = true`) for
/// s < n: the paper's s-fold left CSO, position i holds x_((i+s) mod n).
/// As the listing's `In_ror` / `In_xor_ror`: the words of X >> s (plain
/// shift) in one loop, those of X << (n − s) in another, no per-word
/// branch; bits ≥ n cleared.
#[inline(always)]
fn cso_left_apply<const XOR: bool>(x: &[u64], s: usize, n: usize, out: &mut [u64]) {
    let len = out.len();
    let (qs, rs) = (s / 64, s % 64);
    let xr = &x[qs..len];
    let m = xr.len();
    // X >> s (bits ≥ n − s are zero: x is clean).
    for w in 0..m - 1 {
        let v = (xr[w] >> rs) | ((xr[w + 1] << (63 - rs)) << 1);
        if XOR { out[w] ^= v } else { out[w] = v }
    }
    if XOR {
        out[m - 1] ^= xr[m - 1] >> rs;
    } else {
        out[m - 1] = xr[m - 1] >> rs;
        for o in &mut out[m..] {
            *o = 0;
        }
    }
    // X << (n − s), XORed in (disjoint from the first part below n).
    let k = n - s;
    let (q, r) = (k / 64, k % 64);
    if q < len {
        let top = top_mask(n);
        let mut v = x[0] << r;
        for w in q + 1..len {
            out[w - 1] ^= v;
            v = (x[w - q] << r) | ((x[w - q - 1] >> (63 - r)) >> 1);
        }
        out[len - 1] ^= v & top;
    }
}

/// `out = X >> k` (A >> k = A_k, formula notation (A)_k).
#[inline(always)]
fn cso_right_into(x: &[u64], k: usize, n: usize, out: &mut [u64]) {
    cso_left_apply::<false>(x, (n - k % n) % n, n, out);
}

/// `d = d ⊕ (r >> k)`: RH's S6 and Algorithm 1's S8 (the listing's
/// `In_xor_ror`), no temporary.
#[inline(always)]
fn xor_cso_right(d: &mut [u64], r: &[u64], k: usize, n: usize) {
    cso_left_apply::<true>(r, (n - k % n) % n, n, d);
}

/// `x = x << 1` in place (RH's S4; the listing's `In_ror_once`).
#[inline(always)]
fn cso_left_one(x: &mut [u64], n: usize) {
    let a0 = x[0] & 1;
    let len = x.len();
    for i in 0..len - 1 {
        x[i] = (x[i] >> 1) | (x[i + 1] << 63);
    }
    x[len - 1] >>= 1;
    x[(n - 1) / 64] |= a0 << ((n - 1) % 64);
}

/// `out = x & y` word by word.
#[inline(always)]
fn and_into(out: &mut [u64], x: &[u64], y: &[u64]) {
    for ((o, a), b) in out.iter_mut().zip(x).zip(y) {
        *o = a & b;
    }
}

/// `acc ^= x`.
#[inline(always)]
fn xor_into(acc: &mut [u64], x: &[u64]) {
    for (o, a) in acc.iter_mut().zip(x) {
        *o ^= a;
    }
}

/// `acc ^= x & y`.
#[inline(always)]
fn xor_and_into(acc: &mut [u64], x: &[u64], y: &[u64]) {
    for ((o, a), b) in acc.iter_mut().zip(x).zip(y) {
        *o ^= a & b;
    }
}

/// XOR of the all-ones vector masked by the bit `j`, cut to n bits.
fn add_ones(c: &mut [u64], j: u64, n: usize) {
    let mk = mask(j);
    for w in c.iter_mut() {
        *w ^= mk;
    }
    if let Some(last) = c.last_mut() {
        *last &= top_mask(n);
    }
}

/// The parity of the Hamming weight of `x` (formula (14)'s
/// HammingWeight(B & A_v) mod 2, by XOR-folding: constant time).
#[inline(always)]
fn parity(x: &[u64]) -> u64 {
    let mut f = x.iter().fold(0u64, |acc, w| acc ^ w);
    f ^= f >> 32;
    f ^= f >> 16;
    f ^= f >> 8;
    f ^= f >> 4;
    f ^= f >> 2;
    f ^= f >> 1;
    f & 1
}

/// §2's table DA (or DB): the z vectors DA_j, j < z, each the periodic
/// sequence a_j, a_(j+1), … of `bits` bits, one row of `len` words each;
/// A_(n−i) is the ⌈n/z⌉ words from word ⌊i/z⌋ of row i mod z.
struct ShiftTable {
    rows: Vec<u64>,
    len: usize,
}

impl ShiftTable {
    /// DA_0 then z − 1 shifts by one place (the listing's loop
    /// `zua[i+1][j] = (zua[i][j] >> 1) ^ (zua[i][j+1] << (W−1))`).
    fn new(a: &[u64], n: usize, bits: usize) -> ShiftTable {
        let row0 = periodic(a, n, bits);
        let len = row0.len();
        let mut rows = vec![0u64; Z * len];
        rows[..len].copy_from_slice(&row0);
        for j in 1..Z {
            let (prev, next) = rows.split_at_mut(j * len);
            let prev = &prev[(j - 1) * len..];
            for i in 0..len - 1 {
                next[i] = (prev[i] >> 1) | (prev[i + 1] << 63);
            }
            next[len - 1] = prev[len - 1] >> 1;
        }
        ShiftTable { rows, len }
    }

    /// The flat word index of A_(n−i) (a precomputed "starting address").
    #[inline(always)]
    fn address(len: usize, i: usize) -> usize {
        (i % Z) * len + i / Z
    }

    /// `w` words from a precomputed address.
    #[inline(always)]
    fn at(&self, address: usize, w: usize) -> &[u64] {
        &self.rows[address..address + w]
    }
}

/// Compressed rows: `items[start[r]..start[r+1]]` is row r.
#[derive(Clone, Debug)]
struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    fn from_lists(lists: Vec<Vec<u32>>) -> Rows {
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut items = Vec::new();
        start.push(0);
        for l in lists {
            items.extend_from_slice(&l);
            start.push(items.len() as u32);
        }
        Rows { start, items }
    }

    #[inline(always)]
    fn row(&self, r: usize) -> &[u32] {
        &self.items[self.start[r] as usize..self.start[r + 1] as usize]
    }

    fn total(&self) -> usize {
        self.items.len()
    }
}

/// The multiplication structure of a type-t Gaussian normal basis of
/// GF(2^n) and the precomputed tables of every algorithm of
/// [`NbMulAlgorithm`].
///
/// Built once from (n, t) (public); holds no element.
#[derive(Clone, Debug)]
pub struct NbTable {
    m: usize,
    t: usize,
    p: usize,
    /// F(x) for x = 1..p−1 (P1363 A.3.7); `f[0]` unused.
    f: Vec<u32>,
    /// h = F(p − 1) when t is odd (P1363 A.3.8's J = Σ a_k b_(k+h)).
    j_shift: Option<usize>,
    /// P1363 A.3.8's pairs (F(k+1), F(p−k)), k = 1..p−2.
    pairs: Vec<(u32, u32)>,
    /// Formula (1): S_i for i = 1..=v (row i − 1), ascending
    /// (w_(i,1) < … < w_(i,h_i)).
    s: Rows,
    /// The precomputation of §3 and §4: row k lists m\[k\]\[0..e_k\], the
    /// i ∈ 1..=v with k ∈ S_i, in increasing i.
    by_k: Rows,
    /// Algorithm 2 (§4): for each w, the addresses of B_(⟨w−i⟩) (and
    /// A_(⟨w−i⟩)) in the 2n-bit tables for i in row w of `by_k`.
    alg2_ub: Rows,
    /// The same for UA: for even n without i = v ((13)).
    alg2_ua: Rows,
    /// Ning–Yin: the rows of P1363 A.3.8's matrix M (mod 2, J's entries
    /// included).
    ny_rows: Rows,
    /// Ning–Yin's `Alg2_of_NY` (t ≥ 3): M as a dense n × n byte matrix, as
    /// the listing scans it.
    ny_dense: Vec<u8>,
}

/// The largest n accepted by [`NbTable::new`].
pub const MAX_M: usize = 4096;
/// The largest p = t·n + 1 accepted by [`NbTable::new`].
pub const MAX_P: usize = 1 << 20;

impl NbTable {
    /// The tables of the type-t Gaussian normal basis of GF(2^n), or none
    /// if there is none: p = t·n + 1 must be prime and
    /// gcd(t·n / ord_p(2), n) = 1 (P1363-2000 A.3.6). Also none for n < 2,
    /// t = 0, n > [`MAX_M`] or p > [`MAX_P`].
    pub fn new(m: usize, t: usize) -> Option<NbTable> {
        if !(2..=MAX_M).contains(&m) || t == 0 {
            return None;
        }
        let p = t.checked_mul(m)?.checked_add(1)?;
        if p > MAX_P {
            return None;
        }
        // The existence conditions and A.3.7's F, shared with the basis.
        let (_, f) = super::gauss_period_index(m, t).ok()?;
        let j_shift = (t % 2 == 1).then(|| f[p - 1] as usize);
        let pairs: Vec<(u32, u32)> = (1..p - 1).map(|k| (f[k + 1], f[p - k])).collect();
        let w = words_for(m);
        let row_bits = |mat: &[u64], r: usize| -> Vec<u32> {
            (0..m)
                .filter(|&c| (mat[r * w + c / 64] >> (c % 64)) & 1 == 1)
                .map(|c| c as u32)
                .collect()
        };

        // P1363's M (c_0 = Σ M_ij a_i b_j), mod 2, with J's entries.
        let mut weight = vec![0u64; m * w];
        for &(i, j) in &pairs {
            weight[i as usize * w + j as usize / 64] ^= 1 << (j % 64);
        }
        if let Some(h) = j_shift {
            for i in 0..m {
                let j = (i + h) % m;
                weight[i * w + j / 64] ^= 1 << (j % 64);
            }
        }
        let ny_rows = Rows::from_lists((0..m).map(|i| row_bits(&weight, i)).collect());
        let ny_dense = if t >= 3 {
            (0..m * m)
                .map(|x| ((weight[(x / m) * w + (x % m) / 64] >> ((x % m) % 64)) & 1) as u8)
                .collect()
        } else {
            Vec::new()
        };

        // T_0 of (15): φ_(s,l) = the coefficient of β_l in β_0 β_s. With
        // a = e_0, b = e_s in c_l = c_0(a^(2^−l), b^(2^−l)):
        // φ_(s,l) = M_(−l, s−l).
        let mut phi = vec![0u64; m * w];
        for i in 0..m {
            for &j in ny_rows.row(i) {
                let l = (m - i) % m;
                let s = (j as usize + l) % m;
                phi[s * w + l / 64] ^= 1 << (l % 64);
            }
        }
        // β_0 β_0 = β_1.
        if row_bits(&phi, 0) != [1] {
            return None;
        }
        let v = m / 2;
        let even = m.is_multiple_of(2);
        let s_rows: Vec<Vec<u32>> = (1..=v).map(|i| row_bits(&phi, i)).collect();
        // Precomputation of §3 / §4: S1–S5.
        let mut by_k = vec![Vec::new(); m];
        for (i1, row) in s_rows.iter().enumerate() {
            for &k in row {
                by_k[k as usize].push(i1 as u32 + 1);
            }
        }
        // Algorithm 2's addresses (§4 Notes): A_w = A_(n−(n−w)) starts at
        // offset (n − w) mod n, A_(⟨w−i⟩) at (i − w) mod n; 2n-bit tables.
        let len = words_for(2 * m) + 1;
        let addr = |off: usize| ShiftTable::address(len, off) as u32;
        let alg2_ub = Rows::from_lists(
            by_k.iter()
                .enumerate()
                .map(|(wi, l)| l.iter().map(|&i| addr((i as usize + m - wi) % m)).collect())
                .collect(),
        );
        let alg2_ua = Rows::from_lists(
            by_k.iter()
                .enumerate()
                .map(|(wi, l)| {
                    l.iter()
                        .filter(|&&i| !(even && i as usize == v))
                        .map(|&i| addr((i as usize + m - wi) % m))
                        .collect()
                })
                .collect(),
        );
        Some(NbTable {
            m,
            t,
            p,
            f,
            j_shift,
            pairs,
            s: Rows::from_lists(s_rows),
            by_k: Rows::from_lists(by_k),
            alg2_ub,
            alg2_ua,
            ny_rows,
            ny_dense,
        })
    }

    /// The degree n.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The type t.
    pub fn t(&self) -> usize {
        self.t
    }

    /// The prime p = t·n + 1.
    pub fn p(&self) -> usize {
        self.p
    }

    /// Words per element, `ceil(n/64)`.
    pub fn words(&self) -> usize {
        words_for(self.m)
    }

    /// F(x) of P1363 A.3.7 for x = 1..p−1 (none for x = 0 or x ≥ p).
    pub fn f(&self, x: usize) -> Option<usize> {
        if x == 0 || x >= self.p {
            None
        } else {
            Some(self.f[x] as usize)
        }
    }

    /// S_i of formula (1) for 1 ≤ i ≤ v (none otherwise): the j with
    /// β_0 β_i = Σ β_j, ascending.
    pub fn s(&self, i: usize) -> Option<&[u32]> {
        (1..=self.m / 2).contains(&i).then(|| self.s.row(i - 1))
    }

    /// e_k of §3's precomputation: the number of i ∈ 1..=v with k ∈ S_i.
    pub fn e(&self, k: usize) -> usize {
        if k < self.m {
            self.by_k.row(k).len()
        } else {
            0
        }
    }

    /// The complexity C_N of the basis: the number of ones of T_0 (15),
    /// Σ_(0≤i<n) h_i (2n − 1 for an optimal normal basis).
    pub fn complexity(&self) -> usize {
        // h_0 = 1; h_i = h_(n−i) (β_0 β_(n−i) = (β_0 β_i)^(2^(n−i))), the
        // row v of even n counts once.
        let m = self.m;
        let mut c = 1;
        for i in 1..=m / 2 {
            let h = self.s.row(i - 1).len();
            c += if 2 * i == m { h } else { 2 * h };
        }
        c
    }

    /// The element 1 (all n coordinates 1).
    pub fn one(&self) -> Vec<u64> {
        let mut v = vec![u64::MAX; self.words()];
        if let Some(last) = v.last_mut() {
            *last &= top_mask(self.m);
        }
        v
    }

    /// a² = A >> 1; none for a malformed a.
    pub fn square(&self, a: &[u64]) -> Option<Vec<u64>> {
        self.check(a)?;
        let mut out = vec![0u64; self.words()];
        cso_right_into(a, 1, self.m, &mut out);
        Some(out)
    }

    /// Some(()) if `a` has `words()` words and no bit at or above n.
    fn check(&self, a: &[u64]) -> Option<()> {
        if a.len() != self.words() {
            return None;
        }
        let last = a.last()?;
        (*last & !top_mask(self.m) == 0).then_some(())
    }
}

/// The normal-basis multiplication algorithms of the paper (and its
/// references). Each computes the same product; they differ in the order
/// of evaluation and hence in cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NbMulAlgorithm {
    /// IEEE P1363-2000 A.3.8, bit by bit (the paper's \[4\]; "not efficient
    /// for software implementation", §1): the tests' reference.
    P1363Bitwise,
    /// Ning and Yin (\[5\]) as §5 and the listing have it: words
    /// A\[k\] = (a_k … a_(k+z−1)) from z one-place CSOs (2z in all), output
    /// word by word; type I `alg4_of_NY_for_ONB1`, type II
    /// `Alg3_of_NY_for_ONB2`, other types `Alg2_of_NY` (the dense matrix
    /// scan). Table 2 row 2, Tables 3 and 4's NY column.
    NingYin,
    /// The RH algorithm of \[3\] as §2 states it (formula (5), (6)–(7) for
    /// even n). Table 1 column 1, Table 4's "Original RH".
    RhOriginal,
    /// "The RH algorithm using precomputation tables DA and DB" (§5; §2's
    /// tables of (n + v)-bit vectors). Table 1 column 2, Table 4's
    /// "Improved RH".
    RhImproved,
    /// Algorithm 1 (§3; formula (9), (10) for even n). Table 1 column 3.
    FanDai1,
    /// Algorithm 1 without the arrays DA and DB (the Notes after
    /// Algorithm 1: R\[i\] by RH's S4–S5).
    FanDai1NoTables,
    /// Algorithm 2 (§4; formula (12), (13) for even n). Table 1 column 4.
    FanDai2,
    /// Formula (14), type-I optimal normal bases only (§4). Table 2 row 1,
    /// Table 3's first row.
    Formula14,
}

/// The operation counts of one product, in the unit of Tables 1 and 2:
/// one n-bit AND, XOR or CSO is one operation on ⌈n/z⌉ words (Ning–Yin's
/// per-word operations summed over its ⌈n/z⌉ output words likewise).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct NbOpCounts {
    /// n-bit ANDs.
    pub ands: usize,
    /// n-bit XORs.
    pub xors: usize,
    /// n-bit cyclic shifts done at run time (outside the tables).
    pub cso: usize,
    /// The tables' CSOs as the paper counts them: 3z for the (n + v)-bit
    /// DA and DB, 4z for the 2n-bit ones, 2z for Ning–Yin's (z = [`Z`]).
    pub table_cso: usize,
    /// Hamming weights (formula (14); the paper: at most 4 additions).
    pub hamming_weights: usize,
    /// Entries of the n × n matrix M tested (Ning–Yin's `Alg2_of_NY`: n²
    /// word tests per output word, counted like its word operations: n²).
    pub matrix_tests: usize,
}

impl NbOpCounts {
    /// Run-time and table CSOs: the figure of Tables 1 and 2's CSO row.
    pub fn total_cso(&self) -> usize {
        self.cso + self.table_cso
    }

    /// §5's cost model in n-bit operations: one per AND and XOR, ρ per CSO
    /// (the paper: ρ = 4 in C), a Hamming weight as 4 additions (§5), one
    /// per matrix test.
    pub fn model_cost(&self, rho: usize) -> usize {
        self.ands
            + self.xors
            + rho * self.total_cso()
            + 4 * self.hamming_weights
            + self.matrix_tests
    }
}

/// How the paper states a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Printed as an exact formula.
    Exact,
    /// Printed as "< value".
    Below,
    /// Printed as an exact figure but a bound for the algorithm as stated:
    /// ours may be smaller by any amount and larger by at most `over`.
    UpTo {
        /// How far ours may exceed the printed value.
        over: usize,
    },
    /// Printed as an approximation ("about"): ours within `tolerance`.
    About {
        /// The largest difference.
        tolerance: usize,
    },
}

impl Relation {
    /// Whether `ours` agrees with `printed` in this sense.
    pub fn holds(self, ours: usize, printed: usize) -> bool {
        match self {
            Relation::Exact => ours == printed,
            Relation::Below => ours < printed,
            Relation::UpTo { over } => ours <= printed + over,
            Relation::About { tolerance } => ours.abs_diff(printed) <= tolerance,
        }
    }
}

/// One entry of Table 1 or 2: the printed formula, its value for a field
/// and z, and how it is stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Printed {
    /// The formula as printed.
    pub formula: &'static str,
    /// Its value.
    pub value: usize,
    /// Exact, a bound or an approximation.
    pub relation: Relation,
}

/// An algorithm's column of Table 1 (or row of Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrintedCounts {
    /// 1 or 2.
    pub table: u8,
    /// The XOR entry.
    pub xor: Printed,
    /// The AND entry.
    pub and: Printed,
    /// The CSO entry.
    pub cso: Printed,
}

impl NbMulAlgorithm {
    /// Every algorithm, the reference first.
    pub const ALL: [NbMulAlgorithm; 8] = [
        NbMulAlgorithm::P1363Bitwise,
        NbMulAlgorithm::NingYin,
        NbMulAlgorithm::RhOriginal,
        NbMulAlgorithm::RhImproved,
        NbMulAlgorithm::FanDai1,
        NbMulAlgorithm::FanDai1NoTables,
        NbMulAlgorithm::FanDai2,
        NbMulAlgorithm::Formula14,
    ];

    /// A short name.
    pub fn name(self) -> &'static str {
        match self {
            NbMulAlgorithm::P1363Bitwise => "p1363-bitwise",
            NbMulAlgorithm::NingYin => "ning-yin",
            NbMulAlgorithm::RhOriginal => "rh",
            NbMulAlgorithm::RhImproved => "rh-improved",
            NbMulAlgorithm::FanDai1 => "fan-dai-1",
            NbMulAlgorithm::FanDai1NoTables => "fan-dai-1-no-tables",
            NbMulAlgorithm::FanDai2 => "fan-dai-2",
            NbMulAlgorithm::Formula14 => "formula-14",
        }
    }

    /// Whether the algorithm applies to the table's basis (formula (14)
    /// only to type I; the others to every type).
    pub fn applies_to(self, table: &NbTable) -> bool {
        match self {
            NbMulAlgorithm::Formula14 => table.t == 1,
            _ => true,
        }
    }

    /// a·b in the normal basis of `table`, in constant time in a and b.
    ///
    /// None if the algorithm does not apply to the basis, or if a or b
    /// does not have `table.words()` words or has a bit at or above n set.
    pub fn mul(self, table: &NbTable, a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
        if !self.applies_to(table) {
            return None;
        }
        table.check(a)?;
        table.check(b)?;
        Some(match self {
            NbMulAlgorithm::P1363Bitwise => mul_p1363(table, a, b),
            NbMulAlgorithm::NingYin => mul_ning_yin(table, a, b),
            NbMulAlgorithm::RhOriginal => mul_rh(table, a, b),
            NbMulAlgorithm::RhImproved => mul_rh_improved(table, a, b),
            NbMulAlgorithm::FanDai1 => mul_fan_dai_1(table, a, b, true),
            NbMulAlgorithm::FanDai1NoTables => mul_fan_dai_1(table, a, b, false),
            NbMulAlgorithm::FanDai2 => mul_fan_dai_2(table, a, b),
            NbMulAlgorithm::Formula14 => mul_formula_14(table, a, b),
        })
    }

    /// Our operation counts of one product, as the functions below run
    /// (none for the bit-level reference and where the algorithm does not
    /// apply).
    pub fn counts(self, table: &NbTable) -> Option<NbOpCounts> {
        if !self.applies_to(table) || self == NbMulAlgorithm::P1363Bitwise {
            return None;
        }
        let n = table.m;
        let v = n / 2;
        let even = usize::from(n.is_multiple_of(2));
        let sum_h = table.s.total(); // Σ_(i=1)^v h_i = Σ_k e_k
        let nonempty = (0..n).filter(|&k| table.e(k) > 0).count();
        let ny_ones = table.ny_rows.total();
        // RH's R_i: 2 ANDs and one XOR each, one AND for R_v of even n.
        let r_ands = 2 * v - even;
        let r_xors = v - even;
        Some(match self {
            NbMulAlgorithm::P1363Bitwise => return None,
            NbMulAlgorithm::RhOriginal => NbOpCounts {
                ands: 1 + r_ands,
                xors: r_xors + sum_h,
                // S1, S4 (U_A of i = v of even n is not needed), S6.
                cso: 1 + r_ands + sum_h,
                ..NbOpCounts::default()
            },
            NbMulAlgorithm::RhImproved => NbOpCounts {
                ands: 1 + r_ands,
                xors: r_xors + sum_h,
                cso: 1 + sum_h,
                table_cso: 3 * Z,
                ..NbOpCounts::default()
            },
            NbMulAlgorithm::FanDai1 | NbMulAlgorithm::FanDai1NoTables => NbOpCounts {
                ands: 1 + r_ands,
                // S7: e_k − 1, S8: one per nonempty k.
                xors: r_xors + sum_h,
                cso: 1
                    + nonempty
                    + if self == NbMulAlgorithm::FanDai1NoTables {
                        r_ands
                    } else {
                        0
                    },
                table_cso: if self == NbMulAlgorithm::FanDai1 {
                    3 * Z
                } else {
                    0
                },
                ..NbOpCounts::default()
            },
            NbMulAlgorithm::FanDai2 => {
                let ua = table.alg2_ua.total();
                let ua_nonempty = (0..n).filter(|&k| !table.alg2_ua.row(k).is_empty()).count();
                NbOpCounts {
                    // S2, then S7's two ANDs (one where UA is empty, (13)).
                    ands: 1 + nonempty + ua_nonempty,
                    // S6 (e_w − 1 each for UB and UA), S7's two XORs.
                    xors: (sum_h - nonempty) + (ua - ua_nonempty) + nonempty + ua_nonempty,
                    cso: 0,
                    table_cso: 4 * Z,
                    ..NbOpCounts::default()
                }
            }
            NbMulAlgorithm::Formula14 => NbOpCounts {
                // S2-like first term, 2 per i < v, B & A_v.
                ands: 1 + 2 * (v - 1) + 1,
                // 2 per i < v, the all-ones vector times the parity.
                xors: 2 * (v - 1) + 1,
                cso: 0,
                table_cso: 4 * Z,
                hamming_weights: 1,
                ..NbOpCounts::default()
            },
            NbMulAlgorithm::NingYin => {
                // Per output word: n ANDs; row i's |M_i| − 1 XORs plus one
                // to accumulate (none for row 0's first); Alg2_of_NY XORs
                // every entry into a zeroed temporary.
                let dense = table.t >= 3;
                NbOpCounts {
                    ands: n,
                    xors: if dense { ny_ones + n - 1 } else { ny_ones - 1 },
                    cso: 0,
                    table_cso: 2 * Z,
                    hamming_weights: 0,
                    matrix_tests: if dense { n * n } else { 0 },
                }
            }
        })
    }

    /// The formulas of Table 1 (nonoptimal bases, n odd: RH, improved RH,
    /// Algorithms 1 and 2) and Table 2 (type-I ONB: formula (14), NY) for
    /// n, C_N and z; none for the algorithms the tables do not list.
    pub fn printed_counts(self, n: usize, c_n: usize, z: usize) -> Option<PrintedCounts> {
        let exact = Relation::Exact;
        let p = |formula, value, relation| Printed {
            formula,
            value,
            relation,
        };
        let rh_xor = p("(C_N + n − 2)/2", (c_n + n - 2) / 2, exact);
        Some(match self {
            NbMulAlgorithm::RhOriginal => PrintedCounts {
                table: 1,
                xor: rh_xor,
                and: p("n", n, exact),
                cso: p("(C_N + 2n − 1)/2", (c_n + 2 * n - 1) / 2, exact),
            },
            NbMulAlgorithm::RhImproved => PrintedCounts {
                table: 1,
                xor: rh_xor,
                and: p("n", n, exact),
                cso: p("(C_N + 1)/2 + 3z", c_n.div_ceil(2) + 3 * z, exact),
            },
            NbMulAlgorithm::FanDai1 => PrintedCounts {
                table: 1,
                xor: rh_xor,
                and: p("n", n, exact),
                // §5's text: "at most n + 3z"; Table 1 prints "<". Neither
                // counts S2's shift (see the module docs).
                cso: p("< n + 3z", n + 3 * z, Relation::UpTo { over: 1 }),
            },
            NbMulAlgorithm::FanDai2 => PrintedCounts {
                table: 1,
                // "about C_N": ours Σ 2e_w = C_N − 1.
                xor: p("C_N", c_n, Relation::About { tolerance: 1 }),
                // (12) has 2n + 1 (§4); S4 skips e_w = 0.
                and: p("2n", 2 * n, Relation::UpTo { over: 1 }),
                cso: p("4z", 4 * z, exact),
            },
            NbMulAlgorithm::Formula14 => PrintedCounts {
                table: 2,
                // "about n XOR … and 1 Hamming weight" (≤ 4 additions).
                xor: p("n + 4", n + 4, Relation::About { tolerance: 5 }),
                and: p("n", n, exact),
                cso: p("4z", 4 * z, exact),
            },
            NbMulAlgorithm::NingYin => PrintedCounts {
                table: 2,
                // "about 2n": ours C_N − 1 = 2n − 2 for type I.
                xor: p("2n", 2 * n, Relation::About { tolerance: 2 }),
                and: p("n", n, exact),
                cso: p("2z", 2 * z, exact),
            },
            NbMulAlgorithm::P1363Bitwise | NbMulAlgorithm::FanDai1NoTables => return None,
        })
    }
}

/// P1363-2000 A.3.8, literally: c_k from the rotated a, b for k = 0..n−1.
fn mul_p1363(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    let mut c = vec![0u64; table.words()];
    for k in 0..m {
        // Step 3: J (odd t only), Σ_{k=1}^{m/2} (a_{k−1} b_{m/2+k−1} + a_{m/2+k−1} b_{k−1}).
        let mut ck = 0u64;
        if table.j_shift.is_some() {
            let half = m / 2;
            for i in 0..half {
                ck ^= (bit(&a, i) & bit(&b, half + i)) ^ (bit(&a, half + i) & bit(&b, i));
            }
        }
        // Step 4: Σ_{k=1}^{p−2} a_{F(k+1)} b_{F(p−k)}.
        for &(i, j) in &table.pairs {
            ck ^= bit(&a, i as usize) & bit(&b, j as usize);
        }
        c[k / 64] |= ck << (k % 64);
        // a ← LeftShift(a), b ← LeftShift(b): a_i ← a_{i+1}.
        cso_left_one(&mut a, m);
        cso_left_one(&mut b, m);
    }
    c
}

/// S1 of RH and Algorithm 1: D := (A & B) >> 1 = (B & A)_1.
fn diagonal(n: usize, a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut ab = vec![0u64; a.len()];
    and_into(&mut ab, a, b);
    let mut d = vec![0u64; a.len()];
    cso_right_into(&ab, 1, n, &mut d);
    d
}

/// R_i = (A & U_B) ⊕ (B & U_A) (RH's S5), or A & U_B for i = v of even n
/// ((7)).
#[inline(always)]
fn r_i(r: &mut [u64], a: &[u64], b: &[u64], ua: &[u64], ub: &[u64], only_a: bool) {
    if only_a {
        and_into(r, a, ub);
    } else {
        for k in 0..r.len() {
            r[k] = (a[k] & ub[k]) ^ (b[k] & ua[k]);
        }
    }
}

/// The RH algorithm (§2, formula (5); for even n (6)–(7), as the listing's
/// `RH_alg` of the type-I program): S1 D := (A & B) >> 1; S2 U_A := A,
/// U_B := B; S3–S6 for i = 1..v: U_A, U_B one-place left CSO,
/// R := (A & U_B) ⊕ (B & U_A), D ⊕= R >> k for each k ∈ S_i.
fn mul_rh(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = table.m;
    let v = n / 2;
    let even = n.is_multiple_of(2);
    let mut d = diagonal(n, a, b);
    let (mut ua, mut ub) = (a.to_vec(), b.to_vec());
    let mut r = vec![0u64; a.len()];
    for i in 1..=v {
        let last_even = even && i == v;
        if !last_even {
            cso_left_one(&mut ua, n);
        }
        cso_left_one(&mut ub, n);
        r_i(&mut r, a, b, &ua, &ub, last_even);
        for &k in table.s.row(i - 1) {
            xor_cso_right(&mut d, &r, k as usize, n);
        }
    }
    d
}

/// The improved RH algorithm (§5: "the RH algorithm using precomputation
/// tables DA and DB"; the listing's `improved_RH_mul`): as [`mul_rh`] with
/// U_A = A_(n−i), U_B = B_(n−i) read from §2's (n + v)-bit tables, so the
/// only run-time CSOs are S1's and S6's: (C_N + 1)/2 + 3z (Table 1).
fn mul_rh_improved(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = table.m;
    let w = table.words();
    let v = n / 2;
    let even = n.is_multiple_of(2);
    let mut d = diagonal(n, a, b);
    let da = ShiftTable::new(a, n, n + v);
    let db = ShiftTable::new(b, n, n + v);
    let mut r = vec![0u64; w];
    for i in 1..=v {
        let at = ShiftTable::address(da.len, i);
        r_i(&mut r, a, b, da.at(at, w), db.at(at, w), even && i == v);
        for &k in table.s.row(i - 1) {
            xor_cso_right(&mut d, &r, k as usize, n);
        }
    }
    d
}

/// Algorithm 1 (§3, formula (9); (10) for even n), with the tables (S1)
/// or, `tables = false`, as the Notes after it describe: R\[i\] by RH's
/// S4–S5 (one-place CSOs). S2 D := A_1 & B_1 (as (A & B) >> 1: A_1 is not
/// in the (n + v)-bit table; the listing does the same); S3 the v vectors
/// R\[i\] (the n²/16-byte array of §5); S4–S8 for each k with e_k > 0,
/// C := ⊕_j R\[m\[k\]\[j\]\], D ⊕= C >> k (the listing XORs R\[m\[k\]\[0\]\]
/// directly when e_k = 1).
fn mul_fan_dai_1(table: &NbTable, a: &[u64], b: &[u64], tables: bool) -> Vec<u64> {
    let n = table.m;
    let w = table.words();
    let v = n / 2;
    let even = n.is_multiple_of(2);
    let mut d = diagonal(n, a, b);
    // S3: R[1..=v], row i − 1.
    let mut rr = vec![0u64; v * w];
    if tables {
        let da = ShiftTable::new(a, n, n + v);
        let db = ShiftTable::new(b, n, n + v);
        for (i1, r) in rr.chunks_exact_mut(w).enumerate() {
            let at = ShiftTable::address(da.len, i1 + 1);
            r_i(r, a, b, da.at(at, w), db.at(at, w), even && i1 + 1 == v);
        }
    } else {
        let (mut ua, mut ub) = (a.to_vec(), b.to_vec());
        for (i1, r) in rr.chunks_exact_mut(w).enumerate() {
            let last_even = even && i1 + 1 == v;
            if !last_even {
                cso_left_one(&mut ua, n);
            }
            cso_left_one(&mut ub, n);
            r_i(r, a, b, &ua, &ub, last_even);
        }
    }
    let row = |i: u32| &rr[(i as usize - 1) * w..i as usize * w];
    let mut c = vec![0u64; w];
    for k in 0..n {
        match table.by_k.row(k) {
            [] => {}
            [i] => xor_cso_right(&mut d, row(*i), k, n),
            [i0, rest @ ..] => {
                c.copy_from_slice(row(*i0));
                for &i in rest {
                    xor_into(&mut c, row(i));
                }
                xor_cso_right(&mut d, &c, k, n);
            }
        }
    }
    d
}

/// `out := ⊕ of the windows at the addresses` (S5 copy, then S6 XORs).
#[inline(always)]
fn sum_windows(out: &mut [u64], t: &ShiftTable, addresses: &[u32]) {
    let w = out.len();
    if let Some((&first, rest)) = addresses.split_first() {
        out.copy_from_slice(t.at(first as usize, w));
        for &at in rest {
            xor_into(out, t.at(at as usize, w));
        }
    }
}

/// S1 and S2 of Algorithm 2 and formula (14): §4's 2n-bit tables DA, DB
/// and D := A_1 & B_1 read from them.
fn tables_2n(n: usize, a: &[u64], b: &[u64]) -> (ShiftTable, ShiftTable, Vec<u64>) {
    let w = a.len();
    let da = ShiftTable::new(a, n, 2 * n);
    let db = ShiftTable::new(b, n, 2 * n);
    let at1 = ShiftTable::address(da.len, n - 1);
    let mut d = vec![0u64; w];
    and_into(&mut d, da.at(at1, w), db.at(at1, w));
    (da, db, d)
}

/// Algorithm 2 (§4, formula (12); (13) for even n): S1 the 2n-bit tables;
/// S2 D := A_1 & B_1 (from the tables); S3–S7 for each w with e_w > 0,
/// UA := ⊕_j A_(⟨w−m\[w\]\[j\]⟩), UB := ⊕_j B_(⟨w−m\[w\]\[j\]⟩),
/// D ⊕= (B_w & UA) ⊕ (A_w & UB). The window addresses are precomputed
/// (§4's Notes). For even n the i = v term enters UB only.
fn mul_fan_dai_2(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = table.m;
    let w = table.words();
    let (da, db, mut d) = tables_2n(n, a, b);
    let len = da.len;
    let (mut ua, mut ub) = (vec![0u64; w], vec![0u64; w]);
    for k in 0..n {
        let rb = table.alg2_ub.row(k);
        if rb.is_empty() {
            continue;
        }
        let aw = ShiftTable::address(len, (n - k) % n);
        let ra = table.alg2_ua.row(k);
        sum_windows(&mut ub, &db, rb);
        if !ra.is_empty() {
            sum_windows(&mut ua, &da, ra);
            xor_and_into(&mut d, db.at(aw, w), &ua);
        }
        xor_and_into(&mut d, da.at(aw, w), &ub);
    }
    if let Some(last) = d.last_mut() {
        *last &= top_mask(n);
    }
    d
}

/// Formula (14) for type-I optimal normal bases (§4; the listing's
/// `Our_Alg_2` of the type-I program): with S_i = {w_(i,1)} for i < v and
/// β_0 β_v = 1,
/// D = (B_1 & A_1) + Σ_(i=1)^(v−1) (B_(w_(i,1)) & A_(⟨w_(i,1)−i⟩)) +
/// (A_(w_(i,1)) & B_(⟨w_(i,1)−i⟩)) + HammingWeight(B & A_v)·1, the
/// operands read from the 2n-bit tables.
fn mul_formula_14(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = table.m;
    let w = table.words();
    let v = n / 2;
    let (da, db, mut d) = tables_2n(n, a, b);
    let len = da.len;
    for i in 1..v {
        // Type I: h_i = 1 for i < v (checked by the tests).
        let Some(&wi) = table.s.row(i - 1).first() else {
            continue;
        };
        let wi = wi as usize;
        let aw = ShiftTable::address(len, (n - wi) % n);
        let ai = ShiftTable::address(len, (i + n - wi) % n);
        let (a_w, b_w, a_i, b_i) = (da.at(aw, w), db.at(aw, w), da.at(ai, w), db.at(ai, w));
        for (k, dk) in d.iter_mut().enumerate() {
            *dk ^= (b_w[k] & a_i[k]) ^ (a_w[k] & b_i[k]);
        }
    }
    // B & A_v: A_v = A_(n−v), the window at v.
    let mut r = vec![0u64; w];
    and_into(&mut r, b, da.at(ShiftTable::address(len, v), w));
    add_ones(&mut d, parity(&r), n);
    d
}

/// Ning–Yin (§5 and the listing): A\[k\] = (a_k, …, a_(k+z−1)) (indices
/// mod n) for k < 3n + z, from z one-place CSOs of A (the listing's loop
/// `A[i + 32j] = ua[j]`, `In_ror_once(ua)`, then `A[N+j] = A[j]`); output
/// word k is Σ_i A\[i + zk\] & (⊕_(j: M_ij = 1) B\[j + zk\]). For t ≤ 2
/// the rows of M are read as index lists (`Alg3_of_NY_for_ONB2`,
/// `alg4_of_NY_for_ONB1`: at most two entries a row); for t ≥ 3 the whole
/// row of the dense matrix is scanned (`Alg2_of_NY`).
fn mul_ning_yin(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let n = table.m;
    let w = table.words();
    let size = 3 * n + Z;
    let words = |x: &[u64]| -> Vec<u64> {
        let mut out = vec![0u64; size];
        let mut u = x.to_vec();
        let tail = n % 64;
        for i in 0..Z {
            for j in 0..w {
                // Word j of A << i, the last one completed cyclically.
                let word = if j == w - 1 && tail != 0 {
                    u[j] | (u[0] << tail)
                } else {
                    u[j]
                };
                if i + Z * j < size {
                    out[i + Z * j] = word;
                }
            }
            cso_left_one(&mut u, n);
        }
        // A[k] = A[k − n] past n.
        for k in n..size {
            out[k] = out[k - n];
        }
        out
    };
    let (aw, bw) = (words(a), words(b));
    let mut c = vec![0u64; w];
    for (k, ck) in c.iter_mut().enumerate() {
        let (pa, pb) = (&aw[Z * k..], &bw[Z * k..]);
        let mut acc = 0u64;
        if table.t >= 3 {
            for (i, row) in table.ny_dense.chunks_exact(n).enumerate() {
                let mut temp = 0u64;
                for (j, &e) in row.iter().enumerate() {
                    if e == 1 {
                        temp ^= pb[j];
                    }
                }
                acc ^= pa[i] & temp;
            }
        } else {
            for (i, &ai) in pa[..n].iter().enumerate() {
                let temp = table
                    .ny_rows
                    .row(i)
                    .iter()
                    .fold(0u64, |t, &j| t ^ pb[j as usize]);
                acc ^= ai & temp;
            }
        }
        *ck = acc;
    }
    if let Some(last) = c.last_mut() {
        *last &= top_mask(n);
    }
    c
}

#[cfg(test)]
mod tests {
    use super::super::convert::SplitMix;
    use super::*;

    fn element(rng: &mut SplitMix, table: &NbTable) -> Vec<u64> {
        let mut v: Vec<u64> = (0..table.words()).map(|_| rng.next()).collect();
        if let Some(last) = v.last_mut() {
            *last &= top_mask(table.m());
        }
        v
    }

    #[test]
    fn existence() {
        assert!(NbTable::new(163, 4).is_some());
        assert!(NbTable::new(233, 2).is_some());
        assert!(NbTable::new(162, 1).is_some());
        // p = 4·162 + 1 = 649 = 11·59: not prime.
        assert!(NbTable::new(162, 4).is_none());
        assert!(NbTable::new(3, 2).is_some());
        assert!(NbTable::new(4, 1).is_some());
        assert!(NbTable::new(6, 1).is_none());
        assert!(NbTable::new(1, 1).is_none());
        assert!(NbTable::new(163, 0).is_none());
    }

    #[test]
    fn one_place_shifts() {
        for n in [2usize, 5, 63, 64, 65, 130, 163] {
            let mut rng = SplitMix(n as u64);
            let w = words_for(n);
            let mut a: Vec<u64> = (0..w).map(|_| rng.next()).collect();
            a[w - 1] &= top_mask(n);
            let mut x = a.clone();
            cso_left_one(&mut x, n);
            let mut y = vec![0u64; w];
            cso_right_into(&a, n - 1, n, &mut y);
            assert_eq!(x, y, "n = {n}");
            for i in 0..n {
                assert_eq!(bit(&x, i), bit(&a, (i + 1) % n));
            }
        }
    }

    #[test]
    fn cyclic_shifts_bit_by_bit() {
        for n in [2usize, 5, 63, 65, 127, 129, 163, 200] {
            let mut rng = SplitMix(n as u64 + 7);
            let w = words_for(n);
            let mut a: Vec<u64> = (0..w).map(|_| rng.next()).collect();
            a[w - 1] &= top_mask(n);
            let mut d: Vec<u64> = (0..w).map(|_| rng.next()).collect();
            d[w - 1] &= top_mask(n);
            for k in 0..n {
                let mut x = vec![0u64; w];
                cso_right_into(&a, k, n, &mut x);
                let mut y = d.clone();
                xor_cso_right(&mut y, &a, k, n);
                for i in 0..n {
                    assert_eq!(bit(&x, i), bit(&a, (i + n - k) % n), "n = {n}, k = {k}");
                    assert_eq!(bit(&y, i), bit(&d, i) ^ bit(&x, i), "n = {n}, k = {k}");
                }
                assert_eq!(x[w - 1] & !top_mask(n), 0);
                assert_eq!(y[w - 1] & !top_mask(n), 0);
            }
        }
    }

    #[test]
    fn small_fields_every_algorithm_agrees() {
        let mut rng = SplitMix(1);
        // Every type up to 6 of small degrees, both parities, around a word.
        let degrees = [2usize, 3, 4, 5, 7, 9, 10, 63, 65, 66, 100, 131];
        for (m, t) in degrees.iter().flat_map(|&m| (1..=6).map(move |t| (m, t))) {
            let Some(table) = NbTable::new(m, t) else {
                continue;
            };
            for _ in 0..8 {
                let a = element(&mut rng, &table);
                let b = element(&mut rng, &table);
                let want = NbMulAlgorithm::P1363Bitwise.mul(&table, &a, &b).unwrap();
                for alg in NbMulAlgorithm::ALL {
                    if let Some(got) = alg.mul(&table, &a, &b) {
                        assert_eq!(got, want, "{} m = {m} t = {t}", alg.name());
                    }
                }
            }
        }
    }

    #[test]
    fn bad_input_is_none() {
        let table = NbTable::new(163, 4).unwrap();
        let a = vec![0u64; 3];
        let bad = vec![0, 0, 1 << 40];
        for alg in NbMulAlgorithm::ALL {
            assert!(alg.mul(&table, &a, &[0, 0]).is_none());
            assert!(alg.mul(&table, &bad, &a).is_none());
        }
        assert!(NbMulAlgorithm::Formula14.mul(&table, &a, &a).is_none());
    }
}
