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

#[test]
fn bench_ends_quietly_when_its_reader_stops_early() {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    // `monte bench | head -1`: the reader closes the pipe after one line.
    let mut child = Command::new(env!("CARGO_BIN_EXE_monte"))
        .arg("bench")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run monte");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut first).expect("read a line");
    assert!(first.starts_with("salta depth"), "{first}");
    let out = child.wait_with_output().expect("wait for monte");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bench_prints_its_signatures() {
    // The totals depend only on the code: perft on the move generator,
    // the playouts on the random moves drawn, the search on the search and
    // the evaluation. A change that alters one on purpose says so here
    // (and in docs/engine.md for the search).
    let out = ok(&["bench"]);
    assert!(out.contains("perft total nodes 150850943\n"), "{out}");
    assert!(out.contains("playout signature (total moves, last positions) 4396285 90c0b150a8b81d0a\n"), "{out}");
    assert!(out.ends_with("search signature (total nodes) 9507819\n"), "{out}");
    for part in ["salta playouts rules ludii: 1000 games", "focus playouts rules sackson: 60 games"] {
        assert!(out.contains(part), "{out}");
    }
}

/// The records of a `--records` file, one after another.
fn records(path: &std::path::Path) -> Vec<monte_rules::record::Record> {
    let text = std::fs::read_to_string(path).expect("records file");
    monte_rules::record::Record::parse_many(&text).expect("records")
}

fn temp_file(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("monte-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

#[test]
fn a_match_stopped_early_keeps_every_finished_game_whole() {
    // Each record is flushed as its game ends: a match killed part-way
    // (Ctrl-C, a closed terminal) leaves the finished games, each complete.
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let path = temp_file("stopped-match.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["match", "--game", "salta", "--engine1", "ab:depth=2", "--engine2", "ab:depth=1"])
        .args(["--games", "100000", "--max-plies", "30", "--concurrency", "1", "--records"])
        .arg(&path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start monte match");
    let started = Instant::now();
    let finished_games = || std::fs::read_to_string(&path).map(|t| t.matches("[Game ").count()).unwrap_or(0);
    while finished_games() < 3 && started.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().expect("stop the match");
    child.wait().expect("the match ends");
    let games = records(&path);
    assert!(games.len() >= 3, "the games finished before the match was stopped are in the file: {}", games.len());
    for (i, r) in games.iter().enumerate() {
        r.replay::<monte_rules::salta::SaltaPosition>().expect("every record is whole and replays");
        assert_eq!(r.tag("Round"), Some((i + 1).to_string().as_str()));
    }
}

#[test]
fn a_tiny_match_completes_and_writes_records_that_replay() {
    use monte_rules::salta::SaltaPosition;
    let path = temp_file("salta-match.txt");
    let args = [
        "match",
        "--game",
        "salta",
        "--engine1",
        "ab:depth=2",
        "--engine2",
        "ab:depth=1",
        "--games",
        "4",
        "--max-plies",
        "40",
        "--records",
        path.to_str().unwrap(),
    ];
    let out = ok(&args);
    assert!(out.contains("ab:depth=2 vs ab:depth=1: games 4"), "{out}");
    assert!(out.contains("elo "), "{out}");
    let games = records(&path);
    assert_eq!(games.len(), 4);
    let mut first_engine_points = 0.0;
    for (i, r) in games.iter().enumerate() {
        let game = r.replay::<SaltaPosition>().expect("the record replays");
        assert_eq!(r.tag("Round"), Some((i + 1).to_string().as_str()));
        let (white, black) = if i % 2 == 0 { ("ab:depth=2", "ab:depth=1") } else { ("ab:depth=1", "ab:depth=2") };
        assert_eq!((r.tag("White"), r.tag("Black")), (Some(white), Some(black)));
        // 40 plies in all: the game was stopped and scored by distance.
        assert_eq!(game.moves().len(), 40);
        assert_eq!(r.tag("Termination"), Some("adjudication"));
        let last = r.moves.last().and_then(|m| m.comment.as_deref()).unwrap_or_default();
        assert!(last.contains("adjudicated after 40 plies: distance White"), "{last}");
        let pos = game.position();
        use monte_rules::Side;
        let expected = match pos.distance(Side::White).cmp(&pos.distance(Side::Black)) {
            std::cmp::Ordering::Less => "1-0",
            std::cmp::Ordering::Greater => "0-1",
            std::cmp::Ordering::Equal => "1/2-1/2",
        };
        assert_eq!(r.result, expected);
        first_engine_points += match (r.result.as_str(), i % 2 == 0) {
            ("1/2-1/2", _) => 0.5,
            ("1-0", true) | ("0-1", false) => 1.0,
            _ => 0.0,
        };
        // The opening's four random moves are marked.
        assert!(r.moves[3].comment.as_deref().unwrap_or_default().contains("random opening"));
    }
    assert!(out.contains(&format!("score {:.1}%", 100.0 * first_engine_points / 4.0)), "{out}");
    // Depth-limited engines and a seeded opening: the same match again gives the same games.
    let again = temp_file("salta-match-again.txt");
    let mut args2 = args.to_vec();
    *args2.last_mut().unwrap() = again.to_str().unwrap();
    ok(&args2);
    assert_eq!(std::fs::read_to_string(&path).unwrap(), std::fs::read_to_string(&again).unwrap());
    let _ = (std::fs::remove_file(path), std::fs::remove_file(again));
}

#[test]
fn a_match_from_an_openings_file_ends_games_by_the_rules() {
    use monte_rules::focus::FocusPosition;
    let openings = temp_file("openings.txt");
    // A Focus position where Black has one piece left: White takes it.
    let fen = ".,.,.,./.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,w,b,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,./.,.,.,. w 17 0 20";
    std::fs::write(&openings, format!("# one position\n\n{fen}\n")).unwrap();
    let path = temp_file("focus-match.txt");
    let out = ok(&[
        "match",
        "--game",
        "focus",
        "--engine1",
        "mcts:playouts=200",
        "--engine2",
        "uct:playouts=50",
        "--openings",
        openings.to_str().unwrap(),
        "--games",
        "2",
        "--concurrency",
        "2",
        "--records",
        path.to_str().unwrap(),
    ]);
    assert!(out.contains("games 2"), "{out}");
    let games = records(&path);
    assert_eq!(games.len(), 2);
    for r in &games {
        assert_eq!(r.tag("FEN"), Some(fen));
        let game = r.replay::<FocusPosition>().expect("the record replays");
        assert!(game.status().is_over(), "{r}");
        assert_ne!(r.tag("Termination"), Some("adjudication"));
    }
    let _ = (std::fs::remove_file(path), std::fs::remove_file(openings));
}

#[test]
fn sprt_stops_a_match_between_equals() {
    // The same engine on both sides, each opening with both colours: about
    // 50%, far from the hypotheses of +100 and +200 Elo.
    let out = ok(&[
        "match",
        "--game",
        "focus",
        "--engine1",
        "ab:depth=1",
        "--engine2",
        "ab:depth=1",
        "--games",
        "200",
        "--max-plies",
        "60",
        "--sprt",
        "100,200,0.2,0.2",
    ]);
    assert!(out.contains("H0 accepted"), "{out}");
    assert!(!out.contains("games 200"), "{out}");
}

#[test]
fn bad_match_settings_are_named() {
    let base = ["match", "--game", "salta", "--games", "2"];
    fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        [base, extra].concat()
    }
    let err = fails(&with(&base, &["--engine1", "ab", "--engine2", "uct"]));
    assert!(err.contains("engine `ab` has no limit"), "{err}");
    let err = fails(&with(&base, &["--engine1", "gnu", "--engine2", "uct", "--movetime", "10"]));
    assert!(err.contains("unknown engine `gnu`"), "{err}");
    let err = fails(&with(&base, &["--engine1", "level=0", "--engine2", "uct", "--movetime", "10"]));
    assert!(err.contains("level must be a number from 1 to 8"), "{err}");
    let err = fails(&with(&base, &["--engine1", "ab:depth=1", "--engine2", "uct", "--nodes", "10", "--sprt", "0,5"]));
    assert!(err.contains("four numbers"), "{err}");
    let openings = temp_file("bad-openings.txt");
    std::fs::write(&openings, "s5,s4\n").unwrap();
    let err = fails(&with(
        &base,
        &["--engine1", "ab:depth=1", "--engine2", "ab:depth=1", "--openings", openings.to_str().unwrap()],
    ));
    assert!(err.contains("bad-openings.txt, line 1"), "{err}");
    let _ = std::fs::remove_file(openings);
}

#[test]
fn tune_fits_to_games_decided_on_the_board_or_won_at_a_scored_limit() {
    // White's sun 1 is three steps from home, Black's moon 1 one step
    // off its target and wandering: a goal in five plies; the same start
    // won by White's count at a move limit, drawn by the count at a
    // move limit, and a game left unfinished.
    let fen = "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,O3,O2,./.,.,.,.,./.,.,.,.,./.,.,.,O1,./\
               o1,.,.,.,./.,o2,o3,o4,o5/m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0";
    let record = |rules: &str, moves: &str, result: &str| {
        format!("[Game \"salta\"]\n[Rules \"{rules}\"]\n[FEN \"{fen}\"]\n[Result \"{result}\"]\n\n{moves} {result}\n\n")
    };
    let text = record("seed", "1. g5-h6 b4-c5 2. h6-i7 c5-b4 3. i7-j8", "1-0")
        + &record("seed,move-limit=2", "1. g5-h6 b4-c5 2. h6-i7 c5-d6", "1-0")
        + &record("seed,move-limit=1", "1. g5-h6 b4-c5", "1/2-1/2")
        + &record("seed", "1. g5-h6", "*");
    let path = temp_file("tune-records.txt");
    std::fs::write(&path, text).unwrap();
    let data = temp_file("tune-data.txt");
    let out = ok(&[
        "tune",
        "--game",
        "salta",
        "--records",
        path.to_str().unwrap(),
        "--random-plies",
        "0",
        "--sample-every",
        "1",
        "--data-out",
        data.to_str().unwrap(),
    ]);
    assert!(out.contains("records: 2 games decided on the board or won at a scored limit"), "{out}");
    assert!(out.contains("left out: 1 move limit, 1 unfinished or adjudicated"), "{out}");
    assert!(out.contains("distance: 100"), "{out}");
    // The four positions of the goal game before its last move and the
    // three of the game won at the limit, each labelled with White's win.
    let lines: Vec<String> =
        std::fs::read_to_string(&data).unwrap().lines().filter(|l| !l.starts_with('#')).map(String::from).collect();
    assert_eq!(lines.len(), 7, "{lines:?}");
    assert!(lines.iter().all(|l| l.starts_with("1 ; ")), "{lines:?}");
    assert!(lines[0].ends_with(" b - 1"), "{lines:?}");
    // A broken record is an error that names the file and the game.
    std::fs::write(&path, record("seed", "1. g5-g6", "*")).unwrap();
    let err = fails(&["tune", "--game", "salta", "--records", path.to_str().unwrap()]);
    assert!(err.contains("game 1") && err.contains("g5-g6"), "{err}");
}

#[test]
fn the_operator_resets_a_password_and_signs_the_account_out() {
    use monte_server::accounts::{hash_password_now, verify_password_now};
    use monte_store::{AccountRow, Store};
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("monte-user-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let database = format!("sqlite:{}", dir.join("monte.db").display());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let store = runtime.block_on(Store::connect(&database, "test")).unwrap();
    let account = AccountRow {
        id: "a1".into(),
        name: "Ann".into(),
        password_hash: hash_password_now("old password").unwrap(),
        created_at: 0,
    };
    runtime.block_on(async {
        assert!(store.create_account(&account, "ann").await.unwrap());
        store.create_session("session", "a1", 0, i64::MAX).await.unwrap();
    });
    let stored = || runtime.block_on(store.account_by_name("ann")).unwrap().unwrap().password_hash;

    // Made up and printed once.
    let printed = ok(&["user", "reset-password", "ANN", "--database", &database]);
    let password = printed.trim();
    assert_eq!(password.len(), 20, "{printed}");
    assert!(verify_password_now(password, &stored()));
    assert!(runtime.block_on(store.session_account("session", 1)).unwrap().is_none(), "signed out everywhere");

    // Read from standard input, never from the command line.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_monte"))
        .args(["user", "reset-password", "Ann", "--database", &database, "--password-stdin"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"chosen by Ann\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty(), "the password chosen is not shown");
    assert!(verify_password_now("chosen by Ann", &stored()));

    assert!(
        fails(&["user", "reset-password", "Nobody", "--database", &database]).contains("no account named `Nobody`")
    );
    runtime.block_on(store.close());
    let _ = std::fs::remove_dir_all(&dir);
}
