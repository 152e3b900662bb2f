//! Solve both armies of one Salta position as races (the opponent's pieces
//! left out): moves, exactness, the first move, positions visited, time;
//! then the greedy planner's way home (moves, first move, time).
//!
//! cargo run --release -p monte-engine --example race_solve -- "<position>" [BUDGET [GREEDY_BUDGET]]

use monte_engine::race::{DEFAULT_BUDGET, GREEDY_BUDGET, army, greedy_plan, solve};
use monte_rules::salta::geometry::square_name;
use monte_rules::salta::{SaltaPosition, SaltaRules};
use monte_rules::{Position, Side};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(fen) = args.get(1) else {
        eprintln!("usage: race_solve \"<position>\" [BUDGET [GREEDY_BUDGET]]");
        std::process::exit(2);
    };
    let budget = args.get(2).and_then(|b| b.parse().ok()).unwrap_or(DEFAULT_BUDGET);
    let greedy_budget = args.get(3).and_then(|b| b.parse().ok()).unwrap_or(GREEDY_BUDGET);
    let pos = match SaltaPosition::from_fen(SaltaRules::seed(), fen) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    for side in Side::BOTH {
        let t = std::time::Instant::now();
        let s = solve(&army(&pos, side), budget);
        let first = s.first.map(|(a, b)| format!("{}-{}", square_name(a), square_name(b))).unwrap_or("-".into());
        println!(
            "{side}: distance {} moves {}{} (solution {:?}) first {first} nodes {} in {:?}",
            pos.distance(side),
            s.moves,
            if s.exact { "" } else { " (lower bound)" },
            s.upper,
            s.nodes,
            t.elapsed()
        );
        let t = std::time::Instant::now();
        match greedy_plan(&army(&pos, side), 0, 0, greedy_budget) {
            Some(path) => {
                let (a, b) = path[0];
                let moves = path.len();
                println!(
                    "{side}: greedy plan {moves} moves, first {}-{} in {:?}",
                    square_name(a),
                    square_name(b),
                    t.elapsed()
                )
            }
            None => println!("{side}: greedy plan none within {greedy_budget} expansions ({:?})", t.elapsed()),
        }
    }
    // The plan the engine follows when the side to move leads the race:
    // the opponent's pieces stand as walls.
    let t = std::time::Instant::now();
    match monte_engine::race::planned_move(&pos) {
        Some(mv) => {
            println!("{}: plan among the walls, first {} in {:?}", pos.side_to_move(), pos.format_move(mv), t.elapsed())
        }
        None => println!("{}: no plan among the walls ({:?})", pos.side_to_move(), t.elapsed()),
    }
}
