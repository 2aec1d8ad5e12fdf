//! Valgrind client requests, written from the protocol in valgrind.h and
//! memcheck.h (3.19): the "special instruction" preamble (four `rol`s of
//! `rdi` by 3, 13, 61 and 51 bits, 128 in all, so `rdi` is unchanged,
//! then `xchg rbx, rbx`), the address of a six-word request block in `rax`,
//! the result in `rdx`. Outside valgrind the sequence does nothing and
//! `rdx` keeps the default, so every request is a no-op there.
//!
//! This is the ctgrind method (Adam Langley, 2010) as SUPERCOP's TIMECOP
//! uses it: memcheck reports a conditional branch, a memory address or a
//! system-call argument that depends on an undefined byte, so marking the
//! secret inputs undefined turns memcheck into a constant-time checker.

/// `VG_USERREQ_TOOL_BASE('M', 'C')`: memcheck's request numbers.
const MC_BASE: u64 = ((b'M' as u64) << 24) | ((b'C' as u64) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
const MAKE_MEM_UNDEFINED: u64 = MC_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`.
const MAKE_MEM_DEFINED: u64 = MC_BASE + 2;
/// `VG_USERREQ__GET_VBITS`.
const GET_VBITS: u64 = MC_BASE + 8;
/// `VG_USERREQ__RUNNING_ON_VALGRIND`.
const RUNNING_ON_VALGRIND: u64 = 0x1001;
/// `VG_USERREQ__COUNT_ERRORS`.
const COUNT_ERRORS: u64 = 0x1201;

#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn request(default: u64, req: u64, arg1: u64, arg2: u64, arg3: u64) -> u64 {
    let block: [u64; 6] = [req, arg1, arg2, arg3, 0, 0];
    let result: u64;
    // SAFETY: the sequence only rotates rdi by a multiple of 64 bits and
    // exchanges rbx with itself (no register changes, flags are clobbered
    // as `asm!` assumes by default); valgrind, when present, reads the
    // six-word block at rax (live for the call) and writes rdx. The request
    // itself only changes memcheck's shadow state, never program memory.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") block.as_ptr(),
            inout("rdx") default => result,
            options(nostack),
        );
    }
    result
}

#[cfg(not(target_arch = "x86_64"))]
fn request(default: u64, _req: u64, _arg1: u64, _arg2: u64, _arg3: u64) -> u64 {
    default
}

/// Whether the process runs under valgrind.
pub fn running_on_valgrind() -> bool {
    request(0, RUNNING_ON_VALGRIND, 0, 0, 0) != 0
}

/// The number of errors valgrind has reported so far (suppressed ones not
/// counted); 0 outside valgrind.
pub fn error_count() -> u64 {
    request(0, COUNT_ERRORS, 0, 0, 0)
}

/// Marks `v`'s bytes secret (memcheck: undefined). Only for plain-data
/// values (integers, byte arrays, fixed field elements), never for values
/// holding pointers.
pub fn secret<T: ?Sized>(v: &mut T) {
    let len = core::mem::size_of_val(v) as u64;
    request(0, MAKE_MEM_UNDEFINED, v as *mut T as *mut u8 as u64, len, 0);
}

/// Declassifies `v` (memcheck: defined): for public outputs (ciphertexts,
/// tags, public keys) before the checker compares or prints them.
pub fn public<T: ?Sized>(v: &T) {
    let len = core::mem::size_of_val(v) as u64;
    request(
        0,
        MAKE_MEM_DEFINED,
        v as *const T as *const u8 as u64,
        len,
        0,
    );
}

/// Whether any bit of `v` is secret (memcheck: undefined), read with
/// `VG_USERREQ__GET_VBITS` (no error is reported). `None` outside
/// valgrind. ct-check asserts that each operation's output is secret before
/// declassifying it: otherwise the secret never reached the code under
/// test (for instance through an instruction valgrind's definedness
/// tracking loses) and a pass would prove nothing.
pub fn is_secret<T: ?Sized>(v: &T) -> Option<bool> {
    let len = core::mem::size_of_val(v);
    let mut vbits = vec![0u8; len];
    let status = request(
        0,
        GET_VBITS,
        v as *const T as *const u8 as u64,
        vbits.as_mut_ptr() as u64,
        len as u64,
    );
    (status == 1).then(|| vbits.iter().any(|&b| b != 0))
}
