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

#[target_feature(enable = "avx,avx2")]
fn xor_avx2(t: cpu::Avx2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let masks = Masks::new(t);
    xor_from(key, nonce, counter, data, masks);
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

#[target_feature(enable = "avx,avx2")]
fn xor_after_block0_avx2(
    t: cpu::Avx2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    let masks = Masks::new(t);
    if data.len() <= 64 {
        return short_after_block0(masks, key, nonce, data);
    }
    let mut block0 = [0u8; 64];
    let ks = keystream_h::<2>(key, nonce, 0, masks);
    let rows = ks.as_flattened();
    store_rows(masks, &rows[..2], &mut block0);
    let (head, rest) = data.split_at_mut(data.len().min(192));
    xor_rows(masks, &rows[2..], head);
    xor_from(key, nonce, 4, rest, masks);
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
    let mut rest = groups.into_remainder();
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
/// most as long as they are; a last partial row goes through a zeroed
/// stack copy, wiped afterwards.
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
        let k = rows[whole];
        // SAFETY: AVX2 is available (entry points with cpu::Avx2); `tail`
        // is its `tail.len()` bytes.
        unsafe { xor_partial(tail.as_mut_ptr(), tail.len(), k) };
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
