//! The search part of `monte bench` without building the CLI: the node
//! signature and nodes/s, per game (`salta`, `focus` or both).
//!
//! cargo run --release -p monte-engine --example search_bench [-- focus]

use std::io::Write;

use monte_engine::bench;
use monte_rules::focus::FocusPosition;
use monte_rules::salta::SaltaPosition;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let which = std::env::args().nth(1).unwrap_or_default();
    let mut out = std::io::stdout().lock();
    let mut total = 0;
    if which != "focus" {
        total += bench::print_search(
            &mut out,
            "salta",
            &bench::search_set::<SaltaPosition>(bench::SALTA, bench::SALTA_SEARCH_DEPTH)?,
        )?;
    }
    if which != "salta" {
        total += bench::print_search(
            &mut out,
            "focus",
            &bench::search_set::<FocusPosition>(bench::FOCUS, bench::FOCUS_SEARCH_DEPTH)?,
        )?;
    }
    writeln!(out, "search signature (total nodes) {total}")?;
    Ok(())
}
