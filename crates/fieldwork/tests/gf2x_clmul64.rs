//! `gf2x::clmul64`: every backend against a bit-by-bit reference, against
//! each other, and against the Intel white paper's PCLMULQDQ examples.

use super::common;

use common::{Candidate, Rng, data_lines, differential, hex_u128};
use fieldwork::cpu::{self, IsaLevel};
use fieldwork::gf2x::{Dispatch, clmul64};

/// The definition: XOR of `a << i` for every set bit `i` of `b`.
fn clmul64_bitwise(a: u64, b: u64) -> u128 {
    (0..64)
        .filter(|i| (b >> i) & 1 == 1)
        .fold(0u128, |acc, i| acc ^ ((a as u128) << i))
}

fn candidates<'a>() -> Vec<Candidate<'a, (u64, u64), u128>> {
    vec![
        Candidate::new(
            "portable",
            Some(|&(a, b): &(u64, u64)| Dispatch::portable().clmul64(a, b)),
        ),
        Candidate::new(
            "pclmulqdq",
            Dispatch::pclmulqdq().map(|m| move |&(a, b): &(u64, u64)| m.clmul64(a, b)),
        ),
        Candidate::new(
            "pmull",
            Dispatch::pmull().map(|m| move |&(a, b): &(u64, u64)| m.clmul64(a, b)),
        ),
        Candidate::new(
            "dispatched clmul64",
            Some(|&(a, b): &(u64, u64)| clmul64(a, b)),
        ),
    ]
}

#[test]
fn whitepaper_vectors() {
    let lines = data_lines("pclmulqdq_whitepaper.txt");
    assert_eq!(lines.len(), 4, "the white paper gives four products");
    let inputs: Vec<((u64, u64), u128)> = lines
        .iter()
        .map(|l| {
            let (x1, x2) = (hex_u128(&l[0]), hex_u128(&l[1]));
            let imm = u8::from_str_radix(&l[2], 16).expect("imm8");
            let q1 = (x1 >> (64 * (imm & 1))) as u64;
            let q2 = (x2 >> (64 * ((imm >> 4) & 1))) as u64;
            ((q1, q2), hex_u128(&l[3]))
        })
        .collect();
    for ((a, b), want) in &inputs {
        assert_eq!(
            clmul64_bitwise(*a, *b),
            *want,
            "reference on {a:016x}·{b:016x}"
        );
    }
    let n = differential(
        "clmul64 white paper",
        |&(a, b)| {
            inputs
                .iter()
                .find(|(ab, _)| *ab == (a, b))
                .map(|x| x.1)
                .unwrap()
        },
        &candidates(),
        inputs.iter().map(|x| x.0),
    );
    assert!(n >= 4 * 2, "portable and dispatched must both be checked");
}

#[test]
fn random_pairs_against_reference() {
    const PAIRS: usize = 100_000;
    let seed = 0x5eed_c1a0_0001;
    eprintln!("seed {seed:#x}");
    let mut rng = Rng::new(seed);
    let inputs: Vec<(u64, u64)> = (0..PAIRS)
        .map(|_| (rng.next_u64_shaped(), rng.next_u64_shaped()))
        .collect();
    let n = differential(
        "clmul64 random",
        |&(a, b)| clmul64_bitwise(a, b),
        &candidates(),
        inputs,
    );
    assert!(n >= 2 * PAIRS);
}

#[test]
fn pclmulqdq_agrees_with_portable() {
    // Backend against backend, as the design asks, on fresh random pairs.
    let Some(fast) = Dispatch::pclmulqdq() else {
        eprintln!("pclmulqdq not usable here (CPU or FIELDWORK_MAX_ISA): skipped");
        return;
    };
    let mut rng = Rng::new(0x5eed_c1a0_0002);
    let slow = Dispatch::portable();
    for _ in 0..200_000 {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        assert_eq!(fast.clmul64(a, b), slow.clmul64(a, b), "{a:#x} · {b:#x}");
    }
}

#[test]
fn pmull_agrees_with_portable() {
    // Backend against backend on fresh random pairs (fewer under
    // emulation).
    let Some(fast) = Dispatch::pmull() else {
        eprintln!("pmull not usable here (CPU, target or FIELDWORK_MAX_ISA): skipped");
        return;
    };
    let mut rng = Rng::new(0x5eed_c1a0_0003);
    let slow = Dispatch::portable();
    for _ in 0..50_000 {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        assert_eq!(fast.clmul64(a, b), slow.clmul64(a, b), "{a:#x} · {b:#x}");
    }
}

#[test]
fn edge_operands() {
    let edges = [
        0u64,
        1,
        2,
        3,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) | 1,
        0x5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa,
        0x8421_0842_1084_2108,
        0x1084_2108_4210_8421, // one residue class of the portable 5-way split
    ];
    let pairs: Vec<(u64, u64)> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
        .collect();
    let n = differential(
        "clmul64 edges",
        |&(a, b)| clmul64_bitwise(a, b),
        &candidates(),
        pairs,
    );
    assert!(n >= 2 * edges.len() * edges.len());
    // All ones times all ones: every coefficient of x^k is the parity of the
    // number of ways to write k as i + j with 0 <= i, j < 64: k + 1 ways for
    // k < 64 and 127 − k above, odd exactly when k is even.
    assert_eq!(
        clmul64(u64::MAX, u64::MAX),
        0x5555_5555_5555_5555_5555_5555_5555_5555
    );
}

#[test]
fn dispatch_follows_the_level() {
    let level = cpu::level();
    let best = Dispatch::best();
    eprintln!("level {level}, gf2x backend {}", best.name());
    #[cfg(target_arch = "x86_64")]
    let want = {
        use cpu::Feature::*;
        let usable = cpu::report().map(|r| r.usable).unwrap();
        let has = |fs: &[cpu::Feature]| fs.iter().all(|f| usable.has(*f));
        if has(&[
            Vpclmulqdq, Avx512f, Avx512bw, Avx512vl, Avx512dq, Pclmulqdq, Sse41,
        ]) {
            "vpclmulqdq"
        } else if has(&[Vpclmulqdq, Avx, Avx2, Pclmulqdq, Sse41]) {
            "vpclmulqdq-ymm"
        } else if has(&[Pclmulqdq, Sse41]) {
            "pclmulqdq"
        } else {
            "portable"
        }
    };
    // AArch64: PMULL comes with the AES extension (level `aes` and up).
    #[cfg(target_arch = "aarch64")]
    let want = {
        let usable = cpu::report().map(|r| r.usable).unwrap();
        if usable.has(cpu::Feature::Neon) && usable.has(cpu::Feature::Aes) {
            "pmull"
        } else {
            "portable"
        }
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let want = "portable";
    assert_eq!(best.name(), want);
    match std::env::var("FIELDWORK_MAX_ISA").as_deref() {
        Ok("portable") => {
            assert_eq!(level, IsaLevel::Portable);
            assert_eq!(best.name(), "portable");
            assert!(
                Dispatch::pclmulqdq().is_none()
                    && Dispatch::vpclmulqdq().is_none()
                    && Dispatch::vpclmulqdq_ymm().is_none()
                    && Dispatch::pmull().is_none()
            );
        }
        Ok("neon") => {
            // PMULL is above this cap: the portable backend.
            assert!(Dispatch::pmull().is_none());
            assert_eq!(best.name(), "portable");
        }
        Ok("clmul") => {
            // AVX2 and AVX-512 are above this cap: the xmm backend.
            assert!(Dispatch::vpclmulqdq().is_none() && Dispatch::vpclmulqdq_ymm().is_none());
            assert_eq!(best.name(), "pclmulqdq");
        }
        Ok("avx2") => {
            // AVX-512 is above this cap: never the zmm backend; the ymm one
            // wherever the CPU has VPCLMULQDQ.
            assert!(Dispatch::vpclmulqdq().is_none());
            assert_ne!(best.name(), "vpclmulqdq");
        }
        _ => {}
    }
}
