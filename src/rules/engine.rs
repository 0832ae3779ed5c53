//! Applies rules to launches: a finding where a condition holds, a recorded skip where
//! the export lacks what the rule reads.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::expr::EvalError;
use super::{Rule, Severity};
use crate::config::Config;
use crate::ingest::{Launch, Profile};

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: String,
    pub code: String,
    pub severity: Severity,
    pub launch: u64,
    /// Every launch of this kernel (same name, grid and block) the finding covers, when
    /// there is more than one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<u64>,
    pub kernel: String,
    pub message: String,
    pub fix: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    pub evidence: BTreeMap<String, f64>,
    /// The kernel's duration times the share the pathology costs, at most (see
    /// docs/time-at-stake.md). Summed over merged launches. Absent without a duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_at_stake_ns: Option<f64>,
    /// Whose kernel it is (set after the rules ran, see [`crate::origin`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::KernelOrigin>,
    pub file: String,
    pub line: u64,
    #[serde(skip)]
    pub grid: Option<[u64; 3]>,
    #[serde(skip)]
    pub block: Option<[u64; 3]>,
}

/// A rule that could not judge a launch, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skip {
    pub rule: String,
    pub launch: u64,
    pub kernel: String,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct Outcome {
    pub findings: Vec<Finding>,
    pub skips: Vec<Skip>,
    /// Rule checks that could judge their launch, fully or by a fallback.
    pub judged: usize,
}

/// Runs every rule on every launch of every profile.
pub fn lint(profiles: &[Profile], rules: &[Rule], config: &Config) -> Outcome {
    lint_with(profiles, rules, config, true)
}

/// As [`lint`]; `merge` false keeps one finding per launch (`--per-launch`).
pub fn lint_with(profiles: &[Profile], rules: &[Rule], config: &Config, merge: bool) -> Outcome {
    let mut out = Outcome::default();
    for profile in profiles {
        for launch in &profile.launches {
            let first_of_launch = out.findings.len();
            // Rules that defer run last, so they see what the others found.
            let ordered = rules
                .iter()
                .filter(|r| !r.defer_to_other_findings)
                .chain(rules.iter().filter(|r| r.defer_to_other_findings));
            for rule in ordered {
                if config.kernel_ignored(&launch.name, rule) {
                    continue;
                }
                let explained = out.findings.len() > first_of_launch;
                if rule.defer_to_other_findings && explained {
                    continue;
                }
                match check(rule, launch, &profile.file) {
                    Judgement::Fires(f) => {
                        out.judged += 1;
                        out.findings.push(*f)
                    }
                    Judgement::Quiet { partial: None } => out.judged += 1,
                    Judgement::Quiet {
                        partial: Some(reason),
                    } => {
                        out.judged += 1;
                        out.skips.push(Skip {
                            rule: rule.slug.clone(),
                            launch: launch.id,
                            kernel: launch.name.clone(),
                            reason,
                        })
                    }
                    Judgement::Skipped(reason) => out.skips.push(Skip {
                        rule: rule.slug.clone(),
                        launch: launch.id,
                        kernel: launch.name.clone(),
                        reason,
                    }),
                }
            }
        }
    }
    if merge {
        out.findings = merge_repeats(out.findings);
    }
    out
}

/// What one rule says of one launch.
#[derive(Debug)]
pub enum Judgement {
    Fires(Box<Finding>),
    /// No finding. `partial` says why the judgement was only partial (the fallback
    /// check ran because the export lacks the primary metrics).
    Quiet {
        partial: Option<String>,
    },
    /// The export lacks what the rule reads.
    Skipped(String),
}

/// Judges one launch.
pub fn check(rule: &Rule, launch: &Launch, file: &str) -> Judgement {
    let lookup = |name: &str| {
        launch
            .metrics
            .get(name)
            .copied()
            .or_else(|| rule.params.get(name).copied())
    };
    let missing_primary = rule.reads.iter().find(|k| !launch.metrics.contains_key(*k));
    let primary = match missing_primary {
        Some(k) => Err(EvalError::Missing(k.clone())),
        None => rule.when.expr.eval(&lookup),
    };
    let (message, evidence_keys, mut notes) = match primary {
        Ok(v) if v != 0.0 => (rule.message.render(&lookup), &rule.evidence, Vec::new()),
        Ok(_) => return Judgement::Quiet { partial: None },
        Err(EvalError::Missing(primary_missing)) => {
            let Some(fb) = &rule.fallback else {
                return Judgement::Skipped(format!(
                    "needs `{primary_missing}`, which this export does not have"
                ));
            };
            if let Some(k) = fb.reads.iter().find(|k| !launch.metrics.contains_key(*k)) {
                return Judgement::Skipped(format!(
                    "needs `{primary_missing}` (or `{k}` for the fallback check), which this export does not have"
                ));
            }
            match fb.when.expr.eval(&lookup) {
                Ok(v) if v != 0.0 => (
                    fb.message.render(&lookup),
                    &fb.evidence,
                    vec![fb.note.clone()],
                ),
                Ok(_) => {
                    return Judgement::Quiet {
                        partial: Some(format!(
                            "judged by the fallback check only (no finding): the export lacks `{primary_missing}`"
                        )),
                    };
                }
                Err(EvalError::Missing(m)) => {
                    return Judgement::Skipped(format!(
                        "needs `{m}`, which this export does not have"
                    ));
                }
            }
        }
    };
    for note in &rule.notes {
        if note.when.expr.eval(&lookup).is_ok_and(|v| v != 0.0) {
            notes.push(note.text.render(&lookup));
        }
    }
    let severity = match &rule.info_when {
        Some(c) if c.expr.eval(&lookup).is_ok_and(|v| v != 0.0) => Severity::Info,
        _ => rule.severity,
    };
    let evidence = evidence_keys
        .iter()
        .filter_map(|k| launch.metrics.get(k).map(|v| (k.clone(), round(*v))))
        .collect();
    let time_at_stake_ns = match (
        launch.metrics.get("duration_ns"),
        rule.stake.expr.eval(&lookup),
    ) {
        (Some(d), Ok(share)) => Some((d * share.clamp(0.0, 1.0)).round()),
        _ => None,
    };
    Judgement::Fires(Box::new(Finding {
        rule: rule.slug.clone(),
        code: rule.code.clone(),
        severity,
        launch: launch.id,
        launches: Vec::new(),
        kernel: launch.name.clone(),
        message,
        fix: rule.fix.clone(),
        notes,
        evidence,
        time_at_stake_ns,
        origin: None,
        file: file.to_string(),
        line: launch.line,
        grid: launch.grid,
        block: launch.block,
    }))
}

/// Keeps JSON stable and readable: counters stay exact, ratios keep six significant
/// digits, more than ncu prints.
fn round(v: f64) -> f64 {
    if v.fract() == 0.0 || !v.is_finite() {
        return v;
    }
    let digits = 6 - v.abs().log10().ceil() as i32;
    let scale = 10f64.powi(digits.clamp(-12, 12));
    (v * scale).round() / scale
}

/// One finding per rule, kernel (name, grid and block) and message, listing every
/// launch. Launches whose evidence reads differently stay separate: the same kernel
/// called with stride 2 and stride 32 is two findings, not one averaged away.
/// Rule, kernel name, grid, block, file and message.
type MergeKey = (
    String,
    String,
    Option<[u64; 3]>,
    Option<[u64; 3]>,
    String,
    String,
);

fn merge_repeats(findings: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    let mut index: HashMap<MergeKey, usize> = HashMap::new();
    for f in findings {
        let key = (
            f.rule.clone(),
            f.kernel.clone(),
            f.grid,
            f.block,
            f.file.clone(),
            f.message.clone(),
        );
        match index.get(&key) {
            Some(&i) => {
                let o = &mut out[i];
                if o.launches.is_empty() {
                    o.launches.push(o.launch);
                }
                o.launches.push(f.launch);
                o.severity = o.severity.max(f.severity);
                o.time_at_stake_ns = match (o.time_at_stake_ns, f.time_at_stake_ns) {
                    (Some(a), Some(b)) => Some(a + b),
                    (a, b) => a.or(b),
                };
            }
            None => {
                index.insert(key, out.len());
                out.push(f);
            }
        }
    }
    out
}
