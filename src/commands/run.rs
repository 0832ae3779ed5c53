//! `gpulint run -- PROG` (and `gpulint PROG`): profile a program with ncu, then lint it.

use super::check::lint_and_report;
use super::shared::{enabled_rules, load_as};
use crate::cli::{Format, NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest;
use crate::ncu::NcuOptions;
use crate::report;
use crate::rules::{self, Rule};

pub fn run_program(ncu: &NcuArgs, report: &ReportArgs, program: &[String]) -> Result<u8> {
    let (rules, config) = enabled_rules(&report.selection)?;
    // ncu arguments from gpulint.toml come first, so the command line can add to them.
    let extra_args: Vec<String> = config
        .ncu_args
        .iter()
        .chain(&ncu.ncu_args)
        .cloned()
        .collect();
    let opts = ncu_options(ncu, report, extra_args);
    let per_config = opts.per_config;
    if ncu.time_all_launches && per_config.is_none() {
        return Err(crate::error::Error::new(
            "--time-all-launches times the launches a sample leaves out, and the launch filter \
             given to ncu (--ncu-arg) turns the sample off: every chosen launch is profiled already",
        ));
    }
    let info = crate::ncu::profile(&opts, &rules, program)?;
    let timing = match per_config {
        Some(_) if ncu.time_all_launches => {
            Some(crate::ncu::time_every_launch(&info.ncu, &opts, program)?)
        }
        _ => None,
    };
    say_program_status(info.program_status, &program[0]);
    if report.read.verbose {
        eprintln!("gpulint: profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let mut profiles = load_profiled(&info, timing.as_ref(), report, &mut linter)?;
    profiles[0].source_blocks = info.source_blocks;
    profiles[0].sampled_per_config = per_config;
    if let (Some(n), None) = (per_config, &timing) {
        let note = capped_kernels_note(&profiles[0], n);
        profiles[0].notes.extend(note);
    }
    if per_config.is_some() {
        let note = unbounded_kernels_note(&profiles[0]);
        profiles[0].notes.extend(note);
    }
    if report.read.verbose {
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
    let per_config = crate::ncu::sample_size(
        ncu.launches_per_config,
        ncu.all_launches,
        ncu.launch_skip,
        ncu.launch_count,
        &extra_args,
    );
    NcuOptions {
        ncu: ncu.ncu.clone(),
        kernel_name: ncu.kernel_name.clone(),
        launch_skip: ncu.launch_skip,
        launch_count: ncu.launch_count,
        per_config,
        target_processes_all: ncu.target_processes_all,
        extra_args,
        save_csv: ncu.save_csv.clone(),
        roofline: !ncu.no_roofline,
        source: ncu.source,
        chip: ncu.chip.clone(),
        // Machine formats own stdout; the program's output would corrupt them.
        program_output_to_stderr: !matches!(report.format, Format::Human | Format::Concise),
        verbose: report.read.verbose,
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

/// Reads what ncu profiled, linting as it goes; with a timing pass, counts and durations
/// come from it first, and the lint after.
fn load_profiled(
    info: &crate::ncu::RunInfo,
    timing: Option<&tempfile::NamedTempFile>,
    report: &ReportArgs,
    linter: &mut rules::engine::Linter,
) -> Result<Vec<ingest::Profile>> {
    let csv = info.csv.path().display().to_string();
    let inputs = [(csv.as_str(), info.name.as_str())];
    let Some(times) = timing else {
        return load_as(&inputs, report.per_launch, report.read.jobs, Some(linter));
    };
    let mut profiles = load_as(&inputs, false, report.read.jobs, None)?;
    profiles[0].profiled_launches = Some(profiles[0].launch_count());
    let times = times.path().display().to_string();
    let timed = load_as(&[(times.as_str(), "timing")], false, report.read.jobs, None)?;
    let note = apply_timing(&mut profiles[0], &timed[0]);
    profiles[0].notes.push(note);
    for l in &profiles[0].launches {
        linter.add(&info.name, l);
    }
    Ok(profiles)
}

/// Gives each sampled configuration the launch count and mean duration the timing pass
/// measured over every launch, so shares and time at stake count every launch. Returns
/// the note saying so.
fn apply_timing(sample: &mut ingest::Profile, timed: &ingest::Profile) -> String {
    let key = |l: &ingest::Launch| (l.name.clone(), l.grid, l.block);
    let times: std::collections::HashMap<_, (u64, Option<f64>)> = timed
        .launches
        .iter()
        .map(|l| (key(l), (l.count, l.metrics.get("duration_ns").copied())))
        .collect();
    let mut matched = 0;
    for l in &mut sample.launches {
        if let Some(&(count, duration)) = times.get(&key(l)) {
            l.count = count;
            if let Some(d) = duration {
                l.metrics.insert("duration_ns", d);
            }
            matched += 1;
        }
    }
    let total = timed.launch_count();
    if total >= crate::ncu::MAX_TIMED_LAUNCHES {
        return format!(
            "{}the timing pass stopped at {total} launches: later ones are not counted",
            ingest::WARNING
        );
    }
    format!(
        "a timing pass measured all {total} launches: {matched} of {} sampled configurations \
         now count every launch",
        sample.launches.len()
    )
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
