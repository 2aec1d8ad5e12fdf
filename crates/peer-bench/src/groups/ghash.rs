//! `ghash`: GHASH (NIST SP 800-38D) and POLYVAL (RFC 8452) over messages of
//! 16 B to 64 KiB, fieldwork (`fieldwork::ghash`) against RustCrypto's
//! `ghash` and `polyval` crates and, with `system-peers`, OpenSSL's GMAC;
//! and fieldwork's own GHASH kernels along the algorithm progression of
//! the Intel white paper. The group makes three tables, `ghash`,
//! `polyval` and `ghash_progression`; `--filter ghash` selects all three,
//! `--filter polyval` the second, `--filter ghash_progression` the third.
//!
//! # The `ghash_progression` table
//!
//! S. Gueron and M. E. Kounavis, *Intel Carry-Less Multiplication
//! Instruction and its Usage for Computing the GCM Mode* (Intel white paper
//! 323640 rev. 2.02) goes from one block per reduction with a schoolbook
//! product and reduction by shifts to Karatsuba products and aggregated
//! reduction over several blocks with precomputed powers of H. Each step is
//! a [`fieldwork::ghash::reproduce::Algorithm`], run by `ghash_with(algorithm, key,
//! message)`: one whole keyed GHASH per call, key setup included (the
//! aggregated kernels compute the N powers of H they use, about N
//! multiplications, on every call; so does `fieldwork best`, whose
//! `GHash::new` computes its powers on first need), on messages of 1 KiB
//! and 16 KiB. Calls are independent (same key and message each call,
//! hidden from the optimiser). Columns: `fieldwork best (<backend>)` first
//! (the reference: every ratio is that kernel's time ÷ best's), then each
//! kernel this CPU has, in the order of [`fieldwork::ghash::reproduce::Algorithm::ALL`];
//! kernels the CPU lacks (the ymm and zmm ones without VPCLMULQDQ, or under
//! `FIELDWORK_MAX_ISA`) are left out. The text table lists one row per
//! kernel and size; `--markdown` pivots to one row per size and a column
//! per kernel, as every table of this tool. Before timing, every kernel is
//! checked against fieldwork's `ghash` on RFC 8452 appendix A's vector and
//! on a random key and message of every timed and checked length.
//!
//! # Rows
//!
//! - `N B` (N = 16, 64, 256, 1024, 1420, 2048, 4096, 8192, 16384, 65536): the whole
//!   keyed hash of one N-byte message, key setup included: `new(key)`,
//!   `update(message)`, `finalize()` (ours computes key powers when a
//!   message first needs them, so how much key setup a row pays depends on
//!   its length). 1420 bytes is 88 blocks and 12 bytes,
//!   so that row also pays the zero-padding of a partial last block. Calls
//!   are independent (the same key and message each call, hidden from the
//!   optimiser).
//! - `16384 B, key prepared`: `update` + `finalize` alone, on a clone of a
//!   state keyed once outside the timed region, so the key setup (the
//!   powers of H: ours up to 32, computed on first need; RustCrypto's 4, in
//!   `new`) is separated from the throughput. Because ours computes its
//!   powers when a message first needs them, a freshly keyed state holds
//!   none yet; so every prepared state, ours and the peers', first absorbs
//!   [`WARM_UP`] zero bytes, which leaves the hash unchanged (a leading zero
//!   block keeps the accumulator at zero: `dot(0 ⊕ 0, H) = 0`) and makes
//!   ours compute all its powers. The clone is in the figure: a copy of the
//!   state (ours about 570 bytes, zeroized again on drop; RustCrypto's
//!   about 150, not zeroized without its `zeroize` feature) — tens of
//!   cycles against thousands.
//!
//! Each cell shows cycles per byte and cycles per call.
//!
//! # Implementations
//!
//! - `fieldwork best (<backend>)`: `GHash::new` / `Polyval::new`, which
//!   choose the fastest backend (named from `backend_name()`); the reference
//!   for the ratios.
//! - `fieldwork (vpclmulqdq)`, `fieldwork (vpclmulqdq-ymm)`,
//!   `fieldwork (pclmulqdq)`, `fieldwork (portable)`: each backend by
//!   its name, `fieldwork::hazmat::Backends::with_backend` (the zmm column
//!   only where the best is the split kernel, i.e. AMD with AVX-512; the
//!   ymm column only where the CPU has VPCLMULQDQ and the best kernel is
//!   another; the xmm one only where it has PCLMULQDQ). `with_backend` is
//!   `#[inline]`, as `new` is, and called with a constant name, so its
//!   match on the name folds away: before, moving the `Option` of an
//!   out-of-line constructor cost these columns about 35 ticks a call.
//! - `RustCrypto ghash` / `RustCrypto polyval`: `KeyInit::new`,
//!   `update_padded(message)` (whole blocks, then the tail zero-padded to a
//!   block, as our `finalize` pads), `finalize()`. RustCrypto's `ghash` is a
//!   wrapper over its `polyval` (byte-reversed blocks and `mulX(H)`, as in
//!   RFC 8452 appendix A, which ours does too); `polyval` picks at run time
//!   between PCLMULQDQ (with AVX) code that reduces once per 4 blocks and a
//!   portable fallback.
//! - OpenSSL GMAC (`system-peers`, GHASH table only): `EVP_MAC` "GMAC"
//!   with AES-128-GCM and a 96-bit IV. It is not the same function: its tag
//!   is `GHASH_H(M ‖ pad ‖ len) ⊕ AES_K(J0)` with `H = AES_K(0)`, so each
//!   call also hashes the length block and encrypts one block, and the
//!   keyed rows also expand the AES key and compute H (`EVP_MAC_init` with
//!   the key and IV each call, on a context made once). Its prepared row
//!   restarts the keyed context (`EVP_MAC_init` with the IV only) instead of
//!   cloning it: that is how an OpenSSL user reuses a key. The figure is
//!   what GHASH costs through OpenSSL's generic interface, not its bare
//!   GHASH kernel.
//!
//! # Checks before timing
//!
//! fieldwork's one-shot `ghash` / `polyval` against RFC 8452 appendix A's
//! vector (the same H and two blocks, both functions); then every
//! implementation, through the same calls as its timed routine (keyed, and
//! from a prepared state cloned twice), against that one-shot function on a
//! random key and random data of every timed length and a few more (0, 1,
//! 15, 17, 100, 4097 bytes). OpenSSL's GMAC is checked against its
//! definition: our GHASH of the padded message and length block under
//! `H = AES_K(0)`, XORed with `AES_K(J0)`, the AES blocks from aws-lc-rs.
//! Any disagreement stops the run with the length and both results.

use super::{hex, hexed};
use crate::harness::{Case, Impl};
use crate::util::Rng;
use ::ghash::universal_hash::{KeyInit, UniversalHash};
use benchtime::Routine;
use fieldwork::hazmat::Backends;
use std::hint::black_box;

/// The timed message lengths in bytes.
const SIZES: &[usize] = &[16, 64, 256, 1024, 1420, 2048, 4096, 8192, 16384, 65536];
/// The length of the prepared-key row.
const PREPARED: usize = 16384;
/// Zero bytes a prepared state absorbs before it is cloned (see the module
/// doc): more blocks than the widest aggregated step (32), so every key
/// power a long message needs is computed.
const WARM_UP: [u8; 1024] = [0; 1024];
/// Lengths checked but not timed: empty, partial blocks, an odd long one.
const CHECK_ONLY: &[usize] = &[0, 1, 15, 17, 100, 4097];

/// RFC 8452 appendix A: the key H …
const RFC_H: [u8; 16] = hex("25629347589242761d31f826ba4b757b");
/// … and the message X₁ ‖ X₂ …
const RFC_X: [u8; 32] = hex("4f4f95668c83dfb6401762bb2d01a262d1a24ddd2721d006bbe45f20d3c9f362");
/// … give POLYVAL(H, X₁, X₂) …
const RFC_POLYVAL: [u8; 16] = hex("f7a3b47b846119fae5b7866cf5e5b77e");
/// … and GHASH(H, X₁, X₂).
const RFC_GHASH: [u8; 16] = hex("bd9b3997046731fb96251b91f9c99d7a");

/// A keyed hash as the timed routines use it: one message, then the tag.
trait KeyedHash: Clone + 'static {
    /// Absorbs the whole message (a partial last block zero-padded).
    fn absorb(&mut self, message: &[u8]);
    /// The 16-byte result.
    fn tag(self) -> [u8; 16];
}

impl KeyedHash for fieldwork::ghash::GHash {
    #[inline(always)]
    fn absorb(&mut self, message: &[u8]) {
        self.update(message);
    }
    #[inline(always)]
    fn tag(self) -> [u8; 16] {
        self.finalize()
    }
}

impl KeyedHash for fieldwork::ghash::Polyval {
    #[inline(always)]
    fn absorb(&mut self, message: &[u8]) {
        self.update(message);
    }
    #[inline(always)]
    fn tag(self) -> [u8; 16] {
        self.finalize()
    }
}

impl KeyedHash for ::ghash::GHash {
    #[inline(always)]
    fn absorb(&mut self, message: &[u8]) {
        self.update_padded(message);
    }
    #[inline(always)]
    fn tag(self) -> [u8; 16] {
        self.finalize().into()
    }
}

impl KeyedHash for ::polyval::Polyval {
    #[inline(always)]
    fn absorb(&mut self, message: &[u8]) {
        self.update_padded(message);
    }
    #[inline(always)]
    fn tag(self) -> [u8; 16] {
        self.finalize().into()
    }
}

/// One of the two hashes: fieldwork's type and its constructors, and the
/// RustCrypto peer.
trait Algorithm: KeyedHash + for<'a> Backends<Input<'a> = &'a [u8; 16]> {
    /// The table: `ghash` or `polyval`.
    const GROUP: &'static str;
    /// RFC 8452 appendix A's result for this function.
    const KNOWN_ANSWER: [u8; 16];
    /// The RustCrypto type.
    type Peer: KeyedHash;
    /// The RustCrypto column's name, with the crate version.
    const PEER_NAME: &'static str;
    /// fieldwork's one-shot function (the check's reference).
    fn one_shot(h: &[u8; 16], message: &[u8]) -> [u8; 16];
    fn new_best(h: &[u8; 16]) -> Self;
    fn backend_name(&self) -> &'static str;
    fn new_peer(h: &[u8; 16]) -> Self::Peer;
    /// Columns from system libraries (each already checked), if any.
    fn system_peers(_inputs: &Inputs) -> Result<Vec<Vec<Impl>>, String> {
        Ok(Vec::new())
    }
}

impl Algorithm for fieldwork::ghash::GHash {
    const GROUP: &'static str = "ghash";
    const KNOWN_ANSWER: [u8; 16] = RFC_GHASH;
    type Peer = ::ghash::GHash;
    const PEER_NAME: &'static str = concat!("RustCrypto ghash ", env!("PEER_VERSION_GHASH"));
    fn one_shot(h: &[u8; 16], message: &[u8]) -> [u8; 16] {
        fieldwork::ghash::ghash(h, message)
    }
    fn new_best(h: &[u8; 16]) -> Self {
        Self::new(h)
    }
    fn backend_name(&self) -> &'static str {
        Self::backend_name(self)
    }
    #[inline(always)]
    fn new_peer(h: &[u8; 16]) -> ::ghash::GHash {
        <::ghash::GHash as KeyInit>::new(&(*h).into())
    }
    #[cfg(feature = "system-peers")]
    fn system_peers(inputs: &Inputs) -> Result<Vec<Vec<Impl>>, String> {
        Ok(vec![openssl_gmac(inputs)?])
    }
}

impl Algorithm for fieldwork::ghash::Polyval {
    const GROUP: &'static str = "polyval";
    const KNOWN_ANSWER: [u8; 16] = RFC_POLYVAL;
    type Peer = ::polyval::Polyval;
    const PEER_NAME: &'static str = concat!("RustCrypto polyval ", env!("PEER_VERSION_POLYVAL"));
    fn one_shot(h: &[u8; 16], message: &[u8]) -> [u8; 16] {
        fieldwork::ghash::polyval(h, message)
    }
    fn new_best(h: &[u8; 16]) -> Self {
        Self::new(h)
    }
    fn backend_name(&self) -> &'static str {
        Self::backend_name(self)
    }
    #[inline(always)]
    fn new_peer(h: &[u8; 16]) -> ::polyval::Polyval {
        <::polyval::Polyval as KeyInit>::new(&(*h).into())
    }
}

/// A random key and message shared by every implementation of a table.
struct Inputs {
    key: [u8; 16],
    /// The longest message; shorter ones are its prefixes.
    data: Vec<u8>,
}

impl Inputs {
    fn new(seed: u64) -> Inputs {
        let mut rng = Rng(seed);
        let mut key = [0u8; 16];
        for c in key.chunks_exact_mut(8) {
            c.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        let longest = SIZES.iter().chain(CHECK_ONLY).copied().max().unwrap_or(0);
        let data = (0..longest.div_ceil(8))
            .flat_map(|_| rng.next_u64().to_le_bytes())
            .take(longest)
            .collect();
        Inputs { key, data }
    }

    /// Every checked length: the timed ones, then the others.
    fn check_lengths() -> impl Iterator<Item = usize> {
        SIZES.iter().chain(CHECK_ONLY).copied()
    }
}

/// The cases: for each of GHASH and POLYVAL, a case per size and the
/// prepared-key case, after every check; then the progression table.
pub fn cases() -> Result<Vec<Case>, String> {
    let mut out = table::<fieldwork::ghash::GHash>(0x6748_6173_6800)?;
    out.extend(table::<fieldwork::ghash::Polyval>(0x706f_6c79_7661_6c00)?);
    out.extend(progression_cases()?);
    Ok(out)
}

/// The `ghash_progression` cases alone (also the GHASH table of
/// `--reproduce gueron-kounavis`).
pub(crate) fn progression_cases() -> Result<Vec<Case>, String> {
    progression(0x7072_6f67_7265_7373)
}

/// The message lengths of the progression table.
const PROGRESSION_SIZES: &[usize] = &[1024, 16384];

/// The `ghash_progression` cases (see the module doc): a case per size of
/// [`PROGRESSION_SIZES`], a column per kernel this CPU has, best first.
fn progression(seed: u64) -> Result<Vec<Case>, String> {
    use fieldwork::ghash::reproduce::{Algorithm, ghash_with};

    let inputs = Inputs::new(seed);
    let mut algorithms = vec![Algorithm::Best];
    algorithms.extend(
        Algorithm::ALL
            .into_iter()
            .filter(|&a| a != Algorithm::Best && a.is_supported()),
    );
    for &algorithm in &algorithms {
        let got = ghash_with(algorithm, &RFC_H, &RFC_X).map_err(|e| e.to_string())?;
        if got != RFC_GHASH {
            return Err(format!(
                "ghash_with({algorithm}) disagrees with RFC 8452 appendix A: {}",
                hexed(&got)
            ));
        }
        for n in PROGRESSION_SIZES
            .iter()
            .copied()
            .chain(Inputs::check_lengths())
        {
            let message = &inputs.data[..n];
            let want = fieldwork::ghash::ghash(&inputs.key, message);
            let got = ghash_with(algorithm, &inputs.key, message).map_err(|e| e.to_string())?;
            if got != want {
                return Err(format!(
                    "ghash_with({algorithm}) disagrees with ghash at {n} bytes: {} instead of {}",
                    hexed(&got),
                    hexed(&want)
                ));
            }
        }
    }
    let best = fieldwork::ghash::GHash::new(&inputs.key).backend_name();
    Ok(PROGRESSION_SIZES
        .iter()
        .map(|&n| Case {
            group: "ghash_progression",
            size: format!("{n} B"),
            bytes: Some(n as u64),
            impls: algorithms
                .iter()
                .map(|&algorithm| Impl {
                    name: if algorithm == Algorithm::Best {
                        format!("{algorithm} ({best})")
                    } else {
                        algorithm.name().to_string()
                    },
                    ours: true,
                    routine: progression_routine(algorithm, inputs.key, inputs.data[..n].to_vec()),
                })
                .collect(),
            heavy: false,
            per_second: None,
        })
        .collect())
}

/// `n` one-shot `ghash_with(algorithm, key, message)` calls.
fn progression_routine(
    algorithm: fieldwork::ghash::reproduce::Algorithm,
    key: [u8; 16],
    message: Vec<u8>,
) -> Routine<'static> {
    Box::new(move |n| {
        for _ in 0..n {
            let tag = fieldwork::ghash::reproduce::ghash_with(
                algorithm,
                black_box(&key),
                black_box(&message),
            )
            .expect("a supported kernel (checked before timing)");
            black_box(tag);
        }
    })
}

/// One table's cases. Each column is checked and built whole (a routine
/// per size, then the prepared one), then the columns are dealt out to the
/// cases.
fn table<A: Algorithm>(seed: u64) -> Result<Vec<Case>, String> {
    let got = A::one_shot(&RFC_H, &RFC_X);
    if got != A::KNOWN_ANSWER {
        return Err(format!(
            "fieldwork {} disagrees with RFC 8452 appendix A: {}",
            A::GROUP,
            hexed(&got)
        ));
    }
    let inputs = Inputs::new(seed);
    let best = A::new_best(&inputs.key).backend_name();
    let mut columns = vec![column::<A, _, _>(
        format!("fieldwork best ({best})"),
        true,
        A::new_best,
        &inputs,
    )?];
    // The zmm kernel alone where the best is the split one (AMD): what
    // the split gains below 32 blocks.
    if best == "vpclmulqdq-split" {
        columns.extend(backend_column::<A>("vpclmulqdq", &inputs)?);
    }
    // The ymm kernel as a column of its own where it is not the best (an
    // AVX-512 CPU): the avx2 tier's kernel, measured on this core.
    if best != "vpclmulqdq-ymm" {
        columns.extend(backend_column::<A>("vpclmulqdq-ymm", &inputs)?);
    }
    columns.extend(backend_column::<A>("pclmulqdq", &inputs)?);
    // AArch64: PMULL without EOR3 where the best has it.
    if best == "pmull-eor3" {
        columns.extend(backend_column::<A>("pmull", &inputs)?);
    }
    columns.extend(backend_column::<A>("portable", &inputs)?);
    columns.push(column::<A, _, _>(
        A::PEER_NAME.into(),
        false,
        A::new_peer,
        &inputs,
    )?);
    columns.extend(A::system_peers(&inputs)?);

    let mut per_case: Vec<Vec<Impl>> = (0..=SIZES.len()).map(|_| Vec::new()).collect();
    for col in columns {
        for (impls, imp) in per_case.iter_mut().zip(col) {
            impls.push(imp);
        }
    }
    Ok(per_case
        .into_iter()
        .enumerate()
        .map(|(i, impls)| {
            let (size, bytes) = match SIZES.get(i) {
                Some(&n) => (format!("{n} B"), n),
                None => (format!("{PREPARED} B, key prepared"), PREPARED),
            };
            Case {
                group: A::GROUP,
                size,
                bytes: Some(bytes as u64),
                impls,
                heavy: false,
                per_second: None,
            }
        })
        .collect())
}

/// The column of the backend `name` (`fieldwork::hazmat`), if this CPU
/// runs it. The name is a constant: `with_backend` is `#[inline]`, so its
/// match on the name folds away in the timed loop.
fn backend_column<A: Algorithm>(
    name: &'static str,
    inputs: &Inputs,
) -> Result<Option<Vec<Impl>>, String> {
    macro_rules! column_of {
        ($($name:literal),*) => {
            match name {
                $($name => {
                    if A::with_backend($name, &inputs.key).is_none() {
                        return Ok(None);
                    }
                    column::<A, _, _>(
                        format!("fieldwork ({})", $name),
                        true,
                        |h| {
                            A::with_backend($name, h)
                                .expect("the backend runs here (checked when the column was made)")
                        },
                        inputs,
                    )
                    .map(Some)
                })*
                _ => Err(format!("no ghash column for backend {name}")),
            }
        };
    }
    column_of!(
        "vpclmulqdq",
        "vpclmulqdq-ymm",
        "pclmulqdq",
        "pmull",
        "portable"
    )
}

/// Checks one implementation (keyed from `new`) against fieldwork's
/// one-shot function and RFC 8452, then returns its routines: one per size
/// of [`SIZES`], then the prepared-key one.
fn column<A, H, F>(name: String, ours: bool, new: F, inputs: &Inputs) -> Result<Vec<Impl>, String>
where
    A: Algorithm,
    H: KeyedHash,
    F: Fn(&[u8; 16]) -> H + Copy + 'static,
{
    let run = |key: &[u8; 16], message: &[u8]| {
        let mut h = new(key);
        h.absorb(message);
        h.tag()
    };
    let got = run(&RFC_H, &RFC_X);
    if got != A::KNOWN_ANSWER {
        return Err(format!(
            "{name} ({}) disagrees with RFC 8452 appendix A: {}",
            A::GROUP,
            hexed(&got)
        ));
    }
    let mut prepared = new(&inputs.key);
    prepared.absorb(&WARM_UP);
    for n in Inputs::check_lengths() {
        let message = &inputs.data[..n];
        let want = A::one_shot(&inputs.key, message);
        let keyed = run(&inputs.key, message);
        let from_prepared = [0, 1].map(|_| {
            let mut h = prepared.clone();
            h.absorb(message);
            h.tag()
        });
        for (how, got) in [
            ("keyed", keyed),
            ("prepared", from_prepared[0]),
            ("prepared, second clone", from_prepared[1]),
        ] {
            if got != want {
                return Err(format!(
                    "{name} ({}, {how}) disagrees with fieldwork at {n} bytes: {} instead of {}",
                    A::GROUP,
                    hexed(&got),
                    hexed(&want)
                ));
            }
        }
    }

    let mut impls: Vec<Impl> = SIZES
        .iter()
        .map(|&n| Impl {
            name: name.clone(),
            ours,
            routine: keyed_routine(new, inputs.key, inputs.data[..n].to_vec()),
        })
        .collect();
    impls.push(Impl {
        name,
        ours,
        routine: prepared_routine(prepared, inputs.data[..PREPARED].to_vec()),
    });
    Ok(impls)
}

/// `n` whole keyed hashes of `message`: `new`, `absorb`, `tag`.
fn keyed_routine<H, F>(new: F, key: [u8; 16], message: Vec<u8>) -> Routine<'static>
where
    H: KeyedHash,
    F: Fn(&[u8; 16]) -> H + 'static,
{
    Box::new(move |n| {
        for _ in 0..n {
            let mut h = new(black_box(&key));
            h.absorb(black_box(&message));
            black_box(h.tag());
        }
    })
}

/// `n` hashes of `message` from clones of a keyed, warmed-up state.
fn prepared_routine<H: KeyedHash>(prepared: H, message: Vec<u8>) -> Routine<'static> {
    Box::new(move |n| {
        for _ in 0..n {
            let mut h = black_box(&prepared).clone();
            h.absorb(black_box(&message));
            black_box(h.tag());
        }
    })
}

/// OpenSSL's GMAC column (see the module doc), checked against its
/// definition over our GHASH.
#[cfg(feature = "system-peers")]
fn openssl_gmac(inputs: &Inputs) -> Result<Vec<Impl>, String> {
    use crate::openssl::{Gmac, version};
    use aws_lc_rs::cipher::{AES_128, EncryptingKey, UnboundCipherKey};

    let name = format!("{} GMAC (system)", version());
    let key = inputs.key;
    let iv: [u8; 12] = hex("cafebabefacedbaddecaf888");
    // H = AES_K(0) and AES_K(J0), J0 = IV ‖ 0³¹1, from aws-lc-rs.
    let mut blocks = [0u8; 32];
    blocks[16..28].copy_from_slice(&iv);
    blocks[31] = 1;
    let aes = UnboundCipherKey::new(&AES_128, &key)
        .and_then(EncryptingKey::ecb)
        .map_err(|e| format!("aws-lc-rs AES-128 key: {e}"))?;
    aes.encrypt(&mut blocks)
        .map_err(|e| format!("aws-lc-rs AES-128-ECB: {e}"))?;
    let (h, mask) = blocks.split_at(16);
    let h: [u8; 16] = h.try_into().map_err(|_| "AES block length")?;
    let expected = |message: &[u8]| {
        let mut padded = message.to_vec();
        padded.resize(message.len().div_ceil(16) * 16, 0);
        padded.extend_from_slice(&(8 * message.len() as u64).to_be_bytes());
        padded.extend_from_slice(&0u64.to_be_bytes());
        let mut tag = fieldwork::ghash::ghash(&h, &padded);
        for (t, m) in tag.iter_mut().zip(mask) {
            *t ^= m;
        }
        tag
    };

    let mut gmac = Gmac::new(&iv)?;
    for n in Inputs::check_lengths() {
        let message = &inputs.data[..n];
        let want = expected(message);
        gmac.init(&key)?;
        gmac.update(message)?;
        let keyed = gmac.finalize()?;
        gmac.restart()?;
        gmac.update(message)?;
        let restarted = gmac.finalize()?;
        for (how, got) in [("keyed", keyed), ("restarted", restarted)] {
            if got != want {
                return Err(format!(
                    "{name} ({how}) disagrees with GHASH ⊕ AES_K(J0) at {n} bytes: {} instead of {}",
                    hexed(&got),
                    hexed(&want)
                ));
            }
        }
    }

    let mut impls: Vec<Impl> = SIZES
        .iter()
        .map(|&n| -> Result<Impl, String> {
            let mut gmac = Gmac::new(&iv)?;
            let message = inputs.data[..n].to_vec();
            Ok(Impl {
                name: name.clone(),
                ours: false,
                routine: Box::new(move |iters| {
                    for _ in 0..iters {
                        gmac.init(black_box(&key))
                            .and_then(|()| gmac.update(black_box(&message)))
                            .and_then(|()| gmac.finalize())
                            .map(black_box)
                            .expect("OpenSSL GMAC (checked before timing)");
                    }
                }),
            })
        })
        .collect::<Result<_, _>>()?;
    let mut prepared = Gmac::new(&iv)?;
    prepared.init(&key)?;
    let message = inputs.data[..PREPARED].to_vec();
    impls.push(Impl {
        name,
        ours: false,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                prepared
                    .restart()
                    .and_then(|()| prepared.update(black_box(&message)))
                    .and_then(|()| prepared.finalize())
                    .map(black_box)
                    .expect("OpenSSL GMAC (checked before timing)");
            }
        }),
    });
    Ok(impls)
}
