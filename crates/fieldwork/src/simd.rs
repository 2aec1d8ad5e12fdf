//! Bit-for-bit conversions between `u128` values and x86-64 vector
//! registers, shared by every accelerated backend (one `transmute` each:
//! the types have the same size and every bit pattern is valid for both,
//! so no target feature is needed).
#![allow(unsafe_code)]

use core::arch::x86_64::{__m128i, __m256i, __m512i};

/// An xmm register holding `v` (little-endian: bit 0 of `v` is bit 0 of
/// the register).
#[inline(always)]
pub(crate) fn from_u128(v: u128) -> __m128i {
    // SAFETY: same size, every bit pattern valid for both.
    unsafe { core::mem::transmute::<u128, __m128i>(v) }
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
