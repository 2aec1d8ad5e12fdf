//! Target features: `neon` — capability token [`crate::cpu::Neon`].
//!
//! ChaCha20-Poly1305 in one pass on AArch64, stitched: the NEON ChaCha20
//! kernels of `chacha20/neon.rs` (the vertical 4-block rounds, and the
//! horizontal 1–3-block ones for tails) run on the vector pipes, and
//! Poly1305 in radix 2^64 ([`crate::poly1305::ScalarKey`]: `mul`/`umulh`)
//! runs on the integer pipes between their double rounds, through the
//! kernels' hook (`keystream4_with`, `keystream_h_with`: a closure called
//! after each double round). The NEON rounds are latency-bound (llvm-mca-19
//! on Neoverse N1: 64 cycles a 4-block double round, the integer pipes
//! idle), so the MAC's 16 blocks a 256-byte group (1.6 a double round,
//! about 50 integer instructions) fit in their shadow. The idea is that of
//! the x86 stitched kernel (`chachapoly/avx2.rs`) and of OpenSSL's
//! `chacha20_poly1305_armv8` (CRYPTOGAMS, A. Polyakov; ring and aws-lc use
//! it); this is our own code on this crate's kernels. Measured history:
//! `docs/notes/chachapoly.md`.
//!
//! # Sealing
//!
//! Blocks 0–3 from one vertical call: block 0 is the one-time key, 1–3
//! encrypt the first 192 bytes (the head). Then each whole 256-byte group
//! (blocks from 4, four at a time) MACs the ciphertext of the call before
//! it (the head: 12 blocks spread evenly over the ten double rounds; a
//! group: 16 blocks, two after each of the first eight,
//! [`absorb_group_share`]) between its double rounds. The tail
//! (under 256 bytes) is encrypted by the smallest kernel that covers it
//! (1–3 horizontal blocks, or the vertical four), which MACs the last
//! group (or the head) between its rounds; the tail's own ciphertext is
//! MACed last, after its call.
//!
//! # Opening
//!
//! Blocks 0–3 from one vertical call (the key, and the head's keystream,
//! held); the first group's call MACs the head and the group (28 blocks)
//! between its rounds, then decrypts both; each later group MACs itself
//! between the rounds of its own call, then is decrypted. The tail's call
//! MACs the tail (with the head when there is no whole group), a pair of
//! blocks after each of its first double rounds; then the tag is checked,
//! and only then is the tail decrypted. On a mismatch the
//! whole buffer is zeroed (the groups were decrypted while they were
//! authenticated, as the x86 AVX2 kernel does; `mod.rs` promises no
//! unauthenticated plaintext is released).
//!
//! # Short messages
//!
//! Below [`SEAL_FROM`] and [`OPEN_FROM`] bytes the two-pass `neon` path
//! runs instead (the NEON ChaCha20, then the scalar Poly1305): with at
//! most one data call after block 0's there is nothing to hide the MAC
//! behind, and the instruction counts are the two-pass ones or lower.
//!
//! # Operation counts
//!
//! A 256-byte group: the vertical 4-block call (1 256 instructions: ten
//! double rounds of about 114, the input additions and the transposition)
//! and 16 Poly1305 blocks of about 29 integer instructions (5 `mul`, 5
//! `umulh`, a `madd`, the additions with carry, the fold) between them.
//! The MAC's double rounds are the first eight, split from the two bare
//! ones at compile time (`keystream4_with::<8, true>`:
//! `rounds::word_sliced_hooked`), two an iteration: an iteration is two
//! double rounds and four MAC blocks (346 instructions) with 3 of loop
//! control and no test of the round index. Opening's tail call MACs a
//! fixed pair after each of its first double rounds (up to ten; the rest,
//! under 128 bytes, in Poly1305's loop after), then checks the tag and
//! decrypts in the arm of its state count (no zero-padded rows). Under
//! `qemu-aarch64 -cpu neoverse-n1` (13 B AAD; `neon` in brackets), sealing
//! 256 B 2 571 instructions (2 776), 512 B 4 359 (4 473), 1 KiB 7 842
//! (7 977), 16 KiB 111 882 (113 097; ring 115 040); opening 256 B 2 651
//! (2 805), 512 B 4 437 (4 522), 1 KiB 7 993 (8 090), 16 KiB 114 013
//! (115 130; ring 116 420): fewer at every length from 256 bytes both
//! ways (swept every 13 bytes to 1 400 and at 2 000, 3 000, 4 109, 8 192).
//! llvm-mca-19: an iteration of the paired loop 158 cycles on Neoverse N1
//! (79 a hooked double round: the MAC's `mul`/`umulh` chain is the
//! bound), 116 on V1 (58, the rounds'); a bare double round 64 / 58; a
//! 64-byte block ≈ 200 cycles on N1 and 150 on V1, against ≈ 316 and 217
//! for the two passes. Hence the default where ChaCha20's best is `neon`
//! (`mod.rs`).
//!
//! Rejected: the group's 16 blocks spread over all ten double rounds
//! (2, 1, 2, 1, … from a table) — an inner loop with bounds checks, 8.5 %
//! more instructions than two passes at 16 KiB. Pairing the head's or
//! opening's first call (6 pairs, 9 triples) — LLVM compiled their
//! closure out of line (two call sites), +300–550 at 448–1 024 B. The
//! tail's runtime share (`absorb_share`) by index instead of a length
//! test a block — opening 320–384 B only level with `neon`, other
//! lengths 10–30 worse; fixed pairs replaced it.
//!
//! Constant time: vector additions, XORs, rotations and the scalar
//! Poly1305's multiplications and carries; no branch or index on the key
//! or the data (only on lengths, which are public, and, opening, on the
//! tag check's verdict, public too, which comes from
//! `aead_util::tag_verdict` out of line). `scripts/ct-aarch64.py` checks
//! both entry points' machine code.
//!
//! **Stack wipe.** [`seal_neon`] and [`open_neon`] spill key words and
//! keystream rows to their frames (and, opening, hold the head's and the
//! tail's keystream there); they are out of line, and each entry calls
//! [`crate::wipe::wipe_stack_below`] after it at the same stack pointer
//! ([`SEAL_STACK`], [`OPEN_STACK`]). The `stack_wipe` test checks the
//! bounds and that no key word, keystream block or the one-time key is
//! left.
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// data offsets are lengths split at HEAD and whole
// groups below `buf.len()`.
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use super::scalar::{absorb_padded, absorb_share, finish};
use super::{Backend, Error, Instance, TwoPass};
use crate::chacha20::neon::{Rot8, keystream_h_with, keystream4_with, xor_h};
use crate::cpu;
use crate::poly1305::{ScalarAcc, ScalarKey};
use core::arch::aarch64::{uint32x4_t, vgetq_lane_u64, vreinterpretq_u64_u32};
use zeroize::Zeroize;

/// Bytes of a vertical call's four blocks.
const GROUP: usize = 256;

/// Bytes of the head: blocks 1–3 of the first call (block 0 is the key).
const HEAD: usize = 192;

/// Sealing runs stitched from this length, two passes below it.
pub(crate) const SEAL_FROM: usize = 256;

/// Opening runs stitched from this length, two passes below it.
pub(crate) const OPEN_FROM: usize = 256;

/// Bytes wiped below the stack pointer after [`seal_neon`].
const SEAL_STACK: usize = 1024;

/// Bytes wiped below the stack pointer after [`open_neon`].
const OPEN_STACK: usize = 1280;

/// The stitched kernel: the backend `neon-stitched` (two passes on the
/// NEON ChaCha20 below [`SEAL_FROM`] / [`OPEN_FROM`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stitched {
    neon: cpu::Neon,
    short: TwoPass,
}

impl Stitched {
    /// The kernel, if this CPU runs NEON (after `FIELDWORK_MAX_ISA`).
    pub(crate) fn get() -> Option<Stitched> {
        Some(Stitched {
            neon: cpu::Neon::get()?,
            short: TwoPass(crate::chacha20::Dispatch::named("neon")?),
        })
    }
}

impl Backend for Stitched {
    fn name(self) -> &'static str {
        super::NEON_STITCHED
    }

    fn seal(self, c: &Instance, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        if buf.len() < SEAL_FROM {
            return self.short.seal(c, aad, buf);
        }
        // SAFETY: the token (cpu::Neon) proves NEON.
        let tag = unsafe { seal_neon(self.neon, &c.key.0, &c.nonce, aad, buf) };
        crate::wipe::wipe_stack_below::<SEAL_STACK>();
        tag
    }

    /// Opens `buf` in place if `tag` authenticates it; zeroes it otherwise.
    fn open(self, c: &Instance, aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        if buf.len() < OPEN_FROM {
            return self.short.open(c, aad, buf, tag);
        }
        // SAFETY: the token (cpu::Neon) proves NEON.
        let ok = unsafe { open_neon(self.neon, &c.key.0, &c.nonce, aad, buf, tag) };
        crate::wipe::wipe_stack_below::<OPEN_STACK>();
        if ok { Ok(()) } else { Err(Error::TagMismatch) }
    }
}

/// The 16 bytes of `v` as a little-endian integer.
#[inline(always)]
fn value(v: uint32x4_t) -> u128 {
    // SAFETY: NEON is available (only this file's NEON entry points reach
    // here).
    let (lo, hi) = unsafe {
        let q = vreinterpretq_u64_u32(v);
        (vgetq_lane_u64::<0>(q), vgetq_lane_u64::<1>(q))
    };
    u128::from(lo) | u128::from(hi) << 64
}

/// The one-time Poly1305 key from keystream block 0's first two rows (`r
/// ‖ s`, read from the registers: no byte copy to wipe): the scalar key
/// `r` (clamped by [`ScalarKey::from_r`]) and `s`.
#[inline(always)]
fn mac_key(block0: &[uint32x4_t; 4]) -> (ScalarKey, u128) {
    (ScalarKey::from_r(value(block0[0])), value(block0[1]))
}

/// Absorbs double round `r`'s share of a whole group (each block with
/// the 2^128 bit): blocks `2r` and `2r + 1` after rounds 0 to 7, nothing
/// after 8 and 9. Two blocks (about 34 cycles of the scalar chain on
/// Neoverse N1) fit in a 4-block double round (64): a fixed pair needs no
/// loop, where a share spread over all ten rounds (two and one
/// alternately) compiled to an inner loop with bounds checks, 150
/// instructions a group more than the two passes.
#[inline(always)]
fn absorb_group_share(mac: &ScalarKey, h: &mut ScalarAcc, group: &[u8; GROUP], r: usize) {
    absorb_pair(mac, h, group.as_chunks::<32>().0.get(r));
}

/// Absorbs the two blocks of `pair`, if there is one.
#[inline(always)]
fn absorb_pair(mac: &ScalarKey, h: &mut ScalarAcc, pair: Option<&[u8; 32]>) {
    if let Some(pair) = pair {
        let (a, b) = pair.split_at(16);
        for b in [a, b] {
            mac.block_value(h, le_block(b), 1);
        }
    }
}

/// Absorbs the three blocks of `triple`, if there is one.
#[inline(always)]
fn absorb_triple(mac: &ScalarKey, h: &mut ScalarAcc, triple: Option<&[u8; 48]>) {
    if let Some(t) = triple {
        let (a, bc) = t.split_at(16);
        let (b, c) = bc.split_at(16);
        for b in [a, b, c] {
            mac.block_value(h, le_block(b), 1);
        }
    }
}

/// A 16-byte slice (a half of a 32-byte pair) as a little-endian integer.
#[inline(always)]
fn le_block(b: &[u8]) -> u128 {
    let mut w = [0u8; 16];
    w.copy_from_slice(b);
    u128::from_le_bytes(w)
}

/// Seals `buf` (at least [`HEAD`] bytes for the stitching to pay; any
/// length is correct) in place; returns the tag.
#[target_feature(enable = "neon")]
#[inline(never)]
fn seal_neon(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
) -> [u8; 16] {
    let rot = Rot8::new(t);
    let len = buf.len();
    let [b0, b1, b2, b3] = keystream4_with::<0, false>(key, nonce, 0, rot, |_| {});
    let (mac, mut s) = mac_key(&b0);
    let (head, rest) = buf.split_at_mut(len.min(HEAD));
    xor_h(&[b1, b2, b3], head);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    // Ciphertext not MACed yet, in order: whole blocks are taken from its
    // front between double rounds; a partial last block (a head shorter
    // than HEAD, with nothing after it) is left for the end.
    let mut pending: &[u8] = head;
    let (groups, tail) = rest.as_chunks_mut::<GROUP>();
    let mut counter = 4u32;
    let mut groups = groups.iter_mut();
    if let Some(g) = groups.next() {
        // The first group MACs the head (whole when a group follows: 12
        // blocks, two after each of the first six double rounds).
        let pairs = head.as_chunks::<32>().0;
        let ks = keystream4_with::<{ HEAD / 32 }, false>(key, nonce, counter, rot, |r| {
            absorb_pair(&mac, &mut h, pairs.get(r))
        });
        xor_h(&ks, g);
        counter = counter.wrapping_add(4);
        let mut prev: &[u8; GROUP] = g;
        for g in groups {
            // A whole group behind: fixed block ranges, no length tests.
            let ks = keystream4_with::<{ GROUP / 32 }, true>(key, nonce, counter, rot, |r| {
                absorb_group_share(&mac, &mut h, prev, r)
            });
            xor_h(&ks, g);
            counter = counter.wrapping_add(4);
            prev = g;
        }
        pending = prev;
    }
    // The tail on the smallest kernel that covers it, MACing the
    // ciphertext before it between its rounds (one closure per call: a
    // closure with several call sites may be compiled out of line).
    let n = pending.len() / 16;
    match tail.len().div_ceil(64) {
        0 => {}
        1 => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            xor_h(&keystream_h_with::<1>(key, nonce, counter, rot, hook), tail)
        }
        2 => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            xor_h(&keystream_h_with::<2>(key, nonce, counter, rot, hook), tail)
        }
        3 => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            xor_h(&keystream_h_with::<3>(key, nonce, counter, rot, hook), tail)
        }
        _ => {
            let hook = |r| absorb_share(&mac, &mut h, &mut pending, n, r);
            xor_h(
                &keystream4_with::<10, false>(key, nonce, counter, rot, hook),
                tail,
            )
        }
    }
    absorb_padded(&mac, &mut h, pending);
    absorb_padded(&mac, &mut h, tail);
    finish(&mac, &mut h, &mut s, aad.len(), len)
}

/// Opens `buf` in place if `tag` authenticates it (see the module docs);
/// zeroes it otherwise. Returns whether it did.
#[target_feature(enable = "neon")]
#[inline(never)]
fn open_neon(
    t: cpu::Neon,
    key: &[u32; 8],
    nonce: &[u32; 3],
    aad: &[u8],
    buf: &mut [u8],
    tag: &[u8],
) -> bool {
    let rot = Rot8::new(t);
    let len = buf.len();
    let [b0, b1, b2, b3] = keystream4_with::<0, false>(key, nonce, 0, rot, |_| {});
    let (mac, mut s) = mac_key(&b0);
    let mut h: ScalarAcc = [0; 3];
    absorb_padded(&mac, &mut h, aad);
    let head_len = len.min(HEAD);
    let body_len = (len - head_len) / GROUP * GROUP;
    let mut counter = 4u32;
    // Decrypted while authenticated: the head and the whole groups, if
    // there is one; otherwise nothing before the check.
    let early = if body_len > 0 { HEAD + body_len } else { 0 };
    let (done, rest) = buf.split_at_mut(early);
    if let Some((first, groups)) = done.split_first_chunk_mut::<{ HEAD + GROUP }>() {
        // The head and the first group MACed between the rounds of the
        // group's call (28 blocks: three after each of the first nine
        // double rounds, the last after the call), then both decrypted.
        let (triples, last) = first.as_chunks::<48>();
        let ks = keystream4_with::<{ (HEAD + GROUP) / 48 }, false>(key, nonce, counter, rot, |r| {
            absorb_triple(&mac, &mut h, triples.get(r))
        });
        absorb_padded(&mac, &mut h, last);
        let (head, g) = first.split_at_mut(HEAD);
        xor_h(&[b1, b2, b3], head);
        xor_h(&ks, g);
        counter = counter.wrapping_add(4);
        for g in groups.as_chunks_mut::<GROUP>().0 {
            // Each later group MACed between the rounds of its own call.
            let ks = keystream4_with::<{ GROUP / 32 }, true>(key, nonce, counter, rot, |r| {
                absorb_group_share(&mac, &mut h, g, r)
            });
            xor_h(&ks, g);
            counter = counter.wrapping_add(4);
        }
    }
    // The rest (the tail, or the head and the tail when there is no whole
    // group): its whole blocks MACed between the rounds of the tail's
    // call, its partial block after; the keystream held until the check.
    let tail_len = len - head_len - body_len;
    // Its MAC: a pair of blocks after each of the first double rounds (up
    // to ten pairs: no share computed at run time, no length test a
    // block), the rest (at most 127 bytes: 447 − 320) in Poly1305's loop
    // after.
    let (fixed, after) = rest
        .split_at_checked((rest.len() / 32).min(10) * 32)
        .unwrap_or((&[], rest));
    let pairs = fixed.as_chunks::<32>().0;
    // Each arm checks the tag and decrypts with its own `S` states: no
    // zero-padded rows to store or to test against the length.
    let head = [b1, b2, b3];
    let hl = if early == 0 { head_len } else { 0 };
    // A tail of `$n` horizontal states: its whole blocks MACed in pairs
    // between the rounds, its partial block after, then the check and the
    // XOR (one body for the three state counts).
    macro_rules! tail_h {
        ($n:literal) => {{
            let hook = |r| absorb_pair(&mac, &mut h, pairs.get(r));
            let ks = keystream_h_with::<$n>(key, nonce, counter, rot, hook);
            absorb_padded(&mac, &mut h, after);
            check_then_xor(
                &ks,
                &head,
                &mac,
                &mut h,
                &mut s,
                aad.len(),
                len,
                tag,
                rest,
                hl,
            )
        }};
    }
    let ok = match tail_len.div_ceil(64) {
        0 => {
            absorb_padded(&mac, &mut h, rest);
            check_then_xor::<0>(
                &[],
                &head,
                &mac,
                &mut h,
                &mut s,
                aad.len(),
                len,
                tag,
                rest,
                hl,
            )
        }
        1 => tail_h!(1),
        2 => tail_h!(2),
        3 => tail_h!(3),
        _ => {
            let hook = |r| absorb_pair(&mac, &mut h, pairs.get(r));
            let ks = keystream4_with::<10, false>(key, nonce, counter, rot, hook);
            absorb_padded(&mac, &mut h, after);
            check_then_xor(
                &ks,
                &head,
                &mac,
                &mut h,
                &mut s,
                aad.len(),
                len,
                tag,
                rest,
                hl,
            )
        }
    };
    if !ok {
        // The head and groups were decrypted while they were
        // authenticated: wipe them with the rest.
        buf.zeroize();
    }
    ok
}

/// Opening's end, after the ciphertext's last (partial) block: finishes
/// the MAC over `len` bytes of ciphertext, checks `tag`, and only if it
/// authenticates decrypts `rest`: its first `head_len` bytes (the head,
/// when no whole group was decrypted before) with the head's keystream
/// `head`, then the tail with its own `S` states `ks`. Returns the
/// verdict.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn check_then_xor<const S: usize>(
    ks: &[[uint32x4_t; 4]; S],
    head: &[[uint32x4_t; 4]; 3],
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    s: &mut u128,
    aad_len: usize,
    len: usize,
    tag: &[u8],
    rest: &mut [u8],
    head_len: usize,
) -> bool {
    let mut expected = finish(mac, h, s, aad_len, len);
    // The verdict is public: compared out of line (see `tag_verdict`).
    let ok = crate::aead_util::tag_verdict(&expected, tag);
    crate::wipe::wipe(&mut expected);
    if ok {
        let (hd, tail) = rest.split_at_mut(head_len);
        xor_h(head, hd);
        xor_h(ks, tail);
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chacha20::{self, KeyWords, nonce_words};
    use crate::chachapoly::ChaCha20Poly1305;
    use crate::hazmat::Backends;
    use crate::test_util::splitmix64;
    use alloc::vec::Vec;

    fn unhex<const N: usize>(s: &str) -> [u8; N] {
        let v: Vec<u8> = (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect();
        v.try_into().unwrap()
    }

    /// The kernel [`seal_neon`] alone, at any length (below the crossover
    /// too).
    fn kernel_seal(
        t: cpu::Neon,
        key: &[u8; 32],
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
    ) -> [u8; 16] {
        let (k, n) = (KeyWords::new(key), nonce_words(nonce));
        // SAFETY: the token proves NEON.
        unsafe { seal_neon(t, &k.0, &n, aad, buf) }
    }

    /// The kernel [`open_neon`] alone.
    fn kernel_open(
        t: cpu::Neon,
        key: &[u8; 32],
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> bool {
        let (k, n) = (KeyWords::new(key), nonce_words(nonce));
        // SAFETY: the token proves NEON.
        unsafe { open_neon(t, &k.0, &n, aad, buf, tag) }
    }

    /// RFC 8439 §2.8.2 (114 bytes: the two-pass path through the backend,
    /// so the kernel alone too), and the same sealing repeated to 1 140
    /// bytes through the backend's stitched path against portable.
    #[test]
    fn rfc8439_2_8_2() {
        let Some(t) = cpu::Neon::get() else { return };
        let key: [u8; 32] = core::array::from_fn(|i| 0x80 + i as u8);
        let nonce: [u8; 12] = unhex("070000004041424344454647");
        let aad: [u8; 12] = unhex("50515253c0c1c2c3c4c5c6c7");
        let pt = b"Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.";
        let ct: [u8; 114] = unhex(concat!(
            "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6",
            "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36",
            "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc",
            "3ff4def08e4b7a9de576d26586cec64b6116",
        ));
        let tag: [u8; 16] = unhex("1ae10b594f09e26a7e902ecbd0600691");
        let mut buf = pt.to_vec();
        assert_eq!(kernel_seal(t, &key, &nonce, &aad, &mut buf), tag);
        assert_eq!(buf, ct);
        assert!(kernel_open(t, &key, &nonce, &aad, &mut buf, &tag));
        assert_eq!(buf, pt);
        let c = ChaCha20Poly1305::with_backend("neon-stitched", &key).unwrap();
        let mut buf = pt.to_vec();
        assert_eq!(c.encrypt_in_place_detached(&nonce, &aad, &mut buf), Ok(tag));
        assert_eq!(buf, ct);
        assert_eq!(
            c.decrypt_in_place_detached(&nonce, &aad, &mut buf, &tag),
            Ok(())
        );
        assert_eq!(buf, pt);
    }

    /// The backend (stitched from the crossover) and the kernel alone
    /// (at every length) against `portable`: every length 0..=1 100 and
    /// 4 109 and 16 384 bytes, associated data of 0, 1, 13, 16, 17 and
    /// 300 bytes; sealing, opening, and opening with a wrong tag, a
    /// flipped ciphertext bit or a flipped associated-data bit (refused,
    /// buffer zeroed).
    #[test]
    fn matches_portable() {
        let Some(t) = cpu::Neon::get() else { return };
        let mut seed = 0x6e65_6f6e_7374_u64;
        let key: [u8; 32] = core::array::from_fn(|_| splitmix64(&mut seed) as u8);
        let nonce: [u8; 12] = core::array::from_fn(|_| splitmix64(&mut seed) as u8);
        let data: Vec<u8> = (0..16384 + 300)
            .map(|_| splitmix64(&mut seed) as u8)
            .collect();
        let ours = ChaCha20Poly1305::with_backend("neon-stitched", &key).unwrap();
        let port = ChaCha20Poly1305::with_backend("portable", &key).unwrap();
        for len in (0..=1100).chain([4096 + 13, 16384]) {
            for (i, alen) in [0usize, 1, 13, 16, 17, 300].into_iter().enumerate() {
                let aad = &data[data.len() - alen..];
                let pt = &data[..len];
                let mut want = pt.to_vec();
                let wtag = port
                    .encrypt_in_place_detached(&nonce, aad, &mut want)
                    .unwrap();
                let mut got = pt.to_vec();
                let gtag = ours
                    .encrypt_in_place_detached(&nonce, aad, &mut got)
                    .unwrap();
                assert_eq!((&got, gtag), (&want, wtag), "seal {len} B, aad {alen}");
                let mut got = pt.to_vec();
                let ktag = kernel_seal(t, &key, &nonce, aad, &mut got);
                assert_eq!(
                    (&got, ktag),
                    (&want, wtag),
                    "kernel seal {len} B, aad {alen}"
                );
                let mut got = want.clone();
                assert_eq!(
                    ours.decrypt_in_place_detached(&nonce, aad, &mut got, &wtag),
                    Ok(())
                );
                assert_eq!(got, pt, "open {len} B, aad {alen}");
                let mut got = want.clone();
                assert!(kernel_open(t, &key, &nonce, aad, &mut got, &wtag));
                assert_eq!(got, pt, "kernel open {len} B, aad {alen}");
                // Refusals: a tag bit, a ciphertext bit (each position in
                // turn as the lengths go), an associated-data bit.
                let mut bad = wtag;
                bad[(len + i) % 16] ^= 1 << ((len + i) % 8);
                let mut flipped = want.clone();
                if len > 0 {
                    flipped[(len * 7 + i) % len] ^= 0x10;
                }
                let mut aad2 = aad.to_vec();
                if alen > 0 {
                    aad2[i % alen] ^= 0x01;
                }
                for (what, ct, a, tg) in [
                    ("tag", &want, aad, &bad),
                    ("ciphertext", &flipped, aad, &wtag),
                    ("aad", &want, &aad2[..], &wtag),
                ] {
                    if (what == "ciphertext" && len == 0) || (what == "aad" && alen == 0) {
                        continue;
                    }
                    let mut got = ct.clone();
                    assert_eq!(
                        ours.decrypt_in_place_detached(&nonce, a, &mut got, tg),
                        Err(Error::TagMismatch),
                        "{what} {len} B, aad {alen}"
                    );
                    assert!(got.iter().all(|&b| b == 0), "{what} {len} B: zeroed");
                    let mut got = ct.clone();
                    assert!(
                        !kernel_open(t, &key, &nonce, a, &mut got, tg),
                        "kernel {what} {len}"
                    );
                    assert!(got.iter().all(|&b| b == 0), "kernel {what} {len} B: zeroed");
                }
            }
        }
    }

    /// The default backend: `neon-stitched` where ChaCha20's best is
    /// `neon` (no SVE2, e.g. `qemu-aarch64 -cpu neoverse-n1`), `sve2`
    /// where it is `sve2` (`-cpu max`).
    #[test]
    fn default_is_stitched_without_sve2() {
        use crate::chachapoly::aead::KeyInit;
        let c = ChaCha20Poly1305::new(&[7u8; 32].into());
        let want = match chacha20::Dispatch::best().name() {
            "neon" => "neon-stitched",
            other => other,
        };
        assert_eq!(c.backend_name(), want);
    }

    /// The stack wipes: at each length from the crossover, the kernel
    /// alone (the control: it writes within its wipe, and the scan finds
    /// secrets in its dead frame) and the backend's entry with its wipe
    /// (no secret left), sealing and opening.
    #[test]
    fn stack_wipe() {
        use crate::wipe::stack_probe::{Tally, blocks, bytes};
        let Some(t) = cpu::Neon::get() else { return };
        let Some(st) = Stitched::get() else { return };
        let key: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(0x9d) ^ 0x3c);
        let nonce = [7u8, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12];
        let kw = KeyWords::new(&key);
        let nw = nonce_words(&nonce);
        let portable = chacha20::Dispatch::named("portable").unwrap();
        let aad = b"thirteen byte";
        let mut tally = Tally::new();
        for len in [
            256usize, 257, 300, 448, 449, 500, 511, 512, 700, 1024, 1100, 4109,
        ] {
            let mut ks = alloc::vec![0u8; 64 + len];
            portable.xor(&kw.0, &nw, 0, &mut ks);
            let mut s = Vec::new();
            for w in &kw.0 {
                let b: [u8; 16] = core::array::from_fn(|i| w.to_le_bytes()[i % 4]);
                s.push(("key word in four lanes", b));
            }
            let rows: Vec<u8> = kw.0.iter().flat_map(|w| w.to_le_bytes()).collect();
            blocks(&mut s, "key row", &rows);
            blocks(&mut s, "keystream", &ks);
            let pt = bytes(len, 0xa5);
            let inst = Instance {
                key: KeyWords::new(&key),
                nonce: nw,
            };
            let (mut b0, mut b1) = (pt.clone(), pt.clone());
            let mut want = pt.clone();
            let tag = kernel_seal(t, &key, &nonce, aad, &mut want);
            tally.case(
                &("seal", len),
                &s,
                SEAL_STACK,
                tag,
                || kernel_seal(t, &key, &nonce, aad, &mut b0),
                || st.seal(&inst, aad, &mut b1),
            );
            assert_eq!((&b0, &b1), (&want, &want), "seal {len}");
            let (mut o0, mut o1) = (want.clone(), want.clone());
            tally.case(
                &("open", len),
                &s,
                OPEN_STACK,
                [0; 16],
                || {
                    assert!(kernel_open(t, &key, &nonce, aad, &mut o0, &tag));
                    [0; 16]
                },
                || {
                    assert_eq!(st.open(&inst, aad, &mut o1, &tag), Ok(()));
                    [0; 16]
                },
            );
            assert_eq!((&o0, &o1), (&pt, &pt), "open {len}");
        }
        tally.finish("chachapoly neon-stitched");
    }
}
