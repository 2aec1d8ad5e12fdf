//! `gf2x` products of any size: every backend against a bit-by-bit
//! reference on every size pair up to 64 words, against each other on large
//! and unbalanced sizes, and algebraic properties.

use super::common;

use common::{Candidate, Rng, differential, mul_bitwise};
use fieldwork::gf2x::{self, Dispatch, Gf2xError, mul_scratch_len};

fn random_words(rng: &mut Rng, n: usize) -> Vec<u64> {
    (0..n).map(|_| rng.next_u64_shaped()).collect()
}

type Pair = (Vec<u64>, Vec<u64>);

fn backends<'a>() -> Vec<Candidate<'a, Pair, Vec<u64>>> {
    let via = |m: Dispatch| {
        move |(a, b): &Pair| {
            let mut out = vec![0xdead_beefu64; a.len() + b.len()];
            m.mul_into(&mut out, a, b).expect("lengths are right");
            out
        }
    };
    vec![
        Candidate::new("portable", Some(via(Dispatch::portable()))),
        Candidate::new("pclmulqdq", Dispatch::pclmulqdq().map(via)),
        Candidate::new("vpclmulqdq", Dispatch::vpclmulqdq().map(via)),
        Candidate::new("vpclmulqdq-ymm", Dispatch::vpclmulqdq_ymm().map(via)),
        Candidate::new("pmull", Dispatch::pmull().map(via)),
        Candidate::new(
            "dispatched mul_into",
            Some(|(a, b): &Pair| {
                let mut out = vec![!0u64; a.len() + b.len()];
                gf2x::mul_into(&mut out, a, b).expect("lengths are right");
                out
            }),
        ),
    ]
}

#[test]
fn every_size_pair_up_to_64_words() {
    let mut rng = Rng::new(0x5eed_9f2a_0001);
    let mut inputs = Vec::new();
    for an in 0..=64 {
        for bn in 0..=64 {
            // Balanced pairs twice, unbalanced once: all shapes, bounded time.
            let reps = if an == bn { 2 } else { 1 };
            for _ in 0..reps {
                inputs.push((random_words(&mut rng, an), random_words(&mut rng, bn)));
            }
        }
    }
    let count = inputs.len();
    let n = differential(
        "gf2x mul ≤ 64 words",
        |(a, b)| mul_bitwise(a, b),
        &backends(),
        inputs,
    );
    assert!(n >= 2 * count);
}

#[test]
fn all_ones_operands() {
    // Every carry-free column is full: a stress case for any bit-split trick.
    let inputs: Vec<Pair> = [1usize, 2, 3, 9, 10, 17, 33, 64]
        .iter()
        .flat_map(|&n| {
            [
                (vec![!0u64; n], vec![!0u64; n]),
                (vec![!0u64; n], vec![!0u64; n / 2 + 1]),
            ]
        })
        .collect();
    let n = differential(
        "gf2x mul all ones",
        |(a, b)| mul_bitwise(a, b),
        &backends(),
        inputs,
    );
    assert!(n > 0);
}

#[test]
fn large_and_unbalanced_against_reference() {
    let mut rng = Rng::new(0x5eed_9f2a_0002);
    let shapes = [
        (100, 100),
        (129, 128),
        (257, 3),
        (500, 37),
        (9, 1000),
        (1000, 1000),
    ];
    let inputs: Vec<Pair> = shapes
        .iter()
        .map(|&(x, y)| (random_words(&mut rng, x), random_words(&mut rng, y)))
        .collect();
    let n = differential(
        "gf2x mul large",
        |(a, b)| mul_bitwise(a, b),
        &backends(),
        inputs,
    );
    assert!(n >= 2 * shapes.len());
}

/// The ymm backend's FFT edges (4 096 words take the FFT, 4 097 Toom-3,
/// 22 000 the FFT again): against the portable backend, whose FFT has its
/// own field product.
#[test]
fn ymm_fft_window_against_portable() {
    let Some(ymm) = Dispatch::vpclmulqdq_ymm() else {
        return;
    };
    let mut rng = Rng::new(0x5eed_9f2a_0004);
    for n in [4096, 4097, 22_000] {
        let (a, b) = (random_words(&mut rng, n), random_words(&mut rng, n));
        let mut want = vec![0u64; 2 * n];
        Dispatch::portable().mul_into(&mut want, &a, &b).unwrap();
        let mut got = vec![0u64; 2 * n];
        ymm.mul_into(&mut got, &a, &b).unwrap();
        assert!(got == want, "vpclmulqdq-ymm differs at {n} words");
    }
}

/// Every accelerated backend against the portable one, balanced, at every
/// size 1..=64 words and at sizes on the Karatsuba, Toom-3 and FFT paths,
/// through `mul_into`, `mul_fixed` and `mul_fixed_into` (the fixed sizes)
/// and `square_into`.
#[test]
fn accelerated_against_portable_by_size() {
    let mut rng = Rng::new(0x5eed_9f2a_0005);
    let portable = Dispatch::portable();
    let sizes: Vec<usize> = (1..=64).chain([65, 100, 127, 300, 1000, 5000]).collect();
    for &n in &sizes {
        let (a, b) = (random_words(&mut rng, n), random_words(&mut rng, n));
        let mut want = vec![0u64; 2 * n];
        portable.mul_into(&mut want, &a, &b).unwrap();
        let mut want_sq = vec![0u64; 2 * n];
        portable.square_into(&mut want_sq, &a).unwrap();
        for m in Dispatch::all().filter(|m| m.name() != "portable") {
            let mut got = vec![!0u64; 2 * n];
            m.mul_into(&mut got, &a, &b).unwrap();
            assert!(got == want, "{} differs at {n} words", m.name());
            let mut sq = vec![!0u64; 2 * n];
            m.square_into(&mut sq, &a).unwrap();
            assert!(sq == want_sq, "{} square differs at {n} words", m.name());
        }
    }
    macro_rules! fixed {
        ($($n:literal),*) => {$(
            let a: [u64; $n] = core::array::from_fn(|_| rng.next_u64_shaped());
            let b: [u64; $n] = core::array::from_fn(|_| rng.next_u64_shaped());
            let want = portable.mul_fixed(&a, &b);
            for m in Dispatch::all() {
                assert!(m.mul_fixed(&a, &b) == want, "{} mul_fixed {}", m.name(), $n);
                let mut into = [!0u64; 2 * $n];
                m.mul_fixed_into(&mut into, &a, &b);
                assert!(into == want, "{} mul_fixed_into {}", m.name(), $n);
            }
        )*};
    }
    for _ in 0..4 {
        fixed!(1, 2, 3, 4, 5, 6, 7, 8, 9, 16);
    }
}

#[test]
fn very_large_backends_agree() {
    // Too big for the bitwise reference: backend against backend, plus a
    // property check that does not trust any backend: (a·b)·c = a·(b·c).
    let mut rng = Rng::new(0x5eed_9f2a_0003);
    let shapes = [(4096, 4096), (5000, 4999), (100, 10_000), (16_384, 1)];
    for &(x, y) in &shapes {
        let (a, b) = (random_words(&mut rng, x), random_words(&mut rng, y));
        let mut want = vec![0u64; x + y];
        Dispatch::portable().mul_into(&mut want, &a, &b).unwrap();
        for m in Dispatch::all() {
            let mut got = vec![0u64; x + y];
            m.mul_into(&mut got, &a, &b).unwrap();
            assert!(got == want, "{} differs at {x}×{y} words", m.name());
        }
    }
    let (a, b, c) = (
        random_words(&mut rng, 3000),
        random_words(&mut rng, 2000),
        random_words(&mut rng, 700),
    );
    let mul = |x: &[u64], y: &[u64]| {
        let mut o = vec![0u64; x.len() + y.len()];
        gf2x::mul_into(&mut o, x, y).unwrap();
        o
    };
    assert_eq!(mul(&mul(&a, &b), &c), mul(&a, &mul(&b, &c)));
    // Distributivity: a·(b + c) = a·b + a·c (c zero-extended to b's length).
    let mut bc = b.clone();
    for (x, y) in bc.iter_mut().zip(&c) {
        *x ^= y;
    }
    let (ab, ac) = (mul(&a, &b), mul(&a, &c));
    let mut sum = ab.clone();
    for (x, y) in sum.iter_mut().zip(&ac) {
        *x ^= y;
    }
    assert_eq!(mul(&a, &bc), sum);
}

#[test]
fn commutative() {
    let mut rng = Rng::new(0x5eed_9f2a_0004);
    for _ in 0..200 {
        let (x, y) = (
            (rng.next_u64() % 80) as usize,
            (rng.next_u64() % 80) as usize,
        );
        let (a, b) = (random_words(&mut rng, x), random_words(&mut rng, y));
        for m in Dispatch::all() {
            let (mut ab, mut ba) = (vec![0; x + y], vec![0; x + y]);
            m.mul_into(&mut ab, &a, &b).unwrap();
            m.mul_into(&mut ba, &b, &a).unwrap();
            assert_eq!(ab, ba, "{} at {x}×{y}", m.name());
        }
    }
}

#[test]
fn fixed_sizes() {
    let mut rng = Rng::new(0x5eed_9f2a_0005);
    macro_rules! check {
        ($($n:literal)*) => {$(
            for _ in 0..2000 {
                let a: [u64; $n] = core::array::from_fn(|_| rng.next_u64_shaped());
                let b: [u64; $n] = core::array::from_fn(|_| rng.next_u64_shaped());
                let want = mul_bitwise(&a, &b);
                assert_eq!(gf2x::mul_fixed(&a, &b).to_vec(), want, "dispatched, {} words", $n);
                let mut into = [!0u64; 2 * $n];
                gf2x::mul_fixed_into(&mut into, &a, &b);
                assert_eq!(into.to_vec(), want, "dispatched into, {} words", $n);
                for m in Dispatch::all() {
                    assert_eq!(m.mul_fixed(&a, &b).to_vec(), want, "{}, {} words", m.name(), $n);
                }
            }
        )*};
    }
    check!(1 2 3 4 5 6 7 8 9 16);
}

#[test]
fn squares() {
    let mut rng = Rng::new(0x5eed_9f2a_0006);
    for n in (0..=70).chain([129, 1000, 4097]) {
        let a = random_words(&mut rng, n);
        let want = mul_bitwise(&a, &a);
        for m in Dispatch::all() {
            let mut s = vec![1u64; 2 * n];
            m.square_into(&mut s, &a).unwrap();
            assert_eq!(s, want, "{} square of {n} words", m.name());
        }
    }
}

#[test]
fn wrong_lengths_are_errors() {
    let a = [1u64, 2, 3];
    let b = [4u64, 5];
    let mut short = [0u64; 4];
    assert_eq!(
        gf2x::mul_into(&mut short, &a, &b),
        Err(Gf2xError::OutputLength {
            expected: 5,
            actual: 4
        })
    );
    let mut long = [0u64; 6];
    assert!(gf2x::mul_into(&mut long, &a, &b).is_err());
    assert!(gf2x::square_into(&mut long, &a).is_ok());
    assert!(gf2x::square_into(&mut short, &a).is_err());
    let e = gf2x::mul_into(&mut short, &a, &b).unwrap_err();
    assert!(e.to_string().contains("needs exactly 5"), "{e}");
    // Empty operands: the product is zero, written over whatever was there.
    let mut out = [7u64; 3];
    gf2x::mul_into(&mut out, &[], &a).unwrap();
    assert_eq!(out, [0, 0, 0]);
    gf2x::mul_into(&mut [], &[], &[]).unwrap();
}

#[test]
fn scratch_bound_is_exact_enough() {
    // The documented scratch length suffices for every shape (a shortfall
    // would panic inside the recursion), and less is refused up front.
    let mut rng = Rng::new(0x5eed_9f2a_0007);
    let mut shapes: Vec<(usize, usize)> = (0..=40)
        .flat_map(|x| (0..=40).map(move |y| (x, y)))
        .collect();
    shapes.extend([
        (11, 10),
        (23, 10),
        (1000, 999),
        (1000, 33),
        (777, 100),
        (5000, 4001),
    ]);
    for (x, y) in shapes {
        let (a, b) = (random_words(&mut rng, x), random_words(&mut rng, y));
        let need = mul_scratch_len(x, y);
        let want = {
            let mut o = vec![0; x + y];
            gf2x::mul_into(&mut o, &a, &b).unwrap();
            o
        };
        for m in Dispatch::all() {
            let mut scratch = vec![0u64; need];
            let mut out = vec![0u64; x + y];
            m.mul_into_with_scratch(&mut out, &a, &b, &mut scratch)
                .unwrap();
            assert_eq!(out, want, "{} {x}×{y}", m.name());
            if need > 0 {
                let mut small = vec![0u64; need - 1];
                assert_eq!(
                    m.mul_into_with_scratch(&mut out, &a, &b, &mut small),
                    Err(Gf2xError::ScratchLength {
                        needed: need,
                        actual: need - 1
                    })
                );
            }
        }
    }
}

/// Balanced sizes where the backends' plans choose between Karatsuba and the
/// two Toom-3 steps: every size from 16 (the smallest Toom-3 size) to 100,
/// then sizes around the powers of two and each residue mod 3.
fn toom_sizes() -> Vec<usize> {
    let mut sizes: Vec<usize> = (16..=100).collect();
    for m in [128, 192, 256, 300, 384, 512] {
        sizes.extend([m - 1, m, m + 1]);
    }
    sizes
}

#[test]
fn toom_sizes_against_reference() {
    let mut rng = Rng::new(0x5eed_9f2a_0008);
    let sizes = toom_sizes();
    let inputs: Vec<Pair> = sizes
        .iter()
        .map(|&n| (random_words(&mut rng, n), random_words(&mut rng, n)))
        .collect();
    let n = differential(
        "gf2x mul Toom-3 sizes",
        |(a, b)| mul_bitwise(a, b),
        &backends(),
        inputs,
    );
    assert!(n >= 2 * sizes.len());
    // All-ones operands: every interpolation division sees full words.
    let inputs: Vec<Pair> = [16, 17, 18, 50, 97, 301]
        .iter()
        .map(|&n| (vec![!0u64; n], vec![!0u64; n]))
        .collect();
    differential(
        "gf2x mul Toom-3 all ones",
        |(a, b)| mul_bitwise(a, b),
        &backends(),
        inputs,
    );
}

/// `a·b` from products of `a` with `chunk`-word slices of `b`, shifted and
/// added: the same product through other sizes, so other steps.
fn mul_by_chunks(a: &[u64], b: &[u64], chunk: usize) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    for (i, piece) in b.chunks(chunk).enumerate() {
        let mut p = vec![0u64; a.len() + piece.len()];
        gf2x::mul_into(&mut p, a, piece).unwrap();
        for (o, x) in out[i * chunk..].iter_mut().zip(&p) {
            *o ^= x;
        }
    }
    out
}

#[test]
fn large_balanced_toom_sizes() {
    // Above the plans' table (8192 words) every step is Toom-3; around it
    // and well above, each backend against portable and the dispatched
    // product against one assembled from 1000-word pieces.
    let mut rng = Rng::new(0x5eed_9f2a_0009);
    for n in [3001, 8191, 8192, 8193, 20_000] {
        let (a, b) = (random_words(&mut rng, n), random_words(&mut rng, n));
        let mut want = vec![0u64; 2 * n];
        Dispatch::portable().mul_into(&mut want, &a, &b).unwrap();
        for m in Dispatch::all() {
            let mut got = vec![0u64; 2 * n];
            m.mul_into(&mut got, &a, &b).unwrap();
            assert!(got == want, "{} differs at {n} words", m.name());
        }
        assert!(mul_by_chunks(&a, &b, 1000) == want, "{n} words by chunks");
    }
}

#[test]
fn scratch_bound_covers_toom_sizes() {
    let mut rng = Rng::new(0x5eed_9f2a_000a);
    for (x, y) in [
        (16, 16),
        (47, 47),
        (300, 300),
        (1025, 1025),
        (9000, 9000),
        (20_000, 777),
    ] {
        let (a, b) = (random_words(&mut rng, x), random_words(&mut rng, y));
        let need = mul_scratch_len(x, y);
        let want = mul_bitwise_or_portable(&a, &b);
        for m in Dispatch::all() {
            let mut scratch = vec![!0u64; need];
            let mut out = vec![0u64; x + y];
            m.mul_into_with_scratch(&mut out, &a, &b, &mut scratch)
                .unwrap();
            assert!(out == want, "{} {x}×{y}", m.name());
        }
    }
}

fn mul_bitwise_or_portable(a: &[u64], b: &[u64]) -> Vec<u64> {
    if a.len() * b.len() <= 300 * 300 {
        return mul_bitwise(a, b);
    }
    let mut out = vec![0u64; a.len() + b.len()];
    Dispatch::portable().mul_into(&mut out, a, b).unwrap();
    out
}
