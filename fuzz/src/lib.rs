//! Shared checks for Monte's fuzz targets.
//!
//! Every check is an `assert!` with a message that names the broken
//! property and the position (or text) it broke on, so that a crash found by
//! libFuzzer explains itself.

use std::collections::HashSet;

use monte_rules::game::RepetitionRule;
use monte_rules::record::Record;
use monte_rules::{EndReason, GameKind, Position, RenderStyle, Rng, RuleSet, Side, Status, with_game};

/// The game is over by its goal or by lost pieces (when `generate` must be
/// empty), as opposed to a move limit (when it need not be).
fn over_by_position(status: Status) -> bool {
    matches!(status, Status::Over(o) if matches!(o.reason, EndReason::Goal | EndReason::NoPieces))
}

/// `from_fen(fen()) == pos` and the incremental hash is the computed one.
pub fn check_fen_and_hash<P: Position>(pos: &P) {
    let fen = pos.fen();
    match P::from_fen(*pos.rules(), &fen) {
        Ok(back) => assert!(back == *pos, "from_fen(fen()) != pos for `{fen}`: {back:?} vs {pos:?}"),
        Err(e) => panic!("fen() of a valid position does not parse: `{fen}`: {e}"),
    }
    assert_eq!(pos.hash(), pos.compute_hash(), "hash() != compute_hash() for `{fen}`");
}

/// The checks after `child` was reached from `parent` by `play(mv)`.
fn check_child<P: Position>(parent: &P, mv: P::Move, child: &P) {
    let text = parent.format_move(mv);
    assert_eq!(
        child.hash(),
        child.compute_hash(),
        "hash() != compute_hash() after {text} from `{}`: `{}`",
        parent.fen(),
        child.fen()
    );
    assert_eq!(child.ply(), parent.ply() + 1, "ply after {text} from `{}`", parent.fen());
    let fen = child.fen();
    match P::from_fen(*child.rules(), &fen) {
        Ok(back) => assert!(back == *child, "from_fen(fen()) != pos after {text} from `{}`: `{fen}`", parent.fen()),
        Err(e) => panic!("the position after {text} from `{}` does not parse back: `{fen}`: {e}", parent.fen()),
    }
}

/// Every check on a valid position: position string and hash, rendering,
/// move generation against the bulk count and the status, and for each legal
/// move: legality, notation round trip (`parse_move(format_move(m)) == m`)
/// and checked play.
pub fn check_position<P: Position>(pos: &P) {
    check_fen_and_hash(pos);
    let fen = pos.fen();
    for color in [false, true] {
        for from in Side::BOTH {
            let _ = pos.render(RenderStyle { color, from });
        }
    }
    let moves = pos.legal_moves();
    assert_eq!(pos.count_moves(), moves.len() as u64, "count_moves() != generated moves for `{fen}`");
    let distinct: HashSet<P::Move> = moves.iter().copied().collect();
    assert_eq!(distinct.len(), moves.len(), "generate() gives a move twice for `{fen}`: {moves:?}");
    let status = pos.status();
    assert_eq!(
        moves.is_empty(),
        over_by_position(status),
        "generate() is empty exactly when the game is over by goal/pieces; `{fen}`: {} moves, status {status:?}",
        moves.len()
    );
    for &mv in &moves {
        assert!(pos.is_legal(mv), "generated move {mv:?} is not is_legal() in `{fen}`");
        let text = pos.format_move(mv);
        match pos.parse_move(&text) {
            Ok(back) => assert_eq!(back, mv, "parse_move(format_move(m)) != m for `{text}` in `{fen}`"),
            // A finished game (by a move limit: the moves are still
            // generated) may refuse every move.
            Err(_) if status.is_over() => {}
            Err(e) => panic!("parse_move(format_move(m)) fails for {mv:?} = `{text}` in `{fen}`: {e}"),
        }
        let mut child = pos.clone();
        match (child.play(mv), status) {
            (Ok(()), Status::Ongoing) => check_child(pos, mv, &child),
            (Err(e), Status::Ongoing) => panic!("play({text}) fails for a generated move in `{fen}`: {e}"),
            (Ok(()), Status::Over(_)) => panic!("play({text}) succeeds in `{fen}`, a finished game ({status:?})"),
            (Err(_), Status::Over(_)) => assert!(child == *pos, "a refused play({text}) changed `{fen}`"),
        }
    }
}

/// Checked play of any move value: succeeds exactly when the game goes on
/// and the move is legal, and leaves the position unchanged otherwise.
pub fn check_play_any<P: Position>(pos: &P, mv: P::Move) {
    let legal = !pos.status().is_over() && pos.is_legal(mv);
    let mut after = pos.clone();
    match after.play(mv) {
        Ok(()) => {
            assert!(legal, "play({mv:?}) succeeds but the move is not legal in `{}`", pos.fen());
            check_child(pos, mv, &after);
        }
        Err(_) => {
            assert!(!legal, "play({mv:?}) fails but the move is legal in `{}`", pos.fen());
            assert!(after == *pos, "a refused play({mv:?}) changed `{}` to `{}`", pos.fen(), after.fen());
        }
    }
}

/// The position-string target: any text to `from_fen` under the seed rules,
/// or, when the text has a line break, under the rules named by its first
/// line (e.g. `meyer1908` or `seed,move-limit=40`; text whose first line is no
/// rule set is skipped); on success, every check of [`check_position`].
pub fn fuzz_position<P: Position>(seed_rules: P::Rules, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (rules, fen) = match text.split_once('\n') {
        None => (seed_rules, text),
        Some((rules, fen)) => match rules.parse::<P::Rules>() {
            Ok(r) => (r, fen),
            Err(_) => return,
        },
    };
    if let Ok(pos) = P::from_fen(rules, fen) {
        check_position(&pos);
    }
}

/// The rule set chosen by a byte: one of the presets.
pub fn preset_from_byte<R: RuleSet>(b: u8) -> R {
    let names = R::preset_names();
    let name = names[b as usize % names.len()];
    R::preset(name).unwrap_or_else(|e| panic!("preset `{name}` is listed but does not load: {e}"))
}

/// Play `plies` random legal moves from `pos` (chosen by [`Rng`] seeded
/// with `seed`, so that a fuzz input always means the same game), stopping early when the game is over. Checks that each
/// generated move plays and keeps the hash in step.
pub fn random_walk<P: Position>(mut pos: P, seed: u64, plies: usize) -> P {
    let mut rng = Rng::new(seed);
    for _ in 0..plies {
        if pos.status().is_over() {
            break;
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.below(moves.len())];
        let parent = pos.clone();
        if let Err(e) = pos.play(mv) {
            panic!("play({}) fails for a generated move in `{}`: {e}", parent.format_move(mv), parent.fen());
        }
        // Cheap checks on the way; the full ones at the end.
        if pos.hash() != pos.compute_hash() {
            check_child(&parent, mv, &pos);
        }
    }
    pos
}

/// The length of the move target's header.
pub const MOVE_HEADER: usize = 9;

/// The move target. Input layout:
/// `[plies, seed x4, rules, garbage x3, move text...]`:
/// from the start position of the preset chosen by the rules byte, play
/// `plies` random legal moves ([`random_walk`] with the seed bytes), then
/// parse the move text there and check that an accepted move is legal,
/// generated, formats back, and plays (unless the game is over, e.g. by a
/// move limit, when checked play must refuse it), and that a refused one (and
/// checked play of a garbage move value) leaves the position unchanged.
pub fn fuzz_move<P: Position>(data: &[u8]) {
    if data.len() < MOVE_HEADER {
        return;
    }
    let plies = data[0] as usize;
    let seed = u32::from_le_bytes([data[1], data[2], data[3], data[4]]);
    let rules: P::Rules = preset_from_byte(data[5]);
    let garbage = [data[6], data[7], data[8]];
    let text = String::from_utf8_lossy(&data[MOVE_HEADER..]);

    let pos = random_walk(P::start(rules), seed as u64, plies);
    check_fen_and_hash(&pos);

    let before = pos.clone();
    let fen = pos.fen();
    match pos.parse_move(&text) {
        Ok(mv) => {
            assert!(pos == before, "parse_move changed the position");
            assert!(pos.is_legal(mv), "parse_move({text:?}) accepts {mv:?}, which is not is_legal() in `{fen}`");
            assert!(
                pos.legal_moves().contains(&mv),
                "parse_move({text:?}) accepts {mv:?}, which generate() does not give in `{fen}`"
            );
            let written = pos.format_move(mv);
            assert_eq!(
                pos.parse_move(&written),
                Ok(mv),
                "parse_move(format_move(m)) != m for `{written}` (parsed from {text:?}) in `{fen}`"
            );
            let mut child = pos.clone();
            match (child.play(mv), pos.status()) {
                (Ok(()), Status::Ongoing) => check_child(&pos, mv, &child),
                (Err(e), Status::Ongoing) => {
                    panic!("parse_move({text:?}) accepts {mv:?} but play fails in `{fen}`: {e}")
                }
                (Ok(()), status) => panic!("play({written}) succeeds in `{fen}`, a finished game ({status:?})"),
                (Err(_), _) => assert!(child == pos, "a refused play({written}) changed `{fen}`"),
            }
        }
        Err(_) => assert!(pos == before, "a failed parse_move changed the position"),
    }

    check_play_any(&pos, P::move_from_bytes(garbage));
}

/// Replay a record as game `P`; when it replays, write it back with
/// `Record::from_game` and check that that record replays to the same game.
pub fn check_replay<P: Position>(record: &Record)
where
    P::Rules: RepetitionRule,
{
    let Ok(game) = record.replay::<P>() else { return };
    let pos = game.position();
    check_fen_and_hash(pos);
    let _ = game.status();
    let written = Record::from_game(&game, &[("White", "a"), ("Black", "b")], None);
    let text = written.to_string();
    let reparsed = match Record::parse(&text) {
        Ok(r) => r,
        Err(e) => panic!("a record written by from_game does not parse: {e}\n{text}"),
    };
    assert_eq!(reparsed, written, "from_game record: writer round trip fails:\n{text}");
    match reparsed.replay::<P>() {
        Ok(again) => {
            assert!(again.start() == game.start(), "from_game record replays from another start:\n{text}");
            assert_eq!(again.moves(), game.moves(), "from_game record replays other moves:\n{text}");
            assert!(again.position() == game.position(), "from_game record replays to another position:\n{text}");
        }
        Err(e) => panic!("a record written by from_game does not replay: {e}\n{text}"),
    }
}

/// The record target: parse; on success the writer round-trips and replay
/// as every game of the registry does not panic.
pub fn fuzz_record(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(record) = Record::parse(text) else { return };
    let written = record.to_string();
    assert_eq!(Record::parse(&written), Ok(record.clone()), "Record writer round trip fails; written:\n{written}");
    for kind in GameKind::ALL {
        with_game!(kind, P => check_replay::<P>(&record));
    }
}

/// Parse rules; on success `to_string().parse() == Ok(rules)`.
pub fn check_rules<R: RuleSet>(text: &str) {
    if let Ok(rules) = text.parse::<R>() {
        let written = rules.to_string();
        assert_eq!(written.parse::<R>(), Ok(rules), "rules {text:?} written as {written:?} do not parse back");
    }
}

/// The rules target: any text as the rule set of every game of the
/// registry ([`check_rules`]).
pub fn fuzz_rules(text: &str) {
    for kind in GameKind::ALL {
        with_game!(kind, P => check_rules::<<P as Position>::Rules>(text));
    }
}
