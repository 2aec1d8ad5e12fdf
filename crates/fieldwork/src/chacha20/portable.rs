//! Target features: none — the portable, constant-time backend: the
//! block function of [`super::lanes`] one block at a time (RFC 8439 §2.3,
//! §2.4). Additions, XORs and rotations of 32-bit words only: constant time
//! on every target.
#![forbid(unsafe_code)]

use super::Backend;
use super::lanes::{xor_groups, xor_partial};

/// The portable backend.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Portable;

impl Backend for Portable {
    const NAME: &'static str = "portable";

    fn get() -> Option<Portable> {
        Some(Portable)
    }

    fn xor(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
        xor(key, nonce, counter, data);
    }
}

/// XORs the keystream from block `counter` into `data` (any length).
pub(super) fn xor(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
    let (counter, rest) = xor_groups::<1>(key, nonce, counter, data);
    xor_partial(key, nonce, counter, rest);
}
