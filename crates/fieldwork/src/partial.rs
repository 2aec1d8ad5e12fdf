//! The partial last block of a buffer read into, or written from, a
//! value in registers, with word accesses that stay inside the buffer.
//!
//! The obvious way — copy the bytes to a zeroed stack array, then load the
//! whole array as words or a vector — makes each load wait for the copy's
//! smaller stores to retire (the load misses store-to-load forwarding),
//! and the partial block usually lies on a MAC's or a tag's dependency
//! chain (about 40 cycles a message of AES-GCM on Zen 3). Here a 1–8 byte
//! piece is read as at most two overlapping loads whose shared bytes agree
//! (and written as at most two overlapping stores of the same bytes). The
//! branches depend on the length only, which is public wherever these are
//! used. The vector forms for AVX2 kernels are `simd::load_partial32` and
//! `simd::store_partial32`.

/// The first `min(b.len(), 8)` bytes of `b` as a little-endian integer,
/// read with at most two overlapping loads (the bytes they share are the
/// same, so OR joins them). The branches depend on the length only.
#[inline(always)]
fn le_u64_partial(b: &[u8]) -> u64 {
    let n = b.len();
    if let Some(w) = b.first_chunk::<8>() {
        u64::from_le_bytes(*w)
    } else if let (Some(lo), Some(hi)) = (b.first_chunk::<4>(), b.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*lo)) | u64::from(u32::from_le_bytes(*hi)) << (8 * (n - 4))
    } else if let (Some(&a), Some(&m), Some(&z)) = (b.first(), b.get(n / 2), b.last()) {
        u64::from(a) | u64::from(m) << (8 * (n / 2)) | u64::from(z) << (8 * (n - 1))
    } else {
        0
    }
}

/// The first `min(b.len(), 16)` bytes of `b` as a little-endian integer
/// (a partial block zero-padded), built in registers.
#[inline(always)]
pub(crate) fn le_partial(b: &[u8]) -> u128 {
    match b.split_at_checked(8) {
        Some((lo, hi)) => u128::from(le_u64_partial(lo)) | u128::from(le_u64_partial(hi)) << 64,
        None => u128::from(le_u64_partial(b)),
    }
}

/// Writes the low `min(d.len(), 8)` bytes of `x` to `d` (little-endian),
/// with at most two overlapping stores.
#[inline(always)]
fn store_u64_partial(d: &mut [u8], x: u64) {
    let n = d.len();
    if let Some(w) = d.first_chunk_mut::<8>() {
        *w = x.to_le_bytes();
    } else if n >= 4 {
        if let Some(w) = d.first_chunk_mut::<4>() {
            *w = (x as u32).to_le_bytes();
        }
        if let Some(w) = d.last_chunk_mut::<4>() {
            *w = ((x >> (8 * (n - 4))) as u32).to_le_bytes();
        }
    } else if n > 0 {
        if let Some(b) = d.first_mut() {
            *b = x as u8;
        }
        if let Some(b) = d.get_mut(n / 2) {
            *b = (x >> (8 * (n / 2))) as u8;
        }
        if let Some(b) = d.last_mut() {
            *b = (x >> (8 * (n - 1))) as u8;
        }
    }
}

/// Writes the low `min(d.len(), 16)` bytes of `v` to `d` (little-endian):
/// the inverse of [`le_partial`].
#[inline(always)]
pub(crate) fn store_le_partial(d: &mut [u8], v: u128) {
    match d.split_at_mut_checked(8) {
        Some((lo, hi)) => {
            store_u64_partial(lo, v as u64);
            store_u64_partial(hi, (v >> 64) as u64);
        }
        None => store_u64_partial(d, v as u64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_round_trips() {
        let src: [u8; 16] = core::array::from_fn(|i| 0xa0 + i as u8);
        for n in 0..=16 {
            let mut want = [0u8; 16];
            want[..n].copy_from_slice(&src[..n]);
            let v = le_partial(&src[..n]);
            assert_eq!(v, u128::from_le_bytes(want), "read {n}");
            let mut out = [0x55u8; 17];
            store_le_partial(&mut out[..n], u128::from_le_bytes(src));
            assert_eq!(&out[..n], &src[..n], "write {n}");
            assert!(
                out[n..].iter().all(|&b| b == 0x55),
                "write {n} stays inside"
            );
        }
    }
}
