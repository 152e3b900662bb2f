//! `monte play` scripted through a pipe, as a user's script plays it:
//! plain text, one prompt line per turn, moves and commands line by line.

mod common;

use std::process::{Command, Stdio};

use common::{Monte, scratch_dir};
use monte_rules::any::AnyGame;
use monte_rules::record::Record;
use monte_rules::{GameKind, Status};

/// A prompt: `White>`, `Black>` or `game over>`.
fn is_prompt(line: &str) -> bool {
    line == "White>" || line == "Black>" || line == "game over>"
}

fn start(args: &[&str]) -> (Monte, Vec<String>) {
    let mut monte = Monte::start(&[&["play"], args].concat());
    let first = monte.read_until(is_prompt);
    (monte, first)
}

/// Send a line and read the answer up to the next prompt.
fn step(monte: &mut Monte, line: &str) -> Vec<String> {
    monte.send(line);
    monte.read_until(is_prompt)
}

/// The position string of the last board in `lines`.
fn position(lines: &[String]) -> String {
    lines.iter().rev().find_map(|l| l.strip_prefix("Position: ")).expect("a board in the answer").to_string()
}

fn has(lines: &[String], text: &str) -> bool {
    lines.iter().any(|l| l.contains(text))
}

#[test]
fn two_humans_illegal_input_undo_save_load_and_flip() {
    let dir = scratch_dir("play-humans");
    let saved = dir.join("saved.txt");
    let saved = saved.to_str().unwrap();
    let (mut monte, first) = start(&["--game", "salta", "--white", "human", "--black", "human"]);
    assert_eq!(position(&first), AnyGame::new(GameKind::Salta, "seed", None).unwrap().fen());
    assert!(!first.iter().any(|l| l.contains('\x1b')), "no colours in a pipe");
    assert_eq!(first.last().unwrap(), "White>");

    // Wrong moves: the rules crate's reason, and what the piece can do.
    let answer = step(&mut monte, "c3-c4");
    assert!(has(&answer, "Not a legal move: c3-c4: c4: a light square"), "{answer:?}");
    assert!(has(&answer, "The piece on c3 can play: c3-b4 c3-d4"), "{answer:?}");
    let answer = step(&mut monte, "h8-g7");
    assert!(has(&answer, "that piece is Black's, and White is to move"), "{answer:?}");
    assert!(has(&answer, "No legal move starts on h8."), "{answer:?}");
    let answer = step(&mut monte, "zz");
    assert!(has(&answer, "Not a legal move: zz: expected a step"), "{answer:?}");
    assert!(has(&answer, "Type `moves` for all legal moves"), "{answer:?}");
    assert_eq!(answer.len(), 3, "no board after a refused move: {answer:?}");

    let answer = step(&mut monte, "moves");
    assert!(has(&answer, "9 legal moves for White:"), "{answer:?}");
    assert!(answer.iter().any(|l| l.split_whitespace().collect::<Vec<_>>() == ["c3:", "c3-b4", "c3-d4"]), "{answer:?}");
    let answer = step(&mut monte, "moves e3");
    assert!(has(&answer, "From e3: e3-d4 e3-f4"), "{answer:?}");

    let mut expected = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
    for mv in ["c3-d4", "h8-g7"] {
        let answer = step(&mut monte, mv);
        expected.play(mv).unwrap();
        assert_eq!(position(&answer), expected.fen());
    }
    assert!(has(&step(&mut monte, "help"), "save FILE"));

    // Between two humans, undo takes back one move.
    let answer = step(&mut monte, "undo");
    assert!(has(&answer, "Took back h8-g7."), "{answer:?}");
    expected.undo();
    assert_eq!(position(&answer), expected.fen());
    assert_eq!(answer.last().unwrap(), "Black>");

    step(&mut monte, "h8-g7");
    expected.play("h8-g7").unwrap();
    let after_two = expected.fen();
    assert!(has(&step(&mut monte, &format!("save {saved}")), "Saved the game (2 moves)"));
    let answer = step(&mut monte, "e3-f4");
    assert_ne!(position(&answer), after_two);
    let answer = step(&mut monte, &format!("load {saved}"));
    assert!(has(&answer, "(2 moves, salta seed)"), "{answer:?}");
    assert_eq!(position(&answer), after_two);
    let answer = step(&mut monte, "load /nonexistent/monte/game.txt");
    assert!(has(&answer, "load: cannot read"), "{answer:?}");

    // The saved record replays under the rules.
    let record = Record::parse(&std::fs::read_to_string(saved).unwrap()).unwrap();
    assert_eq!(record.tag("White"), Some("Human"));
    assert_eq!(record.result, "*");
    assert_eq!(record.moves.iter().map(|m| m.text.as_str()).collect::<Vec<_>>(), ["c3-d4", "h8-g7"]);

    // Flip: rank 1 on top, files from j to a.
    let answer = step(&mut monte, "flip");
    let board: Vec<&String> = answer.iter().skip_while(|l| !l.trim_start().starts_with("1 ")).collect();
    assert!(board[0].starts_with("  1    ★5"), "{answer:?}");
    assert!(board[9].starts_with(" 10 ☆1"), "{answer:?}");
    assert_eq!(board[10].split_whitespace().collect::<String>(), "jihgfedcba");
    assert_eq!(position(&answer), after_two);

    monte.send("quit");
    assert!(monte.wait().success());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn against_the_engine_undo_takes_back_the_reply_and_the_move() {
    let (mut monte, first) = start(&["--game", "salta", "--black", "ai:1", "--seed", "5"]);
    let start = position(&first);
    let answer = step(&mut monte, "undo");
    assert!(has(&answer, "Nothing to take back."), "{answer:?}");

    let answer = step(&mut monte, "c3-d4");
    assert!(has(&answer, "White played c3-d4."), "{answer:?}");
    let reply = answer
        .iter()
        .find_map(|l| l.strip_prefix("Black (Monte level 1, Beginner) played "))
        .unwrap_or_else(|| panic!("the engine replies: {answer:?}"));
    let (mv, rest) = reply.split_once(": ").unwrap();
    assert!(rest.starts_with("score "), "the reply shows its score: {reply}");
    let mut game = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
    game.play("c3-d4").unwrap();
    game.play(mv).unwrap();
    assert_eq!(position(&answer), game.fen());

    let answer = step(&mut monte, "undo");
    assert!(has(&answer, &format!("Took back c3-d4 {mv}.")), "{answer:?}");
    assert_eq!(position(&answer), start);
    assert_eq!(answer.last().unwrap(), "White>");

    let answer = step(&mut monte, "hint");
    let hint = answer.iter().find_map(|l| l.strip_prefix("Hint: ")).unwrap_or_else(|| panic!("{answer:?}"));
    let (mv, rest) = hint.split_once(' ').unwrap();
    assert!(rest.starts_with("(score ") && rest.contains(" for White, depth "), "{hint}");
    AnyGame::new(GameKind::Salta, "seed", None).unwrap().play(mv).unwrap();

    // The end of the input ends the program like `quit`.
    monte.close_input();
    assert!(monte.wait().success());
}

#[test]
fn a_whole_game_against_the_engine_ends_with_result_margin_and_record() {
    let dir = scratch_dir("play-whole");
    let file = dir.join("game.txt");
    let rules = "seed,move-limit=12";
    let (mut monte, mut answer) = start(&[
        "--game",
        "salta",
        "--rules",
        rules,
        "--white",
        "human",
        "--black",
        "ai:2",
        "--seed",
        "11",
        "--record",
        file.to_str().unwrap(),
    ]);
    // The human plays legal moves chosen from the board it is shown.
    let mut turn = 0;
    while answer.last().unwrap() == "White>" {
        let game = AnyGame::new(GameKind::Salta, rules, Some(&position(&answer))).unwrap();
        let moves = game.legal_moves();
        let mv = moves[(turn * 7 + 3) % moves.len()].notation.clone();
        answer = step(&mut monte, &mv);
        assert!(has(&answer, &format!("White played {mv}.")), "{answer:?}");
        turn += 1;
    }
    assert_eq!(answer.last().unwrap(), "game over>", "{}", monte.transcript());
    let result = answer.iter().find_map(|l| l.strip_prefix("Result: ")).expect("a result line");
    assert!(has(&answer, "Saved the game ("), "{answer:?}");

    let game = AnyGame::from_record(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let Status::Over(outcome) = game.status() else { panic!("the recorded game is over") };
    assert_eq!(result, format!("{} — {outcome}.", outcome.result_string()));
    if outcome.winner.is_some() {
        assert!(result.contains(", margin "), "a scored Salta game shows its margin: {result}");
    }
    let record = Record::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(record.tag("Black"), Some("Monte level 2 (Novice)"));
    assert_eq!(record.tag("Margin"), outcome.margin.map(|m| m.to_string()).as_deref());

    // After the end: moves are refused, undo goes back into the game.
    let answer = step(&mut monte, "c3-d4");
    assert!(has(&answer, "the game is over"), "{answer:?}");
    let answer = step(&mut monte, "undo");
    assert_eq!(answer.last().unwrap(), "White>", "{answer:?}");
    monte.send("quit");
    assert!(monte.wait().success());
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn engine_against_engine_plays_to_the_end_without_input() {
    let dir = scratch_dir("play-engines");
    let file = dir.join("focus.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["play", "--game", "focus", "--move-limit", "15", "--white", "ai:1", "--black", "ai:2"])
        .args(["--seed", "3", "--color", "always", "--record", file.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .expect("run monte");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\x1b["), "colours when asked");
    assert!(text.contains("White (Monte level 1, Beginner) played "));
    let result = text.lines().find_map(|l| l.strip_prefix("Result: ")).expect("a result line");
    let game = AnyGame::from_record(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let outcome = game.status().outcome().expect("the recorded game is over");
    assert_eq!(result, format!("{} — {outcome}.", outcome.result_string()));
    assert!(game.moves_played() <= 30);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_settings_are_refused() {
    for (args, message) in [
        (&["--white", "robot"][..], "expected `human` or `ai:LEVEL` with LEVEL 1-8"),
        (&["--black", "ai:0"][..], "LEVEL 1-8"),
        (&["--rules", "modern"][..], "unknown Salta rule set `modern`"),
        (&["--fen", "s5 w - 0"][..], "board: expected 10 ranks"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_monte"))
            .args(["play", "--game", "salta"])
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run monte");
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(message), "{args:?}: {err}");
    }
}
