//! Target features: `vpclmulqdq`, `avx2`, `avx`, `pclmulqdq`, `sse4.1` —
//! capability token [`crate::cpu::Avx2Clmul`].
//!
//! GHASH / POLYVAL on ymm, for CPUs with VPCLMULQDQ but without AVX-512
//! (AMD Zen 3 and Zen 4 client parts, Intel's client cores from Ice Lake
//! on without AVX-512): aggregated reduction (Gueron & Kounavis, Intel
//! white paper 323640, rev. 2.02) over [`GROUP`] = 16 blocks, two blocks
//! per register. Register `c`, lane `l` holds block `2c + l` of a group and
//! meets `H^(16 − 2c − l)`; the accumulator enters block 0 only, so the
//! loop-carried chain is one product, the XOR tree, the lane sum and the
//! reduction. Messages of 2 to 31 blocks, and the last 2–15 blocks, are
//! groups of at most eight on ymm ([`update_short`]; a fresh key's first
//! group makes its powers in registers, `fresh_group`); one block goes
//! through the xmm path ([`super::clmul`]).
//!
//! # Representation
//!
//! Blocks and powers are 128-bit lanes in the POLYVAL domain (GHASH's
//! byte reversal is one `vpshufb` per register). Products are Karatsuba —
//! three `vpclmulqdq` per register, the powers' `h₀ ⊕ h₁` prepared once
//! per call, the middle term recombined once per group — because
//! `vpclmulqdq` is the scarce instruction on the cores this path is for:
//! on Zen 3 it issues once per two cycles, xmm or ymm, while shuffles and
//! XORs issue two to four per cycle (`peer-bench --isa-rates`).
//!
//! # Operation count (per 16 blocks)
//!
//! 24 `vpclmulqdq` for the products: 48 cycles at one per two cycles,
//! 0.19 cycles/byte — the floor on Zen 3. Beside them: 8 `vpshufd` and
//! 8 `vpxor` for the blocks' half-sums, 8 `vpshufb` (GHASH only), 24
//! `vpxor` into the sums, ≈ 8 for the recombination and lane sum — ≈ 56
//! operations on four vector ports, under the `vpclmulqdq` bound — and
//! the reduction in scalar shifts ([`mont_reduce`]), off the vector ports.
//!
//! # Rejected
//!
//! - 32 blocks per group — the same speed on Zen 3 as 16 (the white
//!   paper's progression, `peer-bench --filter ghash_progression`), and
//!   twice the key powers to compute for medium messages.
//!
//! # Figure
//!
//! See the `ghash` rows of `docs/benchmarks/` (`cargo run --release -p
//! peer-bench -- --filter ghash`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// power indices are loop counters below `GROUP` (16) within the 32 powers made for it; data offsets step by whole groups below the whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::aggregate::ymm;
use super::clmul::Pclmulqdq;
use super::field::{C_HI, POWERS, mont_reduce};
use super::{Backend, Fused, Low};
use crate::cpu::Avx2Clmul;
use crate::simd::{from_u128, to_u128, ymm_from_u128s as from_u128s};
use crate::vex256::_mm256_clmulepi64_epi128;
use core::arch::x86_64::*;

/// Blocks per aggregated reduction.
pub(super) const GROUP: usize = 16;

/// Messages of fewer blocks stay on the xmm path: at 16 blocks, computing
/// the eight extra powers cost more than the ymm group saved (peer-bench,
/// Zen 3: 256-byte POLYVAL 351 ticks against 241 on xmm).
pub(super) const MIN_BLOCKS: usize = 2 * GROUP;

/// The ymm backend: 16-block groups from [`MIN_BLOCKS`] blocks, groups of
/// at most eight below, a fresh key's first group fused with its key
/// setup.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VpclmulqdqYmm(Avx2Clmul);

impl Backend for VpclmulqdqYmm {
    super::backend_items!(Avx2Clmul, "vpclmulqdq-ymm", wide: GROUP from MIN_BLOCKS);

    /// A fresh key's first three to eight powers are two lanes at a time:
    /// `(H², H²) = (H, H)·(H, H)`, `(H³, H⁴) = (H², H²)·(H, H²)`,
    /// `(H^(4+i), H^(5+i)) = (H⁴, H⁴)·(H^i, H^(i+1))` — four two-lane
    /// products for eight powers where the xmm path takes seven, on cores
    /// where `vpclmulqdq` issues once per two cycles whatever its width.
    /// Schoolbook products (four `vpclmulqdq`, no half-sums): the chain of
    /// powers is latency-bound, and Karatsuba's half-sums lengthen it
    /// (64-byte POLYVAL 133 against 137 cycles, Zen 3). Anything else goes
    /// to the xmm path.
    fn powers(self, out: &mut [u128], from: usize) {
        if from <= 1 && (3..=8).contains(&out.len()) {
            // SAFETY: the token in `self` proves every feature
            // `powers_ymm` is compiled for.
            unsafe { powers_ymm(out) }
        } else {
            self.xmm().powers(out, from)
        }
    }

    /// `H^(8+i) = H^i·H^8`, four independent two-lane products (dot-powers
    /// multiply to the dot-power of the summed exponent), instead of eight
    /// one-lane products in a chain through memory.
    fn extend_powers(self, table: &mut [u128; POWERS], upto: usize) {
        debug_assert_eq!(upto, GROUP);
        // SAFETY: the token in `self` proves every feature `extend_ymm` is
        // compiled for.
        unsafe { extend_ymm(table) }
    }

    /// `powers` holds `H^1 … H^16` if `data` has at least [`MIN_BLOCKS`]
    /// blocks, else what the short groups need.
    fn update(self, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
        if data.len() < 16 * MIN_BLOCKS {
            if data.len() < 32 {
                return self.xmm().update(powers, acc, data, reflect);
            }
            // SAFETY: the token in `self` proves every feature
            // `update_short` is compiled for.
            return unsafe { update_short(powers, acc, data, reflect) };
        }
        // SAFETY: the token in `self` proves every feature `update_ymm` is
        // compiled for.
        unsafe { update_ymm(powers, acc, data, reflect) }
    }

    /// The powers the blocks need are made two lanes at a time as in
    /// [`Backend::powers`] (`(H, H²)`, `(H³, H⁴)`, …, whole pairs), stored
    /// into `low` for later calls, and used from the registers by the
    /// group (no store and reload between key setup and hash, which is
    /// most of a short message's latency).
    fn fresh_group(self, low: &mut Low, acc: u128, data: &[u8], reflect: bool) -> Fused {
        assert!((32..=128).contains(&data.len()) && data.len().is_multiple_of(16));
        // SAFETY: the token in `self` proves every feature
        // `fresh_group_ymm` is compiled for.
        Some(unsafe { fresh_group_ymm(low, acc, data, reflect) })
    }
}

impl VpclmulqdqYmm {
    /// The xmm backend on the same CPU (a fresh key's mid-length calls on
    /// Intel, see `super::tuning`).
    #[inline(always)]
    pub(super) fn xmm(self) -> Pclmulqdq {
        Pclmulqdq::new(self.0.clmul())
    }

    /// Fewer than [`MIN_BLOCKS`] blocks with `H^1 … H^16` ready (the zmm
    /// groups' last blocks on a split key): a 16-block group if there is
    /// one, then groups of at most eight.
    pub(super) fn update_rest(
        self,
        powers: &[u128],
        acc: u128,
        data: &[u8],
        reflect: bool,
    ) -> u128 {
        if data.len() >= 16 * GROUP {
            // SAFETY: the token in `self` proves every feature
            // `update_ymm` is compiled for.
            unsafe { update_ymm(powers, acc, data, reflect) }
        } else {
            self.update(powers, acc, data, reflect)
        }
    }
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn extend_ymm(powers: &mut [u128]) {
    let c = _mm256_set1_epi64x(C_HI as i64);
    let h8 = _mm256_broadcastsi128_si256(lane(powers, 7));
    for k in 0..4 {
        let v = pair(powers, 2 * k, 2 * k + 1);
        let r = ymm::dot2(v, h8, c);
        // One 32-byte store: `H^(9+2k)`, `H^(10+2k)` are adjacent.
        // SAFETY: `10 + 2k ≤ 16 ≤ powers.len()`: 32 writable bytes.
        unsafe { _mm256_storeu_si256(powers.as_mut_ptr().add(8 + 2 * k).cast(), r) };
    }
}

/// `powers[i]` as an xmm register, loaded as 16 bytes: the powers were
/// stored by whole vector stores, and a load that spans several stores
/// (as a `u128` pair moved into a ymm register would be) cannot take its
/// data from the store buffer and waits for them to retire.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn lane(powers: &[u128], i: usize) -> __m128i {
    let v: &u128 = &powers[i];
    // SAFETY: `v` is 16 readable bytes; `loadu` has no alignment demand.
    unsafe { _mm_loadu_si128((v as *const u128).cast()) }
}

/// `powers[lo]` in lane 0 and `powers[hi]` in lane 1 (see [`lane`]).
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn pair(powers: &[u128], lo: usize, hi: usize) -> __m256i {
    _mm256_set_m128i(lane(powers, hi), lane(powers, lo))
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn update_ymm(powers: &[u128], mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    const R: usize = GROUP / 2;
    let p: [__m256i; R] =
        core::array::from_fn(|c| pair(powers, GROUP - 1 - 2 * c, GROUP - 2 - 2 * c));
    let px: [__m256i; R] =
        core::array::from_fn(|c| _mm256_xor_si256(p[c], _mm256_shuffle_epi32::<0x4e>(p[c])));
    // Byte reversal within each 128-bit lane (GHASH's block order).
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 2]);
    let mut groups = data.chunks_exact(16 * GROUP);
    for g in &mut groups {
        let z = from_u128s([0; 2]);
        let (mut lo, mut hi, mut mid) = (z, z, z);
        // Block 0's register, the only one that waits for `acc`, last.
        for c in (0..R).rev() {
            // SAFETY: `g` has 256 bytes; this reads bytes 32c..32c + 32.
            let mut y = unsafe { _mm256_loadu_si256(g.as_ptr().add(32 * c).cast()) };
            if reflect {
                y = _mm256_shuffle_epi8(y, rev);
            }
            if c == 0 {
                y = _mm256_xor_si256(y, _mm256_zextsi128_si256(from_u128(acc)));
            }
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(y, p[c]));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(y, p[c]));
            let yx = _mm256_xor_si256(y, _mm256_shuffle_epi32::<0x4e>(y));
            mid = _mm256_xor_si256(mid, _mm256_clmulepi64_epi128::<0x00>(yx, px[c]));
        }
        // Karatsuba recombination per lane, then the two lanes summed.
        let mid = _mm256_xor_si256(mid, _mm256_xor_si256(lo, hi));
        let lo = _mm256_xor_si256(lo, _mm256_bslli_epi128::<8>(mid));
        let hi = _mm256_xor_si256(hi, _mm256_bsrli_epi128::<8>(mid));
        acc = mont_reduce(lanes_sum(lo), lanes_sum(hi));
    }
    // Fewer than 16 blocks left: groups of at most eight (one block: xmm).
    let rest = groups.remainder();
    if rest.len() >= 32 {
        update_short(powers, acc, rest, reflect)
    } else {
        super::clmul::update_blocks(powers, acc, rest, reflect)
    }
}

/// The XOR of the two 128-bit lanes.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn lanes_sum(v: __m256i) -> u128 {
    to_u128(_mm_xor_si128(
        _mm256_castsi256_si128(v),
        _mm256_extracti128_si256::<1>(v),
    ))
}

/// `powers[i]` as an xmm register from two 8-byte loads: `H` itself was
/// written by the state's constructor as two 8-byte stores, which one
/// 16-byte load cannot take from the store buffer (see
/// `super::clmul::power`; the 8-byte loads forward from either kind of
/// store). Not `clmul::power` itself: inlined from a function compiled
/// for fewer features, it changed the code of the fused first group
/// (64-byte GHASH with key setup about 3 % slower).
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn fresh_lane(powers: &[u128], i: usize) -> __m128i {
    let (lo, hi) = super::clmul::words(powers, i);
    _mm_set_epi64x(hi as i64, lo as i64)
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn powers_ymm(out: &mut [u128]) {
    let n = out.len();
    debug_assert!((3..=8).contains(&n));
    let c = _mm256_set1_epi64x(C_HI as i64);
    let pw = power_pairs(
        _mm256_broadcastsi128_si256(fresh_lane(out, 0)),
        n.div_ceil(2),
        c,
    );
    let dst = out.as_mut_ptr();
    // Whole pairs (the first rewrites `H` with its own value), then the
    // low lane of a last half pair.
    for (k, p) in pw.iter().enumerate().take(n / 2) {
        // SAFETY: `2k + 2 ≤ n`: 32 writable bytes of `out`.
        unsafe { _mm256_storeu_si256(dst.add(2 * k).cast(), *p) };
    }
    if n % 2 == 1 {
        // SAFETY: `n − 1 < n`: a 16-byte element of `out`.
        unsafe { _mm_storeu_si128(dst.add(n - 1).cast(), _mm256_castsi256_si128(pw[n / 2])) };
    }
}

/// `pw[k] = (H^(2k+1), H^(2k+2))` for `k < pairs` (1 … 4; later entries
/// are left at `(H, H²)`), from `h1 = (H, H)`: `(H², H²) = (H, H)·(H, H)`,
/// `(H³, H⁴) = (H², H²)·(H, H²)`, `(H^(4+i), H^(5+i)) = (H⁴, H⁴)·(H^i,
/// H^(i+1))`. Shared by the backend's `powers` and `fresh_group`.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn power_pairs(h1: __m256i, pairs: usize, c: __m256i) -> [__m256i; 4] {
    let h22 = ymm::dot2(h1, h1, c);
    let mut pw = [_mm256_blend_epi32::<0xf0>(h1, h22); 4];
    if pairs > 1 {
        pw[1] = ymm::dot2(h22, pw[0], c);
    }
    if pairs > 2 {
        let h44 = _mm256_permute2x128_si256::<0x11>(pw[1], pw[1]);
        pw[2] = ymm::dot2(h44, pw[0], c);
        if pairs > 3 {
            pw[3] = ymm::dot2(h44, pw[1], c);
        }
    }
    pw
}

/// Two to [`MIN_BLOCKS`]` − 1` whole blocks: groups of eight, then the
/// last one to seven blocks as one group, each group on ymm (two blocks a
/// register, Karatsuba products, one reduction): for a 64-byte message
/// 8 `vpclmulqdq` where the xmm group takes 14.
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn update_short(powers: &[u128], mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    let mut chunks = data.chunks_exact(128);
    for g in &mut chunks {
        acc = group_short::<8>(powers, g, acc, reflect);
    }
    let rem = chunks.remainder();
    match rem.len() / 16 {
        1 => group_short::<1>(powers, rem, acc, reflect),
        2 => group_short::<2>(powers, rem, acc, reflect),
        3 => group_short::<3>(powers, rem, acc, reflect),
        4 => group_short::<4>(powers, rem, acc, reflect),
        5 => group_short::<5>(powers, rem, acc, reflect),
        6 => group_short::<6>(powers, rem, acc, reflect),
        7 => group_short::<7>(powers, rem, acc, reflect),
        _ => acc,
    }
}

/// One group of `N ≤ 8` blocks: block `j` meets `H^(N − j)`; register `r`
/// holds blocks `2r` and `2r + 1` (for odd `N` the last register holds
/// one block and a zero lane); `acc` enters block 0, whose register is
/// multiplied last.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn group_short<const N: usize>(powers: &[u128], g: &[u8], acc: u128, reflect: bool) -> u128 {
    debug_assert!(N <= 8 && N <= powers.len() && g.len() >= 16 * N);
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 2]);
    let c = _mm256_set1_epi64x(C_HI as i64);
    let mut s = ymm::zero_sums(true);
    for r in (0..N.div_ceil(2)).rev() {
        let j = 2 * r;
        let (mut y, p) = if j + 1 < N {
            // SAFETY: `j + 2 ≤ N`: bytes 16j..16j + 32 of `g` are readable.
            let y = unsafe { _mm256_loadu_si256(g.as_ptr().add(16 * j).cast()) };
            let p = _mm256_set_m128i(fresh_lane(powers, N - 2 - j), fresh_lane(powers, N - 1 - j));
            (y, p)
        } else {
            // SAFETY: `j < N`: bytes 16j..16j + 16 of `g` are readable.
            let y = unsafe { _mm_loadu_si128(g.as_ptr().add(16 * j).cast()) };
            (
                _mm256_zextsi128_si256(y),
                _mm256_zextsi128_si256(fresh_lane(powers, 0)),
            )
        };
        if reflect {
            y = _mm256_shuffle_epi8(y, rev);
        }
        if r == 0 {
            y = _mm256_xor_si256(y, _mm256_zextsi128_si256(from_u128(acc)));
        }
        ymm::mul_acc(y, p, &mut s);
    }
    to_u128(ymm::reduce(s, c))
}

#[target_feature(enable = "vpclmulqdq,avx2,avx,pclmulqdq,sse4.1")]
fn fresh_group_ymm(low: &mut [u128; 8], acc: u128, data: &[u8], reflect: bool) -> (u128, usize) {
    let n = data.len() / 16;
    let pairs = n.div_ceil(2);
    let c = _mm256_set1_epi64x(C_HI as i64);
    let pw = power_pairs(_mm256_broadcastsi128_si256(fresh_lane(low, 0)), pairs, c);
    let dst = low.as_mut_ptr();
    for (k, p) in pw.iter().enumerate().take(pairs) {
        // SAFETY: `2k + 2 ≤ 2·pairs ≤ 8`: 32 writable bytes of `low`.
        unsafe { _mm256_storeu_si256(dst.add(2 * k).cast(), *p) };
    }
    let rev = from_u128s([0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f; 2]);
    let mut s = ymm::zero_sums(true);
    // Pair k meets blocks n − 1 − 2k (lane 0) and n − 2 − 2k (lane 1);
    // block 0, which carries `acc`, is in the last pair.
    for (k, p) in pw.iter().enumerate().take(pairs) {
        let mut y = if n >= 2 * k + 2 {
            let at = 16 * (n - 2 - 2 * k);
            // SAFETY: `at + 32 ≤ 16n = data.len()`.
            let y = unsafe { _mm256_loadu_si256(data.as_ptr().add(at).cast()) };
            _mm256_permute4x64_epi64::<0x4e>(y)
        } else {
            // SAFETY: `data` has at least 16 bytes (block 0).
            _mm256_zextsi128_si256(unsafe { _mm_loadu_si128(data.as_ptr().cast()) })
        };
        if reflect {
            y = _mm256_shuffle_epi8(y, rev);
        }
        if k + 1 == pairs {
            let a = _mm256_zextsi128_si256(from_u128(acc));
            // Block 0 is lane 1 when `n` is even, lane 0 when it is odd.
            let a = if n.is_multiple_of(2) {
                _mm256_permute4x64_epi64::<0x4e>(a)
            } else {
                a
            };
            y = _mm256_xor_si256(y, a);
        }
        ymm::mul_acc(y, *p, &mut s);
    }
    (to_u128(ymm::reduce(s, c)), 2 * pairs)
}
