//! Target features: `pclmulqdq`, `sse4.1` (which implies `ssse3`, for the
//! `pshufb` of the bit reflection) — capability token [`Clmul`].
//!
//! The GHASH kernels of the algorithm progression in S. Gueron and
//! M. E. Kounavis, *Intel Carry-Less Multiplication Instruction and its
//! Usage for Computing the GCM Mode*, Intel white paper 323640, rev. 2.02
//! (2014), on xmm registers: the one-block-at-a-time kernels and the
//! aggregated reduction over N = 4, 8, 16 or 32 blocks. They are reached
//! through [`super::ghash_with`] and exist to show, and measure, what each
//! step of the progression buys; [`crate::ghash::GHash`] is the production path.
//!
//! # The field and its three representations
//!
//! GHASH works in GF(2^128) = GF(2)\[x\]/g, `g = x^128 + x^7 + x^2 + x + 1`,
//! and maps a 16-byte block B to the polynomial whose coefficient of `x^i`
//! is bit `7 − i mod 8` of byte `⌊i/8⌋` (the most significant bit of byte 0
//! is `x^0`). In a 128-bit register that polynomial can be held
//!
//! - **reflected**: `u128::from_be_bytes(B)`, coefficient of `x^i` at bit
//!   `127 − i` — one byte swap, no bit operations (the paper's choice);
//! - **natural**: coefficient of `x^i` at bit `i` — the bits of every byte
//!   reversed, then a little-endian load (the paper's "bit reflection" of
//!   the input, here two `pshufb` nibble look-ups per block);
//! - **POLYVAL**: the reflected value in RFC 8452's field with the key
//!   `mulX(H)`, where a product is `a·b·x^(−128)` (Montgomery form).
//!
//! # Products
//!
//! - Algorithm 1 (schoolbook): `a·b = a₁b₁·x^128 + (a₀b₁ + a₁b₀)·x^64 +
//!   a₀b₀`, four `pclmulqdq`.
//! - Algorithm 2 (Karatsuba): the middle term as `(a₀ + a₁)(b₀ + b₁) + a₀b₀
//!   + a₁b₁`, three `pclmulqdq` and two more XORs.
//!
//! # Reductions of the 256-bit product `[X₃:X₂:X₁:X₀]` (64-bit words)
//!
//! - **Algorithm 5** (reflected operands): the carry-less product of two
//!   reflected operands is the reflected product shifted right by one bit
//!   (255 bits), so it is first shifted left by one across the 256 bits
//!   (the paper's answer to the bit-reflection problem). Then the low half `[X₁:X₀]` holds the
//!   reflected high part `c_hi` of the product, and multiplying by `x^j` is
//!   a right shift by `j`. With `D = X₁ ⊕ (X₀ ≪ 63) ⊕ (X₀ ≪ 62) ⊕ (X₀ ≪
//!   57)` — the bits that `x·c_hi`, `x²·c_hi` and `x⁷·c_hi` push past
//!   `x^127`, folded in ahead — the result is `[X₃:X₂] ⊕ T ⊕ (T ≫ 1) ⊕ (T ≫
//!   2) ⊕ (T ≫ 7)` for `T = [D:X₀]` (128-bit shifts): shifts and XORs only.
//! - **Algorithm 4** (natural operands, i.e. bit-reflected input): the
//!   mirror image. `D = X₂ ⊕ (X₃ ≫ 63) ⊕ (X₃ ≫ 62) ⊕ (X₃ ≫ 57)`, `T = [X₃:D]`,
//!   result `[X₁:X₀] ⊕ T ⊕ (T ≪ 1) ⊕ (T ≪ 2) ⊕ (T ≪ 7)`. No shift of the
//!   product, but the input and the output are bit-reflected.
//! - **Folding** (natural operands): `x^128 ≡ x^7 + x^2 + x + 1 = 0x87`, so
//!   the top word is folded down by one `pclmulqdq` by 0x87 (`X₃·x^192 ≡
//!   (X₃·0x87)·x^64`, a 71-bit product landing on `[X₂:X₁]`), then the next
//!   word the same way (`X₂·x^128 ≡ X₂·0x87`): two dependent `pclmulqdq`,
//!   top word first. Not one of the paper's numbered algorithms (its
//!   Algorithms 4 and 5 reduce by shifts): the textbook reduction by
//!   carry-less multiplication with the low part of g, in the natural bit
//!   order — the mirror image, in fold order, of the Montgomery reduction
//!   below.
//! - **Montgomery** (POLYVAL form): the low word is folded *up*, twice:
//!   `v·x^(−64) = swap₆₄(v) ⊕ v₀·(x^63 + x^62 + x^57)`, one `pclmulqdq` by
//!   0xc2000000_00000000 each, then XOR with the high half — the reduction
//!   of `ghash::field::mont_reduce` (S. Gueron, *AES-GCM for efficient
//!   authenticated encryption — ending the reign of HMAC-SHA-1?*, Real
//!   World Crypto 2013; Gopal et al., *Optimized Galois-Counter-Mode
//!   implementation on Intel architecture processors*, Intel 2010, for
//!   the `H·x` key that removes the reflection shift). Bottom-up, so no
//!   bit reflection and no shift by one; the key is `mulX(H)` once.
//!
//! # Aggregated reduction
//!
//! The paper's "aggregated reduction" (Jankowski and Laurent, its
//! reference \[17\]): `Yᵢ = (Yᵢ₋₁ + X₁)·H^N + X₂·H^(N−1) + … + X_N·H`
//! needs the powers `H..H^N` once per key, and then per N blocks N
//! Karatsuba products (3N `pclmulqdq`), summed unreduced, and one
//! reduction. The paper (Figure 8) reduces by the shift by one and
//! Algorithm 5 — that form is `super::paper`'s; the kernels here are
//! fieldwork's, with the Montgomery reduction (2 `pclmulqdq`) and the
//! `H·x` key, and are labelled so (`aggregated N (xmm, Montgomery)`). The accumulator
//! enters the first product only, so the dependency chain per N blocks is one
//! product and one reduction.
//!
//! # Operation counts per 16-byte block (xmm)
//!
//! | kernel | `pclmulqdq` | shifts | other |
//! |---|---|---|---|
//! | schoolbook + Alg. 5 | 4 | 4 (shift by one) + 9 (reduction, 64-bit lanes) | byte swap |
//! | Karatsuba + Alg. 4 | 3 | 9 (reduction) | 2 bit reflections of 5 ops |
//! | Karatsuba + folding | 3 + 2 | — | 2 bit reflections |
//! | Karatsuba + Montgomery | 3 + 2 | — | byte swap |
//! | aggregated over N | 3 + 2/N | — | byte swap |
//!
//! The one-block kernels are latency-bound (each block waits for the
//! previous reduction); the aggregated ones are throughput-bound.
//!
//! # Measured
//!
//! `cargo run --release -p peer-bench -- --filter ghash_progression`
//! reproduces the progression (the measured table is in
//! `docs/notes/ghash-progression.md`). The bit reflection costs Algorithm
//! 4 what Karatsuba saves; reduction by `pclmulqdq` beats reduction by
//! shifts by about a third; aggregation gains a factor 3–5 and saturates
//! at 8 blocks on xmm, where the three `pclmulqdq` per block are the
//! bottleneck (the ymm and zmm kernels, and [`crate::ghash::GHash`], go
//! further).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `reproduce` feature: the white paper's kernels over fixed-size tables, not a production path.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::cpu::Clmul;
use crate::ghash::Backend;
pub(super) use crate::ghash::clmul::karatsuba_half;
use crate::ghash::clmul::product as karatsuba_terms;
use crate::ghash::field::C_HI;
pub(super) use crate::simd::{from_u128 as to_x, to_u128 as from_x};
use core::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_clmulepi64_si128, _mm_or_si128, _mm_shuffle_epi8,
    _mm_shuffle_epi32, _mm_slli_epi64, _mm_slli_si128, _mm_srli_epi16, _mm_srli_epi64,
    _mm_srli_si128, _mm_xor_si128,
};
use zeroize::Zeroize;

type V = __m128i;

#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn xor3(a: V, b: V, c: V) -> V {
    _mm_xor_si128(_mm_xor_si128(a, b), c)
}

/// Nibble `n` ↦ its four bits reversed, shifted into the high nibble …
const REV_LOW_NIBBLE: u128 = u128::from_le_bytes([
    0x00, 0x80, 0x40, 0xc0, 0x20, 0xa0, 0x60, 0xe0, 0x10, 0x90, 0x50, 0xd0, 0x30, 0xb0, 0x70, 0xf0,
]);
/// … and into the low nibble.
const REV_HIGH_NIBBLE: u128 = u128::from_le_bytes([
    0x0, 0x8, 0x4, 0xc, 0x2, 0xa, 0x6, 0xe, 0x1, 0x9, 0x5, 0xd, 0x3, 0xb, 0x7, 0xf,
]);

/// The bits of every byte reversed: two `pshufb` table look-ups of four bits
/// each. An involution; maps GCM's byte layout to the natural
/// representation (after a little-endian load) and back.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(crate) fn reflect_bits(v: V) -> V {
    let mask = to_x(0x0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f_0f0f);
    let low = _mm_and_si128(v, mask);
    let high = _mm_and_si128(_mm_srli_epi16::<4>(v), mask);
    _mm_or_si128(
        _mm_shuffle_epi8(to_x(REV_LOW_NIBBLE), low),
        _mm_shuffle_epi8(to_x(REV_HIGH_NIBBLE), high),
    )
}

/// A block in the reflected representation (`from_be_bytes`).
#[inline(always)]
pub(super) fn load_reflected(c: &[u8]) -> V {
    to_x(crate::ghash::field::load(c, true))
}

/// A block in the natural representation.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn load_natural(c: &[u8]) -> V {
    reflect_bits(to_x(crate::ghash::field::load(c, false)))
}

/// A shift of all 128 bits by `J < 64` (`J + K = 64`): each word shifted
/// by J, and the bits the other word shifts out (by K) moved in.
macro_rules! shift128 {
    ($(#[$doc:meta])* $name:ident: $by_j:ident, $by_k:ident, $word:ident) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = "pclmulqdq,sse4.1")]
        pub(super) fn $name<const J: i32, const K: i32>(v: V) -> V {
            const { assert!(J + K == 64 && J > 0 && K > 0) };
            _mm_or_si128($by_j::<J>(v), $by_k::<K>($word::<8>(v)))
        }
    };
}

shift128!(
    /// `v ≫ J` across all 128 bits (`J + K = 64`).
    shr128: _mm_srli_epi64, _mm_slli_epi64, _mm_srli_si128
);
shift128!(
    /// `v ≪ J` across all 128 bits (`J + K = 64`).
    shl128: _mm_slli_epi64, _mm_srli_epi64, _mm_slli_si128
);

/// `[hi:lo] = a·b` by Algorithm 1: four `pclmulqdq`.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn mul_schoolbook(a: V, b: V) -> (V, V) {
    let lo = _mm_clmulepi64_si128::<0x00>(a, b);
    let hi = _mm_clmulepi64_si128::<0x11>(a, b);
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x01>(a, b),
        _mm_clmulepi64_si128::<0x10>(a, b),
    );
    (
        _mm_xor_si128(lo, _mm_slli_si128::<8>(mid)),
        _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)),
    )
}

/// `[hi:lo]` from summed Karatsuba terms: the middle term is `mid ⊕ lo ⊕ hi`.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn karatsuba_recombine(lo: V, hi: V, mid: V) -> (V, V) {
    let mid = xor3(mid, lo, hi);
    (
        _mm_xor_si128(lo, _mm_slli_si128::<8>(mid)),
        _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)),
    )
}

/// The 256-bit `[hi:lo]` shifted left by one bit: the product of two
/// reflected operands made the reflected product.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn shl256_by_one(lo: V, hi: V) -> (V, V) {
    let carry_lo = _mm_srli_epi64::<63>(lo);
    let carry_hi = _mm_srli_epi64::<63>(hi);
    (
        _mm_or_si128(_mm_slli_epi64::<1>(lo), _mm_slli_si128::<8>(carry_lo)),
        _mm_or_si128(
            _mm_or_si128(_mm_slli_epi64::<1>(hi), _mm_slli_si128::<8>(carry_hi)),
            _mm_srli_si128::<8>(carry_lo),
        ),
    )
}

/// A reduction modulo g by shifts, Algorithm 5 or its mirror image
/// Algorithm 4 (see the module doc): the bits that the shifts by 1, 2 and
/// 7 push out of the `$folded` half's far word (`$spill`, each 64-bit word
/// shifted by 63, 62 and 57) are moved into its other word (`$move` by 8
/// bytes), giving `T`; then `$kept ⊕ T ⊕ (T $shift 1) ⊕ (T $shift 2) ⊕ (T
/// $shift 7)`, the 128-bit shifts by `$shift`.
macro_rules! reduce_by_shifts {
    (
        $(#[$doc:meta])*
        $name:ident($lo:ident, $hi:ident):
        $folded:ident into $kept:ident, $spill:ident, $move:ident, $shift:ident
    ) => {
        $(#[$doc])*
        #[inline]
        #[target_feature(enable = "pclmulqdq,sse4.1")]
        fn $name($lo: V, $hi: V) -> V {
            let spill = xor3(
                $spill::<63>($folded),
                $spill::<62>($folded),
                $spill::<57>($folded),
            );
            let t = _mm_xor_si128($folded, $move::<8>(spill));
            let folded = xor3(
                _mm_xor_si128(t, $shift::<1, 63>(t)),
                $shift::<2, 62>(t),
                $shift::<7, 57>(t),
            );
            _mm_xor_si128($kept, folded)
        }
    };
}

reduce_by_shifts!(
    /// Algorithm 5: the reflected `[X₃:X₂:X₁:X₀]` (already shifted by one)
    /// reduced modulo g, by shifts: only the low word's shifts matter,
    /// they move up to X₁'s position (`T = [D:X₀]`).
    reduce_alg5(lo, hi): lo into hi, _mm_slli_epi64, _mm_slli_si128, shr128
);
reduce_by_shifts!(
    /// Algorithm 4: the natural `[X₃:X₂:X₁:X₀]` reduced modulo g, by
    /// shifts: only X₃'s shifts matter, they move down to X₂'s position
    /// (`T = [X₃:D]`).
    reduce_alg4(lo, hi): hi into lo, _mm_srli_epi64, _mm_srli_si128, shl128
);

/// The natural `[X₃:X₂:X₁:X₀]` reduced modulo g by folding the top words
/// down with `pclmulqdq` by `x^7 + x^2 + x + 1`, X₃ first.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn reduce_fold(lo: V, hi: V) -> V {
    let k = to_x(0x87);
    // X₃·x^192 ≡ (X₃·0x87)·x^64: the low word onto X₁, the ≤ 7 high bits
    // onto X₂.
    let t = _mm_clmulepi64_si128::<0x01>(hi, k);
    let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(t));
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(t));
    // X₂·x^128 ≡ X₂·0x87 (X₃ is now dead).
    _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(hi, k))
}

/// Montgomery reduction in the POLYVAL form: `[hi:lo]·x^(−128)`, two
/// `pclmulqdq` by `C = x^63 + x^62 + x^57` (see `ghash::field::mont_reduce`).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn reduce_montgomery(lo: V, hi: V) -> V {
    let c = to_x(u128::from(C_HI));
    let fold = |v: V| {
        _mm_xor_si128(
            _mm_shuffle_epi32::<0x4e>(v),
            _mm_clmulepi64_si128::<0x00>(v, c),
        )
    };
    _mm_xor_si128(hi, fold(fold(lo)))
}

/// The dot-powers of `h` into `out` (`out[k − 1]` = `H^k·x^(−128(k−1))`),
/// by the crate's one power routine (the xmm backend's, `ghash::clmul`).
pub(super) fn dot_powers(t: Clmul, h: u128, out: &mut [u128]) {
    if let Some(first) = out.first_mut() {
        *first = h;
        crate::ghash::clmul::Pclmulqdq::new(t).powers(out, 1);
    }
}

/// The POLYVAL-form key of a GHASH key: `mulX(ByteReverse(H))`.
#[inline(always)]
pub(super) fn polyval_key(h: &[u8; 16]) -> u128 {
    crate::ghash::field::mul_x(u128::from_be_bytes(*h))
}

/// One aggregated group: block j of `data` meets `hs[j]` (with `hxs[j]` its
/// Karatsuba half), `acc` enters the first block, one reduction. `data`
/// holds `hs.len()` blocks; an empty group leaves `acc` as it is.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
pub(super) fn aggregate_group(data: &[u8], hs: &[V], hxs: &[V], acc: V) -> V {
    debug_assert_eq!(data.len(), 16 * hs.len());
    if data.is_empty() {
        return acc;
    }
    let z = to_x(0);
    let (mut lo, mut hi, mut mid) = (z, z, z);
    // Plain indices, as in `ghash::clmul`'s group: an iterator chain over
    // the three slices was left a loop when this module's kernels were
    // compiled apart from their caller (the groups a third slower).
    for j in 0..hs.len() {
        let mut y = load_reflected(&data[16 * j..16 * j + 16]);
        if j == 0 {
            y = _mm_xor_si128(y, acc);
        }
        let (l, h2, m) = karatsuba_terms(y, hs[j], hxs[j]);
        lo = _mm_xor_si128(lo, l);
        hi = _mm_xor_si128(hi, h2);
        mid = _mm_xor_si128(mid, m);
    }
    let (lo, hi) = karatsuba_recombine(lo, hi, mid);
    reduce_montgomery(lo, hi)
}

/// The one-block kernels (one reduction per block).
#[derive(Clone, Copy)]
pub(super) enum OneBlock {
    /// Algorithm 1 + Algorithm 5.
    SchoolbookAlg5,
    /// Algorithm 2 + Algorithm 4 on bit-reflected input.
    KaratsubaAlg4,
    /// Algorithm 2 + the folding reduction on bit-reflected input.
    KaratsubaFold,
    /// Algorithm 2 + Montgomery reduction (POLYVAL form).
    KaratsubaMontgomery,
}

/// GHASH of the whole blocks of `body` then `tail` by the one-block kernel
/// `kind`. `#[inline]`, as the kernels are: compiled in their caller's
/// codegen unit, they are specialised for its arguments (see
/// [`aggregate_group`]).
#[inline]
pub(super) fn one_block(
    t: Clmul,
    kind: OneBlock,
    h: &[u8; 16],
    body: &[u8],
    tail: &[u8],
) -> [u8; 16] {
    let _ = t;
    // SAFETY: the token proves PCLMULQDQ and SSE4.1 (and so SSSE3), all
    // the kernels are compiled for.
    unsafe {
        match kind {
            OneBlock::SchoolbookAlg5 => schoolbook_alg5_xmm(h, body, tail),
            OneBlock::KaratsubaAlg4 => natural_xmm::<false>(h, body, tail),
            OneBlock::KaratsubaFold => natural_xmm::<true>(h, body, tail),
            OneBlock::KaratsubaMontgomery => montgomery_xmm(h, body, tail),
        }
    }
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn schoolbook_alg5_xmm(h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
    let mut key = load_reflected(h);
    let mut acc = to_x(0);
    for c in body.chunks_exact(16).chain(tail.chunks_exact(16)) {
        let (lo, hi) = mul_schoolbook(_mm_xor_si128(acc, load_reflected(c)), key);
        let (lo, hi) = shl256_by_one(lo, hi);
        acc = reduce_alg5(lo, hi);
    }
    key.zeroize();
    from_x(acc).to_be_bytes()
}

/// The natural-representation kernels: Karatsuba, then Algorithm 4 or
/// (`FOLD`) the folding reduction.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn natural_xmm<const FOLD: bool>(h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
    let mut key = load_natural(h);
    let key_half = karatsuba_half(key);
    let mut acc = to_x(0);
    for c in body.chunks_exact(16).chain(tail.chunks_exact(16)) {
        let (lo, hi, mid) = karatsuba_terms(_mm_xor_si128(acc, load_natural(c)), key, key_half);
        let (lo, hi) = karatsuba_recombine(lo, hi, mid);
        acc = if FOLD {
            reduce_fold(lo, hi)
        } else {
            reduce_alg4(lo, hi)
        };
    }
    key.zeroize();
    from_x(reflect_bits(acc)).to_le_bytes()
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn montgomery_xmm(h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
    let mut key = to_x(polyval_key(h));
    let key_half = karatsuba_half(key);
    let mut acc = to_x(0);
    for c in body.chunks_exact(16).chain(tail.chunks_exact(16)) {
        let (lo, hi, mid) = karatsuba_terms(_mm_xor_si128(acc, load_reflected(c)), key, key_half);
        let (lo, hi) = karatsuba_recombine(lo, hi, mid);
        acc = reduce_montgomery(lo, hi);
    }
    key.zeroize();
    from_x(acc).to_be_bytes()
}

/// Aggregated reduction over `N` blocks (N ≤ 32): `body` is whole groups of
/// N blocks, `tail` at most N blocks (one more group with the powers
/// `H^r … H^1`).
#[inline]
pub(super) fn aggregated<const N: usize>(
    t: Clmul,
    h: &[u8; 16],
    body: &[u8],
    tail: &[u8],
) -> [u8; 16] {
    // SAFETY: the token proves PCLMULQDQ and SSE4.1.
    unsafe { aggregated_xmm::<N>(t, h, body, tail) }
}

#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn aggregated_xmm<const N: usize>(t: Clmul, h: &[u8; 16], body: &[u8], tail: &[u8]) -> [u8; 16] {
    const { assert!(N >= 1 && N <= crate::ghash::field::POWERS) };
    let mut powers = [0u128; N];
    dot_powers(t, polyval_key(h), &mut powers);
    // In the order the blocks of a group meet them: H^N … H^1. A loop,
    // not `array::from_fn`: its closures, left out of line until the
    // crate's link-time inlining, lose the target features, and the
    // groups were no longer unrolled (a third slower, docs/notes/ghash.md).
    let mut hs = [to_x(0); N];
    let mut hxs = [to_x(0); N];
    for j in 0..N {
        hs[j] = to_x(powers[N - 1 - j]);
        hxs[j] = karatsuba_half(hs[j]);
    }
    let mut acc = to_x(0);
    for g in body.chunks_exact(16 * N) {
        acc = aggregate_group(g, &hs, &hxs, acc);
    }
    // r ≤ N tail blocks meet H^r … H^1, the last r entries.
    let r = (tail.len() / 16).min(N);
    acc = aggregate_group(&tail[..16 * r], &hs[N - r..], &hxs[N - r..], acc);
    powers.zeroize();
    hs.zeroize();
    hxs.zeroize();
    from_x(acc).to_be_bytes()
}
