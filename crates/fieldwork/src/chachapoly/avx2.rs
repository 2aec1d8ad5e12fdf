//! Target features: `avx`, `avx2`, `bmi2`, `adx` — capability token
//! [`crate::cpu::Avx2Bmi2`].
//!
//! ChaCha20-Poly1305 in one pass, stitched: the vector ChaCha20 kernels of
//! [`crate::chacha20::avx2`] run on the vector ports, and Poly1305 in
//! radix 2^64 (scalar 64×64 → 128 multiplications,
//! [`crate::poly1305::ScalarKey`]) runs on the integer ports between their
//! double rounds, three 16-byte blocks after each (30 per 8-block group,
//! the last two beside the final additions and the transposition). The
//! idea of running a scalar Poly1305 in the shadow of a vector ChaCha20 is
//! that of the stitched AEAD code in OpenSSL's `chacha20_poly1305_x86_64`
//! (used by ring and aws-lc); this is our own code on this crate's
//! kernels. Measured history and next ideas: `docs/notes/chachapoly.md`.
//!
//! # Sealing
//!
//! Sealing MACs ciphertext one kernel call behind the encryption. Up to
//! 320 bytes: one call (block 0 on the integer unit from 65 bytes; at
//! 257–320 bytes, on cores whose tuning entry says so, three states from
//! block 0 instead, [`MidSeal`]), then the MAC. Longer: a head from one
//! or two calls of three states
//! (blocks 0 to 5, then 6 to 11 MACing the first 320 bytes between their
//! rounds: the first ciphertext after one latency-bound call, since the
//! MAC is the bound from there on), or from the 8-block kernel (blocks 0
//! to 7) where the two-call head would leave a tail of 256–511 bytes
//! after one or more groups;
//! then each 512-byte group and the tail (under 512 bytes, on the
//! smallest kernel that covers it) MAC the ciphertext of the call before
//! them, and the tail is MACed last.
//!
//! # Opening
//!
//! Opening is bound by the MAC, which cannot start before block 0 (the
//! Poly1305 key) is known, and then runs at one block per 13 TSC ticks
//! (≈ 17 cycles: the radix-2^64 Horner step is one dependency chain).
//! Opening up to 320 bytes takes one kernel call (block 0 and the
//! keystream), the MAC, the check, then the XOR; 321–448 bytes, block 0
//! and 320 bytes of keystream from three states, then the rest from one
//! state with the MAC between its rounds. Longer: each 512-byte group is
//! MACed between the double rounds of its own keystream call and XORed; a
//! tail of up to 320 bytes after the groups takes its keystream from block
//! 0's call, before the groups (one, two or three states), and is MACed
//! last; a tail of 321–448 bytes takes its first 320 bytes' keystream from
//! block 0's call and the rest from one state after the groups, MACing the
//! tail between its rounds; a tail of 449–511 bytes MACs itself between
//! the rounds of its own 8-block call. The tag is checked before the tail
//! is decrypted (on a mismatch the whole buffer is wiped). Each shape is a
//! function of its own ([`open_long`]).
//!
//! In a call of two-block states (≈ 24 ticks a double round) the MAC
//! blocks are spread evenly over the ten double rounds ([`absorb_share`]):
//! three a round (≈ 39 ticks) would leave the last rounds without any.
//!
//! # Two compilations, and the stack wipe
//!
//! The code is instantiated twice ([`Shapes`], `instantiate!`): [`ymm16`]
//! for AVX2 (`avx2-stitched`) and [`ymm32`] with AVX-512VL (`avx512`
//! below its crossovers, `avx512-stitched`), where the 32 ymm registers
//! halve the spills and the frames (Zen 4, `peer-bench --quick`, ticks:
//! opening 1 KiB 1 204 → 1 119, 1 420 B 1 653 → 1 492; sealing 1 KiB
//! 1 412 → 1 274 measured before the wipes).
//!
//! Every shape runs out of line, up to 64 bytes too, so that the entry's
//! own frame never holds a secret whatever the compiler makes of it (`K`'s
//! [`Shapes::seal_vector_block0`], [`Shapes::seal_scalar_block0`], [`Shapes::seal_mid`],
//! [`Shapes::seal_long`], [`Shapes::open_scalar_block0`],
//! [`Shapes::open_vector_block0`], [`Shapes::open_two_calls`],
//! [`Shapes::open_long`]), and the entry then zeroes its dead frame
//! (`wipe::wipe_stack_below_ymm`, 512 to 2 304 bytes by instantiation and
//! shape, over the depths the test `stack_wipe` measures), where key rows,
//! key words broadcast to the lanes, keystream and the one-time key (`s`,
//! held through the MAC) were spilled. The cost is one 32-byte store per
//! 32 bytes wiped, aligned (unaligned, half of them straddled two lines):
//! on Zen 4 the AVX2 compilation sealed or opened 576 bytes ≈ 5 % slower
//! with the unaligned wipe, 1 KiB 1.5–4 %, 16 KiB ≤ 2 % (`SECURITY.md`).
//!
//! # Latencies and floor (Zen 3)
//!
//! The latencies this schedule rests on (TSC ticks, each call waiting for
//! the one before: the ignored test `kernel_latencies` below): one
//! horizontal state 244, three states 244 (the call is latency-bound: a
//! quarter-round step waits for the one before, so three interleaved
//! states cost no more than one), the 8-block kernel 392, block 0 on the
//! integer unit 233, 32 MAC blocks alone 424, the 8-block kernel with 30
//! MAC blocks between its rounds 399, one state with 30 MAC blocks 394.
//! So the floor of an opening of `L` bytes is about 244 + 13·(⌈L/16⌉ + 2)
//! ticks plus the tag and the XOR; ring's code has the same single Horner
//! chain.
//!
//! Per 512-byte group: the 8-block kernel's 10 double rounds (1 280 vector
//! instructions) and 32 Poly1305 blocks (each 4 `mulx` and one `imul`, the
//! fold `(d₂ & !3) + (d₂ >> 2)`, a dozen additions with carry): on Zen 3
//! the scalar chain and the vector rounds nearly balance.
//!
//! Short openings move by up to 10 % between builds in which their code
//! is the same instructions (placement, not schedule), and
//! `scripts/ab-time.sh` on `examples/chachapoly_one` disagrees with
//! peer-bench about such changes: decide between shapes with
//! `peer-bench --chachapoly-sweep --passes 3`.
//!
//! Figure: AMD EPYC Zen 3 family 25 model 1, 16 KiB with 13 bytes of
//! associated data sealed at 1.16 cycles/byte, 1.15× ring and aws-lc-rs,
//! opened at 1.15, 1.20× both (`peer-bench --filter chachapoly`, the CPU's
//! page in `docs/benchmarks/`; the sweep of every length 64–2 048 B is
//! `docs/benchmarks/chachapoly-sweep-amd-epyc-f25m1.md`).
//!
//! # Rejected
//!
//! Each measured slower with `peer-bench --filter chachapoly` or
//! `scripts/ab-time.sh` on `examples/chachapoly_one`; figures in the
//! notes.
//!
//! - Opening with the MAC one call behind the keystream — slower than a
//!   tail's keystream from block 0's call, and for longer tails (the last
//!   group's MAC runs alone).
//! - Opening 321–511 bytes on the 8-block kernel with block 0 on the
//!   integer unit, then the MAC alone — ≈ 9 % slower at 400 B.
//! - Four MAC blocks per double round in the tail's 8-block call — ≈ 4 %
//!   slower.
//! - Two passes over the whole message (ChaCha20, then vector Poly1305),
//!   or over L1-sized chunks of 512 B to 4 KiB — the vector Poly1305 wants
//!   1 KiB or more per call.
//! - The MAC as two Horner chains joined by `h·r^16 + h_B` — a general
//!   multiplication mod 2^130 − 5 per group.
//! - The MAC of a one-call shape's message as two chains over its halves
//!   — two chains already run the integer units near their throughput, and
//!   the power and the join cost more than they save.
//! - Bulk opening with two chains — the integer work slows the vector
//!   rounds it shares the core's issue width with.
//! - Spreading a group's blocks over the double rounds by `32·r/10` — a
//!   division per double round.
//! - The hooks' blocks chosen by index with length tests instead of
//!   slices.
//! - 257–320 bytes with block 0 on the integer unit beside three states
//!   from block 1 — calls back to back opened 300 B ≈ 30 % slower (block
//!   0's integer work shares the integer unit with the previous call's
//!   MAC).
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// lane and word indices over fixed arrays; data offsets step by whole 512-byte groups below `buf.len()` rounded down.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::scalar::{absorb_padded, absorb_share, absorb_some, check, finish};
use super::tuning::{LongHead, MidSeal, ShortOpen, ShortSeal, StitchedShapes};
use super::{Backend, Error, Instance};
use crate::chacha20::avx2::{
    Masks, keystream_h, keystream_h_at, keystream_h_with, keystream8, keystream8_with, xor_rows,
    xor8, xor8_after_block0, xor8_partial,
};
use crate::chacha20::lanes;
use crate::cpu::{self, Avx2Bmi2, Avx512};
use crate::poly1305::{ScalarAcc, ScalarKey};
use crate::wipe::wipe_stack_below_ymm;
use core::arch::x86_64::{__m256i, _mm256_setzero_si256, _mm256_storeu_si256};
use zeroize::Zeroize;

/// Bytes per 8-block group.
const GROUP: usize = 512;

/// The stitched kernel: the backend `avx2-stitched` (compiled for AVX2,
/// 16 ymm registers), and `avx512-stitched` and the `avx512` backend's
/// below its crossovers (the same code compiled with AVX-512VL, whose 32
/// ymm registers halve the spills and the frames).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stitched {
    /// AVX, AVX2, BMI2, ADX: [`ymm16`]; the shapes of this core
    /// (`tuning::SHORT_SEAL`, `tuning::MID_SEAL`, `tuning::LONG_HEAD`,
    /// `tuning::SHORT_OPEN`).
    Ymm16(Avx2Bmi2, StitchedShapes),
    /// Those and AVX-512 F/BW/VL/DQ: [`ymm32`].
    Ymm32(Avx2Bmi2, Avx512, StitchedShapes),
}

impl Stitched {
    /// The AVX2 kernel, if this CPU runs it (AVX2, BMI2, ADX).
    pub(crate) fn get() -> Option<Stitched> {
        Some(Stitched::Ymm16(
            Avx2Bmi2::get()?,
            StitchedShapes::pick(false),
        ))
    }

    /// The AVX-512VL compilation, if this CPU runs it.
    pub(crate) fn get_vl() -> Option<Stitched> {
        Some(Stitched::Ymm32(
            Avx2Bmi2::get()?,
            Avx512::get()?,
            StitchedShapes::pick(true),
        ))
    }
}

impl Backend for Stitched {
    fn name(self) -> &'static str {
        match self {
            Stitched::Ymm16(..) => super::AVX2_STITCHED,
            Stitched::Ymm32(..) => super::AVX512_STITCHED,
        }
    }

    fn seal(self, c: &Instance, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let (key, nonce) = (&c.key.0, &c.nonce);
        match self {
            // SAFETY: the token proves AVX, AVX2, BMI2 and ADX.
            Stitched::Ymm16(t, shape) => unsafe { ymm16::K::seal(t, key, nonce, aad, buf, shape) },
            // SAFETY: the tokens prove those and AVX-512 F/BW/VL/DQ.
            Stitched::Ymm32(t, _, shape) => unsafe {
                ymm32::K::seal(t, key, nonce, aad, buf, shape)
            },
        }
    }

    /// Opens `buf` in place if `tag` authenticates it; wipes it otherwise.
    fn open(self, c: &Instance, aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        let (key, nonce) = (&c.key.0, &c.nonce);
        let ok = match self {
            // SAFETY: the token proves AVX, AVX2, BMI2 and ADX.
            Stitched::Ymm16(t, shape) => unsafe {
                ymm16::K::open(t, key, nonce, aad, buf, tag, shape.open)
            },
            // SAFETY: the tokens prove those and AVX-512 F/BW/VL/DQ.
            Stitched::Ymm32(t, _, shape) => unsafe {
                ymm32::K::open(t, key, nonce, aad, buf, tag, shape.open)
            },
        };
        if ok { Ok(()) } else { Err(Error::TagMismatch) }
    }
}

/// The stitched kernel compiled with one set of target features (an
/// instantiation, made by `instantiate!`: [`ymm16`], [`ymm32`]): the
/// entries, each shape's out-of-line kernel (its frame left to the
/// caller), and the wipes of those frames, sized per instantiation.
///
/// # Safety
/// Each `unsafe fn` requires the CPU to have the instantiation's target
/// features.
pub(crate) trait Shapes {
    /// The bytes [`Shapes::wipe_short`] zeroes; the same for the
    /// constants below (the test `stack_wipe` checks each kernel writes
    /// within its wipe).
    const SHORT_STACK: usize;
    /// The bytes [`Shapes::wipe_seal_mid`] zeroes.
    const SEAL_MID_STACK: usize;
    /// The bytes [`Shapes::wipe_seal_long`] zeroes.
    const SEAL_LONG_STACK: usize;
    /// The bytes [`Shapes::wipe_open_mid`] zeroes.
    const OPEN_MID_STACK: usize;
    /// The bytes [`Shapes::wipe_open_two_calls`] zeroes.
    const OPEN_TWO_CALLS_STACK: usize;
    /// The bytes [`Shapes::wipe_open_long`] zeroes after
    /// `open_long::<3, 0>` (the deepest frame).
    const OPEN_LONG_3_0_STACK: usize;
    /// The bytes it zeroes after the other shapes of `open_long`.
    const OPEN_LONG_STACK: usize;

    /// Seals `buf` ([`seal_entry`]; `shape`: this core's sealing shapes).
    unsafe fn seal(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        shape: StitchedShapes,
    ) -> [u8; 16];
    /// Opens `buf` ([`open_entry`]; `open`: the 129–192-byte shape).
    unsafe fn open(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
        open: ShortOpen,
    ) -> bool;
    /// Sealing 65–256 bytes ([`seal_scalar_block0`] on one or two
    /// states).
    unsafe fn seal_scalar_block0<const S: usize>(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16];
    /// Sealing 257–320 bytes ([`seal_scalar_block0`] on three states;
    /// [`MidSeal::ScalarBlock0`]).
    unsafe fn seal_mid(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16];
    /// Sealing up to `128·S − 64` bytes from block 0 on `S` states
    /// ([`seal_vector_block0`]): 65–192 bytes on two
    /// ([`ShortSeal::VectorBlock0To192`], [`ShortSeal::VectorBlock0`],
    /// wiped by [`Shapes::wipe_short`]), 193–256 bytes
    /// ([`ShortSeal::VectorBlock0`]) and 257–320 bytes
    /// ([`MidSeal::VectorBlock0`]) on three (wiped by
    /// [`Shapes::wipe_seal_mid`]).
    unsafe fn seal_vector_block0<const S: usize>(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16];
    /// Sealing more than 320 bytes ([`seal_long`]; `head`: the 960–1 215-byte
    /// head).
    unsafe fn seal_long(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        head: LongHead,
    ) -> [u8; 16];
    /// Opening 65–256 bytes ([`open_scalar_block0`]).
    unsafe fn open_scalar_block0<const S: usize>(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> bool;
    /// Opening up to `128·S − 64` bytes from block 0 on `S` states
    /// ([`open_short`]): 129–192 bytes on two
    /// ([`ShortOpen::VectorBlock0To192`], wiped by [`Shapes::wipe_short`]),
    /// 257–320 bytes on three (wiped by [`Shapes::wipe_open_mid`]).
    unsafe fn open_vector_block0<const S: usize>(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> bool;
    /// Opening 321–448 bytes ([`open_two_calls`]).
    unsafe fn open_two_calls(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> bool;
    /// Opening more than 448 bytes ([`open_long`]).
    unsafe fn open_long<const S: usize, const LATE: usize>(
        t: Avx2Bmi2,
        key: &[u32; 8],
        nonce: &[u32; 3],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> bool;
    /// Zeroes the frame [`Shapes::seal_scalar_block0`] or
    /// [`Shapes::open_scalar_block0`] left below the caller's stack
    /// pointer (`s`, half of the one-time key, is spilled there while the
    /// MAC runs).
    fn wipe_short(t: cpu::Avx2);
    /// The same after [`Shapes::seal_mid`].
    fn wipe_seal_mid(t: cpu::Avx2);
    /// The same after [`Shapes::seal_long`].
    fn wipe_seal_long(t: cpu::Avx2);
    /// The same after [`Shapes::open_vector_block0`] on three states.
    fn wipe_open_mid(t: cpu::Avx2);
    /// The same after [`Shapes::open_two_calls`].
    fn wipe_open_two_calls(t: cpu::Avx2);
    /// The same after [`Shapes::open_long`]`::<S, LATE>`.
    fn wipe_open_long<const S: usize, const LATE: usize>(t: cpu::Avx2);
}

/// One of [`Shapes`]' `unsafe fn`s: an `#[inline(always)]` wrapper around
/// a function `inner` compiled with `$features` (and the given attributes,
/// `#[inline(never)]` for the out-of-line shapes) that runs `$body`.
macro_rules! with_features {
    (
        $features:literal,
        $(#[$attr:meta])*
        fn $name:ident $(<$(const $g:ident: usize),+>)? ($($p:ident: $ty:ty),* $(,)?) -> $ret:ty
        $body:block
    ) => {
        #[inline(always)]
        unsafe fn $name $(<$(const $g: usize),+>)? ($($p: $ty),*) -> $ret {
            #[target_feature(enable = $features)]
            $(#[$attr])*
            fn inner $(<$(const $g: usize),+>)? ($($p: $ty),*) -> $ret $body
            // SAFETY: the caller's CPU has `$features`.
            unsafe { inner $(::<$($g),+>)? ($($p),*) }
        }
    };
}

/// An instantiation of the stitched kernel ([`Shapes`]): a module `$name`
/// whose `K` runs the shapes compiled with `$features`, and the bytes
/// wiped after each out-of-line shape.
macro_rules! instantiate {
    (
        $(#[$doc:meta])*
        $name:ident, $features:literal,
        short: $ss:literal, seal_mid: $sm:literal, seal_long: $sl:literal, open_mid: $om:literal,
        open_two_calls: $ot:literal, open_long_3_0: $ol30:literal, open_long: $ol:literal $(,)?
    ) => {
        $(#[$doc])*
        pub(crate) mod $name {
            use super::*;

            /// The instantiation.
            pub(crate) struct K;

            impl Shapes for K {
                const SHORT_STACK: usize = $ss;
                const SEAL_MID_STACK: usize = $sm;
                const SEAL_LONG_STACK: usize = $sl;
                const OPEN_MID_STACK: usize = $om;
                const OPEN_TWO_CALLS_STACK: usize = $ot;
                const OPEN_LONG_3_0_STACK: usize = $ol30;
                const OPEN_LONG_STACK: usize = $ol;

                with_features! { $features,
                    fn seal(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        shape: StitchedShapes,
                    ) -> [u8; 16]
                    { seal_entry::<K>(t, key, nonce, aad, buf, shape) }
                }

                with_features! { $features,
                    fn open(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        tag: &[u8], open: ShortOpen,
                    ) -> bool
                    { open_entry::<K>(t, key, nonce, aad, buf, tag, open) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn seal_scalar_block0<const S: usize>(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                    ) -> [u8; 16]
                    { super::seal_scalar_block0::<S>(key, nonce, Masks::new(t.avx2()), aad, buf) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn seal_mid(t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8])
                        -> [u8; 16]
                    { super::seal_scalar_block0::<3>(key, nonce, Masks::new(t.avx2()), aad, buf) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn seal_vector_block0<const S: usize>(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                    ) -> [u8; 16]
                    { super::seal_vector_block0::<S>(key, nonce, Masks::new(t.avx2()), aad, buf) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn seal_long(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        head: LongHead,
                    ) -> [u8; 16]
                    { super::seal_long(Masks::new(t.avx2()), key, nonce, aad, buf, head) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn open_scalar_block0<const S: usize>(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        tag: &[u8],
                    ) -> bool
                    { super::open_scalar_block0::<S>(key, nonce, Masks::new(t.avx2()), aad, buf, tag) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn open_vector_block0<const S: usize>(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        tag: &[u8],
                    ) -> bool
                    { open_short::<S>(key, nonce, Masks::new(t.avx2()), aad, buf, tag) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn open_two_calls(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        tag: &[u8],
                    ) -> bool
                    { super::open_two_calls(key, nonce, Masks::new(t.avx2()), aad, buf, tag) }
                }

                with_features! { $features,
                    #[inline(never)]
                    fn open_long<const S: usize, const LATE: usize>(
                        t: Avx2Bmi2, key: &[u32; 8], nonce: &[u32; 3], aad: &[u8], buf: &mut [u8],
                        tag: &[u8],
                    ) -> bool
                    { super::open_long::<S, LATE>(Masks::new(t.avx2()), key, nonce, aad, buf, tag) }
                }

                #[inline(always)]
                fn wipe_short(t: cpu::Avx2) {
                    wipe_stack_below_ymm::<{ <K as Shapes>::SHORT_STACK }>(t);
                }

                #[inline(always)]
                fn wipe_seal_mid(t: cpu::Avx2) {
                    wipe_stack_below_ymm::<{ <K as Shapes>::SEAL_MID_STACK }>(t);
                }

                #[inline(always)]
                fn wipe_seal_long(t: cpu::Avx2) {
                    wipe_stack_below_ymm::<{ <K as Shapes>::SEAL_LONG_STACK }>(t);
                }

                #[inline(always)]
                fn wipe_open_mid(t: cpu::Avx2) {
                    wipe_stack_below_ymm::<{ <K as Shapes>::OPEN_MID_STACK }>(t);
                }

                #[inline(always)]
                fn wipe_open_two_calls(t: cpu::Avx2) {
                    wipe_stack_below_ymm::<{ <K as Shapes>::OPEN_TWO_CALLS_STACK }>(t);
                }

                #[inline(always)]
                fn wipe_open_long<const S: usize, const LATE: usize>(t: cpu::Avx2) {
                    if S == 3 && LATE == 0 {
                        wipe_stack_below_ymm::<{ <K as Shapes>::OPEN_LONG_3_0_STACK }>(t);
                    } else {
                        wipe_stack_below_ymm::<{ <K as Shapes>::OPEN_LONG_STACK }>(t);
                    }
                }
            }
        }
    };
}

instantiate! {
    /// The stitched kernel for AVX2 (16 ymm registers). Each wipe covers
    /// the deepest write the test `stack_wipe` measures for its shapes
    /// (rustc 1.95; its controls are called from a closure, whose frame,
    /// ≈ 270 bytes, the figures include): short 400, sealing 480 and
    /// 1 808, opening 464, 704, 2 080 (`open_long::<3, 0>`) and 1 920.
    ymm16, "avx,avx2,bmi2,adx",
    short: 512, seal_mid: 768, seal_long: 2048, open_mid: 768, open_two_calls: 1024,
    open_long_3_0: 2304, open_long: 2048,
}

instantiate! {
    /// The stitched kernel compiled with AVX-512VL (32 ymm registers, one
    /// `vprold` for each rotation): the same code with fewer spills, in
    /// frames half the size. Deepest writes measured as for [`ymm16`]:
    /// short 384, sealing 304 and 976, opening 336, 368, 1 552 and 1 264.
    ymm32, "avx,avx2,bmi2,adx,avx512f,avx512bw,avx512vl,avx512dq",
    short: 512, seal_mid: 512, seal_long: 1280, open_mid: 512, open_two_calls: 512,
    open_long_3_0: 1792, open_long: 1536,
}

/// The one-time Poly1305 key from the first 32 bytes of keystream block 0
/// (`r ‖ s`, one register: no byte copy of it to wipe): the scalar key
/// `r` and `s`.
#[inline(always)]
fn mac_key(block0: __m256i) -> (ScalarKey, u128) {
    let mut w = [0u64; 4];
    // SAFETY: AVX is available (entry points with cpu::Avx2Bmi2); `w` is
    // 32 bytes.
    unsafe { _mm256_storeu_si256(w.as_mut_ptr().cast::<__m256i>(), block0) };
    let r = u128::from(w[0]) | u128::from(w[1]) << 64;
    let s = u128::from(w[2]) | u128::from(w[3]) << 64;
    w.zeroize();
    (ScalarKey::from_r(r), s)
}

/// Absorbs blocks `range` of a whole group (each with the 2^128 bit).
#[inline(always)]
fn absorb_range(
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    group: &[u8; GROUP],
    range: core::ops::Range<usize>,
) {
    for j in range {
        let mut b = [0u8; 16];
        b.copy_from_slice(&group[16 * j..16 * j + 16]);
        mac.block(h, &b, 1);
    }
}

/// Sealing 65–320 bytes: the data's keystream from block 1 on the vector
/// unit (`S` states of two blocks) while block 0, the Poly1305 key, is
/// computed on the integer unit between its double rounds; then the MAC.
#[inline(always)]
fn seal_scalar_block0<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let init = lanes::input(key, nonce, 0);
    let mut x = one_lane(&init);
    let ks = keystream_h_with::<S>(key, nonce, 1, m, |_| lanes::double_round(&mut x));
    xor_rows(m, ks.as_flattened(), buf);
    let (mac, mut s) = scalar_mac_key(&mut x, &init);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    absorb_padded(&mac, &mut h, buf);
    finish(&mac, &mut h, &mut s, aad.len(), buf.len())
}

/// Sealing in `K`'s [`Shapes::seal_vector_block0`] (up to 64 bytes on one
/// state; 65–256 bytes by `short`, 257–320 by `mid`: the core's choices),
/// [`Shapes::seal_scalar_block0`], [`Shapes::seal_mid`] or
/// [`Shapes::seal_long`], each out of line and followed by the wipe of its
/// dead frame. Inlined into each instantiation's entry.
#[inline(always)]
fn seal_entry<K: Shapes>(
    t: Avx2Bmi2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
    shape: StitchedShapes,
) -> [u8; 16] {
    let len = buf.len();
    if len <= 64 {
        // One kernel call: block 0 and the data block together. Out of
        // line and wiped like the longer shapes (in the entry it was 2–5 %
        // faster on the Xeon, but its frame then held the clamped `r` or
        // not by the compiler's register allocation).
        // SAFETY: the entry runs with `K`'s features.
        let tag = unsafe { K::seal_vector_block0::<1>(t, key, nonce, aad, buf) };
        K::wipe_short(t.avx2());
        return tag;
    }
    // One kernel call for the data, block 0 beside it on the integer unit
    // (two calls, four blocks then the rest: 193–320 bytes 10 % slower
    // than ring on Zen 3), or block 0 in the vector call, one state more
    // or a spare block filled, by core and compilation (`tuning::SHORT_SEAL`
    // and `tuning::MID_SEAL`: at 257–320 bytes the latter 4–5 % slower on
    // Zen 4, 6–7 % faster on Zen 3, 7–13 % on the Xeon; at 129–192 bytes
    // 12–19 % faster on the Xeon).
    let three_short = len > 192 && shape.short == ShortSeal::VectorBlock0;
    if len <= 256 && !three_short {
        // SAFETY: the entry runs with `K`'s features.
        let tag = unsafe {
            match (len, shape.short) {
                (..=192, ShortSeal::VectorBlock0To192 | ShortSeal::VectorBlock0) => {
                    K::seal_vector_block0::<2>(t, key, nonce, aad, buf)
                }
                (..=128, _) => K::seal_scalar_block0::<1>(t, key, nonce, aad, buf),
                _ => K::seal_scalar_block0::<2>(t, key, nonce, aad, buf),
            }
        };
        K::wipe_short(t.avx2());
        return tag;
    }
    if len <= 320 {
        // SAFETY: the entry runs with `K`'s features.
        let tag = unsafe {
            match (three_short, shape.mid) {
                (true, _) | (_, MidSeal::VectorBlock0) => {
                    K::seal_vector_block0::<3>(t, key, nonce, aad, buf)
                }
                (false, MidSeal::ScalarBlock0) => K::seal_mid(t, key, nonce, aad, buf),
            }
        };
        K::wipe_seal_mid(t.avx2());
        tag
    } else {
        // SAFETY: as above.
        let tag = unsafe { K::seal_long(t, key, nonce, aad, buf, shape.head) };
        K::wipe_seal_long(t.avx2());
        tag
    }
}

/// Sealing up to `128·S − 64` bytes in one call of `S` states from block
/// 0 (the Poly1305 key in the first state's first block), then the MAC:
/// no scalar work beside the vector call (up to 64 bytes on one state;
/// [`ShortSeal`] and [`MidSeal::VectorBlock0`] on two or three).
#[inline(always)]
fn seal_vector_block0<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let len = buf.len();
    let ks = keystream_h::<S>(key, nonce, 0, m);
    let rows = ks.as_flattened();
    xor_rows(m, &rows[2..], buf);
    let (mac, mut s) = mac_key(rows[0]);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    absorb_padded(&mac, &mut h, buf);
    finish(&mac, &mut h, &mut s, aad.len(), len)
}

/// Sealing more than 320 bytes (each instantiation's out-of-line
/// `seal_long`, its frame wiped by the caller).
#[inline(always)]
fn seal_long(
    m: Masks,
    key: &[u32; 8],
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
    head: LongHead,
) -> [u8; 16] {
    let len = buf.len();
    // The head: blocks 0 to 5 (the Poly1305 key and the first 320 bytes)
    // from three states, so the MAC (the bound from here on) starts after
    // one latency-bound call; if more than 384 bytes follow, blocks 6 to
    // 11 from three more states, MACing the first 320 bytes between their
    // rounds (704 bytes in all). Where that would leave a tail of 256 to
    // 511 bytes after one or more groups, blocks 0 to 7 from the 8-block
    // kernel instead (448 bytes), which leaves one of 0 to 255: a long
    // tail's MAC runs alone after its call. Before the first group
    // (960–1 215 bytes) by core (`tuning::LONG_HEAD`): the 704-byte head
    // starts the MAC one 8-block call earlier, and the tail's call MACs the
    // head's second call (Zen 3, docs/notes/chachapoly.md, "The 8-block
    // head"); the Xeon is faster with the 8-block head there too, and
    // wherever the tail after 704 bytes and the groups would be under 128
    // bytes or there would be no second call (577–704 bytes): the tail's
    // call is then one state, too short to hide the 32 blocks of MAC before
    // it, or the MAC starts one call later.
    let tail704 = len.saturating_sub(704) % GROUP;
    let head8 = match head {
        LongHead::TwoCalls => len > 704 + GROUP && tail704 >= 256,
        LongHead::EightBlocks => len > 704 && tail704 >= 256,
        LongHead::EightBlocksExceptMidTails => {
            len > 576 && (len <= 704 || !(128..256).contains(&tail704))
        }
    };
    let (head, mut rest) = buf.split_at_mut(if head8 { 448 } else { 320 });
    let block0 = match <&mut [u8; 448]>::try_from(&mut *head) {
        Ok(head) => xor8_after_block0(m, &keystream8(key, nonce, 0, m), head),
        Err(_) => {
            let ks = keystream_h::<3>(key, nonce, 0, m);
            let rows = ks.as_flattened();
            xor_rows(m, &rows[2..], head);
            rows[0]
        }
    };
    let (mac, mut s) = mac_key(block0);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    // Ciphertext not yet MACed: whole blocks, at most 32.
    let mut pending: &[u8] = head;
    let mut counter = if head8 { 8u32 } else { 6 };
    if !head8 && rest.len() > 384 {
        let (second, more) = core::mem::take(&mut rest).split_at_mut(384);
        let n = pending.len() / 16;
        let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
        let ks = keystream_h_with::<3>(key, nonce, counter, m, hook);
        xor_rows(m, ks.as_flattened(), second);
        pending = second;
        counter = 12;
        rest = more;
    }
    let whole = rest.len() / GROUP * GROUP;
    let (body, tail) = core::mem::take(&mut rest).split_at_mut(whole);
    rest = tail;
    let mut groups = body
        .chunks_exact_mut(GROUP)
        .filter_map(|g| <&mut [u8; GROUP]>::try_from(g).ok());
    if let Some(g) = groups.next() {
        // The first group MACs the chunk before it (at most 24 blocks).
        let ks = keystream8_with(key, nonce, counter, m, |_| {
            absorb_some(&mac, &mut h, &mut pending, 3)
        });
        absorb_some(&mac, &mut h, &mut pending, 2);
        xor8(m, &ks, g);
        counter = counter.wrapping_add(8);
        let mut prev: &[u8; GROUP] = g;
        for g in groups {
            // A whole group behind: fixed block ranges, no length tests.
            let ks = keystream8_with(key, nonce, counter, m, |r| {
                absorb_range(&mac, &mut h, prev, 3 * r..3 * r + 3)
            });
            absorb_range(&mac, &mut h, prev, 30..32);
            xor8(m, &ks, g);
            counter = counter.wrapping_add(8);
            prev = g;
        }
        pending = prev;
    }
    // The tail, under 512 bytes, on the smallest kernel that covers it,
    // MACing the group before it three blocks a double round, as the
    // groups do (four: the scalar chain outran the 8-block kernel's rounds,
    // 1 420 bytes 932 against 829 ns, Zen 3, `examples/chachapoly_sweep`).
    // One closure per kernel: one closure shared by the three measured
    // 905 against 802 ns at 1 420 bytes (same tool; the mechanism was not
    // traced in the disassembly).
    let n = pending.len() / 16;
    match rest.len() {
        0 => {}
        1..=128 => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            let ks = keystream_h_with::<1>(key, nonce, counter, m, hook);
            xor_rows(m, ks.as_flattened(), rest)
        }
        129..=256 => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            let ks = keystream_h_with::<2>(key, nonce, counter, m, hook);
            xor_rows(m, ks.as_flattened(), rest)
        }
        257..=384 => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            let ks = keystream_h_with::<3>(key, nonce, counter, m, hook);
            xor_rows(m, ks.as_flattened(), rest)
        }
        _ => {
            let hook = |_| absorb_some(&mac, &mut h, &mut pending, 3);
            xor8_partial(m, &keystream8_with(key, nonce, counter, m, hook), rest)
        }
    }
    absorb_some(&mac, &mut h, &mut pending, 32);
    absorb_padded(&mac, &mut h, rest);
    finish(&mac, &mut h, &mut s, aad.len(), len)
}

/// Opening up to 320 bytes: one kernel call for block 0 and the data's
/// keystream (`S` states of two blocks), the MAC, the tag check, and only
/// then the keystream XORed in (on a mismatch the buffer is wiped).
/// In [`Shapes::open_vector_block0`] (up to 64 bytes, 129–192 bytes by
/// core, 257–320 bytes), out of line so that its frame can be wiped
/// (257–320 bytes inlined in the entry ran 4 % faster, `peer-bench
/// --chachapoly-sweep --passes 3`, but left key rows and keystream in the
/// entry's frame).
#[inline(always)]
fn open_short<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> bool {
    let ks = keystream_h::<S>(key, nonce, 0, m);
    let rows = ks.as_flattened();
    let (mac, s) = mac_key(rows[0]);
    open_one_call(m, &mac, s, aad, buf, tag, &rows[2..])
}

/// Authenticates and decrypts the whole 512-byte groups of `body` (each
/// MACed between the double rounds of its own keystream call, then
/// XORed), from block 1; returns the counter after them.
#[inline(always)]
fn open_groups(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    body: &mut [u8],
) -> u32 {
    let mut counter = 1u32;
    for g in body.chunks_exact_mut(GROUP) {
        if let Ok(g) = <&mut [u8; GROUP]>::try_from(g) {
            let ks = keystream8_with(key, nonce, counter, m, |r| {
                absorb_range(mac, h, g, 3 * r..3 * r + 3)
            });
            absorb_range(mac, h, g, 30..32);
            xor8(m, &ks, g);
        }
        counter = counter.wrapping_add(8);
    }
    counter
}

/// Block 0 and the keystream of a tail of at most `64·(2S − 1)` bytes
/// after `whole` bytes of groups, from one call of `S` states (blocks 0,
/// then the tail's `2S − 1`); the tail's rows go to the front of `early`.
/// Returns block 0's first row (the Poly1305 key).
#[inline(always)]
fn block0_and_tail<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    whole: usize,
    early: &mut [__m256i; 10],
) -> __m256i {
    let tail_counter = ((whole / 64) as u32).wrapping_add(1);
    // Offsets from block 0: 0, then the tail's blocks, pairwise.
    let mut offsets = [[0u32; 2]; S];
    for (s, o) in offsets.iter_mut().enumerate() {
        let first = (2 * s as u32).wrapping_add(tail_counter).wrapping_sub(1);
        *o = [if s == 0 { 0 } else { first }, first.wrapping_add(1)];
    }
    let ks = keystream_h_at::<S>(key, nonce, 0, offsets, m);
    let rows = ks.as_flattened();
    for (e, r) in early.iter_mut().zip(&rows[2..]) {
        *e = *r;
    }
    rows[0]
}

/// An all-zero row.
#[inline(always)]
fn zero_row() -> __m256i {
    // SAFETY: AVX is available (entry points with cpu::Avx2Bmi2).
    unsafe { _mm256_setzero_si256() }
}

/// Opening 65–256 bytes as [`seal_scalar_block0`] seals them: the
/// keystream from block 1 on the vector unit, block 0 on the integer unit
/// between its double rounds; then the MAC, the check and the XOR. (The
/// kernel call is not shared with sealing: the hook closures must stay one
/// per kernel call to be inlined.) Out of line in each instantiation (its
/// frame wiped by the caller).
#[inline(always)]
fn open_scalar_block0<const S: usize>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> bool {
    let init = lanes::input(key, nonce, 0);
    let mut x = one_lane(&init);
    let ks = keystream_h_with::<S>(key, nonce, 1, m, |_| lanes::double_round(&mut x));
    let (mac, s) = scalar_mac_key(&mut x, &init);
    open_one_call(m, &mac, s, aad, buf, tag, ks.as_flattened())
}

/// The rest of a one-call opening, once the keystream `rows` of `buf` and
/// the MAC key are known: the MAC, the check, then the XOR (on a mismatch
/// the buffer is wiped).
#[inline(always)]
fn open_one_call(
    m: Masks,
    mac: &ScalarKey,
    mut s: u128,
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
    rows: &[__m256i],
) -> bool {
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(mac, &mut h, aad);
    absorb_padded(mac, &mut h, buf);
    let ok = check(mac, &mut h, &mut s, aad.len(), buf.len(), tag);
    if ok {
        xor_rows(m, rows, buf);
    } else {
        buf.zeroize();
    }
    ok
}

/// The keystream of a tail's bytes after its first 320 (blocks `counter`
/// and `counter + 1`, one state) with the tail's whole blocks MACed
/// between the double rounds ([`absorb_share`] takes them all), then its
/// partial last block. (The call is latency-bound and the MAC of 21–28
/// blocks longer than it.)
#[inline(always)]
fn late_tail(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    counter: u32,
    tail: &[u8],
) -> [[__m256i; 4]; 1] {
    let (whole, partial) = tail.split_at(tail.len() & !15);
    let mut pending: &[u8] = whole;
    let n = whole.len() / 16;
    let ks = keystream_h_with::<1>(key, nonce, counter, m, |r| {
        absorb_share(mac, h, &mut pending, n, r)
    });
    absorb_padded(mac, h, partial);
    ks
}

/// Opening 321–448 bytes in two calls: block 0 and the first 320 bytes'
/// keystream from three states (the call takes as long as with one), then
/// the last 128 bytes' keystream from one state, with the ciphertext MACed
/// between its double rounds; the check, then the XOR. (The general path
/// does the same with its keystream rows kept in an array: 400 B 338
/// against 349 ns, `scripts/ab-time.sh`. [`late_tail`] is not shared with
/// it: a closure with two call sites is compiled as a function.) Out of
/// line in each instantiation (its frame wiped by the caller).
#[inline(always)]
fn open_two_calls(
    key: &[u32; 8],
    nonce: &[u32; 3],
    m: Masks,
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> bool {
    let first = keystream_h::<3>(key, nonce, 0, m);
    let rows = first.as_flattened();
    let (mac, mut s) = mac_key(rows[0]);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    let len = buf.len();
    let (whole, partial) = buf.split_at(len & !15);
    let mut pending: &[u8] = whole;
    let n = whole.len() / 16;
    let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
    let second = keystream_h_with::<1>(key, nonce, 6, m, hook);
    absorb_padded(&mac, &mut h, partial);
    let ok = check(&mac, &mut h, &mut s, aad.len(), len, tag);
    if ok {
        let (head, rest) = buf.split_at_mut(320);
        xor_rows(m, &rows[2..], head);
        xor_rows(m, second.as_flattened(), rest);
    } else {
        buf.zeroize();
    }
    ok
}

/// Block 0's input words as the one-lane state of [`lanes::double_round`].
#[inline(always)]
fn one_lane(init: &[u32; 16]) -> [[u32; 1]; 16] {
    let mut x = [[0u32; 1]; 16];
    for (w, &i) in x.iter_mut().zip(init) {
        *w = [i];
    }
    x
}

/// The Poly1305 key from block 0's state after its 20 rounds (`x`, then
/// wiped) and its input words: `r` (clamped by [`ScalarKey::from_r`]) and
/// `s`.
#[inline(always)]
fn scalar_mac_key(x: &mut [[u32; 1]; 16], init: &[u32; 16]) -> (ScalarKey, u128) {
    let w = |i: usize| u64::from(x[i][0].wrapping_add(init[i]));
    let r = u128::from(w(0) | w(1) << 32) | u128::from(w(2) | w(3) << 32) << 64;
    let s = u128::from(w(4) | w(5) << 32) | u128::from(w(6) | w(7) << 32) << 64;
    for word in x.iter_mut() {
        *word = [0];
    }
    (ScalarKey::from_r(r), s)
}

/// Opening in `K`'s out-of-line shapes, each followed by the wipe of its
/// dead frame. Inlined into each instantiation's entry.
#[inline(always)]
fn open_entry<K: Shapes>(
    t: Avx2Bmi2,
    key: &[u32; 8],
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
    open: ShortOpen,
) -> bool {
    let len = buf.len();
    // Up to 320 bytes, one kernel call (block 0 in a call of its own, then
    // the MAC, then a second call for the keystream: 0.62–0.78× ring's
    // time at 64–448 bytes on Zen 3, `peer-bench --chachapoly-sweep`).
    // Each shape runs out of line, its frame wiped after it (up to 64 bytes
    // too: as at sealing).
    match len {
        0..=64 => {
            // SAFETY: the entry runs with `K`'s features.
            let ok = unsafe { K::open_vector_block0::<1>(t, key, nonce, aad, buf, tag) };
            K::wipe_short(t.avx2());
            ok
        }
        // At 129–192 bytes by core (`tuning::SHORT_OPEN`): block 0 in the
        // vector call fills the second state's spare block.
        65..=256 => {
            // SAFETY: the entry runs with `K`'s features.
            let ok = unsafe {
                match (len, open) {
                    (..=128, _) => K::open_scalar_block0::<1>(t, key, nonce, aad, buf, tag),
                    (..=192, ShortOpen::VectorBlock0To192) => {
                        K::open_vector_block0::<2>(t, key, nonce, aad, buf, tag)
                    }
                    _ => K::open_scalar_block0::<2>(t, key, nonce, aad, buf, tag),
                }
            };
            K::wipe_short(t.avx2());
            ok
        }
        257..=320 => {
            // SAFETY: as above.
            let ok = unsafe { K::open_vector_block0::<3>(t, key, nonce, aad, buf, tag) };
            K::wipe_open_mid(t.avx2());
            ok
        }
        321..=448 => {
            // SAFETY: as above.
            let ok = unsafe { K::open_two_calls(t, key, nonce, aad, buf, tag) };
            K::wipe_open_two_calls(t.avx2());
            ok
        }
        // A tail of at most 320 bytes after whole groups: block 0 and the
        // tail's keystream from one call of up to three states first (the
        // call is latency-bound: one state or three take the same time);
        // the tail is MACed after the groups and decrypted after the check.
        // A longer tail: block 0 and its first 320 bytes' keystream first,
        // the rest's from a call of its own after the groups, which MACs
        // the tail between its double rounds (449–511 bytes: block 0 alone
        // first, the tail from the 8-block kernel).
        _ => {
            /// One shape of [`open_long`], then the wipe of its frame.
            macro_rules! long {
                ($s:literal, $late:literal) => {{
                    // SAFETY: as above.
                    let ok = unsafe { K::open_long::<$s, $late>(t, key, nonce, aad, buf, tag) };
                    K::wipe_open_long::<$s, $late>(t.avx2());
                    ok
                }};
            }
            match len % GROUP {
                0..=64 => long!(1, 0),
                65..=192 => long!(2, 0),
                193..=320 => long!(3, 0),
                321..=448 => long!(3, 1),
                _ => long!(1, 8),
            }
        }
    }
}

/// Opening more than 448 bytes: block 0 and the first keystream rows of
/// the tail after the whole groups from one call of `S` states; the
/// groups, each MACed between the double rounds of its own call; then,
/// with `LATE` = 1, the rest of a tail of 321–448 bytes from one state,
/// MACing the tail between its rounds; with `LATE` = 8 the whole tail
/// (449–511 bytes) from the 8-block kernel, MACing it between its rounds. One function per shape,
/// not inlined: in one function the shapes' register allocation moved
/// with each other's code (tails of 0–255 bytes 4–5 % slower after a
/// change to the long tails, `peer-bench --chachapoly-sweep`); out of line
/// in each instantiation (its frame wiped by the caller).
#[inline(always)]
fn open_long<const S: usize, const LATE: usize>(
    m: Masks,
    key: &[u32; 8],
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> bool {
    let len = buf.len();
    let whole = len / GROUP * GROUP;
    let mut early = [zero_row(); 10];
    let block0 = block0_and_tail::<S>(key, nonce, m, whole, &mut early);
    let (mac, mut s) = mac_key(block0);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    let (body, rest) = buf.split_at_mut(whole);
    // One call site of the group loop: its MAC closure is then inlined
    // (with four, LLVM made it a function: 512 B 1 087 → 1 390 cycles).
    let counter = open_groups(key, nonce, m, &mac, &mut h, body);
    let ok = if LATE == 8 {
        // The whole tail's keystream from the 8-block kernel, MACing the
        // tail between its rounds (449–511 bytes: 3 + 2 states measured
        // 500 B 397 → 424 ns, `scripts/ab-time.sh`).
        let (whole_tail, partial) = rest.split_at(rest.len() & !15);
        let mut pending: &[u8] = whole_tail;
        let hook = |_| absorb_some(&mac, &mut h, &mut pending, 3);
        let ks = keystream8_with(key, nonce, counter, m, hook);
        absorb_some(&mac, &mut h, &mut pending, 32);
        absorb_padded(&mac, &mut h, partial);
        let ok = check(&mac, &mut h, &mut s, aad.len(), len, tag);
        if ok {
            xor8_partial(m, &ks, rest);
        }
        ok
    } else if LATE == 0 || rest.len() <= 320 {
        absorb_padded(&mac, &mut h, rest);
        let ok = check(&mac, &mut h, &mut s, aad.len(), len, tag);
        if ok {
            xor_rows(m, &early, rest);
        }
        ok
    } else {
        let late = late_tail(key, nonce, m, &mac, &mut h, counter.wrapping_add(5), rest);
        let ok = check(&mac, &mut h, &mut s, aad.len(), len, tag);
        if ok {
            let (head, last) = rest.split_at_mut(320);
            xor_rows(m, &early, head);
            xor_rows(m, late.as_flattened(), last);
        }
        ok
    };
    if !ok {
        // The whole groups were decrypted while they were authenticated:
        // wipe them with the rest.
        buf.zeroize();
    }
    ok
}

/// The latencies the opening's schedule rests on, in TSC ticks (each
/// call's input depends on the call before, so calls do not overlap):
/// `cargo test --release -p fieldwork-crypto --lib kernel_latencies --
/// --ignored --nocapture`. A design probe, not a benchmark: speed figures
/// come from peer-bench.
#[cfg(test)]
mod probe {
    extern crate std;
    use super::*;
    use core::arch::x86_64::_rdtsc;
    use std::println;

    #[target_feature(enable = "avx,avx2,bmi2,adx")]
    fn run(t: Avx2Bmi2) {
        let m = Masks::new(t.avx2());
        let (key, nonce, data) = ([1u32; 8], [2u32; 3], [3u8; GROUP]);
        let mac = ScalarKey::from_r(12_345_678_901_234_567_890);
        let zero = core::hint::black_box(0u64);
        let time = |name: &str, f: &mut dyn FnMut(u64) -> u64| {
            let mut best = u64::MAX;
            for _ in 0..5 {
                let mut acc = 0u64;
                // SAFETY: RDTSC exists on every x86-64 CPU.
                let t0 = unsafe { _rdtsc() };
                for _ in 0..20_000 {
                    acc = f(acc & zero);
                }
                // SAFETY: as above.
                let t1 = unsafe { _rdtsc() };
                core::hint::black_box(acc);
                best = best.min((t1 - t0) / 20_000);
            }
            println!("{name:28} {best:5} ticks");
        };
        let lane = |v: __m256i| {
            let mut w = [0u64; 4];
            // SAFETY: AVX is available (this function's features); `w` is
            // 32 bytes.
            unsafe { _mm256_storeu_si256(w.as_mut_ptr().cast(), v) };
            w[0]
        };
        time("one state (2 blocks)", &mut |d| {
            lane(keystream_h::<1>(&key, &nonce, d as u32, m)[0][0])
        });
        time("three states (6 blocks)", &mut |d| {
            lane(keystream_h::<3>(&key, &nonce, d as u32, m)[2][0])
        });
        time("8-block kernel", &mut |d| {
            lane(keystream8(&key, &nonce, d as u32, m)[0])
        });
        time("block 0 on the integer unit", &mut |d| {
            let init = lanes::input(&key, &nonce, d as u32);
            let mut x = one_lane(&init);
            for _ in 0..10 {
                lanes::double_round(&mut x);
            }
            u64::from(x[0][0])
        });
        time("MAC, 32 blocks", &mut |d| {
            let mut h = [d, 0, 0];
            absorb_range(&mac, &mut h, &data, 0..32);
            h[0]
        });
        time("8-block kernel + MAC of 30", &mut |d| {
            let mut h = [d, 0, 0];
            let k = keystream8_with(&key, &nonce, 1, m, |r| {
                absorb_range(&mac, &mut h, &data, 3 * r..3 * r + 3)
            });
            lane(k[0]) ^ h[0]
        });
        time("one state + MAC of 30", &mut |d| {
            let mut h = [d, 0, 0];
            let k = keystream_h_with::<1>(&key, &nonce, 1, m, |r| {
                absorb_range(&mac, &mut h, &data, 3 * r..3 * r + 3)
            });
            lane(k[0][0]) ^ h[0]
        });
        time("MAC, 32 blocks, 2 chains of 16", &mut |d| {
            let mut h = [d, 0, 0];
            let mut g = [d, 0, 0];
            for j in 0..16 {
                absorb_range(&mac, &mut h, &data, j..j + 1);
                absorb_range(&mac, &mut g, &data, 16 + j..17 + j);
            }
            h[0] ^ g[0]
        });
        time("MAC, 32 blocks, 3 chains", &mut |d| {
            let mut h = [d, 0, 0];
            let mut g = [d, 0, 0];
            let mut f = [d, 0, 0];
            for j in 0..10 {
                absorb_range(&mac, &mut h, &data, j..j + 1);
                absorb_range(&mac, &mut g, &data, 10 + j..11 + j);
                absorb_range(&mac, &mut f, &data, 20 + j..21 + j);
            }
            h[0] ^ g[0] ^ f[0]
        });
        // Eight groups back to back, as the bulk opening runs them: one
        // chain through all (3 blocks a double round, 2 after), or two
        // chains each taking half of every group's 32 blocks.
        time("8 groups, one chain", &mut |d| {
            let mut h = [d, 0, 0];
            let mut x = 0u64;
            for g in 0..8u32 {
                let k = keystream8_with(&key, &nonce, 8 * g, m, |r| {
                    absorb_range(&mac, &mut h, &data, 3 * r..3 * r + 3)
                });
                absorb_range(&mac, &mut h, &data, 30..32);
                x ^= lane(k[0]);
            }
            h[0] ^ x
        });
        time("8 groups, two chains", &mut |d| {
            let mut h = [d, 0, 0];
            let mut f = [d, 0, 0];
            let mut x = 0u64;
            for g in 0..8u32 {
                let k = keystream8_with(&key, &nonce, 8 * g, m, |r| {
                    if r < 8 {
                        absorb_range(&mac, &mut h, &data, 2 * r..2 * r + 2);
                        absorb_range(&mac, &mut f, &data, 16 + 2 * r..18 + 2 * r);
                    }
                });
                x ^= lane(k[0]);
            }
            h[0] ^ f[0] ^ x
        });
        for n in [20usize, 25, 28] {
            time(&std::format!("MAC, {n} blocks"), &mut |d| {
                let mut h = [d, 0, 0];
                absorb_range(&mac, &mut h, &data, 0..n);
                h[0]
            });
            time(&std::format!("one state + {n}, 3 a round"), &mut |d| {
                let mut h = [d, 0, 0];
                let mut p: &[u8] = &data[..16 * n];
                let k = keystream_h_with::<1>(&key, &nonce, d as u32, m, |_| {
                    absorb_some(&mac, &mut h, &mut p, 3)
                });
                absorb_some(&mac, &mut h, &mut p, 32);
                lane(k[0][0]) ^ h[0]
            });
            time(&std::format!("one state + {n}, spread"), &mut |d| {
                let mut h = [d, 0, 0];
                let mut p: &[u8] = &data[..16 * n];
                let k = keystream_h_with::<1>(&key, &nonce, d as u32, m, |r| {
                    absorb_share(&mac, &mut h, &mut p, n, r)
                });
                lane(k[0][0]) ^ h[0]
            });
        }
    }

    #[test]
    #[ignore = "a timing probe: run by hand, in release"]
    fn kernel_latencies() {
        if let Some(t) = Avx2Bmi2::get() {
            // SAFETY: the token proves the features `run` enables.
            unsafe { run(t) }
        }
    }
}

/// The stack wipes: for each length in `SHAPE_LENS`, the out-of-line
/// kernel of its shape alone (the control: it writes within its wipe, and
/// the scan finds secrets in its dead frame) and the entry with its wipe
/// (no secret left: key words or rows, keystream, the Poly1305 key or its
/// clamped `r`), sealing and opening, for each instantiation; the tags
/// and texts agree with the portable backend's.
#[cfg(test)]
mod stack_wipe {
    use super::*;
    use crate::chacha20::{KeyWords, nonce_words};
    use crate::chachapoly::ChaCha20Poly1305;
    use crate::chachapoly::stack_tests::{SHAPE_LENS, aead_secrets};
    use crate::hazmat::Backends;
    use crate::wipe::stack_probe::{Tally, bytes};

    /// The wipe after `K`'s entry's shape for `len` bytes (`short`: sealing
    /// with that 65–256-byte shape; `None`: opening).
    fn limit<K: Shapes>(short: Option<ShortSeal>, len: usize) -> usize {
        let open = short.is_none();
        match (open, len) {
            (_, 0..=64) => K::SHORT_STACK,
            (false, 193..=256) if short == Some(ShortSeal::VectorBlock0) => K::SEAL_MID_STACK,
            (_, 65..=256) => K::SHORT_STACK,
            (false, 257..=320) => K::SEAL_MID_STACK,
            (false, _) => K::SEAL_LONG_STACK,
            (true, 257..=320) => K::OPEN_MID_STACK,
            (true, 321..=448) => K::OPEN_TWO_CALLS_STACK,
            (true, _) if (193..=320).contains(&(len % GROUP)) => K::OPEN_LONG_3_0_STACK,
            (true, _) => K::OPEN_LONG_STACK,
        }
    }

    /// The test for the instantiation `K`.
    ///
    /// # Safety
    /// The CPU has `K`'s features.
    unsafe fn check<K: Shapes>(name: &str) {
        let Some(t) = Avx2Bmi2::get() else { return };
        let key_bytes: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(91) ^ 0x3c);
        let key = KeyWords::new(&key_bytes);
        let nonce_bytes = [0x11u8; 12];
        let nonce = nonce_words(&nonce_bytes);
        let aad = [0x42u8; 13];
        let Some(portable) = ChaCha20Poly1305::with_backend("portable", &key_bytes) else {
            panic!("no portable backend")
        };
        let (mut seal_tally, mut open_tally) = (Tally::new(), Tally::new());
        for len in SHAPE_LENS {
            let s = aead_secrets(&key.0, &nonce, len);
            let pt = bytes(len, 0x5a);
            let mut ct = pt.clone();
            let Ok(tag) = portable.encrypt_in_place_detached(&nonce_bytes, &aad, &mut ct) else {
                panic!("portable sealing failed")
            };
            // Every 65–256-byte and 257–320-byte shape and every long
            // head, whichever this core's tables pick.
            for shape in [
                StitchedShapes {
                    short: ShortSeal::ScalarBlock0,
                    mid: MidSeal::ScalarBlock0,
                    head: LongHead::TwoCalls,
                    open: ShortOpen::ScalarBlock0,
                },
                StitchedShapes {
                    short: ShortSeal::VectorBlock0,
                    mid: MidSeal::VectorBlock0,
                    head: LongHead::EightBlocks,
                    open: ShortOpen::ScalarBlock0,
                },
                StitchedShapes {
                    short: ShortSeal::VectorBlock0To192,
                    mid: MidSeal::VectorBlock0,
                    head: LongHead::EightBlocksExceptMidTails,
                    open: ShortOpen::ScalarBlock0,
                },
            ] {
                let (short, mid, head) = (shape.short, shape.mid, shape.head);
                let (mut b0, mut b1) = (pt.clone(), pt.clone());
                // SAFETY: the CPU has `K`'s features (each call).
                let control = || unsafe {
                    let (k, n, b) = (&key.0, &nonce, &mut b0[..]);
                    match (len, short, mid) {
                        (0..=64, ..) => K::seal_vector_block0::<1>(t, k, n, &aad, b),
                        (65..=192, ShortSeal::VectorBlock0To192 | ShortSeal::VectorBlock0, _) => {
                            K::seal_vector_block0::<2>(t, k, n, &aad, b)
                        }
                        (65..=128, ..) => K::seal_scalar_block0::<1>(t, k, n, &aad, b),
                        (129..=256, ShortSeal::ScalarBlock0 | ShortSeal::VectorBlock0To192, _) => {
                            K::seal_scalar_block0::<2>(t, k, n, &aad, b)
                        }
                        (193..=256, ShortSeal::VectorBlock0, _)
                        | (257..=320, _, MidSeal::VectorBlock0) => {
                            K::seal_vector_block0::<3>(t, k, n, &aad, b)
                        }
                        (257..=320, _, MidSeal::ScalarBlock0) => K::seal_mid(t, k, n, &aad, b),
                        (321.., ..) => K::seal_long(t, k, n, &aad, b, head),
                    }
                };
                // SAFETY: as above.
                let wiped = || unsafe { K::seal(t, &key.0, &nonce, &aad, &mut b1, shape) };
                let lim = limit::<K>(Some(short), len);
                seal_tally.case(&(name, "seal", len, shape), &s, lim, tag, control, wiped);
                assert_eq!((&b0, &b1), (&ct, &ct), "{name} seal {len} {shape:?}");
            }
            // Both 129–192-byte shapes.
            for open in [ShortOpen::ScalarBlock0, ShortOpen::VectorBlock0To192] {
                let (mut b0, mut b1) = (ct.clone(), ct.clone());
                let ok = |ok: bool| if ok { tag } else { [0; 16] };
                // SAFETY: as above.
                let control = || unsafe {
                    let (k, n, b) = (&key.0, &nonce, &mut b0[..]);
                    ok(match (len, open) {
                        (0..=64, _) => K::open_vector_block0::<1>(t, k, n, &aad, b, &tag),
                        (65..=128, _) => K::open_scalar_block0::<1>(t, k, n, &aad, b, &tag),
                        (129..=192, ShortOpen::VectorBlock0To192) => {
                            K::open_vector_block0::<2>(t, k, n, &aad, b, &tag)
                        }
                        (129..=256, _) => K::open_scalar_block0::<2>(t, k, n, &aad, b, &tag),
                        (257..=320, _) => K::open_vector_block0::<3>(t, k, n, &aad, b, &tag),
                        (321..=448, _) => K::open_two_calls(t, k, n, &aad, b, &tag),
                        (449.., _) => match len % GROUP {
                            0..=64 => K::open_long::<1, 0>(t, k, n, &aad, b, &tag),
                            65..=192 => K::open_long::<2, 0>(t, k, n, &aad, b, &tag),
                            193..=320 => K::open_long::<3, 0>(t, k, n, &aad, b, &tag),
                            321..=448 => K::open_long::<3, 1>(t, k, n, &aad, b, &tag),
                            _ => K::open_long::<1, 8>(t, k, n, &aad, b, &tag),
                        },
                    })
                };
                // SAFETY: as above.
                let wiped = || unsafe { ok(K::open(t, &key.0, &nonce, &aad, &mut b1, &tag, open)) };
                let lim = limit::<K>(None, len);
                open_tally.case(&(name, "open", len, open), &s, lim, tag, control, wiped);
                assert_eq!((&b0, &b1), (&pt, &pt), "{name} open {len} {open:?}");
            }
        }
        seal_tally.finish(&std::format!("chachapoly {name} seal"));
        open_tally.finish(&std::format!("chachapoly {name} open"));
    }

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "the wipes are sized for the release build's frames"
    )]
    fn kernels_stay_within_their_wipes_and_leave_no_secret() {
        if let Some(Stitched::Ymm16(..)) = Stitched::get() {
            // SAFETY: the token proves `ymm16`'s features.
            unsafe { check::<ymm16::K>("ymm16") };
        }
        if let Some(Stitched::Ymm32(..)) = Stitched::get_vl() {
            // SAFETY: the tokens prove `ymm32`'s features.
            unsafe { check::<ymm32::K>("ymm32") };
        }
    }
}
