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
    let per_config = crate::ncu::sample_size(
        ncu.launches_per_config,
        ncu.all_launches,
        ncu.launch_skip,
        ncu.launch_count,
        &extra_args,
    );
    let opts = NcuOptions {
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
    };
    let info = crate::ncu::profile(&opts, &rules, program)?;
    match info.program_status {
        Some(0) => {}
        Some(code) => eprintln!(
            "gpulint: {} exited with status {code}; its kernels profiled before that are linted",
            program[0]
        ),
        None => eprintln!(
            "gpulint: {} was killed by a signal; its kernels profiled before that are linted",
            program[0]
        ),
    }
    if report.read.verbose {
        eprintln!("gpulint: profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let csv = info.csv.path().display().to_string();
    let mut profiles = load_as(
        &[(csv.as_str(), info.name.as_str())],
        report.per_launch,
        report.read.jobs,
        Some(&mut linter),
    )?;
    profiles[0].source_blocks = info.source_blocks;
    profiles[0].sampled_per_config = per_config;
    if let Some(n) = per_config {
        let note = capped_kernels_note(&profiles[0], n);
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

/// With a sample, a kernel launched many times with one configuration is cut to `cap`
/// launches while a kernel whose grid changes every launch is profiled whole: the first's
/// share of GPU time comes out too small (LU's diagonal kernel: 2.8% sampled, 37.9% of
/// every launch). Names the kernels whose every configuration reached the cap, when others
/// did not.
fn capped_kernels_note(profile: &ingest::Profile, cap: u64) -> Option<String> {
    let mut kernels: Vec<(&str, bool)> = Vec::new();
    for l in &profile.launches {
        let capped = l.count >= cap;
        match kernels.iter_mut().find(|(name, _)| *name == l.name) {
            Some(k) => k.1 &= capped,
            None => kernels.push((&l.name, capped)),
        }
    }
    let capped: Vec<String> = kernels
        .iter()
        .filter(|(_, c)| *c)
        .map(|(name, _)| report::short_name(name))
        .collect();
    (!capped.is_empty() && capped.len() < kernels.len()).then(|| {
        format!(
            "{}{} reached the sample's {cap} launches per configuration while other kernels \
             did not: launches after those were not profiled, so {} share of GPU time is \
             understated; --all-launches measures every launch",
            ingest::WARNING,
            capped.join(", "),
            if capped.len() == 1 { "its" } else { "their" }
        )
    })
}
