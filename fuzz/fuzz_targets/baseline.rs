//! Any text given as a baseline: read or refused, never a panic; a baseline that reads
//! must diff against itself with no regression.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(b) = gpulint::baseline::parse("fuzz.json", &text) {
        let d = gpulint::diff::diff(&b, &b, &gpulint::diff::default_gates(true), true);
        assert!(d.regressions().next().is_none(), "a baseline regressed against itself");
        let _ = gpulint::baseline::to_json(&b);
    }
});
