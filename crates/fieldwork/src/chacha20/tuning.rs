//! ChaCha20's schedule choices, data rather than flags tested per block.
//!
//! [`NEON_BULK_BLOCKS`]: blocks per pass of the NEON bulk loop
//! (`chacha20/neon.rs`): 4 (one vertical group, 16 rows), 5 ("4+1": the
//! vertical group and a fifth block in general registers, issued
//! together) or 8 (two vertical groups interleaved, 32 rows). **Not
//! measured on hardware** (there is no ARM machine here): chosen by issue
//! 59's two measures, the instructions executed under qemu and llvm-mca's
//! static estimate of the loop on Neoverse N1, which disagree.
//!
//! | pass | double round: insns | llvm-mca-19 N1, cycles a 64 B block | 16 KiB insns (chachapoly seal) |
//! |---|---:|---:|---:|
//! | 4 | 114 | 160 (`ushr`+`sli` rotations; 190 with `shl`+`usra`) | 80 582 (112 922) |
//! | 4+1 | 210 | 120 | 117 874 (150 326) |
//! | 8 | 290 (57 of them stack accesses) | — | 396 insns a block |
//! | peers | OpenSSL `ChaCha20_neon` (4+1) 210 | 128 | RustCrypto 113 556 (ring 115 040) |
//!
//! The 4-block double round is latency-bound (64 cycles: two passes of
//! quarter-round chains of 14 operations at 2 cycles, the rotations by 12
//! and 7 on the one shift pipe V1) while the three integer pipes idle;
//! 4+1 runs a fifth block there in the same 60 to 64 cycles (96 scalar
//! `add`/`eor`/`ror`), but the scalar block costs 96 instructions a
//! double round against 28.5 for a vector block: +46 % instructions at
//! 16 KiB, above RustCrypto's ChaCha20 and ring's and aws-lc's AEAD, so
//! under the count (the measure of the emulated page) 4 is the default.
//! On a real N1-class core the estimate favours 4+1 by a quarter (120
//! against 160 cycles a block): set 5 there once timed on hardware. The
//! 8-block form halves the latency a block but spills (32 rows, the `tbl`
//! mask and temporaries exceed the 32 registers): 396 instructions a
//! block against 314. All three are compiled and tested
//! (`neon.rs`'s `bulk_schedules_match_portable`).
#![forbid(unsafe_code)]

/// Blocks per pass of the NEON bulk loop: 4, 5 (4+1) or 8 (see the module
/// docs).
pub(super) const NEON_BULK_BLOCKS: usize = 4;

const _: () = assert!(matches!(NEON_BULK_BLOCKS, 4 | 5 | 8));
