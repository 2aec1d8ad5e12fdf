//! `dudect`: a statistical constant-time test for the backends valgrind
//! cannot execute, after Reparaz, Balasch and Verbauwhede, *Dude, is my
//! code constant time?* (DATE 2017). Each operation runs on two classes of
//! secret input, a fixed one (one pseudo-random value) and fresh random ones, chosen at
//! random for every measurement (interleaved); the cycle counts of the two
//! classes are compared with Welch's t-test, on all measurements and on
//! those below several percentiles (dudect's cropping, against the long
//! tail of interrupts). |t| below 4.5 passes. Not run in CI (it needs a
//! quiet machine and minutes); see the README for the figures.
//!
//! ```text
//! cargo run --release -p ct-check --bin dudect -- [--n MEASUREMENTS] [--leaky | --null | --controls | --parts] [--same-weight] [--detail | --per-input K] [FILTER]
//! ```
//!
//! Measures natively at the `FIELDWORK_MAX_ISA` level in effect (by default
//! the CPU's best); prints each operation's backend and largest |t|.
//!
//! # Controls: the code or the machine?
//!
//! A fixed secret repeated call after call toggles fewer bits than fresh
//! ones, and on a power-limited core the clock (so the TSC count) follows
//! the data (SECURITY.md). Two controls separate that from a leak in the
//! code:
//!
//! - `--same-weight`: the fixed class changes at every call among inputs
//!   of the fixed secret's weight (each byte's bits permuted at random:
//!   every byte keeps its Hamming weight, nothing repeats). A leak in the
//!   code that one value triggers goes away; a dependence on the weight of
//!   the data stays; a dependence on repetition goes away.
//! - `--controls`: runs of the same lengths over the secret bytes whose
//!   instructions and addresses depend on nothing but the length (an XOR
//!   fold and a chain of 64-bit multiplications), and the real
//!   operations on public constants with the secret read and discarded
//!   (both classes run the same computation: these must pass). If the
//!   folds fail where the MACs fail, the machine tells the data apart, not
//!   the code.

use ct_check::ops::Stream;
use fieldwork::chachapoly::ChaCha20Poly1305;
use fieldwork::chachapoly::aead::KeyInit;
use fieldwork::gcm::{Aes128Gcm, Aes256Gcm};
use fieldwork::gf2m::{F163, F571, FieldElement};
use fieldwork::{gf2x, ghash, kummer, poly1305};
use std::hint::black_box;
use std::process::ExitCode;

/// The pass threshold on |t| (dudect's).
const THRESHOLD: f64 = 4.5;
/// Message length for the AEADs and MACs: several vector iterations.
const LEN: usize = 512;
/// The longest message timed: 4 KiB, which reaches the kernels that only
/// long messages run (the zmm AES-GCM kernel of AMD's split keys, the
/// IFMA Poly1305 from 64 blocks, ChaCha20-Poly1305's two passes on
/// AVX-512 from 2 KiB).
const MAX_LEN: usize = 4096;
/// Secret bytes handed to each operation.
const SECRET: usize = 32 + MAX_LEN;

/// One timed operation: its name, the backend it reaches, and the body
/// (the secret input in, a value for `black_box` out).
struct Timed {
    name: &'static str,
    backend: fn() -> &'static str,
    run: fn(&[u8; SECRET]) -> u64,
}

fn key16(s: &[u8; SECRET]) -> [u8; 16] {
    s[..16].try_into().unwrap_or_default()
}

fn key32(s: &[u8; SECRET]) -> [u8; 32] {
    s[..32].try_into().unwrap_or_default()
}

fn msg(s: &[u8; SECRET]) -> [u8; LEN] {
    msg_n(s)
}

fn msg_n<const N: usize>(s: &[u8; SECRET]) -> [u8; N] {
    s[32..32 + N].try_into().unwrap_or([0; N])
}

fn gcm128_seal<const N: usize>(s: &[u8; SECRET]) -> u64 {
    let mut buf = msg_n::<N>(s);
    let tag =
        Aes128Gcm::new(&key16(s).into()).encrypt_in_place_detached_iv(&[1; 12], b"ad", &mut buf);
    u64::from(buf[0]) ^ u64::from(tag.unwrap_or_default()[0])
}

fn gcm256_seal<const N: usize>(s: &[u8; SECRET]) -> u64 {
    let mut buf = msg_n::<N>(s);
    let tag =
        Aes256Gcm::new(&key32(s).into()).encrypt_in_place_detached_iv(&[1; 12], b"ad", &mut buf);
    u64::from(buf[0]) ^ u64::from(tag.unwrap_or_default()[0])
}

/// Open under a secret key: ciphertext and tag public (the tag fails for
/// every key but one; the failure path and the comparison are timed).
fn gcm128_open(s: &[u8; SECRET]) -> u64 {
    let mut buf = [0x33u8; LEN];
    let r = Aes128Gcm::new(&key16(s).into()).decrypt_in_place_detached_iv(
        &[1; 12],
        b"ad",
        &mut buf,
        &[0x44; 16],
    );
    u64::from(r.is_ok()) ^ u64::from(buf[0])
}

/// Sealing `N` bytes under a secret key: the length (public) picks the
/// stitched kernel's shape, so [`CHACHAPOLY_OPS`] times one length per shape.
fn chachapoly_seal<const N: usize>(s: &[u8; SECRET]) -> u64 {
    let mut buf = msg_n::<N>(s);
    let tag = ChaCha20Poly1305::new(&key32(s).into())
        .encrypt_in_place_detached(&[1; 12], b"ad", &mut buf);
    u64::from(buf[0]) ^ u64::from(tag.unwrap_or_default()[0])
}

/// Opening `N` public bytes under a secret key (the tag fails: the MAC,
/// the comparison and the wipe are timed).
fn chachapoly_open<const N: usize>(s: &[u8; SECRET]) -> u64 {
    let mut buf = [0x33u8; N];
    let r = ChaCha20Poly1305::new(&key32(s).into()).decrypt_in_place_detached(
        &[1; 12],
        b"ad",
        &mut buf,
        &[0x44; 16],
    );
    u64::from(r.is_ok()) ^ u64::from(buf[0])
}

fn ghash_op(s: &[u8; SECRET]) -> u64 {
    u64::from(ghash::ghash(&key16(s), &msg(s))[0])
}

/// GHASH of `N` bytes: 100 reaches the short paths (on AMD's split zmm
/// kernel, the ymm kernel's fused key setup and a partial block), 1 420
/// the zmm groups and the ymm remainder.
fn ghash_n<const N: usize>(s: &[u8; SECRET]) -> u64 {
    u64::from(ghash::ghash(&key16(s), &msg_n::<N>(s))[0])
}

/// The first `N` words of the secret.
fn secret_words<const N: usize>(s: &[u8; SECRET], from: usize) -> [u64; N] {
    core::array::from_fn(|i| {
        let at = from + 8 * i;
        u64::from_le_bytes(s[at..at + 8].try_into().unwrap_or_default())
    })
}

/// A 16-word and a 24-word product (one fixed kernel, one limb formula on
/// the ymm backend) and a 9-word one (the ymm backend's 8 + 1 kernel, which
/// the zmm backend takes on AMD), all operands secret.
fn gf2x_op(s: &[u8; SECRET]) -> u64 {
    let b = gf2x::Dispatch::best();
    let (x, y) = (secret_words::<16>(s, 0), secret_words::<16>(s, 128));
    let c = b.mul_fixed(&x, &y);
    let (x, y) = (secret_words::<24>(s, 256), secret_words::<24>(s, 64));
    let mut out = [0u64; 48];
    black_box(b.mul_into(&mut out, &x, &y).is_ok());
    let (x, y) = (secret_words::<9>(s, 32), secret_words::<9>(s, 200));
    let mut out9 = [0u64; 18];
    black_box(b.mul_into(&mut out9, &x, &y).is_ok());
    c[0] ^ out[47] ^ out9[17]
}

fn backend_gf2x() -> &'static str {
    gf2x::Dispatch::best().name()
}

/// An element of `F` from the secret words at byte `from` (bits at or
/// above m cleared).
fn secret_element<F: FieldElement, const W: usize>(s: &[u8; SECRET], from: usize) -> F {
    let mut w = secret_words::<W>(s, from);
    if F::M % 64 != 0 {
        w[W - 1] &= (1 << (F::M % 64)) - 1;
    }
    F::from_word_slice(&w).unwrap_or(F::ZERO)
}

/// Three secret products and squares by `mul_slices` / `square_slices`
/// (on the ymm backend: one pair of elements per instruction and the odd
/// last one on the single path) in F163 and F571.
fn gf2m_batch_op(s: &[u8; SECRET]) -> u64 {
    fn batch<F: FieldElement, const W: usize>(s: &[u8; SECRET]) -> u64 {
        let a: [F; 3] = core::array::from_fn(|i| secret_element::<F, W>(s, 8 * W * i));
        let b: [F; 3] = core::array::from_fn(|i| secret_element::<F, W>(s, 8 * W * (i + 3)));
        let (mut c, mut d) = ([F::ZERO; 3], [F::ZERO; 3]);
        black_box(F::mul_slices(&mut c, &a, &b).is_ok());
        black_box(F::square_slices(&mut d, &a).is_ok());
        c[2].as_words()[0] ^ d[1].as_words()[0]
    }
    batch::<F163, 3>(s) ^ batch::<F571, 9>(s)
}

/// Inversion and half-trace of a secret element in F163 and F571 (on the
/// ymm backend: the Frobenius and half-trace maps by `vblendvpd`, which
/// valgrind cannot run there).
fn gf2m_maps_op(s: &[u8; SECRET]) -> u64 {
    fn maps<F: FieldElement, const W: usize>(s: &[u8; SECRET]) -> u64 {
        let a = secret_element::<F, W>(s, 0);
        let i = a.invert().unwrap_or(F::ZERO);
        let h = a.half_trace();
        i.as_words()[0] ^ h.as_words()[0]
    }
    maps::<F163, 3>(s) ^ maps::<F571, 9>(s)
}

/// One of [`gf2m_maps_op`]'s four maps (`P`: F163 inversion, F163
/// half-trace, F571 inversion, F571 half-trace).
fn gf2m_part<const P: u8>(s: &[u8; SECRET]) -> u64 {
    match P {
        0 => secret_element::<F163, 3>(s, 0)
            .invert()
            .unwrap_or(F163::ZERO)
            .as_words()[0],
        1 => secret_element::<F163, 3>(s, 0).half_trace().as_words()[0],
        2 => secret_element::<F571, 9>(s, 0)
            .invert()
            .unwrap_or(F571::ZERO)
            .as_words()[0],
        _ => secret_element::<F571, 9>(s, 0).half_trace().as_words()[0],
    }
}

/// Eight chains of 500 `vpclmulqdq ymm` + `vpxor` on the secret's first
/// 256 bytes and a secret multiplier: the same instructions whatever the
/// values, about as long as the F571 inversion.
fn clmul_chains(s: &[u8; SECRET]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,vpclmulqdq")]
    fn chains(s: &[u8; SECRET]) -> u64 {
        use core::arch::x86_64::{
            __m256i, _mm256_clmulepi64_epi128, _mm256_extract_epi64, _mm256_loadu_si256,
            _mm256_xor_si256,
        };
        let load = |at: usize| {
            let bytes: [u8; 32] = s[at..at + 32].try_into().unwrap_or([0; 32]);
            // SAFETY: `bytes` is 32 readable bytes; the load is unaligned.
            unsafe { _mm256_loadu_si256(bytes.as_ptr().cast::<__m256i>()) }
        };
        let mut x: [__m256i; 8] = core::array::from_fn(|i| load(32 * i));
        let y = load(256);
        for _ in 0..500 {
            for v in &mut x {
                *v = _mm256_xor_si256(_mm256_clmulepi64_epi128::<0x01>(*v, y), y);
            }
        }
        let acc = x.into_iter().fold(y, |a, v| _mm256_xor_si256(a, v));
        _mm256_extract_epi64::<0>(acc) as u64
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("vpclmulqdq") {
        // SAFETY: AVX2 and VPCLMULQDQ were detected.
        return unsafe { chains(s) };
    }
    0
}

fn backend_gf2m() -> &'static str {
    fieldwork::gf2m::Dispatch::best().name()
}

fn poly1305_op<const N: usize>(s: &[u8; SECRET]) -> u64 {
    u64::from(poly1305::tag(&key32(s), &msg_n::<N>(s))[0])
}

/// A shared secret: the secret scalar times a public point (the ladder).
fn kummer_dh(s: &[u8; SECRET]) -> u64 {
    u64::from(kummer::scalarmult(&key32(s), &kummer::BASE_POINT)[0])
}

/// Key generation: the secret scalar times the base point (the comb).
fn kummer_keygen(s: &[u8; SECRET]) -> u64 {
    u64::from(kummer::scalarmult_base(&key32(s))[0])
}

fn backend_kummer() -> &'static str {
    kummer::Dispatch::best().name()
}

fn backend_gcm() -> &'static str {
    Aes128Gcm::new(&[0u8; 16].into()).backend_name()
}

fn backend_chachapoly() -> &'static str {
    ChaCha20Poly1305::new(&[0u8; 32].into()).backend_name()
}

fn backend_ghash() -> &'static str {
    ghash::GHash::new(&[0; 16]).backend_name()
}

fn backend_poly1305() -> &'static str {
    poly1305::Poly1305::new(&[0; 32]).backend_name()
}

fn none() -> &'static str {
    "-"
}

/// The fixed class's secret: one pseudo-random value (fixed seed), not
/// zero — an all-zero secret flips fewer bits, and on a power-limited core
/// the clock, so the TSC count, follows the data's Hamming weight
/// (Hertzbleed, Wang et al., USENIX Security 2022): with zero as the fixed
/// class GHASH showed |t| ≈ 8–17 on a Zen 3 with both of its kernels,
/// whose code has no secret-dependent branch or address (valgrind
/// ct-check passes), and |t| < 2 with this value.
///
/// `DUDECT_FIXED_SEED=N` draws it from another seed: a real leak shows
/// with any fixed value, a clock that follows the data's weight changes
/// sign and size with it.
fn fixed_secret() -> &'static [u8; SECRET] {
    static FIXED: std::sync::OnceLock<[u8; SECRET]> = std::sync::OnceLock::new();
    FIXED.get_or_init(|| {
        let seed = std::env::var("DUDECT_FIXED_SEED")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0x0f1c_ed5e_c2e7);
        let mut v = [0u8; SECRET];
        Stream(seed).fill(&mut v);
        v
    })
}

/// The bytes of each Hamming weight 0–8 (`.0[w][..count]`), and how many
/// there are (`.1[w]`: 1, 8, 28, 56, 70, 56, 28, 8, 1).
fn bytes_by_weight() -> &'static ([[u8; 70]; 9], [u8; 9]) {
    static TABLE: std::sync::OnceLock<([[u8; 70]; 9], [u8; 9])> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = ([[0u8; 70]; 9], [0u8; 9]);
        for b in 0..=255u8 {
            let w = b.count_ones() as usize;
            t.0[w][usize::from(t.1[w])] = b;
            t.1[w] += 1;
        }
        t
    })
}

/// `--same-weight`: `fixed` with every byte replaced by a random byte of
/// the same Hamming weight (16 random bits a byte; the bias of the
/// multiply-shift pick is below 70 / 2^16).
fn same_weight(fixed: &[u8; SECRET], rng: &mut Stream, out: &mut [u8; SECRET]) {
    let (table, counts) = bytes_by_weight();
    let mut bits = 0u64;
    for (i, (o, &f)) in out.iter_mut().zip(fixed).enumerate() {
        if i % 4 == 0 {
            bits = rng.word();
        }
        let w = f.count_ones() as usize;
        let pick = ((bits & 0xffff) * u64::from(counts[w])) >> 16;
        *o = table[w][pick as usize];
        bits >>= 16;
    }
}

/// The control: the F571 inversion and half-trace of a public constant,
/// the secret read and discarded. It must pass; a failure means the
/// harness, not the code, tells the classes apart.
fn null_op(s: &[u8; SECRET]) -> u64 {
    let public = [0x5au8; SECRET];
    black_box(s[0]);
    let a = secret_element::<F571, 9>(black_box(&public), 0);
    let i = a.invert().unwrap_or(F571::ZERO);
    i.as_words()[0] ^ a.half_trace().as_words()[0]
}

/// Control: the first `N` bytes of the secret XOR-folded into a word (no
/// branch or address depends on the data; the compiler vectorises it).
fn xor_fold<const N: usize>(s: &[u8; SECRET]) -> u64 {
    msg_n::<N>(s).chunks_exact(8).fold(0u64, |acc, w| {
        acc ^ u64::from_le_bytes(w.try_into().unwrap_or_default())
    })
}

/// Control: a dependent chain of 64-bit multiplications over the first `N`
/// bytes of the secret, one word at a time (`mul`'s latency does not
/// depend on its operands on x86-64 or AArch64): the scalar Poly1305's
/// kind of work without its code.
fn mul_chain<const N: usize>(s: &[u8; SECRET]) -> u64 {
    msg_n::<N>(s).chunks_exact(8).fold(1u64, |acc, w| {
        let w = u64::from_le_bytes(w.try_into().unwrap_or_default());
        (acc ^ w).wrapping_mul(w | 1)
    })
}

/// Control: Poly1305 of `N` bytes under a public key and message, the
/// secret read and discarded: both classes run the same computation (a
/// failure is the harness's, or the machine's state between the classes).
fn public_poly1305<const N: usize>(s: &[u8; SECRET]) -> u64 {
    black_box(s[0]);
    let public = black_box([0x5au8; SECRET]);
    poly1305_op::<N>(&public)
}

/// Leaky on purpose: an early-exit comparison of the secret with a
/// constant equal to the fixed class.
fn leaky_compare(s: &[u8; SECRET]) -> u64 {
    for (i, (&b, &f)) in s.iter().zip(fixed_secret()).enumerate() {
        if b != f {
            return i as u64;
        }
    }
    SECRET as u64
}

/// Leaky on purpose: square-and-multiply in F163 branching on the bits of
/// a secret exponent.
fn leaky_pow(s: &[u8; SECRET]) -> u64 {
    let a = F163::from_be_slice(&[[0u8; 1].as_slice(), &[7u8; 20]].concat()).unwrap_or(F163::ONE);
    let e = u64::from_le_bytes(s[..8].try_into().unwrap_or_default());
    let mut r = F163::ONE;
    for i in (0..64).rev() {
        r = r.square();
        if (e >> i) & 1 == 1 {
            r *= a;
        }
    }
    r.as_words()[0]
}

/// Leaky on purpose: table lookups at secret indices (cache timing; a
/// 256-byte table stays in L1, so this one may well pass: dudect sees only
/// what the machine's timing shows).
fn leaky_table(s: &[u8; SECRET]) -> u64 {
    static TABLE: [u64; 4096] = [0x55; 4096];
    let mut acc = 0u64;
    for &b in &s[..64] {
        acc = acc.wrapping_add(TABLE[(usize::from(b) * 16 + (acc as usize & 15)) % 4096]);
    }
    acc
}

/// The ChaCha20-Poly1305 entries, `chachapoly/seal-N` and
/// `chachapoly/open-N` for each length `N`.
macro_rules! chachapoly_ops {
    ($($n:literal)*) => {
        &[
            $(Timed {
                name: concat!("chachapoly/seal-", $n),
                backend: backend_chachapoly,
                run: chachapoly_seal::<$n>,
            },)*
            $(Timed {
                name: concat!("chachapoly/open-", $n),
                backend: backend_chachapoly,
                run: chachapoly_open::<$n>,
            },)*
        ]
    };
}

/// ChaCha20-Poly1305 at one length per shape of `chachapoly/avx2.rs`:
/// sealing ≤ 64 B, 65–256 (block 0 on the integer unit), 257–320 (one
/// call), then heads of 320 B with tails of 80 and 192 B, a second head
/// call, and a group; opening ≤ 64 B, one call of two and of three states,
/// 321–448 B (two calls), a group alone, a group with a 488-byte tail (its
/// own 8-block call), and two groups with a 396-byte tail (block 0's call
/// and one state after the groups).
/// 4 096 B: two passes where ChaCha20 runs on AVX-512.
const CHACHAPOLY_OPS: &[Timed] = chachapoly_ops!(64 200 300 400 512 1000 1420 4096);

const OPS: &[Timed] = &[
    Timed {
        name: "gcm/aes128-seal",
        backend: backend_gcm,
        run: gcm128_seal::<LEN>,
    },
    Timed {
        name: "gcm/aes256-seal",
        backend: backend_gcm,
        run: gcm256_seal::<LEN>,
    },
    Timed {
        name: "gcm/aes128-seal-4096",
        backend: backend_gcm,
        run: gcm128_seal::<4096>,
    },
    Timed {
        name: "gcm/aes256-seal-4096",
        backend: backend_gcm,
        run: gcm256_seal::<4096>,
    },
    Timed {
        name: "gcm/aes128-open",
        backend: backend_gcm,
        run: gcm128_open,
    },
    Timed {
        name: "ghash/ghash",
        backend: backend_ghash,
        run: ghash_op,
    },
    Timed {
        name: "ghash/ghash-100",
        backend: backend_ghash,
        run: ghash_n::<100>,
    },
    Timed {
        name: "ghash/ghash-1420",
        backend: backend_ghash,
        run: ghash_n::<1420>,
    },
    Timed {
        name: "gf2x/mul",
        backend: backend_gf2x,
        run: gf2x_op,
    },
    Timed {
        name: "gf2m/batch",
        backend: backend_gf2m,
        run: gf2m_batch_op,
    },
    Timed {
        name: "gf2m/invert-half-trace",
        backend: backend_gf2m,
        run: gf2m_maps_op,
    },
    Timed {
        name: "poly1305/mac",
        backend: backend_poly1305,
        run: poly1305_op::<LEN>,
    },
    Timed {
        name: "poly1305/mac-4096",
        backend: backend_poly1305,
        run: poly1305_op::<4096>,
    },
    Timed {
        name: "kummer/shared-secret",
        backend: backend_kummer,
        run: kummer_dh,
    },
    Timed {
        name: "kummer/keygen",
        backend: backend_kummer,
        run: kummer_keygen,
    },
];

/// `--parts`: the `gf2m/invert-half-trace` entry's four maps one at a
/// time, and a VPCLMULQDQ ymm sequence on the secret whose instructions
/// and addresses do not depend on it (does the instruction's own timing
/// follow its operands?), to localise that entry's finding (SECURITY.md).
const PARTS: &[Timed] = &[
    Timed {
        name: "parts/invert-F163",
        backend: backend_gf2m,
        run: gf2m_part::<0>,
    },
    Timed {
        name: "parts/half-trace-F163",
        backend: backend_gf2m,
        run: gf2m_part::<1>,
    },
    Timed {
        name: "parts/invert-F571",
        backend: backend_gf2m,
        run: gf2m_part::<2>,
    },
    Timed {
        name: "parts/half-trace-F571",
        backend: backend_gf2m,
        run: gf2m_part::<3>,
    },
    Timed {
        name: "parts/vpclmulqdq-ymm-chains",
        backend: none,
        run: clmul_chains,
    },
];

/// The harness's control (`--null`): must pass.
const NULL: &[Timed] = &[Timed {
    name: "null/public-gf2m-maps",
    backend: backend_gf2m,
    run: null_op,
}];

/// `--controls` (module docs): runs of the same lengths as the long MAC
/// and AEAD entries whose code depends on nothing but the length, and the
/// null control at those lengths.
const CONTROLS: &[Timed] = &[
    Timed {
        name: "control/xor-fold-512",
        backend: none,
        run: xor_fold::<512>,
    },
    Timed {
        name: "control/xor-fold-4096",
        backend: none,
        run: xor_fold::<4096>,
    },
    Timed {
        name: "control/mul-chain-512",
        backend: none,
        run: mul_chain::<512>,
    },
    Timed {
        name: "control/mul-chain-4096",
        backend: none,
        run: mul_chain::<4096>,
    },
    Timed {
        name: "null/public-poly1305-4096",
        backend: backend_poly1305,
        run: public_poly1305::<4096>,
    },
];

const LEAKY: &[Timed] = &[
    Timed {
        name: "leaky/early-exit-compare",
        backend: none,
        run: leaky_compare,
    },
    Timed {
        name: "leaky/branchy-gf2m-pow",
        backend: none,
        run: leaky_pow,
    },
    Timed {
        name: "leaky/secret-table-index",
        backend: none,
        run: leaky_table,
    },
];

/// The time-stamp counter, fenced so that the operation stays between the
/// two readings.
#[cfg(target_arch = "x86_64")]
fn cycles() -> u64 {
    // SAFETY: lfence and rdtsc are baseline x86-64 instructions (SSE2 and
    // the TSC are part of the architecture); they touch no memory.
    unsafe {
        core::arch::x86_64::_mm_lfence();
        let t = core::arch::x86_64::_rdtsc();
        core::arch::x86_64::_mm_lfence();
        t
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn cycles() -> u64 {
    std::time::Instant::now().elapsed().as_nanos() as u64
}

/// Welford's running mean and variance of one class.
#[derive(Clone, Copy, Default)]
struct Moments {
    n: f64,
    mean: f64,
    m2: f64,
}

impl Moments {
    fn push(&mut self, x: f64) {
        self.n += 1.0;
        let d = x - self.mean;
        self.mean += d / self.n;
        self.m2 += d * (x - self.mean);
    }

    fn var(&self) -> f64 {
        if self.n > 1.0 {
            self.m2 / (self.n - 1.0)
        } else {
            0.0
        }
    }
}

/// Welch's t statistic of two classes.
fn welch(a: &Moments, b: &Moments) -> f64 {
    let se = (a.var() / a.n + b.var() / b.n).sqrt();
    if se > 0.0 {
        (a.mean - b.mean) / se
    } else {
        0.0
    }
}

/// Measures `op` `n` times; returns the largest |t| over the crops and the
/// number of measurements behind it. With `detail`, prints each crop's
/// class means (ticks) and t.
/// With `same_weight`, the fixed class is drawn afresh at every call
/// ([`same_weight`]).
fn measure(op: &Timed, n: usize, detail: bool, same_weight: bool) -> (f64, f64, &'static str) {
    const BATCH: usize = 10_000;
    const CROPS: [(f64, &str); 5] = [
        (1.0, "all"),
        (0.99, "p99"),
        (0.9, "p90"),
        (0.75, "p75"),
        (0.5, "p50"),
    ];
    let mut rng = Stream(0x00d0_dec7 ^ cycles());
    let fixed = *fixed_secret();
    let mut inputs = vec![[0u8; SECRET]; BATCH];
    let mut classes = vec![false; BATCH];
    let mut times = vec![0u64; BATCH];
    let mut thresholds = [u64::MAX; CROPS.len()];
    let mut stats = [[Moments::default(); 2]; CROPS.len()];
    let mut done = 0;
    let mut first = true;
    while done < n {
        // Prepare a batch outside the timed region: class 0 fixed (or of the
        // fixed value's weight), class 1 fresh random.
        for (input, class) in inputs.iter_mut().zip(classes.iter_mut()) {
            *class = rng.word() & 1 == 1;
            if *class {
                rng.fill(input);
            } else if same_weight {
                self::same_weight(&fixed, &mut rng, input);
            } else {
                *input = fixed;
            }
        }
        for (t, input) in times.iter_mut().zip(&inputs) {
            let start = cycles();
            black_box((op.run)(black_box(input)));
            *t = cycles().wrapping_sub(start);
        }
        if first {
            // The first batch warms up and fixes the crop thresholds.
            let mut sorted = times.clone();
            sorted.sort_unstable();
            for (th, (q, _)) in thresholds.iter_mut().zip(CROPS) {
                *th = if q >= 1.0 {
                    u64::MAX
                } else {
                    sorted[((BATCH as f64) * q) as usize]
                };
            }
            first = false;
            continue;
        }
        for (&t, &class) in times.iter().zip(&classes) {
            for (s, &th) in stats.iter_mut().zip(&thresholds) {
                if t <= th {
                    s[usize::from(class)].push(t as f64);
                }
            }
        }
        done += BATCH;
    }
    let mut worst = (0.0f64, 0.0f64, "all");
    for (s, (_, name)) in stats.iter().zip(CROPS) {
        let t = welch(&s[0], &s[1]);
        if detail {
            println!(
                "    {name:4} fixed {:9.2} ticks (n {:7.0})  random {:9.2} (n {:7.0})  t {t:7.2}",
                s[0].mean, s[0].n, s[1].mean, s[1].n
            );
        }
        if t.abs() > worst.0.abs() || worst.1 == 0.0 {
            worst = (t, s[0].n + s[1].n, name);
        }
    }
    worst
}

/// `--per-input K`: times `op` on K inputs (the fixed class's first, then
/// pseudo-random ones from a fixed seed) round-robin, `reps` times each,
/// and prints each input's mean below the 75th percentile of all
/// measurements with its standard error. A secret-dependent cost makes the
/// same inputs slow in every run; noise moves from run to run.
fn per_input(op: &Timed, k: usize, reps: usize) {
    let mut rng = Stream(0x5eed_1b0f);
    let mut inputs = vec![*fixed_secret(); k.max(1)];
    for input in inputs.iter_mut().skip(1) {
        rng.fill(input);
    }
    let mut times = vec![Vec::with_capacity(reps); inputs.len()];
    for _ in 0..reps {
        for (t, input) in times.iter_mut().zip(&inputs) {
            let start = cycles();
            black_box((op.run)(black_box(input)));
            t.push(cycles().wrapping_sub(start));
        }
    }
    let mut all: Vec<u64> = times.iter().flatten().copied().collect();
    all.sort_unstable();
    let th = all.get(all.len() * 3 / 4).copied().unwrap_or(u64::MAX);
    println!(
        "  {} ({}), mean ticks ≤ p75 of each input",
        op.name,
        (op.backend)()
    );
    for (i, t) in times.iter().enumerate() {
        let mut m = Moments::default();
        for &x in t.iter().filter(|&&x| x <= th) {
            m.push(x as f64);
        }
        println!(
            "    input {i:3}{} {:9.2} ± {:4.2} (n {:.0})",
            if i == 0 { " (fixed)" } else { "        " },
            m.mean,
            (m.var() / m.n).sqrt(),
            m.n
        );
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let leaky = args.iter().any(|a| a == "--leaky");
    let null = args.iter().any(|a| a == "--null");
    let parts = args.iter().any(|a| a == "--parts");
    let controls = args.iter().any(|a| a == "--controls");
    let same_weight = args.iter().any(|a| a == "--same-weight");
    let detail = args.iter().any(|a| a == "--detail");
    let per_input_k: Option<usize> = args
        .iter()
        .position(|a| a == "--per-input")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok());
    let n = args
        .iter()
        .position(|a| a == "--n")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000usize);
    let filter = args
        .iter()
        .enumerate()
        .find(|(i, a)| {
            !a.starts_with("--")
                && (*i == 0 || !matches!(args[i - 1].as_str(), "--n" | "--per-input"))
        })
        .map(|(_, a)| a.clone());
    let level = fieldwork::cpu::report().map(|r| r.level.to_string());
    println!(
        "dudect: {n} measurements per operation, level {}, |t| < {THRESHOLD} passes{}",
        level.as_deref().unwrap_or("?"),
        if same_weight {
            "; fixed class: the fixed value's byte weights, fresh each call"
        } else {
            ""
        }
    );
    let ops: &[&[Timed]] = if leaky {
        &[LEAKY]
    } else if null {
        &[NULL]
    } else if controls {
        &[CONTROLS, NULL]
    } else if parts {
        &[PARTS]
    } else {
        &[OPS, CHACHAPOLY_OPS]
    };
    let selected = ops
        .iter()
        .flat_map(|o| o.iter())
        .filter(|op| filter.as_ref().is_none_or(|f| op.name.contains(f.as_str())));
    if let Some(k) = per_input_k {
        for op in selected {
            per_input(op, k, (n / k.max(1)).max(1));
        }
        return ExitCode::SUCCESS;
    }
    let mut failed = 0;
    for op in selected {
        let (t, count, crop) = measure(op, n, detail, same_weight);
        let leak = t.abs() >= THRESHOLD;
        let verdict = match (leaky, leak) {
            (false, false) => "pass",
            (false, true) => "FAIL (timing depends on the secret)",
            (true, true) => "leak detected, as expected",
            (true, false) => "not detected",
        };
        if leak != leaky {
            failed += 1;
        }
        println!(
            "  {:28} {:18} |t| = {:7.2} ({crop}, {count:.0} measurements)  {verdict}",
            op.name,
            (op.backend)(),
            t.abs()
        );
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_by_weight_lists_every_byte_once_under_its_weight() {
        let (table, counts) = bytes_by_weight();
        assert_eq!(*counts, [1, 8, 28, 56, 70, 56, 28, 8, 1]);
        let mut seen = [false; 256];
        for (w, (row, &c)) in table.iter().zip(counts).enumerate() {
            for &b in &row[..usize::from(c)] {
                assert_eq!(b.count_ones() as usize, w);
                assert!(!seen[usize::from(b)]);
                seen[usize::from(b)] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    #[test]
    fn same_weight_keeps_every_byte_weight_and_changes_the_value() {
        let fixed = fixed_secret();
        let mut rng = Stream(7);
        let (mut a, mut b) = ([0u8; SECRET], [0u8; SECRET]);
        same_weight(fixed, &mut rng, &mut a);
        same_weight(fixed, &mut rng, &mut b);
        for ((x, y), f) in a.iter().zip(&b).zip(fixed) {
            assert_eq!(x.count_ones(), f.count_ones());
            assert_eq!(y.count_ones(), f.count_ones());
        }
        // Bytes of weight 1–7 have 8 or more choices: most bytes differ
        // from the fixed value and between the two draws.
        let moved = a.iter().zip(fixed).filter(|(x, f)| x != f).count();
        let redrawn = a.iter().zip(&b).filter(|(x, y)| x != y).count();
        assert!(moved > SECRET * 3 / 4, "{moved}");
        assert!(redrawn > SECRET * 3 / 4, "{redrawn}");
    }
}
