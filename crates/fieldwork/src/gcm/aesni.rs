//! Target features: `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability
//! token [`crate::cpu::AesClmul`].
//!
//! The stitched AES-GCM kernel on xmm, for CPUs with AES-NI and PCLMULQDQ
//! but without VAES (and under `FIELDWORK_MAX_ISA=clmul`): everything after
//! `J0` — GHASH of the associated data, counter-mode AES with AES-NI and
//! GHASH of the ciphertext with PCLMULQDQ in the same loop, the lengths
//! block and the tag — in one function. It follows the ymm kernel
//! ([`super::vaes256`]) function for function, one block per register
//! instead of two; the zmm kernel ([`super::vaes512`]) documents the math,
//! its sources and the derivations. SSE encodings only (no AVX), so it runs
//! on every CPU with AES-NI and PCLMULQDQ.
//!
//! # The algorithm, in brief
//!
//! 8 blocks per iteration (R = 8, 128 bytes): eight independent AES states,
//! enough to cover `aesenc`'s latency (3–4 cycles at two per cycle on the
//! measured core, 7 at one per cycle on Haswell). Encryption hashes the
//! ciphertext of two iterations back, read from the buffer, while it
//! encrypts the next counters; decryption hashes the ciphertext it is about
//! to decrypt; one product follows each of the first eight AES rounds, so
//! `pclmulqdq` (a different port from `aesenc` on Intel cores since
//! Skylake) runs beside the rounds. GHASH is POLYVAL on byte-reversed
//! blocks with aggregated reduction (Gueron & Kounavis, Intel white paper
//! 323640): block `j` of a group of `n` meets `H^(n−j)`, schoolbook
//! products (four `pclmulqdq` per block), Montgomery reduction `hi ⊕
//! fold(mid ⊕ fold(lo))` once per group pair (`H^16 … H^9`, then `H^8 …
//! H^1`).
//!
//! # Representation and bounds
//!
//! - Counters are big-endian blocks advanced by one `paddd` into byte 15
//!   while the low byte cannot wrap, else rebuilt from the public 32-bit
//!   counter (`inc32`, modulo 2^32); AES runs all rounds from round 0 (no
//!   round-1 table).
//! - The key's power table `H^32 … H^1` and four zeros, of which this
//!   kernel reads the last 16 entries.
//! - Associated data is read block by block, a partial last block through
//!   registers ([`crate::partial`]: a copy to a zeroed stack buffer made
//!   its vector load miss store forwarding, on the tag's chain). The text
//!   of tails and short messages goes through a zeroed 256-byte stack
//!   buffer ([`super::pad`]), with the keystream bytes past the end
//!   cleared by a `pcmpgtb` mask before they are stored or hashed.
//!
//! # Operation count (per 8 blocks, AES-128)
//!
//! 88 AES operations (8 round-0 XORs, 80 `aesenc`/`aesenclast`; ports 0
//! and 1 on the measured core), 34 `pclmulqdq` (port 5) and about 60 other
//! vector operations (any of the three): 182 operations on three ports,
//! ≈ 61 cycles. The loop takes ≈ 68 (the figure below): with 16 xmm
//! registers the compiler keeps a few sums and states on the stack. The
//! round keys are memory operands of the AES instructions, read from the
//! key schedule in place each iteration ([`stitch::Keys`]), not hoisted
//! into registers: 80 more loads per 8 blocks (on Zen 4 AES-128 12–21 %
//! slower than with the keys hoisted, AES-256 up to 30 % faster), and no
//! copy of the schedule in the frame. The last round takes the data into
//! its key (`aesenclast(x, k ⊕ data)`, [`last_xor`]): its result is the
//! output itself, and no register holds keystream the compiler could
//! spill.
//!
//! # Rejected
//!
//! - Karatsuba products — saves a `pclmulqdq` per block for a `pshufd` and
//!   two `pxor` (and a second power table): more operations, not fewer.
//! - Software prefetch (as in the zmm kernel) — no gain; AES-256 ≈ 3 %
//!   slower.
//! - Whitened counters advanced by one XOR from an 8-block table (round
//!   key 0 folded in) — AES-128 ≈ 1 % faster, AES-256 2–3 % slower.
//!
//! # Figure
//!
//! AES-128-GCM encryption of 16 KiB (13 bytes of associated data): 0.529
//! cycles/byte, 1.14× the system OpenSSL 3.0.19's stitched AES-NI code
//! (Intel Xeon family 6 model 207, column `fieldwork (aes-ni)` of `cargo
//! run --release -p peer-bench --features system-peers -- --filter
//! gcm128_encrypt`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// round and table indices are const-generic round counts and loop counters over the fixed power table; data offsets step by whole groups below `buf.len()` rounded down.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::pad::Pad;
use super::stitch::{self, TABLE, TAIL, Units, tag_bytes, target_fns};
use super::{Backend, Direction, GcmTuning};
use crate::aes::RoundKeys;
use crate::cpu::AesClmul;
use crate::ghash;
use crate::ghash::aggregate::xmm::{Sums, mul_acc, reduce, zero_sums};
use crate::simd::from_u128;
use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_aesenc_si128, _mm_and_si128, _mm_cmpgt_epi8, _mm_cvtsi32_si128,
    _mm_loadu_si128, _mm_set1_epi8, _mm_setzero_si128, _mm_shuffle_epi8, _mm_storeu_si128,
    _mm_xor_si128,
};

/// Blocks (registers) per loop iteration.
const R: usize = 8;
/// Blocks per loop group: a group with `k` groups of its pair still to
/// come meets the powers from table index `32 − GROUP·k` (`H^(GROUP·k) …`).
const GROUP: usize = R;
/// Bytes per loop iteration.
const STEP: usize = 16 * R;
const _: () = assert!(STEP <= TAIL);

/// The backend's key ([`Backend`], `aes-ni`; a [`stitch::Key`]): the AES-NI
/// key schedule and the power table
/// ([`power_table`](stitch::power_table)), made once per key; no other
/// tables.
pub(super) type Key = stitch::Key<Kernel, 0, 0, 0>;

/// The xmm kernel as its key sees it ([`stitch::Kernel`]): the proof of
/// its features.
#[derive(Clone, Copy)]
pub(super) struct Kernel(AesClmul);

impl Backend for Key {
    type Token = AesClmul;
    const NAME: &'static str = "aes-ni";

    /// Expands `key` (16, 24 or 32 bytes) and computes `H^1 … H^32`.
    fn new(t: AesClmul, key: &[u8], _: GcmTuning) -> Key {
        Key::with_tables(
            Kernel(t),
            key,
            |h| ghash::gcm_powers_xmm(t.clmul(), h),
            |_, _| [],
            |_, _| [],
        )
    }

    stitch::forward_to_kernel!(seal);
}

impl stitch::Kernel for Kernel {
    fn aes_clmul(self) -> AesClmul {
        self.0
    }
}

/// The whole of GCM-AE / GCM-AD after `J0` ([`Backend::seal`]): GHASH of
/// `aad`, counter mode over `buf` (any length) from `inc32(J0)` with the
/// GHASH of the ciphertext, the lengths block, and the full tag
/// `AES(K, J0) ⊕ S`.
fn seal(key: &Key, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let _ = key.kernel;
    let (rk, table) = (&key.rk, &key.powers);
    // SAFETY: the token in `key.kernel` proves every feature `seal_xmm`
    // is compiled for.
    unsafe {
        let e = dir == Direction::Encrypt;
        crate::aes::with_rounds!(rk.rounds, NR => seal_xmm::<NR>(rk, table, e, j0, aad, buf))
    }
}

/// Register `c` of the pad.
#[inline(always)]
fn pad_load(pad: &mut Pad, c: usize) -> __m128i {
    // SAFETY: `Pad::reg` points at 16 readable bytes.
    unsafe { _mm_loadu_si128(pad.reg::<16>(c).cast()) }
}

/// Overwrites register `c` of the pad.
#[inline(always)]
fn pad_store(pad: &mut Pad, c: usize, v: __m128i) {
    // SAFETY: `Pad::reg` points at 16 writable bytes.
    unsafe { _mm_storeu_si128(pad.reg::<16>(c).cast(), v) }
}

/// Per-call constants.
struct Ctx<'a> {
    /// AES round keys (`NR` + 1 used), loaded once.
    k: stitch::Keys<'a, __m128i>,
    /// Byte reversal.
    rev: __m128i,
    /// POLYVAL's `C = x^63 + x^62 + x^57` in the low word.
    c: __m128i,
    table: &'a [u128; TABLE],
    /// The counter block `J0` byte-reversed with its 32-bit counter zeroed.
    ctr_base: __m128i,
    /// The byte indices 0 … 15, for tail masks.
    byte_index: __m128i,
}

target_fns! {
    "aes,pclmulqdq,ssse3,sse4.1";

    /// The power `table[i]`.
    fn power(table: &[u128; TABLE], i: usize) -> __m128i {
        let i = i.min(TABLE - 1);
        // SAFETY: `i < TABLE`.
        unsafe { _mm_loadu_si128(table.as_ptr().add(i).cast()) }
    }

    /// The counter block `n` (big-endian), built from the 32-bit counter
    /// (wrapping as `inc32`) in the low dword of the byte-reversed `J0`.
    fn counter_reg(ctx: &Ctx, n: u32) -> __m128i {
        _mm_shuffle_epi8(_mm_add_epi32(ctx.ctr_base, _mm_cvtsi32_si128(n as i32)), ctx.rev)
    }

    /// The counter blocks `n + c`.
    fn counters(ctx: &Ctx, n: u32) -> [__m128i; R] {
        // Loops, not `array::from_fn` or `map`, in this file's kernels: an
        // outlined closure would lose their features (docs/ARCHITECTURE.md,
        // "Closures in kernels").
        let mut x = [_mm_setzero_si128(); R];
        for (c, x) in x.iter_mut().enumerate() {
            *x = counter_reg(ctx, n.wrapping_add(c as u32));
        }
        x
    }

    /// The `R` blocks of a `STEP`-byte chunk, byte-reversed for GHASH.
    fn rev_group(ctx: &Ctx, chunk: &[u8; STEP]) -> [__m128i; R] {
        let mut g = [_mm_setzero_si128(); R];
        for (c, g) in g.iter_mut().enumerate() {
            // SAFETY: `c < R`: bytes `16·c .. 16·c + 16` lie in the
            // `STEP = 16·R` bytes of `chunk`.
            *g = _mm_shuffle_epi8(unsafe { _mm_loadu_si128(chunk.as_ptr().add(16 * c).cast()) }, ctx.rev);
        }
        g
    }

    /// The counters `R` blocks on, given those at `n`: one `paddd` into
    /// byte 15 while the low byte cannot wrap, else rebuilt.
    fn advance(ctx: &Ctx, be: [__m128i; R], n: u32) -> [__m128i; R] {
        if (n & 0xff) as usize + 2 * R - 1 <= 0xff {
            let inc = from_u128((R as u128) << 120);
            let mut be = be;
            for v in &mut be {
                *v = _mm_add_epi32(*v, inc);
            }
            be
        } else {
            counters(ctx, n.wrapping_add(R as u32))
        }
    }

    /// Keeps the first `bytes` (clamped to 0 … 16) bytes of `v`, zeroes the
    /// rest.
    fn keep_bytes(ctx: &Ctx, v: __m128i, bytes: usize) -> __m128i {
        let n = _mm_set1_epi8(bytes.min(16) as i8);
        _mm_and_si128(v, _mm_cmpgt_epi8(n, ctx.byte_index))
    }

    /// `R` byte-reversed blocks `g` multiplied by the powers `p` into `s`.
    fn ghash_regs(ctx: &Ctx, g: [__m128i; R], p: usize, s: Sums) -> Sums {
        let mut s = s;
        for (c, &gc) in g.iter().enumerate() {
            mul_acc(gc, power(ctx.table, p + c), &mut s);
        }
        s
    }

    /// Absorbs the ≤ 256 bytes of `data` (the last block zero-padded) into
    /// `s`: block `j` meets `table[first + j]`; `inject` enters block 0. A
    /// partial last block is read with [`crate::partial::le_partial`].
    fn absorb_tail(ctx: &Ctx, data: &[u8], first: usize, inject: __m128i, s: &mut Sums) {
        for (c, block) in data.chunks(16).take(TAIL / 16).enumerate() {
            let mut g = _mm_shuffle_epi8(load_block(block), ctx.rev);
            if c == 0 {
                g = _mm_xor_si128(g, inject);
            }
            mul_acc(g, power(ctx.table, first + c), s);
        }
    }
}

/// A block of at most 16 bytes, zero-padded: a whole block by one load,
/// a partial one built in registers (a copy to a zeroed stack buffer made
/// the vector load wait for the copy's stores; see [`crate::partial`]).
#[inline(always)]
fn load_block(block: &[u8]) -> __m128i {
    match block.first_chunk::<16>() {
        Some(b) => from_u128(u128::from_le_bytes(*b)),
        None => from_u128(crate::partial::le_partial(block)),
    }
}

target_fns! {
    "aes,pclmulqdq,ssse3,sse4.1";

    /// One counter block through AES rounds 0 … NR − 1: the last round is
    /// the caller's, through [`last_xor`].
    fn aes_reg<const NR: usize>(ctx: &Ctx, ctr: __m128i) -> __m128i {
        let k = ctx.k;
        let mut x = _mm_xor_si128(ctr, k.at(0));
        for r in 1..NR {
            x = _mm_aesenc_si128(x, k.at(r));
        }
        x
    }

    /// The last round with the data `v` in its key: `aesenclast(x, k ⊕ v)`
    /// is the keystream XORed with `v`, so that no register holds the
    /// keystream alone (its spills were left in the frame); one `asm!`
    /// block ([`stitch::Keys::last_round_xor`]), so that `k ⊕ v` is never
    /// spilled either.
    fn last_xor<const NR: usize>(ctx: &Ctx, x: __m128i, v: __m128i) -> __m128i {
        ctx.k.last_round_xor(x, NR, v)
    }

    /// `R` counter blocks through AES rounds 0 … NR − 1 ([`last_xor`] is
    /// the caller's).
    fn aes_regs<const NR: usize>(ctx: &Ctx, ctr: [__m128i; R]) -> [__m128i; R] {
        let k = ctx.k;
        let mut x = ctr;
        for xi in &mut x {
            *xi = _mm_xor_si128(*xi, k.at(0));
        }
        for r in 1..NR {
            let kr = k.at(r);
            for xi in &mut x {
                *xi = _mm_aesenc_si128(*xi, kr);
            }
        }
        x
    }

    /// `R` counter blocks through AES rounds 0 … NR − 1 while the `R`
    /// byte-reversed blocks `g` are multiplied by the powers `p` into the
    /// sums `s`: returns the states before the last round and the sums.
    fn aes_ghash<const NR: usize>(ctx: &Ctx, ctr: [__m128i; R], g: [__m128i; R], p: usize, s: Sums) -> ([__m128i; R], Sums) {
        let k = ctx.k;
        let mut x = ctr;
        for xi in &mut x {
            *xi = _mm_xor_si128(*xi, k.at(0));
        }
        let mut s = s;
        // Rounds 1..=R, each with one block's product.
        for (c, &gc) in g.iter().enumerate() {
            for xi in &mut x {
                *xi = _mm_aesenc_si128(*xi, k.at(c + 1));
            }
            mul_acc(gc, power(ctx.table, p + c), &mut s);
        }
        for r in R + 1..NR {
            let kr = k.at(r);
            for xi in &mut x {
                *xi = _mm_aesenc_si128(*xi, kr);
            }
        }
        (x, s)
    }

    /// Counter mode in place over the ≤ 256 bytes of `data` from the
    /// counter `n`, absorbing the ciphertext into `s` (block `j` meets
    /// `table[first + j]`; `inject` enters block 0). Through a zeroed
    /// stack copy ([`Pad`]); keystream past the end is masked off before
    /// it is stored or hashed. (Direct loads and stores, with the partial
    /// block through registers as in [`absorb_tail`], measured slower on
    /// Zen 3 — 16 bytes of AES-128-GCM 88 against 68 ns, 256 bytes 142
    /// against 131, at every buffer placement tried — and were not kept;
    /// the cause was not traced.)
    fn ctr_tail<const NR: usize>(ctx: &Ctx, n: u32, data: &mut [u8], encrypt: bool, first: usize, inject: __m128i, s: &mut Sums) {
        let len = data.len();
        let mut pad = Pad::EMPTY;
        pad.fill(data);
        for c in 0..pad.regs::<16>() {
            // Each block's loads of the round keys (see [`stitch::Keys`]).
            let it = Ctx { k: ctx.k.fresh(), ..*ctx };
            let x = aes_reg::<NR>(&it, counter_reg(ctx, n.wrapping_add(c as u32)));
            let inp = pad_load(&mut pad, c);
            let out = keep_bytes(ctx, last_xor::<NR>(&it, x, inp), len - 16 * c);
            pad_store(&mut pad, c, out);
            let mut g = _mm_shuffle_epi8(if encrypt { out } else { inp }, ctx.rev);
            if c == 0 {
                g = _mm_xor_si128(g, inject);
            }
            mul_acc(g, power(ctx.table, first + c), s);
        }
        pad.copy_to(data);
        pad.wipe();
    }

    /// Prepares the next loop group ([`Units`], in pairs): its powers, and
    /// whether it opens a pair (no reduction after it). A group that opens a
    /// pair or stands alone starts from empty sums with the accumulator
    /// entering its first block.
    fn group_powers(
        units: &mut Units,
        g: &mut [__m128i; R],
        acc: __m128i,
        s: &mut Sums,
    ) -> (usize, bool) {
        let place = units.next();
        if place.starts {
            *s = zero_sums();
            g[0] = _mm_xor_si128(g[0], acc);
        }
        (place.pair_at(GROUP), !place.closes)
    }

    /// Hashes one loop group that no AES work is stitched to (associated data,
    /// the encryption loop's last lagging chunks): [`group_powers`], its
    /// products, and the reduction when the group closes its unit.
    fn hash_group(ctx: &Ctx, units: &mut Units, mut g: [__m128i; R], acc: &mut __m128i, s: &mut Sums) {
        let (p, open) = group_powers(units, &mut g, *acc, s);
        *s = ghash_regs(ctx, g, p, *s);
        if !open {
            *acc = reduce(*s, ctx.c);
        }
    }
}

#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn seal_xmm<const NR: usize>(
    rk: &RoundKeys,
    table: &[u128; TABLE],
    encrypt: bool,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let j0_rev = j0.swap_bytes();
    let ctx = Ctx {
        // The key schedule, read in place by the rounds.
        k: stitch::Keys::new(&rk.rk),
        rev: from_u128(0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f),
        c: from_u128(u128::from(ghash::C_HI)),
        table,
        ctr_base: from_u128(j0_rev & !0xffff_ffff),
        byte_index: from_u128(0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100),
    };
    let lengths =
        from_u128((u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8));
    // The first data block's counter: inc32(J0).
    let mut n = (j0_rev as u32).wrapping_add(1);
    let mut acc = _mm_setzero_si128();

    // Short messages: the associated data, the ciphertext and the lengths
    // block in one aggregated reduction (at most 16 + 15 + 1 powers).
    if aad.len() <= 256 && buf.len() <= 240 {
        let (ab, cb) = (aad.len().div_ceil(16), buf.len().div_ceil(16));
        let first = 32 - (ab + cb + 1);
        let mut s = zero_sums();
        absorb_tail(&ctx, aad, first, acc, &mut s);
        ctr_tail::<NR>(&ctx, n, buf, encrypt, first + ab, acc, &mut s);
        // `AES(K, J0)` last: computed before the branch it lived across the
        // long path's loop, and before the counter mode across its loop,
        // and either way went to the frame (see [`stitch::tag_mask`]).
        let tag_mask = stitch::tag_mask::<NR, false>(rk, j0);
        mul_acc(lengths, power(ctx.table, 31), &mut s);
        return tag_bytes(reduce(s, ctx.c), tag_mask);
    }

    // Associated data: R blocks per group, paired per reduction as in the
    // loop below, then the rest as one group.
    let (groups, a) = aad.as_chunks::<STEP>();
    let mut units = Units::new(groups.len(), 2);
    let mut s = zero_sums();
    for g in groups {
        let g = rev_group(&ctx, g);
        hash_group(&ctx, &mut units, g, &mut acc, &mut s);
    }
    if !a.is_empty() {
        let mut s = zero_sums();
        absorb_tail(&ctx, a, 32 - a.len().div_ceil(16), acc, &mut s);
        acc = reduce(s, ctx.c);
    }

    let full = buf.len() / STEP;
    let ptr = buf.as_mut_ptr();
    let load = |i: usize, c: usize| {
        // SAFETY: callers pass i < full, c < R: chunk i lies inside `buf`.
        unsafe { _mm_loadu_si128(ptr.add(STEP * i + 16 * c).cast()) }
    };
    let store = |i: usize, c: usize, v: __m128i| {
        // SAFETY: as for `load`.
        unsafe { _mm_storeu_si128(ptr.add(STEP * i + 16 * c).cast(), v) }
    };
    // Every full chunk's ciphertext is hashed in the loop, in pairs.
    let mut units = Units::new(full, 2);
    let mut ctr = counters(&ctx, n);
    let mut s = zero_sums();
    if encrypt {
        // As in the zmm kernel: the ciphertext of chunk i − LAG is hashed
        // while chunk i is encrypted, read back from `buf`, so the products
        // do not wait on the previous iteration's last AES round.
        const LAG: usize = 2;
        let rev_chunk = |j: usize| -> [__m128i; R] {
            // SAFETY: callers pass j < full: chunk j lies inside `buf`, and
            // nothing writes `buf` while the reference lives.
            rev_group(&ctx, unsafe { &*ptr.add(STEP * j).cast::<[u8; STEP]>() })
        };
        for i in 0..full {
            // This iteration's loads of the round keys (see [`stitch::Keys`]).
            let it = Ctx {
                k: ctx.k.fresh(),
                ..ctx
            };
            let ks = if i >= LAG {
                let mut g = rev_chunk(i - LAG);
                let (p, open) = group_powers(&mut units, &mut g, acc, &mut s);
                let (ks, s2) = aes_ghash::<NR>(&it, ctr, g, p, s);
                s = s2;
                if !open {
                    acc = reduce(s, ctx.c);
                }
                ks
            } else {
                aes_regs::<NR>(&it, ctr)
            };
            ctr = advance(&ctx, ctr, n);
            n = n.wrapping_add(R as u32);
            for (c, &x) in ks.iter().enumerate() {
                store(i, c, last_xor::<NR>(&it, x, load(i, c)));
            }
        }
        for j in full.saturating_sub(LAG)..full {
            let g = rev_chunk(j);
            hash_group(&ctx, &mut units, g, &mut acc, &mut s);
        }
    } else {
        for i in 0..full {
            let it = Ctx {
                k: ctx.k.fresh(),
                ..ctx
            };
            let mut inp = [_mm_setzero_si128(); R];
            let mut g = [_mm_setzero_si128(); R];
            for c in 0..R {
                inp[c] = load(i, c);
                g[c] = _mm_shuffle_epi8(inp[c], ctx.rev);
            }
            let (p, open) = group_powers(&mut units, &mut g, acc, &mut s);
            let (ks, s2) = aes_ghash::<NR>(&it, ctr, g, p, s);
            s = s2;
            if !open {
                acc = reduce(s, ctx.c);
            }
            ctr = advance(&ctx, ctr, n);
            n = n.wrapping_add(R as u32);
            for c in 0..R {
                store(i, c, last_xor::<NR>(&it, ks[c], inp[c]));
            }
        }
    }
    // The last 0 … STEP − 1 bytes and the lengths block: one group.
    let tail = &mut buf[STEP * full..];
    let first = 32 - (tail.len().div_ceil(16) + 1);
    let mut s = zero_sums();
    let len_block = if tail.is_empty() {
        _mm_xor_si128(lengths, acc)
    } else {
        ctr_tail::<NR>(&ctx, n, tail, encrypt, first, acc, &mut s);
        lengths
    };
    // `AES(K, J0)` last, as in the short path.
    let tag_mask = stitch::tag_mask::<NR, false>(rk, j0);
    mul_acc(len_block, power(ctx.table, 31), &mut s);
    tag_bytes(reduce(s, ctx.c), tag_mask)
}
