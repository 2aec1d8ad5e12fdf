//! GHASH and POLYVAL with a fresh key per message, timed at a list of
//! lengths on every backend (and forced schedule) this CPU runs:
//! `ghash_sweep [LEN ...]` prints, per length, each backend's fastest
//! batch in nanoseconds per message (new, update, finalize, as
//! peer-bench's rows), the backends' batches interleaved so that a slow
//! phase of a shared machine hits them alike — for finding where a tuning
//! table's crossover between two kernels lies on this core. Figures for
//! the docs come from peer-bench.
use fieldwork::ghash::{GHash, Polyval};
use fieldwork::hazmat::Backends;
use std::hint::black_box;
use std::time::Instant;

/// Nanoseconds per call of `f` over one batch of `reps` calls.
fn batch(reps: usize, msg: &[u8], f: &dyn Fn(&[u8]) -> [u8; 16]) -> f64 {
    let t = Instant::now();
    for _ in 0..reps {
        black_box(f(black_box(msg)));
    }
    t.elapsed().as_nanos() as f64 / reps as f64
}

fn main() {
    let mut lens: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if lens.is_empty() {
        lens = vec![64, 512, 1024, 1420, 1536, 1792, 2048, 3072];
    }
    let key = [0x42u8; 16];
    let names = fieldwork::hazmat::usable::<GHash>(&key);
    let msgs: Vec<Vec<u8>> = lens.iter().map(|&len| vec![0x5au8; len]).collect();
    // best[length][backend] = [GHASH, POLYVAL]; every round visits every
    // length, so a slow phase lasting seconds spoils one round of each,
    // not every round of one.
    let mut best = vec![vec![[f64::INFINITY; 2]; names.len()]; lens.len()];
    for _ in 0..31 {
        for (msg, best) in msgs.iter().zip(&mut best) {
            let reps = 20_000 / (msg.len() / 16 + 8);
            for (name, best) in names.iter().zip(best.iter_mut()) {
                let g = batch(reps, msg, &|m| {
                    GHash::with_backend(name, black_box(&key)).map_or([0; 16], |mut h| {
                        h.update(m);
                        h.finalize()
                    })
                });
                let p = batch(reps, msg, &|m| {
                    Polyval::with_backend(name, black_box(&key)).map_or([0; 16], |mut h| {
                        h.update(m);
                        h.finalize()
                    })
                });
                best[0] = best[0].min(g);
                best[1] = best[1].min(p);
            }
        }
    }
    for (len, best) in lens.iter().zip(&best) {
        for (name, [g, p]) in names.iter().zip(best) {
            println!("{len:6} B  {name:28} ghash {g:7.1} ns  polyval {p:7.1} ns");
        }
    }
}
