//! Keys are zeroized on drop (issue 27), checked from outside for the types
//! whose whole representation is the secret bytes (no padding, no heap):
//! each is dropped in place inside a `MaybeUninit` slot that stays alive,
//! and the slot's bytes are read afterwards.
//!
//! Not checked here: the types holding round keys, hash-key powers or
//! vector state next to other fields (`gcm::Aes*Gcm`, `ghash::*`,
//! `poly1305::Poly1305`, `chacha20::ChaCha20`): reading their storage
//! after drop would read padding bytes, which Rust leaves undefined; their
//! `Drop` implementations are reviewed instead.
#![allow(unsafe_code)]

use core::mem::{MaybeUninit, size_of};
use fieldwork::chachapoly::aead::KeyInit;
use fieldwork::chachapoly::{ChaCha20Poly1305, XChaCha20Poly1305};
use fieldwork::kummer::{PublicKey, SecretKey, SharedSecret};

/// Drops `value` in place and returns the bytes its storage holds then.
fn bytes_after_drop<T, const N: usize>(value: T) -> [u8; N] {
    assert_eq!(size_of::<T>(), N, "the type is exactly its secret bytes");
    let mut slot = MaybeUninit::new(value);
    // SAFETY: the slot holds an initialised T, dropped once here and never
    // used as a T again.
    unsafe { core::ptr::drop_in_place(slot.as_mut_ptr()) };
    // SAFETY: size_of::<T>() == N (asserted) and T is a plain byte array
    // wrapper, so all N bytes were initialised (by Drop's zeroize).
    unsafe { core::ptr::read_volatile(slot.as_ptr().cast::<[u8; N]>()) }
}

#[test]
fn kummer_secret_key_and_shared_secret() {
    assert_eq!(
        bytes_after_drop::<_, 32>(SecretKey::from_bytes([0x5a; 32])),
        [0; 32]
    );
    let a = SecretKey::from_bytes([0x11; 32]);
    let b = SecretKey::from_bytes([0x22; 32]);
    let Ok(pb) = PublicKey::from_bytes(&b.public_key().to_bytes()) else {
        panic!("a generated public key validates")
    };
    let Ok(shared) = a.diffie_hellman(&pb) else {
        panic!("an ordinary exchange succeeds")
    };
    assert_ne!(shared.as_bytes(), &[0; 48]);
    assert_eq!(bytes_after_drop::<SharedSecret, 48>(shared), [0; 48]);
}

#[test]
fn chachapoly_keys() {
    let c = ChaCha20Poly1305::new(&[0xa5; 32].into());
    assert_eq!(bytes_after_drop::<_, 32>(c), [0; 32]);
    let x = XChaCha20Poly1305::new(&[0xa5; 32].into());
    assert_eq!(bytes_after_drop::<_, 32>(x), [0; 32]);
}

#[test]
fn the_check_sees_bytes_left_behind() {
    // A plain array has no zeroizing Drop: its bytes survive.
    assert_eq!(bytes_after_drop::<_, 32>([0x5a_u8; 32]), [0x5a; 32]);
}
