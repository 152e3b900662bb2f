//! The `monte` binary, run as a user runs it.

use std::process::{Command, Output};

fn monte(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_monte")).args(args).output().expect("run monte")
}

fn ok(args: &[&str]) -> String {
    let out = monte(args);
    assert!(out.status.success(), "monte {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Runs `monte` expecting failure; returns stderr.
fn fails(args: &[&str]) -> String {
    let out = monte(args);
    assert!(!out.status.success(), "monte {args:?} should fail");
    assert!(out.stdout.is_empty(), "nothing on stdout after an error");
    String::from_utf8(out.stderr).expect("utf-8")
}

#[test]
fn perft_prints_nodes_last() {
    assert_eq!(ok(&["perft", "--game", "salta", "--depth", "3"]).trim(), "nodes 891");
    assert_eq!(ok(&["perft", "--game", "focus", "--depth", "2"]).trim(), "nodes 172");
    assert_eq!(ok(&["perft", "--game", "focus", "--rules", "sackson", "--depth", "2"]).trim(), "nodes 4460");
    assert_eq!(ok(&["perft", "--game", "salta", "--rules", "meyer1908", "--depth", "4"]).trim(), "nodes 9801");
}

#[test]
fn perft_divide_has_one_line_per_root_move_and_sums_to_total() {
    let out = ok(&["perft", "--game", "focus", "--depth", "3", "--divide"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 12 + 1);
    let last = lines.last().unwrap();
    assert_eq!(*last, "nodes 3146");
    let sum: u64 = lines[..12]
        .iter()
        .map(|l| {
            let (mv, n) = l.rsplit_once(' ').expect("`<move> <count>`");
            assert!(!mv.is_empty());
            n.parse::<u64>().expect("count")
        })
        .sum();
    assert_eq!(sum, 3146);
}

#[test]
fn moves_lists_legal_moves_one_per_line() {
    let out = ok(&["moves", "--game", "salta"]);
    let moves: Vec<&str> = out.lines().collect();
    assert_eq!(moves.len(), 9);
    assert!(moves.contains(&"a3-b4"));
    assert!(moves.contains(&"i3-j4"));
    let out = ok(&["moves", "--game", "focus"]);
    assert_eq!(out.lines().count(), 12);
    assert!(out.lines().any(|l| l == "d3xd1"));
}

#[test]
fn show_plays_moves_and_prints_the_position_string() {
    let out = ok(&["show", "--game", "salta", "--moves", "c3-d4 h8-g7"]);
    assert!(out.contains("Position: s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,.,o1/.,.,.,o2,./"), "{out}");
    assert!(out.contains("/.,O2,.,.,./O1,.,O3,O4,O5/"), "{out}");
    assert!(out.trim_end().ends_with(" w - 2"), "{out}");
    assert!(!out.contains('\x1b'), "no colours in a pipe");
    let coloured = ok(&["show", "--game", "focus", "--color", "always"]);
    assert!(coloured.contains('\x1b'));
}

#[test]
fn bad_input_gets_an_error_that_names_the_problem() {
    let fen = "s5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,o2,o1/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,.,./O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0";
    assert!(fails(&["show", "--game", "salta", "--fen", fen]).contains("rank 4: expected 5 squares, found 6"));
    let err = fails(&["show", "--game", "salta", "--moves", "c3-d4 c3-d4"]);
    assert!(err.contains("move 2") && err.contains("c3: no Black piece there"), "{err}");
    let err = fails(&["perft", "--game", "salta", "--rules", "modern", "--depth", "1"]);
    assert!(err.contains("unknown Salta rule set `modern`") && err.contains("meyer1908"), "{err}");
    let err = fails(&["moves", "--game", "salta", "-o", "colour=red"]);
    assert!(err.contains("unknown Salta option `colour`"), "{err}");
    let err = fails(&["moves", "--game", "salta", "--rules", "ludii", "-o", "calls=on"]);
    assert!(err.contains("calls=on with compulsory-jumps=on"), "{err}");
    let err = fails(&["moves", "--game", "salta", "--rules", "meyer1908", "--move-limit", "0"]);
    assert!(err.contains("repetition=off needs a move limit"), "{err}");
    let err = fails(&["moves", "--game", "chess"]);
    assert!(err.contains("unknown game `chess`"), "{err}");
    let err = fails(&[
        "show",
        "--game",
        "focus",
        "--fen",
        ".,.,.,./b,b,w,w,b,b/.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./w,w,b,b,w,wwbwbw/.,.,.,. w 0 0 0",
    ]);
    assert!(err.contains("g2: stack `wwbwbw` is 6 high"), "{err}");
}

#[test]
fn rule_options_apply_one_by_one() {
    // seed with a move limit of 1 move per side: the game ends after two plies.
    let out = ok(&["show", "--game", "salta", "--move-limit", "1", "--moves", "c3-d4 h8-g7"]);
    assert!(out.contains("Game over"), "{out}");
    assert!(out.contains("Rules: seed,move-limit=1"), "{out}");
    let err = fails(&["show", "--game", "salta", "--move-limit", "1", "--moves", "c3-d4 h8-g7 d4-c5"]);
    assert!(err.contains("the game is over"), "{err}");
    // Focus draw-goes-to-first is a Focus option only.
    assert!(fails(&["moves", "--game", "salta", "--draw-goes-to-first"]).contains("unknown Salta option"));
    ok(&["moves", "--game", "focus", "--rules", "sackson", "--draw-goes-to-first"]);
}

#[test]
fn bench_playouts_reports_games_and_endings() {
    let out = ok(&["bench", "playouts", "--game", "salta", "--rules", "ludii", "--seconds", "0.3"]);
    assert!(out.contains("games/s") && out.contains("moves/s"), "{out}");
    assert!(out.contains("draw by move limit") || out.contains("wins by goal"), "{out}");
    let out = ok(&["bench", "playouts", "--game", "focus", "--seconds", "0.3", "--threads", "2"]);
    assert!(out.contains("2 thread(s)"), "{out}");
}
