//! Target features: `neon` — capability token [`crate::cpu::Neon`].
//!
//! Poly1305 on AArch64's Advanced SIMD unit in radix 2^26: two Horner
//! chains, one per 64-bit lane, over the odd and even blocks, with
//! complete decimation (Bhattacharyya & Sarkar, ePrint 2019/842; the
//! AVX2 backend's `avx2-decimation` is the four-lane x86 analogue).
//!
//! # Math
//!
//! `h = h₀ + h₁·2^26 + … + h₄·2^104` in five limbs of 32-bit lanes; the
//! product by `r` (limbs `r₀ … r₄`, `sᵢ = 5·rᵢ` for `2^130 ≡ 5`) is
//!
//! ```text
//! d₀ = h₀r₀ + h₁s₄ + h₂s₃ + h₃s₂ + h₄s₁     d₃ = h₀r₃ + h₁r₂ + h₂r₁ + h₃r₀ + h₄s₄
//! d₁ = h₀r₁ + h₁r₀ + h₂s₄ + h₃s₃ + h₄s₂     d₄ = h₀r₄ + h₁r₃ + h₂r₂ + h₃r₁ + h₄r₀
//! d₂ = h₀r₂ + h₁r₁ + h₂r₀ + h₃s₄ + h₄s₃
//! ```
//!
//! 25 `umull`/`umlal` (32×32 → 64 on two lanes) for two blocks, then the
//! lazy carry chain of Bernstein & Schwabe, "NEON crypto" (CHES 2012):
//! limbs below 2^26 + 2^10 afterwards.
//!
//! **Complete decimation with two lanes.** For `n` blocks the lanes run
//! over pairs: lane 0 takes blocks 1, 3, 5, …, lane 1 blocks 2, 4, …;
//! when `n` is odd a zero block (without its 2^128 bit) is prepended
//! logically, so lane 0 starts on it and the accumulator joins block 1 in
//! lane 1. Every pair but the last multiplies the lanes by `r²`; the last
//! by `r²` in lane 0 and `r` in lane 1 (`umull2` on the upper half of the
//! powers' registers), and the lanes are added. The loop takes two pairs
//! a pass with one carry chain: `(acc + M₁)·r⁴ + M₂·r²` (50 products),
//! as OpenSSL's ARMv8 kernel does, software-pipelined: `M₂·r²` of the
//! next pass is computed in this one, after the accumulator's products
//! and before its carries, so that the 25 products that do not wait on
//! the carry chain are issued under it (straight, the accumulator's
//! products came first and the independent ones queued behind them). The powers are one register per limb
//! (`r⁴, r³, r², r` in its lanes: the by-lane multiplies take
//! `umull …, v.s[lane]`), computed once per key by the scalar product,
//! on the first input long enough for the vector loop.
//!
//! # Bounds
//!
//! Limbs in the loop are below 2^26 + 2^10 after the carries, below 2^27.1
//! with a message limb added; `sᵢ < 5·2^26 < 2^28.4`; five products
//! below 2^57.8, the two multiplications of a pass below 2^58.8 < 2^64.
//!
//! # Operation counts (instructions per 16-byte block)
//!
//! Per pass of four blocks: 50 products, 2 × (`ld2` + 12 for the limbs
//! of two blocks: `shrn`/`xtn`, `and`, one `shl`+`sri`, `orr` of the
//! 2^128 bits; `shrn` shifts at most 32, so limb 4 is `ushr`+`xtn`), 5 additions, 28 for the carries and narrowing (7 carries
//! of `ushr`, `and`, `add`, the ×5 fold as `bic`+2 `usra`, 5 `xtn`), 3 of
//! loop control: about 112, 28 a block. Compiled (rustc 1.96): 128
//! instructions a pass (8 of them reloads of spilled powers: the
//! pipelined products are five more live registers); dynamically under
//! qemu (`scripts/aarch64-counts.py`) 33 681 instructions a 16 KiB call,
//! 32.9 a block with the call's costs (OpenSSL 35 228), against 31 922,
//! 31.2 a block, for the scalar radix-2^64 loop
//! (`portable.rs`: 5 `mul`, 5 `umulh`, a `madd` and the carries, 31
//! instructions in its loop); the vector path also costs about 700
//! instructions more per call (the powers on a key's first long input,
//! the limb conversions, the lanes' join). llvm-mca-19 on Neoverse N1:
//! 57 cycles a pass, 14.3 a block (OpenSSL's `poly1305_blocks_neon` 15.3;
//! before the pipelining 70 cycles, 17.5), against 39 for the scalar loop,
//! whose single `mul`/`umulh` chain bounds it. By the instruction count
//! the scalar loop wins at every length, so it is the default on AArch64
//! and this backend is reached by name (`neon`); by the cycle estimate
//! this one wins from a few blocks on a real N1-class core
//! (`tuning::NEON_MIN_VECTOR_BLOCKS`, the crossover below which its calls
//! run the scalar loop).
//!
//! Rejected: the message limbs from `ld4` (32-bit words of two blocks in
//! four registers, 3 fewer instructions a pair) — `vld4_u32` takes a
//! `*const u32` and the input is any byte slice, unaligned.
//!
//! Constant time: lane arithmetic, no branch or index on the key or the
//! message (only on lengths).
//!
//! Stack wipe: [`blocks_neon`] spills the powers of `r` (the test finds
//! them 320 and 512 bytes deep; it writes 720 deep, rustc 1.96), so it is
//! out of line and [`Backend::blocks`] calls
//! [`crate::wipe::wipe_stack_below`] with [`BLOCKS_STACK`] (768 bytes, 40
//! instructions) after it returns: once a call, on the vector path only
//! (from the crossover, 16 blocks). The powers are computed in place in
//! the key, out of line ([`powers_into`]), so that no copy stays in
//! `blocks`' own frame. The test
//! `blocks_stay_within_their_wipe_and_leave_no_secret` checks the bound
//! and that none of the powers is left.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// limb indices are constants into fixed 5- and 9-entry arrays.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::portable::{self, Acc};
use crate::cpu;
use core::arch::aarch64::{
    uint32x2_t, uint32x4_t, uint64x2_t, vadd_u32, vaddq_u64, vaddvq_u64, vand_u32, vandq_u64,
    vbicq_u64, vcombine_u32, vdup_n_u32, vdupq_n_u64, vld1_u32, vld1q_u8, vld1q_u32,
    vmlal_high_u32, vmlal_laneq_u32, vmovn_u64, vmull_high_u32, vmull_laneq_u32, vorr_u32,
    vreinterpretq_u64_u8, vshlq_n_u64, vshrn_n_u64, vshrq_n_u64, vsraq_n_u64, vsriq_n_u64,
    vzip1q_u64, vzip2q_u64,
};

/// 2^26 − 1.
const MASK26: u32 = 0x03ff_ffff;

/// The powers' registers: limb `k` of `r⁴, r³, r², r` (lanes 0 to 3) for
/// `k` = `r₀ … r₄`, then `5·r₁ … 5·r₄`.
type Powers = [[u32; 4]; 9];

/// Indices into [`Powers`].
const R0: usize = 0;
const R1: usize = 1;
const R2: usize = 2;
const R3: usize = 3;
const R4: usize = 4;
const S1: usize = 5;
const S2: usize = 6;
const S3: usize = 7;
const S4: usize = 8;

/// For `dₖ` (row `k`), the power limb that multiplies `h₀ … h₄` (see the
/// module docs).
const ROWS: [[usize; 5]; 5] = [
    [R0, S4, S3, S2, S1],
    [R1, R0, S4, S3, S2],
    [R2, R1, R0, S4, S3],
    [R3, R2, R1, R0, S4],
    [R4, R3, R2, R1, R0],
];

/// The NEON key: `r` for the scalar path, its powers once an input is
/// long enough for the vector loop, and the crossover.
#[derive(Clone)]
pub(crate) struct Key {
    token: cpu::Neon,
    scalar: portable::Key,
    powers: Option<Powers>,
    /// Blocks below which a call stays on the scalar loop (at least 2).
    min_vector_blocks: usize,
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.scalar.secret_spans(s);
        if let Some(p) = &self.powers {
            s.secret("r^4, r^3, r^2, r by lane", p);
        }
    }
}

impl Backend for Key {
    type Token = cpu::Neon;
    const NAME: &'static str = "neon";

    /// The key with the tuning table's crossover ([`super::tuning`]).
    #[inline]
    fn new(token: cpu::Neon, key: &[u8; 32]) -> Key {
        Key::tuned(token, key, super::tuning::NEON_MIN_VECTOR_BLOCKS)
    }

    fn scalar(&self) -> &portable::Key {
        &self.scalar
    }

    /// Whole blocks: the vector loop from the crossover, the scalar loop
    /// below it.
    fn blocks(&mut self, h: &mut Acc, data: &[u8]) {
        let n = data.len() / 16;
        if n < self.min_vector_blocks {
            self.scalar.blocks(h, data);
            return;
        }
        if self.powers.is_none() {
            // Written in place, out of line: no copy of the powers is
            // left in this frame, and the wipe below clears the frame of
            // `powers_into` too.
            let p = self.powers.insert([[0; 4]; 9]);
            powers_into(&self.scalar, p);
        }
        if let Some(powers) = &self.powers {
            // SAFETY: the token (cpu::Neon) proves NEON.
            unsafe { blocks_neon(self.token, powers, h, data) };
            crate::wipe::wipe_stack_below::<BLOCKS_STACK>();
        }
    }
}

impl Key {
    /// The key with a given crossover (at least 2 blocks; tests force it
    /// down to run the vector loop at every count).
    #[inline]
    pub(crate) fn tuned(token: cpu::Neon, key: &[u8; 32], min_vector_blocks: usize) -> Key {
        Key {
            token,
            scalar: portable::Key::new(key),
            powers: None,
            min_vector_blocks: min_vector_blocks.max(2),
        }
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        if let Some(p) = &mut self.powers {
            crate::wipe::wipe(p);
        }
    }
}

/// The five 26-bit limbs of `v + top·2^128` (`v` fully reduced with `top
/// < 4`).
fn limbs_of(v: u128, top: u64) -> [u32; 5] {
    let m = u128::from(MASK26);
    [
        (v & m) as u32,
        (v >> 26 & m) as u32,
        (v >> 52 & m) as u32,
        (v >> 78 & m) as u32,
        (v >> 104) as u32 | (top as u32) << 24,
    ]
}

/// `r⁴, r³, r², r` by lane (the scalar product, fully reduced).
#[cfg(test)]
fn powers_of(scalar: &portable::Key) -> Powers {
    let mut p = [[0; 4]; 9];
    powers_into(scalar, &mut p);
    p
}

/// Writes `r⁴, r³, r², r` by lane (the scalar product, fully reduced) to
/// `p`.
#[inline(never)]
fn powers_into(scalar: &portable::Key, p: &mut Powers) {
    let r = scalar.r();
    let mut x: Acc = [r as u64, (r >> 64) as u64, 0];
    let mut by_power = [[0u32; 5]; 4];
    for (j, l) in by_power.iter_mut().enumerate() {
        if j > 0 {
            scalar.mul(&mut x);
        }
        let (mut v, top) = portable::freeze(&x);
        *l = limbs_of(v, top);
        crate::wipe::wipe(&mut v);
    }
    for lane in 0..4 {
        let l = by_power[3 - lane];
        for k in 0..5 {
            p[k][lane] = l[k];
        }
        for k in 1..5 {
            p[S1 + k - 1][lane] = 5 * l[k];
        }
    }
    crate::wipe::wipe(&mut x);
    crate::wipe::wipe(&mut by_power);
}

/// The lanes' state: five limbs of two 32-bit lanes.
type Lanes = [uint32x2_t; 5];
/// Products before the carries: five limbs of two 64-bit lanes.
type Wide = [uint64x2_t; 5];

/// The limbs of the two blocks of `pair` (lane 0 the first), each with
/// `hibit` (`2^24` in limb 4 for the 2^128 bit, or 0).
#[inline(always)]
fn load_pair(pair: &[u8; 32], hibit: uint32x2_t) -> Lanes {
    // SAFETY: NEON is available (only this file's entry point, which
    // takes cpu::Neon, reaches here); `pair` is 32 readable bytes.
    unsafe {
        let a = vreinterpretq_u64_u8(vld1q_u8(pair.as_ptr()));
        let b = vreinterpretq_u64_u8(vld1q_u8(pair[16..].as_ptr()));
        let (lo, hi) = (vzip1q_u64(a, b), vzip2q_u64(a, b));
        let m = vdup_n_u32(MASK26);
        [
            vand_u32(vmovn_u64(lo), m),
            vand_u32(vshrn_n_u64::<26>(lo), m),
            vand_u32(vmovn_u64(vsriq_n_u64::<52>(vshlq_n_u64::<12>(hi), lo)), m),
            vand_u32(vshrn_n_u64::<14>(hi), m),
            vorr_u32(vmovn_u64(vshrq_n_u64::<40>(hi)), hibit),
        ]
    }
}

/// `a + b` limb by limb.
#[inline(always)]
fn add(a: &Lanes, b: &Lanes) -> Lanes {
    // SAFETY: NEON is available (see `load_pair`).
    core::array::from_fn(|k| unsafe { vadd_u32(a[k], b[k]) })
}

/// `h·p` with `p` the power in lane `L` of the powers' registers (0:
/// `r⁴`, 2: `r²`), both lanes by the same power.
#[inline(always)]
fn mul_lane<const L: i32>(h: &Lanes, c: &[uint32x4_t; 9]) -> Wide {
    // SAFETY: NEON is available (see `load_pair`).
    unsafe {
        let mut d = [vdupq_n_u64(0); 5];
        for (k, row) in ROWS.iter().enumerate() {
            let mut x = vmull_laneq_u32::<L>(h[0], c[row[0]]);
            for i in 1..5 {
                x = vmlal_laneq_u32::<L>(x, h[i], c[row[i]]);
            }
            d[k] = x;
        }
        d
    }
}

/// `acc + h·p`, as [`mul_lane`].
#[inline(always)]
fn mla_lane<const L: i32>(acc: Wide, h: &Lanes, c: &[uint32x4_t; 9]) -> Wide {
    // SAFETY: NEON is available (see `load_pair`).
    unsafe {
        let mut d = acc;
        for (k, row) in ROWS.iter().enumerate() {
            for i in 0..5 {
                d[k] = vmlal_laneq_u32::<L>(d[k], h[i], c[row[i]]);
            }
        }
        d
    }
}

/// `h·(r², r)`: lane 0 by `r²`, lane 1 by `r` (`umull2` on the upper
/// halves: lanes 2 and 3 of the powers' registers).
#[inline(always)]
fn mul_last(h: &Lanes, c: &[uint32x4_t; 9]) -> Wide {
    // SAFETY: NEON is available (see `load_pair`).
    unsafe {
        let hh: [uint32x4_t; 5] = core::array::from_fn(|i| vcombine_u32(h[i], h[i]));
        let mut d = [vdupq_n_u64(0); 5];
        for (k, row) in ROWS.iter().enumerate() {
            let mut x = vmull_high_u32(hh[0], c[row[0]]);
            for i in 1..5 {
                x = vmlal_high_u32(x, hh[i], c[row[i]]);
            }
            d[k] = x;
        }
        d
    }
}

/// The lazy carry chain (3→4, 0→1, 4→0 times 5, 1→2, 2→3, 0→1, 3→4) and
/// the narrowing to 32-bit lanes: limbs below 2^26 + 2^10.
#[inline(always)]
fn reduce(mut d: Wide) -> Lanes {
    // SAFETY: NEON is available (see `load_pair`).
    unsafe {
        let m = vdupq_n_u64(u64::from(MASK26));
        carry(&mut d, m, 3, 4);
        carry(&mut d, m, 0, 1);
        // d₀ += 5·c with c = d₄ >> 26, as c + 4c: `hi` = c·2^26 (d₄ with
        // the low 26 bits cleared), added shifted right by 26 and by 24
        // (two `usra`). Written as `c + (c << 2)`, LLVM formed a 64-bit
        // multiplication by 5, which NEON lacks, and moved both lanes
        // through general registers (6 instructions instead of 2).
        let hi = vbicq_u64(d[4], m);
        d[4] = vandq_u64(d[4], m);
        d[0] = vsraq_n_u64::<24>(vsraq_n_u64::<26>(d[0], hi), hi);
        carry(&mut d, m, 1, 2);
        carry(&mut d, m, 2, 3);
        carry(&mut d, m, 0, 1);
        carry(&mut d, m, 3, 4);
        d.map(|x| vmovn_u64(x))
    }
}

/// One carry of [`reduce`]: the bits of limb `from` above 2^26 (`m` its
/// mask) moved to limb `to`.
#[inline(always)]
fn carry(d: &mut Wide, m: uint64x2_t, from: usize, to: usize) {
    // SAFETY: NEON is available (see `load_pair`).
    unsafe {
        let c = vshrq_n_u64::<26>(d[from]);
        d[from] = vandq_u64(d[from], m);
        d[to] = vaddq_u64(d[to], c);
    }
}

/// The accumulator's limbs in lane `lane` (the other lane zero).
#[inline(always)]
fn acc_lanes(h: &Acc, lane: usize) -> Lanes {
    let m = u64::from(MASK26);
    let l = [
        h[0] & m,
        h[0] >> 26 & m,
        (h[0] >> 52 | h[1] << 12) & m,
        h[1] >> 14 & m,
        h[1] >> 40 | h[2] << 24,
    ];
    // SAFETY: NEON is available (see `load_pair`); each array is two
    // readable words.
    l.map(|x| {
        let mut two = [0u32; 2];
        two[lane] = x as u32;
        unsafe { vld1_u32(two.as_ptr()) }
    })
}

/// The two lanes of `d` added and carried into the accumulator's three
/// 64-bit limbs (`h₂ ≤ 4`).
#[inline(always)]
fn join(d: &Wide) -> Acc {
    // SAFETY: NEON is available (see `load_pair`).
    let mut s: [u64; 5] = d.map(|x| unsafe { vaddvq_u64(x) });
    let m = u64::from(MASK26);
    for k in 0..4 {
        s[k + 1] += s[k] >> 26;
        s[k] &= m;
    }
    s[0] += 5 * (s[4] >> 26);
    s[4] &= m;
    s[1] += s[0] >> 26;
    s[0] &= m;
    let t0 = u128::from(s[0]) + (u128::from(s[1]) << 26) + (u128::from(s[2]) << 52);
    let t1 = (t0 >> 64) + (u128::from(s[3]) << 14) + (u128::from(s[4]) << 40);
    let h = [t0 as u64, t1 as u64, (t1 >> 64) as u64];
    crate::wipe::wipe(&mut s);
    h
}

/// The two pairs of a quad.
#[inline(always)]
fn halves(quad: &[u8; 64]) -> (&[u8; 32], &[u8; 32]) {
    let (pairs, _) = quad.as_chunks::<32>();
    (&pairs[0], &pairs[1])
}

/// Bytes [`Backend::blocks`] wipes below its stack pointer after
/// [`blocks_neon`] (its frame, 720 bytes deep with the powers of `r`
/// among its spills, and [`powers_into`]'s).
const BLOCKS_STACK: usize = 768;

/// Absorbs the `n ≥ 2` whole blocks of `data` into `h` by two-lane
/// complete decimation (see the module docs). Out of line: its caller
/// wipes its dead frame.
#[inline(never)]
#[target_feature(enable = "neon")]
fn blocks_neon(_: cpu::Neon, p: &Powers, h: &mut Acc, data: &[u8]) {
    let n = data.len() / 16;
    debug_assert!(n >= 2 && data.len() % 16 == 0);
    // SAFETY: NEON is available (the token); each row is four readable
    // words.
    let c: [uint32x4_t; 9] = p.map(|row| unsafe { vld1q_u32(row.as_ptr()) });
    let both = vdup_n_u32(1 << 24);
    let (mut acc, mut pending, rest) = if n % 2 == 1 {
        // A zero block (no 2^128 bit) in lane 0 before block 1, and the
        // accumulator in lane 1 with block 1.
        let mut first = [0u8; 32];
        first[16..].copy_from_slice(&data[..16]);
        let second = [0, 1 << 24];
        // SAFETY: `second` is two readable words.
        let pair = load_pair(&first, unsafe { vld1_u32(second.as_ptr()) });
        crate::wipe::wipe(&mut first);
        (acc_lanes(h, 1), pair, &data[16..])
    } else {
        let (pair, rest) = data.split_at(32);
        let pair: &[u8; 32] = pair.try_into().unwrap_or(&[0; 32]);
        (acc_lanes(h, 0), load_pair(pair, both), rest)
    };
    // Two pairs (a quad) a pass, neither the last one: (acc + M₁)·r⁴ +
    // M₂·r², with M₂·r² one pass ahead (`ahead`, loads to products): a
    // pass runs the accumulator's 25 products, the next quad's 25
    // independent ones, then the carry chain, so that the next pass's
    // independent work is not queued behind products waiting on the
    // carries (llvm-mca-19, Neoverse N1: 70 → 58.5 cycles a pass).
    let (quads, last) = rest.as_chunks::<64>();
    if let Some((first, quads)) = quads.split_first() {
        let (a, mut b) = halves(first);
        let mut ahead = mul_lane::<2>(&load_pair(a, both), &c);
        for quad in quads {
            let d = mla_lane::<0>(ahead, &add(&acc, &pending), &c);
            pending = load_pair(b, both);
            let (a, next_b) = halves(quad);
            ahead = mul_lane::<2>(&load_pair(a, both), &c);
            b = next_b;
            acc = reduce(d);
        }
        acc = reduce(mla_lane::<0>(ahead, &add(&acc, &pending), &c));
        pending = load_pair(b, both);
    }
    if let Ok(a) = <&[u8; 32]>::try_from(last) {
        acc = reduce(mul_lane::<2>(&add(&acc, &pending), &c));
        pending = load_pair(a, both);
    }
    *h = join(&mul_last(&add(&acc, &pending), &c));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The limbs of the powers: `r⁴ … r` against the scalar product, and
    /// the multiples of 5.
    #[test]
    fn powers_are_the_scalar_powers() {
        let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(91) ^ 0x3c);
        let scalar = portable::Key::new(&key);
        let p = powers_of(&scalar);
        let mut x: Acc = [scalar.r() as u64, (scalar.r() >> 64) as u64, 0];
        for j in 0..4 {
            if j > 0 {
                scalar.mul(&mut x);
            }
            let (v, top) = portable::freeze(&x);
            let l = limbs_of(v, top);
            for k in 0..5 {
                assert_eq!(p[k][3 - j], l[k], "r^{} limb {k}", j + 1);
                assert!(l[k] <= MASK26);
            }
            for k in 1..5 {
                assert_eq!(p[S1 + k - 1][3 - j], 5 * l[k]);
            }
        }
    }

    /// The stack wipe after [`blocks_neon`]: at each block count (odd and
    /// even, the quad loop and its last pair), the kernel alone writes
    /// within [`BLOCKS_STACK`] and leaves secrets (the control), and
    /// [`Backend::blocks`] with its wipe leaves none of the powers of `r`.
    #[test]
    fn blocks_stay_within_their_wipe_and_leave_no_secret() {
        use crate::wipe::stack_probe::{Tally, blocks, bytes};
        let Some(t) = cpu::Neon::get() else { return };
        let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(77) ^ 0xc3);
        let p = powers_of(&portable::Key::new(&key));
        let mut s = alloc::vec::Vec::new();
        for (k, row) in p.iter().enumerate() {
            let b: alloc::vec::Vec<u8> = row.iter().flat_map(|w| w.to_le_bytes()).collect();
            blocks(&mut s, ["r limb", "5·r limb"][usize::from(k >= S1)], &b);
        }
        s.push(("r", portable::Key::new(&key).r().to_le_bytes()));
        let mut tally = Tally::new();
        for n in [2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17, 33, 64] {
            let data = bytes(16 * n, 0x5c);
            let mut want: Acc = [1, 2, 3];
            portable::Key::new(&key).blocks(&mut want, &data);
            let tag = (u128::from(want[0]) | u128::from(want[1]) << 64).to_le_bytes();
            let acc_tag = |h: Acc| (u128::from(h[0]) | u128::from(h[1]) << 64).to_le_bytes();
            let control = || {
                let mut h: Acc = [1, 2, 3];
                // SAFETY: the token proves NEON.
                unsafe { blocks_neon(t, &p, &mut h, &data) };
                acc_tag(h)
            };
            let wiped = || {
                let mut h: Acc = [1, 2, 3];
                Key::tuned(t, &key, 2).blocks(&mut h, &data);
                acc_tag(h)
            };
            tally.case(&n, &s, BLOCKS_STACK, tag, control, wiped);
        }
        tally.finish("poly1305 neon blocks");
    }
}
