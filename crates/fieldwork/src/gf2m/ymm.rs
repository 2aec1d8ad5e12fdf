//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`Avx2Clmul`].
//!
//! The fields' operations compiled with VPCLMULQDQ on ymm, as `clmul.rs`
//! does with PCLMULQDQ: one `#[target_feature]` entry point
//! ([`VpclmulqdqYmm::run`]) around the caller's
//! [`Computation`](super::Computation), with the kernels of [`YmmLane`]
//! (the PCLMULQDQ formulas on xmm lanes, VEX-encoded, for the fields whose
//! product is folded in lanes; the `gf2x` ymm limb kernels for the products
//! folded in words: 7 and 9 words) and, for `mul_slices` and
//! `square_slices`, `PairLane`: two elements per instruction, one per
//! 128-bit lane, an odd last element on [`YmmLane`].
//!
//! [`VpclmulqdqYmmWide`] is the same backend with F409's and F571's
//! product and square on two 128-bit digits a ymm register
//! (`ymmfold.rs`), for the cores where the tuning table (`tuning.rs`)
//! says they are faster; its kernels, [`YmmWide`], are [`YmmLane`]'s
//! under another type, so the choice is made at compile time inside the
//! backend's entry point.
//!
//! [`VpclmulqdqAvx512`] is the wide backend with AVX-512's mask registers
//! for the linear maps (`maps.rs`: one masked XOR a row word, both halves
//! of a half-table map in one pass; kernels [`Avx512Wide`]): its products
//! and squares are the wide backend's. [`VpclmulqdqAvx512XmmSquares`] is
//! the same with F409's and F571's squares one digit an xmm register
//! (`xmmfold.rs`), for the cores whose `pclmulqdq` issues every cycle
//! (Intel): there the ymm squares' lane insertions and extractions are
//! latency and port-5 µops that the xmm squares do not have. The tuning
//! table (`tuning.rs`) picks one of the two.
#![allow(unsafe_code)]

use crate::cpu::{Avx2Clmul, Avx512Clmul};
use crate::gf2x::{InlineFixed, YmmLane};

super::simd_backend!(
    /// The VPCLMULQDQ-on-ymm `gf2m` backend (see [`Backend`](super::Backend));
    /// holding one proves the instructions.
    VpclmulqdqYmm(Avx2Clmul), YmmLane, "vpclmulqdq-ymm", "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1"
);

super::simd_backend!(
    /// The VPCLMULQDQ-on-ymm `gf2m` backend with the two largest fields'
    /// products and squares two digits a ymm register (see
    /// [`Backend`](super::Backend)); holding one proves the instructions.
    VpclmulqdqYmmWide(Avx2Clmul), YmmWide, "vpclmulqdq-ymm-wide", "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1"
);

super::simd_backend!(
    /// The wide `gf2m` backend with the linear maps on AVX-512's mask
    /// registers (see [`Backend`](super::Backend)); holding one proves the
    /// instructions.
    VpclmulqdqAvx512(Avx512Clmul), Avx512Wide<true>, "vpclmulqdq-avx512",
    "vpclmulqdq,avx512f,avx512bw,avx512vl,avx512dq,avx2,avx,pclmulqdq,sse4.1"
);

super::simd_backend!(
    /// [`VpclmulqdqAvx512`] with F409's and F571's squares on xmm digits
    /// (see [`Backend`](super::Backend)); holding one proves the
    /// instructions.
    VpclmulqdqAvx512XmmSquares(Avx512Clmul), Avx512Wide<false>, "vpclmulqdq-avx512-xmm-squares",
    "vpclmulqdq,avx512f,avx512bw,avx512vl,avx512dq,avx2,avx,pclmulqdq,sse4.1"
);

/// [`YmmWide`]'s kernels with the maps on mask registers
/// ([`VpclmulqdqAvx512`]'s); with `WIDE_SQUARES` false, F409's and F571's
/// squares on xmm digits ([`VpclmulqdqAvx512XmmSquares`]'s).
#[derive(Clone, Copy, Debug)]
pub struct Avx512Wide<const WIDE_SQUARES: bool>(pub(crate) Avx512Clmul);

impl<const WIDE_SQUARES: bool> Avx512Wide<WIDE_SQUARES> {
    /// The wide kernels on the same token's AVX2 part.
    #[inline(always)]
    pub(crate) fn wide(self) -> YmmWide {
        YmmWide(self.0.avx2_clmul())
    }

    /// The same token's [`YmmLane`].
    #[inline(always)]
    pub(crate) fn lane(self) -> YmmLane {
        self.wide().lane()
    }
}

/// [`YmmLane`]'s kernels as [`VpclmulqdqYmmWide`]'s: every `gf2x` product
/// delegated, the fields' kernels told apart by
/// [`FieldKernel::wide`](super::FieldKernel::wide).
#[derive(Clone, Copy, Debug)]
pub struct YmmWide(pub(crate) Avx2Clmul);

impl YmmWide {
    /// The same token's [`YmmLane`].
    #[inline(always)]
    pub(crate) fn lane(self) -> YmmLane {
        YmmLane(self.0)
    }
}

/// Delegates `InlineFixed::$name` to [`YmmLane`].
macro_rules! delegate_products {
    ($($name:ident $n:literal),*) => {$(
        #[inline(always)]
        fn $name(self, a: &[Self::Limb; $n], b: &[Self::Limb; $n]) -> [Self::Limb; 2 * $n] {
            self.lane().$name(a, b)
        }
    )*};
}

/// `InlineFixed` for `$t`, every kernel [`YmmLane`]'s (`$t::lane`).
macro_rules! inline_fixed_on_lane {
    ($(impl[$($gen:tt)*] $t:ty;)*) => {$(
impl<$($gen)*> InlineFixed for $t {
    type Limb = <YmmLane as InlineFixed>::Limb;
    #[inline(always)]
    fn limbs<const N: usize>(self, a: &[u64; N]) -> [Self::Limb; N] {
        self.lane().limbs(a)
    }
    #[inline(always)]
    fn words<const N: usize>(self, a: [Self::Limb; N]) -> [u64; N] {
        self.lane().words(a)
    }
    #[inline(always)]
    fn shl(self, x: Self::Limb, s: u32) -> Self::Limb {
        self.lane().shl(x, s)
    }
    #[inline(always)]
    fn shr(self, x: Self::Limb, s: u32) -> Self::Limb {
        self.lane().shr(x, s)
    }
    delegate_products!(
        mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16
    );
    #[inline(always)]
    fn square_limb(self, a: Self::Limb) -> [Self::Limb; 2] {
        self.lane().square_limb(a)
    }
}
    )*};
}

inline_fixed_on_lane! {
    impl[] YmmWide;
    impl[const S: bool] Avx512Wide<S>;
}
