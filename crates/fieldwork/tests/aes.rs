//! AES block encryption: FIPS 197 appendix C on every backend
//! (`fieldwork::hazmat`), and every backend (the AES-NI one: our own key
//! expansion) against RustCrypto's `aes` crate on random keys and blocks for
//! all three key sizes.

use super::common;

use aes::cipher::{BlockCipherEncrypt, KeyInit};
use common::Rng;
use fieldwork::aes::{Aes128, Aes192, Aes256};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Every backend of a key size (`fieldwork::hazmat`), and the default one.
fn encrypt_all(key: &[u8], block: [u8; 16]) -> Vec<(&'static str, [u8; 16])> {
    let mut out = Vec::new();
    macro_rules! run {
        ($t:ty, $n:literal) => {{
            let k: [u8; $n] = key.try_into().unwrap();
            let all = common::every_backend::<$t>(&k);
            assert_eq!(all[0].backend_name(), <$t>::new(&k).backend_name());
            for c in all.into_iter().chain([<$t>::new(&k)]) {
                let mut b = block;
                c.encrypt_block(&mut b);
                let mut bs = [block; 9];
                c.encrypt_blocks(&mut bs);
                assert!(
                    bs.iter().all(|x| *x == b),
                    "{} encrypt_blocks",
                    c.backend_name()
                );
                out.push((c.backend_name(), b));
            }
        }};
    }
    match key.len() {
        16 => run!(Aes128, 16),
        24 => run!(Aes192, 24),
        _ => run!(Aes256, 32),
    }
    out
}

#[test]
fn fips197_appendix_c() {
    let lines = common::data_lines("aes_fips197.txt");
    assert_eq!(lines.len(), 3);
    for l in lines {
        let (key, pt, ct) = (hex(&l[0]), hex(&l[1]), hex(&l[2]));
        for (name, got) in encrypt_all(&key, pt.clone().try_into().unwrap()) {
            assert_eq!(got.to_vec(), ct, "{name}, {}-bit key", key.len() * 8);
        }
    }
}

#[test]
fn matches_rustcrypto_aes() {
    let mut rng = Rng::new(0xae5);
    for i in 0..600 {
        let klen = [16, 24, 32][i % 3];
        let key: Vec<u8> = (0..klen).map(|_| rng.next_u64() as u8).collect();
        let block: [u8; 16] = core::array::from_fn(|_| rng.next_u64() as u8);
        let mut want = block.into();
        match klen {
            16 => aes::Aes128::new_from_slice(&key)
                .unwrap()
                .encrypt_block(&mut want),
            24 => aes::Aes192::new_from_slice(&key)
                .unwrap()
                .encrypt_block(&mut want),
            _ => aes::Aes256::new_from_slice(&key)
                .unwrap()
                .encrypt_block(&mut want),
        }
        for (name, got) in encrypt_all(&key, block) {
            assert_eq!(got[..], want[..], "{name}, key {key:02x?}");
        }
    }
}
