//! `gcm_siv`: AES-128-GCM-SIV and AES-256-GCM-SIV (RFC 8452), fieldwork
//! (`fieldwork::gcm_siv`) against aws-lc-rs (`AES_128_GCM_SIV`,
//! `AES_256_GCM_SIV`) and RustCrypto's `aes-gcm-siv`. (ring has no
//! GCM-SIV; OpenSSL has it from 3.2, and the system's is older.) Four
//! tables, `gcm_siv128_encrypt`, `gcm_siv128_decrypt`, `gcm_siv256_encrypt`
//! and `gcm_siv256_decrypt`, each `13 B AAD`; `--filter gcm_siv` selects
//! them all.
//!
//! # Rows
//!
//! As in the `gcm` group (its module docs say why): keyed once outside the
//! timed region, a 12-byte nonce, 13 bytes of associated data, the message
//! in place at a page boundary and the tag separate; the same inputs every
//! call. Decryption copies the pristine ciphertext ‖ tag into the work
//! buffer each call, every implementation alike, so its figures include
//! that copy. GCM-SIV derives two keys per message (four or six AES
//! blocks and a key expansion) and makes two passes over the message
//! (POLYVAL, then counter mode), so short messages cost more than with
//! AES-GCM.
//!
//! # Implementations
//!
//! - `fieldwork best (<backend>)`: `KeyInit::new`, then
//!   `encrypt_in_place_detached` / `decrypt_in_place_detached`; the
//!   reference for the ratios. `fieldwork (<backend>)`: every other backend
//!   this CPU runs, best first (`fieldwork::hazmat::all`).
//! - `aws-lc-rs`: `aead::LessSafeKey`, `seal_in_place_separate_tag` and
//!   `open_in_place` on ciphertext ‖ tag.
//! - `RustCrypto aes-gcm-siv`: `encrypt_inout_detached` /
//!   `decrypt_inout_detached` in place (default features off).
//!
//! # Checks before timing
//!
//! Every implementation, through the calls it is timed with, against RFC
//! 8452's appendix C vector with one byte of associated data and 32 of
//! message (C.1 for AES-128, C.2 for AES-256; the library's
//! `tests/data/gcm_siv_rfc8452.txt` has all 50), then against fieldwork's
//! default backend on random inputs at every timed length and 0, 1, 15,
//! 17, 100, 4097 bytes: the same ciphertext and tag; opening fieldwork's
//! ciphertext gives the message back, and with one tag bit flipped fails.

use super::gcm::{Gcm, Placed, RustCrypto, TAG, open_routine, seal_routine};
use super::{hex, hexed};
use crate::harness::{Case, Impl};
use crate::util::Rng;
use aes_gcm_siv::aead::KeyInit;
use std::rc::Rc;

/// The timed message lengths in bytes.
const SIZES: &[usize] = &[16, 64, 256, 1024, 8192, 16384, 65536];
/// Lengths checked but not timed.
const CHECK_ONLY: &[usize] = &[0, 1, 15, 17, 100, 4097];
/// Bytes of associated data in every row.
const AAD_BYTES: usize = 13;

/// One of fieldwork's AES-GCM-SIV types and its per-backend constructors.
trait Ours: Gcm + Sized {
    fn best(key: &[u8]) -> Option<Self>;
    fn all(key: &[u8]) -> Vec<Self>;
    fn backend(&self) -> &'static str;
}

macro_rules! ours {
    ($($t:ty, $bytes:literal;)*) => {$(
        impl Gcm for $t {
            #[inline(always)]
            fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; TAG]> {
                self.encrypt_in_place_detached(nonce, aad, buf).ok()
            }
            #[inline(always)]
            fn open(&mut self, nonce: &[u8; 12], aad: &[u8], sealed: &mut [u8]) -> bool {
                let Some(split) = sealed.len().checked_sub(TAG) else {
                    return false;
                };
                let (ciphertext, tag) = sealed.split_at_mut(split);
                let Ok(tag) = <[u8; TAG]>::try_from(&*tag) else {
                    return false;
                };
                self.decrypt_in_place_detached(nonce, aad, ciphertext, &tag).is_ok()
            }
        }

        impl Ours for $t {
            fn best(key: &[u8]) -> Option<Self> {
                let key = <[u8; $bytes]>::try_from(key).ok()?;
                Some(<$t as fieldwork::gcm_siv::aead::KeyInit>::new(&key.into()))
            }
            fn all(key: &[u8]) -> Vec<Self> {
                <[u8; $bytes]>::try_from(key)
                    .map_or(Vec::new(), |k| fieldwork::hazmat::all::<$t>(&k))
            }
            fn backend(&self) -> &'static str {
                self.backend_name()
            }
        }
    )*};
}

ours! {
    fieldwork::gcm_siv::Aes128GcmSiv, 16;
    fieldwork::gcm_siv::Aes256GcmSiv, 32;
}

/// RFC 8452's key, nonce, associated data, message and ciphertext ‖ tag.
type Kat = (&'static [u8], [u8; 12], [u8; 1], [u8; 32], [u8; 48]);

/// AES-128-GCM-SIV or AES-256-GCM-SIV: the tables, the RFC vector, our
/// type and the peers'.
trait Variant {
    const ENCRYPT: &'static str;
    const DECRYPT: &'static str;
    const KEY_BYTES: usize;
    /// The RFC 8452 vector.
    const KAT: Kat;
    type Ours: Ours;
    type RustCrypto: aes_gcm_siv::aead::AeadInOut<
            NonceSize = aes_gcm_siv::aead::consts::U12,
            TagSize = aes_gcm_siv::aead::consts::U16,
        > + KeyInit
        + 'static;
    fn aws_lc() -> &'static aws_lc_rs::aead::Algorithm;
}

/// AES-128-GCM-SIV.
struct Siv128;
/// AES-256-GCM-SIV.
struct Siv256;

/// The message of both vectors (RFC 8452 appendix C.1 and C.2).
const KAT_PT: [u8; 32] = hex("0200000000000000000000000000000003000000000000000000000000000000");

impl Variant for Siv128 {
    const ENCRYPT: &'static str = "gcm_siv128_encrypt (13 B AAD)";
    const DECRYPT: &'static str = "gcm_siv128_decrypt (13 B AAD)";
    const KEY_BYTES: usize = 16;
    const KAT: Kat = (
        &hex::<16>("01000000000000000000000000000000"),
        hex("030000000000000000000000"),
        [1],
        KAT_PT,
        hex(concat!(
            "620048ef3c1e73e57e02bb8562c416a319e73e4caac8e96a1ecb2933145a1d71",
            "e6af6a7f87287da059a71684ed3498e1"
        )),
    );
    type Ours = fieldwork::gcm_siv::Aes128GcmSiv;
    type RustCrypto = aes_gcm_siv::Aes128GcmSiv;
    fn aws_lc() -> &'static aws_lc_rs::aead::Algorithm {
        &aws_lc_rs::aead::AES_128_GCM_SIV
    }
}

impl Variant for Siv256 {
    const ENCRYPT: &'static str = "gcm_siv256_encrypt (13 B AAD)";
    const DECRYPT: &'static str = "gcm_siv256_decrypt (13 B AAD)";
    const KEY_BYTES: usize = 32;
    const KAT: Kat = (
        &hex::<32>("0100000000000000000000000000000000000000000000000000000000000000"),
        hex("030000000000000000000000"),
        [1],
        KAT_PT,
        hex(concat!(
            "07dad364bfc2b9da89116d7bef6daaaf6f255510aa654f920ac81b94e8bad365",
            "aea1bad12702e1965604374aab96dbbc"
        )),
    );
    type Ours = fieldwork::gcm_siv::Aes256GcmSiv;
    type RustCrypto = aes_gcm_siv::Aes256GcmSiv;
    fn aws_lc() -> &'static aws_lc_rs::aead::Algorithm {
        &aws_lc_rs::aead::AES_256_GCM_SIV
    }
}

/// The cases: AES-128 then AES-256, each an encrypt and a decrypt table.
pub fn cases() -> Result<Vec<Case>, String> {
    let mut out = tables::<Siv128>(0x7369_7631_3238)?;
    out.extend(tables::<Siv256>(0x7369_7632_3536)?);
    Ok(out)
}

/// Random inputs and fieldwork's ciphertext ‖ tag at every checked length.
struct Inputs {
    key: Vec<u8>,
    nonce: [u8; 12],
    aad: Rc<[u8]>,
    data: Vec<u8>,
    sealed: Vec<Rc<[u8]>>,
}

fn check_lengths() -> impl Iterator<Item = usize> {
    SIZES.iter().chain(CHECK_ONLY).copied()
}

fn inputs<V: Variant>(seed: u64) -> Result<Inputs, String> {
    let mut rng = Rng(seed);
    let mut bytes = |n: usize| -> Vec<u8> { (0..n).map(|_| rng.next_u64() as u8).collect() };
    let key = bytes(V::KEY_BYTES);
    let nonce: [u8; 12] = bytes(12).try_into().map_err(|_| "nonce length")?;
    let aad: Rc<[u8]> = bytes(AAD_BYTES).into();
    let data = bytes(check_lengths().max().unwrap_or(0));
    let mut reference = V::Ours::best(V::KAT.0).ok_or("fieldwork: wrong key length")?;
    check_kat::<V, _>("fieldwork (default)", &mut reference)?;
    let mut ours = V::Ours::best(&key).ok_or("fieldwork: wrong key length")?;
    let mut sealed = Vec::new();
    for n in check_lengths() {
        let mut buf = data[..n].to_vec();
        let tag = ours
            .seal(&nonce, &aad, &mut buf)
            .ok_or_else(|| format!("fieldwork: encrypting {n} bytes failed"))?;
        buf.extend_from_slice(&tag);
        sealed.push(buf.into());
    }
    Ok(Inputs {
        key,
        nonce,
        aad,
        data,
        sealed,
    })
}

/// Checks an implementation against the RFC 8452 vector, both ways.
fn check_kat<V: Variant, G: Gcm>(name: &str, g: &mut G) -> Result<(), String> {
    let (_, nonce, aad, pt, want) = V::KAT;
    let mut buf = pt.to_vec();
    let tag = g.seal(&nonce, &aad, &mut buf);
    if let Some(tag) = tag {
        buf.extend_from_slice(&tag);
    }
    if buf[..] != want[..] {
        return Err(format!(
            "{name} ({}) disagrees with RFC 8452's vector: {}",
            V::ENCRYPT,
            hexed(&buf)
        ));
    }
    if !g.open(&nonce, &aad, &mut buf) || buf[..pt.len()] != pt {
        return Err(format!(
            "{name} ({}) fails to open RFC 8452's vector",
            V::DECRYPT
        ));
    }
    Ok(())
}

/// One implementation's encrypt and decrypt routines, after its checks.
fn column<V: Variant, G: Gcm>(
    name: String,
    ours: bool,
    new: impl Fn(&[u8]) -> Result<G, String>,
    inputs: &Inputs,
) -> Result<(Vec<Impl>, Vec<Impl>), String> {
    let keyed = |key: &[u8]| new(key).map_err(|e| format!("{name}: {e}"));
    check_kat::<V, _>(&name, &mut keyed(V::KAT.0)?)?;
    let mut g = keyed(&inputs.key)?;
    let nonce = &inputs.nonce;
    for (n, want) in check_lengths().zip(&inputs.sealed) {
        let mut buf = inputs.data[..n].to_vec();
        let tag = g.seal(nonce, &inputs.aad, &mut buf);
        if tag.is_none_or(|t| t[..] != want[n..]) || buf[..] != want[..n] {
            return Err(format!(
                "{name} ({}) disagrees with fieldwork at {n} bytes",
                V::ENCRYPT
            ));
        }
        let mut sealed = want.to_vec();
        if !g.open(nonce, &inputs.aad, &mut sealed) || sealed[..n] != inputs.data[..n] {
            return Err(format!(
                "{name} ({}) fails to open fieldwork's {n} bytes",
                V::DECRYPT
            ));
        }
        let mut forged = want.to_vec();
        forged[n] ^= 1;
        if g.open(nonce, &inputs.aad, &mut forged) {
            return Err(format!(
                "{name} ({}) accepts a wrong tag at {n} bytes",
                V::DECRYPT
            ));
        }
    }
    let impl_of = |routine| Impl {
        name: name.clone(),
        ours,
        routine,
    };
    let mut encrypt = Vec::new();
    let mut decrypt = Vec::new();
    for (&n, sealed) in SIZES.iter().zip(&inputs.sealed) {
        encrypt.push(impl_of(seal_routine(
            keyed(&inputs.key)?,
            inputs.nonce,
            Rc::clone(&inputs.aad),
            Placed::new(&inputs.data[..n], 0),
        )));
        decrypt.push(impl_of(open_routine(
            keyed(&inputs.key)?,
            inputs.nonce,
            Rc::clone(&inputs.aad),
            Rc::clone(sealed),
        )));
    }
    Ok((encrypt, decrypt))
}

/// One key size's two tables.
fn tables<V: Variant>(seed: u64) -> Result<Vec<Case>, String> {
    let inputs = inputs::<V>(seed)?;
    let best = V::Ours::best(&inputs.key)
        .ok_or("fieldwork: wrong key length")?
        .backend();
    let mut columns = vec![column::<V, _>(
        format!("fieldwork best ({best})"),
        true,
        |k| V::Ours::best(k).ok_or_else(|| "wrong key length".into()),
        &inputs,
    )?];
    for name in V::Ours::all(&inputs.key).iter().map(|o| o.backend()) {
        if name == best {
            continue;
        }
        columns.push(column::<V, _>(
            format!("fieldwork ({name})"),
            true,
            move |k| {
                V::Ours::all(k)
                    .into_iter()
                    .find(|o| o.backend() == name)
                    .ok_or_else(|| format!("{name}: not available"))
            },
            &inputs,
        )?);
    }
    columns.push(column::<V, _>(
        concat!("aws-lc-rs ", env!("PEER_VERSION_AWS_LC_RS")).into(),
        false,
        |k| {
            aws_lc_rs::aead::UnboundKey::new(V::aws_lc(), k)
                .map(aws_lc_rs::aead::LessSafeKey::new)
                .map_err(|e| format!("UnboundKey::new: {e}"))
        },
        &inputs,
    )?);
    columns.push(column::<V, _>(
        concat!("RustCrypto aes-gcm-siv ", env!("PEER_VERSION_AES_GCM_SIV")).into(),
        false,
        |k| {
            V::RustCrypto::new_from_slice(k)
                .map(RustCrypto)
                .map_err(|e| format!("new_from_slice: {e}"))
        },
        &inputs,
    )?);

    let mut encrypt: Vec<Vec<Impl>> = SIZES.iter().map(|_| Vec::new()).collect();
    let mut decrypt: Vec<Vec<Impl>> = SIZES.iter().map(|_| Vec::new()).collect();
    for (enc, dec) in columns {
        for (impls, imp) in encrypt.iter_mut().zip(enc) {
            impls.push(imp);
        }
        for (impls, imp) in decrypt.iter_mut().zip(dec) {
            impls.push(imp);
        }
    }
    let case = |group, n: usize, impls| Case {
        group,
        size: format!("{n} B"),
        bytes: Some(n as u64),
        impls,
        heavy: false,
        per_second: None,
    };
    let mut out: Vec<Case> = encrypt
        .into_iter()
        .zip(SIZES)
        .map(|(impls, &n)| case(V::ENCRYPT, n, impls))
        .collect();
    out.extend(
        decrypt
            .into_iter()
            .zip(SIZES)
            .map(|(impls, &n)| case(V::DECRYPT, n, impls)),
    );
    Ok(out)
}
