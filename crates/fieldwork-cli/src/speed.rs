//! `fieldwork speed`: every primitive at the sizes that matter, timed with
//! the shared interleaved sampler of `benchtime`.
//!
//! Each case is a routine that performs the operation `n` times; where the
//! operation is short, calls are chained (each input depends on the previous
//! output), so the figure is the latency a caller sees in a dependent chain.
//! Peer comparisons live in `peer-bench`; this command reports our own
//! figures, with the backend in use (or all of them with `--all-backends`).

use crate::SpeedArgs;
use benchtime::{Clock, Json, Routine, Sampler, Table};
use fieldwork::cpu::CpuReport;
use fieldwork::gcm::aead::KeyInit;
use fieldwork::gcm::{Aes128Gcm, Aes256Gcm};
use fieldwork::gf2m::{self, F163, F233, F283, F409, F571, FieldElement};
use fieldwork::gf2x::{Dispatch, mul_scratch_len};
use fieldwork::ghash::{GHash, Polyval};
use fieldwork::hazmat::Backends as _;
use fieldwork::kummer;
use std::hint::black_box;
use std::io::{IsTerminal, Write};

/// One timed case.
struct SpeedCase {
    primitive: &'static str,
    backend: &'static str,
    size: String,
    /// Bytes of input per call, for cycles/byte and throughput; `None` for
    /// operations measured per call only.
    bytes: Option<u64>,
    routine: Routine<'static>,
}

/// Every case the library has, in table order.
fn cases(all_backends: bool) -> Vec<SpeedCase> {
    let mut out = Vec::new();
    let clmul_backends: Vec<Dispatch> = if all_backends {
        Dispatch::all().collect()
    } else {
        vec![Dispatch::best()]
    };
    for &m in &clmul_backends {
        let mut a = 0x0123_4567_89ab_cdefu64;
        let b = 0x9e37_79b9_7f4a_7c15u64;
        out.push(SpeedCase {
            primitive: "gf2x::clmul64",
            backend: m.name(),
            size: "64×64 bit".into(),
            bytes: None,
            routine: Box::new(move |n| {
                for _ in 0..n {
                    let r = m.clmul64(a, b);
                    a = (r as u64) ^ ((r >> 64) as u64) ^ 1;
                }
                black_box(a);
            }),
        });
    }
    for &m in &clmul_backends {
        for n in [1usize, 2, 3, 4, 5, 7, 9, 16, 64, 256, 1024, 4096] {
            out.push(gf2x_mul_case(m, n));
        }
        for n in [9usize, 1024] {
            out.push(gf2x_square_case(m, n));
        }
    }
    let kummer_backends: Vec<kummer::Dispatch> = if all_backends {
        kummer::Dispatch::all().collect()
    } else {
        vec![kummer::Dispatch::best()]
    };
    for &k in &kummer_backends {
        out.push(kummer_keygen_case(k));
        out.push(kummer_shared_case(k));
    }
    out.extend(hash_cases::<GHash>(all_backends));
    out.extend(hash_cases::<Polyval>(all_backends));
    out.extend(gcm_cases::<Aes128Gcm>(all_backends));
    out.extend(gcm_cases::<Aes256Gcm>(all_backends));
    out.extend(poly1305_cases(all_backends));
    out.extend(chacha_cases(all_backends));
    out.extend(gf2m_cases::<F163>(all_backends));
    out.extend(gf2m_cases::<F233>(all_backends));
    out.extend(gf2m_cases::<F283>(all_backends));
    out.extend(gf2m_cases::<F409>(all_backends));
    out.extend(gf2m_cases::<F571>(all_backends));
    for (m, t) in [(163, 4), (233, 2), (283, 6), (409, 4), (571, 10)] {
        out.extend(normal_cases(m, t));
    }
    out
}

/// A Gaussian normal basis of FIPS 186-2 (m, t): chained products,
/// squares (rotations) and inversions in the Gauss-period embedding, and
/// for scale the p-bit `gf2x` product that each normal-basis product costs.
fn normal_cases(m: usize, t: usize) -> Vec<SpeedCase> {
    use fieldwork::gf2m::normal::GaussianNormalBasis;
    let Ok(nb) = GaussianNormalBasis::new(m, t) else {
        return Vec::new();
    };
    let p = nb.prime();
    let coords = |seed: u64| {
        let mut w = words(m.div_ceil(64), seed);
        if !m.is_multiple_of(64) {
            let last = w.len() - 1;
            w[last] &= (1 << (m % 64)) - 1;
        }
        w
    };
    let (Ok(a0), Ok(b)) = (
        nb.from_coordinates(&coords(1)),
        nb.from_coordinates(&coords(2)),
    ) else {
        return Vec::new();
    };
    let size = format!("m = {m}, t = {t}");
    let label =
        |op: &str| -> &'static str { Box::leak(format!("gf2m::normal {op}").into_boxed_str()) };
    let mut out = Vec::new();
    let mut a = a0.clone();
    let b2 = b.clone();
    out.push(SpeedCase {
        primitive: label("mul"),
        backend: "embedding",
        size: size.clone(),
        bytes: None,
        routine: Box::new(move |n| {
            for _ in 0..n {
                a *= &b2;
                a += &b2;
            }
            black_box(&a);
        }),
    });
    let mut a = a0.clone();
    out.push(SpeedCase {
        primitive: label("square"),
        backend: "embedding",
        size: size.clone(),
        bytes: None,
        routine: Box::new(move |n| {
            for _ in 0..n {
                a = a.square();
            }
            black_box(&a);
        }),
    });
    let mut a = a0;
    let one = nb.one();
    out.push(SpeedCase {
        primitive: label("invert"),
        backend: "embedding",
        size: size.clone(),
        bytes: None,
        routine: Box::new(move |n| {
            for _ in 0..n {
                a = &Option::from(a.invert()).unwrap_or_else(|| one.clone()) + &one;
            }
            black_box(&a);
        }),
    });
    let pw = p.div_ceil(64);
    let (x, y) = (words(pw, 3), words(pw, 4));
    let mut z = vec![0u64; 2 * pw];
    let k = Dispatch::best();
    out.push(SpeedCase {
        primitive: label("p-bit gf2x product"),
        backend: k.name(),
        size: format!("p = {p} ({pw} words)"),
        bytes: None,
        routine: Box::new(move |n| {
            for _ in 0..n {
                let _ = k.mul_into(&mut z, black_box(&x), black_box(&y));
            }
            black_box(&z);
        }),
    });
    out
}

/// GF(2^m): chained products, squares, inversions, square roots and
/// half-traces of one field (each input the previous output, so the figure
/// is latency), and a batch of 1024 independent products.
fn gf2m_cases<F: FieldElement + 'static>(all_backends: bool) -> Vec<SpeedCase> {
    let backends: Vec<gf2m::Dispatch> = if all_backends {
        gf2m::Dispatch::all().collect()
    } else {
        vec![gf2m::Dispatch::best()]
    };
    let element = |seed: u64| {
        let mut w = words(F::WORDS, seed);
        if F::M % 64 != 0 {
            w[F::WORDS - 1] &= (1 << (F::M % 64)) - 1;
        }
        F::from_word_slice(&w).unwrap_or(F::ONE)
    };
    let (a0, b) = (element(1), element(2));
    let mut out = Vec::new();
    type Op<F> = fn(gf2m::Dispatch, &F, &F) -> F;
    let ops: [(&str, Op<F>); 6] = [
        ("mul", |k, a, b| k.mul(a, b)),
        ("square", |k, a, _| k.square(a)),
        ("invert", |k, a, _| k.invert(a)),
        // Bernstein–Yang divsteps, the candidate of issue 24 (not used by
        // `invert`).
        ("invert_divstep", |k, a, _| k.invert_divstep(a)),
        ("sqrt", |k, a, _| k.sqrt(a)),
        ("half_trace", |k, a, _| k.half_trace(a)),
    ];
    for &k in &backends {
        for (name, op) in ops {
            let mut a = a0;
            out.push(SpeedCase {
                primitive: gf2m_name::<F>(name),
                backend: k.name(),
                size: format!("m = {}", F::M),
                bytes: None,
                routine: Box::new(move |n| {
                    for _ in 0..n {
                        a = op(k, &a, &b) + F::ONE;
                    }
                    black_box(a);
                }),
            });
        }
        let xs: Vec<F> = (0..1024).map(|i| element(10 + i)).collect();
        let ys: Vec<F> = (0..1024).map(|i| element(5000 + i)).collect();
        let mut zs = vec![F::ZERO; 1024];
        out.push(SpeedCase {
            primitive: gf2m_name::<F>("mul_slices ×1024"),
            backend: k.name(),
            size: format!("m = {}", F::M),
            bytes: None,
            routine: Box::new(move |n| {
                for _ in 0..n {
                    let _ = k.mul_slices(&mut zs, black_box(&xs), black_box(&ys));
                }
                black_box(&zs);
            }),
        });
    }
    out
}

/// `gf2m::F163 mul` and the like, as a `'static` label.
fn gf2m_name<F: FieldElement>(op: &str) -> &'static str {
    let ty = match F::M {
        163 => "F163",
        233 => "F233",
        283 => "F283",
        409 => "F409",
        _ => "F571",
    };
    Box::leak(format!("gf2m::{ty} {op}").into_boxed_str())
}

/// The message length of the Poly1305, ChaCha20 and ChaCha20-Poly1305
/// rows: 16 KiB.
const STREAM_BYTES: usize = 16 * 1024;

/// A Poly1305 constructor (`None` where the CPU lacks the backend).
type MakePoly1305 = fn(&[u8; 32]) -> Option<fieldwork::poly1305::Poly1305>;
/// A ChaCha20 constructor (`None` where the CPU lacks the backend).
type MakeChaCha20 = fn(&[u8; 32], &[u8; 12]) -> Option<fieldwork::chacha20::ChaCha20>;

/// Poly1305 of 16 KiB, key setup included (a key is for one message), on
/// the best backend or each one.
fn poly1305_cases(all_backends: bool) -> Vec<SpeedCase> {
    use fieldwork::hazmat::Backends;
    use fieldwork::poly1305::Poly1305;
    let key: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(0x3b) ^ 0x5c);
    let message: Vec<u8> = words(STREAM_BYTES / 8, 7)
        .into_iter()
        .flat_map(u64::to_le_bytes)
        .collect();
    let makers: Vec<MakePoly1305> = if all_backends {
        vec![
            |k| Poly1305::with_backend("avx512ifma", k),
            |k| Poly1305::with_backend("avx2-decimation", k),
            |k| Poly1305::with_backend("avx2-goll-gueron", k),
            |k| Poly1305::with_backend("portable", k),
        ]
    } else {
        vec![|k| Some(Poly1305::new(k))]
    };
    let mut out = Vec::new();
    for make in makers {
        let Some(p) = make(&key) else { continue };
        let message = message.clone();
        out.push(SpeedCase {
            primitive: "poly1305::Poly1305",
            backend: p.backend_name(),
            size: "16 KiB".into(),
            bytes: Some(STREAM_BYTES as u64),
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    if let Some(mut p) = make(black_box(&key)) {
                        p.update(black_box(&message));
                        black_box(p.finalize());
                    }
                }
            }),
        });
    }
    out
}

/// ChaCha20 over 16 KiB (each backend with `--all-backends`) and
/// ChaCha20-Poly1305 sealing 16 KiB with 13 bytes of associated data.
fn chacha_cases(all_backends: bool) -> Vec<SpeedCase> {
    use fieldwork::chacha20::ChaCha20;
    use fieldwork::chachapoly::ChaCha20Poly1305;
    use fieldwork::hazmat::Backends;
    let key: [u8; 32] = std::array::from_fn(|i| (i as u8).wrapping_mul(0x29) ^ 0x71);
    let nonce: [u8; 12] = std::array::from_fn(|i| (i as u8).wrapping_mul(0x47) ^ 0x13);
    let message: Vec<u8> = words(STREAM_BYTES / 8, 9)
        .into_iter()
        .flat_map(u64::to_le_bytes)
        .collect();
    let makers: Vec<MakeChaCha20> = if all_backends {
        vec![
            |k, n| ChaCha20::with_backend("avx512", (k, n)),
            |k, n| ChaCha20::with_backend("avx2", (k, n)),
            |k, n| ChaCha20::with_backend("portable", (k, n)),
        ]
    } else {
        vec![|k, n| Some(ChaCha20::new(k, n))]
    };
    let mut out = Vec::new();
    for make in makers {
        let Some(c) = make(&key, &nonce) else {
            continue;
        };
        let mut buf = message.clone();
        out.push(SpeedCase {
            primitive: "chacha20::ChaCha20",
            backend: c.backend_name(),
            size: "16 KiB".into(),
            bytes: Some(STREAM_BYTES as u64),
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    if let Some(mut c) = make(black_box(&key), black_box(&nonce)) {
                        let _ = c.apply_keystream(black_box(&mut buf[..]));
                    }
                }
            }),
        });
    }
    let aead = ChaCha20Poly1305::new(&key.into());
    let backend = aead.backend_name();
    let aad: Vec<u8> = (0..GCM_AAD_BYTES as u8).collect();
    let mut buf = message;
    out.push(SpeedCase {
        primitive: "chachapoly::ChaCha20Poly1305 encrypt",
        backend,
        size: "16 KiB, 13 B AAD".into(),
        bytes: Some(STREAM_BYTES as u64),
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                let _ = black_box(aead.encrypt_in_place_detached(
                    black_box(&nonce),
                    black_box(&aad),
                    black_box(&mut buf[..]),
                ));
            }
        }),
    });
    out
}

/// The message length of the AES-GCM rows: 16 KiB …
const GCM_BYTES: usize = 16 * 1024;
/// … with 13 bytes of additional data (TLS 1.2's), as in peer-bench.
const GCM_AAD_BYTES: usize = 13;

/// An AES-GCM type, as the speed rows drive it.
trait GcmCipher: Sized + 'static {
    /// The `primitive` column.
    const PRIMITIVE: &'static str;
    /// The key length in bytes.
    const KEY_BYTES: usize;
    /// The instances to time for `key` (of `KEY_BYTES` bytes): the default
    /// (fastest) one, then with `--all-backends` one per backend this CPU
    /// runs.
    fn instances(key: &[u8], all_backends: bool) -> Vec<Self>;
    fn backend(&self) -> &'static str;
    fn encrypt(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]>;
}

macro_rules! gcm_cipher {
    ($($t:ident, $primitive:literal, $bytes:literal;)*) => {$(
        impl GcmCipher for $t {
            const PRIMITIVE: &'static str = $primitive;
            const KEY_BYTES: usize = $bytes;
            fn instances(key: &[u8], all_backends: bool) -> Vec<Self> {
                let Ok(key) = <[u8; $bytes]>::try_from(key) else {
                    return Vec::new();
                };
                let mut v = vec![<$t as KeyInit>::new(&key.into())];
                if all_backends {
                    v.extend(fieldwork::hazmat::all::<$t>(&key));
                }
                v
            }
            fn backend(&self) -> &'static str {
                self.backend_name()
            }
            fn encrypt(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Option<[u8; 16]> {
                self.encrypt_in_place_detached_iv(nonce, aad, buf).ok()
            }
        }
    )*};
}

gcm_cipher! {
    Aes128Gcm, "gcm::Aes128Gcm encrypt", 16;
    Aes256Gcm, "gcm::Aes256Gcm encrypt", 32;
}

/// AES-GCM encryption of 16 KiB with 13 bytes of AAD, per backend (each
/// once: the default is also one of the backends): the key prepared once
/// (key schedule and powers of H outside the timed region), then per call
/// `encrypt_in_place_detached_iv` with a 12-byte nonce on the same buffer,
/// which is encrypted again each time (the cost does not depend on the
/// contents). Calls are independent.
fn gcm_cases<C: GcmCipher>(all_backends: bool) -> Vec<SpeedCase> {
    let key: Vec<u8> = (0..C::KEY_BYTES)
        .map(|i| (i as u8).wrapping_mul(0x9d) ^ 0x3a)
        .collect();
    let nonce: [u8; 12] = std::array::from_fn(|i| (i as u8).wrapping_mul(0x47) ^ 0x11);
    let aad: Vec<u8> = (0..GCM_AAD_BYTES as u8).collect();
    let message: Vec<u8> = words(GCM_BYTES / 8, 5)
        .into_iter()
        .flat_map(u64::to_le_bytes)
        .collect();
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for cipher in C::instances(&key, all_backends) {
        let backend = cipher.backend();
        if seen.contains(&backend) {
            continue;
        }
        seen.push(backend);
        let aad = aad.clone();
        let mut buf = message.clone();
        out.push(SpeedCase {
            primitive: C::PRIMITIVE,
            backend,
            size: "16 KiB, 13 B AAD".into(),
            bytes: Some(GCM_BYTES as u64),
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    black_box(cipher.encrypt(
                        black_box(&nonce),
                        black_box(&aad),
                        black_box(&mut buf[..]),
                    ));
                }
            }),
        });
    }
    out
}

/// The message length of the GHASH and POLYVAL rows: 16 KiB.
const HASH_BYTES: usize = 16 * 1024;

/// A keyed state for a 16-byte key, on one backend (`None`: the CPU lacks it).
type Constructor<H> = fn(&[u8; 16]) -> Option<H>;

/// GHASH or POLYVAL, as the speed rows drive them.
trait KeyedHash: Clone + 'static {
    /// The `primitive` column.
    const PRIMITIVE: &'static str;
    /// The constructors to time: the default (fastest) one, then with
    /// `--all-backends` each backend's (`None` where the CPU lacks it).
    fn constructors(all_backends: bool) -> Vec<Constructor<Self>>;
    fn backend(&self) -> &'static str;
    fn absorb(&mut self, data: &[u8]);
    fn tag(self) -> [u8; 16];
}

impl KeyedHash for GHash {
    const PRIMITIVE: &'static str = "ghash::GHash";
    fn constructors(all_backends: bool) -> Vec<Constructor<Self>> {
        let mut c: Vec<Constructor<Self>> = vec![|h| Some(GHash::new(h))];
        if all_backends {
            c.push(|h| GHash::with_backend("pclmulqdq", h));
            c.push(|h| GHash::with_backend("portable", h));
        }
        c
    }
    fn backend(&self) -> &'static str {
        self.backend_name()
    }
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }
    fn tag(self) -> [u8; 16] {
        self.finalize()
    }
}

impl KeyedHash for Polyval {
    const PRIMITIVE: &'static str = "ghash::Polyval";
    fn constructors(all_backends: bool) -> Vec<Constructor<Self>> {
        let mut c: Vec<Constructor<Self>> = vec![|h| Some(Polyval::new(h))];
        if all_backends {
            c.push(|h| Polyval::with_backend("pclmulqdq", h));
            c.push(|h| Polyval::with_backend("portable", h));
        }
        c
    }
    fn backend(&self) -> &'static str {
        self.backend_name()
    }
    fn absorb(&mut self, data: &[u8]) {
        self.update(data);
    }
    fn tag(self) -> [u8; 16] {
        self.finalize()
    }
}

/// GHASH or POLYVAL of 16 KiB, per backend (each once: the default is
/// also one of the backends), two rows each: the whole keyed hash (`new`,
/// `update`, `finalize`; the key powers are computed on first need, so this
/// includes them), and with the key prepared (`update` + `finalize` on a
/// clone of a state that has already absorbed 64 zero blocks — which
/// computes every key power and leaves the hash unchanged, a leading zero
/// block keeping the accumulator at zero). Calls are independent: the same
/// key and message each time, hidden from the optimiser.
fn hash_cases<H: KeyedHash>(all_backends: bool) -> Vec<SpeedCase> {
    let key: [u8; 16] = std::array::from_fn(|i| (i as u8).wrapping_mul(0x9d) ^ 0x5c);
    let message: Vec<u8> = words(HASH_BYTES / 8, 4)
        .into_iter()
        .flat_map(u64::to_le_bytes)
        .collect();
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for new in H::constructors(all_backends) {
        let Some(mut prepared) = new(&key) else {
            continue;
        };
        let backend = prepared.backend();
        if seen.contains(&backend) {
            continue;
        }
        seen.push(backend);
        let data = message.clone();
        out.push(SpeedCase {
            primitive: H::PRIMITIVE,
            backend,
            size: "16 KiB".into(),
            bytes: Some(HASH_BYTES as u64),
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    // `new` gave a state for this key above: it does again.
                    if let Some(mut h) = new(black_box(&key)) {
                        h.absorb(black_box(&data));
                        black_box(h.tag());
                    }
                }
            }),
        });
        prepared.absorb(&[0u8; 1024]);
        let data = message.clone();
        out.push(SpeedCase {
            primitive: H::PRIMITIVE,
            backend,
            size: "16 KiB, key prepared".into(),
            bytes: Some(HASH_BYTES as u64),
            routine: Box::new(move |iters| {
                for _ in 0..iters {
                    let mut h = black_box(&prepared).clone();
                    h.absorb(black_box(&data));
                    black_box(h.tag());
                }
            }),
        });
    }
    out
}

fn words(n: usize, seed: u64) -> Vec<u64> {
    (0..n as u64)
        .map(|i| {
            (i ^ seed)
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .rotate_left(29)
        })
        .collect()
}

/// An n×n-word product, chained (the next first operand is the low half of
/// the product).
fn gf2x_mul_case(m: Dispatch, n: usize) -> SpeedCase {
    let (mut a, b) = (words(n, 1), words(n, 2));
    let mut out = vec![0u64; 2 * n];
    let mut scratch = vec![0u64; mul_scratch_len(n, n)];
    SpeedCase {
        primitive: "gf2x::mul_into",
        backend: m.name(),
        size: format!("{n}×{n} words"),
        bytes: None,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                // The lengths are right by construction: this cannot fail.
                let _ = m.mul_into_with_scratch(&mut out, &a, &b, &mut scratch);
                a.copy_from_slice(&out[..n]);
            }
            black_box(&out);
        }),
    }
}

/// The square of n words, chained.
fn gf2x_square_case(m: Dispatch, n: usize) -> SpeedCase {
    let mut a = words(n, 3);
    let mut out = vec![0u64; 2 * n];
    SpeedCase {
        primitive: "gf2x::square_into",
        backend: m.name(),
        size: format!("{n} words"),
        bytes: None,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                let _ = m.square_into(&mut out, &a);
                a.copy_from_slice(&out[n..]);
                a[0] ^= 1;
            }
            black_box(&out);
        }),
    }
}

/// Kummer key generation: `scalar · BASE_POINT`, chained (the next scalar
/// is the first 32 bytes of the public key).
fn kummer_keygen_case(k: kummer::Dispatch) -> SpeedCase {
    let mut scalar = [0x5au8; 32];
    SpeedCase {
        primitive: "kummer keygen",
        backend: k.name(),
        size: "251-bit scalar".into(),
        bytes: None,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                let public = k.scalarmult_base(&scalar);
                scalar.copy_from_slice(&public[..32]);
            }
            black_box(&scalar);
        }),
    }
}

/// A Kummer shared secret: `scalar · point` for a peer's point, chained
/// (the next point is the result; it stays on the surface).
fn kummer_shared_case(k: kummer::Dispatch) -> SpeedCase {
    let scalar = [0xa5u8; 32];
    let mut point = kummer::scalarmult_base(&[0x3cu8; 32]);
    SpeedCase {
        primitive: "kummer shared secret",
        backend: k.name(),
        size: "251-bit scalar".into(),
        bytes: None,
        routine: Box::new(move |iters| {
            for _ in 0..iters {
                point = k.scalarmult(&scalar, &point);
            }
            black_box(&point);
        }),
    }
}

/// Runs the selected cases and prints the table (and JSON if asked).
pub fn run(args: &SpeedArgs, report: &CpuReport) -> Result<(), String> {
    let mut selected: Vec<SpeedCase> = cases(args.all_backends)
        .into_iter()
        .filter(|c| match &args.filter {
            Some(f) => {
                c.primitive.contains(f.as_str())
                    || c.backend.contains(f.as_str())
                    || c.size.contains(f.as_str())
            }
            None => true,
        })
        .collect();
    if selected.is_empty() {
        return Err(format!(
            "no case matches the filter {:?}",
            args.filter.as_deref().unwrap_or("")
        ));
    }
    let clock = Clock::calibrate();
    let sampler = if args.quick {
        Sampler::quick(&clock)
    } else {
        Sampler::new(&clock)
    };
    println!("fieldwork speed — {}", benchtime::cpu_model());
    println!(
        "level {} (cap {}); {}; {}",
        report.level,
        report.cap.map_or("none".to_string(), |c| c.to_string()),
        clock.describe(),
        benchtime::today_utc()
    );
    println!();

    let mut table = Table::new(&[
        ("primitive", false),
        ("backend", false),
        ("size", false),
        ("median", true),
        ("throughput", true),
        ("ticks/op", true),
        ("cycles/op", true),
        ("cycles/byte", true),
    ]);
    let mut rows = Vec::new();
    let total = selected.len();
    let tty = std::io::stderr().is_terminal();
    for (i, case) in selected.iter_mut().enumerate() {
        let label = format!("{} {} {}", case.primitive, case.backend, case.size);
        if tty {
            eprint!("\r\x1b[2K[{}/{total}] {label}", i + 1);
        } else {
            eprintln!("[{}/{total}] {label}", i + 1);
        }
        let _ = std::io::stderr().flush();
        let t = sampler.run(std::slice::from_mut(&mut case.routine))[0];
        let ns = clock.ns(t.median);
        let cycles = clock.cycles(t.median);
        let cpb = case.bytes.map(|b| cycles / b as f64);
        let throughput = match case.bytes {
            Some(b) => benchtime::fmt_throughput(b as f64 / ns * 1e9),
            None => format!("{} Mop/s", benchtime::fmt_num(1e3 / ns)),
        };
        table.push(vec![
            case.primitive.to_string(),
            case.backend.to_string(),
            case.size.clone(),
            benchtime::fmt_time_ns(ns),
            throughput,
            benchtime::fmt_num(t.median),
            benchtime::fmt_num(cycles),
            cpb.map_or("–".to_string(), benchtime::fmt_num),
        ]);
        rows.push(Json::Obj(vec![
            ("primitive".into(), Json::Str(case.primitive.into())),
            ("backend".into(), Json::Str(case.backend.into())),
            ("size".into(), Json::Str(case.size.clone())),
            ("bytes".into(), case.bytes.map_or(Json::Null, Json::Int)),
            ("median_ns".into(), Json::Num(ns)),
            ("median_ticks".into(), Json::Num(t.median)),
            ("q1_ticks".into(), Json::Num(t.q1)),
            ("q3_ticks".into(), Json::Num(t.q3)),
            ("cycles_estimated".into(), Json::Num(cycles)),
            ("cycles_per_byte".into(), cpb.map_or(Json::Null, Json::Num)),
            ("samples".into(), Json::Int(t.samples as u64)),
            ("calls_per_sample".into(), Json::Int(t.iters)),
        ]));
    }
    if tty {
        eprintln!("\r\x1b[2Kdone: {total} cases");
    }
    print!("{}", table.render_text());

    if let Some(path) = &args.json {
        let doc = Json::Obj(vec![
            ("tool".into(), Json::Str("fieldwork speed".into())),
            (
                "version".into(),
                Json::Str(env!("CARGO_PKG_VERSION").into()),
            ),
            ("date".into(), Json::Str(benchtime::today_utc())),
            ("cpu".into(), Json::Str(benchtime::cpu_model())),
            ("tsc_ghz".into(), Json::Num(clock.tsc_ghz)),
            (
                "core_ghz_estimated".into(),
                clock.core_ghz.map_or(Json::Null, Json::Num),
            ),
            ("isa_level".into(), Json::Str(report.level.to_string())),
            (
                "isa_cap".into(),
                report.cap.map_or(Json::Null, |c| Json::Str(c.to_string())),
            ),
            ("rows".into(), Json::Arr(rows)),
        ]);
        std::fs::write(path, doc.render())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
