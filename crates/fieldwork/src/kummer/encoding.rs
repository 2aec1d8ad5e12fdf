//! The Kummer surface's encodings, shared by every backend and the key
//! types: scalar bits, the projective point of three ratios, and the
//! 48-byte encoding of a point (one inversion, or one for two points).
//! Plain Rust, constant time: no branch or index depends on a value.
#![forbid(unsafe_code)]

use super::field::Fe;

/// Bit `i` of the scalar: bit `i mod 8` of byte `i / 8` (little-endian).
/// The one place every backend's ladder reads its bits from.
#[inline(always)]
// `i` is the ladder's bit counter, below 251 < 8·32 (not a checked access:
// this is the ladder's inner loop).
#[allow(clippy::indexing_slicing)]
pub(crate) fn scalar_bit(scalar: &[u8; 32], i: usize) -> u8 {
    (scalar[i / 8] >> (i % 8)) & 1
}

/// The point `(x : y : z : t)` with ratios `u = (x/y, x/z, x/t)`:
/// `(u1·u2·u3 : u2·u3 : u1·u3 : u1·u2)` — the ladder's R1 and the point a
/// public key names. The one place for this map; every backend calls it.
pub(crate) fn point_from_ratios(u: [Fe; 3]) -> [Fe; 4] {
    let [u1, u2, u3] = u;
    [u1.mul(u2).mul(u3), u2.mul(u3), u1.mul(u3), u1.mul(u2)]
}

/// The 48-byte encoding of `(X : Y : Z : T)`: X/Y, X/Z, X/T, canonical;
/// all zero when Y·Z·T = 0.
pub(crate) fn encode(p: [Fe; 4]) -> [u8; 48] {
    ratios(p, denominator(p).invert())
}

/// `Y·Z·T`, whose inverse the encoding needs.
fn denominator(p: [Fe; 4]) -> Fe {
    let [_, y, z, t] = p;
    y.mul(z).mul(t)
}

/// X/Y, X/Z, X/T as 48 bytes, given `inv = 1/(Y·Z·T)` (0 when that is 0).
fn ratios(p: [Fe; 4], inv: Fe) -> [u8; 48] {
    let [x, y, z, t] = p;
    let r = x.mul(inv);
    let mut out = [0u8; 48];
    out[..16].copy_from_slice(&r.mul(z).mul(t).to_bytes());
    out[16..32].copy_from_slice(&r.mul(y).mul(t).to_bytes());
    out[32..].copy_from_slice(&r.mul(y).mul(z).to_bytes());
    out
}

/// [`encode`] of two points with one inversion between them (Montgomery's
/// trick): `1/d1 = d2/(d1·d2)`, `1/d2 = d1/(d1·d2)` for `d = Y·Z·T`. A zero
/// `d` is replaced by 1 in the shared product (by mask) so that it cannot
/// zero the other point's inverse, and its own inverse is masked to 0, as
/// [`encode`] gives; no branch on either value.
pub(crate) fn encode_pair(p: [[Fe; 4]; 2]) -> [[u8; 48]; 2] {
    let d = p.map(denominator);
    // nz = all ones when d ≠ 0 (d is canonical, so d ≠ 0 ⟺ d − 1 < p − 1
    // ⟺ the subtraction d − 1 does not borrow).
    let nz = d.map(|d| (u128::from(d.0.overflowing_sub(1).1)).wrapping_sub(1));
    let [d1a, d1b] = [(d[0], nz[0]), (d[1], nz[1])].map(|(d, nz)| Fe((d.0 & nz) | (1 & !nz)));
    let inv = d1a.mul(d1b).invert();
    let [pa, pb] = p;
    [
        ratios(pa, Fe(inv.mul(d1b).0 & nz[0])),
        ratios(pb, Fe(inv.mul(d1a).0 & nz[1])),
    ]
}

/// The three ratios of a 48-byte point (bit 127 of each ignored).
pub(crate) fn decode(point: &[u8; 48]) -> [Fe; 3] {
    let mut out = [Fe(0); 3];
    for (o, b) in out.iter_mut().zip(point.as_chunks::<16>().0) {
        *o = Fe::from_bytes(b);
    }
    out
}
