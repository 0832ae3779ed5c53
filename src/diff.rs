//! `gpulint diff`: compares two baselines (or exports) kernel by kernel and decides, per
//! gated metric, whether the candidate regressed, improved or stayed within its band.

use std::collections::BTreeMap;

use serde::Serialize;

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

/// Counters are deterministic, so their bands are tight; duration is noisy and gated
/// only when asked for, with a wide band.
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
        g("bank_conflicts", Direction::Lower, 1024.0, 0.05),
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

/// A number as every diff format shows it: whole numbers bare, others to two decimals.
pub fn show_value(v: f64) -> String {
    crate::rules::template::format_number(v, if v.fract() == 0.0 { Some(0) } else { Some(2) })
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
    /// The baseline's findings the candidate no longer has (on its kernels, or with a
    /// kernel that vanished): what a change fixed. Never a failure.
    pub fixed_findings: Vec<NewFinding>,
    pub config_changes: Vec<ConfigChange>,
    /// Gated metrics of paired kernels that the baseline has and the candidate lacks: not
    /// compared, so they fail the gate (a thin export must not pass unseen).
    pub unmeasured: Vec<Unmeasured>,
    /// Why the two sides are not like for like (devices, rule selections): said in every
    /// format; `--strict` refuses to compare instead.
    pub caveats: Vec<String>,
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

pub fn diff(base: &Baseline, cand: &Baseline, gates: &[Gate], strict: bool) -> DiffReport {
    let (pairs, new, vanished) = match_kernels(base, cand);
    let mut rows = Vec::new();
    let mut new_findings = Vec::new();
    let mut fixed_findings = Vec::new();
    let mut config_changes = Vec::new();
    let mut unmeasured = Vec::new();
    // A rule only one side ran can neither appear nor vanish.
    let both_ran = |rule: &String| match (&base.rules, &cand.rules) {
        (Some(b), Some(c)) => b.contains(rule) && c.contains(rule),
        _ => true,
    };
    for (bk, ck) in &pairs {
        let (b, c) = (&base.kernels[*bk], &cand.kernels[*ck]);
        if config(b) != config(c) {
            config_changes.push(ConfigChange {
                kernel: ck.to_string(),
                from: config(b),
                to: config(c),
            });
        }
        for gate in gates {
            let (Some(bs), Some(cs)) = (b.metrics.get(&gate.metric), c.metrics.get(&gate.metric))
            else {
                if b.metrics.contains_key(&gate.metric) {
                    unmeasured.push(Unmeasured {
                        kernel: ck.to_string(),
                        metric: gate.metric.clone(),
                    });
                }
                continue;
            };
            let change = cs.mean - bs.mean;
            rows.push(MetricDiff {
                kernel: ck.to_string(),
                metric: gate.metric.clone(),
                baseline: bs.mean,
                candidate: cs.mean,
                change,
                change_pct: (bs.mean != 0.0).then(|| change / bs.mean.abs() * 100.0),
                verdict: judge(gate, bs.mean, cs.mean),
            });
        }
        new_findings.extend(only_in(&c.findings, &b.findings, ck, &both_ran));
        fixed_findings.extend(only_in(&b.findings, &c.findings, ck, &both_ran));
    }
    // A vanished kernel's findings went with it.
    for key in &vanished {
        for rule in base.kernels[*key].findings.iter().filter(|r| both_ran(r)) {
            fixed_findings.push(NewFinding {
                kernel: key.to_string(),
                rule: rule.clone(),
            });
        }
    }
    // A new kernel's findings are all new.
    for key in &new {
        for rule in cand.kernels[*key].findings.iter().filter(|r| both_ran(r)) {
            new_findings.push(NewFinding {
                kernel: key.to_string(),
                rule: rule.clone(),
            });
        }
    }
    DiffReport {
        rows,
        new_kernels: new.iter().map(|s| s.to_string()).collect(),
        vanished_kernels: vanished.iter().map(|s| s.to_string()).collect(),
        new_findings,
        fixed_findings,
        config_changes,
        unmeasured,
        caveats: caveats(base, cand),
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
mod tests {
    use super::*;
    use crate::baseline::{FORMAT, Stat};

    fn entry(name: &str, grid: u64, spr: f64, findings: &[&str]) -> KernelEntry {
        let mut metrics = BTreeMap::new();
        metrics.insert(
            "sectors_per_request_ld".to_string(),
            Stat {
                mean: spr,
                min: spr,
                max: spr,
            },
        );
        KernelEntry {
            name: name.into(),
            grid: Some([grid, 1, 1]),
            block: Some([256, 1, 1]),
            launches: 1,
            metrics,
            findings: findings.iter().map(|s| s.to_string()).collect(),
            source: None,
        }
    }

    fn baseline(entries: Vec<(&str, KernelEntry)>) -> Baseline {
        Baseline {
            format: FORMAT,
            gpulint_version: "test".into(),
            ncu_version: None,
            device: None,
            rules: None,
            kernels: entries
                .into_iter()
                .map(|(k, e)| (k.to_string(), e))
                .collect(),
        }
    }

    /// A finding the baseline had and the candidate lacks is fixed, also when its kernel
    /// vanished; it never fails the gate.
    #[test]
    fn findings_the_candidate_lost_are_fixed() {
        let b = baseline(vec![
            ("k", entry("k", 100, 32.0, &["uncoalesced-load"])),
            ("gone", entry("gone", 100, 4.0, &["small-grid"])),
        ]);
        let c = baseline(vec![("k", entry("k", 100, 4.0, &[]))]);
        let r = diff(&b, &c, &default_gates(false), false);
        let fixed: Vec<(&str, &str)> = r
            .fixed_findings
            .iter()
            .map(|f| (f.kernel.as_str(), f.rule.as_str()))
            .collect();
        assert_eq!(fixed, [("k", "uncoalesced-load"), ("gone", "small-grid")]);
        assert!(!r.failed());
        assert_eq!(
            r.fixed_findings[0].describe_fixed(),
            "k: uncoalesced-load fixed, in the baseline and gone from the candidate"
        );
    }

    #[test]
    fn a_changed_launch_configuration_still_matches_by_name() {
        let b = baseline(vec![("k", entry("k", 100, 4.0, &[]))]);
        let c = baseline(vec![("k", entry("k", 200, 32.0, &["uncoalesced-load"]))]);
        let r = diff(&b, &c, &default_gates(false), false);
        assert_eq!(r.rows[0].verdict, Verdict::Regressed);
        assert_eq!(r.config_changes.len(), 1);
        assert_eq!(r.new_findings[0].rule, "uncoalesced-load");
        assert!(r.failed());
    }

    #[test]
    fn kernels_sharing_a_name_are_told_apart_by_configuration() {
        let b = baseline(vec![
            (
                "k [grid (100,1,1) block (256,1,1)]",
                entry("k", 100, 4.0, &[]),
            ),
            (
                "k [grid (200,1,1) block (256,1,1)]",
                entry("k", 200, 8.0, &[]),
            ),
        ]);
        let c = b.clone();
        let r = diff(&b, &c, &default_gates(false), true);
        assert_eq!(r.rows.len(), 2);
        assert!(r.rows.iter().all(|x| x.verdict == Verdict::Unchanged));
        assert!(!r.failed());
    }

    #[test]
    fn new_and_vanished_kernels_fail_only_when_strict() {
        let b = baseline(vec![("old", entry("old", 1, 4.0, &[]))]);
        let c = baseline(vec![("new", entry("new", 1, 4.0, &[]))]);
        assert!(!diff(&b, &c, &default_gates(false), false).failed());
        let strict = diff(&b, &c, &default_gates(false), true);
        assert_eq!(strict.new_kernels, vec!["new"]);
        assert_eq!(strict.vanished_kernels, vec!["old"]);
        assert!(strict.failed());
    }

    #[test]
    fn a_new_kernel_with_a_finding_fails_the_gate() {
        let b = baseline(vec![]);
        let c = baseline(vec![("new", entry("new", 1, 32.0, &["uncoalesced-load"]))]);
        assert!(diff(&b, &c, &default_gates(false), false).failed());
    }

    #[test]
    fn bands_and_directions() {
        let gates = default_gates(true);
        let spr = &gates[0];
        assert_eq!(judge(spr, 4.0, 4.04), Verdict::Unchanged);
        assert_eq!(judge(spr, 4.0, 5.0), Verdict::Regressed);
        assert_eq!(judge(spr, 8.0, 4.0), Verdict::Improved);
        let bps = &gates[2];
        assert_eq!(judge(bps, 32.0, 4.0), Verdict::Regressed);
        let dur = gates.iter().find(|g| g.metric == "duration_ns").unwrap();
        assert_eq!(judge(dur, 100.0, 115.0), Verdict::Unchanged);
        assert_eq!(judge(dur, 100.0, 125.0), Verdict::Regressed);
        let mut g = default_gates(false);
        apply_thresholds(
            &mut g,
            &[("sectors_per_request_ld".into(), "50%".into())],
            "--threshold",
        )
        .unwrap();
        assert_eq!(judge(&g[0], 4.0, 5.0), Verdict::Unchanged);
        assert!(apply_thresholds(&mut g, &[("nope".into(), "1".into())], "--threshold").is_err());
    }
}
