//! The bench: fixed positions of both games, for perft and for a search to
//! a fixed depth whose node total is a signature of the search (it changes
//! only when the search or the evaluation changes), as in Stockfish.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use monte_rules::PositionError;
use monte_rules::game::RepetitionRule;

use crate::{EngineGame, Limits, SearchOptions, Searcher};

/// (position string, depth). The start positions and positions from the
/// opening, middle and end of games, with pending calls and tall stacks.
pub const SALTA: &[(&str, u32)] = &[
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

pub const FOCUS: &[(&str, u32)] = &[
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

/// Depth of the search bench in each game.
pub const SALTA_SEARCH_DEPTH: u32 = 8;
pub const FOCUS_SEARCH_DEPTH: u32 = 9;

/// One bench position searched.
#[derive(Clone, Debug)]
pub struct SearchLine {
    pub fen: &'static str,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// The best move in the game's notation, or `none`.
    pub best: String,
    pub score: crate::Score,
}

/// Search every position of `set` to `depth` with one thread and a fresh
/// 16 MiB table.
pub fn search_set<P: EngineGame>(set: &[(&'static str, u32)], depth: u32) -> Result<Vec<SearchLine>, PositionError>
where
    P::Rules: RepetitionRule,
{
    let mut lines = Vec::with_capacity(set.len());
    for &(fen, _) in set {
        let pos = P::from_fen(P::Rules::default(), fen)?;
        let searcher = Searcher::new(SearchOptions { hash_mb: 16, threads: 1, ..Default::default() });
        let stop = AtomicBool::new(false);
        let r = searcher.search(&pos, &[], &Limits::depth(depth), &stop, &mut |_| {});
        let best = r.best.map(|m| pos.format_move(m)).unwrap_or_else(|| "none".into());
        lines.push(SearchLine { fen, depth, nodes: r.nodes, time: r.time, best, score: r.score });
    }
    Ok(lines)
}

impl SearchLine {
    pub fn nodes_per_second(&self) -> f64 {
        self.nodes as f64 / self.time.as_secs_f64().max(1e-9)
    }
}

/// One line per position, then the total, as `monte bench` prints them,
/// to `out`; returns the node total.
pub fn print_search(out: &mut impl std::io::Write, name: &str, lines: &[SearchLine]) -> std::io::Result<u64> {
    for l in lines {
        writeln!(
            out,
            "{name} search depth {} nodes {:>9} {:>6.2} M nodes/s bestmove {} score {}",
            l.depth,
            l.nodes,
            l.nodes_per_second() / 1e6,
            l.best,
            l.score
        )?;
    }
    let nodes: u64 = lines.iter().map(|l| l.nodes).sum();
    let secs: f64 = lines.iter().map(|l| l.time.as_secs_f64()).sum();
    writeln!(out, "{name} search: {nodes} nodes in {secs:.3} s, {:.2} M nodes/s", nodes as f64 / secs.max(1e-9) / 1e6)?;
    Ok(nodes)
}
