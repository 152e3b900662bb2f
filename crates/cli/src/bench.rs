//! `monte bench`: perft over fixed positions of both games, random
//! playouts from their starts, and the search bench, each with a total
//! that is a signature of the code it measures.

use std::io::Write;
use std::time::Instant;

use anyhow::Result;
use monte_engine::bench;
use monte_rules::Rng;
use monte_rules::focus::FocusPosition;
use monte_rules::game::RepetitionRule;
use monte_rules::perft::perft;
use monte_rules::playout::{Playout, Seen, random_playout};
use monte_rules::salta::SaltaPosition;
use monte_rules::{Outcome, Position};

fn run_set<P: Position>(out: &mut impl Write, name: &str, set: &[(&str, u32)]) -> Result<(u64, f64)> {
    let mut nodes = 0;
    let mut secs = 0.0;
    for (fen, depth) in set {
        let pos = P::from_fen(P::Rules::default(), fen)?;
        let start = Instant::now();
        let n = perft(&pos, *depth);
        let t = start.elapsed().as_secs_f64();
        writeln!(out, "{name} depth {depth} nodes {n:>11} {:>7.1} M nodes/s  {fen}", n as f64 / t / 1e6)?;
        nodes += n;
        secs += t;
    }
    writeln!(out, "{name}: {nodes} nodes in {secs:.3} s, {:.1} M nodes/s", nodes as f64 / secs / 1e6)?;
    Ok((nodes, secs))
}

/// The playout part of `monte bench`: (rule set, games). Salta `ludii`
/// is the rule set Ludii's own playout benchmark plays (each game runs to
/// its draw at 1,250 moves a side); Focus `sackson` games end by a side
/// out of pieces or by repetition.
const SALTA_PLAYOUTS: (&str, u64) = ("ludii", 1000);
const FOCUS_PLAYOUTS: (&str, u64) = ("sackson", 60);

/// No bench game reaches this many plies; it only bounds a wandering one.
const PLAYOUT_MAX_PLIES: u64 = 1_000_000;

/// Play `games` random games from the start of `rules` on one thread,
/// game `i` with the seed `i`, and print their speed. Returns the total
/// moves and the sum of the games' last positions' hashes: the same on
/// every machine, they change only when the random moves drawn change
/// (Salta `ludii` games all last 2,500 plies, so there the hashes tell).
fn playout_set<P: Position>(out: &mut impl Write, name: &str, (rules, games): (&str, u64)) -> Result<(u64, u64)>
where
    P::Rules: RepetitionRule,
{
    let start_pos = P::start(rules.parse()?);
    let mut seen = Seen::default();
    let (mut moves, mut ends) = (0, 0u64);
    let start = Instant::now();
    for seed in 0..games {
        let game = random_playout(&start_pos, &mut Rng::new(seed), PLAYOUT_MAX_PLIES, &mut seen);
        moves += game.plies;
        ends = ends.wrapping_add(game.end_hash);
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    writeln!(
        out,
        "{name} playouts rules {rules}: {games} games, {moves} moves in {secs:.3} s, {:.0} games/s, {:.2} M moves/s",
        games as f64 / secs,
        moves as f64 / secs / 1e6
    )?;
    Ok((moves, ends))
}

pub fn run() -> Result<()> {
    // Written, not printed: a reader that stops early (`monte bench |
    // head`) ends the command quietly (see `main`).
    let mut out = std::io::stdout().lock();
    let (sn, _) = run_set::<SaltaPosition>(&mut out, "salta", bench::SALTA)?;
    let (fnodes, _) = run_set::<FocusPosition>(&mut out, "focus", bench::FOCUS)?;
    writeln!(out, "perft total nodes {}", sn + fnodes)?;
    let (sm, se) = playout_set::<SaltaPosition>(&mut out, "salta", SALTA_PLAYOUTS)?;
    let (fm, fe) = playout_set::<FocusPosition>(&mut out, "focus", FOCUS_PLAYOUTS)?;
    writeln!(out, "playout signature (total moves, last positions) {} {:016x}", sm + fm, se.wrapping_add(fe))?;
    let salta = bench::search_set::<SaltaPosition>(bench::SALTA, bench::SALTA_SEARCH_DEPTH)?;
    let ss = bench::print_search(&mut out, "salta", &salta)?;
    let focus = bench::search_set::<FocusPosition>(bench::FOCUS, bench::FOCUS_SEARCH_DEPTH)?;
    let fs = bench::print_search(&mut out, "focus", &focus)?;
    writeln!(out, "search signature (total nodes) {}", ss + fs)?;
    Ok(())
}

/// Tally of finished playouts.
#[derive(Clone, Debug, Default)]
struct Tally {
    games: u64,
    moves: u64,
    /// (winner, reason) -> count
    endings: std::collections::BTreeMap<String, u64>,
}

/// What `monte bench playouts` runs.
#[derive(Clone, Debug)]
pub struct PlayoutSettings {
    pub seconds: f64,
    pub threads: usize,
    pub seed: u64,
    pub max_plies: u64,
}

pub fn playouts<P: Position>(start: P, settings: &PlayoutSettings) -> Result<()>
where
    P::Rules: RepetitionRule,
{
    let PlayoutSettings { seconds, threads, seed, max_plies } = *settings;
    anyhow::ensure!(threads >= 1, "--threads must be 1 or more");
    anyhow::ensure!(seconds > 0.0, "--seconds must be more than 0");
    let begin = Instant::now();
    let tallies: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let start = start.clone();
                scope.spawn(move || {
                    let mut rng = Rng::new(seed.wrapping_add(t as u64));
                    let mut seen = Seen::default();
                    let mut tally = Tally::default();
                    while begin.elapsed().as_secs_f64() < seconds {
                        let Playout { plies, outcome: o, .. } = random_playout(&start, &mut rng, max_plies, &mut seen);
                        tally.games += 1;
                        tally.moves += plies;
                        let key = match o {
                            Some(Outcome { winner: Some(side), reason, .. }) => {
                                format!("{side} wins by {}", reason.name())
                            }
                            Some(Outcome { winner: None, reason, .. }) => format!("draw by {}", reason.name()),
                            None => format!("unfinished after {max_plies} plies (--max-plies)"),
                        };
                        *tally.endings.entry(key).or_insert(0) += 1;
                    }
                    tally
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("playout thread")).collect()
    });
    let secs = begin.elapsed().as_secs_f64();
    let mut total = Tally::default();
    for t in tallies {
        total.games += t.games;
        total.moves += t.moves;
        for (k, v) in t.endings {
            *total.endings.entry(k).or_insert(0) += v;
        }
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} rules {}: {threads} thread(s), {secs:.2} s", P::KIND, start.rules())?;
    writeln!(
        out,
        "games {}  {:.1} games/s  moves {}  {:.0} moves/s  {:.1} moves/game",
        total.games,
        total.games as f64 / secs,
        total.moves,
        total.moves as f64 / secs,
        total.moves as f64 / total.games.max(1) as f64
    )?;
    for (k, v) in &total.endings {
        writeln!(out, "  {k}: {v} ({:.1}%)", 100.0 * *v as f64 / total.games.max(1) as f64)?;
    }
    Ok(())
}
