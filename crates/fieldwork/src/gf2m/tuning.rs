//! `gf2m`'s tuning table ([`crate::tuning`]): whether the best backend on
//! a CPU with VPCLMULQDQ and AVX2 takes the wide products
//! (`vpclmulqdq-ymm-wide`: F409's and F571's products and squares two
//! 128-bit digits a ymm register, `ymmfold.rs`; with AVX-512 their form
//! `vpclmulqdq-avx512`, the linear maps on `vpternlogq`, `maps.rs`) or
//! `vpclmulqdq-ymm` (one digit an xmm register, `xmmfold.rs`), and
//! whether only where AVX-512 is usable; and, with AVX-512, whether F409's
//! and F571's squares stay on ymm too or run one digit an xmm register
//! (`vpclmulqdq-avx512-xmm-squares`); and which fields' batches the ymm
//! backends run one element at a time rather than two a register. Read
//! once and cached ([`choice`]): [`Dispatch::best`](super::Dispatch::best)
//! runs at every operator call.
#![forbid(unsafe_code)]

use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};

/// The best backend's wide kernels on a core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Choice {
    /// Where the wide products are taken.
    pub(crate) products: Wide,
    /// Whether the AVX-512 backend squares F409 and F571 on ymm too
    /// (false: on xmm digits, `vpclmulqdq-avx512-xmm-squares`).
    pub(crate) wide_squares: bool,
    /// The fields whose batches (`mul_slices`, `square_slices`) the ymm
    /// backends (`vpclmulqdq-ymm`, `vpclmulqdq-ymm-wide`) run one element
    /// at a time on xmm digits instead of two elements a ymm register.
    pub(crate) single_batches: SingleBatches,
}

/// Fields by degree: a set of the five NIST degrees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fields(u8);

impl Fields {
    /// The NIST degrees, bit i for `DEGREES[i]`.
    const DEGREES: [usize; 5] = [163, 233, 283, 409, 571];

    /// Bit i for `DEGREES[i] == m`, 0 for another degree.
    const fn bit(m: usize) -> u8 {
        let mut bit = 1u8;
        let mut rest: &[usize] = &Self::DEGREES;
        while let [d, tail @ ..] = rest {
            if *d == m {
                return bit;
            }
            bit <<= 1;
            rest = tail;
        }
        0
    }

    /// The set of `degrees` (NIST degrees; any other is left out).
    pub(crate) const fn of(degrees: &[usize]) -> Fields {
        let mut bits = 0u8;
        let mut rest = degrees;
        while let [m, tail @ ..] = rest {
            bits |= Self::bit(*m);
            rest = tail;
        }
        Fields(bits)
    }

    /// Whether the field of degree `m` is in the set.
    #[cfg_attr(
        not(target_arch = "x86_64"),
        allow(dead_code, reason = "only the x86-64 ymm backends' batches ask")
    )]
    pub(crate) const fn has(self, m: usize) -> bool {
        self.0 & Self::bit(m) != 0
    }
}

/// [`Choice::single_batches`]: by operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SingleBatches {
    /// Products.
    pub(crate) mul: Fields,
    /// Squares.
    pub(crate) square: Fields,
}

/// Every batch two elements a ymm register.
const PAIRS_EVERYWHERE: SingleBatches = SingleBatches {
    mul: Fields::of(&[]),
    square: Fields::of(&[]),
};

/// Where the wide products are the best backend's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wide {
    /// On AVX2 and on AVX-512 (`vpclmulqdq-ymm-wide`, `vpclmulqdq-avx512`).
    Always,
    /// With AVX-512 only (`vpclmulqdq-avx512`); `vpclmulqdq-ymm` without.
    WithAvx512,
}

/// The table: where the wide products are faster, by core.
pub(crate) const GF2M_WIDE: Table<Choice> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Intel, 6, 106),
            value: Choice {
                products: Wide::WithAvx512,
                wide_squares: false,
                single_batches: SingleBatches {
                    mul: Fields::of(&[233]),
                    square: Fields::of(&[163, 233, 283, 571]),
                },
            },
            measured: "Intel Xeon Ice Lake (family 6 model 106): vpclmulqdq on ymm issues once \
                       per two cycles, on xmm once a cycle (peer-bench --isa-rates). Its \
                       avx2-capped page at afbf03d (peer-bench --passes 3, 2026-11-30), cycles per \
                       batch of 1 024, vpclmulqdq-ymm's pairs against one element at a time \
                       (the pclmulqdq column): mul m = 233 29 748 against 26 143 (c-xs233: 26 \
                       697), squares m = 163 10 569 / 9 593, 233 15 878 / 15 369, 283 14 928 / \
                       12 478, 571 24 202 / 22 842; pairs stay where they win: mul 163 16 831 / \
                       18 936, 283 28 271 / 36 497, 409 61 411 / 72 836, 571 79 944 / 83 152, \
                       square 409 23 346 / 27 321. The wide choices as on the other Intel cores",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Amd),
            value: Choice {
                products: Wide::Always,
                wide_squares: true,
                single_batches: PAIRS_EVERYWHERE,
            },
            measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --isa-rates: vpclmulqdq \
                   issues once per two cycles on xmm and on ymm alike, so the xmm digits' 45 \
                   products at m = 571 bound the product at 90 cycles; peer-bench --filter \
                   m=571 / m=409 --quick, chained: m = 571 mul 110 -> 73 cycles, square 37.6 \
                   -> 29.8, invert 8 204 -> 7 194; m = 409 mul 95.3 -> 65.9, square 37.7 -> \
                   34.3, invert 5 292 -> 4 815 (Zen 3, family 25 model 1, has the same \
                   vpclmulqdq rate: not re-measured)",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: Choice {
            products: Wide::WithAvx512,
            wide_squares: false,
            single_batches: PAIRS_EVERYWHERE,
        },
        measured: "Intel Xeon (family 6 model 207), the page at cc1d2aa (peer-bench --passes 3, \
                   2026-11-29), vpclmulqdq-avx512 against vpclmulqdq-ymm, cycles: m = 571 mul \
                   69.9 -> 61.7, invert 7 447 -> 5 844, half_trace 1 176 -> 791; m = 409 mul \
                   64.7 -> 61.3, invert 4 858 -> 3 473; m = 233 mul 27.0 -> 25.5, invert 1 579 \
                   -> 1 287; m = 163 invert 1 066 -> 962; slower: the m = 409 / 571 squares \
                   25.9 / 23.2 -> 32.3 / 28.5 and m = 571's batches (+10 %). Without AVX-512 \
                   (vpclmulqdq-ymm-wide) level or slower: m = 409 square 25.9 -> 32.7, invert \
                   4 858 -> 5 309. The AVX-512 backend's squares on xmm digits (2026-11-30, \
                   peer-bench --filter gf2m --quick, two builds alternated twice, ticks): m = \
                   409 square 25.6 -> 20.9, invert 2 757-2 781 -> 2 647-2 653, half_trace \
                   418-486 -> 381; m = 571 square 23.0-23.8 -> 18.5, invert 4 650-5 887 -> \
                   4 538-4 590, sqrt level, mul level",
    },
};

/// This CPU's entry, read once.
pub(crate) fn choice() -> Choice {
    static PICKED: crate::tuning::Picked = crate::tuning::Picked::new();
    GF2M_WIDE.pick_cached(&PICKED)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Core;

    #[test]
    fn amd_is_wide_and_intel_wide_with_avx512() {
        let core = |vendor, family, model| Core {
            vendor,
            family,
            model,
        };
        let entry = |vendor, family, model| GF2M_WIDE.entry_for(core(vendor, family, model)).value;
        let amd = Choice {
            products: Wide::Always,
            wide_squares: true,
            single_batches: PAIRS_EVERYWHERE,
        };
        assert_eq!(entry(Vendor::Amd, 25, 17), amd);
        assert_eq!(entry(Vendor::Amd, 26, 2), amd);
        let intel = Choice {
            products: Wide::WithAvx512,
            wide_squares: false,
            single_batches: PAIRS_EVERYWHERE,
        };
        assert_eq!(entry(Vendor::Intel, 6, 207), intel);
        let icelake = entry(Vendor::Intel, 6, 106);
        assert_eq!(
            (icelake.products, icelake.wide_squares),
            (Wide::WithAvx512, false)
        );
        let single = icelake.single_batches;
        assert!(single.mul.has(233) && !single.mul.has(163) && !single.mul.has(409));
        assert!(single.square.has(163) && single.square.has(571) && !single.square.has(409));
        assert!(!Fields::of(&[233]).has(234) && !Fields::of(&[]).has(233));
        // The cache's first and later reads agree with the table.
        assert_eq!(choice(), GF2M_WIDE.pick());
        assert_eq!(choice(), GF2M_WIDE.pick());
    }
}
