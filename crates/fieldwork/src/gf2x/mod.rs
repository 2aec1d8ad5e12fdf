//! Binary polynomials: arithmetic in GF(2)\[x\].
//!
//! A polynomial over GF(2) is a bit string: the coefficient of x^i is bit i.
//! Addition is XOR; multiplication is *carry-less* multiplication, the
//! schoolbook product with XOR in place of addition. Everything else in
//! fieldwork's binary side — the fields GF(2^m), GHASH and POLYVAL — is built
//! on the products computed here.
//!
//! # Representation
//!
//! Words are `u64`, word 0 lowest: bit `i` of word `j` is the coefficient of
//! x^(64j+i). This is the layout of gf2x and of NTL's `GF2X`, so data moves
//! across without conversion.
//!
//! # What is here
//!
//! | item | what it computes |
//! |---|---|
//! | [`clmul64`] | the 128-bit product of two 64-bit polynomials |
//! | [`mul_into`] | the product of polynomials of any sizes, into a caller's buffer |
//! | [`mul_into_with_scratch`] | the same with caller-provided scratch: never allocates |
//! | [`square_into`] | the square, in linear time |
//! | [`mul_fixed`] | the product of two N-word polynomials, N = 1..=9, as an array |
//! | [`Dispatch`] | all of the above with the backend chosen once, and [`Dispatch::mul_fft`], the additive FFT at any size |
//! | [`Gf2Poly`] | owned polynomials: division, gcd, inverses, powers, irreducibility, text forms (`alloc`; not constant time) |
//!
//! # Algorithms
//!
//! - **1 to 9 words (and 16): fixed formulas** — Karatsuba steps, the
//!   three-term Karatsuba-like formula, and where measured faster on a
//!   backend the schoolbook product or a Su–Fan split (C. Su and H. Fan,
//!   *Impact of Intel's new instruction sets on software implementation of
//!   GF(2)\[x\] multiplication*, IPL 2012, Table 1; every strategy of the
//!   table is in `gf2x::reproduce` with the feature `reproduce`).
//! - **Balanced, above 9 words: a size plan per backend** — for every size
//!   below 8 192 words the cheapest first step by a compile-time cost model
//!   of that backend's fixed kernels: Karatsuba (three half-size products),
//!   or Toom-3 over GF(2) (five third-size products at the points 0, 1,
//!   X, X + 1, ∞: X = x as in Bodrato, WAIFI 2007, or the word-aligned
//!   X = x^64 as in Brent, Gaudry, Thomé and Zimmermann, ANTS VIII 2008),
//!   recursing down to the fixed kernels; word-aligned Toom-3 above.
//! - **Large: the additive FFT** over GF(2^64) in the novel polynomial basis
//!   of Lin, Chung and Han (FOCS 2014) on the Cantor basis (Gao and Mateer,
//!   IEEE TIT 2010), with the reduction of GF(2)\[x\] products to it of
//!   Chen et al. (ePrint 2017/1190), from 11 000 words on VPCLMULQDQ, 22 000
//!   on VPCLMULQDQ-ymm, 24 000 on PCLMULQDQ and 6 000 portable (and from
//!   3 400 / 3 400 / 15 000 / 3 400 words where the transform is at least
//!   85 % full; PMULL on AArch64 takes the PCLMULQDQ thresholds, untimed);
//!   see the `plan` and `fft` module docs. With `std`, an FFT product of
//!   at least 4 096 words in all (every FFT product) runs its independent blocks (cosets,
//!   sub-transforms, conversion halves) on up to [`max_threads`] cores —
//!   every core unless [`set_max_threads`] or the `FIELDWORK_THREADS`
//!   variable caps it; the result is bit-identical to one thread's.
//! - **Unbalanced**: the longer operand is cut into chunks as long as the
//!   shorter one, each chunk product balanced.
//! - **Squaring**: linear — one carry-less square per word, or bit
//!   spreading.
//!
//! # Layout
//!
//! Lowest layer first; each file imports only from the layers below it (and
//! the area's types and tokens):
//!
//! 1. `formulas.rs` (digit traits, fixed formulas, the formula and
//!    entry-point macros the backends share) and
//!    `sufan.rs` (the Su–Fan formulas the backends use); `fft/field.rs`
//!    (GF(2^64), the Cantor basis), `fft/levels.rs` (generic butterflies
//!    and basis conversions, a value at a time) and `fft/wide.rs` (the
//!    vector passes, written once over the register width for zmm and
//!    ymm).
//! 2. Backends: `portable.rs`, `clmul.rs`, `vpclmul.rs`, `ymm.rs`,
//!    `pmull.rs` (fixed kernels, squaring) and
//!    `fft/{portable,clmul,vpclmul,ymm,pmull}.rs` (FFT kernels).
//! 3. `fft.rs` (the transform and the FFT product) and `plan.rs` (the size
//!    plan: Karatsuba, Toom-3 and FFT steps, chosen per backend and size).
//! 4. `mod.rs` (the public API, the `Backend` trait each backend file
//!    implements, and [`Dispatch`]) and `poly.rs` (`Gf2Poly`).
//!
//! # Backends
//!
//! | backend | needs | word product |
//! |---|---|---|
//! | `vpclmulqdq` | VPCLMULQDQ, AVX-512 F/BW/VL/DQ | four per `vpclmulqdq` on zmm (8-word digits) |
//! | `vpclmulqdq-ymm` | VPCLMULQDQ, AVX2 (no AVX-512) | two per `vpclmulqdq` on ymm (4-word digits) |
//! | `pclmulqdq` | PCLMULQDQ, SSE4.1 | one `pclmulqdq` |
//! | `pmull` (AArch64) | NEON, AES (PMULL) | one `PMULL`/`PMULL2`; fixed kernels on two-word q-register digits, four per digit product |
//! | `portable` | nothing | 25 masked integer multiplications (5-way bit split, `word.rs`, a leaf the portable FFT and GHASH share) |
//!
//! Every backend runs in constant time for given operand *lengths*: no
//! branch or memory index depends on the coefficients (lengths are public).

#[cfg(target_arch = "x86_64")]
mod clmul;
#[cfg(target_arch = "x86_64")]
pub(crate) mod digits;
mod fft;
#[cfg(feature = "std")]
pub use fft::parallel::{THREADS_VARIABLE, max_threads, set_max_threads};
mod formulas;
mod plan;
#[cfg(target_arch = "aarch64")]
mod pmull;
#[cfg(feature = "alloc")]
mod poly;
pub(crate) mod portable;
#[cfg(feature = "reproduce")]
pub mod reproduce;
mod sufan;
#[cfg(target_arch = "x86_64")]
mod tuning;
#[cfg(target_arch = "x86_64")]
mod vpclmul;
pub(crate) mod word;
#[cfg(target_arch = "x86_64")]
mod ymm;

#[cfg(feature = "alloc")]
pub(crate) use poly::be_bytes;
#[cfg(feature = "alloc")]
pub use poly::{Gf2Poly, ParsePolyError};

// The fixed kernels as inlinable array functions, for `gf2m`'s backends.
#[cfg(target_arch = "x86_64")]
pub(crate) use clmul::PclmulLane;
#[cfg(target_arch = "x86_64")]
pub(crate) use formulas::InlinePair;
pub(crate) use formulas::{InlineFixed, spread32};
#[cfg(target_arch = "aarch64")]
pub(crate) use pmull::PmullWord;
pub(crate) use portable::PortableWord;
#[cfg(target_arch = "x86_64")]
pub(crate) use ymm::{PairLane, YmmLane};

use core::fmt;
use formulas::BASE_MAX;

/// Wrong buffer lengths given to a `gf2x` function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Gf2xError {
    /// The output buffer must hold exactly `expected` words.
    OutputLength {
        /// Words the result needs (`a.len() + b.len()`, or `2·a.len()` for a square).
        expected: usize,
        /// Words given.
        actual: usize,
    },
    /// The scratch buffer is shorter than [`mul_scratch_len`] (or
    /// [`fft_scratch_len`]) asks.
    ScratchLength {
        /// Words needed.
        needed: usize,
        /// Words given.
        actual: usize,
    },
}

impl fmt::Display for Gf2xError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gf2xError::OutputLength { expected, actual } => write!(
                f,
                "gf2x: output buffer has {actual} words; the result needs exactly {expected}"
            ),
            Gf2xError::ScratchLength { needed, actual } => write!(
                f,
                "gf2x: scratch buffer has {actual} words; this product needs {needed}"
            ),
        }
    }
}

impl core::error::Error for Gf2xError {}

/// Scratch words up to which [`mul_into`] uses a buffer on the stack (8 KiB).
const STACK_SCRATCH: usize = 1024;
/// The smaller stack tier (1 KiB), for operands up to about 30 words.
const SMALL_STACK_SCRATCH: usize = 128;

/// The 128-bit carry-less product of two 64-bit binary polynomials.
///
/// Bit `i` of the result is the coefficient of x^i in `a(x)·b(x)`; bit 127 is
/// always zero. The backend is the best one the CPU offers (under the
/// `FIELDWORK_MAX_ISA` cap), looked up from a cache on every call; in a loop,
/// [`Dispatch::best`] chooses once.
///
/// # Example
///
/// ```
/// use fieldwork::gf2x::clmul64;
///
/// // (x + 1)·(x + 1) = x² + 1 over GF(2): the cross terms cancel.
/// assert_eq!(clmul64(0b11, 0b11), 0b101);
/// // x^63 · x^63 = x^126.
/// assert_eq!(clmul64(1 << 63, 1 << 63), 1 << 126);
/// ```
///
/// # Panics
///
/// On first use, if `FIELDWORK_MAX_ISA` is set to an unknown level (see
/// [`crate::cpu`]).
#[inline]
pub fn clmul64(a: u64, b: u64) -> u128 {
    Dispatch::best().clmul64(a, b)
}

/// `out = a·b` for binary polynomials of any sizes (either may be empty).
///
/// `out.len()` must be `a.len() + b.len()`. Scratch space comes from the
/// stack for operands up to a few hundred words; above that, with the `alloc`
/// feature, one buffer of [`mul_scratch_len`] words is allocated per call
/// (use [`mul_into_with_scratch`] to never allocate).
///
/// # Errors
///
/// [`Gf2xError::OutputLength`] if `out` has the wrong length;
/// [`Gf2xError::ScratchLength`] without `alloc` when the operands are too
/// large for the stack buffer.
///
/// # Example
///
/// ```
/// use fieldwork::gf2x::mul_into;
///
/// // (x^64 + 1)·(x + 1) = x^65 + x^64 + x + 1.
/// let a = [1u64, 1];
/// let b = [0b11u64];
/// let mut c = [0u64; 3];
/// mul_into(&mut c, &a, &b)?;
/// assert_eq!(c, [0b11, 0b11, 0]);
/// # Ok::<(), fieldwork::gf2x::Gf2xError>(())
/// ```
pub fn mul_into(out: &mut [u64], a: &[u64], b: &[u64]) -> Result<(), Gf2xError> {
    Dispatch::best().mul_into(out, a, b)
}

/// `out = a·b` using `scratch` for temporaries: never allocates a buffer
/// (with `std`, an FFT product of 4 096 words or more may use threads, see
/// [`set_max_threads`]).
///
/// `scratch` must hold at least [`mul_scratch_len`]`(a.len(), b.len())` words.
///
/// # Errors
///
/// [`Gf2xError::OutputLength`] or [`Gf2xError::ScratchLength`].
pub fn mul_into_with_scratch(
    out: &mut [u64],
    a: &[u64],
    b: &[u64],
    scratch: &mut [u64],
) -> Result<(), Gf2xError> {
    Dispatch::best().mul_into_with_scratch(out, a, b, scratch)
}

/// The scratch words [`mul_into_with_scratch`] needs for operands of `a_len`
/// and `b_len` words (about four times the shorter length).
pub fn mul_scratch_len(a_len: usize, b_len: usize) -> usize {
    plan::mul_scratch(a_len, b_len, BASE_MAX)
}

/// The scratch words [`Dispatch::mul_fft`] needs for operands of `a_len`
/// and `b_len` words: the transform's `2^r ≥ 2(a_len + b_len)` points, plus
/// up to as many again for the shorter operand, and with `std` from 4 096
/// words one more copy of it for the threaded path — at most
/// `20(a_len + b_len)` words; 0 if either is empty.
pub const fn fft_scratch_len(a_len: usize, b_len: usize) -> usize {
    fft::scratch_len(a_len, b_len)
}

/// `out = a²`, in linear time (squaring is linear over GF(2)).
///
/// `out.len()` must be `2·a.len()`.
///
/// # Errors
///
/// [`Gf2xError::OutputLength`] if `out` has the wrong length.
///
/// # Example
///
/// ```
/// use fieldwork::gf2x::square_into;
///
/// let mut s = [0u64; 2];
/// square_into(&mut s, &[0b1011])?; // (x³ + x + 1)² = x⁶ + x² + 1
/// assert_eq!(s, [0b100_0101, 0]);
/// # Ok::<(), fieldwork::gf2x::Gf2xError>(())
/// ```
pub fn square_into(out: &mut [u64], a: &[u64]) -> Result<(), Gf2xError> {
    Dispatch::best().square_into(out, a)
}

/// The product of two N-word polynomials as a 2N-word array, N = 1..=9 or 16.
/// [`mul_fixed_into`] writes it into an array of the caller's instead
/// (nothing moved after the kernel: faster at 3 and 9 words).
///
/// ```
/// use fieldwork::gf2x::mul_fixed;
///
/// let c: [u64; 6] = mul_fixed(&[1, 0, 1], &[1, 1, 0]); // (1 + t²)(1 + t), t = x^64
/// assert_eq!(c, [1, 1, 1, 1, 0, 0]);
/// ```
pub fn mul_fixed<const N: usize>(a: &[u64; N], b: &[u64; N]) -> <[u64; N] as FixedWords>::Product
where
    [u64; N]: FixedWords,
{
    Dispatch::best().mul_fixed(a, b)
}

/// [`mul_fixed`] into `out`, for callers that keep the product in an array
/// of their own: nothing is returned, so nothing is moved after the kernel
/// (a 9-word product returned by value is a 144-byte copy, which LLVM
/// makes a `memcpy` call).
///
/// ```
/// use fieldwork::gf2x::mul_fixed_into;
///
/// let mut c = [0u64; 6];
/// mul_fixed_into(&mut c, &[1, 0, 1], &[1, 1, 0]); // (1 + t²)(1 + t), t = x^64
/// assert_eq!(c, [1, 1, 1, 1, 0, 0]);
/// ```
pub fn mul_fixed_into<const N: usize>(
    out: &mut <[u64; N] as FixedWords>::Product,
    a: &[u64; N],
    b: &[u64; N],
) where
    [u64; N]: FixedWords,
{
    Dispatch::best().mul_fixed_into(out, a, b);
}

mod sealed {
    use super::{Dispatch, FixedWords};

    /// The product behind [`Dispatch::mul_fixed`] and
    /// [`Dispatch::mul_fixed_into`], out of other crates' reach (the trait
    /// cannot be named outside `gf2x`).
    pub trait Sealed {
        /// `a·b` on `dispatch`'s backend.
        fn mul_with(dispatch: Dispatch, a: &Self, b: &Self) -> <Self as FixedWords>::Product
        where
            Self: FixedWords;
        /// `out = a·b` on `dispatch`'s backend.
        fn mul_into_with(
            dispatch: Dispatch,
            out: &mut <Self as FixedWords>::Product,
            a: &Self,
            b: &Self,
        ) where
            Self: FixedWords;
    }
}

/// Word arrays with a fixed-size multiplication kernel: `[u64; N]` for
/// N = 1..=9 and 16. Sealed.
pub trait FixedWords: sealed::Sealed {
    /// `[u64; 2N]`.
    type Product;
}

macro_rules! fixed_words {
    ($($name:ident $n:literal),*) => {$(
        impl sealed::Sealed for [u64; $n] {
            // Inlined into the caller, each backend's kernel writing the
            // product into `c` through a pointer: a small match in front of
            // one call. (Out of line and by value, the dispatch copied the
            // product once more after every kernel; figures in
            // docs/notes/gf2x.md.)
            #[inline(always)]
            fn mul_with(dispatch: Dispatch, a: &Self, b: &Self) -> [u64; 2 * $n] {
                let mut c = [0u64; 2 * $n];
                Self::mul_into_with(dispatch, &mut c, a, b);
                c
            }
            #[inline(always)]
            fn mul_into_with(dispatch: Dispatch, c: &mut [u64; 2 * $n], a: &Self, b: &Self) {
                on_backend!(dispatch, k => k.$name(a, b, c));
            }
        }
        impl FixedWords for [u64; $n] {
            type Product = [u64; 2 * $n];
        }
    )*};
}

/// What a backend's size plan (`plan.rs`) is computed from, at compile
/// time: its fixed kernels' measured costs and its FFT thresholds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs {
    /// Ticks a call of the fixed kernel at 0..=32 words (0: none at that
    /// size), from a batch of independent products through
    /// `mul_into_with_scratch`.
    pub(crate) fixed: [u32; 33],
    /// From this many words every balanced product takes the additive FFT.
    pub(crate) fft_min: usize,
    /// From this many words, balanced products that fill at least 85 % of
    /// their transform take the FFT too.
    pub(crate) fft_dense_min: usize,
}

/// Declares [`Backend`]'s array products `mulN`, `out = a·b` for two
/// `N`-word arrays into a `2N`-word one for [`Dispatch::mul_fixed`] (N =
/// 1..=9, 16), by default through [`Backend::fixed_arrays`].
macro_rules! array_products {
    ($($name:ident $n:literal),*) => {$(
        #[doc = concat!("`out = a·b` for ", $n, "-word arrays (by default through [`Backend::fixed_arrays`]).")]
        #[inline(always)]
        fn $name(self, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
            let done = self.fixed_arrays(out, a, b);
            debug_assert!(done, "every fixed size has a kernel");
        }
    )*};
}

/// A SIMD backend: the type `$name` holding the token `$token` (holding
/// one proves the instructions) and its [`Backend`] impl, with its name,
/// FFT kernels `$fft`, size-plan costs and the methods that hand the token
/// `self.0` on: `new`, `fft`, `square` and, with `fixed`, the slice entry
/// `fixed` and the array products `mulN` listed after it, each entering its
/// `#[target_feature]` function in the backend's `tf` module (the array
/// products write the kernel's result straight into the caller's array).
/// The impl's other methods follow in braces.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! simd_backend {
    (
        $(#[$doc:meta])*
        $name:ident($token:ty) = $label:literal, fft $fft:path,
        $(#[$costs_doc:meta])*
        costs $fixed:expr, fft_min $fft_min:expr, fft_dense_min $fft_dense_min:expr;
        $(fixed $($mul:ident $n:literal),*;)?
        { $($rest:tt)* }
    ) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name(pub(crate) $token);

        impl Backend for $name {
            const NAME: &'static str = $label;
            $(#[$costs_doc])*
            const COSTS: Costs = Costs {
                fixed: $fixed,
                fft_min: $fft_min,
                fft_dense_min: $fft_dense_min,
            };
            type Token = $token;
            type Fft = $fft;

            #[inline]
            fn new(t: $token) -> $name {
                $name(t)
            }

            fn square(self, out: &mut [u64], a: &[u64]) {
                // SAFETY: the token proves every feature `tf::square` enables.
                unsafe { tf::square(self.0, out, a) }
            }

            #[inline]
            fn fft(self) -> $fft {
                $fft(self.0)
            }
            $(
                fn fixed(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
                    // SAFETY: the token proves every feature `tf::fixed` enables.
                    unsafe { tf::fixed(self.0, out, a, b) }
                }
                $(
                    #[inline]
                    fn $mul(self, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
                        // SAFETY: the token proves every feature the kernel enables.
                        unsafe { tf::$mul(self.0, a, b, out) }
                    }
                )*
            )?
            $($rest)*
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use simd_backend;

/// One `gf2x` backend, implemented by one type in each backend file
/// (`portable::Portable`, `clmul::Pclmulqdq`, `vpclmul::Vpclmulqdq`,
/// `ymm::VpclmulqdqYmm`, `pmull::Pmull`): its word product, fixed kernels, square, FFT
/// kernels and the costs its size plan is computed from. The algorithms
/// above the fixed kernels (`plan.rs`, `fft.rs`) are written once over it,
/// and a [`Dispatch`] holds exactly one backend's value.
///
/// Every method runs in constant time for given operand lengths.
pub(crate) trait Backend: Copy {
    /// The capability token that proves the backend's instructions (`()`
    /// for the portable backend).
    type Token: Copy;
    /// The backend's additive-FFT kernels (`fft/`).
    type Fft: fft::FftKernel;
    /// `vpclmulqdq`, `vpclmulqdq-ymm`, `pclmulqdq`, `pmull` or `portable`.
    const NAME: &'static str;
    /// What the backend's size plan is computed from.
    const COSTS: Costs;
    /// The backend on its token.
    fn new(token: Self::Token) -> Self;
    /// The 128-bit carry-less product of `a` and `b`.
    fn clmul64(self, a: u64, b: u64) -> u128;
    /// `out = a·b` if `a.len() == b.len()` has a fixed kernel (every size up
    /// to [`BASE_MAX`], and possibly larger ones); false otherwise.
    /// `out.len() == 2·a.len()`.
    fn fixed(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool;
    /// [`Backend::fixed`] for the array products below, where the product
    /// is returned by value rather than chained through memory (a backend
    /// may choose other kernels there).
    #[inline(always)]
    fn fixed_arrays(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
        self.fixed(out, a, b)
    }
    array_products!(mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16);
    /// `out = a²` for any length, `out.len() == 2·a.len()` (linear time).
    fn square(self, out: &mut [u64], a: &[u64]);
    /// The backend's FFT kernels, on the same token.
    fn fft(self) -> Self::Fft;
}

/// A chosen `gf2x` backend: every operation of this module with the
/// dispatch done once.
///
/// Holding a value proves the CPU supports its backend; [`Dispatch::best`]
/// chooses the fastest usable one, [`Dispatch::all`] lists every usable one
/// (for differential tests and benchmarks), and the constructors named
/// after a backend give that one if the CPU and the `FIELDWORK_MAX_ISA` cap
/// allow it.
///
/// ```
/// use fieldwork::gf2x::Dispatch;
///
/// let m = Dispatch::best();
/// // (x + 1)^8 = x^8 + 1 over GF(2) (the Frobenius map is linear).
/// let mut p = 1u64;
/// for _ in 0..8 {
///     p = m.clmul64(p, 0b11) as u64;
/// }
/// assert_eq!(p, (1 << 8) | 1);
/// println!("gf2x backend: {}", m.name());
/// // Every backend computes the same product.
/// assert!(Dispatch::all().all(|d| d.clmul64(0b11, 0b11) == 0b101));
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Dispatch(Kind);

crate::dispatch::backend_enum! { $ on_backend(.0);
    #[derive(Clone, Copy, Debug)]
    enum Kind {
        x86_64: Vpclmulqdq(vpclmul::Vpclmulqdq), VpclmulqdqYmm(ymm::VpclmulqdqYmm),
            Pclmulqdq(clmul::Pclmulqdq);
        aarch64: Pmull(pmull::Pmull);
        portable: Portable(portable::Portable)
    }
}

fixed_words!(mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16);

impl Dispatch {
    crate::dispatch::best_and_all!(Dispatch: vpclmulqdq, vpclmulqdq_ymm, pclmulqdq, pmull; portable);

    /// The portable, constant-time backend (always available): plain Rust,
    /// 25 masked integer multiplications a word product.
    #[inline]
    pub fn portable() -> Dispatch {
        Dispatch(Kind::Portable(portable::Portable::new(())))
    }

    crate::dispatch::constructors! { Dispatch(Kind):
        /// The PCLMULQDQ backend (SSE4.1), if usable.
        "x86_64" pclmulqdq: Pclmulqdq(clmul::Pclmulqdq::new) if crate::cpu::Clmul;
        /// The VPCLMULQDQ backend on zmm (AVX-512 F/BW/VL/DQ), if usable.
        "x86_64" vpclmulqdq: Vpclmulqdq(vpclmul::Vpclmulqdq::new) if crate::cpu::Avx512Clmul;
        /// The VPCLMULQDQ backend on ymm (AVX2; for CPUs without AVX-512),
        /// if usable.
        "x86_64" vpclmulqdq_ymm: VpclmulqdqYmm(ymm::VpclmulqdqYmm::new) if crate::cpu::Avx2Clmul;
        /// The PMULL backend (AArch64 with the AES extension, which carries
        /// PMULL/PMULL2), if usable (always `None` on other targets).
        "aarch64" pmull: Pmull(pmull::Pmull::new) if crate::cpu::NeonAes;
    }

    /// The backend's name: `vpclmulqdq`, `vpclmulqdq-ymm`, `pclmulqdq`,
    /// `pmull` or `portable`.
    pub fn name(self) -> &'static str {
        fn name_of<B: Backend>(_: B) -> &'static str {
            B::NAME
        }
        on_backend!(self, k => name_of(k))
    }

    /// The 128-bit carry-less product of `a` and `b` (see [`clmul64`]).
    #[inline]
    pub fn clmul64(self, a: u64, b: u64) -> u128 {
        on_backend!(self, k => k.clmul64(a, b))
    }

    /// `out = a·b` (see [`mul_into`]).
    ///
    /// # Errors
    ///
    /// As [`mul_into`].
    #[inline]
    pub fn mul_into(self, out: &mut [u64], a: &[u64], b: &[u64]) -> Result<(), Gf2xError> {
        // Balanced products with a fixed kernel take one call from here:
        // the general path's frame (scratch tiers, error values) stays out
        // of line.
        if a.len() == b.len() && out.len() == 2 * a.len() && self.fixed(out, a, b) {
            return Ok(());
        }
        self.mul_into_general(out, a, b)
    }

    /// [`Dispatch::mul_into`] past the fixed kernels.
    #[inline(never)]
    fn mul_into_general(self, out: &mut [u64], a: &[u64], b: &[u64]) -> Result<(), Gf2xError> {
        check_output(out, a.len() + b.len())?;
        let needed = mul_scratch_len(a.len(), b.len());
        // Stack buffers in tiers: zeroing 8 KiB would cost more than a small
        // product (sizes up to 9 words need no scratch at all).
        if needed == 0 {
            self.mul_unchecked(out, a, b, &mut []);
            return Ok(());
        }
        if needed <= SMALL_STACK_SCRATCH {
            let mut scratch = [0u64; SMALL_STACK_SCRATCH];
            // `needed <= SMALL_STACK_SCRATCH`, checked above.
            self.mul_unchecked(out, a, b, scratch.split_at_mut(needed).0);
            return Ok(());
        }
        if needed <= STACK_SCRATCH {
            let mut scratch = [0u64; STACK_SCRATCH];
            // `needed <= STACK_SCRATCH`, checked above.
            self.mul_unchecked(out, a, b, scratch.split_at_mut(needed).0);
            return Ok(());
        }
        #[cfg(feature = "alloc")]
        {
            let mut scratch = alloc::vec![0u64; needed];
            self.mul_unchecked(out, a, b, &mut scratch);
            Ok(())
        }
        #[cfg(not(feature = "alloc"))]
        Err(Gf2xError::ScratchLength {
            needed,
            actual: STACK_SCRATCH,
        })
    }

    /// `out = a·b` with caller-provided scratch (see [`mul_into_with_scratch`]).
    ///
    /// # Errors
    ///
    /// As [`mul_into_with_scratch`].
    #[inline]
    pub fn mul_into_with_scratch(
        self,
        out: &mut [u64],
        a: &[u64],
        b: &[u64],
        scratch: &mut [u64],
    ) -> Result<(), Gf2xError> {
        // As in `mul_into` up to `BASE_MAX` words, where no product needs
        // scratch (past it the scratch length is checked first).
        if a.len() == b.len()
            && a.len() <= BASE_MAX
            && out.len() == 2 * a.len()
            && self.fixed(out, a, b)
        {
            return Ok(());
        }
        self.mul_scratch_general(out, a, b, scratch)
    }

    /// [`Dispatch::mul_into_with_scratch`] past the fixed kernels.
    #[inline(never)]
    fn mul_scratch_general(
        self,
        out: &mut [u64],
        a: &[u64],
        b: &[u64],
        scratch: &mut [u64],
    ) -> Result<(), Gf2xError> {
        check_output(out, a.len() + b.len())?;
        check_scratch(scratch, mul_scratch_len(a.len(), b.len()))?;
        self.mul_unchecked(out, a, b, scratch);
        Ok(())
    }

    /// `out = a·b` by the additive FFT over GF(2^64) (see the `gf2x` module
    /// docs) whatever the sizes, with caller-provided scratch of
    /// [`fft_scratch_len`] words: never allocates a buffer (it may start
    /// threads, as [`mul_into_with_scratch`] says). The other entry points
    /// take the FFT only from the sizes where it beats Toom-3 on this
    /// backend (thousands of words); this one is for testing and measuring
    /// the transform at any size, and for callers whose sizes fill a
    /// transform well. The result is the same product.
    ///
    /// # Errors
    ///
    /// [`Gf2xError::OutputLength`] or [`Gf2xError::ScratchLength`].
    pub fn mul_fft(
        self,
        out: &mut [u64],
        a: &[u64],
        b: &[u64],
        scratch: &mut [u64],
    ) -> Result<(), Gf2xError> {
        check_output(out, a.len() + b.len())?;
        check_scratch(scratch, fft_scratch_len(a.len(), b.len()))?;
        on_backend!(self, k => fft::mul(k.fft(), out, a, b, scratch));
        Ok(())
    }

    /// `out = a²` (see [`square_into`]).
    ///
    /// # Errors
    ///
    /// As [`square_into`].
    pub fn square_into(self, out: &mut [u64], a: &[u64]) -> Result<(), Gf2xError> {
        check_output(out, 2 * a.len())?;
        on_backend!(self, k => k.square(out, a));
        Ok(())
    }

    /// The product of two N-word polynomials (see [`mul_fixed`]).
    #[inline]
    pub fn mul_fixed<const N: usize>(
        self,
        a: &[u64; N],
        b: &[u64; N],
    ) -> <[u64; N] as FixedWords>::Product
    where
        [u64; N]: FixedWords,
    {
        <[u64; N] as sealed::Sealed>::mul_with(self, a, b)
    }

    /// The product of two N-word polynomials into `out` (see
    /// [`mul_fixed_into`]).
    #[inline]
    pub fn mul_fixed_into<const N: usize>(
        self,
        out: &mut <[u64; N] as FixedWords>::Product,
        a: &[u64; N],
        b: &[u64; N],
    ) where
        [u64; N]: FixedWords,
    {
        <[u64; N] as sealed::Sealed>::mul_into_with(self, out, a, b);
    }

    /// `out = a·b` once the lengths are checked: `out.len() == a.len() +
    /// b.len()` and `scratch.len() ≥ mul_scratch_len(..)`. The recursive
    /// layer, which tries the backend's fixed kernel first on every balanced
    /// product (`plan::mul_balanced`).
    fn mul_unchecked(self, out: &mut [u64], a: &[u64], b: &[u64], scratch: &mut [u64]) {
        on_backend!(self, k => plan::mul(k, out, a, b, scratch))
    }

    /// The fixed kernel for this balanced size, if there is one (the fast
    /// path for small products: no scratch, no recursion).
    #[inline]
    fn fixed(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
        on_backend!(self, k => k.fixed(out, a, b))
    }
}

fn check_output(out: &[u64], expected: usize) -> Result<(), Gf2xError> {
    if out.len() == expected {
        Ok(())
    } else {
        Err(Gf2xError::OutputLength {
            expected,
            actual: out.len(),
        })
    }
}

fn check_scratch(scratch: &[u64], needed: usize) -> Result<(), Gf2xError> {
    if scratch.len() >= needed {
        Ok(())
    } else {
        Err(Gf2xError::ScratchLength {
            needed,
            actual: scratch.len(),
        })
    }
}
