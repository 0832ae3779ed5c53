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
    /// The first launch the finding covers.
    pub launch: u64,
    /// How many launches of this kernel (same name, grid and block) it covers.
    pub launch_count: u64,
    /// The launches it covers, when more than one: at most the first
    /// [`LISTED_LAUNCHES`]; `launch_count` counts them all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<u64>,
    pub kernel: String,
    pub message: String,
    pub fix: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// What the rule read, on the launch the message describes.
    pub evidence: BTreeMap<String, f64>,
    /// Lowest and highest value of each piece of evidence that differed across the
    /// launches covered.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub evidence_range: BTreeMap<String, [f64; 2]>,
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
    /// Which launch of this kernel (by base name, counting from 0) in its file `launch`
    /// is: the source page lists its blocks in that order.
    #[serde(skip)]
    pub nth_of_kernel: usize,
}

/// Launch IDs a merged finding lists; more are counted, not listed.
pub const LISTED_LAUNCHES: usize = 8;

impl Finding {
    /// Whether this finding is about `launch` (a launch, or a folded kernel entry).
    pub fn covers(&self, file: &str, launch: &Launch) -> bool {
        self.file == file
            && self.kernel == launch.name
            && self.grid == launch.grid
            && self.block == launch.block
            && (launch.count > 1 || self.launch == launch.id || self.launches.contains(&launch.id))
    }
}

/// A rule that could not judge a kernel's launches, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Skip {
    pub rule: String,
    /// The first launch skipped.
    pub launch: u64,
    /// How many launches of this kernel were skipped for this reason.
    pub launch_count: u64,
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
    let mut linter = Linter::new(rules, config, merge);
    for profile in profiles {
        for launch in &profile.launches {
            linter.add(&profile.file, launch);
        }
    }
    linter.finish()
}

/// Rule, kernel name, grid, block and file: what a merged finding or skip is about.
type MergeKey = (String, String, Option<[u64; 3]>, Option<[u64; 3]>, String);

/// Lints launches one at a time, as they stream in. Repeats of a kernel are merged as
/// they come, so memory grows with distinct kernels and rules, not with launches.
pub struct Linter<'a> {
    rules: Vec<&'a Rule>,
    config: &'a Config,
    merge: bool,
    outcome: Outcome,
    findings: HashMap<MergeKey, usize>,
    /// Time at stake of the launch each merged finding's message describes.
    shown_stake: Vec<f64>,
    skips: HashMap<(MergeKey, String), usize>,
    /// Launches seen so far per file and kernel base name.
    seen: HashMap<(String, String), usize>,
}

impl<'a> Linter<'a> {
    pub fn new(rules: &'a [Rule], config: &'a Config, merge: bool) -> Self {
        // Rules that defer run last, so they see what the others found.
        let ordered = rules
            .iter()
            .filter(|r| !r.defer_to_other_findings)
            .chain(rules.iter().filter(|r| r.defer_to_other_findings))
            .collect();
        Linter {
            rules: ordered,
            config,
            merge,
            outcome: Outcome::default(),
            findings: HashMap::new(),
            shown_stake: Vec::new(),
            skips: HashMap::new(),
            seen: HashMap::new(),
        }
    }

    pub fn add(&mut self, file: &str, launch: &Launch) {
        let nth = {
            let n = self
                .seen
                .entry((file.to_string(), crate::ingest::base_name(&launch.name)))
                .or_default();
            *n += 1;
            *n - 1
        };
        let mut explained = false;
        for i in 0..self.rules.len() {
            let rule = self.rules[i];
            if self.config.kernel_ignored(&launch.name, rule)
                || (rule.defer_to_other_findings && explained)
            {
                continue;
            }
            match check(rule, launch, file) {
                Judgement::Fires(mut f) => {
                    self.outcome.judged += 1;
                    explained = true;
                    f.nth_of_kernel = nth;
                    self.add_finding(*f);
                }
                Judgement::Quiet { partial: None } => self.outcome.judged += 1,
                Judgement::Quiet {
                    partial: Some(reason),
                } => {
                    self.outcome.judged += 1;
                    self.add_skip(file, rule, launch, reason);
                }
                Judgement::Skipped(reason) => self.add_skip(file, rule, launch, reason),
            }
        }
    }

    pub fn finish(mut self) -> Outcome {
        for f in &mut self.outcome.findings {
            f.evidence_range.retain(|_, [lo, hi]| lo < hi);
        }
        self.outcome
    }

    fn key(
        rule: &str,
        file: &str,
        kernel: &str,
        grid: Option<[u64; 3]>,
        block: Option<[u64; 3]>,
    ) -> MergeKey {
        (
            rule.to_string(),
            kernel.to_string(),
            grid,
            block,
            file.to_string(),
        )
    }

    fn add_finding(&mut self, f: Finding) {
        if !self.merge {
            self.outcome.findings.push(f);
            return;
        }
        let key = Self::key(&f.rule, &f.file, &f.kernel, f.grid, f.block);
        let Some(&i) = self.findings.get(&key) else {
            self.findings.insert(key, self.outcome.findings.len());
            self.shown_stake.push(f.time_at_stake_ns.unwrap_or(0.0));
            self.outcome.findings.push(f);
            return;
        };
        merge_into(&mut self.outcome.findings[i], f, &mut self.shown_stake[i]);
    }

    fn add_skip(&mut self, file: &str, rule: &Rule, launch: &Launch, reason: String) {
        let skip = Skip {
            rule: rule.slug.clone(),
            launch: launch.id,
            launch_count: launch.count,
            kernel: launch.name.clone(),
            reason,
        };
        if !self.merge {
            self.outcome.skips.push(skip);
            return;
        }
        let key = (
            Self::key(&rule.slug, file, &launch.name, launch.grid, launch.block),
            skip.reason.clone(),
        );
        match self.skips.get(&key) {
            Some(&i) => self.outcome.skips[i].launch_count += launch.count,
            None => {
                self.skips.insert(key, self.outcome.skips.len());
                self.outcome.skips.push(skip);
            }
        }
    }
}

/// Folds one more launch's finding into a kernel's. The message, evidence and notes are
/// those of the launch with the most time at stake (the first, when none has more);
/// the evidence range and the time at stake cover them all.
fn merge_into(into: &mut Finding, f: Finding, shown_stake: &mut f64) {
    if into.launches.is_empty() {
        into.launches.push(into.launch);
    }
    if into.launches.len() < LISTED_LAUNCHES {
        into.launches.push(f.launch);
    }
    into.launch_count += f.launch_count;
    into.severity = into.severity.max(f.severity);
    for (k, v) in &f.evidence {
        let old = into.evidence.get(k).copied();
        let range = into.evidence_range.entry(k.clone()).or_insert_with(|| {
            let o = old.unwrap_or(*v);
            [o, o]
        });
        range[0] = range[0].min(*v);
        range[1] = range[1].max(*v);
    }
    let stake = f.time_at_stake_ns.unwrap_or(0.0);
    let total = match (into.time_at_stake_ns, f.time_at_stake_ns) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    if stake > *shown_stake {
        *shown_stake = stake;
        into.message = f.message;
        into.evidence = f.evidence;
        into.notes = f.notes;
    }
    into.time_at_stake_ns = total;
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
        launch_count: launch.count,
        launches: Vec::new(),
        kernel: launch.name.clone(),
        message,
        fix: rule.fix.clone(),
        notes,
        evidence,
        evidence_range: BTreeMap::new(),
        time_at_stake_ns,
        origin: None,
        file: file.to_string(),
        line: launch.line,
        grid: launch.grid,
        block: launch.block,
        nth_of_kernel: 0,
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
