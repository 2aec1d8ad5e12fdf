//! ChaCha20-Poly1305 seal timed at a list of lengths, for finding where a
//! length's time goes: `chachapoly_sweep [LEN ...]` prints the median
//! nanoseconds per call of each backend (13 bytes of associated data).
use fieldwork::chachapoly::ChaCha20Poly1305;
use fieldwork::hazmat::{self, Backends};
use std::time::Instant;

fn main() {
    let mut lens: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if lens.is_empty() {
        lens = vec![64, 192, 256, 448, 512, 576, 960, 1024, 1420, 1536, 2048];
    }
    let key = [7u8; 32];
    let nonce = [9u8; 12];
    let aad = [1u8; 13];
    for aead in hazmat::all::<ChaCha20Poly1305>(&key) {
        let name = aead.backend();
        for &len in &lens {
            let mut buf = vec![0x5au8; len];
            let reps = 200_000 / (len / 64 + 4);
            let mut samples = Vec::new();
            for _ in 0..15 {
                let t = Instant::now();
                for _ in 0..reps {
                    let tag = aead
                        .encrypt_in_place_detached(&nonce, &aad, std::hint::black_box(&mut buf))
                        .unwrap_or_default();
                    std::hint::black_box(tag);
                }
                samples.push(t.elapsed().as_nanos() as f64 / reps as f64);
            }
            samples.sort_by(|a, b| a.total_cmp(b));
            println!("{name:16} {len:6} B {:8.1} ns", samples[samples.len() / 2]);
        }
    }
}
