//! Any text as the rule set of every game: never panics, and accepted
//! rules round-trip through their text form.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    monte_fuzz::fuzz_rules(text);
});
