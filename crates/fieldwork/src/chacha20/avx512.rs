//! Target features: `avx`, `avx2`, `avx512f`, `avx512bw`, `avx512vl`,
//! `avx512dq` — capability token [`crate::cpu::Avx512`].
//!
//! Sixteen blocks at a time, word-sliced on zmm registers ([`keystream16`]:
//! row `i` holds word `i` of the 16 blocks, block `counter + j` in lane
//! `j`), the round structure of the AVX2 8-block kernel (one source for
//! both: `chacha20/rounds.rs`, over this file's `Words` for `__m512i`)
//! but with every rotation one `vprold` and the 16 rows held in 16 of the
//! 32 zmm registers (no spills); the quarter-rounds run four at a time.
//! The tail (fewer than 16 blocks) runs the AVX2 kernels, compiled here
//! with AVX-512VL, where LLVM turns their shift/shift/or rotations into
//! `vprold` on ymm and has 32 registers.
//!
//! The keystream leaves the rounds word-sliced; [`xor16`] turns it into
//! block order by hand: per four rows, `vpunpck{l,h}dq` and
//! `vpunpck{l,h}qdq` make 128-bit lanes of four consecutive words of one
//! block, then two rounds of `vshufi32x4` gather a block's four lanes into
//! one register — 64 shuffles for 16 blocks.
//!
//! Per double round: 8 quarter-rounds × (4 `vpaddd`, 4 `vpxord`, 4
//! `vprold`) = 96 zmm instructions for 16 blocks (6 per block, against 16
//! for the AVX2 kernel). On Zen 4, which splits a zmm operation into two
//! 256-bit halves on its four vector pipes, that is 48 cycles per double
//! round for 16 blocks, 0.47 cycles/byte for the rounds alone.
//!
//! **Stack wipe** (as the AVX2 backend's). Up to two blocks run in the
//! entry, in registers; [`xor_mid`] (129 bytes to 1 KiB, the AVX2
//! kernels), [`xor_long`] (the zmm loop) and [`after0_long`] (the AEAD's
//! block 0 with the first 15 blocks) out of line, each followed by the
//! zeroing of its dead frame with 64-byte stores
//! (`wipe::wipe_stack_below_zmm`: 512 or 768 bytes, over the 496 and 640
//! the test `stack_wipe` measures, rustc 1.95). Cost on Zen 4
//! (`peer-bench --quick`, the default column, ticks): 1 KiB 521 → 549;
//! 64 bytes 247 → 218 (the entry's short path no longer stores its
//! rows); 16 KiB level.
//!
//! Rejected: the compiler's vectorisation of the generic word-sliced code
//! (`lanes.rs` at N = 16) — the rustc 1.95 build moved rows through
//! `vpgatherqd`/`vpscatterqd` and ran at half the speed of the AVX2 kernel
//! on Zen 4 (history in `docs/notes/chacha20.md`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// state-word and lane indices are constants or loop counters over fixed 16-word states; data offsets step by whole blocks below the length the caller split off.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::avx2::{Masks, keystream_h, one_block, short_after_block0, xor_from, xor_rows};
use super::rounds::{Words, binary_words, interleave, word_sliced};
use crate::cpu;
use crate::wipe::{wipe_stack_below_zmm, wiped_result};
use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_mask_storeu_epi8,
    _mm512_maskz_loadu_epi8, _mm512_rol_epi32, _mm512_set1_epi32, _mm512_setr_epi32,
    _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64,
    _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};

super::token_backend! {
    /// The AVX-512 backend: 16 blocks a pass on zmm, its tails on the AVX2
    /// kernels. A single block (a seek, a stream's partial last block)
    /// takes one horizontal AVX2 state; the AEAD's block 0 comes from the
    /// same kernel call as the first data blocks ([`xor_after_block0_avx512`]).
    Avx512(cpu::Avx512) = "avx512", xor_avx512, block_avx512, xor_after_block0_avx512,
        after0_unwiped_avx512
}

/// One keystream block: one horizontal state of the AVX2 kernel (with
/// AVX-512VL its 12- and 7-bit rotations are `vprold`), as the AVX2
/// backend's `block`.
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn block_avx512(t: cpu::Avx512, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
    one_block(Masks::new(t.avx2()), key, nonce, counter)
}

/// Bytes wiped below the stack pointer after [`xor_mid`] (the AVX2
/// kernels with 32 registers: the test `stack_wipe` measures 496 bytes
/// at most, rustc 1.95, its control called from a closure one frame
/// deeper than the entry).
const MID_STACK: usize = 512;

/// Bytes wiped after [`xor_long`] and [`after0_long`] (the zmm kernel,
/// the second calling the first: at most 640 bytes by the same test).
const LONG_STACK: usize = 768;

/// The AEAD's block 0 and the data's keystream from block 1: up to 64
/// bytes in the entry, one horizontal state (blocks 0 and 1); longer in
/// [`after0_long`], followed by the wipe of its dead frame.
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_after_block0_avx512(
    t: cpu::Avx512,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    if data.len() <= 64 {
        return short_after_block0(Masks::new(t.avx2()), key, nonce, data);
    }
    let b = after0_long(t, key, nonce, data);
    wiped_result(b, || wipe_stack_below_zmm::<LONG_STACK>(t))
}

/// [`xor_after_block0_avx512`] without the wipe: [`after0_long`]'s frames
/// are left to the caller, which wipes `AFTER0_UNWIPED_STACK` bytes (at
/// least [`LONG_STACK`]) below its stack pointer afterwards.
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn after0_unwiped_avx512(
    t: cpu::Avx512,
    key: &[u32; 8],
    nonce: &[u32; 3],
    data: &mut [u8],
) -> [u8; 64] {
    const { assert!(LONG_STACK <= super::AFTER0_UNWIPED_STACK) };
    if data.len() <= 64 {
        return short_after_block0(Masks::new(t.avx2()), key, nonce, data);
    }
    after0_long(t, key, nonce, data)
}

/// Block 0 and more than 64 bytes: one zmm call for blocks 0 to 15
/// (block 0 and the first 960 bytes), then the bulk loop from block 16
/// (figures: `docs/notes/chacha20.md`); out of line (its frame wiped by
/// the caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn after0_long(t: cpu::Avx512, key: &[u32; 8], nonce: &[u32; 3], data: &mut [u8]) -> [u8; 64] {
    let mut block0 = [0u8; 64];
    let (head, rest) = data.split_at_mut(data.len().min(960));
    let k0 = xor16_after_block0(&keystream16(key, nonce, 0), head);
    // SAFETY: `block0` is 64 bytes; AVX-512F is available (this function's
    // features).
    unsafe { _mm512_storeu_si512(block0.as_mut_ptr().cast::<__m512i>(), k0) };
    if !rest.is_empty() {
        xor_long(t, key, nonce, 16, rest);
    }
    block0
}

/// Up to two blocks in the entry on one horizontal state (its rows in
/// registers, as the AVX2 backend's); up to 1 023 bytes in [`xor_mid`]
/// (the AVX2 kernels), longer in [`xor_long`], each out of line and
/// followed by the wipe of its dead frame.
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_avx512(t: cpu::Avx512, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    match data.len() {
        0..=128 => {
            let masks = Masks::new(t.avx2());
            xor_rows(
                masks,
                keystream_h::<1>(key, nonce, counter, masks).as_flattened(),
                data,
            );
        }
        129..1024 => {
            xor_mid(t, key, nonce, counter, data);
            wipe_stack_below_zmm::<MID_STACK>(t);
        }
        _ => {
            xor_long(t, key, nonce, counter, data);
            wipe_stack_below_zmm::<LONG_STACK>(t);
        }
    }
}

/// Fewer than 16 blocks: the AVX2 kernels ([`xor_from`]), out of line
/// (its frame wiped by the caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_mid(t: cpu::Avx512, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    xor_from(key, nonce, counter, data, Masks::new(t.avx2()));
}

/// 16 blocks at a time on zmm, the rest on the AVX2 kernels; out of line
/// (its frame wiped by the caller).
#[inline(never)]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_long(t: cpu::Avx512, key: &[u32; 8], nonce: &[u32; 3], mut counter: u32, data: &mut [u8]) {
    let mut groups = data.chunks_exact_mut(1024);
    for g in &mut groups {
        if let Ok(g) = <&mut [u8; 1024]>::try_from(g) {
            xor16(&keystream16(key, nonce, counter), g);
        }
        counter = counter.wrapping_add(16);
    }
    xor_from(
        key,
        nonce,
        counter,
        groups.into_remainder(),
        Masks::new(t.avx2()),
    );
}

/// The round structure's vector operations on zmm (see [`Words`]:
/// reached only from this file's kernels, whose token proves AVX-512 F, BW, VL
/// and DQ).
impl Words for __m512i {
    type Rot = ();

    #[inline(always)]
    fn splat(w: u32) -> __m512i {
        // SAFETY: AVX-512F is available (see above).
        unsafe { _mm512_set1_epi32(w as i32) }
    }

    #[inline(always)]
    fn lane_offsets() -> __m512i {
        // SAFETY: AVX-512F is available (see above).
        unsafe { _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) }
    }

    binary_words! {
        add => _mm512_add_epi32,
        unpack_lo32 => _mm512_unpacklo_epi32,
        unpack_hi32 => _mm512_unpackhi_epi32,
        unpack_lo64 => _mm512_unpacklo_epi64,
        unpack_hi64 => _mm512_unpackhi_epi64,
    }

    /// `vpxord`, `vprold`.
    #[inline(always)]
    fn xor_rotl<const L: i32>(self, b: __m512i, (): ()) -> __m512i {
        // SAFETY: AVX-512F is available (see above).
        unsafe { _mm512_rol_epi32::<L>(_mm512_xor_si512(self, b)) }
    }
}

/// The keystream of the 16 blocks from `counter`, word-sliced: lane `j` of
/// row `i` is word `i` of block `counter + j` (the counter wraps as RFC
/// 8439's 32-bit counter does); the quarter-rounds four at a time.
#[inline(always)]
fn keystream16(key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [__m512i; 16] {
    word_sliced::<__m512i, true>(key, nonce, counter, (), |_| {})
}

/// The word-sliced keystream `ks` of 16 blocks, XORed into `data` in block
/// order (see the module docs for the transposition).
#[inline]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor16(ks: &[__m512i; 16], data: &mut [u8; 1024]) {
    let ptr = data.as_mut_ptr();
    blocks16(ks, |j, k| {
        let at = 64 * j;
        // SAFETY: `at + 64 ≤ 1024`: block j < 16 of `data`.
        unsafe {
            let p = ptr.add(at).cast::<__m512i>();
            _mm512_storeu_si512(p, _mm512_xor_si512(_mm512_loadu_si512(p), k));
        }
    });
}

/// The word-sliced keystream `ks` of blocks 0 to 15: blocks 1 to 15 XORed
/// into `data` (at most 960 bytes; a partial last block through a byte
/// mask, so nothing of the keystream is written to memory) and block 0
/// returned.
#[inline]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor16_after_block0(ks: &[__m512i; 16], data: &mut [u8]) -> __m512i {
    let len = data.len();
    debug_assert!(len <= 960);
    let ptr = data.as_mut_ptr();
    let mut block0 = ks[0];
    blocks16(ks, |j, k| {
        if j == 0 {
            block0 = k;
            return;
        }
        let at = 64 * (j - 1);
        if at + 64 <= len {
            // SAFETY: the 64 bytes from `at` are in `data`.
            unsafe {
                let p = ptr.add(at).cast::<__m512i>();
                _mm512_storeu_si512(p, _mm512_xor_si512(_mm512_loadu_si512(p), k));
            }
        } else if at < len {
            // The `len − at` (< 64) bytes from `at`; the masked load and
            // store touch no other byte (masked-off bytes do not fault).
            let mask = (1u64 << (len - at)) - 1;
            // SAFETY: the bytes the mask selects are in `data`; AVX-512BW
            // is available (this function's features).
            unsafe {
                let p = ptr.add(at).cast::<i8>();
                let x = _mm512_xor_si512(_mm512_maskz_loadu_epi8(mask, p), k);
                _mm512_mask_storeu_epi8(p, mask, x);
            }
        }
    });
    block0
}

/// The transposition of [`xor16`]: `emit(j, k)` for each block `j` of the
/// 16 of `ks`, `k` its 64 bytes in order.
#[inline(always)]
fn blocks16(ks: &[__m512i; 16], mut emit: impl FnMut(usize, __m512i)) {
    // u[m][g], lane l: words 4g … 4g + 3 of block 4l + m.
    let u = interleave(ks);
    // SAFETY: AVX-512F is available: reached only from this file's
    // entry points, whose token proves it.
    unsafe {
        for (m, [a, b, c, d]) in u.into_iter().enumerate() {
            let p0 = _mm512_shuffle_i32x4::<0b01_00_01_00>(a, b);
            let p1 = _mm512_shuffle_i32x4::<0b11_10_11_10>(a, b);
            let p2 = _mm512_shuffle_i32x4::<0b01_00_01_00>(c, d);
            let p3 = _mm512_shuffle_i32x4::<0b11_10_11_10>(c, d);
            let blocks: [__m512i; 4] = [
                _mm512_shuffle_i32x4::<0b10_00_10_00>(p0, p2),
                _mm512_shuffle_i32x4::<0b11_01_11_01>(p0, p2),
                _mm512_shuffle_i32x4::<0b10_00_10_00>(p1, p3),
                _mm512_shuffle_i32x4::<0b11_01_11_01>(p1, p3),
            ];
            for (l, k) in blocks.into_iter().enumerate() {
                emit(4 * l + m, k);
            }
        }
    }
}

/// The stack wipes, as the AVX2 backend's (`chacha20::stack_tests::run`).
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
        let Some(t) = cpu::Avx512::get() else { return };
        // SAFETY: the token proves AVX-512 F, BW, VL and DQ (each call).
        let xor = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 129..1024) => xor_mid(t, k, n, 1, d),
                (true, 1024..) => xor_long(t, k, n, 1, d),
                _ => xor_avx512(t, k, n, 1, d),
            }
        };
        // SAFETY: as above (each call).
        let after0 = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 65..) => after0_long(t, k, n, d),
                _ => xor_after_block0_avx512(t, k, n, d),
            }
        };
        let limit = |len, after0: bool| match (after0, len) {
            (false, 129..1024) => MID_STACK,
            (false, 1024..) | (true, 65..) => LONG_STACK,
            // The entry alone: its own frame (the masks), no wipe, no
            // secret.
            _ => 512,
        };
        run("chacha20 avx512", xor, after0, limit);
    }
}
