//! POLYVAL's field GF(2^128) = GF(2)\[x\]/(x^128 + x^127 + x^126 + x^121 + 1),
//! shared by every GHASH/POLYVAL backend and the AES-GCM kernels: the
//! reduction constant, Montgomery reduction, `mulX`, the block loader, and
//! how many powers of `H` a key holds. Plain Rust, constant time.
#![forbid(unsafe_code)]

/// Blocks per aggregated step of the widest kernel; the key holds this
/// many powers of H.
pub(crate) const POWERS: usize = 32;

/// `C = x^63 + x^62 + x^57`: the high word of POLYVAL's reduction constant
/// 0xc2000000000000000000000000000001.
pub(crate) const C_HI: u64 = 0xc200_0000_0000_0000;

/// `v·x^(−64)` folded once: `swap64(v) ⊕ v₀·C` (see [`mont_reduce`]).
#[inline(always)]
pub(crate) fn fold(v: u128) -> u128 {
    let d0 = v as u64 as u128;
    // d0·C for C = x^63 + x^62 + x^57, as shifts: constant time.
    let t = (d0 << 63) ^ (d0 << 62) ^ (d0 << 57);
    v.rotate_left(64) ^ t
}

/// Montgomery reduction: `(hi·x^128 + lo)·x^(−128) mod P` for POLYVAL's
/// `P = x^128 + x^127 + x^126 + x^121 + 1`.
///
/// Adding `d₀·P` to `T = hi·x^128 + d₁·x^64 + d₀` clears its low word;
/// dividing by x^64 leaves `hi·x^64 + (d₁ + d₀·x^64 + d₀·C)` with
/// `C = x^63 + x^62 + x^57`. Twice, and the low half is folded into `hi`.
/// (The white paper's reduction by two multiplications by 0xc2…, §
/// "reduction with carry-less multiplication".)
#[inline(always)]
pub(crate) fn mont_reduce(lo: u128, hi: u128) -> u128 {
    hi ^ fold(fold(lo))
}

/// `v·x mod P`: RFC 8452's `mulX_POLYVAL`, constant time.
#[inline]
pub(crate) fn mul_x(v: u128) -> u128 {
    let top = (v >> 127).wrapping_neg(); // all ones if bit 127 is set
    (v << 1) ^ (top & 0xc200_0000_0000_0000_0000_0000_0000_0001)
}

/// A block as POLYVAL's field element: little-endian, or byte-reversed
/// (big-endian) for GHASH.
#[inline(always)]
pub(crate) fn load(c: &[u8], reflect: bool) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(c);
    if reflect {
        u128::from_be_bytes(b)
    } else {
        u128::from_le_bytes(b)
    }
}
