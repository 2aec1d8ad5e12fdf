//! Multiplication algorithms over GF(2)\[x\], generic over the 64×64-bit
//! carry-less multiplier, so that every backend runs the same formulas.
//!
//! A backend supplies a [`WordMul`] (one 64×64→128 product). The fixed-size
//! kernels here are `#[inline(always)]`, so a backend's `#[target_feature]`
//! entry point that calls them gets the whole formula compiled with its
//! instructions; the recursive algorithms for larger sizes call back into the
//! backend's fixed-size entry points through `Backend::fixed`.
//!
//! # Fixed sizes (1–9 words)
//!
//! | words | default formula | word products |
//! |---|---|---|
//! | 1 | one product | 1 |
//! | 2 | Karatsuba | 3 |
//! | 3 | three-term Karatsuba-like formula | 6 |
//! | 4 | Karatsuba over 2 + 2 | 9 |
//! | 5 | Karatsuba over 3 + 2 | 15 |
//! | 6 | Karatsuba over 3 + 3 | 18 |
//! | 7 | Karatsuba over 4 + 3 | 24 |
//! | 8 | Karatsuba over 4 + 4 | 27 |
//! | 9 | three-term formula over 3-word pieces | 36 |
//!
//! The three-term formula (Su & Fan, IPL 2012, section 3, formula (1); also
//! Montgomery, IEEE TC 2005): with `mᵢ = aᵢbᵢ` and `mᵢⱼ = (aᵢ+aⱼ)(bᵢ+bⱼ)`,
//!
//! ```text
//! c0 = m0
//! c1 = m01 + m0 + m1
//! c2 = m02 + m0 + m1 + m2
//! c3 = m12 + m1 + m2
//! c4 = m2
//! ```
//!
//! six products instead of nine.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size Karatsuba formulas: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

/// The base-case size shared by every backend (so scratch sizes agree).
pub(crate) const BASE_MAX: usize = 9;

/// A digit the formulas work on: a 64-bit word, or a 128-bit limb held in a
/// vector register. Addition is XOR.
pub(crate) trait Digit:
    Copy + core::ops::BitXor<Output = Self> + core::ops::BitXorAssign
{
    /// The zero digit.
    const ZERO: Self;
}

impl Digit for u64 {
    const ZERO: u64 = 0;
}

/// `BitXor`, `BitXorAssign` and [`Digit`] for `$name`, a tuple struct of
/// the vector register `$reg` (`$words` words), XORed by `$xor`: the digits
/// of the vector backends. A digit of a vector type exists only in code
/// compiled with that register's instructions (xmm: the x86-64 baseline;
/// ymm and zmm: a backend's `#[target_feature]` entry points, reached
/// through its capability token).
macro_rules! vector_digit {
    ($name:ident($reg:ty; $words:literal), $xor:path) => {
        impl core::ops::BitXor for $name {
            type Output = $name;
            #[inline(always)]
            fn bitxor(self, o: $name) -> $name {
                // SAFETY: `$xor` needs the register's instruction set, which
                // any code holding a `$name` is compiled with (see
                // `vector_digit!`); no memory access.
                $name(unsafe { $xor(self.0, o.0) })
            }
        }

        impl core::ops::BitXorAssign for $name {
            #[inline(always)]
            fn bitxor_assign(&mut self, o: $name) {
                *self = *self ^ o;
            }
        }

        impl $crate::gf2x::formulas::Digit for $name {
            const ZERO: $name =
                // SAFETY: every bit pattern is a valid register.
                $name(unsafe { core::mem::transmute::<[u64; $words], $reg>([0; $words]) });
        }
    };
}
pub(crate) use vector_digit;

/// A vector backend's limb and limb multiplier: `$limb`, `$words` words of
/// a polynomial in one `$reg` register, word 0 lowest (a [`Digit`] by
/// `vector_digit!`, XORed by `$xor`), and `$mul`, holding the token
/// `$token`, whose product is `$kernel(a, b)` as (low, high) registers.
#[cfg(target_arch = "x86_64")]
macro_rules! limb_multiplier {
    ($(#[$limb_doc:meta])* $limb:ident($reg:ty; $words:literal), $xor:path;
     $(#[$mul_doc:meta])* $mul:ident($token:ty) = $kernel:ident) => {
        $(#[$limb_doc])*
        #[derive(Clone, Copy, Debug)]
        pub(super) struct $limb($reg);

        $crate::gf2x::formulas::vector_digit!($limb($reg; $words), $xor);

        $(#[$mul_doc])*
        #[derive(Clone, Copy, Debug)]
        struct $mul($token);

        impl $crate::gf2x::formulas::DigitMul<$limb> for $mul {
            #[inline(always)]
            fn mul(self, a: $limb, b: $limb) -> [$limb; 2] {
                // SAFETY: the token in `self` proves the features `$kernel`
                // needs.
                let (lo, hi) = unsafe { $kernel(a.0, b.0) };
                [$limb(lo), $limb(hi)]
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use limb_multiplier;

/// [`DigitMul`] for `$mul` on `$digit`, a word in the low 64 bits of each
/// 128-bit lane: one carry-less product `$clmul` (imm 0x00) and one
/// in-lane byte shift `$bsrli` by 8 for the high words.
#[cfg(target_arch = "x86_64")]
macro_rules! lane_multiplier {
    ($mul:ident: $digit:ident = $clmul:ident, $bsrli:ident) => {
        impl DigitMul<$digit> for $mul {
            #[inline(always)]
            fn mul(self, a: $digit, b: $digit) -> [$digit; 2] {
                // SAFETY: the token in `self` proves the carry-less
                // product's instruction set and the shift's (SSE2, the
                // x86-64 baseline, on xmm; AVX2 on ymm).
                unsafe {
                    let p = $clmul::<0x00>(a.0, b.0);
                    [$digit(p), $digit($bsrli::<8>(p))]
                }
            }
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use lane_multiplier;

/// The double-width product of two digits, low digit first.
pub(crate) trait DigitMul<T: Digit>: Copy {
    /// `a·b` as two digits.
    fn mul(self, a: T, b: T) -> [T; 2];
}

/// One 64×64→128-bit carry-less product.
pub(crate) trait WordMul: DigitMul<u64> {}
impl<M: DigitMul<u64>> WordMul for M {}

/// Defines `$name`, the `$n`-digit product `[T; $n] × [T; $n] → [T; 2·$n]`
/// generic over the digit `T` and the digit product `M`, `#[inline(always)]`
/// (so each backend compiles it with its word product inside its entry
/// points), with the body `$body` over the multiplier `$m` and the
/// operands `$a`, `$b`: the signature of every formula template.
macro_rules! kernel {
    ($(#[$attr:meta])* $name:ident, $n:tt, |$m:ident, $a:ident, $b:ident| $body:block) => {
        $(#[$attr])*
        #[inline(always)]
        pub(crate) fn $name<T: Digit, M: DigitMul<T>>(
            $m: M,
            $a: &[T; $n],
            $b: &[T; $n],
        ) -> [T; 2 * $n]
            $body
    };
}
pub(crate) use kernel;

/// XORs `src` into the start of `dst`.
#[inline(always)]
pub(crate) fn xor_into<T: Digit>(dst: &mut [T], src: &[T]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= *s;
    }
}

/// `a` (length `N`) XOR `b` (length `M ≤ N`, zero-extended).
#[inline(always)]
pub(crate) fn sum<T: Digit, const N: usize, const M: usize>(a: &[T; N], b: &[T; M]) -> [T; N] {
    let mut s = *a;
    xor_into(&mut s, b);
    s
}

#[inline(always)]
fn split<T: Digit, const N: usize, const L: usize, const H: usize>(a: &[T; N]) -> ([T; L], [T; H]) {
    (
        core::array::from_fn(|i| a[i]),
        core::array::from_fn(|i| a[L + i]),
    )
}

/// 1 digit: one product.
#[inline(always)]
pub(crate) fn mul1<T: Digit, M: DigitMul<T>>(m: M, a: &[T; 1], b: &[T; 1]) -> [T; 2] {
    m.mul(a[0], b[0])
}

/// Defines an N-digit kernel as one Karatsuba step over L + H digits
/// (L ≥ H): three sub-products, L·L + H·H + L·L digit products.
macro_rules! karatsuba_step {
    ($name:ident, $n:literal = $l:literal + $h:literal, $mul_l:ident, $mul_h:ident) => {
        $crate::gf2x::formulas::kernel!(
            #[doc = concat!($n, " digits: Karatsuba over ", $l, " + ", $h, " digits.")]
            $name,
            $n,
            |m, a, b| {
                let (a0, a1) = split::<T, $n, $l, $h>(a);
                let (b0, b1) = split::<T, $n, $l, $h>(b);
                let p0 = $mul_l(m, &a0, &b0);
                let p2 = $mul_h(m, &a1, &b1);
                let mut p1 = $mul_l(m, &sum(&a0, &a1), &sum(&b0, &b1));
                xor_into(&mut p1, &p0);
                xor_into(&mut p1, &p2);
                let mut c = [T::ZERO; 2 * $n];
                c[..2 * $l].copy_from_slice(&p0);
                c[2 * $l..].copy_from_slice(&p2);
                xor_into(&mut c[$l..], &p1);
                c
            }
        );
    };
}

/// Defines a 3K-digit kernel by the three-term formula over K-digit pieces
/// (six K-digit products).
macro_rules! three_term {
    ($name:ident, $n:literal = 3 x $k:literal, $mul_k:ident) => {
        $crate::gf2x::formulas::kernel!(
            #[doc = concat!($n, " digits: the three-term formula over ", $k, "-digit pieces.")]
            $name,
            $n,
            |m, a, b| {
                let piece =
                    |x: &[T; $n], i: usize| -> [T; $k] { core::array::from_fn(|j| x[i * $k + j]) };
                let (a0, a1, a2) = (piece(a, 0), piece(a, 1), piece(a, 2));
                let (b0, b1, b2) = (piece(b, 0), piece(b, 1), piece(b, 2));
                let m0 = $mul_k(m, &a0, &b0);
                let m1 = $mul_k(m, &a1, &b1);
                let m2 = $mul_k(m, &a2, &b2);
                let m01 = $mul_k(m, &sum(&a0, &a1), &sum(&b0, &b1));
                let m02 = $mul_k(m, &sum(&a0, &a2), &sum(&b0, &b2));
                let m12 = $mul_k(m, &sum(&a1, &a2), &sum(&b1, &b2));
                // Coefficients c0..c4 of t^i, t = x^(64K), each 2K digits wide.
                let m012 = sum(&sum(&m0, &m1), &m2);
                let c1 = sum(&sum(&m01, &m0), &m1);
                let c2 = sum(&m02, &m012);
                let c3 = sum(&sum(&m12, &m1), &m2);
                let mut c = [T::ZERO; 2 * $n];
                c[..2 * $k].copy_from_slice(&m0);
                c[4 * $k..].copy_from_slice(&m2);
                xor_into(&mut c[$k..], &c1);
                xor_into(&mut c[2 * $k..], &c2);
                xor_into(&mut c[3 * $k..], &c3);
                c
            }
        );
    };
}

karatsuba_step!(mul2, 2 = 1 + 1, mul1, mul1);
three_term!(mul3, 3 = 3 x 1, mul1);
karatsuba_step!(mul4, 4 = 2 + 2, mul2, mul2);
karatsuba_step!(mul5, 5 = 3 + 2, mul3, mul2);
karatsuba_step!(mul6, 6 = 3 + 3, mul3, mul3);
karatsuba_step!(mul7, 7 = 4 + 3, mul4, mul3);
karatsuba_step!(mul8, 8 = 4 + 4, mul4, mul4);
three_term!(mul9, 9 = 3 x 3, mul3);
// 9 words as one Karatsuba step over 5 + 4 (15 + 9 + 15 = 39 products, three
// more than `mul9`): the ymm pair kernels' 9-word product, where the six
// 6-digit products of the three-term formula spill more.
#[cfg(target_arch = "x86_64")]
karatsuba_step!(mul9_karatsuba, 9 = 5 + 4, mul5, mul4);
karatsuba_step!(mul16, 16 = 8 + 8, mul8, mul8);

/// `(a, b, out)` as `(&[u64; N], &[u64; N], &mut [u64; 2N])`, or `None` if
/// any length differs: how every slice entry point reaches a fixed kernel.
macro_rules! fixed_arrays {
    ($n:literal, $a:expr, $b:expr, $out:expr) => {
        match (
            <&[u64; $n]>::try_from($a),
            <&[u64; $n]>::try_from($b),
            <&mut [u64; 2 * $n]>::try_from($out),
        ) {
            (Ok(x), Ok(y), Ok(o)) => Some((x, y, o)),
            _ => None,
        }
    };
}
pub(crate) use fixed_arrays;

/// `$arm!(mulN, N)` for the fixed size `$len` in 1..=9 or 16, `$zero` for
/// 0 and `$other` for any other size: how [`mul_fixed_slices`] reaches its
/// fixed kernel of one size (the SIMD backends' slice entry is
/// `fixed_slice_entry!`, the same `match`).
macro_rules! by_fixed_size {
    ($len:expr, $arm:ident, $zero:expr, $other:expr) => {
        match $len {
            0 => $zero,
            1 => $arm!(mul1, 1),
            2 => $arm!(mul2, 2),
            3 => $arm!(mul3, 3),
            4 => $arm!(mul4, 4),
            5 => $arm!(mul5, 5),
            6 => $arm!(mul6, 6),
            7 => $arm!(mul7, 7),
            8 => $arm!(mul8, 8),
            9 => $arm!(mul9, 9),
            16 => $arm!(mul16, 16),
            _ => $other,
        }
    };
}

/// `$kernel($t, x, y, o)` on `$a`, `$b` and `$out` as arrays of `$n`, `$n`
/// and `2·$n` words, or `return false` from the enclosing function if
/// their lengths differ: a backend's slice entry reaching one of its array
/// kernels.
macro_rules! call_fixed {
    ($kernel:ident($t:expr), $n:literal, $a:ident, $b:ident, $out:ident) => {{
        let Some((x, y, o)) = $crate::gf2x::formulas::fixed_arrays!($n, $a, $b, &mut *$out) else {
            return false;
        };
        $kernel($t, x, y, o)
    }};
}
pub(crate) use call_fixed;

/// Defines `#[target_feature(enable = $features)] fn fixed(t, out, a, b)`,
/// a backend's slice entry: false for mismatched lengths, else `$body`
/// (its parameters named by the caller). Without a body, the entry of a
/// backend whose `tf` module has the array kernel `mulN(t, a, b, out)` of
/// every fixed size (1..=9, 16): true for 0 words, false for another size.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! fixed_slice_entry {
    ($(#[$doc:meta])* $features:literal, $token:ty,
     |$t:ident, $out:ident, $a:ident, $b:ident| $body:block) => {
        $(#[$doc])*
        #[target_feature(enable = $features)]
        pub(super) fn fixed($t: $token, $out: &mut [u64], $a: &[u64], $b: &[u64]) -> bool {
            if $a.len() != $b.len() || $out.len() != 2 * $a.len() {
                return false;
            }
            $body
        }
    };
    ($features:literal, $token:ty) => {
        $crate::gf2x::formulas::fixed_slice_entry!($features, $token, |t, out, a, b| {
            $crate::gf2x::formulas::fixed_slice_entry!(@arms t, a, b, out;
                mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16)
        });
    };
    (@arms $t:ident, $a:ident, $b:ident, $out:ident; $($name:ident $n:literal),*) => {
        match $a.len() {
            0 => true,
            $($n => {
                $crate::gf2x::formulas::call_fixed!($name($t), $n, $a, $b, $out);
                true
            })*
            _ => false,
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use fixed_slice_entry;

/// Defines `#[inline(never)] #[target_feature(enable = $features)]`
/// functions `$name(t, out, a, b)`: the product of at most `$l` limbs'
/// words, zero-padded to `$l` limbs by the calling backend's `load_limbs`
/// and `store_limbs`, by the formula `$f` over limbs with the limb
/// multiplier `$mul(t)`. One function per limb count, not inlined into the
/// backend's `fixed`: inlined together, the zmm backend's four shared one
/// frame and register allocation, and its 4-limb kernel ran 30 % slower
/// (252 → 327 ticks) after an unrelated change to the dispatch.
#[cfg(target_arch = "x86_64")]
macro_rules! limb_products {
    ($features:literal, $token:ty, $mul:ident; $($name:ident $f:ident $l:literal),* $(,)?) => {$(
        #[inline(never)]
        #[target_feature(enable = $features)]
        fn $name(t: $token, out: &mut [u64], a: &[u64], b: &[u64]) {
            // SAFETY: compiled with the features the token proves, which
            // `load_limbs`, `store_limbs` and the limb multiplier need.
            unsafe {
                let x = load_limbs::<$l>(a);
                let y = load_limbs::<$l>(b);
                let c = $crate::gf2x::formulas::$f($mul(t), &x, &y);
                store_limbs(out, &c);
            }
        }
    )*};
}
#[cfg(target_arch = "x86_64")]
pub(crate) use limb_products;

/// Calls the fixed kernel `mulN` on the slices as arrays, for
/// `N = a.len() = b.len()` in 0..=9. Returns false (and leaves `out` alone)
/// for other sizes. (Not 16: on general registers the inlined 16-word
/// kernel spills and loses to a Karatsuba step over two 8-word calls —
/// portable 64-word products went from 39.6 k to 57.7 k cycles with it.)
#[inline(always)]
pub(crate) fn mul_fixed_slices<M: WordMul>(m: M, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
    macro_rules! arm {
        (mul16, 16) => {
            false
        };
        ($f:ident, $n:literal) => {{
            let Some((x, y, o)) = fixed_arrays!($n, a, b, &mut *out) else {
                return false;
            };
            *o = $f(m, x, y);
            true
        }};
    }
    if a.len() != b.len() || out.len() != 2 * a.len() {
        return false;
    }
    by_fixed_size!(a.len(), arm, true, false)
}

/// A backend's fixed-size products and word square as `#[inline(always)]`
/// functions on arrays of its digits, for other areas (`gf2m`) to inline
/// into their own `#[target_feature]` entry points: a field operation's
/// product, its reduction (shifts and XORs of the same digits) and the
/// loops around them compile into one function, and the partial products
/// never leave the registers the backend computes them in (xmm lanes for
/// PCLMULQDQ).
// Every fixed size is here (the PCLMULQDQ backend implements its whole
// list); gf2m uses the sizes of its fields.
#[allow(dead_code)]
pub(crate) trait InlineFixed: Copy {
    /// A 64-bit word where this backend keeps it.
    type Limb: Digit;
    /// Words to digits.
    fn limbs<const N: usize>(self, a: &[u64; N]) -> [Self::Limb; N];
    /// Digits to words.
    fn words<const N: usize>(self, a: [Self::Limb; N]) -> [u64; N];
    /// `x << s` (0 < s < 64) within the 64-bit word.
    fn shl(self, x: Self::Limb, s: u32) -> Self::Limb;
    /// `x >> s` (0 < s < 64) within the 64-bit word.
    fn shr(self, x: Self::Limb, s: u32) -> Self::Limb;
    /// The 1-word product.
    fn mul1(self, a: &[Self::Limb; 1], b: &[Self::Limb; 1]) -> [Self::Limb; 2];
    /// The 2-word product.
    fn mul2(self, a: &[Self::Limb; 2], b: &[Self::Limb; 2]) -> [Self::Limb; 4];
    /// The 3-word product.
    fn mul3(self, a: &[Self::Limb; 3], b: &[Self::Limb; 3]) -> [Self::Limb; 6];
    /// The 4-word product.
    fn mul4(self, a: &[Self::Limb; 4], b: &[Self::Limb; 4]) -> [Self::Limb; 8];
    /// The 5-word product.
    fn mul5(self, a: &[Self::Limb; 5], b: &[Self::Limb; 5]) -> [Self::Limb; 10];
    /// The 6-word product.
    fn mul6(self, a: &[Self::Limb; 6], b: &[Self::Limb; 6]) -> [Self::Limb; 12];
    /// The 7-word product.
    fn mul7(self, a: &[Self::Limb; 7], b: &[Self::Limb; 7]) -> [Self::Limb; 14];
    /// The 8-word product.
    fn mul8(self, a: &[Self::Limb; 8], b: &[Self::Limb; 8]) -> [Self::Limb; 16];
    /// The 9-word product.
    fn mul9(self, a: &[Self::Limb; 9], b: &[Self::Limb; 9]) -> [Self::Limb; 18];
    /// The 16-word product.
    fn mul16(self, a: &[Self::Limb; 16], b: &[Self::Limb; 16]) -> [Self::Limb; 32];
    /// The square of one word, low word first.
    fn square_limb(self, a: Self::Limb) -> [Self::Limb; 2];
}

/// [`InlineFixed`]'s limb, conversions and shifts for a backend whose limb
/// is the `u64` word itself (portable, PMULL): nothing to convert, plain
/// shifts.
macro_rules! word_limbs {
    () => {
        type Limb = u64;
        #[inline(always)]
        fn limbs<const N: usize>(self, a: &[u64; N]) -> [u64; N] {
            *a
        }
        #[inline(always)]
        fn words<const N: usize>(self, a: [u64; N]) -> [u64; N] {
            a
        }
        #[inline(always)]
        fn shl(self, x: u64, s: u32) -> u64 {
            x << s
        }
        #[inline(always)]
        fn shr(self, x: u64, s: u32) -> u64 {
            x >> s
        }
    };
}
pub(crate) use word_limbs;

/// [`InlineFixed`]'s shifts for a vector digit `$digit` (a newtype of one
/// register): the register's 64-bit element shifts `$sll` and `$srl` by a
/// count in an xmm register.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_shifts {
    ($digit:ident, $sll:ident, $srl:ident) => {
        #[inline(always)]
        fn shl(self, x: $digit, s: u32) -> $digit {
            // SAFETY: SSE2 (xmm shifts) is part of the x86-64 baseline; the
            // ymm shifts' AVX2 is proven by the token in `self`.
            $digit(unsafe { $sll(x.0, core::arch::x86_64::_mm_cvtsi32_si128(s as i32)) })
        }
        #[inline(always)]
        fn shr(self, x: $digit, s: u32) -> $digit {
            // SAFETY: as for `shl`.
            $digit(unsafe { $srl(x.0, core::arch::x86_64::_mm_cvtsi32_si128(s as i32)) })
        }
    };
}
#[cfg(target_arch = "x86_64")]
pub(crate) use vector_shifts;

/// Two independent products at once: a backend whose digit holds one word
/// of each of two operands (the two 128-bit lanes of a ymm register), so
/// every formula of [`InlineFixed`] computes `a·b` and `c·d` in the same
/// instructions. Its [`InlineFixed::limbs`] puts one operand in the first
/// slot (the second zero) and [`InlineFixed::words`] reads the first slot.
#[allow(dead_code)]
pub(crate) trait InlinePair: InlineFixed {
    /// Words of two operands to digits: `x` in the first slot, `y` in the
    /// second.
    fn pair_limbs<const N: usize>(self, x: &[u64; N], y: &[u64; N]) -> [Self::Limb; N];
    /// Digits to the words of the two slots, stored into `x` and `y`.
    fn pair_store<const N: usize>(self, c: [Self::Limb; N], x: &mut [u64; N], y: &mut [u64; N]);
}

/// Spreads the 32 bits of `x` to the even bit positions of a u64 (bit i to
/// bit 2i): the square of a 32-bit polynomial. Shifts and masks only
/// (`const`: `gf2m` builds tables with it).
#[inline(always)]
pub(crate) const fn spread32(x: u32) -> u64 {
    let mut x = x as u64;
    x = (x | (x << 16)) & 0x0000_ffff_0000_ffff;
    x = (x | (x << 8)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x << 4)) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | (x << 2)) & 0x3333_3333_3333_3333;
    x = (x | (x << 1)) & 0x5555_5555_5555_5555;
    x
}

/// `out = a²` by bit spreading (squaring is linear over GF(2)).
#[inline(always)]
pub(crate) fn square_spread(out: &mut [u64], a: &[u64]) {
    for (i, &w) in a.iter().enumerate() {
        out[2 * i] = spread32(w as u32);
        out[2 * i + 1] = spread32((w >> 32) as u32);
    }
}
