//! Kummer DH: the known answers of issue 4 (derived from the reference
//! software's format, see tests/data/kummer_kat.txt), DH agreement, and the
//! group order of the base point.

mod common;

use fieldwork::kummer::{BASE_POINT, scalarmult, scalarmult_base};

fn hex<const N: usize>(s: &str) -> [u8; N] {
    assert_eq!(s.len(), 2 * N, "{s}");
    core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
}

fn kat() -> Vec<(String, String)> {
    include_str!("data/kummer_kat.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            (
                it.next().unwrap().to_string(),
                it.next().unwrap().to_string(),
            )
        })
        .collect()
}

fn value(name: &str) -> String {
    kat()
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
        .unwrap_or_else(|| panic!("{name} missing from the data file"))
}

fn le_scalar(n: u64) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s
}

#[test]
fn scalar_one_is_the_base_point() {
    assert_eq!(scalarmult_base(&le_scalar(1)), BASE_POINT);
    assert_eq!(BASE_POINT, hex::<48>(&value("base")));
}

#[test]
fn scalar_two() {
    assert_eq!(
        scalarmult_base(&le_scalar(2)),
        hex::<48>(&value("twice_base"))
    );
}

#[test]
fn known_key_pairs_and_shared_secret() {
    let (ska, skb) = (hex::<32>(&value("sk_a")), hex::<32>(&value("sk_b")));
    let (pka, pkb) = (scalarmult_base(&ska), scalarmult_base(&skb));
    assert_eq!(pka, hex::<48>(&value("pk_a")));
    assert_eq!(pkb, hex::<48>(&value("pk_b")));
    let shared = hex::<48>(&value("shared"));
    assert_eq!(scalarmult(&ska, &pkb), shared);
    assert_eq!(scalarmult(&skb, &pka), shared);
}

#[test]
fn group_order() {
    let n2 = hex::<32>(&value("n2"));
    assert_eq!(scalarmult_base(&n2), hex::<48>(&value("neutral")));
    let mut plus = n2;
    plus[0] += 1; // the low byte of N2 is 0x43: no carry
    let mut minus = n2;
    minus[0] -= 1;
    assert_eq!(scalarmult_base(&plus), BASE_POINT);
    assert_eq!(scalarmult_base(&minus), BASE_POINT);
}

#[test]
fn top_bits_of_the_scalar_are_ignored() {
    let mut s = hex::<32>(&value("sk_a"));
    let want = scalarmult_base(&s);
    s[31] ^= 0xf8;
    assert_eq!(scalarmult_base(&s), want);
}

#[test]
fn agreement_on_random_keys() {
    let mut rng = common::Rng::new(0x5eed_4b55);
    for _ in 0..8 {
        let mut a = [0u8; 32];
        let mut b = [0u8; 32];
        for i in 0..4 {
            a[8 * i..8 * i + 8].copy_from_slice(&rng.next_u64().to_le_bytes());
            b[8 * i..8 * i + 8].copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let (pa, pb) = (scalarmult_base(&a), scalarmult_base(&b));
        assert_eq!(scalarmult(&a, &pb), scalarmult(&b, &pa));
    }
}

/// Every backend usable here gives the portable backend's bytes: random
/// scalars on the base point and on random (mostly off-surface) 48-byte
/// strings, which the raw function accepts, plus extreme scalars.
#[test]
fn backends_agree_with_portable() {
    use fieldwork::kummer::Backend;
    let mut rng = common::Rng::new(0xbac0_e4d5);
    let mut words =
        |n: usize| -> Vec<u8> { (0..n).flat_map(|_| rng.next_u64().to_le_bytes()).collect() };
    let mut cases: Vec<([u8; 32], [u8; 48])> =
        vec![([0; 32], BASE_POINT), ([0xff; 32], BASE_POINT)];
    for i in 0..40 {
        let s: [u8; 32] = words(4).try_into().unwrap();
        let p = if i % 2 == 0 {
            BASE_POINT
        } else {
            words(6).try_into().unwrap()
        };
        cases.push((s, p));
    }
    let portable = Backend::portable();
    let names: Vec<&str> = Backend::all().map(|b| b.name()).collect();
    eprintln!("backends here: {names:?}");
    for b in Backend::all() {
        for (s, p) in &cases {
            assert_eq!(
                b.scalarmult(s, p),
                portable.scalarmult(s, p),
                "{} on {s:02x?}",
                b.name()
            );
        }
    }
}

/// `scalarmult_pair` on every backend gives the bytes of two single calls,
/// including pairs where one or both results are degenerate (`Y·Z·T = 0`,
/// encoded as 48 zero bytes), so the shared inversion cannot leak a zero
/// into the other result.
#[test]
fn pairs_match_single_calls() {
    use fieldwork::kummer::Backend;
    let mut rng = common::Rng::new(0x9a12_5eed);
    let mut words =
        |n: usize| -> Vec<u8> { (0..n).flat_map(|_| rng.next_u64().to_le_bytes()).collect() };
    let zero = [0u8; 48];
    let mut jobs: Vec<([u8; 32], [u8; 48])> = vec![([0; 32], BASE_POINT), ([7; 32], zero)];
    for i in 0..16 {
        let s: [u8; 32] = words(4).try_into().unwrap();
        let p = match i % 3 {
            0 => BASE_POINT,
            1 => words(6).try_into().unwrap(),
            _ => zero,
        };
        jobs.push((s, p));
    }
    let portable = Backend::portable();
    let mut degenerate = 0;
    for b in Backend::all() {
        for x in &jobs {
            for y in &jobs {
                let want = [
                    portable.scalarmult(&x.0, &x.1),
                    portable.scalarmult(&y.0, &y.1),
                ];
                degenerate += want.iter().filter(|w| **w == zero).count();
                let got = b.scalarmult_pair([&x.0, &y.0], [&x.1, &y.1]);
                assert_eq!(got, want, "{} on {:02x?} / {:02x?}", b.name(), x.0, y.0);
            }
        }
    }
    // The degenerate case was exercised, next to nonzero results.
    assert!(degenerate > 0);
}
