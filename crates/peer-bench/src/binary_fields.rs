//! The NIST binary fields GF(2^m) (FIPS 186-4 §D.1.3: m = 163, 233, 283,
//! 409, 571 with their trinomial or pentanomial moduli) and the peers that
//! compute in them, for the `gf2m` comparison (issue 24): NTL's `GF2E`
//! (`sys::NtlGf2eField`) and OpenSSL's `BN_GF2m_mod_*_arr`
//! (`openssl::Gf2mField`), both with `system-peers`.
//!
//! Elements cross every boundary as little-endian `u64` words, word 0
//! lowest (the `gf2x` layout), ⌈m/64⌉ of them, bits of degree ≥ m clear.
//!
//! `PeerColumn` builds each peer's timed routine for each [`Op`], the
//! rows of the `gf2m` group (`groups/gf2m.rs`): latency rows chained
//! through one element (`x ← x·y`, `x ← x²`, `x ← x⁻¹`, `x ← √x`) and a
//! throughput row of [`BATCH`] independent products per call. The tests
//! below check NTL and OpenSSL against each other and against a bit-by-bit
//! reference at every m.

use crate::util::Rng;

/// A NIST binary field: its degree and the exponents of its modulus.
#[derive(Clone, Copy, Debug)]
pub struct NistField {
    /// The degree m.
    pub m: usize,
    /// The modulus's exponents, decreasing: m first, 0 last.
    pub exponents: &'static [u32],
}

/// The five NIST fields (FIPS 186-4 §D.1.3; SEC 2 §3).
pub const NIST_FIELDS: [NistField; 5] = [
    NistField {
        m: 163,
        exponents: &[163, 7, 6, 3, 0],
    },
    NistField {
        m: 233,
        exponents: &[233, 74, 0],
    },
    NistField {
        m: 283,
        exponents: &[283, 12, 7, 5, 0],
    },
    NistField {
        m: 409,
        exponents: &[409, 87, 0],
    },
    NistField {
        m: 571,
        exponents: &[571, 10, 5, 2, 0],
    },
];

/// Independent products per call in the throughput row.
pub const BATCH: usize = 1024;

impl NistField {
    /// Words per element, ⌈m/64⌉.
    pub fn words(&self) -> usize {
        self.m.div_ceil(64)
    }

    /// A uniformly random element.
    pub fn random(&self, rng: &mut Rng) -> Vec<u64> {
        let mut w: Vec<u64> = (0..self.words()).map(|_| rng.next_u64()).collect();
        let top = self.m % 64;
        if top != 0
            && let Some(last) = w.last_mut()
        {
            *last &= (1u64 << top) - 1;
        }
        w
    }

    /// A random element other than zero.
    pub fn random_nonzero(&self, rng: &mut Rng) -> Vec<u64> {
        loop {
            let w = self.random(rng);
            if w.iter().any(|&x| x != 0) {
                return w;
            }
        }
    }

    /// `a·b mod P`, bit by bit: the definition, for tests (slow).
    pub fn reference_mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let n = self.words();
        let bit = |v: &[u64], i: usize| v.get(i / 64).is_some_and(|w| (w >> (i % 64)) & 1 == 1);
        let mut product = vec![0u64; 2 * n + 1];
        for i in 0..self.m {
            if bit(a, i) {
                for j in 0..self.m {
                    if bit(b, j) {
                        product[(i + j) / 64] ^= 1 << ((i + j) % 64);
                    }
                }
            }
        }
        // Clear each bit of degree d ≥ m by adding x^(d−m)·P.
        for d in (self.m..2 * self.m).rev() {
            if bit(&product, d) {
                for &e in self.exponents {
                    let k = d - self.m + e as usize;
                    product[k / 64] ^= 1 << (k % 64);
                }
            }
        }
        product.truncate(n);
        product
    }

    /// The element 1.
    pub fn one(&self) -> Vec<u64> {
        let mut w = vec![0u64; self.words()];
        w[0] = 1;
        w
    }
}

/// A row of the `gf2m` group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `x ← x·y`, chained (latency).
    Mul,
    /// `x ← x²`, chained.
    Square,
    /// `x ← x⁻¹`, chained.
    Invert,
    /// `x ← √x`, chained.
    Sqrt,
    /// [`BATCH`] independent products `c[i] = a[i]·b[i]` per call.
    BatchMul,
}

impl Op {
    /// Every row a peer has (`half_trace` is fieldwork's alone).
    #[cfg(feature = "system-peers")]
    pub const ALL: [Op; 5] = [Op::Mul, Op::Square, Op::Invert, Op::Sqrt, Op::BatchMul];

    /// The row's name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Mul => "mul",
            Op::Square => "square",
            Op::Invert => "invert",
            Op::Sqrt => "sqrt",
            Op::BatchMul => "batch mul ×1024",
        }
    }
}

/// A peer of the `gf2m` group.
#[cfg(feature = "system-peers")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeerColumn {
    /// NTL's `GF2E`.
    Ntl,
    /// OpenSSL's `BN_GF2m_mod_*_arr`.
    OpenSsl,
}

#[cfg(feature = "system-peers")]
impl PeerColumn {
    /// Both peers.
    pub const ALL: [PeerColumn; 2] = [PeerColumn::Ntl, PeerColumn::OpenSsl];

    /// The column's name in the tables.
    pub fn name(self) -> String {
        match self {
            // The executable links the gf2x `sys::GF2X_BUILD` names (the
            // static CPU-built one when /opt/gf2x-native exists), and
            // libntl.so's `gf2x_mul` binds to the executable's copy
            // (`LD_DEBUG=bindings`: "binding file libntl.so.44 to
            // ./peer-bench: normal symbol `gf2x_mul'", 2026-11-26).
            PeerColumn::Ntl => format!("NTL GF2E ({})", crate::sys::GF2X_BUILD),
            PeerColumn::OpenSsl => format!("{} BN_GF2m", crate::openssl::version()),
        }
    }

    /// The result of `op` on fixed inputs, through the same calls as the
    /// timed routine: `x·y`, `x²`, `x⁻¹`, `√x`, or for the batch the
    /// products `a[i]·b[i]` concatenated.
    pub fn compute(
        self,
        field: &NistField,
        op: Op,
        x: &[u64],
        y: &[u64],
        batch: &[(Vec<u64>, Vec<u64>)],
    ) -> Result<Vec<u64>, String> {
        match self {
            PeerColumn::Ntl => {
                let f = crate::sys::NtlGf2eField::new(field.exponents)?;
                let mut e = f.element(x);
                match op {
                    Op::Mul => e.mul(&f.element(y)),
                    Op::Square => e.square(),
                    Op::Invert => e.invert()?,
                    Op::Sqrt => e.sqrt(),
                    Op::BatchMul => {
                        let mut out = Vec::new();
                        for (a, b) in batch {
                            let (a, b) = (f.element(a), f.element(b));
                            e.mul_into(&a, &b);
                            out.extend(f.words(&e));
                        }
                        return Ok(out);
                    }
                }
                Ok(f.words(&e))
            }
            PeerColumn::OpenSsl => {
                let mut f = crate::openssl::Gf2mField::new(field.exponents)?;
                let mut e = f.element(x)?;
                match op {
                    Op::Mul => {
                        let y = f.element(y)?;
                        f.mul(&mut e, &y)?;
                    }
                    Op::Square => f.square(&mut e)?,
                    Op::Invert => f.invert(&mut e)?,
                    Op::Sqrt => f.sqrt(&mut e)?,
                    Op::BatchMul => {
                        let mut out = Vec::new();
                        for (a, b) in batch {
                            let (a, b) = (f.element(a)?, f.element(b)?);
                            f.mul_into(&mut e, &a, &b)?;
                            out.extend(f.words(&e)?);
                        }
                        return Ok(out);
                    }
                }
                f.words(&e)
            }
        }
    }

    /// The timed routine of `op`: chained on one element starting from `x`
    /// (with `y` the multiplier), or [`BATCH`] independent products of
    /// `batch` per call.
    pub fn routine(
        self,
        field: &NistField,
        op: Op,
        x: &[u64],
        y: &[u64],
        batch: &[(Vec<u64>, Vec<u64>)],
    ) -> Result<benchtime::Routine<'static>, String> {
        use std::hint::black_box;
        Ok(match self {
            PeerColumn::Ntl => {
                let f = crate::sys::NtlGf2eField::new(field.exponents)?;
                let mut e = f.element(x);
                let y = f.element(y);
                let a: Vec<_> = batch.iter().map(|(a, _)| f.element(a)).collect();
                let b: Vec<_> = batch.iter().map(|(_, b)| f.element(b)).collect();
                let mut c: Vec<_> = batch.iter().map(|(a, _)| f.element(a)).collect();
                // NTL's modulus is per thread: made current at each call
                // (once per batch of `n` operations).
                match op {
                    Op::Mul => Box::new(move |n| {
                        f.use_here();
                        for _ in 0..n {
                            e.mul(&y);
                        }
                        black_box(&e);
                    }),
                    Op::Square => Box::new(move |n| {
                        f.use_here();
                        for _ in 0..n {
                            e.square();
                        }
                        black_box(&e);
                    }),
                    Op::Invert => Box::new(move |n| {
                        f.use_here();
                        for _ in 0..n {
                            // Nonzero, and so are all its inverses.
                            let _ = e.invert();
                        }
                        black_box(&e);
                    }),
                    Op::Sqrt => Box::new(move |n| {
                        f.use_here();
                        for _ in 0..n {
                            e.sqrt();
                        }
                        black_box(&e);
                    }),
                    Op::BatchMul => Box::new(move |n| {
                        f.use_here();
                        for _ in 0..n {
                            for ((c, a), b) in c.iter_mut().zip(&a).zip(&b) {
                                c.mul_into(a, b);
                            }
                            black_box(&c);
                        }
                    }),
                }
            }
            PeerColumn::OpenSsl => {
                let mut f = crate::openssl::Gf2mField::new(field.exponents)?;
                let mut e = f.element(x)?;
                let y = f.element(y)?;
                let a = batch
                    .iter()
                    .map(|(a, _)| f.element(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let b = batch
                    .iter()
                    .map(|(_, b)| f.element(b))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut c = batch
                    .iter()
                    .map(|(a, _)| f.element(a))
                    .collect::<Result<Vec<_>, _>>()?;
                const CHECKED: &str = "OpenSSL BN_GF2m (checked before timing)";
                match op {
                    Op::Mul => Box::new(move |n| {
                        for _ in 0..n {
                            f.mul(&mut e, &y).expect(CHECKED);
                        }
                        black_box(&e);
                    }),
                    Op::Square => Box::new(move |n| {
                        for _ in 0..n {
                            f.square(&mut e).expect(CHECKED);
                        }
                        black_box(&e);
                    }),
                    Op::Invert => Box::new(move |n| {
                        for _ in 0..n {
                            f.invert(&mut e).expect(CHECKED);
                        }
                        black_box(&e);
                    }),
                    Op::Sqrt => Box::new(move |n| {
                        for _ in 0..n {
                            f.sqrt(&mut e).expect(CHECKED);
                        }
                        black_box(&e);
                    }),
                    Op::BatchMul => Box::new(move |n| {
                        for _ in 0..n {
                            for ((c, a), b) in c.iter_mut().zip(&a).zip(&b) {
                                f.mul_into(c, a, b).expect(CHECKED);
                            }
                            black_box(&c);
                        }
                    }),
                }
            }
        })
    }
}

/// The inputs of one field's rows: `x` and `y` nonzero, and [`BATCH`] pairs.
pub struct Inputs {
    /// The chained element's start.
    pub x: Vec<u64>,
    /// The multiplier of the chained product.
    pub y: Vec<u64>,
    /// The batch's operands.
    pub batch: Vec<(Vec<u64>, Vec<u64>)>,
}

/// Seeded inputs for `field`.
pub fn inputs(field: &NistField, batch: usize) -> Inputs {
    let mut rng = Rng(0x6766_326d_0000 + field.m as u64);
    Inputs {
        x: field.random_nonzero(&mut rng),
        y: field.random_nonzero(&mut rng),
        batch: (0..batch)
            .map(|_| (field.random(&mut rng), field.random(&mut rng)))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_is_a_field() {
        let mut rng = Rng(7);
        for f in &NIST_FIELDS {
            assert_eq!(f.exponents[0] as usize, f.m);
            let (a, b, c) = (f.random(&mut rng), f.random(&mut rng), f.random(&mut rng));
            // Commutative, associative, one is neutral, bits ≥ m stay clear.
            assert_eq!(f.reference_mul(&a, &b), f.reference_mul(&b, &a));
            assert_eq!(
                f.reference_mul(&f.reference_mul(&a, &b), &c),
                f.reference_mul(&a, &f.reference_mul(&b, &c))
            );
            assert_eq!(f.reference_mul(&a, &f.one()), a);
            // x^m = the modulus's lower terms.
            let mut x_m1 = vec![0u64; f.words()];
            x_m1[(f.m - 1) / 64] = 1 << ((f.m - 1) % 64);
            let mut x = vec![0u64; f.words()];
            x[0] = 2;
            let mut low = vec![0u64; f.words()];
            for &e in &f.exponents[1..] {
                low[e as usize / 64] ^= 1 << (e % 64);
            }
            assert_eq!(f.reference_mul(&x_m1, &x), low, "m = {}", f.m);
        }
    }

    /// NTL and OpenSSL against each other and the reference: random
    /// products, squares, inverses and square roots at every m.
    #[cfg(feature = "system-peers")]
    #[test]
    fn ntl_and_openssl_agree() {
        for f in &NIST_FIELDS {
            let mut rng = Rng(0x5eed + f.m as u64);
            let batch: Vec<(Vec<u64>, Vec<u64>)> = (0..8)
                .map(|_| (f.random(&mut rng), f.random(&mut rng)))
                .collect();
            for _ in 0..20 {
                let x = f.random_nonzero(&mut rng);
                let y = f.random(&mut rng);
                let mut results = Vec::new();
                for op in Op::ALL {
                    let got: Vec<Vec<u64>> = PeerColumn::ALL
                        .iter()
                        .map(|p| p.compute(f, op, &x, &y, &batch).unwrap())
                        .collect();
                    assert_eq!(
                        got[0],
                        got[1],
                        "NTL and OpenSSL, {} at m = {}",
                        op.name(),
                        f.m
                    );
                    results.push(got[0].clone());
                }
                let [mul, square, inverse, root, batched] = &results[..] else {
                    unreachable!()
                };
                assert_eq!(*mul, f.reference_mul(&x, &y), "mul at m = {}", f.m);
                assert_eq!(*square, f.reference_mul(&x, &x), "square at m = {}", f.m);
                assert_eq!(
                    f.reference_mul(&x, inverse),
                    f.one(),
                    "inverse at m = {}",
                    f.m
                );
                assert_eq!(f.reference_mul(root, root), x, "sqrt at m = {}", f.m);
                let want: Vec<u64> = batch
                    .iter()
                    .flat_map(|(a, b)| f.reference_mul(a, b))
                    .collect();
                assert_eq!(*batched, want, "batch at m = {}", f.m);
            }
            // Zero has no inverse: an error from both, not a crash.
            let zero = vec![0u64; f.words()];
            for p in PeerColumn::ALL {
                assert!(p.compute(f, Op::Invert, &zero, &zero, &[]).is_err());
            }
        }
    }

    /// Every timed routine runs (a few calls each), and NTL keeps two
    /// fields apart on one thread.
    #[cfg(feature = "system-peers")]
    #[test]
    fn routines_run() {
        for f in &NIST_FIELDS {
            let inputs = inputs(f, 4);
            for p in PeerColumn::ALL {
                for op in Op::ALL {
                    let mut r = p
                        .routine(f, op, &inputs.x, &inputs.y, &inputs.batch)
                        .unwrap();
                    r(3);
                }
            }
        }
        // NTL's per-thread modulus: two fields interleaved on one thread.
        let (small, large) = (&NIST_FIELDS[0], &NIST_FIELDS[4]);
        let (a, b) = (inputs(small, 0), inputs(large, 0));
        let fs = crate::sys::NtlGf2eField::new(small.exponents).unwrap();
        let fl = crate::sys::NtlGf2eField::new(large.exponents).unwrap();
        let (mut xs, ys) = (fs.element(&a.x), fs.element(&a.y));
        let (mut xl, yl) = (fl.element(&b.x), fl.element(&b.y));
        fs.use_here();
        xs.mul(&ys);
        fl.use_here();
        xl.mul(&yl);
        assert_eq!(fs.words(&xs), small.reference_mul(&a.x, &a.y));
        assert_eq!(fl.words(&xl), large.reference_mul(&b.x, &b.y));
    }
}
