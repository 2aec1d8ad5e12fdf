//! The five NIST fields as fixed types: one macro instantiation each, with
//! the modulus, the word count and the constants derived from the modulus
//! (√x, the trace mask) computed at compile time.
#![forbid(unsafe_code)]
// Addition in characteristic 2 is XOR, and subtraction is addition.
#![allow(clippy::suspicious_arithmetic_impl, clippy::suspicious_op_assign_impl)]

use super::divstep::{Divstep, Plan, plan};
use super::maps::{MapKernel, Quad};
#[cfg(feature = "std")]
use super::words::{TABLE_SLOTS, table_steps};
use super::words::{reduce_limbs, reduce_sparse, split_even_odd, sqrt_x, top_mask, trace_mask};
use super::{Dispatch, FieldElement, FieldKernel, FieldSpec, Gf2mError};
use core::fmt;
use core::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

/// The reduction of a product in the backend's digits: `lanes` folds
/// where the product was computed (xmm lanes for PCLMULQDQ: no round trip
/// through memory), `words` stores the product and folds in general
/// registers (fewer live vector registers: better from 7 words up, where
/// 2W lanes no longer fit in the 16 xmm registers). Chosen per field and
/// operation by `peer-bench --filter gf2m` on an AMD EPYC Zen 3: products
/// in lanes up to 4 words (m = 163: 70 → 59 cycles), squares in lanes up to
/// 5 words (m = 283: 73 → 54). At 7 words a lone square is faster in lanes
/// (69 → 51) but inversion, a loop of them, is not (9 500 → 17 500).
macro_rules! reduce {
    (lanes, $k:expr, $c:expr, $w:literal, $m:literal, $terms:expr) => {
        $k.words(reduce_limbs::<K, $w, { 2 * $w }>($k, $c, $m, $terms))
    };
    (words, $k:expr, $c:expr, $w:literal, $m:literal, $terms:expr) => {
        reduce_sparse::<$w, { 2 * $w }>($k.words($c), $m, $terms)
    };
}

/// A fixed field's batch kernels (x86-64 only): two elements a ymm
/// register ([`FieldSpec`]'s `mul_pair`, `square_pair`) and four a zmm
/// register (`mul_quad`, `square_quad`).
///
/// - `lanes(xmmNNN)`: the field's digit kernels (`xmmfold.rs`'s
///   `mul_lanes` / `square_lanes`) on ymm and zmm lanes, element i in lane
///   i: the single-element kernel by construction.
/// - `limbs(products, squares)`: `gf2x`'s word-lane pair formulas
///   ([`PairLane`](crate::gf2x::PairLane): one word of each of two
///   elements a digit), then the reduction of both products: `lanes` folds
///   both at once in the digits (shifts and XORs on ymm), `words` stores
///   them and folds each in general registers. The quads are two pairs.
///   F233's, whose single kernel is not lane-wise; lanes for both, as
///   `peer-bench --filter batch` chose on a Zen 3.
macro_rules! pair_kernels {
    (lanes($lanes:ident), $w:literal, $m:literal, $mul:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn mul_pair(t: crate::cpu::Avx2Clmul, a: &[Self; 2], b: &[Self; 2], out: &mut [Self; 2]) {
            let [x, y] = out;
            super::$lanes::mul_lanes::<core::arch::x86_64::__m256i>(
                t,
                &[&a[0].0, &a[1].0],
                &[&b[0].0, &b[1].0],
                &mut [&mut x.0, &mut y.0],
            );
        }

        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn square_pair(t: crate::cpu::Avx2Clmul, a: &[Self; 2], out: &mut [Self; 2]) {
            let [x, y] = out;
            super::$lanes::square_lanes::<core::arch::x86_64::__m256i>(
                t,
                &[&a[0].0, &a[1].0],
                &mut [&mut x.0, &mut y.0],
            );
        }

        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn mul_quad(t: crate::cpu::Avx512Clmul, a: &[Self; 4], b: &[Self; 4], out: &mut [Self; 4]) {
            let [x, y, z, w] = out;
            super::$lanes::mul_lanes::<core::arch::x86_64::__m512i>(
                t,
                &[&a[0].0, &a[1].0, &a[2].0, &a[3].0],
                &[&b[0].0, &b[1].0, &b[2].0, &b[3].0],
                &mut [&mut x.0, &mut y.0, &mut z.0, &mut w.0],
            );
        }

        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn square_quad(t: crate::cpu::Avx512Clmul, a: &[Self; 4], out: &mut [Self; 4]) {
            let [x, y, z, w] = out;
            super::$lanes::square_lanes::<core::arch::x86_64::__m512i>(
                t,
                &[&a[0].0, &a[1].0, &a[2].0, &a[3].0],
                &mut [&mut x.0, &mut y.0, &mut z.0, &mut w.0],
            );
        }
    };
    (limbs($products:ident, $squares:ident), $w:literal, $m:literal, $mul:ident) => {
        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn mul_pair(t: crate::cpu::Avx2Clmul, a: &[Self; 2], b: &[Self; 2], out: &mut [Self; 2]) {
            use crate::gf2x::{InlineFixed, InlinePair};
            let k = crate::gf2x::PairLane(t);
            let [a0, a1] = a;
            let [b0, b1] = b;
            let c = k.$mul(&k.pair_limbs(&a0.0, &a1.0), &k.pair_limbs(&b0.0, &b1.0));
            pair_kernels!(@reduce $products, k, c, out, $w, $m, Self::TERMS);
        }

        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn square_pair(t: crate::cpu::Avx2Clmul, a: &[Self; 2], out: &mut [Self; 2]) {
            use crate::gf2x::{InlineFixed, InlinePair};
            let k = crate::gf2x::PairLane(t);
            let [a0, a1] = a;
            let limbs = k.pair_limbs(&a0.0, &a1.0);
            let mut c = [limbs[0]; 2 * $w];
            for (d, &x) in c.as_chunks_mut::<2>().0.iter_mut().zip(&limbs) {
                *d = k.square_limb(x);
            }
            pair_kernels!(@reduce $squares, k, c, out, $w, $m, Self::TERMS);
        }

        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn mul_quad(t: crate::cpu::Avx512Clmul, a: &[Self; 4], b: &[Self; 4], out: &mut [Self; 4]) {
            let ([a0, a1, a2, a3], [b0, b1, b2, b3]) = (*a, *b);
            let (mut lo, mut hi) = ([Self::ZERO; 2], [Self::ZERO; 2]);
            Self::mul_pair(t.avx2_clmul(), &[a0, a1], &[b0, b1], &mut lo);
            Self::mul_pair(t.avx2_clmul(), &[a2, a3], &[b2, b3], &mut hi);
            let ([l0, l1], [h0, h1]) = (lo, hi);
            *out = [l0, l1, h0, h1];
        }

        #[cfg(target_arch = "x86_64")]
        #[inline(always)]
        fn square_quad(t: crate::cpu::Avx512Clmul, a: &[Self; 4], out: &mut [Self; 4]) {
            let [a0, a1, a2, a3] = *a;
            let (mut lo, mut hi) = ([Self::ZERO; 2], [Self::ZERO; 2]);
            Self::square_pair(t.avx2_clmul(), &[a0, a1], &mut lo);
            Self::square_pair(t.avx2_clmul(), &[a2, a3], &mut hi);
            let ([l0, l1], [h0, h1]) = (lo, hi);
            *out = [l0, l1, h0, h1];
        }
    };
    (@reduce lanes, $k:expr, $c:expr, $out:expr, $w:literal, $m:literal, $terms:expr) => {{
        let r = reduce_limbs::<_, $w, { 2 * $w }>($k, $c, $m, $terms);
        let [x, y] = $out;
        $k.pair_store(r, &mut x.0, &mut y.0);
    }};
    (@reduce words, $k:expr, $c:expr, $out:expr, $w:literal, $m:literal, $terms:expr) => {{
        let (mut x, mut y) = ([0u64; 2 * $w], [0u64; 2 * $w]);
        $k.pair_store($c, &mut x, &mut y);
        $out[0].0 = reduce_sparse::<$w, { 2 * $w }>(x, $m, $terms);
        $out[1].0 = reduce_sparse::<$w, { 2 * $w }>(y, $m, $terms);
    }};
}

macro_rules! fixed_field {
    (
        $(#[$doc:meta])*
        $name:ident, m = $m:literal, words = $w:literal, bytes = $bytes:literal,
        terms = [$($term:literal),*], mul = $mul:ident,
        reduce_products = $reduce_mul:ident, reduce_squares = $reduce_sq:ident,
        pairs = $pairs:ident($($pair:ident),*)
        $(, xmm = $xmm:ident)?
        $(, ymm = $ymm:ident)?
    ) => {
        $(#[$doc])*
        ///
        /// `Copy`, so not zeroized on drop (a `Copy` type cannot have a
        /// `Drop`): wipe an element holding a secret with
        /// [`zeroize::Zeroize`] when done with it.
        #[derive(Clone, Copy, Default)]
        pub struct $name([u64; $w]);

        impl $name {
            /// The reduction polynomial's terms below x^m.
            const TERMS: &'static [usize] = &[$($term),*];
            /// The modulus' exponents, highest first.
            const EXPONENTS: &'static [usize] = &[$m, $($term),*];
            /// √x, for the square root.
            const SQRT_X: [u64; $w] = sqrt_x::<$w, { 2 * $w }>($m, Self::TERMS);
            /// The positions of trace one.
            const TRACE_MASK: [u64; $w] = trace_mask::<$w>($m, Self::TERMS);
            /// The valid bits of the top word.
            const TOP: u64 = top_mask($m);
            /// The divstep inversion's constants, from this modulus.
            pub(super) const DIVSTEP_PLAN: Plan<'static, $w> = plan($m, Self::TERMS);
            /// The steps of the inversion chain done by a table (0: none).
            #[cfg(feature = "std")]
            const TABLE_STEPS: [usize; TABLE_SLOTS] = table_steps($m);

            /// The element from its `ceil(m/8)`-byte big-endian octet string
            /// (SEC 1 §2.3.5: the coefficient of x^(m−1) first).
            ///
            /// # Errors
            ///
            /// [`Gf2mError::NotReduced`] if a bit at or above m is set.
            pub fn from_be_bytes(bytes: &[u8; $bytes]) -> Result<$name, Gf2mError> {
                <$name as FieldElement>::from_be_slice(bytes)
            }

            /// The `ceil(m/8)`-byte big-endian octet string (SEC 1 §2.3.5).
            pub fn to_be_bytes(&self) -> [u8; $bytes] {
                let mut out = [0u8; $bytes];
                // Eight bytes a word from the right (the first chunk may be short).
                for (chunk, word) in out.rchunks_mut(8).zip(&self.0) {
                    for (j, byte) in chunk.iter_mut().rev().enumerate() {
                        *byte = (word >> (8 * j)) as u8;
                    }
                }
                out
            }

            /// The element from its words, word 0 lowest (the `gf2x` layout).
            ///
            /// # Errors
            ///
            /// [`Gf2mError::NotReduced`] if a bit at or above m is set.
            pub fn from_words(words: &[u64; $w]) -> Result<$name, Gf2mError> {
                if words[$w - 1] & !Self::TOP != 0 {
                    return Err(Gf2mError::NotReduced { m: $m });
                }
                Ok($name(*words))
            }

            /// The words, word 0 lowest.
            pub fn to_words(&self) -> [u64; $w] {
                self.0
            }

            /// The reduction alone: `c` modulo f, for any `c` of 2·WORDS
            /// words, word 0 lowest, such as the product of two elements
            /// from [`crate::gf2x::mul_fixed`]; with it, a product's two
            /// halves can be timed or combined apart. The word-level fold
            /// on general registers (each word above bit m folded back as
            /// two shifted XORs per term of f − x^m; Hankerson, Menezes and
            /// Vanstone, Algorithms 2.41–2.45), in constant time; the
            /// field product itself may fold in xmm lanes instead
            /// (PCLMULQDQ).
            pub fn reduce_product_words(c: &[u64; 2 * $w]) -> $name {
                $name(reduce_sparse::<$w, { 2 * $w }>(*c, $m, Self::TERMS))
            }
        }

        // The kernels' trait is crate-private; `FieldSpec` is sealed.
        #[allow(private_bounds, private_interfaces)]
        impl FieldSpec for $name {
            #[inline(always)]
            fn mul_k<K: FieldKernel>(k: K, a: &Self, b: &Self) -> Self {
                // The field's own 128-bit-digit kernel, where it has one
                // and the kernels have PCLMULQDQ (known at compile time);
                // two digits a ymm register where the kernels say so.
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.wide() {
                        return $name(super::$ymm::mul(t, &a.0, &b.0));
                    }
                )?
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.clmul() {
                        return $name(super::$xmm::mul(t, &a.0, &b.0));
                    }
                )?
                let c = k.$mul(&k.limbs(&a.0), &k.limbs(&b.0));
                $name(reduce!($reduce_mul, k, c, $w, $m, Self::TERMS))
            }

            pair_kernels!($pairs($($pair),*), $w, $m, $mul);

            #[inline(always)]
            // Field arithmetic on `[u64; $w]` arrays, `i < $w` (not input handling):
            // left as they were (rewritten, the timings moved ±10 % both ways, Zen 3).
            #[allow(clippy::indexing_slicing)]
            fn square_k<K: FieldKernel>(k: K, a: &Self) -> Self {
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.wide_squares() {
                        return $name(super::$ymm::square(t, &a.0));
                    }
                )?
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.clmul() {
                        return $name(super::$xmm::square(t, &a.0));
                    }
                )?
                let limbs = k.limbs(&a.0);
                let mut c = [limbs[0]; 2 * $w];
                for (i, &x) in limbs.iter().enumerate() {
                    let [lo, hi] = k.square_limb(x);
                    c[2 * i] = lo;
                    c[2 * i + 1] = hi;
                }
                $name(reduce!($reduce_sq, k, c, $w, $m, Self::TERMS))
            }

            #[inline(always)]
            fn square_n_k<K: FieldKernel>(k: K, a: &Self, n: usize) -> Self {
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.wide_squares() {
                        return $name(super::$ymm::square_n(t, &a.0, n));
                    }
                )?
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.clmul() {
                        return $name(super::$xmm::square_n(t, &a.0, n));
                    }
                )?
                let mut r = *a;
                for _ in 0..n {
                    r = Self::square_k(k, &r);
                }
                r
            }

            #[inline(always)]
            // Field arithmetic on `[u64; $w]` arrays, `i < $w` (not input handling):
            // left as they were (rewritten, the timings moved ±10 % both ways, Zen 3).
            #[allow(clippy::indexing_slicing)]
            fn sqrt_k<K: FieldKernel>(k: K, a: &Self) -> Self {
                $(
                    #[cfg(target_arch = "x86_64")]
                    if let Some(t) = k.clmul() {
                        return $name(super::$xmm::sqrt(t, &a.0, &Self::SQRT_X));
                    }
                )?
                // a = e(x²) + x·o(x²), so √a = e(x) + √x·o(x).
                let (e, o) = split_even_odd(&a.0);
                let p = Self::mul_k(k, &$name(Self::SQRT_X), &$name(o));
                $name(core::array::from_fn(|i| e[i] ^ p.0[i]))
            }

            #[cfg(feature = "std")]
            fn frobenius_table(k: usize) -> Option<&'static [Quad]> {
                use std::sync::OnceLock;
                static TABLES: [OnceLock<std::vec::Vec<Quad>>; TABLE_SLOTS] =
                    [const { OnceLock::new() }; TABLE_SLOTS];
                let at = Self::TABLE_STEPS.iter().position(|&s| s == k && s != 0)?;
                Some(TABLES.get(at)?.get_or_init(|| super::tables::frobenius_table::<$name>(k)))
            }

            #[cfg(not(feature = "std"))]
            fn frobenius_table(_: usize) -> Option<&'static [Quad]> {
                None
            }

            #[cfg(feature = "std")]
            fn frobenius_half_table(k: usize) -> Option<(&'static [Quad], Self)> {
                use std::sync::OnceLock;
                type Half = (std::vec::Vec<Quad>, $name);
                static TABLES: [OnceLock<Half>; TABLE_SLOTS] = [const { OnceLock::new() }; TABLE_SLOTS];
                let at = Self::TABLE_STEPS.iter().position(|&s| s == k && s != 0)?;
                let (table, shift) = TABLES
                    .get(at)?
                    .get_or_init(|| super::tables::frobenius_half_table::<$name>(k));
                Some((table.as_slice(), *shift))
            }

            #[cfg(not(feature = "std"))]
            fn frobenius_half_table(_: usize) -> Option<(&'static [Quad], Self)> {
                None
            }

            #[inline(always)]
            fn apply_half_map_k<K: MapKernel + FieldKernel>(
                k: K,
                table: &[Quad],
                shift: &Self,
                a: &Self,
            ) -> Self {
                // a = e(x)² + x·o(x)²: a^(2^k) = e^(2^(k+1)) + x^(2^k)·o^(2^(k+1)).
                let (e, o) = split_even_odd(&a.0);
                let (pe, po) = k.apply_pair::<$w>(table, &e, &o);
                let odd = Self::mul_k(k, &$name(po), shift);
                $name(pe) + odd
            }

            #[cfg(feature = "std")]
            fn half_trace_table() -> Option<&'static [Quad]> {
                static TABLE: std::sync::OnceLock<std::vec::Vec<Quad>> = std::sync::OnceLock::new();
                Some(TABLE.get_or_init(super::tables::half_trace_table::<$name>))
            }

            #[cfg(not(feature = "std"))]
            fn half_trace_table() -> Option<&'static [Quad]> {
                None
            }

            #[inline(always)]
            fn apply_map_k<K: MapKernel>(k: K, table: &[Quad], a: &Self) -> Self {
                $name(k.apply::<$w>(table, &a.0))
            }

            #[inline(always)]
            fn invert_divstep_k<K: Divstep>(k: K, a: &Self) -> Self {
                let mut d = k.invert_words::<$w, { $w + 1 }>(&a.0, &Self::DIVSTEP_PLAN);
                // Reduced already (the fold clears the bits from m on); the
                // mask keeps the type's invariant without a check.
                d[$w - 1] &= Self::TOP;
                $name(d)
            }
        }

        impl FieldElement for $name {
            const M: usize = $m;
            const WORDS: usize = $w;
            const BYTES: usize = $bytes;
            const ZERO: $name = $name([0; $w]);
            const ONE: $name = {
                let mut one = [0u64; $w];
                one[0] = 1;
                $name(one)
            };

            fn modulus_exponents() -> &'static [usize] {
                Self::EXPONENTS
            }

            fn from_word_slice(words: &[u64]) -> Result<$name, Gf2mError> {
                let words: &[u64; $w] = words.try_into().map_err(|_| Gf2mError::Length {
                    expected: $w,
                    actual: words.len(),
                })?;
                $name::from_words(words)
            }

            fn as_words(&self) -> &[u64] {
                &self.0
            }

            fn from_be_slice(bytes: &[u8]) -> Result<$name, Gf2mError> {
                if bytes.len() != $bytes {
                    return Err(Gf2mError::Length { expected: $bytes, actual: bytes.len() });
                }
                let mut w = [0u64; $w];
                // Eight bytes a word from the right (the first chunk may be
                // short); `bytes.len() == $bytes <= 8·$w`.
                for (word, chunk) in w.iter_mut().zip(bytes.rchunks(8)) {
                    for &byte in chunk {
                        *word = (*word << 8) | u64::from(byte);
                    }
                }
                $name::from_words(&w)
            }

            fn write_be_bytes(&self, out: &mut [u8]) -> Result<(), Gf2mError> {
                let actual = out.len();
                let out: &mut [u8; $bytes] = out
                    .try_into()
                    .map_err(|_| Gf2mError::Length { expected: $bytes, actual })?;
                *out = self.to_be_bytes();
                Ok(())
            }

            fn random<R: rand_core::Rng + ?Sized>(rng: &mut R) -> $name {
                let mut w = [0u64; $w];
                for x in &mut w {
                    *x = rng.next_u64();
                }
                w[$w - 1] &= Self::TOP;
                $name(w)
            }

            #[inline]
            fn square(&self) -> $name {
                Dispatch::best().square(self)
            }

            fn invert(&self) -> CtOption<$name> {
                let inv = Dispatch::best().invert(self);
                CtOption::new(inv, !self.is_zero())
            }

            fn sqrt(&self) -> $name {
                Dispatch::best().sqrt(self)
            }

            fn trace(&self) -> Choice {
                let mut t = 0u64;
                for (x, m) in self.0.iter().zip(Self::TRACE_MASK.iter()) {
                    t ^= x & m;
                }
                Choice::from((t.count_ones() & 1) as u8)
            }

            fn half_trace(&self) -> $name {
                Dispatch::best().half_trace(self)
            }

            fn pow(&self, exponent: &[u64]) -> $name {
                Dispatch::best().pow(self, exponent)
            }

            fn pow2k(&self, k: usize) -> $name {
                Dispatch::best().pow2k(self, k)
            }

            fn is_zero(&self) -> Choice {
                self.ct_eq(&Self::ZERO)
            }
        }

        impl ConstantTimeEq for $name {
            fn ct_eq(&self, other: &$name) -> Choice {
                self.0.ct_eq(&other.0)
            }
        }

        impl ConditionallySelectable for $name {
            // Field arithmetic on `[u64; $w]` arrays, `i < $w` (not input handling):
            // left as they were (rewritten, the timings moved ±10 % both ways, Zen 3).
            #[allow(clippy::indexing_slicing)]
            fn conditional_select(a: &$name, b: &$name, choice: Choice) -> $name {
                $name(core::array::from_fn(|i| u64::conditional_select(&a.0[i], &b.0[i], choice)))
            }
        }

        /// Equality in constant time ([`ConstantTimeEq`]).
        impl PartialEq for $name {
            fn eq(&self, other: &$name) -> bool {
                self.ct_eq(other).into()
            }
        }

        impl Eq for $name {}

        /// Overwrites the element with zero (volatile writes). The fixed
        /// elements are `Copy`, so they cannot be zeroized on drop: wipe a
        /// secret one yourself when done with it.
        impl zeroize::Zeroize for $name {
            fn zeroize(&mut self) {
                zeroize::Zeroize::zeroize(&mut self.0);
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:x})"), self)
            }
        }

        /// The big-endian octet string in hexadecimal, `2·ceil(m/8)` digits.
        impl fmt::LowerHex for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for b in self.to_be_bytes() {
                    write!(f, "{b:02x}")?;
                }
                Ok(())
            }
        }

        /// As [`LowerHex`](fmt::LowerHex).
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::LowerHex::fmt(self, f)
            }
        }

        /// Hexadecimal, big-endian, at most `2·ceil(m/8)` digits (fewer
        /// are zero-extended on the left), either case, optional `0x`.
        impl core::str::FromStr for $name {
            type Err = Gf2mError;
            fn from_str(s: &str) -> Result<$name, Gf2mError> {
                let mut bytes = [0u8; $bytes];
                super::parse_hex(s, &mut bytes)?;
                $name::from_be_bytes(&bytes)
            }
        }

        impl Add for $name {
            type Output = $name;
            #[inline]
            // Field arithmetic on `[u64; $w]` arrays, `i < $w` (not input handling):
            // left as they were (rewritten, the timings moved ±10 % both ways, Zen 3).
            #[allow(clippy::indexing_slicing)]
            fn add(self, rhs: $name) -> $name {
                $name(core::array::from_fn(|i| self.0[i] ^ rhs.0[i]))
            }
        }

        impl AddAssign for $name {
            #[inline]
            fn add_assign(&mut self, rhs: $name) {
                for (x, y) in self.0.iter_mut().zip(rhs.0) {
                    *x ^= y;
                }
            }
        }

        /// Subtraction is addition in characteristic 2.
        impl Sub for $name {
            type Output = $name;
            #[inline]
            fn sub(self, rhs: $name) -> $name {
                self + rhs
            }
        }

        impl SubAssign for $name {
            #[inline]
            fn sub_assign(&mut self, rhs: $name) {
                *self = *self - rhs;
            }
        }

        /// −a = a in characteristic 2.
        impl Neg for $name {
            type Output = $name;
            #[inline]
            fn neg(self) -> $name {
                self
            }
        }

        impl Mul for $name {
            type Output = $name;
            #[inline]
            fn mul(self, rhs: $name) -> $name {
                Dispatch::best().mul(&self, &rhs)
            }
        }

        impl MulAssign for $name {
            #[inline]
            fn mul_assign(&mut self, rhs: $name) {
                *self = Dispatch::best().mul(self, &rhs);
            }
        }
    };
}

/// [`fixed_field!`] for each braced field description.
macro_rules! fixed_fields {
    ($({ $($field:tt)* })*) => {
        $(fixed_field!($($field)*);)*
    };
}

// The five NIST fields, one invocation (each in braces).
fixed_fields! {
    {
        /// GF(2^163) = GF(2)\[x\]/(x^163 + x^7 + x^6 + x^3 + 1), the field of
        /// B-163 and K-163 (FIPS 186-4 D.1.3.1), on 3 words.
        ///
        /// ```
        /// use fieldwork::gf2m::{F163, FieldElement};
        ///
        /// let a: F163 = "0x03f0eba16286a2d57ea0991168d4994637e8343e36".parse()?;
        /// let inv = a.invert().unwrap();
        /// assert_eq!(a * inv, F163::ONE);
        /// assert_eq!(a.sqrt().square(), a);
        /// # Ok::<(), fieldwork::gf2m::Gf2mError>(())
        /// ```
        F163, m = 163, words = 3, bytes = 21, terms = [7, 6, 3, 0], mul = mul3,
        reduce_products = lanes, reduce_squares = lanes, pairs = lanes(xmm163), xmm = xmm163
    }
    {
        /// GF(2^233) = GF(2)\[x\]/(x^233 + x^74 + 1), the field of B-233 and
        /// K-233 (FIPS 186-4 D.1.3.2), on 4 words.
        F233, m = 233, words = 4, bytes = 30, terms = [74, 0], mul = mul4,
        reduce_products = lanes, reduce_squares = lanes, pairs = limbs(lanes, lanes), xmm = xmm233
    }
    {
        /// GF(2^283) = GF(2)\[x\]/(x^283 + x^12 + x^7 + x^5 + 1), the field of
        /// B-283 and K-283 (FIPS 186-4 D.1.3.3), on 5 words.
        F283, m = 283, words = 5, bytes = 36, terms = [12, 7, 5, 0], mul = mul5,
        reduce_products = words, reduce_squares = lanes, pairs = lanes(xmm283), xmm = xmm283
    }
    {
        /// GF(2^409) = GF(2)\[x\]/(x^409 + x^87 + 1), the field of B-409 and
        /// K-409 (FIPS 186-4 D.1.3.4), on 7 words.
        F409, m = 409, words = 7, bytes = 52, terms = [87, 0], mul = mul7,
        reduce_products = words, reduce_squares = words, pairs = lanes(xmm409), xmm = xmm409, ymm = ymm409
    }
    {
        /// GF(2^571) = GF(2)\[x\]/(x^571 + x^10 + x^5 + x^2 + 1), the field of
        /// B-571 and K-571 (FIPS 186-4 D.1.3.5), on 9 words.
        F571, m = 571, words = 9, bytes = 72, terms = [10, 5, 2, 0], mul = mul9,
        reduce_products = words, reduce_squares = words, pairs = lanes(xmm571), xmm = xmm571, ymm = ymm571
    }
}
