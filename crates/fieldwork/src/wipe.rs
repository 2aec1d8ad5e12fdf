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
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(crate) fn wipe_bytes<const N: usize>(x: &mut [u8; N]) {
    // SAFETY: as in `wipe`; `[u8; N]` is `Copy`.
    unsafe { core::ptr::write_volatile(x, [0u8; N]) };
    compiler_fence(Ordering::SeqCst);
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
