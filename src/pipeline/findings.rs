//! After the rules: whose kernel each finding is about, each kernel's share of the GPU
//! time and the severity that follows from it, one stake per cause, and the ranking by
//! time at stake. Computed once, for every format and the baseline.

use std::collections::HashMap;

use crate::error::Result;
use crate::ingest::Profile;

use crate::rules::engine::Finding;
use crate::rules::{self, Rule, Severity};

/// What the analysis takes from the command line.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--rules DIR`: may hold an `origins.toml` of the user's own.
    pub rules_dir: Option<String>,
    /// `--min-share`: findings on kernels under this % of the GPU time become info.
    pub min_share: f64,
    /// GPU time the launch trace counted of kernels a sample did not profile: part of the
    /// total that shares are of, in no kernel's share.
    pub unprofiled_ns: f64,
    /// The launch trace's launching object of each kernel it counted, for the origins of
    /// kernels the sample did not profile.
    pub traced_objects: Vec<(String, std::sync::Arc<str>)>,
    /// The counters are the launch tracer's, read in the program's one run (the default,
    /// `--window`): its replay starts passes from a warm L2.
    pub warm_replay: bool,
}

/// Findings after origins, shares and ranking: what every report and the baseline see.
pub struct Analysis {
    pub findings: Vec<rules::engine::Finding>,
    pub skips: Vec<rules::engine::Skip>,
    pub origins: crate::origin::Origins,
    /// Helper kernels (framework plumbing) and how many launches each had.
    pub helpers: Vec<(String, u64)>,
    /// Which rules could judge, and which could not.
    pub coverage: rules::engine::Coverage,
    /// The profile's GPU time, helper kernels left out: what shares are shares of.
    pub gpu_time_ns: f64,
}

/// Runs the stages after the rules, in order, on what the linter found.
pub fn analyze(
    profiles: &[Profile],
    outcome: rules::engine::Outcome,
    rules: &[Rule],
    settings: &Settings,
) -> Result<Analysis> {
    let mut origins = crate::origin::load(settings.rules_dir.as_deref())?;
    origins.learn_launching_objects(
        (profiles.iter().flat_map(|p| &p.launches)).map(|l| (&l.name, l.launched_from.as_ref())),
    );
    origins.learn_launching_objects(settings.traced_objects.iter().map(|(k, o)| (k, Some(o))));
    let mut findings = outcome.findings;
    apply_origins(&origins, &mut findings);
    super::source_lines::attach_source_lines(profiles, rules, &mut findings);
    let helpers = origins.helpers(
        profiles
            .iter()
            .flat_map(|p| &p.launches)
            .map(|l| (l.name.as_str(), l.count)),
    );
    let (shares, gpu_time_ns) = kernel_shares(profiles, &origins, settings.unprofiled_ns);
    apply_share_floors(
        &mut findings,
        rules,
        &shares,
        gpu_time_ns,
        settings.min_share,
    );
    say_mean_waits(&mut findings, rules);
    if settings.warm_replay {
        unsettled_warnings_are_info(&mut findings);
    }
    one_warning_per_program_wide_fix(&mut findings, rules);
    crate::rules::engine::rank(&mut findings);
    one_stake_per_cause(&mut findings);
    Ok(Analysis {
        findings,
        skips: outcome.skips,
        origins,
        helpers,
        coverage: outcome.coverage,
        gpu_time_ns,
    })
}

/// In one run, a warning whose deciding value is near its bar, on the side a warm cache
/// pushes it to, on every launch it covers (an `unsettled_in_one_run` note held) is info:
/// the range profiler's replay starts its passes after the first from the L2 that
/// restoring memory left warm, so kernels stall less and issue more than under ncu, which
/// flushes the caches before each pass. BFS's expansion kernel issued in 40.1% of its
/// cycles in one run against ncu's 36.2% on the same level, across divergent-warps' 40%
/// bar (lab/runs/2026-12-05-one-run-loops.txt).
fn unsettled_warnings_are_info(findings: &mut [Finding]) {
    for f in findings.iter_mut() {
        if f.unsettled_in_one_run && f.severity == Severity::Warning {
            f.severity = Severity::Info;
            f.info_because = Some("near its bar in one run's warm-cache replay".into());
            f.notes.push(
                "reported as info: one run's replay starts from a warm L2, where ncu flushes \
                 the caches before each pass, so this value may fall the other side of the \
                 bar under ncu (`--two-runs` measures it as ncu does)"
                    .into(),
            );
        }
    }
}

/// Two findings on the same launches with the same time at stake are capped by one bound
/// (GL101 and GL102 on a strided copy: both by how busy the memory system is), and read
/// as twice the gain: the one ranked lower says whose stake it shares.
fn one_stake_per_cause(findings: &mut [Finding]) {
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-3 * a.abs().max(b.abs());
    for i in 1..findings.len() {
        let Some(t) = findings[i].time_at_stake_ns.filter(|t| *t > 0.0) else {
            continue;
        };
        let (earlier, rest) = findings.split_at_mut(i);
        let f = &mut rest[0];
        let shared = earlier.iter().find(|e| {
            e.file == f.file
                && e.kernel == f.kernel
                && e.launch == f.launch
                && e.stake_shared_with.is_none()
                && e.time_at_stake_ns.is_some_and(|s| same(s, t))
        });
        if let Some(e) = shared {
            f.stake_shared_with = Some(e.code.clone());
        }
    }
}

/// Drops findings on helper kernels, turns library internals into info and names the
/// call to change on library call sites; records each finding's origin.
fn apply_origins(origins: &crate::origin::Origins, findings: &mut Vec<Finding>) {
    findings.retain_mut(|f| match origins.adjust(&f.kernel, &f.rule) {
        crate::origin::Adjustment::Drop => false,
        crate::origin::Adjustment::Keep { to_info, note, fix } => {
            if to_info && f.severity > Severity::Info {
                f.severity = Severity::Info;
                f.info_because = Some("a library's kernel: the cure is a different call".into());
            }
            f.notes.extend(note);
            f.notes.extend(origins.evidence_note(&f.kernel));
            if let Some(fix) = fix {
                f.fix = fix;
            }
            f.origin = Some(origins.describe(&f.kernel));
            true
        }
    });
}

/// A finding whose stake is waiting (`stake_is_waiting`) shows the wait before the launch
/// with the most at stake, the longest; the mean over the launches it covers is the typical
/// one, and their sum is the time at stake.
fn say_mean_waits(findings: &mut [Finding], rules: &[Rule]) {
    for f in findings.iter_mut() {
        let waits = rules.iter().any(|r| r.slug == f.rule && r.stake_is_waiting);
        if let (true, Some(stake)) = (waits, f.time_at_stake_ns) {
            let n = f.launch_count.max(1);
            f.notes.push(format!(
                "the {n} launch(es) waited {} us each on average, {} us in all",
                crate::rules::template::format_number(stake / n as f64 / 1000.0, Some(1)),
                crate::rules::template::format_number(stake / 1000.0, Some(1))
            ));
        }
    }
}

/// A rule whose fix is one switch for the whole program (`program_wide_fix`, such as a
/// precision setting) warns once per profile: on the kernel with the most time at stake.
/// Its other findings become info, each pointing to that one, which counts them.
fn one_warning_per_program_wide_fix(findings: &mut [Finding], rules: &[Rule]) {
    let stake = |f: &Finding| f.time_at_stake_ns.unwrap_or(0.0);
    for rule in rules.iter().filter(|r| r.program_wide_fix) {
        let files: std::collections::BTreeSet<String> = findings
            .iter()
            .filter(|f| f.rule == rule.slug)
            .map(|f| f.file.clone())
            .collect();
        for file in files {
            let mut same: Vec<usize> = (0..findings.len())
                .filter(|&i| {
                    let f = &findings[i];
                    f.rule == rule.slug && f.file == file && f.severity > Severity::Info
                })
                .collect();
            if same.len() < 2 {
                continue;
            }
            same.sort_by(|&a, &b| stake(&findings[b]).total_cmp(&stake(&findings[a])));
            let (first, rest) = (same[0], &same[1..]);
            let lead = crate::kernel::short_name(&findings[first].kernel);
            let rest_stake: f64 = rest.iter().map(|&i| stake(&findings[i])).sum();
            for &i in rest {
                findings[i].severity = Severity::Info;
                findings[i].info_because =
                    Some(format!("the same fix as the {} warning", rule.code));
                findings[i].notes.push(format!(
                    "the same program-wide fix as the {} warning on {lead}",
                    rule.code
                ));
            }
            findings[first].notes.push(format!(
                "{} more kernel(s) get the same fix, {} us more at stake: listed as info",
                rest.len(),
                crate::rules::template::format_number(rest_stake / 1000.0, Some(1))
            ));
        }
    }
}

/// Each kernel's share of the profile's GPU time in %, by name, over all its launches,
/// and that time in ns; helper kernels are left out.
fn kernel_shares(
    profiles: &[Profile],
    origins: &crate::origin::Origins,
    unprofiled_ns: f64,
) -> (HashMap<String, f64>, f64) {
    let mut times: HashMap<String, f64> = HashMap::new();
    let mut total = unprofiled_ns;
    for l in profiles.iter().flat_map(|p| &p.launches) {
        if origins.describe(&l.name).kind == crate::origin::Kind::Helper {
            continue;
        }
        if let Some(d) = l.time_ns() {
            *times.entry(l.name.clone()).or_default() += d;
            total += d;
        }
    }
    if total > 0.0 {
        times.values_mut().for_each(|t| *t = *t / total * 100.0);
    }
    (times, total)
}

/// Findings under a rule's own floor (`info_below_share_pct`: launch-shape and latency
/// findings on launches that take a negligible share of the GPU time) or on a kernel under
/// `--min-share` become info. The floor weighs the launches a finding covers, not its
/// kernel's: two 1-block tail launches of a kernel that otherwise fills the GPU are noise.
fn apply_share_floors(
    findings: &mut [Finding],
    rules: &[Rule],
    shares: &HashMap<String, f64>,
    gpu_time_ns: f64,
    min_share: f64,
) {
    if shares.is_empty() {
        return;
    }
    for f in findings {
        let covered_pct = (f.covered_time_ns)
            .filter(|_| gpu_time_ns > 0.0)
            .map(|t| t / gpu_time_ns * 100.0);
        // A kernel a sample by time left out has no share in the profile, but the launches
        // the trace judged it on have their own time: never read as 0%.
        let share = (shares.get(&f.kernel).copied())
            .or(covered_pct)
            .unwrap_or(0.0);
        let covered = covered_pct.map_or(share, |c| c.min(share));
        let floor = rules
            .iter()
            .find(|r| r.slug == f.rule)
            .and_then(|r| r.info_below_share_pct);
        if f.severity == Severity::Info {
            continue;
        }
        if let Some(floor) = floor.filter(|floor| covered < *floor) {
            f.severity = Severity::Info;
            f.info_because = Some(format!("under {floor}% of the GPU time"));
            f.notes.push(if covered < share - 1e-9 {
                format!(
                    "the {} launch(es) it covers take {covered:.2}% of the profile's GPU time \
                     (the kernel {share:.2}%), under {floor}%: reported as info",
                    f.launch_count
                )
            } else {
                format!(
                    "this kernel takes {share:.2}% of the profile's GPU time over all its launches, under {floor}%: reported as info"
                )
            });
        } else if min_share > 0.0 && share < min_share {
            f.severity = Severity::Info;
            f.info_because = Some(format!("under --min-share {min_share}% of the GPU time"));
            f.notes.push(format!(
                "this kernel takes {share:.2}% of the profile's GPU time, under --min-share {min_share}%"
            ));
        }
    }
}
