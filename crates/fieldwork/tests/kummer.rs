//! Kummer DH: the known answers of issue 4 (derived from the reference
//! software's format, see tests/data/kummer_kat.txt) through the public
//! functions and on every backend, DH agreement, the group order of the
//! base point, and every backend against the portable one.

use super::common;

use common::{Candidate, Rng};
use fieldwork::kummer::{BASE_POINT, Dispatch, scalarmult, scalarmult_base};
use std::fmt::Debug;

fn hex<const N: usize>(s: &str) -> [u8; N] {
    assert_eq!(s.len(), 2 * N, "{s}");
    core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
}

/// A named value of tests/data/kummer_kat.txt.
fn value(name: &str) -> String {
    common::data_lines("kummer_kat.txt")
        .into_iter()
        .find(|l| l[0] == name)
        .map(|l| l[1].clone())
        .unwrap_or_else(|| panic!("{name} missing from kummer_kat.txt"))
}

fn le_scalar(n: u64) -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&n.to_le_bytes());
    s
}

/// `N` random bytes, eight from each output.
fn bytes<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut out = [0u8; N];
    for chunk in out.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..chunk.len()]);
    }
    out
}

/// The one driver of every backend: `op` on each backend of
/// [`Dispatch::all`] for every input, compared with `reference` by the
/// shared differential harness; asserts that every backend ran on every
/// input.
fn every_backend<I: Debug + Clone, O: PartialEq + Debug>(
    what: &str,
    inputs: &[I],
    reference: impl Fn(&I) -> O,
    op: impl Fn(Dispatch, &I) -> O + Copy,
) {
    let candidates: Vec<Candidate<'_, I, O>> = Dispatch::all()
        .map(|d| Candidate::new(d.name(), Some(move |i: &I| op(d, i))))
        .collect();
    let names: Vec<&str> = candidates.iter().map(|c| c.name).collect();
    eprintln!("{what}: backends here {names:?}");
    let compared = common::differential(what, reference, &candidates, inputs.to_vec());
    assert_eq!(compared, inputs.len() * candidates.len(), "{what}");
}

/// The known answers as `(scalar, point, scalar · point)`: the base point
/// times 1 and 2, the two key pairs, the shared secret from both sides,
/// and the base point's order `N2` (the neutral element) and `N2 ± 1`.
fn known_answers() -> Vec<([u8; 32], [u8; 48], [u8; 48])> {
    let base = hex::<48>(&value("base"));
    let (ska, skb) = (hex::<32>(&value("sk_a")), hex::<32>(&value("sk_b")));
    let (pka, pkb) = (hex::<48>(&value("pk_a")), hex::<48>(&value("pk_b")));
    let shared = hex::<48>(&value("shared"));
    let n2 = hex::<32>(&value("n2"));
    let (mut plus, mut minus) = (n2, n2);
    plus[0] += 1; // the low byte of N2 is 0x43: no carry
    minus[0] -= 1;
    vec![
        (le_scalar(1), base, base),
        (le_scalar(2), base, hex(&value("twice_base"))),
        (ska, base, pka),
        (skb, base, pkb),
        (ska, pkb, shared),
        (skb, pka, shared),
        (n2, base, hex(&value("neutral"))),
        (plus, base, base),
        (minus, base, base),
    ]
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

/// Every known answer on every backend: `scalarmult`, `scalarmult_base`
/// (the ladder on the base point) and both slots of `scalarmult_pair`.
#[test]
fn known_answers_on_every_backend() {
    let kat = known_answers();
    every_backend("scalarmult", &kat, |c| c.2, |d, c| d.scalarmult(&c.0, &c.1));
    let on_base: Vec<_> = kat.iter().copied().filter(|c| c.1 == BASE_POINT).collect();
    assert_eq!(on_base.len(), 7);
    every_backend(
        "scalarmult_base",
        &on_base,
        |c| c.2,
        |d, c| d.scalarmult_base(&c.0),
    );
    let pairs: Vec<_> = kat
        .iter()
        .zip(kat.iter().rev())
        .map(|(x, y)| (*x, *y))
        .collect();
    every_backend(
        "scalarmult_pair",
        &pairs,
        |(x, y)| [x.2, y.2],
        |d, (x, y)| d.scalarmult_pair([&x.0, &y.0], [&x.1, &y.1]),
    );
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
    let mut rng = Rng::new(0x5eed_4b55);
    for _ in 0..8 {
        let (a, b) = (bytes::<32>(&mut rng), bytes::<32>(&mut rng));
        let (pa, pb) = (scalarmult_base(&a), scalarmult_base(&b));
        assert_eq!(scalarmult(&a, &pb), scalarmult(&b, &pa));
    }
}

/// Every backend gives the portable backend's bytes: random scalars on the
/// base point and on random (mostly off-surface) 48-byte strings, which
/// the raw function accepts, plus extreme scalars; by `scalarmult` and, on
/// the base point, by `scalarmult_base`.
#[test]
fn backends_agree_with_portable() {
    let mut rng = Rng::new(0xbac0_e4d5);
    let mut cases: Vec<([u8; 32], [u8; 48])> =
        vec![([0; 32], BASE_POINT), ([0xff; 32], BASE_POINT)];
    for i in 0..40 {
        let s = bytes::<32>(&mut rng);
        let p = if i % 2 == 0 {
            BASE_POINT
        } else {
            bytes::<48>(&mut rng)
        };
        cases.push((s, p));
    }
    let portable = Dispatch::portable();
    every_backend(
        "scalarmult",
        &cases,
        |(s, p)| portable.scalarmult(s, p),
        |d, (s, p)| d.scalarmult(s, p),
    );
    let on_base: Vec<[u8; 32]> = cases
        .iter()
        .filter(|c| c.1 == BASE_POINT)
        .map(|c| c.0)
        .collect();
    every_backend(
        "scalarmult_base",
        &on_base,
        |s| portable.scalarmult(s, &BASE_POINT),
        |d, s| d.scalarmult_base(s),
    );
}

/// `scalarmult_pair` on every backend gives the bytes of two single calls,
/// including pairs where one or both results are degenerate (`Y·Z·T = 0`,
/// encoded as 48 zero bytes), so the shared inversion cannot leak a zero
/// into the other result.
#[test]
fn pairs_match_single_calls() {
    let mut rng = Rng::new(0x9a12_5eed);
    let zero = [0u8; 48];
    let mut jobs: Vec<([u8; 32], [u8; 48])> = vec![([0; 32], BASE_POINT), ([7; 32], zero)];
    for i in 0..16 {
        let s = bytes::<32>(&mut rng);
        let p = match i % 3 {
            0 => BASE_POINT,
            1 => bytes::<48>(&mut rng),
            _ => zero,
        };
        jobs.push((s, p));
    }
    let pairs: Vec<_> = jobs
        .iter()
        .flat_map(|x| jobs.iter().map(move |y| (*x, *y)))
        .collect();
    let portable = Dispatch::portable();
    let single = |(s, p): &([u8; 32], [u8; 48])| portable.scalarmult(s, p);
    every_backend(
        "scalarmult_pair",
        &pairs,
        |(x, y)| [single(x), single(y)],
        |d, (x, y)| d.scalarmult_pair([&x.0, &y.0], [&x.1, &y.1]),
    );
    // The degenerate case was exercised, next to nonzero results.
    let degenerate = jobs.iter().filter(|j| single(j) == zero).count();
    assert!(degenerate > 0 && degenerate < jobs.len());
}

/// `Dispatch::best` is the first of `Dispatch::all`, the names are
/// distinct, and where the NEON backend is usable (AArch64, not capped
/// below `neon`) it is the one picked.
#[test]
fn best_is_the_first_usable_backend() {
    let names: Vec<&str> = Dispatch::all().map(Dispatch::name).collect();
    assert_eq!(names.first(), Some(&Dispatch::best().name()));
    assert_eq!(names.last(), Some(&"portable"));
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    if let Some(neon) = Dispatch::neon() {
        assert_eq!(neon.name(), "neon");
        assert_eq!(Dispatch::best().name(), "neon");
    }
}
