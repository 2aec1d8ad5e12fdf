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
//! Rejected: the compiler's vectorisation of the generic word-sliced code
//! (`lanes.rs` at N = 16) — the rustc 1.95 build moved rows through
//! `vpgatherqd`/`vpscatterqd` and ran at half the speed of the AVX2 kernel
//! on Zen 4 (history in `docs/notes/chacha20.md`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// state-word and lane indices are constants or loop counters over fixed 16-word states; data offsets step by whole blocks below the length the caller split off.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::avx2::{Masks, xor_from};
use super::rounds::{Words, binary_words, interleave, word_sliced};
use crate::cpu;
use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_rol_epi32, _mm512_set1_epi32,
    _mm512_setr_epi32, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};

super::token_backend! {
    /// The AVX-512 backend: 16 blocks a pass on zmm, its tails on the AVX2
    /// kernels. A single block (a seek, a stream's partial last block) and
    /// the AEAD's block 0 take the trait's portable block function.
    Avx512(cpu::Avx512) = "avx512", xor_avx512
}

#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_avx512(t: cpu::Avx512, key: &[u32; 8], nonce: &[u32; 3], mut counter: u32, data: &mut [u8]) {
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
/// reached only from `xor_avx512`, whose token proves AVX-512 F, BW, VL
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
    // u[m][g], lane l: words 4g … 4g + 3 of block 4l + m.
    let u = interleave(ks);
    let ptr = data.as_mut_ptr();
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
            let at = 64 * (4 * l + m);
            // SAFETY: `at + 64 ≤ 1024`: block 4l + m of `data`.
            unsafe {
                let p = ptr.add(at).cast::<__m512i>();
                _mm512_storeu_si512(p, _mm512_xor_si512(_mm512_loadu_si512(p), k));
            }
        }
    }
}
