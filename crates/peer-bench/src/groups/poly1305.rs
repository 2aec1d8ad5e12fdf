//! `poly1305`: the Poly1305 one-time MAC (RFC 8439 §2.5) of one message of
//! 16 B to 16 KiB, fieldwork (`fieldwork::poly1305`) against RustCrypto's
//! `poly1305` crate.
//!
//! # Rows
//!
//! `N B` (N = 16, 64, 256, 576, 1024, 2048, 4096, 16384): the whole keyed
//! MAC of one N-byte message, key setup included — `new(key)`,
//! `update(message)`, `finalize()` — since a Poly1305 key is used for one
//! message only (ours computes the powers of r its vector loop needs when a
//! message first needs them, so short rows pay none). Calls are
//! independent (the same key and message each call, hidden from the
//! optimiser). 576 bytes is 36 blocks: a length on which the vector
//! backends' lanes and the scalar threshold both matter. Each cell shows
//! cycles per byte and cycles per call.
//!
//! # Implementations
//!
//! - `fieldwork best (<backend>)`: `Poly1305::new`, which chooses the
//!   fastest backend (named from `backend_name()`); the reference for the
//!   ratios.
//! - `fieldwork (<backend>)`: each backend this CPU has, through the
//!   hidden per-backend constructors (`new_portable`, `new_avx2_goll_gueron`,
//!   `new_avx2_decimation`, `new_ifma`), each as its own column.
//! - `RustCrypto poly1305`: `KeyInit::new`, `compute_unpadded(message)`
//!   (RFC 8439 padding of a partial last block, as ours); it chooses at run
//!   time between AVX2 code and a portable fallback.
//!
//! # Checks before timing
//!
//! fieldwork's one-shot `tag` against RFC 8439 §2.5.2's vector; then every
//! implementation, through the same calls as its timed routine, against
//! that one-shot function on a random key and random data of every timed
//! length and a few more (0, 1, 15, 17, 100, 4097 bytes). Any disagreement
//! stops the run with the length and both results.

use super::Rng;
use super::{hex, hexed};
use crate::harness::{Case, Impl};
use ::poly1305::universal_hash::KeyInit;
use benchtime::Routine;
use fieldwork::poly1305::Poly1305;
use std::hint::black_box;

/// The timed message lengths in bytes.
const SIZES: &[usize] = &[16, 64, 256, 576, 1024, 2048, 4096, 16384];
/// Lengths checked but not timed.
const CHECK_ONLY: &[usize] = &[0, 1, 15, 17, 100, 4097];

/// RFC 8439 §2.5.2: the key …
const RFC_KEY: [u8; 32] = hex("85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b");
/// … the message …
const RFC_MSG: &[u8] = b"Cryptographic Forum Research Group";
/// … and the tag.
const RFC_TAG: [u8; 16] = hex("a8061dc1305136c6c22b8baf0c0127a9");

/// How a column computes a tag: key and message in, tag out.
type TagFn = fn(&[u8; 32], &[u8]) -> [u8; 16];
/// A hidden per-backend constructor (`None` where the CPU lacks it).
type MakeFn = fn(&[u8; 32]) -> Option<Poly1305>;
/// A column: name, whether it is ours, and its tag function (for checks).
type Column = (String, bool, Box<dyn Fn(&[u8; 32], &[u8]) -> [u8; 16]>);

/// One of our backends, by its hidden constructor.
fn ours(make: MakeFn) -> impl Fn(&[u8; 32], &[u8]) -> Option<[u8; 16]> {
    move |key, msg| {
        let mut p = make(key)?;
        p.update(msg);
        Some(p.finalize())
    }
}

#[inline(always)]
fn best(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    let mut p = Poly1305::new(key);
    p.update(msg);
    p.finalize()
}

#[inline(always)]
fn peer(key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
    ::poly1305::Poly1305::new(key.into())
        .compute_unpadded(msg)
        .into()
}

/// Our backends: column name and constructor.
const BACKENDS: &[(&str, MakeFn)] = &[
    ("avx512ifma", Poly1305::new_ifma),
    ("avx2-decimation", Poly1305::new_avx2_decimation),
    ("avx2-goll-gueron", Poly1305::new_avx2_goll_gueron),
    ("portable", |k| Some(Poly1305::new_portable(k))),
];

/// The cases, after every check.
pub fn cases() -> Result<Vec<Case>, String> {
    let got = fieldwork::poly1305::tag(&RFC_KEY, RFC_MSG);
    if got != RFC_TAG {
        return Err(format!(
            "fieldwork poly1305 disagrees with RFC 8439 §2.5.2: {}",
            hexed(&got)
        ));
    }
    let mut rng = Rng(0x706f_6c79_3133_3035);
    let mut key = [0u8; 32];
    for c in key.chunks_exact_mut(8) {
        c.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let longest = SIZES.iter().chain(CHECK_ONLY).copied().max().unwrap_or(0);
    let data: Vec<u8> = (0..longest.div_ceil(8))
        .flat_map(|_| rng.next_u64().to_le_bytes())
        .take(longest)
        .collect();

    // Columns: (name, ours, tag function); backends the CPU lacks are left
    // out.
    let best_name = Poly1305::new(&key).backend_name();
    let mut columns: Vec<Column> = vec![(
        format!("fieldwork best ({best_name})"),
        true,
        Box::new(best),
    )];
    for &(name, make) in BACKENDS {
        if make(&key).is_some() {
            let f = ours(make);
            columns.push((
                format!("fieldwork ({name})"),
                true,
                Box::new(move |k, m| f(k, m).expect("backend present (checked)")),
            ));
        }
    }
    let peer_fn: TagFn = peer;
    columns.push((
        concat!("RustCrypto poly1305 ", env!("PEER_VERSION_POLY1305")).into(),
        false,
        Box::new(peer_fn),
    ));

    for (name, _, f) in &columns {
        for n in SIZES.iter().chain(CHECK_ONLY).copied() {
            let want = fieldwork::poly1305::tag(&key, &data[..n]);
            let got = f(&key, &data[..n]);
            if got != want {
                return Err(format!(
                    "{name} disagrees with fieldwork's tag at {n} bytes: {} instead of {}",
                    hexed(&got),
                    hexed(&want)
                ));
            }
        }
    }

    Ok(SIZES
        .iter()
        .map(|&n| Case {
            group: "poly1305",
            size: format!("{n} B"),
            bytes: Some(n as u64),
            impls: columns
                .iter()
                .map(|(name, is_ours, _)| Impl {
                    name: name.clone(),
                    ours: *is_ours,
                    routine: routine(name, key, data[..n].to_vec()),
                })
                .collect(),
            heavy: false,
            per_second: None,
        })
        .collect())
}

/// `n` independent MACs of `message` under `key` by the column `name`.
fn routine(name: &str, key: [u8; 32], message: Vec<u8>) -> Routine<'static> {
    if name.starts_with("RustCrypto") {
        return Box::new(move |n| {
            for _ in 0..n {
                black_box(peer(black_box(&key), black_box(&message)));
            }
        });
    }
    if name.starts_with("fieldwork best") {
        return Box::new(move |n| {
            for _ in 0..n {
                black_box(best(black_box(&key), black_box(&message)));
            }
        });
    }
    let make = BACKENDS
        .iter()
        .find(|(b, _)| name == format!("fieldwork ({b})"))
        .map(|&(_, make)| make)
        .unwrap_or(|_| None);
    Box::new(move |n| {
        for _ in 0..n {
            if let Some(mut p) = make(black_box(&key)) {
                p.update(black_box(&message));
                black_box(p.finalize());
            }
        }
    })
}
