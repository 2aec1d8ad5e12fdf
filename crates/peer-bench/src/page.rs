//! Benchmark pages: one complete Markdown file per CPU (`--out FILE`, or
//! `--out-dir DIR` for `DIR/<cpu slug>.md`), with everything a reader needs to
//! know where the figures come from — CPU, ISA level, features, date, commit,
//! command and clock — above the tables. The pages in `docs/benchmarks/` are
//! written this way and never edited by hand.

use fieldwork::cpu::CpuReport;
use std::process::Command;

/// What the page says about the machine and the run, besides the tables.
pub struct PageInfo {
    /// The CPU's model name (`/proc/cpuinfo`).
    pub cpu_model: String,
    /// Vendor, family and model numbers, if known.
    pub cpu_id: Option<CpuId>,
    /// Detection, cap and level in effect (`fieldwork cpu`'s report).
    pub report: CpuReport,
    /// `YYYY-MM-DD`, UTC.
    pub date: String,
    /// `git rev-parse --short HEAD`, `-dirty` appended for a modified tree,
    /// or `unknown`.
    pub commit: String,
    /// The command that produced the page, as one can paste it.
    pub command: String,
    /// [`benchtime::Clock::describe`].
    pub clock: String,
    /// Passes over all the cases (`--passes`); each figure is the fastest
    /// median of them.
    pub passes: u32,
    /// The `OPENSSL_ia32cap` value the peers ran under, if any
    /// ([`crate::peer_cap`]).
    pub peer_cap: Option<String>,
}

/// The CPU's vendor string and family/model numbers (as Linux prints them
/// in `/proc/cpuinfo`: family and model with the extended fields added).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuId {
    /// `GenuineIntel`, `AuthenticAMD`, …
    pub vendor: String,
    /// Display family (e.g. 6 for Intel Core/Xeon, 25 for AMD Zen 3/4).
    pub family: u32,
    /// Display model (e.g. 207 for a Xeon of the Emerald Rapids generation).
    pub model: u32,
}

/// The vendor, family and model from `/proc/cpuinfo`, if it has them.
pub fn cpu_id() -> Option<CpuId> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpu_id_from(&info)
}

/// The first processor's vendor, family and model in `/proc/cpuinfo` text.
fn cpu_id_from(info: &str) -> Option<CpuId> {
    let field = |name: &str| {
        info.lines()
            .take_while(|l| !l.trim().is_empty())
            .find(|l| l.split(':').next().map(str::trim) == Some(name))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    Some(CpuId {
        vendor: field("vendor_id").unwrap_or_default(),
        family: field("cpu family")?.parse().ok()?,
        model: field("model")?.parse().ok()?,
    })
}

/// A file-name part for a group's name: lowercase ASCII letters, digits
/// and `_`, every other run of characters one `-` ("gcm128_encrypt (13 B
/// AAD)" → `gcm128_encrypt-13-b-aad`), so that generated files have no
/// spaces or brackets in their names.
pub fn name_slug(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

/// A file-name slug for a CPU: its model name in lowercase ASCII words
/// joined by `-`, without trademark marks, frequencies, core counts and the
/// words "CPU"/"Processor", followed by `f<family>m<model>` when known (two
/// CPUs sold under one name, as virtual machines often report, differ
/// there).
///
/// "Intel(R) Xeon(R) Processor", family 6 model 207 → `intel-xeon-f6m207`;
/// "AMD Ryzen 9 5950X 16-Core Processor", family 25 model 33 →
/// `amd-ryzen-9-5950x-f25m33`.
pub fn cpu_slug(model_name: &str, id: Option<&CpuId>) -> String {
    let lower = model_name.to_ascii_lowercase();
    // Everything from "@" on is the nominal frequency.
    let name = lower.split('@').next().unwrap_or("");
    let name = name.replace("(r)", " ").replace("(tm)", " ");
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    // "16-Core" became "16", "core": drop the pair; then the generic words.
    let mut i = 0;
    while i + 1 < words.len() {
        let counted = words[i].bytes().all(|b| b.is_ascii_digit())
            && matches!(words[i + 1].as_str(), "core" | "cores");
        if counted {
            words.drain(i..i + 2);
        } else {
            i += 1;
        }
    }
    let generic = |w: &str| matches!(w, "cpu" | "processor" | "with" | "radeon" | "graphics");
    let keep_generic = words.iter().all(|w| generic(w));
    let mut words: Vec<String> = words
        .into_iter()
        .filter(|w| keep_generic || !generic(w))
        .collect();
    if words.is_empty() {
        words.push("unknown-cpu".to_string());
    }
    if let Some(id) = id {
        words.push(format!("f{}m{}", id.family, id.model));
    }
    words.join("-")
}

/// `git rev-parse --short HEAD` of the source tree this binary was built
/// from, with `-dirty` if tracked files differ from it, the generated
/// pages (`docs/benchmarks`, `docs/reproduce`) aside: a page written
/// earlier in the same session (the native page before its capped twin)
/// is an output, not the code measured. `unknown` if git or the tree is
/// not there.
pub fn git_commit() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(hash) = git(&["rev-parse", "--short", "HEAD"]).filter(|h| !h.is_empty()) else {
        return "unknown".to_string();
    };
    let status = [
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ":(top)",
        ":(top,exclude)docs/benchmarks",
        ":(top,exclude)docs/reproduce",
    ];
    match git(&status) {
        Some(changes) if changes.is_empty() => hash,
        Some(_) => format!("{hash}-dirty"),
        None => format!("{hash} (tree state unknown)"),
    }
}

/// [`command_line`] for this process's own arguments.
pub fn this_command(cap: Option<fieldwork::cpu::IsaLevel>) -> String {
    command_line(
        cap,
        &std::env::args_os()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>(),
    )
}

/// The command line that ran this process, as `cargo run` with the features
/// this binary was built with, the arguments shell-quoted, and the
/// `FIELDWORK_MAX_ISA` cap in front when one is in effect.
pub fn command_line(cap: Option<fieldwork::cpu::IsaLevel>, args: &[String]) -> String {
    let mut cmd = match cap {
        Some(level) => format!(
            "FIELDWORK_MAX_ISA={} cargo run --release -p peer-bench",
            level.name()
        ),
        None => String::from("cargo run --release -p peer-bench"),
    };
    let features: Vec<&str> = [
        (cfg!(feature = "system-peers"), "system-peers"),
        (cfg!(feature = "xs233"), "xs233"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    if !features.is_empty() {
        cmd.push_str(" --features ");
        cmd.push_str(&features.join(","));
    }
    if !args.is_empty() {
        cmd.push_str(" --");
        for a in args {
            cmd.push(' ');
            cmd.push_str(&shell_quote(a));
        }
    }
    cmd
}

/// `s` as one word for a POSIX shell: unchanged if it is made of safe
/// characters, otherwise in single quotes.
fn shell_quote(s: &str) -> String {
    let safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if safe {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The complete page: header, then `tables` (the output of
/// [`crate::harness::markdown`]), then the line saying the page is
/// generated.
pub fn render(info: &PageInfo, tables: &str) -> String {
    render_titled(
        info,
        &format!("peer-bench: {}", info.cpu_model),
        tables,
        "docs/benchmarks/README.md",
    )
}

/// A page with its own heading (`# title`) whose closing line points to
/// `readme` for how to regenerate it: the benchmark pages and the
/// reproduction pages (`crate::reproduce`) share the header.
pub fn render_titled(info: &PageInfo, title: &str, tables: &str, readme: &str) -> String {
    let r = &info.report;
    let cpu_id = info.cpu_id.as_ref().map_or(String::new(), |id| {
        format!(
            " ({} family {} model {})",
            if id.vendor.is_empty() {
                "vendor unknown"
            } else {
                &id.vendor
            },
            id.family,
            id.model
        )
    });
    let cap = match r.cap {
        Some(c) => format!("{}={c}", fieldwork::cpu::CAP_VARIABLE),
        None => format!("none ({} unset)", fieldwork::cpu::CAP_VARIABLE),
    };
    let mut out = String::new();
    out.push_str(&format!("# {title}\n\n"));
    out.push_str(
        "*Generated by peer-bench (`crates/peer-bench`); do not edit by hand: \
         run the command below again on this CPU instead.*\n\n",
    );
    out.push_str(&format!("- CPU: {}{cpu_id}\n", info.cpu_model));
    out.push_str(&format!("- ISA level in effect: `{}`\n", r.level));
    out.push_str(&format!("- cap: {cap}\n"));
    if let Some(v) = &info.peer_cap {
        out.push_str(&format!(
            "- peers capped too: {}={v} (OpenSSL and aws-lc read it; set by \
             peer-bench from the cap unless given)\n",
            crate::peer_cap::VARIABLE,
        ));
    }
    out.push_str(&format!("- CPU features detected: {}\n", r.detected));
    if r.usable != r.detected {
        out.push_str(&format!(
            "- CPU features usable under the cap: {}\n",
            r.usable
        ));
    }
    out.push_str(&format!("- date: {}\n", info.date));
    out.push_str(&format!("- commit: {}\n", info.commit));
    out.push_str(&format!("- command: `{}`\n", info.command));
    out.push_str(&format!("- clock: {}\n\n", info.clock));
    out.push_str(
        "Figures are medians of interleaved samples (every implementation of a \
         row runs in turn in one process); the ratio in brackets is that \
         column's time ÷ fieldwork's first column (> 1: fieldwork is faster).",
    );
    if info.passes > 1 {
        out.push_str(&format!(
            " Every row was measured in each of {} passes over all the rows, \
             and each figure is the fastest of its medians (a disturbance of \
             the machine spoils the rows of one pass, not the figures).",
            info.passes
        ));
    }
    out.push_str("\n\n");
    out.push_str(tables);
    if !tables.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!(
        "---\n\nThis page is generated by peer-bench and must not be edited by \
         hand; `{readme}` says how to regenerate it.\n"
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_slugs() {
        assert_eq!(
            name_slug("gcm128_encrypt (13 B AAD)"),
            "gcm128_encrypt-13-b-aad"
        );
        assert_eq!(
            name_slug("chachapoly seal (13 B AAD)"),
            "chachapoly-seal-13-b-aad"
        );
        assert_eq!(name_slug("gf2x_mul"), "gf2x_mul");
        assert_eq!(name_slug(" (x) "), "x");
    }

    #[test]
    fn slugs() {
        let xeon = CpuId {
            vendor: "GenuineIntel".into(),
            family: 6,
            model: 207,
        };
        assert_eq!(
            cpu_slug("Intel(R) Xeon(R) Processor", Some(&xeon)),
            "intel-xeon-f6m207"
        );
        assert_eq!(cpu_slug("Intel(R) Xeon(R) Processor", None), "intel-xeon");
        let zen3 = CpuId {
            vendor: "AuthenticAMD".into(),
            family: 25,
            model: 33,
        };
        assert_eq!(
            cpu_slug("AMD Ryzen 9 5950X 16-Core Processor", Some(&zen3)),
            "amd-ryzen-9-5950x-f25m33"
        );
        assert_eq!(
            cpu_slug("Intel(R) Xeon(R) Platinum 8480+ CPU @ 2.00GHz", None),
            "intel-xeon-platinum-8480"
        );
        assert_eq!(
            cpu_slug("Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", None),
            "intel-core-i7-1165g7"
        );
        assert_eq!(cpu_slug("unknown CPU", None), "unknown");
        assert_eq!(cpu_slug("", None), "unknown-cpu");
    }

    #[test]
    fn cpu_id_parses_first_processor() {
        let info = "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n\
                    model\t\t: 207\nmodel name\t: Intel(R) Xeon(R) Processor\n\n\
                    processor\t: 1\ncpu family\t: 7\nmodel\t\t: 1\n";
        assert_eq!(
            cpu_id_from(info),
            Some(CpuId {
                vendor: "GenuineIntel".into(),
                family: 6,
                model: 207
            })
        );
        assert_eq!(cpu_id_from("model name\t: x\n"), None);
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("--filter"), "--filter");
        assert_eq!(shell_quote("docs/benchmarks"), "docs/benchmarks");
        assert_eq!(shell_quote("gcm 16"), "'gcm 16'");
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
        assert_eq!(shell_quote(""), "''");
        let level = fieldwork::cpu::IsaLevel::ALL[1];
        let capped = command_line(Some(level), &[]);
        let want = format!("FIELDWORK_MAX_ISA={level} cargo run --release -p peer-bench");
        assert!(capped.starts_with(&want), "{capped}");
        let cmd = command_line(None, &["--filter".into(), "a b".into()]);
        assert!(
            cmd.starts_with("cargo run --release -p peer-bench"),
            "{cmd}"
        );
        assert!(cmd.ends_with(" -- --filter 'a b'"), "{cmd}");
    }
}
