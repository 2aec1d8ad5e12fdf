//! Binary polynomials: arithmetic in GF(2)\[x\].
//!
//! A polynomial over GF(2) is a bit string: the coefficient of x^i is bit i.
//! Addition is XOR; multiplication is *carry-less* multiplication, the
//! schoolbook product with XOR in place of addition. Everything else in
//! fieldwork's binary side — the fields GF(2^m), GHASH and POLYVAL — is built
//! on the products computed here.
//!
//! # Representation
//!
//! Words are `u64`, word 0 lowest: bit `i` of word `j` is the coefficient of
//! x^(64j+i). This is the layout of gf2x and of NTL's `GF2X`, so data moves
//! across without conversion.
//!
//! # What is here
//!
//! | item | what it computes |
//! |---|---|
//! | [`clmul64`] | the 128-bit product of two 64-bit polynomials |
//! | [`Clmul64`] | the same, with the backend chosen once (for loops) |
//!
//! # Backends
//!
//! | backend | needs | method |
//! |---|---|---|
//! | `pclmulqdq` | PCLMULQDQ, SSE4.1 | one `pclmulqdq` |
//! | `portable` | nothing | 25 masked integer multiplications (5-way bit split), constant time |
//!
//! Both run in constant time: neither has a branch or a memory index that
//! depends on the operands.

#[cfg(target_arch = "x86_64")]
mod clmul;
mod portable;

#[cfg(target_arch = "x86_64")]
use crate::cpu;

/// The 128-bit carry-less product of two 64-bit binary polynomials.
///
/// Bit `i` of the result is the coefficient of x^i in `a(x)·b(x)`; bit 127 is
/// always zero. The backend is the best one the CPU offers (under the
/// `FIELDWORK_MAX_ISA` cap), looked up from a cache on every call; in a loop,
/// [`Clmul64::best`] chooses once.
///
/// # Example
///
/// ```
/// use fieldwork::gf2x::clmul64;
///
/// // (x + 1)·(x + 1) = x² + 1 over GF(2): the cross terms cancel.
/// assert_eq!(clmul64(0b11, 0b11), 0b101);
/// // x^63 · x^63 = x^126.
/// assert_eq!(clmul64(1 << 63, 1 << 63), 1 << 126);
/// ```
///
/// # Panics
///
/// On first use, if `FIELDWORK_MAX_ISA` is set to an unknown level (see
/// [`crate::cpu`]).
#[inline]
pub fn clmul64(a: u64, b: u64) -> u128 {
    Clmul64::best().mul(a, b)
}

/// A chosen backend for [`clmul64`].
///
/// Holding a value proves the CPU supports its backend; [`Clmul64::best`]
/// chooses the fastest usable one.
///
/// ```
/// use fieldwork::gf2x::Clmul64;
///
/// let m = Clmul64::best();
/// // (x + 1)^8 = x^8 + 1 over GF(2) (the Frobenius map is linear).
/// let mut p = 1u64;
/// for _ in 0..8 {
///     p = m.mul(p, 0b11) as u64;
/// }
/// assert_eq!(p, (1 << 8) | 1);
/// println!("clmul64 backend: {}", m.name());
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Clmul64(Clmul64Backend);

#[derive(Clone, Copy, Debug)]
enum Clmul64Backend {
    #[cfg(target_arch = "x86_64")]
    Pclmulqdq(cpu::Clmul),
    Portable,
}

impl Clmul64 {
    /// The fastest backend usable on this CPU under the cap.
    ///
    /// # Panics
    ///
    /// On first use, if `FIELDWORK_MAX_ISA` is set to an unknown level.
    #[inline]
    pub fn best() -> Clmul64 {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Clmul64(Clmul64Backend::Pclmulqdq(t));
        }
        Clmul64(Clmul64Backend::Portable)
    }

    /// The portable, constant-time backend (always available).
    #[doc(hidden)]
    pub fn portable() -> Clmul64 {
        Clmul64(Clmul64Backend::Portable)
    }

    /// The PCLMULQDQ backend, if usable.
    #[doc(hidden)]
    pub fn pclmulqdq() -> Option<Clmul64> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Some(Clmul64(Clmul64Backend::Pclmulqdq(t)));
        }
        None
    }

    /// Every usable backend, best first (for tests and benchmarks).
    #[doc(hidden)]
    pub fn all() -> impl Iterator<Item = Clmul64> {
        Clmul64::pclmulqdq()
            .into_iter()
            .chain(core::iter::once(Clmul64::portable()))
    }

    /// The backend's name: `pclmulqdq` or `portable`.
    pub fn name(self) -> &'static str {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Clmul64Backend::Pclmulqdq(_) => "pclmulqdq",
            Clmul64Backend::Portable => "portable",
        }
    }

    /// The 128-bit carry-less product of `a` and `b`.
    #[inline]
    pub fn mul(self, a: u64, b: u64) -> u128 {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            Clmul64Backend::Pclmulqdq(t) => clmul::clmul64(t, a, b),
            Clmul64Backend::Portable => portable::clmul64(a, b),
        }
    }
}
