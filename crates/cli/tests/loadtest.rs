//! `monte loadtest` at a tiny size, as a correctness check of the load
//! generator and the server under it (no speed is asserted: the figures
//! are for people, docs/server-load.md).

use std::process::Command;

use monte_store::testing::{admin_url, skip_postgres};

/// Runs a tiny load test and returns its output; fails on a non-zero exit.
fn loadtest(extra: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["loadtest", "--games", "5", "--rate", "40", "--seconds", "1", "--warmup", "0.5", "--clients", "2"])
        .args(extra)
        .output()
        .expect("run monte loadtest");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "monte loadtest failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
}

/// The measured window's line: moves were played and answered, none refused.
fn check_window(out: &str) {
    let line = out.lines().find(|l| l.trim_start().starts_with("window 1:")).unwrap_or_else(|| panic!("{out}"));
    let moves: f64 = line
        .split("window 1:")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no moves/s in {line:?}"));
    assert!(moves > 0.0, "no move was answered: {line}");
    assert!(line.contains("errors 0;"), "the server refused moves or closed sockets: {out}");
    assert!(line.contains("KiB"), "the memory of the started server is measured: {line}");
}

#[test]
fn a_tiny_load_test_on_sqlite_plays_moves_without_errors() {
    let out = loadtest(&[]);
    assert!(out.contains("server started here on sqlite"), "{out}");
    check_window(&out);
}

#[test]
fn a_tiny_load_test_on_postgres_plays_moves_without_errors() {
    if skip_postgres("a_tiny_load_test_on_postgres_plays_moves_without_errors") {
        return;
    }
    let out = loadtest(&["--database", &admin_url()]);
    assert!(out.contains("server started here on postgresql"), "{out}");
    check_window(&out);
}

#[test]
fn bad_arguments_are_refused_with_a_reason() {
    let output = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["loadtest", "--games", "0"])
        .output()
        .expect("run monte loadtest");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--games"), "{output:?}");
}
