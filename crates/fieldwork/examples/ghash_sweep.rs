//! GHASH and POLYVAL with a fresh key per message, timed at a list of
//! lengths on every backend (and forced schedule) this CPU runs:
//! `ghash_sweep [LEN ...]` prints, per length, each backend's fastest
//! batch in nanoseconds per message (new, update, finalize, as
//! peer-bench's rows), backends and lengths interleaved
//! (`common::fastest`) — for finding where a tuning table's crossover
//! between two kernels lies on this core. Figures for the docs come from
//! peer-bench.
use fieldwork::ghash::{GHash, Polyval};
use fieldwork::hazmat::Backends;
use std::hint::black_box;

mod common;

fn main() {
    let lens = common::lengths(&[64, 512, 1024, 1420, 1536, 1792, 2048, 3072]);
    let key = [0x42u8; 16];
    let names = fieldwork::hazmat::usable::<GHash>(&key);
    // Columns 2i and 2i + 1: backend i's GHASH and POLYVAL.
    let best = common::fastest(&lens, 2 * names.len(), 31, |c, msg| {
        let name = names[c / 2];
        let tag = if c % 2 == 0 {
            GHash::with_backend(name, black_box(&key)).map_or([0; 16], |mut h| {
                h.update(msg);
                h.finalize()
            })
        } else {
            Polyval::with_backend(name, black_box(&key)).map_or([0; 16], |mut h| {
                h.update(msg);
                h.finalize()
            })
        };
        black_box(tag);
    });
    for (len, best) in lens.iter().zip(&best) {
        for (name, pair) in names.iter().zip(best.chunks(2)) {
            println!(
                "{len:6} B  {name:28} ghash {:7.1} ns  polyval {:7.1} ns",
                pair[0], pair[1]
            );
        }
    }
}
