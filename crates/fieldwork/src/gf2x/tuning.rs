//! `gf2x`'s tuning tables ([`crate::tuning`]), by core: the fixed-size
//! products the zmm backend hands to the ymm kernels, and the sizes where
//! the zmm and ymm backends take the schoolbook on two-word digits. Read
//! once per process and cached (the fixed products are chosen per call).
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
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: Words::of(&[5, 6, 7, 9]),
        measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --filter gf2x_mul, cycles \
                   per chained mul_into: 5, 6, 7, 9 words 46, 47, 66, 83 on ymm against 71, 93, \
                   80, 127 on zmm; not 3 (level), 4 (36.8 on zmm against 40.4) or 8 (faster \
                   chained, but the normal-basis product at m = 233 7 % slower)",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: Words::of(&[9]),
        measured: "Intel Xeon (family 6 model 207), peer-bench --filter gf2x_mul: 9 words 80 \
                   cycles on ymm against 109 on zmm, 9×1000 words 0.71× the time; 5 words 40 \
                   against 25, 6 and 7 within 4 %",
    },
};

/// The word counts at which the zmm and ymm backends run the schoolbook
/// on two-word digits (`clmul::pair_school`: N² `pclmulqdq`, no operand
/// sums) instead of their Karatsuba or lane kernels.
pub(crate) const PAIR_DIGITS: Table<Words> = Table {
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: Words::of(&[3, 4]),
        measured: "Intel Xeon (family 6 model 207), peer-bench --filter gf2x_mul --quick, \
                   ns per chained product, best of 3 alternated runs (2026-11-26, load 12-15): \
                   zmm 3 words 7.14 -> 6.66 (schoolbook on lanes), 4 words 8.82 -> 6.69 \
                   (Su-Fan 4-1m); ymm (avx2 cap) 3 words 7.59 -> 6.57 (3-1m), 4 words \
                   10.0 -> 7.07 (4-1m)",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: Words::of(&[]),
        measured: "not measured on AMD: the Zen 3 and Zen 4 choices stand (there \
                   `pclmulqdq` issues once per 2 cycles, and the fewer products of 3-1m \
                   and 4-1m were measured level with or faster than schoolbooks)",
    },
};

/// The fixed-size choices of the zmm and ymm backends for this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FixedChoice {
    /// [`ZMM_FIXED_ON_YMM`].
    pub(crate) on_ymm: Words,
    /// [`PAIR_DIGITS`].
    pub(crate) pairs: Words,
}

/// The choices [`fixed_choice`] picked: 0 before the first call, else
/// bit 63 set, [`FixedChoice::on_ymm`] in bits 0–15 and
/// [`FixedChoice::pairs`] in bits 16–31.
static PICKED: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// [`ZMM_FIXED_ON_YMM`] and [`PAIR_DIGITS`] for this CPU, picked once.
/// Inlined into every fixed product of the zmm and ymm backends: one load;
/// the first call's lookup stays out of line (inlined, its calls made the
/// caller save six registers on every product).
#[inline]
pub(crate) fn fixed_choice() -> FixedChoice {
    match PICKED.load(core::sync::atomic::Ordering::Relaxed) {
        0 => pick_fixed_choice(),
        // The bits `pick_fixed_choice` stored.
        p => FixedChoice {
            on_ymm: Words(p as u16),
            pairs: Words((p >> 16) as u16),
        },
    }
}

/// The first call of [`fixed_choice`]: the table lookups, cached.
#[cold]
#[inline(never)]
fn pick_fixed_choice() -> FixedChoice {
    let c = FixedChoice {
        on_ymm: ZMM_FIXED_ON_YMM.pick(),
        pairs: PAIR_DIGITS.pick(),
    };
    let bits = (1 << 63) | u64::from(c.on_ymm.0) | (u64::from(c.pairs.0) << 16);
    PICKED.store(bits, core::sync::atomic::Ordering::Relaxed);
    c
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
        assert!(intel.has(9) && !intel.has(5) && !intel.has(16));
        let pairs = PAIR_DIGITS.entry_for(xeon).value;
        assert!(pairs.has(3) && pairs.has(4) && !pairs.has(9));
        assert_eq!(PAIR_DIGITS.entry_for(zen4).value, Words::of(&[]));
        let want = FixedChoice {
            on_ymm: ZMM_FIXED_ON_YMM.pick(),
            pairs: PAIR_DIGITS.pick(),
        };
        assert_eq!(fixed_choice(), want);
        assert_eq!(fixed_choice(), fixed_choice());
    }
}
