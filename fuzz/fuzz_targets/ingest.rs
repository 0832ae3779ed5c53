//! Any bytes given as a profile: parsed or refused with an error, never a panic. When
//! they parse, linting them must not panic either.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(profile) = gpulint::parse_bytes("fuzz.csv", data) {
        let rules = gpulint::load_rules(None).expect("built-in rules");
        let _ = gpulint::lint(std::slice::from_ref(&profile), &rules);
        for l in &profile.launches {
            let _ = gpulint::place(l, None);
        }
    }
});
