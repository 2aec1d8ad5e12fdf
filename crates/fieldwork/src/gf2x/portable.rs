//! Portable, constant-time carry-less multiplication.
//!
//! No tables, no data-dependent branches: each product is formed with ordinary
//! integer multiplications of operands whose set bits are spread out so far
//! apart that the carries of the integer products never reach a bit we keep.
//!
//! # The 5-way split
//!
//! Write `a = a0 ^ a1 ^ … ^ a4` where `ai` keeps the bits of `a` at positions
//! `≡ i (mod 5)`, and likewise `b`. The integer product `ai·bj` has, at each
//! position `k ≡ i+j (mod 5)`, the *count* of bit pairs of `ai`, `bj` with
//! exponents summing to `k`, and nothing at other residues except the carries
//! of those counts. A 64-bit operand has at most 13 bits in one residue class,
//! so a count is at most 13 < 2^4: it occupies bits `k .. k+3`, never reaching
//! `k+5`, the next position of the same class. The low bit of each count is
//! the carry-less coefficient, so
//!
//! ```text
//! clmul(a, b) = OR over c of ( XOR over i of ai·b((c−i) mod 5) ) AND mask_c
//! ```
//!
//! where `mask_c` keeps the 128-bit positions `≡ c (mod 5)`. That is 25
//! 64×64→128 integer multiplications. A 4-way split (16 multiplications, as
//! in BearSSL's `ghash_ctmul64`) is not enough for the full 128-bit product of
//! 64-bit operands: a count can reach 16 = 2^4, which carries into the next
//! position of its own class.
//!
//! This assumes the integer multiplier runs in constant time, which holds for
//! `mul` on x86-64 and for the 64-bit multipliers of current AArch64 cores.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size kernels: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

/// Bits at positions `≡ c (mod 5)` of a 128-bit word.
const fn class_mask(c: u32) -> u128 {
    let mut m = 0u128;
    let mut k = c;
    while k < 128 {
        m |= 1 << k;
        k += 5;
    }
    m
}

const MASK128: [u128; 5] = [
    class_mask(0),
    class_mask(1),
    class_mask(2),
    class_mask(3),
    class_mask(4),
];

const MASK64: [u64; 5] = [
    MASK128[0] as u64,
    MASK128[1] as u64,
    MASK128[2] as u64,
    MASK128[3] as u64,
    MASK128[4] as u64,
];

/// The 128-bit carry-less product of `a` and `b`, in constant time.
#[inline]
pub(crate) fn clmul64(a: u64, b: u64) -> u128 {
    let ap = MASK64.map(|m| (a & m) as u128);
    let bp = MASK64.map(|m| (b & m) as u128);
    let mut r = 0u128;
    for (c, mask) in MASK128.iter().enumerate() {
        let mut z = 0u128;
        for (i, ai) in ap.iter().enumerate() {
            z ^= ai * bp[(c + 5 - i) % 5];
        }
        r |= z & mask;
    }
    r
}

use super::formulas::{self, DigitMul};
use super::{Backend, Costs};

/// The portable word multiplier.
#[derive(Clone, Copy, Debug)]
pub struct PortableWord;

impl DigitMul<u64> for PortableWord {
    #[inline(always)]
    fn mul(self, a: u64, b: u64) -> [u64; 2] {
        let p = clmul64(a, b);
        [p as u64, (p >> 64) as u64]
    }
}

macro_rules! inline_fixed {
    ($($name:ident $n:literal),*) => {
        impl formulas::InlineFixed for PortableWord {
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
            $(
                #[inline(always)]
                fn $name(self, a: &[u64; $n], b: &[u64; $n]) -> [u64; 2 * $n] {
                    formulas::$name(self, a, b)
                }
            )*
            #[inline(always)]
            fn square_limb(self, a: u64) -> [u64; 2] {
                [
                    formulas::spread32(a as u32),
                    formulas::spread32((a >> 32) as u32),
                ]
            }
        }
    };
}

inline_fixed!(mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16);

/// The portable backend (see [`Backend`]): plain Rust, constant time, every
/// target.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

/// The array products: the formulas on `u64` words, returned by value.
macro_rules! array_products {
    ($($name:ident $n:literal),*) => {$(
        #[inline(always)]
        fn $name(self, a: &[u64; $n], b: &[u64; $n]) -> [u64; 2 * $n] {
            formulas::$name(PortableWord, a, b)
        }
    )*};
}

impl Backend for Portable {
    const NAME: &'static str = "portable";
    /// Measured fixed-kernel costs (see `plan.rs`); the FFT from 6 000
    /// words, and from 3 400 where it fills its transform.
    const COSTS: Costs = Costs {
        fixed: [
            0, 48, 109, 210, 347, 523, 698, 890, 1037, 2318, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        ],
        fft_min: 6_000,
        fft_dense_min: 3_400,
    };
    type Token = ();
    type Fft = super::fft::portable::PortableFft;

    #[inline]
    fn new((): ()) -> Portable {
        Portable
    }

    #[inline]
    fn clmul64(self, a: u64, b: u64) -> u128 {
        clmul64(a, b)
    }

    fn fixed(self, out: &mut [u64], a: &[u64], b: &[u64]) -> bool {
        formulas::mul_fixed_slices(PortableWord, out, a, b)
    }

    array_products!(mul1 1, mul2 2, mul3 3, mul4 4, mul5 5, mul6 6, mul7 7, mul8 8, mul9 9, mul16 16);

    fn square(self, out: &mut [u64], a: &[u64]) {
        formulas::square_spread(out, a);
    }

    #[inline]
    fn fft(self) -> Self::Fft {
        super::fft::portable::PortableFft
    }
}
