//! GF(2^233) (x^233 + x^74 + 1) on 128-bit digits: an element is two xmm
//! registers, words 0–1 and 2–3, for the PCLMULQDQ and VPCLMULQDQ backends'
//! product, square and square root (`FieldKernel::clmul`).
//!
//! The idea is Pornin's GF(2^233) code for xsk233 (ePrint 2022/1325, and
//! c-xs233's `gf233.h`): one Karatsuba level over 128-bit halves, then a
//! fold of the high half through x^256 ≡ x^97 + x^23 with shifts of whole
//! xmm registers. Written here from that description; unlike c-xs233 the
//! result is always fully reduced (the last 23 bits are folded too), as
//! every fieldwork element is.
//!
//! # Cost (AMD Zen 3: PCLMULQDQ latency 4, one per 2 cycles, from
//! `peer-bench --isa-rates`)
//!
//! - Product: 12 PCLMULQDQ (three 128×128 schoolbook products), 4 byte
//!   shifts, about 20 XORs; the general 64-bit-digit formulas of `gf2x`
//!   (`mul4` on `Lane64`) take 9 products but a byte shift per product and
//!   twice the XORs, one word per register. The product of the halves'
//!   sums comes last, so the other two are folded while it is computed.
//! - Square: 4 PCLMULQDQ (each word with itself).
//! - Reduction: the 4 high words T fold as T·x^23 + T·x^97 (word shifts
//!   `psllq`/`psrlq` by 23, 41, 33, 31 and `palignr`/`pslldq` to move a
//!   word up), the one word that overflows x^256 folds again the same way,
//!   then bits 233–255 fold as v + v·x^74: about 30 instructions.
//!
//! Inside one call (a chain of squares and products in `pow`) a square and
//! a product take about 60 cycles together; through the operators a
//! product costs about 60 cycles and a square 40, the rest being the call
//! and the operands' round trip through memory (peer-bench `--filter
//! m=233`), where c-xs233, inlined into its caller, takes 32 and 20.
//! Rejected: Karatsuba for the 128×128 products (9 PCLMULQDQ: 20.0 against
//! 19.0 ns a bit of `pow`, `--example gf2m_pow`); the product written in
//! place through a `mul_assign` entry (62 → 83 cycles a chained product).
#![allow(unsafe_code)]

use crate::cpu::Clmul;
use core::arch::x86_64::{
    __m128i, _mm_alignr_epi8, _mm_and_si128, _mm_clmulepi64_si128, _mm_loadu_si128, _mm_set_epi64x,
    _mm_slli_epi64, _mm_slli_si128, _mm_srli_epi64, _mm_srli_si128, _mm_storeu_si128,
    _mm_xor_si128,
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

/// The 256-bit product of two 128-bit polynomials: four PCLMULQDQ
/// (schoolbook; Karatsuba's three put an XOR and a shuffle before the
/// third product, and measured slower in a chain of squares and products:
/// 20.0 against 19.0 ns a bit of `pow`, Zen 3).
#[inline(always)]
fn mul128(x: __m128i, y: __m128i) -> Pair {
    // SAFETY: see above.
    unsafe {
        let l = _mm_clmulepi64_si128::<0x00>(x, y);
        let h = _mm_clmulepi64_si128::<0x11>(x, y);
        let m = xor(
            _mm_clmulepi64_si128::<0x01>(x, y),
            _mm_clmulepi64_si128::<0x10>(x, y),
        );
        Pair(
            xor(l, _mm_slli_si128::<8>(m)),
            xor(h, _mm_srli_si128::<8>(m)),
        )
    }
}

/// `lo + hi·x^256` folded below x^256 (not yet below x^233), for
/// `hi < 2^209`: hi·x^256 ≡ hi·x^23 + hi·x^97.
#[inline(always)]
fn fold256(lo: Pair, hi: Pair) -> Pair {
    // SAFETY: see above.
    unsafe {
        // hi's words t0..t3, t3 < 2^17. t·x^23: (t << 23) into the same
        // word, (t >> 41) into the next. t·x^97 = t·x^(64+33): (t << 33)
        // into the next word, (t >> 31) into the one after.
        let (t0, t1) = (hi.0, hi.1);
        let a0 = _mm_slli_epi64::<23>(t0);
        let a1 = _mm_slli_epi64::<23>(t1);
        // Words moving up one: (t >> 41) ^ (t << 33), per word.
        let b0 = xor(_mm_srli_epi64::<41>(t0), _mm_slli_epi64::<33>(t0));
        let b1 = xor(_mm_srli_epi64::<41>(t1), _mm_slli_epi64::<33>(t1));
        // Words moving up two: t >> 31.
        let d0 = _mm_srli_epi64::<31>(t0);
        let d1 = _mm_srli_epi64::<31>(t1);
        // Word 0: a(t0). Word 1: a(t1) ^ b(t0). Words 2–3: a(t2..3) ^
        // b(t1..2) ^ d(t0..1). Word 4 (past x^256): b(t3) ^ d(t2) (d(t3)
        // = 0 as t3 < 2^17).
        let r0 = xor(xor(lo.0, a0), _mm_slli_si128::<8>(b0));
        let r1 = xor(xor(lo.1, a1), xor(_mm_alignr_epi8::<8>(b1, b0), d0));
        let o = xor(_mm_srli_si128::<8>(b1), d1); // word 4 in the low lane
        // o < 2^64 at x^256 folds the same way into words 0–2: o << 23 to
        // word 0; (o >> 41) ^ (o << 33) to word 1; o >> 31 to word 2.
        let ob = xor(_mm_srli_epi64::<41>(o), _mm_slli_epi64::<33>(o));
        let r0 = xor(xor(r0, _mm_slli_epi64::<23>(o)), _mm_slli_si128::<8>(ob));
        let r1 = xor(r1, _mm_srli_epi64::<31>(o));
        Pair(r0, r1)
    }
}

/// `r` (< 2^256) fully reduced: bits 233..255 (word 3's bits 41..63), v,
/// fold as v + v·x^74 (v·x^74 = (v << 10) in word 1).
#[inline(always)]
fn normalize(r: Pair) -> Pair {
    // SAFETY: see above.
    unsafe {
        let v = _mm_srli_si128::<8>(_mm_srli_epi64::<41>(r.1)); // v in the low lane
        let r1 = _mm_and_si128(r.1, _mm_set_epi64x((1 << 41) - 1, -1));
        let r0 = xor(r.0, xor(v, _mm_slli_si128::<8>(_mm_slli_epi64::<10>(v))));
        Pair(r0, r1)
    }
}

/// `a·b`.
#[inline(always)]
pub(super) fn mul(_: Clmul, a: &[u64; 4], b: &[u64; 4]) -> [u64; 4] {
    let (a, b) = (load(a), load(b));
    let (a2, b2) = (xor(a.0, a.1), xor(b.0, b.1));
    let p0 = mul128(a.0, b.0);
    let p2 = mul128(a.1, b.1);
    let p1 = mul128(a2, b2);
    // c = p0 + (p0 + p1 + p2)·x^128 + p2·x^256. The product of the sums,
    // p1, is ready last: p0's and p2's terms are folded while it is
    // computed, and p1's alone after (its high half, at x^256, folds
    // into words 0–3 without overflow).
    let early = fold256(
        Pair(p0.0, xor(p0.1, xor(p0.0, p2.0))),
        Pair(xor(p2.0, xor(p0.1, p2.1)), p2.1),
    );
    // SAFETY: see above.
    let late = unsafe {
        let t = p1.1;
        let b = xor(_mm_srli_epi64::<41>(t), _mm_slli_epi64::<33>(t));
        Pair(
            xor(_mm_slli_epi64::<23>(t), _mm_slli_si128::<8>(b)),
            xor(p1.0, xor(_mm_srli_si128::<8>(b), _mm_srli_epi64::<31>(t))),
        )
    };
    store(normalize(Pair(xor(early.0, late.0), xor(early.1, late.1))))
}

/// `a²`: each word's square is its PCLMULQDQ with itself.
#[inline(always)]
pub(super) fn square(_: Clmul, a: &[u64; 4]) -> [u64; 4] {
    let a = load(a);
    // SAFETY: see above.
    let (lo, hi) = unsafe {
        (
            Pair(
                _mm_clmulepi64_si128::<0x00>(a.0, a.0),
                _mm_clmulepi64_si128::<0x11>(a.0, a.0),
            ),
            Pair(
                _mm_clmulepi64_si128::<0x00>(a.1, a.1),
                _mm_clmulepi64_si128::<0x11>(a.1, a.1),
            ),
        )
    };
    store(normalize(fold256(lo, hi)))
}
