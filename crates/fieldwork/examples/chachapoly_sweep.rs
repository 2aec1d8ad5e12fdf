//! ChaCha20-Poly1305 sealing timed at a list of lengths on every backend
//! this CPU runs: `chachapoly_sweep [open] [LEN ...]` prints each
//! backend's fastest batch in nanoseconds per seal (13 bytes of associated
//! data), backends and lengths interleaved (`common::fastest`); with
//! `open`, per opening of a sealed message (copied into the buffer first,
//! as peer-bench's rows do).
use fieldwork::chachapoly::ChaCha20Poly1305;
use fieldwork::hazmat::{self, Backends};
use std::hint::black_box;

mod common;

fn main() {
    let lens = common::lengths(&[64, 192, 256, 448, 512, 576, 960, 1024, 1420, 1536, 2048]);
    let (key, nonce, aad) = ([7u8; 32], [9u8; 12], [1u8; 13]);
    let aeads = hazmat::all::<ChaCha20Poly1305>(&key);
    let open = std::env::args().any(|a| a == "open");
    // Each length's sealed message and tag (by the first backend).
    let sealed: Vec<(Vec<u8>, [u8; 16])> = lens
        .iter()
        .map(|&len| {
            let mut m = vec![0x5a; len];
            let tag = aeads[0]
                .encrypt_in_place_detached(&nonce, &aad, &mut m)
                .unwrap_or_default();
            (m, tag)
        })
        .collect();
    let best = common::fastest(&lens, aeads.len(), 31, |i, buf| {
        if open {
            if let Some((m, tag)) = sealed.iter().find(|(m, _)| m.len() == buf.len()) {
                buf.copy_from_slice(m);
                let r = aeads[i].decrypt_in_place_detached(&nonce, &aad, buf, tag);
                black_box(r.is_ok());
            }
            return;
        }
        let tag = aeads[i]
            .encrypt_in_place_detached(&nonce, &aad, buf)
            .unwrap_or_default();
        black_box(tag);
    });
    for (len, best) in lens.iter().zip(&best) {
        for (aead, ns) in aeads.iter().zip(best) {
            println!("{:16} {len:6} B {ns:8.1} ns", aead.backend());
        }
    }
}
