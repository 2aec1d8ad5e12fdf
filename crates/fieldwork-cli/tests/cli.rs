//! The `fieldwork` binary end to end: the cap, its error, and `speed`.

use std::process::Command;

fn fieldwork(cap: Option<&str>, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fieldwork"));
    cmd.args(args);
    match cap {
        Some(c) => cmd.env("FIELDWORK_MAX_ISA", c),
        None => cmd.env_remove("FIELDWORK_MAX_ISA"),
    };
    cmd.output().expect("run fieldwork")
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn cpu_reports_the_portable_cap() {
    let o = fieldwork(Some("portable"), &["cpu"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(
        s.contains("cap:             FIELDWORK_MAX_ISA=portable"),
        "{s}"
    );
    assert!(s.contains("level in effect: portable"), "{s}");
    assert!(s.contains("usable:          (none)"), "{s}");
}

#[test]
fn cpu_without_cap_reports_detection() {
    let o = fieldwork(None, &["cpu"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(s.contains("FIELDWORK_MAX_ISA unset"), "{s}");
    let level = fieldwork::cpu::report().map(|r| r.level);
    // This test process may itself run under a cap; compare only when not.
    if std::env::var_os("FIELDWORK_MAX_ISA").is_none() {
        let level = level.expect("no cap, no error");
        assert!(s.contains(&format!("level in effect: {level}")), "{s}");
    }
}

#[test]
fn bad_cap_is_a_clear_error() {
    for bad in ["avx3", "", "AVX-512"] {
        let o = fieldwork(Some(bad), &["cpu"]);
        assert_eq!(o.status.code(), Some(2), "cap {bad:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(e.contains("FIELDWORK_MAX_ISA"), "{e}");
        assert!(
            e.contains("expected one of: portable, clmul, avx2, avx512, avx512ifma"),
            "{e}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = fieldwork(Some("nope"), &["speed", "--quick"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn cap_is_case_insensitive() {
    let o = fieldwork(Some("CLMUL"), &["cpu"]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(
        s.contains("cap:             FIELDWORK_MAX_ISA=clmul"),
        "{s}"
    );
}

#[test]
fn speed_writes_table_and_json() {
    let dir = std::env::temp_dir().join(format!("fieldwork-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("speed.json");
    let o = fieldwork(
        Some("portable"),
        &[
            "speed",
            "--quick",
            "--filter",
            "clmul64",
            "--json",
            json.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = stdout(&o);
    assert!(s.contains("gf2x::clmul64"), "{s}");
    assert!(s.contains("portable"), "{s}");
    assert!(s.contains("TSC"), "{s}");
    // Progress went to stderr.
    assert!(String::from_utf8_lossy(&o.stderr).contains("[1/1]"));
    let j = std::fs::read_to_string(&json).unwrap();
    assert!(j.contains("\"primitive\": \"gf2x::clmul64\""), "{j}");
    assert!(j.contains("\"backend\": \"portable\""), "{j}");
    assert!(j.contains("\"isa_cap\": \"portable\""), "{j}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn speed_filter_without_match_fails() {
    let o = fieldwork(None, &["speed", "--filter", "no-such-primitive"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no case matches"));
}
