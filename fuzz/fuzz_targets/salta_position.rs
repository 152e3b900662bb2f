//! Any text as a Salta position string (seed rules, or the rules on a first
//! line before a line break): never panics; a valid one round-trips, hashes
//! consistently, and every legal move formats, parses back and plays.
#![no_main]

use libfuzzer_sys::fuzz_target;
use monte_rules::salta::{SaltaPosition, SaltaRules};

fuzz_target!(|data: &[u8]| {
    monte_fuzz::fuzz_position::<SaltaPosition>(SaltaRules::seed(), data);
});
