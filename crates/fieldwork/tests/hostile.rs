//! Hostile input to every public constructor and decoder (issue 27): empty,
//! too long, wrong lengths, non-canonical encodings, values at and beyond
//! the modulus, all-zero and all-one keys. Each must give an error (or, for
//! inputs that are valid, the right answer), never a panic. And a failed
//! AEAD open zeroes the buffer, for every AEAD and every backend this CPU
//! and `FIELDWORK_MAX_ISA` allow.

use fieldwork::chacha20::{self, ChaCha20};
use fieldwork::chachapoly::{self, ChaCha20Poly1305, XChaCha20Poly1305};
use fieldwork::gcm::aead::{Aead, AeadInOut, KeyInit};
use fieldwork::gcm::{self, Aes128Gcm, Aes192Gcm, Aes256Gcm};
use fieldwork::gf2m::normal::{GaussianNormalBasis, NormalBasisError};
use fieldwork::gf2m::{self, BinaryField, F163, F233, F283, F409, F571, FieldElement, Gf2mError};
use fieldwork::gf2x::{self, Gf2Poly, Gf2xError};
use fieldwork::hazmat::{self, Backends};
use fieldwork::kummer::{self, KummerError, PublicKey, SecretKey};
use fieldwork::poly1305::{self, Poly1305};

const LENS: [usize; 9] = [0, 1, 15, 16, 17, 63, 64, 255, 1000];

fn message(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

// ------------------------------------------------------------- tag mismatch

macro_rules! gcm_mismatch {
    ($ty:ty, $k:literal) => {
        for key in [[0u8; $k], [0xff; $k], [0x42; $k]] {
            for c in fieldwork::hazmat::all::<$ty>(&key) {
                let name = c.backend_name();
                for len in LENS {
                    let mut buf = message(len);
                    let tag = c.encrypt_in_place_detached_iv(&[7; 12], b"ad", &mut buf);
                    let Ok(tag) = tag else {
                        panic!("{name}: seal failed")
                    };
                    // A wrong tag, a wrong AD, a changed ciphertext byte.
                    for case in 0..3 {
                        let (mut b, mut t, mut ad) = (buf.clone(), tag, b"ad".to_vec());
                        match case {
                            0 => t[15] ^= 0x80,
                            1 => ad[0] ^= 1,
                            _ if len > 0 => b[len - 1] ^= 1,
                            _ => t[0] ^= 1,
                        }
                        let r = c.decrypt_in_place_detached_iv(&[7; 12], &ad, &mut b, &t);
                        assert_eq!(
                            r,
                            Err(gcm::Error::TagMismatch),
                            "{name} len {len} case {case}"
                        );
                        assert!(b.iter().all(|&x| x == 0), "{name} len {len}: not zeroed");
                    }
                    // Through the aead trait: an error and no plaintext.
                    let mut sealed = buf.clone();
                    sealed.extend_from_slice(&tag);
                    sealed[0] ^= 1;
                    assert!(Aead::decrypt(&c, &[7u8; 12].into(), sealed.as_slice()).is_err());
                    let mut inout = buf.clone();
                    let mut t = tag;
                    t[3] ^= 4;
                    let r = c.decrypt_inout_detached(
                        &[7u8; 12].into(),
                        b"ad",
                        inout.as_mut_slice().into(),
                        &t.into(),
                    );
                    assert!(r.is_err());
                    assert!(
                        inout.iter().all(|&x| x == 0),
                        "{name} trait path: not zeroed"
                    );
                }
            }
        }
    };
}

#[test]
fn gcm_tag_mismatch_zeroes_the_buffer_on_every_backend() {
    gcm_mismatch!(Aes128Gcm, 16);
    gcm_mismatch!(Aes192Gcm, 24);
    gcm_mismatch!(Aes256Gcm, 32);
}

#[test]
fn chachapoly_tag_mismatch_zeroes_the_buffer_on_every_backend() {
    // Every backend this CPU runs (portable, ChaCha20 on AVX2 or AVX-512
    // then Poly1305, the stitched AVX2 kernel), and the dispatched one.
    for key in [[0u8; 32], [0xff; 32], [0x42; 32]] {
        let named = |c: ChaCha20Poly1305| (c.backend(), c);
        let mut cs: Vec<_> = hazmat::all::<ChaCha20Poly1305>(&key)
            .into_iter()
            .map(named)
            .collect();
        cs.push(("dispatch", ChaCha20Poly1305::new(&key.into())));
        let xnamed = |c: XChaCha20Poly1305| (c.backend(), c);
        let mut xs: Vec<_> = hazmat::all::<XChaCha20Poly1305>(&key)
            .into_iter()
            .map(xnamed)
            .collect();
        xs.push(("dispatch", XChaCha20Poly1305::new(&key.into())));
        assert!(cs.len() >= 2 && xs.len() >= 2);
        // Past 256 bytes the AVX2 kernel authenticates and decrypts groups.
        for len in LENS.into_iter().chain([256, 257, 4096 + 5]) {
            let mut reference = message(len);
            let Ok(reference_tag) = ChaCha20Poly1305::new(&key.into()).encrypt_in_place_detached(
                &[1; 12],
                b"ad",
                &mut reference,
            ) else {
                panic!("seal failed")
            };
            for (name, c) in &cs {
                let mut buf = message(len);
                let Ok(tag) = c.encrypt_in_place_detached(&[1; 12], b"ad", &mut buf) else {
                    panic!("{name}: seal failed")
                };
                assert_eq!((&buf, tag), (&reference, reference_tag), "{name} len {len}");
                // A wrong tag, a wrong AD, a changed ciphertext byte.
                for case in 0..3 {
                    let (mut b, mut t, mut ad) = (buf.clone(), tag, b"ad".to_vec());
                    match case {
                        0 => t[0] ^= 1,
                        1 => ad[1] ^= 0x20,
                        _ if len > 0 => b[len / 2] ^= 0x10,
                        _ => t[15] ^= 0x80,
                    }
                    assert_eq!(
                        c.decrypt_in_place_detached(&[1; 12], &ad, &mut b, &t),
                        Err(chachapoly::Error::TagMismatch),
                        "{name} len {len} case {case}"
                    );
                    assert!(
                        b.iter().all(|&v| v == 0),
                        "{name} len {len} case {case}: not zeroed"
                    );
                }
                // Through the aead trait: an error and no plaintext.
                let mut inout = buf.clone();
                let mut t = tag;
                t[3] ^= 4;
                let r = c.decrypt_inout_detached(
                    &[1u8; 12].into(),
                    b"ad",
                    inout.as_mut_slice().into(),
                    &t.into(),
                );
                assert!(r.is_err());
                assert!(
                    inout.iter().all(|&v| v == 0),
                    "{name} trait path: not zeroed"
                );
                let mut ok = buf.clone();
                assert_eq!(
                    c.decrypt_in_place_detached(&[1; 12], b"ad", &mut ok, &tag),
                    Ok(())
                );
                assert_eq!(ok, message(len), "{name} len {len}: round trip");
            }
            for (name, x) in &xs {
                let mut buf = message(len);
                let Ok(tag) = x.encrypt_in_place_detached(&[2; 24], b"", &mut buf) else {
                    panic!("XChaCha {name}: seal failed")
                };
                if len > 0 {
                    buf[len / 2] ^= 0x10;
                }
                let mut t = tag;
                t[15] ^= u8::from(len == 0);
                assert_eq!(
                    x.decrypt_in_place_detached(&[2; 24], b"", &mut buf, &t),
                    Err(chachapoly::Error::TagMismatch),
                    "XChaCha {name} len {len}"
                );
                assert!(
                    buf.iter().all(|&v| v == 0),
                    "XChaCha {name} len {len}: not zeroed"
                );
            }
        }
    }
}

// ------------------------------------------------------------- AEAD inputs

#[test]
fn aead_hostile_lengths() {
    // Key lengths through the trait: an error, not a panic.
    for n in [0usize, 1, 15, 17, 23, 25, 31, 33, 64] {
        let k = vec![1u8; n];
        assert!(Aes128Gcm::new_from_slice(&k).is_err() || n == 16);
        assert!(Aes192Gcm::new_from_slice(&k).is_err() || n == 24);
        assert!(Aes256Gcm::new_from_slice(&k).is_err() || n == 32);
        assert!(ChaCha20Poly1305::new_from_slice(&k).is_err() || n == 32);
        assert!(Poly1305::new_from_slice(&k).is_err() || n == 32);
    }
    let c = <Aes128Gcm as fieldwork::hazmat::Backends>::with_backend("portable", &[0; 16]).unwrap();
    let mut buf = [1u8; 20];
    // An empty IV, tags of 0–3 and 17 bytes.
    assert_eq!(
        c.encrypt_in_place_detached_iv(&[], &[], &mut buf),
        Err(gcm::Error::IvLength)
    );
    assert_eq!(buf, [1; 20], "untouched on a length error");
    for t in [0usize, 1, 3, 17, 32] {
        let r = c.decrypt_in_place_detached_iv(&[0; 12], &[], &mut buf, &vec![0; t]);
        assert_eq!(r, Err(gcm::Error::TagLength), "tag of {t} bytes");
        assert_eq!(buf, [1; 20]);
    }
    assert_eq!(
        c.decrypt_in_place_detached_iv(&[], &[], &mut buf, &[0; 16]),
        Err(gcm::Error::IvLength)
    );
    // Sealed messages shorter than a tag, and empty ones, through the trait.
    let cp = ChaCha20Poly1305::new(&[0u8; 32].into());
    for n in 0..17 {
        let short = vec![0u8; n];
        assert!(Aead::decrypt(&c, &[0u8; 12].into(), short.as_slice()).is_err());
        assert!(Aead::decrypt(&cp, &[0u8; 12].into(), short.as_slice()).is_err());
    }
    // A valid empty message opens to nothing.
    let sealed = Aead::encrypt(&cp, &[0u8; 12].into(), &[][..]).unwrap_or_default();
    assert_eq!(sealed.len(), 16);
    assert_eq!(
        Aead::decrypt(&cp, &[0u8; 12].into(), sealed.as_slice()),
        Ok(vec![])
    );
}

#[test]
fn poly1305_and_chacha20_hostile() {
    for key in [[0u8; 32], [0xff; 32]] {
        let t = poly1305::tag(&key, b"m");
        assert!(poly1305::verify(&key, b"m", &t).is_ok());
        for i in 0..16 {
            let mut w = t;
            w[i] ^= 1;
            assert_eq!(
                poly1305::verify(&key, b"m", &w),
                Err(poly1305::Error::TagMismatch)
            );
        }
    }
    // ChaCha20's 2^32-block limit: seeking or running past it is an error.
    for mut c in hazmat::all::<ChaCha20>((&[9; 32], &[0; 12])) {
        let name = c.backend_name();
        assert!(c.seek(u64::MAX).is_err(), "{name}: seek to u64::MAX");
        assert!(c.seek((1 << 38) - 10).is_ok(), "{name}");
        let mut buf = [5u8; 64];
        assert_eq!(
            c.apply_keystream(&mut buf),
            Err(chacha20::Error::KeystreamExhausted)
        );
        assert_eq!(buf, [5; 64], "{name}: buffer touched past the limit");
        let mut ten = [5u8; 10];
        assert!(
            c.apply_keystream(&mut ten).is_ok(),
            "{name}: the last 10 bytes"
        );
    }
}

// ------------------------------------------------------------- gf2x

#[test]
fn gf2x_hostile_lengths() {
    let a = [1u64, 2, 3];
    for m in gf2x::Dispatch::all() {
        for out_len in [0usize, 1, 4, 5, 7, 100] {
            let mut out = vec![0u64; out_len];
            let r = m.mul_into(&mut out, &a, &[1, 1]);
            assert_eq!(r.is_ok(), out_len == 5, "{} out {out_len}", m.name());
            if out_len != 5 {
                assert!(matches!(
                    r,
                    Err(Gf2xError::OutputLength { expected: 5, .. })
                ));
            }
            let mut out = vec![0u64; out_len];
            assert_eq!(m.square_into(&mut out, &a).is_ok(), out_len == 6);
        }
        // Empty operands give the empty product.
        let mut out: [u64; 0] = [];
        assert_eq!(m.mul_into(&mut out, &[], &[]), Ok(()));
        let mut out = [9u64; 3];
        assert_eq!(m.mul_into(&mut out, &a, &[]), Ok(()));
        // Scratch too short.
        let (x, y) = (vec![u64::MAX; 200], vec![u64::MAX; 200]);
        let mut out = vec![0u64; 400];
        let r = m.mul_into_with_scratch(&mut out, &x, &y, &mut []);
        if gf2x::mul_scratch_len(200, 200) > 0 {
            assert!(
                matches!(r, Err(Gf2xError::ScratchLength { .. })),
                "{}",
                m.name()
            );
        } else {
            assert_eq!(r, Ok(()));
        }
    }
}

#[test]
fn gf2poly_hostile_text() {
    let too_big = format!("x^{}", Gf2Poly::MAX_PARSE_DEGREE + 1);
    let overflow = "x^99999999999999999999999999".to_string();
    let long = "x+".repeat(100_000);
    for s in [
        "",
        " ",
        "+",
        "x^",
        "^2",
        "x^-1",
        "x^+1",
        "x^1.5",
        "2",
        "x x",
        "x++1",
        "x^2^3",
        "y",
        "é",
        "\0",
        too_big.as_str(),
        overflow.as_str(),
        long.as_str(),
    ] {
        assert!(s.parse::<Gf2Poly>().is_err(), "{s:.40?} parsed");
    }
    for s in ["", "0x", " 0x ", "g", "0xg", "0x-1", "1 1", "１"] {
        assert!(Gf2Poly::from_hex(s).is_err(), "{s:?} parsed as hex");
    }
    // Leading zero bytes are the same polynomial; empty bytes are zero.
    assert_eq!(Gf2Poly::from_be_bytes(&[]), Gf2Poly::zero());
    assert_eq!(Gf2Poly::from_be_bytes(&[0, 0, 1]), Gf2Poly::one());
}

// ------------------------------------------------------------- gf2m

fn fixed_hostile<F: FieldElement>() {
    let m = F::M;
    let name = format!("F{m}");
    // Wrong lengths.
    for n in [0, F::BYTES - 1, F::BYTES + 1, 2 * F::BYTES] {
        assert!(
            matches!(F::from_be_slice(&vec![0; n]), Err(Gf2mError::Length { .. })),
            "{name} {n} bytes"
        );
    }
    for n in [0, F::WORDS - 1, F::WORDS + 1] {
        assert!(F::from_word_slice(&vec![0; n]).is_err(), "{name} {n} words");
    }
    let mut out = vec![0u8; F::BYTES + 1];
    assert!(F::ONE.write_be_bytes(&mut out).is_err());
    assert!(F::ONE.write_be_bytes(&mut []).is_err());
    // All ones, the modulus itself (x^m set) and x^m alone: not reduced.
    assert_eq!(
        F::from_be_slice(&vec![0xff; F::BYTES]),
        Err(Gf2mError::NotReduced { m })
    );
    let modulus = Gf2Poly::from_exponents(F::modulus_exponents());
    let mut words = modulus.to_u64s();
    words.resize(F::WORDS, 0);
    if words.len() == F::WORDS {
        assert_eq!(
            F::from_word_slice(&words),
            Err(Gf2mError::NotReduced { m }),
            "{name}: the modulus"
        );
    }
    let mut top = vec![0u64; F::WORDS];
    top[m / 64] |= 1 << (m % 64);
    assert!(F::from_word_slice(&top).is_err(), "{name}: x^m");
    // The largest reduced value is accepted and round-trips.
    let mut max = vec![u64::MAX; F::WORDS];
    max[F::WORDS - 1] = (1 << (m % 64)) - 1;
    let x = F::from_word_slice(&max);
    assert!(
        x.as_ref().is_ok_and(|x| x.as_words() == &max[..]),
        "{name}: x^m − 1 terms"
    );
    // Text: empty, junk, too many digits.
    for s in ["", "0x", "zz", "0x-1", "ff ff"] {
        assert!(s.parse::<F>().is_err(), "{name}: {s:?}");
    }
    assert!("f".repeat(2 * F::BYTES + 1).parse::<F>().is_err());
    assert!(
        "f".repeat(2 * F::BYTES).parse::<F>().is_err(),
        "{name}: all ones"
    );
    // Zero has no inverse; a value of trace 1 has no root of z² + z = c.
    assert!(bool::from(F::ZERO.invert().is_none()));
    let mut c = F::ONE;
    for _ in 0..m {
        if bool::from(c.trace()) {
            break;
        }
        c = c * c + F::ONE;
    }
    if bool::from(c.trace()) {
        assert!(bool::from(c.solve_quadratic().is_none()), "{name}");
    }
    for b in gf2m::Dispatch::all() {
        let mut out = vec![F::ZERO; 2];
        assert!(
            b.mul_slices(&mut out, &[F::ONE], &[F::ONE, F::ONE])
                .is_err()
        );
        assert!(b.square_slices(&mut out, &[F::ONE]).is_err());
        assert_eq!(
            b.invert(&F::ZERO),
            F::ZERO,
            "{}: invert(0) is 0 by convention",
            b.name()
        );
    }
}

#[test]
fn gf2m_fixed_hostile() {
    fixed_hostile::<F163>();
    fixed_hostile::<F233>();
    fixed_hostile::<F283>();
    fixed_hostile::<F409>();
    fixed_hostile::<F571>();
}

#[test]
fn binary_field_hostile() {
    // Moduli: zero, constants, linear, reducible, too large.
    let too_big = Gf2Poly::x_pow(BinaryField::MAX_DEGREE + 1) + Gf2Poly::one();
    for (p, what) in [
        (Gf2Poly::zero(), "zero"),
        (Gf2Poly::one(), "one"),
        (Gf2Poly::from_exponents(&[1, 0]), "x + 1"),
        (Gf2Poly::from_exponents(&[2]), "x²"),
        (Gf2Poly::from_exponents(&[4, 2, 0]), "(x² + x + 1)²"),
        (Gf2Poly::from_exponents(&[163, 0]), "x^163 + 1"),
        (too_big, "degree past MAX_DEGREE"),
    ] {
        assert!(BinaryField::new(p).is_err(), "{what} accepted as a modulus");
    }
    for m in [0usize, 1, BinaryField::MAX_DEGREE + 1, usize::MAX] {
        assert!(BinaryField::sparse_irreducible(m).is_err(), "m = {m}");
    }
    let (Ok(f), Ok(g)) = (
        BinaryField::sparse_irreducible(163),
        BinaryField::sparse_irreducible(233),
    ) else {
        panic!("NIST degrees have sparse moduli")
    };
    for n in [0usize, 2, 4, 100] {
        assert!(f.from_words(&vec![0; n]).is_err() || n == 3);
    }
    assert!(f.from_words(&[u64::MAX; 3]).is_err(), "bits past m");
    for n in [0usize, 20, 22] {
        assert!(f.from_be_bytes(&vec![0; n]).is_err());
    }
    assert!(f.from_be_bytes(&[0xff; 21]).is_err());
    for s in ["", "0x", "xyz", &"f".repeat(43)] {
        assert!(f.from_hex(s).is_err(), "{s:?}");
    }
    // Elements of two fields do not mix.
    assert_eq!(f.one().try_mul(&g.one()), Err(Gf2mError::FieldMismatch));
    assert_eq!(f.one().try_add(&g.one()), Err(Gf2mError::FieldMismatch));
    assert!(bool::from(f.zero().invert().is_none()));
}

#[test]
fn normal_basis_hostile() {
    for (m, t) in [
        (0usize, 1usize),
        (1, 2),
        (163, 0),
        (163, 1),
        (163, 3),
        (10_001, 2),
        (usize::MAX, usize::MAX),
    ] {
        assert!(GaussianNormalBasis::new(m, t).is_err(), "m = {m}, t = {t}");
    }
    assert!(GaussianNormalBasis::lowest_type(1).is_err());
    let (Ok(nb), Ok(other)) = (
        GaussianNormalBasis::new(163, 4),
        GaussianNormalBasis::new(233, 2),
    ) else {
        panic!("FIPS 186-2's bases exist")
    };
    for n in [0usize, 20, 22, 1000] {
        assert_eq!(
            nb.from_be_bytes(&vec![0; n]).err(),
            Some(NormalBasisError::Encoding),
            "{n} bytes"
        );
    }
    assert_eq!(
        nb.from_be_bytes(&[0xff; 21]).err(),
        Some(NormalBasisError::Encoding)
    );
    for s in ["", "0x", "qq", &"0".repeat(43)] {
        assert!(nb.from_hex(s).is_err(), "{s:?}");
    }
    assert!(nb.from_coordinates(&[]).is_err());
    assert!(nb.from_coordinates(&[u64::MAX; 3]).is_err());
    assert_eq!(
        nb.one().try_mul(&other.one()).err(),
        Some(NormalBasisError::BasisMismatch)
    );
    assert!(nb.to_normal(&F233::ONE).is_err(), "degree mismatch");
    assert!(nb.from_normal::<F233>(&nb.one()).is_err());
    assert!(nb.from_normal::<F163>(&other.one()).is_err());
    assert!(bool::from(nb.zero().invert().is_none()));
}

// ------------------------------------------------------------- Kummer

#[test]
fn kummer_hostile_public_keys() {
    let p_bytes: [u8; 16] = ((1u128 << 127) - 1).to_le_bytes();
    let mut at_p = kummer::BASE_POINT;
    at_p[..16].copy_from_slice(&p_bytes);
    let mut beyond = kummer::BASE_POINT;
    beyond[16..32].copy_from_slice(&[0xff; 16]);
    let mut zero_coord = kummer::BASE_POINT;
    zero_coord[32..].copy_from_slice(&[0; 16]);
    let mut off = kummer::BASE_POINT;
    off[5] ^= 0x20;
    assert_eq!(
        PublicKey::from_bytes(&[0; 48]),
        Err(KummerError::ZeroCoordinate { coordinate: 0 })
    );
    assert_eq!(
        PublicKey::from_bytes(&[0xff; 48]),
        Err(KummerError::NonCanonical { coordinate: 0 })
    );
    assert_eq!(
        PublicKey::from_bytes(&at_p),
        Err(KummerError::NonCanonical { coordinate: 0 })
    );
    assert_eq!(
        PublicKey::from_bytes(&beyond),
        Err(KummerError::NonCanonical { coordinate: 1 })
    );
    assert_eq!(
        PublicKey::from_bytes(&zero_coord),
        Err(KummerError::ZeroCoordinate { coordinate: 2 })
    );
    assert_eq!(PublicKey::from_bytes(&off), Err(KummerError::NotOnSurface));

    // All-zero and all-one secrets: the zero secret's result is refused;
    // the all-one secret works and agrees both ways.
    let Ok(base) = PublicKey::from_bytes(&kummer::BASE_POINT) else {
        panic!("base point")
    };
    let zero = SecretKey::from_bytes([0; 32]);
    assert!(
        zero.diffie_hellman(&base).is_err(),
        "a zero secret gives a known value"
    );
    let ones = SecretKey::from_bytes([0xff; 32]);
    let other = SecretKey::from_bytes([0x5a; 32]);
    let a = ones
        .diffie_hellman(&other.public_key())
        .map(|s| *s.as_bytes());
    let b = other
        .diffie_hellman(&ones.public_key())
        .map(|s| *s.as_bytes());
    assert!(a.is_ok());
    assert_eq!(a, b);
}
