//! Target features: `aes`, `pclmulqdq`, `ssse3`, `sse4.1` — capability
//! token [`crate::cpu::AesClmul`], which every x86-64 backend of
//! [`super`] implies.
//!
//! A whole short AES-GCM-SIV message in one kernel call, in registers:
//! at most [`SHORT_MAX_BLOCKS`] text blocks and [`SHORT_MAX_AAD_BLOCKS`]
//! blocks of associated data (longer messages take the general path of
//! [`super`]). The shape of `gcm_siv/armv8.rs` on AES-NI and PCLMULQDQ;
//! RFC 8452 §4 (sealing) and §5 (opening), step by step:
//!
//! 1. the derivation's four (AES-128) or six (AES-256) blocks `[i]₃₂ ∥ N`
//!    through the key-generating key, interleaved ([`rounds`]), the
//!    message keys the blocks' low halves (`punpcklqdq`);
//! 2. the message-encryption key expanded in registers
//!    ([`expand128_regs`], [`expand256_regs`]: `pshufb`, `aesenclast` with
//!    a zero key for `SubWord`, the prefix XOR of the previous key);
//! 3. POLYVAL under the fresh authentication key by Horner's rule on `H`
//!    alone, no power made: each step five `pclmulqdq` two deep
//!    ([`horner_step`]), the associated data, the text and the lengths
//!    block, a partial last block read by overlapping loads
//!    ([`load_partial`]);
//! 4. the tag block through the encryption key;
//! 5. counter mode four blocks at a time, a partial last block written by
//!    overlapping stores ([`store_partial`]).
//!
//! Opening runs 5 from the received tag before 3 and 4, and returns the
//! expected tag for the caller's constant-time comparison.
//!
//! No buffer and no call: the message keys, the round keys and the hash
//! state live in registers, or in the kernel's frame where the sixteen xmm
//! registers do not hold them; [`short`] wipes that dead frame after the
//! kernel returns ([`crate::wipe::wipe_stack_below`]: [`SHORT_STACK`]
//! bytes below its stack pointer), and the test `stack_wipe` checks that
//! the kernel writes no deeper and leaves no secret behind.
//!
//! Every branch and address depends on the public lengths only.
//!
//! # Horner's step
//!
//! `dot(m, H) = m·H·x^(−128)` with `m = acc ⊕ y`: with `D = H·x^(−64)`
//! (`swap(H) ⊕ H₀·C`, made once per message by [`horner_key`]),
//! `m·H·x^(−128) = m₁H₁ ⊕ m₀D₁ ⊕ fold(m₁H₀ ⊕ m₀D₀)`, where `fold(f) =
//! swap(f) ⊕ f₀·C` divides by x^64 — five products, two deep, where the
//! Karatsuba product and its Montgomery reduction take three deep (the
//! PMULL kernel's `horner_step` is the same formula).
//!
//! Rejected: the expansion fused with the tag's rounds (BoringSSL's x86
//! GCM-SIV assembly) — the tag waits for POLYVAL, not for the keys.
// Indexing is bounded by construction: round-key indices are below the
// round count (at most 14 of 15); block indices below the const block
// count; offsets below the public lengths checked by `fits`.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::aes::RoundKeys;
use crate::aes::aesni::{expand128_regs, expand256_regs};
use crate::cpu::{AesClmul, VaesAvx2};
use crate::ghash::C_HI;
use crate::simd::from_u128 as to_x;
use core::arch::x86_64::{
    __m128i, _mm_add_epi32, _mm_aesenc_si128, _mm_aesenclast_si128, _mm_and_si128,
    _mm_clmulepi64_si128, _mm_cvtsi32_si128, _mm_cvtsi128_si64, _mm_extract_epi64, _mm_loadu_si128,
    _mm_or_si128, _mm_set_epi64x, _mm_setzero_si128, _mm_shuffle_epi32, _mm_storeu_si128,
    _mm_unpackhi_epi64, _mm_unpacklo_epi64, _mm_xor_si128,
};

/// The most text blocks (a partial last one included) a message may
/// have for [`short`]: beyond, the general path's aggregated POLYVAL
/// groups cost less than Horner's rule.
pub(super) const SHORT_MAX_BLOCKS: usize = 16;

/// The most blocks of associated data for [`short`].
pub(super) const SHORT_MAX_AAD_BLOCKS: usize = 8;

/// Whether [`short`] takes a message of `aad` and `text` bytes.
#[inline(always)]
pub(super) fn fits(aad: usize, text: usize) -> bool {
    text <= 16 * SHORT_MAX_BLOCKS && aad <= 16 * SHORT_MAX_AAD_BLOCKS
}

/// A flavour's kernel instance: `(kgk, buf, received, nonce, aad)` → the
/// tag (see [`short`]).
type Kernel = unsafe fn(&RoundKeys, &mut [u8], &[u8; 16], &[u8; 12], &[u8]) -> [u8; 16];

/// Runs the instance of `kernels` (AES-128 sealing, opening, AES-256
/// sealing, opening) for `kgk`'s rounds and the direction `received`
/// gives. The caller holds the token proving the kernels' features.
#[inline(always)]
fn run(
    kernels: [Kernel; 4],
    kgk: &RoundKeys,
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
    received: Option<&[u8; 16]>,
) -> [u8; 16] {
    let (kernel, tag) = match (kgk.rounds, received) {
        (10, None) => (kernels[0], &[0; 16]),
        (10, Some(tag)) => (kernels[1], tag),
        (_, None) => (kernels[2], &[0; 16]),
        (_, Some(tag)) => (kernels[3], tag),
    };
    // SAFETY: the caller's token proves the kernels' target features.
    unsafe { kernel(kgk, buf, tag, nonce, aad) }
}

/// Defines a flavour of the kernel: `$short` (the entry, which wipes the
/// kernel's dead frame, `$stack` bytes), and `$nr` (the kernel for `NR`
/// rounds, sealing if `ENC` (`received` unused), else opening), compiled
/// with `$features` under the token `$token`.
macro_rules! short_kernel {
    ($(#[$doc:meta])* $short:ident, $nr:ident, $token:ty, $features:literal,
     $(#[$sdoc:meta])* $stack:ident = $bytes:literal, $wipe:expr) => {
        $(#[$doc])*
        pub(super) fn $short(
            t: $token,
            kgk: &RoundKeys,
            nonce: &[u8; 12],
            aad: &[u8],
            buf: &mut [u8],
            received: Option<&[u8; 16]>,
        ) -> [u8; 16] {
            // The token `t` proves every feature of `$nr` (the contract of
            // `run`).
            let kernels: [Kernel; 4] = [
                $nr::<10, true>,
                $nr::<10, false>,
                $nr::<14, true>,
                $nr::<14, false>,
            ];
            let tag = run(kernels, kgk, nonce, aad, buf, received);
            // The kernel's dead frame: its spills.
            #[allow(clippy::redundant_closure_call)]
            ($wipe)(t);
            tag
        }

        $(#[$sdoc])*
        const $stack: usize = $bytes;

        #[target_feature(enable = $features)]
        fn $nr<const NR: usize, const ENC: bool>(
            kgk: &RoundKeys,
            buf: &mut [u8],
            received: &[u8; 16],
            nonce: &[u8; 12],
            aad: &[u8],
        ) -> [u8; 16] {
            // Step 1: `[i]₃₂ ∥ N` (`i` in lane 0) through the key-generating key,
            // its round keys read from the key (no copy of them on the stack).
            let kk = &kgk.rk;
            let n = block(u64::from(le32(nonce)) << 32, le64(&nonce[4..]));
            let b = |i: i32| _mm_xor_si128(n, _mm_cvtsi32_si128(i));
            let (auth, enc) = if NR == 10 {
                let d = rounds_mem::<NR, 4>(kk, [b(0), b(1), b(2), b(3)]);
                let k = expand128_regs(_mm_unpacklo_epi64(d[2], d[3]));
                let mut enc = [_mm_setzero_si128(); 15];
                enc[..11].copy_from_slice(&k);
                (_mm_unpacklo_epi64(d[0], d[1]), enc)
            } else {
                let d = rounds_mem::<NR, 6>(kk, [b(0), b(1), b(2), b(3), b(4), b(5)]);
                let enc = expand256_regs(
                    _mm_unpacklo_epi64(d[2], d[3]),
                    _mm_unpacklo_epi64(d[4], d[5]),
                );
                (_mm_unpacklo_epi64(d[0], d[1]), enc)
            };
            // The tag's nonce block `N ∥ 0³²`, the mask clearing bit 127 and the
            // counter's top bit.
            let nt = block(le64(nonce), u64::from(le32(&nonce[8..])));
            let mask = block(u64::MAX, u64::MAX >> 1);
            let top = block(0, 1 << 63);
            let tag = if ENC {
                let s = polyval(auth, aad, buf);
                let [t] = rounds::<NR, 1>(&enc, [_mm_and_si128(_mm_xor_si128(s, nt), mask)]);
                ctr::<NR>(&enc, _mm_or_si128(t, top), buf);
                t
            } else {
                // SAFETY: `received` is 16 readable bytes.
                let t = unsafe { _mm_loadu_si128(received.as_ptr().cast()) };
                ctr::<NR>(&enc, _mm_or_si128(t, top), buf);
                let s = polyval(auth, aad, buf);
                let [t] = rounds::<NR, 1>(&enc, [_mm_and_si128(_mm_xor_si128(s, nt), mask)]);
                t
            };
            let mut out = [0u8; 16];
            // SAFETY: 16 writable bytes.
            unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), tag) };
            out

        }
    };
}

short_kernel!(
    /// A whole short message under the key-generating key `kgk` (10 or 14
    /// rounds; the caller checked [`fits`]) on SSE encodings and sixteen
    /// xmm registers: `buf` sealed in place and its tag returned
    /// (`received` is `None`), or `buf` opened in place with the `received`
    /// tag and the expected tag returned.
    short, short_nr, AesClmul, "aes,pclmulqdq,ssse3,sse4.1",
    /// The bytes below [`short`]'s stack pointer that [`short_nr`] may
    /// write, wiped after it returns: 1 024, over the 816 the test
    /// `stack_wipe` measures at most (the release build; its control calls
    /// the kernel from a closure, one frame deeper than [`short`] does).
    SHORT_STACK = 1024,
    |_| crate::wipe::wipe_stack_below::<SHORT_STACK>()
);

short_kernel!(
    /// [`short`] on VEX encodings (`vaes-avx2`'s and `vaes-avx512`'s
    /// keys): three-operand forms; its frame wiped by 32-byte stores. (An
    /// EVEX flavour for `vaes-avx512`, 32 registers and 64-byte stores,
    /// was slower on Zen 4: AES-256 16 B 388 against 349 cycles; its frame
    /// no smaller, the key arrays, not register pressure, filling it.)
    short_vex, short_nr_vex, VaesAvx2, "aes,pclmulqdq,ssse3,sse4.1,avx,avx2",
    /// [`SHORT_STACK`] for [`short_vex`] (the test `stack_wipe` measures
    /// its deepest write too).
    SHORT_STACK_VEX = 1024,
    |t: VaesAvx2| crate::wipe::wipe_stack_below_ymm::<SHORT_STACK_VEX>(t.avx2())
);

/// The block whose low and high 64-bit words are `lo` and `hi`.
#[inline]
#[target_feature(enable = "sse4.1")]
fn block(lo: u64, hi: u64) -> __m128i {
    _mm_set_epi64x(hi as i64, lo as i64)
}

/// The first four bytes of `s`, little-endian.
#[inline(always)]
fn le32(s: &[u8]) -> u32 {
    u32::from_le_bytes([s[0], s[1], s[2], s[3]])
}

/// The first eight bytes of `s`, little-endian.
#[inline(always)]
fn le64(s: &[u8]) -> u64 {
    u64::from_le_bytes([s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]])
}

/// The `N` blocks `x` through the `NR`-round key `k`, interleaved.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn rounds<const NR: usize, const N: usize>(k: &[__m128i; 15], mut x: [__m128i; N]) -> [__m128i; N] {
    for xi in &mut x {
        *xi = _mm_xor_si128(*xi, k[0]);
    }
    for kr in &k[1..NR] {
        for xi in &mut x {
            *xi = _mm_aesenc_si128(*xi, *kr);
        }
    }
    for xi in &mut x {
        *xi = _mm_aesenclast_si128(*xi, k[NR]);
    }
    x
}

/// [`rounds`] with the round keys read from memory, `k[r]` as loaded.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn rounds_mem<const NR: usize, const N: usize>(
    k: &[u128; 15],
    mut x: [__m128i; N],
) -> [__m128i; N] {
    for xi in &mut x {
        *xi = _mm_xor_si128(*xi, to_x(k[0]));
    }
    for &kr in &k[1..NR] {
        for xi in &mut x {
            *xi = _mm_aesenc_si128(*xi, to_x(kr));
        }
    }
    for xi in &mut x {
        *xi = _mm_aesenclast_si128(*xi, to_x(k[NR]));
    }
    x
}

/// `(u, l)` for [`horner_step`] under `h`: `D = swap(h) ⊕ h₀·C`, `u = (D₁,
/// h₁)`, `l = (D₀, h₀)` (64-bit words, low first).
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn horner_key(h: __m128i, c: __m128i) -> (__m128i, __m128i) {
    let d = _mm_xor_si128(
        _mm_shuffle_epi32::<0x4e>(h),
        _mm_clmulepi64_si128::<0x00>(h, c),
    );
    (_mm_unpackhi_epi64(d, h), _mm_unpacklo_epi64(d, h))
}

/// One step of Horner's rule: `dot(acc ⊕ y, H)`, fully reduced, against
/// `(u, l)` = [`horner_key`]`(H)` (module docs): five `pclmulqdq`, a
/// `pshufd`, five XORs.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn horner_step(acc: __m128i, y: __m128i, (u, l): (__m128i, __m128i), c: __m128i) -> __m128i {
    let m = _mm_xor_si128(acc, y);
    let r = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x00>(m, u),
        _mm_clmulepi64_si128::<0x11>(m, u),
    );
    let f = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x00>(m, l),
        _mm_clmulepi64_si128::<0x11>(m, l),
    );
    _mm_xor_si128(
        _mm_xor_si128(r, _mm_shuffle_epi32::<0x4e>(f)),
        _mm_clmulepi64_si128::<0x00>(f, c),
    )
}

/// RFC 8452's `POLYVAL(auth, A ∥ 0^v ∥ P ∥ 0^u ∥ [len(A)]₆₄ ∥
/// [len(P)]₆₄)` by Horner's rule on `auth` alone.
#[inline]
#[target_feature(enable = "pclmulqdq,sse4.1")]
fn polyval(auth: __m128i, aad: &[u8], text: &[u8]) -> __m128i {
    let c = to_x(u128::from(C_HI));
    let k = horner_key(auth, c);
    let mut acc = _mm_setzero_si128();
    for data in [aad, text] {
        let mut blocks = data.chunks_exact(16);
        for y in &mut blocks {
            // SAFETY: `y` is 16 readable bytes.
            acc = horner_step(acc, unsafe { _mm_loadu_si128(y.as_ptr().cast()) }, k, c);
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            acc = horner_step(acc, load_partial(rest), k, c);
        }
    }
    let lengths = block(aad.len() as u64 * 8, text.len() as u64 * 8);
    horner_step(acc, lengths, k, c)
}

/// `buf ⊕ AES-CTR(enc, ctr)` in place with RFC 8452's counter (a 32-bit
/// little-endian increment of the block's first word), four blocks at a
/// time; a partial last block by [`load_partial`] and [`store_partial`].
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn ctr<const NR: usize>(enc: &[__m128i; 15], ctr: __m128i, buf: &mut [u8]) {
    let mut next = ctr;
    for chunk in buf.chunks_mut(64) {
        let counters: [__m128i; 4] =
            [0, 1, 2, 3].map(|i| _mm_add_epi32(next, _mm_cvtsi32_si128(i)));
        next = _mm_add_epi32(next, _mm_cvtsi32_si128(4));
        let ks = rounds::<NR, 4>(enc, counters);
        let mut blocks = chunk.chunks_exact_mut(16);
        let mut j = 0;
        for d in &mut blocks {
            // SAFETY: `d` is 16 readable and writable bytes.
            unsafe {
                let x = _mm_xor_si128(_mm_loadu_si128(d.as_ptr().cast()), ks[j]);
                _mm_storeu_si128(d.as_mut_ptr().cast(), x);
            }
            j += 1;
        }
        let rest = blocks.into_remainder();
        if !rest.is_empty() {
            let x = _mm_xor_si128(load_partial(rest), ks[j]);
            store_partial(rest, x);
        }
    }
}

/// `s` (1 to 15 bytes) zero-padded to a block: two overlapping 8- or
/// 4-byte loads, or three single bytes, by the public length.
#[inline]
#[target_feature(enable = "sse4.1")]
fn load_partial(s: &[u8]) -> __m128i {
    let n = s.len();
    let (lo, hi) = if n >= 8 {
        // Bytes 8 … n − 1 are the top n − 8 bytes of the last eight.
        (le64(s), le64(&s[n - 8..]) >> (8 * (15 - n)) >> 8)
    } else if n >= 4 {
        let lo = u64::from(le32(s));
        (
            lo | (u64::from(le32(&s[n - 4..])) >> (8 * (8 - n))) << 32,
            0,
        )
    } else {
        let (a, b, c) = (s[0], s[n / 2], s[n - 1]);
        let lo = u64::from(a) | u64::from(b) << (8 * (n / 2)) | u64::from(c) << (8 * (n - 1));
        (lo, 0)
    };
    block(lo, hi)
}

/// `d` (1 to 15 bytes) ← the first `d.len()` bytes of `v`: two overlapping
/// 8- or 4-byte stores, or three single bytes, by the public length.
#[inline]
#[target_feature(enable = "sse4.1")]
fn store_partial(d: &mut [u8], v: __m128i) {
    let n = d.len();
    let (lo, hi) = (
        _mm_cvtsi128_si64(v) as u64,
        _mm_extract_epi64::<1>(v) as u64,
    );
    if n >= 8 {
        // Bytes n − 8 … n − 1: `lo` from byte n − 8, `hi` after it.
        let last = (lo >> (8 * (n - 8))) | (hi << (8 * (15 - n)) << 8);
        d[..8].copy_from_slice(&lo.to_le_bytes());
        d[n - 8..].copy_from_slice(&last.to_le_bytes());
    } else if n >= 4 {
        d[..4].copy_from_slice(&(lo as u32).to_le_bytes());
        d[n - 4..].copy_from_slice(&((lo >> (8 * (n - 4))) as u32).to_le_bytes());
    } else {
        d[0] = lo as u8;
        d[n / 2] = (lo >> (8 * (n / 2))) as u8;
        d[n - 1] = (lo >> (8 * (n - 1))) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::super::short_against_portable as against_portable;
    use super::*;

    /// The short kernel against the portable backend's general path
    /// ([`super::super::short_against_portable`]) on each backend that
    /// runs a flavour of it.
    #[test]
    fn short_matches_the_portable_path() {
        let limits = (SHORT_MAX_AAD_BLOCKS, SHORT_MAX_BLOCKS);
        if let Some(t) = AesClmul::get() {
            against_portable(t, limits);
        }
        if let Some(t) = VaesAvx2::get() {
            against_portable(t, limits);
        }
        if let Some(t) = crate::cpu::VaesAvx512::get().zip(VaesAvx2::get()) {
            against_portable(super::super::Vaes512(t.0, t.1), limits);
        }
    }
}

/// The short kernel leaves no secret on the stack: [`short_nr`]'s dead
/// frame holds key material, keystream or text when nothing wipes it (the
/// control: the kernel called alone), none after [`short`] (the kernel,
/// then [`crate::wipe::wipe_stack_below`]); and the kernel stays within
/// [`SHORT_STACK`].
#[cfg(test)]
mod stack_wipe {
    use super::super::Engine;
    use super::*;
    use crate::wipe::stack_probe::{LENS, Tally, blocks, bytes};
    use alloc::vec::Vec;

    #[test]
    #[cfg_attr(
        debug_assertions,
        ignore = "the wipe is sized for the release build's frames"
    )]
    fn short_stays_within_its_wipe_and_leaves_no_secret() {
        if let Some(t) = AesClmul::get() {
            wipe_test!(
                t,
                t,
                short,
                short_nr,
                SHORT_STACK,
                "gcm_siv short (x86-64, SSE)"
            );
        }
        if let Some(t) = VaesAvx2::get() {
            wipe_test!(
                t,
                t,
                short_vex,
                short_nr_vex,
                SHORT_STACK_VEX,
                "gcm_siv short (x86-64, VEX)"
            );
        }
    }

    /// One flavour's run of the test above.
    macro_rules! wipe_test {
        ($backend:expr, $t:expr, $short:ident, $nr:ident, $stack:ident, $name:literal) => {{
            let (backend, t) = ($backend, $t);
            let mut tally = Tally::new();
            for klen in [16, 32] {
                let engine = Engine::new(&bytes(klen, 0x3c), backend);
                let kgk = &engine.kgk.rk;
                for alen in [0, 13, 16 * SHORT_MAX_AAD_BLOCKS] {
                    let aad = bytes(alen, 0x11);
                    for len in LENS {
                        let nonce: [u8; 12] = core::array::from_fn(|i| (i + alen + 3 * len) as u8);
                        let pt = bytes(len, 0xa5);
                        let mut ct = pt.clone();
                        let tag = engine.seal(&nonce, &aad, &mut ct);
                        let mut s = Vec::new();
                        for r in kgk.rk.iter().take(kgk.rounds + 1) {
                            s.push(("key-generating round key", r.to_le_bytes()));
                        }
                        let keys = engine.derive(&nonce);
                        s.push(("authentication key", keys.auth));
                        blocks(
                            &mut s,
                            "encryption key",
                            keys.enc.get(..klen).unwrap_or_default(),
                        );
                        let ek = engine.enc_key(&keys);
                        for r in ek.rk.rk.iter().take(ek.rk.rounds + 1) {
                            s.push(("encryption round key", r.to_le_bytes()));
                        }
                        let ks: Vec<u8> = pt.iter().zip(&ct).map(|(p, c)| p ^ c).collect();
                        blocks(&mut s, "keystream", &ks);
                        blocks(&mut s, "plaintext", &pt);
                        for enc in [true, false] {
                            let case = (klen, alen, len, enc);
                            let input = if enc { &pt } else { &ct };
                            let received = if enc { None } else { Some(&tag) };
                            let (mut b0, mut b1) = (input.clone(), input.clone());
                            // SAFETY: (each arm) the token `t` proves AES-NI,
                            // PCLMULQDQ, SSSE3 and SSE4.1.
                            let control = || unsafe {
                                match (klen, received) {
                                    (16, None) => {
                                        $nr::<10, true>(kgk, &mut b0, &[0; 16], &nonce, &aad)
                                    }
                                    (16, Some(r)) => {
                                        $nr::<10, false>(kgk, &mut b0, r, &nonce, &aad)
                                    }
                                    (_, None) => {
                                        $nr::<14, true>(kgk, &mut b0, &[0; 16], &nonce, &aad)
                                    }
                                    (_, Some(r)) => $nr::<14, false>(kgk, &mut b0, r, &nonce, &aad),
                                }
                            };
                            let wiped = || $short(t, kgk, &nonce, &aad, &mut b1, received);
                            tally.case(&case, &s, $stack, tag, control, wiped);
                        }
                    }
                }
            }
            tally.finish($name);
        }};
    }
    use wipe_test;
}
