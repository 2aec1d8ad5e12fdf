//! The ChaCha20 stream cipher (RFC 8439) and XChaCha20.
//!
//! [`ChaCha20`] is RFC 8439's variant: a 256-bit key, a 96-bit nonce and a
//! 32-bit block counter, so one (key, nonce) pair gives at most 2^32 blocks
//! of 64 bytes (256 GiB) of keystream; asking for more is an
//! [`Error::KeystreamExhausted`], never a silent wrap. [`XChaCha20`]
//! (draft-irtf-cfrg-xchacha-03) takes a 192-bit nonce: [`hchacha20`] of the
//! key and the nonce's first 16 bytes gives a subkey, and ChaCha20 runs
//! under it with the nonce `0⁴ ‖ nonce[16..24]`, so random nonces are safe.
//! Both take any split of the input (`apply_keystream` keeps its place in a
//! block) and can seek.
//!
//! # The math
//!
//! The state is a 4×4 matrix of 32-bit words: four constants, the key, the
//! block counter and the nonce. Twenty rounds of quarter-rounds
//! `a += b; d ^= a; d <<<= 16; c += d; b ^= c; b <<<= 12; a += b; d ^= a;
//! d <<<= 8; c += d; b ^= c; b <<<= 7`, alternately on the columns and the
//! diagonals, then the input is added word by word; the 64 bytes of the
//! result are the block's keystream (D. J. Bernstein, "ChaCha, a variant
//! of Salsa20", 2008; RFC 8439 §2.1–2.4). Additions, XORs and rotations
//! only: constant time by construction.
//!
//! # Backends
//!
//! Chosen once per key, best first: `avx512` (hand-written, 16 blocks
//! per zmm pass with `vprold` rotations, `chacha20/avx512.rs`; its tails
//! run the AVX2 kernels), `avx2` (hand-written kernels,
//! `chacha20/avx2.rs`: 8 blocks word-sliced for the bulk, 2 and 4 blocks
//! in the horizontal layout for tails and short messages), on AArch64
//! `neon` (`chacha20/neon.rs`: 4 blocks word-sliced in q registers for the
//! bulk, 1 to 3 in the horizontal layout for tails; an 8-block form kept
//! but not chosen, `chacha20/tuning.rs` says why), `portable`
//! (`lanes.rs`, one block at a time). The two vector kernels share one
//! round structure (`chacha20/rounds.rs`, over each width's vector
//! operations; the NEON kernel uses it too). Each backend file has one type implementing the crate's
//! `Backend` trait (`xor`, `block`, `xor_after_block0`); a key holds one
//! of them. [`crate::hazmat`] makes a [`ChaCha20`] or [`XChaCha20`] on any
//! backend by name. The AVX2 kernels also serve the stitched
//! ChaCha20-Poly1305 ([`crate::chachapoly`]).
//!
//! Figures: AVX2 16 KiB at 1.02 cycles/byte, 1.48× RustCrypto's AVX2
//! `chacha20` (AMD EPYC Zen 3, family 25 model 1); AVX-512 16 KiB at 0.69
//! cycles/byte, 2.25× RustCrypto and 1.64× our AVX2 kernel on the same
//! core (AMD EPYC Zen 4, family 25 model 17); `cargo run --release -p
//! peer-bench --features system-peers,xs233 -- --filter chacha20`. Dated
//! runs: `docs/notes/chacha20.md`.
//!
//! ```
//! use fieldwork::chacha20::ChaCha20;
//!
//! let (key, nonce) = ([0x42; 32], [0x24; 12]);
//! let mut buf = *b"a message of any length";
//! ChaCha20::new(&key, &nonce).apply_keystream(&mut buf)?;
//! assert_ne!(&buf, b"a message of any length");
//! // The same keystream again decrypts, in pieces of any size.
//! let mut c = ChaCha20::new(&key, &nonce);
//! c.apply_keystream(&mut buf[..5])?;
//! c.apply_keystream(&mut buf[5..])?;
//! assert_eq!(&buf, b"a message of any length");
//! # Ok::<(), fieldwork::chacha20::Error>(())
//! ```

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
pub(crate) mod lanes;
#[cfg(target_arch = "aarch64")]
pub(crate) mod neon;
mod portable;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod rounds;
#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(crate) mod stack_tests;
#[cfg(target_arch = "aarch64")]
mod sve2;
#[cfg(target_arch = "aarch64")]
mod tuning;

use core::fmt;
use zeroize::Zeroize;

/// Why a ChaCha20 call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The request runs past the 2^32 blocks (256 GiB) of keystream one key
    /// and nonce give; nothing was encrypted.
    KeystreamExhausted,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::KeystreamExhausted => {
                "ChaCha20: the keystream of this key and nonce (2^32 blocks of 64 bytes) is exhausted"
            }
        })
    }
}

impl core::error::Error for Error {}

/// Bytes of keystream one key and nonce give: 2^32 blocks of 64 bytes.
pub const MAX_KEYSTREAM_BYTES: u64 = 64 << 32;

/// One ChaCha20 backend: the block function over 32-bit key words,
/// implemented by one type in each backend file (`portable::Portable`,
/// `avx2::Avx2`, `avx512::Avx512`), a value that holds its capability
/// token; [`Dispatch`] holds one of them.
pub(crate) trait Backend: Copy {
    /// The backend's name (`backend_name()`).
    const NAME: &'static str;

    /// The backend (holding its capability token), if this CPU (after
    /// `FIELDWORK_MAX_ISA`) runs it.
    fn get() -> Option<Self>;

    /// XORs the keystream from block `counter` into `data` (any length).
    /// The caller keeps `counter + ⌈len/64⌉ ≤ 2^32`.
    fn xor(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]);

    /// The keystream block `counter` (by default the portable block
    /// function).
    fn block(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
        let mut b = [0u8; 64];
        portable::xor(key, nonce, counter, &mut b);
        b
    }

    /// XORs the keystream from block 1 into `data` and returns block 0
    /// (the AEAD's one-time Poly1305 key block). The caller keeps `1 +
    /// ⌈len/64⌉ ≤ 2^32`.
    fn xor_after_block0(self, key: &[u32; 8], nonce: &[u32; 3], data: &mut [u8]) -> [u8; 64] {
        let b = self.block(key, nonce, 0);
        self.xor(key, nonce, 1, data);
        b
    }

    /// [`Backend::xor_after_block0`], where the backend may leave its
    /// kernels' dead frames unwiped: they lie within
    /// `AFTER0_UNWIPED_STACK` bytes below the caller's stack pointer, and
    /// the caller wipes at least that much below it afterwards (the x86-64
    /// two-pass AEAD, after its tag: one wipe instead of two). By default
    /// the wiped entry.
    fn xor_after_block0_unwiped(
        self,
        key: &[u32; 8],
        nonce: &[u32; 3],
        data: &mut [u8],
    ) -> [u8; 64] {
        self.xor_after_block0(key, nonce, data)
    }
}

/// The bound on how deep below the caller's stack pointer a backend's
/// [`Backend::xor_after_block0_unwiped`] leaves dead frames: what its
/// caller must wipe afterwards.
#[cfg(target_arch = "x86_64")]
pub(crate) const AFTER0_UNWIPED_STACK: usize = 1024;

/// Defines `$backend`, a backend holding the capability token `$token`
/// (called `$name`), and its [`Backend`] impl on the backend file's
/// `#[target_feature]` entry points: `xor` calls `$xor`, and where given,
/// `block` and `xor_after_block0` call `$block` and `$after`, and
/// `xor_after_block0_unwiped` `$unwiped` (else the trait's defaults).
/// Each entry point takes the token first.
macro_rules! token_backend {
    ($(#[$doc:meta])* $backend:ident($token:ty) = $name:literal, $xor:ident
        $(, $block:ident, $after:ident $(, $unwiped:ident)?)?) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $backend($token);

        impl super::Backend for $backend {
            const NAME: &'static str = $name;

            fn get() -> Option<$backend> {
                <$token>::get().map($backend)
            }

            fn xor(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
                // SAFETY: the token proves the features the entry point is
                // compiled with.
                unsafe { $xor(self.0, key, nonce, counter, data) }
            }

            $(
            fn block(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
                // SAFETY: as for `xor`.
                unsafe { $block(self.0, key, nonce, counter) }
            }

            /// Block 0 computed in the same pass as the first data blocks.
            fn xor_after_block0(
                self,
                key: &[u32; 8],
                nonce: &[u32; 3],
                data: &mut [u8],
            ) -> [u8; 64] {
                // SAFETY: as for `xor`.
                unsafe { $after(self.0, key, nonce, data) }
            }

            $(
            fn xor_after_block0_unwiped(
                self,
                key: &[u32; 8],
                nonce: &[u32; 3],
                data: &mut [u8],
            ) -> [u8; 64] {
                // SAFETY: as for `xor`.
                unsafe { $unwiped(self.0, key, nonce, data) }
            }
            )?
            )?
        }
    };
}
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use token_backend;

crate::dispatch::backend_enum! { $ on_backend;
    /// The backend, chosen once per key; each variant holds its backend
    /// (its token).
    #[derive(Clone, Copy, Debug)]
    pub(crate) enum Dispatch {
        x86_64: Avx512(avx512::Avx512), Avx2(avx2::Avx2);
        aarch64: Sve2(sve2::Sve2), Neon(neon::Neon);
        portable: Portable(portable::Portable)
    }
}

impl Dispatch {
    /// The best backend this CPU runs.
    pub(crate) fn best() -> Dispatch {
        /// Returns the first of the variants whose backend this CPU runs.
        macro_rules! first_usable {
            ($($variant:ident),+) => {$(
                if let Some(b) = Backend::get() {
                    return Dispatch::$variant(b);
                }
            )+};
        }
        #[cfg(target_arch = "x86_64")]
        first_usable!(Avx512, Avx2);
        #[cfg(target_arch = "aarch64")]
        first_usable!(Sve2, Neon);
        Dispatch::Portable(portable::Portable)
    }

    /// The backend named `name` (one of [`Dispatch::NAMES`]), if this CPU
    /// runs it.
    #[inline]
    pub(crate) fn named(name: &str) -> Option<Dispatch> {
        Some(match name {
            #[cfg(target_arch = "x86_64")]
            <avx512::Avx512 as Backend>::NAME => Dispatch::Avx512(Backend::get()?),
            #[cfg(target_arch = "x86_64")]
            <avx2::Avx2 as Backend>::NAME => Dispatch::Avx2(Backend::get()?),
            #[cfg(target_arch = "aarch64")]
            <sve2::Sve2 as Backend>::NAME => Dispatch::Sve2(Backend::get()?),
            #[cfg(target_arch = "aarch64")]
            <neon::Neon as Backend>::NAME => Dispatch::Neon(Backend::get()?),
            <portable::Portable as Backend>::NAME => Dispatch::Portable(portable::Portable),
            _ => return None,
        })
    }

    /// Every backend's name, best first.
    #[cfg(target_arch = "x86_64")]
    pub(crate) const NAMES: &'static [&'static str] = &[
        <avx512::Avx512 as Backend>::NAME,
        <avx2::Avx2 as Backend>::NAME,
        <portable::Portable as Backend>::NAME,
    ];
    /// Every backend's name, best first.
    #[cfg(target_arch = "aarch64")]
    pub(crate) const NAMES: &'static [&'static str] = &[
        <sve2::Sve2 as Backend>::NAME,
        <neon::Neon as Backend>::NAME,
        <portable::Portable as Backend>::NAME,
    ];
    /// Every backend's name, best first.
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(crate) const NAMES: &'static [&'static str] = &[<portable::Portable as Backend>::NAME];

    /// The backend's name.
    pub(crate) fn name(self) -> &'static str {
        fn name_of<B: Backend>(_: B) -> &'static str {
            B::NAME
        }
        on_backend!(self, b => name_of(b))
    }

    /// Whether this is the portable backend.
    pub(crate) fn is_portable(self) -> bool {
        matches!(self, Dispatch::Portable(_))
    }

    /// [`Backend::xor`] on this backend.
    pub(crate) fn xor(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
        on_backend!(self, b => b.xor(key, nonce, counter, data))
    }

    /// [`Backend::block`] on this backend.
    pub(crate) fn block(self, key: &[u32; 8], nonce: &[u32; 3], counter: u32) -> [u8; 64] {
        on_backend!(self, b => b.block(key, nonce, counter))
    }

    /// [`Backend::xor_after_block0_unwiped`] on this backend.
    pub(crate) fn xor_after_block0_unwiped(
        self,
        key: &[u32; 8],
        nonce: &[u32; 3],
        data: &mut [u8],
    ) -> [u8; 64] {
        on_backend!(self, b => b.xor_after_block0_unwiped(key, nonce, data))
    }
}

/// A ChaCha20 key as its eight little-endian state words, wiped on drop.
pub(crate) struct KeyWords(pub(crate) [u32; 8]);

impl KeyWords {
    /// The words of `key`.
    #[inline(always)]
    pub(crate) fn new(key: &[u8; 32]) -> KeyWords {
        KeyWords(le_words(key))
    }
}

impl Clone for KeyWords {
    fn clone(&self) -> KeyWords {
        KeyWords(self.0)
    }
}

impl Drop for KeyWords {
    fn drop(&mut self) {
        crate::wipe::wipe(&mut self.0);
    }
}

/// A ChaCha20 key on the backend chosen for it: the stream ciphers' bulk
/// entry. Zeroized on drop.
#[derive(Clone)]
pub(crate) struct Core {
    engine: Dispatch,
    key: KeyWords,
}

impl Core {
    pub(crate) fn new(key: &[u8; 32]) -> Core {
        Core::with_engine(key, Dispatch::best())
    }

    fn with_engine(key: &[u8; 32], engine: Dispatch) -> Core {
        Core {
            engine,
            key: KeyWords::new(key),
        }
    }

    pub(crate) fn name(&self) -> &'static str {
        self.engine.name()
    }

    /// XORs the keystream from block `counter` into `data`. The caller
    /// keeps `counter + ⌈len/64⌉ ≤ 2^32`.
    pub(crate) fn xor(&self, nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
        self.engine.xor(&self.key.0, nonce, counter, data);
    }

    /// The keystream block `counter`.
    pub(crate) fn block(&self, nonce: &[u32; 3], counter: u32) -> [u8; 64] {
        self.engine.block(&self.key.0, nonce, counter)
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Core {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        s.secret("ChaCha20 key words", &self.key.0);
    }
}

/// The little-endian 32-bit words of `bytes` (`4·N` bytes).
fn le_words<const N: usize>(bytes: &[u8]) -> [u32; N] {
    let mut words = [0u32; N];
    for (w, b) in words.iter_mut().zip(bytes.as_chunks::<4>().0) {
        *w = u32::from_le_bytes(*b);
    }
    words
}

/// The nonce as the three state words.
pub(crate) fn nonce_words(nonce: &[u8; 12]) -> [u32; 3] {
    le_words(nonce)
}

/// HChaCha20 (draft-irtf-cfrg-xchacha-03 §2.2): the 20 rounds on the state
/// of `key` with the 16-byte `nonce` in the counter and nonce words, without
/// the final addition; words 0–3 and 12–15 are the 32-byte subkey.
pub fn hchacha20(key: &[u8; 32], nonce: &[u8; 16]) -> [u8; 32] {
    let key = KeyWords::new(key);
    let [n0, n1, n2, n3] = le_words::<4>(nonce);
    // The block function adds the input back; subtract it again to get the
    // rounds' output alone.
    let mut input = lanes::input(&key.0, &[n1, n2, n3], n0);
    let mut ks = lanes::keystream::<1>(&key.0, &[n1, n2, n3], n0);
    let mut out = [0u8; 32];
    // State words 0–3 and 12–15, in order.
    let words = ks.iter().zip(&input).enumerate();
    let subkey = words.filter(|&(i, _)| !(4..12).contains(&i));
    for (o, (_, (k, x))) in out.as_chunks_mut::<4>().0.iter_mut().zip(subkey) {
        *o = k[0].wrapping_sub(*x).to_le_bytes();
    }
    ks.zeroize();
    // The input block holds the key words.
    input.zeroize();
    out
}

/// ChaCha20 (RFC 8439) with streaming input: any split of the data into
/// [`apply_keystream`](Self::apply_keystream) calls gives the same output.
/// Encryption and decryption are the same operation. Keys and buffered
/// keystream are zeroized on drop. **No authentication**: use
/// [`crate::chachapoly`] for an AEAD.
#[derive(Clone)]
pub struct ChaCha20 {
    core: Core,
    nonce: [u32; 3],
    /// Keystream bytes used so far (the position in the stream).
    pos: u64,
    /// The keystream block the position is in, when it is not on a block
    /// boundary.
    block: [u8; 64],
}

impl ChaCha20 {
    /// ChaCha20 with this key and nonce, from block 0.
    pub fn new(key: &[u8; 32], nonce: &[u8; 12]) -> ChaCha20 {
        ChaCha20::from_core(Core::new(key), nonce_words(nonce))
    }

    fn from_core(core: Core, nonce: [u32; 3]) -> ChaCha20 {
        ChaCha20 {
            core,
            nonce,
            pos: 0,
            block: [0; 64],
        }
    }

    /// XORs the next `buf.len()` keystream bytes into `buf`.
    ///
    /// # Errors
    ///
    /// [`Error::KeystreamExhausted`] if that runs past 2^32 blocks; `buf`
    /// is untouched then.
    pub fn apply_keystream(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        let end = self
            .pos
            .checked_add(buf.len() as u64)
            .filter(|&e| e <= MAX_KEYSTREAM_BYTES)
            .ok_or(Error::KeystreamExhausted)?;
        let mut buf = buf;
        // Finish the current block from the buffered keystream.
        let off = (self.pos % 64) as usize;
        if off != 0 {
            let take = (64 - off).min(buf.len());
            let (head, rest) = buf.split_at_mut(take);
            for (b, k) in head.iter_mut().zip(self.block.iter().skip(off)) {
                *b ^= k;
            }
            buf = rest;
            self.pos += take as u64;
        }
        if !buf.is_empty() {
            let counter = (self.pos / 64) as u32;
            let whole = buf.len() & !63;
            let (body, tail) = buf.split_at_mut(whole);
            self.core.xor(&self.nonce, counter, body);
            if !tail.is_empty() {
                self.block = self
                    .core
                    .block(&self.nonce, counter.wrapping_add((whole / 64) as u32));
                for (b, k) in tail.iter_mut().zip(&self.block) {
                    *b ^= k;
                }
            }
        }
        self.pos = end;
        Ok(())
    }

    /// Moves to byte `pos` of the keystream.
    ///
    /// # Errors
    ///
    /// [`Error::KeystreamExhausted`] past 2^32 blocks.
    pub fn seek(&mut self, pos: u64) -> Result<(), Error> {
        if pos > MAX_KEYSTREAM_BYTES {
            return Err(Error::KeystreamExhausted);
        }
        self.pos = pos;
        if !pos.is_multiple_of(64) && pos < MAX_KEYSTREAM_BYTES {
            self.block = self.core.block(&self.nonce, (pos / 64) as u32);
        }
        Ok(())
    }

    /// The keystream position, in bytes.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// The backend in use: `avx512`, `avx2`, `neon` or `portable`.
    pub fn backend_name(&self) -> &'static str {
        self.core.name()
    }
}

impl crate::hazmat::Backends for ChaCha20 {
    type Input<'a> = (&'a [u8; 32], &'a [u8; 12]);
    const NAMES: &'static [&'static str] = Dispatch::NAMES;

    fn with_backend(name: &str, (key, nonce): Self::Input<'_>) -> Option<ChaCha20> {
        let core = Core::with_engine(key, Dispatch::named(name)?);
        Some(ChaCha20::from_core(core, nonce_words(nonce)))
    }

    fn backend(&self) -> &'static str {
        self.backend_name()
    }
}

impl Drop for ChaCha20 {
    fn drop(&mut self) {
        // Two 32-byte volatile writes, not 64 single-byte ones (`zeroize`).
        for half in self.block.as_chunks_mut::<32>().0 {
            crate::wipe::wipe(half);
        }
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for ChaCha20 {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.core.secret_spans(s);
        s.secret("keystream block", &self.block);
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for XChaCha20 {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        self.inner.secret_spans(s);
    }
}

impl fmt::Debug for ChaCha20 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChaCha20")
            .field("backend", &self.backend_name())
            .field("position", &self.pos)
            .finish_non_exhaustive()
    }
}

/// The ChaCha20 key and nonce of XChaCha20 for a 24-byte nonce: the
/// HChaCha20 subkey and `0⁴ ‖ nonce[16..24]`.
pub(crate) fn xchacha_subkey(key: &[u8; 32], nonce: &[u8; 24]) -> ([u8; 32], [u8; 12]) {
    let mut n16 = [0u8; 16];
    n16.copy_from_slice(&nonce[..16]);
    let subkey = hchacha20(key, &n16);
    let mut n12 = [0u8; 12];
    n12[4..].copy_from_slice(&nonce[16..]);
    (subkey, n12)
}

/// XChaCha20 (draft-irtf-cfrg-xchacha-03): ChaCha20 with a 192-bit nonce,
/// safe to choose at random. Same interface as [`ChaCha20`].
///
/// ```
/// use fieldwork::chacha20::XChaCha20;
///
/// let mut buf = [0u8; 100];
/// XChaCha20::new(&[1; 32], &[2; 24]).apply_keystream(&mut buf)?;
/// XChaCha20::new(&[1; 32], &[2; 24]).apply_keystream(&mut buf)?;
/// assert_eq!(buf, [0u8; 100]);
/// # Ok::<(), fieldwork::chacha20::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct XChaCha20 {
    inner: ChaCha20,
}

impl XChaCha20 {
    /// XChaCha20 with this key and 24-byte nonce, from block 0.
    pub fn new(key: &[u8; 32], nonce: &[u8; 24]) -> XChaCha20 {
        let (mut subkey, n12) = xchacha_subkey(key, nonce);
        let inner = ChaCha20::new(&subkey, &n12);
        subkey.zeroize();
        XChaCha20 { inner }
    }

    /// XORs the next `buf.len()` keystream bytes into `buf`.
    ///
    /// # Errors
    ///
    /// [`Error::KeystreamExhausted`] past 2^32 blocks; `buf` is untouched.
    pub fn apply_keystream(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        self.inner.apply_keystream(buf)
    }

    /// Moves to byte `pos` of the keystream.
    ///
    /// # Errors
    ///
    /// [`Error::KeystreamExhausted`] past 2^32 blocks.
    pub fn seek(&mut self, pos: u64) -> Result<(), Error> {
        self.inner.seek(pos)
    }

    /// The backend in use.
    pub fn backend_name(&self) -> &'static str {
        self.inner.backend_name()
    }
}

impl crate::hazmat::Backends for XChaCha20 {
    type Input<'a> = (&'a [u8; 32], &'a [u8; 24]);
    /// [`ChaCha20`]'s: the subkey's stream runs on its backends.
    const NAMES: &'static [&'static str] = <ChaCha20 as crate::hazmat::Backends>::NAMES;

    fn with_backend(name: &str, (key, nonce): Self::Input<'_>) -> Option<XChaCha20> {
        let (mut subkey, n12) = xchacha_subkey(key, nonce);
        let inner = <ChaCha20 as crate::hazmat::Backends>::with_backend(name, (&subkey, &n12));
        subkey.zeroize();
        Some(XChaCha20 { inner: inner? })
    }

    fn backend(&self) -> &'static str {
        self.backend_name()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::test_util::splitmix64;
    use alloc::vec::Vec;

    /// The portable keystream XORed into `data` from block `counter`.
    pub(crate) fn reference(key: &[u32; 8], nonce: &[u32; 3], counter: u32, data: &mut [u8]) {
        portable::xor(key, nonce, counter, data);
    }

    /// A random key, nonce and 1 200 bytes of data.
    pub(super) fn random_input(seed: &mut u64) -> ([u32; 8], [u32; 3], Vec<u8>) {
        let key = core::array::from_fn(|_| splitmix64(seed) as u32);
        let nonce = core::array::from_fn(|_| splitmix64(seed) as u32);
        let data = (0..1200).map(|_| splitmix64(seed) as u8).collect();
        (key, nonce, data)
    }

    /// Counters near the 32-bit wrap, where the lanes' counters wrap too.
    pub(super) const COUNTERS: [u32; 5] = [0, 1, 0x1234_5678, u32::MAX - 3, u32::MAX];

    /// Every entry point of the backend `B` against the portable block
    /// function: the bulk XOR at every length to 1 100 bytes (every group
    /// size and tail) from counters near the wrap, the single block, and
    /// the AEAD's block-0 pass at every length to 1 100 bytes.
    fn check<B: Backend>() {
        let Some(b) = B::get() else {
            return;
        };
        let mut seed = 0xc4ac_4a20_u64 ^ B::NAME.len() as u64;
        for &counter in &COUNTERS {
            let (key, nonce, data) = random_input(&mut seed);
            let mut want = data.clone();
            reference(&key, &nonce, counter, &mut want);
            for n in 0..=1100 {
                let mut got = data[..n].to_vec();
                b.xor(&key, &nonce, counter, &mut got);
                assert_eq!(got, want[..n], "{} bulk, {n} B, counter {counter}", B::NAME);
            }
            let mut one = [0u8; 64];
            reference(&key, &nonce, counter, &mut one);
            assert_eq!(
                b.block(&key, &nonce, counter),
                one,
                "{} block {counter}",
                B::NAME
            );
        }
        for n in 0..=1100 {
            let (key, nonce, data) = random_input(&mut seed);
            let mut want = data[..n].to_vec();
            reference(&key, &nonce, 1, &mut want);
            let mut got = data[..n].to_vec();
            let block0 = b.xor_after_block0(&key, &nonce, &mut got);
            assert_eq!(got, want, "{} after block 0, {n} B", B::NAME);
            let mut one = [0u8; 64];
            reference(&key, &nonce, 0, &mut one);
            assert_eq!(block0, one, "{} block 0 with {n} B", B::NAME);
            let mut got = data[..n].to_vec();
            let block0 = b.xor_after_block0_unwiped(&key, &nonce, &mut got);
            assert_eq!(got, want, "{} after block 0 unwiped, {n} B", B::NAME);
            assert_eq!(block0, one, "{} block 0 unwiped with {n} B", B::NAME);
        }
    }

    #[test]
    fn every_backend_matches_portable() {
        check::<portable::Portable>();
        #[cfg(target_arch = "x86_64")]
        {
            check::<avx2::Avx2>();
            check::<avx512::Avx512>();
        }
        #[cfg(target_arch = "aarch64")]
        {
            check::<neon::Neon>();
            check::<sve2::Sve2>();
        }
    }

    /// The names: best first, each named backend reports its name, an
    /// unknown one is refused.
    #[test]
    fn names_pick_their_backends() {
        for &name in Dispatch::NAMES {
            if let Some(d) = Dispatch::named(name) {
                assert_eq!(d.name(), name);
            }
        }
        assert_eq!(Dispatch::NAMES.last(), Some(&"portable"));
        assert!(Dispatch::named("portable").is_some());
        assert!(Dispatch::named("avx3").is_none());
        let first_usable = Dispatch::NAMES
            .iter()
            .find(|n| Dispatch::named(n).is_some());
        assert_eq!(first_usable, Some(&Dispatch::best().name()));
    }
}
