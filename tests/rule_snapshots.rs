//! One test and one snapshot per rule, as ruff keeps them (`cargo test small_grid` runs
//! one): what the rule says on each launch its file lists under `tests.fires` (message,
//! evidence, notes, fix), so a change to one rule's wording or thresholds shows in that
//! rule's snapshot alone; and quiet on each under `tests.clean`.

mod common;

use std::fmt::Write;

use gpulint::Judgement;

test_per_rule!(cases_of);

/// The rule's `[tests]` cases: its snapshot, what it says on each launch its file lists
/// under `tests.fires`, and quiet on each under `tests.clean`.
fn cases_of(slug: &str) {
    let mut cases = common::RuleCases::default();
    let rule = gpulint::load_rules(None)
        .unwrap()
        .into_iter()
        .find(|r| r.slug == slug)
        .unwrap_or_else(|| panic!("no rule {slug}"));
    let mut text = String::new();
    for spec in rule.test_cases().0 {
        let (p, launch) = cases.launch(spec);
        let judgement = gpulint::check_in_profile(&rule, launch, &p.launches, spec);
        let Judgement::Fires(f) = judgement else {
            panic!("{} does not fire on {spec}", rule.slug);
        };
        let _ = writeln!(
            text,
            "{spec}: {}[{}] {}",
            f.severity.as_str(),
            f.code,
            f.message
        );
        let _ = writeln!(text, "  evidence: {:?}", f.evidence);
        for n in &f.notes {
            let _ = writeln!(text, "  note: {n}");
        }
        let _ = writeln!(text, "  help: {}\n", f.fix);
    }
    for spec in rule.test_cases().1 {
        let (p, launch) = cases.launch(spec);
        let judgement = gpulint::check_in_profile(&rule, launch, &p.launches, spec);
        assert!(
            !matches!(judgement, Judgement::Fires(_)),
            "{slug} fires on {spec}, which its file lists as clean"
        );
    }
    insta::assert_snapshot!(slug.to_string(), text);
}
