//! Target features: `avx`, `avx2` — capability token [`crate::cpu::Avx2`].
//!
//! ChaCha20-Poly1305 in one pass, stitched: the 8-block vertical ChaCha20
//! kernel of [`crate::chacha20::avx2`] runs on the vector ports, and
//! Poly1305 in radix 2^64 (scalar 64×64 → 128 multiplications,
//! [`crate::poly1305::ScalarKey`]) runs on the integer ports between its
//! double rounds: 32 Poly1305 blocks (512 bytes) spread over the 10 double
//! rounds of each 8-block group, three or four after each. Sealing MACs
//! the ciphertext of the previous 512-byte group while the next group's
//! keystream is computed; opening MACs a group's ciphertext while its own
//! keystream is computed, before the keystream is XORed in. The idea of
//! running scalar Poly1305 in the vector ChaCha20's shadow is the design
//! of the stitched AEAD code in OpenSSL's `chacha20_poly1305_x86_64`
//! (used by ring and aws-lc); this is our own code on the kernels of this
//! crate.
#![allow(unsafe_code)]

use crate::chacha20::avx2::{Masks, keystream8_with, xor_from, xor8};
use crate::cpu::Avx2;
use crate::poly1305::{ScalarAcc, ScalarKey};

/// Bytes per stitched group: 8 ChaCha20 blocks, 32 Poly1305 blocks.
const GROUP: usize = 512;

/// Poly1305 blocks absorbed after double round `r` of a group: three
/// each (30), and the last two after the rounds, beside the final
/// additions and the transposition.
#[inline(always)]
fn mac_slice(r: usize) -> core::ops::Range<usize> {
    3 * r..3 * r + 3
}

/// Absorbs Poly1305 blocks `range` of `group` (whole 16-byte blocks, each
/// with the 2^128 bit).
#[inline(always)]
fn absorb(mac: &ScalarKey, h: &mut ScalarAcc, group: &[u8; GROUP], range: core::ops::Range<usize>) {
    for j in range {
        let mut b = [0u8; 16];
        b.copy_from_slice(&group[16 * j..16 * j + 16]);
        mac.block(h, &b, 1);
    }
}

/// Encrypts `data` from block `counter` and absorbs the resulting
/// ciphertext into `h`, whole groups only (`data.len()` a multiple of 512,
/// at least one group).
pub(super) fn seal_groups(
    t: Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
    mac: &ScalarKey,
    h: &mut ScalarAcc,
) {
    // SAFETY: the token (cpu::Avx2) proves AVX and AVX2.
    unsafe { seal_groups_avx2(t, key, nonce, counter, data, mac, h) }
}

/// Absorbs the ciphertext `data` into `h` and decrypts it from block
/// `counter`, whole groups only (`data.len()` a multiple of 512).
pub(super) fn open_groups(
    t: Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
    mac: &ScalarKey,
    h: &mut ScalarAcc,
) {
    // SAFETY: the token (cpu::Avx2) proves AVX and AVX2.
    unsafe { open_groups_avx2(t, key, nonce, counter, data, mac, h) }
}

/// XORs the keystream from block `counter` into `data` (any length): the
/// tails after the stitched groups.
pub(super) fn xor(t: Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    // SAFETY: the token (cpu::Avx2) proves AVX and AVX2.
    unsafe { xor_avx2(t, key, nonce, counter, data) }
}

#[target_feature(enable = "avx,avx2")]
fn xor_avx2(t: Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    xor_from(key, nonce, counter, data, Masks::new(t));
}

#[target_feature(enable = "avx,avx2")]
fn seal_groups_avx2(
    t: Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    mut counter: u32,
    data: &mut [u8],
    mac: &ScalarKey,
    h: &mut ScalarAcc,
) {
    debug_assert!(data.len().is_multiple_of(GROUP) && !data.is_empty());
    let m = Masks::new(t);
    let mut groups = data
        .chunks_exact_mut(GROUP)
        .filter_map(|g| <&mut [u8; GROUP]>::try_from(g).ok());
    let Some(mut prev) = groups.next() else {
        return;
    };
    // The first group has no ciphertext before it to MAC.
    xor8(&keystream8_with(key, nonce, counter, m, |_| {}), prev);
    counter = counter.wrapping_add(8);
    for g in groups {
        let ks = keystream8_with(key, nonce, counter, m, |r| {
            absorb(mac, h, prev, mac_slice(r))
        });
        absorb(mac, h, prev, 30..32);
        xor8(&ks, g);
        counter = counter.wrapping_add(8);
        prev = g;
    }
    absorb(mac, h, prev, 0..32);
}

#[target_feature(enable = "avx,avx2")]
fn open_groups_avx2(
    t: Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    mut counter: u32,
    data: &mut [u8],
    mac: &ScalarKey,
    h: &mut ScalarAcc,
) {
    debug_assert!(data.len().is_multiple_of(GROUP));
    let m = Masks::new(t);
    for g in data.chunks_exact_mut(GROUP) {
        if let Ok(g) = <&mut [u8; GROUP]>::try_from(g) {
            let ks = keystream8_with(key, nonce, counter, m, |r| absorb(mac, h, g, mac_slice(r)));
            absorb(mac, h, g, 30..32);
            xor8(&ks, g);
        }
        counter = counter.wrapping_add(8);
    }
}
