//! Every Su–Fan strategy on every backend against a bit-by-bit reference.
#![cfg(feature = "reproduce")]

use super::common;

use common::{Rng, mul_bitwise};
use fieldwork::gf2x::Dispatch;
use fieldwork::gf2x::reproduce::strategies;

#[test]
fn the_table() {
    let names: Vec<&str> = strategies().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "3-1",
            "3-1m",
            "3-1h",
            "3-S",
            "4-1",
            "4-1m",
            "4-2",
            "4-2m",
            "5-1",
            "5-1 Montgomery",
            "5-2",
            "5-3",
            "7-1",
            "7-1 Montgomery",
            "7-2",
            "7-3",
            "9-1",
            "9-1 Montgomery",
            "9-2",
            "9-3",
            "9-3 Montgomery"
        ]
    );
    // Su & Fan's Table 1 counts (the factored variants keep their formula's).
    let counts: Vec<(usize, usize)> = strategies().map(|s| (s.words, s.products)).collect();
    assert_eq!(
        counts,
        [
            (3, 6),
            (3, 6),
            (3, 6),
            (3, 9),
            (4, 9),
            (4, 9),
            (4, 9),
            (4, 9),
            (5, 13),
            (5, 13),
            (5, 15),
            (5, 16),
            (7, 22),
            (7, 22),
            (7, 24),
            (7, 25),
            (9, 35),
            (9, 35),
            (9, 36),
            (9, 37),
            (9, 37)
        ]
    );
}

#[test]
fn every_strategy_on_every_backend() {
    let mut rng = Rng::new(0x5eed_5f00_0001);
    let mut checked = 0;
    for s in strategies() {
        for m in Dispatch::all() {
            for _ in 0..500 {
                let a: Vec<u64> = (0..s.words).map(|_| rng.next_u64_shaped()).collect();
                let b: Vec<u64> = (0..s.words).map(|_| rng.next_u64_shaped()).collect();
                let mut out = vec![!0u64; 2 * s.words];
                assert!(s.mul(m, &a, &b, &mut out), "{} on {}", s.name, m.name());
                assert_eq!(out, mul_bitwise(&a, &b), "{} on {}", s.name, m.name());
                // The same as the production product (the default dispatch).
                let mut prod = vec![0u64; 2 * s.words];
                fieldwork::gf2x::mul_into(&mut prod, &a, &b).expect("lengths");
                assert_eq!(out, prod, "{} on {} against mul_into", s.name, m.name());
                checked += 1;
            }
            // Wrong lengths are refused, not miscomputed.
            let a = vec![1u64; s.words + 1];
            let mut out = vec![0u64; 2 * s.words + 2];
            assert!(!s.mul(m, &a, &a, &mut out));
        }
    }
    assert!(checked >= 21 * 500);
}

/// Issue 58 item 2: the product counts come from the compiled kernels.
/// Counts the PCLMULQDQ instructions of every strategy's kernel in this
/// test binary and checks each is at most the formula's count and at least
/// the count with every duplicate sub-product merged (a kernel cannot
/// compute fewer distinct products than its formula has distinct operand
/// pairs; we check the weaker `> products / 2`). Prints both.
#[cfg(target_arch = "x86_64")]
#[test]
fn compiled_product_counts() {
    let exe = std::env::current_exe().expect("test binary path");
    let counts = match fieldwork::gf2x::reproduce::compiled_products(&exe) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("objdump not usable ({e}): skipped");
            return;
        }
    };
    for s in strategies() {
        let Some(&(_, n)) = counts.iter().find(|(k, _)| k == s.kernel) else {
            panic!("{}: kernel {} not found in the binary", s.name, s.kernel);
        };
        eprintln!("{:>16}: formula {:>2}, compiled {n:>2}", s.name, s.products);
        assert!(
            n <= s.products && 2 * n > s.products,
            "{}: {n} products compiled",
            s.name
        );
    }
}

/// Su & Fan's `ins_mul2_64` variants (`_XOR64`, `_SHIFT`, `_SHUF`, `_UPK`)
/// against the production 2-word product, on every backend that runs them
/// (the PCLMULQDQ-capable x86-64 ones); the others refuse.
#[test]
fn mul2_variants_match_the_production_product() {
    use fieldwork::gf2x::reproduce::mul2_variants;
    let names: Vec<&str> = mul2_variants().map(|v| v.name).collect();
    assert_eq!(names, ["_XOR64", "_SHIFT", "_SHUF", "_UPK"]);
    let mut rng = Rng::new(0x5eed_5f00_0002);
    let mut checked = 0;
    for v in mul2_variants() {
        for m in Dispatch::all() {
            for round in 0..2000 {
                let mut a: Vec<u64> = (0..2).map(|_| rng.next_u64_shaped()).collect();
                let b: Vec<u64> = (0..2).map(|_| rng.next_u64_shaped()).collect();
                if round == 0 {
                    a = vec![u64::MAX; 2];
                }
                let mut out = vec![!0u64; 4];
                if !v.mul(m, &a, &b, &mut out) {
                    continue;
                }
                let mut prod = vec![0u64; 4];
                fieldwork::gf2x::mul_into(&mut prod, &a, &b).expect("lengths");
                assert_eq!(out, prod, "{} on {}", v.name, m.name());
                assert_eq!(out, mul_bitwise(&a, &b), "{} on {}", v.name, m.name());
                checked += 1;
            }
            let mut out = vec![0u64; 6];
            assert!(!v.mul(m, &[1, 2, 3], &[1, 2, 3], &mut out), "wrong lengths");
        }
    }
    #[cfg(target_arch = "x86_64")]
    if Dispatch::pclmulqdq().is_some() {
        assert!(checked >= 4 * 2000, "{checked}");
    }
    let _ = checked;
}

/// Su & Fan's Table 4 and 5 builds: every strategy's VEX-encoded kernel and
/// the `vxorpd` (256-bit additions) kernels of 4-1, 7-2, 9-1 and 9-2 against
/// the bit-by-bit reference, on every backend that has them (the VPCLMULQDQ
/// ones; the others return none).
#[test]
fn vex_and_vxorpd_builds() {
    let mut rng = Rng::new(0x5eed_5f00_0003);
    let (mut vex, mut vxorpd) = (0, 0);
    for s in strategies() {
        for m in Dispatch::all() {
            let kernels = [(s.vex(m), &mut vex), (s.vxorpd(m), &mut vxorpd)];
            for (k, count) in kernels {
                let Some(k) = k else { continue };
                for round in 0..300 {
                    let mut a: Vec<u64> = (0..s.words).map(|_| rng.next_u64_shaped()).collect();
                    let b: Vec<u64> = (0..s.words).map(|_| rng.next_u64_shaped()).collect();
                    if round == 0 {
                        a = vec![u64::MAX; s.words];
                    }
                    let mut out = vec![!0u64; 2 * s.words];
                    assert!(k.mul(&a, &b, &mut out), "{} on {}", s.name, m.name());
                    assert_eq!(out, mul_bitwise(&a, &b), "{} on {}", s.name, m.name());
                }
                let a = vec![1u64; s.words + 1];
                let mut out = vec![0u64; 2 * s.words + 2];
                assert!(!k.mul(&a, &a, &mut out), "wrong lengths refused");
                *count += 1;
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    if Dispatch::all().any(|m| m.name().starts_with("vpclmulqdq")) {
        // Table 5's 12 strategies and Table 4's 4, on each VPCLMULQDQ backend.
        assert!(
            vex >= 12 && vxorpd >= 4,
            "{vex} VEX, {vxorpd} vxorpd kernels tested"
        );
        let names: Vec<&str> = strategies()
            .filter(|s| Dispatch::all().any(|m| s.vxorpd(m).is_some()))
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["4-1", "7-2", "9-1", "9-2"]);
    }
    let _ = (vex, vxorpd);
}
