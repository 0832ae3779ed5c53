//! `gpulint run -- PROG` (and `gpulint PROG`): profile a program with ncu, then lint it.

use super::check::lint_and_report;
use super::every_launch;
use super::shared::{enabled_rules, load_as};
use crate::cli::{Format, NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest::{self, Sample};
use crate::ncu::NcuOptions;
use crate::report;
use crate::rules::{self, Rule};
use crate::sampling::{EveryLaunch, add_sample_notes, apply_timing, in_program_order, most_alike};

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
    let mut sample = opts.sample;
    if ncu.time_all_launches && sample.is_none() {
        return Err(crate::error::Error::new(
            "--time-all-launches times the launches a sample leaves out, and the launch filter \
             given to ncu (--ncu-arg) turns the sample off: every chosen launch is profiled already",
        ));
    }
    // ncu, the program and the chip are checked before anything runs the program.
    let prepared = crate::ncu::prepare(&opts, program)?;
    let declined = trace_declined(ncu, &config);
    // Every launch is counted first, so that the sample's progress line can say how many
    // launches it will profile and about how long that takes. A report per launch
    // (--per-launch) shows the sampled launches as they are, uncounted.
    let mut every = match sample {
        Some(_) if !report.per_launch => {
            every_launch::count(&opts, &prepared, program, report, ncu, declined)?
        }
        _ => None,
    };
    if let (Some(chosen), Some(every)) = (sample, &every) {
        sample = Some(plan_sample(
            &mut opts,
            chosen,
            every,
            report.gate.read.verbose,
        ));
    }
    let info = crate::ncu::profile(&opts, &prepared, &rules, program)?;
    say_program_status(info.program_status, &program[0]);
    if report.gate.read.verbose {
        eprintln!("gpulint: profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let timing = sample.zip(every.as_mut());
    let Loaded {
        mut profiles,
        in_program_order,
    } = load_profiled(
        &info,
        timing,
        opts.kernel_name.is_some(),
        report,
        &mut linter,
    )?;
    profiles[0].source_blocks = info.source_blocks;
    profiles[0].sample = sample;
    add_sample_notes(&mut profiles[0], sample, every.is_some());
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
    let mut outcome = linter.finish();
    if let Some(every) = every.as_ref().filter(|_| in_program_order) {
        judge_launch_shapes_on_every_launch(&mut outcome, every, &profiles[0], &rules, &ignored);
    }
    lint_and_report(&profiles, outcome, &rules, report)
}

/// Why the program is not to run under the launch tracer, when the user said so.
fn trace_declined(ncu: &NcuArgs, config: &crate::config::Config) -> Option<&'static str> {
    if ncu.no_launch_trace {
        Some("--no-launch-trace")
    } else if config.launch_trace == Some(false) {
        Some("launch-trace = false in gpulint.toml")
    } else {
        None
    }
}

/// The sample once every launch is counted (`crate::sampling`), and what the progress
/// line expects of it.
fn plan_sample(
    opts: &mut NcuOptions,
    chosen: Sample,
    every: &EveryLaunch,
    verbose: bool,
) -> Sample {
    // With -k, counts of the other kernels would weigh in the choice.
    let planned = match opts.kernel_name {
        None => crate::sampling::choose_for_time(chosen, &every.profile, verbose),
        Some(_) => chosen,
    };
    opts.sample = Some(planned);
    opts.expected_launches = Some(crate::sampling::launches_to_profile(
        planned,
        &every.profile,
    ));
    opts.traced_run_time = every.program_time;
    planned
}

/// With every launch counted, the launch-shape rules (block size, small grid, failed
/// launch) judge every launch instead of the sampled ones: a spread misses LU's last, tiny
/// grids, the count does not. A timing pass records each launch's attributes; a traced
/// launch takes them from the sampled entry most like it. Their findings replace the
/// sample's. They belong to the sample's report (the launch numbers
/// are the program's in both), at the line of the sampled launch most like theirs.
fn judge_launch_shapes_on_every_launch(
    outcome: &mut rules::engine::Outcome,
    every: &EveryLaunch,
    sampled: &ingest::Profile,
    rules: &[Rule],
    ignored: rules::engine::KernelFilter,
) {
    let shape_rules: Vec<Rule> = rules
        .iter()
        .filter(|r| r.category == "launch")
        .cloned()
        .collect();
    let mut linter = rules::engine::Linter::new(&shape_rules, ignored, true);
    for l in &every.profile.launches {
        let like = most_alike(&sampled.launches, l).map(|i| &sampled.launches[i]);
        let mut launch = ingest::Launch {
            line: like.map_or(0, |s| s.line),
            ..l.clone()
        };
        // A traced launch has only its shape and duration: the rest comes from the sampled
        // entry most like it. One no sampled entry is like is not judged.
        if every.traced() {
            let Some(like) = like else { continue };
            launch.metrics = every_launch::traced_launch_metrics(l, like);
        }
        linter.add(&sampled.file, &launch);
    }
    let every = linter.finish();
    let is_shape = |slug: &str| shape_rules.iter().any(|r| r.slug == slug);
    outcome.findings.retain(|f| !is_shape(&f.rule));
    outcome.findings.extend(every.findings);
    outcome.skips.retain(|s| !is_shape(&s.rule));
    outcome.skips.extend(every.skips);
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
        traced_run_time: None,
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

/// Reads what ncu profiled, linting as it goes; with every launch counted, the sampled
/// launches are numbered in the program's order and given the counts and durations
/// counted first, and linted after. With `-k` (`kernel_filter`), the launches of other
/// kernels are left out of the count, as they are of the sample.
fn load_profiled(
    info: &crate::ncu::RunInfo,
    timing: Option<(Sample, &mut EveryLaunch)>,
    kernel_filter: bool,
    report: &ReportArgs,
    linter: &mut rules::engine::Linter,
) -> Result<Loaded> {
    let csv = info.csv.path().display().to_string();
    let inputs = [(csv.as_str(), info.name.as_str())];
    let jobs = report.gate.read.jobs;
    let Some((sample, every)) = timing else {
        let profiles = load_as(&inputs, report.per_launch, jobs, Some(linter))?;
        return Ok(Loaded {
            profiles,
            in_program_order: false,
        });
    };
    let mut profiles = load_as(&inputs, true, jobs, None)?;
    let mut launches = std::mem::take(&mut profiles[0].launches);
    if every.traced() {
        let unpaired = every_launch::adopt_sampled_names(&mut every.profile.launches, &launches);
        if kernel_filter {
            every.retain_kernels(&launches);
        }
        if !unpaired.is_empty() {
            profiles[0].notes.push(format!(
                "{}no kernel of the launch trace pairs with the sampled {} (a kernel's first \
                 launch, its function name, grid and block): {} not counted",
                ingest::WARNING,
                unpaired.join(", "),
                if unpaired.len() == 1 {
                    "its launches are"
                } else {
                    "their launches are"
                }
            ));
        }
    }
    let renumbered = in_program_order(&mut launches, every, sample);
    // Each configuration's sampled launches count by their time (crate::fold).
    let mut folder = crate::fold::Folder::time_weighted();
    for l in launches {
        folder.add(l);
    }
    profiles[0].launches = folder.finish();
    profiles[0].profiled_launches = Some(profiles[0].launch_count());
    profiles[0].every_launch_counted_by = Some(every.counter());
    let note = apply_timing(&mut profiles[0], every);
    profiles[0].notes.push(note);
    for l in &profiles[0].launches {
        linter.add(&info.name, l);
    }
    let in_program_order = renumbered.is_ok();
    profiles[0].notes.extend(renumbered.err());
    Ok(Loaded {
        profiles,
        in_program_order,
    })
}

/// What [`load_profiled`] read, and whether the sampled launches carry the program's
/// launch numbers (only then do launch-shape rules judge every counted launch).
struct Loaded {
    profiles: Vec<ingest::Profile>,
    in_program_order: bool,
}
