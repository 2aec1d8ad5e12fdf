//! AES-GCM: every backend and schedule (`fieldwork::hazmat`, through one
//! generic function per check) against RustCrypto's `aes-gcm` 0.11 (an
//! independent implementation) and against each other, at every length
//! class the kernels branch on; the SP 800-38D detached-IV interface
//! (non-96-bit IVs, truncated tags, tag mismatch zeroing the buffer, length
//! limits); the `aead` trait path. Published vectors are in
//! `gcm_vectors.rs`.

use super::common;

use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
use common::Rng;
use fieldwork::gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm};
use fieldwork::hazmat::Backends;

fn bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

/// Lengths around every branch of the kernels: blocks, the 4-block
/// registers, the 16-block iteration, the 512-byte chunk, and beyond —
/// among them 6, 7 and 10 loop iterations, so that the zmm kernel's
/// reduction units of up to four iterations before the last two start
/// with each of four sizes.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=300).collect();
    for base in [
        511,
        512,
        513,
        767,
        768,
        1024,
        1420,
        1600,
        1800,
        2600,
        4096,
        4111,
        65536 + 7,
    ] {
        v.extend([base - 1, base, base + 1]);
    }
    v
}

/// One of our AES-GCM types, with RustCrypto's AES and AES-GCM of the
/// same key size as references, so that each test is one generic function
/// over the key size; every backend comes from `fieldwork::hazmat`.
trait Gcm: Backends + Sized {
    /// The key length in bytes.
    const KEY: usize;
    /// Every backend this CPU runs for `key` (of [`Gcm::KEY`] bytes).
    fn all(key: &[u8]) -> Vec<Self>;
    /// RustCrypto's `ciphertext ∥ tag` for a 12- or 16-byte IV.
    fn theirs(key: &[u8], iv: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8>;
    /// `H = AES(K, 0^128)` by RustCrypto's `aes`.
    fn hash_key(key: &[u8]) -> [u8; 16];
    fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> [u8; 16];
    /// Opens, panicking if the tag is refused.
    fn open(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) {
        self.decrypt_detached(iv, aad, buf, tag).unwrap()
    }
    /// [`Gcm::open`] returning whether the tag was accepted.
    fn decrypt_detached(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<(), fieldwork::gcm::Error>;
}

macro_rules! gcm {
    ($ours:ty, $aes:ty, $klen:literal) => {
        impl Gcm for $ours {
            const KEY: usize = $klen;
            fn all(key: &[u8]) -> Vec<Self> {
                common::every_backend::<$ours>(key.try_into().unwrap())
            }
            fn theirs(key: &[u8], iv: &[u8], aad: &[u8], pt: &[u8]) -> Vec<u8> {
                use aes_gcm::aead::consts::{U12, U16};
                let msg = Payload { msg: pt, aad };
                match iv.len() {
                    12 => aes_gcm::AesGcm::<$aes, U12>::new_from_slice(key)
                        .unwrap()
                        .encrypt(iv.try_into().unwrap(), msg),
                    _ => aes_gcm::AesGcm::<$aes, U16>::new_from_slice(key)
                        .unwrap()
                        .encrypt(iv.try_into().unwrap(), msg),
                }
                .unwrap()
            }
            fn hash_key(key: &[u8]) -> [u8; 16] {
                use aes::cipher::{BlockCipherEncrypt, KeyInit};
                let mut h = [0u8; 16];
                <$aes>::new_from_slice(key)
                    .unwrap()
                    .encrypt_block((&mut h).into());
                h
            }
            fn seal(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
                self.encrypt_in_place_detached_iv(iv, aad, buf).unwrap()
            }
            fn decrypt_detached(
                &self,
                iv: &[u8],
                aad: &[u8],
                buf: &mut [u8],
                tag: &[u8],
            ) -> Result<(), fieldwork::gcm::Error> {
                self.decrypt_in_place_detached_iv(iv, aad, buf, tag)
            }
        }
    };
}

gcm!(Aes128Gcm, aes::Aes128, 16);
gcm!(Aes192Gcm, aes::Aes192, 24);
gcm!(Aes256Gcm, aes::Aes256, 32);

/// Every backend of `G` against RustCrypto, both directions, on a message
/// of each length in `lens` with fresh random keys and 96-bit nonces (from
/// `seed`), the `i`-th with associated data of `aad_lens[i % len]` bytes.
fn against_rustcrypto<G: Gcm>(seed: u64, lens: &[usize], aad_lens: &[usize]) {
    let mut rng = Rng::new(seed);
    for (i, &len) in lens.iter().enumerate() {
        let key = bytes(&mut rng, G::KEY);
        let nonce = bytes(&mut rng, 12);
        let aad = bytes(&mut rng, aad_lens[i % aad_lens.len()]);
        let pt = bytes(&mut rng, len);
        let expect = G::theirs(&key, &nonce, &aad, &pt);
        for ours in G::all(&key) {
            let name = ours.backend();
            let mut buf = pt.clone();
            let tag = ours.seal(&nonce, &aad, &mut buf);
            assert_eq!(buf, expect[..len], "{name} ciphertext, len {len}");
            assert_eq!(tag, expect[len..], "{name} tag, len {len}");
            ours.open(&nonce, &aad, &mut buf, &tag);
            assert_eq!(buf, pt, "{name} decrypt, len {len}");
        }
    }
}

/// The associated data lengths of [`against_rustcrypto`]'s main runs.
const AAD_LENS: [usize; 14] = [
    0, 1, 13, 16, 17, 48, 300, 512, 767, 768, 1040, 1300, 1600, 2100,
];

#[test]
fn aes128_matches_rustcrypto() {
    against_rustcrypto::<Aes128Gcm>(0x6763_6d00 + 16, &lengths(), &AAD_LENS);
}

#[test]
fn aes256_matches_rustcrypto() {
    against_rustcrypto::<Aes256Gcm>(0x6763_6d00 + 32, &lengths(), &AAD_LENS);
}

#[test]
fn aes192_backends_agree() {
    let lens: Vec<usize> = (0..=280).chain([1000, 4099]).collect();
    against_rustcrypto::<Aes192Gcm>(192, &lens, &[0]);
}

/// Every backend of `G` against the portable one (both directions, the
/// tag, a flipped tag bit refused) at every message length `0..=300` with
/// associated data of every length `0..=40`, one random key (from
/// `seed`) and a fresh nonce per case: every layout of the short-message
/// paths (AArch64's one-group path takes up to 7 text blocks with the
/// associated data in the group while it has at most `7 −` text blocks,
/// hashed first otherwise), their edges and the 8-block loop after them.
fn short_against_portable<G: Gcm>(seed: u64) {
    let mut rng = Rng::new(seed);
    let key = bytes(&mut rng, G::KEY);
    let all = G::all(&key);
    let Some(portable) = all.iter().find(|k| k.backend() == "portable") else {
        panic!("no portable backend");
    };
    for len in 0..=300 {
        for aad_len in 0..=40 {
            let nonce = bytes(&mut rng, 12);
            let aad = bytes(&mut rng, aad_len);
            let pt = bytes(&mut rng, len);
            let mut want = pt.clone();
            let want_tag = portable.seal(&nonce, &aad, &mut want);
            for ours in &all {
                let name = ours.backend();
                let mut buf = pt.clone();
                let tag = ours.seal(&nonce, &aad, &mut buf);
                assert_eq!(buf, want, "{name} ciphertext, len {len}, aad {aad_len}");
                assert_eq!(tag, want_tag, "{name} tag, len {len}, aad {aad_len}");
                let mut bad = tag;
                bad[(len + aad_len) % 16] ^= 1 << (len % 8);
                let mut copy = buf.clone();
                assert!(
                    ours.decrypt_detached(&nonce, &aad, &mut copy, &bad)
                        .is_err(),
                    "{name} accepted a bad tag, len {len}, aad {aad_len}"
                );
                ours.open(&nonce, &aad, &mut buf, &tag);
                assert_eq!(buf, pt, "{name} decrypt, len {len}, aad {aad_len}");
            }
        }
    }
}

#[test]
fn aes128_short_messages_against_portable() {
    short_against_portable::<Aes128Gcm>(0x5348_0010);
}

#[test]
fn aes192_short_messages_against_portable() {
    short_against_portable::<Aes192Gcm>(0x5348_0018);
}

#[test]
fn aes256_short_messages_against_portable() {
    short_against_portable::<Aes256Gcm>(0x5348_0020);
}

/// Chooses 16-byte IVs for key `key` (RustCrypto's AES-GCM with 16-byte
/// nonces as the reference): draws random IVs (from `seed`) until `accept`
/// has taken as many as it wants, calling it with the first data block's
/// 32-bit counter `inc32(J0)`, where `J0 = GHASH(H, IV ∥ 0^64 ∥ [128]₆₄)`;
/// for each IV it accepts, compares every backend with RustCrypto
/// (ciphertext, tag, and decryption back) on messages of each length in
/// `lengths` with associated data of each length in `aad_lens`.
fn check_chosen_ivs<G: Gcm>(
    key: &[u8],
    seed: u64,
    lengths: &[usize],
    aad_lens: &[usize],
    mut accept: impl FnMut(u32) -> Option<bool>,
) {
    let h = G::hash_key(key);
    let ours = G::all(key);
    let mut rng = Rng::new(seed);
    loop {
        let mut j0_input = [0u8; 32];
        j0_input[..16].copy_from_slice(&bytes(&mut rng, 16));
        j0_input[24..].copy_from_slice(&128u64.to_be_bytes());
        let j0 = fieldwork::ghash::ghash(&h, &j0_input);
        let first = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
        match accept(first) {
            None => return,
            Some(false) => continue,
            Some(true) => {}
        }
        let iv = &j0_input[..16];
        for &len in lengths {
            for &alen in aad_lens {
                let pt = bytes(&mut rng, len);
                let aad = bytes(&mut rng, alen);
                let expect = G::theirs(key, iv, &aad, &pt);
                for b in &ours {
                    let mut buf = pt.clone();
                    let tag = b.seal(iv, &aad, &mut buf);
                    let name = b.backend();
                    assert_eq!(
                        [buf.as_slice(), &tag].concat(),
                        expect,
                        "{name} first counter {first:#x} len {len} aad {alen}"
                    );
                    b.open(iv, &aad, &mut buf, &tag);
                    assert_eq!(
                        buf, pt,
                        "{name} decrypt, first counter {first:#x} len {len} aad {alen}"
                    );
                }
            }
        }
    }
}

/// The 32-bit counter wrapping (`inc32` modulo 2^32) inside the kernels'
/// loops, tails and counter rebuilds: 16-byte IVs are searched whose first
/// counter is within 4 200 blocks of 2^32, and every backend is compared
/// with RustCrypto's `aes-gcm` (16-byte nonce) across the wrap. (Search
/// idea from the ymm kernel's author.)
#[test]
fn counter_wraps_modulo_2_32() {
    // Takes the first two first counters within 4 200 blocks below 2^32.
    let two_near_wrap = |found: &mut usize, first: u32| {
        if *found == 2 {
            return None;
        }
        let near = first.wrapping_sub(1) >= u32::MAX - 4200;
        *found += usize::from(near);
        Some(near)
    };
    let mut found = 0;
    check_chosen_ivs::<Aes128Gcm>(
        &[0x5a; 16],
        0x32,
        &[1, 255, 256, 257, 1000, 4097, 30000, 70000],
        &[0, 13, 300],
        |first| two_near_wrap(&mut found, first),
    );
    assert_eq!(found, 2);
    // AES-256 too: its zmm loop replays the round-2 cache across the wrap.
    let mut found = 0;
    check_chosen_ivs::<Aes256Gcm>(&[0xa6; 32], 0x33, &[70000], &[13], |first| {
        two_near_wrap(&mut found, first)
    });
    assert_eq!(found, 2);
}

/// Every alignment of the starting counter: the zmm and ymm loops advance
/// their counters by a table indexed by the counter's low byte, whose
/// entries a 96-bit nonce (counter 2 at the start) reaches from one
/// residue mod 16 only. 16-byte IVs are searched for a first counter in
/// each residue class mod 16 (and so at every offset within a 16-block
/// loop step), then messages that cross the low byte's wrap are compared
/// with RustCrypto's `aes-gcm` on every backend.
#[test]
fn counter_every_start_alignment() {
    let mut seen = [false; 16];
    check_chosen_ivs::<Aes128Gcm>(&[0xa5; 16], 0x16, &[700, 5000, 9000], &[13], |first| {
        if !seen.contains(&false) {
            return None;
        }
        let new = !seen[(first % 16) as usize];
        seen[(first % 16) as usize] = true;
        Some(new)
    });
    assert!(!seen.contains(&false));
}

/// The zmm kernel's round-2 cache (AES-192/256): the loop records the
/// round-2 states of the first run of 256 counters whose first loop group
/// starts below byte 16, and replays them, shifted by a per-run base, in
/// every later run. First counters are searched for whose last byte is
/// below 16 (recording from the first run), just at or above 16, and high
/// (recording from the second run; the first run's groups compute round 2
/// without recording), with messages spanning up to six runs, each group
/// offset `first mod 16` covered at least once; AES-256 against RustCrypto
/// on every backend. A run records only if at least 160 blocks of later
/// runs follow it: 3 000 bytes never record, and 6 700 bytes has 26 loop
/// groups, the fewest with which a first run that starts below byte 16
/// records (25 never do).
#[test]
fn round2_cache_every_start() {
    let mut seen = [[false; 4]; 16];
    let class = |low: u32| match low {
        0..16 => 0,
        16..32 => 1,
        32..240 => 2,
        _ => 3,
    };
    let lens = [3000, 6700, 9000, 20000];
    check_chosen_ivs::<Aes256Gcm>(&[0x3c; 32], 0x256, &lens, &[0, 13], |first| {
        if seen.iter().all(|c| c.contains(&true)) && seen.iter().all(|c| c[0] && c[3]) {
            return None;
        }
        let (r, c) = ((first % 16) as usize, class(first & 0xff));
        let new = !seen[r][c];
        seen[r][c] = true;
        Some(new)
    });
}

/// Buffers 0, 16, 32 and 48 bytes past a cache line (and at 8 and 5,
/// which no whole number of blocks brings onto one), long enough for the
/// zmm kernel's aligning head of one to three blocks and just below that
/// length, with associated data whose hash enters the head: every backend
/// against RustCrypto, both directions.
#[test]
fn buffers_at_every_offset_from_a_cache_line() {
    let mut rng = Rng::new(0x6c69_6e65);
    let key128 = bytes(&mut rng, 16);
    let key256 = bytes(&mut rng, 32);
    let mut store = vec![0u8; 20_100 + 128];
    for (i, &len) in [12_287, 12_288, 12_301, 16_384, 20_007].iter().enumerate() {
        for (j, &offset) in [0usize, 16, 32, 48, 8, 5].iter().enumerate() {
            let nonce = bytes(&mut rng, 12);
            let aad = bytes(&mut rng, [0, 13, 1040][(i + j) % 3]);
            let pt = bytes(&mut rng, len);
            let start = (64 - store.as_ptr() as usize % 64) % 64 + offset;
            let buf = &mut store[start..start + len];
            assert_eq!(buf.as_ptr() as usize % 64, offset);
            at_offset::<Aes128Gcm>(&key128, &nonce, &aad, &pt, buf, offset);
            at_offset::<Aes256Gcm>(&key256, &nonce, &aad, &pt, buf, offset);
        }
    }
}

/// [`buffers_at_every_offset_from_a_cache_line`] for one key: `pt` sealed
/// and opened in `buf` by every backend, against RustCrypto.
fn at_offset<G: Gcm>(
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    pt: &[u8],
    buf: &mut [u8],
    offset: usize,
) {
    let expect = G::theirs(key, nonce, aad, pt);
    let len = pt.len();
    for g in G::all(key) {
        let what = format!("AES-{} {}, len {len} at +{offset}", 8 * G::KEY, g.backend());
        buf.copy_from_slice(pt);
        let tag = g.seal(nonce, aad, buf);
        assert_eq!(buf, &expect[..len], "{what}: ciphertext");
        assert_eq!(tag, expect[len..], "{what}: tag");
        g.open(nonce, aad, buf, &tag);
        assert_eq!(buf, pt, "{what}: decryption");
    }
}

/// Every hazmat name this CPU runs gives a key that reports that name
/// (`vaes-avx512-split` reports `vaes-avx512` on a core whose tuning
/// entry gives no crossover), and the default key's backend is one of
/// them.
#[test]
fn hazmat_names_name_their_backend() {
    let key = [0x17u8; 32];
    let names: Vec<&str> = fieldwork::hazmat::usable::<Aes256Gcm>(&key);
    for &name in &names {
        let got = Aes256Gcm::with_backend(name, &key).unwrap().backend();
        assert!(
            got == name || (name, got) == ("vaes-avx512-split", "vaes-avx512"),
            "{name} reports {got}"
        );
    }
    let best = <Aes256Gcm as aes_gcm::aead::KeyInit>::new(&key.into());
    assert!(names.contains(&best.backend_name()), "{names:?}");
    assert!(Aes256Gcm::with_backend("no-such-backend", &key).is_none());
}

/// A user's `rand` 0.10 generator makes AES-GCM keys and nonces through
/// the `aead` 0.6 `Generate` trait (fieldwork enables `aead`'s `rand_core`,
/// the same `rand_core` 0.10 its own key generators take), and the cipher
/// round-trips with them.
#[test]
fn rand_0_10_makes_keys_and_nonces() {
    use fieldwork::gcm::aead::{Aead, Generate, Key, KeyInit, Nonce};
    let mut rng = rand::rng();
    let key = Key::<Aes256Gcm>::generate_from_rng(&mut rng);
    let nonce = Nonce::<Aes256Gcm>::generate_from_rng(&mut rng);
    assert_ne!(key.as_slice(), &[0u8; 32]);
    let cipher = Aes256Gcm::new(&key);
    let sealed = cipher.encrypt(&nonce, b"rand 0.10".as_slice()).unwrap();
    assert_eq!(
        cipher.decrypt(&nonce, sealed.as_slice()).unwrap(),
        b"rand 0.10"
    );
    let other = Nonce::<Aes256Gcm>::try_generate_from_rng(&mut rand::rngs::SysRng).unwrap();
    assert_ne!(other, nonce);
}

/// Every backend at every length 0 … 300 with the text, then the
/// associated data, against a guard page at either end: no fault, and the
/// same ciphertext and tag as RustCrypto.
#[cfg(unix)]
#[test]
fn buffers_against_guard_pages() {
    let mut rng = Rng::new(0x6775_6172);
    let key: [u8; 32] = bytes(&mut rng, 32).try_into().unwrap();
    let nonce: [u8; 12] = bytes(&mut rng, 12).try_into().unwrap();
    let theirs = aes_gcm::Aes256Gcm::new(&key.into());
    let mut text = common::Guarded::new();
    let mut aad_page = common::Guarded::new();
    for len in 0..=300 {
        for end in [true, false] {
            let pt = bytes(&mut rng, len);
            let aad_bytes = bytes(&mut rng, len % 61);
            let aad = aad_page.slice(aad_bytes.len(), end);
            aad.copy_from_slice(&aad_bytes);
            let aad: &[u8] = aad;
            let expect = theirs
                .encrypt(&nonce.into(), Payload { msg: &pt, aad })
                .unwrap();
            for g in Aes256Gcm::all(&key) {
                let name = g.backend_name();
                let buf = text.slice(len, end);
                buf.copy_from_slice(&pt);
                let tag = g.encrypt_in_place_detached_iv(&nonce, aad, buf).unwrap();
                assert_eq!(buf, &expect[..len], "{name} ciphertext, len {len}");
                assert_eq!(tag, expect[len..], "{name} tag, len {len}");
                g.decrypt_in_place_detached_iv(&nonce, aad, buf, &tag)
                    .unwrap();
                assert_eq!(buf, &pt[..], "{name} plaintext, len {len}");
            }
        }
    }
}
