//! The white paper's Table 1 rows 1–4 (`fieldwork::gcm::reproduce`,
//! feature `reproduce`): every row gives the production AES-128-GCM's
//! ciphertext and tag, on the AES-128 cases of McGrew–Viega's GCM
//! specification (`tests/data/gcm_nist.txt`, cases 1–6, with 8- and 60-byte
//! IVs) and, through the differential harness, on random keys, IVs, AAD and
//! messages of every length that exercises the quads, the leftover blocks,
//! the partial block and Table 1's sizes. Rows the CPU lacks (no AES-NI or
//! under `FIELDWORK_MAX_ISA=portable`) are skipped.
#![cfg(all(feature = "reproduce", target_arch = "x86_64"))]

use super::common;

use fieldwork::gcm::Aes128Gcm;
use fieldwork::gcm::aead::KeyInit;
use fieldwork::gcm::reproduce::{Table1Gcm, Table1Row};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The AES-128 cases (1–6) of `gcm_nist.txt`: key, iv, pt, aad, ct, tag.
fn aes128_cases() -> Vec<[Vec<u8>; 6]> {
    let text = include_str!("data/gcm_nist.txt");
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let v: Vec<&str> = block
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.split_once('=').unwrap().1.trim())
            .collect();
        if v.len() == 7 && v[1].len() == 32 {
            out.push([
                hex(v[1]),
                hex(v[2]),
                hex(v[3]),
                hex(v[4]),
                hex(v[5]),
                hex(v[6]),
            ]);
        }
    }
    assert_eq!(out.len(), 6);
    out
}

#[test]
fn rows_match_the_specification_vectors() {
    for [key, iv, pt, aad, ct, tag] in aes128_cases() {
        let Some(g) = Table1Gcm::new(&key.clone().try_into().unwrap()) else {
            eprintln!("no AES-NI/PCLMULQDQ here (or capped): rows skipped");
            return;
        };
        for row in Table1Row::ALL {
            let mut buf = pt.clone();
            let got = g.encrypt(row, &iv, &aad, &mut buf);
            assert_eq!(buf, ct, "{row}: ciphertext");
            assert_eq!(got.to_vec(), tag, "{row}: tag");
        }
    }
}

/// Key, IV, AAD, plaintext.
type Input = ([u8; 16], Vec<u8>, Vec<u8>, Vec<u8>);
/// Ciphertext and tag.
type Sealed = (Vec<u8>, [u8; 16]);

#[test]
fn rows_agree_with_production() {
    let mut rng = common::Rng::new(0x7ab1e1);
    let mut bytes = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    let mut inputs: Vec<Input> = Vec::new();
    let lengths = (0..=300).chain([1024, 1024 + 7, 4096, 16384, 16384 + 48 + 5]);
    for (i, n) in lengths.enumerate() {
        let key: [u8; 16] = bytes(16).try_into().unwrap();
        let iv_len = [12, 12, 12, 1, 8, 60][i % 6];
        let aad_len = [0, 13, 64, 200, 16, 70][i % 6];
        inputs.push((key, bytes(iv_len), bytes(aad_len), bytes(n)));
    }
    // A counter that wraps its 32 bits inside the message.
    let mut iv = vec![0xff; 16];
    iv[15] = 0xfd;
    inputs.push(([7; 16], iv, vec![], bytes(300)));
    let seal = |row: Option<Table1Row>, (key, iv, aad, pt): &Input| -> Sealed {
        let mut buf = pt.clone();
        let tag = match row {
            None => Aes128Gcm::new_from_slice(key)
                .unwrap()
                .encrypt_in_place_detached_iv(iv, aad, &mut buf)
                .unwrap(),
            Some(row) => Table1Gcm::new(key).unwrap().encrypt(row, iv, aad, &mut buf),
        };
        (buf, tag)
    };
    let live = Table1Gcm::new(&[0; 16]).is_some();
    let names: Vec<String> = Table1Row::ALL.iter().map(|r| r.to_string()).collect();
    let candidates: Vec<common::Candidate<'_, Input, Sealed>> = Table1Row::ALL
        .iter()
        .zip(&names)
        .map(|(&row, name)| {
            common::Candidate::new(name, live.then_some(move |i: &Input| seal(Some(row), i)))
        })
        .collect();
    let n = inputs.len();
    let compared = common::differential("Table1Gcm", |i| seal(None, i), &candidates, inputs);
    assert_eq!(compared, if live { 4 * n } else { 0 });
}

#[test]
fn rows_are_numbered_and_named_as_table_1() {
    let numbers: Vec<u8> = Table1Row::ALL.iter().map(|r| r.number()).collect();
    assert_eq!(numbers, [1, 2, 3, 4]);
    assert_eq!(Table1Row::Fig15.name(), "Fig. 15 + Fig. 6");
}
