//! Target features: `neon` — capability token [`crate::cpu::Neon`].
//!
//! ChaCha20 block functions on AArch64's 128-bit Advanced SIMD registers,
//! in the two layouts of `chacha20/avx2.rs` and a mixed one (D. J. Bernstein, "ChaCha, a
//! variant of Salsa20", 2008; M. Goll and S. Gueron, "Vectorization on
//! ChaCha stream cipher", ITNG 2014):
//!
//! - **Vertical, 4 or 8 blocks** ([`keystream4`], [`keystream8`]): row `i`
//!   is word `i` of four consecutive blocks (block `counter + j` in lane
//!   `j`), so a quarter-round is the scalar one four lanes wide; the round
//!   structure is `chacha20/rounds.rs`, over this file's `Words` for
//!   `uint32x4_t` (4 blocks, 16 rows) and for [`Pair`] (8 blocks: two
//!   4-block groups, every operation issued for both, 32 rows). The
//!   keystream goes to block order with `zip1`/`zip2` on 32- and 64-bit
//!   elements (`rounds::interleave`: 16 per 4 blocks).
//! - **Horizontal, 1 to 3 blocks** ([`keystream_h`]): a register is a row
//!   of one block's 4×4 state; the diagonal round is reached by rotating
//!   rows a, c, d with `ext` (not b, which the column round writes last).
//!   For tails and single blocks, where the vertical layout would waste
//!   lanes. A call of exactly one block runs it inside the entry point
//!   with no stack frame (four unchecked `ldp`/`eor`/`stp` rows); longer
//!   and shorter calls go out of line.
//! - **4+1, 5 blocks** ([`keystream5`]): the vertical group and a fifth
//!   block in general registers, every step issued for both ([`Plus1`];
//!   the idea of OpenSSL's `ChaCha20_neon`, A. Polyakov's CRYPTOGAMS).
//!
//! Rotations: by 16 with `rev32` on 16-bit elements, by 8 with one `tbl`
//! (a byte permutation, the mask held in a register): one instruction
//! each, 2 cycles on either vector pipe of Neoverse N1. By 12 and 7 with
//! `ushr` and `sli` (shift left and insert: two instructions, no `orr`;
//! both on N1's V1 pipe only, 2 cycles each). `shl` and `sri`, the
//! mirror image, compiled to `shl` + `usra`, whose accumulation is 4
//! cycles on N1's chain. SHA3's `xar` rotates 64-bit lanes only: no use
//! here.
//!
//! # Operation counts (instructions per 64-byte block)
//!
//! A double round of the vertical layout is 8 quarter-rounds × (4 `add`,
//! 4 `eor`, `rev32`, `tbl`, 2 × (`ushr`, `sli`)) = 112 for 4 blocks, 28 a
//! block; ten of them 280, then 16 additions of the input (4 a block), 16
//! zips (4 a block) and 4 × (load, `eor`, store) of the data: about 300
//! a block. Compiled (rustc 1.96, `xor_neon`): 114 instructions a double
//! round, 1 256 a pass of 4 blocks: 314 a block, 4.9 a byte. A 4-block
//! double round has four quarter-rounds in flight, each a chain of 14
//! dependent operations of 2 cycles: llvm-mca-19 puts it at 64 cycles on
//! Neoverse N1 (160 a block), latency-bound with the integer pipes idle.
//! The 4+1 pass fills them: 210 instructions a double round (the fifth
//! block's 32 `add`, 32 `eor`, 32 `ror`) in 60 cycles for 5 blocks (120
//! a block; OpenSSL's `ChaCha20_neon` 210 and 64), but 96 instructions a
//! double round for one block against 28.5: 117 874 instructions at 16
//! KiB against 80 582. The 8-block form has the same count a block as 4
//! in the rounds and twice the independent chains, but 32 rows, the
//! `tbl` mask and temporaries exceed the 32 registers: rows live in stack
//! slots (57 stack accesses a double round), 396 instructions a block.
//! The bulk loop runs 4 by default (`chacha20/tuning.rs`, with the counts
//! and why); 4+1 and 8 stay, tested, for a measurement on hardware.
//!
//! Additions, XORs, shifts and permutations only, no branch or index on
//! key or data: constant time.
//!
//! **Stack wipe.** The out-of-line kernels spill key words (broadcast to
//! four lanes) and keystream to their frames (rustc 1.96: [`xor_part`]
//! 80 bytes, [`after0_short`] 208, [`xor_long`] 608, [`after0_long`]
//! 1 008), which nothing else clears. Each entry calls the kernel of its
//! path and then [`crate::wipe::wipe_stack_below`] at the same stack
//! pointer, sized by the path (256, 256, 768, 1 024 bytes: 18 to 51
//! instructions, `wipe.rs`); the one-block path of [`xor_neon`] has no
//! frame and no wipe, and [`block_neon`] keeps its block in registers.
//! The `stack_wipe` test checks, at every path's lengths, that each
//! kernel alone writes within its wipe and leaves secrets, and that the
//! entry leaves none.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// row indices are constants into fixed 16-row and 4-row arrays; data
// offsets step by whole rows below lengths checked first.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::lanes::input;
use super::rounds::{
    Words, binary_words, interleave, quarter_states, word_sliced, word_sliced_hooked,
};
use super::tuning;
use crate::cpu;
use crate::wipe::{wipe_stack_below, wiped_result};
use core::arch::aarch64::{
    uint8x16_t, uint32x4_t, vaddq_u32, vdupq_n_u32, veorq_u8, veorq_u32, vextq_u32, vld1q_u8,
    vld1q_u32, vqtbl1q_u8, vreinterpretq_u8_u32, vreinterpretq_u16_u32, vreinterpretq_u32_u8,
    vreinterpretq_u32_u16, vrev32q_u16, vshrq_n_u32, vsliq_n_u32, vst1q_u8, vzip1q_u32, vzip1q_u64,
    vzip2q_u32, vzip2q_u64,
};
use core::arch::aarch64::{vreinterpretq_u32_u64 as u32x4, vreinterpretq_u64_u32 as u64x2};

super::token_backend! {
    /// The NEON backend (see the module docs).
    Neon(cpu::Neon) = "neon", xor_neon, block_neon, xor_after_block0_neon
}

/// The `tbl` mask of the rotation by 8; only the token (cpu::Neon) makes
/// one, so every kernel helper that takes a `Rot8` runs where NEON is
/// available (they are called from `#[target_feature(enable = "neon")]`
/// entry points).
#[derive(Clone, Copy)]
pub(crate) struct Rot8(uint8x16_t);

impl Rot8 {
    /// The mask: byte `k` of a word comes from byte `(k + 3) mod 4`.
    #[inline(always)]
    pub(crate) fn new(_: cpu::Neon) -> Rot8 {
        const MASK: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];
        // SAFETY: NEON is available (the token); MASK is 16 readable bytes.
        Rot8(unsafe { vld1q_u8(MASK.as_ptr()) })
    }
}

/// `(x <<< L)` in every 32-bit lane for `L` = 12 or 7: `ushr` by `R = 32
/// − L`, then `sli` inserts `x << L` above it. Two operations of 2 cycles
/// on the chain; `shl` then `sri` compiled to `shl` + `usra`, whose
/// accumulation is 4 cycles on Neoverse N1 (llvm-mca-19: 76 against 64
/// cycles a 4-block double round).
#[inline(always)]
fn rotl<const L: i32, const R: i32>(x: uint32x4_t) -> uint32x4_t {
    // SAFETY: NEON is available: only the entry points of this file, which
    // take cpu::Neon, reach here.
    unsafe { vsliq_n_u32::<L>(vshrq_n_u32::<R>(x), x) }
}

/// `zip1` of the 64-bit lanes.
///
/// # Safety
///
/// NEON is available.
#[inline(always)]
unsafe fn zip1_64(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
    // SAFETY: NEON by the contract.
    unsafe { u32x4(vzip1q_u64(u64x2(a), u64x2(b))) }
}

/// `zip2` of the 64-bit lanes.
///
/// # Safety
///
/// NEON is available.
#[inline(always)]
unsafe fn zip2_64(a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
    // SAFETY: NEON by the contract.
    unsafe { u32x4(vzip2q_u64(u64x2(a), u64x2(b))) }
}

/// The round structure's vector operations on one q register (four
/// blocks): reached only from this file's entry points, which take
/// `cpu::Neon`.
impl Words for uint32x4_t {
    type Rot = Rot8;

    #[inline(always)]
    fn splat(w: u32) -> uint32x4_t {
        // SAFETY: NEON is available (see above).
        unsafe { vdupq_n_u32(w) }
    }

    #[inline(always)]
    fn lane_offsets() -> uint32x4_t {
        const OFFSETS: [u32; 4] = [0, 1, 2, 3];
        // SAFETY: NEON is available; OFFSETS is four readable words.
        unsafe { vld1q_u32(OFFSETS.as_ptr()) }
    }

    binary_words! {
        add => vaddq_u32,
        unpack_lo32 => vzip1q_u32,
        unpack_hi32 => vzip2q_u32,
        unpack_lo64 => zip1_64,
        unpack_hi64 => zip2_64,
    }

    /// By 16 `rev32` of 16-bit elements, by 8 one `tbl`, by 12 and 7
    /// `shl` + `sri`.
    #[inline(always)]
    fn xor_rotl<const L: i32>(self, b: uint32x4_t, rot: Rot8) -> uint32x4_t {
        const { assert!(L == 16 || L == 12 || L == 8 || L == 7) };
        // SAFETY: NEON is available (see above).
        unsafe {
            let x = veorq_u32(self, b);
            match L {
                16 => vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(x))),
                8 => vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), rot.0)),
                12 => rotl::<12, 20>(x),
                _ => rotl::<7, 25>(x),
            }
        }
    }
}

/// Two 4-block groups as one vector of eight lanes: group 0 holds blocks
/// `counter … counter + 3`, group 1 the next four. Every operation is
/// issued for both, so the round structure interleaves two independent
/// 4-block kernels step by step.
#[derive(Clone, Copy)]
pub(crate) struct Pair(uint32x4_t, uint32x4_t);

/// [`Words`] methods of [`Pair`] that are the `uint32x4_t` method of the
/// same name on both halves.
macro_rules! on_both_halves {
    ($($m:ident),+) => {$(
        #[inline(always)]
        fn $m(self, b: Pair) -> Pair {
            Pair(self.0.$m(b.0), self.1.$m(b.1))
        }
    )+};
}

/// [`Words`] for [`Pair`]: each method is the `uint32x4_t` one on both
/// halves.
impl Words for Pair {
    type Rot = Rot8;

    #[inline(always)]
    fn splat(w: u32) -> Pair {
        let v = uint32x4_t::splat(w);
        Pair(v, v)
    }

    #[inline(always)]
    fn lane_offsets() -> Pair {
        let o = uint32x4_t::lane_offsets();
        Pair(o, o.add(uint32x4_t::splat(4)))
    }

    #[inline(always)]
    fn xor_rotl<const L: i32>(self, b: Pair, rot: Rot8) -> Pair {
        Pair(
            self.0.xor_rotl::<L>(b.0, rot),
            self.1.xor_rotl::<L>(b.1, rot),
        )
    }

    on_both_halves!(add, unpack_lo32, unpack_hi32, unpack_lo64, unpack_hi64);
}

/// Four vertical blocks in a q register and a fifth in a general
/// register ("4+1", the idea of OpenSSL's `ChaCha20_neon`, CRYPTOGAMS by
/// A. Polyakov): lanes 0–3 of the vector are blocks `counter … counter +
/// 3`, the scalar word block `counter + 4`. Every operation is issued for
/// both, so the integer pipes, idle in the NEON loop, run the fifth block
/// beside the four (`tuning::NEON_BULK_BLOCKS` = 5).
#[derive(Clone, Copy)]
pub(crate) struct Plus1(uint32x4_t, u32);

/// [`Words`] methods of [`Plus1`] that are the `uint32x4_t` method of the
/// same name on the vector, keeping `self`'s word.
macro_rules! on_the_vector {
    ($($m:ident),+) => {$(
        #[inline(always)]
        fn $m(self, b: Plus1) -> Plus1 {
            Plus1(self.0.$m(b.0), self.1)
        }
    )+};
}

/// [`Words`] for [`Plus1`]: the `uint32x4_t` method on the vector and the
/// scalar one (`wrapping_add`, `^` then `rotate_left`) on the word. The
/// unpacks transpose the vector only and keep `self`'s word: the scalar
/// block is in block order already ([`xor5`] reads it from the rows).
impl Words for Plus1 {
    type Rot = Rot8;

    #[inline(always)]
    fn splat(w: u32) -> Plus1 {
        Plus1(uint32x4_t::splat(w), w)
    }

    #[inline(always)]
    fn lane_offsets() -> Plus1 {
        Plus1(uint32x4_t::lane_offsets(), 4)
    }

    #[inline(always)]
    fn add(self, b: Plus1) -> Plus1 {
        Plus1(self.0.add(b.0), self.1.wrapping_add(b.1))
    }

    #[inline(always)]
    fn xor_rotl<const L: i32>(self, b: Plus1, rot: Rot8) -> Plus1 {
        Plus1(
            self.0.xor_rotl::<L>(b.0, rot),
            (self.1 ^ b.1).rotate_left(L as u32),
        )
    }

    on_the_vector!(unpack_lo32, unpack_hi32, unpack_lo64, unpack_hi64);
}

/// The row type of the vertical 4-block kernel: `uint32x4_t` (NEON's
/// rounds) or `sve2::Sve2Rows` (the same rows, SVE2's fused rounds).
pub(super) trait Rows4: Words<Rot = Rot8> {
    /// The row as a q register.
    fn q(self) -> uint32x4_t;
}

impl Rows4 for uint32x4_t {
    #[inline(always)]
    fn q(self) -> uint32x4_t {
        self
    }
}

/// The keystream of blocks `counter … counter + 3`, vertical layout, the
/// rounds of `V`.
#[inline(always)]
fn keystream4<V: Rows4>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    rot: Rot8,
) -> [uint32x4_t; 16] {
    let ks = word_sliced::<V, true>(key, nonce, counter, rot, |_| {});
    let mut out = [ks[0].q(); 16];
    for (o, row) in out.iter_mut().zip(ks) {
        *o = row.q();
    }
    out
}

/// The keystream of blocks `counter … counter + 3` on NEON's vertical
/// rounds (never SVE2's fused ones, which have no slot between double
/// rounds), in block order (`[block][row]`, as [`keystream_h`]), with
/// `between(r)` run after double round `r` for `r` < `HOOKED` (≤ 10; the
/// rounds after run bare, in a second loop; `PAIRED`: the hooked ones two
/// an iteration, see `rounds::word_sliced_hooked`): the slot where the
/// stitched AEAD (`chachapoly/neon.rs`) puts its scalar Poly1305 blocks.
#[inline(always)]
pub(crate) fn keystream4_with<const HOOKED: usize, const PAIRED: bool>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    rot: Rot8,
    between: impl FnMut(usize),
) -> [[uint32x4_t; 4]; 4] {
    interleave(&word_sliced_hooked::<uint32x4_t, true, HOOKED, PAIRED>(
        key, nonce, counter, rot, between,
    ))
}

/// The keystream of blocks `counter … counter + 7`, two vertical groups
/// interleaved.
#[inline(always)]
fn keystream8(key: &[u32; 8], nonce: &[u32; 3], counter: u32, rot: Rot8) -> [Pair; 16] {
    word_sliced::<Pair, true>(key, nonce, counter, rot, |_| {})
}

/// XORs the 16 bytes `k` into `data[off..off + 16]`, or into the bytes of
/// it that exist (`data.len()` may end inside it; nothing when it ends
/// before). Branches on the (public) length only.
#[inline(always)]
fn xor_row(data: &mut [u8], off: usize, k: uint8x16_t) {
    if let Some(chunk) = data.get_mut(off..off + 16) {
        // SAFETY: NEON is available (only this file's entry points reach
        // here); `chunk` is 16 bytes, read and written once each.
        unsafe { vst1q_u8(chunk.as_mut_ptr(), veorq_u8(vld1q_u8(chunk.as_ptr()), k)) }
    } else if let Some(part) = data.get_mut(off..) {
        if part.is_empty() {
            return;
        }
        let mut pad = [0u8; 16];
        pad[..part.len()].copy_from_slice(part);
        // SAFETY: as above, on the 16-byte stack copy.
        unsafe { vst1q_u8(pad.as_mut_ptr(), veorq_u8(vld1q_u8(pad.as_ptr()), k)) }
        part.copy_from_slice(&pad[..part.len()]);
        crate::wipe::wipe(&mut pad);
    }
}

/// `v` as 16 bytes.
#[inline(always)]
fn bytes(v: uint32x4_t) -> uint8x16_t {
    // SAFETY: NEON is available (only this file's entry points reach here).
    unsafe { vreinterpretq_u8_u32(v) }
}

/// XORs the vertical keystream of 4 blocks into `data` (any length up to
/// 256 bytes: the rows past its end are dropped). Block `m`'s bytes
/// `16g … 16g + 15` are `interleave(ks)[m][g]`.
#[inline(always)]
fn xor4(ks: &[uint32x4_t; 16], data: &mut [u8]) {
    let u = interleave(ks);
    for (m, block) in u.iter().enumerate() {
        for (g, &row) in block.iter().enumerate() {
            xor_row(data, 64 * m + 16 * g, bytes(row));
        }
    }
}

/// The keystream of blocks `counter … counter + 4`: four vertical in
/// the vectors, the fifth in the words ([`Plus1`]).
#[inline(always)]
fn keystream5(key: &[u32; 8], nonce: &[u32; 3], counter: u32, rot: Rot8) -> [Plus1; 16] {
    word_sliced::<Plus1, true>(key, nonce, counter, rot, |_| {})
}

/// XORs the keystream of 5 blocks ([`keystream5`]) into a whole 320-byte
/// group: the vectors' four blocks as [`xor4`], the words' block two
/// words (one `u64`) at a time.
#[inline(always)]
fn xor5(ks: &[Plus1; 16], data: &mut [u8; 320]) {
    let (four, fifth) = data.split_at_mut(256);
    xor4(&ks.map(|w| w.0), four);
    let (pairs, _) = fifth.as_chunks_mut::<8>();
    for (k, chunk) in pairs.iter_mut().enumerate() {
        let w = u64::from(ks[2 * k].1) | u64::from(ks[2 * k + 1].1) << 32;
        *chunk = (u64::from_le_bytes(*chunk) ^ w).to_le_bytes();
    }
}

/// XORs the keystream of 8 blocks into a whole 512-byte group.
#[inline(always)]
fn xor8(ks: &[Pair; 16], data: &mut [u8; 512]) {
    let u = interleave(ks);
    for (m, block) in u.iter().enumerate() {
        for (g, &row) in block.iter().enumerate() {
            xor_row(data, 64 * m + 16 * g, bytes(row.0));
            xor_row(data, 256 + 64 * m + 16 * g, bytes(row.1));
        }
    }
}

/// The keystream of `S` consecutive blocks from `counter` (1 ≤ `S` ≤ 3),
/// horizontal layout: state `s`, row `i` holds words `4i … 4i + 3` of
/// block `counter + s`, in block order.
#[inline(always)]
fn keystream_h<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    rot: Rot8,
) -> [[uint32x4_t; 4]; S] {
    keystream_h_with::<S>(key, nonce, counter, rot, |_| {})
}

/// [`keystream_h`] with `between(r)` run after double round `r` (0 to 9):
/// the slot where the stitched AEAD (`chachapoly/neon.rs`) puts its
/// scalar Poly1305 blocks.
#[inline(always)]
pub(crate) fn keystream_h_with<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    rot: Rot8,
    mut between: impl FnMut(usize),
) -> [[uint32x4_t; 4]; S] {
    let init = input(key, nonce, counter);
    // SAFETY: NEON is available (only this file's entry points reach
    // here); `init` is 16 readable words.
    let rows: [uint32x4_t; 4] = unsafe {
        [
            vld1q_u32(init.as_ptr()),
            vld1q_u32(init[4..].as_ptr()),
            vld1q_u32(init[8..].as_ptr()),
            vld1q_u32(init[12..].as_ptr()),
        ]
    };
    let mut start = [rows; S];
    for (s, st) in start.iter_mut().enumerate() {
        // Only the counter, lane 0 of row 3, differs: add `s` there.
        let step = [s as u32, 0, 0, 0];
        // SAFETY: as above; `step` is four readable words.
        st[3] = st[3].add(unsafe { vld1q_u32(step.as_ptr()) });
    }
    let mut st = start;
    for r in 0..10 {
        quarter_states(&mut st, rot);
        // Diagonals: lane j gets a[j − 1], b[j], c[j + 1], d[j + 2].
        rotate_rows::<S, 3, 1, 2>(&mut st);
        quarter_states(&mut st, rot);
        rotate_rows::<S, 1, 3, 2>(&mut st);
        between(r);
    }
    for (s, row) in st.iter_mut().zip(&start) {
        for (x, &i) in s.iter_mut().zip(row) {
            *x = x.add(i);
        }
    }
    st
}

/// Rotates rows a, c, d of every state by `A`, `C`, `D` lanes (`ext`:
/// lane `j` gets lane `j + n mod 4`).
#[inline(always)]
fn rotate_rows<const S: usize, const A: i32, const C: i32, const D: i32>(
    st: &mut [[uint32x4_t; 4]; S],
) {
    for s in st.iter_mut() {
        // SAFETY: NEON is available (only this file's entry points reach
        // here).
        unsafe {
            s[0] = vextq_u32::<A>(s[0], s[0]);
            s[2] = vextq_u32::<C>(s[2], s[2]);
            s[3] = vextq_u32::<D>(s[3], s[3]);
        }
    }
}

/// XORs the horizontal keystream of `S` blocks into `data` (at most
/// `64·S` bytes; rows past its end are dropped).
#[inline(always)]
pub(crate) fn xor_h<const S: usize>(ks: &[[uint32x4_t; 4]; S], data: &mut [u8]) {
    for (s, rows) in ks.iter().enumerate() {
        for (i, &row) in rows.iter().enumerate() {
            xor_row(data, 64 * s + 16 * i, bytes(row));
        }
    }
}

/// The last 1 to 4 blocks (the last one whole or partial): the horizontal
/// kernel for up to three, the vertical one for four.
#[inline(always)]
fn xor_tail<V: Rows4>(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8], rot: Rot8) {
    match data.len().div_ceil(64) {
        0 => {}
        1 => xor_h(&keystream_h::<1>(key, nonce, counter, rot), data),
        2 => xor_h(&keystream_h::<2>(key, nonce, counter, rot), data),
        3 => xor_h(&keystream_h::<3>(key, nonce, counter, rot), data),
        _ => xor4(&keystream4::<V>(key, nonce, counter, rot), data),
    }
}

/// The bulk loop: 8, 5 (4+1) or 4 blocks at a time (`BULK`, from
/// [`tuning::NEON_BULK_BLOCKS`]), then 4 at a time on `V`'s rounds, then
/// [`xor_tail`].
#[inline(always)]
pub(super) fn xor_from<const BULK: usize, V: Rows4>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    mut counter: u32,
    data: &mut [u8],
    rot: Rot8,
) {
    let mut data = data;
    if BULK == 8 {
        let (groups, rest) = data.as_chunks_mut::<512>();
        for g in groups {
            xor8(&keystream8(key, nonce, counter, rot), g);
            counter = counter.wrapping_add(8);
        }
        data = rest;
    } else if BULK == 5 {
        let (groups, rest) = data.as_chunks_mut::<320>();
        for g in groups {
            xor5(&keystream5(key, nonce, counter, rot), g);
            counter = counter.wrapping_add(5);
        }
        data = rest;
    }
    let (groups, rest) = data.as_chunks_mut::<256>();
    for g in groups {
        xor4(&keystream4::<V>(key, nonce, counter, rot), g);
        counter = counter.wrapping_add(4);
    }
    xor_tail::<V>(key, nonce, counter, rest, rot);
}

/// Bytes wiped below the stack pointer after [`xor_part`] and
/// [`after0_short`] (the horizontal kernel's frames: 80 and 208 bytes,
/// rustc 1.96; the `stack_wipe` tests check the bound).
pub(super) const SHORT_STACK: usize = 256;

/// Bytes wiped after [`xor_long`] (the bulk loop at the tuned schedule
/// and its tails: a 608-byte frame).
const XOR_LONG_STACK: usize = 768;

/// Bytes wiped after [`after0_long`] (a 1 008-byte frame).
const AFTER0_LONG_STACK: usize = 1024;

/// `r`, after zeroing the `BYTES` bytes below the stack pointer: called
/// as `wiped::<N, _>(kernel(…))`, so the wipe runs at the stack pointer
/// the out-of-line kernel was called from, over its dead frame.
#[inline(always)]
pub(super) fn wiped<const BYTES: usize, R>(r: R) -> R {
    crate::wipe::wipe_stack_below::<BYTES>();
    r
}

/// Exactly one block inline; longer data in [`xor_long`], shorter in
/// [`xor_part`], each followed by the wipe of its dead frame. The
/// whole-block path touches only caller-saved registers, so it has no
/// frame and nothing to wipe: with the bulk loop inlined here, every call
/// saved and restored the eight callee-saved `d8`–`d15` and six general
/// registers and set up a 464-byte frame (about 30 instructions of a
/// 64-byte call). A whole block is XORed without the per-row length
/// checks of [`xor_row`].
#[target_feature(enable = "neon")]
pub(super) fn xor_neon(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
) {
    let Ok(block) = <&mut [u8; 64]>::try_from(&mut *data) else {
        return xor_not_one_block(t, key, nonce, counter, data);
    };
    let [ks] = keystream_h::<1>(key, nonce, counter, Rot8::new(t));
    for (chunk, &row) in block.as_chunks_mut::<16>().0.iter_mut().zip(&ks) {
        // SAFETY: NEON is available (the token); `chunk` is 16 bytes,
        // read and written once.
        unsafe {
            vst1q_u8(
                chunk.as_mut_ptr(),
                veorq_u8(vld1q_u8(chunk.as_ptr()), bytes(row)),
            )
        }
    }
}

/// Other lengths than one block: [`xor_long`] or [`xor_part`], then the
/// wipe of its frame; a tail call from [`xor_neon`], so that its
/// one-block path keeps no frame (the wipe's call needs the link
/// register saved).
#[inline(never)]
#[target_feature(enable = "neon")]
fn xor_not_one_block(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
) {
    if data.len() > 64 {
        wiped::<XOR_LONG_STACK, _>(xor_long(t, key, nonce, counter, data));
    } else {
        wiped::<SHORT_STACK, _>(xor_part(t, key, nonce, counter, data));
    }
}

/// Less than one block: [`xor_h`] on one horizontal block, out of line
/// (its stack copy for the last partial row would give [`xor_neon`] a
/// frame on every call).
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn xor_part(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    data: &mut [u8],
) {
    xor_h(&keystream_h::<1>(key, nonce, counter, Rot8::new(t)), data);
}

/// More than one block: [`xor_from`], out of line (see [`xor_neon`]).
#[inline(never)]
#[target_feature(enable = "neon")]
fn xor_long(t: cpu::Neon, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    xor_from::<{ tuning::NEON_BULK_BLOCKS }, uint32x4_t>(key, nonce, counter, data, Rot8::new(t));
}

#[target_feature(enable = "neon")]
pub(super) fn block_neon(t: cpu::Neon, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
    let mut out = [0u8; 64];
    xor_h(
        &keystream_h::<1>(key, nonce, counter, Rot8::new(t)),
        &mut out,
    );
    out
}

/// Block 0 and the data from block 1: up to 128 bytes on the horizontal
/// kernel ([`after0_short`]: 2 or 3 blocks with block 0), otherwise
/// blocks 0–3 on the vertical one and the rest from block 4
/// ([`after0_long`]), each followed by the wipe of its dead frame.
#[target_feature(enable = "neon")]
fn xor_after_block0_neon(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    if data.len() <= 128 {
        wiped_result(
            after0_short(t, key, nonce, data),
            wipe_stack_below::<SHORT_STACK>,
        )
    } else {
        wiped_result(
            after0_long(t, key, nonce, data),
            wipe_stack_below::<AFTER0_LONG_STACK>,
        )
    }
}

/// [`after_block0_h`], out of line (its frame wiped by the caller).
#[inline(never)]
#[target_feature(enable = "neon")]
pub(super) fn after0_short(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    after_block0_h(key, nonce, data, Rot8::new(t))
}

/// [`after_block0_v`] on NEON's rounds, out of line (its frame wiped by
/// the caller).
#[inline(never)]
#[target_feature(enable = "neon")]
fn after0_long(t: cpu::Neon, key: &[u32; 8], nonce: &[u32; 3], data: &mut [u8]) -> [u8; 64] {
    after_block0_v::<{ tuning::NEON_BULK_BLOCKS }, uint32x4_t>(key, nonce, data, Rot8::new(t))
}

/// Block 0 (returned) and `data` (at most 128 bytes) from block 1, on
/// the horizontal kernel: 1 to 3 blocks.
#[inline(always)]
fn after_block0_h(key: &[u32; 8], nonce: &[u32; 3], data: &mut [u8], rot: Rot8) -> [u8; 64] {
    debug_assert!(data.len() <= 128);
    let mut block0 = [0u8; 64];
    match data.len().div_ceil(64) {
        0 => xor_h(&keystream_h::<1>(key, nonce, 0, rot), &mut block0),
        1 => {
            let [b0, b1] = keystream_h::<2>(key, nonce, 0, rot);
            xor_h(&[b0], &mut block0);
            xor_h(&[b1], data);
        }
        _ => {
            let [b0, b1, b2] = keystream_h::<3>(key, nonce, 0, rot);
            xor_h(&[b0], &mut block0);
            xor_h(&[b1, b2], data);
        }
    }
    block0
}

/// Block 0 (returned) and `data` (more than 128 bytes) from block 1:
/// blocks 0–3 on the vertical kernel, the rest from block 4 by the bulk
/// loop's schedule `BULK`, the vertical kernel's rounds `V`.
#[inline(always)]
pub(super) fn after_block0_v<const BULK: usize, V: Rows4>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
    rot: Rot8,
) -> [u8; 64] {
    let mut block0 = [0u8; 64];
    let ks = keystream4::<V>(key, nonce, 0, rot);
    let u = interleave(&ks);
    for (g, &row) in u[0].iter().enumerate() {
        xor_row(&mut block0, 16 * g, bytes(row));
    }
    let (head, rest) = data.split_at_mut(data.len().min(192));
    for (m, block) in u.iter().enumerate().skip(1) {
        for (g, &row) in block.iter().enumerate() {
            xor_row(head, 64 * (m - 1) + 16 * g, bytes(row));
        }
    }
    xor_from::<BULK, V>(key, nonce, 4, rest, rot);
    block0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chacha20::tests::{COUNTERS, random_input, reference};

    /// The three kernels alone against the portable block function, at
    /// every length they take, from counters near the wrap.
    #[test]
    fn kernels_match_portable() {
        let Some(t) = cpu::Neon::get() else {
            return;
        };
        let mut seed = 0x4e30_4e_u64;
        for &counter in &COUNTERS {
            let (key, nonce, data) = random_input(&mut seed);
            let mut want = data[..512].to_vec();
            reference(&key, &nonce, counter, &mut want);
            // SAFETY: the token proves NEON.
            let (k4, k8, h1, h2, h3) = unsafe { kernels(t, &key, &nonce, counter) };
            let mut got = data[..512].to_vec();
            let g: &mut [u8; 512] = (&mut got[..]).try_into().unwrap();
            xor8(&k8, g);
            assert_eq!(got, want, "8 blocks, counter {counter}");
            // SAFETY: the token proves NEON.
            let k5 = unsafe { kernel5(t, &key, &nonce, counter) };
            let mut got = data[..320].to_vec();
            let g: &mut [u8; 320] = (&mut got[..]).try_into().unwrap();
            xor5(&k5, g);
            assert_eq!(got, want[..320], "4+1 blocks, counter {counter}");
            for n in 0..=256 {
                let mut got = data[..n].to_vec();
                xor4(&k4, &mut got);
                assert_eq!(got, want[..n], "4 blocks, {n} B, counter {counter}");
            }
            for n in 0..=192 {
                let mut got = data[..n].to_vec();
                match n.div_ceil(64) {
                    0 | 1 => xor_h(&h1, &mut got),
                    2 => xor_h(&h2, &mut got),
                    _ => xor_h(&h3, &mut got),
                }
                assert_eq!(got, want[..n], "horizontal, {n} B, counter {counter}");
            }
        }
    }

    /// The entry point at every length around its one-block path (0 to
    /// 64 bytes inline, longer out of line) from counters near the wrap,
    /// against the portable block function.
    #[test]
    fn entry_matches_portable_around_one_block() {
        let Some(t) = cpu::Neon::get() else {
            return;
        };
        let mut seed = 0x6f6e_6531_u64;
        for &counter in &COUNTERS {
            let (key, nonce, data) = random_input(&mut seed);
            let mut want = data[..200].to_vec();
            reference(&key, &nonce, counter, &mut want);
            for n in 0..=200usize {
                // Whole blocks only up to the counter's wrap (the
                // caller's contract).
                if u64::from(counter) + n.div_ceil(64) as u64 > 1 << 32 {
                    continue;
                }
                let mut got = data[..n].to_vec();
                // SAFETY: the token proves NEON.
                unsafe { xor_neon(t, &key, &nonce, counter, &mut got) };
                assert_eq!(got, want[..n], "{n} B, counter {counter}");
            }
        }
    }

    /// Every bulk schedule of [`xor_from`] (8, 4+1 and 4 blocks a pass,
    /// whatever the tuning's default) at every length to 1 100 bytes (the
    /// groups' and tails' boundaries) from counters near the wrap, against
    /// the portable block function.
    #[test]
    fn bulk_schedules_match_portable() {
        let Some(t) = cpu::Neon::get() else {
            return;
        };
        let mut seed = 0x6275_6c6b_u64;
        for &counter in &COUNTERS {
            let (key, nonce, data) = random_input(&mut seed);
            let mut want = data[..1100].to_vec();
            reference(&key, &nonce, counter, &mut want);
            for n in 0..=1100usize {
                let mut got = [data[..n].to_vec(), data[..n].to_vec(), data[..n].to_vec()];
                let [g8, g5, g4] = &mut got;
                // SAFETY: the token proves NEON.
                unsafe { bulk_schedules(t, &key, &nonce, counter, [g8, g5, g4]) };
                for (g, bulk) in got.iter().zip([8, 5, 4]) {
                    assert_eq!(g[..], want[..n], "{bulk} a pass, {n} B, counter {counter}");
                }
            }
        }
    }

    /// [`xor_from`] with 8, 4+1 and 4 blocks a pass on the three slices.
    #[target_feature(enable = "neon")]
    fn bulk_schedules(
        t: cpu::Neon,
        key: &[u32; 8],
        nonce: &[u32; 3],
        counter: u32,
        data: [&mut [u8]; 3],
    ) {
        let rot = Rot8::new(t);
        let [d8, d5, d4] = data;
        xor_from::<8, uint32x4_t>(key, nonce, counter, d8, rot);
        xor_from::<5, uint32x4_t>(key, nonce, counter, d5, rot);
        xor_from::<4, uint32x4_t>(key, nonce, counter, d4, rot);
    }

    /// The 4+1 keystream from `counter`.
    #[target_feature(enable = "neon")]
    fn kernel5(t: cpu::Neon, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [Plus1; 16] {
        keystream5(key, nonce, counter, Rot8::new(t))
    }

    /// The keystreams of the kernels from `counter` (4, 8, and 1 to 3
    /// horizontal blocks).
    #[allow(clippy::type_complexity)]
    #[target_feature(enable = "neon")]
    fn kernels(
        t: cpu::Neon,
        key: &[u32; 8],
        nonce: &[u32; 3],
        counter: u32,
    ) -> (
        [uint32x4_t; 16],
        [Pair; 16],
        [[uint32x4_t; 4]; 1],
        [[uint32x4_t; 4]; 2],
        [[uint32x4_t; 4]; 3],
    ) {
        let rot = Rot8::new(t);
        (
            keystream4::<uint32x4_t>(key, nonce, counter, rot),
            keystream8(key, nonce, counter, rot),
            keystream_h::<1>(key, nonce, counter, rot),
            keystream_h::<2>(key, nonce, counter, rot),
            keystream_h::<3>(key, nonce, counter, rot),
        )
    }
}

/// The stack wipes: for each text length, the out-of-line kernel of its
/// path alone (the control: it writes within its wipe, and the scan
/// finds secrets in its dead frame) and the entry with its wipe (no
/// secret left), for this file's backend and `sve2.rs`'s.
#[cfg(test)]
pub(super) mod stack_wipe {
    use super::*;
    use crate::chacha20::stack_tests::run;

    #[test]
    fn kernels_stay_within_their_wipes_and_leave_no_secret() {
        let Some(t) = cpu::Neon::get() else { return };
        // SAFETY: the token proves NEON (each call).
        let xor = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 0..=63) => xor_part(t, k, n, 1, d),
                (true, 65..) => xor_long(t, k, n, 1, d),
                _ => xor_neon(t, k, n, 1, d),
            }
        };
        // SAFETY: as above (each call).
        let after0 = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 0..=128) => after0_short(t, k, n, d),
                (true, _) => after0_long(t, k, n, d),
                _ => xor_after_block0_neon(t, k, n, d),
            }
        };
        let limit = |len, after0: bool| match (after0, len) {
            (false, 65..) => XOR_LONG_STACK,
            (true, 129..) => AFTER0_LONG_STACK,
            _ => SHORT_STACK,
        };
        run("chacha20 neon", xor, after0, limit);
    }
}
