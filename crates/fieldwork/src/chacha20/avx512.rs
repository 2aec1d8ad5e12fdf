//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq` —
//! capability token [`crate::cpu::Avx512`].
//!
//! Sixteen blocks at a time, word-sliced on zmm registers: the generic
//! block function of [`super::lanes`] with `N` = 16 compiled with
//! AVX-512, where every rotation is one `vprold`; then eight blocks on ymm
//! (AVX-512VL), four, and one at a time for the tail.
//!
//! The keystream leaves the rounds word-sliced (register `i` holds word `i`
//! of the 16 blocks); [`xor16`] turns it into block order by hand, since
//! the compiler lowers the generic transposition to 256 word extracts: per
//! four rows, `vpunpck{l,h}dq` and `vpunpck{l,h}qdq` make 128-bit lanes of
//! four consecutive words of one block, then two rounds of `vshufi32x4`
//! gather a block's four lanes into one register — 64 shuffles for 16
//! blocks, against the rounds' ≈ 1 000 vector operations.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// state-word and lane indices are constants or loop counters over fixed 16-word states; data offsets step by whole blocks below the length the caller split off.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::lanes::{keystream, xor_groups, xor_partial};
use crate::cpu::Avx512;
use core::arch::x86_64::{
    __m512i, _mm512_loadu_si512, _mm512_shuffle_i32x4, _mm512_storeu_si512, _mm512_unpackhi_epi32,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_xor_si512,
};

/// XORs the keystream from block `counter` into `data` (any length).
pub(super) fn xor(t: Avx512, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves AVX-512 F, BW, VL and DQ.
    unsafe { xor_avx512(key, nonce, counter, data) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn xor_avx512(key: &[u32; 8], nonce: &[u32; 3], mut counter: u32, data: &mut [u8]) {
    let mut groups = data.chunks_exact_mut(1024);
    for g in &mut groups {
        if let Ok(g) = <&mut [u8; 1024]>::try_from(g) {
            xor16(key, nonce, counter, g);
        }
        counter = counter.wrapping_add(16);
    }
    let rest = groups.into_remainder();
    let (counter, rest) = xor_groups::<8>(key, nonce, counter, rest);
    let (counter, rest) = xor_groups::<4>(key, nonce, counter, rest);
    let (counter, rest) = xor_groups::<1>(key, nonce, counter, rest);
    xor_partial(key, nonce, counter, rest);
}

/// The keystream of the 16 blocks from `counter`, XORed into `data` in
/// block order (see the module docs for the transposition).
// `g` indexes the four input rows and the output table alike.
#[allow(clippy::needless_range_loop)]
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn xor16(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8; 1024]) {
    let ks = keystream::<16>(key, nonce, counter);
    // SAFETY: `ks[i]` is 16 words: one 64-byte load each.
    let row = |i: usize| unsafe { _mm512_loadu_si512(ks[i].as_ptr().cast()) };
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
