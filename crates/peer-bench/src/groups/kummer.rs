//! `kummer`: Diffie–Hellman on fieldwork's genus-2 Kummer surface
//! (`fieldwork::kummer`, 251-bit scalars, 48-byte points) against X25519
//! (255-bit scalars, 32-byte points) in other libraries. Both are
//! Montgomery-style ladders at about the 128-bit security level.
//!
//! # Rows
//!
//! - `keygen (fixed base)`: a public key from a secret key. Ours:
//!   `scalarmult_base` (a fixed-base comb on the Jacobian under the
//!   surface, `kummer/fixed_base.rs`). x25519-dalek: `PublicKey::from(&StaticSecret)`
//!   (a fixed-base comb on the Edwards curve with the `precomputed-tables`
//!   feature, x25519-dalek's default). aws-lc-rs:
//!   `PrivateKey::from_private_key` + `compute_public_key`. ring: it cannot
//!   import a secret key, so `EphemeralPrivateKey::generate` (32 bytes from
//!   the OS RNG, one `getrandom` call) + `compute_public_key`. OpenSSL:
//!   `EVP_PKEY_new_raw_private_key` (which computes the public key) +
//!   `EVP_PKEY_get_raw_public_key` + `EVP_PKEY_free`, so its allocation and
//!   provider look-up are in the figure.
//! - `shared secret`: a fixed secret key times a peer's public key, the key
//!   given as bytes each call. Ours: `scalarmult`. x25519-dalek:
//!   `StaticSecret::diffie_hellman` (the secret made once). aws-lc-rs: the
//!   non-consuming `agreement::agree` with a `PrivateKey` made once; each
//!   call parses the peer's key and creates an `EVP_PKEY_CTX`, as the API
//!   does. ring: only ephemeral keys can agree, and `agree_ephemeral`
//!   consumes the key, so each call is `generate` (the RNG, as above; no
//!   public key is computed) + `agree_ephemeral`: the row label says
//!   `incl. generate`. OpenSSL: `EVP_PKEY_derive` alone, on a context
//!   created, initialised and given the peer once, outside the timed region
//!   (repeating the derivation on one context is allowed).
//! - `shared secrets/s per core`: derived, not measured again: the calls of
//!   the shared-secret row are independent (the same inputs every call, none
//!   depending on the previous output), so one core completes
//!   `1 / median time per call` of them a second. The ratio is the same as
//!   the shared-secret row's (our rate ÷ theirs).
//!
//! Ours are the public functions (`scalarmult`, `scalarmult_base`, which
//! dispatch to `Dispatch::best()` on each call; the reference for the ratios)
//! and then every backend of `Dispatch::all()` directly. The shared-secret
//! row also has the paper's own arithmetic (`fieldwork::kummer::float`,
//! feature `reproduce`: six `f64` limbs in radix 2^(127/6), §§3–4 of
//! Bernstein–Chuengsatiansup–Lange–Schwabe) on every float backend this
//! CPU runs, labelled `paper §3–4 float (float-avx)` etc.: a reproduction,
//! not a production backend.
//!
//! # Checks before timing
//!
//! Every backend of ours, and the public functions, against the issue's
//! known answer (secret `a4151a…b413` → public `b9658b…a548`), and the two
//! sides of a shared secret against each other. Every X25519 peer against
//! RFC 7748 §6.1 (Alice's and Bob's public keys from their secret keys, and
//! their shared secret `4a5d9d…1742`) — except ring, which cannot import a
//! secret key: for fresh ring keys, ring's `agree_ephemeral` with Bob's
//! public key must equal x25519-dalek's (already checked against the RFC)
//! Bob's secret times ring's public key, which checks ring's public key and
//! its agreement together.
//!
//! # x25519-dalek's backend
//!
//! x25519-dalek's ladder runs on curve25519-dalek's serial 64-bit field
//! arithmetic whatever SIMD backend curve25519-dalek selects. Read in
//! curve25519-dalek 5.0.0 (the version in use): `MontgomeryPoint::mul_clamped`
//! → `mul_bits_be` (src/montgomery.rs) runs `differential_add_and_double`
//! on `crate::field::FieldElement`, and src/field.rs makes that type an alias
//! of `backend::serial::u64::field::FieldElement51` on 64-bit targets (radix
//! 2^51, `u128` products; `fiat_u64`'s only when built with
//! `curve25519_dalek_backend="fiat"`). The runtime AVX2 / AVX-512 IFMA
//! selection (`get_selected_backend` in src/backend.rs) covers only Edwards
//! variable-base and multiscalar multiplication; the fixed-base keygen goes
//! through `EdwardsBasepointTable::mul_base`, also serial. So x25519-dalek is
//! the portable X25519 peer on any x86-64 CPU, and the target — our
//! portable backend within 1.5× of x25519-dalek's time — holds when the
//! x25519-dalek ratio divided by the `fieldwork (portable)` ratio is at least
//! 1 / 1.5 ≈ 0.67.

use super::{hex, hexed};
use crate::harness::{Case, Impl};
use crate::util::Rng;
use fieldwork::kummer::{self, Dispatch};
use std::hint::black_box;

/// The Kummer known answer: this secret …
const KUMMER_SECRET: [u8; 32] =
    hex("a4151a74fd5e31af9769976bf6f2bb84752ce599bdd64c677674a91c888eb413");
/// … gives this public key.
const KUMMER_PUBLIC: [u8; 48] = hex(
    "b9658b25193c55523757069a932e8711cc0e06bbdfd9b87427be030dcc63bc7de385b3efa9a4e3a355d28800c221a548",
);

/// RFC 7748 §6.1: Alice's secret key.
const RFC_ALICE_SECRET: [u8; 32] =
    hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
/// RFC 7748 §6.1: Alice's public key.
const RFC_ALICE_PUBLIC: [u8; 32] =
    hex("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
/// RFC 7748 §6.1: Bob's secret key.
const RFC_BOB_SECRET: [u8; 32] =
    hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
/// RFC 7748 §6.1: Bob's public key.
const RFC_BOB_PUBLIC: [u8; 32] =
    hex("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
/// RFC 7748 §6.1: their shared secret.
const RFC_SHARED: [u8; 32] =
    hex("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742");

const KEYGEN: &str = "keygen (fixed base)";
/// The shared-secret row's size label (also the `--reproduce kummer` page's).
pub const SHARED: &str = "shared secret";
const PER_SECOND: &str = "shared secrets/s per core";
const PAIRS: &str = "shared secret, two at a time (per secret)";
const PAIRS_PER_SECOND: &str = "shared secrets/s per core, two at a time";

const DALEK: &str = concat!("x25519-dalek ", env!("PEER_VERSION_X25519_DALEK"));
const AWS_LC: &str = concat!("aws-lc-rs ", env!("PEER_VERSION_AWS_LC_RS"));
const RING: &str = concat!("ring ", env!("PEER_VERSION_RING"), " (incl. generate)");

/// The secret key of our shared-secret row's peer (any fixed bytes).
fn kummer_peer_secret() -> [u8; 32] {
    let mut rng = Rng(0x4b75_6d6d);
    let mut s = [0u8; 32];
    for chunk in s.chunks_exact_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    s
}

/// The cases, after checking ours against the known answer and every peer
/// against RFC 7748.
pub fn cases() -> Result<Vec<Case>, String> {
    let peer_public = check_ours()?;
    check_x25519_peers()?;

    let best = Dispatch::best().name();
    let default_name = format!("fieldwork default ({best})");

    let mut keygen = vec![Impl {
        name: default_name.clone(),
        ours: true,
        routine: Box::new(|n| {
            for _ in 0..n {
                black_box(kummer::scalarmult_base(black_box(&KUMMER_SECRET)));
            }
        }),
    }];
    let mut shared = vec![Impl {
        name: default_name,
        ours: true,
        routine: Box::new(move |n| {
            for _ in 0..n {
                black_box(kummer::scalarmult(
                    black_box(&KUMMER_SECRET),
                    black_box(&peer_public),
                ));
            }
        }),
    }];
    for b in Dispatch::all() {
        keygen.push(Impl {
            name: format!("fieldwork ({})", b.name()),
            ours: true,
            routine: Box::new(move |n| {
                for _ in 0..n {
                    black_box(b.scalarmult_base(black_box(&KUMMER_SECRET)));
                }
            }),
        });
        shared.push(Impl {
            name: format!("fieldwork ({})", b.name()),
            ours: true,
            routine: Box::new(move |n| {
                for _ in 0..n {
                    black_box(b.scalarmult(black_box(&KUMMER_SECRET), black_box(&peer_public)));
                }
            }),
        });
    }

    // Pairs: ours through `scalarmult_pair` (two ladders interleaved, one
    // shared inversion), timed per secret; the peers have no such API, so
    // their routines are the single calls again.
    let pair_routine = |b: Dispatch| -> benchtime::Routine<'static> {
        Box::new(move |n| {
            for _ in 0..n / 2 {
                black_box(b.scalarmult_pair(
                    [black_box(&KUMMER_SECRET), black_box(&KUMMER_SECRET)],
                    [black_box(&peer_public), black_box(&peer_public)],
                ));
            }
            if n % 2 == 1 {
                black_box(b.scalarmult(black_box(&KUMMER_SECRET), black_box(&peer_public)));
            }
        })
    };
    let mut pairs = vec![Impl {
        name: format!("fieldwork default ({best})"),
        ours: true,
        routine: pair_routine(Dispatch::best()),
    }];
    for b in Dispatch::all() {
        pairs.push(Impl {
            name: format!("fieldwork ({})", b.name()),
            ours: true,
            routine: pair_routine(b),
        });
    }

    shared.extend(float_shared(&peer_public));

    keygen.extend([dalek_keygen(), aws_lc_keygen(), ring_keygen()]);
    shared.extend([dalek_shared(), aws_lc_shared()?, ring_shared()]);
    pairs.extend([dalek_shared(), aws_lc_shared()?, ring_shared()]);
    #[cfg(feature = "system-peers")]
    {
        keygen.push(openssl_keygen());
        shared.push(openssl_shared()?);
        pairs.push(openssl_shared()?);
    }

    Ok(vec![
        Case {
            group: "kummer",
            size: KEYGEN.into(),
            bytes: None,
            impls: keygen,
            heavy: false,
            per_second: None,
        },
        Case {
            group: "kummer",
            size: SHARED.into(),
            bytes: None,
            impls: shared,
            heavy: false,
            per_second: Some(PER_SECOND),
        },
        Case {
            group: "kummer",
            size: PAIRS.into(),
            bytes: None,
            impls: pairs,
            heavy: false,
            per_second: Some(PAIRS_PER_SECOND),
        },
    ])
}

/// The row label of a float backend of `kummer::float` (the paper's §§3–4
/// arithmetic).
pub fn float_label(name: &str) -> String {
    format!("paper §3–4 float ({name})")
}

/// The shared-secret routines of every float backend usable here (checked
/// by [`check_ours`]).
pub fn float_shared(peer_public: &[u8; 48]) -> Vec<Impl> {
    let peer_public = *peer_public;
    kummer::float::NAMES
        .iter()
        .filter(|&&name| {
            kummer::float::scalarmult_with(name, &KUMMER_SECRET, &peer_public).is_some()
        })
        .map(|&name| Impl {
            name: float_label(name),
            ours: true,
            routine: Box::new(move |n| {
                for _ in 0..n {
                    black_box(kummer::float::scalarmult_with(
                        name,
                        black_box(&KUMMER_SECRET),
                        black_box(&peer_public),
                    ));
                }
            }),
        })
        .collect()
}

/// Checks every backend and the public functions against the known answer
/// and a shared secret from both sides; returns the shared-secret row's
/// peer public key.
pub fn check_ours() -> Result<[u8; 48], String> {
    let got = kummer::scalarmult_base(&KUMMER_SECRET);
    if got != KUMMER_PUBLIC {
        return Err(format!(
            "fieldwork kummer::scalarmult_base disagrees with the known answer: {}",
            hexed(&got)
        ));
    }
    let peer_secret = kummer_peer_secret();
    let peer_public = kummer::scalarmult_base(&peer_secret);
    let want = kummer::scalarmult(&peer_secret, &KUMMER_PUBLIC);
    if want == [0u8; 48] {
        return Err("fieldwork kummer: the check's shared secret is zero".into());
    }
    for b in Dispatch::all() {
        let name = b.name();
        for (what, got) in [
            ("scalarmult_base", b.scalarmult_base(&KUMMER_SECRET)),
            (
                "scalarmult(BASE_POINT)",
                b.scalarmult(&KUMMER_SECRET, &kummer::BASE_POINT),
            ),
        ] {
            if got != KUMMER_PUBLIC {
                return Err(format!(
                    "fieldwork kummer ({name}) {what} disagrees with the known answer: {}",
                    hexed(&got)
                ));
            }
        }
        if b.scalarmult_base(&peer_secret) != peer_public {
            return Err(format!(
                "fieldwork kummer ({name}): keygen differs from the default"
            ));
        }
        if b.scalarmult(&KUMMER_SECRET, &peer_public) != want {
            return Err(format!(
                "fieldwork kummer ({name}): the two sides' shared secrets differ"
            ));
        }
    }
    for name in kummer::float::NAMES {
        let Some(got) = kummer::float::scalarmult_with(name, &KUMMER_SECRET, &kummer::BASE_POINT)
        else {
            continue;
        };
        if got != KUMMER_PUBLIC {
            return Err(format!(
                "fieldwork kummer::float ({name}) disagrees with the known answer: {}",
                hexed(&got)
            ));
        }
        if kummer::float::scalarmult_with(name, &KUMMER_SECRET, &peer_public) != Some(want) {
            return Err(format!(
                "fieldwork kummer::float ({name}): the two sides' shared secrets differ"
            ));
        }
    }
    Ok(peer_public)
}

/// Checks every X25519 peer against RFC 7748 §6.1 (ring indirectly, see the
/// module doc).
fn check_x25519_peers() -> Result<(), String> {
    use aws_lc_rs::agreement as aws;
    use x25519_dalek::{PublicKey, StaticSecret};

    let fail = |who: &str, what: &str| Err(format!("{who} disagrees with RFC 7748 §6.1 on {what}"));

    // x25519-dalek.
    let (alice, bob) = (
        StaticSecret::from(RFC_ALICE_SECRET),
        StaticSecret::from(RFC_BOB_SECRET),
    );
    if PublicKey::from(&alice).to_bytes() != RFC_ALICE_PUBLIC {
        return fail(DALEK, "Alice's public key");
    }
    if PublicKey::from(&bob).to_bytes() != RFC_BOB_PUBLIC {
        return fail(DALEK, "Bob's public key");
    }
    if alice
        .diffie_hellman(&PublicKey::from(RFC_BOB_PUBLIC))
        .to_bytes()
        != RFC_SHARED
        || bob
            .diffie_hellman(&PublicKey::from(RFC_ALICE_PUBLIC))
            .to_bytes()
            != RFC_SHARED
    {
        return fail(DALEK, "the shared secret");
    }

    // aws-lc-rs.
    for (secret, public, peer) in [
        (RFC_ALICE_SECRET, RFC_ALICE_PUBLIC, RFC_BOB_PUBLIC),
        (RFC_BOB_SECRET, RFC_BOB_PUBLIC, RFC_ALICE_PUBLIC),
    ] {
        let key = aws::PrivateKey::from_private_key(&aws::X25519, &secret)
            .map_err(|e| format!("{AWS_LC}: from_private_key: {e}"))?;
        let got = key
            .compute_public_key()
            .map_err(|e| format!("{AWS_LC}: compute_public_key: {e}"))?;
        if got.as_ref() != public {
            return fail(AWS_LC, "a public key");
        }
        let got = aws::agree(
            &key,
            aws::UnparsedPublicKey::new(&aws::X25519, &peer),
            format!("{AWS_LC}: agree failed"),
            |k| Ok(k.to_vec()),
        )?;
        if got != RFC_SHARED {
            return fail(AWS_LC, "the shared secret");
        }
    }

    // ring: fresh keys against x25519-dalek's Bob (checked above).
    use ring::agreement as ring_agreement;
    let rng = ring::rand::SystemRandom::new();
    for _ in 0..4 {
        let key = ring_agreement::EphemeralPrivateKey::generate(&ring_agreement::X25519, &rng)
            .map_err(|e| format!("{RING}: generate: {e}"))?;
        let public: [u8; 32] = key
            .compute_public_key()
            .map_err(|e| format!("{RING}: compute_public_key: {e}"))?
            .as_ref()
            .try_into()
            .map_err(|_| format!("{RING}: a public key not of 32 bytes"))?;
        let got = ring_agreement::agree_ephemeral(
            key,
            &ring_agreement::UnparsedPublicKey::new(&ring_agreement::X25519, RFC_BOB_PUBLIC),
            |k| k.to_vec(),
        )
        .map_err(|e| format!("{RING}: agree_ephemeral: {e}"))?;
        if got != bob.diffie_hellman(&PublicKey::from(public)).to_bytes() {
            return Err(format!(
                "{RING}: its shared secret with RFC 7748's Bob differs from x25519-dalek's"
            ));
        }
    }

    #[cfg(feature = "system-peers")]
    {
        use crate::openssl::{X25519Derive, version, x25519_public_from_private};
        let who = format!("{} (system)", version());
        for (secret, public, peer) in [
            (RFC_ALICE_SECRET, RFC_ALICE_PUBLIC, RFC_BOB_PUBLIC),
            (RFC_BOB_SECRET, RFC_BOB_PUBLIC, RFC_ALICE_PUBLIC),
        ] {
            if x25519_public_from_private(&secret)? != public {
                return fail(&who, "a public key");
            }
            let mut ctx = X25519Derive::new(&secret, &peer)?;
            // Twice on one context: the timed row repeats derivations on one.
            if ctx.derive()? != RFC_SHARED || ctx.derive()? != RFC_SHARED {
                return fail(&who, "the shared secret");
            }
        }
    }
    Ok(())
}

fn dalek_keygen() -> Impl {
    Impl {
        name: DALEK.into(),
        ours: false,
        routine: Box::new(|n| {
            for _ in 0..n {
                let secret = x25519_dalek::StaticSecret::from(*black_box(&RFC_ALICE_SECRET));
                black_box(x25519_dalek::PublicKey::from(&secret).to_bytes());
            }
        }),
    }
}

fn dalek_shared() -> Impl {
    let secret = x25519_dalek::StaticSecret::from(RFC_ALICE_SECRET);
    Impl {
        name: DALEK.into(),
        ours: false,
        routine: Box::new(move |n| {
            for _ in 0..n {
                let peer = x25519_dalek::PublicKey::from(*black_box(&RFC_BOB_PUBLIC));
                black_box(secret.diffie_hellman(&peer).to_bytes());
            }
        }),
    }
}

fn aws_lc_keygen() -> Impl {
    use aws_lc_rs::agreement as aws;
    Impl {
        name: AWS_LC.into(),
        ours: false,
        routine: Box::new(|n| {
            for _ in 0..n {
                let key =
                    aws::PrivateKey::from_private_key(&aws::X25519, black_box(&RFC_ALICE_SECRET))
                        .expect("aws-lc-rs from_private_key (checked before timing)");
                let public = key
                    .compute_public_key()
                    .expect("aws-lc-rs compute_public_key (checked before timing)");
                black_box(public.as_ref());
            }
        }),
    }
}

fn aws_lc_shared() -> Result<Impl, String> {
    use aws_lc_rs::agreement as aws;
    let key = aws::PrivateKey::from_private_key(&aws::X25519, &RFC_ALICE_SECRET)
        .map_err(|e| format!("{AWS_LC}: from_private_key: {e}"))?;
    Ok(Impl {
        name: AWS_LC.into(),
        ours: false,
        routine: Box::new(move |n| {
            let mut out = [0u8; 32];
            for _ in 0..n {
                let peer = aws::UnparsedPublicKey::new(&aws::X25519, black_box(&RFC_BOB_PUBLIC));
                aws::agree(&key, peer, (), |k| {
                    out.copy_from_slice(k);
                    Ok(())
                })
                .expect("aws-lc-rs agree (checked before timing)");
                black_box(&out);
            }
        }),
    })
}

fn ring_keygen() -> Impl {
    use ring::agreement as ring_agreement;
    let rng = ring::rand::SystemRandom::new();
    Impl {
        name: RING.into(),
        ours: false,
        routine: Box::new(move |n| {
            for _ in 0..n {
                let key =
                    ring_agreement::EphemeralPrivateKey::generate(&ring_agreement::X25519, &rng)
                        .expect("ring generate (checked before timing)");
                let public = key
                    .compute_public_key()
                    .expect("ring compute_public_key (checked before timing)");
                black_box(public.as_ref());
            }
        }),
    }
}

fn ring_shared() -> Impl {
    use ring::agreement as ring_agreement;
    let rng = ring::rand::SystemRandom::new();
    Impl {
        name: RING.into(),
        ours: false,
        routine: Box::new(move |n| {
            for _ in 0..n {
                let key =
                    ring_agreement::EphemeralPrivateKey::generate(&ring_agreement::X25519, &rng)
                        .expect("ring generate (checked before timing)");
                let peer = ring_agreement::UnparsedPublicKey::new(
                    &ring_agreement::X25519,
                    black_box(&RFC_BOB_PUBLIC),
                );
                let mut out = [0u8; 32];
                ring_agreement::agree_ephemeral(key, &peer, |k| out.copy_from_slice(k))
                    .expect("ring agree_ephemeral (checked before timing)");
                black_box(&out);
            }
        }),
    }
}

#[cfg(feature = "system-peers")]
fn openssl_name() -> String {
    format!("{} (system)", crate::openssl::version())
}

#[cfg(feature = "system-peers")]
fn openssl_keygen() -> Impl {
    Impl {
        name: openssl_name(),
        ours: false,
        routine: Box::new(|n| {
            for _ in 0..n {
                black_box(
                    crate::openssl::x25519_public_from_private(black_box(&RFC_ALICE_SECRET))
                        .expect("OpenSSL keygen (checked before timing)"),
                );
            }
        }),
    }
}

#[cfg(feature = "system-peers")]
fn openssl_shared() -> Result<Impl, String> {
    let mut ctx = crate::openssl::X25519Derive::new(&RFC_ALICE_SECRET, &RFC_BOB_PUBLIC)?;
    Ok(Impl {
        name: openssl_name(),
        ours: false,
        routine: Box::new(move |n| {
            for _ in 0..n {
                black_box(
                    ctx.derive()
                        .expect("OpenSSL derive (checked before timing)"),
                );
            }
        }),
    })
}
