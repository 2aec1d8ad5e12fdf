//! The field `F = GF(2^64) = GF(2)[z]/(z^64 + z^4 + z^3 + z + 1)` of the
//! additive FFT: its reduction, constant-time products for constants, the
//! Cantor basis `β_0 … β_63` and the evaluation points `span(k)`, shared by
//! the algorithm ([`super`]) and every backend. Plain Rust.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// GF(2^64) tables of fixed size indexed by loop counters and byte values (`u8` < 256).
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

/// The low terms of the field polynomial: `z^64 = z^4 + z^3 + z + 1`.
#[cfg(test)]
pub(super) const FIELD_LOW: u64 = 0x1b;

/// The carry-less product of two 64-bit polynomials (bit by bit; for
/// constants and tests only).
pub(super) const fn clmul_const(a: u64, b: u64) -> u128 {
    let mut r = 0u128;
    let mut i = 0;
    while i < 64 {
        if (b >> i) & 1 == 1 {
            r ^= (a as u128) << i;
        }
        i += 1;
    }
    r
}

/// Reduces a product of two field elements (degree ≤ 126) modulo
/// `z^64 + z^4 + z^3 + z + 1`.
///
/// With `p = L + H·z^64`: `H·z^64 ≡ H·(1 + z + z^3 + z^4)`, whose bits above
/// 63 are `T = (H >> 61) ^ (H >> 60)` (`H < 2^63`, so `H >> 63` is zero), and
/// `T·z^64 ≡ T·(1 + z + z^3 + z^4)` stays below `z^8`: with `U = H ^ T` the
/// result is `L ^ U ^ U<<1 ^ U<<3 ^ U<<4` (shifts truncated to 64 bits).
#[inline(always)]
pub(crate) const fn reduce(lo: u64, hi: u64) -> u64 {
    let u = hi ^ (hi >> 61) ^ (hi >> 60);
    lo ^ u ^ (u << 1) ^ (u << 3) ^ (u << 4)
}

/// The field product (bit by bit; for constants and tests).
pub(crate) const fn gf64_mul_const(a: u64, b: u64) -> u64 {
    let p = clmul_const(a, b);
    reduce(p as u64, (p >> 64) as u64)
}

/// Solves `x² + x = c` in `F` for every `c` of trace zero: a reduced row
/// echelon form of the GF(2)-linear map `x ↦ x² + x`, kept as, for each
/// pivot, the combination of equations (bits of `c`) that gives it.
struct HalfSolver {
    /// Row `k`: which bits of `c` sum to the value of variable `pivot[k]`.
    comb: [u64; 64],
    /// Row `k`'s pivot variable.
    pivot: [u32; 64],
    /// Number of pivots (63: the kernel is `{0, 1}`).
    rank: usize,
}

impl HalfSolver {
    const fn new() -> HalfSolver {
        // Column i of the map is (z^i)² + z^i; row j holds bit j of each.
        let mut rows = [0u64; 64];
        let mut i = 0;
        while i < 64 {
            let sq = gf64_mul_const(1 << i, 1 << i) ^ (1 << i);
            let mut j = 0;
            while j < 64 {
                rows[j] |= ((sq >> j) & 1) << i;
                j += 1;
            }
            i += 1;
        }
        let mut comb = [0u64; 64];
        let mut j = 0;
        while j < 64 {
            comb[j] = 1 << j;
            j += 1;
        }
        let mut pivot = [0u32; 64];
        let mut rank = 0;
        let mut col = 0;
        while col < 64 {
            let mut p = rank;
            while p < 64 && (rows[p] >> col) & 1 == 0 {
                p += 1;
            }
            if p < 64 {
                let (r, c) = (rows[p], comb[p]);
                rows[p] = rows[rank];
                comb[p] = comb[rank];
                rows[rank] = r;
                comb[rank] = c;
                let mut q = 0;
                while q < 64 {
                    if q != rank && (rows[q] >> col) & 1 == 1 {
                        rows[q] ^= r;
                        comb[q] ^= c;
                    }
                    q += 1;
                }
                pivot[rank] = col;
                rank += 1;
            }
            col += 1;
        }
        HalfSolver { comb, pivot, rank }
    }

    /// The solution of `x² + x = c` with bit 0 clear; panics (at compile
    /// time, where it is used) if there is none.
    const fn solve(&self, c: u64) -> u64 {
        let mut x = 0u64;
        let mut k = 0;
        while k < 64 {
            let bit = ((self.comb[k] & c).count_ones() & 1) as u64;
            if k < self.rank {
                x |= bit << self.pivot[k];
            } else {
                assert!(bit == 0, "x^2 + x = c has no solution");
            }
            k += 1;
        }
        x
    }
}

/// The Cantor basis `β0 = 1, β_i² + β_i = β_(i−1)` of `F`.
const fn cantor_basis() -> [u64; 64] {
    let solver = HalfSolver::new();
    let mut beta = [0u64; 64];
    beta[0] = 1;
    let mut i = 1;
    while i < 64 {
        beta[i] = solver.solve(beta[i - 1]);
        i += 1;
    }
    beta
}

/// The Cantor basis of `F` (see the module docs).
pub(crate) const CANTOR: [u64; 64] = cantor_basis();

/// `SPAN_BYTES[b][j] = span(j << 8b)`.
const fn span_tables() -> [[u64; 256]; 8] {
    let mut t = [[0u64; 256]; 8];
    let mut b = 0;
    while b < 8 {
        let mut j = 1usize;
        while j < 256 {
            let low = j.trailing_zeros() as usize;
            t[b][j] = t[b][j & (j - 1)] ^ CANTOR[8 * b + low];
            j += 1;
        }
        b += 1;
    }
    t
}

static SPAN_BYTES: [[u64; 256]; 8] = span_tables();

/// `span(k) = Σ k_j·β_j` over the bits `k_j` of `k`: the evaluation point of
/// index `k`, and the twiddle `s_i(span(q)) = span(q >> i)`. Table lookups
/// indexed by a public index (a length or position), one per nonzero byte.
#[inline(always)]
pub(crate) fn span(mut k: u64) -> u64 {
    let mut acc = 0;
    let mut b = 0;
    while k != 0 {
        acc ^= SPAN_BYTES[b][(k & 0xff) as usize];
        k >>= 8;
        b += 1;
    }
    acc
}
