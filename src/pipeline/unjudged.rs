//! Never a clean report for a file nothing could be judged on: the error says which
//! ncu sections would let the rules judge.

use crate::error::{Error, Result};
use crate::ingest::Profile;
use crate::rules::{self, Rule};

/// Never a clean report for a file nothing could be judged on; and a selection of rules
/// none of which applies is said as such, not blamed on the export.
pub(super) fn refuse_unjudged(
    profiles: &[Profile],
    coverage: &rules::engine::Coverage,
    rules: &[Rule],
) -> Result<()> {
    let launches: u64 = profiles.iter().map(Profile::launch_count).sum();
    let lint_rules: Vec<&Rule> = rules.iter().filter(|r| !r.diff_only).collect();
    if lint_rules.is_empty() {
        return Err(Error::new(
            "the rules selected are only the regression gate (GL900), which `gpulint diff` \
             runs against a baseline: select a lint rule for this command",
        ));
    }
    if !coverage.judged.is_empty() || launches == 0 {
        return Ok(());
    }
    if coverage.not_judged.is_empty() {
        let why: Vec<String> = lint_rules
            .iter()
            .map(|r| match r.judges_failed_launches {
                true => format!("{} judges only launches that failed, and none did", r.slug),
                false => format!("{} applies to no launch here", r.slug),
            })
            .collect();
        crate::note!(
            "note: none of the selected rules applies to these {launches} launch(es): {}",
            why.join("; ")
        );
        return Ok(());
    }
    // A launch trace holds launch shapes, durations and origins by design: read for those,
    // not judged by the metric rules.
    if profiles
        .iter()
        .all(|p| p.page == crate::ingest::Page::Trace)
    {
        crate::note!(
            "note: a launch trace has launch shapes, durations and the objects that \
             launched the kernels; the rules that read ncu's metrics need a profile (`gpulint run`)"
        );
        return Ok(());
    }
    let files: Vec<&str> = profiles.iter().map(|p| p.file.as_str()).collect();
    // No ncu section gives what only the launch trace has.
    let lint_rules: Vec<&Rule> = lint_rules
        .into_iter()
        .filter(|r| r.launch_trace_key().is_none())
        .collect();
    let (sections, helped) = sections_that_would_judge(profiles, &lint_rules);
    let by_section = if sections.is_empty() {
        String::new()
    } else {
        let flags: Vec<String> = sections.iter().map(|s| format!("--section {s}")).collect();
        format!(
            "; ncu's `{}` would let {helped} of the {} rules judge",
            flags.join(" "),
            lint_rules.len()
        )
    };
    Err(Error::new(format!(
        "{}: no rule could judge any of the {launches} launch(es): the export lacks the metrics they read \
         (--verbose lists them){by_section}; export with `--metrics $(gpulint metrics)` or use `gpulint run` \
         for all of them",
        files.join(", ")
    )))
}

/// The ncu sections that would give the rules what the first launch lacks, and how many
/// rules they would let judge (through a rule's own check or its fallback).
fn sections_that_would_judge(profiles: &[Profile], rules: &[&Rule]) -> (Vec<&'static str>, usize) {
    let Some(launch) = profiles.iter().flat_map(|p| p.launches.iter()).next() else {
        return (Vec::new(), 0);
    };
    let sections_for = |reads: &[String]| -> Option<Vec<&'static str>> {
        let mut all = Vec::new();
        for key in reads
            .iter()
            .filter(|k| !launch.metrics.contains_key(k.as_str()))
        {
            all.extend(crate::metrics::sections_giving(key)?);
        }
        Some(all)
    };
    let mut sections = Vec::new();
    let mut helped = 0;
    for rule in rules {
        let needed = sections_for(&rule.reads)
            .or_else(|| rule.fallback.as_ref().and_then(|f| sections_for(&f.reads)));
        if let Some(needed) = needed {
            helped += 1;
            sections.extend(needed);
        }
    }
    sections.sort_unstable();
    sections.dedup();
    (sections, helped)
}
