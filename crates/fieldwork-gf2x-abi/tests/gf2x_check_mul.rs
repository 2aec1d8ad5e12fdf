//! gf2x's own multiplication check, with gf2x's published check values,
//! through the exported `gf2x_mul`.
//!
//! Source of the data: gf2x 1.3.0, `tests/Makefile.am`, whose
//! `SYNTHESIZED_TESTS` name 26 cases `check_<n1>_<n2>_<crc>_76540123.mul`, run
//! by `tests/do-check-mul.sh` through `tests/check-mul.c`. That program's
//! method, re-implemented here from its description (not its code):
//!
//! * sizes count 32-bit half-words; `a` has `n1` of them, `b` has `n2`, two
//!   per 64-bit word, the low half first;
//! * the halves are one geometric progression modulo 2^32 with ratio and
//!   first term `s = 0x76540123`: `a` takes the first `n1` terms, `b` the next
//!   `n2`;
//! * the check value is a CRC of the product's `n1 + n2` halves, in order:
//!   `v ← (v·x^32 + half) mod (x^32 + x^7 + x^6 + x^2 + 1)` from `v = 0`;
//! * the same product computed with the output aliasing `a`, then `b`, must
//!   give the same check value.
//!
//! Running gf2x's `check-mul.c` itself (built against this library, outside
//! the repository) gives the same 26 passes; see the crate README.

use core::ffi::c_ulong;

use fieldwork_gf2x_abi::gf2x_mul;

/// First term and ratio of the progression (gf2x's `start`, odd).
const START: u32 = 0x7654_0123;

/// `(n1, n2, crc)` from gf2x 1.3.0's `tests/Makefile.am`.
const CASES: &[(usize, usize, u32)] = &[
    (1, 1, 0x7119_4aa9),
    (2, 2, 0xb0a2_5e22),
    (3, 3, 0xd082_1e1e),
    (4, 4, 0xcbce_c8a9),
    (5, 5, 0xef50_6fd3),
    (6, 6, 0x5e20_1456),
    (7, 7, 0xd492_afae),
    (8, 8, 0x1068_cb97),
    (9, 9, 0x2e2e_13e3),
    (20, 20, 0x8b5a_3c69),
    (100, 20, 0xa8d1_adaa),
    (100, 100, 0x2269_c4fa),
    (1000, 20, 0xa419_864d),
    (1000, 100, 0xfc4a_566b),
    (1000, 1000, 0xa12a_7e03),
    (5437, 20, 0x8758_8c37),
    (5437, 100, 0x9397_839a),
    (5437, 1000, 0xce4d_6e43),
    (5437, 5437, 0x9e36_4ad1),
    (10000, 20, 0x11bb_c400),
    (10000, 100, 0xcc43_341e),
    (10000, 1000, 0xd51f_2fa8),
    (10000, 5437, 0x6475_1d23),
    (10000, 10000, 0xc2f4_746f),
];

/// The two large cases (about 1.1 million words of product each).
const LARGE_CASES: &[(usize, usize, u32)] = &[
    (832_040, 1_346_269, 0x6fd7_6898),
    (785_672, 1_271_244, 0x23c9_bb24),
];

/// The next `halves` terms of the progression, packed two per word (low half
/// first, a trailing odd half in a low half with zero above), and the term
/// after them.
fn progression(first: u32, halves: usize) -> (Vec<c_ulong>, u32) {
    let mut words = vec![0; halves.div_ceil(2)];
    let mut term = first;
    for i in 0..halves {
        words[i / 2] |= c_ulong::from(term) << (32 * (i % 2));
        term = term.wrapping_mul(START);
    }
    (words, term)
}

/// `v·x^32 + half` reduced modulo x^32 + x^7 + x^6 + x^2 + 1.
fn crc_step(v: u32, half: u32) -> u32 {
    const POLY: u64 = (1 << 32) | 0xc5;
    let mut t = (u64::from(v) << 32) | u64::from(half);
    for bit in (32..64).rev() {
        if (t >> bit) & 1 == 1 {
            t ^= POLY << (bit - 32);
        }
    }
    t as u32
}

/// The check value of the first `halves` half-words of `c`.
fn crc(c: &[c_ulong], halves: usize) -> u32 {
    (0..halves).fold(0, |v, i| crc_step(v, (c[i / 2] >> (32 * (i % 2))) as u32))
}

/// gf2x's check for one case: the product's check value, and the same
/// product with the output in `a`'s and then in `b`'s buffer.
fn check(n1: usize, n2: usize, expected: u32) {
    let (a, next) = progression(START, n1);
    let (b, _) = progression(next, n2);
    let (an, bn) = (a.len(), b.len());
    let mut c = vec![0; an + bn];
    // SAFETY: a, b readable for an, bn words; c writable for an + bn words.
    let rc = unsafe {
        gf2x_mul(
            c.as_mut_ptr(),
            a.as_ptr(),
            an as c_ulong,
            b.as_ptr(),
            bn as c_ulong,
        )
    };
    assert_eq!(rc, 0, "{n1}x{n2}");
    assert_eq!(crc(&c, n1 + n2), expected, "{n1}x{n2}: check value");

    // c aliasing a: a's operand in the first an words of the output buffer.
    let mut ca = vec![0; an + bn];
    ca[..an].copy_from_slice(&a);
    let p = ca.as_mut_ptr();
    // SAFETY: p is valid for an + bn words; gf2x_mul allows c == a.
    let rc = unsafe { gf2x_mul(p, p, an as c_ulong, b.as_ptr(), bn as c_ulong) };
    assert_eq!(rc, 0);
    assert_eq!(crc(&ca, n1 + n2), expected, "{n1}x{n2}: c == a");

    // c aliasing b.
    let mut cb = vec![0; an + bn];
    cb[..bn].copy_from_slice(&b);
    let p = cb.as_mut_ptr();
    // SAFETY: p is valid for an + bn words; gf2x_mul allows c == b.
    let rc = unsafe { gf2x_mul(p, a.as_ptr(), an as c_ulong, p, bn as c_ulong) };
    assert_eq!(rc, 0);
    assert_eq!(crc(&cb, n1 + n2), expected, "{n1}x{n2}: c == b");
}

#[test]
fn gf2x_check_mul_values() {
    for &(n1, n2, expected) in CASES {
        check(n1, n2, expected);
    }
}

#[test]
fn gf2x_check_mul_values_large() {
    for &(n1, n2, expected) in LARGE_CASES {
        check(n1, n2, expected);
    }
}

/// The CRC itself, on a value worked by hand: x^32 ≡ x^7 + x^6 + x^2 + 1,
/// so the half-words (1, 0) give 0xc5.
#[test]
fn crc_reduces_x32() {
    assert_eq!(crc_step(0, 1), 1);
    assert_eq!(crc_step(1, 0), 0xc5);
    assert_eq!(crc(&[1], 2), 0xc5);
}
