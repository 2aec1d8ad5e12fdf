//! Pictures for the benchmark pages: one SVG per group whose rows are sizes
//! (bytes, words, bits), time per byte — or per call where a row has no byte
//! count — against the size, both on log scales, one line per
//! implementation, fieldwork's reference implementation drawn boldly and
//! the CPU in the title. Written by hand (a few dozen SVG elements): no
//! plotting dependency.

use crate::harness::Measured;
use benchtime::Clock;
use std::fmt::Write as _;

/// One line of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's text.
    pub name: String,
    /// Fieldwork's code (drawn solid; peers dashed).
    pub ours: bool,
    /// The reference implementation (drawn boldly).
    pub bold: bool,
    /// `(x, y)`, both positive, in increasing x.
    pub points: Vec<(f64, f64)>,
}

/// A chart: title, axis labels and lines.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    /// Above the plot.
    pub title: String,
    /// Below the x axis.
    pub x_label: String,
    /// Beside the y axis.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
}

/// The size of a row as a number: its byte count, else the number its size
/// label starts with (`1024 words`, `64×64 bit`), else none.
fn size_value(m: &Measured) -> Option<f64> {
    if let Some(b) = m.bytes {
        return Some(b as f64);
    }
    let digits: String = m.size.chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = m.size[digits.len()..].trim_start();
    // `m=233 mul` and other labels that merely contain numbers are not sizes.
    if digits.is_empty()
        || !(rest.starts_with("word") || rest.starts_with("bit") || rest.starts_with('×'))
    {
        return None;
    }
    digits.parse().ok()
}

/// The chart of one group, if its rows are at two sizes or more.
pub fn group_chart(clock: &Clock, results: &[Measured], group: &str, cpu: &str) -> Option<Chart> {
    let rows: Vec<&Measured> = results
        .iter()
        .filter(|m| m.group == group && !m.per_second)
        .collect();
    let per_byte = rows.iter().any(|m| m.bytes.is_some());
    let mut series: Vec<Series> = Vec::new();
    for m in &rows {
        let Some(x) = size_value(m) else { continue };
        let c = clock.cycles(m.timing.median);
        let y = match m.bytes {
            Some(b) if per_byte && b > 0 => c / b as f64,
            _ if per_byte => continue,
            _ => c,
        };
        if !(x > 0.0 && y.is_finite() && y > 0.0) {
            continue;
        }
        match series.iter_mut().find(|s| s.name == m.name) {
            Some(s) => s.points.push((x, y)),
            None => series.push(Series {
                name: m.name.clone(),
                ours: m.ours,
                bold: m.ours && (m.ratio - 1.0).abs() < 1e-12,
                points: vec![(x, y)],
            }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        s.points.dedup_by(|a, b| a.0 == b.0);
    }
    let mut xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() < 2 {
        return None;
    }
    let unit = if rows.iter().any(|m| m.bytes.is_some()) {
        "bytes"
    } else if rows.iter().any(|m| m.size.contains("word")) {
        "words"
    } else {
        "bits"
    };
    Some(Chart {
        title: format!("{group} — {cpu}"),
        x_label: format!("size ({unit}, log scale)"),
        y_label: if per_byte {
            "cycles/byte (log scale)".into()
        } else {
            "cycles/call (log scale)".into()
        },
        series,
    })
}

/// Every group's chart, in the order of the results.
pub fn charts(clock: &Clock, results: &[Measured], cpu: &str) -> Vec<(&'static str, Chart)> {
    let mut groups: Vec<&'static str> = results.iter().map(|m| m.group).collect();
    groups.dedup();
    groups
        .into_iter()
        .filter_map(|g| Some((g, group_chart(clock, results, g, cpu)?)))
        .collect()
}

/// Escapes text for SVG (also the Poly1305 sweep's figure, `sweep.rs`).
pub(crate) fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const COLOURS: &[&str] = &[
    "#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf", "#e377c2",
    "#7f7f7f", "#bcbd22",
];

/// Tick values of a 1-2-5 series covering `[lo, hi]` (also `sweep.rs`).
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi {
        for m in [1.0, 2.0, 5.0] {
            let v = decade * m;
            if v >= lo && v <= hi {
                ticks.push(v);
            }
        }
        decade *= 10.0;
    }
    ticks
}

fn tick_label(v: f64) -> String {
    if v >= 1024.0 && (v as u64).is_power_of_two() {
        return format!("{}Ki", v as u64 / 1024);
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Geometry shared by [`Chart::svg`] and the tests that read it back.
pub const WIDTH: f64 = 960.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 300.0;
const TOP: f64 = 40.0;
const PLOT_H: f64 = 360.0;

impl Chart {
    /// The chart as a standalone SVG document. Every line is a `<polyline>`
    /// whose `data-name` is its series' name; the bold one has
    /// `stroke-width="3"`.
    pub fn svg(&self) -> String {
        let height = TOP + PLOT_H + 50.0;
        let plot_w = WIDTH - LEFT - RIGHT;
        let all = || self.series.iter().flat_map(|s| s.points.iter().copied());
        let x_lo = all().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let x_hi = all().map(|p| p.0).fold(0.0, f64::max);
        let y_lo = all().map(|p| p.1).fold(f64::INFINITY, f64::min) * 0.8;
        let y_hi = all().map(|p| p.1).fold(0.0, f64::max) * 1.25;
        let (x_lo, x_hi) = if x_hi > x_lo {
            (x_lo, x_hi)
        } else {
            (x_lo / 2.0, x_lo * 2.0)
        };
        let (y_lo, y_hi) = if y_hi > y_lo {
            (y_lo, y_hi)
        } else {
            (y_lo / 2.0, y_lo * 2.0)
        };
        let x = |v: f64| LEFT + (v.log10() - x_lo.log10()) / (x_hi.log10() - x_lo.log10()) * plot_w;
        let y = |v: f64| {
            TOP + PLOT_H - (v.log10() - y_lo.log10()) / (y_hi.log10() - y_lo.log10()) * PLOT_H
        };
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(
            s,
            r#"<rect width="{WIDTH}" height="{height}" fill="white"/>"#
        );
        let _ = writeln!(
            s,
            r#"<text x="{LEFT}" y="22" font-size="15">{}</text>"#,
            xml_escape(&self.title)
        );
        for t in log_ticks(x_lo, x_hi) {
            let xt = x(t);
            let _ = writeln!(
                s,
                r##"<line x1="{xt:.1}" y1="{TOP}" x2="{xt:.1}" y2="{:.1}" stroke="#e5e5e5"/>"##,
                TOP + PLOT_H
            );
            let _ = writeln!(
                s,
                r#"<text x="{xt:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
                TOP + PLOT_H + 16.0,
                tick_label(t)
            );
        }
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
            r#"<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{PLOT_H}" fill="none" stroke="black"/>"#
        );
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            LEFT + plot_w / 2.0,
            TOP + PLOT_H + 38.0,
            xml_escape(&self.x_label)
        );
        let _ = writeln!(
            s,
            r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
            TOP + PLOT_H / 2.0,
            xml_escape(&self.y_label)
        );
        // The bold line last, on top of the others.
        let mut order: Vec<usize> = (0..self.series.len()).collect();
        order.sort_by_key(|&i| self.series[i].bold);
        for i in order {
            let se = &self.series[i];
            let colour = if se.bold {
                "black"
            } else {
                COLOURS[i % COLOURS.len()]
            };
            let width = if se.bold { "3" } else { "1.2" };
            let dash = if se.ours {
                ""
            } else {
                r#" stroke-dasharray="5 3""#
            };
            let points: Vec<String> = se
                .points
                .iter()
                .map(|&(px, py)| format!("{:.2},{:.2}", x(px), y(py)))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline data-name="{}" fill="none" stroke="{colour}" stroke-width="{width}"{dash} points="{}"/>"#,
                xml_escape(&se.name),
                points.join(" ")
            );
            let ly = TOP + 10.0 + 18.0 * i as f64;
            let lx = LEFT + plot_w + 12.0;
            let _ = writeln!(
                s,
                r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="{width}"{dash}/>"#,
                lx + 22.0
            );
            let _ = writeln!(
                s,
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                lx + 28.0,
                ly + 4.0,
                xml_escape(&se.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// Maps a drawn point back to data coordinates (the inverse of the
    /// scales [`Chart::svg`] uses), for tests that read the picture back.
    #[cfg(test)]
    fn unscale(&self, px: f64, py: f64) -> (f64, f64) {
        let all = || self.series.iter().flat_map(|s| s.points.iter().copied());
        let x_lo = all().map(|p| p.0).fold(f64::INFINITY, f64::min);
        let x_hi = all().map(|p| p.0).fold(0.0, f64::max);
        let y_lo = all().map(|p| p.1).fold(f64::INFINITY, f64::min) * 0.8;
        let y_hi = all().map(|p| p.1).fold(0.0, f64::max) * 1.25;
        let plot_w = WIDTH - LEFT - RIGHT;
        let lx = x_lo.log10() + (px - LEFT) / plot_w * (x_hi.log10() - x_lo.log10());
        let ly = y_lo.log10() + (TOP + PLOT_H - py) / PLOT_H * (y_hi.log10() - y_lo.log10());
        (10f64.powf(lx), 10f64.powf(ly))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use benchtime::Timing;

    fn row(
        group: &'static str,
        size: &str,
        bytes: Option<u64>,
        name: &str,
        ours: bool,
        ratio: f64,
        ticks: f64,
    ) -> Measured {
        Measured {
            group,
            size: size.into(),
            bytes,
            name: name.into(),
            ours,
            timing: Timing {
                median: ticks,
                q1: ticks,
                q3: ticks,
                samples: 1,
                iters: 1,
            },
            ratio,
            per_second: false,
        }
    }

    /// A minimal XML reader: checks that tags nest and returns every
    /// element's name and attributes, in document order.
    fn parse(svg: &str) -> Vec<(String, Vec<(String, String)>)> {
        let mut out = Vec::new();
        let mut stack: Vec<String> = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let close = rest[open..].find('>').expect("unclosed tag") + open;
            let tag = &rest[open + 1..close];
            rest = &rest[close + 1..];
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
                continue;
            }
            let self_closing = tag.ends_with('/');
            let tag = tag.trim_end_matches('/');
            let (name, mut attrs_text) = tag.split_once(' ').unwrap_or((tag, ""));
            let mut attrs = Vec::new();
            while let Some(eq) = attrs_text.find("=\"") {
                let key = attrs_text[..eq].trim().to_string();
                let end = attrs_text[eq + 2..].find('"').expect("unclosed attribute") + eq + 2;
                let value = attrs_text[eq + 2..end].to_string();
                assert!(
                    !value.contains('<') && !value.contains('>'),
                    "unescaped {value}"
                );
                attrs.push((key, value));
                attrs_text = &attrs_text[end + 1..];
            }
            assert!(
                attrs_text.trim().is_empty(),
                "stray text in <{name} …>: {attrs_text}"
            );
            out.push((name.to_string(), attrs));
            if !self_closing {
                stack.push(name.to_string());
            }
        }
        assert!(stack.is_empty(), "unclosed {stack:?}");
        out
    }

    fn attr<'a>(attrs: &'a [(String, String)], key: &str) -> Option<&'a str> {
        attrs.iter().find(|a| a.0 == key).map(|a| a.1.as_str())
    }

    #[test]
    fn a_group_by_bytes_reads_back() {
        let clock = Clock {
            tsc_ghz: 1.0,
            core_ghz: Some(1.0),
        };
        let results = vec![
            row("aead", "64 B", Some(64), "fieldwork", true, 1.0, 640.0),
            row("aead", "64 B", Some(64), "peer <A> & B", false, 2.0, 1280.0),
            row(
                "aead",
                "16 KiB",
                Some(16384),
                "fieldwork",
                true,
                1.0,
                16384.0,
            ),
            row(
                "aead",
                "16 KiB",
                Some(16384),
                "peer <A> & B",
                false,
                0.5,
                8192.0,
            ),
            row("other", "m=233 mul", None, "fieldwork", true, 1.0, 10.0),
        ];
        let charts = charts(&clock, &results, "Test CPU");
        assert_eq!(charts.len(), 1, "the group without sizes has no chart");
        let (group, chart) = &charts[0];
        assert_eq!(*group, "aead");
        assert_eq!(chart.title, "aead — Test CPU");
        let svg = chart.svg();
        let elements = parse(&svg);
        assert_eq!(elements[0].0, "svg");
        let lines: Vec<_> = elements.iter().filter(|e| e.0 == "polyline").collect();
        assert_eq!(lines.len(), 2);
        // Drawn bold and last: the reference.
        assert_eq!(attr(&lines[1].1, "data-name"), Some("fieldwork"));
        assert_eq!(attr(&lines[1].1, "stroke-width"), Some("3"));
        assert_eq!(
            attr(&lines[0].1, "data-name"),
            Some("peer &lt;A&gt; &amp; B")
        );
        assert_eq!(attr(&lines[0].1, "stroke-dasharray"), Some("5 3"));
        // The points read back as the data: cycles/byte against bytes.
        let want = [
            ("fieldwork", [(64.0, 10.0), (16384.0, 1.0)]),
            ("peer &lt;A&gt; &amp; B", [(64.0, 20.0), (16384.0, 0.5)]),
        ];
        for (name, points) in want {
            let line = lines
                .iter()
                .find(|l| attr(&l.1, "data-name") == Some(name))
                .unwrap();
            let drawn: Vec<(f64, f64)> = attr(&line.1, "points")
                .unwrap()
                .split(' ')
                .map(|p| {
                    let (a, b) = p.split_once(',').unwrap();
                    chart.unscale(a.parse().unwrap(), b.parse().unwrap())
                })
                .collect();
            assert_eq!(drawn.len(), 2);
            for (d, w) in drawn.iter().zip(points) {
                assert!(
                    (d.0 / w.0 - 1.0).abs() < 0.01 && (d.1 / w.1 - 1.0).abs() < 0.01,
                    "{name}: {d:?} vs {w:?}"
                );
            }
        }
        let texts = svg.matches("<text").count();
        assert!(texts >= 2 + 4, "title, labels, ticks and legend: {texts}");
        assert!(svg.contains("aead — Test CPU"));
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
    }

    #[test]
    fn sizes_in_words_and_bits() {
        let clock = Clock {
            tsc_ghz: 1.0,
            core_ghz: None,
        };
        let results = vec![
            row("g", "3 words", None, "a", true, 1.0, 30.0),
            row("g", "1024 words", None, "a", true, 1.0, 9000.0),
            row("h", "64×64 bit", None, "a", true, 1.0, 3.0),
        ];
        let chart = group_chart(&clock, &results, "g", "c").unwrap();
        assert_eq!(chart.series[0].points, [(3.0, 30.0), (1024.0, 9000.0)]);
        assert_eq!(chart.y_label, "cycles/call (log scale)");
        assert!(chart.x_label.contains("words"));
        assert!(
            group_chart(&clock, &results, "h", "c").is_none(),
            "one size: no chart"
        );
        parse(&chart.svg());
    }
}
