//! The test-only toy game (`monte_rules::toy`) through the `monte` binary
//! built for these tests: the CLI has no code of its own for it, only the
//! game's line in the list of games.

mod common;

use std::process::Command;

use common::Monte;
use monte_rules::record::Record;
use monte_rules::toy::ToyPosition;

fn ok(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_monte")).args(args).output().expect("run monte");
    assert!(out.status.success(), "monte {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn moves_and_perft() {
    let moves: Vec<String> = ok(&["moves", "--game", "toy"]).lines().map(str::to_string).collect();
    assert_eq!(moves, ["a1-a2", "a1-b2", "b1-a2", "b1-b2", "b1-c2", "c1-b2", "c1-c2"]);
    assert_eq!(ok(&["perft", "--game", "toy", "--depth", "3"]).trim(), "nodes 232");
    let divided = ok(&["perft", "--game", "toy", "--depth", "3", "--divide"]);
    assert!(divided.starts_with("a1-a2 37\na1-b2 35\nb1-a2 30\n"), "{divided}");
    let shown = ok(&["show", "--game", "toy", "--moves", "b1-b2 a4-b3", "--color", "never"]);
    assert!(shown.ends_with("Position: .,b,b/.,b,./.,w,./w,.,w w 2\n"), "{shown}");
}

#[test]
fn a_match_finishes_its_games() {
    let dir = std::env::temp_dir().join(format!("monte-toy-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("toy-match.txt");
    let out = ok(&[
        "match",
        "--game",
        "toy",
        "--engine1",
        "level=2",
        "--engine2",
        "ab:depth=3",
        "--games",
        "4",
        "--random-plies",
        "1",
        "--records",
        path.to_str().expect("utf-8 path"),
    ]);
    assert!(out.contains("level=2 vs ab:depth=3: games 4"), "{out}");
    let records = Record::parse_many(&std::fs::read_to_string(&path).expect("records")).expect("records parse");
    assert_eq!(records.len(), 4);
    for record in &records {
        assert_eq!(record.tag("Game"), Some("toy"));
        let game = record.replay::<ToyPosition>().expect("the record replays");
        assert!(game.status().is_over(), "{record}");
        assert_ne!(record.tag("Termination"), Some("adjudication"));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn ugi_and_play() {
    let mut ugi = Monte::start(&["ugi", "--game", "toy"]);
    ugi.send("ugi");
    let hello = ugi.read_until(|l| l == "ugiok");
    assert!(hello.iter().any(|l| l.starts_with("option name Game type combo default toy ")), "{hello:?}");
    ugi.send("position startpos moves b1-b2 a4-b3");
    ugi.send("go depth 3");
    let best = ugi.read_until(|l| l.starts_with("bestmove "));
    // White's piece on b2 reaches rank 4 in two steps; a4, left by Black,
    // is the way.
    assert_eq!(best.last().map(String::as_str), Some("bestmove b2-a3"), "{}", ugi.transcript());
    ugi.finish();

    let game = Monte::start(&["play", "--game", "toy", "--white", "ai:1", "--black", "ai:3", "--seed", "1"]);
    let lines = game.finish();
    assert!(lines.iter().any(|l| l.starts_with("Result: ")), "{lines:?}");
}
