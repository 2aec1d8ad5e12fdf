//! Target features: `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability
//! token [`crate::cpu::AesClmul`].
//!
//! AES key expansion and block encryption with AES-NI.
//!
//! # Math and source
//!
//! Key expansion is FIPS 197 §5.2 (`KeyExpansion`) one 32-bit word at a
//! time, for all three key sizes: `SubWord(w)` is `aesenclast` of the
//! state with `w` in all four columns and a zero round key — ShiftRows
//! moves bytes between columns, which changes nothing when the columns are
//! equal, and the final AddRoundKey adds zero. `RotWord` is a rotation,
//! `Rcon` a constant: no table, no secret-dependent branch or address.
//! Encryption is FIPS 197 §5.1: `pxor` with round key 0, `aesenc` for
//! rounds 1 … Nr − 1, `aesenclast`.
//!
//! # Representation
//!
//! Round keys are `Nr + 1` 128-bit values in AES byte order, shared with
//! the VAES kernels of [`crate::gcm`] (which broadcast them to every lane).
//!
//! # Operation count
//!
//! Key expansion: one `aesenclast` per `SubWord`, at most 14 per key.
//! Encryption: `Nr + 1` AES operations per block, eight blocks in flight
//! to cover the latency (≈ 3–4 cycles, two per cycle on xmm on the
//! measured core).
//!
//! # Rejected
//!
//! - The usual `aeskeygenassist` sequences — a different shuffle per key
//!   size and an immediate per round, against one loop for all three.
//!
//! No figure of its own: peer-bench measures it inside AES-GCM (the
//! `fieldwork (aes-ni)` column of `--filter gcm`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// round-key indices are loop counters below the round count (10, 12, 14) of the 15-entry schedule.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::RoundKeys;
use crate::cpu::AesClmul;
use crate::simd::from_u128 as to_x;
use core::arch::x86_64::{
    __m128i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_cvtsi128_si32, _mm_loadu_si128,
    _mm_set1_epi32, _mm_setzero_si128, _mm_storeu_si128, _mm_xor_si128,
};

/// The expanded key of `key` (16, 24 or 32 bytes; any other length is read
/// as a zero-padded 32-byte key).
pub(crate) fn expand(t: AesClmul, key: &[u8]) -> RoundKeys {
    let _ = t;
    // SAFETY: the token proves AES-NI and SSE4.1.
    unsafe { expand_ni(key) }
}

#[target_feature(enable = "aes,sse4.1")]
fn expand_ni(key: &[u8]) -> RoundKeys {
    let nk = match key.len() {
        16 => 4,
        24 => 6,
        _ => 8,
    };
    let rounds = nk + 6;
    let mut w = [0u32; 60];
    for (i, word) in w.iter_mut().take(nk).enumerate() {
        let mut b = [0u8; 4];
        for (j, byte) in b.iter_mut().enumerate() {
            *byte = key.get(4 * i + j).copied().unwrap_or(0);
        }
        *word = u32::from_le_bytes(b);
    }
    let sub_word = |x: u32| -> u32 {
        let s = _mm_aesenclast_si128(_mm_set1_epi32(x as i32), _mm_setzero_si128());
        _mm_cvtsi128_si32(s) as u32
    };
    let mut rcon = 1u32;
    for i in nk..4 * (rounds + 1) {
        let mut temp = w[i - 1];
        if i % nk == 0 {
            // RotWord moves byte 1 to byte 0: a right rotation of the
            // little-endian word.
            temp = sub_word(temp.rotate_right(8)) ^ rcon;
            // xtime(rcon): rcon stays below 0x100 for every key size.
            rcon = (rcon << 1) ^ (0x11b & 0u32.wrapping_sub(rcon >> 7));
        } else if nk > 6 && i % nk == 4 {
            temp = sub_word(temp);
        }
        w[i] = w[i - nk] ^ temp;
    }
    let mut rk = [0u128; 15];
    for (r, k) in rk.iter_mut().enumerate().take(rounds + 1) {
        *k = u128::from(w[4 * r])
            | u128::from(w[4 * r + 1]) << 32
            | u128::from(w[4 * r + 2]) << 64
            | u128::from(w[4 * r + 3]) << 96;
    }
    w.fill(0);
    RoundKeys { rk, rounds }
}

/// One block, read little-endian, for kernels already compiled with
/// AES-NI: it inlines into them, so its latency overlaps their work (the
/// stitched GCM kernels start `AES(K, J0)` with it; calling the
/// non-inlined [`encrypt_blocks`] afterwards instead put its whole latency
/// on a short message's critical path).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(crate) fn encrypt_one(rk: &RoundKeys, block: &[u8; 16]) -> u128 {
    let mut x = to_x(u128::from_le_bytes(*block) ^ rk.rk[0]);
    for r in 1..rk.rounds {
        x = _mm_aesenc_si128(x, to_x(rk.rk[r]));
    }
    crate::simd::to_u128(_mm_aesenclast_si128(x, to_x(rk.rk[rk.rounds])))
}

/// AES round 1 — AddRoundKey 0, SubBytes, ShiftRows, MixColumns,
/// AddRoundKey 1 — of `block` (the block's bytes little-endian in the
/// `u128`).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(crate) fn round1(rk: &RoundKeys, block: u128) -> u128 {
    crate::simd::to_u128(_mm_aesenc_si128(to_x(block ^ rk.rk[0]), to_x(rk.rk[1])))
}

/// AES rounds 1 and 2 of `block` (bytes little-endian in the `u128`): the
/// state a counter-mode kernel's round-2 cache holds (`crate::gcm`).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(crate) fn round2(rk: &RoundKeys, block: u128) -> u128 {
    crate::simd::to_u128(_mm_aesenc_si128(to_x(round1(rk, block)), to_x(rk.rk[2])))
}

/// `t[b]` = [`round1`] of the block `0¹⁵ ‖ b` (fifteen zero bytes, then
/// `b`), for every byte `b`: the counter-mode round-1 table of the stitched
/// GCM kernels (`crate::gcm`).
pub(crate) fn round1_table(t: AesClmul, rk: &RoundKeys) -> [u128; 256] {
    let _ = t;
    // SAFETY: the token proves AES-NI and SSE4.1.
    core::array::from_fn(|b| unsafe { round1(rk, (b as u128) << 120) })
}

/// Encrypts each block of `blocks` in place.
pub(crate) fn encrypt_blocks(t: AesClmul, rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
    let _ = t;
    // SAFETY: the token proves AES-NI and SSE4.1.
    unsafe { encrypt_blocks_ni(rk, blocks) }
}

#[target_feature(enable = "aes,sse4.1")]
fn encrypt_blocks_ni(rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
    let keys: [__m128i; 15] = core::array::from_fn(|r| to_x(rk.rk[r]));
    let keys = &keys[..=rk.rounds];
    let mut chunks = blocks.chunks_mut(8);
    for chunk in &mut chunks {
        let mut x = [_mm_setzero_si128(); 8];
        for (xi, b) in x.iter_mut().zip(chunk.iter()) {
            // SAFETY: `b` is 16 readable bytes.
            *xi = _mm_xor_si128(unsafe { _mm_loadu_si128(b.as_ptr().cast()) }, keys[0]);
        }
        let n = chunk.len();
        for &k in &keys[1..keys.len() - 1] {
            for xi in &mut x[..n] {
                *xi = _mm_aesenc_si128(*xi, k);
            }
        }
        let last = keys[keys.len() - 1];
        for (xi, b) in x.iter().zip(chunk.iter_mut()) {
            // SAFETY: `b` is 16 writable bytes.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), _mm_aesenclast_si128(*xi, last)) };
        }
    }
}
