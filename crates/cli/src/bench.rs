//! `monte bench`: perft over fixed positions of both games.

use std::time::Instant;

use anyhow::Result;
use monte_rules::focus::FocusPosition;
use monte_rules::game::RepetitionRule;
use monte_rules::perft::perft;
use monte_rules::playout::{Playout, Rng, random_playout};
use monte_rules::salta::SaltaPosition;
use monte_rules::{Outcome, Position};

/// (position string, depth). The start positions and positions from the
/// opening, middle and end of games, with pending calls and tall stacks.
const SALTA: &[(&str, u32)] = &[
    (monte_rules::salta::START_FEN, 7),
    (
        "s5,s4,s3,s2,s1/m5,m4,.,m2,m1/o5,o4,.,o2,o1/.,.,.,m3,./.,.,.,.,./.,.,.,O3,./.,M2,o3,O4,./O1,O2,M3,.,O5/M1,.,.,M4,M5/S1,S2,S3,S4,S5 w - 20",
        5,
    ),
    (
        "s5,s4,m3,s2,s1/m5,.,.,.,m1/m4,M3,M1,.,o1/o5,O1,.,.,o2/o4,.,.,.,O5/.,.,.,s3,./.,.,m2,O4,O2/.,.,O3,o3,./.,M2,.,M4,M5/S1,S2,S3,S4,S5 w g3 80",
        5,
    ),
    (
        "m5,.,.,s4,s1/.,.,s3,m2,s2/m4,.,O5,O3,o1/.,S2,o5,m1,O2/.,M1,o4,.,./.,.,.,O4,o3/s5,M2,M4,M3,./.,S1,.,S3,M5/m3,O1,.,S5,./.,.,o2,S4,. w - 150",
        5,
    ),
];

const FOCUS: &[(&str, u32)] = &[
    (monte_rules::focus::START_FEN, 5),
    (
        "bw,.,wb,bw/b,.,w,.,.,b/.,.,w,b,.,b,w,./.,b,b,w,w,.,b,./.,w,.,.,bw,.,wb,w/.,b,.,w,w,.,b,./w,.,b,b,.,w/wb,.,.,wb w 0 0 10",
        5,
    ),
    (
        "b,.,w,./.,.,.,w,b,b/.,.,b,.,.,wb,w,./b,w,b,w,w,b,.,b/b,w,w,bw,.,.,b,w/w,b,w,b,.,b,.,./w,.,w,.,b,w/.,b,wb,w w 0 0 60",
        5,
    ),
    (
        ".,b,.,./.,bbw,.,w,.,b/.,.,wwb,.,b,.,w,./.,b,.,bwbww,w,.,.,./b,.,w,.,.,bb,.,w/.,w,.,b,.,wbw,.,./.,.,b,.,w,./w,.,.,b w 2 1 62",
        4,
    ),
];

fn run_set<P: Position>(name: &str, set: &[(&str, u32)]) -> Result<(u64, f64)> {
    let mut nodes = 0;
    let mut secs = 0.0;
    for (fen, depth) in set {
        let pos = P::from_fen(P::Rules::default(), fen)?;
        let start = Instant::now();
        let n = perft(&pos, *depth);
        let t = start.elapsed().as_secs_f64();
        println!("{name} depth {depth} nodes {n:>11} {:>7.1} M nodes/s  {fen}", n as f64 / t / 1e6);
        nodes += n;
        secs += t;
    }
    println!("{name}: {nodes} nodes in {secs:.3} s, {:.1} M nodes/s", nodes as f64 / secs / 1e6);
    Ok((nodes, secs))
}

/// Search bench: every bench position searched to a fixed depth with one
/// thread and a fresh table. The node total is a signature of the search:
/// it changes only when the search or evaluation changes.
fn search_set<P: monte_engine::EngineGame>(name: &str, set: &[(&str, u32)], depth: u32) -> Result<(u64, f64)>
where
    P::Rules: RepetitionRule,
{
    let mut nodes = 0;
    let mut secs = 0.0;
    for (fen, _) in set {
        let pos = P::from_fen(P::Rules::default(), fen)?;
        let searcher = monte_engine::Searcher::new(monte_engine::SearchOptions { hash_mb: 16, threads: 1 });
        let stop = std::sync::atomic::AtomicBool::new(false);
        let r = searcher.search(&pos, &[], &monte_engine::Limits::depth(depth), &stop, &mut |_| {});
        let t = r.time.as_secs_f64();
        let best = r.best.map(|m| pos.format_move(m)).unwrap_or_else(|| "none".into());
        println!(
            "{name} search depth {depth} nodes {:>9} {:>6.2} M nodes/s bestmove {best} score {}",
            r.nodes,
            r.nodes as f64 / t.max(1e-9) / 1e6,
            r.score
        );
        nodes += r.nodes;
        secs += t;
    }
    println!("{name} search: {nodes} nodes in {secs:.3} s, {:.2} M nodes/s", nodes as f64 / secs.max(1e-9) / 1e6);
    Ok((nodes, secs))
}

pub fn run() -> Result<()> {
    let (sn, _) = run_set::<SaltaPosition>("salta", SALTA)?;
    let (fnodes, _) = run_set::<FocusPosition>("focus", FOCUS)?;
    println!("perft total nodes {}", sn + fnodes);
    let (ss, _) = search_set::<SaltaPosition>("salta", SALTA, 8)?;
    let (fs, _) = search_set::<FocusPosition>("focus", FOCUS, 6)?;
    println!("search signature (total nodes) {}", ss + fs);
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
                    let mut seen = std::collections::HashMap::new();
                    let mut tally = Tally::default();
                    while begin.elapsed().as_secs_f64() < seconds {
                        let Playout { plies, outcome: o } = random_playout(&start, &mut rng, max_plies, &mut seen);
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
    println!("{} rules {}: {threads} thread(s), {secs:.2} s", P::KIND, start.rules());
    println!(
        "games {}  {:.1} games/s  moves {}  {:.0} moves/s  {:.1} moves/game",
        total.games,
        total.games as f64 / secs,
        total.moves,
        total.moves as f64 / secs,
        total.moves as f64 / total.games.max(1) as f64
    );
    for (k, v) in &total.endings {
        println!("  {k}: {v} ({:.1}%)", 100.0 * *v as f64 / total.games.max(1) as f64);
    }
    Ok(())
}
