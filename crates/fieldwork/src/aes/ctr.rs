//! Counter mode with AES-GCM-SIV's counter (RFC 8452 §4): the key stream
//! is `AES(K, c₀), AES(K, c₁), …` where the first four bytes of the
//! counter block are a little-endian 32-bit integer incremented modulo
//! 2^32 and the other twelve stay fixed. (GCM's counter, big-endian in the
//! last four bytes, lives inside the stitched kernels of [`crate::gcm`].)
//!
//! Target features: `aes`, `sse4.1` (token [`AesClmul`]) for the xmm
//! kernel; `vaes`, `avx2` ([`VaesAvx2`]) for ymm; `vaes`, `avx512f`
//! ([`VaesAvx512`]) for zmm; the generic loop on any key is
//! [`super::ctr32le_xor_generic`].
//!
//! # Representation
//!
//! A counter block read little-endian into a vector lane has the counter
//! in its lowest 32-bit element, so `c + i` is one `paddd` of `(i, 0, 0,
//! 0)`, which wraps modulo 2^32 and leaves the other twelve bytes alone —
//! exactly RFC 8452's increment, with no byte reversal (GCM needs one).
//!
//! # Operation count
//!
//! Per 16-byte block: `Nr + 1` AES operations, one counter addition, one
//! load, one XOR, one store. The kernels keep eight registers of blocks in
//! flight (8, 16 and 32 blocks for xmm, ymm and zmm) to cover the latency
//! of `aesenc` (4 cycles on Zen 4), and the round keys, broadcast to every
//! lane. A tail shorter than one iteration runs the fewest of 1, 2, 4 or
//! 8 registers that hold it (a fixed count each: rounds of a few registers
//! issue in about the latency of one) and stores the whole ones in place,
//! a partial last one through a zeroed register-sized stack buffer, wiped
//! afterwards; callers of the zmm kernel give its tail to the ymm one
//! ([`xor_zmm`] returns how many bytes it left).
//!
//! Measured inside AES-GCM-SIV (`peer-bench --filter gcm_siv`), which is
//! where these kernels are used.
// Indexing is bounded by construction: round-key indices are below the
// round count of the 15-entry schedule; block indices below the chunk's.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::RoundKeys;
#[cfg(test)]
use super::add32;
#[cfg(test)]
use super::{AesKey, ctr32le_xor_generic as xor_generic};
use crate::cpu::{AesClmul, VaesAvx2, VaesAvx512};
use crate::simd::{from_u128, ymm_from_u128s, zmm_from_u128s};
use crate::vex256::{_mm256_aesenc_epi128, _mm256_aesenclast_epi128};
use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm_add_epi32, _mm_aesenc_si128, _mm_aesenclast_si128,
    _mm_loadu_si128, _mm_storeu_si128, _mm_xor_si128, _mm256_add_epi32,
    _mm256_broadcastsi128_si256, _mm256_loadu_si256, _mm256_storeu_si256, _mm256_xor_si256,
    _mm512_add_epi32, _mm512_aesenc_epi128, _mm512_aesenclast_epi128, _mm512_broadcast_i32x4,
    _mm512_loadu_si512, _mm512_storeu_si512, _mm512_xor_si512,
};
use zeroize::Zeroize;

/// XORs `data` with the key stream from `ctr` (the counter block read
/// little-endian, passed by value: built in a register, it is not read back
/// from narrower stores) on xmm (AES-NI).
pub(crate) fn xor_xmm(t: AesClmul, rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves AES-NI and SSE4.1.
    unsafe {
        match rk.rounds {
            10 => xor_xmm_nr::<10>(rk, ctr, data),
            12 => xor_xmm_nr::<12>(rk, ctr, data),
            _ => xor_xmm_nr::<14>(rk, ctr, data),
        }
    }
}

/// XORs `data` with the key stream from `ctr` on ymm (VAES).
pub(crate) fn xor_ymm(t: VaesAvx2, rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    // One block: the xmm kernel's single register (the ymm kernel's setup
    // and a second block cost more: a 16-byte AES-GCM-SIV seal 376 → 297
    // cycles on the Xeon f6m207).
    if data.len() <= 16 {
        return xor_xmm(t.aes_clmul(), rk, ctr, data);
    }
    // SAFETY: the token proves VAES, AVX2, AES-NI and SSE4.1.
    unsafe {
        match rk.rounds {
            10 => xor_ymm_nr::<10>(rk, ctr, data),
            12 => xor_ymm_nr::<12>(rk, ctr, data),
            _ => xor_ymm_nr::<14>(rk, ctr, data),
        }
    }
}

/// XORs the whole 32-block iterations of `data` with the key stream from
/// `ctr` on zmm (VAES, AVX-512) and returns how many bytes that was (a
/// multiple of 512): the rest goes to [`xor_ymm`] from the counter
/// advanced by that many blocks, whose eight-register tail costs less.
pub(crate) fn xor_zmm(t: VaesAvx512, rk: &RoundKeys, ctr: u128, data: &mut [u8]) -> usize {
    let _ = t;
    let done = data.len() / 512 * 512;
    let (head, _) = data.split_at_mut(done);
    // SAFETY: the token proves VAES, AVX-512 F/BW/VL/DQ, AES-NI, SSE4.1.
    unsafe {
        match rk.rounds {
            10 => xor_zmm_nr::<10>(rk, ctr, head),
            12 => xor_zmm_nr::<12>(rk, ctr, head),
            _ => xor_zmm_nr::<14>(rk, ctr, head),
        }
    }
    done
}

/// An xmm register holding `v[0]` (the one-lane form of
/// [`ymm_from_u128s`], for the kernel macro).
#[inline(always)]
fn xmm_from_u128s(v: [u128; 1]) -> __m128i {
    from_u128(v[0])
}

/// The one-lane "broadcast" (for the kernel macro).
#[inline(always)]
fn xmm_same(k: __m128i) -> __m128i {
    k
}

/// The tail of a kernel in `$kk` registers of blocks (at least the tail's
/// `⌈len / REG⌉`): the whole registers XORed in place, a partial last
/// one through a zeroed register-sized buffer, wiped afterwards.
macro_rules! ctr_tail {
    (
        $kk:literal, $v:ty, $xor:ident, $enc:ident, $last:ident, $load:ident, $store:ident,
        $reg:ident, $nr:ident, $c:ident, $k:ident, $rest:ident
    ) => {{
        let mut x: [$v; $kk] = core::array::from_fn(|j| $xor($c[j], $k[0]));
        for kr in &$k[1..$nr] {
            for xi in &mut x {
                *xi = $enc(*xi, *kr);
            }
        }
        let whole = $rest.len() / $reg;
        let (full, part) = $rest.split_at_mut(whole * $reg);
        let p = full.as_mut_ptr();
        for (j, xi) in x[..whole].iter().enumerate() {
            // SAFETY: `j < whole`: a whole register inside `full`.
            unsafe {
                let q = p.add(j * $reg).cast();
                $store(q, $xor($last(*xi, $k[$nr]), $load(q)));
            }
        }
        if !part.is_empty() {
            let mut buf = [0u8; $reg];
            buf[..part.len()].copy_from_slice(part);
            // SAFETY: `buf` is one register wide.
            unsafe {
                let q = buf.as_mut_ptr().cast();
                $store(q, $xor($last(x[whole], $k[$nr]), $load(q)));
            }
            part.copy_from_slice(&buf[..part.len()]);
            buf.zeroize();
        }
    }};
}

/// Generates the three kernels: `$lanes` blocks per register, eight
/// registers an iteration.
macro_rules! ctr_kernel {
    (
        $name:ident, $feat:literal, $v:ty, $lanes:literal, from = $from:ident, bcast = $bcast:ident,
        add = $add:ident, enc = $enc:ident, last = $last:ident, xor = $xor:ident,
        load = $load:ident, store = $store:ident
    ) => {
        #[target_feature(enable = $feat)]
        fn $name<const NR: usize>(rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
            const REG: usize = 16 * $lanes;
            const ITER: usize = 8 * REG;
            // Round keys broadcast to every lane straight from memory
            // (entries past `NR` are unused): built from `[u128; lanes]`
            // arrays they were scalar stores that the vector loads could
            // not forward from.
            let k: [$v; 15] = core::array::from_fn(|r| {
                // SAFETY: `r < 15`: a 16-byte element of `rk.rk`.
                let key = unsafe { _mm_loadu_si128(rk.rk.as_ptr().add(r).cast()) };
                $bcast(key)
            });
            // Counters of the eight registers of an iteration (block
            // `j·lanes + i` in lane `i` of register `j`): the broadcast
            // counter block plus constants, and the step from one
            // iteration to the next.
            let base = $bcast(from_u128(ctr));
            let mut c: [$v; 8] = core::array::from_fn(|j| {
                $add(
                    base,
                    $from(core::array::from_fn(|i| (j * $lanes + i) as u128)),
                )
            });
            let advance: $v = $from([(8 * $lanes) as u128; $lanes]);
            let mut chunks = data.chunks_exact_mut(ITER);
            for chunk in &mut chunks {
                let p = chunk.as_mut_ptr();
                let mut x: [$v; 8] = core::array::from_fn(|j| $xor(c[j], k[0]));
                for kr in &k[1..NR] {
                    for xi in &mut x {
                        *xi = $enc(*xi, *kr);
                    }
                }
                for (j, xi) in x.iter().enumerate() {
                    // SAFETY: `j·REG + REG ≤ ITER` bytes of `chunk`.
                    unsafe {
                        let q = p.add(j * REG).cast();
                        $store(q, $xor($last(*xi, k[NR]), $load(q)));
                    }
                }
                for cj in &mut c {
                    *cj = $add(*cj, advance);
                }
            }
            // The tail: `n` registers, whole ones straight from `data`,
            // the partial last one through a zeroed register-sized buffer.
            let rest = chunks.into_remainder();
            let n = rest.len().div_ceil(REG);
            if n == 0 {
                return;
            }
            // The fewest of 1, 2, 4 or 8 registers that hold the tail (a
            // short message: more would be rounds for nothing on its
            // dependency chain). A fixed count each: with a run-time count
            // the blocks went through memory every round (a
            // store-forwarding chain), while a few registers' rounds issue
            // in about the latency of one (`aesenc`: 3–4 cycles, two a
            // cycle).
            match n {
                1 => ctr_tail!(1, $v, $xor, $enc, $last, $load, $store, REG, NR, c, k, rest),
                2 => ctr_tail!(2, $v, $xor, $enc, $last, $load, $store, REG, NR, c, k, rest),
                3 | 4 => ctr_tail!(4, $v, $xor, $enc, $last, $load, $store, REG, NR, c, k, rest),
                _ => ctr_tail!(8, $v, $xor, $enc, $last, $load, $store, REG, NR, c, k, rest),
            }
        }
    };
}

ctr_kernel!(
    xor_xmm_nr,
    "aes,sse4.1",
    __m128i,
    1,
    from = xmm_from_u128s,
    bcast = xmm_same,
    add = _mm_add_epi32,
    enc = _mm_aesenc_si128,
    last = _mm_aesenclast_si128,
    xor = _mm_xor_si128,
    load = _mm_loadu_si128,
    store = _mm_storeu_si128
);

ctr_kernel!(
    xor_ymm_nr,
    "avx,avx2,vaes,aes,sse4.1",
    __m256i,
    2,
    from = ymm_from_u128s,
    bcast = _mm256_broadcastsi128_si256,
    add = _mm256_add_epi32,
    enc = _mm256_aesenc_epi128,
    last = _mm256_aesenclast_epi128,
    xor = _mm256_xor_si256,
    load = _mm256_loadu_si256,
    store = _mm256_storeu_si256
);

ctr_kernel!(
    xor_zmm_nr,
    "avx512f,avx512bw,avx512vl,avx512dq,vaes,aes,sse4.1",
    __m512i,
    4,
    from = zmm_from_u128s,
    bcast = _mm512_broadcast_i32x4,
    add = _mm512_add_epi32,
    enc = _mm512_aesenc_epi128,
    last = _mm512_aesenclast_epi128,
    xor = _mm512_xor_si512,
    load = _mm512_loadu_si512,
    store = _mm512_storeu_si512
);

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Every kernel this CPU runs against [`xor_generic`] on the portable
    /// AES, for each key size, lengths around every register and
    /// iteration boundary, and counters that wrap modulo 2^32 inside the
    /// message.
    #[test]
    fn kernels_match_generic() {
        let lens = [
            0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512,
            513, 1000, 1024, 1537,
        ];
        for key_len in [16usize, 24, 32] {
            let key: Vec<u8> = (0..key_len as u8)
                .map(|i| i.wrapping_mul(37) ^ 0x5a)
                .collect();
            let portable = AesKey::new_portable(&key);
            let fast = AesKey::new(&key);
            for low in [0u32, 7, 0xffff_fff0, 0xffff_ffff] {
                let mut ctr = [0xa5u8; 16];
                ctr[..4].copy_from_slice(&low.to_le_bytes());
                ctr[15] |= 0x80;
                for &len in &lens {
                    let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                    let mut want = data.clone();
                    let ctr = u128::from_le_bytes(ctr);
                    xor_generic(&portable, ctr, &mut want);
                    let mut got = data.clone();
                    xor_generic(&fast, ctr, &mut got);
                    assert_eq!(got, want, "generic on the fast AES, len {len}");
                    let AesKey::AesNi(t, rk) = &fast else {
                        continue;
                    };
                    let mut got = data.clone();
                    xor_xmm(*t, rk, ctr, &mut got);
                    assert_eq!(got, want, "xmm, key {key_len}, ctr {low:#x}, len {len}");
                    if let Some(t) = VaesAvx2::get() {
                        let mut got = data.clone();
                        xor_ymm(t, rk, ctr, &mut got);
                        assert_eq!(got, want, "ymm, key {key_len}, ctr {low:#x}, len {len}");
                    }
                    if let (Some(t), Some(t2)) = (VaesAvx512::get(), VaesAvx2::get()) {
                        let mut got = data.clone();
                        let done = xor_zmm(t, rk, ctr, &mut got);
                        assert_eq!(done, len / 512 * 512);
                        let next = add32(ctr, (done / 16) as u32);
                        xor_ymm(t2, rk, next, &mut got[done..]);
                        assert_eq!(got, want, "zmm, key {key_len}, ctr {low:#x}, len {len}");
                    }
                }
            }
        }
    }

    /// The counter wraps modulo 2^32 and the other twelve bytes never
    /// change.
    #[test]
    fn add32_wraps_in_the_low_word_only() {
        assert_eq!(add32(u128::MAX, 1), u128::MAX << 32);
        assert_eq!(add32(5, 3), 8);
    }
}
