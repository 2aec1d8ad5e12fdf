//! Target features: `neon,aes` (AESE/AESMC, PMULL/PMULL2) — capability
//! token [`crate::cpu::NeonAes`], backend `aes-pmull`.
//!
//! A whole short AES-GCM-SIV message in one kernel call, in registers:
//! at most [`SHORT_MAX_BLOCKS`] text blocks and [`SHORT_MAX_AAD_BLOCKS`]
//! blocks of associated data (longer messages take the general path of
//! [`super`]). RFC 8452 §4 (sealing) and §5 (opening), step by step:
//!
//! 1. the derivation's four (AES-128) or six (AES-256) blocks `[i]₃₂ ∥ N`
//!    through the key-generating key in one interleaved call of
//!    [`rounds`], the message keys taken by `ZIP1` (low halves);
//! 2. the message-encryption key expanded in registers four words at a
//!    time ([`expand128`], [`expand256`]: `TBL`/`DUP`, `AESE` with a zero
//!    key for `SubWord`, the prefix XOR of the previous key's words);
//! 3. POLYVAL under the fresh authentication key by Horner's rule on `H`
//!    alone ([`horner_step`]: no power made), over the associated data,
//!    the text and the lengths block, a partial last block loaded by
//!    overlapping 8/4-byte loads ([`load_partial`]);
//! 4. the tag block through the encryption key, one block;
//! 5. counter mode eight blocks at a time, then exactly the last `n ≤ 8`
//!    blocks in one interleaved call (straight-line code per `n`), a
//!    partial last block by overlapping loads and stores
//!    ([`ctr_keys`]).
//!
//! Opening runs 5 from the received tag before 3 and 4, and returns the
//! expected tag for the caller's constant-time comparison.
//!
//! No buffer, no call, no heap: the message keys, the round keys and the
//! hash state live in vector registers; nothing is written to memory but
//! the text and what LLVM spills to the kernel's frame (at most 304 bytes
//! deep in the compiled kernels: key material, keystream, text). [`short`]
//! wipes that dead frame after the kernel returns: one call of
//! [`crate::wipe::wipe_stack_below`] zeroes the [`SHORT_STACK`] (512)
//! bytes below its own stack pointer, 29 instructions; the test
//! `stack_wipe` checks that the kernel writes no deeper and that none of
//! its secrets (round keys, message keys, keystream, text) survives on the
//! stack, against a control that finds them without the wipe.
//!
//! # Operation count (AES-256, one text block, 13 bytes of associated data)
//!
//! Derivation 6 × 28 AES instructions and 15 round-key loads; expansion 13
//! steps of 7–8 instructions; POLYVAL 3 steps of 11 and 5 to set up;
//! tag and counter block 2 × (28 AES + 1 `EOR`): about 460 instructions in
//! the kernel, 561 a call (`qemu-aarch64 -cpu neoverse-n1`; the general
//! path took 2 308, aws-lc-rs 1 813). Each further text block adds about
//! 48 (AES-256) or 40 (AES-128): its 29 or 21 AES instructions, a Horner
//! step, load, `EOR`, store. Counts per size: `docs/notes/aarch64.md`.
//!
//! Rejected: the expansion fused with the tag's rounds (BoringSSL's x86
//! GCM-SIV assembly): the tag waits for POLYVAL, not for the keys, when
//! both are in registers; sealing's POLYVAL by an aggregated group over
//! powers of `H` (each power a product: more than a Horner step below nine
//! blocks).
// Indexing is bounded by construction: round-key indices are below the
// round count; block indices below the const block count `N`, offsets
// `16 * j` below the text's whole-block length.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::aes::RoundKeys;
use crate::aes::armv8::{Keys, ctr_keys, expand128, expand256, le32, le64, load_partial, rounds};
use crate::cpu::NeonAes;
use crate::ghash::pmull::neon::{V, c, horner_key, horner_step};
use core::arch::aarch64::{
    vandq_u8, vcombine_u64, vcreate_u64, vdupq_n_u8, veorq_u8, vld1q_u8, vorrq_u8,
    vreinterpretq_u8_u32, vreinterpretq_u8_u64, vreinterpretq_u32_u8, vreinterpretq_u64_u8,
    vsetq_lane_u32, vst1q_u8, vzip1q_u64,
};

/// The most text blocks (a partial last one included) a message may
/// have for [`short`]: beyond, the general path's aggregated POLYVAL
/// groups cost less than Horner's rule plus the powers they make.
pub(super) const SHORT_MAX_BLOCKS: usize = 16;

/// The most blocks of associated data for [`short`] (Horner's rule takes
/// them one by one; longer associated data is hashed faster by the
/// aggregated groups of the general path).
pub(super) const SHORT_MAX_AAD_BLOCKS: usize = 8;

/// Whether [`short`] takes a message of `aad` and `text` bytes.
#[inline(always)]
pub(super) fn fits(aad: usize, text: usize) -> bool {
    text <= 16 * SHORT_MAX_BLOCKS && aad <= 16 * SHORT_MAX_AAD_BLOCKS
}

/// A whole short message under the key-generating key `kgk` (10 or 14
/// rounds; the caller checked [`fits`]): `buf` sealed in place and its tag
/// returned (`received` is `None`), or `buf` opened in place with the
/// `received` tag and the expected tag returned.
pub(super) fn short(
    t: NeonAes,
    kgk: &RoundKeys,
    nonce: &[u8; 12],
    aad: &[u8],
    buf: &mut [u8],
    received: Option<&[u8; 16]>,
) -> [u8; 16] {
    let _ = t;
    // SAFETY (each arm): the token proves NEON, AES and PMULL.
    let tag = unsafe {
        match (kgk.rounds, received) {
            (10, None) => short_nr::<10, true>(kgk, buf, &[0; 16], nonce, aad),
            (10, Some(tag)) => short_nr::<10, false>(kgk, buf, tag, nonce, aad),
            (_, None) => short_nr::<14, true>(kgk, buf, &[0; 16], nonce, aad),
            (_, Some(tag)) => short_nr::<14, false>(kgk, buf, tag, nonce, aad),
        }
    };
    // The kernel's dead frame: its spills.
    crate::wipe::wipe_stack_below::<SHORT_STACK>();
    tag
}

/// The bytes below [`short`]'s stack pointer that [`short_nr`] may write,
/// wiped after it returns: 512, over the 304 measured at most (the test
/// `stack_wipe`; the deepest instance's frame by `objdump`).
const SHORT_STACK: usize = 512;

/// [`short`] for `NR` rounds, sealing if `ENC` (`received` unused), else
/// opening.
#[target_feature(enable = "neon,aes")]
fn short_nr<const NR: usize, const ENC: bool>(
    kgk: &RoundKeys,
    buf: &mut [u8],
    received: &[u8; 16],
    nonce: &[u8; 12],
    aad: &[u8],
) -> [u8; 16] {
    // Step 1: `[i]₃₂ ∥ N` (`i` in lane 0) through the key-generating key.
    let kk = Keys::load(kgk);
    let n = vreinterpretq_u32_u8(block(u64::from(le32(nonce)) << 32, le64(&nonce[4..])));
    let b = |i: u32| vreinterpretq_u8_u32(vsetq_lane_u32::<0>(i, n));
    let low2 = |a: V, b: V| {
        vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)))
    };
    // SAFETY (both arms): this function is compiled with NEON and AES.
    let (auth, enc) = unsafe {
        if NR == 10 {
            let d = rounds::<NR, 4>(&kk, [b(0), b(1), b(2), b(3)]);
            (low2(d[0], d[1]), expand128(low2(d[2], d[3])))
        } else {
            let d = rounds::<NR, 6>(&kk, [b(0), b(1), b(2), b(3), b(4), b(5)]);
            (
                low2(d[0], d[1]),
                expand256(low2(d[2], d[3]), low2(d[4], d[5])),
            )
        }
    };
    // The tag's nonce block `N ∥ 0³²` and the mask clearing bit 127.
    let nt = block(le64(nonce), u64::from(le32(&nonce[8..])));
    let mask = block(u64::MAX, u64::MAX >> 1);
    let top = block(0, 1 << 63);
    // SAFETY (the block): this function is compiled with NEON and AES;
    // `received` is 16 readable bytes.
    let tag = unsafe {
        if ENC {
            let s = polyval(auth, aad, buf);
            let [t] = rounds::<NR, 1>(&enc, [vandq_u8(veorq_u8(s, nt), mask)]);
            ctr_keys::<NR>(&enc, vorrq_u8(t, top), buf);
            t
        } else {
            let t = vld1q_u8(received.as_ptr());
            ctr_keys::<NR>(&enc, vorrq_u8(t, top), buf);
            let s = polyval(auth, aad, buf);
            let [t] = rounds::<NR, 1>(&enc, [vandq_u8(veorq_u8(s, nt), mask)]);
            t
        }
    };
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(out.as_mut_ptr(), tag) };
    out
}

/// The block whose low and high 64-bit words are `lo` and `hi`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn block(lo: u64, hi: u64) -> V {
    vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))
}

/// RFC 8452's `POLYVAL(auth, A ∥ 0^v ∥ P ∥ 0^u ∥ [len(A)]₆₄ ∥
/// [len(P)]₆₄)` by Horner's rule on `auth` alone.
///
/// # Safety
/// Only from functions compiled with `neon,aes`.
#[allow(inline_always_mismatching_target_features)]
#[inline(always)]
unsafe fn polyval(auth: V, aad: &[u8], text: &[u8]) -> V {
    // SAFETY: the caller is compiled with NEON and AES (every kernel
    // below); each whole block is 16 readable bytes.
    unsafe {
        let c = c();
        let k = horner_key(auth, c);
        let mut acc = vdupq_n_u8(0);
        for data in [aad, text] {
            let mut blocks = data.chunks_exact(16);
            for y in &mut blocks {
                acc = horner_step(acc, vld1q_u8(y.as_ptr()), k, c);
            }
            let rest = blocks.remainder();
            if !rest.is_empty() {
                acc = horner_step(acc, load_partial(rest), k, c);
            }
        }
        let lengths = block(aad.len() as u64 * 8, text.len() as u64 * 8);
        horner_step(acc, lengths, k, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short kernel against the portable backend's general path
    /// ([`super::super::short_against_portable`]).
    #[test]
    fn short_matches_the_portable_path() {
        let Some(t) = NeonAes::get() else { return };
        super::super::short_against_portable(t, (SHORT_MAX_AAD_BLOCKS, SHORT_MAX_BLOCKS));
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
    fn short_stays_within_its_wipe_and_leaves_no_secret() {
        let Some(t) = NeonAes::get() else { return };
        let mut tally = Tally::new();
        for klen in [16, 32] {
            let engine = Engine::new(&bytes(klen, 0x3c), t);
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
                        // SAFETY (each arm): the token `t` proves NEON,
                        // AES and PMULL.
                        let control = || unsafe {
                            match (klen, received) {
                                (16, None) => {
                                    short_nr::<10, true>(kgk, &mut b0, &[0; 16], &nonce, &aad)
                                }
                                (16, Some(r)) => {
                                    short_nr::<10, false>(kgk, &mut b0, r, &nonce, &aad)
                                }
                                (_, None) => {
                                    short_nr::<14, true>(kgk, &mut b0, &[0; 16], &nonce, &aad)
                                }
                                (_, Some(r)) => {
                                    short_nr::<14, false>(kgk, &mut b0, r, &nonce, &aad)
                                }
                            }
                        };
                        let wiped = || short(t, kgk, &nonce, &aad, &mut b1, received);
                        tally.case(&case, &s, SHORT_STACK, tag, control, wiped);
                    }
                }
            }
        }
        tally.finish("gcm_siv short");
    }
}
