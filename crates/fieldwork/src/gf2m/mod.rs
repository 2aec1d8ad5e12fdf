//! Binary fields GF(2^m) in polynomial basis: the five NIST fields as
//! fixed types, and any irreducible modulus at run time.
//!
//! GF(2^m) is GF(2)\[x\] modulo an irreducible polynomial f of degree m. An
//! element is a polynomial of degree < m in `ceil(m/64)` words, word 0
//! lowest (the layout of [`crate::gf2x`]), always fully reduced. Addition
//! is XOR; multiplication is a [`crate::gf2x`] product and a reduction
//! modulo f.
//!
//! | type | modulus f | words | curves |
//! |---|---|---|---|
//! | [`F163`] | x^163 + x^7 + x^6 + x^3 + 1 | 3 | B-163, K-163 |
//! | [`F233`] | x^233 + x^74 + 1 | 4 | B-233, K-233 |
//! | [`F283`] | x^283 + x^12 + x^7 + x^5 + 1 | 5 | B-283, K-283 |
//! | [`F409`] | x^409 + x^87 + 1 | 7 | B-409, K-409 |
//! | [`F571`] | x^571 + x^10 + x^5 + x^2 + 1 | 9 | B-571, K-571 |
//!
//! (FIPS 186-4, Appendix D.1.3.) The operations are those of the
//! [`FieldElement`] trait, which every fixed type implements, so code can
//! be written once for all five; [`BinaryField`] gives the same operations
//! for any irreducible modulus chosen at run time.
//!
//! ```
//! use fieldwork::gf2m::{F233, FieldElement};
//!
//! let a = F233::from_words(&[3, 0, 0, 1 << 40])?;
//! let b = a.square() + F233::ONE;
//! // Inversion returns a `CtOption`: none for zero.
//! let c = b.invert().unwrap();
//! assert_eq!(b * c, F233::ONE);
//! // z² + z = a has a root exactly when Tr(a) = 0.
//! let z = a.solve_quadratic();
//! assert_eq!(bool::from(z.is_some()), !bool::from(a.trace()));
//! # Ok::<(), fieldwork::gf2m::Gf2mError>(())
//! ```
//!
//! # Algorithms
//!
//! - **Product**: the fixed `gf2x` kernel of the field's word count (3, 4,
//!   5, 7, 9 words: Karatsuba and Su–Fan formulas, PCLMULQDQ or the
//!   portable masked integer products), inlined with the reduction into one
//!   function per backend. On PCLMULQDQ, F233 (`xmm233.rs`) and F163,
//!   F283, F409 and F571 (`xmmfold.rs`: Karatsuba over digit halves) have
//!   their own products on 128-bit digits.
//! - **Batches** (`mul_slices`, `square_slices`) on VPCLMULQDQ: two
//!   elements per ymm instruction (four per zmm instruction with
//!   AVX-512), element i + k in 128-bit lane k: for F163, F283, F409 and
//!   F571 the one-element kernels of `xmmfold.rs` themselves, written
//!   over `gf2x`'s lane vocabulary, for F233 the word formulas and the
//!   word-wise reduction.
//! - **Reduction**: word-level shift-and-add for the sparse modulus
//!   (Hankerson, Menezes and Vanstone, *Guide to Elliptic Curve
//!   Cryptography*, Algorithms 2.41–2.45): each word above bit m is folded
//!   back as two shifted XORs per term of f − x^m. Written once
//!   (`words::reduce_sparse`) and unrolled per modulus by the compiler.
//!   On PCLMULQDQ the three pentanomials and F409 fold by carry-less
//!   products instead (`xmmfold.rs`: x^(64W) ≡ x^(64W−m)·(f − x^m), one
//!   word (two at 409), one PCLMULQDQ per high word and word of it side
//!   by side, then the bits from m on times f − x^m), and F233 by
//!   Pornin's folds fused with its product (`xmm233.rs`).
//! - **Squaring**: linear — one carry-less square per word (or bit
//!   spreading, portable), then the reduction.
//! - **Inversion**: Itoh–Tsujii over the binary addition chain of m − 1
//!   (m − 1 squarings, ⌊log₂(m−1)⌋ + popcount(m−1) − 1 products), whose
//!   steps a ↦ a^(2^k) with k ≥ m/20 (four per field: k = 10, 20, 40, 81
//!   at m = 163; 35, 71, 142, 285 at m = 571; m/12 on the carry-less
//!   backends, whose squares are cheaper: `Divstep::table_from`) are
//!   precomputed GF(2)-linear maps applied with masks (`maps.rs`), the
//!   others squarings. Bernstein–Yang divsteps in batches of up to 55 on
//!   one word, the batch's 2 × 2 matrix applied by carry-less products
//!   (`divstep.rs`), are kept per backend from a tuned degree (never on
//!   the current ones). 0 maps to 0 and
//!   [`FieldElement::invert`] returns none for it.
//! - **Square root**: a = e(x²) + x·o(x²) ⇒ √a = e(x) + √x·o(x): a bit
//!   gather and one product by the constant √x.
//! - **Trace**: Tr is linear; the positions i with Tr(x^i) = 1 come from
//!   Newton's identities on f at compile time, and Tr(a) is the parity of
//!   `a AND mask`.
//! - **Half-trace** (odd m): H(c) = Σ c^(4^i), i ≤ (m−1)/2, a linear map
//!   precomputed (its images of x^i) and applied with masks, or by
//!   h ← h⁴ + c without `std`; it solves z² + z = c when Tr(c) = 0.
//!
//! Every operation is constant time in every backend: no branch and no
//! memory index depends on an element's value; loop counts depend on m
//! and on public lengths only.
//!
//! # Backends
//!
//! | backend | needs | word product |
//! |---|---|---|
//! | `vpclmulqdq-ymm` | VPCLMULQDQ, AVX2, PCLMULQDQ, SSE4.1 | `pclmulqdq` (VEX); batches: `vpclmulqdq` on ymm, two elements per instruction (one at a time for the fields the tuning table names: Ice Lake, whose ymm `vpclmulqdq` issues at half the xmm rate) |
//! | `vpclmulqdq-ymm-wide` | the same | `vpclmulqdq-ymm`'s, with F409's and F571's products and squares on ymm, two 128-bit digits a register (`ymmfold.rs`); best where the tuning table (`tuning.rs`) names the core (AMD: `vpclmulqdq` issues once per two cycles on xmm and ymm alike) |
//! | `vpclmulqdq-avx512` | the same, AVX-512 F/BW/VL/DQ | `vpclmulqdq-ymm-wide`'s; the linear maps (inversion chain, half-trace) as masked XORs on mask registers, the chain's Frobenius steps on half tables (`maps.rs`); best where the tuning table names the core for the wide products (AMD) or for them with AVX-512 (Intel: its maps made inversion 18–29 % faster on the Xeon) and AVX-512 is there |
//! | `vpclmulqdq-avx512-xmm-squares` | the same | `vpclmulqdq-avx512`'s, but F409's and F571's squares on xmm digits (`xmmfold.rs`): best where `pclmulqdq` issues every cycle (Intel: 409 / 571 squares 27.8 / 24.5 → 22.3 / 20.2 cycles, inversion 3–4 % faster on the Xeon), where the ymm squares' lane moves are latency |
//! | `pclmulqdq` | PCLMULQDQ, SSE4.1 | `pclmulqdq` |
//! | `pmull` (AArch64) | NEON, AES (PMULL) | `PMULL`/`PMULL2` on two-word q-register digits; reduction, roots and maps on general registers |
//! | `portable` | nothing | masked integer multiplication |
//!
//! Each backend is a type implementing [`Backend`] (the operations, written
//! once as its default methods over the backend's kernels), with one
//! `#[target_feature]` entry point that runs a [`Computation`]: code written
//! once over `B: Backend` and compiled per backend, so a chain of
//! products, squares and roots inlines with no call per operation
//! ([`run`], [`Dispatch::run`]). The operators and element methods choose
//! the backend per call by [`Dispatch::best`] (a cached load) and run the
//! one operation as a computation; a compound operation such as `invert`
//! runs its whole loop inside one entry.
//!
//! `vpclmulqdq-ymm` (`ymm.rs`) compiles every operation with AVX2 and
//! VPCLMULQDQ. Its single-element operations use, for every field, the
//! xmm-lane formulas of `pclmulqdq` (VEX-encoded), not the `gf2x` ymm
//! fixed kernels, which measured no faster inside a field product (below);
//! AVX2 pays in the Frobenius and half-trace maps (`maps.rs`: four rows per
//! `vblendvpd`, against two per SSE4.1 `blendvpd` on `pclmulqdq` and one
//! mask per bit on `portable`; `fieldwork speed --filter half_trace
//! --all-backends`, Zen 3: m = 163 140, 277 and 790 cycles, m = 571 1 250,
//! 2 970 and 3 050). Its batches run two
//! elements at once on `gf2x`'s pair digits (one word of each element in
//! the low 64 bits of its lane; `vpclmulqdq` imm 0x00 and an in-lane
//! `vpsrldq` per word product, shifts and XORs lane-wise), an odd last
//! element on the single path. Per two elements, as compiled:
//!
//! | m | product formula | `vpclmulqdq` (ymm) per pair | fold |
//! |---|---|---|---|
//! | 163 | three-term, 3 × 1 | 6 | ymm lanes |
//! | 233 | Karatsuba 2 + 2 | 9 | ymm lanes |
//! | 283 | Su–Fan 5-2 (3 + 2) | 14 | ymm lanes |
//! | 409 | Karatsuba 4 + 3 | 23 | ymm lanes |
//! | 571 | Karatsuba 5 + 4 | 36 | general registers, each element |
//!
//! A batch square is one `vpclmulqdq` per word (W per pair) and the same
//! fold (m = 571 in general registers: 18 digits overflow the 16 ymm
//! registers).
//!
//! # Performance
//!
//! `cargo run --release -p peer-bench --features system-peers,xs233 --
//! --filter gf2m` measures each operation against NTL's `GF2E`, OpenSSL's
//! `BN_GF2m_*` and (m = 233) c-xs233, chained through one element; the
//! generated pages in `docs/benchmarks/` hold the figures, and the
//! measured history is in `docs/notes/gf2m.md`.
//!
//! A chained operation is bound by latency. Itoh–Tsujii's floor is its
//! chain: at m = 163, 9 products, 11 single squarings and 4 maps of 41
//! groups × (1 shift, 3 blends, 3 XORs) on two blend pipes; at m = 571 the
//! maps' tables stream from L2, and the divsteps (1 155 steps of 13
//! integer operations on a 3-cycle chain, 21 batch products) are shorter.
//! A map costs as much as 5 (m = 163) to 20 (m = 571) squarings
//! (`words::TABLE_DIV`). Through the operators each lone operation is a
//! dispatched call whose operands and result go through memory; inside
//! one [`run`] it is not.
//!
//! Rejected (the figures in `docs/notes/gf2m.md`):
//! - the `gf2x` ymm limb kernels for the 7- and 9-word field products:
//!   no faster, and `invert` at m = 409 2× slower;
//! - folding the pairs in general registers at 7 words, or in ymm lanes at
//!   9 words: slower;
//! - the three-term formula for the pairs' 9-word product, and the xmm
//!   lanes' schoolbook 3-word product in the pairs: slower;
//! - at m = 571, the next pair's product before the previous fold, or two
//!   pairs an iteration: slower or no change;
//! - a 4-bit window for the Frobenius tables: a secret table index;
//! - the masked XOR without `black_box`: the compiler made it a branch on
//!   the secret bit (found in the disassembly).

mod algorithms;
#[cfg(target_arch = "x86_64")]
mod clmul;
mod divstep;
mod fixed;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod maps;
#[cfg(feature = "alloc")]
pub mod normal;
mod ops;
#[cfg(target_arch = "aarch64")]
mod pmull;
mod portable;
#[cfg(feature = "alloc")]
mod runtime;
#[cfg(feature = "std")]
mod tables;
mod words;
#[cfg(target_arch = "x86_64")]
mod xmm233;
#[cfg(target_arch = "x86_64")]
mod xmmfold;
#[cfg(target_arch = "x86_64")]
use xmmfold::{xmm163, xmm283, xmm409, xmm571};
#[cfg(target_arch = "x86_64")]
use ymmfold::{ymm409, ymm571};
mod tuning;
#[cfg(target_arch = "x86_64")]
mod ymm;
#[cfg(target_arch = "x86_64")]
mod ymmfold;

#[cfg(target_arch = "x86_64")]
pub use clmul::Pclmulqdq;
pub use fixed::{F163, F233, F283, F409, F571};
#[cfg(target_arch = "aarch64")]
pub use pmull::Pmull;
pub use portable::Portable;
#[cfg(feature = "alloc")]
pub use runtime::{BinaryField, Element};
#[cfg(target_arch = "x86_64")]
pub use ymm::{VpclmulqdqAvx512, VpclmulqdqAvx512XmmSquares, VpclmulqdqYmm, VpclmulqdqYmmWide};

use crate::gf2x::{InlineFixed, PortableWord};
use core::fmt;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu;

/// What was wrong with an input to a `gf2m` function.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Gf2mError {
    /// A bit at or above the degree m is set: the value is not a reduced
    /// element of GF(2^m).
    NotReduced {
        /// The field's degree.
        m: usize,
    },
    /// A byte string, word slice or batch had the wrong length.
    Length {
        /// The length required.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// Text that is not hexadecimal, or has too many digits.
    InvalidHex,
    /// A modulus of degree 0 or 1, or above 10 000 (`BinaryField::MAX_DEGREE`)
    /// (the degree is given).
    Degree(usize),
    /// A modulus that is not irreducible.
    Reducible,
    /// Elements of two different fields combined.
    FieldMismatch,
}

impl fmt::Display for Gf2mError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gf2mError::NotReduced { m } => {
                write!(
                    f,
                    "not an element of GF(2^{m}): a bit at or above {m} is set"
                )
            }
            Gf2mError::Length { expected, actual } => {
                write!(f, "wrong length: expected {expected}, got {actual}")
            }
            Gf2mError::InvalidHex => f.write_str("not a hexadecimal field element"),
            Gf2mError::Degree(d) => write!(
                f,
                "a field modulus must have degree 2..=10000, this one has degree {d}"
            ),
            Gf2mError::Reducible => f.write_str("the modulus is not irreducible"),
            Gf2mError::FieldMismatch => f.write_str("elements of different fields combined"),
        }
    }
}

impl core::error::Error for Gf2mError {}

/// Parses big-endian hexadecimal (optional `0x`, at most `2·out.len()`
/// digits) into `out`, right-aligned.
fn parse_hex(s: &str, out: &mut [u8]) -> Result<(), Gf2mError> {
    let s = s.trim();
    let s = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .unwrap_or(s);
    let digits = s.as_bytes();
    if digits.is_empty() || digits.len() > 2 * out.len() {
        return Err(Gf2mError::InvalidHex);
    }
    out.fill(0);
    // Two digits a byte from the right; the leading digit may be alone.
    // `digits.len() <= 2·out.len()`: every pair has its byte.
    for (o, pair) in out.iter_mut().rev().zip(digits.rchunks(2)) {
        for &c in pair {
            let v = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                _ => return Err(Gf2mError::InvalidHex),
            };
            *o = (*o << 4) | v;
        }
    }
    Ok(())
}

mod private {
    use super::divstep::Divstep;
    use super::maps::{MapKernel, Quad};

    /// A fixed field's product, square and square root on any backend's
    /// inlinable kernels (sealed: implemented by the five types only; its
    /// kernels' trait is crate-private).
    #[allow(private_bounds, private_interfaces)]
    pub trait FieldSpec: Copy + 'static {
        /// `a·b` with the kernels of `k`.
        fn mul_k<K: super::FieldKernel>(k: K, a: &Self, b: &Self) -> Self;
        /// `a²` with the kernels of `k`.
        fn square_k<K: super::FieldKernel>(k: K, a: &Self) -> Self;
        /// `√a` with the kernels of `k`.
        fn sqrt_k<K: super::FieldKernel>(k: K, a: &Self) -> Self;
        /// `a^(2^n)` by n squarings with the kernels of `k` (a field's
        /// vector kernels keep the element in registers between them).
        fn square_n_k<K: super::FieldKernel>(k: K, a: &Self, n: usize) -> Self;
        /// `out[i] = a[i]·b[i]` for both `i`, in the same instructions:
        /// element i in lane i of ymm registers where the field has a
        /// digit kernel, else one word of each a digit (`fixed.rs`'s
        /// `pair_kernels`).
        #[cfg(target_arch = "x86_64")]
        fn mul_pair(t: crate::cpu::Avx2Clmul, a: &[Self; 2], b: &[Self; 2], out: &mut [Self; 2]);
        /// `out[i] = a[i]²` for both `i`, in the same instructions.
        #[cfg(target_arch = "x86_64")]
        fn square_pair(t: crate::cpu::Avx2Clmul, a: &[Self; 2], out: &mut [Self; 2]);
        /// `out[i] = a[i]·b[i]` for the four `i`, element i in lane i of
        /// zmm registers where the field has a digit kernel, else as two
        /// pairs.
        #[cfg(target_arch = "x86_64")]
        fn mul_quad(t: crate::cpu::Avx512Clmul, a: &[Self; 4], b: &[Self; 4], out: &mut [Self; 4]);
        /// `out[i] = a[i]²` for the four `i`, as [`FieldSpec::mul_quad`].
        #[cfg(target_arch = "x86_64")]
        fn square_quad(t: crate::cpu::Avx512Clmul, a: &[Self; 4], out: &mut [Self; 4]);
        /// The table (`maps` layout) of the rows (x^i)^(2^k), i < m, of the
        /// k-fold Frobenius map, for the k of the inversion chain that have
        /// one (built on first use; none without `std`).
        fn frobenius_table(k: usize) -> Option<&'static [Quad]>;
        /// The table of the rows H(x^i), i < m, of the half-trace (built on
        /// first use; none without `std`).
        fn half_trace_table() -> Option<&'static [Quad]>;
        /// Σ a_i·row_i for the rows of `table`, with the kernels of `k`:
        /// masks, no index or branch on `a`.
        fn apply_map_k<K: MapKernel>(k: K, table: &[Quad], a: &Self) -> Self;
        /// The half table of the k-fold Frobenius map (`maps` layout: the
        /// rows (x^j)^(2^(k+1)), j < ⌈m/2⌉) and x^(2^k), for the k of the
        /// inversion chain that have a table (built on first use; none
        /// without `std`).
        fn frobenius_half_table(k: usize) -> Option<(&'static [Quad], Self)>;
        /// `a^(2^k)` by the half table of [`FieldSpec::frobenius_half_table`]
        /// (`table`, `shift` = x^(2^k)) with the kernels of `k`: the even
        /// and odd coefficients' images in one [`MapKernel::apply_pair`],
        /// the odd one times `shift`.
        fn apply_half_map_k<K: MapKernel + super::FieldKernel>(
            k: K,
            table: &[Quad],
            shift: &Self,
            a: &Self,
        ) -> Self;
        /// `a^(−1)` (0 for 0) by divsteps on the kernels of `k`, with the
        /// field's plan (`divstep.rs`).
        fn invert_divstep_k<K: Divstep>(k: K, a: &Self) -> Self;
    }

    /// A backend's kernels (sealed: only the backends of this module
    /// implement it, so only they implement [`Backend`](super::Backend)).
    pub trait Kernels {
        /// The kernels' type.
        #[allow(private_bounds, private_interfaces)]
        type K: Divstep;
        /// The kernels, with the token they carry.
        #[allow(private_interfaces)]
        fn kernels(self) -> Self::K;
    }
}
use private::FieldSpec;

/// A SIMD backend: the type `$name` holding the token `$token` (holding
/// one proves the instructions), its [`Kernels`](private::Kernels) (`gf2x`'s
/// inlinable kernels `$kernels` on the same token), its [`Backend`] name
/// and its one `#[target_feature(enable = $features)]` entry point `run`,
/// around the caller's [`Computation`].
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! simd_backend {
    ($(#[$doc:meta])* $name:ident($token:ty), $kernels:ident $(<$kernels_arg:literal>)?,
     $label:literal, $features:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name(pub(super) $token);

        impl super::private::Kernels for $name {
            type K = $kernels $(<$kernels_arg>)?;
            #[inline(always)]
            fn kernels(self) -> Self::K {
                $kernels $(::<$kernels_arg>)? (self.0)
            }
        }

        impl super::Backend for $name {
            fn name(self) -> &'static str {
                $label
            }
        }

        impl $name {
            #[doc = concat!("`computation` compiled with `", $features, "`.")]
            #[inline]
            pub(super) fn run<C: super::Computation>(self, computation: C) -> C::Output {
                // SAFETY: the token in `self` proves every feature `run_tf`
                // enables.
                unsafe { Self::run_tf(self, computation) }
            }

            #[target_feature(enable = $features)]
            fn run_tf<C: super::Computation>(self, computation: C) -> C::Output {
                computation.run(self)
            }
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use simd_backend;

/// A backend's kernels as the fields see them: `gf2x`'s inlinable fixed
/// products, and whether they may also use PCLMULQDQ on whole xmm
/// registers, for a field's own 128-bit-digit kernels (`xmm233.rs`). The
/// answer is a property of the kernel type, so the choice vanishes at
/// compile time.
pub(crate) trait FieldKernel: InlineFixed {
    /// The PCLMULQDQ token when these kernels run with it.
    #[cfg(target_arch = "x86_64")]
    fn clmul(self) -> Option<cpu::Clmul>;

    /// The VPCLMULQDQ-on-ymm token when these kernels run the fields'
    /// two-digits-a-register products (`ymmfold.rs`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn wide(self) -> Option<cpu::Avx2Clmul> {
        None
    }

    /// The VPCLMULQDQ-on-ymm token when these kernels run the fields'
    /// two-words-an-instruction squares (`ymmfold.rs`); [`Self::wide`]
    /// unless the kernels say otherwise.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn wide_squares(self) -> Option<cpu::Avx2Clmul> {
        self.wide()
    }

    /// `out[i] = a[i]·b[i]`, the slices of one length: one element at a
    /// time, unless the kernels have a pair form.
    #[inline(always)]
    fn mul_slices<F: FieldElement>(self, out: &mut [F], a: &[F], b: &[F]) {
        ops::mul_slices(self, out, a, b)
    }

    /// `out[i] = a[i]²`, the slices of one length.
    #[inline(always)]
    fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) {
        ops::square_slices(self, out, a)
    }
}

impl FieldKernel for PortableWord {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn clmul(self) -> Option<cpu::Clmul> {
        None
    }
}

#[cfg(target_arch = "aarch64")]
impl FieldKernel for crate::gf2x::PmullWord {}

#[cfg(target_arch = "x86_64")]
impl FieldKernel for crate::gf2x::PclmulLane {
    #[inline(always)]
    fn clmul(self) -> Option<cpu::Clmul> {
        Some(self.0)
    }
}

#[cfg(target_arch = "x86_64")]
impl FieldKernel for crate::gf2x::YmmLane {
    #[inline(always)]
    fn clmul(self) -> Option<cpu::Clmul> {
        Some(self.0.clmul())
    }

    /// Two elements per instruction, one per 128-bit lane
    /// ([`PairLane`](crate::gf2x::PairLane)); an odd last one on `self`;
    /// one at a time for the fields the tuning table names
    /// ([`ops::mul_slices_ymm`]).
    #[inline(always)]
    fn mul_slices<F: FieldElement>(self, out: &mut [F], a: &[F], b: &[F]) {
        ops::mul_slices_ymm(self.0, self, out, a, b)
    }

    #[inline(always)]
    fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) {
        ops::square_slices_ymm(self.0, self, out, a)
    }
}

/// [`ymm::YmmWide`]'s (the maps are `maps.rs`'s business).
#[cfg(target_arch = "x86_64")]
impl<const WIDE_SQUARES: bool> FieldKernel for ymm::Avx512Wide<WIDE_SQUARES> {
    #[inline(always)]
    fn clmul(self) -> Option<cpu::Clmul> {
        self.wide().clmul()
    }

    #[inline(always)]
    fn wide(self) -> Option<cpu::Avx2Clmul> {
        Some(self.0.avx2_clmul())
    }

    #[inline(always)]
    fn wide_squares(self) -> Option<cpu::Avx2Clmul> {
        if WIDE_SQUARES {
            FieldKernel::wide(self)
        } else {
            None
        }
    }

    /// Four elements per instruction, one per 128-bit lane of zmm
    /// registers; the last one to three as pairs and a single.
    #[inline(always)]
    fn mul_slices<F: FieldElement>(self, out: &mut [F], a: &[F], b: &[F]) {
        ops::mul_slices_quads(self.0, self, out, a, b)
    }

    #[inline(always)]
    fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) {
        ops::square_slices_quads(self.0, self, out, a)
    }
}

#[cfg(target_arch = "x86_64")]
impl FieldKernel for ymm::YmmWide {
    #[inline(always)]
    fn clmul(self) -> Option<cpu::Clmul> {
        Some(self.0.clmul())
    }

    #[inline(always)]
    fn wide(self) -> Option<cpu::Avx2Clmul> {
        Some(self.0)
    }

    /// [`YmmLane`](crate::gf2x::YmmLane)'s pairs (or single elements).
    #[inline(always)]
    fn mul_slices<F: FieldElement>(self, out: &mut [F], a: &[F], b: &[F]) {
        ops::mul_slices_ymm(self.0, self, out, a, b)
    }

    #[inline(always)]
    fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) {
        ops::square_slices_ymm(self.0, self, out, a)
    }
}

/// An element of one of the fixed NIST fields ([`F163`] … [`F571`]): the
/// operations they share, so code can be generic over the field.
///
/// Every method runs in constant time in the element's value (lengths,
/// the degree and exponent lengths are public).
///
/// ```
/// use fieldwork::gf2m::{F163, F571, FieldElement};
///
/// fn check<F: FieldElement>(a: F) {
///     assert_eq!(a.sqrt().square(), a);
///     assert_eq!(a.pow2k(F::M), a); // a^(2^m) = a
/// }
/// check(F163::ONE + F163::ONE.sqrt());
/// check(F571::from_words(&[7; 9].map(|w| w & 0xff))?);
/// # Ok::<(), fieldwork::gf2m::Gf2mError>(())
/// ```
#[allow(private_bounds)]
pub trait FieldElement:
    FieldSpec
    + Copy
    + Default
    + Eq
    + fmt::Debug
    + fmt::Display
    + ConstantTimeEq
    + ConditionallySelectable
    + core::ops::Add<Output = Self>
    + core::ops::AddAssign
    + core::ops::Sub<Output = Self>
    + core::ops::Mul<Output = Self>
    + core::ops::MulAssign
    + core::ops::Neg<Output = Self>
    + core::str::FromStr<Err = Gf2mError>
{
    /// The degree m: the field has 2^m elements.
    const M: usize;
    /// Words per element, `ceil(m/64)`.
    const WORDS: usize;
    /// Bytes of the octet-string encoding, `ceil(m/8)`.
    const BYTES: usize;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;

    /// The exponents of the modulus' terms, highest first (e.g.
    /// `[233, 74, 0]`).
    fn modulus_exponents() -> &'static [usize];

    /// The element from `WORDS` words, word 0 lowest.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] for another number of words,
    /// [`Gf2mError::NotReduced`] if a bit at or above m is set.
    fn from_word_slice(words: &[u64]) -> Result<Self, Gf2mError>;

    /// The words, word 0 lowest.
    fn as_words(&self) -> &[u64];

    /// The element from its `BYTES`-byte big-endian octet string (SEC 1
    /// §2.3.5).
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] for another length, [`Gf2mError::NotReduced`]
    /// if a bit at or above m is set.
    fn from_be_slice(bytes: &[u8]) -> Result<Self, Gf2mError>;

    /// Writes the `BYTES`-byte big-endian octet string into `out`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] if `out.len() != BYTES`.
    fn write_be_bytes(&self, out: &mut [u8]) -> Result<(), Gf2mError>;

    /// A uniformly random element.
    fn random<R: rand_core::Rng + ?Sized>(rng: &mut R) -> Self;

    /// `a²`.
    fn square(&self) -> Self;

    /// `a^(−1)`; none for 0.
    fn invert(&self) -> CtOption<Self>;

    /// The square root (every element has exactly one).
    fn sqrt(&self) -> Self;

    /// The absolute trace Tr(a) = a + a² + … + a^(2^(m−1)) ∈ {0, 1}.
    fn trace(&self) -> Choice;

    /// The half-trace Σ_{i=0}^{(m−1)/2} a^(2^(2i)) (all five NIST degrees
    /// are odd).
    fn half_trace(&self) -> Self;

    /// `a^e`, the exponent as little-endian words (constant time in `a`
    /// and `e`; `e.len()` is public).
    fn pow(&self, exponent: &[u64]) -> Self;

    /// `a^(2^k)`: k squarings.
    fn pow2k(&self, k: usize) -> Self;

    /// Whether `a = 0`.
    fn is_zero(&self) -> Choice;

    /// A root z of z² + z = a, if there is one (exactly when Tr(a) = 0; the
    /// other root is z + 1): z = H(a), the half-trace (m odd).
    fn solve_quadratic(&self) -> CtOption<Self> {
        let z = self.half_trace();
        CtOption::new(z, !self.trace())
    }

    /// `out[i] = a[i]·b[i]`, with the backend chosen once for the batch.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the three slices have one length.
    fn mul_slices(out: &mut [Self], a: &[Self], b: &[Self]) -> Result<(), Gf2mError> {
        Dispatch::best().mul_slices(out, a, b)
    }

    /// `out[i] = a[i]²`, with the backend chosen once for the batch.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the two slices have one length.
    fn square_slices(out: &mut [Self], a: &[Self]) -> Result<(), Gf2mError> {
        Dispatch::best().square_slices(out, a)
    }

    /// Replaces every element by its inverse, 0 by 0, with one inversion
    /// and 3 products per element (Montgomery's trick), in constant time.
    #[cfg(feature = "alloc")]
    fn invert_batch(elements: &mut [Self]) {
        Dispatch::best().invert_batch(elements)
    }
}

/// The one-element operations of [`Backend`] (`ops::$op` on the backend's
/// kernels, `#[inline(always)]`) and of [`Dispatch`] (the computation
/// `one_op::$run` compiled for the backend), each with its attributes.
macro_rules! one_element_ops {
    (backend: $($(#[$attr:meta])* $op:ident;)*) => {$(
        $(#[$attr])*
        #[inline(always)]
        fn $op<F: FieldElement>(self, a: &F) -> F {
            ops::$op(self.kernels(), a)
        }
    )*};
    (dispatch: $($(#[$attr:meta])* $op:ident = $run:ident;)*) => {$(
        $(#[$attr])*
        pub fn $op<F: FieldElement>(self, a: &F) -> F {
            self.run(one_op::$run(a))
        }
    )*};
}

/// One `gf2m` backend: the fixed fields' operations on one instruction
/// set, written once (the default methods) over the backend's kernels.
///
/// A value of a `Backend` type exists only inside [`Dispatch::run`] (or
/// [`run`]), which hands it to a [`Computation`] compiled for that backend
/// under its target features, so a chain of its operations inlines into
/// the caller's loop. The trait is sealed: the backends are
/// [`Portable`], `Pclmulqdq`, `VpclmulqdqYmm`, `VpclmulqdqYmmWide`,
/// `VpclmulqdqAvx512` and `VpclmulqdqAvx512XmmSquares` (x86-64), `Pmull`
/// (AArch64).
///
/// Every method runs in constant time in the elements' values.
#[allow(private_bounds)]
pub trait Backend: Copy + private::Kernels {
    /// `portable`, `pclmulqdq`, `vpclmulqdq-ymm`, `vpclmulqdq-ymm-wide`,
    /// `vpclmulqdq-avx512`, `vpclmulqdq-avx512-xmm-squares` or `pmull`.
    fn name(self) -> &'static str;

    /// `a·b`.
    #[inline(always)]
    fn mul<F: FieldElement>(self, a: &F, b: &F) -> F {
        ops::mul(self.kernels(), a, b)
    }

    one_element_ops! {backend:
        /// `a²`.
        square;
        /// `√a`.
        sqrt;
        /// `a^(−1)`, 0 for 0.
        invert;
        /// `a^(−1)`, 0 for 0, by Bernstein–Yang divsteps at every m: a
        /// fixed number of steps for the field, in batches whose 2 × 2
        /// matrices are applied by carry-less products (`divstep.rs`),
        /// constant time like every operation here. [`Backend::invert`]
        /// takes this path at m = 571 on the x86-64 carry-less backends
        /// and Itoh–Tsujii otherwise (`portable`, `pmull`, smaller m); this
        /// one is the divstep inversion at every m, for callers and
        /// benchmarks that want it.
        invert_divstep;
        /// The half-trace.
        half_trace;
    }

    /// `a^(2^k)`.
    #[inline(always)]
    fn pow2k<F: FieldElement>(self, a: &F, k: usize) -> F {
        ops::pow2k(self.kernels(), a, k)
    }

    /// `a^e`, the exponent as little-endian words.
    #[inline(always)]
    fn pow<F: FieldElement>(self, a: &F, e: &[u64]) -> F {
        ops::pow(self.kernels(), a, e)
    }

    /// `out[i] = a[i]·b[i]` (two elements per instruction where the
    /// backend has a pair kernel).
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the slices have one length.
    #[inline(always)]
    fn mul_slices<F: FieldElement>(self, out: &mut [F], a: &[F], b: &[F]) -> Result<(), Gf2mError> {
        same_len(out.len(), a.len())?;
        same_len(out.len(), b.len())?;
        self.kernels().mul_slices(out, a, b);
        Ok(())
    }

    /// `out[i] = a[i]²`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the slices have one length.
    #[inline(always)]
    fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) -> Result<(), Gf2mError> {
        same_len(out.len(), a.len())?;
        self.kernels().square_slices(out, a);
        Ok(())
    }

    /// Every element of `v` inverted in place (0 stays 0), with one
    /// inversion and 3 products per element (Montgomery's trick);
    /// `scratch` is working space of `v`'s length.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless `scratch` is as long as `v`.
    #[inline(always)]
    fn invert_batch_with_scratch<F: FieldElement>(
        self,
        v: &mut [F],
        scratch: &mut [F],
    ) -> Result<(), Gf2mError> {
        same_len(v.len(), scratch.len())?;
        ops::invert_batch(self.kernels(), v, scratch);
        Ok(())
    }
}

/// A computation over the fixed fields written once, generically over the
/// [`Backend`], and compiled by [`Dispatch::run`] once per backend under
/// that backend's target features: the backend is chosen once, and every
/// field operation inside inlines into the computation's own loop (as
/// c-xs233's `static inline` functions do in C), with no call and no
/// round trip through memory per operation. The operators (`a * b`,
/// `a.square()`) choose the backend at every call instead.
///
/// Mark `run` `#[inline(always)]`: the dispatcher's `#[target_feature]`
/// entry calls it, and if the compiler left it out of line it would lose
/// those features (correct, but each product then a call). The idea is
/// `pulp`'s `WithSimd` trait.
///
/// ```
/// use fieldwork::gf2m::{self, Backend, Computation, F233, FieldElement};
///
/// /// c0 + c1·x + c2·x² + … by Horner's rule.
/// struct Horner<'a> {
///     coefficients: &'a [F233],
///     x: F233,
/// }
///
/// impl Computation for Horner<'_> {
///     type Output = F233;
///     #[inline(always)]
///     fn run<B: Backend>(self, f: B) -> F233 {
///         let mut acc = F233::ZERO;
///         for c in self.coefficients.iter().rev() {
///             acc = f.mul(&acc, &self.x) + *c;
///         }
///         acc
///     }
/// }
///
/// let x: F233 = "0x1234567890abcdef".parse()?;
/// let c = [F233::ONE, x, x.sqrt()];
/// let y = gf2m::run(Horner { coefficients: &c, x });
/// assert_eq!(y, F233::ONE + x * x + x.sqrt() * x.square());
/// # Ok::<(), fieldwork::gf2m::Gf2mError>(())
/// ```
pub trait Computation {
    /// What the computation returns.
    type Output;
    /// The computation on `backend`'s operations.
    fn run<B: Backend>(self, backend: B) -> Self::Output;
}

/// `computation` on the fastest backend of this CPU ([`Dispatch::best`]):
/// the backend is chosen once, the computation compiled for it.
///
/// # Panics
///
/// If `FIELDWORK_MAX_ISA` holds an unknown level (see [`crate::cpu`]).
#[inline]
pub fn run<C: Computation>(computation: C) -> C::Output {
    Dispatch::best().run(computation)
}

/// `Dispatch`'s constructors of the SIMD backends: `$name` returns the
/// backend `$ty` (its `Kind` variant of the same name) on `$arch` where
/// the token `cpu::$token` is usable, else `None`.
macro_rules! backend_constructors {
    ($($(#[$doc:meta])* $name:ident: $arch:literal, $token:ident => $ty:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name() -> Option<Dispatch> {
            #[cfg(target_arch = $arch)]
            if let Some(t) = cpu::$token::get() {
                return Some(Dispatch(Kind::$ty($ty(t))));
            }
            None
        }
    )*};
}

/// A chosen `gf2m` backend, held: [`Dispatch::run`] runs a [`Computation`]
/// on it. The element methods and operators use [`Dispatch::best`] at
/// every call; tests and benchmarks hold one of [`Dispatch::all`].
#[derive(Clone, Copy, Debug)]
pub struct Dispatch(Kind);

#[derive(Clone, Copy, Debug)]
enum Kind {
    #[cfg(target_arch = "x86_64")]
    VpclmulqdqAvx512(VpclmulqdqAvx512),
    #[cfg(target_arch = "x86_64")]
    VpclmulqdqAvx512XmmSquares(VpclmulqdqAvx512XmmSquares),
    #[cfg(target_arch = "x86_64")]
    VpclmulqdqYmmWide(VpclmulqdqYmmWide),
    #[cfg(target_arch = "x86_64")]
    VpclmulqdqYmm(VpclmulqdqYmm),
    #[cfg(target_arch = "x86_64")]
    Pclmulqdq(Pclmulqdq),
    #[cfg(target_arch = "aarch64")]
    Pmull(Pmull),
    Portable,
}

impl Dispatch {
    /// The fastest backend usable on this CPU under the cap.
    #[inline]
    pub fn best() -> Dispatch {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Avx2Clmul::get() {
            let choice = tuning::choice();
            return Dispatch(match (choice.products, cpu::Avx512Clmul::get()) {
                (_, Some(z)) if choice.wide_squares => Kind::VpclmulqdqAvx512(VpclmulqdqAvx512(z)),
                (_, Some(z)) => Kind::VpclmulqdqAvx512XmmSquares(VpclmulqdqAvx512XmmSquares(z)),
                (tuning::Wide::Always, None) => Kind::VpclmulqdqYmmWide(VpclmulqdqYmmWide(t)),
                (tuning::Wide::WithAvx512, None) => Kind::VpclmulqdqYmm(VpclmulqdqYmm(t)),
            });
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Dispatch(Kind::Pclmulqdq(Pclmulqdq(t)));
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = cpu::NeonAes::get() {
            return Dispatch(Kind::Pmull(Pmull(t)));
        }
        Dispatch(Kind::Portable)
    }

    /// The portable backend.
    pub fn portable() -> Dispatch {
        Dispatch(Kind::Portable)
    }

    /// Whether this is the portable backend (no carry-less instruction).
    pub fn is_portable(self) -> bool {
        matches!(self.0, Kind::Portable)
    }

    backend_constructors! {
        /// The PCLMULQDQ backend, if usable.
        pclmulqdq: "x86_64", Clmul => Pclmulqdq;
        /// The VPCLMULQDQ backend on ymm (AVX2), if usable.
        vpclmulqdq_ymm: "x86_64", Avx2Clmul => VpclmulqdqYmm;
        /// The VPCLMULQDQ backend on ymm with F409's and F571's products and
        /// squares two digits a register, if usable (the one
        /// [`Dispatch::best`] takes where the tuning table names the core).
        vpclmulqdq_ymm_wide: "x86_64", Avx2Clmul => VpclmulqdqYmmWide;
        /// The wide VPCLMULQDQ backend with the linear maps on AVX-512
        /// (`vpternlogq`, half tables), if usable (the one
        /// [`Dispatch::best`] takes where the tuning table names the core
        /// for the wide products and AVX-512 is there).
        vpclmulqdq_avx512: "x86_64", Avx512Clmul => VpclmulqdqAvx512;
        /// [`Dispatch::vpclmulqdq_avx512`] with F409's and F571's squares
        /// one digit an xmm register, if usable (the one [`Dispatch::best`]
        /// takes where the tuning table says so: Intel).
        vpclmulqdq_avx512_xmm_squares: "x86_64", Avx512Clmul => VpclmulqdqAvx512XmmSquares;
        /// The PMULL backend (AArch64 with AES and PMULL), if usable.
        pmull: "aarch64", NeonAes => Pmull;
    }

    /// Every usable backend, best first.
    pub fn all() -> impl Iterator<Item = Dispatch> {
        let choice = tuning::choice();
        let wide = match choice.products {
            tuning::Wide::Always => true,
            tuning::Wide::WithAvx512 => Dispatch::vpclmulqdq_avx512().is_some(),
        };
        let avx512 = if choice.wide_squares {
            [
                Dispatch::vpclmulqdq_avx512(),
                Dispatch::vpclmulqdq_avx512_xmm_squares(),
            ]
        } else {
            [
                Dispatch::vpclmulqdq_avx512_xmm_squares(),
                Dispatch::vpclmulqdq_avx512(),
            ]
        };
        let [first, second] = avx512;
        let ymm = if wide {
            [
                first,
                Dispatch::vpclmulqdq_ymm_wide(),
                Dispatch::vpclmulqdq_ymm(),
                second,
            ]
        } else {
            [
                Dispatch::vpclmulqdq_ymm(),
                Dispatch::vpclmulqdq_ymm_wide(),
                first,
                second,
            ]
        };
        ymm.into_iter()
            .flatten()
            .chain(Dispatch::pclmulqdq())
            .chain(Dispatch::pmull())
            .chain(core::iter::once(Dispatch::portable()))
    }

    /// `vpclmulqdq-avx512`, `vpclmulqdq-avx512-xmm-squares`,
    /// `vpclmulqdq-ymm-wide`, `vpclmulqdq-ymm`,
    /// `pclmulqdq`, `pmull` or `portable`.
    pub fn name(self) -> &'static str {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqAvx512(b) => b.name(),
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqAvx512XmmSquares(b) => b.name(),
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqYmmWide(b) => b.name(),
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqYmm(b) => b.name(),
            #[cfg(target_arch = "x86_64")]
            Kind::Pclmulqdq(b) => b.name(),
            #[cfg(target_arch = "aarch64")]
            Kind::Pmull(b) => b.name(),
            Kind::Portable => Portable.name(),
        }
    }

    /// `computation` compiled for this backend, under its target features.
    #[inline]
    pub fn run<C: Computation>(self, computation: C) -> C::Output {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqAvx512(b) => b.run(computation),
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqAvx512XmmSquares(b) => b.run(computation),
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqYmmWide(b) => b.run(computation),
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqYmm(b) => b.run(computation),
            #[cfg(target_arch = "x86_64")]
            Kind::Pclmulqdq(b) => b.run(computation),
            #[cfg(target_arch = "aarch64")]
            Kind::Pmull(b) => b.run(computation),
            Kind::Portable => computation.run(Portable),
        }
    }

    /// `a·b`.
    #[inline]
    pub fn mul<F: FieldElement>(self, a: &F, b: &F) -> F {
        self.run(one_op::Mul(a, b))
    }

    one_element_ops! {dispatch:
        /// `a²`.
        #[inline]
        square = Square;
        /// `√a`.
        sqrt = Sqrt;
        /// `a^(−1)` (0 for 0).
        invert = Invert;
        /// `a^(−1)` (0 for 0) by Bernstein–Yang divsteps at every m (see
        /// [`Backend::invert_divstep`]); [`Dispatch::invert`] and
        /// [`FieldElement::invert`] take them only at m = 571 on the
        /// x86-64 carry-less backends.
        invert_divstep = InvertDivstep;
        /// The half-trace.
        half_trace = HalfTrace;
    }

    /// `a^(2^k)`.
    pub fn pow2k<F: FieldElement>(self, a: &F, k: usize) -> F {
        self.run(one_op::Pow2k(a, k))
    }

    /// `a^e`.
    pub fn pow<F: FieldElement>(self, a: &F, e: &[u64]) -> F {
        self.run(one_op::Pow(a, e))
    }

    /// `out[i] = a[i]·b[i]`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the slices have one length.
    pub fn mul_slices<F: FieldElement>(
        self,
        out: &mut [F],
        a: &[F],
        b: &[F],
    ) -> Result<(), Gf2mError> {
        self.run(one_op::MulSlices(out, a, b))
    }

    /// `out[i] = a[i]²`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the slices have one length.
    pub fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) -> Result<(), Gf2mError> {
        self.run(one_op::SquareSlices(out, a))
    }

    /// Every element inverted in place (0 stays 0).
    #[cfg(feature = "alloc")]
    pub fn invert_batch<F: FieldElement>(self, v: &mut [F]) {
        let mut scratch = alloc::vec![F::ZERO; v.len()];
        // The scratch has `v`'s length: cannot fail.
        let _ = self.run(one_op::InvertBatch(v, &mut scratch));
    }
}

/// Each of [`Dispatch`]'s single operations as a [`Computation`], so that
/// it runs inside the backend's target features like any other.
mod one_op {
    use super::{Backend, Computation, FieldElement, Gf2mError};

    macro_rules! one_op {
        ($($name:ident<$($lt:lifetime),*>($($ty:ty),*) -> $out:ty = |$b:ident, $($v:ident),*| $body:expr;)*) => {$(
            // `InvertBatch` is for `Dispatch::invert_batch`, which allocates.
            #[cfg_attr(not(feature = "alloc"), allow(dead_code))]
            pub(super) struct $name<$($lt,)* F>($(pub(super) $ty),*);
            impl<$($lt,)* F: FieldElement> Computation for $name<$($lt,)* F> {
                type Output = $out;
                #[inline(always)]
                fn run<B: Backend>(self, $b: B) -> $out {
                    let $name($($v),*) = self;
                    $body
                }
            }
        )*};
    }

    one_op! {
        Mul<'a>(&'a F, &'a F) -> F = |b, x, y| b.mul(x, y);
        Square<'a>(&'a F) -> F = |b, x| b.square(x);
        Sqrt<'a>(&'a F) -> F = |b, x| b.sqrt(x);
        Invert<'a>(&'a F) -> F = |b, x| b.invert(x);
        InvertDivstep<'a>(&'a F) -> F = |b, x| b.invert_divstep(x);
        HalfTrace<'a>(&'a F) -> F = |b, x| b.half_trace(x);
        Pow2k<'a>(&'a F, usize) -> F = |b, x, k| b.pow2k(x, k);
        Pow<'a, 'e>(&'a F, &'e [u64]) -> F = |b, x, e| b.pow(x, e);
        MulSlices<'o, 'a>(&'o mut [F], &'a [F], &'a [F]) -> Result<(), Gf2mError> =
            |b, out, x, y| b.mul_slices(out, x, y);
        SquareSlices<'o, 'a>(&'o mut [F], &'a [F]) -> Result<(), Gf2mError> =
            |b, out, x| b.square_slices(out, x);
        InvertBatch<'o, 's>(&'o mut [F], &'s mut [F]) -> Result<(), Gf2mError> =
            |b, v, scratch| b.invert_batch_with_scratch(v, scratch);
    }
}

fn same_len(expected: usize, actual: usize) -> Result<(), Gf2mError> {
    if expected == actual {
        Ok(())
    } else {
        Err(Gf2mError::Length { expected, actual })
    }
}
