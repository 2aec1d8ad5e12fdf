//! `gf2x::Gf2Poly`: ring and division laws on random polynomials of many
//! sizes, division against bit-at-a-time long division (the two division
//! paths against each other are a unit test in `gf2x/poly.rs`), the
//! text/hex/byte formats, and known answers from published sources
//! (FIPS 186-4, FIPS 197, NIST SP 800-38D, OEIS A001037).

use super::common;

use common::Rng;
use fieldwork::gf2x::{Gf2Poly, ParsePolyError};

/// A random polynomial of exactly `words` words before normalisation (the top
/// word may come out zero, so lengths below `words` occur too), with the
/// shaped generator's sparse, dense and one-bit words.
fn random_poly(rng: &mut Rng, words: usize) -> Gf2Poly {
    Gf2Poly::from_words((0..words).map(|_| rng.next_u64_shaped()).collect())
}

/// A random polynomial of degree exactly `deg`.
fn random_of_degree(rng: &mut Rng, deg: usize) -> Gf2Poly {
    let mut p = random_poly(rng, deg / 64 + 1);
    for i in deg + 1..64 * (deg / 64 + 1) {
        p.set_coeff(i, false);
    }
    p.set_coeff(deg, true);
    p
}

/// The definition of the product: the sum of `a·x^i` over the set bits `i`
/// of `b`, with shifts and XORs only.
fn mul_reference(a: &Gf2Poly, b: &Gf2Poly) -> Gf2Poly {
    let mut acc = Gf2Poly::zero();
    for i in 0..b.bit_len() {
        if b.coeff(i) {
            acc += &(a << i);
        }
    }
    acc
}

/// Long division one quotient bit at a time: the definition.
fn divrem_reference(a: &Gf2Poly, d: &Gf2Poly) -> (Gf2Poly, Gf2Poly) {
    let m = d.degree().expect("divisor is not zero");
    let (mut q, mut r) = (Gf2Poly::zero(), a.clone());
    while let Some(n) = r.degree() {
        if n < m {
            break;
        }
        q.set_coeff(n - m, true);
        r += &(d << (n - m));
    }
    (q, r)
}

/// Checks `a = q·d + r` and `deg r < deg d`. Returns the quotient and
/// remainder. (That the schoolbook and Newton paths, and a random block
/// width, agree on these inputs is the unit test in `gf2x/poly.rs`.)
fn check_divrem(a: &Gf2Poly, d: &Gf2Poly) -> (Gf2Poly, Gf2Poly) {
    let (q, r) = a.checked_divrem(d).expect("non-zero divisor");
    assert_eq!(&(&q * d) + &r, *a, "a = q·d + r for a = {a:?}, d = {d:?}");
    assert!(
        r.degree() < d.degree(),
        "deg r < deg d for a = {a:?}, d = {d:?}"
    );
    (q, r)
}

// ---------------------------------------------------------------------------
// Construction and inspection.

#[test]
fn constructors_and_inspection() {
    let zero = Gf2Poly::zero();
    assert!(zero.is_zero() && !zero.is_one());
    assert_eq!(zero.degree(), None);
    assert_eq!(zero.bit_len(), 0);
    assert_eq!(zero.as_words(), &[] as &[u64]);
    assert_eq!(Gf2Poly::default(), zero);
    assert_eq!(Gf2Poly::from(0u64), zero);
    assert_eq!(Gf2Poly::from_u64s(&[0, 0, 0]), zero);

    let one = Gf2Poly::one();
    assert!(one.is_one() && !one.is_zero());
    assert_eq!(one.degree(), Some(0));
    assert_eq!(one, Gf2Poly::from(1u64));
    assert_eq!(one, Gf2Poly::x_pow(0));

    for n in [1usize, 2, 63, 64, 65, 127, 128, 1000] {
        let p = Gf2Poly::x_pow(n);
        assert_eq!(p.degree(), Some(n));
        assert_eq!(p.bit_len(), n + 1);
        assert!(p.coeff(n) && !p.coeff(n - 1) && !p.coeff(n + 1));
        assert_eq!(p.as_words().len(), n / 64 + 1);
    }

    // Normalisation: trailing zero words go, equality follows the polynomial.
    let p = Gf2Poly::from_u64s(&[5, 0, 7, 0, 0]);
    assert_eq!(p.as_words(), &[5, 0, 7]);
    assert_eq!(p.to_u64s(), vec![5, 0, 7]);
    assert_eq!(p, Gf2Poly::from_words(vec![5, 0, 7]));
    assert_eq!(p.degree(), Some(128 + 2));
    assert_eq!(p.clone().into_words(), vec![5, 0, 7]);

    // Repeated exponents cancel.
    assert_eq!(
        Gf2Poly::from_exponents(&[3, 200, 3, 0, 200, 200]),
        Gf2Poly::from_exponents(&[0, 200])
    );
    assert_eq!(Gf2Poly::from_exponents(&[7, 7]), zero);
    assert_eq!(Gf2Poly::from_exponents(&[]), zero);

    // set_coeff grows and shrinks the word vector.
    let mut q = Gf2Poly::zero();
    q.set_coeff(300, true);
    q.set_coeff(1, true);
    assert_eq!(q, Gf2Poly::from_exponents(&[300, 1]));
    q.set_coeff(300, false);
    assert_eq!(q.as_words(), &[2]);
    q.set_coeff(5000, false); // beyond the end: no change
    assert_eq!(q.as_words(), &[2]);
    q.set_coeff(1, false);
    assert!(q.is_zero());
}

// ---------------------------------------------------------------------------
// Ring laws.

#[test]
fn ring_laws_on_random_polynomials() {
    let seed = 0x5eed_9017_0001;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    let mut checked = 0;
    for round in 0..600 {
        let (na, nb, nc) = (round % 41, (round * 7 + 3) % 41, (round * 13 + 5) % 41);
        let a = random_poly(&mut rng, na);
        let b = random_poly(&mut rng, nb);
        let c = random_poly(&mut rng, nc);
        let ab = &a * &b;
        assert_eq!(ab, &b * &a, "commutativity");
        assert_eq!(&ab * &c, &a * &(&b * &c), "associativity of ·");
        assert_eq!(&(&a + &b) + &c, &a + &(&b + &c), "associativity of +");
        assert_eq!(&a * &(&b + &c), &ab + &(&a * &c), "distributivity");
        assert_eq!(&a + &a, Gf2Poly::zero(), "characteristic 2");
        assert_eq!(&a - &b, &a + &b, "subtraction is addition");
        assert_eq!(a.square(), &a * &a, "square");
        assert_eq!(
            ab.degree(),
            a.degree().zip(b.degree()).map(|(x, y)| x + y),
            "no zero divisors"
        );
        if na <= 6 && nb <= 6 {
            assert_eq!(ab, mul_reference(&a, &b), "product against the definition");
        }
        checked += 1;
    }
    assert_eq!(checked, 600);
}

#[test]
fn operator_forms_agree() {
    let mut rng = Rng::new(0x5eed_9017_0002);
    for words in [0usize, 1, 3, 17, 40] {
        let a = random_poly(&mut rng, words);
        let b = random_poly(&mut rng, words / 2 + 1);
        let d = random_poly(&mut rng, words / 3 + 1) + Gf2Poly::x_pow(5); // non-zero
        let sum = &a + &b;
        assert_eq!(a.clone() + b.clone(), sum);
        assert_eq!(a.clone() + &b, sum);
        assert_eq!(&a + b.clone(), sum);
        assert_eq!(a.clone() - b.clone(), sum);
        assert_eq!(a.clone() - &b, sum);
        assert_eq!(&a - b.clone(), sum);
        let mut s = a.clone();
        s += &b;
        assert_eq!(s, sum);
        let mut s = b.clone();
        s += a.clone(); // the longer operand on the right
        assert_eq!(s, sum);
        s -= &b;
        assert_eq!(s, a);
        s -= b.clone();
        assert_eq!(s, sum);

        let prod = &a * &b;
        assert_eq!(a.clone() * b.clone(), prod);
        assert_eq!(a.clone() * &b, prod);
        assert_eq!(&a * b.clone(), prod);
        let mut p = a.clone();
        p *= &b;
        assert_eq!(p, prod);
        let mut p = a.clone();
        p *= b.clone();
        assert_eq!(p, prod);

        let (q, r) = a.checked_divrem(&d).expect("d is not zero");
        assert_eq!(&a / &d, q);
        assert_eq!(a.clone() / d.clone(), q);
        assert_eq!(a.clone() / &d, q);
        assert_eq!(&a / d.clone(), q);
        assert_eq!(&a % &d, r);
        assert_eq!(a.clone() % d.clone(), r);
        assert_eq!(a.clone() % &d, r);
        assert_eq!(&a % d.clone(), r);
        assert_eq!(a.checked_rem(&d), Some(r.clone()));
        let mut x = a.clone();
        x /= &d;
        assert_eq!(x, q);
        let mut x = a.clone();
        x %= d.clone();
        assert_eq!(x, r);
    }
}

// ---------------------------------------------------------------------------
// Division.

#[test]
fn divrem_small_and_medium_against_reference() {
    let seed = 0x5eed_9017_0003;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    let mut cases = 0;
    for an in 0..=40 {
        for dn in [1usize, 2, 3, 5, 8, 13, 14, 15, 16, 20, 27, 40] {
            let a = random_poly(&mut rng, an);
            let d = random_poly(&mut rng, dn) + Gf2Poly::one(); // never zero
            let (q, r) = check_divrem(&a, &d);
            if an <= 12 {
                assert_eq!((q, r), divrem_reference(&a, &d), "against bitwise division");
            }
            cases += 1;
        }
    }
    // Divisors of every small degree, including 0 (d = 1) and 63, 64, 65.
    for deg in (0..=70).chain([127, 128, 129, 191, 192]) {
        let d = random_of_degree(&mut rng, deg);
        for an in [0usize, 1, 2, 5, 20] {
            let a = random_poly(&mut rng, an);
            let (q, r) = check_divrem(&a, &d);
            assert_eq!((q, r), divrem_reference(&a, &d), "deg d = {deg}");
            cases += 1;
        }
    }
    assert_eq!(cases, 41 * 12 + 76 * 5);
}

#[test]
fn divrem_special_cases() {
    let mut rng = Rng::new(0x5eed_9017_0004);
    let a = random_poly(&mut rng, 9);
    // By one, by itself, by a larger polynomial, of zero.
    assert_eq!(
        a.checked_divrem(&Gf2Poly::one()),
        Some((a.clone(), Gf2Poly::zero()))
    );
    assert_eq!(
        a.checked_divrem(&a),
        Some((Gf2Poly::one(), Gf2Poly::zero()))
    );
    let big = &a << 1;
    assert_eq!(big.checked_divrem(&a).map(|qr| qr.1), Some(Gf2Poly::zero()));
    assert_eq!(a.checked_divrem(&big), Some((Gf2Poly::zero(), a.clone())));
    assert_eq!(
        Gf2Poly::zero().checked_divrem(&a),
        Some((Gf2Poly::zero(), Gf2Poly::zero()))
    );
    // Exact division recovers the factor, on both paths.
    let b = random_poly(&mut rng, 30) + Gf2Poly::one();
    let c = random_poly(&mut rng, 25) + Gf2Poly::one();
    let bc = &b * &c;
    assert_eq!(check_divrem(&bc, &c), (b.clone(), Gf2Poly::zero()));
    assert_eq!(check_divrem(&bc, &b), (c, Gf2Poly::zero()));
    // Division by zero: None from the checked methods.
    assert_eq!(a.checked_divrem(&Gf2Poly::zero()), None);
    assert_eq!(a.checked_rem(&Gf2Poly::zero()), None);
    assert_eq!(a.inverse_mod(&Gf2Poly::zero()), None);
    assert_eq!(a.pow_mod(3, &Gf2Poly::zero()), None);
    assert_eq!(a.pow2k_mod(3, &Gf2Poly::zero()), None);
}

#[test]
#[should_panic(expected = "division by the zero polynomial")]
fn div_operator_panics_on_zero() {
    let _ = Gf2Poly::one() / Gf2Poly::zero();
}

#[test]
#[should_panic(expected = "remainder modulo the zero polynomial")]
fn rem_operator_panics_on_zero() {
    let _ = &Gf2Poly::one() % &Gf2Poly::zero();
}

#[test]
fn divrem_large_newton_path() {
    // Sizes where the Newton path runs with wide blocks: balanced, a quotient
    // shorter than the divisor, and a quotient many divisors long.
    let seed = 0x5eed_9017_0005;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    for (an, dn) in [
        (4000, 2000),
        (2000, 1000),
        (2100, 2000),
        (2000, 30),
        (2000, 300),
        (2001, 1999),
        (130, 64),
    ] {
        let a = random_poly(&mut rng, an);
        let d = random_poly(&mut rng, dn) + Gf2Poly::one();
        check_divrem(&a, &d);
    }
    // Exact division of a 2000-word product by one factor, from dense words.
    let b = Gf2Poly::from_words((0..1200).map(|_| rng.next_u64()).collect());
    let c = Gf2Poly::from_words((0..900).map(|_| rng.next_u64()).collect());
    let (q, r) = check_divrem(&(&b * &c), &c);
    assert_eq!(q, b);
    assert!(r.is_zero());
}

#[test]
fn reduction_is_a_ring_homomorphism() {
    let seed = 0x5eed_9017_0006;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    for round in 0..300 {
        let m = random_poly(&mut rng, round % 40 + 1) + Gf2Poly::one();
        let a = random_poly(&mut rng, (round * 3) % 41);
        let b = random_poly(&mut rng, (round * 5) % 41);
        let lhs = &(&a * &b) % &m;
        let rhs = &(&(&a % &m) * &(&b % &m)) % &m;
        assert_eq!(lhs, rhs, "(a·b) mod m, round {round}");
        assert_eq!(&(&a + &b) % &m, &(&a % &m) + &(&b % &m), "(a+b) mod m");
    }
}

// ---------------------------------------------------------------------------
// Gcd, inverse, powers.

#[test]
fn gcd_and_bezout() {
    let seed = 0x5eed_9017_0007;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    let mut nontrivial = 0;
    for round in 0..200 {
        let common_factor = random_poly(&mut rng, round % 4 + 1) + Gf2Poly::one();
        let a = &random_poly(&mut rng, round % 20) * &common_factor;
        let b = &random_poly(&mut rng, (round * 7) % 20) * &common_factor;
        let g = a.gcd(&b);
        let (g2, s, t) = a.xgcd(&b);
        assert_eq!(g, g2, "gcd and xgcd agree");
        assert_eq!(&(&s * &a) + &(&t * &b), g, "Bézout: s·a + t·b = g");
        assert_eq!(g, b.gcd(&a), "symmetry");
        if a.is_zero() && b.is_zero() {
            assert!(g.is_zero());
            continue;
        }
        // g divides both and is divisible by the planted common factor.
        assert!((&a % &g).is_zero() && (&b % &g).is_zero());
        assert!((&g % &common_factor).is_zero());
        // The cofactors are the small ones.
        if let (Some(da), Some(db), Some(dg)) = (a.degree(), b.degree(), g.degree())
            && da > dg
            && db > dg
        {
            assert!(s.degree().is_none_or(|ds| ds < db - dg), "deg s");
            assert!(t.degree().is_none_or(|dt| dt < da - dg), "deg t");
        }
        // Coprime after dividing out g.
        assert!((&a / &g).gcd(&(&b / &g)).is_one());
        if !g.is_one() {
            nontrivial += 1;
        }
    }
    assert!(nontrivial > 100, "most gcds carry the planted factor");
    // Edge cases.
    let p = Gf2Poly::from_hex("1f").expect("hex");
    assert_eq!(p.gcd(&Gf2Poly::zero()), p);
    assert_eq!(Gf2Poly::zero().gcd(&p), p);
    assert_eq!(
        Gf2Poly::zero().xgcd(&Gf2Poly::zero()),
        (Gf2Poly::zero(), Gf2Poly::one(), Gf2Poly::zero())
    );
}

#[test]
fn gcd_of_large_coprime_and_shared() {
    // Long enough that the Newton path runs inside Euclid's first steps.
    let mut rng = Rng::new(0x5eed_9017_0008);
    let f = random_poly(&mut rng, 20) + Gf2Poly::one();
    let a = &random_poly(&mut rng, 30) * &f;
    let b = &random_poly(&mut rng, 45) * &f;
    let (g, s, t) = a.xgcd(&b);
    assert_eq!(&(&s * &a) + &(&t * &b), g);
    assert!((&g % &f).is_zero());
}

#[test]
fn inverse_mod_random() {
    let seed = 0x5eed_9017_0009;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    let (mut invertible, mut not) = (0, 0);
    for round in 0..300 {
        let m = random_poly(&mut rng, round % 12 + 1);
        if m.is_zero() || m.is_one() {
            continue;
        }
        let a = random_poly(&mut rng, round % 15);
        match a.inverse_mod(&m) {
            Some(u) => {
                assert!(u.degree() < m.degree(), "inverse is reduced");
                assert!((&(&a * &u) % &m).is_one(), "a·a⁻¹ = 1 mod m");
                assert!(a.gcd(&m).is_one());
                invertible += 1;
            }
            None => {
                assert!(!a.gcd(&m).is_one(), "None only when not coprime");
                not += 1;
            }
        }
    }
    assert!(invertible > 50 && not > 20, "{invertible} / {not}");
    // In a field every non-zero element is invertible: GF(2^571) with the
    // FIPS 186-4 pentanomial.
    let m: Gf2Poly = "x^571 + x^10 + x^5 + x^2 + 1".parse().expect("poly");
    for _ in 0..20 {
        let a = random_poly(&mut rng, 12);
        let u = a.inverse_mod(&m);
        if (&a % &m).is_zero() {
            assert_eq!(u, None);
        } else {
            let u = u.expect("field element is invertible");
            assert!((&(&a * &u) % &m).is_one());
            assert_eq!(u.inverse_mod(&m), Some(&a % &m), "involution");
        }
    }
    // Modulo 1 every polynomial is 0.
    assert_eq!(
        Gf2Poly::from(7u64).inverse_mod(&Gf2Poly::one()),
        Some(Gf2Poly::zero())
    );
}

#[test]
fn powers_mod() {
    let mut rng = Rng::new(0x5eed_9017_000a);
    for round in 0..40 {
        let m = random_poly(&mut rng, round % 20 + 1) + Gf2Poly::one();
        let a = random_poly(&mut rng, round % 25);
        // pow_mod against repeated multiplication.
        let mut acc = &Gf2Poly::one() % &m;
        for e in 0..20u64 {
            assert_eq!(a.pow_mod(e, &m), Some(acc.clone()), "a^{e} mod m");
            acc = &(&acc * &a) % &m;
        }
        // pow2k_mod against pow_mod with e = 2^k.
        for k in [0usize, 1, 5, 63] {
            assert_eq!(a.pow2k_mod(k, &m), a.pow_mod(1 << k, &m), "k = {k}");
        }
    }
    // Frobenius: a^(2^m) = a in GF(2^m) for the FIPS 186-4 polynomials, and
    // a^(2^m − 1) = 1 (checked with the large-exponent pow2k_mod).
    for (m_str, deg) in [
        ("x^163 + x^7 + x^6 + x^3 + 1", 163),
        ("x^233 + x^74 + 1", 233),
    ] {
        let m: Gf2Poly = m_str.parse().expect("poly");
        let a = &random_poly(&mut rng, 4) % &m;
        assert_eq!(a.pow2k_mod(deg, &m), Some(a.clone()), "{m_str}");
    }
    // x^(2^20) mod (x^8 + x^4 + x^3 + x + 1): the AES field has order 255 and
    // 2^20 ≡ 2^20 mod 255 = 16 (mod 255), so it equals x^16 mod m.
    let aes = Gf2Poly::from_hex("11b").expect("hex");
    let x = Gf2Poly::x_pow(1);
    assert_eq!(x.pow2k_mod(20, &aes), x.pow_mod(16, &aes));
    assert_eq!(x.pow_mod(255, &aes), Some(Gf2Poly::one()));
    assert_eq!(
        Gf2Poly::x_pow(3).pow_mod(0, &Gf2Poly::one()),
        Some(Gf2Poly::zero())
    );
}

// ---------------------------------------------------------------------------
// Known answers.

/// FIPS 186-4, appendix D.1.3 ("Curves over binary fields"), the reduction
/// polynomials of the fields of B/K-163, -233, -283, -409, -571; the GCM
/// polynomial (NIST SP 800-38D, section 6.3); the AES polynomial (FIPS 197,
/// section 4.2).
const IRREDUCIBLE: &[&str] = &[
    "x^163 + x^7 + x^6 + x^3 + 1",
    "x^233 + x^74 + 1",
    "x^283 + x^12 + x^7 + x^5 + 1",
    "x^409 + x^87 + 1",
    "x^571 + x^10 + x^5 + x^2 + 1",
    "x^128 + x^7 + x^2 + x + 1",
    "x^8 + x^4 + x^3 + x + 1",
];

#[test]
fn published_moduli_are_irreducible() {
    for s in IRREDUCIBLE {
        let f: Gf2Poly = s.parse().expect("poly");
        assert_eq!(f.to_string(), *s, "round trip");
        assert!(f.is_irreducible(), "{s} is irreducible");
        // Multiplying by anything non-constant makes it reducible.
        assert!(
            !(&f * &Gf2Poly::from(0b11u64)).is_irreducible(),
            "{s}·(x+1)"
        );
        assert!(!f.square().is_irreducible(), "({s})²");
    }
    assert_eq!(
        Gf2Poly::from_exponents(&[8, 4, 3, 1, 0]).to_hex(),
        "11b",
        "FIPS 197's {{01}}{{1b}}"
    );
}

/// Whether `f` has a divisor of degree 1 to deg f / 2, by trying every
/// polynomial of those degrees: the definition, for small degrees.
fn has_small_divisor(f: &Gf2Poly) -> bool {
    let n = f.degree().unwrap_or(0);
    (2u64..1 << (n / 2 + 1)).any(|g| {
        let g = Gf2Poly::from(g);
        f.checked_rem(&g).is_some_and(|r| r.is_zero())
    })
}

/// `is_irreducible` against the definition for every polynomial of
/// degree 2 to 13, and on products whose smallest factor has a degree
/// around the early test's bound (factors of degree 23, 24, 25 and 30 by
/// ones of degree 120 and more): the early rejection and Rabin's test
/// agree with the factors.
#[test]
fn irreducibility_against_the_definition() {
    for n in 2..=13usize {
        for low in 0u64..1 << n {
            let f = Gf2Poly::from((1u64 << n) | low);
            assert_eq!(f.is_irreducible(), !has_small_divisor(&f), "{f}");
        }
    }
    let mut rng = Rng::new(0x1e12_0b0c_0024);
    let irreducible_of_degree = |rng: &mut Rng, deg: usize| loop {
        let g = random_of_degree(rng, deg);
        if g.is_irreducible() {
            return g;
        }
    };
    for small in [23usize, 24, 25, 30] {
        for large in [120usize, 200] {
            let g = irreducible_of_degree(&mut rng, small);
            let h = irreducible_of_degree(&mut rng, large);
            let f = &g * &h;
            assert!(!f.is_irreducible(), "({g})·({h})");
            assert!(!(&f * &g).is_irreducible(), "({g})²·({h})");
        }
    }
}

#[test]
fn reducible_examples() {
    let reducible = [
        "x^8 + 1",                             // (x + 1)^8
        "x^163 + x^7 + x^6 + x^3",             // divisible by x
        "x^2 + 1",                             // (x + 1)^2
        "x^4 + x^2 + 1",                       // (x^2 + x + 1)^2
        "x^6 + x^5 + x^4 + x^3 + x^2 + x + 1", // (x^3 + x + 1)(x^3 + x^2 + 1)
        "x^64",
    ];
    for s in reducible {
        let f: Gf2Poly = s.parse().expect("poly");
        assert!(!f.is_irreducible(), "{s} is reducible");
    }
    // Constants are not irreducible; every degree-1 polynomial is.
    assert!(!Gf2Poly::zero().is_irreducible());
    assert!(!Gf2Poly::one().is_irreducible());
    assert!(Gf2Poly::x_pow(1).is_irreducible());
    assert!(Gf2Poly::from(0b11u64).is_irreducible());
    assert!(Gf2Poly::from(0b111u64).is_irreducible()); // x^2 + x + 1

    // Products of two random irreducibles (found by sampling) are reducible,
    // with a gcd that finds each factor.
    let mut rng = Rng::new(0x5eed_9017_000b);
    let mut random_irreducible = |deg: usize| loop {
        let f = random_of_degree(&mut rng, deg);
        if f.is_irreducible() {
            return f;
        }
    };
    for (d1, d2) in [(2, 3), (17, 17), (31, 64), (65, 100), (127, 40)] {
        let f = random_irreducible(d1);
        let g = random_irreducible(d2);
        let fg = &f * &g;
        assert!(!fg.is_irreducible(), "product of degrees {d1}, {d2}");
        assert_eq!(fg.gcd(&f), f);
        // Irreducible and coprime: f is invertible modulo g when f ≠ g.
        if f != g {
            let u = f.inverse_mod(&g).expect("coprime");
            assert!((&(&f * &u) % &g).is_one());
        }
    }
}

/// The number of irreducible polynomials of degree n over GF(2), n = 1..=12:
/// OEIS A001037 (Gauss's formula (1/n)·Σ_{d | n} μ(d)·2^(n/d)); 30 for
/// degree 8 and 99 for degree 10.
const IRREDUCIBLE_COUNTS: [usize; 12] = [2, 1, 2, 3, 6, 9, 18, 30, 56, 99, 186, 335];

#[test]
fn irreducible_counts_match_gauss() {
    for (i, &want) in IRREDUCIBLE_COUNTS.iter().enumerate() {
        let n = i + 1;
        let count = (0..1u64 << n)
            .filter(|&low| Gf2Poly::from((1u64 << n) | low).is_irreducible())
            .count();
        assert_eq!(count, want, "irreducible polynomials of degree {n}");
    }
}

#[test]
fn fips197_multiplication_and_inverse() {
    // FIPS 197, section 4.2: {57}·{83} = {c1}; section 4.2.1: {57}·{13} =
    // {fe}; section 4.2: the inverse of {53} is {ca}.
    let m = Gf2Poly::from_hex("11b").expect("hex");
    let h = |s: &str| Gf2Poly::from_hex(s).expect("hex");
    assert_eq!(&(&h("57") * &h("83")) % &m, h("c1"));
    assert_eq!(&(&h("57") * &h("13")) % &m, h("fe"));
    // The section 4.2 worked product before reduction.
    assert_eq!(&h("57") * &h("83"), h("2b79"));
    assert_eq!(h("53").inverse_mod(&m), Some(h("ca")));
    assert_eq!(h("ca").inverse_mod(&m), Some(h("53")));
    assert!((&(&h("53") * &h("ca")) % &m).is_one());
    // Every non-zero byte has an inverse modulo the AES polynomial.
    for b in 1..=255u64 {
        let a = Gf2Poly::from(b);
        let u = a.inverse_mod(&m).expect("GF(2^8) is a field");
        assert!((&(&a * &u) % &m).is_one(), "{b:#x}");
    }
}

// ---------------------------------------------------------------------------
// Formats.

#[test]
fn display_and_parse() {
    let cases = [
        (Gf2Poly::zero(), "0"),
        (Gf2Poly::one(), "1"),
        (Gf2Poly::x_pow(1), "x"),
        (Gf2Poly::from(0b11u64), "x + 1"),
        (Gf2Poly::x_pow(64), "x^64"),
        (
            Gf2Poly::from_exponents(&[163, 7, 6, 3, 0]),
            "x^163 + x^7 + x^6 + x^3 + 1",
        ),
    ];
    for (p, s) in &cases {
        assert_eq!(p.to_string(), *s);
        assert_eq!(s.parse::<Gf2Poly>().as_ref(), Ok(p));
    }
    // Tolerated forms.
    let f = Gf2Poly::from_exponents(&[5, 1, 0]);
    for s in [
        "x^5+x+1",
        "  x^5 +x+ 1 ",
        "1 + x + x^5",
        "x ^ 5 + x^1 + x^0",
        "x^5 + x^2 + x + x^2 + 1",
        "x^5 + x + 1 + 0",
        "x^005 + x + 1",
        "\tx^5\n+ x + 1",
    ] {
        assert_eq!(s.parse::<Gf2Poly>(), Ok(f.clone()), "{s:?}");
    }
    assert_eq!("1 + 1".parse::<Gf2Poly>(), Ok(Gf2Poly::zero()));
    assert_eq!("0".parse::<Gf2Poly>(), Ok(Gf2Poly::zero()));
    assert_eq!("x + x".parse::<Gf2Poly>(), Ok(Gf2Poly::zero()));

    // Rejected forms, each with a message saying what was wrong.
    let rejected: &[(&str, &str)] = &[
        ("", "empty"),
        ("   ", "empty"),
        ("x^2 +", "term 2 is empty"),
        ("+ x", "term 1 is empty"),
        ("x + + 1", "term 2 is empty"),
        ("x^2 + y", "term 2 (\"y\")"),
        ("x^", "term 1"),
        ("x^-1", "term 1"),
        ("x^+3", "term 1"),
        ("2", "term 1"),
        ("x2", "term 1"),
        ("x^2x", "term 1"),
        ("x^1.5", "term 1"),
        ("X^2", "term 1"),
        ("x^2 x^3", "term 1"),
        ("x^99999999999999999999999", "exponent of term 1"),
        ("1 + x^67108864", "exponent of term 2"),
    ];
    for (s, fragment) in rejected {
        let err: ParsePolyError = s.parse::<Gf2Poly>().expect_err(s);
        let msg = err.to_string();
        assert!(msg.contains(fragment), "{s:?}: {msg:?} lacks {fragment:?}");
        assert!(msg.starts_with("invalid polynomial"), "{msg}");
        let _: &dyn std::error::Error = &err;
    }
    // The largest accepted exponent.
    let top = format!("x^{}", Gf2Poly::MAX_PARSE_DEGREE);
    assert_eq!(
        top.parse::<Gf2Poly>().map(|p| p.degree()),
        Ok(Some(Gf2Poly::MAX_PARSE_DEGREE))
    );
}

#[test]
fn display_parse_round_trip_random() {
    let mut rng = Rng::new(0x5eed_9017_000c);
    for words in (0..=40).chain([100, 300]) {
        let p = random_poly(&mut rng, words);
        let s = p.to_string();
        assert_eq!(s.parse::<Gf2Poly>(), Ok(p.clone()), "{s}");
        assert_eq!(s == "0", p.is_zero());
    }
}

#[test]
fn hex_and_bytes() {
    let h = |s: &str| Gf2Poly::from_hex(s);
    assert_eq!(h("0"), Ok(Gf2Poly::zero()));
    assert_eq!(h("0x0000"), Ok(Gf2Poly::zero()));
    assert_eq!(h("1"), Ok(Gf2Poly::one()));
    assert_eq!(h("0X11B"), h("11b"));
    assert_eq!(h(" 0x11b\n"), h("11b"));
    // x^128 + x^7 + x^2 + x + 1, the GCM polynomial.
    assert_eq!(
        h("100000000000000000000000000000087"),
        Ok(Gf2Poly::from_exponents(&[128, 7, 2, 1, 0]))
    );
    assert!(h("0x1_0").is_err(), "no digit separators");
    assert!(h("0x0x1").is_err(), "one prefix only");
    assert_eq!(Gf2Poly::zero().to_hex(), "0");
    assert_eq!(Gf2Poly::x_pow(64).to_hex(), "10000000000000000");
    assert_eq!(format!("{:x}", Gf2Poly::from(0xabu64)), "ab");
    assert_eq!(format!("{:#x}", Gf2Poly::from(0xabu64)), "0xab");
    assert_eq!(format!("{:>6x}", Gf2Poly::from(0xabu64)), "    ab");
    assert_eq!(format!("{:#08x}", Gf2Poly::from(0xabu64)), "0x0000ab");
    assert_eq!(format!("{:?}", Gf2Poly::from(0x11bu64)), "Gf2Poly(0x11b)");

    for (s, fragment) in [
        ("", "no digits"),
        ("0x", "no digits"),
        ("  ", "no digits"),
        ("11g", "'g' at byte 2"),
        ("0x12 34", "' ' at byte 4"),
        ("-1", "'-' at byte 0"),
        ("0xé", "'é' at byte 2"),
    ] {
        let msg = h(s).expect_err(s).to_string();
        assert!(msg.contains(fragment), "{s:?}: {msg:?} lacks {fragment:?}");
    }

    assert_eq!(Gf2Poly::zero().to_be_bytes(), Vec::<u8>::new());
    assert_eq!(Gf2Poly::from_be_bytes(&[]), Gf2Poly::zero());
    assert_eq!(Gf2Poly::from_be_bytes(&[0, 0]), Gf2Poly::zero());
    assert_eq!(Gf2Poly::from(0x11bu64).to_be_bytes(), vec![0x01, 0x1b]);
    assert_eq!(
        Gf2Poly::from_be_bytes(&[0, 0x01, 0x1b]),
        Gf2Poly::from(0x11bu64)
    );

    let mut rng = Rng::new(0x5eed_9017_000d);
    for words in (0..=40).chain([257]) {
        let p = random_poly(&mut rng, words);
        let hex = p.to_hex();
        assert_eq!(h(&hex), Ok(p.clone()));
        assert_eq!(h(&format!("0x000{}", hex.to_uppercase())), Ok(p.clone()));
        assert_eq!(format!("{p:x}"), hex);
        let bytes = p.to_be_bytes();
        assert_eq!(bytes.len(), p.bit_len().div_ceil(8));
        assert!(bytes.first().is_none_or(|&b| b != 0), "minimal length");
        assert_eq!(Gf2Poly::from_be_bytes(&bytes), p);
        // Hex of the bytes is the hex of the polynomial (up to one leading 0).
        let byte_hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            byte_hex.trim_start_matches('0'),
            hex.trim_start_matches('0')
        );
        // Words round trip.
        assert_eq!(Gf2Poly::from_u64s(&p.to_u64s()), p);
    }
}

#[test]
fn shifts_are_multiplication_by_x_pow() {
    let mut rng = Rng::new(0x5eed_9017_000e);
    for words in [0usize, 1, 2, 7, 40] {
        let p = random_poly(&mut rng, words);
        for n in [0usize, 1, 5, 63, 64, 65, 127, 128, 200, 1000] {
            let xn = Gf2Poly::x_pow(n);
            let shifted = &p << n;
            assert_eq!(shifted, &p * &xn, "<< {n}");
            assert_eq!(p.clone() << n, shifted);
            let mut s = p.clone();
            s <<= n;
            assert_eq!(s, shifted);
            // >> undoes <<, and in general is the quotient by x^n.
            assert_eq!(&shifted >> n, p);
            let (q, _) = p.checked_divrem(&xn).expect("x^n ≠ 0");
            assert_eq!(&p >> n, q, ">> {n}");
            assert_eq!(p.clone() >> n, q);
            let mut s = p.clone();
            s >>= n;
            assert_eq!(s, q);
        }
    }
}
