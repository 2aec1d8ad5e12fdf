//! Safe wrappers over the C/C++ peers (feature `system-peers`).

use crate::harness::Impl;
use std::ffi::c_void;
use std::hint::black_box;

unsafe extern "C" {
    fn gf2x_mul(c: *mut u64, a: *const u64, an: u64, b: *const u64, bn: u64) -> i32;
    fn fw_ntl_gf2x_new(w: *const u64, n: usize) -> *mut c_void;
    fn fw_ntl_gf2x_free(p: *mut c_void);
    fn fw_ntl_gf2x_mul(c: *mut c_void, a: *const c_void, b: *const c_void);
    fn fw_ntl_gf2x_words(p: *const c_void, w: *mut u64, n: usize);
}

/// Which gf2x was linked (native build or Debian's generic one).
pub const GF2X_BUILD: &str = env!("PEER_GF2X_BUILD");

/// gf2x's product `c = a·b`; `c.len()` must be `a.len() + b.len()`.
pub fn gf2x_mul_words(c: &mut [u64], a: &[u64], b: &[u64]) {
    assert_eq!(c.len(), a.len() + b.len(), "gf2x_mul output length");
    // SAFETY: `unsigned long` is u64 on x86-64 Linux; `c` has room for
    // an + bn words (checked above) and the inputs are valid for their lengths.
    let rc = unsafe {
        gf2x_mul(
            c.as_mut_ptr(),
            a.as_ptr(),
            a.len() as u64,
            b.as_ptr(),
            b.len() as u64,
        )
    };
    assert_eq!(rc, 0, "gf2x_mul failed (out of memory)");
}

/// An NTL `GF2X`, owned.
pub struct NtlGf2x(*mut c_void);

impl NtlGf2x {
    /// The polynomial with these little-endian words.
    pub fn from_words(w: &[u64]) -> NtlGf2x {
        // SAFETY: `w` is valid for `w.len()` words; the shim copies them.
        NtlGf2x(unsafe { fw_ntl_gf2x_new(w.as_ptr(), w.len()) })
    }

    /// `self = a·b`.
    pub fn mul(&mut self, a: &NtlGf2x, b: &NtlGf2x) {
        // SAFETY: all three are live NTL objects created by the shim; NTL's
        // `mul` allows the output to alias an input.
        unsafe { fw_ntl_gf2x_mul(self.0, a.0, b.0) }
    }

    /// The low `n` words.
    pub fn words(&self, n: usize) -> Vec<u64> {
        let mut w = vec![0u64; n];
        // SAFETY: `w` has room for `n` words; `self.0` is a live NTL object.
        unsafe { fw_ntl_gf2x_words(self.0, w.as_mut_ptr(), n) };
        w
    }
}

impl Drop for NtlGf2x {
    fn drop(&mut self) {
        // SAFETY: created by `fw_ntl_gf2x_new`, freed once.
        unsafe { fw_ntl_gf2x_free(self.0) }
    }
}

/// gf2x's `gf2x_mul` on `a·b`, chained like our rows: each call's first
/// operand is the low `a.len()` words of the previous product.
///
/// After each call the upper halves of the ymm registers are cleared
/// (`vzeroupper`): the native build's 8-word product returns with them dirty,
/// and the chain's SSE copy then pays an AVX–SSE transition penalty each
/// call (measured 2026-11-21: 388 ticks a call instead of 61). That is a
/// defect of the peer's build, not of its algorithm; the row times the
/// algorithm.
pub fn gf2x_chained(mut a: Vec<u64>, b: Vec<u64>) -> Impl {
    let mut out = vec![0u64; a.len() + b.len()];
    #[cfg(target_arch = "x86_64")]
    let avx = std::is_x86_feature_detected!("avx");
    Impl {
        name: GF2X_BUILD.to_string(),
        ours: false,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                gf2x_mul_words(&mut out, &a, &b);
                #[cfg(target_arch = "x86_64")]
                if avx {
                    // SAFETY: AVX was detected above.
                    unsafe { std::arch::x86_64::_mm256_zeroupper() };
                }
                crate::groups::chain_copy(&mut a, &out);
            }
            black_box(&out);
        }),
    }
}

/// NTL's `GF2X` `mul` on `a·b`, as independent calls `z ← a·b`: chaining
/// would need a word conversion per call, which would time the conversion.
/// That favours NTL (no dependency chain); the tables say so.
pub fn ntl_independent(a: &[u64], b: &[u64]) -> Impl {
    let (x, y) = (NtlGf2x::from_words(a), NtlGf2x::from_words(b));
    let mut z = NtlGf2x::from_words(&[0]);
    Impl {
        name: "NTL GF2X".to_string(),
        ours: false,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                z.mul(&x, &y);
            }
            black_box(&z);
        }),
    }
}
