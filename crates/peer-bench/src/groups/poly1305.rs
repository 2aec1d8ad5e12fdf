//! `poly1305`: the Poly1305 one-time MAC (RFC 8439 §2.5) of one message of
//! 16 B to 16 KiB, fieldwork (`fieldwork::poly1305`) against RustCrypto's
//! `poly1305` crate and, with `system-peers`, the system OpenSSL's.
//!
//! # Rows
//!
//! `N B` (N = 16, 64, 256, 576, 1024, 2048, 4096, 8192, 16384): the whole keyed
//! MAC of one N-byte message, key setup included — `new(key)`,
//! `update(message)`, `finalize()` — since a Poly1305 key is used for one
//! message only (ours computes the powers of r its vector loop needs when a
//! message first needs them, so short rows pay none). Calls are
//! independent (the same key and message each call, hidden from the
//! optimiser). 576 bytes is 36 blocks: a length on which the vector
//! backends' lanes and the scalar threshold both matter. Each cell shows
//! cycles per byte and cycles per call.
//!
//! Below the table, [`MARGINAL`] has the harness split each column's cost
//! into a fixed cost per call and a marginal rate, from the 8192-byte and
//! 16384-byte medians (`harness::marginals`): the marginal rate is what the
//! issue's targets compare (fieldwork at 16 KiB against the best peer's
//! marginal rate), free of each implementation's key setup and finalisation.
//!
//! # Implementations
//!
//! - `fieldwork best (<backend>)`: the one-shot `fieldwork::poly1305::tag`
//!   (the call for a whole message; on the fastest backend, named from
//!   `backend_name()`); the reference for the ratios. Unlike streaming, it
//!   knows where the message ends, so the SIMD backends take a final
//!   partial block into their last vector group.
//! - `fieldwork (<backend>)`: each backend (and AVX2 schedule) this CPU
//!   has, by name through `fieldwork::hazmat` (`avx512ifma`, `avx2`,
//!   `avx2-decimation`, `avx2-goll-gueron`, `portable`) and the streaming
//!   `update(message)`, `finalize()`, each as its own column.
//! - `RustCrypto poly1305`: `KeyInit::new`, `compute_unpadded(message)`
//!   (RFC 8439 padding of a partial last block, as ours); it chooses at run
//!   time between AVX2 code and a portable fallback.
//! - `OpenSSL 3.x Poly1305 (system)` (`system-peers`): `EVP_MAC` "POLY1305"
//!   keyed, updated and finalised per call (`openssl::Poly1305Mac`); OpenSSL
//!   chooses its own assembly (AVX2 or AVX-512 IFMA where the CPU has it).
//!
//! # Checks before timing
//!
//! fieldwork's one-shot `tag` and OpenSSL's against RFC 8439 §2.5.2's
//! vector; then every
//! implementation, through the same calls as its timed routine, against
//! that one-shot function on a random key and random data of every timed
//! length and a few more (0, 1, 15, 17, 100, 4097 bytes). Any disagreement
//! stops the run with the length and both results.

use super::{hex, hexed};
use crate::harness::{Case, Impl};
use crate::util::Rng;
use ::poly1305::universal_hash::KeyInit;
use benchtime::Routine;
use fieldwork::hazmat::Backends;
use fieldwork::poly1305::Poly1305;
use std::hint::black_box;

/// The timed message lengths in bytes.
const SIZES: &[usize] = &[16, 64, 256, 576, 1024, 2048, 4096, 8192, 16384];
/// Lengths checked but not timed.
const CHECK_ONLY: &[usize] = &[0, 1, 15, 17, 100, 4097];

/// The rows whose difference gives each column's marginal rate: (group,
/// shorter length, longer length) in bytes.
pub const MARGINAL: (&str, u64, u64) = ("poly1305", 8192, 16384);

/// RFC 8439 §2.5.2: the key …
const RFC_KEY: [u8; 32] = hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
/// … the message …
const RFC_MSG: &[u8] = b"Cryptographic Forum Research Group";
/// … and the tag.
const RFC_TAG: [u8; 16] = hex("a8061dc1305136c6c22b8baf0c0127a9");

/// A per-backend constructor (`None` where the CPU lacks it).
type MakeFn = fn(&[u8; 32]) -> Option<Poly1305>;

/// Which implementation a column runs.
#[derive(Clone, Copy)]
pub enum Kind {
    /// `Poly1305::new`: fieldwork's choice of backend.
    Best,
    /// One of fieldwork's backends by its constructor.
    Backend(MakeFn),
    /// A one-shot tag function (`None` where the CPU lacks it): the
    /// dissertation's faithful Goll–Gueron (`fieldwork::poly1305::goll_gueron`).
    OneShot(fn(&[u8; 32], &[u8]) -> Option<[u8; 16]>),
    /// RustCrypto's `poly1305`.
    RustCrypto,
    /// The system OpenSSL's `EVP_MAC` "POLY1305".
    #[cfg(feature = "system-peers")]
    OpenSsl,
}

/// One column: what the tables call it, whether it is ours, and what runs.
pub struct Column {
    /// The column's name in the tables.
    pub name: String,
    /// fieldwork's code (the first such column is the ratios' reference).
    pub ours: bool,
    /// The implementation.
    pub kind: Kind,
}

#[inline(always)]
fn best(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    fieldwork::poly1305::tag(key, msg)
}

#[inline(always)]
fn peer(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    ::poly1305::Poly1305::new(key.into())
        .compute_unpadded(msg)
        .into()
}

/// Our backends: column name and constructor, by name through
/// `fieldwork::hazmat`.
const BACKENDS: &[(&str, MakeFn)] = &[
    ("avx512ifma", |k| Poly1305::with_backend("avx512ifma", k)),
    ("avx2", |k| Poly1305::with_backend("avx2", k)),
    ("avx2-decimation", |k| {
        Poly1305::with_backend("avx2-decimation", k)
    }),
    ("avx2-goll-gueron", |k| {
        Poly1305::with_backend("avx2-goll-gueron", k)
    }),
    ("neon", |k| Poly1305::with_backend("neon", k)),
    ("portable", |k| Poly1305::with_backend("portable", k)),
];

/// fieldwork's backend named `name` in [`BACKENDS`], if this CPU has it.
pub fn backend(name: &str) -> Option<Column> {
    let &(b, make) = BACKENDS.iter().find(|(b, _)| *b == name)?;
    make(&[1; 32])?;
    Some(Column {
        name: format!("fieldwork ({b})"),
        ours: true,
        kind: Kind::Backend(make),
    })
}

/// The faithful Goll–Gueron of Bhattacharyya's dissertation §3
/// (`fieldwork::poly1305::goll_gueron`), if this CPU runs AVX2.
#[cfg(target_arch = "x86_64")]
pub fn faithful_column() -> Option<Column> {
    use fieldwork::poly1305::goll_gueron::GollGueron;
    GollGueron::new(&[1; 32])?;
    Some(Column {
        name: format!("fieldwork ({})", GollGueron::NAME),
        ours: true,
        kind: Kind::OneShot(|k, m| Some(GollGueron::new(k)?.tag(m))),
    })
}

/// fieldwork's default (`Poly1305::new`), named after the backend it chose.
pub fn best_column() -> Column {
    Column {
        name: format!(
            "fieldwork best ({})",
            Poly1305::new(&[1; 32]).backend_name()
        ),
        ours: true,
        kind: Kind::Best,
    }
}

/// The peers built into this binary: RustCrypto's, and OpenSSL's with
/// `system-peers` (after checking it against RFC 8439 §2.5.2).
pub fn peer_columns() -> Result<Vec<Column>, String> {
    #[allow(unused_mut)] // pushed to with `system-peers`
    let mut columns = vec![Column {
        name: concat!("RustCrypto poly1305 ", env!("PEER_VERSION_POLY1305")).into(),
        ours: false,
        kind: Kind::RustCrypto,
    }];
    #[cfg(feature = "system-peers")]
    {
        let name = format!("{} Poly1305 (system)", crate::openssl::version());
        let got = crate::openssl::Poly1305Mac::new()?.tag(&RFC_KEY, RFC_MSG)?;
        if got != RFC_TAG {
            return Err(format!(
                "{name} disagrees with RFC 8439 §2.5.2: {}",
                hexed(&got)
            ));
        }
        columns.push(Column {
            name,
            ours: false,
            kind: Kind::OpenSsl,
        });
    }
    Ok(columns)
}

/// The tag of `msg` under `key` by `kind`, through the same calls as its
/// timed routine.
pub fn tag(kind: Kind, key: &[u8; 32], msg: &[u8]) -> Result<[u8; 16], String> {
    match kind {
        Kind::Best => Ok(best(key, msg)),
        Kind::Backend(make) => {
            let mut p = make(key).ok_or("backend missing on this CPU")?;
            p.update(msg);
            Ok(p.finalize())
        }
        Kind::OneShot(f) => f(key, msg).ok_or_else(|| "missing on this CPU".into()),
        Kind::RustCrypto => Ok(peer(key, msg)),
        #[cfg(feature = "system-peers")]
        Kind::OpenSsl => crate::openssl::Poly1305Mac::new()?.tag(key, msg),
    }
}

/// Checks `column` against fieldwork's one-shot `tag` at each of `lengths`
/// (prefixes of `data`).
pub fn check(
    column: &Column,
    key: &[u8; 32],
    data: &[u8],
    lengths: impl IntoIterator<Item = usize>,
) -> Result<(), String> {
    for n in lengths {
        let want = fieldwork::poly1305::tag(key, &data[..n]);
        let got = tag(column.kind, key, &data[..n])?;
        if got != want {
            return Err(format!(
                "{} disagrees with fieldwork's tag at {n} bytes: {} instead of {}",
                column.name,
                hexed(&got),
                hexed(&want)
            ));
        }
    }
    Ok(())
}

/// A random key and `len` random bytes, from a fixed seed.
pub fn key_and_data(len: usize) -> ([u8; 32], Vec<u8>) {
    let mut rng = Rng(0x706f_6c79_3133_3035);
    let mut key = [0u8; 32];
    for c in key.chunks_exact_mut(8) {
        c.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let data: Vec<u8> = (0..len.div_ceil(8))
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .take(len)
        .collect();
    (key, data)
}

/// The cases, after every check.
pub fn cases() -> Result<Vec<Case>, String> {
    let got = fieldwork::poly1305::tag(&RFC_KEY, RFC_MSG);
    if got != RFC_TAG {
        return Err(format!(
            "fieldwork poly1305 disagrees with RFC 8439 §2.5.2: {}",
            hexed(&got)
        ));
    }
    let longest = SIZES.iter().chain(CHECK_ONLY).copied().max().unwrap_or(0);
    let (key, data) = key_and_data(longest);

    // Columns: ours (best, then each backend this CPU has), then the peers.
    let mut columns = vec![best_column()];
    columns.extend(BACKENDS.iter().filter_map(|(b, _)| backend(b)));
    columns.extend(peer_columns()?);
    for c in &columns {
        check(c, &key, &data, SIZES.iter().chain(CHECK_ONLY).copied())?;
    }

    SIZES
        .iter()
        .map(|&n| {
            Ok(Case {
                group: "poly1305",
                size: format!("{n} B"),
                bytes: Some(n as u64),
                impls: columns
                    .iter()
                    .map(|c| {
                        Ok(Impl {
                            name: c.name.clone(),
                            ours: c.ours,
                            routine: routine(c.kind, key, data[..n].to_vec())?,
                        })
                    })
                    .collect::<Result<_, String>>()?,
                heavy: false,
                per_second: None,
            })
        })
        .collect()
}

/// `n` independent MACs of `message` under `key` by `kind`, key setup
/// included.
pub fn routine(kind: Kind, key: [u8; 32], message: Vec<u8>) -> Result<Routine<'static>, String> {
    Ok(match kind {
        Kind::RustCrypto => Box::new(move |n| {
            for _ in 0..n {
                black_box(peer(black_box(&key), black_box(&message)));
            }
        }),
        Kind::Best => Box::new(move |n| {
            for _ in 0..n {
                black_box(best(black_box(&key), black_box(&message)));
            }
        }),
        Kind::OneShot(f) => Box::new(move |n| {
            for _ in 0..n {
                black_box(f(black_box(&key), black_box(&message)));
            }
        }),
        Kind::Backend(make) => Box::new(move |n| {
            for _ in 0..n {
                if let Some(mut p) = make(black_box(&key)) {
                    p.update(black_box(&message));
                    black_box(p.finalize());
                }
            }
        }),
        #[cfg(feature = "system-peers")]
        Kind::OpenSsl => {
            let mut mac = crate::openssl::Poly1305Mac::new()?;
            Box::new(move |n| {
                for _ in 0..n {
                    let tag = mac
                        .tag(black_box(&key), black_box(&message))
                        .expect("OpenSSL Poly1305 (checked before timing)");
                    black_box(tag);
                }
            })
        }
    })
}
