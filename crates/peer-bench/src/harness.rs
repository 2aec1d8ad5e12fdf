//! The comparison harness: cases, interleaved timing, ratios, and output as
//! text, Markdown and JSON.

use benchtime::{Clock, Json, Routine, Sampler, Table, Timing, fmt_num};

/// One implementation of a case's operation.
pub struct Impl {
    /// Shown in tables: `fieldwork (pclmulqdq)`, `gf2x 1.3 native`, …
    pub name: String,
    /// Whether this is fieldwork's code. The first `ours` implementation of a
    /// case is the reference for its ratios.
    pub ours: bool,
    /// Performs the operation `n` times.
    pub routine: Routine<'static>,
}

/// One operation at one size, with every implementation of it.
pub struct Case {
    /// The operation, e.g. `clmul64`; `--filter` matches it.
    pub group: &'static str,
    /// The size, e.g. `64×64 bit`, `1024 words`.
    pub size: String,
    /// Bytes of input per call, for cycles/byte; `None` for per-call figures.
    pub bytes: Option<u64>,
    /// The implementations, ours first.
    pub impls: Vec<Impl>,
    /// Takes minutes: run only with `--heavy`.
    pub heavy: bool,
    /// If set, each implementation also gets a derived row with this size
    /// label: calls per second on one core, `1 / median time per call`
    /// (meaningful when the routine makes independent calls).
    pub per_second: Option<&'static str>,
}

/// The measured result of one implementation of a case.
pub struct Measured {
    /// Case group.
    pub group: &'static str,
    /// Case size.
    pub size: String,
    /// Bytes per call, if meaningful.
    pub bytes: Option<u64>,
    /// Implementation name.
    pub name: String,
    /// Ours or a peer.
    pub ours: bool,
    /// The timing.
    pub timing: Timing,
    /// This implementation's median ÷ our reference median (> 1: ours faster).
    /// For a calls-per-second row this is also our rate ÷ this one's.
    pub ratio: f64,
    /// A derived row: calls per second on one core, `1 / median`.
    pub per_second: bool,
}

/// Times every implementation of a case, interleaved.
pub fn measure(case: &mut Case, sampler: &Sampler) -> Vec<Measured> {
    let mut routines: Vec<Routine<'static>> = case
        .impls
        .iter_mut()
        .map(|i| std::mem::replace(&mut i.routine, Box::new(|_| {})))
        .collect();
    let timings = sampler.run(&mut routines);
    for (i, r) in case.impls.iter_mut().zip(routines) {
        i.routine = r;
    }
    let mut out: Vec<Measured> = case
        .impls
        .iter()
        .zip(timings)
        .map(|(i, t)| Measured {
            group: case.group,
            size: case.size.clone(),
            bytes: case.bytes,
            name: i.name.clone(),
            ours: i.ours,
            timing: t,
            ratio: f64::NAN,
            per_second: false,
        })
        .collect();
    set_ratios(&mut out);
    if let Some(label) = case.per_second {
        let derived: Vec<Measured> = out
            .iter()
            .map(|m| Measured {
                group: m.group,
                size: label.to_string(),
                bytes: None,
                name: m.name.clone(),
                ours: m.ours,
                timing: m.timing,
                ratio: m.ratio,
                per_second: true,
            })
            .collect();
        out.extend(derived);
    }
    out
}

/// One case's rows from several passes of [`measure`] merged: each row
/// (implementation, and derived calls-per-second row) keeps its fastest
/// median, and the ratios are recomputed against the merged reference.
/// One pass is returned as it is.
pub fn fastest(runs: Vec<Vec<Measured>>) -> Vec<Measured> {
    let mut runs = runs.into_iter();
    let Some(mut best) = runs.next() else {
        return Vec::new();
    };
    for run in runs {
        for (b, m) in best.iter_mut().zip(run) {
            if m.timing.median < b.timing.median {
                *b = m;
            }
        }
    }
    set_ratios(&mut best);
    best
}

/// Each row's ratio: its median ÷ the median of the case's first `ours`
/// implementation (NaN without one).
fn set_ratios(rows: &mut [Measured]) {
    let reference = rows
        .iter()
        .find(|m| m.ours && !m.per_second)
        .map_or(f64::NAN, |m| m.timing.median);
    for m in rows {
        m.ratio = m.timing.median / reference;
    }
}

/// Calls per second on one core: one over the median time per call.
fn calls_per_second(clock: &Clock, m: &Measured) -> f64 {
    1e9 / clock.ns(m.timing.median)
}

/// The figure of a Markdown cell: estimated core cycles per call, or for a
/// case with a byte count, cycles per byte and then cycles per call
/// (`0.183 · 3 001`), so that a row of short messages shows its fixed cost
/// and a row of long ones its throughput.
fn figure(clock: &Clock, m: &Measured) -> String {
    let c = clock.cycles(m.timing.median);
    match m.bytes {
        Some(b) => format!("{} · {}", fmt_num(c / b as f64), fmt_num(c)),
        None => fmt_num(c),
    }
}

/// The full results as aligned text. A `calls/s (1 core)` column appears
/// when some row is a calls-per-second row; such a row shows the median it
/// is derived from and its rate, not the ticks and cycles again.
pub fn text_table(clock: &Clock, results: &[Measured]) -> String {
    let rates = results.iter().any(|m| m.per_second);
    let mut headers = vec![
        ("operation", false),
        ("size", false),
        ("implementation", false),
        ("median", true),
        ("ticks", true),
        ("cycles (est.)", true),
        ("cycles/byte", true),
    ];
    if rates {
        headers.push(("calls/s (1 core)", true));
    }
    headers.extend([("IQR", true), ("÷ ours", true)]);
    let mut t = Table::new(&headers);
    for m in results {
        let cycles = clock.cycles(m.timing.median);
        let mut row = vec![
            m.group.to_string(),
            m.size.clone(),
            m.name.clone(),
            benchtime::fmt_time_ns(clock.ns(m.timing.median)),
        ];
        if m.per_second {
            row.extend(["–".to_string(), "–".to_string(), "–".to_string()]);
        } else {
            row.extend([
                fmt_num(m.timing.median),
                fmt_num(cycles),
                m.bytes.map_or("–".into(), |b| fmt_num(cycles / b as f64)),
            ]);
        }
        if rates {
            row.push(if m.per_second {
                fmt_num(calls_per_second(clock, m))
            } else {
                "–".to_string()
            });
        }
        row.extend([
            format!("{:.0}%", 100.0 * m.timing.spread()),
            format!("{:.2}×", m.ratio),
        ]);
        t.push(row);
    }
    t.render_text()
}

/// One Markdown table per group: a row per size, a column per
/// implementation with its figure and ratio — the tables of the benchmark
/// pages (`--out`, `--out-dir`). A group whose cases have a byte count
/// shows cycles/byte · cycles/call in each cell; the others cycles/call
/// alone.
pub fn markdown(clock: &Clock, results: &[Measured]) -> String {
    let mut out = String::new();
    let mut groups: Vec<&'static str> = results.iter().map(|m| m.group).collect();
    groups.dedup();
    for g in groups {
        let rows: Vec<&Measured> = results.iter().filter(|m| m.group == g).collect();
        let mut names: Vec<&str> = Vec::new();
        for m in &rows {
            if !names.contains(&m.name.as_str()) {
                names.push(&m.name);
            }
        }
        let unit = if rows.iter().any(|m| m.bytes.is_some()) {
            "cycles/byte · cycles/call"
        } else {
            "cycles/call"
        };
        let rate_note = if rows.iter().any(|m| m.per_second) {
            "; the per-second row is calls per second on one core, 1 ÷ the median time per call"
        } else {
            ""
        };
        out.push_str(&format!(
            "**{g}** — {unit} (estimated core cycles; ratio = time ÷ ours, > 1 means fieldwork is faster{rate_note})\n\n"
        ));
        let mut headers: Vec<(&str, bool)> = vec![("size", false)];
        headers.extend(names.iter().map(|n| (*n, true)));
        let mut t = Table::new(&headers);
        let mut sizes: Vec<&str> = rows.iter().map(|m| m.size.as_str()).collect();
        sizes.dedup();
        for s in sizes {
            let mut row = vec![s.to_string()];
            for n in &names {
                let cell = rows.iter().find(|m| m.size == s && m.name == *n).map_or(
                    "–".to_string(),
                    |m| {
                        let value = if m.per_second {
                            format!("{}/s", fmt_num(calls_per_second(clock, m)))
                        } else {
                            figure(clock, m)
                        };
                        if m.ours && (m.ratio - 1.0).abs() < 1e-12 {
                            value
                        } else {
                            format!("{value} ({:.2}×)", m.ratio)
                        }
                    },
                );
                row.push(cell);
            }
            t.push(row);
        }
        out.push_str(&t.render_markdown());
        out.push('\n');
    }
    out
}

/// One implementation's cost split in two, from its medians at two message
/// lengths of one group: the marginal rate is the slope between them and the
/// fixed cost the intercept, `cost(n) ≈ fixed + rate · n`.
pub struct Marginal {
    /// The group, e.g. `poly1305`.
    pub group: &'static str,
    /// Implementation name.
    pub name: String,
    /// Ours or a peer.
    pub ours: bool,
    /// The shorter and longer lengths in bytes.
    pub lengths: (u64, u64),
    /// Estimated cycles per call at the longer length.
    pub long_cycles: f64,
    /// Cycles per byte between the two lengths: `(c(long) − c(short)) /
    /// (long − short)`.
    pub cycles_per_byte: f64,
    /// Cycles per call left at length 0: `c(short) − rate · short`.
    pub fixed_cycles: f64,
    /// This marginal rate ÷ our reference's (> 1: ours is faster per byte).
    pub ratio: f64,
}

/// The marginal rate and fixed cost of each implementation of `group`
/// measured at both `short` and `long` bytes (in the order of `results`);
/// empty when either row was not run. The reference for the ratios is the
/// first `ours` implementation.
pub fn marginals(
    clock: &Clock,
    results: &[Measured],
    group: &'static str,
    short: u64,
    long: u64,
) -> Vec<Marginal> {
    let at = |name: &str, bytes: u64| {
        results
            .iter()
            .find(|m| m.group == group && !m.per_second && m.bytes == Some(bytes) && m.name == name)
            .map(|m| clock.cycles(m.timing.median))
    };
    let mut out: Vec<Marginal> = Vec::new();
    for m in results
        .iter()
        .filter(|m| m.group == group && m.bytes == Some(long) && !m.per_second)
    {
        let (Some(c_short), Some(c_long)) = (at(&m.name, short), at(&m.name, long)) else {
            continue;
        };
        let rate = (c_long - c_short) / (long - short) as f64;
        out.push(Marginal {
            group,
            name: m.name.clone(),
            ours: m.ours,
            lengths: (short, long),
            long_cycles: c_long,
            cycles_per_byte: rate,
            fixed_cycles: c_short - rate * short as f64,
            ratio: f64::NAN,
        });
    }
    let reference = out
        .iter()
        .find(|m| m.ours)
        .map_or(f64::NAN, |m| m.cycles_per_byte);
    for m in &mut out {
        m.ratio = m.cycles_per_byte / reference;
    }
    out
}

/// The marginal table of one group as Markdown (empty for no rows): a row
/// per implementation with its fixed cost, its marginal rate and the
/// ratio of rates, then a line comparing the best peer's marginal rate
/// with our reference's whole cost per byte at the longer length.
pub fn marginal_markdown(marginals: &[Marginal]) -> String {
    let Some(first) = marginals.first() else {
        return String::new();
    };
    let (short, long) = first.lengths;
    let mut out = format!(
        "**{} marginal** — from the {short} B and {long} B medians: cycles per call = \
         fixed + rate × bytes (estimated core cycles; ratio = rate ÷ ours, > 1 means \
         fieldwork is faster per byte)\n\n",
        first.group
    );
    let mut t = Table::new(&[
        ("implementation", false),
        ("fixed (cycles/call)", true),
        ("marginal (cycles/byte)", true),
        (&format!("{long} B (cycles/byte)"), true),
        ("marginal ÷ ours", true),
    ]);
    for m in marginals {
        t.push(vec![
            m.name.clone(),
            fmt_num(m.fixed_cycles),
            fmt_num(m.cycles_per_byte),
            fmt_num(m.long_cycles / long as f64),
            format!("{:.2}×", m.ratio),
        ]);
    }
    out.push_str(&t.render_markdown());
    out.push('\n');
    if let Some(line) = best_peer_line(marginals) {
        out.push_str(&line);
        out.push_str("\n\n");
    }
    out
}

/// "Best peer …: its marginal rate ÷ ours at the longer length": the
/// issue's form of the target, fieldwork's whole cost per byte at the longer
/// length against the best peer's marginal rate.
fn best_peer_line(marginals: &[Marginal]) -> Option<String> {
    let ours = marginals.iter().find(|m| m.ours)?;
    let best = marginals
        .iter()
        .filter(|m| !m.ours)
        .min_by(|a, b| a.cycles_per_byte.total_cmp(&b.cycles_per_byte))?;
    let long = ours.lengths.1;
    let ours_rate = ours.long_cycles / long as f64;
    Some(format!(
        "Best peer by marginal rate: {} at {} cycles/byte; ÷ {} at {long} B ({} cycles/byte, fixed cost included) = {:.2}×.",
        best.name,
        fmt_num(best.cycles_per_byte),
        ours.name,
        fmt_num(ours_rate),
        best.cycles_per_byte / ours_rate
    ))
}

/// The marginal table as aligned text (empty for no rows).
pub fn marginal_text(marginals: &[Marginal]) -> String {
    let Some(first) = marginals.first() else {
        return String::new();
    };
    let (short, long) = first.lengths;
    let mut t = Table::new(&[
        ("operation", false),
        ("implementation", false),
        ("fixed (cycles/call)", true),
        ("marginal (cycles/byte)", true),
        (&format!("{long} B (cycles/byte)"), true),
        ("marginal ÷ ours", true),
    ]);
    for m in marginals {
        t.push(vec![
            format!("{} marginal {short}→{long} B", m.group),
            m.name.clone(),
            fmt_num(m.fixed_cycles),
            fmt_num(m.cycles_per_byte),
            fmt_num(m.long_cycles / long as f64),
            format!("{:.2}×", m.ratio),
        ]);
    }
    let mut out = t.render_text();
    if let Some(line) = best_peer_line(marginals) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The results as a JSON document.
pub fn json(clock: &Clock, results: &[Measured], marginals: &[Marginal], level: &str) -> Json {
    let rows = results
        .iter()
        .map(|m| {
            Json::Obj(vec![
                ("operation".into(), Json::Str(m.group.into())),
                ("size".into(), Json::Str(m.size.clone())),
                ("bytes".into(), m.bytes.map_or(Json::Null, Json::Int)),
                ("implementation".into(), Json::Str(m.name.clone())),
                ("ours".into(), Json::Bool(m.ours)),
                ("median_ticks".into(), Json::Num(m.timing.median)),
                ("q1_ticks".into(), Json::Num(m.timing.q1)),
                ("q3_ticks".into(), Json::Num(m.timing.q3)),
                ("median_ns".into(), Json::Num(clock.ns(m.timing.median))),
                (
                    "cycles_estimated".into(),
                    Json::Num(clock.cycles(m.timing.median)),
                ),
                (
                    "cycles_per_byte".into(),
                    m.bytes.map_or(Json::Null, |b| {
                        Json::Num(clock.cycles(m.timing.median) / b as f64)
                    }),
                ),
                ("ratio_to_ours".into(), Json::Num(m.ratio)),
                (
                    "calls_per_second".into(),
                    if m.per_second {
                        Json::Num(calls_per_second(clock, m))
                    } else {
                        Json::Null
                    },
                ),
                ("samples".into(), Json::Int(m.timing.samples as u64)),
                ("calls_per_sample".into(), Json::Int(m.timing.iters)),
            ])
        })
        .collect();
    Json::Obj(vec![
        ("tool".into(), Json::Str("peer-bench".into())),
        ("date".into(), Json::Str(benchtime::today_utc())),
        ("cpu".into(), Json::Str(benchtime::cpu_model())),
        ("tsc_ghz".into(), Json::Num(clock.tsc_ghz)),
        (
            "core_ghz_estimated".into(),
            clock.core_ghz.map_or(Json::Null, Json::Num),
        ),
        ("isa_level".into(), Json::Str(level.into())),
        ("results".into(), Json::Arr(rows)),
        (
            "marginals".into(),
            Json::Arr(
                marginals
                    .iter()
                    .map(|m| {
                        Json::Obj(vec![
                            ("operation".into(), Json::Str(m.group.into())),
                            ("implementation".into(), Json::Str(m.name.clone())),
                            ("ours".into(), Json::Bool(m.ours)),
                            ("short_bytes".into(), Json::Int(m.lengths.0)),
                            ("long_bytes".into(), Json::Int(m.lengths.1)),
                            ("fixed_cycles".into(), Json::Num(m.fixed_cycles)),
                            (
                                "marginal_cycles_per_byte".into(),
                                Json::Num(m.cycles_per_byte),
                            ),
                            ("marginal_ratio_to_ours".into(), Json::Num(m.ratio)),
                        ])
                    })
                    .collect(),
            ),
        ),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, ours: bool, median: f64, per_second: bool) -> Measured {
        Measured {
            group: "g",
            size: "1 B".into(),
            bytes: None,
            name: name.into(),
            ours,
            timing: Timing {
                median,
                q1: median,
                q3: median,
                samples: 1,
                iters: 1,
            },
            ratio: f64::NAN,
            per_second,
        }
    }

    /// Each row keeps its fastest median across passes, whichever pass it
    /// came from, and the ratios follow the merged reference.
    #[test]
    fn fastest_keeps_each_rows_best_pass() {
        let pass1 = vec![
            row("ours", true, 100.0, false),
            row("peer", false, 300.0, false),
            row("ours", true, 100.0, true),
        ];
        let pass2 = vec![
            row("ours", true, 150.0, false),
            row("peer", false, 200.0, false),
            row("ours", true, 80.0, true),
        ];
        let merged = fastest(vec![pass1, pass2]);
        let medians: Vec<f64> = merged.iter().map(|m| m.timing.median).collect();
        assert_eq!(medians, [100.0, 200.0, 80.0]);
        let ratios: Vec<f64> = merged.iter().map(|m| m.ratio).collect();
        assert_eq!(ratios, [1.0, 2.0, 0.8]);
        assert!(fastest(Vec::new()).is_empty());
        let one = fastest(vec![vec![row("ours", true, 7.0, false)]]);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].ratio, 1.0);
    }
}
