//! Target features: `avx512f`, `avx512bw`, `avx512vl`, `avx512dq`,
//! `avx512ifma` — capability token [`Avx512Ifma`].
//!
//! # Layout
//!
//! One zmm register holds a limb of eight field elements: lanes 0–3 the
//! coordinates (x, y, z, t) of R0, lanes 4–7 those of R1, so one ladder step
//! is a handful of 8-lane operations. This follows the four-coordinate
//! vectorisation of Bernstein, Chuengsatiansup, Lange & Schwabe (*Kummer
//! strikes back*, ePrint 2014/134, §4), widened to both ladder points (see
//! "No swap" below for what replaces the conditional swap).
//!
//! # Representation: radix 2^43 under a 52-bit multiplier
//!
//! An element is `l0 + l1·2^43 + l2·2^86` with 64-bit limbs, reduced only
//! loosely (2^129 ≡ 4 mod p, so limb 2's carry re-enters limb 0 times 4).
//! `vpmadd52luq` / `vpmadd52huq` multiply the low 52 bits of two lanes and
//! add the low or high 52 bits of the 104-bit product. With 43-bit limbs the
//! high half of a column-k product sits at 2^(43k + 52) = 2^(43(k+1) + 9):
//! accumulated separately, it is shifted left by 9 into column k + 1. Limbs
//! of 43 bits leave 9 bits of headroom below the multiplier's 52, which is
//! what lets the Hadamard transforms run with no carry at all.
//!
//! Wrap-around is folded into the products: a term landing at column
//! i + j ≥ 3 uses `4·a_i` instead of `a_i` and is accumulated at column
//! i + j − 3 (2^129 ≡ 4); the high halves of column 2 land at column 3 and
//! are shifted by 11 (9 + 2) into column 0. A product is then nine
//! `vpmadd52luq` and nine `vpmadd52huq` into six accumulators of three
//! terms each (chains of three, latency 12), two shifts, three adds and one
//! parallel carry round (a square: six products, twelve instructions).
//!
//! # Bounds (every lane, every limb; proved here, exercised by the tests)
//!
//! - After a product's carry round: `c_k < 2^55.2`, so the carries are
//!   `< 2^12.2` and limbs `< 2^43 + 2^14.2` (limb 0 receives 4× the carry).
//! - Hadamard input `< 2^44` (product outputs; after `⊙ CH`, negated lanes
//!   are `bias − x < 2^44`). The first butterfly subtracts from a bias of
//!   limbs ≈ 2^45 (a multiple of p: `m·(2^43 − 4, 2^43 − 1, 2^43 − 1)` is
//!   `m·(2^129 − 4) = 4m·p`), giving `< 3·2^44`; the second from ≈ 2^46,
//!   giving `< 7·2^44 < 2^47`. No carry is needed after H.
//! - Product inputs `< 2^47` and `4·a < 2^49`, all under the multiplier's
//!   52 bits; a 3-term high accumulator is `< 2^45.4`, shifted by 9 `< 2^54.4`;
//!   the 11-shifted one `< 2^54.6`; three low halves `< 2^53.6`; so
//!   `c_k < 2^55.2` as claimed. Squares: `8·a2 < 2^50`, same bounds.
//! - `⊙ CH` multiplies product outputs (`< 2^43 + 2^15`) by `|c| < 2^12`:
//!   one limb each, `c_k < 2^52 + 2^14`, then a carry round and a masked
//!   negation of the lanes whose constant is negative.
//!
//! # The Hadamard transform without a final permutation
//!
//! Two butterfly layers — pairs (0,1),(2,3) with an in-lane `vpshufd`, then
//! pairs (0,2),(1,3) with `vpermq` — give `σ·H` where σ swaps coordinates 1
//! and 2. Since `H·σ = σ·H`, applying the same two layers to a σ-ordered
//! vector gives H in natural order. So the first transform of a step leaves
//! its output σ-ordered (CH is stored σ-ordered to match) and the second
//! restores the natural order: no permutation is spent on σ.
//! A butterfly is `t = perm(v)`, `w = v` with the high lanes replaced by
//! `bias − v` (one masked subtract), `v' = t + w`.
//!
//! # No swap
//!
//! The ladder never swaps R0 and R1. The scalar bit chooses which half is
//! doubled: the first product multiplies both halves by the transform of
//! the doubled half, broadcast with `vpermq` from a bit-dependent index
//! vector, and the last product's constant puts CD on the doubled half and
//! (1, u1, u2, u3) on the other, selected by a bitwise mask. Both choices
//! are register operations whose timing does not depend on the bit; R0 and
//! R1 stay in place, so the final swap disappears too.
//!
//! # Cost per ladder step, and what limits it
//!
//! Per step: 54 multiply-accumulates (18 + 6 + 12 + 18) and about 120 other
//! zmm instructions (Hadamard 36, column shifts and adds 18 + 12, carry
//! rounds 30, the rest selections, broadcasts and the ⊙CH tail).
//!
//! Measured on this machine (Intel Xeon, family 6 model 207; cycles
//! estimated from the time-stamp counter, no performance counters):
//! `vpmadd52luq` zmm has latency 4 and throughput ≈ 2 per cycle; integer
//! zmm adds and logic 2 per cycle, shifts 1 per cycle (one port),
//! cross-lane permutes 3 cycles; and a round trip from a multiply-add into
//! an integer add and back costs ≈ 2.5 cycles more than the sum of the
//! latencies (a bypass delay between the multiplier and the integer units).
//! So a product costs ≈ 22–25 cycles of latency (multiply chains, bypass,
//! columns, carry), a square ≈ 21, the ⊙CH product ≈ 10–14, a Hadamard
//! transform ≈ 9; the step is one dependency chain of about 100 cycles,
//! with about 175 zmm instructions on two vector ports (≈ 88 cycles), and
//! runs at about 120 cycles: both latency and port throughput bind, so
//! removing instructions off the critical path also pays. What helped:
//! the ⊙CH product with the constant scaled by 2^9 (see `mul_small`; 23 → 13 instructions, ≈ 5 % of the ladder), no swap (6
//! instructions and ≈ 4 cycles of latency), splitting three-term multiply
//! chains (neutral within noise here).
#![allow(unsafe_code)]

use super::portable::{Fe, P};
use crate::cpu::Avx512Ifma;
use core::arch::x86_64::{
    __m512i, _MM_PERM_BADC, _mm512_add_epi64, _mm512_and_si512, _mm512_madd52hi_epu64,
    _mm512_madd52lo_epu64, _mm512_mask_sub_epi64, _mm512_permutex_epi64, _mm512_permutexvar_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_shuffle_epi32, _mm512_slli_epi64,
    _mm512_srli_epi64, _mm512_ternarylogic_epi64,
};

const M43: u64 = (1 << 43) - 1;
const M41: u128 = (1 << 41) - 1;

/// Limbs of `m·(2^129 − 4) = 4m·p`, a multiple of p with every limb about
/// `m·2^43`: added before a subtraction to keep limbs nonnegative.
const fn bias(m: u64) -> [u64; 3] {
    [m * ((1 << 43) - 4), m * M43, m * M43]
}

/// Eight field elements, limb-sliced: `.0[k]` holds limb k of every lane.
#[derive(Clone, Copy)]
struct V([__m512i; 3]);

/// The three radix-2^43 limbs of a (canonical) element.
fn limbs(x: Fe) -> [u64; 3] {
    let x = x.0;
    [
        (x as u64) & M43,
        ((x >> 43) as u64) & M43,
        (x >> 86) as u64, // < 2^41
    ]
}

/// The canonical element of limbs `< 2^60`.
fn from_limbs(l: [u64; 3]) -> Fe {
    // l2 at 2^86: its bits from 41 up are at 2^127 ≡ 1.
    let l2 = u128::from(l[2]);
    let x = u128::from(l[0]) + (u128::from(l[1]) << 43) + ((l2 & M41) << 86) + (l2 >> 41);
    // x < 2^60 + 2^103 + 2^127 + 2^19 < 2^128; fold bit 127, then `add`
    // reduces fully.
    Fe((x & P) + (x >> 127)).add(Fe(0))
}

impl V {
    /// Lanes from eight elements' limbs.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn from_lanes(l: [[u64; 3]; 8]) -> V {
        V(core::array::from_fn(|k| {
            let lanes: [u64; 8] = core::array::from_fn(|i| l[i][k]);
            // SAFETY: `[u64; 8]` and `__m512i` have the same size and every
            // bit pattern is valid for both.
            unsafe { core::mem::transmute::<[u64; 8], __m512i>(lanes) }
        }))
    }

    /// The same limbs in every lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn splat(l: [u64; 3]) -> V {
        V(l.map(|x| _mm512_set1_epi64(x as i64)))
    }

    /// Every lane's limbs.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn to_lanes(self) -> [[u64; 3]; 8] {
        // SAFETY: as in `from_lanes`.
        let l: [[u64; 8]; 3] = self
            .0
            .map(|v| unsafe { core::mem::transmute::<__m512i, [u64; 8]>(v) });
        core::array::from_fn(|i| [l[0][i], l[1][i], l[2][i]])
    }
}

/// `v << s` limb-wise.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn shl<const S: u32>(v: V) -> V {
    V(v.0.map(|x| _mm512_slli_epi64::<S>(x)))
}

/// One parallel carry round: limbs to `< 2^43 + 4·(c_max >> 43)`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn carry(c: [__m512i; 3]) -> V {
    let m = _mm512_set1_epi64(M43 as i64);
    let q0 = _mm512_srli_epi64::<43>(c[0]);
    let q1 = _mm512_srli_epi64::<43>(c[1]);
    let q2 = _mm512_slli_epi64::<2>(_mm512_srli_epi64::<43>(c[2])); // 2^129 ≡ 4
    V([
        _mm512_add_epi64(_mm512_and_si512(c[0], m), q2),
        _mm512_add_epi64(_mm512_and_si512(c[1], m), q0),
        _mm512_add_epi64(_mm512_and_si512(c[2], m), q1),
    ])
}

/// Column sums from the low-half accumulators `l` and the high-half ones
/// `g` (g[0] comes from column 3, so it is shifted by 9 + 2).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn columns(l: [__m512i; 3], g: [__m512i; 3]) -> [__m512i; 3] {
    [
        _mm512_add_epi64(l[0], _mm512_slli_epi64::<11>(g[0])),
        _mm512_add_epi64(l[1], _mm512_slli_epi64::<9>(g[1])),
        _mm512_add_epi64(l[2], _mm512_slli_epi64::<9>(g[2])),
    ]
}

/// `a ⊙ b` lane-wise, given `a4 = 4·a` (see the module docs for the column
/// plan and the bounds: inputs `< 2^47`, `a4 < 2^52`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn mul(a: V, a4: V, b: V) -> V {
    use _mm512_madd52hi_epu64 as hi;
    use _mm512_madd52lo_epu64 as lo;
    let z = _mm512_setzero_si512();
    let ([a0, a1, a2], [_, f1, f2], [b0, b1, b2]) = (a.0, a4.0, b.0);
    // Each three-term column is two chains (two terms and one) added
    // afterwards: IFMA latency 8 instead of 12 for one add more.
    let add = _mm512_add_epi64;
    let l = [
        add(lo(lo(z, a0, b0), f1, b2), lo(z, f2, b1)),
        add(lo(lo(z, a0, b1), a1, b0), lo(z, f2, b2)),
        add(lo(lo(z, a0, b2), a1, b1), lo(z, a2, b0)),
    ];
    let g = [
        add(hi(hi(z, a0, b2), a1, b1), hi(z, a2, b0)),
        add(hi(hi(z, a0, b0), f1, b2), hi(z, f2, b1)),
        add(hi(hi(z, a0, b1), a1, b0), hi(z, f2, b2)),
    ];
    carry(columns(l, g))
}

/// `a ⊙ a` lane-wise (inputs `< 2^47`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn square(a: V) -> V {
    use _mm512_madd52hi_epu64 as hi;
    use _mm512_madd52lo_epu64 as lo;
    let z = _mm512_setzero_si512();
    let [a0, a1, a2] = a.0;
    let d1 = _mm512_add_epi64(a1, a1);
    let d2 = _mm512_add_epi64(a2, a2);
    let q2 = _mm512_slli_epi64::<2>(a2);
    let e2 = _mm512_slli_epi64::<3>(a2);
    // Column 0: a0², and 2·a1·a2 from column 3 (×4); column 1: 2·a0·a1 and
    // a2² from column 4 (×4); column 2: 2·a0·a2 and a1².
    let l = [
        lo(lo(z, a0, a0), a1, e2),
        lo(lo(z, a0, d1), a2, q2),
        lo(lo(z, a0, d2), a1, a1),
    ];
    let g = [
        hi(hi(z, a0, d2), a1, a1),
        hi(hi(z, a0, a0), a1, e2),
        hi(hi(z, a0, d1), a2, q2),
    ];
    carry(columns(l, g))
}

/// `a ⊙ c` for one-limb constants `c < 2^12`, given as `c9 = c·2^9`
/// (inputs `< 2^44`), then the lanes in `neg` negated (`bias − x`, bias
/// limbs ≈ 2^44).
///
/// With the constant scaled by 2^9 the multiplier splits each product at
/// bit 43, not 52: the low half is `(a_k·c mod 2^43)·2^9` and the high half
/// `a_k·c >> 43 < 2^13`, the carry into limb k + 1. So the result comes out
/// carried: `(lo_k >> 9) + hi_(k−1)` (limb 2's carry times 4 into limb 0),
/// limbs `< 2^43 + 2^15` — no column shifts, no carry round.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn mul_small(a: V, c9: __m512i, neg: u8, bias: V) -> V {
    use _mm512_madd52hi_epu64 as hi;
    use _mm512_madd52lo_epu64 as lo;
    let z = _mm512_setzero_si512();
    let [a0, a1, a2] = a.0;
    let low = |x| _mm512_srli_epi64::<9>(lo(z, x, c9));
    let r = [
        _mm512_add_epi64(low(a0), _mm512_slli_epi64::<2>(hi(z, a2, c9))),
        _mm512_add_epi64(low(a1), hi(z, a0, c9)),
        _mm512_add_epi64(low(a2), hi(z, a1, c9)),
    ];
    V(core::array::from_fn(|k| {
        _mm512_mask_sub_epi64(r[k], neg, bias.0[k], r[k])
    }))
}

/// σ·H on both halves (module docs): two butterfly layers, no carry.
/// Inputs `< 2^44`, outputs `< 2^47`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn hadamard(v: V, b1: V, b2: V) -> V {
    V(core::array::from_fn(|k| {
        let x = v.0[k];
        // Pairs (0,1), (2,3): high lanes 1, 3, 5, 7.
        let t = _mm512_shuffle_epi32::<_MM_PERM_BADC>(x);
        let w = _mm512_mask_sub_epi64(x, 0xaa, b1.0[k], x);
        let x = _mm512_add_epi64(t, w);
        // Pairs (0,2), (1,3): high lanes 2, 3, 6, 7.
        let t = _mm512_permutex_epi64::<0x4e>(x);
        let w = _mm512_mask_sub_epi64(x, 0xcc, b2.0[k], x);
        _mm512_add_epi64(t, w)
    }))
}

/// The ladder of the module docs (same inputs and output as
/// `portable::ladder`, which the tests check).
pub(super) fn ladder(t: Avx512Ifma, scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
    let _ = t;
    // SAFETY: the token proves the CPU supports every feature `ladder_zmm`
    // is compiled for.
    unsafe { ladder_zmm(scalar, u) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
fn ladder_zmm(scalar: &[u8; 32], u: [Fe; 3]) -> [Fe; 4] {
    let [u1, u2, u3] = u;
    let small = |c: i64| limbs(Fe::small(c));
    let r1 = super::portable::point_from_ratios(u).map(limbs);
    let n = super::NEUTRAL.map(small);
    let mut r = V::from_lanes([n[0], n[1], n[2], n[3], r1[0], r1[1], r1[2], r1[3]]);
    // The last product of a step: the doubled point's lanes by CD, the
    // sum's by (1, u1, u2, u3). Which half is which depends on the bit.
    let cd = super::CD.map(small);
    let ud = [Fe::ONE, u1, u2, u3].map(limbs);
    let k0 = V::from_lanes([cd[0], cd[1], cd[2], cd[3], ud[0], ud[1], ud[2], ud[3]]);
    let k1 = V::from_lanes([ud[0], ud[1], ud[2], ud[3], cd[0], cd[1], cd[2], cd[3]]);
    let (k0_4, k1_4) = (shl::<2>(k0), shl::<2>(k1));
    // ⊙ CH on σ-ordered vectors: |CH| with coordinates 1 and 2 swapped,
    // lane 0 of each half negative.
    let ch = super::CH;
    debug_assert!(ch[0] < 0 && ch[1] > 0 && ch[2] > 0 && ch[3] > 0);
    let chs = [-ch[0], ch[2], ch[1], ch[3]];
    let ch_abs = V::from_lanes(core::array::from_fn(|i| [(chs[i % 4] as u64) << 9, 0, 0])).0[0];
    let (b_neg, b1, b2) = (V::splat(bias(2)), V::splat(bias(4)), V::splat(bias(8)));
    // Lane indices broadcasting the low half (bit 0) or the high half.
    let idx_lo = V::from_lanes(core::array::from_fn(|i| [(i % 4) as u64, 0, 0])).0[0];

    for i in (0..251).rev() {
        let bit = (scalar[i / 8] >> (i % 8)) & 1;
        // No swap: the bit selects which half is doubled. `h` = σ·H of both
        // points; `w` = the doubled one's transform in both halves (vpermq's
        // timing does not depend on its index vector); `k` puts CD on the
        // doubled half and (1, u) on the other.
        let idx = _mm512_add_epi64(idx_lo, _mm512_set1_epi64(i64::from(bit) << 2));
        let mask = _mm512_set1_epi64(-i64::from(bit));
        let sel = |a: V, b: V| {
            V(core::array::from_fn(|l| {
                _mm512_ternarylogic_epi64::<0xca>(mask, a.0[l], b.0[l])
            }))
        };
        let (k, k4) = (sel(k1, k0), sel(k1_4, k0_4));
        let h = hadamard(r, b1, b2);
        let w = V(h.0.map(|x| _mm512_permutexvar_epi64(idx, x)));
        let m = mul(h, shl::<2>(h), w); // σ(doubled²), σ(sum-product)
        let m = mul_small(m, ch_abs, 0x11, b_neg);
        let h = hadamard(m, b1, b2); // natural order
        r = mul(k, k4, square(h));
    }
    let r = r.to_lanes();
    [r[0], r[1], r[2], r[3]].map(from_limbs)
}

#[cfg(test)]
mod tests {
    use super::super::portable;
    use super::*;
    extern crate std;

    /// SplitMix64.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn fe(&mut self) -> Fe {
            Fe::from_bytes(
                &((u128::from(self.next()) << 64) | u128::from(self.next())).to_le_bytes(),
            )
        }
        /// Limbs below `2^bits`, biased towards the maximum.
        fn limbs(&mut self, bits: u32) -> [u64; 3] {
            core::array::from_fn(|_| {
                let max = (1u64 << bits) - 1;
                match self.next() % 4 {
                    0 => max,
                    1 => max - (self.next() & 0xffff),
                    _ => self.next() & max,
                }
            })
        }
    }

    fn token() -> Option<Avx512Ifma> {
        let t = Avx512Ifma::get();
        if t.is_none() {
            std::eprintln!("skipped: no AVX-512 IFMA on this CPU (or capped)");
        }
        t
    }

    /// Runs `f` on eight random lane sets with limbs `< 2^bits` and checks
    /// each lane against `expect` on the portable field.
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma")]
    fn check_op(
        rng: &mut Rng,
        bits: u32,
        f: &dyn Fn(V, V) -> V,
        expect: &dyn Fn(Fe, Fe, usize) -> Fe,
        out_limb_max: u64,
    ) {
        let a: [[u64; 3]; 8] = core::array::from_fn(|_| rng.limbs(bits));
        let b: [[u64; 3]; 8] = core::array::from_fn(|_| rng.limbs(bits));
        let r = f(V::from_lanes(a), V::from_lanes(b)).to_lanes();
        for i in 0..8 {
            let want = expect(from_limbs(a[i]), from_limbs(b[i]), i);
            assert_eq!(
                from_limbs(r[i]),
                want,
                "lane {i}: a {:x?} b {:x?}",
                a[i],
                b[i]
            );
            assert!(r[i].iter().all(|&x| x < out_limb_max), "bound: {:x?}", r[i]);
        }
    }

    #[test]
    fn limb_conversion() {
        let mut rng = Rng(1);
        for _ in 0..1000 {
            let x = rng.fe();
            assert_eq!(from_limbs(limbs(x)), x);
        }
        assert_eq!(from_limbs([M43, M43, (1 << 41) - 1]), Fe(0)); // p itself
        let l = (1u64 << 60) - 1;
        let fl = Fe(l.into());
        let w = fl.add(fl.mul(Fe(1 << 43))).add(fl.mul(Fe(1 << 86)));
        assert_eq!(from_limbs([l, l, l]), w);
    }

    #[test]
    fn field_ops_match_portable_at_their_bounds() {
        let Some(_t) = token() else { return };
        let mut rng = Rng(2);
        let bound = (1u64 << 43) + (1 << 15);
        let chs = [833i64, 1617, 2499, 561];
        for _ in 0..3000 {
            // SAFETY: the token proves the features `check_op` needs.
            unsafe {
                // Products and squares of Hadamard outputs (< 2^47).
                check_op(
                    &mut rng,
                    47,
                    &|a, b| mul(a, shl::<2>(a), b),
                    &|a, b, _| a.mul(b),
                    bound,
                );
                check_op(
                    &mut rng,
                    47,
                    &|a, _| square(a),
                    &|a, _, _| a.square(),
                    bound,
                );
                // The last product: a canonical constant times a product
                // output.
                check_op(
                    &mut rng,
                    43,
                    &|a, b| mul(a, shl::<2>(a), b),
                    &|a, b, _| a.mul(b),
                    bound,
                );
                // Small constants on product outputs, lanes 0 and 4 negated;
                // outputs feed H, so < 2^44.
                check_op(
                    &mut rng,
                    43,
                    &|a, _| {
                        let c = V::from_lanes(core::array::from_fn(|i| {
                            [(chs[i % 4] as u64) << 9, 0, 0]
                        }));
                        mul_small(a, c.0[0], 0x11, V::splat(bias(2)))
                    },
                    &|a, _, i| {
                        let c = Fe::small(chs[i % 4]);
                        let r = a.mul(c);
                        if i % 4 == 0 { Fe(0).sub(r) } else { r }
                    },
                    1 << 44,
                );
            }
        }
    }

    /// σ·H on each half, against the portable field.
    #[test]
    fn hadamard_matches_portable() {
        let Some(_t) = token() else { return };
        let mut rng = Rng(3);
        for _ in 0..3000 {
            let a: [[u64; 3]; 8] = core::array::from_fn(|_| rng.limbs(44));
            // SAFETY: the token proves the features.
            let r = unsafe {
                hadamard(V::from_lanes(a), V::splat(bias(4)), V::splat(bias(8))).to_lanes()
            };
            for h in 0..2 {
                let [x, y, z, t]: [Fe; 4] = core::array::from_fn(|i| from_limbs(a[4 * h + i]));
                let want = [
                    x.add(y).add(z).add(t),
                    x.sub(y).add(z).sub(t), // σ: H2 in position 1
                    x.add(y).sub(z).sub(t),
                    x.sub(y).sub(z).add(t),
                ];
                for i in 0..4 {
                    assert_eq!(from_limbs(r[4 * h + i]), want[i], "half {h} coord {i}");
                    assert!(r[4 * h + i].iter().all(|&l| l < 1 << 47));
                }
            }
        }
    }

    #[test]
    fn ladder_matches_portable() {
        let Some(t) = token() else { return };
        let mut rng = Rng(5);
        let base = portable::decode(&super::super::BASE_POINT);
        let mut scalars = std::vec![[0u8; 32], [0xff; 32]];
        let mut one = [0u8; 32];
        one[0] = 1;
        scalars.push(one);
        for _ in 0..60 {
            scalars.push(core::array::from_fn(|_| rng.next() as u8));
        }
        let edge = [
            Fe(0),
            Fe(1),
            Fe(P - 1),
            Fe(P - 2),
            Fe(1 << 126),
            Fe(M43.into()),
        ];
        for (n, s) in scalars.iter().enumerate() {
            let u = match n % 3 {
                0 => base,
                1 => [rng.fe(), rng.fe(), rng.fe()],
                _ => core::array::from_fn(|_| edge[(rng.next() % 6) as usize]),
            };
            assert_eq!(
                ladder(t, s, u),
                portable::ladder(s, u),
                "scalar {s:02x?} point {u:x?}"
            );
        }
    }

    #[test]
    fn issue_vector() {
        let Some(t) = token() else { return };
        let sk: [u8; 32] = hex("a4151a74fd5e31af9769976bf6f2bb84752ce599bdd64c677674a91c888eb413");
        let pk: [u8; 48] = hex(
            "b9658b25193c55523757069a932e8711cc0e06bbdfd9b87427be030dcc63bc7d\
             e385b3efa9a4e3a355d28800c221a548",
        );
        let u = portable::decode(&super::super::BASE_POINT);
        assert_eq!(portable::encode(ladder(t, &sk, u)), pk);
    }

    fn hex<const N: usize>(s: &str) -> [u8; N] {
        let s: std::string::String = s.split_whitespace().collect();
        core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
    }
}
