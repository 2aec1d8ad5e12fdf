//! `gf2m`'s tuning table ([`crate::tuning`]): whether the best backend on
//! a CPU with VPCLMULQDQ and AVX2 is `vpclmulqdq-ymm-wide` (F409's and
//! F571's products and squares two 128-bit digits a ymm register,
//! `ymmfold.rs`) or `vpclmulqdq-ymm` (one digit an xmm register,
//! `xmmfold.rs`). Read once and cached ([`wide`]):
//! [`Dispatch::best`](super::Dispatch::best) runs at every operator call.
//! Where the wide products are chosen and AVX-512 is usable, `best` takes
//! their AVX-512 form, `vpclmulqdq-avx512` (the same products; the linear
//! maps on `vpternlogq`, `maps.rs`): a choice by feature, not by core.
#![forbid(unsafe_code)]

use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};

/// The table: `true` where the wide products are faster.
pub(crate) const GF2M_WIDE: Table<bool> = Table {
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: true,
        measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --isa-rates: vpclmulqdq \
                   issues once per two cycles on xmm and on ymm alike, so the xmm digits' 45 \
                   products at m = 571 bound the product at 90 cycles; peer-bench --filter \
                   m=571 / m=409 --quick, chained: m = 571 mul 110 -> 73 cycles, square 37.6 \
                   -> 29.8, invert 8 204 -> 7 194; m = 409 mul 95.3 -> 65.9, square 37.7 -> \
                   34.3, invert 5 292 -> 4 815 (Zen 3, family 25 model 1, has the same \
                   vpclmulqdq rate: not re-measured)",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: false,
        measured: "Intel Xeon (family 6 model 207): the xmm digits' kernels were tuned there \
                   (docs/notes/gf2m.md, 2026-11-26); vpclmulqdq on ymm issues once a cycle \
                   there as on xmm, so the wide products may be faster too: not measured",
    },
};

/// This CPU's entry, read once.
pub(crate) fn wide() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    // 0: not read yet; 1: narrow; 2: wide.
    static WIDE: AtomicU8 = AtomicU8::new(0);
    match WIDE.load(Ordering::Relaxed) {
        0 => {
            let w = GF2M_WIDE.pick();
            WIDE.store(if w { 2 } else { 1 }, Ordering::Relaxed);
            w
        }
        w => w == 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Core;

    #[test]
    fn amd_is_wide_and_intel_is_not() {
        let core = |vendor, family, model| Core {
            vendor,
            family,
            model,
        };
        assert!(GF2M_WIDE.entry_for(core(Vendor::Amd, 25, 17)).value);
        assert!(GF2M_WIDE.entry_for(core(Vendor::Amd, 26, 2)).value);
        assert!(!GF2M_WIDE.entry_for(core(Vendor::Intel, 6, 207)).value);
        assert_eq!(wide(), GF2M_WIDE.pick());
    }
}
