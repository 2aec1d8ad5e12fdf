//! One AES-GCM-SIV message size in a loop, for callgrind:
//! `gcm_siv_one LEN ITERS [256]` (AES-128, or AES-256 with `256`; 13 bytes
//! of associated data, a new nonce each message, as peer-bench's
//! `gcm_siv128_encrypt` rows).
use fieldwork::gcm_siv::{Aes128GcmSiv, Aes256GcmSiv, aead::KeyInit};

fn main() {
    let mut args = std::env::args().skip(1);
    let len: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(16);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let wide = args.next().as_deref() == Some("256");
    let aad = [0x11u8; 13];
    let mut buf = vec![0x5au8; len];
    let mut nonce = [3u8; 12];
    let mut acc = 0u8;
    let k128 = Aes128GcmSiv::new(&[7u8; 16].into());
    let k256 = Aes256GcmSiv::new(&[7u8; 32].into());
    for i in 0..iters {
        nonce[0] = i as u8;
        let n = std::hint::black_box(&nonce);
        let tag = if wide {
            k256.encrypt_in_place_detached(n, &aad, &mut buf)
        } else {
            k128.encrypt_in_place_detached(n, &aad, &mut buf)
        };
        acc ^= tag.map(|t| t[0]).unwrap_or(0);
    }
    println!("{acc} {}", buf[0]);
}
