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
    fn fw_ntl_gf2e_field_new(exponents: *const std::ffi::c_long, n: usize) -> *mut c_void;
    fn fw_ntl_gf2e_field_free(f: *mut c_void);
    fn fw_ntl_gf2e_field_use(f: *const c_void);
    fn fw_ntl_gf2e_new(w: *const u64, n: usize) -> *mut c_void;
    fn fw_ntl_gf2e_free(e: *mut c_void);
    fn fw_ntl_gf2e_words(e: *const c_void, w: *mut u64, n: usize);
    fn fw_ntl_gf2e_mul(c: *mut c_void, a: *const c_void, b: *const c_void);
    fn fw_ntl_gf2e_sqr(x: *mut c_void);
    fn fw_ntl_gf2e_inv(x: *mut c_void) -> i32;
    fn fw_ntl_gf2e_sqrt(x: *mut c_void);
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
pub fn gf2x_chained(a: Vec<u64>, b: Vec<u64>) -> Impl {
    let out = vec![0u64; a.len() + b.len()];
    // Placed as ours are (see `PlacedWords`).
    let mut words = crate::util::PlacedWords::new(&[&a, &b, &out]);
    #[cfg(target_arch = "x86_64")]
    let avx = std::is_x86_feature_detected!("avx");
    Impl {
        name: GF2X_BUILD.to_string(),
        ours: false,
        routine: Box::new(move |iters| {
            let [a, b, out] = words.parts::<3>();
            for _ in 0..iters {
                gf2x_mul_words(out, a, b);
                #[cfg(target_arch = "x86_64")]
                if avx {
                    // SAFETY: AVX was detected above.
                    unsafe { std::arch::x86_64::_mm256_zeroupper() };
                }
                crate::util::chain_copy(a, out);
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

/// A binary field GF(2)\[x\]/(P) in NTL's `GF2E`: a saved `GF2EContext`.
///
/// NTL keeps `GF2E`'s modulus in a thread-local global; [`NtlGf2eField::use_here`]
/// makes this field's modulus the current one of the calling thread. Every
/// [`NtlGf2e`] operation works under the current modulus, which must be the
/// one the element was made under (a wrong one gives wrong values or an NTL
/// error, which the agreement tests would show).
pub struct NtlGf2eField {
    ctx: *mut c_void,
    words: usize,
}

impl NtlGf2eField {
    /// The field modulo `Σ x^e` over `exponents` (the degree m among them).
    pub fn new(exponents: &[u32]) -> Result<NtlGf2eField, String> {
        let e: Vec<std::ffi::c_long> = exponents.iter().map(|&e| e.into()).collect();
        // SAFETY: `e` is valid for its length; the shim copies the modulus.
        let ctx = unsafe { fw_ntl_gf2e_field_new(e.as_ptr(), e.len()) };
        if ctx.is_null() {
            return Err(format!("NTL GF2E: no field for exponents {exponents:?}"));
        }
        let m = exponents.iter().copied().max().unwrap_or(0) as usize;
        Ok(NtlGf2eField {
            ctx,
            words: m.div_ceil(64),
        })
    }

    /// Makes this field's modulus NTL's current `GF2E` modulus on this
    /// thread (`GF2EContext::restore`).
    pub fn use_here(&self) {
        // SAFETY: `self.ctx` is a live GF2EContext made by the shim.
        unsafe { fw_ntl_gf2e_field_use(self.ctx) }
    }

    /// The element with these little-endian words, made under this field's
    /// modulus (which this call makes current).
    pub fn element(&self, words: &[u64]) -> NtlGf2e {
        self.use_here();
        // SAFETY: `words` is valid for its length; the shim copies it.
        NtlGf2e(unsafe { fw_ntl_gf2e_new(words.as_ptr(), words.len()) })
    }

    /// The ⌈m/64⌉ little-endian words of `x`.
    pub fn words(&self, x: &NtlGf2e) -> Vec<u64> {
        let mut w = vec![0u64; self.words];
        // SAFETY: `w` has room for `self.words` words; `x.0` is a live GF2E.
        unsafe { fw_ntl_gf2e_words(x.0, w.as_mut_ptr(), w.len()) };
        w
    }
}

impl Drop for NtlGf2eField {
    fn drop(&mut self) {
        // SAFETY: created by `fw_ntl_gf2e_field_new`, freed once.
        unsafe { fw_ntl_gf2e_field_free(self.ctx) }
    }
}

/// An NTL `GF2E`, owned. Operations are in place and use the current
/// modulus (see [`NtlGf2eField`]).
pub struct NtlGf2e(*mut c_void);

impl NtlGf2e {
    /// `self ← self·b` (NTL `mul` with the output aliasing an input, which
    /// NTL allows).
    pub fn mul(&mut self, b: &NtlGf2e) {
        // SAFETY: both are live GF2E objects made by the shim.
        unsafe { fw_ntl_gf2e_mul(self.0, self.0, b.0) }
    }

    /// `self ← a·b` (NTL `mul`).
    pub fn mul_into(&mut self, a: &NtlGf2e, b: &NtlGf2e) {
        // SAFETY: all are live GF2E objects made by the shim.
        unsafe { fw_ntl_gf2e_mul(self.0, a.0, b.0) }
    }

    /// `self ← self²` (NTL `sqr`).
    pub fn square(&mut self) {
        // SAFETY: a live GF2E made by the shim.
        unsafe { fw_ntl_gf2e_sqr(self.0) }
    }

    /// `self ← self⁻¹` (NTL `inv`); an error, `self` unchanged, for zero.
    pub fn invert(&mut self) -> Result<(), String> {
        // SAFETY: a live GF2E made by the shim; the shim checks for zero
        // before NTL's `inv` (which would raise an error).
        match unsafe { fw_ntl_gf2e_inv(self.0) } {
            0 => Ok(()),
            _ => Err("NTL GF2E: inverse of zero".into()),
        }
    }

    /// `self ← √self = self^(2^(m−1))`: NTL has no `GF2E` square root, so
    /// the shim squares m − 1 times, as an NTL user would.
    pub fn sqrt(&mut self) {
        // SAFETY: a live GF2E made by the shim.
        unsafe { fw_ntl_gf2e_sqrt(self.0) }
    }
}

impl Drop for NtlGf2e {
    fn drop(&mut self) {
        // SAFETY: created by `fw_ntl_gf2e_new`, freed once.
        unsafe { fw_ntl_gf2e_free(self.0) }
    }
}
