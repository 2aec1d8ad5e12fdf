//! The Montgomery column of Fan and Dai's Table 4 (§5): Koç and Acar's
//! word-level Montgomery multiplication in GF(2^k) (\[6\]: *Montgomery
//! multiplication in GF(2^k)*, Designs, Codes and Cryptography 14, 1998)
//! with w = 8-bit words and the table-lookup word products, as the paper's
//! listing (`Montgomery`, `precomputation_of_Montgomery`) implements it.
//!
//! "For simplicity, we implement the multiplication algorithm in GF(2^k)
//! instead of GF(2^n), where k = w⌈n/w⌉" (§5): elements are s = ⌈n/8⌉
//! bytes, the modulus N(x) = x^k + N_(s−1) x^(8(s−1)) + … + N_0 has degree
//! k, and a product is a·b·x^(−k) mod N. The listing sizes its arrays
//! MBLK_NUM = ⌊N/8⌋ + 2 bytes (one more than ⌈n/8⌉); we follow the text's
//! k. Its tables are dummies ("used to test performance ONLY"); ours are
//! the real ones: TBL\[x·256 + y\] and TBH\[x·256 + y\] the low and high
//! bytes of the carry-less product x·y, and N'_0 = N_0^(−1) mod x^8, so the
//! products are right (the tests compare them with fieldwork's
//! polynomial-basis product in the same field).
//!
//! **Not constant time**: the word products are secret-indexed lookups in
//! 64 KiB tables, the method the paper measures.

use alloc::vec;
use alloc::vec::Vec;

/// The word size w of \[6\] (bits).
pub const BLOCK_BITS: usize = 8;

/// Koç–Acar Montgomery multiplication in GF(2^k), k = 8s, by byte tables.
#[derive(Clone, Debug)]
pub struct KocAcar {
    /// s: bytes per element.
    s: usize,
    /// N_0 … N_(s−1): the modulus minus x^k (the listing's TBN).
    tbn: Vec<u8>,
    /// N'_0 = N_0^(−1) mod x^8 (the listing's CONST_N0).
    n0: u8,
    /// Low and high bytes of the 8 × 8-bit carry-less products.
    tbl: Vec<u8>,
    tbh: Vec<u8>,
}

/// The carry-less product of two bytes.
fn clmul8(x: u8, y: u8) -> u16 {
    let mut r = 0u16;
    for i in 0..8 {
        if (y >> i) & 1 == 1 {
            r ^= u16::from(x) << i;
        }
    }
    r
}

impl KocAcar {
    /// The multiplier for the modulus `modulus` (little-endian `u64` words
    /// of a polynomial of degree k = 8s with a constant term 1), or none
    /// when the degree is not a positive multiple of 8 or N_0 is even.
    pub fn new(modulus: &[u64]) -> Option<KocAcar> {
        let bits = modulus.len() * 64;
        let k = (0..bits)
            .rev()
            .find(|&i| (modulus[i / 64] >> (i % 64)) & 1 == 1)?;
        if k == 0 || k % BLOCK_BITS != 0 {
            return None;
        }
        let s = k / BLOCK_BITS;
        let tbn: Vec<u8> = (0..s)
            .map(|j| (modulus[j / 8] >> (8 * (j % 8))) as u8)
            .collect();
        let n0_low = *tbn.first()?;
        let n0 = (0..=255u8).find(|&x| clmul8(x, n0_low) & 0xff == 1)?;
        let mut tbl = vec![0u8; 1 << 16];
        let mut tbh = vec![0u8; 1 << 16];
        for x in 0..=255u8 {
            for y in 0..=255u8 {
                let p = clmul8(x, y);
                let at = (usize::from(x) << 8) | usize::from(y);
                tbl[at] = p as u8;
                tbh[at] = (p >> 8) as u8;
            }
        }
        Some(KocAcar {
            s,
            tbn,
            n0,
            tbl,
            tbh,
        })
    }

    /// s, the bytes of an element (k = 8s).
    pub fn bytes(&self) -> usize {
        self.s
    }

    /// a·b·x^(−k) mod N for a, b of s bytes (little-endian: byte j holds
    /// the coefficients of x^(8j) … x^(8j+7)); none for other lengths. The
    /// listing's loop: for each byte b_i, C ⊕= A·b_i (row by table),
    /// M := C_0·N'_0 mod x^8, C := (C ⊕ M·N)/x^8.
    pub fn mul(&self, a: &[u8], b: &[u8]) -> Option<Vec<u8>> {
        let s = self.s;
        if a.len() != s || b.len() != s {
            return None;
        }
        let (tbl, tbh, tbn) = (&self.tbl[..], &self.tbh[..], &self.tbn[..]);
        let idx = |x: u8, y: u8| (usize::from(x) << 8) | usize::from(y);
        let mut c = vec![0u8; s + 1];
        for &bi in b {
            for (j, &aj) in a.iter().enumerate() {
                let at = idx(aj, bi);
                c[j] ^= tbl[at];
                c[j + 1] ^= tbh[at];
            }
            let m = tbl[idx(c[0], self.n0)];
            let mut p = tbh[idx(m, tbn[0])];
            for j in 1..s {
                let at = idx(m, tbn[j]);
                c[j - 1] = c[j] ^ tbl[at] ^ p;
                p = tbh[at];
            }
            c[s - 1] = c[s] ^ p ^ m;
            c[s] = 0;
        }
        c.truncate(s);
        Some(c)
    }
}
