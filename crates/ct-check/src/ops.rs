//! The secret-handling operations, each a function that marks its secret
//! inputs with [`secret`], runs the operation on every backend this process
//! may use, and declassifies (`public`) only what a caller would publish.
//! Shared by `ct-check` (memcheck) and `dudect` (timing).

use crate::valgrind::{is_secret, secret};
use core::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Outputs that should carry a secret but were fully defined (see
/// [`is_secret`]): a non-zero count makes the operation fail.
pub static UNTAINTED_OUTPUTS: AtomicUsize = AtomicUsize::new(0);

/// Checks that `v`, an output computed from secrets, is still secret under
/// valgrind (the check is not vacuous), then declassifies it.
fn public<T: ?Sized>(v: &T) {
    if is_secret(v) == Some(false) {
        UNTAINTED_OUTPUTS.fetch_add(1, Ordering::Relaxed);
    }
    crate::valgrind::public(v);
}

/// Checks that `v` is secret, without declassifying it.
fn expect_secret<T: ?Sized>(v: &T) {
    if is_secret(v) == Some(false) {
        UNTAINTED_OUTPUTS.fetch_add(1, Ordering::Relaxed);
    }
}

/// [`expect_secret`], and keeps `v` alive.
fn tainted<T>(v: T) -> T {
    expect_secret(&v);
    black_box(v)
}
use fieldwork::gf2m::normal::GaussianNormalBasis;
use fieldwork::gf2m::{self, BinaryField, F163, F233, F283, F409, F571, FieldElement};
use fieldwork::{chacha20, chachapoly, gcm, gf2x, ghash, hazmat, kummer, poly1305};

/// One checked operation: a name and a body that takes the secret seed
/// (for `dudect`'s two classes; `ct-check` passes any).
pub struct Op {
    /// Area and operation, e.g. `gcm/seal`.
    pub name: &'static str,
    /// Runs the operation on all backends in effect; `seed` picks the
    /// secret values (0: the fixed class of `dudect`).
    pub run: fn(seed: u64),
}

/// A splitmix64 stream: deterministic test data, not a secure generator.
#[derive(Clone)]
pub struct Stream(pub u64);

impl Stream {
    /// The next 64 bits.
    pub fn word(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Fills `out`.
    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let w = self.word().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
    }

    /// `N` bytes.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0u8; N];
        self.fill(&mut b);
        b
    }

    /// `n` bytes.
    pub fn vec(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }
}

/// The secret values of one run: seed 0 gives the all-zero class (dudect's
/// fixed class), any other seed a pseudo-random one.
fn secret_stream(seed: u64) -> SecretRng {
    SecretRng {
        stream: Stream(seed),
        zero: seed == 0,
    }
}

/// A generator whose every output is marked secret: the library's own
/// `random` and `generate` functions then build secret elements and keys
/// without the checker touching their private representation.
pub struct SecretRng {
    stream: Stream,
    zero: bool,
}

impl SecretRng {
    fn word(&mut self) -> u64 {
        if self.zero { 0 } else { self.stream.word() }
    }

    /// `N` secret bytes.
    fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut b = [0u8; N];
        self.fill(&mut b);
        b
    }

    /// `n` secret bytes.
    fn vec(&mut self, n: usize) -> Vec<u8> {
        let mut v = vec![0u8; n];
        self.fill(&mut v);
        v
    }

    fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let w = self.word().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
        secret(out);
    }
}

impl fieldwork::rand_core::TryRng for SecretRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut v = self.word() as u32;
        secret(&mut v);
        Ok(v)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut v = self.word();
        secret(&mut v);
        Ok(v)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.fill(dst);
        Ok(())
    }
}

impl fieldwork::rand_core::TryCryptoRng for SecretRng {}

/// Public test data (lengths, nonces, associated data, public keys).
fn public_stream() -> Stream {
    Stream(0x5eed)
}

/// Message sizes: below one block, the aggregated and vector paths of every
/// backend (8-block GHASH, 4-block Poly1305, 8-block ChaCha20), and tails.
const MSG_LENS: [usize; 3] = [5, 16 * 9 + 5, 16 * 40 + 7];

/// Poly1305 also at 23 blocks with a partial last one: the AVX2 default's
/// complete-decimation path with the message's end in the last group.
const POLY_LENS: [usize; 4] = [5, 16 * 9 + 5, 16 * 22 + 7, 16 * 40 + 7];

/// ChaCha20-Poly1305 also at each AVX2 path's lengths: block 0 on the
/// integer unit beside the vector keystream (100, 149, 250), one 6-block
/// call (300), two calls (400), block 0 alone and the 8-block kernel
/// (480), a tail of at most 64, 192 or 320 bytes after groups from block
/// 0's call (552, 647 and 1 100, 812).
const AEAD_LENS: [usize; 11] = [
    5,
    100,
    16 * 9 + 5,
    250,
    300,
    400,
    480,
    552,
    16 * 40 + 7,
    812,
    1100,
];

// ---------------------------------------------------------------- ghash

fn ghash_op(seed: u64) {
    let mut s = secret_stream(seed);
    let h = s.bytes::<16>();
    for len in MSG_LENS {
        let msg = s.vec(len);
        let mut backends = hazmat::all::<ghash::GHash>(&h);
        backends.push(ghash::GHash::new(&h));
        for mut g in backends {
            let (a, b) = msg.split_at(len / 3);
            g.update(a);
            g.update(b);
            tainted(g.finalize());
        }
        tainted(ghash::ghash(&h, &msg));
    }
}

fn polyval_op(seed: u64) {
    let mut s = secret_stream(seed);
    let h = s.bytes::<16>();
    for len in MSG_LENS {
        let msg = s.vec(len);
        let mut backends = hazmat::all::<ghash::Polyval>(&h);
        backends.push(ghash::Polyval::new(&h));
        for mut g in backends {
            let (a, b) = msg.split_at(len / 3);
            g.update(a);
            g.update(b);
            tainted(g.finalize());
        }
        tainted(ghash::polyval(&h, &msg));
    }
}

// ---------------------------------------------------------------- gcm

macro_rules! gcm_ops {
    ($seal:ident, $open:ident, $ty:ty, $k:literal) => {
        fn $seal(seed: u64) {
            let mut s = secret_stream(seed);
            let key = s.bytes::<$k>();
            let mut p = public_stream();
            let (iv, aad) = (p.bytes::<12>(), p.vec(20));
            for len in MSG_LENS {
                let pt = s.vec(len);
                for c in fieldwork::hazmat::all::<$ty>(&key) {
                    let mut buf = pt.clone();
                    let tag = c.encrypt_in_place_detached_iv(&iv, &aad, &mut buf);
                    // Ciphertext and tag are published.
                    public(&buf[..]);
                    public(&tag);
                    black_box((buf, tag.is_ok()));
                }
            }
        }

        /// Opening with the right tag and with a wrong one (the tag
        /// comparison, the release or zeroing of the buffer); the key is
        /// secret, the ciphertext and tag public.
        fn $open(seed: u64) {
            let mut s = secret_stream(seed);
            let key = s.bytes::<$k>();
            let mut p = public_stream();
            let (iv, aad) = (p.bytes::<12>(), p.vec(20));
            for len in MSG_LENS {
                let mut ct = p.vec(len);
                // The sealing below produces the genuine tag; published.
                let tag = <$ty as fieldwork::hazmat::Backends>::with_backend("portable", &key)
                    .and_then(|c| c.encrypt_in_place_detached_iv(&iv, &aad, &mut ct).ok())
                    .unwrap_or_default();
                public(&ct[..]);
                public(&tag);
                for c in fieldwork::hazmat::all::<$ty>(&key) {
                    for forged in [false, true] {
                        let mut t = tag;
                        t[15] ^= u8::from(forged);
                        let mut buf = ct.clone();
                        let r = c.decrypt_in_place_detached_iv(&iv, &aad, &mut buf, &t);
                        if !forged {
                            expect_secret(&buf[..]);
                        }
                        black_box((r.is_ok(), buf));
                    }
                }
            }
        }
    };
}

gcm_ops!(gcm128_seal, gcm128_open, gcm::Aes128Gcm, 16);
gcm_ops!(gcm192_seal, gcm192_open, gcm::Aes192Gcm, 24);
gcm_ops!(gcm256_seal, gcm256_open, gcm::Aes256Gcm, 32);

// ---------------------------------------------------------------- poly1305

fn poly1305_op(seed: u64) {
    let mut s = secret_stream(seed);
    let key = s.bytes::<32>();
    for len in POLY_LENS {
        let msg = s.vec(len);
        for mut m in fieldwork::hazmat::all::<poly1305::Poly1305>(&key) {
            let (a, b) = msg.split_at(len / 2);
            m.update(a);
            m.update(b);
            let t = m.finalize();
            public(&t);
            black_box(t);
        }
        let t = poly1305::tag(&key, &msg);
        public(&t);
        black_box(t);
    }
}

fn poly1305_verify_op(seed: u64) {
    let mut s = secret_stream(seed);
    let key = s.bytes::<32>();
    let mut p = public_stream();
    for len in POLY_LENS {
        let msg = p.vec(len);
        let mut t = poly1305::tag(&key, &msg);
        public(&t);
        black_box(poly1305::verify(&key, &msg, &t).is_ok());
        t[3] ^= 0x40;
        black_box(poly1305::verify(&key, &msg, &t).is_ok());
    }
}

// ---------------------------------------------------------------- chacha20

fn chacha20_op(seed: u64) {
    let mut s = secret_stream(seed);
    let key = s.bytes::<32>();
    let mut p = public_stream();
    let nonce = p.bytes::<12>();
    let xnonce = p.bytes::<24>();
    for len in MSG_LENS.into_iter().chain([1100]) {
        let pt = s.vec(len);
        for mut c in fieldwork::hazmat::all::<chacha20::ChaCha20>((&key, &nonce)) {
            let mut buf = pt.clone();
            black_box(c.apply_keystream(&mut buf).is_ok());
            expect_secret(&buf[..]);
            black_box(buf);
        }
        let mut buf = pt.clone();
        black_box(
            chacha20::XChaCha20::new(&key, &xnonce)
                .apply_keystream(&mut buf)
                .is_ok(),
        );
        expect_secret(&buf[..]);
        black_box(buf);
    }
    black_box(chacha20::hchacha20(&key, &p.bytes::<16>()));
}

fn chachapoly_seal_op(seed: u64) {
    use chachapoly::aead::KeyInit;
    let mut s = secret_stream(seed);
    let key = s.bytes::<32>();
    let mut p = public_stream();
    let (nonce, xnonce, aad) = (p.bytes::<12>(), p.bytes::<24>(), p.vec(13));
    for len in AEAD_LENS {
        let pt = s.vec(len);
        let mut buf = pt.clone();
        let c = chachapoly::ChaCha20Poly1305::new(&key.into());
        let tag = c.encrypt_in_place_detached(&nonce, &aad, &mut buf);
        public(&buf[..]);
        public(&tag);
        black_box((buf, tag.is_ok()));
        let mut buf = pt.clone();
        let c = chachapoly::XChaCha20Poly1305::new(&key.into());
        let tag = c.encrypt_in_place_detached(&xnonce, &aad, &mut buf);
        public(&buf[..]);
        public(&tag);
        black_box((buf, tag.is_ok()));
    }
}

fn chachapoly_open_op(seed: u64) {
    use chachapoly::aead::KeyInit;
    let mut s = secret_stream(seed);
    let key = s.bytes::<32>();
    let mut p = public_stream();
    let (nonce, aad) = (p.bytes::<12>(), p.vec(13));
    let c = chachapoly::ChaCha20Poly1305::new(&key.into());
    for len in AEAD_LENS {
        let mut ct = p.vec(len);
        let tag = c
            .encrypt_in_place_detached(&nonce, &aad, &mut ct)
            .unwrap_or_default();
        public(&ct[..]);
        public(&tag);
        for forged in [false, true] {
            let mut t = tag;
            t[7] ^= u8::from(forged);
            let mut buf = ct.clone();
            let r = c.decrypt_in_place_detached(&nonce, &aad, &mut buf, &t);
            black_box((r.is_ok(), buf));
        }
    }
}

// ---------------------------------------------------------------- kummer

fn kummer_scalarmult_op(seed: u64) {
    let mut s = secret_stream(seed);
    let (n, m) = (s.bytes::<32>(), s.bytes::<32>());
    let point = kummer::BASE_POINT;
    for b in kummer::Dispatch::all() {
        let q = b.scalarmult(&n, &point);
        public(&q);
        black_box(q);
        let q = b.scalarmult_base(&n);
        public(&q);
        black_box(q);
        let qq = b.scalarmult_pair([&n, &m], [&point, &point]);
        public(&qq);
        black_box(qq);
    }
}

fn kummer_keys_op(seed: u64) {
    let mut s = secret_stream(seed);
    let alice = kummer::SecretKey::generate(&mut s);
    let bob = kummer::SecretKey::generate(&mut s);
    // Public keys are published.
    let pa = alice.public_key();
    public(pa.as_bytes());
    let pb = bob.public_key();
    public(pb.as_bytes());
    let (Ok(pa), Ok(pb)) = (
        kummer::PublicKey::from_bytes(&pa.to_bytes()),
        kummer::PublicKey::from_bytes(&pb.to_bytes()),
    ) else {
        return;
    };
    black_box(alice.diffie_hellman(&pb).is_ok());
    black_box(bob.diffie_hellman(&pa).is_ok());
    let [x, y] = kummer::SecretKey::diffie_hellman_pair([(&alice, &pb), (&bob, &pa)]);
    black_box((x.is_ok(), y.is_ok()));
}

// ---------------------------------------------------------------- gf2x

fn words(s: &mut SecretRng, n: usize) -> Vec<u64> {
    let mut v: Vec<u64> = (0..n).map(|_| s.word()).collect();
    secret(&mut v[..]);
    v
}

fn gf2x_op(seed: u64) {
    let mut s = secret_stream(seed);
    for b in gf2x::Dispatch::all() {
        let (x, y) = (s.word(), s.word());
        let (mut x, mut y) = (x, y);
        secret(&mut x);
        secret(&mut y);
        tainted(b.clmul64(x, y));
        for (na, nb) in [
            (1, 1),
            (2, 2),
            (3, 3),
            (4, 4),
            (5, 5),
            (6, 6),
            (7, 7),
            (8, 8),
            (9, 9),
            (16, 16),
            (17, 17),
            (33, 31),
            (100, 100),
            (300, 300),
            (7, 200),
        ] {
            let (a, c) = (words(&mut s, na), words(&mut s, nb));
            let mut out = vec![0u64; na + nb];
            black_box(b.mul_into(&mut out, &a, &c).is_ok());
            expect_secret(&out[..]);
            let mut sq = vec![0u64; 2 * na];
            black_box(b.square_into(&mut sq, &a).is_ok());
            expect_secret(&sq[..]);
        }
        let (mut a3, mut c3) = (
            [s.word(), s.word(), s.word()],
            [s.word(), s.word(), s.word()],
        );
        secret(&mut a3);
        secret(&mut c3);
        black_box(b.mul_fixed(&a3, &c3));
        // The additive FFT, below its threshold through `mul_fft`.
        let (a, c) = (words(&mut s, 130), words(&mut s, 130));
        let mut out = vec![0u64; 260];
        let mut scratch = vec![0u64; gf2x::fft_scratch_len(130, 130)];
        black_box(b.mul_fft(&mut out, &a, &c, &mut scratch).is_ok());
        expect_secret(&out[..]);
    }
    // The dispatched entry point.
    let (a, c) = (words(&mut s, 40), words(&mut s, 40));
    let mut out = vec![0u64; 80];
    black_box(gf2x::mul_into(&mut out, &a, &c).is_ok());
    expect_secret(&out[..]);
}

// ---------------------------------------------------------------- gf2m

fn fixed_field<F: FieldElement>(s: &mut SecretRng) {
    let (a, c) = (F::random(s), F::random(s));
    let mut e = [s.word(), s.word()];
    secret(&mut e);
    for b in gf2m::Dispatch::all() {
        tainted(b.mul(&a, &c));
        black_box(b.square(&a));
        black_box(b.sqrt(&a));
        tainted(b.invert(&a));
        black_box(b.half_trace(&a));
        black_box(b.pow2k(&a, 5));
        black_box(b.pow(&a, &e));
        let mut out = [F::ZERO; 3];
        black_box(b.mul_slices(&mut out, &[a, c, a], &[c, a, a]).is_ok());
        black_box(b.square_slices(&mut out, &[a, c, a]).is_ok());
        black_box(&out);
        let mut v = [a, c, a * c];
        b.invert_batch(&mut v);
        black_box(&v);
    }
    tainted(a * c);
    black_box(a + c);
    black_box(a.invert());
    black_box(a.sqrt());
    black_box(a.trace());
    black_box(a.half_trace());
    tainted(a.solve_quadratic());
    black_box(a.pow(&e));
    black_box(a.pow2k(3));
    black_box(a.is_zero());
}

fn gf2m_fixed_op(seed: u64) {
    let mut s = secret_stream(seed);
    fixed_field::<F163>(&mut s);
    fixed_field::<F233>(&mut s);
    fixed_field::<F283>(&mut s);
    fixed_field::<F409>(&mut s);
    fixed_field::<F571>(&mut s);
}

fn gf2m_runtime_op(seed: u64) {
    let mut s = secret_stream(seed);
    let fields = [
        BinaryField::sparse_irreducible(163),
        BinaryField::sparse_irreducible(251),
        BinaryField::sparse_irreducible(600),
    ];
    for f in fields.into_iter().flatten() {
        let (a, c) = (f.random(&mut s), f.random(&mut s));
        let mut e = [s.word(), s.word()];
        secret(&mut e);
        if let Ok(p) = a.try_mul(&c) {
            expect_secret(p.as_words());
        }
        black_box(a.try_add(&c).is_ok());
        black_box(a.square());
        black_box(a.sqrt());
        black_box(a.invert());
        black_box(a.trace());
        black_box(a.half_trace());
        black_box(a.solve_quadratic());
        black_box(a.pow(&e));
        black_box(a.pow2k(7));
        black_box(a.is_zero());
    }
}

fn gf2m_normal_op(seed: u64) {
    let mut s = secret_stream(seed);
    for m in [163usize, 233] {
        let Ok(nb) = GaussianNormalBasis::lowest_type(m) else {
            continue;
        };
        let (a, c) = (nb.random(&mut s), nb.random(&mut s));
        let mut e = [s.word(), s.word()];
        secret(&mut e);
        black_box(a.try_mul(&c).is_ok());
        black_box(a.try_add(&c).is_ok());
        let p = &a * &c;
        expect_secret(&p.to_be_bytes()[..]);
        black_box(a.square());
        black_box(a.sqrt());
        black_box(a.invert());
        black_box(a.trace());
        black_box(a.pow(&e));
        black_box(a.pow2k(5));
        black_box(a.is_zero());
    }
    // The change of basis between F163 and its type-4 normal basis.
    if let Ok(nb) = GaussianNormalBasis::lowest_type(163) {
        let x = F163::random(&mut s);
        let n = nb.to_normal(&x);
        black_box(n.as_ref().is_ok());
        if let Ok(n) = n {
            black_box(nb.from_normal::<F163>(&n).is_ok());
        }
    }
}

/// Every operation of the library on secret data.
pub const OPS: &[Op] = &[
    Op {
        name: "ghash/ghash",
        run: ghash_op,
    },
    Op {
        name: "ghash/polyval",
        run: polyval_op,
    },
    Op {
        name: "gcm/aes128-seal",
        run: gcm128_seal,
    },
    Op {
        name: "gcm/aes128-open",
        run: gcm128_open,
    },
    Op {
        name: "gcm/aes192-seal",
        run: gcm192_seal,
    },
    Op {
        name: "gcm/aes192-open",
        run: gcm192_open,
    },
    Op {
        name: "gcm/aes256-seal",
        run: gcm256_seal,
    },
    Op {
        name: "gcm/aes256-open",
        run: gcm256_open,
    },
    Op {
        name: "poly1305/mac",
        run: poly1305_op,
    },
    Op {
        name: "poly1305/verify",
        run: poly1305_verify_op,
    },
    Op {
        name: "chacha20/keystream",
        run: chacha20_op,
    },
    Op {
        name: "chachapoly/seal",
        run: chachapoly_seal_op,
    },
    Op {
        name: "chachapoly/open",
        run: chachapoly_open_op,
    },
    Op {
        name: "kummer/scalarmult",
        run: kummer_scalarmult_op,
    },
    Op {
        name: "kummer/keygen-dh",
        run: kummer_keys_op,
    },
    Op {
        name: "gf2x/products",
        run: gf2x_op,
    },
    Op {
        name: "gf2m/fixed-F163..F571",
        run: gf2m_fixed_op,
    },
    Op {
        name: "gf2m/binary-field",
        run: gf2m_runtime_op,
    },
    Op {
        name: "gf2m/normal-basis",
        run: gf2m_normal_op,
    },
];

// ---------------------------------------------------------------- leaky

/// A 256-entry table (any contents): the leaky variants index it.
static TABLE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = (i as u8).wrapping_mul(167).wrapping_add(13);
        i += 1;
    }
    t
};

/// Leaky on purpose: an early-exit comparison of a GCM tag computed under
/// a secret key (a secret-dependent branch).
#[inline(never)]
fn leaky_tag_compare(seed: u64) {
    let mut s = secret_stream(seed);
    let key = s.bytes::<16>();
    let mut buf = [0u8; 32];
    let tag = <gcm::Aes128Gcm as fieldwork::hazmat::Backends>::with_backend("portable", &key)
        .and_then(|c| {
            c.encrypt_in_place_detached_iv(&[0u8; 12], &[], &mut buf)
                .ok()
        })
        .unwrap_or_default();
    let given = [0x5au8; 16];
    let mut equal = true;
    for (x, y) in tag.iter().zip(given.iter()) {
        if x != y {
            equal = false;
            break;
        }
    }
    black_box(equal);
}

/// Leaky on purpose: a table lookup indexed by secret bytes (a
/// secret-dependent memory address, as in table-based S-boxes or
/// log/antilog field multiplication).
#[inline(never)]
fn leaky_table_index(seed: u64) {
    let mut s = secret_stream(seed);
    let k = s.bytes::<64>();
    let mut acc = 0u8;
    for &b in &k {
        acc ^= TABLE[usize::from(b ^ acc)];
    }
    black_box(acc);
}

/// Leaky on purpose: square-and-multiply in F163 with a branch on each bit
/// of a secret exponent (the library's own `pow` is a fixed sequence).
#[inline(never)]
fn leaky_gf2m_pow(seed: u64) {
    let mut s = secret_stream(seed);
    let a = F163::random(&mut s);
    let e = s.bytes::<8>();
    let e = u64::from_le_bytes(e);
    let mut r = F163::ONE;
    for i in (0..64).rev() {
        r = r.square();
        if (e >> i) & 1 == 1 {
            r *= a;
        }
    }
    black_box(r);
}

/// The deliberately leaky variants: each must be reported.
pub const LEAKY: &[Op] = &[
    Op {
        name: "leaky/early-exit-tag-compare",
        run: leaky_tag_compare,
    },
    Op {
        name: "leaky/secret-table-index",
        run: leaky_table_index,
    },
    Op {
        name: "leaky/branchy-gf2m-pow",
        run: leaky_gf2m_pow,
    },
];
