//! `ct-check`: every secret-handling operation of fieldwork under valgrind
//! memcheck, secrets marked undefined. See the crate docs and
//! `scripts/ct-check.sh`.
//!
//! ```text
//! valgrind --suppressions=crates/ct-check/declassify.supp target/release/ct-check [--leaky] [FILTER]
//! ```
//!
//! Exit status 0 when no operation was reported (with `--leaky`: when every
//! leaky variant was reported), 1 otherwise, 2 when not run under valgrind.

use ct_check::ops::{LEAKY, OPS, Op, UNTAINTED_OUTPUTS};
use ct_check::valgrind;
use std::process::ExitCode;
use std::sync::atomic::Ordering;

/// Operations not run, because they are documented as not constant time
/// and take public data only.
const EXEMPT: &[(&str, &str)] = &[
    (
        "gf2x::Gf2Poly (parsing, division, gcd, inverses, irreducibility)",
        "documented for public polynomials only (moduli, not secrets)",
    ),
    (
        "gf2m::BinaryField::new / sparse_irreducible, from_poly_vartime",
        "the modulus is public; vartime by name",
    ),
    (
        "gf2m::normal::GaussianNormalBasis::new / lowest_type",
        "the basis parameters are public",
    ),
    (
        "kummer::PublicKey::from_bytes",
        "validates a public key (public data, documented not constant time)",
    ),
    (
        "decoders of field elements (from_hex, from_be_bytes, from_words)",
        "reject bits past m with an early error: the validity of an encoding is public",
    ),
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let leaky = args.iter().any(|a| a == "--leaky");
    let native = args.iter().any(|a| a == "--native");
    let filter = args.iter().find(|a| !a.starts_with("--"));
    if !valgrind::running_on_valgrind() && !native {
        eprintln!(
            "ct-check: not running under valgrind (run scripts/ct-check.sh, or pass --native to only execute the operations)"
        );
        return ExitCode::from(2);
    }
    let level = fieldwork::cpu::report().map(|r| r.level.to_string());
    println!(
        "ct-check: FIELDWORK_MAX_ISA level in effect: {}",
        level.as_deref().unwrap_or("(invalid FIELDWORK_MAX_ISA)")
    );
    if cfg!(feature = "valgrind-isa") {
        println!(
            "VPCLMULQDQ and VAES on ymm emulated by their 128-bit forms, ADX reported (feature valgrind-isa)"
        );
    }
    if let Ok(r) = fieldwork::cpu::report() {
        println!("features in effect: {}", r.usable);
    }
    println!("backends in effect: {}", backends());
    let ops: &[Op] = if leaky { LEAKY } else { OPS };
    let mut failed = 0;
    for op in ops
        .iter()
        .filter(|op| filter.is_none_or(|f| op.name.contains(f.as_str())))
    {
        let before = valgrind::error_count();
        let untainted_before = UNTAINTED_OUTPUTS.load(Ordering::Relaxed);
        (op.run)(1);
        let reports = valgrind::error_count() - before;
        let untainted = UNTAINTED_OUTPUTS.load(Ordering::Relaxed) - untainted_before;
        let ok = if leaky {
            reports > 0 || native
        } else {
            reports == 0 && untainted == 0
        };
        if !ok {
            failed += 1;
        }
        let verdict = match (leaky, reports) {
            (false, 0) if untainted > 0 => format!(
                "FAIL: {untainted} outputs carry no secret bits (the secret did not reach the code: the check would be vacuous)"
            ),
            (false, 0) => "ok".to_string(),
            (false, n) => format!("FAIL: {n} reports (see valgrind's output above)"),
            (true, 0) => "FAIL: the deliberate leak was not reported".to_string(),
            (true, n) => format!("reported as expected ({n} reports)"),
        };
        println!("  {:32} {verdict}", op.name);
    }
    if !leaky {
        println!("exempt (not run):");
        for (what, why) in EXEMPT {
            println!("  {what}: {why}");
        }
    }
    if failed > 0 {
        println!("ct-check: {failed} operation(s) failed");
        ExitCode::FAILURE
    } else {
        println!("ct-check: passed");
        ExitCode::SUCCESS
    }
}

/// The backend each area dispatches to at this level (under valgrind: what
/// valgrind's CPUID lets the library see).
fn backends() -> String {
    use fieldwork::chachapoly::aead::KeyInit;
    use fieldwork::{chacha20, chachapoly, gcm, gf2m, gf2x, ghash, kummer, poly1305};
    let k = [1u8; 32];
    [
        ("gf2x", gf2x::Dispatch::best().name()),
        ("gf2m", gf2m::Dispatch::best().name()),
        ("ghash", ghash::GHash::new(&[1; 16]).backend_name()),
        ("gcm", gcm::Aes128Gcm::new(&[1u8; 16].into()).backend_name()),
        ("poly1305", poly1305::Poly1305::new(&k).backend_name()),
        (
            "chacha20",
            chacha20::ChaCha20::new(&k, &[0; 12]).backend_name(),
        ),
        (
            "chachapoly",
            chachapoly::ChaCha20Poly1305::new(&k.into()).backend_name(),
        ),
        ("kummer", kummer::Dispatch::best().name()),
    ]
    .map(|(area, name)| format!("{area}={name}"))
    .join(" ")
}
