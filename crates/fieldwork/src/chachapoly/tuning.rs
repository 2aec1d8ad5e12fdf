//! ChaCha20-Poly1305's tuning tables ([`crate::tuning`]): on a CPU whose
//! ChaCha20 runs on AVX-512, the lengths below which the `avx512` backend
//! runs the stitched AVX2 kernel (its scalar MAC hidden behind the rounds)
//! rather than two passes (AVX-512 ChaCha20, then the IFMA or AVX2
//! Poly1305), picked once per process (cached) and held in each key; and
//! the stitched kernel's shapes for sealing 65–256 bytes ([`ShortSeal`]),
//! 257–320 bytes ([`MidSeal`]) and the head of longer texts ([`LongHead`]),
//! picked when a key is made and held in its backend. The length of a
//! message is public, and chooses per call.
#![forbid(unsafe_code)]

use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};

/// One core's crossovers, in bytes of plaintext or ciphertext.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Crossovers {
    /// Sealing: stitched below this length.
    pub(crate) seal_stitched_below: u32,
    /// Opening (the MAC runs first): stitched below this length.
    pub(crate) open_stitched_below: u32,
}

/// The table.
pub(crate) const CHACHAPOLY: Table<Crossovers> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Intel, 6, 106),
            value: Crossovers {
                seal_stitched_below: 336,
                open_stitched_below: 1024,
            },
            measured: "Intel Xeon Ice Lake (family 6 model 106), scripts/cpu-pages.sh \
                       chachapoly at 8a9d87e (peer-bench --chachapoly-sweep --passes 3): \
                       sealing, two passes take 1.24 of the stitched kernel's time at \
                       256-319 B, 0.99 at 320-383 B (faster at 69 % of the lengths), 0.96 at \
                       384-447 B, 0.82 at 512-575 B (the sum over 64-2048 B is least with the \
                       crossover at 336 B); opening, 1.06 at 960-1023 B and 0.87 from 1024 B \
                       (least at 1024 B, as on the other Intel core)",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Amd),
            value: Crossovers {
                seal_stitched_below: 576,
                open_stitched_below: 2048,
            },
            measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --chachapoly-sweep \
                   --passes 3 (2026-11-28, the stitched kernel compiled with AVX-512VL and \
                   its frames wiped): sealing, the stitched kernel takes 0.95-0.99 of two \
                   passes' time at 528-575 B and 1.04-1.06 from 576 B (the sum over \
                   64-2048 B is least with the crossover at 576 B); opening, it keeps its \
                   lead to 2 KiB (0.92 of two passes' time at 1984-2047 B, 1.06 from \
                   2048 B). Zen 5 (family 26) shares the entry, not measured there (its \
                   full-width zmm should favour two passes more)",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: Crossovers {
            seal_stitched_below: 544,
            open_stitched_below: 1024,
        },
        measured: "Intel Xeon (family 6 model 207), peer-bench --chachapoly-sweep --passes 3 \
                   (2026-11-30, the stitched kernel compiled with AVX-512VL, its wipes \
                   aligned): sealing, two passes take 1.22-1.49 of the stitched kernel's \
                   time below 320 B and 1.01-1.36 at 320-528 B, level at 529-544 B, \
                   0.65-1.00 from 545 B (the sum over 64-2048 B is least with the crossover \
                   at 536-544 B; at 320 the default sealed at 0.89x ring, the sweep's one \
                   loss); opening, two passes take 0.85 of its time at 1 KiB, level at \
                   1025-1055 B, faster from 1056 B",
    },
};

/// On a CPU whose ChaCha20 runs on AVX2 (no AVX-512, or capped to
/// `avx2`): where two passes (the AVX2 ChaCha20, then the AVX2 Poly1305)
/// overtake the stitched kernel on long messages, the crossovers of the
/// `avx2` backend; elsewhere none, and the stitched kernel takes every
/// length (`avx2-stitched`).
pub(crate) const CHACHAPOLY_AVX2: Table<Option<Crossovers>> = Table {
    entries: &[Entry {
        cores: Cores::Model(Vendor::Intel, 6, 106),
        value: Some(Crossovers {
            seal_stitched_below: 1696,
            open_stitched_below: 2048,
        }),
        measured: "Intel Xeon Ice Lake (family 6 model 106), FIELDWORK_MAX_ISA=avx2, \
                   scripts/cpu-pages.sh chachapoly-capped at 8a9d87e (peer-bench \
                   --chachapoly-sweep --passes 3): sealing, two passes take 1.24-1.32 of the \
                   stitched kernel's time below 576 B, 1.05-1.10 at 704-1215 B, 0.96-1.03 by tail \
                   from 1216 B (the sum over 64-2048 B least with the crossover at 1696 B, 0.4 % \
                   below the stitched kernel alone); the page at 16 KiB and 64 KiB 0.90 and 0.89; \
                   opening, 1.04-1.55 up to 2 KiB, then examples/chachapoly_sweep open: 2 KiB \
                   0.99, 3 KiB 0.96, 4 KiB 0.94, 8 KiB 0.91, 16 KiB 0.90. The AVX2 ChaCha20 (1.14 \
                   cycles/byte) and Poly1305 (0.42) apart sum to less than the stitched kernel's \
                   1.81, likely because the scalar MAC has one ALU port of its own here (port 6; \
                   the vector rounds take 0, 1 and 5), where the Xeon f6m207 has two (6 and 10)",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: None,
        measured: "Intel Xeon (family 6 model 207), Zen 3 (family 25 model 1) and Zen 4 \
                   under FIELDWORK_MAX_ISA=avx2, peer-bench --chachapoly-sweep: the stitched \
                   kernel ahead of two passes at every length, 7-30 % (docs/notes/chachapoly.md)",
    },
};

/// How the stitched x86-64 kernel seals 257–320 bytes: one kernel call
/// of three two-block states either way, then the MAC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MidSeal {
    /// The states from block 1, block 0 (the Poly1305 key) computed on the
    /// integer unit between their double rounds.
    ScalarBlock0,
    /// The states from block 0: nothing beside the vector call.
    VectorBlock0,
}

/// The stitched kernel's head for sealing more than 320 bytes: blocks 0 to
/// 5 from three states, then (from 705 bytes) 6 to 11 from three more
/// MACing the first 320 bytes (704 bytes in all; the MAC starts one
/// 8-block call earlier), or blocks 0 to 7 from the 8-block kernel (448
/// bytes), by the tail that either leaves after the 512-byte groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LongHead {
    /// The 8-block head where the 704-byte head would leave a tail of
    /// 256–511 bytes after one or more groups.
    TwoCalls,
    /// The 8-block head also at 960–1 215 bytes (a tail of 256–511 bytes
    /// and no group).
    EightBlocks,
    /// The 8-block head from 577 bytes, except where the 704-byte head
    /// would leave a tail of 128–255 bytes.
    EightBlocksExceptMidTails,
}

/// The stitched kernel's head for sealing more than 320 bytes, by core.
pub(crate) const LONG_HEAD: Table<LongHead> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Amd, 25, 1),
            value: LongHead::TwoCalls,
            measured: "AMD EPYC Zen 3 (family 25 model 1), scripts/ab-time.sh on \
                   examples/chachapoly_one (2026-11-29): 1 KiB 3-7 % faster in four \
                   alternated runs; two pairs of sweeps, the 960-1 215 B band against the \
                   best peer 0.980 -> 1.014 and 1.015 -> 1.030",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Amd),
            value: LongHead::EightBlocks,
            measured: "AMD cores after Zen 3: the shape Zen 4 (family 25 model 17) was \
                   tuned with (the 8-block head at 960-1 215 B, measured on the Xeon); the \
                   Xeon's further lengths not measured there, Zen 5 not measured",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: LongHead::EightBlocksExceptMidTails,
        measured: "Intel Xeon (family 6 model 207), FIELDWORK_MAX_ISA=avx2, scripts/ab-time.sh \
                   on examples/chachapoly_one: at 960-1 215 B (10 alternated runs, \
                   2026-11-29) the two-call head 4-7 % slower (980 B 0.794 against 0.762 \
                   us, 1 024 B 0.793 / 0.763, 1 100 B 0.889 / 0.833, 1 200 B 0.910 / \
                   0.850); elsewhere (8 alternated runs, 2026-11-30) the 8-block head 600 B \
                   0.551 -> 0.513 us, 680 B 0.580 -> 0.543, 720 B 0.611 -> 0.601, 1 250 B \
                   0.921 -> 0.897, 1 320 B 0.938 -> 0.916, 1 780 B 1.184 -> 1.164, but with a \
                   tail of 128-255 B after 704 B and the groups 900 B 0.694 -> 0.707, 1 400 \
                   B 0.988 -> 0.997, 1 500 B 1.003 -> 1.012 (kept on 704 B)",
    },
};

/// How the stitched x86-64 kernel seals 65–256 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShortSeal {
    /// The states from block 1 (one for 65–128 bytes, two for 129–256),
    /// block 0 computed on the integer unit between their double rounds.
    ScalarBlock0,
    /// 65–192 bytes on two states from block 0 (nothing beside the vector
    /// call); 193–256 bytes as [`ShortSeal::ScalarBlock0`].
    VectorBlock0To192,
    /// 65–192 bytes on two states from block 0, 193–256 bytes on three.
    VectorBlock0,
}

/// [`SHORT_SEAL`]'s value: one shape per compilation of the stitched
/// kernel (16 or 32 ymm registers: three states spill on 16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ShortSeals {
    /// The AVX2 compilation (`avx2-stitched`).
    pub(crate) ymm16: ShortSeal,
    /// The AVX-512VL compilation (`avx512-stitched`, `avx512` below its
    /// crossovers).
    pub(crate) ymm32: ShortSeal,
}

/// The stitched kernel's shape for 65–256 bytes sealed, by core.
pub(crate) const SHORT_SEAL: Table<ShortSeals> = Table {
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: ShortSeals {
            ymm16: ShortSeal::VectorBlock0To192,
            ymm32: ShortSeal::VectorBlock0,
        },
        measured: "Intel Xeon (family 6 model 207), scripts/ab-time.sh on \
                   examples/chachapoly_one, 8-10 alternated runs (2026-11-30), us, block 0 \
                   on the integer unit -> in the vector call: FIELDWORK_MAX_ISA=avx2 100 B \
                   0.227 -> 0.216, 128 B 0.233 -> 0.223, 160 B 0.270 -> 0.236, 190 B 0.283 \
                   -> 0.246, three states 193 B 0.287 -> 0.295, 224 B 0.288 -> 0.298, 256 B \
                   0.303 -> 0.311 (not taken); native (the AVX-512VL compilation) 100 B \
                   0.220 -> 0.217, 128 B 0.215 -> 0.193, 160 B 0.251 -> 0.209, 190 B 0.266 \
                   -> 0.216, 200 B 0.271 -> 0.256, 250 B 0.293 -> 0.277",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: ShortSeals {
            ymm16: ShortSeal::ScalarBlock0,
            ymm32: ShortSeal::ScalarBlock0,
        },
        measured: "not measured on AMD cores: the shape they were tuned with (Zen 4 takes \
                   block 0 on the integer unit at 257-320 B too, Zen 3 does not)",
    },
};

/// How the stitched x86-64 kernel opens 129–192 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShortOpen {
    /// Two states from block 1, block 0 on the integer unit between their
    /// double rounds (as at 193–256 bytes).
    ScalarBlock0,
    /// Two states from block 0 (as at 257–320 bytes on three).
    VectorBlock0To192,
}

/// The stitched kernel's shape for 129–192 bytes opened, by core.
pub(crate) const SHORT_OPEN: Table<ShortOpen> = Table {
    entries: &[Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: ShortOpen::VectorBlock0To192,
        measured: "Intel Xeon (family 6 model 207), scripts/ab-time.sh on \
                   examples/chachapoly_one LEN ITERS open, 6 alternated runs (2026-11-30), \
                   us, block 0 on the integer unit -> in the vector call: \
                   FIELDWORK_MAX_ISA=avx2 160 B 0.262 -> 0.246, 190 B 0.284 -> 0.275; \
                   native 160 B 0.242 -> 0.220, 190 B 0.264 -> 0.248. Not taken: 100 B \
                   (one state more: avx2 0.223 -> 0.239), 193-256 B (three states: avx2 \
                   220 B 0.293 -> 0.315, native 250 B 0.291 -> 0.305)",
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Amd),
        value: ShortOpen::ScalarBlock0,
        measured: "not measured on AMD cores: the shape they were tuned with",
    },
};

/// The stitched kernel's shapes for this core: held by the backend,
/// picked when the key is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StitchedShapes {
    /// 65–256 bytes ([`SHORT_SEAL`], for the backend's compilation).
    pub(crate) short: ShortSeal,
    /// 257–320 bytes ([`MID_SEAL`]).
    pub(crate) mid: MidSeal,
    /// The head from 321 bytes ([`LONG_HEAD`]).
    pub(crate) head: LongHead,
    /// 129–192 bytes opened ([`SHORT_OPEN`]).
    pub(crate) open: ShortOpen,
}

impl StitchedShapes {
    /// This core's shapes for the stitched kernel's AVX2 compilation
    /// (`wide`: its AVX-512VL one).
    pub(crate) fn pick(wide: bool) -> StitchedShapes {
        let short = SHORT_SEAL.pick();
        StitchedShapes {
            short: if wide { short.ymm32 } else { short.ymm16 },
            mid: MID_SEAL.pick(),
            head: LONG_HEAD.pick(),
            open: SHORT_OPEN.pick(),
        }
    }
}

/// The stitched kernel's shape for 257–320 bytes sealed, by core.
pub(crate) const MID_SEAL: Table<MidSeal> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Amd, 25, 1),
            value: MidSeal::VectorBlock0,
            measured: "AMD EPYC Zen 3 (family 25 model 1), one peer-bench build choosing \
                   either shape, peer-bench --chachapoly-sweep --passes 3 (2026-11-29): \
                   257-288 B at 0.984 of the best peer's time against 0.919, 289-320 B 0.977 \
                   against 0.909, the other lengths within the runs' noise; \
                   scripts/ab-time.sh on examples/chachapoly_one, 8 alternated runs: 260 B \
                   0.306 against 0.322 us, 288 B 0.303 against 0.312, 316 B 0.313 against \
                   0.337 (calls back to back: block 0's scalar rounds share the integer \
                   unit with the previous call's MAC)",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Intel),
            value: MidSeal::VectorBlock0,
            measured: "Intel Xeon (family 6 model 207), one build per shape, scripts/ab-time.sh on \
                   examples/chachapoly_one, 12 alternated runs (2026-11-29): native (the zmm \
                   shape) 260 B 0.323 -> 0.282 us, 288 B 0.324 -> 0.295, 320 B level (0.399 \
                   against 0.400); FIELDWORK_MAX_ISA=avx2 260 B 0.361 -> 0.331, 288 B 0.383 \
                   -> 0.344, 320 B 0.387 -> 0.355; 576 B level in both",
        },
    ],
    otherwise: Entry {
        cores: Cores::Model(Vendor::Amd, 25, 17),
        value: MidSeal::ScalarBlock0,
        measured: "AMD EPYC Zen 4 (family 25 model 17), a scratch loop over the public API \
                   (minimum of 200 x 50 seals, both binaries alternated three times, \
                   2026-11-27, the AVX2 compilation): 260 B 872-883 -> 820-852 cycles, \
                   288 B 883 -> 834-848, 320 B 917-925 -> 864-873 with block 0 on the \
                   integer unit. Zen 5 takes it unmeasured",
    },
};

/// [`CHACHAPOLY_AVX2`] for this CPU (picked once).
pub(crate) fn crossovers_avx2() -> Option<Crossovers> {
    static PICKED: crate::tuning::Picked = crate::tuning::Picked::new();
    CHACHAPOLY_AVX2.pick_cached(&PICKED)
}

/// [`CHACHAPOLY`] for this CPU, picked once.
pub(crate) fn crossovers() -> Crossovers {
    use core::sync::atomic::{AtomicU64, Ordering};
    // 0: not picked yet; else 1 << 63 | open << 32 | seal.
    static PICKED: AtomicU64 = AtomicU64::new(0);
    match PICKED.load(Ordering::Relaxed) {
        0 => {
            let c = CHACHAPOLY.pick();
            let packed = (1 << 63)
                | (u64::from(c.open_stitched_below) << 32)
                | u64::from(c.seal_stitched_below);
            PICKED.store(packed, Ordering::Relaxed);
            c
        }
        // The fields stored above, each below 2^31.
        p => Crossovers {
            seal_stitched_below: p as u32,
            open_stitched_below: ((p >> 32) as u32) & 0x7fff_ffff,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Core;

    #[test]
    fn the_measured_cores_get_their_entries_and_the_cache_agrees() {
        let zen4 = CHACHAPOLY
            .entry_for(Core {
                vendor: Vendor::Amd,
                family: 25,
                model: 17,
            })
            .value;
        assert_eq!(
            (zen4.seal_stitched_below, zen4.open_stitched_below),
            (576, 2048)
        );
        let xeon = CHACHAPOLY
            .entry_for(Core {
                vendor: Vendor::Intel,
                family: 6,
                model: 207,
            })
            .value;
        assert_eq!(
            (xeon.seal_stitched_below, xeon.open_stitched_below),
            (544, 1024)
        );
        let intel = |model| Core {
            vendor: Vendor::Intel,
            family: 6,
            model,
        };
        let icelake = CHACHAPOLY.entry_for(intel(106)).value;
        assert_eq!(
            (icelake.seal_stitched_below, icelake.open_stitched_below),
            (336, 1024)
        );
        // The AVX2 crossovers: Ice Lake's, none elsewhere.
        let avx2 = CHACHAPOLY_AVX2.entry_for(intel(106)).value;
        assert_eq!(
            avx2.map(|c| (c.seal_stitched_below, c.open_stitched_below)),
            Some((1696, 2048))
        );
        for other in [
            intel(207),
            Core {
                vendor: Vendor::Amd,
                family: 25,
                model: 1,
            },
        ] {
            assert_eq!(CHACHAPOLY_AVX2.entry_for(other).value, None);
        }
        assert_eq!(crossovers_avx2(), CHACHAPOLY_AVX2.pick());
        assert_eq!(crossovers_avx2(), CHACHAPOLY_AVX2.pick());
        let core = |family, model| Core {
            vendor: Vendor::Amd,
            family,
            model,
        };
        assert_eq!(MID_SEAL.entry_for(core(25, 1)).value, MidSeal::VectorBlock0);
        assert_eq!(
            MID_SEAL.entry_for(core(25, 17)).value,
            MidSeal::ScalarBlock0
        );
        assert_eq!(
            MID_SEAL
                .entry_for(Core {
                    vendor: Vendor::Intel,
                    family: 6,
                    model: 207,
                })
                .value,
            MidSeal::VectorBlock0
        );
        let xeon_short = SHORT_SEAL
            .entry_for(Core {
                vendor: Vendor::Intel,
                family: 6,
                model: 207,
            })
            .value;
        assert_eq!(
            (xeon_short.ymm16, xeon_short.ymm32),
            (ShortSeal::VectorBlock0To192, ShortSeal::VectorBlock0)
        );
        for amd in [core(25, 1), core(25, 17), core(26, 2)] {
            let short = SHORT_SEAL.entry_for(amd).value;
            assert_eq!(
                (short.ymm16, short.ymm32),
                (ShortSeal::ScalarBlock0, ShortSeal::ScalarBlock0)
            );
        }
        assert_eq!(
            SHORT_OPEN.entry_for(core(25, 1)).value,
            ShortOpen::ScalarBlock0
        );
        assert_eq!(
            SHORT_OPEN
                .entry_for(Core {
                    vendor: Vendor::Intel,
                    family: 6,
                    model: 207,
                })
                .value,
            ShortOpen::VectorBlock0To192
        );
        let short = SHORT_SEAL.pick();
        assert_eq!(StitchedShapes::pick(false).short, short.ymm16);
        assert_eq!(StitchedShapes::pick(true).short, short.ymm32);
        assert_eq!(LONG_HEAD.entry_for(core(25, 1)).value, LongHead::TwoCalls);
        assert_eq!(
            LONG_HEAD.entry_for(core(25, 17)).value,
            LongHead::EightBlocks
        );
        assert_eq!(
            LONG_HEAD.entry_for(core(26, 2)).value,
            LongHead::EightBlocks
        );
        assert_eq!(
            LONG_HEAD
                .entry_for(Core {
                    vendor: Vendor::Intel,
                    family: 6,
                    model: 207,
                })
                .value,
            LongHead::EightBlocksExceptMidTails
        );
        assert_eq!(crossovers(), CHACHAPOLY.pick());
        assert_eq!(crossovers(), crossovers());
    }
}
