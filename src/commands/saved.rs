//! `gpulint check FILE` on what `gpulint run --save-csv FILE` kept (the export, its launch
//! trace and the sample's record, `crate::saved_run`): the run's own report.

use super::Output;
use super::run::{Judged, Loaded, finish_report};
use super::shared::{gate_rules, load_as};
use crate::cli::ReportArgs;
use crate::error::Result;
use crate::ingest;
use crate::rules::{self, Rule};
use crate::sample::Sample;
use crate::sampling::EveryLaunch;

/// `gpulint check FILE` on an export `gpulint run --save-csv FILE` wrote, with the launch
/// trace and the sample's record beside it: the run's own report, from its files.
pub fn report_saved_run(
    csv: &str,
    trace: &str,
    sample: Sample,
    kernel_filter: bool,
    report: &ReportArgs,
    out: &mut Output,
) -> Result<u8> {
    let (rules, config) = gate_rules(&report.gate)?;
    let text = std::fs::read_to_string(trace)
        .map_err(|e| crate::error::Error::in_file(trace, format!("cannot read: {e}")))?;
    let mut every = EveryLaunch {
        profile: ingest::trace::read(&text, trace)?,
        program_time: None,
    };
    if report.gate.read.verbose {
        crate::note!("{csv}: read with the launch trace gpulint run kept beside it ({trace})");
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let loaded = load_saved(
        csv,
        sample.clone(),
        &mut every,
        kernel_filter,
        report,
        &mut linter,
    )?;
    let judged = Judged {
        outcome: linter.finish(),
        rules: &rules,
        ignored: &ignored,
    };
    finish_report(loaded, Some(sample), Some(&every), judged, report, out)
}

/// As [`load_profiled`] does for a run's export, for one saved beside its trace.
fn load_saved(
    csv: &str,
    sample: Sample,
    every: &mut EveryLaunch,
    kernel_filter: bool,
    report: &ReportArgs,
    linter: &mut rules::engine::Linter,
) -> Result<Loaded> {
    let mut profiles = load_as(&[(csv, csv)], true, report.gate.read.jobs, None)?;
    let (sample, in_program_order) = crate::sampling::stand_for_every_launch(
        &mut profiles[0],
        every,
        sample,
        kernel_filter,
        &mut |l| linter.add(csv, l),
    );
    Ok(Loaded {
        profiles,
        in_program_order,
        sample,
    })
}
