//! The white paper's reductions at every coefficient position
//! (`fieldwork::ghash::reproduce`, feature `reproduce`): a single-bit block
//! times a single-bit key, for every pair of bit positions, puts one
//! coefficient at each degree 0 … 254 of the product, so every reduction
//! (Algorithms 3–9, the figures' 32-bit-lane forms, the aggregated ones) is
//! checked at its folding boundaries (s = 64 and s = 120 top coefficients)
//! and at the shift by one's carries, against the production GHASH. The
//! published vectors and random inputs are in `tests/ghash.rs`.
#![cfg(feature = "reproduce")]

use fieldwork::ghash::ghash;
use fieldwork::ghash::reproduce::{Algorithm, ghash_with};

/// A 16-byte block with only GCM bit `i` (coefficient of `x^i`) set.
fn unit(i: usize) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[i / 8] = 0x80 >> (i % 8);
    b
}

#[test]
fn every_product_degree_reduces_like_production() {
    let mut checked = 0;
    for algorithm in Algorithm::ALL.into_iter().filter(|a| a.is_supported()) {
        for i in 0..128 {
            for j in 0..128 {
                let (x, h) = (unit(i), unit(j));
                let got = ghash_with(algorithm, &h, &x).unwrap();
                assert_eq!(got, ghash(&h, &x), "{algorithm}: x^{i} · x^{j}");
                checked += 1;
            }
        }
    }
    // At least the portable-independent `Best`.
    assert!(checked >= 128 * 128);
}

/// Four blocks, the single bit in each block position in turn, and all
/// ones: each block meets a different power of H in the aggregated
/// kernels.
#[test]
fn aggregated_positions_and_all_ones() {
    for algorithm in Algorithm::ALL.into_iter().filter(|a| a.is_supported()) {
        for k in 0..5 {
            for i in (0..128).step_by(7) {
                let mut data = [0u8; 80];
                data[16 * k..16 * k + 16].copy_from_slice(&unit(i));
                let h = unit((i * 5 + 3) % 128);
                let got = ghash_with(algorithm, &h, &data).unwrap();
                assert_eq!(got, ghash(&h, &data), "{algorithm}: block {k}, bit {i}");
            }
        }
        let (h, data) = ([0xff; 16], [0xff; 200]);
        assert_eq!(
            ghash_with(algorithm, &h, &data).unwrap(),
            ghash(&h, &data),
            "{algorithm}: all ones"
        );
    }
}
