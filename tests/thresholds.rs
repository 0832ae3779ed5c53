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

test_per_rule!(bars_flip_at_the_launchs_value);

/// Every bar of the rule (`KEY OP PARAM` in its `when`) on every launch its `[tests]` say
/// it fires on: set to the launch's own value, the verdict is the comparison's at the
/// value, and flips past it. A rule whose bars sit inside `||`, or that has none, has its
/// cases in src/rules/threshold_cases.rs; here it checks nothing.
fn bars_flip_at_the_launchs_value(slug: &str) {
    let mut cases = common::RuleCases::default();
    let rule = gpulint::load_rules(None)
        .unwrap()
        .into_iter()
        .find(|r| r.slug == slug)
        .unwrap_or_else(|| panic!("no rule {slug}"));
    let mut failed: Vec<String> = Vec::new();
    let terms: Vec<_> = bars(rule.when_source())
        .into_iter()
        .filter(|(_, _, param)| rule.params.contains_key(param))
        .collect();
    for spec in rule.test_cases().0 {
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
            // Whether the rule fires with the parameter at the launch's value, and with it
            // nudged to the side where the comparison turns.
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
                    "{slug} on {spec}: `{key} {op} {param}` with {key} = {value}: fires at the \
                     value {got_at} (want {want_at}), past it {got_next} (want {want_nudged})"
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// 62 cases on 15 rules when written: a rule file whose bar this suite stops seeing
/// (rewritten with `||`, say) shows here.
#[test]
fn the_bars_checked_cover_the_rules_they_did() {
    let (mut checked, mut rules) = (0, 0);
    for rule in gpulint::load_rules(None)
        .unwrap()
        .iter()
        .filter(|r| !r.is_diff_only())
    {
        let terms = bars(rule.when_source())
            .into_iter()
            .filter(|(_, _, param)| rule.params.contains_key(param))
            .count();
        let n = terms * rule.test_cases().0.len();
        checked += n;
        rules += usize::from(n > 0);
    }
    assert!(rules >= 15, "only {rules} rules had a bar to check");
    assert!(checked >= 62, "{checked} cases");
}
