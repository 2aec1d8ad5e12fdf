//! The portable field GF(2^127 − 1) against a big-integer reference
//! (`num-bigint`, arithmetic mod p by the definition): every operation on
//! edge values and thousands of random ones.

extern crate std;

use super::field::{Fe, P};
use super::test_rng::Rng;
use num_bigint::BigUint;
use std::vec::Vec;

/// 128-bit values from the tests' generator.
trait Shaped {
    fn next_u128(&mut self) -> u128;
}

impl Shaped for Rng {
    /// 128 random bits, sometimes sparse, dense or near a power of two, so
    /// carries and the reduction boundary are hit often.
    fn next_u128(&mut self) -> u128 {
        let x = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        match self.next_u64() % 8 {
            0 => x & (u128::from(self.next_u64()) << 64 | u128::from(self.next_u64())),
            1 => x | (u128::from(self.next_u64()) << 64 | u128::from(self.next_u64())),
            2 => 1u128 << (x % 128),
            3 => !(1u128 << (x % 128)),
            4 => (1u128 << (x % 128)).wrapping_sub(1 + (self.next_u64() % 4) as u128),
            _ => x,
        }
    }
}

fn p_big() -> BigUint {
    BigUint::from(P)
}

fn big(x: u128) -> BigUint {
    BigUint::from(x)
}

/// A reduced reference value back to `u128` (it is `< p`).
fn small_big(x: &BigUint) -> u128 {
    let digits = x.to_u64_digits();
    assert!(digits.len() <= 2, "{x} does not fit");
    digits
        .iter()
        .rev()
        .fold(0u128, |acc, &d| (acc << 64) | u128::from(d))
}

/// Edge values as raw 128-bit patterns (not necessarily reduced).
fn edge_patterns() -> Vec<u128> {
    let mut v = std::vec![
        0,
        1,
        2,
        3,
        P - 2,
        P - 1,
        P,
        P + 1,
        P + 2,
        (1u128 << 127) - 2,
        1u128 << 126,
        (1u128 << 126) - 1,
        (1u128 << 126) + 1,
        1u128 << 127,
        (1u128 << 127) + 1,
        1u128 << 64,
        (1u128 << 64) - 1,
        (1u128 << 64) + 1,
        1u128 << 63,
        u128::from(u64::MAX) << 64,
        P / 2,
        P / 2 + 1,
        u128::MAX,
        u128::MAX - 1,
        0x5555_5555_5555_5555_5555_5555_5555_5555,
        0xaaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa_aaaa,
    ];
    for k in 0..128 {
        v.push(1u128 << k);
        v.push((1u128 << k) - 1);
    }
    v
}

/// Field elements (reduced) to test with: the edge patterns reduced, then
/// random ones.
fn operands(seed: u64, random: usize) -> Vec<u128> {
    let mut v: Vec<u128> = edge_patterns().into_iter().map(|x| x % P).collect();
    let mut rng = Rng::new(seed);
    v.extend((0..random).map(|_| rng.next_u128() % P));
    v
}

#[test]
fn from_bytes_ignores_bit_127_and_reduces() {
    let p = p_big();
    let mut patterns = edge_patterns();
    let mut rng = Rng::new(0xb17e_5127);
    patterns.extend((0..5000).map(|_| rng.next_u128()));
    for x in patterns {
        let want = (big(x) % (BigUint::from(1u8) << 127u32)) % &p;
        let got = Fe::from_bytes(&x.to_le_bytes());
        assert_eq!(big(got.0), want, "from_bytes({x:#x})");
        assert!(got.0 < P, "not reduced: {x:#x}");
    }
    assert_eq!(Fe::from_bytes(&[0xff; 16]), Fe(0)); // 2^127 − 1 after the mask
    assert_eq!(Fe::from_bytes(&P.to_le_bytes()), Fe(0));
    assert_eq!(Fe::from_bytes(&(1u128 << 127).to_le_bytes()), Fe(0));
}

#[test]
fn to_bytes_is_canonical_little_endian() {
    for x in operands(0x7062_7974, 3000) {
        let bytes = Fe(x).to_bytes();
        assert_eq!(BigUint::from_bytes_le(&bytes), big(x));
        assert_eq!(bytes[15] & 0x80, 0);
        assert_eq!(Fe::from_bytes(&bytes), Fe(x));
    }
}

#[test]
fn small_constants() {
    let p = p_big();
    let mut cs: Vec<i64> = std::vec![0, 1, -1, 2, -2, -11, 22, 19, 3, -833, 2499, -114, 418];
    cs.extend([i64::MAX, i64::MIN, i64::MIN + 1, i64::MAX - 1]);
    let mut rng = Rng::new(0x5a11);
    cs.extend((0..2000).map(|_| rng.next_u64() as i64 >> (rng.next_u64() % 64)));
    for c in cs {
        let want = if c >= 0 {
            big(c as u128) % &p
        } else {
            (&p - big(c.unsigned_abs() as u128) % &p) % &p
        };
        assert_eq!(big(Fe::small(c).0), want, "small({c})");
    }
}

/// Pairs: every edge value with every edge value, and random pairs.
fn pairs(seed: u64, random: usize) -> Vec<(u128, u128)> {
    let edges = operands(0, 0);
    let mut out: Vec<(u128, u128)> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
        .collect();
    let mut rng = Rng::new(seed);
    out.extend((0..random).map(|_| (rng.next_u128() % P, rng.next_u128() % P)));
    out
}

#[test]
fn add_sub_mul_against_bigint() {
    let p = p_big();
    for (a, b) in pairs(0x00ad_d50b, 20_000) {
        let (ba, bb) = (big(a), big(b));
        let (fa, fb) = (Fe(a), Fe(b));
        assert_eq!(big(fa.add(fb).0), (&ba + &bb) % &p, "{a:#x} + {b:#x}");
        assert_eq!(big(fa.sub(fb).0), (&ba + &p - &bb) % &p, "{a:#x} - {b:#x}");
        assert_eq!(big(fa.mul(fb).0), (&ba * &bb) % &p, "{a:#x} * {b:#x}");
    }
}

#[test]
fn square_against_bigint() {
    let p = p_big();
    for a in operands(0x005a_0a2e, 10_000) {
        assert_eq!(big(Fe(a).square().0), big(a).pow(2) % &p, "{a:#x}^2");
    }
}

#[test]
fn invert_against_bigint() {
    let p = p_big();
    let exponent = &p - 2u8;
    for a in operands(0x001a_7ee7, 1500) {
        let got = Fe(a).invert();
        let want = big(a).modpow(&exponent, &p);
        assert_eq!(big(got.0), want, "1/{a:#x}");
        if a != 0 {
            assert_eq!(small_big(&(big(a) * big(got.0) % &p)), 1);
        } else {
            assert_eq!(got, Fe(0));
        }
    }
}

#[test]
fn results_stay_reduced() {
    for (a, b) in pairs(0x04ed_0ced, 5000) {
        let (fa, fb) = (Fe(a), Fe(b));
        for r in [fa.add(fb), fa.sub(fb), fa.mul(fb), fa.square()] {
            assert!(r.0 < P, "{a:#x}, {b:#x} gave {:#x}", r.0);
        }
    }
}

/// The x86-64 assembly of `field_x86.rs` against the Rust it replaces
/// there (`field::reference`), on carry edges and biased random values.
#[cfg(target_arch = "x86_64")]
mod x86_assembly {
    use super::super::field::{P, reference};
    use super::super::field_x86;
    use super::super::test_rng::Rng;

    /// Values where the folds' carries peak: 0, 1, words of all ones or
    /// 2^63 − 1, p − 1, p, 2^127 (the top of the loose range).
    const CARRY_EDGES: [u128; 12] = [
        0,
        1,
        2,
        1 << 64,
        (1 << 64) - 1,
        (1 << 127) - (1 << 64),
        ((1 << 63) - 1) * ((1 << 64) + 1),
        ((1 << 63) - 1) << 64,
        P - 1,
        P,
        1 << 127,
        (1 << 127) - 2,
    ];

    fn canonical(x: u128) -> u128 {
        let r = (x & P) + (x >> 127);
        if r >= P { r - P } else { r }
    }

    fn check_asm(a: u128, b: u128) {
        let m = field_x86::mul_loose(a, b);
        assert!(m <= P, "{a:#x}·{b:#x} → {m:#x}");
        assert_eq!(
            canonical(m),
            canonical(reference::mul_loose(a, b)),
            "{a:#x}·{b:#x}"
        );
        let s = field_x86::square_loose(a);
        assert!(s <= P, "{a:#x}² → {s:#x}");
        assert_eq!(
            canonical(s),
            canonical(reference::square_loose(a)),
            "{a:#x}²"
        );
        // Sums and differences take values in [0, p].
        let (a, b) = (a.min(P), b.min(P));
        let (sum, diff) = (field_x86::add(a, b), field_x86::sub(a, b));
        assert!(
            sum <= P && diff <= P,
            "{a:#x} ± {b:#x} → {sum:#x}, {diff:#x}"
        );
        assert_eq!(
            canonical(sum),
            canonical(reference::add(a, b)),
            "{a:#x} + {b:#x}"
        );
        assert_eq!(
            canonical(diff),
            canonical(reference::sub(a, b)),
            "{a:#x} − {b:#x}"
        );
    }

    #[test]
    fn x86_assembly_matches_the_rust_field() {
        for &a in &CARRY_EDGES {
            for &b in &CARRY_EDGES {
                check_asm(a, b);
            }
        }
        let mut rng = Rng::new(0x6b75_6d6d_6572_5f78);
        // Words drawn half the time from the carry edges, so that the
        // rare carries of the folds (all-ones words) are met often, the top
        // bit cleared by a shift or a mask; and 2^127 one time in sixteen.
        let word = |rng: &mut Rng| match rng.below(8) {
            0 => 0,
            1 => u64::MAX,
            2 => (1 << 63) - 1,
            3 => 1 << 63,
            _ => rng.next_u64(),
        };
        let value = |rng: &mut Rng| match rng.below(16) {
            0 => 1 << 127,
            _ => {
                let v = (u128::from(word(rng)) << 64) | u128::from(word(rng));
                if rng.below(2) == 0 { v >> 1 } else { v & P }
            }
        };
        for _ in 0..200_000 {
            let (a, b) = (value(&mut rng), value(&mut rng));
            check_asm(a, b);
            // Outputs fed back in, as in the comb and the inversion chain.
            check_asm(field_x86::mul_loose(a, b), field_x86::square_loose(b));
        }
    }
}
