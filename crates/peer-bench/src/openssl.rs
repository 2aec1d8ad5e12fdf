//! The system OpenSSL's X25519 (`libcrypto`, feature `system-peers`): the
//! few EVP functions the `kummer` group needs, declared here and wrapped
//! safely. Written against OpenSSL 3.0 (Debian 12's `libssl-dev`); every
//! function used exists since 1.1.1.

use std::ffi::{CStr, c_char, c_int};
use std::marker::{PhantomData, PhantomPinned};
use std::ptr::{self, NonNull};

/// OpenSSL's opaque `EVP_PKEY`.
#[repr(C)]
struct EvpPkey {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `EVP_PKEY_CTX`.
#[repr(C)]
struct EvpPkeyCtx {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `ENGINE`; always passed as null here.
#[repr(C)]
struct Engine {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `EVP_PKEY_X25519`, which is `NID_X25519` in `openssl/obj_mac.h`.
const EVP_PKEY_X25519: c_int = 1034;
/// `OPENSSL_VERSION` for `OpenSSL_version`: `"OpenSSL 3.0.x <date>"`.
const OPENSSL_VERSION: c_int = 0;

unsafe extern "C" {
    fn EVP_PKEY_new_raw_private_key(
        kind: c_int,
        engine: *mut Engine,
        key: *const u8,
        key_len: usize,
    ) -> *mut EvpPkey;
    fn EVP_PKEY_new_raw_public_key(
        kind: c_int,
        engine: *mut Engine,
        key: *const u8,
        key_len: usize,
    ) -> *mut EvpPkey;
    fn EVP_PKEY_get_raw_public_key(
        pkey: *const EvpPkey,
        out: *mut u8,
        out_len: *mut usize,
    ) -> c_int;
    fn EVP_PKEY_free(pkey: *mut EvpPkey);
    fn EVP_PKEY_CTX_new(pkey: *mut EvpPkey, engine: *mut Engine) -> *mut EvpPkeyCtx;
    fn EVP_PKEY_CTX_free(ctx: *mut EvpPkeyCtx);
    fn EVP_PKEY_derive_init(ctx: *mut EvpPkeyCtx) -> c_int;
    fn EVP_PKEY_derive_set_peer(ctx: *mut EvpPkeyCtx, peer: *mut EvpPkey) -> c_int;
    fn EVP_PKEY_derive(ctx: *mut EvpPkeyCtx, out: *mut u8, out_len: *mut usize) -> c_int;
    fn OpenSSL_version(which: c_int) -> *const c_char;
}

/// "OpenSSL 3.0.19": the linked library's name and version, without the date.
pub fn version() -> String {
    // SAFETY: `OpenSSL_version` returns a pointer to a static NUL-terminated
    // string (never null for OPENSSL_VERSION).
    let full = unsafe { CStr::from_ptr(OpenSSL_version(OPENSSL_VERSION)) };
    let full = full.to_string_lossy();
    full.split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// An owned X25519 `EVP_PKEY`.
pub struct X25519Key(NonNull<EvpPkey>);

impl X25519Key {
    /// A private key from its 32 raw bytes (OpenSSL computes the public key
    /// as part of this).
    pub fn private(secret: &[u8; 32]) -> Result<X25519Key, String> {
        // SAFETY: `secret` is valid for 32 bytes; OpenSSL copies it.
        let p = unsafe {
            EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, ptr::null_mut(), secret.as_ptr(), 32)
        };
        NonNull::new(p)
            .map(X25519Key)
            .ok_or_else(|| "OpenSSL EVP_PKEY_new_raw_private_key failed".to_string())
    }

    /// A public key from its 32 raw bytes.
    pub fn public(public: &[u8; 32]) -> Result<X25519Key, String> {
        // SAFETY: `public` is valid for 32 bytes; OpenSSL copies it.
        let p = unsafe {
            EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, ptr::null_mut(), public.as_ptr(), 32)
        };
        NonNull::new(p)
            .map(X25519Key)
            .ok_or_else(|| "OpenSSL EVP_PKEY_new_raw_public_key failed".to_string())
    }

    /// The 32 raw bytes of the public key.
    pub fn raw_public_key(&self) -> Result<[u8; 32], String> {
        let mut out = [0u8; 32];
        let mut len = out.len();
        // SAFETY: `self.0` is a live EVP_PKEY; `out` has room for `len` bytes,
        // and OpenSSL writes at most that many (it fails if 32 is too few).
        let rc =
            unsafe { EVP_PKEY_get_raw_public_key(self.0.as_ptr(), out.as_mut_ptr(), &mut len) };
        if rc == 1 && len == 32 {
            Ok(out)
        } else {
            Err(format!(
                "OpenSSL EVP_PKEY_get_raw_public_key failed (rc {rc}, length {len})"
            ))
        }
    }
}

impl Drop for X25519Key {
    fn drop(&mut self) {
        // SAFETY: created by EVP_PKEY_new_raw_*_key, freed once (OpenSSL
        // reference-counts keys that a context still holds).
        unsafe { EVP_PKEY_free(self.0.as_ptr()) }
    }
}

/// The public key of a raw X25519 private key, the whole of OpenSSL's way
/// there: `EVP_PKEY_new_raw_private_key` (which computes it),
/// `EVP_PKEY_get_raw_public_key`, and `EVP_PKEY_free`.
pub fn x25519_public_from_private(secret: &[u8; 32]) -> Result<[u8; 32], String> {
    X25519Key::private(secret)?.raw_public_key()
}

/// A derivation context for one (private key, peer public key) pair, set up
/// once (`EVP_PKEY_CTX_new`, `EVP_PKEY_derive_init`,
/// `EVP_PKEY_derive_set_peer`); [`X25519Derive::derive`] is then
/// `EVP_PKEY_derive` alone, which OpenSSL allows to be repeated on the same
/// context.
pub struct X25519Derive {
    ctx: NonNull<EvpPkeyCtx>,
    // The context holds its own references to both keys; these keep the
    // ownership obvious.
    _own: X25519Key,
    peer: X25519Key,
}

impl X25519Derive {
    /// The context for `secret` (32 raw bytes) and the peer's raw public key.
    pub fn new(secret: &[u8; 32], peer_public: &[u8; 32]) -> Result<X25519Derive, String> {
        let own = X25519Key::private(secret)?;
        let peer = X25519Key::public(peer_public)?;
        // SAFETY: `own.0` is a live EVP_PKEY; a null engine means the default.
        let ctx = unsafe { EVP_PKEY_CTX_new(own.0.as_ptr(), ptr::null_mut()) };
        let ctx = NonNull::new(ctx).ok_or("OpenSSL EVP_PKEY_CTX_new failed")?;
        let d = X25519Derive {
            ctx,
            _own: own,
            peer,
        };
        // SAFETY: `d.ctx` is a live context.
        if unsafe { EVP_PKEY_derive_init(d.ctx.as_ptr()) } != 1 {
            return Err("OpenSSL EVP_PKEY_derive_init failed".into());
        }
        // SAFETY: `d.ctx` is a live context initialised for derivation and
        // `d.peer.0` a live key; OpenSSL takes its own reference to it.
        if unsafe { EVP_PKEY_derive_set_peer(d.ctx.as_ptr(), d.peer.0.as_ptr()) } != 1 {
            return Err("OpenSSL EVP_PKEY_derive_set_peer failed".into());
        }
        Ok(d)
    }

    /// The 32-byte shared secret (`EVP_PKEY_derive`).
    pub fn derive(&mut self) -> Result<[u8; 32], String> {
        let mut out = [0u8; 32];
        let mut len = out.len();
        // SAFETY: `self.ctx` is a live context set up by `new`; `out` has room
        // for `len` bytes, and OpenSSL fails rather than write more.
        let rc = unsafe { EVP_PKEY_derive(self.ctx.as_ptr(), out.as_mut_ptr(), &mut len) };
        if rc == 1 && len == 32 {
            Ok(out)
        } else {
            Err(format!(
                "OpenSSL EVP_PKEY_derive failed (rc {rc}, length {len})"
            ))
        }
    }
}

impl Drop for X25519Derive {
    fn drop(&mut self) {
        // SAFETY: created by EVP_PKEY_CTX_new, freed once; the keys are freed
        // after it (fields drop after this).
        unsafe { EVP_PKEY_CTX_free(self.ctx.as_ptr()) }
    }
}
