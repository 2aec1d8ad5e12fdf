//! The system OpenSSL (`libcrypto`, feature `system-peers`): the few EVP
//! functions the `kummer` group (X25519), the `ghash` group (GMAC), the
//! `gcm` group (AES-GCM) and the `poly1305` group (Poly1305) need, and the
//! `BN_GF2m_*_arr` arithmetic of binary fields (the binary-field peers,
//! `crate::binary_fields`), declared here and wrapped safely. Written
//! against OpenSSL 3.0 (Debian 12's `libssl-dev`); the X25519 functions
//! exist since 1.1.1, the `EVP_MAC` and `OSSL_PARAM` ones since 3.0, the
//! `EVP_CIPHER` ones used here since 1.1.0 (ChaCha20-Poly1305 also 1.1.0).

use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
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

/// OpenSSL's opaque `EVP_MAC` (a fetched MAC algorithm).
#[repr(C)]
struct EvpMac {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `EVP_MAC_CTX`.
#[repr(C)]
struct EvpMacCtx {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `OSSL_LIB_CTX`; always passed as null (the default).
#[repr(C)]
struct OsslLibCtx {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `EVP_CIPHER` (a cipher algorithm).
#[repr(C)]
struct EvpCipher {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `EVP_CIPHER_CTX`.
#[repr(C)]
struct EvpCipherCtx {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `BIGNUM`.
#[repr(C)]
struct Bignum {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// OpenSSL's opaque `BN_CTX` (scratch `BIGNUM`s).
#[repr(C)]
struct BnCtx {
    _data: [u8; 0],
    _marker: PhantomData<(*mut u8, PhantomPinned)>,
}

/// `OSSL_PARAM` (`openssl/core.h`): one named parameter of an array ended by
/// an all-null entry. Built only by the `OSSL_PARAM_construct_*` functions.
#[repr(C)]
#[derive(Clone, Copy)]
struct OsslParam {
    key: *const c_char,
    data_type: c_uint,
    data: *mut c_void,
    data_size: usize,
    return_size: usize,
}

/// `EVP_PKEY_X25519`, which is `NID_X25519` in `openssl/obj_mac.h`.
const EVP_PKEY_X25519: c_int = 1034;
/// `EVP_CTRL_AEAD_GET_TAG` (= `EVP_CTRL_GCM_GET_TAG`, `openssl/evp.h`).
const EVP_CTRL_GCM_GET_TAG: c_int = 0x10;
/// `EVP_CTRL_AEAD_SET_TAG` (= `EVP_CTRL_GCM_SET_TAG`, `openssl/evp.h`).
const EVP_CTRL_GCM_SET_TAG: c_int = 0x11;
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
    fn EVP_MAC_fetch(
        libctx: *mut OsslLibCtx,
        algorithm: *const c_char,
        properties: *const c_char,
    ) -> *mut EvpMac;
    fn EVP_MAC_free(mac: *mut EvpMac);
    fn EVP_MAC_CTX_new(mac: *mut EvpMac) -> *mut EvpMacCtx;
    fn EVP_MAC_CTX_free(ctx: *mut EvpMacCtx);
    fn EVP_MAC_CTX_set_params(ctx: *mut EvpMacCtx, params: *const OsslParam) -> c_int;
    fn EVP_MAC_init(
        ctx: *mut EvpMacCtx,
        key: *const u8,
        key_len: usize,
        params: *const OsslParam,
    ) -> c_int;
    fn EVP_MAC_update(ctx: *mut EvpMacCtx, data: *const u8, len: usize) -> c_int;
    fn EVP_MAC_final(ctx: *mut EvpMacCtx, out: *mut u8, out_len: *mut usize, size: usize) -> c_int;
    fn OSSL_PARAM_construct_utf8_string(
        key: *const c_char,
        buf: *mut c_char,
        size: usize,
    ) -> OsslParam;
    fn OSSL_PARAM_construct_octet_string(
        key: *const c_char,
        buf: *mut c_void,
        size: usize,
    ) -> OsslParam;
    fn OSSL_PARAM_construct_end() -> OsslParam;
    fn EVP_aes_128_gcm() -> *const EvpCipher;
    fn EVP_aes_256_gcm() -> *const EvpCipher;
    #[cfg(target_arch = "aarch64")]
    fn EVP_chacha20_poly1305() -> *const EvpCipher;
    fn EVP_CIPHER_CTX_new() -> *mut EvpCipherCtx;
    fn EVP_CIPHER_CTX_free(ctx: *mut EvpCipherCtx);
    fn EVP_CIPHER_CTX_ctrl(
        ctx: *mut EvpCipherCtx,
        kind: c_int,
        arg: c_int,
        ptr: *mut c_void,
    ) -> c_int;
    fn EVP_EncryptInit_ex(
        ctx: *mut EvpCipherCtx,
        cipher: *const EvpCipher,
        engine: *mut Engine,
        key: *const u8,
        iv: *const u8,
    ) -> c_int;
    fn EVP_EncryptUpdate(
        ctx: *mut EvpCipherCtx,
        out: *mut u8,
        out_len: *mut c_int,
        input: *const u8,
        in_len: c_int,
    ) -> c_int;
    fn EVP_EncryptFinal_ex(ctx: *mut EvpCipherCtx, out: *mut u8, out_len: *mut c_int) -> c_int;
    fn EVP_DecryptInit_ex(
        ctx: *mut EvpCipherCtx,
        cipher: *const EvpCipher,
        engine: *mut Engine,
        key: *const u8,
        iv: *const u8,
    ) -> c_int;
    fn EVP_DecryptUpdate(
        ctx: *mut EvpCipherCtx,
        out: *mut u8,
        out_len: *mut c_int,
        input: *const u8,
        in_len: c_int,
    ) -> c_int;
    fn EVP_DecryptFinal_ex(ctx: *mut EvpCipherCtx, out: *mut u8, out_len: *mut c_int) -> c_int;
    fn BN_new() -> *mut Bignum;
    fn BN_free(a: *mut Bignum);
    fn BN_CTX_new() -> *mut BnCtx;
    fn BN_CTX_free(ctx: *mut BnCtx);
    fn BN_lebin2bn(s: *const u8, len: c_int, ret: *mut Bignum) -> *mut Bignum;
    fn BN_bn2lebinpad(a: *const Bignum, to: *mut u8, to_len: c_int) -> c_int;
    fn BN_GF2m_mod_mul_arr(
        r: *mut Bignum,
        a: *const Bignum,
        b: *const Bignum,
        p: *const c_int,
        ctx: *mut BnCtx,
    ) -> c_int;
    fn BN_GF2m_mod_sqr_arr(
        r: *mut Bignum,
        a: *const Bignum,
        p: *const c_int,
        ctx: *mut BnCtx,
    ) -> c_int;
    fn BN_GF2m_mod_inv_arr(
        r: *mut Bignum,
        a: *const Bignum,
        p: *const c_int,
        ctx: *mut BnCtx,
    ) -> c_int;
    fn BN_GF2m_mod_sqrt_arr(
        r: *mut Bignum,
        a: *const Bignum,
        p: *const c_int,
        ctx: *mut BnCtx,
    ) -> c_int;
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

/// GMAC (NIST SP 800-38D: AES-GCM with no plaintext, the message as
/// additional data) with AES-128 and a fixed 96-bit IV, through OpenSSL's
/// `EVP_MAC` interface: the tag is `GHASH_H(A ‖ pad ‖ len(A)) ⊕ AES_K(J0)`
/// with `H = AES_K(0)` and `J0 = IV ‖ 0³¹1`.
///
/// [`Gmac::init`] keys the context and starts a message (`EVP_MAC_init`
/// with the key and the IV); [`Gmac::restart`] starts one under the key
/// already set. Either is needed before each message: OpenSSL's GCM gives a
/// finished context no second tag without the IV set again.
pub struct Gmac {
    ctx: NonNull<EvpMacCtx>,
    iv: [u8; 12],
}

/// Parameter names and values, NUL-terminated for OpenSSL.
const PARAM_CIPHER: &CStr = c"cipher";
const PARAM_IV: &CStr = c"iv";
const CIPHER_AES_128_GCM: &CStr = c"AES-128-GCM";

impl Gmac {
    /// An unkeyed GMAC context for AES-128-GCM and this IV.
    pub fn new(iv: &[u8; 12]) -> Result<Gmac, String> {
        // SAFETY: a null library context and properties mean the defaults;
        // the name is NUL-terminated.
        let mac = unsafe { EVP_MAC_fetch(ptr::null_mut(), c"GMAC".as_ptr(), ptr::null()) };
        let mac = NonNull::new(mac).ok_or("OpenSSL EVP_MAC_fetch(\"GMAC\") failed")?;
        // SAFETY: `mac` is a live EVP_MAC; the context takes its own
        // reference, so ours is freed right after.
        let ctx = unsafe { EVP_MAC_CTX_new(mac.as_ptr()) };
        // SAFETY: `mac` came from EVP_MAC_fetch and is freed once.
        unsafe { EVP_MAC_free(mac.as_ptr()) };
        let ctx = NonNull::new(ctx).ok_or("OpenSSL EVP_MAC_CTX_new failed")?;
        let g = Gmac { ctx, iv: *iv };
        // SAFETY: OpenSSL only reads the cipher name (its length is given
        // without the NUL, as `OSSL_PARAM_construct_utf8_string` wants) and
        // copies it during the call.
        let params = unsafe {
            [
                OSSL_PARAM_construct_utf8_string(
                    PARAM_CIPHER.as_ptr(),
                    CIPHER_AES_128_GCM.as_ptr().cast_mut(),
                    CIPHER_AES_128_GCM.to_bytes().len(),
                ),
                OSSL_PARAM_construct_end(),
            ]
        };
        // SAFETY: `g.ctx` is a live context; `params` ends with the end
        // marker and its strings outlive the call.
        if unsafe { EVP_MAC_CTX_set_params(g.ctx.as_ptr(), params.as_ptr()) } != 1 {
            return Err("OpenSSL GMAC: setting the cipher AES-128-GCM failed".into());
        }
        Ok(g)
    }

    /// Keys the context with a 16-byte AES key and restarts the MAC.
    pub fn init(&mut self, key: &[u8; 16]) -> Result<(), String> {
        self.init_with(Some(key))
    }

    /// `EVP_MAC_init` with the IV, and with `key` if given.
    fn init_with(&mut self, key: Option<&[u8; 16]>) -> Result<(), String> {
        let mut iv = self.iv;
        // SAFETY: the IV buffer is read (copied) during `EVP_MAC_init` only,
        // and lives until after it.
        let params = unsafe {
            [
                OSSL_PARAM_construct_octet_string(
                    PARAM_IV.as_ptr(),
                    iv.as_mut_ptr().cast(),
                    iv.len(),
                ),
                OSSL_PARAM_construct_end(),
            ]
        };
        let (key_ptr, key_len) = key.map_or((ptr::null(), 0), |k| (k.as_ptr(), k.len()));
        // SAFETY: `self.ctx` is a live context; the key is null (keep the
        // key set) or valid for 16 bytes, and `params` (ended by the end
        // marker) valid for the call; OpenSSL copies what it keeps.
        let rc = unsafe { EVP_MAC_init(self.ctx.as_ptr(), key_ptr, key_len, params.as_ptr()) };
        if rc == 1 {
            Ok(())
        } else {
            Err("OpenSSL GMAC EVP_MAC_init failed".into())
        }
    }

    /// Absorbs `data` (the additional data of GCM).
    pub fn update(&mut self, data: &[u8]) -> Result<(), String> {
        // SAFETY: `self.ctx` is a live context; `data` is valid for its length.
        if unsafe { EVP_MAC_update(self.ctx.as_ptr(), data.as_ptr(), data.len()) } == 1 {
            Ok(())
        } else {
            Err("OpenSSL GMAC EVP_MAC_update failed".into())
        }
    }

    /// The 16-byte tag (`EVP_MAC_final`); [`Gmac::init`] must come before
    /// another message.
    pub fn finalize(&mut self) -> Result<[u8; 16], String> {
        let mut out = [0u8; 16];
        let mut len = 0usize;
        // SAFETY: `self.ctx` is a live context; `out` has room for the 16
        // bytes given as its size, and OpenSSL fails rather than write more.
        let rc = unsafe { EVP_MAC_final(self.ctx.as_ptr(), out.as_mut_ptr(), &mut len, out.len()) };
        if rc == 1 && len == 16 {
            Ok(out)
        } else {
            Err(format!(
                "OpenSSL GMAC EVP_MAC_final failed (rc {rc}, length {len})"
            ))
        }
    }

    /// Restarts the MAC under the key already set (`EVP_MAC_init` with no
    /// key, the IV again): the prepared-key form, no key schedule and no
    /// `H = AES_K(0)` recomputed.
    pub fn restart(&mut self) -> Result<(), String> {
        self.init_with(None)
    }
}

/// Poly1305 (RFC 8439 §2.5) through OpenSSL's `EVP_MAC` interface
/// (`EVP_MAC_fetch(NULL, "POLY1305", NULL)`, OpenSSL 3.0): one context,
/// fetched once; each tag is `EVP_MAC_init` with the 32-byte one-time key,
/// `EVP_MAC_update` and `EVP_MAC_final`. OpenSSL's provider refuses a second
/// tag without a new key, as Poly1305's one-time keys require, so
/// [`Poly1305Mac::tag`] keys the context every time.
pub struct Poly1305Mac {
    ctx: NonNull<EvpMacCtx>,
}

impl Poly1305Mac {
    /// A Poly1305 context (unkeyed).
    pub fn new() -> Result<Poly1305Mac, String> {
        // SAFETY: a null library context and properties mean the defaults;
        // the name is NUL-terminated.
        let mac = unsafe { EVP_MAC_fetch(ptr::null_mut(), c"POLY1305".as_ptr(), ptr::null()) };
        let mac = NonNull::new(mac).ok_or("OpenSSL EVP_MAC_fetch(\"POLY1305\") failed")?;
        // SAFETY: `mac` is a live EVP_MAC; the context takes its own
        // reference, so ours is freed right after.
        let ctx = unsafe { EVP_MAC_CTX_new(mac.as_ptr()) };
        // SAFETY: `mac` came from EVP_MAC_fetch and is freed once.
        unsafe { EVP_MAC_free(mac.as_ptr()) };
        let ctx = NonNull::new(ctx).ok_or("OpenSSL EVP_MAC_CTX_new failed")?;
        Ok(Poly1305Mac { ctx })
    }

    /// The 16-byte tag of `message` under the one-time `key`
    /// (`EVP_MAC_init` with the key, `EVP_MAC_update` unless the message is
    /// empty, `EVP_MAC_final`).
    pub fn tag(&mut self, key: &[u8; 32], message: &[u8]) -> Result<[u8; 16], String> {
        let ctx = self.ctx.as_ptr();
        let mut out = [0u8; 16];
        let mut len = 0usize;
        // SAFETY: `ctx` is a live context; the key is valid for 32 bytes
        // and copied; a null parameter array sets nothing; the message is
        // valid for its length; `out` has room for the 16 bytes given as its
        // size, and OpenSSL fails rather than write more.
        let ok = unsafe {
            EVP_MAC_init(ctx, key.as_ptr(), key.len(), ptr::null()) == 1
                && (message.is_empty() || EVP_MAC_update(ctx, message.as_ptr(), message.len()) == 1)
                && EVP_MAC_final(ctx, out.as_mut_ptr(), &mut len, out.len()) == 1
        };
        if ok && len == 16 {
            Ok(out)
        } else {
            Err(format!(
                "OpenSSL Poly1305 failed (EVP_MAC_init/update/final; length {len})"
            ))
        }
    }
}

impl Drop for Poly1305Mac {
    fn drop(&mut self) {
        // SAFETY: created by EVP_MAC_CTX_new, freed once.
        unsafe { EVP_MAC_CTX_free(self.ctx.as_ptr()) }
    }
}

impl Drop for Gmac {
    fn drop(&mut self) {
        // SAFETY: created by EVP_MAC_CTX_new, freed once.
        unsafe { EVP_MAC_CTX_free(self.ctx.as_ptr()) }
    }
}

/// AES-GCM (AES-128 or AES-256, 96-bit nonces, 16-byte tags) through
/// OpenSSL's `EVP_CIPHER` interface, the way a TLS record layer drives it:
/// one `EVP_CIPHER_CTX` keyed once ([`EvpAead::new`]: `EVP_EncryptInit_ex`
/// with the cipher and the key), then per record `EVP_EncryptInit_ex` (or
/// `EVP_DecryptInit_ex`) with the nonce alone, which keeps the expanded key
/// and the hash key, `EVP_*Update` for the additional data (no output) and
/// for the message (in place), `EVP_*Final_ex`, and the tag through
/// `EVP_CTRL_GCM_GET_TAG` / `EVP_CTRL_GCM_SET_TAG`.
///
/// ChaCha20-Poly1305 (RFC 8439) goes through the same calls
/// (`EvpAead::chacha20_poly1305`, AArch64 only): OpenSSL's AEAD controls are shared.
pub struct EvpAead {
    ctx: NonNull<EvpCipherCtx>,
}

/// The AES-GCM name of [`EvpAead`] (what the `gcm` group uses).
pub type AesGcm = EvpAead;

impl EvpAead {
    /// A context keyed with a 32-byte ChaCha20-Poly1305 key
    /// (`EVP_chacha20_poly1305`, 12-byte nonces, 16-byte tags): the
    /// `chachapoly` group's OpenSSL column, on AArch64 only.
    #[cfg(target_arch = "aarch64")]
    pub fn chacha20_poly1305(key: &[u8; 32]) -> Result<EvpAead, String> {
        // SAFETY: returns a pointer to a static cipher description.
        Self::keyed(unsafe { EVP_chacha20_poly1305() }, key)
    }

    /// A context keyed with a 16-byte (AES-128-GCM) or 32-byte
    /// (AES-256-GCM) key.
    pub fn new(key: &[u8]) -> Result<EvpAead, String> {
        let cipher = match key.len() {
            // SAFETY: returns a pointer to a static cipher description.
            16 => unsafe { EVP_aes_128_gcm() },
            // SAFETY: returns a pointer to a static cipher description.
            32 => unsafe { EVP_aes_256_gcm() },
            n => return Err(format!("OpenSSL AES-GCM: no cipher for a {n}-byte key")),
        };
        Self::keyed(cipher, key)
    }

    /// A context for `cipher` (a static OpenSSL cipher, or null for
    /// OpenSSL's own error) keyed with `key`, of the cipher's key length.
    fn keyed(cipher: *const EvpCipher, key: &[u8]) -> Result<EvpAead, String> {
        if cipher.is_null() {
            return Err("OpenSSL: the AEAD cipher is not available".into());
        }
        // SAFETY: no preconditions; null on allocation failure.
        let ctx = NonNull::new(unsafe { EVP_CIPHER_CTX_new() })
            .ok_or("OpenSSL EVP_CIPHER_CTX_new failed")?;
        let g = EvpAead { ctx };
        // SAFETY: `g.ctx` is a live context and `cipher` a static cipher; a
        // null engine means the default; the key is valid for the cipher's
        // key length (checked by the callers: 16 or 32 bytes for AES-GCM,
        // 32 for ChaCha20-Poly1305) and copied; a null IV is set later.
        let rc = unsafe {
            EVP_EncryptInit_ex(
                g.ctx.as_ptr(),
                cipher,
                ptr::null_mut(),
                key.as_ptr(),
                ptr::null(),
            )
        };
        if rc == 1 {
            Ok(g)
        } else {
            Err("OpenSSL AEAD: EVP_EncryptInit_ex with the key failed".into())
        }
    }

    /// Encrypts `buf` in place under `nonce`, authenticating `aad` too,
    /// and returns the 16-byte tag.
    pub fn seal_in_place(
        &mut self,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<[u8; 16], String> {
        let (aad_len, buf_len) = lengths(aad, buf)?;
        let ctx = self.ctx.as_ptr();
        let mut out_len: c_int = 0;
        let mut tail = [0u8; 16];
        let mut tag = [0u8; 16];
        let p = buf.as_mut_ptr();
        // SAFETY: `ctx` is a live context keyed by `new` (a null cipher,
        // engine and key keep them); the nonce is valid for the default IV
        // length, 12 bytes. The AAD update reads `aad_len` bytes and writes
        // nothing (null output); the message update reads and writes
        // `buf_len` bytes at `p` (exact overlap, which OpenSSL allows);
        // GCM's final writes no data (`tail` has room for a block anyway);
        // the tag control writes 16 bytes into `tag`.
        let ok = unsafe {
            EVP_EncryptInit_ex(
                ctx,
                ptr::null(),
                ptr::null_mut(),
                ptr::null(),
                nonce.as_ptr(),
            ) == 1
                && (aad_len == 0
                    || EVP_EncryptUpdate(ctx, ptr::null_mut(), &mut out_len, aad.as_ptr(), aad_len)
                        == 1)
                && (buf_len == 0 || EVP_EncryptUpdate(ctx, p, &mut out_len, p, buf_len) == 1)
                && EVP_EncryptFinal_ex(ctx, tail.as_mut_ptr(), &mut out_len) == 1
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, tag.as_mut_ptr().cast()) == 1
        };
        if ok {
            Ok(tag)
        } else {
            Err("OpenSSL AEAD encryption failed".into())
        }
    }

    /// Decrypts `buf` in place under `nonce` if `tag` authenticates it and
    /// `aad`; on failure `buf` is zeroed (OpenSSL has already written the
    /// unauthenticated plaintext there) and an error returned.
    pub fn open_in_place(
        &mut self,
        nonce: &[u8; 12],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
    ) -> Result<(), String> {
        let (aad_len, buf_len) = lengths(aad, buf)?;
        let ctx = self.ctx.as_ptr();
        let mut out_len: c_int = 0;
        let mut tail = [0u8; 16];
        let mut expected = *tag;
        let p = buf.as_mut_ptr();
        // SAFETY: as in `seal_in_place`; the tag control reads 16 bytes
        // from `expected` (OpenSSL copies them).
        let ok = unsafe {
            EVP_DecryptInit_ex(
                ctx,
                ptr::null(),
                ptr::null_mut(),
                ptr::null(),
                nonce.as_ptr(),
            ) == 1
                && (aad_len == 0
                    || EVP_DecryptUpdate(ctx, ptr::null_mut(), &mut out_len, aad.as_ptr(), aad_len)
                        == 1)
                && (buf_len == 0 || EVP_DecryptUpdate(ctx, p, &mut out_len, p, buf_len) == 1)
                && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, expected.as_mut_ptr().cast())
                    == 1
                && EVP_DecryptFinal_ex(ctx, tail.as_mut_ptr(), &mut out_len) > 0
        };
        if ok {
            Ok(())
        } else {
            buf.fill(0);
            Err("OpenSSL AEAD decryption failed (tag mismatch)".into())
        }
    }
}

/// The AAD and message lengths as OpenSSL's `int`s.
fn lengths(aad: &[u8], buf: &[u8]) -> Result<(c_int, c_int), String> {
    match (c_int::try_from(aad.len()), c_int::try_from(buf.len())) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        _ => Err("OpenSSL AEAD: input longer than INT_MAX bytes".into()),
    }
}

impl Drop for EvpAead {
    fn drop(&mut self) {
        // SAFETY: created by EVP_CIPHER_CTX_new, freed once (this also
        // cleanses the key schedule).
        unsafe { EVP_CIPHER_CTX_free(self.ctx.as_ptr()) }
    }
}

/// An owned OpenSSL `BIGNUM`, here an element of a binary field
/// ([`Gf2mField`]).
pub struct Bn(NonNull<Bignum>);

impl Drop for Bn {
    fn drop(&mut self) {
        // SAFETY: created by BN_new, freed once.
        unsafe { BN_free(self.0.as_ptr()) }
    }
}

/// GF(2^m) through OpenSSL's `BN_GF2m_mod_*_arr` functions, the arithmetic
/// under its binary-curve code (still exported by OpenSSL 3.0 unless built
/// with `no-ec2m`): elements are `BIGNUM`s, the modulus the array of its
/// exponents in decreasing order ended by −1, as `BN_GF2m_poly2arr` makes
/// it. Each operation writes into a scratch `BIGNUM` and swaps it in, so no
/// output aliases an input; a `BN_CTX` supplies OpenSSL's temporaries.
/// OpenSSL's inversion is blinded by a random field element (a
/// multiplication before and after), as its curve code calls it.
pub struct Gf2mField {
    /// Exponents, decreasing, then −1.
    modulus: Vec<c_int>,
    /// Words per element (`⌈m/64⌉`).
    words: usize,
    ctx: NonNull<BnCtx>,
    scratch: Bn,
}

/// A fresh `BIGNUM` (zero).
fn bn_new() -> Result<Bn, String> {
    // SAFETY: no preconditions; null on allocation failure.
    NonNull::new(unsafe { BN_new() })
        .map(Bn)
        .ok_or_else(|| "OpenSSL BN_new failed".to_string())
}

impl Gf2mField {
    /// The field modulo `Σ x^e` over `exponents` (decreasing, the degree m
    /// first and 0 last).
    pub fn new(exponents: &[u32]) -> Result<Gf2mField, String> {
        let m = *exponents.first().ok_or("no exponents")?;
        if exponents.windows(2).any(|w| w[0] <= w[1]) || exponents.last() != Some(&0) {
            return Err(format!("exponents must decrease to 0: {exponents:?}"));
        }
        let mut modulus = exponents
            .iter()
            .map(|&e| c_int::try_from(e).map_err(|_| format!("exponent {e} too large")))
            .collect::<Result<Vec<_>, _>>()?;
        modulus.push(-1);
        // SAFETY: no preconditions; null on allocation failure.
        let ctx = NonNull::new(unsafe { BN_CTX_new() }).ok_or("OpenSSL BN_CTX_new failed")?;
        Ok(Gf2mField {
            modulus,
            words: (m as usize).div_ceil(64),
            ctx,
            scratch: bn_new()?,
        })
    }

    /// The element with these little-endian words (word 0 lowest; at most
    /// ⌈m/64⌉ of them, bits of degree ≥ m clear).
    pub fn element(&self, words: &[u64]) -> Result<Bn, String> {
        if words.len() > self.words {
            return Err(format!(
                "{} words for a {}-word field",
                words.len(),
                self.words
            ));
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let len = c_int::try_from(bytes.len()).map_err(|_| "element too long")?;
        let bn = bn_new()?;
        // SAFETY: `bytes` is valid for `len` bytes; `bn.0` is a live BIGNUM,
        // which OpenSSL fills and returns (null on allocation failure).
        let r = unsafe { BN_lebin2bn(bytes.as_ptr(), len, bn.0.as_ptr()) };
        if r.is_null() {
            return Err("OpenSSL BN_lebin2bn failed".into());
        }
        Ok(bn)
    }

    /// The ⌈m/64⌉ little-endian words of `x`.
    pub fn words(&self, x: &Bn) -> Result<Vec<u64>, String> {
        let mut bytes = vec![0u8; 8 * self.words];
        let len = c_int::try_from(bytes.len()).map_err(|_| "element too long")?;
        // SAFETY: `x.0` is a live BIGNUM; `bytes` has room for `len` bytes,
        // and OpenSSL returns −1 rather than write more.
        let rc = unsafe { BN_bn2lebinpad(x.0.as_ptr(), bytes.as_mut_ptr(), len) };
        if rc != len {
            return Err(format!("OpenSSL BN_bn2lebinpad failed ({rc})"));
        }
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    }

    /// Swaps the scratch result into `x` if OpenSSL reported success.
    fn finish(&mut self, x: &mut Bn, rc: c_int, what: &str) -> Result<(), String> {
        if rc == 1 {
            std::mem::swap(x, &mut self.scratch);
            Ok(())
        } else {
            Err(format!("OpenSSL BN_GF2m_mod_{what}_arr failed"))
        }
    }

    /// `x ← x·b mod P` (`BN_GF2m_mod_mul_arr`).
    pub fn mul(&mut self, x: &mut Bn, b: &Bn) -> Result<(), String> {
        // SAFETY: all BIGNUMs and the context are live and distinct from the
        // output (the scratch); the modulus array ends with −1.
        let rc = unsafe {
            BN_GF2m_mod_mul_arr(
                self.scratch.0.as_ptr(),
                x.0.as_ptr(),
                b.0.as_ptr(),
                self.modulus.as_ptr(),
                self.ctx.as_ptr(),
            )
        };
        self.finish(x, rc, "mul")
    }

    /// `r ← a·b mod P` (`BN_GF2m_mod_mul_arr` straight into `r`, which the
    /// borrows keep distinct from the inputs).
    pub fn mul_into(&mut self, r: &mut Bn, a: &Bn, b: &Bn) -> Result<(), String> {
        // SAFETY: all BIGNUMs and the context are live, the output distinct
        // from the inputs; the modulus array ends with −1.
        let rc = unsafe {
            BN_GF2m_mod_mul_arr(
                r.0.as_ptr(),
                a.0.as_ptr(),
                b.0.as_ptr(),
                self.modulus.as_ptr(),
                self.ctx.as_ptr(),
            )
        };
        if rc == 1 {
            Ok(())
        } else {
            Err("OpenSSL BN_GF2m_mod_mul_arr failed".into())
        }
    }

    /// `x ← x² mod P` (`BN_GF2m_mod_sqr_arr`).
    pub fn square(&mut self, x: &mut Bn) -> Result<(), String> {
        // SAFETY: as in `mul`.
        let rc = unsafe {
            BN_GF2m_mod_sqr_arr(
                self.scratch.0.as_ptr(),
                x.0.as_ptr(),
                self.modulus.as_ptr(),
                self.ctx.as_ptr(),
            )
        };
        self.finish(x, rc, "sqr")
    }

    /// `x ← x⁻¹ mod P` (`BN_GF2m_mod_inv_arr`); an error for zero.
    pub fn invert(&mut self, x: &mut Bn) -> Result<(), String> {
        // SAFETY: as in `mul`.
        let rc = unsafe {
            BN_GF2m_mod_inv_arr(
                self.scratch.0.as_ptr(),
                x.0.as_ptr(),
                self.modulus.as_ptr(),
                self.ctx.as_ptr(),
            )
        };
        self.finish(x, rc, "inv")
    }

    /// `x ← √x mod P` (`BN_GF2m_mod_sqrt_arr`: `x^(2^(m−1))`).
    pub fn sqrt(&mut self, x: &mut Bn) -> Result<(), String> {
        // SAFETY: as in `mul`.
        let rc = unsafe {
            BN_GF2m_mod_sqrt_arr(
                self.scratch.0.as_ptr(),
                x.0.as_ptr(),
                self.modulus.as_ptr(),
                self.ctx.as_ptr(),
            )
        };
        self.finish(x, rc, "sqrt")
    }
}

impl Drop for Gf2mField {
    fn drop(&mut self) {
        // SAFETY: created by BN_CTX_new, freed once (the scratch BIGNUM is
        // freed by its own Drop afterwards).
        unsafe { BN_CTX_free(self.ctx.as_ptr()) }
    }
}
