//! GHASH and POLYVAL: published vectors (sources in tests/data/ghash_vectors.txt)
//! on every backend, every backend (`fieldwork::hazmat`) against the
//! portable one through one generic function and the shared differential
//! harness (lengths, streaming splits, the calls that move a key between
//! kernels), the white paper's kernels (`ghash::reproduce::ghash_with`,
//! with the feature `reproduce`), and the `universal-hash` traits (against
//! RustCrypto's `ghash` and `polyval` crates through the same generic
//! code).

use super::common;

#[cfg(feature = "reproduce")]
use fieldwork::ghash::reproduce::{Algorithm, ghash_with};
use fieldwork::ghash::universal_hash::{
    KeyInit, Reset, UhfBackend, UhfClosure, UniversalHash, array::Array, common::BlockSizeUser,
    consts::U16,
};
use fieldwork::ghash::{GHash, Polyval, ghash, polyval};
use fieldwork::hazmat::{self, Backends};
use std::fmt;

fn unhex(s: &str) -> Vec<u8> {
    if s == "-" {
        return Vec::new();
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

fn key(s: &str) -> [u8; 16] {
    unhex(s).try_into().unwrap()
}

#[test]
fn published_vectors() {
    let text = include_str!("data/ghash_vectors.txt");
    let mut n = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f[0] == "gfmul128" {
            // One GHASH block: (0 ⊕ a)·b.
            let (h, data, want) = gfmul128_as_ghash(&f);
            assert_eq!(ghash(&h, &data), want, "{line}");
            on_every_backend::<GHash>(&h, &data, &want, line);
            n += 1;
            continue;
        }
        let (h, data, want) = (key(f[1]), unhex(f[2]), unhex(f[3]));
        let got = match f[0] {
            "polyval" => polyval(&h, &data),
            "ghash" => ghash(&h, &data),
            k => panic!("unknown kind {k}"),
        };
        assert_eq!(got.to_vec(), want, "{line}");
        match f[0] {
            "polyval" => on_every_backend::<Polyval>(&h, &data, &want, line),
            _ => on_every_backend::<GHash>(&h, &data, &want, line),
        }
        n += 1;
    }
    assert_eq!(n, 7);
}

/// `T`'s hash of `data` under `h` is `want` on every backend this CPU runs.
fn on_every_backend<T: Keyed>(h: &[u8; 16], data: &[u8], want: &[u8], line: &str) {
    let all = hazmat::all::<T>(h);
    assert!(all.iter().any(|b| b.backend() == "portable"));
    for mut b in all {
        let name = b.backend();
        b.absorb(data);
        assert_eq!(b.tag().to_vec(), want, "{name}: {line}");
    }
}

/// A `gfmul128 a b product` line (natural bit order: bit i of the integer
/// is the coefficient of x^i) as a one-block GHASH: key b, block a, and the
/// expected tag, in GCM's byte layout (the integer bit-reversed, then
/// big-endian).
fn gfmul128_as_ghash(f: &[&str]) -> ([u8; 16], Vec<u8>, [u8; 16]) {
    let gcm = |s: &str| common::hex_u128(s).reverse_bits().to_be_bytes();
    (gcm(f[2]), gcm(f[1]).to_vec(), gcm(f[3]))
}

fn random_bytes(rng: &mut common::Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

/// GHASH and POLYVAL alike, for the generic tests: a keyed type with
/// every backend by name.
trait Keyed: for<'a> Backends<Input<'a> = &'a [u8; 16]> {
    /// The best backend (`new`).
    fn best(h: &[u8; 16]) -> Self;
    fn absorb(&mut self, data: &[u8]);
    fn tag(self) -> [u8; 16];
    /// The one-shot function.
    fn one_shot(h: &[u8; 16], data: &[u8]) -> [u8; 16];
}

impl Keyed for Polyval {
    fn best(h: &[u8; 16]) -> Self {
        Polyval::new(h)
    }
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }
    fn tag(self) -> [u8; 16] {
        self.finalize()
    }
    fn one_shot(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
        polyval(h, data)
    }
}

impl Keyed for GHash {
    fn best(h: &[u8; 16]) -> Self {
        GHash::new(h)
    }
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }
    fn tag(self) -> [u8; 16] {
        self.finalize()
    }
    fn one_shot(h: &[u8; 16], data: &[u8]) -> [u8; 16] {
        ghash(h, data)
    }
}

/// A key, a message, and the lengths of the `update` calls that take it
/// (the rest in a last call).
struct Stream {
    h: [u8; 16],
    data: Vec<u8>,
    calls: Vec<usize>,
}

impl Stream {
    fn new(rng: &mut common::Rng, len: usize, calls: &[usize]) -> Stream {
        Stream {
            h: random_bytes(rng, 16).try_into().unwrap(),
            data: random_bytes(rng, len),
            calls: calls.to_vec(),
        }
    }

    /// The hash of the stream on `hash`.
    fn run<T: Keyed>(&self, mut hash: T) -> [u8; 16] {
        let mut rest = &self.data[..];
        for &k in &self.calls {
            let (now, later) = rest.split_at(k.min(rest.len()));
            hash.absorb(now);
            rest = later;
        }
        hash.absorb(rest);
        hash.tag()
    }
}

/// What a failure prints: the key, the length and the calls, not the data.
impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "key {:02x?}, {} bytes in calls of {:?} and the rest",
            self.h,
            self.data.len(),
            self.calls
        )
    }
}

/// Every backend of `T` (each vendor's choices included: they run on any
/// CPU with the instructions), the best one and the one-shot function
/// against the portable backend on `streams`, through the shared
/// differential harness. Backends this CPU (or `FIELDWORK_MAX_ISA`) lacks
/// are reported and skipped.
fn every_backend_agrees<T: Keyed>(what: &str, streams: &[Stream]) {
    let mut candidates: Vec<common::Candidate<'_, &Stream, [u8; 16]>> = T::NAMES
        .iter()
        .filter(|&&name| name != "portable")
        .map(|&name| {
            common::Candidate::new(
                name,
                T::with_backend(name, &[0; 16])
                    .map(|_| move |s: &&Stream| s.run(T::with_backend(name, &s.h).unwrap())),
            )
        })
        .collect();
    candidates.push(common::Candidate::new(
        "best",
        Some(|s: &&Stream| s.run(T::best(&s.h))),
    ));
    candidates.push(common::Candidate::new(
        "one-shot",
        Some(|s: &&Stream| T::one_shot(&s.h, &s.data)),
    ));
    let live = candidates.iter().filter(|c| c.f.is_some()).count();
    let compared = common::differential(
        what,
        |s: &&Stream| s.run(T::with_backend("portable", &s.h).unwrap()),
        &candidates,
        streams,
    );
    assert_eq!(compared, live * streams.len());
}

/// Every backend equals portable at every length to 1100 bytes (all
/// aggregation group sizes and tails) and at a few long ones, in one call.
#[test]
fn backends_agree_with_portable() {
    let mut rng = common::Rng::new(0x6ba5);
    let mut lens: Vec<usize> = (0..=1100).collect();
    // Around the split kernels' first zmm call on a fresh key (128 blocks)
    // and the Intel ymm kernel's first ymm call on a fresh key (192).
    lens.extend([2032, 2047, 2048, 2063, 3056, 3071, 3072, 3087]);
    lens.extend([4096, 4096 + 16 * 31, 65536 + 48]);
    let streams: Vec<Stream> = lens
        .iter()
        .map(|&n| Stream::new(&mut rng, n, &[]))
        .collect();
    every_backend_agrees::<Polyval>("polyval", &streams);
    every_backend_agrees::<GHash>("ghash", &streams);
}

/// Every backend, those that change kernels between calls among them (a
/// zmm key's narrower kernels, a ymm key's xmm one): short calls (ymm,
/// whose table holds 16 powers, or xmm) before and after long ones (zmm,
/// 32), in both hashes, at lengths around the 16- and 32-block groups,
/// around the 128 blocks from which a fresh key's call takes the zmm
/// kernel and the 192 from which Intel's ymm kernel makes its 16 powers.
#[test]
fn split_kernel_streams_across_its_kernels() {
    let mut rng = common::Rng::new(0x5b11);
    let cuts: &[&[usize]] = &[
        &[64, 4096, 100],
        &[16 * 20, 16 * 33, 16 * 31, 16 * 64 + 5],
        &[3, 16 * 16, 16 * 47, 16 * 2],
        &[16 * 40, 16 * 17, 16 * 32],
        &[16 * 31, 16 * 32, 16 * 15, 16 * 48 + 15],
        // Fresh key: 127 blocks stay on ymm (or xmm), then 128 make the 32
        // powers, then 40 run on zmm with them.
        &[16 * 127, 16 * 128, 16 * 40, 16 * 100 + 9],
        &[16 * 64, 16 * 127 + 3, 16 * 33],
        // Intel's ymm kernel: 191 blocks on xmm, then 192 make 16 powers.
        &[16 * 191, 16 * 192, 16 * 40, 16 * 33 + 1],
        &[16 * 40 + 7, 16 * 191, 16 * 31],
    ];
    streams_agree(&mut rng, cuts);
}

/// A fresh key's short calls (which the PMULL backends run by Horner's
/// rule on `H`, no powers made, up to their tuned crossover) one after
/// another, around the crossover (16 blocks today), then a long call that
/// makes the powers and short calls after it, in both hashes; a partial
/// block carried between calls among them.
#[test]
fn fresh_key_short_calls_then_long() {
    let mut rng = common::Rng::new(0xf7e5);
    let cuts: &[&[usize]] = &[
        &[16, 16, 16, 16 * 3, 16 * 16, 16 * 17, 16],
        &[16 * 15, 16 * 16, 16 * 16, 16 * 8, 16 * 9, 48],
        &[16 * 17, 16, 16 * 16, 16 * 2],
        &[5, 16 * 4 + 11, 16 * 16 + 3, 16 * 40 + 1, 16 * 3, 16 * 16],
        &[16 * 7, 16 * 8, 16 * 9, 16 * 100, 16 * 12],
        &[1, 2, 3, 16 * 16 - 6, 16 * 33, 16 * 16],
    ];
    streams_agree(&mut rng, cuts);
}

/// Streams of random data cut into the calls of `cuts`: every backend of
/// both hashes agrees on each.
fn streams_agree(rng: &mut common::Rng, cuts: &[&[usize]]) {
    let streams: Vec<Stream> = cuts
        .iter()
        .map(|calls| Stream::new(rng, calls.iter().sum(), calls))
        .collect();
    every_backend_agrees::<Polyval>("polyval", &streams);
    every_backend_agrees::<GHash>("ghash", &streams);
}

/// Any split of the input into updates gives the same hash.
#[test]
fn streaming_splits() {
    let mut rng = common::Rng::new(0x5717);
    let streams: Vec<Stream> = (0..200)
        .map(|_| {
            let n = (rng.next_u64() % 2000) as usize;
            let mut calls = Vec::new();
            let mut left = n;
            while left > 0 {
                let k = ((rng.next_u64() % 700) as usize).min(left);
                calls.push(k);
                left -= k;
            }
            Stream::new(&mut rng, n, &calls)
        })
        .collect();
    every_backend_agrees::<Polyval>("polyval", &streams);
    every_backend_agrees::<GHash>("ghash", &streams);
}

/// The names: distinct, the portable one always runs, each usable name
/// gives a key that reports it, an unknown name gives none, and the best
/// backend is one of them.
#[test]
fn backends_by_name() {
    fn check<T: Keyed>() {
        let h = [9; 16];
        let mut names = T::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), T::NAMES.len());
        let usable = hazmat::usable::<T>(&h);
        assert!(usable.contains(&"portable"));
        for name in &usable {
            assert_eq!(T::with_backend(name, &h).unwrap().backend(), *name);
        }
        assert!(T::with_backend("no-such-backend", &h).is_none());
        assert!(usable.contains(&T::best(&h).backend()));
    }
    check::<Polyval>();
    check::<GHash>();
}

/// A partial final block hashes as if zero-padded.
#[test]
fn partial_block_is_zero_padded() {
    let h = [0x3c; 16];
    let data = [0xa5u8; 37];
    let mut padded = data.to_vec();
    padded.resize(48, 0);
    assert_eq!(polyval(&h, &data), polyval(&h, &padded));
    assert_eq!(ghash(&h, &data), ghash(&h, &padded));
    assert_eq!(polyval(&h, &[]), [0; 16]);
}

/// The published GHASH vectors (tests/data/ghash_vectors.txt: the `ghash`
/// lines, and the white paper's GFMUL128 product as a one-block GHASH)
/// through every kernel of the white paper's progression this CPU has.
#[cfg(feature = "reproduce")]
#[test]
fn progression_kernels_match_published_vectors() {
    let mut checked = 0;
    for f in common::data_lines("ghash_vectors.txt") {
        let f: Vec<&str> = f.iter().map(String::as_str).collect();
        let (h, data, want) = match f[0] {
            "ghash" => (key(f[1]), unhex(f[2]), unhex(f[3])),
            "gfmul128" => {
                let (h, data, want) = gfmul128_as_ghash(&f);
                (h, data, want.to_vec())
            }
            _ => continue,
        };
        for algorithm in Algorithm::ALL {
            match ghash_with(algorithm, &h, &data) {
                Ok(got) => {
                    assert_eq!(got.to_vec(), want, "{algorithm}: {}", f.join(" "));
                    checked += 1;
                }
                Err(e) => assert!(!algorithm.is_supported(), "{e}"),
            }
        }
    }
    // At least `Best` on the four GHASH lines.
    assert!(checked >= 4, "{checked}");
}

/// A GHASH key and a message.
#[cfg(feature = "reproduce")]
type KeyAndData = ([u8; 16], Vec<u8>);

/// Every kernel of the progression against the portable GHASH, through the
/// shared differential harness: random keys, every length 0..=600 bytes
/// (all group sizes and tails up to 37 blocks, partial blocks), and 4 KiB +
/// 16 bytes (whole groups and a one-block tail for every group size).
/// Kernels the CPU lacks are skipped at run time.
#[cfg(feature = "reproduce")]
#[test]
fn progression_kernels_agree_with_portable() {
    let mut rng = common::Rng::new(0x9a9e7);
    let mut inputs: Vec<KeyAndData> = Vec::new();
    for n in (0..=600).chain([4096 + 16]) {
        let h: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
        inputs.push((h, random_bytes(&mut rng, n)));
    }
    // Edge keys: zero, one, all ones.
    for h in [[0u8; 16], 1u128.to_be_bytes(), [0xff; 16]] {
        inputs.push((h, random_bytes(&mut rng, 300)));
    }
    let candidates: Vec<common::Candidate<'_, KeyAndData, [u8; 16]>> = Algorithm::ALL
        .iter()
        .map(|&algorithm| {
            common::Candidate::new(
                algorithm.name(),
                algorithm
                    .is_supported()
                    .then_some(move |(h, data): &KeyAndData| {
                        match ghash_with(algorithm, h, data) {
                            Ok(tag) => tag,
                            Err(e) => panic!("supported but failed: {e}"),
                        }
                    }),
            )
        })
        .collect();
    let live = Algorithm::ALL.iter().filter(|a| a.is_supported()).count();
    let n_inputs = inputs.len();
    let compared = common::differential(
        "ghash_with",
        |(h, data): &KeyAndData| {
            let mut g = GHash::with_backend("portable", h).unwrap();
            g.update(data);
            g.finalize()
        },
        &candidates,
        inputs,
    );
    assert_eq!(compared, live * n_inputs);
}

/// `is_supported` says exactly when `ghash_with` succeeds; the error names
/// the kernel and what it needs.
#[cfg(feature = "reproduce")]
#[test]
fn progression_support_matches_results() {
    assert!(Algorithm::Best.is_supported());
    for algorithm in Algorithm::ALL {
        match ghash_with(algorithm, &[1; 16], b"x") {
            Ok(_) => assert!(algorithm.is_supported(), "{algorithm}"),
            Err(e) => {
                assert!(!algorithm.is_supported(), "{algorithm}");
                assert_eq!(e.algorithm(), algorithm);
                let msg = e.to_string();
                assert!(
                    msg.contains(algorithm.name()) && msg.contains("needs"),
                    "{msg}"
                );
                eprintln!("skipped: {msg}");
            }
        }
    }
    let mut names: Vec<&str> = Algorithm::ALL.iter().map(|a| a.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Algorithm::ALL.len(), "labels are distinct");
}

/// A 16-byte block as the traits' block type.
fn block(c: &[u8]) -> Array<u8, U16> {
    Array::try_from(c).unwrap()
}

/// The hash of `data` through the `universal-hash` traits only: `KeyInit`,
/// whole blocks by `update` (split at block `cut`, in two calls), the rest
/// by `update_padded`, `finalize`, and `verify` of the result (and its
/// rejection of a changed tag). The same code runs on fieldwork's types
/// and on RustCrypto's.
fn through_traits<U>(key: &[u8; 16], data: &[u8], cut: usize) -> [u8; 16]
where
    U: KeyInit + UniversalHash<BlockSize = U16> + Clone,
{
    let mut u = U::new_from_slice(key).unwrap();
    let whole = data.len() / 16 * 16;
    let cut = (16 * cut).min(whole);
    let first: Vec<_> = data[..cut].chunks_exact(16).map(block).collect();
    let second: Vec<_> = data[cut..whole].chunks_exact(16).map(block).collect();
    u.update(&first);
    u.update(&second);
    u.update_padded(&data[whole..]);
    let tag = u.clone().finalize();
    let mut wrong = tag;
    wrong[15] ^= 1;
    assert!(u.clone().verify(&wrong).is_err());
    assert!(u.verify(&tag).is_ok());
    tag.0
}

/// The traits on fieldwork's types give the RFC 8452 vectors and the same
/// results as the inherent API; `Reset` and `finalize_reset` work.
#[test]
fn universal_hash_traits_match_vectors_and_inherent_api() {
    let mut n = 0;
    for f in common::data_lines("ghash_vectors.txt") {
        let (h, data, want) = match f[0].as_str() {
            "polyval" | "ghash" => (key(&f[1]), unhex(&f[2]), unhex(&f[3])),
            _ => continue,
        };
        for cut in [0, 1, 2] {
            let got = match f[0].as_str() {
                "polyval" => through_traits::<Polyval>(&h, &data, cut),
                _ => through_traits::<GHash>(&h, &data, cut),
            };
            assert_eq!(got.to_vec(), want, "{}", f.join(" "));
        }
        n += 1;
    }
    assert_eq!(n, 6);

    let mut rng = common::Rng::new(0x0fa1);
    for len in [0, 1, 15, 16, 17, 100, 511, 512, 513, 1000, 4096 + 16] {
        let h: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
        let data = random_bytes(&mut rng, len);
        for cut in [0, 3, 40] {
            assert_eq!(through_traits::<GHash>(&h, &data, cut), ghash(&h, &data));
            assert_eq!(
                through_traits::<Polyval>(&h, &data, cut),
                polyval(&h, &data)
            );
        }
        // Reset keeps the key and forgets the message.
        let mut g = <GHash as KeyInit>::new(&h.into());
        g.update_padded(b"something else first");
        let mut g2 = g.clone();
        g.reset();
        g.update_padded(&data);
        assert_eq!(UniversalHash::finalize(g).0, ghash(&h, &data));
        let first = g2.finalize_reset();
        assert_eq!(first.0, ghash(&h, b"something else first"));
        g2.update_padded(&data);
        assert_eq!(UniversalHash::finalize(g2).0, ghash(&h, &data));
    }
    // The key by `KeyInit` is the inherent constructor's.
    assert!(format!("{:?}", GHash::new(&[3; 16])).starts_with("GHash"));
}

/// Feeds blocks to the backend one at a time, except a run of whole
/// parallel groups in the middle: the single-block path collects blocks
/// and must keep the order.
struct MixedFeed<'a> {
    blocks: &'a [Array<u8, U16>],
    par_from: usize,
}

impl BlockSizeUser for MixedFeed<'_> {
    type BlockSize = U16;
}

impl UhfClosure for MixedFeed<'_> {
    fn call<B: UhfBackend<BlockSize = U16>>(self, backend: &mut B) {
        use fieldwork::ghash::universal_hash::typenum::Unsigned;
        let par = B::ParBlocksSize::USIZE;
        let (head, rest) = self.blocks.split_at(self.par_from.min(self.blocks.len()));
        for b in head {
            backend.proc_block(b);
        }
        let (pars, tail) = Array::slice_as_chunks(rest);
        assert_eq!(pars.len(), rest.len() / par);
        for p in pars {
            backend.proc_par_blocks(p);
        }
        for b in tail {
            backend.proc_block(b);
        }
    }
}

/// The backend (reached through `update_with_backend` with a closure of
/// one's own): its single-block collection (flushed at 32 blocks, before a
/// parallel group of 128 and at the end) keeps the block order; and trait
/// blocks continue the byte stream of the inherent `update`.
#[test]
fn universal_hash_backend_paths() {
    let mut rng = common::Rng::new(0xbac4);
    let h: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
    let cases = [
        (0, 0),
        (1, 1),
        (31, 31),
        (32, 32),
        (33, 33),
        (70, 5),
        (128, 0),
        (129, 1),
        (300, 40),
        (287, 31),
        (600, 0),
    ];
    for (n_blocks, par_from) in cases {
        let data = random_bytes(&mut rng, 16 * n_blocks);
        let blocks: Vec<_> = data.chunks_exact(16).map(block).collect();
        let mut g = GHash::new(&h);
        g.update_with_backend(MixedFeed {
            blocks: &blocks,
            par_from,
        });
        assert_eq!(
            g.finalize(),
            ghash(&h, &data),
            "{n_blocks} blocks, {par_from}"
        );
        let mut p = Polyval::new(&h);
        p.update_with_backend(MixedFeed {
            blocks: &blocks,
            par_from,
        });
        assert_eq!(
            p.finalize(),
            polyval(&h, &data),
            "{n_blocks} blocks, {par_from}"
        );
    }
    // Inherent bytes, then trait blocks, then inherent bytes: one stream.
    let data = random_bytes(&mut rng, 7 + 16 * 40 + 9);
    let mut g = GHash::new(&h);
    g.update(&data[..7]);
    let blocks: Vec<_> = data[7..7 + 16 * 40].chunks_exact(16).map(block).collect();
    UniversalHash::update(&mut g, &blocks);
    g.update(&data[7 + 16 * 40..]);
    assert_eq!(g.finalize(), ghash(&h, &data));
}

/// RustCrypto's `ghash` 0.6 and `polyval` 0.7 give the same results as
/// ours through the same generic trait code, on random keys and lengths.
#[test]
fn rustcrypto_crates_agree_through_the_same_trait_code() {
    let mut rng = common::Rng::new(0x2c2c);
    for len in (0..=300).chain([1000, 4096 + 16, 16384 + 5]) {
        let h: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
        let data = random_bytes(&mut rng, len);
        let cut = (rng.next_u64() % 40) as usize;
        assert_eq!(
            through_traits::<GHash>(&h, &data, cut),
            through_traits::<::ghash::GHash>(&h, &data, cut),
            "ghash, {len} bytes"
        );
        assert_eq!(
            through_traits::<Polyval>(&h, &data, cut),
            through_traits::<::polyval::Polyval>(&h, &data, cut),
            "polyval, {len} bytes"
        );
    }
}
