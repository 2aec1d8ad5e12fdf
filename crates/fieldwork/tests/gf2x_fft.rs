//! The additive-FFT product: forced at small sizes through
//! `Dispatch::mul_fft` against the bit-by-bit reference, against the
//! Toom/Karatsuba path at sizes around powers of two, on unbalanced and
//! extreme operands; and the public entry points on sizes that take the FFT
//! path by the plans.

use super::common;

use common::{Rng, mul_bitwise};
use fieldwork::gf2x::{Dispatch, Gf2xError, fft_scratch_len, mul_scratch_len};

fn random_words(rng: &mut Rng, n: usize) -> Vec<u64> {
    (0..n).map(|_| rng.next_u64_shaped()).collect()
}

/// The FFT product with backend `m`, scratch poisoned first.
fn fft_product(m: Dispatch, a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0xdead_beefu64; a.len() + b.len()];
    let mut scratch = vec![!0u64; fft_scratch_len(a.len(), b.len())];
    m.mul_fft(&mut out, a, b, &mut scratch)
        .expect("lengths are right");
    out
}

/// The Karatsuba/Toom path: a chunked product through the portable backend
/// is not needed; `mul_into` below the FFT thresholds is that path, and
/// above them the portable backend's plan is checked separately.
fn reference_product(a: &[u64], b: &[u64]) -> Vec<u64> {
    mul_bitwise(a, b)
}

#[test]
fn forced_fft_matches_bitwise_reference_on_small_sizes() {
    let mut rng = Rng::new(0xff7_0001);
    let mut compared = 0;
    let mut shapes: Vec<(usize, usize)> = (1..=20).map(|n| (n, n)).collect();
    shapes.extend([
        (1, 7),
        (7, 1),
        (3, 30),
        (31, 2),
        (33, 33),
        (64, 63),
        (65, 64),
        (100, 9),
    ]);
    for &(an, bn) in &shapes {
        let a = random_words(&mut rng, an);
        let b = random_words(&mut rng, bn);
        let want = reference_product(&a, &b);
        for m in Dispatch::all() {
            assert_eq!(fft_product(m, &a, &b), want, "{} {an}×{bn}", m.name());
            compared += 1;
        }
    }
    assert!(compared >= shapes.len());
}

#[test]
fn forced_fft_on_extreme_operands() {
    for n in [1usize, 2, 8, 16, 17, 64, 100] {
        let ones = vec![!0u64; n];
        let top = (0..n)
            .map(|i| u64::from(i == n - 1) << 63)
            .collect::<Vec<_>>();
        let shapes = [
            (ones.clone(), ones.clone()),
            (ones.clone(), top.clone()),
            (top.clone(), top.clone()),
            (vec![0; n], ones.clone()),
            (ones.clone(), vec![!0u64; n / 2 + 1]),
        ];
        for (a, b) in shapes {
            let want = reference_product(&a, &b);
            for m in Dispatch::all() {
                assert_eq!(fft_product(m, &a, &b), want, "{} n={n}", m.name());
            }
        }
    }
}

#[test]
fn forced_fft_matches_other_backends_around_powers_of_two() {
    // Sizes whose chunk counts sit just below and above a transform size
    // (2^r ≥ 4n points): 255/256/257, 1023/1024/1025 words, and unbalanced.
    let mut rng = Rng::new(0xff7_0002);
    let shapes = [
        (255, 255),
        (256, 256),
        (257, 257),
        (1023, 1024),
        (1025, 1025),
        (2000, 48),
        (3, 1500),
    ];
    for &(an, bn) in &shapes {
        let a = random_words(&mut rng, an);
        let b = random_words(&mut rng, bn);
        // The Karatsuba/Toom path (these sizes are below every FFT
        // threshold but the portable one, so use a backend's plan there).
        let mut want = vec![0u64; an + bn];
        let reference = Dispatch::pclmulqdq().unwrap_or(Dispatch::portable());
        reference
            .mul_into(&mut want, &a, &b)
            .expect("lengths are right");
        for m in Dispatch::all() {
            assert!(fft_product(m, &a, &b) == want, "{} {an}×{bn}", m.name());
        }
    }
}

#[test]
fn public_entry_points_take_the_fft_path() {
    // Every backend at sizes above its threshold (portable: 6 000 words;
    // the x86 backends: see gf2x::toom), checked against each other and
    // against a property that trusts no backend: a·(b + c) = a·b + a·c.
    let mut rng = Rng::new(0xff7_0003);
    for &(an, bn) in &[
        (16_384usize, 16_384usize),
        (20_000, 19_999),
        (40_000, 25_000),
    ] {
        let a = random_words(&mut rng, an);
        let b = random_words(&mut rng, bn);
        let c = random_words(&mut rng, bn);
        let bc: Vec<u64> = b.iter().zip(&c).map(|(x, y)| x ^ y).collect();
        let best = Dispatch::best();
        let mut ab = vec![0u64; an + bn];
        let mut ac = vec![0u64; an + bn];
        let mut abc = vec![0u64; an + bn];
        let mut scratch = vec![0u64; mul_scratch_len(an, bn)];
        best.mul_into_with_scratch(&mut ab, &a, &b, &mut scratch)
            .expect("lengths are right");
        best.mul_into_with_scratch(&mut ac, &a, &c, &mut scratch)
            .expect("lengths are right");
        best.mul_into_with_scratch(&mut abc, &a, &bc, &mut scratch)
            .expect("lengths are right");
        let sum: Vec<u64> = ab.iter().zip(&ac).map(|(x, y)| x ^ y).collect();
        assert!(abc == sum, "distributivity at {an}×{bn}");
        for m in Dispatch::all() {
            let mut got = vec![0u64; an + bn];
            m.mul_into(&mut got, &a, &b).expect("lengths are right");
            assert!(got == ab, "{} differs at {an}×{bn}", m.name());
        }
    }
}

#[test]
fn random_unbalanced_sizes_through_the_fft() {
    let mut rng = Rng::new(0xff7_0004);
    for _ in 0..12 {
        let an = 1 + (rng.next_u64() % 700) as usize;
        let bn = 1 + (rng.next_u64() % 700) as usize;
        let a = random_words(&mut rng, an);
        let b = random_words(&mut rng, bn);
        let mut want = vec![0u64; an + bn];
        Dispatch::best()
            .mul_into(&mut want, &a, &b)
            .expect("lengths are right");
        for m in Dispatch::all() {
            assert!(fft_product(m, &a, &b) == want, "{} {an}×{bn}", m.name());
        }
    }
}

#[test]
fn fft_entry_checks_lengths() {
    let a = [1u64; 40];
    let b = [3u64; 40];
    let mut out = [0u64; 79];
    let mut scratch = vec![0u64; fft_scratch_len(40, 40)];
    assert_eq!(
        Dispatch::portable().mul_fft(&mut out, &a, &b, &mut scratch),
        Err(Gf2xError::OutputLength {
            expected: 80,
            actual: 79
        })
    );
    let mut out = [0u64; 80];
    let short = scratch.len() - 1;
    assert_eq!(
        Dispatch::portable().mul_fft(&mut out, &a, &b, &mut scratch[..short]),
        Err(Gf2xError::ScratchLength {
            needed: short + 1,
            actual: short
        })
    );
    // Empty operands: the product is zero.
    let mut out = [5u64; 3];
    Dispatch::portable()
        .mul_fft(&mut out, &[], &[1, 2, 3], &mut [])
        .expect("empty");
    assert_eq!(out, [0; 3]);
    // The public scratch bound covers the FFT wherever a plan may take it.
    for n in [6_000usize, 8_192, 16_384, 16_385, 100_000] {
        assert!(mul_scratch_len(n, n) >= fft_scratch_len(n, n), "{n}");
    }
}
