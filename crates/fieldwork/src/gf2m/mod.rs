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
//!   function per backend.
//! - **Batches** (`mul_slices`, `square_slices`) on VPCLMULQDQ: two
//!   elements per ymm instruction, element i in the low 128-bit lane and
//!   element i + 1 in the high one, through the same formulas and fold
//!   (below).
//! - **Reduction**: word-level shift-and-add for the sparse modulus
//!   (Hankerson, Menezes and Vanstone, *Guide to Elliptic Curve
//!   Cryptography*, Algorithms 2.41–2.45): each word above bit m is folded
//!   back as two shifted XORs per term of f − x^m. Written once
//!   (`words::reduce_sparse`) and unrolled per modulus by the compiler.
//! - **Squaring**: linear — one carry-less square per word (or bit
//!   spreading, portable), then the reduction.
//! - **Inversion**: on the carry-less backends from m = 283, Bernstein–Yang
//!   divsteps in batches of up to 55 on one word, the batch's 2 × 2 matrix
//!   applied by carry-less products (`divstep.rs`); otherwise Itoh–Tsujii
//!   over the binary addition chain of m − 1 (m − 1 squarings,
//!   ⌊log₂(m−1)⌋ + popcount(m−1) − 1 products), whose steps a ↦ a^(2^k)
//!   with k ≥ m/20 (four per field: k = 10, 20, 40, 81 at m = 163; 35,
//!   71, 142, 285 at m = 571) are precomputed GF(2)-linear maps applied
//!   with masks (`maps.rs`), the others squarings. 0 maps to 0 and
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
//! | `vpclmulqdq-ymm` | VPCLMULQDQ, AVX2, PCLMULQDQ, SSE4.1 | `pclmulqdq` (VEX); batches: `vpclmulqdq` on ymm, two elements per instruction |
//! | `pclmulqdq` | PCLMULQDQ, SSE4.1 | `pclmulqdq` |
//! | `portable` | nothing | masked integer multiplication |
//!
//! Chosen once per call of a public operation by [`Backend::best`] (a
//! cached load; a compound operation such as `invert` runs its whole loop
//! inside one backend function).
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
//! `cargo run --release -p peer-bench --features system-peers -- --filter
//! gf2m` measures each operation against NTL's `GF2E` and OpenSSL's
//! `BN_GF2m_*` (chained calls); `docs/benchmarks/amd-epyc-f25m1.md` has
//! the generated table. On an AMD EPYC Zen 3 (family 25 model 1, PCLMULQDQ
//! backend), 2026-11-22/23: mul 10–15× NTL and 3.8–5.5× OpenSSL; square
//! 3.0–4.6× NTL; sqrt several hundred times either (they exponentiate);
//! invert 1.8–3.4× NTL and 6–14× OpenSSL (below); m = 163: mul 58 cycles,
//! square 49, invert 1 245, half-trace 140; m = 571: mul 190, square 95,
//! invert 11 200, half-trace 1 250.
//!
//! What a product costs against its parts (`--filter "parts of mul"`, same
//! CPU, 2026-11-23, each chained through memory; the `gf2x` product on the
//! best backend, `vpclmulqdq-ymm` there): m = 163 fused 58.6 cycles, the
//! 3-word product alone 48.6, the word-level reduction alone 44.2;
//! m = 571: 190, 154 and 90. The fused product costs 0.61–0.90 of its
//! parts taken one after the other: inlined together, the product stays in
//! registers and the fold overlaps its last multiplications.
//!
//! Batches, `cargo run --release -p peer-bench --features system-peers --
//! --filter batch` (AMD EPYC Zen 3, family 25 model 1, 2026-11-23; rows
//! `m=… batch mul ×1024` and `batch square ×1024`, elements per second,
//! `mul_slices` on `vpclmulqdq-ymm` against the column `fieldwork one at a
//! time`, the public `a[i] * b[i]` in a loop):
//!
//! | m | batch mul | one at a time | × | cycles/element | batch square × |
//! |---|---|---|---|---|---|
//! | 163 | 170 M/s | 75 M/s | 2.26 | 18.9 | 1.78 |
//! | 233 | 161 M/s | 70 M/s | 2.29 | 19.9 | 2.09 |
//! | 283 | 94 M/s | 45 M/s | 2.08 | 34.2 | 1.72 |
//! | 409 | 65 M/s | 29 M/s | 2.27 | 49.1 | 2.29 |
//! | 571 | 34 M/s | 19 M/s | 1.83 | 94.0 | 1.39 |
//!
//! (The `pclmulqdq` backend's own `mul_slices`, one element per
//! instruction, is 1.7–2.0× slower than the pairs.) A chained product is
//! unchanged by the backend: m = 163 57 cycles, 409 125, 571 176–188.
//!
//! Rejected (Zen 3, `peer-bench --filter gf2m`):
//! - The `gf2x` ymm limb kernels (4 words per register) for the 7 and
//!   9-word field products, folded in general registers: m = 409 mul
//!   91–98 ticks against 93 on xmm lanes, m = 571 147 against 144, and
//!   m = 409 `invert` 2× slower (the product goes through memory).
//! - Folding the pairs in general registers at 7 words: m = 409 batch mul
//!   19.2 µs against 15.7 in ymm lanes; in ymm lanes at 9 words: m = 571
//!   52 against 32.7 µs (products), 31.2 against 18.3 (squares).
//! - The pairs' 9-word product by the three-term formula (36 products):
//!   32.7 µs against 30.1 for Karatsuba 5 + 4; the three-term products
//!   added into the result one by one: 40.6.
//! - The xmm lanes' schoolbook 3-word product (9) in the pairs: m = 163
//!   6.5 µs against 6.0 for the three-term formula (6).
//! - At m = 571, the product of the next pair before the fold of the
//!   previous one (so the scalar fold overlaps the `vpclmulqdq`s): 34.4 µs
//!   against 30.1; two pairs per loop iteration: no change.
//!
//! Inversion is the operation furthest from its target (4× NTL): NTL's is
//! a variable-time extended Euclid, ours constant time. `peer-bench
//! --filter invert` (Zen 3, 2026-11-23, TSC ticks): 943 / 1 343 / 2 321 /
//! 3 449 / 5 076 at m = 163 / 233 / 283 / 409 / 571 (Itoh–Tsujii with maps
//! at 163 and 233, divsteps from 283), 3.1 / 3.4 / 2.5 / 2.7 / 3.0× NTL and
//! 10–14× OpenSSL. Itoh–Tsujii's floor is its latency chain: at m = 163,
//! 9 products (about 30 cycles each in the chain), 11 single squarings
//! (about 20) and 4 maps of 41 groups × (1 shift, 3 blends, 3 XORs) = 287
//! vector instructions (about 110 cycles: two blend pipes, table in L1) —
//! about 940 cycles: 4× NTL (960) would take the floor itself. At m = 571
//! it would be about 8 500 (13 products, 37 squarings, 4 maps whose 41 KiB
//! tables stream from L2); the divsteps take 6 600 cycles there: 1 155
//! steps at about 4.3 cycles (13 integer operations a step, a 3-cycle
//! chain) and 21 batch products of about 80 (`divstep.rs`), and could
//! reach about 3 500 if the products overlapped the steps (they did not,
//! measured). A map costs as much as 5 (m = 163) to 20 (m = 571)
//! squarings (`words::TABLE_DIV`).
//!
//! Against Pornin's constant-time GF(2^233) (c-xs233, ePrint 2022/1325,
//! the reference issue 24 names; `scripts/fetch-xs233.sh`, then
//! `cargo run --release -p peer-bench --features system-peers,xs233 --
//! --filter m=233`; `docs/benchmarks/amd-epyc-f25m1.md` at b82fb78, Zen 3,
//! estimated cycles, ours ÷ theirs): invert 1 655 against 2 478 (1.50×
//! faster), half-trace 216 against 332 (1.54×), 1 024 products by
//! `mul_slices` 20 417 against 29 371 (1.44×); a lone product 63 against
//! 32, a square 40 against 20, a square root 83 against 41 (0.50×
//! each). F233 has c-xs233's representation on the carry-less backends
//! (`xmm233.rs`: two xmm digits, a fold through x^256) and inside one call
//! a square and a product chain in about 60 cycles (`--example
//! gf2m_pow`: 19 ns a bit), near c-xs233's 20 + 32; the larger difference
//! is the call: its functions are `static inline` in the caller's loop,
//! each of ours is a dispatched call whose operands and
//! result go through memory (about 25 cycles). The compound operations
//! (`invert`, `half_trace`, `pow`, the batches) pay that once.
//!
//! Rejected: a 4-bit window for the Frobenius tables (a secret table
//! index); the masked XOR without `black_box` (the compiler made it a branch
//! on the secret bit — found in the disassembly).

mod algorithms;
#[cfg(target_arch = "x86_64")]
mod clmul;
mod divstep;
mod fixed;
mod maps;
#[cfg(feature = "alloc")]
pub mod normal;
#[cfg(feature = "alloc")]
mod runtime;
#[cfg(feature = "std")]
mod tables;
mod words;
#[cfg(target_arch = "x86_64")]
mod xmm233;
#[cfg(target_arch = "x86_64")]
mod ymm;

pub use fixed::{F163, F233, F283, F409, F571};
#[cfg(feature = "alloc")]
pub use runtime::{BinaryField, Element};

use crate::gf2x::{InlineFixed, PortableWord};
use algorithms::Arith;
use core::fmt;
use core::marker::PhantomData;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

#[cfg(target_arch = "x86_64")]
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
    use crate::gf2x::InlinePair;

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
        /// `out[i] = a[i]·b[i]` for both `i`, in the same instructions
        /// (the two slots of `k`'s digits).
        fn mul_pair_k<K: InlinePair>(k: K, a: &[Self; 2], b: &[Self; 2], out: &mut [Self; 2]);
        /// `out[i] = a[i]²` for both `i`, in the same instructions.
        fn square_pair_k<K: InlinePair>(k: K, a: &[Self; 2], out: &mut [Self; 2]);
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
        /// `a^(−1)` (0 for 0) by divsteps on the kernels of `k`, with the
        /// field's plan (`divstep.rs`).
        fn invert_divstep_k<K: Divstep>(k: K, a: &Self) -> Self;
    }
}
use private::FieldSpec;

/// A backend's kernels as the fields see them: `gf2x`'s inlinable fixed
/// products, and whether they may also use PCLMULQDQ on whole xmm
/// registers, for a field's own 128-bit-digit kernels (`xmm233.rs`). The
/// answer is a property of the kernel type, so the choice vanishes at
/// compile time.
pub(crate) trait FieldKernel: InlineFixed {
    /// The PCLMULQDQ token when these kernels run with it.
    #[cfg(target_arch = "x86_64")]
    fn clmul(self) -> Option<cpu::Clmul>;
}

impl FieldKernel for PortableWord {
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn clmul(self) -> Option<cpu::Clmul> {
        None
    }
}

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
        Backend::best().mul_slices(out, a, b)
    }

    /// `out[i] = a[i]²`, with the backend chosen once for the batch.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the two slices have one length.
    fn square_slices(out: &mut [Self], a: &[Self]) -> Result<(), Gf2mError> {
        Backend::best().square_slices(out, a)
    }

    /// Replaces every element by its inverse, 0 by 0, with one inversion
    /// and 3 products per element (Montgomery's trick), in constant time.
    #[cfg(feature = "alloc")]
    fn invert_batch(elements: &mut [Self]) {
        Backend::best().invert_batch(elements)
    }
}

/// A fixed field's arithmetic on the kernels `K`, for the generic
/// algorithms.
#[derive(Clone, Copy)]
struct FixedArith<F, K>(K, PhantomData<F>);

impl<F: FieldElement, K: divstep::Divstep> Arith for FixedArith<F, K> {
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
        match F::frobenius_table(k) {
            Some(table) => F::apply_map_k(self.0, table, a),
            None => algorithms::pow2k_by_squaring(self, a, k),
        }
    }
    #[inline(always)]
    fn invert(&self, a: &F) -> F {
        ops::invert(self.0, a)
    }
    #[inline(always)]
    fn half_trace(&self, c: &F) -> F {
        match F::half_trace_table() {
            Some(table) => F::apply_map_k(self.0, table, c),
            None => algorithms::half_trace_by_squaring(self, c),
        }
    }
}

/// The whole of one operation on the kernels `K`: the bodies every backend
/// compiles (the accelerated ones inside their `#[target_feature]` entry
/// points).
mod ops {
    use super::FieldKernel;
    use super::algorithms;
    use super::divstep::Divstep;
    use super::{FieldElement, FixedArith};
    use crate::gf2x::InlinePair;
    use core::marker::PhantomData;

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
    pub(super) fn mul_slices<F: FieldElement, K: FieldKernel>(
        k: K,
        out: &mut [F],
        a: &[F],
        b: &[F],
    ) {
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
    /// [`mul_slices`] two elements at a time on the pair kernels `p`; an odd
    /// last element on the single kernels `k`. (The slices have one
    /// length, checked by the caller; it is public.)
    #[inline(always)]
    pub(super) fn mul_slices_pairs<F: FieldElement, P: InlinePair, K: FieldKernel>(
        p: P,
        k: K,
        out: &mut [F],
        a: &[F],
        b: &[F],
    ) {
        let (out2, out1) = out.as_chunks_mut::<2>();
        let (a2, a1) = a.as_chunks::<2>();
        let (b2, b1) = b.as_chunks::<2>();
        for ((o, x), y) in out2.iter_mut().zip(a2).zip(b2) {
            F::mul_pair_k(p, x, y, o);
        }
        mul_slices(k, out1, a1, b1);
    }
    /// [`square_slices`] two elements at a time on the pair kernels `p`.
    #[inline(always)]
    pub(super) fn square_slices_pairs<F: FieldElement, P: InlinePair, K: FieldKernel>(
        p: P,
        k: K,
        out: &mut [F],
        a: &[F],
    ) {
        let (out2, out1) = out.as_chunks_mut::<2>();
        let (a2, a1) = a.as_chunks::<2>();
        for (o, x) in out2.iter_mut().zip(a2) {
            F::square_pair_k(p, x, o);
        }
        square_slices(k, out1, a1);
    }
    #[cfg(feature = "alloc")]
    #[inline(always)]
    pub(super) fn invert_batch<F: FieldElement, K: Divstep>(k: K, v: &mut [F], scratch: &mut [F]) {
        algorithms::invert_batch(&arith::<F, K>(k), v, scratch, |x| x.is_zero());
    }
}

/// A chosen `gf2m` backend: the fixed fields' operations with the dispatch
/// done once (for tests and benchmarks; the element methods use
/// [`Backend::best`]).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Backend(Kind);

#[derive(Clone, Copy, Debug)]
enum Kind {
    #[cfg(target_arch = "x86_64")]
    VpclmulqdqYmm(cpu::Avx2Clmul),
    #[cfg(target_arch = "x86_64")]
    Pclmulqdq(cpu::Clmul),
    Portable,
}

/// One operation on the chosen backend: the `#[target_feature]` entry
/// point of an accelerated backend, or the portable body.
macro_rules! dispatch {
    ($self:expr, $op:ident($($arg:expr),*)) => {
        match $self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqYmm(t) => ymm::$op(t, $($arg),*),
            #[cfg(target_arch = "x86_64")]
            Kind::Pclmulqdq(t) => clmul::$op(t, $($arg),*),
            Kind::Portable => ops::$op(PortableWord, $($arg),*),
        }
    };
}

impl Backend {
    /// The fastest backend usable on this CPU under the cap.
    #[inline]
    pub fn best() -> Backend {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Avx2Clmul::get() {
            return Backend(Kind::VpclmulqdqYmm(t));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Backend(Kind::Pclmulqdq(t));
        }
        Backend(Kind::Portable)
    }

    /// The portable backend.
    pub fn portable() -> Backend {
        Backend(Kind::Portable)
    }

    /// The PCLMULQDQ backend, if usable.
    pub fn pclmulqdq() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Some(Backend(Kind::Pclmulqdq(t)));
        }
        None
    }

    /// The VPCLMULQDQ backend on ymm (AVX2), if usable.
    pub fn vpclmulqdq_ymm() -> Option<Backend> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Avx2Clmul::get() {
            return Some(Backend(Kind::VpclmulqdqYmm(t)));
        }
        None
    }

    /// Every usable backend, best first.
    pub fn all() -> impl Iterator<Item = Backend> {
        Backend::vpclmulqdq_ymm()
            .into_iter()
            .chain(Backend::pclmulqdq())
            .chain(core::iter::once(Backend::portable()))
    }

    /// `vpclmulqdq-ymm`, `pclmulqdq` or `portable`.
    pub fn name(self) -> &'static str {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Kind::VpclmulqdqYmm(_) => "vpclmulqdq-ymm",
            #[cfg(target_arch = "x86_64")]
            Kind::Pclmulqdq(_) => "pclmulqdq",
            Kind::Portable => "portable",
        }
    }

    /// `a·b`.
    #[inline]
    pub fn mul<F: FieldElement>(self, a: &F, b: &F) -> F {
        dispatch!(self, mul(a, b))
    }

    /// `a²`.
    #[inline]
    pub fn square<F: FieldElement>(self, a: &F) -> F {
        dispatch!(self, square(a))
    }

    /// `√a`.
    pub fn sqrt<F: FieldElement>(self, a: &F) -> F {
        dispatch!(self, sqrt(a))
    }

    /// `a^(−1)` (0 for 0).
    pub fn invert<F: FieldElement>(self, a: &F) -> F {
        dispatch!(self, invert(a))
    }

    /// `a^(−1)` (0 for 0) by Bernstein–Yang divsteps (`divstep.rs`): the
    /// candidate measured against [`Backend::invert`] (issue 24), not used by
    /// [`FieldElement::invert`].
    #[doc(hidden)]
    pub fn invert_divstep<F: FieldElement>(self, a: &F) -> F {
        dispatch!(self, invert_divstep(a))
    }

    /// The half-trace.
    pub fn half_trace<F: FieldElement>(self, a: &F) -> F {
        dispatch!(self, half_trace(a))
    }

    /// `a^(2^k)`.
    pub fn pow2k<F: FieldElement>(self, a: &F, k: usize) -> F {
        dispatch!(self, pow2k(a, k))
    }

    /// `a^e`.
    pub fn pow<F: FieldElement>(self, a: &F, e: &[u64]) -> F {
        dispatch!(self, pow(a, e))
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
        same_len(out.len(), a.len())?;
        same_len(out.len(), b.len())?;
        dispatch!(self, mul_slices(out, a, b));
        Ok(())
    }

    /// `out[i] = a[i]²`.
    ///
    /// # Errors
    ///
    /// [`Gf2mError::Length`] unless the slices have one length.
    pub fn square_slices<F: FieldElement>(self, out: &mut [F], a: &[F]) -> Result<(), Gf2mError> {
        same_len(out.len(), a.len())?;
        dispatch!(self, square_slices(out, a));
        Ok(())
    }

    /// Every element inverted in place (0 stays 0).
    #[cfg(feature = "alloc")]
    pub fn invert_batch<F: FieldElement>(self, v: &mut [F]) {
        let mut scratch = alloc::vec![F::ZERO; v.len()];
        dispatch!(self, invert_batch(v, &mut scratch));
    }
}

fn same_len(expected: usize, actual: usize) -> Result<(), Gf2mError> {
    if expected == actual {
        Ok(())
    } else {
        Err(Gf2mError::Length { expected, actual })
    }
}
