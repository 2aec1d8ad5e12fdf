//! The portable `gf2x` backend: the fixed formulas, Karatsuba and the
//! size plan over [`clmul64`], the constant-time 64×64 carry-less product
//! of `word.rs` (25 integer multiplications of bit-spread operands: its
//! module docs give the argument), and the portable FFT.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// fixed-size kernels: const-generic word counts over `[u64; N]` arrays.
#![allow(clippy::indexing_slicing)]
#![forbid(unsafe_code)]

use super::formulas::{self, DigitMul};
use super::word::clmul64;
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
            formulas::word_limbs!();
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

/// The array products: the formulas on `u64` words. Out of line: inlined
/// into `Dispatch::mul_fixed`'s dispatch, they made its frame theirs
/// (6.4 KiB at 9 words) whichever backend ran.
macro_rules! array_products {
    ($($name:ident $n:literal),*) => {$(
        #[inline(never)]
        fn $name(self, a: &[u64; $n], b: &[u64; $n], out: &mut [u64; 2 * $n]) {
            *out = formulas::$name(PortableWord, a, b);
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
