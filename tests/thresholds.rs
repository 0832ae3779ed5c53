//! Each rule's bar sits exactly where its file says: for every comparison of a metric with
//! one of the rule's parameters in its `when` (`busiest_throughput_pct < max_busy_pct`),
//! on every launch the rule's `[tests]` say it fires on, the parameter is set to the
//! launch's own value and nudged past it, and the verdict must flip on the side the
//! comparison says (`<` is quiet at the value itself, `>=` fires there). A case at the
//! threshold, for every rule at once, from real captures. The rules whose bars sit inside
//! a `||`, or that have none, get theirs in src/rules/threshold_cases.rs.

mod common;

use gpulint::{Judgement, Rule};

/// `KEY OP PARAM` among a `when`'s `&&`-joined terms (a term inside `||` or parentheses is
/// not a bar of its own).
fn bars(when: &str) -> Vec<(String, String, String)> {
    if when.contains("||") {
        return Vec::new();
    }
    let term = regex::Regex::new(r"^\s*([a-z_0-9]+)\s*(<=|>=|<|>)\s*([a-z_0-9]+)\s*$").unwrap();
    when.split("&&")
        .filter_map(|t| {
            let c = term.captures(t)?;
            Some((c[1].to_string(), c[2].to_string(), c[3].to_string()))
        })
        .collect()
}

fn fires(rule: &Rule, launch: &gpulint::Launch, all: &[gpulint::Launch]) -> bool {
    matches!(
        gpulint::check_in_profile(rule, launch, all, "case"),
        Judgement::Fires(_)
    )
}

#[test]
fn every_rules_bar_flips_exactly_at_the_launchs_value() {
    let mut cases = common::RuleCases::default();
    let (mut checked, mut rules_checked) = (0, Vec::new());
    let mut failed: Vec<String> = Vec::new();
    for rule in gpulint::load_rules(None)
        .unwrap()
        .into_iter()
        .filter(|r| !r.diff_only)
    {
        let terms: Vec<_> = bars(&rule.when.source)
            .into_iter()
            .filter(|(_, _, param)| rule.params.contains_key(param))
            .collect();
        for spec in &rule.tests.fires {
            let (p, launch) = cases.launch(spec);
            for (key, op, param) in &terms {
                let Some(&value) = launch.metrics.get(key.as_str()) else {
                    continue;
                };
                // A step no capture's value would sit within, and no bar's meaning moves by.
                let step = value.abs().max(1.0) * 1e-9;
                let at = |v: f64| {
                    let mut r = rule.clone();
                    r.params.insert(param.clone(), v);
                    fires(&r, launch, &p.launches)
                };
                // Whether the rule fires with the parameter at the launch's value, and
                // with it nudged to the side where the comparison turns.
                let (want_at, nudged, want_nudged) = match op.as_str() {
                    "<" => (false, value + step, true),
                    "<=" => (true, value - step, false),
                    ">" => (false, value - step, true),
                    _ => (true, value + step, false), // ">="
                };
                let (got_at, got_next) = (at(value), at(nudged));
                // Every case is checked, and every one that fails is named.
                if (got_at, got_next) != (want_at, want_nudged) {
                    failed.push(format!(
                        "{} on {spec}: `{key} {op} {param}` with {key} = {value}: fires at \
                         the value {got_at} (want {want_at}), past it {got_next} (want \
                         {want_nudged})",
                        rule.slug
                    ));
                }
                checked += 1;
                if !rules_checked.contains(&rule.slug) {
                    rules_checked.push(rule.slug.clone());
                }
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // 62 cases on 15 rules when written: a rule file whose bar this test stops seeing
    // (rewritten with `||`, say) shows here.
    assert!(
        rules_checked.len() >= 15,
        "only {} rules had a bar to check: {rules_checked:?}",
        rules_checked.len()
    );
    assert!(checked >= 62, "{checked} cases");
}
