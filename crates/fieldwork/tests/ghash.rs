//! GHASH and POLYVAL: published vectors (sources in tests/data/ghash_vectors.txt),
//! every backend against the portable one, streaming splits, and the
//! RFC 8452 relation between the two hashes.

mod common;

use fieldwork::ghash::{GHash, Polyval, ghash, polyval};

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
        let (h, data, want) = (key(f[1]), unhex(f[2]), unhex(f[3]));
        let got = match f[0] {
            "polyval" => polyval(&h, &data),
            "ghash" => ghash(&h, &data),
            k => panic!("unknown kind {k}"),
        };
        assert_eq!(got.to_vec(), want, "{line}");
        // The same through the portable and PCLMULQDQ instances.
        let port = match f[0] {
            "polyval" => {
                let mut p = Polyval::new_portable(&h);
                p.update(&data);
                p.finalize()
            }
            _ => {
                let mut g = GHash::new_portable(&h);
                g.update(&data);
                g.finalize()
            }
        };
        assert_eq!(port.to_vec(), want, "portable: {line}");
        n += 1;
    }
    assert_eq!(n, 6);
}

fn random_bytes(rng: &mut common::Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| rng.next_u64() as u8).collect()
}

/// Every backend equals portable at every length to 1100 bytes (all
/// aggregation group sizes and tails) and at a few long ones.
#[test]
fn backends_agree_with_portable() {
    let mut rng = common::Rng::new(0x6ba5);
    let mut lens: Vec<usize> = (0..=1100).collect();
    lens.extend([4096, 4096 + 16 * 31, 65536 + 48]);
    for &n in &lens {
        let h: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
        let data = random_bytes(&mut rng, n);
        let want_p = {
            let mut p = Polyval::new_portable(&h);
            p.update(&data);
            p.finalize()
        };
        let want_g = {
            let mut g = GHash::new_portable(&h);
            g.update(&data);
            g.finalize()
        };
        assert_eq!(polyval(&h, &data), want_p, "polyval best, {n} bytes");
        assert_eq!(ghash(&h, &data), want_g, "ghash best, {n} bytes");
        if let Some(mut p) = Polyval::new_pclmulqdq(&h) {
            p.update(&data);
            assert_eq!(p.finalize(), want_p, "polyval pclmulqdq, {n} bytes");
        }
        if let Some(mut g) = GHash::new_pclmulqdq(&h) {
            g.update(&data);
            assert_eq!(g.finalize(), want_g, "ghash pclmulqdq, {n} bytes");
        }
    }
}

/// Any split of the input into updates gives the same hash.
#[test]
fn streaming_splits() {
    let mut rng = common::Rng::new(0x5717);
    for _ in 0..200 {
        let h: [u8; 16] = random_bytes(&mut rng, 16).try_into().unwrap();
        let n = (rng.next_u64() % 2000) as usize;
        let data = random_bytes(&mut rng, n);
        let mut p = Polyval::new(&h);
        let mut g = GHash::new(&h);
        let mut rest = &data[..];
        while !rest.is_empty() {
            let k = ((rng.next_u64() % 700) as usize).min(rest.len());
            p.update(&rest[..k]);
            g.update(&rest[..k]);
            rest = &rest[k..];
        }
        assert_eq!(p.finalize(), polyval(&h, &data));
        assert_eq!(g.finalize(), ghash(&h, &data));
    }
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
