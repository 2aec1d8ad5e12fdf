//! A fixed field's operations on any backend's kernels `K`: the bodies
//! every backend compiles (the accelerated ones inside their
//! `#[target_feature]` entry point, [`Backend`](super::Backend)'s default
//! methods call them), and the field's arithmetic for the generic
//! algorithms of `algorithms.rs`. Everything here is `#[inline(always)]`:
//! it must land in the caller's target features.
#![forbid(unsafe_code)]

use super::FieldElement;
use super::FieldKernel;
use super::algorithms::{self, Arith};
use super::divstep::Divstep;
use core::marker::PhantomData;
use subtle::Choice;

/// A fixed field's arithmetic on the kernels `K`, for the generic
/// algorithms.
#[derive(Clone, Copy)]
pub(super) struct FixedArith<F, K>(K, PhantomData<F>);

impl<F: FieldElement, K: Divstep> Arith for FixedArith<F, K> {
    type E = F;
    #[inline(always)]
    fn degree(&self) -> usize {
        F::M
    }
    #[inline(always)]
    fn one(&self) -> F {
        F::ONE
    }
    #[inline(always)]
    fn mul(&self, a: &F, b: &F) -> F {
        F::mul_k(self.0, a, b)
    }
    #[inline(always)]
    fn square(&self, a: &F) -> F {
        F::square_k(self.0, a)
    }
    #[inline(always)]
    fn add(&self, a: &F, b: &F) -> F {
        *a + *b
    }
    #[inline(always)]
    fn select(&self, a: &F, b: &F, choice: Choice) -> F {
        F::conditional_select(a, b, choice)
    }
    #[inline(always)]
    fn pow2k(&self, a: &F, k: usize) -> F {
        if K::half_maps(F::M) {
            return match F::frobenius_half_table(k).filter(|_| k >= K::table_from(F::M)) {
                Some((table, shift)) => F::apply_half_map_k(self.0, table, &shift, a),
                None => F::square_n_k(self.0, a, k),
            };
        }
        match F::frobenius_table(k).filter(|_| k >= K::table_from(F::M)) {
            Some(table) => F::apply_map_k(self.0, table, a),
            None => F::square_n_k(self.0, a, k),
        }
    }
    #[inline(always)]
    fn invert(&self, a: &F) -> F {
        invert(self.0, a)
    }
    #[inline(always)]
    fn half_trace(&self, c: &F) -> F {
        match F::half_trace_table() {
            Some(table) => F::apply_map_k(self.0, table, c),
            None => algorithms::half_trace_by_squaring(self, c),
        }
    }
}

#[inline(always)]
fn arith<F, K>(k: K) -> FixedArith<F, K> {
    FixedArith(k, PhantomData)
}

#[inline(always)]
pub(super) fn mul<F: FieldElement, K: FieldKernel>(k: K, a: &F, b: &F) -> F {
    F::mul_k(k, a, b)
}
#[inline(always)]
pub(super) fn square<F: FieldElement, K: FieldKernel>(k: K, a: &F) -> F {
    F::square_k(k, a)
}
#[inline(always)]
pub(super) fn sqrt<F: FieldElement, K: FieldKernel>(k: K, a: &F) -> F {
    F::sqrt_k(k, a)
}
/// `a^(−1)`: divsteps from the kernels' [`Divstep::DIVSTEP_FROM`],
/// Itoh–Tsujii below (the degree is a constant: no run-time branch).
#[inline(always)]
pub(super) fn invert<F: FieldElement, K: Divstep>(k: K, a: &F) -> F {
    if F::M >= K::DIVSTEP_FROM {
        F::invert_divstep_k(k, a)
    } else {
        invert_itoh_tsujii(k, a)
    }
}
#[inline(always)]
pub(super) fn invert_itoh_tsujii<F: FieldElement, K: Divstep>(k: K, a: &F) -> F {
    algorithms::invert(&arith::<F, K>(k), a)
}
#[inline(always)]
pub(super) fn invert_divstep<F: FieldElement, K: Divstep>(k: K, a: &F) -> F {
    F::invert_divstep_k(k, a)
}
#[inline(always)]
pub(super) fn half_trace<F: FieldElement, K: Divstep>(k: K, a: &F) -> F {
    algorithms::half_trace(&arith::<F, K>(k), a)
}
#[inline(always)]
pub(super) fn pow2k<F: FieldElement, K: Divstep>(k: K, a: &F, n: usize) -> F {
    algorithms::pow2k(&arith::<F, K>(k), a, n)
}
#[inline(always)]
pub(super) fn pow<F: FieldElement, K: Divstep>(k: K, a: &F, e: &[u64]) -> F {
    algorithms::pow(&arith::<F, K>(k), a, e)
}
#[inline(always)]
pub(super) fn mul_slices<F: FieldElement, K: FieldKernel>(k: K, out: &mut [F], a: &[F], b: &[F]) {
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = F::mul_k(k, x, y);
    }
}
#[inline(always)]
pub(super) fn square_slices<F: FieldElement, K: FieldKernel>(k: K, out: &mut [F], a: &[F]) {
    for (o, x) in out.iter_mut().zip(a) {
        *o = F::square_k(k, x);
    }
}
/// [`mul_slices`] two elements at a time on ymm (`FieldSpec::mul_pair`);
/// an odd last element on the single kernels `k`. (The slices have one
/// length, checked by the caller; it is public.)
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn mul_slices_pairs<F: FieldElement, K: FieldKernel>(
    t: crate::cpu::Avx2Clmul,
    k: K,
    out: &mut [F],
    a: &[F],
    b: &[F],
) {
    let (out2, out1) = out.as_chunks_mut::<2>();
    let (a2, a1) = a.as_chunks::<2>();
    let (b2, b1) = b.as_chunks::<2>();
    for ((o, x), y) in out2.iter_mut().zip(a2).zip(b2) {
        F::mul_pair(t, x, y, o);
    }
    mul_slices(k, out1, a1, b1);
}
/// [`square_slices`] two elements at a time on ymm.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn square_slices_pairs<F: FieldElement, K: FieldKernel>(
    t: crate::cpu::Avx2Clmul,
    k: K,
    out: &mut [F],
    a: &[F],
) {
    let (out2, out1) = out.as_chunks_mut::<2>();
    let (a2, a1) = a.as_chunks::<2>();
    for (o, x) in out2.iter_mut().zip(a2) {
        F::square_pair(t, x, o);
    }
    square_slices(k, out1, a1);
}
/// The ymm backends' batch product: [`mul_slices_pairs`], or one element
/// at a time ([`mul_slices`]) for the fields where the tuning table says
/// so (`tuning::Choice::single_batches`: where `vpclmulqdq` on ymm issues
/// at half the rate of `pclmulqdq`). Chosen once per batch, on the field's
/// public degree.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn mul_slices_ymm<F: FieldElement, K: FieldKernel>(
    t: crate::cpu::Avx2Clmul,
    k: K,
    out: &mut [F],
    a: &[F],
    b: &[F],
) {
    if super::tuning::choice().single_batches.mul.has(F::M) {
        mul_slices(k, out, a, b)
    } else {
        mul_slices_pairs(t, k, out, a, b)
    }
}

/// The ymm backends' batch square: [`square_slices_pairs`] or, as in
/// [`mul_slices_ymm`], one element at a time.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn square_slices_ymm<F: FieldElement, K: FieldKernel>(
    t: crate::cpu::Avx2Clmul,
    k: K,
    out: &mut [F],
    a: &[F],
) {
    if super::tuning::choice().single_batches.square.has(F::M) {
        square_slices(k, out, a)
    } else {
        square_slices_pairs(t, k, out, a)
    }
}

/// [`mul_slices`] four elements at a time on zmm (`FieldSpec::mul_quad`),
/// the rest by [`mul_slices_pairs`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn mul_slices_quads<F: FieldElement, K: FieldKernel>(
    t: crate::cpu::Avx512Clmul,
    k: K,
    out: &mut [F],
    a: &[F],
    b: &[F],
) {
    let (out4, out1) = out.as_chunks_mut::<4>();
    let (a4, a1) = a.as_chunks::<4>();
    let (b4, b1) = b.as_chunks::<4>();
    for ((o, x), y) in out4.iter_mut().zip(a4).zip(b4) {
        F::mul_quad(t, x, y, o);
    }
    mul_slices_pairs(t.avx2_clmul(), k, out1, a1, b1);
}
/// [`square_slices`] four elements at a time on zmm.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn square_slices_quads<F: FieldElement, K: FieldKernel>(
    t: crate::cpu::Avx512Clmul,
    k: K,
    out: &mut [F],
    a: &[F],
) {
    let (out4, out1) = out.as_chunks_mut::<4>();
    let (a4, a1) = a.as_chunks::<4>();
    for (o, x) in out4.iter_mut().zip(a4) {
        F::square_quad(t, x, o);
    }
    square_slices_pairs(t.avx2_clmul(), k, out1, a1);
}
#[inline(always)]
pub(super) fn invert_batch<F: FieldElement, K: Divstep>(k: K, v: &mut [F], scratch: &mut [F]) {
    algorithms::invert_batch(&arith::<F, K>(k), v, scratch, |x| x.is_zero());
}
