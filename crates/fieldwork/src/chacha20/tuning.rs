//! ChaCha20's schedule choices, data rather than flags tested per block.
//!
//! [`NEON_BULK_BLOCKS`]: blocks per pass of the NEON bulk loop
//! (`chacha20/neon.rs`), 4 (one vertical group, 16 rows) or 8 (two
//! groups interleaved, 32 rows). **Not measured on hardware** (there is
//! no ARM machine here): chosen by the instruction count and the
//! dependency chains, see below and `docs/notes/chacha20.md`.
//!
//! The two forms run the same instructions a block in the rounds; 8
//! blocks add the stack traffic of the rows that do not fit in 32
//! registers (a few loads and stores a double round) and halve the
//! latency a block. A 4-block double round has four quarter-rounds in
//! flight, chains of 12 operations (about 28 cycles at 2-cycle latency):
//! 112 instructions in 56 cycles fill two vector pipes (Cortex-A76,
//! Neoverse N1) but only half of the four of Neoverse V1/V2 and Apple's
//! cores, the targets of issue 59; 8 blocks fill four. Hence 8.
#![forbid(unsafe_code)]

/// Blocks per pass of the NEON bulk loop: 4 or 8 (see the module docs).
pub(super) const NEON_BULK_BLOCKS: usize = 8;

const _: () = assert!(NEON_BULK_BLOCKS == 4 || NEON_BULK_BLOCKS == 8);
