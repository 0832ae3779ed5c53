//! The source pass (`--source` after a sample by time): one more ncu run of the program
//! that collects the SourceCounters section on the launches [`SourcePlan`] chose, prints
//! their source pages, and stops the program once they are profiled. Which
//! launches: `crate::profile::sampling::source_pass`.

use super::{
    Error, NcuOptions, Output, Prepared, ProgramOutput, Result, Sample, SourceSection, build_args,
    check_ncu_output, ingest, read_log, run_ncu, shell_words, temp_csv,
};
use crate::profile::sample::Chosen;

/// One kernel the source pass profiles.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceTarget {
    /// The kernel as its findings name it (ncu's demangling).
    pub kernel: String,
    /// Its mangled name, which `--kernel-id` matches.
    pub mangled: String,
    /// The launch of it that stands for its findings, counted among its launches.
    pub number: u64,
    /// Where that launch's block falls among the kernel's blocks on the source page: the
    /// pass profiles each chosen kernel at every number chosen that it reaches.
    pub block_index: usize,
}

/// What the source pass asks ncu for.
#[derive(Debug, Clone, PartialEq)]
pub struct SourcePlan {
    pub targets: Vec<SourceTarget>,
    /// The launch numbers, shared by every target (ncu takes one set).
    pub numbers: Vec<u64>,
    /// How many launches ncu will profile: each target's launches with those numbers.
    pub launches: u64,
    /// Whether a finding on a target has its cause in the warps' stall samples: only then
    /// is the section's warp sampling collected (see [`super::source_section`]).
    pub needs_sampling: bool,
}

/// Profiles the plan's launches with the SourceCounters section; ncu prints their source
/// pages as it goes.
pub fn profile_sources(
    opts: &NcuOptions,
    prepared: &Prepared,
    plan: &SourcePlan,
    program: &[std::ffi::OsString],
) -> Result<Vec<ingest::source::SourceBlock>> {
    let ncu = prepared.ncu.clone();
    let log = temp_csv("gpulint-source-")?;
    let pass = NcuOptions {
        sample: Some(Sample::ByTime(Chosen {
            numbers: plan.numbers.clone(),
            kernels: Some(plan.targets.iter().map(|t| t.mangled.clone()).collect()),
        })),
        expected_launches: Some(plan.launches),
        stop_once_profiled: true,
        source: true,
        save_csv: None,
        kernel_name: None,
        launch_skip: None,
        launch_count: None,
        ..opts.clone()
    };
    // The section of the columns read, with the sampling only where a finding reads stall
    // samples.
    let folder =
        super::source_section::folder_unless_asked(&ncu, &opts.extra_args, plan.needs_sampling);
    let output = Output::SourcePage(SourceSection::from_folder(
        folder.as_ref().map(|d| d.path()),
    ));
    let args = build_args(
        &pass,
        &["gpu__time_duration.sum"],
        output,
        log.path(),
        program,
    );
    if opts.verbose {
        crate::note!("source pass: {} {}", ncu.display(), shell_words(&args));
    }
    let started = std::time::Instant::now();
    let (status, _) = run_ncu(
        &ncu,
        &args,
        Some(log.path()),
        ProgramOutput::Discard,
        Some(plan.launches),
        None,
    )?;
    let printed = read_log(log.path())?;
    let blocks =
        ingest::source::parse("the source pass's pages", pages_of_log(&printed).as_bytes())?;
    if blocks.is_empty() {
        check_ncu_output(&printed, status.code())?;
        return Err(Error::new("ncu printed no source page in the source pass"));
    }
    if opts.verbose {
        crate::note!(
            "time: the source pass took {:.2} s, its pages included",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(chosen_blocks(&blocks, plan))
}

/// The CSV of the pages ncu printed, without its own `==PROF==` and `==WARNING==` lines.
pub(super) fn pages_of_log(log: &str) -> String {
    log.lines()
        .filter(|l| !l.starts_with("=="))
        .flat_map(|l| [l, "\n"])
        .collect()
}

/// The block of the launch chosen for each target, from the pages of every launch profiled.
fn chosen_blocks(
    blocks: &[ingest::source::SourceBlock],
    plan: &SourcePlan,
) -> Vec<ingest::source::SourceBlock> {
    let mut out = Vec::new();
    for t in &plan.targets {
        // The pages hold the kernel's launches at each number asked for that it reaches;
        // another spelling of its name gives no index to trust: its first.
        let exact = blocks
            .iter()
            .any(|b| ingest::source::same_signature(&b.function, &t.kernel));
        let list = ingest::source::blocks_of(blocks, &t.kernel);
        let index = if exact { t.block_index } else { 0 };
        if let Some(b) = list.get(index).or(list.last()) {
            out.push((*b).clone());
        }
    }
    out
}
