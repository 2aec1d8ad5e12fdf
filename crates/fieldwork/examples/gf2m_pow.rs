//! A chain of squares and products inside one call, for the in-call latency
//! of GF(2^233)'s kernels (`xmm233.rs`): `F233::pow` with a 1 024-bit
//! exponent (a square, a product and a constant-time select a bit), in
//! nanoseconds a bit (`cargo run --release -p fieldwork-crypto --example
//! gf2m_pow`; backend: `FIELDWORK_MAX_ISA`). Wall-clock, one machine: for
//! comparing builds, not peers (peer-bench does that).
use fieldwork::gf2m::{F233, FieldElement};

fn main() {
    let a = F233::ONE + F233::ONE.sqrt();
    let e = [0x1234_5678_9abc_def0u64; 16];
    let n = 20_000;
    let mut r = a;
    let t = std::time::Instant::now();
    for _ in 0..n {
        r = std::hint::black_box(r.pow(&e));
    }
    let per_bit = t.elapsed().as_secs_f64() / (f64::from(n) * 1024.0);
    println!(
        "F233::pow: {:.2} ns a bit (square, product, select); result bit {}",
        per_bit * 1e9,
        r.to_words()[0] & 1
    );
}
