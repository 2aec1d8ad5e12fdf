//! `gf2x`'s tuning tables ([`crate::tuning`]): the fixed-size products the
//! zmm backend hands to the ymm kernels, and those the zmm and ymm backends
//! run by a schoolbook, by core. Read once per
//! process and cached behind one load (the fixed products are chosen per
//! call).
#![forbid(unsafe_code)]

use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};

/// A set of word counts 1–15, bit n for n words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Words(u16);

impl Words {
    const fn of(counts: &[usize]) -> Words {
        let mut bits = 0u16;
        let mut rest = counts;
        while let [n, tail @ ..] = rest {
            bits |= 1 << *n;
            rest = tail;
        }
        Words(bits)
    }

    /// Whether `n` words are in the set.
    pub(crate) const fn has(self, n: usize) -> bool {
        n < 16 && self.0 & (1 << n) != 0
    }
}

/// The word counts at which the zmm backend's fixed products run the ymm
/// backend's kernels instead of its own.
pub(crate) const ZMM_FIXED_ON_YMM: Table<Words> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Intel, 6, 106),
            value: Words::of(&[]),
            measured: "Intel Xeon Ice Lake (family 6 model 106), peer-bench --filter gf2x_mul \
                       --quick, two builds alternated twice (2026-11-30), ns per chained \
                       mul_into, the ymm kernels -> the zmm backend's own: 8 words 24.7 -> \
                       20.4 (the one zmm 8x8 product), 9 words 27.2 -> 24.9-25.0, 7 words level \
                       (its schoolbook runs first); the normal-basis product at m = 233 (8-word \
                       p-bit form) 39.0-39.2 -> 38.2-38.9. vpclmulqdq on ymm issues once per \
                       two cycles here, as on zmm (peer-bench --isa-rates): zmm does twice the \
                       products per instruction",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Amd),
            value: Words::of(&[5, 6, 7, 9]),
            measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --filter gf2x_mul, cycles \
                   per chained mul_into: 5, 6, 7, 9 words 46, 47, 66, 83 on ymm against 71, 93, \
                   80, 127 on zmm; not 3 (level), 4 (36.8 on zmm against 40.4) or 8 (faster \
                   chained, but the normal-basis product at m = 233 7 % slower)",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: Words::of(&[7, 8, 9]),
        measured: "Intel Xeon (family 6 model 207), peer-bench --filter gf2x_mul: 9 words 80 \
                   cycles on ymm against 109 on zmm, 9×1000 words 0.71× the time; 5 words 40 \
                   against 25, 6 within 4 %; 7 words (2026-11-29, --quick --passes 5, two \
                   builds alternated, both loading by 16-byte pieces) 40.3-40.4 ticks on ymm \
                   against 41.8 on zmm; 8 words (2026-11-30, --quick, builds alternated \
                   twice) mul_into 41.9 -> 39.2-40.4 ticks, mul_fixed_into 41.9-42.3 -> 37.7, \
                   the normal-basis product at m = 233 (8-word p-bit form) 85.7 -> 84.6-85.4",
    },
};

/// The word counts at which a backend's fixed products run a kernel on
/// two-word digits: a schoolbook (`clmul::pair_school` at 3 and 4 words,
/// the lane schoolbook at 5: every product straight from the loads, 16
/// `pclmulqdq` at 4 words) or, at 6 to 9 words, Karatsuba on the digits
/// (`clmul::digit_karatsuba`: three-way at 6 and 7, 24 and 31 `pclmulqdq`
/// with schoolbook leaves; two-way twice at 8 and 9, 36 and 44),
/// instead of its other kernels (Karatsuba's 9 products behind operand
/// sums at 4 words; 9 `vpclmulqdq` ymm by the three-term formula at 5; the
/// lane schoolbook's 36 products at 6, the two-limb ymm Karatsuba at 7 and
/// 8; at 8 and 9 on zmm the backend's own 8-word limb), per backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Schoolbook {
    /// The zmm backend's sizes.
    pub(crate) zmm: Words,
    /// The ymm backend's sizes.
    pub(crate) ymm: Words,
}

/// The sizes `clmul::schoolbook_entry!`'s slice entry takes: a
/// [`Schoolbook`] set lists no others (tested).
pub(crate) const SCHOOLBOOK_SIZES: Words = Words::of(&[3, 4, 5, 6, 7, 8, 9]);

/// Where the schoolbooks are faster, by core.
pub(crate) const SCHOOLBOOK: Table<Schoolbook> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Intel, 6, 106),
            value: Schoolbook {
                zmm: Words::of(&[4, 6, 7, 8, 9]),
                ymm: Words::of(&[3, 4, 5, 6, 7, 8, 9]),
            },
            measured: "Intel Xeon Ice Lake (family 6 model 106), peer-bench --filter gf2x_mul \
                       --quick, two builds alternated twice (2026-11-30, ratios within one run: \
                       the host was busy), ticks per chained mul_into, the digit Karatsuba at 8 \
                       and 9 words against the zmm backend's own kernels and the ymm limbs: zmm \
                       8 words 57.1 -> 37.4-38.1, 9 words 70.4 -> 47.6 (gf2x built for the CPU \
                       78-80 and 94-104); FIELDWORK_MAX_ISA=avx2, ymm 8 words 67.4 -> 41.8, 9 \
                       words 74.8 -> 56.0 (77 and 90-104). pclmulqdq on xmm issues once a cycle \
                       here, on ymm and zmm once per two (peer-bench --isa-rates). 3-7 words as \
                       on the other Intel cores (not re-measured)",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Intel),
            value: Schoolbook {
                zmm: Words::of(&[4, 6, 7]),
                ymm: Words::of(&[3, 4, 5, 6, 7]),
            },
            measured: "Intel Xeon (family 6 model 207), peer-bench --filter gf2x_mul --quick \
                   --passes 5, two builds alternated twice, ticks per chained mul_into: zmm 4 \
                   words 20.8-22.0 -> 17.2-17.8 (3 words level, 16.3-16.4 against 16.4-17.2: \
                   not taken); ymm 3 words 18.2-18.3 -> 15.4-16.2, 4 words 23.5-24.8 -> \
                   17.4-18.7; ymm 5 words (the lane schoolbook) 31.1-33.1 -> 27.7. The digit \
                   Karatsuba (2026-11-29, same method, 4 runs): 6 words zmm 28.4-28.5 -> \
                   27.8-27.9, ymm 31.0-31.3 -> 27.5; 7 words zmm 40.3-41.9 -> 33.2-33.6, ymm \
                   38.9-39.9 -> 33.1-33.2. Its Karatsuba leaves on zmm (2026-11-30, same \
                   method): 6 words 27.9 -> 24.8-24.9, 7 words 33.2-33.3 -> 30.0-30.1",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: Schoolbook {
            zmm: Words::of(&[]),
            ymm: Words::of(&[]),
        },
        measured: "not measured on AMD: there `pclmulqdq` issues once per 2 cycles (Zen 3, \
                   Zen 4), so 16 products cost 32 cycles of issue against 18 for Karatsuba's \
                   9 (5 words: 25 xmm products against 9 ymm instructions); the other \
                   kernels stay",
    },
};

/// The sizes up to which the zmm backend's fixed products consult neither
/// table (no entry lists them: its 1–3-word lane kernels are the fastest
/// on every core measured), so that their calls skip the choice's load.
pub(crate) const ZMM_ALWAYS_MAX: usize = 3;

/// The fixed-product choices for this CPU: [`ZMM_FIXED_ON_YMM`] and
/// [`SCHOOLBOOK`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fixed {
    /// The zmm backend's sizes run by the ymm kernels.
    pub(crate) on_ymm: Words,
    /// The schoolbooks' sizes.
    pub(crate) schoolbook: Schoolbook,
}

/// [`Fixed`] for this CPU, picked once and cached behind one load: two
/// tables' choices in one word, where `tuning::Table::pick_cached` would
/// take a load and an index per table in front of every small product.
pub(crate) fn fixed_choice() -> Fixed {
    use core::sync::atomic::{AtomicU64, Ordering};
    // 0: not picked yet; else bit 63 set and the three sets in bits 0-15
    // (`on_ymm`), 16-31 (`schoolbook.zmm`), 32-47 (`schoolbook.ymm`).
    static PICKED: AtomicU64 = AtomicU64::new(0);
    /// The first call's pick, out of line: inlined, its call made every
    /// small product save and restore six registers.
    #[cold]
    #[inline(never)]
    fn pick() -> Fixed {
        let f = Fixed {
            on_ymm: ZMM_FIXED_ON_YMM.pick(),
            schoolbook: SCHOOLBOOK.pick(),
        };
        let bits = (1 << 63)
            | u64::from(f.on_ymm.0)
            | u64::from(f.schoolbook.zmm.0) << 16
            | u64::from(f.schoolbook.ymm.0) << 32;
        PICKED.store(bits, Ordering::Relaxed);
        f
    }
    match PICKED.load(Ordering::Relaxed) {
        0 => pick(),
        // The three 16-bit sets stored above (`as u16` keeps the low 16 bits).
        p => Fixed {
            on_ymm: Words(p as u16),
            schoolbook: Schoolbook {
                zmm: Words((p >> 16) as u16),
                ymm: Words((p >> 32) as u16),
            },
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Core;

    #[test]
    fn the_measured_cores_get_their_entries() {
        let zen4 = Core {
            vendor: Vendor::Amd,
            family: 25,
            model: 17,
        };
        let xeon = Core {
            vendor: Vendor::Intel,
            family: 6,
            model: 207,
        };
        let amd = ZMM_FIXED_ON_YMM.entry_for(zen4).value;
        assert!(amd.has(5) && amd.has(6) && amd.has(7) && amd.has(9));
        assert!(!amd.has(3) && !amd.has(4) && !amd.has(8));
        let intel = ZMM_FIXED_ON_YMM.entry_for(xeon).value;
        assert!(intel.has(7) && intel.has(8) && intel.has(9) && !intel.has(5) && !intel.has(16));
        let icelake = Core {
            vendor: Vendor::Intel,
            family: 6,
            model: 106,
        };
        assert_eq!(ZMM_FIXED_ON_YMM.entry_for(icelake).value, Words::of(&[]));
        let fixed = fixed_choice();
        assert_eq!(fixed.on_ymm, ZMM_FIXED_ON_YMM.pick());
        assert_eq!(fixed.schoolbook, SCHOOLBOOK.pick());
        assert_eq!(fixed_choice(), fixed);
    }

    #[test]
    fn schoolbook_sets_stay_within_the_entry_and_off_the_always_sizes() {
        let xeon = Core {
            vendor: Vendor::Intel,
            family: 6,
            model: 207,
        };
        let intel = SCHOOLBOOK.entry_for(xeon).value;
        assert!(intel.zmm.has(4) && !intel.zmm.has(3) && !intel.zmm.has(5));
        assert!(intel.ymm.has(3) && intel.ymm.has(4) && intel.ymm.has(5));
        assert!(!intel.zmm.has(8) && !intel.ymm.has(9));
        let icelake = Core {
            vendor: Vendor::Intel,
            family: 6,
            model: 106,
        };
        let icelake = SCHOOLBOOK.entry_for(icelake).value;
        assert!(icelake.zmm.has(8) && icelake.zmm.has(9) && !icelake.zmm.has(5));
        assert!(icelake.ymm.has(8) && icelake.ymm.has(9));
        for e in SCHOOLBOOK.entries.iter().chain([&SCHOOLBOOK.otherwise]) {
            for n in 0..16 {
                for set in [e.value.zmm, e.value.ymm] {
                    assert!(!set.has(n) || SCHOOLBOOK_SIZES.has(n), "{n} words");
                }
                // The zmm backend checks neither table up to ZMM_ALWAYS_MAX.
                assert!(!e.value.zmm.has(n) || n > ZMM_ALWAYS_MAX, "{n} words");
            }
        }
        for e in ZMM_FIXED_ON_YMM
            .entries
            .iter()
            .chain([&ZMM_FIXED_ON_YMM.otherwise])
        {
            for n in 0..=ZMM_ALWAYS_MAX {
                assert!(!e.value.has(n), "{n} words");
            }
        }
    }
}
