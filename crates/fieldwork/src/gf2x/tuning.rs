//! `gf2x`'s tuning table ([`crate::tuning`]): the fixed-size products the
//! zmm backend hands to the ymm kernels, by core. Read once per process
//! and cached (the fixed products are chosen per call).
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

/// The sizes up to which the zmm backend's fixed products never consult
/// [`ZMM_FIXED_ON_YMM`] (no entry lists them: its 1–4-word lane kernels
/// are the fastest on every core measured), so that their calls skip the
/// table's load.
pub(crate) const ZMM_ALWAYS_MAX: usize = 4;

/// [`ZMM_FIXED_ON_YMM`] for this CPU, picked once.
pub(crate) fn zmm_fixed_on_ymm() -> Words {
    use core::sync::atomic::{AtomicU32, Ordering};
    // 0: not picked yet; else the set with bit 31 set.
    static PICKED: AtomicU32 = AtomicU32::new(0);
    /// The first call's pick, out of line: inlined, its call made every
    /// small product save and restore six registers.
    #[cold]
    #[inline(never)]
    fn pick() -> Words {
        let w = ZMM_FIXED_ON_YMM.pick();
        PICKED.store((1 << 31) | u32::from(w.0), Ordering::Relaxed);
        w
    }
    match PICKED.load(Ordering::Relaxed) {
        0 => pick(),
        // The low 16 bits are the set stored above.
        p => Words(p as u16),
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
        assert!(intel.has(9) && !intel.has(5) && !intel.has(16));
        assert_eq!(zmm_fixed_on_ymm(), ZMM_FIXED_ON_YMM.pick());
        assert_eq!(zmm_fixed_on_ymm(), zmm_fixed_on_ymm());
    }
}
