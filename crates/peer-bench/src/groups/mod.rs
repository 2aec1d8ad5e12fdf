//! The comparisons, one module per operation. Each builds its cases and
//! first checks that every implementation computes the same result as ours
//! on random inputs, so a table never compares different operations.

pub mod clmul64;
pub mod gf2x_mul;
pub mod sufan;

use crate::harness::Case;

/// A small seeded generator for benchmark inputs (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Builds a group's cases (after checking the peers agree with us).
pub type CaseBuilder = fn() -> Result<Vec<Case>, String>;

/// Every group's name and case builder, in report order.
pub const GROUPS: &[(&str, CaseBuilder)] = &[
    ("clmul64", clmul64::cases),
    ("gf2x_mul", gf2x_mul::cases),
    ("sufan", sufan::cases),
];
