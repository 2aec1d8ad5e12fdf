//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`, `vaes`,
//! `vpclmulqdq`, `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability token
//! [`crate::cpu::VaesAvx512`].
//!
//! The stitched AES-GCM kernel on zmm: everything after `J0` — GHASH of the
//! associated data, counter-mode AES with VAES (four blocks per `vaesenc`)
//! and GHASH of the ciphertext with VPCLMULQDQ in the same loop, the
//! lengths block and the tag — in one function. The ymm
//! ([`super::vaes256`]) and xmm ([`super::aesni`]) kernels follow it
//! function for function.
//!
//! # Math and sources
//!
//! - GHASH as POLYVAL on byte-reversed blocks (RFC 8452, appendix A; see
//!   [`crate::ghash`]), schoolbook 128×128 products, Montgomery reduction
//!   `hi ⊕ fold(mid ⊕ fold(lo))` with two folds by `C = 0xc2…` (derivation
//!   §1 below).
//! - Aggregated reduction (Gueron & Kounavis, Intel white paper 323640,
//!   rev. 2.02, "aggregated reduction"): block `j` of a group of `n` meets
//!   `H^(n−j)`, the accumulator enters block 0 only, one reduction per
//!   group (§2). Inside the loop every reduction unit but the last meets
//!   *uniform* powers, so each lane carries its own stream of every fourth
//!   block and the lanes are summed once per loop, not per unit (§3).
//! - Counter mode from round 2: round 1 of a counter block is the run's
//!   base XORed with a per-key table entry at the counter's last byte
//!   (counter-mode caching, Bernstein & Schwabe, INDOCRYPT 2008, §3; §4
//!   below); for AES-192/256 round 2 also comes from a per-call cache
//!   (§5), so their loops start at round 3.
//!
//! # The loop
//!
//! 16 blocks per iteration (R = 4 registers of four blocks). Encryption
//! hashes the ciphertext of two iterations back, re-read from the buffer,
//! while it encrypts the next counters; decryption hashes the ciphertext
//! it is about to decrypt. Reduction units are up to four groups (64
//! blocks) before the loop's last unit, which is at most two groups and
//! meets the per-lane powers. With at most 256 bytes of associated data
//! and 240 of text the whole hash (at most 32 blocks, lengths block
//! included) is one aggregated reduction. Otherwise the associated data
//! goes 16 blocks per reduction, the text through the loop, and its last
//! 0–255 bytes with the lengths block form the final group; tails use
//! byte-masked loads and stores, which also zero-pad a partial block.
//! AES-128 messages of 12 KiB and more whose buffer lies on a 16-byte
//! boundary run one to three blocks before the loop, so that its zmm
//! loads and stores meet whole cache lines.
//!
//! # Representation and bounds
//!
//! - Blocks are `u128` / 128-bit lanes in the POLYVAL domain (GCM's bytes
//!   reversed by one `vpshufb` per register); lane `l` of register `c`
//!   holds block `4c + l` of its group.
//! - Per-key tables (built in [`super`]): the round keys broadcast to four
//!   lanes (960 bytes from a 64-byte boundary, so no round key straddles
//!   two cache lines; read in place: [`stitch::Keys`]), the powers `H^32
//!   … H^1` and four zeros (36 entries), the uniform powers `H^64 … H^4`
//!   (64 entries, 1 KiB), and the round-1 table (256 entries, 4 KiB). Per call, AES-192
//!   and AES-256 only: 4 KiB of round-2 states on the stack, uninitialised,
//!   wiped before return over the lines written.
//! - The counter is the public `u32` of `inc32`, wrapping modulo 2^32; a
//!   run is 256 counters sharing bytes 0–14. Table loads are indexed by
//!   the public counter's last byte only.
//!
//! # Preconditions
//!
//! The caller ([`super`]) has checked SP 800-38D's length limits and
//! passes round keys and tables made from the same key (10, 12 or 14
//! rounds).
//!
//! # Postconditions
//!
//! `buf` holds the ciphertext (plaintext), and the result is the full tag
//! `AES(K, J0) ⊕ S`; truncation and the constant-time comparison are the
//! caller's. No branch or address depends on secret data.
//!
//! # Port budget (per 16 blocks, AES-128)
//!
//! On the measured core (Intel Xeon, family 6 model 207) 512-bit `vaesenc`
//! issues on port 0 only (throughput 1/cycle, latency 3); `vpclmulqdq`,
//! `vpshufb`, `vpshufd` and lane extracts on port 5 only; other vector ALU
//! operations on either. Per 16 blocks:
//!
//! | port | operations | count |
//! |---|---|---|
//! | 0 | AES rounds 2–10 of 16 blocks | 36 |
//! | 5 | 16 products, 4 byte reversals, ¼ of a reduction (2 products, 2 `vpshufd`) | ≈ 21 |
//! | 0 or 5 | 4 round-1 XORs, 4 keystream XORs, 8 ternary XORs into the sums, reduction and accumulator share | ≈ 17 |
//!
//! ≈ 74 operations on two ports: ≥ 37 cycles per 16 blocks (0.144
//! cycles/byte); AES alone from round 2 is 36 (0.141). The loop runs at ≈
//! 43 (the figure below). AES-256 needs 48 `vaesenc` per 16 blocks from
//! round 3 (0.1875 cycles/byte) with GHASH's ≈ 38 operations fitting beside
//! them on port 5, so its loop is bound by port 0. Karatsuba would trade
//! one product per register for a `vpshufd` (also port 5) and an XOR: no
//! port-5 slot saved, so the products are schoolbook.
//!
//! # Rejected
//!
//! - 32 blocks per iteration (R = 8) — AES states, hash inputs and round
//!   keys spill; ≈ 15 % slower.
//! - Hashing the previous iteration's ciphertext from registers — the
//!   products wait on the last AES round; ≈ 7 % slower. Three or four
//!   iterations back: ≈ 1 % slower.
//! - Round keys as `[u128; 4]` arrays built per call instead of
//!   `vbroadcasti32x4` — scalar stores that vector loads cannot forward
//!   from; ≈ 70 cycles per call. Broadcasts per call into the frame (before
//!   the key kept them) — 15 loads and stores a call and a copy of the keys
//!   left in the frame.
//! - Uniform powers as 16 single powers broadcast from memory — loop ≈ 50 %
//!   slower.
//! - Eight-group reduction units (128 blocks) — ≈ 1 % at 64 KiB, nothing at
//!   16 KiB, for 1 KiB more per key and a longer key setup.
//! - The round-2 cache for AES-128 — its loop is bound by both ports; the
//!   cache's bookkeeping (≈ 30 more scalar moves per 16 blocks) costs more
//!   than the `vaesenc` it saves.
//! - The round-2 storage in every key size's frame — AES-128 ≈ 10 % slower
//!   with the cache unused.
//! - Zeroing the round-2 storage instead of leaving it uninitialised —
//!   costs more than the cache saves at 16 KiB.
//! - Recording round 2 in every message with a loop — ≈ 50 cycles lost per
//!   message from 256 B to 1.4 KiB (hence `REPLAY_MIN`).
//! - The group start as an `#[inline]` function instead of a macro — kept
//!   out of line, the loop's zmm state spilled; 25–35 % slower.
//! - Less scalar work per iteration (bounds checked per group, one clamp
//!   for the prefetches) — no change.
//! - Products spread over the AES rounds, or the order pinned with empty
//!   `asm!` fences — no change; the out-of-order core interleaves them.
//! - AES-128's round keys loaded in the loop (`Keys::fresh`, as for
//!   AES-192/256) so that none can spill — decryption 2–3 % slower at
//!   16 KiB (Zen 4); the decryption loop reads its ciphertext a second
//!   time for the final XOR instead ([`stitch::unseen`]), which freed the
//!   registers a hoisted key had spilled from.
//! - The aligned head for AES-192/256 or below 12 KiB — port-0-bound loops
//!   lose nothing to split lines; the head's cost dominates.
//! - A masked load for the aligned head — cannot forward from stores in
//!   flight; a ≈ 250-cycle stall right after the caller writes the buffer.
//!
//! # Figure
//!
//! AES-128-GCM encryption of 16 KiB (13 bytes of associated data): 0.168
//! cycles/byte, 1.24× aws-lc-rs 1.19.0 (Intel Xeon family 6 model 207,
//! `cargo run --release -p peer-bench -- --filter gcm128_encrypt`).
//!
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// round and table indices are const-generic round counts and loop counters over the fixed power, uniform and round-1 tables; data offsets step by whole groups below `buf.len()` rounded down.
#![allow(clippy::indexing_slicing)]
#![doc = include_str!("../../docs/gcm-stitched-kernels.md")]
#![allow(unsafe_code)]

use super::stitch::{
    self, LAST_UNIT, ROUND1, TABLE, Units, counter_block_le, round1_base, round1_cached,
    round1_run, tag_bytes, target_fns,
};
use super::{Backend, Direction, GcmTuning, vaes256};
use crate::aes::RoundKeys;
use crate::cpu::{AesClmul, VaesAvx2, VaesAvx512};
use crate::ghash;
use crate::ghash::aggregate::zmm::{Sums, mul_acc, mul_acc2, reduce, reduce_lanes, zero_sums};
use crate::simd::{from_u128, zmm_from_u128s as from_u128s};
use core::arch::x86_64::{
    __m128i, __m512i, _mm_xor_si128, _mm512_add_epi32, _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128, _mm512_broadcast_i32x4, _mm512_castsi512_si128, _mm512_loadu_si512,
    _mm512_mask_storeu_epi8, _mm512_maskz_loadu_epi8, _mm512_maskz_mov_epi8,
    _mm512_maskz_set1_epi32, _mm512_set1_epi32, _mm512_shuffle_epi8, _mm512_storeu_si512,
    _mm512_xor_si512, _mm512_zextsi128_si512,
};
use zeroize::Zeroize;

/// Registers (of four blocks) per loop iteration (even: products are
/// accumulated two registers at a time).
const R: usize = 4;

/// `[$body; R]` with `$c` bound to each register's index: a loop, not
/// `array::from_fn` (a closure is a function of its own, without the
/// kernel's target features once LLVM leaves it out of line:
/// docs/ARCHITECTURE.md, "Closures in kernels").
macro_rules! regs {
    (|$c:ident| $body:expr) => {{
        let mut regs = [_mm512_set1_epi32(0); R];
        for ($c, reg) in regs.iter_mut().enumerate() {
            *reg = $body;
        }
        regs
    }};
}

/// Groups in a reduction unit before a loop's last (at most), which meets
/// the uniform powers of [`uniform_table`] (`H^64 … H^4`); the last unit
/// ([`LAST_UNIT`] groups at most) meets the per-lane powers of
/// [`power_table`](stitch::power_table) (`H^32 … H^1`). Reducing once per
/// 64 blocks instead of 32 saves a reduction (two products, two `vpshufd`,
/// two ternary XORs) and the accumulator's entry per 64 blocks.
const UNIT: usize = UNIFORM / (4 * R);
const _: () = assert!(LAST_UNIT * 4 * R <= 32 && UNIT * 4 * R == UNIFORM);
/// Bytes per loop iteration.
const STEP: usize = 64 * R;
const _: () = assert!(4 * R == super::stitch::STEP_BLOCKS);

/// The zmm kernel's key ([`stitch::Key`]): the AES-NI key schedule, the
/// power table ([`power_table`](stitch::power_table)), the uniform loop
/// powers ([`uniform_table`], its second table) and the counter-mode
/// round-1 table (see [`super::stitch`]), made once per key.
pub(super) type ZmmKey = stitch::Key<Kernel, UNIFORM, ROUND1, 4>;

/// The zmm kernel as its key sees it ([`stitch::Kernel`]): the proof of
/// its features.
#[derive(Clone, Copy)]
pub(super) struct Kernel(VaesAvx512);

/// The backend's key ([`Backend`]): the zmm kernel's key and, where the
/// tuning table gives this core's AVX-512 keys the ymm kernel below a
/// crossover (`vaes-avx512-split`: the zmm kernel's short-message path,
/// byte-masked zmm loads and stores and the zmm set-up of a call, costs
/// more than the whole ymm kernel on short messages), the ymm kernel's key
/// of the same AES key.
#[derive(Clone)]
pub(super) struct Key {
    zmm: ZmmKey,
    /// Messages (plaintext and associated data together) shorter than
    /// this run on `ymm`: 0 (and no `ymm`) for the zmm kernel alone.
    ymm_below: usize,
    ymm: Option<vaes256::Key>,
}

impl Backend for Key {
    type Token = (VaesAvx512, VaesAvx2);
    const NAME: &'static str = "vaes-avx512";

    /// Expands `key` (16, 24 or 32 bytes) and computes `H^1 … H^64` and the
    /// round-1 table; and the ymm kernel's key (with `tuning`'s schedule)
    /// if `tuning` gives a crossover.
    fn new((t, t256): (VaesAvx512, VaesAvx2), key: &[u8], tuning: GcmTuning) -> Key {
        let ymm_below = tuning.narrow_below(key.len());
        Key {
            zmm: ZmmKey::with_tables(
                Kernel(t),
                key,
                |h| ghash::gcm_powers_zmm(t.avx512_clmul(), h),
                |powers, _| uniform_table(t.avx512_clmul().clmul(), powers),
                crate::aes::aesni::round1_table,
            ),
            ymm_below,
            ymm: (ymm_below > 0).then(|| Backend::new(t256, key, tuning)),
        }
    }

    /// `vaes-avx512`, or `vaes-avx512-split` with the ymm kernel for
    /// short messages.
    fn name(&self) -> &'static str {
        if self.ymm.is_some() {
            "vaes-avx512-split"
        } else {
            Self::NAME
        }
    }

    fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        self.zmm.hash_padded(acc, data)
    }

    /// [`seal`] on the zmm kernel, or the ymm kernel's for a message below
    /// the crossover (forwarded; see [`stitch::Key`]).
    #[inline]
    fn seal(&self, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        if buf.len().saturating_add(aad.len()) < self.ymm_below
            && let Some(ymm) = &self.ymm
        {
            return ymm.seal(dir, j0, aad, buf);
        }
        seal(&self.zmm, dir, j0, aad, buf)
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.zmm.secret_spans(s);
        if let Some(ymm) = &self.ymm {
            ymm.secret_spans(s);
        }
    }
}

impl stitch::Kernel for Kernel {
    fn aes_clmul(self) -> AesClmul {
        self.0.aes_clmul()
    }

    #[cfg(test)]
    const SECOND: &'static str = "uniform power table";
}

/// The whole of GCM-AE / GCM-AD after `J0` on the zmm kernel
/// ([`Backend::seal`]): GHASH of `aad`, counter mode over `buf` (any
/// length) from `inc32(J0)` with the GHASH of the ciphertext, the lengths
/// block, and the full tag `AES(K, J0) ⊕ S`.
#[inline]
fn seal(key: &ZmmKey, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let _ = key.kernel;
    let rk = &key.rk;
    // SAFETY: the token in `key.kernel` proves every feature `seal_zmm`
    // is compiled for.
    unsafe {
        let e = dir == Direction::Encrypt;
        match rk.rounds {
            10 => seal_zmm::<10>(rk, key, e, j0, aad, buf, core::ptr::null_mut()),
            12 => seal_with_round2::<12>(rk, key, e, j0, aad, buf),
            _ => seal_with_round2::<14>(rk, key, e, j0, aad, buf),
        }
    }
}

/// Entries of the zmm kernel's uniform power table ([`uniform_table`]):
/// a reduction unit of up to four 16-block groups.
pub(super) const UNIFORM: usize = 64;

/// The zmm kernel's uniform powers, laid out as [`power_table`](stitch::power_table) but for
/// units of up to [`UNIFORM`] blocks: entries `4c … 4c + 3` are all
/// `H^(UNIFORM−4c)`, so every lane of register `c` meets the same power,
/// and a unit of `u` 16-block groups meets the last `16u` entries. With
/// them each of the four lanes carries its own GHASH stream (blocks `l`,
/// `l + 4`, …, Horner steps of `H^4`), and a reduced unit's four lanes
/// enter the next unit's first register as they are, without being
/// summed; a loop's last reduction unit meets [`power_table`](stitch::power_table)'s per-lane
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
/// the buffer: the hardware prefetchers alone leave this loop waiting on
/// L2 for messages past L1 (peer-bench A/B of the 1 MiB rows: about 13 %
/// for AES-128 encryption, no change up to 64 KiB). The ymm and AES-NI
/// loops are slow enough for the hardware prefetchers, and the same
/// prefetches cost them up to 3 %, so only the zmm kernel uses them.
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
    k: stitch::Keys<'a, __m512i>,
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

target_fns! {
    "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1";

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
        regs!(|c| {
            let v = _mm512_add_epi32(
                ctx.ctr_base,
                _mm512_add_epi32(ctx.lanes, _mm512_maskz_set1_epi32(0x1111, n.wrapping_add(4 * c as u32) as i32)),
            );
            _mm512_xor_si512(_mm512_shuffle_epi8(v, ctx.rev), ctx.k.at(0))
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

target_fns! {
    "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1";

    /// A register of AES states after round 1 taken to round
    /// [`start_round`]: through round 2 for AES-192/256, unchanged for
    /// AES-128.
    fn round1_to_start<const NR: usize>(ctx: &Ctx, x: __m512i) -> __m512i {
        if start_round(NR) == 2 { _mm512_aesenc_epi128(x, ctx.k.at(2)) } else { x }
    }

    /// One register of whitened counter blocks through AES.
    fn aes_reg<const NR: usize>(ctx: &Ctx, ctr: __m512i) -> __m512i {
        let k = ctx.k;
        let mut x = ctr;
        for r in 1..NR {
            x = _mm512_aesenc_epi128(x, k.at(r));
        }
        _mm512_aesenclast_epi128(x, k.at(NR))
    }

    /// `R` registers of AES states after round [`start_round`] through the
    /// other rounds.
    fn aes_regs<const NR: usize>(ctx: &Ctx, xs: [__m512i; R]) -> [__m512i; R] {
        let k = ctx.k;
        let mut x = xs;
        for r in start_round(NR) + 1..NR {
            for xi in &mut x {
                *xi = _mm512_aesenc_epi128(*xi, k.at(r));
            }
        }
        for xi in &mut x {
            *xi = _mm512_aesenclast_epi128(*xi, k.at(NR));
        }
        x
    }

    /// `R` registers of AES states after round [`start_round`] through the
    /// other rounds while `4R` byte-reversed blocks `g` are multiplied by
    /// the powers `p` into the sums `s`: returns the keystream and the sums.
    fn aes_ghash<const NR: usize>(ctx: &Ctx, xs: [__m512i; R], g: [__m512i; R], p: Powers, s: Sums) -> ([__m512i; R], Sums) {
        let k = ctx.k;
        let mut x = xs;
        let mut s = s;
        let first = start_round(NR) + 1;
        // Rounds first..first + R, each pair of them with two registers'
        // products.
        for c in (0..R).step_by(2) {
            for r in [first + c, first + c + 1] {
                for xi in &mut x {
                    *xi = _mm512_aesenc_epi128(*xi, k.at(r));
                }
            }
            mul_acc2(g[c], powers4(p.table, p.at + 4 * c), g[c + 1], powers4(p.table, p.at + 4 * c + 4), &mut s);
        }
        for r in first + R..NR {
            for xi in &mut x {
                *xi = _mm512_aesenc_epi128(*xi, k.at(r));
            }
        }
        for xi in &mut x {
            *xi = _mm512_aesenclast_epi128(*xi, k.at(NR));
        }
        (x, s)
    }

    /// One register of counter mode: the bytes of `inp` under `mask`
    /// XORed with the keystream of the counter blocks `ctr` (the others
    /// zeroed), for the caller's masked store, and their ciphertext
    /// byte-reversed for GHASH.
    fn ctr_reg<const NR: usize>(ctx: &Ctx, ctr: __m512i, inp: __m512i, mask: u64, encrypt: bool) -> (__m512i, __m512i) {
        let out = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(aes_reg::<NR>(ctx, ctr), inp));
        let ct = if encrypt { out } else { _mm512_maskz_mov_epi8(mask, inp) };
        (out, _mm512_shuffle_epi8(ct, ctx.rev))
    }

    /// Counter mode in place over the first `h` (1–3) blocks of the
    /// buffer's first 64 bytes `data` with the counter blocks `ctr`, and
    /// GHASH of their ciphertext after `inject`: returns the reduced
    /// state. One plain 64-byte load (a masked load cannot take its bytes
    /// from stores still in flight, so it waits for them to retire when the
    /// buffer has just been written), a masked store.
    fn ctr_head<const NR: usize>(ctx: &Ctx, ctr: __m512i, data: &mut [u8; 64], h: usize, encrypt: bool, inject: __m128i) -> __m128i {
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
    fn ctr_masked<const NR: usize>(ctx: &Ctx, ctr: [__m512i; R], data: &mut [u8], encrypt: bool, first: usize, inject: __m128i, s: &mut Sums) {
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
                let mut x = counters(ctx, n);
                for w in &mut x {
                    *w = round1_to_start::<NR>(ctx, _mm512_aesenc_epi128(*w, ctx.k.at(1)));
                }
                break 'regs x;
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
                regs!(|c| {
                    // SAFETY: as above.
                    let t = unsafe { _mm512_loadu_si512(r2.at(low + 4 * c).cast_const().cast()) };
                    _mm512_xor_si512(run.base, t)
                })
            } else {
                let x: [__m512i; R] = regs!(|c| {
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

target_fns! {
    "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1";

    /// Enters the run of counter `n`: its base for [`round2_regs`], of
    /// round 2 if `replay`, else of round 1.
    fn new_run(ctx: &Ctx, run: &mut Run, r2: &mut Round2, n: u32, replay: bool) {
        run.id = round1_run(n);
        let base = if replay {
            // The anchor block of this run through round 2, XORed with the
            // recorded anchor state.
            let a = counter_block_le(ctx.j0, (n & !0xff) | r2.anchor);
            // SAFETY: the recording run wrote entry `anchor` (its first block;
            // [`Round2`]'s invariant).
            stitch::round2(ctx.rk, a) ^ unsafe { r2.at(r2.anchor as usize).read() }
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
    fn hash_group(ctx: &Ctx, units: &mut Units, mut g: [__m512i; R], acc: &mut __m512i, s: &mut Sums) {
        let (p, closes, last) = group_powers(ctx, units, &mut g, *acc, s);
        *s = ghash_regs(g, p, *s);
        if closes {
            *acc = close_unit(*s, ctx.c, last);
        }
    }
}

target_fns! {
    entry "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1";

    /// [`seal_zmm`] with the storage of its round-2 cache ([`Round2`]) in
    /// this frame: AES-192/256 only. Not inlined into [`seal`], so that
    /// AES-128's calls do not carry the 4 KiB (with it in their frame,
    /// AES-128 encryption read about 10 % slower at 16 KiB in peer-bench
    /// A/B).
    #[inline(never)]
    fn seal_with_round2<const NR: usize>(rk: &RoundKeys, tables: &ZmmKey, encrypt: bool, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let mut states = Round2States(core::mem::MaybeUninit::uninit());
        seal_zmm::<NR>(rk, tables, encrypt, j0, aad, buf, states.0.as_mut_ptr().cast())
    }
}

/// The context of one loop iteration: for AES-192/256 the round keys
/// through [`stitch::Keys::fresh`], so that their loads stay in the loop
/// (hoisted, their 13 or 15 keys and the loop's state did not fit the 32
/// zmm registers and the keys were copied to the frame); AES-128's 11
/// keys fit and stay hoisted (loaded in the loop too, decryption ran 2–3 %
/// slower at 16 KiB on Zen 4). A key in a frame fails the stack tests —
/// and one AES-128 round key is the whole key, the schedule running
/// backwards.
#[inline(always)]
fn iteration_ctx<'a, const NR: usize>(ctx: &Ctx<'a>) -> Ctx<'a> {
    Ctx {
        k: if NR > 10 { ctx.k.fresh() } else { ctx.k },
        ..*ctx
    }
}

/// The kernel; `round2` is the storage of the round-2 cache's states (null
/// for AES-128, see [`start_round`]).
#[target_feature(
    enable = "avx512f,avx512bw,avx512vl,avx512dq,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1"
)]
fn seal_zmm<const NR: usize>(
    rk: &RoundKeys,
    tables: &ZmmKey,
    encrypt: bool,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
    round2: *mut u128,
) -> [u8; 16] {
    let j0_rev = j0.swap_bytes();
    let ctx = Ctx {
        // The key's broadcast round keys, read in place by the rounds.
        k: stitch::Keys::new(&tables.wide.0),
        rev: from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 4]),
        c: from_u128s([u128::from(ghash::C_HI); 4]),
        table: &tables.powers,
        uniform: &tables.second,
        rk,
        round1: &tables.round1,
        j0,
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
        // `AES(K, J0)` last: computed before the branch it lived across the
        // long path's loop, and before the counter mode across its loop,
        // and either way went to the frame (see [`stitch::tag_mask`]).
        let tag_mask = stitch::tag_mask::<NR, true>(rk, j0);
        absorb_one(&ctx, lengths, 31, &mut s);
        return tag_bytes(reduce(s, ctx.c), tag_mask);
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
        let g: [__m512i; R] = regs!(|c| unsafe {
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
    // Macros, not closures (docs/ARCHITECTURE.md, "Closures in kernels").
    macro_rules! load {
        ($i:expr, $c:expr) => {{
            let (i, c): (usize, usize) = ($i, $c);
            // SAFETY: callers pass i < full, c < R: chunk i lies inside `buf`.
            unsafe { _mm512_loadu_si512(ptr.add(STEP * i + 64 * c).cast()) }
        }};
    }
    macro_rules! store {
        ($i:expr, $c:expr, $v:expr) => {{
            let (i, c, v): (usize, usize, __m512i) = ($i, $c, $v);
            // SAFETY: as for `load!`.
            unsafe { _mm512_storeu_si512(ptr.add(STEP * i + 64 * c).cast(), v) }
        }};
    }
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
        // the scheduler (the encryption loop then ran clearly slower than
        // decryption's); two chunks back, they are ready.
        const LAG: usize = 2;
        macro_rules! rev_chunk {
            ($j:expr) => {{
                let j: usize = $j;
                regs!(|c| _mm512_shuffle_epi8(load!(j, c), ctx.rev))
            }};
        }
        for i in 0..full {
            let it = iteration_ctx::<NR>(&ctx);
            prefetch(ptr, buf_len, STEP * i, STEP);
            let xs = round2_regs!(&it, &mut run, &mut r2, n);
            let ks = if i >= LAG {
                let mut g = rev_chunk!(i - LAG);
                let (p, closes, last) = group_powers(&ctx, &mut units, &mut g, acc, &mut s);
                let (ks, s2) = aes_ghash::<NR>(&it, xs, g, p, s);
                s = s2;
                if closes {
                    acc = close_unit(s, ctx.c, last);
                }
                ks
            } else {
                aes_regs::<NR>(&it, xs)
            };
            n = n.wrapping_add(4 * R as u32);
            for (c, &k) in ks.iter().enumerate() {
                store!(i, c, _mm512_xor_si512(k, load!(i, c)));
            }
        }
        for j in full.saturating_sub(LAG)..full {
            let g = rev_chunk!(j);
            hash_group(&ctx, &mut units, g, &mut acc, &mut s);
        }
    } else {
        for i in 0..full {
            let it = iteration_ctx::<NR>(&ctx);
            prefetch(ptr, buf_len, STEP * i, STEP);
            let mut g: [__m512i; R] = regs!(|c| _mm512_shuffle_epi8(load!(i, c), ctx.rev));
            let xs = round2_regs!(&it, &mut run, &mut r2, n);
            let (p, closes, last) = group_powers(&ctx, &mut units, &mut g, acc, &mut s);
            let (ks, s2) = aes_ghash::<NR>(&it, xs, g, p, s);
            s = s2;
            if closes {
                acc = close_unit(s, ctx.c, last);
            }
            n = n.wrapping_add(4 * R as u32);
            // The ciphertext again, through a pointer the compiler cannot
            // match with `ptr`: held in `inp` across the rounds, its four
            // registers pushed a round key to the frame.
            let again = stitch::unseen(ptr);
            for (c, &k) in ks.iter().enumerate() {
                // SAFETY: as for `load!`.
                let v = unsafe { _mm512_loadu_si512(again.add(STEP * i + 64 * c).cast()) };
                store!(i, c, _mm512_xor_si512(k, v));
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
    // `AES(K, J0)` last, as in the short path.
    let tag_mask = stitch::tag_mask::<NR, true>(rk, j0);
    absorb_one(&ctx, len_block, 31, &mut s);
    tag_bytes(reduce(s, ctx.c), tag_mask)
}

#[cfg(test)]
mod tests {
    use super::UNIFORM;
    use crate::cpu::Clmul;
    use crate::ghash::dot_portable;

    /// The uniform power table: entries `4c … 4c + 3` all
    /// `H^(UNIFORM−4c)`, the powers above `H^32` computed with PCLMULQDQ,
    /// against a chain of portable products by `H`.
    #[test]
    fn uniform_table_holds_the_powers() {
        let Some(t) = Clmul::get() else { return };
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
