//! `sufan`: the reproduction of Su & Fan's Tables 1 and 2 — every strategy
//! for 3, 4, 5, 7 and 9 words on the word-by-word PCLMULQDQ kernels, next to
//! our default (`mul_fixed` with the best backend) and gf2x, chained calls.

use crate::harness::{Case, Impl};
use crate::util::Rng;
use fieldwork::gf2x::Dispatch;
use fieldwork::gf2x::reproduce::{Strategy, strategies};
use std::hint::black_box;

fn operands(n: usize) -> (Vec<u64>, Vec<u64>) {
    let mut rng = Rng(0x5f00 + n as u64);
    (
        (0..n).map(|_| rng.next_u64()).collect(),
        (0..n).map(|_| rng.next_u64()).collect(),
    )
}

/// PCLMULQDQ instructions in each strategy's compiled kernel in this
/// executable (`fieldwork::gf2x::reproduce::compiled_products`, objdump),
/// read once; empty when objdump is missing or the CPU runs the portable
/// kernels.
pub fn compiled_counts() -> &'static [(String, usize)] {
    static COUNTS: std::sync::OnceLock<Vec<(String, usize)>> = std::sync::OnceLock::new();
    COUNTS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if Dispatch::pclmulqdq().is_some()
            && let Ok(exe) = std::env::current_exe()
            && let Ok(c) = fieldwork::gf2x::reproduce::compiled_products(&exe)
        {
            return c;
        }
        Vec::new()
    })
}

/// The compiled product count of `s`'s kernel, if known.
pub fn compiled(s: &Strategy) -> Option<usize> {
    compiled_counts()
        .iter()
        .find(|(k, _)| k == s.kernel)
        .map(|&(_, n)| n)
}

/// A row of chained `n`-word products: `mul(a, b, out)`, the product fed
/// back into `a` for the next call.
fn chained(
    name: String,
    n: usize,
    mut mul: impl FnMut(&[u64], &[u64], &mut [u64]) + 'static,
) -> Impl {
    let (a, b) = operands(n);
    let mut words = crate::util::PlacedWords::new(&[&a, &b, &vec![0u64; 2 * n]]);
    Impl {
        name,
        ours: true,
        routine: Box::new(move |iters| {
            let [a, b, out] = words.parts::<3>();
            for _ in 0..iters {
                mul(a, b, out);
                crate::util::chain_copy(a, out);
            }
            black_box(&out);
        }),
    }
}

fn strategy_impl(s: Strategy, m: Dispatch) -> Impl {
    // The formula's count and, where known, the compiled kernel's.
    let name = match compiled(&s) {
        Some(c) => format!("{} ({} products, {c} compiled)", s.name, s.products),
        None => format!("{} ({} products)", s.name, s.products),
    };
    chained(name, s.words, move |a, b, out| {
        s.mul(m, a, b, out);
    })
}

/// The same strategy as one of its AVX builds, named `"{name} {build}"`:
/// `VEX (non-destructive)` (the kernel compiled with AVX, Su & Fan's
/// Table 5) or `VXORPD (256-bit additions)` (the listing's hand-placed
/// `vxorpd` additions, `_USE_AVX_`, Table 4).
fn avx_impl(s: Strategy, k: fieldwork::gf2x::reproduce::VexKernel, build: &str) -> Impl {
    chained(format!("{} {build}", s.name), s.words, move |a, b, out| {
        k.mul(a, b, out);
    })
}

/// One of Su & Fan's `ins_mul2_64` variants (`_XOR64`, …) at 2 words.
fn mul2_impl(v: fieldwork::gf2x::reproduce::Mul2Variant, m: Dispatch) -> Impl {
    chained(format!("ins_mul2_64 {}", v.name), 2, move |a, b, out| {
        v.mul(m, a, b, out);
    })
}

fn default_impl(m: Dispatch, n: usize) -> Impl {
    chained(
        format!("default mul_into ({})", m.name()),
        n,
        move |a, b, out| {
            let _ = m.mul_into(out, a, b);
        },
    )
}

/// The cases, after checking every strategy against the default.
pub fn cases() -> Result<Vec<Case>, String> {
    let m = Dispatch::pclmulqdq().unwrap_or_else(Dispatch::portable);
    let best = Dispatch::best();
    let mut out = Vec::new();
    // Su & Fan's appendix: the ways `ins_mul2_64` forms (a0 + a1)(b0 + b1).
    {
        let (a, b) = operands(2);
        let mut want = vec![0u64; 4];
        best.mul_into(&mut want, &a, &b)
            .map_err(|e| e.to_string())?;
        let mut impls = vec![default_impl(best, 2)];
        for v in fieldwork::gf2x::reproduce::mul2_variants() {
            let mut got = vec![0u64; 4];
            if !v.mul(m, &a, &b, &mut got) {
                continue;
            }
            if got != want {
                return Err(format!("ins_mul2_64 {} disagrees", v.name));
            }
            impls.push(mul2_impl(v, m));
        }
        if impls.len() > 1 {
            out.push(Case {
                group: "sufan",
                size: "2 words".into(),
                bytes: None,
                impls,
                heavy: false,
                per_second: None,
            });
        }
    }
    for n in [3usize, 4, 5, 7, 9] {
        let (a, b) = operands(n);
        let mut want = vec![0u64; 2 * n];
        best.mul_into(&mut want, &a, &b)
            .map_err(|e| e.to_string())?;
        let mut impls = vec![default_impl(best, n)];
        for s in strategies().filter(|s| s.words == n) {
            let mut got = vec![0u64; 2 * n];
            if !s.mul(m, &a, &b, &mut got) || got != want {
                return Err(format!("strategy {} disagrees", s.name));
            }
            impls.push(strategy_impl(s, m));
            if let Some(k) = s.vex(best) {
                let mut got = vec![0u64; 2 * n];
                if !k.mul(&a, &b, &mut got) || got != want {
                    return Err(format!("strategy {} (VEX) disagrees", s.name));
                }
                impls.push(avx_impl(s, k, "VEX (non-destructive)"));
            }
            if let Some(k) = s.vxorpd(best) {
                let mut got = vec![0u64; 2 * n];
                if !k.mul(&a, &b, &mut got) || got != want {
                    return Err(format!("strategy {} (VXORPD) disagrees", s.name));
                }
                impls.push(avx_impl(s, k, "VXORPD (256-bit additions)"));
            }
        }
        #[cfg(feature = "system-peers")]
        {
            let (a, b) = operands(n);
            impls.push(crate::sys::gf2x_chained(a, b));
        }
        out.push(Case {
            group: "sufan",
            size: format!("{n} words"),
            bytes: None,
            impls,
            heavy: false,
            per_second: None,
        });
    }
    Ok(out)
}
