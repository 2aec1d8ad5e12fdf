//! GF(2^m): every fixed field on every backend against a bit-by-bit
//! reference (schoolbook product, long division) written here, the field
//! properties, the run-time fields against the fixed ones and against
//! `Gf2Poly`, and the NIST binary curves' base points (FIPS 186-4 D.1.3,
//! `tests/data/nist_binary_curves.txt`) on their curves.

use super::common;

use common::Rng;
use fieldwork::gf2m::{
    BinaryField, Dispatch, F163, F233, F283, F409, F571, FieldElement, Gf2mError,
};
use fieldwork::gf2x::Gf2Poly;
use subtle::ConstantTimeEq;

/// The reference product: schoolbook bit by bit, then long division by f
/// (given by its exponents), both on `Vec<u64>` with no word products.
fn ref_mul(a: &[u64], b: &[u64], exps: &[usize]) -> Vec<u64> {
    let m = exps[0];
    let mut c = vec![0u64; 2 * a.len() + 1];
    for i in 0..64 * b.len() {
        if (b[i / 64] >> (i % 64)) & 1 == 1 {
            for j in 0..64 * a.len() {
                if (a[j / 64] >> (j % 64)) & 1 == 1 {
                    c[(i + j) / 64] ^= 1 << ((i + j) % 64);
                }
            }
        }
    }
    ref_reduce(c, exps, a.len(), m)
}

fn ref_reduce(mut c: Vec<u64>, exps: &[usize], words: usize, m: usize) -> Vec<u64> {
    for d in (m..64 * c.len()).rev() {
        if (c[d / 64] >> (d % 64)) & 1 == 1 {
            for &e in exps {
                let k = d - m + e;
                c[k / 64] ^= 1 << (k % 64);
            }
        }
    }
    c.truncate(words);
    c
}

fn random<F: FieldElement>(rng: &mut Rng) -> F {
    let mut w: Vec<u64> = (0..F::WORDS).map(|_| rng.next_u64_shaped()).collect();
    let top = F::M % 64;
    if top != 0 {
        w[F::WORDS - 1] &= (1 << top) - 1;
    }
    F::from_word_slice(&w).unwrap()
}

/// Inputs near the edges: 0, 1, x^(m−1), all ones, single bits.
fn edge_cases<F: FieldElement>() -> Vec<F> {
    let mut v = vec![F::ZERO, F::ONE];
    let mut all = vec![u64::MAX; F::WORDS];
    if F::M % 64 != 0 {
        all[F::WORDS - 1] = (1 << (F::M % 64)) - 1;
    }
    v.push(F::from_word_slice(&all).unwrap());
    for bit in [1, 63, 64, F::M - 64, F::M - 2, F::M - 1] {
        let mut w = vec![0u64; F::WORDS];
        w[bit / 64] = 1 << (bit % 64);
        v.push(F::from_word_slice(&w).unwrap());
    }
    v
}

fn check_field<F: FieldElement>(seed: u64) {
    let exps = F::modulus_exponents();
    assert_eq!(exps[0], F::M);
    assert!(Gf2Poly::from_exponents(exps).is_irreducible());
    let mut rng = Rng::new(seed);
    let mut inputs = edge_cases::<F>();
    inputs.extend((0..40).map(|_| random::<F>(&mut rng)));
    for backend in Dispatch::all() {
        let name = backend.name();
        for (i, a) in inputs.iter().enumerate() {
            let b = inputs[(i * 7 + 3) % inputs.len()];
            let want = ref_mul(a.as_words(), b.as_words(), exps);
            assert_eq!(
                backend.mul(a, &b).as_words(),
                want,
                "{name} m={} mul {a:?} {b:?}",
                F::M
            );
            let sq = ref_mul(a.as_words(), a.as_words(), exps);
            assert_eq!(backend.square(a).as_words(), sq, "{name} m={} square", F::M);
            // √a² = a and (√a)² = a.
            assert_eq!(backend.sqrt(&backend.square(a)), *a, "{name} sqrt");
            assert_eq!(backend.square(&backend.sqrt(a)), *a, "{name} sqrt²");
            let inv = backend.invert(a);
            if bool::from(a.is_zero()) {
                assert_eq!(inv, F::ZERO);
            } else {
                assert_eq!(
                    backend.mul(a, &inv),
                    F::ONE,
                    "{name} m={} invert {a:?}",
                    F::M
                );
            }
            // a^(2^m) = a; pow against repeated products.
            assert_eq!(backend.pow2k(a, F::M), *a);
            // a^(2^k) against k squarings for every k ≤ m (the inversion
            // chain's steps among them, applied as precomputed linear maps).
            if i % 16 == 5 {
                let mut s = *a;
                for k in 1..=F::M {
                    s = backend.square(&s);
                    assert_eq!(backend.pow2k(a, k), s, "{name} m={} pow2k {k}", F::M);
                }
            }
            let e = [0x1234_5678_9abc_def1u64, 3];
            let mut p = F::ONE;
            for k in (0..128).rev() {
                p = backend.square(&p);
                if (e[k / 64] >> (k % 64)) & 1 == 1 {
                    p = backend.mul(&p, a);
                }
            }
            assert_eq!(backend.pow(a, &e), p, "{name} pow");
            // Tr by its definition, Σ a^(2^i).
            let mut t = F::ZERO;
            let mut conj = *a;
            for _ in 0..F::M {
                t += conj;
                conj = backend.square(&conj);
            }
            assert!(t == F::ZERO || t == F::ONE);
            assert_eq!(bool::from(a.trace()), t == F::ONE, "m={} trace {a:?}", F::M);
            assert_eq!(a.square().trace().unwrap_u8(), a.trace().unwrap_u8());
            // H(a)² + H(a) = a + Tr(a).
            let h = backend.half_trace(a);
            assert_eq!(backend.square(&h) + h, *a + t, "{name} half-trace");
        }
        // Batches against the one-at-a-time operations.
        let n = inputs.len();
        let b: Vec<F> = inputs.iter().rev().copied().collect();
        let mut out = vec![F::ZERO; n];
        backend.mul_slices(&mut out, &inputs, &b).unwrap();
        for i in 0..n {
            assert_eq!(out[i], inputs[i] * b[i]);
        }
        backend.square_slices(&mut out, &inputs).unwrap();
        for i in 0..n {
            assert_eq!(out[i], inputs[i].square());
        }
        let mut inv = inputs.clone();
        backend.invert_batch(&mut inv);
        for i in 0..n {
            assert_eq!(
                inv[i],
                backend.invert(&inputs[i]),
                "{name} invert_batch {i}"
            );
        }
        assert_eq!(
            backend.mul_slices(&mut out[1..], &inputs, &b),
            Err(Gf2mError::Length {
                expected: n - 1,
                actual: n
            })
        );
    }
    // The trait's methods (best backend), CtOption results, quadratics.
    for a in &inputs {
        assert_eq!(bool::from(a.invert().is_some()), !bool::from(a.is_zero()));
        let z = a.solve_quadratic();
        assert_eq!(bool::from(z.is_some()), !bool::from(a.trace()));
        if let Some(z) = Option::<F>::from(z) {
            assert_eq!(z.square() + z, *a);
        }
        assert!(bool::from(a.ct_eq(a)));
    }
    // Encodings: bytes and hex round trips; bits at or above m rejected.
    for a in &inputs {
        let mut bytes = vec![0u8; F::BYTES];
        a.write_be_bytes(&mut bytes).unwrap();
        assert_eq!(F::from_be_slice(&bytes).unwrap(), *a);
        let hex = a.to_string();
        assert_eq!(hex.len(), 2 * F::BYTES);
        assert_eq!(hex.parse::<F>().unwrap(), *a);
    }
    let mut too_big = vec![0u8; F::BYTES];
    if F::M % 8 != 0 {
        too_big[0] = 1 << (F::M % 8);
        assert_eq!(
            F::from_be_slice(&too_big),
            Err(Gf2mError::NotReduced { m: F::M })
        );
    }
    let mut words = vec![0u64; F::WORDS];
    words[F::M / 64] = 1 << (F::M % 64);
    assert_eq!(
        F::from_word_slice(&words),
        Err(Gf2mError::NotReduced { m: F::M })
    );
    assert!(matches!(
        F::from_be_slice(&[0u8; 3]),
        Err(Gf2mError::Length { .. })
    ));
    assert_eq!("xyz".parse::<F>(), Err(Gf2mError::InvalidHex));
}

#[test]
fn f163_against_reference() {
    check_field::<F163>(163);
}

#[test]
fn f233_against_reference() {
    check_field::<F233>(233);
}

#[test]
fn f283_against_reference() {
    check_field::<F283>(283);
}

#[test]
fn f409_against_reference() {
    check_field::<F409>(409);
}

#[test]
fn f571_against_reference() {
    check_field::<F571>(571);
}

/// Operands (one element, or a batch) to results, on one backend.
type BatchOp<F> = fn(Dispatch, &(Vec<F>, Vec<F>)) -> Vec<F>;

/// Every backend against portable through the shared harness (a backend
/// the CPU or the cap lacks is reported and skipped): the single
/// operations on edge and random elements, and `mul_slices` /
/// `square_slices` on every length 0..=9 and a random one, each batch also
/// against the backend's own one-at-a-time product (the pair kernels of
/// `vpclmulqdq-ymm` against its single path, odd tails included).
fn backends_against_portable<F: FieldElement>(seed: u64) {
    let mut rng = Rng::new(seed);
    let portable = Dispatch::portable();
    let candidates = |f: BatchOp<F>| {
        [
            ("vpclmulqdq-ymm", Dispatch::vpclmulqdq_ymm()),
            ("vpclmulqdq-ymm-wide", Dispatch::vpclmulqdq_ymm_wide()),
            ("vpclmulqdq-avx512", Dispatch::vpclmulqdq_avx512()),
            (
                "vpclmulqdq-avx512-xmm-squares",
                Dispatch::vpclmulqdq_avx512_xmm_squares(),
            ),
            ("pclmulqdq", Dispatch::pclmulqdq()),
            ("pmull", Dispatch::pmull()),
        ]
        .map(|(name, k)| common::Candidate::new(name, k.map(move |k| move |i: &_| f(k, i))))
    };
    let mut singles: Vec<(Vec<F>, Vec<F>)> = edge_cases::<F>()
        .into_iter()
        .map(|a| (vec![a], vec![random::<F>(&mut rng)]))
        .collect();
    singles.extend((0..30).map(|_| (vec![random::<F>(&mut rng)], vec![random::<F>(&mut rng)])));
    let ops: [(&str, BatchOp<F>); 6] = [
        ("mul", |k, (a, b)| vec![k.mul(&a[0], &b[0])]),
        ("square", |k, (a, _)| vec![k.square(&a[0])]),
        ("sqrt", |k, (a, _)| vec![k.sqrt(&a[0])]),
        ("invert", |k, (a, _)| vec![k.invert(&a[0])]),
        ("half_trace", |k, (a, _)| vec![k.half_trace(&a[0])]),
        ("pow2k 7", |k, (a, _)| vec![k.pow2k(&a[0], 7)]),
    ];
    for (what, op) in ops {
        let compared = common::differential(
            &format!("gf2m m={} {what}", F::M),
            |i| op(portable, i),
            &candidates(op),
            singles.iter().cloned(),
        );
        assert!(compared > 0 || (Dispatch::pclmulqdq().is_none() && Dispatch::pmull().is_none()));
    }
    let random_len = 10 + (rng.next_u64() % 90) as usize;
    let batches: Vec<(Vec<F>, Vec<F>)> = (0..=9)
        .chain([random_len])
        .map(|n| {
            let mut a: Vec<F> = (0..n).map(|_| random::<F>(&mut rng)).collect();
            let b: Vec<F> = (0..n).map(|_| random::<F>(&mut rng)).collect();
            // Edge elements in some slots of both lanes.
            for (x, e) in a.iter_mut().step_by(3).zip(edge_cases::<F>()) {
                *x = e;
            }
            (a, b)
        })
        .collect();
    let mul_slices: BatchOp<F> = |k, (a, b)| {
        let mut out = vec![F::ONE; a.len()];
        k.mul_slices(&mut out, a, b).unwrap();
        out
    };
    let square_slices: BatchOp<F> = |k, (a, _)| {
        let mut out = vec![F::ONE; a.len()];
        k.square_slices(&mut out, a).unwrap();
        out
    };
    for (what, op) in [("mul_slices", mul_slices), ("square_slices", square_slices)] {
        common::differential(
            &format!("gf2m m={} {what}", F::M),
            |i| op(portable, i),
            &candidates(op),
            batches.iter().cloned(),
        );
    }
    for k in Dispatch::all() {
        for (a, b) in &batches {
            let one_by_one: Vec<F> = a.iter().zip(b).map(|(x, y)| k.mul(x, y)).collect();
            assert_eq!(
                mul_slices(k, &(a.clone(), b.clone())),
                one_by_one,
                "{} m={} n={}",
                k.name(),
                F::M,
                a.len()
            );
            let squares: Vec<F> = a.iter().map(|x| k.square(x)).collect();
            assert_eq!(
                square_slices(k, &(a.clone(), b.clone())),
                squares,
                "{} m={} n={}",
                k.name(),
                F::M,
                a.len()
            );
        }
    }
}

#[test]
fn every_backend_against_portable() {
    backends_against_portable::<F163>(1163);
    backends_against_portable::<F233>(1233);
    backends_against_portable::<F283>(1283);
    backends_against_portable::<F409>(1409);
    backends_against_portable::<F571>(1571);
}

#[test]
fn field_axioms() {
    fn axioms<F: FieldElement>(seed: u64) {
        let mut rng = Rng::new(seed);
        for _ in 0..50 {
            let (a, b, c) = (
                random::<F>(&mut rng),
                random::<F>(&mut rng),
                random::<F>(&mut rng),
            );
            assert_eq!(a * b, b * a);
            assert_eq!((a * b) * c, a * (b * c));
            assert_eq!(a * (b + c), a * b + a * c);
            assert_eq!(a + a, F::ZERO);
            assert_eq!(a * F::ONE, a);
            assert_eq!((a + b).square(), a.square() + b.square());
            assert_eq!((a * b).sqrt(), a.sqrt() * b.sqrt());
            assert_eq!(
                (a * b).trace().unwrap_u8() ^ (a * c).trace().unwrap_u8(),
                (a * (b + c)).trace().unwrap_u8()
            );
        }
    }
    axioms::<F163>(1);
    axioms::<F233>(2);
    axioms::<F283>(3);
    axioms::<F409>(4);
    axioms::<F571>(5);
}

#[test]
fn random_uses_the_generator() {
    use rand::SeedableRng;
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let a = F571::random(&mut rng);
    let b = F571::random(&mut rng);
    assert_ne!(a, b);
    assert_eq!(a.as_words()[8] >> 59, 0, "reduced");
}

/// The run-time field with a NIST modulus agrees with the fixed type.
fn runtime_matches<F: FieldElement>(seed: u64) {
    let field = BinaryField::new(Gf2Poly::from_exponents(F::modulus_exponents())).unwrap();
    assert!(field.has_sparse_reduction());
    assert_eq!(
        BinaryField::sparse_irreducible(F::M).unwrap().modulus(),
        field.modulus()
    );
    let mut rng = Rng::new(seed);
    for _ in 0..10 {
        let (a, b) = (random::<F>(&mut rng), random::<F>(&mut rng));
        let (ra, rb) = (
            field.from_words(a.as_words()).unwrap(),
            field.from_words(b.as_words()).unwrap(),
        );
        assert_eq!((&ra * &rb).as_words(), (a * b).as_words());
        assert_eq!((&ra + &rb).as_words(), (a + b).as_words());
        assert_eq!(ra.square().as_words(), a.square().as_words());
        assert_eq!(ra.sqrt().as_words(), a.sqrt().as_words());
        assert_eq!(
            ra.invert().unwrap().as_words(),
            a.invert().unwrap().as_words()
        );
        assert_eq!(ra.trace().unwrap_u8(), a.trace().unwrap_u8());
        assert_eq!(
            ra.half_trace().unwrap().as_words(),
            a.half_trace().as_words()
        );
        assert_eq!(ra.pow(&[12345]).as_words(), a.pow(&[12345]).as_words());
        assert_eq!(ra.to_be_bytes(), {
            let mut v = vec![0u8; F::BYTES];
            a.write_be_bytes(&mut v).unwrap();
            v
        });
    }
}

#[test]
fn runtime_fields_match_the_fixed_ones() {
    runtime_matches::<F163>(11);
    runtime_matches::<F233>(12);
    runtime_matches::<F283>(13);
    runtime_matches::<F409>(14);
    runtime_matches::<F571>(15);
}

/// Run-time fields of every reduction kind and arithmetic against `Gf2Poly`
/// (its own product, remainder, extended Euclid and powers): Barrett's
/// (m = 2, 8, 64), the stack arithmetic with divsteps (127, 131) and
/// without (128, 192, 256: m a multiple of 64; 577: past 9 words), word
/// vectors (1223).
#[test]
fn runtime_fields_against_gf2poly() {
    let moduli = [
        "x^2 + x + 1",
        "x^8 + x^4 + x^3 + x + 1",
        "x^64 + x^4 + x^3 + x + 1",
        "x^127 + x + 1",
        "x^128 + x^7 + x^2 + x + 1",
        "x^131 + x^8 + x^3 + x^2 + 1",
        "x^192 + x^7 + x^2 + x + 1",
        "x^256 + x^10 + x^5 + x^2 + 1",
        "x^1223 + x^255 + 1",
    ];
    let mut moduli: Vec<Gf2Poly> = moduli.iter().map(|t| t.parse().unwrap()).collect();
    moduli.push(
        BinaryField::sparse_irreducible(577)
            .unwrap()
            .modulus()
            .clone(),
    );
    let mut rng = Rng::new(99);
    for f in moduli {
        let text = f.to_string();
        let field = BinaryField::new(f.clone()).unwrap_or_else(|e| panic!("{text}: {e}"));
        for _ in 0..6 {
            let a = field.random(&mut rng);
            let b = field.random(&mut rng);
            let want = (&a.to_poly() * &b.to_poly()).checked_rem(&f).unwrap();
            assert_eq!((&a * &b).to_poly(), want, "{text}");
            if !bool::from(a.is_zero()) {
                let inv = a.invert().unwrap();
                assert!(bool::from((&a * &inv).ct_eq(&field.one())), "{text}");
                assert_eq!(
                    inv.to_poly(),
                    a.to_poly().inverse_mod(&f).unwrap(),
                    "{text}"
                );
            }
            assert_eq!(
                a.pow(&[0x1d5]).to_poly(),
                a.to_poly().pow_mod(0x1d5, &f).unwrap(),
                "{text}"
            );
            assert_eq!(
                a.pow2k(9).to_poly(),
                a.to_poly().pow2k_mod(9, &f).unwrap(),
                "{text}"
            );
            if let Some(h) = a.half_trace() {
                let tr = if bool::from(a.trace()) {
                    field.one()
                } else {
                    field.zero()
                };
                assert_eq!(&h.square() + &h, &a + &tr, "{text} half-trace");
            }
            assert_eq!(a.sqrt().square(), a, "{text}");
            let z = a.solve_quadratic();
            assert_eq!(bool::from(z.is_some()), !bool::from(a.trace()), "{text}");
            if let Some(z) = Option::<fieldwork::gf2m::Element>::from(z) {
                assert_eq!(&z.square() + &z, a, "{text} quadratic");
            }
        }
    }
}

/// The sparse reduction at its bound: trinomials x^m + x^(m−64) + 1 (the
/// top term as high as the word fold allows, so folded words are folded
/// again), the first two irreducible ones above 130, against `Gf2Poly`.
#[test]
fn runtime_sparse_reduction_at_its_bound() {
    let found: Vec<usize> = (130..700)
        .filter(|&m| Gf2Poly::from_exponents(&[m, m - 64, 0]).is_irreducible())
        .take(2)
        .collect();
    assert!(
        !found.is_empty(),
        "an irreducible x^m + x^(m-64) + 1 below 700"
    );
    let mut rng = Rng::new(4242);
    for m in found {
        let f = Gf2Poly::from_exponents(&[m, m - 64, 0]);
        let field = BinaryField::new(f.clone()).unwrap();
        assert!(field.has_sparse_reduction(), "m = {m}");
        for _ in 0..8 {
            let (a, b) = (field.random(&mut rng), field.random(&mut rng));
            let want = (&a.to_poly() * &b.to_poly()).checked_rem(&f).unwrap();
            assert_eq!((&a * &b).to_poly(), want, "m = {m}");
            let want = (&a.to_poly() * &a.to_poly()).checked_rem(&f).unwrap();
            assert_eq!(a.square().to_poly(), want, "m = {m} square");
        }
        // All ones: every word of the product's top half set.
        let ones = field.from_poly_vartime(&Gf2Poly::from_words(vec![u64::MAX; m.div_ceil(64)]));
        let want = (&ones.to_poly() * &ones.to_poly()).checked_rem(&f).unwrap();
        assert_eq!((&ones * &ones).to_poly(), want, "m = {m} ones");
    }
}

/// `a *= &b` and `a += &b` against the binary operators and `Gf2Poly`: a
/// sparse modulus on the stack path (3, 10 and 16 words), one past it (20
/// words, the allocating product) and one reduced by Barrett's method.
#[test]
fn runtime_in_place_operators() {
    let fields = [
        BinaryField::new("x^131 + x^8 + x^3 + x^2 + 1".parse().unwrap()).unwrap(),
        BinaryField::sparse_irreducible(577).unwrap(),
        BinaryField::new("x^1024 + x^19 + x^6 + x + 1".parse().unwrap()).unwrap(),
        BinaryField::new("x^1223 + x^255 + 1".parse().unwrap()).unwrap(),
        BinaryField::new("x^8 + x^4 + x^3 + x + 1".parse().unwrap()).unwrap(),
    ];
    assert!(!fields[4].has_sparse_reduction());
    let mut rng = Rng::new(577);
    for field in &fields {
        let f = field.modulus();
        let m = field.degree();
        let b = field.random(&mut rng);
        let mut a = field.random(&mut rng);
        let mut chained = a.clone();
        for _ in 0..6 {
            let want = (&a.to_poly() * &b.to_poly()).checked_rem(f).unwrap();
            let product = &a * &b;
            a *= &b;
            assert_eq!(a, product, "m = {m}");
            assert_eq!(a.to_poly(), want, "m = {m}");
            chained = &chained * &b;
            assert_eq!(a, chained, "m = {m} chain");
            let sum = &a + &b;
            let mut c = a.clone();
            c += &b;
            assert_eq!(c, sum, "m = {m} sum");
        }
    }
    // Elements of two fields: an error, and `self` unchanged.
    let mut x = fields[0].random(&mut rng);
    let y = fields[1].random(&mut rng);
    let before = x.clone();
    assert_eq!(x.try_mul_assign(&y), Err(Gf2mError::FieldMismatch));
    assert_eq!(x.try_add_assign(&y), Err(Gf2mError::FieldMismatch));
    assert_eq!(x, before);
}

#[test]
#[should_panic(expected = "different fields")]
fn runtime_in_place_product_of_two_fields_panics() {
    let f = BinaryField::sparse_irreducible(163).unwrap();
    let g = BinaryField::sparse_irreducible(233).unwrap();
    let mut x = f.one();
    x *= &g.one();
}

/// Dense moduli (Barrett reduction), found by search.
#[test]
fn runtime_dense_modulus() {
    for m in [67usize, 100, 163, 300] {
        let mut found = None;
        let mut rng = Rng::new(m as u64);
        while found.is_none() {
            let mut w: Vec<u64> = (0..m / 64 + 1).map(|_| rng.next_u64()).collect();
            let top = m % 64;
            let last = w.len() - 1;
            w[last] &= (1u64 << top) - 1;
            w[last] |= 1 << top;
            w[0] |= 1;
            let f = Gf2Poly::from_u64s(&w);
            if f.is_irreducible() {
                found = Some(f);
            }
        }
        let f = found.unwrap();
        let field = BinaryField::new(f.clone()).unwrap();
        assert!(!field.has_sparse_reduction());
        for _ in 0..10 {
            let a = field.random(&mut rng);
            let b = field.random(&mut rng);
            let want = (&a.to_poly() * &b.to_poly()).checked_rem(&f).unwrap();
            assert_eq!((&a * &b).to_poly(), want, "m={m}");
            assert_eq!(
                a.square().to_poly(),
                a.to_poly().square().checked_rem(&f).unwrap()
            );
            assert!(bool::from((&a * &a.invert().unwrap()).ct_eq(&field.one())));
        }
    }
}

#[test]
fn runtime_errors() {
    assert_eq!(
        BinaryField::new(Gf2Poly::one()).unwrap_err(),
        Gf2mError::Degree(0)
    );
    assert_eq!(
        BinaryField::new("x + 1".parse().unwrap()).unwrap_err(),
        Gf2mError::Degree(1)
    );
    assert_eq!(
        BinaryField::new("x^4 + 1".parse().unwrap()).unwrap_err(),
        Gf2mError::Reducible
    );
    assert_eq!(
        BinaryField::new(Gf2Poly::x_pow(10_001) + Gf2Poly::one()).unwrap_err(),
        Gf2mError::Degree(10_001)
    );
    let f = BinaryField::sparse_irreducible(113).unwrap();
    let g = BinaryField::sparse_irreducible(127).unwrap();
    assert_eq!(
        f.one().try_mul(&g.one()).unwrap_err(),
        Gf2mError::FieldMismatch
    );
    assert!(matches!(
        f.from_words(&[0, 1 << 49]),
        Err(Gf2mError::NotReduced { m: 113 })
    ));
    assert!(matches!(
        f.from_be_bytes(&[0; 3]),
        Err(Gf2mError::Length { .. })
    ));
    assert_eq!(f.from_hex("0x1").unwrap(), f.one());
    // Every error names its cause.
    assert!(Gf2mError::Reducible.to_string().contains("irreducible"));
}

/// The lowest-weight irreducibles of the NIST degrees are the NIST ones
/// (and x^4 + x + 1, x^8 + x^4 + x^3 + x + 1 for the small degrees).
#[test]
fn sparse_irreducible_gives_the_standard_polynomials() {
    for (m, text) in [
        (4, "x^4 + x + 1"),
        (8, "x^8 + x^4 + x^3 + x + 1"),
        (163, "x^163 + x^7 + x^6 + x^3 + 1"),
        (233, "x^233 + x^74 + 1"),
        (283, "x^283 + x^12 + x^7 + x^5 + 1"),
        (409, "x^409 + x^87 + 1"),
        (571, "x^571 + x^10 + x^5 + x^2 + 1"),
        // No trinomial of degree 1024 (Swan): the first pentanomial, as in
        // Seroussi's table (HP Labs HPL-98-135, 1998).
        (1024, "x^1024 + x^19 + x^6 + x + 1"),
    ] {
        assert_eq!(
            BinaryField::sparse_irreducible(m)
                .unwrap()
                .modulus()
                .to_string(),
            text
        );
    }
}

/// One record of `tests/data/nist_binary_curves.txt`.
struct Curve {
    name: String,
    poly: Vec<usize>,
    a: String,
    b: String,
    gx: String,
    gy: String,
    n: String,
}

fn curves() -> Vec<Curve> {
    let text = include_str!("data/nist_binary_curves.txt");
    let mut out = Vec::new();
    for record in text.split("\n\n") {
        let get = |key: &str| {
            record
                .lines()
                .filter(|l| !l.starts_with('#'))
                .find_map(|l| l.split_once(" = ").filter(|(k, _)| k.trim() == key))
                .map(|(_, v)| v.trim().to_string())
        };
        let Some(name) = get("curve") else { continue };
        out.push(Curve {
            name,
            poly: get("poly")
                .unwrap()
                .split_whitespace()
                .map(|e| e.parse().unwrap())
                .collect(),
            a: get("a").unwrap(),
            b: get("b").unwrap(),
            gx: get("gx").unwrap(),
            gy: get("gy").unwrap(),
            n: get("n").unwrap(),
        });
    }
    out
}

/// `k·P` on y² + xy = x³ + ax² + b in affine coordinates (None is the
/// point at infinity), by double-and-add with the field's inversion.
fn scalar_mul<F: FieldElement>(a: F, p: (F, F), k: &Gf2Poly) -> Option<(F, F)> {
    let add = |p: Option<(F, F)>, q: Option<(F, F)>| -> Option<(F, F)> {
        let ((x1, y1), (x2, y2)) = match (p, q) {
            (None, q) => return q,
            (p, None) => return p,
            (Some(p), Some(q)) => (p, q),
        };
        if x1 == x2 {
            if y1 != y2 || x1 == F::ZERO {
                return None; // Q = −P (−(x, y) = (x, x + y)), or 2P with x = 0
            }
            // Doubling: λ = x + y/x.
            let l = x1 + y1 * x1.invert().unwrap();
            let x3 = l.square() + l + a;
            return Some((x3, x1.square() + (l + F::ONE) * x3));
        }
        let l = (y1 + y2) * (x1 + x2).invert().unwrap();
        let x3 = l.square() + l + x1 + x2 + a;
        Some((x3, l * (x1 + x3) + x3 + y1))
    };
    let mut r = None;
    for i in (0..k.bit_len()).rev() {
        r = add(r, r);
        if k.coeff(i) {
            r = add(r, Some(p));
        }
    }
    r
}

fn check_curve<F: FieldElement>(c: &Curve) {
    assert_eq!(F::modulus_exponents(), c.poly.as_slice(), "{}", c.name);
    let (a, b): (F, F) = (c.a.parse().unwrap(), c.b.parse().unwrap());
    let (x, y): (F, F) = (c.gx.parse().unwrap(), c.gy.parse().unwrap());
    // y² + xy = x³ + ax² + b.
    assert_eq!(
        y.square() + x * y,
        x.square() * x + a * x.square() + b,
        "{}: G on the curve",
        c.name
    );
    // The same with the run-time field of the same modulus.
    let field = BinaryField::new(Gf2Poly::from_exponents(&c.poly)).unwrap();
    let [ra, rb, rx, ry] = [&c.a, &c.b, &c.gx, &c.gy].map(|h| field.from_hex(h).unwrap());
    assert_eq!(
        &ry.square() + &(&rx * &ry),
        &(&(&rx.square() * &rx) + &(&ra * &rx.square())) + &rb
    );
    // n·G = O and (n − 1)·G = −G = (x, x + y): the order, through
    // hundreds of inversions.
    let n = Gf2Poly::from_hex(&c.n).unwrap(); // the integer n's bits
    assert_eq!(scalar_mul(a, (x, y), &n), None, "{}: n·G", c.name);
    let mut n1 = n.clone();
    n1.set_coeff(0, false); // n is odd
    assert_eq!(
        scalar_mul(a, (x, y), &n1),
        Some((x, x + y)),
        "{}: (n−1)·G",
        c.name
    );
}

#[test]
fn nist_curve_base_points() {
    let all = curves();
    assert_eq!(all.len(), 10);
    for c in &all {
        match c.poly[0] {
            163 => check_curve::<F163>(c),
            233 => check_curve::<F233>(c),
            283 => check_curve::<F283>(c),
            409 => check_curve::<F409>(c),
            571 => check_curve::<F571>(c),
            m => panic!("unexpected degree {m}"),
        }
    }
}

/// A mixed chain written once over `gf2m::Backend`: products, squares,
/// roots, a half-trace, an inversion and a power, each feeding the next.
struct Mixed<'a, F> {
    start: F,
    others: &'a [F],
}

impl<F: FieldElement> fieldwork::gf2m::Computation for Mixed<'_, F> {
    type Output = Vec<F>;
    #[inline(always)]
    fn run<B: fieldwork::gf2m::Backend>(self, b: B) -> Vec<F> {
        let mut x = self.start;
        let mut trail = Vec::with_capacity(self.others.len());
        for (i, y) in self.others.iter().enumerate() {
            x = match i % 6 {
                0 => b.mul(&x, y),
                1 => b.square(&b.mul(&x, y)),
                2 => b.sqrt(&x) + *y,
                3 => b.half_trace(&x) + b.pow2k(y, i),
                4 => b.invert(&(x + *y)),
                _ => b.pow(&x, &[i as u64 + 3, 1]),
            };
            trail.push(x);
        }
        trail
    }
}

/// The same chain by the operators and element methods.
fn mixed_by_operators<F: FieldElement>(start: F, others: &[F]) -> Vec<F> {
    let mut x = start;
    let mut trail = Vec::new();
    for (i, y) in others.iter().enumerate() {
        x = match i % 6 {
            0 => x * *y,
            1 => (x * *y).square(),
            2 => x.sqrt() + *y,
            3 => x.half_trace() + y.pow2k(i),
            4 => (x + *y).invert().unwrap_or(F::ZERO),
            _ => x.pow(&[i as u64 + 3, 1]),
        };
        trail.push(x);
    }
    trail
}

fn check_computation<F: FieldElement>(seed: u64) {
    let mut rng = Rng::new(seed);
    let mut others = edge_cases::<F>();
    others.extend((0..60).map(|_| random::<F>(&mut rng)));
    let start = random::<F>(&mut rng);
    let want = Dispatch::portable().run(Mixed {
        start,
        others: &others,
    });
    assert_eq!(want, mixed_by_operators(start, &others), "m={}", F::M);
    let mut ran = 0;
    for backend in Dispatch::all() {
        let got = backend.run(Mixed {
            start,
            others: &others,
        });
        assert_eq!(got, want, "{} m={}", backend.name(), F::M);
        ran += 1;
    }
    assert!(ran >= 1);
    // `gf2m::run` is the best backend's.
    let got = fieldwork::gf2m::run(Mixed {
        start,
        others: &others,
    });
    assert_eq!(got, want, "gf2m::run m={}", F::M);
}

#[test]
fn computation_on_every_backend_matches_portable_and_the_operators() {
    check_computation::<F163>(0x163);
    check_computation::<F233>(0x233);
    check_computation::<F283>(0x283);
    check_computation::<F409>(0x409);
    check_computation::<F571>(0x571);
}
