//! ChaCha20 and XChaCha20: RFC 8439's known answers (tests/data/
//! chacha20_rfc8439.txt) on every backend, every backend against RustCrypto's
//! `chacha20` at every length 0..=1100 and random longer ones with random
//! streaming splits and seeks, and the 2^32-block limit.

use super::common;

use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use fieldwork::chacha20::{ChaCha20, Error, MAX_KEYSTREAM_BYTES, XChaCha20};
use fieldwork::hazmat::{self, Backends};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn bytes(rng: &mut common::Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

#[test]
fn rfc8439_vectors_on_every_backend() {
    let mut checked = 0;
    for f in common::data_lines("chacha20_rfc8439.txt") {
        let key: [u8; 32] = unhex(&f[1]).try_into().unwrap();
        let nonce: [u8; 12] = unhex(&f[2]).try_into().unwrap();
        let counter: u64 = f[3].parse().unwrap();
        let want = unhex(&f[5]);
        let input = if f[4] == "-" {
            vec![0u8; want.len()]
        } else {
            unhex(&f[4])
        };
        for mut c in hazmat::all::<ChaCha20>((&key, &nonce)) {
            c.seek(64 * counter).unwrap();
            let mut buf = input.clone();
            c.apply_keystream(&mut buf).unwrap();
            assert_eq!(buf, want, "{} {}", f[0], c.backend_name());
            checked += 1;
        }
    }
    assert!(checked >= 2, "{checked}");
}

/// One input of the differential tests: key, nonce, starting position,
/// data, and the seed of the random split into `apply_keystream` calls.
#[derive(Debug)]
struct Input<const N: usize> {
    key: [u8; 32],
    nonce: [u8; N],
    start: u64,
    data: Vec<u8>,
    split_seed: u64,
}

/// `data` from `start` through `apply` in random pieces (any split gives
/// the same stream).
fn in_pieces<const N: usize>(i: &Input<N>, mut apply: impl FnMut(&mut [u8])) -> Vec<u8> {
    let mut rng = common::Rng::new(i.split_seed);
    let mut buf = i.data.clone();
    let n = buf.len();
    let mut at = 0;
    while at < n {
        let piece = 1 + (rng.next_u64() as usize) % (n - at).min(300);
        apply(&mut buf[at..at + piece]);
        at += piece;
    }
    buf
}

/// Every backend against RustCrypto at every length 0..=1100 (every
/// group size and tail of the 16-, 8-, 4- and 1-block passes) and some
/// longer ones, from random block counters, in random pieces.
#[test]
fn backends_agree_with_rustcrypto() {
    let mut rng = common::Rng::new(0xc4ac4a);
    let lengths: Vec<usize> = (0..=1100)
        .chain([4096, 4097, 16384 + 63, 65536 + 5])
        .collect();
    let inputs: Vec<Input<12>> = lengths
        .iter()
        .map(|&n| Input {
            key: bytes(&mut rng, 32).try_into().unwrap(),
            nonce: bytes(&mut rng, 12).try_into().unwrap(),
            start: if n % 3 == 0 {
                0
            } else {
                rng.next_u64() % (1 << 20)
            },
            data: bytes(&mut rng, n),
            split_seed: rng.next_u64(),
        })
        .collect();
    let candidates = common::backend_candidates::<ChaCha20, _, _>(
        (&[0; 32], &[0; 12]),
        |name, i: &Input<12>| {
            let mut ours = ChaCha20::with_backend(name, (&i.key, &i.nonce)).expect("probed");
            ours.seek(i.start).unwrap();
            let out = in_pieces(i, |b| ours.apply_keystream(b).unwrap());
            (out, ours.position())
        },
    );
    let compared = common::differential(
        "ChaCha20 against RustCrypto, in random pieces",
        |i: &Input<12>| {
            let mut want = i.data.clone();
            let mut theirs = chacha20::ChaCha20::new(&i.key.into(), &i.nonce.into());
            theirs.seek(i.start);
            theirs.apply_keystream(&mut want);
            (want, i.start + i.data.len() as u64)
        },
        &candidates,
        inputs,
    );
    assert!(compared >= lengths.len());
}

/// XChaCha20 (HChaCha20 subkey, 24-byte nonce) on every backend against
/// RustCrypto, in random pieces.
#[test]
fn xchacha20_agrees_with_rustcrypto() {
    let mut rng = common::Rng::new(0x8c4a);
    let inputs: Vec<Input<24>> = [0usize, 1, 63, 64, 65, 500, 600, 1024, 3000, 16384]
        .into_iter()
        .map(|n| Input {
            key: bytes(&mut rng, 32).try_into().unwrap(),
            nonce: bytes(&mut rng, 24).try_into().unwrap(),
            start: 0,
            data: bytes(&mut rng, n),
            split_seed: rng.next_u64(),
        })
        .collect();
    let candidates = common::backend_candidates::<XChaCha20, _, _>(
        (&[0; 32], &[0; 24]),
        |name, i: &Input<24>| {
            let mut ours = XChaCha20::with_backend(name, (&i.key, &i.nonce)).expect("probed");
            in_pieces(i, |b| ours.apply_keystream(b).unwrap())
        },
    );
    let compared = common::differential(
        "XChaCha20 against RustCrypto",
        |i: &Input<24>| {
            let mut want = i.data.clone();
            chacha20::XChaCha20::new(&i.key.into(), &i.nonce.into()).apply_keystream(&mut want);
            want
        },
        &candidates,
        inputs,
    );
    assert!(compared >= 10);
    // The default too.
    let mut buf = [0u8; 100];
    XChaCha20::new(&[1; 32], &[2; 24])
        .apply_keystream(&mut buf)
        .unwrap();
    let mut want = [0u8; 100];
    chacha20::XChaCha20::new(&[1; 32].into(), &[2; 24].into()).apply_keystream(&mut want);
    assert_eq!(buf, want);
}

/// The keystream of one key and nonce ends after 2^32 blocks: the last
/// block (counter 2^32 − 1) is usable and equal on every backend, one byte
/// more is an error with the buffer untouched, and a seek past the end is
/// refused. (RustCrypto's `chacha20` stops one block earlier, so it checks
/// only the bytes before the last block here.)
#[test]
fn keystream_limit() {
    let (key, nonce) = ([9u8; 32], [3u8; 12]);
    let mut theirs = chacha20::ChaCha20::new(&key.into(), &nonce.into());
    theirs.seek(MAX_KEYSTREAM_BYTES - 100);
    let mut first = [0u8; 36];
    theirs.apply_keystream(&mut first);
    let mut reference: Option<[u8; 100]> = None;
    for mut c in hazmat::all::<ChaCha20>((&key, &nonce)) {
        let name = c.backend_name();
        c.seek(MAX_KEYSTREAM_BYTES - 100).unwrap();
        let mut buf = [0u8; 100];
        c.apply_keystream(&mut buf[..30]).unwrap();
        c.apply_keystream(&mut buf[30..]).unwrap();
        assert_eq!(buf[..36], first, "{name}");
        match reference {
            None => reference = Some(buf),
            Some(r) => assert_eq!(buf, r, "{name} against the first backend"),
        }
        let mut one = [0x77u8; 1];
        assert_eq!(
            c.apply_keystream(&mut one),
            Err(Error::KeystreamExhausted),
            "{name}"
        );
        assert_eq!(one, [0x77], "{name}: untouched");
        c.seek(MAX_KEYSTREAM_BYTES - 10).unwrap();
        let mut eleven = [0x55u8; 11];
        assert_eq!(
            c.apply_keystream(&mut eleven),
            Err(Error::KeystreamExhausted),
            "{name}"
        );
        assert_eq!(eleven, [0x55; 11], "{name}: untouched");
        assert_eq!(
            c.seek(MAX_KEYSTREAM_BYTES + 1),
            Err(Error::KeystreamExhausted)
        );
    }
    assert!(Error::KeystreamExhausted.to_string().contains("exhausted"));
}

/// Every backend at every length 0 … 1100 against a guard page at either
/// end: the partial last register is read and written without touching a
/// byte outside the buffer, and the stream is RustCrypto's.
#[cfg(unix)]
#[test]
fn buffers_against_guard_pages() {
    let mut rng = common::Rng::new(0x6775_6172_6421);
    let key: [u8; 32] = bytes(&mut rng, 32).try_into().unwrap();
    let nonce: [u8; 12] = bytes(&mut rng, 12).try_into().unwrap();
    let mut page = common::Guarded::new();
    for n in 0..=1100 {
        let data = bytes(&mut rng, n);
        let mut want = data.clone();
        let mut theirs = chacha20::ChaCha20::new(&key.into(), &nonce.into());
        theirs.apply_keystream(&mut want);
        for end in [true, false] {
            for mut ours in hazmat::all::<ChaCha20>((&key, &nonce)) {
                let buf = page.slice(n, end);
                buf.copy_from_slice(&data);
                ours.apply_keystream(buf).unwrap();
                assert_eq!(buf, &want[..], "{} len {n}", ours.backend_name());
            }
        }
    }
}
