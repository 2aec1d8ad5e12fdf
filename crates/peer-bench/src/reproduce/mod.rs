//! `--reproduce NAME`: one generated page per source document
//! (`../shared/seeds/`, mapped to areas in its README), written to
//! `docs/reproduce/<seed>-<name>-<cpu slug>.md` with `--out-dir
//! docs/reproduce`.
//!
//! A document is a [`Doc`] in its own file: the rows it times (ordinary
//! [`Case`]s, each checked against the production code before timing, as
//! the groups do) and a function that turns the measured figures into the
//! page's tables — for each table of the document, its rows with the figure
//! **printed in the document**, our faithful reproduction's figure on this
//! CPU and fieldwork's default, and sentences where the ordering differs
//! from the document's. Tables of operation counts are computed, not timed.

#[cfg(target_arch = "x86_64")]
pub mod bhattacharyya;
pub mod fan_dai;
#[cfg(target_arch = "x86_64")]
pub mod gueron_kounavis;
pub mod kummer;
pub mod sufan;

use crate::harness::{Case, Measured};
use crate::page::PageInfo;
use benchtime::{Clock, fmt_num};

/// One source document's reproduction.
pub struct Doc {
    /// The `--reproduce` name, e.g. `su-fan`.
    pub name: &'static str,
    /// The seed file's number, e.g. `000`.
    pub seed: &'static str,
    /// Authors and title, as the page's heading.
    pub title: &'static str,
    /// What the document measured on (its platform), for the page's
    /// opening paragraph.
    pub platform: &'static str,
    /// The timed rows (may be none).
    pub cases: fn() -> Result<Vec<Case>, String>,
    /// The page's tables from the measured figures.
    pub tables: fn(&Measurements) -> Result<Vec<Table>, String>,
}

/// Every document with a reproduction page, in seed order.
pub const DOCS: &[Doc] = &[
    sufan::DOC,
    kummer::DOC,
    #[cfg(target_arch = "x86_64")]
    gueron_kounavis::DOC,
    #[cfg(target_arch = "x86_64")]
    bhattacharyya::DOC,
    fan_dai::DOC,
];

/// The document named `name` (see [`DOCS`]).
pub fn find(name: &str) -> Result<&'static Doc, String> {
    DOCS.iter().find(|d| d.name == name).ok_or_else(|| {
        let names: Vec<&str> = DOCS.iter().map(|d| d.name).collect();
        format!(
            "no reproduction named {name:?}; there are: {}",
            names.join(", ")
        )
    })
}

/// The page's file name for this CPU's slug.
pub fn file_name(doc: &Doc, slug: &str) -> String {
    format!("{}-{}-{slug}.md", doc.seed, doc.name)
}

/// The measured rows of a document's cases, looked up by group, size and
/// implementation name.
pub struct Measurements<'a> {
    clock: &'a Clock,
    results: &'a [Measured],
}

impl<'a> Measurements<'a> {
    /// Wraps the results of one run.
    pub fn new(clock: &'a Clock, results: &'a [Measured]) -> Self {
        Measurements { clock, results }
    }

    fn row(&self, group: &str, size: &str, name: &str) -> Option<&'a Measured> {
        self.results
            .iter()
            .find(|m| m.group == group && m.size == size && m.name == name && !m.per_second)
    }

    /// Estimated core cycles per call of one row (TSC-based, see the page's
    /// clock line), if it was measured.
    pub fn cycles(&self, group: &str, size: &str, name: &str) -> Option<f64> {
        self.row(group, size, name)
            .map(|m| self.clock.cycles(m.timing.median))
    }

    /// Estimated cycles per byte of one row, if it was measured and has a
    /// byte count.
    pub fn cycles_per_byte(&self, group: &str, size: &str, name: &str) -> Option<f64> {
        let m = self.row(group, size, name)?;
        Some(self.clock.cycles(m.timing.median) / m.bytes? as f64)
    }

    /// The implementation names measured for one group and size, in order.
    pub fn names(&self, group: &str, size: &str) -> Vec<&'a str> {
        self.results
            .iter()
            .filter(|m| m.group == group && m.size == size && !m.per_second)
            .map(|m| m.name.as_str())
            .collect()
    }
}

/// A table's column names as owned strings.
pub fn header(cols: &[&str]) -> Vec<String> {
    cols.iter().map(|s| s.to_string()).collect()
}

/// A figure for a table cell: the number, or `–` when not measured.
pub fn cell(x: Option<f64>) -> String {
    x.map_or("–".to_string(), fmt_num)
}

/// One table of the page.
pub struct Table {
    /// Its heading, naming the document's table (`Table 1: …`).
    pub title: String,
    /// A paragraph above it: what the document's table shows, where.
    pub text: String,
    /// Column headings.
    pub header: Vec<String>,
    /// The rows, one cell per heading.
    pub rows: Vec<Vec<String>>,
    /// Sentences below it: where our ordering differs from the document's
    /// and why, what is not reproduced and why.
    pub notes: Vec<String>,
}

impl Table {
    fn markdown(&self) -> String {
        let mut out = format!("## {}\n\n", self.title);
        if !self.text.is_empty() {
            out.push_str(&self.text);
            out.push_str("\n\n");
        }
        if self.header.is_empty() {
            return out;
        }
        let esc = |s: &str| s.replace('|', "\\|");
        out.push_str(&format!(
            "| {} |\n",
            self.header
                .iter()
                .map(|h| esc(h))
                .collect::<Vec<_>>()
                .join(" | ")
        ));
        out.push_str(&format!("|{}\n", " --- |".repeat(self.header.len())));
        for r in &self.rows {
            out.push_str(&format!(
                "| {} |\n",
                r.iter().map(|c| esc(c)).collect::<Vec<_>>().join(" | ")
            ));
        }
        out.push('\n');
        for n in &self.notes {
            out.push_str(&format!("- {n}\n"));
        }
        if !self.notes.is_empty() {
            out.push('\n');
        }
        out
    }
}

/// The tables of a page as Markdown (also what the terminal shows).
pub fn markdown(doc: &Doc, tables: &[Table]) -> String {
    let mut out = format!(
        "The document measured on: {}. Figures here are estimated core \
         cycles (from the TSC, no hardware counters) on the CPU named above; \
         the document's printed figures are copied from its text \
         (`../shared/seeds/{}_*.txt`).\n\n",
        doc.platform, doc.seed
    );
    for t in tables {
        out.push_str(&t.markdown());
    }
    out
}

/// The complete page.
pub fn render(doc: &Doc, info: &PageInfo, tables: &[Table]) -> String {
    crate::page::render_titled(
        info,
        &format!("Reproduction of {} on {}", doc.title, info.cpu_model),
        &markdown(doc, tables),
        "docs/reproduce/README.md",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_found() {
        for (i, d) in DOCS.iter().enumerate() {
            assert!(
                DOCS[..i]
                    .iter()
                    .all(|e| e.name != d.name && e.seed != d.seed)
            );
            assert_eq!(find(d.name).map(|f| f.seed), Ok(d.seed));
        }
        assert!(find("no-such-document").is_err());
    }

    #[test]
    fn measurements_look_up_rows() {
        let clock = Clock {
            tsc_ghz: 2.0,
            core_ghz: Some(3.0),
        };
        let row = |name: &str, bytes, per_second| Measured {
            group: "g",
            size: "s".into(),
            bytes,
            name: name.into(),
            ours: true,
            timing: benchtime::Timing {
                median: 200.0,
                q1: 190.0,
                q3: 210.0,
                samples: 9,
                iters: 1,
            },
            ratio: 1.0,
            per_second,
        };
        let results = [
            row("a", Some(100), false),
            row("a", Some(100), true),
            row("b", None, false),
        ];
        let m = Measurements::new(&clock, &results);
        assert_eq!(m.cycles("g", "s", "a"), Some(300.0));
        assert_eq!(m.cycles_per_byte("g", "s", "a"), Some(3.0));
        assert_eq!(m.cycles_per_byte("g", "s", "b"), None);
        assert_eq!(m.cycles("g", "t", "a"), None);
        assert_eq!(m.names("g", "s"), ["a", "b"]);
        assert_eq!(cell(Some(300.0)), fmt_num(300.0));
        assert_eq!(cell(None), "–");
    }

    #[test]
    fn table_renders_escaped_cells() {
        let t = Table {
            title: "Table 9: x".into(),
            text: "What.".into(),
            header: vec!["a".into(), "b|c".into()],
            rows: vec![vec!["1".into(), "2".into()]],
            notes: vec!["Differs.".into()],
        };
        let md = t.markdown();
        assert!(
            md.starts_with("## Table 9: x\n\nWhat.\n\n| a | b\\|c |\n| --- | --- |\n| 1 | 2 |\n")
        );
        assert!(md.ends_with("- Differs.\n\n"));
    }
}
