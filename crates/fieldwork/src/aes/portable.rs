//! Target features: none — the portable backend.
//!
//! RustCrypto's `aes` crate: its software path is the constant-time
//! fixsliced implementation (Adomnicai & Peyrin, "Fixslicing AES-like
//! ciphers", TCHES 2021/1); it uses AES-NI by its own detection where
//! present, even under `FIELDWORK_MAX_ISA=portable`. Its key schedules
//! zeroize themselves on drop.
//!
//! The backend's type is [`Key`] (`aes::Backend`, name `portable`).
#![forbid(unsafe_code)]

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use zeroize::Zeroize;

/// A key of any of the three sizes.
#[derive(Clone)]
pub(crate) enum Key {
    Aes128(aes::Aes128),
    Aes192(aes::Aes192),
    Aes256(aes::Aes256),
}

impl super::Backend for Key {
    type Token = ();
    const NAME: &'static str = "portable";

    /// `key` is 16, 24 or 32 bytes (the public types take fixed-size
    /// arrays; any other length is read as a zero-padded 32-byte key).
    fn new(_: (), key: &[u8]) -> Key {
        if let Ok(k) = <[u8; 16]>::try_from(key) {
            return Key::Aes128(aes::Aes128::new(&k.into()));
        }
        if let Ok(k) = <[u8; 24]>::try_from(key) {
            return Key::Aes192(aes::Aes192::new(&k.into()));
        }
        let mut k = [0u8; 32];
        for (d, s) in k.iter_mut().zip(key) {
            *d = *s;
        }
        let key = Key::Aes256(aes::Aes256::new(&k.into()));
        k.zeroize();
        key
    }

    fn encrypt_array<const N: usize>(&self, blocks: [u128; N]) -> [u128; N] {
        blocks.map(|b| {
            let mut x = b.to_le_bytes();
            self.encrypt_block(&mut x);
            let y = u128::from_le_bytes(x);
            x.zeroize();
            y
        })
    }

    fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
        for b in blocks {
            self.encrypt_block(b);
        }
    }
}

impl Key {
    /// Encrypts one block in place.
    pub(crate) fn encrypt_block(&self, block: &mut [u8; 16]) {
        let b = block.into();
        match self {
            Key::Aes128(k) => k.encrypt_block(b),
            Key::Aes192(k) => k.encrypt_block(b),
            Key::Aes256(k) => k.encrypt_block(b),
        }
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        // The `aes` crate's `Drop` (feature `zeroize`) wipes the whole
        // struct with `zeroize_flat_type`.
        match self {
            Key::Aes128(k) => s.wiped_whole("aes::Aes128 schedule", k),
            Key::Aes192(k) => s.wiped_whole("aes::Aes192 schedule", k),
            Key::Aes256(k) => s.wiped_whole("aes::Aes256 schedule", k),
        }
    }
}
