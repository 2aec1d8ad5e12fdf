//! Target features: none — the portable, constant-time backend.
//!
//! One `dot(acc ⊕ Y, H) = (acc ⊕ Y)·H·x^(−128)` per block (RFC 8452's
//! POLYVAL step; GHASH's blocks byte-reversed first). The 128×128
//! carry-less product is Karatsuba over three 64×64 products, each by the
//! masked integer multiplication of [`crate::gf2x`]'s portable backend
//! (25 integer multiplications, no tables, no data-dependent branches);
//! the Montgomery reduction (`mont_reduce` in [`super`]) multiplies by
//! `C = x^63 + x^62 + x^57` with shifts. Per block: 75 integer
//! multiplications with their masks and XORs, and a reduction of six
//! shifts and a few XORs — so aggregating reductions would save little.
//!
//! GHASH of 16 KiB, key prepared: 8.20 cycles/byte (Intel Xeon family 6
//! model 207, column `fieldwork (portable)` of `cargo run --release -p
//! peer-bench -- --filter ghash`).
#![forbid(unsafe_code)]

use super::Backend;
use super::field::{load, mont_reduce};
use crate::gf2x::word::clmul64;

/// The portable backend: one `dot` per block with `H` alone, so a key
/// makes no other power.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Backend for Portable {
    type Token = ();
    const NAME: &'static str = "portable";

    #[inline(always)]
    fn new((): ()) -> Portable {
        Portable
    }

    #[inline(always)]
    fn powers_for(_n: usize) -> usize {
        1
    }

    /// By the definition, `H^(k+1) = dot(H^k, H)` (unused by [`update`],
    /// which needs `H` alone; kept so that every backend can make powers).
    fn powers(self, out: &mut [u128], from: usize) {
        let Some(&h) = out.first() else { return };
        let mut prev = out.get(from.max(1) - 1).copied().unwrap_or(h);
        for p in out.iter_mut().skip(from.max(1)) {
            prev = super::dot_portable(prev, h);
            *p = prev;
        }
    }

    fn update(self, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
        update(powers.first().copied().unwrap_or(0), acc, data, reflect)
    }
}

/// The 256-bit carry-less product `a·b` as (low, high) 128-bit halves.
/// `#[inline(always)]`: with a second caller (the powers, through
/// `dot_portable`) LLVM left it out of [`update`]'s loop, a call per
/// block (16 KiB 42 → 52 µs on the Xeon f6m207).
#[inline(always)]
pub(super) fn clmul128(a: u128, b: u128) -> (u128, u128) {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64(a0, b0);
    let hi = clmul64(a1, b1);
    // Karatsuba middle term.
    let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    (lo ^ (mid << 64), hi ^ (mid >> 64))
}

/// `acc` after absorbing the whole blocks of `data` (byte-reversed first
/// for GHASH): one `dot` per block.
pub(super) fn update(h: u128, mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    for c in data.chunks_exact(16) {
        let (lo, hi) = clmul128(acc ^ load(c, reflect), h);
        acc = mont_reduce(lo, hi);
    }
    acc
}
