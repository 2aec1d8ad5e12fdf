//! Target features: `pclmulqdq`, `sse4.1` — capability token [`Clmul`].
//!
//! The 64×64→128 carry-less product with one `pclmulqdq` (Intel white paper
//! 323640, "Intel Carry-Less Multiplication Instruction and its Usage for
//! Computing the GCM Mode", section 2). On AMD Zen 5 the instruction has a
//! latency of about 3 cycles and issues once per ~2 cycles at any vector width;
//! called through this non-inlined entry point the cost is dominated by moving
//! the operands into and out of xmm registers.

#![allow(unsafe_code)]

use crate::cpu::Clmul;
use core::arch::x86_64::{
    _mm_clmulepi64_si128, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_extract_epi64,
};

/// The 128-bit carry-less product of `a` and `b`.
#[inline]
pub(crate) fn clmul64(_: Clmul, a: u64, b: u64) -> u128 {
    // SAFETY: the `Clmul` token exists only if detection found PCLMULQDQ and
    // SSE4.1 usable, which is all `clmul64_pclmul` enables.
    unsafe { clmul64_pclmul(a, b) }
}

#[target_feature(enable = "pclmulqdq,sse4.1")]
fn clmul64_pclmul(a: u64, b: u64) -> u128 {
    let x = _mm_cvtsi64_si128(a as i64);
    let y = _mm_cvtsi64_si128(b as i64);
    let p = _mm_clmulepi64_si128::<0x00>(x, y);
    let lo = _mm_cvtsi128_si64(p) as u64;
    let hi = _mm_extract_epi64::<1>(p) as u64;
    (u128::from(hi) << 64) | u128::from(lo)
}
