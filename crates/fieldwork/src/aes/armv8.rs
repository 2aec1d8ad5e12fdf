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
//! Key expansion is FIPS 197 §5.2, four words at a time in registers for
//! AES-128 and AES-256 (each round key is the prefix XOR of the previous
//! one's words — two `EXT`s with zero and two `EOR`s — XORed with
//! `SubWord(RotWord(w₃)) ⊕ Rcon` in every column: a `TBL` that rotates
//! and broadcasts word 3, `AESE` with a zero key, which is `SubBytes`
//! alone on equal columns, an `EOR`; AES-256's odd keys `DUP` word 3
//! instead, no rotation, no `Rcon`; the idea of OpenSSL's
//! `aes_v8_set_encrypt_key`), word by word for AES-192 (`SubWord` by the
//! same `AESE` of a broadcast word): no table, no secret-dependent branch
//! or address. AES-GCM-SIV expands a key per message in registers
//! ([`expand128`], [`expand256`]: 10 or 13 steps of 7–8 instructions).
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
//! one counter addition, one load, one `EOR`, one store; its last `n ≤ 8`
//! blocks run as one interleaved call of exactly `n` blocks, a partial
//! last block by overlapping 8/4-byte loads and stores, no buffer.
//!
//! # Rejected
//!
//! - The word loop for AES-128/256 (it stays for AES-192): about 80
//!   instructions per round key with the packing into `u128`s against 7–8
//!   in registers (history in `docs/notes/aarch64.md`).
// Indexing is bounded by construction: round-key indices are below the
// round count (10, 12, 14) of the 15-entry schedule; block indices below
// the chunk's.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::{Backend, RoundKeys};
use crate::cpu::NeonAes;
use core::arch::aarch64::{
    uint8x16_t, vaddq_u32, vaeseq_u8, vaesmcq_u8, vcgtq_u8, vcombine_u64, vcreate_u64,
    vdupq_laneq_u32, vdupq_n_u8, vdupq_n_u32, veorq_u8, vextq_u8, vgetq_lane_u32, vgetq_lane_u64,
    vld1q_u8, vqtbl1q_u8, vreinterpretq_u8_u32, vreinterpretq_u8_u64, vreinterpretq_u32_u8,
    vreinterpretq_u64_u8, vsetq_lane_u32, vst1q_u8,
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

/// FIPS 197's `Rcon[i]` (in the low byte of the word) for the ten
/// AES-128 round keys (the first seven serve AES-256).
const RCON: [u32; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// `TBL` indices: word 3 rotated (`RotWord`: bytes 13, 14, 15, 12) in all
/// four columns.
const ROT_SPLAT3: [u8; 16] = [
    13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12,
];

/// `(w₀, w₀ ⊕ w₁, w₀ ⊕ w₁ ⊕ w₂, w₀ ⊕ … ⊕ w₃)` of the words of `p`: two
/// `EXT`s with zero (one word, then two) and two `EOR`s.
#[inline]
#[target_feature(enable = "neon,aes")]
fn prefix_xor(p: uint8x16_t) -> uint8x16_t {
    let z = vdupq_n_u8(0);
    let s = veorq_u8(p, vextq_u8::<12>(z, p));
    veorq_u8(s, vextq_u8::<8>(z, s))
}

/// `SubWord` of `t`'s columns (all equal: ShiftRows moves nothing):
/// `AESE` with a zero key.
#[inline]
#[target_feature(enable = "neon,aes")]
fn sub_columns(t: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(t, vdupq_n_u8(0))
}

/// The round key after `p` (FIPS 197 §5.2, four words at once) whose
/// `SubWord(RotWord(·)) ⊕ Rcon` input is word 3 of `w` (`w` = `p` for
/// AES-128, the other half-key for AES-256): `TBL` (`RotWord` of word 3
/// in every column), `AESE`, `EOR` with `rcon` in every column, the
/// prefix XOR of `p`'s words, `EOR`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn next_rot(p: uint8x16_t, w: uint8x16_t, rcon: u32) -> uint8x16_t {
    // SAFETY: 16 readable bytes.
    let idx = unsafe { vld1q_u8(ROT_SPLAT3.as_ptr()) };
    let t = veorq_u8(
        sub_columns(vqtbl1q_u8(w, idx)),
        vreinterpretq_u8_u32(vdupq_n_u32(rcon)),
    );
    veorq_u8(prefix_xor(p), t)
}

/// AES-256's odd round keys: the key after `p` whose `SubWord(·)` input
/// is word 3 of `w` (no rotation, no `Rcon`): `DUP`, `AESE`, the prefix
/// XOR, `EOR`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn next_sub(p: uint8x16_t, w: uint8x16_t) -> uint8x16_t {
    let t = sub_columns(vreinterpretq_u8_u32(vdupq_laneq_u32::<3>(
        vreinterpretq_u32_u8(w),
    )));
    veorq_u8(prefix_xor(p), t)
}

/// AES-128's eleven round keys from the key `k0` (in a register), all in
/// registers: ten steps of [`next_rot`] (8 instructions each and a
/// `MOVI` for `Rcon`), no memory but the `TBL` indices. `k[11..]` are
/// zero.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn expand128(k0: uint8x16_t) -> Keys {
    // Straight-line (as a loop LLVM kept the loop, the keys in memory).
    let k1 = next_rot(k0, k0, RCON[0]);
    let k2 = next_rot(k1, k1, RCON[1]);
    let k3 = next_rot(k2, k2, RCON[2]);
    let k4 = next_rot(k3, k3, RCON[3]);
    let k5 = next_rot(k4, k4, RCON[4]);
    let k6 = next_rot(k5, k5, RCON[5]);
    let k7 = next_rot(k6, k6, RCON[6]);
    let k8 = next_rot(k7, k7, RCON[7]);
    let k9 = next_rot(k8, k8, RCON[8]);
    let k10 = next_rot(k9, k9, RCON[9]);
    let z = vdupq_n_u8(0);
    Keys {
        k: [k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, z, z, z, z],
    }
}

/// AES-256's next two round keys after `a`, `b`: [`next_rot`] (with
/// `rcon`), then [`next_sub`].
#[inline]
#[target_feature(enable = "neon,aes")]
fn next_pair(a: uint8x16_t, b: uint8x16_t, rcon: u32) -> (uint8x16_t, uint8x16_t) {
    let c = next_rot(a, b, rcon);
    (c, next_sub(b, c))
}

/// AES-256's fifteen round keys from the key's halves `k0`, `k1` (in
/// registers): seven [`next_rot`] steps for the even keys and six
/// [`next_sub`] steps for the odd ones.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn expand256(k0: uint8x16_t, k1: uint8x16_t) -> Keys {
    let (k2, k3) = next_pair(k0, k1, RCON[0]);
    let (k4, k5) = next_pair(k2, k3, RCON[1]);
    let (k6, k7) = next_pair(k4, k5, RCON[2]);
    let (k8, k9) = next_pair(k6, k7, RCON[3]);
    let (k10, k11) = next_pair(k8, k9, RCON[4]);
    let (k12, k13) = next_pair(k10, k11, RCON[5]);
    let k14 = next_rot(k12, k13, RCON[6]);
    Keys {
        k: [
            k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14,
        ],
    }
}

/// FIPS 197 §5.2's `KeyExpansion` of `key` (16, 24 or 32 bytes; any other
/// length is read as a zero-padded 32-byte key): AES-128 and AES-256 four
/// words at a time in registers ([`expand128`], [`expand256`]), AES-192
/// word by word.
#[target_feature(enable = "neon,aes")]
fn expand(key: &[u8]) -> RoundKeys {
    let mut kb = [0u8; 32];
    for (d, s) in kb.iter_mut().zip(key) {
        *d = *s;
    }
    // SAFETY: 32 readable bytes.
    let (k0, k1) = unsafe { (vld1q_u8(kb.as_ptr()), vld1q_u8(kb.as_ptr().add(16))) };
    crate::wipe::wipe(&mut kb);
    let (keys, rounds) = match key.len() {
        16 => (expand128(k0), 10),
        24 => return expand_words(key, 6),
        _ => (expand256(k0, k1), 14),
    };
    let mut rk = [0u128; 15];
    for (d, s) in rk.iter_mut().zip(keys.k.iter()).take(rounds + 1) {
        *d = from_v(*s);
    }
    RoundKeys { rk, rounds }
}

/// FIPS 197 §5.2's `KeyExpansion` word by word (AES-192: `nk` = 6).
#[target_feature(enable = "neon,aes")]
fn expand_words(key: &[u8], nk: usize) -> RoundKeys {
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

/// `N` blocks through `NR` rounds, interleaved ([`rounds`]).
#[target_feature(enable = "neon,aes")]
fn encrypt_array_nr<const NR: usize, const N: usize>(
    rk: &RoundKeys,
    blocks: [u128; N],
) -> [u128; N] {
    let k = Keys::load(rk);
    let mut x = [vdupq_n_u8(0); N];
    for (xi, b) in x.iter_mut().zip(blocks) {
        *xi = to_v(b);
    }
    // SAFETY: this function is compiled with NEON and AES.
    let x = unsafe { rounds::<NR, N>(&k, x) };
    let mut out = [0u128; N];
    for (o, xi) in out.iter_mut().zip(x) {
        *o = from_v(xi);
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

/// The bytes of `s` (1 to 15 of them), zero-padded to a block: two
/// overlapping 8-byte loads (from 8 bytes), two 4-byte loads (from 4) or
/// three single bytes, chosen by the public length.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn load_partial(s: &[u8]) -> uint8x16_t {
    let n = s.len();
    let (lo, hi) = if n >= 8 {
        // Bytes 8 … n − 1 are the top n − 8 bytes of the last eight.
        (le64(s), le64(&s[n - 8..]) >> (8 * (15 - n)) >> 8)
    } else if n >= 4 {
        let lo = u64::from(le32(s));
        (lo | u64::from(le32(&s[n - 4..])) >> (8 * (8 - n)) << 32, 0)
    } else {
        let (a, b, c) = (s[0], s[n / 2], s[n - 1]);
        let lo = u64::from(a) | u64::from(b) << (8 * (n / 2)) | u64::from(c) << (8 * (n - 1));
        (lo, 0)
    };
    vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))
}

/// `d` (1 to 15 bytes) ← the first `d.len()` bytes of `v`: two overlapping
/// 8- or 4-byte stores, or three single bytes, by the public length.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn store_partial(d: &mut [u8], v: uint8x16_t) {
    let n = d.len();
    let w = vreinterpretq_u64_u8(v);
    let (lo, hi) = (vgetq_lane_u64::<0>(w), vgetq_lane_u64::<1>(w));
    if n >= 8 {
        // Bytes n − 8 … n − 1: `lo` from byte n − 8, `hi` after it.
        let sh = 8 * (n - 8);
        let last = (lo >> sh) | (hi << 1 << (63 - sh));
        d[..8].copy_from_slice(&lo.to_le_bytes());
        d[n - 8..].copy_from_slice(&last.to_le_bytes());
    } else if n >= 4 {
        d[..4].copy_from_slice(&(lo as u32).to_le_bytes());
        d[n - 4..].copy_from_slice(&((lo >> (8 * (n - 4))) as u32).to_le_bytes());
    } else {
        d[0] = lo as u8;
        d[n / 2] = (lo >> (8 * (n / 2))) as u8;
        d[n - 1] = (lo >> (8 * (n - 1))) as u8;
    }
}

/// A mask of the first `r` bytes of a block (`CMHI` against `0, 1, …, 15`).
#[inline]
#[target_feature(enable = "neon,aes")]
pub(crate) fn below(r: usize) -> uint8x16_t {
    const IOTA: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
    // SAFETY: 16 readable bytes.
    let iota = unsafe { vld1q_u8(IOTA.as_ptr()) };
    vcgtq_u8(vdupq_n_u8(r as u8), iota)
}

/// The first 8 bytes of `s`, little-endian.
#[inline(always)]
pub(crate) fn le64(s: &[u8]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&s[..8]);
    u64::from_le_bytes(b)
}

/// The first 4 bytes of `s`, little-endian.
#[inline(always)]
pub(crate) fn le32(s: &[u8]) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&s[..4]);
    u32::from_le_bytes(b)
}

/// XORs `data` with AES-GCM-SIV's key stream from `ctr` (RFC 8452 §4: the
/// counter block read little-endian, its low 32-bit word incremented
/// modulo 2^32): [`ctr_keys`] on the round keys loaded into registers.
pub(crate) fn ctr32le_xor(t: NeonAes, rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves NEON and AES.
    unsafe { crate::aes::with_rounds!(rk.rounds, NR => ctr_nr::<NR>(rk, ctr, data)) }
}

#[target_feature(enable = "neon,aes")]
fn ctr_nr<const NR: usize>(rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    let k = Keys::load(rk);
    // SAFETY: this function is compiled with NEON and AES.
    unsafe { ctr_keys::<NR>(&k, to_v(ctr), data) }
}

/// `data ⊕` AES-GCM-SIV's key stream from the counter block `ctr` under
/// the round keys `k` (in registers): eight blocks at a time, the counter
/// added in lane 0 of a 32-bit vector (`ADD`), then the last `n ≤ 8`
/// blocks (less than 128 bytes) in one interleaved call of exactly `n`
/// blocks ([`ctr_n`]), a partial last block by overlapping loads and
/// stores.
///
/// # Safety
/// Only from functions compiled with `neon,aes`.
#[allow(inline_always_mismatching_target_features)]
#[inline(always)]
pub(crate) unsafe fn ctr_keys<const NR: usize>(k: &Keys, ctr: uint8x16_t, data: &mut [u8]) {
    // SAFETY: the caller is compiled with NEON and AES; each `ctr_n`
    // call's block count is its slice's `len().div_ceil(16)`.
    unsafe {
        let mut c = vreinterpretq_u32_u8(ctr);
        let one = vsetq_lane_u32::<0>(1, vdupq_n_u32(0));
        let mut chunks = data.chunks_exact_mut(128);
        for chunk in &mut chunks {
            let mut x = [vdupq_n_u8(0); 8];
            for xi in &mut x {
                *xi = vreinterpretq_u8_u32(c);
                c = vaddq_u32(c, one);
            }
            let x = rounds::<NR, 8>(k, x);
            for (j, xi) in x.iter().enumerate() {
                let d = &mut chunk[16 * j..16 * j + 16];
                vst1q_u8(d.as_mut_ptr(), veorq_u8(vld1q_u8(d.as_ptr()), *xi));
            }
        }
        let rest = chunks.into_remainder();
        let c = vreinterpretq_u8_u32(c);
        match rest.len().div_ceil(16) {
            0 => {}
            1 => ctr_n::<NR, 1>(k, c, rest),
            2 => ctr_n::<NR, 2>(k, c, rest),
            3 => ctr_n::<NR, 3>(k, c, rest),
            4 => ctr_n::<NR, 4>(k, c, rest),
            5 => ctr_n::<NR, 5>(k, c, rest),
            6 => ctr_n::<NR, 6>(k, c, rest),
            7 => ctr_n::<NR, 7>(k, c, rest),
            // 8: seven whole blocks and a partial one.
            _ => ctr_n::<NR, 8>(k, c, rest),
        }
    }
}

/// [`ctr_keys`]'s last `N` blocks: the counter blocks `ctr + i`, `i < N`,
/// through AES in one interleaved call, XORed into `buf` (a partial last
/// block by [`load_partial`] and [`store_partial`]).
///
/// # Safety
/// Only from functions compiled with `neon,aes`; `buf.len().div_ceil(16)`
/// is `N`.
#[allow(inline_always_mismatching_target_features)]
#[inline(always)]
unsafe fn ctr_n<const NR: usize, const N: usize>(k: &Keys, ctr: uint8x16_t, buf: &mut [u8]) {
    let len = buf.len();
    // SAFETY: the caller's contract.
    unsafe { core::hint::assert_unchecked(N * 16 < len + 16 && len <= N * 16) };
    // SAFETY: the caller is compiled with NEON and AES (every intrinsic
    // below); pointer offsets are below `16 * (N − 1) + 16 ≤ len` for whole
    // blocks.
    unsafe {
        let c = vreinterpretq_u32_u8(ctr);
        let mut x = [ctr; N];
        for (i, xi) in x.iter_mut().enumerate().skip(1) {
            *xi = vreinterpretq_u8_u32(vaddq_u32(c, vsetq_lane_u32::<0>(i as u32, vdupq_n_u32(0))));
        }
        let ks = rounds::<NR, N>(k, x);
        let p = buf.as_mut_ptr();
        for (j, ksj) in ks.iter().enumerate() {
            if len - 16 * j >= 16 {
                vst1q_u8(p.add(16 * j), veorq_u8(vld1q_u8(p.add(16 * j)), *ksj));
            } else {
                let d = &mut buf[16 * j..];
                store_partial(d, veorq_u8(load_partial(d), *ksj));
            }
        }
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
        unsafe {
            crate::aes::with_rounds!(self.rk.rounds, NR => encrypt_array_nr::<NR, N>(&self.rk, blocks))
        }
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

    /// The four-words-at-a-time expansions against FIPS 197's word loop
    /// (and FIPS 197 appendix A.1 / A.3's last round keys), for many keys.
    #[test]
    fn register_expansion_matches_the_word_loop() {
        let Some(t) = NeonAes::get() else { return };
        let _ = t;
        for seed in 0..64u8 {
            let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(seed | 1) ^ seed);
            for (klen, nk) in [(16, 4), (32, 8)] {
                // SAFETY: the token proves NEON and AES.
                let (a, b) = unsafe { (expand(&key[..klen]), expand_words(&key[..klen], nk)) };
                assert_eq!(
                    (a.rounds, a.rk),
                    (b.rounds, b.rk),
                    "key {klen}, seed {seed}"
                );
            }
        }
        let a1: [u8; 16] = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        // SAFETY: as above.
        let k = unsafe { expand(&a1) };
        assert_eq!(k.rk[10].to_le_bytes()[..4], [0xd0, 0x14, 0xf9, 0xa8]);
        let a3: [u8; 32] = [
            0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d,
            0x77, 0x81, 0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3,
            0x09, 0x14, 0xdf, 0xf4,
        ];
        // SAFETY: as above.
        let k = unsafe { expand(&a3) };
        assert_eq!(k.rk[14].to_le_bytes()[12..], [0x70, 0x6c, 0x63, 0x1e]);
    }

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
