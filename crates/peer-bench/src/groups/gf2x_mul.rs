//! `gf2x_mul`: products of binary polynomials of n×n words (and a few
//! unbalanced shapes), chained: each call's first operand is the low words of
//! the previous product, so the figure is latency, as in the issue's
//! reference table (median ticks per `gf2x_mul`, chained calls).
//!
//! Ours: `gf2x::Dispatch::mul_into_with_scratch` with the best backend (the
//! reference for ratios), `mul_fixed` and `mul_fixed_into` (the array API) where a fixed kernel
//! exists, and the other backends (portable up to 1024 words). Peers (with `system-peers`): gf2x's
//! `gf2x_mul` (native or Debian build, as linked), NTL's `GF2X` `mul`
//! (independent calls: chaining would time NTL's conversion).

use crate::harness::{Case, Impl};
use crate::util::Rng;
use fieldwork::gf2x::{Dispatch, mul_scratch_len};
use std::hint::black_box;

/// Balanced sizes in words, then unbalanced shapes.
const BALANCED: &[usize] = &[
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    16,
    32,
    64,
    128,
    256,
    1024,
    4096,
    16384,
    65536,
    1 << 20,
];
/// From this size on a product takes seconds: the row needs `--heavy`.
const HEAVY_WORDS: usize = 1 << 20;
/// From this size (both operands' words) on, the default product may run
/// on several threads (the `gf2x` module docs): such rows get a one-thread
/// column.
const THREADED_WORDS: usize = 1 << 12;
const UNBALANCED: &[(usize, usize)] = &[(9, 1000), (100, 10_000)];

fn operands(an: usize, bn: usize) -> (Vec<u64>, Vec<u64>) {
    let mut rng = Rng(an as u64 * 1_000_003 + bn as u64);
    let a = (0..an).map(|_| rng.next_u64()).collect();
    let b = (0..bn).map(|_| rng.next_u64()).collect();
    (a, b)
}

fn ours(m: Dispatch, an: usize, bn: usize) -> Impl {
    let (a, b) = operands(an, bn);
    let (out, scratch) = (vec![0u64; an + bn], vec![0u64; mul_scratch_len(an, bn)]);
    let mut words = crate::util::PlacedWords::new(&[&a, &b, &out, &scratch]);
    Impl {
        name: format!("fieldwork ({})", m.name()),
        ours: true,
        routine: Box::new(move |n| {
            let [a, b, out, scratch] = words.parts::<4>();
            for _ in 0..n {
                // Lengths are fixed and right: the call cannot fail.
                let _ = m.mul_into_with_scratch(out, a, b, scratch);
                crate::util::chain_copy(a, out);
            }
            black_box(&out);
        }),
    }
}

/// The best backend held to one thread (`gf2x::set_max_threads(1)` for the
/// routine's calls, the default restored after): beside the default row,
/// what the threaded FFT products gain on this machine's cores.
fn ours_one_thread(m: Dispatch, an: usize, bn: usize) -> Impl {
    let mut inner = ours(m, an, bn);
    Impl {
        name: format!("fieldwork one thread ({})", m.name()),
        ours: true,
        routine: Box::new(move |n| {
            fieldwork::gf2x::set_max_threads(1);
            (inner.routine)(n);
            fieldwork::gf2x::set_max_threads(0);
        }),
    }
}

/// `mul_fixed::<N>` and `mul_fixed_into::<N>` through the array API (no
/// slices), for N = 1..=9 and 16.
///
/// The `mul_fixed` row pays what a caller of the by-value API pays on top
/// of the kernel: the backend match and the move of the returned array into
/// the binding (a `memcpy` call from 144 bytes, the 9-word product: LLVM
/// copies larger arrays out of line); `mul_fixed_into` writes into the
/// caller's array. Xeon, ticks against the `mul_into` row (2026-11-30,
/// docs/notes/gf2x.md): `mul_fixed` level at 1, 2 and 4–8 words, 3 words
/// 2.5 more, 9 words 80 against 42.
fn ours_fixed(m: Dispatch, n: usize) -> Vec<Impl> {
    macro_rules! fixed {
        ($($k:literal)*) => {
            match n {
                $($k => {
                    let (a, b) = operands($k, $k);
                    let (Ok(a), Ok(b)) = (<[u64; $k]>::try_from(a), <[u64; $k]>::try_from(b)) else {
                        return Vec::new();
                    };
                    let by_value = Impl {
                        name: format!("fieldwork mul_fixed ({})", m.name()),
                        ours: true,
                        routine: Box::new(move |iters| {
                            let mut a = a;
                            for _ in 0..iters {
                                let c = m.mul_fixed(&a, &b);
                                crate::util::chain_copy(&mut a, &c);
                            }
                            black_box(&a);
                        }),
                    };
                    let into = Impl {
                        name: format!("fieldwork mul_fixed_into ({})", m.name()),
                        ours: true,
                        routine: Box::new(move |iters| {
                            let (mut a, mut c) = (a, [0u64; 2 * $k]);
                            for _ in 0..iters {
                                m.mul_fixed_into(&mut c, &a, &b);
                                crate::util::chain_copy(&mut a, &c);
                            }
                            black_box(&a);
                        }),
                    };
                    vec![by_value, into]
                })*
                _ => Vec::new(),
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 8 9 16)
}

/// The cases, after checking the peers agree with us.
pub fn cases() -> Result<Vec<Case>, String> {
    let best = Dispatch::best();
    #[cfg(feature = "system-peers")]
    check_peers(best)?;
    let shapes = BALANCED
        .iter()
        .map(|&n| (n, n))
        .chain(UNBALANCED.iter().copied());
    Ok(shapes
        .map(|(an, bn)| {
            let mut impls = vec![ours(best, an, bn)];
            if an == bn {
                impls.extend(ours_fixed(best, an));
            }
            if an + bn >= THREADED_WORDS && fieldwork::gf2x::max_threads() > 1 {
                impls.push(ours_one_thread(best, an, bn));
            }
            // The other backends, for the progression (the portable one only
            // where it finishes in reasonable time).
            for other in Dispatch::all().filter(|m| m.name() != best.name()) {
                if other.name() != "portable" || an.max(bn) <= 1024 {
                    impls.push(ours(other, an, bn));
                }
            }
            #[cfg(feature = "system-peers")]
            impls.extend(peers(an, bn));
            Case {
                group: "gf2x_mul",
                size: if an == bn {
                    format!("{an} words")
                } else {
                    format!("{an}×{bn} words")
                },
                bytes: None,
                impls,
                heavy: an.max(bn) >= HEAVY_WORDS,
                per_second: None,
            }
        })
        .collect())
}

#[cfg(feature = "system-peers")]
fn check_peers(best: Dispatch) -> Result<(), String> {
    use crate::sys::{NtlGf2x, gf2x_mul_words};
    for (an, bn) in [
        (1, 1),
        (3, 3),
        (9, 9),
        (10, 3),
        (64, 64),
        (100, 1000),
        (4096, 4096),
    ] {
        let (a, b) = operands(an, bn);
        let mut want = vec![0u64; an + bn];
        best.mul_into(&mut want, &a, &b)
            .map_err(|e| e.to_string())?;
        let mut c = vec![0u64; an + bn];
        gf2x_mul_words(&mut c, &a, &b);
        if c != want {
            return Err(format!("gf2x disagrees at {an}×{bn} words"));
        }
        let mut p = NtlGf2x::from_words(&[0]);
        p.mul(&NtlGf2x::from_words(&a), &NtlGf2x::from_words(&b));
        if p.words(an + bn) != want {
            return Err(format!("NTL disagrees at {an}×{bn} words"));
        }
    }
    Ok(())
}

#[cfg(feature = "system-peers")]
fn peers(an: usize, bn: usize) -> Vec<Impl> {
    let (a, b) = operands(an, bn);
    let ntl = crate::sys::ntl_independent(&a, &b);
    vec![crate::sys::gf2x_chained(a, b), ntl]
}
