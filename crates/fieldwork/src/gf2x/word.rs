//! The portable, constant-time 64×64 → 128-bit carry-less product: the
//! word kernel of the portable `gf2x` backend, of the portable FFT's field
//! product and of portable GHASH. A leaf module (it uses nothing of `gf2x`).
//!
//! No tables, no data-dependent branches: each product is formed with ordinary
//! integer multiplications of operands whose set bits are spread out so far
//! apart that the carries of the integer products never reach a bit we keep.
//!
//! # The 5-way split
//!
//! Write `a = a0 ^ a1 ^ … ^ a4` where `ai` keeps the bits of `a` at positions
//! `≡ i (mod 5)`, and likewise `b`. The integer product `ai·bj` has, at each
//! position `k ≡ i+j (mod 5)`, the *count* of bit pairs of `ai`, `bj` with
//! exponents summing to `k`, and nothing at other residues except the carries
//! of those counts. A 64-bit operand has at most 13 bits in one residue class,
//! so a count is at most 13 < 2^4: it occupies bits `k .. k+3`, never reaching
//! `k+5`, the next position of the same class. The low bit of each count is
//! the carry-less coefficient, so
//!
//! ```text
//! clmul(a, b) = OR over c of ( XOR over i of ai·b((c−i) mod 5) ) AND mask_c
//! ```
//!
//! where `mask_c` keeps the 128-bit positions `≡ c (mod 5)`. That is 25
//! 64×64→128 integer multiplications. A 4-way split (16 multiplications, as
//! in BearSSL's `ghash_ctmul64`) is not enough for the full 128-bit product of
//! 64-bit operands: a count can reach 16 = 2^4, which carries into the next
//! position of its own class.
//!
//! This assumes the integer multiplier runs in constant time, which holds for
//! `mul` on x86-64 and for the 64-bit multipliers of current AArch64 cores.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// the five residue classes index arrays of five.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

/// Bits at positions `≡ c (mod 5)` of a 128-bit word.
const fn class_mask(c: u32) -> u128 {
    let mut m = 0u128;
    let mut k = c;
    while k < 128 {
        m |= 1 << k;
        k += 5;
    }
    m
}

const MASK128: [u128; 5] = [
    class_mask(0),
    class_mask(1),
    class_mask(2),
    class_mask(3),
    class_mask(4),
];

const MASK64: [u64; 5] = [
    MASK128[0] as u64,
    MASK128[1] as u64,
    MASK128[2] as u64,
    MASK128[3] as u64,
    MASK128[4] as u64,
];

/// The 128-bit carry-less product of `a` and `b`, in constant time.
#[inline]
pub(crate) fn clmul64(a: u64, b: u64) -> u128 {
    let ap = MASK64.map(|m| (a & m) as u128);
    let bp = MASK64.map(|m| (b & m) as u128);
    let mut r = 0u128;
    for (c, mask) in MASK128.iter().enumerate() {
        let mut z = 0u128;
        for (i, ai) in ap.iter().enumerate() {
            z ^= ai * bp[(c + 5 - i) % 5];
        }
        r |= z & mask;
    }
    r
}
