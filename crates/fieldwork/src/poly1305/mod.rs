//! Poly1305, the one-time authenticator over the prime 2^130 − 5 (RFC 8439).
//!
//! [`Poly1305`] (streaming: any split of the input gives the same tag), the
//! one-shot [`tag`] and the constant-time [`verify`] compute RFC 8439's
//! Poly1305; [`Poly1305`] also implements RustCrypto's [`universal_hash`]
//! 0.6 traits, so generic code written for the `poly1305` crate takes it.
//!
//! # Math
//!
//! D. J. Bernstein, *The Poly1305-AES message-authentication code* (FSE
//! 2005), as profiled by RFC 8439 §2.5. A 32-byte one-time key is `r ‖ s`;
//! `r` is clamped (`r &= 0x0ffffffc0ffffffc0ffffffc0fffffff`, little-endian).
//! The message is cut into 16-byte blocks; each block is read as a
//! little-endian integer with one more byte 0x01 appended after its last
//! byte (2^128 for a whole block, `2^(8·len)` for a final partial block),
//! giving `c₁ … c_q`, and
//!
//! ```text
//! tag = ((c₁·r^q + c₂·r^(q−1) + … + c_q·r) mod (2^130 − 5) + s) mod 2^128
//! ```
//!
//! computed by Horner's rule, `h ← (h + cᵢ)·r`. A key must authenticate
//! one message only: two tags under the same `(r, s)` reveal `r`.
//!
//! **Two paddings.** RFC 8439's Poly1305 (the inherent [`Poly1305::update`]
//! and [`Poly1305::finalize`], [`tag`], [`verify`]) appends 0x01 right after
//! a final partial block. `universal-hash`'s model, which the AEAD uses, is
//! whole blocks: [`UniversalHash::update_padded`] pads a partial block with
//! zeros to 16 bytes and then appends 0x01 at 2^128, like every other
//! block. The two give different tags for lengths that are not multiples
//! of 16.
//!
//! ```
//! use fieldwork::poly1305::{tag, verify, Poly1305};
//!
//! let key = [0x42u8; 32];
//! let mut mac = Poly1305::new(&key);
//! mac.update(b"any split ");
//! mac.update(b"gives the same tag");
//! let t = mac.finalize();
//! assert_eq!(t, tag(&key, b"any split gives the same tag"));
//! assert!(verify(&key, b"any split gives the same tag", &t).is_ok());
//! ```
//!
//! # RustCrypto traits
//!
//! [`Poly1305`] implements `universal-hash` 0.6's [`KeyInit`] (from a
//! 32-byte key) and [`UniversalHash`] (re-exported as [`universal_hash`]).
//! The inherent `new`, `update(&[u8])` and `finalize` win method
//! resolution; the trait's are reached by qualified calls. Blocks given
//! through the trait continue the byte stream of the inherent `update`.
//! [`Reset`](universal_hash::Reset) is not implemented: a Poly1305 key is
//! for one message, and a reset would invite its reuse.
//!
//! # Backends
//!
//! Chosen once per key, best first (`FIELDWORK_MAX_ISA` caps the choice):
//!
//! - `avx512ifma` (`poly1305/ifma.rs`): radix 2^44 on zmm with the
//!   52-bit multiply-add (`vpmadd52luq`/`vpmadd52huq`), eight interleaved
//!   Horner chains with `r^8`, complete 8-decimation as below.
//! - `avx2` (`poly1305/avx2.rs`): radix 2^26 on ymm, four interleaved
//!   Horner chains with the multiplier `r^4`; per call, complete
//!   decimation when the block count is 3 mod 4 and Goll–Gueron's form
//!   otherwise (measured per count class: the tuning table,
//!   `poly1305/tuning.rs`, which also holds each backend's crossover
//!   with the scalar loop).
//! - `avx2-goll-gueron` (same file and key, a forced schedule reached
//!   through [`crate::hazmat`], kept to be compared): Goll & Gueron,
//!   ITNG 2015 — the other `n mod 4` blocks on the scalar loop (first).
//! - `avx2-decimation` (likewise): the same loop
//!   over the whole input by complete 4-decimation Horner, zero blocks
//!   prepended logically when the block count is not a multiple of 4
//!   (Bhattacharyya & Sarkar, ePrint 2019/842). In the sweep of every
//!   length 49–4 000 B on Zen 3 (`peer-bench --poly1305-sweep`,
//!   `docs/benchmarks/poly1305-sweep-amd-epyc-f25m1.md`) the two are
//!   level: band means 0.99–1.03 in three sweeps (single lengths up to
//!   ±8 %), far from the dissertation's 34 % on Skylake, because our
//!   Goll–Gueron form runs its scalar remainder while the powers are
//!   computed, so only the remainder's latency beyond them can be saved.
//! - `neon` (AArch64, `poly1305/neon.rs`, by name only): radix 2^26 on
//!   two 64-bit lanes, complete decimation, `(acc + M₁)·r⁴ + M₂·r²` per
//!   four blocks. Not the default: compiled, its loop runs 32.6
//!   instructions a block against the scalar loop's 32.3 (dynamic counts
//!   under qemu, 8–16 KiB) and about 700 more per call (powers, limb
//!   conversions, the lanes' join), so by the instruction count the
//!   scalar loop wins at every length; the default on AArch64 is
//!   `portable`. Kept, tested, for a measurement on hardware, where its
//!   two chains against the scalar loop's one latency-bound chain may
//!   decide otherwise (OpenSSL's ARMv8 NEON kernel is faster than its
//!   scalar one on most cores it lists).
//! - `portable` (`poly1305/portable.rs`): radix 2^64 with `u128` products,
//!   constant time; also the path of every SIMD backend for short inputs
//!   (below 336 B per `update` call on AVX2, 384 B on IFMA) and for a
//!   final partial block when streaming. On Zen 3 the AVX2 path and the
//!   scalar loop are level at 320 B; the AVX2 path is 1.3× faster at 576 B.
//!   On Zen 4 (AMD EPYC family 25 model 17) the IFMA kernel overtakes the
//!   scalar loop at 24 blocks, and at 13 for a one-shot tag, which keeps
//!   no powers (see `ifma.rs`).
//!
//! The one-shot [`tag`] (and the AEAD's tag) knows where the message ends:
//! on the AVX2 backends its final partial block (the AEAD's: the padded
//! ciphertext block and the length block) goes into the vector loop's last
//! group, not through a scalar product after the lanes are combined. The
//! streaming [`Poly1305::finalize`] cannot, and `new` and `finalize` move
//! the state (464 bytes, set by the IFMA key): two `memcpy` calls, about
//! 30 % of a 64-byte MAC. Prefer [`tag`] for a whole message. Rejected:
//! `#[inline(always)]` or `#[inline(never)]` on them — rustc still copies
//! the moved value (`inline(always)` added copies). Measured history:
//! `docs/notes/poly1305.md`.
//!
//! Whole blocks go to the backend in bulk; a partial block waits in a
//! 16-byte buffer for more input or for [`Poly1305::finalize`]. The
//! vector loops run per `update` call of at least 336 B (AVX2) or 384 B
//! (IFMA): a stream fed in
//! smaller pieces runs on the scalar loop (the pieces are not collected). The key
//! (`r`, `s`, any powers of `r`), the accumulator and the buffer are
//! zeroized on drop. No branch or memory index depends on the key or the
//! message (only on lengths). Figures come from `peer-bench --filter
//! poly1305` (see `docs/benchmarks/`), not from this page.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(all(feature = "reproduce", target_arch = "x86_64"))]
pub mod goll_gueron;
#[cfg(target_arch = "x86_64")]
mod ifma;
#[cfg(target_arch = "aarch64")]
mod neon;
mod portable;
#[cfg(target_arch = "x86_64")]
mod radix44;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod tuning;

/// RustCrypto's `universal-hash` crate (0.6), whose traits [`Poly1305`]
/// implements; re-exported so that users can name them
/// (`fieldwork::poly1305::universal_hash::{KeyInit, UniversalHash}`).
pub use universal_hash;

/// The scalar Poly1305 (radix 2^64) that the stitched ChaCha20-Poly1305
/// kernels interleave with their vector ChaCha20 rounds.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) use portable::{Acc as ScalarAcc, Key as ScalarKey, finish as scalar_finish};

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu;
use core::fmt;
use subtle::ConstantTimeEq;
use universal_hash::{
    Block, Key, KeyInit, UhfClosure, UniversalHash,
    array::Array,
    common::{BlockSizeUser, KeySizeUser},
    consts::{U16, U32},
};
use zeroize::Zeroize;

/// Why a Poly1305 call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The tag does not authenticate the message under the key (the message
    /// or the tag was altered, or the key is wrong).
    TagMismatch,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::TagMismatch => "Poly1305: authentication failed (tag mismatch)",
        })
    }
}

impl core::error::Error for Error {}

/// One Poly1305 backend: the key `r` (and what the backend derives from
/// it: powers, tuning) absorbing whole blocks into an accumulator.
/// Implemented by one type in each backend file (`portable::Key`,
/// `avx2::Key`, `ifma::Key`); [`Dispatch`] holds one of them.
pub(crate) trait Backend: Clone {
    /// The capability token the backend needs (`()` for the portable one).
    type Token: Copy;
    /// The backend's name (`backend_name()`) on its default schedule.
    const NAME: &'static str;

    /// The key `r` of the one-time key `key` (its first 16 bytes; the rest
    /// is not read), with the tuning table's choices for this CPU.
    fn new(token: Self::Token, key: &[u8; 32]) -> Self;

    /// The name of this key's backend and schedule.
    fn name(&self) -> &'static str {
        Self::NAME
    }

    /// The scalar key every backend has (short inputs, partial blocks).
    fn scalar(&self) -> &portable::Key;

    /// Absorbs whole 16-byte blocks (`data.len()` a multiple of 16), each
    /// with its 2^128 bit.
    fn blocks(&mut self, h: &mut portable::Acc, data: &[u8]);

    /// [`Backend::blocks`] for the key's last input: a backend may then
    /// skip keeping what later inputs would reuse (the IFMA key's powers).
    fn blocks_once(&mut self, h: &mut portable::Acc, data: &[u8]) {
        self.blocks(h, data);
    }

    /// Absorbs whole 16-byte blocks and then the message's final `tail`
    /// blocks (the key's last input): the AVX2 kernels take the tail into
    /// their last vector group, the others absorb it after the blocks.
    fn blocks_tail(&mut self, h: &mut portable::Acc, data: &[u8], tail: &portable::Tail) {
        self.blocks_once(h, data);
        tail.absorb(self.scalar(), h);
    }
}

crate::dispatch::backend_enum! { $ on_backend;
    /// One Poly1305 key `r` on the backend chosen for it: each variant holds
    /// exactly its backend's key (with its tuning). Dispatch happens here,
    /// once per bulk call.
    ///
    /// The IFMA key (nine powers of `u64` limbs, 392 bytes) sets the size; the
    /// AVX2 key keeps its powers in 32-bit limbs (128 bytes). Rejected on Zen
    /// 4: the IFMA powers without their stored `20·r₁`, `20·r₂` (24 bytes a
    /// power, the state 464 → 320 bytes): streaming no faster (16 B 190
    /// against 186 cycles, 64 B 225 against 221), the one-shot [`tag`] at 64 B
    /// slower (104 → 113); `peer-bench --filter poly1305` back to back.
    #[allow(clippy::large_enum_variant)]
    #[derive(Clone)]
    enum Dispatch {
        x86_64: Ifma(ifma::Key),
            /// On the key's schedule: by default, per call, Goll–Gueron or
            /// complete decimation, whichever the tuning table gives the
            /// block count (`avx2.rs`, `tuning.rs`); `avx2-goll-gueron` and
            /// `avx2-decimation` force one.
            Avx2(avx2::Key);
        aarch64:
            /// Two-lane radix 2^26 with complete decimation (`neon.rs`),
            /// the scalar loop below its crossover.
            Neon(neon::Key);
        portable: Portable(portable::Key)
    }
}

impl Dispatch {
    /// The best backend this CPU runs.
    ///
    /// Each arm builds its variant directly (not through `Option`s): the
    /// `Option<Dispatch>` temporaries cost a `memcpy` of the whole engine
    /// per instance. Always inlined: with the tuning's pick in its arms,
    /// LLVM left it out of line in the one-shot [`tag`], which then built
    /// the engine in a call of its own (12 instructions a tag more).
    #[inline(always)]
    fn best(key: &[u8; 32]) -> Dispatch {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = cpu::Avx512Ifma::get() {
                return Dispatch::Ifma(ifma::Key::new(t, key));
            }
            if let Some(t) = cpu::Avx2::get() {
                return Dispatch::Avx2(avx2::Key::new(t, key));
            }
        }
        // On AArch64 the scalar loop is the default: by the instruction
        // count (issue 59's measure under emulation) the NEON loop is no
        // shorter a block and costs more per call (`neon.rs`); `neon` is
        // reached by name.
        Dispatch::Portable(portable::Key::new(key))
    }

    /// The backend (or forced schedule) named `name` (one of
    /// [`Poly1305`]'s [`Backends::NAMES`](crate::hazmat::Backends::NAMES)),
    /// if this CPU runs it. Backends read `r`, the key's first 16 bytes,
    /// only.
    #[inline]
    fn named(name: &str, key: &[u8; 32]) -> Option<Dispatch> {
        Some(match name {
            #[cfg(target_arch = "x86_64")]
            "avx512ifma" => Dispatch::Ifma(ifma::Key::new(cpu::Avx512Ifma::get()?, key)),
            #[cfg(target_arch = "x86_64")]
            "avx2" => Dispatch::Avx2(avx2::Key::new(cpu::Avx2::get()?, key)),
            #[cfg(target_arch = "x86_64")]
            avx2::GOLL_GUERON => Dispatch::Avx2(avx2::Key::scheduled(
                cpu::Avx2::get()?,
                key,
                avx2::Schedule::GOLL_GUERON,
            )),
            #[cfg(target_arch = "x86_64")]
            avx2::DECIMATION => Dispatch::Avx2(avx2::Key::scheduled(
                cpu::Avx2::get()?,
                key,
                avx2::Schedule::DECIMATION,
            )),
            #[cfg(target_arch = "aarch64")]
            "neon" => Dispatch::Neon(<neon::Key as Backend>::new(cpu::Neon::get()?, key)),
            "portable" => Dispatch::Portable(portable::Key::new(key)),
            _ => return None,
        })
    }

    fn name(&self) -> &'static str {
        on_backend!(self, k => k.name())
    }

    /// The scalar key every backend has (short inputs, partial blocks).
    fn scalar(&self) -> &portable::Key {
        on_backend!(self, k => k.scalar())
    }

    /// Absorbs whole 16-byte blocks (`data.len()` a multiple of 16).
    fn blocks(&mut self, h: &mut portable::Acc, data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        on_backend!(self, k => k.blocks(h, data))
    }

    /// [`Dispatch::blocks`] for the key's last input (see
    /// [`Backend::blocks_once`]).
    fn blocks_once(&mut self, h: &mut portable::Acc, data: &[u8]) {
        on_backend!(self, k => k.blocks_once(h, data))
    }

    /// Absorbs whole 16-byte blocks and then the final `tail` blocks (see
    /// [`Backend::blocks_tail`]).
    fn blocks_tail(&mut self, h: &mut portable::Acc, data: &[u8], tail: &portable::Tail) {
        debug_assert_eq!(data.len() % 16, 0);
        on_backend!(self, k => k.blocks_tail(h, data, tail))
    }
}

/// `s`, the key's last 16 bytes, as an integer.
#[inline(always)]
fn s_of(key: &[u8; 32]) -> u128 {
    let mut s = [0u8; 16];
    s.copy_from_slice(&key[16..]);
    let v = u128::from_le_bytes(s);
    crate::wipe::wipe(&mut s);
    v
}

/// Poly1305 (RFC 8439 §2.5) with streaming input.
///
/// `update` takes any number of bytes, and any split of the message into
/// `update` calls gives the same tag; a final partial block is completed
/// by `finalize` as RFC 8439 says (0x01 after its bytes). The key, the
/// accumulator and buffered input are zeroized on drop; the computation is
/// constant time in the key and the message.
///
/// A key must authenticate one message only (see the module docs).
///
/// ```
/// use fieldwork::poly1305::Poly1305;
///
/// // RFC 8439 §2.5.2.
/// let key: [u8; 32] = [
///     0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe,
///     0x42, 0xd5, 0x06, 0xa8, 0x01, 0x03, 0x80, 0x8a, 0xfb, 0x0d, 0xb2, 0xfd,
///     0x4a, 0xbf, 0xf6, 0xaf, 0x41, 0x49, 0xf5, 0x1b,
/// ];
/// let mut mac = Poly1305::new(&key);
/// mac.update(b"Cryptographic Forum");
/// mac.update(b" Research Group");
/// assert_eq!(
///     mac.finalize(),
///     [0xa8, 0x06, 0x1d, 0xc1, 0x30, 0x51, 0x36, 0xc6,
///      0xc2, 0x2b, 0x8b, 0xaf, 0x0c, 0x01, 0x27, 0xa9],
/// );
/// ```
#[derive(Clone)]
pub struct Poly1305 {
    engine: Dispatch,
    h: portable::Acc,
    s: u128,
    buf: [u8; 16],
    buffered: usize,
}

impl Poly1305 {
    /// A Poly1305 instance for the one-time key `key` (`r ‖ s`), on the
    /// fastest backend.
    #[inline]
    pub fn new(key: &[u8; 32]) -> Poly1305 {
        // The struct literal takes `Dispatch::best` directly (not through
        // `with_engine`) so that the engine is built in place.
        let s = s_of(key);
        Poly1305 {
            engine: Dispatch::best(key),
            h: [0; 3],
            s,
            buf: [0; 16],
            buffered: 0,
        }
    }

    /// An instance on `engine` (made from the same `key`), with `s` from
    /// the key's last 16 bytes. Inlined so that the engine is built in
    /// place rather than copied (a `memcpy` call per instance otherwise).
    #[inline(always)]
    fn with_engine(key: &[u8; 32], engine: Dispatch) -> Poly1305 {
        Poly1305 {
            engine,
            h: [0; 3],
            s: s_of(key),
            buf: [0; 16],
            buffered: 0,
        }
    }

    /// Absorbs `data` (any length; see the type docs).
    pub fn update(&mut self, mut data: &[u8]) {
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
            self.engine.blocks(&mut self.h, &b);
            self.buffered = 0;
        }
        let (whole, rest) = data.split_at(data.len() - data.len() % 16);
        if !whole.is_empty() {
            self.engine.blocks(&mut self.h, whole);
        }
        // `rest.len() < 16`. Written as one 16-byte value, zero past its
        // bytes (byte copies would stall `tag`'s 16-byte load: no
        // store-to-load forwarding from several smaller stores). Invariant:
        // while `buffered > 0`, the bytes of `buf` past `buffered` are zero.
        self.buf = crate::partial::le_partial(rest).to_le_bytes();
        self.buffered = rest.len();
    }

    /// Absorbs `data` zero-padded to a whole number of blocks (the AEAD's
    /// `pad16`; `universal-hash`'s `update_padded`).
    fn update_padded(&mut self, data: &[u8]) {
        let (whole, rest) = data.split_at(data.len() - data.len() % 16);
        self.update(whole);
        if rest.is_empty() {
            return;
        }
        if self.buffered == 0 {
            // At a block boundary: the zero-padded block built in registers
            // (see `le_partial`).
            let mut m = crate::partial::le_partial(rest);
            self.engine.scalar().block_value(&mut self.h, m, 1);
            m.zeroize();
        } else {
            // Mid-block (bytes left by the inherent `update`): the 16
            // padded bytes continue the byte stream.
            self.update(rest);
            self.update([0u8; 16].get(rest.len()..).unwrap_or_default());
        }
    }

    /// The tag: a final partial block gets 0x01 after its bytes (RFC 8439).
    #[inline]
    pub fn finalize(mut self) -> [u8; 16] {
        self.tag()
    }

    /// The tag of everything absorbed (see [`Poly1305::finalize`]).
    fn tag(&mut self) -> [u8; 16] {
        // `buffered < 16`, and the buffer is zero past its bytes (see
        // `update`): the partial block is the buffer's value plus 0x01 after
        // its bytes.
        if self.buffered > 0 {
            let mut m = u128::from_le_bytes(self.buf) | 1 << (8 * (self.buffered % 16));
            self.engine.scalar().block_value(&mut self.h, m, 0);
            m.zeroize();
        }
        self.buffered = 0;
        portable::finish(&self.h, self.s)
    }

    /// The backend in use: `avx512ifma`, `avx2` (the AVX2 default),
    /// `avx2-decimation`, `avx2-goll-gueron`, `neon` or `portable`.
    pub fn backend_name(&self) -> &'static str {
        self.engine.name()
    }
}

impl crate::hazmat::Backends for Poly1305 {
    type Input<'a> = &'a [u8; 32];
    #[cfg(target_arch = "x86_64")]
    const NAMES: &'static [&'static str] = &[
        <ifma::Key as Backend>::NAME,
        <avx2::Key as Backend>::NAME,
        avx2::GOLL_GUERON,
        avx2::DECIMATION,
        <portable::Key as Backend>::NAME,
    ];
    /// The default (the scalar loop, see [`Dispatch::best`]) first, then
    /// the NEON backend, kept by name for measurement on hardware.
    #[cfg(target_arch = "aarch64")]
    const NAMES: &'static [&'static str] = &[
        <portable::Key as Backend>::NAME,
        <neon::Key as Backend>::NAME,
    ];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const NAMES: &'static [&'static str] = &[<portable::Key as Backend>::NAME];

    /// Inlined, with the backends' constructors: a benchmark that names
    /// a constant backend and makes a key per call then pays no name
    /// lookup and no copy of the engine.
    #[inline]
    fn with_backend(name: &str, key: &[u8; 32]) -> Option<Poly1305> {
        Some(Poly1305::with_engine(key, Dispatch::named(name, key)?))
    }

    fn backend(&self) -> &'static str {
        self.backend_name()
    }
}

impl Drop for Poly1305 {
    fn drop(&mut self) {
        // The engine's keys zeroize themselves.
        self.h.zeroize();
        self.s.zeroize();
        crate::wipe::wipe(&mut self.buf);
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Poly1305 {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        on_backend!(&self.engine, k => k.secret_spans(s));
        s.secret("accumulator h", &self.h);
        s.secret("s", &self.s);
        s.secret("buffered block", &self.buf);
    }
}

impl fmt::Debug for Poly1305 {
    /// The backend only: the key and the state are secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Poly1305")
            .field("backend", &self.backend_name())
            .finish_non_exhaustive()
    }
}

/// Whole blocks from which the one-shot [`tag`] and the AEAD's tag hand
/// their last blocks to [`Dispatch::blocks_tail`]: the AVX2 vector path's
/// threshold.
const TAIL_MIN_BLOCKS: usize = 20;

/// One-shot Poly1305 (RFC 8439 §2.5) of `msg` under the one-time key `key`
/// (`r ‖ s`), on the fastest backend.
///
/// ```
/// use fieldwork::poly1305::tag;
///
/// // RFC 8439 appendix A.3, test vector #2: r = 0, so the tag is s.
/// let mut key = [0u8; 32];
/// key[16..].copy_from_slice(b"0123456789abcdef");
/// assert_eq!(&tag(&key, b"any message at all"), b"0123456789abcdef");
/// ```
pub fn tag(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    let mut p = Poly1305::new(key);
    // The whole message at once, as the key's last input: a partial last
    // block goes into the SIMD kernels' last group rather than through a
    // scalar product after them. Shorter messages (the tail's set-up costs
    // them more than it saves) give their whole blocks in one call and the
    // partial block to the buffer.
    let (whole, rest) = msg.split_at(msg.len() - msg.len() % 16);
    if !rest.is_empty() && whole.len() >= 16 * TAIL_MIN_BLOCKS {
        let mut tail = portable::Tail::new();
        tail.push(crate::partial::le_partial(rest) | 1 << (8 * rest.len()), 0);
        p.engine.blocks_tail(&mut p.h, whole, &tail);
    } else {
        if !whole.is_empty() {
            p.engine.blocks_once(&mut p.h, whole);
        }
        if !rest.is_empty() {
            p.update(rest);
        }
    }
    // Not `finalize(self)`: moving the state (its size is the IFMA key's)
    // cost a `memcpy` call per tag.
    p.tag()
}

/// Whether the expected 16-byte tag equals `given` (a slice of any other
/// length is unequal; the length is public), in constant time: the two
/// 128-bit values XORed, the halves ORed, one `ct_eq` against zero.
/// (subtle's byte-slice `ct_eq` was an out-of-line loop of 16 steps,
/// about 60 TSC ticks of a 400-byte ChaCha20-Poly1305 opening on Zen 3.)
#[inline(always)]
pub(crate) fn tags_equal(expected: &[u8; 16], given: &[u8]) -> bool {
    let Ok(given) = <&[u8; 16]>::try_from(given) else {
        return false;
    };
    let d = u128::from_le_bytes(*expected) ^ u128::from_le_bytes(*given);
    ((d as u64) | (d >> 64) as u64).ct_eq(&0).into()
}

/// Checks in constant time that `tag` is the Poly1305 tag of `msg` under
/// `key`.
///
/// # Errors
///
/// [`Error::TagMismatch`] if it is not.
///
/// ```
/// use fieldwork::poly1305::{tag, verify, Error};
///
/// let key = [7u8; 32];
/// let mut t = tag(&key, b"message");
/// assert_eq!(verify(&key, b"message", &t), Ok(()));
/// t[0] ^= 1;
/// assert_eq!(verify(&key, b"message", &t), Err(Error::TagMismatch));
/// ```
pub fn verify(key: &[u8; 32], msg: &[u8], tag: &[u8; 16]) -> Result<(), Error> {
    let mut expected = self::tag(key, msg);
    let ok = tags_equal(&expected, tag);
    expected.zeroize();
    if ok { Ok(()) } else { Err(Error::TagMismatch) }
}

/// The ChaCha20-Poly1305 tag (RFC 8439 §2.8): Poly1305 under `key` of
/// `aad ‖ pad16 ‖ ct ‖ pad16 ‖ le64(len(aad)) ‖ le64(len(ct))`, on the
/// fastest backend, without copying `aad` or `ct` (only their partial last
/// blocks go through a 16-byte buffer).
pub(crate) fn aead_tag(key: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
    aead_tag_on(Poly1305::new(key), aad, ct)
}

/// [`aead_tag`] on the portable backend (the AEAD's pinned portable path).
pub(crate) fn aead_tag_portable(key: &[u8; 32], aad: &[u8], ct: &[u8]) -> [u8; 16] {
    aead_tag_on(
        Poly1305::with_engine(key, Dispatch::Portable(portable::Key::new(key))),
        aad,
        ct,
    )
}

/// [`aead_tag`] on a given instance (tests run it on every backend).
#[inline]
fn aead_tag_on(mut p: Poly1305, aad: &[u8], ct: &[u8]) -> [u8; 16] {
    p.update_padded(aad);
    // At a block boundary now (`update_padded` pads): `ct`'s whole blocks,
    // then its zero-padded partial block and the lengths as the tail.
    debug_assert_eq!(p.buffered, 0);
    let (whole, rest) = ct.split_at(ct.len() - ct.len() % 16);
    if whole.len() < 16 * TAIL_MIN_BLOCKS {
        p.update_padded(ct);
        let mut lengths = [0u8; 16];
        lengths[..8].copy_from_slice(&(aad.len() as u64).to_le_bytes());
        lengths[8..].copy_from_slice(&(ct.len() as u64).to_le_bytes());
        p.update(&lengths);
        return p.tag();
    }
    let mut tail = portable::Tail::new();
    if !rest.is_empty() {
        tail.push(crate::partial::le_partial(rest), 1);
    }
    tail.push(
        u128::from(aad.len() as u64) | u128::from(ct.len() as u64) << 64,
        1,
    );
    p.engine.blocks_tail(&mut p.h, whole, &tail);
    p.tag()
}

/// Blocks per `proc_par_blocks` call of the `universal-hash` backend: the
/// length from which the SIMD backends leave the scalar path.
type TraitParBlocks = U16;

/// Bytes the `universal-hash` backend collects single blocks in before
/// hashing them together (see [`crate::uhf`]): as many as a parallel
/// group.
const TRAIT_PENDING: usize = 16 * 16;

impl crate::uhf::Absorb for Poly1305 {
    /// The inherent `update`: blocks given through the trait continue its
    /// byte stream.
    #[inline]
    fn absorb(&mut self, blocks: &[u8]) {
        Poly1305::update(self, blocks);
    }
}

impl KeySizeUser for Poly1305 {
    type KeySize = U32;
}

impl KeyInit for Poly1305 {
    /// The inherent [`new`](Poly1305::new): the fastest backend.
    fn new(key: &Key<Self>) -> Poly1305 {
        Poly1305::new(&key.0)
    }
}

impl BlockSizeUser for Poly1305 {
    type BlockSize = U16;
}

impl UniversalHash for Poly1305 {
    fn update_with_backend(&mut self, f: impl UhfClosure<BlockSize = Self::BlockSize>) {
        crate::uhf::update_with_backend::<_, TraitParBlocks, TRAIT_PENDING>(self, f);
    }

    /// As the provided method, but the blocks go to the engine in one call.
    #[inline]
    fn update(&mut self, blocks: &[Block<Self>]) {
        Poly1305::update(self, Array::slice_as_flattened(blocks));
    }

    /// As the provided method (whole blocks, then the rest zero-padded to a
    /// block, which gets 2^128 like every block), without the backend's
    /// copies.
    #[inline]
    fn update_padded(&mut self, data: &[u8]) {
        Poly1305::update_padded(self, data);
    }

    /// The tag, as the inherent `finalize` (a partial block given to the
    /// inherent `update` gets RFC 8439's 0x01 byte).
    #[inline]
    fn finalize(mut self) -> Block<Self> {
        Array(self.tag())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex<const N: usize>(s: &str) -> [u8; N] {
        let mut out = [0u8; N];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        out
    }

    /// Every entry point of the backend `make` builds (a fresh key for
    /// each input) against the scalar loop, from a non-zero accumulator:
    /// whole blocks (then again on the same key, its powers kept), the
    /// key's last input, and whole blocks with one or two tail blocks of
    /// random 2^128 bits, at every block count to 160 and some longer
    /// ones (the AVX2 three-group loop from 128 blocks and its tails, and
    /// 16 KiB);
    /// keys and data of all ones, then random ones. Keys whose crossovers
    /// are forced to one block run their vector paths at every count.
    fn check_against_scalar<B: Backend>(make: impl Fn(&[u8; 32]) -> Option<B>) {
        use crate::test_util::splitmix64;
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || splitmix64(&mut seed);
        let mut data = alloc::vec![0u8; 16 * 1024];
        for trial in 0..20 {
            let key: [u8; 32] = core::array::from_fn(|i| {
                if trial == 0 {
                    0xff
                } else {
                    (next() >> (i % 8)) as u8
                }
            });
            for b in data.iter_mut() {
                *b = if trial == 0 { 0xff } else { next() as u8 };
            }
            let prefix: [u8; 48] = core::array::from_fn(|_| next() as u8);
            let Some(first) = make(&key) else {
                return;
            };
            let name = first.name();
            let scalar = portable::Key::new(&key);
            let mut start: portable::Acc = [0; 3];
            scalar.blocks(&mut start, &prefix);
            for n in (0..=160).chain([255, 256, 399, 400, 1024]) {
                let body = &data[..16 * n];
                let mut want = start;
                scalar.blocks(&mut want, body);
                let check = |h: &portable::Acc, want: &portable::Acc, what: &str| {
                    assert_eq!(
                        portable::freeze(h),
                        portable::freeze(want),
                        "{name}: {what}, {n} blocks, trial {trial}"
                    );
                    assert!(h[2] <= 4, "{name}: {what}, {n} blocks, h₂ = {}", h[2]);
                };
                let (Some(mut k), Some(mut once)) = (make(&key), make(&key)) else {
                    return;
                };
                let mut h = start;
                k.blocks(&mut h, body);
                check(&h, &want, "blocks");
                let mut twice = want;
                scalar.blocks(&mut twice, body);
                k.blocks_once(&mut h, body);
                check(&h, &twice, "blocks again, powers kept");
                let mut h = start;
                once.blocks_once(&mut h, body);
                check(&h, &want, "the key's last input");
                for c in 1..=2 {
                    let mut tail = portable::Tail::new();
                    for _ in 0..c {
                        let m = if trial == 0 {
                            u128::MAX
                        } else {
                            u128::from(next()) << 64 | u128::from(next())
                        };
                        tail.push(m, next() & 1);
                    }
                    let mut want = want;
                    tail.absorb(&scalar, &mut want);
                    let Some(mut k) = make(&key) else {
                        return;
                    };
                    let mut h = start;
                    k.blocks_tail(&mut h, body, &tail);
                    check(
                        &h,
                        &want,
                        if c == 1 {
                            "one tail block"
                        } else {
                            "two tail blocks"
                        },
                    );
                }
            }
        }
    }

    #[test]
    fn every_backend_matches_the_scalar_loop() {
        check_against_scalar(|k| Some(portable::Key::new(k)));
        #[cfg(target_arch = "x86_64")]
        {
            use avx2::Schedule;
            let tuned = tuning::pick();
            check_against_scalar(|k| Some(<ifma::Key as Backend>::new(cpu::Avx512Ifma::get()?, k)));
            let forced = tuning::IfmaTuning {
                min_vector_blocks: 1,
                min_once_blocks: 1,
            };
            check_against_scalar(|k| Some(ifma::Key::tuned(cpu::Avx512Ifma::get()?, k, forced)));
            for schedule in [
                tuned.avx2.schedule,
                Schedule::GOLL_GUERON,
                Schedule::DECIMATION,
            ] {
                for min_vector_blocks in [tuned.avx2.min_vector_blocks, 1] {
                    let t = tuning::Avx2Tuning {
                        schedule,
                        min_vector_blocks,
                        ..tuned.avx2
                    };
                    check_against_scalar(|k| Some(avx2::Key::tuned(cpu::Avx2::get()?, k, t)));
                }
            }
        }
        #[cfg(target_arch = "aarch64")]
        for min_vector_blocks in [tuning::NEON_MIN_VECTOR_BLOCKS, 2] {
            check_against_scalar(|k| {
                Some(neon::Key::tuned(cpu::Neon::get()?, k, min_vector_blocks))
            });
        }
    }

    /// The names: each names its backend and schedule; unknown ones are
    /// refused; the first this CPU runs is the default's.
    #[test]
    fn names_pick_their_backends() {
        use crate::hazmat::Backends;
        let key = [3u8; 32];
        for &name in Poly1305::NAMES {
            if let Some(p) = Poly1305::with_backend(name, &key) {
                assert_eq!(p.backend(), name);
            }
        }
        assert!(Poly1305::with_backend("portable", &key).is_some());
        assert!(Poly1305::with_backend("avx3", &key).is_none());
        let usable = crate::hazmat::usable::<Poly1305>(&key);
        assert_eq!(usable.first(), Some(&Poly1305::new(&key).backend_name()));
        #[cfg(not(target_arch = "aarch64"))]
        assert_eq!(usable.last(), Some(&"portable"));
        // AArch64: the scalar loop is the default by the instruction count
        // (`neon.rs`), the NEON backend second, by name.
        #[cfg(target_arch = "aarch64")]
        assert_eq!(Poly1305::NAMES, &["portable", "neon"]);
    }

    /// The tag comparison: equal tags match; a flip of any one bit, in
    /// either half, does not; nor does a tag of another length.
    #[test]
    fn tags_equal_finds_every_differing_bit() {
        let t: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xa5);
        assert!(tags_equal(&t, &t));
        for bit in 0..128 {
            let mut u = t;
            u[bit / 8] ^= 1 << (bit % 8);
            assert!(!tags_equal(&t, &u), "bit {bit}");
            assert!(!tags_equal(&u, &t), "bit {bit}");
        }
        assert!(!tags_equal(&[0; 16], &[0; 15]));
        assert!(!tags_equal(&[0; 16], &[0; 17]));
        assert!(!tags_equal(&[0; 16], &[]));
        assert!(tags_equal(&[0xff; 16], &[0xff; 16]));
    }

    /// RFC 8439 §2.8.2: the Poly1305 key, AAD, ciphertext and tag.
    #[test]
    fn aead_tag_matches_rfc8439_2_8_2() {
        let key: [u8; 32] =
            unhex("7bac2b252db447af09b67a55a4e955840ae1d6731075d9eb2a9375783ed553ff");
        let aad: [u8; 12] = unhex("50515253c0c1c2c3c4c5c6c7");
        let ct: [u8; 114] = unhex(concat!(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6",
            "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36",
            "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc",
            "3ff4def08e4b7a9de576d26586cec64b6116",
        ));
        let want: [u8; 16] = unhex("1ae10b594f09e26a7e902ecbd0600691");
        assert_eq!(aead_tag(&key, &aad, &ct), want);
        for p in crate::hazmat::all::<Poly1305>(&key) {
            let name = p.backend_name();
            assert_eq!(aead_tag_on(p, &aad, &ct), want, "{name}");
        }
    }

    /// Every backend's AEAD tag equals the tag of the explicitly built
    /// MAC input, for lengths around the block size.
    #[test]
    fn aead_tag_is_the_tag_of_the_padded_input() {
        let key = [0x5au8; 32];
        let data: [u8; 300] = core::array::from_fn(|i| (i * 7 + 3) as u8);
        for (a, c) in [
            (0, 0),
            (1, 0),
            (0, 1),
            (12, 114),
            (16, 32),
            (17, 255),
            (33, 300),
        ] {
            let mut input = alloc::vec::Vec::new();
            input.extend_from_slice(&data[..a]);
            input.resize(a.div_ceil(16) * 16, 0);
            input.extend_from_slice(&data[..c]);
            input.resize(input.len() + (16 - c % 16) % 16, 0);
            input.extend_from_slice(&(a as u64).to_le_bytes());
            input.extend_from_slice(&(c as u64).to_le_bytes());
            let want = tag(&key, &input);
            for p in crate::hazmat::all::<Poly1305>(&key) {
                let name = p.backend_name();
                assert_eq!(
                    aead_tag_on(p, &data[..a], &data[..c]),
                    want,
                    "{name} {a} {c}"
                );
            }
        }
    }
}
