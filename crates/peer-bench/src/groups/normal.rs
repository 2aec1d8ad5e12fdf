//! `normal`: normal-basis multiplication in GF(2^m), the reproduction of
//! Fan and Dai's Table 4 (Gaussian normal bases of type t ≥ 2) and Table 3
//! (type-I optimal normal bases; ePrint 2004/126): every source algorithm of
//! `gf2m::normal::reproduce` (P1363 A.3.8's bit-level algorithm, Ning–Yin,
//! Reyhani-Masoleh–Hasan original and with DA/DB tables, Fan–Dai
//! Algorithms 1 and 2, the type-I formula (14)), fieldwork's default (the
//! Gauss-period embedding: one p-bit carry-less product, p = t·m + 1), the
//! p-bit `gf2x` product alone, fieldwork's polynomial-basis product of
//! the same degree (the fixed type for the NIST degrees, else a run-time
//! `BinaryField` with the lowest-weight irreducible; the column is one for
//! both), and Table 4's Montgomery column (Koç–Acar with byte tables in
//! GF(2^k), k = 8⌈m/8⌉, as the paper implements it). The page
//! `peer-bench --reproduce fan-dai` is built from these rows.
//!
//! Calls are chained (each product the next first operand). The source
//! algorithms allocate their result (a few dozen cycles, small next to
//! their cost); the default and the polynomial basis do not (the run-time
//! `BinaryField` by `a *= &b`, in place). Before timing,
//! every algorithm's product is checked against the default's.
//!
//! The ratios in this group are against the default ("fieldwork best"):
//! above 1 means the default is faster; the target is ≥ 10× the
//! fastest source algorithm, and within 1.3× of the p-bit product for
//! t > 2 (within 2× of the polynomial basis for t ≤ 2).

use crate::harness::{Case, Impl};
use crate::util::Rng;
use fieldwork::gf2m::normal::GaussianNormalBasis;
use fieldwork::gf2m::normal::reproduce::montgomery::KocAcar;
use fieldwork::gf2m::normal::reproduce::{NbMulAlgorithm, NbTable};
use fieldwork::gf2m::{BinaryField, F163, F233, F283, F409, F571, FieldElement};
use fieldwork::gf2x::Dispatch;
use std::hint::black_box;

/// Fan and Dai's Table 4 fields (m, t), then Table 3's type-I fields.
pub const FIELDS: &[(usize, usize)] = &[
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
    (162, 1),
    (226, 1),
    (292, 1),
    (418, 1),
    (562, 1),
];

fn coordinates(m: usize, seed: u64) -> Vec<u64> {
    let mut rng = Rng(seed ^ m as u64);
    let mut c: Vec<u64> = (0..m.div_ceil(64)).map(|_| rng.next_u64()).collect();
    if !m.is_multiple_of(64) {
        let last = c.len() - 1;
        c[last] &= (1 << (m % 64)) - 1;
    }
    c
}

/// The size label of the case of field (m, t).
pub fn size(m: usize, t: usize) -> String {
    format!("m={m} t={t} p={} mul", t * m + 1)
}

/// The name of the row of a source algorithm.
pub fn source_name(alg: NbMulAlgorithm) -> String {
    format!("fieldwork reproduce {}", alg.name())
}

/// The name of the default's row.
pub const DEFAULT_NAME: &str = "fieldwork best (embedding)";

/// The name of the Montgomery row.
pub const MONTGOMERY_NAME: &str = "fieldwork reproduce koc-acar montgomery";

/// Koç–Acar's Montgomery product in GF(2^k), k = 8⌈m/8⌉ (Fan and Dai §5),
/// chained, after checking it against the polynomial basis of degree k.
fn montgomery_impl(m: usize) -> Result<Impl, String> {
    let k = 8 * m.div_ceil(8);
    let field = BinaryField::sparse_irreducible(k).map_err(|e| format!("k = {k}: {e}"))?;
    let mont = KocAcar::new(field.modulus().as_words()).ok_or(format!("k = {k}: modulus"))?;
    let mut rng = Rng(0x6b61 ^ k as u64);
    let mut a: Vec<u8> = (0..k / 8).map(|_| rng.next_u64() as u8).collect();
    let b: Vec<u8> = (0..k / 8).map(|_| rng.next_u64() as u8).collect();
    let words = |x: &[u8]| -> Vec<u64> {
        let mut w = vec![0u64; k.div_ceil(64)];
        for (j, &y) in x.iter().enumerate() {
            w[j / 8] |= u64::from(y) << (8 * (j % 8));
        }
        w
    };
    let c = mont.mul(&a, &b).ok_or("length")?;
    let r = field.from_poly_vartime(&fieldwork::gf2x::Gf2Poly::x_pow(k));
    let el = |x: &[u8]| field.from_words(&words(x)).map_err(|e| e.to_string());
    if &el(&c)? * &r != &el(&a)? * &el(&b)? {
        return Err(format!(
            "Koç–Acar disagrees with the polynomial basis at k = {k}"
        ));
    }
    Ok(Impl {
        name: MONTGOMERY_NAME.into(),
        ours: true,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                if let Some(c) = mont.mul(black_box(&a), &b) {
                    a = c;
                }
            }
            black_box(&a);
        }),
    })
}

fn source_impl(alg: NbMulAlgorithm, table: NbTable, a: Vec<u64>, b: Vec<u64>) -> Impl {
    let mut a = a;
    Impl {
        name: source_name(alg),
        ours: true,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                if let Some(c) = alg.mul(&table, black_box(&a), &b) {
                    a = c;
                }
            }
            black_box(&a);
        }),
    }
}

/// The polynomial-basis product of degree m, chained.
fn polynomial_impl(m: usize) -> Option<Impl> {
    fn fixed<F: FieldElement + 'static>() -> Impl {
        let mut rng = Rng(0xfb);
        let mut w: Vec<u64> = (0..F::WORDS).map(|_| rng.next_u64()).collect();
        if F::M % 64 != 0 {
            w[F::WORDS - 1] &= (1 << (F::M % 64)) - 1;
        }
        let b = F::from_word_slice(&w).unwrap_or(F::ONE);
        let mut a = b.square() + F::ONE;
        Impl {
            name: "fieldwork polynomial basis".into(),
            ours: true,
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    a = black_box(a) * b;
                }
                black_box(a);
            }),
        }
    }
    Some(match m {
        163 => fixed::<F163>(),
        233 => fixed::<F233>(),
        283 => fixed::<F283>(),
        409 => fixed::<F409>(),
        571 => fixed::<F571>(),
        _ => {
            let field = BinaryField::sparse_irreducible(m).ok()?;
            let b = field.from_words(&coordinates(m, 5)).ok()?;
            let mut a = field.from_words(&coordinates(m, 6)).ok()?;
            Impl {
                name: "fieldwork polynomial basis".into(),
                ours: true,
                routine: Box::new(move |iters| {
                    for _ in 0..iters {
                        a *= &b;
                    }
                    black_box(&a);
                }),
            }
        }
    })
}

/// The cases, after checking every algorithm against the default.
pub fn cases() -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    for &(m, t) in FIELDS {
        let basis = GaussianNormalBasis::new(m, t).map_err(|e| format!("({m}, {t}): {e}"))?;
        let table = NbTable::new(m, t).ok_or(format!("({m}, {t}): no table"))?;
        let (ca, cb) = (coordinates(m, 1), coordinates(m, 2));
        let a = basis.from_coordinates(&ca).map_err(|e| e.to_string())?;
        let b = basis.from_coordinates(&cb).map_err(|e| e.to_string())?;
        let want = (&a * &b).coordinates();
        let mut impls = Vec::new();
        let (mut x, y) = (a.clone(), b.clone());
        impls.push(Impl {
            name: DEFAULT_NAME.into(),
            ours: true,
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    x *= &y;
                }
                black_box(&x);
            }),
        });
        for alg in NbMulAlgorithm::ALL {
            if !alg.applies_to(&table) {
                continue;
            }
            let got = alg.mul(&table, &ca, &cb);
            if got.as_deref() != Some(&want[..]) {
                return Err(format!(
                    "{} disagrees with the default on ({m}, {t})",
                    alg.name()
                ));
            }
            // The bit-level algorithm is a reference, 20–100× slower than
            // the rest: timed on the NIST-sized fields only.
            if alg == NbMulAlgorithm::P1363Bitwise && ![163, 233, 283].contains(&m) {
                continue;
            }
            impls.push(source_impl(alg, table.clone(), ca.clone(), cb.clone()));
        }
        let pw = basis.prime().div_ceil(64);
        let k = Dispatch::best();
        let (mut pa, pb) = (coordinates(64 * pw, 3), coordinates(64 * pw, 4));
        let mut pc = vec![0u64; 2 * pw];
        impls.push(Impl {
            name: format!("gf2x p-bit product ({})", k.name()),
            ours: true,
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    let _ = k.mul_into(&mut pc, &pa, &pb);
                    crate::util::chain_copy(&mut pa, &pc[..pw]);
                }
                black_box(&pc);
            }),
        });
        if let Some(p) = polynomial_impl(m) {
            impls.push(p);
        }
        impls.push(montgomery_impl(m)?);
        out.push(Case {
            group: "normal",
            size: size(m, t),
            bytes: None,
            impls,
            heavy: false,
            per_second: None,
        });
    }
    Ok(out)
}
