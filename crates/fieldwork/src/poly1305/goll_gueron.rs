//! The faithful Goll–Gueron AVX2 Poly1305 as S. Bhattacharyya's M.Tech
//! dissertation describes it (*Improved SIMD Implementation of Poly1305*,
//! ISI Kolkata, 2018, §3 "Previous Work: 256-bit Vectorization of Poly1305
//! by Goll and Gueron"; `shared/seeds/003_*.txt`), kept under the
//! `reproduce` feature as the baseline the dissertation's speed-ups are
//! measured against. Not for production use: `super::Poly1305` is faster
//! at every length (see `docs/reproduce/003-bhattacharyya-*.md`).
//!
//! Target features: `avx`, `avx2` (capability token `cpu::Avx2`);
//! [`Decimation8`]: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`
//! (`cpu::Avx512`).
//!
//! Three tags, all RFC 8439's Poly1305 (tested against the default on
//! every length to 4 KiB):
//!
//! - [`GollGueron::tag`]: Goll and Gueron's AVX2 vectorization as §3
//!   describes it (below);
//! - [`GollGueron::tag_complete`]: the dissertation's contribution (§1,
//!   §4.1–4.3) on that same kernel — complete 4-decimation Horner over the
//!   whole message, `(4 − ℓ mod 4) mod 4` zero blocks logically prepended,
//!   no fresh packing — so that the two differ only in what the
//!   dissertation changes;
//! - [`Decimation8`]: its 512-bit vectorization (§1, abstract), complete
//!   8-decimation on AVX-512F without IFMA.
//!
//! # What the dissertation describes, and where it is followed
//!
//! - **§3.1, formula (1):** an element is five 26-bit limbs `y₀ … y₄`; the
//!   product modulo `2^130 − 5` is the five column sums `z₀ … z₄` of 25
//!   32×32-bit products, the ones above `2^130` folded with `5·` limbs of
//!   the multiplier (precomputed). (The text's `z₀ = y₀·y₀ + …` is a typo
//!   for `x₀·y₀`.) `mul_4x130`.
//! - **§3.2, the alignments:** four blocks `M₀ … M₃` (or four
//!   intermediate results `t_i`) in **three** ymm registers, 32-bit dword
//!   `2k` of lane `i` … : register A holds `(t_i0, t_i2)` in lane `i`,
//!   register B `(t_i1, t_i3)`, register C `(t_i4, ×)`; `R^4` and `5·R^4`
//!   in two registers, dwords `(g₀, g₁, g₂, g₃, g₄, 5g₂, 5g₃, 5g₄)` and
//!   `5g₁` eight times. `State`, `load4`, `KeyPowers::r4`.
//! - **§3.4, the 4×130 multiplication:** 25 `_mm256_mul_epu32` and 20
//!   `_mm256_add_epi64` in the text's 25 steps, in its order: steps 1–10
//!   multiply the low dwords of A, B, C (limbs 0, 1, 4); then "the lower
//!   and upper order 32 bits of each packed 64 bits" of A and B are
//!   swapped (limbs 2, 3 low) for steps 11–25. Each step's second operand
//!   is a vector whose low dwords hold one limb of `R^4` or `5·R^4`, made
//!   from the two key registers by `_mm256_permutevar8x32_epi32`.
//! - **§3.5, the reduction "from 64 bits to 32 bits":** two interleaved
//!   carry chains `t_i0 → t_i1 → t_i2 → t_i3 → t_i4` and `t_i3 → t_i4 →
//!   t_i0 → t_i1` (`reduce`); the reduced limbs go back into the three
//!   registers (`_mm256_slli_epi64` and `_mm256_blend_epi32`, both in the
//!   text's list of intrinsics, §2.6). The text breaks off here.
//! - **§3.3, partitioning the message space:** 4-decimation Horner
//!   (`T ← T·R^4 + M`, one 64-byte group a step) over the message's whole
//!   64-byte groups, the lanes combined into `P`; the `n′ < 64` bytes left
//!   are then taken by **fresh packing** into the vector registers: case 2
//!   (`P ← P·R² + M_{ℓ−2}·R² + M_{ℓ−1}·R`) for 32 bytes, case 1 (`P ← P·R +
//!   M_{ℓ−1}·R`) for 16 bytes or fewer — 32 then 16 then the rest, as the
//!   text's cases and examples give (63 bytes: 32, 16, 15; 40 bytes: 32,
//!   8). A partial last block is padded as RFC 8439 says (the text's \[5\]).
//!   [`GollGueron::tag`].
//!
//! # Where the text is wrong, silent or truncated, and what was chosen
//!
//! - **§3.4's multiplier indices.** The printed steps contradict formula
//!   (1): the `5·g` factor of every product of limbs 2, 3 and 4 (and of
//!   step 24's limb 1) is one index low (step 11 `5g₁·t₃`, where `z₀`
//!   needs `5g₂·t₃`; step 25 `5g₀·t₄`, where it needs `5g₁·t₄`; …), steps
//!   21–23 print products that do not match their operands, and step 23
//!   adds to the chain of `z₃` (which would then have six terms and `z₂`
//!   four). Implemented: the text's steps, order, operands and chains,
//!   with the factor formula (1) requires and step 23 added to `z₂`'s
//!   chain; the comments in `mul_4x130` give each step's correction.
//! - **§3.4's operation count** (25 `mul_epu32`, 1 `set_epi32`, 20
//!   `add_epi64`, 9 `permutevar8x32`, 4 `permute4x64`) cannot be matched
//!   to its steps: the text never says where the `permute4x64` go, nor how
//!   the dwords are swapped. Here: 25 / 20 as printed; the nine multiplier
//!   vectors come from eight `permutevar8x32` of the `R^4` register and
//!   the `5g₁` register itself (loop invariants: the compiler hoists them);
//!   the swap is one `_mm256_shuffle_epi32` per register (2 a step, on the
//!   dependency chain: the cheapest swap AVX2 has); the 2 `permute4x64` a
//!   group put the loaded blocks into §3.2's lane order (block `i` in lane
//!   `i`).
//! - **The combination of the lanes and the fresh-packing products** are
//!   not described (§3.4 multiplies by one broadcast `R^4`). Here the same
//!   25 steps run with per-lane multiplier vectors (`R^4, R^3, R², R` for
//!   the combination, `R², R, 0, 0` for case 2, `R, 0, 0, 0` for case 1),
//!   the four lanes' unreduced column sums are added and carried once, on
//!   the scalar unit.
//! - **Key setup** (the powers `R² … R⁴`) is not described: three chained
//!   scalar products, computed when the key is made.
//! - **"Larger decimations for lengths above 832 bytes"** (§1, of Goll and
//!   Gueron's code \[8\]) are mentioned only; §3 describes `R^4` alone, and
//!   that is what runs at every length.
//! - §3.5 is cut off after naming the two chains; the `×5` fold of the
//!   carry out of limb 4 into limb 0 and the chains' interleaving are the
//!   usual ones (the production AVX2 backend's `reduce` order).
//!
//! # Bounds
//!
//! Key limbs `< 2^26` (fully reduced powers), `5·g < 2^29`. After
//! `reduce` limbs 0, 2, 3 are below 2^26, limbs 1 and 4 below `2^26 +
//! 2^11`; a message block adds below 2^26 a limb, so the multiplier's
//! inputs are below `2^27 + 2^11`: a product below `2^56.4`, a column of
//! five below `2^58.8`, four lanes' columns summed below `2^60.8`. A
//! fresh-packed `P` (an accumulator with `h₂ ≤ 4`) has limb 4 below
//! `5·2^24`.
//!
//! # Security
//!
//! Constant time in the key and the message (no secret-dependent branch or
//! index; lengths are public); the key's powers are zeroized on drop.

// Indexing is bounded by construction: limb and lane indices are constants
// or loop counters over fixed 5-limb, 9-vector and 4-lane arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::portable::{self, Acc};
use crate::cpu::{self, Avx2};
use core::arch::x86_64::{
    __m256i, _mm_add_epi64, _mm_cvtsi128_si64, _mm_unpackhi_epi64, _mm256_add_epi32,
    _mm256_add_epi64, _mm256_and_si256, _mm256_blend_epi32, _mm256_castsi256_si128,
    _mm256_extracti128_si256, _mm256_loadu_si256, _mm256_mul_epu32, _mm256_or_si256,
    _mm256_permute4x64_epi64, _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_set1_epi64x,
    _mm256_setr_epi64x, _mm256_shuffle_epi32, _mm256_slli_epi64, _mm256_srli_epi64,
    _mm256_unpackhi_epi64, _mm256_unpacklo_epi64,
};
use zeroize::Zeroize;

const MASK26: u64 = (1 << 26) - 1;
/// The 2^128 bit of a whole block, in limb 4.
const HIBIT: u64 = 1 << 24;

/// Four elements in §3.2's three registers: `[A, B, C]`, lane `i` of A
/// holding limbs `(t_i0, t_i2)` as its low and high dwords, of B `(t_i1,
/// t_i3)`, of C `(t_i4, 0)`.
type State = [__m256i; 3];

/// Five column sums, one 64-bit lane per element (§3.4's output, "5
/// 256-bit registers").
type Columns = [__m256i; 5];

/// The nine second operands of §3.4's steps: in every lane, as the low
/// dword, `g₀, g₁, g₂, g₃, g₄, 5g₁, 5g₂, 5g₃, 5g₄` (the limbs of one power
/// of `R` and their `5·` multiples; a power per lane for the combination
/// and the fresh-packing cases).
type Multipliers = [__m256i; 9];

/// A fully reduced value below 2^130 (`v` and the bits above 2^128, `top`)
/// as five 26-bit limbs (limb 4 takes `top` at its bit 24).
#[inline(always)]
fn limbs26(v: u128, top: u64) -> [u64; 5] {
    let mut l = [0u64; 5];
    for (i, x) in l.iter_mut().enumerate().take(4) {
        *x = (v >> (26 * i)) as u64 & MASK26;
    }
    l[4] = (v >> 104) as u64 | top << 24;
    l
}

/// An accumulator (`h₂ ≤ 4`) as five 26-bit limbs (limb 4 below `5·2^24`).
#[inline(always)]
fn limbs_of_acc(h: &Acc) -> [u64; 5] {
    limbs26(u128::from(h[1]) << 64 | u128::from(h[0]), h[2])
}

/// Five column sums (each below 2^61) as an accumulator with `h₂ ≤ 4`.
#[inline(always)]
fn acc_of_sums(c: [u64; 5]) -> Acc {
    let [c0, c1, c2, c3, c4] = c.map(u128::from);
    // Bits 0–127 and the rest: c₀ + c₁·2^26 + c₂·2^52 < 2^113; the high
    // word collects c₃·2^14 + c₄·2^40 (times 2^64) and the carry.
    let lo = c0 + (c1 << 26) + (c2 << 52);
    let hi = (lo >> 64) + (c3 << 14) + (c4 << 40);
    let (h0, h1, top) = (lo as u64, hi as u64, (hi >> 64) as u64);
    // top < 2^37: fold ⌊top/4⌋·2^130 ≡ 5·⌊top/4⌋ into the low word.
    let t0 = u128::from(h0) + u128::from(top >> 2) * 5;
    let t1 = u128::from(h1) + (t0 >> 64);
    [t0 as u64, t1 as u64, (top & 3) + (t1 >> 64) as u64]
}

/// The powers of `r` a key needs, as 26-bit limbs.
#[derive(Clone)]
struct KeyPowers {
    /// §3.2's two registers for `R^4`: dwords `(g₀, g₁, g₂, g₃, g₄, 5g₂,
    /// 5g₃, 5g₄)` and `5g₁` eight times.
    r4: [[u32; 8]; 2],
    /// Per-lane multiplier vectors (low dwords, `[vector][lane]`): the
    /// combination's `(R^4, R^3, R², R)`, case 2's `(R², R, 0, 0)` and
    /// case 1's `(R, 0, 0, 0)`.
    combine: [[u64; 4]; 9],
    case2: [[u64; 4]; 9],
    case1: [[u64; 4]; 9],
}

impl Drop for KeyPowers {
    fn drop(&mut self) {
        self.r4.zeroize();
        self.combine.zeroize();
        self.case2.zeroize();
        self.case1.zeroize();
    }
}

impl KeyPowers {
    fn new(scalar: &portable::Key) -> KeyPowers {
        // r, r², r³, r⁴ fully reduced (three chained scalar products).
        let mut powers = [[0u64; 5]; 4];
        let mut h: Acc = [0; 3];
        {
            let mut r = scalar.r();
            h[0] = r as u64;
            h[1] = (r >> 64) as u64;
            r.zeroize();
        }
        for (k, p) in powers.iter_mut().enumerate() {
            if k > 0 {
                scalar.mul(&mut h);
            }
            let (mut v, top) = portable::freeze(&h);
            *p = limbs26(v, top);
            v.zeroize();
        }
        h.zeroize();
        // Multiplier vector k of a power p: p's limb k for k ≤ 4, else
        // 5·(limb k − 4).
        let operand = |p: &[u64; 5], k: usize| if k < 5 { p[k] } else { 5 * p[k - 4] };
        let per_lane = |lanes: [Option<&[u64; 5]>; 4]| {
            core::array::from_fn(|k| lanes.map(|p| p.map_or(0, |p| operand(p, k))))
        };
        let [r1, r2, r3, r4] = &powers;
        let g = |i: usize| r4[i] as u32;
        let out = KeyPowers {
            r4: [
                [g(0), g(1), g(2), g(3), g(4), 5 * g(2), 5 * g(3), 5 * g(4)],
                [5 * g(1); 8],
            ],
            combine: per_lane([Some(r4), Some(r3), Some(r2), Some(r1)]),
            case2: per_lane([Some(r2), Some(r1), None, None]),
            case1: per_lane([Some(r1), None, None, None]),
        };
        powers.zeroize();
        out
    }
}

/// The Goll–Gueron AVX2 Poly1305 of the dissertation's §3 (see the module
/// docs): a one-time key, made for one message and consumed by
/// [`GollGueron::tag`].
///
/// ```
/// # #[cfg(target_arch = "x86_64")] {
/// use fieldwork::poly1305::goll_gueron::GollGueron;
///
/// let key = [0x42u8; 32];
/// let msg = [7u8; 100];
/// if let Some(gg) = GollGueron::new(&key) {
///     assert_eq!(gg.tag(&msg), fieldwork::poly1305::tag(&key, &msg));
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct GollGueron {
    token: Avx2,
    powers: KeyPowers,
    s: u128,
}

impl Drop for GollGueron {
    fn drop(&mut self) {
        self.s.zeroize();
        // `powers` zeroizes itself.
    }
}

impl core::fmt::Debug for GollGueron {
    /// Nothing: the key is secret.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GollGueron").finish_non_exhaustive()
    }
}

impl GollGueron {
    /// The backend's name in benchmarks and on the generated page.
    pub const NAME: &'static str = "avx2-goll-gueron-faithful";

    /// The one-time key `key` (`r ‖ s`) with its powers `R … R^4`, if this
    /// CPU runs AVX2 (and `FIELDWORK_MAX_ISA` allows it).
    pub fn new(key: &[u8; 32]) -> Option<GollGueron> {
        let token = cpu::Avx2::get()?;
        let scalar = portable::Key::new(key);
        let powers = KeyPowers::new(&scalar);
        Some(GollGueron {
            token,
            powers,
            s: super::s_of(key),
        })
    }

    /// RFC 8439's Poly1305 tag of `msg`, computed as §3.3 partitions the
    /// message: 4-decimation Horner over its whole 64-byte groups, then
    /// fresh packing of the `< 64` bytes left (32, then 16, then the rest).
    pub fn tag(self, msg: &[u8]) -> [u8; 16] {
        let mut h: Acc = [0; 3];
        let (groups, rest) = msg.as_chunks::<64>();
        // SAFETY: the token proves AVX and AVX2 (cpu::Avx2).
        unsafe { absorb(self.token, &self.powers, &mut h, groups, rest) };
        portable::finish(&h, self.s)
    }

    /// The dissertation's own scheme on the same kernel: complete
    /// 4-decimation Horner (§1, §4.1–4.3: `z = (4 − ℓ mod 4) mod 4` zero
    /// blocks "logically prepended", no fresh packing; a partial last block
    /// is one more block of the last group). §4 itself is not in the text:
    /// the kernel is §3's (three registers, 4×130 multiplication, §3.5's
    /// reduction), so the difference from [`GollGueron::tag`] is the
    /// dissertation's contribution alone. §4.4's modified multiplication
    /// for `ℓ ≡ 1 mod 4` is not reproduced (not in the text).
    pub fn tag_complete(self, msg: &[u8]) -> [u8; 16] {
        // SAFETY: the token proves AVX and AVX2 (cpu::Avx2).
        let h = unsafe { decimate4(self.token, &self.powers, msg) };
        portable::finish(&h, self.s)
    }
}

/// Complete 4-decimation on §3's kernel (see [`GollGueron::tag_complete`]).
///
/// # Safety
/// The CPU must support AVX and AVX2 (the caller holds [`Avx2`]).
#[target_feature(enable = "avx,avx2")]
unsafe fn decimate4(_: Avx2, p: &KeyPowers, msg: &[u8]) -> Acc {
    let blocks = msg.len().div_ceil(16);
    if blocks == 0 {
        return [0; 3];
    }
    let z = (4 - blocks % 4) % 4;
    let groups = (blocks + z) / 4;
    let r4 = multipliers_of_r4(&p.r4);
    let mut t = group4(msg, 0, z);
    for g in 1..groups {
        t = add(&reduce(mul_4x130(&t, &r4)), &group4(msg, g, z));
    }
    sum_lanes(mul_4x130(&t, &per_lane(&p.combine)))
}

/// Group `g` of the message with `z` zero blocks prepended (blocks `4g −
/// z … 4g + 3 − z`): loaded in place when it is four whole blocks, else
/// packed lane by lane ([`block_limbs`]; zero lanes for the prepended
/// blocks).
#[inline(always)]
fn group4(msg: &[u8], g: usize, z: usize) -> State {
    let whole = msg.len() / 16;
    if let Some(at) = (64 * g).checked_sub(16 * z)
        && at + 64 <= 16 * whole
        && let Some(b) = msg
            .get(at..at + 64)
            .and_then(|b| <&[u8; 64]>::try_from(b).ok())
    {
        // SAFETY: AVX is available (only the kernels reach here).
        return load4(b, unsafe { _mm256_set1_epi64x(HIBIT as i64) });
    }
    // The prepended zero blocks and a partial last block: each lane's
    // limbs on the scalar unit, packed as §3.3's fresh packing does (a
    // stack buffer filled by copies would be read back by wider loads,
    // which wait for the copies: no store-to-load forwarding).
    let (mut a, mut b, mut c) = ([0i64; 4], [0i64; 4], [0i64; 4]);
    for k in 0..4 {
        if let Some(l) = (64 * g + 16 * k)
            .checked_sub(16 * z)
            .and_then(|at| block_limbs(msg, at))
        {
            a[k] = (l[0] | l[2] << 32) as i64;
            b[k] = (l[1] | l[3] << 32) as i64;
            c[k] = l[4] as i64;
        }
    }
    // SAFETY: AVX is available (only the kernels reach here).
    unsafe {
        [
            _mm256_setr_epi64x(a[0], a[1], a[2], a[3]),
            _mm256_setr_epi64x(b[0], b[1], b[2], b[3]),
            _mm256_setr_epi64x(c[0], c[1], c[2], c[3]),
        ]
    }
}

/// The block of `msg` at byte `at` as 26-bit limbs: 16 bytes with the
/// 2^128 bit, fewer (the last) with RFC 8439's 0x01 after them; `None`
/// past the end.
#[inline(always)]
fn block_limbs(msg: &[u8], at: usize) -> Option<[u64; 5]> {
    let m = msg
        .get(at..msg.len().min(at + 16))
        .filter(|m| !m.is_empty())?;
    let mut v = crate::partial::le_partial(m);
    let l = if m.len() == 16 {
        limbs26(v, 1)
    } else {
        limbs26(v | 1 << (8 * m.len()), 0)
    };
    v.zeroize();
    Some(l)
}

/// §3.3: `groups` by 4-decimation Horner into `h`, then `rest` (`< 64`
/// bytes, the message's end) by the fresh-packing cases.
///
/// # Safety
/// The CPU must support AVX and AVX2 (the caller holds [`Avx2`]).
#[target_feature(enable = "avx,avx2")]
unsafe fn absorb(_: Avx2, p: &KeyPowers, h: &mut Acc, groups: &[[u8; 64]], rest: &[u8]) {
    if let Some((first, others)) = groups.split_first() {
        let hibit = _mm256_set1_epi64x(HIBIT as i64);
        let mut t = add(&load4(first, hibit), &fresh([Some(h), None, None, None]));
        // §3.2: R^4 and 5·R^4 in two registers; §3.4's second operands.
        let r4 = multipliers_of_r4(&p.r4);
        for g in others {
            t = add(&reduce(mul_4x130(&t, &r4)), &load4(g, hibit));
        }
        *h = sum_lanes(mul_4x130(&t, &per_lane(&p.combine)));
    }
    // §3.3's cases for the n′ = |rest| bytes: case 2 for 32 of them (once,
    // and only if at least 32 are left), then case 1 for each 16 or fewer.
    let (pair, singles) = match rest.split_first_chunk::<32>() {
        Some((pair, singles)) => (Some(pair), singles),
        None => (None, rest),
    };
    if let Some(pair) = pair {
        let (a, b) = pair.split_at(16);
        let packed = fresh([
            Some(&block_acc(h, a)),
            Some(&block_acc(&[0; 3], b)),
            None,
            None,
        ]);
        *h = sum_lanes(mul_4x130(&packed, &per_lane(&p.case2)));
    }
    for m in singles.chunks(16) {
        let packed = fresh([Some(&block_acc(h, m)), None, None, None]);
        *h = sum_lanes(mul_4x130(&packed, &per_lane(&p.case1)));
    }
}

/// `h` plus the block `m` (16 bytes: with its 2^128 bit; fewer: RFC 8439's
/// 0x01 after its bytes), as an accumulator with `h₂ ≤ 5` (not reduced).
#[inline(always)]
fn block_acc(h: &Acc, m: &[u8]) -> Acc {
    let (mut v, top) = if m.len() == 16 {
        (crate::partial::le_partial(m), 1)
    } else {
        (crate::partial::le_partial(m) | 1 << (8 * m.len()), 0)
    };
    let t0 = u128::from(h[0]) + u128::from(v as u64);
    let t1 = u128::from(h[1]) + (v >> 64) + (t0 >> 64);
    v.zeroize();
    [t0 as u64, t1 as u64, h[2] + top + (t1 >> 64) as u64]
}

/// "Fresh packing" (§3.3): up to four accumulators (as limbs)
/// into §3.2's three registers, lane `i` from `lanes[i]` (zero if `None`).
#[inline(always)]
fn fresh(lanes: [Option<&Acc>; 4]) -> State {
    // Loops, not `map`: in a kernel's context `array::map` can become an
    // out-of-line call.
    let (mut a, mut b, mut c) = ([0i64; 4], [0i64; 4], [0i64; 4]);
    for (i, lane) in lanes.iter().enumerate() {
        if let Some(h) = lane {
            let l = limbs_of_acc(h);
            a[i] = (l[0] | l[2] << 32) as i64;
            b[i] = (l[1] | l[3] << 32) as i64;
            c[i] = l[4] as i64;
        }
    }
    // SAFETY: AVX is available (only the kernels, which take cpu::Avx2,
    // reach here).
    unsafe {
        [
            _mm256_setr_epi64x(a[0], a[1], a[2], a[3]),
            _mm256_setr_epi64x(b[0], b[1], b[2], b[3]),
            _mm256_setr_epi64x(c[0], c[1], c[2], c[3]),
        ]
    }
}

/// Four blocks (64 bytes) in §3.2's alignment, block `i` in lane `i`, with
/// `hibit` (per lane) in limb 4.
#[inline(always)]
fn load4(block: &[u8; 64], hibit: __m256i) -> State {
    // SAFETY: AVX and AVX2 are available (only the kernels, which take
    // cpu::Avx2, reach here); the loads read the 64 bytes of `block`.
    unsafe {
        let x = _mm256_loadu_si256(block.as_ptr().cast::<__m256i>());
        let y = _mm256_loadu_si256(block.as_ptr().add(32).cast::<__m256i>());
        // Low and high halves of blocks (0, 2, 1, 3), then in order.
        let lo = _mm256_permute4x64_epi64::<0xd8>(_mm256_unpacklo_epi64(x, y));
        let hi = _mm256_permute4x64_epi64::<0xd8>(_mm256_unpackhi_epi64(x, y));
        let m = _mm256_set1_epi64x(MASK26 as i64);
        let l0 = _mm256_and_si256(lo, m);
        let l1 = _mm256_and_si256(_mm256_srli_epi64::<26>(lo), m);
        let l2 = _mm256_and_si256(
            _mm256_or_si256(_mm256_srli_epi64::<52>(lo), _mm256_slli_epi64::<12>(hi)),
            m,
        );
        let l3 = _mm256_and_si256(_mm256_srli_epi64::<14>(hi), m);
        let l4 = _mm256_or_si256(_mm256_srli_epi64::<40>(hi), hibit);
        [pack(l0, l2), pack(l1, l3), l4]
    }
}

/// Two limb vectors (64-bit lanes, values below 2^32) as one register of
/// dword pairs: `lo` in the low dword of each lane, `hi` in the high one.
#[inline(always)]
fn pack(lo: __m256i, hi: __m256i) -> __m256i {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe { _mm256_blend_epi32::<0xaa>(lo, _mm256_slli_epi64::<32>(hi)) }
}

/// The three registers plus three more, dword by dword (no carries: every
/// limb sum stays below 2^32).
#[inline(always)]
fn add(a: &State, b: &State) -> State {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe {
        [
            _mm256_add_epi32(a[0], b[0]),
            _mm256_add_epi32(a[1], b[1]),
            _mm256_add_epi32(a[2], b[2]),
        ]
    }
}

/// §3.2's `R^4` registers as the nine second operands: limb `k` broadcast
/// from the first register by `_mm256_permutevar8x32_epi32` (its index
/// vector one `set`), `5g₁` the second register as it is.
#[inline(always)]
fn multipliers_of_r4(r: &[[u32; 8]; 2]) -> Multipliers {
    // SAFETY: AVX and AVX2 are available (only the kernels reach here);
    // each load reads the 32 bytes of one `[u32; 8]`.
    unsafe {
        let main = _mm256_loadu_si256(r[0].as_ptr().cast::<__m256i>());
        let five_g1 = _mm256_loadu_si256(r[1].as_ptr().cast::<__m256i>());
        // Dword of the first register holding vector k's value (k = 5,
        // 5g₁, is the second register).
        const AT: [i32; 9] = [0, 1, 2, 3, 4, 0, 5, 6, 7];
        // Loops, not closures: a closure does not inherit the kernels'
        // target features, and its intrinsics become calls.
        let mut out = [five_g1; 9];
        for k in 0..9 {
            if k != 5 {
                out[k] = _mm256_permutevar8x32_epi32(main, _mm256_set1_epi32(AT[k]));
            }
        }
        out
    }
}

/// Per-lane multiplier vectors (see [`KeyPowers`]) loaded.
#[inline(always)]
fn per_lane(v: &[[u64; 4]; 9]) -> Multipliers {
    // SAFETY: AVX is available (only the kernels reach here); each load
    // reads the 32 bytes of one `[u64; 4]`.
    unsafe {
        let mut out = [_mm256_set1_epi64x(0); 9];
        for k in 0..9 {
            out[k] = _mm256_loadu_si256(v[k].as_ptr().cast::<__m256i>());
        }
        out
    }
}

#[inline(always)]
fn mul(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe { _mm256_mul_epu32(a, b) }
}

#[inline(always)]
fn sum(a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe { _mm256_add_epi64(a, b) }
}

/// Swaps the dwords of each 64-bit lane (§3.4, between steps 10 and 11).
#[inline(always)]
fn swap(a: __m256i) -> __m256i {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe { _mm256_shuffle_epi32::<0xb1>(a) }
}

/// §3.4, the Goll–Gueron 4×130 multiplication: the column sums `z₀ … z₄`
/// of four products `t_i·g_i` (formula (1)), in the text's 25 steps.
/// `x_k` below is limb `k` of `t_i`; the corrections to the printed steps
/// (see the module docs) are noted `text:`.
#[inline(always)]
fn mul_4x130(t: &State, g: &Multipliers) -> Columns {
    let [a, b, c] = *t;
    let [g0, g1, g2, g3, g4, f1, f2, f3, f4] = *g; // f_k = 5·g_k
    let s1 = mul(a, g0); //            step 1: x₀g₀ (z₀)
    let s2 = mul(b, g0); //            step 2: x₁g₀ (z₁)
    let s3 = mul(c, g0); //            step 3: x₄g₀ (z₄)
    let s4 = mul(a, g2); //            step 4: x₀g₂ (z₂)
    let s5 = mul(b, g2); //            step 5: x₁g₂ (z₃)
    let z1 = sum(mul(a, g1), s2); //   step 6: + x₀g₁
    let z2 = sum(mul(b, g1), s4); //   step 7: + x₁g₁
    let z3 = sum(mul(a, g3), s5); //   step 8: + x₀g₃
    let z4 = sum(mul(b, g3), s3); //   step 9: + x₁g₃
    let z4 = sum(mul(a, g4), z4); //   step 10: + x₀g₄
    // "The lower and upper order 32 bits of each packed 64 bits of those
    // registers are swapped": limbs 2 and 3 in the low dwords.
    let (a2, b3) = (swap(a), swap(b));
    let z0 = sum(mul(b3, f2), s1); //  step 11: + 5x₃g₂ (text: 5g₁)
    let z1 = sum(mul(c, f2), z1); //   step 12: + 5x₄g₂ (text: 5g₁)
    let z3 = sum(mul(a2, g1), z3); //  step 13: + x₂g₁
    let z4 = sum(mul(b3, g1), z4); //  step 14: + x₃g₁
    let z2 = sum(mul(a2, g0), z2); //  step 15: + x₂g₀
    let z3 = sum(mul(b3, g0), z3); //  step 16: + x₃g₀
    let z4 = sum(mul(a2, g2), z4); //  step 17: + x₂g₂
    let z0 = sum(mul(a2, f3), z0); //  step 18: + 5x₂g₃ (text: 5g₂)
    let z1 = sum(mul(b3, f3), z1); //  step 19: + 5x₃g₃ (text: 5g₂)
    let z2 = sum(mul(c, f3), z2); //   step 20: + 5x₄g₃ (text: 5g₂)
    let z3 = sum(mul(c, f4), z3); //   step 21: + 5x₄g₄ (text: 5g₂/5g₃)
    let z1 = sum(mul(a2, f4), z1); //  step 22: + 5x₂g₄ (text: 5g₂/5g₃)
    let z2 = sum(mul(b3, f4), z2); //  step 23: + 5x₃g₄ (text: 5g₃, into z₃)
    let z0 = sum(mul(b, f4), z0); //   step 24: + 5x₁g₄ (text: 5g₃)
    let z0 = sum(mul(c, f1), z0); //   step 25: + 5x₄g₁ (text: 5g₀)
    [z0, z1, z2, z3, z4]
}

/// §3.4's table "Operation Count for the 4×130 multiplication
/// algorithm": `(intrinsic, count printed, count in `mul_4x130` and its
/// operands)`. Ours: the 25 products and 20 additions as printed; 8
/// `permutevar8x32` make the multiplier vectors (`5g₁` is §3.2's second
/// register as it is), with 8 `set1_epi32` index constants, both loop
/// invariants; the dword swap is 2 `shuffle_epi32`; the text's 4
/// `permute4x64` have no place in its steps (ours: 2 a 64-byte group, in
/// the load, for §3.2's lane order). Checked against this file's source
/// by a unit test.
pub const MUL_4X130_OPS: [(&str, u32, u32); 6] = [
    ("_mm256_mul_epu32", 25, 25),
    ("_mm256_add_epi64", 20, 20),
    ("_mm256_set_epi32 (index vectors)", 1, 8),
    ("_mm256_permutevar8x32_epi32", 9, 8),
    ("_mm256_permute4x64_epi64", 4, 0),
    ("_mm256_shuffle_epi32 (the dword swap)", 0, 2),
];

/// `to += from >> 26; from &= 2^26 − 1`.
#[inline(always)]
fn chain_step(from: __m256i, to: __m256i, mask: __m256i) -> (__m256i, __m256i) {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe {
        (
            _mm256_and_si256(from, mask),
            _mm256_add_epi64(to, _mm256_srli_epi64::<26>(from)),
        )
    }
}

/// §3.5, the reduction from 64-bit columns to 32-bit limbs by the two
/// interleaved chains `0 → 1 → 2 → 3 → 4` and `3 → 4 → 0 → 1` (the carry
/// out of limb 4 enters limb 0 times 5), then §3.2's three registers.
#[inline(always)]
fn reduce(z: Columns) -> State {
    // SAFETY: AVX2 is available (only the kernels reach here).
    unsafe {
        let m = _mm256_set1_epi64x(MASK26 as i64);
        let [z0, z1, z2, z3, z4] = z;
        let (z0, z1) = chain_step(z0, z1, m);
        let (z3, z4) = chain_step(z3, z4, m);
        let (z1, z2) = chain_step(z1, z2, m);
        let c = _mm256_srli_epi64::<26>(z4);
        let z4 = _mm256_and_si256(z4, m);
        let z0 = _mm256_add_epi64(z0, _mm256_add_epi64(c, _mm256_slli_epi64::<2>(c)));
        let (z2, z3) = chain_step(z2, z3, m);
        let (z0, z1) = chain_step(z0, z1, m);
        let (z3, z4) = chain_step(z3, z4, m);
        [pack(z0, z2), pack(z1, z3), z4]
    }
}

/// The four lanes' column sums added (each below 2^61 then) and carried
/// into an accumulator.
#[inline(always)]
fn sum_lanes(z: Columns) -> Acc {
    let mut c = [0u64; 5];
    for (x, v) in c.iter_mut().zip(z) {
        // SAFETY: AVX2 is available (only the kernels reach here).
        *x = unsafe {
            let s = _mm_add_epi64(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
            _mm_cvtsi128_si64(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s))) as u64
        };
    }
    let h = acc_of_sums(c);
    c.zeroize();
    h
}

/// §1's 512-bit vectorization: complete 8-decimation Horner on
/// AVX-512F (no IFMA), zero blocks prepended logically (see
/// [`Decimation8`]).
mod decimation8 {
    use super::{Acc, HIBIT, MASK26, acc_of_sums, limbs26, portable};
    use crate::cpu::{self, Avx512};
    use core::arch::x86_64::{
        __m512i, _mm512_add_epi64, _mm512_and_si512, _mm512_loadu_si512, _mm512_mul_epu32,
        _mm512_or_si512, _mm512_reduce_add_epi64, _mm512_set1_epi64, _mm512_setr_epi64,
        _mm512_slli_epi64, _mm512_srli_epi64, _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
    };
    use zeroize::Zeroize;

    /// Eight elements, limb by limb (one zmm register a limb).
    type V5 = [__m512i; 5];

    /// Lane `j` holds block `LANE8[j]` of a group of eight: the order
    /// `vpunpck{l,h}qdq` leaves two 4-block loads in (no lane-crossing
    /// permutation).
    const LANE8: [usize; 8] = [0, 4, 1, 5, 2, 6, 3, 7];

    /// The powers: `r^8` for the loop, and per lane `j` the limbs of
    /// `r^(8 − LANE8[j])` for the combination.
    #[derive(Clone)]
    struct Powers8 {
        r8: [u64; 5],
        by_lane: [[u64; 8]; 5],
    }

    impl Drop for Powers8 {
        fn drop(&mut self) {
            self.r8.zeroize();
            self.by_lane.zeroize();
        }
    }

    /// Complete 8-decimation Horner on AVX-512F, as §1 and the abstract of
    /// the dissertation describe its 512-bit vectorization ("8-decimation
    /// Horner throughout the length of input message … irrespective of the
    /// message length", the missing blocks "logically prepended" as zero
    /// blocks); its §6 is not in the text (it breaks off inside §3.5), so
    /// the representation is the 256-bit one's radix 2^26 with one limb
    /// per zmm register (the three-register layout of §3.2 has no 512-bit
    /// description), one 128-byte group per step (`H ← H·r^8 + G`), the
    /// lanes combined by `r^8 … r`. A partial last block is one more
    /// block (0x01 after its bytes, no 2^128 bit) of the last group.
    pub struct Decimation8 {
        token: Avx512,
        powers: Powers8,
        s: u128,
    }

    impl core::fmt::Debug for Decimation8 {
        /// Nothing: the key is secret.
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.debug_struct("Decimation8").finish_non_exhaustive()
        }
    }

    impl Drop for Decimation8 {
        fn drop(&mut self) {
            self.s.zeroize();
        }
    }

    impl Decimation8 {
        /// The backend's name in benchmarks and on the generated page.
        pub const NAME: &'static str = "avx512f-decimation8";

        /// The one-time key `key` (`r ‖ s`) with its powers `r … r^8`, if
        /// this CPU runs AVX-512F/BW/VL/DQ (and `FIELDWORK_MAX_ISA` allows
        /// it).
        pub fn new(key: &[u8; 32]) -> Option<Decimation8> {
            let token = cpu::Avx512::get()?;
            let scalar = portable::Key::new(key);
            let mut pw = [[0u64; 5]; 8];
            let mut r = scalar.r();
            let mut h: Acc = [r as u64, (r >> 64) as u64, 0];
            r.zeroize();
            for (k, p) in pw.iter_mut().enumerate() {
                if k > 0 {
                    scalar.mul(&mut h);
                }
                let (mut v, top) = portable::freeze(&h);
                *p = limbs26(v, top);
                v.zeroize();
            }
            h.zeroize();
            // pw[k] = r^(k+1); lane j meets r^(8 − LANE8[j]).
            let by_lane = core::array::from_fn(|i| LANE8.map(|b| pw[7 - b][i]));
            let powers = Powers8 { r8: pw[7], by_lane };
            pw.zeroize();
            Some(Decimation8 {
                token,
                powers,
                s: super::super::s_of(key),
            })
        }

        /// RFC 8439's Poly1305 tag of `msg` by complete 8-decimation.
        pub fn tag(self, msg: &[u8]) -> [u8; 16] {
            // SAFETY: the token proves AVX-512F/BW/VL/DQ (cpu::Avx512).
            let h = unsafe { decimate8(self.token, &self.powers, msg) };
            portable::finish(&h, self.s)
        }
    }

    /// The `ℓ = ⌈|msg|/16⌉` blocks, `z = (8 − ℓ mod 8) mod 8` zero blocks
    /// before them, by 8-decimation Horner; the lanes combined.
    ///
    /// # Safety
    /// The CPU must support AVX-512F/BW/VL/DQ (the caller holds [`Avx512`]).
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
    unsafe fn decimate8(_: Avx512, p: &Powers8, msg: &[u8]) -> Acc {
        let blocks = msg.len().div_ceil(16);
        if blocks == 0 {
            return [0; 3];
        }
        let z = (8 - blocks % 8) % 8;
        let groups = (blocks + z) / 8;
        // Loops, not closures or `map`: a closure does not inherit the
        // target features, and its intrinsics become calls.
        let (mut r8, mut r8_5) = ([zero(); 5], [zero(); 5]);
        let (mut r, mut r5) = ([zero(); 5], [zero(); 5]);
        for i in 0..5 {
            r8[i] = _mm512_set1_epi64(p.r8[i] as i64);
            r8_5[i] = _mm512_set1_epi64(5 * p.r8[i] as i64);
            // SAFETY: the load reads the 64 bytes of one `[u64; 8]`.
            r[i] = unsafe { _mm512_loadu_si512(p.by_lane[i].as_ptr().cast::<__m512i>()) };
            r5[i] = _mm512_add_epi64(r[i], _mm512_slli_epi64::<2>(r[i]));
        }
        let mut h = group(msg, 0, z);
        for g in 1..groups {
            h = add(&carry(mul(&h, &r8, &r8_5)), &group(msg, g, z));
        }
        let d = mul(&h, &r, &r5);
        let mut c = [0u64; 5];
        for i in 0..5 {
            c[i] = _mm512_reduce_add_epi64(d[i]) as u64;
        }
        let acc = acc_of_sums(c);
        c.zeroize();
        acc
    }

    /// Group `g` (blocks `8g − z … 8g + 7 − z` of `msg`) as limbs: loaded
    /// in place when it is eight whole blocks, else lane by lane (zero
    /// lanes for the prepended blocks, a partial last block with its 0x01
    /// byte).
    #[inline(always)]
    fn group(msg: &[u8], g: usize, z: usize) -> V5 {
        let first = 16 * (8 * g) as isize - 16 * z as isize;
        let whole = msg.len() / 16;
        if first >= 0 && first as usize + 128 <= 16 * whole {
            let at = first as usize;
            if let Some(b) = msg
                .get(at..at + 128)
                .and_then(|b| <&[u8; 128]>::try_from(b).ok())
            {
                return load8(b, [true; 8]);
            }
        }
        // Lane by lane on the scalar unit (see `group4`); lane j holds
        // block LANE8[j].
        let mut l = [[0i64; 8]; 5];
        for (j, &k) in LANE8.iter().enumerate() {
            let at = (first + 16 * k as isize).try_into().ok();
            if let Some(limbs) = at.and_then(|at: usize| super::block_limbs(msg, at)) {
                for i in 0..5 {
                    l[i][j] = limbs[i] as i64;
                }
            }
        }
        let mut out = [zero(); 5];
        for i in 0..5 {
            // SAFETY: AVX-512F is available (only `decimate8` reaches here).
            out[i] = unsafe {
                _mm512_setr_epi64(
                    l[i][0], l[i][1], l[i][2], l[i][3], l[i][4], l[i][5], l[i][6], l[i][7],
                )
            };
        }
        l.zeroize();
        out
    }

    /// Eight blocks as limbs, lane `j` holding block `LANE8[j]`, the
    /// 2^128 bit in the lanes whose block is `whole`.
    #[inline(always)]
    fn load8(b: &[u8; 128], whole: [bool; 8]) -> V5 {
        // SAFETY: AVX-512F is available (only `decimate8` reaches here);
        // the loads read the 128 bytes of `b`.
        unsafe {
            let x = _mm512_loadu_si512(b.as_ptr().cast::<__m512i>());
            let y = _mm512_loadu_si512(b.as_ptr().add(64).cast::<__m512i>());
            let lo = _mm512_unpacklo_epi64(x, y);
            let hi = _mm512_unpackhi_epi64(x, y);
            let m = _mm512_set1_epi64(MASK26 as i64);
            let bits = LANE8.map(|k| if whole[k] { HIBIT } else { 0 });
            let hibit = _mm512_loadu_si512(bits.as_ptr().cast::<__m512i>());
            [
                _mm512_and_si512(lo, m),
                _mm512_and_si512(_mm512_srli_epi64::<26>(lo), m),
                _mm512_and_si512(
                    _mm512_or_si512(_mm512_srli_epi64::<52>(lo), _mm512_slli_epi64::<12>(hi)),
                    m,
                ),
                _mm512_and_si512(_mm512_srli_epi64::<14>(hi), m),
                _mm512_or_si512(_mm512_srli_epi64::<40>(hi), hibit),
            ]
        }
    }

    #[inline(always)]
    fn zero() -> __m512i {
        // SAFETY: AVX-512F is available (only `decimate8` reaches here).
        unsafe { _mm512_set1_epi64(0) }
    }

    #[inline(always)]
    fn add(a: &V5, b: &V5) -> V5 {
        let mut out = *a;
        for (o, &y) in out.iter_mut().zip(b) {
            // SAFETY: AVX-512F is available (only `decimate8` reaches here).
            *o = unsafe { _mm512_add_epi64(*o, y) };
        }
        out
    }

    /// Column sums of `h·r` (formula (1) of §3.1), `r5 = 5·r`.
    #[inline(always)]
    fn mul(h: &V5, r: &V5, r5: &V5) -> V5 {
        let mut out = [zero(); 5];
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: AVX-512F is available (only `decimate8` reaches here).
            unsafe {
                let mut d = _mm512_mul_epu32(h[0], r[i]);
                for j in 1..5 {
                    let g = if j <= i { r[i - j] } else { r5[i + 5 - j] };
                    d = _mm512_add_epi64(d, _mm512_mul_epu32(h[j], g));
                }
                *o = d;
            }
        }
        out
    }

    /// The two interleaved carry chains of §3.5 (`0 → 1 → 2 → 3 → 4` and
    /// `3 → 4 → 0 → 1`, the carry out of limb 4 times 5 into limb 0).
    #[inline(always)]
    fn carry(mut d: V5) -> V5 {
        // SAFETY: AVX-512F is available (only `decimate8` reaches here).
        unsafe {
            let m = _mm512_set1_epi64(MASK26 as i64);
            for (from, to) in [(0, 1), (3, 4), (1, 2), (4, 0), (2, 3), (0, 1), (3, 4)] {
                let mut c = _mm512_srli_epi64::<26>(d[from]);
                if to == 0 {
                    c = _mm512_add_epi64(c, _mm512_slli_epi64::<2>(c));
                }
                d[from] = _mm512_and_si512(d[from], m);
                d[to] = _mm512_add_epi64(d[to], c);
            }
            d
        }
    }
}

pub use decimation8::Decimation8;

#[cfg(test)]
mod tests {
    use super::*;

    /// [`MUL_4X130_OPS`]'s counts of ours are the calls in
    /// [`mul_4x130`]'s body (products `mul(`, additions `sum(`, swaps
    /// `swap(`) and [`multipliers_of_r4`]'s nine vectors less the one
    /// taken as it is.
    #[test]
    fn op_counts_are_the_source() {
        let src = include_str!("goll_gueron.rs");
        let body = |name: &str| {
            let start = src
                .find(&alloc::format!("fn {name}("))
                .expect("the function");
            let end = start + src[start..].find("\n}\n").expect("its end");
            &src[start..end]
        };
        let m = body("mul_4x130");
        let ours = |k: &str| {
            MUL_4X130_OPS
                .iter()
                .find(|r| r.0.starts_with(k))
                .map(|r| r.2)
        };
        assert_eq!(
            ours("_mm256_mul_epu32"),
            Some(m.matches("mul(").count() as u32)
        );
        assert_eq!(
            ours("_mm256_add_epi64"),
            Some(m.matches("sum(").count() as u32)
        );
        assert_eq!(
            ours("_mm256_shuffle_epi32"),
            Some(m.matches("swap(").count() as u32)
        );
        let r4 = body("multipliers_of_r4");
        assert_eq!(r4.matches("_mm256_permutevar8x32_epi32(").count(), 1);
        assert!(r4.contains("if k != 5"));
        assert_eq!(ours("_mm256_permutevar8x32_epi32"), Some(9 - 1));
        assert_eq!(ours("_mm256_permute4x64_epi64"), Some(0));
        assert_eq!(m.matches("permute").count(), 0);
    }

    /// The carry of column sums into an accumulator keeps the value mod
    /// p (against Horner's rule by 2^26 on the scalar key), up to the
    /// sums' bound of 2^61, and leaves `h₂ ≤ 4`.
    #[test]
    fn acc_of_sums_keeps_the_value() {
        let by_2_26 = portable::Key::from_r(1 << 26);
        for c in [
            [0; 5],
            [1, 2, 3, 4, 5],
            [(1 << 61) - 1; 5],
            [MASK26; 5],
            [1 << 60, 0, 0, 0, (1 << 61) - 1],
        ] {
            let h = acc_of_sums(c);
            assert!(h[2] <= 4, "{c:?}: h₂ = {}", h[2]);
            let mut want: Acc = [0; 3];
            for &x in c.iter().rev() {
                by_2_26.mul(&mut want);
                let t0 = u128::from(want[0]) + u128::from(x);
                let t1 = u128::from(want[1]) + (t0 >> 64);
                want = [t0 as u64, t1 as u64, want[2] + (t1 >> 64) as u64];
            }
            assert_eq!(portable::freeze(&h), portable::freeze(&want), "{c:?}");
        }
    }
}
