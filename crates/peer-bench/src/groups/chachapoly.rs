//! `chacha20` and `chachapoly`: the ChaCha20 stream cipher and the
//! ChaCha20-Poly1305 / XChaCha20-Poly1305 AEADs (RFC 8439,
//! draft-irtf-cfrg-xchacha-03), fieldwork against RustCrypto, ring and
//! aws-lc-rs.
//!
//! # Rows
//!
//! - `chacha20`, `N B` (N = 64, 1024, 16384, 65536): the keystream XORed
//!   into an N-byte buffer in place, key setup included (`new`,
//!   `apply_keystream`). Columns: fieldwork's best backend, each of its
//!   backends (`avx512`, `avx2`, `portable` through `fieldwork::hazmat`),
//!   RustCrypto `chacha20`.
//! - `chachapoly seal`, `N B` (N = 64, 576, 1024, 1420, 16384, 65536) with
//!   13 bytes of associated data: sealing in place with a detached tag,
//!   the key made once (each library's key object), a fixed nonce (fine
//!   for timing, never for use). Columns: fieldwork (and on AArch64 its
//!   `neon-stitched` and `neon` backends pinned, where not the default;
//!   on AVX-512 `avx512-stitched` and `avx512-two-pass`, on AVX2-only
//!   cores `avx2-two-pass`, and `avx2-stitched` too where the default is
//!   `avx2`, by length), RustCrypto
//!   `chacha20poly1305`, aws-lc-rs and ring (`LessSafeKey` with
//!   `CHACHA20_POLY1305`); on AArch64 with `system-peers` also the system
//!   OpenSSL (`EVP_chacha20_poly1305`, the EVP calls of the `gcm` group).
//! - `xchachapoly seal`, 1 KiB and 16 KiB: fieldwork against RustCrypto.
//!
//! # Checks before timing
//!
//! Every column's output (keystream, or ciphertext and tag) equals
//! fieldwork's on random keys, nonces and data at every timed length and
//! 0, 1, 63, 65 bytes; any difference stops the run.

use super::hexed;
use crate::harness::{Case, Impl};
use crate::util::Rng;
use benchtime::Routine;
use chacha20::cipher::{KeyIvInit, StreamCipher};
use chacha20poly1305::aead::AeadInOut;
use fieldwork::chacha20::ChaCha20;
use fieldwork::chachapoly::aead::KeyInit;
use fieldwork::chachapoly::{ChaCha20Poly1305, XChaCha20Poly1305};
use fieldwork::hazmat::Backends;
use std::hint::black_box;

const KEYSTREAM_SIZES: &[usize] = &[64, 1024, 16384, 65536];
const SEAL_SIZES: &[usize] = &[64, 576, 1024, 1420, 16384, 65536];
const XSEAL_SIZES: &[usize] = &[1024, 16384];
const CHECK_ONLY: &[usize] = &[0, 1, 63, 65];
const AAD: &[u8] = b"thirteen byte";

fn random(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n.div_ceil(8))
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .take(n)
        .collect()
}

type MakeChaCha = fn(&[u8; 32], &[u8; 12]) -> Option<ChaCha20>;

/// Each backend by name through `fieldwork::hazmat`.
const BACKENDS: &[(&str, MakeChaCha)] = &[
    ("avx512", |k, n| ChaCha20::with_backend("avx512", (k, n))),
    ("avx2", |k, n| ChaCha20::with_backend("avx2", (k, n))),
    ("sve2", |k, n| ChaCha20::with_backend("sve2", (k, n))),
    ("neon", |k, n| ChaCha20::with_backend("neon", (k, n))),
    ("portable", |k, n| {
        ChaCha20::with_backend("portable", (k, n))
    }),
];

fn theirs_keystream(key: &[u8; 32], nonce: &[u8; 12], buf: &mut [u8]) {
    chacha20::ChaCha20::new(key.into(), nonce.into()).apply_keystream(buf);
}

/// The `chacha20` cases.
pub fn keystream_cases() -> Result<Vec<Case>, String> {
    let mut rng = Rng(0x6368_6163_6861_3230);
    let key: [u8; 32] = random(&mut rng, 32).try_into().unwrap_or([0; 32]);
    let nonce: [u8; 12] = random(&mut rng, 12).try_into().unwrap_or([0; 12]);
    let longest = 65536;
    let data = random(&mut rng, longest);
    for n in KEYSTREAM_SIZES.iter().chain(CHECK_ONLY).copied() {
        let mut want = data[..n].to_vec();
        theirs_keystream(&key, &nonce, &mut want);
        for &(name, make) in BACKENDS {
            if let Some(mut c) = make(&key, &nonce) {
                let mut got = data[..n].to_vec();
                c.apply_keystream(&mut got).map_err(|e| e.to_string())?;
                if got != want {
                    return Err(format!(
                        "fieldwork chacha20 ({name}) disagrees at {n} bytes"
                    ));
                }
            }
        }
    }
    let best = ChaCha20::new(&key, &nonce).backend_name();
    Ok(KEYSTREAM_SIZES
        .iter()
        .map(|&n| {
            let mut impls = vec![Impl {
                name: format!("fieldwork best ({best})"),
                ours: true,
                routine: keystream_routine(None, key, nonce, n),
            }];
            for &(name, make) in BACKENDS {
                if make(&key, &nonce).is_some() {
                    impls.push(Impl {
                        name: format!("fieldwork ({name})"),
                        ours: true,
                        routine: keystream_routine(Some(make), key, nonce, n),
                    });
                }
            }
            impls.push(Impl {
                name: concat!("RustCrypto chacha20 ", env!("PEER_VERSION_CHACHA20")).into(),
                ours: false,
                routine: {
                    let mut buf = vec![0u8; n];
                    Box::new(move |calls| {
                        for _ in 0..calls {
                            theirs_keystream(black_box(&key), black_box(&nonce), &mut buf);
                            black_box(&mut buf);
                        }
                    })
                },
            });
            Case {
                group: "chacha20",
                size: format!("{n} B"),
                bytes: Some(n as u64),
                impls,
                heavy: false,
                per_second: None,
            }
        })
        .collect())
}

fn keystream_routine(
    make: Option<MakeChaCha>,
    key: [u8; 32],
    nonce: [u8; 12],
    n: usize,
) -> Routine<'static> {
    let mut buf = vec![0u8; n];
    match make {
        // The default constructed in place and used, as a caller writes it
        // (and as the RustCrypto column does): no `Option` around it,
        // whose move copied the fresh state in 16-byte chunks that no
        // store of `new` could forward to (about 40 cycles at 64 bytes).
        None => Box::new(move |calls| {
            for _ in 0..calls {
                let _ = ChaCha20::new(black_box(&key), black_box(&nonce)).apply_keystream(&mut buf);
                black_box(&mut buf);
            }
        }),
        Some(make) => Box::new(move |calls| {
            for _ in 0..calls {
                if let Some(mut c) = make(black_box(&key), black_box(&nonce)) {
                    let _ = c.apply_keystream(&mut buf);
                }
                black_box(&mut buf);
            }
        }),
    }
}

/// Seals `buf` in place with a detached tag, and opens: one column's
/// implementation.
trait Seal {
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]>;
    /// Opens `sealed` (ciphertext ‖ tag) in place; whether it was
    /// authentic.
    fn open(&self, nonce: &[u8], aad: &[u8], sealed: &mut [u8]) -> bool;
}

macro_rules! fieldwork_seal {
    ($($t:ty),*) => {$(
        impl Seal for $t {
            #[inline(always)]
            fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]> {
                self.encrypt_in_place_detached(nonce.try_into().ok()?, aad, buf)
                    .ok()
            }
            #[inline(always)]
            fn open(&self, nonce: &[u8], aad: &[u8], sealed: &mut [u8]) -> bool {
                let (Ok(nonce), Some(n)) = (nonce.try_into(), sealed.len().checked_sub(16)) else {
                    return false;
                };
                let (ct, tag) = sealed.split_at_mut(n);
                let Ok(tag) = <&[u8; 16]>::try_from(&*tag) else {
                    return false;
                };
                self.decrypt_in_place_detached(nonce, aad, ct, tag.into())
                    .is_ok()
            }
        }
    )*};
}
fieldwork_seal!(ChaCha20Poly1305, XChaCha20Poly1305);

macro_rules! rustcrypto_seal {
    ($($t:ty),*) => {$(
        impl Seal for $t {
            #[inline(always)]
            fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]> {
                let tag = self
                    .encrypt_inout_detached(nonce.try_into().ok()?, aad, buf.into())
                    .ok()?;
                Some(tag.into())
            }
            #[inline(always)]
            fn open(&self, nonce: &[u8], aad: &[u8], sealed: &mut [u8]) -> bool {
                let (Ok(nonce), Some(n)) = (nonce.try_into(), sealed.len().checked_sub(16)) else {
                    return false;
                };
                let (ct, tag) = sealed.split_at_mut(n);
                let Ok(tag) = (&*tag).try_into() else {
                    return false;
                };
                self.decrypt_inout_detached(nonce, aad, ct.into(), tag).is_ok()
            }
        }
    )*};
}
rustcrypto_seal!(
    chacha20poly1305::ChaCha20Poly1305,
    chacha20poly1305::XChaCha20Poly1305
);

macro_rules! less_safe_key_seal {
    ($($krate:ident)*) => {$(
        impl Seal for $krate::aead::LessSafeKey {
            #[inline(always)]
            fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]> {
                use $krate::aead::{Aad, Nonce};
                let tag = self
                    .seal_in_place_separate_tag(
                        Nonce::try_assume_unique_for_key(nonce).ok()?,
                        Aad::from(aad),
                        buf,
                    )
                    .ok()?;
                tag.as_ref().try_into().ok()
            }
            #[inline(always)]
            fn open(&self, nonce: &[u8], aad: &[u8], sealed: &mut [u8]) -> bool {
                use $krate::aead::{Aad, Nonce};
                let Ok(nonce) = Nonce::try_assume_unique_for_key(nonce) else {
                    return false;
                };
                self.open_in_place(nonce, Aad::from(aad), sealed).is_ok()
            }
        }
    )*};
}
less_safe_key_seal!(aws_lc_rs ring);

/// The system OpenSSL's ChaCha20-Poly1305 through the `EVP_CIPHER` calls of
/// the `gcm` group's OpenSSL column (one context keyed once, the nonce set
/// per message); a `RefCell` because OpenSSL's context is mutated by each
/// message. A column on AArch64 only (issue 59's instruction-count page),
/// so x86 pages keep their columns.
#[cfg(all(feature = "system-peers", target_arch = "aarch64"))]
struct OpensslChaChaPoly(std::cell::RefCell<crate::openssl::EvpAead>);

#[cfg(all(feature = "system-peers", target_arch = "aarch64"))]
impl Seal for OpensslChaChaPoly {
    #[inline(always)]
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]> {
        let mut ctx = self.0.try_borrow_mut().ok()?;
        ctx.seal_in_place(nonce.try_into().ok()?, aad, buf).ok()
    }
    #[inline(always)]
    fn open(&self, nonce: &[u8], aad: &[u8], sealed: &mut [u8]) -> bool {
        let (Ok(nonce), Some(n), Ok(mut ctx)) = (
            nonce.try_into(),
            sealed.len().checked_sub(16),
            self.0.try_borrow_mut(),
        ) else {
            return false;
        };
        let (ct, tag) = sealed.split_at_mut(n);
        let Ok(tag) = <[u8; 16]>::try_from(&*tag) else {
            return false;
        };
        ctx.open_in_place(nonce, aad, ct, &tag).is_ok()
    }
}

type Column = (String, bool, std::rc::Rc<dyn Seal>);

/// The ChaCha20-Poly1305 sealing columns under `key`: fieldwork (first),
/// then RustCrypto, aws-lc-rs and ring (and, on AArch64 with
/// `system-peers`, OpenSSL).
fn seal_columns(key: &[u8; 32]) -> Result<Vec<Column>, String> {
    let ours = ChaCha20Poly1305::new(key.into());
    let backend = ours.backend_name();
    let aws = aws_lc_rs::aead::UnboundKey::new(&aws_lc_rs::aead::CHACHA20_POLY1305, key)
        .map_err(|_| "aws-lc-rs refused the key".to_string())?;
    let rng_key = ring::aead::UnboundKey::new(&ring::aead::CHACHA20_POLY1305, key)
        .map_err(|_| "ring refused the key".to_string())?;
    let mut cols: Vec<Column> = vec![(
        format!("fieldwork ({backend})"),
        true,
        std::rc::Rc::new(ours),
    )];
    // The paths a by-length default switches between, or (the stitched
    // AVX2 default) the two-pass one, pinned beside the default: on
    // AVX-512 `avx512`; on AVX2 `avx2` where the tuning table has
    // crossovers, else `avx2-stitched` at every length.
    let pinned: &[&str] = match backend {
        "avx512" => &["avx512-stitched", "avx512-two-pass"],
        "avx2" => &["avx2-stitched", "avx2-two-pass"],
        "avx2-stitched" => &["avx2-two-pass"],
        _ => &[],
    };
    for &name in pinned {
        if let Some(c) = ChaCha20Poly1305::with_backend(name, key) {
            cols.push((format!("fieldwork ({name})"), true, std::rc::Rc::new(c)));
        }
    }
    // On AArch64 the stitched and the two-pass NEON paths pinned beside
    // the default (whichever of them it is not).
    #[cfg(target_arch = "aarch64")]
    for name in ["neon-stitched", "neon"] {
        if name != backend
            && let Some(c) = ChaCha20Poly1305::with_backend(name, key)
        {
            cols.push((format!("fieldwork ({name})"), true, std::rc::Rc::new(c)));
        }
    }
    cols.extend::<[Column; 3]>([
        (
            concat!(
                "RustCrypto chacha20poly1305 ",
                env!("PEER_VERSION_CHACHA20POLY1305")
            )
            .into(),
            false,
            std::rc::Rc::new(chacha20poly1305::ChaCha20Poly1305::new(key.into())),
        ),
        (
            concat!("aws-lc-rs ", env!("PEER_VERSION_AWS_LC_RS")).into(),
            false,
            std::rc::Rc::new(aws_lc_rs::aead::LessSafeKey::new(aws)),
        ),
        (
            concat!("ring ", env!("PEER_VERSION_RING")).into(),
            false,
            std::rc::Rc::new(ring::aead::LessSafeKey::new(rng_key)),
        ),
    ]);
    #[cfg(all(feature = "system-peers", target_arch = "aarch64"))]
    cols.push((
        format!("{} (system)", crate::openssl::version()),
        false,
        std::rc::Rc::new(OpensslChaChaPoly(std::cell::RefCell::new(
            crate::openssl::EvpAead::chacha20_poly1305(key)?,
        ))),
    ));
    Ok(cols)
}

/// Every column's sealing of `data[..n]` under `nonce` equals fieldwork's
/// (the first column's), for each `n` of `lengths`.
fn check_seal(
    cols: &[Column],
    nonce: &[u8],
    data: &[u8],
    lengths: impl IntoIterator<Item = usize>,
) -> Result<(), String> {
    for n in lengths {
        let Some(((_, _, first), rest)) = cols.split_first() else {
            return Ok(());
        };
        let mut want = data[..n].to_vec();
        let want_tag = first
            .seal(nonce, AAD, &mut want)
            .ok_or("fieldwork refused to seal")?;
        for (name, _, c) in rest {
            let mut got = data[..n].to_vec();
            let tag = c
                .seal(nonce, AAD, &mut got)
                .ok_or(format!("{name} refused to seal"))?;
            if got != want || tag != want_tag {
                return Err(format!(
                    "{name} disagrees with fieldwork at {n} bytes: tag {} instead of {}",
                    hexed(&tag),
                    hexed(&want_tag)
                ));
            }
        }
    }
    Ok(())
}

/// The first swept length of `--chachapoly-sweep`.
pub const SWEEP_FIRST: usize = 64;
/// The last swept length of `--chachapoly-sweep`.
pub const SWEEP_LAST: usize = 2048;

/// `--chachapoly-sweep`: ChaCha20-Poly1305 sealing and opening (13 bytes
/// of associated data) at every length [`SWEEP_FIRST`]..=[`SWEEP_LAST`],
/// every column interleaved per length, after checking every column
/// against fieldwork at every length (the same sealing; each opens
/// fieldwork's); cycles/byte per column, sealing then opening. `progress`
/// is told every 100 lengths.
pub fn sweep(
    clock: &benchtime::Clock,
    sampler: &benchtime::Sampler,
    mut progress: impl FnMut(usize),
) -> Result<(crate::sweep::Sweep, crate::sweep::Sweep), String> {
    let mut rng = Rng(0x7377_6565_7063_6870);
    let key: [u8; 32] = random(&mut rng, 32).try_into().unwrap_or([0; 32]);
    let data = random(&mut rng, SWEEP_LAST);
    let nonce = random(&mut rng, 12);
    let cols = seal_columns(&key)?;
    check_seal(&cols, &nonce, &data, SWEEP_FIRST..=SWEEP_LAST)?;
    let mut seal_rows = Vec::new();
    let mut open_rows = Vec::new();
    for n in SWEEP_FIRST..=SWEEP_LAST {
        let mut sealed = data[..n].to_vec();
        let tag = cols[0]
            .2
            .seal(&nonce, AAD, &mut sealed)
            .ok_or("fieldwork refused to seal")?;
        sealed.extend_from_slice(&tag);
        for (name, _, c) in &cols {
            let mut work = sealed.clone();
            if !c.open(&nonce, AAD, &mut work) || work[..n] != data[..n] {
                return Err(format!(
                    "{name} failed to open fieldwork's sealing of {n} bytes"
                ));
            }
        }
        for (rows, open) in [(&mut seal_rows, false), (&mut open_rows, true)] {
            let mut routines: Vec<Routine<'static>> = cols
                .iter()
                .map(|(_, _, c)| {
                    if open {
                        open_routine(c.clone(), nonce.clone(), sealed.clone())
                    } else {
                        seal_routine(c.clone(), nonce.clone(), n)
                    }
                })
                .collect();
            let timings = sampler.run(&mut routines);
            rows.push(crate::sweep::Row {
                length: n,
                cycles_per_byte: timings
                    .iter()
                    .map(|t| clock.cycles(t.median) / n as f64)
                    .collect(),
            });
        }
        if n.is_multiple_of(100) {
            progress(n);
        }
    }
    let names: Vec<String> = cols.into_iter().map(|(name, _, _)| name).collect();
    Ok((
        crate::sweep::Sweep {
            columns: names.clone(),
            rows: seal_rows,
        },
        crate::sweep::Sweep {
            columns: names,
            rows: open_rows,
        },
    ))
}

/// Opening `sealed` (ciphertext ‖ tag) in place per call, after copying it
/// into the work buffer (every column pays the same copy).
fn open_routine(c: std::rc::Rc<dyn Seal>, nonce: Vec<u8>, sealed: Vec<u8>) -> Routine<'static> {
    let mut work = sealed.clone();
    Box::new(move |calls| {
        for _ in 0..calls {
            work.copy_from_slice(black_box(&sealed));
            black_box(c.open(black_box(&nonce), black_box(AAD), &mut work));
        }
    })
}

/// The `chachapoly` cases (ChaCha20-Poly1305 and XChaCha20-Poly1305).
pub fn cases() -> Result<Vec<Case>, String> {
    let mut rng = Rng(0x6368_6163_6861_706f);
    let key: [u8; 32] = random(&mut rng, 32).try_into().unwrap_or([0; 32]);
    let data = random(&mut rng, 65536);
    let nonce12 = random(&mut rng, 12);
    let nonce24 = random(&mut rng, 24);
    let backend = ChaCha20Poly1305::new(&key.into()).backend_name();
    let columns = seal_columns(&key)?;
    let xcolumns: Vec<Column> = vec![
        (
            format!("fieldwork ({backend})"),
            true,
            std::rc::Rc::new(XChaCha20Poly1305::new(&key.into())),
        ),
        (
            concat!(
                "RustCrypto chacha20poly1305 ",
                env!("PEER_VERSION_CHACHA20POLY1305")
            )
            .into(),
            false,
            std::rc::Rc::new(chacha20poly1305::XChaCha20Poly1305::new(&key.into())),
        ),
    ];
    for (cols, nonce, sizes) in [
        (&columns, &nonce12, SEAL_SIZES),
        (&xcolumns, &nonce24, XSEAL_SIZES),
    ] {
        check_seal(cols, nonce, &data, sizes.iter().chain(CHECK_ONLY).copied())?;
    }
    let mut cases = Vec::new();
    for (group, cols, nonce, sizes) in [
        ("chachapoly seal (13 B AAD)", &columns, &nonce12, SEAL_SIZES),
        (
            "xchachapoly seal (13 B AAD)",
            &xcolumns,
            &nonce24,
            XSEAL_SIZES,
        ),
    ] {
        for &n in sizes {
            cases.push(Case {
                group,
                size: format!("{n} B"),
                bytes: Some(n as u64),
                impls: cols
                    .iter()
                    .map(|(name, ours, c)| Impl {
                        name: name.clone(),
                        ours: *ours,
                        routine: seal_routine(c.clone(), nonce.clone(), n),
                    })
                    .collect(),
                heavy: false,
                per_second: None,
            });
        }
    }
    // Opening fieldwork's sealing of each size (every column must open it
    // to the original data first).
    for &n in SEAL_SIZES {
        let mut sealed = data[..n].to_vec();
        let tag = columns[0]
            .2
            .seal(&nonce12, AAD, &mut sealed)
            .ok_or("fieldwork refused to seal")?;
        sealed.extend_from_slice(&tag);
        for (name, _, c) in &columns {
            let mut work = sealed.clone();
            if !c.open(&nonce12, AAD, &mut work) || work[..n] != data[..n] {
                return Err(format!(
                    "{name} failed to open fieldwork's sealing of {n} bytes"
                ));
            }
        }
        cases.push(Case {
            group: "chachapoly open (13 B AAD)",
            size: format!("{n} B"),
            bytes: Some(n as u64),
            impls: columns
                .iter()
                .map(|(name, ours, c)| Impl {
                    name: name.clone(),
                    ours: *ours,
                    routine: open_routine(c.clone(), nonce12.clone(), sealed.clone()),
                })
                .collect(),
            heavy: false,
            per_second: None,
        });
    }
    Ok(cases)
}

fn seal_routine(c: std::rc::Rc<dyn Seal>, nonce: Vec<u8>, n: usize) -> Routine<'static> {
    let mut buf = vec![0x5au8; n];
    Box::new(move |calls| {
        for _ in 0..calls {
            black_box(c.seal(black_box(&nonce), black_box(AAD), &mut buf));
        }
    })
}
