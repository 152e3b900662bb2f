//! Random playouts of the rules alone, for quick speed comparisons while
//! changing move generation: `cargo run --release -p monte-rules --example
//! playouts -- salta ludii 5` (the full benchmark is `monte bench playouts`).

use std::time::Instant;

use monte_rules::Rng;
use monte_rules::focus::FocusPosition;
use monte_rules::game::RepetitionRule;
use monte_rules::playout::{Seen, random_playout};
use monte_rules::salta::SaltaPosition;
use monte_rules::{Position, RuleSet};

fn run<P: Position>(rules: &str, seconds: f64)
where
    P::Rules: RepetitionRule,
{
    let rules: P::Rules = match rules.parse() {
        Ok(r) => r,
        Err(e) => return eprintln!("{e}"),
    };
    let start = P::start(rules);
    let mut rng = Rng::new(1);
    let mut seen = Seen::default();
    // Rounds of a second each; the fastest round is the least disturbed by
    // whatever else the machine is doing.
    if let Ok(n) = std::env::var("PLAYOUT_GAMES") {
        // A fixed number of games, for instruction counts (callgrind).
        let n: u64 = n.parse().unwrap_or(10);
        let plies: u64 = (0..n).map(|_| random_playout(&start, &mut rng, u64::MAX, &mut seen).plies).sum();
        return println!("{n} games, {plies} plies");
    }
    let mut rates = Vec::new();
    let (mut games, mut plies) = (0u64, 0u64);
    for _ in 0..seconds.ceil() as usize {
        let begin = Instant::now();
        let mut round = 0u64;
        while begin.elapsed().as_secs_f64() < 1.0 {
            plies += random_playout(&start, &mut rng, u64::MAX, &mut seen).plies;
            round += 1;
        }
        games += round;
        rates.push(round as f64 / begin.elapsed().as_secs_f64());
    }
    rates.sort_by(f64::total_cmp);
    println!(
        "{} {}: best round {:.1} games/s, median {:.1}; {:.1} moves/game",
        P::KIND,
        rules.preset_name(),
        rates[rates.len() - 1],
        rates[rates.len() / 2],
        plies as f64 / games as f64
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let game = args.next().unwrap_or_else(|| "salta".into());
    let rules = args.next().unwrap_or_else(|| "ludii".into());
    let seconds = args.next().and_then(|s| s.parse().ok()).unwrap_or(5.0);
    match game.as_str() {
        "focus" => run::<FocusPosition>(&rules, seconds),
        _ => run::<SaltaPosition>(&rules, seconds),
    }
}
