//! ChaCha20-Poly1305's tuning table ([`crate::tuning`]): on a CPU whose
//! ChaCha20 runs on AVX-512, the lengths below which the `avx512` backend
//! runs the stitched AVX2 kernel (its scalar MAC hidden behind the rounds)
//! rather than two passes (AVX-512 ChaCha20, then the IFMA or AVX2
//! Poly1305). Picked once per process (cached) and held in each key; the
//! length of a message is public, and chooses per call.
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
    entries: &[Entry {
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
    }],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: Crossovers {
            seal_stitched_below: 320,
            open_stitched_below: 1024,
        },
        measured: "Intel Xeon (family 6 model 207), peer-bench --chachapoly-sweep --quick \
                   (2026-11-26): with block 0 in the zmm call of the first data blocks, two \
                   passes seal as fast as the stitched kernel at 288-319 B and faster from \
                   320 B (576 B in 0.70 of its time, 1.39x ring); when opening, two passes \
                   open 1 KiB in 0.75 of the stitched kernel's time and 576 B in 1.06 of it \
                   (measured with the stitched kernel compiled for AVX2; its AVX-512VL \
                   compilation, faster on Zen 4, is not measured there)",
    },
};

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
            (320, 1024)
        );
        assert_eq!(crossovers(), CHACHAPOLY.pick());
        assert_eq!(crossovers(), crossovers());
    }
}
