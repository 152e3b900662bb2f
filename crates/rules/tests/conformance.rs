//! Conformance by random playouts: the crate against an independent, naive
//! reference implementation of the `seed` rule sets (tests/reference/).
//!
//! At every ply of thousands of seeded random games per game this checks:
//! the generated move set equals the reference's exactly; `count_moves`;
//! the position after `play_unchecked` equals the reference's result; the
//! position string (round trip and against the reference's own writer);
//! the incremental hash; `Game::undo`; notation round trips (and, for
//! Salta, that the printed jump path is legal by the reference); piece
//! accounting; `is_legal`/`play`/`parse_move` on random candidate moves;
//! status and threefold repetition; and that every game ends within its
//! move limit. Random play is biased towards calls, jumps, drops and sweeps
//! so that the rare features occur; their counts are asserted to be > 0.
//!
//! `MONTE_CONFORMANCE_GAMES=N` overrides the number of games per test.

mod reference;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::{Debug, Display};
use std::time::Instant;

use monte_rules::focus::{FocusMove, FocusPosition, FocusRules, MoveKind};
use monte_rules::salta::{SaltaMove, SaltaPosition, SaltaRules};
use monte_rules::{EndReason, Game, Outcome, Position, Rng, RuleSet, Side, Status};
use rand::Rng as _;
use rand::seq::IndexedRandom;

use reference::{Sq, focus as rf, parse_square, salta as rs, square_name};

// ---------------------------------------------------------------------------
// Shared helpers

/// Games per test: `release` in a release build, `debug` otherwise;
/// `MONTE_CONFORMANCE_GAMES` overrides both.
fn game_count(release: usize, debug: usize) -> usize {
    if let Ok(v) = std::env::var("MONTE_CONFORMANCE_GAMES")
        && let Ok(n) = v.parse()
    {
        return n;
    }
    if cfg!(debug_assertions) { debug } else { release }
}

/// Occurrence counters, and disagreements that do not derail a game (they
/// are collected, printed with examples, and fail the test at the end).
#[derive(Default)]
struct Counts(BTreeMap<&'static str, u64>, BTreeMap<&'static str, (u64, Vec<String>)>);

impl Counts {
    fn add(&mut self, key: &'static str, n: u64) {
        *self.0.entry(key).or_default() += n;
    }
    fn max(&mut self, key: &'static str, n: u64) {
        let e = self.0.entry(key).or_default();
        *e = (*e).max(n);
    }
    fn get(&self, key: &str) -> u64 {
        self.0.get(key).copied().unwrap_or(0)
    }
    fn print(&self, title: &str) {
        println!("{title}:");
        for (k, v) in &self.0 {
            println!("  {k:<40} {v}");
        }
    }
    fn discrepancy(&mut self, kind: &'static str, example: String) {
        let e = self.1.entry(kind).or_default();
        e.0 += 1;
        if e.1.len() < 3 {
            e.1.push(example);
        }
    }
    fn require(&self, keys: &[&str]) {
        for k in keys {
            assert!(self.get(k) > 0, "`{k}` never occurred: the test would pass vacuously");
        }
        for (kind, (n, examples)) in &self.1 {
            println!("DISCREPANCY ({n} times): {kind}");
            for e in examples {
                println!("    e.g. {e}");
            }
        }
        assert!(self.1.is_empty(), "the crate disagrees with the reference (see DISCREPANCY above)");
    }
}

fn assert_same_sets<M: Ord + Debug + Copy>(actual: &[M], expected: &BTreeSet<M>, ctx: &str) {
    let got: BTreeSet<M> = actual.iter().copied().collect();
    assert_eq!(got.len(), actual.len(), "{ctx}: the crate generated a move twice: {actual:?}");
    if &got != expected {
        let extra: Vec<_> = got.difference(expected).collect();
        let missing: Vec<_> = expected.difference(&got).collect();
        panic!(
            "{ctx}: move sets differ\n  generated but not legal by the reference: {extra:?}\n  legal but not generated: {missing:?}"
        );
    }
}

/// Compare a status with the reference's (margins only for wins).
fn check_status(actual: Status, expected: Status, ctx: &str) {
    match (actual, expected) {
        (Status::Ongoing, Status::Ongoing) => {}
        (Status::Over(a), Status::Over(e)) => {
            assert_eq!((a.winner, a.reason), (e.winner, e.reason), "{ctx}: outcome {a:?}, reference {e:?}");
            if e.winner.is_some() && e.margin.is_some() {
                assert_eq!(a.margin, e.margin, "{ctx}: margin");
            }
        }
        _ => panic!("{ctx}: status {actual:?}, reference {expected:?}"),
    }
}

fn repetition() -> Status {
    Status::Over(Outcome { winner: None, reason: EndReason::Repetition, margin: None })
}

fn end_key(s: Status) -> &'static str {
    match s.outcome().map(|o| o.reason) {
        Some(EndReason::Goal) => "end: goal",
        Some(EndReason::NoPieces) => "end: no pieces",
        Some(EndReason::MoveLimit) => "end: move limit",
        Some(EndReason::Repetition) => "end: threefold repetition",
        None => "end: ongoing (!)",
    }
}

/// Play `mv` in the game, then check that undo restores the previous
/// position exactly and that replaying gives the same position again.
fn play_and_check_undo<P: Position>(game: &mut Game<P>, mv: P::Move, ctx: &str)
where
    P::Rules: monte_rules::game::RepetitionRule,
{
    let before = game.position().clone();
    let n = game.moves().len();
    game.play(mv).unwrap_or_else(|e| panic!("{ctx}: Game::play refused a generated move: {e}"));
    let after = game.position().clone();
    assert_eq!(game.undo(), Some(mv), "{ctx}: undo returned another move");
    assert_eq!(game.position(), &before, "{ctx}: undo did not restore the position");
    assert_eq!(game.moves().len(), n, "{ctx}: undo left the move list wrong");
    game.play(mv).unwrap_or_else(|e| panic!("{ctx}: replay after undo refused: {e}"));
    assert_eq!(game.position(), &after, "{ctx}: replay after undo differs");
}

// ---------------------------------------------------------------------------
// Salta

/// A failure context naming a position and a move, formatted only when
/// an assertion fails.
struct MoveCtx<'a>(&'a str, &'a str);

impl Display for MoveCtx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}, move `{}`", self.0, self.1)
    }
}

fn salta_dist(m: SaltaMove) -> i32 {
    let rs::RMove::Go { from, to, .. } = rs::ident(m) else { return 0 };
    (from.0 - to.0).abs().max((from.1 - to.1).abs())
}

/// `parse_move(text)` against the reference's verdict. The short jump form
/// `a:b` means "any legal path" (rulings.md, notation), so it must be
/// accepted whenever the move (a, b) is legal, even when the single hop from a
/// to b is not a legal first jump.
fn check_salta_parse(p: &SaltaPosition, text: &str, want: Result<SaltaMove, ()>, ctx: impl Display, c: &mut Counts) {
    let got = p.parse_move(text);
    if got.clone().map_err(|_| ()) != want {
        let two_square_jump = text.matches(':').count() == 1;
        let msg = format!("{ctx}: parse_move(`{text}`) = {got:?}, reference: {want:?}");
        if two_square_jump && want.is_ok() {
            c.discrepancy("parse_move rejects the short form `a:b` of a legal jump move", msg);
        } else {
            panic!("{msg}");
        }
    }
}

/// Check the printed form of a legal move independently; returns the number
/// of jumps in the printed path (0 for steps and pass).
fn check_salta_text(p: &SaltaPosition, r: &rs::Ref, m: SaltaMove, over: bool, ctx: &str, c: &mut Counts) -> usize {
    let text = p.format_move(m);
    let ctx = MoveCtx(ctx, &text);
    let parsed = p.parse_move(&text);
    if over {
        assert!(parsed.is_err(), "{ctx}: parse_move accepted a move after the end: {parsed:?}");
    } else {
        assert_eq!(parsed, Ok(m), "{ctx}: parse_move(format_move(m)) != m");
    }
    let rs::RMove::Go { from, to, call } = rs::ident(m) else {
        assert_eq!(text, "pass", "{ctx}");
        return 0;
    };
    let (body, plus) = match text.strip_suffix('+') {
        Some(b) => (b, true),
        None => (text.as_str(), false),
    };
    assert_eq!(plus, call, "{ctx}: call flag and `+` disagree");
    let suffix = if call { "+" } else { "" };
    if salta_dist(m) == 1 {
        assert_eq!(body, format!("{}-{}", square_name(from), square_name(to)), "{ctx}: step notation");
        return 0;
    }
    let path: Vec<Sq> =
        body.split(':').map(|s| parse_square(s).unwrap_or_else(|| panic!("{ctx}: bad square `{s}`"))).collect();
    assert_eq!(path.first(), Some(&from), "{ctx}: path start");
    assert_eq!(path.last(), Some(&to), "{ctx}: path end");
    assert!(r.valid_jump_path(&path), "{ctx}: the printed jump path is not legal by the reference");
    if path.len() > 2 {
        let short = format!("{}:{}{suffix}", square_name(from), square_name(to));
        check_salta_parse(p, &short, if over { Err(()) } else { Ok(m) }, &ctx, c);
    }
    path.len() - 1
}

/// All checks on one Salta position; returns the generated moves.
fn check_salta_position(p: &SaltaPosition, r: &rs::Ref, fen: &str, rng: &mut Rng, c: &mut Counts) -> Vec<SaltaMove> {
    let ctx = format!("salta `{fen}`");
    c.add("positions checked", 1);

    // Position string, hash.
    let back = SaltaPosition::from_fen(*p.rules(), fen).unwrap_or_else(|e| panic!("{ctx}: from_fen failed: {e}"));
    assert_eq!(&back, p, "{ctx}: from_fen(fen()) != position");
    assert_eq!(fen, r.fen(), "{ctx}: position string differs from the reference's");
    assert_eq!(p.hash(), p.compute_hash(), "{ctx}: incremental hash");

    // Pieces: the 30 distinct pieces, 15 per side.
    let pieces: Vec<(Sq, rs::Pc)> = r.pieces().collect();
    let distinct: BTreeSet<rs::Pc> = pieces.iter().map(|(_, pc)| *pc).collect();
    assert_eq!(pieces.len(), 30, "{ctx}: piece count");
    assert_eq!(distinct, rs::Pc::all().into_iter().collect(), "{ctx}: pieces");
    for side in Side::BOTH {
        assert_eq!(p.pieces(side).count_ones(), 15, "{ctx}: {side} bitboard");
        assert_eq!(p.distance(side), r.distance(side), "{ctx}: {side} distance");
        assert_eq!(p.completed(side), r.completed(side), "{ctx}: {side} completed");
    }
    if r.call.is_some() {
        c.add("positions with a pending call", 1);
    }

    // The move set.
    let legal = p.legal_moves().to_vec();
    let ids: Vec<rs::RMove> = legal.iter().map(|&m| rs::ident(m)).collect();
    let expected = r.moves();
    assert_same_sets(&ids, &expected, &ctx);
    assert_eq!(p.count_moves(), legal.len() as u64, "{ctx}: count_moves");
    c.max("most legal moves in a position", legal.len() as u64);

    // Where the finer points of the rules were at stake.
    for &id in &expected {
        let rs::RMove::Go { from, to, call: false } = id else { continue };
        let after = r.apply(id);
        let landings = after.jump_landings(to, r.side);
        // (A winning move could never carry a call anyway: the winner's 15
        // pieces then fill the three ranks of the opponent's start, so no
        // opponent piece next to the last one has an empty square beyond it.)
        if after.completed(r.side) {
            c.add("winning moves generated", 1);
            assert!(landings.is_empty(), "{ctx}: a winning move that could be jumped");
        } else if landings == [from] {
            c.add("calls possible only via the vacated square", 1);
        }
    }
    if pieces.iter().any(|&(s, pc)| pc.side == r.side && r.jump_ends_ext(s, r.call, false).contains(&s)) {
        c.add("positions where a chain could reach its start", 1);
    }
    if legal == [SaltaMove::PASS] {
        c.add("positions where the side must pass", 1);
    }

    // Once the game is over (by the move limit: generate still lists the
    // moves), play and parse_move refuse every move.
    let over = p.status().is_over();
    if over && let Some(&m) = legal.first() {
        c.add("ended positions that still list moves", 1);
        let mut q = p.clone();
        assert!(q.play(m).is_err(), "{ctx}: play accepted a move after the end");
        assert_eq!(&q, p, "{ctx}: a refused play changed the position");
    }

    // Notation of every legal move.
    for &m in &legal {
        let jumps = check_salta_text(p, r, m, over, &ctx, c);
        c.max("longest printed jump chain", jumps as u64);
    }

    // is_legal / play / parse_move on random candidates and a few legal moves.
    let sqs: Vec<Sq> = rs::all_squares().collect();
    let own: Vec<Sq> = pieces.iter().filter(|(_, pc)| pc.side == r.side).map(|(s, _)| *s).collect();
    let mut cands = vec![rs::RMove::Pass];
    for _ in 0..3 {
        let from = if rng.random_bool(0.7) { *own.choose(rng).unwrap() } else { *sqs.choose(rng).unwrap() };
        let to = loop {
            let t = (from.0 + rng.random_range(-4..=4), from.1 + rng.random_range(-4..=4));
            if rs::on_board(t) {
                break t;
            }
        };
        cands.push(rs::RMove::Go { from, to, call: rng.random_bool(0.3) });
    }
    if let Some(&m) = ids.choose(rng) {
        cands.push(m);
        if let rs::RMove::Go { from, to, call } = m {
            cands.push(rs::RMove::Go { from, to, call: !call });
        }
    }
    for cand in cands {
        let m = rs::to_crate(cand);
        let ok = expected.contains(&cand);
        assert_eq!(p.is_legal(m), ok, "{ctx}: is_legal({cand:?})");
        let text = match cand {
            rs::RMove::Pass => "pass".to_string(),
            rs::RMove::Go { from, to, call } => {
                let sep = if salta_dist(m) == 1 { '-' } else { ':' };
                format!("{}{sep}{}{}", square_name(from), square_name(to), if call { "+" } else { "" })
            }
        };
        check_salta_parse(p, &text, if ok && !over { Ok(m) } else { Err(()) }, &ctx, c);
        if ok {
            c.add("candidate moves: legal", 1);
        } else {
            c.add("candidate moves: illegal", 1);
            let mut q = p.clone();
            assert!(q.play(m).is_err(), "{ctx}: play accepted the illegal {cand:?}");
            assert_eq!(&q, p, "{ctx}: a refused play changed the position");
        }
    }
    legal
}

/// Biased random choice: calls, long jumps, progress, or uniform.
fn choose_salta(p: &SaltaPosition, r: &rs::Ref, legal: &[SaltaMove], greedy: f64, rng: &mut Rng) -> SaltaMove {
    let x: f64 = rng.random();
    if x < 0.5 {
        let calls: Vec<SaltaMove> = legal.iter().copied().filter(|m| m.call).collect();
        if !calls.is_empty() && rng.random_bool(0.5) {
            return *calls.choose(rng).unwrap();
        }
        let jumps: Vec<(usize, SaltaMove)> = legal
            .iter()
            .copied()
            .filter(|&m| salta_dist(m) >= 2)
            .map(|m| (p.format_move(m).split(':').count() - 1, m))
            .collect();
        if !jumps.is_empty() {
            if rng.random_bool(0.5) {
                let longest = jumps.iter().map(|j| j.0).max().unwrap();
                let best: Vec<SaltaMove> = jumps.iter().filter(|j| j.0 == longest).map(|j| j.1).collect();
                return *best.choose(rng).unwrap();
            }
            return jumps.choose(rng).unwrap().1;
        }
    } else if x < 0.5 + greedy {
        // Progress: the move that brings the mover's pieces closest to their targets.
        let scored: Vec<(u32, SaltaMove)> =
            legal.iter().map(|&m| (r.apply(rs::ident(m)).distance(r.side), m)).collect();
        let best = scored.iter().map(|s| s.0).min().unwrap();
        let best: Vec<SaltaMove> = scored.iter().filter(|s| s.0 == best).map(|s| s.1).collect();
        return *best.choose(rng).unwrap();
    }
    *legal.choose(rng).unwrap()
}

/// One random game from `start` to its end, checked at every ply.
fn salta_playout(start: SaltaPosition, seed: u64, greedy: f64, c: &mut Counts) {
    let mut rng = Rng::new(seed);
    let limit = start.rules().move_limit().expect("playouts need a move limit") as usize;
    let start_ply = start.ply() as usize;
    let mut game = Game::new(start);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut pending = None;
    loop {
        let p = game.position().clone();
        let r = rs::Ref::from_crate(&p);
        if let Some((want, played)) = pending.take() {
            assert_eq!(r, want, "after {played}: the crate's position differs from the reference's");
        }
        let fen = p.fen();
        let ctx = format!("salta game seed {seed}, ply {}, `{fen}`", p.ply());
        let legal = check_salta_position(&p, &r, &fen, &mut rng, c);

        // Status: the position's own, then the game's (with repetition).
        let expected = r.status();
        check_status(p.status(), expected, &ctx);
        // Repetition: the same position string up to the ply count.
        let occurrences = seen.entry(fen.rsplit_once(' ').expect("fields").0.to_string()).or_default();
        *occurrences += 1;
        let expected = if !expected.is_over() && *occurrences >= 3 { repetition() } else { expected };
        let status = game.status();
        check_status(status, expected, &ctx);
        if let Status::Over(o) = status {
            c.add(end_key(status), 1);
            if o.reason == EndReason::Goal {
                assert!(legal.is_empty(), "{ctx}: moves generated after the goal");
                c.max("largest winning margin", o.margin.unwrap_or(0) as u64);
            }
            assert!(start_ply + game.moves().len() <= 2 * limit, "{ctx}: the game overran its move limit");
            break;
        }
        assert!(!legal.is_empty(), "{ctx}: no moves in an ongoing game");

        let mv = choose_salta(&p, &r, &legal, greedy, &mut rng);
        // The result of play_unchecked against the reference: for the
        // chosen move at the top of the next iteration, here for another.
        let after = r.apply(rs::ident(mv));
        if let Some(&m) = legal.choose(&mut rng)
            && m != mv
        {
            let mut q = p.clone();
            q.play_unchecked(m);
            let want = r.apply(rs::ident(m));
            assert_eq!(rs::Ref::from_crate(&q), want, "{ctx}: position after {}", p.format_move(m));
            assert_eq!(q.hash(), q.compute_hash(), "{ctx}: hash after {}", p.format_move(m));
        }

        // Counters.
        c.add("moves played", 1);
        if mv == SaltaMove::PASS {
            c.add("passes played", 1);
        } else {
            if mv.call {
                c.add("calls played", 1);
            }
            if r.call.is_some() {
                c.add("replies to a call played", 1);
            }
            let jumps = p.format_move(mv).split(':').count() - 1;
            if jumps >= 1 {
                c.add("jump moves played", 1);
            }
            if jumps >= 2 {
                c.add("chains of 2+ jumps played", 1);
                if r.call.is_some() {
                    c.add("replies to a call with 2+ jumps played", 1);
                }
            }
            if jumps >= 3 {
                c.add("chains of 3+ jumps played", 1);
            }
            if mv.call && jumps >= 1 {
                c.add("jumps carrying a call played", 1);
            }
        }

        pending = Some((after, format!("{} in {ctx}", p.format_move(mv))));
        play_and_check_undo(&mut game, mv, &ctx);
        assert!(start_ply + game.moves().len() <= 2 * limit, "{ctx}: the game went past its move limit");
    }
}

/// A random position near both goals: every piece on its target, then a
/// few pieces of each side walked a few steps away or put on a random empty
/// square. The side that moved last is sometimes left complete (the game is
/// then over at once).
fn salta_near_goal(move_limit: u32, rng: &mut Rng) -> String {
    loop {
        let mut r = rs::Ref::empty(Some(move_limit));
        for pc in rs::Pc::all() {
            r.set(pc.target(), Some(pc));
        }
        r.side = if rng.random_bool(0.5) { Side::White } else { Side::Black };
        r.ply = if r.side == Side::White { 0 } else { 1 };
        for side in Side::BOTH {
            let n = if side != r.side && rng.random_bool(0.1) { 0 } else { rng.random_range(1..=4) };
            for _ in 0..n {
                let mine: Vec<Sq> = r.pieces().filter(|(_, pc)| pc.side == side).map(|(s, _)| s).collect();
                let mut at = *mine.choose(rng).unwrap();
                let teleport = rng.random_bool(0.3);
                for _ in 0..rng.random_range(1..=5) {
                    let next: Vec<Sq> = if teleport {
                        rs::all_squares().filter(|&s| r.at(s).is_none()).collect()
                    } else {
                        rs::DIRS
                            .iter()
                            .map(|d| (at.0 + d.0, at.1 + d.1))
                            .filter(|&s| rs::on_board(s) && r.at(s).is_none())
                            .collect()
                    };
                    if let Some(&s) = next.choose(rng) {
                        let pc = r.at(at);
                        r.set(at, None);
                        r.set(s, pc);
                        at = s;
                    }
                    if teleport {
                        break;
                    }
                }
            }
        }
        if !r.completed(r.side) {
            return r.fen();
        }
    }
}

/// A position where the side to move has no move at all: its pieces on
/// their start squares (ranks 1..3 for White), walled in by the 15
/// opponent pieces on the next three ranks (no step, and every jump would
/// land on an occupied square).
fn salta_blocked(stuck: Side, move_limit: u32) -> String {
    let mut r = rs::Ref::start(Some(move_limit));
    let walls: Vec<Sq> = (3..6).flat_map(|y| (0..10).map(move |x| (x, y))).filter(|&s| rs::on_board(s)).collect();
    let others: Vec<(Sq, rs::Pc)> = r.pieces().filter(|(_, pc)| pc.side != Side::White).collect();
    for ((from, pc), to) in others.into_iter().zip(walls) {
        r.set(from, None);
        r.set(to, Some(pc));
    }
    if stuck == Side::Black {
        // The point reflection with the colours swapped.
        let mut m = rs::Ref::empty(Some(move_limit));
        for (s, pc) in r.pieces() {
            let twin = rs::Pc { side: !pc.side, ..pc };
            m.set((9 - s.0, 9 - s.1), Some(twin));
        }
        r = m;
    }
    r.side = stuck;
    r.ply = if stuck == Side::White { 0 } else { 1 };
    r.fen()
}

#[test]
fn salta_random_playouts() {
    let t = Instant::now();
    let rules: SaltaRules = "seed,move-limit=100".parse().unwrap();
    let start = SaltaPosition::start(rules);
    assert_eq!(rs::Ref::from_crate(&start), rs::Ref::start(Some(100)), "start position differs from the rulings");
    assert_eq!(start.fen(), monte_rules::salta::START_FEN);
    let n = game_count(2000, 150);
    let mut c = Counts::default();
    for g in 0..n {
        // Some games lean towards progress, so that pieces meet and pass.
        let greedy = if g % 3 == 0 { 0.35 } else { 0.1 };
        salta_playout(start.clone(), 0x0005_A17A_0000 + g as u64, greedy, &mut c);
    }
    c.add("games", n as u64);
    c.print(&format!("Salta random playouts: {n} games in {:.1?}", t.elapsed()));
    c.require(&[
        "positions with a pending call",
        "calls played",
        "replies to a call played",
        "jumps carrying a call played",
        "chains of 2+ jumps played",
        "chains of 3+ jumps played",
        "replies to a call with 2+ jumps played",
        "calls possible only via the vacated square",
        "positions where a chain could reach its start",
        "end: move limit",
        "ended positions that still list moves",
        "candidate moves: legal",
        "candidate moves: illegal",
    ]);
}

#[test]
fn salta_near_goal_playouts() {
    let t = Instant::now();
    let rules: SaltaRules = "seed,move-limit=30".parse().unwrap();
    let n = game_count(1500, 150);
    let mut c = Counts::default();
    let mut rng = Rng::new(0x0005_A17A_06A1);
    for g in 0..n {
        // Every tenth game starts with one side walled in (it must pass).
        let fen = match g % 20 {
            0 => salta_blocked(Side::White, 30),
            10 => salta_blocked(Side::Black, 30),
            _ => salta_near_goal(30, &mut rng),
        };
        let start = SaltaPosition::from_fen(rules, &fen)
            .unwrap_or_else(|e| panic!("constructed position `{fen}` rejected: {e}"));
        salta_playout(start, 0x0005_A17A_1000 + g as u64, 0.6, &mut c);
    }
    c.add("games", n as u64);
    c.print(&format!("Salta near-goal and blocked playouts: {n} games in {:.1?}", t.elapsed()));
    c.require(&[
        "end: goal",
        "end: move limit",
        "winning moves generated",
        "positions where the side must pass",
        "passes played",
        "positions with a pending call",
        "calls played",
    ]);
}

// ---------------------------------------------------------------------------
// Focus

/// All checks on one Focus position; returns the generated moves.
fn check_focus_position(p: &FocusPosition, r: &rf::Ref, fen: &str, rng: &mut Rng, c: &mut Counts) -> Vec<FocusMove> {
    let ctx = format!("focus `{fen}`");
    c.add("positions checked", 1);

    let back = FocusPosition::from_fen(*p.rules(), fen).unwrap_or_else(|e| panic!("{ctx}: from_fen failed: {e}"));
    assert_eq!(&back, p, "{ctx}: from_fen(fen()) != position");
    assert_eq!(fen, r.fen(), "{ctx}: position string differs from the reference's");
    assert_eq!(p.hash(), p.compute_hash(), "{ctx}: incremental hash");
    assert_eq!(p.material(), counted_material(p), "{ctx}: material");

    // Accounting: 18 pieces per side, stacks of at most 5.
    for side in Side::BOTH {
        let total = p.on_board(side) + p.reserve(side) + p.captured(side);
        assert_eq!(total, rf::PIECES, "{ctx}: {side} on board + reserve + captured");
        assert_eq!(r.on_board_count(side), p.on_board(side), "{ctx}: {side} on board");
        let controlled: u64 =
            rf::all_squares().filter(|&s| r.top(s) == Some(side)).map(|s| 1u64 << rf::crate_square(s)).sum();
        assert_eq!(p.controlled(side), controlled, "{ctx}: {side} controlled stacks");
    }
    let squares: Vec<Sq> = rf::all_squares().collect();
    let heights: Vec<usize> = squares.iter().map(|&s| r.stack(s).len()).collect();
    assert!(heights.iter().all(|&h| h <= rf::MAX), "{ctx}: a stack above 5");
    if heights.contains(&5) {
        c.add("positions with a 5-stack", 1);
    }
    if squares.iter().any(|&s| r.stack(s).iter().any(|&pc| Some(pc) != r.top(s))) {
        c.add("positions with prisoners", 1);
    }
    if r.reserve != [0, 0] {
        c.add("positions with a reserve", 1);
    }
    if r.captured != [0, 0] {
        c.add("positions with captured pieces", 1);
    }

    // The move set.
    let legal = p.legal_moves().to_vec();
    let ids: Vec<rf::RMove> = legal.iter().map(|&m| rf::ident(m)).collect();
    let expected = r.moves();
    assert_same_sets(&ids, &expected, &ctx);
    assert_eq!(p.count_moves(), legal.len() as u64, "{ctx}: count_moves");
    c.max("most legal moves in a position", legal.len() as u64);
    if legal == [FocusMove::PASS] {
        c.add("positions where the side must pass", 1);
    }

    // Once the game is over (by the move limit: generate still lists the
    // moves), play and parse_move refuse every move.
    let over = p.status().is_over();
    if over && let Some(&m) = legal.first() {
        c.add("ended positions that still list moves", 1);
        let mut q = p.clone();
        assert!(q.play(m).is_err(), "{ctx}: play accepted a move after the end");
        assert_eq!(&q, p, "{ctx}: a refused play changed the position");
    }

    // Notation of every legal move, against the reference's writer.
    for (&m, &id) in legal.iter().zip(&ids) {
        let text = p.format_move(m);
        assert_eq!(text, id.text(), "{ctx}: notation of {m:?}");
        let parsed = p.parse_move(&text);
        if over {
            assert!(parsed.is_err(), "{ctx}: parse_move(`{text}`) accepted after the end: {parsed:?}");
        } else {
            assert_eq!(parsed, Ok(m), "{ctx}: parse_move(`{text}`)");
        }
    }

    // is_legal / play / parse_move on random candidates.
    let own: Vec<Sq> = squares.iter().copied().filter(|&s| r.top(s) == Some(r.side)).collect();
    let mut cands = vec![rf::RMove::Pass];
    for _ in 0..3 {
        let from = match own.choose(rng) {
            Some(&s) if rng.random_bool(0.7) => s,
            _ => *squares.choose(rng).unwrap(),
        };
        let d = *rf::DIRS.choose(rng).unwrap();
        let to = (from.0 + d.0 * rng.random_range(1..=5), from.1 + d.1 * rng.random_range(1..=5));
        match rng.random_range(0..3) {
            0 if rf::on_board(to) => cands.push(rf::RMove::Group(from, to)),
            1 if rf::on_board((from.0 + 2 * d.0, from.1 + 2 * d.1)) => {
                cands.push(rf::RMove::Jump(from, (from.0 + 2 * d.0, from.1 + 2 * d.1)))
            }
            _ => cands.push(rf::RMove::Drop(*squares.choose(rng).unwrap())),
        }
    }
    cands.extend(ids.choose(rng).copied());
    for cand in cands {
        let m = rf::to_crate(cand);
        let ok = expected.contains(&cand);
        assert_eq!(p.is_legal(m), ok, "{ctx}: is_legal({cand:?})");
        let parsed = p.parse_move(&cand.text());
        if over {
            assert!(parsed.is_err(), "{ctx}: parse_move(`{}`) accepted after the end: {parsed:?}", cand.text());
        } else if ok {
            c.add("candidate moves: legal", 1);
            assert_eq!(parsed, Ok(m), "{ctx}: parse_move(`{}`)", cand.text());
        }
        if !ok {
            c.add("candidate moves: illegal", 1);
            assert!(parsed.is_err(), "{ctx}: parse_move accepted the illegal `{}`: {parsed:?}", cand.text());
            let mut q = p.clone();
            assert!(q.play(m).is_err(), "{ctx}: play accepted the illegal {cand:?}");
            assert_eq!(&q, p, "{ctx}: a refused play changed the position");
        }
    }
    legal
}

/// `FocusPosition::material` counted the slow way, stack by stack.
fn counted_material(p: &FocusPosition) -> [monte_rules::focus::Material; 2] {
    let mut m = [monte_rules::focus::Material::default(); 2];
    for sq in 0..64u8 {
        let stack = p.stack(sq);
        if let Some(owner) = stack.top() {
            let t = &mut m[owner.index()];
            t.stacks += 1;
            t.free += stack.count(owner);
            t.prisoners += stack.count(!owner);
            t.extra_height += stack.height() - 1;
        }
    }
    m
}

/// How good a position is for `side`: what it controls and holds.
fn focus_material(p: &FocusPosition, side: Side) -> i32 {
    let own = p.controlled(side).count_ones() as i32 + p.reserve(side) as i32;
    let theirs = p.controlled(!side).count_ones() as i32 + p.reserve(!side) as i32;
    2 * own - 3 * theirs - p.captured(side) as i32
}

/// Biased random choice: drops, jumps, sweeping groups, greed, or uniform.
fn choose_focus(p: &FocusPosition, legal: &[FocusMove], greedy: f64, rng: &mut Rng) -> FocusMove {
    let x: f64 = rng.random();
    if x < 0.5 {
        let drops: Vec<FocusMove> = legal.iter().copied().filter(|m| m.kind == MoveKind::Drop).collect();
        let jumps: Vec<FocusMove> = legal.iter().copied().filter(|m| m.kind == MoveKind::Jump).collect();
        let groups: Vec<FocusMove> =
            legal.iter().copied().filter(|m| m.kind == MoveKind::Group && m.group_size() >= 2).collect();
        let kinds: Vec<&Vec<FocusMove>> = [&drops, &jumps, &groups].into_iter().filter(|v| !v.is_empty()).collect();
        if let Some(v) = kinds.choose(rng) {
            return *v.choose(rng).unwrap();
        }
    } else if x < 0.5 + greedy {
        let me = p.side_to_move();
        let scored: Vec<(i32, FocusMove)> = legal
            .iter()
            .map(|&m| {
                let mut q = p.clone();
                q.play_unchecked(m);
                (focus_material(&q, me), m)
            })
            .collect();
        let best = scored.iter().map(|s| s.0).max().unwrap();
        let best: Vec<FocusMove> = scored.iter().filter(|s| s.0 == best).map(|s| s.1).collect();
        return *best.choose(rng).unwrap();
    }
    *legal.choose(rng).unwrap()
}

fn focus_playout(start: FocusPosition, seed: u64, greedy: f64, c: &mut Counts) {
    let mut rng = Rng::new(seed);
    let limit = start.rules().move_limit().expect("playouts need a move limit") as usize;
    let mut game = Game::new(start);
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut pending = None;
    loop {
        let p = game.position().clone();
        let r = rf::Ref::from_crate(&p);
        if let Some((want, played)) = pending.take() {
            assert_eq!(r, want, "after {played}: the crate's position differs from the reference's");
        }
        let fen = p.fen();
        let ctx = format!("focus game seed {seed}, ply {}, `{fen}`", p.ply());
        let legal = check_focus_position(&p, &r, &fen, &mut rng, c);

        let expected = r.status();
        check_status(p.status(), expected, &ctx);
        // Repetition: the same position string up to the ply count.
        let occurrences = seen.entry(fen.rsplit_once(' ').expect("fields").0.to_string()).or_default();
        *occurrences += 1;
        let expected = if !expected.is_over() && *occurrences >= 3 { repetition() } else { expected };
        let status = game.status();
        check_status(status, expected, &ctx);
        if let Status::Over(o) = status {
            c.add(end_key(status), 1);
            if o.reason == EndReason::NoPieces {
                assert!(legal.is_empty(), "{ctx}: moves generated for a side that has lost");
            }
            assert!(game.moves().len() <= 2 * limit, "{ctx}: the game overran its move limit");
            break;
        }
        assert!(!legal.is_empty(), "{ctx}: no moves in an ongoing game");

        let mv = choose_focus(&p, &legal, greedy, &mut rng);
        // The result of play_unchecked against the reference: for the
        // chosen move at the top of the next iteration, here for another.
        let after = r.apply(rf::ident(mv));
        if let Some(&m) = legal.choose(&mut rng)
            && m != mv
        {
            let mut q = p.clone();
            q.play_unchecked(m);
            let want = r.apply(rf::ident(m));
            assert_eq!(rf::Ref::from_crate(&q), want, "{ctx}: position after {}", p.format_move(m));
            assert_eq!(q.hash(), q.compute_hash(), "{ctx}: hash after {}", p.format_move(m));
        }

        // Counters, from the reference's view of the chosen move.
        let id = rf::ident(mv);
        let me = r.side;
        c.add("moves played", 1);
        match id {
            rf::RMove::Group(from, to) => {
                let k = mv.group_size();
                c.add(if k == 1 { "steps played" } else { "group moves (k >= 2) played" }, 1);
                let swept = rf::Ref::passed(from, to).iter().filter(|&&s| !r.stack(s).is_empty()).count();
                if swept > 0 {
                    c.add("sweeping group moves played", 1);
                }
                if swept >= 2 {
                    c.add("group moves sweeping 2+ stacks played", 1);
                }
                if r.stack(from).len() > k as usize && r.stack(from)[r.stack(from).len() - k as usize - 1] != me {
                    c.add("moves freeing a prisoner played", 1);
                }
            }
            rf::RMove::Jump(..) => c.add("jumps played", 1),
            rf::RMove::Drop(to) => {
                c.add("drops played", 1);
                if r.top(to) == Some(!me) {
                    c.add("drops onto an enemy stack played", 1);
                }
            }
            rf::RMove::Pass => c.add("passes played", 1),
        }
        if after.reserve_of(me) > r.reserve_of(me) || after.captured != r.captured {
            c.add("moves with overflow", 1);
        }
        if after.reserve_of(me) > r.reserve_of(me) {
            c.add("overflow: own pieces to reserve", 1);
        }
        if after.captured != r.captured {
            c.add("overflow: pieces captured", 1);
        }

        pending = Some((after, format!("{} in {ctx}", p.format_move(mv))));
        play_and_check_undo(&mut game, mv, &ctx);
        assert!(game.moves().len() <= 2 * limit, "{ctx}: the game went past its move limit");
    }
}

#[test]
fn focus_random_playouts() {
    let t = Instant::now();
    let rules: FocusRules = "seed,move-limit=150".parse().unwrap();
    let start = FocusPosition::start(rules);
    assert_eq!(rf::Ref::from_crate(&start), rf::Ref::start(Some(150)), "start position differs from the rulings");
    assert_eq!(start.fen(), monte_rules::focus::START_FEN);
    let n = game_count(1500, 120);
    let mut c = Counts::default();
    for g in 0..n {
        // Every other game leans towards material, so that games are won.
        let greedy = if g % 2 == 0 { 0.4 } else { 0.0 };
        focus_playout(start.clone(), 0x000F_0C05_0000 + g as u64, greedy, &mut c);
    }
    c.add("games", n as u64);
    c.print(&format!("Focus random playouts: {n} games in {:.1?}", t.elapsed()));
    c.require(&[
        "positions with a 5-stack",
        "positions with prisoners",
        "positions with a reserve",
        "positions with captured pieces",
        "group moves (k >= 2) played",
        "sweeping group moves played",
        "group moves sweeping 2+ stacks played",
        "moves freeing a prisoner played",
        "jumps played",
        "drops played",
        "passes played",
        "end: no pieces",
        "end: move limit",
        "drops onto an enemy stack played",
        "overflow: own pieces to reserve",
        "overflow: pieces captured",
        "ended positions that still list moves",
        "candidate moves: legal",
        "candidate moves: illegal",
    ]);
}

// ---------------------------------------------------------------------------
// Threefold repetition, deterministically (random play rarely repeats).

fn shuffle_until_repetition<P: Position>(start: P, cycle: &[&str])
where
    P::Rules: monte_rules::game::RepetitionRule,
{
    let mut game = Game::new(start);
    for round in 0..2 {
        for (i, text) in cycle.iter().enumerate() {
            assert_eq!(game.status(), Status::Ongoing, "round {round}, before `{text}`");
            game.play_text(text).unwrap_or_else(|e| panic!("`{text}`: {e}"));
            let back_at_start = i + 1 == cycle.len();
            assert_eq!(game.repetitions(), 1 + if back_at_start { round + 1 } else { round }, "after `{text}`");
        }
    }
    assert_eq!(game.status(), repetition(), "the start position occurred three times");
    assert!(game.play(P::pass_move()).is_err(), "a move after the end");
    game.undo();
    assert_eq!(game.status(), Status::Ongoing, "after undo");
}

#[test]
fn threefold_repetition() {
    let salta = SaltaPosition::start("seed".parse().unwrap());
    shuffle_until_repetition(salta, &["a3-b4", "j8-i7", "b4-a3", "i7-j8"]);
    let focus = FocusPosition::start("seed".parse().unwrap());
    shuffle_until_repetition(focus, &["c2-c1", "d2-d1", "c1-c2", "d1-d2"]);
}
