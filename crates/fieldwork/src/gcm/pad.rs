//! Target features: none of its own — a helper of the xmm stitched kernel
//! ([`super::aesni`]), inlined into its target-feature functions (the ymm
//! kernel reads and writes partial registers with AVX2's masked moves
//! instead; see [`super::vaes256`]).
//!
//! The zeroed stack buffer through which that kernel processes the text of
//! tails and short messages: without masked byte loads or stores, at most
//! 256 bytes (`PAD`) are copied here, processed with whole-register
//! accesses of the kernel's width, copied back, and wiped
//! with volatile stores over the 16-byte blocks that held data.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// the pad is a fixed array; register offsets are const generics and counters below `PAD / width`.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::stitch::TAIL;
use core::arch::x86_64::{__m128i, _mm_setzero_si128};

/// Bytes of the buffer: [`TAIL`], the most a kernel's tail takes.
const PAD: usize = TAIL;

/// A zeroed, 32-byte-aligned stack copy of at most [`PAD`] bytes.
#[repr(C, align(32))]
pub(super) struct Pad {
    bytes: [u8; PAD],
    /// Bytes that hold data.
    len: usize,
}

impl Pad {
    /// All zeros, no data.
    pub(super) const EMPTY: Pad = Pad {
        bytes: [0; PAD],
        len: 0,
    };

    /// Copies in `data` (at most [`PAD`] bytes; callers guarantee it) to
    /// an empty pad, in place (no moved copy of the data is left behind).
    #[inline]
    pub(super) fn fill(&mut self, data: &[u8]) {
        debug_assert!(data.len() <= PAD);
        let len = data.len().min(PAD);
        self.bytes[..len].copy_from_slice(&data[..len]);
        self.len = len;
    }

    /// Registers of `W` bytes that hold data: `⌈len/W⌉`.
    #[inline]
    pub(super) fn regs<const W: usize>(&self) -> usize {
        self.len.div_ceil(W)
    }

    /// The start of register `c` of `W` bytes (clamped to the last one):
    /// `W` readable and writable bytes, `W`-aligned for `W ≤ 32`.
    #[inline(always)]
    pub(super) fn reg<const W: usize>(&mut self, c: usize) -> *mut u8 {
        let c = c.min(PAD / W - 1);
        // SAFETY: `W·c + W ≤ PAD`: inside `bytes`.
        unsafe { self.bytes.as_mut_ptr().add(W * c) }
    }

    /// The first `out.len()` bytes into `out`.
    #[inline]
    pub(super) fn copy_to(&self, out: &mut [u8]) {
        let len = out.len().min(PAD);
        out[..len].copy_from_slice(&self.bytes[..len]);
    }

    /// Zeroes the 16-byte blocks that held data, with volatile stores that
    /// the compiler may not elide (the rest was never written).
    #[inline]
    pub(super) fn wipe(&mut self) {
        let ptr = self.bytes.as_mut_ptr();
        for c in 0..self.len.div_ceil(16).min(PAD / 16) {
            // SAFETY: `16·c + 16 ≤ PAD`, and the buffer is 32-byte aligned
            // (`repr(C, align(32))` with `bytes` at offset 0). SSE2 is part
            // of x86-64.
            unsafe {
                core::ptr::write_volatile(ptr.add(16 * c).cast::<__m128i>(), _mm_setzero_si128())
            };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}
