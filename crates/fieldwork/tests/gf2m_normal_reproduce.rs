//! Every normal-basis multiplication algorithm of `gf2m::normal::reproduce`
//! against P1363-2000 A.3.8's bit-level algorithm on the fields of Fan &
//! Dai's Tables 3 and 4, the field properties, and the FIPS 186-2 B-163
//! and B-233 normal-basis curves as known answers.
#![cfg(feature = "reproduce")]

use super::common;

use common::Rng;
use fieldwork::gf2m::normal::reproduce::{NbMulAlgorithm, NbTable};

/// Fan & Dai (ePrint 2004/126), Table 4: GNB fields of types 2 to 14.
const TABLE_4: [(usize, usize); 16] = [
    (131, 2),
    (233, 2),
    (359, 2),
    (491, 2),
    (163, 4),
    (277, 4),
    (409, 4),
    (577, 4),
    (673, 4),
    (739, 4),
    (283, 6),
    (503, 6),
    (751, 6),
    (599, 8),
    (571, 10),
    (563, 14),
];

/// Fan & Dai, Table 3: type-I optimal normal bases.
const TABLE_3: [usize; 5] = [162, 226, 292, 418, 562];

fn fields() -> impl Iterator<Item = (usize, usize)> {
    TABLE_4
        .into_iter()
        .chain(TABLE_3.into_iter().map(|m| (m, 1)))
}

fn random(rng: &mut Rng, table: &NbTable) -> Vec<u64> {
    let m = table.m();
    (0..table.words())
        .map(|w| {
            let x = rng.next_u64();
            if 64 * (w + 1) > m {
                x & ((1u64 << (m % 64)) - 1)
            } else {
                x
            }
        })
        .collect()
}

fn table(m: usize, t: usize) -> NbTable {
    match NbTable::new(m, t) {
        Some(table) => table,
        None => panic!("no type-{t} normal basis of GF(2^{m})"),
    }
}

fn mul(alg: NbMulAlgorithm, table: &NbTable, a: &[u64], b: &[u64]) -> Vec<u64> {
    match alg.mul(table, a, b) {
        Some(c) => c,
        None => panic!("{} refused a valid product", alg.name()),
    }
}

fn square(table: &NbTable, a: &[u64]) -> Vec<u64> {
    table.square(a).expect("a valid element")
}

fn add(a: &[u64], b: &[u64]) -> Vec<u64> {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

#[test]
fn every_algorithm_against_p1363_on_every_field() {
    let mut rng = Rng::new(0x6e6f_726d);
    for (m, t) in fields() {
        let table = table(m, t);
        for _ in 0..2 {
            let a = random(&mut rng, &table);
            let b = random(&mut rng, &table);
            let want = mul(NbMulAlgorithm::P1363Bitwise, &table, &a, &b);
            for alg in NbMulAlgorithm::ALL {
                if alg.applies_to(&table) {
                    assert_eq!(
                        mul(alg, &table, &a, &b),
                        want,
                        "{} on m = {m}, t = {t}",
                        alg.name()
                    );
                } else {
                    assert!(alg.mul(&table, &a, &b).is_none());
                }
            }
        }
    }
}

#[test]
fn field_properties_with_every_algorithm() {
    let mut rng = Rng::new(0x7072_6f70);
    for (m, t) in fields() {
        let table = table(m, t);
        let one = table.one();
        for alg in NbMulAlgorithm::ALL {
            // The bit-level reference is slow; it is checked above.
            if !alg.applies_to(&table) || alg == NbMulAlgorithm::P1363Bitwise {
                continue;
            }
            let a = random(&mut rng, &table);
            let b = random(&mut rng, &table);
            let c = random(&mut rng, &table);
            let what = format!("{} on m = {m}, t = {t}", alg.name());
            assert_eq!(mul(alg, &table, &a, &one), a, "1·a, {what}");
            assert_eq!(mul(alg, &table, &one, &b), b, "b·1, {what}");
            let ab = mul(alg, &table, &a, &b);
            assert_eq!(ab, mul(alg, &table, &b, &a), "a·b = b·a, {what}");
            assert_eq!(
                square(&table, &ab),
                mul(alg, &table, &square(&table, &a), &square(&table, &b)),
                "(a·b)² = a²·b², {what}"
            );
            assert_eq!(
                mul(alg, &table, &ab, &c),
                mul(alg, &table, &a, &mul(alg, &table, &b, &c)),
                "(a·b)·c = a·(b·c), {what}"
            );
            assert_eq!(
                mul(alg, &table, &a, &add(&b, &c)),
                add(&ab, &mul(alg, &table, &a, &c)),
                "a·(b + c) = a·b + a·c, {what}"
            );
            // a² by multiplication is the rotation.
            assert_eq!(mul(alg, &table, &a, &a), square(&table, &a), "a·a, {what}");
        }
    }
}

#[test]
fn complexity_of_the_bases() {
    // Type-I and type-II bases are optimal: C_N = 2m − 1; a type-t basis
    // has C_N ≤ t·m − 1.
    for (m, t) in fields() {
        let table = table(m, t);
        let cn = table.complexity();
        if t <= 2 {
            assert_eq!(cn, 2 * m - 1, "m = {m}, t = {t}");
        } else {
            assert!(cn < t * m, "m = {m}, t = {t}: C_N = {cn}");
        }
    }
}

/// An m-bit string a_0 a_1 … a_(m−1) given as big-endian hexadecimal with
/// a_0 the most significant of the m bits (FIPS 186-2's convention): a_i is
/// bit m − 1 − i of the integer.
fn from_fips_hex(hex: &str, table: &NbTable) -> Vec<u64> {
    let m = table.m();
    // The integer, little-endian bits.
    let mut int_bits = Vec::new();
    for c in hex.bytes().rev() {
        let d = (c as char).to_digit(16).expect("hex digit");
        for k in 0..4 {
            int_bits.push((d >> k) & 1 == 1);
        }
    }
    assert!(int_bits[m..].iter().all(|&b| !b), "{hex}: over {m} bits");
    let mut v = vec![0u64; table.words()];
    for i in 0..m {
        if int_bits[m - 1 - i] {
            v[i / 64] |= 1 << (i % 64);
        }
    }
    v
}

/// y² + xy = x³ + x² + b (a = 1) with each algorithm.
fn check_curve(m: usize, t: usize, b: &str, gx: &str, gy: &str) {
    let table = table(m, t);
    let b = from_fips_hex(b, &table);
    let x = from_fips_hex(gx, &table);
    let y = from_fips_hex(gy, &table);
    for alg in NbMulAlgorithm::ALL {
        if !alg.applies_to(&table) {
            continue;
        }
        let x2 = square(&table, &x);
        let lhs = add(&square(&table, &y), &mul(alg, &table, &x, &y));
        let rhs = add(&add(&mul(alg, &table, &x2, &x), &x2), &b);
        assert_eq!(lhs, rhs, "{}: G not on B-{m}", alg.name());
        // And a point that is not on the curve is rejected.
        let y1 = add(&y, &table.one());
        let lhs1 = add(&square(&table, &y1), &mul(alg, &table, &x, &y1));
        assert_ne!(lhs1, rhs, "{}", alg.name());
    }
}

/// FIPS 186-2, Appendix 6 (normal-basis parameters): curve B-163, type-4
/// Gaussian normal basis.
#[test]
fn fips_186_2_b163_normal_basis() {
    check_curve(
        163,
        4,
        "6645f3cacf1638e139c6cd13ef61734fbc9e3d9fb",
        "0311103c17167564ace77ccb09c681f886ba54ee8",
        "333ac13c6447f2e67613bf7009daf98c87bb50c7f",
    );
}

/// FIPS 186-2, Appendix 6: curve B-233, type-2 Gaussian normal basis.
#[test]
fn fips_186_2_b233_normal_basis() {
    check_curve(
        233,
        2,
        "1a003e0962d4f9a8e407c904a9538163adb825212600c7752ad52233279",
        "18b863524b3cdfefb94f2784e0b116faac54404bc9162a363bab84a14c5",
        "04925df77bd8b8ff1a5ff519417822bfedf2bbd752644292c98c7af6e02",
    );
}

#[test]
fn which_bases_exist() {
    // No Gaussian normal basis when 8 | m (Wassermann); none when p is not
    // prime; Table 3 and 4 types are the smallest, and m = 163 has no type 1
    // or 2 (327 = 3·109).
    for t in 1..=40 {
        assert!(NbTable::new(8, t).is_none(), "m = 8, t = {t}");
        assert!(NbTable::new(256, t).is_none(), "m = 256, t = {t}");
    }
    assert!(NbTable::new(163, 1).is_none());
    assert!(NbTable::new(163, 2).is_none());
    assert!(NbTable::new(163, 3).is_none());
    for (m, t) in fields() {
        let table = table(m, t);
        assert_eq!((table.m(), table.t(), table.p()), (m, t, t * m + 1));
        // F is onto Z_m with fibres of size t, and F(2^i) = i.
        let mut fibre = vec![0usize; m];
        for x in 1..table.p() {
            fibre[table.f(x).expect("x in 1..p")] += 1;
        }
        assert!(fibre.iter().all(|&n| n == t), "m = {m}, t = {t}");
        assert_eq!(table.f(1), Some(0));
        assert_eq!(table.f(2), Some(1));
        assert_eq!(table.f(0), None);
        assert_eq!(table.f(table.p()), None);
    }
}

/// Tables 1 and 2 of the paper: our operation counts (as the algorithms
/// run) against the printed formulas, on every field of Tables 3 and 4
/// (Table 1 is stated for odd n: Table 4's fields; Table 2 for type-I
/// optimal normal bases: Table 3's), with our word z = 64 and the paper's
/// z = 32 for the table-building CSOs.
#[test]
fn operation_counts_against_tables_1_and_2() {
    use fieldwork::gf2m::normal::reproduce::{Relation, Z};
    let mut compared = 0;
    for (m, t) in fields() {
        let table = table(m, t);
        let cn = table.complexity();
        for alg in NbMulAlgorithm::ALL {
            assert_eq!(
                alg.counts(&table).is_some(),
                alg.applies_to(&table) && alg != NbMulAlgorithm::P1363Bitwise
            );
            let Some(printed) = alg.printed_counts(m, cn, Z) else {
                continue;
            };
            // Table 1: odd n; Table 2: type I.
            if (printed.table == 1 && m % 2 == 0) || (printed.table == 2 && t != 1) {
                continue;
            }
            let ours = alg.counts(&table).expect("applies");
            let what = format!("{} on ({m}, {t}), C_N = {cn}", alg.name());
            for (name, ours, p) in [
                ("XOR", ours.xors, printed.xor),
                ("AND", ours.ands, printed.and),
                ("CSO", ours.total_cso(), printed.cso),
            ] {
                assert!(
                    p.relation.holds(ours, p.value),
                    "{what}: {name} ours {ours}, printed {} = {} ({:?})",
                    p.formula,
                    p.value,
                    p.relation
                );
                compared += 1;
            }
            // The exact entries, by formula.
            match alg {
                NbMulAlgorithm::RhOriginal => {
                    assert_eq!(ours.cso, (cn + 2 * m - 1) / 2, "{what}");
                    assert_eq!(ours.table_cso, 0);
                }
                NbMulAlgorithm::RhImproved => {
                    assert_eq!(ours.total_cso(), cn.div_ceil(2) + 3 * Z, "{what}");
                }
                NbMulAlgorithm::FanDai2 => {
                    // Σ_w 2e_w = C_N − 1; 2·#{w : e_w > 0} + 1 ANDs.
                    assert_eq!(ours.xors, cn - 1, "{what}");
                    let nonempty = (0..m).filter(|&k| table.e(k) > 0).count();
                    assert_eq!(ours.ands, 2 * nonempty + 1, "{what}");
                }
                NbMulAlgorithm::Formula14 => {
                    assert_eq!((ours.ands, ours.xors, ours.hamming_weights), (m, m - 1, 1));
                }
                NbMulAlgorithm::NingYin => {
                    assert_eq!(ours.xors, 2 * m - 2, "{what}");
                }
                _ => {}
            }
            // The paper's z = 32 gives the same run-time counts.
            let p32 = alg.printed_counts(m, cn, 32).expect("printed");
            assert_eq!(p32.xor, printed.xor);
            assert_eq!(p32.and, printed.and);
        }
        // §5: Σ_k e_k = Σ_i h_i = (C_N − 1)/2 for odd n.
        if m % 2 == 1 {
            let sum_e: usize = (0..m).map(|k| table.e(k)).sum();
            assert_eq!(sum_e, (cn - 1) / 2, "({m}, {t})");
        }
        // Type I: h_i = 1 for i < v and S_v = every k (β_0 β_v = 1).
        if t == 1 {
            for i in 1..m / 2 {
                assert_eq!(table.s(i).map(<[u32]>::len), Some(1), "({m}, {i})");
            }
            assert_eq!(table.s(m / 2).map(<[u32]>::len), Some(m));
        }
    }
    assert!(Relation::Exact.holds(3, 3) && !Relation::Below.holds(3, 3));
    // 16 Table 4 fields × 4 algorithms + 5 Table 3 fields × 2, × 3 entries.
    assert_eq!(compared, (16 * 4 + 5 * 2) * 3);
}

/// Every source algorithm against the production product on every field
/// size the reproduction supports up to 400 (the lowest type of each m,
/// and type 2 where it exists), plus the fields of Tables 3 and 4 above.
#[test]
fn every_algorithm_against_the_default_on_every_size() {
    use fieldwork::gf2m::normal::GaussianNormalBasis;
    let mut rng = Rng::new(0x5eed_0058);
    let mut seen = 0;
    for m in 2..=400usize {
        for t in 1..=16usize {
            let Ok(basis) = GaussianNormalBasis::new(m, t) else {
                continue;
            };
            let table = table(m, t);
            let (a, b) = (random(&mut rng, &table), random(&mut rng, &table));
            let want = (&basis.from_coordinates(&a).unwrap()
                * &basis.from_coordinates(&b).unwrap())
                .coordinates();
            for alg in NbMulAlgorithm::ALL {
                if alg == NbMulAlgorithm::P1363Bitwise && m > 100 {
                    continue;
                }
                if alg.applies_to(&table) {
                    assert_eq!(
                        mul(alg, &table, &a, &b),
                        want,
                        "{} on ({m}, {t})",
                        alg.name()
                    );
                }
            }
            seen += 1;
            // The lowest type and, where it is higher, type 2.
            if t >= 2 {
                break;
            }
        }
    }
    assert!(seen > 300, "{seen} bases");
}

/// Table 4's Montgomery column: Koç–Acar's product in GF(2^k), k = 8⌈n/8⌉,
/// against fieldwork's polynomial-basis product in the same field:
/// mont(a, b)·x^k = a·b.
#[test]
fn koc_acar_montgomery_against_the_polynomial_basis() {
    use fieldwork::gf2m::BinaryField;
    use fieldwork::gf2m::normal::reproduce::montgomery::KocAcar;
    use fieldwork::gf2x::Gf2Poly;
    let mut rng = Rng::new(0x006b_6f63);
    for (m, _) in TABLE_4.into_iter().chain([(8, 0), (16, 0), (64, 0)]) {
        let k = 8 * m.div_ceil(8);
        let field = BinaryField::sparse_irreducible(k).expect("an irreducible of degree k");
        let mont = KocAcar::new(field.modulus().as_words()).expect("degree 8s, N_0 odd");
        assert_eq!(mont.bytes(), k / 8);
        let r = field.from_poly_vartime(&Gf2Poly::x_pow(k));
        for _ in 0..4 {
            let bytes =
                |rng: &mut Rng| -> Vec<u8> { (0..k / 8).map(|_| rng.next_u64() as u8).collect() };
            let (a, b) = (bytes(&mut rng), bytes(&mut rng));
            let words = |x: &[u8]| -> Vec<u64> {
                let mut w = vec![0u64; k.div_ceil(64)];
                for (j, &y) in x.iter().enumerate() {
                    w[j / 8] |= u64::from(y) << (8 * (j % 8));
                }
                w
            };
            let c = mont.mul(&a, &b).expect("s bytes");
            let (fa, fb, fc) = (
                field.from_words(&words(&a)).unwrap(),
                field.from_words(&words(&b)).unwrap(),
                field.from_words(&words(&c)).unwrap(),
            );
            assert_eq!(&fc * &r, &fa * &fb, "k = {k}");
        }
        assert!(mont.mul(&[0u8; 1], &[0u8; 1]).is_none() || k == 8);
    }
}

/// Every source algorithm against the library's default (the Gauss-period
/// embedding of `gf2m::normal`) on every field.
#[test]
fn every_algorithm_against_the_default() {
    use fieldwork::gf2m::normal::GaussianNormalBasis;
    let mut rng = Rng::new(2025);
    for (m, t) in fields() {
        let table = table(m, t);
        let basis = GaussianNormalBasis::new(m, t).unwrap();
        let (a, b) = (random(&mut rng, &table), random(&mut rng, &table));
        let want = (&basis.from_coordinates(&a).unwrap() * &basis.from_coordinates(&b).unwrap())
            .coordinates();
        for alg in NbMulAlgorithm::ALL {
            if alg.applies_to(&table) {
                assert_eq!(
                    mul(alg, &table, &a, &b),
                    want,
                    "{} on ({m}, {t})",
                    alg.name()
                );
            }
        }
    }
}
