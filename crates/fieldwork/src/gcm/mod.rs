//! AES-GCM authenticated encryption (NIST SP 800-38D).
//!
//! [`Aes128Gcm`], [`Aes192Gcm`] and [`Aes256Gcm`] implement RustCrypto's
//! [`aead`] 0.6 traits (`KeyInit`, `AeadCore`, `AeadInOut`, and `Aead`
//! with `alloc`), with 96-bit nonces and 16-byte tags appended to the
//! ciphertext, so code written for the `aes-gcm` crate works with them. Each
//! type also offers SP 800-38D's full interface:
//! [`Aes128Gcm::encrypt_in_place_detached_iv`] and
//! [`Aes128Gcm::decrypt_in_place_detached_iv`] take an IV of any length
//! (≥ 1 byte; other than 12 bytes, `J0 = GHASH(IV ∥ 0 ∥ [len(IV)]₆₄)`) and,
//! on decryption, a tag of 4 to 16 bytes.
//!
//! **Truncated tags are weak.** A `t`-byte tag is forged with probability
//! about `2^(−8t)` per attempt, and for `t` < 16 SP 800-38D appendix C
//! limits how much data one key may authenticate (4- and 8-byte tags only
//! for short messages and few invocations). Use 16 bytes unless a protocol
//! fixes otherwise.
//!
//! # Construction
//!
//! `C = P ⊕ AES-CTR(K, inc32(J0))`, `S = GHASH(H, A ∥ 0^v ∥ C ∥ 0^u ∥
//! [len(A)]₆₄ ∥ [len(C)]₆₄)` with `H = AES(K, 0^128)`, and the tag
//! `T = MSB_t(AES(K, J0) ⊕ S)`. The counter is incremented modulo 2^32 in
//! its last four bytes (`inc32`). Limits: plaintext at most 2^36 − 32
//! bytes, associated data and IV below 2^61 bytes; longer inputs are
//! errors.
//!
//! # Backends
//!
//! Chosen once per key, best first:
//!
//! - `vaes-avx512`: the stitched kernel (`gcm/vaes512.rs`): counter-mode AES with
//!   VAES on zmm (four blocks per instruction) and GHASH of the same data
//!   with VPCLMULQDQ in one loop, 16 blocks per iteration, with aggregated
//!   reduction (Gueron & Kounavis, Intel white paper 323640); its
//!   derivations are in `docs/gcm-stitched-kernels.md`.
//! - `vaes-avx2`: the same stitched kernel on ymm (`gcm/vaes256.rs`, two
//!   blocks per instruction, 16 blocks per iteration) for CPUs with VAES
//!   and VPCLMULQDQ but without AVX-512; tails go through a zeroed stack
//!   buffer instead of masked loads and stores.
//! - `aes-ni`: the same stitched kernel on xmm (`gcm/aesni.rs`, one block
//!   per `aesenc`, 8 blocks per iteration, SSE encodings) for CPUs with
//!   AES-NI and PCLMULQDQ but without VAES.
//! - `portable`: counter mode and GHASH on the portable AES and GHASH, in
//!   alternating chunks of 512 bytes that stay in L1.
//!
//! The key schedule and the powers of H are computed once per key; nothing
//! is allocated per call. On a tag mismatch the buffer is zeroed and
//! [`Error::TagMismatch`] returned; the tag comparison is constant time
//! (`subtle`). Keys, round keys and powers are zeroized on drop.
//!
//! ```
//! use fieldwork::gcm::aead::{Aead, KeyInit};
//! use fieldwork::gcm::Aes128Gcm;
//!
//! let cipher = Aes128Gcm::new(&[0x42; 16].into());
//! let nonce = [7u8; 12].into();
//! let sealed = cipher.encrypt(&nonce, b"attack at dawn".as_slice()).unwrap();
//! assert_eq!(sealed.len(), 14 + 16);
//! let opened = cipher.decrypt(&nonce, sealed.as_slice()).unwrap();
//! assert_eq!(opened, b"attack at dawn");
//! ```

#[cfg(target_arch = "x86_64")]
mod aesni;
#[cfg(target_arch = "x86_64")]
mod pad;
#[cfg(target_arch = "x86_64")]
mod vaes256;
#[cfg(target_arch = "x86_64")]
mod vaes512;

pub use aead;

use crate::aes::AesKey;
use crate::cpu;
use crate::ghash::GcmHashKey;
use aead::consts::{U12, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, Nonce, Tag, TagPosition};
use core::fmt;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// The longest plaintext SP 800-38D allows: 2^39 − 256 bits.
pub const MAX_PLAINTEXT_BYTES: u64 = (1 << 36) - 32;
/// Associated data and IVs must be shorter than 2^64 bits.
pub const MAX_AAD_BYTES: u64 = (1 << 61) - 1;

/// Why an AES-GCM call was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The IV was empty or 2^61 bytes or longer.
    IvLength,
    /// A tag of fewer than 4 or more than 16 bytes was given to decrypt.
    TagLength,
    /// The plaintext or ciphertext exceeds 2^36 − 32 bytes.
    MessageTooLong,
    /// The associated data is 2^61 bytes or longer.
    AadTooLong,
    /// Authentication failed: the ciphertext, associated data, IV or tag was
    /// altered (or the key is wrong). The buffer has been zeroed.
    TagMismatch,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Error::IvLength => "AES-GCM: the IV must be 1 to 2^61 - 1 bytes long",
            Error::TagLength => "AES-GCM: a tag must be 4 to 16 bytes long",
            Error::MessageTooLong => "AES-GCM: the message exceeds 2^36 - 32 bytes",
            Error::AadTooLong => "AES-GCM: the associated data exceeds 2^61 - 1 bytes",
            Error::TagMismatch => "AES-GCM: authentication failed (tag mismatch)",
        })
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// The bulk engine: dispatch happens once per key.
#[derive(Clone, Copy, Debug)]
enum Engine {
    #[cfg(target_arch = "x86_64")]
    Vaes512(cpu::VaesAvx512),
    #[cfg(target_arch = "x86_64")]
    Vaes256(cpu::VaesAvx2),
    #[cfg(target_arch = "x86_64")]
    AesNi(cpu::AesClmul),
    /// Chunked counter mode and GHASH on the portable AES and GHASH.
    Chunked,
}

/// One AES-GCM key: the cipher, the GHASH key with its powers, the engine.
#[derive(Clone)]
struct GcmKey {
    aes: AesKey,
    hash: GcmHashKey,
    engine: Engine,
    name: &'static str,
    /// The stitched kernels' tables.
    #[cfg(target_arch = "x86_64")]
    tables: Tables,
}

/// The stitched kernels' per-key tables.
#[cfg(target_arch = "x86_64")]
#[derive(Clone)]
struct Tables {
    /// The power table (`H^32 … H^1`, zeros; [`power_table`]).
    powers: [u128; TABLE],
    /// The zmm kernel's uniform loop powers ([`uniform_table`]).
    uniform: [u128; UNIFORM],
    /// The counter-mode round-1 table: `round1[b]` is AES round 1
    /// (AddRoundKey 0, SubBytes, ShiftRows, MixColumns, AddRoundKey 1) of
    /// the block `0¹⁵ ‖ b`. Round 1 is `L(S(C ⊕ k₀)) ⊕ k₁` with `S` byte by
    /// byte and `L` (MixColumns ∘ ShiftRows) linear, so for two blocks `C`,
    /// `D` that differ only in their last byte, `round1(C) ⊕ round1(D) =
    /// round1[C₁₅] ⊕ round1[D₁₅]`: within a run of 256 counter blocks,
    /// round 1 of block `C` is the run's base `round1(D) ⊕ round1[D₁₅]`
    /// XORed with `round1[C₁₅]`. The kernels thus start AES at round 2 with
    /// one XOR per register (a load from this table at the public
    /// counter's last byte, so no secret-dependent address) where the
    /// counter advance and round 1 took two operations, one of them an AES
    /// round on the port that bounds the loop. (Counter-mode caching of the
    /// first round, as surveyed by Bernstein & Schwabe, "New AES software
    /// speed records", INDOCRYPT 2008.) Zeros on the engines that do not
    /// use it (AES-NI, portable).
    round1: [u128; ROUND1],
}

impl Drop for GcmKey {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        {
            self.tables.powers.zeroize();
            self.tables.uniform.zeroize();
            self.tables.round1.zeroize();
        }
    }
}

/// Which way the bulk loop runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Encrypt,
    Decrypt,
}

/// Bytes per chunk of the chunked engine: encrypt, then hash, while the
/// chunk is in L1.
const CHUNK: usize = 512;

/// Entries of the stitched kernels' power table: `H^32 … H^1`, then four
/// zeros so that a group's last register may read past `H^1`.
#[cfg(target_arch = "x86_64")]
const TABLE: usize = 36;

/// The stitched kernels' power table: `table[i]` = the dot-power of
/// `H^(32−i)` for `i < 32` (so `H^n … H^1` are its entries `32 − n …
/// 31`), zeros after.
#[cfg(target_arch = "x86_64")]
fn power_table(powers: &[u128; 32]) -> [u128; TABLE] {
    let mut t = [0u128; TABLE];
    for (i, v) in t.iter_mut().take(32).enumerate() {
        *v = powers[31 - i];
    }
    t
}

/// Entries of the zmm kernel's uniform power table ([`uniform_table`]):
/// a reduction unit of up to four 16-block groups.
#[cfg(target_arch = "x86_64")]
const UNIFORM: usize = 64;

/// The zmm kernel's uniform powers, laid out as [`power_table`] but for
/// units of up to [`UNIFORM`] blocks: entries `4c … 4c + 3` are all
/// `H^(UNIFORM−4c)`, so every lane of register `c` meets the same power,
/// and a unit of `u` 16-block groups meets the last `16u` entries. With
/// them each of the four lanes carries its own GHASH stream (blocks `l`,
/// `l + 4`, …, Horner steps of `H^4`), and a reduced unit's four lanes
/// enter the next unit's first register as they are, without being
/// summed; a loop's last reduction unit meets [`power_table`]'s per-lane
/// powers instead, which weight lane `l`'s stream by the `H^(n−l)` it
/// still lacks (`n` = the unit's blocks) and sum the lanes. The powers
/// above `H^32` are computed here, once per key
/// (`H^(32m + r) = H^(32m)·H^r`: independent products).
#[cfg(target_arch = "x86_64")]
fn uniform_table(t: crate::cpu::Clmul, powers: &[u128; 32]) -> [u128; UNIFORM] {
    // high[m] = H^(32m) for m = 1 … UNIFORM / 32.
    let mut high = [0u128; UNIFORM / 32 + 1];
    high[1] = powers[31];
    for m in 2..high.len() {
        high[m] = crate::ghash::dot(t, high[m - 1], powers[31]);
    }
    let power = |k: usize| {
        let (m, r) = ((k - 1) / 32, (k - 1) % 32);
        if m == 0 {
            powers[r]
        } else {
            crate::ghash::dot(t, high[m], powers[r])
        }
    };
    let mut u = [0u128; UNIFORM];
    for c in 0..UNIFORM / 4 {
        let v = power(UNIFORM - 4 * c);
        u[4 * c..4 * c + 4].fill(v);
    }
    high.zeroize();
    u
}

/// How far ahead of the block being processed the zmm kernel prefetches
/// the buffer. Measured A/B (2026-11-21, peer-bench, three alternating
/// runs of each build, 1 MiB messages): AES-128-GCM encryption in place
/// 0.222–0.236 → 0.193–0.198 cycles/byte, AES-256 0.271–0.304 →
/// 0.255–0.263 (the hardware prefetchers alone leave the loop waiting on
/// L2); decryption unchanged (its 1 MiB rows are dominated by the
/// benchmark's copy of the ciphertext), no change up to 64 KiB. In the ymm
/// and AES-NI kernels, whose loops are slower, the same prefetches changed
/// nothing or cost up to 3 % (AES-256 on AES-NI), so only the zmm kernel
/// uses them.
#[cfg(target_arch = "x86_64")]
const PREFETCH_AHEAD: usize = 2048;

/// Prefetches into L1 the `bytes` bytes of the buffer at `ptr` (`len`
/// bytes long) that lie [`PREFETCH_AHEAD`] past offset `at`, one request
/// per 64-byte line, clamped to the buffer's last byte.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch(ptr: *const u8, len: usize, at: usize, bytes: usize) {
    use core::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    for line in (0..bytes).step_by(64) {
        let off = (at + PREFETCH_AHEAD + line).min(len.saturating_sub(1));
        // SAFETY: `off < len` for a nonempty buffer (the zmm kernel calls it
        // inside its loops over whole chunks), so the pointer stays in
        // the buffer; a prefetch reads nothing architecturally.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.add(off).cast()) };
    }
}

/// Blocks per loop iteration of the zmm and ymm stitched kernels.
#[cfg(target_arch = "x86_64")]
const STEP_BLOCKS: usize = 16;

/// Entries of the counter-mode round-1 table ([`Tables::round1`]): one per
/// value of a counter block's last byte.
#[cfg(target_arch = "x86_64")]
const ROUND1: usize = 256;

/// Whether the round-1 table serves the `STEP_BLOCKS` counters from the
/// public counter `n`: their last byte runs from `n mod 256` up without
/// wrapping, so their other fifteen bytes are all those of `n`'s block.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn round1_cached(n: u32) -> bool {
    (n & 0xff) as usize <= ROUND1 - STEP_BLOCKS
}

/// The counter blocks' 256-block run (bytes 0–14, i.e. the counter without
/// its last byte) that `n` lies in: the round-1 base is per run.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn round1_run(n: u32) -> u32 {
    n >> 8
}

/// The round-1 base of the run of counter `n`: AES round 1 of its counter
/// block (`J0`'s first twelve bytes, `n` big-endian; `j0` holds `J0`'s
/// bytes little-endian) XORed with `round1[n mod 256]`, so that round 1 of
/// any block `C` of the run is `base ⊕ round1[C₁₅]` (see
/// [`Tables::round1`]).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn round1_base(rk: &crate::aes::RoundKeys, round1: &[u128; ROUND1], j0: u128, n: u32) -> u128 {
    crate::aes::aesni::round1(rk, counter_block_le(j0, n)) ^ round1[(n & 0xff) as usize]
}

/// The counter block of the public counter `n`: `J0`'s first twelve bytes,
/// then `n` big-endian (`j0` and the result hold the bytes little-endian).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn counter_block_le(j0: u128, n: u32) -> u128 {
    (j0 & (u128::MAX >> 32)) | (u128::from(n.swap_bytes()) << 96)
}

/// Groups in a stitched loop's last reduction unit (at most): it meets
/// [`power_table`]'s per-lane powers `H^32 … H^1`, and no kernel's two
/// groups need more.
#[cfg(target_arch = "x86_64")]
const LAST_UNIT: usize = 2;

/// Where the stitched kernels' next loop group stands among the reduction
/// units. A loop's last unit is its last [`LAST_UNIT`] groups (or all of
/// them, if fewer); the groups before it form units of up to `unit`
/// groups, the first taking the remainder. A group with `k` groups of its
/// unit still to come (itself included) meets the powers that end `k`
/// groups before its table's end, so a unit's last group always meets the
/// lowest powers and ends with a reduction. The ymm and AES-NI kernels
/// reduce in pairs (`unit` 2, one table); the zmm kernel's units before
/// the last are up to four groups with uniform powers (`vaes512`).
#[cfg(target_arch = "x86_64")]
struct Units {
    /// Groups still to come.
    left: usize,
    /// Groups still to come in the current unit (0: the next group starts
    /// one).
    in_unit: usize,
    /// The size of the next unit before the last: the remainder for the
    /// first, then `unit` (computed once, not divided per unit).
    next_size: usize,
    /// Groups per unit before the last (at most).
    unit: usize,
}

/// The next group's place ([`Units::next`]).
#[cfg(target_arch = "x86_64")]
struct Place {
    /// It starts a unit: empty sums, the accumulator enters.
    starts: bool,
    /// It closes its unit: a reduction after it.
    closes: bool,
    /// It belongs to the loop's last unit.
    last: bool,
    /// Groups of its unit still to come, itself included (1 … unit).
    in_unit: usize,
}

#[cfg(target_arch = "x86_64")]
impl Place {
    /// The first power index of a group of `group` blocks in units of at
    /// most two groups (the ymm and AES-NI kernels; the per-lane table's
    /// last `2·group` entries): a select between two constant indices, so
    /// that the power loads' addresses fold (measured: computing `32 −
    /// group·in_unit` cost the ymm loop ≈ 6 % and the AES-NI loop ≈ 20 %).
    #[inline(always)]
    fn pair_at(&self, group: usize) -> usize {
        if self.in_unit == 2 {
            32 - 2 * group
        } else {
            32 - group
        }
    }
}

#[cfg(target_arch = "x86_64")]
impl Units {
    /// Units for `groups` groups, up to `unit` per unit before the last.
    fn new(groups: usize, unit: usize) -> Units {
        Units {
            left: groups,
            in_unit: 0,
            next_size: groups.saturating_sub(LAST_UNIT + 1) % unit + 1,
            unit,
        }
    }

    fn next(&mut self) -> Place {
        // Every unit before the last ends with LAST_UNIT + 1 groups left.
        let last = self.left <= LAST_UNIT;
        let starts = self.in_unit == 0;
        if starts {
            self.in_unit = if last { self.left } else { self.next_size };
            self.next_size = self.unit;
        }
        let place = Place {
            starts,
            closes: self.in_unit == 1,
            last,
            in_unit: self.in_unit,
        };
        self.in_unit -= 1;
        self.left -= 1;
        place
    }
}

impl GcmKey {
    fn build(aes: AesKey, engine: Engine, name: &'static str) -> GcmKey {
        let mut h = [0u8; 16];
        aes.encrypt_block(&mut h);
        let hash = match (&aes, engine) {
            #[cfg(target_arch = "x86_64")]
            (_, Engine::Vaes512(t)) => GcmHashKey::zmm(&h, t.avx512_clmul()),
            #[cfg(target_arch = "x86_64")]
            (_, Engine::Vaes256(t)) => GcmHashKey::xmm_all_powers(&h, t.aes_clmul().clmul()),
            #[cfg(target_arch = "x86_64")]
            (_, Engine::AesNi(t)) => GcmHashKey::xmm_all_powers(&h, t.clmul()),
            _ => GcmHashKey::portable(&h),
        };
        h.zeroize();
        #[cfg(target_arch = "x86_64")]
        let table = match engine {
            Engine::Vaes512(_) | Engine::Vaes256(_) | Engine::AesNi(_) => power_table(&hash.powers),
            Engine::Chunked => [0; TABLE],
        };
        #[cfg(target_arch = "x86_64")]
        let uniform = match engine {
            Engine::Vaes512(t) => uniform_table(t.avx512_clmul().clmul(), &hash.powers),
            _ => [0; UNIFORM],
        };
        #[cfg(target_arch = "x86_64")]
        let round1 = match (&aes, engine) {
            (AesKey::AesNi(t, rk), Engine::Vaes512(_) | Engine::Vaes256(_)) => {
                crate::aes::aesni::round1_table(*t, rk)
            }
            _ => [0; ROUND1],
        };
        GcmKey {
            aes,
            hash,
            engine,
            name,
            #[cfg(target_arch = "x86_64")]
            tables: Tables {
                uniform,
                powers: table,
                round1,
            },
        }
    }

    fn best(key: &[u8]) -> GcmKey {
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = GcmKey::vaes512(key) {
            return k;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = GcmKey::vaes256(key) {
            return k;
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(k) = GcmKey::aesni(key) {
            return k;
        }
        GcmKey::portable(key)
    }

    fn portable(key: &[u8]) -> GcmKey {
        GcmKey::build(AesKey::new_portable(key), Engine::Chunked, "portable")
    }

    #[cfg(target_arch = "x86_64")]
    fn aesni(key: &[u8]) -> Option<GcmKey> {
        let t = cpu::AesClmul::get()?;
        let aes = AesKey::AesNi(t, crate::aes::aesni::expand(t, key));
        Some(GcmKey::build(aes, Engine::AesNi(t), "aes-ni"))
    }

    #[cfg(target_arch = "x86_64")]
    fn vaes512(key: &[u8]) -> Option<GcmKey> {
        let t = cpu::VaesAvx512::get()?;
        let aes = AesKey::AesNi(t.aes_clmul(), crate::aes::aesni::expand(t.aes_clmul(), key));
        Some(GcmKey::build(aes, Engine::Vaes512(t), "vaes-avx512"))
    }

    #[cfg(target_arch = "x86_64")]
    fn vaes256(key: &[u8]) -> Option<GcmKey> {
        let t = cpu::VaesAvx2::get()?;
        let aes = AesKey::AesNi(t.aes_clmul(), crate::aes::aesni::expand(t.aes_clmul(), key));
        Some(GcmKey::build(aes, Engine::Vaes256(t), "vaes-avx2"))
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn aesni(_key: &[u8]) -> Option<GcmKey> {
        None
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn vaes512(_key: &[u8]) -> Option<GcmKey> {
        None
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn vaes256(_key: &[u8]) -> Option<GcmKey> {
        None
    }

    /// `J0` for `iv` (SP 800-38D §7.1 step 2).
    fn j0(&self, iv: &[u8]) -> Result<[u8; 16], Error> {
        if iv.is_empty() || iv.len() as u64 > MAX_AAD_BYTES {
            return Err(Error::IvLength);
        }
        if iv.len() == 12 {
            let mut j0 = [0u8; 16];
            j0[..12].copy_from_slice(iv);
            j0[15] = 1;
            return Ok(j0);
        }
        let acc = self.hash.update_padded(0, iv);
        let acc = self.hash.update_element(acc, (iv.len() as u128) * 8);
        Ok(acc.to_be_bytes())
    }

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
                acc = self.hash.update_padded(acc, tail);
            }
            for (b, k) in tail.iter_mut().zip(ks) {
                *b ^= k;
            }
            if dir == Direction::Encrypt {
                acc = self.hash.update_padded(acc, tail);
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
            }
            self.aes.encrypt_blocks(&mut ks[..n]);
            if dir == Direction::Decrypt {
                acc = self.hash.update_padded(acc, chunk);
            }
            for (c, k) in chunk.chunks_exact_mut(16).zip(&ks) {
                for (b, kb) in c.iter_mut().zip(k) {
                    *b ^= kb;
                }
            }
            if dir == Direction::Encrypt {
                acc = self.hash.update_padded(acc, chunk);
            }
        }
        ks.zeroize();
        acc
    }

    /// The full tag: `AES(K, J0) ⊕ GHASH(…)`, running counter mode over
    /// `buf` in direction `dir`.
    fn seal_or_open(
        &self,
        dir: Direction,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; 16], Error> {
        if buf.len() as u64 > MAX_PLAINTEXT_BYTES {
            return Err(Error::MessageTooLong);
        }
        if aad.len() as u64 > MAX_AAD_BYTES {
            return Err(Error::AadTooLong);
        }
        let j0 = self.j0(iv)?;
        #[cfg(target_arch = "x86_64")]
        match (self.engine, &self.aes) {
            (Engine::Vaes512(t), AesKey::AesNi(_, rk)) => {
                return Ok(vaes512::seal(t, rk, &self.tables, dir, &j0, aad, buf));
            }
            (Engine::Vaes256(t), AesKey::AesNi(_, rk)) => {
                return Ok(vaes256::seal(t, rk, &self.tables, dir, &j0, aad, buf));
            }
            (Engine::AesNi(t), AesKey::AesNi(_, rk)) => {
                return Ok(aesni::seal(t, rk, &self.tables.powers, dir, &j0, aad, buf));
            }
            _ => {}
        }
        let mut prefix = [0u8; 12];
        prefix.copy_from_slice(&j0[..12]);
        let ctr0 = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]);
        let acc = self.hash.update_padded(0, aad);
        let acc = self.crypt(dir, &prefix, ctr0.wrapping_add(1), acc, buf);
        let lengths = (u128::from(aad.len() as u64 * 8) << 64) | u128::from(buf.len() as u64 * 8);
        let s = self.hash.update_element(acc, lengths);
        let mut t = j0;
        self.aes.encrypt_block(&mut t);
        let tag = tag_bytes(s, u128::from_le_bytes(t));
        t.zeroize();
        Ok(tag)
    }

    fn encrypt(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error> {
        self.seal_or_open(Direction::Encrypt, iv, aad, buf)
    }

    fn decrypt(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        if !(4..=16).contains(&tag.len()) {
            return Err(Error::TagLength);
        }
        let mut expected = self.seal_or_open(Direction::Decrypt, iv, aad, buf)?;
        // Two 64-bit constant-time comparisons of the first `tag.len()`
        // bytes (the rest masked off): cheaper than a byte loop.
        let mut given = [0u8; 16];
        given[..tag.len()].copy_from_slice(tag);
        let mask = u128::MAX >> (8 * (16 - tag.len()));
        let e = u128::from_le_bytes(expected) & mask;
        let g = u128::from_le_bytes(given);
        let ok: bool =
            ((e as u64).ct_eq(&(g as u64)) & ((e >> 64) as u64).ct_eq(&((g >> 64) as u64))).into();
        expected.zeroize();
        if ok {
            Ok(())
        } else {
            buf.zeroize();
            Err(Error::TagMismatch)
        }
    }
}

/// The tag bytes from the hash `s` in POLYVAL's (byte-reversed) domain
/// and `AES(K, J0)` read little-endian: `AES(K, J0) ⊕ GHASH`, in GCM's
/// byte order. Every engine ends here.
#[inline(always)]
fn tag_bytes(s: u128, tag_mask: u128) -> [u8; 16] {
    (s.swap_bytes() ^ tag_mask).to_le_bytes()
}

/// The counter block `prefix ∥ [ctr]₃₂`.
#[inline]
fn counter_block(prefix: &[u8; 12], ctr: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..12].copy_from_slice(prefix);
    b[12..].copy_from_slice(&ctr.to_be_bytes());
    b
}

macro_rules! gcm_type {
    ($(#[$doc:meta])* $name:ident, $bytes:literal, $ksize:ty) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: GcmKey,
        }

        impl $name {
            /// Encrypts `buf` in place and returns the 16-byte tag, for an IV
            /// of any length from 1 byte (SP 800-38D's `GCM-AE`). Truncate
            /// the tag yourself if a protocol needs a shorter one (see the
            /// module docs on truncated tags).
            ///
            /// # Errors
            /// [`Error::IvLength`], [`Error::AadTooLong`],
            /// [`Error::MessageTooLong`]; `buf` is untouched then.
            pub fn encrypt_in_place_detached_iv(
                &self,
                iv: &[u8],
                aad: &[u8],
                buf: &mut [u8],
            ) -> Result<[u8; 16], Error> {
                self.key.encrypt(iv, aad, buf)
            }

            /// Decrypts `buf` in place if `tag` (4 to 16 bytes, compared in
            /// constant time) authenticates it (SP 800-38D's `GCM-AD`).
            ///
            /// # Errors
            /// [`Error::TagMismatch`] with `buf` zeroed; [`Error::TagLength`],
            /// [`Error::IvLength`], [`Error::AadTooLong`],
            /// [`Error::MessageTooLong`] with `buf` untouched.
            pub fn decrypt_in_place_detached_iv(
                &self,
                iv: &[u8],
                aad: &[u8],
                buf: &mut [u8],
                tag: &[u8],
            ) -> Result<(), Error> {
                self.key.decrypt(iv, aad, buf, tag)
            }

            /// The backend in use: `vaes-avx512`, `vaes-avx2`, `aes-ni` or
            /// `portable`.
            pub fn backend_name(&self) -> &'static str {
                self.key.name
            }

            #[doc(hidden)]
            pub fn new_portable(key: &[u8; $bytes]) -> $name {
                $name { key: GcmKey::portable(key) }
            }

            #[doc(hidden)]
            pub fn new_aesni(key: &[u8; $bytes]) -> Option<$name> {
                GcmKey::aesni(key).map(|key| $name { key })
            }

            #[doc(hidden)]
            pub fn new_vaes256(key: &[u8; $bytes]) -> Option<$name> {
                GcmKey::vaes256(key).map(|key| $name { key })
            }

            #[doc(hidden)]
            pub fn new_vaes512(key: &[u8; $bytes]) -> Option<$name> {
                GcmKey::vaes512(key).map(|key| $name { key })
            }

            /// One instance per backend this CPU can run, portable first
            /// (tests and benchmarks).
            #[doc(hidden)]
            #[cfg(feature = "alloc")]
            pub fn all_backends(key: &[u8; $bytes]) -> alloc::vec::Vec<$name> {
                let mut v = alloc::vec![$name::new_portable(key)];
                v.extend($name::new_aesni(key));
                v.extend($name::new_vaes256(key));
                v.extend($name::new_vaes512(key));
                v
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $ksize;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> $name {
                $name { key: GcmKey::best(key.as_slice()) }
            }
        }

        impl AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<Tag<Self>> {
                let buf = buffer.into_out_with_copied_in();
                self.key
                    .encrypt(nonce.as_slice(), associated_data, buf)
                    .map(Tag::<Self>::from)
                    .map_err(|_| aead::Error)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &Tag<Self>,
            ) -> aead::Result<()> {
                let buf = buffer.into_out_with_copied_in();
                self.key
                    .decrypt(nonce.as_slice(), associated_data, buf, tag.as_slice())
                    .map_err(|_| aead::Error)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("backend", &self.key.name)
                    .finish_non_exhaustive()
            }
        }
    };
}

gcm_type! {
    /// AES-128-GCM. See the [module docs](self).
    Aes128Gcm, 16, U16
}
gcm_type! {
    /// AES-192-GCM. See the [module docs](self).
    Aes192Gcm, 24, U24
}
gcm_type! {
    /// AES-256-GCM. See the [module docs](self).
    Aes256Gcm, 32, U32
}

#[cfg(all(test, target_arch = "x86_64"))]
#[allow(unsafe_code)]
mod tests {
    use super::{ROUND1, UNIFORM, round1_base};
    use crate::aes::aesni;

    /// The uniform power table: entries `4c … 4c + 3` all
    /// `H^(UNIFORM−4c)`, the powers above `H^32` computed with PCLMULQDQ,
    /// against a chain of portable products by `H`.
    #[test]
    fn uniform_table_holds_the_powers() {
        use crate::ghash::dot_portable;
        let Some(t) = crate::cpu::Clmul::get() else {
            return;
        };
        let h = 0x66e9_4bd4_ef8a_2c3b_884c_fa59_ca34_2b2e_u128;
        let mut chain = [0u128; UNIFORM + 1];
        chain[1] = h;
        for k in 2..=UNIFORM {
            chain[k] = dot_portable(chain[k - 1], h);
        }
        let powers: [u128; 32] = core::array::from_fn(|i| chain[i + 1]);
        let table = super::uniform_table(t, &powers);
        for (i, &v) in table.iter().enumerate() {
            assert_eq!(v, chain[UNIFORM - 4 * (i / 4)], "entry {i}");
        }
    }

    /// The round-1 table's identity (see [`super::Tables::round1`]): AES
    /// round 1 of any counter block equals the base of its run XORed with
    /// the table entry of its last byte, whichever block of the run the
    /// base came from; and a base from another run does not fit.
    #[test]
    fn round1_base_and_table_give_round1() {
        let Some(t) = crate::cpu::AesClmul::get() else {
            return;
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for key_len in [16, 24, 32] {
            let key: [u8; 32] = core::array::from_fn(|_| next() as u8);
            let rk = aesni::expand(t, &key[..key_len]);
            let table: [u128; ROUND1] = aesni::round1_table(t, &rk);
            let j0 = u128::from(next()) | (u128::from(next()) << 64);
            let block = |n: u32| (j0 & (u128::MAX >> 32)) | (u128::from(n.swap_bytes()) << 96);
            for _ in 0..64 {
                let n = next() as u32;
                let m = (n & !0xff) | (next() as u32 & 0xff);
                // SAFETY: `AesClmul::get` proved AES-NI and SSE4.1.
                let (want, base, other) = unsafe {
                    (
                        aesni::round1(&rk, block(n)),
                        round1_base(&rk, &table, j0, m),
                        round1_base(&rk, &table, j0, m ^ 0x100),
                    )
                };
                assert_eq!(
                    base ^ table[(n & 0xff) as usize],
                    want,
                    "n {n:#x}, m {m:#x}"
                );
                assert_ne!(other ^ table[(n & 0xff) as usize], want, "n {n:#x}");
            }
        }
    }
}
