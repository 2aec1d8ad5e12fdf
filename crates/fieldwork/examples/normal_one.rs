//! One normal-basis product size in a loop, for callgrind:
//! `normal_one M T ITERS` (the chained `x *= y` of peer-bench's `normal`
//! rows), and with `p` as a fourth argument the p-bit `gf2x` product alone.
use fieldwork::gf2m::normal::GaussianNormalBasis;
use fieldwork::gf2x::Dispatch;

fn main() {
    let mut args = std::env::args().skip(1);
    let m: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(163);
    let t: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(4);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let product_only = args.next().is_some();
    let Ok(nb) = GaussianNormalBasis::new(m, t) else {
        eprintln!("no Gaussian normal basis of type {t} for m = {m}");
        return;
    };
    let coords = |seed: u64| -> Vec<u64> {
        let mut s = seed;
        (0..m.div_ceil(64))
            .map(|i| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if i == m / 64 && !m.is_multiple_of(64) {
                    s & ((1 << (m % 64)) - 1)
                } else {
                    s
                }
            })
            .collect()
    };
    if product_only {
        let pw = nb.prime().div_ceil(64);
        let k = Dispatch::best();
        let (mut a, b) = (vec![3u64; pw], vec![5u64; pw]);
        let mut c = vec![0u64; 2 * pw];
        for _ in 0..iters {
            let _ = k.mul_into(&mut c, &a, &b);
            a.copy_from_slice(&c[..pw]);
        }
        println!("{}", c[0]);
        return;
    }
    let (Ok(mut x), Ok(y)) = (
        nb.from_coordinates(&coords(1)),
        nb.from_coordinates(&coords(2)),
    ) else {
        return;
    };
    for _ in 0..iters {
        x *= &y;
    }
    println!("{}", x.to_hex());
}
