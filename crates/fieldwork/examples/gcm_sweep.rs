//! AES-GCM encryption timed at a list of lengths, for finding where a
//! length's time goes: `gcm_sweep [LEN ...]` prints the median nanoseconds
//! per call of the default AES-128-GCM and AES-256-GCM keys (13 bytes of
//! associated data, 96-bit IV).
use fieldwork::gcm::{Aes128Gcm, Aes256Gcm};
use std::time::Instant;

fn time(len: usize, mut f: impl FnMut(&mut [u8]) -> [u8; 16]) -> f64 {
    let mut buf = vec![0x5au8; len];
    let reps = 200_000 / (len / 64 + 4);
    let mut samples = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(f(std::hint::black_box(&mut buf)));
        }
        samples.push(t.elapsed().as_nanos() as f64 / reps as f64);
    }
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[samples.len() / 2]
}

fn main() {
    let mut lens: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if lens.is_empty() {
        lens = vec![16, 64, 224, 240, 256, 272, 512, 1024];
    }
    let iv = [9u8; 12];
    let aad = [1u8; 13];
    let k128 = Aes128Gcm::new_portable(&[7; 16]);
    let k128 = Aes128Gcm::new_vaes256(&[7; 16]).unwrap_or(k128);
    let k256 = Aes256Gcm::new_portable(&[7; 32]);
    let k256 = Aes256Gcm::new_vaes256(&[7; 32]).unwrap_or(k256);
    println!("{} / {}", k128.backend_name(), k256.backend_name());
    for &len in &lens {
        let a = time(len, |b| {
            k128.encrypt_in_place_detached_iv(&iv, &aad, b)
                .unwrap_or_default()
        });
        let c = time(len, |b| {
            k256.encrypt_in_place_detached_iv(&iv, &aad, b)
                .unwrap_or_default()
        });
        println!("{len:6} B  aes128 {a:7.1} ns  aes256 {c:7.1} ns");
    }
}
