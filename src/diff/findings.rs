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
        out.new
            .extend(only_in(&c.findings, &b.findings, ck, &both_ran));
        // A baseline finding is fixed only where the candidate's rule could judge.
        for gone in only_in(&b.findings, &c.findings, ck, &both_ran) {
            if c.not_judged.contains(&gone.rule) {
                out.not_compared.push(NotCompared {
                    kernel: gone.kernel,
                    rule: gone.rule,
                    why: NOT_JUDGED,
                });
            } else {
                out.fixed.push(gone);
            }
        }
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

/// Why a baseline finding was not compared.
pub const NOT_JUDGED: &str = "the candidate's export was too thin for the rule to judge";
pub const NOT_IN_CANDIDATE: &str = "the kernel (or this configuration) is not in the candidate";

/// How many kernels the two sides share.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Overlap {
    pub compared: usize,
    pub baseline_kernels: usize,
    pub candidate_kernels: usize,
}

impl Overlap {
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
        format!(
            "{} of {} baseline kernel(s) compared",
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
