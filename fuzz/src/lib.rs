//! fieldwork's fuzz targets: each function takes arbitrary bytes and panics
//! only on a bug (a backend disagreeing with portable, a round trip that
//! fails, a tampered message accepted, a decoder that panics).
//!
//! `scripts/fuzz.sh TARGET SECONDS` runs one under libFuzzer (coverage-
//! guided, stable toolchain); `cargo test -p fieldwork-fuzz` replays the
//! seed corpus in `fuzz/corpus/TARGET/` and a batch of generated inputs
//! through the same functions (the CI smoke run). Differential targets
//! compare every backend this CPU (and `FIELDWORK_MAX_ISA`) allows against
//! the portable one.

use fieldwork::chacha20::{ChaCha20, XChaCha20, hchacha20};
use fieldwork::chachapoly::aead::{Aead, KeyInit};
use fieldwork::chachapoly::{ChaCha20Poly1305, XChaCha20Poly1305};
use fieldwork::gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm};
use fieldwork::gf2m::normal::GaussianNormalBasis;
use fieldwork::gf2m::{self, BinaryField, F163, F233, F283, F409, F571, FieldElement};
use fieldwork::gf2x::{self, Gf2Poly};
use fieldwork::ghash::{GHash, Polyval};
use fieldwork::hazmat::{self, Backends};
use fieldwork::kummer::{self, PublicKey, SecretKey};
use fieldwork::poly1305::{self, Poly1305};
use std::sync::OnceLock;

/// A fuzz target: arbitrary bytes in, a panic on a bug.
pub type Target = fn(&[u8]);

/// Every target, by name (the names of `fuzz_targets/*.rs` and of the
/// corpus folders).
pub const TARGETS: &[(&str, Target)] = &[
    ("aead_gcm", aead_gcm),
    ("aead_chachapoly", aead_chachapoly),
    ("mac_poly1305", mac_poly1305),
    ("mac_ghash", mac_ghash),
    ("chacha20", chacha20),
    ("gf2x_mul", gf2x_mul),
    ("gf2x_abi", gf2x_abi),
    ("gf2m_ops", gf2m_ops),
    ("kummer", kummer),
    ("decode", decode),
];

/// Reads the fuzzer's bytes as structured input; past the end it yields
/// zeros, so every input is valid.
struct Input<'a>(&'a [u8]);

impl<'a> Input<'a> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.array())
    }

    fn array<const N: usize>(&mut self) -> [u8; N] {
        let mut a = [0u8; N];
        for b in &mut a {
            *b = self.u8();
        }
        a
    }

    /// Up to `n` bytes (fewer at the end of the input).
    fn bytes(&mut self, n: usize) -> &'a [u8] {
        let (head, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        head
    }

    fn rest(&mut self) -> &'a [u8] {
        self.bytes(self.0.len())
    }

    /// Split points in `0..=len`, sorted: how streaming APIs get the data.
    fn splits(&mut self, len: usize) -> Vec<usize> {
        let n = usize::from(self.u8() % 6);
        let mut v: Vec<usize> = (0..n)
            .map(|_| usize::from(self.u16()) % (len + 1))
            .collect();
        v.sort_unstable();
        v
    }
}

/// The pieces of `data` between consecutive split points.
fn pieces<'d>(data: &'d [u8], splits: &[usize]) -> Vec<&'d [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    for &s in splits {
        out.push(&data[at..s]);
        at = s;
    }
    out.push(&data[at..]);
    out
}

/// A splitmix64 stream for inputs larger than the fuzzer's bytes.
struct Stream(u64);

impl Stream {
    fn word(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` words of one of a few shapes (random, all ones, sparse, zero).
    fn words(&mut self, n: usize, shape: u8) -> Vec<u64> {
        (0..n)
            .map(|_| match shape % 4 {
                0 => self.word(),
                1 => u64::MAX,
                2 => self.word() & self.word() & self.word(),
                _ => 0,
            })
            .collect()
    }
}

// ------------------------------------------------------------- AES-GCM

macro_rules! gcm_target {
    ($fn:ident, $ty:ty, $k:literal) => {
        fn $fn(d: &mut Input<'_>) {
            let key = d.array::<$k>();
            let iv_len = if d.u8() & 1 == 0 {
                12
            } else {
                1 + usize::from(d.u8() % 40)
            };
            let iv = d.bytes(iv_len).to_vec();
            let aad_len = usize::from(d.u16() % 600);
            let aad = d.bytes(aad_len).to_vec();
            let msg_len = usize::from(d.u16() % 2100);
            let seed = d.u64();
            let mut s = Stream(seed);
            let msg: Vec<u8> = (0..msg_len).map(|_| s.word() as u8).collect();
            let tamper = d.u16();
            let tag_len = usize::from(d.u8() % 20);
            let arbitrary = d.rest();

            let backends = fieldwork::hazmat::all::<$ty>(&key);
            let Some(reference) = backends.iter().find(|b| b.backend_name() == "portable") else {
                panic!("no portable backend");
            };
            let mut ct0 = msg.clone();
            let tag0 = reference.encrypt_in_place_detached_iv(&iv, &aad, &mut ct0);
            for c in &backends {
                let name = c.backend_name();
                let mut ct = msg.clone();
                let tag = c.encrypt_in_place_detached_iv(&iv, &aad, &mut ct);
                assert_eq!(tag, tag0, "{name}: tag differs from portable");
                assert_eq!(ct, ct0, "{name}: ciphertext differs from portable");
                let Ok(tag) = tag else { continue };

                // Round trip, with every allowed truncation of the tag.
                let mut buf = ct.clone();
                assert_eq!(
                    c.decrypt_in_place_detached_iv(&iv, &aad, &mut buf, &tag),
                    Ok(())
                );
                assert_eq!(buf, msg, "{name}: round trip");
                let t = &tag[..tag_len.min(16)];
                let mut buf = ct.clone();
                let r = c.decrypt_in_place_detached_iv(&iv, &aad, &mut buf, t);
                if (4..=16).contains(&t.len()) {
                    assert_eq!(r, Ok(()), "{name}: truncated tag");
                    assert_eq!(buf, msg);
                } else {
                    assert!(r.is_err(), "{name}: tag of {} bytes accepted", t.len());
                    assert_eq!(buf, ct, "{name}: buffer touched on a length error");
                }

                // One flipped bit anywhere in ciphertext, tag or AD: refused,
                // buffer zeroed.
                let total = ct.len() + 16 + aad.len();
                let pos = usize::from(tamper) % total;
                let bit = 1u8 << (tamper >> 13);
                let (mut buf, mut t, mut a) = (ct.clone(), tag, aad.clone());
                if pos < ct.len() {
                    buf[pos] ^= bit;
                } else if pos < ct.len() + 16 {
                    t[pos - ct.len()] ^= bit;
                } else {
                    a[pos - ct.len() - 16] ^= bit;
                }
                let r = c.decrypt_in_place_detached_iv(&iv, &a, &mut buf, &t);
                assert!(r.is_err(), "{name}: tampered message accepted");
                assert!(buf.iter().all(|&b| b == 0), "{name}: buffer not zeroed");
            }

            // Arbitrary bytes as ciphertext ‖ tag: every backend agrees,
            // nothing panics (the `aead` trait path too).
            let mut outs = Vec::new();
            for c in &backends {
                let mut buf = arbitrary.to_vec();
                let cut = buf.len().saturating_sub(16);
                let (body, t) = buf.split_at_mut(cut);
                let r = c.decrypt_in_place_detached_iv(&iv, &aad, body, t);
                outs.push((r, body.to_vec()));
                if iv.len() == 12 {
                    let nonce: [u8; 12] = iv[..].try_into().unwrap_or_default();
                    let _ = Aead::decrypt(c, &nonce.into(), arbitrary);
                }
            }
            assert!(
                outs.windows(2).all(|w| w[0] == w[1]),
                "backends disagree on arbitrary input"
            );
        }
    };
}

gcm_target!(gcm128, Aes128Gcm, 16);
gcm_target!(gcm192, Aes192Gcm, 24);
gcm_target!(gcm256, Aes256Gcm, 32);

/// AES-GCM: every backend against portable (seal, open, truncated and
/// invalid tag lengths, a flipped bit, arbitrary input to open).
pub fn aead_gcm(data: &[u8]) {
    let mut d = Input(data);
    match d.u8() % 3 {
        0 => gcm128(&mut d),
        1 => gcm192(&mut d),
        _ => gcm256(&mut d),
    }
}

// ------------------------------------------------------------- ChaCha20-Poly1305

/// `T` on its portable backend (there on every CPU), the reference.
fn portable<T: Backends>(input: T::Input<'_>) -> T {
    match T::with_backend("portable", input) {
        Some(t) => t,
        None => unreachable!("every keyed type has a portable backend"),
    }
}

/// RFC 8439's construction from the portable ChaCha20 and Poly1305.
fn chachapoly_reference(key: &[u8; 32], nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
    let mut c = portable::<ChaCha20>((key, nonce));
    let mut block0 = [0u8; 64];
    c.apply_keystream(&mut block0).unwrap_or_default();
    c.apply_keystream(buf).unwrap_or_default();
    let otk: [u8; 32] = block0[..32].try_into().unwrap_or_default();
    let mut mac = portable::<Poly1305>(&otk);
    let zeros = [0u8; 16];
    mac.update(aad);
    mac.update(&zeros[..(16 - aad.len() % 16) % 16]);
    mac.update(buf);
    mac.update(&zeros[..(16 - buf.len() % 16) % 16]);
    mac.update(&(aad.len() as u64).to_le_bytes());
    mac.update(&(buf.len() as u64).to_le_bytes());
    mac.finalize()
}

/// ChaCha20-Poly1305 and XChaCha20-Poly1305 (the dispatched backend)
/// against RFC 8439's construction from the portable pieces; round trip,
/// a flipped bit refused with the buffer zeroed, arbitrary input to open.
pub fn aead_chachapoly(data: &[u8]) {
    let mut d = Input(data);
    let key = d.array::<32>();
    let xnonce = d.array::<24>();
    let extended = d.u8() & 1 == 1;
    let aad_len = usize::from(d.u16() % 300);
    let aad = d.bytes(aad_len).to_vec();
    let msg_len = usize::from(d.u16() % 3000);
    let mut s = Stream(d.u64());
    let msg: Vec<u8> = (0..msg_len).map(|_| s.word() as u8).collect();
    let tamper = d.u16();
    let arbitrary = d.rest();

    let mut ct = msg.clone();
    let (tag, mut reference) = if extended {
        let c = XChaCha20Poly1305::new(&key.into());
        let sub = hchacha20(&key, xnonce[..16].try_into().unwrap_or(&[0; 16]));
        let mut n = [0u8; 12];
        n[4..].copy_from_slice(&xnonce[16..]);
        let mut r = msg.clone();
        let t = chachapoly_reference(&sub, &n, &aad, &mut r);
        (c.encrypt_in_place_detached(&xnonce, &aad, &mut ct), (r, t))
    } else {
        let c = ChaCha20Poly1305::new(&key.into());
        let n: [u8; 12] = xnonce[..12].try_into().unwrap_or_default();
        let mut r = msg.clone();
        let t = chachapoly_reference(&key, &n, &aad, &mut r);
        (c.encrypt_in_place_detached(&n, &aad, &mut ct), (r, t))
    };
    assert_eq!(
        tag,
        Ok(reference.1),
        "tag differs from the portable construction"
    );
    assert_eq!(
        ct, reference.0,
        "ciphertext differs from the portable construction"
    );
    let tag = reference.1;

    let open = |buf: &mut [u8], aad: &[u8], tag: &[u8; 16]| {
        if extended {
            XChaCha20Poly1305::new(&key.into()).decrypt_in_place_detached(&xnonce, aad, buf, tag)
        } else {
            let n: [u8; 12] = xnonce[..12].try_into().unwrap_or_default();
            ChaCha20Poly1305::new(&key.into()).decrypt_in_place_detached(&n, aad, buf, tag)
        }
    };
    let mut buf = ct.clone();
    assert_eq!(open(&mut buf, &aad, &tag), Ok(()));
    assert_eq!(buf, msg, "round trip");

    let total = ct.len() + 16 + aad.len();
    let pos = usize::from(tamper) % total;
    let bit = 1u8 << (tamper >> 13);
    let (mut buf, mut t, mut a) = (ct.clone(), tag, aad.clone());
    if pos < ct.len() {
        buf[pos] ^= bit;
    } else if pos < ct.len() + 16 {
        t[pos - ct.len()] ^= bit;
    } else {
        a[pos - ct.len() - 16] ^= bit;
    }
    assert!(open(&mut buf, &a, &t).is_err(), "tampered message accepted");
    assert!(buf.iter().all(|&b| b == 0), "buffer not zeroed");

    // Arbitrary input: no panic, and the allocating trait path agrees.
    let mut buf = arbitrary.to_vec();
    let cut = buf.len().saturating_sub(16);
    let (body, t) = buf.split_at_mut(cut);
    let mut tag = [0u8; 16];
    tag[..t.len()].copy_from_slice(t);
    let r = open(body, &aad, &tag);
    reference.0.clear();
    let n: [u8; 12] = xnonce[..12].try_into().unwrap_or_default();
    let via_trait = ChaCha20Poly1305::new(&key.into()).decrypt(&n.into(), arbitrary);
    if !extended && arbitrary.len() >= 16 {
        assert_eq!(
            r.is_ok(),
            via_trait.is_ok(),
            "trait and detached paths disagree"
        );
    }
}

// ------------------------------------------------------------- MACs

/// Poly1305: every backend, the message in random pieces, against the
/// portable one-shot; `tag` and `verify` agree.
pub fn mac_poly1305(data: &[u8]) {
    let mut d = Input(data);
    let key = d.array::<32>();
    let long = d.u8() & 1 == 1;
    let msg: Vec<u8> = if long {
        let mut s = Stream(d.u64());
        (0..usize::from(d.u16()) % 5000)
            .map(|_| s.word() as u8)
            .collect()
    } else {
        d.bytes(usize::MAX).to_vec()
    };
    let splits = d.splits(msg.len());
    let mut reference = portable::<Poly1305>(&key);
    reference.update(&msg);
    let expected = reference.finalize();
    for mut m in hazmat::all::<Poly1305>(&key) {
        let name = m.backend_name();
        for p in pieces(&msg, &splits) {
            m.update(p);
        }
        assert_eq!(m.finalize(), expected, "{name}: differs from portable");
    }
    assert_eq!(poly1305::tag(&key, &msg), expected);
    assert!(poly1305::verify(&key, &msg, &expected).is_ok());
    let mut wrong = expected;
    wrong[usize::from(key[0] % 16)] ^= 1 << (key[1] % 8);
    assert!(poly1305::verify(&key, &msg, &wrong).is_err());
}

/// GHASH and POLYVAL: every backend, the message in random pieces,
/// against the portable one-shot.
pub fn mac_ghash(data: &[u8]) {
    let mut d = Input(data);
    let h = d.array::<16>();
    let long = d.u8() & 1 == 1;
    let msg: Vec<u8> = if long {
        let mut s = Stream(d.u64());
        (0..usize::from(d.u16()) % 5000)
            .map(|_| s.word() as u8)
            .collect()
    } else {
        d.bytes(usize::MAX).to_vec()
    };
    let splits = d.splits(msg.len());
    let expected = {
        let mut g = GHash::with_backend("portable", &h).expect("portable always runs");
        g.update(&msg);
        g.finalize()
    };
    let mut ghashes = vec![GHash::new(&h)];
    ghashes.extend(hazmat::all::<GHash>(&h));
    for mut g in ghashes {
        let name = g.backend_name();
        for p in pieces(&msg, &splits) {
            g.update(p);
        }
        assert_eq!(
            g.finalize(),
            expected,
            "GHASH {name}: differs from portable"
        );
    }
    assert_eq!(fieldwork::ghash::ghash(&h, &msg), expected);
    let expected = {
        let mut g = Polyval::with_backend("portable", &h).expect("portable always runs");
        g.update(&msg);
        g.finalize()
    };
    let mut polyvals = vec![Polyval::new(&h)];
    polyvals.extend(hazmat::all::<Polyval>(&h));
    for mut g in polyvals {
        let name = g.backend_name();
        for p in pieces(&msg, &splits) {
            g.update(p);
        }
        assert_eq!(
            g.finalize(),
            expected,
            "POLYVAL {name}: differs from portable"
        );
    }
    assert_eq!(fieldwork::ghash::polyval(&h, &msg), expected);
}

// ------------------------------------------------------------- ChaCha20

/// ChaCha20: every backend against portable, from a random position, the
/// buffer in random pieces; XChaCha20 against its definition.
pub fn chacha20(data: &[u8]) {
    let mut d = Input(data);
    let key = d.array::<32>();
    let nonce = d.array::<12>();
    let xnonce = d.array::<24>();
    // Positions near the 2^32-block limit too.
    let pos = match d.u8() % 4 {
        0 => 0,
        1 => u64::from(d.u16()),
        2 => (1u64 << 38) - u64::from(d.u16()),
        _ => d.u64(),
    };
    let len = usize::from(d.u16() % 4000);
    let splits = d.splits(len);
    let mut s = Stream(d.u64());
    let msg: Vec<u8> = (0..len).map(|_| s.word() as u8).collect();

    let run = |mut c: ChaCha20| {
        let seek = c.seek(pos);
        let mut buf = msg.clone();
        let mut results = vec![seek];
        let mut at = 0;
        for p in pieces(&msg, &splits) {
            let end = at + p.len();
            results.push(c.apply_keystream(&mut buf[at..end]));
            at = end;
        }
        (results, buf, c.position())
    };
    let expected = run(portable::<ChaCha20>((&key, &nonce)));
    for c in hazmat::all::<ChaCha20>((&key, &nonce)) {
        let name = c.backend_name();
        assert_eq!(run(c), expected, "{name}: differs from portable");
    }

    let sub = hchacha20(&key, xnonce[..16].try_into().unwrap_or(&[0; 16]));
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&xnonce[16..]);
    let (mut a, mut b) = (msg.clone(), msg.clone());
    let ra = XChaCha20::new(&key, &xnonce).apply_keystream(&mut a);
    let rb = portable::<ChaCha20>((&sub, &n)).apply_keystream(&mut b);
    assert_eq!(
        (ra, a),
        (rb, b),
        "XChaCha20 differs from HChaCha20 + ChaCha20"
    );
}

// ------------------------------------------------------------- gf2x

/// GF(2)\[x\] products and squares: every backend against portable at
/// sizes up to 3 000 words (random, all-ones, sparse, zero operands),
/// the additive FFT at any size, the fixed kernels, and length errors.
pub fn gf2x_mul(data: &[u8]) {
    let mut d = Input(data);
    let size = |d: &mut Input<'_>| match d.u8() % 8 {
        0..=3 => usize::from(d.u8() % 20),
        4 | 5 => usize::from(d.u16() % 300),
        6 => usize::from(d.u16() % 1200),
        _ => usize::from(d.u16() % 3001),
    };
    let (na, nb) = (size(&mut d), size(&mut d));
    let (sa, sb) = (d.u8(), d.u8());
    let mut s = Stream(d.u64());
    let (a, b) = (s.words(na, sa), s.words(nb, sb));

    let portable = gf2x::Dispatch::portable();
    let mut expected = vec![0u64; na + nb];
    assert!(portable.mul_into(&mut expected, &a, &b).is_ok());
    let mut expected_sq = vec![0u64; 2 * na];
    assert!(portable.square_into(&mut expected_sq, &a).is_ok());
    let aa = {
        let mut v = vec![0u64; 2 * na];
        assert!(portable.mul_into(&mut v, &a, &a).is_ok());
        v
    };
    assert_eq!(expected_sq, aa, "portable square differs from a·a");
    for m in gf2x::Dispatch::all() {
        let name = m.name();
        let mut out = vec![0u64; na + nb];
        assert!(m.mul_into(&mut out, &a, &b).is_ok());
        assert_eq!(
            out, expected,
            "{name}: product {na}x{nb} differs from portable"
        );
        let mut sq = vec![0u64; 2 * na];
        assert!(m.square_into(&mut sq, &a).is_ok());
        assert_eq!(sq, expected_sq, "{name}: square of {na} differs");
        if na + nb <= 2400 {
            let mut out = vec![0u64; na + nb];
            let mut scratch = vec![0u64; gf2x::fft_scratch_len(na, nb)];
            assert!(m.mul_fft(&mut out, &a, &b, &mut scratch).is_ok());
            assert_eq!(out, expected, "{name}: FFT product {na}x{nb} differs");
        }
        // Wrong output length: an error, never a panic.
        let mut short = vec![0u64; (na + nb).saturating_sub(1)];
        if na + nb > 0 {
            assert!(m.mul_into(&mut short, &a, &b).is_err());
        }
        let mut long = vec![0u64; na + nb + 1];
        assert!(m.mul_into(&mut long, &a, &b).is_err());
        if na >= 3 && nb >= 3 {
            let x: [u64; 3] = [a[0], a[1], a[2]];
            let y: [u64; 3] = [b[0], b[1], b[2]];
            let mut e = [0u64; 6];
            assert!(portable.mul_into(&mut e, &x, &y).is_ok());
            assert_eq!(m.mul_fixed(&x, &y), e, "{name}: mul_fixed::<3>");
        }
    }
    let mut out = vec![0u64; na + nb];
    assert!(gf2x::mul_into(&mut out, &a, &b).is_ok());
    assert_eq!(out, expected, "dispatched product differs");
}

// ------------------------------------------------------------- libgf2x

/// The drop-in libgf2x's C entry points (`fieldwork-gf2x-abi`) against
/// `gf2x::mul_into`: `gf2x_mul`, `gf2x_mul_r` with a kept pool and with a
/// null one, and `gf2x_mul_toom` with `gf2x_toomspace` words of scratch;
/// the output in its own buffer, exactly on `a` or `b` (as gf2x allows),
/// or overlapping an input at any word offset (which this library also
/// takes); zero lengths with null pointers, and a null pointer with a
/// non-zero length (an error code, output untouched).
#[allow(
    unsafe_code,
    reason = "the C entry points take raw pointers; every call below passes buffers of the documented sizes"
)]
pub fn gf2x_abi(data: &[u8]) {
    use core::ffi::{c_long, c_ulong};
    use fieldwork_gf2x_abi as abi;
    let mut d = Input(data);
    let size = |d: &mut Input<'_>| match d.u8() % 4 {
        0 | 1 => usize::from(d.u8() % 20),
        2 => usize::from(d.u16() % 200),
        _ => usize::from(d.u16() % 1500),
    };
    let (na, nb) = (size(&mut d), size(&mut d));
    let (mode, entry, offset) = (d.u8() % 4, d.u8() % 3, usize::from(d.u8()));
    let mut s = Stream(d.u64());
    let (a, b) = (s.words(na, d.u8()), s.words(nb, d.u8()));
    let cn = na + nb;
    let mut want = vec![0u64; cn];
    assert!(gf2x::mul_into(&mut want, &a, &b).is_ok());

    let mut pool = abi::Gf2xMulPool {
        stk: core::ptr::null_mut(),
        stk_size: 0,
    };
    // SAFETY: pool is a valid, exclusively used pool.
    unsafe { abi::gf2x_mul_pool_init(&raw mut pool) };
    let call =
        |c: *mut c_ulong, pa: *const c_ulong, pb: *const c_ulong, pool: *mut abi::Gf2xMulPool| {
            // SAFETY: the callers pass c valid for na + nb words, pa for na and
            // pb for nb (null only for zero lengths), as the entries require.
            unsafe {
                match entry {
                    0 => abi::gf2x_mul(c, pa, na as c_ulong, pb, nb as c_ulong),
                    1 => abi::gf2x_mul_r(c, pa, na as c_ulong, pb, nb as c_ulong, pool),
                    _ => abi::gf2x_mul_r(
                        c,
                        pa,
                        na as c_ulong,
                        pb,
                        nb as c_ulong,
                        core::ptr::null_mut(),
                    ),
                }
            }
        };
    let ptr_or_null = |v: &[u64]| {
        if v.is_empty() {
            core::ptr::null()
        } else {
            v.as_ptr()
        }
    };

    match mode {
        // A separate output (null pointers for empty operands).
        0 => {
            let mut c = vec![0x5a5a_5a5a_5a5a_5a5a_u64; cn];
            let cp = if cn == 0 {
                core::ptr::null_mut()
            } else {
                c.as_mut_ptr()
            };
            assert_eq!(call(cp, ptr_or_null(&a), ptr_or_null(&b), &raw mut pool), 0);
            assert_eq!(c, want, "{na}x{nb} entry {entry}");
        }
        // The output starting on a (c == a) or on b (c == b).
        1 | 2 => {
            let on_a = mode == 1;
            let mut buf = vec![0u64; cn.max(1)];
            let (src, other) = if on_a { (&a, &b) } else { (&b, &a) };
            buf[..src.len()].copy_from_slice(src);
            let p = buf.as_mut_ptr();
            let rc = if on_a {
                call(p, p, ptr_or_null(other), &raw mut pool)
            } else {
                call(p, ptr_or_null(other), p, &raw mut pool)
            };
            assert_eq!(rc, 0);
            assert_eq!(&buf[..cn], &want[..], "{na}x{nb} aliased, entry {entry}");
        }
        // The output overlapping a at a word offset within one buffer.
        _ => {
            let off = if na == 0 { 0 } else { offset % (na + cn) };
            let mut buf = vec![0u64; na + cn + off];
            buf[off..off + na].copy_from_slice(&a);
            let base = buf.as_mut_ptr();
            // SAFETY: off + na ≤ buf.len() and cn ≤ buf.len() (both within).
            let (pa, c) = unsafe { (base.add(off), base) };
            assert_eq!(call(c, pa, ptr_or_null(&b), &raw mut pool), 0);
            assert_eq!(&buf[..cn], &want[..], "{na}x{nb} overlap at {off}");
        }
    }
    // A null pointer with a non-zero length: an error, output untouched.
    if na > 0 {
        let mut c = vec![7u64; cn];
        assert_eq!(
            call(
                c.as_mut_ptr(),
                core::ptr::null(),
                ptr_or_null(&b),
                &raw mut pool
            ),
            -1
        );
        assert!(c.iter().all(|&w| w == 7));
    }
    // gf2x_mul_toom on balanced operands, scratch from gf2x_toomspace.
    if na == nb {
        let n = na as c_long;
        let need = abi::gf2x_toomspace(n);
        let mut stk = vec![0u64; usize::try_from(need).unwrap_or(0).max(1)];
        let mut c = vec![0u64; cn.max(1)];
        // SAFETY: a, b of n words, c of 2n, stk of gf2x_toomspace(n).
        unsafe {
            abi::gf2x_mul_toom(
                c.as_mut_ptr(),
                ptr_or_null(&a),
                ptr_or_null(&b),
                n,
                stk.as_mut_ptr(),
            );
        }
        assert_eq!(&c[..cn], &want[..], "toom {na}");
    }
    // SAFETY: initialised above, not used after.
    unsafe { abi::gf2x_mul_pool_clear(&raw mut pool) };
}

// ------------------------------------------------------------- gf2m

fn field_element<F: FieldElement>(d: &mut Input<'_>) -> F {
    let words: Vec<u64> = (0..F::WORDS).map(|_| d.u64()).collect();
    match F::from_word_slice(&words) {
        Ok(x) => x,
        Err(_) => {
            // Bits past m: refused; the same words reduced are accepted.
            let mut w = words;
            let top = F::M % 64;
            if let Some(last) = w.last_mut()
                && top != 0
            {
                *last &= (1u64 << top) - 1;
            }
            F::from_word_slice(&w).unwrap_or(F::ONE)
        }
    }
}

fn fixed_field<F: FieldElement>(d: &mut Input<'_>) {
    let (a, b) = (field_element::<F>(d), field_element::<F>(d));
    let k = usize::from(d.u8() % 20);
    let e = [d.u64(), d.u64()];
    let p = gf2m::Dispatch::portable();
    let expected = (
        p.mul(&a, &b),
        p.square(&a),
        p.sqrt(&a),
        p.invert(&a),
        p.half_trace(&a),
        p.pow2k(&a, k),
        p.pow(&a, &e),
    );
    for m in gf2m::Dispatch::all() {
        let got = (
            m.mul(&a, &b),
            m.square(&a),
            m.sqrt(&a),
            m.invert(&a),
            m.half_trace(&a),
            m.pow2k(&a, k),
            m.pow(&a, &e),
        );
        assert_eq!(
            got,
            expected,
            "{}: {} differs from portable",
            m.name(),
            F::M
        );
    }
    // Identities.
    assert_eq!(a.sqrt().square(), a);
    let inv = a.invert();
    if bool::from(a.is_zero()) {
        assert!(bool::from(inv.is_none()));
    } else {
        assert_eq!(inv.map(|i| i * a).unwrap_or(F::ZERO), F::ONE);
    }
    if let Some(z) = Option::<F>::from(a.solve_quadratic()) {
        assert_eq!(z.square() + z, a);
    } else {
        assert!(
            bool::from(a.trace()),
            "solvable (trace 0) but no root found"
        );
    }
    // Encodings round-trip.
    let mut bytes = vec![0u8; F::BYTES];
    assert!(a.write_be_bytes(&mut bytes).is_ok());
    assert_eq!(F::from_be_slice(&bytes), Ok(a));
    assert_eq!(format!("{a}").parse::<F>(), Ok(a));
    // The run-time field with the same modulus agrees.
    if let Some(f) = runtime_field::<F>() {
        let (x, y) = (f.from_words(a.as_words()), f.from_words(b.as_words()));
        if let (Ok(x), Ok(y)) = (x, y) {
            let prod = x.try_mul(&y).map(|z| z.as_words().to_vec());
            assert_eq!(prod, Ok(expected.0.as_words().to_vec()), "BinaryField mul");
            assert_eq!(
                x.sqrt().as_words(),
                expected.2.as_words(),
                "BinaryField sqrt"
            );
        }
    }
    // Batches of 0..=7 elements (pairs and an odd tail on the ymm backend)
    // against portable; read last, so earlier corpus inputs keep their
    // meaning.
    let n = usize::from(d.u8() % 8);
    let xs: Vec<F> = (0..n).map(|_| field_element::<F>(d)).collect();
    let ys: Vec<F> = (0..n).map(|_| field_element::<F>(d)).collect();
    let (mut products, mut squares) = (vec![F::ZERO; n], vec![F::ZERO; n]);
    assert_eq!(p.mul_slices(&mut products, &xs, &ys), Ok(()));
    assert_eq!(p.square_slices(&mut squares, &xs), Ok(()));
    for m in gf2m::Dispatch::all() {
        let mut got = vec![F::ONE; n];
        assert_eq!(m.mul_slices(&mut got, &xs, &ys), Ok(()));
        assert_eq!(got, products, "{}: {} mul_slices", m.name(), F::M);
        assert_eq!(m.square_slices(&mut got, &xs), Ok(()));
        assert_eq!(got, squares, "{}: {} square_slices", m.name(), F::M);
    }
}

/// The run-time field with `F`'s modulus, built once per degree (the
/// irreducibility test would otherwise dominate each execution).
fn runtime_field<F: FieldElement>() -> Option<&'static BinaryField> {
    static FIELDS: OnceLock<Vec<(usize, BinaryField)>> = OnceLock::new();
    let fields = FIELDS.get_or_init(|| {
        [
            F163::modulus_exponents(),
            F233::modulus_exponents(),
            F283::modulus_exponents(),
            F409::modulus_exponents(),
            F571::modulus_exponents(),
        ]
        .iter()
        .filter_map(|e| Some((e[0], BinaryField::new(Gf2Poly::from_exponents(e)).ok()?)))
        .collect()
    });
    fields.iter().find(|(m, _)| *m == F::M).map(|(_, f)| f)
}

fn normal_basis_163() -> Option<&'static GaussianNormalBasis> {
    static NB: OnceLock<Option<GaussianNormalBasis>> = OnceLock::new();
    NB.get_or_init(|| GaussianNormalBasis::lowest_type(163).ok())
        .as_ref()
}

/// GF(2^m) for the five NIST fields: every backend against portable
/// (product, square, root, inverse, half-trace, powers, batches), algebraic
/// identities, encodings, the run-time field, and the normal basis of
/// F163 (conversion both ways, product through the basis).
pub fn gf2m_ops(data: &[u8]) {
    let mut d = Input(data);
    match d.u8() % 6 {
        0 => fixed_field::<F163>(&mut d),
        1 => fixed_field::<F233>(&mut d),
        2 => fixed_field::<F283>(&mut d),
        3 => fixed_field::<F409>(&mut d),
        4 => fixed_field::<F571>(&mut d),
        _ => {
            let (a, b) = (field_element::<F163>(&mut d), field_element::<F163>(&mut d));
            if let Some(nb) = normal_basis_163() {
                let (x, y) = (nb.to_normal(&a), nb.to_normal(&b));
                if let (Ok(x), Ok(y)) = (x, y) {
                    assert_eq!(nb.from_normal::<F163>(&x), Ok(a), "normal basis round trip");
                    let xy = x.try_mul(&y);
                    let back = xy.map(|z| nb.from_normal::<F163>(&z));
                    assert_eq!(back, Ok(Ok(a * b)), "normal-basis product");
                    assert_eq!(nb.from_normal::<F163>(&x.square()), Ok(a.square()));
                    assert_eq!(nb.from_normal::<F163>(&x.sqrt()), Ok(a.sqrt()));
                    let bytes = x.to_be_bytes();
                    assert!(nb.from_be_bytes(&bytes).is_ok_and(|z| z == x));
                }
            }
        }
    }
}

// ------------------------------------------------------------- Kummer

/// Kummer scalar multiplication: every backend against portable, on the
/// base point and on points from the input that validate; pairs against
/// singles; Diffie–Hellman symmetric.
pub fn kummer(data: &[u8]) {
    let mut d = Input(data);
    let (n, m) = (d.array::<32>(), d.array::<32>());
    let candidate = d.array::<48>();
    let point = match PublicKey::from_bytes(&candidate) {
        Ok(p) => p.to_bytes(),
        Err(_) => kummer::BASE_POINT,
    };
    let portable = kummer::Dispatch::portable();
    let expected = portable.scalarmult(&n, &point);
    let expected_base = portable.scalarmult_base(&m);
    for b in kummer::Dispatch::all() {
        let name = b.name();
        assert_eq!(b.scalarmult(&n, &point), expected, "{name}: scalarmult");
        assert_eq!(
            b.scalarmult_base(&m),
            expected_base,
            "{name}: scalarmult_base"
        );
        assert_eq!(
            b.scalarmult_pair([&n, &m], [&point, &kummer::BASE_POINT]),
            [expected, expected_base],
            "{name}: scalarmult_pair"
        );
    }
    let (a, b) = (SecretKey::from_bytes(n), SecretKey::from_bytes(m));
    let (pa, pb) = (a.public_key(), b.public_key());
    let ab = a.diffie_hellman(&pb).map(|s| *s.as_bytes());
    let ba = b.diffie_hellman(&pa).map(|s| *s.as_bytes());
    assert_eq!(ab, ba, "Diffie–Hellman not symmetric");
}

// ------------------------------------------------------------- decoders

/// Every decoder on arbitrary input: an error or a value that re-encodes
/// to an equivalent input, never a panic.
pub fn decode(data: &[u8]) {
    let mut d = Input(data);
    let which = d.u8();
    let rest = d.rest();
    let text = String::from_utf8_lossy(rest);
    match which % 8 {
        0 => {
            if let Ok(p) = text.parse::<Gf2Poly>() {
                assert_eq!(p.to_string().parse::<Gf2Poly>(), Ok(p.clone()));
            }
            if let Ok(p) = Gf2Poly::from_hex(&text) {
                assert_eq!(Gf2Poly::from_hex(&p.to_hex()), Ok(p));
            }
        }
        1 => {
            let p = Gf2Poly::from_be_bytes(rest);
            assert_eq!(Gf2Poly::from_be_bytes(&p.to_be_bytes()), p);
            if rest.len() <= 24 {
                let _ = BinaryField::new(p);
            }
        }
        2 => {
            let mut b = [0u8; 48];
            let n = rest.len().min(48);
            b[..n].copy_from_slice(&rest[..n]);
            if let Ok(pk) = PublicKey::from_bytes(&b) {
                assert_eq!(pk.to_bytes(), b);
            }
        }
        3 => {
            decode_field::<F163>(rest, &text);
            decode_field::<F233>(rest, &text);
            decode_field::<F283>(rest, &text);
            decode_field::<F409>(rest, &text);
            decode_field::<F571>(rest, &text);
        }
        4 => {
            if let Ok(f) = BinaryField::sparse_irreducible(163) {
                let _ = f.from_hex(&text);
                if let Ok(x) = f.from_be_bytes(rest) {
                    assert_eq!(x.to_be_bytes(), rest);
                }
                let words: Vec<u64> = rest
                    .chunks(8)
                    .map(|c| c.iter().rev().fold(0, |acc, &b| (acc << 8) | u64::from(b)))
                    .collect();
                let _ = f.from_words(&words);
            }
        }
        5 => {
            if let Some(nb) = normal_basis_163() {
                let _ = nb.from_hex(&text);
                if let Ok(x) = nb.from_be_bytes(rest) {
                    assert_eq!(x.to_be_bytes(), rest);
                }
            }
        }
        6 => {
            // Gaussian normal bases with small parameters from the input.
            let m = usize::from(rest.first().copied().unwrap_or(0)) * 3;
            let t = usize::from(rest.get(1).copied().unwrap_or(0) % 12);
            let _ = GaussianNormalBasis::new(m, t);
        }
        _ => {
            // AEAD open on arbitrary bytes (key, nonce, then the message).
            let mut d = Input(rest);
            let key = d.array::<32>();
            let nonce = d.array::<12>();
            let msg = d.rest();
            let _ = ChaCha20Poly1305::new(&key.into()).decrypt(&nonce.into(), msg);
            let k16: [u8; 16] = key[..16].try_into().unwrap_or_default();
            let _ = Aes128Gcm::new(&k16.into()).decrypt(&nonce.into(), msg);
            let _ = Aes256Gcm::new(&key.into()).decrypt(&nonce.into(), msg);
        }
    }
}

fn decode_field<F: FieldElement>(bytes: &[u8], text: &str) {
    if let Ok(x) = F::from_be_slice(bytes) {
        let mut out = vec![0u8; F::BYTES];
        assert!(x.write_be_bytes(&mut out).is_ok());
        assert_eq!(out, bytes);
    }
    if let Ok(x) = text.parse::<F>() {
        assert_eq!(format!("{x}").parse::<F>(), Ok(x));
    }
    let words: Vec<u64> = bytes
        .chunks(8)
        .map(|c| c.iter().rev().fold(0, |acc, &b| (acc << 8) | u64::from(b)))
        .collect();
    if let Ok(x) = F::from_word_slice(&words) {
        assert_eq!(x.as_words(), &words[..]);
    }
}
