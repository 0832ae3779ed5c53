//! The source pass (`--source` after a sample by time): one more ncu run of the program
//! that collects the SourceCounters section on the launches [`SourcePlan`] chose, and
//! stops the program once they are profiled; then each kernel's source page. Which
//! launches: `crate::profile::sampling::source_pass`.

use super::*;
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
}

/// Profiles the plan's launches with the SourceCounters section and reads their source
/// pages, one import per kernel, side by side.
pub fn profile_sources(
    opts: &NcuOptions,
    prepared: &Prepared,
    plan: &SourcePlan,
    program: &[String],
) -> Result<Vec<ingest::source::SourceBlock>> {
    let ncu = prepared.ncu.clone();
    let log = temp_csv("gpulint-source-")?;
    let report_dir = tempfile::tempdir()
        .map_err(|e| Error::new(format!("cannot create a temporary folder: {e}")))?;
    let report = report_dir.path().join("gpulint-source");
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
    let output = Output::Report {
        path: &report,
        source: true,
    };
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
    let status = run_ncu(
        &ncu,
        &args,
        Some(log.path()),
        ProgramOutput::Discard,
        Some(plan.launches),
        None,
    )?;
    let rep = format!("{}.ncu-rep", report.display());
    if !Path::new(&rep).exists() {
        check_ncu_output(&read_log(log.path())?, status.code())?;
        return Err(Error::new("ncu wrote no report for the source pass"));
    }
    let ran = started.elapsed();
    let blocks = read_pages(&ncu, &rep, plan, opts.verbose);
    if opts.verbose {
        crate::note!(
            "time: the source pass took {:.2} s, its source pages {:.2} s",
            ran.as_secs_f64(),
            (started.elapsed() - ran).as_secs_f64()
        );
    }
    blocks
}

/// Each target's source page, imported side by side, and the block of the launch chosen
/// for it.
fn read_pages(
    ncu: &Path,
    rep: &str,
    plan: &SourcePlan,
    verbose: bool,
) -> Result<Vec<ingest::source::SourceBlock>> {
    let blocks = pages_of(
        ncu,
        rep,
        plan.targets.iter().map(|t| t.kernel.as_str()),
        verbose,
    )?;
    let mut out = Vec::new();
    for t in &plan.targets {
        // The page holds the kernel's launches at each number asked for that it reaches;
        // another spelling of its name gives no index to trust: its first.
        let exact = blocks.iter().any(|b| b.function == t.kernel);
        let list = ingest::source::blocks_of(&blocks, &t.kernel);
        let index = if exact { t.block_index } else { 0 };
        if let Some(b) = list.get(index).or(list.last()) {
            out.push((*b).clone());
        }
    }
    Ok(out)
}
