//! Target features: none — the portable engine.
//!
//! Counter mode on the portable AES ([`crate::aes`]) and GHASH on the
//! portable carry-less multiplication ([`crate::ghash`]), both constant
//! time in software, in alternating chunks of [`CHUNK`] bytes that stay in
//! L1: the keystream of a chunk, the XOR, and the hash of its ciphertext.
#![forbid(unsafe_code)]

use super::{Backend, Direction, GcmTuning};
use crate::aes::{self, portable::Key as AesKey};
use crate::ghash;
use zeroize::{Zeroize, Zeroizing};

/// Bytes per chunk: encrypt, then hash, while the chunk is in L1.
const CHUNK: usize = 512;

/// The backend's key ([`Backend`], `portable`): the portable AES key
/// schedule and the GHASH key `H` (in POLYVAL's domain, wiped on drop).
#[derive(Clone)]
pub(super) struct Key {
    aes: AesKey,
    h: Zeroizing<u128>,
}

impl Backend for Key {
    type Token = ();
    const NAME: &'static str = "portable";

    /// Expands `key` (16, 24 or 32 bytes) and computes `H`.
    fn new(_: (), key: &[u8], _: GcmTuning) -> Key {
        let aes: AesKey = aes::Backend::new((), key);
        let mut h = [0u8; 16];
        aes.encrypt_block(&mut h);
        let key = Key {
            h: Zeroizing::new(ghash::gcm_key(&h)),
            aes,
        };
        h.zeroize();
        key
    }

    fn ghash_padded(&self, acc: u128, data: &[u8]) -> u128 {
        ghash::gcm_update_portable(*self.h, acc, data)
    }

    fn seal(&self, dir: Direction, j0: u128, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let j0 = &j0.to_le_bytes();
        let mut prefix = [0u8; 12];
        prefix.copy_from_slice(&j0[..12]);
        let ctr0 = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
        let acc = self.ghash_padded(0, aad);
        let acc = self.crypt(dir, &prefix, ctr0.wrapping_add(1), acc, buf);
        let lengths = (u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8);
        let s = self.ghash_padded(acc, &lengths.to_be_bytes());
        let mut t = *j0;
        self.aes.encrypt_block(&mut t);
        let tag = (s.swap_bytes() ^ u128::from_le_bytes(t)).to_le_bytes();
        t.zeroize();
        tag
    }
}

impl Key {
    /// Counter mode from counter block `(prefix, ctr)` over `buf`, and GHASH
    /// of the ciphertext into `acc`; returns the new accumulator.
    fn crypt(
        &self,
        dir: Direction,
        prefix: &[u8; 12],
        ctr: u32,
        acc: u128,
        buf: &mut [u8],
    ) -> u128 {
        let whole = buf.len() & !15;
        let (body, tail) = buf.split_at_mut(whole);
        let mut acc = self.crypt_chunked(dir, prefix, ctr, acc, body);
        if !tail.is_empty() {
            let n = (whole / 16) as u32;
            let mut ks = counter_block(prefix, ctr.wrapping_add(n));
            self.aes.encrypt_block(&mut ks);
            if dir == Direction::Decrypt {
                acc = self.ghash_padded(acc, tail);
            }
            for (b, k) in tail.iter_mut().zip(ks) {
                *b ^= k;
            }
            if dir == Direction::Encrypt {
                acc = self.ghash_padded(acc, tail);
            }
            ks.zeroize();
        }
        acc
    }

    /// Whole blocks, chunk by chunk: the keystream of a chunk, XOR, and the
    /// hash of its ciphertext.
    fn crypt_chunked(
        &self,
        dir: Direction,
        prefix: &[u8; 12],
        mut ctr: u32,
        mut acc: u128,
        buf: &mut [u8],
    ) -> u128 {
        let mut ks = [[0u8; 16]; CHUNK / 16];
        for chunk in buf.chunks_mut(CHUNK) {
            let n = chunk.len() / 16;
            for k in ks.iter_mut().take(n) {
                *k = counter_block(prefix, ctr);
                ctr = ctr.wrapping_add(1);
                self.aes.encrypt_block(k);
            }
            if dir == Direction::Decrypt {
                acc = self.ghash_padded(acc, chunk);
            }
            for (c, k) in chunk.chunks_exact_mut(16).zip(&ks) {
                for (b, kb) in c.iter_mut().zip(k) {
                    *b ^= kb;
                }
            }
            if dir == Direction::Encrypt {
                acc = self.ghash_padded(acc, chunk);
            }
        }
        ks.zeroize();
        acc
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.aes.secret_spans(s);
        s.secret("GHASH key H", &*self.h);
    }
}

/// The counter block `prefix ∥ [ctr]₃₂`.
#[inline]
fn counter_block(prefix: &[u8; 12], ctr: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(prefix);
    b[12..].copy_from_slice(&ctr.to_be_bytes());
    b
}
