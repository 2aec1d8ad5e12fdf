//! The ChaCha20 block function on `N` blocks at once, word-sliced: word
//! `i` of the `N` states is one array `[u32; N]`, so every add, XOR and
//! rotation of the quarter-round is one operation over `N` lanes. Plain
//! Rust, generic over `N` and `#[inline(always)]`: a backend's
//! `#[target_feature]` entry point that instantiates it gets every lane
//! operation compiled to its instructions; the portable backend uses `N`
//! = 1. The vector backends have hand-written kernels instead
//! (`chacha20/avx2.rs`: compiled at `N` = 8 without AVX-512's rotations,
//! this code spilled and half-scalarised; `chacha20/avx512.rs`: at `N` =
//! 16 rustc 1.95 moved rows through gathers and scatters) and take only
//! [`SIGMA`] and [`input`] from here. The counter is the only input that differs between
//! lanes (block `j` has counter `counter + j`, wrapping as RFC 8439's
//! 32-bit counter does).
//!
//! Per block: 20 rounds of 4 quarter-rounds, each 4 additions, 4 XORs and
//! 4 rotations (16 + 16 + 16 per double-round column or diagonal pass), then
//! 16 additions of the input and 16 XORs with the data — about 1 000 word
//! operations, or about 1 000 / `N` vector instructions a block plus the
//! transposition of the output from word-sliced to block order.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// state-word and lane indices are constants or loop counters over the fixed 16-word state and `[_; L]` lane arrays.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]
// The lane loops index several word arrays at the same lane.
#![allow(clippy::needless_range_loop)]

use zeroize::Zeroize;

/// "expand 32-byte k", the first row of every state.
pub(crate) const SIGMA: [u32; 4] = [0x6170_7865, 0x3320_646e, 0x7962_2d32, 0x6b20_6574];

/// The 16 input words of block `counter` (RFC 8439 §2.3): constants, key,
/// counter, nonce.
#[inline(always)]
pub(crate) fn input(key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u32; 16] {
    [
        SIGMA[0], SIGMA[1], SIGMA[2], SIGMA[3], key[0], key[1], key[2], key[3], key[4], key[5],
        key[6], key[7], counter, nonce[0], nonce[1], nonce[2],
    ]
}

/// One quarter-round on words `a`, `b`, `c`, `d` of every lane (RFC 8439
/// §2.1).
#[inline(always)]
fn quarter<const N: usize>(x: &mut [[u32; N]; 16], a: usize, b: usize, c: usize, d: usize) {
    for j in 0..N {
        x[a][j] = x[a][j].wrapping_add(x[b][j]);
        x[d][j] = (x[d][j] ^ x[a][j]).rotate_left(16);
        x[c][j] = x[c][j].wrapping_add(x[d][j]);
        x[b][j] = (x[b][j] ^ x[c][j]).rotate_left(12);
        x[a][j] = x[a][j].wrapping_add(x[b][j]);
        x[d][j] = (x[d][j] ^ x[a][j]).rotate_left(8);
        x[c][j] = x[c][j].wrapping_add(x[d][j]);
        x[b][j] = (x[b][j] ^ x[c][j]).rotate_left(7);
    }
}

/// One double round (a column pass, then a diagonal pass) on every lane.
#[inline(always)]
pub(crate) fn double_round<const N: usize>(x: &mut [[u32; N]; 16]) {
    quarter(x, 0, 4, 8, 12);
    quarter(x, 1, 5, 9, 13);
    quarter(x, 2, 6, 10, 14);
    quarter(x, 3, 7, 11, 15);
    quarter(x, 0, 5, 10, 15);
    quarter(x, 1, 6, 11, 12);
    quarter(x, 2, 7, 8, 13);
    quarter(x, 3, 4, 9, 14);
}

/// The 20 rounds and the final addition for `N` consecutive blocks from
/// `counter`: word `i` of block `j` is `out[i][j]`.
#[inline(always)]
pub(crate) fn keystream<const N: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
) -> [[u32; N]; 16] {
    let init = input(key, nonce, counter);
    let mut x = [[0u32; N]; 16];
    for (i, row) in x.iter_mut().enumerate() {
        *row = [init[i]; N];
    }
    for (j, c) in x[12].iter_mut().enumerate() {
        *c = counter.wrapping_add(j as u32);
    }
    let start = x;
    for _ in 0..10 {
        double_round(&mut x);
    }
    for i in 0..16 {
        for j in 0..N {
            x[i][j] = x[i][j].wrapping_add(start[i][j]);
        }
    }
    x
}

/// XORs the keystream of the `N` blocks from `counter` into `data`, which
/// holds exactly `64·N` bytes.
#[inline(always)]
pub(crate) fn xor_blocks<const N: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
) {
    debug_assert_eq!(data.len(), 64 * N);
    let ks = keystream::<N>(key, nonce, counter);
    for (j, block) in data.chunks_exact_mut(64).enumerate() {
        for (i, word) in block.chunks_exact_mut(4).enumerate() {
            let k = ks[i][j].to_le_bytes();
            for (b, kb) in word.iter_mut().zip(k) {
                *b ^= kb;
            }
        }
    }
}

/// [`xor_blocks`] over the whole groups of `N` blocks at the start of
/// `data`; returns the counter after them and the rest of `data` (fewer
/// than `N` blocks).
#[inline(always)]
pub(crate) fn xor_groups<'a, const N: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    mut counter: u32,
    data: &'a mut [u8],
) -> (u32, &'a mut [u8]) {
    let mut groups = data.chunks_exact_mut(64 * N);
    for g in &mut groups {
        xor_blocks::<N>(key, nonce, counter, g);
        counter = counter.wrapping_add(N as u32);
    }
    (counter, groups.into_remainder())
}

/// The last partial block (under 64 bytes) through a zeroed stack copy,
/// wiped afterwards.
#[inline(always)]
pub(crate) fn xor_partial(key: &[u32; 8], nonce: &[u32; 3], counter: u32, rest: &mut [u8]) {
    debug_assert!(rest.len() < 64);
    if rest.is_empty() {
        return;
    }
    let mut pad = [0u8; 64];
    pad[..rest.len()].copy_from_slice(rest);
    xor_blocks::<1>(key, nonce, counter, &mut pad);
    rest.copy_from_slice(&pad[..rest.len()]);
    pad.zeroize();
}
