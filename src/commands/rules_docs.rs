//! `gpulint rules` and `gpulint explain`: the rule table and one rule's docs.

use super::Output;
use crate::cli::RulesFormat;
use crate::error::{Error, Result};
use crate::rules::{self, Rule};

/// `gpulint rules`: the table of rules, or their JSON.
pub fn rules(format: RulesFormat, dir: Option<&str>, out: &mut Output) -> Result<u8> {
    let rules = rules::load(dir)?;
    out.emit(&match format {
        RulesFormat::Human => rules_table(&rules),
        RulesFormat::Json => rules_json(&rules),
        RulesFormat::Markdown => rules_markdown(&rules),
    })?;
    Ok(0)
}

/// `gpulint test-rules DIR`: each case of each rule file there, then the counts; exit 1
/// when one failed.
pub fn test_rules(dir: &str, out: &mut Output) -> Result<u8> {
    let rules = if std::path::Path::new(dir).is_file() {
        rules::load_file(dir)?
    } else {
        rules::load_dir(dir)?
    };
    if rules.is_empty() {
        return Err(Error::in_file(
            dir,
            "no rule files (*.toml) here: give a directory of rule files, or one file",
        ));
    }
    let cases = rules::selftest::run(&rules);
    let mut text = String::new();
    for c in &cases {
        let want = if c.should_fire { "fires" } else { "quiet" };
        match &c.failure {
            None => text.push_str(&format!("ok    {} {want} on {}\n", c.rule, c.spec)),
            Some(why) => text.push_str(&format!("FAIL  {} on {}: {why}\n", c.rule, c.spec)),
        }
    }
    let failed = cases.iter().filter(|c| c.failure.is_some()).count();
    let untested = rules
        .iter()
        .filter(|r| r.tests.fires.is_empty() && r.tests.clean.is_empty())
        .map(|r| r.slug.as_str())
        .collect::<Vec<_>>();
    if !untested.is_empty() {
        text.push_str(&format!("no cases: {}\n", untested.join(", ")));
    }
    text.push_str(&format!(
        "{} passed, {failed} failed\n",
        cases.len() - failed
    ));
    out.emit(&text)?;
    Ok(u8::from(failed > 0))
}

/// `gpulint keys`: every metric key a condition may name, canonical then derived.
pub fn keys(out: &mut Output) -> Result<u8> {
    let mut text = String::new();
    for m in crate::metrics::METRICS {
        let names: Vec<&str> = m
            .sources
            .iter()
            .map(|s| s.name)
            .chain(m.labels.iter().copied())
            .collect();
        text.push_str(&format!("{}\t{}\t{}\n", m.key, m.doc, names.join(" | ")));
    }
    for d in crate::metrics::DERIVED {
        text.push_str(&format!(
            "{}\t{}\tderived from {}\n",
            d.key,
            d.doc,
            d.inputs.join(", ")
        ));
    }
    out.emit(&text)?;
    Ok(0)
}

/// `gpulint gpus`: the GPU table, an entry a block: the name and what it matches, the chip,
/// the SMs and warp slots where known, the peaks, and the sources.
pub fn gpus(out: &mut Output) -> Result<u8> {
    out.emit(&gpus_text())?;
    Ok(0)
}

fn gpus_text() -> String {
    let mut text = String::new();
    for g in crate::roofline::gpus::GPUS {
        let shape = g
            .shape
            .as_ref()
            .map_or("SMs: not in the table".to_string(), |s| {
                format!(
                    "{} SMs, {} warps per SM ({})",
                    s.sms, s.max_warps_per_sm, s.source
                )
            });
        text.push_str(&format!(
            "{} (chip {}, matches \"{}\")\n  FP32 {}, FP64 {}, DRAM {}\n  peaks: {}\n  {shape}\n",
            g.name,
            g.chip,
            g.matches.join(" "),
            crate::roofline::si(g.fp32_flops, "FLOP/s"),
            crate::roofline::si(g.fp64_flops, "FLOP/s"),
            crate::roofline::si(g.dram_bytes_per_s, "B/s"),
            g.source,
        ));
    }
    text
}

/// The rule table as Markdown, for docs/rules.md (a test keeps them equal).
pub fn rules_markdown(rules: &[Rule]) -> String {
    let mut s = String::from(
        "| code | slug | severity | judged on | fires on |\n| --- | --- | --- | --- | --- |\n",
    );
    for r in rules {
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} |\n",
            r.code,
            r.slug,
            r.severity.as_str(),
            r.judged_on().as_str(),
            r.summary
        ));
    }
    s
}

/// `gpulint explain RULE`: one rule's docs, by code or slug.
pub fn explain_rule(rule: &str, dir: Option<&str>, out: &mut Output) -> Result<u8> {
    let all = rules::load(dir)?;
    let r = rules::find(&all, rule).ok_or_else(|| {
        Error::new(format!(
            "no rule {rule:?}{}; `gpulint rules` lists them",
            rules::did_you_mean(&all, rule)
        ))
    })?;
    out.emit(&explain(r))?;
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
                "severity": r.severity, "judged_on": r.judged_on().as_str(),
                "summary": r.summary, "reads": r.reads,
                "params": r.params, "fix": r.fix(), "doc": r.doc,
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
    if r.diff_only {
        s.push_str("Reported by: `gpulint diff`, against a baseline (never by the linter)\n");
    } else {
        s.push_str(&format!("Fires when: {}\n", r.when.source.trim()));
    }
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

#[cfg(test)]
mod tests {
    /// `gpulint gpus` prints the one device table: every entry, with its chip and the
    /// sources of its figures.
    #[test]
    fn gpus_lists_every_device_with_its_sources() {
        let text = super::gpus_text();
        let table = crate::roofline::gpus::GPUS;
        assert_eq!(text.matches("\n  peaks: ").count(), table.len(), "{text}");
        for g in table {
            assert!(
                text.contains(&format!("{} (chip {}", g.name, g.chip)),
                "{text}"
            );
            assert!(text.contains(g.source), "{}", g.name);
        }
        assert!(text.contains("132 SMs, 64 warps per SM"), "{text}");
    }
}
