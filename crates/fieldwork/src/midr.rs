//! AArch64's MIDR_EL1 (implementer and part number), which `cpu` keys its
//! tuning tables by. Its own module because reading it takes one `asm!`,
//! and `cpu` forbids unsafe code.
#![allow(unsafe_code)]

/// MIDR_EL1, if Linux says (`HWCAP_CPUID` in the auxiliary vector) that
/// EL0 may read the ID registers: the kernel then traps and emulates `mrs`
/// (and qemu's user mode does the same for the CPU it emulates). Without
/// that bit the `mrs` would be an illegal instruction, so it is not run.
pub(crate) fn read() -> Option<u64> {
    const AT_HWCAP: u64 = 16;
    const HWCAP_CPUID: u64 = 1 << 11;
    let auxv = std::fs::read("/proc/self/auxv").ok()?;
    let hwcap = auxv.chunks_exact(16).find_map(|e| {
        let (k, v) = e.split_at(8);
        let k = u64::from_ne_bytes(k.try_into().ok()?);
        let v = u64::from_ne_bytes(v.try_into().ok()?);
        (k == AT_HWCAP).then_some(v)
    })?;
    if hwcap & HWCAP_CPUID == 0 {
        return None;
    }
    let midr: u64;
    // SAFETY: HWCAP_CPUID is set (checked above), so the kernel emulates
    // this read at EL0; it touches no memory and no flags.
    unsafe {
        core::arch::asm!("mrs {}, MIDR_EL1", out(reg) midr, options(nomem, nostack, preserves_flags));
    }
    Some(midr)
}
