//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `avx512ifma` — capability token [`Avx512Ifma`].
//!
//! # Math: eight interleaved Horner chains
//!
//! As the AVX2 backend (`avx2.rs`) with eight lanes: the lane of block
//! `k` of each group of eight runs Horner's rule with the multiplier `r^8`
//! over blocks `k+1, k+9, …`, and the lanes are combined at the end by
//! multiplying that lane by `r^(8−k)` (the vectorisation of Goll & Gueron,
//! ITNG 2015, widened; lane `j` holds block [`LANE_BLOCK`]`[j]`). The
//! whole input goes through the complete 8-decimation Horner scheme of
//! Bhattacharyya & Sarkar (ePrint 2019/842): `z = (8 − n mod 8) mod 8`
//! zero blocks are prepended logically (the first step fills the lanes of
//! blocks `z … 7`, the others are zero without the 2^128 bit, and the
//! incoming accumulator joins the lane of block `z`), so there is no
//! scalar tail. The loop takes two groups per
//! iteration, `H ← H·r^16 + G₁·r^8 + G₂`, keeping the product `G₁·r^8`
//! off the dependency chain through `H`.
//!
//! # Representation: radix 2^44
//!
//! An element is `l₀ + l₁·2^44 + l₂·2^88` (44, 44 and 42 bits nominal)
//! in 64-bit lanes, one zmm register per limb. `vpmadd52luq` /
//! `vpmadd52huq` multiply the low 52 bits of two lanes and add the low or
//! the high 52 bits of the 104-bit product to a 64-bit accumulator. With
//! `2^132 ≡ 4·5 = 20`, the columns of `h·r` are
//!
//! ```text
//! c₀ = h₀r₀ + h₁·(20r₂) + h₂·(20r₁)
//! c₁ = h₀r₁ + h₁r₀     + h₂·(20r₂)
//! c₂ = h₀r₂ + h₁r₁     + h₂r₀
//! ```
//!
//! and each column is kept as its low halves `L_k` (weight `2^(44k)`) and
//! high halves `H_k` (weight `2^(44k+52)`): `H₀` and `H₁` move one column
//! up shifted left by 8 (`2^52 = 2^44·2^8`), and `H₂`, at `2^140 ≡ 5·2^10`,
//! comes back to column 0 times 5120 (`(H₂ << 12) + (H₂ << 10)`).
//!
//! # Preconditions
//!
//! Accumulator limbs below `(2^46, 2^46, 2^44)`; power limbs below
//! `(2^44 + 2^15, 2^44 + 2^11, 2^42 + 2^11)`, so `20r₁ < 2^48.4`,
//! `20r₂ < 2^46.4`, all under the multiplier's 52 bits. Then
//! `L_k < 3·2^52`, `H₀ < 2^41.5`, `H₁ < 2^39.7`, `H₂ < 2^38.6`, and the
//! folded columns stay below 2^54; two products summed (the two-group
//! iteration) stay below 2^55.
//!
//! # Postconditions
//!
//! The carry, one round with the three limbs in parallel (`0→1`, `1→2`,
//! `2→5·0`, at 44, 44 and 42 bits), takes columns below 2^55 to limbs
//! below `(2^44 + 2^15.4, 2^44 + 2^11, 2^42 + 2^11)`, and a single
//! product's (below 2^54) to limbs within the power bound; adding a block
//! (limbs below `2^44, 2^44, 2^41` with the 2^128 bit, which is 2^40 in
//! limb 2) meets the accumulator bound. The incoming accumulator (`h₂ ≤
//! 4`) has limb 2 below `5·2^40`, which the same bound covers. The lanes
//! summed at the end (eight products below 2^54 each) stay below 2^57,
//! under the scalar carry's 2^60.
//!
//! # Operation counts
//!
//! Per 8-block group (128 bytes): 9 `vpmadd52luq` and 9 `vpmadd52huq`,
//! the block load (2 loads, 2 `vpunpck{l,h}qdq`, 6 shifts/ors/ands) and
//! 3 adds; per pair of groups one fold (5 shifts and adds) and one carry.
//! The loop is throughput-bound (see the floor below), so three choices
//! keep the operations that are not `vpmadd52` few:
//!
//! - `H·r^16` multiply-adds onto the columns of `G₁·r^8`, so the two
//!   products are summed for nothing and folded once;
//! - the carry is one round with the limbs in parallel, 9 operations
//!   instead of a chain of 12;
//! - the blocks are split by in-lane unpacks, which leave lane `j` with
//!   block [`LANE_BLOCK`]`[j]` of its group, `(0, 4, 1, 5, 2, 6, 3, 7)`,
//!   and the lane powers are stored in that order, instead of two
//!   lane-crossing `vpermt2q`.
//!
//! The combination at the end is one product by the per-lane powers and
//! three horizontal sums.
//!
//! The powers `r … r^8` and `r^16` are four lane-wise products in a chain
//! on ymm ([`power_vectors`]): Zen 4 issues one zmm `vpmadd52` a cycle and
//! two ymm ones (latency 4 either way, `peer-bench --isa-rates`), so on
//! zmm the 18 of a product take longer to issue than their 12-cycle chain.
//! A key that sees more input keeps them ([`powers_ifma`]); a key's last
//! input (the one-shot tag, the AEAD's tag) takes [`decimation_once`],
//! where they go straight into the kernel's registers and only the lane
//! powers wait for the combination, in a five-zmm stack buffer that the
//! kernel wipes (held in registers, they were spilled to slots nothing
//! wiped). The crossover with the scalar loop is then at 13 blocks on Zen
//! 4 (the tuning table's `min_once_blocks`; `min_vector_blocks`, 24, for a
//! key that keeps its powers; `poly1305/tuning.rs`). The first group (`8 − z` blocks behind `z` zero ones) is
//! loaded by masked loads and one permutation per limb pair
//! ([`load_first`]), not through a stack buffer, whose byte stores the
//! vector loads could not forward from.
//!
//! Rejected (figures in `docs/notes/poly1305-ifma.md`):
//!
//! - Radix 2^26 on zmm — 25 products per element where IFMA needs 9, and
//!   52-bit products are what IFMA gives.
//! - 256-bit IFMA (`avxifma`) — this project's CPUs lack it.
//! - The powers by a scalar radix-2^44 product tree (`r^2, r^4, r^8,
//!   r^16` squared in a chain, the odd powers off it) — slower on Zen 4.
//! - A four-lane kernel on ymm for 16–63 blocks — slower than the scalar
//!   loop at 256 B and than this kernel at 576 B: the fixed cost below 1
//!   KiB is the powers' chain, not the lane count.
//! - Two Horner chains by `r^16` over alternate groups instead of the
//!   two-group step — ≈ 5 % slower marginally: the loop is
//!   throughput-bound, and the second chain's carry costs more than the
//!   latency it hides.
//!
//! # Floor on Zen 4
//!
//! AMD EPYC family 25 model 17 runs a zmm operation as two 256-bit
//! halves on its four vector pipes (`peer-bench --isa-rates`: `vpaddq
//! zmm` 0.5 cycles, `vpmadd52luq zmm` 1.0, on the two multiplier pipes).
//! The compiled two-group loop issues, per 256 bytes, 37 `vpmadd52` (the
//! carry's `×5` is one) and one `vpmullq` (the fold's `×5120`) on the
//! multiplier pipes, 32 other vector ALU operations (9 adds, 16 shifts
//! and logic, 4 unpacks, 2 `vpternlogq`, 1 or) and 4 loads: a floor of
//! 38 cycles per 256 bytes on the multiplier pipes (0.148 cycles/byte),
//! 35 on all four. `--isa-rates` times `vpmadd52luq zmm` issued 1:1 with
//! `vpaddq` at 1.28 cycles each, with `vpsrlq` at 1.36 (the others take
//! multiplier slots). The loop runs at about 1.14× the floor (0.170
//! cycles/byte marginal); `peer-bench --filter poly1305` compares it with
//! OpenSSL's AVX-512 code (dated figures in `docs/notes/poly1305-ifma.md`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// limb and lane indices are constants or loop counters over fixed 3-limb and 8-lane arrays; data offsets step by whole 128-byte groups below the whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::portable::{self, Acc};
use super::radix44::{Limbs, MASK42, MASK44, limbs_of};
use super::tuning::IfmaTuning;
use crate::cpu::Avx512Ifma;
use core::arch::x86_64::{
    __m256i, __m512i, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm256_add_epi64, _mm256_and_si256,
    _mm256_broadcastq_epi64, _mm256_castsi256_si128, _mm256_madd52hi_epu64, _mm256_madd52lo_epu64,
    _mm256_mask_blend_epi64, _mm256_set1_epi64x, _mm256_setzero_si256, _mm256_sll_epi64,
    _mm256_srl_epi64, _mm512_add_epi64, _mm512_and_si512, _mm512_broadcastq_epi64,
    _mm512_castsi256_si512, _mm512_castsi512_si128, _mm512_inserti64x4, _mm512_loadu_si512,
    _mm512_madd52hi_epu64, _mm512_madd52lo_epu64, _mm512_maskz_loadu_epi64,
    _mm512_maskz_permutex2var_epi64, _mm512_maskz_set1_epi64, _mm512_or_si512,
    _mm512_permutexvar_epi64, _mm512_reduce_add_epi64, _mm512_set1_epi64, _mm512_setr_epi64,
    _mm512_setzero_si512, _mm512_slli_epi64, _mm512_srli_epi64, _mm512_storeu_si512,
    _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
};
use zeroize::Zeroize;

/// The 2^128 bit of a whole block, in limb 2.
const HIBIT: u64 = 1 << 40;

/// Carries scalar column sums (each `< 2^60`) and packs them into an
/// accumulator with `h₂ ≤ 4`.
#[inline(always)]
fn acc_of_columns(mut t: Limbs) -> Acc {
    t[1] += t[0] >> 44;
    t[0] &= MASK44;
    t[2] += t[1] >> 44;
    t[1] &= MASK44;
    t[0] += (t[2] >> 42) * 5;
    t[2] &= MASK42;
    t[1] += t[0] >> 44;
    t[0] &= MASK44;
    // t₀ < 2^44, t₁ ≤ 2^44, t₂ < 2^42: below 2^131.
    let lo = t[0] as u128 + ((t[1] as u128) << 44);
    let mid = (lo >> 64) + ((t[2] as u128) << 24);
    [lo as u64, mid as u64, (mid >> 64) as u64]
}

/// The powers of `r` the kernel uses, as the lanes it loads them into:
/// `by_lane[f][j]` is field `f` of `r^(8 − LANE_BLOCK[j])` (`f` = limbs
/// 0, 1, 2, then `20·r₁`, `20·r₂`), `r16` the same fields of `r^16`. Limbs within the
/// power bound of the module docs (the kernel's carry; not fully reduced).
#[derive(Clone)]
struct Powers {
    by_lane: [[u64; 8]; 5],
    r16: [u64; 5],
}

impl Powers {
    /// No powers yet: the slot [`Powers::fill`] computes them into.
    const ZERO: Powers = Powers {
        by_lane: [[0; 8]; 5],
        r16: [0; 5],
    };

    /// The powers of `scalar`'s `r`, computed into `self` in place: built
    /// as a value and moved into the key, they left their first copy in a
    /// dead stack frame (found by the test `stack_tests`).
    fn fill(&mut self, token: Avx512Ifma, scalar: &portable::Key) {
        let mut r = limbs_of(scalar.r(), 0);
        // SAFETY: the token proves AVX-512 F/BW/VL/DQ and IFMA.
        unsafe { powers_ifma(token, r, self) };
        r.zeroize();
    }
}

impl Drop for Powers {
    fn drop(&mut self) {
        self.by_lane.zeroize();
        self.r16.zeroize();
    }
}

/// The IFMA key: `r` for the scalar path, once a long input needs them
/// its powers, and its crossovers (picked when the key is made).
#[derive(Clone)]
pub(crate) struct Key {
    token: Avx512Ifma,
    scalar: portable::Key,
    powers: Option<Powers>,
    tuning: IfmaTuning,
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.scalar.secret_spans(s);
        if let Some(p) = &self.powers {
            s.secret("r^k lanes", &p.by_lane);
            s.secret("r^16", &p.r16);
        }
    }
}

impl Backend for Key {
    type Token = Avx512Ifma;
    const NAME: &'static str = "avx512ifma";

    /// The key with this CPU's crossovers ([`super::tuning`]).
    #[inline]
    fn new(token: Avx512Ifma, key: &[u8; 32]) -> Key {
        Key::tuned(token, key, super::tuning::pick().ifma)
    }

    fn scalar(&self) -> &portable::Key {
        &self.scalar
    }

    /// Absorbs whole blocks (`data.len()` a multiple of 16) by complete
    /// 8-decimation Horner. Inputs below the tuning's `min_vector_blocks`
    /// stay scalar.
    fn blocks(&mut self, h: &mut Acc, data: &[u8]) {
        let n = data.len() / 16;
        if n == 0 || n < usize::from(self.tuning.min_vector_blocks) {
            self.scalar.blocks(h, data);
            return;
        }
        self.vector_blocks(h, data);
    }

    /// [`Backend::blocks`] for the key's last input (the one-shot tag, the
    /// AEAD's tag): if the powers are not cached yet, the vector path
    /// computes them in registers and does not keep them (from the
    /// tuning's `min_once_blocks`, at least 1).
    fn blocks_once(&mut self, h: &mut Acc, data: &[u8]) {
        let n = data.len() / 16;
        if n < usize::from(self.tuning.min_once_blocks) || self.powers.is_some() {
            self.blocks(h, data);
            return;
        }
        self.vector_blocks_once(h, data);
    }
}

impl Key {
    /// The key with the given crossovers (`min_once_blocks` at least 1;
    /// tests force the vector paths with both at 1).
    #[inline]
    pub(crate) fn tuned(token: Avx512Ifma, key: &[u8; 32], tuning: IfmaTuning) -> Key {
        debug_assert!(tuning.min_once_blocks >= 1);
        Key {
            token,
            scalar: portable::Key::new(key),
            powers: None,
            tuning,
        }
    }

    /// The vector path of [`Backend::blocks_once`], out of line as
    /// [`Key::vector_blocks`] is.
    #[inline(never)]
    fn vector_blocks_once(&self, h: &mut Acc, data: &[u8]) {
        let mut r = limbs_of(self.scalar.r(), 0);
        // SAFETY: the token proves AVX-512 F/BW/VL/DQ and IFMA
        // (cpu::Avx512Ifma).
        unsafe { decimation_once(self.token, r, h, data) };
        r.zeroize();
    }

    /// The vector path of [`Backend::blocks`], out of line so that the scalar
    /// path of short inputs stays small where it is inlined (with the
    /// powers' code inline here, one-shot 64 B went from 28 to 34 ns on
    /// Zen 4; out of line, 28).
    #[inline(never)]
    fn vector_blocks(&mut self, h: &mut Acc, data: &[u8]) {
        let token = self.token;
        let scalar = &self.scalar;
        let powers = match &mut self.powers {
            Some(p) => p,
            empty => {
                let p = empty.insert(Powers::ZERO);
                p.fill(token, scalar);
                p
            }
        };
        // SAFETY: the token proves AVX-512 F/BW/VL/DQ and IFMA
        // (cpu::Avx512Ifma).
        unsafe { decimation(token, powers, h, data) };
    }
}

/// The 64-bit-lane vector operations the product and the carry use, on
/// zmm (eight lanes: the kernel) and ymm (four lanes, EVEX-encoded: the
/// powers, whose products are latency-bound and where ymm `vpmadd52`
/// issues twice as fast on Zen 4; see [`powers_ifma`]).
///
/// Implemented only for `__m512i` and `__m256i`, and reached only from the
/// `#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]`
/// functions of this module, which take the [`Avx512Ifma`] token; each
/// `unsafe` in the implementations relies on that.
trait Lanes: Copy {
    fn splat(x: u64) -> Self;
    fn zero() -> Self;
    fn add(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    fn shl<const N: u32>(self) -> Self;
    fn shr<const N: u32>(self) -> Self;
    /// `self + lo52(a·b)` per lane.
    fn madd_lo(self, a: Self, b: Self) -> Self;
    /// `self + hi52(a·b)` per lane.
    fn madd_hi(self, a: Self, b: Self) -> Self;
}

macro_rules! lanes_impl {
    ($t:ty, $set1:ident, $zero:ident, $add:ident, $and:ident, $sll:ident, $srl:ident,
     $mlo:ident, $mhi:ident) => {
        impl Lanes for $t {
            #[inline(always)]
            fn splat(x: u64) -> Self {
                // SAFETY: see the trait docs.
                unsafe { $set1(x as i64) }
            }
            #[inline(always)]
            fn zero() -> Self {
                // SAFETY: see the trait docs.
                unsafe { $zero() }
            }
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                // SAFETY: see the trait docs.
                unsafe { $add(self, b) }
            }
            #[inline(always)]
            fn and(self, b: Self) -> Self {
                // SAFETY: see the trait docs.
                unsafe { $and(self, b) }
            }
            #[inline(always)]
            fn shl<const N: u32>(self) -> Self {
                $sll::<N>(self)
            }
            #[inline(always)]
            fn shr<const N: u32>(self) -> Self {
                $srl::<N>(self)
            }
            #[inline(always)]
            fn madd_lo(self, a: Self, b: Self) -> Self {
                // SAFETY: see the trait docs.
                unsafe { $mlo(self, a, b) }
            }
            #[inline(always)]
            fn madd_hi(self, a: Self, b: Self) -> Self {
                // SAFETY: see the trait docs.
                unsafe { $mhi(self, a, b) }
            }
        }
    };
}

// Shifts by a constant: the zmm intrinsics take it as `u32`, the ymm
// (AVX2) ones as `i32`, which a generic `u32` cannot be converted to in a
// const argument; the ymm shifts take the count in a register (LLVM folds
// the constant back into the immediate form).
#[inline(always)]
fn zmm_shl<const N: u32>(x: __m512i) -> __m512i {
    // SAFETY: see the `Lanes` docs.
    unsafe { _mm512_slli_epi64::<N>(x) }
}
#[inline(always)]
fn zmm_shr<const N: u32>(x: __m512i) -> __m512i {
    // SAFETY: see the `Lanes` docs.
    unsafe { _mm512_srli_epi64::<N>(x) }
}
#[inline(always)]
fn ymm_shl<const N: u32>(x: __m256i) -> __m256i {
    // SAFETY: see the `Lanes` docs.
    unsafe { _mm256_sll_epi64(x, _mm_cvtsi64_si128(i64::from(N))) }
}
#[inline(always)]
fn ymm_shr<const N: u32>(x: __m256i) -> __m256i {
    // SAFETY: see the `Lanes` docs.
    unsafe { _mm256_srl_epi64(x, _mm_cvtsi64_si128(i64::from(N))) }
}

lanes_impl!(
    __m512i,
    _mm512_set1_epi64,
    _mm512_setzero_si512,
    _mm512_add_epi64,
    _mm512_and_si512,
    zmm_shl,
    zmm_shr,
    _mm512_madd52lo_epu64,
    _mm512_madd52hi_epu64
);
lanes_impl!(
    __m256i,
    _mm256_set1_epi64x,
    _mm256_setzero_si256,
    _mm256_add_epi64,
    _mm256_and_si256,
    ymm_shl,
    ymm_shr,
    _mm256_madd52lo_epu64,
    _mm256_madd52hi_epu64
);

/// Elements limb by limb: eight (zmm) or four (ymm) lanes.
type Vec3<V = __m512i> = [V; 3];

/// A power in every lane: limbs, `20r₁`, `20r₂`.
type Bcast<V = __m512i> = (Vec3<V>, V, V);

// The free functions below are reached only from the
// `#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]`
// functions of this module, which take the `cpu::Avx512Ifma` token; each
// `unsafe` below relies on that.

#[inline(always)]
fn splat(x: u64) -> __m512i {
    __m512i::splat(x)
}

#[inline(always)]
fn add(a: __m512i, b: __m512i) -> __m512i {
    a.add(b)
}

/// The block of an 8-block group that lane `j` holds: the order in which
/// `vpunpck{l,h}qdq` of the group's two halves leaves the blocks' low and
/// high words (each 128-bit lane pairs block `k` with block `4 + k`).
const LANE_BLOCK: [usize; 8] = [0, 4, 1, 5, 2, 6, 3, 7];

/// The lane that holds block `k` of a group: the inverse of [`LANE_BLOCK`].
const BLOCK_LANE: [usize; 8] = {
    let mut lane = [0; 8];
    let mut j = 0;
    while j < 8 {
        lane[LANE_BLOCK[j]] = j;
        j += 1;
    }
    lane
};

/// Eight blocks (128 bytes) as limbs, lane `j` = block `LANE_BLOCK[j]`,
/// with `hibit` (per lane) added to limb 2.
#[inline(always)]
fn load8(block: &[u8; 128], hibit: __m512i) -> Vec3 {
    // SAFETY: AVX-512F is available (as in `splat`); the loads read the 128
    // bytes of `block`.
    unsafe {
        let a = _mm512_loadu_si512(block.as_ptr().cast::<__m512i>());
        let b = _mm512_loadu_si512(block.as_ptr().add(64).cast::<__m512i>());
        limbs_of_halves(
            _mm512_unpacklo_epi64(a, b),
            _mm512_unpackhi_epi64(a, b),
            hibit,
        )
    }
}

/// Blocks given as their low (`l`) and high (`h`) 64-bit halves, one block
/// per lane, as 44-bit limbs with `hibit` in limb 2.
#[inline(always)]
fn limbs_of_halves(l: __m512i, h: __m512i, hibit: __m512i) -> Vec3 {
    // SAFETY: AVX-512F is available (as in `splat`).
    unsafe {
        let m = splat(MASK44);
        [
            _mm512_and_si512(l, m),
            _mm512_and_si512(
                _mm512_or_si512(_mm512_srli_epi64::<44>(l), _mm512_slli_epi64::<20>(h)),
                m,
            ),
            _mm512_or_si512(_mm512_srli_epi64::<24>(h), hibit),
        ]
    }
}

/// The first group of a message of `8 − z` blocks mod 8 (`first`, whole
/// blocks `0 … 7 − z`) as limbs with `z` zero blocks prepended: lane `j`
/// holds block `j − z` with the 2^128 bit, lanes below `z` are zero.
/// Masked loads and a lane permutation, so nothing goes through a stack
/// buffer (its byte stores could not forward to the vector loads).
#[inline(always)]
fn load_first(first: &[u8], z: usize) -> Vec3 {
    debug_assert!(z < 8 && first.len() == 16 * (8 - z));
    let words = 2 * (8 - z) as u32;
    let m_lo = (((1u32 << words.min(8)) - 1) & 0xff) as u8;
    let m_hi = ((1u32 << words.saturating_sub(8)) - 1) as u8;
    // Lanes whose block of the group is a real one (block ≥ z).
    let live = (0..8).fold(0u8, |m, j| m | (u8::from(LANE_BLOCK[j] >= z) << j));
    // SAFETY: AVX-512F is available (as in `splat`); the masked loads
    // read the `16·(8 − z)` bytes of `first` and nothing else (masked-off
    // words are not accessed; the second address is formed with
    // `wrapping_add` and read only where `m_hi` is non-zero, i.e. where
    // `first` has more than 64 bytes).
    unsafe {
        let p = first.as_ptr().cast::<i64>();
        let a = _mm512_maskz_loadu_epi64(m_lo, p);
        let b = _mm512_maskz_loadu_epi64(m_hi, p.wrapping_add(8));
        // Lane j takes word 2(LANE_BLOCK[j] − z) (low) and the next one
        // (high) of the pair (a, b); lanes of the z zero blocks are zeroed
        // by the mask (their indices are unused).
        let lo = |j: usize| 2 * LANE_BLOCK[j] as i64 - 2 * z as i64;
        let lo_idx = _mm512_setr_epi64(lo(0), lo(1), lo(2), lo(3), lo(4), lo(5), lo(6), lo(7));
        let hi_idx = _mm512_add_epi64(lo_idx, _mm512_set1_epi64(1));
        limbs_of_halves(
            _mm512_maskz_permutex2var_epi64(live, a, lo_idx, b),
            _mm512_maskz_permutex2var_epi64(live, a, hi_idx, b),
            _mm512_maskz_set1_epi64(live, HIBIT as i64),
        )
    }
}

/// The low and high halves of the columns of `h·r`, `(u₂, l₀, u₀, l₁,
/// u₁, l₂)`, added to `acc` (the multiply-adds accumulate into it, so a
/// second product costs no additions). The columns on the carry's
/// critical path (`u₂`, folded into column 0, and `l₀`) come first.
#[inline(always)]
fn products<V: Lanes>(acc: [V; 6], h: &Vec3<V>, p: &Bcast<V>) -> [V; 6] {
    let (r, r1_20, r2_20) = p;
    let [h0, h1, h2] = *h;
    let [u2, l0, u0, l1, u1, l2] = acc;
    [
        u2.madd_hi(h0, r[2]).madd_hi(h1, r[1]).madd_hi(h2, r[0]),
        l0.madd_lo(h0, r[0]).madd_lo(h1, *r2_20).madd_lo(h2, *r1_20),
        u0.madd_hi(h0, r[0]).madd_hi(h1, *r2_20).madd_hi(h2, *r1_20),
        l1.madd_lo(h0, r[1]).madd_lo(h1, r[0]).madd_lo(h2, *r2_20),
        u1.madd_hi(h0, r[1]).madd_hi(h1, r[0]).madd_hi(h2, *r2_20),
        l2.madd_lo(h0, r[2]).madd_lo(h1, r[1]).madd_lo(h2, r[0]),
    ]
}

/// The halves from [`products`] folded into three columns: `H₀` and
/// `H₁` one column up times 2^8, `H₂` to column 0 times 5120.
#[inline(always)]
fn fold<V: Lanes>(c: [V; 6]) -> Vec3<V> {
    let [u2, l0, u0, l1, u1, l2] = c;
    [
        l0.add(u2.shl::<12>().add(u2.shl::<10>())),
        l1.add(u0.shl::<8>()),
        l2.add(u1.shl::<8>()),
    ]
}

/// Folded column sums of `h·r` (not carried; below 2^54, see the module
/// docs).
#[inline(always)]
fn mul_columns<V: Lanes>(h: &Vec3<V>, p: &Bcast<V>) -> Vec3<V> {
    fold(products([V::zero(); 6], h, p))
}

/// One carry round, the three limbs in parallel (`0→1`, `1→2`, `2→5·0`,
/// at 44, 44 and 42 bits): folded columns below 2^55 become limbs below
/// `(2^44 + 2^15.4, 2^44 + 2^11, 2^42 + 2^11)`, which every product takes
/// (see the module docs). A sequential chain (`0→1→2→5·0→1`) would leave
/// them a few bits smaller for three more operations and twice the
/// latency.
#[inline(always)]
fn carry<V: Lanes>(t: Vec3<V>) -> Vec3<V> {
    let (m44, m42) = (V::splat(MASK44), V::splat(MASK42));
    let [t0, t1, t2] = t;
    let (c0, c1, c2) = (t0.shr::<44>(), t1.shr::<44>(), t2.shr::<42>());
    [
        t0.and(m44).add(c2.add(c2.shl::<2>())),
        t1.and(m44).add(c0),
        t2.and(m42).add(c1),
    ]
}

/// Fields `f` of a power in every lane.
#[inline(always)]
fn broadcast(p: &[u64; 5]) -> Bcast {
    (
        [splat(p[0]), splat(p[1]), splat(p[2])],
        splat(p[3]),
        splat(p[4]),
    )
}

/// Lane `j` from `by_lane[·][j]`.
#[inline(always)]
fn per_lane(by_lane: &[[u64; 8]; 5]) -> Bcast {
    // SAFETY: AVX-512F is available (as in `splat`); each load reads one
    // 64-byte row of `by_lane`.
    let v = |f: usize| unsafe { _mm512_loadu_si512(by_lane[f].as_ptr().cast::<__m512i>()) };
    ([v(0), v(1), v(2)], v(3), v(4))
}

/// `20·x` per lane (`16x + 4x`).
#[inline(always)]
fn times20<V: Lanes>(x: V) -> V {
    x.shl::<4>().add(x.shl::<2>())
}

/// A product's limbs with the multiplier fields `mul_columns` takes.
#[inline(always)]
fn fields<V: Lanes>(v: Vec3<V>) -> Bcast<V> {
    (v, times20(v[1]), times20(v[2]))
}

/// Lane `j` of `v` from `a` where bit `j` of `mask` is set, else from `b`
/// (four lanes).
#[inline(always)]
fn blend4(mask: u8, a: &Vec3<__m256i>, b: &Vec3<__m256i>) -> Vec3<__m256i> {
    // SAFETY: AVX-512VL is available (see the `Lanes` docs).
    unsafe { core::array::from_fn(|k| _mm256_mask_blend_epi64(mask, b[k], a[k])) }
}

/// Lane 0 of `v` in every lane (four lanes).
#[inline(always)]
fn lane0(v: &Vec3<__m256i>) -> Vec3<__m256i> {
    // SAFETY: AVX2 is available (see the `Lanes` docs).
    unsafe { v.map(|x| _mm256_broadcastq_epi64(_mm256_castsi256_si128(x))) }
}

/// The powers as the kernel's operands: `r^8` and `r^16` in every lane,
/// and `r^(8 − LANE_BLOCK[j])` in lane `j` (the combination's
/// multipliers).
struct PowerVecs {
    r8: Bcast,
    r16: Bcast,
    lanes: Bcast,
}

/// The powers `r … r^8` and `r^16` from `r`'s limbs, four lane-wise
/// products in a chain instead of nine scalar ones: `r²` in every lane;
/// `(r⁴, r³)` in lanes 0 and 1 as `(r², r)·r²`; with lanes 2 and 3 kept
/// at `(r², r)`, times `r⁴` that gives `(r⁸, r⁷, r⁶, r⁵)`, and the two
/// halves are the eight powers; `r^16` is `r⁸` squared. Each product is
/// the kernel's `mul_columns` and `carry`, so limbs stay within the power
/// bound of the module docs, which `mul_columns` takes as either operand.
///
/// The products run on ymm: they are a latency chain (12 cycles of
/// `vpmadd52` latency each), and Zen 4 issues one zmm `vpmadd52` a cycle
/// but two ymm ones (`peer-bench --isa-rates`), so on zmm the 18 of a
/// product took longer to issue than their chain.
#[inline(always)]
fn power_vectors(r: Limbs) -> PowerVecs {
    let p1: Vec3<__m256i> = r.map(__m256i::splat);
    let p2 = carry(mul_columns(&p1, &fields(p1)));
    // Lanes (r², r, r², r).
    let t2 = blend4(0b1010, &p1, &p2);
    // Lanes (r⁴, r³, r⁴, r³).
    let t4 = carry(mul_columns(&t2, &fields(p2)));
    // Lanes (r⁴, r³, r², r).
    let u4 = blend4(0b0011, &t4, &t2);
    // Lanes (r⁸, r⁷, r⁶, r⁵).
    let u8 = carry(mul_columns(&u4, &fields(lane0(&t4))));
    let p8 = lane0(&u8);
    let r16 = carry(mul_columns(&p8, &fields(p8)));
    // Lane j: r^(8 − LANE_BLOCK[j]) from lane j = r^(8 − j).
    // SAFETY: AVX-512F is available (see the `Lanes` docs).
    let in_lane_order = |v: __m512i| unsafe {
        let [a, b, c, d, e, f, g, h] = LANE_BLOCK.map(|k| k as i64);
        _mm512_permutexvar_epi64(_mm512_setr_epi64(a, b, c, d, e, f, g, h), v)
    };
    // SAFETY: AVX-512F is available (see the `Lanes` docs).
    let wide = |v: __m256i| unsafe { _mm512_broadcastq_epi64(_mm256_castsi256_si128(v)) };
    // SAFETY: as for `wide`.
    let join =
        |h: __m256i, l: __m256i| unsafe { _mm512_inserti64x4::<1>(_mm512_castsi256_si512(h), l) };
    let ((hi4, a_hi, b_hi), (lo4, a_lo, b_lo)) = (fields(u8), fields(u4));
    let (l16, a16, b16) = fields(r16);
    PowerVecs {
        r8: (hi4.map(wide), wide(a_hi), wide(b_hi)),
        r16: (l16.map(wide), wide(a16), wide(b16)),
        lanes: (
            [
                in_lane_order(join(hi4[0], lo4[0])),
                in_lane_order(join(hi4[1], lo4[1])),
                in_lane_order(join(hi4[2], lo4[2])),
            ],
            in_lane_order(join(a_hi, a_lo)),
            in_lane_order(join(b_hi, b_lo)),
        ),
    }
}

/// [`power_vectors`], stored into `out` as the key keeps them.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL/DQ and IFMA.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
unsafe fn powers_ifma(_: Avx512Ifma, r: Limbs, out: &mut Powers) {
    let pv = power_vectors(r);
    let (l, a, b) = pv.lanes;
    let (l16, a16, b16) = pv.r16;
    for (row, v) in out.by_lane.iter_mut().zip([l[0], l[1], l[2], a, b]) {
        // SAFETY: a 64-byte store into one row of `by_lane`.
        unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast::<__m512i>(), v) };
    }
    for (f, v) in out.r16.iter_mut().zip([l16[0], l16[1], l16[2], a16, b16]) {
        // Lane 0 (every lane holds r^16).
        *f = _mm_cvtsi128_si64(_mm512_castsi512_si128(v)) as u64;
    }
}

/// Complete 8-decimation over `data` (a non-zero multiple of 16 bytes).
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL/DQ and IFMA (the caller holds
/// [`Avx512Ifma`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
unsafe fn decimation(_: Avx512Ifma, powers: &Powers, h: &mut Acc, data: &[u8]) {
    let r8 = broadcast(&powers.by_lane.map(|f| f[0]));
    let r16 = broadcast(&powers.r16);
    decimation_with(&r8, &r16, || per_lane(&powers.by_lane), h, data);
}

/// [`decimation`] with the powers computed from `r`'s limbs in registers
/// and not kept: a key's last input (the one-shot tag, the AEAD's tag)
/// then skips storing, reloading and wiping them.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL/DQ and IFMA (the caller holds
/// [`Avx512Ifma`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
unsafe fn decimation_once(_: Avx512Ifma, r: Limbs, h: &mut Acc, data: &[u8]) {
    let pv = power_vectors(r);
    // The lane powers wait for the combination in a buffer of this
    // frame, written and read by volatile accesses and wiped here: held
    // in registers across the loop, the compiler spilled them to slots
    // that could not be wiped.
    let (l, a, b) = pv.lanes;
    let mut held = [_mm512_setzero_si512(); 5];
    let slots = held.as_mut_ptr();
    for (k, v) in [l[0], l[1], l[2], a, b].into_iter().enumerate() {
        // SAFETY: `slots.add(k)`, `k < 5`, is an element of `held`.
        unsafe { core::ptr::write_volatile(slots.add(k), v) };
    }
    decimation_with(
        &pv.r8,
        &pv.r16,
        || {
            // SAFETY: as above.
            let v = |k: usize| unsafe { core::ptr::read_volatile(slots.add(k)) };
            ([v(0), v(1), v(2)], v(3), v(4))
        },
        h,
        data,
    );
    for k in 0..5 {
        // SAFETY: as above.
        unsafe { core::ptr::write_volatile(slots.add(k), _mm512_setzero_si512()) };
    }
}

/// The body of [`decimation`] and [`decimation_once`].
#[inline(always)]
fn decimation_with(
    r8: &Bcast,
    r16: &Bcast,
    lanes: impl FnOnce() -> Bcast,
    h: &mut Acc,
    data: &[u8],
) {
    let n = data.len() / 16;
    debug_assert!(n > 0 && data.len().is_multiple_of(16));
    // z zero blocks prepended: the first group holds 8 − z real blocks in
    // lanes z…7, no 2^128 bit below z, and h joins lane z.
    let z = (8 - n % 8) % 8;
    let (first, rest) = data.split_at(16 * (8 - z));
    let l = limbs_of((h[1] as u128) << 64 | h[0] as u128, h[2]);
    let first_group = load_first(first, z);
    // h joins the lane of block z.
    let at_z = 1u8 << BLOCK_LANE[z];
    // SAFETY: AVX-512F is available (only the kernels, which take
    // cpu::Avx512Ifma, reach here).
    let lane_z = |x: u64| unsafe { _mm512_maskz_set1_epi64(at_z, x as i64) };
    let mut hv = [
        add(first_group[0], lane_z(l[0])),
        add(first_group[1], lane_z(l[1])),
        add(first_group[2], lane_z(l[2])),
    ];

    let hibit = splat(HIBIT);
    let (pairs, odd) = rest.as_chunks::<256>();
    for pair in pairs {
        let (g1, g2) = pair.split_at(128);
        let (Ok(g1), Ok(g2)) = (<&[u8; 128]>::try_from(g1), <&[u8; 128]>::try_from(g2)) else {
            continue; // unreachable: both halves are 128 bytes
        };
        // G₁·r^8 first (off the chain), then H·r^16 accumulated onto it.
        let b = products([splat(0); 6], &load8(g1, hibit), r8);
        let t = carry(fold(products(b, &hv, r16)));
        let m = load8(g2, hibit);
        hv = [add(t[0], m[0]), add(t[1], m[1]), add(t[2], m[2])];
    }
    for group in odd.as_chunks::<128>().0 {
        let t = carry(mul_columns(&hv, r8));
        let m = load8(group, hibit);
        hv = [add(t[0], m[0]), add(t[1], m[1]), add(t[2], m[2])];
    }
    // Combine: lane j times r^(8−j), then the lanes summed (columns below
    // 2^54 each, eight of them below 2^57).
    let d = mul_columns(&hv, &lanes());
    // SAFETY: as for `lane_z`.
    let cols = d.map(|c| unsafe { _mm512_reduce_add_epi64(c) } as u64);
    *h = acc_of_columns(cols);
}

#[cfg(test)]
mod stack_tests {
    use super::*;
    use crate::wipe::stack_probe::{found, image, lanes_row};

    /// The powers as the kernels hold them: `r^8` (lane 0 of the per-lane
    /// powers) and `r^16` broadcast, each limb and its `20·` multiple, and
    /// the per-lane rows' first four lanes.
    fn rows(p: &Powers) -> alloc::vec::Vec<(&'static str, [u8; 32])> {
        let mut rows = alloc::vec::Vec::new();
        for limbs in [p.by_lane.map(|f| f[0]), p.r16] {
            for l in limbs {
                rows.push(("broadcast limb", lanes_row([l; 4])));
                rows.push(("broadcast 20·limb", lanes_row([20 * l; 4])));
            }
        }
        for f in &p.by_lane {
            rows.push(("per-lane row", lanes_row([f[0], f[1], f[2], f[3]])));
        }
        rows
    }

    /// The IFMA paths leave none of the powers' rows below the stack
    /// pointer: a key that keeps its powers (`blocks`; before `fill`, the
    /// powers' first copy was left there) and a key's last input
    /// (`blocks_once`). The control — copies of the rows in a dead frame,
    /// unwiped — is seen, so the probe can fail.
    #[test]
    fn no_power_rows_left_on_the_stack() {
        let Some(token) = crate::cpu::Avx512Ifma::get() else {
            return;
        };
        let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0x5c);
        let msg: alloc::vec::Vec<u8> = (0..4096).map(|i| (i as u8).wrapping_mul(11)).collect();
        let mut p = Powers::ZERO;
        p.fill(token, &portable::Key::new(&key));
        let rows = rows(&p);
        for len in [4096, 4096 - 16, 1024 + 48, 512] {
            for once in [false, true] {
                let mut k = <Key as Backend>::new(token, &key);
                let mut h: Acc = [0; 3];
                let data = &msg[..len];
                let img = image(|| {
                    if once {
                        k.blocks_once(&mut h, data);
                    } else {
                        k.blocks(&mut h, data);
                    }
                });
                let left = found(&img, &rows);
                assert!(left.is_empty(), "left: {left:?}, {len} bytes, once {once}");
            }
        }

        #[inline(never)]
        #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
        fn control(p: &Powers) {
            let mut lanes = p.by_lane;
            let mut splats = [broadcast(&p.r16), broadcast(&p.by_lane.map(|f| f[0]))];
            core::hint::black_box((&mut lanes, &mut splats));
        }
        // SAFETY: the token above proves the features.
        let img = image(|| unsafe { control(&p) });
        assert!(
            !found(&img, &rows).is_empty(),
            "the control left no row: the probe cannot see them"
        );
    }
}
