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
fn empty_cap_counts_as_unset() {
    // `FIELDWORK_MAX_ISA=` (a script's unset variable passed on) is no cap,
    // as an empty RUSTFLAGS is no flags: the same report as without it.
    let empty = fieldwork(Some(""), &["cpu"]);
    assert!(empty.status.success(), "{empty:?}");
    let unset = fieldwork(None, &["cpu"]);
    assert_eq!(stdout(&empty), stdout(&unset));
    assert!(stdout(&empty).contains("FIELDWORK_MAX_ISA unset"));
    // A blank that is not empty is still an unknown level.
    let blank = fieldwork(Some(" "), &["cpu"]);
    assert_eq!(blank.status.code(), Some(2), "{blank:?}");
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
    for bad in ["avx3", " ", "AVX-512"] {
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

const SK_A: &str = "a4151a74fd5e31af9769976bf6f2bb84752ce599bdd64c677674a91c888eb413";
const PK_A: &str = "b9658b25193c55523757069a932e8711cc0e06bbdfd9b87427be030dcc63bc7de385b3efa9a4e3a355d28800c221a548";
const SK_B: &str = "7b25eba5a184f806d81a444f22791753319b081974fd7e72ae7b50cc35d3b522";
const PK_B: &str = "be6684dfdeefff6ad53f3ea100ba8c1b8d1c184acaddea036894451d1689a4321d656e660672f3bf295cf5a7a3865c61";
const SHARED: &str = "f9a9097f6bc8291a456f785aa2c2c80289249e380942cf77a281f2edc461c450fbb71f7c630e31ec211417744df44133";

#[test]
fn kummer_keygen_and_shared_give_the_known_answers() {
    for (sk, pk) in [(SK_A, PK_A), (SK_B, PK_B)] {
        let o = fieldwork(None, &["kummer", "keygen", "--secret", sk]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(stdout(&o), format!("secret: {sk}\npublic: {pk}\n"));
    }
    for (sk, pk) in [(SK_A, PK_B), (SK_B, PK_A)] {
        let o = fieldwork(
            Some("portable"),
            &["kummer", "shared", "--secret", sk, "--public", pk],
        );
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(stdout(&o), format!("{SHARED}\n"));
    }
}

#[test]
fn kummer_keygen_is_random_and_agrees() {
    let parse = |o: &std::process::Output| -> (String, String) {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s = stdout(o);
        let mut lines = s.lines();
        let sk = lines.next().unwrap().strip_prefix("secret: ").unwrap();
        let pk = lines.next().unwrap().strip_prefix("public: ").unwrap();
        assert_eq!((sk.len(), pk.len()), (64, 96), "{s}");
        (sk.to_string(), pk.to_string())
    };
    let (ska, pka) = parse(&fieldwork(None, &["kummer", "keygen"]));
    let (skb, pkb) = parse(&fieldwork(None, &["kummer", "keygen"]));
    assert_ne!(ska, skb);
    let ab = fieldwork(
        None,
        &["kummer", "shared", "--secret", &ska, "--public", &pkb],
    );
    let ba = fieldwork(
        None,
        &["kummer", "shared", "--secret", &skb, "--public", &pka],
    );
    assert!(ab.status.success() && ba.status.success());
    assert_eq!(stdout(&ab), stdout(&ba));
}

#[test]
fn kummer_bad_input_is_an_error_not_a_panic() {
    let zeros64 = "0".repeat(64);
    let zeros96 = "0".repeat(96);
    let neutral = "ffffffffffffffffffffffffffffff3faea1bc86f21aca6b28afa1bc86f21a4a51555555555555555555555555555555";
    let mut off_surface = PK_B.to_string();
    off_surface.replace_range(0..2, "bf");
    let mut high_bit = PK_B.to_string();
    high_bit.replace_range(30..32, "ff");
    let cases: [(&[&str], &str); 9] = [
        (&["keygen", "--secret", "abc"], "expected 64 hex digits"),
        (
            &["keygen", "--secret", &"x".repeat(64)],
            "'x' at position 0 is not a hex digit",
        ),
        (
            &["keygen", "--secret", &"é".repeat(32)],
            "'é' at position 0",
        ),
        (
            &["shared", "--secret", SK_A, "--public", &PK_B[..94]],
            "expected 96 hex digits",
        ),
        (
            &["shared", "--secret", SK_A, "--public", &off_surface],
            "not a point on the Kummer surface",
        ),
        (
            &["shared", "--secret", SK_A, "--public", &high_bit],
            "not below 2^127 - 1",
        ),
        (
            &["shared", "--secret", SK_A, "--public", &zeros96],
            "is zero",
        ),
        (
            &["shared", "--secret", &zeros64, "--public", PK_B],
            "neutral element",
        ),
        (
            &["shared", "--secret", SK_A, "--public", neutral],
            "neutral element",
        ),
    ];
    for (args, want) in cases {
        let mut full = vec!["kummer"];
        full.extend_from_slice(args);
        let o = fieldwork(None, &full);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert!(
            e.starts_with("error: ") && e.contains(want),
            "{args:?}: {e}"
        );
        assert!(!e.contains("panicked"), "{e}");
        assert!(o.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn speed_has_kummer_rows() {
    let o = fieldwork(
        Some("portable"),
        &["speed", "--quick", "--filter", "kummer"],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = stdout(&o);
    assert!(s.contains("kummer keygen"), "{s}");
    assert!(s.contains("kummer shared secret"), "{s}");
    assert!(s.contains("portable"), "{s}");
}
