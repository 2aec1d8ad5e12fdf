//! GHASH/POLYVAL's tuning table ([`crate::tuning`]): which narrower kernel
//! a wide one hands the calls its groups would lose on — a fresh key's
//! mid-length calls, whose wide powers (and the box that holds them) cost
//! more to make than the wide groups save, and, on zmm, what the 32-block
//! groups leave. Picked from the table once per process and cached
//! ([`GhashTuning::this_cpu`]), copied into each key as one byte beside
//! its backend ([`super::Dispatch::best`]), and read once per call, never
//! per block.
#![forbid(unsafe_code)]

use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};
use core::sync::atomic::{AtomicU64, Ordering};

/// One core's choices, per ISA level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GhashTuning {
    /// A key on the zmm kernel (AVX-512).
    pub(crate) zmm: Narrow,
    /// A key on the ymm kernel (AVX2 and VPCLMULQDQ, no AVX-512).
    pub(crate) ymm: Narrow,
    /// With `ymm` = [`Narrow::Xmm`]: a fresh ymm key's calls of
    /// [`GhashTuning::xmm_from`] up to this many blocks (excluded) run on
    /// the xmm kernel.
    pub(crate) ymm_xmm_below: u16,
    /// With [`Narrow::Xmm`], the fewest blocks a call hands to the xmm
    /// kernel: on a ymm key (fresh) and on a zmm key (below the zmm
    /// kernel's 32 blocks; fewer run on the ymm kernel, whose fused key
    /// setup for 2–8 blocks the xmm kernel lacks). 32 (`ymm::MIN_BLOCKS`,
    /// `POWERS`) where the ymm kernel's products are twice the xmm
    /// kernel's rate.
    pub(crate) xmm_from: u8,
    /// On a zmm key with a choice: a call that would first make the 32 zmm
    /// powers runs on the chosen narrower kernel below this many blocks.
    pub(crate) zmm_fresh_below: u16,
}

/// The narrower kernel a wide key hands calls to.
///
/// On a zmm key (`super::vpclmul`): [`Narrow::None`] is the zmm kernel
/// alone (`vpclmulqdq`, xmm tails); otherwise calls of fewer than 32 blocks
/// run on the ymm kernel, a call that would first make the 32 zmm powers
/// runs below `SPLIT_FRESH_BLOCKS` on the kernel named here, and so do
/// the zmm groups' last blocks (`vpclmulqdq-split` for ymm,
/// `vpclmulqdq-split-xmm` for xmm). On a ymm key (`super::ymm`):
/// [`Narrow::Xmm`] runs a call of `ymm::MIN_BLOCKS` to
/// [`GhashTuning::ymm_xmm_below`] blocks that would first make the 16 ymm powers
/// on the xmm kernel (`vpclmulqdq-ymm-fresh-xmm`); the others are the ymm
/// kernel alone (`vpclmulqdq-ymm`). Other keys ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Narrow {
    /// The kernel alone.
    None,
    /// The ymm kernel (16-block groups, fused key setup for 2–8 blocks).
    Ymm,
    /// The xmm kernel (its eight powers live in the key, not the box).
    Xmm,
}

impl GhashTuning {
    /// This CPU's entry of [`GHASH`], read from the table once per process
    /// and cached as one word: a key is made per message, and walking the
    /// table per key (an out-of-line `entry_for` on the unpacked
    /// [`crate::cpu::Core`]) cost a 16-byte POLYVAL with key setup about
    /// 1 ns on the Xeon f6m207.
    #[inline]
    pub(crate) fn this_cpu() -> GhashTuning {
        // 0: not read yet; else bit 63 | zmm | ymm << 2 | ymm_xmm_below << 8
        // | xmm_from << 24 | zmm_fresh_below << 32.
        static CACHED: AtomicU64 = AtomicU64::new(0);
        let code = |n: Narrow| match n {
            Narrow::None => 0u64,
            Narrow::Ymm => 1,
            Narrow::Xmm => 2,
        };
        let narrow = |bits: u64| match bits & 3 {
            0 => Narrow::None,
            1 => Narrow::Ymm,
            _ => Narrow::Xmm,
        };
        match CACHED.load(Ordering::Relaxed) {
            0 => {
                let t = GHASH.pick();
                let packed = 1 << 63
                    | code(t.zmm)
                    | code(t.ymm) << 2
                    | u64::from(t.ymm_xmm_below) << 8
                    | u64::from(t.xmm_from) << 24
                    | u64::from(t.zmm_fresh_below) << 32;
                CACHED.store(packed, Ordering::Relaxed);
                t
            }
            // The fields stored above, each at its offset (truncations
            // take back the u8 and u16 stored).
            w => GhashTuning {
                zmm: narrow(w),
                ymm: narrow(w >> 2),
                ymm_xmm_below: (w >> 8) as u16,
                xmm_from: (w >> 24) as u8,
                zmm_fresh_below: (w >> 32) as u16,
            },
        }
    }
}

/// The table.
pub(crate) const GHASH: Table<GhashTuning> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Intel, 6, 106),
            value: GhashTuning {
                zmm: Narrow::Xmm,
                ymm: Narrow::Xmm,
                ymm_xmm_below: u16::MAX,
                xmm_from: 1,
                zmm_fresh_below: 256,
            },
            measured: "Intel Xeon Ice Lake (family 6 model 106), 2026-11-30, \
                       examples/ghash_sweep at 8a9d87e (fresh key per message), GHASH / \
                       POLYVAL ns, ymm kernel then xmm kernel: 16 B 23.1 / 20.9 then 22.5 / \
                       20.2, 64 B 42.0 / 37.9 then 40.4 / 36.5, 256 B 74.8 / 71.0 then 67.8 \
                       / 61.9; zmm kernel alone then xmm: 2 KiB 240 / 233 then 200 / 182, 3 \
                       KiB 290 / 280 then 274 / 251, 4 KiB 339 / 327 then 350 / 319, 5 KiB \
                       388 / 374 then 424 / 386, 8 KiB 537 / 515 then 647 / 590. \
                       vpclmulqdq ymm issues once per two cycles here, xmm once a cycle \
                       (peer-bench --isa-rates), so the ymm kernel never gains: the xmm \
                       kernel for every call a zmm or ymm key does not give the zmm kernel, \
                       the zmm kernel for a fresh key from 256 blocks (capped to avx2, \
                       scripts/cpu-pages.sh capped: xmm 0.228 cycles/byte at 16 KiB against \
                       the ymm kernel's 0.279)",
        },
        Entry {
            cores: Cores::Model(Vendor::Amd, 25, 1),
            value: GhashTuning {
                zmm: Narrow::Ymm,
                ymm: Narrow::Xmm,
                ymm_xmm_below: 64,
                xmm_from: 32,
                zmm_fresh_below: 128,
            },
            measured: "AMD EPYC Zen 3 (family 25 model 1), 2026-11-28, examples/ghash_sweep \
                       (fresh key per message, backends interleaved, fastest of 31 batches), \
                       GHASH ns, ymm / xmm kernel: 512 B 146.5 / 114.2, 768 B 166.3 / 146.4, \
                       1 KiB 183.6 / 178.5, 1 280 B 202.1 / 211.1, 2 KiB 261.0 / 307.3: the \
                       xmm kernel below 64 blocks (no AVX-512 here: zmm unused)",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Amd),
            value: GhashTuning {
                zmm: Narrow::Ymm,
                ymm: Narrow::None,
                ymm_xmm_below: 192,
                xmm_from: 32,
                zmm_fresh_below: 128,
            },
            measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --filter ghash: with the \
                   ymm kernel below 32 blocks and for the zmm groups' remainder, POLYVAL 64 B \
                   113 -> 92 ticks, 256 B 194 -> 156, 1 420 B 571 -> 517, GHASH 1 420 B \
                   601 -> 519 (the zmm kernel's xmm tails and 32 powers cost more than they \
                   save below 1.5 KiB); a fresh key's call on ymm below 128 blocks, GHASH with \
                   key setup 1 KiB 439 -> 412, 1 420 B 563 -> 530",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: GhashTuning {
            zmm: Narrow::Xmm,
            ymm: Narrow::Xmm,
            ymm_xmm_below: 192,
            xmm_from: 32,
            zmm_fresh_below: 128,
        },
        measured: "Intel Xeon (family 6 model 207), peer-bench --filter polyval, cycles with \
                   key setup, zmm / ymm / xmm kernel alone: 64 B 123 / 77 / 124, 1 KiB \
                   472 / 446 / 325, 2 KiB 571 / 594 / 529, 4 KiB 774 / 891 / 939; under \
                   FIELDWORK_MAX_ISA=avx2, ymm / xmm: 1 KiB 460 / 331, 2 KiB 609 / 540, \
                   4 KiB 917 / 957 (2026-11-25): the ymm kernel below 32 blocks, the xmm \
                   kernel for a fresh key's mid-length calls and the zmm groups' tails",
    },
};

/// The AArch64 PMULL backends' choices (`pmull`, `pmull-eor3`).
#[cfg(target_arch = "aarch64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PmullTuning {
    /// A fresh key's call of at most this many blocks runs Horner's rule
    /// on `H` alone (`pmull::neon::horner`: one R/F product and a
    /// one-`PMULL` reduction per block, no powers made); longer calls make
    /// `H²…H⁸` and run the aggregated groups.
    pub(crate) horner_blocks: usize,
}

#[cfg(target_arch = "aarch64")]
impl PmullTuning {
    /// This CPU's entry of [`PMULL`]: while the table names no core, its
    /// `otherwise` entry, a constant (no load in the call); else read once
    /// per process and cached (0: not read yet; else `0x100 |
    /// horner_blocks`).
    #[inline]
    pub(crate) fn this_cpu() -> PmullTuning {
        if PMULL.entries.is_empty() {
            return PMULL.otherwise.value;
        }
        static CACHED: core::sync::atomic::AtomicU16 = core::sync::atomic::AtomicU16::new(0);
        match CACHED.load(Ordering::Relaxed) {
            0 => {
                let t = PMULL.pick();
                let blocks = t.horner_blocks.min(0xff);
                CACHED.store(0x100 | blocks as u16, Ordering::Relaxed);
                PmullTuning {
                    horner_blocks: blocks,
                }
            }
            w => PmullTuning {
                horner_blocks: usize::from(w & 0xff),
            },
        }
    }
}

/// The AArch64 table. No ARM hardware has measured it: the one entry is
/// chosen by executed instructions under `qemu-aarch64 -cpu neoverse-n1`.
#[cfg(target_arch = "aarch64")]
pub(crate) const PMULL: Table<PmullTuning> = Table {
    entries: &[],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Arm),
        value: PmullTuning { horner_blocks: 16 },
        measured: "qemu-aarch64 -cpu neoverse-n1, executed instructions per call with key \
                   setup (scripts/aarch64-counts.py --group ghash), aggregated / Horner: \
                   POLYVAL 64 B 388 / 240, 256 B (16 blocks) 629 / 387, GHASH 64 B 408 / 258, \
                   256 B 665 / 429; Horner costs 11-12 a block against the aggregated path's \
                   9.4 after about 300 for the eight powers (even near 140 blocks): 16 keeps \
                   the latency-bound Horner chain short (2026-11-26, no hardware timing)",
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Core;

    /// The measured cores keep the choices the kernel variants made
    /// before the table (`vpclmulqdq-split` on AMD, the xmm kernel below 64
    /// blocks for a fresh ymm key on Zen 3, `vpclmulqdq-split-xmm` and
    /// `vpclmulqdq-ymm-fresh-xmm` below 192 on Intel and any other vendor).
    #[test]
    fn the_measured_cores_get_their_entries() {
        let amd = GhashTuning {
            zmm: Narrow::Ymm,
            ymm: Narrow::None,
            ymm_xmm_below: 192,
            xmm_from: 32,
            zmm_fresh_below: 128,
        };
        let zen3 = GhashTuning {
            zmm: Narrow::Ymm,
            ymm: Narrow::Xmm,
            ymm_xmm_below: 64,
            xmm_from: 32,
            zmm_fresh_below: 128,
        };
        let intel = GhashTuning {
            zmm: Narrow::Xmm,
            ymm: Narrow::Xmm,
            ymm_xmm_below: 192,
            xmm_from: 32,
            zmm_fresh_below: 128,
        };
        let icelake = GhashTuning {
            zmm: Narrow::Xmm,
            ymm: Narrow::Xmm,
            ymm_xmm_below: u16::MAX,
            xmm_from: 1,
            zmm_fresh_below: 256,
        };
        for (vendor, family, model, want) in [
            (Vendor::Intel, 6, 106, icelake),
            (Vendor::Amd, 25, 1, zen3),
            (Vendor::Amd, 25, 17, amd),
            (Vendor::Amd, 26, 2, amd),
            (Vendor::Intel, 6, 207, intel),
            (Vendor::Other, 0, 0, intel),
        ] {
            let core = Core {
                vendor,
                family,
                model,
            };
            assert_eq!(GHASH.entry_for(core).value, want, "{core:?}");
        }
        // The cached pick is this CPU's entry, read or not.
        assert_eq!(GhashTuning::this_cpu(), GHASH.pick());
        assert_eq!(GhashTuning::this_cpu(), GHASH.pick());
    }

    /// The PMULL pick is this CPU's entry (twice: the cache, when the
    /// table names cores, read or not), and fits the cache's byte.
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn the_pmull_pick_is_this_cpus_entry() {
        assert_eq!(PmullTuning::this_cpu(), PMULL.pick());
        assert_eq!(PmullTuning::this_cpu(), PMULL.pick());
        assert!(PMULL.pick().horner_blocks <= 0xff);
        for e in PMULL.entries.iter().chain([&PMULL.otherwise]) {
            assert!(e.value.horner_blocks <= 0xff, "{}", e.measured);
        }
    }
}
