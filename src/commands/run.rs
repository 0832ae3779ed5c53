//! `gpulint run -- PROG` (and `gpulint PROG`): profile a program with ncu, then lint it.

use super::check::lint_and_report;
use super::shared::{enabled_rules, load_as};
use crate::cli::{Format, NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest::{self, Sample};
use crate::ncu::NcuOptions;
use crate::report;
use crate::rules::{self, Rule};

pub fn run_program(ncu: &NcuArgs, report: &ReportArgs, program: &[String]) -> Result<u8> {
    let (rules, config) = enabled_rules(&report.gate.selection)?;
    // ncu arguments from gpulint.toml come first, so the command line can add to them.
    let extra_args: Vec<String> = config
        .ncu_args
        .iter()
        .chain(&ncu.ncu_args)
        .cloned()
        .collect();
    let mut opts = ncu_options(ncu, report, extra_args);
    let sample = opts.sample;
    if ncu.time_all_launches && sample.is_none() {
        return Err(crate::error::Error::new(
            "--time-all-launches times the launches a sample leaves out, and the launch filter \
             given to ncu (--ncu-arg) turns the sample off: every chosen launch is profiled already",
        ));
    }
    // The timing pass runs first: knowing every launch, the sample's progress line can
    // say how many launches it will profile and about how long that takes.
    let timed = match sample {
        Some(sample) if ncu.time_all_launches => {
            let csv = crate::ncu::time_every_launch(&opts, program)?;
            let path = csv.path().display().to_string();
            let timed = load_as(
                &[(path.as_str(), "timing")],
                false,
                report.gate.read.jobs,
                None,
            )?;
            opts.expected_launches = Some(launches_to_profile(sample, &timed[0]));
            timed.into_iter().next()
        }
        _ => None,
    };
    let info = crate::ncu::profile(&opts, &rules, program)?;
    say_program_status(info.program_status, &program[0]);
    if report.gate.read.verbose {
        eprintln!("gpulint: profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let mut profiles = load_profiled(&info, timed.as_ref(), report, &mut linter)?;
    profiles[0].source_blocks = info.source_blocks;
    profiles[0].sample = sample;
    let note = match (sample, &timed) {
        (Some(Sample::PerConfig(n)), None) => capped_kernels_note(&profiles[0], n),
        (Some(Sample::Spread), None) => uneven_spread_note(&profiles[0]),
        _ => None,
    };
    profiles[0].notes.extend(note);
    if let Some(Sample::PerConfig(_)) = sample {
        let note = unbounded_kernels_note(&profiles[0]);
        profiles[0].notes.extend(note);
    }
    if report.gate.read.verbose {
        for l in &profiles[0].launches {
            if let Some(p) = l.metrics.get("replay_passes") {
                eprintln!(
                    "gpulint: launch {} {} ({}x): {p} replay pass(es)",
                    l.id,
                    report::short_name(&l.name),
                    l.count
                );
            }
        }
    }
    lint_and_report(&profiles, linter.finish(), &rules, report)
}

/// What ncu is asked for: the command line's options, the config's ncu arguments, and the
/// sample unless the user chose launches themselves.
fn ncu_options(ncu: &NcuArgs, report: &ReportArgs, extra_args: Vec<String>) -> NcuOptions {
    let choice = crate::ncu::LaunchChoice {
        per_config: ncu.launches_per_config,
        all_launches: ncu.all_launches,
        launch_skip: ncu.launch_skip,
        launch_count: ncu.launch_count,
        kernel_name: ncu.kernel_name.as_deref(),
    };
    let sample = crate::ncu::choose_sample(&choice, &extra_args);
    NcuOptions {
        ncu: ncu.ncu.clone(),
        kernel_name: ncu.kernel_name.clone(),
        launch_skip: ncu.launch_skip,
        launch_count: ncu.launch_count,
        sample,
        target_processes_all: ncu.target_processes_all,
        extra_args,
        save_csv: ncu.save_csv.clone(),
        roofline: !ncu.no_roofline,
        source: ncu.source,
        chip: ncu.chip.clone(),
        // Machine formats own stdout; the program's output would corrupt them.
        program_output_to_stderr: !matches!(report.format, Format::Human | Format::Concise),
        expected_launches: None,
        verbose: report.gate.read.verbose,
    }
}

fn say_program_status(status: Option<i32>, program: &str) {
    match status {
        Some(0) => {}
        Some(code) => eprintln!(
            "gpulint: {program} exited with status {code}; its kernels profiled before that are linted"
        ),
        None => eprintln!(
            "gpulint: {program} was killed by a signal; its kernels profiled before that are linted"
        ),
    }
}

/// How many launches the sample will profile, from the timing pass's count of every launch:
/// for the spread, the launch numbers 1, 2, 3, 4, 8, ... each kernel reaches.
fn launches_to_profile(sample: Sample, timed: &ingest::Profile) -> u64 {
    match sample {
        Sample::Spread => by_kernel(timed)
            .iter()
            .map(|(_, entries)| {
                let launched: u64 = entries.iter().map(|l| l.count).sum();
                Sample::spread_invocations()
                    .take_while(|&n| n <= launched)
                    .count() as u64
            })
            .sum(),
        Sample::PerConfig(n) => timed.launches.iter().map(|l| l.count.min(n)).sum(),
    }
}

/// Reads what ncu profiled, linting as it goes; with a timing pass, counts and durations
/// come from it first, and the lint after.
fn load_profiled(
    info: &crate::ncu::RunInfo,
    timed: Option<&ingest::Profile>,
    report: &ReportArgs,
    linter: &mut rules::engine::Linter,
) -> Result<Vec<ingest::Profile>> {
    let csv = info.csv.path().display().to_string();
    let inputs = [(csv.as_str(), info.name.as_str())];
    let Some(timed) = timed else {
        return load_as(
            &inputs,
            report.per_launch,
            report.gate.read.jobs,
            Some(linter),
        );
    };
    let mut profiles = load_as(&inputs, false, report.gate.read.jobs, None)?;
    profiles[0].profiled_launches = Some(profiles[0].launch_count());
    let note = apply_timing(&mut profiles[0], timed);
    profiles[0].notes.push(note);
    for l in &profiles[0].launches {
        linter.add(&info.name, l);
    }
    Ok(profiles)
}

/// Gives each sampled entry the launches the timing pass measured that it stands for, and
/// their mean duration, so shares and time at stake count every launch. A timed launch
/// goes to the sampled entry of its kernel most like it: its own configuration when that
/// was sampled, else the same block and the nearest grid (a spread samples few of LU's
/// 63 shrinking grids). Returns the note saying so.
fn apply_timing(sample: &mut ingest::Profile, timed: &ingest::Profile) -> String {
    // Per sampled entry: launches it stands for, their summed time, and whether every
    // one of them had a duration.
    let mut stands_for = vec![(0u64, 0.0f64, true); sample.launches.len()];
    let mut left_out = 0;
    for t in &timed.launches {
        let Some(i) = most_alike(&sample.launches, t) else {
            left_out += t.count;
            continue;
        };
        stands_for[i].0 += t.count;
        match t.metrics.get("duration_ns") {
            Some(d) => stands_for[i].1 += d * t.count as f64,
            None => stands_for[i].2 = false,
        }
    }
    for (l, &(count, time, timed_all)) in sample.launches.iter_mut().zip(&stands_for) {
        // A configuration the timing pass never saw keeps what the sample measured.
        if count == 0 {
            continue;
        }
        l.count = count;
        if timed_all {
            l.metrics.insert("duration_ns", time / count as f64);
        }
    }
    let total = timed.launch_count();
    if total >= crate::ncu::MAX_TIMED_LAUNCHES {
        return format!(
            "{}the timing pass stopped at {total} launches: later ones are not counted",
            ingest::WARNING
        );
    }
    if left_out > 0 {
        return format!(
            "{}the timing pass measured {total} launches, {left_out} of them of kernels the \
             sample did not profile: those are not counted",
            ingest::WARNING
        );
    }
    format!(
        "a timing pass measured all {total} launches; each of the {} sampled configurations \
         stands for those of its kernel most like it",
        sample.launches.len()
    )
}

/// The sampled entry of `timed`'s kernel most like it: the same grid and block, else the
/// same block and the nearest grid (by ratio of blocks), else the nearest grid.
fn most_alike(sampled: &[ingest::Launch], timed: &ingest::Launch) -> Option<usize> {
    let blocks = |g: Option<[u64; 3]>| g.map(|g| g.iter().product::<u64>().max(1) as f64);
    let distance = |l: &ingest::Launch| {
        let grids = match (blocks(l.grid), blocks(timed.grid)) {
            (Some(a), Some(b)) => (a / b).ln().abs(),
            _ => f64::INFINITY,
        };
        (l.block != timed.block, grids)
    };
    sampled
        .iter()
        .enumerate()
        .filter(|(_, l)| l.name == timed.name)
        .min_by(|(_, a), (_, b)| {
            let (a, b) = (distance(a), distance(b));
            a.0.cmp(&b.0).then(a.1.total_cmp(&b.1))
        })
        .map(|(i, _)| i)
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
        .map(|(name, configs)| format!("{} ({})", report::short_name(name), configs.len()))
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
/// times. The profiled count bounds how many times each ran; when those bounds differ,
/// names them (LU: lud_diagonal 64-127 times, the other two 32-63).
fn uneven_spread_note(profile: &ingest::Profile) -> Option<String> {
    let mut ranges: Vec<(ingest::LaunchRange, Vec<String>)> = Vec::new();
    for (name, entries) in by_kernel(profile) {
        let range = Sample::spread_launch_range(entries.iter().map(|l| l.count).sum());
        let name = report::short_name(name);
        match ranges.iter_mut().find(|(r, _)| *r == range) {
            Some((_, names)) => names.push(name),
            None => ranges.push((range, vec![name])),
        }
    }
    if ranges.len() < 2 {
        return None;
    }
    ranges.sort_by_key(|((low, _), _)| std::cmp::Reverse(*low));
    const SHOWN: usize = 4;
    let mut groups: Vec<String> = ranges
        .iter()
        .take(SHOWN)
        .map(|((low, high), names)| {
            let times = match high {
                Some(high) if high != low => format!("{low}-{high} times"),
                _ => format!("{low} time(s)"),
            };
            format!("{} {times}", names.join(", "))
        })
        .collect();
    if ranges.len() > SHOWN {
        groups.push("...".into());
    }
    Some(format!(
        "{}shares of GPU time are of the sampled launches, and the kernels ran different \
         numbers of times ({}): those launched more are understated; --time-all-launches \
         counts every launch",
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
        .map(|(name, _)| report::short_name(name))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// From the timing pass of LU on the H200 (every launch), the launches each sample
    /// profiles: 22 for the spread and 129 per configuration, as the H200 runs profiled
    /// (fixtures/h200-corpus/spread_lud.csv, sample_lud.csv).
    #[test]
    fn the_timing_pass_says_how_many_launches_a_sample_will_profile() {
        let timing = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-corpus/timing_lud.csv"
        );
        let timed = load_as(&[(timing, "timing")], false, Some(1), None).unwrap();
        assert_eq!(launches_to_profile(Sample::Spread, &timed[0]), 22);
        assert_eq!(launches_to_profile(Sample::PerConfig(3), &timed[0]), 129);
    }
}
