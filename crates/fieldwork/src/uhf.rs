//! The buffering backend of the `universal-hash` traits, written once for
//! [`crate::ghash`]'s `GHash` and `Polyval` and [`crate::poly1305`]'s
//! `Poly1305`.
//!
//! `UniversalHash::update_with_backend` hands a closure of the caller's own
//! a backend to feed 16-byte blocks to, one at a time (`proc_block`) or in
//! parallel groups (`proc_par_blocks`). [`Buffered`] sends a parallel group
//! straight to the hash's bulk path; single blocks are collected, `BYTES`
//! bytes at most, and hashed together when the buffer is full, before the
//! next parallel group, and when the closure returns, so a closure that
//! feeds blocks one at a time still reaches the bulk path. What differs
//! between the hashes is a type parameter: how whole blocks are absorbed
//! ([`Absorb`]), how many blocks make a parallel group (`P`) and how many
//! bytes the buffer holds (`BYTES`). Every use is monomorphised, so a
//! block reaches the hash without a dynamic dispatch.
#![forbid(unsafe_code)]

use core::marker::PhantomData;
use universal_hash::{
    Block, ParBlocks, UhfBackend, UhfClosure,
    array::ArraySize,
    common::{BlockSizeUser, ParBlocksSizeUser},
    consts::U16,
};

/// A hash state that takes whole 16-byte blocks: what [`Buffered`] feeds.
pub(crate) trait Absorb {
    /// Hashes `blocks`, a whole number of 16-byte blocks, continuing the
    /// message in order.
    fn absorb(&mut self, blocks: &[u8]);
}

/// Runs a `universal-hash` closure on a [`Buffered`] backend over `state`
/// (parallel groups of `P` blocks, a buffer of `BYTES` bytes), then hashes
/// the blocks it collected and overwrites the buffer.
pub(crate) fn update_with_backend<S: Absorb, P: ArraySize, const BYTES: usize>(
    state: &mut S,
    f: impl UhfClosure<BlockSize = U16>,
) {
    const { assert!(BYTES >= 16 && BYTES.is_multiple_of(16)) };
    let mut backend = Buffered::<S, P, BYTES> {
        state,
        pending: [0; BYTES],
        len: 0,
        used: 0,
        par: PhantomData,
    };
    f.call(&mut backend);
    backend.flush();
    backend.clear();
}

/// The `universal-hash` backend of [`update_with_backend`]: parallel
/// groups of `P` blocks go straight to [`Absorb::absorb`]; single blocks
/// are collected (up to `BYTES` bytes) and absorbed together when the
/// buffer is full, before the next parallel group, and when the closure
/// returns.
struct Buffered<'a, S, P, const BYTES: usize> {
    /// The hash the blocks go to.
    state: &'a mut S,
    /// Single blocks not yet absorbed, `len` bytes of them.
    pending: [u8; BYTES],
    /// Bytes collected and not yet hashed (a multiple of 16).
    len: usize,
    /// The most bytes `pending` has held: what [`Buffered::clear`]
    /// overwrites.
    used: usize,
    /// The blocks of a parallel group (`ParBlocksSize`).
    par: PhantomData<P>,
}

impl<S: Absorb, P, const BYTES: usize> Buffered<'_, S, P, BYTES> {
    /// Hashes the collected blocks, in order.
    fn flush(&mut self) {
        if let Some(blocks) = self.pending.get(..self.len)
            && !blocks.is_empty()
        {
            self.state.absorb(blocks);
        }
        self.len = 0;
    }

    /// Overwrites the collected bytes (the input can be a plaintext). A
    /// `fill` that `black_box` keeps from being optimised away, rather than
    /// `zeroize`'s volatile writes, which go one byte at a time (about 500
    /// cycles for a 31-block tail of POLYVAL, as much as hashing it).
    fn clear(&mut self) {
        self.pending.iter_mut().take(self.used).for_each(|b| *b = 0);
        core::hint::black_box(&mut self.pending);
        self.used = 0;
    }
}

impl<S, P, const BYTES: usize> BlockSizeUser for Buffered<'_, S, P, BYTES> {
    type BlockSize = U16;
}

impl<S, P: ArraySize, const BYTES: usize> ParBlocksSizeUser for Buffered<'_, S, P, BYTES> {
    type ParBlocksSize = P;
}

impl<S: Absorb, P: ArraySize, const BYTES: usize> UhfBackend for Buffered<'_, S, P, BYTES> {
    #[inline]
    fn proc_block(&mut self, block: &Block<Self>) {
        // `len` is a multiple of 16 below `BYTES` (flushed when full).
        if let Some(dst) = self.pending.get_mut(self.len..self.len + 16) {
            dst.copy_from_slice(block);
        }
        self.len += 16;
        self.used = self.used.max(self.len);
        if self.len == self.pending.len() {
            self.flush();
        }
    }

    fn proc_par_blocks(&mut self, blocks: &ParBlocks<Self>) {
        // Earlier single blocks first: the hash depends on the order.
        self.flush();
        self.state.absorb(blocks.as_flattened());
    }
}
