//! Rules are data: one TOML file per rule under `rules/`, embedded at build time, with
//! `--rules DIR` to add or override. This module holds a checked rule and loads the set;
//! [`parse`] reads and checks one file; [`engine`] applies them to launches.

pub mod engine;
pub mod expr;
mod finding;
mod judge;
mod parse;
pub mod selftest;
pub mod template;

#[cfg(test)]
mod meta_tests;
#[cfg(test)]
mod threshold_cases;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::metrics;
pub use judge::COLLECT_HINT;
pub use parse::parse_rule;
pub use template::Template;

include!(concat!(env!("OUT_DIR"), "/embedded_rules.rs"));

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// What puts a finding on a source line: the source page's per-line counter that carries
/// its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineCause {
    /// L2 sectors fetched beyond the ideal (coalescing, alignment).
    ExcessSectors,
    /// The excess sectors of an element split into narrow accesses, and the element type's
    /// declaration (split-load): its alignment is the edit.
    SplitElements,
    /// The warps' stall samples, with each line's top reason (waiting).
    StallSamples,
    /// Shared-memory bank conflicts.
    SharedConflicts,
    /// Local-memory loads and stores (spills, arrays indexed at run time).
    LocalAccesses,
    /// Branches where a warp's threads went different ways.
    DivergentBranches,
    /// Conversions between float and double (float math promoted to double).
    DoubleConversions,
    /// Global atomics and reductions.
    GlobalAtomics,
}

/// Which folded findings a note belongs on, by the grids of the launches they cover: a
/// kernel always launched as one block is a serial step, one whose grid changes from
/// launch to launch follows the work of each step (a wavefront, a shrinking matrix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GridScope {
    /// Every launch the finding covers has the same number of blocks.
    Same,
    /// The launches it covers have grids of different sizes.
    Varying,
}

impl GridScope {
    /// Whether a finding over grids of `fewest` to `most` blocks is in this scope.
    pub fn holds(self, [fewest, most]: [u64; 2]) -> bool {
        match self {
            GridScope::Same => fewest == most,
            GridScope::Varying => fewest != most,
        }
    }
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// Other kernels of the same profile a rule's judgement depends on.
#[derive(Debug, Clone)]
pub struct Context {
    pub pattern: regex::Regex,
    pub batched: bool,
}

impl Context {
    /// Whether `launch` is one of the kernels `context_launches` counts.
    pub fn counts(&self, launch: &crate::ingest::Launch) -> bool {
        (!self.batched || launch.grid.is_some_and(|g| g[2] >= 2))
            && self.pattern.is_match(&launch.name)
    }
}

/// The four sections every rule documents, as ruff and clippy do.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Doc {
    pub what: String,
    pub why: String,
    pub example: String,
    pub fix: String,
}

/// Launches where the rule must fire and where it must not: `FILE#ID`, with FILE
/// relative to the rule file. `gpulint test-rules DIR` and the meta-test run them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tests {
    #[serde(default)]
    pub fires: Vec<String>,
    #[serde(default)]
    pub clean: Vec<String>,
}

/// A condition with its source text, for messages.
#[derive(Debug, Clone)]
pub struct Condition {
    pub source: String,
    pub expr: expr::Expr,
}

#[derive(Debug, Clone)]
pub struct Note {
    pub when: Condition,
    pub text: Template,
    /// See `NoteFile::grids`: decided once the launches are folded.
    pub grids: Option<GridScope>,
    /// Where it holds, the verdict's deciding value is near its bar on the side a warm L2
    /// pushes it to: one run's replay, which starts from one, may have put it there.
    pub unsettled_in_one_run: bool,
}

/// A second way to judge when the primary metrics are not in the export, with a note
/// that says what was missing and what it costs.
#[derive(Debug, Clone)]
pub struct Fallback {
    pub reads: Vec<String>,
    /// The slot of each of `reads`, found when the rule is read.
    pub read_slots: Vec<Option<crate::metrics::KeyId>>,
    pub when: Condition,
    pub message: Template,
    pub note: String,
    pub evidence: Vec<String>,
}

/// The first of `reads` that only gpulint's launch trace has, with its slot.
fn trace_key(reads: &[String]) -> Option<(&'static str, crate::metrics::KeyId)> {
    crate::ingest::trace::TIMELINE_KEYS
        .into_iter()
        .find(|k| reads.iter().any(|r| r == k))
        .map(|k| (k, crate::metrics::KeyId::known(k)))
}

fn slots(names: &[String]) -> Vec<Option<crate::metrics::KeyId>> {
    names.iter().map(|n| crate::metrics::KeyId::of(n)).collect()
}

/// A loaded, checked rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub code: String,
    pub slug: String,
    pub category: String,
    pub severity: Severity,
    pub summary: String,
    pub reads: Vec<String>,
    /// The slot of each of `reads`, found when the rule is read.
    pub(crate) read_slots: Vec<Option<crate::metrics::KeyId>>,
    /// See [`Rule::launch_trace_key`]: found when the rule is read, since every launch of
    /// a trace asks.
    pub(crate) trace_key: Option<(&'static str, crate::metrics::KeyId)>,
    pub(crate) when: Condition,
    pub(crate) info_when: Option<Condition>,
    /// See `RuleFile::info_below_share_pct`.
    pub(crate) info_below_share_pct: Option<f64>,
    pub params: BTreeMap<String, f64>,
    /// See `RuleFile::params_from`: parameter -> (rule slug, its parameter).
    pub(crate) params_from: BTreeMap<String, (String, String)>,
    pub(crate) message: Template,
    /// The share of the kernel's time the finding puts at stake, 0 to 1.
    pub(crate) stake: Condition,
    /// See `RuleFile::stake_is_waiting`: the stake's share is not capped at 1.
    pub(crate) stake_is_waiting: bool,
    /// The fix as a finding gives it, its holes filled from the launch (`__align__(16)`);
    /// [`Rule::fix`] as the rule's docs give it.
    pub(crate) fix_template: Template,
    pub(crate) evidence: Vec<String>,
    pub(crate) notes: Vec<Note>,
    pub(crate) fallback: Option<Fallback>,
    pub(crate) defer_to_other_findings: bool,
    /// See `RuleFile::catch_all`.
    pub(crate) catch_all: bool,
    pub(crate) program_wide_fix: bool,
    pub(crate) context: Option<Context>,
    pub(crate) judges_failed_launches: bool,
    /// The per-line counters that name the lines behind a finding, with a source page.
    pub(crate) source_lines: Option<LineCause>,
    pub(crate) diff_only: bool,
    /// The kernels the rule applies to, by name; every kernel when `None`.
    pub(crate) kernel_pattern: Option<regex::Regex>,
    pub(crate) doc: Doc,
    pub(crate) tests: Tests,
    /// Where the rule came from: `rules/x.toml` (embedded) or a path under `--rules`.
    pub(crate) origin: String,
}

/// What a run judges a rule on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JudgedOn {
    /// Every launch the launch trace counted: the rule reads only what a traced launch
    /// has (its shape, duration, resources and timeline, the device, and what derives
    /// from them). A `launch` rule's findings replace the sample's; another's are added
    /// for the kernels the sample left out.
    EveryLaunch,
    /// The launches ncu profiled, whose counters the rule reads.
    ProfiledLaunches,
    /// `gpulint diff` only.
    Diff,
}

impl JudgedOn {
    pub fn as_str(self) -> &'static str {
        match self {
            JudgedOn::EveryLaunch => "every launch",
            JudgedOn::ProfiledLaunches => "profiled launches",
            JudgedOn::Diff => "diff",
        }
    }
}

/// Every metric key the rules read, in any expression, template or evidence list: what
/// `gpulint run` asks ncu for.
pub fn metric_keys(rules: &[Rule]) -> Vec<String> {
    rules.iter().flat_map(Rule::metric_keys).collect()
}

impl Rule {
    /// A key the rule reads that only gpulint's launch trace has, if any: such a rule does
    /// not apply to an ncu export.
    pub fn launch_trace_key(&self) -> Option<&'static str> {
        self.trace_key.map(|(key, _)| key)
    }

    /// The fix as the rule's docs give it: a value a finding fills in reads as `N`.
    pub fn fix(&self) -> String {
        self.fix_template.generic()
    }

    /// Whether `gpulint diff` alone runs the rule (the regression gate).
    pub fn is_diff_only(&self) -> bool {
        self.diff_only
    }

    /// The condition under which it fires, as written in the rule file.
    pub fn when_source(&self) -> &str {
        &self.when.source
    }

    /// The share of a launch's time it puts at stake, as written in the rule file.
    pub fn stake_source(&self) -> &str {
        &self.stake.source
    }

    /// The rule file's `[tests]`: the launches (`FILE#N`, relative to the rule file) it
    /// must fire on, and those it must stay quiet on.
    pub fn test_cases(&self) -> (&[String], &[String]) {
        (&self.tests.fires, &self.tests.clean)
    }

    /// What a run judges the rule on (`gpulint run` with the launch trace or a timing
    /// pass; `gpulint check` judges what the export holds).
    pub(crate) fn judged_on(&self) -> JudgedOn {
        if self.diff_only {
            JudgedOn::Diff
        } else if self.category == "launch" || self.judged_from_trace() {
            JudgedOn::EveryLaunch
        } else {
            JudgedOn::ProfiledLaunches
        }
    }

    /// Whether a launch trace gives everything the rule judges by (its `reads` and its
    /// condition; a message, note, stake or evidence may go without): such a rule judges
    /// every launch the trace counted, not only ncu's sample (`ingest::trace::gives`).
    pub(crate) fn judged_from_trace(&self) -> bool {
        let mut names = self.reads.clone();
        self.when.expr.variables(&mut names);
        names.retain(|n| !self.params.contains_key(n));
        names.iter().all(|n| {
            crate::ingest::trace::gives(n) || (n == "context_launches" && self.context.is_some())
        })
    }

    /// Whether the rule applies to a kernel of this name (its `kernel_pattern`).
    pub fn applies_to(&self, kernel: &str) -> bool {
        self.kernel_pattern
            .as_ref()
            .is_none_or(|p| p.is_match(kernel))
    }

    /// Does `selector` (a code, a code prefix, a slug or `ALL`, in any case) pick this
    /// rule?
    pub fn matches(&self, selector: &str) -> bool {
        selector.eq_ignore_ascii_case("ALL")
            || selector.eq_ignore_ascii_case(&self.slug)
            || self.code.starts_with(&selector.to_ascii_uppercase())
    }

    /// Is `name` this rule's slug or code, in any case? The one test `--param`,
    /// `[params]`, `[severity]` and `explain` use, as `--select` does.
    pub fn is_named(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case(&self.slug) || name.eq_ignore_ascii_case(&self.code)
    }

    /// Every metric key the rule may read (conditions, messages, notes, evidence), for
    /// the ncu runner. Parameters are not metrics and are left out.
    pub fn metric_keys(&self) -> Vec<String> {
        let mut names: Vec<String> = self.reads.iter().chain(&self.evidence).cloned().collect();
        self.when.expr.variables(&mut names);
        if let Some(c) = &self.info_when {
            c.expr.variables(&mut names);
        }
        self.message.variables(&mut names);
        self.fix_template.variables(&mut names);
        self.stake.expr.variables(&mut names);
        for n in &self.notes {
            n.when.expr.variables(&mut names);
            n.text.variables(&mut names);
        }
        if let Some(f) = &self.fallback {
            names.extend(f.reads.iter().chain(&f.evidence).cloned());
            f.when.expr.variables(&mut names);
            f.message.variables(&mut names);
        }
        names.retain(|n| !self.params.contains_key(n));
        names.sort();
        names.dedup();
        names
    }
}

/// Names a condition may use: canonical and derived metrics.
pub fn is_known_metric(name: &str) -> bool {
    metrics::def(name).is_some() || metrics::DERIVED.iter().any(|d| d.key == name)
}

/// The built-in rules, plus those of `extra_dir`: a file there with the slug of a
/// built-in rule replaces it.
pub fn load(extra_dir: Option<&str>) -> Result<Vec<Rule>> {
    let mut rules = EMBEDDED_RULES
        .iter()
        .map(|(origin, text)| parse_rule(origin, text))
        .collect::<Result<Vec<_>>>()?;
    if let Some(dir) = extra_dir {
        for rule in load_dir(dir)? {
            rules.retain(|r| r.slug != rule.slug);
            rules.push(rule);
        }
    }
    check_unique(&rules)?;
    rules.sort_by(|a, b| a.code.cmp(&b.code));
    link_shared_params(&mut rules)?;
    Ok(rules)
}

/// Gives each `params_from` parameter the value of the parameter it follows, in these
/// rules (after the config's and `--param`'s overrides); one that follows a rule not
/// among them keeps its own default.
pub fn link_shared_params(rules: &mut [Rule]) -> Result<()> {
    let mut values = Vec::new();
    for r in rules.iter() {
        for (param, (slug, other)) in &r.params_from {
            let Some(target) = rules.iter().find(|t| t.slug == *slug) else {
                continue;
            };
            let v = target.params.get(other).copied().ok_or_else(|| {
                Error::new(format!(
                    "rule {}: params_from.{param} names {slug}.{other}, which {slug} does not have",
                    r.slug
                ))
            })?;
            values.push((r.slug.clone(), param.clone(), v));
        }
    }
    for (slug, param, v) in values {
        if let Some(r) = rules.iter_mut().find(|r| r.slug == slug) {
            r.params.insert(param, v);
        }
    }
    Ok(())
}

/// The rule files of one directory (every `*.toml` but `origins.toml`), by file name.
pub fn load_dir(dir: &str) -> Result<Vec<Rule>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::in_file(dir, format!("cannot read rules directory: {e}")))?;
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| p.file_name().is_some_and(|n| n != "origins.toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::in_file(&origin, format!("cannot read: {e}")))?;
            parse_rule(&origin, &text)
        })
        .collect()
}

/// One rule file, as a list (for `gpulint test-rules FILE`).
pub fn load_file(path: &str) -> Result<Vec<Rule>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
    Ok(vec![parse_rule(path, &text)?])
}

fn check_unique(rules: &[Rule]) -> Result<()> {
    for (i, a) in rules.iter().enumerate() {
        for b in &rules[i + 1..] {
            if a.code == b.code || a.slug == b.slug {
                return Err(Error::in_file(
                    &b.origin,
                    format!(
                        "rule {} `{}` clashes with {} `{}` in {}",
                        b.code, b.slug, a.code, a.slug, a.origin
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// " (did you mean `uncoalesced-load`?)" for a name near one rule's slug (at most a third
/// of its letters off), or nothing.
/// Whether `value` is a bar `name` can take: a finite number, a share (`*_share`) from
/// 0 to 1, a percentage (`*_pct`) from 0 to 100, any other (counts, durations, ratios) 0
/// or more. A NaN would turn its comparison, and so its rule, off without a word. The
/// error is the range, as the message says it.
pub fn check_param_value(name: &str, value: f64) -> std::result::Result<(), &'static str> {
    let (low, high, range) = if name.ends_with("_share") {
        (0.0, 1.0, "0 to 1 (a share)")
    } else if name.ends_with("_pct") {
        (0.0, 100.0, "0 to 100 (a percentage)")
    } else {
        (0.0, f64::MAX, "0 or more (finite)")
    };
    if value.is_finite() && (low..=high).contains(&value) {
        Ok(())
    } else {
        Err(range)
    }
}

pub fn did_you_mean(rules: &[Rule], name: &str) -> String {
    let name = name.to_ascii_lowercase();
    rules
        .iter()
        .map(|r| (strsim::levenshtein(&r.slug, &name), &r.slug))
        .filter(|(d, slug)| *d > 0 && *d <= (slug.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, slug)| format!(" (did you mean `{slug}`?)"))
        .unwrap_or_default()
}

/// Finds a rule by slug or code.
pub fn find<'a>(rules: &'a [Rule], name: &str) -> Option<&'a Rule> {
    rules.iter().find(|r| r.is_named(name))
}
