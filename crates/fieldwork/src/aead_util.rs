//! The plumbing the AEADs share ([`crate::gcm`], [`crate::gcm_siv`],
//! [`crate::chachapoly`]): the end of an opening (the constant-time tag
//! check, the wiping of the expected tag, the zeroing of the buffer on a
//! mismatch), RustCrypto's `aead` trait impls over the types' inherent
//! detached methods ([`aead_traits!`]), the AES AEADs' public types
//! ([`keyed_aead!`]), the keyed types' door to every
//! backend ([`keyed_backends!`], [`crate::hazmat::Backends`]) and the AES
//! AEADs' per-key enum and its one `match` ([`dispatch_enum!`],
//! [`on_backend!`]).
#![forbid(unsafe_code)]

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// Whether the 16-byte `given` tag equals `expected`, compared in constant
/// time ([`crate::poly1305::tags_equal`]), out of line: the verdict is
/// public (the caller learns it), and a stitched kernel that decrypts its
/// tail only after the check branches on it. Called with the tags by
/// address, so `scripts/ct-aarch64.py`, which reads the kernels' machine
/// code, sees the verdict come back from a function outside the kernels
/// (as the AES-GCM kernels return their tag for `gcm/mod.rs` to compare)
/// rather than a branch on a value computed from the key.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub(crate) fn tag_verdict(expected: &[u8; 16], given: &[u8]) -> bool {
    crate::poly1305::tags_equal(expected, given)
}

/// Ends an opening: compares `expected` with the `given` tag in constant
/// time (`subtle`), wipes `expected`, and on a mismatch zeroes `buf` (the
/// plaintext, or the ciphertext where decryption waits for the check) and
/// returns `mismatch`.
///
/// `given` may be a truncated tag of 1 to 16 bytes, compared with as many
/// leading bytes of `expected`; callers check the lengths they accept
/// first. A tag of any other length never matches.
#[inline(always)]
pub(crate) fn check_tag<E>(
    expected: &mut [u8; 16],
    given: &[u8],
    buf: &mut [u8],
    mismatch: E,
) -> Result<(), E> {
    let ok = tag_matches(expected, given);
    crate::wipe::wipe(expected);
    if ok {
        Ok(())
    } else {
        buf.zeroize();
        Err(mismatch)
    }
}

/// Whether `given` (1 to 16 bytes) equals the first `given.len()` bytes of
/// `expected`, in constant time for a given length: the difference of the
/// two as one `u128` with the bytes past the tag masked off, its halves
/// OR-ed and compared with zero by `subtle` (cheaper than subtle's
/// byte-slice `ct_eq`, an out-of-line loop of 16 steps).
#[inline(always)]
fn tag_matches(expected: &[u8; 16], given: &[u8]) -> bool {
    let len = given.len();
    if !(1..=16).contains(&len) {
        return false;
    }
    let given = match <[u8; 16]>::try_from(given) {
        Ok(whole) => whole,
        Err(_) => {
            let mut padded = [0u8; 16];
            for (d, s) in padded.iter_mut().zip(given) {
                *d = *s;
            }
            padded
        }
    };
    let mask = u128::MAX >> (8 * (16 - len));
    let d = (u128::from_le_bytes(*expected) ^ u128::from_le_bytes(given)) & mask;
    ((d as u64) | (d >> 64) as u64).ct_eq(&0).into()
}

/// Defines an AEAD's public `Error` enum (`Clone`, `Copy`, `Debug`,
/// `PartialEq`, `Eq`, non-exhaustive; with `std`, `std::error::Error`),
/// each variant with its documentation and the message its `Display`
/// writes after `$what: `.
macro_rules! aead_error {
    ($(#[$doc:meta])* $what:literal { $($(#[$vdoc:meta])* $variant:ident => $msg:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[non_exhaustive]
        pub enum Error {
            $($(#[$vdoc])* $variant,)*
        }

        impl ::core::fmt::Display for Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(match self {
                    $(Error::$variant => concat!($what, ": ", $msg),)*
                })
            }
        }

        #[cfg(feature = "std")]
        impl std::error::Error for Error {}
    };
}
pub(crate) use aead_error;

/// Implements `aead` 0.6's `KeySizeUser`, `AeadCore` (16-byte tags
/// appended to the ciphertext) and `AeadInOut` for `$name` over two of its
/// inherent methods: `$seal(&self, nonce, aad, buf) -> Result<[u8; 16], _>`
/// encrypts `buf` in place and returns the tag, `$open(&self, nonce, aad,
/// buf, tag) -> Result<(), _>` decrypts it if the tag authenticates it;
/// the nonce is a `&[u8; N]` (or a slice) and the tag a `&[u8; 16]` (or a
/// slice). Every error becomes `aead::Error`. With `debug: $backend`, also
/// `Debug`, which shows the name of the type and `self.$backend()` only
/// (the key is secret).
macro_rules! aead_traits {
    (
        $name:ident,
        key: $key_size:ty,
        nonce: $nonce_size:ty,
        $seal:ident,
        $open:ident
        $(, debug: $backend:ident)?
    ) => {
        impl ::aead::KeySizeUser for $name {
            type KeySize = $key_size;
        }

        impl ::aead::AeadCore for $name {
            type NonceSize = $nonce_size;
            type TagSize = ::aead::consts::U16;
            const TAG_POSITION: ::aead::TagPosition = ::aead::TagPosition::Postfix;
        }

        impl ::aead::AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &::aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: ::aead::inout::InOutBuf<'_, '_, u8>,
            ) -> ::aead::Result<::aead::Tag<Self>> {
                let buf = buffer.into_out_with_copied_in();
                self.$seal(&nonce.0, associated_data, buf)
                    .map(::aead::Tag::<Self>::from)
                    .map_err(|_| ::aead::Error)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &::aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: ::aead::inout::InOutBuf<'_, '_, u8>,
                tag: &::aead::Tag<Self>,
            ) -> ::aead::Result<()> {
                let buf = buffer.into_out_with_copied_in();
                self.$open(&nonce.0, associated_data, buf, &tag.0)
                    .map_err(|_| ::aead::Error)
            }
        }

        $(
            impl ::core::fmt::Debug for $name {
                fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                    f.debug_struct(stringify!($name))
                        .field("backend", &self.$backend())
                        .finish_non_exhaustive()
                }
            }
        )?
    };
}
pub(crate) use aead_traits;

/// Defines the AEAD `$name` (with the documentation `$doc`): a struct whose
/// one field `key` is its per-key `Dispatch` (which has `best(key)`,
/// `NAMES`, `with_backend(name, key)` and `name()`), for keys of `$bytes`
/// bytes (`$key_size`); its `KeyInit` (`Dispatch::best`),
/// [`keyed_backends!`], and [`aead_traits!`] over its inherent detached
/// methods `$seal` and `$open` (defined by the caller), with `Debug`
/// showing `backend_name()`.
macro_rules! keyed_aead {
    (
        $(#[$doc:meta])* $name:ident,
        key: $bytes:literal, $key_size:ty,
        nonce: $nonce_size:ty,
        $seal:ident,
        $open:ident
    ) => {
        $(#[$doc])*
        #[derive(Clone)]
        pub struct $name {
            key: Dispatch,
        }

        impl ::aead::KeyInit for $name {
            fn new(key: &::aead::Key<Self>) -> $name {
                $name {
                    key: Dispatch::best(key.as_slice()),
                }
            }
        }

        crate::aead_util::keyed_backends!($name, key: Dispatch, $bytes);

        crate::aead_util::aead_traits!(
            $name,
            key: $key_size,
            nonce: $nonce_size,
            $seal,
            $open,
            debug: backend_name
        );
    };
}
pub(crate) use keyed_aead;

/// Implements [`crate::hazmat::Backends`] for `$name`, a keyed type whose
/// one field `$field` is its per-key `$dispatch` (which has `NAMES`,
/// `with_backend(name, key) -> Option<$dispatch>` and `name()`), for keys
/// of `$bytes` bytes; and, in tests, `SecretSpans` over the field. (The
/// AEADs through [`keyed_aead!`], and the AES block cipher.)
macro_rules! keyed_backends {
    ($name:ident, $field:ident: $dispatch:ident, $bytes:literal) => {
        impl crate::hazmat::Backends for $name {
            type Input<'a> = &'a [u8; $bytes];
            const NAMES: &'static [&'static str] = $dispatch::NAMES;

            fn with_backend(name: &str, key: &[u8; $bytes]) -> Option<$name> {
                $dispatch::with_backend(name, key).map(|$field| $name { $field })
            }

            fn backend(&self) -> &'static str {
                self.$field.name()
            }
        }

        #[cfg(test)]
        impl crate::test_util::SecretSpans for $name {
            fn secret_spans(&self, s: &mut crate::test_util::Spans) {
                self.$field.secret_spans(s);
            }
        }
    };
}
pub(crate) use keyed_backends;

/// Defines the caller's per-key `Dispatch` enum (with the documentation
/// `$doc`): `gcm` and `gcm_siv` name their backends alike, so one variant
/// each, holding that backend's key — `Vaes512`, `Vaes256` and `AesNi` on
/// x86-64, `AesPmull` on AArch64, and `Portable` — and its test-only
/// `SecretSpans`, the variant's. [`on_backend!`] matches it. (Another
/// architecture's types are named but never resolved: their variants are
/// configured out before type checking.)
macro_rules! dispatch_enum {
    ($(#[$doc:meta])* x86_64: $vaes512:ty, $vaes256:ty, $aesni:ty; aarch64: $aespmull:ty; $portable:ty) => {
        $(#[$doc])*
        #[derive(Clone)]
        #[allow(clippy::large_enum_variant)]
        enum Dispatch {
            /// `vaes-avx512`: VAES and VPCLMULQDQ on zmm.
            #[cfg(target_arch = "x86_64")]
            Vaes512($vaes512),
            /// `vaes-avx2`: VAES and VPCLMULQDQ on ymm.
            #[cfg(target_arch = "x86_64")]
            Vaes256($vaes256),
            /// `aes-ni`: AES-NI and PCLMULQDQ on xmm.
            #[cfg(target_arch = "x86_64")]
            AesNi($aesni),
            /// `aes-pmull`: AESE/AESMC and PMULL on AArch64.
            #[cfg(target_arch = "aarch64")]
            AesPmull($aespmull),
            /// `portable`.
            Portable($portable),
        }

        #[cfg(test)]
        impl crate::test_util::SecretSpans for Dispatch {
            fn secret_spans(&self, s: &mut crate::test_util::Spans) {
                crate::aead_util::on_backend!(self, k => k.secret_spans(s));
            }
        }
    };
}
pub(crate) use dispatch_enum;

/// `$body` with `$k` bound to the backend value of whichever variant the
/// caller's `Dispatch` ([`dispatch_enum!`]) `$dispatch` holds.
macro_rules! on_backend {
    ($dispatch:expr, $k:ident => $body:expr) => {
        match $dispatch {
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes512($k) => $body,
            #[cfg(target_arch = "x86_64")]
            Dispatch::Vaes256($k) => $body,
            #[cfg(target_arch = "x86_64")]
            Dispatch::AesNi($k) => $body,
            #[cfg(target_arch = "aarch64")]
            Dispatch::AesPmull($k) => $body,
            Dispatch::Portable($k) => $body,
        }
    };
}
pub(crate) use on_backend;

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal tags match and a flip of any one bit does not, for whole and
    /// truncated tags; bytes past a truncated tag are not compared; empty
    /// and overlong tags never match; a mismatch zeroes the buffer and
    /// every outcome wipes the expected tag.
    #[test]
    fn check_tag_compares_the_given_bytes() {
        let t: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) ^ 0xa5);
        for len in 1..=16 {
            assert!(tag_matches(&t, &t[..len]), "{len}");
            for bit in 0..8 * len {
                let mut u = t;
                u[bit / 8] ^= 1 << (bit % 8);
                assert!(!tag_matches(&t, &u[..len]), "{len} bit {bit}");
            }
            let mut tail = t;
            if let Some(b) = tail.get_mut(len) {
                *b ^= 0xff;
            }
            assert!(tag_matches(&tail, &t[..len]), "{len}");
        }
        assert!(!tag_matches(&t, &[]));
        assert!(!tag_matches(&t, &[0; 17]));

        let mut buf = [0x5au8; 40];
        let mut expected = t;
        assert_eq!(check_tag(&mut expected, &t, &mut buf, "bad"), Ok(()));
        assert_eq!((expected, buf), ([0; 16], [0x5a; 40]));
        let mut expected = t;
        let mut wrong = t;
        wrong[15] ^= 0x80;
        assert_eq!(
            check_tag(&mut expected, &wrong, &mut buf, "bad"),
            Err("bad")
        );
        assert_eq!((expected, buf), ([0; 16], [0; 40]));
    }
}
