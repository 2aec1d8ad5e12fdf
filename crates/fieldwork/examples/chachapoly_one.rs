//! One ChaCha20-Poly1305 length in a loop, for callgrind:
//! `chachapoly_one LEN ITERS [open]` (13 bytes of associated data, best
//! backend; sealing, or with `open` opening a sealed message, copied into
//! the work buffer each time). `CHACHAPOLY_OFFSET=N` places the work buffer
//! N bytes into a larger allocation (N < 4096): timings that move with it
//! come from addresses (4 KiB aliasing with the stack), not from the code.
//! `CHACHAPOLY_BACKEND=NAME` pins a backend by its `hazmat` name (e.g.
//! `neon-stitched` or `neon` under `qemu-aarch64` with an instruction
//! counting plugin).
use fieldwork::chachapoly::ChaCha20Poly1305;
use fieldwork::chachapoly::aead::KeyInit;
use fieldwork::hazmat::Backends;

fn main() {
    let mut args = std::env::args().skip(1);
    let len: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1420);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let open = args.next().as_deref() == Some("open");
    let aead = match std::env::var("CHACHAPOLY_BACKEND") {
        Ok(name) => ChaCha20Poly1305::with_backend(&name, &[7u8; 32])
            .unwrap_or_else(|| panic!("no backend {name} on this CPU")),
        Err(_) => ChaCha20Poly1305::new(&[7u8; 32].into()),
    };
    let offset: usize = std::env::var("CHACHAPOLY_OFFSET")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
        % 4096;
    let mut store = vec![0x5au8; len + 4096];
    let buf = &mut store[offset..offset + len];
    let mut acc = 0u8;
    if open {
        let sealed = buf.to_vec();
        let tag = aead
            .encrypt_in_place_detached(&[9u8; 12], &[1u8; 13], buf)
            .unwrap_or_default();
        let ct = buf.to_vec();
        for _ in 0..iters {
            buf.copy_from_slice(&ct);
            let ok = aead
                .decrypt_in_place_detached(
                    &[9u8; 12],
                    &[1u8; 13],
                    std::hint::black_box(&mut *buf),
                    &tag,
                )
                .is_ok();
            acc ^= u8::from(ok) ^ buf[0];
        }
        assert_eq!(*buf, sealed[..]);
    } else {
        for _ in 0..iters {
            let tag = aead
                .encrypt_in_place_detached(&[9u8; 12], &[1u8; 13], std::hint::black_box(&mut *buf))
                .unwrap_or_default();
            acc ^= tag[0];
        }
    }
    println!("{acc}");
}
