//! A chain of one fixed-field operation inside one `gf2m::run`, timed
//! (the minimum over many runs, TSC-free: nanoseconds a step) and
//! findable in the disassembly (`chain_*` functions):
//! `gf2m_chain OP ITERS` with OP one of mul, square, sqrt (m = 233;
//! backend: `FIELDWORK_MAX_ISA`).
use fieldwork::gf2m::{self, Backend, Computation, F233, FieldElement};
use std::time::Instant;

#[derive(Clone, Copy)]
enum Op {
    Mul,
    Square,
    Sqrt,
}

struct Chain {
    op: Op,
    x: F233,
    y: F233,
    n: usize,
}

impl Computation for Chain {
    type Output = F233;
    #[inline(always)]
    fn run<B: Backend>(self, b: B) -> F233 {
        let Chain { op, mut x, y, n } = self;
        match op {
            Op::Mul => {
                for _ in 0..n {
                    x = b.mul(&x, &y);
                }
            }
            Op::Square => {
                for _ in 0..n {
                    x = b.square(&x);
                }
            }
            Op::Sqrt => {
                for _ in 0..n {
                    x = b.sqrt(&x);
                }
            }
        }
        x
    }
}

#[inline(never)]
fn chain(op: Op, x: F233, y: F233, n: usize) -> F233 {
    gf2m::run(Chain { op, x, y, n })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let op = match args.next().as_deref() {
        Some("square") => Op::Square,
        Some("sqrt") => Op::Sqrt,
        _ => Op::Mul,
    };
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let mut x = F233::ONE + F233::ONE.sqrt();
    let y = x.square() + F233::ONE;
    let mut best = f64::MAX;
    for _ in 0..50 {
        let t = Instant::now();
        x = std::hint::black_box(chain(op, x, y, iters));
        best = best.min(t.elapsed().as_secs_f64() * 1e9 / iters as f64);
    }
    println!("{best:.3} ns a step ({})", &format!("{x}")[..8]);
}
