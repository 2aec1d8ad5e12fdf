//! GF(2^233) (x^233 + x^74 + 1) on 128-bit digits: an element is two xmm
//! registers, words 0–1 and 2–3, for the PCLMULQDQ and VPCLMULQDQ backends'
//! product, square and square root (`FieldKernel::clmul`).
//!
//! The representation, the product's shape and its reduction are Pornin's
//! GF(2^233) code for xsk233 (ePrint 2022/1325, and c-xs233's `gf233.h`):
//! one Karatsuba level over 128-bit halves with the three middle terms
//! summed before they are shifted, two folds through
//! x^256 ≡ x^97 + x^23 (the top digit, then words 4–5), and the square
//! root by gathering even and odd bits in lanes. Written here from that
//! description. Every fieldwork element is fully reduced, where
//! c-xs233's stop at 256 bits: the product adds a last fold of bits
//! 233–255 (o to o + o·x^74), and pays for it by fusing the folds with
//! the product's assembly (terms bound for the same lanes are summed
//! before one shuffle moves them). The square keeps [`reduce`], a
//! one-pass full reduction of our own (five terms of D mod f taken side
//! by side); the square root, whose unreduced value has no top digit,
//! needs one fold and the fold of bits 233–255 beside it.
//!
//! # Cost
//!
//! - Product: 12 PCLMULQDQ (three 128×128 schoolbook products), then
//!   assembly and reduction together: 10 word shifts, 5 shuffles (byte
//!   shifts, `palignr`, `punpckhqdq`), 1 AND, 26 XORs (one of them
//!   b0 + b1, hoisted out of a chain with a fixed factor): 54 operations,
//!   against 61 for the separate assembly and [`reduce`] it replaced.
//! - Square: 4 PCLMULQDQ (each word with itself), then [`reduce`]: 5
//!   shuffles, 10 word shifts, 2 ANDs, about 12 XORs; depth about 6 after
//!   the last PCLMULQDQ.
//! - Square root: 12 mask/shift/XOR steps and 2 `pshufb` per half to
//!   gather e and o (128 bits each), 8 PCLMULQDQ for √x·o (o below
//!   2^116, √x two digits), then 6 word shifts, 5 shuffles, 1 AND and
//!   10 XORs to assemble and reduce.
//!
//! A chained product is bound by both latency and ports (measured on an
//! Intel Xeon, Emerald Rapids: PCLMULQDQ 3 cycles, one a cycle, on the
//! port that alone runs `palignr`; byte shifts, `punpckhqdq` and `pshufd`
//! on two ports, word shifts on two, XORs on three): twelve PCLMULQDQ
//! issue one a cycle, the last returns three cycles later, and the about
//! 40 other operations share the three ports. Versions that cut the
//! depth after the last PCLMULQDQ with more operations (folding G's three
//! terms on their own beside a reduction of E and F; the fold of bits
//! 233–255 computed beside the others instead of after them) were slower
//! there; so were versions with fewer PCLMULQDQ and more XORs. With the
//! operations fixed, the order LLVM emits them in decides which ready
//! operation takes a port first, and LLVM follows the source's statement
//! order and grouping closely: the product's order was found by a search
//! over orders and groupings (9 % on a chained product, 10 % on a
//! chained square root), the square's reduction follows gcc's schedule of
//! it (5 %); see [`mul`].
//!
//! Rejected (same Xeon): empty `asm!` fences forcing an issue order of
//! the PCLMULQDQ (slower than the searched order); `shufpd` for
//! `palignr`, to spare PCLMULQDQ's port (LLVM emits `palignr` again).
//!
//! Rejected: Karatsuba inside the 128×128 products (9 PCLMULQDQ): slower
//! in Zen 3's chains of squares and products, 3.5 % faster in an Intel
//! Xeon's chain of products once, slower there now (tried with the old
//! reduction and with the two folds); not kept without a per-CPU table.
//! Measured history: `docs/notes/gf2m.md`.
#![allow(unsafe_code)]

use crate::cpu::Clmul;
use core::arch::x86_64::{
    __m128i, _mm_alignr_epi8, _mm_and_si128, _mm_clmulepi64_si128, _mm_loadu_si128, _mm_set_epi64x,
    _mm_set1_epi8, _mm_shuffle_epi8, _mm_slli_epi64, _mm_slli_si128, _mm_srli_epi64,
    _mm_srli_si128, _mm_storeu_si128, _mm_unpackhi_epi64, _mm_xor_si128,
};

/// Words 0–1 and 2–3 of an element (or of a 256-bit partial result).
#[derive(Clone, Copy)]
struct Pair(__m128i, __m128i);

// SAFETY (every `unsafe` block below): the `Clmul` token, taken by every
// entry, proves PCLMULQDQ and SSE4.1 (SSSE3's `palignr` with them); the
// rest is SSE2, in the x86-64 baseline. Loads and stores are unaligned and
// inside the `[u64; 4]` they name.

#[inline(always)]
fn xor(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_xor_si128(a, b) }
}

#[inline(always)]
fn load(a: &[u64; 4]) -> Pair {
    // SAFETY: see above; 32 bytes at `a`.
    unsafe {
        let p = a.as_ptr().cast::<__m128i>();
        Pair(_mm_loadu_si128(p), _mm_loadu_si128(p.add(1)))
    }
}

#[inline(always)]
fn store(r: Pair) -> [u64; 4] {
    let mut out = [0u64; 4];
    // SAFETY: see above; 32 bytes at `out`.
    unsafe {
        let p = out.as_mut_ptr().cast::<__m128i>();
        _mm_storeu_si128(p, r.0);
        _mm_storeu_si128(p.add(1), r.1);
    }
    out
}

/// `$f::<$n>($x)`: one immediate-count shift intrinsic — `_mm_srli_si128` /
/// `_mm_slli_si128` (`vpsrldq`/`vpslldq`: the whole register by `8·n` bits)
/// or `_mm_srli_epi64` / `_mm_slli_epi64` (`psrlq`/`psllq`: each 64-bit
/// word by `n`).
macro_rules! shift_imm {
    ($f:ident, $x:expr, $n:literal) => {
        // SAFETY: see above.
        unsafe { $f::<$n>($x) }
    };
}

#[inline(always)]
fn clmul<const IMM: i32>(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_clmulepi64_si128::<IMM>(a, b) }
}

#[inline(always)]
fn and(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_and_si128(a, b) }
}

/// Words 1 and 0 of `(hi, lo)`'s concatenation shifted right by one word:
/// `(lo.1, hi.0)` (`palignr`).
#[inline(always)]
fn straddle(hi: __m128i, lo: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_alignr_epi8::<8>(hi, lo) }
}

/// Word 1 of `a` and word 1 of `b`, as words 0 and 1 (`punpckhqdq`).
#[inline(always)]
fn high_words(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_unpackhi_epi64(a, b) }
}

/// The mask of bits 0–40 of word 1 (word 0 whole): bits below 233 of
/// words 2–3.
#[inline(always)]
fn low233() -> __m128i {
    // SAFETY: see above.
    unsafe { _mm_set_epi64x((1 << 41) - 1, -1) }
}

/// `d0 + d1·x^128 + d2·x^256 + d3·x^384` (words 0–7, word 7 below 2^17:
/// any product of two reduced elements) fully reduced modulo
/// f = x^233 + x^74 + 1, in one pass with no second fold of the result.
///
/// With G = D >> 233 (below 2^232): D ≡ L + G + G·x^74, L = D mod x^233.
/// G·x^74 overflows x^233 by G' = G >> 159 = D >> 392 (below 2^73), and
/// x^233·G' ≡ G' + G'·x^74 (below 2^147): so
/// D ≡ L + G + ((D >> 159) masked to bits 74–232) + G' + G'·x^74,
/// five terms taken from D side by side, none waiting on another fold.
/// Shuffles (`palignr`, byte shifts): five.
#[inline(always)]
fn reduce(d0: __m128i, d1: __m128i, d2: __m128i, d3: __m128i) -> Pair {
    let s23 = straddle(d3, d2); // words 5, 6
    let s12 = straddle(d2, d1); // words 3, 4
    // G' = D >> 392: d3 shifted right by one byte. G'·x^74 = (G' << 10)
    // one word up: u = G' << 10 per word, v = the bits crossing words
    // (G'[0] >> 54; G'[1] >> 54 is 0 as G' < 2^73).
    let gp = shift_imm!(_mm_srli_si128, d3, 1);
    // G: word k = (w[3+k] >> 41) | (w[4+k] << 23).
    let g0 = xor(
        shift_imm!(_mm_srli_epi64, s12, 41),
        shift_imm!(_mm_slli_epi64, d2, 23),
    );
    let g1 = xor(
        shift_imm!(_mm_srli_epi64, s23, 41),
        shift_imm!(_mm_slli_epi64, d3, 23),
    );
    let u = shift_imm!(_mm_slli_epi64, gp, 10);
    // D >> 159: word k = (w[2+k] >> 31) | (w[3+k] << 33); its words 0 and
    // 1's low 10 bits (below x^74) are L's, not G·x^74's.
    let t0 = xor(
        shift_imm!(_mm_srli_epi64, d1, 31),
        shift_imm!(_mm_slli_epi64, s12, 33),
    );
    let t1 = xor(
        shift_imm!(_mm_srli_epi64, d2, 31),
        shift_imm!(_mm_slli_epi64, s23, 33),
    );
    let v = shift_imm!(_mm_srli_epi64, gp, 54);
    // SAFETY: see above.
    let m0 = and(t0, unsafe { _mm_set_epi64x(!0x3ff, 0) });
    // The statement order and the grouping of `lo` are gcc's schedule of
    // the same terms (LLVM follows them): 5.94 -> 5.66 ns a chained square.
    let lo = xor(
        xor(m0, d0),
        xor(g0, xor(shift_imm!(_mm_slli_si128, u, 8), gp)),
    );
    let hi = xor(
        and(xor(d1, t1), low233()),
        xor(g1, xor(v, shift_imm!(_mm_srli_si128, u, 8))),
    );
    Pair(lo, hi)
}

/// `a·b`: one Karatsuba level over the 128-bit halves, each 128×128
/// product schoolbook (four PCLMULQDQ), reduced by folds through
/// x^256 ≡ x^97 + x^23 fused with the product's assembly, then one fold of
/// bits 233–255.
///
/// With E = a0·b0, F = a1·b1, G = (a0 + a1)(b0 + b1), each as
/// p0 + p2·x^64 + p1·x^128 (p2 the middle term), the product is
/// D = E + (E + F + G)·x^128 + F·x^256 = d0 + d1·x^128 + d2·x^256 +
/// d3·x^384, d3 = f1 + f2·x^-64 (below 2^81). The folds are Pornin's
/// (ePrint 2022/1325): d3·x^384 ≡ d3·x^151 + d3·x^225 lands in words
/// 2–5, then words 4–5 (v) fold as v·x^23 + v·x^97 into words 0–3. Each
/// fold of a register r is four word shifts, r·x^23 and r·x^97 made of
/// r << 23, r << 33 (one word up), r >> 41 (one word up), r >> 31 (two
/// words up), and the byte shifts that move the words across lanes are
/// shared with the product's own: the terms that land in the same lane
/// pair are summed before one `palignr` or byte shift moves them (so
/// seven shuffles of the separate assembly and folds become four). The
/// 256-bit result is then below 2^256, not 2^233: its bits 233–255
/// (o = word 3 >> 41) fold as o + o·x^74 into words 0–1, the lone serial
/// step (three operations and an XOR) on the way to words 0–1 only;
/// words 2–3, which the next product's F needs first, are one AND after
/// the folds.
///
/// Order of the statements (and so of the twelve PCLMULQDQ): F's and
/// G's middle pairs, F's high product, E's low, E's middle pair, F's low,
/// G's high and low, E's high, found by a search on an Intel Xeon
/// (Emerald Rapids); see the module documentation.
#[inline(always)]
pub(super) fn mul(_: Clmul, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    // The statement order and the grouping of each sum were searched on
    // an Intel Xeon (Emerald Rapids): LLVM emits the operations in about
    // this order, which decides which ready operation takes a port first
    // (docs/notes/gf2m.md).
    let (a, b) = (load(a), load(b));
    let (u, v) = (xor(a.0, a.1), xor(b.0, b.1));
    let f2 = xor(clmul::<0x01>(a.1, b.1), clmul::<0x10>(a.1, b.1));
    let g2 = xor(clmul::<0x01>(u, v), clmul::<0x10>(u, v));
    let f1 = clmul::<0x11>(a.1, b.1);
    let e0 = clmul::<0x00>(a.0, b.0);
    // Fold d3 (words 6–7) as d3·x^151 + d3·x^225: d3 << 23 lands in
    // words 2–3, q = d3 >> 41 + d3 << 33 in words 3–4, d3 >> 31 in words
    // 4–5.
    let d3 = xor(shift_imm!(_mm_srli_si128, f2, 8), f1);
    let e2 = xor(clmul::<0x01>(a.0, b.0), clmul::<0x10>(a.0, b.0));
    let f0 = clmul::<0x00>(a.1, b.1);
    let q = xor(
        shift_imm!(_mm_slli_epi64, d3, 33),
        shift_imm!(_mm_srli_epi64, d3, 41),
    );
    let g1 = clmul::<0x11>(u, v);
    let g0 = clmul::<0x00>(u, v);
    let e1 = clmul::<0x11>(a.0, b.0);
    let h = xor(f0, e1);
    // j: the middle terms of the x^128 row (E + F + G's) with q, all
    // landing in lanes (words 3, 4).
    let j = xor(xor(xor(q, e2), f2), g2);
    // Words 4–5 after the d3 fold: d2 = h + f1 + g1 + (words 4–5 of the
    // middle terms), with d3 >> 31 and q's word 4.
    let v2 = xor(
        xor(xor(straddle(f2, j), h), g1),
        xor(shift_imm!(_mm_srli_epi64, d3, 31), f1),
    );
    let w = xor(xor(e0, h), xor(shift_imm!(_mm_slli_epi64, d3, 23), g0));
    // Fold v2: c (v2 >> 41 + v2 << 33, with E's middle term) lands in
    // words 1–2, v2 << 23 in words 0–1, v2 >> 31 in words 2–3.
    let c = xor(
        xor(
            shift_imm!(_mm_srli_epi64, v2, 41),
            shift_imm!(_mm_slli_epi64, v2, 33),
        ),
        e2,
    );
    let hi = xor(xor(straddle(j, c), w), shift_imm!(_mm_srli_epi64, v2, 31));
    // Bits 233–255: o = hi's word 1 >> 41 folds to o + o·x^74 (o in word
    // 0, o << 10 in word 1).
    let rhi = and(hi, low233());
    let o = shift_imm!(_mm_srli_epi64, hi, 41);
    let lo = xor(
        xor(
            shift_imm!(_mm_slli_epi64, v2, 23),
            shift_imm!(_mm_slli_si128, c, 8),
        ),
        e0,
    );
    let fold = high_words(o, shift_imm!(_mm_slli_epi64, o, 10));
    store(Pair(xor(lo, fold), rhi))
}

/// `a²`: each word's square is its PCLMULQDQ with itself.
#[inline(always)]
pub(super) fn square(_: Clmul, a: &[u64; 4]) -> [u64; 4] {
    store(square_pair(load(a)))
}

/// `a^(2^n)`: n squares, the element kept in registers between them.
#[inline(always)]
pub(super) fn square_n(_: Clmul, a: &[u64; 4], n: usize) -> [u64; 4] {
    let mut x = load(a);
    for _ in 0..n {
        x = square_pair(x);
    }
    store(x)
}

/// [`square`] on the digits.
#[inline(always)]
fn square_pair(a: Pair) -> Pair {
    // Top word first: d3 and d2 feed the reduction's deepest terms, d0
    // only its last XOR.
    let d3 = clmul::<0x11>(a.1, a.1);
    let d2 = clmul::<0x00>(a.1, a.1);
    let d1 = clmul::<0x11>(a.0, a.0);
    let d0 = clmul::<0x00>(a.0, a.0);
    reduce(d0, d1, d2, d3)
}

/// The even-indexed bits of the 256-bit `(x0, x1)`, packed into 128 bits:
/// per 64-bit word, the bits under 0x55… packed two, four, then eight to a
/// byte in the low byte of each 16-bit unit (three mask-shift-XOR steps),
/// then one `pshufb` per register picks those bytes (x0's into bytes 0–7,
/// x1's into 8–15). A function, not a closure: a closure the compiler
/// left out of line would lose the caller's target features.
#[inline(always)]
fn gather_even(x0: __m128i, x1: __m128i) -> __m128i {
    // SAFETY: see above (SSSE3's `pshufb`, implied by SSE4.1).
    unsafe {
        let m1 = _mm_set1_epi8(0x55);
        let m2 = _mm_set1_epi8(0x33);
        let m4 = _mm_set1_epi8(0x0f);
        let lo_half = _mm_set_epi64x(-1, 0x0e0c_0a08_0604_0200);
        let hi_half = _mm_set_epi64x(0x0e0c_0a08_0604_0200, -1);
        let mut r = [x0, x1];
        for x in &mut r {
            *x = _mm_and_si128(*x, m1);
            *x = _mm_and_si128(xor(*x, _mm_srli_epi64::<1>(*x)), m2);
            *x = _mm_and_si128(xor(*x, _mm_srli_epi64::<2>(*x)), m4);
            *x = xor(*x, _mm_srli_epi64::<4>(*x));
        }
        xor(
            _mm_shuffle_epi8(r[0], lo_half),
            _mm_shuffle_epi8(r[1], hi_half),
        )
    }
}

/// `√a`: a = e(x²) + x·o(x²) gives √a = e(x) + √x·o(x). The even and odd
/// bits are gathered in xmm lanes ([`gather_even`]), e and o below 2^117
/// in one register each; √x·o is two 128×128 schoolbook products (eight
/// PCLMULQDQ) and below 2^344, so D = √x·o + e = d0 + d1·x^128 + d2·x^256
/// has d2 below 2^88 and its reduction is short: d2·x^256 ≡ d2·x^23 +
/// d2·x^97 (below 2^185: one fold, Pornin's, ePrint 2022/1325) leaves
/// bits 233–255 only in d1, so their fold (o = d1's word 1 >> 41 to
/// o + o·x^74) runs beside d2's instead of after it.
#[inline(always)]
pub(super) fn sqrt(_: Clmul, a: &[u64; 4], sqrt_x: &[u64; 4]) -> [u64; 4] {
    // The statement order and the grouping of each sum were searched on
    // an Intel Xeon (Emerald Rapids), as the product's: o gathered first,
    // its products issued before e is gathered.
    let a = load(a);
    let s = load(sqrt_x);
    let o = gather_even(
        shift_imm!(_mm_srli_epi64, a.0, 1),
        shift_imm!(_mm_srli_epi64, a.1, 1),
    );
    // √x·o = o·s0 + o·s1·x^128, each p0 + p2·x^64 + p1·x^128.
    let h1 = clmul::<0x11>(o, s.1);
    let m1 = xor(clmul::<0x01>(o, s.1), clmul::<0x10>(o, s.1));
    let h0 = clmul::<0x11>(o, s.0);
    let l1 = clmul::<0x00>(o, s.1);
    let l0 = clmul::<0x00>(o, s.0);
    let e = gather_even(a.0, a.1);
    let m0 = xor(clmul::<0x01>(o, s.0), clmul::<0x10>(o, s.0));
    let d2 = xor(h1, shift_imm!(_mm_srli_si128, m1, 8));
    let d1 = xor(l1, xor(h0, straddle(m1, m0)));
    // d2·x^23 + d2·x^97: d2 << 23 in words 0–1, b = d2 >> 41 + d2 << 33
    // in words 1–2 (with o·s0's middle term), d2 >> 31 in words 2–3
    // (below 2^25 in word 2 only: nothing reaches bit 233).
    let b = xor(
        shift_imm!(_mm_srli_epi64, d2, 41),
        shift_imm!(_mm_slli_epi64, d2, 33),
    );
    let hi = xor(
        xor(and(d1, low233()), shift_imm!(_mm_srli_epi64, d2, 31)),
        shift_imm!(_mm_srli_si128, b, 8),
    );
    let y = shift_imm!(_mm_srli_epi64, d1, 41);
    let fold = high_words(y, shift_imm!(_mm_slli_epi64, y, 10));
    let lo = xor(
        xor(xor(shift_imm!(_mm_slli_epi64, d2, 23), e), fold),
        xor(l0, shift_imm!(_mm_slli_si128, xor(m0, b), 8)),
    );
    store(Pair(lo, hi))
}
