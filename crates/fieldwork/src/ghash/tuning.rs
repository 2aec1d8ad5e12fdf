//! GHASH/POLYVAL's tuning table ([`crate::tuning`]): which kernel takes a
//! call, by its length and by whether the wide kernels' powers are made
//! (making them, and the box that holds them, costs more than their groups
//! save on a mid-length call), per core. Picked once per key.
#![forbid(unsafe_code)]

use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};

/// A narrower kernel a wide one hands calls to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Narrow {
    /// The ymm kernel (16-block groups, fused key setup for 2–8 blocks).
    Ymm,
    /// The xmm kernel (its eight powers live in the state).
    Xmm,
}

/// How a key with AVX-512 splits its calls: below 32 blocks always the
/// ymm kernel; a call that would first make the zmm kernel's 32 powers,
/// below `SPLIT_FRESH_BLOCKS`, on `fresh`; the zmm groups' remainder on
/// `tails`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ZmmSplit {
    /// A fresh key's mid-length calls.
    pub(crate) fresh: Narrow,
    /// What the zmm groups leave.
    pub(crate) tails: Narrow,
}

/// One core's choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GhashTuning {
    /// With AVX-512.
    pub(crate) zmm: ZmmSplit,
    /// With AVX2 and VPCLMULQDQ but not AVX-512: whether a call of
    /// `ymm::MIN_BLOCKS` to `YMM_FRESH_XMM_BLOCKS` blocks that would first
    /// make the ymm kernel's 16 powers runs on the xmm kernel.
    pub(crate) ymm_fresh_on_xmm: bool,
}

/// AMD's entry (named: the tests run both vendors' choices on every CPU).
pub(crate) const AMD: GhashTuning = GhashTuning {
    zmm: ZmmSplit {
        fresh: Narrow::Ymm,
        tails: Narrow::Ymm,
    },
    ymm_fresh_on_xmm: false,
};

/// Intel's entry.
pub(crate) const INTEL: GhashTuning = GhashTuning {
    zmm: ZmmSplit {
        fresh: Narrow::Xmm,
        tails: Narrow::Xmm,
    },
    ymm_fresh_on_xmm: true,
};

/// The table.
pub(crate) const GHASH: Table<GhashTuning> = Table {
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: AMD,
        measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --filter ghash and \
                   --filter polyval: the zmm kernel's xmm tails and its 32 powers cost more \
                   than they save below 1.5 KiB; the ymm kernel takes calls below 32 blocks, \
                   a fresh key's below 128, and the zmm groups' remainder",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: INTEL,
        measured: "Intel Xeon (family 6 model 207), peer-bench --filter polyval, cycles with \
                   key setup: 64 B 123 -> 77, 1 KiB 472 -> 325 with the xmm kernel for a fresh \
                   key's mid-length calls (AVX-512), and under FIELDWORK_MAX_ISA=avx2 1 KiB \
                   460 -> 331 (ymm kernel with the xmm kernel for them)",
    },
};

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
        assert_eq!(GHASH.entry_for(zen4).value, AMD);
        assert_eq!(GHASH.entry_for(xeon).value, INTEL);
    }
}
