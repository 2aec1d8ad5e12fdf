//! `fieldwork`: the command-line face of the fieldwork library.
//!
//! - `fieldwork cpu` — the detected CPU features, the `FIELDWORK_MAX_ISA` cap
//!   and the instruction-set level in effect.
//! - `fieldwork speed` — times every primitive the library has at the sizes
//!   that matter for it, with the backend in use.
//! - `fieldwork kummer keygen|shared` — Kummer-surface Diffie–Hellman key
//!   pairs and shared secrets, in hex.

mod kummer;
mod speed;

use clap::{Args, Parser, Subcommand};
use fieldwork::cpu::{self, IsaLevel};
use std::path::PathBuf;
use std::process::ExitCode;

/// Finite-field arithmetic for cryptography: reports and benchmarks.
#[derive(Parser, Debug)]
#[command(name = "fieldwork", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Time every primitive at the sizes that matter, with the backend in use.
    Speed(SpeedArgs),
    /// Show detected CPU features, the FIELDWORK_MAX_ISA cap and the level in effect.
    Cpu,
    /// Kummer-surface Diffie–Hellman: make a key pair, or a shared secret.
    Kummer(kummer::KummerArgs),
}

/// Options of `fieldwork speed`.
#[derive(Args, Debug)]
pub struct SpeedArgs {
    /// Only run cases whose primitive, backend or size contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Sample for about a tenth of the time (noisier).
    #[arg(long)]
    pub quick: bool,
    /// Time every backend usable on this CPU, not only the one in use.
    #[arg(long)]
    pub all_backends: bool,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Check the cap before anything dispatches, so a bad value is an error
    // message and an exit code rather than a panic inside the library.
    let report = match cpu::report() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Command::Cpu => {
            print_cpu(&report);
            ExitCode::SUCCESS
        }
        Command::Speed(args) => match speed::run(&args, &report) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
        Command::Kummer(args) => match kummer::run(&args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        },
    }
}

fn print_cpu(r: &cpu::CpuReport) {
    println!("cpu:             {}", benchtime::cpu_model());
    println!("core:            {}", cpu::core_name());
    println!("detected:        {}", r.detected);
    match r.cap {
        Some(c) => println!("cap:             {}={c}", cpu::CAP_VARIABLE),
        None => println!("cap:             none ({} unset)", cpu::CAP_VARIABLE),
    }
    println!("usable:          {}", r.usable);
    println!("level in effect: {}", r.level);
    println!();
    println!("levels this CPU supports without a cap:");
    let best = IsaLevel::highest_supported(r.detected);
    for l in IsaLevel::ALL {
        let missing: Vec<_> = IsaLevel::ALL
            .iter()
            .filter(|x| **x <= l)
            .flat_map(|x| x.defining_features().iter())
            .filter(|f| !r.detected.has(*f))
            .map(|f| f.name())
            .collect();
        let mark = if l <= best { "yes" } else { "no " };
        if missing.is_empty() {
            println!("  {:<11} {mark}", l.name());
        } else {
            println!("  {:<11} {mark} (missing {})", l.name(), missing.join(", "));
        }
    }
}
