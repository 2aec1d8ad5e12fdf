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
//! feature and their Debian packages (the `apt-get` line is in the README).
//!
//! `--out-dir docs/benchmarks` writes the complete Markdown page for this CPU
//! (`docs/benchmarks/<cpu slug>.md`, see `page.rs`); `--out FILE` writes it
//! to a file of one's choosing, and `--cpu-slug` prints the slug alone.
//!
//! `--poly1305-sweep CSV_FILE` runs no group: it measures Poly1305 at every
//! length 49–4000 bytes and writes the CSV, an SVG of it and a Markdown note
//! (see `sweep.rs`); `--poly1305-plot CSV_FILE` redraws the SVG from a CSV.
//! `--chachapoly-sweep CSV_FILE` does the same for ChaCha20-Poly1305
//! sealing at every length 64–2048 bytes (CSV and note, no figure).
//!
//! `--isa-rates` runs no group: it prints the latency and throughput of the
//! vector instructions the kernels use (see `rates.rs`).

mod binary_fields;
mod groups;
mod harness;
#[cfg(feature = "system-peers")]
mod openssl;
mod page;
mod peer_cap;
mod plot;
#[cfg(target_arch = "x86_64")]
mod rates;
mod reproduce;
mod sweep;
#[cfg(feature = "system-peers")]
mod sys;
mod util;
#[cfg(feature = "xs233")]
mod xs233;

use benchtime::{Clock, Sampler};
use clap::Parser;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

/// fieldwork against other libraries: interleaved medians and ratios.
#[derive(Parser, Debug)]
#[command(name = "peer-bench", version, about, long_about = None)]
struct Args {
    /// Only run the groups whose name contains this text (see `--list`);
    /// when no group's name does, the tables and rows whose name contains
    /// it (`polyval`, `keygen`). A group is built only if its name matches
    /// (some take seconds: the normal-basis tables), or when none does.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Print Markdown tables instead of the text table.
    #[arg(long)]
    markdown: bool,
    /// Also write a complete Markdown page (CPU, ISA level, features, date,
    /// commit, command, clock, tables) to FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "out_dir")]
    out: Option<PathBuf>,
    /// Also write the complete Markdown page to DIR/SLUG.md, where SLUG
    /// names this CPU (see --cpu-slug): the form for docs/benchmarks.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Print this CPU's file-name slug (e.g. intel-xeon-f6m207) and exit.
    #[arg(long)]
    cpu_slug: bool,
    /// Sample for about a tenth of the time (noisier).
    #[arg(long)]
    quick: bool,
    /// List the operations and exit.
    #[arg(long)]
    list: bool,
    /// Also run the rows that take minutes (e.g. 2^20-word products).
    #[arg(long)]
    heavy: bool,
    /// Instead of the groups: Poly1305's cycles/byte at every length
    /// 49..=4000 bytes for each implementation, written to CSV_FILE, with
    /// the figure (same name, .svg) and a note with the speed-up of complete
    /// decimation over Goll–Gueron per 1 KiB band (same name, .md).
    #[arg(long, value_name = "CSV_FILE", conflicts_with = "poly1305_plot")]
    poly1305_sweep: Option<PathBuf>,
    /// Instead of the groups: ChaCha20-Poly1305 sealing's cycles/byte at
    /// every length 64..=2048 bytes for fieldwork and each peer, written to
    /// CSV_FILE, with a note (same name, .md) of where each peer is faster.
    #[arg(long, value_name = "CSV_FILE")]
    chachapoly_sweep: Option<PathBuf>,
    /// Measure in N passes (over all the cases, or a sweep's lengths) and
    /// keep each column's fastest median: a disturbance of a shared machine
    /// lasting seconds then spoils the rows of one pass, not the figures.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=9))]
    passes: u32,
    /// Redraw the figure (CSV_FILE with .svg) from an existing sweep and
    /// print its band table, without measuring.
    #[arg(long, value_name = "CSV_FILE")]
    poly1305_plot: Option<PathBuf>,
    /// Instead of the groups: latency and throughput of the vector
    /// instructions the kernels use, in estimated core cycles (the inputs of
    /// the module docs' floor analyses).
    #[arg(long)]
    isa_rates: bool,
    /// Instead of timing: list the rows (implementations of the cases the
    /// filter selects; with these options it matches group names, see
    /// `--list`) as `index<TAB>group<TAB>size<TAB>bytes<TAB>ours|peer<TAB>name`,
    /// for `--count-row` (scripts/aarch64-counts.py: instruction counts
    /// under emulation, where time means nothing).
    #[arg(long, conflicts_with = "count_row")]
    count_list: bool,
    /// Instead of timing: run row INDEX of `--count-list` once, then
    /// `--count-reps` more times, and exit; an instruction counter around
    /// the process takes the difference between two values of
    /// `--count-reps`.
    #[arg(long, value_name = "INDEX")]
    count_row: Option<usize>,
    /// Instead of the groups: the reproduction of one source document
    /// (`--reproduce list` names them): its tables beside the figures the
    /// document prints. With `--out-dir DIR` the page is written to
    /// DIR/SEED-NAME-CPU.md, CPU the slug --cpu-slug prints (the form for
    /// docs/reproduce).
    #[arg(long, value_name = "NAME", conflicts_with = "out")]
    reproduce: Option<String>,
    /// The repetitions after the first call, with `--count-row`.
    #[arg(long, value_name = "N", default_value_t = 0)]
    count_reps: u64,
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
    // Before any peer library is used (OpenSSL reads its variable when it
    // loads, so the whole process runs again with it set).
    if let Some(code) = peer_cap::reexec(report.cap) {
        return code;
    }
    if args.list {
        for (name, _) in groups::GROUPS {
            println!("{name}");
        }
        return ExitCode::SUCCESS;
    }
    let cpu_model = benchtime::cpu_model();
    let cpu_id = page::cpu_id();
    // A capped run measures another ISA tier: its own page.
    let slug = match report.cap {
        Some(level) => format!(
            "{}-max-{}",
            page::cpu_slug(&cpu_model, cpu_id.as_ref()),
            level.name()
        ),
        None => page::cpu_slug(&cpu_model, cpu_id.as_ref()),
    };
    if args.cpu_slug {
        println!("{slug}");
        return ExitCode::SUCCESS;
    }
    #[cfg(target_arch = "x86_64")]
    if args.isa_rates {
        return match rates::run(&Clock::calibrate()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(csv) = &args.poly1305_plot {
        return match plot(csv) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(csv) = &args.chachapoly_sweep {
        return match run_chachapoly_sweep(csv, &args, report) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(csv) = &args.poly1305_sweep {
        return match run_sweep(csv, &args, report) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(name) = &args.reproduce {
        return match run_reproduce(name, &args, report, &slug) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        };
    }
    let page_path = match (&args.out, &args.out_dir) {
        (Some(file), _) => {
            // Fail now rather than after the run.
            let parent = file.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(dir) = parent.filter(|d| !d.is_dir()) {
                eprintln!("error: {} is not a directory", dir.display());
                return ExitCode::FAILURE;
            }
            Some(file.clone())
        }
        (None, Some(dir)) => {
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("error: cannot create {}: {e}", dir.display());
                return ExitCode::FAILURE;
            }
            Some(dir.join(format!("{slug}.md")))
        }
        (None, None) => None,
    };
    let filter = args.filter.as_deref().unwrap_or("");
    // A filter naming a group builds that group alone: building all of
    // them takes ≈ 20 s on Zen 3 (the normal-basis and GF(2^m) groups'
    // tables and cross-checks), which the quick runs of the tests and of
    // A/B measurements paid every time.
    let names_a_group = groups::GROUPS.iter().any(|(name, _)| name.contains(filter));
    // The cases, built afresh for every pass (see below).
    let build_cases = || -> Result<Vec<harness::Case>, String> {
        let mut cases = Vec::new();
        for (name, build) in groups::GROUPS {
            // Counting runs under emulation, where building every group's
            // inputs would take minutes: there the filter names groups.
            let counting = args.count_list || args.count_row.is_some();
            if (counting || names_a_group) && !name.contains(filter) {
                continue;
            }
            let cs = build().map_err(|e| format!("{name}: {e}"))?;
            cases.extend(
                cs.into_iter()
                    .filter(|c| {
                        name.contains(filter) || c.group.contains(filter) || c.size.contains(filter)
                    })
                    .filter(|c| args.heavy || !c.heavy),
            );
        }
        Ok(cases)
    };
    let mut cases = match build_cases() {
        Ok(cases) => cases,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    if cases.is_empty() {
        eprintln!("error: no operation matches the filter {filter:?} (see --list)");
        return ExitCode::FAILURE;
    }

    if args.count_list || args.count_row.is_some() {
        return count_mode(&mut cases, &args);
    }

    let clock = Clock::calibrate();
    let sampler = if args.quick {
        Sampler::quick(&clock)
    } else {
        Sampler::new(&clock)
    };
    let date = benchtime::today_utc();
    let header = format!(
        "peer-bench — {cpu_model}; level {}; {}; {date}",
        report.level,
        clock.describe(),
    );
    let results = match measure_passes(cases, &build_cases, args.passes, &sampler) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };

    let (group, short, long) = groups::poly1305::MARGINAL;
    let marginals = harness::marginals(&clock, &results, group, short, long);
    let mut tables = harness::markdown(&clock, &results);
    tables.push_str(&harness::marginal_markdown(&marginals));
    println!("{header}\n");
    if args.markdown {
        print!("{tables}");
    } else {
        print!("{}", harness::text_table(&clock, &results));
        let text = harness::marginal_text(&marginals);
        if !text.is_empty() {
            print!("\n{text}");
        }
    }
    if let Some(path) = &page_path {
        let info = page_info(report, date, &clock, args.passes);
        // One picture per group of sizes, beside the page, shown above the
        // tables.
        let stem = path
            .file_stem()
            .map_or("page".into(), |s| s.to_string_lossy().into_owned());
        let mut pictures = String::new();
        for (group, chart) in plot::charts(&clock, &results, &info.cpu_model) {
            let file = format!("{stem}-{}.svg", page::name_slug(group));
            if let Err(e) = std::fs::write(path.with_file_name(&file), chart.svg()) {
                eprintln!("error: cannot write {file}: {e}");
                return ExitCode::FAILURE;
            }
            pictures.push_str(&format!("![{group}]({file})\n"));
        }
        if !pictures.is_empty() {
            pictures.push('\n');
        }
        let tables = format!("{pictures}{tables}");
        if let Err(e) = std::fs::write(path, page::render(&info, &tables)) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    if let Some(path) = &args.json {
        let doc = harness::json(&clock, &results, &marginals, report.level.name());
        if let Err(e) = std::fs::write(path, doc.render()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
        eprintln!("wrote {}", path.display());
    }
    ExitCode::SUCCESS
}

/// What a page says about this run: the machine, the commit, the command
/// as typed, the clock and the peers' cap.
fn page_info(
    report: fieldwork::cpu::CpuReport,
    date: String,
    clock: &Clock,
    passes: u32,
) -> page::PageInfo {
    page::PageInfo {
        cpu_model: benchtime::cpu_model(),
        cpu_id: page::cpu_id(),
        report,
        date,
        commit: page::git_commit(),
        command: page::this_command(report.cap),
        clock: clock.describe(),
        passes,
        peer_cap: std::env::var(peer_cap::VARIABLE).ok(),
    }
}

/// `--reproduce NAME`: measures the document's rows, prints its tables and
/// writes its page under `--out-dir`.
fn run_reproduce(
    name: &str,
    args: &Args,
    report: fieldwork::cpu::CpuReport,
    slug: &str,
) -> Result<(), String> {
    if name == "list" {
        for d in reproduce::DOCS {
            println!("{}\t{}\t{}", d.name, d.seed, d.title);
        }
        return Ok(());
    }
    let doc = reproduce::find(name)?;
    let path = match &args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            Some(dir.join(reproduce::file_name(doc, slug)))
        }
        None => None,
    };
    let clock = Clock::calibrate();
    let sampler = if args.quick {
        Sampler::quick(&clock)
    } else {
        Sampler::new(&clock)
    };
    let date = benchtime::today_utc();
    let cases = (doc.cases)()?;
    let results = if cases.is_empty() {
        Vec::new()
    } else {
        measure_passes(cases, &doc.cases, args.passes, &sampler)?
    };
    let tables = (doc.tables)(&reproduce::Measurements::new(&clock, &results))?;
    print!("{}", reproduce::markdown(doc, &tables));
    if let Some(path) = path {
        let info = page_info(report, date, &clock, args.passes);
        std::fs::write(&path, reproduce::render(doc, &info, &tables))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}

/// Measures `cases` in `passes` passes, each after the first over freshly
/// built cases (`build`), and keeps each row's fastest median.
fn measure_passes(
    mut cases: Vec<harness::Case>,
    build: &dyn Fn() -> Result<Vec<harness::Case>, String>,
    passes: u32,
    sampler: &Sampler,
) -> Result<Vec<harness::Measured>, String> {
    let tty = std::io::stderr().is_terminal();
    let total = cases.len();
    // Per case, its rows from each pass; merged to the fastest afterwards.
    let mut runs: Vec<Vec<Vec<harness::Measured>>> = (0..total).map(|_| Vec::new()).collect();
    // Each pass after the first measures freshly built cases, while the
    // earlier ones stay allocated: its inputs, keys and states live at
    // other addresses. Some rows take up to 1.7× longer in one process
    // than in another (AES-GCM opening 16 B: 86 against 52 ns, Zen 4,
    // four runs), the layout of the process deciding; the fastest of
    // several layouts is what a pass over one layout cannot tell apart.
    let mut kept = Vec::new();
    for pass in 1..=passes {
        if pass > 1 {
            let fresh = build()?;
            if fresh.len() != total {
                return Err("the cases changed between passes".into());
            }
            kept.push(std::mem::replace(&mut cases, fresh));
        }
        for (i, case) in cases.iter_mut().enumerate() {
            let of = if passes > 1 {
                format!(" (pass {pass} of {passes})")
            } else {
                String::new()
            };
            let label = format!("{} {}{of}", case.group, case.size);
            if tty {
                eprint!("\r\x1b[2K[{}/{total}] {label}", i + 1);
            } else {
                eprintln!("[{}/{total}] {label}", i + 1);
            }
            let _ = std::io::stderr().flush();
            if let Some(r) = runs.get_mut(i) {
                r.push(harness::measure(case, sampler));
            }
        }
    }
    if tty {
        eprintln!("\r\x1b[2Kdone: {total} cases");
    }
    drop(kept);
    Ok(runs.into_iter().flat_map(harness::fastest).collect())
}

/// The CPU as the pages name it: model, then vendor, family and model
/// numbers when known.
fn cpu_description() -> String {
    let model = benchtime::cpu_model();
    match page::cpu_id() {
        Some(id) => format!(
            "{model} ({} family {} model {})",
            id.vendor, id.family, id.model
        ),
        None => model,
    }
}

/// The columns of the Poly1305 sweep: the dissertation's faithful
/// Goll–Gueron, fieldwork's Goll–Gueron schedule, complete decimation
/// (where this CPU or the cap allows AVX2), fieldwork's default, then the
/// peers of the `poly1305` group.
fn poly1305_sweep_columns() -> Result<Vec<groups::poly1305::Column>, String> {
    use groups::poly1305 as group;
    let mut columns: Vec<group::Column> = [sweep::GOLL_GUERON, sweep::DECIMATION]
        .iter()
        .filter_map(|b| group::backend(b))
        .collect();
    #[cfg(target_arch = "x86_64")]
    columns.splice(0..0, group::faithful_column());
    columns.push(group::best_column());
    columns.extend(group::peer_columns()?);
    Ok(columns)
}

/// Measures the Poly1305 sweep ([`sweep::FIRST`]..=[`sweep::LAST`] bytes),
/// reporting progress to `progress` every 100 lengths.
fn measure_poly1305_sweep(
    clock: &Clock,
    sampler: &Sampler,
    mut progress: impl FnMut(usize),
) -> Result<sweep::Sweep, String> {
    use groups::poly1305 as group;
    use sweep::{FIRST, LAST};
    let columns = poly1305_sweep_columns()?;
    let (key, data) = group::key_and_data(LAST);
    for c in &columns {
        group::check(c, &key, &data, FIRST..=LAST)?;
    }
    let mut rows = Vec::with_capacity(LAST - FIRST + 1);
    for length in FIRST..=LAST {
        let mut routines = columns
            .iter()
            .map(|c| group::routine(c.kind, key, data[..length].to_vec()))
            .collect::<Result<Vec<_>, String>>()?;
        let timings = sampler.run(&mut routines);
        rows.push(sweep::Row {
            length,
            cycles_per_byte: timings
                .iter()
                .map(|t| clock.cycles(t.median) / length as f64)
                .collect(),
        });
        if length.is_multiple_of(100) {
            progress(length);
        }
    }
    Ok(sweep::Sweep {
        columns: columns.into_iter().map(|c| c.name).collect(),
        rows,
    })
}

/// `--poly1305-sweep`: measures, then writes the CSV, the SVG and the note.
fn run_sweep(
    csv: &std::path::Path,
    args: &Args,
    report: fieldwork::cpu::CpuReport,
) -> Result<(), String> {
    let parent = csv.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent.filter(|d| !d.is_dir()) {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let svg_path = csv.with_extension("svg");
    let md_path = csv.with_extension("md");
    let clock = sweep_clock()?;
    let sampler = sweep::sampler(&clock, args.quick);
    let date = benchtime::today_utc();
    let cpu = cpu_description();
    eprintln!(
        "poly1305 sweep {}..={} bytes on {cpu}; {}",
        sweep::FIRST,
        sweep::LAST,
        clock.describe()
    );
    let mut progress = sweep_progress();
    let mut data = measure_poly1305_sweep(&clock, &sampler, &mut progress)?;
    for pass in 2..=args.passes {
        eprintln!("pass {pass} of {}", args.passes);
        data.keep_fastest(&measure_poly1305_sweep(&clock, &sampler, &mut progress)?)?;
    }
    let info = sweep_info(
        report,
        &cpu,
        &date,
        &clock,
        args.passes,
        file_name(csv),
        file_name(&svg_path),
    );
    let commit = info.commit.clone();
    let title = format!("Poly1305 cycles/byte — {cpu}; {date}; commit {commit}");
    let write = |path: &std::path::Path, text: &str| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    let bands = sweep::bands(&data);
    let note = sweep::markdown(&info, &data, bands.as_deref().map_err(String::as_str));
    write(csv, &data.to_csv())?;
    write(&svg_path, &sweep::svg(&data, &title))?;
    write(&md_path, &note)?;
    match &bands {
        Ok(b) => println!("{}", sweep::band_table(b)),
        Err(e) => eprintln!("no band table: {e}"),
    }
    println!("{}", sweep::column_means_table(&data));
    for p in [csv, &svg_path, &md_path] {
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// A sweep's progress report: each length it is told of, with the seconds
/// since the sweep began (all passes).
fn sweep_progress() -> impl FnMut(usize) {
    let started = std::time::Instant::now();
    move |length| eprintln!("  {length} B ({:.0} s)", started.elapsed().as_secs_f64())
}

/// The clock of a sweep. The figures are cycles: without a core-clock
/// estimate (the add and imul chains disagree when the machine is busy)
/// they would be ticks, so it is tried five times.
fn sweep_clock() -> Result<Clock, String> {
    (0..5)
        .map(|i| {
            if i > 0 {
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
            Clock::calibrate()
        })
        .find(|c| c.core_ghz.is_some())
        .ok_or_else(|| {
            "the core clock could not be estimated in five tries (is the machine busy?)".into()
        })
}

/// A path's file name, as text (empty if it has none).
fn file_name(p: &std::path::Path) -> String {
    p.file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
}

/// Where, when and how a sweep ran, for its note: the clock is calibrated
/// again now (after the sweep) and compared with `clock`, with a warning
/// on standard error if the core-clock estimate moved by more than 10 % or
/// was lost.
fn sweep_info(
    report: fieldwork::cpu::CpuReport,
    cpu: &str,
    date: &str,
    clock: &Clock,
    passes: u32,
    csv: String,
    svg: String,
) -> sweep::NoteInfo {
    let after = Clock::calibrate();
    let drifted = match (clock.core_ghz, after.core_ghz) {
        (Some(a), Some(b)) => (a - b).abs() > 0.1 * a.min(b),
        _ => true,
    };
    if drifted {
        eprintln!(
            "warning: the core-clock estimate moved or was lost during the sweep ({} → {}): cycles/byte are doubtful, speed-ups are not",
            clock.describe(),
            after.describe()
        );
    }
    let level = match report.cap {
        Some(c) => format!("`{}` ({}={c})", report.level, fieldwork::cpu::CAP_VARIABLE),
        None => format!("`{}`", report.level),
    };
    sweep::NoteInfo {
        cpu: cpu.to_string(),
        level,
        date: date.to_string(),
        commit: page::git_commit(),
        command: page::this_command(report.cap),
        clock: clock.describe(),
        clock_after: (after.describe(), drifted),
        passes,
        csv,
        svg,
    }
}

/// `--chachapoly-sweep`: measures, then writes the CSV and the note.
fn run_chachapoly_sweep(
    csv: &std::path::Path,
    args: &Args,
    report: fieldwork::cpu::CpuReport,
) -> Result<(), String> {
    let parent = csv.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = parent.filter(|d| !d.is_dir()) {
        return Err(format!("{} is not a directory", dir.display()));
    }
    let md_path = csv.with_extension("md");
    let clock = sweep_clock()?;
    let sampler = sweep::sampler(&clock, args.quick);
    let cpu = cpu_description();
    eprintln!(
        "chachapoly sweep {}..={} bytes on {cpu}; {}",
        groups::chachapoly::SWEEP_FIRST,
        groups::chachapoly::SWEEP_LAST,
        clock.describe()
    );
    let mut progress = sweep_progress();
    let (mut data, mut open) = groups::chachapoly::sweep(&clock, &sampler, &mut progress)?;
    for pass in 2..=args.passes {
        eprintln!("pass {pass} of {}", args.passes);
        let (d, o) = groups::chachapoly::sweep(&clock, &sampler, &mut progress)?;
        data.keep_fastest(&d)?;
        open.keep_fastest(&o)?;
    }
    let info = sweep_info(
        report,
        &cpu,
        &benchtime::today_utc(),
        &clock,
        args.passes,
        file_name(csv),
        String::new(),
    );
    let open_csv = csv.with_file_name(format!(
        "{}-open.csv",
        csv.file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    ));
    let open_name = file_name(&open_csv);
    let mut note = sweep::peer_note(
        &info,
        &data,
        "ChaCha20-Poly1305 sealing and opening (13 B AAD)",
        "--chachapoly-sweep",
    );
    let _ = std::fmt::Write::write_fmt(
        &mut note,
        format_args!(
            "\n## Opening\n\nThe same, opening in place (each call first copies the \
         sealed message into the work buffer: every column pays the same copy); \
         data: [{open_name}]({open_name}).\n\n{}\n## Opening: mean cycles/byte per band\n\n{}",
            sweep::peer_table(&open),
            sweep::column_means_table(&open)
        ),
    );
    let write = |path: &std::path::Path, text: &str| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write(csv, &data.to_csv())?;
    write(&open_csv, &open.to_csv())?;
    write(&md_path, &note)?;
    println!("{note}");
    for p in [csv, &open_csv, &md_path] {
        eprintln!("wrote {}", p.display());
    }
    Ok(())
}

/// `--poly1305-plot`: the SVG and the band table of an existing CSV.
fn plot(csv: &std::path::Path) -> Result<(), String> {
    let text =
        std::fs::read_to_string(csv).map_err(|e| format!("cannot read {}: {e}", csv.display()))?;
    let data = sweep::Sweep::from_csv(&text)?;
    let svg_path = csv.with_extension("svg");
    let title = format!(
        "Poly1305 cycles/byte — {}",
        csv.file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned())
    );
    std::fs::write(&svg_path, sweep::svg(&data, &title))
        .map_err(|e| format!("cannot write {}: {e}", svg_path.display()))?;
    println!("{}", sweep::band_table(&sweep::bands(&data)?));
    eprintln!("wrote {}", svg_path.display());
    Ok(())
}

/// `--count-list` and `--count-row`: no clock, no sampler; the rows in the
/// order of the cases and, within a case, of its implementations.
fn count_mode(cases: &mut [harness::Case], args: &Args) -> ExitCode {
    let mut rows = cases.iter_mut().flat_map(|c| {
        let (group, size, bytes) = (c.group, c.size.clone(), c.bytes);
        c.impls
            .iter_mut()
            .map(move |i| (group, size.clone(), bytes, i))
    });
    if args.count_list {
        for (index, (group, size, bytes, i)) in rows.enumerate() {
            let bytes = bytes.map_or_else(|| "-".to_string(), |b| b.to_string());
            let who = if i.ours { "ours" } else { "peer" };
            println!("{index}\t{group}\t{size}\t{bytes}\t{who}\t{}", i.name);
        }
        return ExitCode::SUCCESS;
    }
    let Some(index) = args.count_row else {
        return ExitCode::FAILURE;
    };
    match rows.nth(index) {
        Some((_, _, _, i)) => {
            // The first call pays one-time costs (lazy tables, the CPU
            // detection), identical in the runs being subtracted.
            (i.routine)(1);
            (i.routine)(args.count_reps);
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("error: no row {index} (see --count-list)");
            ExitCode::FAILURE
        }
    }
}
