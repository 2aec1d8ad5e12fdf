//! Gaussian normal bases: the arithmetic against the polynomial basis
//! through the isomorphism, the basis conditions, and FIPS 186-2's
//! normal-basis B-curves (the values quoted in the module docs; the data
//! file `tests/data/nist_binary_curves.txt` has the polynomial-basis side).

use super::common;

use common::Rng;
use fieldwork::gf2m::normal::{GaussianNormalBasis, Isomorphism, NormalBasisError};
use fieldwork::gf2m::{BinaryField, F163, F233, F283, FieldElement};
use fieldwork::gf2x::Gf2Poly;

/// The fields of Fan and Dai's Table 4 (t ≥ 2) and Table 3 (t = 1).
const FIELDS: &[(usize, usize)] = &[
    (131, 2),
    (233, 2),
    (359, 2),
    (491, 2),
    (163, 4),
    (277, 4),
    (409, 4),
    (577, 4),
    (283, 6),
    (571, 10),
    (599, 8),
    (563, 14),
    (162, 1),
    (226, 1),
    (292, 1),
];

/// Whether these tests build a basis and an isomorphism of degree `m`:
/// every one natively; under AArch64 emulation (the code is portable and
/// the same on every level, and qemu makes the m ≥ 400 isomorphisms take
/// most of a minute per run of the suite) the fields up to B-283.
fn in_scope(m: usize) -> bool {
    !cfg!(target_arch = "aarch64") || m <= 300
}

/// Rotates m-bit coordinates: position i to i + 1 (mod m).
fn rotate1(c: &[u64], m: usize) -> Vec<u64> {
    let mut out = vec![0u64; c.len()];
    for i in 0..m {
        if (c[i / 64] >> (i % 64)) & 1 == 1 {
            let j = (i + 1) % m;
            out[j / 64] |= 1 << (j % 64);
        }
    }
    out
}

#[test]
fn normal_basis_arithmetic_matches_the_polynomial_basis() {
    let mut rng = Rng::new(25);
    for &(m, t) in FIELDS.iter().filter(|&&(m, _)| in_scope(m)) {
        let nb = GaussianNormalBasis::new(m, t).unwrap_or_else(|e| panic!("({m}, {t}): {e}"));
        assert_eq!(nb.prime(), t * m + 1);
        let pb = BinaryField::sparse_irreducible(m).unwrap();
        let iso = Isomorphism::new(&nb, &pb).unwrap();
        assert_eq!(
            iso.to_normal(&pb.one()).unwrap(),
            nb.one(),
            "({m}, {t}): 1 ↦ all ones"
        );
        for _ in 0..4 {
            let a = pb.random(&mut rng);
            let b = pb.random(&mut rng);
            let (na, nb_) = (iso.to_normal(&a).unwrap(), iso.to_normal(&b).unwrap());
            // A field isomorphism: sums and products are preserved, and it
            // inverts.
            assert_eq!(
                iso.to_normal(&(&a * &b)).unwrap(),
                &na * &nb_,
                "({m}, {t}) product"
            );
            assert_eq!(iso.to_normal(&(&a + &b)).unwrap(), &na + &nb_);
            assert_eq!(iso.from_normal(&na).unwrap(), a);
            // Squaring is the rotation, and the polynomial-basis square.
            assert_eq!(
                na.square().coordinates(),
                rotate1(&na.coordinates(), m),
                "({m}, {t}) square"
            );
            assert_eq!(iso.to_normal(&a.square()).unwrap(), na.square());
            assert_eq!(na.sqrt().square(), na, "({m}, {t}) sqrt");
            assert_eq!(na.pow2k(m), na);
            assert_eq!(
                na.trace().unwrap_u8(),
                a.trace().unwrap_u8(),
                "({m}, {t}) trace"
            );
            let inv = na.invert().unwrap();
            assert_eq!(&inv * &na, nb.one(), "({m}, {t}) invert");
            assert_eq!(na.pow(&[5]), &(&na.square().square() * &na) * &nb.one());
            // Bytes round trip.
            assert_eq!(nb.from_be_bytes(&na.to_be_bytes()).unwrap(), na);
            assert_eq!(nb.from_hex(&na.to_hex()).unwrap(), na);
        }
        assert!(bool::from(nb.zero().invert().is_none()));
    }
}

/// Records of a `key = value` data file, by curve name.
fn records(text: &str) -> Vec<std::collections::HashMap<String, String>> {
    text.split("\n\n")
        .map(|r| {
            r.lines()
                .filter(|l| !l.starts_with('#'))
                .filter_map(|l| l.split_once(" = "))
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .collect::<std::collections::HashMap<_, _>>()
        })
        .filter(|r| r.contains_key("curve"))
        .collect()
}

/// FIPS 186-2 Appendix 6's ten curves in the normal basis
/// (`tests/data/nist_binary_curves_normal.txt`): each base point is on its
/// curve in the normal basis, and the standard isomorphism maps the FIPS
/// 186-4 polynomial-basis a, b, Gx and Gy (`nist_binary_curves.txt`) to
/// these values (the B-curve's b pins the rotation; everything else,
/// including all of the K-curves, is a check).
#[test]
fn fips_186_2_normal_basis_curves() {
    let normal = records(include_str!("data/nist_binary_curves_normal.txt"));
    let poly = records(include_str!("data/nist_binary_curves.txt"));
    assert_eq!(normal.len(), 10);
    for n in &normal {
        let name = &n["curve"];
        let (m, t): (usize, usize) = (n["m"].parse().unwrap(), n["t"].parse().unwrap());
        if !in_scope(m) {
            continue;
        }
        let nb = GaussianNormalBasis::new(m, t).unwrap();
        let [a, b, x, y] = ["a", "b", "gx", "gy"].map(|k| nb.from_hex(&n[k]).unwrap());
        let lhs = &y.square() + &(&x * &y);
        let rhs = &(&(&x.square() * &x) + &(&a * &x.square())) + &b;
        assert_eq!(lhs, rhs, "{name} in the normal basis");
        let p = poly.iter().find(|p| &p["curve"] == name).unwrap();
        let pb = BinaryField::sparse_irreducible(m).unwrap();
        let iso = Isomorphism::new(&nb, &pb).unwrap();
        for (key, want) in [("a", &a), ("b", &b), ("gx", &x), ("gy", &y)] {
            let v = pb.from_hex(&p[key]).unwrap();
            assert_eq!(&iso.to_normal(&v).unwrap(), want, "{name} {key}");
            assert_eq!(iso.from_normal(want).unwrap(), v, "{name} {key} back");
        }
        // The same through the fixed types.
        match m {
            163 => assert_eq!(nb.to_normal(&p["gx"].parse::<F163>().unwrap()).unwrap(), x),
            233 => assert_eq!(
                nb.from_normal::<F233>(&y).unwrap(),
                p["gy"].parse::<F233>().unwrap()
            ),
            283 => assert_eq!(nb.to_normal(&p["b"].parse::<F283>().unwrap()).unwrap(), b),
            _ => {}
        }
    }
}

#[test]
fn basis_conditions_and_errors() {
    // p = t·m + 1 must be prime: 163·1 + 1 = 164.
    assert_eq!(
        GaussianNormalBasis::new(163, 1).unwrap_err(),
        NormalBasisError::NotPrime { p: 164 }
    );
    // 163·4 + 1 = 653 is prime and works; lowest_type finds 4 for 163.
    assert_eq!(
        GaussianNormalBasis::lowest_type(163).unwrap().basis_type(),
        4
    );
    assert_eq!(
        GaussianNormalBasis::lowest_type(233).unwrap().basis_type(),
        2
    );
    assert_eq!(
        GaussianNormalBasis::lowest_type(283).unwrap().basis_type(),
        6
    );
    assert_eq!(
        GaussianNormalBasis::lowest_type(409).unwrap().basis_type(),
        4
    );
    assert_eq!(
        GaussianNormalBasis::lowest_type(571).unwrap().basis_type(),
        10
    );
    // m = 4, t = 3: p = 13 prime, ord_13(2) = 12, gcd(12/12, 4) = 1: fine;
    // m = 6, t = 2: p = 13, gcd(12/12, 6) = 1. m = 5, t = 6: p = 31,
    // ord_31(2) = 5, gcd(30/5, 5) = 1 … an example that fails: m = 3,
    // t = 2: p = 7, ord_7(2) = 3, gcd(6/3, 3) = 1 — fine too; m = 4, t = 4:
    // p = 17, ord_17(2) = 8, gcd(16/8, 4) = 2: not normal.
    assert_eq!(
        GaussianNormalBasis::new(4, 4).unwrap_err(),
        NormalBasisError::NotNormal {
            p: 17,
            order_of_2: 8
        }
    );
    assert!(matches!(
        GaussianNormalBasis::lowest_type(8),
        Err(NormalBasisError::NoType(8))
    ));
    assert_eq!(
        GaussianNormalBasis::new(1, 1).unwrap_err(),
        NormalBasisError::Degree(1)
    );
    assert_eq!(
        GaussianNormalBasis::new(163, 0).unwrap_err(),
        NormalBasisError::Type(0)
    );
    let nb = GaussianNormalBasis::new(163, 4).unwrap();
    // Bits past m, wrong length, bad hex.
    assert_eq!(
        nb.from_hex("f".repeat(42).as_str()).unwrap_err(),
        NormalBasisError::Encoding
    );
    assert_eq!(
        nb.from_be_bytes(&[0; 20]).unwrap_err(),
        NormalBasisError::Encoding
    );
    assert_eq!(nb.from_hex("xyz").unwrap_err(), NormalBasisError::Encoding);
    // Mixing bases.
    let other = GaussianNormalBasis::new(233, 2).unwrap();
    assert_eq!(
        nb.one().try_mul(&other.one()).unwrap_err(),
        NormalBasisError::BasisMismatch
    );
    // A field of another degree.
    let pb = BinaryField::new(Gf2Poly::from_exponents(&[233, 74, 0])).unwrap();
    assert!(matches!(
        Isomorphism::new(&nb, &pb),
        Err(NormalBasisError::FieldDegree { .. })
    ));
    assert!(nb.to_normal(&F233::ONE).is_err());
}
