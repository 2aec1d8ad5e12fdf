//! Target features: none (plain Rust, constant time, runs everywhere).
//!
//! # Math
//!
//! Poly1305 (D. J. Bernstein, *The Poly1305-AES message-authentication
//! code*, FSE 2005, §2; RFC 8439 §2.5) evaluates, for a clamped `r` and
//! 16-byte blocks `m₁ … mₙ` each read as a little-endian integer plus
//! `2^128` (a final partial block gets the byte 0x01 after its bytes
//! instead, and nothing at 2^128), the Horner recurrence `h ← (h + mᵢ)·r
//! mod p` with `p = 2^130 − 5`, and outputs `(h mod p) + s mod 2^128`.
//!
//! # Representation
//!
//! The accumulator is three 64-bit limbs `h = h₀ + h₁·2^64 + h₂·2^128`
//! ([`Acc`]), kept only partially reduced. `r = r₀ + r₁·2^64` after
//! clamping has `r₀, r₁ < 2^60` and `4 | r₁`, so with `2^130 ≡ 5`:
//!
//! ```text
//! h·r ≡ (h₀r₀ + h₁·σ₁)                      (σ₁ = r₁ + r₁/4 = 5r₁/4: h₁r₁·2^128 ≡ h₁σ₁)
//!     + (h₀r₁ + h₁r₀ + h₂σ₁)·2^64           (h₂r₁·2^192 ≡ h₂σ₁·2^64)
//!     + (h₂r₀)·2^128
//! ```
//!
//! four of the five products are 64×64 → 128-bit (`u128`), the last fits
//! in 64 bits. Then the limbs are carried, and the bits of limb 2 above
//! 2^130 are folded back: `⌊h₂/4⌋·2^130 ≡ 5·⌊h₂/4⌋`.
//!
//! # Preconditions
//!
//! [`Key::mul`] takes `h₂ < 8` (so `h < 2^131`): then `h₀r₀ + h₁σ₁ <
//! 2^124 + 2^125`, `h₀r₁ + h₁r₀ + h₂σ₁ < 2^126` and `h₂r₀ + carry <
//! 2^64`, no overflow.
//!
//! # Postconditions
//!
//! After [`Key::mul`], `h₂ ≤ 4` (`h < 2^130 + 2^128`); adding a block
//! (`< 2^129`) gives `h₂ ≤ 6 < 8`, the precondition of the next product.
//! [`finish`] reduces fully (`h mod p`, by a masked select, no branch) and
//! adds `s`.
//!
//! # Operation counts
//!
//! Per 16-byte block: four 64×64 → 128 multiplications and one 64×64 →
//! 64, about a dozen additions with carry and four shifts/masks: the
//! radix-2^64 form of poly1305-donna and OpenSSL's scalar code (radix 2^26
//! or 2^44 would need 25 or 9 products). No figure here: see the module
//! docs of `poly1305` for how to measure (`peer-bench --filter poly1305`).
//!
//! Rejected (Zen 3; figures in `docs/notes/poly1305.md`). One chain is
//! latency-bound (≈ 17 cycles a block), but more chains spill:
//!
//! - Three Horner chains over thirds of the input, joined by `(H₁·r^l +
//!   H₂)·r^l + H₃` with `r^l` from a fourth chain — ≈ 60 instructions a
//!   block (the 64×64 products' fixed registers and the 3 × 3 accumulator
//!   limbs spill); 13 % slower at 256 B, 11 % faster a block at 16 KiB.
//! - Two chains over the odd and even blocks with the multiplier `r²` in
//!   radix 2^44 — the two chains' `u128` columns spill; ≈ 40 % slower at
//!   256 B.
//! - The same two chains in radix 2^64 (eight products a block, a second
//!   fold) — slower than one chain at 8 to 32 blocks.
#![forbid(unsafe_code)]

use zeroize::Zeroize;

/// The accumulator `h₀ + h₁·2^64 + h₂·2^128` (partially reduced; see the
/// module docs for its bounds).
pub(crate) type Acc = [u64; 3];

/// A clamped `r`, with `σ₁ = 5·r₁/4` precomputed.
#[derive(Clone)]
pub(crate) struct Key {
    r0: u64,
    r1: u64,
    sigma1: u64,
}

impl Key {
    /// The key `r` (the first 16 bytes of the Poly1305 key `key`; the rest
    /// is not read), clamped as RFC 8439 §2.5 says (`r &=
    /// 0x0ffffffc0ffffffc0ffffffc0fffffff`).
    #[inline]
    pub(crate) fn new(key: &[u8; 32]) -> Key {
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&key[..16]);
        let key = Key::from_r(u128::from_le_bytes(bytes));
        crate::wipe::wipe(&mut bytes);
        key
    }

    /// The key `r` given as the little-endian integer of the key's first
    /// 16 bytes, clamped here.
    pub(crate) fn from_r(r: u128) -> Key {
        let mut r = r & 0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff;
        let (r0, r1) = (r as u64, (r >> 64) as u64);
        r.zeroize();
        Key {
            r0,
            r1,
            sigma1: r1 + (r1 >> 2),
        }
    }

    /// The clamped `r` (the SIMD backends derive their powers from it).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    pub(crate) fn r(&self) -> u128 {
        (self.r1 as u128) << 64 | self.r0 as u128
    }

    /// `h·r mod p`, partially reduced.
    ///
    /// # Preconditions
    /// `h[2] < 8`.
    /// # Postconditions
    /// `h[2] ≤ 4`.
    #[inline(always)]
    pub(crate) fn mul(&self, h: &mut Acc) {
        let [h0, h1, h2] = *h;
        let (r0, r1, s1) = (self.r0 as u128, self.r1 as u128, self.sigma1 as u128);
        let d0 = h0 as u128 * r0 + h1 as u128 * s1;
        let d1 = h0 as u128 * r1 + h1 as u128 * r0 + h2 as u128 * s1 + (d0 >> 64);
        let d2 = h2 * self.r0 + (d1 >> 64) as u64;
        // Fold ⌊d2/4⌋·2^130 ≡ 5·⌊d2/4⌋ = (d2 & !3) + ⌊d2/4⌋, a shift and
        // two additions instead of a multiplication on the carry chain.
        // d2 < 7·2^60 + 2^61.1 < 2^63.3 (h2 < 8; r0, r1 < 2^60), so
        // 5·⌊d2/4⌋ < 2^63.7 fits in 64 bits.
        let fold = (d2 & !3) + (d2 >> 2);
        let t0 = (d0 as u64) as u128 + fold as u128;
        let t1 = (d1 as u64) as u128 + (t0 >> 64);
        *h = [t0 as u64, t1 as u64, (d2 & 3) + (t1 >> 64) as u64];
    }

    /// Absorbs one block: `h ← (h + m + hibit·2^128)·r`.
    ///
    /// # Preconditions
    /// `h[2] ≤ 4` (as [`Key::mul`] leaves it), `hibit ≤ 1`.
    #[inline(always)]
    pub(crate) fn block(&self, h: &mut Acc, block: &[u8; 16], hibit: u64) {
        self.block_value(h, u128::from_le_bytes(*block), hibit);
    }

    /// [`Key::block`] for a block given as its value `m`.
    #[inline(always)]
    pub(crate) fn block_value(&self, h: &mut Acc, m: u128, hibit: u64) {
        let t0 = h[0] as u128 + (m as u64) as u128;
        let t1 = h[1] as u128 + (m >> 64) + (t0 >> 64);
        *h = [t0 as u64, t1 as u64, h[2] + hibit + (t1 >> 64) as u64];
        self.mul(h);
    }

    /// Absorbs the whole 16-byte blocks of `data` (`data.len()` a multiple
    /// of 16), each with the bit 2^128 set.
    #[inline(always)]
    pub(crate) fn blocks(&self, h: &mut Acc, data: &[u8]) {
        debug_assert_eq!(data.len() % 16, 0);
        for chunk in data.chunks_exact(16) {
            let mut b = [0u8; 16];
            b.copy_from_slice(chunk);
            self.block(h, &b, 1);
        }
    }
}

impl super::Backend for Key {
    type Token = ();
    const NAME: &'static str = "portable";

    #[inline]
    fn new((): (), key: &[u8; 32]) -> Key {
        Key::new(key)
    }

    #[inline(always)]
    fn scalar(&self) -> &Key {
        self
    }

    #[inline(always)]
    fn blocks(&mut self, h: &mut Acc, data: &[u8]) {
        Key::blocks(self, h, data);
    }
}

/// Up to two blocks that end a message after its whole blocks, held as
/// values with their 2^128 bits: the one-shot tag's partial block (0x01
/// after its bytes, no 2^128 bit) or the AEAD's zero-padded ciphertext
/// block and length block. The SIMD backends put them in the last group of
/// their vector loop instead of running them through the scalar product
/// after the lanes are combined (one product and one reduction fewer on
/// the tag's dependency chain).
pub(crate) struct Tail {
    blocks: [u128; 2],
    hibits: [u64; 2],
    len: usize,
}

impl Tail {
    /// No blocks.
    pub(crate) fn new() -> Tail {
        Tail {
            blocks: [0; 2],
            hibits: [0; 2],
            len: 0,
        }
    }

    /// Appends the block `m` with 2^128 bit `hibit` (`≤ 1`); a third block
    /// is a caller's bug and is ignored in release builds.
    pub(crate) fn push(&mut self, m: u128, hibit: u64) {
        debug_assert!(self.len < 2 && hibit <= 1);
        if let (Some(b), Some(h)) = (self.blocks.get_mut(self.len), self.hibits.get_mut(self.len)) {
            *b = m;
            *h = hibit;
            self.len += 1;
        }
    }

    /// The blocks and their 2^128 bits, in order.
    pub(crate) fn blocks(&self) -> impl Iterator<Item = (u128, u64)> + '_ {
        self.blocks
            .iter()
            .copied()
            .zip(self.hibits.iter().copied())
            .take(self.len)
    }

    /// How many blocks (0 to 2).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Absorbs the blocks one by one (the scalar path).
    pub(crate) fn absorb(&self, key: &Key, h: &mut Acc) {
        for (m, hibit) in self.blocks() {
            key.block_value(h, m, hibit);
        }
    }
}

impl Drop for Tail {
    fn drop(&mut self) {
        crate::wipe::wipe(&mut self.blocks);
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        self.r0.zeroize();
        self.r1.zeroize();
        self.sigma1.zeroize();
    }
}

#[cfg(test)]
impl crate::test_util::SecretSpans for Key {
    fn secret_spans(&self, s: &mut crate::test_util::Spans) {
        s.secret("r0", &self.r0);
        s.secret("r1", &self.r1);
        s.secret("sigma1", &self.sigma1);
    }
}

/// `h mod p` as a `u128` and the top two bits (`< 4`), fully reduced.
///
/// # Preconditions
/// `h[2] < 8`.
#[inline]
pub(crate) fn freeze(h: &Acc) -> (u128, u64) {
    // Fold the bits above 2^130 once: h < 2^130 + 10 afterwards.
    let fold = (h[2] >> 2) as u128 * 5;
    let t0 = h[0] as u128 + fold;
    let t1 = h[1] as u128 + (t0 >> 64);
    let (h0, h1, h2) = (t0 as u64, t1 as u64, (h[2] & 3) + (t1 >> 64) as u64);
    // g = h + 5 − 2^130: h ≥ p exactly when h + 5 reaches 2^130, i.e.
    // bit 2 of g₂; then h − p = g mod 2^130 (h < 2p, one subtraction).
    let g0 = h0 as u128 + 5;
    let g1 = h1 as u128 + (g0 >> 64);
    let g2 = h2 + (g1 >> 64) as u64;
    let use_g = 0u64.wrapping_sub(g2 >> 2); // all ones iff h ≥ p
    let lo = (h0 & !use_g) | (g0 as u64 & use_g);
    let mid = (h1 & !use_g) | (g1 as u64 & use_g);
    let top = (h2 & !use_g) | (g2 & 3 & use_g);
    ((mid as u128) << 64 | lo as u128, top)
}

/// The tag `(h mod p) + s mod 2^128`, little-endian.
#[inline]
pub(crate) fn finish(h: &Acc, s: u128) -> [u8; 16] {
    let (mut v, _) = freeze(h);
    let tag = v.wrapping_add(s).to_le_bytes();
    v.zeroize();
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `h` as a fully reduced number below 2^130 (for comparisons).
    fn value(h: &Acc) -> (u128, u64) {
        freeze(h)
    }

    #[test]
    fn freeze_handles_the_edges_of_p() {
        // p − 1, p, p + 1, 2^130 + 9 (the largest after the first fold).
        let p_lo = u64::MAX - 4;
        assert_eq!(
            freeze(&[p_lo - 1, u64::MAX, 3]),
            ((u64::MAX as u128) << 64 | (p_lo - 1) as u128, 3)
        );
        assert_eq!(freeze(&[p_lo, u64::MAX, 3]), (0, 0));
        assert_eq!(freeze(&[p_lo + 1, u64::MAX, 3]), (1, 0));
        assert_eq!(freeze(&[9, 0, 4]), (14, 0));
        // 2^131 − 1 ≡ 2^130 + 4 ≡ 9.
        assert_eq!(freeze(&[u64::MAX, u64::MAX, 7]), (9, 0));
        assert_eq!(value(&[0, 0, 0]), (0, 0));
    }
}
