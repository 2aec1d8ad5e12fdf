//! `peer-bench` end to end: it runs, checks agreement, and prints each format.

use std::process::Command;

fn peer_bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_peer-bench"))
        .args(args)
        .output()
        .expect("run peer-bench")
}

#[test]
fn lists_groups() {
    let o = peer_bench(&["--list"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("clmul64"));
}

#[test]
fn quick_run_markdown_and_json() {
    let json = std::env::temp_dir().join(format!("peer-bench-test-{}.json", std::process::id()));
    let o = peer_bench(&[
        "--quick",
        "--filter",
        "clmul64",
        "--markdown",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.contains("**clmul64**"), "{md}");
    assert!(md.contains("| 64×64 bit"), "{md}");
    let j = std::fs::read_to_string(&json).unwrap();
    assert!(j.contains("\"operation\": \"clmul64\""), "{j}");
    assert!(j.contains("\"ratio_to_ours\": 1"), "{j}");
    let _ = std::fs::remove_file(&json);
}

#[test]
fn unknown_filter_fails() {
    let o = peer_bench(&["--filter", "no-such-operation"]);
    assert!(!o.status.success());
}

#[test]
fn kummer_rows_and_rate() {
    let json = std::env::temp_dir().join(format!("peer-bench-kummer-{}.json", std::process::id()));
    let o = peer_bench(&[
        "--quick",
        "--filter",
        "kummer",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    for row in [
        "keygen (fixed base)",
        "shared secret",
        "shared secrets/s per core",
    ] {
        assert!(text.contains(row), "{text}");
    }
    for peer in [
        "fieldwork default",
        "fieldwork (portable)",
        "x25519-dalek",
        "aws-lc-rs",
        "ring",
    ] {
        assert!(text.contains(peer), "{text}");
    }
    let j = std::fs::read_to_string(&json).unwrap();
    assert!(j.contains("\"calls_per_second\": null"), "{j}");
    assert!(
        j.lines()
            .any(|l| l.trim_start().starts_with("\"calls_per_second\": ") && !l.contains("null")),
        "{j}"
    );
    let _ = std::fs::remove_file(&json);
}

#[test]
fn ghash_tables_rows_and_columns() {
    let o = peer_bench(&["--quick", "--filter", "ghash", "--markdown"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8_lossy(&o.stdout);
    for table in [
        "**ghash** — cycles/byte · cycles/call",
        "**polyval** — cycles/byte · cycles/call",
    ] {
        assert!(md.contains(table), "{md}");
    }
    for row in [
        "| 16 B ",
        "| 1420 B ",
        "| 65536 B ",
        "| 16384 B, key prepared ",
    ] {
        assert_eq!(md.matches(row).count(), 2, "{row} in {md}");
    }
    for column in [
        "fieldwork best (",
        "fieldwork (portable)",
        "RustCrypto ghash ",
        "RustCrypto polyval ",
    ] {
        assert!(md.contains(column), "{md}");
    }
    // `--filter` also matches a table's name: the POLYVAL table alone.
    let o = peer_bench(&["--quick", "--filter", "polyval", "--markdown"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(
        md.contains("**polyval**") && !md.contains("**ghash**"),
        "{md}"
    );
}
