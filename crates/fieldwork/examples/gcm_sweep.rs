//! AES-GCM encryption timed at a list of lengths: `gcm_sweep [LEN ...]`
//! prints each backend's fastest batch in nanoseconds per call of
//! AES-128-GCM and AES-256-GCM (13 bytes of associated data, 96-bit IV),
//! backends, key sizes and lengths interleaved (`common::fastest`;
//! `FIELDWORK_SWEEP_OFFSET` moves the buffer from its 4 KiB boundary).
use fieldwork::gcm::{Aes128Gcm, Aes256Gcm};
use std::hint::black_box;

mod common;

fn main() {
    let lens = common::lengths(&[16, 64, 224, 240, 256, 272, 512, 1024]);
    let (iv, aad) = ([9u8; 12], [1u8; 13]);
    let all128 = fieldwork::hazmat::all::<Aes128Gcm>(&[7; 16]);
    let all256 = fieldwork::hazmat::all::<Aes256Gcm>(&[7; 32]);
    // Columns 2i and 2i + 1: backend i's AES-128-GCM and AES-256-GCM.
    let best = common::fastest(&lens, 2 * all128.len(), 31, |c, buf| {
        let tag = if c % 2 == 0 {
            all128[c / 2].encrypt_in_place_detached_iv(&iv, &aad, buf)
        } else {
            all256[c / 2].encrypt_in_place_detached_iv(&iv, &aad, buf)
        };
        black_box(tag.unwrap_or_default());
    });
    for (len, best) in lens.iter().zip(&best) {
        for (k128, pair) in all128.iter().zip(best.chunks(2)) {
            println!(
                "{:20} {len:6} B  aes128 {:7.1} ns  aes256 {:7.1} ns",
                k128.backend_name(),
                pair[0],
                pair[1]
            );
        }
    }
}
