//! A Salta position reached by random legal moves under one of the presets
//! (chosen by the input's first bytes), then the rest of the input as a
//! move: an accepted move is legal and plays; a refused one, and a garbage
//! move value, change nothing. See `monte_fuzz::fuzz_move`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use monte_rules::salta::SaltaPosition;

fuzz_target!(|data: &[u8]| {
    monte_fuzz::fuzz_move::<SaltaPosition>(data);
});
