//! Perft cases from data files.
//!
//! Every `tests/perft/*.txt` is read. The game is named by the start of
//! the file name (`salta*.txt`, `focus*.txt`: any game of the list of
//! games). One case per line:
//!
//! ```text
//! rules ; position string ; depth=count depth=count ...
//! ```
//!
//! `#` starts a comment (position strings never contain `#`); blank lines
//! are ignored. A malformed line, an unknown rule set or an invalid position
//! string fails the test at once, naming the file and line.
//!
//! In debug builds the entries whose expected count is above
//! [`DEBUG_LIMIT`] are skipped (and the number skipped is printed); release
//! builds run everything (`cargo test --release`, as CI does).

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use monte_rules::perft::perft;
use monte_rules::{GameKind, Position, with_game};

/// Expected counts above this are not run in debug builds.
const DEBUG_LIMIT: u64 = 3_000_000;

/// One parsed line.
#[derive(Debug, PartialEq, Eq)]
struct Case {
    rules: String,
    fen: String,
    /// (depth, expected count), depths strictly increasing.
    counts: Vec<(u32, u64)>,
}

/// Where a case came from, for messages.
struct Located {
    file: String,
    line: usize,
    game: GameKind,
    case: Case,
}

/// Parse one line of a case file: `Ok(None)` for blank and comment lines.
fn parse_line(text: &str) -> Result<Option<Case>, String> {
    let content = match text.find('#') {
        Some(i) => &text[..i],
        None => text,
    }
    .trim();
    if content.is_empty() {
        return Ok(None);
    }
    let fields: Vec<&str> = content.split(';').map(str::trim).collect();
    if fields.len() != 3 {
        return Err(format!("expected 3 fields `rules ; position string ; depth=count ...`, found {}", fields.len()));
    }
    let (rules, fen, counts_text) = (fields[0], fields[1], fields[2]);
    if rules.is_empty() {
        return Err("empty rules field".to_string());
    }
    if fen.is_empty() {
        return Err("empty position string".to_string());
    }
    let mut counts: Vec<(u32, u64)> = Vec::new();
    for item in counts_text.split_whitespace() {
        let (d, n) = item.split_once('=').ok_or_else(|| format!("`{item}`: expected depth=count"))?;
        let depth: u32 = d.parse().map_err(|_| format!("`{item}`: depth `{d}` is not a number"))?;
        let count: u64 = n.parse().map_err(|_| format!("`{item}`: count `{n}` is not a number"))?;
        if depth == 0 {
            return Err(format!("`{item}`: depths start at 1"));
        }
        if let Some(&(prev, _)) = counts.last()
            && depth <= prev
        {
            return Err(format!("`{item}`: depths must increase (after depth {prev})"));
        }
        counts.push((depth, count));
    }
    if counts.is_empty() {
        return Err("no depth=count entries".to_string());
    }
    Ok(Some(Case { rules: rules.to_string(), fen: fen.to_string(), counts }))
}

fn game_of(path: &Path) -> GameKind {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    GameKind::ALL.into_iter().find(|kind| stem.starts_with(kind.name())).unwrap_or_else(|| {
        panic!("{}: cannot tell the game; perft case files are named after it, e.g. salta*.txt", path.display())
    })
}

fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("perft");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{}: no *.txt perft case files", dir.display());
    files
}

fn load_cases() -> Vec<Located> {
    let mut cases = Vec::new();
    for path in case_files() {
        let game = game_of(&path);
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let before = cases.len();
        for (i, line) in text.lines().enumerate() {
            match parse_line(line) {
                Ok(Some(case)) => cases.push(Located { file: file.clone(), line: i + 1, game, case }),
                Ok(None) => {}
                Err(e) => panic!("{file}:{}: malformed perft case: {e}\n  {line}", i + 1),
            }
        }
        assert!(cases.len() > before, "{file}: no perft cases");
    }
    cases
}

/// Run one case; returns the mismatches and the number of skipped entries.
fn run<P: Position>(c: &Located, skip_deep: bool) -> (Vec<String>, usize) {
    let here = format!("{}:{}", c.file, c.line);
    let rules: P::Rules = c.case.rules.parse().unwrap_or_else(|e| panic!("{here}: rules `{}`: {e}", c.case.rules));
    let pos = P::from_fen(rules, &c.case.fen).unwrap_or_else(|e| panic!("{here}: {e}\n  {}", c.case.fen));
    let again = P::from_fen(rules, &pos.fen()).unwrap_or_else(|e| panic!("{here}: re-reading fen(): {e}"));
    assert_eq!(again, pos, "{here}: the position does not survive fen() and from_fen()");
    let mut failures = Vec::new();
    let mut skipped = 0;
    for &(depth, expected) in &c.case.counts {
        if skip_deep && expected > DEBUG_LIMIT {
            skipped += 1;
            continue;
        }
        let got = perft(&pos, depth);
        if got != expected {
            failures.push(format!("{here}: depth {depth}: expected {expected}, got {got}\n  {}", c.case.fen));
        }
    }
    (failures, skipped)
}

#[test]
fn perft_cases_from_data_files() {
    let cases = load_cases();
    // A test-only game keeps its perft tests in its folder.
    for game in GameKind::ALL.into_iter().filter(|kind| kind.in_every_build()) {
        assert!(cases.iter().any(|c| c.game == game), "no perft cases for {game}");
    }
    let skip_deep = cfg!(debug_assertions);
    let mut failures = Vec::new();
    let mut skipped = 0;
    let mut run_entries = 0;
    for c in &cases {
        let (f, s) = with_game!(c.game, P => run::<P>(c, skip_deep));
        run_entries += c.case.counts.len() - s;
        failures.extend(f);
        skipped += s;
    }
    // Written to stderr directly so that it shows without --nocapture.
    let mut err = std::io::stderr();
    let _ = writeln!(err, "perft: {} cases, {run_entries} depth entries run", cases.len());
    if skipped > 0 {
        let _ = writeln!(err, "skipped {skipped} deep cases: run with --release (expected counts above {DEBUG_LIMIT})");
    }
    assert!(failures.is_empty(), "{} perft mismatches:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn case_lines_parse() {
    assert_eq!(parse_line(""), Ok(None));
    assert_eq!(parse_line("   # only a comment"), Ok(None));
    assert_eq!(
        parse_line("seed,move-limit=3 ; a b c ; 1=9 2=81 # trailing comment"),
        Ok(Some(Case {
            rules: "seed,move-limit=3".to_string(),
            fen: "a b c".to_string(),
            counts: vec![(1, 9), (2, 81)],
        }))
    );
}

#[test]
fn malformed_case_lines_are_rejected() {
    let bad = [
        ("seed ; fen", "expected 3 fields"),
        ("seed ; fen ; 1=9 ; 2=81", "expected 3 fields"),
        (" ; fen ; 1=9", "empty rules"),
        ("seed ;  ; 1=9", "empty position"),
        ("seed ; fen ; ", "no depth=count"),
        ("seed ; fen ; 1:9", "expected depth=count"),
        ("seed ; fen ; x=9", "depth `x`"),
        ("seed ; fen ; 1=nine", "count `nine`"),
        ("seed ; fen ; 1=-9", "count `-9`"),
        ("seed ; fen ; 0=1", "depths start at 1"),
        ("seed ; fen ; 2=81 1=9", "depths must increase"),
        ("seed ; fen ; 1=9 1=9", "depths must increase"),
    ];
    for (line, want) in bad {
        match parse_line(line) {
            Err(e) => assert!(e.contains(want), "`{line}`: error `{e}` should mention `{want}`"),
            Ok(c) => panic!("`{line}` should be rejected, parsed as {c:?}"),
        }
    }
}
