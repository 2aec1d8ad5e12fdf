//! Poly1305: RFC 8439's vectors (tests/data/poly1305_rfc8439.txt) on every
//! backend, inputs at the carry and reduction limits against a big-integer
//! reference, every backend against RustCrypto's `poly1305` crate at every
//! length up to 2048 bytes and random longer ones with random `update`
//! splits, and the `universal-hash` traits through generic code.

use super::common;

use common::Rng;
use fieldwork::hazmat::{self, Backends};
use fieldwork::poly1305::universal_hash::{
    KeyInit, UhfBackend, UhfClosure, UniversalHash,
    common::BlockSizeUser,
    consts::{U16, U32},
};
use fieldwork::poly1305::{Error, Poly1305, tag, verify};
use num_bigint::BigUint;

/// One known answer: name, key, message, tag.
struct Vector {
    name: String,
    key: [u8; 32],
    msg: Vec<u8>,
    tag: [u8; 16],
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

fn vectors() -> Vec<Vector> {
    let mut out: Vec<Vector> = Vec::new();
    for line in common::data_lines("poly1305_rfc8439.txt") {
        let (kind, rest) = (line[0].as_str(), &line[1..]);
        if kind == "vector" {
            out.push(Vector {
                name: rest[0].clone(),
                key: [0; 32],
                msg: Vec::new(),
                tag: [0; 16],
            });
            continue;
        }
        let v = out.last_mut().expect("a vector line first");
        match kind {
            "key" => v.key = unhex(rest).try_into().unwrap(),
            "msg" => v.msg.extend(unhex(rest)),
            "tag" => v.tag = unhex(rest).try_into().unwrap(),
            k => panic!("unknown line kind {k}"),
        }
    }
    out
}

/// Every backend's instance for `key` this CPU runs, best first (the
/// portable one, the reference, last; on AArch64 first, where the scalar
/// loop is the default by the instruction count and `neon` follows by
/// name: `poly1305/neon.rs`).
fn backends(key: &[u8; 32]) -> Vec<Poly1305> {
    let all = hazmat::all::<Poly1305>(key);
    #[cfg(not(target_arch = "aarch64"))]
    assert_eq!(all.last().map(Poly1305::backend_name), Some("portable"));
    #[cfg(target_arch = "aarch64")]
    assert_eq!(all.first().map(Poly1305::backend_name), Some("portable"));
    all
}

/// Every backend of [`Poly1305::NAMES`] as a differential candidate:
/// `run` on a fresh instance for the input's key.
fn candidates<'a, I, O>(
    run: impl Fn(Poly1305, &I) -> O + Copy + 'a,
    key_of: impl Fn(&I) -> &[u8; 32] + Copy + 'a,
) -> Vec<common::Candidate<'a, I, O>> {
    common::backend_candidates::<Poly1305, I, O>(&[0; 32], move |name, input| {
        let p = Poly1305::with_backend(name, key_of(input)).expect("usable: probed");
        run(p, input)
    })
}

/// `msg` through `p` in random pieces (empty ones included).
fn update_in_pieces(p: &mut Poly1305, msg: &[u8], rng: &mut Rng) {
    let mut rest = msg;
    while !rest.is_empty() {
        let n = match rng.next_u64() % 4 {
            0 => (rng.next_u64() % 17) as usize,
            1 => (rng.next_u64() % 300) as usize,
            2 => 16 * (rng.next_u64() % 40) as usize,
            _ => rest.len(),
        }
        .min(rest.len());
        p.update(&rest[..n]);
        rest = &rest[n..];
    }
    p.update(&[]);
}

#[test]
fn rfc8439_vectors() {
    let vs = vectors();
    assert_eq!(vs.len(), 12, "2.5.2 and A.3 #1–#11");
    let mut rng = Rng::new(0x8439);
    for v in &vs {
        assert_eq!(tag(&v.key, &v.msg), v.tag, "{}", v.name);
        assert_eq!(verify(&v.key, &v.msg, &v.tag), Ok(()), "{}", v.name);
        for p in backends(&v.key) {
            let name = p.backend_name();
            // Whole, split at every point, and in random pieces.
            let mut whole = p.clone();
            whole.update(&v.msg);
            assert_eq!(whole.finalize(), v.tag, "{} on {name}", v.name);
            for at in 0..=v.msg.len() {
                let mut q = p.clone();
                q.update(&v.msg[..at]);
                q.update(&v.msg[at..]);
                assert_eq!(q.finalize(), v.tag, "{} on {name}, split at {at}", v.name);
            }
            let mut q = p.clone();
            update_in_pieces(&mut q, &v.msg, &mut rng);
            assert_eq!(q.finalize(), v.tag, "{} on {name}, pieces", v.name);
        }
    }
}

#[test]
fn verify_rejects_any_changed_bit() {
    let v = &vectors()[0];
    for bit in 0..128 {
        let mut t = v.tag;
        t[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(verify(&v.key, &v.msg, &t), Err(Error::TagMismatch));
    }
    let mut msg = v.msg.clone();
    msg[5] ^= 0x20;
    assert_eq!(verify(&v.key, &msg, &v.tag), Err(Error::TagMismatch));
    assert_eq!(verify(&v.key, &v.msg[1..], &v.tag), Err(Error::TagMismatch));
    let e = Error::TagMismatch.to_string();
    assert!(e.contains("Poly1305") && e.contains("tag mismatch"), "{e}");
    let boxed: Box<dyn std::error::Error> = Box::new(Error::TagMismatch);
    assert_eq!(boxed.to_string(), e);
}

/// The definition, on big integers: RFC 8439 §2.5.1's pseudocode.
fn reference(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    let clamp = BigUint::from(0x0fff_fffc_0fff_fffc_0fff_fffc_0fff_ffff_u128);
    let r = BigUint::from_bytes_le(&key[..16]) & clamp;
    let s = BigUint::from_bytes_le(&key[16..]);
    let p = (BigUint::from(1u8) << 130u32) - 5u32;
    let mut acc = BigUint::from(0u8);
    for block in msg.chunks(16) {
        let mut b = block.to_vec();
        b.push(1);
        acc = (acc + BigUint::from_bytes_le(&b)) * &r % &p;
    }
    let t = (acc + s) % (BigUint::from(1u8) << 128u32);
    let mut out = t.to_bytes_le();
    out.resize(16, 0);
    out.try_into().unwrap()
}

/// Keys at the limits: r with every bit the clamp keeps (and with only the
/// top ones), r = 1, s = 0 and s = 2^128 − 1; messages of all-ones blocks
/// (the largest block values, the most carries) and of zeros, at lengths
/// around every vector width and aggregation step.
#[test]
fn limits_against_the_big_integer_reference() {
    let mut keys = Vec::new();
    for r in [[0xffu8; 16], [0x0f; 16], {
        let mut r = [0u8; 16];
        r[0] = 1;
        r
    }] {
        for s in [[0u8; 16], [0xff; 16]] {
            let mut k = [0u8; 32];
            k[..16].copy_from_slice(&r);
            k[16..].copy_from_slice(&s);
            keys.push(k);
        }
    }
    let lengths: Vec<usize> = (0..=300)
        .chain([
            511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096,
        ])
        .collect();
    let mut inputs = Vec::new();
    for key in &keys {
        for byte in [0xffu8, 0] {
            for &len in &lengths {
                inputs.push((*key, byte, len));
            }
        }
    }
    let n_inputs = inputs.len();
    let message = |&(_, byte, len): &([u8; 32], u8, usize)| vec![byte; len];
    let compared = common::differential(
        "Poly1305 at the limits",
        |i| reference(&i.0, &message(i)),
        &candidates(
            move |mut p, i| {
                p.update(&message(i));
                p.finalize()
            },
            |i| &i.0,
        ),
        inputs,
    );
    assert!(compared >= n_inputs);
}

/// With r = 1 the polynomial part is the sum of the blocks mod p: three
/// blocks summing to p + δ put the accumulator exactly around p before
/// the final reduction.
#[test]
fn accumulator_around_p() {
    let p = (BigUint::from(1u8) << 130u32) - 5u32;
    let two128 = BigUint::from(1u8) << 128u32;
    for delta in -6i32..=6 {
        let target = if delta < 0 {
            &p - BigUint::from((-delta) as u32)
        } else {
            &p + BigUint::from(delta as u32)
        };
        // Three whole blocks contribute 3·2^128 + m₁ + m₂ + m₃.
        let m_sum = &target - 3u32 * &two128;
        let max = &two128 - 1u32;
        let m1 = if m_sum > max {
            max.clone()
        } else {
            m_sum.clone()
        };
        let m2 = &m_sum - &m1;
        assert!(m2 <= max);
        let mut msg = Vec::new();
        for m in [&m1, &m2, &BigUint::from(0u8)] {
            let mut b = m.to_bytes_le();
            b.resize(16, 0);
            msg.extend(b);
        }
        for s in [[0u8; 16], [0xff; 16]] {
            let mut key = [0u8; 32];
            key[0] = 1;
            key[16..].copy_from_slice(&s);
            let want = reference(&key, &msg);
            for q in backends(&key) {
                let name = q.backend_name();
                let mut q = q;
                q.update(&msg);
                assert_eq!(q.finalize(), want, "{name}, δ = {delta}");
            }
        }
    }
}

/// RustCrypto's `poly1305` (0.9) tag of `msg` (RFC 8439 padding).
fn peer(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    poly1305::Poly1305::new(key.into())
        .compute_unpadded(msg)
        .into()
}

/// One input of the differential test against RustCrypto: a key, a
/// message, and the seed of its random `update` split.
#[derive(Debug)]
struct Input {
    key: [u8; 32],
    msg: Vec<u8>,
    split_seed: u64,
}

#[test]
fn every_backend_against_rustcrypto_at_every_length() {
    let mut rng = Rng::new(0x1305);
    let data: Vec<u8> = (0..40_000).map(|_| rng.next_u64() as u8).collect();
    let lengths: Vec<usize> = (0..=2048)
        .chain((0..40).map(|_| 2049 + (rng.next_u64() % 37_000) as usize))
        .collect();
    let inputs: Vec<Input> = lengths
        .iter()
        .map(|&len| {
            let key: [u8; 32] = core::array::from_fn(|_| rng.next_u64() as u8);
            let start = (rng.next_u64() % 64) as usize; // unaligned too
            Input {
                key,
                msg: data[start..start + len].to_vec(),
                split_seed: rng.next_u64(),
            }
        })
        .collect();
    for i in &inputs {
        assert_eq!(
            tag(&i.key, &i.msg),
            peer(&i.key, &i.msg),
            "one-shot, len {}",
            i.msg.len()
        );
    }
    let compared = common::differential(
        "Poly1305 against RustCrypto, whole and in random pieces",
        |i: &Input| {
            let t = peer(&i.key, &i.msg);
            (t, t)
        },
        &candidates(
            |p, i: &Input| {
                let mut whole = p.clone();
                whole.update(&i.msg);
                let mut pieces = p;
                update_in_pieces(&mut pieces, &i.msg, &mut Rng::new(i.split_seed));
                (whole.finalize(), pieces.finalize())
            },
            |i: &Input| &i.key,
        ),
        inputs,
    );
    assert!(compared >= lengths.len());
}

/// The same generic code on ours and on RustCrypto's type: the AEAD's use
/// (`update_padded` of two inputs, then the length block).
fn aead_style<U>(key: &[u8; 32], a: &[u8], c: &[u8]) -> [u8; 16]
where
    U: UniversalHash<BlockSize = U16> + KeyInit<KeySize = U32>,
{
    let mut u = U::new(key.into());
    u.update_padded(a);
    u.update_padded(c);
    let mut len = [0u8; 16];
    len[..8].copy_from_slice(&(a.len() as u64).to_le_bytes());
    len[8..].copy_from_slice(&(c.len() as u64).to_le_bytes());
    u.update(&[len.into()]);
    u.finalize().into()
}

/// A closure that feeds blocks one at a time through `proc_block` and in
/// groups through `proc_par_blocks` when the backend takes them.
struct Feed<'a>(&'a [u8]);

impl BlockSizeUser for Feed<'_> {
    type BlockSize = U16;
}

impl UhfClosure for Feed<'_> {
    fn call<B: UhfBackend<BlockSize = U16>>(self, backend: &mut B) {
        let blocks: Vec<[u8; 16]> = self
            .0
            .chunks_exact(16)
            .map(|b| b.try_into().unwrap())
            .collect();
        let (first, rest) = blocks.split_at(blocks.len().min(3));
        for b in first {
            backend.proc_block(b.into());
        }
        let par = <B as fieldwork::poly1305::universal_hash::common::ParBlocksSizeUser>::ParBlocksSize::USIZE;
        let mut chunks = rest.chunks_exact(par);
        for group in chunks.by_ref() {
            let arr: Vec<_> = group.iter().map(|b| (*b).into()).collect();
            backend.proc_par_blocks(arr.as_slice().try_into().unwrap());
        }
        for b in chunks.remainder() {
            backend.proc_block(b.into());
        }
    }
}

use fieldwork::poly1305::universal_hash::typenum::Unsigned;

#[test]
fn universal_hash_traits_match_rustcrypto() {
    let mut rng = Rng::new(42);
    let data: Vec<u8> = (0..3000).map(|_| rng.next_u64() as u8).collect();
    for (a, c) in [
        (0, 0),
        (12, 114),
        (16, 16),
        (1, 1000),
        (15, 17),
        (300, 2500),
        (0, 2999),
    ] {
        let key: [u8; 32] = core::array::from_fn(|_| rng.next_u64() as u8);
        let (a, c) = (&data[..a], &data[a..a + c]);
        let want = aead_style::<poly1305::Poly1305>(&key, a, c);
        assert_eq!(aead_style::<Poly1305>(&key, a, c), want);
        // Every backend, through the trait methods explicitly.
        for p in backends(&key) {
            let name = p.backend_name();
            let mut u = p;
            UniversalHash::update_padded(&mut u, a);
            UniversalHash::update_padded(&mut u, c);
            let mut len = [0u8; 16];
            len[..8].copy_from_slice(&(a.len() as u64).to_le_bytes());
            len[8..].copy_from_slice(&(c.len() as u64).to_le_bytes());
            UniversalHash::update(&mut u, &[len.into()]);
            assert_eq!(<[u8; 16]>::from(UniversalHash::finalize(u)), want, "{name}");
        }
    }
    // update_with_backend with single and parallel blocks, against the
    // inherent update of the same bytes.
    for blocks in [0usize, 1, 3, 4, 19, 35, 100] {
        let key: [u8; 32] = core::array::from_fn(|_| rng.next_u64() as u8);
        let msg = &data[..16 * blocks];
        for p in backends(&key) {
            let name = p.backend_name();
            let mut u = p.clone();
            u.update_with_backend(Feed(msg));
            let mut q = p;
            q.update(msg);
            assert_eq!(u.finalize(), q.finalize(), "{name}, {blocks} blocks");
        }
        assert_eq!(tag(&key, msg), peer(&key, msg));
    }
    // The trait's verify.
    let key = [9u8; 32];
    let t = tag(&key, &data[..64]);
    let mut u = <Poly1305 as KeyInit>::new(&key.into());
    UniversalHash::update_padded(&mut u, &data[..64]);
    assert!(UniversalHash::verify(u, &t.into()).is_ok());
}

#[test]
fn debug_shows_the_backend_only() {
    let p = Poly1305::new(&[0xab; 32]);
    let s = format!("{p:?}");
    assert!(s.contains(p.backend_name()), "{s}");
    assert!(!s.contains("171"), "{s}");
}

/// Regression (found by the `mac_poly1305` fuzz target): the AVX2 kernels'
/// final packing of 26-bit limbs ORed limb 1 into place, losing the carry
/// when limb 1 had reached 2^26 and limb 2 was odd — a wrong tag on both
/// AVX2 schemes for this key and message (splitmix64 from `u64::MAX`,
/// lengths 1 904–1 911 on the decimation scheme; the Goll–Gueron scheme
/// after a first update of 231 bytes).
#[test]
fn avx2_limb_packing_keeps_the_carry() {
    let key: [u8; 32] = [
        0x68, 0x93, 0, 0, 0x80, 0, 0, 0, 0x1a, 0x1a, 0xff, 0xff, 0xff, 0xb0, 0xb0, 0xb0, 0xb0,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x74, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    ];
    // SplitMix64 from u64::MAX (the fuzz target's generator).
    let mut rng = Rng::new(u64::MAX);
    let msg: Vec<u8> = (0..1911).map(|_| rng.next_u64() as u8).collect();
    for len in [1903, 1904, 1908, 1911] {
        let mut p = Poly1305::with_backend("portable", &key).expect("always there");
        p.update(&msg[..len]);
        let expected = p.finalize();
        for mut m in backends(&key) {
            let name = m.backend_name();
            m.update(&msg[..len]);
            assert_eq!(m.finalize(), expected, "{name}, {len} bytes");
        }
    }
    for mut m in backends(&key) {
        let name = m.backend_name();
        m.update(&msg[..231]);
        m.update(&msg[231..]);
        assert_eq!(m.finalize(), tag(&key, &msg), "{name}, split at 231");
    }
}

/// The trait's `update_padded` after the inherent `update` left part of a
/// block: the zero-padded bytes continue the byte stream, exactly as the
/// inherent `update` of the bytes and their padding, on every backend.
#[test]
fn update_padded_mid_block_continues_the_stream() {
    let data: Vec<u8> = (0..200u32).map(|i| (i * 37 + 11) as u8).collect();
    let key: [u8; 32] = core::array::from_fn(|i| (i * 7 + 1) as u8);
    for head in [1usize, 5, 15, 17] {
        for len in [1usize, 7, 15, 16, 33, 100] {
            let (h, d) = (&data[..head], &data[head..head + len]);
            let mut padded = d.to_vec();
            padded.resize(len.div_ceil(16) * 16, 0);
            for p in backends(&key) {
                let name = p.backend_name();
                let mut u = p.clone();
                u.update(h);
                UniversalHash::update_padded(&mut u, d);
                let mut q = p;
                q.update(h);
                q.update(&padded);
                assert_eq!(u.finalize(), q.finalize(), "{name}, {head} + {len}");
            }
        }
    }
}
