//! gf2x 1.3's public C API, computed by fieldwork's GF(2)\[x\] product.
//!
//! Built as a shared library with soname `libgf2x.so.3` (see `build.rs`), this
//! crate replaces Debian's `libgf2x3` for every program linked to it (NTL and,
//! through NTL, FLINT, Singular, Sage …) without a rebuild: put a file named
//! `libgf2x.so.3` pointing at `target/release/libfieldwork_gf2x_abi.so` on
//! `LD_LIBRARY_PATH`. See the crate's README for what is and is not provided.
//!
//! Every symbol gf2x 1.3's `gf2x.h` declares, and Debian's `libgf2x.so.3`
//! exports (unversioned, `objdump -T`), is here with the same C signature:
//! [`gf2x_mul`], [`gf2x_mul_r`], [`gf2x_mul_pool_init`],
//! [`gf2x_mul_pool_clear`], [`gf2x_mul_toom`], [`gf2x_toomspace`],
//! [`gf2x_lib_version_code`] and [`gf2x_toom_gpl_status`]; one symbol of
//! its own, [`fieldwork_gf2x_set_max_threads`], caps its threads.
//!
//! Polynomials are arrays of `unsigned long` (64-bit words on LP64 targets),
//! word 0 holding the coefficients of x^0 … x^63, bit i of word j the
//! coefficient of x^(64j+i) — the same layout as `fieldwork::gf2x`, so no
//! conversion is done.
//!
//! Beyond gf2x's contract, which allows the output to alias an input only
//! exactly (`c == a` or `c == b`), any overlap of the output with an input is
//! handled (the product goes to a temporary, then is copied), and null
//! pointers with non-zero lengths are rejected with
//! [`GF2X_ERROR_INVALID_ARGUMENTS`] instead of crashing. No panic unwinds into
//! C: each entry point catches it, prints a message and aborts. No allocation
//! failure corrupts memory: it is [`GF2X_ERROR_OUT_OF_MEMORY`].

#![deny(unsafe_op_in_unsafe_fn)]
// Pointer and length handling: no `[]` index or slice that could panic
// (issue 27); slices are built from (pointer, length) pairs checked for
// null and overflow, and walked with iterators. No allowance.
#![warn(clippy::indexing_slicing)]

use core::ffi::{CStr, c_char, c_int, c_long, c_ulong};
use core::ptr;
use std::alloc::{self, Layout};
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};

use fieldwork::gf2x;

// The ABI passes polynomials as `unsigned long` words; fieldwork's are `u64`.
const _: () = assert!(
    size_of::<c_ulong>() == size_of::<u64>() && align_of::<c_ulong>() == align_of::<u64>(),
    "gf2x's words are `unsigned long`: this crate supports LP64 targets only"
);

/// gf2x's `GF2X_ERROR_INVALID_ARGUMENTS`: returned for a null pointer with a
/// non-zero length, or lengths whose product would not fit in memory.
pub const GF2X_ERROR_INVALID_ARGUMENTS: c_int = -1;

/// gf2x's `GF2X_ERROR_OUT_OF_MEMORY`: scratch space or a temporary could not
/// be allocated; the output is left untouched.
pub const GF2X_ERROR_OUT_OF_MEMORY: c_int = -2;

/// The version this library implements, as gf2x's `GF2X_VERSION_CODE`
/// (major·10000 + minor·100 + patch level): 1.3.0.
pub const GF2X_VERSION_CODE: c_int = 10300;

/// gf2x's `struct gf2x_mul_pool_s`: scratch space kept between calls of
/// [`gf2x_mul_r`]. C's `gf2x_mul_pool_t` is an array of one of these, so the
/// functions take a pointer to it.
///
/// Only [`gf2x_mul_pool_init`], [`gf2x_mul_r`] and [`gf2x_mul_pool_clear`]
/// touch the fields: `stk` is memory from Rust's global allocator (`malloc`
/// in a C program), `stk_size` its length in words.
#[repr(C)]
#[derive(Debug)]
pub struct Gf2xMulPool {
    /// The scratch words, or null.
    pub stk: *mut c_ulong,
    /// The number of words at `stk`.
    pub stk_size: usize,
}

/// A `const char *` exported as data, as gf2x's `gf2x_toom_gpl_status`.
#[repr(transparent)]
#[derive(Debug)]
pub struct ExportedCStr(*const c_char);

// SAFETY: the pointer is to a `'static`, immutable, NUL-terminated string
// literal; sharing it between threads is sharing a `&'static CStr`.
unsafe impl Sync for ExportedCStr {}

impl ExportedCStr {
    /// The string pointed to.
    pub fn to_c_str(&self) -> &'static CStr {
        // SAFETY: the only values of this type are made below from `c"…"`
        // literals, which are 'static and NUL-terminated.
        unsafe { CStr::from_ptr(self.0) }
    }
}

/// gf2x's `const char * gf2x_toom_gpl_status`: which licence the library's
/// Toom-Cook code is under (Debian's says `GPL-licensed GF2X`). This library
/// contains no gf2x code and says so.
#[unsafe(no_mangle)]
#[allow(non_upper_case_globals, reason = "the C symbol name is gf2x's")]
pub static gf2x_toom_gpl_status: ExportedCStr =
    ExportedCStr(c"fieldwork (MIT OR Apache-2.0), no gf2x code".as_ptr());

/// gf2x's `int gf2x_lib_version_code`: [`GF2X_VERSION_CODE`], 10300.
#[unsafe(no_mangle)]
#[allow(non_upper_case_globals, reason = "the C symbol name is gf2x's")]
pub static gf2x_lib_version_code: c_int = GF2X_VERSION_CODE;

/// Not in gf2x: caps the threads [`gf2x_mul`] uses for large products
/// (`fieldwork::gf2x::set_max_threads`; 0 or a negative value restores the
/// default, every core unless `FIELDWORK_THREADS` says otherwise). The cap
/// is this library's, process-wide.
///
/// ```c
/// extern void fieldwork_gf2x_set_max_threads(long n);
/// fieldwork_gf2x_set_max_threads(1);   /* one thread, as gf2x */
/// ```
#[unsafe(no_mangle)]
pub extern "C" fn fieldwork_gf2x_set_max_threads(n: c_long) {
    gf2x::set_max_threads(usize::try_from(n).unwrap_or(0));
}

/// Runs `f`, aborting the process with a message if it panics: a panic must
/// never unwind into C.
fn no_unwind<R>(entry: &str, f: impl FnOnce() -> R) -> R {
    match panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => abort_with(entry, "panicked (bug in fieldwork-gf2x-abi)"),
    }
}

/// Prints `fieldwork-gf2x-abi: <entry>: <why>, aborting` and aborts.
fn abort_with(entry: &str, why: &str) -> ! {
    // A failed write to stderr is ignored: we abort either way.
    let _ = writeln!(
        std::io::stderr(),
        "fieldwork-gf2x-abi: {entry}: {why}, aborting"
    );
    std::process::abort()
}

/// Validated operands of one product: `c` has `an + bn` words.
struct Operands {
    c: *mut u64,
    a: *const u64,
    an: usize,
    b: *const u64,
    bn: usize,
}

impl Operands {
    /// Checks lengths and null pointers; zero-length operands may be null.
    fn new(
        c: *mut c_ulong,
        a: *const c_ulong,
        an: c_ulong,
        b: *const c_ulong,
        bn: c_ulong,
    ) -> Result<Operands, c_int> {
        let (Ok(an), Ok(bn)) = (usize::try_from(an), usize::try_from(bn)) else {
            return Err(GF2X_ERROR_INVALID_ARGUMENTS);
        };
        let Some(cn) = an.checked_add(bn) else {
            return Err(GF2X_ERROR_INVALID_ARGUMENTS);
        };
        // A slice may not span more than isize::MAX bytes.
        if cn > isize::MAX as usize / size_of::<u64>() {
            return Err(GF2X_ERROR_INVALID_ARGUMENTS);
        }
        if (an > 0 && a.is_null()) || (bn > 0 && b.is_null()) || (cn > 0 && c.is_null()) {
            return Err(GF2X_ERROR_INVALID_ARGUMENTS);
        }
        Ok(Operands {
            c: c.cast(),
            a: a.cast(),
            an,
            b: b.cast(),
            bn,
        })
    }

    fn cn(&self) -> usize {
        self.an + self.bn
    }

    /// Whether the output's words overlap either input's.
    fn output_overlaps_input(&self) -> bool {
        let c = (self.c.addr(), self.cn());
        overlaps(c, (self.a.addr(), self.an)) || overlaps(c, (self.b.addr(), self.bn))
    }
}

/// Whether two word ranges `(address, words)` share a byte.
fn overlaps((p, pn): (usize, usize), (q, qn): (usize, usize)) -> bool {
    pn > 0 && qn > 0 && p < q + qn * size_of::<u64>() && q < p + pn * size_of::<u64>()
}

/// A slice of `len` words at `p`, or the empty slice when `len == 0` (where
/// `p` may be null).
///
/// # Safety
///
/// For `len > 0`: `p` is non-null, aligned, and valid for reads of `len`
/// words, not written through another pointer while the slice lives.
unsafe fn words<'a>(p: *const u64, len: usize) -> &'a [u64] {
    if len == 0 {
        return &[];
    }
    // SAFETY: the caller's contract for len > 0.
    unsafe { core::slice::from_raw_parts(p, len) }
}

/// A mutable slice of `len` words at `p`, or the empty slice when `len == 0`.
///
/// # Safety
///
/// For `len > 0`: `p` is non-null, aligned, valid for reads and writes of
/// `len` words, and no other reference to them lives as long as the slice.
unsafe fn words_mut<'a>(p: *mut u64, len: usize) -> &'a mut [u64] {
    if len == 0 {
        return &mut [];
    }
    // SAFETY: the caller's contract for len > 0.
    unsafe { core::slice::from_raw_parts_mut(p, len) }
}

/// A zeroed `Vec` of `len` words, or `None` if it cannot be allocated.
fn try_zeroed(len: usize) -> Option<Vec<u64>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize(len, 0);
    Some(v)
}

/// Up to this much scratch, products use `gf2x::mul_into`, whose scratch is on
/// the stack (fieldwork's own stack tiers go up to 1024 words).
const STACK_SCRATCH_WORDS: usize = 1024;

/// Operands up to this many words take [`small_direct`]:
/// their scratch fits fieldwork's stack buffers, within
/// [`STACK_SCRATCH_WORDS`] (a unit test checks every shape).
const DIRECT_WORDS: usize = 16;

/// Where a product's scratch space comes from, above [`STACK_SCRATCH_WORDS`].
enum Scratch<'p> {
    /// A pool kept by the caller, grown as needed.
    Pool(&'p mut Gf2xMulPool),
    /// Allocated for this call and freed after it.
    PerCall,
}

/// `c = a·b` for validated operands; gf2x's return convention.
///
/// # Safety
///
/// `ops`' pointers are valid for their lengths (`c` for writes of `an + bn`
/// words, `a` and `b` for reads), and nothing else accesses them during the
/// call. `c` may overlap `a` or `b` in any way.
unsafe fn mul_checked(ops: &Operands, scratch: Scratch<'_>) -> c_int {
    let needed = gf2x::mul_scratch_len(ops.an, ops.bn);
    let mut per_call: Vec<u64>;
    let scratch: Option<&mut [u64]> = if needed <= STACK_SCRATCH_WORDS {
        None
    } else {
        match scratch {
            Scratch::Pool(pool) => match pool_words(pool, needed) {
                Some(s) => Some(s),
                None => return GF2X_ERROR_OUT_OF_MEMORY,
            },
            Scratch::PerCall => match try_zeroed(needed) {
                Some(v) => {
                    per_call = v;
                    Some(&mut per_call[..])
                }
                None => return GF2X_ERROR_OUT_OF_MEMORY,
            },
        }
    };
    let product = |out: &mut [u64], a: &[u64], b: &[u64]| match scratch {
        None => gf2x::mul_into(out, a, b),
        Some(s) => gf2x::mul_into_with_scratch(out, a, b, s),
    };
    let result = if ops.output_overlaps_input() {
        let Some(mut tmp) = try_zeroed(ops.cn()) else {
            return GF2X_ERROR_OUT_OF_MEMORY;
        };
        {
            // SAFETY: the caller guarantees a and b are readable for an and
            // bn words and not written by anyone else during the call; c is
            // not written while these slices live (the product goes to tmp).
            let (a, b) = unsafe { (words(ops.a, ops.an), words(ops.b, ops.bn)) };
            if let Err(e) = product(&mut tmp, a, b) {
                return error_code(e);
            }
        }
        if !tmp.is_empty() {
            // SAFETY: c is valid for writes of cn words (caller); tmp is our
            // own allocation of cn words, so the two do not overlap; the
            // input slices above are dead.
            unsafe { ptr::copy_nonoverlapping(tmp.as_ptr(), ops.c, tmp.len()) };
        }
        Ok(())
    } else {
        // SAFETY: the caller guarantees the three ranges valid; we checked
        // that c overlaps neither input, so the &mut does not alias the &s.
        let (c, a, b) = unsafe {
            (
                words_mut(ops.c, ops.cn()),
                words(ops.a, ops.an),
                words(ops.b, ops.bn),
            )
        };
        product(c, a, b)
    };
    match result {
        Ok(()) => 0,
        Err(e) => error_code(e),
    }
}

/// A fieldwork length error as gf2x's code (cannot happen: lengths are ours).
fn error_code(_: gf2x::Gf2xError) -> c_int {
    GF2X_ERROR_INVALID_ARGUMENTS
}

/// The pool's scratch, grown to at least `needed` words; `None` if growing
/// failed (the pool is then unchanged).
fn pool_words(pool: &mut Gf2xMulPool, needed: usize) -> Option<&mut [u64]> {
    if pool.stk.is_null() || pool.stk_size < needed {
        let layout = Layout::array::<u64>(needed).ok()?;
        // SAFETY: needed > STACK_SCRATCH_WORDS > 0, so the layout is not
        // zero-sized. Zeroed: the scratch is read as u64s.
        let fresh = unsafe { alloc::alloc_zeroed(layout) };
        if fresh.is_null() {
            return None;
        }
        pool_free(pool);
        pool.stk = fresh.cast();
        pool.stk_size = needed;
    }
    // SAFETY: stk is our allocation of stk_size ≥ needed initialised words
    // (zeroed at allocation, then only written as u64s), borrowed mutably
    // through the pool for the returned lifetime.
    Some(unsafe { core::slice::from_raw_parts_mut(pool.stk.cast::<u64>(), pool.stk_size) })
}

/// Frees the pool's scratch (if any) and empties it.
fn pool_free(pool: &mut Gf2xMulPool) {
    if !pool.stk.is_null() && pool.stk_size > 0 {
        let Ok(layout) = Layout::array::<u64>(pool.stk_size) else {
            abort_with("gf2x_mul_pool_clear", "corrupt pool (impossible size)");
        };
        // SAFETY: a non-null stk with stk_size > 0 was allocated by
        // pool_words with exactly this layout (only our functions set it).
        unsafe { alloc::dealloc(pool.stk.cast(), layout) };
    }
    pool.stk = ptr::null_mut();
    pool.stk_size = 0;
}

/// gf2x's `gf2x_mul`: `c = a·b`, where `a` has `an` words, `b` has `bn`
/// words and `c` receives `an + bn` words. Returns 0, or a negative
/// `GF2X_ERROR_*` code (then `c` is untouched).
///
/// Unlike gf2x's, this one is reentrant (scratch is on the stack or
/// allocated per call), so it is the same as [`gf2x_mul_r`] with a null pool.
///
/// # Safety
///
/// `a` is readable for `an` words and `b` for `bn` words, `c` writable for
/// `an + bn` words (any may be null when its length is 0); `c` may overlap
/// `a` or `b` (gf2x allows only `c == a` or `c == b`); no other thread writes
/// `a` or `b` or accesses `c` during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gf2x_mul(
    c: *mut c_ulong,
    a: *const c_ulong,
    an: c_ulong,
    b: *const c_ulong,
    bn: c_ulong,
) -> c_int {
    // The small path runs outside `no_unwind`: it cannot panic (fixed
    // kernels on checked lengths), and if it ever did, an `extern "C"`
    // function aborts rather than unwind (Rust ≥ 1.81) — only the message
    // would differ.
    // SAFETY: validity of the ranges is this function's contract.
    if let Some(code) = unsafe { small_direct(c, a, an, b, bn) } {
        return code;
    }
    no_unwind("gf2x_mul", || match Operands::new(c, a, an, b, bn) {
        // SAFETY: as above.
        Ok(ops) => unsafe { mul_checked(&ops, Scratch::PerCall) },
        Err(code) => code,
    })
}

/// The common case in few instructions: both operands 1 to
/// [`DIRECT_WORDS`] words, no null pointer, `c` overlapping neither input.
/// Balanced products up to 9 words go to the fixed kernel through arrays,
/// others straight to `gf2x::mul_into` (stack scratch); anything else
/// returns `None` for the general path. A 1-word call: 268 instructions
/// before this path (callgrind; mostly sizing scratch it does not need),
/// 108 with it — on Zen 3 as fast as a Rust `gf2x::mul_into` on slices,
/// 7 TSC ticks slower than `mul_fixed::<1>` on arrays (`peer-bench
/// --filter libgf2x`, the `gf2x_mul entry` row).
///
/// # Safety
///
/// As [`gf2x_mul`].
#[inline(always)]
unsafe fn small_direct(
    c: *mut c_ulong,
    a: *const c_ulong,
    an: c_ulong,
    b: *const c_ulong,
    bn: c_ulong,
) -> Option<c_int> {
    let direct = DIRECT_WORDS as c_ulong;
    if an.wrapping_sub(1) >= direct || bn.wrapping_sub(1) >= direct {
        return None;
    }
    if c.is_null() || a.is_null() || b.is_null() {
        return None;
    }
    let (an, bn) = (an as usize, bn as usize);
    let out = (c.addr(), an + bn);
    if overlaps(out, (a.addr(), an)) || overlaps(out, (b.addr(), bn)) {
        return None;
    }
    // Balanced products of 1 to 9 words: the fixed kernel itself, through
    // arrays (no slice-length dispatch; NTL's small products are these).
    macro_rules! fixed {
        ($($n:literal)*) => {
            if an == bn {
                match an {
                    $($n => {
                        // SAFETY: as below, for n-word inputs and a 2n-word
                        // output; arrays of u64 have the alignment of u64.
                        let (x, y, out) = unsafe {
                            (
                                &*a.cast::<[u64; $n]>(),
                                &*b.cast::<[u64; $n]>(),
                                &mut *c.cast::<[u64; 2 * $n]>(),
                            )
                        };
                        *out = gf2x::mul_fixed(x, y);
                        return Some(0);
                    })*
                    _ => {}
                }
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 8 9);
    // SAFETY: non-null, valid for these lengths (the caller's contract), and
    // c overlaps neither input (checked), so the &mut does not alias the &s.
    let (out, a, b) = unsafe {
        (
            core::slice::from_raw_parts_mut(c.cast::<u64>(), an + bn),
            core::slice::from_raw_parts(a.cast::<u64>(), an),
            core::slice::from_raw_parts(b.cast::<u64>(), bn),
        )
    };
    Some(match gf2x::mul_into(out, a, b) {
        Ok(()) => 0,
        Err(e) => error_code(e),
    })
}

/// gf2x's `gf2x_mul_r`: [`gf2x_mul`] taking scratch space from `pool` (grown
/// as needed and kept for the next call), or per call if `pool` is null.
///
/// # Safety
///
/// As [`gf2x_mul`]; `pool` is null or points to a pool set up by
/// [`gf2x_mul_pool_init`] (or zero-filled), not yet cleared, and not used by
/// another thread during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gf2x_mul_r(
    c: *mut c_ulong,
    a: *const c_ulong,
    an: c_ulong,
    b: *const c_ulong,
    bn: c_ulong,
    pool: *mut Gf2xMulPool,
) -> c_int {
    no_unwind("gf2x_mul_r", || {
        // SAFETY: validity of the ranges is this function's contract; small
        // products need no scratch, so the pool is not touched.
        if let Some(code) = unsafe { small_direct(c, a, an, b, bn) } {
            return code;
        }
        let ops = match Operands::new(c, a, an, b, bn) {
            Ok(ops) => ops,
            Err(code) => return code,
        };
        // SAFETY: pool is null or a valid, exclusively used pool (contract).
        let scratch = match unsafe { pool.as_mut() } {
            Some(pool) => Scratch::Pool(pool),
            None => Scratch::PerCall,
        };
        // SAFETY: validity of the ranges is this function's contract.
        unsafe { mul_checked(&ops, scratch) }
    })
}

/// gf2x's `gf2x_mul_pool_init`: makes `pool` empty (no scratch yet).
///
/// # Safety
///
/// `pool` is null (then nothing happens) or points to writable memory for
/// one [`Gf2xMulPool`]; any scratch it held is leaked, as with gf2x.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gf2x_mul_pool_init(pool: *mut Gf2xMulPool) {
    no_unwind("gf2x_mul_pool_init", || {
        if !pool.is_null() {
            // SAFETY: pool points to writable memory for one pool (contract);
            // write does not read or drop the old, possibly garbage, value.
            unsafe {
                pool.write(Gf2xMulPool {
                    stk: ptr::null_mut(),
                    stk_size: 0,
                })
            };
        }
    })
}

/// gf2x's `gf2x_mul_pool_clear`: frees the pool's scratch; the pool is left
/// empty (usable again, as after [`gf2x_mul_pool_init`]).
///
/// # Safety
///
/// `pool` is null (then nothing happens) or points to a pool set up by
/// [`gf2x_mul_pool_init`] and used only by these functions, not in use by
/// another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gf2x_mul_pool_clear(pool: *mut Gf2xMulPool) {
    no_unwind("gf2x_mul_pool_clear", || {
        // SAFETY: pool is null or valid and exclusively ours (contract).
        if let Some(pool) = unsafe { pool.as_mut() } {
            pool_free(pool);
        }
    })
}

/// gf2x's `gf2x_toomspace`: the scratch words [`gf2x_mul_toom`] needs for
/// `n`-word operands (0 for `n ≤ 0`). The figure is fieldwork's, not gf2x's:
/// use this function, not a size computed for another gf2x.
#[unsafe(no_mangle)]
pub extern "C" fn gf2x_toomspace(n: c_long) -> c_long {
    no_unwind("gf2x_toomspace", || {
        let Ok(n) = usize::try_from(n) else {
            return 0;
        };
        // No 2n-word output fits in memory: say so rather than overflow.
        if n > isize::MAX as usize / size_of::<u64>() / 2 {
            return c_long::MAX;
        }
        c_long::try_from(gf2x::mul_scratch_len(n, n)).unwrap_or(c_long::MAX)
    })
}

/// gf2x's `gf2x_mul_toom`: `c = a·b` for two `n`-word operands (`c` gets
/// `2n` words) using the caller's scratch `stk` of [`gf2x_toomspace`]`(n)`
/// words: no allocation. Nothing happens for `n ≤ 0`.
///
/// gf2x's returns no error code, so what gf2x leaves undefined is handled
/// here: with a null `stk` (while scratch is needed) or `c` overlapping `a`
/// or `b`, the product is done as [`gf2x_mul`] does it, allocating; if that
/// allocation fails, or a pointer is null, the process aborts with a message.
///
/// # Safety
///
/// `a` and `b` are readable for `n` words, `c` writable for `2n` words,
/// `stk` null or writable for `gf2x_toomspace(n)` words and overlapping none
/// of `a`, `b`, `c`; no other thread accesses them during the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gf2x_mul_toom(
    c: *mut c_ulong,
    a: *const c_ulong,
    b: *const c_ulong,
    n: c_long,
    stk: *mut c_ulong,
) {
    no_unwind("gf2x_mul_toom", || {
        let Ok(n) = c_ulong::try_from(n) else {
            return;
        };
        let ops = match Operands::new(c, a, n, b, n) {
            Ok(ops) => ops,
            Err(_) => abort_with("gf2x_mul_toom", "null pointer or impossible length"),
        };
        let needed = gf2x::mul_scratch_len(ops.an, ops.bn);
        let code = if ops.output_overlaps_input() || (needed > 0 && stk.is_null()) {
            // SAFETY: validity of the ranges is this function's contract.
            unsafe { mul_checked(&ops, Scratch::PerCall) }
        } else {
            // SAFETY: stk is writable for gf2x_toomspace(n) = needed words and
            // overlaps nothing else (contract). Zeroed before the slice is
            // made: the caller's memory may be uninitialised.
            let scratch = unsafe {
                let stk = stk.cast::<u64>();
                if needed > 0 {
                    ptr::write_bytes(stk, 0, needed);
                }
                words_mut(stk, needed)
            };
            // SAFETY: the ranges are valid (contract) and c overlaps neither
            // input (checked), so the &mut does not alias the &s.
            let (out, a, b) = unsafe {
                (
                    words_mut(ops.c, ops.cn()),
                    words(ops.a, ops.an),
                    words(ops.b, ops.bn),
                )
            };
            match gf2x::mul_into_with_scratch(out, a, b, scratch) {
                Ok(()) => 0,
                Err(e) => error_code(e),
            }
        };
        if code != 0 {
            abort_with("gf2x_mul_toom", "out of memory");
        }
    })
}

#[cfg(test)]
mod tests {
    use super::{DIRECT_WORDS, STACK_SCRATCH_WORDS};
    use fieldwork::gf2x;

    /// The direct path never needs more scratch than the stack tiers give.
    #[test]
    fn direct_path_scratch_fits_the_stack() {
        for an in 0..=DIRECT_WORDS {
            for bn in 0..=DIRECT_WORDS {
                let needed = gf2x::mul_scratch_len(an, bn);
                assert!(needed <= STACK_SCRATCH_WORDS, "{an}x{bn}: {needed}");
            }
        }
    }
}
