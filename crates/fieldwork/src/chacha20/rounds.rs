//! Target features: none of its own — the round structure of the
//! word-sliced vector kernels, written once over [`Words`], a vector of
//! 32-bit words that `avx2.rs` (ymm, 8 lanes) and `avx512.rs` (zmm, 16
//! lanes) and `neon.rs` (q registers, 4 lanes, and pairs of them for 8)
//! implement with their instructions. Everything here is
//! `#[inline(always)]` and takes its vectors by value: it compiles into
//! those backends' `#[target_feature]` entry points, instruction for
//! instruction the code each backend had written out for itself.
//!
//! # Math
//!
//! A quarter-round on words `a, b, c, d` (RFC 8439 §2.1): `a += b; d ^=
//! a; d <<<= 16; c += d; b ^= c; b <<<= 12; a += b; d ^= a; d <<<= 8; c
//! += d; b ^= c; b <<<= 7`. [`quarter_rounds`] runs `N` independent ones
//! interleaved step by step (each step for every quarter-round before the
//! next step), so that their dependency chains overlap: four at a time for
//! a column or diagonal pass of the word-sliced state, two at a time where
//! the stitched AEAD interleaves scalar Poly1305 work (fewer live rows),
//! and one per horizontal state (`avx2.rs`).
//!
//! # Representation
//!
//! Word-sliced ([`word_sliced`]): row `i` of 16 holds word `i` of
//! `LANES` consecutive blocks, block `counter + j` in lane `j`; the
//! counter is the only input word that differs between lanes (wrapping as
//! RFC 8439's 32-bit counter does). [`interleave`] is the first half of
//! the transposition back to block order (`vpunpck{l,h}dq`,
//! `vpunpck{l,h}qdq`: 128-bit lanes of four consecutive words of one
//! block); each backend finishes it with its own lane shuffles.

// Indexing is bounded by construction (issue 27's indexing_slicing lint):
// row indices are constants (the quarter-rounds' rows, 0 to 15, and the
// states' rows, 0 to 3) into fixed 16-row and 4-row arrays.
#![allow(clippy::indexing_slicing)]

use super::lanes::input;

/// A vector of 32-bit words, the operations of the round structure.
///
/// Implemented only for `__m256i` (`avx2.rs`), `__m512i` (`avx512.rs`),
/// and on AArch64 `uint32x4_t`, `neon::Pair`, `neon::Plus1` (`neon.rs`)
/// and `sve2::Sve2Rows` (`sve2.rs`), and reached
/// only from those files' `#[target_feature]` entry points, which hold the
/// capability token (`cpu::Avx2`, `cpu::Avx512`, `cpu::Neon`); each
/// implementation's `unsafe` relies on that.
pub(super) trait Words: Copy {
    /// What the rotations need besides the vector: the byte-shuffle masks
    /// of the 16- and 8-bit rotations on AVX2, nothing on AVX-512.
    type Rot: Copy;

    /// `w` in every lane.
    fn splat(w: u32) -> Self;

    /// `0, 1, 2, …` (the lanes' block offsets).
    fn lane_offsets() -> Self;

    /// Lane-wise wrapping addition.
    fn add(self, b: Self) -> Self;

    /// `(self ^ b) <<< L` in every lane, `L` one of 16, 12, 8, 7.
    fn xor_rotl<const L: i32>(self, b: Self, rot: Self::Rot) -> Self;

    /// `vpunpckldq`: the low two words of each 128-bit lane of `self` and
    /// `b`, interleaved.
    fn unpack_lo32(self, b: Self) -> Self;

    /// `vpunpckhdq`.
    fn unpack_hi32(self, b: Self) -> Self;

    /// `vpunpcklqdq`.
    fn unpack_lo64(self, b: Self) -> Self;

    /// `vpunpckhqdq`.
    fn unpack_hi64(self, b: Self) -> Self;

    /// Whether [`Words::fused_rounds`] runs the ten double rounds of
    /// [`word_sliced`] (a type with one kernel for all of them:
    /// `sve2::Sve2Rows`); false, the default, runs the round structure
    /// below. A constant, so each instantiation keeps one of the two.
    const FUSED_ROUNDS: bool = false;

    /// ChaCha20's ten double rounds on the 16 rows, for a type with
    /// [`Words::FUSED_ROUNDS`]; the default does nothing and is never
    /// called.
    #[inline(always)]
    fn fused_rounds(x: &mut [Self; 16]) {
        let _ = x;
    }
}

/// The [`Words`] methods that are one intrinsic of two vectors, written
/// once for both implementations, whose docs say why the intrinsics'
/// features are available.
macro_rules! binary_words {
    ($($name:ident => $intrinsic:ident),+ $(,)?) => {$(
        #[inline(always)]
        fn $name(self, b: Self) -> Self {
            // SAFETY: the features are available: only the backend's
            // entry points, which hold its token, reach here (see the
            // impl's docs).
            unsafe { $intrinsic(self, b) }
        }
    )+};
}
pub(super) use binary_words;

/// `N` quarter-rounds on the rows `q[k]` of `x`, interleaved step by step.
#[inline(always)]
pub(super) fn quarter_rounds<V: Words, const N: usize>(
    x: &mut [V],
    q: [[usize; 4]; N],
    rot: V::Rot,
) {
    half_round::<V, N, 16, 12>(x, q, rot);
    half_round::<V, N, 8, 7>(x, q, rot);
}

/// The first (`D`, `B` = 16, 12) or second (8, 7) half of `N`
/// quarter-rounds: `a += b; d ^= a; d <<<= D; c += d; b ^= c; b <<<= B`.
#[inline(always)]
fn half_round<V: Words, const N: usize, const D: i32, const B: i32>(
    x: &mut [V],
    q: [[usize; 4]; N],
    rot: V::Rot,
) {
    for [a, b, _, _] in q {
        x[a] = x[a].add(x[b]);
    }
    for [a, _, _, d] in q {
        x[d] = x[d].xor_rotl::<D>(x[a], rot);
    }
    for [_, _, c, d] in q {
        x[c] = x[c].add(x[d]);
    }
    for [_, b, c, _] in q {
        x[b] = x[b].xor_rotl::<B>(x[c], rot);
    }
}

/// Two quarter-rounds, on rows `p` and `q`, interleaved: [`quarter_rounds`]
/// for `N` = 2 without the loops (through them, the stitched AEAD's
/// kernels, which run two at a time, were allocated registers differently:
/// 10–15 % more stack accesses).
#[inline(always)]
fn quarter2<V: Words>(x: &mut [V; 16], p: [usize; 4], q: [usize; 4], rot: V::Rot) {
    half2::<V, 16, 12>(x, p, q, rot);
    half2::<V, 8, 7>(x, p, q, rot);
}

/// Half of [`quarter2`], as [`half_round`].
#[inline(always)]
fn half2<V: Words, const D: i32, const B: i32>(
    x: &mut [V; 16],
    [a, b, c, d]: [usize; 4],
    [e, f, g, h]: [usize; 4],
    rot: V::Rot,
) {
    x[a] = x[a].add(x[b]);
    x[e] = x[e].add(x[f]);
    x[d] = x[d].xor_rotl::<D>(x[a], rot);
    x[h] = x[h].xor_rotl::<D>(x[e], rot);
    x[c] = x[c].add(x[d]);
    x[g] = x[g].add(x[h]);
    x[b] = x[b].xor_rotl::<B>(x[c], rot);
    x[f] = x[f].xor_rotl::<B>(x[g], rot);
}

/// One quarter-round on the four rows of each of `S` states (the
/// horizontal layout of `avx2.rs`), the states interleaved step by step:
/// [`quarter_rounds`] with the states' rows as the quarter-rounds' (through
/// the general function, over the states flattened, the stitched AEAD's
/// kernels were allocated registers differently).
#[inline(always)]
pub(super) fn quarter_states<V: Words, const S: usize>(st: &mut [[V; 4]; S], rot: V::Rot) {
    half_states::<V, S, 16, 12>(st, rot);
    half_states::<V, S, 8, 7>(st, rot);
}

/// Half of [`quarter_states`], as [`half_round`].
#[inline(always)]
fn half_states<V: Words, const S: usize, const D: i32, const B: i32>(
    st: &mut [[V; 4]; S],
    rot: V::Rot,
) {
    for s in st.iter_mut() {
        s[0] = s[0].add(s[1]);
    }
    for s in st.iter_mut() {
        s[3] = s[3].xor_rotl::<D>(s[0], rot);
    }
    for s in st.iter_mut() {
        s[2] = s[2].add(s[3]);
    }
    for s in st.iter_mut() {
        s[1] = s[1].xor_rotl::<B>(s[2], rot);
    }
}

/// The keystream of the blocks from `counter`, one per lane,
/// word-sliced: lane `j` of row `i` is word `i` of block `counter + j`.
/// The double rounds take their quarter-rounds four at a time (`FOUR`) or
/// two at a time, and `between(r)` runs after double round `r` (0 to 9):
/// the slot where a stitched kernel puts scalar work.
#[inline(always)]
pub(super) fn word_sliced<V: Words, const FOUR: bool>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    rot: V::Rot,
    between: impl FnMut(usize),
) -> [V; 16] {
    word_sliced_hooked::<V, FOUR, 10, false>(key, nonce, counter, rot, between)
}

/// [`word_sliced`] with `between(r)` run after the first `HOOKED` double
/// rounds only (`r` < `HOOKED` ≤ 10): two loops, the hooked rounds then
/// the bare ones, so a hook whose work is fixed per round (a stitched
/// kernel's whole group) carries no runtime test of `r` and its index is
/// known in bounds (issue 59: the test and the bounds check cost the
/// AArch64 stitched kernel 4–6 instructions a double round). With
/// `PAIRED` (`HOOKED` even) the hooked loop takes two double rounds an
/// iteration: half its control, and an iteration's MAC blocks at fixed
/// offsets from one address. `between` then has two call sites, which
/// LLVM may compile out of line if it is large: pair only a hook that
/// stays inline (measured: a group's 2 blocks did, opening's 3 did not).
#[inline(always)]
pub(super) fn word_sliced_hooked<
    V: Words,
    const FOUR: bool,
    const HOOKED: usize,
    const PAIRED: bool,
>(
    key: &[u32; 8],
    nonce: &[u32; 3],
    counter: u32,
    rot: V::Rot,
    mut between: impl FnMut(usize),
) -> [V; 16] {
    let init = input(key, nonce, counter);
    // The offsets first, then the counter: the order of the kernels'
    // code before they were one source (another order changed the AVX2
    // kernel's register allocation: 4 more moves and 2 more stack
    // accesses a double round).
    let lanes = V::lane_offsets();
    let counters = V::splat(counter).add(lanes);
    // An array literal: not `array::from_fn` (its closure lost the target
    // features and its intrinsics became calls when LLVM did not inline
    // it), and not a loop over `[counters; 16]`, which cost the AVX2
    // kernel alone 18 % (16 KiB at 0.93 against 0.78 TSC ticks/byte on Zen
    // 3, `peer-bench --filter chacha20`; the stitched AEAD did not move).
    let i = &init;
    let mut x = [
        V::splat(i[0]),
        V::splat(i[1]),
        V::splat(i[2]),
        V::splat(i[3]),
        V::splat(i[4]),
        V::splat(i[5]),
        V::splat(i[6]),
        V::splat(i[7]),
        V::splat(i[8]),
        V::splat(i[9]),
        V::splat(i[10]),
        V::splat(i[11]),
        counters,
        V::splat(i[13]),
        V::splat(i[14]),
        V::splat(i[15]),
    ];
    // The rows as literals, not named constants: through constants LLVM
    // ordered the AVX2 kernel's double round differently (4 more register
    // moves and 2 more stack accesses a double round).
    if V::FUSED_ROUNDS {
        V::fused_rounds(&mut x);
    } else {
        let paired = if PAIRED { HOOKED / 2 * 2 } else { 0 };
        let mut r = 0;
        while r < paired {
            double_round::<V, FOUR>(&mut x, rot);
            between(r);
            double_round::<V, FOUR>(&mut x, rot);
            between(r + 1);
            r += 2;
        }
        for r in paired..HOOKED {
            double_round::<V, FOUR>(&mut x, rot);
            between(r);
        }
        for _ in HOOKED..10 {
            double_round::<V, FOUR>(&mut x, rot);
        }
    }
    for (i, row) in x.iter_mut().enumerate() {
        let start = if i == 12 { counters } else { V::splat(init[i]) };
        *row = row.add(start);
    }
    x
}

/// One double round of the word-sliced state `x`: the quarter-rounds
/// four at a time (`FOUR`) or two at a time.
#[inline(always)]
fn double_round<V: Words, const FOUR: bool>(x: &mut [V; 16], rot: V::Rot) {
    if FOUR {
        quarter_rounds(
            x,
            [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
            rot,
        );
        quarter_rounds(
            x,
            [[0, 5, 10, 15], [1, 6, 11, 12], [2, 7, 8, 13], [3, 4, 9, 14]],
            rot,
        );
    } else {
        quarter2(x, [0, 4, 8, 12], [1, 5, 9, 13], rot);
        quarter2(x, [2, 6, 10, 14], [3, 7, 11, 15], rot);
        quarter2(x, [0, 5, 10, 15], [1, 6, 11, 12], rot);
        quarter2(x, [2, 7, 8, 13], [3, 4, 9, 14], rot);
    }
}

/// The first half of the transposition of the word-sliced keystream `ks`
/// to block order: `u[m][g]`, 128-bit lane `l`, holds words `4g … 4g + 3`
/// of block `4l + m` (16 unpacks).
#[inline(always)]
pub(super) fn interleave<V: Words>(ks: &[V; 16]) -> [[V; 4]; 4] {
    let mut u = [[ks[0]; 4]; 4];
    for g in 0..4 {
        let (a, b, c, d) = (ks[4 * g], ks[4 * g + 1], ks[4 * g + 2], ks[4 * g + 3]);
        let t0 = a.unpack_lo32(b);
        let t1 = a.unpack_hi32(b);
        let t2 = c.unpack_lo32(d);
        let t3 = c.unpack_hi32(d);
        u[0][g] = t0.unpack_lo64(t2);
        u[1][g] = t0.unpack_hi64(t2);
        u[2][g] = t1.unpack_lo64(t3);
        u[3][g] = t1.unpack_hi64(t3);
    }
    u
}
