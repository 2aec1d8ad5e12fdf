//! ChaCha20's schedule choices, data rather than flags tested per block.
//!
//! [`NEON_BULK_BLOCKS`]: blocks per pass of the NEON bulk loop
//! (`chacha20/neon.rs`), 4 (one vertical group, 16 rows) or 8 (two
//! groups interleaved, 32 rows). **Not measured on hardware** (there is
//! no ARM machine here): chosen by the instruction count and the
//! dependency chains, see below and `docs/notes/chacha20.md`.
//!
//! The two forms need the same vector operations a block in the rounds,
//! but the 8-block one does not fit: its 32 rows, the `tbl` mask and the
//! temporaries exceed the 32 registers, and rustc 1.96 compiles its double
//! round to 290 instructions for 8 blocks (57 of them stack loads and
//! stores, 7 moves) against 114 for 4 blocks with no stack access:
//! 36.3 against 28.5 a block. Whole passes, from the disassembly of
//! `xor_neon`: 8 blocks 3 165 instructions (396 a block, 6.2 a byte), 4
//! blocks 1 256 (314 a block, 4.9 a byte). The 8-block form halves the
//! latency a block (four quarter-rounds in flight in a 4-block double
//! round, chains of 12 operations, fill two vector pipes, not the four of
//! Neoverse V1/V2 or Apple's cores), which might still pay on those cores
//! despite the spills; by the instruction count, issue 59's measure
//! under emulation, 4 wins. Hence 4.
#![forbid(unsafe_code)]

/// Blocks per pass of the NEON bulk loop: 4 or 8 (see the module docs).
pub(super) const NEON_BULK_BLOCKS: usize = 4;

const _: () = assert!(NEON_BULK_BLOCKS == 4 || NEON_BULK_BLOCKS == 8);
