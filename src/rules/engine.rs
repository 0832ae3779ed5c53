//! Applies rules to launches: a finding where a condition holds, a recorded skip where
//! the export lacks what the rule reads.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;

use super::expr::EvalError;
use super::{Rule, Severity};
use crate::ingest::{Launch, Profile};

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub rule: String,
    pub code: String,
    pub severity: Severity,
    /// The first launch the finding covers.
    pub launch: u64,
    /// How many launches of this kernel (same name, in one file) it covers.
    pub launch_count: u64,
    /// Of those, how many were profiled, when every launch was counted (launch trace or
    /// timing pass) and the sample left some out; absent when all were.
    #[serde(
        skip_serializing_if = "Option::is_none",
        rename = "profiled_launch_count"
    )]
    pub profiled_count: Option<u64>,
    /// How many launch configurations (grid and block) the launches it covers had.
    pub configurations: usize,
    /// Fewest and most blocks in the grids of the launches it covers.
    pub grid_blocks: Option<[u64; 2]>,
    /// The launches it covers, when more than one: at most the first
    /// [`LISTED_LAUNCHES`]; `launch_count` counts them all.
    #[serde(skip_serializing_if = "Vec::is_empty", rename = "launch_ids")]
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
    /// GPU time of the launches it covers, summed over merged launches: what a rule's
    /// share floor weighs. Absent without a duration.
    #[serde(skip)]
    pub covered_time_ns: Option<f64>,
    /// The CUDA source line behind it, when a source page was read (`--source`,
    /// `--source-page`): where code scanning shows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceLocation>,
    /// Whose kernel it is (set after the rules ran, see [`crate::origin`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub origin: Option<crate::origin::KernelOrigin>,
    pub file: String,
    pub line: u64,
    #[serde(skip)]
    pub grid: Option<[u64; 3]>,
    #[serde(skip)]
    pub block: Option<[u64; 3]>,
    /// The (grid, block) configurations it covers, once merged (empty per launch).
    #[serde(skip)]
    pub covered: HashSet<Configuration>,
    /// Which launch of this kernel (by base name, counting from 0) in its file `launch`
    /// is: the source page lists its blocks in that order.
    #[serde(skip)]
    pub nth_of_kernel: usize,
}

/// A line of CUDA source, as the source page names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceLocation {
    pub file: String,
    pub line: u64,
}

/// A launch configuration: grid and block.
pub type Configuration = (Option<[u64; 3]>, Option<[u64; 3]>);

/// Launch IDs a merged finding lists; more are counted, not listed.
pub const LISTED_LAUNCHES: usize = 8;

impl Finding {
    /// Whether this finding is about `launch` (a launch, or a folded entry of one
    /// kernel configuration). A merged finding covers every configuration of its kernel
    /// it held on; an unmerged one (`--per-launch`), its own launch.
    pub fn covers(&self, file: &str, launch: &Launch) -> bool {
        self.file == file
            && self.kernel == launch.name
            && if self.covered.is_empty() {
                self.launch == launch.id
            } else {
                self.covered.contains(&(launch.grid, launch.block))
            }
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
    pub coverage: Coverage,
}

/// Which rules could judge the profile: what a report must show so that an export too
/// thin to judge never passes unseen.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Coverage {
    /// Slugs of the rules that judged at least one launch.
    pub judged: Vec<String>,
    /// Slugs of the rules that applied to some launch but could judge none.
    pub not_judged: Vec<String>,
}

impl Coverage {
    /// The share of the rules that applied which could judge, in %; `None` when no rule
    /// applied.
    pub fn judged_pct(&self) -> Option<f64> {
        let all = self.judged.len() + self.not_judged.len();
        (all > 0).then(|| 100.0 * self.judged.len() as f64 / all as f64)
    }

    /// "7 of 29 rules could judge; 22 could not (missing metrics): a, b, ...", or `None`
    /// when every rule that applied could judge. The one wording of every format.
    pub fn summary(&self) -> Option<String> {
        if self.not_judged.is_empty() {
            return None;
        }
        Some(format!(
            "{} of {} rules could judge; {} could not for missing metrics: {}",
            self.judged.len(),
            self.judged.len() + self.not_judged.len(),
            self.not_judged.len(),
            self.not_judged.join(", ")
        ))
    }
}

/// Whether a rule is switched off for a kernel, by its name (gpulint.toml's
/// `ignore-kernel`); the engine asks, and does not know where the answer comes from.
pub type KernelFilter<'a> = &'a dyn Fn(&str, &Rule) -> bool;

/// A filter that switches nothing off.
pub fn no_filter(_: &str, _: &Rule) -> bool {
    false
}

/// Runs every rule on every launch of every profile.
pub fn lint(profiles: &[Profile], rules: &[Rule]) -> Outcome {
    lint_with(profiles, rules, &no_filter, true)
}

/// As [`lint`], with kernels' rules switched off by `ignored`; `merge` false keeps one
/// finding per launch (`--per-launch`).
pub fn lint_with(
    profiles: &[Profile],
    rules: &[Rule],
    ignored: KernelFilter,
    merge: bool,
) -> Outcome {
    let mut linter = Linter::new(rules, ignored, merge);
    for profile in profiles {
        for launch in &profile.launches {
            linter.add(&profile.file, launch);
        }
    }
    linter.finish()
}

/// What the linter keeps per kernel (file and name) while merging.
struct KernelSlot {
    file: String,
    /// Index into the launch counters of this kernel's base name in its file.
    base: usize,
    /// Per rule (in the linter's order), its merged finding's index.
    findings: Vec<Option<usize>>,
    /// Per rule, whether gpulint.toml's `ignore-kernel` switches it off for this kernel.
    ignored: Vec<bool>,
    /// (rule, reason) of merged skips, with the skip's index.
    skips: Vec<(usize, String, usize)>,
}

/// Lints launches one at a time, as they stream in. Repeats of a kernel are merged as
/// they come, so memory grows with distinct kernels and rules, not with launches, and
/// a repeat costs no allocation beyond its findings.
pub struct Linter<'a> {
    rules: Vec<&'a Rule>,
    ignored: KernelFilter<'a>,
    merge: bool,
    outcome: Outcome,
    /// Time at stake of the launch each merged finding's message describes.
    shown_stake: Vec<f64>,
    slots: Vec<KernelSlot>,
    /// Slots by kernel name; a name may come from several files.
    kernels: HashMap<String, Vec<usize>>,
    /// Launches seen so far per file and base name, indexed by `KernelSlot::base`.
    launches_of_base: Vec<usize>,
    bases: HashMap<(String, String), usize>,
    /// Per rule (in `rules` order): whether it judged any launch, and was skipped on any.
    judged_any: Vec<bool>,
    skipped_any: Vec<bool>,
    /// Launches of rules with `context_kernels`, judged once the whole profile is read.
    deferred: Vec<Deferred>,
    /// Per (rule, file): the launches of its context kernels seen so far.
    context_launches: HashMap<(usize, String), u64>,
}

/// A launch a rule judges in [`Linter::finish`], when its context is known.
struct Deferred {
    rule: usize,
    slot: usize,
    nth: usize,
    file: String,
    launch: Launch,
}

impl<'a> Linter<'a> {
    pub fn new(rules: &'a [Rule], ignored: KernelFilter<'a>, merge: bool) -> Self {
        // Rules that defer run last, so they see what the others found.
        let linted = || rules.iter().filter(|r| !r.diff_only);
        let ordered = linted()
            .filter(|r| !r.defer_to_other_findings)
            .chain(linted().filter(|r| r.defer_to_other_findings))
            .collect();
        Linter {
            rules: ordered,
            ignored,
            merge,
            outcome: Outcome::default(),
            shown_stake: Vec::new(),
            slots: Vec::new(),
            kernels: HashMap::new(),
            launches_of_base: Vec::new(),
            bases: HashMap::new(),
            judged_any: Vec::new(),
            skipped_any: Vec::new(),
            deferred: Vec::new(),
            context_launches: HashMap::new(),
        }
    }

    /// The slot of a launch's kernel, made on first sight. Launches of one kernel with
    /// other grids or blocks share it: an iterative solver's shrinking grid is one kernel.
    fn slot(&mut self, file: &str, launch: &Launch) -> usize {
        let same = |k: &KernelSlot| k.file == file;
        if let Some(i) = self
            .kernels
            .get(&launch.name)
            .and_then(|v| v.iter().copied().find(|&i| same(&self.slots[i])))
        {
            return i;
        }
        let base_key = (file.to_string(), crate::ingest::base_name(&launch.name));
        let next = self.launches_of_base.len();
        let base = *self.bases.entry(base_key).or_insert(next);
        if base == next {
            self.launches_of_base.push(0);
        }
        self.kernels
            .entry(launch.name.clone())
            .or_default()
            .push(self.slots.len());
        self.slots.push(KernelSlot {
            file: file.to_string(),
            base,
            findings: vec![None; self.rules.len()],
            // Switched off for this kernel by the config, or not one the rule applies to
            // (its `kernel_pattern`): decided once per kernel, not per launch.
            ignored: self
                .rules
                .iter()
                .map(|r| (self.ignored)(&launch.name, r) || !r.applies_to(&launch.name))
                .collect(),
            skips: Vec::new(),
        });
        self.slots.len() - 1
    }

    pub fn add(&mut self, file: &str, launch: &Launch) {
        let slot = self.slot(file, launch);
        let base = self.slots[slot].base;
        let nth = self.launches_of_base[base];
        self.launches_of_base[base] += 1;

        let mut explained = false;
        // ncu records a launch that failed with grid and block (0,0,0) and no data.
        let failed = ["grid_blocks", "block_size"]
            .iter()
            .any(|k| launch.metrics.get(*k) == Some(&0.0));
        for i in 0..self.rules.len() {
            let rule = self.rules[i];
            if self.slots[slot].ignored[i]
                || (rule.defer_to_other_findings && explained)
                || rule.judges_failed_launches != failed
            {
                continue;
            }
            if rule.context.is_some() {
                self.deferred.push(Deferred {
                    rule: i,
                    slot,
                    nth,
                    file: file.to_string(),
                    launch: launch.clone(),
                });
                continue;
            }
            let judgement = judge(rule, launch, file);
            explained |= self.record(i, slot, nth, launch, judgement);
        }
        self.count_context(file, launch);
    }

    /// Counts `launch` for the rules whose context kernels it is one of.
    fn count_context(&mut self, file: &str, launch: &Launch) {
        for (i, rule) in self.rules.iter().enumerate() {
            if rule.context.as_ref().is_some_and(|c| c.counts(launch)) {
                *self
                    .context_launches
                    .entry((i, file.to_string()))
                    .or_default() += launch.count;
            }
        }
    }

    /// Records what `rule` made of a launch; true when it fired.
    fn record(
        &mut self,
        rule: usize,
        slot: usize,
        nth: usize,
        launch: &Launch,
        judgement: Judgement,
    ) -> bool {
        self.note_coverage(rule, &judgement);
        match judgement {
            Judgement::Fires(mut f) => {
                self.outcome.judged += 1;
                f.nth_of_kernel = nth;
                self.add_finding(slot, rule, *f);
                return true;
            }
            Judgement::Quiet { partial: None } => self.outcome.judged += 1,
            Judgement::Quiet {
                partial: Some(reason),
            } => {
                self.outcome.judged += 1;
                self.add_skip(slot, rule, launch, reason);
            }
            Judgement::Skipped(reason) => self.add_skip(slot, rule, launch, reason),
        }
        false
    }

    /// Judges the deferred launches with their profile's context.
    fn judge_deferred(&mut self) {
        for mut d in std::mem::take(&mut self.deferred) {
            let seen = self
                .context_launches
                .get(&(d.rule, d.file.clone()))
                .copied()
                .unwrap_or(0);
            d.launch.metrics.insert("context_launches", seen as f64);
            let judgement = judge(self.rules[d.rule], &d.launch, &d.file);
            self.record(d.rule, d.slot, d.nth, &d.launch, judgement);
        }
    }

    pub fn finish(mut self) -> Outcome {
        self.judge_deferred();
        for f in &mut self.outcome.findings {
            f.evidence_range.retain(|_, [lo, hi]| lo < hi);
        }
        let mut coverage = Coverage::default();
        for (i, rule) in self.rules.iter().enumerate() {
            let judged = self.judged_any.get(i).copied().unwrap_or(false);
            if judged {
                coverage.judged.push(rule.slug.clone());
            } else if self.skipped_any.get(i).copied().unwrap_or(false) {
                coverage.not_judged.push(rule.slug.clone());
            }
        }
        coverage.judged.sort();
        coverage.not_judged.sort();
        self.outcome.coverage = coverage;
        self.outcome
    }

    fn note_coverage(&mut self, rule: usize, judgement: &Judgement) {
        if self.judged_any.len() < self.rules.len() {
            self.judged_any.resize(self.rules.len(), false);
            self.skipped_any.resize(self.rules.len(), false);
        }
        match judgement {
            Judgement::Skipped(_) => self.skipped_any[rule] = true,
            _ => self.judged_any[rule] = true,
        }
    }

    fn add_finding(&mut self, slot: usize, rule: usize, f: Finding) {
        if !self.merge {
            self.outcome.findings.push(f);
            return;
        }
        let next = self.outcome.findings.len();
        let entry = &mut self.slots[slot].findings[rule];
        match *entry {
            Some(i) => merge_into(&mut self.outcome.findings[i], f, &mut self.shown_stake[i]),
            None => {
                *entry = Some(next);
                self.shown_stake.push(f.time_at_stake_ns.unwrap_or(0.0));
                let mut f = f;
                f.covered.insert((f.grid, f.block));
                self.outcome.findings.push(f);
            }
        }
    }

    fn add_skip(&mut self, slot: usize, rule: usize, launch: &Launch, reason: String) {
        if self.merge {
            let known = self.slots[slot]
                .skips
                .iter()
                .find(|(r, why, _)| *r == rule && *why == reason)
                .map(|(_, _, i)| *i);
            if let Some(i) = known {
                self.outcome.skips[i].launch_count += launch.count;
                return;
            }
            let next = self.outcome.skips.len();
            self.slots[slot].skips.push((rule, reason.clone(), next));
        }
        self.outcome.skips.push(Skip {
            rule: self.rules[rule].slug.clone(),
            launch: launch.id,
            launch_count: launch.count,
            kernel: launch.name.clone(),
            reason,
        });
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
    into.profiled_count = match (into.profiled_count, f.profiled_count) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(into.launch_count) + b.unwrap_or(f.launch_count)),
    };
    into.launch_count += f.launch_count;
    into.severity = into.severity.max(f.severity);
    if into.covered.insert((f.grid, f.block)) {
        into.configurations = into.covered.len();
    }
    into.grid_blocks = match (into.grid_blocks, f.grid_blocks) {
        (Some([a, b]), Some([c, d])) => Some([a.min(c), b.max(d)]),
        (a, b) => a.or(b),
    };
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
    into.covered_time_ns = match (into.covered_time_ns, f.covered_time_ns) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
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

/// Judges one launch; quiet on a kernel the rule does not apply to (`kernel_pattern`).
pub fn check(rule: &Rule, launch: &Launch, file: &str) -> Judgement {
    if !rule.applies_to(&launch.name) {
        return Judgement::Quiet { partial: None };
    }
    judge(rule, launch, file)
}

/// As [`check`], for a launch of `profile`: a rule with `context_kernels` counts its
/// context in the profile's launches first, as the linter does once the profile is read.
pub fn check_in_profile(rule: &Rule, launch: &Launch, profile: &[Launch], file: &str) -> Judgement {
    let Some(context) = &rule.context else {
        return check(rule, launch, file);
    };
    let seen: u64 = profile
        .iter()
        .filter(|l| context.counts(l))
        .map(|l| l.count)
        .sum();
    let mut launch = launch.clone();
    launch.metrics.insert("context_launches", seen as f64);
    check(rule, &launch, file)
}

/// Judges one launch of a kernel the rule applies to.
fn judge(rule: &Rule, launch: &Launch, file: &str) -> Judgement {
    let lookup = |name: &str| {
        launch
            .metrics
            .get(name)
            .copied()
            .or_else(|| rule.params.get(name).copied())
    };
    let (message, evidence_keys, mut notes) = match holds(rule, launch, &lookup) {
        Ok(fired) => fired,
        Err(judgement) => return judgement,
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
        .filter_map(|k| {
            launch
                .metrics
                .get(k.as_str())
                .map(|v| (k.clone(), round(*v)))
        })
        .collect();
    let time_at_stake_ns = match (
        launch.metrics.get("duration_ns"),
        rule.stake.expr.eval(&lookup),
    ) {
        // A folded entry (a summary's kernel, a timed sample) stands for `count` launches.
        (Some(d), Ok(share)) => Some((d * launch.count as f64 * share.clamp(0.0, 1.0)).round()),
        _ => None,
    };
    Judgement::Fires(Box::new(Finding {
        rule: rule.slug.clone(),
        code: rule.code.clone(),
        severity,
        launch: launch.id,
        launch_count: launch.count,
        profiled_count: launch.profiled,
        configurations: 1,
        grid_blocks: launch.grid.map(|g| {
            let n = g[0] * g[1] * g[2];
            [n, n]
        }),
        launches: Vec::new(),
        kernel: launch.name.clone(),
        message,
        fix: rule.fix.clone(),
        notes,
        evidence,
        evidence_range: BTreeMap::new(),
        time_at_stake_ns,
        covered_time_ns: launch
            .metrics
            .get("duration_ns")
            .map(|d| d * launch.count as f64),
        source: None,
        origin: None,
        file: file.to_string(),
        line: launch.line,
        grid: launch.grid,
        block: launch.block,
        covered: HashSet::new(),
        nth_of_kernel: 0,
    }))
}

/// Which ncu sections would give a missing metric, for the skip note.
fn where_to_get(key: &str) -> String {
    match crate::metrics::sections_giving(key) {
        Some(ids) if !ids.is_empty() => {
            let flags: Vec<String> = ids.iter().map(|id| format!("--section {id}")).collect();
            format!(" (ncu's `{}` gives it)", flags.join(" "))
        }
        _ => " (collect it with `ncu --metrics $(gpulint metrics)` or `gpulint run`)".to_string(),
    }
}

/// The message, evidence keys and notes when the rule's condition holds (or its
/// fallback's, with the fallback's note); otherwise the judgement to return.
fn holds<'r>(
    rule: &'r Rule,
    launch: &Launch,
    lookup: &dyn Fn(&str) -> Option<f64>,
) -> std::result::Result<(String, &'r Vec<String>, Vec<String>), Judgement> {
    let missing_primary = rule
        .reads
        .iter()
        .find(|k| !launch.metrics.contains_key(k.as_str()));
    let primary = match missing_primary {
        Some(k) => Err(EvalError::Missing(k.clone())),
        None => rule.when.expr.eval(lookup),
    };
    let primary_missing = match primary {
        Ok(v) if v != 0.0 => return Ok((rule.message.render(lookup), &rule.evidence, Vec::new())),
        Ok(_) => return Err(Judgement::Quiet { partial: None }),
        Err(EvalError::Missing(name)) => name,
        Err(e @ EvalError::DivisionByZero(_)) => {
            return Err(Judgement::Skipped(format!("cannot judge: {e}")));
        }
    };
    let Some(fb) = &rule.fallback else {
        return Err(Judgement::Skipped(format!(
            "needs `{primary_missing}`, which this export does not have{}",
            where_to_get(&primary_missing)
        )));
    };
    if let Some(k) = fb
        .reads
        .iter()
        .find(|k| !launch.metrics.contains_key(k.as_str()))
    {
        let or_fallback = if *k == primary_missing {
            String::new()
        } else {
            format!(" (or `{k}` for the fallback check)")
        };
        return Err(Judgement::Skipped(format!(
            "needs `{primary_missing}`{or_fallback}, which this export does not have{}",
            where_to_get(k)
        )));
    }
    match fb.when.expr.eval(lookup) {
        Ok(v) if v != 0.0 => Ok((
            fb.message.render(lookup),
            &fb.evidence,
            vec![fb.note.clone()],
        )),
        Ok(_) => Err(Judgement::Quiet {
            partial: Some(format!(
                "judged by the fallback check only (no finding): the export lacks `{primary_missing}`"
            )),
        }),
        Err(EvalError::Missing(m)) => Err(Judgement::Skipped(format!(
            "needs `{m}`, which this export does not have{}",
            where_to_get(&m)
        ))),
        Err(e @ EvalError::DivisionByZero(_)) => {
            Err(Judgement::Skipped(format!("cannot judge: {e}")))
        }
    }
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
