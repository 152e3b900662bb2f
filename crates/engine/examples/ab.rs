//! A/B test of evaluation weights: two copies of the alpha-beta searcher,
//! one with weights A and one with weights B, play pairs of games from
//! random openings (each opening with both colours) at a fixed depth.
//!
//! cargo run --release -p monte-engine --example ab -- salta seed,move-limit=150 40 4 "100,60,12,10,15"
//! (game, rules, games, depth, weights A; B is the engine's own weights)

use std::sync::atomic::AtomicBool;

use monte_engine::{EngineGame, Limits, SearchOptions, Searcher, ai};
use monte_rules::focus::FocusPosition;
use monte_rules::game::{Game, RepetitionRule};
use monte_rules::salta::SaltaPosition;
use monte_rules::{Rng, Side, Status};

fn play<P: EngineGame>(rules: P::Rules, games: usize, depth: u32, a: Vec<i32>) -> (f64, usize)
where
    P::Rules: RepetitionRule,
{
    let stop = AtomicBool::new(false);
    let mut score = 0.0;
    // Each opening is played twice, once with each colour.
    let mut openings = Rng::new(0x1234_5678);
    let mut seed = 0;
    for g in 0..games {
        if g % 2 == 0 {
            seed = openings.next_u64();
        }
        let a_is_white = g % 2 == 0;
        let sa = Searcher::new(SearchOptions { hash_mb: 16, threads: 1, ..Default::default() }).with_weights(a.clone());
        let sb = Searcher::new(SearchOptions { hash_mb: 16, threads: 1, ..Default::default() });
        let mut game = Game::new(P::start(rules));
        let mut rng = Rng::new(seed);
        while !game.status().is_over() {
            let pos = game.position().clone();
            let mv = if game.moves().len() < 6 {
                let m = pos.legal_moves();
                m[rng.below(m.len())]
            } else {
                let white = pos.side_to_move() == Side::White;
                let searcher = if white == a_is_white { &sa } else { &sb };
                match ai::search(searcher, &game, &Limits::depth(depth), &stop, &mut |_| {}) {
                    Ok(choice) => choice.mv,
                    Err(_) => break,
                }
            };
            game.play(mv).expect("legal");
        }
        let r = match game.status() {
            Status::Over(o) => match o.winner {
                Some(Side::White) => 1.0,
                Some(Side::Black) => 0.0,
                None => 0.5,
            },
            Status::Ongoing => 0.5,
        };
        score += if a_is_white { r } else { 1.0 - r };
        eprintln!("game {}: A {} score so far {score}/{}", g + 1, if a_is_white { "White" } else { "Black" }, g + 1);
    }
    (score, games)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 6 {
        eprintln!("usage: ab GAME RULES GAMES DEPTH WEIGHTS_A");
        std::process::exit(2);
    }
    let games: usize = args[3].parse().expect("games");
    let depth: u32 = args[4].parse().expect("depth");
    let a: Vec<i32> = args[5].split(',').map(|x| x.trim().parse().expect("weight")).collect();
    let (score, n) = match args[1].as_str() {
        "salta" => play::<SaltaPosition>(args[2].parse().expect("rules"), games, depth, a),
        _ => play::<FocusPosition>(args[2].parse().expect("rules"), games, depth, a),
    };
    println!("A scored {score}/{n} ({:.1}%) against the built-in weights", 100.0 * score / n as f64);
}
