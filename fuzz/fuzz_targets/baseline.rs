//! Any text given as a baseline: read or refused, never a panic; a baseline that reads
//! must diff against itself with no regression.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    use gpulint::fuzzing::{baseline_to_json, default_gates, diff, parse_baseline};
    if let Ok(b) = parse_baseline("fuzz.json", &text) {
        let d = diff(&b, &b, &default_gates(true), true);
        assert!(d.regressions().next().is_none(), "a baseline regressed against itself");
        let _ = baseline_to_json(&b);
    }
});
