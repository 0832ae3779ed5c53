//! One snapshot per rule, as ruff keeps them: what the rule says on each launch its file
//! lists under `tests.fires` (message, evidence, notes, fix), so a change to one rule's
//! wording or thresholds shows in that rule's snapshot alone.

mod common;

use std::fmt::Write;

use gpulint::Judgement;

#[test]
fn each_rule_on_the_launches_it_fires_on() {
    let mut cases = common::RuleCases::default();
    let mut failed: Vec<String> = Vec::new();
    for rule in gpulint::load_rules(None)
        .unwrap()
        .into_iter()
        .filter(|r| !r.diff_only)
    {
        let mut text = String::new();
        for spec in &rule.tests.fires {
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
        // Every rule is compared, and every one that differs is named: the first
        // mismatch does not hide the rest.
        let slug = rule.slug.clone();
        if std::panic::catch_unwind(|| insta::assert_snapshot!(slug.clone(), text)).is_err() {
            failed.push(rule.slug.clone());
        }
    }
    assert!(failed.is_empty(), "rule snapshots that differ: {failed:?}");
}
