//! The report every linting command ends with: its data built (`pipeline::build`), then
//! rendered in the format asked for, and the exit code; for a profiled run or a saved
//! one, the sample concluded first.

use super::Output;
use super::shared::{gpu_override, use_color, write_output};
use crate::cli::{FailOn, Format, ReportArgs};
use crate::error::Result;
use crate::ingest::{self, Profile};
use crate::pipeline::{self, Built};
use crate::profile::Loaded;
use crate::profile::sample::Sample;
use crate::profile::sampling::EveryLaunch;
use crate::report::{self, Report};
use crate::rules::{self, Rule, Severity};

/// What the rules made of the profile, with the rules and the config's kernel filter.
pub(super) struct Judged<'a> {
    pub(super) outcome: rules::engine::Outcome,
    pub(super) rules: &'a [Rule],
    pub(super) ignored: &'a dyn Fn(&str, &Rule) -> bool,
}

/// The end the run and a saved run share: the sample concluded (its notes, launch shapes
/// judged on every counted launch), then the report.
pub(super) fn finish_report(
    loaded: Loaded,
    sample: Option<Sample>,
    every: Option<&EveryLaunch>,
    judged: Judged,
    report: &ReportArgs,
    out: &mut Output,
) -> Result<u8> {
    let Judged {
        mut outcome,
        rules,
        ignored,
    } = judged;
    let verbose = report.gate.read.verbose;
    let (profiles, sample_info) =
        loaded.conclude(sample, every, &mut outcome, rules, ignored, verbose);
    lint_and_report(&profiles, outcome, rules, report, sample_info, out)
}

/// The report of what the linter found (`pipeline::build`), rendered, and the exit code.
pub fn lint_and_report(
    profiles: &[Profile],
    outcome: rules::engine::Outcome,
    rules: &[Rule],
    args: &ReportArgs,
    sample: crate::profile::sample::SampleInfo,
    out: &mut Output,
) -> Result<u8> {
    let settings = pipeline::Settings {
        unprofiled_ns: sample.unprofiled_ns,
        traced_objects: sample.traced_objects.clone(),
        warm_replay: matches!(
            sample.sample,
            Some(crate::profile::sample::Sample::Traced(_))
        ),
        ..super::shared::analysis_settings(&args.gate.selection, args.gate.min_share)
    };
    let view = pipeline::View {
        gpu: gpu_override(args.gpu.as_deref())?,
        per_launch: args.per_launch,
        verbose: args.gate.read.verbose,
    };
    let Built {
        mut analysis,
        rooflines,
        kernels,
    } = pipeline::build(profiles, outcome, rules, &settings, view)?;
    if let Some(path) = &args.svg {
        let placed: Vec<_> = (profiles.iter().flat_map(|p| &p.launches))
            .zip(&rooflines)
            .filter_map(|(l, r)| r.clone().map(|r| (l, r)))
            .collect();
        let inputs: Vec<String> = profiles.iter().map(|p| p.file.clone()).collect();
        write_svg(path, &placed, &inputs)?;
    }
    // Cards are for readers: JSON, the machine contract, keeps a finding per kernel. After
    // the roofline, which reads each kernel's own findings.
    if args.format != Format::Json {
        crate::report::cards::one_card_per_cause(&mut analysis.findings);
    }
    let report = Report {
        profiles,
        findings: &analysis.findings,
        skips: &analysis.skips,
        coverage: &analysis.coverage,
        rooflines: &rooflines,
        kernels: &kernels,
        origins: &analysis.origins,
        helpers: &analysis.helpers,
        gpu_time_ns: analysis.gpu_time_ns,
        source_root: args
            .source_root
            .as_ref()
            .map(std::path::PathBuf::from)
            .or_else(|| std::env::current_dir().ok()),
        top: args.top,
        color: use_color(args.color, out),
        verbose: args.gate.read.verbose,
        sample,
    };
    render(&report, args.format, rules, out)?;
    let too_thin = judged_too_little(&analysis.coverage, args.min_judged);
    Ok(exit_code(&analysis.findings, args.fail_on, args.exit_zero).max(u8::from(too_thin)))
}

/// `--min-judged PCT`: whether fewer rules could judge than asked (said on stderr).
fn judged_too_little(coverage: &rules::engine::Coverage, min_pct: Option<f64>) -> bool {
    let (Some(min), Some(pct)) = (min_pct, coverage.judged_pct()) else {
        return false;
    };
    if pct + 1e-9 >= min {
        return false;
    }
    crate::note!(
        "failing: {pct:.0}% of the rules could judge, under --min-judged {min}: {}",
        coverage.summary().unwrap_or_default()
    );
    true
}

/// Writes the report in its format to the command's output.
fn render(report: &Report, format: Format, rules: &[Rule], out: &mut Output) -> Result<()> {
    out.emit_with(|w| match format {
        Format::Human => report::human::write(report, w),
        Format::Concise => report::concise::write(report, w),
        Format::Json => report::json::write(report, w),
        Format::Markdown => report::markdown::write(report, w),
        Format::Github => report::github::write(report, w),
        Format::Sarif => report::sarif::write(report, rules, w),
        Format::Html => report::html::write(report, w),
    })
}

/// 1 when a finding is at or above `--fail-on`, unless `--exit-zero`.
fn exit_code(findings: &[crate::rules::engine::Finding], fail_on: FailOn, exit_zero: bool) -> u8 {
    let threshold = match fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    let failed = threshold.is_some_and(|t| findings.iter().any(|f| f.severity >= t));
    u8::from(failed && !exit_zero)
}

/// Writes the roofline chart, never over an input.
pub(super) fn write_svg(
    path: &str,
    placed: &[(&ingest::Launch, crate::roofline::Roofline)],
    inputs: &[String],
) -> Result<()> {
    let points: Vec<crate::report::roofline_svg::Point> = placed
        .iter()
        .map(|(l, r)| crate::report::roofline_svg::Point {
            name: report::short_name(&l.name),
            launch: l.id,
            roof: r,
        })
        .collect();
    write_output(
        path,
        crate::report::roofline_svg::render(&points).as_bytes(),
        inputs,
        "chart",
    )
}
