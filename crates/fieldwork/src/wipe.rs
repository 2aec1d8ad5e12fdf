//! Zeroizing small secret values with one volatile write of the whole
//! value.
//!
//! `zeroize` clears an array element by element, each a volatile write:
//! sixteen single-byte stores for a `[u8; 16]`, five for a `[u32; 5]`. On
//! the short-message paths (a Poly1305 tag cleared about a hundred such
//! elements) those stores are a measurable share of the time. [`wipe`]
//! writes the whole value at once (LLVM emits a `[u8; 16]` as one 16-byte
//! store, through a stack temporary) and fences the compiler afterwards,
//! as `zeroize` does. Not used for `[u32; 5]`: that came out as more
//! instructions than five `u32` stores.
#![allow(unsafe_code)]

use core::sync::atomic::{Ordering, compiler_fence};

/// Overwrites `x` with `T::default()` (zero, for the integers and
/// arrays of them this is used on) by one volatile write of the whole
/// value.
#[inline(always)]
pub(crate) fn wipe<T: Copy + Default>(x: &mut T) {
    // SAFETY: `x` is a valid, aligned, exclusive reference to a `T`; `T` is
    // `Copy`, so overwriting it without dropping the old value is sound.
    unsafe { core::ptr::write_volatile(x, T::default()) };
    compiler_fence(Ordering::SeqCst);
}

/// [`wipe`] for a byte array of any length (`Default` stops at 32).
#[inline(always)]
pub(crate) fn wipe_bytes<const N: usize>(x: &mut [u8; N]) {
    // SAFETY: as in `wipe`; `[u8; N]` is `Copy`.
    unsafe { core::ptr::write_volatile(x, [0u8; N]) };
    compiler_fence(Ordering::SeqCst);
}

/// A kernel's 64-byte result `b` (an AEAD's keystream block 0) after
/// `wipe` (one of the `wipe_stack_below*` here) zeroed the kernel's dead
/// frame below the caller's stack pointer; the copy of `b` in the
/// caller's frame (the kernel's return slot, when the caller is not
/// inlined into its own caller) is zeroed too.
#[cfg(any(target_arch = "aarch64", target_arch = "x86_64"))]
#[inline(always)]
pub(crate) fn wiped_result(mut b: [u8; 64], wipe: impl FnOnce()) -> [u8; 64] {
    wipe();
    let out = b;
    wipe_bytes(&mut b);
    out
}

/// Zeroes the `BYTES` bytes just below the caller's stack pointer: the
/// dead frames of the kernels it called before (AArch64), whose register
/// spills (round keys, GHASH powers, keystream, text) nothing else
/// clears.
///
/// One call after the kernel returns, from the function that called it
/// (so at the same stack pointer); `BYTES` is a multiple of 256 with a
/// margin over the kernel's deepest stack use, measured by the kernels'
/// tests (`stack_wipe` in `gcm/armv8.rs`, `gcm_siv/armv8.rs`, `gcm_siv/x86.rs`). Cost on AArch64:
/// 11 instructions per 256 bytes (eight `STP` of a zeroed `q` register,
/// the loop's three) and 7 more with the call. AArch64 Linux has no red zone: the bytes below the
/// stack pointer belong to no live frame, and a signal handler may
/// overwrite them at any time, which is no harm to a wipe.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub(crate) fn wipe_stack_below<const BYTES: usize>() {
    const { assert!(BYTES > 0 && BYTES % 256 == 0) };
    // SAFETY: `fill_below_sp` writes only below the stack pointer, which
    // no live Rust value occupies (no red zone on AArch64), and clobbers
    // only caller-saved registers (`x9`, `x10`, `v0`).
    unsafe { fill_below_sp(BYTES, 0) };
    compiler_fence(Ordering::SeqCst);
}

/// Writes the 64-bit `pattern` over `[sp − bytes, sp)` at the caller's
/// `sp` (`bytes` a positive multiple of 256): a naked function, so no
/// prologue moves `sp`, and the branch-and-link leaves it where the caller
/// had it.
///
/// # Safety
/// `bytes` is a positive multiple of 256, and the stack has `bytes` bytes
/// below the caller's `sp` (a kernel just used them).
#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
unsafe extern "C" fn fill_below_sp(bytes: usize, pattern: u64) {
    core::arch::naked_asm!(
        "mov x9, sp",
        "sub x10, x9, x0",
        "dup v0.2d, x1",
        "2:",
        "stp q0, q0, [x10]",
        "stp q0, q0, [x10, #32]",
        "stp q0, q0, [x10, #64]",
        "stp q0, q0, [x10, #96]",
        "stp q0, q0, [x10, #128]",
        "stp q0, q0, [x10, #160]",
        "stp q0, q0, [x10, #192]",
        "stp q0, q0, [x10, #224]",
        "add x10, x10, #256",
        "cmp x10, x9",
        "b.lo 2b",
        "ret",
    )
}

/// [`wipe_stack_below`] on x86-64: the same, below the return address
/// the call pushed (the caller's dead frames lie below it). The System V
/// red zone is the caller's scratch only between its calls; at a call
/// nothing live lies below the caller's stack pointer.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn wipe_stack_below<const BYTES: usize>() {
    const { assert!(BYTES > 0 && BYTES.is_multiple_of(256)) };
    // SAFETY: `fill_below_sp` writes only below its own stack pointer (the
    // return address), where no live Rust value lies at a call, and
    // clobbers only caller-saved registers (`rax`, `rcx`, `xmm0`).
    unsafe { fill_below_sp(BYTES, 0) };
    compiler_fence(Ordering::SeqCst);
}

/// The x86-64 fills' one loop: a naked function `$fill` (no prologue
/// moves `rsp`) that writes `[rsp − bytes, rsp)` at its own `rsp` (the
/// return address's slot; `bytes`, in `rdi`, a positive multiple of 256)
/// with the `$store`s, 256 bytes a pass from `rcx`, of the register the
/// `$init` lines set, then runs the `$exit` lines. The passes start at
/// `rsp − bytes` rounded down to the store width (`$mask`: `and rcx,
/// −width`), so no store straddles two cache lines (at a call `rsp` is 8
/// past a 16-byte boundary: unrounded, one 16-byte store in four, every
/// other ymm store and every zmm store straddled, and the vector wipes ran
/// at about one store a cycle); they end up to a width short of `rsp`, and
/// the one unaligned `$tail` store ending at `rsp` covers the rest. Below
/// `rsp − bytes` they write at most a store's width less 8 bytes more.
#[cfg(target_arch = "x86_64")]
macro_rules! naked_fill {
    ($(#[$doc:meta])* $fill:ident($($arg:ident: $ty:ty),+);
     init $($init:literal),+; mask $mask:literal; tail $tail:literal; exit $($exit:literal),*;
     stores $($store:literal),+ $(,)?) => {
        $(#[$doc])*
        #[unsafe(naked)]
        unsafe extern "C" fn $fill($($arg: $ty),+) {
            core::arch::naked_asm!(
                "mov rcx, rsp",
                "sub rcx, rdi",
                $mask,
                "lea rax, [rcx + rdi]",
                $($init,)+
                "2:",
                $($store,)+
                "add rcx, 256",
                "cmp rcx, rax",
                "jb 2b",
                $tail,
                $($exit,)*
                "ret",
            )
        }
    };
}

#[cfg(target_arch = "x86_64")]
naked_fill! {
    /// Writes the 64-bit `pattern` over `[rsp − bytes, rsp)` at its own
    /// `rsp` with aligned 16-byte stores ([`naked_fill`]'s loop; 8 bytes
    /// more below where `rsp − bytes` is not 16-byte aligned).
    ///
    /// # Safety
    /// `bytes` is a positive multiple of 256, and the stack has `bytes` + 8
    /// bytes below the caller's stack pointer (a kernel just used them).
    fill_below_sp(bytes: usize, pattern: u64);
    init "movq xmm0, rsi", "punpcklqdq xmm0, xmm0";
    mask "and rcx, -16";
    tail "movups [rsp - 16], xmm0";
    exit;
    stores
        "movaps [rcx], xmm0",
        "movaps [rcx + 16], xmm0",
        "movaps [rcx + 32], xmm0",
        "movaps [rcx + 48], xmm0",
        "movaps [rcx + 64], xmm0",
        "movaps [rcx + 80], xmm0",
        "movaps [rcx + 96], xmm0",
        "movaps [rcx + 112], xmm0",
        "movaps [rcx + 128], xmm0",
        "movaps [rcx + 144], xmm0",
        "movaps [rcx + 160], xmm0",
        "movaps [rcx + 176], xmm0",
        "movaps [rcx + 192], xmm0",
        "movaps [rcx + 208], xmm0",
        "movaps [rcx + 224], xmm0",
        "movaps [rcx + 240], xmm0",
}

/// A [`wipe_stack_below`] with vector stores for kernels compiled with
/// wider vectors (`$token` proves the CPU has them): `$name` calls the
/// naked `$fill` ([`naked_fill`]'s loop), which zeroes `[rsp − bytes,
/// rsp)` at its own `rsp` with the `$store` instructions (`$mask` and
/// `$tail` for their width), then `vzeroupper`.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_wipe {
    ($(#[$doc:meta])* $name:ident, $fill:ident, $token:ty, $mask:literal, $tail:literal,
     $($store:literal),+ $(,)?) => {
        $(#[$doc])*
        #[inline(always)]
        pub(crate) fn $name<const BYTES: usize>(t: $token) {
            const { assert!(BYTES > 0 && BYTES.is_multiple_of(256)) };
            let _ = t;
            // SAFETY: as in `wipe_stack_below`; `t` proves the vector
            // features `$fill` runs (it clobbers `rax`, `rcx` and the
            // register it stores, caller-saved, and leaves the upper
            // halves clean).
            unsafe { $fill(BYTES) };
            compiler_fence(Ordering::SeqCst);
        }

        naked_fill! {
            /// Zeroes `[rsp − bytes, rsp)` at its own `rsp` (`bytes` a
            /// positive multiple of 256), and below it down to the store
            /// width's boundary (at most a store's width less 8 bytes more).
            ///
            /// # Safety
            /// As [`fill_below_sp`]'s (the stack has `bytes` bytes and a
            /// store's width below the caller's stack pointer), and the CPU
            /// has the features of the stores.
            $fill(bytes: usize);
            init "vpxor xmm0, xmm0, xmm0";
            mask $mask;
            tail $tail;
            exit "vzeroupper";
            stores $($store),+
        }
    };
}

#[cfg(target_arch = "x86_64")]
vector_wipe! {
    /// [`wipe_stack_below`] with 32-byte stores, for kernels compiled with
    /// AVX (the caller's token proves it): eight aligned `vmovdqa` per 256
    /// bytes instead of sixteen `movups`, then `vzeroupper`.
    wipe_stack_below_ymm, fill_below_sp_ymm, crate::cpu::Avx2,
    "and rcx, -32",
    "vmovdqu [rsp - 32], ymm0",
    "vmovdqa [rcx], ymm0",
    "vmovdqa [rcx + 32], ymm0",
    "vmovdqa [rcx + 64], ymm0",
    "vmovdqa [rcx + 96], ymm0",
    "vmovdqa [rcx + 128], ymm0",
    "vmovdqa [rcx + 160], ymm0",
    "vmovdqa [rcx + 192], ymm0",
    "vmovdqa [rcx + 224], ymm0",
}

#[cfg(target_arch = "x86_64")]
vector_wipe! {
    /// [`wipe_stack_below`] with 64-byte stores, for kernels compiled with
    /// AVX-512 (the caller's token proves it): four aligned `vmovdqa64`
    /// per 256 bytes, then `vzeroupper`.
    wipe_stack_below_zmm, fill_below_sp_zmm, crate::cpu::Avx512,
    "and rcx, -64",
    "vmovdqu64 [rsp - 64], zmm0",
    "vmovdqa64 [rcx], zmm0",
    "vmovdqa64 [rcx + 64], zmm0",
    "vmovdqa64 [rcx + 128], zmm0",
    "vmovdqa64 [rcx + 192], zmm0",
}

/// Test support for the stack wipes ([`wipe_stack_below`]): an image of
/// the stack below a function's stack pointer after a kernel ran, to find
/// how deep the kernel wrote and which secrets it left there.
#[cfg(all(test, any(target_arch = "aarch64", target_arch = "x86_64")))]
#[allow(clippy::indexing_slicing)]
pub(crate) mod stack_probe {
    use alloc::vec::Vec;

    /// The bytes below the stack pointer that [`image`] fills and reads (a
    /// multiple of 256).
    pub(crate) const SPAN: usize = 8192;

    /// The fill: no 16-byte secret of a test is this.
    const PATTERN: u64 = 0xa55a_c33c_0ff0_5aa5;

    /// Copies `[sp − SPAN, sp)` at the caller's `sp` to `out`.
    ///
    /// # Safety
    /// `out` is [`SPAN`] writable bytes; the stack has `SPAN` bytes below
    /// the caller's `sp`.
    #[cfg(target_arch = "aarch64")]
    #[unsafe(naked)]
    unsafe extern "C" fn read_below_sp(out: *mut u8) {
        core::arch::naked_asm!(
            "mov x9, sp",
            "sub x10, x9, #{span}",
            "2:",
            "ldp x11, x12, [x10], #16",
            "stp x11, x12, [x0], #16",
            "cmp x10, x9",
            "b.lo 2b",
            "ret",
            span = const SPAN,
        )
    }

    /// Copies `[rsp − SPAN, rsp)` at its own `rsp` (the return address's
    /// slot, as [`super::fill_below_sp`] fills) to `out`.
    ///
    /// # Safety
    /// `out` is [`SPAN`] writable bytes; the stack has `SPAN` bytes below
    /// the caller's stack pointer.
    #[cfg(target_arch = "x86_64")]
    #[unsafe(naked)]
    unsafe extern "C" fn read_below_sp(out: *mut u8) {
        core::arch::naked_asm!(
            "mov rax, rsp",
            "lea rcx, [rsp - {span}]",
            "2:",
            "movups xmm0, [rcx]",
            "movups [rdi], xmm0",
            "add rcx, 16",
            "add rdi, 16",
            "cmp rcx, rax",
            "jb 2b",
            "ret",
            span = const SPAN,
        )
    }

    /// The [`SPAN`] bytes below this function's stack pointer after `f`
    /// ran (index 0 is `sp − SPAN`), filled with a pattern before.
    #[inline(never)]
    pub(crate) fn image<F: FnOnce()>(f: F) -> Vec<u8> {
        let mut out = alloc::vec![0u8; SPAN];
        // SAFETY: the test thread's stack has far more than `SPAN` bytes
        // below this frame; `out` is `SPAN` writable bytes.
        unsafe { super::fill_below_sp(SPAN, PATTERN) };
        f();
        // SAFETY: as above.
        unsafe { read_below_sp(out.as_mut_ptr()) };
        out
    }

    /// How many bytes below the stack pointer `f` wrote, per [`image`]
    /// (16-byte granularity).
    pub(crate) fn depth(img: &[u8]) -> usize {
        let p = PATTERN.to_le_bytes();
        img.chunks_exact(16)
            .position(|c| c[..8] != p || c[8..] != p)
            .map_or(0, |i| SPAN - 16 * i)
    }

    /// The 32 bytes of a ymm register (or a zmm register's low half)
    /// holding the 64-bit `lanes`: how the vector kernels' powers look in
    /// a spill slot.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn lanes_row(lanes: [u64; 4]) -> [u8; 32] {
        let mut row = [0u8; 32];
        for (b, v) in row.chunks_exact_mut(8).zip(lanes) {
            b.copy_from_slice(&v.to_le_bytes());
        }
        row
    }

    /// Text lengths for the short kernels' tests: each block count of up
    /// to 16 blocks, partial and whole.
    pub(crate) const LENS: [usize; 14] =
        [0, 1, 15, 16, 17, 40, 64, 100, 128, 129, 160, 200, 255, 256];

    /// `n` test bytes from `seed`.
    pub(crate) fn bytes(n: usize, seed: u8) -> Vec<u8> {
        (0..n).map(|i| (i as u8).wrapping_mul(29) ^ seed).collect()
    }

    /// The 16-byte values of `v` (its whole blocks) pushed to `s` as
    /// secrets named `what`.
    pub(crate) fn blocks(s: &mut Vec<(&'static str, [u8; 16])>, what: &'static str, v: &[u8]) {
        for c in v.chunks_exact(16) {
            let mut b = [0u8; 16];
            b.copy_from_slice(c);
            s.push((what, b));
        }
    }

    /// A kernel's test: the control images (the kernel alone) and the
    /// wiped ones (the kernel and its wipe) of its cases.
    pub(crate) struct Tally {
        /// The deepest write of a control.
        deepest: usize,
        /// Secrets the controls found, with their depth and case.
        found: Vec<(&'static str, usize, alloc::string::String)>,
    }

    impl Tally {
        /// No case yet.
        pub(crate) fn new() -> Tally {
            Tally {
                deepest: 0,
                found: Vec::new(),
            }
        }

        /// One case: `control` (the kernel alone) and `wiped` (the kernel
        /// and its wipe) each return `tag`; the control writes at most
        /// `limit` bytes deep, the wiped run leaves none of `s`.
        pub(crate) fn case(
            &mut self,
            case: &dyn core::fmt::Debug,
            s: &[(&'static str, [u8; 16])],
            limit: usize,
            tag: [u8; 16],
            control: impl FnOnce() -> [u8; 16],
            wiped: impl FnOnce() -> [u8; 16],
        ) {
            // A value equal to the tag is public (`AES(K, J0)` is the tag
            // of an empty GCM message and empty associated data).
            let s: Vec<_> = s.iter().filter(|x| x.1 != tag).copied().collect();
            let s = &s[..];
            let mut got = [0u8; 16];
            let img = image(|| got = control());
            assert_eq!(got, tag, "{case:?}");
            self.control(&img, s, limit, case);
            let img = image(|| got = wiped());
            assert_eq!(got, tag, "{case:?}");
            self.wiped(&img, s, case);
        }

        /// A control's image: the kernel wrote at most `limit` bytes deep
        /// (its wipe's size); notes the secrets it left.
        fn control(
            &mut self,
            img: &[u8],
            s: &[(&'static str, [u8; 16])],
            limit: usize,
            case: &dyn core::fmt::Debug,
        ) {
            let d = depth(img);
            assert!(
                d <= limit,
                "{case:?}: {d} bytes deep, the wipe covers {limit}"
            );
            self.deepest = self.deepest.max(d);
            let case = alloc::format!("{case:?}");
            self.found
                .extend(found(img, s).into_iter().map(|(w, d)| (w, d, case.clone())));
        }

        /// A wiped image: no secret of `s` in it.
        fn wiped(&self, img: &[u8], s: &[(&'static str, [u8; 16])], case: &dyn core::fmt::Debug) {
            let left = found(img, s);
            assert!(left.is_empty(), "{case:?}: left on the stack {left:?}");
        }

        /// The end: the controls found secrets (the scan sees the
        /// kernel's spills); prints the deepest write and some finds.
        pub(crate) fn finish(&self, kernel: &str) {
            let some: Vec<_> = self
                .found
                .iter()
                .step_by(self.found.len() / 8 + 1)
                .collect();
            std::eprintln!(
                "{kernel}: deepest {} bytes; the controls found {} secrets, e.g. {some:?}",
                self.deepest,
                self.found.len()
            );
            assert!(
                !self.found.is_empty(),
                "{kernel}: the scan cannot see the spills"
            );
        }
    }

    /// Each of `secrets` (`N` bytes each) found in `img` (at any 8-byte
    /// offset), with its depth below the stack pointer.
    pub(crate) fn found<const N: usize>(
        img: &[u8],
        secrets: &[(&'static str, [u8; N])],
    ) -> Vec<(&'static str, usize)> {
        let mut v = Vec::new();
        for off in (0..=img.len() - N).step_by(8) {
            for (what, s) in secrets {
                if img[off..off + N] == s[..] && *s != [0; N] {
                    v.push((*what, SPAN - off));
                }
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::{wipe, wipe_bytes};

    #[test]
    fn wipe_clears_arrays_and_integers() {
        /// Fills a value, wipes it with `$f` and checks it is `$zero`.
        macro_rules! wiped {
            ($f:ident, $init:expr, $zero:expr) => {{
                let mut v = $init;
                $f(&mut v);
                assert_eq!(v, $zero);
            }};
        }
        wiped!(wipe, [0xa5u8; 16], [0; 16]);
        wiped!(wipe, [7u32; 5], [0; 5]);
        wiped!(wipe, u128::MAX, 0);
        wiped!(wipe, [0xffu8; 7], [0; 7]);
        wiped!(wipe_bytes, [0x5au8; 128], [0; 128]);
    }
}
