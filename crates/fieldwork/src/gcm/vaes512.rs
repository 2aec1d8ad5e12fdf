//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`, `vaes`,
//! `vpclmulqdq`, `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability token
//! [`VaesAvx512`].
//!
//! The stitched AES-GCM kernel: everything after `J0` — GHASH of the
//! associated data, counter-mode AES with VAES on zmm (four blocks per
//! `vaesenc`) and GHASH of the ciphertext with VPCLMULQDQ in the same loop,
//! the lengths block and the tag — in one function.
//!
//! # The loop
//!
//! `4·R` blocks per iteration (R registers of four). Encryption hashes the
//! previous iteration's ciphertext while it encrypts the next counters
//! (this iteration's ciphertext is not ready yet); decryption hashes the
//! ciphertext it is about to decrypt. GHASH is POLYVAL on byte-reversed
//! blocks (RFC 8452 appendix A; see [`crate::ghash`]): one `vpshufb` per
//! register, then aggregated reduction (Gueron & Kounavis, Intel white
//! paper 323640): block `j` of a group of `n` meets `H^(n−j)`, the
//! accumulator enters block 0 only, the four lanes' 256-bit sums are
//! reduced together on zmm (Montgomery, two folds by 0xc2…) and then XORed.
//! Inside a loop, every reduction unit but the last meets *uniform* powers
//! instead (all four lanes of a register the same power, `H^(n−4c)` for
//! register `c` of a unit of `n` blocks; see `uniform_table` in
//! [`super`]): each lane
//! then carries its own stream of every fourth block, its reduced value
//! enters the next unit's first register in the same lane, and the lanes
//! are never summed — no `vextracti64x4`, `vextracti128` or lane XORs per
//! unit. The loop's last unit meets the per-lane powers, which give lane
//! `l`'s stream the `H^(n−l)` it still lacks, and sums the lanes once
//! (AES-128 encryption 0.173 → 0.169 cycles/byte at 16 KiB, scratch
//! harness as below). Those units are up to four loop groups (64 blocks)
//! long, the last unit at most two ([`Units`]): one reduction per 64
//! blocks instead of 32 (AES-128 encryption 0.169 → 0.165 cycles/byte at
//! 16 KiB, 0.164 → 0.160 at 64 KiB, decryption with the harness's copy
//! 0.193 → 0.189; AES-256 unchanged; minima of 7 × 1 500 calls, old and
//! new builds alternated, 2026-11-21). Open question: with 384 KiB of
//! other data written between calls (caches cold), the same harness read
//! 16 KiB encryption 5–10 % *slower* than with two-group units (0.199–0.214
//! against 0.221–0.223, three alternated sets), while 64 KiB of other data
//! between calls left them level and 64 KiB messages stayed faster; the
//! uniform table grew from 512 to 1 024 bytes, which does not obviously
//! explain it. peer-bench, alternating both builds on a noisy machine,
//! could not separate them at 16 KiB. Tried and not kept: the uniform table
//! as 16 single powers broadcast by `vbroadcasti32x4` from memory (256
//! bytes; the loop ran ≈ 50 % slower).
//!
//! Schoolbook, not Karatsuba, for the 128×128 products: four `vpclmulqdq`
//! per four blocks against Karatsuba's three plus a `vpshufd` and an XOR
//! to form `d₀ ⊕ d₁`. On this core `vpclmulqdq` and `vpshufd` both issue
//! only on port 5, one per cycle, so Karatsuba saves no port-5 slot and
//! costs an XOR; schoolbook also needs no `h₀ ⊕ h₁` registers.
//!
//! AES starts at round 2. Within a run of 256 counter blocks (the last
//! byte counting up, bytes 0–14 fixed), round 1 of block `C` is the run's
//! base XORed with `round1[C₁₅]`, a per-key table of round 1 of `0¹⁵ ‖ b`
//! (see [`super::Tables::round1`]: round 1 is a byte-wise S-box then
//! a linear map, so the fifteen fixed bytes contribute a constant). Each
//! register's state after round 1 is therefore one `vpxord` of the base
//! with four table entries loaded at the public counter's last byte: no
//! counter arithmetic and no round-1 `vaesenc` (measured: AES-128-GCM
//! encryption 0.183 → 0.173 cycles/byte at 16 KiB, AES-256 0.241 → 0.227;
//! see below). The base is one AES-NI round per run; an iteration whose
//! sixteen counters straddle two runs (a public condition) builds its
//! counter blocks from the 32-bit counter with `vpaddd` + `vpshufb` +
//! `vpxord`, wrapping modulo 2^32 exactly as `inc32` does, and runs round
//! 1 with `vaesenc`.

//! # Port budget (per 16 blocks, AES-128)
//!
//! 512-bit `vaesenc` issues on port 0 only (measured: 1/cycle, latency 3),
//! `vpclmulqdq`, `vpshufb`, `vpshufd` and lane extracts on port 5 only,
//! other vector ALU operations on either. Per 16 blocks (counted in the
//! compiled loop before the round-1 table; it replaced the 4 round-1
//! `vaesenc` and the 4 counter advances by 4 XORs): 40 AES rounds on port 0; 16 products, 4 byte reversals
//! and half a reduction (per 32 blocks 2 products, 2 `vpshufd`, 2
//! extracts), ≈ 23 on port 5; and ≈ 19 XORs and ternary XORs on either (4
//! counter advances, 4 keystream XORs, 8 to accumulate the products, half
//! a reduction's 4, the accumulator's entry): ≈ 82 operations, ≈ 41
//! cycles on two ports, ≈ 0.16 cycles/byte, as AES alone. The loop runs at
//! ≈ 0.18: removing any four of the operations on either port (timing
//! experiments, results wrong) saves about 1.5 cycles per 16 blocks, so the
//! two ports are both nearly full. AES-256 (56 rounds per 16 blocks) is
//! insensitive to the same removals — the removal of the byte reversals,
//! the reduction, the middle products or the counter advances each changed
//! nothing — and runs ≈ 4 cycles per 16 blocks above its AES-only loop
//! (0.241 against 0.225 cycles/byte), which itself runs 1.5 cycles above
//! the 56 of port 0. (A microbenchmark of the ports alone behaves as this
//! model says: 4 `vaesenc` + 4 `vpclmulqdq` + 4 XORs on independent zmm
//! registers take 6 cycles, 4 + 4 XORs 4 cycles. A VM neighbour on the
//! same core moves such figures by up to 10 % at times, so comparisons are
//! alternated and read as minima.)
//!
//! What the loop's operations cost by themselves: a throwaway inline-asm
//! loop with the same vector operations per 16 blocks (4 round-1 XORs
//! from a table, the AES rounds from round 2 on four registers, 4
//! keystream XORs and stores, 4 loads and byte reversals, 16 products and
//! 8 ternary XORs into three sums; everything in L1, no scalar work) runs
//! at 39.4 cycles for AES-128 whatever the order — AES then GHASH, GHASH
//! first, or two products and a ternary XOR after every round — and at
//! 53.5 (AES first), 52.6 (GHASH first) and 51.8 (spread) for AES-256
//! (2026-11-21; cycles from a dependent-add chain). So AES-128's 36
//! port-0 rounds and ≈ 36 other operations do not pack into 36 cycles on
//! this core, and the compiled loop (≈ 41 cycles per 16 blocks at 64 KiB,
//! in the harness) is within ≈ 5 % of what its operations cost alone.
//! The spread order pinned in the real loop with empty `asm!` fences (two
//! products and a ternary XOR after each round, AES-128 and AES-256) left
//! both where they were (harness minima, 16 and 64 KiB, level within
//! 0.5 %), so AES-256's ≈ 3 cycles per 16 blocks above its 52 port-0 rounds
//! do not come from the order either.
//!
//! # Measured (2026-11-21, Intel Xeon family 6 model 207, core ≈ 3.0 GHz)
//!
//! `peer-bench --filter gcm` (build c8a0bb2): AES-128-GCM encryption 0.205
//! cycles/byte at 16 KiB (aws-lc-rs 0.224, 1.09×), 0.193 at 64 KiB; 236
//! cycles for a 16-byte message with 13 bytes of associated data (aws-lc-rs
//! 279). What the loop costs, from experiments on this core: AES alone
//! (GHASH removed) 0.155 cycles/byte, the port-0 floor; with GHASH ≈ 0.19.
//! Things that did and did not pay:
//!
//! - the round keys broadcast with `vbroadcasti32x4` from memory: written
//!   as `[u128; 4]` arrays they were assembled by 120 scalar stores, and
//!   the vector loads of the (not inlined) tail functions could not
//!   forward from them — ≈ 70 cycles per call: 16-byte messages 229 → 155
//!   cycles, 1 KiB 388 → 321, 16 KiB 0.205 → 0.193 cycles/byte (build
//!   5751220);
//! - hashing the ciphertext two chunks back, re-read from the buffer,
//!   instead of the previous chunk's registers: 0.20 → 0.187 at 64 KiB
//!   (with a one-chunk lag the products wait on the last AES round and
//!   fill the scheduler; decryption, which hashes loaded ciphertext, was
//!   already ≈ 12 % faster than encryption);
//! - the short-message path (one reduction for everything): 419 → 225
//!   cycles at 16 bytes;
//! - 32 blocks per iteration (R = 8): slower (0.242 vs 0.210 at 16 KiB;
//!   the 8 AES states, 8 hash inputs and keys spill), and its 31-block
//!   tails need 33 powers;
//! - whitened counters (`C ⊕ k₀`) advanced by one XOR from a public table
//!   of `b ⊕ (b + 16)` instead of an addition plus the XOR with round key
//!   0: AES-128 encryption 0.190 → 0.183 cycles/byte at 16 KiB, decryption
//!   0.216 → 0.214 (with the benchmark's copy), AES-256 unchanged (minimum
//!   of 5 × 1 500 calls in a scratch harness, not in the tree; peer-bench
//!   figures in the README);
//! - the round-1 table in place of those whitened counters (one XOR per
//!   register, as before, and no round-1 `vaesenc`: 4 fewer operations on
//!   port 0 per 16 blocks): AES-128 encryption 0.183 → 0.173 cycles/byte
//!   at 16 KiB, 0.176 → 0.168 at 64 KiB; AES-256 0.241 → 0.227 at 16 KiB;
//!   decryption 0.214 → 0.202 (AES-128) and 0.266 → 0.252 (AES-256) with
//!   the harness's copy (same harness; the same loop with round 1 simply
//!   dropped, its results wrong, ran at 0.175 and 0.225: the table costs
//!   nothing on top);
//! - less scalar work per iteration (the powers' bounds checked once per
//!   group instead of per register, one clamp for the four prefetches
//!   instead of four: 11 → 2 `cmov` and about 20 scalar instructions
//!   fewer per 16 blocks): no change (AES-128 encryption 0.167 / 0.168
//!   cycles/byte at 16 KiB), so the scalar ports are not where the loop
//!   loses its ≈ 6 cycles per 16 blocks over the two-port floor; not kept;
//! - the products spread evenly over the AES rounds instead of after
//!   rounds 2 and 4, and no software prefetch: no change; the compiled
//!   loop does not keep the source's interleaving anyway (LLVM puts the
//!   AES rounds in one block and the products in another), and pinning
//!   the program order with empty `asm!` fences that tie the AES states
//!   and the sums (products after rounds 3 and 5, or before rounds 2 and
//!   6) changed nothing either: the out-of-order core interleaves them
//!   (minimum of 5 × 1 500 calls, 2026-11-21);
//! - no reduction at all in the units before the last (results wrong, an
//!   upper bound for reducing once per 64 blocks instead of 32): AES-128
//!   encryption 0.170 → 0.165 at 16 KiB, AES-256 unchanged — so the
//!   four-group units were built (above), and gained ≈ 2 %; eight-group
//!   units (128 blocks, a 2 KiB uniform table) gained another 1 % at 64
//!   KiB and nothing measurable at 16 KiB, for a key setup ≈ 20 % longer
//!   and 1 KiB more per key: not kept; hashing the
//!   ciphertext three or four chunks back instead of two: up to 1 %
//!   slower;
//! - the per-call round-2 cache for AES-192/256 ([`Round2`]; 2026-11-21,
//!   session 19): within a run of 256 counters the round-1 states differ
//!   only in column 0, whose bytes depend on the last counter byte and
//!   three bytes of `J0`, so round 2 of one run's blocks, recorded while
//!   the loop computes it anyway, gives every later run's round-2 states
//!   with one XOR per register and no `vaesenc`. Upper bound (round 2
//!   simply dropped, results wrong; scratch harness): AES-128 encryption
//!   0.167 → 0.158 cycles/byte at 16 KiB, AES-256 0.226 → 0.211. As built
//!   (4 KiB of states on the stack, uninitialised, wiped before return):
//!   harness AES-256 encryption 0.222 → 0.212 at 64 KiB, 1–3 % at 16 KiB;
//!   peer-bench `--filter gcm256_encrypt`, this build and the previous one
//!   alternated, pinned to each vCPU, quiet runs only: against aws-lc-rs
//!   1.09–1.10× → 1.10–1.12× at 16 KiB, 1.06–1.07× → 1.08–1.11× at 64
//!   KiB. Not for AES-128, whose loop is bound by both ports, not port 0:
//!   there the stores and the wipe cost what the cache saved (re-measured
//!   in session 20 with the storage in [`seal_with_round2`], so that the
//!   frame effect below plays no part: AES-128 encryption through the
//!   cache 0.172 → 0.178 cycles/byte at 16 KiB and 0.163 → 0.169 at 64
//!   KiB, scratch-harness minima, pinned). The cache itself pays: it
//!   removes one `vaesenc` per register (dropping round 2 showed that worth
//!   0.167 → 0.158), and with no run recording at all the cache-enabled
//!   AES-128 loop — the same vector work as the plain one — read 0.1835
//!   against 0.1715. Its compiled loop carries ≈ 30 more scalar moves per
//!   16 blocks (42–46 `mov` against 14–18: the bookkeeping's live values
//!   spilled), and that costs more than the cache saves. Deciding each
//!   run's mode once on entering it instead of per group did not change
//!   it (AES-128 through the cache 0.1717 against 0.1712 at 16 KiB, 0.1625
//!   against 0.1580 at 64 KiB; AES-256 level), so it was not kept. The 4 KiB
//!   itself must stay out of AES-128's frame: the first landed version
//!   (bb7ea82) had it in `seal_zmm` for every key size and read AES-128
//!   encryption at 0.184–0.187 cycles/byte against 0.168 (16 KiB,
//!   peer-bench, pinned runs alternated) with the cache unused, so the
//!   storage lives in [`seal_with_round2`]'s frame (AES-128 level again:
//!   0.167–0.170, aws-lc-rs 0.208–0.211). Zeroing the table instead of leaving it
//!   uninitialised cost more than the cache saved at 16 KiB; the group
//!   start had to be a macro (as an `#[inline]` function LLVM kept it out
//!   of line, and the call made the loop keep its zmm registers on the
//!   stack: 25–35 % slower);
//!   the cache as first landed recorded in any message with a loop and
//!   wiped all 4 KiB after it, ≈ 50 cycles that messages of 256 B – 1.4
//!   KiB paid for nothing (no later run to replay): AES-256 encryption at
//!   256 B took 302–312 cycles against 256 before the cache. Now a run
//!   records only if at least [`REPLAY_MIN`] (160) blocks of later runs
//!   follow it — break-even measured in the scratch harness: recording
//!   lost 2.6 % at 5 KiB (≈ 70 later blocks), 0.4 % at 6 KiB (≈ 130) and
//!   gained 0.7 % at 7 KiB (≈ 190), 1.3 % at 8 KiB, 3.5 % at 12 KiB — and
//!   the wipe covers only the lines written. peer-bench `--filter gcm256`,
//!   both builds alternated, pinned to each vCPU (2026-11-21, session 20):
//!   encryption at 256 B 302–312 → 249–252 cycles, 1 KiB 455–460 → 392–399
//!   (one run 446), 1420 B 565–578 → 520–534; decryption 256 B 277–287 →
//!   220–226, 1 KiB 451–456 → 405–412; 8 KiB and up unchanged;
//! - schoolbook instead of Karatsuba, big-endian counters, two groups per
//!   reduction, the shift-free reduction: each within run-to-run noise
//!   (±5 %) alone, kept because each removes port-5 or port-0/5 operations.
//!
//! # Buffers off a cache line
//!
//! A buffer that does not start on a 64-byte boundary makes every zmm load
//! and store of the loop straddle two lines. That costs the AES-128
//! encryption loop 4–7 % (16 and 64 KiB, 16/32/48 bytes past a line;
//! allocators hand out such buffers: glibc's large blocks start 16 bytes
//! past a page). Messages from [`ALIGN_FROM`] bytes whose buffer is on a
//! 16-byte boundary therefore run one to three blocks first
//! ([`head_blocks`], `ctr_head`), and the loop then meets whole lines.
//! Measured (scratch harness, minima of 7 × 250 calls, both builds
//! alternated, 2026-11-21): AES-128 encryption at 16 KiB 2 877–2 954 →
//! 2 777–2 783 cycles, at 64 KiB 11 173–11 357 → 10 590–10 787 (3.5–6 %);
//! decryption (after the harness's copy into the buffer) level at 16 KiB
//! and noisy at 64 KiB. The longer AES loops are bound by port 0 and lost
//! nothing to the split lines, so for them the head was pure cost (AES-256
//! 0.2–1.2 % slower at 16 KiB); they keep their buffers as given. Below 12
//! KiB the head's ≈ 40–70 cycles outweighed the gain (1–8 KiB: 2–20 %
//! slower). The head's load is a plain 64-byte load, not a masked one: a
//! masked load cannot take its bytes from stores still in flight, and
//! right after the caller wrote the buffer (a decryption after a copy) the
//! first masked version waited ≈ 250 cycles for them.
//!
//! # Speed from process to process (measurement note, 2026-11-21)
//!
//! One build, message and buffer read 0.167–0.172 cycles/byte (AES-128
//! encryption, 16 KiB) in most processes of a scratch harness and 0.19–0.28
//! in others. It looked at first like a dependence on where the stack
//! frame lies relative to the buffer (4K aliasing), but it is not: with
//! address-space randomisation off, the same stack and buffer placement
//! read both speeds in successive processes, and processes pinned with
//! `taskset` ran fast on one of the machine's two vCPUs and slow on the
//! other, the slow vCPU changing from one minute to the next. It is load
//! from outside this VM on the core behind a vCPU, and it slows every
//! library alike (three peer-bench runs in such a burst read aws-lc-rs
//! 0.22–0.26 beside our 0.24–0.25). For A/B measurements: pin to one vCPU,
//! alternate the builds and read minima, and discard sets in which the
//! unchanged build moved.
//!
//! # Short messages and tails
//!
//! With at most 256 bytes of associated data and 240 of text, the whole
//! hash — associated data, ciphertext, lengths block, at most 32 blocks —
//! is one aggregated reduction. Otherwise the associated data goes 16
//! blocks per reduction, the text through the loop, and its last
//! 0–`4R·16 − 1` bytes together with the lengths block form the final
//! group. Tails use byte-masked loads and stores; a partial block is
//! zero-padded for GHASH by the mask.
#![allow(unsafe_code)]

use super::Direction;
use super::stitch::{
    LAST_UNIT, ROUND1, TABLE, Units, counter_block_le, ghash_padded, power_table, round1_base,
    round1_cached, round1_run, tag_bytes,
};
use crate::aes::RoundKeys;
use crate::cpu::VaesAvx512;
use crate::ghash;
use crate::ghash::aggregate::zmm::{Sums, mul_acc, mul_acc2, reduce, reduce_lanes, zero_sums};
use crate::simd::{from_u128, to_u128, zmm_from_u128s as from_u128s};
use core::arch::x86_64::{
    __m128i, __m512i, _mm_loadu_si128, _mm_xor_si128, _mm512_add_epi32, _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128, _mm512_broadcast_i32x4, _mm512_castsi512_si128, _mm512_loadu_si512,
    _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8,
    _mm512_maskz_set1_epi32, _mm512_set1_epi32, _mm512_shuffle_epi8, _mm512_storeu_si512,
    _mm512_xor_si512, _mm512_zextsi128_si512,
};
use zeroize::Zeroize;

/// Registers (of four blocks) per loop iteration (even: products are
/// accumulated two registers at a time).
const R: usize = 4;
/// Groups in a reduction unit before a loop's last (at most), which meets
/// the uniform powers of [`uniform_table`] (`H^64 … H^4`); the
/// last unit ([`LAST_UNIT`] groups at most) meets the per-lane powers of
/// [`power_table`] (`H^32 … H^1`). Reducing once per 64 blocks
/// instead of 32 saves a reduction (two products, two `vpshufd`, two
/// ternary XORs) and the accumulator's entry per 64 blocks.
const UNIT: usize = UNIFORM / (4 * R);
const _: () = assert!(LAST_UNIT * 4 * R <= 32 && UNIT * 4 * R == UNIFORM);
/// Bytes per loop iteration.
const STEP: usize = 64 * R;
const _: () = assert!(4 * R == super::stitch::STEP_BLOCKS);

/// The engine's key: the AES-NI key schedule, the power table
/// ([`power_table`]), the uniform loop powers ([`uniform_table`]) and the
/// counter-mode round-1 table (see [`super::stitch`]), made once per key.
#[derive(Clone)]
pub(super) struct Key {
    t: VaesAvx512,
    rk: RoundKeys,
    powers: [u128; TABLE],
    uniform: [u128; UNIFORM],
    round1: [u128; ROUND1],
}

impl Key {
    /// Expands `key` (16, 24 or 32 bytes) and computes `H^1 … H^64` and the
    /// round-1 table.
    pub(super) fn new(t: VaesAvx512, key: &[u8]) -> Key {
        let aes = t.aes_clmul();
        let rk = crate::aes::aesni::expand(aes, key);
        let mut h = [0u8; 16];
        crate::aes::aesni::encrypt_blocks(aes, &rk, core::slice::from_mut(&mut h));
        let mut powers = ghash::gcm_powers_zmm(t.avx512_clmul(), ghash::gcm_key(&h));
        h.zeroize();
        let key = Key {
            t,
            powers: power_table(&powers),
            uniform: uniform_table(t.avx512_clmul().clmul(), &powers),
            round1: crate::aes::aesni::round1_table(aes, &rk),
            rk,
        };
        powers.zeroize();
        key
    }

    /// The whole of GCM-AE / GCM-AD after `J0`: GHASH of `aad`, counter
    /// mode over `buf` (any length) from `inc32(J0)` with the GHASH of the
    /// ciphertext, the lengths block, and the full tag `AES(K, J0) ⊕ S`.
    pub(super) fn seal(
        &self,
        dir: Direction,
        j0: &[u8; 16],
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16] {
        let _ = self.t;
        let rk = &self.rk;
        // SAFETY: the token `self.t` proves every feature `seal_zmm` is
        // compiled for.
        unsafe {
            let e = dir == Direction::Encrypt;
            match rk.rounds {
                10 => seal_zmm::<10>(rk, self, e, j0, aad, buf, core::ptr::null_mut()),
                12 => seal_with_round2::<12>(rk, self, e, j0, aad, buf),
                _ => seal_with_round2::<14>(rk, self, e, j0, aad, buf),
            }
        }
    }

    /// GHASH of `data` (zero-padded) into `acc`: `J0` of an IV other than
    /// 96 bits.
    pub(super) fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        ghash_padded(self.t.avx512_clmul().clmul(), &self.powers, acc, data)
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.powers.zeroize();
        self.uniform.zeroize();
        self.round1.zeroize();
    }
}

/// Entries of the zmm kernel's uniform power table ([`uniform_table`]):
/// a reduction unit of up to four 16-block groups.
pub(super) const UNIFORM: usize = 64;

/// The zmm kernel's uniform powers, laid out as [`power_table`] but for
/// units of up to [`UNIFORM`] blocks: entries `4c … 4c + 3` are all
/// `H^(UNIFORM−4c)`, so every lane of register `c` meets the same power,
/// and a unit of `u` 16-block groups meets the last `16u` entries. With
/// them each of the four lanes carries its own GHASH stream (blocks `l`,
/// `l + 4`, …, Horner steps of `H^4`), and a reduced unit's four lanes
/// enter the next unit's first register as they are, without being
/// summed; a loop's last reduction unit meets [`power_table`]'s per-lane
/// powers instead, which weight lane `l`'s stream by the `H^(n−l)` it
/// still lacks (`n` = the unit's blocks) and sum the lanes. The powers
/// above `H^32` are computed here, once per key
/// (`H^(32m + r) = H^(32m)·H^r`: independent products).
pub(super) fn uniform_table(t: crate::cpu::Clmul, powers: &[u128; 32]) -> [u128; UNIFORM] {
    // high[m] = H^(32m) for m = 1 … UNIFORM / 32.
    let mut high = [0u128; UNIFORM / 32 + 1];
    high[1] = powers[31];
    for m in 2..high.len() {
        high[m] = ghash::dot(t, high[m - 1], powers[31]);
    }
    let power = |k: usize| {
        let (m, r) = ((k - 1) / 32, (k - 1) % 32);
        if m == 0 {
            powers[r]
        } else {
            ghash::dot(t, high[m], powers[r])
        }
    };
    let mut u = [0u128; UNIFORM];
    for c in 0..UNIFORM / 4 {
        let v = power(UNIFORM - 4 * c);
        u[4 * c..4 * c + 4].fill(v);
    }
    high.zeroize();
    u
}

/// How far ahead of the block being processed the zmm kernel prefetches
/// the buffer. Measured A/B (2026-11-21, peer-bench, three alternating
/// runs of each build, 1 MiB messages): AES-128-GCM encryption in place
/// 0.222–0.236 → 0.193–0.198 cycles/byte, AES-256 0.271–0.304 →
/// 0.255–0.263 (the hardware prefetchers alone leave the loop waiting on
/// L2); decryption unchanged (its 1 MiB rows are dominated by the
/// benchmark's copy of the ciphertext), no change up to 64 KiB. In the ymm
/// and AES-NI kernels, whose loops are slower, the same prefetches changed
/// nothing or cost up to 3 % (AES-256 on AES-NI), so only the zmm kernel
/// uses them.
const PREFETCH_AHEAD: usize = 2048;

/// Prefetches into L1 the `bytes` bytes of the buffer at `ptr` (`len`
/// bytes long) that lie [`PREFETCH_AHEAD`] past offset `at`, one request
/// per 64-byte line, clamped to the buffer's last byte.
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch(ptr: *const u8, len: usize, at: usize, bytes: usize) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    for line in (0..bytes).step_by(64) {
        let off = (at + PREFETCH_AHEAD + line).min(len.saturating_sub(1));
        // SAFETY: `off < len` for a nonempty buffer (the zmm kernel calls it
        // inside its loops over whole chunks), so the pointer stays in
        // the buffer; a prefetch reads nothing architecturally.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.add(off).cast()) };
    }
}

/// The byte mask of register `c` of a tail of `len` bytes.
#[inline(always)]
fn reg_mask(len: usize, c: usize) -> u64 {
    let bytes = len.saturating_sub(64 * c).min(64);
    if bytes == 64 {
        u64::MAX
    } else {
        (1u64 << bytes) - 1
    }
}

/// Messages from this many bytes on start their loop on a cache line
/// ([`head_blocks`]).
const ALIGN_FROM: usize = 12 * 1024;

/// How many blocks to process before the loop so that it starts on a
/// 64-byte boundary: `0` when the buffer is already there, shorter than
/// [`ALIGN_FROM`], or not on a 16-byte boundary (blocks cannot reach a
/// line from there).
fn head_blocks(addr: usize, len: usize) -> usize {
    if len < ALIGN_FROM || !addr.is_multiple_of(16) {
        0
    } else {
        (64 - addr % 64) % 64 / 16
    }
}

/// Per-call constants.
struct Ctx<'a> {
    /// AES round keys broadcast to the four lanes (`NR` + 1 used).
    k: [__m512i; 15],
    /// Byte reversal within each 128-bit lane.
    rev: __m512i,
    /// POLYVAL's `C = x^63 + x^62 + x^57` in each lane's low word.
    c: __m512i,
    table: &'a [u128; TABLE],
    /// The uniform loop powers ([`uniform_table`]).
    uniform: &'a [u128; UNIFORM],
    /// The round keys, the round-1 table ([`super::stitch`]) and
    /// `J0` (its bytes little-endian), for the round-1 bases.
    rk: &'a RoundKeys,
    round1: &'a [u128; ROUND1],
    j0: u128,
    /// The counter block `J0` byte-reversed with its 32-bit counter zeroed,
    /// in every lane; and the lane offsets 0, 1, 2, 3 in the counter dword.
    ctr_base: __m512i,
    lanes: __m512i,
}

/// The base of the counters' current run of 256 blocks in every lane, and
/// which run it is: the round-1 base ([`round1_base`]) while the
/// round-2 cache ([`Round2`]) records or is not in use, the round-2 base
/// while it replays.
struct Run {
    id: u32,
    base: __m512i,
}

/// The AES round after which the loop's states come from a cache: 1 (the
/// per-key round-1 table, [`super::stitch`]) for AES-128, 2 (the
/// per-call round-2 cache, [`Round2`]) for AES-192 and AES-256, whose
/// loops are bound by port 0 (for AES-128 the cache's stores and wipe
/// cost more than its `vaesenc` saved; module docs).
const fn start_round(nr: usize) -> usize {
    if nr > 10 { 2 } else { 1 }
}

/// No run: no run's counter has this `n >> 8` (it is below 2^24).
const NO_RUN: u32 = u32::MAX;

/// The counter-mode round-2 cache of one call (AES-192 and AES-256 only;
/// see the module docs for why not AES-128): its states live in the frame
/// of [`seal_with_round2`], so that AES-128's calls carry no 4 KiB frame.
///
/// Round 2 of a counter block `C` is `L(S(round1(C))) ⊕ k₂` (`S` byte by
/// byte, `L` = MixColumns ∘ ShiftRows, linear). Within a run of 256 blocks
/// the blocks differ only in byte 15, which round 1's ShiftRows takes to
/// column 0: their round-1 states differ only in column 0, whose four
/// bytes depend on bytes 0, 5, 10 and 15 of the block alone — the last
/// byte and three bytes of `J0`, fixed for the whole message. So for any
/// two runs `r`, `r'` and last bytes `b`, `a`, `round2(r, b) ⊕ round2(r,
/// a) = round2(r', b) ⊕ round2(r', a)`: with one run's round-2 states
/// recorded, another run's state is `round2(r, a) ⊕ rec[a]` (its base, one
/// AES-NI block per run) XORed with `rec[b]` — one `vpxord` per register
/// in place of the round-1 XOR and a round-2 `vaesenc` on the port that
/// bounds the loop. (Counter-mode caching carried one round further than
/// [`super::stitch`]; Bernstein & Schwabe, "New AES software speed
/// records", INDOCRYPT 2008, §3, cache the first rounds' table lookups of
/// counter mode the same way. Unlike the round-1 table this one depends on
/// `J0`, so it is per call.)
///
/// The loop's groups all start at the same `n mod 16`, so the first run
/// whose first cached group starts below byte 16 and which at least
/// [`REPLAY_MIN`] blocks of later runs follow — the recording run —
/// computes round 2 of every cached group's counters with `vaesenc` and
/// stores the states, and every later run replays them: the cache computes
/// nothing the loop does not compute anyway, and the recording run costs
/// only the stores (and the wipe of what it stored).
///
/// Invariant (what makes reading `states` sound): a replaying run reads
/// the 16 entries from its group's `n mod 256`, which is `anchor` plus a
/// multiple of 16 and at most 240 ([`round1_cached`]); the recording run
/// started at `anchor` and, being over once another run is reached, wrote
/// every such group's 16 entries. The states are key material (two AES
/// rounds of known blocks) and are wiped before the call returns
/// ([`wipe_round2`]).
struct Round2 {
    /// `states[b]` (`b < 256`, storage in [`seal_with_round2`]'s frame):
    /// round 2 of the recording run's block with last byte `b`, for the
    /// bytes its cached groups covered; the rest never written nor read.
    /// Null for AES-128, which never records.
    states: *mut u128,
    /// The recording run ([`NO_RUN`] before it starts) and the last byte of
    /// its first block (below 16), whose state anchors the other runs'
    /// bases.
    rec: u32,
    anchor: u32,
    /// The counter of the loop's last group: a run records only if at
    /// least [`REPLAY_MIN`] blocks from later runs follow it.
    last: u32,
}

/// A run records its round-2 states only if the loop goes on for at least
/// this many blocks past the run: recording (the stores) and the wipe cost
/// about as much as replaying saves on one run's worth of blocks, so
/// messages that end in or shortly after the recording run do not record.
const REPLAY_MIN: u32 = 160;

/// The 4 KiB of a [`Round2`]'s states, 64-byte aligned, left uninitialised
/// (zeroing 4 KiB per call cost more than the cache saved on 16 KiB
/// messages).
#[repr(C, align(64))]
struct Round2States(core::mem::MaybeUninit<[u128; ROUND1]>);

impl Round2 {
    /// No run recorded yet; `states` points to a [`Round2States`] (or is
    /// null if the cache is never used); `last` is the counter of the
    /// loop's last group.
    fn new(states: *mut u128, last: u32) -> Round2 {
        Round2 {
            states,
            rec: NO_RUN,
            anchor: 0,
            last,
        }
    }

    /// Whether the run of a group at counter `n` (`low = n mod 256`)
    /// records: the cache is in use, no run has recorded yet, `low` is
    /// below `4R`,
    /// and at least [`REPLAY_MIN`] blocks of later runs follow (the loop's
    /// groups from `n` to `last` number far fewer than 2^32 blocks, so
    /// the wrapping difference is their distance).
    fn records(&self, nr: usize, n: u32, low: usize) -> bool {
        let later = self
            .last
            .wrapping_sub(n)
            .saturating_add(low as u32 + 4 * R as u32);
        start_round(nr) == 2 && self.rec == NO_RUN && low < 4 * R && later >= 256 + REPLAY_MIN
    }

    /// One past the last entry the recording run wrote: its groups start at
    /// `anchor`, `anchor + 16`, … up to the last at most 240
    /// ([`round1_cached`]), and it wrote all of them (a run records only if
    /// later runs follow, so the loop passes its end).
    fn end(&self) -> usize {
        let a = self.anchor as usize;
        a + (ROUND1 - 4 * R - a) / (4 * R) * (4 * R) + 4 * R
    }

    /// Entry `b` of the states, as a pointer (for 64-byte loads and stores).
    fn at(&mut self, b: usize) -> *mut u128 {
        debug_assert!(b < ROUND1 && !self.states.is_null());
        self.states.wrapping_add(b)
    }
}

/// The powers a loop group meets: register `c` meets `table[at + 4c ..
/// at + 4c + 4]`.
#[derive(Clone, Copy)]
struct Powers<'a> {
    table: &'a [u128],
    at: usize,
}

macro_rules! kernel_fns {
    ($($(#[$m:meta])* fn $name:ident $args:tt $(-> $ret:ty)? $body:block)*) => {
        $(
            $(#[$m])*
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1")]
            fn $name $args $(-> $ret)? $body
        )*
    };
}

/// As [`kernel_fns`], for functions generic over the AES round count `NR`
/// (10, 12, 14), so that the round loops unroll.
macro_rules! kernel_fns_nr {
    ($($(#[$m:meta])* fn $name:ident $args:tt $(-> $ret:ty)? $body:block)*) => {
        $(
            $(#[$m])*
            #[inline]
            #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1")]
            fn $name<const NR: usize> $args $(-> $ret)? $body
        )*
    };
}

kernel_fns! {
    /// Four powers `table[i..i + 4]` (`table` has at least four).
    fn powers4(table: &[u128], i: usize) -> __m512i {
        let i = i.min(table.len() - 4);
        // SAFETY: `i + 4 ≤ table.len()`.
        unsafe { _mm512_loadu_si512(table.as_ptr().add(i).cast()) }
    }

    /// The whitened counter blocks `(n + 4c + l) ⊕ k₀` (lane l of register
    /// c), built from the 32-bit counter (wrapping as `inc32`) in each
    /// lane's low dword (mask 0x1111) of the byte-reversed `J0`.
    fn counters(ctx: &Ctx, n: u32) -> [__m512i; R] {
        core::array::from_fn(|c| {
            let v = _mm512_add_epi32(
                ctx.ctr_base,
                _mm512_add_epi32(ctx.lanes, _mm512_maskz_set1_epi32(0x1111, n.wrapping_add(4 * c as u32) as i32)),
            );
            _mm512_xor_si512(_mm512_shuffle_epi8(v, ctx.rev), ctx.k[0])
        })
    }

    /// Overwrites the round-2 cache's written states (entries `anchor ..
    /// end()`, widened to whole 64-byte lines) with zeros by volatile
    /// stores (the compiler may not drop them as dead).
    fn wipe_round2(r2: &mut Round2) {
        let lines = (r2.anchor as usize / 4)..r2.end().div_ceil(4).min(ROUND1 / 4);
        for i in lines {
            // SAFETY: entries `4i … 4i + 3` lie in the 4 KiB of states (`i <
            // 64`), which are 64-byte aligned ([`Round2States`]).
            unsafe { core::ptr::write_volatile(r2.at(4 * i).cast::<__m512i>(), _mm512_set1_epi32(0)) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }

    /// `4R` byte-reversed blocks `g` multiplied by the powers `p` into `s`.
    fn ghash_regs(g: [__m512i; R], p: Powers, s: Sums) -> Sums {
        let mut s = s;
        for c in (0..R).step_by(2) {
            mul_acc2(g[c], powers4(p.table, p.at + 4 * c), g[c + 1], powers4(p.table, p.at + 4 * c + 4), &mut s);
        }
        s
    }

    /// Absorbs the ≤ 256 bytes of `data` (the last block zero-padded) into
    /// `s`: block `j` meets `table[first + j]`; `inject` enters block 0.
    fn absorb_masked(ctx: &Ctx, data: &[u8], first: usize, inject: __m128i, s: &mut Sums) {
        for c in 0..data.len().div_ceil(64) {
            // SAFETY: the mask covers only bytes of `data`.
            let v = unsafe {
                _mm512_maskz_loadu_epi8(reg_mask(data.len(), c), data.as_ptr().add(64 * c).cast())
            };
            let mut g = _mm512_shuffle_epi8(v, ctx.rev);
            if c == 0 {
                g = _mm512_xor_si512(g, _mm512_zextsi128_si512(inject));
            }
            mul_acc(g, powers4(ctx.table, first + 4 * c), s);
        }
    }

    /// Absorbs one block (POLYVAL element `x`) meeting `table[index]`.
    fn absorb_one(ctx: &Ctx, x: __m128i, index: usize, s: &mut Sums) {
        let p = _mm512_zextsi128_si512(from_u128(ctx.table[index]));
        mul_acc(_mm512_zextsi128_si512(x), p, s);
    }


}

kernel_fns_nr! {
    /// A register of AES states after round 1 taken to round
    /// [`start_round`]: through round 2 for AES-192/256, unchanged for
    /// AES-128.
    fn round1_to_start(ctx: &Ctx, x: __m512i) -> __m512i {
        if start_round(NR) == 2 { _mm512_aesenc_epi128(x, ctx.k[2]) } else { x }
    }

    /// One register of whitened counter blocks through AES.
    fn aes_reg(ctx: &Ctx, ctr: __m512i) -> __m512i {
        let k = &ctx.k;
        let mut x = ctr;
        for &kr in &k[1..NR] {
            x = _mm512_aesenc_epi128(x, kr);
        }
        _mm512_aesenclast_epi128(x, k[NR])
    }

    /// `R` registers of AES states after round [`start_round`] through the
    /// other rounds.
    fn aes_regs(ctx: &Ctx, xs: [__m512i; R]) -> [__m512i; R] {
        let k = &ctx.k;
        let mut x = xs;
        for &kr in &k[start_round(NR) + 1..NR] {
            for xi in &mut x {
                *xi = _mm512_aesenc_epi128(*xi, kr);
            }
        }
        x.map(|v| _mm512_aesenclast_epi128(v, k[NR]))
    }

    /// `R` registers of AES states after round [`start_round`] through the
    /// other rounds while `4R` byte-reversed blocks `g` are multiplied by
    /// the powers `p` into the sums `s`: returns the keystream and the sums.
    fn aes_ghash(ctx: &Ctx, xs: [__m512i; R], g: [__m512i; R], p: Powers, s: Sums) -> ([__m512i; R], Sums) {
        let k = &ctx.k;
        let mut x = xs;
        let mut s = s;
        let first = start_round(NR) + 1;
        // Rounds first..first + R, each pair of them with two registers'
        // products.
        for c in (0..R).step_by(2) {
            for r in [first + c, first + c + 1] {
                for xi in &mut x {
                    *xi = _mm512_aesenc_epi128(*xi, k[r]);
                }
            }
            mul_acc2(g[c], powers4(p.table, p.at + 4 * c), g[c + 1], powers4(p.table, p.at + 4 * c + 4), &mut s);
        }
        for &kr in &k[first + R..NR] {
            for xi in &mut x {
                *xi = _mm512_aesenc_epi128(*xi, kr);
            }
        }
        (x.map(|v| _mm512_aesenclast_epi128(v, k[NR])), s)
    }

    /// One register of counter mode: the bytes of `inp` under `mask`
    /// XORed with the keystream of the counter blocks `ctr` (the others
    /// zeroed), for the caller's masked store, and their ciphertext
    /// byte-reversed for GHASH.
    fn ctr_reg(ctx: &Ctx, ctr: __m512i, inp: __m512i, mask: u64, encrypt: bool) -> (__m512i, __m512i) {
        let out = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(aes_reg::<NR>(ctx, ctr), inp));
        let ct = if encrypt { out } else { _mm512_maskz_mov_epi8(mask, inp) };
        (out, _mm512_shuffle_epi8(ct, ctx.rev))
    }

    /// Counter mode in place over the first `h` (1–3) blocks of the
    /// buffer's first 64 bytes `data` with the counter blocks `ctr`, and
    /// GHASH of their ciphertext after `inject`: returns the reduced
    /// state. One plain 64-byte load (a masked load cannot take its bytes
    /// from stores still in flight: measured ≈ 250 cycles when the buffer
    /// had just been written), a masked store.
    fn ctr_head(ctx: &Ctx, ctr: __m512i, data: &mut [u8; 64], h: usize, encrypt: bool, inject: __m128i) -> __m128i {
        let mask = reg_mask(16 * h.min(4), 0);
        let ptr = data.as_mut_ptr();
        // SAFETY: `data` is 64 bytes long.
        let inp = unsafe { _mm512_loadu_si512(ptr.cast()) };
        let (out, g) = ctr_reg::<NR>(ctx, ctr, inp, mask, encrypt);
        // SAFETY: the mask covers at most the 64 bytes of `data`.
        unsafe { _mm512_mask_storeu_epi8(ptr.cast(), mask, out) };
        let mut s = zero_sums();
        mul_acc(_mm512_xor_si512(g, _mm512_zextsi128_si512(inject)), powers4(ctx.table, 32 - h), &mut s);
        reduce(s, ctx.c)
    }

    /// Counter mode in place over the ≤ `64R` bytes of `data` with the
    /// counter blocks `ctr`, absorbing the ciphertext into `s` (block `j`
    /// meets `table[first + j]`; `inject` enters block 0).
    fn ctr_masked(ctx: &Ctx, ctr: [__m512i; R], data: &mut [u8], encrypt: bool, first: usize, inject: __m128i, s: &mut Sums) {
        let len = data.len();
        let ptr = data.as_mut_ptr();
        for (c, &ctr) in ctr.iter().enumerate().take(len.div_ceil(64)) {
            let mask = reg_mask(len, c);
            // SAFETY: the mask covers only bytes of `data`.
            let inp = unsafe { _mm512_maskz_loadu_epi8(mask, ptr.add(64 * c).cast()) };
            let (out, mut g) = ctr_reg::<NR>(ctx, ctr, inp, mask, encrypt);
            // SAFETY: as above.
            unsafe { _mm512_mask_storeu_epi8(ptr.add(64 * c).cast(), mask, out) };
            if c == 0 {
                g = _mm512_xor_si512(g, _mm512_zextsi128_si512(inject));
            }
            mul_acc(g, powers4(ctx.table, first + 4 * c), s);
        }
    }
}

/// The AES states after round [`start_round`] (1 for AES-128, 2 for
/// AES-192/256) of the `4R` counter blocks from `n`. While they share a
/// run (a public condition on `n`), from the run's base and per-byte
/// entries loaded at the public counter's last byte: once the round-2
/// cache `r2` has recorded a run, its states (one `vpxord` per register,
/// no `vaesenc`); otherwise the round-1 table's entries (one `vpxord`,
/// where the counter advance and round 1 took two operations, one of them
/// on port 0), then for AES-192/256 a round-2 `vaesenc`, the states
/// stored while `r2` records. Bases are computed once per run. Outside a
/// run, from the counter blocks (`inc32` wrapping) with one or two
/// `vaesenc`.
///
/// A macro, not a function: the loops need it inlined, and as a function
/// (`#[inline]`; `#[inline(always)]` is not allowed with
/// `#[target_feature]`) the compiler kept it out of line, and the call made
/// the loops keep their vector registers on the stack.
macro_rules! round2_regs {
    ($ctx:expr, $run:expr, $r2:expr, $n:expr) => {{
        let (ctx, run, r2, n): (&Ctx, &mut Run, &mut Round2, u32) = ($ctx, $run, $r2, $n);
        let x: [__m512i; R] = 'regs: {
            if !round1_cached(n) {
                break 'regs counters(ctx, n)
                    .map(|w| round1_to_start::<NR>(ctx, _mm512_aesenc_epi128(w, ctx.k[1])));
            }
            let (id, low) = (round1_run(n), (n & 0xff) as usize);
            if r2.records(NR, n, low) {
                r2.rec = id;
                r2.anchor = low as u32;
            }
            let replay = r2.rec != NO_RUN && r2.rec != id;
            if run.id != id {
                new_run(ctx, run, r2, n, replay);
            }
            // SAFETY (all three loads and the store): `low + 4c + 3 ≤ low + 4R −
            // 1 ≤ 255` (`round1_cached`, 4R = STEP_BLOCKS): the four entries lie
            // in either table; a replaying run reads only entries the recording
            // run wrote ([`Round2`]'s invariant).
            if replay {
                core::array::from_fn(|c| {
                    // SAFETY: as above.
                    let t = unsafe { _mm512_loadu_si512(r2.at(low + 4 * c).cast_const().cast()) };
                    _mm512_xor_si512(run.base, t)
                })
            } else {
                let x: [__m512i; R] = core::array::from_fn(|c| {
                    let t =
                        // SAFETY: as above.
                        unsafe { _mm512_loadu_si512(ctx.round1.as_ptr().add(low + 4 * c).cast()) };
                    round1_to_start::<NR>(ctx, _mm512_xor_si512(run.base, t))
                });
                if r2.rec == id {
                    debug_assert!(low + 4 * R <= r2.end());
                    for (c, &v) in x.iter().enumerate() {
                        // SAFETY: as above.
                        unsafe { _mm512_storeu_si512(r2.at(low + 4 * c).cast(), v) };
                    }
                }
                x
            }
        };
        x
    }};
}

/// Enters the run of counter `n`: its base for [`round2_regs`], of
/// round 2 if `replay`, else of round 1.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn new_run(ctx: &Ctx, run: &mut Run, r2: &mut Round2, n: u32, replay: bool) {
    run.id = round1_run(n);
    let base = if replay {
        // The anchor block of this run through round 2, XORed with the
        // recorded anchor state.
        let a = counter_block_le(ctx.j0, (n & !0xff) | r2.anchor);
        // SAFETY: the recording run wrote entry `anchor` (its first block;
        // [`Round2`]'s invariant).
        crate::aes::aesni::round2(ctx.rk, a) ^ unsafe { r2.at(r2.anchor as usize).read() }
    } else {
        round1_base(ctx.rk, ctx.round1, ctx.j0, n)
    };
    run.base = _mm512_broadcast_i32x4(from_u128(base));
}

/// Prepares the next loop group ([`Units`]): returns its powers (per-lane
/// or uniform), whether it closes its unit (a reduction after it) and
/// whether it belongs to the loop's last unit. A group that starts a unit
/// starts from empty sums with the accumulator's four lanes entering its
/// first register. Groups before the last unit meet the uniform powers,
/// so that each lane carries its own stream and the reduced lanes are not
/// summed; the last unit meets the per-lane powers and sums them
/// ([`uniform_table`]).
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn group_powers<'a>(
    ctx: &Ctx<'a>,
    units: &mut Units,
    g: &mut [__m512i; R],
    acc: __m512i,
    s: &mut Sums,
) -> (Powers<'a>, bool, bool) {
    let place = units.next();
    let size = if place.last { 32 } else { UNIFORM };
    let at = size - 4 * R * place.in_unit;
    if place.starts {
        *s = zero_sums();
        g[0] = _mm512_xor_si512(g[0], acc);
    }
    let table: &[u128] = if place.last { ctx.table } else { ctx.uniform };
    (Powers { table, at }, place.closes, place.last)
}

/// The accumulator after a reduction unit closes with sums `s`: the four
/// lanes' streams as they are, or after the last unit their sum (in lane
/// 0, the others zero).
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn close_unit(s: Sums, c: __m512i, last: bool) -> __m512i {
    if last {
        _mm512_zextsi128_si512(reduce(s, c))
    } else {
        reduce_lanes(s, c)
    }
}

/// Hashes one loop group that no AES work is stitched to (associated data,
/// the encryption loop's last lagging chunks): [`group_powers`], its
/// products, and the reduction when the group closes its unit.
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn hash_group(ctx: &Ctx, units: &mut Units, mut g: [__m512i; R], acc: &mut __m512i, s: &mut Sums) {
    let (p, closes, last) = group_powers(ctx, units, &mut g, *acc, s);
    *s = ghash_regs(g, p, *s);
    if closes {
        *acc = close_unit(*s, ctx.c, last);
    }
}

/// [`seal_zmm`] with the storage of its round-2 cache ([`Round2`]) in this
/// frame: AES-192/256 only. Not inlined into [`seal`], so that AES-128's
/// calls do not carry the 4 KiB (with it, AES-128 encryption read ≈ 10 %
/// slower in peer-bench: 0.184–0.187 against 0.168 cycles/byte at 16 KiB,
/// pinned runs alternated with the previous build, 2026-11-21).
#[inline(never)]
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn seal_with_round2<const NR: usize>(
    rk: &RoundKeys,
    tables: &Key,
    encrypt: bool,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let mut states = Round2States(core::mem::MaybeUninit::uninit());
    seal_zmm::<NR>(
        rk,
        tables,
        encrypt,
        j0,
        aad,
        buf,
        states.0.as_mut_ptr().cast(),
    )
}

/// The kernel; `round2` is the storage of the round-2 cache's states (null
/// for AES-128, see [`start_round`]).
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn seal_zmm<const NR: usize>(
    rk: &RoundKeys,
    tables: &Key,
    encrypt: bool,
    j0: &[u8; 16],
    aad: &[u8],
    buf: &mut [u8],
    round2: *mut u128,
) -> [u8; 16] {
    // Independent of everything else: its latency hides behind the rest.
    let tag_mask = crate::aes::aesni::encrypt_one(rk, j0);
    let j0_rev = u128::from_be_bytes(*j0);
    let ctx = Ctx {
        // `vbroadcasti32x4` from the round keys in memory. (Built as
        // `[u128; 4]` arrays the keys went through 120 scalar stores that
        // the callees' zmm loads could not forward from: ≈ 70 cycles of a
        // 16-byte message; module docs.)
        k: core::array::from_fn(|r| {
            // SAFETY: `r < 15`: a 16-byte element of `rk.rk`.
            let key = unsafe { _mm_loadu_si128(rk.rk.as_ptr().add(r).cast()) };
            _mm512_broadcast_i32x4(key)
        }),
        rev: from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 4]),
        c: from_u128s([u128::from(ghash::C_HI); 4]),
        table: &tables.powers,
        uniform: &tables.uniform,
        rk,
        round1: &tables.round1,
        j0: u128::from_le_bytes(*j0),
        ctr_base: _mm512_broadcast_i32x4(from_u128(j0_rev & !0xffff_ffff)),
        lanes: from_u128s([0, 1, 2, 3]),
    };
    let lengths =
        from_u128((u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8));
    // The first data block's counter: inc32(J0).
    let mut n = (j0_rev as u32).wrapping_add(1);
    let zero = _mm512_castsi512_si128(_mm512_set1_epi32(0));

    // Short messages: the associated data, the ciphertext and the lengths
    // block in one aggregated reduction (at most 16 + 15 + 1 powers).
    if aad.len() <= 256 && buf.len() <= 240 {
        let (ab, cb) = (aad.len().div_ceil(16), buf.len().div_ceil(16));
        let first = 32 - (ab + cb + 1);
        let mut s = zero_sums();
        absorb_masked(&ctx, aad, first, zero, &mut s);
        ctr_masked::<NR>(
            &ctx,
            counters(&ctx, n),
            buf,
            encrypt,
            first + ab,
            zero,
            &mut s,
        );
        absorb_one(&ctx, lengths, 31, &mut s);
        return tag_bytes(to_u128(reduce(s, ctx.c)), tag_mask);
    }

    // Associated data: 4R blocks per group, then the rest as one group.
    // Groups form reduction units as in the loop below ([`Units`]: the
    // chain through the accumulator is one reduction per unit).
    // The accumulator: four lanes' streams inside a loop, the GHASH state
    // in lane 0 (the others zero) between loops.
    let mut acc = _mm512_set1_epi32(0);
    let mut chunks = aad.chunks_exact(STEP);
    let mut units = Units::new(chunks.len(), UNIT);
    let mut s = zero_sums();
    for a in &mut chunks {
        // SAFETY: `a` has STEP bytes.
        let g: [__m512i; R] = core::array::from_fn(|c| unsafe {
            _mm512_shuffle_epi8(_mm512_loadu_si512(a.as_ptr().add(64 * c).cast()), ctx.rev)
        });
        hash_group(&ctx, &mut units, g, &mut acc, &mut s);
    }
    let a = chunks.remainder();
    if !a.is_empty() {
        let mut s = zero_sums();
        absorb_masked(
            &ctx,
            a,
            32 - a.len().div_ceil(16),
            _mm512_castsi512_si128(acc),
            &mut s,
        );
        acc = _mm512_zextsi128_si512(reduce(s, ctx.c));
    }

    // A head of one to three blocks that brings the rest of the buffer
    // onto a cache line, so that the loop's zmm loads and stores do not
    // each straddle two lines (a public condition on the buffer's address
    // and length). AES-128 only: the longer AES loops, bound by port 0,
    // lose nothing to split lines and would pay for the head (module docs).
    let head = if NR == 10 {
        head_blocks(buf.as_ptr() as usize, buf.len())
    } else {
        0
    };
    let buf = match buf.first_chunk_mut::<64>() {
        Some(first) if head > 0 => {
            acc = _mm512_zextsi128_si512(ctr_head::<NR>(
                &ctx,
                counters(&ctx, n)[0],
                first,
                head,
                encrypt,
                _mm512_castsi512_si128(acc),
            ));
            n = n.wrapping_add(head as u32);
            &mut buf[16 * head..]
        }
        _ => buf,
    };

    let full = buf.len() / STEP;
    let buf_len = buf.len();
    let ptr = buf.as_mut_ptr();
    let load = |i: usize, c: usize| {
        // SAFETY: callers pass i < full, c < R: chunk i lies inside `buf`.
        unsafe { _mm512_loadu_si512(ptr.add(STEP * i + 64 * c).cast()) }
    };
    let store = |i: usize, c: usize, v: __m512i| {
        // SAFETY: as for `load`.
        unsafe { _mm512_storeu_si512(ptr.add(STEP * i + 64 * c).cast(), v) }
    };
    // Every full chunk's ciphertext is hashed in the loop, in units.
    let mut units = Units::new(full, UNIT);
    let mut s = zero_sums();
    let mut run = Run {
        id: NO_RUN,
        base: _mm512_set1_epi32(0),
    };
    let mut r2 = Round2::new(
        round2,
        n.wrapping_add((4 * R * full.saturating_sub(1)) as u32),
    );
    if encrypt {
        // The ciphertext of chunk i − LAG is hashed while chunk i is
        // encrypted, read back from `buf`: with a lag of one the products
        // would wait for the previous iteration's last AES round and fill
        // the scheduler (measured: the encryption loop ran ≈ 12 % slower
        // than decryption's); two chunks back, they are ready.
        const LAG: usize = 2;
        let rev_chunk = |j: usize| -> [__m512i; R] {
            core::array::from_fn(|c| _mm512_shuffle_epi8(load(j, c), ctx.rev))
        };
        for i in 0..full {
            prefetch(ptr, buf_len, STEP * i, STEP);
            let xs = round2_regs!(&ctx, &mut run, &mut r2, n);
            let ks = if i >= LAG {
                let mut g = rev_chunk(i - LAG);
                let (p, closes, last) = group_powers(&ctx, &mut units, &mut g, acc, &mut s);
                let (ks, s2) = aes_ghash::<NR>(&ctx, xs, g, p, s);
                s = s2;
                if closes {
                    acc = close_unit(s, ctx.c, last);
                }
                ks
            } else {
                aes_regs::<NR>(&ctx, xs)
            };
            n = n.wrapping_add(4 * R as u32);
            for (c, &k) in ks.iter().enumerate() {
                store(i, c, _mm512_xor_si512(k, load(i, c)));
            }
        }
        for j in full.saturating_sub(LAG)..full {
            let g = rev_chunk(j);
            hash_group(&ctx, &mut units, g, &mut acc, &mut s);
        }
    } else {
        for i in 0..full {
            prefetch(ptr, buf_len, STEP * i, STEP);
            let inp: [__m512i; R] = core::array::from_fn(|c| load(i, c));
            let mut g = inp.map(|v| _mm512_shuffle_epi8(v, ctx.rev));
            let xs = round2_regs!(&ctx, &mut run, &mut r2, n);
            let (p, closes, last) = group_powers(&ctx, &mut units, &mut g, acc, &mut s);
            let (ks, s2) = aes_ghash::<NR>(&ctx, xs, g, p, s);
            s = s2;
            if closes {
                acc = close_unit(s, ctx.c, last);
            }
            n = n.wrapping_add(4 * R as u32);
            for c in 0..R {
                store(i, c, _mm512_xor_si512(ks[c], inp[c]));
            }
        }
    }
    if r2.rec != NO_RUN {
        wipe_round2(&mut r2);
    }
    // The last 0 … STEP − 1 bytes and the lengths block: one group.
    let tail = &mut buf[STEP * full..];
    let first = 32 - (tail.len().div_ceil(16) + 1);
    let mut s = zero_sums();
    let acc = _mm512_castsi512_si128(acc);
    let len_block = if tail.is_empty() {
        _mm_xor_si128(lengths, acc)
    } else {
        ctr_masked::<NR>(&ctx, counters(&ctx, n), tail, encrypt, first, acc, &mut s);
        lengths
    };
    absorb_one(&ctx, len_block, 31, &mut s);
    tag_bytes(to_u128(reduce(s, ctx.c)), tag_mask)
}

#[cfg(test)]
mod tests {
    use super::UNIFORM;

    /// The uniform power table: entries `4c … 4c + 3` all
    /// `H^(UNIFORM−4c)`, the powers above `H^32` computed with PCLMULQDQ,
    /// against a chain of portable products by `H`.
    #[test]
    fn uniform_table_holds_the_powers() {
        use crate::ghash::dot_portable;
        let Some(t) = crate::cpu::Clmul::get() else {
            return;
        };
        let h = 0x66e9_4bd4_ef8a_2c3b_884c_fa59_ca34_2b2e_u128;
        let mut chain = [0u128; UNIFORM + 1];
        chain[1] = h;
        for k in 2..=UNIFORM {
            chain[k] = dot_portable(chain[k - 1], h);
        }
        let powers: [u128; 32] = core::array::from_fn(|i| chain[i + 1]);
        let table = super::uniform_table(t, &powers);
        for (i, &v) in table.iter().enumerate() {
            assert_eq!(v, chain[UNIFORM - 4 * (i / 4)], "entry {i}");
        }
    }
}
