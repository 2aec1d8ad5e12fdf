//! Target features: `avx`, `avx2` — capability token [`crate::cpu::Avx2`].
//!
//! Eight blocks at a time, word-sliced on ymm registers: the generic
//! block function of [`super::lanes`] with `N` = 8 compiled with AVX2 (one
//! `vpaddd`, `vpxor` and rotation per word and quarter-round step for
//! eight blocks; 16- and 8-bit rotations as byte shuffles, 12 and 7 as
//! shift, shift, or), then four blocks, then one at a time for the tail.
//! The compiler vectorises the lanes: there is no hand-written intrinsic
//! here (Bernstein's "vertical" layout of ChaCha, "ChaCha, a variant of
//! Salsa20", 2008; the layout of the Goll–Gueron AVX2 code).
#![allow(unsafe_code)]

use super::lanes::{xor_groups, xor_partial};
use crate::cpu::Avx2;

/// XORs the keystream from block `counter` into `data` (any length).
pub(super) fn xor(t: Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves AVX and AVX2.
    unsafe { xor_avx2(key, nonce, counter, data) }
}

#[target_feature(enable = "avx,avx2")]
fn xor_avx2(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let (counter, rest) = xor_groups::<8>(key, nonce, counter, data);
    let (counter, rest) = xor_groups::<4>(key, nonce, counter, rest);
    let (counter, rest) = xor_groups::<1>(key, nonce, counter, rest);
    xor_partial(key, nonce, counter, rest);
}
