//! The race benchmark: random separated Salta positions (each army walked
//! back from its goal by random steps, White's kept on ranks 6-10 and
//! Black's on ranks 1-5, White to move), each army
//! solved exactly, then played out. Prints
//! the solver's time per position and how the engine's finish (as White,
//! against the scripted runner as Black) compares with the solver's
//! optimum.
//!
//! cargo run --release -p monte-engine --example race_bench [-- POSITIONS NODES SEED STEPS]
//!
//! NODES 0 runs the solver alone.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use monte_engine::opponents::runner_move;
use monte_engine::race::{DEFAULT_BUDGET, army, solve};
use monte_engine::{Limits, SearchOptions, Searcher};
use monte_rules::Rng;
use monte_rules::salta::geometry::{Square, square_at};
use monte_rules::salta::{Kind, Piece, SaltaPosition, SaltaRules};
use monte_rules::{Position, Side, Status};

/// A random separated position near the end of a race: from the goal
/// (every piece on its target, White's on ranks 8-10, Black's on 1-3),
/// `steps` random steps of random pieces of each army, White's kept on
/// ranks 6-10 and Black's on ranks 1-5, then White to move.
fn random_race(rng: &mut Rng, steps: usize) -> SaltaPosition {
    loop {
        let mut board: [Option<Piece>; 55] = [None; 55];
        let rules = SaltaRules::seed();
        for side in Side::BOTH {
            for kind in Kind::ALL {
                for number in 1..=5 {
                    let piece = Piece { side, kind, number };
                    board[piece.target(rules.goal) as usize] = Some(piece);
                }
            }
        }
        for side in Side::BOTH {
            let half = |y: i32| if side == Side::White { y >= 5 } else { y <= 4 };
            let mut done = 0;
            while done < steps {
                let from = (rng.next_u64() % 55) as Square;
                if board[from as usize].is_none_or(|p| p.side != side) {
                    continue;
                }
                let (x, y) = monte_rules::salta::geometry::coords(from);
                let (dx, dy) = [(1, 1), (1, -1), (-1, 1), (-1, -1)][(rng.next_u64() % 4) as usize];
                if let Some(to) = square_at(x + dx, y + dy)
                    && half(y + dy)
                    && board[to as usize].is_none()
                {
                    board[to as usize] = board[from as usize].take();
                    done += 1;
                }
            }
        }
        let ranks: Vec<String> = (0..10)
            .rev()
            .map(|y| {
                (0..5)
                    .map(|j| {
                        let sq = square_at(2 * j + y % 2, y).expect("a dark square");
                        board[sq as usize].map_or(".".to_string(), |p| p.token())
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect();
        let fen = format!("{} w - 0", ranks.join("/"));
        // A side that starts complete is rejected; draw again.
        if let Ok(pos) = SaltaPosition::from_fen(SaltaRules::seed(), &fen) {
            return pos;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let nodes: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let mut rng = Rng::new(args.get(3).and_then(|a| a.parse().ok()).unwrap_or(1));
    let steps: usize = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(40);
    let mut solve_times: Vec<Duration> = Vec::new();
    let mut endings = std::collections::BTreeMap::new();
    let (mut armies_exact, mut bounded, mut gap) = (0, 0, 0);
    let mut white_finished = 0;
    let (mut exact, mut optimal, mut predicted, mut extra_moves) = (0, 0, 0, 0u32);
    for _ in 0..count {
        let start = random_race(&mut rng, steps);
        let t = Instant::now();
        let white = solve(&army(&start, Side::White), DEFAULT_BUDGET);
        let black = solve(&army(&start, Side::Black), DEFAULT_BUDGET);
        solve_times.push(t.elapsed());
        exact += (white.exact && black.exact) as usize;
        armies_exact += white.exact as usize + black.exact as usize;
        for s in [&white, &black] {
            if let Some(u) = s.upper {
                bounded += 1;
                gap += u - s.moves;
            }
        }
        // White moves first: it wins when it needs no more moves than Black.
        let expected = if white.moves <= black.moves { Side::White } else { Side::Black };
        let searcher = Searcher::new(SearchOptions { hash_mb: 16, threads: 1, ..Default::default() });
        let mut pos = start.clone();
        let mut history = Vec::new();
        let mut moves = [0u32; 2];
        // NODES 0: the solver alone.
        while nodes > 0 && !pos.status().is_over() && pos.ply() < 400 {
            // The engine plays White; Black is the runner (it races and
            // never turns back), so that what is measured is the engine's
            // own finish.
            let mv = if pos.side_to_move() == Side::White {
                searcher.search(&pos, &history, &Limits::nodes(nodes), &AtomicBool::new(false), &mut |_| {}).best
            } else {
                runner_move(&pos, &mut rng)
            };
            let Some(mv) = mv else { break };
            history.push(pos.hash());
            moves[pos.side_to_move().index()] += 1;
            pos.play_unchecked(mv);
        }
        if nodes == 0 {
            continue;
        }
        eprintln!(
            "{}: solver W {}{} B {}{}; played {} plies, distance W {} B {}",
            start.fen(),
            white.moves,
            if white.exact { "" } else { "+" },
            black.moves,
            if black.exact { "" } else { "+" },
            pos.ply(),
            pos.distance(Side::White),
            pos.distance(Side::Black)
        );
        let status = pos.status();
        let ending = match status {
            Status::Over(o) => format!("{:?}", o.reason),
            Status::Ongoing => "unfinished".to_string(),
        };
        *endings.entry(ending).or_insert(0) += 1;
        if let Status::Over(o) = status
            && let Some(winner) = o.winner
        {
            predicted += (winner == expected) as usize;
            if winner == Side::White && white.exact {
                white_finished += 1;
                optimal += (moves[0] == white.moves) as usize;
                extra_moves += moves[0].saturating_sub(white.moves);
            }
        }
    }
    solve_times.sort();
    let median = solve_times[solve_times.len() / 2];
    let max = solve_times.last().copied().unwrap_or_default();
    println!(
        "race bench: {count} separated positions ({steps} random steps back from the goal), engine at {nodes} nodes a move (White) against the runner (Black)"
    );
    println!("solver: {exact}/{count} solved exactly (both armies); time per position median {median:?}, max {max:?}");
    println!(
        "solver: {armies_exact}/{} armies exact; a solution found for {bounded}, on average {:.2} moves above the proven bound",
        2 * count,
        gap as f64 / bounded.max(1) as f64
    );
    println!("endings: {endings:?}");
    println!(
        "engine (White) against the runner (Black): the side the solver predicts won {predicted}/{count}; \
         the engine finished first with its army counted exactly in {white_finished}: \
         in the optimum number of moves {optimal}, {extra_moves} moves over the optimum in all"
    );
}
