//! Target features: `pclmulqdq`, `sse4.1` — capability token
//! [`crate::cpu::Clmul`].
//!
//! GHASH / POLYVAL on xmm by aggregated reduction (Gueron & Kounavis, Intel
//! white paper 323640, rev. 2.02, "aggregated reduction"): a group of `n ≤
//! 8` blocks `Yⱼ` meets the dot-powers `H^(n−j)`, the accumulator enters
//! block 0 only, the 256-bit products are summed unreduced, and one
//! Montgomery reduction (two folds by `C = x^63 + x^62 + x^57`, see
//! `mont_reduce` in [`super`]) ends the group. Block 0's product, the only
//! one that waits for the accumulator, is added last, so the loop-carried
//! chain is one product, one XOR and the reduction. Groups of eight, then
//! the last `n < 8` blocks as one group; the zmm path hands it its last
//! 0–31 blocks, and it also computes the key's powers and single `dot`s.
//!
//! # Representation
//!
//! Blocks and powers are `u128` in the POLYVAL domain (GHASH's blocks
//! byte-reversed by one `pshufb` on load); products are Karatsuba
//! (`lo = a₀b₀`, `hi = a₁b₁`, `mid = (a₀ ⊕ a₁)(b₀ ⊕ b₁)`), with the powers'
//! `h₀ ⊕ h₁` prepared once per call and recombined once per group.
//!
//! # Operation count (per 8 blocks)
//!
//! 24 `pclmulqdq` for the products and 2 for the reduction; 8 `pshufd` and
//! 8 `pxor` for the blocks' half-sums; 8 `pshufb` (GHASH only); 24 `pxor`
//! into the three sums; recombination and reduction ≈ 10 more. At one
//! `pclmulqdq` per cycle the products bound the loop at 26 cycles (0.20
//! cycles/byte); it runs at ≈ 31 (the figure below).
//!
//! # Short messages
//!
//! A 64-byte POLYVAL (key setup included) is latency-bound: two levels of
//! power products and the group's product, each ending in the two serial
//! `pclmulqdq` of the Montgomery reduction. On cores with VPCLMULQDQ the
//! ymm kernel takes messages of 2 to 31 blocks instead ([`super::ymm`]:
//! powers two lanes at a time, made in registers for a fresh key's first
//! group). RustCrypto's one-`pclmulqdq` reduction ("R/F" form) would
//! shorten each level by about one `pclmulqdq` latency; see the module
//! docs of [`super`] for why it is not built, and `docs/notes/ghash.md`
//! for the figures and the next idea.
//!
//! # Rejected
//!
//! - Longer groups on xmm (16 or 32 blocks) — within 2 % of 8 in the white
//!   paper's progression (`peer-bench --filter ghash_progression`), and
//!   their powers no longer fit in the 16 xmm registers.
//!
//! # Figure
//!
//! GHASH of 16 KiB, key prepared: 0.240 cycles/byte, 1.98× RustCrypto
//! `ghash` 0.6.0 (Intel Xeon family 6 model 207, column `fieldwork
//! (pclmulqdq)` of `cargo run --release -p peer-bench -- --filter
//! ghash`).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// power indices are loop counters below the group size (at most 8 here), within the powers `State::ensure_powers` made; data offsets step by 16 below the whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::aggregate::xmm;
use super::field::C_HI;
use crate::cpu::Clmul;
use crate::simd::{from_u128 as to_x, to_u128 as from_x};
use core::arch::x86_64::{
    __m128i, _mm_clmulepi64_si128, _mm_loadu_si128, _mm_set_epi8, _mm_set_epi64x, _mm_shuffle_epi8,
    _mm_shuffle_epi32, _mm_storeu_si128, _mm_xor_si128,
};

/// The xmm backend: groups of eight blocks, the tail as one group; also
/// the key's first eight powers for the wide backends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pclmulqdq(Clmul);

impl Backend for Pclmulqdq {
    super::backend_items!(Clmul, "pclmulqdq");

    /// `H^(2j) = dot(H^j, H^j)`, `H^(2j+1) = dot(H^(2j), H)`, so
    /// independent products overlap (depth ≈ 2·log₂ n instead of n).
    fn powers(self, out: &mut [u128], from: usize) {
        // SAFETY: the token in `self` proves PCLMULQDQ and SSE4.1.
        unsafe { powers_xmm(out, from) }
    }

    /// Groups of eight, then the tail as one group. `powers` must hold at
    /// least `min(n, 8)` and the tail's count of powers.
    fn update(self, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
        // SAFETY: the token in `self` proves PCLMULQDQ and SSE4.1.
        unsafe { update_blocks(powers, acc, data, reflect) }
    }
}

impl Pclmulqdq {
    /// `dot(a, b) = a·b·x^(−128)`, one product.
    pub(super) fn dot(self, a: u128, b: u128) -> u128 {
        // SAFETY: the token in `self` proves PCLMULQDQ and SSE4.1.
        unsafe { dot_x(to_x(a), to_x(b)) }
    }
}

#[target_feature(enable = "pclmulqdq,sse4.1")]
fn powers_xmm(out: &mut [u128], from: usize) {
    let n = out.len();
    if from <= 1 && (2..=8).contains(&n) {
        // A fresh key's first two to eight powers: in registers, at most
        // three products deep (`H^5 … H^8 = H^4·H^1 … H^4·H^4`), stored
        // once at the end, where the loop below goes through memory
        // (each power re-read by a 16-byte load from two 8-byte stores,
        // which cannot forward) and is four deep for `H^7`. A 1 KiB
        // one-shot hash about 7 % faster (Xeon); a 64-byte one 9 % (Zen 3).
        let dot = |a: __m128i, b: __m128i| to_x(dot_x(a, b));
        // `H` as two 8-byte loads: a new state has just written it with two
        // 8-byte stores, and a 16-byte load would wait for them to retire
        // (no store forwarding from two stores into one load).
        let src = out.as_ptr().cast::<u64>();
        // SAFETY: `out[0]` is 16 readable bytes, so 8-aligned words 0 and 1.
        let (lo, hi) = unsafe { (src.read_volatile(), src.add(1).read_volatile()) };
        let h = _mm_set_epi64x(hi as i64, lo as i64);
        let h2 = dot(h, h);
        let mut p = [h, h2, h2, h2, h2, h2, h2, h2];
        if n > 2 {
            let h4 = dot(h2, h2);
            let h3 = dot(h2, h);
            p[2] = h3;
            p[3] = h4;
            if n > 4 {
                p[4] = dot(h4, h);
                p[5] = dot(h4, h2);
                p[6] = dot(h4, h3);
                p[7] = dot(h4, h4);
            }
        }
        // Whole-register stores: the kernels read the powers back with
        // 16-byte loads, which cannot forward from two 8-byte halves.
        let dst = out.as_mut_ptr();
        for (i, &v) in p[1..n.min(8)].iter().enumerate() {
            // SAFETY: `i + 1 < n = out.len()`: a 16-byte element of `out`.
            unsafe { _mm_storeu_si128(dst.add(i + 1).cast(), v) };
        }
        return;
    }
    for k in from.max(1)..out.len() {
        let e = k + 1; // out[k] = H^e
        let (a, b) = if e % 2 == 0 {
            (out[e / 2 - 1], out[e / 2 - 1])
        } else {
            (out[k - 1], out[0])
        };
        out[k] = dot_x(to_x(a), to_x(b));
    }
}

/// `dot(a, b)` on registers: the three Karatsuba products and the
/// reduction (the one place [`Pclmulqdq::dot`] and the powers multiply).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn dot_x(a: __m128i, b: __m128i) -> u128 {
    let (lo, hi, mid) = product(a, b, karatsuba_half(b));
    reduce(lo, hi, mid)
}

/// `h₀ ⊕ h₁` in the low word: Karatsuba's middle operand.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn karatsuba_half(h: __m128i) -> __m128i {
    _mm_xor_si128(h, _mm_shuffle_epi32::<0x4e>(h))
}

/// The three unrecombined Karatsuba products of `y` and `h`: `(y₀h₀,
/// y₁h₁, (y₀ ⊕ y₁)(h₀ ⊕ h₁))` (`hx` = `karatsuba_half(h)`); also the white
/// paper's Algorithm 2 in `reproduce`.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn product(y: __m128i, h: __m128i, hx: __m128i) -> (__m128i, __m128i, __m128i) {
    (
        _mm_clmulepi64_si128::<0x00>(y, h),
        _mm_clmulepi64_si128::<0x11>(y, h),
        _mm_clmulepi64_si128::<0x00>(karatsuba_half(y), hx),
    )
}

/// `(hi·x^128 + lo + mid'·x^64)·x^(−128)` where `mid' = mid ⊕ lo ⊕ hi`
/// (Karatsuba's middle term recombined into the schoolbook one), reduced
/// by [`super::aggregate::xmm::reduce`].
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce(lo: __m128i, hi: __m128i, mid: __m128i) -> u128 {
    let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
    let c = to_x(u128::from(C_HI));
    from_x(xmm::reduce(xmm::Sums { lo, hi, mid }, c))
}

/// Block `j` of `data` as an xmm register, byte-reversed for GHASH (one
/// `pshufb`): loaded straight into the vector unit, not through a `u128`.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn block(data: &[u8], j: usize, reflect: bool) -> __m128i {
    let c = &data[16 * j..16 * j + 16];
    // SAFETY: `c` is 16 readable bytes; `loadu` has no alignment demand.
    let y = unsafe { _mm_loadu_si128(c.as_ptr().cast()) };
    if reflect {
        _mm_shuffle_epi8(
            y,
            _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        )
    } else {
        y
    }
}

/// One group: block j of `data` meets `hs[j]` (with `hxs[j]` its Karatsuba
/// half), `acc` enters the first block, one reduction at the end.
///
/// Written with plain indices so that a group of eight unrolls into
/// straight-line code (an iterator chain over the three slices compiled to
/// a loop with its state on the stack: 0.55 cycles/byte at 16 KiB). Block
/// 0's product, the only one that waits for `acc`, is added last, so the
/// loop-carried chain is one product, one XOR and the reduction.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn group(data: &[u8], hs: &[__m128i], hxs: &[__m128i], acc: u128, reflect: bool) -> u128 {
    let n = hs.len();
    debug_assert!(n >= 1 && hxs.len() == n && data.len() >= 16 * n);
    let z = to_x(0);
    let (mut lo, mut hi, mut mid) = (z, z, z);
    for j in 1..n {
        let (l, h, m) = product(block(data, j, reflect), hs[j], hxs[j]);
        lo = _mm_xor_si128(lo, l);
        hi = _mm_xor_si128(hi, h);
        mid = _mm_xor_si128(mid, m);
    }
    let y0 = _mm_xor_si128(block(data, 0, reflect), to_x(acc));
    let (l, h, m) = product(y0, hs[0], hxs[0]);
    reduce(
        _mm_xor_si128(lo, l),
        _mm_xor_si128(hi, h),
        _mm_xor_si128(mid, m),
    )
}

/// [`Pclmulqdq::update`] (the ymm kernel's remainders call it from its own
/// kernels).
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn update_blocks(powers: &[u128], mut acc: u128, data: &[u8], reflect: bool) -> u128 {
    let mut chunks = data.chunks_exact(128);
    if data.len() >= 128 {
        // Powers in the order the blocks meet them: H^8 … H^1.
        let h8: [__m128i; 8] = core::array::from_fn(|j| power(powers, 7 - j));
        let hx8: [__m128i; 8] = core::array::from_fn(|j| karatsuba_half(h8[j]));
        for c in &mut chunks {
            acc = group(c, &h8, &hx8, acc, reflect);
        }
    }
    tail(powers, acc, chunks.remainder(), reflect)
}

/// The last `n < 8` blocks as one group with powers `H^n … H^1`.
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn tail(powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
    let n = data.len() / 16;
    debug_assert!(n < 8 && n <= powers.len());
    if n == 0 {
        return acc;
    }
    let mut hs = [to_x(0); 8];
    let mut hxs = [to_x(0); 8];
    for j in 0..n {
        hs[j] = power(powers, n - 1 - j);
        hxs[j] = karatsuba_half(hs[j]);
    }
    group(data, &hs[..n], &hxs[..n], acc, reflect)
}

/// `powers[i]` as an xmm register, read as two 8-byte loads: a power may
/// have just been written by two 8-byte stores (`H` itself, by the state's
/// constructor), and one 16-byte load cannot take its data from two
/// stores in flight — it waits for them to retire, which cost a one-block
/// hash about 60 % of its time (Zen 3, 16-byte POLYVAL 131 → 82 cycles
/// with this; two 8-byte loads forward from either kind of store).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn power(powers: &[u128], i: usize) -> __m128i {
    let (lo, hi) = words(powers, i);
    _mm_set_epi64x(hi as i64, lo as i64)
}

/// The two 8-byte words of `powers[i]`, by two volatile loads (so that
/// they are not merged into one 16-byte load; see [`power`]).
#[inline(always)]
pub(super) fn words(powers: &[u128], i: usize) -> (u64, u64) {
    let src = (&powers[i] as *const u128).cast::<u64>();
    // SAFETY: `powers[i]` is 16 readable bytes, so 8-aligned words 0 and
    // 1.
    unsafe { (src.read_volatile(), src.add(1).read_volatile()) }
}
