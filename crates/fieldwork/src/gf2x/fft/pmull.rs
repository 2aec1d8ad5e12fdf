//! Target features: `neon`, `aes` (AES + PMULL) — capability token
//! [`NeonAes`].
//!
//! The scalar butterflies of [`super::levels`] with the field product as one
//! `PMULL` and the shift-and-XOR reduction of [`super::field::reduce`] on
//! general registers (AArch64's shifted-operand `EOR` makes it about 8
//! instructions), and the conversions' XOR loops compiled with these
//! features: the PCLMULQDQ FFT's shape (`clmul.rs`). A two-lane NEON pass
//! (`wide.rs` over q registers, `PMULL` and `PMULL2` per butterfly pair) is
//! not built yet.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// butterfly indices are counters below the level's length, within buffers sized for the transform.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::levels::{self, FieldMul};
use crate::cpu::NeonAes;
use core::arch::aarch64::vmull_p64;

/// `PMULL` on two words: a `#[target_feature]` function, inlined by LLVM
/// into the kernels (the `#[inline(always)]` intrinsic cannot be inlined
/// into a caller without its features).
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull64(a: u64, b: u64) -> u128 {
    vmull_p64(a, b)
}

/// The field product with `PMULL`; used only inside functions compiled
/// with NEON and AES (the token proves the CPU has them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PmullMul(pub(crate) NeonAes);

impl FieldMul for PmullMul {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> u64 {
        // SAFETY: a `NeonAes` token exists only if NEON and PMULL are
        // usable, all `pmull64` enables.
        let p = unsafe { pmull64(a, b) };
        super::field::reduce(p as u64, (p >> 64) as u64)
    }
}

/// The PMULL FFT kernels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PmullFft(pub(crate) NeonAes);

fft_entries!(PmullFft(NeonAes), "neon,aes", levels, |t| PmullMul(t));
