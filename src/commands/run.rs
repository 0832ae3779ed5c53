//! `gpulint run -- PROG` (and `gpulint PROG`): profile a program with ncu, then lint it.
//! The options become the profiling stage's settings (`crate::profile`), which runs it.

use super::Output;
use super::lint::{Judged, finish_report};
use super::shared::gate_rules;
use crate::cli::{NcuArgs, ReportArgs};
use crate::error::Result;
use crate::profile::{self, sampling::CountSettings};
use crate::rules::{self, Rule};

pub fn run_program(
    ncu: &NcuArgs,
    report: &ReportArgs,
    program: &[std::ffi::OsString],
    out: &mut Output,
) -> Result<u8> {
    let (rules, config) = gate_rules(&report.gate)?;
    let settings = profile::Settings {
        ncu: ncu_options(ncu, report, &config)?,
        count: count_settings(ncu, report, trace_declined(ncu, &config)),
        coverage: ncu.coverage / 100.0,
        max_launches: ncu.max_launches,
        per_launch: report.per_launch,
        jobs: report.gate.read.jobs,
        rules_dir: report.gate.selection.rules.as_deref(),
        overlap: ncu.overlap,
        one_run: ncu.one_run_asked_by(),
    };
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let profiled = profile::profile_program(settings, program, &rules, linter)?;
    let judged = Judged {
        outcome: profiled.outcome,
        rules: &rules,
        ignored: &ignored,
    };
    let failed = (profiled.loaded.sample.program_end).is_some_and(|e| e.failed());
    let code = finish_report(
        profiled.loaded,
        profiled.sample,
        profiled.every.as_ref(),
        judged,
        report,
        out,
    )?;
    // A program that failed gave a report of part of its run: a gate must not pass on it.
    Ok(if failed { PROGRAM_FAILED } else { code })
}

/// The exit status of a run whose program failed (a status other than 0, or a signal),
/// whatever the findings: `--exit-zero` covers findings only.
pub const PROGRAM_FAILED: u8 = 3;

/// ncu's options: those from gpulint.toml first, so the command line can add to them.
fn ncu_options(
    ncu: &NcuArgs,
    report: &ReportArgs,
    config: &crate::config::Config,
) -> Result<profile::ncu::NcuOptions> {
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

/// How every launch is counted, from the options.
fn count_settings<'a>(
    ncu: &'a NcuArgs,
    report: &ReportArgs,
    declined: Option<&'a str>,
) -> CountSettings<'a> {
    CountSettings {
        declined,
        time_all_launches: ncu.time_all_launches,
        window: ncu.window,
        save_trace: ncu.save_trace.as_deref(),
        save_csv: ncu.save_csv.as_deref(),
        jobs: report.gate.read.jobs,
        // Set once ncu's run has started.
        ncu_run_beside: false,
        // Asked for once the metrics are planned.
        counters: None,
        one_run_asked_by: None,
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
