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
//! A message of at most [`SHORT_MAX_TEXT_BLOCKS`] (16) text blocks skips
//! the loop: one kernel call (`short`) runs `J0` and the text's `t`
//! counter blocks through AES in one interleaved call of exactly `t + 1`
//! blocks (from 9 blocks: the first eight counter blocks, then the rest
//! with `J0`) and hashes the associated data (when `blocks(A) + t + 1 ≤
//! 17`, else it is hashed first), the ciphertext and the lengths block as
//! one aggregated group with one reduction, straight-line code for each
//! `t`; the tag is formed in registers. Longer
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
//! - A short message uses no buffer: whole blocks are loaded and stored
//!   in place, a partial last block by overlapping 8- or 4-byte loads and
//!   stores (or three bytes), by its public length; keystream bytes past
//!   the end are cleared (`CMHI` mask) before the ciphertext is hashed.
//!   The key also holds `H^1 … H^17` half-swapped, each beside its
//!   half-sum, so a block meets both by one 32-byte `LD1`.
//! - The short path's spills (its frame and its callees' are at most 992
//!   bytes deep: round keys, powers of `H`, keystream, text) are wiped:
//!   after `short` returns, `seal` calls [`crate::wipe::wipe_stack_below`],
//!   which zeroes the [`SHORT_STACK`] (1 280) bytes below its own stack
//!   pointer, 62 instructions; the test `stack_wipe` checks that the
//!   kernel writes no deeper and that none of those secrets survives on
//!   the stack, against a control that finds them without the wipe.
//!   Longer messages run out of line (`long_any`: the loop `crypt`, which
//!   keeps the powers on the stack by design, the associated data's and
//!   the lengths' GHASH, the tag block), and `seal` wipes the
//!   [`LONG_STACK`] (1 536) bytes below it afterwards, under the same test.
//!
//! # Operation count (per 8 blocks, AES-128)
//!
//! 72 `AESE`+`AESMC` pairs and 8 `AESE` (160 AES instructions), 8 `EOR`
//! with the last round key, 8 `ADD` and 8 `REV32` for the counters, 4 `LD1`
//! and 2 `ST1` (four registers each), 8 `EOR` with the text; GHASH as in
//! [`crate::ghash::pmull`] (26 `PMULL`, 8 `REV64`, ≈ 40 others). The
//! compiled loop's count is in `docs/notes/gcm.md`.
//!
//! Each loop (encryption's from its second group on, decryption's) is one
//! basic block. Port floor on Neoverse N1 (`AESE`, `AESMC`, `PMULL` all
//! on pipe V0, the `AESE`+`AESMC` fusion not in llvm-mca's model): 8 ×
//! (10 + 9) + 26 = 178 cycles per 8 blocks for AES-128 (22.25 per block),
//! 8 × (14 + 13) + 26 = 242 for AES-256; the llvm-mca estimates of the
//! compiled loops (`scripts/aarch64-mca.py`) are in `docs/notes/gcm.md`.
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
use crate::aes::armv8::{Keys, below, load_partial, rounds, store_partial};
use crate::aes::{self, armv8::Key as AesKey};
use crate::cpu::NeonAes;
use crate::ghash;
use crate::ghash::pmull::neon::{
    Sums, V, c, from_v, group8, half_sums, load8, pmull, pmull2, power, reduce, swap, tail, to_v,
    xor,
};
use core::arch::aarch64::{
    uint32x4_t, vaddq_u32, vandq_u8, vcombine_u64, vcreate_u64, vdupq_n_u8, vdupq_n_u32, veorq_u8,
    vextq_u8, vld1q_u8, vld1q_u8_x2, vld1q_u8_x4, vreinterpretq_u8_u32, vreinterpretq_u8_u64,
    vreinterpretq_u32_u8, vrev32q_u8, vrev64q_u8, vsetq_lane_u32, vst1q_u8, vst1q_u8_x4,
};
use zeroize::Zeroize;

/// The backend's key ([`Backend`], `aes-pmull`): the AES round keys and
/// the GHASH powers `H^1 … H^8` (POLYVAL's domain), wiped on drop.
#[derive(Clone)]
pub(super) struct Key {
    aes: AesKey,
    powers: [u128; 8],
    /// The short path's form of the powers ([`short`]): `hk[i]` is
    /// `H^(i+1)` with its 64-bit halves swapped (to meet GHASH's `REV64`'d
    /// blocks) and its Karatsuba half-sum `h₀ ⊕ h₁` in both lanes, so that
    /// a block meets both by one 32-byte load.
    hk: [[u128; 2]; HK],
}

/// The powers `H^1 … H^HK` of the short path: its text blocks and the
/// lengths block in one group.
const HK: usize = SHORT_MAX_TEXT_BLOCKS + 1;

impl Drop for Key {
    fn drop(&mut self) {
        // Both tables, one `u128` at a time (as `zeroize` writes arrays).
        for x in self.powers.iter_mut().chain(self.hk.as_flattened_mut()) {
            x.zeroize();
        }
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
        // H^9 … H^HK, each the one before times H: the short path's group
        // is its text blocks and the lengths block.
        let mut more = [0u128; HK - 8];
        let mut prev = powers[7];
        for m in more.iter_mut() {
            // SAFETY: the token `t` proves NEON, AES and PMULL.
            prev = unsafe { crate::ghash::pmull::neon::dot_u128(prev, powers[0]) };
            *m = prev;
        }
        let mut hk = [[0u128; 2]; HK];
        for (d, &p) in hk.iter_mut().zip(powers.iter().chain(more.iter())) {
            let x = u128::from(p as u64 ^ (p >> 64) as u64);
            *d = [p.rotate_left(64), x | x << 64];
        }
        more.zeroize();
        let mut h = h;
        h.zeroize();
        Key { aes, powers, hk }
    }

    fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        ghash::gcm_update_pmull(self.aes.t, &self.powers, acc, data)
    }

    fn seal(&self, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let j0 = &j0.to_le_bytes();
        let enc = dir == Direction::Encrypt;
        if buf.len().div_ceil(16) <= SHORT_MAX_TEXT_BLOCKS {
            let tag = short_any(self, enc, j0, aad, buf);
            // The kernel's dead frame (and its callees'): its spills.
            crate::wipe::wipe_stack_below::<SHORT_STACK>();
            return tag;
        }
        let tag = long_any(self, enc, j0, aad, buf);
        // The loop's dead frame: the powers of `H` it keeps there and its
        // spilled round keys.
        crate::wipe::wipe_stack_below::<LONG_STACK>();
        tag
    }
}

/// A message longer than the short path's: the loop and its tail, then
/// the lengths block and the tag block (with the short path's code after
/// the loop, 16 KiB took up to 12 more instructions per iteration, LLVM
/// allocating the loop's registers differently: `docs/notes/gcm.md`).
/// Out of line, so that its frame and its callees' lie below the caller's
/// stack pointer when [`Backend::seal`] wipes them.
#[inline(never)]
fn long_any(key: &Key, enc: bool, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let rk = &key.aes.rk;
    let p = &key.powers;
    let lengths = (u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8);
    let acc = key.ghash_padded(0, aad);
    // SAFETY: the token in `key.aes` proves NEON, AES and PMULL.
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
    let s = key.ghash_padded(acc, &lengths.to_be_bytes());
    let [mut t] = aes::Backend::encrypt_array(&key.aes, [u128::from_le_bytes(*j0)]);
    let tag = (s.swap_bytes() ^ t).to_le_bytes();
    t.zeroize();
    tag
}

/// The GHASH registers: `h[j]` = `H^(8−j)` half-swapped, `hx` their pairs'
/// half-sums, `c` the reduction constant. Both loops take them as values:
/// LLVM keeps the powers in registers and spills round keys instead (the
/// frame is wiped after the loop); the decryption loop read them by
/// volatile loads before, 9 instructions fewer per 8 blocks but llvm-mca
/// 24.1 against 22.8 cycles a block on Neoverse N1 (`docs/notes/gcm.md`).
struct Ghash {
    h: [V; 8],
    hx: [V; 4],
    c: V,
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
    if ENC && groups > 0 {
        // The first group's keystream alone, then one basic block per
        // group: the AES rounds of group `i` and the GHASH of group `i −
        // 1`'s ciphertext (stored by the iteration before), no branch but
        // the loop's own (a loop from group 0 with an `i > 0` test and
        // slice bounds checks compiled into three basic blocks, the AES
        // path without the GHASH taken once), then the last group's GHASH.
        let p = buf.as_mut_ptr();
        // SAFETY: this function is compiled with NEON and AES; `p + 128·i
        // … p + 128·i + 128` lies in `buf` for `i < groups` (`groups` =
        // `buf.len() / 128`), and no other reference to `buf` is live
        // while each slice is.
        unsafe {
            let ks = rounds::<NR, 8>(&keys, counters());
            xor8(core::slice::from_raw_parts_mut(p, 128), ks);
            for i in 1..groups {
                let ks = rounds::<NR, 8>(&keys, counters());
                let y = load8::<true>(core::slice::from_raw_parts(p.add(128 * (i - 1)), 128));
                acc = group8::<true>(y, acc, &g.h, &g.hx, g.c);
                xor8(core::slice::from_raw_parts_mut(p.add(128 * i), 128), ks);
            }
            let y = load8::<true>(core::slice::from_raw_parts(p.add(128 * (groups - 1)), 128));
            acc = group8::<true>(y, acc, &g.h, &g.hx, g.c);
        }
    } else if !ENC {
        for chunk in buf.chunks_exact_mut(128) {
            let x = counters();
            let y = load8::<true>(chunk);
            // SAFETY: this function is compiled with NEON and AES.
            let ks = unsafe { rounds::<NR, 8>(&keys, x) };
            acc = group8::<true>(y, acc, &g.h, &g.hx, g.c);
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

/// The bytes below [`Backend::seal`]'s stack pointer that [`short`] (with
/// its callees: `ghash::pmull`'s `update` for long associated data) may
/// write, wiped after it returns: 1 280, over the 992 measured at most (the
/// test `stack_wipe`; by `objdump`, the deepest instance's frame is 928
/// bytes and `update`'s below it 64).
const SHORT_STACK: usize = 1280;

/// The bytes below [`Backend::seal`]'s stack pointer that [`long_any`]
/// (the loop [`crypt`], the GHASH of the associated data and the lengths,
/// the tag block) may write, wiped after it returns; checked by the test
/// `stack_wipe`.
const LONG_STACK: usize = 1536;

/// [`short`] for the key's round count, encrypting if `enc` (no wipe: the
/// caller wipes).
#[inline(always)]
fn short_any(key: &Key, enc: bool, j0: &[u8; 16], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    // SAFETY (each arm): the token in `key.aes` proves NEON, AES and PMULL.
    unsafe {
        match (key.aes.rk.rounds, enc) {
            (10, true) => short::<10, true>(key, j0, aad, buf),
            (10, false) => short::<10, false>(key, j0, aad, buf),
            (12, true) => short::<12, true>(key, j0, aad, buf),
            (12, false) => short::<12, false>(key, j0, aad, buf),
            (_, true) => short::<14, true>(key, j0, aad, buf),
            (_, false) => short::<14, false>(key, j0, aad, buf),
        }
    }
}

/// A whole short message ([`Backend::seal`] for a key of `NR` rounds and
/// at most [`SHORT_MAX_TEXT_BLOCKS`] = 16 text blocks, `t`): `J0` and the
/// counter blocks `J0 + 1 … J0 + t` through AES in one interleaved call of
/// [`rounds`] on exactly `t + 1` blocks ([`text`]; from `t` = 9 the first
/// eight counter blocks in a call of their own), and the ciphertext and
/// the lengths block hashed as one aggregated group against `H^(t+1) …
/// H^1` with one reduction — with the associated data too when the group
/// stays within the key's [`HK`] = 17 powers; else the associated data is
/// hashed first (as one group when it has at most 17 blocks). Returns the
/// tag `AES(K, J0) ⊕ S`.
///
/// No buffer: whole blocks are loaded and stored in place, a partial last
/// block (of the associated data or of the text) by two overlapping 8- or
/// 4-byte loads or stores, or three single bytes ([`load_partial`],
/// [`store_partial`]), by its public length. Each block meets its power
/// and that power's half-sum by one 32-byte `LD1` from `key.hk`.
#[target_feature(enable = "neon,aes")]
fn short<const NR: usize, const ENC: bool>(
    key: &Key,
    j0: &[u8; 16],
    aad: &[u8],
    rest: &mut [u8],
) -> [u8; 16] {
    let hk = &key.hk;
    let z = vdupq_n_u8(0);
    let lengths = (aad.len() as u64 * 8, rest.len() as u64 * 8);
    let nt = rest.len().div_ceil(16);
    let na = aad.len().div_ceil(16);
    debug_assert!(nt <= SHORT_MAX_TEXT_BLOCKS);
    let mut s = Sums { a: z, b: z, m: z };
    let first = if na + nt < HK {
        // The associated data joins the group: block `i` meets
        // `H^(nt + na + 1 − i)` = `hk[nt + na − i]`.
        s = aad_sums(s, hk, aad, nt + na);
        z
    } else if na <= HK {
        swap(reduce::<true>(aad_sums(s, hk, aad, na - 1), c()))
    } else {
        swap(to_v(key.ghash_padded(0, aad)))
    };
    let keys = Keys::load(&key.aes.rk);
    // SAFETY: 16 readable bytes.
    let y0 = unsafe { vld1q_u8(j0.as_ptr()) };
    let cv = vreinterpretq_u32_u8(vrev32q_u8(y0));
    // Nine to sixteen blocks: the first eight (counter blocks only, block
    // `j` meeting `H^(nt + 1 − j)`), then the rest with `J0`.
    // SAFETY (each arm): this function is compiled with NEON and AES, and
    // each `text` call's block count is its slice's `len().div_ceil(16)`
    // (`nt` is `rest.len().div_ceil(16)`).
    macro_rules! eight_then {
        ($nt:literal) => {{
            let (head, tail) = rest.split_at_mut(128);
            let (_, s, first) = text::<NR, ENC, 8, 8, 0>(&keys, hk, $nt, y0, cv, s, first, head);
            let cv = vaddq_u32(cv, vsetq_lane_u32::<3>(8, vdupq_n_u32(0)));
            text::<NR, ENC, { $nt - 8 }, { $nt - 7 }, 1>(&keys, hk, $nt - 8, y0, cv, s, first, tail)
        }};
    }
    let (e, s, first) = unsafe {
        match nt {
            0 => text::<NR, ENC, 0, 1, 1>(&keys, hk, 0, y0, cv, s, first, rest),
            1 => text::<NR, ENC, 1, 2, 1>(&keys, hk, 1, y0, cv, s, first, rest),
            2 => text::<NR, ENC, 2, 3, 1>(&keys, hk, 2, y0, cv, s, first, rest),
            3 => text::<NR, ENC, 3, 4, 1>(&keys, hk, 3, y0, cv, s, first, rest),
            4 => text::<NR, ENC, 4, 5, 1>(&keys, hk, 4, y0, cv, s, first, rest),
            5 => text::<NR, ENC, 5, 6, 1>(&keys, hk, 5, y0, cv, s, first, rest),
            6 => text::<NR, ENC, 6, 7, 1>(&keys, hk, 6, y0, cv, s, first, rest),
            7 => text::<NR, ENC, 7, 8, 1>(&keys, hk, 7, y0, cv, s, first, rest),
            8 => text::<NR, ENC, 8, 9, 1>(&keys, hk, 8, y0, cv, s, first, rest),
            9 => eight_then!(9),
            10 => eight_then!(10),
            11 => eight_then!(11),
            12 => eight_then!(12),
            13 => eight_then!(13),
            14 => eight_then!(14),
            15 => eight_then!(15),
            // 16 (the caller's bound).
            _ => eight_then!(16),
        }
    };
    // The lengths block, `REV64`'d: `len(A)` in lane 0, `len(C)` in lane 1.
    let len = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lengths.0), vcreate_u64(lengths.1)));
    let s = absorb(s, xor(len, first), &hk[0]);
    let acc = reduce::<true>(s, c());
    // `S` byte-reversed (`u128::swap_bytes` of `from_v(acc)`) ⊕ `AES(K, J0)`.
    let r = vrev64q_u8(acc);
    let mut tag = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(tag.as_mut_ptr(), veorq_u8(vextq_u8::<8>(r, r), e)) };
    tag
}

/// `s` plus the products of the (at most nine) blocks of `aad`,
/// zero-padded, block `i` meeting `hk[top − i]`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn aad_sums(mut s: Sums, hk: &[[u128; 2]; HK], aad: &[u8], top: usize) -> Sums {
    let whole = aad.len() / 16;
    for i in 0..whole {
        // SAFETY: 16 readable bytes (`i` < `aad.len() / 16`).
        let y = unsafe { vld1q_u8(aad.as_ptr().add(16 * i)) };
        s = absorb(s, vrev64q_u8(y), &hk[top - i]);
    }
    if aad.len() % 16 != 0 {
        let y = load_partial(&aad[16 * whole..]);
        s = absorb(s, vrev64q_u8(y), &hk[top - whole]);
    }
    s
}

/// [`short`]'s text of exactly `NT` blocks (`N = NT + J`): with `J` = 1,
/// `J0` and the counter blocks `J0 + 1 … J0 + NT` through AES in one
/// interleaved call (with `J` = 0 the counter blocks alone), then block by
/// block the keystream XOR and the ciphertext's products (block `j` meets
/// `H^(top + 1 − j)`, `first` entering block 0); `cv` is the counter block
/// before the first (`J0`'s, or the last one of the blocks before) with
/// its words byte-swapped (`REV32`). Returns `AES(K, J0)` (with `J` = 1),
/// the sums, and `first` (zero once a block took it).
///
/// # Safety
/// Only from functions compiled with `neon,aes`; `rest.len().div_ceil(16)`
/// is `NT`, `J` is 0 or 1, `top` at least `NT − 1` and below [`HK`].
#[allow(inline_always_mismatching_target_features)]
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn text<
    const NR: usize,
    const ENC: bool,
    const NT: usize,
    const N: usize,
    const J: usize,
>(
    keys: &Keys,
    hk: &[[u128; 2]; HK],
    top: usize,
    y0: V,
    mut cv: uint32x4_t,
    mut s: Sums,
    mut first: V,
    rest: &mut [u8],
) -> (V, Sums, V) {
    let len = rest.len();
    // SAFETY: the caller's contract.
    unsafe { core::hint::assert_unchecked(NT * 16 < len + 16 && len <= NT * 16) };
    // SAFETY: the caller is compiled with NEON and AES (every intrinsic
    // below); pointer offsets are below `16 * (NT − 1) + 16 ≤ len` for
    // whole blocks.
    unsafe {
        let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
        let mut x = [y0; N];
        for xi in x.iter_mut().skip(J) {
            cv = vaddq_u32(cv, one);
            *xi = vrev32q_u8(vreinterpretq_u8_u32(cv));
        }
        let k = rounds::<NR, N>(keys, x);
        let p = rest.as_mut_ptr();
        for j in 0..NT {
            let ks = k[j + J];
            let r = len - 16 * j;
            let (input, hashed);
            if r >= 16 {
                input = vld1q_u8(p.add(16 * j));
                let out = veorq_u8(input, ks);
                vst1q_u8(p.add(16 * j), out);
                hashed = if ENC { out } else { input };
            } else {
                input = load_partial(&rest[16 * j..]);
                let out = veorq_u8(input, ks);
                store_partial(&mut rest[16 * j..], out);
                // Encryption hashes the ciphertext's `r` bytes alone.
                hashed = if ENC { vandq_u8(out, below(r)) } else { input };
            }
            s = absorb(s, xor(vrev64q_u8(hashed), first), &hk[top - j]);
            first = vdupq_n_u8(0);
        }
        (k[0], s, first)
    }
}

/// `s` plus the products of the (`REV64`'d) block `y` with the power
/// `h[0]` (half-swapped) and its half-sum `h[1]`: `PMULL`, `PMULL2`, and
/// the block's half-sum (`EXT`, `EOR`) by `PMULL`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn absorb(s: Sums, y: V, h: &[u128; 2]) -> Sums {
    // SAFETY: 32 readable bytes.
    let h = unsafe { vld1q_u8_x2(h.as_ptr().cast::<u8>()) };
    let t = veorq_u8(y, vextq_u8::<8>(y, y));
    Sums {
        a: xor(s.a, pmull(y, h.0)),
        b: xor(s.b, pmull2(y, h.0)),
        m: xor(s.m, pmull(t, h.1)),
    }
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

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.aes.secret_spans(s);
        s.secret("GHASH powers", &self.powers);
        s.secret("GHASH powers, swapped, and half-sums", &self.hk);
    }
}

/// The short path leaves no secret on the stack: [`short`]'s dead frame
/// holds round keys, powers of `H`, keystream and text when nothing wipes
/// it (the control: the kernel called alone), none after [`Key::seal`]
/// (the kernel, then [`crate::wipe::wipe_stack_below`]); and the kernel
/// stays within [`SHORT_STACK`].
#[cfg(test)]
mod stack_wipe {
    use super::*;
    use crate::wipe::stack_probe::{LENS, Tally, blocks, bytes};
    use alloc::vec::Vec;

    /// One message of a test: its IV block, associated data, plaintext,
    /// ciphertext and tag.
    struct Message<'a> {
        j0: &'a [u8; 16],
        aad: &'a [u8],
        pt: &'a [u8],
        ct: &'a [u8],
        tag: [u8; 16],
    }

    /// The message sealed and opened through `kernel` alone (the control)
    /// and through [`Key::seal`] (the kernel and its wipe of `stack`
    /// bytes), as one [`Tally`] case each way.
    fn both_ways(
        tally: &mut Tally,
        key: &Key,
        (klen, alen, len): (usize, usize, usize),
        s: &[(&'static str, [u8; 16])],
        m: &Message<'_>,
        stack: usize,
        kernel: fn(&Key, bool, &[u8; 16], &[u8], &mut [u8]) -> [u8; 16],
    ) {
        for enc in [true, false] {
            let input = if enc { m.pt } else { m.ct };
            let dir = if enc {
                Direction::Encrypt
            } else {
                Direction::Decrypt
            };
            let (mut b0, mut b1) = (input.to_vec(), input.to_vec());
            tally.case(
                &(klen, alen, len, enc),
                s,
                stack,
                m.tag,
                || kernel(key, enc, m.j0, m.aad, &mut b0),
                || key.seal(dir, u128::from_le_bytes(*m.j0), m.aad, &mut b1),
            );
        }
    }

    /// Associated data: none, a little, joining the group, and more than
    /// the key's 17 powers (hashed by `ghash::pmull`'s `update`).
    const AADS: [usize; 4] = [0, 13, 70, 300];

    #[test]
    fn short_stays_within_its_wipe_and_leaves_no_secret() {
        let Some(t) = NeonAes::get() else { return };
        let mut tally = Tally::new();
        for klen in [16, 24, 32] {
            let key =
                <Key as Backend>::new(t, &bytes(klen, 0x6b), super::super::tuning::GCM.pick());
            let mut secrets = Vec::new();
            for r in key.aes.rk.rk.iter().take(key.aes.rk.rounds + 1) {
                secrets.push(("round key", r.to_le_bytes()));
            }
            for p in &key.powers {
                secrets.push(("power of H", p.to_le_bytes()));
            }
            for [p, x] in &key.hk {
                secrets.push(("power of H, swapped", p.to_le_bytes()));
                secrets.push(("half-sum of a power", x.to_le_bytes()));
            }
            for alen in AADS {
                let aad = bytes(alen, 0x21);
                for len in LENS {
                    let mut j0 = [1u8; 16];
                    for (d, s) in j0.iter_mut().zip(bytes(12, (len + alen) as u8)) {
                        *d = s;
                    }
                    let pt = bytes(len, 0x5c);
                    let [e] = aes::Backend::encrypt_array(&key.aes, [u128::from_le_bytes(j0)]);
                    let mut ct = pt.clone();
                    let tag = key.seal(Direction::Encrypt, u128::from_le_bytes(j0), &aad, &mut ct);
                    let mut s = secrets.clone();
                    s.push(("AES(K, J0)", e.to_le_bytes()));
                    let ks: Vec<u8> = pt.iter().zip(&ct).map(|(p, c)| p ^ c).collect();
                    blocks(&mut s, "keystream", &ks);
                    blocks(&mut s, "plaintext", &pt);
                    let m = Message {
                        j0: &j0,
                        aad: &aad,
                        pt: &pt,
                        ct: &ct,
                        tag,
                    };
                    both_ways(
                        &mut tally,
                        &key,
                        (klen, alen, len),
                        &s,
                        &m,
                        SHORT_STACK,
                        short_any,
                    );
                }
            }
        }
        tally.finish("gcm short");
    }

    /// Longer messages than the short path's, whole and partial groups.
    const LONG_LENS: [usize; 5] = [257, 300, 512, 1031, 2048];

    #[test]
    fn long_stays_within_its_wipe_and_leaves_no_secret() {
        let Some(t) = NeonAes::get() else { return };
        let mut tally = Tally::new();
        for klen in [16, 24, 32] {
            let key =
                <Key as Backend>::new(t, &bytes(klen, 0x3d), super::super::tuning::GCM.pick());
            let mut secrets = Vec::new();
            for r in key.aes.rk.rk.iter().take(key.aes.rk.rounds + 1) {
                secrets.push(("round key", r.to_le_bytes()));
            }
            for p in &key.powers {
                secrets.push(("power of H", p.to_le_bytes()));
                secrets.push(("power of H, swapped", p.rotate_left(64).to_le_bytes()));
            }
            for alen in [0, 13, 300] {
                let aad = bytes(alen, 0x44);
                for len in LONG_LENS {
                    let j0 = [7u8; 16];
                    let pt = bytes(len, 0x19);
                    let mut ct = pt.clone();
                    let tag = key.seal(Direction::Encrypt, u128::from_le_bytes(j0), &aad, &mut ct);
                    let mut s = secrets.clone();
                    let ks: Vec<u8> = pt.iter().zip(&ct).map(|(p, c)| p ^ c).collect();
                    blocks(&mut s, "keystream", &ks);
                    blocks(&mut s, "plaintext", &pt);
                    let m = Message {
                        j0: &j0,
                        aad: &aad,
                        pt: &pt,
                        ct: &ct,
                        tag,
                    };
                    both_ways(
                        &mut tally,
                        &key,
                        (klen, alen, len),
                        &s,
                        &m,
                        LONG_STACK,
                        long_any,
                    );
                }
            }
        }
        tally.finish("gcm long");
    }
}
