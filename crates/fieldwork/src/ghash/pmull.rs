//! Target features: `neon,aes` (PMULL/PMULL2) — capability token
//! [`crate::cpu::NeonAes`], backend `pmull`; `neon,aes,sha3` (with `EOR3`)
//! — [`crate::cpu::NeonSha3`], backend `pmull-eor3`.
//!
//! GHASH / POLYVAL on AArch64 by aggregated reduction (Gueron & Kounavis,
//! Intel white paper 323640, rev. 2.02; the same math as the x86 kernels,
//! [`super::aggregate`]): a group of eight blocks `Yⱼ` meets the
//! dot-powers `H^(8−j)`, the accumulator enters block 0 only, the 256-bit
//! products are summed unreduced, and one Montgomery reduction (two folds
//! by `C = x^63 + x^62 + x^57`, see `mont_reduce` in [`super`]) ends the
//! group. The last `n < 8` blocks are one group with `H^n … H^1`.
//!
//! # Representation
//!
//! A field element is a `uint8x16_t` whose lane 0 (bytes 0–7) is its low
//! word: the `u128`'s little-endian bytes, so POLYVAL's blocks load as
//! they are. Products are Karatsuba (`lo = y₀h₀`, `hi = y₁h₁`,
//! `mid = (y₀ ⊕ y₁)(h₀ ⊕ h₁)`, recombined once per group): `PMULL` for
//! `lo`, `PMULL2` for `hi`, and the blocks' half-sums made two blocks at a
//! time (`TRN1`, `TRN2`, `EOR` give `(a₀ ⊕ a₁, b₀ ⊕ b₁)` in one register,
//! which meets the pair of powers' half-sums by one `PMULL` and one
//! `PMULL2`; the idea of OpenSSL's `ghashv8-armx`).
//!
//! GHASH's blocks are byte-reversed by one `REV64` alone, which leaves
//! their 64-bit halves swapped: the powers are swapped once per call to
//! match, so `PMULL` then gives `y₁h₁` and `PMULL2` `y₀h₀` — the roles of
//! the `lo` and `hi` sums are exchanged at the reduction, for free (the
//! half-sums are symmetric). The accumulator is swapped once per group
//! (one `EXT`) where it enters block 0.
//!
//! # Operation count (per 8 blocks)
//!
//! 24 `PMULL`/`PMULL2` for the products and 2 for the reduction; 2 `LD1`
//! (four registers each); 4 `TRN1`, 4 `TRN2`, 4 `EOR` for the blocks'
//! half-sums; 8 `REV64` (GHASH only); 21 `EOR` into the three sums and 6
//! in the reduction, 2 `EXT` (3 for GHASH). With `EOR3` (`pmull-eor3`)
//! the 27 sum and reduction `EOR`s become 3 `EOR` and 12 `EOR3`. Block 0's
//! products, the only ones that wait for the accumulator, are added last,
//! so the loop-carried chain is one `EOR`, one `PMULL`, two `EOR`s and the
//! reduction's two dependent `PMULL`s. The instruction counts of the
//! compiled loops are in `docs/notes/ghash.md`.
//!
//! # Fresh keys: Horner's rule on `H` (`horner`)
//!
//! A fresh key's call of at most `PmullTuning::horner_blocks` blocks (16
//! today, `tuning.rs`) makes no power: it runs Horner's rule on `H`, each
//! block one product in the R/F form of ePrint 2025/2171 §3.3 (as
//! RustCrypto's `polyval` 0.7.3 does per power). With `D = H·x^(−64) =
//! swap(H) ⊕ H₀·C` (one `PMULL`, `EXT`, `EOR` per call) and `M = acc ⊕ Y`,
//! `dot(M, H) = (M₀·D ⊕ M₁·H)·x^(−64) = R ⊕ swap(F) ⊕ F₀·C`, where `R =
//! M₀D₁ ⊕ M₁H₁`, `F = M₀D₀ ⊕ M₁H₀` (`x^(−64) ≡ x^64 + C` modulo
//! POLYVAL's polynomial, so `F₀·x^(−64) = F₀·x^64 ⊕ F₀·C`): against `U =
//! (D₁, H₁)` (`TRN2`) and `L = (D₀, H₀)` (`TRN1`), `R = PMULL(M, U) ⊕
//! PMULL2(M, U)`, `F = PMULL(M, L) ⊕ PMULL2(M, L)`, and the reduction is
//! one `PMULL`, one `EXT` and two `EOR`s; the result is fully reduced.
//! Per block about 12 instructions in the compiled 4-block loop (POLYVAL:
//! half an `LDP`, 5 `PMULL`/`PMULL2`, 1 `EXT`, 5 `EOR` — 3 and an `EOR3`
//! with SHA3 — and the loop control; GHASH adds `REV64` + `EXT`, LLVM's
//! form of the byte-reversing `TBL`), about 14 per call to set up. A
//! 64-byte POLYVAL with key setup: 388 → 219 instructions (RustCrypto
//! 241); the powers `H²…H⁴` and the aggregated group cost more than four
//! Horner steps. The chain per block is two dependent `PMULL`s and three
//! `EOR`s, so on hardware Horner is latency-bound where the aggregated
//! group is not: the crossover is data for each core to refine.
//!
//! # Rejected
//!
//! - Schoolbook products (four `PMULL` per block, no half-sums): one
//!   instruction fewer per block with `EOR3`, but `PMULL` is the scarce
//!   instruction on Neoverse N1 (one per cycle) and Cortex-A cores.
//! - 16-block groups: the sixteen powers and their half-sums take 24 of
//!   the 32 registers, leaving too few for the blocks and the sums; the
//!   reduction is already under a tenth of the group's instructions.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// power indices are below the group size (at most 8), within the powers
// `State::ensure_powers` made; data offsets step by 16 below the
// whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::Backend;
use super::tuning::PmullTuning;
use crate::cpu::{NeonAes, NeonSha3};

/// The PMULL backend: groups of eight blocks, the tail as one group.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pmull(NeonAes);

/// [`Pmull`] with `EOR3` merging the sums' three-way XORs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PmullEor3(NeonSha3);

/// `impl Backend` for one feature set's backend type: `$token` proves the
/// features `$m`'s kernels are compiled with.
macro_rules! pmull_backend {
    ($ty:ident, $token:ident, $name:literal, $m:ident) => {
        impl Backend for $ty {
            super::backend_items!($token, $name);

            #[inline(always)]
            fn fresh_horner(self, h: u128, acc: u128, data: &[u8], reflect: bool) -> Option<u128> {
                if data.len() / 16 > PmullTuning::this_cpu().horner_blocks {
                    return None;
                }
                // SAFETY: the token in `self` proves the kernel's features.
                Some(unsafe { $m::horner(h, acc, data, reflect) })
            }

            fn powers(self, out: &mut [u128], from: usize) {
                // SAFETY: the token in `self` proves the kernel's features.
                unsafe { $m::powers(out, from) }
            }

            fn update(self, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
                // SAFETY: the token in `self` proves the kernel's features.
                unsafe { $m::update(powers, acc, data, reflect) }
            }
        }
    };
}

pmull_backend!(Pmull, NeonAes, "pmull", neon);
pmull_backend!(PmullEor3, NeonSha3, "pmull-eor3", eor3);

/// One register-to-register carry-less product instruction `$insn`
/// writing `$r` from `$a` and `$b` (no memory, no flags).
macro_rules! product {
    ($insn:literal, $r:ident, $a:ident, $b:ident) => {
        core::arch::asm!(
            $insn,
            r = lateout(vreg) $r,
            a = in(vreg) $a,
            b = in(vreg) $b,
            options(pure, nomem, nostack, preserves_flags)
        )
    };
}

/// `$f::<true>(…)` if `$reflect`, else `$f::<false>(…)`: the kernels'
/// entry points instantiate both byte orders.
macro_rules! by_reflect {
    ($f:ident($($arg:expr),*), $reflect:expr) => {
        if $reflect {
            $f::<true>($($arg),*)
        } else {
            $f::<false>($($arg),*)
        }
    };
}

/// The kernels, compiled once per feature set: `$features` and the
/// three-way XOR `$xor3` (two `EOR`s, or one `EOR3`).
macro_rules! kernels {
    ($m:ident, $features:literal, |$a:ident, $b:ident, $c:ident| $xor3:expr) => {
        /// The kernels compiled for
        #[doc = concat!("`", $features, "`.")]
        pub(crate) mod $m {
            #![allow(clippy::indexing_slicing)]
            use crate::ghash::field::C_HI;
            use core::arch::aarch64::{
                uint8x16_t, vdupq_n_u8, veorq_u8, vextq_u8, vgetq_lane_u64, vld1q_u8,
                vld1q_u8_x4, vqtbl1q_u8, vreinterpretq_u8_u64, vreinterpretq_u64_u8,
                vrev64q_u8, vtrn1q_u64, vtrn2q_u64,
            };

            /// `TBL` indices that reverse a register's 16 bytes (lane 0's
            /// byte 0 takes byte 15).
            const REV_INDEX: u128 = 0x0001_0203_0405_0607_0809_0a0b_0c0d_0e0f;

            /// A field element or a product half: lane 0 is the low word.
            pub(crate) type V = uint8x16_t;

            /// `u128` → register (little-endian: lane 0 is the low word).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn to_v(x: u128) -> V {
                // SAFETY: 16 readable bytes.
                unsafe { vld1q_u8(x.to_le_bytes().as_ptr()) }
            }

            /// Register → `u128`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn from_v(v: V) -> u128 {
                let w = vreinterpretq_u64_u8(v);
                u128::from(vgetq_lane_u64::<0>(w)) | (u128::from(vgetq_lane_u64::<1>(w)) << 64)
            }

            /// `a ⊕ b`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn xor(a: V, b: V) -> V {
                veorq_u8(a, b)
            }

            /// `a ⊕ b ⊕ c`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn xor3($a: V, $b: V, $c: V) -> V {
                $xor3
            }

            /// The 64-bit halves exchanged (`EXT #8`).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn swap(a: V) -> V {
                vextq_u8::<8>(a, a)
            }

            /// `a₀·b₀` (`PMULL`).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn pmull(a: V, b: V) -> V {
                let r: V;
                // SAFETY: one register-to-register `PMULL` (the `aes`
                // feature this function is compiled with); no memory, no
                // flags.
                unsafe { product!("pmull {r:v}.1q, {a:v}.1d, {b:v}.1d", r, a, b) }
                r
            }

            /// `a₁·b₁` (`PMULL2`).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn pmull2(a: V, b: V) -> V {
                let r: V;
                // SAFETY: as [`pmull`].
                unsafe { product!("pmull2 {r:v}.1q, {a:v}.2d, {b:v}.2d", r, a, b) }
                r
            }

            /// `(a₀ ⊕ a₁, b₀ ⊕ b₁)`: two elements' Karatsuba half-sums in
            /// one register (`TRN1`, `TRN2`, `EOR`).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn half_sums(a: V, b: V) -> V {
                let r: V;
                // SAFETY: three register-to-register instructions; no
                // memory, no flags. Assembly, so that LLVM keeps the three
                // (with the intrinsics it built `TRN1` from a `MOV` and an
                // `INS` once the products were assembly too).
                unsafe {
                    core::arch::asm!(
                        "trn1 {t:v}.2d, {a:v}.2d, {b:v}.2d",
                        "trn2 {r:v}.2d, {a:v}.2d, {b:v}.2d",
                        "eor {r:v}.16b, {r:v}.16b, {t:v}.16b",
                        r = out(vreg) r,
                        t = out(vreg) _,
                        a = in(vreg) a,
                        b = in(vreg) b,
                        options(pure, nomem, nostack, preserves_flags)
                    );
                }
                r
            }

            /// The reduction constant `C` in lane 0.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn c() -> V {
                to_v(u128::from(C_HI))
            }

            /// Unreduced Karatsuba sums: `a` of the `PMULL`s, `b` of the
            /// `PMULL2`s, `m` of the half-sums' products (for GHASH's
            /// half-swapped blocks `a` is the high sum and `b` the low).
            #[derive(Clone, Copy)]
            pub(crate) struct Sums {
                pub(crate) a: V,
                pub(crate) b: V,
                pub(crate) m: V,
            }

            /// The products of the pair of blocks `ya`, `yb` with the powers
            /// `ha`, `hb` whose half-sums are `hx` (lanes 0, 1).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn pair(ya: V, yb: V, ha: V, hb: V, hx: V) -> (Sums, Sums) {
                let t = half_sums(ya, yb);
                (
                    Sums {
                        a: pmull(ya, ha),
                        b: pmull2(ya, ha),
                        m: pmull(t, hx),
                    },
                    Sums {
                        a: pmull(yb, hb),
                        b: pmull2(yb, hb),
                        m: pmull2(t, hx),
                    },
                )
            }

            /// `s ⊕ p ⊕ q`, sum by sum.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn add2(s: Sums, (p, q): (Sums, Sums)) -> Sums {
                Sums {
                    a: xor3(s.a, p.a, q.a),
                    b: xor3(s.b, p.b, q.b),
                    m: xor3(s.m, p.m, q.m),
                }
            }

            /// `p ⊕ q`, sum by sum.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn sum2((p, q): (Sums, Sums)) -> Sums {
                Sums {
                    a: xor(p.a, q.a),
                    b: xor(p.b, q.b),
                    m: xor(p.m, q.m),
                }
            }

            /// The sums reduced: `hi ⊕ fold(mid' ⊕ fold(lo))`, `mid' = m ⊕
            /// lo ⊕ hi` (Karatsuba's recombination), `fold(v) = swap(v) ⊕
            /// v₀·C`; `lo`, `hi` are `a`, `b` (`b`, `a` if `swapped`: GHASH).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn reduce<const SWAPPED: bool>(s: Sums, c: V) -> V {
                let (lo, hi) = if SWAPPED { (s.b, s.a) } else { (s.a, s.b) };
                let mid = xor3(s.m, lo, hi);
                let t = xor3(mid, swap(lo), pmull(lo, c));
                xor3(hi, swap(t), pmull(t, c))
            }

            /// `dot(a, b)` on registers (unswapped).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn dot(a: V, b: V) -> V {
                let s = Sums {
                    a: pmull(a, b),
                    b: pmull2(a, b),
                    m: pmull(xor(a, swap(a)), xor(b, swap(b))),
                };
                reduce::<false>(s, c())
            }

            /// `dot(a, b)` on `u128`s.
            #[target_feature(enable = $features)]
            pub(crate) fn dot_u128(a: u128, b: u128) -> u128 {
                from_v(dot(to_v(a), to_v(b)))
            }

            /// The powers `H^(from + 1) … H^(out.len())`: `H^(2j) =
            /// dot(H^j, H^j)`, `H^(2j+1) = dot(H^(2j), H)`.
            #[target_feature(enable = $features)]
            pub(crate) fn powers(out: &mut [u128], from: usize) {
                for k in from.max(1)..out.len() {
                    let e = k + 1; // out[k] = H^e
                    let (a, b) = if e % 2 == 0 {
                        (out[e / 2 - 1], out[e / 2 - 1])
                    } else {
                        (out[k - 1], out[0])
                    };
                    out[k] = dot_u128(a, b);
                }
            }

            /// Block `j` of `data` as a register, `REV64`'d if `R`
            /// (GHASH: byte-reversed with the halves swapped).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn block<const R: bool>(data: &[u8], j: usize) -> V {
                let c = &data[16 * j..16 * j + 16];
                // SAFETY: `c` is 16 readable bytes.
                let y = unsafe { vld1q_u8(c.as_ptr()) };
                if R { vrev64q_u8(y) } else { y }
            }

            /// `powers[i]` as a register, swapped if `R` (to meet GHASH's
            /// half-swapped blocks). The swap is an `EXT` LLVM cannot see
            /// through: with the intrinsic it split the loop-invariant
            /// powers into 64-bit scalars for `PMULL`'s lane 0 and moved
            /// four of them back into vector registers (`FMOV`, `DUP`) in
            /// every iteration of the GHASH loop (84 instructions per 8
            /// blocks, against 62 for POLYVAL).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn power<const R: bool>(powers: &[u128], i: usize) -> V {
                let p = to_v(powers[i]);
                if R { opaque_swap(p) } else { p }
            }

            /// [`swap`] as inline assembly, opaque to LLVM.
            #[inline]
            #[target_feature(enable = $features)]
            fn opaque_swap(a: V) -> V {
                let r: V;
                // SAFETY: one register-to-register `EXT`; no memory, no
                // flags.
                unsafe {
                    core::arch::asm!(
                        "ext {r:v}.16b, {a:v}.16b, {a:v}.16b, #8",
                        r = lateout(vreg) r,
                        a = in(vreg) a,
                        options(pure, nomem, nostack, preserves_flags)
                    );
                }
                r
            }

            /// Eight blocks `y` (as loaded: `REV64`'d if `R`) into `acc`
            /// (unswapped), block `j` meeting `h[j]` = `H^(8−j)` (swapped if
            /// `R`), `hx[k]` the half-sums of `h[2k]`, `h[2k+1]`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn group8<const R: bool>(
                y: [V; 8],
                acc: V,
                h: &[V; 8],
                hx: &[V; 4],
                c: V,
            ) -> V {
                let mut s = sum2(pair(y[6], y[7], h[6], h[7], hx[3]));
                s = add2(s, pair(y[4], y[5], h[4], h[5], hx[2]));
                s = add2(s, pair(y[2], y[3], h[2], h[3], hx[1]));
                let a = if R { swap(acc) } else { acc };
                s = add2(s, pair(xor(y[0], a), y[1], h[0], h[1], hx[0]));
                reduce::<R>(s, c)
            }

            /// `acc` after the whole blocks of `data`: groups of eight, then
            /// the tail as one group.
            #[target_feature(enable = $features)]
            pub(crate) fn update(powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128 {
                by_reflect!(update_r(powers, acc, data), reflect)
            }

            #[inline]
            #[target_feature(enable = $features)]
            fn update_r<const R: bool>(powers: &[u128], acc: u128, data: &[u8]) -> u128 {
                let c = c();
                let mut acc = to_v(acc);
                let mut chunks = data.chunks_exact(128);
                if data.len() >= 128 {
                    let z = vdupq_n_u8(0);
                    let mut h = [z; 8];
                    for (j, hj) in h.iter_mut().enumerate() {
                        *hj = power::<R>(powers, 7 - j);
                    }
                    let mut hx = [z; 4];
                    for (k, hk) in hx.iter_mut().enumerate() {
                        *hk = half_sums(h[2 * k], h[2 * k + 1]);
                    }
                    for ch in &mut chunks {
                        let y = load8::<R>(ch);
                        acc = group8::<R>(y, acc, &h, &hx, c);
                    }
                }
                from_v(tail::<R>(powers, acc, chunks.remainder(), c))
            }

            /// `acc` after the whole blocks of `data` by Horner's rule on
            /// `H` = `h` alone, no other power made: a fresh key's short
            /// call (see the module docs, "Fresh keys"). Each block is one
            /// R/F product (ePrint 2025/2171, §3.3): with `D = H·x^(−64) =
            /// swap(H) ⊕ H₀·C`, `dot(M, H) = R ⊕ swap(F) ⊕ F₀·C` where `R =
            /// M₀D₁ ⊕ M₁H₁` and `F = M₀D₀ ⊕ M₁H₀` — four `PMULL`/`PMULL2`
            /// against `U = (D₁, H₁)` and `L = (D₀, H₀)`, and a one-product
            /// reduction.
            #[target_feature(enable = $features)]
            pub(crate) fn horner(h: u128, acc: u128, data: &[u8], reflect: bool) -> u128 {
                by_reflect!(horner_r(h, acc, data), reflect)
            }

            #[inline]
            #[target_feature(enable = $features)]
            fn horner_r<const R: bool>(h: u128, acc: u128, data: &[u8]) -> u128 {
                let c = c();
                let k = horner_key(to_v(h), c);
                // GHASH: the whole block byte-reversed by one `TBL`, so
                // the accumulator and the key keep their order.
                let rev = to_v(REV_INDEX);
                let step = |acc: V, y: V| {
                    let y = if R { vqtbl1q_u8(y, rev) } else { y };
                    horner_step(acc, y, k, c)
                };
                let mut acc = to_v(acc);
                let mut fours = data.chunks_exact(64);
                for ch in &mut fours {
                    // SAFETY: 64 readable bytes.
                    let y = unsafe { vld1q_u8_x4(ch.as_ptr()) };
                    acc = step(acc, y.0);
                    acc = step(acc, y.1);
                    acc = step(acc, y.2);
                    acc = step(acc, y.3);
                }
                for ch in fours.remainder().chunks_exact(16) {
                    // SAFETY: 16 readable bytes.
                    acc = step(acc, unsafe { vld1q_u8(ch.as_ptr()) });
                }
                from_v(acc)
            }

            /// Horner's rule's form of the key `h` = `H` (see
            /// [`horner`]): `(U, L)` = `((D₁, H₁), (D₀, H₀))` with `D =
            /// swap(H) ⊕ H₀·C` — one `PMULL`, `EXT`, `EOR`, `TRN1`, `TRN2`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn horner_key(h: V, c: V) -> (V, V) {
                let d = xor(swap(h), pmull(h, c));
                let (hu, du) = (vreinterpretq_u64_u8(h), vreinterpretq_u64_u8(d));
                (
                    vreinterpretq_u8_u64(vtrn2q_u64(du, hu)),
                    vreinterpretq_u8_u64(vtrn1q_u64(du, hu)),
                )
            }

            /// One step of Horner's rule (see [`horner`]): `dot(acc ⊕ y,
            /// H)`, fully reduced, against `(u, l)` = [`horner_key`]`(H)`:
            /// five `PMULL`/`PMULL2`, an `EXT`, five `EOR`s (three and an
            /// `EOR3` with SHA3).
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn horner_step(acc: V, y: V, (u, l): (V, V), c: V) -> V {
                let m = xor(acc, y);
                let r = xor(pmull(m, u), pmull2(m, u));
                let f = xor(pmull(m, l), pmull2(m, l));
                xor3(r, swap(f), pmull(f, c))
            }

            /// Eight blocks of `ch` (128 bytes) by two four-register `LD1`s,
            /// `REV64`'d if `R`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn load8<const R: bool>(ch: &[u8]) -> [V; 8] {
                let ch = &ch[..128];
                // SAFETY: 128 readable bytes.
                let (p, q) = unsafe { (vld1q_u8_x4(ch.as_ptr()), vld1q_u8_x4(ch[64..].as_ptr())) };
                let mut y = [p.0, p.1, p.2, p.3, q.0, q.1, q.2, q.3];
                if R {
                    for v in &mut y {
                        *v = vrev64q_u8(*v);
                    }
                }
                y
            }

            /// The last `n < 8` blocks as one group with powers `H^n … H^1`.
            #[inline]
            #[target_feature(enable = $features)]
            pub(crate) fn tail<const R: bool>(powers: &[u128], acc: V, data: &[u8], c: V) -> V {
                let n = data.len() / 16;
                if n == 0 {
                    return acc;
                }
                let z = vdupq_n_u8(0);
                let mut s = Sums { a: z, b: z, m: z };
                for j in 0..n {
                    let mut y = block::<R>(data, j);
                    if j == 0 {
                        y = xor(y, if R { swap(acc) } else { acc });
                    }
                    let h = power::<R>(powers, n - 1 - j);
                    s.a = xor(s.a, pmull(y, h));
                    s.b = xor(s.b, pmull2(y, h));
                    s.m = xor(s.m, pmull(half_sums(y, y), half_sums(h, h)));
                }
                reduce::<R>(s, c)
            }
        }
    };
}

kernels!(neon, "neon,aes", |a, b, c| veorq_u8(veorq_u8(a, b), c));
kernels!(eor3, "neon,aes,sha3", |a, b, c| {
    core::arch::aarch64::veor3q_u8(a, b, c)
});
