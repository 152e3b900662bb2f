//! Any text as a game record: the writer round-trips what the parser
//! accepts, and replaying it as any game never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    monte_fuzz::fuzz_record(data);
});
