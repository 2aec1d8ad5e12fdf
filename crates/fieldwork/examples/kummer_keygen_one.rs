//! Runs `kummer::scalarmult_base` in a loop, for profilers (callgrind,
//! perf): `kummer_keygen_one [ITERS]`.
fn main() {
    let iters: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let mut key = [7u8; 32];
    let mut acc = 0u8;
    for i in 0..iters {
        key[0] = i as u8;
        let p = fieldwork::kummer::scalarmult_base(std::hint::black_box(&key));
        acc ^= p[0];
    }
    println!("{acc}");
}
