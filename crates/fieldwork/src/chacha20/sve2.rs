//! Target features: `neon`, `sve2` — capability token
//! [`crate::cpu::NeonSve2`].
//!
//! The backend `sve2`: `neon.rs`'s kernels with the ten double rounds of
//! its vertical 4-block kernel on SVE2's `XAR` (exclusive OR and rotate
//! right, 32-bit elements): a quarter-round's `d ^= a; d <<<= 16` is one
//! `xar zd.s, zd.s, za.s, #16` where NEON needs `eor` and a rotation
//! (`rev32`, `tbl`, or `ushr` + `sli`). A quarter-round is 4 `add` + 4
//! `xar` = 8 instructions against NEON's 14; a double round for 4 blocks
//! 64 against 114 compiled. NEON's `add` and SVE2's `xar` work on the
//! same registers (`v`_n_ is the low 128 bits of `z`_n_; a NEON write
//! zeroes the bits above, and `xar` of zero bits is zero, so any vector
//! length gives the same low 128 bits). The bulk loop runs 4 blocks a
//! pass (the 4+1 and 8-block schedules of `tuning.rs` are NEON's); one to
//! three blocks, block 0 and the lone block run `neon.rs`'s horizontal
//! kernel, whose rotations are not all `xar`-shaped (its `ext` row
//! rotations sit between them).
//!
//! Rust 1.96 has no stable SVE intrinsics and `asm!` no operand class for
//! `z` registers, so the 80 quarter-rounds are one `asm!` block over the
//! explicit registers `v0`–`v15` (the rows), named `z0`–`z15` in `xar`;
//! the rows reach it through [`Words::fused_rounds`]. Rotations right by
//! 16, 20, 24, 25 are ChaCha's left rotations by 16, 12, 8, 7. Additions,
//! XORs and rotations only, no branch or index on key or data: constant
//! time.
//!
//! At a 128-bit vector length (every SVE2 core we know of) this is the one
//! kernel where SVE2 does more per instruction than NEON with SHA3
//! (`docs/notes/aarch64.md`, "SVE2").
//!
//! Stack wipe: as in `neon.rs`, each entry calls an out-of-line kernel
//! and then [`crate::wipe::wipe_stack_below`] over its dead frame (key
//! words and keystream among its spills): 768 bytes after
//! [`xor_long_sve2`] (a 672-byte frame, rustc 1.96), 1 024 after
//! [`after0_long_sve2`] (976); up to one block of `xor` and 128 bytes of
//! block 0's data are `neon.rs`'s entries and wipes. The `stack_wipe`
//! test checks the bounds and that no secret is left.
#![allow(unsafe_code)]

use super::neon::{self, Rot8, Rows4};
use super::rounds::Words;
use crate::cpu::{self, NeonSve2};
use crate::wipe::{wipe_stack_below, wiped_result};
use core::arch::aarch64::uint32x4_t;
use core::arch::asm;

super::token_backend! {
    /// The SVE2 backend (see the module docs).
    Sve2(cpu::NeonSve2) = "sve2", xor_sve2, block_sve2, after0_sve2
}

/// A row of the vertical 4-block kernel whose ten double rounds run as one
/// SVE2 kernel ([`double_rounds`]); every other operation is the
/// `uint32x4_t` one. Reached only from this file's entry points, which
/// hold `cpu::NeonSve2`.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct Sve2Rows(uint32x4_t);

/// [`Words`] methods of [`Sve2Rows`] that are the `uint32x4_t` method.
macro_rules! as_q {
    ($($m:ident),+) => {$(
        #[inline(always)]
        fn $m(self, b: Sve2Rows) -> Sve2Rows {
            Sve2Rows(self.0.$m(b.0))
        }
    )+};
}

impl Words for Sve2Rows {
    type Rot = Rot8;
    const FUSED_ROUNDS: bool = true;

    #[inline(always)]
    fn splat(w: u32) -> Sve2Rows {
        Sve2Rows(uint32x4_t::splat(w))
    }

    #[inline(always)]
    fn lane_offsets() -> Sve2Rows {
        Sve2Rows(uint32x4_t::lane_offsets())
    }

    #[inline(always)]
    fn xor_rotl<const L: i32>(self, b: Sve2Rows, rot: Rot8) -> Sve2Rows {
        Sve2Rows(self.0.xor_rotl::<L>(b.0, rot))
    }

    as_q!(add, unpack_lo32, unpack_hi32, unpack_lo64, unpack_hi64);

    #[inline(always)]
    fn fused_rounds(x: &mut [Sve2Rows; 16]) {
        // SAFETY: `Sve2Rows` is a transparent `uint32x4_t`, so the arrays
        // have one layout; SVE2 and NEON are available (only this file's
        // entry points, which take cpu::NeonSve2, reach here).
        unsafe { double_rounds(&mut *(x as *mut [Sve2Rows; 16]).cast::<[uint32x4_t; 16]>()) }
    }
}

impl Rows4 for Sve2Rows {
    #[inline(always)]
    fn q(self) -> uint32x4_t {
        self.0
    }
}

/// Up to one block on `neon.rs`'s entry (its horizontal kernel, its
/// wipe); longer data through the bulk loop with the SVE2 rounds
/// ([`xor_long_sve2`]), then the wipe of its dead frame.
#[target_feature(enable = "neon,sve2")]
fn xor_sve2(t: cpu::NeonSve2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    if data.len() <= 64 {
        neon::xor_neon(t.neon(), key, nonce, counter, data);
    } else {
        neon::wiped::<XOR_LONG_STACK, _>(xor_long_sve2(t, key, nonce, counter, data));
    }
}

/// Bytes wiped below the stack pointer after [`xor_long_sve2`] (a
/// 672-byte frame, rustc 1.96; the `stack_wipe` test checks the bound).
const XOR_LONG_STACK: usize = 768;

/// Bytes wiped after [`after0_long_sve2`] (a 976-byte frame).
const AFTER0_LONG_STACK: usize = 1024;

/// More than one block: the bulk loop, 4 blocks a pass on the SVE2
/// rounds, out of line (its frame wiped by the caller).
#[inline(never)]
#[target_feature(enable = "neon,sve2")]
fn xor_long_sve2(t: NeonSve2, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    neon::xor_from::<4, Sve2Rows>(key, nonce, counter, data, Rot8::new(t.neon()));
}

/// One block: `neon.rs`'s horizontal kernel.
#[target_feature(enable = "neon,sve2")]
fn block_sve2(t: cpu::NeonSve2, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
    neon::block_neon(t.neon(), key, nonce, counter)
}

/// Block 0 (returned) and the data `d` from block 1 (key `k`, nonce
/// `n`): up to 128 bytes on `neon.rs`'s horizontal kernel, longer with
/// the vertical blocks on SVE2; each followed by the wipe of its frame.
#[target_feature(enable = "neon,sve2")]
fn after0_sve2(t: NeonSve2, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]) -> [u8; 64] {
    if d.len() <= 128 {
        wiped_result(
            neon::after0_short(t.neon(), k, n, d),
            wipe_stack_below::<{ neon::SHORT_STACK }>,
        )
    } else {
        wiped_result(
            after0_long_sve2(t, k, n, d),
            wipe_stack_below::<AFTER0_LONG_STACK>,
        )
    }
}

/// [`neon::after_block0_v`] on the SVE2 rounds, out of line (its frame
/// wiped by the caller).
#[inline(never)]
#[target_feature(enable = "neon,sve2")]
fn after0_long_sve2(t: NeonSve2, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]) -> [u8; 64] {
    neon::after_block0_v::<4, Sve2Rows>(k, n, d, Rot8::new(t.neon()))
}

/// One step of four quarter-rounds, interleaved (`a += b` for all four,
/// then `d = (d ^ a) >>> R` for all four, …), as `asm!` template lines.
macro_rules! half {
    ($r1:literal, $r2:literal; $([$a:literal, $b:literal, $c:literal, $d:literal]),*) => {
        concat!(
            $("add v", $a, ".4s, v", $a, ".4s, v", $b, ".4s\n",)*
            $("xar z", $d, ".s, z", $d, ".s, z", $a, ".s, #", $r1, "\n",)*
            $("add v", $c, ".4s, v", $c, ".4s, v", $d, ".4s\n",)*
            $("xar z", $b, ".s, z", $b, ".s, z", $c, ".s, #", $r2, "\n",)*
        )
    };
}

/// The four column or diagonal quarter-rounds (both halves).
macro_rules! round {
    ($($q:tt),*) => {
        concat!(half!(16, 20; $($q),*), half!(24, 25; $($q),*))
    };
}

/// `x` after ChaCha20's ten double rounds (without the final addition of
/// the input).
///
/// # Safety
///
/// The CPU must have NEON and SVE2.
#[target_feature(enable = "neon,sve2")]
pub(crate) unsafe fn double_rounds(x: &mut [uint32x4_t; 16]) {
    let [
        x0,
        x1,
        x2,
        x3,
        x4,
        x5,
        x6,
        x7,
        x8,
        x9,
        x10,
        x11,
        x12,
        x13,
        x14,
        x15,
    ] = x;
    // SAFETY: SVE2 and NEON are available (the caller's contract); the
    // block reads and writes only the sixteen named vector registers and
    // the counter, touches no memory and leaves the flags (declared).
    unsafe {
        asm!(
            "mov {n:w}, #10",
            "2:",
            round!([0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]),
            round!([0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]),
            "subs {n:w}, {n:w}, #1",
            "b.ne 2b",
            n = out(reg) _,
            inout("v0") *x0, inout("v1") *x1, inout("v2") *x2, inout("v3") *x3,
            inout("v4") *x4, inout("v5") *x5, inout("v6") *x6, inout("v7") *x7,
            inout("v8") *x8, inout("v9") *x9, inout("v10") *x10, inout("v11") *x11,
            inout("v12") *x12, inout("v13") *x13, inout("v14") *x14, inout("v15") *x15,
            options(nomem, nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::chacha20::lanes;
    use core::arch::aarch64::{vld1q_u32, vst1q_u32};

    /// Against the portable double round (`lanes::double_round`, four
    /// blocks' words in lanes) on many random states, when the CPU has
    /// SVE2 (qemu `-cpu max`; skipped elsewhere, and said so).
    #[test]
    fn matches_the_portable_rounds() {
        if !(std::arch::is_aarch64_feature_detected!("sve2")
            && std::arch::is_aarch64_feature_detected!("neon"))
        {
            std::eprintln!("no SVE2 on this CPU: skipped");
            return;
        }
        let mut seed = 0x5eed_c4a2_0000_0001u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32
        };
        for _ in 0..200 {
            let mut want = [[0u32; 4]; 16];
            for row in want.iter_mut() {
                for w in row.iter_mut() {
                    *w = next();
                }
            }
            // SAFETY: NEON is present (checked); 4-word loads and stores
            // of 4-word arrays.
            let mut v: [uint32x4_t; 16] =
                core::array::from_fn(|i| unsafe { vld1q_u32(want[i].as_ptr()) });
            for _ in 0..10 {
                lanes::double_round(&mut want);
            }
            // SAFETY: SVE2 and NEON are present (checked above).
            unsafe { double_rounds(&mut v) };
            let mut got = [[0u32; 4]; 16];
            for (g, r) in got.iter_mut().zip(&v) {
                // SAFETY: as above.
                unsafe { vst1q_u32(g.as_mut_ptr(), *r) };
            }
            assert_eq!(got, want);
        }
    }

    /// The stack wipes of the SVE2 entries (`neon.rs`'s
    /// `stack_tests::run`), when the CPU has SVE2.
    #[test]
    fn kernels_stay_within_their_wipes_and_leave_no_secret() {
        if let Some(t) = cpu::NeonSve2::get() {
            stack_wipe_cases(t);
        }
    }

    /// [`kernels_stay_within_their_wipes_and_leave_no_secret`]'s cases.
    fn stack_wipe_cases(t: NeonSve2) {
        // SAFETY: the token proves NEON (each call).and SVE2.
        let xor = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 0..=63) => neon::xor_part(t.neon(), k, n, 1, d),
                (true, 65..) => xor_long_sve2(t, k, n, 1, d),
                _ => xor_sve2(t, k, n, 1, d),
            }
        };
        // SAFETY: as above (each call).
        let after0 = |alone, k: &[u32; 8], n: &[u32; 3], d: &mut [u8]| unsafe {
            match (alone, d.len()) {
                (true, 0..=128) => neon::after0_short(t.neon(), k, n, d),
                (true, _) => after0_long_sve2(t, k, n, d),
                _ => after0_sve2(t, k, n, d),
            }
        };
        let limit = |len, after0: bool| match (after0, len) {
            (false, 65..) => XOR_LONG_STACK,
            (true, 129..) => AFTER0_LONG_STACK,
            _ => neon::SHORT_STACK,
        };
        crate::chacha20::stack_tests::run("chacha20 sve2", xor, after0, limit);
    }
}
