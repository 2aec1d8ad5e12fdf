//! Every backend of every keyed type, chosen by name: the one door for
//! differential tests, fuzzing and benchmarks.
//!
//! Nothing here is needed to use fieldwork: every ordinary constructor
//! picks the best backend this CPU runs (and the tuning table's schedule
//! for it). This module lets a test or a benchmark pick a backend, or a
//! schedule of one, by its name, to compare it with the others.
//!
//! It is "hazardous material" in the sense of ring's and RustCrypto's
//! `hazmat` modules: the set of names, and the trait, follow the backends
//! and may change in any release; a forced backend may be slower than the
//! default on this CPU. It weakens nothing else: a name this CPU cannot
//! run (after `FIELDWORK_MAX_ISA`) gives `None`, and every backend is
//! constant time and wipes its key as the default one does.
//!
//! The stateless areas (`gf2x`, `gf2m`, `kummer`) need no door: their
//! `Dispatch` values (`all()`, `name()`) are ordinary public API.
//!
//! # Example
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use fieldwork::hazmat::{self, Backends};
//! use fieldwork::poly1305::Poly1305;
//!
//! let key = [7u8; 32];
//! let mut tags = hazmat::all::<Poly1305>(&key)
//!     .into_iter()
//!     .map(|mut mac| {
//!         mac.update(b"one message, every backend");
//!         mac.finalize()
//!     });
//! let first = tags.next().unwrap();
//! assert!(tags.all(|t| t == first));
//! assert!(Poly1305::with_backend("portable", &key).is_some());
//! assert!(Poly1305::with_backend("no-such-backend", &key).is_none());
//! # }
//! ```

/// A keyed type with more than one backend, constructible on each by name.
pub trait Backends: Sized {
    /// What the ordinary constructor takes: a key, or a key and a nonce.
    type Input<'a>: Copy;

    /// The name of every backend (and forced schedule) this build has on
    /// this architecture, the default's order (best first), whether or not
    /// this CPU runs it.
    const NAMES: &'static [&'static str];

    /// The value on the backend named `name` (one of [`Backends::NAMES`]);
    /// `None` if the name is unknown or this CPU, after
    /// `FIELDWORK_MAX_ISA`, cannot run it.
    fn with_backend(name: &str, input: Self::Input<'_>) -> Option<Self>;

    /// The name of the backend this value runs on.
    fn backend(&self) -> &'static str;
}

/// The value on every backend this CPU runs, best first (the first is the
/// default's backend unless a tuning table prefers a schedule for this
/// core).
#[cfg(feature = "alloc")]
pub fn all<T: Backends>(input: T::Input<'_>) -> alloc::vec::Vec<T> {
    T::NAMES
        .iter()
        .filter_map(|name| T::with_backend(name, input))
        .collect()
}

/// The names of [`Backends::NAMES`] this CPU runs (after
/// `FIELDWORK_MAX_ISA`), best first.
#[cfg(feature = "alloc")]
pub fn usable<T: Backends>(input: T::Input<'_>) -> alloc::vec::Vec<&'static str> {
    T::NAMES
        .iter()
        .copied()
        .filter(|name| T::with_backend(name, input).is_some())
        .collect()
}
