//! One run of the program (`gpulint run --one-run`, #58): the launch tracer reads the
//! rules' counters itself, with CUPTI's range profiler, on the launches it picks as they
//! come (launch_tracer_counters.inc), and ncu does not run the program again. Its rows
//! become the export a profiled run leaves (ncu's raw page: the launch's shape from the
//! trace, its counters in CUPTI's base units, the device's attributes), so that the rest
//! of the stage reads, pairs and judges them as it does ncu's sample. On an H100 the
//! range profiler took 0.10-0.16 s a profiled launch where ncu took 0.375 s and a second
//! run, and gave the same findings on 33 of 35 (lab/runs/2026-12-05-range-profiler.txt).

mod counters_file;
mod export;
mod unprofiled_note;

pub use export::{Export, export};
pub use unprofiled_note::longer_unprofiled_note;

use crate::profile::ncu::tracer::RunCounters;
use crate::profile::sample::Sample;

/// The most launches the tracer profiles in one run, each at its replay passes' cost: a
/// training step's kernel functions, its backward's included (the augmented CNN's 69,
/// whose 68th is cuDNN's wgrad). With 40, the CNN's 2 steps lost wgrad's uncoalesced loads
/// and a GEMM's misaligned access; with 100 it profiled 68 launches, in 34.5 s against
/// 35.2 s (lab/runs/2026-12-05-one-run-default.txt, call 1, an H200).
pub const MOST_LAUNCHES: u64 = 100;

/// What asks for one run (`NcuArgs::one_run_asked_by`): the default, or an option by
/// name (`--one-run`, `--window`), which stderr tells of more than it tells the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AskedBy {
    Default,
    Option(&'static str),
}

impl std::fmt::Display for AskedBy {
    /// `the default`, or the option's name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AskedBy::Default => f.write_str("the default"),
            AskedBy::Option(name) => f.write_str(name),
        }
    }
}

/// The counters the tracer read in the traced run, as it wrote them, and how the program
/// ended (its one run: the report's program end).
pub struct CountedInRun {
    pub text: String,
    pub program_end: crate::profile::sample::ProgramEnd,
}

/// What the traced run is asked to read: `metrics` (the profiled run's, by ncu's names), on
/// at most [`MOST_LAUNCHES`].
pub fn counters(metrics: &[&str]) -> RunCounters {
    RunCounters {
        metrics: metrics.iter().map(|m| m.to_string()).collect(),
        most_launches: MOST_LAUNCHES,
    }
}

/// Why `gpulint run` with these options cannot run the program once, if it cannot: what
/// the tracer's counters do not give, or a choice ncu carries out.
pub fn declined(opts: &crate::profile::ncu::NcuOptions, per_launch: bool) -> Option<&'static str> {
    if per_launch {
        Some("--per-launch shows ncu's launches as they are")
    } else if opts.source {
        // The tracer's SASS counters patch the kernels the range profiler would replay.
        Some("--source reads its counters in the traced run")
    } else if opts.kernel_name.is_some() {
        Some("-k chooses kernels by ncu's filter")
    } else if !matches!(opts.sample, Some(Sample::Spread)) {
        // A launch filter among ncu's own arguments turns the sample off too.
        Some(
            "the launches ncu profiles were chosen (--all-launches, --launches-per-config, a filter)",
        )
    } else {
        None
    }
}

/// The profiled run `export` stands for, as ncu's would be returned: named as ncu's is,
/// its export copied where `--save-csv` says.
pub fn run_info(
    export: Export,
    program_status: Option<i32>,
    opts: &crate::profile::ncu::NcuOptions,
    ncu: &std::path::Path,
    program: &[std::ffi::OsString],
) -> crate::error::Result<crate::profile::ncu::RunInfo> {
    if let Some(dest) = &opts.save_csv {
        crate::atomic_file::copy(export.csv.path(), std::path::Path::new(dest))?;
    }
    let name = (opts.save_csv.clone())
        .unwrap_or_else(|| format!("ncu:{}", crate::profile::program_name(program)));
    Ok(crate::profile::ncu::RunInfo {
        ncu: ncu.to_path_buf(),
        program_status,
        csv: export.csv,
        name,
        source_blocks: Vec::new(),
    })
}

/// The counters file of a traced run on an H100 (LU's launches 5 and 9, a `nan` and the
/// step that stopped), as the tests of the reader and of the export read it.
#[cfg(test)]
const COUNTERS: &str = "\
# gpulint counters 1, process 812, passes 7, profiled launches 2
correlation,dram__bytes_read.sum,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio,device__attribute_display_name,device__attribute_compute_capability_major,device__attribute_compute_capability_minor,device__attribute_multiprocessor_count
5,1053696,nan,\"NVIDIA H100 80GB HBM3\",\"9\",\"0\",\"132\"
9,2048,32,\"NVIDIA H100 80GB HBM3\",\"9\",\"0\",\"132\"
# stopped: cuptiRangeProfilerStart returned 7
";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{CommandFactory, Parser};

    /// `gpulint run`'s help names the cap as it is, for --one-run and --window.
    #[test]
    fn the_help_names_each_runs_cap() {
        let cli = crate::cli::Cli::command();
        let run = cli.find_subcommand("run").unwrap();
        let help = |long: &str| {
            let arg = run.get_arguments().find(|a| a.get_long() == Some(long));
            arg.and_then(|a| a.get_help()).unwrap().to_string()
        };
        assert!(
            help("one-run").contains(&format!("at most {MOST_LAUNCHES},")),
            "{}",
            help("one-run")
        );
        let window = help("window");
        assert!(
            window.contains(&format!("up to {MOST_LAUNCHES} launches")),
            "{window}"
        );
    }

    /// The program runs once, with or without --window, unless an option of the two runs
    /// says otherwise.
    #[test]
    fn the_program_runs_once_unless_told_otherwise() {
        let runs_once = |args: &[&str]| {
            let mut all = vec!["gpulint", "run"];
            all.extend(args);
            all.extend(["--", "./prog"]);
            match crate::cli::Cli::try_parse_from(all).unwrap().command {
                crate::cli::Command::Run { ncu, .. } => ncu.runs_once(),
                _ => unreachable!(),
            }
        };
        assert!(runs_once(&[]));
        assert!(runs_once(&["--one-run"]));
        assert!(runs_once(&["--window", "20"]));
        assert!(!runs_once(&["--two-runs"]));
        assert!(!runs_once(&["--overlap"]));
        assert!(!runs_once(&["--no-launch-trace"]));
        assert!(!runs_once(&["--time-all-launches"]));
        assert!(!runs_once(&["--window", "20", "--two-runs"]));
        assert!(!runs_once(&["--window", "20", "--overlap"]));
        assert!(!runs_once(&["--window", "20", "--no-launch-trace"]));
        assert!(
            crate::cli::Cli::try_parse_from([
                "gpulint",
                "run",
                "--two-runs",
                "--one-run",
                "--",
                "p"
            ])
            .is_err()
        );
    }
}
