//! The dissertation reproductions of `fieldwork::poly1305::goll_gueron`
//! (Bhattacharyya, *Improved SIMD Implementation of Poly1305*: §3's
//! faithful Goll–Gueron, §1's AVX-512F complete 8-decimation):
//! RFC 8439's vectors (tests/data/poly1305_rfc8439.txt), then the
//! production one-shot `tag` as the reference at every length 0..=4096
//! bytes on random keys and data, and at the carry limits (keys and data
//! of all ones) at every length that exercises §3.3's cases.
#![cfg(all(feature = "reproduce", target_arch = "x86_64"))]

use super::common;

use common::Rng;
use fieldwork::poly1305::goll_gueron::{Decimation8, GollGueron};
use fieldwork::poly1305::tag;

/// A key and a message.
type Input = ([u8; 32], Vec<u8>);

/// The faithful Goll–Gueron tag, or `None` where this CPU (or
/// `FIELDWORK_MAX_ISA`) has no AVX2.
fn faithful(input: &Input) -> [u8; 16] {
    let (key, msg) = input;
    GollGueron::new(key).expect("probed: AVX2").tag(msg)
}

/// The complete 4-decimation on §3's kernel (`None`: see [`faithful`]).
fn complete(input: &Input) -> [u8; 16] {
    let (key, msg) = input;
    GollGueron::new(key)
        .expect("probed: AVX2")
        .tag_complete(msg)
}

/// The AVX-512F 8-decimation tag (`None`: see [`faithful`]).
fn decimation8(input: &Input) -> [u8; 16] {
    let (key, msg) = input;
    Decimation8::new(key).expect("probed: AVX-512F").tag(msg)
}

/// The candidates: the faithful Goll–Gueron and the AVX-512F
/// 8-decimation, where the CPU runs them.
fn candidates<'a>() -> Vec<common::Candidate<'a, Input, [u8; 16]>> {
    let gg = GollGueron::new(&[0; 32]).is_some();
    let d8 = Decimation8::new(&[0; 32]).is_some();
    vec![
        common::Candidate::new(GollGueron::NAME, gg.then_some(faithful)),
        common::Candidate::new("complete 4-decimation on §3", gg.then_some(complete)),
        common::Candidate::new(Decimation8::NAME, d8.then_some(decimation8)),
    ]
}

/// How many of the candidates this CPU runs.
fn usable() -> usize {
    2 * usize::from(GollGueron::new(&[0; 32]).is_some())
        + usize::from(Decimation8::new(&[0; 32]).is_some())
}

fn reference(input: &Input) -> [u8; 16] {
    tag(&input.0, &input.1)
}

fn unhex(tokens: &[String]) -> Vec<u8> {
    let s: String = tokens.concat();
    if s == "-" {
        return Vec::new();
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// RFC 8439 §2.5.2 and A.3 #1–#11: the tags as the RFC prints them.
#[test]
fn rfc8439_vectors() {
    let mut vectors: Vec<([u8; 32], Vec<u8>, [u8; 16])> = Vec::new();
    for line in common::data_lines("poly1305_rfc8439.txt") {
        let (kind, rest) = (line[0].as_str(), &line[1..]);
        if kind == "vector" {
            vectors.push(([0; 32], Vec::new(), [0; 16]));
            continue;
        }
        let v = vectors.last_mut().expect("a vector line first");
        match kind {
            "key" => v.0 = unhex(rest).try_into().unwrap(),
            "msg" => v.1.extend(unhex(rest)),
            "tag" => v.2 = unhex(rest).try_into().unwrap(),
            k => panic!("unknown line kind {k}"),
        }
    }
    assert_eq!(vectors.len(), 12, "2.5.2 and A.3 #1–#11");
    for (i, (key, msg, want)) in vectors.iter().enumerate() {
        if let Some(gg) = GollGueron::new(key) {
            assert_eq!(
                &gg.clone().tag(msg),
                want,
                "{} vector {i}",
                GollGueron::NAME
            );
            assert_eq!(&gg.tag_complete(msg), want, "complete vector {i}");
        }
        if let Some(d8) = Decimation8::new(key) {
            assert_eq!(&d8.tag(msg), want, "{} vector {i}", Decimation8::NAME);
        }
    }
}

/// Every length 0..=4096 on a random key and random data (a fresh key
/// every 64 lengths), against the production one-shot tag.
#[test]
fn every_length_to_4096_matches_the_default() {
    let mut rng = Rng::new(0x0003_6e11_9a5e);
    let mut data = vec![0u8; 4096];
    let mut key = [0u8; 32];
    let inputs = (0..=4096usize).map(move |n| {
        if n % 64 == 0 {
            data.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
            key.iter_mut().for_each(|b| *b = rng.next_u64() as u8);
        }
        (key, data[..n].to_vec())
    });
    let compared = common::differential("reproduce", reference, &candidates(), inputs);
    assert_eq!(compared, 4097 * usable());
}

/// The carry limits: keys and data of all ones (and zero data under an
/// all-ones key) at every length to 320 and a few longer ones, so that
/// every §3.3 case (n′ = 0 … 63) meets the largest limbs.
#[test]
fn all_ones_at_the_limits() {
    let lengths: Vec<usize> = (0..=320).chain([1023, 1024, 4095, 4096, 8191]).collect();
    let mut inputs = Vec::new();
    for &n in &lengths {
        inputs.push(([0xff; 32], vec![0xff; n]));
        inputs.push(([0xff; 32], vec![0; n]));
        let mut key = [0xff; 32];
        key[16..].fill(0);
        inputs.push((key, vec![0xff; n]));
    }
    let expected = inputs.len();
    let compared = common::differential("reproduce limits", reference, &candidates(), inputs);
    assert_eq!(compared, expected * usable());
}
