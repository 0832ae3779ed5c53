//! The report every linting command ends with: the findings analysed, the report
//! rendered, and the exit code; for a profiled run or a saved one, the sample concluded
//! first.

use std::io::Write;

use super::Output;
use super::shared::{gpu_override, use_color, write_output};
use crate::analysis::analyze;
use crate::cli::{FailOn, Format, ReportArgs};
use crate::error::{Error, Result};
use crate::ingest::{self, Profile};
use crate::profile::Loaded;
use crate::profile::sample::Sample;
use crate::profile::sampling::EveryLaunch;
use crate::report::{self, Report};
use crate::rules::COLLECT_HINT;
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

/// Analyses what the linter found, prints the report, and picks the exit code.
pub fn lint_and_report(
    profiles: &[Profile],
    outcome: rules::engine::Outcome,
    rules: &[Rule],
    args: &ReportArgs,
    sample: crate::profile::sample::SampleInfo,
    out: &mut Output,
) -> Result<u8> {
    let settings = crate::analysis::Settings {
        unprofiled_ns: sample.unprofiled_ns,
        traced_objects: sample.traced_objects.clone(),
        ..super::shared::analysis_settings(&args.gate.selection, args.gate.min_share)
    };
    if profiles.len() > 1 {
        crate::note!(
            "{} files are one report: their launches are counted together, and each kernel's \
             share of GPU time is of all of them (a file each: one command per file)",
            profiles.len()
        );
    }
    let mut analysis = analyze(profiles, outcome, rules, &settings)?;
    if args.gate.read.verbose {
        print_verbose(profiles, &analysis.skips);
    }
    refuse_unjudged(profiles, &analysis.coverage, rules)?;
    for p in profiles {
        for w in p.warnings() {
            crate::warning!("{}: {w}", crate::printable::printable(&p.file));
        }
    }
    let gpu = gpu_override(args.gpu.as_deref())?;
    super::shared::warn_gpu_mismatch(gpu, profiles);
    let (rooflines, kernels) = roofline(profiles, args, gpu, rules, &analysis.findings)?;
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

/// Each launch placed on the roofline (and the chart written, with `--svg`), and the
/// kernel table's rows: their tags read the findings as the linter left them.
fn roofline(
    profiles: &[Profile],
    args: &ReportArgs,
    gpu: Option<&'static crate::roofline::gpus::GpuPeaks>,
    rules: &[Rule],
    findings: &[rules::engine::Finding],
) -> Result<(Vec<Option<crate::roofline::Roofline>>, Vec<KernelRow>)> {
    let found = reported(rules, findings, false);
    let bars = bars_of(rules, &found);
    let rooflines: Vec<_> = profiles
        .iter()
        .flat_map(|p| p.launches.iter())
        .map(|l| crate::roofline::place_with(l, gpu, &bars))
        .collect();
    if let Some(path) = &args.svg {
        let placed: Vec<_> = profiles
            .iter()
            .flat_map(|p| &p.launches)
            .zip(&rooflines)
            .filter_map(|(l, r)| r.clone().map(|r| (l, r)))
            .collect();
        let inputs: Vec<String> = profiles.iter().map(|p| p.file.clone()).collect();
        write_svg(path, &placed, &inputs)?;
    }
    let kernels = kernel_rows(profiles, args.per_launch, gpu, rules, findings);
    Ok((rooflines, kernels))
}

/// The roofline's bars from the enabled rules' parameters, and their verdicts.
pub(super) fn bars_of<'a>(
    rules: &[Rule],
    verdict: crate::roofline::Verdict<'a>,
) -> crate::roofline::Bars<'a> {
    crate::roofline::Bars::with(
        |slug, name| {
            rules
                .iter()
                .find(|r| r.slug == slug)
                .and_then(|r| r.params.get(name).copied())
        },
        verdict,
    )
}

/// The roofline's verdict on the bounds rules name (latency, the load/store pipe, issue,
/// the pipes, atomics): the linter's own findings, so that the chart and the findings
/// never disagree (one judge of one verdict). A one-block LU step is latency-bound, and
/// its finding is small-grid, which `explains` latency-bound: the engine judged both.
/// A launch is matched as [`rules::engine::Finding::covers_in_any_file`] matches it (a
/// `Launch` does not carry its file); with `whole_kernel`, for a view of a kernel's
/// configurations merged, a finding on any of them counts. `None` for a rule not enabled.
pub(super) fn reported<'a>(
    rules: &'a [Rule],
    findings: &'a [rules::engine::Finding],
    whole_kernel: bool,
) -> impl Fn(&str, &crate::ingest::Launch) -> Option<bool> + 'a {
    move |slug, l| {
        rules.iter().any(|r| r.slug == slug).then(|| {
            findings.iter().any(|f| {
                (f.rule == slug || f.explains.iter().any(|r| r == slug))
                    && if whole_kernel {
                        f.kernel == l.name
                    } else {
                        f.covers_in_any_file(l)
                    }
            })
        })
    }
}

/// Never a clean report for a file nothing could be judged on; and a selection of rules
/// none of which applies is said as such, not blamed on the export.
fn refuse_unjudged(
    profiles: &[Profile],
    coverage: &rules::engine::Coverage,
    rules: &[Rule],
) -> Result<()> {
    let launches: u64 = profiles.iter().map(Profile::launch_count).sum();
    let lint_rules: Vec<&Rule> = rules.iter().filter(|r| !r.diff_only).collect();
    if lint_rules.is_empty() {
        return Err(Error::new(
            "the rules selected are only the regression gate (GL900), which `gpulint diff` \
             runs against a baseline: select a lint rule for this command",
        ));
    }
    if !coverage.judged.is_empty() || launches == 0 {
        return Ok(());
    }
    if coverage.not_judged.is_empty() {
        let why: Vec<String> = lint_rules
            .iter()
            .map(|r| match r.judges_failed_launches {
                true => format!("{} judges only launches that failed, and none did", r.slug),
                false => format!("{} applies to no launch here", r.slug),
            })
            .collect();
        crate::note!(
            "note: none of the selected rules applies to these {launches} launch(es): {}",
            why.join("; ")
        );
        return Ok(());
    }
    // A launch trace holds launch shapes, durations and origins by design: read for those,
    // not judged by the metric rules.
    if profiles
        .iter()
        .all(|p| p.page == crate::ingest::Page::Trace)
    {
        crate::note!(
            "note: a launch trace has launch shapes, durations and the objects that \
             launched the kernels; the rules that read ncu's metrics need a profile (`gpulint run`)"
        );
        return Ok(());
    }
    let files: Vec<&str> = profiles.iter().map(|p| p.file.as_str()).collect();
    // No ncu section gives what only the launch trace has.
    let lint_rules: Vec<&Rule> = lint_rules
        .into_iter()
        .filter(|r| r.launch_trace_key().is_none())
        .collect();
    let (sections, helped) = sections_that_would_judge(profiles, &lint_rules);
    let by_section = if sections.is_empty() {
        String::new()
    } else {
        let flags: Vec<String> = sections.iter().map(|s| format!("--section {s}")).collect();
        format!(
            "; ncu's `{}` would let {helped} of the {} rules judge",
            flags.join(" "),
            lint_rules.len()
        )
    };
    Err(Error::new(format!(
        "{}: no rule could judge any of the {launches} launch(es): the export lacks the metrics they read \
         (--verbose lists them){by_section}; export with `--metrics $(gpulint metrics)` or use `gpulint run` \
         for all of them",
        files.join(", ")
    )))
}

/// The ncu sections that would give the rules what the first launch lacks, and how many
/// rules they would let judge (through a rule's own check or its fallback).
fn sections_that_would_judge(profiles: &[Profile], rules: &[&Rule]) -> (Vec<&'static str>, usize) {
    let Some(launch) = profiles.iter().flat_map(|p| p.launches.iter()).next() else {
        return (Vec::new(), 0);
    };
    let sections_for = |reads: &[String]| -> Option<Vec<&'static str>> {
        let mut all = Vec::new();
        for key in reads
            .iter()
            .filter(|k| !launch.metrics.contains_key(k.as_str()))
        {
            all.extend(crate::metrics::sections_giving(key)?);
        }
        Some(all)
    };
    let mut sections = Vec::new();
    let mut helped = 0;
    for rule in rules {
        let needed = sections_for(&rule.reads)
            .or_else(|| rule.fallback.as_ref().and_then(|f| sections_for(&f.reads)));
        if let Some(needed) = needed {
            helped += 1;
            sections.extend(needed);
        }
    }
    sections.sort_unstable();
    sections.dedup();
    (sections, helped)
}

/// A kernel table's row: the kernel's launches merged, and its place on the roofline.
pub(super) type KernelRow = (crate::fold::KernelView, Option<crate::roofline::Roofline>);

/// One row per kernel over its configurations (per launch with `--per-launch`), with
/// the roofline of the whole, its tags from the kernel's findings (`reported`).
pub(super) fn kernel_rows(
    profiles: &[Profile],
    per_launch: bool,
    gpu: Option<&'static crate::roofline::gpus::GpuPeaks>,
    rules: &[Rule],
    findings: &[rules::engine::Finding],
) -> Vec<KernelRow> {
    let (one, whole) = (
        reported(rules, findings, false),
        reported(rules, findings, true),
    );
    let (bars_one, bars_whole) = (bars_of(rules, &one), bars_of(rules, &whole));
    crate::fold::kernel_views(
        profiles
            .iter()
            .flat_map(|p| p.launches.iter().map(|l| (p.file.as_str(), l))),
        per_launch,
    )
    .into_iter()
    .map(|v| {
        let bars = if v.configurations > 1 {
            &bars_whole
        } else {
            &bars_one
        };
        let roof = crate::roofline::place_with(&v.entry, gpu, bars);
        (v, roof)
    })
    .collect()
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

fn print_verbose(profiles: &[Profile], skips: &[rules::engine::Skip]) {
    let mut err = std::io::stderr().lock();
    for p in profiles {
        let _ = writeln!(
            err,
            "gpulint: {}: {}, {} launch(es), {} kernel configuration(s)",
            crate::printable::printable(&p.file),
            p.page.describe(),
            p.launch_count(),
            p.configurations()
        );
        for note in p.notes.iter().filter(|n| !n.starts_with(ingest::WARNING)) {
            let _ = writeln!(
                err,
                "gpulint: {}: {note}",
                crate::printable::printable(&p.file)
            );
        }
    }
    // One line per rule and reason, so a 10,000-launch profile does not print 10,000
    // lines: the first launch of each kernel, and how many launches in all.
    let mut grouped: Vec<(&str, &str, Vec<u64>, u64)> = Vec::new();
    for s in skips {
        match grouped
            .iter_mut()
            .find(|(r, why, _, _)| *r == s.rule && *why == s.reason)
        {
            Some((_, _, ids, n)) => {
                ids.push(s.launch);
                *n += s.launch_count;
            }
            None => grouped.push((&s.rule, &s.reason, vec![s.launch], s.launch_count)),
        }
    }
    // A details page shows each section's headline values, not every metric the report
    // collected: the first fix is the same report's raw page, not another collection.
    let details_only = profiles.iter().all(|p| p.page == ingest::Page::Details);
    for (rule, why, ids, n) in grouped {
        let why = if details_only {
            why.replace(COLLECT_HINT, RAW_PAGE_HINT)
        } else {
            why.to_string()
        };
        let listed = if n as usize > ids.len() {
            format!(
                "{n} launch(es), first of each kernel {}",
                report::concise::join(&ids)
            )
        } else {
            format!("launch(es) {}", report::concise::join(&ids))
        };
        let _ = writeln!(err, "gpulint: skipped {rule} on {listed}: {why}");
    }
}

/// The same, for a details page.
const RAW_PAGE_HINT: &str = "(a details page shows each section's headline values only: export \
    the report's raw page first, `ncu --import REPORT.ncu-rep --csv --page raw` or `gpulint check \
    REPORT.ncu-rep`, which holds every metric it collected; collect with `ncu --metrics \
    $(gpulint metrics)` only if that lacks it)";

/// Writes the roofline chart, never over an input.
pub(super) fn write_svg(
    path: &str,
    placed: &[(&ingest::Launch, crate::roofline::Roofline)],
    inputs: &[String],
) -> Result<()> {
    let points: Vec<crate::roofline::svg::Point> = placed
        .iter()
        .map(|(l, r)| crate::roofline::svg::Point {
            name: report::short_name(&l.name),
            launch: l.id,
            roof: r,
        })
        .collect();
    write_output(
        path,
        crate::roofline::svg::render(&points).as_bytes(),
        inputs,
        "chart",
    )
}
