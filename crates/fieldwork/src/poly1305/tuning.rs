//! Poly1305's tuning table ([`crate::tuning`]): the block counts from
//! which the vector backends leave the scalar loop, and the AVX2
//! backend's schedule per block count (complete decimation or
//! Goll–Gueron's scalar head). Picked once per process (cached) and held
//! in each key: a choice per key and per call from the (public) length,
//! never per block.
//!
//! On AArch64: `NEON_MIN_VECTOR_BLOCKS`, the NEON backend's crossover
//! (`poly1305/neon.rs`).
#![forbid(unsafe_code)]

/// Blocks below which the NEON backend's calls stay on the scalar loop.
/// **Not measured on hardware** (no ARM machine here), and not the
/// instruction-count break-even: by count the vector loop never pays
/// (32.6 instructions a block against 32.3, about 700 more per call;
/// `neon.rs`), which is why `neon` is not the default. 16 blocks (256 B)
/// is a guess at the latency break-even on a core where the scalar
/// loop's single chain of `mul`/`umulh` bounds it, for the named backend
/// to be measured on. llvm-mca-19 puts the loops at 14.3 (vector) and 39
/// (scalar) cycles a block on Neoverse N1: on real N1-class cores `neon`
/// from this crossover should be the default, once timed there.
#[cfg(target_arch = "aarch64")]
pub(crate) const NEON_MIN_VECTOR_BLOCKS: usize = 16;

#[cfg(target_arch = "x86_64")]
use crate::cpu::Vendor;
#[cfg(target_arch = "x86_64")]
use crate::tuning::{Cores, Entry, Table};

#[cfg(target_arch = "x86_64")]
/// Which scheme the AVX2 backend takes for an input of a given block
/// count (the key's, from this table or forced by name through
/// [`crate::hazmat`]): a mask
/// of the count classes mod 4 that go through complete decimation (one
/// bit test a call), and whether it was forced (for its name only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Bit `n mod 4` set: `n` blocks go through complete decimation;
    /// clear: Goll–Gueron.
    pub(super) decimation: u8,
    /// Forced by name (`avx2-goll-gueron`, `avx2-decimation`) rather
    /// than the tuning table's (`avx2`).
    pub(super) forced: bool,
}

#[cfg(target_arch = "x86_64")]
impl Schedule {
    /// Goll–Gueron at every count: `avx2-goll-gueron`.
    pub(crate) const GOLL_GUERON: Schedule = Schedule {
        decimation: 0,
        forced: true,
    };
    /// Complete decimation at every count: `avx2-decimation`.
    pub(crate) const DECIMATION: Schedule = Schedule {
        decimation: 0b1111,
        forced: true,
    };

    /// The tuning table's form: complete decimation for the count classes
    /// whose bit is set in `classes` (bit `n mod 4`), Goll–Gueron for the
    /// others.
    pub(crate) const fn by_count(classes: u8) -> Schedule {
        Schedule {
            decimation: classes,
            forced: false,
        }
    }

    /// Equality, usable in constants (the tuning table's).
    pub(crate) const fn same(self, other: Schedule) -> bool {
        self.decimation == other.decimation && self.forced == other.forced
    }

    /// Whether `blocks` blocks go through complete decimation.
    #[inline(always)]
    pub(super) fn decimation(self, blocks: usize) -> bool {
        self.decimation >> (blocks % 4) & 1 != 0
    }
}

#[cfg(target_arch = "x86_64")]
/// The AVX2 backend's choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Avx2Tuning {
    /// Which scheme takes an input of a given block count.
    pub(crate) schedule: Schedule,
    /// Blocks below which an input stays on the scalar loop: the powers
    /// (three squares and a product, once per key), the conversions and
    /// the final combination cost more than the vector loop saves.
    pub(crate) min_vector_blocks: u8,
    /// Blocks from which the loop takes three groups per carry (with
    /// `r^12`, one more product on the powers' chain) rather than two.
    pub(crate) min_triple_blocks: u8,
}

#[cfg(target_arch = "x86_64")]
/// The IFMA backend's choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IfmaTuning {
    /// Blocks below which a key that keeps its powers uses the scalar
    /// loop.
    pub(crate) min_vector_blocks: u8,
    /// The same for a key's last input (the one-shot tag, the AEAD's
    /// tag), which computes its powers in registers and keeps none.
    pub(crate) min_once_blocks: u8,
}

#[cfg(target_arch = "x86_64")]
/// One core's choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// For `avx2.rs`.
    pub(crate) avx2: Avx2Tuning,
    /// For `ifma.rs`.
    pub(crate) ifma: IfmaTuning,
}

#[cfg(target_arch = "x86_64")]
/// The values measured on AMD, which every core takes until it is
/// measured itself.
const MEASURED_ON_ZEN: Tuning = Tuning {
    avx2: Avx2Tuning {
        schedule: Schedule::by_count(1 << 3),
        min_vector_blocks: 21,
        min_triple_blocks: 128,
    },
    ifma: IfmaTuning {
        min_vector_blocks: 24,
        min_once_blocks: 13,
    },
};

#[cfg(target_arch = "x86_64")]
/// The table.
pub(crate) const POLY1305: Table<Tuning> = Table {
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: MEASURED_ON_ZEN,
        measured: "AVX2 on AMD EPYC Zen 3 (family 25 model 1), scripts/ab-time.sh on \
                   examples/poly_one (one-shot tags): the vector path and the scalar loop \
                   level at 20 blocks (320 B 144.7 against 144.4 ns), the vector path ahead \
                   from 22 (352 B 150.8 against 154.7 ns), 16 blocks on it 11 % slower at \
                   256 B; three groups per carry at every length 25 % slower at 576 B; \
                   Goll–Gueron 336 B 144.9 against 156.6 ns for decimation, 352 B 151.6 \
                   against 156.9, decimation ahead at 23 blocks (368 B 158.6 against 156.3), \
                   so decimation for block counts 3 mod 4. IFMA on AMD EPYC Zen 4 (family \
                   25 model 17), peer-bench --filter poly1305: break-even with the scalar \
                   loop at about 24 blocks for a key that keeps its powers, 12 for a \
                   one-shot tag",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: MEASURED_ON_ZEN,
        measured: "not measured on Intel: the AMD entry's values",
    },
};

#[cfg(target_arch = "x86_64")]
/// Whether every entry of [`POLY1305`] holds the values of its
/// `otherwise` (today's table: only AMD cores are measured, and Intel
/// takes their values). The pick then needs no core and costs nothing:
/// the keys' tuning fields are constants the compiler folds into the
/// kernels' comparisons (a one-shot 16-byte tag on AVX2 ran 6
/// instructions longer with the cached pick, callgrind on
/// `examples/poly_one`).
const UNIFORM: bool = {
    let mut rest = POLY1305.entries;
    let mut same = true;
    while let [first, tail @ ..] = rest {
        same &= first.value.same(POLY1305.otherwise.value);
        rest = tail;
    }
    same
};

#[cfg(target_arch = "x86_64")]
impl Tuning {
    /// Field-by-field equality, usable in constants.
    const fn same(self, other: Tuning) -> bool {
        let (a, b) = (self.avx2, other.avx2);
        a.schedule.same(b.schedule)
            && a.min_vector_blocks == b.min_vector_blocks
            && a.min_triple_blocks == b.min_triple_blocks
            && self.ifma.min_vector_blocks == other.ifma.min_vector_blocks
            && self.ifma.min_once_blocks == other.ifma.min_once_blocks
    }
}

#[cfg(target_arch = "x86_64")]
/// [`POLY1305`] for this CPU, picked once (or, while the table is
/// [`UNIFORM`], without looking). Its own cache rather than
/// `tuning::Table::pick_cached`: with that one, the AVX2 stitched
/// ChaCha20-Poly1305 seal of an empty message left the clamped `r` on the
/// stack (the test `stack_wipe` failed; the frames moved, not traced).
#[inline]
pub(crate) fn pick() -> Tuning {
    use core::sync::atomic::{AtomicU8, Ordering};
    if UNIFORM {
        return POLY1305.otherwise.value;
    }
    // 0: not picked yet; else 1 + the entry's index (`entries.len()` for
    // `otherwise`).
    static PICKED: AtomicU8 = AtomicU8::new(0);
    let entries = POLY1305.entries;
    match PICKED.load(Ordering::Relaxed) {
        0 => pick_slow(&PICKED),
        i => entries
            .get(usize::from(i) - 1)
            .map_or(POLY1305.otherwise.value, |e| e.value),
    }
}

#[cfg(target_arch = "x86_64")]
/// The first call of [`pick`]: reads the core and caches its entry.
#[cold]
fn pick_slow(cache: &core::sync::atomic::AtomicU8) -> Tuning {
    let core = crate::cpu::core();
    let entries = POLY1305.entries;
    let i = entries
        .iter()
        .position(|e| e.cores.matches(core))
        .unwrap_or(entries.len());
    // The table has a handful of entries: the index fits.
    cache.store((i + 1) as u8, core::sync::atomic::Ordering::Relaxed);
    POLY1305.entry_for(core).value
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::cpu::Core;

    #[test]
    fn the_measured_cores_get_their_entries_and_the_cache_agrees() {
        let zen3 = POLY1305
            .entry_for(Core {
                vendor: Vendor::Amd,
                family: 25,
                model: 1,
            })
            .value;
        assert_eq!(zen3.avx2.min_vector_blocks, 21);
        assert_eq!(zen3.avx2.min_triple_blocks, 128);
        assert_eq!(zen3.avx2.schedule, Schedule::by_count(0b1000));
        assert_eq!(
            (zen3.ifma.min_vector_blocks, zen3.ifma.min_once_blocks),
            (24, 13)
        );
        let xeon = POLY1305
            .entry_for(Core {
                vendor: Vendor::Intel,
                family: 6,
                model: 207,
            })
            .value;
        assert_eq!(xeon, MEASURED_ON_ZEN);
        assert_eq!(pick(), POLY1305.pick());
        assert_eq!(pick(), pick());
        assert_eq!(
            pick_slow(&core::sync::atomic::AtomicU8::new(0)),
            POLY1305.pick()
        );
        assert_eq!(
            UNIFORM,
            POLY1305
                .entries
                .iter()
                .all(|e| e.value == POLY1305.otherwise.value)
        );
    }
}
