//! The exported functions, called through their C signatures (function
//! pointers of gf2x 1.3's types), against `fieldwork::gf2x::mul_into`: every
//! size pair 0..=40 words, a few large ones, the output aliasing either or
//! both inputs (and overlapping one partially), null pools, reused pools,
//! zero-length and null operands, and gf2x_mul_toom with gf2x_toomspace's
//! scratch.

use core::ffi::{CStr, c_int, c_long, c_ulong};
use core::ptr;

use fieldwork::gf2x::mul_into;
use fieldwork_gf2x_abi as abi;
use fieldwork_gf2x_abi::Gf2xMulPool;

/// `gf2x_mul`'s C type.
type MulFn =
    unsafe extern "C" fn(*mut c_ulong, *const c_ulong, c_ulong, *const c_ulong, c_ulong) -> c_int;
/// `gf2x_mul_r`'s C type (`gf2x_mul_pool_t` decays to a pointer).
type MulRFn = unsafe extern "C" fn(
    *mut c_ulong,
    *const c_ulong,
    c_ulong,
    *const c_ulong,
    c_ulong,
    *mut Gf2xMulPool,
) -> c_int;
/// `gf2x_mul_pool_init`'s and `gf2x_mul_pool_clear`'s C type.
type PoolFn = unsafe extern "C" fn(*mut Gf2xMulPool);
/// `gf2x_mul_toom`'s C type.
type MulToomFn =
    unsafe extern "C" fn(*mut c_ulong, *const c_ulong, *const c_ulong, c_long, *mut c_ulong);
/// `gf2x_toomspace`'s C type.
type ToomSpaceFn = extern "C" fn(c_long) -> c_long;

const GF2X_MUL: MulFn = abi::gf2x_mul;
const GF2X_MUL_R: MulRFn = abi::gf2x_mul_r;
const POOL_INIT: PoolFn = abi::gf2x_mul_pool_init;
const POOL_CLEAR: PoolFn = abi::gf2x_mul_pool_clear;
const GF2X_MUL_TOOM: MulToomFn = abi::gf2x_mul_toom;
const GF2X_TOOMSPACE: ToomSpaceFn = abi::gf2x_toomspace;

/// xorshift64*: deterministic test data, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn words(&mut self, n: usize) -> Vec<u64> {
        (0..n).map(|_| self.next()).collect()
    }
}

fn expected(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut c = vec![0u64; a.len() + b.len()];
    mul_into(&mut c, a, b).unwrap();
    c
}

/// A pool made by `gf2x_mul_pool_init`, cleared on drop.
struct Pool(Gf2xMulPool);

impl Pool {
    fn new() -> Pool {
        let mut pool = Pool(Gf2xMulPool {
            stk: 0xdead as *mut c_ulong, // garbage: init must overwrite it
            stk_size: 77,
        });
        // SAFETY: a valid pool-sized place.
        unsafe { POOL_INIT(&mut pool.0) };
        assert!(pool.0.stk.is_null() && pool.0.stk_size == 0);
        pool
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // SAFETY: made by POOL_INIT, used only by GF2X_MUL_R.
        unsafe { POOL_CLEAR(&mut self.0) };
        assert!(self.0.stk.is_null() && self.0.stk_size == 0);
    }
}

/// One size pair through every entry point and aliasing mode.
fn check(rng: &mut Rng, an: usize, bn: usize, pool: &mut Pool) {
    let a = rng.words(an);
    let b = rng.words(bn);
    let want = expected(&a, &b);
    let cn = an + bn;
    let (anl, bnl) = (an as c_ulong, bn as c_ulong);

    // Separate output, poisoned first.
    let mut c = vec![!0u64; cn];
    // SAFETY: a, b readable for an, bn words; c writable for cn words.
    let r = unsafe { GF2X_MUL(c.as_mut_ptr(), a.as_ptr(), anl, b.as_ptr(), bnl) };
    assert_eq!((r, &c), (0, &want), "gf2x_mul {an}×{bn}");

    c.fill(!0);
    // SAFETY: as above; null pool means per-call scratch.
    let r = unsafe {
        GF2X_MUL_R(
            c.as_mut_ptr(),
            a.as_ptr(),
            anl,
            b.as_ptr(),
            bnl,
            ptr::null_mut(),
        )
    };
    assert_eq!((r, &c), (0, &want), "gf2x_mul_r null pool {an}×{bn}");

    c.fill(!0);
    // SAFETY: as above; the pool is initialised and ours.
    let r = unsafe {
        GF2X_MUL_R(
            c.as_mut_ptr(),
            a.as_ptr(),
            anl,
            b.as_ptr(),
            bnl,
            &mut pool.0,
        )
    };
    assert_eq!((r, &c), (0, &want), "gf2x_mul_r pool {an}×{bn}");

    // c == a: a's words at the start of a cn-word buffer.
    let mut buf = vec![!0u64; cn];
    buf[..an].copy_from_slice(&a);
    let p = buf.as_mut_ptr();
    // SAFETY: p is valid for cn words, its first an words hold a.
    assert_eq!(unsafe { GF2X_MUL(p, p, anl, b.as_ptr(), bnl) }, 0);
    assert_eq!(buf, want, "gf2x_mul c == a {an}×{bn}");

    // c == b.
    let mut buf = vec![!0u64; cn];
    buf[..bn].copy_from_slice(&b);
    let p = buf.as_mut_ptr();
    // SAFETY: p is valid for cn words, its first bn words hold b.
    let r = unsafe { GF2X_MUL_R(p, a.as_ptr(), anl, p, bnl, &mut pool.0) };
    assert_eq!((r, &buf), (0, &want), "gf2x_mul_r c == b {an}×{bn}");

    // c == a == b: a square in place.
    let want_sq = expected(&a, &a);
    let mut buf = vec![!0u64; 2 * an];
    buf[..an].copy_from_slice(&a);
    let p = buf.as_mut_ptr();
    // SAFETY: p is valid for 2an words, its first an words hold a.
    assert_eq!(unsafe { GF2X_MUL(p, p, anl, p, anl) }, 0);
    assert_eq!(buf, want_sq, "gf2x_mul c == a == b {an}");

    // Partial overlap (beyond gf2x's contract): a starts one word into c.
    if an > 0 {
        let mut buf = vec![!0u64; cn + 1];
        buf[1..=an].copy_from_slice(&a);
        let p = buf.as_mut_ptr();
        // SAFETY: p is valid for cn + 1 words; a at p + 1 for an words.
        assert_eq!(unsafe { GF2X_MUL(p, p.add(1), anl, b.as_ptr(), bnl) }, 0);
        assert_eq!(&buf[..cn], &want[..], "gf2x_mul c = a − 1 word {an}×{bn}");
    }

    // gf2x_mul_toom for balanced sizes, with exactly gf2x_toomspace words.
    if an == bn {
        let space = GF2X_TOOMSPACE(an as c_long);
        assert!(space >= 0);
        let mut stk = vec![!0u64; space as usize];
        let stk_ptr = if stk.is_empty() {
            ptr::null_mut()
        } else {
            stk.as_mut_ptr()
        };
        c.fill(!0);
        // SAFETY: a, b readable for an words, c writable for 2an, stk for space.
        unsafe {
            GF2X_MUL_TOOM(
                c.as_mut_ptr(),
                a.as_ptr(),
                b.as_ptr(),
                an as c_long,
                stk_ptr,
            )
        };
        assert_eq!(c, want, "gf2x_mul_toom {an}");
    }
}

#[test]
fn every_size_pair_to_40_words() {
    let mut rng = Rng(0x6f72_6b66_6965_6c64);
    let mut pool = Pool::new();
    for an in 0..=40 {
        for bn in 0..=40 {
            check(&mut rng, an, bn, &mut pool);
        }
    }
}

#[test]
fn large_sizes() {
    let mut rng = Rng(0x2026_1122);
    let mut pool = Pool::new();
    for (an, bn) in [
        (100, 100),
        (1000, 999),
        (1024, 1),
        (4096, 4096),
        (5000, 1234),
        (3, 20_000),
        (16_384, 16_385),
        (65_536, 65_536),
    ] {
        check(&mut rng, an, bn, &mut pool);
        check(&mut rng, bn, an, &mut pool);
    }
    // The pool grew and is kept between calls.
    assert!(!pool.0.stk.is_null() && pool.0.stk_size > 0);
}

#[test]
fn zero_lengths_and_null_pointers() {
    let a = [0x1234_5678_9abc_def0u64, 7];
    let mut c = [!0u64; 2];
    // SAFETY: zero-length operands may be null; c holds 0 + 2 words.
    unsafe {
        assert_eq!(GF2X_MUL(ptr::null_mut(), ptr::null(), 0, ptr::null(), 0), 0);
        assert_eq!(GF2X_MUL(c.as_mut_ptr(), a.as_ptr(), 2, ptr::null(), 0), 0);
    }
    assert_eq!(c, [0, 0], "a × (empty) = 0, written over an + bn = 2 words");
    // SAFETY: the nulls come with non-zero lengths: rejected before any access.
    unsafe {
        assert_eq!(
            GF2X_MUL(c.as_mut_ptr(), ptr::null(), 1, a.as_ptr(), 1),
            abi::GF2X_ERROR_INVALID_ARGUMENTS
        );
        assert_eq!(
            GF2X_MUL(ptr::null_mut(), a.as_ptr(), 1, a.as_ptr(), 1),
            abi::GF2X_ERROR_INVALID_ARGUMENTS
        );
        assert_eq!(
            GF2X_MUL_R(
                c.as_mut_ptr(),
                a.as_ptr(),
                c_ulong::MAX,
                a.as_ptr(),
                2,
                ptr::null_mut()
            ),
            abi::GF2X_ERROR_INVALID_ARGUMENTS
        );
        GF2X_MUL_TOOM(
            ptr::null_mut(),
            ptr::null(),
            ptr::null(),
            0,
            ptr::null_mut(),
        );
        GF2X_MUL_TOOM(
            ptr::null_mut(),
            ptr::null(),
            ptr::null(),
            -5,
            ptr::null_mut(),
        );
        POOL_INIT(ptr::null_mut());
        POOL_CLEAR(ptr::null_mut());
    }
    assert_eq!(GF2X_TOOMSPACE(-1), 0);
    assert_eq!(GF2X_TOOMSPACE(0), 0);
    assert_eq!(GF2X_TOOMSPACE(c_long::MAX), c_long::MAX);
    // A cleared pool is reusable.
    let mut pool = Pool::new();
    let big = Rng(5).words(3000);
    let mut out = vec![0u64; 6000];
    for _ in 0..2 {
        // SAFETY: big readable for 3000 words, out writable for 6000.
        let r = unsafe {
            GF2X_MUL_R(
                out.as_mut_ptr(),
                big.as_ptr(),
                3000,
                big.as_ptr(),
                3000,
                &mut pool.0,
            )
        };
        assert_eq!(r, 0);
        assert_eq!(out, expected(&big, &big));
        // SAFETY: the pool is ours.
        unsafe { POOL_CLEAR(&mut pool.0) };
    }
}

#[test]
fn exported_data() {
    assert_eq!(abi::gf2x_lib_version_code, 10300);
    let status: &CStr = abi::gf2x_toom_gpl_status.to_c_str();
    assert!(status.to_str().unwrap().contains("fieldwork"));
}
