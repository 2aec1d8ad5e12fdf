//! `--poly1305-sweep CSV_FILE`: Poly1305's cost per byte at every message
//! length from 49 to 4000 bytes, the measurement behind Bhattacharyya &
//! Sarkar's figure comparing complete decimation with Goll–Gueron's AVX2
//! form (*Improved SIMD implementation of Poly1305*, IACR ePrint 2019/842).
//!
//! Each length is one comparison of its own: every column (fieldwork's
//! Goll–Gueron AVX2 backend, its complete-decimation AVX2 backend, its
//! default (the one-shot `tag`), and the peers of the `poly1305` group) is timed
//! interleaved on the same key and message, key setup included, with a short
//! sampling budget per length ([`sampler`]), and its median converted to
//! estimated core cycles per byte. Every column is first checked against
//! fieldwork's one-shot `tag` at every swept length.
//!
//! The tool writes three files side by side: the CSV (`length_bytes` and one
//! column of cycles/byte per implementation), an SVG drawn from it by hand
//! ([`svg`]: cycles/byte on a log scale above, the speed-up of complete
//! decimation over Goll–Gueron below), and a Markdown note ([`markdown`])
//! with the command, CPU, commit, date and the speed-up per 1 KiB band
//! ([`bands`]). `--poly1305-plot CSV_FILE` redraws the SVG and prints the
//! band table from an existing CSV without measuring.
//!
//! This module holds a sweep's data and its reports only, and names no
//! group: the Poly1305 measurement is `measure_poly1305_sweep` in `main.rs`
//! (over the `poly1305` group's columns), and `groups::chachapoly::sweep`
//! builds the ChaCha20-Poly1305 sweep from the same [`Sweep`] and [`Row`].

use crate::plot::{log_ticks, xml_escape};
use benchtime::{Clock, Sampler, Table, fmt_num};
use std::fmt::Write as _;

/// The first swept length (the dissertation's figure starts here).
pub const FIRST: usize = 49;
/// The last swept length.
pub const LAST: usize = 4000;
/// The width of a band of the speed-up table, in bytes.
pub const BAND: usize = 1024;
/// The CSV's first column.
const LENGTH_HEADER: &str = "length_bytes";
/// Name fragments of the two columns the speed-up compares: complete
/// decimation over Goll–Gueron — the faithful reproduction of the
/// dissertation's §3 (`fieldwork::poly1305::goll_gueron`) when the sweep
/// has it, else fieldwork's `avx2-goll-gueron` schedule.
pub const GOLL_GUERON: &str = "avx2-goll-gueron";
pub const GOLL_GUERON_FAITHFUL: &str = "avx2-goll-gueron-faithful";
pub const DECIMATION: &str = "avx2-decimation";
/// Name fragment of fieldwork's default column.
pub const DEFAULT: &str = "fieldwork best";

/// A sweep: for each length, cycles per byte of each column.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// Implementation names, in column order.
    pub columns: Vec<String>,
    /// One row per length, in increasing order.
    pub rows: Vec<Row>,
}

impl Sweep {
    /// Keeps, for every length and column, the smaller cycles/byte of
    /// `self` and `other` (the same columns and lengths, from another pass).
    pub fn keep_fastest(&mut self, other: &Sweep) -> Result<(), String> {
        if self.columns != other.columns || self.rows.len() != other.rows.len() {
            return Err("passes of a sweep differ in columns or lengths".into());
        }
        for (a, b) in self.rows.iter().zip(&other.rows) {
            if a.length != b.length || a.cycles_per_byte.len() != b.cycles_per_byte.len() {
                return Err(format!("passes of a sweep differ at {} bytes", a.length));
            }
        }
        for (a, b) in self.rows.iter_mut().zip(&other.rows) {
            for (x, y) in a.cycles_per_byte.iter_mut().zip(&b.cycles_per_byte) {
                *x = x.min(*y);
            }
        }
        Ok(())
    }
}

/// One length of a sweep.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Message length in bytes.
    pub length: usize,
    /// Estimated core cycles per byte, one per column.
    pub cycles_per_byte: Vec<f64>,
}

/// The speed-up of complete decimation over Goll–Gueron (Goll–Gueron's
/// cycles ÷ decimation's) over the lengths of one band.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// First length of the band present in the sweep.
    pub first: usize,
    /// Last length of the band present in the sweep.
    pub last: usize,
    /// The band's bounds in bytes: lengths in `(lo, hi]` (the first band
    /// also holds its lower bound).
    pub bounds: (usize, usize),
    /// The largest speed-up and the length where it occurs.
    pub max: (f64, usize),
    /// The smallest speed-up and the length where it occurs.
    pub min: (f64, usize),
    /// The mean speed-up over the band's lengths.
    pub mean: f64,
}

/// The sampler of one length: samples of at least 5 µs, about 20 ms for
/// all columns together (2 ms with `--quick`), 11 to 301 samples per
/// column. The whole sweep then takes a minute or two.
pub fn sampler(clock: &Clock, quick: bool) -> Sampler {
    let budget_ms = if quick { 2.0 } else { 20.0 };
    Sampler {
        min_sample_ticks: (5_000.0 * clock.tsc_ghz) as u64,
        budget_ticks: (budget_ms * 1e6 * clock.tsc_ghz) as u64,
        min_samples: 11,
        max_samples: MAX_SAMPLES,
    }
}

/// The most samples per column and length.
const MAX_SAMPLES: usize = 301;

impl Sweep {
    /// The CSV text: a header line (`length_bytes`, then the column names,
    /// with any comma or quote replaced), then one line per length with
    /// cycles/byte to four decimals.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(LENGTH_HEADER);
        for c in &self.columns {
            out.push(',');
            out.push_str(&c.replace([',', '"'], ";"));
        }
        out.push('\n');
        for r in &self.rows {
            let _ = write!(out, "{}", r.length);
            for v in &r.cycles_per_byte {
                let _ = write!(out, ",{v:.4}");
            }
            out.push('\n');
        }
        out
    }

    /// Reads what [`Sweep::to_csv`] writes.
    pub fn from_csv(text: &str) -> Result<Sweep, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header = lines.next().ok_or("empty CSV")?;
        let mut names = header.split(',');
        if names.next() != Some(LENGTH_HEADER) {
            return Err(format!("the CSV's first column is not {LENGTH_HEADER}"));
        }
        let columns: Vec<String> = names.map(str::to_string).collect();
        let mut rows = Vec::new();
        for (i, line) in lines.enumerate() {
            let bad = |what: &str| format!("CSV line {}: {what}: {line}", i + 2);
            let mut fields = line.split(',');
            let length = fields
                .next()
                .and_then(|f| f.trim().parse().ok())
                .ok_or_else(|| bad("no length"))?;
            let cycles_per_byte = fields
                .map(|f| f.trim().parse::<f64>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| bad("not a number"))?;
            if cycles_per_byte.len() != columns.len() {
                return Err(bad("wrong number of fields"));
            }
            rows.push(Row {
                length,
                cycles_per_byte,
            });
        }
        if rows.windows(2).any(|w| w[0].length >= w[1].length) {
            return Err("CSV lengths are not increasing".into());
        }
        Ok(Sweep { columns, rows })
    }

    /// The index of the column whose name contains `fragment`.
    fn column(&self, fragment: &str) -> Option<usize> {
        self.columns.iter().position(|c| c.contains(fragment))
    }

    /// The Goll–Gueron column the speed-ups divide: the faithful one if
    /// present, else the first other Goll–Gueron column.
    fn baseline(&self) -> Option<usize> {
        self.column(GOLL_GUERON_FAITHFUL)
            .or_else(|| self.column(GOLL_GUERON))
    }

    /// Whether the speed-ups' baseline is the faithful Goll–Gueron.
    pub fn faithful_baseline(&self) -> bool {
        self.column(GOLL_GUERON_FAITHFUL).is_some()
    }

    /// `(length, baseline ÷ column)` at each length, or `None` without
    /// both columns.
    fn ratios(&self, base: Option<usize>, col: Option<usize>) -> Option<Vec<(usize, f64)>> {
        let (base, col) = (base?, col?);
        Some(
            self.rows
                .iter()
                .map(|r| (r.length, r.cycles_per_byte[base] / r.cycles_per_byte[col]))
                .collect(),
        )
    }

    /// `(length, Goll–Gueron ÷ decimation)` at each length, or `None`
    /// without both columns.
    pub fn speedups(&self) -> Option<Vec<(usize, f64)>> {
        self.ratios(self.baseline(), self.column(DECIMATION))
    }

    /// `(length, faithful Goll–Gueron ÷ fieldwork's default)` at each
    /// length, or `None` without both columns.
    pub fn default_speedups(&self) -> Option<Vec<(usize, f64)>> {
        self.ratios(self.column(GOLL_GUERON_FAITHFUL), self.column(DEFAULT))
    }
}

/// The band of a length: lengths in `(k·BAND, (k+1)·BAND]` form band `k`,
/// so 1024 bytes belongs to 0–1 KiB (and 0 to band 0).
fn band_of(length: usize) -> usize {
    length.saturating_sub(1) / BAND
}

/// The speed-up of complete decimation over Goll–Gueron per 1 KiB band.
pub fn bands(sweep: &Sweep) -> Result<Vec<Band>, String> {
    let speedups = sweep.speedups().ok_or_else(|| {
        format!(
            "the sweep needs both the {GOLL_GUERON} and the {DECIMATION} columns \
             (this CPU or FIELDWORK_MAX_ISA lacks AVX2?)"
        )
    })?;
    Ok(bands_of(&speedups))
}

/// Per 1 KiB band, the mean, largest and smallest of `speedups`
/// (`(length, ratio)` in increasing length).
pub fn bands_of(speedups: &[(usize, f64)]) -> Vec<Band> {
    let mut out: Vec<Band> = Vec::new();
    let mut sum = 0.0;
    let mut count = 0usize;
    for (i, &(length, s)) in speedups.iter().enumerate() {
        let k = band_of(length);
        match out.last_mut() {
            Some(b) if band_of(b.first) == k => {
                b.last = length;
                if s > b.max.0 {
                    b.max = (s, length);
                }
                if s < b.min.0 {
                    b.min = (s, length);
                }
            }
            _ => out.push(Band {
                first: length,
                last: length,
                bounds: (k * BAND, (k + 1) * BAND),
                max: (s, length),
                min: (s, length),
                mean: 0.0,
            }),
        }
        sum += s;
        count += 1;
        let band_ends = speedups
            .get(i + 1)
            .is_none_or(|&(next, _)| band_of(next) != k);
        if band_ends && let Some(b) = out.last_mut() {
            b.mean = sum / count as f64;
            sum = 0.0;
            count = 0;
        }
    }
    out
}

/// The band table in Markdown.
pub fn band_table(bands: &[Band]) -> String {
    let mut t = Table::new(&[
        ("band", false),
        ("lengths", false),
        ("mean speed-up", true),
        ("max speed-up (at length)", true),
        ("min speed-up (at length)", true),
    ]);
    for b in bands {
        t.push(vec![
            format!("{}–{} KiB", b.bounds.0 / BAND, b.bounds.1 / BAND),
            format!("{}–{} B", b.first, b.last),
            format!("{:.3}×", b.mean),
            format!("{:.3}× ({} B)", b.max.0, b.max.1),
            format!("{:.3}× ({} B)", b.min.0, b.min.1),
        ]);
    }
    t.render_markdown()
}

/// Mean cycles/byte of each column over each band, in Markdown.
pub fn column_means_table(sweep: &Sweep) -> String {
    let mut headers: Vec<(&str, bool)> = vec![("band", false)];
    headers.extend(sweep.columns.iter().map(|c| (c.as_str(), true)));
    let mut t = Table::new(&headers);
    let mut k = None;
    let mut group: Vec<&Row> = Vec::new();
    let mut flush = |k: usize, group: &mut Vec<&Row>| {
        if group.is_empty() {
            return;
        }
        let mut row = vec![format!("{}–{} KiB", k, k + 1)];
        for c in 0..sweep.columns.len() {
            let mean = group.iter().map(|r| r.cycles_per_byte[c]).sum::<f64>() / group.len() as f64;
            row.push(fmt_num(mean));
        }
        t.push(row);
        group.clear();
    };
    for r in &sweep.rows {
        let b = band_of(r.length);
        if k.is_some_and(|k| k != b) {
            flush(k.unwrap_or(0), &mut group);
        }
        k = Some(b);
        group.push(r);
    }
    if let Some(k) = k {
        flush(k, &mut group);
    }
    t.render_markdown()
}

/// Where and how a sweep was measured, for its Markdown note.
#[derive(Clone)]
pub struct NoteInfo {
    /// CPU model, with vendor, family and model when known.
    pub cpu: String,
    /// The ISA level in effect (and the cap, if any).
    pub level: String,
    /// `YYYY-MM-DD`, UTC.
    pub date: String,
    /// The commit of the source the binary was built from.
    pub commit: String,
    /// The command, as one can paste it.
    pub command: String,
    /// The clock's description, calibrated before the sweep.
    pub clock: String,
    /// The clock calibrated again after the sweep, and whether its
    /// core-clock estimate differs from the first by more than 10 % or could
    /// not be made (the cycle figures are then doubtful; the speed-ups,
    /// ratios of ticks, are not).
    pub clock_after: (String, bool),
    /// Passes over all the lengths (each column's fastest median kept).
    pub passes: u32,
    /// File names of the CSV and the SVG, relative to the note.
    pub csv: String,
    /// See `csv`.
    pub svg: String,
}

/// A sweep note's title, provenance line and the list of where, when and
/// how it was measured (with a warning when the clock drifted).
fn header(out: &mut String, info: &NoteInfo, title: &str, flag: &str) {
    let _ = writeln!(out, "# {title}: {}\n", info.cpu);
    let _ = writeln!(
        out,
        "*Generated by `peer-bench {flag}`; do not edit by hand: run the \
         command below again on this CPU instead.*\n"
    );
    let _ = writeln!(out, "- CPU: {}", info.cpu);
    let _ = writeln!(out, "- ISA level in effect: {}", info.level);
    let _ = writeln!(out, "- date: {}", info.date);
    let _ = writeln!(out, "- commit: {}", info.commit);
    let _ = writeln!(out, "- command: `{}`", info.command);
    let _ = writeln!(out, "- clock before the sweep: {}", info.clock);
    let _ = writeln!(out, "- clock after the sweep: {}", info.clock_after.0);
    if info.clock_after.1 {
        out.push_str(
            "- **the core-clock estimate after the sweep differs from the first \
             by more than 10 % or could not be made**: the cycles/byte figures \
             (ticks × the first estimate) are doubtful on this run; the \
             speed-ups, ratios of ticks at each length, are not\n",
        );
    }
}

/// Where each peer is faster than fieldwork in a sweep whose first
/// column is fieldwork's: per peer column, the lengths at which its
/// cycles/byte are below fieldwork's, the smallest ratio (peer ÷ ours, < 1:
/// the peer is faster) with its length, and the mean ratio per 512-byte
/// band, as a Markdown table.
pub fn peer_table(sweep: &Sweep) -> String {
    const HALF: usize = 512;
    let first = sweep.rows.first().map_or(0, |r| r.length);
    let last = sweep.rows.last().map_or(0, |r| r.length);
    let bands: Vec<(usize, usize)> = (first.saturating_sub(1) / HALF
        ..=last.saturating_sub(1) / HALF)
        .map(|k| (k * HALF, (k + 1) * HALF))
        .collect();
    let band_names: Vec<String> = bands
        .iter()
        .map(|(lo, hi)| format!("mean, {lo}–{hi} B"))
        .collect();
    let mut headers: Vec<(&str, bool)> = vec![
        ("peer", false),
        ("lengths where it is faster", true),
        ("faster by over 3 %", true),
        ("smallest ratio (at length)", true),
    ];
    headers.extend(band_names.iter().map(|n| (n.as_str(), true)));
    let mut t = Table::new(&headers);
    for (c, name) in sweep.columns.iter().enumerate().skip(1) {
        let ratios: Vec<(usize, f64)> = sweep
            .rows
            .iter()
            .filter_map(|r| {
                let ours = *r.cycles_per_byte.first()?;
                Some((r.length, r.cycles_per_byte.get(c)? / ours))
            })
            .collect();
        let faster = ratios.iter().filter(|(_, x)| *x < 1.0).count();
        // Single lengths' medians move by a few per cent from one sweep to
        // the next: the count past 3 % separates losses from that noise.
        let clearly = ratios.iter().filter(|(_, x)| *x < 0.97).count();
        let min = ratios
            .iter()
            .copied()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or((0, f64::NAN));
        let mut row = vec![
            name.clone(),
            format!("{faster} of {}", ratios.len()),
            format!("{clearly}"),
            format!("{:.3}× ({} B)", min.1, min.0),
        ];
        for (lo, hi) in &bands {
            let inside: Vec<f64> = ratios
                .iter()
                .filter(|(l, _)| l > lo && l <= hi)
                .map(|(_, x)| *x)
                .collect();
            row.push(if inside.is_empty() {
                "–".into()
            } else {
                format!("{:.3}×", inside.iter().sum::<f64>() / inside.len() as f64)
            });
        }
        t.push(row);
    }
    t.render_markdown()
}

/// The sentence on passes for a note (nothing for one pass).
fn passes_text(passes: u32) -> String {
    if passes > 1 {
        format!(
            " Every length was measured in each of {passes} passes over all the \
             lengths, and each column's fastest median is kept (a disturbance \
             of the machine lasting seconds spoils one pass's lengths)."
        )
    } else {
        String::new()
    }
}

/// The Markdown note of a sweep against peers (no figure): where it was
/// measured, then [`peer_table`] and each column's mean per 1 KiB band.
pub fn peer_note(info: &NoteInfo, sweep: &Sweep, what: &str, flag: &str) -> String {
    let mut out = String::new();
    let first = sweep.rows.first().map_or(0, |r| r.length);
    let last = sweep.rows.last().map_or(0, |r| r.length);
    header(
        &mut out,
        info,
        &format!("{what}, cycles/byte at {first}–{last} bytes"),
        flag,
    );
    let _ = writeln!(out, "- data: [{}]({})\n", info.csv, info.csv);
    out.push_str(
        "Each length is timed on its own: every column interleaved on the same \
         key, nonce and message, the median of up to 301 interleaved samples \
         of at least 5 µs per column (about 20 ms per length for all columns), \
         converted to estimated core cycles per byte. Single lengths are noisy \
         on a shared machine.",
    );
    out.push_str(&passes_text(info.passes));
    out.push_str(
        "\n\n## Against fieldwork\n\nRatio = the peer's \
         cycles ÷ fieldwork's at the same length (> 1: fieldwork is faster).\n\n",
    );
    out.push_str(&peer_table(sweep));
    out.push_str("\n## Mean cycles/byte per band\n\n");
    out.push_str(&column_means_table(sweep));
    out
}

/// The Markdown note of a sweep: where it was measured, the figure, the
/// band table (or why there is none) and each column's mean per band.
pub fn markdown(info: &NoteInfo, sweep: &Sweep, bands: Result<&[Band], &str>) -> String {
    let mut out = String::new();
    header(
        &mut out,
        info,
        &format!("Poly1305 cycles/byte at {FIRST}–{LAST} bytes"),
        "--poly1305-sweep",
    );
    let _ = writeln!(
        out,
        "- data: [{}]({}), figure: [{}]({})\n",
        info.csv, info.csv, info.svg, info.svg
    );
    let _ = write!(
        out,
        "Each length is timed on its own: every column interleaved on the same \
         random key and message, the whole keyed MAC per call (key setup, \
         message, finalisation: `update` and `finalize` for the per-backend \
         columns, the one-shot `tag` for fieldwork's default), the median of up \
         to {MAX_SAMPLES} interleaved \
         samples of at least 5 µs per column (a budget of about 20 ms per length \
         for all columns), converted to estimated core cycles per byte. \
         Single lengths are noisy on a shared machine; the band means are the \
         figures to read.{}\n\n",
        passes_text(info.passes)
    );
    let _ = writeln!(out, "![Poly1305 cycles per byte]({})\n", info.svg);
    out.push_str("## Complete decimation over Goll–Gueron\n\n");
    if sweep.faithful_baseline() {
        out.push_str(
            "Speed-up = the faithful Goll–Gueron's cycles ÷ complete \
             decimation's at the same length (> 1: decimation is faster): the \
             dissertation's comparison, its §3 baseline as written \
             (`fieldwork::poly1305::goll_gueron`, `avx2-goll-gueron-faithful`) \
             against fieldwork's `avx2-decimation` schedule (its §4, by name \
             through `fieldwork::hazmat`); ",
        );
    } else {
        out.push_str(
            "Speed-up = Goll–Gueron's cycles ÷ complete decimation's at the same \
             length (> 1: decimation is faster), both fieldwork's AVX2 backends \
             (`avx2-goll-gueron` and `avx2-decimation`, by name through \
             `fieldwork::hazmat`); ",
        );
    }
    out.push_str(
        "band k holds the lengths in (k KiB, k+1 KiB], the first from 49 bytes. \
         S. Bhattacharyya, *Improved SIMD Implementation of Poly1305* (M.Tech \
         dissertation, ISI Kolkata, 2018; with P. Sarkar, IACR ePrint \
         2019/842), whose Skylake averages are 12.58 %, 6.10 %, 3.92 % and \
         2.90 % per band (1.126×, 1.061×, 1.039×, 1.029×).\n\n",
    );
    match bands {
        Ok(b) => out.push_str(&band_table(b)),
        Err(why) => {
            let _ = writeln!(out, "No speed-up on this run: {why}.");
        }
    }
    if let Some(d) = sweep.default_speedups() {
        out.push_str(
            "\n## fieldwork's default over the faithful Goll–Gueron\n\n\
             Speed-up = the faithful Goll–Gueron's cycles ÷ the default's (the \
             one-shot `tag`) at the same length; the default should be at \
             least as fast at every length.\n\n",
        );
        out.push_str(&band_table(&bands_of(&d)));
        let slower: Vec<String> = d
            .iter()
            .filter(|(_, x)| *x < 1.0)
            .map(|(l, x)| format!("{l} B ({x:.3}×)"))
            .collect();
        if slower.is_empty() {
            out.push_str("\nThe default is faster at every length.\n");
        } else {
            let _ = writeln!(
                out,
                "\nThe default is slower at {} of {} lengths: {}.",
                slower.len(),
                d.len(),
                slower.join(", ")
            );
        }
    }
    out.push_str("\n## Mean cycles/byte per band\n\n");
    out.push_str(&column_means_table(sweep));
    out
}

/// Line colours, one per column in order (then repeated).
const COLOURS: &[&str] = &[
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf",
];

/// A tick label without trailing zeros.
fn tick_label(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The sweep drawn as an SVG: above, cycles/byte of every column against the
/// length (log scale); below, the speed-up of complete decimation over
/// Goll–Gueron with each band's mean as a horizontal segment (when both
/// columns are present). `title` goes on top.
pub fn svg(sweep: &Sweep, title: &str) -> String {
    const W: f64 = 1040.0;
    const LEFT: f64 = 70.0;
    const RIGHT: f64 = 290.0;
    const TOP: f64 = 40.0;
    const PLOT_H: f64 = 340.0;
    const GAP: f64 = 60.0;
    const SPEED_H: f64 = 180.0;
    let speedups = sweep.speedups();
    let height = TOP
        + PLOT_H
        + 50.0
        + if speedups.is_some() {
            GAP + SPEED_H + 50.0
        } else {
            0.0
        };
    let plot_w = W - LEFT - RIGHT;
    let (x_lo, x_hi) = (0.0, (LAST.div_ceil(BAND) * BAND) as f64);
    let x = |len: usize| LEFT + (len as f64 - x_lo) / (x_hi - x_lo) * plot_w;

    let values = || {
        sweep
            .rows
            .iter()
            .flat_map(|r| r.cycles_per_byte.iter().copied())
            .filter(|v| v.is_finite() && *v > 0.0)
    };
    let y_lo = values().fold(f64::INFINITY, f64::min).min(1.0) * 0.9;
    let y_hi = values().fold(0.0, f64::max).max(y_lo * 10.0) * 1.1;
    let (l_lo, l_hi) = (y_lo.log10(), y_hi.log10());
    let y = |v: f64| TOP + PLOT_H - (v.max(y_lo).log10() - l_lo) / (l_hi - l_lo) * PLOT_H;

    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" viewBox="0 0 {W} {height}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{height}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{LEFT}" y="22" font-size="15">{}</text>"#,
        xml_escape(title)
    );
    // Grid, x ticks every 512 bytes.
    let x_axis = |s: &mut String, top: f64, h: f64| {
        let mut t = 0usize;
        while t as f64 <= x_hi {
            let xt = x(t);
            let stroke = if t.is_multiple_of(BAND) {
                "#bbb"
            } else {
                "#e5e5e5"
            };
            let _ = writeln!(
                s,
                r#"<line x1="{xt:.1}" y1="{top}" x2="{xt:.1}" y2="{:.1}" stroke="{stroke}"/>"#,
                top + h
            );
            let _ = writeln!(
                s,
                r#"<text x="{xt:.1}" y="{:.1}" text-anchor="middle">{t}</text>"#,
                top + h + 16.0
            );
            t += BAND / 2;
        }
        let _ = writeln!(
            s,
            r#"<rect x="{LEFT}" y="{top}" width="{plot_w}" height="{h}" fill="none" stroke="black"/>"#
        );
    };
    let x_label = |s: &mut String, bottom: f64| {
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">message length (bytes)</text>"#,
            LEFT + plot_w / 2.0,
            bottom + 34.0
        );
    };
    x_axis(&mut s, TOP, PLOT_H);
    x_label(&mut s, TOP + PLOT_H);
    for t in log_ticks(y_lo, y_hi) {
        let yt = y(t);
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{yt:.1}" x2="{:.1}" y2="{yt:.1}" stroke="#e5e5e5"/>"##,
            LEFT + plot_w
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            LEFT - 6.0,
            yt + 4.0,
            tick_label(t)
        );
    }
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">cycles/byte (log scale)</text>"#,
        TOP + PLOT_H / 2.0
    );
    for (c, name) in sweep.columns.iter().enumerate() {
        let colour = COLOURS[c % COLOURS.len()];
        let points: Vec<String> = sweep
            .rows
            .iter()
            .filter(|r| r.cycles_per_byte[c].is_finite() && r.cycles_per_byte[c] > 0.0)
            .map(|r| format!("{:.1},{:.1}", x(r.length), y(r.cycles_per_byte[c])))
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline fill="none" stroke="{colour}" stroke-width="1" points="{}"/>"#,
            points.join(" ")
        );
        let ly = TOP + 10.0 + 20.0 * c as f64;
        let lx = LEFT + plot_w + 12.0;
        let _ = writeln!(
            s,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2"/>"#,
            lx + 20.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 26.0,
            ly + 4.0,
            xml_escape(name)
        );
    }

    if let Some(speedups) = speedups {
        let top = TOP + PLOT_H + 50.0 + GAP;
        let finite = || speedups.iter().map(|p| p.1).filter(|v| v.is_finite());
        let s_lo = finite().fold(1.0f64, f64::min).min(0.9);
        let s_hi = finite().fold(1.0f64, f64::max).max(1.1);
        let (s_lo, s_hi) = ((s_lo * 10.0).floor() / 10.0, (s_hi * 10.0).ceil() / 10.0);
        let sy = |v: f64| top + SPEED_H - (v.clamp(s_lo, s_hi) - s_lo) / (s_hi - s_lo) * SPEED_H;
        x_axis(&mut s, top, SPEED_H);
        x_label(&mut s, top + SPEED_H);
        let step = if s_hi - s_lo > 1.0 { 0.2 } else { 0.1 };
        let mut t = s_lo;
        while t <= s_hi + 1e-9 {
            let yt = sy(t);
            let stroke = if (t - 1.0).abs() < 1e-9 {
                "#555"
            } else {
                "#e5e5e5"
            };
            let _ = writeln!(
                s,
                r#"<line x1="{LEFT}" y1="{yt:.1}" x2="{:.1}" y2="{yt:.1}" stroke="{stroke}"/>"#,
                LEFT + plot_w
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{t:.1}</text>"#,
                LEFT - 6.0,
                yt + 4.0
            );
            t += step;
        }
        let _ = writeln!(
            s,
            r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">speed-up</text>"#,
            top + SPEED_H / 2.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="{:.1}">complete decimation over Goll–Gueron (Goll–Gueron cycles ÷ decimation cycles); black: band means</text>"#,
            top - 8.0
        );
        let points: Vec<String> = speedups
            .iter()
            .filter(|p| p.1.is_finite())
            .map(|&(len, v)| format!("{:.1},{:.1}", x(len), sy(v)))
            .collect();
        let _ = writeln!(
            s,
            r##"<polyline fill="none" stroke="#7f7f7f" stroke-width="1" points="{}"/>"##,
            points.join(" ")
        );
        if let Ok(bands) = bands(sweep) {
            for b in &bands {
                let _ = writeln!(
                    s,
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black" stroke-width="2.5"/>"#,
                    x(b.first),
                    sy(b.mean),
                    x(b.last),
                    sy(b.mean)
                );
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A synthetic sweep: Goll–Gueron at 2 cycles/byte, decimation at 1 up
    /// to 1024 bytes, 1.6 from 1025 to 2048, 2 above, except 1.25 at 3000.
    fn synthetic() -> Sweep {
        let rows = (FIRST..=LAST)
            .map(|length| {
                let dec = match length {
                    ..=1024 => 1.0,
                    1025..=2048 => 1.6,
                    3000 => 1.25,
                    _ => 2.0,
                };
                Row {
                    length,
                    cycles_per_byte: vec![2.0, dec, dec, 50.0 / length as f64 + 1.5],
                }
            })
            .collect();
        Sweep {
            columns: vec![
                "fieldwork (avx2-goll-gueron)".into(),
                "fieldwork (avx2-decimation)".into(),
                "fieldwork best (avx2-decimation)".into(),
                "peer <A> & B, v1".into(),
            ],
            rows,
        }
    }

    #[test]
    fn csv_round_trip() {
        let sweep = synthetic();
        let csv = sweep.to_csv();
        assert!(
            csv.starts_with(
                "length_bytes,fieldwork (avx2-goll-gueron),fieldwork (avx2-decimation),"
            )
        );
        assert!(csv.contains("\n49,2.0000,1.0000,1.0000,2.5204\n"), "{csv}");
        assert_eq!(csv.lines().count(), 1 + LAST - FIRST + 1);
        let back = Sweep::from_csv(&csv).unwrap();
        assert_eq!(back.columns[3], "peer <A> & B; v1");
        assert_eq!(back.rows.len(), sweep.rows.len());
        for (a, b) in back.rows.iter().zip(&sweep.rows) {
            assert_eq!(a.length, b.length);
            for (x, y) in a.cycles_per_byte.iter().zip(&b.cycles_per_byte) {
                assert!((x - y).abs() < 1e-4);
            }
        }
        assert!(Sweep::from_csv("").is_err());
        assert!(Sweep::from_csv("length,a\n1,2\n").is_err());
        assert!(Sweep::from_csv("length_bytes,a\n1,2,3\n").is_err());
        assert!(Sweep::from_csv("length_bytes,a\n1,x\n").is_err());
        assert!(Sweep::from_csv("length_bytes,a\n2,1\n1,1\n").is_err());
    }

    #[test]
    fn bands_of_the_speedup() {
        let b = bands(&synthetic()).unwrap();
        assert_eq!(b.len(), 4);
        assert_eq!((b[0].first, b[0].last, b[0].bounds), (49, 1024, (0, 1024)));
        assert_eq!((b[1].first, b[1].last), (1025, 2048));
        assert_eq!((b[2].first, b[2].last), (2049, 3072));
        assert_eq!(
            (b[3].first, b[3].last, b[3].bounds),
            (3073, 4000, (3072, 4096))
        );
        assert_eq!(b[0].max, (2.0, 49));
        assert!((b[0].mean - 2.0).abs() < 1e-12);
        assert!((b[1].mean - 1.25).abs() < 1e-12);
        assert_eq!(b[1].min, (1.25, 1025));
        // 3000 B: 2 ÷ 1.25 = 1.6 once among 1024 lengths of 1.
        assert_eq!(b[2].max, (1.6, 3000));
        assert!((b[2].mean - (1023.0 + 1.6) / 1024.0).abs() < 1e-12);
        assert!((b[3].mean - 1.0).abs() < 1e-12);
        let table = band_table(&b);
        assert!(table.contains("| 0–1 KiB | 49–1024 B "), "{table}");
        assert!(table.contains("1.600× (3000 B)"), "{table}");
        // Without the decimation column there is no speed-up.
        let mut one = synthetic();
        one.columns[1] = "other".into();
        one.columns[2] = "other".into();
        assert!(bands(&one).is_err());
    }

    /// With a faithful Goll–Gueron column, it is the speed-ups' baseline
    /// (not the `avx2-goll-gueron` schedule), and the note has the
    /// default over it with the lengths where the default is slower.
    #[test]
    fn the_faithful_baseline_comes_first() {
        let mut sweep = synthetic();
        sweep
            .columns
            .insert(0, "fieldwork (avx2-goll-gueron-faithful)".into());
        for r in &mut sweep.rows {
            let faithful = if r.length == 100 { 0.5 } else { 4.0 };
            r.cycles_per_byte.insert(0, faithful);
        }
        assert!(sweep.faithful_baseline());
        let s = sweep.speedups().unwrap();
        // 49 B: 4 ÷ 1 (decimation), not the schedule's 2 ÷ 1.
        assert_eq!(s[0], (49, 4.0));
        let d = sweep.default_speedups().unwrap();
        assert_eq!(d[0], (49, 4.0));
        assert_eq!(d[100 - FIRST], (100, 0.5));
        let info = NoteInfo {
            cpu: "Test CPU".into(),
            level: "`avx2`".into(),
            date: "2026-11-26".into(),
            commit: "abc1234".into(),
            command: "peer-bench --poly1305-sweep x.csv".into(),
            clock: "TSC 1 GHz".into(),
            clock_after: ("TSC 1 GHz".into(), false),
            passes: 1,
            csv: "x.csv".into(),
            svg: "x.svg".into(),
        };
        let md = markdown(&info, &sweep, Ok(&bands(&sweep).unwrap()));
        for needle in [
            "the faithful Goll–Gueron's cycles ÷ complete decimation's",
            "## fieldwork's default over the faithful Goll–Gueron",
            "The default is slower at 1 of 3952 lengths: 100 B (0.500×).",
        ] {
            assert!(md.contains(needle), "{needle} in {md}");
        }
        assert!(!synthetic().faithful_baseline());
        assert!(synthetic().default_speedups().is_none());
    }

    #[test]
    fn svg_draws_every_column_and_the_speedup() {
        let sweep = synthetic();
        let svg = svg(&sweep, "Poly1305 on <test> CPU");
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        // One polyline per column and one for the speed-up.
        assert_eq!(svg.matches("<polyline").count(), sweep.columns.len() + 1);
        // Every point of a line is there.
        let first = svg.lines().find(|l| l.starts_with("<polyline")).unwrap();
        assert_eq!(first.matches(',').count(), LAST - FIRST + 1);
        // Names escaped, band means drawn.
        assert!(svg.contains("peer &lt;A&gt; &amp; B, v1"));
        assert!(svg.contains("Poly1305 on &lt;test&gt; CPU"));
        assert_eq!(svg.matches("stroke-width=\"2.5\"").count(), 4);
        // Every number in a coordinate is finite.
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        // Without the two AVX2 columns, no speed-up panel.
        let mut peers = sweep.clone();
        peers
            .columns
            .iter_mut()
            .for_each(|c| *c = c.replace("avx2", "x"));
        let plain = super::svg(&peers, "t");
        assert_eq!(plain.matches("<polyline").count(), sweep.columns.len());
    }

    #[test]
    fn markdown_note() {
        let sweep = synthetic();
        let info = NoteInfo {
            cpu: "Test CPU".into(),
            level: "`avx2`".into(),
            date: "2026-11-22".into(),
            commit: "abc1234".into(),
            command: "cargo run --release -p peer-bench -- --poly1305-sweep x.csv".into(),
            clock: "TSC 1 GHz".into(),
            clock_after: ("TSC 1 GHz, later".into(), true),
            passes: 1,
            csv: "x.csv".into(),
            svg: "x.svg".into(),
        };
        let md = markdown(&info, &sweep, Ok(&bands(&sweep).unwrap()));
        for needle in [
            "# Poly1305 cycles/byte at 49–4000 bytes: Test CPU",
            "- commit: abc1234",
            "- date: 2026-11-22",
            "--poly1305-sweep x.csv`",
            "![Poly1305 cycles per byte](x.svg)",
            "| 3–4 KiB | 3073–4000 B ",
            "## Mean cycles/byte per band",
            "- clock after the sweep: TSC 1 GHz, later",
            "differs from the first by more than 10 %",
            "up to 301 interleaved",
        ] {
            assert!(md.contains(needle), "{needle} in {md}");
        }
        assert!(!md.contains("passes over all"), "{md}");
        let three = NoteInfo {
            passes: 3,
            ..info.clone()
        };
        let md3 = markdown(&three, &sweep, Ok(&bands(&sweep).unwrap()));
        assert!(
            md3.contains("in each of 3 passes over all the lengths"),
            "{md3}"
        );
        let none = markdown(&info, &sweep, Err("no AVX2"));
        assert!(none.contains("No speed-up on this run: no AVX2."), "{none}");
        assert!(none.contains("## Mean cycles/byte per band"), "{none}");
        assert_eq!(log_ticks(0.4, 60.0), [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
        assert_eq!(tick_label(0.5), "0.5");
        assert_eq!(tick_label(20.0), "20");
    }

    #[test]
    fn peer_table_counts_the_clear_losses() {
        let row = |length, peer| Row {
            length,
            cycles_per_byte: vec![1.0, peer],
        };
        let sweep = Sweep {
            columns: vec!["ours".into(), "peer".into()],
            rows: vec![row(64, 0.99), row(65, 0.95), row(66, 1.10), row(600, 1.2)],
        };
        let t = peer_table(&sweep);
        assert!(t.contains("faster by over 3 %"), "{t}");
        // Two lengths where the peer is faster, one of them by over 3 %.
        assert!(t.contains("2 of 4"), "{t}");
        assert!(t.contains(" 1 | "), "{t}");
        assert!(t.contains("0.950× (65 B)"), "{t}");
        // Band means: (0.99 + 0.95 + 1.10) / 3 and 1.2.
        assert!(t.contains("1.013×") && t.contains("1.200×"), "{t}");
    }

    #[test]
    fn keep_fastest_takes_each_columns_minimum() {
        let row = |length, a, b| Row {
            length,
            cycles_per_byte: vec![a, b],
        };
        let columns = vec!["ours".to_string(), "peer".to_string()];
        let mut first = Sweep {
            columns: columns.clone(),
            rows: vec![row(64, 2.0, 3.0), row(65, 1.0, 4.0)],
        };
        let second = Sweep {
            columns: columns.clone(),
            rows: vec![row(64, 2.5, 2.0), row(65, 0.5, 5.0)],
        };
        first.keep_fastest(&second).unwrap();
        assert_eq!(first.rows, vec![row(64, 2.0, 2.0), row(65, 0.5, 4.0)]);
        let shorter = Sweep {
            columns: columns.clone(),
            rows: vec![row(64, 1.0, 1.0)],
        };
        assert!(first.keep_fastest(&shorter).is_err());
        let shifted = Sweep {
            columns,
            rows: vec![row(64, 1.0, 1.0), row(66, 1.0, 1.0)],
        };
        assert!(first.keep_fastest(&shifted).is_err());
        // Nothing is changed by a pass that does not match.
        assert_eq!(first.rows, vec![row(64, 2.0, 2.0), row(65, 0.5, 4.0)]);
    }
}
