//! `gpulint check FILE` on what `gpulint run --save-csv FILE` kept (the export, its launch
//! trace and the sample's record, `crate::profile::saved_run`): the run's own report.

use super::Output;
use super::lint::{Judged, finish_report};
use super::shared::gate_rules;
use crate::cli::ReportArgs;
use crate::error::Result;
use crate::ingest;
use crate::profile::Loaded;
use crate::profile::sample::Sample;
use crate::profile::sampling::EveryLaunch;
use crate::rules::{self, Rule};

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
        cuda_processes: ingest::trace::process_blocks(&text),
        counted_in_run: None,
    };
    if report.gate.read.verbose {
        crate::note!("{csv}: read with the launch trace gpulint run kept beside it ({trace})");
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let profiles = crate::load::load_as(&[(csv, csv)], true, report.gate.read.jobs, None)?;
    let loaded = Loaded::with_count(
        profiles,
        &mut every,
        sample.clone(),
        kernel_filter,
        &mut |l| linter.add(csv, l),
    );
    let judged = Judged {
        outcome: linter.finish(),
        rules: &rules,
        ignored: &ignored,
    };
    finish_report(loaded, Some(sample), Some(&every), judged, report, out)
}
