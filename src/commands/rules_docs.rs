//! `gpulint rules` and `gpulint explain`: the rule table and one rule's docs.

use super::shared::emit;
use crate::cli::RulesFormat;
use crate::error::{Error, Result};
use crate::rules::{self, Rule};

/// `gpulint rules`: the table of rules, or their JSON.
pub fn rules(format: RulesFormat, dir: Option<&str>) -> Result<u8> {
    let rules = rules::load(dir)?;
    emit(&match format {
        RulesFormat::Table => rules_table(&rules),
        RulesFormat::Json => rules_json(&rules),
    })?;
    Ok(0)
}

/// `gpulint explain RULE`: one rule's docs, by code or slug.
pub fn explain_rule(rule: &str, dir: Option<&str>) -> Result<u8> {
    let all = rules::load(dir)?;
    let r = rules::find(&all, rule)
        .ok_or_else(|| Error::new(format!("no rule {rule:?}; `gpulint rules` lists them")))?;
    emit(&explain(r))?;
    Ok(0)
}

pub fn rules_table(rules: &[Rule]) -> String {
    let width = rules.iter().map(|r| r.slug.len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in rules {
        s.push_str(&format!(
            "{}  {:width$}  {:<9} {:<10} {}\n",
            r.code,
            r.slug,
            r.severity.as_str(),
            r.category,
            r.summary
        ));
    }
    s
}

pub fn rules_json(rules: &[Rule]) -> String {
    let list: Vec<serde_json::Value> = rules
        .iter()
        .map(|r| {
            serde_json::json!({
                "code": r.code, "slug": r.slug, "category": r.category,
                "severity": r.severity, "summary": r.summary, "reads": r.reads,
                "params": r.params, "fix": r.fix, "doc": r.doc,
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).expect("plain data") + "\n"
}

pub fn explain(r: &Rule) -> String {
    let mut s = format!("{} ({}): {}\n\n", r.slug, r.code, r.summary);
    s.push_str(&format!(
        "Category: {}. Default severity: {}.\n",
        r.category,
        r.severity.as_str()
    ));
    s.push_str(&format!("Fires when: {}\n", r.when.source.trim()));
    if !r.params.is_empty() {
        let params: Vec<String> = r.params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        s.push_str(&format!("Thresholds: {}\n", params.join(", ")));
    }
    for (title, body) in [
        ("What it does", &r.doc.what),
        ("Why is this bad?", &r.doc.why),
        ("Example", &r.doc.example),
        ("How to fix it", &r.doc.fix),
    ] {
        s.push_str(&format!("\n## {title}\n{}\n", body.trim()));
    }
    s
}
