//! The paper's own Kummer arithmetic (`kummer::float`, Bernstein,
//! Chuengsatiansup, Lange & Schwabe §§3–4) against the production ladder:
//! the known answers of tests/data/kummer_kat.txt and random scalars on the
//! base point and on random 48-byte strings, on every float backend this
//! CPU runs, through the shared differential harness.
#![cfg(feature = "reproduce")]

use super::common;

use common::{Candidate, Rng};
use fieldwork::kummer::{BASE_POINT, float, scalarmult};

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

fn bytes<const N: usize>(rng: &mut Rng) -> [u8; N] {
    let mut out = [0u8; N];
    for chunk in out.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes()[..chunk.len()]);
    }
    out
}

type Job = ([u8; 32], [u8; 48]);

/// Every float backend usable here on `jobs`, against `reference`; returns
/// how many backends ran.
fn every_float_backend(what: &str, jobs: &[Job], reference: impl Fn(&Job) -> [u8; 48]) -> usize {
    let candidates: Vec<Candidate<'_, Job, [u8; 48]>> = float::NAMES
        .iter()
        .map(|&name| {
            let usable = float::scalarmult_with(name, &[0; 32], &BASE_POINT).is_some();
            let f = move |(s, p): &Job| {
                float::scalarmult_with(name, s, p).expect("usable (checked above)")
            };
            Candidate::new(name, usable.then_some(f))
        })
        .collect();
    let ran = candidates.iter().filter(|c| c.f.is_some()).count();
    eprintln!("{what}: {ran} float backends");
    let compared = common::differential(what, reference, &candidates, jobs.to_vec());
    assert_eq!(compared, jobs.len() * ran, "{what}");
    ran
}

#[test]
fn known_answers() {
    let base = hex::<48>(&value("base"));
    let (ska, skb) = (hex::<32>(&value("sk_a")), hex::<32>(&value("sk_b")));
    let (pka, pkb) = (hex::<48>(&value("pk_a")), hex::<48>(&value("pk_b")));
    let shared = hex::<48>(&value("shared"));
    let mut one = [0u8; 32];
    one[0] = 1;
    let mut two = [0u8; 32];
    two[0] = 2;
    let kat: Vec<(Job, [u8; 48])> = vec![
        ((one, base), base),
        ((two, base), hex(&value("twice_base"))),
        ((ska, base), pka),
        ((skb, base), pkb),
        ((ska, pkb), shared),
        ((skb, pka), shared),
        ((hex(&value("n2")), base), hex(&value("neutral"))),
    ];
    let jobs: Vec<Job> = kat.iter().map(|k| k.0).collect();
    let want = |j: &Job| kat.iter().find(|k| k.0 == *j).map(|k| k.1).unwrap();
    assert!(every_float_backend("known answers", &jobs, want) >= 1);
}

#[test]
fn random_inputs_match_the_production_ladder() {
    let mut rng = Rng::new(0x6b75_6d66);
    let mut jobs: Vec<Job> = vec![([0; 32], BASE_POINT), ([0xff; 32], BASE_POINT)];
    for i in 0..40 {
        let s = bytes::<32>(&mut rng);
        let p = match i % 3 {
            0 => BASE_POINT,
            1 => bytes::<48>(&mut rng),
            _ => [0xff; 48],
        };
        jobs.push((s, p));
    }
    every_float_backend("random", &jobs, |(s, p)| scalarmult(s, p));
}

#[test]
fn unknown_names_are_refused() {
    assert_eq!(float::scalarmult_with("avx2", &[1; 32], &BASE_POINT), None);
    assert_eq!(float::NAMES.last(), Some(&"float-portable"));
    assert!(float::scalarmult_with("float-portable", &[1; 32], &BASE_POINT).is_some());
}
