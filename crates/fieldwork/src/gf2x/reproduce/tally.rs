//! Counting word additions (feature `reproduce`, with `std`): a [`Tally`]
//! word counts the XORs a compiler cannot fold away, so a formula run on
//! tallies reports its additions. Used by `counts` (the paper's printed
//! figures) and by `sufan`'s tests (the kernels' own counts).
#![forbid(unsafe_code)]

use crate::gf2x::formulas::{Digit, DigitMul};
use crate::gf2x::portable::PortableWord;
use core::cell::Cell;
use core::ops::{BitXor, BitXorAssign};

std::thread_local! {
    static XORS: Cell<usize> = const { Cell::new(0) };
}

/// Runs `f` and returns its result with the word additions ([`Tally`]
/// XORs) it performed on this thread.
pub(crate) fn counting<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let before = XORS.with(Cell::get);
    let r = f();
    (r, XORS.with(Cell::get) - before)
}

/// A word that counts the additions a compiler cannot fold away: XOR with
/// a known zero (a `ZERO` constant, the padding of a short piece) is free,
/// as it is after constant folding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tally {
    /// The word's value (so the result can be checked).
    pub(crate) value: u64,
    /// Structurally zero (never added to).
    pub(crate) known_zero: bool,
}

impl Tally {
    /// A word that is not a known zero.
    pub(crate) fn word(value: u64) -> Tally {
        Tally {
            value,
            known_zero: false,
        }
    }
}

impl BitXor for Tally {
    type Output = Tally;
    // The `+` counts the addition; the XOR is below.
    #[allow(clippy::suspicious_arithmetic_impl)]
    fn bitxor(self, o: Tally) -> Tally {
        if self.known_zero {
            return o;
        }
        if o.known_zero {
            return self;
        }
        XORS.with(|n| n.set(n.get() + 1));
        Tally::word(self.value ^ o.value)
    }
}

impl BitXorAssign for Tally {
    fn bitxor_assign(&mut self, o: Tally) {
        *self = *self ^ o;
    }
}

impl Digit for Tally {
    const ZERO: Tally = Tally {
        value: 0,
        known_zero: true,
    };
}

/// The word product on [`Tally`] words (not counted: products are counted
/// apart).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TallyMul;

impl DigitMul<Tally> for TallyMul {
    fn mul(self, a: Tally, b: Tally) -> [Tally; 2] {
        PortableWord.mul(a.value, b.value).map(Tally::word)
    }
}
