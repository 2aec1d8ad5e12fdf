//! The AES block cipher (FIPS 197): AES-128, AES-192 and AES-256
//! encryption, for AES-GCM.
//!
//! Only the forward direction is here: GCM (like CTR) never decrypts a
//! block. Two backends, chosen when a key is created:
//!
//! - **AES-NI** (`aes`, `pclmulqdq`, `ssse3`, `sse4.1`; fieldwork's own
//!   code, `aes/aesni.rs`): the key expansion of FIPS 197 §5.2, four words
//!   at a time for AES-128 and AES-256 and word by word for AES-192, with
//!   `SubWord` computed by `aesenclast` on a broadcast word (ShiftRows is
//!   the identity on a state whose four columns are equal), so nothing is
//!   looked up in a table; encryption is `aesenc` per round, eight blocks
//!   interleaved to cover the instruction's latency.
//!   The VAES kernels of [`crate::gcm`] use the same round keys.
//! - **portable** (`aes/portable.rs`): RustCrypto's `aes` crate, whose software
//!   path is the constant-time fixsliced implementation (Adomnicai & Peyrin,
//!   TCHES 2021/1). That crate detects AES-NI on its own, so at
//!   `FIELDWORK_MAX_ISA=portable` the block function may still use AES-NI
//!   where the CPU has it; the GCM logic around it is portable either way.
//!
//! - **ARMv8** (`neon`, `aes`: `AESE`/`AESMC`; `aes/armv8.rs`, on
//!   AArch64): FIPS 197 §5.2 four words at a time in registers (AES-192
//!   word by word) with `SubWord` by `AESE` with a zero key on a broadcast
//!   word; encryption eight blocks interleaved; AES-GCM-SIV's counter
//!   mode.
//!
//! Each backend is a type implementing the crate-private `Backend` trait
//! (`aesni::Key`, `armv8::Key`, `portable::Key`), held by one variant of
//! the per-key `Dispatch` enum; [`crate::hazmat::Backends`] makes each by
//! its name (`aes-ni`, `aes-armv8`, `portable`).
//!
//! Round keys are zeroized on drop.
//!
//! ```
//! use fieldwork::aes::Aes128;
//!
//! // FIPS 197, appendix C.1.
//! let key: [u8; 16] = core::array::from_fn(|i| i as u8);
//! let mut block: [u8; 16] = core::array::from_fn(|i| (i as u8) * 0x11);
//! Aes128::new(&key).encrypt_block(&mut block);
//! assert_eq!(block[..4], [0x69, 0xc4, 0xe0, 0xd8]);
//! ```

#[cfg(target_arch = "x86_64")]
pub(crate) mod aesni;
#[cfg(target_arch = "aarch64")]
pub(crate) mod armv8;
#[cfg(target_arch = "x86_64")]
pub(crate) mod ctr;
pub(crate) mod portable;

use crate::cpu;
use zeroize::Zeroize;

/// Expanded encryption round keys: round key `r` is `rk[r]` (the 16 bytes
/// of FIPS 197's `w[4r..4r+4]`, read little-endian), `rounds` = 10, 12 or
/// 14.
#[derive(Clone)]
pub(crate) struct RoundKeys {
    pub(crate) rk: [u128; 15],
    pub(crate) rounds: usize,
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for RoundKeys {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        s.secret("AES round keys", &self.rk);
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Dispatch {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(k) => k.secret_spans(s),
            #[cfg(target_arch = "aarch64")]
            Dispatch::Armv8(k) => k.secret_spans(s),
            Dispatch::Portable(k) => k.secret_spans(s),
        }
    }
}

/// One AES backend: a key expanded for its block function. Implemented by
/// [`portable::Key`] and [`aesni::Key`], with the same signatures, so that
/// the counter modes above them ([`ctr32le_xor`], `gcm_siv`) are written
/// once over `B: Backend`.
pub(crate) trait Backend: Clone {
    /// The proof of the backend's instructions: a capability token, `()`
    /// for the portable backend.
    type Token: Copy;

    /// The name [`Aes128::backend_name`] reports.
    const NAME: &'static str;

    /// Expands `key` (16, 24 or 32 bytes; any other length is read as a
    /// zero-padded 32-byte key).
    fn new(token: Self::Token, key: &[u8]) -> Self;

    /// Encrypts `N` blocks (each read little-endian), in registers on
    /// AES-NI: for the few blocks a call needs at once.
    fn encrypt_array<const N: usize>(&self, blocks: [u128; N]) -> [u128; N];

    /// Encrypts the `N` blocks `base + i`, `i < N` added to the low 32-bit
    /// word (read little-endian), which must be zero in `base`: on AES-NI
    /// built in registers from `base` (AES-GCM-SIV's key derivation).
    #[inline]
    fn encrypt_counters<const N: usize>(&self, base: u128) -> [u128; N] {
        debug_assert_eq!(base as u32, 0);
        self.encrypt_array(core::array::from_fn(|i| base | i as u128))
    }

    /// Encrypts blocks in place.
    fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]);
}

/// One key on one backend, chosen when the key is made. (The portable
/// variant holds the `aes` crate's fixsliced schedule and is larger; keys
/// are built once, so the size difference costs nothing worth a heap
/// allocation.)
#[derive(Clone)]
#[allow(clippy::large_enum_variant)]
pub(crate) enum Dispatch {
    #[cfg(target_arch = "x86_64")]
    AesNi(aesni::Key),
    #[cfg(target_arch = "aarch64")]
    Armv8(armv8::Key),
    Portable(portable::Key),
}

impl Dispatch {
    /// Every backend's name, best first ([`crate::hazmat::Backends::NAMES`]).
    #[cfg(target_arch = "x86_64")]
    const NAMES: &[&str] = &[aesni::Key::NAME, portable::Key::NAME];
    #[cfg(target_arch = "aarch64")]
    const NAMES: &[&str] = &[armv8::Key::NAME, portable::Key::NAME];
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    const NAMES: &[&str] = &[portable::Key::NAME];

    /// The key on the fastest backend (`key` is 16, 24 or 32 bytes).
    pub(crate) fn new(key: &[u8]) -> Dispatch {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = Dispatch::aesni(key) {
            return k;
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(k) = Dispatch::armv8(key) {
            return k;
        }
        Dispatch::portable(key)
    }

    /// The key on the backend named `name` ([`Dispatch::NAMES`]), if this
    /// CPU runs it.
    fn with_backend(name: &str, key: &[u8]) -> Option<Dispatch> {
        match name {
            #[cfg(target_arch = "x86_64")]
            aesni::Key::NAME => Dispatch::aesni(key),
            #[cfg(target_arch = "aarch64")]
            armv8::Key::NAME => Dispatch::armv8(key),
            portable::Key::NAME => Some(Dispatch::portable(key)),
            _ => None,
        }
    }

    #[cfg(target_arch = "x86_64")]
    fn aesni(key: &[u8]) -> Option<Dispatch> {
        Some(Dispatch::AesNi(aesni::Key::new(cpu::AesClmul::get()?, key)))
    }

    #[cfg(target_arch = "aarch64")]
    fn armv8(key: &[u8]) -> Option<Dispatch> {
        Some(Dispatch::Armv8(armv8::Key::new(cpu::NeonAes::get()?, key)))
    }

    fn portable(key: &[u8]) -> Dispatch {
        Dispatch::Portable(portable::Key::new((), key))
    }

    /// Encrypts one block in place.
    pub(crate) fn encrypt_block(&self, block: &mut [u8; 16]) {
        let [b] = self.encrypt_array([u128::from_le_bytes(*block)]);
        *block = b.to_le_bytes();
    }

    /// [`Backend::encrypt_array`] on this key's backend.
    pub(crate) fn encrypt_array<const N: usize>(&self, blocks: [u128; N]) -> [u128; N] {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(k) => k.encrypt_array(blocks),
            #[cfg(target_arch = "aarch64")]
            Dispatch::Armv8(k) => k.encrypt_array(blocks),
            Dispatch::Portable(k) => k.encrypt_array(blocks),
        }
    }

    /// [`Backend::encrypt_blocks`] on this key's backend.
    pub(crate) fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(k) => k.encrypt_blocks(blocks),
            #[cfg(target_arch = "aarch64")]
            Dispatch::Armv8(k) => k.encrypt_blocks(blocks),
            Dispatch::Portable(k) => k.encrypt_blocks(blocks),
        }
    }

    fn name(&self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi(_) => aesni::Key::NAME,
            #[cfg(target_arch = "aarch64")]
            Dispatch::Armv8(_) => armv8::Key::NAME,
            Dispatch::Portable(_) => portable::Key::NAME,
        }
    }
}

/// `c` with its low 32 bits advanced by `i` modulo 2^32.
#[inline(always)]
pub(crate) fn add32(c: u128, i: u32) -> u128 {
    (c & !0xffff_ffff) | u128::from((c as u32).wrapping_add(i))
}

/// Counter mode with AES-GCM-SIV's counter (RFC 8452 §4; see `ctr.rs`
/// for the vector kernels): the reference loop, on any [`Backend`]: eight
/// counter blocks at a time through [`Backend::encrypt_blocks`], XORed into
/// `data`.
pub(crate) fn ctr32le_xor<B: Backend>(key: &B, ctr: u128, data: &mut [u8]) {
    let mut c = ctr;
    let mut ks = [[0u8; 16]; 8];
    for chunk in data.chunks_mut(128) {
        let n = chunk.len().div_ceil(16);
        let blocks = ks.get_mut(..n).unwrap_or_default();
        for (i, b) in blocks.iter_mut().enumerate() {
            *b = add32(c, i as u32).to_le_bytes();
        }
        key.encrypt_blocks(blocks);
        for (d, k) in chunk.iter_mut().zip(ks.iter().flatten()) {
            *d ^= k;
        }
        c = add32(c, 8);
    }
    ks.zeroize();
}

/// `$body` with the constant `$nr` bound to `$rounds` (10, 12, or 14 for
/// any other value: a `RoundKeys`' `rounds`), for kernels generic over the
/// round count: one `match`, each arm its own instance.
macro_rules! with_rounds {
    ($rounds:expr, $nr:ident => $body:expr) => {
        match $rounds {
            10 => {
                const $nr: usize = 10;
                $body
            }
            12 => {
                const $nr: usize = 12;
                $body
            }
            _ => {
                const $nr: usize = 14;
                $body
            }
        }
    };
}
pub(crate) use with_rounds;

macro_rules! aes_type {
    ($(#[$doc:meta])* $name:ident, $bytes:literal) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: Dispatch,
        }

        impl $name {
            #[doc = concat!("Expands a ", stringify!($bytes), "-byte key on the fastest backend.")]
            pub fn new(key: &[u8; $bytes]) -> $name {
                $name { key: Dispatch::new(key) }
            }

            /// Encrypts one 16-byte block in place.
            pub fn encrypt_block(&self, block: &mut [u8; 16]) {
                self.key.encrypt_block(block);
            }

            /// Encrypts each 16-byte block in place (independently: ECB).
            pub fn encrypt_blocks(&self, blocks: &mut [[u8; 16]]) {
                self.key.encrypt_blocks(blocks);
            }

            /// The backend in use: `aes-ni`, `aes-armv8` or `portable`.
            pub fn backend_name(&self) -> &'static str {
                self.key.name()
            }
        }

        crate::aead_util::keyed_backends!($name, key: Dispatch, $bytes);

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
    };
}

aes_type! {
    /// AES with a 128-bit key (10 rounds); encryption only.
    Aes128, 16
}
aes_type! {
    /// AES with a 192-bit key (12 rounds); encryption only.
    Aes192, 24
}
aes_type! {
    /// AES with a 256-bit key (14 rounds); encryption only.
    Aes256, 32
}
