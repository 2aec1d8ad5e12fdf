//! Every normal-basis multiplication algorithm of the sources, word-level
//! and constant time: the baselines that `gf2m::normal`'s default
//! multiplier is measured against (feature `reproduce`; not for
//! production use).
//!
//! # The field and the layout
//!
//! A type-t Gaussian normal basis (GNB) of GF(2^m) exists when p = t·m + 1
//! is prime and gcd(t·m / ord_p(2), m) = 1. Let K be the subgroup of order
//! t of Z_p^*, γ a primitive p-th root of unity in GF(2^(t·m)) and
//! β = Σ_{u∈K} γ^u (a Gauss period); {β, β², β⁴, …, β^(2^(m−1))} is a normal
//! basis of GF(2^m) (IEEE P1363-2000, Annex A.3.6; ANSI X9.62).
//!
//! An element a = Σ a_i β^(2^i) is `ceil(m/64)` `u64` words, a_i at bit
//! `i % 64` of word `i / 64`, bits ≥ m zero. Squaring moves a_i to position
//! i + 1 (mod m); 1 is the all-ones vector.
//!
//! # The multiplication structure (P1363 A.3.7)
//!
//! The cosets 2^i·K, i < m, partition Z_p^*; F(x) = i for x ∈ 2^i·K. Then
//! β^(2^i) = Σ_{F(x)=i} γ^x, so a = Σ_{x≠0} a_{F(x)} γ^x and
//! a·b = Σ_{x,y≠0} a_{F(x)} b_{F(y)} γ^(x+y). The terms with x + y = 0 give
//! J·1 with J = Σ_k a_k b_{k+h}, h = F(−1) = m/2, when t is odd, and
//! nothing when t is even (−1 ∈ K, each term appears t times). Reading
//! off the coefficient of β (A.3.8):
//!
//! ```text
//! c_0 = J + Σ_{k=1}^{p−2} a_{F(k+1)} b_{F(p−k)}
//! ```
//!
//! and c_l is the same with every index shifted by l (c_l of a·b is c_0 of
//! a^(2^−l)·b^(2^−l)). Write P for the multiset of the p − 2 index pairs
//! (F(k+1), F(p−k)), and rot(A, s) for the vector whose position i holds
//! a_{i+s} (a rotation by a public amount). Then, word-parallel,
//!
//! ```text
//! C = Σ_{(i,j)∈P} rot(A, i) ∘ rot(B, j)  +  J·1           (∘ = AND)
//! ```
//!
//! Every algorithm below evaluates this sum (pairs that occur twice cancel)
//! in a different order. The "T-matrix" of Reyhani-Masoleh and Hasan is
//! τ_{s,j} = the coefficient of β^(2^j) in β·β^(2^s), read off from P.
//!
//! # The algorithms ([`NbMulAlgorithm`])
//!
//! | variant | source | work per product (vectors of `ceil(m/64)` words; exact figures from [`NbMulAlgorithm::counts`]) |
//! |---|---|---|
//! | `P1363Bitwise` | P1363-2000 A.3.8 | m·(p − 2) bit ANDs, 2m rotations by one place |
//! | `NingYin` | Ning & Yin, ICICS 2001 (US 6,389,442) | 4m single-word extractions; per output word m ANDs, ≈ p XORs |
//! | `RhOriginal` | Reyhani-Masoleh & Hasan, IEEE TC 52(11), 2003 | ⌊m/2⌋ pairs of operand rotations, 2 ANDs each; one rotation + XOR per one of τ (≈ (C_N − 1)/2) |
//! | `RhImproved` | same paper, with the rotation tables DA, DB | 2m table rows; 2 ANDs + 2 XORs per one of τ, no rotation at run time |
//! | `FanDai1` | Fan & Dai, ePrint 2004/126, Algorithm 1 | as `RhOriginal` for the operands; one XOR per one of τ, then ≤ m result rotations |
//! | `FanDai2` | Fan & Dai, Algorithm 2, formula (12) | 2m table rows; one AND per unordered pair of P (the symmetry x ↔ 1 − x), ≈ p/2 + m/2 ANDs |
//! | `TypeIFormula14` | Fan & Dai, formula (14) (t = 1 only) | permute into the γ-power basis, m masked cyclic shifts of a p-bit vector, permute back |
//!
//! All of them compute the same product; the tests check each against
//! the bit-level P1363 algorithm, and the FIPS 186-2 B-163 (type 4) and
//! B-233 (type 2) base points against their curve equations.
//!
//! **How closely each follows its source.** `P1363Bitwise` is A.3.8 step
//! by step. `NingYin` follows the rotated-word representation of the
//! patent's abstract (A\[i\] = (a_i … a_{i+w−1}), output C\[0\], C\[w\], …).
//! `RhOriginal` evaluates Reyhani-Masoleh–Hasan's expansion
//! C = Σ a_i b_i β_{i+1} + Σ_s Σ_i (a_i b_{i+s} + a_{i+s} b_i) δ_s^(2^i).
//! Only the abstracts and introductions of the papers could be read when
//! this was written, so the order of evaluation of `RhImproved`,
//! `FanDai1`, `FanDai2` and `TypeIFormula14` is our reconstruction from
//! those descriptions (high-complexity vs low-complexity bases, the
//! symmetric property, type I); each variant's documentation says what it
//! does. Check them against the papers before quoting a paper's table.
//!
//! # Constant time
//!
//! Table indices depend only on (m, t), which are public; element bits
//! only ever pass through AND, XOR, shifts by public amounts and masks
//! made from a bit (`0 − bit`). No branch and no memory index depends on
//! an element.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the papers' normal-basis multipliers over vectors of the basis' size, not a production path.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]
#![cfg(feature = "alloc")]

use alloc::vec;
use alloc::vec::Vec;

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

/// The 64 bits of `e` from bit `start` (bits past the end read as 0).
#[inline(always)]
fn funnel(e: &[u64], start: usize) -> u64 {
    let q = start / 64;
    let r = start % 64;
    let lo = e.get(q).copied().unwrap_or(0);
    if r == 0 {
        lo
    } else {
        let hi = e.get(q + 1).copied().unwrap_or(0);
        (lo >> r) | (hi << (64 - r))
    }
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

/// The first `nbits` bits of the periodic sequence a_0 … a_{m−1} a_0 …,
/// plus one zero word of slack for [`funnel`].
fn periodic(a: &[u64], m: usize, nbits: usize) -> Vec<u64> {
    let mut e = vec![0u64; words_for(nbits) + 1];
    let mut at = 0;
    while at < nbits {
        xor_shifted(&mut e, a, at);
        at += m;
    }
    e
}

/// `k mod m` for k < 2m (a public index).
#[inline(always)]
fn wrap(k: usize, m: usize) -> usize {
    if k >= m { k - m } else { k }
}

/// `out = rot(X, s)` for s < m: position i holds x_{(i+s) mod m}, i.e.
/// (X >> s) | (X << (m − s)) cut to m bits. No allocation.
#[inline(always)]
fn rot_into(x: &[u64], s: usize, m: usize, out: &mut [u64]) {
    let k = m - s;
    let (q, r) = (k / 64, k % 64);
    for (w, o) in out.iter_mut().enumerate() {
        let right = funnel(x, 64 * w + s);
        let left = if w < q {
            0
        } else if r == 0 {
            x[w - q]
        } else {
            let lo = if w > q { x[w - q - 1] >> (64 - r) } else { 0 };
            (x[w - q] << r) | lo
        };
        *o = right | left;
    }
    if let Some(last) = out.last_mut() {
        *last &= top_mask(m);
    }
}

/// rot(A, s): position i holds a_{(i+s) mod m} (a^(2^−s)).
fn rot(a: &[u64], s: usize, m: usize) -> Vec<u64> {
    let mut out = vec![0u64; words_for(m)];
    rot_into(a, s % m, m, &mut out);
    out
}

/// The m rotations rot(A, k), k < m, as one flat table (row k at
/// `k·words`).
fn rotation_table(a: &[u64], m: usize) -> Vec<u64> {
    let w = words_for(m);
    // Every row is a window of the periodic extension a_0 … a_{m−1} a_0 ….
    let e = periodic(a, m, 2 * m);
    let mut t = vec![0u64; m * w];
    for (k, row) in t.chunks_exact_mut(w).enumerate() {
        for (i, o) in row.iter_mut().enumerate() {
            *o = funnel(&e, k + 64 * i);
        }
        if let Some(last) = row.last_mut() {
            *last &= top_mask(m);
        }
    }
    t
}

/// J = Σ_k a_k b_{k+h}, as a bit (the x + y = 0 terms for odd t).
fn inner_j(a: &[u64], b: &[u64], h: usize, m: usize) -> u64 {
    let bh = rot(b, h, m);
    let folded = a.iter().zip(&bh).fold(0u64, |acc, (x, y)| acc ^ (x & y));
    u64::from(folded.count_ones() & 1)
}

/// XOR of the all-ones vector masked by `j`.
fn add_j_ones(c: &mut [u64], j: u64, m: usize) {
    let mk = mask(j);
    for w in c.iter_mut() {
        *w ^= mk;
    }
    if let Some(last) = c.last_mut() {
        *last &= top_mask(m);
    }
}

fn xor_into(acc: &mut [u64], v: &[u64]) {
    for (x, y) in acc.iter_mut().zip(v) {
        *x ^= y;
    }
}

fn xor_and_into(acc: &mut [u64], x: &[u64], y: &[u64]) {
    for ((o, a), b) in acc.iter_mut().zip(x).zip(y) {
        *o ^= a & b;
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
/// GF(2^m) and every table the algorithms of [`NbMulAlgorithm`] use.
///
/// Built once from (m, t) (public); holds no element. Memory is
/// O(p + m²/64) words (the T-matrix is kept as bit rows while building, as
/// index lists afterwards).
#[derive(Clone, Debug)]
pub struct NbTable {
    m: usize,
    t: usize,
    p: usize,
    /// F(x) for x = 1..p−1 (P1363 A.3.7); `f[0]` unused.
    f: Vec<u32>,
    /// h = F(p − 1) when t is odd (J is then Σ a_k b_{k+h}); none for even t.
    j_shift: Option<usize>,
    /// P in P1363's order: (F(k+1), F(p−k)), k = 1..p−2.
    pairs: Vec<(u32, u32)>,
    /// Ning–Yin: for each i, the j with (i, j) in P an odd number of times.
    by_first: Rows,
    /// Reyhani-Masoleh–Hasan: for s = 1..⌊m/2⌋ (row s − 1), the j with
    /// τ_{s,j} = 1.
    tau: Rows,
    /// Fan–Dai Algorithm 1: for each j, the s ∈ 1..⌊m/2⌋ with τ_{s,j} = 1.
    tau_by_j: Rows,
    /// Fan–Dai Algorithm 2: the unordered pairs i < j with (i, j) in P an
    /// odd number of times.
    sym_pairs: Vec<(u32, u32)>,
    /// Fan–Dai Algorithm 2: the i whose diagonal product rot(A,i)∘rot(B,i)
    /// is needed (odd pair degree plus diagonal weight).
    sym_diag: Vec<u32>,
    /// Type I: 2^i mod p for i < m (the γ-power of each basis element).
    pow2: Vec<u32>,
}

/// The largest m accepted by [`NbTable::new`].
pub const MAX_M: usize = 4096;
/// The largest p = t·m + 1 accepted by [`NbTable::new`].
pub const MAX_P: usize = 1 << 20;

impl NbTable {
    /// The tables of the type-t Gaussian normal basis of GF(2^m), or none
    /// if there is none: p = t·m + 1 must be prime and
    /// gcd(t·m / ord_p(2), m) = 1 (P1363-2000 A.3.6). Also none for m < 2,
    /// t = 0, m > [`MAX_M`] or p > [`MAX_P`].
    ///
    /// Cost: O(p + m²/64) operations (P1363 A.3.7's F, the pair list, the
    /// T-matrix and the per-algorithm index lists).
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
        let mut two_i = 1usize;
        let pow2: Vec<u32> = (0..m)
            .map(|_| {
                let x = two_i as u32;
                two_i = two_i * 2 % p;
                x
            })
            .collect();
        let j_shift = (t % 2 == 1).then(|| f[p - 1] as usize);
        let pairs: Vec<(u32, u32)> = (1..p - 1).map(|k| (f[k + 1], f[p - k])).collect();

        // The pair multiset mod 2 as a bit matrix W (W_ij = #(i, j) mod 2).
        let w = words_for(m);
        let mut weight = vec![0u64; m * w];
        for &(i, j) in &pairs {
            weight[i as usize * w + j as usize / 64] ^= 1 << (j % 64);
        }
        let row_bits = |mat: &[u64], r: usize| -> Vec<u32> {
            (0..m)
                .filter(|&c| (mat[r * w + c / 64] >> (c % 64)) & 1 == 1)
                .map(|c| c as u32)
                .collect()
        };
        let by_first = Rows::from_lists((0..m).map(|i| row_bits(&weight, i)).collect());

        // The T-matrix: τ_{s,l} = #{(i,j) ∈ P : i ≡ −l, j ≡ s − l} + [s = h]
        // (the coefficient of β^(2^l) in β·β^(2^s), from the formula above
        // with a = e_0, b = e_s).
        let mut tau_bits = vec![0u64; m * w];
        for &(i, j) in &pairs {
            let l = (m - i as usize) % m;
            let s = (j as usize + l) % m;
            tau_bits[s * w + l / 64] ^= 1 << (l % 64);
        }
        if let Some(h) = j_shift {
            for l in 0..m {
                tau_bits[h * w + l / 64] ^= 1 << (l % 64);
            }
        }
        // β·β = β²: the first row must be e_1.
        let row0 = row_bits(&tau_bits, 0);
        if row0 != [1] {
            return None;
        }
        let v = m / 2;
        let tau = Rows::from_lists((1..=v).map(|s| row_bits(&tau_bits, s)).collect());
        let mut by_j = vec![Vec::new(); m];
        for s in 1..=v {
            for l in row_bits(&tau_bits, s) {
                by_j[l as usize].push(s as u32);
            }
        }
        let tau_by_j = Rows::from_lists(by_j);

        // Symmetric pairs (x ↔ 1 − x makes W symmetric).
        let mut sym_pairs = Vec::new();
        let mut sym_diag = Vec::new();
        for i in 0..m {
            let row = by_first.row(i);
            let mut degree = 0usize;
            let mut diag = false;
            for &j in row {
                let j = j as usize;
                if j == i {
                    diag = true;
                } else {
                    degree += 1;
                    // Symmetry check: W_ji must equal W_ij.
                    if (weight[j * w + i / 64] >> (i % 64)) & 1 != 1 {
                        return None;
                    }
                    if i < j {
                        sym_pairs.push((i as u32, j as u32));
                    }
                }
            }
            if (degree % 2 == 1) != diag {
                sym_diag.push(i as u32);
            }
        }

        Some(NbTable {
            m,
            t,
            p,
            f,
            j_shift,
            pairs,
            by_first,
            tau,
            tau_by_j,
            sym_pairs,
            sym_diag,
            pow2,
        })
    }

    /// The degree m.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The type t.
    pub fn t(&self) -> usize {
        self.t
    }

    /// The prime p = t·m + 1.
    pub fn p(&self) -> usize {
        self.p
    }

    /// Words per element, `ceil(m/64)`.
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

    /// The complexity C_N of the basis: the number of ones of the
    /// multiplication matrix, Σ_s weight(τ_s) over all s < m (at most
    /// t·m − 1; 2m − 1 for an optimal normal basis).
    pub fn complexity(&self) -> usize {
        // τ_0 = e_1; rows s and m − s have equal weight (β·β^(2^s) and
        // β^(2^s)·β are conjugate), the row m/2 of even m counts once.
        let m = self.m;
        let mut c = 1;
        for s in 1..=m / 2 {
            let wgt = self.tau.row(s - 1).len();
            c += if 2 * s == m { wgt } else { 2 * wgt };
        }
        c
    }

    /// The element 1 (all m coefficients 1).
    pub fn one(&self) -> Vec<u64> {
        let mut v = vec![u64::MAX; self.words()];
        if let Some(last) = v.last_mut() {
            *last &= top_mask(self.m);
        }
        v
    }

    /// a² (the rotation a_i → position i + 1); none for a malformed a.
    pub fn square(&self, a: &[u64]) -> Option<Vec<u64>> {
        self.check(a)?;
        Some(rot(a, self.m - 1, self.m))
    }

    /// Some(()) if `a` has `words()` words and no bit at or above m.
    fn check(&self, a: &[u64]) -> Option<()> {
        if a.len() != self.words() {
            return None;
        }
        let last = a.last()?;
        (*last & !top_mask(self.m) == 0).then_some(())
    }
}

/// The normal-basis multiplication algorithms of the sources. Each
/// computes the same product (see the module documentation); they differ
/// in the order of evaluation and hence in cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NbMulAlgorithm {
    /// IEEE P1363-2000 A.3.8, bit by bit: for k = 0..m−1,
    /// c_k = J + Σ_{k'=1}^{p−2} a_{F(k'+1)} b_{F(p−k')}, then a and b rotate
    /// one place (a_i ← a_{i+1}). m·(p − 2) bit ANDs and XORs, 2m
    /// rotations by one place. The reference of the tests.
    P1363Bitwise,
    /// Ning & Yin, "Efficient software implementation for finite field
    /// multiplication in normal basis" (ICICS 2001; US patent 6,389,442):
    /// precompute the single words A\[k\] = (a_k … a_{k+63}) and B\[k\],
    /// (indices mod m; kept for k < 2m so that no index needs a division);
    /// output word w is
    /// C\[64w\] = Σ_i A\[i+64w\] ∘ (⊕_{(i,j)∈P} B\[j+64w\]) (P grouped by its
    /// first index, pairs taken mod 2) + J. 4m word extractions, then per
    /// output word m ANDs and ≈ p − 2 XORs.
    NingYin,
    /// Reyhani-Masoleh & Hasan, "Fast normal basis multiplication using
    /// general purpose processors" (IEEE TC 52(11), 2003), the word-level
    /// algorithm: C = (A∘B)² + Σ_{s=1}^{⌊m/2⌋} Σ_{τ_{s,j}=1} X_s^(2^j) with
    /// X_s = A∘rot(B,s) + B∘rot(A,s) (for even m and s = m/2,
    /// X = A∘rot(B,m/2), which counts each pair once). 2⌊m/2⌋ operand
    /// rotations, ≈ m ANDs, and one result rotation and XOR per one of τ
    /// (≈ (C_N − 1)/2 in all).
    RhOriginal,
    /// Reyhani-Masoleh & Hasan's algorithm with the rotation tables
    /// DA\[k\] = rot(A,k), DB\[k\] = rot(B,k), k < m (our reading of their
    /// improved form): X_s^(2^j) = DA\[−j\]∘DB\[s−j\] + DB\[−j\]∘DA\[s−j\], so no
    /// rotation is done after the tables. 2m table rows, then 2 ANDs and 2
    /// XORs per one of τ.
    RhImproved,
    /// Fan & Dai, "Two software normal basis multiplication algorithms for
    /// GF(2^n)" (ePrint 2004/126), Algorithm 1 (our reconstruction: the
    /// RH sum with its two sums exchanged, the index sets
    /// S_j = {s : τ_{s,j} = 1}): C = (A∘B)² + Σ_j (⊕_{s∈S_j} X_s)^(2^j).
    /// The X_s once each (2⌊m/2⌋ rotations, ≈ m ANDs), one XOR per one of
    /// τ, then at most m result rotations: suited to high-complexity bases.
    FanDai1,
    /// Fan & Dai, Algorithm 2 with formula (12) (our reconstruction): P is
    /// symmetric (x ↔ 1 − x swaps its pairs), and
    /// a_i b_j + a_j b_i = (a_i + a_j)(b_i + b_j) + a_i b_i + a_j b_j, so
    /// C = Σ_{i<j} (DA\[i\]+DA\[j\])∘(DB\[i\]+DB\[j\]) + Σ_{i∈D} DA\[i\]∘DB\[i\] + J
    /// over the unordered pairs of P (mod 2) and the indices D whose
    /// diagonal product survives. 2m table rows, ≈ (p − 2)/2 + |D| ANDs:
    /// suited to low-complexity bases.
    FanDai2,
    /// Fan & Dai's formula (14) for type-I optimal normal bases (t = 1; our
    /// reading): there γ^(2^i), i < m, are γ^1 … γ^(p−1) in another order,
    /// so a product is a cyclic convolution of p-bit vectors:
    /// A'\[x\] = a_{F(x)}, D = Σ_x A'\[x\]·(B' shifted cyclically by x), and
    /// c_i = D\[2^i mod p\] + D\[0\] (γ^0 = 1 = Σ_i β^(2^i)). 2m bit moves, m
    /// masked cyclic shifts of ceil(p/64) words. None for t ≠ 1.
    TypeIFormula14,
}

/// The operation counts of one product with one algorithm on one table,
/// from [`NbMulAlgorithm::counts`] (the figures of the papers' cost
/// tables, for this implementation).
///
/// The unit depends on the algorithm: for `RhOriginal`, `RhImproved`,
/// `FanDai1` and `FanDai2` an operation is on a whole vector of
/// `ceil(m/64)` words and a rotation is a rotation of one vector by a
/// public amount (table rows included); for `NingYin` ANDs and XORs are on
/// single words and a rotation is the extraction of one word A\[k\]; for
/// `P1363Bitwise` ANDs and XORs are on single bits; for `TypeIFormula14`
/// an AND is a masked `ceil(p/64)`-word vector and a rotation a cyclic
/// shift by one place of such a vector (the two permutations, 2m single
/// bit moves each, are not counted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NbOpCounts {
    /// ANDs of vectors (or words, or bits: see above).
    pub ands: usize,
    /// XORs of vectors.
    pub xors: usize,
    /// Rotations by a public amount done per product (table rows included).
    pub rotations: usize,
}

impl NbMulAlgorithm {
    /// Every algorithm, the reference first.
    pub const ALL: [NbMulAlgorithm; 7] = [
        NbMulAlgorithm::P1363Bitwise,
        NbMulAlgorithm::NingYin,
        NbMulAlgorithm::RhOriginal,
        NbMulAlgorithm::RhImproved,
        NbMulAlgorithm::FanDai1,
        NbMulAlgorithm::FanDai2,
        NbMulAlgorithm::TypeIFormula14,
    ];

    /// A short name (`p1363-bitwise`, `ning-yin`, `rh`, `rh-improved`,
    /// `fan-dai-1`, `fan-dai-2`, `type1-formula14`).
    pub fn name(self) -> &'static str {
        match self {
            NbMulAlgorithm::P1363Bitwise => "p1363-bitwise",
            NbMulAlgorithm::NingYin => "ning-yin",
            NbMulAlgorithm::RhOriginal => "rh",
            NbMulAlgorithm::RhImproved => "rh-improved",
            NbMulAlgorithm::FanDai1 => "fan-dai-1",
            NbMulAlgorithm::FanDai2 => "fan-dai-2",
            NbMulAlgorithm::TypeIFormula14 => "type1-formula14",
        }
    }

    /// Whether the algorithm applies to the table's basis (all but
    /// [`NbMulAlgorithm::TypeIFormula14`] apply to every type).
    pub fn applies_to(self, table: &NbTable) -> bool {
        match self {
            NbMulAlgorithm::TypeIFormula14 => table.t == 1,
            _ => true,
        }
    }

    /// a·b in the normal basis of `table`, in constant time in a and b.
    ///
    /// None if the algorithm does not apply to the basis
    /// ([`NbMulAlgorithm::applies_to`]), or if a or b does not have
    /// `table.words()` words or has a bit at or above m set. Never panics.
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
            NbMulAlgorithm::FanDai1 => mul_fan_dai_1(table, a, b),
            NbMulAlgorithm::FanDai2 => mul_fan_dai_2(table, a, b),
            NbMulAlgorithm::TypeIFormula14 => mul_type1(table, a, b),
        })
    }

    /// The operation counts of one product on `table` (none where the
    /// algorithm does not apply).
    pub fn counts(self, table: &NbTable) -> Option<NbOpCounts> {
        if !self.applies_to(table) {
            return None;
        }
        let m = table.m;
        let w = table.words();
        let v = m / 2;
        let tau_ones = table.tau.total();
        // Even m: the row s = m/2 uses A∘rot(B, m/2) alone.
        let even = usize::from(m.is_multiple_of(2));
        let half_row = if even == 1 {
            table.tau.row(v - 1).len()
        } else {
            0
        };
        // The J term of odd t: one rotation of B, one AND, one XOR of 1.
        let j = usize::from(table.j_shift.is_some());
        let x_ands = 1 + 2 * v - even;
        let x_rotations = 1 + 2 * v - even;
        let nonempty_j = (0..m)
            .filter(|&l| !table.tau_by_j.row(l).is_empty())
            .count();
        Some(match self {
            NbMulAlgorithm::P1363Bitwise => NbOpCounts {
                ands: m * (table.p - 2 + j * m),
                xors: m * (table.p - 2 + j * m),
                rotations: 2 * m,
            },
            NbMulAlgorithm::NingYin => NbOpCounts {
                ands: w * m + j,
                xors: w * (table.by_first.total() + m) + j,
                rotations: 4 * m + j,
            },
            NbMulAlgorithm::RhOriginal => NbOpCounts {
                ands: x_ands,
                xors: v - even + tau_ones,
                rotations: x_rotations + tau_ones,
            },
            NbMulAlgorithm::RhImproved => NbOpCounts {
                ands: 1 + 2 * tau_ones - half_row,
                xors: 2 * tau_ones - half_row,
                rotations: 2 * m,
            },
            NbMulAlgorithm::FanDai1 => NbOpCounts {
                ands: x_ands,
                xors: v - even + tau_ones + nonempty_j,
                rotations: x_rotations + nonempty_j,
            },
            NbMulAlgorithm::FanDai2 => NbOpCounts {
                ands: table.sym_pairs.len() + table.sym_diag.len() + j,
                xors: 3 * table.sym_pairs.len() + table.sym_diag.len() + j,
                rotations: 2 * m + j,
            },
            NbMulAlgorithm::TypeIFormula14 => NbOpCounts {
                ands: m,
                xors: m + 1,
                rotations: m,
            },
        })
    }
}

/// P1363-2000 A.3.8, literally: c_k from the rotated a, b for k = 0..m−1.
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
        a = rot(&a, 1, m);
        b = rot(&b, 1, m);
    }
    c
}

/// Ning–Yin: single-word rotations of A and B, output word by word.
fn mul_ning_yin(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    // A[k] = (a_k … a_{k+63}) for k < 2m (the second half repeats the
    // first, so that A[i + 64w mod m] needs no division).
    let ea = periodic(a, m, 3 * m + 64);
    let eb = periodic(b, m, 3 * m + 64);
    let aw: Vec<u64> = (0..2 * m).map(|k| funnel(&ea, k)).collect();
    let bw: Vec<u64> = (0..2 * m).map(|k| funnel(&eb, k)).collect();
    let mut c = vec![0u64; table.words()];
    for (w, cw) in c.iter_mut().enumerate() {
        let off = (64 * w) % m;
        let mut acc = 0u64;
        for i in 0..m {
            let mut sum_b = 0u64;
            for &j in table.by_first.row(i) {
                sum_b ^= bw[j as usize + off];
            }
            acc ^= aw[i + off] & sum_b;
        }
        *cw = acc;
    }
    if let Some(last) = c.last_mut() {
        *last &= top_mask(m);
    }
    if let Some(h) = table.j_shift {
        add_j_ones(&mut c, inner_j(a, b, h, m), m);
    }
    c
}

/// The X_s of Reyhani-Masoleh–Hasan, s = 1..⌊m/2⌋ (row s − 1 of a flat
/// table): A∘rot(B,s) + B∘rot(A,s), or A∘rot(B,m/2) for s = m/2 of even m.
fn rh_x(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let w = table.words();
    let mut ra = vec![0u64; w];
    let mut rb = vec![0u64; w];
    let mut xs = vec![0u64; (m / 2) * w];
    for (s1, x) in xs.chunks_exact_mut(w).enumerate() {
        let s = s1 + 1;
        rot_into(b, s, m, &mut rb);
        xor_and_into(x, a, &rb);
        if 2 * s != m {
            rot_into(a, s, m, &mut ra);
            xor_and_into(x, b, &ra);
        }
    }
    xs
}

/// (A∘B)²: the diagonal term a_i b_i β^(2^(i+1)).
fn rh_diagonal(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let ab: Vec<u64> = a.iter().zip(b).map(|(x, y)| x & y).collect();
    rot(&ab, table.m - 1, table.m)
}

fn mul_rh(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let mut c = rh_diagonal(table, a, b);
    let mut r = vec![0u64; table.words()];
    let xs = rh_x(table, a, b);
    for (s1, x) in xs.chunks_exact(table.words()).enumerate() {
        for &j in table.tau.row(s1) {
            // X^(2^j) = rot(X, −j).
            rot_into(x, wrap(m - j as usize, m), m, &mut r);
            xor_into(&mut c, &r);
        }
    }
    c
}

/// Row k of a flat table of `w`-word rows.
#[inline(always)]
fn table_row(t: &[u64], k: usize, w: usize) -> &[u64] {
    &t[k * w..(k + 1) * w]
}

fn mul_rh_improved(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let w = table.words();
    let da = rotation_table(a, m);
    let db = rotation_table(b, m);
    // (A∘B)² = DA[−1]∘DB[−1].
    let mut c = vec![0u64; w];
    xor_and_into(&mut c, table_row(&da, m - 1, w), table_row(&db, m - 1, w));
    for s in 1..=m / 2 {
        for &j in table.tau.row(s - 1) {
            let mj = m - j as usize;
            xor_and_into(
                &mut c,
                table_row(&da, wrap(mj, m), w),
                table_row(&db, wrap(wrap(mj, m) + s, m), w),
            );
            if 2 * s != m {
                xor_and_into(
                    &mut c,
                    table_row(&db, wrap(mj, m), w),
                    table_row(&da, wrap(wrap(mj, m) + s, m), w),
                );
            }
        }
    }
    c
}

fn mul_fan_dai_1(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let w = table.words();
    let xs = rh_x(table, a, b);
    let mut c = rh_diagonal(table, a, b);
    let mut sum = vec![0u64; w];
    let mut r = vec![0u64; w];
    for j in 0..m {
        let set = table.tau_by_j.row(j);
        if set.is_empty() {
            continue;
        }
        sum.fill(0);
        for &s in set {
            xor_into(&mut sum, table_row(&xs, s as usize - 1, w));
        }
        rot_into(&sum, wrap(m - j, m), m, &mut r);
        xor_into(&mut c, &r);
    }
    c
}

fn mul_fan_dai_2(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let w = table.words();
    let da = rotation_table(a, m);
    let db = rotation_table(b, m);
    let mut c = vec![0u64; w];
    let mut sa = vec![0u64; w];
    let mut sb = vec![0u64; w];
    for &(i, j) in &table.sym_pairs {
        let (i, j) = (i as usize, j as usize);
        for k in 0..w {
            sa[k] = table_row(&da, i, w)[k] ^ table_row(&da, j, w)[k];
            sb[k] = table_row(&db, i, w)[k] ^ table_row(&db, j, w)[k];
        }
        xor_and_into(&mut c, &sa, &sb);
    }
    for &i in &table.sym_diag {
        xor_and_into(
            &mut c,
            table_row(&da, i as usize, w),
            table_row(&db, i as usize, w),
        );
    }
    if let Some(h) = table.j_shift {
        add_j_ones(&mut c, inner_j(a, b, h, m), m);
    }
    c
}

fn mul_type1(table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    let m = table.m;
    let p = table.p;
    let pw = words_for(p);
    // A'[x] = a_{F(x)}, B'[x] = b_{F(x)}, x = 1..p−1; position 0 is 0.
    let mut ap = vec![0u64; pw];
    let mut bp = vec![0u64; pw];
    for x in 1..p {
        let i = table.f[x] as usize;
        ap[x / 64] |= bit(a, i) << (x % 64);
        bp[x / 64] |= bit(b, i) << (x % 64);
    }
    // D = Σ_x A'[x]·γ^x·B': B' shifted cyclically one place per x.
    let top = top_mask(p);
    let mut d = vec![0u64; pw];
    let mut shifted = bp;
    for x in 1..p {
        // shifted ← γ·shifted (position z moves to z + 1 mod p).
        let carry_out = bit(&shifted, p - 1);
        let mut carry = carry_out;
        for word in shifted.iter_mut() {
            let next = *word >> 63;
            *word = (*word << 1) | carry;
            carry = next;
        }
        if let Some(last) = shifted.last_mut() {
            *last &= top;
        }
        let mk = mask(bit(&ap, x));
        for (o, s) in d.iter_mut().zip(&shifted) {
            *o ^= mk & s;
        }
    }
    // c_i = D[2^i] + D[0].
    let mut c = vec![0u64; table.words()];
    for (i, &x) in table.pow2.iter().enumerate() {
        c[i / 64] |= bit(&d, x as usize) << (i % 64);
    }
    add_j_ones(&mut c, bit(&d, 0), m);
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    struct SplitMix(u64);
    impl SplitMix {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn element(&mut self, table: &NbTable) -> Vec<u64> {
            let mut v: Vec<u64> = (0..table.words()).map(|_| self.next()).collect();
            if let Some(last) = v.last_mut() {
                *last &= top_mask(table.m());
            }
            v
        }
    }

    #[test]
    fn existence() {
        assert!(NbTable::new(163, 4).is_some());
        assert!(NbTable::new(233, 2).is_some());
        assert!(NbTable::new(162, 1).is_some());
        // p = 4·162 + 1 = 649 = 11·59: not prime.
        assert!(NbTable::new(162, 4).is_none());
        // p = 7 but 2 has order 3 mod 7 and gcd(6/3, 3) = 1: type 2, m = 3 exists.
        assert!(NbTable::new(3, 2).is_some());
        // m = 4, t = 1: p = 5, 2 primitive: exists. m = 6, t = 1: p = 7, ord 3, gcd(2, 6) = 2.
        assert!(NbTable::new(4, 1).is_some());
        assert!(NbTable::new(6, 1).is_none());
        assert!(NbTable::new(1, 1).is_none());
        assert!(NbTable::new(163, 0).is_none());
    }

    #[test]
    fn optimal_bases_have_complexity_2m_minus_1() {
        for (m, t) in [(162, 1), (131, 2), (4, 1), (3, 2)] {
            let table = NbTable::new(m, t).unwrap();
            assert_eq!(table.complexity(), 2 * m - 1, "m = {m}, t = {t}");
        }
    }

    #[test]
    fn small_fields_every_algorithm_agrees() {
        let mut rng = SplitMix(1);
        for (m, t) in [
            (2, 1),
            (3, 2),
            (4, 1),
            (5, 2),
            (9, 2),
            (10, 1),
            (7, 4),
            (65, 2),
            (66, 1),
            (64, 6),
        ] {
            let Some(table) = NbTable::new(m, t) else {
                continue;
            };
            for _ in 0..8 {
                let a = rng.element(&table);
                let b = rng.element(&table);
                let want = NbMulAlgorithm::P1363Bitwise.mul(&table, &a, &b).unwrap();
                for alg in NbMulAlgorithm::ALL {
                    if let Some(got) = alg.mul(&table, &a, &b) {
                        assert_eq!(got, want, "{} m = {m} t = {t}", alg.name());
                    }
                }
                let one = table.one();
                assert_eq!(NbMulAlgorithm::RhOriginal.mul(&table, &a, &one).unwrap(), a);
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
        assert!(NbMulAlgorithm::TypeIFormula14.mul(&table, &a, &a).is_none());
    }
}
