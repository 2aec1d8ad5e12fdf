//! The safe Kummer DH layer: the known key pairs and shared secret of
//! tests/data/kummer_kat.txt through `SecretKey` / `PublicKey`, agreement on
//! generated keys, public-key validation (what is rejected, and why the
//! neutral element's encoding is accepted but never yields a secret), and
//! the rejected results (zero secret, the group order as secret).

use super::common;

use fieldwork::kummer::{
    BASE_POINT, KummerError, PublicKey, SecretKey, SharedSecret, scalarmult, scalarmult_base,
};
use zeroize::ZeroizeOnDrop;

/// p = 2^127 − 1.
const P: u128 = (1 << 127) - 1;

fn hex<const N: usize>(s: &str) -> [u8; N] {
    assert_eq!(s.len(), 2 * N, "{s}");
    core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
}

fn to_hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// A named value of tests/data/kummer_kat.txt.
fn value(name: &str) -> String {
    common::data_lines("kummer_kat.txt")
        .into_iter()
        .find(|l| l[0] == name)
        .map(|l| l[1].clone())
        .unwrap_or_else(|| panic!("{name} missing from kummer_kat.txt"))
}

/// The tests' SplitMix64 as a `rand_core` 0.10 generator, for
/// `SecretKey::generate`. (Marked `CryptoRng` for the test only: it is not
/// one.)
struct TestRng(common::Rng);

impl fieldwork::rand_core::TryRng for TestRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.0.next_u64() as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.0.next_u64())
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let v = self.0.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
        Ok(())
    }
}

impl fieldwork::rand_core::TryCryptoRng for TestRng {}

fn with_coordinate(mut point: [u8; 48], i: usize, v: u128) -> [u8; 48] {
    point[16 * i..16 * i + 16].copy_from_slice(&v.to_le_bytes());
    point
}

fn coordinate(point: &[u8; 48], i: usize) -> u128 {
    let mut b = [0u8; 16];
    b.copy_from_slice(&point[16 * i..16 * i + 16]);
    u128::from_le_bytes(b)
}

#[test]
fn known_key_pairs_and_shared_secret() {
    let ska = SecretKey::from_bytes(hex(&value("sk_a")));
    let skb = SecretKey::from_bytes(hex(&value("sk_b")));
    let (pka, pkb) = (ska.public_key(), skb.public_key());
    assert_eq!(pka.to_bytes(), hex::<48>(&value("pk_a")));
    assert_eq!(pkb.to_bytes(), hex::<48>(&value("pk_b")));
    // The peers' keys as received: parsed and validated.
    let pka_in = PublicKey::from_bytes(&hex(&value("pk_a"))).unwrap();
    let pkb_in = PublicKey::from_bytes(&hex(&value("pk_b"))).unwrap();
    assert_eq!((pka_in, pkb_in), (pka, pkb));
    let shared = hex::<48>(&value("shared"));
    assert_eq!(ska.diffie_hellman(&pkb_in).unwrap().as_bytes(), &shared);
    assert_eq!(skb.diffie_hellman(&pka_in).unwrap().as_bytes(), &shared);
    // The values, spelled out (the data file is the same source).
    assert_eq!(
        to_hex(&shared),
        "f9a9097f6bc8291a456f785aa2c2c80289249e380942cf77a281f2edc461c450\
         fbb71f7c630e31ec211417744df44133"
    );
}

#[test]
fn pairs_match_single_exchanges_including_rejections() {
    let r = |x: Result<SharedSecret, KummerError>| x.map(|s| *s.as_bytes());
    // The key pairs, both directions in one call.
    let ska = SecretKey::from_bytes(hex(&value("sk_a")));
    let skb = SecretKey::from_bytes(hex(&value("sk_b")));
    let pka = PublicKey::from_bytes(&hex(&value("pk_a"))).unwrap();
    let pkb = PublicKey::from_bytes(&hex(&value("pk_b"))).unwrap();
    let shared = hex::<48>(&value("shared"));
    let [x, y] = SecretKey::diffie_hellman_pair([(&ska, &pkb), (&skb, &pka)]);
    assert_eq!((r(x), r(y)), (Ok(shared), Ok(shared)));
    // A rejected result next to a good one, in either slot: the good one is
    // unaffected (the inversion is shared between the two).
    let neutral = PublicKey::from_bytes(&hex(&value("neutral"))).unwrap();
    let zero = SecretKey::from_bytes([0; 32]);
    for (bad, why) in [
        ((&ska, &neutral), "neutral public key"),
        ((&zero, &pkb), "zero secret"),
    ] {
        let [x, y] = SecretKey::diffie_hellman_pair([bad, (&ska, &pkb)]);
        assert_eq!(r(x), Err(KummerError::NeutralResult), "{why}");
        assert_eq!(r(y), Ok(shared), "{why}");
        let [x, y] = SecretKey::diffie_hellman_pair([(&skb, &pka), bad]);
        assert_eq!(r(x), Ok(shared), "{why}");
        assert_eq!(r(y), Err(KummerError::NeutralResult), "{why}");
    }
    // Random exchanges against single calls.
    let mut rng = TestRng(common::Rng::new(0x7061_6972));
    for _ in 0..12 {
        let keys: Vec<SecretKey> = (0..4).map(|_| SecretKey::generate(&mut rng)).collect();
        let (p2, p3) = (keys[2].public_key(), keys[3].public_key());
        let [x, y] = SecretKey::diffie_hellman_pair([(&keys[0], &p2), (&keys[1], &p3)]);
        let (x, y) = (r(x), r(y));
        assert!(x.is_ok() && y.is_ok());
        assert_eq!(x, r(keys[0].diffie_hellman(&p2)));
        assert_eq!(y, r(keys[1].diffie_hellman(&p3)));
    }
}

#[test]
fn the_safe_layer_matches_the_raw_functions() {
    let mut rng = TestRng(common::Rng::new(0x6b65_7973));
    for _ in 0..16 {
        let (a, b) = (SecretKey::generate(&mut rng), SecretKey::generate(&mut rng));
        assert_eq!(a.as_bytes()[31] & 0xf8, 0, "unused bits cleared");
        let (pa, pb) = (a.public_key(), b.public_key());
        assert_eq!(pa.to_bytes(), scalarmult_base(a.as_bytes()));
        let ab = a.diffie_hellman(&pb).unwrap();
        let ba = b.diffie_hellman(&pa).unwrap();
        assert_eq!(ab.as_bytes(), ba.as_bytes());
        assert_eq!(ab.as_bytes(), &scalarmult(a.as_bytes(), pb.as_bytes()));
        // Public keys survive a round trip through bytes.
        assert_eq!(PublicKey::from_bytes(pa.as_bytes()), Ok(pa));
    }
}

#[test]
fn generated_keys_differ() {
    let mut rng = TestRng(common::Rng::new(1));
    let a = SecretKey::generate(&mut rng);
    let b = SecretKey::generate(&mut rng);
    assert_ne!(a.as_bytes(), b.as_bytes());
}

#[test]
fn non_canonical_coordinates_are_rejected() {
    let good = hex::<48>(&value("pk_a"));
    assert!(PublicKey::from_bytes(&good).is_ok());
    for i in 0..3 {
        // Each coordinate = p, p + 1, 2^127, all ones.
        for v in [P, P + 1, 1 << 127, u128::MAX] {
            assert_eq!(
                PublicKey::from_bytes(&with_coordinate(good, i, v)),
                Err(KummerError::NonCanonical { coordinate: i }),
                "coordinate {i} = {v:#x}"
            );
        }
        // Bit 127 set on a valid key: the ladder would ignore it (the raw
        // function accepts it), the safe layer does not.
        let mut high = good;
        high[16 * i + 15] |= 0x80;
        assert_eq!(
            scalarmult(&[9; 32], &high),
            scalarmult(&[9; 32], &good),
            "raw functions ignore bit 127"
        );
        assert_eq!(
            PublicKey::from_bytes(&high),
            Err(KummerError::NonCanonical { coordinate: i })
        );
        // A coordinate plus p (same residue) when it fits in 128 bits.
        let c = coordinate(&good, i);
        if let Some(v) = c.checked_add(P) {
            assert_eq!(
                PublicKey::from_bytes(&with_coordinate(good, i, v)),
                Err(KummerError::NonCanonical { coordinate: i })
            );
        }
    }
    // The base point's x/y = 6 and x/t = 1 written non-canonically.
    for (i, v) in [(0, 6 + P), (2, 1 + P)] {
        assert_eq!(
            PublicKey::from_bytes(&with_coordinate(BASE_POINT, i, v)),
            Err(KummerError::NonCanonical { coordinate: i })
        );
    }
    assert_eq!(
        PublicKey::from_bytes(&[0xff; 48]),
        Err(KummerError::NonCanonical { coordinate: 0 })
    );
}

#[test]
fn zero_coordinates_are_rejected() {
    // All zero: what the encoder writes for any point with Y·Z·T = 0, so it
    // names no point; decoded, it is (0 : 0 : 0 : 0).
    assert_eq!(
        PublicKey::from_bytes(&[0u8; 48]),
        Err(KummerError::ZeroCoordinate { coordinate: 0 })
    );
    let good = hex::<48>(&value("pk_b"));
    for i in 0..3 {
        assert_eq!(
            PublicKey::from_bytes(&with_coordinate(good, i, 0)),
            Err(KummerError::ZeroCoordinate { coordinate: i })
        );
    }
}

#[test]
fn points_off_the_surface_are_rejected() {
    let good = hex::<48>(&value("pk_a"));
    // Every single-bit change of a valid key that stays canonical and
    // nonzero leaves the surface.
    let mut checked = 0;
    for bit in 0..384 {
        let mut b = good;
        b[bit / 8] ^= 1 << (bit % 8);
        if bit % 128 == 127 {
            continue; // non-canonical, tested above
        }
        assert_eq!(
            PublicKey::from_bytes(&b),
            Err(KummerError::NotOnSurface),
            "bit {bit}"
        );
        checked += 1;
    }
    assert_eq!(checked, 381);
    // Random canonical strings.
    let mut rng = common::Rng::new(0x0ff5);
    for _ in 0..2000 {
        let mut b = [0u8; 48];
        for w in b.chunks_mut(8) {
            w.copy_from_slice(&rng.next_u64().to_le_bytes());
        }
        for i in 0..3 {
            b[16 * i + 15] &= 0x7f;
        }
        let r = PublicKey::from_bytes(&b);
        assert!(
            matches!(
                r,
                Err(KummerError::NotOnSurface | KummerError::NonCanonical { .. })
            ),
            "{} gave {r:?}",
            to_hex(&b)
        );
    }
}

#[test]
fn neutral_is_a_valid_public_key_but_never_a_shared_secret() {
    let neutral = hex::<48>(&value("neutral"));
    assert_eq!(
        to_hex(&neutral),
        "ffffffffffffffffffffffffffffff3faea1bc86f21aca6b28afa1bc86f21a4a\
         51555555555555555555555555555555"
    );
    let pk = PublicKey::from_bytes(&neutral).expect("the neutral element is on the surface");
    let mut rng = TestRng(common::Rng::new(0x4e75));
    for _ in 0..8 {
        let sk = SecretKey::generate(&mut rng);
        assert_eq!(
            sk.diffie_hellman(&pk).map(|s| *s.as_bytes()),
            Err(KummerError::NeutralResult)
        );
    }
}

#[test]
fn zero_secret_gives_the_neutral_element_and_is_rejected() {
    let zero = SecretKey::from_bytes([0u8; 32]);
    assert_eq!(zero.public_key().to_bytes(), hex::<48>(&value("neutral")));
    let pkb = PublicKey::from_bytes(&hex(&value("pk_b"))).unwrap();
    assert_eq!(
        zero.diffie_hellman(&pkb).map(|s| *s.as_bytes()),
        Err(KummerError::NeutralResult)
    );
    // The bits the ladder ignores do not make it nonzero.
    let mut top = [0u8; 32];
    top[31] = 0xf8;
    assert_eq!(
        SecretKey::from_bytes(top)
            .diffie_hellman(&pkb)
            .map(|s| *s.as_bytes()),
        Err(KummerError::NeutralResult)
    );
}

#[test]
fn the_group_order_as_secret_is_rejected() {
    // N2 = 1809251394333065553571917326471206521441306174399683558571672623546356726339.
    let n2 = hex::<32>(&value("n2"));
    let sk = SecretKey::from_bytes(n2);
    assert_eq!(sk.public_key().to_bytes(), hex::<48>(&value("neutral")));
    for peer in ["pk_a", "pk_b"] {
        let pk = PublicKey::from_bytes(&hex(&value(peer))).unwrap();
        assert_eq!(
            sk.diffie_hellman(&pk).map(|s| *s.as_bytes()),
            Err(KummerError::NeutralResult),
            "{peer}"
        );
    }
    let base = PublicKey::from_bytes(&BASE_POINT).unwrap();
    assert_eq!(
        sk.diffie_hellman(&base).map(|s| *s.as_bytes()),
        Err(KummerError::NeutralResult)
    );
    // N2 + 1 is fine again: the peer's own point.
    let mut plus = n2;
    plus[0] += 1;
    let pkb = PublicKey::from_bytes(&hex(&value("pk_b"))).unwrap();
    assert_eq!(
        SecretKey::from_bytes(plus)
            .diffie_hellman(&pkb)
            .unwrap()
            .as_bytes(),
        pkb.as_bytes()
    );
}

#[test]
fn errors_say_what_was_wrong() {
    let all = [
        KummerError::NonCanonical { coordinate: 1 },
        KummerError::ZeroCoordinate { coordinate: 2 },
        KummerError::NotOnSurface,
        KummerError::DegenerateResult,
        KummerError::NeutralResult,
    ];
    let msgs: Vec<String> = all.iter().map(|e| e.to_string()).collect();
    for (e, m) in all.iter().zip(&msgs) {
        let as_error: &dyn std::error::Error = e;
        assert!(as_error.source().is_none());
        assert!(m.starts_with("kummer: "), "{m}");
    }
    assert!(msgs[0].contains("bytes 16..32"), "{}", msgs[0]);
    assert!(msgs[1].contains("bytes 32..48"), "{}", msgs[1]);
    let mut sorted = msgs.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), msgs.len(), "messages are distinct");
}

#[test]
fn secrets_are_redacted_and_zeroized_on_drop() {
    fn zeroized_on_drop<T: ZeroizeOnDrop>() {}
    zeroized_on_drop::<SecretKey>();
    zeroized_on_drop::<SharedSecret>();

    let sk = SecretKey::from_bytes(hex(&value("sk_a")));
    let shown = format!("{sk:?} {:?}", sk.clone());
    assert!(!shown.contains("a4") && !shown.contains("15"), "{shown}");
    let pkb = PublicKey::from_bytes(&hex(&value("pk_b"))).unwrap();
    let shared = sk.diffie_hellman(&pkb).unwrap();
    let shown = format!("{shared:?}");
    assert!(!shown.contains("f9") && !shown.contains("a9"), "{shown}");
    // Public keys print in full.
    assert_eq!(format!("{pkb:?}"), format!("PublicKey({})", value("pk_b")));
}

/// `rand` 0.10's generators, as a user's project hands them over: the
/// thread-local CSPRNG through `generate`, the operating system's fallible
/// source (`SysRng`, getrandom) through `try_generate`.
#[test]
fn rand_0_10_generators_make_keys() {
    let mut rng = rand::rng();
    let a = SecretKey::generate(&mut rng);
    let b = SecretKey::try_generate(&mut rand::rngs::SysRng).expect("the OS generator works here");
    assert!(a.as_bytes()[31] < 8 && b.as_bytes()[31] < 8);
    assert_ne!(a.as_bytes(), b.as_bytes());
    let ab = a.diffie_hellman(&b.public_key()).unwrap();
    let ba = b.diffie_hellman(&a.public_key()).unwrap();
    assert_eq!(ab.as_bytes(), ba.as_bytes());
}

/// A generator that fails: `try_generate` passes its error on.
#[test]
fn try_generate_passes_the_generator_error_on() {
    #[derive(Debug, PartialEq)]
    struct Broken;
    impl std::fmt::Display for Broken {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("broken generator")
        }
    }
    impl std::error::Error for Broken {}
    struct Failing;
    impl fieldwork::rand_core::TryRng for Failing {
        type Error = Broken;
        fn try_next_u32(&mut self) -> Result<u32, Broken> {
            Err(Broken)
        }
        fn try_next_u64(&mut self) -> Result<u64, Broken> {
            Err(Broken)
        }
        fn try_fill_bytes(&mut self, _dst: &mut [u8]) -> Result<(), Broken> {
            Err(Broken)
        }
    }
    impl fieldwork::rand_core::TryCryptoRng for Failing {}
    assert_eq!(SecretKey::try_generate(&mut Failing).err(), Some(Broken));
}
