//! Counter mode with AES-GCM-SIV's counter (RFC 8452 §4): the key stream
//! is `AES(K, c₀), AES(K, c₁), …` where the first four bytes of the
//! counter block are a little-endian 32-bit integer incremented modulo
//! 2^32 and the other twelve stay fixed. (GCM's counter, big-endian in the
//! last four bytes, lives inside the stitched kernels of [`crate::gcm`].)
//!
//! Target features: `aes`, `sse4.1` (token [`AesClmul`]) for the xmm
//! kernel; `vaes`, `avx2` ([`VaesAvx2`]) for ymm; `vaes`, `avx512f`
//! ([`VaesAvx512`]) for zmm; the generic loop on any backend is
//! [`super::ctr32le_xor`].
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
use crate::cpu::{AesClmul, VaesAvx2, VaesAvx512};
use crate::simd::from_u128;
use core::arch::x86_64::_mm_loadu_si128;
use zeroize::Zeroize;

/// XORs `data` with the key stream from `ctr` (the counter block read
/// little-endian, passed by value: built in a register, it is not read back
/// from narrower stores) on xmm (AES-NI).
pub(crate) fn xor_xmm(t: AesClmul, rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
    let _ = t;
    // SAFETY: the token proves AES-NI and SSE4.1.
    unsafe { crate::aes::with_rounds!(rk.rounds, NR => xor_xmm_nr::<NR>(rk, ctr, data)) }
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
    unsafe { crate::aes::with_rounds!(rk.rounds, NR => xor_ymm_nr::<NR>(rk, ctr, data)) }
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
    unsafe { crate::aes::with_rounds!(rk.rounds, NR => xor_zmm_nr::<NR>(rk, ctr, head)) }
    done
}

/// The instructions of one register width under the names the kernel
/// macros use: `V` the register, `LANES` its blocks, `from` a register from
/// one `u128` per lane, `bcast` a block in every lane, `add` (32-bit lanes),
/// `enc` and `last` (AES rounds), `xor`, `load` and `store` (unaligned).
mod xmm {
    pub(super) use crate::simd::from_u128;
    pub(super) use core::arch::x86_64::{
        __m128i as V, _mm_add_epi32 as add, _mm_aesenc_si128 as enc, _mm_aesenclast_si128 as last,
        _mm_loadu_si128 as load, _mm_storeu_si128 as store, _mm_xor_si128 as xor,
    };
    pub(super) const LANES: usize = 1;

    /// `v[0]` in the register (the one-lane form of the others' `from`).
    #[inline(always)]
    pub(super) fn from(v: [u128; 1]) -> V {
        from_u128(v[0])
    }

    /// The one-lane "broadcast".
    #[inline(always)]
    pub(super) fn bcast(k: V) -> V {
        k
    }
}

/// The ymm instructions (see [`xmm`]).
mod ymm {
    pub(super) use crate::simd::ymm_from_u128s as from;
    pub(super) use crate::vex256::{_mm256_aesenc_epi128 as enc, _mm256_aesenclast_epi128 as last};
    pub(super) use core::arch::x86_64::{
        __m256i as V, _mm256_add_epi32 as add, _mm256_broadcastsi128_si256 as bcast,
        _mm256_loadu_si256 as load, _mm256_storeu_si256 as store, _mm256_xor_si256 as xor,
    };
    pub(super) const LANES: usize = 2;
}

/// The zmm instructions (see [`xmm`]).
mod zmm {
    pub(super) use crate::simd::zmm_from_u128s as from;
    pub(super) use core::arch::x86_64::{
        __m512i as V, _mm512_add_epi32 as add, _mm512_aesenc_epi128 as enc,
        _mm512_aesenclast_epi128 as last, _mm512_broadcast_i32x4 as bcast,
        _mm512_loadu_si512 as load, _mm512_storeu_si512 as store, _mm512_xor_si512 as xor,
    };
    pub(super) const LANES: usize = 4;
}

/// The tail of a kernel of width `$w` (a module of [`xmm`]'s shape) in
/// `$kk` registers of blocks (at least the tail's `⌈len / REG⌉`): the
/// whole registers XORed in place, a partial last one through a zeroed
/// register-sized buffer, wiped afterwards.
macro_rules! ctr_tail {
    ($w:ident, $kk:literal, $reg:ident, $nr:ident, $c:ident, $k:ident, $rest:ident) => {{
        let mut x: [$w::V; $kk] = core::array::from_fn(|j| $w::xor($c[j], $k[0]));
        for kr in &$k[1..$nr] {
            for xi in &mut x {
                *xi = $w::enc(*xi, *kr);
            }
        }
        let whole = $rest.len() / $reg;
        let (full, part) = $rest.split_at_mut(whole * $reg);
        let p = full.as_mut_ptr();
        for (j, xi) in x[..whole].iter().enumerate() {
            // SAFETY: `j < whole`: a whole register inside `full`.
            unsafe {
                let q = p.add(j * $reg).cast();
                $w::store(q, $w::xor($w::last(*xi, $k[$nr]), $w::load(q)));
            }
        }
        if !part.is_empty() {
            let mut buf = [0u8; $reg];
            buf[..part.len()].copy_from_slice(part);
            // SAFETY: `buf` is one register wide.
            unsafe {
                let q = buf.as_mut_ptr().cast();
                $w::store(q, $w::xor($w::last(x[whole], $k[$nr]), $w::load(q)));
            }
            part.copy_from_slice(&buf[..part.len()]);
            buf.zeroize();
        }
    }};
}

/// Generates the kernel `$name` of width `$w` (a module of [`xmm`]'s
/// shape), compiled with `$feat`: `$w::LANES` blocks per register, eight
/// registers an iteration.
macro_rules! ctr_kernel {
    ($name:ident, $feat:literal, $w:ident) => {
        #[target_feature(enable = $feat)]
        fn $name<const NR: usize>(rk: &RoundKeys, ctr: u128, data: &mut [u8]) {
            const REG: usize = 16 * $w::LANES;
            const ITER: usize = 8 * REG;
            // Round keys broadcast to every lane straight from memory
            // (entries past `NR` are unused): built from `[u128; lanes]`
            // arrays they were scalar stores that the vector loads could
            // not forward from.
            let k: [$w::V; 15] = core::array::from_fn(|r| {
                // SAFETY: `r < 15`: a 16-byte element of `rk.rk`.
                let key = unsafe { _mm_loadu_si128(rk.rk.as_ptr().add(r).cast()) };
                $w::bcast(key)
            });
            // Counters of the eight registers of an iteration (block
            // `j·lanes + i` in lane `i` of register `j`): the broadcast
            // counter block plus constants, and the step from one
            // iteration to the next.
            let base = $w::bcast(from_u128(ctr));
            let mut c: [$w::V; 8] = core::array::from_fn(|j| {
                $w::add(
                    base,
                    $w::from(core::array::from_fn(|i| (j * $w::LANES + i) as u128)),
                )
            });
            let advance: $w::V = $w::from([(8 * $w::LANES) as u128; $w::LANES]);
            let mut chunks = data.chunks_exact_mut(ITER);
            for chunk in &mut chunks {
                let p = chunk.as_mut_ptr();
                let mut x: [$w::V; 8] = core::array::from_fn(|j| $w::xor(c[j], k[0]));
                for kr in &k[1..NR] {
                    for xi in &mut x {
                        *xi = $w::enc(*xi, *kr);
                    }
                }
                for (j, xi) in x.iter().enumerate() {
                    // SAFETY: `j·REG + REG ≤ ITER` bytes of `chunk`.
                    unsafe {
                        let q = p.add(j * REG).cast();
                        $w::store(q, $w::xor($w::last(*xi, k[NR]), $w::load(q)));
                    }
                }
                for cj in &mut c {
                    *cj = $w::add(*cj, advance);
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
                1 => ctr_tail!($w, 1, REG, NR, c, k, rest),
                2 => ctr_tail!($w, 2, REG, NR, c, k, rest),
                3 | 4 => ctr_tail!($w, 4, REG, NR, c, k, rest),
                _ => ctr_tail!($w, 8, REG, NR, c, k, rest),
            }
        }
    };
}

ctr_kernel!(xor_xmm_nr, "aes,sse4.1", xmm);
ctr_kernel!(xor_ymm_nr, "avx,avx2,vaes,aes,sse4.1", ymm);
ctr_kernel!(
    xor_zmm_nr,
    "avx512f,avx512bw,avx512vl,avx512dq,vaes,aes,sse4.1",
    zmm
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aes::{Backend, add32, aesni, ctr32le_xor as xor_generic, portable};
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
            let portable = portable::Key::new((), &key);
            let fast = AesClmul::get().map(|t| aesni::Key::new(t, &key));
            for low in [0u32, 7, 0xffff_fff0, 0xffff_ffff] {
                let mut ctr = [0xa5u8; 16];
                ctr[..4].copy_from_slice(&low.to_le_bytes());
                ctr[15] |= 0x80;
                for &len in &lens {
                    let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
                    let mut want = data.clone();
                    let ctr = u128::from_le_bytes(ctr);
                    xor_generic(&portable, ctr, &mut want);
                    let Some(fast) = &fast else {
                        continue;
                    };
                    let mut got = data.clone();
                    xor_generic(fast, ctr, &mut got);
                    assert_eq!(got, want, "generic on the fast AES, len {len}");
                    let (t, rk) = (fast.token(), &fast.rk);
                    let mut got = data.clone();
                    xor_xmm(t, rk, ctr, &mut got);
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
