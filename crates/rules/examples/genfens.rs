use monte_rules::{
    Position, Rng,
    focus::{FocusPosition, FocusRules},
    salta::{SaltaPosition, SaltaRules},
};
fn walk<P: Position>(mut p: P, seed: u64, plies: usize) -> String {
    let mut rng = Rng::new(seed);
    for _ in 0..plies {
        let m = p.legal_moves();
        if m.is_empty() {
            break;
        }
        p.play_unchecked(m[rng.below(m.len())]);
    }
    p.fen()
}
fn main() {
    for (seed, plies) in [(1u64, 20), (2, 40), (3, 80), (4, 150)] {
        println!("salta {}", walk(SaltaPosition::start(SaltaRules::seed()), seed, plies));
    }
    for (seed, plies) in [(1u64, 10), (2, 30), (3, 60), (4, 100)] {
        println!("focus {}", walk(FocusPosition::start(FocusRules::seed()), seed, plies));
    }
}
