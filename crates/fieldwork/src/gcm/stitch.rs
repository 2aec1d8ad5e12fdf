//! What the three stitched AES-GCM kernels ([`super::vaes512`],
//! [`super::vaes256`], [`super::aesni`]) share besides the GHASH sums
//! (which live in `crate::ghash::aggregate`): the per-key power table, the
//! counter-mode round-1 table, the reduction-unit schedule of their loops,
//! and the tag.
//!
//! # The round-1 table
//!
//! AES round 1 (AddRoundKey 0, SubBytes, ShiftRows, MixColumns,
//! AddRoundKey 1) is `L(S(C ⊕ k₀)) ⊕ k₁` with `S` byte by byte and `L`
//! (MixColumns ∘ ShiftRows) linear. For two counter blocks `C`, `D` that
//! differ only in their last byte, `round1(C) ⊕ round1(D) = round1[C₁₅] ⊕
//! round1[D₁₅]`, where `round1[b]` is round 1 of the block `0¹⁵ ‖ b`. So
//! within a run of 256 counter blocks, round 1 of block `C` is the run's
//! base `round1(D) ⊕ round1[D₁₅]` XORed with `round1[C₁₅]`: the vector
//! kernels start AES at round 2 with one XOR per register, loading the
//! table at the public counter's last byte (no secret-dependent address),
//! where the counter advance and round 1 took two operations, one of them
//! an AES round on the port that bounds the loop. (Counter-mode caching of
//! the first round, as surveyed by Bernstein & Schwabe, "New AES software
//! speed records", INDOCRYPT 2008.)
// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// indices are loop counters over the fixed power and round-1 tables (`POWERS`, `ROUND1` entries).
#![allow(clippy::indexing_slicing)]
#![allow(unsafe_code)]

use crate::aes::RoundKeys;
use crate::cpu::Clmul;
use zeroize::Zeroize;

/// Entries of the power table: `H^32 … H^1`, then four zeros so that a
/// group's last register may read past `H^1`.
pub(super) const TABLE: usize = 36;

/// The power table: `table[i]` = the dot-power of `H^(32−i)` for `i < 32`
/// (so `H^n … H^1` are its entries `32 − n … 31`), zeros after, from the
/// ascending powers `H^1 … H^32`.
pub(super) fn power_table(powers: &[u128; 32]) -> [u128; TABLE] {
    let mut t = [0u128; TABLE];
    for (i, v) in t.iter_mut().take(32).enumerate() {
        *v = powers[31 - i];
    }
    t
}

/// The GHASH key of the AES key `rk`: `H = AES(K, 0^128)` in POLYVAL's
/// domain ([`crate::ghash::gcm_key`]); the block is wiped.
pub(super) fn hash_key(t: crate::cpu::AesClmul, rk: &RoundKeys) -> u128 {
    let mut h = [0u8; 16];
    crate::aes::aesni::encrypt_blocks(t, rk, core::slice::from_mut(&mut h));
    let key = crate::ghash::gcm_key(&h);
    h.zeroize();
    key
}

/// GHASH of `data` (zero-padded) into `acc` with the power table's `H^1 …
/// H^8`: `J0` of an IV other than 96 bits (a path no bulk data takes).
pub(super) fn ghash_padded(t: Clmul, table: &[u128; TABLE], acc: u128, data: &[u8]) -> u128 {
    let mut ascending: [u128; 8] = core::array::from_fn(|i| table[31 - i]);
    let acc = crate::ghash::gcm_update_clmul(t, &ascending, acc, data);
    ascending.zeroize();
    acc
}

/// Blocks per loop iteration of the zmm and ymm kernels.
pub(super) const STEP_BLOCKS: usize = 16;

/// The most bytes the xmm and ymm kernels' tail functions take: the
/// short-message path's 256 bytes of associated data or text, and a
/// loop's last `STEP − 1` bytes (each kernel asserts `STEP ≤ TAIL`).
pub(super) const TAIL: usize = 256;

/// Entries of the counter-mode round-1 table (module docs): one per value
/// of a counter block's last byte.
pub(super) const ROUND1: usize = 256;

/// Whether the round-1 table serves the `STEP_BLOCKS` counters from the
/// public counter `n`: their last byte runs from `n mod 256` up without
/// wrapping, so their other fifteen bytes are all those of `n`'s block.
#[inline(always)]
pub(super) fn round1_cached(n: u32) -> bool {
    (n & 0xff) as usize <= ROUND1 - STEP_BLOCKS
}

/// The counter blocks' 256-block run (bytes 0–14, i.e. the counter without
/// its last byte) that `n` lies in: the round-1 base is per run.
#[inline(always)]
pub(super) fn round1_run(n: u32) -> u32 {
    n >> 8
}

/// The round-1 base of the run of counter `n`: AES round 1 of its counter
/// block (`J0`'s first twelve bytes, `n` big-endian; `j0` holds `J0`'s
/// bytes little-endian) XORed with `round1[n mod 256]`, so that round 1 of
/// any block `C` of the run is `base ⊕ round1[C₁₅]` (module docs).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) fn round1_base(rk: &RoundKeys, round1: &[u128; ROUND1], j0: u128, n: u32) -> u128 {
    crate::aes::aesni::round1(rk, counter_block_le(j0, n)) ^ round1[(n & 0xff) as usize]
}

/// The counter block of the public counter `n`: `J0`'s first twelve bytes,
/// then `n` big-endian (`j0` and the result hold the bytes little-endian).
#[inline(always)]
pub(super) fn counter_block_le(j0: u128, n: u32) -> u128 {
    (j0 & (u128::MAX >> 32)) | (u128::from(n.swap_bytes()) << 96)
}

/// The tag bytes from the hash `s` in POLYVAL's (byte-reversed) domain
/// and `AES(K, J0)` read little-endian: `AES(K, J0) ⊕ GHASH`, in GCM's
/// byte order.
#[inline(always)]
pub(super) fn tag_bytes(s: u128, tag_mask: u128) -> [u8; 16] {
    (s.swap_bytes() ^ tag_mask).to_le_bytes()
}

/// Groups in a stitched loop's last reduction unit (at most): it meets
/// [`power_table`]'s per-lane powers `H^32 … H^1`, and no kernel's two
/// groups need more.
pub(super) const LAST_UNIT: usize = 2;

/// Where the stitched kernels' next loop group stands among the reduction
/// units. A loop's last unit is its last [`LAST_UNIT`] groups (or all of
/// them, if fewer); the groups before it form units of up to `unit`
/// groups, the first taking the remainder. A group with `k` groups of its
/// unit still to come (itself included) meets the powers that end `k`
/// groups before its table's end, so a unit's last group always meets the
/// lowest powers and ends with a reduction. The ymm and AES-NI kernels
/// reduce in pairs (`unit` 2, one table); the zmm kernel's units before
/// the last are up to four groups with uniform powers.
pub(super) struct Units {
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
pub(super) struct Place {
    /// It starts a unit: empty sums, the accumulator enters.
    pub(super) starts: bool,
    /// It closes its unit: a reduction after it.
    pub(super) closes: bool,
    /// It belongs to the loop's last unit.
    pub(super) last: bool,
    /// Groups of its unit still to come, itself included (1 … unit).
    pub(super) in_unit: usize,
}

impl Place {
    /// The first power index of a group of `group` blocks in units of at
    /// most two groups (the ymm and AES-NI kernels; the power table's last
    /// `2·group` entries): a select between two constant indices, so that
    /// the power loads' addresses fold (computing `32 − group·in_unit` cost
    /// the ymm loop ≈ 6 % and the AES-NI loop ≈ 20 %).
    #[inline(always)]
    pub(super) fn pair_at(&self, group: usize) -> usize {
        if self.in_unit == 2 {
            32 - 2 * group
        } else {
            32 - group
        }
    }
}

impl Units {
    /// Units for `groups` groups, up to `unit` per unit before the last.
    pub(super) fn new(groups: usize, unit: usize) -> Units {
        Units {
            left: groups,
            in_unit: 0,
            next_size: groups.saturating_sub(LAST_UNIT + 1) % unit + 1,
            unit,
        }
    }

    /// The place of the next group.
    pub(super) fn next(&mut self) -> Place {
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

#[cfg(test)]
mod tests {
    use super::{ROUND1, round1_base};
    use crate::aes::aesni;

    /// The round-1 table's identity (module docs): AES round 1 of any
    /// counter block equals the base of its run XORed with the table entry
    /// of its last byte, whichever block of the run the base came from;
    /// and a base from another run does not fit.
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
