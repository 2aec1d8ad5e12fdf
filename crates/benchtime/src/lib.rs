//! Timing shared by `fieldwork speed` and `peer-bench`: the time-stamp
//! counter, an estimate of the core clock, interleaved sampling with medians,
//! and plain-text / Markdown / JSON tables.
//!
//! # What the numbers mean
//!
//! - **ticks** are time-stamp-counter ticks (`rdtsc`). The TSC runs at a fixed
//!   rate ([`Clock::tsc_ghz`], calibrated here against the OS monotonic clock)
//!   whatever the core's current frequency.
//! - **cycles** are an *estimate* of core clock cycles: ticks × core GHz ÷ TSC
//!   GHz, where the core frequency is measured by timing a chain of dependent
//!   register `add` and of `imul` instructions ([`Clock::core_ghz`]). There are no hardware
//!   performance counters on the machines this project runs on, so this is the
//!   best estimate available; it assumes the core runs at the same frequency
//!   during the benchmark as during the calibration.
//!
//! # Sampling
//!
//! [`Sampler::run`] takes several implementations of the same operation and
//! runs them *interleaved* — A B C A B C … with the starting implementation
//! rotated each round — so that frequency changes and background noise hit
//! them alike. Each sample runs an implementation enough times to last at
//! least [`Sampler::min_sample_ticks`]; the result is the median per-call time
//! with the interquartile range as a noise indication.
//!
//! # Warm-up
//!
//! Each timed sample is preceded by an untimed run of the same routine (a
//! quarter of its batch, at least one call), and the batch size is chosen
//! after one untimed call. Without this, a sample found the core as the
//! *previous* implementation left it, and with the rotation above that is
//! nearly always the same neighbour: on the Xeon (family 6, model 207) this
//! project is measured on, 512-bit instructions that follow a few
//! microseconds without any run throttled for roughly the first microsecond
//! (measured 2026-11-21, `rdtsc` around single calls after a spin: a 16 KiB
//! AES-GCM encryption on zmm 2 222 ticks warm, 5 458 as the first call).
//! A routine listed after a scalar or 128-bit peer paid that once per
//! sample and the same routine listed after a 512-bit one did not: in one
//! `peer-bench --filter kummer` run, the same IFMA code read 24 606 ticks in
//! one column and 23 070 in the next. With the warm-up both read 23 012 and
//! 22 998, and every implementation is timed in the state its own code
//! keeps the core in (steady state). What a cold first call costs is a
//! separate question that these medians do not answer.
#![deny(unsafe_op_in_unsafe_fn)]

use std::fmt::Write as _;
use std::time::Instant;

/// Reads the time-stamp counter (or nanoseconds since an arbitrary start on
/// CPUs without one).
#[inline]
pub fn ticks() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: `rdtsc` is available on every x86-64 CPU; it reads a counter
        // and has no memory effects.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<Instant> = OnceLock::new();
        START.get_or_init(Instant::now).elapsed().as_nanos() as u64
    }
}

/// The time-stamp counter's rate and an estimate of the core clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Time-stamp-counter ticks per nanosecond.
    pub tsc_ghz: f64,
    /// Estimated core clock in GHz (see the crate docs), if it could be measured.
    pub core_ghz: Option<f64>,
}

impl Clock {
    /// Calibrates the TSC against the monotonic clock (about 0.2 s) and
    /// estimates the core frequency.
    pub fn calibrate() -> Clock {
        let tsc_ghz = calibrate_tsc();
        let core_ghz = estimate_core_ghz(tsc_ghz);
        Clock { tsc_ghz, core_ghz }
    }

    /// Ticks to nanoseconds.
    pub fn ns(&self, ticks: f64) -> f64 {
        ticks / self.tsc_ghz
    }

    /// Ticks to estimated core cycles (ticks if the core clock is unknown).
    pub fn cycles(&self, ticks: f64) -> f64 {
        match self.core_ghz {
            Some(c) => ticks * c / self.tsc_ghz,
            None => ticks,
        }
    }

    /// One line describing the clock, for report headers.
    pub fn describe(&self) -> String {
        match self.core_ghz {
            Some(c) => format!(
                "TSC {:.3} GHz; core ≈ {:.2} GHz (estimated from dependent add/imul chains; cycles = ticks × {:.3})",
                self.tsc_ghz,
                c,
                c / self.tsc_ghz
            ),
            None => format!(
                "TSC {:.3} GHz; core clock unknown (cycles shown are ticks)",
                self.tsc_ghz
            ),
        }
    }
}

fn calibrate_tsc() -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        let mut rates = Vec::new();
        for _ in 0..5 {
            let t0 = Instant::now();
            let c0 = ticks();
            while t0.elapsed() < std::time::Duration::from_millis(40) {
                std::hint::spin_loop();
            }
            let c1 = ticks();
            let dt = t0.elapsed();
            rates.push((c1 - c0) as f64 / dt.as_nanos() as f64);
        }
        median(&mut rates)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        1.0
    }
}

/// Estimates the core clock from two dependency chains timed with the TSC:
/// `20·n` register-register `add`s (latency 1) and `20·n` `imul`s (latency 3
/// on every x86-64 core of the last decade, per Agner Fog's tables), run
/// alternately; the median of each gives cycles per tick. Add-*immediate*
/// chains are not used: Intel's Golden Cove and later cores fold them at
/// register rename (zero latency), which gave a 17 GHz "clock" here. If the
/// two estimates disagree by more than 5 % the clock is reported unknown.
fn estimate_core_ghz(tsc_ghz: f64) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        const ITERS: u64 = 500_000;
        let time = |f: fn(u64)| {
            let t0 = ticks();
            f(ITERS);
            ticks().saturating_sub(t0).max(1) as f64
        };
        // Interleaved runs, medians: the clock of a virtual machine wanders.
        let (mut adds, mut imuls) = (Vec::new(), Vec::new());
        for _ in 0..15 {
            adds.push(20.0 * ITERS as f64 / time(add_chain) * tsc_ghz);
            imuls.push(60.0 * ITERS as f64 / time(imul_chain) * tsc_ghz);
        }
        let (by_add, by_imul) = (median(&mut adds), median(&mut imuls));
        ((by_add - by_imul).abs() <= 0.05 * by_imul).then_some((by_add + by_imul) / 2.0)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = tsc_ghz;
        None
    }
}

#[cfg(target_arch = "x86_64")]
fn add_chain(n: u64) {
    // SAFETY: register-only arithmetic and a loop on `n`; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 20",
            "add {x}, {y}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) 0u64 => _,
            y = in(reg) 3u64,
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

#[cfg(target_arch = "x86_64")]
fn imul_chain(n: u64) {
    // SAFETY: register-only arithmetic and a loop on `n`; no memory, no stack.
    unsafe {
        core::arch::asm!(
            "2:",
            ".rept 20",
            "imul {x}, {x}",
            ".endr",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) 3u64 => _,
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
}

/// The CPU's model name (from `/proc/cpuinfo` on Linux), or `unknown CPU`.
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string())
}

/// Today's date in UTC as `YYYY-MM-DD`.
pub fn today_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian date (H. Hinnant's
/// `civil_from_days` algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The median of `v` (sorted in place); NaN for an empty slice.
pub fn median(v: &mut [f64]) -> f64 {
    quantile(v, 0.5)
}

/// The `q`-quantile of `v` (sorted in place), by linear interpolation.
pub fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

/// The per-call timing of one implementation.
#[derive(Clone, Copy, Debug)]
pub struct Timing {
    /// Median ticks per call.
    pub median: f64,
    /// First quartile of ticks per call.
    pub q1: f64,
    /// Third quartile of ticks per call.
    pub q3: f64,
    /// Number of samples taken.
    pub samples: usize,
    /// Calls per sample.
    pub iters: u64,
}

impl Timing {
    /// The interquartile range relative to the median (a noise indication).
    pub fn spread(&self) -> f64 {
        (self.q3 - self.q1) / self.median
    }
}

/// An implementation under test: called with `n`, it performs the operation
/// `n` times (chaining results where the caller wants latency).
pub type Routine<'a> = Box<dyn FnMut(u64) + 'a>;

/// How long to sample.
#[derive(Clone, Copy, Debug)]
pub struct Sampler {
    /// A sample lasts at least this many ticks (calls are batched to reach it).
    pub min_sample_ticks: u64,
    /// Total ticks to spend on one comparison (all implementations).
    pub budget_ticks: u64,
    /// At least this many samples per implementation.
    pub min_samples: usize,
    /// At most this many samples per implementation.
    pub max_samples: usize,
}

impl Sampler {
    /// Defaults for a clock: samples of ≥ 20 µs, ≈ 0.4 s per comparison,
    /// 21 to 401 samples.
    pub fn new(clock: &Clock) -> Sampler {
        Sampler {
            min_sample_ticks: (20_000.0 * clock.tsc_ghz) as u64,
            budget_ticks: (400e6 * clock.tsc_ghz) as u64,
            min_samples: 21,
            max_samples: 401,
        }
    }

    /// A quicker, noisier sampler (about a tenth of the time).
    pub fn quick(clock: &Clock) -> Sampler {
        Sampler {
            budget_ticks: (40e6 * clock.tsc_ghz) as u64,
            min_samples: 11,
            ..Sampler::new(clock)
        }
    }

    /// Runs the implementations interleaved and returns one timing each, in
    /// the order given.
    pub fn run(&self, routines: &mut [Routine<'_>]) -> Vec<Timing> {
        let k = routines.len();
        if k == 0 {
            return Vec::new();
        }
        // Batch size per implementation: double until a batch is long enough
        // (this also warms caches and branch predictors).
        let iters: Vec<u64> = routines
            .iter_mut()
            .map(|r| {
                // One untimed call first: a first call that pays for page
                // faults or cold caches must not set the batch size.
                r(1);
                let mut n = 1u64;
                loop {
                    let t0 = ticks();
                    r(n);
                    let dt = ticks().saturating_sub(t0);
                    if dt >= self.min_sample_ticks || n >= 1 << 40 {
                        break n;
                    }
                    // Jump close to the target, at most ×16 at a time.
                    let factor = (self.min_sample_ticks as f64 / dt.max(1) as f64).clamp(2.0, 16.0);
                    n = ((n as f64) * factor).ceil() as u64;
                }
            })
            .collect();
        // Estimate a round's cost from one round, then choose the count.
        let mut per_call: Vec<Vec<f64>> = vec![Vec::new(); k];
        let mut round = |start: usize, per_call: &mut Vec<Vec<f64>>| -> u64 {
            let mut total = 0;
            for j in 0..k {
                let i = (start + j) % k;
                // Untimed calls first (a quarter of the batch, at least one),
                // so that the sample finds the core as its own routine leaves
                // it, not as the previous one did (crate docs, "Warm-up").
                let w0 = ticks();
                routines[i](iters[i].div_ceil(4));
                let t0 = ticks();
                routines[i](iters[i]);
                let t1 = ticks();
                let dt = t1.saturating_sub(t0);
                total += t1.saturating_sub(w0);
                per_call[i].push(dt as f64 / iters[i] as f64);
            }
            total
        };
        let first = round(0, &mut per_call).max(1);
        // Calls so long that `min_samples` rounds would take over four
        // budgets get 5 samples: enough for a median, bounded in time.
        let rounds = if first.saturating_mul(self.min_samples as u64) > 4 * self.budget_ticks {
            5
        } else {
            ((self.budget_ticks / first) as usize).clamp(self.min_samples, self.max_samples)
        };
        for r in 1..rounds {
            round(r % k, &mut per_call);
        }
        per_call
            .into_iter()
            .zip(iters)
            .map(|(mut v, iters)| Timing {
                median: median(&mut v),
                q1: quantile(&mut v, 0.25),
                q3: quantile(&mut v, 0.75),
                samples: v.len(),
                iters,
            })
            .collect()
    }
}

/// A value in a JSON report.
#[derive(Clone, Debug)]
pub enum Json {
    /// A string.
    Str(String),
    /// A number (NaN and infinities are written as `null`).
    Num(f64),
    /// An integer.
    Int(u64),
    /// A boolean.
    Bool(bool),
    /// `null`.
    Null,
    /// An array.
    Arr(Vec<Json>),
    /// An object, fields in order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Serialises with two-space indentation.
    pub fn render(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s.push('\n');
        s
    }

    fn write(&self, out: &mut String, depth: usize) {
        let pad = |out: &mut String, d: usize| out.extend(std::iter::repeat_n("  ", d));
        match self {
            Json::Str(s) => write_json_str(out, s),
            Json::Num(x) if x.is_finite() => {
                let _ = write!(out, "{x}");
            }
            Json::Num(_) | Json::Null => out.push_str("null"),
            Json::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Json::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    pad(out, depth + 1);
                    item.write(out, depth + 1);
                }
                if !items.is_empty() {
                    out.push('\n');
                    pad(out, depth);
                }
                out.push(']');
            }
            Json::Obj(fields) => {
                out.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    out.push_str(if i == 0 { "\n" } else { ",\n" });
                    pad(out, depth + 1);
                    write_json_str(out, k);
                    out.push_str(": ");
                    v.write(out, depth + 1);
                }
                if !fields.is_empty() {
                    out.push('\n');
                    pad(out, depth);
                }
                out.push('}');
            }
        }
    }
}

fn write_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A table of strings, rendered as aligned text or as Markdown.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Column headers.
    pub headers: Vec<String>,
    /// Rows, each as long as `headers`.
    pub rows: Vec<Vec<String>>,
    /// Columns to right-align (numbers).
    pub right: Vec<bool>,
}

impl Table {
    /// A table with these headers; `right[i]` right-aligns column `i`.
    pub fn new(headers: &[(&str, bool)]) -> Table {
        Table {
            headers: headers.iter().map(|h| h.0.to_string()).collect(),
            rows: Vec::new(),
            right: headers.iter().map(|h| h.1).collect(),
        }
    }

    /// Appends a row.
    pub fn push(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    fn widths(&self) -> Vec<usize> {
        let mut w: Vec<usize> = self.headers.iter().map(|h| h.chars().count()).collect();
        for r in &self.rows {
            for (i, c) in r.iter().enumerate() {
                w[i] = w[i].max(c.chars().count());
            }
        }
        w
    }

    fn line(&self, cells: &[String], w: &[usize], sep: &str, edge: bool) -> String {
        let mut s = String::new();
        if edge {
            s.push_str("| ");
        }
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                s.push_str(sep);
            }
            let n = c.chars().count();
            let fill = " ".repeat(w[i].saturating_sub(n));
            if self.right[i] {
                s.push_str(&fill);
                s.push_str(c);
            } else {
                s.push_str(c);
                s.push_str(&fill);
            }
        }
        if edge {
            s.push_str(" |");
        }
        s.trim_end().to_string()
    }

    /// Aligned plain text.
    pub fn render_text(&self) -> String {
        let w = self.widths();
        let mut out = self.line(&self.headers, &w, "  ", false);
        out.push('\n');
        let total: usize = w.iter().sum::<usize>() + 2 * (w.len().saturating_sub(1));
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            out.push_str(&self.line(r, &w, "  ", false));
            out.push('\n');
        }
        out
    }

    /// A Markdown table.
    pub fn render_markdown(&self) -> String {
        let w = self.widths();
        let mut out = self.line(&self.headers, &w, " | ", true);
        out.push('\n');
        let rule: Vec<String> = w
            .iter()
            .zip(&self.right)
            .map(|(&n, &r)| {
                let n = n.max(3);
                if r {
                    format!("{}:", "-".repeat(n - 1))
                } else {
                    "-".repeat(n)
                }
            })
            .collect();
        out.push_str(&format!("| {} |\n", rule.join(" | ")));
        for r in &self.rows {
            out.push_str(&self.line(r, &w, " | ", true));
            out.push('\n');
        }
        out
    }
}

/// Formats a number with three significant digits (or more for large values),
/// with thin grouping of thousands: `0.123`, `12.3`, `1 234`, `12.3 M`.
pub fn fmt_num(x: f64) -> String {
    if !x.is_finite() {
        return "–".to_string();
    }
    let a = x.abs();
    if a >= 1e7 {
        format!("{:.2} M", x / 1e6)
    } else if a >= 1000.0 {
        let n = x.round() as i64;
        let s = n.abs().to_string();
        let mut g = String::new();
        for (i, ch) in s.chars().enumerate() {
            if i > 0 && (s.len() - i).is_multiple_of(3) {
                g.push(' ');
            }
            g.push(ch);
        }
        if n < 0 { format!("-{g}") } else { g }
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// Formats a duration given in nanoseconds with a unit: `3.21 ns`, `4.5 µs`.
pub fn fmt_time_ns(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{} s", fmt_num(ns / 1e9))
    } else if ns >= 1e6 {
        format!("{} ms", fmt_num(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", fmt_num(ns / 1e3))
    } else {
        format!("{} ns", fmt_num(ns))
    }
}

/// Formats a throughput in bytes per second: `1.23 GB/s`.
pub fn fmt_throughput(bytes_per_s: f64) -> String {
    if bytes_per_s >= 1e9 {
        format!("{} GB/s", fmt_num(bytes_per_s / 1e9))
    } else if bytes_per_s >= 1e6 {
        format!("{} MB/s", fmt_num(bytes_per_s / 1e6))
    } else {
        format!("{} kB/s", fmt_num(bytes_per_s / 1e3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_778), (2026, 11, 21));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
    }

    #[test]
    fn quantiles() {
        let mut v = vec![5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(median(&mut v), 3.0);
        assert_eq!(quantile(&mut v, 0.25), 2.0);
        let mut w = vec![1.0, 2.0];
        assert_eq!(median(&mut w), 1.5);
        assert!(median(&mut []).is_nan());
    }

    #[test]
    fn json_escapes_and_nests() {
        let j = Json::Obj(vec![
            ("a\"b".into(), Json::Str("x\ny".into())),
            ("n".into(), Json::Num(f64::NAN)),
            ("v".into(), Json::Arr(vec![Json::Int(1), Json::Bool(true)])),
        ]);
        let s = j.render();
        assert!(s.contains(r#""a\"b": "x\ny""#), "{s}");
        assert!(s.contains(r#""n": null"#));
        assert!(s.contains("1,\n"));
    }

    #[test]
    fn numbers() {
        assert_eq!(fmt_num(1234567.0), "1 234 567");
        assert_eq!(fmt_num(12.345), "12.3");
        assert_eq!(fmt_num(0.1234), "0.123");
        assert_eq!(fmt_num(39.2e6), "39.20 M");
        assert_eq!(fmt_time_ns(1500.0), "1.50 µs");
    }

    #[test]
    fn markdown_table() {
        let mut t = Table::new(&[("name", false), ("x", true)]);
        t.push(vec!["a".into(), "1".into()]);
        let md = t.render_markdown();
        assert!(
            md.starts_with("| name | x |\n| ---- | --: |\n| a    | 1 |"),
            "{md}"
        );
    }

    #[test]
    fn sampler_measures_something() {
        let clock = Clock {
            tsc_ghz: 1.0,
            core_ghz: None,
        };
        let s = Sampler {
            min_sample_ticks: 1000,
            budget_ticks: 1_000_000,
            min_samples: 5,
            max_samples: 9,
        };
        let mut acc = 0u64;
        let mut slow = 0u64;
        let mut routines: Vec<Routine> = vec![
            Box::new(|n| {
                for i in 0..n {
                    acc = std::hint::black_box(acc.wrapping_add(i));
                }
            }),
            Box::new(|n| {
                for i in 0..n * 50 {
                    slow = std::hint::black_box(slow.wrapping_mul(3).wrapping_add(i));
                }
            }),
        ];
        let t = s.run(&mut routines);
        assert_eq!(t.len(), 2);
        assert!(t.iter().all(|t| t.samples >= 5 && t.samples <= 9));
        // Fifty times the work per call must show as a slower call.
        assert!(t[1].median > t[0].median, "{t:?}");
        let _ = clock.describe();
    }

    #[test]
    fn every_sample_follows_its_own_warm_up() {
        use std::cell::RefCell;
        let s = Sampler {
            min_sample_ticks: 2000,
            budget_ticks: 200_000,
            min_samples: 7,
            max_samples: 7,
        };
        // Each routine logs (routine, n) for every call it gets.
        let log = RefCell::new(Vec::new());
        let work = |n: u64| {
            let mut x = 0u64;
            for i in 0..n * 20 {
                x = std::hint::black_box(x.wrapping_mul(5).wrapping_add(i));
            }
        };
        let mut routines: Vec<Routine> = (0..3)
            .map(|id| {
                let log = &log;
                Box::new(move |n| {
                    log.borrow_mut().push((id, n));
                    work(n);
                }) as Routine
            })
            .collect();
        let t = s.run(&mut routines);
        drop(routines);
        let log = log.into_inner();
        // Sizing: routine by routine, an untimed single call, then batches.
        // After sizing, calls come in (warm-up, sample) pairs of one
        // routine, the warm-up a quarter of the batch (at least one call).
        let sized = t.iter().map(|t| t.iters).collect::<Vec<_>>();
        // The sampling is the last 2·3·7 calls: searching for the first
        // call of routine 2's batch size would stop inside its sizing when
        // that size is 1 (a loaded machine), as an untimed call of 1 comes
        // first there.
        assert!(log.len() > 2 * 3 * 7, "{log:?}");
        let (sizing, sampling) = log.split_at(log.len() - 2 * 3 * 7);
        assert_eq!(sizing.last(), Some(&(2, sized[2])), "{sizing:?}");
        assert!(sizing.windows(2).all(|w| w[0].0 <= w[1].0), "{sizing:?}");
        for pair in sampling.chunks_exact(2) {
            let (id, warm) = pair[0];
            assert_eq!(pair[1], (id, sized[id]), "{pair:?}");
            assert_eq!(warm, sized[id].div_ceil(4), "{pair:?}");
        }
        assert!(log.starts_with(&[(0, 1), (0, 1)]), "{:?}", &log[..4]);
    }
}
