//! One fixed-field operation in a loop, for callgrind:
//! `gf2m_one OP M ITERS` with OP one of invert, half_trace, mul, add, square
//! and M one of 163, 233, 283, 409, 571 (backend: `FIELDWORK_MAX_ISA`).
use fieldwork::gf2m::{F163, F233, F283, F409, F571, FieldElement};

fn run<F: FieldElement>(op: &str, iters: usize) -> F {
    let mut a = F::ONE + F::ONE.sqrt();
    let b = a.square() + F::ONE;
    // The operation chosen once, outside the timed loop.
    let step: fn(F, F) -> F = match op {
        "invert" => |a: F, _| a.invert().unwrap_or(F::ONE),
        "half_trace" => |a: F, b| a.half_trace() + b,
        "mul" => |a: F, b| a * b,
        "add" => |a: F, b| a + b,
        _ => |a: F, b| a.square() + b,
    };
    for _ in 0..iters {
        a = std::hint::black_box(step(a, b));
    }
    a
}

fn main() {
    let mut args = std::env::args().skip(1);
    let op = args.next().unwrap_or_else(|| "invert".into());
    let m: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(163);
    let iters: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1000);
    let out = match m {
        163 => format!("{}", run::<F163>(&op, iters)),
        233 => format!("{}", run::<F233>(&op, iters)),
        283 => format!("{}", run::<F283>(&op, iters)),
        409 => format!("{}", run::<F409>(&op, iters)),
        _ => format!("{}", run::<F571>(&op, iters)),
    };
    println!("{}", &out[..8.min(out.len())]);
}
