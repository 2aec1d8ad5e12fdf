//! Reproduction code (feature `reproduce`): GHASH by each algorithm of the
//! progression in S. Gueron and M. E. Kounavis, *Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode*
//! (Intel white paper 323640, rev. 2.02, 2014; the text is
//! `../shared/seeds/002_77ac94d0d136631a.txt`), so that `peer-bench
//! --filter ghash_progression` and `peer-bench --reproduce
//! gueron-kounavis` can compare them. Production GHASH ([`super::ghash`],
//! [`super::GHash`]) chooses its own kernel and does not use this module.
//! Not part of the stable API.
//!
//! Where each algorithm lives: Algorithms 1, 2, 4, 5 as the text states
//! them (64-bit words) and fieldwork's own aggregated kernels
//! (Karatsuba + Montgomery, not the paper's reduction) in `whitepaper.rs`
//! and `whitepaper_wide.rs`; the paper's printed code (Figures 5, 7, 8
//! and Figure 15's quad step), Algorithm 3 and Algorithms 6–9 in
//! `paper.rs`, whose module docs say which steps of Algorithms 6–9 the
//! text conversion lost and how they were completed. The AES-128-GCM rows
//! of the paper's Table 1 are in `crate::gcm::reproduce`.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the white paper's algorithm progression, fixed-size tables, not a production path.
#![allow(clippy::indexing_slicing)]

#[cfg(target_arch = "x86_64")]
pub(crate) mod paper;
#[cfg(target_arch = "x86_64")]
mod whitepaper;
#[cfg(target_arch = "x86_64")]
mod whitepaper_wide;

#[cfg(target_arch = "x86_64")]
use super::field::POWERS;
use super::ghash;
use crate::cpu;
use core::fmt;
#[cfg(target_arch = "x86_64")]
use zeroize::Zeroize;

/// A GHASH kernel from the algorithm progression of S. Gueron and M. E.
/// Kounavis, *Intel Carry-Less Multiplication Instruction and its Usage for
/// Computing the GCM Mode* (Intel white paper 323640, rev. 2.02, 2014), for
/// [`ghash_with`].
///
/// The one-block variants hash one block per reduction and differ in how
/// they multiply (schoolbook: four `pclmulqdq`; Karatsuba: three) and
/// reduce; the aggregated variants multiply N blocks by the precomputed
/// powers `H^N … H^1`, sum the products and reduce once per N blocks:
/// [`Fig8Aggregated4`](Algorithm::Fig8Aggregated4) as the paper's Figure 8
/// (Karatsuba products, shift by one, Algorithm 5), the `Aggregated*`
/// variants in fieldwork's form (Karatsuba products, Montgomery
/// reduction) on 128-, 256- or 512-bit registers. Every variant computes the same function as [`ghash`]; the
/// kernel module docs (`src/ghash/reproduce/whitepaper*.rs`) give the math and the
/// operation counts. All but [`Best`](Algorithm::Best) need x86-64 with
/// PCLMULQDQ at least; see [`Algorithm::is_supported`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// One block at a time: the paper's Algorithm 1 (schoolbook 128×128
    /// product, four `pclmulqdq`), the product shifted left by one bit, and
    /// Algorithm 5 (reduction of the reflected product by shifts and XORs).
    /// No bit reflection of the input: blocks are only byte-swapped.
    /// Needs PCLMULQDQ and SSE4.1.
    SchoolbookAlg5,
    /// One block at a time: Algorithm 2 (Karatsuba, three `pclmulqdq`) on
    /// bit-reflected input and Algorithm 4 (reduction of the natural-order
    /// product by shifts and XORs); the result is reflected back. Needs
    /// PCLMULQDQ and SSE4.1.
    KaratsubaAlg4,
    /// One block at a time: Karatsuba on bit-reflected input, reduced by
    /// folding the two top words down with `pclmulqdq` by `x^7 + x^2 + x +
    /// 1` (0x87), top word first. Needs PCLMULQDQ and SSE4.1.
    KaratsubaFold,
    /// One block at a time: Karatsuba on byte-swapped input with the key
    /// `H·x` (POLYVAL form, RFC 8452 appendix A), reduced by Montgomery
    /// multiplication: two `pclmulqdq` by 0xc2000000_00000000, folding the
    /// low words up. Needs PCLMULQDQ and SSE4.1.
    KaratsubaMontgomery,
    /// One block at a time: the paper's Figure 5 as printed (Algorithm 1,
    /// the shift by one and Algorithm 5 in 32-bit lanes). Needs PCLMULQDQ
    /// and SSE4.1.
    Fig5,
    /// One block at a time: the paper's Figure 7 as printed (Algorithm 2
    /// and Algorithm 4 in 32-bit lanes) on blocks bit-reflected as Figure
    /// 11 does. Needs PCLMULQDQ and SSE4.1.
    Fig7,
    /// One block at a time: Algorithm 1 and Algorithm 3 (the general
    /// reduction, equation (22), with `q⁺ = g`, `g* = x^7 + x^2 + x + 1`)
    /// on bit-reflected input. Needs PCLMULQDQ and SSE4.1.
    SchoolbookAlg3,
    /// One block at a time: Algorithm 1 and Algorithm 6 (folding s = 120,
    /// two multiplications; steps the text lost completed, see
    /// `ghash/reproduce/paper.rs`). Needs PCLMULQDQ and SSE4.1.
    SchoolbookAlg6,
    /// One block at a time: Algorithm 1 and Algorithm 7 (folding s = 120,
    /// four multiplications). Needs PCLMULQDQ and SSE4.1.
    SchoolbookAlg7,
    /// One block at a time: Algorithm 1 and Algorithm 8 (folding s = 64,
    /// one multiplication). Needs PCLMULQDQ and SSE4.1.
    SchoolbookAlg8,
    /// One block at a time: Algorithm 1 and Algorithm 9 (folding s = 64,
    /// two multiplications). Needs PCLMULQDQ and SSE4.1.
    SchoolbookAlg9,
    /// The paper's aggregated reduction over 4 blocks as Figures 8 and 12
    /// write it: four Karatsuba products with `H⁴ … H¹`, one shift by one
    /// and one Algorithm 5 (Figure 5's form); powers and leftover blocks by
    /// Figure 5. Needs PCLMULQDQ and SSE4.1.
    Fig8Aggregated4,
    /// As [`Fig8Aggregated4`](Algorithm::Fig8Aggregated4) with four
    /// schoolbook products (16 `pclmulqdq`) instead of Karatsuba. Needs
    /// PCLMULQDQ and SSE4.1.
    SchoolbookAggregated4,
    /// Aggregated reduction over 4 blocks on xmm, fieldwork's form, not the
    /// paper's: Karatsuba products and the Montgomery (POLYVAL) reduction.
    /// Needs PCLMULQDQ and SSE4.1.
    AggregatedXmm4,
    /// Aggregated reduction over 8 blocks on xmm. Needs PCLMULQDQ and
    /// SSE4.1.
    AggregatedXmm8,
    /// Aggregated reduction over 16 blocks on xmm. Needs PCLMULQDQ and
    /// SSE4.1.
    AggregatedXmm16,
    /// Aggregated reduction over 32 blocks on xmm. Needs PCLMULQDQ and
    /// SSE4.1.
    AggregatedXmm32,
    /// Aggregated reduction over 8 blocks on ymm (`vpclmulqdq`, two blocks
    /// per register). Needs VPCLMULQDQ, AVX2, PCLMULQDQ and SSE4.1.
    AggregatedYmm8,
    /// Aggregated reduction over 16 blocks on ymm. Needs VPCLMULQDQ, AVX2,
    /// PCLMULQDQ and SSE4.1.
    AggregatedYmm16,
    /// Aggregated reduction over 32 blocks on ymm. Needs VPCLMULQDQ, AVX2,
    /// PCLMULQDQ and SSE4.1.
    AggregatedYmm32,
    /// Aggregated reduction over 16 blocks on zmm (`vpclmulqdq`, four
    /// blocks per register). Needs VPCLMULQDQ, AVX-512 F/BW/VL/DQ,
    /// PCLMULQDQ and SSE4.1.
    AggregatedZmm16,
    /// Aggregated reduction over 32 blocks on zmm. Needs VPCLMULQDQ,
    /// AVX-512 F/BW/VL/DQ, PCLMULQDQ and SSE4.1.
    AggregatedZmm32,
    /// Whatever [`ghash`] chooses (the fastest backend this CPU has);
    /// always supported.
    Best,
}

impl Algorithm {
    /// Every variant, in the order of the progression (slowest expected
    /// first, [`Best`](Algorithm::Best) last).
    pub const ALL: [Algorithm; 23] = [
        Algorithm::SchoolbookAlg5,
        Algorithm::Fig5,
        Algorithm::KaratsubaAlg4,
        Algorithm::Fig7,
        Algorithm::SchoolbookAlg3,
        Algorithm::SchoolbookAlg6,
        Algorithm::SchoolbookAlg7,
        Algorithm::SchoolbookAlg8,
        Algorithm::SchoolbookAlg9,
        Algorithm::KaratsubaFold,
        Algorithm::KaratsubaMontgomery,
        Algorithm::SchoolbookAggregated4,
        Algorithm::Fig8Aggregated4,
        Algorithm::AggregatedXmm4,
        Algorithm::AggregatedXmm8,
        Algorithm::AggregatedXmm16,
        Algorithm::AggregatedXmm32,
        Algorithm::AggregatedYmm8,
        Algorithm::AggregatedYmm16,
        Algorithm::AggregatedYmm32,
        Algorithm::AggregatedZmm16,
        Algorithm::AggregatedZmm32,
        Algorithm::Best,
    ];

    /// A short label, e.g. `1 block/schoolbook + Alg. 5`, `aggregated 8
    /// (xmm)`, `fieldwork best`.
    pub const fn name(self) -> &'static str {
        match self {
            Algorithm::SchoolbookAlg5 => "1 block/schoolbook + Alg. 5",
            Algorithm::KaratsubaAlg4 => "1 block/Karatsuba + Alg. 4",
            Algorithm::KaratsubaFold => "1 block/Karatsuba + folding",
            Algorithm::KaratsubaMontgomery => "1 block/Karatsuba + Montgomery",
            Algorithm::Fig5 => "1 block/Fig. 5 (Alg. 1 + 5, 32-bit lanes)",
            Algorithm::Fig7 => "1 block/Fig. 7 (Alg. 2 + 4, 32-bit lanes)",
            Algorithm::SchoolbookAlg3 => "1 block/schoolbook + Alg. 3",
            Algorithm::SchoolbookAlg6 => "1 block/schoolbook + Alg. 6",
            Algorithm::SchoolbookAlg7 => "1 block/schoolbook + Alg. 7",
            Algorithm::SchoolbookAlg8 => "1 block/schoolbook + Alg. 8",
            Algorithm::SchoolbookAlg9 => "1 block/schoolbook + Alg. 9",
            Algorithm::Fig8Aggregated4 => "aggregated 4 (Fig. 8: Karatsuba + Alg. 5)",
            Algorithm::SchoolbookAggregated4 => "aggregated 4 (schoolbook + Alg. 5)",
            Algorithm::AggregatedXmm4 => "aggregated 4 (xmm, Montgomery)",
            Algorithm::AggregatedXmm8 => "aggregated 8 (xmm, Montgomery)",
            Algorithm::AggregatedXmm16 => "aggregated 16 (xmm, Montgomery)",
            Algorithm::AggregatedXmm32 => "aggregated 32 (xmm, Montgomery)",
            Algorithm::AggregatedYmm8 => "aggregated 8 (ymm, Montgomery)",
            Algorithm::AggregatedYmm16 => "aggregated 16 (ymm, Montgomery)",
            Algorithm::AggregatedYmm32 => "aggregated 32 (ymm, Montgomery)",
            Algorithm::AggregatedZmm16 => "aggregated 16 (zmm, Montgomery)",
            Algorithm::AggregatedZmm32 => "aggregated 32 (zmm, Montgomery)",
            Algorithm::Best => "fieldwork best",
        }
    }

    /// The CPU features the variant needs, as a phrase (for errors).
    const fn needs(self) -> &'static str {
        match self {
            Algorithm::AggregatedYmm8 | Algorithm::AggregatedYmm16 | Algorithm::AggregatedYmm32 => {
                "x86-64 with VPCLMULQDQ, AVX2, PCLMULQDQ and SSE4.1"
            }
            Algorithm::AggregatedZmm16 | Algorithm::AggregatedZmm32 => {
                "x86-64 with VPCLMULQDQ, AVX-512 F/BW/VL/DQ, PCLMULQDQ and SSE4.1"
            }
            Algorithm::Best => "nothing",
            _ => "x86-64 with PCLMULQDQ and SSE4.1",
        }
    }

    /// Blocks per reduction: how [`ghash_with`] splits a message into
    /// groups and a tail.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const fn group_blocks(self) -> usize {
        match self {
            Algorithm::AggregatedXmm4
            | Algorithm::Fig8Aggregated4
            | Algorithm::SchoolbookAggregated4 => 4,
            Algorithm::AggregatedXmm8 | Algorithm::AggregatedYmm8 => 8,
            Algorithm::AggregatedXmm16
            | Algorithm::AggregatedYmm16
            | Algorithm::AggregatedZmm16 => 16,
            Algorithm::AggregatedXmm32
            | Algorithm::AggregatedYmm32
            | Algorithm::AggregatedZmm32 => 32,
            _ => 1,
        }
    }

    /// Whether this CPU (after the `FIELDWORK_MAX_ISA` cap, see
    /// [`crate::cpu`]) can run the variant: exactly when [`ghash_with`]
    /// returns `Ok`.
    pub fn is_supported(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            match self {
                Algorithm::Best => true,
                Algorithm::AggregatedYmm8
                | Algorithm::AggregatedYmm16
                | Algorithm::AggregatedYmm32 => cpu::Avx2Clmul::get().is_some(),
                Algorithm::AggregatedZmm16 | Algorithm::AggregatedZmm32 => {
                    cpu::Avx512Clmul::get().is_some()
                }
                _ => cpu::Clmul::get().is_some(),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            matches!(self, Algorithm::Best)
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// [`ghash_with`] was asked for a kernel whose instructions this CPU lacks
/// (or that `FIELDWORK_MAX_ISA` hides).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnsupportedCpu {
    algorithm: Algorithm,
}

impl UnsupportedCpu {
    /// The kernel that was asked for.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }
}

impl fmt::Display for UnsupportedCpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "GHASH kernel \"{}\" needs {}, which this CPU lacks or {} hides",
            self.algorithm.name(),
            self.algorithm.needs(),
            cpu::CAP_VARIABLE
        )
    }
}

impl core::error::Error for UnsupportedCpu {}

/// One-shot GHASH of `data` (final partial block zero-padded, as
/// [`ghash`]) computed by the kernel `algorithm`, key setup included (the
/// aggregated variants compute the powers of H they use on every call).
///
/// Every variant gives the same result as [`ghash`]; they differ in speed
/// only. This is for studying and measuring the white paper's progression;
/// for hashing, use [`ghash`] or [`GHash`](super::GHash), which choose the fastest kernel.
/// Constant time in the key and the data, like the rest of the module.
///
/// # Errors
///
/// [`UnsupportedCpu`] if the CPU lacks the kernel's instructions (see
/// [`Algorithm::is_supported`]); [`Algorithm::Best`] never fails.
///
/// # Example
///
/// ```
/// use fieldwork::ghash::ghash;
/// use fieldwork::ghash::reproduce::{ghash_with, Algorithm};
///
/// let h = [0x5a; 16];
/// let data = [0x17; 1000];
/// for algorithm in Algorithm::ALL {
///     match ghash_with(algorithm, &h, &data) {
///         Ok(tag) => assert_eq!(tag, ghash(&h, &data), "{algorithm}"),
///         Err(e) => println!("skipped: {e}"),
///     }
/// }
/// ```
pub fn ghash_with(
    algorithm: Algorithm,
    h: &[u8; 16],
    data: &[u8],
) -> Result<[u8; 16], UnsupportedCpu> {
    if algorithm == Algorithm::Best {
        return Ok(ghash(h, data));
    }
    #[cfg(target_arch = "x86_64")]
    {
        let mut tail_buf = [0u8; 16 * POWERS];
        let (body, tail) = split_groups(data, algorithm.group_blocks(), &mut tail_buf);
        let out = paper_kernel(algorithm, h, body, tail);
        tail_buf.zeroize();
        out.ok_or(UnsupportedCpu { algorithm })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (h, data);
        Err(UnsupportedCpu { algorithm })
    }
}

/// `data` as whole groups of `blocks` blocks (borrowed) and the rest,
/// zero-padded to whole blocks in `buf` (at most `blocks` blocks).
#[cfg(target_arch = "x86_64")]
fn split_groups<'a>(
    data: &'a [u8],
    blocks: usize,
    buf: &'a mut [u8; 16 * POWERS],
) -> (&'a [u8], &'a [u8]) {
    debug_assert!((1..=POWERS).contains(&blocks));
    let group = 16 * blocks;
    let (body, rest) = data.split_at(data.len() - data.len() % group);
    buf[..rest.len()].copy_from_slice(rest);
    (body, &buf[..rest.len().div_ceil(16) * 16])
}

/// The kernel of `algorithm` on `body` (whole groups) then `tail` (whole
/// blocks), if the CPU has its instructions.
#[cfg(target_arch = "x86_64")]
fn paper_kernel(algorithm: Algorithm, h: &[u8; 16], body: &[u8], tail: &[u8]) -> Option<[u8; 16]> {
    use Algorithm as A;
    use cpu::{Avx2Clmul, Avx512Clmul, Clmul};
    use paper::Kind;
    use whitepaper::{OneBlock, one_block};
    let xmm = Clmul::get;
    let ymm = Avx2Clmul::get;
    let zmm = Avx512Clmul::get;
    match algorithm {
        A::SchoolbookAlg5 => xmm().map(|t| one_block(t, OneBlock::SchoolbookAlg5, h, body, tail)),
        A::KaratsubaAlg4 => xmm().map(|t| one_block(t, OneBlock::KaratsubaAlg4, h, body, tail)),
        A::KaratsubaFold => xmm().map(|t| one_block(t, OneBlock::KaratsubaFold, h, body, tail)),
        A::KaratsubaMontgomery => {
            xmm().map(|t| one_block(t, OneBlock::KaratsubaMontgomery, h, body, tail))
        }
        A::Fig5 => xmm().map(|t| paper::one_block(t, Kind::Fig5, h, body, tail)),
        A::Fig7 => xmm().map(|t| paper::one_block(t, Kind::Fig7, h, body, tail)),
        A::SchoolbookAlg3 => xmm().map(|t| paper::one_block(t, Kind::Alg3, h, body, tail)),
        A::SchoolbookAlg6 => xmm().map(|t| paper::one_block(t, Kind::Alg6, h, body, tail)),
        A::SchoolbookAlg7 => xmm().map(|t| paper::one_block(t, Kind::Alg7, h, body, tail)),
        A::SchoolbookAlg8 => xmm().map(|t| paper::one_block(t, Kind::Alg8, h, body, tail)),
        A::SchoolbookAlg9 => xmm().map(|t| paper::one_block(t, Kind::Alg9, h, body, tail)),
        A::Fig8Aggregated4 => xmm().map(|t| paper::aggregated4::<false>(t, h, body, tail)),
        A::SchoolbookAggregated4 => xmm().map(|t| paper::aggregated4::<true>(t, h, body, tail)),
        A::AggregatedXmm4 => xmm().map(|t| whitepaper::aggregated::<4>(t, h, body, tail)),
        A::AggregatedXmm8 => xmm().map(|t| whitepaper::aggregated::<8>(t, h, body, tail)),
        A::AggregatedXmm16 => xmm().map(|t| whitepaper::aggregated::<16>(t, h, body, tail)),
        A::AggregatedXmm32 => xmm().map(|t| whitepaper::aggregated::<32>(t, h, body, tail)),
        A::AggregatedYmm8 => ymm().map(|t| whitepaper_wide::ymm::aggregated::<8>(t, h, body, tail)),
        A::AggregatedYmm16 => {
            ymm().map(|t| whitepaper_wide::ymm::aggregated::<16>(t, h, body, tail))
        }
        A::AggregatedYmm32 => {
            ymm().map(|t| whitepaper_wide::ymm::aggregated::<32>(t, h, body, tail))
        }
        A::AggregatedZmm16 => {
            zmm().map(|t| whitepaper_wide::zmm::aggregated::<16>(t, h, body, tail))
        }
        A::AggregatedZmm32 => {
            zmm().map(|t| whitepaper_wide::zmm::aggregated::<32>(t, h, body, tail))
        }
        A::Best => None, // handled by the caller
    }
}
