//! Target features: none (plain Rust) — the steps of the scalar
//! radix-2^64 Poly1305 ([`crate::poly1305::ScalarKey`], `poly1305/portable.rs`)
//! that the stitched ChaCha20-Poly1305 kernels (`avx2.rs` on x86-64,
//! `neon.rs` on AArch64) run between their vector ChaCha20 double rounds,
//! and the AEAD's framing around them (RFC 8439 §2.8: `pad16` of the
//! associated data and the ciphertext, the lengths block, the tag and its
//! constant-time check). Written once for both kernels.
//!
//! Constant time: the blocks absorbed and their number depend only on
//! lengths, which are public.

// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// `whole` is `data.len()` rounded down to a block.
#![allow(clippy::indexing_slicing)]

use crate::partial::le_partial;
use crate::poly1305::{ScalarAcc, ScalarKey, scalar_finish};
use zeroize::Zeroize;

/// Absorbs up to `n` whole blocks from the front of `pending`.
#[inline(always)]
pub(super) fn absorb_some(mac: &ScalarKey, h: &mut ScalarAcc, pending: &mut &[u8], n: usize) {
    for _ in 0..n {
        if let Some((b, rest)) = pending.split_first_chunk::<16>() {
            mac.block(h, b, 1);
            *pending = rest;
        }
    }
}

/// Absorbs double round `r`'s share of `n` whole blocks from the front of
/// `pending`, the `n` spread evenly over a call's ten double rounds. In a
/// latency-bound call of two-block states (≈ 24 TSC ticks a double round
/// on Zen 3) three blocks a round (≈ 39 ticks) made the MAC the bound for
/// the rounds that had them and left the last rounds without any: 21
/// blocks took 7·39 + 3·24 ticks instead of about 21·13.
#[inline(always)]
pub(super) fn absorb_share(
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    pending: &mut &[u8],
    n: usize,
    r: usize,
) {
    absorb_some(mac, h, pending, n / 10 + usize::from(r < n % 10));
}

/// Absorbs `data` as whole blocks, a partial last block padded with zeros
/// (RFC 8439 §2.8's `pad16`). `data` is associated data or ciphertext,
/// both public: the padded copy is not wiped.
#[inline(always)]
pub(super) fn absorb_padded(mac: &ScalarKey, h: &mut ScalarAcc, data: &[u8]) {
    let whole = data.len() & !15;
    mac.blocks(h, &data[..whole]);
    let tail = &data[whole..];
    if !tail.is_empty() {
        mac.block_value(h, le_partial(tail), 1);
    }
}

/// The tag after the lengths block; wipes `h` and `s`.
#[inline(always)]
pub(super) fn finish(
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    s: &mut u128,
    aad_len: usize,
    ct_len: usize,
) -> [u8; 16] {
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(aad_len as u64).to_le_bytes());
    lengths[8..].copy_from_slice(&(ct_len as u64).to_le_bytes());
    mac.block(h, &lengths, 1);
    let t = scalar_finish(h, *s);
    h.zeroize();
    s.zeroize();
    t
}

/// Finishes the MAC and compares it with `tag` in constant time (the x86
/// kernel; `neon.rs` compares out of line, `aead_util::tag_verdict`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn check(
    mac: &ScalarKey,
    h: &mut ScalarAcc,
    s: &mut u128,
    aad_len: usize,
    ct_len: usize,
    tag: &[u8],
) -> bool {
    let mut expected = finish(mac, h, s, aad_len, ct_len);
    let ok = crate::poly1305::tags_equal(&expected, tag);
    crate::wipe::wipe(&mut expected);
    ok
}
