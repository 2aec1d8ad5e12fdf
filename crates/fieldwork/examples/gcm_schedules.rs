//! Both GHASH schedules of the ymm AES-GCM kernel (schoolbook and
//! Karatsuba, `gcm/vaes256.rs`), encrypting in place, interleaved in one
//! process and timed by the fastest of many runs:
//! `gcm_schedules [LEN]` (default 16 KiB). Run it under
//! `FIELDWORK_MAX_ISA=avx2` on an AVX-512 machine too. It compares a
//! schedule across builds on a CPU where the other schedule is the chosen
//! one (peer-bench's column for it is noisier: one median per run).
use fieldwork::gcm::{Aes128Gcm, Aes256Gcm};
use fieldwork::hazmat::Backends;
use std::hint::black_box;
use std::time::Instant;

/// One key's in-place encryption of a buffer.
type Seal<'a> = &'a dyn Fn(&mut [u8]);

/// The fastest of 30 runs of `reps` calls, in ns a call.
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..30 {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / reps as f64);
    }
    best
}

fn main() {
    let len: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(16384);
    let (iv, aad) = ([9u8; 12], [1u8; 13]);
    let mut store = vec![0x5au8; len + 4096];
    let start = (4096 - store.as_ptr() as usize % 4096) % 4096;
    let buf = &mut store[start..start + len];
    let reps = (2_000_000 / (len + 256)).max(1);
    let k128 = (
        Aes128Gcm::with_backend("vaes-avx2", &[7u8; 16]),
        Aes128Gcm::with_backend("vaes-avx2-karatsuba", &[7u8; 16]),
    );
    let k256 = (
        Aes256Gcm::with_backend("vaes-avx2", &[7u8; 32]),
        Aes256Gcm::with_backend("vaes-avx2-karatsuba", &[7u8; 32]),
    );
    let (Some(s128), Some(k128), Some(s256), Some(k256)) = (k128.0, k128.1, k256.0, k256.1) else {
        println!("no VAES/VPCLMULQDQ ymm kernel on this CPU");
        return;
    };
    let seal: [Seal; 4] = [
        &|b| _ = black_box(s128.encrypt_in_place_detached_iv(&iv, &aad, b)),
        &|b| _ = black_box(k128.encrypt_in_place_detached_iv(&iv, &aad, b)),
        &|b| _ = black_box(s256.encrypt_in_place_detached_iv(&iv, &aad, b)),
        &|b| _ = black_box(k256.encrypt_in_place_detached_iv(&iv, &aad, b)),
    ];
    let mut t = [f64::MAX; 4];
    for _ in 0..3 {
        for (best_ns, f) in t.iter_mut().zip(seal) {
            *best_ns = best_ns.min(best(reps, || f(black_box(&mut *buf))));
        }
    }
    println!(
        "{len} B encryption, ns: AES-128 schoolbook {:.0}, Karatsuba {:.0}; AES-256 schoolbook {:.0}, Karatsuba {:.0}",
        t[0], t[1], t[2], t[3]
    );
}
