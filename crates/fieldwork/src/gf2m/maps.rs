//! GF(2)-linear maps on a fixed field's elements — the k-fold Frobenius
//! maps a ↦ a^(2^k) of the inversion chain and the half-trace — applied as
//! Σ a_i·row_i with masks, no index or branch on a bit of `a`.
//!
//! # Layout
//!
//! The m rows (row i = the image of x^i, W words) are stored in groups of
//! four: [`Quad`] `g·W + w` holds word w of rows 4g … 4g + 3, one per
//! 64-bit lane, 32-byte aligned. Rows past m are zero. A table has
//! ⌈m/4⌉·W quads, m²/8 bytes rounded: 3.9 KiB at m = 163, 41 KiB at
//! m = 571.
//!
//! # Kernels
//!
//! - **AVX2** ([`YmmLane`]): for group g the word holding bits 4g … 4g + 3
//!   is broadcast and shifted lane by lane (`vpsllvq`) so lane l has bit
//!   4g + l in its sign bit; `vblendvpd` then selects row 4g + l or zero in
//!   each lane and `vpxor` adds it to word w's accumulator. Walking a
//!   word's groups from the top down, the next group's shift is one
//!   `vpsllq` by 4. Per group: 1 shift, W blends, W XORs (and W loads,
//!   folded into the blends); at the end a horizontal XOR of the four
//!   lanes per word. m = 163: 41 groups, 287 vector instructions;
//!   m = 571: 143 groups, 2 717 — bound by the two blend pipes of Zen 3 and
//!   at m = 571 by the table's stream from L2 (41 KiB).
//! - **SSE4.1** ([`PclmulLane`]): the same on two lanes. SSE has no
//!   per-lane shift, so the word is loaded pre-shifted, lanes (a, a ≫ 1)
//!   and (a ≫ 2, a ≫ 3): one `psllq` by 4 per group and half then lines up
//!   bits 4g + l in the sign bits. Per group 2 shifts, 2W `blendvpd`,
//!   2W XORs.
//! - **Portable** ([`PortableWord`]): one mask per bit (`black_box` keeps
//!   the compiler from turning the masked XOR into a branch) and W AND/XOR
//!   pairs: m·W masked XORs.
//!
//! - **AVX-512** ([`Avx512Wide`](super::ymm::Avx512Wide)): the AVX2
//!   layout; a group's four bits of `a` go to a mask register and out
//!   again as whole-lane masks (`vpmovm2q`), and one `vpternlogq` a row
//!   word computes acc ⊕ (row ∧ mask): per group 1 + W instructions
//!   instead of 1 + 2W, on all 32 ymm registers, so
//!   [`MapKernel::apply_pair`] keeps both sums (2W registers, 18 at
//!   m = 571) and reads each row once. No instruction is masked, so every
//!   row load is a whole one (a masked XOR with the row as its memory
//!   operand would leave the lanes' loads to the secret mask).
//!
//! # Half tables
//!
//! Where the table streams from L2 rather than L1 (m ≥ 409: 23 and 41 KiB
//! a table, four and three of them in an inversion, against a 32 KiB L1
//! on Zen 4), the map costs its bytes, not its instructions. Writing
//! a = e(x)² + x·o(x)², with e and o the even and odd coefficients of a
//! (degree < m/2),
//!
//! a^(2^k) = e^(2^(k+1)) + x^(2^k) · o^(2^(k+1)),
//!
//! so the rows (x^j)^(2^(k+1)) for j < ⌈m/2⌉ — half the table — give both
//! terms, for one field product by the constant x^(2^k)
//! (`FieldSpec::apply_half_map_k`). The kernels with
//! [`MapKernel::half_maps`] take this form: one pass over half the bytes.
//! The idea is the square root's split (`√a = e + √x·o`) run the other
//! way.
//!
//! Measured history: `docs/notes/gf2m-maps.md`.
//!
//! # Rejected
//!
//! - Half tables on the AVX2 kernel (two passes over the half table) but
//!   at m = 409 on `YmmLane`: level with the whole table on Zen 4, whose
//!   blend kernel is bound by its instructions rather than by the table's
//!   bytes, and at 571 on the Xeon (at 409 6 % faster there, so taken).
//! - Masked `vpxorq` on the AVX-512 kernel: as fast as the `vpternlogq`
//!   form, but the compiler folds the row's load into it as a masked
//!   memory operand (a volatile read too), and an `asm!` load to prevent
//!   that cost scheduling freedom (m = 409 half-trace 382 → 442 cycles).
//! - A 4-bit window: a secret table index.
//! - The masked XOR without `black_box` in the portable kernel: the
//!   compiler made it a branch on the secret bit.
//! - `vpand` with masks from `vpcmpgtq` (weighed, not built): one more
//!   instruction per group than the blend, which reads the sign bit
//!   itself.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// a table of ⌈m/4⌉·W quads, indexed by group g < ⌈m/4⌉ and word w < W;
// bits of `a` by i < m ≤ 64·W.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::gf2x::PortableWord;
#[cfg(target_arch = "x86_64")]
use crate::gf2x::{PclmulLane, YmmLane};

/// Word w of four consecutive rows, one per 64-bit lane, aligned for a
/// ymm load.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Quad(pub(crate) [u64; 4]);

/// The table of the map whose rows (the images of x^0 … x^(m−1)) are
/// `rows`, each W words: ⌈m/4⌉·W quads in the layout above.
#[cfg(feature = "std")]
pub(crate) fn quads_from_rows<'a>(
    rows: impl ExactSizeIterator<Item = &'a [u64]>,
    words: usize,
) -> std::vec::Vec<Quad> {
    let groups = rows.len().div_ceil(4);
    let mut table = std::vec![Quad::default(); groups * words];
    for (i, row) in rows.enumerate() {
        let (g, l) = (i / 4, i % 4);
        for (w, &x) in row.iter().enumerate().take(words) {
            table[g * words + w].0[l] = x;
        }
    }
    table
}

/// A backend's way of applying a map: `out = Σ_{i < m} a_i·row_i` for the
/// table of [`quads_from_rows`] (m = 4·⌈m/4⌉ rounded, the extra rows zero),
/// in constant time.
pub(crate) trait MapKernel: Copy {
    /// Whether the inversion chain's k-fold Frobenius steps in a field of
    /// degree m take the half tables on these kernels (see "Half tables"
    /// above): where streaming the table bounds the map and
    /// [`MapKernel::apply_pair`] reads each row once for both halves.
    #[inline(always)]
    fn half_maps(m: usize) -> bool {
        let _ = m;
        false
    }

    /// The image of `a` (W words) under the map of `table`.
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W];

    /// The images of `e` and `o` under the map of `table`: two
    /// [`MapKernel::apply`]s, or one pass over the table where the kernel
    /// has the registers for both sums.
    #[inline(always)]
    fn apply_pair<const W: usize>(
        self,
        table: &[Quad],
        e: &[u64; W],
        o: &[u64; W],
    ) -> ([u64; W], [u64; W]) {
        (self.apply(table, e), self.apply(table, o))
    }
}

impl MapKernel for PortableWord {
    #[inline(always)]
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        let mut acc = [0u64; W];
        for (g, quads) in table.chunks_exact(W).enumerate() {
            let bits = a[(4 * g) / 64] >> ((4 * g) % 64);
            // The bits pass through `black_box`: seeing a 0/1 mask, the
            // compiler turns the masked XOR into a branch on it.
            let m: [u64; 4] =
                core::array::from_fn(|l| core::hint::black_box((bits >> l) & 1).wrapping_neg());
            for (x, q) in acc.iter_mut().zip(quads) {
                *x ^= (q.0[0] & m[0]) ^ (q.0[1] & m[1]) ^ (q.0[2] & m[2]) ^ (q.0[3] & m[3]);
            }
        }
        acc
    }
}

/// PMULL (AArch64): the portable masks on general registers, inside the
/// backend's entry point.
#[cfg(target_arch = "aarch64")]
impl MapKernel for crate::gf2x::PmullWord {
    #[inline(always)]
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        PortableWord.apply(table, a)
    }
}

/// [`YmmLane`]'s.
#[cfg(target_arch = "x86_64")]
impl MapKernel for super::ymm::YmmWide {
    #[inline(always)]
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        self.lane().apply(table, a)
    }
}

/// XOR of the four 64-bit lanes of `v`: a ymm accumulator's word.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
fn fold_lanes(v: core::arch::x86_64::__m256i) -> u64 {
    use core::arch::x86_64::*;
    let h = _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    _mm_cvtsi128_si64(_mm_xor_si128(h, _mm_unpackhi_epi64(h, h))) as u64
}

/// Whole-lane masks and `vpternlogq` (AVX-512VL), on ymm: four rows a
/// group, both halves of a half-table map in one pass.
#[cfg(target_arch = "x86_64")]
impl<const WIDE_SQUARES: bool> MapKernel for super::ymm::Avx512Wide<WIDE_SQUARES> {
    /// From m = 409: there a table is 21 KiB or more and an inversion's
    /// tables do not fit in L1 (at 283 level, at 233 the whole table
    /// faster: `docs/notes/gf2m-maps.md`).
    #[inline(always)]
    fn half_maps(m: usize) -> bool {
        m >= 409
    }

    #[inline(always)]
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        // The pair's sums for (a, 0): the second is dead code to the
        // compiler, which drops it.
        self.apply_pair(table, a, &[0; W]).0
    }

    #[inline(always)]
    fn apply_pair<const W: usize>(
        self,
        table: &[Quad],
        e: &[u64; W],
        o: &[u64; W],
    ) -> ([u64; W], [u64; W]) {
        use core::arch::x86_64::*;
        // SAFETY: the `Avx512Clmul` token in `self` proves AVX-512F/VL/DQ
        // and AVX2 (this is inlined into the backend's `#[target_feature]`
        // entry points); the loads are of whole aligned `Quad`s inside
        // `table` (32 bytes, `repr(C, align(32))`: a valid `__m256i`).
        unsafe {
            let mut acc_e = [_mm256_setzero_si256(); W];
            let mut acc_o = [_mm256_setzero_si256(); W];
            // 16 groups of four bits per word; the last word's may be fewer.
            for ((we, wo), groups) in e.iter().zip(o).zip(table.chunks(16 * W)) {
                let (mut be, mut bo) = (*we, *wo);
                for quads in groups.chunks_exact(W) {
                    // Lane l of the group takes row 4g + l where bit l is
                    // set: the mask register's bits spread to whole lanes
                    // (`vpmovm2q`), then acc ^ (row & mask) in one
                    // `vpternlogq` (truth table 0x78). No instruction is
                    // masked, so no load is: the rows are whole loads.
                    let me = _mm256_movm_epi64((be & 15) as __mmask8);
                    let mo = _mm256_movm_epi64((bo & 15) as __mmask8);
                    for ((x, y), q) in acc_e.iter_mut().zip(acc_o.iter_mut()).zip(quads) {
                        let row = _mm256_load_si256(q.0.as_ptr().cast());
                        *x = _mm256_ternarylogic_epi64::<0x78>(*x, row, me);
                        *y = _mm256_ternarylogic_epi64::<0x78>(*y, row, mo);
                    }
                    be >>= 4;
                    bo >>= 4;
                }
            }
            let mut out = ([0u64; W], [0u64; W]);
            for (i, (x, y)) in acc_e.into_iter().zip(acc_o).enumerate() {
                out.0[i] = fold_lanes(x);
                out.1[i] = fold_lanes(y);
            }
            out
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl MapKernel for YmmLane {
    /// At m = 409 only: there two passes over the half table (the second
    /// from L1) beat one over the whole 23 KiB table from L2 on Intel
    /// (Xeon family 6 model 207, `FIELDWORK_MAX_ISA=avx2 peer-bench
    /// --filter gf2m --quick`, builds alternated 4 times: inversion 4 714
    /// → 4 442 cycles); at 571 level or 1–2 % slower (7 402 → 7 427, 5
    /// runs), below 409 the tables fit in L1. The wide backend (AMD) keeps
    /// whole tables: half tables measured level there (Zen 4).
    #[inline(always)]
    fn half_maps(m: usize) -> bool {
        m == 409
    }

    #[inline(always)]
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        use core::arch::x86_64::*;
        // SAFETY: the `Avx2Clmul` token in `self` proves AVX2 (this is
        // inlined into the backend's `#[target_feature]` entry points); the
        // loads are of whole aligned `Quad`s inside `table`.
        unsafe {
            let zero = _mm256_setzero_pd();
            let mut acc = [_mm256_setzero_si256(); W];
            // Lane l: shift 63 − l puts bit l in the sign bit.
            let base = _mm256_set_epi64x(60, 61, 62, 63);
            // 16 groups of four bits per word; the last word's may be fewer.
            for (word, groups) in a.iter().zip(table.chunks(16 * W)) {
                let n = groups.len() / W; // groups in this word, 1..=16
                let top = 4 * (n as i64 - 1);
                // Lane l of group j needs bit 4j + l at the top: shift
                // 63 − l − 4j; start at the highest group, then 4 more each.
                let mut v = _mm256_sllv_epi64(
                    _mm256_set1_epi64x(*word as i64),
                    _mm256_sub_epi64(base, _mm256_set1_epi64x(top)),
                );
                for quads in groups.chunks_exact(W).rev() {
                    let mask = _mm256_castsi256_pd(v);
                    for (x, q) in acc.iter_mut().zip(quads) {
                        let row = _mm256_load_pd(q.0.as_ptr().cast());
                        let sel = _mm256_blendv_pd(zero, row, mask);
                        *x = _mm256_xor_si256(*x, _mm256_castpd_si256(sel));
                    }
                    v = _mm256_slli_epi64::<4>(v);
                }
            }
            let mut out = [0u64; W];
            for (o, x) in out.iter_mut().zip(acc) {
                *o = fold_lanes(x);
            }
            out
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl MapKernel for PclmulLane {
    #[inline(always)]
    fn apply<const W: usize>(self, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        use core::arch::x86_64::*;
        // SAFETY: the `Clmul` token in `self` proves SSE4.1 (`blendvpd`;
        // this is inlined into the backend's `#[target_feature]` entry
        // points); the loads are of aligned halves of `Quad`s in `table`.
        unsafe {
            // Rows' words 0–1 and 2–3 of each output word.
            let (mut acc_lo, mut acc_hi) = ([_mm_setzero_si128(); W], [_mm_setzero_si128(); W]);
            let zero = _mm_setzero_pd();
            for (word, groups) in a.iter().zip(table.chunks(16 * W)) {
                let n = groups.len() / W;
                let x = *word as i64;
                // Lanes (x, x ≫ 1) and (x ≫ 2, x ≫ 3): one shift lines up bit
                // 4j + l of every lane; group j needs 63 − 4j.
                let shift = _mm_cvtsi32_si128(63 - 4 * (n as i32 - 1));
                let mut v_lo = _mm_sll_epi64(_mm_set_epi64x((x as u64 >> 1) as i64, x), shift);
                let mut v_hi = _mm_sll_epi64(
                    _mm_set_epi64x((x as u64 >> 3) as i64, (x as u64 >> 2) as i64),
                    shift,
                );
                for quads in groups.chunks_exact(W).rev() {
                    let (m_lo, m_hi) = (_mm_castsi128_pd(v_lo), _mm_castsi128_pd(v_hi));
                    for ((lo, hi), q) in acc_lo.iter_mut().zip(acc_hi.iter_mut()).zip(quads) {
                        let p = q.0.as_ptr().cast::<f64>();
                        let r_lo = _mm_blendv_pd(zero, _mm_load_pd(p), m_lo);
                        let r_hi = _mm_blendv_pd(zero, _mm_load_pd(p.add(2)), m_hi);
                        *lo = _mm_xor_si128(*lo, _mm_castpd_si128(r_lo));
                        *hi = _mm_xor_si128(*hi, _mm_castpd_si128(r_hi));
                    }
                    v_lo = _mm_slli_epi64::<4>(v_lo);
                    v_hi = _mm_slli_epi64::<4>(v_hi);
                }
            }
            let mut out = [0u64; W];
            for ((o, lo), hi) in out.iter_mut().zip(acc_lo).zip(acc_hi) {
                let h = _mm_xor_si128(lo, hi);
                let h = _mm_xor_si128(h, _mm_unpackhi_epi64(h, h));
                *o = _mm_cvtsi128_si64(h) as u64;
            }
            out
        }
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::*;
    use crate::test_util::words;
    use std::vec::Vec;

    /// Σ a_i·row_i, bit by bit.
    fn reference<const W: usize>(rows: &[Vec<u64>], a: &[u64; W]) -> [u64; W] {
        let mut out = [0u64; W];
        for (i, row) in rows.iter().enumerate() {
            if (a[i / 64] >> (i % 64)) & 1 == 1 {
                for (o, r) in out.iter_mut().zip(row) {
                    *o ^= r;
                }
            }
        }
        out
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn ymm<const W: usize>(k: YmmLane, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        k.apply(table, a)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    fn mask_regs<const W: usize>(
        k: super::super::ymm::Avx512Wide<true>,
        table: &[Quad],
        a: &[u64; W],
        b: &[u64; W],
    ) -> ([u64; W], [u64; W], [u64; W]) {
        let (x, y) = k.apply_pair(table, a, b);
        (x, y, k.apply(table, a))
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse4.1")]
    fn xmm<const W: usize>(k: PclmulLane, table: &[Quad], a: &[u64; W]) -> [u64; W] {
        k.apply(table, a)
    }

    /// Every kernel this CPU runs against the bitwise definition, for m
    /// random rows of W words and inputs of degree < m: random ones, all
    /// ones, and each single bit (so every lane, group and word is hit).
    fn check<const W: usize>(m: usize, mut seed: u64) {
        let rows: Vec<Vec<u64>> = (0..m).map(|_| words(&mut seed, W)).collect();
        let table = quads_from_rows(rows.iter().map(|r| r.as_slice()), W);
        assert_eq!(table.len(), m.div_ceil(4) * W);
        let masked = |mut a: [u64; W]| {
            for (w, x) in a.iter_mut().enumerate() {
                let valid = m.saturating_sub(64 * w).min(64);
                *x &= if valid == 64 {
                    u64::MAX
                } else {
                    (1u64 << valid) - 1
                };
            }
            a
        };
        let mut inputs: Vec<[u64; W]> = (0..m)
            .map(|i| {
                let mut a = [0u64; W];
                a[i / 64] = 1 << (i % 64);
                a
            })
            .collect();
        inputs.push(masked([u64::MAX; W]));
        for _ in 0..64 {
            let v = words(&mut seed, W);
            inputs.push(masked(core::array::from_fn(|w| v[w])));
        }
        for (i, a) in inputs.iter().enumerate() {
            let want = reference(&rows, a);
            assert_eq!(PortableWord.apply(&table, a), want, "portable m={m} {a:x?}");
            // The pair's second input: another of the inputs.
            let b = &inputs[(i * 7 + 3) % inputs.len()];
            let want_b = reference(&rows, b);
            assert_eq!(
                PortableWord.apply_pair(&table, a, b),
                (want, want_b),
                "portable pair m={m}"
            );
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = crate::cpu::Avx512Clmul::get() {
                // SAFETY: the token proves AVX-512F/VL and AVX2.
                let got =
                    unsafe { mask_regs(super::super::ymm::Avx512Wide::<true>(t), &table, a, b) };
                assert_eq!(got, (want, want_b, want), "avx-512 m={m}");
            }
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = crate::cpu::Avx2Clmul::get() {
                // SAFETY: the token proves AVX2.
                let got = unsafe { ymm(YmmLane(t), &table, a) };
                assert_eq!(got, want, "avx2 m={m}");
            }
            #[cfg(target_arch = "x86_64")]
            if let Some(t) = crate::cpu::Clmul::get() {
                // SAFETY: the token proves SSE4.1.
                let got = unsafe { xmm(PclmulLane(t), &table, a) };
                assert_eq!(got, want, "sse4.1 m={m}");
            }
        }
    }

    /// The half tables: `a^(2^k)` by [`FieldSpec::apply_half_map_k`]
    /// against k squarings, at every chain step with a table, in each
    /// field, on the portable kernels and (where the CPU has it) the
    /// mask-register kernels.
    fn half_maps<F: crate::gf2m::FieldElement>(mut seed: u64) {
        let steps = crate::gf2m::words::table_steps(F::M);
        let mut checked = 0;
        for &k in steps.iter().filter(|&&k| k != 0) {
            let half = F::frobenius_half_table(k);
            assert!(
                half.is_some(),
                "m={}: no half table at the chain step {k}",
                F::M
            );
            let Some((table, shift)) = half else { return };
            assert_eq!(table.len(), F::M.div_ceil(2).div_ceil(4) * F::WORDS);
            for _ in 0..8 {
                let mut v = words(&mut seed, F::WORDS);
                if let Some(top) = v.last_mut() {
                    *top &= (1u64 << (F::M % 64)) - 1;
                }
                let a = F::from_word_slice(&v);
                assert!(a.is_ok(), "m={}: {v:x?} has degree m or more", F::M);
                let Ok(a) = a else { return };
                let want = F::square_n_k(PortableWord, &a, k);
                assert_eq!(
                    F::apply_half_map_k(PortableWord, table, &shift, &a),
                    want,
                    "m={} k={k}",
                    F::M
                );
                if let Some(d) = crate::gf2m::Dispatch::vpclmulqdq_avx512() {
                    assert_eq!(d.pow2k(&a, k), want, "avx-512 m={} k={k}", F::M);
                }
                checked += 1;
            }
        }
        assert!(checked > 0, "m={}: no chain step has a table", F::M);
    }

    #[test]
    fn half_tables_match_squaring() {
        use crate::gf2m::{F163, F233, F283, F409, F571};
        half_maps::<F163>(21);
        half_maps::<F233>(22);
        half_maps::<F283>(23);
        half_maps::<F409>(24);
        half_maps::<F571>(25);
    }

    #[test]
    fn kernels_match_the_definition() {
        check::<1>(1, 1);
        check::<1>(3, 2);
        check::<1>(64, 3);
        check::<2>(65, 4);
        check::<2>(128, 5);
        check::<3>(130, 6);
        check::<3>(163, 7);
        check::<4>(233, 8);
        check::<5>(283, 9);
        check::<7>(409, 10);
        check::<9>(571, 11);
    }
}
