//! Target features: `neon,aes` (AESE/AESMC, PMULL/PMULL2) — capability
//! token [`crate::cpu::NeonAes`], backend `aes-pmull`.
//!
//! The stitched AES-GCM kernel on AArch64: everything after `J0` — GHASH
//! of the associated data, counter-mode AES and GHASH of the ciphertext in
//! one loop, the lengths block and the tag.
//!
//! # The algorithm, in brief
//!
//! 8 blocks per iteration (128 bytes): eight independent AES states
//! (`AESE`+`AESMC` pairs, fused on Cortex-A and Neoverse cores, 2–3
//! cycles of latency) and, in the same basic block, the aggregated GHASH
//! of eight ciphertext blocks with one reduction (the `pmull` GHASH
//! backend's group, [`crate::ghash::pmull`]: Karatsuba products, GHASH's
//! blocks byte-reversed by `REV64` alone against half-swapped powers).
//! Encryption hashes the previous iteration's ciphertext (reloaded from
//! the buffer, in L1) while it encrypts the next counters; decryption
//! hashes the ciphertext it is about to decrypt. The two chains are
//! independent, so the core's scheduler (and LLVM's) overlaps the `PMULL`s
//! with the AES rounds, which use other pipes on Neoverse cores.
//!
//! A message of at most [`SHORT_MAX_TEXT_BLOCKS`] (7) text blocks skips
//! the loop: one kernel call (`finish`) runs `J0` and the text's counter
//! blocks through AES in one interleaved call of 1, 2, 4 or 8 blocks (by
//! the public length) and hashes the associated data (when
//! `blocks(A) + blocks(C) + 1 ≤ 8`, else it is hashed first by the `pmull`
//! GHASH kernel), the ciphertext and the lengths block as one aggregated
//! group with one reduction; the tag is formed in registers. Longer
//! messages run the loop, its tail, then the lengths block and the tag
//! block as calls of their own (the tuning table's crossover,
//! `gcm/tuning.rs`).
//!
//! # Representation and bounds
//!
//! - The counter block is kept byte-swapped within each 32-bit word
//!   (`REV32`), so `inc32` is one 32-bit `ADD` of `(0, 0, 0, 1)` (modulo
//!   2^32, as SP 800-38D requires) and each counter block one `REV32`.
//! - The key holds `H^1 … H^8` in POLYVAL's domain (`ghash::gcm_key`).
//! - The loop's last `n < 8` blocks (a partial last block included) go
//!   through a zeroed 128-byte stack buffer, wiped afterwards; keystream
//!   bytes past the end are cleared before the ciphertext is hashed.
//! - A short message goes through a zeroed 272-byte stack buffer — the
//!   grouped associated data
//!   right-aligned before byte 128, the text from byte 128, the lengths
//!   block after it — whose text half is wiped afterwards; keystream bytes
//!   past the end are cleared before the ciphertext is hashed.
//!
//! # Operation count (per 8 blocks, AES-128)
//!
//! 72 `AESE`+`AESMC` pairs and 8 `AESE` (160 AES instructions), 8 `EOR`
//! with the last round key, 8 `ADD` and 8 `REV32` for the counters, 4 `LD1`
//! and 2 `ST1` (four registers each), 8 `EOR` with the text; GHASH as in
//! [`crate::ghash::pmull`] (26 `PMULL`, 8 `REV64`, ≈ 40 others). The
//! compiled loop's count is in `docs/notes/gcm.md`.
//!
//! # Rejected (for now)
//!
//! - 12-block iterations (the newest OpenSSL/aws-lc kernels): the round
//!   keys (up to 15), 12 states and the GHASH powers exceed 32 registers
//!   for AES-256; to try with llvm-mca on the 8-block loop as baseline.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// round-key indices are below the const round count; data offsets step by
// whole groups below `buf.len()` rounded down.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::tuning::ARMV8_SHORT_MAX_TEXT_BLOCKS as SHORT_MAX_TEXT_BLOCKS;
use super::{Backend, Direction, GcmTuning};
use crate::aes::armv8::{Keys, rounds};
use crate::aes::{self, armv8::Key as AesKey};
use crate::cpu::NeonAes;
use crate::ghash;
use crate::ghash::pmull::neon::{V, from_v, group8, half_sums, load8, power, tail, to_v};
use core::arch::aarch64::{
    vaddq_u32, vdupq_n_u8, vdupq_n_u32, veorq_u8, vextq_u8, vld1q_u8, vld1q_u8_x4,
    vreinterpretq_u8_u32, vreinterpretq_u32_u8, vrev32q_u8, vrev64q_u8, vsetq_lane_u32, vst1q_u8,
    vst1q_u8_x4,
};
use zeroize::Zeroize;

/// The backend's key ([`Backend`], `aes-pmull`): the AES round keys and
/// the GHASH powers `H^1 … H^8` (POLYVAL's domain), wiped on drop.
#[derive(Clone)]
pub(super) struct Key {
    aes: AesKey,
    powers: [u128; 8],
}

impl Drop for Key {
    fn drop(&mut self) {
        self.powers.zeroize();
    }
}

impl Backend for Key {
    type Token = NeonAes;
    const NAME: &'static str = "aes-pmull";

    fn new(t: NeonAes, key: &[u8], _: GcmTuning) -> Key {
        let aes: AesKey = aes::Backend::new(t, key);
        let [h] = aes::Backend::encrypt_array(&aes, [0u128]);
        let mut powers = [0u128; 8];
        powers[0] = ghash::gcm_key(&h.to_le_bytes());
        ghash::gcm_powers_pmull(t, &mut powers);
        let mut h = h;
        h.zeroize();
        Key { aes, powers }
    }

    fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        ghash::gcm_update_pmull(self.aes.t, &self.powers, acc, data)
    }

    fn seal(&self, dir: Direction, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let rk = &self.aes.rk;
        let p = &self.powers;
        let enc = dir == Direction::Encrypt;
        let lengths = (u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8);
        let text_blocks = buf.len().div_ceil(16);
        if text_blocks <= SHORT_MAX_TEXT_BLOCKS {
            // The associated data joins the group when the group (with
            // the lengths block) stays within the eight powers; else it
            // is hashed first.
            let (acc, grouped) = if aad.len().div_ceil(16) + text_blocks < 8 {
                (0, aad)
            } else {
                (self.ghash_padded(0, aad), &aad[..0])
            };
            // SAFETY (each arm): the token in `self.aes` proves NEON, AES
            // and PMULL.
            return unsafe {
                match (rk.rounds, enc) {
                    (10, true) => finish::<10, true>(rk, p, j0, acc, grouped, lengths, buf),
                    (10, false) => finish::<10, false>(rk, p, j0, acc, grouped, lengths, buf),
                    (12, true) => finish::<12, true>(rk, p, j0, acc, grouped, lengths, buf),
                    (12, false) => finish::<12, false>(rk, p, j0, acc, grouped, lengths, buf),
                    (_, true) => finish::<14, true>(rk, p, j0, acc, grouped, lengths, buf),
                    (_, false) => finish::<14, false>(rk, p, j0, acc, grouped, lengths, buf),
                }
            };
        }
        // Longer messages: the loop and its tail, then the lengths block
        // and the tag block (with `finish` after the loop instead, 256 B
        // to 16 KiB took 150–800 more instructions: `docs/notes/gcm.md`).
        let acc = self.ghash_padded(0, aad);
        // SAFETY: the token in `self.aes` proves NEON, AES and PMULL.
        let acc = unsafe {
            match (rk.rounds, enc) {
                (10, true) => crypt::<10, true>(rk, p, j0, acc, buf),
                (10, false) => crypt::<10, false>(rk, p, j0, acc, buf),
                (12, true) => crypt::<12, true>(rk, p, j0, acc, buf),
                (12, false) => crypt::<12, false>(rk, p, j0, acc, buf),
                (_, true) => crypt::<14, true>(rk, p, j0, acc, buf),
                (_, false) => crypt::<14, false>(rk, p, j0, acc, buf),
            }
        };
        let s = self.ghash_padded(acc, &lengths.to_be_bytes());
        let [mut t] = aes::Backend::encrypt_array(&self.aes, [u128::from_le_bytes(*j0)]);
        let tag = (s.swap_bytes() ^ t).to_le_bytes();
        t.zeroize();
        tag
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.aes.secret_spans(s);
        s.secret("GHASH powers", &self.powers);
    }
}

/// The GHASH registers: `h[j]` = `H^(8−j)` half-swapped, `hx` their pairs'
/// half-sums, `c` the reduction constant.
struct Ghash {
    h: [V; 8],
    hx: [V; 4],
    c: V,
}

impl Ghash {
    /// The powers, read from the stack in each iteration (volatile loads,
    /// so that LLVM does not keep them in registers: with them held, the
    /// decryption loop spilled the counter block and the round keys,
    /// which cost more instructions than these loads — AES-128 318 → 300
    /// per 8 blocks; the encryption loop got longer with them, 300 → 308,
    /// and keeps them in registers).
    #[inline(always)]
    fn h(&self) -> [V; 8] {
        let mut h = self.h;
        for (d, s) in h.iter_mut().zip(&self.h) {
            // SAFETY: a valid, aligned `V`.
            *d = unsafe { core::ptr::read_volatile(s) };
        }
        h
    }

    /// The half-sums, as [`Ghash::h`].
    #[inline(always)]
    fn hx(&self) -> [V; 4] {
        let mut h = self.hx;
        for (d, s) in h.iter_mut().zip(&self.hx) {
            // SAFETY: a valid, aligned `V`.
            *d = unsafe { core::ptr::read_volatile(s) };
        }
        h
    }
}

/// Counter mode over `buf` from `inc32(j0)` with the GHASH of its
/// ciphertext into `acc` (POLYVAL's domain); returns the accumulator.
#[target_feature(enable = "neon,aes")]
fn crypt<const NR: usize, const ENC: bool>(
    rk: &aes::RoundKeys,
    powers: &[u128; 8],
    j0: &[u8; 16],
    acc: u128,
    buf: &mut [u8],
) -> u128 {
    let keys = Keys::load(rk);
    let z = vdupq_n_u8(0);
    let mut g = Ghash {
        h: [z; 8],
        hx: [z; 4],
        c: crate::ghash::pmull::neon::c(),
    };
    for (j, hj) in g.h.iter_mut().enumerate() {
        *hj = power::<true>(powers, 7 - j);
    }
    for (k, hk) in g.hx.iter_mut().enumerate() {
        *hk = half_sums(g.h[2 * k], g.h[2 * k + 1]);
    }
    let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
    // SAFETY: 16 readable bytes.
    let mut cv = vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(j0.as_ptr()) }));
    cv = vaddq_u32(cv, one);
    let mut acc = to_v(acc);
    let groups = buf.len() / 128;
    let mut counters = || {
        let mut x = [z; 8];
        for xi in &mut x {
            *xi = vrev32q_u8(vreinterpretq_u8_u32(cv));
            cv = vaddq_u32(cv, one);
        }
        x
    };
    if ENC {
        for i in 0..groups {
            let x = counters();
            let (done, rest) = buf.split_at_mut(128 * i);
            // SAFETY: this function is compiled with NEON and AES.
            let ks = unsafe { rounds::<NR, 8>(&keys, x) };
            if i > 0 {
                let y = load8::<true>(&done[128 * (i - 1)..]);
                acc = group8::<true>(y, acc, &g.h, &g.hx, g.c);
            }
            xor8(&mut rest[..128], ks);
        }
        if groups > 0 {
            let y = load8::<true>(&buf[128 * (groups - 1)..]);
            acc = group8::<true>(y, acc, &g.h, &g.hx, g.c);
        }
    } else {
        for chunk in buf.chunks_exact_mut(128) {
            let x = counters();
            let y = load8::<true>(chunk);
            // SAFETY: this function is compiled with NEON and AES.
            let ks = unsafe { rounds::<NR, 8>(&keys, x) };
            acc = group8::<true>(y, acc, &g.h(), &g.hx(), g.c);
            xor8(chunk, ks);
        }
    }
    let rest = &mut buf[128 * groups..];
    if !rest.is_empty() {
        let len = rest.len();
        let n = len.div_ceil(16);
        let mut pad = [0u8; 128];
        pad[..len].copy_from_slice(rest);
        if !ENC {
            acc = tail::<true>(powers, acc, &pad[..16 * n], g.c);
        }
        // As few counter blocks through AES as the tail needs (its length
        // is public): a one-block tail is an eighth of the rounds.
        let x = counters();
        // SAFETY: this function is compiled with NEON and AES.
        let ks = unsafe {
            match n {
                1 => {
                    let [a] = rounds::<NR, 1>(&keys, [x[0]]);
                    [a, z, z, z, z, z, z, z]
                }
                2 => {
                    let [a, b] = rounds::<NR, 2>(&keys, [x[0], x[1]]);
                    [a, b, z, z, z, z, z, z]
                }
                3 | 4 => {
                    let [a, b, c, d] = rounds::<NR, 4>(&keys, [x[0], x[1], x[2], x[3]]);
                    [a, b, c, d, z, z, z, z]
                }
                _ => rounds::<NR, 8>(&keys, x),
            }
        };
        xor8(&mut pad, ks);
        rest.copy_from_slice(&pad[..len]);
        if ENC {
            pad[len..].fill(0);
            acc = tail::<true>(powers, acc, &pad[..16 * n], g.c);
        }
        // One volatile write of the whole pad (`zeroize` would store its
        // 128 bytes one at a time).
        crate::wipe::wipe_bytes(&mut pad);
    }
    from_v(acc)
}

/// A whole short message: counter mode over `rest` (at most
/// [`SHORT_MAX_TEXT_BLOCKS`] = 7 blocks, `n`) from the counter block
/// `J0 + 1`, with `AES(K, J0)` among the counter blocks (one interleaved
/// call of [`rounds`] on 1, 2, 4 or 8 blocks, by the public length), and
/// the GHASH of `aad` (zero-padded), the ciphertext (zero-padded) and the
/// lengths block `lengths` as one aggregated group against `H^m … H^1`
/// with one reduction, `acc` entering its first block. Returns the tag
/// `AES(K, J0) ⊕ S`. The caller keeps `aad` to at most `7 − n` blocks
/// (hashing longer associated data into `acc` first), so `m ≤ 8`.
///
/// The blocks are laid out in a 272-byte stack buffer: the associated
/// data right-aligned to end at byte 128 (on a block boundary), the text
/// from byte 128 (so that [`xor8`] works on a fixed window) and the
/// lengths block after it; the text's 128 bytes are wiped afterwards.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "neon,aes")]
fn finish<const NR: usize, const ENC: bool>(
    rk: &aes::RoundKeys,
    powers: &[u128; 8],
    j0: &[u8; 16],
    acc: u128,
    aad: &[u8],
    lengths: u128,
    rest: &mut [u8],
) -> [u8; 16] {
    let keys = Keys::load(rk);
    let z = vdupq_n_u8(0);
    let c = crate::ghash::pmull::neon::c();
    let len = rest.len();
    let nt = len.div_ceil(16);
    let from = 128 - 16 * aad.len().div_ceil(16);
    let end = 128 + 16 * nt;
    debug_assert!(nt <= SHORT_MAX_TEXT_BLOCKS && end + 16 - from <= 128);
    let mut g = [0u8; 272];
    g[from..from + aad.len()].copy_from_slice(aad);
    g[128..128 + len].copy_from_slice(rest);
    // `J0` and the counter blocks `J0 + 1 + i`, `i` = 0 … 7.
    let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
    // SAFETY: 16 readable bytes.
    let y0 = vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(j0.as_ptr()) }));
    let mut cv = vaddq_u32(y0, one);
    let mut x = [z; 8];
    for xi in &mut x {
        *xi = vrev32q_u8(vreinterpretq_u8_u32(cv));
        cv = vaddq_u32(cv, one);
    }
    let y0 = vrev32q_u8(vreinterpretq_u8_u32(y0));
    // `e` = AES(K, J0), `k` the text's keystream.
    // SAFETY: this function is compiled with NEON and AES.
    let (e, k) = unsafe {
        match nt {
            0 => {
                let [a] = rounds::<NR, 1>(&keys, [y0]);
                (a, [z; 8])
            }
            1 => {
                let [a, b] = rounds::<NR, 2>(&keys, [y0, x[0]]);
                (a, [b, z, z, z, z, z, z, z])
            }
            2 | 3 => {
                let [a, b, c, d] = rounds::<NR, 4>(&keys, [y0, x[0], x[1], x[2]]);
                (a, [b, c, d, z, z, z, z, z])
            }
            // 4 to 7 (the caller's bound).
            _ => {
                let [a, b, c, d, e, f, g, h] =
                    rounds::<NR, 8>(&keys, [y0, x[0], x[1], x[2], x[3], x[4], x[5], x[6]]);
                (a, [b, c, d, e, f, g, h, z])
            }
        }
    };
    let mut acc = to_v(acc);
    if !ENC {
        g[end..end + 16].copy_from_slice(&lengths.to_be_bytes());
        acc = tail::<true>(powers, acc, &g[from..end + 16], c);
    }
    xor8(&mut g[128..256], k);
    rest.copy_from_slice(&g[128..128 + len]);
    if ENC {
        g[128 + len..end].fill(0);
        g[end..end + 16].copy_from_slice(&lengths.to_be_bytes());
        acc = tail::<true>(powers, acc, &g[from..end + 16], c);
    }
    if let Some(t) = g.first_chunk_mut::<256>() {
        if let Some(t) = t.last_chunk_mut::<128>() {
            crate::wipe::wipe_bytes(t);
        }
    }
    // `S` byte-reversed (`u128::swap_bytes` of `from_v(acc)`) ⊕ `AES(K, J0)`.
    let r = vrev64q_u8(acc);
    let mut tag = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(tag.as_mut_ptr(), veorq_u8(vextq_u8::<8>(r, r), e)) };
    tag
}

/// `d[..128] ^= ks` by two four-register loads and stores.
#[inline]
#[target_feature(enable = "neon,aes")]
fn xor8(d: &mut [u8], ks: [V; 8]) {
    let d = &mut d[..128];
    let p = d.as_mut_ptr();
    // SAFETY: `d` is 128 readable and writable bytes.
    unsafe {
        let a = vld1q_u8_x4(p);
        let b = vld1q_u8_x4(p.add(64));
        let a = core::arch::aarch64::uint8x16x4_t(
            veorq_u8(a.0, ks[0]),
            veorq_u8(a.1, ks[1]),
            veorq_u8(a.2, ks[2]),
            veorq_u8(a.3, ks[3]),
        );
        let b = core::arch::aarch64::uint8x16x4_t(
            veorq_u8(b.0, ks[4]),
            veorq_u8(b.1, ks[5]),
            veorq_u8(b.2, ks[6]),
            veorq_u8(b.3, ks[7]),
        );
        vst1q_u8_x4(p, a);
        vst1q_u8_x4(p.add(64), b);
    }
}
