//! Keys and states are zeroized on drop (issue 27), read back from memory:
//! each value is built in a `MaybeUninit` slot that stays allocated, its
//! secret fields are located while it lives (`SecretSpans`, implemented
//! next to each type under `cfg(test)`), it is dropped with
//! `drop_in_place`, and the bytes of those fields are read with
//! `read_volatile` (`test_util::secret_bytes_around_drop`). Only the
//! fields are read, never padding. Each field must hold a nonzero byte
//! before the drop (the keys are chosen so), or the test could not fail.
//!
//! Every backend this CPU runs is covered (the constructors return `None`
//! for the others): on an AVX2 machine the AVX-512 ones (GHASH zmm, the
//! AES-GCM `vaes-avx512` engine, Poly1305 IFMA, ChaCha20 AVX-512) are
//! skipped; their `SecretSpans` are written but not exercised.
//!
//! No type holding secrets keeps them on the heap, so there is no
//! heap buffer to check (`Gf2Poly` and the run-time fields' moduli are
//! public data).

extern crate std;
use crate::hazmat::Backends;
use crate::test_util::{SecretSpans, Spans, assert_zeroized_on_drop, secret_bytes_around_drop};
use std::format;
use std::vec::Vec;

fn message(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i as u8).wrapping_mul(7) | 1).collect()
}

/// Every backend's `T` this CPU runs, on `input`, put by `prepare` in the
/// state to check, then checked (`label` and the backend's name name a
/// failure); the names of the backends checked.
fn on_every_backend<T: Backends + SecretSpans>(
    label: &str,
    input: T::Input<'_>,
    prepare: impl Fn(&mut T),
) -> Vec<&'static str> {
    let mut names = Vec::new();
    for mut value in crate::hazmat::all::<T>(input) {
        prepare(&mut value);
        let name = value.backend();
        names.push(name);
        assert_zeroized_on_drop(&format!("{label} {name}"), value);
    }
    names
}

#[test]
fn aes_round_keys() {
    use crate::aes::{Aes128, Aes192, Aes256};
    on_every_backend::<Aes128>("Aes128", &[0x5a; 16], |_| ());
    on_every_backend::<Aes192>("Aes192", &[0x5a; 24], |_| ());
    on_every_backend::<Aes256>("Aes256", &[0x5a; 32], |_| ());
}

#[test]
fn aes_gcm_keys_on_every_backend() {
    use crate::gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm};
    let names = on_every_backend::<Aes128Gcm>("Aes128Gcm", &[0xa5; 16], |_| ());
    on_every_backend::<Aes192Gcm>("Aes192Gcm", &[0xa5; 24], |_| ());
    on_every_backend::<Aes256Gcm>("Aes256Gcm", &[0xa5; 32], |_| ());
    assert!(names.contains(&"portable"));
}

#[test]
fn aes_gcm_siv_keys_on_every_backend() {
    use crate::gcm_siv::{Aes128GcmSiv, Aes256GcmSiv};
    let names = on_every_backend::<Aes128GcmSiv>("Aes128GcmSiv", &[0xa5; 16], |_| ());
    on_every_backend::<Aes256GcmSiv>("Aes256GcmSiv", &[0xa5; 32], |_| ());
    assert!(names.contains(&"portable"));
}

#[test]
fn ghash_and_polyval_states_on_every_backend() {
    use crate::ghash::{GHash, Polyval};
    // 64 blocks and a partial one: the ymm kernel's wide powers are made,
    // the accumulator and the buffered block are nonzero.
    let msg = message(16 * 64 + 5);
    on_every_backend::<Polyval>("Polyval", &[0x42; 16], |p| p.update(&msg));
    let mut p = Polyval::new(&[0x42; 16]);
    p.update(&msg);
    assert_zeroized_on_drop(&format!("Polyval {}", p.backend_name()), p);
    on_every_backend::<GHash>("GHash", &[0x42; 16], |g| g.update(&msg));
    let mut g = GHash::new(&[0x42; 16]);
    g.update(&msg);
    assert_zeroized_on_drop(&format!("GHash {}", g.backend_name()), g);
}

#[test]
fn poly1305_states_on_every_backend() {
    use crate::poly1305::Poly1305;
    // Past 128 blocks the AVX2 keys hold r^1 … r^4, r^8 and r^12; a
    // partial block stays buffered.
    let msg = message(16 * 200 + 5);
    let mut key = [0u8; 32];
    for (i, k) in key.iter_mut().enumerate() {
        *k = 0x11 + i as u8;
    }
    on_every_backend::<Poly1305>("Poly1305", &key, |p| p.update(&msg));
}

#[test]
fn chacha20_states_on_every_backend() {
    use crate::chacha20::{ChaCha20, XChaCha20};
    // A partial block: its keystream stays in the state.
    on_every_backend::<ChaCha20>("ChaCha20", (&[0x3c; 32], &[1; 12]), |c| {
        let Ok(()) = c.apply_keystream(&mut [0u8; 100]) else {
            panic!("within the keystream")
        };
    });
    on_every_backend::<XChaCha20>("XChaCha20", (&[0x3c; 32], &[2; 24]), |x| {
        let Ok(()) = x.apply_keystream(&mut [0u8; 30]) else {
            panic!("within the keystream")
        };
    });
}

#[test]
fn chachapoly_keys_on_every_backend() {
    use crate::chachapoly::{ChaCha20Poly1305, XChaCha20Poly1305};
    on_every_backend::<ChaCha20Poly1305>("ChaCha20Poly1305", &[0xa5; 32], |_| ());
    on_every_backend::<XChaCha20Poly1305>("XChaCha20Poly1305", &[0xa5; 32], |_| ());
}

#[test]
fn kummer_secret_key_and_shared_secret() {
    use crate::kummer::{PublicKey, SecretKey};
    let a = SecretKey::from_bytes([0x5a; 32]);
    let b = SecretKey::from_bytes([0x22; 32]);
    let Ok(pb) = PublicKey::from_bytes(&b.public_key().to_bytes()) else {
        panic!("a generated public key validates")
    };
    let Ok(shared) = a.diffie_hellman(&pb) else {
        panic!("an ordinary exchange succeeds")
    };
    assert_zeroized_on_drop("kummer::SecretKey", a);
    assert_zeroized_on_drop("kummer::SharedSecret", shared);
}

/// A type without a zeroizing `Drop`: the harness sees its bytes left
/// behind (the check can fail).
#[test]
fn the_check_sees_bytes_left_behind() {
    struct Leaky([u8; 32]);
    impl SecretSpans for Leaky {
        fn secret_spans(&self, s: &mut Spans) {
            s.secret("bytes", &self.0);
        }
    }
    let spans = secret_bytes_around_drop(Leaky([0x5a; 32]));
    assert_eq!(spans.len(), 1);
    assert_eq!(spans[0].2, [0x5a; 32]);
    let failed = std::panic::catch_unwind(|| assert_zeroized_on_drop("Leaky", Leaky([0x5a; 32])));
    assert!(failed.is_err());
}

/// Field elements are values, not keys: the fixed ones are `Copy` (no
/// `Drop` possible), the run-time and normal-basis ones live on the heap
/// and are made by every operation. They implement `Zeroize` for callers
/// to wipe secret ones; checked here on the heap buffer before it is
/// freed.
#[test]
fn field_elements_zeroize_in_place() {
    use crate::gf2m::normal::GaussianNormalBasis;
    use crate::gf2m::{BinaryField, F163};
    use crate::gf2x::Gf2Poly;
    use zeroize::Zeroize;

    let Ok(mut f) = F163::from_be_bytes(&[0x03; 21]) else {
        panic!("a canonical encoding")
    };
    assert_ne!(f.to_be_bytes(), [0; 21]);
    f.zeroize();
    assert_eq!(f.to_be_bytes(), [0; 21]);

    let Ok(field) = BinaryField::new(Gf2Poly::from_exponents(&[163, 7, 6, 3, 0])) else {
        panic!("the NIST B-163 modulus is irreducible")
    };
    let Ok(mut e) = field.from_be_bytes(&[0x03; 21]) else {
        panic!("a canonical encoding")
    };
    let buffer = e.as_words().as_ptr();
    assert!(e.as_words().iter().any(|&w| w != 0));
    e.zeroize();
    // The same heap buffer, read before it is freed.
    assert_eq!(e.as_words().as_ptr(), buffer);
    assert!(e.as_words().iter().all(|&w| w == 0));

    let Ok(nb) = GaussianNormalBasis::new(163, 4) else {
        panic!("GF(2^163) has a type-4 Gaussian normal basis")
    };
    let Ok(mut n) = nb.from_be_bytes(&[0x03; 21]) else {
        panic!("a canonical encoding")
    };
    assert!(n.to_be_bytes().iter().any(|&b| b != 0));
    n.zeroize();
    assert!(n.to_be_bytes().iter().all(|&b| b == 0));
}
