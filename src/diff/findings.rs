//! What the two sides' findings and kernels say of each other: findings new, fixed or not
//! compared, and how many kernels were paired at all (a diff of nothing is no pass).

use serde::Serialize;

use super::{DiffReport, NewFinding};
use crate::baseline::Baseline;
use crate::error::{Error, Result};

/// Below this share of either side's kernels paired, the two profiles may not be the
/// same program: the diff says so.
const SMALL_OVERLAP: f64 = 0.5;

/// The rules of `these` that `others` lacks, as findings on `kernel`.
fn only_in(
    these: &[String],
    others: &[String],
    kernel: &str,
    both_ran: &dyn Fn(&String) -> bool,
) -> Vec<NewFinding> {
    these
        .iter()
        .filter(|r| !others.contains(r) && both_ran(r))
        .map(|rule| NewFinding {
            kernel: kernel.to_string(),
            rule: rule.clone(),
        })
        .collect()
}

/// The findings of the two sides, kernel by kernel.
#[derive(Default)]
pub(super) struct FindingChanges {
    pub(super) new: Vec<NewFinding>,
    pub(super) fixed: Vec<NewFinding>,
    pub(super) not_compared: Vec<NotCompared>,
}

/// `changed` (findings one side has and the other lacks) into `kept` (new, or fixed), but
/// those whose rule the other side could not judge (`not_judged`): not compared, `why`.
fn sort_out(
    changed: Vec<NewFinding>,
    not_judged: &[String],
    why: &'static str,
    kept: &mut Vec<NewFinding>,
    not_compared: &mut Vec<NotCompared>,
) {
    for f in changed {
        if not_judged.contains(&f.rule) {
            not_compared.push(NotCompared {
                kernel: f.kernel,
                rule: f.rule,
                why,
            });
        } else {
            kept.push(f);
        }
    }
}

pub(super) fn compare_findings(
    base: &Baseline,
    cand: &Baseline,
    pairs: &[(&str, &str)],
    new_kernels: &[&str],
    vanished: &[&str],
) -> FindingChanges {
    // A rule only one side ran can neither appear nor vanish.
    let both_ran = |rule: &String| match (&base.rules, &cand.rules) {
        (Some(b), Some(c)) => b.contains(rule) && c.contains(rule),
        _ => true,
    };
    let mut out = FindingChanges::default();
    for (bk, ck) in pairs {
        let (b, c) = (&base.kernels[*bk], &cand.kernels[*ck]);
        // A finding the baseline's rule could not judge there (a thinner export, no launch
        // trace) is no news of the change.
        let found = only_in(&c.findings, &b.findings, ck, &both_ran);
        sort_out(
            found,
            &b.not_judged,
            NOT_JUDGED_IN_BASELINE,
            &mut out.new,
            &mut out.not_compared,
        );
        // A baseline finding is fixed only where the candidate's rule could judge.
        let gone = only_in(&b.findings, &c.findings, ck, &both_ran);
        sort_out(
            gone,
            &c.not_judged,
            NOT_JUDGED,
            &mut out.fixed,
            &mut out.not_compared,
        );
    }
    // A vanished kernel's findings were not compared: the candidate did not run it.
    for key in vanished {
        for rule in base.kernels[*key].findings.iter().filter(|r| both_ran(r)) {
            out.not_compared.push(NotCompared {
                kernel: key.to_string(),
                rule: rule.clone(),
                why: NOT_IN_CANDIDATE,
            });
        }
    }
    // A new kernel's findings are all new.
    for key in new_kernels {
        for rule in cand.kernels[*key].findings.iter().filter(|r| both_ran(r)) {
            out.new.push(NewFinding {
                kernel: key.to_string(),
                rule: rule.clone(),
            });
        }
    }
    out
}

/// Why a finding was not compared.
pub const NOT_JUDGED: &str =
    "the candidate's export was too thin for the rule to judge (or had no launch trace)";
pub const NOT_JUDGED_IN_BASELINE: &str = "found in the candidate, but the baseline's export was too thin for the rule to judge (or had no launch trace)";
pub const NOT_IN_CANDIDATE: &str = "the kernel (or this configuration) is not in the candidate";

/// The share of the baseline a gate must have compared to pass, in percent of its GPU
/// time: a pull request that renamed most kernels, or narrowed `-k`, compares little and
/// must not pass on it.
pub const DEFAULT_MIN_COMPARED_PCT: f64 = 90.0;

/// What the share of the baseline compared is a share of (JSON: `gpu time`, `kernels`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum ComparedBy {
    /// Each kernel's mean duration times its launches: every kernel has a duration.
    #[serde(rename = "gpu time")]
    GpuTime,
    #[serde(rename = "kernels")]
    Kernels,
}

impl ComparedBy {
    /// As a sentence names it.
    fn shown(self) -> &'static str {
        match self {
            ComparedBy::GpuTime => "GPU time",
            ComparedBy::Kernels => "kernels",
        }
    }
}

/// How many kernels the two sides share, and how much of the baseline they hold.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Overlap {
    pub compared: usize,
    pub baseline_kernels: usize,
    pub candidate_kernels: usize,
    /// Share (%) of the baseline compared: of its GPU time (each kernel's mean duration
    /// times its launches) where every kernel has a duration, else of its kernels.
    pub baseline_compared_pct: f64,
    /// What `baseline_compared_pct` is a share of.
    pub compared_by: ComparedBy,
    /// `--min-compared`: below it, the gate fails.
    pub min_compared_pct: f64,
}

impl Overlap {
    /// The share of `base` that the paired kernels (`paired`, baseline keys) hold.
    pub(super) fn new(
        base: &Baseline,
        cand: &Baseline,
        paired: &[&str],
        min_compared_pct: f64,
    ) -> Overlap {
        let time = |k: &crate::baseline::KernelEntry| {
            k.metrics
                .get("duration_ns")
                .map(|d| d.mean * k.launches as f64)
        };
        let times: Option<Vec<f64>> = base.kernels.values().map(time).collect();
        let total: f64 = times.iter().flatten().sum();
        let (pct, by) = match times {
            Some(_) if total > 0.0 => {
                let held: f64 = paired
                    .iter()
                    .filter_map(|k| base.kernels.get(*k).and_then(time))
                    .sum();
                (100.0 * held / total, ComparedBy::GpuTime)
            }
            _ if base.kernels.is_empty() => (0.0, ComparedBy::Kernels),
            _ => (
                100.0 * paired.len() as f64 / base.kernels.len() as f64,
                ComparedBy::Kernels,
            ),
        };
        Overlap {
            compared: paired.len(),
            baseline_kernels: base.kernels.len(),
            candidate_kernels: cand.kernels.len(),
            baseline_compared_pct: pct,
            compared_by: by,
            min_compared_pct,
        }
    }

    /// Why the gate fails for what it compared: too little of the baseline.
    pub fn too_little(&self) -> Option<String> {
        (self.baseline_compared_pct < self.min_compared_pct).then(|| {
            format!(
                "only {:.1}% of the baseline's {} was compared ({} of {} kernel(s)), under \
                 --min-compared {}%",
                self.baseline_compared_pct,
                self.compared_by.shown(),
                self.compared,
                self.baseline_kernels,
                self.min_compared_pct
            )
        })
    }

    pub(super) fn share_of(&self, total: usize) -> f64 {
        if total == 0 {
            0.0
        } else {
            self.compared as f64 / total as f64 * 100.0
        }
    }

    pub(super) fn is_small(&self) -> bool {
        self.share_of(self.baseline_kernels) < SMALL_OVERLAP * 100.0
            || self.share_of(self.candidate_kernels) < SMALL_OVERLAP * 100.0
    }

    /// The one wording of what was compared, for every summary.
    pub fn describe(&self) -> String {
        let share = match self.compared_by {
            ComparedBy::GpuTime => format!(", {:.1}% of its GPU time", self.baseline_compared_pct),
            ComparedBy::Kernels => String::new(),
        };
        format!(
            "{} of {} baseline kernel(s) compared{share}",
            self.compared, self.baseline_kernels
        )
    }
}

/// A baseline finding the candidate could not confirm or refute.
#[derive(Debug, Clone, Serialize)]
pub struct NotCompared {
    pub kernel: String,
    pub rule: String,
    pub why: &'static str,
}

impl NotCompared {
    /// The one wording, used by every format.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} not compared: {}",
            crate::kernel::short_name(&self.kernel),
            self.rule,
            self.why
        )
    }
}

/// Refuses a comparison in which no kernel was paired: such a gate would pass on
/// nothing. Exit 2, as for bad input.
pub fn refuse_nothing_compared(d: &DiffReport, baseline: &str, candidate: &str) -> Result<()> {
    if d.overlap.compared > 0 {
        return Ok(());
    }
    Err(Error::new(format!(
        "nothing compared: the baseline {baseline} ({} kernel(s)) and the candidate \
         {candidate} ({} kernel(s)) share no kernel name; profile the same program the \
         baseline was made from, or rebuild the baseline",
        d.overlap.baseline_kernels, d.overlap.candidate_kernels
    )))
}
