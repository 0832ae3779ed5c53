//! Any text given as a rule file or a gpulint.toml: loaded or refused, never a panic.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = gpulint::fuzzing::parse_rule("fuzz.toml", text);
        let _ = gpulint::fuzzing::Config::parse("gpulint.toml", text);
        let _ = gpulint::fuzzing::parse_expression(text);
    }
});
