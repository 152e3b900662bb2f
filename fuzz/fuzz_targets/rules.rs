//! Any text as a Salta or Focus rule set: never panics, and accepted rules
//! round-trip through their text form.
#![no_main]

use libfuzzer_sys::fuzz_target;
use monte_rules::focus::FocusRules;
use monte_rules::salta::SaltaRules;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    monte_fuzz::check_rules::<SaltaRules>(text);
    monte_fuzz::check_rules::<FocusRules>(text);
});
