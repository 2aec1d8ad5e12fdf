//! `peer-bench`: fieldwork and other libraries, side by side.
//!
//! Every implementation of an operation runs in this one process,
//! interleaved (A B C A B C …, starting point rotated each round), and the
//! report gives each one's median time per call, estimated cycles per call or
//! per byte, and the ratio of its time to ours (> 1 means fieldwork is
//! faster). Before timing, each group checks that every implementation
//! computes the same result as fieldwork on random inputs (or, where a peer
//! computes a different function of the same kind, as `kummer`'s X25519
//! peers do, that it matches published test vectors).
//!
//! Rust-crate peers (x25519-dalek, and ring and aws-lc-rs, which compile
//! their C code with the system C compiler) build by default; system C/C++
//! libraries (gf2x, NTL, OpenSSL's libcrypto) need the `system-peers`
//! feature and their Debian packages (see the README).

mod groups;
mod harness;
#[cfg(feature = "system-peers")]
mod openssl;
#[cfg(feature = "system-peers")]
mod sys;

use benchtime::{Clock, Sampler};
use clap::Parser;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// fieldwork against other libraries: interleaved medians and ratios.
#[derive(Parser, Debug)]
#[command(name = "peer-bench", version, about, long_about = None)]
struct Args {
    /// Only run groups, operations or sizes whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Print the README's Markdown tables instead of the text table.
    #[arg(long)]
    markdown: bool,
    /// Sample for about a tenth of the time (noisier).
    #[arg(long)]
    quick: bool,
    /// List the operations and exit.
    #[arg(long)]
    list: bool,
    /// Also run the rows that take minutes (e.g. 2^20-word products).
    #[arg(long)]
    heavy: bool,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let report = match fieldwork::cpu::report() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.list {
        for (name, _) in groups::GROUPS {
            println!("{name}");
        }
        return ExitCode::SUCCESS;
    }
    let filter = args.filter.as_deref().unwrap_or("");
    let mut cases = Vec::new();
    for (name, build) in groups::GROUPS {
        match build() {
            Ok(cs) => cases.extend(
                cs.into_iter()
                    .filter(|c| {
                        name.contains(filter) || c.group.contains(filter) || c.size.contains(filter)
                    })
                    .filter(|c| args.heavy || !c.heavy),
            ),
            Err(e) => {
                eprintln!("error: {name}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    if cases.is_empty() {
        eprintln!("error: no operation matches the filter {filter:?} (see --list)");
        return ExitCode::FAILURE;
    }

    let clock = Clock::calibrate();
    let sampler = if args.quick {
        Sampler::quick(&clock)
    } else {
        Sampler::new(&clock)
    };
    let header = format!(
        "peer-bench — {}; level {}; {}; {}",
        benchtime::cpu_model(),
        report.level,
        clock.describe(),
        benchtime::today_utc()
    );
    let tty = std::io::stderr().is_terminal();
    let total = cases.len();
    let mut results = Vec::new();
    for (i, case) in cases.iter_mut().enumerate() {
        let label = format!("{} {}", case.group, case.size);
        if tty {
            eprint!("\r\x1b[2K[{}/{total}] {label}", i + 1);
        } else {
            eprintln!("[{}/{total}] {label}", i + 1);
        }
        let _ = std::io::stderr().flush();
        results.extend(harness::measure(case, &sampler));
    }
    if tty {
        eprintln!("\r\x1b[2Kdone: {total} cases");
    }

    if args.markdown {
        println!("{header}\n");
        print!("{}", harness::markdown(&clock, &results));
    } else {
        println!("{header}\n");
        print!("{}", harness::text_table(&clock, &results));
    }
    if let Some(path) = &args.json {
        let doc = harness::json(&clock, &results, report.level.name());
        if let Err(e) = std::fs::write(path, doc.render()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}
