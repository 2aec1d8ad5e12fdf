//! CPU feature detection, the ISA cap, and the capability tokens that prove a
//! backend may run.
//!
//! This is the one place that looks at the CPU. Everything else asks it.
//!
//! # Detection
//!
//! With the `std` feature, features are detected at run time
//! (`std::arch::is_x86_feature_detected!` or `is_aarch64_feature_detected!`, which also check that the operating
//! system saves the wider register state) the first time any primitive asks,
//! and cached in an atomic. Without `std`, detection is what the compiler was
//! told at build time (`-C target-feature=…`/`-C target-cpu=…`), so a `no_std`
//! build for a generic target runs the portable backends.
//!
//! # The cap: `FIELDWORK_MAX_ISA`
//!
//! Features do not form one ladder (AES-NI, PCLMULQDQ, VPCLMULQDQ and IFMA are
//! independent), but for testing it is useful to pretend to be an older CPU.
//! The environment variable `FIELDWORK_MAX_ISA` names an [`IsaLevel`]; every
//! feature whose level (see [`Feature::level`]) is above the cap is hidden from
//! every backend for the whole process. It is read once, at the first use of
//! any primitive; unset or empty, there is no cap. An unknown value is not silently ignored: [`report`] returns
//! an [`IsaCapError`], and the dispatching primitives panic with the same
//! message at first use (a mistyped cap must not let a test matrix run the
//! wrong backend and pass). Call [`report`] early if you want to handle it.
//!
//! On x86-64:
//!
//! | level | features it allows (in addition to those of lower levels) |
//! |---|---|
//! | `portable` | none: every primitive runs its portable, constant-time backend |
//! | `clmul` | SSSE3, SSE4.1, SSE4.2, POPCNT, PCLMULQDQ, AES-NI, SHA |
//! | `avx2` | AVX, AVX2, FMA, BMI1, BMI2, ADX, VAES, VPCLMULQDQ, GFNI (on xmm/ymm only) |
//! | `avx512` | AVX-512 F, BW, VL, DQ, VBMI, VBMI2 |
//! | `avx512ifma` | AVX-512 IFMA |
//!
//! On AArch64 the ladder is its own (an x86-64 level's name is an unknown
//! value there, and the reverse):
//!
//! | level | features it allows (in addition to those of lower levels) |
//! |---|---|
//! | `portable` | none |
//! | `neon` | Advanced SIMD (NEON) |
//! | `aes` | AES with PMULL/PMULL2 (Rust's `aes` target feature is both) |
//! | `sha3` | SHA3 (`EOR3`, `XAR`, `RAX1`, `BCAX`) |
//! | `sve2` | SVE2, and SVE2's AES and 128-bit PMULL (`sve2-aes`) |
//!
//! # Capability tokens
//!
//! A backend's constructor takes a zero-sized token as proof that the CPU
//! supports it (ring's `cpu::Features` pattern). Tokens can only be created
//! here, by detection, after the cap is applied; so holding a backend value
//! proves the instructions it uses are available, and the `unsafe` call into a
//! `#[target_feature]` function is justified by citing the token.
#![forbid(unsafe_code)]

use core::fmt;
use core::sync::atomic::{AtomicU64, Ordering};

/// An instruction-set level, as named by `FIELDWORK_MAX_ISA`.
///
/// Each architecture has its own ladder; a level of another architecture
/// does not exist in the build (and its name is an unknown value of the
/// cap). On x86-64: `Portable < Clmul < Avx2 < Avx512 < Avx512Ifma`; on
/// AArch64: `Portable < Neon < Aes < Sha3 < Sve2`. The level *in effect* is
/// the highest level at or below the cap whose defining features the CPU
/// has (see [`IsaLevel::defining_features`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum IsaLevel {
    /// No SIMD or special instructions: the portable, constant-time backends.
    Portable,
    /// PCLMULQDQ and SSE4.1 (also allows AES-NI and SHA where present).
    #[cfg(target_arch = "x86_64")]
    Clmul,
    /// AVX2 and BMI2 (also allows VAES, VPCLMULQDQ and GFNI on ymm).
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 F, BW, VL and DQ.
    #[cfg(target_arch = "x86_64")]
    Avx512,
    /// AVX-512 IFMA (52-bit multiply-add) on top of `Avx512`.
    #[cfg(target_arch = "x86_64")]
    Avx512Ifma,
    /// AArch64's Advanced SIMD (NEON): 128-bit integer vectors.
    #[cfg(target_arch = "aarch64")]
    Neon,
    /// The AES instructions with PMULL/PMULL2 (64×64 carry-less products),
    /// which Rust names together as the `aes` target feature.
    #[cfg(target_arch = "aarch64")]
    Aes,
    /// The SHA3 extension: three-way XOR (`EOR3`), rotate-and-XOR (`XAR`).
    #[cfg(target_arch = "aarch64")]
    Sha3,
    /// SVE2 (scalable vectors), with SVE2's 128-bit PMULL where present.
    #[cfg(target_arch = "aarch64")]
    Sve2,
}

impl IsaLevel {
    /// Every level of this architecture, lowest first.
    #[cfg(target_arch = "x86_64")]
    pub const ALL: [IsaLevel; 5] = [
        IsaLevel::Portable,
        IsaLevel::Clmul,
        IsaLevel::Avx2,
        IsaLevel::Avx512,
        IsaLevel::Avx512Ifma,
    ];

    /// Every level of this architecture, lowest first.
    #[cfg(target_arch = "aarch64")]
    pub const ALL: [IsaLevel; 5] = [
        IsaLevel::Portable,
        IsaLevel::Neon,
        IsaLevel::Aes,
        IsaLevel::Sha3,
        IsaLevel::Sve2,
    ];

    /// Every level of this architecture: the portable one only.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub const ALL: [IsaLevel; 1] = [IsaLevel::Portable];

    /// The name used by `FIELDWORK_MAX_ISA`: `portable`; on x86-64
    /// `clmul`, `avx2`, `avx512`, `avx512ifma`; on AArch64 `neon`, `aes`,
    /// `sha3`, `sve2`.
    pub const fn name(self) -> &'static str {
        match self {
            IsaLevel::Portable => "portable",
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Clmul => "clmul",
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Avx512 => "avx512",
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Avx512Ifma => "avx512ifma",
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Neon => "neon",
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Aes => "aes",
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Sha3 => "sha3",
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Sve2 => "sve2",
        }
    }

    /// The features a CPU must have (together with those of all lower levels)
    /// for this level to be in effect.
    pub const fn defining_features(self) -> Features {
        match self {
            IsaLevel::Portable => Features::EMPTY,
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Clmul => Features::EMPTY
                .with(Feature::Pclmulqdq)
                .with(Feature::Sse41),
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Avx2 => Features::EMPTY
                .with(Feature::Avx)
                .with(Feature::Avx2)
                .with(Feature::Bmi2),
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Avx512 => Features::EMPTY
                .with(Feature::Avx512f)
                .with(Feature::Avx512bw)
                .with(Feature::Avx512vl)
                .with(Feature::Avx512dq),
            #[cfg(target_arch = "x86_64")]
            IsaLevel::Avx512Ifma => Features::EMPTY.with(Feature::Avx512ifma),
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Neon => Features::EMPTY.with(Feature::Neon),
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Aes => Features::EMPTY.with(Feature::Aes),
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Sha3 => Features::EMPTY.with(Feature::Sha3),
            #[cfg(target_arch = "aarch64")]
            IsaLevel::Sve2 => Features::EMPTY.with(Feature::Sve2),
        }
    }

    /// All features this level allows: those whose [`Feature::level`] is at or
    /// below `self`.
    pub fn allowed_features(self) -> Features {
        Feature::ALL
            .iter()
            .filter(|f| f.level() <= self)
            .fold(Features::EMPTY, |acc, &f| acc.with(f))
    }

    /// The highest level whose defining features (and those of every lower
    /// level) are all in `features`.
    pub fn highest_supported(features: Features) -> IsaLevel {
        let mut best = IsaLevel::Portable;
        let mut needed = Features::EMPTY;
        for level in IsaLevel::ALL {
            needed = needed.union(level.defining_features());
            if features.contains(needed) {
                best = level;
            } else {
                break;
            }
        }
        best
    }
}

impl fmt::Display for IsaLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl core::str::FromStr for IsaLevel {
    type Err = IsaCapError;

    /// Parses a level name; ASCII case and surrounding whitespace are ignored.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        IsaLevel::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| IsaCapError::new(s))
    }
}

macro_rules! features {
    ($arch:literal, $detect:ident, $( $variant:ident = $bit:literal, $name:tt, $level:ident; )*) => {
        /// One CPU feature that some backend may use (this architecture's).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Feature {
            $(
                #[doc = concat!("`", $name, "`")]
                $variant = $bit,
            )*
        }

        impl Feature {
            /// Every feature fieldwork knows about on this architecture.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant),*];

            /// The name run-time detection (`std::arch::is_…_feature_detected!`)
            /// and `-C target-feature` use.
            pub const fn name(self) -> &'static str {
                match self { $(Feature::$variant => $name,)* }
            }

            /// The lowest [`IsaLevel`] cap at which this feature may be used.
            pub const fn level(self) -> IsaLevel {
                match self { $(Feature::$variant => IsaLevel::$level,)* }
            }
        }

        /// Run-time detection (with `std`).
        #[cfg(all(feature = "std", target_arch = $arch))]
        fn detect_raw() -> Features {
            let mut f = Features::EMPTY;
            $( if std::arch::$detect!($name) { f = f.with(Feature::$variant); } )*
            valgrind_isa(f)
        }

        /// Build-time detection (without `std`): what the compiler was told.
        #[cfg(all(not(feature = "std"), target_arch = $arch))]
        fn detect_raw() -> Features {
            let mut f = Features::EMPTY;
            $( if cfg!(target_feature = $name) { f = f.with(Feature::$variant); } )*
            f
        }
    };
}

#[cfg(target_arch = "x86_64")]
features! {
    "x86_64", is_x86_feature_detected,
    Ssse3 = 0, "ssse3", Clmul;
    Sse41 = 1, "sse4.1", Clmul;
    Sse42 = 2, "sse4.2", Clmul;
    Popcnt = 3, "popcnt", Clmul;
    Pclmulqdq = 4, "pclmulqdq", Clmul;
    Aes = 5, "aes", Clmul;
    Sha = 6, "sha", Clmul;
    Avx = 7, "avx", Avx2;
    Avx2 = 8, "avx2", Avx2;
    Fma = 9, "fma", Avx2;
    Bmi1 = 10, "bmi1", Avx2;
    Bmi2 = 11, "bmi2", Avx2;
    Adx = 12, "adx", Avx2;
    Vaes = 13, "vaes", Avx2;
    Vpclmulqdq = 14, "vpclmulqdq", Avx2;
    Gfni = 15, "gfni", Avx2;
    Avx512f = 16, "avx512f", Avx512;
    Avx512bw = 17, "avx512bw", Avx512;
    Avx512vl = 18, "avx512vl", Avx512;
    Avx512dq = 19, "avx512dq", Avx512;
    Avx512vbmi = 20, "avx512vbmi", Avx512;
    Avx512vbmi2 = 21, "avx512vbmi2", Avx512;
    Avx512ifma = 22, "avx512ifma", Avx512Ifma;
}

// AArch64: Rust's `aes` target feature (and std's detection of it) is
// FEAT_AES with FEAT_PMULL; `sve2-aes` adds SVE2's 128-bit PMULL.
#[cfg(target_arch = "aarch64")]
features! {
    "aarch64", is_aarch64_feature_detected,
    Neon = 0, "neon", Neon;
    Aes = 1, "aes", Aes;
    Sha3 = 2, "sha3", Sha3;
    Sve2 = 3, "sve2", Sve2;
    Sve2Aes = 4, "sve2-aes", Sve2;
}

// Other architectures: no feature, the portable backends only.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
features! {
    "none", is_x86_feature_detected,
}

/// With the test-only feature `valgrind-isa` (`crate::vex256`), VPCLMULQDQ
/// where PCLMULQDQ and AVX2 are and VAES where AES-NI and AVX2 are (the
/// ymm kernels then run on their emulated instructions), and ADX where
/// BMI2 and AVX2 are (valgrind runs `adcx`/`adox` but hides their CPUID
/// bit): so ct-check reaches those backends under valgrind.
#[cfg(all(feature = "std", target_arch = "x86_64"))]
fn valgrind_isa(f: Features) -> Features {
    if !cfg!(feature = "valgrind-isa") || !f.has(Feature::Avx2) {
        return f;
    }
    let mut f = f;
    if f.has(Feature::Pclmulqdq) {
        f = f.with(Feature::Vpclmulqdq);
    }
    if f.has(Feature::Aes) {
        f = f.with(Feature::Vaes);
    }
    if f.has(Feature::Bmi2) {
        f = f.with(Feature::Adx);
    }
    f
}

/// Valgrind's feature shims concern x86-64 only.
#[cfg(all(feature = "std", target_arch = "aarch64"))]
fn valgrind_isa(f: Features) -> Features {
    f
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn detect_raw() -> Features {
    Features::EMPTY
}

impl fmt::Display for Feature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of [`Feature`]s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Features(u64);

impl Features {
    /// The empty set.
    pub const EMPTY: Features = Features(0);

    /// This set with `f` added.
    pub const fn with(self, f: Feature) -> Features {
        Features(self.0 | (1 << f as u64))
    }

    /// Whether `f` is in the set.
    pub const fn has(self, f: Feature) -> bool {
        self.0 & (1 << f as u64) != 0
    }

    /// Whether every feature of `other` is in the set.
    pub const fn contains(self, other: Features) -> bool {
        self.0 & other.0 == other.0
    }

    /// The union of two sets.
    pub const fn union(self, other: Features) -> Features {
        Features(self.0 | other.0)
    }

    /// The intersection of two sets.
    pub const fn intersection(self, other: Features) -> Features {
        Features(self.0 & other.0)
    }

    /// The features in the set, in [`Feature::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.iter().copied().filter(move |&f| self.has(f))
    }
}

impl fmt::Display for Features {
    /// Space-separated feature names, or `(none)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for feat in self.iter() {
            if !first {
                f.write_str(" ")?;
            }
            f.write_str(feat.name())?;
            first = false;
        }
        if first {
            f.write_str("(none)")?;
        }
        Ok(())
    }
}

/// `FIELDWORK_MAX_ISA` holds a value that is not an [`IsaLevel`] name.
#[derive(Clone, PartialEq, Eq)]
pub struct IsaCapError {
    /// The start of the offending value (at most 32 bytes, cut at a char boundary).
    value: [u8; 32],
    len: u8,
    truncated: bool,
}

impl IsaCapError {
    fn new(s: &str) -> IsaCapError {
        let mut cut = s.len().min(32);
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut value = [0u8; 32];
        for (d, b) in value.iter_mut().zip(s.as_bytes().iter().take(cut)) {
            *d = *b;
        }
        IsaCapError {
            value,
            len: cut as u8,
            truncated: cut < s.len(),
        }
    }

    /// The offending value (its first 32 bytes if it was longer).
    pub fn value(&self) -> &str {
        // The stored prefix was cut at a char boundary of a `str`.
        self.value
            .get(..usize::from(self.len))
            .and_then(|v| core::str::from_utf8(v).ok())
            .unwrap_or("")
    }
}

impl fmt::Debug for IsaCapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IsaCapError")
            .field("value", &self.value())
            .field("truncated", &self.truncated)
            .finish()
    }
}

impl fmt::Display for IsaCapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "FIELDWORK_MAX_ISA={:?}{} is not an ISA level; expected one of: ",
            self.value(),
            if self.truncated { "…" } else { "" }
        )?;
        for (i, l) in IsaLevel::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(l.name())?;
        }
        Ok(())
    }
}

impl core::error::Error for IsaCapError {}

/// The name of the environment variable that caps the ISA level.
pub const CAP_VARIABLE: &str = "FIELDWORK_MAX_ISA";

/// The cap from the environment, read and parsed once per process.
#[cfg(feature = "std")]
fn cap() -> Result<Option<IsaLevel>, IsaCapError> {
    static CAP: std::sync::OnceLock<Result<Option<IsaLevel>, IsaCapError>> =
        std::sync::OnceLock::new();
    CAP.get_or_init(|| parse_cap(std::env::var_os(CAP_VARIABLE).as_deref()))
        .clone()
}

/// The cap a value of `FIELDWORK_MAX_ISA` names. Unset and empty both mean
/// no cap (as an empty `RUSTFLAGS` does for cargo: a script's unset variable
/// passed on as `FIELDWORK_MAX_ISA=` must not stop the program); any other
/// value that is not a level's name is an error.
#[cfg(feature = "std")]
fn parse_cap(value: Option<&std::ffi::OsStr>) -> Result<Option<IsaLevel>, IsaCapError> {
    match value {
        None => Ok(None),
        Some(v) if v.is_empty() => Ok(None),
        Some(v) => v.to_string_lossy().parse().map(Some),
    }
}

/// Without `std` there is no environment: no cap.
#[cfg(not(feature = "std"))]
fn cap() -> Result<Option<IsaLevel>, IsaCapError> {
    Ok(None)
}

/// What detection found, the cap, and what is in effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuReport {
    /// Every feature the CPU (and OS) supports, before the cap.
    pub detected: Features,
    /// The cap from `FIELDWORK_MAX_ISA`, if set.
    pub cap: Option<IsaLevel>,
    /// The features backends may use: `detected` minus those above the cap.
    pub usable: Features,
    /// The highest [`IsaLevel`] whose features are all usable.
    pub level: IsaLevel,
}

fn compute(cap: Option<IsaLevel>) -> CpuReport {
    let detected = detect_raw();
    let usable = match cap {
        Some(c) => detected.intersection(c.allowed_features()),
        None => detected,
    };
    CpuReport {
        detected,
        cap,
        usable,
        level: IsaLevel::highest_supported(usable),
    }
}

/// Detects the CPU's features and applies the `FIELDWORK_MAX_ISA` cap.
///
/// # Errors
///
/// [`IsaCapError`] if `FIELDWORK_MAX_ISA` is set to something that is not a
/// level name.
///
/// # Example
///
/// ```
/// let report = fieldwork::cpu::report().expect("FIELDWORK_MAX_ISA is valid");
/// assert!(report.detected.contains(report.usable));
/// println!("level in effect: {}", report.level);
/// ```
pub fn report() -> Result<CpuReport, IsaCapError> {
    cap().map(compute)
}

/// Bit 63 marks the cache as filled; the low bits are the usable features.
const CACHED: u64 = 1 << 63;
static USABLE: AtomicU64 = AtomicU64::new(0);

/// The usable features (detected, capped), cached after the first call.
///
/// # Panics
///
/// If `FIELDWORK_MAX_ISA` is invalid (see the module docs for why this is not
/// a silent fallback).
pub(crate) fn usable() -> Features {
    let v = USABLE.load(Ordering::Relaxed);
    if v & CACHED != 0 {
        return Features(v & !CACHED);
    }
    init_usable()
}

#[cold]
#[allow(
    clippy::panic,
    reason = "an invalid FIELDWORK_MAX_ISA is a configuration error, documented in `cpu`; `cpu::report` returns it as an error"
)]
fn init_usable() -> Features {
    match report() {
        Ok(r) => {
            USABLE.store(r.usable.0 | CACHED, Ordering::Relaxed);
            r.usable
        }
        Err(e) => panic!("fieldwork: {e}"),
    }
}

/// The [`IsaLevel`] in effect for this process (after the cap).
///
/// # Panics
///
/// If `FIELDWORK_MAX_ISA` is invalid; use [`report`] to get the error instead.
pub fn level() -> IsaLevel {
    IsaLevel::highest_supported(usable())
}

/// Defines a zero-sized capability token that only detection can create.
macro_rules! capability_token {
    ($(#[$doc:meta])* $name:ident = [$($feat:ident),+]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $name(());

        impl $name {
            /// The features this token proves.
            pub(crate) const FEATURES: Features = Features::EMPTY$(.with(Feature::$feat))+;

            /// The token, if every feature it proves is usable.
            #[inline]
            pub(crate) fn get() -> Option<$name> {
                usable().contains(Self::FEATURES).then_some($name(()))
            }
        }
    };
}

/// x86-64's tokens: one per combination of features a kernel needs.
#[cfg(target_arch = "x86_64")]
mod x86_tokens {
    use super::{Feature, Features, usable};

    capability_token! {
        /// PCLMULQDQ with SSE4.1: the 64×64 carry-less multiply on xmm.
        Clmul = [Pclmulqdq, Sse41]
    }

    capability_token! {
        /// VPCLMULQDQ on zmm with AVX-512 F/BW/VL/DQ (four 64×64 carry-less
        /// products per instruction), plus PCLMULQDQ and SSE4.1 for xmm tails.
        Avx512Clmul = [Vpclmulqdq, Avx, Avx2, Avx512f, Avx512bw, Avx512vl, Avx512dq, Pclmulqdq, Sse41]
    }

    impl Avx512Clmul {
        /// The ymm token this one implies (its features are a subset).
        pub(crate) fn avx2_clmul(self) -> Avx2Clmul {
            Avx2Clmul(())
        }
    }

    capability_token! {
        /// AVX2 (256-bit integer vectors): the 4-lane Kummer backend.
        Avx2 = [Avx, Avx2]
    }

    capability_token! {
        /// AVX2 with BMI2 and ADX (`mulx`, `adcx`/`adox`): the stitched
        /// ChaCha20-Poly1305 kernel (vector ChaCha20, scalar Poly1305).
        Avx2Bmi2 = [Avx, Avx2, Bmi2, Adx]
    }

    impl Avx2Bmi2 {
        /// The AVX2 token this one implies (its features are a subset).
        pub(crate) fn avx2(self) -> Avx2 {
            Avx2(())
        }
    }

    capability_token! {
        /// AVX-512 F/BW/VL/DQ with AVX2: 512-bit integer vectors with masks
        /// (the ChaCha20 zmm backend, whose tails run the AVX2 kernels).
        Avx512 = [Avx, Avx2, Avx512f, Avx512bw, Avx512vl, Avx512dq]
    }

    impl Avx512 {
        /// The AVX2 token this one implies (its features are a subset).
        pub(crate) fn avx2(self) -> Avx2 {
            Avx2(())
        }
    }

    capability_token! {
        /// AVX-512 F/BW/VL/DQ with IFMA (52-bit multiply-accumulate on zmm),
        /// and AVX2.
        Avx512Ifma = [Avx, Avx2, Avx512f, Avx512bw, Avx512vl, Avx512dq, Avx512ifma]
    }

    impl Avx512Ifma {
        /// The AVX2 token this one implies (its features are a subset).
        pub(crate) fn avx2(self) -> Avx2 {
            Avx2(())
        }
    }

    capability_token! {
        /// VPCLMULQDQ on ymm with AVX2 (two 64×64 carry-less products per
        /// instruction), plus PCLMULQDQ and SSE4.1 for xmm tails.
        Avx2Clmul = [Vpclmulqdq, Avx, Avx2, Pclmulqdq, Sse41]
    }

    capability_token! {
        /// AES-NI with PCLMULQDQ, SSSE3 and SSE4.1: AES-GCM on xmm.
        AesClmul = [Aes, Pclmulqdq, Ssse3, Sse41]
    }

    capability_token! {
        /// VAES and VPCLMULQDQ on zmm with AVX-512 F/BW/VL/DQ, plus AES-NI,
        /// PCLMULQDQ, SSSE3 and SSE4.1: the 512-bit stitched AES-GCM kernel.
        VaesAvx512 = [Vaes, Vpclmulqdq, Avx512f, Avx512bw, Avx512vl, Avx512dq, Aes, Pclmulqdq, Ssse3, Sse41]
    }

    capability_token! {
        /// VAES and VPCLMULQDQ on ymm with AVX2, plus AES-NI, PCLMULQDQ, SSSE3
        /// and SSE4.1 for xmm tails: the 256-bit stitched AES-GCM kernel.
        VaesAvx2 = [Vaes, Vpclmulqdq, Avx, Avx2, Aes, Pclmulqdq, Ssse3, Sse41]
    }

    impl Avx2Clmul {
        /// The xmm token this one implies (its features are a subset).
        pub(crate) fn clmul(self) -> Clmul {
            Clmul(())
        }
    }

    impl AesClmul {
        /// The PCLMULQDQ token this one implies.
        pub(crate) fn clmul(self) -> Clmul {
            Clmul(())
        }
    }

    impl VaesAvx512 {
        /// The xmm AES-NI token this one implies.
        pub(crate) fn aes_clmul(self) -> AesClmul {
            AesClmul(())
        }

        /// The zmm carry-less token this one implies.
        pub(crate) fn avx512_clmul(self) -> Avx512Clmul {
            Avx512Clmul(())
        }
    }

    impl VaesAvx2 {
        /// The AVX2 token this one implies (its features are a subset).
        pub(crate) fn avx2(self) -> Avx2 {
            Avx2(())
        }

        /// The xmm AES-NI token this one implies.
        pub(crate) fn aes_clmul(self) -> AesClmul {
            AesClmul(())
        }

        /// The ymm carry-less token this one implies.
        pub(crate) fn avx2_clmul(self) -> Avx2Clmul {
            Avx2Clmul(())
        }
    }

    impl Avx512Clmul {
        /// The xmm token this one implies (its features are a subset).
        pub(crate) fn clmul(self) -> Clmul {
            Clmul(())
        }
    }
}
#[cfg(target_arch = "x86_64")]
pub(crate) use x86_tokens::*;

/// AArch64's tokens: one per combination of features a kernel needs.
#[cfg(target_arch = "aarch64")]
mod aarch64_tokens {
    use super::{Feature, Features, usable};

    capability_token! {
        /// Advanced SIMD (NEON): 128-bit integer vectors.
        Neon = [Neon]
    }

    capability_token! {
        /// NEON with the AES instructions and PMULL/PMULL2 (Rust's `aes`
        /// target feature is both): AES rounds and 64×64 carry-less products.
        NeonAes = [Neon, Aes]
    }

    capability_token! {
        /// [`NeonAes`] with the SHA3 extension's three-way XOR (`EOR3`) and
        /// rotate-XOR (`XAR`).
        NeonSha3 = [Neon, Aes, Sha3]
    }

    capability_token! {
        /// NEON with SVE2 (scalable vectors; the kernels use SVE2's
        /// 32-bit `XAR` on the low 128 bits of the `z` registers).
        NeonSve2 = [Neon, Sve2]
    }

    impl NeonSve2 {
        /// The NEON token this one implies (its features are a subset).
        #[allow(dead_code)]
        pub(crate) fn neon(self) -> Neon {
            Neon(())
        }
    }

    impl NeonAes {
        /// The NEON token this one implies (its features are a subset).
        #[allow(dead_code)]
        pub(crate) fn neon(self) -> Neon {
            Neon(())
        }
    }

    impl NeonSha3 {
        /// The AES+PMULL token this one implies (its features are a subset).
        #[allow(dead_code)]
        pub(crate) fn neon_aes(self) -> NeonAes {
            NeonAes(())
        }
    }
}
#[cfg(target_arch = "aarch64")]
#[allow(unused_imports)]
pub(crate) use aarch64_tokens::*;

/// A CPU's maker: on x86-64 from CPUID leaf 0's vendor string, on
/// AArch64 from MIDR_EL1's implementer code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vendor {
    /// `AuthenticAMD`.
    Amd,
    /// `GenuineIntel`.
    Intel,
    /// Arm Ltd's own cores (implementer 0x41: Cortex, Neoverse).
    Arm,
    /// Apple (implementer 0x61).
    Apple,
    /// Anything else, or unknown (no `std`, or MIDR_EL1 not readable).
    Other,
}

/// What the tuning tables (`crate::tuning`) are keyed by: the vendor and
/// the displayed family and model (CPUID leaf 1, with the extended fields
/// folded in as the vendors document: family 25 model 17 is AMD's Zen 4
/// EPYC, family 26 Zen 5, family 6 model 207 Intel's Emerald Rapids Xeon).
/// On AArch64 the family is MIDR_EL1's implementer code and the model its
/// part number (Arm's 0xd0c is Neoverse N1, 0xd40 V1, 0xd4f V2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Core {
    /// The maker.
    pub(crate) vendor: Vendor,
    /// The displayed family (base family, plus the extended family when
    /// the base is 15).
    pub(crate) family: u32,
    /// The displayed model (with the extended model on families 6 and 15
    /// and above).
    pub(crate) model: u32,
}

impl Core {
    /// Packed in 32 bits for the cache: bit 31 set, vendor in bits 24–26,
    /// family in 16–23, model in 0–15 (an AArch64 part number has 12 bits).
    const fn pack(self) -> u32 {
        let v = match self.vendor {
            Vendor::Amd => 1,
            Vendor::Intel => 2,
            Vendor::Arm => 3,
            Vendor::Apple => 4,
            Vendor::Other => 0,
        };
        (1 << 31) | (v << 24) | ((self.family & 0xff) << 16) | (self.model & 0xffff)
    }

    const fn unpack(w: u32) -> Core {
        Core {
            vendor: match (w >> 24) & 7 {
                1 => Vendor::Amd,
                2 => Vendor::Intel,
                3 => Vendor::Arm,
                4 => Vendor::Apple,
                _ => Vendor::Other,
            },
            family: (w >> 16) & 0xff,
            model: w & 0xffff,
        }
    }

    /// The implementer and part number of an AArch64 MIDR_EL1 value.
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    const fn from_midr(midr: u64) -> Core {
        let implementer = ((midr >> 24) & 0xff) as u32;
        Core {
            vendor: match implementer {
                0x41 => Vendor::Arm,
                0x61 => Vendor::Apple,
                _ => Vendor::Other,
            },
            family: implementer,
            model: ((midr >> 4) & 0xfff) as u32,
        }
    }

    /// A few cores' marketing names, for reports.
    const fn known_name(self) -> Option<&'static str> {
        Some(match (self.vendor, self.family, self.model) {
            (Vendor::Amd, 25, 0x01 | 0x21 | 0x50) => "Zen 3",
            (Vendor::Amd, 25, 0x11 | 0x61 | 0x74 | 0x78) => "Zen 4",
            (Vendor::Amd, 26, _) => "Zen 5",
            (Vendor::Intel, 6, 143) => "Sapphire Rapids",
            (Vendor::Intel, 6, 207) => "Emerald Rapids",
            (Vendor::Arm, _, 0xd03) => "Cortex-A53",
            (Vendor::Arm, _, 0xd08) => "Cortex-A72",
            (Vendor::Arm, _, 0xd0b) => "Cortex-A76",
            (Vendor::Arm, _, 0xd0c) => "Neoverse N1",
            (Vendor::Arm, _, 0xd40) => "Neoverse V1",
            (Vendor::Arm, _, 0xd49) => "Neoverse N2",
            (Vendor::Arm, _, 0xd4f) => "Neoverse V2",
            (Vendor::Arm, _, 0xd84) => "Neoverse V3",
            (Vendor::Arm, _, 0xd8e) => "Neoverse N3",
            _ => return None,
        })
    }

    /// The displayed family and model from CPUID leaf 1's EAX.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    const fn from_signature(vendor: Vendor, eax: u32) -> Core {
        let base_family = (eax >> 8) & 0xf;
        let base_model = (eax >> 4) & 0xf;
        let family = if base_family == 0xf {
            base_family + ((eax >> 20) & 0xff)
        } else {
            base_family
        };
        let model = if base_family == 0x6 || base_family == 0xf {
            (((eax >> 16) & 0xf) << 4) | base_model
        } else {
            base_model
        };
        Core {
            vendor,
            family,
            model,
        }
    }
}

/// This CPU's vendor, family and model, read once and cached: CPUID traps
/// to the hypervisor in a virtual machine and costs microseconds there.
/// The tuning tables choose from it once per key, context or call, never
/// per block.
pub(crate) fn core() -> Core {
    use core::sync::atomic::{AtomicU32, Ordering};
    // 0: not read yet; else `Core::pack`.
    static CORE: AtomicU32 = AtomicU32::new(0);
    match CORE.load(Ordering::Relaxed) {
        0 => {
            let c = read_core();
            CORE.store(c.pack(), Ordering::Relaxed);
            c
        }
        w => Core::unpack(w),
    }
}

#[cfg(target_arch = "x86_64")]
fn read_core() -> Core {
    // CPUID leaves 0 and 1 exist on every x86-64 CPU (safe intrinsics).
    let r = core::arch::x86_64::__cpuid(0);
    let word = |s: &[u8; 4]| u32::from_le_bytes(*s);
    // The vendor string is EBX, EDX, ECX.
    let vendor = if (r.ebx, r.edx, r.ecx) == (word(b"Auth"), word(b"enti"), word(b"cAMD")) {
        Vendor::Amd
    } else if (r.ebx, r.edx, r.ecx) == (word(b"Genu"), word(b"ineI"), word(b"ntel")) {
        Vendor::Intel
    } else {
        Vendor::Other
    };
    Core::from_signature(vendor, core::arch::x86_64::__cpuid(1).eax)
}

/// From MIDR_EL1, where the OS lets this process read it (`crate::midr`).
#[cfg(all(feature = "std", target_arch = "aarch64", target_os = "linux"))]
fn read_core() -> Core {
    match crate::midr::read() {
        Some(midr) => Core::from_midr(midr),
        None => Core {
            vendor: Vendor::Other,
            family: 0,
            model: 0,
        },
    }
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(feature = "std", target_arch = "aarch64", target_os = "linux")
)))]
fn read_core() -> Core {
    Core {
        vendor: Vendor::Other,
        family: 0,
        model: 0,
    }
}

/// This CPU's core as the tuning tables see it, for reports: the vendor,
/// family and model on x86-64 (`AMD family 26 model 2 (Zen 5)`), the
/// implementer and part number from MIDR_EL1 on AArch64 (`Arm part 0xd0c
/// (Neoverse N1)`), or `unknown`.
///
/// ```
/// println!("core: {}", fieldwork::cpu::core_name());
/// ```
pub fn core_name() -> CoreName {
    CoreName(core())
}

/// The [`Display`](fmt::Display) of this CPU's core: see [`core_name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoreName(Core);

impl fmt::Display for CoreName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.0;
        match c.vendor {
            Vendor::Amd => write!(f, "AMD family {} model {}", c.family, c.model)?,
            Vendor::Intel => write!(f, "Intel family {} model {}", c.family, c.model)?,
            Vendor::Arm => write!(f, "Arm part {:#05x}", c.model)?,
            Vendor::Apple => write!(f, "Apple part {:#05x}", c.model)?,
            Vendor::Other if c.family == 0 && c.model == 0 => f.write_str("unknown")?,
            Vendor::Other if cfg!(target_arch = "aarch64") => {
                write!(f, "implementer {:#04x} part {:#05x}", c.family, c.model)?
            }
            Vendor::Other => write!(f, "family {} model {}", c.family, c.model)?,
        }
        match c.known_name() {
            Some(n) => write!(f, " ({n})"),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;
    use std::string::ToString;

    #[test]
    fn level_names_round_trip() {
        for l in IsaLevel::ALL {
            assert_eq!(l.name().parse::<IsaLevel>(), Ok(l));
            assert_eq!(l.name().to_uppercase().parse::<IsaLevel>(), Ok(l));
        }
        let e = "avx3".parse::<IsaLevel>().unwrap_err();
        assert_eq!(e.value(), "avx3");
        let msg = e.to_string();
        let top = IsaLevel::ALL[IsaLevel::ALL.len() - 1];
        assert!(
            msg.contains("\"avx3\"") && msg.contains(top.name()),
            "{msg}"
        );
        let long = "x".repeat(100);
        let e = long.parse::<IsaLevel>().unwrap_err();
        assert_eq!(e.value().len(), 32);
        assert!(e.to_string().contains('…'));
    }

    #[test]
    fn levels_are_monotone() {
        let all = Feature::ALL.iter().fold(Features::EMPTY, |a, &f| a.with(f));
        let top = IsaLevel::ALL[IsaLevel::ALL.len() - 1];
        assert_eq!(IsaLevel::highest_supported(all), top);
        assert_eq!(
            IsaLevel::highest_supported(Features::EMPTY),
            IsaLevel::Portable
        );
        for l in IsaLevel::ALL {
            // Capping a CPU with everything at `l` gives exactly `l`.
            assert_eq!(
                IsaLevel::highest_supported(all.intersection(l.allowed_features())),
                l
            );
            // Every defining feature is allowed at its own level.
            assert!(l.allowed_features().contains(l.defining_features()));
        }
        // IFMA without AVX-512 F/BW/VL/DQ is not the IFMA level.
        #[cfg(target_arch = "x86_64")]
        {
            let odd = IsaLevel::Avx2.allowed_features().with(Feature::Avx512ifma);
            assert_eq!(IsaLevel::highest_supported(odd), IsaLevel::Avx2);
        }
        // SHA3 without AES and PMULL is only the NEON level.
        #[cfg(target_arch = "aarch64")]
        {
            let odd = IsaLevel::Neon.allowed_features().with(Feature::Sha3);
            assert_eq!(IsaLevel::highest_supported(odd), IsaLevel::Neon);
        }
    }

    #[test]
    fn cap_hides_features() {
        let r = compute(Some(IsaLevel::Portable));
        assert_eq!(r.usable, Features::EMPTY);
        assert_eq!(r.level, IsaLevel::Portable);
        #[cfg(target_arch = "x86_64")]
        {
            let r = compute(Some(IsaLevel::Clmul));
            assert!(r.level <= IsaLevel::Clmul);
            assert!(!r.usable.has(Feature::Avx2));
        }
        #[cfg(target_arch = "aarch64")]
        {
            let r = compute(Some(IsaLevel::Neon));
            assert!(r.level <= IsaLevel::Neon);
            assert!(!r.usable.has(Feature::Aes) && !r.usable.has(Feature::Sve2Aes));
        }
        let r = compute(None);
        assert_eq!(r.usable, r.detected);
    }

    #[test]
    fn core_signatures_decode_as_the_vendors_document() {
        // CPUID leaf 1 EAX of the CPUs the tuning tables name.
        let zen3 = Core::from_signature(Vendor::Amd, 0x00a0_0f11);
        assert_eq!((zen3.family, zen3.model), (25, 1));
        let zen4 = Core::from_signature(Vendor::Amd, 0x00a1_0f11);
        assert_eq!((zen4.family, zen4.model), (25, 17));
        let zen5 = Core::from_signature(Vendor::Amd, 0x00b0_0f21);
        assert_eq!((zen5.family, zen5.model), (26, 2));
        let emr = Core::from_signature(Vendor::Intel, 0x000c_06f2);
        assert_eq!((emr.family, emr.model), (6, 207));
        // MIDR_EL1 values as Arm's technical reference manuals print them.
        let n1 = Core::from_midr(0x413f_d0c1);
        assert_eq!((n1.vendor, n1.family, n1.model), (Vendor::Arm, 0x41, 0xd0c));
        let a53 = Core::from_midr(0x410f_d034);
        assert_eq!((a53.vendor, a53.model), (Vendor::Arm, 0xd03));
        let ampere = Core::from_midr(0xc00f_ac30);
        assert_eq!((ampere.vendor, ampere.family), (Vendor::Other, 0xc0));
        for c in [zen3, zen4, zen5, emr, n1, a53, ampere] {
            assert_eq!(Core::unpack(c.pack()), c);
        }
        assert_eq!(CoreName(n1).to_string(), "Arm part 0xd0c (Neoverse N1)");
        assert_eq!(CoreName(zen5).to_string(), "AMD family 26 model 2 (Zen 5)");
        assert_eq!(
            CoreName(emr).to_string(),
            "Intel family 6 model 207 (Emerald Rapids)"
        );
        // The cached value is this CPU's, and stable.
        assert_eq!(core(), core());
    }

    #[cfg(feature = "std")]
    #[test]
    fn empty_cap_is_unset_and_unknown_is_an_error() {
        use std::ffi::OsStr;
        assert_eq!(parse_cap(None), Ok(None));
        assert_eq!(parse_cap(Some(OsStr::new(""))), Ok(None));
        for l in IsaLevel::ALL {
            assert_eq!(parse_cap(Some(OsStr::new(l.name()))), Ok(Some(l)));
        }
        // The other architecture's levels are unknown values here.
        #[cfg(target_arch = "x86_64")]
        let other = "neon";
        #[cfg(not(target_arch = "x86_64"))]
        let other = "avx2";
        for bad in [" ", "AVX3", "avx-2", "none", other] {
            let e = parse_cap(Some(OsStr::new(bad))).unwrap_err();
            assert_eq!(e.value(), bad);
        }
    }
}
