//! AES-GCM encryption timed at a list of lengths, for finding where a
//! length's time goes: `gcm_sweep [LEN ...]` prints the median nanoseconds
//! per call of AES-128-GCM and AES-256-GCM on each backend this CPU runs
//! (13 bytes of associated data, 96-bit IV).
use fieldwork::gcm::{Aes128Gcm, Aes256Gcm};
use std::time::Instant;

fn time(len: usize, mut f: impl FnMut(&mut [u8]) -> [u8; 16]) -> f64 {
    // FIELDWORK_SWEEP_OFFSET: the buffer's offset in bytes from a 4 KiB
    // boundary (default 0), to see whether a figure depends on placement.
    let off: usize = std::env::var("FIELDWORK_SWEEP_OFFSET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut store = vec![0x5au8; len + off + 4096];
    let start = (4096 - store.as_ptr() as usize % 4096) % 4096 + off;
    let buf = &mut store[start..start + len];
    let reps = 200_000 / (len / 64 + 4);
    let mut samples = Vec::new();
    for _ in 0..15 {
        let t = Instant::now();
        for _ in 0..reps {
            std::hint::black_box(f(std::hint::black_box(&mut *buf)));
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
    let all128 = fieldwork::hazmat::all::<Aes128Gcm>(&[7; 16]);
    let all256 = fieldwork::hazmat::all::<Aes256Gcm>(&[7; 32]);
    for (k128, k256) in all128.iter().zip(&all256) {
        for &len in &lens {
            let a = time(len, |b| {
                k128.encrypt_in_place_detached_iv(&iv, &aad, b)
                    .unwrap_or_default()
            });
            let c = time(len, |b| {
                k256.encrypt_in_place_detached_iv(&iv, &aad, b)
                    .unwrap_or_default()
            });
            println!(
                "{:20} {len:6} B  aes128 {a:7.1} ns  aes256 {c:7.1} ns",
                k128.backend_name()
            );
        }
    }
}
