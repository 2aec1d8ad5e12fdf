//! The `FIELDWORK_MAX_ISA` cap applied to the peers that have a switch for
//! it: OpenSSL and aws-lc read `OPENSSL_ia32cap` (their copy of CPUID) when
//! they load, so a capped run re-executes itself with that variable
//! hiding from them what the cap hides from fieldwork. Without it the
//! avx2-capped page compared fieldwork's AVX2 Poly1305 with OpenSSL's
//! AVX-512 IFMA one, which an AVX2-only CPU never runs.
//!
//! `OPENSSL_ia32cap=[~]A:[~]B`: `~` clears the given bits; A is CPUID
//! leaf 1 (EDX, and ECX in the high half), B is leaf 7 (EBX, and ECX in the
//! high half) — OpenSSL's `crypto/cpuid.c` and aws-lc's `cpu_intel.c`. A
//! value set by the user is kept. ring has no AVX-512 code; RustCrypto's
//! `aes` (VAES on zmm where present), gf2x and NTL have no such switch
//! and run what the CPU has.
//!
//! On AArch64 they read `OPENSSL_armcap` instead: the capability word
//! itself (bit 0 NEON, 2 AES, 5 PMULL, ...: OpenSSL's `arm_arch.h`), not
//! a mask of CPUID bits to clear.

use fieldwork::cpu::IsaLevel;

/// The environment variable OpenSSL and aws-lc read.
#[cfg(not(target_arch = "aarch64"))]
pub const VARIABLE: &str = "OPENSSL_ia32cap";
/// The environment variable OpenSSL and aws-lc read.
#[cfg(target_arch = "aarch64")]
pub const VARIABLE: &str = "OPENSSL_armcap";

/// CPUID leaf 7 EBX bits of AVX-512: F 16, DQ 17, IFMA 21, PF 26, ER 27,
/// CD 28, BW 30, VL 31; ECX (the high half): VBMI 1, VBMI2 6, VNNI 11,
/// BITALG 12, VPOPCNTDQ 14.
#[cfg(target_arch = "x86_64")]
const AVX512: u64 = (1 << 16)
    | (1 << 17)
    | (1 << 21)
    | (1 << 26)
    | (1 << 27)
    | (1 << 28)
    | (1 << 30)
    | (1 << 31)
    | (((1 << 1) | (1 << 6) | (1 << 11) | (1 << 12) | (1 << 14)) << 32);

/// Leaf 7 bits of the avx2 tier: EBX BMI1 3, AVX2 5, BMI2 8, ADX 19;
/// ECX VAES 9, VPCLMULQDQ 10.
#[cfg(target_arch = "x86_64")]
const AVX2: u64 = (1 << 3) | (1 << 5) | (1 << 8) | (1 << 19) | (((1 << 9) | (1 << 10)) << 32);

/// Leaf 1 ECX (the high half of A) bits above SSE2: AVX 28 and FMA 12
/// for the clmul tier; with PCLMULQDQ 1, SSSE3 9, SSE4.1 19, SSE4.2 20
/// and AES 25 for portable.
#[cfg(target_arch = "x86_64")]
const AVX: u64 = ((1 << 28) | (1 << 12)) << 32;
#[cfg(target_arch = "x86_64")]
const CLMUL: u64 = ((1 << 1) | (1 << 9) | (1 << 19) | (1 << 20) | (1 << 25)) << 32;

/// The value of [`VARIABLE`] for a cap, `None` when it hides nothing the
/// peers use (no cap, or the IFMA level).
#[cfg(target_arch = "x86_64")]
pub fn value(cap: Option<IsaLevel>) -> Option<String> {
    let (a, b) = match cap? {
        IsaLevel::Avx512Ifma => return None,
        IsaLevel::Avx512 => (0, 1 << 21), // IFMA
        IsaLevel::Avx2 => (0, AVX512),
        IsaLevel::Clmul => (AVX, AVX512 | AVX2),
        IsaLevel::Portable => (AVX | CLMUL, AVX512 | AVX2),
    };
    Some(if a == 0 {
        format!(":~{b:#x}")
    } else {
        format!("~{a:#x}:~{b:#x}")
    })
}

/// The value of [`VARIABLE`] for a cap: the capability word of the
/// level's features (`neon`: NEON; `aes`: NEON, AES and PMULL), `None`
/// when it hides nothing the peers use (no cap, `sha3`, `sve2`).
#[cfg(target_arch = "aarch64")]
pub fn value(cap: Option<IsaLevel>) -> Option<String> {
    const NEON: u32 = 1 << 0;
    const AES: u32 = 1 << 2;
    const PMULL: u32 = 1 << 5;
    let word = match cap? {
        IsaLevel::Portable => 0,
        IsaLevel::Neon => NEON,
        IsaLevel::Aes => NEON | AES | PMULL,
        IsaLevel::Sha3 | IsaLevel::Sve2 => return None,
    };
    Some(format!("{word:#x}"))
}

/// No peer of another architecture has a switch.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub fn value(_cap: Option<IsaLevel>) -> Option<String> {
    None
}

/// Under a cap, and with [`VARIABLE`] unset, runs this program again with
/// it set and returns that run's exit status; `None` to go on here.
pub fn reexec(cap: Option<IsaLevel>) -> Option<std::process::ExitCode> {
    if std::env::var_os(VARIABLE).is_some() {
        return None;
    }
    let v = value(cap)?;
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("warning: peers not capped ({VARIABLE} unset): {e}");
            return None;
        }
    };
    let status = std::process::Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(VARIABLE, &v)
        .status();
    Some(match status {
        Ok(s) => std::process::ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("error: could not run peer-bench again with {VARIABLE}={v}: {e}");
            std::process::ExitCode::FAILURE
        }
    })
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn the_avx2_cap_hides_avx512_from_the_peers_and_nothing_else() {
        let v = value(Some(IsaLevel::Avx2)).unwrap_or_default();
        assert_eq!(v, ":~0x5842dc230000");
        // AVX2 (leaf 7 EBX bit 5), VAES and VPCLMULQDQ (ECX 9, 10) stay.
        let b = u64::from_str_radix(v.trim_start_matches(":~0x"), 16).unwrap_or(0);
        assert_eq!(b & (1 << 5), 0);
        assert_eq!(b & (3 << 41), 0);
        assert_ne!(b & (1 << 21), 0, "IFMA hidden");
        assert_eq!(value(None), None);
        assert_eq!(value(Some(IsaLevel::Avx512Ifma)), None);
    }
}
