//! GHASH and POLYVAL: polynomial hashing over GF(2^128).
//!
//! [`Polyval`] and [`GHash`] (streaming, any split of the input gives the
//! same result) and the one-shot [`polyval`] / [`ghash`] run on portable,
//! PCLMULQDQ and VPCLMULQDQ backends with aggregated reduction, and
//! implement RustCrypto's [`universal_hash`] traits. The white paper's
//! algorithm progression is in `ghash::reproduce` (feature `reproduce`).
//!
//! GHASH (NIST SP 800-38D) evaluates the polynomial `Σ Xᵢ·H^(n−i+1)` in
//! GF(2^128) defined by `x^128 + x^7 + x^2 + x + 1`, with GCM's reflected bit
//! order. POLYVAL (RFC 8452) is the same hash in the un-reflected field
//! `x^128 + x^127 + x^126 + x^121 + 1`, which suits little-endian machines:
//! `dot(a, b) = a·b·x^(−128)` and `POLYVAL(H, X₁…Xₙ) = dot(…dot(dot(X₁, H) ⊕
//! X₂, H)… ⊕ Xₙ, H)`. GHASH is computed as POLYVAL with byte-reversed blocks
//! and the key `mulX(ByteReverse(H))` (RFC 8452, appendix A).
//!
//! The techniques come from Gueron & Kounavis, *Intel Carry-Less
//! Multiplication Instruction and its Usage for Computing the GCM Mode*
//! (Intel white paper 323640, rev. 2.02): Karatsuba for the 128×128 product,
//! reduction by two carry-less multiplications by the constant 0xc2…01
//! (here a Montgomery reduction, which is where POLYVAL's `x^(−128)` comes
//! from), and *aggregated reduction* — summing `Xᵢ·H^k` over many blocks
//! with precomputed powers of H and reducing once.
//!
//! ```
//! use fieldwork::ghash::{polyval, Polyval};
//!
//! let h = [7u8; 16];
//! let data = [1u8; 100];
//! let mut p = Polyval::new(&h);
//! p.update(&data[..33]);
//! p.update(&data[33..]);
//! assert_eq!(p.finalize(), polyval(&h, &data));
//! ```
//!
//! # RustCrypto traits
//!
//! [`GHash`] and [`Polyval`] implement `universal-hash` 0.6's
//! [`KeyInit`], [`UniversalHash`] and [`Reset`] (re-exported as
//! [`universal_hash`]), so generic code written for RustCrypto's `ghash` and
//! `polyval` crates takes them unchanged. The inherent `new(&[u8; 16])`,
//! `update(&[u8])` and `finalize() -> [u8; 16]` stay and win method
//! resolution; the trait methods of the same names are reached by
//! qualified calls (`UniversalHash::finalize(g)`). Blocks given through the
//! trait continue the byte stream of the inherent `update`. The trait's
//! `update` and `update_padded` hand the data to the kernels directly (as
//! fast as the inherent `update`); its backend, for `update_with_backend`
//! with a closure of one's own, takes
//! [`ParBlocksSize`](universal_hash::common::ParBlocksSizeUser) = 128
//! blocks per call (four of the widest aggregated steps) and collects
//! single blocks into groups before hashing them, so every path reaches the
//! aggregated kernels.
//!
//! ```
//! use fieldwork::ghash::{ghash, GHash};
//! use fieldwork::ghash::universal_hash::{KeyInit, UniversalHash};
//!
//! let h = [0x42u8; 16];
//! let mut g = <GHash as KeyInit>::new(&h.into());
//! g.update_padded(b"a 21-byte message ...");
//! let tag = UniversalHash::finalize(g);
//! assert_eq!(tag.0, ghash(&h, b"a 21-byte message ..."));
//! ```
//!
//! # The white paper's algorithm progression
//!
//! With the cargo feature `reproduce`, `ghash::reproduce::ghash_with`
//! computes GHASH with a chosen algorithm of the Intel white paper's
//! progression (one block at a time with each reduction, then aggregated
//! over 4 to 32 blocks on xmm, ymm and zmm), to be compared
//! (`peer-bench --filter ghash_progression`); [`ghash`] and [`GHash`] choose
//! the fastest on their own.
//!
//! # Backends and dispatch
//!
//! Each backend file implements the one crate-private `Backend` trait
//! (`portable.rs`, `clmul.rs` for xmm, `ymm.rs`, `vpclmul.rs` for zmm;
//! on AArch64 `pmull.rs`: `pmull` with PMULL/PMULL2 and `pmull-eor3`
//! with `EOR3` where SHA3 is present, 8-block groups, no wide group):
//! its powers of `H`, its wide group if it has one, its `update` of whole
//! blocks, and (ymm) a fresh key's first group fused with its key setup. A
//! key holds one `Dispatch` value (the best backend, chosen when the key
//! is made) and one byte of tuning beside it (`tuning::Narrow`, from the
//! table in `tuning.rs`, keyed by vendor, family and model); every call is
//! then one `match` on the backend that takes it (`Dispatch::for_call`)
//! and one generic `State::absorb` over `Backend`. Every backend and every
//! vendor's choice is reachable by name through [`crate::hazmat`].
//!
//! # Short messages
//!
//! Which kernel runs depends on the call's length and on whether the wide
//! kernels' powers (16 or 32 of them, in a boxed table) are already made;
//! the choice is the tuning table's:
//!
//! - AMD with AVX-512, `vpclmulqdq-split`: calls of fewer than 32 blocks,
//!   and what a call's 32-block groups leave, run on the ymm kernel (its
//!   fused key setup for 2–8 blocks, 16-block groups); the zmm kernel's
//!   xmm tails and its 32 powers cost more than they save below 1.5 KiB. A
//!   call that would first make the zmm kernel's 32 powers stays on ymm
//!   below 128 blocks (the table's `zmm_fresh_below`; with the powers
//!   made, the zmm kernel takes 32 blocks and more).
//! - Intel (and any other vendor) with AVX-512, `vpclmulqdq-split-xmm`:
//!   ymm below 32 blocks, xmm for a fresh key below 128, zmm (with xmm
//!   tails) otherwise; without AVX-512, `vpclmulqdq-ymm-fresh-xmm`: xmm
//!   for a fresh key from 32 to 191 blocks, ymm otherwise. There the xmm
//!   kernel, whose eight powers live in the state, is the faster for a
//!   fresh key's mid-length calls.
//! - Ice Lake (Intel family 6 model 106), where `vpclmulqdq` on ymm
//!   issues at half the xmm rate per 128-bit lane: the same names, with
//!   the xmm kernel from one block (ymm never runs short calls) and a
//!   fresh zmm key on xmm below 256 blocks; capped to avx2, the xmm
//!   kernel for every fresh call below 65 535 blocks.
//! - AMD Zen 3 (AVX2 and VPCLMULQDQ, no AVX-512), the same
//!   `vpclmulqdq-ymm-fresh-xmm` choice with its own bound: xmm for a fresh
//!   key from 32 to 63 blocks (the crossover measured there), ymm
//!   otherwise. Other AMD cores without AVX-512 (Zen 4 capped to avx2)
//!   keep the ymm kernel alone.
//!
//! - AArch64 (`pmull`, `pmull-eor3`): a fresh key's calls of at most
//!   16 blocks (`tuning.rs`'s `PMULL` table) run Horner's rule on `H`
//!   alone, one R/F product and a one-`PMULL` reduction per block, no
//!   powers made (`Backend::fresh_horner`); longer calls make the eight
//!   powers and run 8-block groups.
//!
//! A 64-byte POLYVAL (key setup included, `examples/polyval_one.rs` under
//! callgrind at `FIELDWORK_MAX_ISA=clmul`) is about 500 instructions: the
//! powers H²…H⁴ (≈ 120), the aggregated step (≈ 140), the 208-byte copy
//! when `finalize(self)` moves the state (40). The table of wide powers is
//! boxed (with `alloc`), so that copy stays small and only messages of 16
//! blocks or more pay for the table. Measured history of these choices:
//! `docs/notes/ghash.md`.
//!
//! Rejected:
//!
//! - The "R/F" form of RustCrypto's `polyval` 0.7.3 (ePrint 2025/2171
//!   §3.3: `D = H·x^(−64)` stored per power, a dot product of four
//!   carry-less products and a one-product reduction) — computing `D` per
//!   message costs the clmul the reduction saves; it pays only with `D`
//!   kept per key, twice the state that `finalize(self)` copies.
//! - `#[inline]` on `Polyval`'s `new`, `update` and `finalize`, to build
//!   and finish the state in place — the copy stayed.

#[cfg(target_arch = "x86_64")]
pub(crate) mod aggregate;
#[cfg(target_arch = "x86_64")]
mod clmul;
mod field;
#[cfg(target_arch = "aarch64")]
pub(crate) mod pmull;
mod portable;
#[cfg(feature = "reproduce")]
pub mod reproduce;
// Its tables are x86 cores'; on other targets only `Narrow::None` is used.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
mod tuning;
#[cfg(target_arch = "x86_64")]
mod vpclmul;
#[cfg(target_arch = "x86_64")]
mod ymm;

/// RustCrypto's `universal-hash` crate (0.6), whose traits [`GHash`] and
/// [`Polyval`] implement; re-exported so that users can name them
/// (`fieldwork::ghash::universal_hash::{KeyInit, UniversalHash}`).
pub use universal_hash;

use crate::cpu;
use core::fmt;
use universal_hash::{
    Block, Key, KeyInit, Reset, UhfClosure, UniversalHash,
    array::Array,
    common::{BlockSizeUser, KeySizeUser},
    consts::{U16, U128},
    typenum::Unsigned,
};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
pub(crate) use field::C_HI;
use field::{POWERS, mont_reduce, mul_x};
use tuning::Narrow;

/// Powers every kernel's short groups use (groups of at most eight).
const LOW: usize = 8;
/// A key's first [`LOW`] powers (see [`State`]).
type Low = [u128; LOW];
/// What [`Backend::fresh_group`] returns: the accumulator and the count
/// of powers made, or nothing where the backend has no fused path.
type Fused = Option<(u128, usize)>;

/// One GHASH/POLYVAL backend: the kernels of one instruction set, with the
/// same signatures in every backend file ([`portable::Portable`],
/// `clmul::Pclmulqdq`, `ymm::VpclmulqdqYmm`, `vpclmul::Vpclmulqdq`).
///
/// A key ([`State`]) makes the powers of `H` a call needs when the call
/// first needs them ([`Backend::powers_for`], [`Backend::powers`],
/// [`Backend::extend_powers`]) and hands the call's whole blocks to
/// [`Backend::update`], all through one generic function
/// ([`State::absorb`]); which backend takes a call is the key's
/// [`Dispatch`] and, for the wide kernels, its tuned [`Narrow`] choice.
/// Every method is constant time in the key and the data.
pub(crate) trait Backend: Copy {
    /// The capability token that proves the backend's instructions (`()`
    /// for the portable backend).
    type Token: Copy;
    /// The backend's name, without a tuned choice (`backend_name()`).
    const NAME: &'static str;
    /// The powers of the backend's wide group (16 on ymm, 32 on zmm).
    const WIDE_POWERS: usize = LOW;
    /// The blocks from which a call takes the wide group (none by default).
    const WIDE_FROM: usize = usize::MAX;
    /// The backend on the CPU that `token` proves.
    fn new(token: Self::Token) -> Self;
    /// How many powers [`Backend::update`] needs for a call of `n` whole
    /// blocks: `min(n, 8)`, or the wide group's when `n` is long enough
    /// for it.
    #[inline(always)]
    fn powers_for(n: usize) -> usize {
        if n >= Self::WIDE_FROM {
            Self::WIDE_POWERS
        } else {
            n.min(LOW)
        }
    }
    /// The dot-powers `H^(from + 1) … H^(out.len())` into `out` (`out[0]`
    /// is `H` and `out[..from]` are made; the wide backends make the first
    /// eight this way, [`Backend::extend_powers`] the others).
    fn powers(self, out: &mut [u128], from: usize);
    /// `table[8..upto]` from the eight powers in `table[..8]`, for an
    /// `upto` returned by [`Backend::powers_for`] above eight.
    #[inline]
    fn extend_powers(self, table: &mut [u128; POWERS], upto: usize) {
        self.powers(table.get_mut(..upto).unwrap_or_default(), LOW);
    }
    /// `acc` after absorbing the whole blocks of `data` (byte-reversed
    /// first if `reflect`: GHASH), with the `powers_for(n)` powers made.
    fn update(self, powers: &[u128], acc: u128, data: &[u8], reflect: bool) -> u128;
    /// A fresh key's first call of two to eight blocks with the key setup
    /// fused in (`low[0]` = `H`, nothing else made), where the backend has
    /// such a path: the new accumulator and how many powers `low` holds.
    #[inline(always)]
    fn fresh_group(self, low: &mut Low, acc: u128, data: &[u8], reflect: bool) -> Fused {
        let _ = (low, acc, data, reflect);
        None
    }
    /// A fresh key's call (`h` = `H`, no other power made) of whole
    /// blocks by Horner's rule on `H` alone, where the backend has such a
    /// path and its tuning takes calls this short on it: the new
    /// accumulator, the key's powers still unmade (`pmull`; the default,
    /// `None`, folds away).
    #[inline(always)]
    fn fresh_horner(self, h: u128, acc: u128, data: &[u8], reflect: bool) -> Option<u128> {
        let _ = (h, acc, data, reflect);
        None
    }
}

/// The items every token-holding backend writes alike in its
/// [`Backend`] impl: its token, its name, its constructor, and its wide
/// group if it has one (`wide: powers from blocks`).
macro_rules! backend_items {
    ($token:ty, $name:literal $(, wide: $powers:ident from $from:ident)?) => {
        type Token = $token;
        const NAME: &'static str = $name;
        $(
            const WIDE_POWERS: usize = $powers;
            const WIDE_FROM: usize = $from;
        )?
        #[inline(always)]
        fn new(t: $token) -> Self {
            Self(t)
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use backend_items;

/// The kernel of [`polyval_short`].
#[derive(Clone, Copy)]
pub(crate) enum Short {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Xmm(cpu::Clmul),
    #[cfg(target_arch = "x86_64")]
    Ymm(cpu::Avx2Clmul),
    #[cfg(target_arch = "aarch64")]
    Pmull(cpu::NeonAes),
}

/// Most blocks [`polyval_short`] takes.
pub(crate) const SHORT_BLOCKS: usize = LOW;

/// POLYVAL under `h` of `data`, whole blocks, at most [`SHORT_BLOCKS`] of
/// them (more are an error of the caller: the hash is then of the first
/// eight only), in one call and without a [`Polyval`] state to build, move
/// on `finalize` and wipe: AES-GCM-SIV's short messages. On ymm the key
/// setup is fused with the group ([`Backend::fresh_group`]); the powers
/// are wiped before returning.
pub(crate) fn polyval_short(kernel: Short, h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let data = data
        .get(..data.len().min(16 * SHORT_BLOCKS))
        .unwrap_or_default();
    let mut low = [0u128; LOW];
    low[0] = u128::from_le_bytes(*h);
    let acc = match kernel {
        #[cfg(target_arch = "x86_64")]
        Short::Ymm(t) => short_on(ymm::VpclmulqdqYmm::new(t), &mut low, data),
        #[cfg(target_arch = "x86_64")]
        Short::Xmm(t) => short_on(clmul::Pclmulqdq::new(t), &mut low, data),
        #[cfg(target_arch = "aarch64")]
        Short::Pmull(t) => short_on(pmull::Pmull::new(t), &mut low, data),
        Short::Portable => short_on(portable::Portable, &mut low, data),
    };
    crate::wipe::wipe(&mut low);
    acc.to_le_bytes()
}

/// [`polyval_short`] on `b`: the fused key setup and group where `b` has
/// one, else the powers `data` needs, then the blocks.
#[inline(always)]
fn short_on<B: Backend>(b: B, low: &mut [u128; LOW], data: &[u8]) -> u128 {
    if let Some(acc) = b.fresh_horner(low[0], 0, data, false) {
        return acc;
    }
    let n = data.len() / 16;
    if n >= 2 {
        if let Some((acc, _)) = b.fresh_group(low, 0, data, false) {
            return acc;
        }
        b.powers(low.get_mut(..B::powers_for(n)).unwrap_or_default(), 1);
    }
    b.update(low, 0, data, false)
}

/// `dot(a, b) = a·b·x^(−128)` on the portable backend (constant time).
#[inline]
pub(crate) fn dot_portable(a: u128, b: u128) -> u128 {
    let (lo, hi) = portable::clmul128(a, b);
    mont_reduce(lo, hi)
}

crate::dispatch::backend_enum! { $ on_backend;
    /// A key's backend, chosen once when the key is made: each variant
    /// holds one backend's value (its capability token). The tuned choice
    /// of a wide backend ([`Narrow`]) is a byte of its own beside it in
    /// [`State`], so the enum stays one byte.
    #[derive(Clone, Copy, Debug)]
    enum Dispatch {
        x86_64:
            /// zmm (AVX-512 and VPCLMULQDQ).
            Vpclmulqdq(vpclmul::Vpclmulqdq),
            /// ymm (AVX2 and VPCLMULQDQ).
            VpclmulqdqYmm(ymm::VpclmulqdqYmm),
            /// xmm (PCLMULQDQ).
            Pclmulqdq(clmul::Pclmulqdq);
        aarch64:
            /// AArch64 PMULL with `EOR3` (SHA3).
            PmullEor3(pmull::PmullEor3),
            /// AArch64 PMULL/PMULL2 (the AES extension).
            Pmull(pmull::Pmull);
        portable:
            /// Portable.
            Portable(portable::Portable)
    }
}

/// Every backend and tuned choice by name, best first (the order of
/// [`Dispatch::best`]; which split is the default depends on the core).
#[cfg(target_arch = "x86_64")]
const NAMES: &[&str] = &[
    "vpclmulqdq-split-xmm",
    "vpclmulqdq-split",
    "vpclmulqdq",
    "vpclmulqdq-ymm-fresh-xmm",
    "vpclmulqdq-ymm",
    "pclmulqdq",
    "portable",
];
#[cfg(target_arch = "aarch64")]
const NAMES: &[&str] = &["pmull-eor3", "pmull", "portable"];
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const NAMES: &[&str] = &["portable"];

impl Dispatch {
    /// The best backend this CPU runs, with this core's choice from the
    /// tuning table (`tuning.rs`). Not `#[inline]`: inlined into `new`,
    /// it made `new` too large to inline into its caller, which then
    /// received the 208-byte key through memory, one more copy (a 16-byte
    /// POLYVAL with key setup 18.7 → 22.7 ns on the Xeon f6m207).
    fn best() -> (Dispatch, Narrow) {
        #[cfg(target_arch = "x86_64")]
        let found = cpu::Avx512Clmul::get()
            .map(|t| {
                let zmm = Dispatch::Vpclmulqdq(vpclmul::Vpclmulqdq::new(t));
                (zmm, tuning::GhashTuning::this_cpu().zmm)
            })
            .or_else(|| {
                let ymm = cpu::Avx2Clmul::get()?;
                let ymm = Dispatch::VpclmulqdqYmm(ymm::VpclmulqdqYmm::new(ymm));
                Some((ymm, tuning::GhashTuning::this_cpu().ymm))
            })
            .or_else(|| {
                let xmm = clmul::Pclmulqdq::new(cpu::Clmul::get()?);
                Some((Dispatch::Pclmulqdq(xmm), Narrow::None))
            });
        #[cfg(target_arch = "aarch64")]
        let found = cpu::NeonSha3::get()
            .map(|t| (Dispatch::PmullEor3(pmull::PmullEor3::new(t)), Narrow::None))
            .or_else(|| {
                Some((
                    Dispatch::Pmull(pmull::Pmull::new(cpu::NeonAes::get()?)),
                    Narrow::None,
                ))
            });
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        let found = None;
        found.unwrap_or((Dispatch::Portable(portable::Portable), Narrow::None))
    }

    /// The backend and choice called `name` (one of [`NAMES`]), if this CPU
    /// runs it: every vendor's choice on any CPU with the instructions.
    #[inline]
    fn by_name(name: &str) -> Option<(Dispatch, Narrow)> {
        #[cfg(target_arch = "x86_64")]
        {
            let zmm = |narrow| {
                cpu::Avx512Clmul::get()
                    .map(|t| (Dispatch::Vpclmulqdq(vpclmul::Vpclmulqdq::new(t)), narrow))
            };
            let ymm = |narrow| {
                cpu::Avx2Clmul::get()
                    .map(|t| (Dispatch::VpclmulqdqYmm(ymm::VpclmulqdqYmm::new(t)), narrow))
            };
            match name {
                "vpclmulqdq-split-xmm" => return zmm(Narrow::Xmm),
                "vpclmulqdq-split" => return zmm(Narrow::Ymm),
                "vpclmulqdq" => return zmm(Narrow::None),
                "vpclmulqdq-ymm-fresh-xmm" => return ymm(Narrow::Xmm),
                "vpclmulqdq-ymm" => return ymm(Narrow::None),
                "pclmulqdq" => {
                    return cpu::Clmul::get()
                        .map(|t| (Dispatch::Pclmulqdq(clmul::Pclmulqdq::new(t)), Narrow::None));
                }
                _ => {}
            }
        }
        #[cfg(target_arch = "aarch64")]
        match name {
            "pmull-eor3" => {
                return cpu::NeonSha3::get()
                    .map(|t| (Dispatch::PmullEor3(pmull::PmullEor3::new(t)), Narrow::None));
            }
            "pmull" => {
                return cpu::NeonAes::get()
                    .map(|t| (Dispatch::Pmull(pmull::Pmull::new(t)), Narrow::None));
            }
            _ => {}
        }
        (name == portable::Portable::NAME)
            .then_some((Dispatch::Portable(portable::Portable), Narrow::None))
    }

    /// The backend that takes a call of `n` whole blocks on a key with
    /// the choice `narrow` and `ready` powers made, and for a zmm call the
    /// kernel of its groups' last blocks ([`Narrow::Ymm`]: ymm, else xmm).
    /// Making a wide kernel's powers (and the box that holds them) costs
    /// more than its groups save on a mid-length call:
    ///
    /// - a zmm key with a choice: below [`POWERS`] blocks the ymm kernel
    ///   (its short path needs eight powers), or with [`Narrow::Xmm`] the
    ///   xmm kernel from the core's `xmm_from` blocks; the chosen kernel
    ///   below the core's `zmm_fresh_below` blocks while the 32 powers are
    ///   not made; else the zmm kernel, its groups' last blocks on the
    ///   chosen kernel;
    /// - a ymm key with [`Narrow::Xmm`]: the xmm kernel from the core's
    ///   `xmm_from` to its `ymm_xmm_below` blocks while the 16 ymm powers
    ///   are not made;
    /// - otherwise the key's backend alone.
    ///
    /// The bounds are the cached table's (`tuning.rs`), read only on the
    /// calls of a key with a choice that may leave the key's kernel.
    #[inline(always)]
    fn for_call(self, narrow: Narrow, n: usize, ready: usize) -> (Dispatch, Narrow) {
        #[cfg(target_arch = "x86_64")]
        match (self, narrow) {
            (Dispatch::Vpclmulqdq(_), Narrow::None) => {}
            // With the 32 powers made, a call of 32 blocks or more is the
            // zmm kernel's: no table read on the steady state of a stream.
            (Dispatch::Vpclmulqdq(b), _) if n < POWERS || ready < POWERS => {
                let t = tuning::GhashTuning::this_cpu();
                if n < POWERS || n < usize::from(t.zmm_fresh_below) {
                    return if narrow == Narrow::Xmm && n >= usize::from(t.xmm_from) {
                        (Dispatch::Pclmulqdq(b.xmm()), Narrow::None)
                    } else {
                        (Dispatch::VpclmulqdqYmm(b.ymm()), Narrow::None)
                    };
                }
            }
            (Dispatch::VpclmulqdqYmm(b), Narrow::Xmm) if ready < ymm::GROUP => {
                let t = tuning::GhashTuning::this_cpu();
                if n >= usize::from(t.xmm_from) && n < usize::from(t.ymm_xmm_below) {
                    return (Dispatch::Pclmulqdq(b.xmm()), Narrow::None);
                }
            }
            _ => {}
        }
        let _ = (n, ready);
        (self, narrow)
    }

    /// The name of the backend with the choice `narrow` (see [`NAMES`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    fn name(self, narrow: Narrow) -> &'static str {
        #[cfg(target_arch = "x86_64")]
        match (self, narrow) {
            (Dispatch::Vpclmulqdq(_), Narrow::Ymm) => return "vpclmulqdq-split",
            (Dispatch::Vpclmulqdq(_), Narrow::Xmm) => return "vpclmulqdq-split-xmm",
            (Dispatch::VpclmulqdqYmm(_), Narrow::Xmm) => return "vpclmulqdq-ymm-fresh-xmm",
            _ => {}
        }
        fn name_of<B: Backend>(_: B) -> &'static str {
            B::NAME
        }
        on_backend!(self, b => name_of(b))
    }
}

/// POLYVAL (RFC 8452) with streaming input.
///
/// `update` takes any number of bytes; a final partial block is padded with
/// zeros by `finalize`, as in AES-GCM-SIV. Any split of the input into
/// `update` calls gives the same result. The key material is zeroized on
/// drop. Constant time in the key and the data.
///
/// ```
/// use fieldwork::ghash::Polyval;
///
/// let mut p = Polyval::new(&[0x42; 16]);
/// p.update(b"sixteen byte blk");
/// let tag: [u8; 16] = p.finalize();
/// assert_ne!(tag, [0; 16]);
/// ```
#[derive(Clone)]
pub struct Polyval {
    inner: State,
}

/// GHASH (NIST SP 800-38D) with streaming input; see [`Polyval`] for the
/// streaming rules. Blocks and the result use GCM's byte order.
///
/// ```
/// use fieldwork::ghash::{ghash, GHash};
///
/// let h = [0x66; 16];
/// let mut g = GHash::new(&h);
/// g.update(b"any split ");
/// g.update(b"gives the same result");
/// assert_eq!(g.finalize(), ghash(&h, b"any split gives the same result"));
/// ```
#[derive(Clone)]
pub struct GHash {
    inner: State,
}

/// The table of all [`POWERS`] dot-powers. On the heap where there is one:
/// `finalize(self)` moves the state, and LLVM keeps that move as a copy of
/// the whole struct (720 bytes with the table inline: a `memcpy` of about
/// 100 instructions, a sixth of a 64-byte POLYVAL). The allocation is paid
/// only by messages long enough for the wide kernels (16 blocks or more).
#[cfg(feature = "alloc")]
type WidePowers = alloc::boxed::Box<[u128; POWERS]>;
#[cfg(not(feature = "alloc"))]
type WidePowers = [u128; POWERS];

/// The shared engine: key powers, accumulator, partial-block buffer.
#[derive(Clone)]
struct State {
    dispatch: Dispatch,
    /// The tuned choice of a wide backend (`tuning.rs`), picked when the
    /// key is made.
    narrow: Narrow,
    /// `low[k − 1]` = the dot-power `H^k·x^(−128(k−1))` for `k ≤ 8`, so
    /// that `dot(X, low[k−1]) = X·H^k·x^(−128k)`: what every kernel uses
    /// for groups of at most eight blocks.
    low: [u128; LOW],
    /// All [`POWERS`] dot-powers (the first eight repeated), made when the
    /// zmm kernel first meets a whole 32-block group. Kept apart so that a
    /// new state writes 128 bytes of powers, not 512: for a one-block
    /// message the 512-byte fill cost about as much as the hash.
    wide: Option<WidePowers>,
    /// How many powers are computed (in `low`, then in `wide`).
    ready: usize,
    acc: u128,
    buf: [u8; 16],
    buffered: usize,
    /// Blocks are byte-reversed (GHASH) before entering POLYVAL.
    reflect: bool,
}

impl State {
    fn new(h: u128, reflect: bool, (dispatch, narrow): (Dispatch, Narrow)) -> State {
        let mut low = [0u128; LOW];
        low[0] = h;
        State {
            dispatch,
            narrow,
            low,
            wide: None,
            ready: 1,
            acc: 0,
            buf: [0; 16],
            buffered: 0,
            reflect,
        }
    }

    /// Prepares the powers `b` needs for a call of `n` blocks (at most
    /// [`POWERS`]) if not yet done: key setup is paid for the powers a
    /// message needs, so short messages stay cheap.
    #[inline]
    fn ensure_powers<B: Backend>(&mut self, b: B, n: usize) {
        // The zmm kernel takes 32 blocks per reduction, the ymm kernel 16;
        // everything else (the xmm kernel, and the wide kernels' tails)
        // takes groups of at most 8.
        let upto = B::powers_for(n);
        if self.ready < upto {
            self.make_powers(b, upto);
        }
    }

    /// Makes the powers `H^(ready + 1) … H^upto` (`ready < upto ≤
    /// POWERS`).
    // Key setup on fixed arrays: `ready < upto ≤ POWERS`, `LOW ≤ POWERS`.
    #[allow(clippy::indexing_slicing)]
    fn make_powers<B: Backend>(&mut self, b: B, upto: usize) {
        if self.ready < LOW {
            b.powers(&mut self.low[..upto.min(LOW)], self.ready);
            self.ready = upto.min(LOW);
        }
        if upto > LOW {
            // A split key's table of 16 ymm powers is extended in place
            // when the zmm kernel first needs 32.
            let mut all = match self.wide.take() {
                Some(table) => table,
                #[cfg(feature = "alloc")]
                None => alloc::boxed::Box::new([0u128; POWERS]),
                #[cfg(not(feature = "alloc"))]
                None => [0u128; POWERS],
            };
            let table: &mut [u128; POWERS] = &mut all;
            table[..LOW].copy_from_slice(&self.low);
            b.extend_powers(table, upto);
            self.wide = Some(all);
            // Inline, `Some(all)` took a copy: wipe the stack original.
            #[cfg(not(feature = "alloc"))]
            all.zeroize();
            self.ready = upto;
        }
    }

    /// The computed powers: `powers()[k − 1]` is the dot-power of `H^k`,
    /// for `k ≤ ready`.
    fn powers(&self) -> &[u128] {
        match &self.wide {
            Some(all) => &all[..],
            None => &self.low,
        }
    }

    /// Absorbs whole 16-byte blocks on the backend that takes the call
    /// ([`Dispatch::for_call`]).
    fn blocks(&mut self, data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        // One match on the backend of this call, each arm one instance of
        // `absorb` inlined (a match per choice, each arm calling an
        // out-of-line `absorb`, cost a 16-byte POLYVAL with key setup 2 ns
        // on the Xeon f6m207: a second frame).
        match self
            .dispatch
            .for_call(self.narrow, data.len() / 16, self.ready)
        {
            #[cfg(target_arch = "x86_64")]
            (Dispatch::Vpclmulqdq(b), Narrow::Ymm) => {
                // AMD's split key: the zmm groups, then what they leave on
                // the ymm kernel (a 16-block group if there is one), with
                // the 32 powers made.
                let (whole, rest) = data.split_at(data.len() - data.len() % (16 * POWERS));
                self.absorb(b, whole);
                if !rest.is_empty() {
                    self.acc = b
                        .ymm()
                        .update_rest(self.powers(), self.acc, rest, self.reflect);
                }
            }
            #[cfg(target_arch = "x86_64")]
            (Dispatch::Vpclmulqdq(b), Narrow::None | Narrow::Xmm) => self.absorb(b, data),
            #[cfg(target_arch = "x86_64")]
            (Dispatch::VpclmulqdqYmm(b), _) => self.absorb(b, data),
            #[cfg(target_arch = "x86_64")]
            (Dispatch::Pclmulqdq(b), _) => self.absorb(b, data),
            #[cfg(target_arch = "aarch64")]
            (Dispatch::PmullEor3(b), _) => self.absorb(b, data),
            #[cfg(target_arch = "aarch64")]
            (Dispatch::Pmull(b), _) => self.absorb(b, data),
            (Dispatch::Portable(b), _) => self.absorb(b, data),
        }
    }

    /// Absorbs whole blocks on the backend `b`: a fresh key's first short
    /// call through its fused key setup where it has one, else the powers
    /// the call needs, then the blocks.
    #[inline(always)]
    fn absorb<B: Backend>(&mut self, b: B, data: &[u8]) {
        if self.ready == 1
            && let Some(acc) = b.fresh_horner(self.low[0], self.acc, data, self.reflect)
        {
            self.acc = acc;
            return;
        }
        let n = data.len() / 16;
        if self.ready == 1
            && (2..=LOW).contains(&n)
            && let Some((acc, ready)) = b.fresh_group(&mut self.low, self.acc, data, self.reflect)
        {
            self.acc = acc;
            self.ready = ready;
            return;
        }
        self.ensure_powers(b, n);
        self.acc = b.update(self.powers(), self.acc, data, self.reflect);
    }

    fn update(&mut self, mut data: &[u8]) {
        if self.buffered > 0 {
            let take = (16 - self.buffered).min(data.len());
            let (head, tail) = data.split_at(take);
            // `buffered + take ≤ 16`: always a slice of the buffer.
            if let Some(dst) = self.buf.get_mut(self.buffered..self.buffered + take) {
                dst.copy_from_slice(head);
            }
            self.buffered += take;
            data = tail;
            if self.buffered < 16 {
                return;
            }
            let b = self.buf;
            self.blocks(&b);
            self.buffered = 0;
        }
        let (whole, rest) = data.split_at(data.len() - data.len() % 16);
        if !whole.is_empty() {
            self.blocks(whole);
        }
        // Guarded: a variable-length copy is a call to `memcpy`, which cost
        // a one-block hash a fifth of its time when it copied nothing
        // (callgrind, 16–256-byte POLYVAL). `rest.len() < 16`.
        if !rest.is_empty()
            && let Some(dst) = self.buf.get_mut(..rest.len())
        {
            dst.copy_from_slice(rest);
        }
        self.buffered = rest.len();
    }

    /// The hash of everything absorbed, with a final partial block
    /// zero-padded. Takes `&mut self`, not `self`: moving the state (half a
    /// kilobyte of powers) into a by-value call cost more than hashing a
    /// short message (peer-bench's one-shot rows: new + drop took about
    /// twice as long by value).
    fn finalize(&mut self) -> u128 {
        if self.buffered > 0 {
            let mut b = [0u8; 16];
            for (d, s) in b.iter_mut().zip(&self.buf).take(self.buffered) {
                *d = *s;
            }
            self.blocks(&b);
            self.buffered = 0;
        }
        self.acc
    }
}

impl State {
    /// Back to the empty message, keeping the key and its powers.
    fn reset(&mut self) {
        self.acc = 0;
        self.buf.zeroize();
        self.buffered = 0;
    }
}

impl Drop for State {
    fn drop(&mut self) {
        // Only the computed powers hold key material.
        self.low
            .iter_mut()
            .take(self.ready)
            .for_each(Zeroize::zeroize);
        if let Some(all) = self.wide.as_mut() {
            all[..].zeroize();
        }
        self.acc.zeroize();
        // One 16-byte store kept by `black_box`, not `zeroize`'s sixteen
        // volatile byte stores (see `uhf::Buffered::clear`).
        self.buf = [0; 16];
        core::hint::black_box(&mut self.buf);
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for State {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        s.secret("powers H^1..H^8", &self.low);
        // Inline without `alloc`; with it the table is on the heap, wiped
        // by `Drop` before the box is freed (which this read-back after the
        // drop cannot see: the memory is gone).
        #[cfg(not(feature = "alloc"))]
        if let Some(wide) = &self.wide {
            s.secret("powers H^1..H^32", wide);
        }
        s.secret("accumulator", &self.acc);
        s.secret("buffered block", &self.buf);
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Polyval {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.inner.secret_spans(s);
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for GHash {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.inner.secret_spans(s);
    }
}

/// `dot(a, b) = a·b·x^(−128)` with PCLMULQDQ: the product of the dot-powers
/// `H^i` and `H^j` is `H^(i+j)` (for the AES-GCM kernels' tables beyond
/// [`POWERS`]).
#[cfg(target_arch = "x86_64")]
pub(crate) fn dot(t: cpu::Clmul, a: u128, b: u128) -> u128 {
    clmul::Pclmulqdq::new(t).dot(a, b)
}

/// `H = AES(K, 0^128)` in POLYVAL's domain, `mulX(ByteReverse(H))`: the
/// AES-GCM engines' GHASH key (RFC 8452 appendix A). Their accumulator is
/// POLYVAL's, i.e. the byte-reversed GHASH state.
#[inline]
pub(crate) fn gcm_key(h: &[u8; 16]) -> u128 {
    mul_x(u128::from_be_bytes(*h))
}

/// The dot-powers `H^1 … H^32` of the GCM key `h` ([`gcm_key`]),
/// ascending, as the zmm GHASH kernel computes its own (for the zmm
/// AES-GCM kernel's tables).
#[cfg(target_arch = "x86_64")]
pub(crate) fn gcm_powers_zmm(t: cpu::Avx512Clmul, h: u128) -> [u128; POWERS] {
    let mut all = [0u128; POWERS];
    all[0] = h;
    clmul::Pclmulqdq::new(t.clmul()).powers(&mut all[..LOW], 1);
    vpclmul::Vpclmulqdq::new(t).extend_powers(&mut all, POWERS);
    all
}

/// The dot-powers `H^1 … H^32` of the GCM key `h` ([`gcm_key`]),
/// ascending, with PCLMULQDQ (for the ymm and xmm AES-GCM kernels' tables).
#[cfg(target_arch = "x86_64")]
pub(crate) fn gcm_powers_xmm(t: cpu::Clmul, h: u128) -> [u128; POWERS] {
    let mut all = [0u128; POWERS];
    all[0] = h;
    let b = clmul::Pclmulqdq::new(t);
    b.powers(&mut all[..LOW], 1);
    b.powers(&mut all, LOW);
    all
}

/// `acc` after absorbing `data` in GCM's byte order, a final partial block
/// padded with zeros (SP 800-38D's `A ∥ 0^v`, `C ∥ 0^u`), with
/// `absorb(acc, whole_blocks)`.
#[inline]
fn gcm_padded(acc: u128, data: &[u8], absorb: impl Fn(u128, &[u8]) -> u128) -> u128 {
    let (whole, rest) = data.split_at(data.len() & !15);
    let mut acc = acc;
    if !whole.is_empty() {
        acc = absorb(acc, whole);
    }
    if !rest.is_empty() {
        let mut b = [0u8; 16];
        for (d, s) in b.iter_mut().zip(rest) {
            *d = *s;
        }
        acc = absorb(acc, &b);
        b.zeroize();
    }
    acc
}

/// GHASH of `data` (zero-padded) into `acc` for the GCM key `h`
/// ([`gcm_key`]) on the portable backend.
pub(crate) fn gcm_update_portable(h: u128, acc: u128, data: &[u8]) -> u128 {
    gcm_padded(acc, data, |acc, blocks| {
        portable::update(h, acc, blocks, true)
    })
}

/// GHASH of `data` (zero-padded) into `acc` with PCLMULQDQ; `powers` holds
/// the ascending dot-powers `H^1 … H^8` at least.
#[cfg(target_arch = "x86_64")]
pub(crate) fn gcm_update_clmul(t: cpu::Clmul, powers: &[u128], acc: u128, data: &[u8]) -> u128 {
    debug_assert!(powers.len() >= LOW);
    gcm_padded(acc, data, |acc, blocks| {
        clmul::Pclmulqdq::new(t).update(powers, acc, blocks, true)
    })
}

/// The dot-powers `H^2 … H^8` of the GCM key `powers[0]` ([`gcm_key`])
/// with PMULL (for the AArch64 AES-GCM kernel's table).
#[cfg(target_arch = "aarch64")]
pub(crate) fn gcm_powers_pmull(t: cpu::NeonAes, powers: &mut [u128; LOW]) {
    pmull::Pmull::new(t).powers(powers, 1);
}

/// GHASH of `data` (zero-padded) into `acc` with PMULL; `powers` holds the
/// ascending dot-powers `H^1 … H^8`.
#[cfg(target_arch = "aarch64")]
pub(crate) fn gcm_update_pmull(t: cpu::NeonAes, powers: &[u128], acc: u128, data: &[u8]) -> u128 {
    debug_assert!(powers.len() >= LOW);
    gcm_padded(acc, data, |acc, blocks| {
        pmull::Pmull::new(t).update(powers, acc, blocks, true)
    })
}

impl Polyval {
    /// The portable backend (AES-GCM-SIV's portable tier).
    #[inline]
    pub(crate) fn new_portable(h: &[u8; 16]) -> Polyval {
        Polyval::on(h, (Dispatch::Portable(portable::Portable), Narrow::None))
    }

    /// The PCLMULQDQ backend, if usable (AES-GCM-SIV's `aes-ni` tier).
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn new_pclmulqdq(h: &[u8; 16]) -> Option<Polyval> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Clmul::get() {
            return Some(Polyval::on(
                h,
                (Dispatch::Pclmulqdq(Backend::new(t)), Narrow::None),
            ));
        }
        let _ = h;
        None
    }

    /// The best backend of a CPU without AVX-512 (ymm, with this core's
    /// choice for a fresh key), if this CPU has VPCLMULQDQ and AVX2: the
    /// POLYVAL of AES-GCM-SIV's `vaes-avx2` tier.
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn new_ymm_tier(h: &[u8; 16]) -> Option<Polyval> {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = cpu::Avx2Clmul::get() {
            let b = Dispatch::VpclmulqdqYmm(ymm::VpclmulqdqYmm::new(t));
            return Some(Polyval::on(h, (b, tuning::GhashTuning::this_cpu().ymm)));
        }
        let _ = h;
        None
    }
}

/// One-shot POLYVAL of `data` (final partial block zero-padded).
pub fn polyval(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut p = Polyval::new(h);
    p.update(data);
    p.finalize()
}

/// One-shot GHASH of `data` (final partial block zero-padded).
pub fn ghash(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
    let mut g = GHash::new(h);
    g.update(data);
    g.finalize()
}

/// Blocks per `proc_par_blocks` call of the `universal-hash` backend
/// (`ParBlocksSize`): four groups of the widest aggregated step, so the
/// per-call cost of entering a kernel (the powers laid out in registers) is
/// spread over 2 KiB (with 32 blocks per call the trait path was clearly
/// slower than the inherent `update`; with 128 it is level with it).
type TraitParBlocks = U128;

/// Bytes the `universal-hash` backend collects single blocks in before
/// hashing them together: [`POWERS`] blocks, the widest aggregated step,
/// so a closure that feeds blocks one at a time still gets aggregated
/// reduction (see [`crate::uhf`]).
const TRAIT_PENDING: usize = 16 * POWERS;

// A parallel call holds whole groups of the widest aggregated step.
const _: () = assert!(<TraitParBlocks as Unsigned>::USIZE % POWERS == 0);

impl crate::uhf::Absorb for State {
    /// The inherent `update`: whole blocks go to the aggregated kernels.
    #[inline]
    fn absorb(&mut self, blocks: &[u8]) {
        self.update(blocks);
    }
}

/// POLYVAL's key: the 16 bytes as a little-endian field element.
#[inline]
fn polyval_key(h: &[u8; 16]) -> u128 {
    u128::from_le_bytes(*h)
}

/// Implements the constructor, the streaming methods,
/// [`crate::hazmat::Backends`] and the `universal-hash` traits for a
/// wrapper of [`State`]: its key in POLYVAL's domain is `$key(h)`, its
/// blocks are byte-reversed if `$reflect`, its tag is the accumulator in
/// the byte order `$to_bytes`.
macro_rules! keyed_impls {
    (
        $ty:ident, $what:literal,
        key: $key:ident ($key_doc:literal), reflect: $reflect:literal, tag: $to_bytes:ident
    ) => {
        impl $ty {
            #[doc = concat!(
                "A ", $what, " instance keyed by `h` (", $key_doc, "), on the fastest backend."
            )]
            #[inline]
            pub fn new(h: &[u8; 16]) -> $ty {
                $ty::on(h, Dispatch::best())
            }

            /// The key `h` on `backend`.
            #[inline]
            fn on(h: &[u8; 16], backend: (Dispatch, Narrow)) -> $ty {
                $ty {
                    inner: State::new($key(h), $reflect, backend),
                }
            }

            /// Absorbs `data` (any length; see [`Polyval`]).
            pub fn update(&mut self, data: &[u8]) {
                self.inner.update(data);
            }

            /// The hash, with a final partial block zero-padded.
            pub fn finalize(mut self) -> [u8; 16] {
                self.inner.finalize().$to_bytes()
            }

            /// The backend in use: `vpclmulqdq` (zmm), `vpclmulqdq-split`
            /// (zmm from 32 blocks, ymm below: AMD), `vpclmulqdq-split-xmm`
            /// (the same, with xmm for a fresh key's mid-length calls:
            /// Intel), `vpclmulqdq-ymm`, `vpclmulqdq-ymm-fresh-xmm` (Intel
            /// without AVX-512), `pclmulqdq`, `pmull-eor3` or `pmull`
            /// (AArch64) or `portable` (which one a CPU gets: `tuning.rs`).
            pub fn backend_name(&self) -> &'static str {
                self.inner.dispatch.name(self.inner.narrow)
            }
        }

        /// Every backend by name (see [`crate::hazmat`]):
        /// `vpclmulqdq-split-xmm`, `vpclmulqdq-split` and `vpclmulqdq` (zmm,
        /// with Intel's, AMD's or no narrower kernel for short and fresh
        /// calls), `vpclmulqdq-ymm-fresh-xmm` and `vpclmulqdq-ymm` (ymm,
        /// with Intel's or no choice for a fresh key), `pclmulqdq`,
        /// `pmull-eor3` and `pmull` (AArch64), `portable`; every vendor's
        /// choice runs on any CPU with the instructions.
        impl crate::hazmat::Backends for $ty {
            type Input<'a> = &'a [u8; 16];
            const NAMES: &'static [&'static str] = NAMES;

            /// `#[inline]`, so that with a constant name the match on it
            /// folds away (benchmarks construct keys by name in the timed
            /// loop).
            #[inline]
            fn with_backend(name: &str, h: &[u8; 16]) -> Option<$ty> {
                Dispatch::by_name(name).map(|b| $ty::on(h, b))
            }

            fn backend(&self) -> &'static str {
                self.backend_name()
            }
        }

        impl KeySizeUser for $ty {
            type KeySize = U16;
        }

        impl KeyInit for $ty {
            /// The inherent [`new`](Self::new): the fastest backend.
            fn new(key: &Key<Self>) -> Self {
                $ty::new(&key.0)
            }
        }

        impl BlockSizeUser for $ty {
            type BlockSize = U16;
        }

        impl UniversalHash for $ty {
            fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
                crate::uhf::update_with_backend::<_, TraitParBlocks, TRAIT_PENDING>(
                    &mut self.inner,
                    f,
                );
            }

            /// As the provided method, but the blocks go to the kernels in
            /// one call, without the backend's copies.
            #[inline]
            fn update(&mut self, blocks: &[Block<Self>]) {
                self.inner.update(Array::slice_as_flattened(blocks));
            }

            /// As the provided method (whole blocks, then the rest
            /// zero-padded to a block), without the backend's copies.
            #[inline]
            fn update_padded(&mut self, data: &[u8]) {
                let (whole, rest) = data.split_at(data.len() - data.len() % 16);
                self.inner.update(whole);
                if !rest.is_empty() {
                    let mut padded = [0u8; 16];
                    for (d, s) in padded.iter_mut().zip(rest) {
                        *d = *s;
                    }
                    self.inner.update(&padded);
                    padded.zeroize();
                }
            }

            /// The hash, as the inherent `finalize` (a partial block given
            /// to the inherent `update` is zero-padded).
            fn finalize(mut self) -> Block<Self> {
                Array(self.inner.finalize().$to_bytes())
            }
        }

        impl Reset for $ty {
            /// Back to the empty message; the key (and its computed powers)
            /// stays.
            fn reset(&mut self) {
                self.inner.reset();
            }
        }

        impl fmt::Debug for $ty {
            /// The backend only: the key and the state are secret.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("backend", &self.backend_name())
                    .finish_non_exhaustive()
            }
        }
    };
}

keyed_impls!(
    Polyval, "POLYVAL",
    key: polyval_key("16 bytes, a little-endian field element"), reflect: false, tag: to_le_bytes
);
// RFC 8452, appendix A: GHASH(H, X) = ByteReverse(POLYVAL(mulX(ByteReverse(
// H)), ByteReverse(X₁), …)); `gcm_key(h)` is `mulX(ByteReverse(H))`.
keyed_impls!(
    GHash, "GHASH",
    key: gcm_key("the hash key, in GCM's byte order"), reflect: true, tag: to_be_bytes
);

#[cfg(test)]
mod tests {
    use super::*;

    /// The stateless short POLYVAL equals the portable `Polyval` on every
    /// kernel this CPU has, at every block count it takes (and ignores
    /// blocks past them).
    #[test]
    fn polyval_short_matches_the_state() {
        let mut kernels = alloc::vec![Short::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            kernels.extend(cpu::Clmul::get().map(Short::Xmm));
            kernels.extend(cpu::Avx2Clmul::get().map(Short::Ymm));
        }
        #[cfg(target_arch = "aarch64")]
        kernels.extend(cpu::NeonAes::get().map(Short::Pmull));
        let h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(29) ^ 0xc3);
        let data: alloc::vec::Vec<u8> = (0..16 * (SHORT_BLOCKS + 1))
            .map(|i| (i as u8).wrapping_mul(13).wrapping_add(7))
            .collect();
        for n in 0..=SHORT_BLOCKS {
            let mut p = Polyval::new_portable(&h);
            p.update(&data[..16 * n]);
            let want = p.finalize();
            for &k in &kernels {
                assert_eq!(polyval_short(k, &h, &data[..16 * n]), want, "{n} blocks");
            }
        }
        for &k in &kernels {
            assert_eq!(
                polyval_short(k, &h, &data),
                polyval_short(k, &h, &data[..16 * SHORT_BLOCKS])
            );
        }
    }

    /// Bit-by-bit POLYVAL dot: a·b·x^(−128) mod P, by shift-and-add and
    /// 128 halvings.
    fn dot_ref(a: u128, b: u128) -> u128 {
        // a·b mod P by shift-and-add (mul_x is v·x mod P).
        let mut r = 0u128;
        let mut v = a;
        for i in 0..128 {
            if (b >> i) & 1 == 1 {
                r ^= v;
            }
            v = mul_x(v);
        }
        // Divide by x 128 times: x^(−1) = (v + v₀·P)/x.
        for _ in 0..128 {
            let low = r & 1;
            r >>= 1;
            if low == 1 {
                // (P − 1)/x = x^127 + x^126 + x^125 + x^120.
                r ^= (1 << 127) | (1 << 126) | (1 << 125) | (1 << 120);
            }
        }
        r
    }

    #[test]
    fn reduction_matches_the_bitwise_reference() {
        let mut s = 0x1234_5678_9abc_def0_u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (u128::from(s) << 64) | u128::from(s.rotate_left(17) ^ 0x9e37)
        };
        for _ in 0..300 {
            let (a, b) = (next(), next());
            assert_eq!(dot_portable(a, b), dot_ref(a, b));
        }
        assert_eq!(
            dot_portable(u128::MAX, u128::MAX),
            dot_ref(u128::MAX, u128::MAX)
        );
    }
}
