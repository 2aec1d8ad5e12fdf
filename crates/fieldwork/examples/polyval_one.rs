//! One POLYVAL size in a loop, for callgrind: `polyval_one LEN ITERS`
//! (new, update, finalize by value, as peer-bench's `polyval` rows).
fn main() {
    let mut args = std::env::args().skip(1);
    let len: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(64);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let msg = vec![0x5au8; len];
    let mut key = [7u8; 16];
    let mut acc = 0u8;
    for i in 0..iters {
        key[0] = i as u8;
        let mut p = fieldwork::ghash::Polyval::new(std::hint::black_box(&key));
        p.update(std::hint::black_box(&msg));
        let t = p.finalize();
        acc ^= t[0];
    }
    println!("{acc}");
}
