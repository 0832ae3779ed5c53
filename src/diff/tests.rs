//! The diff's unit tests: bands, pairing, findings compared, overlap.

use std::collections::BTreeMap;

use super::{
    Baseline, KernelEntry, Verdict, apply_thresholds, default_gates, diff, diff_with, findings,
    judge, refuse_nothing_compared,
};
use crate::baseline::{FORMAT, Stat};
use findings::{NOT_IN_CANDIDATE, NOT_JUDGED};

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
        not_judged: Vec::new(),
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

/// A finding the baseline had and the candidate judged and lacks is fixed; one whose
/// kernel vanished, or that the candidate could not judge, was not compared. Neither
/// fails the gate.
#[test]
fn only_findings_the_candidate_judged_are_fixed() {
    let b = baseline(vec![
        ("k", entry("k", 100, 32.0, &["uncoalesced-load"])),
        ("thin", entry("thin", 100, 4.0, &["bank-conflicts"])),
        ("gone", entry("gone", 100, 4.0, &["small-grid"])),
    ]);
    let mut thin = entry("thin", 100, 4.0, &[]);
    thin.not_judged = vec!["bank-conflicts".into()];
    let c = baseline(vec![("k", entry("k", 100, 4.0, &[])), ("thin", thin)]);
    // Two of three kernels: what is compared is judged below the default share.
    let r = diff_with(&b, &c, &default_gates(false), false, 50.0);
    let fixed: Vec<(&str, &str)> = r
        .fixed_findings
        .iter()
        .map(|f| (f.kernel.as_str(), f.rule.as_str()))
        .collect();
    assert_eq!(fixed, [("k", "uncoalesced-load")]);
    let not_compared: Vec<(&str, &str, &str)> = r
        .not_compared
        .iter()
        .map(|n| (n.kernel.as_str(), n.rule.as_str(), n.why))
        .collect();
    assert_eq!(
        not_compared,
        [
            ("thin", "bank-conflicts", NOT_JUDGED),
            ("gone", "small-grid", NOT_IN_CANDIDATE)
        ]
    );
    assert!(!r.failed());
    assert_eq!(
        r.fixed_findings[0].describe_fixed(),
        "k: uncoalesced-load fixed, in the baseline and gone from the candidate"
    );
}

#[test]
fn no_kernel_in_common_is_refused_and_a_small_overlap_is_said() {
    let b = baseline(vec![("old", entry("old", 1, 4.0, &["small-grid"]))]);
    let c = baseline(vec![("new", entry("new", 1, 4.0, &[]))]);
    let r = diff(&b, &c, &default_gates(false), false);
    assert_eq!(r.overlap.compared, 0);
    let e = refuse_nothing_compared(&r, "b.json", "c.csv").unwrap_err();
    assert!(e.message.starts_with("nothing compared"), "{e}");
    let empty = baseline(vec![]);
    let r = diff(&empty, &empty, &default_gates(false), false);
    assert!(refuse_nothing_compared(&r, "b", "c").is_err());

    // One of three baseline kernels paired: compared, with a warning.
    let b = baseline(vec![
        ("a", entry("a", 1, 4.0, &[])),
        ("b", entry("b", 1, 4.0, &[])),
        ("c", entry("c", 1, 4.0, &[])),
    ]);
    let c = baseline(vec![("a", entry("a", 1, 4.0, &[]))]);
    let r = diff(&b, &c, &default_gates(false), false);
    assert!(refuse_nothing_compared(&r, "b", "c").is_ok());
    assert!(
        r.caveats
            .iter()
            .any(|c| c.starts_with("only 1 of the baseline's 3")),
        "{:?}",
        r.caveats
    );
    assert_eq!(r.overlap.describe(), "1 of 3 baseline kernel(s) compared");
    // Two of three: no warning.
    let c = baseline(vec![
        ("a", entry("a", 1, 4.0, &[])),
        ("b", entry("b", 1, 4.0, &[])),
    ]);
    assert!(
        diff(&b, &c, &default_gates(false), false)
            .caveats
            .is_empty()
    );
}

/// A baseline from before bank conflicts were gated as a share says so instead of
/// passing that gate on nothing.
#[test]
fn a_gate_the_baseline_cannot_feed_is_said() {
    let b = baseline(vec![("k", entry("k", 1, 4.0, &[]))]);
    let mut with_share = entry("k", 1, 4.0, &[]);
    with_share.metrics.insert(
        "bank_conflict_share".into(),
        Stat {
            mean: 0.5,
            min: 0.5,
            max: 0.5,
        },
    );
    let c = baseline(vec![("k", with_share)]);
    let r = diff(&b, &c, &default_gates(false), false);
    assert!(
        r.caveats
            .iter()
            .any(|c| c.starts_with("the baseline has no bank_conflict_share")),
        "{:?}",
        r.caveats
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
    let b = baseline(vec![
        ("old", entry("old", 1, 4.0, &[])),
        ("kept", entry("kept", 1, 4.0, &[])),
    ]);
    let c = baseline(vec![
        ("new", entry("new", 1, 4.0, &[])),
        ("kept", entry("kept", 1, 4.0, &[])),
    ]);
    // Half the baseline compared: the kernels' change alone fails only when strict.
    assert!(!diff_with(&b, &c, &default_gates(false), false, 50.0).failed());
    let strict = diff_with(&b, &c, &default_gates(false), true, 50.0);
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
    // Conflicts as a share of wavefronts: the run-to-run noise measured on the H200
    // (0.05% to 0.29%, fixtures/h200-repeat) passes; a [32][32] tile (94%) and a
    // doubling from 3% to 6% fail.
    let share = gates
        .iter()
        .find(|g| g.metric == "bank_conflict_share")
        .unwrap();
    assert_eq!(judge(share, 0.0005, 0.0034), Verdict::Unchanged);
    assert_eq!(judge(share, 0.001, 0.94), Verdict::Regressed);
    assert_eq!(judge(share, 0.03, 0.06), Verdict::Regressed);
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

/// A kernel entry with a mean duration, for the share of GPU time compared.
fn timed(name: &str, duration_ns: f64, launches: u64) -> KernelEntry {
    let mut e = entry(name, 1, 4.0, &[]);
    e.launches = launches;
    e.metrics.insert(
        "duration_ns".into(),
        Stat {
            mean: duration_ns,
            min: duration_ns,
            max: duration_ns,
        },
    );
    e
}

/// A candidate that kept 1 of the baseline's 27 kernels (a pull request that renamed the
/// rest, or narrowed `-k`) fails the gate, whatever its one kernel says; one that kept
/// the kernels holding 95% of the baseline's GPU time passes. The share is of GPU time
/// (mean duration times launches), so many small kernels left out weigh little.
#[test]
fn too_little_of_the_baseline_compared_fails_the_gate() {
    let names: Vec<String> = (0..27).map(|i| format!("k{i}")).collect();
    let b = baseline(
        names
            .iter()
            .map(|n| (n.as_str(), timed(n, 1000.0, 10)))
            .collect(),
    );
    let one = baseline(vec![("k0", timed("k0", 1000.0, 10))]);
    let r = diff(&b, &one, &default_gates(false), false);
    assert!(r.failed());
    assert_eq!(
        r.reasons(),
        [
            "only 3.7% of the baseline's GPU time was compared (1 of 27 kernel(s)), under \
          --min-compared 90%"
        ]
    );
    assert!(!diff_with(&b, &one, &default_gates(false), false, 0.0).failed());

    // One kernel of 95% of the time, and 26 small ones: keeping it is enough.
    let mut entries = vec![("k0", timed("k0", 95_000.0, 10))];
    entries.extend(names[1..].iter().map(|n| (n.as_str(), timed(n, 192.3, 10))));
    let b = baseline(entries);
    let big = baseline(vec![("k0", timed("k0", 95_000.0, 10))]);
    let r = diff(&b, &big, &default_gates(false), false);
    assert!(!r.failed(), "{:?}", r.reasons());
    assert_eq!(r.overlap.compared_by, findings::ComparedBy::GpuTime);
    assert!((r.overlap.baseline_compared_pct - 95.0).abs() < 0.01);

    // Without durations, the share is of kernels.
    let b = baseline(vec![
        ("a", entry("a", 1, 4.0, &[])),
        ("b", entry("b", 1, 4.0, &[])),
    ]);
    let half = baseline(vec![("a", entry("a", 1, 4.0, &[]))]);
    let r = diff(&b, &half, &default_gates(false), false);
    assert_eq!(r.overlap.compared_by, findings::ComparedBy::Kernels);
    assert!(r.failed());
}

/// A finding the baseline's rule could not judge there (a thin export, or no launch
/// trace) is not compared, never new: a richer candidate export of the same binary passes.
#[test]
fn a_finding_the_baseline_could_not_judge_is_not_new() {
    let mut thin = entry("k", 1, 4.0, &[]);
    thin.not_judged = vec!["divergent-warps".into(), "launch-bound".into()];
    let b = baseline(vec![("k", thin)]);
    let c = baseline(vec![(
        "k",
        entry(
            "k",
            1,
            4.0,
            &["divergent-warps", "launch-bound", "uncoalesced-load"],
        ),
    )]);
    let r = diff(&b, &c, &default_gates(false), false);
    let new: Vec<&str> = r.new_findings.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(new, ["uncoalesced-load"]);
    let not_compared: Vec<(&str, &str)> = r
        .not_compared
        .iter()
        .map(|n| (n.rule.as_str(), n.why))
        .collect();
    assert_eq!(
        not_compared,
        [
            ("divergent-warps", findings::NOT_JUDGED_IN_BASELINE),
            ("launch-bound", findings::NOT_JUDGED_IN_BASELINE)
        ]
    );
}
