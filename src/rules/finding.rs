//! What the rules produce: a finding (with its launches, evidence and time at stake), a
//! skip, and the outcome of linting with its coverage.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::Severity;
use crate::ingest::Launch;

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
    /// The processes whose launches it covers, where the input names them: the ranks of a
    /// job that share the finding. Written as their count, when several.
    #[serde(
        rename = "process_count",
        serialize_with = "count_of",
        skip_serializing_if = "at_most_one"
    )]
    pub processes: Vec<crate::ingest::Process>,
    /// Fewest and most blocks in the grids of the launches it covers.
    pub grid_blocks: Option<[u64; 2]>,
    /// The launches it covers, when more than one: at most the first
    /// `LISTED_LAUNCHES`; `launch_count` counts them all.
    #[serde(skip_serializing_if = "Vec::is_empty", rename = "launch_ids")]
    pub launches: Vec<u64>,
    pub kernel: String,
    pub message: String,
    pub fix: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Notes that depend on the grids of every launch the finding covers, kept aside
    /// until the launches are folded (see `super::GridScope`).
    #[serde(skip)]
    pub(crate) grid_notes: Vec<(super::GridScope, String)>,
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
    /// A mechanical fix, where the source shows one: a line to change, as it is and as it
    /// would be.
    #[serde(skip_serializing_if = "Option::is_none", rename = "suggested_edit")]
    pub edit: Option<Edit>,
    /// Why a finding of a warning rule is info, in a few words (the summary of info
    /// findings groups by it): the rule's own bar, a library kernel, a share of GPU time
    /// under the floor, a fix another finding already names. Absent on the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info_because: Option<String>,
    /// Whether an `unsettled_in_one_run` note held on every launch of its severity: the
    /// value that decides it is near the rule's bar, on the side a warm cache pushes it to
    /// (see `crate::pipeline::findings`).
    #[serde(skip)]
    pub unsettled_in_one_run: bool,
    /// Rules that hold on its launches too and defer to it, their cause (a one-block step
    /// is latency-bound because its grid is small): the linter's verdict on those bounds,
    /// which the roofline's tags read, though their own findings are not made.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub explains: Vec<String>,
    /// The code of a finding ranked above on the same launches whose time at stake is
    /// this one's too: one bound caps both (how busy the memory system is caps a load and
    /// a store pattern alike), so fixing both saves it once, not twice.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stake_shared_with: Option<String>,
    /// The other kernels this card stands for: instantiations of the same function
    /// (template arguments aside) with the same finding, folded into one card by the
    /// reports (`crate::fold::one_card_per_cause`). Empty on the rest.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub instances: Vec<String>,
    /// Whose kernel it is (set after the rules ran, see `crate::origin`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) origin: Option<crate::origin::KernelOrigin>,
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

/// JSON gives the processes' count: their pids are of a run the reader cannot see.
fn count_of<S: serde::Serializer>(
    processes: &[crate::ingest::Process],
    s: S,
) -> Result<S::Ok, S::Error> {
    s.serialize_u64(processes.len() as u64)
}

/// One process is every single-process program's: nothing to say.
fn at_most_one(processes: &[crate::ingest::Process]) -> bool {
    processes.len() <= 1
}

/// A line of CUDA source, as the source page names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SourceLocation {
    pub file: String,
    pub line: u64,
}

/// A one-line change to the user's source: the fix, where it is mechanical.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Edit {
    pub file: String,
    pub line: u64,
    /// The line's text as it is (trimmed), and as the fix makes it.
    pub before: String,
    pub after: String,
    /// Where `before` starts on its line (1-based, in characters), when the file is on
    /// this disk to tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
}

/// A launch configuration: grid and block.
pub type Configuration = (Option<[u64; 3]>, Option<[u64; 3]>);

/// Launch IDs a merged finding lists; more are counted, not listed.
pub const LISTED_LAUNCHES: usize = 8;

/// Errors, then warnings, then info; within each, the most time at stake first. A warning
/// on a small kernel still comes before info on library kernels that take more time.
pub fn rank(findings: &mut [Finding]) {
    findings.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then(
            b.time_at_stake_ns
                .unwrap_or(-1.0)
                .partial_cmp(&a.time_at_stake_ns.unwrap_or(-1.0))
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
}

impl Finding {
    /// Whether this finding is on `kernel`: its own, or one of the instances it stands for.
    pub fn is_on(&self, kernel: &str) -> bool {
        self.kernel == kernel || self.instances.iter().any(|k| k == kernel)
    }

    /// Whether this finding is about `launch` (a launch, or a folded entry of one
    /// kernel configuration). A merged finding covers every configuration of its kernel
    /// it held on; an unmerged one (`--per-launch`), its own launch.
    pub fn covers(&self, file: &str, launch: &Launch) -> bool {
        self.file == file && self.covers_in_any_file(launch)
    }

    /// [`Finding::covers`] whatever the file: the same kernel, and the launch's
    /// configuration among those it covers (its launch, for a finding on one launch).
    pub fn covers_in_any_file(&self, launch: &Launch) -> bool {
        self.kernel == launch.name
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
    /// Slugs of the rules that read what only gpulint's launch trace has, on a profile
    /// without one (an ncu export): not a gap in the export, so not in the share above.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub needs_launch_trace: Vec<String>,
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
