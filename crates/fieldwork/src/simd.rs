//! Bit-for-bit conversions between `u128` values and x86-64 vector
//! registers, shared by every accelerated backend (one `transmute` each:
//! the types have the same size and every bit pattern is valid for both,
//! so no target feature is needed); and the AVX2 kernels' reads and writes
//! of a partial 32-byte register ([`load_partial32`], [`store_partial32`]).
#![allow(unsafe_code)]

use core::arch::x86_64::{
    __m128i, __m256i, __m512i, _mm256_and_si256, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
    _mm256_cvtsi256_si32, _mm256_maskload_epi32, _mm256_maskstore_epi32, _mm256_or_si256,
    _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_setr_epi32,
};

/// An xmm register holding `v` (little-endian: bit 0 of `v` is bit 0 of
/// the register).
#[inline(always)]
pub(crate) fn from_u128(v: u128) -> __m128i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<u128, __m128i>(v) }
}

/// `a`'s low 64 bits, then `b`'s (`punpcklqdq`, SSE2: every x86-64 CPU):
/// built in a vector register, the result is stored with one 16-byte
/// store, which a 16-byte load can take from the store buffer (two 8-byte
/// stores of a `u128` built in general registers cannot be forwarded to
/// it).
#[inline(always)]
pub(crate) fn unpack_lo64(a: u128, b: u128) -> u128 {
    // SAFETY: SSE2 is part of the x86-64 baseline (every target this
    // module compiles for has it).
    to_u128(unsafe { core::arch::x86_64::_mm_unpacklo_epi64(from_u128(a), from_u128(b)) })
}

/// `(a ⊕ b) ∧ m` in a vector register (SSE2), for the same reason as
/// [`unpack_lo64`]: the result reaches a 16-byte load by one 16-byte store.
#[inline(always)]
pub(crate) fn xor_and(a: u128, b: u128, m: u128) -> u128 {
    use core::arch::x86_64::{_mm_and_si128, _mm_xor_si128};
    // SAFETY: SSE2 is part of the x86-64 baseline.
    to_u128(unsafe { _mm_and_si128(_mm_xor_si128(from_u128(a), from_u128(b)), from_u128(m)) })
}

/// The `u128` an xmm register holds.
#[inline(always)]
pub(crate) fn to_u128(v: __m128i) -> u128 {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<__m128i, u128>(v) }
}

/// A ymm register with `v[i]` in lane `i`.
#[inline(always)]
pub(crate) fn ymm_from_u128s(v: [u128; 2]) -> __m256i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<[u128; 2], __m256i>(v) }
}

/// A zmm register with `v[i]` in lane `i`.
#[inline(always)]
pub(crate) fn zmm_from_u128s(v: [u128; 4]) -> __m512i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<[u128; 4], __m512i>(v) }
}

/// The `len` bytes (0 … 32) at `p` in the low bytes of a register, the rest
/// zero, reading nothing outside `p .. p + len`: whole dwords by a masked
/// load (`vpmaskmovd`), the last 1 … 3 bytes one by one.
///
/// For a tail of a buffer, instead of copying it to a zeroed stack array
/// and loading the whole register from there: that load waits for the
/// copy's smaller stores to retire (a store-forwarding miss), which cost
/// AES-GCM about 40 cycles a message on Zen 3 where the tail lay on the
/// tag's dependency chain (`gcm/vaes256.rs`). The mask and the branches
/// depend on `len` only (public lengths).
///
/// `#[inline(always)]` rather than `#[target_feature]`: the callers are the
/// kernels' own always-inlined helpers, and LLVM does not inline a
/// target-feature function into a helper that lacks the features (a call
/// per tail cost AES-GCM about 10 % at 256 bytes).
///
/// # Safety
///
/// AVX2 must be available (the caller is compiled for it); `p .. p + len`
/// readable.
#[inline(always)]
pub(crate) unsafe fn load_partial32(p: *const u8, len: usize) -> __m256i {
    let len = len.min(32);
    let dwords = (len / 4) as i32;
    // SAFETY: AVX2 (the caller's); the masked-off dwords are not
    // accessed, the others and the last bytes (`4·dwords + i < len`) lie in
    // `p .. p + len` (the caller's).
    unsafe {
        let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(dwords), index);
        let mut v = _mm256_maskload_epi32(p.cast(), mask);
        let tail = len % 4;
        if tail > 0 {
            let mut t = 0u32;
            for i in 0..tail {
                t |= u32::from(*p.add(4 * dwords as usize + i)) << (8 * i);
            }
            let at = _mm256_cmpeq_epi32(_mm256_set1_epi32(dwords), index);
            v = _mm256_or_si256(v, _mm256_and_si256(at, _mm256_set1_epi32(t as i32)));
        }
        v
    }
}

/// Writes the low `len` bytes (0 … 32) of `v` to `p`, nothing outside `p
/// .. p + len`: whole dwords by a masked store, the last 1 … 3 bytes one
/// by one (see [`load_partial32`]).
///
/// # Safety
///
/// AVX2 must be available (the caller is compiled for it); `p .. p + len`
/// writable.
#[inline(always)]
pub(crate) unsafe fn store_partial32(p: *mut u8, len: usize, v: __m256i) {
    let len = len.min(32);
    let dwords = (len / 4) as i32;
    // SAFETY: as in `load_partial32`.
    unsafe {
        let index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(dwords), index);
        _mm256_maskstore_epi32(p.cast(), mask, v);
        let tail = len % 4;
        if tail > 0 {
            let t = _mm256_cvtsi256_si32(_mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(dwords)));
            for i in 0..tail {
                *p.add(4 * dwords as usize + i) = (t as u32 >> (8 * i)) as u8;
            }
        }
    }
}
