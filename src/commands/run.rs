//! `gpulint run -- PROG` (and `gpulint PROG`): profile a program with ncu, then lint it.

use super::Output;
use super::check::lint_and_report;
use super::shared::{gate_rules, load_as};
use crate::cli::{NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest;
use crate::rules::{self, Rule};
use crate::sample::{Sample, SampleInfo};
use crate::sampling::{EveryLaunch, add_sample_notes};

pub fn run_program(
    ncu: &NcuArgs,
    report: &ReportArgs,
    program: &[String],
    out: &mut Output,
) -> Result<u8> {
    let (rules, config) = gate_rules(&report.gate)?;
    let mut opts = ncu_options(ncu, report, &config)?;
    let mut sample = opts.sample.clone();
    // ncu, the program and the chip are checked before anything runs the program.
    let prepared = crate::ncu::prepare(&opts, program)?;
    // Every launch is counted first, so that the sample's progress line can say how many
    // launches it will profile and about how long that takes. A report per launch
    // (--per-launch) shows the sampled launches as they are, uncounted.
    let mut every = match &sample {
        Some(_) if !report.per_launch => {
            let settings = count_settings(ncu, report, trace_declined(ncu, &config));
            crate::sampling::count(&settings, &opts, &prepared, program)?
        }
        _ => None,
    };
    if let (Some(chosen), Some(every)) = (sample.clone(), &every) {
        sample = Some(crate::sampling::plan_sample(
            &mut opts,
            chosen,
            every,
            ncu.budget(every.program_time),
            report.gate.read.verbose,
        ));
    }
    // With the kernels named, --source is a pass of its own after the sample, on the
    // kernels whose findings have a line cause only: in the sample's own run, the source
    // counters cost about 0.5 s a launch, and their pages took 4.3 s to import for 5
    // kernels, where the pass took 4.2 s in all for 2 (on the H200,
    // lab/runs/2026-12-02-lines-and-pairs.txt).
    let source_pass =
        opts.source && sample.as_ref().is_some_and(Sample::names_kernels) && every.is_some();
    let main_pass = crate::ncu::NcuOptions {
        source: opts.source && !source_pass,
        ..opts.clone()
    };
    let stopping = crate::ncu::say_whether_it_stops(&opts, &program[0]);
    let keys = rules::metric_keys(&rules);
    let info = crate::ncu::profile(&main_pass, &prepared, &keys, program)?;
    if !stopping || info.program_status == Some(0) {
        crate::ncu::say_program_status(info.program_status, &program[0]);
    }
    if report.gate.read.verbose {
        crate::note!("profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let kernel_filter = opts.kernel_name.is_some();
    let timing = sample.clone().zip(every.as_mut());
    let loaded = load_profiled(&info, timing, kernel_filter, report, &mut linter)?;
    if let (Some(csv), Some(s), Some(e)) = (&opts.save_csv, &sample, &every)
        && e.traced()
    {
        crate::saved_run::write(csv, s, kernel_filter)?;
    }
    let mut loaded = loaded;
    loaded.profiles[0].source_blocks = info.source_blocks;
    let outcome = linter.finish();
    if let (true, Some(e)) = (source_pass, &every) {
        let pass = crate::sampling::source_pass::SourcePass {
            opts: &opts,
            prepared: &prepared,
            program,
            rules_dir: report.gate.selection.rules.as_deref(),
        };
        loaded.profiles[0].source_blocks =
            pass.source_lines(&outcome.findings, &rules, &e.profile, &loaded.profiles[0])?;
    }
    let judged = Judged {
        outcome,
        rules: &rules,
        ignored: &ignored,
    };
    finish_report(loaded, sample, every.as_ref(), judged, report, out)
}

/// ncu's options: those from gpulint.toml first, so the command line can add to them.
fn ncu_options(
    ncu: &NcuArgs,
    report: &ReportArgs,
    config: &crate::config::Config,
) -> Result<crate::ncu::NcuOptions> {
    let extra_args: Vec<String> = config
        .ncu_args
        .iter()
        .chain(&ncu.ncu_args)
        .cloned()
        .collect();
    let opts = ncu.ncu_options(report, extra_args);
    if ncu.time_all_launches && opts.sample.is_none() {
        return Err(crate::error::Error::new(
            "--time-all-launches times the launches a sample leaves out, and the launch filter \
             given to ncu (--ncu-arg) turns the sample off: every chosen launch is profiled already",
        ));
    }
    Ok(opts)
}

/// What the rules made of the profile, with the rules and the config's kernel filter.
pub(super) struct Judged<'a> {
    pub(super) outcome: rules::engine::Outcome,
    pub(super) rules: &'a [Rule],
    pub(super) ignored: &'a dyn Fn(&str, &Rule) -> bool,
}

/// The end the run and a saved run share: the sample's notes, launch shapes judged on
/// every counted launch, and the report.
pub(super) fn finish_report(
    loaded: Loaded,
    sample: Option<Sample>,
    every: Option<&EveryLaunch>,
    judged: Judged,
    report: &ReportArgs,
    out: &mut Output,
) -> Result<u8> {
    let Judged {
        outcome,
        rules,
        ignored,
    } = judged;
    let Loaded {
        mut profiles,
        in_program_order,
        sample: sample_info,
    } = loaded;
    add_sample_notes(&mut profiles[0], sample.as_ref(), every.is_some());
    if report.gate.read.verbose {
        crate::sampling::say_replay_passes(&profiles[0]);
    }
    let mut outcome = outcome;
    if let Some(every) = every.filter(|_| in_program_order) {
        crate::sampling::judge_launch_shapes_on_every_launch(
            &mut outcome,
            every,
            &profiles[0],
            rules,
            ignored,
        );
    }
    // Without every launch counted, the report still says which launches the sample took.
    let sample_info = SampleInfo {
        sample,
        ..sample_info
    };
    lint_and_report(&profiles, outcome, rules, report, sample_info, out)
}

/// How every launch is counted, from the options.
fn count_settings<'a>(
    ncu: &'a NcuArgs,
    report: &ReportArgs,
    declined: Option<&'a str>,
) -> crate::sampling::CountSettings<'a> {
    crate::sampling::CountSettings {
        declined,
        time_all_launches: ncu.time_all_launches,
        window: ncu.window,
        save_trace: ncu.save_trace.as_deref(),
        save_csv: ncu.save_csv.as_deref(),
        jobs: report.gate.read.jobs,
        verbose: report.gate.read.verbose,
    }
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
            sample: SampleInfo::default(),
        });
    };
    let mut profiles = load_as(&inputs, true, jobs, None)?;
    let (sample, in_program_order) = crate::sampling::stand_for_every_launch(
        &mut profiles[0],
        every,
        sample,
        kernel_filter,
        &mut |l| linter.add(&info.name, l),
    );
    Ok(Loaded {
        profiles,
        in_program_order,
        sample,
    })
}

/// What [`load_profiled`] read, and whether the sampled launches carry the program's
/// launch numbers (only then do launch-shape rules judge every counted launch).
pub(super) struct Loaded {
    pub(super) profiles: Vec<ingest::Profile>,
    pub(super) in_program_order: bool,
    /// What the reports say of the sample, when every launch was counted.
    pub(super) sample: SampleInfo,
}
