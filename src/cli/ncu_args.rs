//! `gpulint run`'s own options: how ncu is run, which launches it profiles, and the
//! launch trace before it; and the settings they make for the ncu stage.

use clap::Args;

use super::{Format, ReportArgs, percentage};

/// How to run ncu.
#[derive(Debug, Clone, Args)]
pub struct NcuArgs {
    /// The ncu binary (default: $NCU, PATH, $CUDA_HOME/bin, /usr/local/cuda/bin, /opt/nvidia/nsight-compute).
    #[arg(long, value_name = "PATH")]
    pub ncu: Option<String>,
    /// Profile only kernels with this name (ncu syntax: `name`, or `regex:pattern`).
    #[arg(short = 'k', long, value_name = "NAME")]
    pub kernel_name: Option<String>,
    /// Skip this many kernel launches first.
    #[arg(long, value_name = "N")]
    pub launch_skip: Option<u64>,
    /// Profile at most this many kernel launches, in launch order (turns sampling off).
    #[arg(long, value_name = "N")]
    pub launch_count: Option<u64>,
    /// Profile every launch instead of a sample: ncu's default, minutes on an iterative
    /// program. The launch tracer still counts them first, for the waits between launches.
    #[arg(long, conflicts_with = "launches_per_config")]
    pub all_launches: bool,
    /// Sample per launch configuration: the first N launches of each (kernel, grid, block,
    /// shared memory), ncu's `--filter-mode per-launch-config`. By default the sample is each
    /// kernel's launches 1, 2, 3, 4, 8, 16, ... whatever their grids, or the first 1 (else 3)
    /// of each configuration when the launch trace shows that takes fewer and stands for
    /// the configuration's time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub launches_per_config: Option<u64>,
    /// With every launch counted (the launch trace), profile launch configurations in order
    /// of their share of GPU time until they cover this much of it: a percentage, 99 by
    /// default. The report lists the configurations left out.
    #[arg(long, value_name = "PCT", value_parser = percentage, default_value_t = 99.0)]
    pub coverage: f64,
    /// With every launch counted, profile at most this many launches. By default, as many
    /// as ncu profiles in about a quarter of the program's own run time, at least 2.7 s
    /// (some 0.33 s a launch on an H200): 8 to 40. The configuration with the most GPU
    /// time is profiled whatever its launch costs.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_launches: Option<u64>,
    /// End the program once ncu has profiled the last launch of the sample (ncu's
    /// `--kill`): the report then comes without waiting for the rest of the run, and the
    /// program's own work after that launch is cut short. Needs the launch trace, which
    /// says how many launches the sample takes.
    #[arg(long)]
    pub stop_once_profiled: bool,
    /// Run the program for SECONDS of its GPU work (from its first kernel launch, the
    /// tracer's profiling included), then stop it: a training loop of minutes
    /// gives its report in under a minute, and its steps repeat, so a window of a few steps
    /// judges as the whole run does. The program runs once, as with --one-run, and the
    /// tracer profiles the first launch of each kernel (and launches of unlike grids), up
    /// to 100 launches, so that a training step's backward kernels are reached. With
    /// --two-runs (or an option one run declines), ncu profiles a sample in a second run,
    /// bounded to the traced run's time plus about 0.33 s a sampled launch: what it
    /// profiled by then is linted.
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub window: Option<u64>,
    /// Count every launch even where gpulint's launch tracer gives no trace (it needs a C++
    /// compiler and CUPTI; --verbose says why not): ncu then times every launch in one more
    /// run of the program (duration only, about 4 ms a launch, at most 10,000). Counted
    /// launches give GPU-time shares and time at stake of every launch, not only the sampled
    /// ones, and block size and grid size are judged on every launch.
    #[arg(long, conflicts_with_all = ["all_launches", "launch_count", "launch_skip", "per_launch"])]
    pub time_all_launches: bool,
    /// Do not run the program once more under gpulint's launch tracer before ncu profiles
    /// it (that run takes about as long as the program alone): shares of GPU time are then
    /// of the sampled launches.
    #[arg(long, conflicts_with = "time_all_launches")]
    pub no_launch_trace: bool,
    /// Start ncu's run of the program beside the traced run, held by ncu at its first CUDA
    /// call until the sample is planned, so that the program's own start (a Python script
    /// importing its libraries) runs once in the time. While it waits, the held program
    /// listens on two TCP ports on every interface (ncu's launch mode has no loopback-only
    /// option), and its start runs twice at once: not for a program that binds a port or
    /// takes a lock before it starts CUDA. The held program's stdin is empty.
    #[arg(long, conflicts_with = "no_launch_trace")]
    pub overlap: bool,
    /// Run the program once, the default: gpulint's launch tracer reads the rules'
    /// counters itself (CUPTI's range profiler) on the first launch of each kernel, on up
    /// to two more with 4x more or fewer blocks and, once no kernel is new, on a kernel's
    /// next four launches and two at doubling counts (within a second of profiling), at
    /// most 100, and ncu does not run it again. Where the tracer profiles nothing, the
    /// program runs again under ncu, whose own arguments (--ncu-arg) apply only then.
    /// --source, -k, --per-launch and launch filters, which ncu carries out, run it twice.
    #[arg(long, conflicts_with_all = ["no_launch_trace", "overlap"])]
    pub one_run: bool,
    /// Run the program twice, the traced run and ncu's: ncu's counters, each replay pass
    /// from a flushed cache, at about twice the time (a verdict near its bar that one run
    /// leaves as info is then measured as ncu measures it).
    #[arg(long, conflicts_with = "one_run")]
    pub two_runs: bool,
    /// The runs in sequence, the default: kept so that scripts that say so still run.
    #[arg(long, hide = true, conflicts_with = "overlap")]
    pub no_overlap: bool,
    /// Keep the launch trace here: every launch's shape and duration, and the library or
    /// program that launched it. `gpulint check` reads it like an export.
    #[arg(long, value_name = "FILE", conflicts_with = "no_launch_trace")]
    pub save_trace: Option<String>,
    /// Follow child processes too (MPI launchers, Python).
    #[arg(long)]
    pub target_processes_all: bool,
    /// Profile NCCL's kernels too. By default ncu leaves them out: a collective waits for
    /// the other ranks, which ncu's replay has stopped, so the run may hang (the watchdog
    /// then stops it and lints what was profiled). The report gives NCCL's share of each
    /// device's GPU time either way.
    #[arg(long)]
    pub profile_nccl: bool,
    /// Pass one more argument to ncu (repeat it: --ncu-arg=--clock-control --ncu-arg=none).
    #[arg(long = "ncu-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub ncu_args: Vec<String>,
    /// Name the source lines behind each finding whose cause sits on a line (uncoalesced
    /// and misaligned accesses, bank conflicts, local memory, divergence, stalls; build
    /// with -lineinfo): the per-line counters of ncu's SourceCounters section come with
    /// the sampled launches, and so do the stall samples in a sample of at most 10
    /// launches (unless the last run of this command had no finding that reads them);
    /// otherwise one more ncu run takes them on one launch of each of your kernels with a
    /// finding that reads them.
    #[arg(long)]
    pub source: bool,
    /// Skip the roofline's metrics (FLOP counters, DRAM bytes, peaks): fewer replay passes.
    #[arg(long)]
    pub no_roofline: bool,
    /// Plan the metrics for this chip (gh100, ga102, gb202, ...) instead of asking ncu
    /// which chip the GPU has.
    #[arg(long, value_name = "NAME")]
    pub chip: Option<String>,
    /// Keep ncu's raw CSV export here, for sharing or `gpulint check` later.
    #[arg(long, value_name = "FILE")]
    pub save_csv: Option<String>,
}

impl NcuArgs {
    /// Whether the program is to run once: the default, unless `--two-runs` or an option
    /// of the two runs (`--overlap`, `--no-launch-trace`, `--time-all-launches`) says
    /// otherwise.
    pub fn runs_once(&self) -> bool {
        self.one_run
            || !(self.two_runs || self.overlap || self.no_launch_trace || self.time_all_launches)
    }

    /// What asks for one run, in the words stderr gives it: `--one-run`, `--window`, or
    /// the default; `None` where the program runs twice.
    pub fn one_run_asked_by(&self) -> Option<crate::profile::one_run::AskedBy> {
        use crate::profile::one_run::AskedBy;
        if !self.runs_once() {
            None
        } else if self.one_run {
            Some(AskedBy::Option("--one-run"))
        } else if self.window.is_some() {
            Some(AskedBy::Option("--window"))
        } else {
            Some(AskedBy::Default)
        }
    }

    /// What ncu is asked for: the command line's options, the config's ncu arguments, and
    /// the sample unless the user chose launches themselves.
    pub fn ncu_options(
        &self,
        report: &ReportArgs,
        extra_args: Vec<String>,
    ) -> crate::profile::ncu::NcuOptions {
        let choice = crate::profile::ncu::LaunchChoice {
            per_config: self.launches_per_config,
            all_launches: self.all_launches,
            launch_skip: self.launch_skip,
            launch_count: self.launch_count,
            kernel_name: self.kernel_name.as_deref(),
        };
        let sample = crate::profile::ncu::choose_sample(&choice, &extra_args);
        let sampled_otherwise = crate::profile::ncu::choose_sample(
            &crate::profile::ncu::LaunchChoice {
                all_launches: false,
                ..choice
            },
            &extra_args,
        ) == Some(crate::profile::sample::Sample::Spread);
        crate::profile::ncu::NcuOptions {
            ncu: self.ncu.clone(),
            kernel_name: self.kernel_name.clone(),
            launch_skip: self.launch_skip,
            launch_count: self.launch_count,
            sample,
            target_processes_all: self.target_processes_all,
            extra_args,
            save_csv: self.save_csv.clone(),
            roofline: !self.no_roofline,
            source: self.source,
            // Chosen with the sample, from the launch trace.
            source_pages_of: None,
            source_stall_samples: false,
            chip: self.chip.clone(),
            // Machine formats own stdout; the program's output would corrupt them.
            program_output_to_stderr: !matches!(report.format, Format::Human | Format::Concise),
            expected_launches: None,
            traced_run_time: None,
            stop_once_profiled: self.stop_once_profiled || self.window.is_some(),
            profile_nccl: self.profile_nccl,
            every_launch_traced: self.all_launches && sampled_otherwise,
            window: self.window.map(std::time::Duration::from_secs),
            verbose: report.gate.read.verbose,
        }
    }
}
