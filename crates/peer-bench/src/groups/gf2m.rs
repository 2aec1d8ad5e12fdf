//! `gf2m`: arithmetic in the NIST binary fields GF(2^m), m = 163, 233, 283,
//! 409, 571 (`fieldwork::gf2m::{F163 … F571}`), against NTL's `GF2E` and
//! OpenSSL's `BN_GF2m_mod_*_arr` (with `system-peers`; see
//! `crate::binary_fields`).
//!
//! # Rows
//!
//! For each m (`m=163 mul`, …):
//!
//! - `mul`, `square`, `invert`, `sqrt`, `half_trace`: one operation per
//!   call, chained through one element (`x ← x·y`, `x ← x²`, `x ← x⁻¹`,
//!   `x ← √x`, `x ← H(x)`), so the figure is latency. No peer has a
//!   half-trace: that row is fieldwork's alone.
//! - `batch mul ×1024`: 1024 independent products `c[i] = a[i]·b[i]` per
//!   call (`FieldElement::mul_slices`; the peers loop over their own
//!   product), so the figure is throughput.
//! - `batch square ×1024`: 1024 independent squares per call
//!   (`FieldElement::square_slices`); fieldwork's alone.
//!
//! # Implementations
//!
//! - `fieldwork best (<backend>)`, the reference for the ratios: on the
//!   chained rows the chain written once over `gf2m::Backend` and run by
//!   `gf2m::run` (the backend chosen once, every step inlined into the
//!   loop under its target features, as c-xs233's `static inline`
//!   functions are in C); on the batch rows `FieldElement::mul_slices` and
//!   `square_slices`.
//! - `fieldwork operators (<backend>)` (chained rows): the same chain
//!   through the operators and `FieldElement` methods, which choose the
//!   backend by `Dispatch::best()` and make a call at every step.
//! - `fieldwork (<backend>)`: each backend this CPU has, held in a
//!   `gf2m::Dispatch` (its chain run inside `Dispatch::run`).
//! - `fieldwork BinaryField (run-time modulus)` (chained rows): the same
//!   modulus as a run-time `gf2m::BinaryField` (the like of NTL's `GF2E`):
//!   `x *= &y` for the product, the `Element` methods for the rest.
//! - `fieldwork one at a time` (batch rows): the same 1024 elements by the
//!   public operator or method in a loop, `c[i] = a[i] * b[i]` or
//!   `c[i] = a[i].square()` — what the batch call is measured against.
//! - `NTL GF2E` (`system-peers`): elements and the modulus as NTL objects;
//!   NTL has no `GF2E` square root, so its `sqrt` is m − 1 squarings.
//! - `OpenSSL 3.x BN_GF2m` (`system-peers`): `BIGNUM`s and a `BN_CTX`;
//!   OpenSSL's inversion is blinded by a random multiplier, as its curve
//!   code calls it; its square root is `x^(2^(m−1))`.
//!
//! fieldwork's operations run in constant time; the peers' inversions do
//! not (NTL's extended Euclid and OpenSSL's binary algorithm take steps
//! that depend on the value; OpenSSL blinds its input instead), so the
//! `invert` row compares different guarantees, and says so here.
//!
//! # Checks before timing
//!
//! The modulus of each fieldwork type against the NIST table; then every
//! fieldwork backend and the public API against a bit-by-bit reference
//! (`NistField::reference_mul`) on the timed inputs — products, squares,
//! `x·x⁻¹ = 1`, `(√x)² = x`, the half-trace's `H(a)² + H(a) = a + Tr(a)`
//! and agreement of the backends on it, the batch — and each peer's
//! product, square, inverse, square root and batch against ours.

use crate::binary_fields::{BATCH, Inputs, NIST_FIELDS, NistField, Op, inputs};
use crate::harness::{Case, Impl};
use fieldwork::gf2m::{
    Backend, BinaryField, Computation, Dispatch, Element, F163, F233, F283, F409, F571,
    FieldElement,
};
use fieldwork::gf2x::Gf2Poly;
use std::hint::black_box;

/// The rows of one field: the peers' operations, the half-trace and the
/// batch of squares.
const ROWS: [Row; 7] = [
    Row::Peer(Op::Mul),
    Row::Peer(Op::Square),
    Row::Peer(Op::Invert),
    Row::Peer(Op::Sqrt),
    Row::HalfTrace,
    Row::Peer(Op::BatchMul),
    Row::BatchSquare,
];

/// A row: an operation the peers have too, or one of fieldwork's alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Row {
    Peer(Op),
    HalfTrace,
    BatchSquare,
}

impl Row {
    fn name(self) -> &'static str {
        match self {
            Row::Peer(op) => op.name(),
            Row::HalfTrace => "half_trace",
            Row::BatchSquare => "batch square ×1024",
        }
    }

    /// Whether the row is a batch (and has a one-at-a-time column).
    fn is_batch(self) -> bool {
        matches!(self, Row::Peer(Op::BatchMul) | Row::BatchSquare)
    }
}

/// The cases of every field, after every check.
pub fn cases() -> Result<Vec<Case>, String> {
    let mut cases = Vec::new();
    cases.extend(field_cases::<F163>(&NIST_FIELDS[0])?);
    cases.extend(field_cases::<F233>(&NIST_FIELDS[1])?);
    cases.extend(field_cases::<F283>(&NIST_FIELDS[2])?);
    cases.extend(field_cases::<F409>(&NIST_FIELDS[3])?);
    cases.extend(field_cases::<F571>(&NIST_FIELDS[4])?);
    cases.push(parts_case!(F163, 3, &NIST_FIELDS[0]));
    cases.push(parts_case!(F233, 4, &NIST_FIELDS[1]));
    cases.push(parts_case!(F283, 5, &NIST_FIELDS[2]));
    cases.push(parts_case!(F409, 7, &NIST_FIELDS[3]));
    cases.push(parts_case!(F571, 9, &NIST_FIELDS[4]));
    Ok(cases)
}

/// `m=… parts of mul`: what a field product costs against its two parts, each
/// chained through one value — the product through the public API (the
/// reference), the `gf2x` fixed product alone (`mul_fixed::<W>`, its low W
/// words fed back) and the reduction alone (`reduce_product_words`, the
/// word-level fold, its result fed back into the low words of a product).
/// Checked first: reducing the fixed product gives the field product.
macro_rules! parts_case {
    ($F:ident, $w:literal, $field:expr) => {{
        let field: &NistField = $field;
        let inputs = inputs(field, BATCH);
        let (x, y): ($F, $F) = (element(&inputs.x)?, element(&inputs.y)?);
        let product: [u64; 2 * $w] = fieldwork::gf2x::mul_fixed(&x.to_words(), &y.to_words());
        if $F::reduce_product_words(&product) != x * y {
            return Err(format!(
                "m={}: reducing the gf2x product is not the field product",
                field.m
            ));
        }
        let mut fused = x;
        let (mut xw, yw) = (x.to_words(), y.to_words());
        let mut wide = product;
        Case {
            group: "gf2m",
            size: format!("m={} parts of mul", field.m),
            bytes: None,
            impls: vec![
                Impl {
                    name: "fieldwork mul (product and reduction)".into(),
                    ours: true,
                    routine: Box::new(move |n| {
                        for _ in 0..n {
                            fused = black_box(fused) * y;
                        }
                        black_box(fused);
                    }),
                },
                Impl {
                    name: format!("gf2x mul_fixed::<{}> alone", $w),
                    ours: true,
                    routine: Box::new(move |n| {
                        for _ in 0..n {
                            let p: [u64; 2 * $w] = fieldwork::gf2x::mul_fixed(&black_box(xw), &yw);
                            xw.copy_from_slice(&p[..$w]);
                        }
                        black_box(xw);
                    }),
                },
                Impl {
                    name: "reduction alone (words)".into(),
                    ours: true,
                    routine: Box::new(move |n| {
                        for _ in 0..n {
                            let r = $F::reduce_product_words(&black_box(wide));
                            wide[..$w].copy_from_slice(&r.to_words());
                        }
                        black_box(wide);
                    }),
                },
            ],
            heavy: false,
            per_second: None,
        }
    }};
}
use parts_case;

/// The element with these words.
fn element<F: FieldElement>(words: &[u64]) -> Result<F, String> {
    F::from_word_slice(words).map_err(|e| format!("gf2m F{}: {e}", F::M))
}

/// One field's inputs as fieldwork elements.
struct Operands<F> {
    x: F,
    y: F,
    a: Vec<F>,
    b: Vec<F>,
}

fn operands<F: FieldElement>(inputs: &Inputs) -> Result<Operands<F>, String> {
    Ok(Operands {
        x: element(&inputs.x)?,
        y: element(&inputs.y)?,
        a: inputs
            .batch
            .iter()
            .map(|(a, _)| element(a))
            .collect::<Result<_, _>>()?,
        b: inputs
            .batch
            .iter()
            .map(|(_, b)| element(b))
            .collect::<Result<_, _>>()?,
    })
}

/// fieldwork's result of `row` on the inputs: through the public API
/// (`backend` `None`) or one backend.
fn ours<F: FieldElement>(
    backend: Option<Dispatch>,
    row: Row,
    o: &Operands<F>,
) -> Result<Vec<u64>, String> {
    let words = |v: F| v.as_words().to_vec();
    Ok(match (backend, row) {
        (None, Row::Peer(Op::Mul)) => words(o.x * o.y),
        (None, Row::Peer(Op::Square)) => words(o.x.square()),
        (None, Row::Peer(Op::Invert)) => {
            words(Option::from(o.x.invert()).ok_or("x has no inverse (it is nonzero)")?)
        }
        (None, Row::Peer(Op::Sqrt)) => words(o.x.sqrt()),
        (None, Row::HalfTrace) => words(o.x.half_trace()),
        (None, Row::Peer(Op::BatchMul)) => {
            let mut c = vec![F::ZERO; o.a.len()];
            F::mul_slices(&mut c, &o.a, &o.b).map_err(|e| e.to_string())?;
            c.iter().flat_map(|v| v.as_words().to_vec()).collect()
        }
        (None, Row::BatchSquare) => {
            let mut c = vec![F::ZERO; o.a.len()];
            F::square_slices(&mut c, &o.a).map_err(|e| e.to_string())?;
            c.iter().flat_map(|v| v.as_words().to_vec()).collect()
        }
        (Some(k), Row::Peer(Op::Mul)) => words(chain(k, Step::Mul, o.x, o.y, 1)),
        (Some(k), Row::Peer(Op::Square)) => words(chain(k, Step::Square, o.x, o.y, 1)),
        (Some(k), Row::Peer(Op::Invert)) => words(chain(k, Step::Invert, o.x, o.y, 1)),
        (Some(k), Row::Peer(Op::Sqrt)) => words(chain(k, Step::Sqrt, o.x, o.y, 1)),
        (Some(k), Row::HalfTrace) => words(chain(k, Step::HalfTrace, o.x, o.y, 1)),
        (Some(k), Row::Peer(Op::BatchMul)) => {
            let mut c = vec![F::ZERO; o.a.len()];
            k.mul_slices(&mut c, &o.a, &o.b)
                .map_err(|e| e.to_string())?;
            c.iter().flat_map(|v| v.as_words().to_vec()).collect()
        }
        (Some(k), Row::BatchSquare) => {
            let mut c = vec![F::ZERO; o.a.len()];
            k.square_slices(&mut c, &o.a).map_err(|e| e.to_string())?;
            c.iter().flat_map(|v| v.as_words().to_vec()).collect()
        }
    })
}

/// Checks fieldwork (API and every backend) against the reference, and the
/// peers against fieldwork, on `inputs`.
fn check<F: FieldElement>(field: &NistField, inputs: &Inputs) -> Result<(), String> {
    let exponents: Vec<u32> = F::modulus_exponents().iter().map(|&e| e as u32).collect();
    if F::M != field.m || exponents != field.exponents {
        return Err(format!(
            "fieldwork's F{} has modulus exponents {exponents:?}, NIST's are {:?}",
            F::M,
            field.exponents
        ));
    }
    let o = operands::<F>(inputs)?;
    let (x, y) = (&inputs.x, &inputs.y);
    let mut half_traces = Vec::new();
    for backend in std::iter::once(None).chain(Dispatch::all().map(Some)) {
        let who = backend.map_or("the API".to_string(), |k| k.name().to_string());
        let fail = |what: &str| format!("fieldwork gf2m F{} ({who}): wrong {what}", F::M);
        let got = |row| ours(backend, row, &o);
        if got(Row::Peer(Op::Mul))? != field.reference_mul(x, y) {
            return Err(fail("product"));
        }
        if got(Row::Peer(Op::Square))? != field.reference_mul(x, x) {
            return Err(fail("square"));
        }
        if field.reference_mul(x, &got(Row::Peer(Op::Invert))?) != field.one() {
            return Err(fail("inverse"));
        }
        let root = got(Row::Peer(Op::Sqrt))?;
        if field.reference_mul(&root, &root) != *x {
            return Err(fail("square root"));
        }
        // H(a)² + H(a) = a + Tr(a).
        let h = got(Row::HalfTrace)?;
        let mut lhs = field.reference_mul(&h, &h);
        lhs.iter_mut().zip(&h).for_each(|(l, h)| *l ^= h);
        let mut diff: Vec<u64> = lhs.iter().zip(x).map(|(l, a)| l ^ a).collect();
        diff[0] &= !1;
        if diff.iter().any(|&w| w != 0) {
            return Err(fail("half-trace"));
        }
        half_traces.push(h);
        let want: Vec<u64> = inputs
            .batch
            .iter()
            .flat_map(|(a, b)| field.reference_mul(a, b))
            .collect();
        if got(Row::Peer(Op::BatchMul))? != want {
            return Err(fail("batch of products"));
        }
        let want: Vec<u64> = inputs
            .batch
            .iter()
            .flat_map(|(a, _)| field.reference_mul(a, a))
            .collect();
        if got(Row::BatchSquare)? != want {
            return Err(fail("batch of squares"));
        }
    }
    if half_traces.windows(2).any(|w| w[0] != w[1]) {
        return Err(format!(
            "fieldwork gf2m F{}: the backends' half-traces differ",
            F::M
        ));
    }
    #[cfg(feature = "system-peers")]
    for peer in crate::binary_fields::PeerColumn::ALL {
        for op in Op::ALL {
            let got = peer.compute(field, op, x, y, &inputs.batch)?;
            if got != ours(None, Row::Peer(op), &o)? {
                return Err(format!(
                    "{} disagrees with fieldwork on F{} {}",
                    peer.name(),
                    F::M,
                    op.name()
                ));
            }
        }
    }
    #[cfg(feature = "xs233")]
    for row in ROWS {
        if let Some(op) = xs233_op(field, row) {
            let got = crate::xs233::compute(op, x, y, &inputs.batch)?;
            if got != ours(None, row, &o)? {
                return Err(format!(
                    "{} disagrees with fieldwork on F233 {}",
                    crate::xs233::NAME,
                    row.name()
                ));
            }
        }
    }
    Ok(())
}

/// c-xs233's operation for `row` at m = 233 (when this CPU runs it).
#[cfg(feature = "xs233")]
fn xs233_op(field: &NistField, row: Row) -> Option<crate::xs233::Xs233Op> {
    use crate::xs233::Xs233Op;
    if field.m != 233 || !crate::xs233::available() {
        return None;
    }
    match row {
        Row::Peer(op) => Some(Xs233Op::Shared(op)),
        Row::HalfTrace => Some(Xs233Op::HalfTrace),
        Row::BatchSquare => None,
    }
}

fn field_cases<F: FieldElement + 'static>(field: &NistField) -> Result<Vec<Case>, String> {
    let inputs = inputs(field, BATCH);
    check::<F>(field, &inputs)?;
    let best = Dispatch::best();
    ROWS.iter()
        .map(|&row| {
            let (reference, operators) = if row.is_batch() {
                (None, None)
            } else {
                (Some(best), Some(None))
            };
            let mut impls = vec![ours_impl::<F>(
                format!("fieldwork best ({})", best.name()),
                reference,
                row,
                &inputs,
            )?];
            if let Some(none) = operators {
                impls.push(ours_impl::<F>(
                    format!("fieldwork operators ({})", best.name()),
                    none,
                    row,
                    &inputs,
                )?);
            }
            for k in Dispatch::all() {
                impls.push(ours_impl::<F>(
                    format!("fieldwork ({})", k.name()),
                    Some(k),
                    row,
                    &inputs,
                )?);
            }
            if row.is_batch() {
                impls.push(one_at_a_time::<F>(row, &inputs)?);
            } else {
                let want = ours(None, row, &operands::<F>(&inputs)?)?;
                impls.push(run_time_field(field, row, &inputs, &want)?);
            }
            #[cfg(feature = "xs233")]
            if let Some(op) = xs233_op(field, row) {
                impls.push(Impl {
                    name: crate::xs233::NAME.into(),
                    ours: false,
                    routine: crate::xs233::routine(op, &inputs.x, &inputs.y, &inputs.batch)?,
                });
            }
            #[cfg(feature = "system-peers")]
            if let Row::Peer(op) = row {
                for peer in crate::binary_fields::PeerColumn::ALL {
                    impls.push(Impl {
                        name: peer.name(),
                        ours: false,
                        routine: peer.routine(field, op, &inputs.x, &inputs.y, &inputs.batch)?,
                    });
                }
            }
            Ok(Case {
                group: "gf2m",
                size: format!("m={} {}", field.m, row.name()),
                bytes: None,
                impls,
                heavy: false,
                per_second: None,
            })
        })
        .collect()
}

/// The batch rows' baseline: the public operator or method on each element
/// in a loop (the dispatch per element), checked against the batch call.
fn one_at_a_time<F: FieldElement + 'static>(row: Row, inputs: &Inputs) -> Result<Impl, String> {
    let o = operands::<F>(inputs)?;
    let Operands { a, b, .. } = o;
    let mut c = vec![F::ZERO; a.len()];
    let square = row == Row::BatchSquare;
    for ((c, x), y) in c.iter_mut().zip(&a).zip(&b) {
        *c = if square { x.square() } else { *x * *y };
    }
    let batch = ours(None, row, &operands::<F>(inputs)?)?;
    if c.iter()
        .flat_map(|v| v.as_words().to_vec())
        .collect::<Vec<u64>>()
        != batch
    {
        return Err(format!(
            "gf2m F{}: one at a time differs from the batch",
            F::M
        ));
    }
    let routine: benchtime::Routine<'static> = if square {
        Box::new(move |n| {
            for _ in 0..n {
                for (c, x) in c.iter_mut().zip(black_box(&a)) {
                    *c = x.square();
                }
                black_box(&c);
            }
        })
    } else {
        Box::new(move |n| {
            for _ in 0..n {
                for ((c, x), y) in c.iter_mut().zip(black_box(&a)).zip(&b) {
                    *c = *x * *y;
                }
                black_box(&c);
            }
        })
    };
    Ok(Impl {
        name: "fieldwork one at a time".into(),
        ours: true,
        routine,
    })
}

/// The chained rows through a run-time [`BinaryField`] built from the same
/// modulus (what a user of an arbitrary irreducible gets, and the like of
/// NTL's `GF2E`, whose modulus is chosen at run time too): `x *= &y` in
/// place, and the `Element` methods. Checked first against the fixed type's
/// result `want`.
fn run_time_field(
    field: &NistField,
    row: Row,
    inputs: &Inputs,
    want: &[u64],
) -> Result<Impl, String> {
    let exponents: Vec<usize> = field.exponents.iter().map(|&e| e as usize).collect();
    let f = BinaryField::new(Gf2Poly::from_exponents(&exponents)).map_err(|e| e.to_string())?;
    let mut x = f.from_words(&inputs.x).map_err(|e| e.to_string())?;
    let y = f.from_words(&inputs.y).map_err(|e| e.to_string())?;
    let got =
        run_time_step(row, &x, &y).ok_or(format!("m={}: no run-time {}", field.m, row.name()))?;
    if got.as_words() != want {
        return Err(format!(
            "m={}: the run-time field's {} differs from the fixed type's",
            field.m,
            row.name()
        ));
    }
    let routine: benchtime::Routine<'static> = match row {
        Row::Peer(Op::Mul) => Box::new(move |n| {
            for _ in 0..n {
                x *= &y;
            }
            black_box(&x);
        }),
        _ => Box::new(move |n| {
            for _ in 0..n {
                if let Some(next) = run_time_step(row, black_box(&x), &y) {
                    x = next;
                }
            }
            black_box(&x);
        }),
    };
    Ok(Impl {
        name: "fieldwork BinaryField (run-time modulus)".into(),
        ours: true,
        routine,
    })
}

/// One step of [`run_time_field`]'s chain (none for the batch rows).
fn run_time_step(row: Row, x: &Element, y: &Element) -> Option<Element> {
    match row {
        Row::Peer(Op::Mul) => Some(x * y),
        Row::Peer(Op::Square) => Some(x.square()),
        Row::Peer(Op::Invert) => x.invert().into(),
        Row::Peer(Op::Sqrt) => Some(x.sqrt()),
        Row::HalfTrace => x.half_trace(),
        Row::Peer(Op::BatchMul) | Row::BatchSquare => None,
    }
}

/// One step of a chained row.
#[derive(Clone, Copy)]
enum Step {
    Mul,
    Square,
    Sqrt,
    Invert,
    HalfTrace,
}

/// `n` steps chained through `x` (`x ← x·y`, `x²`, `√x`, `x⁻¹`, `H(x)`),
/// written once over the backend and compiled per backend by
/// `Dispatch::run`: the loop and every step under the backend's target
/// features, no call per step.
struct Chain<F> {
    step: Step,
    x: F,
    y: F,
    n: u64,
}

impl<F: FieldElement> Computation for Chain<F> {
    type Output = F;
    #[inline(always)]
    fn run<B: Backend>(self, b: B) -> F {
        let Chain { step, mut x, y, n } = self;
        // Plain loops, no closures: a closure the compiler leaves out of
        // line would lose the backend's target features.
        match step {
            Step::Mul => {
                for _ in 0..n {
                    x = b.mul(&x, &y);
                }
            }
            Step::Square => {
                for _ in 0..n {
                    x = b.square(&x);
                }
            }
            Step::Sqrt => {
                for _ in 0..n {
                    x = b.sqrt(&x);
                }
            }
            Step::Invert => {
                for _ in 0..n {
                    x = b.invert(&x);
                }
            }
            Step::HalfTrace => {
                for _ in 0..n {
                    x = b.half_trace(&x);
                }
            }
        }
        x
    }
}

/// [`Chain`] of `n` steps on `k`.
fn chain<F: FieldElement>(k: Dispatch, step: Step, x: F, y: F, n: u64) -> F {
    k.run(Chain { step, x, y, n })
}

/// fieldwork's timed routine of `row`: through the public API (`backend`
/// `None`: the operators, or the batch calls) or one backend held (the
/// chains inside one `Dispatch::run`); chained, or [`BATCH`] independent
/// products.
fn ours_impl<F: FieldElement + 'static>(
    name: String,
    backend: Option<Dispatch>,
    row: Row,
    inputs: &Inputs,
) -> Result<Impl, String> {
    let Operands { mut x, y, a, b } = operands::<F>(inputs)?;
    let mut c = vec![F::ZERO; a.len()];
    // The chains carry no `black_box` per step (the peers' loops have
    // none): each step is a call through the dispatch that the compiler
    // cannot skip, as its result feeds the next; the last value is kept.
    let routine: benchtime::Routine<'static> = match (backend, row) {
        (None, Row::Peer(Op::Mul)) => Box::new(move |n| {
            for _ in 0..n {
                x *= y;
            }
            black_box(x);
        }),
        (None, Row::Peer(Op::Square)) => Box::new(move |n| {
            for _ in 0..n {
                x = x.square();
            }
            black_box(x);
        }),
        (None, Row::Peer(Op::Invert)) => Box::new(move |n| {
            for _ in 0..n {
                // Nonzero (checked), so is every inverse.
                x = x.invert().unwrap_or(F::ZERO);
            }
            black_box(x);
        }),
        (None, Row::Peer(Op::Sqrt)) => Box::new(move |n| {
            for _ in 0..n {
                x = x.sqrt();
            }
            black_box(x);
        }),
        (None, Row::HalfTrace) => Box::new(move |n| {
            for _ in 0..n {
                x = x.half_trace();
            }
            black_box(x);
        }),
        (None, Row::Peer(Op::BatchMul)) => Box::new(move |n| {
            for _ in 0..n {
                // Lengths are equal: cannot fail.
                let _ = F::mul_slices(&mut c, black_box(&a), &b);
                black_box(&c);
            }
        }),
        (None, Row::BatchSquare) => Box::new(move |n| {
            for _ in 0..n {
                let _ = F::square_slices(&mut c, black_box(&a));
                black_box(&c);
            }
        }),
        (Some(k), Row::Peer(Op::Mul)) => Box::new(move |n| {
            x = black_box(chain(k, Step::Mul, x, y, n));
        }),
        (Some(k), Row::Peer(Op::Square)) => Box::new(move |n| {
            x = black_box(chain(k, Step::Square, x, y, n));
        }),
        (Some(k), Row::Peer(Op::Invert)) => Box::new(move |n| {
            x = black_box(chain(k, Step::Invert, x, y, n));
        }),
        (Some(k), Row::Peer(Op::Sqrt)) => Box::new(move |n| {
            x = black_box(chain(k, Step::Sqrt, x, y, n));
        }),
        (Some(k), Row::HalfTrace) => Box::new(move |n| {
            x = black_box(chain(k, Step::HalfTrace, x, y, n));
        }),
        (Some(k), Row::Peer(Op::BatchMul)) => Box::new(move |n| {
            for _ in 0..n {
                let _ = k.mul_slices(&mut c, black_box(&a), &b);
                black_box(&c);
            }
        }),
        (Some(k), Row::BatchSquare) => Box::new(move |n| {
            for _ in 0..n {
                let _ = k.square_slices(&mut c, black_box(&a));
                black_box(&c);
            }
        }),
    };
    Ok(Impl {
        name,
        ours: true,
        routine,
    })
}
