//! The comparisons, one module per operation. Each builds its cases and
//! first checks that every implementation computes the same result as ours
//! on random inputs, so a table never compares different operations. Where
//! the peers compute a different function of the same kind (`kummer`: X25519
//! against our Kummer-surface DH), each is checked against published vectors
//! instead.

pub mod chachapoly;
pub mod clmul64;
pub mod gcm;
pub mod gcm_siv;
pub mod gf2m;
pub mod gf2x_mul;
pub mod ghash;
pub mod kummer;
#[cfg(feature = "system-peers")]
pub mod libgf2x;
pub mod normal;
pub mod poly1305;
pub mod sufan;

use crate::harness::Case;

/// Lower-case hex to bytes, at compile time.
pub const fn hex<const N: usize>(s: &str) -> [u8; N] {
    const fn nibble(c: u8) -> u8 {
        match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            _ => panic!("not a lower-case hex digit"),
        }
    }
    let b = s.as_bytes();
    assert!(b.len() == 2 * N, "wrong hex length");
    let mut out = [0u8; N];
    let mut i = 0;
    while i < N {
        out[i] = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

/// Bytes as lower-case hex, for mismatch messages.
pub fn hexed(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Builds a group's cases (after checking the peers agree with us).
pub type CaseBuilder = fn() -> Result<Vec<Case>, String>;

/// Every group's name and case builder, in report order.
pub const GROUPS: &[(&str, CaseBuilder)] = &[
    ("clmul64", clmul64::cases),
    ("gf2x_mul", gf2x_mul::cases),
    ("sufan", sufan::cases),
    #[cfg(feature = "system-peers")]
    ("libgf2x", libgf2x::cases),
    ("gf2m", gf2m::cases),
    ("normal", normal::cases),
    ("kummer", kummer::cases),
    ("ghash", ghash::cases),
    ("gcm", gcm::cases),
    ("gcm_siv", gcm_siv::cases),
    ("poly1305", poly1305::cases),
    ("chacha20", chachapoly::keystream_cases),
    ("chachapoly", chachapoly::cases),
];
