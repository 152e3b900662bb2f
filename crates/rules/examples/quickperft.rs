use monte_rules::{Position, perft::perft, salta::{SaltaPosition, SaltaRules}};
fn main() {
    let d: u32 = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(5);
    let p = SaltaPosition::start(SaltaRules::seed());
    for i in 1..=d { let t = std::time::Instant::now(); let n = perft(&p, i); println!("{i} {n} {:.1} Mn/s", n as f64 / t.elapsed().as_secs_f64() / 1e6); }
}
