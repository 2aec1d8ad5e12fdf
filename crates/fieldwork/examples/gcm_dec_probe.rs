//! AES-256-GCM decryption of a valid 16 KiB message (or `LEN` bytes) in
//! place, each call first copying the ciphertext from a pristine buffer
//! (as peer-bench's decrypt rows do), with the work buffer at several
//! offsets from the source modulo 4 KiB; and the copy alone.
//! `gcm_dec_probe [LEN]`. It shows the copy, not the kernel, depending on
//! placement: on an AMD EPYC Zen 3 glibc's `memcpy` of 16 KiB took 5.4 µs
//! instead of 0.17 µs with the destination 16 bytes past the source.
use fieldwork::gcm::{Aes256Gcm, aead::KeyInit};
use std::time::Instant;

/// The fastest of 20 runs of 200 calls, in ns a call.
fn best(mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = Instant::now();
        for _ in 0..200 {
            f();
        }
        best = best.min(t.elapsed().as_nanos() as f64 / 200.0);
    }
    best
}

fn main() {
    let len: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(16384);
    let (iv, aad) = ([9u8; 12], [1u8; 13]);
    let key = Aes256Gcm::new(&[7u8; 32].into());
    let mut src_store = vec![0x5au8; len + 8192];
    let src_start = (4096 - src_store.as_ptr() as usize % 4096) % 4096;
    let src = &mut src_store[src_start..src_start + len];
    let Ok(tag) = key.encrypt_in_place_detached_iv(&iv, &aad, src) else {
        return;
    };
    let src = &src[..];
    for off in [0usize, 16, 32, 64, 2048, 4080] {
        let mut store = vec![0u8; len + 8192];
        let start = (4096 - store.as_ptr() as usize % 4096) % 4096 + off;
        let work = &mut store[start..start + len];
        let copy = best(|| {
            work.copy_from_slice(std::hint::black_box(src));
            std::hint::black_box(&mut *work);
        });
        let open = best(|| {
            work.copy_from_slice(std::hint::black_box(src));
            let ok =
                key.decrypt_in_place_detached_iv(&iv, &aad, std::hint::black_box(&mut *work), &tag);
            assert!(ok.is_ok());
        });
        println!(
            "{} work buffer at source + {off:4} (mod 4 KiB): copy {copy:7.0} ns, copy and open {open:7.0} ns",
            key.backend_name()
        );
    }
}
