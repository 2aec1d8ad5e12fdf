//! The loosely reduced product, square, sum and difference of
//! GF(2^127 − 1) in x86-64 assembly: the field's [`super::field::mul_loose`],
//! [`super::field::square_loose`], [`super::field::add_loose`] and
//! [`super::field::sub_loose`] on x86-64, for the fixed-base comb's
//! additions and the inversion chain of every backend's encoding.
//!
//! Base instruction set only (`mul`, `add`, `adc`, `sub`, `sbb`, `btr`), so any
//! x86-64 CPU runs it; no branch, memory access or variable-time
//! instruction. Same contract as the Rust functions in `field.rs`, which
//! stay the reference (`field_tests.rs` compares the two): inputs `≤ 2^127`,
//! result `≤ p`, congruent to the product mod p.
//!
//! # Representation and bounds
//!
//! `a = a₀ + a₁·2^64` with `a₁ ≤ 2^63`. The middle products `a₀b₁`,
//! `a₁b₀` are each `< 2^127`, so their sum `m` fits in 128 bits; `x =
//! a₀b₀ + m·2^64 + a₁b₁·2^128 < 2^254` in four words `w₀..w₃`. Two folds
//! by 2^127 ≡ 1:
//!
//! 1. `btr w₁, 63` clears bit 127 of `x` and leaves it in the carry flag,
//!    so `(w₀, w₁) = x mod 2^127`; `adc w₂, w₂; adc w₃, w₃` then make
//!    `(w₂, w₃) = x >> 127`. Their sum is `≤ 2^128 − 2`, no carry out.
//! 2. `r ↦ (r mod 2^127) + (r >> 127)`: `btr` clears bit 127 and leaves
//!    it in the carry flag, two `adc` add it. As `r ≤ 2^128 − 2`, the
//!    result is `≤ p`.
//!
//! # Operation counts
//!
//! Product: four `mul` and 16 ALU instructions (2 for the middle sum, 3
//! to add it, 3 + 2 for the first fold, 3 for the second) and moves; the
//! square: three `mul` (`2·a₀a₁` by one `add`/`adc`) and 15; a sum or a
//! difference 5. The compiled Rust of `field.rs` takes two `shld` (several µops
//! each on AMD cores), two `and` with an all-ones word (LLVM hoists the
//! 128-bit constant `p` into registers and then cannot fold it) and a
//! longer carry chain: on an AMD EPYC Zen 3, ≈ 11 against ≈ 8.3 cycles a
//! product at throughput and ≈ 17 against ≈ 14 of latency
//! (`docs/notes/kummer-fixed-base.md`).
//!
//! Rejected: `mulx` (BMI2) in place of `mul` — no faster on Zen 3, and it
//! would tie the comb of every x86-64 backend to a CPU feature.
#![allow(unsafe_code)]

use core::arch::asm;

/// `a·b`, folded to `≤ p`, for `a, b ≤ 2^127` (module docs).
#[inline(always)]
pub(super) fn mul_loose(a: u128, b: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let (lo, hi): (u64, u64);
    // SAFETY: register-only arithmetic: no memory access, no stack use, no
    // branch; every register written is an output or a clobber.
    unsafe {
        asm!(
            // m = a0·b1 + a1·b0 (< 2^128).
            "mov rax, {a0}",
            "mul {b1}",
            "mov {m0}, rax",
            "mov {m1}, rdx",
            "mov rax, {a1}",
            "mul {b0}",
            "add {m0}, rax",
            "adc {m1}, rdx",
            // (w2, w3) = a1·b1, in a1's and b1's registers.
            "mov rax, {a1}",
            "mul {b1}",
            "mov {a1}, rax",
            "mov {b1}, rdx",
            // (w0, w1) = a0·b0 in (rax, rdx); x = w + m·2^64.
            "mov rax, {a0}",
            "mul {b0}",
            "add rdx, {m0}",
            "adc {a1}, {m1}",
            "adc {b1}, 0",
            // First fold: rdx = w1 mod 2^63, (w2, w3) = x >> 127.
            "btr rdx, 63",
            "adc {a1}, {a1}",
            "adc {b1}, {b1}",
            "add rax, {a1}",
            "adc rdx, {b1}",
            // Second fold.
            "btr rdx, 63",
            "adc rax, 0",
            "adc rdx, 0",
            a0 = in(reg) a0,
            b0 = in(reg) b0,
            a1 = inout(reg) a1 => _,
            b1 = inout(reg) b1 => _,
            m0 = out(reg) _,
            m1 = out(reg) _,
            out("rax") lo,
            out("rdx") hi,
            options(pure, nomem, nostack),
        );
    }
    u128::from(lo) | (u128::from(hi) << 64)
}

/// `a²`, folded to `≤ p`, for `a ≤ 2^127` (module docs).
#[inline(always)]
pub(super) fn square_loose(a: u128) -> u128 {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (lo, hi): (u64, u64);
    // SAFETY: as in `mul_loose`.
    unsafe {
        asm!(
            // m = 2·a0·a1 (< 2^128).
            "mov rax, {a0}",
            "mul {a1}",
            "add rax, rax",
            "adc rdx, rdx",
            "mov {m0}, rax",
            "mov {m1}, rdx",
            // (w2, w3) = a1².
            "mov rax, {a1}",
            "mul {a1}",
            "mov {a1}, rax",
            "mov {w3}, rdx",
            // (w0, w1) = a0² in (rax, rdx); x = w + m·2^64.
            "mov rax, {a0}",
            "mul {a0}",
            "add rdx, {m0}",
            "adc {a1}, {m1}",
            "adc {w3}, 0",
            // The two folds of `mul_loose`.
            "btr rdx, 63",
            "adc {a1}, {a1}",
            "adc {w3}, {w3}",
            "add rax, {a1}",
            "adc rdx, {w3}",
            "btr rdx, 63",
            "adc rax, 0",
            "adc rdx, 0",
            a0 = in(reg) a0,
            a1 = inout(reg) a1 => _,
            m0 = out(reg) _,
            m1 = out(reg) _,
            w3 = out(reg) _,
            out("rax") lo,
            out("rdx") hi,
            options(pure, nomem, nostack),
        );
    }
    u128::from(lo) | (u128::from(hi) << 64)
}

/// `a + b` folded once, for `a, b ∈ [0, p]`: in `[0, p]`. The sum is `≤
/// 2^128 − 2`; `btr` clears bit 127 into the carry flag and two `adc` add
/// it back at bit 0.
#[inline(always)]
pub(super) fn add(a: u128, b: u128) -> u128 {
    let (mut lo, mut hi) = (a as u64, (a >> 64) as u64);
    // SAFETY: as in `mul_loose`.
    unsafe {
        asm!(
            "add {lo}, {b0}",
            "adc {hi}, {b1}",
            "btr {hi}, 63",
            "adc {lo}, 0",
            "adc {hi}, 0",
            lo = inout(reg) lo,
            hi = inout(reg) hi,
            b0 = in(reg) b as u64,
            b1 = in(reg) (b >> 64) as u64,
            options(pure, nomem, nostack),
        );
    }
    u128::from(lo) | (u128::from(hi) << 64)
}

/// `a − b` for `a, b ∈ [0, p]`: in `[0, p]`. With `D = a − b mod 2^128`
/// and the borrow `β`: `β = 0` leaves `D ≤ p`; `β = 1` gives `D ∈ [2^127 +
/// 1, 2^128 − 1]`, and `a − b + p = D − 1 − 2^127`. So the borrow is
/// subtracted at bit 0 (`sbb`, `sbb`) and bit 127 cleared (`btr`), which
/// does nothing when `β = 0`.
#[inline(always)]
pub(super) fn sub(a: u128, b: u128) -> u128 {
    let (mut lo, mut hi) = (a as u64, (a >> 64) as u64);
    // SAFETY: as in `mul_loose`.
    unsafe {
        asm!(
            "sub {lo}, {b0}",
            "sbb {hi}, {b1}",
            "sbb {lo}, 0",
            "sbb {hi}, 0",
            "btr {hi}, 63",
            lo = inout(reg) lo,
            hi = inout(reg) hi,
            b0 = in(reg) b as u64,
            b1 = in(reg) (b >> 64) as u64,
            options(pure, nomem, nostack),
        );
    }
    u128::from(lo) | (u128::from(hi) << 64)
}
