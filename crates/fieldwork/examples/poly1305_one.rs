//! One Poly1305 length in a loop, for callgrind: `poly1305_one LEN ITERS`
//! (the one-shot `tag`, as peer-bench's `poly1305` rows).
fn main() {
    let mut args = std::env::args().skip(1);
    let len: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(576);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let msg = vec![0x5au8; len];
    let mut key = [7u8; 32];
    let mut acc = 0u8;
    for i in 0..iters {
        key[0] = i as u8;
        let t = fieldwork::poly1305::tag(std::hint::black_box(&key), std::hint::black_box(&msg));
        acc ^= t[0];
    }
    println!("{acc}");
}
