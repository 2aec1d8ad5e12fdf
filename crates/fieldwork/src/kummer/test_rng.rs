//! The seeded generator of the Kummer unit tests (SplitMix64, through
//! [`crate::test_util::splitmix64`]): reproducible scalars, bytes and
//! field elements, shared by every backend file's tests.

use super::field::{Fe, P};

/// SplitMix64, seeded: reproducible test inputs.
pub(super) struct Rng(u64);

impl Rng {
    /// The generator seeded with `seed`.
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub(super) fn next_u64(&mut self) -> u64 {
        crate::test_util::splitmix64(&mut self.0)
    }

    /// Below `n`.
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// `N` bytes, each the low byte of one output.
    pub(super) fn bytes<const N: usize>(&mut self) -> [u8; N] {
        core::array::from_fn(|_| self.next_u64() as u8)
    }

    /// A random 32-byte scalar.
    pub(super) fn scalar(&mut self) -> [u8; 32] {
        self.bytes()
    }

    /// 128 random bits (high word first), reduced.
    pub(super) fn fe(&mut self) -> Fe {
        let x = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        Fe::from_bytes(&x.to_le_bytes())
    }

    /// A reduced element: an edge value one time in four, all ones reduced
    /// (0) one time in four, else [`Rng::fe`].
    pub(super) fn fe_or_edge(&mut self) -> Fe {
        match self.below(4) {
            0 => EDGES[self.below(EDGES.len() as u64) as usize],
            1 => Fe::from_bytes(&[0xff; 16]), // all ones, reduced: 0
            _ => self.fe(),
        }
    }

    /// Three ratios of [`Rng::fe_or_edge`].
    pub(super) fn ratios(&mut self) -> [Fe; 3] {
        [self.fe_or_edge(), self.fe_or_edge(), self.fe_or_edge()]
    }
}

/// Field elements at the ends of the ranges the backends' limbs and
/// reductions treat specially.
pub(super) const EDGES: [Fe; 9] = [
    Fe(0),
    Fe(1),
    Fe(2),
    Fe(P - 1),
    Fe(P - 2),
    Fe(1 << 126),
    Fe((1 << 126) - 1),
    Fe(1 << 64),
    Fe((1 << 43) - 1),
];
