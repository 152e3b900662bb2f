use monte_rules::{
    Position,
    focus::{FocusPosition, FocusRules},
    perft::perft,
    salta::{SaltaPosition, SaltaRules},
};
fn run<P: Position>(p: &P, d: u32) {
    for i in 1..=d {
        let t = std::time::Instant::now();
        let n = perft(p, i);
        println!("{i} {n} {:.1} Mn/s", n as f64 / t.elapsed().as_secs_f64() / 1e6);
    }
}
fn main() {
    let g = std::env::args().nth(1).unwrap();
    let d: u32 = std::env::args().nth(2).map(|s| s.parse().unwrap()).unwrap_or(5);
    if g == "salta" {
        run(&SaltaPosition::start(SaltaRules::seed()), d)
    } else {
        run(&FocusPosition::start(FocusRules::seed()), d)
    }
}
