//! Target features: `avx`, `avx2` — capability token [`crate::cpu::Avx2`].
//!
//! Hand-written ChaCha20 block functions on ymm registers, in the two
//! layouts of D. J. Bernstein, "ChaCha, a variant of Salsa20" (2008), and
//! M. Goll and S. Gueron, "Vectorization on ChaCha stream cipher" (ITNG
//! 2014):
//!
//! - **Vertical, 8 blocks** ([`keystream8`]): row `i` is word `i` of eight
//!   consecutive blocks (block `counter + j` in 32-bit lane `j`), so a
//!   quarter-round is the scalar one with every operation 8-wide and the
//!   rounds need no shuffles (the round structure is written once for
//!   this kernel and the AVX-512 one: `chacha20/rounds.rs`, over this
//!   file's `Words` for `__m256i`). 16 rows and the two rotation masks are 18
//!   values for 16 registers: the register allocator keeps the rows not in
//!   use in stack slots, read back as memory operands. The quarter-rounds run
//!   four at a time when the kernel runs alone, two at a time when the
//!   stitched AEAD (`chachapoly/avx2.rs`) puts scalar Poly1305 work
//!   between the double rounds ([`keystream8_with`]). The keystream goes
//!   to block order at the end ([`xor8`]: `vpunpck{l,h}dq`,
//!   `vpunpck{l,h}qdq`, `vperm2i128`, 32 shuffles for 8 blocks).
//! - **Horizontal, 2 blocks per state** ([`keystream_h`]): a ymm row is a
//!   row of the 4×4 state for two consecutive blocks (one per 128-bit
//!   lane), and the diagonal round is reached by rotating rows a, c, d
//!   with `vpshufd` (three before and three after it; not b, whose
//!   shuffle would sit on the rounds' dependency chain). `S` states (`2S`
//!   blocks) run interleaved: the layout for 1 to 4 blocks (tails, short
//!   messages, the AEAD's Poly1305 key block), where the vertical one would
//!   waste lanes. The output is in block order after one `vperm2i128` per
//!   32 bytes.
//!
//! Rotations: by 16 and 8 with one `vpshufb` each (byte permutations, the
//! masks built once per call and hidden from the optimiser, which would
//! otherwise turn the 16-bit one into `vpshuflw` + `vpshufhw`), by 12 and 7
//! with `vpslld`, `vpsrld`, `vpor`. Additions, XORs, shifts and shuffles
//! only, no branch or index on key or data: constant time.
//!
//! Per double round — vertical: 8 quarter-rounds × (4 `vpaddd`, 4 `vpxor`,
//! 2 `vpshufb`, 2 × 3 shift/shift/or) = 128 instructions for 8 blocks (16
//! per block); the generated loop (four at a time) adds 20 `vmovdqa`, and
//! 32 of its 150 instructions touch a stack slot; horizontal: 2 × 16 + 6 `vpshufd` = 38 per state
//! of 2 blocks (19 per block), latency-bound for one state (each
//! quarter-round step waits for the one before).
//!
//! The state's keystream block and key are wiped with whole-value writes,
//! not `zeroize`'s byte stores, which cost a one-block call several
//! percent.
//!
//! **Stack wipe** (as `chacha20/neon.rs`). Up to two blocks run in the
//! entry on one horizontal state whose rows stay in registers (the frame
//! holds the public rotation masks only; [`xor_rows`] picks a partial
//! row by masks, since an index by the length had the compiler store
//! every row). Longer texts run out-of-line kernels that spill key rows,
//! key words broadcast to the lanes and keystream: [`xor_mid`] (129–511
//! bytes, horizontal) and [`after0_mid`], [`xor_long`] (the 8-block loop)
//! and [`after0_long`]; the entry then zeroes their dead frames with
//! 32-byte stores (`wipe::wipe_stack_below_ymm`, 512 or 1 536 bytes: the
//! test `stack_wipe` measures at most 240 and 1 408, rustc 1.95). Cost on
//! Zen 4 (`peer-bench --quick`, the by-name column, ticks): 1 KiB 865 →
//! 918, 64 bytes 278 → 278, 16 KiB +2 %.
//!
//! Rejected (Zen 3; figures in `docs/notes/chacha20.md`):
//!
//! - The usual diagonalisation by rows b, c, d — one more step on the
//!   dependency chain per round; ≈ 5 % slower for one block.
//! - The compiler's vectorisation of the generic word-sliced code
//!   (`lanes.rs` at N = 8) — it vectorised part of the 16 rows and ran
//!   the rest as scalar `rol`/`add`/`xor` with `vpextrd` crossings.
//! - Quarter-rounds two at a time when alone — ≈ 5 % slower.
//! - Four at a time with Poly1305 between the rounds — ≈ 10 % slower
//!   for the stitched seal.
//!
//! Figure: 16 KiB at 1.02 cycles/byte, 1.48× RustCrypto's AVX2 `chacha20`
//! (AMD EPYC Zen 3, family 25 model 1, `peer-bench --filter chacha`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// state-word and lane indices are constants or loop counters over fixed 16-word states and fixed lane arrays; data offsets step by whole blocks below the length the caller split off.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::lanes::SIGMA;
use super::rounds::{Words, binary_words, interleave, quarter_states, word_sliced};
use crate::cpu;
use crate::wipe::{wipe_stack_below_ymm, wiped_result};
use core::arch::x86_64::*;

super::token_backend! {
    /// The AVX2 backend: hand-written kernels on ymm (see the module docs),
    /// also used by the stitched ChaCha20-Poly1305 and by the AVX-512
    /// backend's tails.
    Avx2(cpu::Avx2) = "avx2", xor_avx2, block_avx2, xor_after_block0_avx2
}

/// The 8-block vertical kernel alone: XORs the keystream of blocks
/// `counter … counter + 7` into `data` (tests and benchmarks).
#[cfg(test)]
pub(super) fn xor_vertical8(
    t: cpu::Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8; 512],
) {
    // SAFETY: the token (cpu::Avx2) proves AVX and AVX2.
    unsafe { xor_vertical8_avx2(t, key, nonce, counter, data) }
}

/// The horizontal kernel alone on `2S` blocks (`S` = 1 or 2): XORs the
/// keystream from `counter` into `data` (at most `128·S` bytes; tests).
#[cfg(test)]
pub(super) fn xor_horizontal<const S: usize>(
    t: cpu::Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
) {
    assert!(data.len() <= 128 * S);
    // SAFETY: the token (cpu::Avx2) proves AVX and AVX2.
    unsafe { xor_horizontal_avx2::<S>(t, key, nonce, counter, data) }
}

#[cfg(test)]
#[target_feature(enable = "avx,avx2")]
fn xor_vertical8_avx2(
    t: cpu::Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8; 512],
) {
    let masks = Masks::new(t);
    xor8(masks, &keystream8(key, nonce, counter, masks), data);
}

#[cfg(test)]
#[target_feature(enable = "avx,avx2")]
fn xor_horizontal_avx2<const S: usize>(
    t: cpu::Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
) {
    let masks = Masks::new(t);
    xor_rows(
        masks,
        keystream_h::<S>(key, nonce, counter, masks).as_flattened(),
        data,
    );
}

/// Bytes wiped below the stack pointer after [`xor_mid`] and
/// [`after0_mid`] (the horizontal kernel's 2- and 1-state loop: the test
/// `stack_wipe` measures 240 bytes at most, rustc 1.95, its control
/// called from a closure one frame deeper than the entry).
const MID_STACK: usize = 512;

/// Bytes wiped after [`xor_long`] and [`after0_long`] (the 8-block
/// vertical loop and its tails: at most 1 408 bytes by the same test).
const LONG_STACK: usize = 1536;

/// Up to two blocks in the entry on one horizontal state, its rows in
/// registers (no secret in the frame, which holds the public rotation
/// masks); 129 to 511 bytes in [`xor_mid`], longer in [`xor_long`], each
/// out of line and followed by the wipe of its dead frame.
#[target_feature(enable = "avx,avx2")]
fn xor_avx2(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    match data.len() {
        0..=128 => {
            let masks = Masks::new(t);
            xor_rows(
                masks,
                keystream_h::<1>(key, nonce, counter, masks).as_flattened(),
                data,
            );
        }
        129..512 => {
            xor_mid(t, key, nonce, counter, data);
            wipe_stack_below_ymm::<MID_STACK>(t);
        }
        _ => {
            xor_long(t, key, nonce, counter, data);
            wipe_stack_below_ymm::<LONG_STACK>(t);
        }
    }
}

/// 129 to 511 bytes: [`xor_tail`], out of line (its frame wiped by the
/// caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn xor_mid(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    xor_tail(key, nonce, counter, data, Masks::new(t));
}

/// 512 bytes or more: [`xor_from`], out of line (its frame wiped by the
/// caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn xor_long(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    xor_from(key, nonce, counter, data, Masks::new(t));
}

#[target_feature(enable = "avx,avx2")]
fn block_avx2(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
    one_block(Masks::new(t), key, nonce, counter)
}

/// One keystream block from one horizontal state (the AVX2 and AVX-512
/// backends' `block`, compiled with each one's features).
#[inline(always)]
pub(crate) fn one_block(masks: Masks, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
    let ks = keystream_h::<1>(key, nonce, counter, masks);
    let mut out = [0u8; 64];
    store_rows(masks, &ks[0][..2], &mut out);
    out
}

/// The AEAD's block 0 and up to 64 bytes of data from block 1: one
/// horizontal state (the AVX2 and AVX-512 backends' short case).
#[inline(always)]
pub(crate) fn short_after_block0(
    masks: Masks,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    debug_assert!(data.len() <= 64);
    let mut block0 = [0u8; 64];
    let ks = keystream_h::<1>(key, nonce, 0, masks);
    let rows = ks.as_flattened();
    store_rows(masks, &rows[..2], &mut block0);
    xor_rows(masks, &rows[2..], data);
    block0
}

/// Up to 64 bytes in the entry (one horizontal state, as [`xor_avx2`]);
/// up to 192 in [`after0_mid`], longer in [`after0_long`], each followed
/// by the wipe of its dead frame.
#[target_feature(enable = "avx,avx2")]
fn xor_after_block0_avx2(
    t: cpu::Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    match data.len() {
        0..=64 => short_after_block0(Masks::new(t), key, nonce, data),
        65..=192 => wiped_result(after0_mid(t, key, nonce, data), || {
            wipe_stack_below_ymm::<MID_STACK>(t)
        }),
        _ => wiped_result(after0_long(t, key, nonce, data), || {
            wipe_stack_below_ymm::<LONG_STACK>(t)
        }),
    }
}

/// Block 0 and 65 to 192 bytes from block 1: [`head_after_block0`], out
/// of line (its frame wiped by the caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn after0_mid(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], data: &mut [u8]) -> [u8; 64] {
    head_after_block0(Masks::new(t), key, nonce, data)
}

/// Block 0 and more than 192 bytes: [`head_after_block0`] for the first
/// 192, the rest from block 4 by [`xor_from`]; out of line (its frame
/// wiped by the caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2")]
fn after0_long(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], data: &mut [u8]) -> [u8; 64] {
    let masks = Masks::new(t);
    let (head, rest) = data.split_at_mut(data.len().min(192));
    let block0 = head_after_block0(masks, key, nonce, head);
    xor_from(key, nonce, 4, rest, masks);
    block0
}

/// Block 0 (returned) and up to 192 bytes from block 1: blocks 0–3 on two
/// horizontal states.
#[inline(always)]
fn head_after_block0(masks: Masks, key: &[u32; 8], nonce: &[u32; 3], head: &mut [u8]) -> [u8; 64] {
    let mut block0 = [0u8; 64];
    let ks = keystream_h::<2>(key, nonce, 0, masks);
    let rows = ks.as_flattened();
    store_rows(masks, &rows[..2], &mut block0);
    xor_rows(masks, &rows[2..], head);
    block0
}

/// The bulk loop: 8 blocks at a time on the vertical kernel, then the
/// horizontal one for the last 1 to 7 blocks (the last one partial or not).
#[inline(always)]
pub(crate) fn xor_from(
    key: &[u32; 8],
    nonce: &[u32; 3],
    mut counter: u32,
    data: &mut [u8],
    masks: Masks,
) {
    let mut groups = data.chunks_exact_mut(512);
    for g in &mut groups {
        if let Ok(g) = <&mut [u8; 512]>::try_from(g) {
            xor8(masks, &keystream8(key, nonce, counter, masks), g);
        }
        counter = counter.wrapping_add(8);
    }
    xor_tail(key, nonce, counter, groups.into_remainder(), masks);
}

/// Fewer than 8 blocks (the last one partial or not) on the horizontal
/// kernel: two states (4 blocks) at a time, then one.
#[inline(always)]
pub(crate) fn xor_tail(
    key: &[u32; 8],
    nonce: &[u32; 3],
    mut counter: u32,
    mut rest: &mut [u8],
    masks: Masks,
) {
    while rest.len() > 128 {
        let take = rest.len().min(256);
        let (now, later) = rest.split_at_mut(take);
        xor_rows(
            masks,
            keystream_h::<2>(key, nonce, counter, masks).as_flattened(),
            now,
        );
        counter = counter.wrapping_add(4);
        rest = later;
    }
    if !rest.is_empty() {
        xor_rows(
            masks,
            keystream_h::<1>(key, nonce, counter, masks).as_flattened(),
            rest,
        );
    }
}

/// The two byte-permutation masks of the 16- and 8-bit rotations.
#[derive(Clone, Copy)]
pub(crate) struct Masks {
    rot16: __m256i,
    rot8: __m256i,
}

impl Masks {
    /// The masks; only the token (cpu::Avx2) makes them, so a `Masks`
    /// value is proof of AVX2: every crate-visible kernel helper (the
    /// keystream functions, the transpositions, the row stores and XORs)
    /// takes one, and is called from `#[target_feature(enable =
    /// "avx,avx2")]` entry points.
    #[inline(always)]
    pub(crate) fn new(_: cpu::Avx2) -> Masks {
        // SAFETY: AVX is available: the token cpu::Avx2 proves it.
        let masks = unsafe {
            Masks {
                // Byte k of a word comes from byte (k + 2) mod 4: <<< 16.
                rot16: _mm256_setr_epi8(
                    2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13, 2, 3, 0, 1, 6, 7, 4, 5,
                    10, 11, 8, 9, 14, 15, 12, 13,
                ),
                // Byte k of a word comes from byte (k + 3) mod 4: <<< 8.
                rot8: _mm256_setr_epi8(
                    3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14, 3, 0, 1, 2, 7, 4, 5, 6,
                    11, 8, 9, 10, 15, 12, 13, 14,
                ),
            }
        };
        // Opaque to the optimiser: with the masks known, LLVM rewrites the
        // 16-bit rotation as `vpshuflw` + `vpshufhw` (two shuffle-port
        // instructions instead of one `vpshufb`) to free a register.
        core::hint::black_box(masks)
    }
}

/// The round structure's vector operations on ymm (see [`Words`]: reached
/// only from this file's entry points, which take `cpu::Avx2`, and from
/// the AVX-512 backend's, whose token implies it).
impl Words for __m256i {
    type Rot = Masks;

    #[inline(always)]
    fn splat(w: u32) -> __m256i {
        // SAFETY: AVX is available (see above).
        unsafe { _mm256_set1_epi32(w as i32) }
    }

    #[inline(always)]
    fn lane_offsets() -> __m256i {
        // SAFETY: AVX is available (see above).
        unsafe { _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7) }
    }

    binary_words! {
        add => _mm256_add_epi32,
        unpack_lo32 => _mm256_unpacklo_epi32,
        unpack_hi32 => _mm256_unpackhi_epi32,
        unpack_lo64 => _mm256_unpacklo_epi64,
        unpack_hi64 => _mm256_unpackhi_epi64,
    }

    /// By 16 and 8 one `vpshufb` with the masks, by 12 and 7
    /// shift/shift/or.
    #[inline(always)]
    fn xor_rotl<const L: i32>(self, b: __m256i, m: Masks) -> __m256i {
        const { assert!(L == 16 || L == 12 || L == 8 || L == 7) };
        // SAFETY: AVX2 is available (see above).
        let x = unsafe { _mm256_xor_si256(self, b) };
        match L {
            16 => rot_bytes(x, m.rot16),
            8 => rot_bytes(x, m.rot8),
            12 => rotl::<12, 20>(x),
            _ => rotl::<7, 25>(x),
        }
    }
}

/// Rotation of every 32-bit word by a multiple of 8: one `vpshufb`.
#[inline(always)]
fn rot_bytes(x: __m256i, mask: __m256i) -> __m256i {
    // SAFETY: AVX2 is available: only the entry points above, which take
    // cpu::Avx2, reach here.
    unsafe { _mm256_shuffle_epi8(x, mask) }
}

/// Rotation of every 32-bit word left by `L` (`R` = 32 − `L`).
#[inline(always)]
fn rotl<const L: i32, const R: i32>(x: __m256i) -> __m256i {
    // SAFETY: AVX2 is available: only the entry points above, which take
    // cpu::Avx2, reach here.
    unsafe { _mm256_or_si256(_mm256_slli_epi32::<L>(x), _mm256_srli_epi32::<R>(x)) }
}

/// The keystream of the 8 blocks from `counter`, word-sliced: lane `j` of
/// row `i` is word `i` of block `counter + j` (the counter wraps as RFC
/// 8439's 32-bit counter does). The quarter-rounds run four at a time, the
/// faster schedule alone (Zen 3: 0.78 against 0.82 ticks/byte).
#[inline(always)]
pub(crate) fn keystream8(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    m: Masks,
) -> [__m256i; 16] {
    word_sliced::<__m256i, true>(key, nonce, counter, m, |_| {})
}

/// [`keystream8`] with `between(r)` run after double round `r` (0 to 9):
/// the slot where a stitched kernel puts scalar work (the AEAD's
/// Poly1305), which runs on the integer ports while the rounds occupy the
/// vector ones. The quarter-rounds run two at a time (fewer live rows:
/// the faster schedule with scalar work between the double rounds).
#[inline(always)]
pub(crate) fn keystream8_with(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    m: Masks,
    between: impl FnMut(usize),
) -> [__m256i; 16] {
    word_sliced::<__m256i, false>(key, nonce, counter, m, between)
}

/// Transposes the word-sliced keystream of [`keystream8`] to block order
/// and XORs it into `data` (32 shuffles: `vpunpck{l,h}dq`,
/// `vpunpck{l,h}qdq`, `vperm2i128`).
#[inline(always)]
pub(crate) fn xor8(_: Masks, ks: &[__m256i; 16], data: &mut [u8; 512]) {
    let ptr = data.as_mut_ptr();
    transpose8(ks, |at, k| {
        // SAFETY: AVX is available (entry points with cpu::Avx2); `at + 32
        // ≤ 512`: 32 bytes of `data`.
        unsafe {
            let p = ptr.add(at).cast::<__m256i>();
            _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), k));
        }
    });
}

/// [`xor8`] for the AEAD's first group, blocks 0 to 7: blocks 1 to 7 are
/// XORed into `data`; the first 32 bytes of block 0 (the Poly1305 key) are
/// returned and the rest of block 0 is dropped.
#[inline(always)]
pub(crate) fn xor8_after_block0(_: Masks, ks: &[__m256i; 16], data: &mut [u8; 448]) -> __m256i {
    let ptr = data.as_mut_ptr();
    let mut block0 = ks[0];
    transpose8(ks, |at, k| {
        if at == 0 {
            block0 = k;
        } else if at >= 64 {
            // SAFETY: AVX is available (entry points with cpu::Avx2); `64 ≤
            // at`, `at + 32 ≤ 512`: 32 bytes of `data` from `at − 64`.
            unsafe {
                let p = ptr.add(at - 64).cast::<__m256i>();
                _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), k));
            }
        }
    });
    block0
}

/// [`xor8`] into fewer than 512 bytes (a tail): whole 32-byte pieces
/// directly, a last partial one through a zeroed stack copy, wiped
/// afterwards.
#[inline(always)]
pub(crate) fn xor8_partial(_: Masks, ks: &[__m256i; 16], data: &mut [u8]) {
    debug_assert!(data.len() < 512);
    let (len, ptr) = (data.len(), data.as_mut_ptr());
    // The partial piece is XORed after the transposition: with its call in
    // the closure, LLVM stopped inlining the closure once two kernels used
    // this function (an out-of-line call per piece: sealing 896 B 575 →
    // 718 ns on Zen 3, `examples/chachapoly_sweep`).
    let mut partial = None;
    transpose8(ks, |at, k| {
        if at + 32 <= len {
            // SAFETY: AVX is available (entry points with cpu::Avx2); `at
            // + 32 ≤ len`: 32 bytes of `data`.
            unsafe {
                let p = ptr.add(at).cast::<__m256i>();
                _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), k));
            }
        } else if at < len {
            partial = Some((at, k));
        }
    });
    if let Some((at, k)) = partial {
        // SAFETY: `at < len`: the `len − at` bytes from `at` are in `data`;
        // AVX2 is available (entry points with cpu::Avx2).
        unsafe { xor_partial(ptr.add(at), len - at, k) };
    }
}

/// The word-sliced keystream of [`keystream8`] in block order: `emit(at,
/// k)` for each 32-byte piece `k` at byte `at` of the 512 (32 shuffles:
/// `vpunpck{l,h}dq`, `vpunpck{l,h}qdq`, `vperm2i128`).
#[inline(always)]
fn transpose8(ks: &[__m256i; 16], mut emit: impl FnMut(usize, __m256i)) {
    // u[m][g], lane l: words 4g … 4g + 3 of block 4l + m.
    let u = interleave(ks);
    // SAFETY: AVX2 is available: only the entry points above, which take
    // cpu::Avx2, reach here.
    unsafe {
        for (m, [a, b, c, d]) in u.into_iter().enumerate() {
            let halves: [(usize, __m256i); 4] = [
                (64 * m, _mm256_permute2x128_si256::<0x20>(a, b)),
                (64 * m + 32, _mm256_permute2x128_si256::<0x20>(c, d)),
                (64 * (4 + m), _mm256_permute2x128_si256::<0x31>(a, b)),
                (64 * (4 + m) + 32, _mm256_permute2x128_si256::<0x31>(c, d)),
            ];
            for (at, k) in halves {
                emit(at, k);
            }
        }
    }
}

/// Rotates rows a, c, d of each state (`A`, `C`, `D` are the `vpshufd`
/// immediates) so that the columns hold the diagonals, and back. Row b
/// stays: it is the last row a quarter-round writes and the first the next
/// one reads (`a += b`), so a shuffle of b would lengthen the dependency
/// chain by one instruction per round; a, c and d are written earlier and
/// their shuffles overlap with b's last steps. Column `j` then holds
/// `a[j − 1], b[j], c[j + 1], d[j + 2]`, a diagonal.
#[inline(always)]
fn rotate_rows<const S: usize, const A: i32, const C: i32, const D: i32>(
    st: &mut [[__m256i; 4]; S],
) {
    for s in st.iter_mut() {
        // SAFETY: AVX2 is available: only the entry points above, which
        // take cpu::Avx2, reach here.
        unsafe {
            s[0] = _mm256_shuffle_epi32::<A>(s[0]);
            s[2] = _mm256_shuffle_epi32::<C>(s[2]);
            s[3] = _mm256_shuffle_epi32::<D>(s[3]);
        }
    }
}

/// The keystream of the `2S` blocks from `counter`, horizontal layout, in
/// block order as `4S` 32-byte rows: rows `4s`, `4s + 1` are block
/// `counter + 2s`, rows `4s + 2`, `4s + 3` block `counter + 2s + 1`.
#[inline(always)]
pub(crate) fn keystream_h<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    m: Masks,
) -> [[__m256i; 4]; S] {
    keystream_h_with(key, nonce, counter, m, |_| {})
}

/// [`keystream_h`] with `between(r)` run after double round `r` (0 to 9),
/// as in [`keystream8_with`].
#[inline(always)]
pub(crate) fn keystream_h_with<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    m: Masks,
    between: impl FnMut(usize),
) -> [[__m256i; 4]; S] {
    let offsets = core::array::from_fn(|s| [2 * s as u32, 2 * s as u32 + 1]);
    keystream_h_offsets(key, nonce, counter, offsets, m, between)
}

/// The keystream blocks `counter + offsets[s][i]` (state `s`, half `i`),
/// in the layout of [`keystream_h`]: blocks that need not be consecutive
/// in one kernel call (the AEAD's opening computes block 0 with the
/// message's last blocks).
#[inline(always)]
pub(crate) fn keystream_h_at<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    offsets: [[u32; 2]; S],
    m: Masks,
) -> [[__m256i; 4]; S] {
    keystream_h_offsets(key, nonce, counter, offsets, m, |_| {})
}

#[inline(always)]
fn keystream_h_offsets<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    offsets: [[u32; 2]; S],
    m: Masks,
    mut between: impl FnMut(usize),
) -> [[__m256i; 4]; S] {
    let [s0, s1, s2, s3] = SIGMA.map(|x| x as i32);
    let w = |x: u32| x as i32;
    // SAFETY: AVX2 is available: only the entry points above, which take
    // cpu::Avx2, reach here; each load reads 16 bytes of `key`; the volatile
    // reads are of the three words of `nonce`. (Row d is built in
    // registers from one 4-byte load a word: a fresh `ChaCha20` holds the
    // nonce as an 8-byte and a 4-byte store, which a wider load — LLVM
    // merged words 1 and 2 into one 8-byte load — cannot forward from.)
    let start: [[__m256i; 4]; S] = unsafe {
        let half = |p: *const u32| _mm256_broadcastsi128_si256(_mm_loadu_si128(p.cast()));
        let a = _mm256_setr_epi32(s0, s1, s2, s3, s0, s1, s2, s3);
        let [n0, n1, n2] = [0, 1, 2].map(|i| nonce.as_ptr().add(i).read_volatile());
        let row3 = _mm_setr_epi32(w(counter), w(n0), w(n1), w(n2));
        let (b, c, d) = (
            half(key.as_ptr()),
            half(key[4..].as_ptr()),
            _mm256_broadcastsi128_si256(row3),
        );
        // Loops, not `array::from_fn` (see `keystream8_rounds`).
        let mut start = [[a, b, c, d]; S];
        for (st, [o0, o1]) in start.iter_mut().zip(offsets) {
            st[3] = d.add(_mm256_setr_epi32(w(o0), 0, 0, 0, w(o1), 0, 0, 0));
        }
        start
    };
    let mut st = start;
    for r in 0..10 {
        quarter_states(&mut st, m);
        rotate_rows::<S, 0x93, 0x39, 0x4e>(&mut st);
        quarter_states(&mut st, m);
        rotate_rows::<S, 0x39, 0x93, 0x4e>(&mut st);
        between(r);
    }
    for (s, init) in st.iter_mut().zip(start) {
        for (row, r0) in s.iter_mut().zip(init) {
            *row = row.add(r0);
        }
    }
    // SAFETY: AVX2 is available: only the entry points above, which take
    // cpu::Avx2, reach here.
    unsafe {
        for s in st.iter_mut() {
            let [a, b, c, d] = *s;
            *s = [
                _mm256_permute2x128_si256::<0x20>(a, b),
                _mm256_permute2x128_si256::<0x20>(c, d),
                _mm256_permute2x128_si256::<0x31>(a, b),
                _mm256_permute2x128_si256::<0x31>(c, d),
            ];
        }
    }
    st
}

/// XORs keystream rows (32 bytes each, in order) into `data`, which is at
/// most as long as they are; a last partial row by masked moves
/// ([`xor_partial`]), the row chosen without an index into memory.
#[inline(always)]
pub(crate) fn xor_rows(_: Masks, rows: &[__m256i], data: &mut [u8]) {
    debug_assert!(data.len() <= 32 * rows.len());
    let whole = data.len() / 32;
    let mut pieces = data.chunks_exact_mut(32);
    for (piece, k) in (&mut pieces).zip(rows) {
        // SAFETY: AVX is available (entry points with cpu::Avx2); `piece`
        // is 32 bytes: one unaligned load and store.
        unsafe {
            let p = piece.as_mut_ptr().cast::<__m256i>();
            _mm256_storeu_si256(p, _mm256_xor_si256(_mm256_loadu_si256(p), *k));
        }
    }
    let tail = pieces.into_remainder();
    if !tail.is_empty() {
        // Row `whole` picked by masks in registers: `rows[whole]`, an index
        // by the length, had the compiler store every row to the frame
        // (keystream left on the stack).
        // SAFETY: AVX2 is available (entry points with cpu::Avx2); `tail`
        // is its `tail.len()` bytes.
        unsafe {
            let mut k = _mm256_setzero_si256();
            for (i, r) in rows.iter().enumerate() {
                let m = _mm256_set1_epi32(-i32::from(i == whole));
                k = _mm256_or_si256(k, _mm256_and_si256(*r, m));
            }
            xor_partial(tail.as_mut_ptr(), tail.len(), k);
        }
    }
}

/// Stores keystream rows (32 bytes each) into `out` (`32·rows.len()`
/// bytes).
#[inline(always)]
pub(crate) fn store_rows(_: Masks, rows: &[__m256i], out: &mut [u8]) {
    assert_eq!(out.len(), 32 * rows.len());
    for (piece, k) in out.chunks_exact_mut(32).zip(rows) {
        // SAFETY: AVX is available (entry points with cpu::Avx2); `piece`
        // is 32 bytes.
        unsafe { _mm256_storeu_si256(piece.as_mut_ptr().cast::<__m256i>(), *k) }
    }
}

/// XORs the low `len` bytes (below 32) of `k` into `p .. p + len` in place,
/// touching nothing past them: masked moves, not a stack copy (whose
/// full-width load waited for the copy's stores; see
/// [`crate::simd::load_partial32`]).
///
/// # Safety
///
/// AVX2 must be available; `p .. p + len` readable and writable.
#[inline(always)]
unsafe fn xor_partial(p: *mut u8, len: usize, k: __m256i) {
    // SAFETY: the caller's.
    unsafe {
        let v = crate::simd::load_partial32(p, len);
        crate::simd::store_partial32(p, len, _mm256_xor_si256(v, k));
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{COUNTERS, random_input, reference};
    use super::*;

    /// The two kernels alone against the portable backend: the vertical
    /// 8-block kernel, the horizontal 2- and 4-block kernels at every
    /// length they take. (The entry points, through the `Backend` trait:
    /// `chacha20::tests`.)
    #[test]
    fn kernels_match_portable() {
        let Some(t) = cpu::Avx2::get() else {
            return;
        };
        let mut seed = 0xc4ac_4a20_u64;
        for &counter in &COUNTERS {
            let (key, nonce, data) = random_input(&mut seed);
            let mut want = data.clone();
            reference(&key, &nonce, counter, &mut want);

            let mut got: [u8; 512] = data[..512].try_into().unwrap();
            xor_vertical8(t, &key, &nonce, counter, &mut got);
            assert_eq!(got[..], want[..512], "vertical 8, counter {counter}");

            for n in 0..=128 {
                let mut got = data[..n].to_vec();
                xor_horizontal::<1>(t, &key, &nonce, counter, &mut got);
                assert_eq!(got, want[..n], "horizontal 2, {n} B, counter {counter}");
            }
            for n in 0..=256 {
                let mut got = data[..n].to_vec();
                xor_horizontal::<2>(t, &key, &nonce, counter, &mut got);
                assert_eq!(got, want[..n], "horizontal 4, {n} B, counter {counter}");
            }
        }
    }
}

/// The stack wipes (`chacha20::stack_tests::run`): for each length, the
/// out-of-line kernel of its path alone (the control: it writes within
/// its wipe, and the scan finds secrets in its dead frame) and the entry
/// with its wipe (no secret left).
#[cfg(test)]
mod stack_wipe {
    use super::*;
    use crate::chacha20::stack_tests::run;

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "the wipes are sized for the release build's frames"
    )]
    fn kernels_stay_within_their_wipes_and_leave_no_secret() {
        let Some(t) = cpu::Avx2::get() else { return };
        // SAFETY: the token proves AVX and AVX2 (each call).
        let xor = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 129..512) => xor_mid(t, k, n, 1, d),
                (true, 512..) => xor_long(t, k, n, 1, d),
                _ => xor_avx2(t, k, n, 1, d),
            }
        };
        // SAFETY: as above (each call).
        let after0 = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 65..=192) => after0_mid(t, k, n, d),
                (true, 193..) => after0_long(t, k, n, d),
                _ => xor_after_block0_avx2(t, k, n, d),
            }
        };
        let limit = |len, after0: bool| match (after0, len) {
            (false, 129..512) | (true, 65..=192) => MID_STACK,
            (false, 512..) | (true, 193..) => LONG_STACK,
            // The entry alone: its own frame (the masks), no wipe, no
            // secret.
            _ => 512,
        };
        run("chacha20 avx2", xor, after0, limit);
    }
}
