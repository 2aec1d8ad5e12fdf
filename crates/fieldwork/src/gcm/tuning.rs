//! AES-GCM's tuning table ([`crate::tuning`]): the ymm kernel's GHASH
//! schedule, and the message length below which a key on a CPU with
//! AVX-512 runs the ymm kernel rather than the zmm one (the zmm kernel's
//! short-message path — byte-masked zmm loads and stores, its set-up —
//! costs more than the whole ymm kernel on short messages). Picked once
//! per key and held in it (`vaes256::Key`'s schedule, `vaes512::Key`'s
//! crossover); a test or benchmark forces another schedule by its hazmat
//! name (`vaes-avx2`, `vaes-avx2-karatsuba`, `vaes-avx512` for the zmm
//! kernel alone), which changes these values, never the kernels.
//!
//! On AArch64: `ARMV8_SHORT_MAX_TEXT_BLOCKS` (cfg aarch64), the `aes-pmull` backend's
//! crossover to its one-group short-message path (`gcm/armv8.rs`).
#![forbid(unsafe_code)]

use super::Schedule;
use crate::cpu::Vendor;
use crate::tuning::{Cores, Entry, Table};

/// The `aes-pmull` backend (`gcm/armv8.rs`): messages of at most this
/// many text blocks run no 8-block loop — `AES(K, J0)` encrypted with the
/// counter blocks in one or two interleaved calls (eight blocks, then the
/// rest with `J0`), and the ciphertext and the lengths block (with the
/// associated data when it fits) hashed as one aggregated group with one
/// reduction; the key holds this many powers and one more. 9 to 16
/// blocks have their own arms, so at most 16. Chosen by instruction
/// count, not measured in time on hardware: AES-128 seal of 144 B (9
/// blocks) runs 645 instructions on this path against ring's 943
/// (`scripts/aarch64-counts.py --cpu neoverse-n1 --group gcm128_encrypt`
/// with a 144 B size; history in `docs/notes/gcm.md`).
#[cfg(target_arch = "aarch64")]
pub(crate) const ARMV8_SHORT_MAX_TEXT_BLOCKS: usize = 16;
#[cfg(target_arch = "aarch64")]
const _: () = assert!(ARMV8_SHORT_MAX_TEXT_BLOCKS >= 8 && ARMV8_SHORT_MAX_TEXT_BLOCKS <= 16);

/// One core's choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GcmTuning {
    /// How the ymm kernel forms its GHASH products.
    pub(crate) schedule: Schedule,
    /// With AVX-512: messages (plaintext and associated data together)
    /// shorter than this run on the ymm kernel, for AES-128 keys (0: the
    /// zmm kernel for every length, and no ymm key is made).
    pub(crate) narrow_below_aes128: usize,
    /// The same for AES-192 and AES-256 keys.
    pub(crate) narrow_below_aes256: usize,
}

impl GcmTuning {
    /// The crossover for a key of `key_len` bytes.
    pub(crate) fn narrow_below(self, key_len: usize) -> usize {
        if key_len == 16 {
            self.narrow_below_aes128
        } else {
            self.narrow_below_aes256
        }
    }

    /// These choices with the zmm kernel for every length (the hazmat
    /// name `vaes-avx512`).
    pub(crate) fn zmm_only(self) -> GcmTuning {
        GcmTuning {
            narrow_below_aes128: 0,
            narrow_below_aes256: 0,
            ..self
        }
    }
}

/// The table.
pub(crate) const GCM: Table<GcmTuning> = Table {
    entries: &[
        Entry {
            cores: Cores::Model(Vendor::Intel, 6, 106),
            value: GcmTuning {
                schedule: Schedule::Karatsuba,
                narrow_below_aes128: 160,
                narrow_below_aes256: 160,
            },
            measured: "Intel Xeon Ice Lake (family 6 model 106), scripts/cpu-pages.sh capped \
                       at 8a9d87e (FIELDWORK_MAX_ISA=avx2, --passes 3), AES-128-GCM sealing, \
                       cycles/byte schoolbook / Karatsuba: 1 KiB 0.515 / 0.488, 16 KiB 0.381 / \
                       0.343, 1 MiB 0.389 / 0.348, GMAC over 16 KiB 0.316 / 0.263 (16-256 B \
                       within 1-4 %, schoolbook ahead): vpclmulqdq ymm issues once per two \
                       cycles here (peer-bench --isa-rates), as on Zen 3, so the product \
                       count rules; the zmm crossover is the other Intel core's, the native \
                       page showing the ymm kernel ahead at 16-64 B and level at 256 B",
        },
        Entry {
            cores: Cores::Family(Vendor::Amd, 26),
            value: GcmTuning {
                schedule: Schedule::Karatsuba,
                narrow_below_aes128: 1024,
                narrow_below_aes256: 1024,
            },
            measured: "AMD EPYC Zen 5 (family 26 model 2), cargo run --release -p peer-bench \
                       --features system-peers,xs233 -- --passes 3 at 308a4d5 (issue 60): \
                       AES-256-GCM at 1 KiB ran the ymm kernel at 0.517 cycles/byte where the \
                       zmm kernel takes 0.378, so AES-256's crossover comes down from Zen 4's \
                       1.5 KiB to 1 KiB; below 1 KiB and the schedule are Zen 4's, not yet \
                       re-measured on Zen 5",
        },
        Entry {
            cores: Cores::Vendor(Vendor::Amd),
            value: GcmTuning {
                schedule: Schedule::Karatsuba,
                narrow_below_aes128: 1024,
                narrow_below_aes256: 1536,
            },
            measured: "AMD EPYC Zen 4 (family 25 model 17), peer-bench --filter gcm, columns \
                       vaes-avx512 and vaes-avx2-karatsuba: AES-128-GCM sealing 16 B 299 cycles \
                       on zmm against 181 on ymm, 256 B 329 against 269, zmm ahead from 1 KiB \
                       (AES-128) or 1.5 KiB (AES-256); Karatsuba products on ymm since Zen 3 \
                       (family 25 model 1) issues vpclmulqdq once per two cycles and has \
                       shuffles to spare",
        },
    ],
    otherwise: Entry {
        cores: Cores::Vendor(Vendor::Intel),
        value: GcmTuning {
            schedule: Schedule::Schoolbook,
            narrow_below_aes128: 160,
            narrow_below_aes256: 160,
        },
        measured: "Intel Xeon (family 6 model 207), peer-bench --filter gcm: the ymm kernel \
                   ahead by less and for less long: 16 B 161 against 183 cycles (decryption \
                   151 against 181), 64 B 167 against 183, level for sealing at 256 B where \
                   the zmm kernel opens 14 % faster, so the crossover lies between 77 and 269 \
                   bytes; schoolbook products, vpclmulqdq sharing its port with Karatsuba's \
                   shuffles",
    },
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Core;

    fn on(vendor: Vendor, family: u32, model: u32) -> GcmTuning {
        GCM.entry_for(Core {
            vendor,
            family,
            model,
        })
        .value
    }

    #[test]
    fn the_measured_cores_get_their_entries() {
        let zen4 = on(Vendor::Amd, 25, 17);
        assert_eq!(zen4.schedule, Schedule::Karatsuba);
        assert_eq!((zen4.narrow_below(16), zen4.narrow_below(32)), (1024, 1536));
        let zen5 = on(Vendor::Amd, 26, 2);
        assert_eq!(zen5.narrow_below(32), 1024);
        // AES-256 at 1 KiB takes the zmm kernel on Zen 5 (issue 60).
        assert!(1024 >= zen5.narrow_below(32));
        let icelake = on(Vendor::Intel, 6, 106);
        assert_eq!(icelake.schedule, Schedule::Karatsuba);
        let xeon = on(Vendor::Intel, 6, 207);
        assert_eq!(xeon.schedule, Schedule::Schoolbook);
        assert_eq!((xeon.narrow_below(16), xeon.narrow_below(24)), (160, 160));
        // `vaes-avx512`: the zmm kernel for every length, the schedule kept.
        let zmm = zen4.zmm_only();
        assert_eq!((zmm.narrow_below(16), zmm.narrow_below(32)), (0, 0));
        assert_eq!(zmm.schedule, Schedule::Karatsuba);
    }
}
