//! `monte ugi` driven as a tournament runner drives it: scripted sessions,
//! errors, `stop` during an infinite search, and two engines playing whole
//! games against each other with every move checked by the rules crate.

mod common;

use common::Monte;
use monte_rules::any::AnyGame;
use monte_rules::{GameKind, Side, Status};

/// A started engine that has answered `ugi` and `isready`.
fn engine(args: &[&str]) -> (Monte, Vec<String>) {
    let mut ugi = Monte::start(&[&["ugi"], args].concat());
    ugi.send("ugi");
    let hello = ugi.read_until(|l| l == "ugiok");
    ugi.send("isready");
    ugi.read_until(|l| l == "readyok");
    (ugi, hello)
}

fn ask(ugi: &mut Monte, line: &str) -> String {
    ugi.send(line);
    let lines = ugi.read_until(|l| l.starts_with("response ") || l.starts_with("info string error"));
    let last = lines.last().expect("a line").clone();
    assert!(last.starts_with("response "), "{line}: {last}\n{}", ugi.transcript());
    last["response ".len()..].to_string()
}

/// Send a command that must be refused; returns the error text.
fn refused(ugi: &mut Monte, line: &str) -> String {
    ugi.send(line);
    ugi.send("isready");
    let lines = ugi.read_until(|l| l == "readyok");
    let errors: Vec<&String> = lines.iter().filter(|l| l.starts_with("info string error: ")).collect();
    assert_eq!(errors.len(), 1, "`{line}` must give one error:\n{}", ugi.transcript());
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")), "`{line}` must not search");
    errors[0]["info string error: ".len()..].to_string()
}

/// `go ...` to the end: the info lines and the move.
fn go(ugi: &mut Monte, line: &str) -> (Vec<String>, String) {
    ugi.send(line);
    let lines = ugi.read_until(|l| l.starts_with("bestmove "));
    let best = lines.last().expect("bestmove")["bestmove ".len()..].to_string();
    (lines, best)
}

#[test]
fn handshake_names_the_options_and_queries_answer() {
    let (mut ugi, hello) = engine(&[]);
    assert!(hello[0].starts_with("id name Monte "), "{hello:?}");
    assert!(hello[1].starts_with("id author "), "{hello:?}");
    let games: String = GameKind::ALL.iter().map(|kind| format!(" var {kind}")).collect();
    for option in [
        &format!("option name Game type combo default salta{games}"),
        "option name Rules type string default seed",
        "option name Level type spin default 0 min 0 max 8",
        "option name Threads type spin default 1 min 1 max 256",
        "option name Hash type spin default 64 min 1 max 4096",
        "option name Contempt type spin default 100 min 0 max 1000",
    ] {
        assert!(hello.iter().any(|l| l == option), "missing `{option}` in {hello:?}");
    }
    assert_eq!(ask(&mut ugi, "query p1turn"), "true");
    assert_eq!(ask(&mut ugi, "query gameover"), "false");
    assert_eq!(ask(&mut ugi, "query result"), "none");
    ugi.send("position startpos moves c3-d4");
    assert_eq!(ask(&mut ugi, "query p1turn"), "false");

    // Black has reached every target and White is to move: Black has won.
    let black_home = "\
.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5/o1,o2,o3,o4,o5/\
m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 120";
    ugi.send(&format!("position fen {black_home}"));
    assert_eq!(ask(&mut ugi, "query gameover"), "true");
    assert_eq!(ask(&mut ugi, "query result"), "p2win");
    assert_eq!(ask(&mut ugi, "query p1turn"), "true");
    // `go` on a finished game: an error, and a bestmove that is no move so
    // that a runner waiting for one does not hang.
    let (lines, best) = go(&mut ugi, "go depth 2");
    assert_eq!(best, "none");
    assert!(lines.iter().any(|l| l.starts_with("info string error: go: the game is over")), "{lines:?}");

    // Focus, with a rule set of its own.
    ugi.send("setoption name Game value focus");
    ugi.send("setoption name Rules value sackson,draw-goes-to-first");
    ugi.send("position startpos moves c2-c1");
    assert_eq!(ask(&mut ugi, "query p1turn"), "false");
    let (_, best) = go(&mut ugi, "go depth 2");
    let mut game = AnyGame::new(GameKind::Focus, "sackson,draw-goes-to-first", None).unwrap();
    game.play("c2-c1").unwrap();
    game.play(&best).unwrap_or_else(|e| panic!("{best}: {e}"));
    ugi.send("quit");
    assert!(ugi.wait().success());
}

#[test]
fn info_lines_carry_depth_score_nodes_nps_and_pv() {
    let (mut ugi, _) = engine(&["--game", "focus"]);
    ugi.send("position startpos");
    let (lines, best) = go(&mut ugi, "go depth 3");
    let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth ")).collect();
    assert!(infos.len() >= 3, "one line per iteration and a total: {lines:?}");
    for info in &infos {
        let words: Vec<&str> = info.split_whitespace().collect();
        for key in ["depth", "score", "nodes", "nps", "time", "pv"] {
            assert!(words.contains(&key), "`{key}` missing in {info}");
        }
        let score = words.iter().position(|w| *w == "score").unwrap();
        assert!(["cp", "win", "loss"].contains(&words[score + 1]), "{info}");
        words[score + 2].parse::<i64>().unwrap_or_else(|_| panic!("score value in {info}"));
    }
    let last = infos.last().unwrap();
    assert!(last.contains(&format!(" pv {best}")), "the last line's pv starts with the move: {last}");
    let mut game = AnyGame::new(GameKind::Focus, "seed", None).unwrap();
    game.play(&best).unwrap();
}

#[test]
fn errors_change_nothing() {
    let (mut ugi, _) = engine(&[]);
    let position = "position startpos moves c3-d4 h8-g7";
    ugi.send(position);
    let (before, best_before) = go(&mut ugi, "go depth 3");
    ugi.send("uginewgame");

    let mut errors = Vec::new();
    for bad in [
        "frobnicate",
        "position",
        "position middle",
        "position fen",
        "position fen s5,s4 w - 0",
        "position startpos moves c3-d4 c3-d4",
        "position startpos moves c3-d4 zz",
        "position startpos c3-d4",
        "setoption name Rules value modern",
        "setoption name Game value chess",
        "setoption name Level value 9",
        "setoption name Threads value 0",
        "setoption name Hash value lots",
        "setoption name Contempt value -5",
        "setoption name Colour value red",
        "setoption Level 3",
        "go depth",
        "go depth x",
        "go sideways",
        "query",
        "query weather",
    ] {
        errors.push((bad, refused(&mut ugi, bad)));
    }
    let find = |cmd: &str| &errors.iter().find(|(c, _)| *c == cmd).unwrap().1;
    assert!(find("frobnicate").contains("unknown command `frobnicate`"));
    assert!(
        find("position startpos moves c3-d4 zz").contains("move 2 `zz`"),
        "{}",
        find("position startpos moves c3-d4 zz")
    );
    assert!(find("position startpos moves c3-d4 c3-d4").contains("no Black piece there"));
    assert!(find("position fen s5,s4 w - 0").contains("position:"));
    assert!(find("setoption name Rules value modern").contains("unknown Salta rule set `modern`"));
    assert!(find("setoption name Level value 9").contains("0-8"));
    assert!(find("setoption name Contempt value -5").contains("0-1000"));
    assert!(find("go sideways").contains("unknown parameter `sideways`"));

    // The position is the start (from uginewgame), untouched by the bad
    // positions; the options are untouched too: the same search from the
    // same position gives the same lines and move as before.
    assert_eq!(ask(&mut ugi, "query p1turn"), "true");
    ugi.send(position);
    let (after, best_after) = go(&mut ugi, "go depth 3");
    assert_eq!(best_after, best_before);
    // nps and time depend on the machine; the rest must not change.
    let strip_time = |lines: &[String]| -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                let mut kept = Vec::new();
                let mut words = l.split_whitespace();
                while let Some(w) = words.next() {
                    if w == "nps" || w == "time" {
                        words.next();
                    } else {
                        kept.push(w);
                    }
                }
                kept.join(" ")
            })
            .collect()
    };
    assert_eq!(strip_time(&after), strip_time(&before));
}

#[test]
fn stop_ends_an_infinite_search_and_the_engine_answers_while_it_thinks() {
    let (mut ugi, _) = engine(&[]);
    ugi.send("position startpos moves e3-f4");
    ugi.send("go infinite");
    ugi.read_until(|l| l.starts_with("info depth "));
    ugi.send("isready");
    let lines = ugi.read_until(|l| l == "readyok");
    assert!(!lines.iter().any(|l| l.starts_with("bestmove")), "still searching: {lines:?}");
    assert_eq!(ask(&mut ugi, "query p1turn"), "false");
    // Changing the engine while it searches is refused.
    ugi.send("position startpos");
    let lines = ugi.read_until(|l| l.starts_with("info string"));
    assert!(lines.last().unwrap().contains("a search is running; send `stop` first"), "{lines:?}");
    ugi.send("stop");
    let lines = ugi.read_until(|l| l.starts_with("bestmove "));
    let best = &lines.last().unwrap()["bestmove ".len()..];
    let mut game = AnyGame::new(GameKind::Salta, "seed", None).unwrap();
    game.play("e3-f4").unwrap();
    game.play(best).unwrap_or_else(|e| panic!("{best}: {e}"));
    // The position was not changed by the refused command.
    assert_eq!(ask(&mut ugi, "query p1turn"), "false");

    // `quit` during a search ends the search (with its bestmove) and the process.
    ugi.send("go infinite");
    ugi.read_until(|l| l.starts_with("info depth "));
    ugi.send("quit");
    let rest = ugi.read_until(|l| l.starts_with("bestmove "));
    assert!(rest.last().unwrap().len() > "bestmove ".len());
    assert!(ugi.wait().success());
}

/// How a side searches in the engine-against-engine games.
struct Player {
    options: &'static [&'static str],
    go: &'static str,
}

/// Two `monte ugi` processes play a whole game, refereed as Cute Games
/// referees a game of an unknown kind: it asks the engine to move whose
/// turn `query p1turn` says it is, ends when `query gameover` says so, and
/// takes the result both engines give to `query result`. Every move is
/// checked with the rules crate, which must agree with the engines.
fn engine_match(kind: GameKind, rules: &str, p1: Player, p2: Player) -> (AnyGame, String) {
    let mut engines = Vec::new();
    for player in [&p1, &p2] {
        let (mut ugi, _) = engine(&[]);
        ugi.send(&format!("setoption name Game value {kind}"));
        ugi.send(&format!("setoption name Rules value {rules}"));
        for option in player.options {
            ugi.send(option);
        }
        ugi.send("isready");
        let lines = ugi.read_until(|l| l == "readyok");
        assert!(!lines.iter().any(|l| l.contains("error")), "{lines:?}");
        ugi.send("uginewgame");
        ugi.send("isready");
        ugi.read_until(|l| l == "readyok");
        engines.push(ugi);
    }
    let mut referee = AnyGame::new(kind, rules, None).unwrap();
    let mut moves: Vec<String> = Vec::new();
    let position = |moves: &[String]| match moves.is_empty() {
        true => "position startpos".to_string(),
        false => format!("position startpos moves {}", moves.join(" ")),
    };
    loop {
        engines[0].send(&position(&moves));
        let p1turn = ask(&mut engines[0], "query p1turn") == "true";
        assert_eq!(p1turn, referee.side_to_move() == Side::White);
        let (us, player) = if p1turn { (0, &p1) } else { (1, &p2) };
        engines[us].send("isready");
        engines[us].read_until(|l| l == "readyok");
        engines[us].send(&position(&moves));
        let over = ask(&mut engines[us], "query gameover") == "true";
        assert_eq!(over, referee.status().is_over(), "after {moves:?}");
        if over {
            break;
        }
        let (_, best) = go(&mut engines[us], player.go);
        let played =
            referee.play(&best).unwrap_or_else(|e| panic!("move {}: `{best}` is illegal: {e}", moves.len() + 1));
        assert_eq!(played, best, "moves come in the canonical notation");
        moves.push(best);
        assert!(moves.len() <= 400, "the game should have ended by its move limit");
    }
    let mut results = Vec::new();
    for ugi in &mut engines {
        ugi.send(&position(&moves));
        assert_eq!(ask(ugi, "query gameover"), "true");
        results.push(ask(ugi, "query result"));
        ugi.send("quit");
    }
    assert_eq!(results[0], results[1], "both engines give the same result");
    let expected = match referee.status() {
        Status::Over(o) => match o.winner {
            Some(Side::White) => "p1win",
            Some(Side::Black) => "p2win",
            None => "draw",
        },
        Status::Ongoing => unreachable!("the loop ends at the end of the game"),
    };
    assert_eq!(results[0], expected, "the engines agree with the rules crate");
    for ugi in engines {
        assert!(ugi.wait().success());
    }
    (referee, results.remove(0))
}

#[test]
fn two_engines_play_a_whole_game_of_salta() {
    let (game, result) = engine_match(
        GameKind::Salta,
        "seed,move-limit=40",
        Player { options: &[], go: "go depth 2" },
        Player { options: &["setoption name Level value 2"], go: "go p1time 3000 p2time 3000 p1inc 10 p2inc 10" },
    );
    assert!(game.moves_played() >= 10, "a real game: {result} after {:?}", game.history());
}

#[test]
fn two_engines_play_a_whole_game_of_focus() {
    let (game, result) = engine_match(
        GameKind::Focus,
        "seed,move-limit=40",
        Player { options: &["setoption name Hash value 8"], go: "go nodes 3000" },
        Player { options: &["setoption name Threads value 2"], go: "go movetime 20" },
    );
    assert!(game.moves_played() >= 10, "a real game: {result} after {:?}", game.history());
}
