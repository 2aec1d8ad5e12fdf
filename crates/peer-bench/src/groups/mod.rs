//! The comparisons, one module per operation. Each builds its cases and
//! first checks that every implementation computes the same result as ours
//! on random inputs, so a table never compares different operations. Where
//! the peers compute a different function of the same kind (`kummer`: X25519
//! against our Kummer-surface DH), each is checked against published vectors
//! instead.

pub mod chachapoly;
pub mod clmul64;
pub mod gcm;
pub mod gcm_siv;
pub mod gf2m;
pub mod gf2x_mul;
pub mod ghash;
pub mod kummer;
#[cfg(feature = "system-peers")]
pub mod libgf2x;
pub mod normal;
pub mod poly1305;
pub mod sufan;

use crate::harness::Case;

/// A small seeded generator for benchmark inputs (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Word buffers of a chained product (operands, product, scratch) in one
/// allocation from a page boundary, each from a cache line of its own, in
/// order: their addresses relative to each other and to a page are the
/// same in every run. With a vector each, they landed wherever the
/// allocator's history put them, and a row measured differently in the
/// full page and under `--filter` (Zen 3: the 7-word product 89 against
/// 79 cycles, with the same binary; placed, 80.9 and 80.6). The mechanism
/// was not traced; 4 KiB aliasing between one call's stores and the next
/// call's loads is the likely one.
pub struct PlacedWords {
    store: Vec<u64>,
    start: usize,
    /// Each part's length; each starts on a cache line ([`line_words`]).
    lens: Vec<usize>,
}

/// `len` words rounded up to whole 64-byte cache lines.
fn line_words(len: usize) -> usize {
    len.div_ceil(8) * 8
}

impl PlacedWords {
    /// The parts, each a copy of its initial contents.
    pub fn new(parts: &[&[u64]]) -> PlacedWords {
        let total: usize = parts.iter().map(|p| line_words(p.len())).sum();
        let mut store = vec![0u64; total + 512];
        let start = (512 - (store.as_ptr() as usize / 8) % 512) % 512;
        let mut at = start;
        for p in parts {
            store[at..at + p.len()].copy_from_slice(p);
            at += line_words(p.len());
        }
        PlacedWords {
            store,
            start,
            lens: parts.iter().map(|p| p.len()).collect(),
        }
    }

    /// The `N` parts (`N` as many as were placed), mutable.
    pub fn parts<const N: usize>(&mut self) -> [&mut [u64]; N] {
        assert_eq!(N, self.lens.len(), "PlacedWords: wrong part count");
        let mut rest = &mut self.store[self.start..];
        let mut out: [&mut [u64]; N] = std::array::from_fn(|_| <&mut [u64]>::default());
        for (slot, &len) in out.iter_mut().zip(&self.lens) {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(line_words(len));
            *slot = &mut head[..len];
            rest = tail;
        }
        out
    }
}

/// `a.copy_from_slice(&src[..a.len()])`, the feedback of a chained call,
/// with the length a compile-time constant up to 16 words: a runtime-length
/// copy is a `memcpy` call of about 6–10 ticks, as much as the 1–5-word
/// products being timed, and it would hide the differences between them
/// (measured 2026-11-21: gf2x's 1-word product 19.2 ticks chained by
/// `memcpy`, 13.9 by a constant-length copy). Every implementation of a
/// chained row uses this, ours and the peers alike.
#[inline(always)]
pub fn chain_copy(a: &mut [u64], src: &[u64]) {
    macro_rules! fixed {
        ($($n:literal)*) => {
            match a.len() {
                $($n => a[..$n].copy_from_slice(&src[..$n]),)*
                n => a.copy_from_slice(&src[..n]),
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16)
}

/// Lower-case hex to bytes, at compile time.
pub const fn hex<const N: usize>(s: &str) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("not a lower-case hex digit"),
        }
    }
    let b = s.as_bytes();
    assert!(b.len() == 2 * N, "wrong hex length");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

/// Bytes as lower-case hex, for mismatch messages.
pub fn hexed(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Builds a group's cases (after checking the peers agree with us).
pub type CaseBuilder = fn() -> Result<Vec<Case>, String>;

/// Every group's name and case builder, in report order.
pub const GROUPS: &[(&str, CaseBuilder)] = &[
    ("clmul64", clmul64::cases),
    ("gf2x_mul", gf2x_mul::cases),
    ("sufan", sufan::cases),
    #[cfg(feature = "system-peers")]
    ("libgf2x", libgf2x::cases),
    ("gf2m", gf2m::cases),
    ("normal", normal::cases),
    ("kummer", kummer::cases),
    ("ghash", ghash::cases),
    ("gcm", gcm::cases),
    ("gcm_siv", gcm_siv::cases),
    ("poly1305", poly1305::cases),
    ("chacha20", chachapoly::keystream_cases),
    ("chachapoly", chachapoly::cases),
];
