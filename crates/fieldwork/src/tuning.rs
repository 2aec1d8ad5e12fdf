//! Tuning tables: where the best schedule, kernel or crossover of one ISA
//! level differs between cores, the choice is data keyed by what was
//! measured — the vendor, family and model ([`Core`]) — with the CPU and
//! the command that measured each entry beside it, never an enum variant
//! or an inline `match` on the vendor.
//!
//! Each area keeps its own table next to its dispatch (an `Entry` list of
//! the area's tuning type); [`Table::pick`] takes the first entry whose
//! [`Cores`] matches this CPU, else the table's `otherwise`. A choice is
//! made once per key, context or bulk call (or cached, where a free
//! function needs it per call), never per block.
//!
//! Adding a CPU: measure with `peer-bench` on it (native and, on AVX-512
//! machines, under `FIELDWORK_MAX_ISA=avx2`), add an entry above the
//! broader ones it refines, with `measured` naming the CPU and the
//! command, and keep the entries of the CPUs already measured.
#![forbid(unsafe_code)]

use crate::cpu::{Core, Vendor};
use core::sync::atomic::{AtomicU8, Ordering};

/// Which cores an entry is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// Not every area's table names every kind of match yet.
#[allow(dead_code)]
pub(crate) enum Cores {
    /// Every core of a vendor.
    Vendor(Vendor),
    /// One family of a vendor (AMD family 25: Zen 3 and Zen 4; 26: Zen 5).
    Family(Vendor, u32),
    /// One model of one family.
    Model(Vendor, u32, u32),
}

impl Cores {
    /// Whether `core` is one of these.
    pub(crate) const fn matches(self, core: Core) -> bool {
        match self {
            Cores::Vendor(v) => vendor_eq(v, core.vendor),
            Cores::Family(v, f) => vendor_eq(v, core.vendor) && core.family == f,
            Cores::Model(v, f, m) => {
                vendor_eq(v, core.vendor) && core.family == f && core.model == m
            }
        }
    }
}

const fn vendor_eq(a: Vendor, b: Vendor) -> bool {
    matches!(
        (a, b),
        (Vendor::Amd, Vendor::Amd)
            | (Vendor::Intel, Vendor::Intel)
            | (Vendor::Arm, Vendor::Arm)
            | (Vendor::Apple, Vendor::Apple)
            | (Vendor::Other, Vendor::Other)
    )
}

/// One measured choice.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry<T> {
    /// The cores it was measured on (or is known to carry over to).
    pub(crate) cores: Cores,
    /// The choice.
    pub(crate) value: T,
    /// The CPU and the command that measured it, and what was seen.
    #[allow(dead_code)]
    pub(crate) measured: &'static str,
}

/// An area's table: specific entries, most specific first, and the choice
/// for every other core.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Table<T: 'static> {
    /// The measured entries.
    pub(crate) entries: &'static [Entry<T>],
    /// For a core no entry names.
    pub(crate) otherwise: Entry<T>,
}

impl<T: Copy> Table<T> {
    /// The first entry that matches `core`, else `otherwise`.
    pub(crate) fn entry_for(&self, core: Core) -> &Entry<T> {
        self.entries
            .iter()
            .find(|e| e.cores.matches(core))
            .unwrap_or(&self.otherwise)
    }

    /// The choice for this CPU.
    pub(crate) fn pick(&self) -> T {
        self.entry_for(crate::cpu::core()).value
    }

    /// [`Table::pick`] read once into `cache` (the table's own static):
    /// for a free function that needs the choice on every call, one
    /// relaxed load and an index after the first call.
    #[inline]
    pub(crate) fn pick_cached(&self, cache: &Picked) -> T {
        match cache.0.load(Ordering::Relaxed) {
            0 => self.pick_into(cache),
            i => self.at(usize::from(i) - 1),
        }
    }

    /// Entry `i`'s choice, `otherwise`'s from `entries.len()` on.
    #[inline(always)]
    fn at(&self, i: usize) -> T {
        self.entries
            .get(i)
            .map_or(self.otherwise.value, |e| e.value)
    }

    /// The first call of [`Table::pick_cached`], out of line (inlined,
    /// the CPUID read made every caller save and restore registers).
    #[cold]
    #[inline(never)]
    fn pick_into(&self, cache: &Picked) -> T {
        let core = crate::cpu::core();
        let i = self
            .entries
            .iter()
            .position(|e| e.cores.matches(core))
            .unwrap_or(self.entries.len());
        // A table has a handful of entries; past 254 the pick would not be
        // cached, only made again on every call.
        let code = u8::try_from(i + 1).unwrap_or(0);
        cache.0.store(code, Ordering::Relaxed);
        self.at(i)
    }
}

/// The cache of [`Table::pick_cached`]: 0 before the first pick, else 1 +
/// the index of this CPU's entry (`entries.len()` for `otherwise`).
#[derive(Debug)]
pub(crate) struct Picked(AtomicU8);

impl Picked {
    /// Not picked yet.
    pub(crate) const fn new() -> Picked {
        Picked(AtomicU8::new(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: Table<u32> = Table {
        entries: &[
            Entry {
                cores: Cores::Model(Vendor::Amd, 25, 17),
                value: 1,
                measured: "Zen 4",
            },
            Entry {
                cores: Cores::Family(Vendor::Amd, 26),
                value: 2,
                measured: "Zen 5",
            },
            Entry {
                cores: Cores::Vendor(Vendor::Amd),
                value: 3,
                measured: "other AMD",
            },
        ],
        otherwise: Entry {
            cores: Cores::Vendor(Vendor::Intel),
            value: 4,
            measured: "Intel",
        },
    };

    fn core(vendor: Vendor, family: u32, model: u32) -> Core {
        Core {
            vendor,
            family,
            model,
        }
    }

    #[test]
    fn first_match_wins_and_otherwise_catches_the_rest() {
        assert_eq!(TABLE.entry_for(core(Vendor::Amd, 25, 17)).value, 1);
        assert_eq!(TABLE.entry_for(core(Vendor::Amd, 25, 1)).value, 3);
        assert_eq!(TABLE.entry_for(core(Vendor::Amd, 26, 2)).value, 2);
        assert_eq!(TABLE.entry_for(core(Vendor::Intel, 6, 207)).value, 4);
        assert_eq!(TABLE.entry_for(core(Vendor::Other, 0, 0)).value, 4);
        // This CPU gets one of them, and the cache gives the same twice.
        assert!((1..=4).contains(&TABLE.pick()));
        let cache = Picked::new();
        assert_eq!(TABLE.pick_cached(&cache), TABLE.pick());
        assert_ne!(cache.0.load(Ordering::Relaxed), 0);
        assert_eq!(TABLE.pick_cached(&cache), TABLE.pick());
    }
}
