//! `gpulint diff`: compares two baselines (or exports) kernel by kernel and decides, per
//! gated metric, whether the candidate regressed, improved or stayed within its band.

use std::collections::BTreeMap;

use serde::Serialize;

mod findings;

use findings::compare_findings;
pub use findings::{DEFAULT_MIN_COMPARED_PCT, NotCompared, Overlap, refuse_nothing_compared};

use crate::baseline::{Baseline, KernelEntry};
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Lower,
    Higher,
}

/// A change is beyond noise when it exceeds the larger of `abs` and `rel` × |baseline|.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Threshold {
    pub abs: f64,
    pub rel: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Gate {
    pub metric: String,
    pub direction: Direction,
    pub threshold: Threshold,
}

/// The bands come from repeated captures of the same binaries on an H200 (docs/ci.md,
/// fixtures/h200-repeat): sectors, bytes per sector, occupancy, registers and local
/// sectors repeated exactly, so their bands are tight. The raw bank-conflict count did
/// not (up to 15% on a kernel with few conflicts), so conflicts are gated as their share
/// of shared-memory wavefronts, which moved at most 0.3 points. Duration is noisy and
/// gated only when asked for, with a wide band.
pub fn default_gates(with_duration: bool) -> Vec<Gate> {
    let g = |metric: &str, direction, abs, rel| Gate {
        metric: metric.to_string(),
        direction,
        threshold: Threshold { abs, rel },
    };
    let mut gates = vec![
        g("sectors_per_request_ld", Direction::Lower, 0.05, 0.02),
        g("sectors_per_request_st", Direction::Lower, 0.05, 0.02),
        g("bytes_per_sector_ld", Direction::Higher, 0.25, 0.02),
        g("bytes_per_sector_st", Direction::Higher, 0.25, 0.02),
        g("theoretical_occupancy_pct", Direction::Higher, 0.5, 0.0),
        g("registers_per_thread", Direction::Lower, 0.5, 0.0),
        g("local_sectors", Direction::Lower, 1024.0, 0.05),
        g("bank_conflict_share", Direction::Lower, 0.02, 0.10),
    ];
    if with_duration {
        gates.push(g("duration_ns", Direction::Lower, 0.0, 0.20));
    }
    gates
}

/// Applies `METRIC=VALUE` overrides: `5%` is relative, a bare number absolute.
pub fn apply_thresholds(
    gates: &mut [Gate],
    overrides: &[(String, String)],
    origin: &str,
) -> Result<()> {
    for (metric, value) in overrides {
        let names: Vec<String> = gates.iter().map(|g| g.metric.clone()).collect();
        let gate = gates
            .iter_mut()
            .find(|g| g.metric == *metric)
            .ok_or_else(|| {
                Error::new(format!(
                    "{origin}: no gated metric {metric:?} (gated: {})",
                    names.join(", ")
                ))
            })?;
        let v = value.trim();
        gate.threshold =
            match v.strip_suffix('%') {
                Some(pct) => Threshold {
                    abs: 0.0,
                    rel: pct.trim().parse::<f64>().map_err(|_| {
                        Error::new(format!("{origin}: {metric}={v:?} is not a number"))
                    })? / 100.0,
                },
                None => Threshold {
                    abs: v.parse::<f64>().map_err(|_| {
                        Error::new(format!("{origin}: {metric}={v:?} is not a number"))
                    })?,
                    rel: 0.0,
                },
            };
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Regressed,
    Improved,
    Unchanged,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Regressed => "regressed",
            Verdict::Improved => "improved",
            Verdict::Unchanged => "unchanged",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricDiff {
    pub kernel: String,
    pub metric: String,
    pub baseline: f64,
    pub candidate: f64,
    pub change: f64,
    /// Relative change in %, absent when the baseline is 0.
    pub change_pct: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Serialize)]
pub struct NewFinding {
    pub kernel: String,
    pub rule: String,
}

/// A number as every diff format shows it: whole numbers bare, others to two decimals,
/// and fractions under 1 (shares) to four, so that 0.0005 does not read as 0.
pub fn show_value(v: f64) -> String {
    let decimals = if v.fract() == 0.0 {
        0
    } else if v.abs() < 1.0 {
        4
    } else {
        2
    };
    crate::rules::template::format_number(v, Some(decimals))
}

impl MetricDiff {
    /// The one wording of a regression, used by every format.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} regressed from {} to {} ({})",
            crate::kernel::short_name(&self.kernel),
            self.metric,
            show_value(self.baseline),
            show_value(self.candidate),
            self.change_pct
                .map_or("new".into(), |p| format!("{p:+.1}%"))
        )
    }
}

impl NewFinding {
    /// The one wording of a new finding, used by every format.
    pub fn describe(&self) -> String {
        format!(
            "{}: new {} finding, not in the baseline",
            crate::kernel::short_name(&self.kernel),
            self.rule
        )
    }

    /// The one wording of a fixed finding (in `fixed_findings`): the baseline's, gone.
    pub fn describe_fixed(&self) -> String {
        format!(
            "{}: {} fixed, in the baseline and gone from the candidate",
            crate::kernel::short_name(&self.kernel),
            self.rule
        )
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ConfigChange {
    pub kernel: String,
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    pub rows: Vec<MetricDiff>,
    pub new_kernels: Vec<String>,
    pub vanished_kernels: Vec<String>,
    pub new_findings: Vec<NewFinding>,
    /// The baseline's findings the candidate judged and no longer has: what a change
    /// fixed. Never a failure.
    pub fixed_findings: Vec<NewFinding>,
    /// The baseline's findings the candidate could not judge (a thinner export) or whose
    /// kernel it did not run: neither fixed nor kept.
    pub not_compared: Vec<NotCompared>,
    pub config_changes: Vec<ConfigChange>,
    /// Gated metrics of paired kernels that the baseline has and the candidate lacks: not
    /// compared, so they fail the gate (a thin export must not pass unseen).
    pub unmeasured: Vec<Unmeasured>,
    /// Why the two sides are not like for like (devices, rule selections): said in every
    /// format; `--strict` refuses to compare instead.
    pub caveats: Vec<String>,
    /// How many kernels were paired, of how many on each side.
    pub overlap: Overlap,
    pub strict: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unmeasured {
    pub kernel: String,
    pub metric: String,
}

impl DiffReport {
    pub fn regressions(&self) -> impl Iterator<Item = &MetricDiff> {
        self.rows.iter().filter(|r| r.verdict == Verdict::Regressed)
    }

    /// Whether the gate fails: a regression, a new finding, or with `--strict` a kernel
    /// that appeared or vanished.
    pub fn failed(&self) -> bool {
        !self.reasons().is_empty()
    }

    /// Why the gate fails, one line each; empty when it passes. Every format says these.
    pub fn reasons(&self) -> Vec<String> {
        let mut out = Vec::new();
        let regressed = self.regressions().count();
        if regressed > 0 {
            out.push(format!("{regressed} gated metric(s) regressed"));
        }
        if !self.new_findings.is_empty() {
            out.push(format!("{} new finding(s)", self.new_findings.len()));
        }
        if let Some(why) = self.overlap.too_little() {
            out.push(why);
        }
        if !self.unmeasured.is_empty() {
            out.push(format!(
                "{} gated metric(s) of the baseline not measured in the candidate ({})",
                self.unmeasured.len(),
                self.unmeasured_metrics().join(", ")
            ));
        }
        for (what, k) in self.strict_kernel_changes() {
            out.push(format!(
                "{what} {} (--strict)",
                crate::kernel::short_name(k)
            ));
        }
        out
    }

    /// The distinct metrics the candidate lacks, in gate order of first appearance.
    pub fn unmeasured_metrics(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for u in &self.unmeasured {
            if !names.contains(&u.metric.as_str()) {
                names.push(&u.metric);
            }
        }
        names
    }

    /// One line per kernel with gated metrics the candidate lacks: the one wording.
    pub fn unmeasured_lines(&self) -> Vec<(&str, String)> {
        let mut by_kernel: Vec<(&str, Vec<&str>)> = Vec::new();
        for u in &self.unmeasured {
            match by_kernel.iter_mut().find(|(k, _)| *k == u.kernel) {
                Some((_, metrics)) => metrics.push(&u.metric),
                None => by_kernel.push((&u.kernel, vec![&u.metric])),
            }
        }
        by_kernel
            .into_iter()
            .map(|(k, metrics)| {
                let line = format!(
                    "{}: {} not measured in the candidate (the baseline has them): capture the \
                     same metrics as the baseline",
                    crate::kernel::short_name(k),
                    metrics.join(", ")
                );
                (k, line)
            })
            .collect()
    }

    /// With `--strict`, the kernels that appeared ("new kernel") or vanished ("vanished
    /// kernel"): each fails the gate. Nothing without `--strict`.
    pub fn strict_kernel_changes(&self) -> impl Iterator<Item = (&'static str, &String)> {
        let strict = self.strict;
        self.new_kernels
            .iter()
            .map(|k| ("new kernel", k))
            .chain(self.vanished_kernels.iter().map(|k| ("vanished kernel", k)))
            .filter(move |_| strict)
    }
}

fn config(e: &KernelEntry) -> String {
    format!(
        "grid {} block {}",
        crate::kernel::dim3(e.grid),
        crate::kernel::dim3(e.block)
    )
}

/// Pairs candidate kernels with baseline ones: the same key first, then the same name
/// when exactly one unpaired baseline entry has it (its launch configuration changed).
pub fn match_kernels<'a>(
    base: &'a Baseline,
    cand: &'a Baseline,
) -> (Vec<(&'a str, &'a str)>, Vec<&'a str>, Vec<&'a str>) {
    let mut pairs = Vec::new();
    let mut base_left: Vec<&str> = base.kernels.keys().map(String::as_str).collect();
    let mut cand_left = Vec::new();
    for key in cand.kernels.keys() {
        if let Some(pos) = base_left.iter().position(|b| *b == key) {
            pairs.push((base_left.remove(pos), key.as_str()));
        } else {
            cand_left.push(key.as_str());
        }
    }
    let mut unmatched_cand = Vec::new();
    for key in cand_left {
        let name = &cand.kernels[key].name;
        let same_name: Vec<usize> = base_left
            .iter()
            .enumerate()
            .filter(|(_, b)| base.kernels[**b].name == *name)
            .map(|(i, _)| i)
            .collect();
        if let [only] = same_name[..] {
            pairs.push((base_left.remove(only), key));
        } else {
            unmatched_cand.push(key);
        }
    }
    (pairs, unmatched_cand, base_left)
}

fn judge(gate: &Gate, base: f64, current: f64) -> Verdict {
    let worse = match gate.direction {
        Direction::Lower => current - base,
        Direction::Higher => base - current,
    };
    let band = gate.threshold.abs.max(gate.threshold.rel * base.abs());
    if worse > band {
        Verdict::Regressed
    } else if -worse > band {
        Verdict::Improved
    } else {
        Verdict::Unchanged
    }
}

/// Why two baselines are not like for like: different devices, or different rule
/// selections (findings are then compared on the rules both ran).
pub fn caveats(base: &Baseline, cand: &Baseline) -> Vec<String> {
    let mut out = Vec::new();
    let norm = |d: &str| d.trim().to_ascii_lowercase();
    if let (Some(b), Some(c)) = (&base.device, &cand.device)
        && norm(b) != norm(c)
    {
        out.push(format!(
            "the baseline was captured on {b} and the candidate on {c}: sector, occupancy and \
             register counts depend on the chip, so a change may be the device's"
        ));
    }
    if let (Some(b), Some(c)) = (&base.rules, &cand.rules)
        && b != c
    {
        let only = |x: &[String], y: &[String]| x.iter().filter(|r| !y.contains(r)).count();
        out.push(format!(
            "the baseline ran {} rule(s) and the candidate {} ({} only in the baseline, {} only \
             in the candidate): findings are compared on the {} both ran",
            b.len(),
            c.len(),
            only(b, c),
            only(c, b),
            b.iter().filter(|r| c.contains(r)).count()
        ));
    }
    out
}

/// Gated metrics that no baseline kernel has while some candidate kernel does: a
/// baseline written by an older gpulint (before bank conflicts were gated as a share),
/// or captured with fewer metrics. Said, never passed over in silence.
fn missing_from_baseline(base: &Baseline, cand: &Baseline, gates: &[Gate]) -> Vec<String> {
    gates
        .iter()
        .filter(|g| {
            !base
                .kernels
                .values()
                .any(|k| k.metrics.contains_key(&g.metric))
                && cand
                    .kernels
                    .values()
                    .any(|k| k.metrics.contains_key(&g.metric))
        })
        .map(|g| {
            format!(
                "the baseline has no {} (an older gpulint wrote it, or its capture lacked the \
                 metrics): that gate compared nothing; rewrite the baseline with `gpulint \
                 baseline`",
                g.metric
            )
        })
        .collect()
}

/// The gated metrics of one pair of kernels: a row per metric both sides have, and the
/// ones only the baseline has (`unmeasured`).
fn compare_metrics(
    b: &KernelEntry,
    c: &KernelEntry,
    kernel: &str,
    gates: &[Gate],
    rows: &mut Vec<MetricDiff>,
    unmeasured: &mut Vec<Unmeasured>,
) {
    for gate in gates {
        let (Some(bs), Some(cs)) = (b.metrics.get(&gate.metric), c.metrics.get(&gate.metric))
        else {
            if b.metrics.contains_key(&gate.metric) {
                unmeasured.push(Unmeasured {
                    kernel: kernel.to_string(),
                    metric: gate.metric.clone(),
                });
            }
            continue;
        };
        let change = cs.mean - bs.mean;
        rows.push(MetricDiff {
            kernel: kernel.to_string(),
            metric: gate.metric.clone(),
            baseline: bs.mean,
            candidate: cs.mean,
            change,
            change_pct: (bs.mean != 0.0).then(|| change / bs.mean.abs() * 100.0),
            verdict: judge(gate, bs.mean, cs.mean),
        });
    }
}

/// Compares `cand` with `base`, failing where less than [`DEFAULT_MIN_COMPARED_PCT`] of
/// the baseline was compared ([`diff_with`] takes another share).
#[cfg(any(test, fuzzing))]
pub fn diff(base: &Baseline, cand: &Baseline, gates: &[Gate], strict: bool) -> DiffReport {
    diff_with(base, cand, gates, strict, DEFAULT_MIN_COMPARED_PCT)
}

/// The comparison, failing where less than `min_compared_pct` of the baseline was
/// compared (`diff` takes the default share, in tests and fuzzing).
pub fn diff_with(
    base: &Baseline,
    cand: &Baseline,
    gates: &[Gate],
    strict: bool,
    min_compared_pct: f64,
) -> DiffReport {
    let (pairs, new, vanished) = match_kernels(base, cand);
    let mut rows = Vec::new();
    let mut config_changes = Vec::new();
    let mut unmeasured = Vec::new();
    for (bk, ck) in &pairs {
        let (b, c) = (&base.kernels[*bk], &cand.kernels[*ck]);
        if config(b) != config(c) {
            config_changes.push(ConfigChange {
                kernel: ck.to_string(),
                from: config(b),
                to: config(c),
            });
        }
        compare_metrics(b, c, ck, gates, &mut rows, &mut unmeasured);
    }
    let findings = compare_findings(base, cand, &pairs, &new, &vanished);
    let paired: Vec<&str> = pairs.iter().map(|(b, _)| *b).collect();
    let overlap = Overlap::new(base, cand, &paired, min_compared_pct);
    let mut caveats = caveats(base, cand);
    caveats.extend(missing_from_baseline(base, cand, gates));
    if overlap.compared > 0 && overlap.is_small() {
        caveats.push(format!(
            "only {} of the baseline's {} kernel(s) and of the candidate's {} were compared \
             ({:.0}% and {:.0}%): are they profiles of the same program?",
            overlap.compared,
            overlap.baseline_kernels,
            overlap.candidate_kernels,
            overlap.share_of(overlap.baseline_kernels),
            overlap.share_of(overlap.candidate_kernels)
        ));
    }
    DiffReport {
        rows,
        new_kernels: new.iter().map(|s| s.to_string()).collect(),
        vanished_kernels: vanished.iter().map(|s| s.to_string()).collect(),
        new_findings: findings.new,
        fixed_findings: findings.fixed,
        not_compared: findings.not_compared,
        config_changes,
        unmeasured,
        caveats,
        overlap,
        strict,
    }
}

/// Counts per verdict, for summaries.
pub fn tally(report: &DiffReport) -> BTreeMap<&'static str, usize> {
    let mut t = BTreeMap::new();
    for r in &report.rows {
        *t.entry(r.verdict.as_str()).or_default() += 1;
    }
    t
}

#[cfg(test)]
mod tests;
