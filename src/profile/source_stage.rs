//! `--source` in `gpulint run`, around the sample: where the source counters are read
//! (the traced run, the sample's run or a pass after it), the traced run's lines kept
//! beside ncu's pages, and, after the lint, the memory for the command's next run and the
//! pass (steps 2, 4 and 6 of [`super`]'s list, for the source counters).

use super::ncu;
use super::sample::Sample;
use super::sampling::{
    self, EveryLaunch,
    source_plan::{self, PassFor, SourcePass, UserKernels},
};
use crate::error::Result;
use crate::ingest;
use crate::rules::{self, Rule};

/// With `--source` after a sample that names its kernels: where the source counters are
/// read ([`sampling::source_plan::source_counters`]), in `opts`, and which findings the
/// pass after the sample is for. `None`: no pass; the sample's run reads what `--source`
/// asks, if anything. Where the traced run counted the user's kernels' first launches (it
/// does only after a run of the command that read no stall samples), the sample's run
/// takes no section, and the pass comes only for what those counts lack.
pub(super) fn place_source_counters(
    opts: &mut ncu::NcuOptions,
    sample: Option<&Sample>,
    every: Option<&EveryLaunch>,
    rules_dir: Option<&str>,
    program: &[std::ffi::OsString],
) -> Result<Option<PassFor>> {
    use sampling::source_plan::SourceCounters;
    let (true, Some((k, numbers)), Some(e)) =
        (opts.source, sample.and_then(Sample::named_kernels), every)
    else {
        return Ok(None);
    };
    let traced: Vec<String> = (e.profile.source_blocks.iter())
        .map(|b| b.function.clone())
        .collect();
    let sampled: Vec<String> = (e.profile.source_blocks.iter())
        .filter(|b| b.lines.iter().any(|l| l.stall_samples > 0.0))
        .map(|b| b.function.clone())
        .collect();
    if !traced.is_empty() {
        opts.source_pages_of = Some(Vec::new());
        opts.source_stall_samples = false;
        if opts.verbose {
            crate::note!(
                "--source: the traced run counted the source lines of {} kernel(s); the \
                 sample's run takes no source section",
                traced.len()
            );
        }
        return Ok(Some(PassFor::NotTraced {
            counted: traced,
            sampled,
        }));
    }
    let placed = sampling::source_plan::source_counters(k, numbers, &e.profile, rules_dir)?;
    match placed {
        SourceCounters::InSampleRun(kernels) => {
            opts.source_pages_of = Some(kernels);
            let launches = opts.expected_launches.unwrap_or(u64::MAX);
            let small = sampling::source_plan::stall_samples_in_run(launches);
            // The last run of this command had no finding that reads them: a pass takes
            // them only if one comes.
            let none_last =
                sampling::source_memory::recall(program).is_some_and(|m| !m.stall_finding);
            if small && none_last && opts.verbose {
                crate::note!(
                    "--source: the last run of this command had no finding on the warps' stall \
                     samples; they are left to a pass after the sample, run only if one comes"
                );
            }
            opts.source_stall_samples = small && !none_last;
            // With the stall samples in the run, no pass follows.
            Ok((!opts.source_stall_samples).then_some(PassFor::StallSamples))
        }
        SourceCounters::InPass => {
            // No kernel's page to read: the sample's run goes without the section.
            opts.source_pages_of = Some(Vec::new());
            Ok(Some(PassFor::All))
        }
    }
}

/// The traced run's source lines, where ncu's `pages` of the same kernels do not replace
/// them.
pub(super) fn traced_lines_and_pages(
    every: Option<&EveryLaunch>,
    pages: Vec<ingest::source::SourceBlock>,
) -> Vec<ingest::source::SourceBlock> {
    let mut blocks = every
        .map(|e| e.profile.source_blocks.clone())
        .unwrap_or_default();
    ingest::source::replace_kernels(&mut blocks, pages);
    blocks
}

/// Step 6, on the lint's `outcome` of the `profiled` launches: whether a finding on the
/// user's kernels read the warps' stall samples, and which of their kernels (as the traced
/// run names them) had a finding on a line, kept for the next `--source` run of the
/// command where it is given (`remember`), and the source pass after the sample, whose
/// pages replace the sample's for its kernels.
pub(super) fn memory_and_pass(
    outcome: &rules::engine::Outcome,
    rules: &[Rule],
    rules_dir: Option<&str>,
    remember: Option<(&[std::ffi::OsString], &EveryLaunch)>,
    pass: Option<(SourcePass, &EveryLaunch)>,
    profiled: &mut ingest::Profile,
) -> Result<()> {
    if remember.is_none() && pass.is_none() {
        return Ok(());
    }
    let users = UserKernels::load(rules_dir, profiled)?;
    if let Some((program, every)) = remember {
        let findings = &outcome.findings;
        let memory = sampling::source_memory::Memory {
            stall_finding: source_plan::reads_stall_samples(findings, rules, &users),
            line_kernels: source_plan::line_cause_kernels(findings, rules, &every.profile, &users),
        };
        sampling::source_memory::remember(program, &memory);
    }
    if let Some((pass, every)) = pass {
        let pages = pass.source_lines(&outcome.findings, rules, &every.profile, &users);
        ingest::source::replace_kernels(&mut profiled.source_blocks, pages);
    }
    Ok(())
}
