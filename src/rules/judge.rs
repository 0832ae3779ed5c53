//! One rule on one launch: a finding where its condition holds, quiet where it does not,
//! a skip (with where to get the metric) where the export lacks what it reads.

use std::collections::{BTreeMap, HashSet};

use super::expr::{EvalError, Lookup, Var};
use super::finding::Finding;
use super::{Rule, Severity};
use crate::ingest::Launch;

/// What one rule says of one launch.
#[derive(Debug)]
pub enum Judgement {
    Fires(Box<Finding>),
    /// No finding. `partial` says why the judgement was only partial (the fallback
    /// check ran because the export lacks the primary metrics).
    Quiet {
        partial: Option<Unjudged>,
    },
    /// The export lacks what the rule reads.
    Skipped(Unjudged),
    /// The rule reads this key, which only gpulint's launch trace has, and this launch
    /// comes from an ncu export: not a gap in the export, so it does not count against its
    /// coverage, and the report says it once (`needs_launch_trace`), not per launch.
    NotApplicable(&'static str),
}

/// Why a rule could not judge a launch, or judged it only partly. Kept as data and put
/// into words once per kernel (`Display`): a launch trace of 356,496 launches, which no
/// counter rule can judge, spent most of its check writing the same reasons.
#[derive(Debug, Clone, PartialEq)]
pub enum Unjudged {
    /// The export lacks `needs` (or `or_fallback`, which the fallback check reads).
    Missing {
        needs: String,
        or_fallback: Option<String>,
    },
    /// Only the fallback check ran, and it was quiet: the export lacks `needs`.
    FallbackOnly { needs: String },
    /// The rule's condition could not be evaluated.
    Cannot(String),
}

impl std::fmt::Display for Unjudged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unjudged::Missing { needs, or_fallback } => {
                write!(f, "needs `{needs}`")?;
                if let Some(k) = or_fallback {
                    write!(f, " (or `{k}` for the fallback check)")?;
                }
                let hint = or_fallback.as_ref().unwrap_or(needs);
                write!(f, ", which this export does not have{}", where_to_get(hint))
            }
            Unjudged::FallbackOnly { needs } => write!(
                f,
                "judged by the fallback check only (no finding): the export lacks `{needs}`"
            ),
            Unjudged::Cannot(why) => write!(f, "cannot judge: {why}"),
        }
    }
}

/// Judges one launch; quiet on a kernel the rule does not apply to (`kernel_pattern`).
pub fn check(rule: &Rule, launch: &Launch, file: &str) -> Judgement {
    if !rule.applies_to(&launch.name) {
        return Judgement::Quiet { partial: None };
    }
    judge(rule, launch, file)
}

/// As `check`, for a launch of `profile`: a rule with `context_kernels` counts its
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

/// A rule's names on one launch: its metrics, by the slot each name found when the rule
/// was read, then the rule's parameters.
struct LaunchValues<'a> {
    rule: &'a Rule,
    launch: &'a Launch,
}

impl Lookup for LaunchValues<'_> {
    fn value(&self, var: &Var) -> Option<f64> {
        var.key
            .and_then(|k| self.launch.metrics.get_id(k))
            .or_else(|| self.rule.params.get(&var.name).copied())
    }
}

/// The launches a finding of `rule` on `launch` covers, and their GPU time (none without a
/// duration). A folded entry (a summary's kernel, a timed sample) stands for `count`
/// launches; a sampled entry's counters may speak for fewer of them (`counters_cover`),
/// and a rule that reads counters covers only those.
fn covers(rule: &Rule, launch: &Launch) -> (u64, Option<f64>) {
    match launch.counters_cover {
        Some(c) if rule.judged_on() == super::JudgedOn::ProfiledLaunches => (c.launches, c.time_ns),
        _ => (launch.count, launch.time_ns()),
    }
}

/// The covered launches' time times the share its rule's `stake` says a fix could save
/// (at most all of it, unless the stake is waiting time); none without a duration.
fn time_at_stake(rule: &Rule, covered_ns: Option<f64>, lookup: &LaunchValues) -> Option<f64> {
    match (covered_ns, rule.stake.expr.eval(lookup)) {
        (Some(t), Ok(share)) => {
            let most = if rule.stake_is_waiting { f64::MAX } else { 1.0 };
            Some((t * share.clamp(0.0, most)).round())
        }
        _ => None,
    }
}

/// Judges one launch of a kernel the rule applies to.
pub(super) fn judge(rule: &Rule, launch: &Launch, file: &str) -> Judgement {
    judge_with(rule, launch, file, |_| true)
}

/// As [`judge`]; a finding's words (message, fix, notes) are written only where
/// `with_words` says so of its time at stake: a finding merged into its kernel's shows the
/// words of the launch with the most at stake, and the others' are never read.
pub(super) fn judge_with(
    rule: &Rule,
    launch: &Launch,
    file: &str,
    with_words: impl FnOnce(Option<f64>) -> bool,
) -> Judgement {
    let lookup = LaunchValues { rule, launch };
    let (held, evidence_keys) = match holds(rule, launch, &lookup) {
        Ok(fired) => fired,
        Err(judgement) => return judgement,
    };
    let severity = match &rule.info_when {
        Some(c) if c.expr.eval(&lookup).is_ok_and(|v| v != 0.0) => Severity::Info,
        _ => rule.severity,
    };
    let (launch_count, covered_time_ns) = covers(rule, launch);
    let time_at_stake_ns = time_at_stake(rule, covered_time_ns, &lookup);
    let words = match with_words(time_at_stake_ns) {
        true => Words::of(rule, &held, &lookup),
        false => Words::default(),
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
    Judgement::Fires(Box::new(Finding {
        rule: rule.slug.clone(),
        code: rule.code.clone(),
        severity,
        launch: launch.id,
        launch_count,
        profiled_count: launch.profiled,
        configurations: 1,
        processes: launch.processes.clone(),
        grid_blocks: launch.grid.map(|g| {
            let n = g[0] * g[1] * g[2];
            [n, n]
        }),
        launches: Vec::new(),
        kernel: launch.name.clone(),
        message: words.message,
        fix: words.fix,
        notes: words.notes,
        grid_notes: words.grid_notes,
        // On every launch, words or not: a merged finding is near its bar only where
        // each of its launches is.
        unsettled_in_one_run: (rule.notes.iter())
            .any(|n| n.unsettled_in_one_run && n.when.expr.eval(&lookup).is_ok_and(|v| v != 0.0)),
        evidence,
        evidence_range: BTreeMap::new(),
        time_at_stake_ns,
        covered_time_ns,
        source: None,
        edit: None,
        instances: Vec::new(),
        explains: Vec::new(),
        stake_shared_with: None,
        info_because: (severity == Severity::Info && rule.severity > Severity::Info)
            .then(|| "under the rule's bar for a warning (its note says which)".to_string()),
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
/// How a skip says to get a metric no ncu section gives.
pub const COLLECT_HINT: &str =
    "(collect it with `ncu --metrics $(gpulint metrics)` or `gpulint run`)";

fn where_to_get(key: &str) -> String {
    match crate::metrics::sections_giving(key) {
        Some(ids) if !ids.is_empty() => {
            let flags: Vec<String> = ids.iter().map(|id| format!("--section {id}")).collect();
            format!(" (ncu's `{}` gives it)", flags.join(" "))
        }
        _ => format!(" {COLLECT_HINT}"),
    }
}

/// The first of a rule's `reads` the launch lacks.
fn first_missing<'r>(
    reads: &'r [String],
    slots: &[Option<crate::metrics::KeyId>],
    launch: &Launch,
) -> Option<&'r String> {
    reads
        .iter()
        .zip(slots)
        .find(|(_, slot)| !slot.is_some_and(|s| launch.metrics.contains_id(s)))
        .map(|(name, _)| name)
}

/// A finding's words: its message, fix and notes (those that hold on any grid, and those
/// kept only where the kernel's grids do).
#[derive(Default)]
struct Words {
    message: String,
    fix: String,
    notes: Vec<String>,
    grid_notes: Vec<(super::GridScope, String)>,
}

impl Words {
    fn of(rule: &Rule, held: &Held, lookup: &LaunchValues) -> Words {
        let mut words = Words {
            message: held.message.render(lookup),
            fix: rule.fix_template.render(lookup),
            notes: held.note.cloned().into_iter().collect(),
            grid_notes: Vec::new(),
        };
        for note in &rule.notes {
            if note.when.expr.eval(lookup).is_ok_and(|v| v != 0.0) {
                let text = note.text.render(lookup);
                match note.grids {
                    Some(scope) => words.grid_notes.push((scope, text)),
                    None => words.notes.push(text),
                }
            }
        }
        words
    }
}

/// Which of a rule's checks held: its message, and the note the fallback adds.
struct Held<'r> {
    message: &'r super::template::Template,
    note: Option<&'r String>,
}

/// Which check held (the rule's, or its fallback's) and its evidence keys; otherwise the
/// judgement to return.
fn holds<'r>(
    rule: &'r Rule,
    launch: &Launch,
    lookup: &dyn Lookup,
) -> std::result::Result<(Held<'r>, &'r Vec<String>), Judgement> {
    let missing_primary = first_missing(&rule.reads, &rule.read_slots, launch);
    let primary = match missing_primary {
        Some(k) => Err(EvalError::Missing(k.clone())),
        None => rule.when.expr.eval(lookup),
    };
    let primary_missing = match primary {
        Ok(v) if v != 0.0 => {
            let held = Held {
                message: &rule.message,
                note: None,
            };
            return Ok((held, &rule.evidence));
        }
        Ok(_) => return Err(Judgement::Quiet { partial: None }),
        Err(EvalError::Missing(name)) => name,
        Err(e @ EvalError::DivisionByZero(_)) => {
            return Err(Judgement::Skipped(Unjudged::Cannot(e.to_string())));
        }
    };
    if let Some((key, _)) = rule
        .trace_key
        .filter(|(_, slot)| !launch.metrics.contains_id(*slot))
    {
        return Err(Judgement::NotApplicable(key));
    }
    let Some(fb) = &rule.fallback else {
        return Err(Judgement::Skipped(Unjudged::Missing {
            needs: primary_missing,
            or_fallback: None,
        }));
    };
    if let Some(k) = first_missing(&fb.reads, &fb.read_slots, launch) {
        let or_fallback = (*k != primary_missing).then(|| k.clone());
        return Err(Judgement::Skipped(Unjudged::Missing {
            needs: primary_missing,
            or_fallback,
        }));
    }
    match fb.when.expr.eval(lookup) {
        Ok(v) if v != 0.0 => {
            let held = Held {
                message: &fb.message,
                note: Some(&fb.note),
            };
            Ok((held, &fb.evidence))
        }
        Ok(_) => Err(Judgement::Quiet {
            partial: Some(Unjudged::FallbackOnly {
                needs: primary_missing,
            }),
        }),
        Err(EvalError::Missing(m)) => Err(Judgement::Skipped(Unjudged::Missing {
            needs: m,
            or_fallback: None,
        })),
        Err(e @ EvalError::DivisionByZero(_)) => {
            Err(Judgement::Skipped(Unjudged::Cannot(e.to_string())))
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
