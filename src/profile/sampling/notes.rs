//! What a report says of its sample when not every launch was counted: kernels cut
//! unevenly, shares that do not compare, kernels the sample could not bound.

use crate::ingest;
use crate::kernel;
use crate::profile::sample::Sample;

/// The warnings a sample without every launch counted deserves: kernels it cut unevenly,
/// kernels whose shares are not comparable, kernels it could not bound.
pub fn add_sample_notes(profile: &mut ingest::Profile, sample: Option<&Sample>, timed: bool) {
    let note = match (sample, timed) {
        (Some(Sample::PerConfig(n)), false) => capped_kernels_note(profile, *n),
        (Some(Sample::Spread | Sample::ByTime(_)), false) => uneven_spread_note(profile),
        _ => None,
    };
    profile.notes.extend(note);
    if let Some(Sample::PerConfig(_)) = sample {
        let note = unbounded_kernels_note(profile);
        profile.notes.extend(note);
    }
}

/// A profile's entries (one per configuration) grouped by kernel, in order of first sight.
fn by_kernel(profile: &ingest::Profile) -> Vec<(&str, Vec<&ingest::Launch>)> {
    let mut kernels: Vec<(&str, Vec<&ingest::Launch>)> = Vec::new();
    for l in &profile.launches {
        match kernels.iter_mut().find(|(name, _)| *name == l.name) {
            Some(k) => k.1.push(l),
            None => kernels.push((&l.name, vec![l])),
        }
    }
    kernels
}

/// A kernel with more configurations than this was hardly sampled: it is profiled at least
/// this many times, where a few launches would show its findings.
const MANY_CONFIGURATIONS: usize = 10;

/// Kernels whose grid or block changed so often that the sample bounded nothing (LU's
/// shrinking grids: 63 configurations, each profiled), and how to profile fewer.
fn unbounded_kernels_note(profile: &ingest::Profile) -> Option<String> {
    let many: Vec<String> = by_kernel(profile)
        .iter()
        .filter(|(_, configs)| configs.len() > MANY_CONFIGURATIONS)
        .map(|(name, configs)| format!("{} ({})", kernel::short_name(name), configs.len()))
        .collect();
    (!many.is_empty()).then(|| {
        format!(
            "{}the sample bounds launches per configuration, and these kernels changed grid or \
             block so often that each configuration was profiled: {}; --launch-count N \
             profiles only the first N launches, -k only the kernels named",
            ingest::WARNING,
            many.join(", ")
        )
    })
}

/// With the spread, each kernel's share of GPU time is of its sampled launches, about
/// 1 + log2(N) of its N: a kernel launched 64 times weighs as much as one launched 32
/// times. When the kernels were profiled different numbers of times, names them with their
/// counts (LU: lud_diagonal 8, the other two 7). The counts are not turned into launch
/// counts: a PyTorch GEMM launched 60 times was profiled 11 times, not 7 (likely ncu counts
/// per loaded copy of a kernel; lab/runs/2026-11-30-torch-spread.txt).
fn uneven_spread_note(profile: &ingest::Profile) -> Option<String> {
    let mut counts: Vec<(u64, Vec<String>)> = Vec::new();
    for (name, entries) in by_kernel(profile) {
        let profiled: u64 = entries.iter().map(|l| l.count).sum();
        let name = kernel::short_name(name);
        match counts.iter_mut().find(|(n, _)| *n == profiled) {
            Some((_, names)) => names.push(name),
            None => counts.push((profiled, vec![name])),
        }
    }
    if counts.len() < 2 {
        return None;
    }
    counts.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    const SHOWN: usize = 4;
    let mut groups: Vec<String> = counts
        .iter()
        .take(SHOWN)
        .map(|(n, names)| format!("{} {n}", names.join(", ")))
        .collect();
    if counts.len() > SHOWN {
        groups.push("...".into());
    }
    Some(format!(
        "{}shares of GPU time are of the sampled launches, and the spread profiled the \
         kernels different numbers of times, as it does kernels launched different numbers of \
         times (launches profiled: {}): those launched more are understated; \
         --time-all-launches counts every launch",
        ingest::WARNING,
        groups.join("; ")
    ))
}

/// With a sample, a kernel launched many times with one configuration is cut to `cap`
/// launches while a kernel whose grid changes every launch is profiled whole: the first's
/// share of GPU time comes out too small (LU's diagonal kernel: 2.8% sampled, 37.9% of
/// every launch). Names the kernels whose every configuration reached the cap, when others
/// did not.
fn capped_kernels_note(profile: &ingest::Profile, cap: u64) -> Option<String> {
    let kernels = by_kernel(profile);
    let capped: Vec<String> = kernels
        .iter()
        .filter(|(_, configs)| configs.iter().all(|l| l.count >= cap))
        .map(|(name, _)| kernel::short_name(name))
        .collect();
    (!capped.is_empty() && capped.len() < kernels.len()).then(|| {
        format!(
            "{}{} reached the sample's {cap} launches per configuration while other kernels \
             did not: launches after those were not profiled, so {} share of GPU time is \
             understated; --time-all-launches counts every launch",
            ingest::WARNING,
            capped.join(", "),
            if capped.len() == 1 { "its" } else { "their" }
        )
    })
}
/// `--verbose`: the replay passes ncu took for each profiled entry.
pub fn say_replay_passes(profile: &ingest::Profile) {
    for l in &profile.launches {
        if let Some(p) = l.metrics.get("replay_passes") {
            crate::note!(
                "launch {} {} ({}x): {p} replay pass(es)",
                l.id,
                kernel::short_name(&l.name),
                l.count
            );
        }
    }
}
