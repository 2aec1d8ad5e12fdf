//! Target features: `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability
//! token [`crate::cpu::AesClmul`].
//!
//! AES key expansion and block encryption with AES-NI.
//!
//! # Math and source
//!
//! Key expansion is FIPS 197 §5.2 (`KeyExpansion`). `SubWord(w)` is
//! `aesenclast` of the state with `w` in all four columns and a zero round
//! key — ShiftRows moves bytes between columns, which changes nothing when
//! the columns are equal, and the final AddRoundKey adds zero. AES-128 and
//! AES-256 (whose per-message keys AES-GCM-SIV expands on every call) run
//! four words at a time, the grouping of Gueron's AES-NI white paper
//! (Intel 323641): for AES-128 round key `r + 1` is the prefix XOR of
//! round key `r`'s words XORed with `SubWord(RotWord(w₃)) ⊕ Rcon` in every
//! word, `w₃` gathered into every column by one `pshufb`; for AES-256 a
//! group is the prefix XOR of the group two back XORed with
//! `SubWord(RotWord(·)) ⊕ Rcon` (even groups) or `SubWord(·)` (odd ones)
//! of the previous group's last word. AES-192 runs one word at a time.
//! `RotWord` is a byte permutation, `Rcon` a constant: no S-box table, no
//! secret-dependent branch or address. Encryption is FIPS 197 §5.1:
//! `pxor` with round key 0, `aesenc` for rounds 1 … Nr − 1, `aesenclast`.
//!
//! # Representation
//!
//! Round keys are `Nr + 1` 128-bit values in AES byte order, shared with
//! the VAES kernels of [`crate::gcm`] (which broadcast them to every lane).
//!
//! # Operation count
//!
//! Key expansion: one `aesenclast` per `SubWord`, at most 13 per key
//! (AES-256: a chain of 13 `pshufb`–`aesenclast`–XOR steps).
//! Encryption: `Nr + 1` AES operations per block, eight blocks in flight
//! to cover the latency (≈ 3–4 cycles, two per cycle on xmm on the
//! measured core).
//!
//! # Rejected
//!
//! - The usual `aeskeygenassist` sequences — an immediate round constant
//!   per instruction, so no loop over the rounds; `pshufb` and
//!   `aesenclast` take `Rcon` from a table.
//!
//! No figure of its own: peer-bench measures it inside AES-GCM (the
//! `fieldwork (aes-ni)` column of `--filter gcm`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// round-key indices are loop counters below the round count (10, 12, 14) of the 15-entry schedule.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::{Backend, RoundKeys};
use crate::cpu::AesClmul;
use crate::simd::from_u128 as to_x;
use core::arch::x86_64::{
    __m128i, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_cvtsi32_si128, _mm_cvtsi128_si32,
    _mm_loadu_si128, _mm_set1_epi32, _mm_setzero_si128, _mm_shuffle_epi8, _mm_slli_si128,
    _mm_storeu_si128, _mm_xor_si128,
};
use zeroize::Zeroize;

/// The expanded key of `key` (16, 24 or 32 bytes; any other length is read
/// as a zero-padded 32-byte key).
pub(crate) fn expand(t: AesClmul, key: &[u8]) -> RoundKeys {
    let _ = t;
    // SAFETY: the token proves AES-NI, SSSE3 and SSE4.1.
    unsafe {
        if let Ok(k) = <&[u8; 16]>::try_from(key) {
            return expand128(k);
        }
        if let Ok(k) = <&[u8; 32]>::try_from(key) {
            return expand256(k);
        }
        expand_ni(key)
    }
}

/// `RotWord` (if `ROT`) and `SubWord` of word 3 of `k`, in all four words:
/// `pshufb` gathers the word's bytes (rotated) into every column, where
/// `aesenclast` with a zero round key is `SubBytes` alone (`ShiftRows`
/// permutes equal columns).
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn sub_rot_word3<const ROT: bool>(k: __m128i) -> __m128i {
    let pick = if ROT {
        // Bytes 13, 14, 15, 12 of `k` in every 32-bit word.
        _mm_set1_epi32(0x0c0f_0e0d)
    } else {
        _mm_set1_epi32(0x0f0e_0d0c)
    };
    _mm_aesenclast_si128(_mm_shuffle_epi8(k, pick), _mm_setzero_si128())
}

/// `w₀, w₀⊕w₁, w₀⊕w₁⊕w₂, w₀⊕…⊕w₃` for the words `wᵢ` of `k`: the chain
/// `w[i] = w[i − Nk] ⊕ w[i − 1]` of FIPS 197 §5.2 over one 4-word group.
#[inline]
#[target_feature(enable = "sse4.1")]
fn prefix_xor(k: __m128i) -> __m128i {
    let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(k, _mm_slli_si128::<8>(k))
}

/// The round constants of FIPS 197 §5.2 for the ten AES-128 rounds (the
/// first seven serve AES-256).
const RCON: [i32; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// AES-128's key expansion four words at a time (the per-message key of
/// AES-GCM-SIV is expanded on every call): round key `r + 1` is
/// `prefix_xor(rk[r]) ⊕ (SubWord(RotWord(w₃)) ⊕ Rcon)` in every word —
/// FIPS 197 §5.2 with `Nk = 4`, the grouping of Gueron's AES-NI white
/// paper (Intel 323641), written here with `pshufb` instead of
/// `aeskeygenassist`.
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn expand128(key: &[u8; 16]) -> RoundKeys {
    let mut rk = [0u128; 15];
    for (r, k) in expand128_regs(to_x(u128::from_le_bytes(*key)))
        .into_iter()
        .enumerate()
    {
        rk[r] = crate::simd::to_u128(k);
    }
    RoundKeys { rk, rounds: 10 }
}

/// [`expand128`]'s round keys in registers, from the key in one: for
/// kernels that expand a key and use it at once (AES-GCM-SIV's short
/// messages, `gcm_siv/x86.rs`).
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
pub(crate) fn expand128_regs(mut k: __m128i) -> [__m128i; 11] {
    let mut rk = [k; 11];
    for (r, &rc) in RCON.iter().enumerate() {
        let t = _mm_xor_si128(sub_rot_word3::<true>(k), _mm_set1_epi32(rc));
        k = _mm_xor_si128(prefix_xor(k), t);
        rk[r + 1] = k;
    }
    rk
}

/// AES-256's key expansion four words at a time: with `Nk = 8` the even
/// groups take `SubWord(RotWord(·)) ⊕ Rcon` of the previous group's last
/// word, the odd ones `SubWord(·)` alone (FIPS 197 §5.2's `i mod Nk = 4`).
#[target_feature(enable = "aes,ssse3,sse4.1")]
fn expand256(key: &[u8; 32]) -> RoundKeys {
    let mut rk = [0u128; 15];
    let (lo, hi) = key.split_at(16);
    let a = to_x(u128::from_le_bytes(lo.try_into().unwrap_or_default()));
    let b = to_x(u128::from_le_bytes(hi.try_into().unwrap_or_default()));
    for (r, k) in expand256_regs(a, b).into_iter().enumerate() {
        rk[r] = crate::simd::to_u128(k);
    }
    RoundKeys { rk, rounds: 14 }
}

/// [`expand256`]'s round keys in registers, from the key's two halves in
/// two (see [`expand128_regs`]).
#[inline]
#[target_feature(enable = "aes,ssse3,sse4.1")]
pub(crate) fn expand256_regs(mut a: __m128i, mut b: __m128i) -> [__m128i; 15] {
    let mut rk = [a; 15];
    rk[1] = b;
    for (i, &rc) in RCON.iter().take(7).enumerate() {
        let t = _mm_xor_si128(sub_rot_word3::<true>(b), _mm_set1_epi32(rc));
        a = _mm_xor_si128(prefix_xor(a), t);
        rk[2 * i + 2] = a;
        if i < 6 {
            b = _mm_xor_si128(prefix_xor(b), sub_rot_word3::<false>(a));
            rk[2 * i + 3] = b;
        }
    }
    rk
}

#[target_feature(enable = "aes,sse4.1")]
fn encrypt_counters_ni<const N: usize>(rk: &RoundKeys, base: u128) -> [u128; N] {
    let b = _mm_xor_si128(to_x(base), to_x(rk.rk[0]));
    rounds_after_whitening(
        rk,
        core::array::from_fn(|i| _mm_xor_si128(b, _mm_cvtsi32_si128(i as i32))),
    )
}

#[target_feature(enable = "aes,sse4.1")]
fn encrypt_array_ni<const N: usize>(rk: &RoundKeys, blocks: [u128; N]) -> [u128; N] {
    rounds_after_whitening(rk, blocks.map(|b| to_x(b ^ rk.rk[0])))
}

/// Rounds 1 … Nr of `N` blocks already XORed with round key 0, all in
/// registers.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn rounds_after_whitening<const N: usize>(rk: &RoundKeys, mut x: [__m128i; N]) -> [u128; N] {
    for r in 1..rk.rounds {
        let k = to_x(rk.rk[r]);
        for xi in &mut x {
            *xi = _mm_aesenc_si128(*xi, k);
        }
    }
    let last = to_x(rk.rk[rk.rounds]);
    x.map(|xi| crate::simd::to_u128(_mm_aesenclast_si128(xi, last)))
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
    w.zeroize();
    RoundKeys { rk, rounds }
}

/// AES round 1 — AddRoundKey 0, SubBytes, ShiftRows, MixColumns,
/// AddRoundKey 1 — of `block` (the block's bytes little-endian in the
/// `u128`).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(crate) fn round1(rk: &RoundKeys, block: u128) -> u128 {
    crate::simd::to_u128(_mm_aesenc_si128(to_x(block ^ rk.rk[0]), to_x(rk.rk[1])))
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

/// The backend ([`Backend`], name `aes-ni`): the token and the round keys.
#[derive(Clone)]
pub(crate) struct Key {
    t: AesClmul,
    pub(crate) rk: RoundKeys,
}

#[cfg(test)]
impl Key {
    /// The token that proves the backend's instructions.
    pub(crate) fn token(&self) -> AesClmul {
        self.t
    }
}

impl Backend for Key {
    type Token = AesClmul;
    const NAME: &'static str = "aes-ni";

    /// Each key size's expansion writes the returned key in place (a
    /// `Key` built around [`expand`]'s result went through a 256-byte
    /// `memcpy` call on AES-GCM-SIV's per-message chain).
    fn new(t: AesClmul, key: &[u8]) -> Key {
        // SAFETY: the token proves AES-NI, SSSE3 and SSE4.1.
        unsafe {
            if let Ok(k) = <&[u8; 16]>::try_from(key) {
                return Key {
                    t,
                    rk: expand128(k),
                };
            }
            if let Ok(k) = <&[u8; 32]>::try_from(key) {
                return Key {
                    t,
                    rk: expand256(k),
                };
            }
            Key {
                t,
                rk: expand_ni(key),
            }
        }
    }

    /// All in registers: for the few blocks a call needs at a time
    /// (AES-GCM-SIV's key derivation and tag), where
    /// [`Backend::encrypt_blocks`]'s chunk loop costs more than the rounds.
    fn encrypt_array<const N: usize>(&self, blocks: [u128; N]) -> [u128; N] {
        let _ = self.t;
        // SAFETY: the token in `self.t` proves AES-NI and SSE4.1.
        unsafe { encrypt_array_ni(&self.rk, blocks) }
    }

    /// Built in registers from `base` passed by value: no block is read
    /// back from narrower stores.
    fn encrypt_counters<const N: usize>(&self, base: u128) -> [u128; N] {
        debug_assert_eq!(base as u32, 0);
        let _ = self.t;
        // SAFETY: the token in `self.t` proves AES-NI and SSE4.1.
        unsafe { encrypt_counters_ni(&self.rk, base) }
    }

    fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
        encrypt_blocks(self.t, &self.rk, blocks)
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.rk.secret_spans(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::words;

    /// The four-word expansions of AES-128 and AES-256 against the
    /// word-by-word one (FIPS 197 §5.2 as written), and `encrypt_array`
    /// against `encrypt_blocks`, on keys and blocks from a fixed generator
    /// (xorshift64*, `test_util::words`).
    #[test]
    fn fast_paths_match_the_word_loop() {
        let mut state = 0x0123_4567_89ab_cdefu64;
        let Some(t) = AesClmul::get() else { return };
        for _ in 0..200 {
            let w = words(&mut state, 5);
            let key: [u8; 32] = core::array::from_fn(|i| (w[i / 8] >> (8 * (i % 8))) as u8);
            for len in [16, 32] {
                let fast = Key::new(t, &key[..len]);
                // SAFETY: the token proves AES-NI and SSE4.1.
                let slow = unsafe { expand_ni(&key[..len]) };
                assert_eq!(
                    (fast.rk.rk, fast.rk.rounds),
                    (slow.rk, slow.rounds),
                    "key {len}: {key:02x?}"
                );
                let blocks: [u128; 6] = core::array::from_fn(|i| u128::from(w[4]) << i);
                let mut want = blocks.map(u128::to_le_bytes);
                fast.encrypt_blocks(&mut want);
                assert_eq!(fast.encrypt_array(blocks), want.map(u128::from_le_bytes));
            }
        }
    }
}
