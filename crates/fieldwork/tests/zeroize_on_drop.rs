//! Keys are zeroized on drop (issue 27), checked from outside for the types
//! whose whole representation is the secret bytes (no padding, no heap):
//! each is dropped in place inside a `MaybeUninit` slot that stays alive,
//! and the slot's bytes are read afterwards.
//!
//! The other key and state types (`aes::*`, `gcm::*`, `ghash::*`,
//! `poly1305::Poly1305`, `chacha20::*`, `chachapoly::*`, on every backend
//! this CPU runs) hold secrets next to other fields: reading their whole
//! storage would read padding, which Rust leaves undefined. The crate's
//! unit tests (`src/zeroize_tests.rs`) read back just their secret
//! fields, located by a test-only hook.
#![allow(unsafe_code)]

use core::mem::{MaybeUninit, size_of};
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
fn the_check_sees_bytes_left_behind() {
    // A plain array has no zeroizing Drop: its bytes survive.
    assert_eq!(bytes_after_drop::<_, 32>([0x5a_u8; 32]), [0x5a; 32]);
}
