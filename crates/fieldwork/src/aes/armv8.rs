//! Target features: `neon,aes` — capability token [`crate::cpu::NeonAes`].
//!
//! AES key expansion and block encryption with the ARMv8 Cryptography
//! Extension (`AESE`, `AESMC`), and AES-GCM-SIV's counter mode on it.
//!
//! # Math and source
//!
//! `AESE(s, k)` is `ShiftRows(SubBytes(s ⊕ k))` and `AESMC` is
//! `MixColumns` (Arm ARM, "AESE"), so FIPS 197 §5.1's round `r` is
//! `AESMC(AESE(s, rk[r − 1]))` with the round key added one round late:
//! `Nr − 1` fused `AESE`+`AESMC` pairs, a last `AESE` with `rk[Nr − 1]`,
//! and an `EOR` with `rk[Nr]`.
//!
//! Key expansion is FIPS 197 §5.2 word by word for the three key sizes;
//! `SubWord(w)` is `AESE` of `w` in all four columns with a zero key
//! (ShiftRows permutes equal columns), `RotWord` a rotation of the
//! little-endian word, `Rcon` a constant: no table, no secret-dependent
//! branch or address.
//!
//! # Representation
//!
//! Round keys are the shared [`RoundKeys`] (AES byte order, read
//! little-endian), so the AES-GCM kernels on this backend read them as
//! they are.
//!
//! # Operation count
//!
//! Per block: `Nr − 1` `AESE`+`AESMC` pairs (fused on Cortex-A and
//! Neoverse cores), one `AESE`, one `EOR`; eight blocks interleaved to
//! cover the pair's latency (≈ 2–4 cycles). Counter mode adds per block
//! one counter addition, one load, one `EOR`, one store.
//!
//! # Rejected
//!
//! - Four words at a time for AES-128/256 (as `aes/aesni.rs`): the word
//!   loop's `AESE` chain is the same length; keys are expanded once per
//!   key except in AES-GCM-SIV, where the chain is not the cost.
// Indexing is bounded by construction: round-key indices are below the
// round count (10, 12, 14) of the 15-entry schedule; block indices below
// the chunk's.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::{Backend, RoundKeys};
use crate::cpu::NeonAes;
use core::arch::aarch64::{
    uint8x16_t, vaddq_u32, vaeseq_u8, vaesmcq_u8, vdupq_n_u8, vdupq_n_u32, veorq_u8,
    vgetq_lane_u32, vld1q_u8, vreinterpretq_u8_u32, vreinterpretq_u32_u8, vsetq_lane_u32, vst1q_u8,
};
use zeroize::Zeroize;

/// `u128` (AES byte order, little-endian) → register.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn to_v(x: u128) -> uint8x16_t {
    // SAFETY: 16 readable bytes.
    unsafe { vld1q_u8(x.to_le_bytes().as_ptr()) }
}

/// Register → `u128`.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn from_v(v: uint8x16_t) -> u128 {
    let mut b = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) };
    u128::from_le_bytes(b)
}

/// The round keys in registers (the first `Nr + 1` used).
#[derive(Clone, Copy)]
pub(crate) struct Keys {
    pub(crate) k: [uint8x16_t; 15],
}

impl Keys {
    /// `rk` in registers.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(crate) fn load(rk: &RoundKeys) -> Keys {
        let mut k = [vdupq_n_u8(0); 15];
        for (d, s) in k.iter_mut().zip(rk.rk.iter()) {
            *d = to_v(*s);
        }
        Keys { k }
    }
}

/// The `NR` rounds of `N` blocks, interleaved round by round.
/// `#[inline(always)]` (so without target features of its own): as an
/// `#[inline]` function with them, LLVM left AES-128's instance out of
/// the AES-GCM loop, a call per iteration with the states spilled.
///
/// # Safety
/// Only from functions compiled with `neon,aes`.
// The intrinsics are not inlined into this function, which lacks `aes`,
// but are once it is inlined into its callers, which have it (objdump:
// the AES-GCM loop is `AESE`/`AESMC` with no call).
#[allow(inline_always_mismatching_target_features)]
#[inline(always)]
pub(crate) unsafe fn rounds<const NR: usize, const N: usize>(
    k: &Keys,
    mut x: [uint8x16_t; N],
) -> [uint8x16_t; N] {
    // SAFETY: the caller is compiled with NEON and AES.
    unsafe {
        for r in 0..NR - 1 {
            for xi in &mut x {
                *xi = vaesmcq_u8(vaeseq_u8(*xi, k.k[r]));
            }
        }
        for xi in &mut x {
            *xi = veorq_u8(vaeseq_u8(*xi, k.k[NR - 1]), k.k[NR]);
        }
    }
    x
}

/// One block (rounds chosen at run time: for key setup and single blocks).
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn encrypt1(k: &Keys, nr: usize, x: uint8x16_t) -> uint8x16_t {
    let mut x = x;
    for r in 0..nr - 1 {
        x = vaesmcq_u8(vaeseq_u8(x, k.k[r]));
    }
    veorq_u8(vaeseq_u8(x, k.k[nr - 1]), k.k[nr])
}

/// `SubWord(w)`: `AESE` with a zero key of `w` in all four columns.
#[inline]
#[target_feature(enable = "neon,aes")]
fn sub_word(w: u32) -> u32 {
    let s = vaeseq_u8(vreinterpretq_u8_u32(vdupq_n_u32(w)), vdupq_n_u8(0));
    vgetq_lane_u32::<0>(vreinterpretq_u32_u8(s))
}

/// FIPS 197 §5.2's `KeyExpansion` of `key` (16, 24 or 32 bytes; any other
/// length is read as a zero-padded 32-byte key).
#[target_feature(enable = "neon,aes")]
fn expand(key: &[u8]) -> RoundKeys {
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

#[target_feature(enable = "neon,aes")]
fn encrypt_array_nr<const N: usize>(rk: &RoundKeys, blocks: [u128; N]) -> [u128; N] {
    let k = Keys::load(rk);
    let mut out = [0u128; N];
    for (o, b) in out.iter_mut().zip(blocks) {
        *o = from_v(encrypt1(&k, rk.rounds, to_v(b)));
    }
    out
}

#[target_feature(enable = "neon,aes")]
fn encrypt_blocks_nr<const NR: usize>(rk: &RoundKeys, blocks: &mut [[u8; 16]]) {
    let k = Keys::load(rk);
    let mut chunks = blocks.chunks_exact_mut(8);
    for chunk in &mut chunks {
        let mut x = [vdupq_n_u8(0); 8];
        for (xi, b) in x.iter_mut().zip(chunk.iter()) {
            // SAFETY: `b` is 16 readable bytes.
            *xi = unsafe { vld1q_u8(b.as_ptr()) };
        }
        // SAFETY: this function is compiled with NEON and AES.
        let x = unsafe { rounds::<NR, 8>(&k, x) };
        for (xi, b) in x.iter().zip(chunk.iter_mut()) {
            // SAFETY: `b` is 16 writable bytes.
            unsafe { vst1q_u8(b.as_mut_ptr(), *xi) };
        }
    }
    for b in chunks.into_remainder() {
        // SAFETY: `b` is 16 readable and writable bytes.
        unsafe { vst1q_u8(b.as_mut_ptr(), encrypt1(&k, NR, vld1q_u8(b.as_ptr()))) };
    }
}

/// XORs `data` with AES-GCM-SIV's key stream from `ctr` (RFC 8452 §4: the
/// counter block read little-endian, its low 32-bit word incremented
/// modulo 2^32): eight blocks at a time, the counter added in lane 0 of a
/// 32-bit vector (`ADD`), a partial last block through a wiped buffer.
pub(crate) fn ctr32le_xor(t: NeonAes, rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves NEON and AES.
    unsafe { crate::aes::with_rounds!(rk.rounds, NR => ctr_nr::<NR>(rk, ctr, data)) }
}

#[target_feature(enable = "neon,aes")]
fn ctr_nr<const NR: usize>(rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    let k = Keys::load(rk);
    let mut c = vreinterpretq_u32_u8(to_v(ctr));
    let one = vsetq_lane_u32::<0>(1, vdupq_n_u32(0));
    let mut chunks = data.chunks_exact_mut(128);
    for chunk in &mut chunks {
        let mut x = [vdupq_n_u8(0); 8];
        for xi in &mut x {
            *xi = vreinterpretq_u8_u32(c);
            c = vaddq_u32(c, one);
        }
        // SAFETY: this function is compiled with NEON and AES.
        let x = unsafe { rounds::<NR, 8>(&k, x) };
        for (j, xi) in x.iter().enumerate() {
            let d = &mut chunk[16 * j..16 * j + 16];
            // SAFETY: `d` is 16 readable and writable bytes.
            unsafe { vst1q_u8(d.as_mut_ptr(), veorq_u8(vld1q_u8(d.as_ptr()), *xi)) };
        }
    }
    for part in chunks.into_remainder().chunks_mut(16) {
        let ks = encrypt1(&k, NR, vreinterpretq_u8_u32(c));
        c = vaddq_u32(c, one);
        let mut b = [0u8; 16];
        b[..part.len()].copy_from_slice(part);
        // SAFETY: 16 readable and writable bytes.
        unsafe { vst1q_u8(b.as_mut_ptr(), veorq_u8(vld1q_u8(b.as_ptr()), ks)) };
        part.copy_from_slice(&b[..part.len()]);
        crate::wipe::wipe(&mut b);
    }
}

/// The backend ([`Backend`], name `aes-armv8`): the token and the round
/// keys.
#[derive(Clone)]
pub(crate) struct Key {
    pub(crate) t: NeonAes,
    pub(crate) rk: RoundKeys,
}

impl Backend for Key {
    type Token = NeonAes;
    const NAME: &'static str = "aes-armv8";

    fn new(t: NeonAes, key: &[u8]) -> Key {
        // SAFETY: the token proves NEON and AES.
        let rk = unsafe { expand(key) };
        Key { t, rk }
    }

    fn encrypt_array<const N: usize>(&self, blocks: [u128; N]) -> [u128; N] {
        // SAFETY: the token in `self.t` proves NEON and AES.
        unsafe { encrypt_array_nr(&self.rk, blocks) }
    }

    fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
        // SAFETY: the token in `self.t` proves NEON and AES.
        unsafe {
            crate::aes::with_rounds!(self.rk.rounds, NR => encrypt_blocks_nr::<NR>(&self.rk, blocks))
        }
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

    /// The counter kernel against the generic loop over this backend's
    /// blocks, at every length to 300 bytes and across a counter wrap.
    #[test]
    fn ctr_matches_the_generic_loop() {
        let Some(t) = NeonAes::get() else { return };
        for klen in [16, 24, 32] {
            let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5a);
            let k = Key::new(t, &key[..klen]);
            for ctr in [
                0x1234_5678_9abc_def0_0000_0000_0000_0001u128,
                0xabcd_ffff_fffd,
            ] {
                for len in 0..=300 {
                    let mut a: alloc::vec::Vec<u8> = (0..len).map(|i| i as u8).collect();
                    let mut b = a.clone();
                    ctr32le_xor(t, &k.rk, ctr, &mut a);
                    super::super::ctr32le_xor(&k, ctr, &mut b);
                    assert_eq!(a, b, "key {klen}, {len} bytes");
                }
            }
        }
    }
}
