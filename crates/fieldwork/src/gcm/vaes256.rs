//! Target features: `avx`, `avx2`, `vaes`, `vpclmulqdq`, `aes`, `pclmulqdq`,
//! `ssse3`, `sse4.1` — capability token [`crate::cpu::VaesAvx2`].
//!
//! The stitched AES-GCM kernel on ymm, for CPUs with VAES and VPCLMULQDQ
//! but without AVX-512 (and for AVX-512 CPUs under `FIELDWORK_MAX_ISA=avx2`):
//! everything after `J0` — GHASH of the associated data, counter-mode AES
//! with VAES (two blocks per `vaesenc`) and GHASH of the ciphertext with
//! VPCLMULQDQ in the same loop, the lengths block and the tag — in one
//! function. It follows the zmm kernel ([`super::vaes512`]) function for
//! function; the math, its sources and the derivations are documented
//! there. Measured history and next ideas: `docs/notes/gcm-vaes256.md`.
//!
//! # The algorithm, in brief
//!
//! 16 blocks per iteration (R = 8 registers of two blocks, 256 bytes).
//! Encryption hashes the ciphertext of two iterations back, re-read from
//! the buffer, while it encrypts the next counters; decryption hashes the
//! ciphertext it is about to decrypt. GHASH is POLYVAL on byte-reversed
//! blocks with aggregated reduction (Gueron & Kounavis, Intel white paper
//! 323640): block `j` of a group of `n` meets `H^(n−j)`, schoolbook
//! products (four `vpclmulqdq` per register, two registers' products
//! entering the sums together), the two lanes' 256-bit sums reduced
//! together (`hi ⊕ fold(mid ⊕ fold(lo))`) and XORed. Groups are reduced in
//! pairs (`H^32 … H^17`, then `H^16 … H^1`). AES starts at round 2 from
//! the key's round-1 table while an iteration's counters share bytes 0–14
//! (one `vpxor` per register), else from counter blocks built from the
//! 32-bit counter (`inc32` semantics) and run through round 1. With at most
//! 256 bytes of associated data and 256 of text (31 blocks in all) the
//! whole hash is one aggregated reduction of at most 32 blocks, and the
//! text's counter registers go through the AES rounds together. The
//! stitched loops form each GHASH input (load, byte reversal, the
//! accumulator into the first block) where its product is taken, not all
//! eight before the rounds, where they would live across the rounds beside
//! eight AES states spilled to the stack.
//!
//! # Representation: differences from the zmm kernel
//!
//! - Two blocks per register and 16 vector registers (not 32): the round
//!   keys are read where used from the key's broadcast copies, each round
//!   of the eight registers one `asm!` block that loads its key into a
//!   scratch register ([`stitch::Keys::round8`]), so that the compiler
//!   can neither hoist a key out of the loop nor spill it; the powers come
//!   from the table; the counters' base and the sums may spill. The last
//!   round takes the data into its key (`vaesenclast(x, k ⊕ data)`,
//!   [`stitch::Keys::last_round8_xor`]): the output is the ciphertext or
//!   plaintext itself and no register ever holds keystream.
//! - No masked byte loads or stores (no AVX-512BW): the last partial
//!   register of a tail (the last 0–255 bytes, short messages, associated
//!   data) is read and written with AVX2's masked dword loads and stores
//!   plus 1–3 single bytes (`simd::load_partial32`, `store_partial32`), not
//!   through a zeroed stack buffer, whose whole-register loads would miss
//!   store forwarding on the tag's dependency chain. Keystream bytes past
//!   the end are cleared by a `vpcmpgtb` mask built from the public length
//!   before they are hashed, so the partial block is zero-padded as GHASH
//!   requires; the test `buffers_against_guard_pages` puts buffers against
//!   inaccessible pages to show nothing past either end is touched.
//! - No `vpternlogq`: three-way XORs are two `vpxor`.
//! - No uniform powers, no round-2 cache, no aligned head, no software
//!   prefetch. The key's powers are the xmm kernel's with all 32 computed
//!   (`GcmHashKey::xmm_all_powers`), laid out as the zmm kernel's table.
//!
//! # Two schedules for the GHASH products ([`Schedule`])
//!
//! Schoolbook products take four `vpclmulqdq` per register, Karatsuba three
//! plus a `vpshufd` and a `vpxor` for the data's half-sum (the powers'
//! half-sums are the key's second table, `Key::second`). Which is cheaper
//! depends on the core, so the key chooses once, from the tuning table
//! (`gcm/tuning.rs`): schoolbook on Intel (where `vpclmulqdq` issues once
//! per cycle and shares its port with the shuffles), Karatsuba on AMD (Zen
//! 3: `vpclmulqdq` once per two cycles, shuffles twice per cycle). Both are
//! tested on every CPU that runs this kernel (the hazmat names `vaes-avx2`
//! and `vaes-avx2-karatsuba`). The schedule is a const
//! parameter of the kernel, not a flag tested in the loop: the test split
//! each iteration into basic blocks the compiler schedules separately.
//!
//! # Operation count and floor (per 16 blocks, AES-128)
//!
//! 72 ymm `vaesenc` (rounds 2–10 of eight registers) and 8 `vaesenclast`;
//! GHASH: 32 `vpclmulqdq` (schoolbook) or 24 plus 8 `vpshufd` (Karatsuba),
//! and ≈ 1 more for the pair reduction; 8 `vpshufb` for the ciphertext's
//! byte order; ≈ 45 `vpxor`.
//!
//! Zen 3 (family 25 model 1, `cargo run --release -p peer-bench --
//! --isa-rates`): `vpclmulqdq` ymm one per 2 cycles (latency 4); `vaesenc`
//! ymm, `vpshufb` and `vpshufd` two per cycle on the same two pipes (mixed
//! with each other they add up); `vpxor` four per cycle; a `vpclmulqdq`
//! mixed 1:5 with `vaesenc` takes ≈ 1.1 cycles of those two pipes. The
//! schoolbook loop needs 66 cycles of the `vpclmulqdq` unit; the Karatsuba
//! loop 50, and ≈ 60 of the AES/shuffle pipes ((80 + 8 + 8 + 25 × 1.1) ÷
//! 2): a floor of ≈ 60 cycles, 0.23 cycles/byte. The loop runs well above
//! it: the AES rounds and the GHASH products barely overlap on this core
//! (`vaesenc`, the shuffles and in part `vpclmulqdq` compete for the same
//! two pipes).
//!
//! Zen 4 under `FIELDWORK_MAX_ISA=avx2` (family 25 model 17, `peer-bench
//! --isa-rates`): `vpclmulqdq` ymm one per 2 cycles, `vaesenc` ymm two a
//! cycle; mixed 1:5 a product costs 3.0 cycles against 2.5 on separate
//! pipes, so a product takes an AES pipe for part of its two cycles.
//! Counting each product as two cycles of one of the two AES/shuffle
//! pipes: (80 + 16 + 2 × 25) ÷ 2 = 73 cycles an iteration; the kernel runs
//! within about 6 % of that floor.
//!
//! Intel Xeon family 6 model 207 under the avx2 cap (`peer-bench
//! --isa-rates`): `vaesenc` ymm two a cycle (latency 3), `vpclmulqdq` ymm
//! one a cycle (latency 3) on another pipe (mixed 1:5 with `vaesenc`, 2.66
//! cycles a product: the products hide under the rounds), `vpxor` three a
//! cycle, `vpshufb` two. Per 16 blocks (AES-128, schoolbook): 80 AES
//! instructions on two pipes (40 cycles), 34 products on a third, and ≈
//! 59 that can issue on any of the three (8 byte reversals, 8 round-1
//! XORs, 32 XORs into the sums, 8 keystream XORs, the reduction's share):
//! 173 over three pipes, a floor of ≈ 58 cycles; the kernel runs about
//! 10 % over it, the rest being in the instruction order, not the count.
//! At 1 MiB both directions are bound by the caches rather than the pipes.
//!
//! The peer-bench decrypt rows add the copy of the ciphertext into the
//! work buffer that every in-place API needs, which compresses their
//! ratios; the ignored test `gcm_kernel_directions` times the kernel alone
//! in both directions, and the copy.
//!
//! # Rejected
//!
//! - An empty `asm!` fence after each register pair's products, to keep
//!   rounds and products interleaved as in the source — 16 KiB
//!   encryption ≈ 20 % slower (Xeon, avx2 cap).
//! - Decryption's second read of the ciphertext by an `asm!` load, to
//!   keep the hash's load out of a spill slot — AES-256 ≈ 10 % slower.
//! - 8 blocks per iteration (R = 4, leaving registers for round keys) —
//!   slower at every bulk size, ≈ 10 % at 64 KiB (Xeon).
//! - Software prefetch (as in the zmm kernel) — no change.
//! - Each `vaesenc` with its key as a memory operand (one `asm!` block
//!   per register and round) — AES-128 encryption of 16 KiB ≈ 20 % slower
//!   on Zen 4 (avx2 cap) than one key load per round for eight registers.
//! - The GHASH products spread evenly over all the rounds, or all after
//!   the first four rounds — both slower on Zen 3; two rounds a product
//!   pair from round 2 is kept.
//!
//! # Figures
//!
//! AES-128-GCM encryption of 16 KiB (13 bytes of associated data), column
//! `fieldwork best` of `cargo run --release -p peer-bench -- --filter
//! gcm128_encrypt`: on Zen 3, 0.345 cycles/byte by the TSC, 1.18× ring
//! 0.17.14 (Karatsuba); on an Intel Xeon family 6 model 207 under
//! `FIELDWORK_MAX_ISA=avx2`, 0.274 cycles/byte, 1.22× ring (schoolbook).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// round and table indices are const-generic round counts and loop counters over the fixed power and round-1 tables; data offsets step by whole groups below `buf.len()` rounded down.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::stitch::{
    self, ROUND1, TABLE, TAIL, Units, round1_base, round1_cached, round1_run, tag_bytes,
};
use super::{Backend, Direction, GcmTuning, Schedule};
use crate::aes::RoundKeys;
use crate::cpu::{AesClmul, VaesAvx2};
use crate::ghash;
use crate::ghash::aggregate::ymm::{Sums, mul_acc, mul_acc2, mul_acc2_halves, reduce, zero_sums};
use crate::simd::{from_u128, load_partial32, store_partial32, ymm_from_u128s as from_u128s};
use core::arch::x86_64::{
    __m128i, __m256i, _mm_setzero_si128, _mm_xor_si128, _mm256_add_epi32, _mm256_and_si256,
    _mm256_blend_epi32, _mm256_broadcastsi128_si256, _mm256_cmpgt_epi8, _mm256_loadu_si256,
    _mm256_set1_epi8, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_shuffle_epi8,
    _mm256_storeu_si256, _mm256_xor_si256, _mm256_zextsi128_si256,
};

/// Registers (of two blocks) per loop iteration (even: products are
/// accumulated two registers at a time).
const R: usize = 8;
/// Blocks per loop group: a group with `k` groups of its pair still to
/// come meets the powers from table index `32 − GROUP·k` (`H^(GROUP·k) …`).
const GROUP: usize = 2 * R;
/// Bytes per loop iteration.
const STEP: usize = 32 * R;
const _: () = assert!(R.is_multiple_of(2));
const _: () = assert!(STEP <= TAIL);
const _: () = assert!(2 * R == super::stitch::STEP_BLOCKS);

/// The backend's key ([`Backend`], `vaes-avx2`; a [`stitch::Key`]): the
/// AES-NI key schedule, the power table ([`power_table`](stitch::power_table)), its second table: each
/// power's Karatsuba half-sum `p₀ ⊕ p₁` in both words (Karatsuba schedule
/// only), and the counter-mode round-1 table (see [`super::stitch`]), made
/// once per key.
pub(super) type Key = stitch::Key<Kernel, TABLE, ROUND1, 2>;

/// The ymm kernel as its key sees it ([`stitch::Kernel`]): the proof of
/// its features and the GHASH schedule chosen for the key.
#[derive(Clone, Copy)]
pub(super) struct Kernel {
    t: VaesAvx2,
    schedule: Schedule,
}

impl Backend for Key {
    type Token = VaesAvx2;
    const NAME: &'static str = "vaes-avx2";

    /// Expands `key` (16, 24 or 32 bytes) and computes `H^1 … H^32`, their
    /// half-sums and the round-1 table; the GHASH schedule is `tuning`'s.
    fn new(t: VaesAvx2, key: &[u8], tuning: GcmTuning) -> Key {
        Key::with_tables(
            Kernel {
                t,
                schedule: tuning.schedule,
            },
            key,
            |h| ghash::gcm_powers_xmm(t.aes_clmul().clmul(), h),
            |_, table| {
                table.map(|p| {
                    let h = (p as u64 ^ (p >> 64) as u64) as u128;
                    h | h << 64
                })
            },
            crate::aes::aesni::round1_table,
        )
    }

    /// `vaes-avx2` (schoolbook products) or `vaes-avx2-karatsuba`.
    fn name(&self) -> &'static str {
        match self.kernel.schedule {
            Schedule::Schoolbook => Self::NAME,
            Schedule::Karatsuba => "vaes-avx2-karatsuba",
        }
    }

    stitch::forward_to_kernel!(seal);
}

impl stitch::Kernel for Kernel {
    fn aes_clmul(self) -> AesClmul {
        self.t.aes_clmul()
    }

    #[cfg(test)]
    const SECOND: &'static str = "Karatsuba half-sums";
}

/// The whole of GCM-AE / GCM-AD after `J0` ([`Backend::seal`]): GHASH of
/// `aad`, counter mode over `buf` (any length) from `inc32(J0)` with the
/// GHASH of the ciphertext, the lengths block, and the full tag
/// `AES(K, J0) ⊕ S`.
fn seal(key: &Key, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    if key.kernel.schedule == Schedule::Karatsuba {
        seal_as::<true>(key, dir, j0, aad, buf)
    } else {
        seal_as::<false>(key, dir, j0, aad, buf)
    }
}

/// [`seal`] on the kernel instantiated for the schedule `K` (Karatsuba if
/// true) and the key's round count.
fn seal_as<const K: bool>(
    key: &Key,
    dir: Direction,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let (rk, table, halves, round1) = (&key.rk, &key.powers, &key.second, &key.round1);
    let wide = &key.wide;
    let (t, e) = (key.kernel.t, dir == Direction::Encrypt);
    // SAFETY: the token `t` proves every feature `seal_ymm` is compiled for.
    unsafe {
        match rk.rounds {
            10 => seal_ymm::<10, K>(t, rk, wide, table, halves, round1, e, j0, aad, buf),
            12 => seal_ymm::<12, K>(t, rk, wide, table, halves, round1, e, j0, aad, buf),
            _ => seal_ymm::<14, K>(t, rk, wide, table, halves, round1, e, j0, aad, buf),
        }
    }
}

/// Per-call constants.
struct Ctx<'a> {
    /// The proof of the kernel's features, for its `#[inline(always)]`
    /// helpers.
    t: VaesAvx2,
    /// AES round keys broadcast to both lanes (`NR` + 1 used).
    k: stitch::Keys<'a, __m256i>,
    /// Byte reversal within each 128-bit lane.
    rev: __m256i,
    /// POLYVAL's `C = x^63 + x^62 + x^57` in each lane's low word.
    c: __m256i,
    table: &'a [u128; TABLE],
    /// The powers' Karatsuba half-sums ([`Key`]).
    halves: &'a [u128; TABLE],
    /// The round keys, the round-1 table ([`super::stitch`]) and
    /// `J0` (its bytes little-endian), for the round-1 bases.
    rk: &'a RoundKeys,
    round1: &'a [u128; ROUND1],
    j0: u128,
    /// The counter block `J0` byte-reversed with its 32-bit counter
    /// replaced by the lane offset (0, 1).
    ctr_base: __m256i,
    /// The byte indices 0 … 31, for tail masks.
    byte_index: __m256i,
    /// GHASH products in Karatsuba form (see [`Schedule`]): the kernel's
    /// const parameter, so every test of it folds away.
    karatsuba: bool,
}

/// The round-1 base of the counters' current run of 256 blocks
/// ([`round1_base`]) in both lanes, and which run it is.
struct Run {
    id: u32,
    base: __m256i,
}

// The kernel's helpers are plain `#[inline(always)]` functions, not
// `#[target_feature]` ones (which cannot be `#[inline(always)]`): they are
// always inlined into `seal_ymm`, whatever LLVM's inlining heuristics and
// the crate's codegen-unit partition make of a large callee (left out of
// line, `aes_ghash` and `hash_group` cost AES-128-GCM 0.39 → 0.56
// cycles/byte at 16 KiB on Zen 3). The feature proof is the token in
// `Ctx`, which every helper takes.
macro_rules! kernel_fns {
    ($($(#[$m:meta])* fn $name:ident $(<$(const $g:ident: $gt:ty),+>)? ($ctx:ident: &Ctx $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)? $body:block)*) => {
        $(
            $(#[$m])*
            #[inline(always)]
            #[allow(unused_unsafe)]
            fn $name $(<$(const $g: $gt),+>)? ($ctx: &Ctx $(, $arg: $ty)*) $(-> $ret)? {
                let _: VaesAvx2 = $ctx.t;
                // SAFETY: `Ctx::t`, a `VaesAvx2` token, proves every
                // feature the intrinsics below need.
                unsafe { $body }
            }
        )*
    };
}

kernel_fns! {
    /// Two powers `table[i..i + 2]`.
    fn powers2(ctx: &Ctx, i: usize) -> __m256i {
        let i = i.min(TABLE - 2);
        // SAFETY: `i + 2 ≤ TABLE`.
        unsafe { _mm256_loadu_si256(ctx.table.as_ptr().add(i).cast()) }
    }

    /// The half-sums of the powers `table[i..i + 2]`.
    fn halves2(ctx: &Ctx, i: usize) -> __m256i {
        let i = i.min(TABLE - 2);
        // SAFETY: `i + 2 ≤ TABLE`.
        unsafe { _mm256_loadu_si256(ctx.halves.as_ptr().add(i).cast()) }
    }

    /// Registers `d` and `e` (four blocks) times the powers from `p`
    /// (`d` meets `p, p + 1`, `e` meets `p + 2, p + 3`) into `s`, in the
    /// key's schedule.
    fn acc2(ctx: &Ctx, d: __m256i, e: __m256i, p: usize, s: &mut Sums) {
        if ctx.karatsuba {
            mul_acc2_halves(
                d,
                powers2(ctx, p),
                halves2(ctx, p),
                e,
                powers2(ctx, p + 2),
                halves2(ctx, p + 2),
                s,
            );
        } else {
            mul_acc2(d, powers2(ctx, p), e, powers2(ctx, p + 2), s);
        }
    }

    /// The whitened counter blocks `n ⊕ k₀`, `(n + 1) ⊕ k₀` (big-endian),
    /// built from the 32-bit counter (wrapping as `inc32`) in each lane's
    /// low dword of the byte-reversed `J0`.
    fn counter_reg(ctx: &Ctx, n: u32) -> __m256i {
        let add = _mm256_blend_epi32::<0x11>(_mm256_setzero_si256(), _mm256_set1_epi32(n as i32));
        _mm256_xor_si256(_mm256_shuffle_epi8(_mm256_add_epi32(ctx.ctr_base, add), ctx.rev), ctx.k.at(0))
    }

    /// The whitened counter blocks `n + 2c + l` (lane l of register c).
    fn counters<const C: usize>(ctx: &Ctx, n: u32) -> [__m256i; C] {
        // A loop, not `array::from_fn`: an outlined closure would lose the
        // kernel's features (docs/ARCHITECTURE.md, "Closures in kernels").
        let mut x = [_mm256_setzero_si256(); C];
        for (c, x) in x.iter_mut().enumerate() {
            *x = counter_reg(ctx, n.wrapping_add(2 * c as u32));
        }
        x
    }

    /// The AES states after round 1 of the `2R` counter blocks from `n`:
    /// while they share a run, the run's base XORed with their entries of
    /// the round-1 table (loaded at the public counter's last byte), else
    /// from the counter blocks with a `vaesenc` (as in the zmm kernel).
    fn round1_regs(ctx: &Ctx, run: &mut Run, n: u32) -> [__m256i; R] {
        if round1_cached(n) {
            if run.id != round1_run(n) {
                run.id = round1_run(n);
                run.base = _mm256_broadcastsi128_si256(from_u128(round1_base(ctx.rk, ctx.round1, ctx.j0, n)));
            }
            let low = (n & 0xff) as usize;
            let mut x = [_mm256_setzero_si256(); R];
            for (c, x) in x.iter_mut().enumerate() {
                // SAFETY: `low + 2c + 1 ≤ low + 2R − 1 ≤ 255` (`round1_cached`,
                // 2R = STEP_BLOCKS): both entries lie in the table.
                let t = unsafe { _mm256_loadu_si256(ctx.round1.as_ptr().add(low + 2 * c).cast()) };
                *x = _mm256_xor_si256(run.base, t);
            }
            x
        } else {
            let mut x = counters::<R>(ctx, n);
            ctx.k.round_regs(&mut x, 1);
            x
        }
    }

    /// Keeps the first `bytes` (clamped to 0 … 32) bytes of `v`, zeroes the
    /// rest.
    fn keep_bytes(ctx: &Ctx, v: __m256i, bytes: usize) -> __m256i {
        let n = _mm256_set1_epi8(bytes.min(32) as i8);
        _mm256_and_si256(v, _mm256_cmpgt_epi8(n, ctx.byte_index))
    }

    /// `2R` byte-reversed blocks `g` multiplied by the powers `p` into `s`.
    fn ghash_regs(ctx: &Ctx, g: [__m256i; R], p: usize, s: Sums) -> Sums {
        let mut s = s;
        for c in (0..R).step_by(2) {
            acc2(ctx, g[c], g[c + 1], p + 2 * c, &mut s);
        }
        s
    }

    /// Absorbs the ≤ 256 bytes of `data` (the last block zero-padded) into
    /// `s`: block `j` meets `table[first + j]`; `inject` enters block 0. A
    /// last partial register is read with [`load_partial32`].
    fn absorb_tail(ctx: &Ctx, data: &[u8], first: usize, inject: __m128i, s: &mut Sums) {
        let len = data.len().min(TAIL);
        let ptr = data.as_ptr();
        for c in 0..len.div_ceil(32) {
            let rest = len - 32 * c;
            // SAFETY: register `c` starts `32·c < len` bytes into `data`
            // and is read only within it.
            let v = unsafe {
                if rest >= 32 {
                    _mm256_loadu_si256(ptr.add(32 * c).cast())
                } else {
                    load_partial32(ptr.add(32 * c), rest)
                }
            };
            let mut g = _mm256_shuffle_epi8(v, ctx.rev);
            if c == 0 {
                g = _mm256_xor_si256(g, _mm256_zextsi128_si256(inject));
            }
            mul_acc(g, powers2(ctx, first + 2 * c), s);
        }
    }

    /// Absorbs one block (POLYVAL element `x`) meeting `table[index]`.
    fn absorb_one(ctx: &Ctx, x: __m128i, index: usize, s: &mut Sums) {
        let p = _mm256_zextsi128_si256(from_u128(ctx.table[index]));
        mul_acc(_mm256_zextsi128_si256(x), p, s);
    }

}

kernel_fns! {
    /// `R` registers of AES states after round 1 through rounds 2 … NR − 1:
    /// the last round is the caller's, with the data folded into its key
    /// ([`stitch::Keys::last_round_xor`]).
    fn aes_regs<const NR: usize>(ctx: &Ctx, x1: [__m256i; R]) -> [__m256i; R] {
        let k = ctx.k;
        let mut x = x1;
        for r in 2..NR {
            k.round8(&mut x, r);
        }
        x
    }

    /// [`aes_regs`] while `2R` byte-reversed blocks `g` are multiplied by
    /// the powers `p` into the sums `s`: returns the states before the last
    /// round and the sums.
    fn aes_ghash<const NR: usize>(ctx: &Ctx, x1: [__m256i; R], g: impl Fn(usize) -> __m256i, p: usize, s: Sums) -> ([__m256i; R], Sums) {
        let k = ctx.k;
        let mut x = x1;
        let mut s = s;
        // Rounds 2..=R + 1, each pair of them with two registers' products.
        for c in (0..R).step_by(2) {
            for r in [c + 2, c + 3] {
                k.round8(&mut x, r);
            }
            acc2(ctx, g(c), g(c + 1), p + 2 * c, &mut s);
        }
        for r in R + 2..NR {
            k.round8(&mut x, r);
        }
        (x, s)
    }

    /// Counter mode in place over the ≤ 256 bytes of `data` from the
    /// counter `n`, absorbing the ciphertext into `s` (block `j` meets
    /// `table[first + j]`; `inject` enters block 0): [`ctr_regs`] for as
    /// many registers as the data fills, rounded up to 1, 2, 4 or 8.
    fn ctr_tail<const NR: usize>(ctx: &Ctx, n: u32, data: &mut [u8], encrypt: bool, first: usize, inject: __m128i, s: &mut Sums) {
        match data.len().div_ceil(32) {
            0 => {}
            1 => ctr_regs::<NR, 1>(ctx, n, data, encrypt, first, inject, s),
            2 => ctr_regs::<NR, 2>(ctx, n, data, encrypt, first, inject, s),
            3 | 4 => ctr_regs::<NR, 4>(ctx, n, data, encrypt, first, inject, s),
            _ => ctr_regs::<NR, 8>(ctx, n, data, encrypt, first, inject, s),
        }
    }

    /// [`ctr_tail`] on `M` registers (`data.len() ≤ 32·M ≤ 256`): the `M`
    /// counter registers go through the AES rounds together, round by round
    /// as in the loop (one register's 14 dependent rounds after another left
    /// the AES pipes half idle: AES-256-GCM at 224 bytes took 140 ns, more
    /// than 256 bytes through the loop), then the registers that hold data are
    /// XORed (in the last round's key, [`stitch::Keys::last_round_xor`]),
    /// stored and hashed, two at a time. A last partial register is read and
    /// written with [`load_partial32`] and [`store_partial32`], and its bytes
    /// past the end are masked off before it is hashed.
    fn ctr_regs<const NR: usize, const M: usize>(ctx: &Ctx, n: u32, data: &mut [u8], encrypt: bool, first: usize, inject: __m128i, s: &mut Sums) {
        let len = data.len();
        let regs = len.div_ceil(32).min(M);
        let k = ctx.k;
        let mut x = counters::<M>(ctx, n);
        for r in 1..NR {
            k.round_regs(&mut x, r);
        }
        let ptr = data.as_mut_ptr();
        let mut g = [_mm256_setzero_si256(); M];
        // `c` runs to the constant `M` (the loop unrolls, every index is a
        // constant and the states stay in registers); the last round takes
        // the data into its key, so no keystream register exists.
        for c in 0..M {
            if c >= regs {
                break;
            }
            // SAFETY: register `c < regs` starts `32·c < len` bytes into
            // `data` and is read and written only within `data`.
            let (inp, out) = unsafe {
                let (at, rest) = (ptr.add(32 * c), len - 32 * c);
                if rest >= 32 {
                    let inp = _mm256_loadu_si256(at.cast());
                    let out = k.last_round_xor(x[c], NR, inp);
                    _mm256_storeu_si256(at.cast(), out);
                    (inp, out)
                } else {
                    let inp = load_partial32(at, rest);
                    let out = keep_bytes(ctx, k.last_round_xor(x[c], NR, inp), rest);
                    store_partial32(at, rest, out);
                    (inp, out)
                }
            };
            g[c] = _mm256_shuffle_epi8(if encrypt { out } else { inp }, ctx.rev);
        }
        g[0] = _mm256_xor_si256(g[0], _mm256_zextsi128_si256(inject));
        let mut c = 0;
        while c + 1 < regs {
            acc2(ctx, g[c], g[c + 1], first + 2 * c, s);
            c += 2;
        }
        if c < regs {
            mul_acc(g[c], powers2(ctx, first + 2 * c), s);
        }
    }

    /// Prepares the next loop group ([`Units`], in pairs): its powers, and
    /// whether it opens a pair (no reduction after it). A group that opens a
    /// pair or stands alone starts from empty sums with the accumulator
    /// entering its first block.
    fn group_powers(ctx: &Ctx, units: &mut Units, g: &mut [__m256i; R], acc: __m128i, s: &mut Sums) -> (usize, bool) {
        let (p, open, inject) = group_place(ctx, units, acc, s);
        g[0] = _mm256_xor_si256(g[0], inject);
        (p, open)
    }

    /// [`group_powers`] for a loop that forms its blocks as it hashes
    /// them: returns what its first block takes in (the accumulator, or
    /// zero) instead of adding it.
    fn group_place(ctx: &Ctx, units: &mut Units, acc: __m128i, s: &mut Sums) -> (usize, bool, __m256i) {
        let place = units.next();
        let mut inject = _mm256_setzero_si256();
        if place.starts {
            *s = zero_sums(ctx.karatsuba);
            inject = _mm256_zextsi128_si256(acc);
        }
        (place.pair_at(GROUP), !place.closes, inject)
    }

    /// Hashes one loop group that no AES work is stitched to (associated data,
    /// the encryption loop's last lagging chunks): [`group_powers`], its
    /// products, and the reduction when the group closes its unit.
    fn hash_group(ctx: &Ctx, units: &mut Units, g: [__m256i; R], acc: &mut __m128i, s: &mut Sums) {
        let mut g = g;
        let (p, open) = group_powers(ctx, units, &mut g, *acc, s);
        *s = ghash_regs(ctx, g, p, *s);
        if !open {
            *acc = reduce(*s, ctx.c);
        }
    }
}

#[target_feature(enable = "avx,avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3,sse4.1")]
#[allow(clippy::too_many_arguments)]
fn seal_ymm<const NR: usize, const KARATSUBA: bool>(
    t: VaesAvx2,
    rk: &RoundKeys,
    wide: &stitch::Wide<2>,
    table: &[u128; TABLE],
    halves: &[u128; TABLE],
    round1: &[u128; ROUND1],
    encrypt: bool,
    j0: u128,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let j0_rev = j0.swap_bytes();
    let base = j0_rev & !0xffff_ffff;
    let ctx = Ctx {
        t,
        // The key's broadcast round keys, read in place by the rounds.
        k: stitch::Keys::new(&wide.0),
        rev: from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 2]),
        c: from_u128s([u128::from(ghash::C_HI); 2]),
        table,
        halves,
        rk,
        round1,
        j0,
        ctr_base: from_u128s([base, base | 1]),
        byte_index: from_u128s([
            0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100,
            0x1f1e_1d1c_1b1a_1918_1716_1514_1312_1110,
        ]),
        karatsuba: KARATSUBA,
    };
    let lengths =
        from_u128((u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8));
    // The first data block's counter: inc32(J0).
    let mut n = (j0_rev as u32).wrapping_add(1);
    let mut acc = _mm_setzero_si128();

    // Short messages: the associated data, the ciphertext and the lengths
    // block in one aggregated reduction (at most 32 powers).
    if aad.len() <= 256 && buf.len() <= 256 && aad.len().div_ceil(16) + buf.len().div_ceil(16) < 32
    {
        let (ab, cb) = (aad.len().div_ceil(16), buf.len().div_ceil(16));
        let first = 32 - (ab + cb + 1);
        let mut s = zero_sums(ctx.karatsuba);
        absorb_tail(&ctx, aad, first, acc, &mut s);
        ctr_tail::<NR>(&ctx, n, buf, encrypt, first + ab, acc, &mut s);
        // `AES(K, J0)` last: computed before the branch it lived across the
        // long path's loop; computed at the start of this path, across its
        // counter mode, and either way went to the frame (see
        // [`stitch::tag_mask`]).
        let tag_mask = stitch::tag_mask::<NR, true>(rk, j0);
        absorb_one(&ctx, lengths, 31, &mut s);
        return tag_bytes(reduce(s, ctx.c), tag_mask);
    }

    // Associated data: 2R blocks per group, then the rest as one group.
    // Chunks are paired per reduction as in the loop below (the chain
    // through the accumulator is then one reduction per 4R blocks).
    let mut chunks = aad.chunks_exact(STEP);
    let mut units = Units::new(chunks.len(), 2);
    let mut s = zero_sums(ctx.karatsuba);
    for a in &mut chunks {
        let mut g = [_mm256_setzero_si256(); R];
        for (c, g) in g.iter_mut().enumerate() {
            // SAFETY: `a` has STEP bytes: `32c + 32 ≤ 32R = STEP`.
            *g = unsafe {
                _mm256_shuffle_epi8(_mm256_loadu_si256(a.as_ptr().add(32 * c).cast()), ctx.rev)
            };
        }
        hash_group(&ctx, &mut units, g, &mut acc, &mut s);
    }
    let a = chunks.remainder();
    if !a.is_empty() {
        let mut s = zero_sums(ctx.karatsuba);
        absorb_tail(&ctx, a, 32 - a.len().div_ceil(16), acc, &mut s);
        acc = reduce(s, ctx.c);
    }

    let full = buf.len() / STEP;
    let ptr = buf.as_mut_ptr();
    let load = |i: usize, c: usize| {
        // SAFETY: callers pass i < full, c < R: chunk i lies inside `buf`.
        unsafe { _mm256_loadu_si256(ptr.add(STEP * i + 32 * c).cast()) }
    };
    let store = |i: usize, c: usize, v: __m256i| {
        // SAFETY: as for `load`.
        unsafe { _mm256_storeu_si256(ptr.add(STEP * i + 32 * c).cast(), v) }
    };
    // The GHASH inputs of chunk `j` for [`aes_ghash`], each formed where
    // its product is taken (module docs), `inject` entering block 0.
    let ghash_inputs = |j: usize, inject: __m256i| {
        move |c: usize| {
            let v = _mm256_shuffle_epi8(load(j, c), ctx.rev);
            if c == 0 {
                _mm256_xor_si256(v, inject)
            } else {
                v
            }
        }
    };
    // Every full chunk's ciphertext is hashed in the loop, in pairs.
    let mut units = Units::new(full, 2);
    let mut s = zero_sums(ctx.karatsuba);
    let mut run = Run {
        id: u32::MAX,
        base: _mm256_setzero_si256(),
    };
    if encrypt {
        // As in the zmm kernel: the ciphertext of chunk i − LAG is hashed
        // while chunk i is encrypted, read back from `buf`, so the products
        // do not wait on the previous iteration's last AES round.
        const LAG: usize = 2;
        let rev_chunk = |j: usize| -> [__m256i; R] {
            let mut g = [_mm256_setzero_si256(); R];
            for (c, g) in g.iter_mut().enumerate() {
                *g = _mm256_shuffle_epi8(load(j, c), ctx.rev);
            }
            g
        };
        for i in 0..full {
            // This iteration's loads of the round keys (see [`stitch::Keys`]).
            let it = Ctx {
                k: ctx.k.fresh(),
                ..ctx
            };
            let x1 = round1_regs(&it, &mut run, n);
            let mut x = if i >= LAG {
                let (p, open, inject) = group_place(&it, &mut units, acc, &mut s);
                let (x, s2) = aes_ghash::<NR>(&it, x1, ghash_inputs(i - LAG, inject), p, s);
                s = s2;
                if !open {
                    acc = reduce(s, ctx.c);
                }
                x
            } else {
                aes_regs::<NR>(&it, x1)
            };
            n = n.wrapping_add(2 * R as u32);
            // SAFETY: chunk `i < full` lies inside `buf`.
            unsafe { ctx.k.last_round8_xor(&mut x, NR, ptr.add(STEP * i)) };
            for (c, &v) in x.iter().enumerate() {
                store(i, c, v);
            }
        }
        for j in full.saturating_sub(LAG)..full {
            let g = rev_chunk(j);
            hash_group(&ctx, &mut units, g, &mut acc, &mut s);
        }
    } else {
        for i in 0..full {
            // The ciphertext is loaded twice (for the hash, where each
            // product is taken, and again for the XOR after the AES
            // rounds) rather than kept: eight more live registers across
            // the rounds would spill.
            let it = Ctx {
                k: ctx.k.fresh(),
                ..ctx
            };
            let x1 = round1_regs(&it, &mut run, n);
            let (p, open, inject) = group_place(&it, &mut units, acc, &mut s);
            let (mut x, s2) = aes_ghash::<NR>(&it, x1, ghash_inputs(i, inject), p, s);
            s = s2;
            if !open {
                acc = reduce(s, ctx.c);
            }
            n = n.wrapping_add(2 * R as u32);
            // SAFETY: chunk `i < full` lies inside `buf`.
            unsafe { ctx.k.last_round8_xor(&mut x, NR, ptr.add(STEP * i)) };
            for (c, &v) in x.iter().enumerate() {
                store(i, c, v);
            }
        }
    }
    // The last 0 … STEP − 1 bytes and the lengths block: one group.
    let tail = &mut buf[STEP * full..];
    let first = 32 - (tail.len().div_ceil(16) + 1);
    let mut s = zero_sums(ctx.karatsuba);
    let len_block = if tail.is_empty() {
        _mm_xor_si128(lengths, acc)
    } else {
        ctr_tail::<NR>(&ctx, n, tail, encrypt, first, acc, &mut s);
        lengths
    };
    // `AES(K, J0)` last, as in the short path.
    let tag_mask = stitch::tag_mask::<NR, true>(rk, j0);
    absorb_one(&ctx, len_block, 31, &mut s);
    tag_bytes(reduce(s, ctx.c), tag_mask)
}

/// The kernel alone in both directions on one buffer, without the copy
/// that peer-bench's decrypt rows include (a decryption of arbitrary data
/// just computes another tag): `cargo test --release -p fieldwork-crypto
/// --lib gcm_kernel_directions -- --ignored --nocapture`.
#[cfg(test)]
mod probe {
    extern crate std;
    use super::*;
    use core::arch::x86_64::_rdtsc;
    use std::{println, vec};

    #[test]
    #[ignore = "a timing probe, not a test: run it by name"]
    fn gcm_kernel_directions() {
        let Some(t) = VaesAvx2::get() else { return };
        for (name, key_len) in [("AES-128", 16usize), ("AES-256", 32)] {
            let tuning = crate::gcm::tuning::GcmTuning {
                schedule: Schedule::Karatsuba,
                ..crate::gcm::tuning::GCM.pick()
            };
            let key = Key::new(t, &[7u8; 32][..key_len], tuning);
            for len in [1024usize, 16384, 65536] {
                let mut store = vec![0x5au8; len + 4096];
                let start = (4096 - store.as_ptr() as usize % 4096) % 4096;
                let buf = &mut store[start..start + len];
                let mut src_store = vec![0xa5u8; len + 8192];
                let s0 = (4096 - src_store.as_ptr() as usize % 4096) % 4096 + 2048;
                let src = &mut src_store[s0..s0 + len];
                let mut best = [u64::MAX; 5];
                let dirs = [Direction::Encrypt, Direction::Decrypt];
                for _ in 0..15 {
                    for (i, b) in best.iter_mut().enumerate() {
                        let reps = 2_000_000 / (len + 256);
                        // SAFETY: RDTSC exists on every x86-64 CPU.
                        let t0 = unsafe { _rdtsc() };
                        for _ in 0..reps {
                            if i >= 2 {
                                buf.copy_from_slice(core::hint::black_box(&*src));
                            }
                            if i < 4 {
                                let dir = dirs[i % 2];
                                core::hint::black_box(key.seal(
                                    dir,
                                    u128::from_le_bytes([1; 16]),
                                    &[2; 13],
                                    buf,
                                ));
                            }
                            core::hint::black_box(&mut *buf);
                        }
                        // SAFETY: as above.
                        let t1 = unsafe { _rdtsc() };
                        *b = (*b).min((t1 - t0) / reps as u64);
                    }
                }
                println!(
                    "{name} {len:6} B (ticks): encrypt {}, decrypt {}; after a copy: encrypt {}, decrypt {}; the copy {}",
                    best[0], best[1], best[2], best[3], best[4]
                );
            }
        }
    }
}
