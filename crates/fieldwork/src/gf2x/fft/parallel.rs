//! The FFT product on several cores (feature `std`): the same arithmetic as
//! [`super::mul`], its independent pieces on the helper threads of
//! [`pool`] (started on first use, parked between products).
//!
//! The phases and what runs side by side:
//!
//! 1. both operands' chunking and basis conversion (one thread each);
//! 2. the forward transforms of the longer operand's cosets, then those of
//!    the shorter operand's cosets with their pointwise products (each
//!    coset is independent: its own values, its own copy of the shorter
//!    operand);
//! 3. the inverse transform: the `2^t` blocks below its top `t` levels side
//!    by side, then those top levels on one thread;
//! 4. the conversion back: the two halves side by side below its top level,
//!    which runs on one thread; the overlap-add on one thread.
//!
//! For a balanced product the serial parts are the inverse transform's top
//! three levels, the last conversion level and the overlap-add: about 6 % of
//! the work, so two cores can approach 1.9×. Work is dealt to threads in
//! equal shares of independent blocks of equal size.
//!
//! Every block computes exactly what the one-thread product computes for
//! it, in the same order within the block: the result is bit-identical
//! (tested), and the timing depends only on the lengths, as before.

use super::{
    FftKernel, LEAF_LOG, forward_rec, from_novel_rec, inverse_rec, overlap_add, sizes, spread,
    to_novel_rec,
};
use pool::for_each;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::vec::Vec;

mod pool;

/// Products with at least this many words in total (`a.len() + b.len()`)
/// take the threaded path ([`super::PARALLEL_MIN_WORDS`]): every FFT
/// product (from 3 400 words each). With the helpers parked between uses
/// a phase costs a wake-up, not a thread's start; the smallest FFT
/// products (about 0.3 ms) gain 1.33× on two cores.
use super::PARALLEL_MIN_WORDS as MIN_WORDS;

/// The thread cap: 0 until first read (then the `FIELDWORK_THREADS`
/// variable, else every core).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// The environment variable that caps the threads of the largest products
/// (a positive integer; unset or empty: every core).
pub const THREADS_VARIABLE: &str = "FIELDWORK_THREADS";

fn default_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match std::env::var(THREADS_VARIABLE) {
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n > 0 => n,
            _ => cores,
        },
        Err(_) => cores,
    }
}

/// The threads the largest products use (at least 1).
pub fn max_threads() -> usize {
    match THREADS.load(Ordering::Relaxed) {
        0 => {
            let n = default_threads();
            THREADS.store(n, Ordering::Relaxed);
            n
        }
        n => n,
    }
}

/// Caps the threads the largest products use; 0 restores the default (the
/// `FIELDWORK_THREADS` variable, else every core). The cap is process-wide
/// and read at the start of each product.
///
/// # Example
///
/// ```
/// use fieldwork::gf2x::{max_threads, mul_into, set_max_threads};
///
/// set_max_threads(1); // one core for everything that follows
/// assert_eq!(max_threads(), 1);
/// let a = vec![0x1234_5678_9abc_def1u64; 20_000];
/// let mut c = vec![0u64; 40_000];
/// mul_into(&mut c, &a, &a)?;
/// set_max_threads(0); // back to every core
/// assert!(max_threads() >= 1);
/// # Ok::<(), fieldwork::gf2x::Gf2xError>(())
/// ```
pub fn set_max_threads(n: usize) {
    THREADS.store(
        if n == 0 { default_threads() } else { n },
        Ordering::Relaxed,
    );
}

/// One thread's share of the shorter operand's cosets (index, values) and
/// its copy buffer.
type CosetShare<'a> = (Vec<(usize, &'a mut [u64])>, &'a mut [u64]);

/// Whether an `na`×`nb`-word FFT product should take the threaded path.
pub(crate) fn worth(na: usize, nb: usize) -> bool {
    na + nb >= MIN_WORDS && max_threads() > 1
}

/// `out = a·b` as [`super::mul`] computes it, on up to [`max_threads`]
/// threads. `a.len() >= b.len() > 0`; `values` holds `2^r` words (the
/// product's values; `r` from [`sizes`]) and `rest` the remaining scratch,
/// at least `3·2^rb` words when the shorter operand has several cosets
/// ([`super::scratch_len`]): its converted form and one copy per thread of
/// the coset phase (two, so the scratch does not grow with the thread
/// count).
pub(crate) fn mul<K: FftKernel + Send + Sync>(
    k: K,
    out: &mut [u64],
    a: &[u64],
    b: &[u64],
    values: &mut [u64],
    rest: &mut [u64],
) {
    let threads = max_threads();
    let (r, ra, rb) = sizes(a.len(), b.len());
    let (len_a, len_b) = (1usize << ra, 1usize << rb);
    let values = &mut values[..1 << r];
    let (b_novel, copies) = rest.split_at_mut(len_b);

    // 1. Both conversions side by side.
    {
        let (first, _) = values.split_at_mut(len_a);
        let jobs: Vec<(&mut [u64], &[u64], u32)> =
            std::vec![(first, a, ra), (&mut *b_novel, b, rb)];
        for_each(threads, jobs, |(dst, src, m)| {
            spread(dst, src);
            to_novel_rec(k, dst, m);
        });
    }

    // 2. The longer operand's cosets, then the shorter one's with their
    // pointwise products.
    {
        let (first, others) = values.split_at_mut(len_a);
        for coset in others.chunks_exact_mut(len_a) {
            coset.copy_from_slice(first);
        }
    }
    let cosets: Vec<(usize, &mut [u64])> = values.chunks_exact_mut(len_a).enumerate().collect();
    for_each(threads, cosets, |(c, coset)| {
        forward_rec(k, coset, (c * len_a) as u64, ra)
    });
    if copies.len() < len_b {
        // One coset only (no copy in the scratch): transformed in place.
        for (c, target) in values.chunks_exact_mut(len_b).enumerate() {
            forward_rec(k, b_novel, (c * len_b) as u64, rb);
            k.pointwise(target, b_novel);
        }
        debug_assert_eq!(values.len(), len_b);
    }
    // One copy buffer per thread, each thread a contiguous share of the
    // cosets; `b_novel` stays intact for all of them.
    let b_novel = &*b_novel;
    let buffers: Vec<&mut [u64]> = copies.chunks_exact_mut(len_b).collect();
    let cosets: Vec<(usize, &mut [u64])> = values.chunks_exact_mut(len_b).enumerate().collect();
    let workers = threads.min(buffers.len()).min(cosets.len()).max(1);
    let share = cosets.len().div_ceil(workers);
    let mut jobs: Vec<CosetShare<'_>> = Vec::with_capacity(workers);
    let mut cosets = cosets.into_iter();
    for buffer in buffers.into_iter().take(workers) {
        jobs.push((cosets.by_ref().take(share).collect(), buffer));
    }
    for_each(workers, jobs, |(share, copy)| {
        for (c, target) in share {
            copy.copy_from_slice(b_novel);
            forward_rec(k, copy, (c * len_b) as u64, rb);
            k.pointwise(target, copy);
        }
    });

    // 3. The inverse transform: blocks below the top levels, then the top
    // (as `inverse_rec` splits it).
    if r <= LEAF_LOG {
        inverse_rec(k, values, 0, r);
    } else {
        let t = if r - LEAF_LOG >= 3 { 3 } else { r - LEAF_LOG };
        let sub = 1usize << (r - t);
        let blocks: Vec<(usize, &mut [u64])> = values.chunks_exact_mut(sub).enumerate().collect();
        for_each(threads, blocks, |(i, part)| {
            inverse_rec(k, part, (i * sub) as u64, r - t)
        });
        k.inverse(values, 0, r - t, r - 1);
    }

    // 4. Back to the monomial basis: the halves, then the top level (as
    // `from_novel_rec` splits it), and the overlap-add.
    if r <= super::CONV_LEAF_LOG {
        from_novel_rec(k, values, r);
    } else {
        let halves: Vec<&mut [u64]> = values.chunks_exact_mut(1 << (r - 1)).collect();
        for_each(threads, halves, |half| from_novel_rec(k, half, r - 1));
        k.novel_to_monomial(values, r - 1, r - 1);
    }
    overlap_add(out, values);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn for_each_visits_every_item_once() {
        for threads in 1..=5 {
            for n in 0..=9usize {
                let seen: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
                for_each(threads, (0..n).collect(), |i| {
                    seen[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(
                    seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                    "{threads} threads, {n} items"
                );
            }
        }
    }
}
