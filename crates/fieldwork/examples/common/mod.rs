//! What the `*_sweep` examples share: the lengths from the command line,
//! and a timer that interleaves every column (backend, key size, ...) and
//! every length in each round and keeps each one's fastest batch, so that
//! a slow phase of a shared machine lasting seconds spoils one round of
//! each column and length, not every round of one (on the 2-vCPU VMs these
//! run on, a per-length loop showed phantom crossovers). Figures for the
//! docs come from peer-bench; these find where a length's time goes.
use std::hint::black_box;
use std::time::Instant;

/// The lengths in bytes given as arguments, or `default` if there are none.
pub fn lengths(default: &[usize]) -> Vec<usize> {
    let lens: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    if lens.is_empty() {
        default.to_vec()
    } else {
        lens
    }
}

/// For each length and column, the fastest of `rounds` batches in
/// nanoseconds per call of `call(column, message)`. Every message starts
/// on a 4 KiB boundary, or `FIELDWORK_SWEEP_OFFSET` bytes after one, to
/// see whether a figure depends on placement; it holds 0x5a bytes and
/// `call` may overwrite it (sealing in place).
pub fn fastest(
    lens: &[usize],
    columns: usize,
    rounds: usize,
    mut call: impl FnMut(usize, &mut [u8]),
) -> Vec<Vec<f64>> {
    let off: usize = std::env::var("FIELDWORK_SWEEP_OFFSET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut stores: Vec<(Vec<u8>, usize)> = lens
        .iter()
        .map(|&len| {
            let store = vec![0x5au8; len + off + 4096];
            let start = (4096 - store.as_ptr() as usize % 4096) % 4096 + off;
            (store, start)
        })
        .collect();
    let mut best = vec![vec![f64::INFINITY; columns]; lens.len()];
    for _ in 0..rounds {
        for ((&len, (store, start)), best) in lens.iter().zip(&mut stores).zip(&mut best) {
            let msg = &mut store[*start..*start + len];
            // Fewer calls for longer messages: ≈ 550 at 1 KiB, ≈ 4 500 at
            // 16 bytes.
            let reps = 40_000 / (len / 16 + 8);
            for (column, best) in best.iter_mut().enumerate() {
                let t = Instant::now();
                for _ in 0..reps {
                    call(column, black_box(&mut *msg));
                }
                *best = best.min(t.elapsed().as_nanos() as f64 / reps as f64);
            }
        }
    }
    best
}
