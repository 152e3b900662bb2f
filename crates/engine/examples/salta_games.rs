//! Replay Salta match records (`monte match --records FILE`) and print,
//! for each game, how it ended, each side's distance every 50 plies, and
//! how many calls each side made, and (in brackets) how many opponent
//! pieces stood on each side's targets: where the plies of a long game
//! went.
//!
//! cargo run --release -p monte-engine --example salta_games -- FILE [STEP]

use monte_rules::record::Record;
use monte_rules::salta::SaltaPosition;
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
    let mut chunks: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("[Game ") || chunks.is_empty() {
            chunks.push(String::new());
        }
        let last = chunks.last_mut().expect("a chunk");
        last.push_str(line);
        last.push('\n');
    }
    for (i, chunk) in chunks.iter().enumerate().filter(|(_, c)| !c.trim().is_empty()) {
        let record = match Record::parse(chunk) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("game {}: {e}", i + 1);
                continue;
            }
        };
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
                println!(
                    "{n:4} {} {:8} W {:3} B {:3}",
                    pos.side_to_move(),
                    pos.format_move(game.moves()[n]),
                    after.distance(Side::White),
                    after.distance(Side::Black)
                );
            }
        }
        let mut calls = [0usize; 2];
        // Per side: the last ply an opponent piece stood on its targets,
        // and the first ply its distance was at most 10.
        let mut blocked_until = [0usize; 2];
        let mut near = [None::<usize>; 2];
        let mut line = String::new();
        for n in 0..=plies {
            let pos = game.position_after(n).expect("a ply of the game");
            if n < plies {
                let mv = game.moves()[n];
                if mv.call {
                    calls[pos.side_to_move().index()] += 1;
                }
            }
            let blockers = |side: Side| (pos.pieces(!side) & pos.target_set(side)).count_ones();
            for side in [Side::White, Side::Black] {
                if blockers(side) > 0 {
                    blocked_until[side.index()] = n;
                }
                if near[side.index()].is_none() && pos.distance(side) <= 10 {
                    near[side.index()] = Some(n);
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
        println!(
            "game {:2} {} {} {} plies {plies} calls W {} B {} blocked until W {} B {} within 10 W {} B {} |{line}",
            i + 1,
            record.tag("White").unwrap_or("?"),
            record.result,
            record.tag("Termination").unwrap_or("-"),
            calls[0],
            calls[1],
            blocked_until[0],
            blocked_until[1],
            near[0].map_or("-".into(), |n| n.to_string()),
            near[1].map_or("-".into(), |n| n.to_string()),
        );
    }
}
