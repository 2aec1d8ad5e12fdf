//! `--isa-rates`: latency and reciprocal throughput, in estimated core
//! cycles, of the vector instructions fieldwork's kernels are built from,
//! measured on this CPU — the numbers a kernel's floor analysis (the
//! "instructions per block per port" of its module doc) starts from.
//!
//! There are no hardware counters here, so each figure is a timed loop,
//! in units of a loop of as many dependent scalar `add`s (one cycle each),
//! both timed with the time-stamp counter (minimum of 15 runs). Each probe
//! runs the instruction 24 times per loop iteration:
//!
//! - **latency**: one dependency chain (each instruction reads the
//!   previous one's result), so cycles per instruction is its latency;
//! - **throughput**: twelve independent chains, two deep, so cycles per
//!   instruction is its reciprocal throughput as long as latency ÷ 12 is
//!   below it (true of every instruction probed here).
//!
//! Loop overhead (`dec`/`jnz`, one pair per 24 instructions) is not
//! subtracted. Instructions the CPU lacks are skipped. A second table
//! times `vpclmulqdq` (ymm and zmm) mixed with other instructions in the
//! ratios the GHASH and AES-GCM kernels issue them (and, on zmm, with the
//! lane-crossing `valignq` the `gf2x` zmm products place their sums with),
//! and `vpmadd52luq zmm` with the
//! additions, shifts and permutations of the IFMA Poly1305: the cycles per
//! first-named instruction stay at its own reciprocal throughput while the
//! others issue on other ports.

use benchtime::{Clock, ticks};

/// One probed instruction.
struct Probe {
    name: &'static str,
    /// The `is_x86_feature_detected!` names it needs.
    needs: &'static [&'static str],
    latency: unsafe fn(u64),
    throughput: unsafe fn(u64),
}

/// `$mn rN, rN$tail` for N = the given register numbers, one per line.
macro_rules! lines {
    ($mn:literal, $r:literal, $tail:literal; $($n:literal)*) => {
        concat!($($mn, " ", $r, $n, ", ", $r, $n, $tail, "\n",)*)
    };
}

/// Two loops per instruction `$mn dst, dst$tail` (`$tail` names the other
/// operands; register 15 is the constant source): one 24-long chain on
/// register 0, and twelve independent chains on registers 0–11.
macro_rules! probe {
    ($lat:ident, $tput:ident, $features:literal, $mn:literal, $r:literal, $tail:literal) => {
        #[target_feature(enable = $features)]
        unsafe fn $lat(n: u64) {
            // SAFETY: the caller checked the features; register-only
            // vector arithmetic and a loop counter.
            unsafe {
                core::arch::asm!(
                    "2:",
                    lines!($mn, $r, $tail; 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0),
                    "dec rcx",
                    "jnz 2b",
                    inout("rcx") n => _,
                    // Every vector register (zmm included where enabled).
                    clobber_abi("C"),
                    options(nomem, nostack),
                );
            }
        }

        #[target_feature(enable = $features)]
        unsafe fn $tput(n: u64) {
            // SAFETY: the caller checked the features; register-only
            // vector arithmetic and a loop counter.
            unsafe {
                core::arch::asm!(
                    "2:",
                    lines!($mn, $r, $tail; 0 1 2 3 4 5 6 7 8 9 10 11 0 1 2 3 4 5 6 7 8 9 10 11),
                    "dec rcx",
                    "jnz 2b",
                    inout("rcx") n => _,
                    clobber_abi("C"),
                    options(nomem, nostack),
                );
            }
        }
    };
}

probe!(
    clmul_x_l,
    clmul_x_t,
    "avx,pclmulqdq",
    "vpclmulqdq",
    "xmm",
    ", xmm15, 0x00"
);
probe!(
    clmul_y_l,
    clmul_y_t,
    "avx2,vpclmulqdq",
    "vpclmulqdq",
    "ymm",
    ", ymm15, 0x00"
);
probe!(aes_x_l, aes_x_t, "avx,aes", "vaesenc", "xmm", ", xmm15");
probe!(aes_y_l, aes_y_t, "avx2,vaes", "vaesenc", "ymm", ", ymm15");
probe!(pshufb_x_l, pshufb_x_t, "avx", "vpshufb", "xmm", ", xmm15");
probe!(pshufb_y_l, pshufb_y_t, "avx2", "vpshufb", "ymm", ", ymm15");
probe!(pshufd_y_l, pshufd_y_t, "avx2", "vpshufd", "ymm", ", 0x4e");
probe!(permq_y_l, permq_y_t, "avx2", "vpermq", "ymm", ", 0x4e");
probe!(xor_y_l, xor_y_t, "avx2", "vpxor", "ymm", ", ymm15");
probe!(add_y_l, add_y_t, "avx2", "vpaddq", "ymm", ", ymm15");
probe!(muludq_y_l, muludq_y_t, "avx2", "vpmuludq", "ymm", ", ymm15");
probe!(sll_y_l, sll_y_t, "avx2", "vpsllq", "ymm", ", 3");
probe!(bslli_y_l, bslli_y_t, "avx2", "vpslldq", "ymm", ", 8");
probe!(
    madd_y_l,
    madd_y_t,
    "avx512f,avx512vl,avx512ifma",
    "vpmadd52luq",
    "ymm",
    ", ymm15"
);
probe!(
    madd_z_l,
    madd_z_t,
    "avx512f,avx512ifma",
    "vpmadd52luq",
    "zmm",
    ", zmm15"
);
probe!(
    mullq_z_l,
    mullq_z_t,
    "avx512f,avx512dq",
    "vpmullq",
    "zmm",
    ", zmm15"
);
probe!(add_z_l, add_z_t, "avx512f", "vpaddq", "zmm", ", zmm15");
probe!(
    clmul_z_l,
    clmul_z_t,
    "avx512f,vpclmulqdq",
    "vpclmulqdq",
    "zmm",
    ", zmm15, 0x00"
);
probe!(
    aes_z_l,
    aes_z_t,
    "avx512f,vaes",
    "vaesenc",
    "zmm",
    ", zmm15"
);
probe!(xor_z_l, xor_z_t, "avx512f", "vpxorq", "zmm", ", zmm15");
probe!(
    align_z_l,
    align_z_t,
    "avx512f",
    "valignq",
    "zmm",
    ", zmm15, 2"
);
probe!(
    shufi_z_l,
    shufi_z_t,
    "avx512f",
    "vshufi64x2",
    "zmm",
    ", zmm15, 0x4e"
);

/// A loop of the given instructions `(mnemonic, other operands, register)`
/// on registers 0–11 (register 15 the constant source), issued together:
/// if they compete for one execution port the time is the sum of their
/// reciprocal throughputs, otherwise the largest.
macro_rules! mix {
    ($name:ident, $features:literal, $r:literal; $(($mn:literal, $tail:literal, $n:literal))*) => {
        #[target_feature(enable = $features)]
        unsafe fn $name(n: u64) {
            // SAFETY: the caller checked the features; register-only
            // vector arithmetic and a loop counter.
            unsafe {
                core::arch::asm!(
                    "2:",
                    $(lines!($mn, $r, $tail; $n),)*
                    "dec rcx",
                    "jnz 2b",
                    inout("rcx") n => _,
                    clobber_abi("C"),
                    options(nomem, nostack),
                );
            }
        }
    };
}

mix!(clmul_aes_1_1, "avx2,vaes,vpclmulqdq", "ymm"; ("vpclmulqdq", ", ymm15, 0x00", 0) ("vaesenc", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vaesenc", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vaesenc", ", ymm15", 8) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vaesenc", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 4) ("vaesenc", ", ymm15", 10) ("vpclmulqdq", ", ymm15, 0x00", 5) ("vaesenc", ", ymm15", 11) ("vpclmulqdq", ", ymm15, 0x00", 0) ("vaesenc", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vaesenc", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vaesenc", ", ymm15", 8) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vaesenc", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 4) ("vaesenc", ", ymm15", 10) ("vpclmulqdq", ", ymm15, 0x00", 5) ("vaesenc", ", ymm15", 11));
mix!(clmul_aes_1_2, "avx2,vaes,vpclmulqdq", "ymm"; ("vpclmulqdq", ", ymm15, 0x00", 0) ("vaesenc", ", ymm15", 4) ("vaesenc", ", ymm15", 5) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vaesenc", ", ymm15", 6) ("vaesenc", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vaesenc", ", ymm15", 8) ("vaesenc", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vaesenc", ", ymm15", 10) ("vaesenc", ", ymm15", 11) ("vpclmulqdq", ", ymm15, 0x00", 0) ("vaesenc", ", ymm15", 4) ("vaesenc", ", ymm15", 5) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vaesenc", ", ymm15", 6) ("vaesenc", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vaesenc", ", ymm15", 8) ("vaesenc", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vaesenc", ", ymm15", 10) ("vaesenc", ", ymm15", 11));
mix!(clmul_aes_1_5, "avx2,vaes,vpclmulqdq", "ymm"; ("vpclmulqdq", ", ymm15, 0x00", 0) ("vaesenc", ", ymm15", 2) ("vaesenc", ", ymm15", 3) ("vaesenc", ", ymm15", 4) ("vaesenc", ", ymm15", 5) ("vaesenc", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vaesenc", ", ymm15", 7) ("vaesenc", ", ymm15", 8) ("vaesenc", ", ymm15", 9) ("vaesenc", ", ymm15", 10) ("vaesenc", ", ymm15", 11) ("vpclmulqdq", ", ymm15, 0x00", 0) ("vaesenc", ", ymm15", 2) ("vaesenc", ", ymm15", 3) ("vaesenc", ", ymm15", 4) ("vaesenc", ", ymm15", 5) ("vaesenc", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vaesenc", ", ymm15", 7) ("vaesenc", ", ymm15", 8) ("vaesenc", ", ymm15", 9) ("vaesenc", ", ymm15", 10) ("vaesenc", ", ymm15", 11));
mix!(clmul_xor_1_1, "avx2,vpclmulqdq", "ymm"; ("vpclmulqdq", ", ymm15, 0x00", 0) ("vpxor", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vpxor", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vpxor", ", ymm15", 8) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vpxor", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 4) ("vpxor", ", ymm15", 10) ("vpclmulqdq", ", ymm15, 0x00", 5) ("vpxor", ", ymm15", 11) ("vpclmulqdq", ", ymm15, 0x00", 0) ("vpxor", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vpxor", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vpxor", ", ymm15", 8) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vpxor", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 4) ("vpxor", ", ymm15", 10) ("vpclmulqdq", ", ymm15, 0x00", 5) ("vpxor", ", ymm15", 11));
mix!(clmul_shufb_1_1, "avx2,vpclmulqdq", "ymm"; ("vpclmulqdq", ", ymm15, 0x00", 0) ("vpshufb", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vpshufb", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vpshufb", ", ymm15", 8) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vpshufb", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 4) ("vpshufb", ", ymm15", 10) ("vpclmulqdq", ", ymm15, 0x00", 5) ("vpshufb", ", ymm15", 11) ("vpclmulqdq", ", ymm15, 0x00", 0) ("vpshufb", ", ymm15", 6) ("vpclmulqdq", ", ymm15, 0x00", 1) ("vpshufb", ", ymm15", 7) ("vpclmulqdq", ", ymm15, 0x00", 2) ("vpshufb", ", ymm15", 8) ("vpclmulqdq", ", ymm15, 0x00", 3) ("vpshufb", ", ymm15", 9) ("vpclmulqdq", ", ymm15, 0x00", 4) ("vpshufb", ", ymm15", 10) ("vpclmulqdq", ", ymm15, 0x00", 5) ("vpshufb", ", ymm15", 11));

mix!(clmul_aes_z_1_1, "avx512f,vaes,vpclmulqdq", "zmm"; ("vpclmulqdq", ", zmm15, 0x00", 0) ("vaesenc", ", zmm15", 6) ("vpclmulqdq", ", zmm15, 0x00", 1) ("vaesenc", ", zmm15", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("vaesenc", ", zmm15", 8) ("vpclmulqdq", ", zmm15, 0x00", 3) ("vaesenc", ", zmm15", 9) ("vpclmulqdq", ", zmm15, 0x00", 4) ("vaesenc", ", zmm15", 10) ("vpclmulqdq", ", zmm15, 0x00", 5) ("vaesenc", ", zmm15", 11) ("vpclmulqdq", ", zmm15, 0x00", 0) ("vaesenc", ", zmm15", 6) ("vpclmulqdq", ", zmm15, 0x00", 1) ("vaesenc", ", zmm15", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("vaesenc", ", zmm15", 8) ("vpclmulqdq", ", zmm15, 0x00", 3) ("vaesenc", ", zmm15", 9) ("vpclmulqdq", ", zmm15, 0x00", 4) ("vaesenc", ", zmm15", 10) ("vpclmulqdq", ", zmm15, 0x00", 5) ("vaesenc", ", zmm15", 11));
mix!(clmul_aes_z_1_2, "avx512f,vaes,vpclmulqdq", "zmm"; ("vpclmulqdq", ", zmm15, 0x00", 0) ("vaesenc", ", zmm15", 4) ("vaesenc", ", zmm15", 5) ("vpclmulqdq", ", zmm15, 0x00", 1) ("vaesenc", ", zmm15", 6) ("vaesenc", ", zmm15", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("vaesenc", ", zmm15", 8) ("vaesenc", ", zmm15", 9) ("vpclmulqdq", ", zmm15, 0x00", 3) ("vaesenc", ", zmm15", 10) ("vaesenc", ", zmm15", 11) ("vpclmulqdq", ", zmm15, 0x00", 0) ("vaesenc", ", zmm15", 4) ("vaesenc", ", zmm15", 5) ("vpclmulqdq", ", zmm15, 0x00", 1) ("vaesenc", ", zmm15", 6) ("vaesenc", ", zmm15", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("vaesenc", ", zmm15", 8) ("vaesenc", ", zmm15", 9) ("vpclmulqdq", ", zmm15, 0x00", 3) ("vaesenc", ", zmm15", 10) ("vaesenc", ", zmm15", 11));
mix!(clmul_xor_z_1_1, "avx512f,vpclmulqdq", "zmm"; ("vpclmulqdq", ", zmm15, 0x00", 0) ("vpxorq", ", zmm15", 6) ("vpclmulqdq", ", zmm15, 0x00", 1) ("vpxorq", ", zmm15", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("vpxorq", ", zmm15", 8) ("vpclmulqdq", ", zmm15, 0x00", 3) ("vpxorq", ", zmm15", 9) ("vpclmulqdq", ", zmm15, 0x00", 4) ("vpxorq", ", zmm15", 10) ("vpclmulqdq", ", zmm15, 0x00", 5) ("vpxorq", ", zmm15", 11) ("vpclmulqdq", ", zmm15, 0x00", 0) ("vpxorq", ", zmm15", 6) ("vpclmulqdq", ", zmm15, 0x00", 1) ("vpxorq", ", zmm15", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("vpxorq", ", zmm15", 8) ("vpclmulqdq", ", zmm15, 0x00", 3) ("vpxorq", ", zmm15", 9) ("vpclmulqdq", ", zmm15, 0x00", 4) ("vpxorq", ", zmm15", 10) ("vpclmulqdq", ", zmm15, 0x00", 5) ("vpxorq", ", zmm15", 11));
mix!(clmul_align_z_1_1, "avx512f,vpclmulqdq", "zmm"; ("vpclmulqdq", ", zmm15, 0x00", 0) ("valignq", ", zmm15, 2", 6) ("vpclmulqdq", ", zmm15, 0x00", 1) ("valignq", ", zmm15, 2", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("valignq", ", zmm15, 2", 8) ("vpclmulqdq", ", zmm15, 0x00", 3) ("valignq", ", zmm15, 2", 9) ("vpclmulqdq", ", zmm15, 0x00", 4) ("valignq", ", zmm15, 2", 10) ("vpclmulqdq", ", zmm15, 0x00", 5) ("valignq", ", zmm15, 2", 11) ("vpclmulqdq", ", zmm15, 0x00", 0) ("valignq", ", zmm15, 2", 6) ("vpclmulqdq", ", zmm15, 0x00", 1) ("valignq", ", zmm15, 2", 7) ("vpclmulqdq", ", zmm15, 0x00", 2) ("valignq", ", zmm15, 2", 8) ("vpclmulqdq", ", zmm15, 0x00", 3) ("valignq", ", zmm15, 2", 9) ("vpclmulqdq", ", zmm15, 0x00", 4) ("valignq", ", zmm15, 2", 10) ("vpclmulqdq", ", zmm15, 0x00", 5) ("valignq", ", zmm15, 2", 11));

mix!(madd_add_1_1, "avx512f,avx512ifma", "zmm"; ("vpmadd52luq", ", zmm15", 0) ("vpaddq", ", zmm15", 1) ("vpmadd52luq", ", zmm15", 2) ("vpaddq", ", zmm15", 3) ("vpmadd52luq", ", zmm15", 4) ("vpaddq", ", zmm15", 5) ("vpmadd52luq", ", zmm15", 6) ("vpaddq", ", zmm15", 7) ("vpmadd52luq", ", zmm15", 8) ("vpaddq", ", zmm15", 9) ("vpmadd52luq", ", zmm15", 10) ("vpaddq", ", zmm15", 11) ("vpmadd52luq", ", zmm15", 0) ("vpaddq", ", zmm15", 1) ("vpmadd52luq", ", zmm15", 2) ("vpaddq", ", zmm15", 3) ("vpmadd52luq", ", zmm15", 4) ("vpaddq", ", zmm15", 5) ("vpmadd52luq", ", zmm15", 6) ("vpaddq", ", zmm15", 7) ("vpmadd52luq", ", zmm15", 8) ("vpaddq", ", zmm15", 9) ("vpmadd52luq", ", zmm15", 10) ("vpaddq", ", zmm15", 11));
mix!(madd_add_1_2, "avx512f,avx512ifma", "zmm"; ("vpmadd52luq", ", zmm15", 0) ("vpaddq", ", zmm15", 1) ("vpaddq", ", zmm15", 2) ("vpmadd52luq", ", zmm15", 3) ("vpaddq", ", zmm15", 4) ("vpaddq", ", zmm15", 5) ("vpmadd52luq", ", zmm15", 6) ("vpaddq", ", zmm15", 7) ("vpaddq", ", zmm15", 8) ("vpmadd52luq", ", zmm15", 9) ("vpaddq", ", zmm15", 10) ("vpaddq", ", zmm15", 11) ("vpmadd52luq", ", zmm15", 0) ("vpaddq", ", zmm15", 1) ("vpaddq", ", zmm15", 2) ("vpmadd52luq", ", zmm15", 3) ("vpaddq", ", zmm15", 4) ("vpaddq", ", zmm15", 5) ("vpmadd52luq", ", zmm15", 6) ("vpaddq", ", zmm15", 7) ("vpaddq", ", zmm15", 8) ("vpmadd52luq", ", zmm15", 9) ("vpaddq", ", zmm15", 10) ("vpaddq", ", zmm15", 11));
mix!(madd_srl_1_1, "avx512f,avx512ifma", "zmm"; ("vpmadd52luq", ", zmm15", 0) ("vpsrlq", ", 3", 1) ("vpmadd52luq", ", zmm15", 2) ("vpsrlq", ", 3", 3) ("vpmadd52luq", ", zmm15", 4) ("vpsrlq", ", 3", 5) ("vpmadd52luq", ", zmm15", 6) ("vpsrlq", ", 3", 7) ("vpmadd52luq", ", zmm15", 8) ("vpsrlq", ", 3", 9) ("vpmadd52luq", ", zmm15", 10) ("vpsrlq", ", 3", 11) ("vpmadd52luq", ", zmm15", 0) ("vpsrlq", ", 3", 1) ("vpmadd52luq", ", zmm15", 2) ("vpsrlq", ", 3", 3) ("vpmadd52luq", ", zmm15", 4) ("vpsrlq", ", 3", 5) ("vpmadd52luq", ", zmm15", 6) ("vpsrlq", ", 3", 7) ("vpmadd52luq", ", zmm15", 8) ("vpsrlq", ", 3", 9) ("vpmadd52luq", ", zmm15", 10) ("vpsrlq", ", 3", 11));
mix!(madd_perm_1_1, "avx512f,avx512ifma", "zmm"; ("vpmadd52luq", ", zmm15", 0) ("vpermt2q", ", zmm15", 1) ("vpmadd52luq", ", zmm15", 2) ("vpermt2q", ", zmm15", 3) ("vpmadd52luq", ", zmm15", 4) ("vpermt2q", ", zmm15", 5) ("vpmadd52luq", ", zmm15", 6) ("vpermt2q", ", zmm15", 7) ("vpmadd52luq", ", zmm15", 8) ("vpermt2q", ", zmm15", 9) ("vpmadd52luq", ", zmm15", 10) ("vpermt2q", ", zmm15", 11) ("vpmadd52luq", ", zmm15", 0) ("vpermt2q", ", zmm15", 1) ("vpmadd52luq", ", zmm15", 2) ("vpermt2q", ", zmm15", 3) ("vpmadd52luq", ", zmm15", 4) ("vpermt2q", ", zmm15", 5) ("vpmadd52luq", ", zmm15", 6) ("vpermt2q", ", zmm15", 7) ("vpmadd52luq", ", zmm15", 8) ("vpermt2q", ", zmm15", 9) ("vpmadd52luq", ", zmm15", 10) ("vpermt2q", ", zmm15", 11));

mix!(muludq_add_1_2, "avx2", "ymm"; ("vpmuludq", ", ymm15", 0) ("vpaddq", ", ymm15", 1) ("vpaddq", ", ymm15", 2) ("vpmuludq", ", ymm15", 3) ("vpaddq", ", ymm15", 4) ("vpaddq", ", ymm15", 5) ("vpmuludq", ", ymm15", 6) ("vpaddq", ", ymm15", 7) ("vpaddq", ", ymm15", 8) ("vpmuludq", ", ymm15", 9) ("vpaddq", ", ymm15", 10) ("vpaddq", ", ymm15", 11) ("vpmuludq", ", ymm15", 0) ("vpaddq", ", ymm15", 1) ("vpaddq", ", ymm15", 2) ("vpmuludq", ", ymm15", 3) ("vpaddq", ", ymm15", 4) ("vpaddq", ", ymm15", 5) ("vpmuludq", ", ymm15", 6) ("vpaddq", ", ymm15", 7) ("vpaddq", ", ymm15", 8) ("vpmuludq", ", ymm15", 9) ("vpaddq", ", ymm15", 10) ("vpaddq", ", ymm15", 11));
mix!(muludq_srl_add_1_1_2, "avx2", "ymm"; ("vpmuludq", ", ymm15", 0) ("vpsrlq", ", 3", 1) ("vpaddq", ", ymm15", 2) ("vpaddq", ", ymm15", 3) ("vpmuludq", ", ymm15", 4) ("vpsrlq", ", 3", 5) ("vpaddq", ", ymm15", 6) ("vpaddq", ", ymm15", 7) ("vpmuludq", ", ymm15", 8) ("vpsrlq", ", 3", 9) ("vpaddq", ", ymm15", 10) ("vpaddq", ", ymm15", 11) ("vpmuludq", ", ymm15", 0) ("vpsrlq", ", 3", 1) ("vpaddq", ", ymm15", 2) ("vpaddq", ", ymm15", 3) ("vpmuludq", ", ymm15", 4) ("vpsrlq", ", 3", 5) ("vpaddq", ", ymm15", 6) ("vpaddq", ", ymm15", 7) ("vpmuludq", ", ymm15", 8) ("vpsrlq", ", 3", 9) ("vpaddq", ", ymm15", 10) ("vpaddq", ", ymm15", 11));

/// A mix: name, features, loop, first-named instructions (`vpclmulqdq`,
/// `vpmuludq`, `vpmadd52luq`) per loop iteration.
type Mix = (&'static str, &'static [&'static str], unsafe fn(u64), u32);

const MIXES: &[Mix] = &[
    (
        "vpclmulqdq ymm + vaesenc ymm, 1:1",
        &["avx2", "vaes", "vpclmulqdq"],
        clmul_aes_1_1,
        12,
    ),
    (
        "vpclmulqdq ymm + vaesenc ymm, 1:2",
        &["avx2", "vaes", "vpclmulqdq"],
        clmul_aes_1_2,
        8,
    ),
    (
        "vpclmulqdq ymm + vaesenc ymm, 1:5",
        &["avx2", "vaes", "vpclmulqdq"],
        clmul_aes_1_5,
        4,
    ),
    (
        "vpclmulqdq ymm + vpxor ymm, 1:1",
        &["avx2", "vpclmulqdq"],
        clmul_xor_1_1,
        12,
    ),
    (
        "vpclmulqdq ymm + vpshufb ymm, 1:1",
        &["avx2", "vpclmulqdq"],
        clmul_shufb_1_1,
        12,
    ),
    (
        "vpclmulqdq zmm + vaesenc zmm, 1:1",
        &["avx512f", "vaes", "vpclmulqdq"],
        clmul_aes_z_1_1,
        12,
    ),
    (
        "vpclmulqdq zmm + vaesenc zmm, 1:2",
        &["avx512f", "vaes", "vpclmulqdq"],
        clmul_aes_z_1_2,
        8,
    ),
    (
        "vpclmulqdq zmm + vpxorq zmm, 1:1",
        &["avx512f", "vpclmulqdq"],
        clmul_xor_z_1_1,
        12,
    ),
    (
        "vpclmulqdq zmm + valignq zmm (lane-crossing), 1:1",
        &["avx512f", "vpclmulqdq"],
        clmul_align_z_1_1,
        12,
    ),
    (
        "vpmuludq ymm + vpaddq ymm, 1:2",
        &["avx2"],
        muludq_add_1_2,
        8,
    ),
    (
        "vpmuludq ymm + vpsrlq ymm + vpaddq ymm, 1:1:2",
        &["avx2"],
        muludq_srl_add_1_1_2,
        6,
    ),
    (
        "vpmadd52luq zmm + vpaddq zmm, 1:1",
        &["avx512f", "avx512ifma"],
        madd_add_1_1,
        12,
    ),
    (
        "vpmadd52luq zmm + vpaddq zmm, 1:2",
        &["avx512f", "avx512ifma"],
        madd_add_1_2,
        8,
    ),
    (
        "vpmadd52luq zmm + vpsrlq zmm, 1:1",
        &["avx512f", "avx512ifma"],
        madd_srl_1_1,
        12,
    ),
    (
        "vpmadd52luq zmm + vpermt2q zmm, 1:1",
        &["avx512f", "avx512ifma"],
        madd_perm_1_1,
        12,
    ),
];

const PROBES: &[Probe] = &[
    Probe {
        name: "vpclmulqdq xmm (PCLMULQDQ)",
        needs: &["avx", "pclmulqdq"],
        latency: clmul_x_l,
        throughput: clmul_x_t,
    },
    Probe {
        name: "vpclmulqdq ymm",
        needs: &["avx2", "vpclmulqdq"],
        latency: clmul_y_l,
        throughput: clmul_y_t,
    },
    Probe {
        name: "vpclmulqdq zmm",
        needs: &["avx512f", "vpclmulqdq"],
        latency: clmul_z_l,
        throughput: clmul_z_t,
    },
    Probe {
        name: "vaesenc zmm",
        needs: &["avx512f", "vaes"],
        latency: aes_z_l,
        throughput: aes_z_t,
    },
    Probe {
        name: "vpxorq zmm",
        needs: &["avx512f"],
        latency: xor_z_l,
        throughput: xor_z_t,
    },
    Probe {
        name: "valignq zmm (lane-crossing)",
        needs: &["avx512f"],
        latency: align_z_l,
        throughput: align_z_t,
    },
    Probe {
        name: "vshufi64x2 zmm (lane-crossing)",
        needs: &["avx512f"],
        latency: shufi_z_l,
        throughput: shufi_z_t,
    },
    Probe {
        name: "vaesenc xmm",
        needs: &["avx", "aes"],
        latency: aes_x_l,
        throughput: aes_x_t,
    },
    Probe {
        name: "vaesenc ymm",
        needs: &["avx2", "vaes"],
        latency: aes_y_l,
        throughput: aes_y_t,
    },
    Probe {
        name: "vpshufb xmm",
        needs: &["avx"],
        latency: pshufb_x_l,
        throughput: pshufb_x_t,
    },
    Probe {
        name: "vpshufb ymm",
        needs: &["avx2"],
        latency: pshufb_y_l,
        throughput: pshufb_y_t,
    },
    Probe {
        name: "vpshufd ymm",
        needs: &["avx2"],
        latency: pshufd_y_l,
        throughput: pshufd_y_t,
    },
    Probe {
        name: "vpermq ymm (lane-crossing)",
        needs: &["avx2"],
        latency: permq_y_l,
        throughput: permq_y_t,
    },
    Probe {
        name: "vpslldq ymm (byte shift)",
        needs: &["avx2"],
        latency: bslli_y_l,
        throughput: bslli_y_t,
    },
    Probe {
        name: "vpxor ymm",
        needs: &["avx2"],
        latency: xor_y_l,
        throughput: xor_y_t,
    },
    Probe {
        name: "vpaddq ymm",
        needs: &["avx2"],
        latency: add_y_l,
        throughput: add_y_t,
    },
    Probe {
        name: "vpsllq ymm (bit shift)",
        needs: &["avx2"],
        latency: sll_y_l,
        throughput: sll_y_t,
    },
    Probe {
        name: "vpmuludq ymm",
        needs: &["avx2"],
        latency: muludq_y_l,
        throughput: muludq_y_t,
    },
    Probe {
        name: "vpaddq zmm",
        needs: &["avx512f"],
        latency: add_z_l,
        throughput: add_z_t,
    },
    Probe {
        name: "vpmadd52luq ymm (IFMA, EVEX)",
        needs: &["avx512f", "avx512vl", "avx512ifma"],
        latency: madd_y_l,
        throughput: madd_y_t,
    },
    Probe {
        name: "vpmadd52luq zmm (IFMA)",
        needs: &["avx512f", "avx512ifma"],
        latency: madd_z_l,
        throughput: madd_z_t,
    },
    Probe {
        name: "vpmullq zmm",
        needs: &["avx512f", "avx512dq"],
        latency: mullq_z_l,
        throughput: mullq_z_t,
    },
];

fn has(feature: &str) -> bool {
    match feature {
        "avx" => is_x86_feature_detected!("avx"),
        "avx2" => is_x86_feature_detected!("avx2"),
        "pclmulqdq" => is_x86_feature_detected!("pclmulqdq"),
        "aes" => is_x86_feature_detected!("aes"),
        "vaes" => is_x86_feature_detected!("vaes"),
        "vpclmulqdq" => is_x86_feature_detected!("vpclmulqdq"),
        "avx512f" => is_x86_feature_detected!("avx512f"),
        "avx512vl" => is_x86_feature_detected!("avx512vl"),
        "avx512dq" => is_x86_feature_detected!("avx512dq"),
        "avx512ifma" => is_x86_feature_detected!("avx512ifma"),
        _ => false,
    }
}

/// 24 dependent register `add`s per iteration: one cycle each on every
/// x86-64 core, the unit the probes are divided by.
unsafe fn add_chain(n: u64) {
    // SAFETY: register-only arithmetic and a loop counter.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 24",
            "add {x}, {y}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) 0u64 => _,
            y = in(reg) 3u64,
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

/// Measures every probe this CPU can run and prints Markdown tables.
///
/// Each loop's time is the minimum of 15 runs (a run slowed by another
/// process only makes that run longer), divided by the minimum time of
/// the same number of dependent `add`s: cycles without a clock estimate,
/// so a busy machine gives the same figures, only more slowly.
pub fn run(clock: &Clock) -> Result<(), String> {
    const ITERS: u64 = 50_000;
    let min_ticks = |f: unsafe fn(u64)| {
        let mut best = u64::MAX;
        for _ in 0..15 {
            let t0 = ticks();
            // SAFETY: `run` calls this only for probes whose features the
            // CPU has (checked with `has`), and for `add_chain`.
            unsafe { f(ITERS) };
            best = best.min(ticks().saturating_sub(t0));
        }
        best.max(1) as f64
    };
    let unit = min_ticks(add_chain);
    let per_op = |f: unsafe fn(u64)| min_ticks(f) / unit;
    println!("{}; {}", benchtime::cpu_model(), clock.describe());
    println!();
    println!("| instruction | latency (cycles) | reciprocal throughput (cycles) |");
    println!("|---|---:|---:|");
    for p in PROBES {
        if !p.needs.iter().all(|f| has(f)) {
            println!("| {} | (not on this CPU) | |", p.name);
            continue;
        }
        let (lat, tput) = (per_op(p.latency), per_op(p.throughput));
        println!("| {} | {lat:.2} | {tput:.2} |", p.name);
    }
    println!();
    println!(
        "| instructions issued together | cycles per first-named instruction (alone: its reciprocal throughput) |"
    );
    println!("|---|---:|");
    for (name, needs, f, clmuls) in MIXES {
        if !needs.iter().all(|f| has(f)) {
            println!("| {name} | (not on this CPU) |");
            continue;
        }
        // `per_op` divides by 24 instructions per iteration.
        println!("| {name} | {:.2} |", 24.0 * per_op(*f) / f64::from(*clmuls));
    }
    Ok(())
}
