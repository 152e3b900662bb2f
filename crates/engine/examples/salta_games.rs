//! Replay Salta match records (`monte match --records FILE`) and print,
//! for each game, how it ended, each side's distance every 50 plies, and
//! how many calls each side made, and (in brackets) how many opponent
//! pieces stood on each side's targets: where the plies of a long game
//! went. Each side's moves are counted by kind, with what they did to its
//! distance: the planned move (`race::planned_move`), a forced answer to
//! a call, another move where a plan was offered, and a move where none
//! was ("unplanned"). "Trapped" counts the plies on which an opponent
//! piece on a side's targets is shut in by that side's pieces (no move of
//! its own: only a call drives it out). With GAME FROM TO, that game's moves between two
//! plies, each with the distances after it, the plan's move and how many
//! enemy pieces hold the mover's targets. Last, per engine (the record's
//! White and Black tags), its moves and the steps they gained in each
//! phase of its race (far: more than 60 steps from home; middle: 21-60;
//! near: 20 or fewer), how many of its near moves it made while an enemy
//! piece held one of its targets, and the median ply at which it came
//! within 20; its moves in each phase by kind; and, in the games it
//! completed, the ply from which no enemy piece stood on its targets
//! again (none can finish sooner), how far it was from home then, the
//! fewest moves its army alone needed from there, and the plies it took.
//! Then who holds its targets: the enemy pieces on them at plies 100,
//! 150, 200, 250 and 300, how many of those wait for their own target
//! because one of its pieces still holds it (each side's targets are the
//! other's starting squares), its own pieces still on the enemy's
//! targets, and the enemy's moves off its targets by kind (answering its
//! calls, the enemy's plan, other) and onto them.
//!
//! cargo run --release -p monte-engine --example salta_games -- FILE [STEP [GAME FROM TO]]

use monte_rules::record::Record;
use monte_rules::salta::SaltaPosition;
use monte_rules::salta::geometry::Squares;
use monte_rules::{Position, Side};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: salta_games FILE [STEP]");
        std::process::exit(2);
    };
    let step: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    // GAME FROM TO: that game's moves between two plies, with distances.
    let detail: Option<(usize, usize, usize)> = match (args.get(3), args.get(4), args.get(5)) {
        (Some(g), Some(a), Some(b)) => Some((g.parse().unwrap_or(0), a.parse().unwrap_or(0), b.parse().unwrap_or(0))),
        _ => None,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            std::process::exit(1);
        }
    };
    let records = match Record::parse_many(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            std::process::exit(1);
        }
    };
    // Per engine: games, moves and steps gained per phase, and the plies
    // at which it came within NEAR_PHASE steps of home.
    let mut engines: Vec<EngineTally> = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let game = match record.replay::<SaltaPosition>() {
            Ok(g) => g,
            Err(e) => {
                eprintln!("game {}: {e}", i + 1);
                continue;
            }
        };
        let plies = game.moves().len();
        if let Some((g, from, to)) = detail {
            if g != i + 1 {
                continue;
            }
            for n in from..to.min(plies) {
                let pos = game.position_after(n).expect("a ply");
                let after = game.position_after(n + 1).expect("a ply");
                let me = pos.side_to_move();
                let waiting = (pos.pieces(!me) & pos.target_set(me)).count_ones();
                let planned = monte_engine::race::planned_move(pos).map_or("-".to_string(), |m| pos.format_move(m));
                println!(
                    "{n:4} {} {:8} W {:3} B {:3}  plan {planned:8} held {waiting}",
                    pos.side_to_move(),
                    pos.format_move(game.moves()[n]),
                    after.distance(Side::White),
                    after.distance(Side::Black)
                );
            }
        }
        let mut calls = [0usize; 2];
        // Per side, the moves by kind: the plan's, forced answers to a
        // call, and others; and what each kind did to the side's distance.
        let mut kinds = [[(0usize, 0i64); 4]; 2];
        // Per side: the last ply an opponent piece stood on its targets,
        // and the first ply its distance was at most 10.
        let mut blocked_until = [0usize; 2];
        // Per side: the plies an opponent piece on its targets was shut
        // in by the side's own pieces (no step, no jump).
        let mut trapped = [0usize; 2];
        let mut near = [None::<usize>; 2];
        let mut phases = [[(0usize, 0i64); 3]; 2];
        // Per side, phase and kind: moves, steps gained.
        let mut phase_kinds = [[[(0usize, 0i64); 4]; 3]; 2];
        let mut within_near_phase = [None::<usize>; 2];
        let mut near_held = [0usize; 2];
        // Per side: the opponent's moves off the side's targets, by kind
        // (plan, forced, other, unplanned), and onto them (without, with
        // a call).
        let mut exits = [[0usize; 4]; 2];
        let mut entries = [[0usize; 2]; 2];
        let mut line = String::new();
        for n in 0..=plies {
            let pos = game.position_after(n).expect("a ply of the game");
            if n < plies {
                let mv = game.moves()[n];
                let me = pos.side_to_move();
                if mv.call {
                    calls[me.index()] += 1;
                }
                let kind = if pos.pending_call().is_some() {
                    1
                } else {
                    match monte_engine::race::planned_move(pos) {
                        Some(planned) if planned == mv => 0,
                        Some(_) => 2,
                        None => 3,
                    }
                };
                let after = game.position_after(n + 1).expect("a ply of the game");
                let gained = i64::from(pos.distance(me)) - i64::from(after.distance(me));
                let entry = &mut kinds[me.index()][kind];
                entry.0 += 1;
                entry.1 -= gained;
                let phase = phase_of(pos.distance(me));
                let tally = &mut phases[me.index()][phase];
                tally.0 += 1;
                tally.1 += gained;
                let by_kind = &mut phase_kinds[me.index()][phase][kind];
                by_kind.0 += 1;
                by_kind.1 += gained;
                if phase == 2 && pos.pieces(!me) & pos.target_set(me) != 0 {
                    near_held[me.index()] += 1;
                }
                let theirs = pos.target_set(!me);
                match (theirs & (1 << mv.from) != 0, theirs & (1 << mv.to) != 0) {
                    (true, false) => exits[(!me).index()][kind] += 1,
                    (false, true) => entries[(!me).index()][mv.call as usize] += 1,
                    _ => {}
                }
            }
            let blockers = |side: Side| (pos.pieces(!side) & pos.target_set(side)).count_ones();
            for side in [Side::White, Side::Black] {
                if monte_engine::race::shut_in(pos, side) != 0 {
                    trapped[side.index()] += 1;
                }
                if blockers(side) > 0 {
                    blocked_until[side.index()] = n;
                }
                if near[side.index()].is_none() && pos.distance(side) <= 10 {
                    near[side.index()] = Some(n);
                }
                if within_near_phase[side.index()].is_none() && pos.distance(side) <= NEAR_PHASE {
                    within_near_phase[side.index()] = Some(n);
                }
            }
            if n % step == 0 || n == plies {
                line.push_str(&format!(
                    " {n}:{}/{}({}/{})",
                    pos.distance(Side::White),
                    pos.distance(Side::Black),
                    blockers(Side::White),
                    blockers(Side::Black)
                ));
            }
        }
        let kinds_text = |k: &[(usize, i64); 4]| {
            format!(
                "plan {}({:+}) forced {}({:+}) other {}({:+}) unplanned {}({:+})",
                k[0].0, k[0].1, k[1].0, k[1].1, k[2].0, k[2].1, k[3].0, k[3].1
            )
        };
        println!("game {:2} moves W {} | B {}", i + 1, kinds_text(&kinds[0]), kinds_text(&kinds[1]));
        println!(
            "game {:2} {} {} {} plies {plies} calls W {} B {} trapped W {} B {} blocked until W {} B {} within 10 W {} B {} |{line}",
            i + 1,
            record.tag("White").unwrap_or("?"),
            record.result,
            record.tag("Termination").unwrap_or("-"),
            calls[0],
            calls[1],
            trapped[0],
            trapped[1],
            blocked_until[0],
            blocked_until[1],
            near[0].map_or("-".into(), |n| n.to_string()),
            near[1].map_or("-".into(), |n| n.to_string()),
        );
        for side in [Side::White, Side::Black] {
            let name = record.tag(if side == Side::White { "White" } else { "Black" }).unwrap_or("?").to_string();
            let index = match engines.iter().position(|e| e.name == name) {
                Some(k) => k,
                None => {
                    engines.push(EngineTally { name, ..EngineTally::default() });
                    engines.len() - 1
                }
            };
            let engine = &mut engines[index];
            engine.games += 1;
            for (total, this) in engine.phases.iter_mut().zip(phases[side.index()]) {
                total.0 += this.0;
                total.1 += this.1;
            }
            for (totals, these) in engine.phase_kinds.iter_mut().zip(phase_kinds[side.index()]) {
                for (total, this) in totals.iter_mut().zip(these) {
                    total.0 += this.0;
                    total.1 += this.1;
                }
            }
            engine.near_held += near_held[side.index()];
            for (total, this) in engine.exits.iter_mut().zip(exits[side.index()]) {
                *total += this;
            }
            for (total, this) in engine.entries.iter_mut().zip(entries[side.index()]) {
                *total += this;
            }
            for (k, &checkpoint) in CHECKPOINTS.iter().enumerate() {
                let pos = game.position_after(checkpoint.min(plies)).expect("a ply of the game");
                let blockers = pos.pieces(!side) & pos.target_set(side);
                let waiting = Squares(blockers)
                    .filter(|&sq| pos.target_of_square(sq).is_some_and(|t| pos.pieces(side) & (1 << t) != 0))
                    .count();
                let held = &mut engine.held[k];
                held.0 += blockers.count_ones() as usize;
                held.1 += waiting;
                held.2 += (pos.pieces(side) & pos.target_set(!side)).count_ones() as usize;
            }
            engine.within_near_phase.extend(within_near_phase[side.index()]);
            // From the first ply with its targets free for good, in a game
            // it completed: how far it was from home, the fewest moves its
            // army alone needed (the solver's count, or its lower bound),
            // and the plies it took.
            let freed = (blocked_until[side.index()] + 1).min(plies);
            let end = game.position_after(plies).expect("the game's last position");
            if end.distance(side) == 0 {
                let pos = game.position_after(freed).expect("a ply of the game");
                let alone = monte_engine::race::solve(&monte_engine::race::army(pos, side), FREED_BUDGET);
                engine.freed.push(Freed {
                    ply: freed,
                    distance: pos.distance(side),
                    alone: alone.moves,
                    plies: plies - freed,
                });
            }
        }
    }
    for mut engine in engines {
        let games = engine.games as f64;
        engine.within_near_phase.sort_unstable();
        let reached = &engine.within_near_phase;
        let per_game = |(moves, gained): (usize, i64)| {
            format!("{:.1} moves, {:.1} steps", moves as f64 / games, gained as f64 / games)
        };
        let median = median_of(reached);
        println!(
            "{}: {} games; a game: far {}, middle {}, near {} ({:.1} with a target held); within {NEAR_PHASE} at ply {median} (median of {})",
            engine.name,
            engine.games,
            per_game(engine.phases[0]),
            per_game(engine.phases[1]),
            per_game(engine.phases[2]),
            engine.near_held as f64 / games,
            reached.len()
        );
        let by_kind = |k: &[(usize, i64); 4]| {
            let part =
                |(moves, gained): (usize, i64)| format!("{:.1} ({:+.1})", moves as f64 / games, gained as f64 / games);
            format!("plan {}, forced {}, other {}, unplanned {}", part(k[0]), part(k[1]), part(k[2]), part(k[3]))
        };
        println!(
            "{}: moves by kind, a game (steps gained): far {}; middle {}; near {}",
            engine.name,
            by_kind(&engine.phase_kinds[0]),
            by_kind(&engine.phase_kinds[1]),
            by_kind(&engine.phase_kinds[2]),
        );
        let at = |f: fn(&(usize, usize, usize)) -> usize| {
            engine.held.iter().map(|h| format!("{:.2}", f(h) as f64 / games)).collect::<Vec<_>>().join("/")
        };
        let each = |n: usize| format!("{:.1}", n as f64 / games);
        println!(
            "{}: at plies {}: enemy pieces on its targets {}, of them waiting for their own target, which one of its pieces holds, {}; its pieces on the enemy's targets {}; a game, enemy moves off its targets: answering its calls {}, the enemy's plan {}, other {}; onto them {}, with a call {}",
            engine.name,
            CHECKPOINTS.map(|c| c.to_string()).join("/"),
            at(|h| h.0),
            at(|h| h.1),
            at(|h| h.2),
            each(engine.exits[1]),
            each(engine.exits[0]),
            each(engine.exits[2] + engine.exits[3]),
            each(engine.entries[0]),
            each(engine.entries[1]),
        );
        if !engine.freed.is_empty() {
            let completed = engine.freed.len() as f64;
            let mean = |f: fn(&Freed) -> usize| engine.freed.iter().map(f).sum::<usize>() as f64 / completed;
            let mut plies: Vec<usize> = engine.freed.iter().map(|f| f.ply).collect();
            plies.sort_unstable();
            println!(
                "{}: in the {} games it completed, its targets free for good from ply {} (median; {}-{}), then {:.1} steps from home, {:.1} moves for its army alone (at least), {:.1} plies to finish (means)",
                engine.name,
                engine.freed.len(),
                median_of(&plies),
                plies[0],
                plies[plies.len() - 1],
                mean(|f| f.distance as usize),
                mean(|f| f.alone as usize),
                mean(|f| f.plies),
            );
        }
    }
}

/// The median of sorted plies, "-" for none.
fn median_of(sorted: &[usize]) -> String {
    match sorted.len() {
        0 => "-".to_string(),
        n if n % 2 == 1 => sorted[n / 2].to_string(),
        n => format!("{:.1}", (sorted[n / 2 - 1] + sorted[n / 2]) as f64 / 2.0),
    }
}

/// Positions the solver may visit to count an army once its targets are
/// free: beyond, its count is a lower bound.
const FREED_BUDGET: u64 = 400_000;

/// A completed game from the first ply on which no enemy piece stood on
/// the side's targets again.
struct Freed {
    ply: usize,
    distance: u32,
    /// The fewest moves its army alone needed from there ([`monte_engine::race::solve`]).
    alone: u32,
    /// The plies it took to finish from there.
    plies: usize,
}

/// One engine's race over the games it played (either colour).
#[derive(Default)]
struct EngineTally {
    /// The engine setting, as the records name it.
    name: String,
    games: usize,
    /// Moves made and steps gained in each phase ([`phase_of`]).
    phases: [(usize, i64); 3],
    /// The same by kind of move in each phase (plan, forced, other,
    /// unplanned).
    phase_kinds: [[(usize, i64); 4]; 3],
    /// Moves made near home while an enemy piece held one of its targets.
    near_held: usize,
    /// The plies at which it came within [`NEAR_PHASE`] steps of home.
    within_near_phase: Vec<usize>,
    /// Its completed games from the ply its targets were free for good.
    freed: Vec<Freed>,
    /// At each of [`CHECKPOINTS`]: enemy pieces on its targets, those of
    /// them whose own target one of its pieces holds, and its own pieces
    /// on the enemy's targets.
    held: [(usize, usize, usize); CHECKPOINTS.len()],
    /// The enemy's moves off its targets, by kind: the enemy's plan,
    /// answers to its calls, other, unplanned.
    exits: [usize; 4],
    /// The enemy's moves onto its targets: without, with a call.
    entries: [usize; 2],
}

/// The plies at which the enemy pieces on each side's targets are counted
/// (a game over sooner is counted at its end).
const CHECKPOINTS: [usize; 5] = [100, 150, 200, 250, 300];

/// The distance from home from which on a side is in its last phase
/// (near; `near` above counts from 10 steps).
const NEAR_PHASE: u32 = 20;

/// A side's phase by its distance before a move: far (0), middle (1),
/// near (2).
fn phase_of(distance: u32) -> usize {
    match distance {
        d if d > 60 => 0,
        d if d > NEAR_PHASE => 1,
        _ => 2,
    }
}
