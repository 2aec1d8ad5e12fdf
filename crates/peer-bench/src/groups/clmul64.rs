//! `clmul64`: one 64×64→128-bit carry-less product, chained (each call's
//! input depends on the previous output), so the figure is latency.
//!
//! Ours: the dispatched backend, and the portable backend for reference.
//! Peers (with `system-peers`): gf2x's `gf2x_mul` on one word each, and NTL's
//! `GF2X` `mul` on degree < 64 polynomials. Both are general-size entry
//! points, so part of what they pay is size dispatch; that is what a user of
//! those libraries pays for one word too.

use crate::harness::{Case, Impl};
use crate::util::Rng;
use fieldwork::gf2x::Dispatch;
use std::hint::black_box;

/// The chain's starting operands, shared by every implementation.
fn operands() -> (u64, u64) {
    let mut rng = Rng(0xc1a0);
    (rng.next_u64(), rng.next_u64())
}

fn ours(m: Dispatch) -> Impl {
    let (mut a, b) = operands();
    Impl {
        name: format!("fieldwork ({})", m.name()),
        ours: true,
        routine: Box::new(move |n| {
            for _ in 0..n {
                let r = m.clmul64(a, b);
                a = (r as u64) ^ ((r >> 64) as u64) ^ 1;
            }
            black_box(a);
        }),
    }
}

/// The cases, after checking the peers agree with us.
pub fn cases() -> Result<Vec<Case>, String> {
    let best = Dispatch::best();
    let mut impls = vec![ours(best)];
    if best.name() != "portable" {
        impls.push(ours(Dispatch::portable()));
    }
    #[cfg(feature = "system-peers")]
    {
        check_peers(best)?;
        impls.extend(peers());
    }
    Ok(vec![Case {
        group: "clmul64",
        size: "64×64 bit".into(),
        bytes: None,
        impls,
        heavy: false,
        per_second: None,
    }])
}

#[cfg(feature = "system-peers")]
fn check_peers(best: Dispatch) -> Result<(), String> {
    use crate::sys::{NtlGf2x, gf2x_mul_words};
    let mut rng = Rng(7);
    for _ in 0..1000 {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        let want = best.clmul64(a, b);
        let want = [want as u64, (want >> 64) as u64];
        let mut c = [0u64; 2];
        gf2x_mul_words(&mut c, &[a], &[b]);
        if c != want {
            return Err(format!("gf2x disagrees on {a:#x}·{b:#x}"));
        }
        let mut p = NtlGf2x::from_words(&[0]);
        p.mul(&NtlGf2x::from_words(&[a]), &NtlGf2x::from_words(&[b]));
        if p.words(2) != want {
            return Err(format!("NTL disagrees on {a:#x}·{b:#x}"));
        }
    }
    Ok(())
}

#[cfg(feature = "system-peers")]
fn peers() -> Vec<Impl> {
    use crate::sys::{GF2X_BUILD, gf2x_mul_words};
    let (mut a, b) = operands();
    let gf2x = Impl {
        name: GF2X_BUILD.to_string(),
        ours: false,
        routine: Box::new(move |n| {
            let mut c = [0u64; 2];
            for _ in 0..n {
                gf2x_mul_words(&mut c, &[a], &[b]);
                a = c[0] ^ c[1] ^ 1;
            }
            black_box(a);
        }),
    };
    let mut rng = Rng(11);
    let ntl = crate::sys::ntl_independent(&[rng.next_u64()], &[rng.next_u64()]);
    vec![gf2x, ntl]
}
