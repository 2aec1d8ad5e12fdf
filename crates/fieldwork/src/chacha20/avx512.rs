//! Target features: `avx`, `avx2`, `avx512f`, `avx512bw`, `avx512vl`,
//! `avx512dq` — capability token [`crate::cpu::Avx512`].
//!
//! Sixteen blocks at a time, word-sliced on zmm registers ([`keystream16`]:
//! row `i` holds word `i` of the 16 blocks, block `counter + j` in lane
//! `j`), hand-written like the AVX2 8-block kernel (`chacha20/avx2.rs`)
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

use super::Backend;
use super::avx2::{Masks, xor_from};
use super::lanes::input;
use crate::cpu;
use core::arch::x86_64::{
    __m512i, _mm512_add_epi32, _mm512_loadu_si512, _mm512_rol_epi32, _mm512_set1_epi32,
    _mm512_setr_epi32, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};

/// The AVX-512 backend: 16 blocks a pass on zmm, its tails on the AVX2
/// kernels. A single block (a seek, a stream's partial last block) and the
/// AEAD's block 0 take the trait's portable block function.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512(cpu::Avx512);

impl Backend for Avx512 {
    type Token = cpu::Avx512;
    const NAME: &'static str = "avx512";

    fn token() -> Option<cpu::Avx512> {
        cpu::Avx512::get()
    }

    fn new(t: cpu::Avx512) -> Avx512 {
        Avx512(t)
    }

    fn xor(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
        // SAFETY: the token proves AVX, AVX2 and AVX-512 F, BW, VL and DQ.
        unsafe { xor_avx512(self.0, key, nonce, counter, data) }
    }
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

#[inline(always)]
fn add(a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: AVX-512F is available: only `xor_avx512`, whose token
    // proves it, reaches here.
    unsafe { _mm512_add_epi32(a, b) }
}

/// `(a ^ b) <<< L` on every 32-bit word: `vpxord`, `vprold`.
#[inline(always)]
fn xor_rol<const L: i32>(a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: AVX-512F is available: only `xor_avx512`, whose token
    // proves it, reaches here.
    unsafe { _mm512_rol_epi32::<L>(_mm512_xor_si512(a, b)) }
}

#[inline(always)]
fn splat(w: u32) -> __m512i {
    // SAFETY: AVX-512F is available: only `xor_avx512`, whose token
    // proves it, reaches here.
    unsafe { _mm512_set1_epi32(w as i32) }
}

/// Four quarter-rounds (RFC 8439 §2.1), interleaved step by step.
#[inline(always)]
fn quarter4(x: &mut [__m512i; 16], q: [[usize; 4]; 4]) {
    for [a, b, _, _] in q {
        x[a] = add(x[a], x[b]);
    }
    for [a, _, _, d] in q {
        x[d] = xor_rol::<16>(x[d], x[a]);
    }
    for [_, _, c, d] in q {
        x[c] = add(x[c], x[d]);
    }
    for [_, b, c, _] in q {
        x[b] = xor_rol::<12>(x[b], x[c]);
    }
    for [a, b, _, _] in q {
        x[a] = add(x[a], x[b]);
    }
    for [a, _, _, d] in q {
        x[d] = xor_rol::<8>(x[d], x[a]);
    }
    for [_, _, c, d] in q {
        x[c] = add(x[c], x[d]);
    }
    for [_, b, c, _] in q {
        x[b] = xor_rol::<7>(x[b], x[c]);
    }
}

/// The keystream of the 16 blocks from `counter`, word-sliced: lane `j` of
/// row `i` is word `i` of block `counter + j` (the counter wraps as RFC
/// 8439's 32-bit counter does).
#[inline(always)]
fn keystream16(key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [__m512i; 16] {
    let init = input(key, nonce, counter);
    // SAFETY: AVX-512F is available: only `xor_avx512`, whose token
    // proves it, reaches here.
    let lanes = unsafe { _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) };
    let counters = add(splat(counter), lanes);
    // An array literal, as in the AVX2 kernel (a loop over a splatted array
    // compiled worse there).
    let i = &init;
    let mut x = [
        splat(i[0]),
        splat(i[1]),
        splat(i[2]),
        splat(i[3]),
        splat(i[4]),
        splat(i[5]),
        splat(i[6]),
        splat(i[7]),
        splat(i[8]),
        splat(i[9]),
        splat(i[10]),
        splat(i[11]),
        counters,
        splat(i[13]),
        splat(i[14]),
        splat(i[15]),
    ];
    for _ in 0..10 {
        quarter4(
            &mut x,
            [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
        );
        quarter4(
            &mut x,
            [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]],
        );
    }
    for (i, row) in x.iter_mut().enumerate() {
        let start = if i == 12 { counters } else { splat(init[i]) };
        *row = add(*row, start);
    }
    x
}

/// The word-sliced keystream `ks` of 16 blocks, XORed into `data` in block
/// order (see the module docs for the transposition).
// `g` indexes the four input rows and the output table alike.
#[allow(clippy::needless_range_loop)]
#[inline]
#[target_feature(enable = "avx,avx2,avx512f,avx512bw,avx512vl,avx512dq")]
fn xor16(ks: &[__m512i; 16], data: &mut [u8; 1024]) {
    let row = |i: usize| ks[i];
    // u[m][g], lane l: words 4g … 4g + 3 of block 4l + m.
    let mut u = [[row(0); 4]; 4];
    for g in 0..4 {
        let (a, b, c, d) = (row(4 * g), row(4 * g + 1), row(4 * g + 2), row(4 * g + 3));
        let t0 = _mm512_unpacklo_epi32(a, b);
        let t1 = _mm512_unpackhi_epi32(a, b);
        let t2 = _mm512_unpacklo_epi32(c, d);
        let t3 = _mm512_unpackhi_epi32(c, d);
        u[0][g] = _mm512_unpacklo_epi64(t0, t2);
        u[1][g] = _mm512_unpackhi_epi64(t0, t2);
        u[2][g] = _mm512_unpacklo_epi64(t1, t3);
        u[3][g] = _mm512_unpackhi_epi64(t1, t3);
    }
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
