//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq` —
//! capability token [`crate::cpu::Avx512`].
//!
//! Sixteen blocks at a time, word-sliced on zmm registers: the generic
//! block function of [`super::lanes`] with `N` = 16 compiled with
//! AVX-512, where every rotation is one `vprold`; then eight blocks on ymm
//! (AVX-512VL), four, and one at a time for the tail. The compiler
//! vectorises the lanes: no hand-written intrinsic.
#![allow(unsafe_code)]

use super::lanes::{xor_groups, xor_partial};
use crate::cpu::Avx512;

/// XORs the keystream from block `counter` into `data` (any length).
pub(super) fn xor(t: Avx512, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves AVX-512 F, BW, VL and DQ.
    unsafe { xor_avx512(key, nonce, counter, data) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_avx512(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let (counter, rest) = xor_groups::<16>(key, nonce, counter, data);
    let (counter, rest) = xor_groups::<8>(key, nonce, counter, rest);
    let (counter, rest) = xor_groups::<4>(key, nonce, counter, rest);
    let (counter, rest) = xor_groups::<1>(key, nonce, counter, rest);
    xor_partial(key, nonce, counter, rest);
}
