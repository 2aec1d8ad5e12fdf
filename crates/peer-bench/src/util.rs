//! Helpers the groups and the system-peer bindings share: the seeded input
//! generator, word buffers placed at fixed offsets from a page, and the
//! constant-length copy of a chained call. Nothing here names another
//! module of the crate, so every module may use it.

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
