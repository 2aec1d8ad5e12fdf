//! The largest products on several threads (`gf2x::set_max_threads`): the
//! same result as on one thread, bit for bit, on every backend, for balanced
//! and unbalanced FFT products above the threaded size.

use super::common;

use common::Rng;
use fieldwork::gf2x::{Dispatch, fft_scratch_len, max_threads, set_max_threads};
use std::sync::Mutex;

/// The thread cap is process-wide: the tests here take turns.
static CAP: Mutex<()> = Mutex::new(());

fn product(k: Dispatch, a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = vec![0u64; a.len() + b.len()];
    let mut scratch = vec![0u64; fft_scratch_len(a.len(), b.len())];
    k.mul_fft(&mut out, a, b, &mut scratch).unwrap();
    out
}

#[test]
fn threads_give_the_same_product() {
    let _turn = CAP.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng::new(0x7417);
    // Balanced (two cosets each), unbalanced (one long coset, many short
    // ones), and sizes that are not powers of two.
    for (na, nb) in [(8192, 8192), (10_000, 7_001), (16_000, 500), (9_000, 9_000)] {
        let a: Vec<u64> = (0..na).map(|_| rng.next_u64()).collect();
        let b: Vec<u64> = (0..nb).map(|_| rng.next_u64()).collect();
        let mut seen = Vec::new();
        for k in Dispatch::all() {
            set_max_threads(1);
            let one = product(k, &a, &b);
            for threads in [2, 3, 8] {
                set_max_threads(threads);
                assert_eq!(max_threads(), threads);
                assert!(
                    product(k, &a, &b) == one,
                    "{} {na}x{nb}: {threads} threads differ",
                    k.name()
                );
            }
            seen.push(one);
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "{na}x{nb}: backends differ"
        );
    }
    set_max_threads(0);
    assert!(max_threads() >= 1);
}

#[test]
fn mul_into_on_threads_matches_one_thread() {
    let _turn = CAP.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng::new(0x7418);
    let a: Vec<u64> = (0..12_000).map(|_| rng.next_u64()).collect();
    let b: Vec<u64> = (0..12_000).map(|_| rng.next_u64()).collect();
    let mut one = vec![0u64; 24_000];
    let mut two = vec![0u64; 24_000];
    set_max_threads(1);
    fieldwork::gf2x::mul_into(&mut one, &a, &b).unwrap();
    set_max_threads(2);
    fieldwork::gf2x::mul_into(&mut two, &a, &b).unwrap();
    set_max_threads(0);
    assert!(one == two);
}

/// Products started from several threads at once share the helper threads
/// one at a time (the others run on their own thread): every result is
/// still the one-thread product, round after round.
#[test]
fn concurrent_callers_get_their_own_products() {
    let _turn = CAP.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng::new(0x7419);
    let inputs: Vec<(Vec<u64>, Vec<u64>)> = (0..4)
        .map(|i| {
            let n = 9_000 + 1_000 * i;
            let a = (0..n).map(|_| rng.next_u64()).collect();
            let b = (0..n - 300).map(|_| rng.next_u64()).collect();
            (a, b)
        })
        .collect();
    let k = Dispatch::best();
    set_max_threads(1);
    let want: Vec<Vec<u64>> = inputs.iter().map(|(a, b)| product(k, a, b)).collect();
    set_max_threads(2);
    let ok = std::thread::scope(|s| {
        let handles: Vec<_> = inputs
            .iter()
            .zip(&want)
            .map(|((a, b), w)| s.spawn(move || (0..3).all(|_| product(k, a, b) == *w)))
            .collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    });
    set_max_threads(0);
    assert!(
        ok,
        "a concurrent product differs from the one-thread product"
    );
}
