//! The partial last block of a buffer read into, or written from, a
//! value in registers, with word accesses that stay inside the buffer.
//!
//! The obvious way — copy the bytes to a zeroed stack array, then load the
//! whole array as words or a vector — makes each load wait for the copy's
//! smaller stores to retire (the load misses store-to-load forwarding),
//! and the partial block usually lies on a MAC's or a tag's dependency
//! chain (about 40 cycles a message of AES-GCM on Zen 3). Here a 1–8 byte
//! piece is read as at most two overlapping loads whose shared bytes agree. The
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_length_reads_its_bytes_zero_padded() {
        let src: [u8; 20] = core::array::from_fn(|i| 0xa0 + i as u8);
        for n in 0..=20 {
            let mut want = [0u8; 16];
            let k = n.min(16);
            want[..k].copy_from_slice(&src[..k]);
            assert_eq!(
                le_partial(&src[..n]),
                u128::from_le_bytes(want),
                "{n} bytes"
            );
        }
    }
}
