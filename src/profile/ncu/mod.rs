//! Running ncu on a program with the fewest metrics the enabled rules need, and reading
//! back what it wrote.

pub mod doctor;
pub mod early;
pub mod locate;
pub mod tracer;

mod args;
mod chip_cache;
mod import;
mod log;
mod process;
mod profiled_run;
mod progress;
pub mod source_pass;
mod source_section;

pub use args::{
    LaunchChoice, Output, SourceSection, build_args, choose_sample, mangled_fits_kernel_id,
};
use args::{SECTION_ARGS, gives_option, leave_default_sections_out, shell_words};
use import::from_report;
pub use import::{import_report, is_report, source_pages};
pub use log::check_ncu_output;
use log::{check_log, read_log};
pub use process::{HangWatch, SECONDS_PER_LAUNCH};
pub(crate) use process::{
    Stop, hang_grace, interrupted, interrupted_error, signal_group, wait_or_stop_when,
};
pub use profiled_run::{RunInfo, profile};
use progress::{Activity, Progress, profiled_so_far};
pub use source_pass::profile_sources;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::chips::Chip;
use crate::error::{Error, Result};
use crate::ingest;
use crate::metrics;
use crate::profile::sample::Sample;

/// What the user asked of the ncu run.
#[derive(Debug, Clone, Default)]
pub struct NcuOptions {
    pub ncu: Option<String>,
    pub kernel_name: Option<String>,
    pub launch_skip: Option<u64>,
    pub launch_count: Option<u64>,
    /// The launches to profile (by default a spread over each kernel's launches); `None`
    /// profiles every launch the other filters let through.
    pub sample: Option<Sample>,
    pub target_processes_all: bool,
    pub extra_args: Vec<String>,
    pub save_csv: Option<String>,
    /// Also collect what the roofline needs (FLOP counters, DRAM bytes, peaks).
    pub roofline: bool,
    /// Also collect the source counters and read the source page.
    pub source: bool,
    /// With `source`, in a sample by time: the kernels whose source pages are read, from
    /// the pages ncu prints as it profiles; the warps' stall sampling only with
    /// `source_stall_samples`. `None`: every kernel's page, imported after the raw page,
    /// with the sampling.
    pub source_pages_of: Option<Vec<String>>,
    /// With `source_pages_of`: the warps' stall samples in the sample's run too, so that
    /// no pass follows (a small sample: `sampling::source_plan::stall_samples_in_run`).
    pub source_stall_samples: bool,
    /// The chip to plan the metrics for (`--chip`); asked of ncu when not given.
    pub chip: Option<String>,
    /// Send the program's own output to stderr: stdout carries a machine-read report.
    pub program_output_to_stderr: bool,
    /// How many launches the sample will profile, when every launch was counted first:
    /// the progress line then estimates the time left.
    pub expected_launches: Option<u64>,
    /// How long the program ran under the launch tracer: with `expected_launches`, what
    /// tells a run that hangs once every chosen launch is profiled (see [`HangWatch`]).
    pub traced_run_time: Option<Duration>,
    /// End the program once the sample's last launch is profiled (ncu's `--kill`), where
    /// `expected_launches` says when that is.
    pub stop_once_profiled: bool,
    /// Profile NCCL's kernels too (`--profile-nccl`): by default ncu is told to leave them
    /// out, since a collective under its replay waits for ranks it has stopped.
    pub profile_nccl: bool,
    /// `--all-launches` where gpulint would otherwise have sampled: ncu profiles every
    /// launch, and the launch tracer counts them first all the same, for what no counter
    /// gives (the waits between launches).
    pub every_launch_traced: bool,
    /// `--window`: the traced run stopped after this long, and ncu's run is bounded too
    /// (see [`HangWatch::bounded`]).
    pub window: Option<Duration>,
    pub verbose: bool,
}

impl NcuOptions {
    /// With `--stop-once-profiled` (or `--window`), after how many profiled launches ncu
    /// ends the program: the sample's, where every launch was counted first and the
    /// sample is by kernel (ncu counts `--launch-count` per configuration in a sample per
    /// configuration). `None`: it runs to its end.
    pub fn stop_after(&self) -> Option<u64> {
        let by_kernel = matches!(self.sample, Some(Sample::Spread | Sample::ByTime(_)));
        self.expected_launches
            .filter(|_| self.stop_once_profiled && by_kernel)
    }

    /// Whether the profiled run prints the sampled launches' source pages to its log as it
    /// writes the report (`--source` after a sample by time that names its kernels).
    pub fn prints_source_pages(&self) -> bool {
        self.source && self.source_pages_of.is_some()
    }
}

/// With `--stop-once-profiled` (or `--window`), tells the user that ncu will end the
/// program after the sample's last launch, or why it cannot (no launch trace to say when,
/// or a sample per configuration). Returns whether it will.
pub fn say_whether_it_stops(opts: &NcuOptions, program: &str) -> bool {
    if !opts.stop_once_profiled {
        return false;
    }
    match opts.stop_after() {
        Some(n) => crate::note!(
            "ncu will stop {program} once it has profiled the sample's {n} \
             launch(es) (--stop-once-profiled): the rest of its run is cut short"
        ),
        None => crate::note!(
            "{program} runs to its end: stopping it once profiled needs the \
             launch trace and a sample by kernel (not --launches-per-config)"
        ),
    }
    opts.stop_after().is_some()
}

/// The metrics `--metrics` gets on `chip` (only those that exist there): the metric keys
/// the rules read (`rule_keys`), the duration and occupancy every report shows, and the
/// roofline's inputs unless they are not wanted.
pub fn metric_plan(rule_keys: &[String], roofline: bool, chip: Option<Chip>) -> metrics::Plan {
    let mut keys: Vec<String> = rule_keys.to_vec();
    keys.extend(["duration_ns", "theoretical_occupancy_pct"].map(String::from));
    if roofline {
        keys.extend(crate::roofline::METRIC_KEYS.iter().map(|k| k.to_string()));
    }
    metrics::collection_plan(keys.iter().map(String::as_str), chip)
}

/// The chip `gpulint run` plans for: `--chip`, else what ncu says of the local GPU
/// (`ncu --query-metrics` names it on its first line). `None` when ncu cannot tell; then
/// the full list is asked for, as for an H100/H200.
pub fn local_chip(ncu: &Path, forced: Option<&str>, verbose: bool) -> Result<Option<Chip>> {
    if let Some(name) = forced {
        return chip_by_name(name).map(Some);
    }
    let asked = std::time::Instant::now();
    let out = Command::new(ncu).arg("--query-metrics").output();
    let chip = out
        .ok()
        .and_then(|o| crate::chips::from_query_output(&String::from_utf8_lossy(&o.stdout)));
    if verbose {
        match chip {
            Some(c) => crate::note!(
                "the GPU's chip is {} (ncu --query-metrics, {:.2} s)",
                c.name,
                asked.elapsed().as_secs_f64()
            ),
            None => {
                crate::note!("ncu --query-metrics named no chip; asking for the full metric list");
            }
        }
    }
    Ok(chip)
}

/// The error for a chip name ncu does not know.
/// A chip by ncu's name (`gh100`) or by a GPU's (`h200`, `A100`, `rtx 4090`) from the GPU
/// table, for `--chip`.
pub fn chip_by_name(name: &str) -> Result<Chip> {
    crate::chips::find(name)
        .or_else(|| crate::roofline::gpus::chip_named(name).and_then(crate::chips::find))
        .ok_or_else(|| unknown_chip(name))
}

pub fn unknown_chip(name: &str) -> Error {
    let known: Vec<&str> = crate::chips::all().map(|c| c.name).collect();
    Error::new(format!(
        "unknown chip {name:?}; ncu 2025.3.1 knows {} (or name the GPU: h200, a100, l4, \
         rtx 4090, ...)",
        known.join(", ")
    ))
}

/// What is checked before the program runs at all: the ncu that will profile it (an
/// Nsight Compute ncu, not any file of that name), the program itself, and the chip to
/// plan the metrics for.
pub struct Prepared {
    pub ncu: PathBuf,
    chip: std::sync::OnceLock<Option<Chip>>,
    /// ncu's answer, asked while the traced run goes on: the question takes about as
    /// long as ncu's start-up, and only the profiled run needs it.
    asking: std::sync::Mutex<Option<std::thread::JoinHandle<Option<Chip>>>>,
}

impl Prepared {
    /// The chip to plan the metrics for, once ncu has answered.
    pub fn chip(&self) -> Option<Chip> {
        *self.chip.get_or_init(|| {
            let asking = self.asking.lock().ok().and_then(|mut a| a.take());
            asking.and_then(|h| h.join().ok()).flatten()
        })
    }
}

/// Checks ncu, the program and the chip, before anything runs the program.
pub fn prepare(opts: &NcuOptions, program: &[std::ffi::OsString]) -> Result<Prepared> {
    // The program first: a typo in its name is the user's to fix on any machine, with
    // or without ncu.
    let first = program
        .first()
        .ok_or_else(|| Error::new("no program given to profile"))?;
    locate::find_program(std::path::Path::new(first))?;
    let ncu = locate::find_ncu(opts.ncu.as_deref())?;
    locate::check_is_ncu(&ncu)?;
    let chip = std::sync::OnceLock::new();
    let mut asking = None;
    match opts.chip.as_deref() {
        Some(name) => {
            let _ = chip.set(Some(chip_by_name(name)?));
        }
        None => {
            let cache = chip_cache::cache_file(&ncu);
            match cache.as_deref().and_then(chip_cache::read) {
                Some(c) => {
                    if opts.verbose {
                        crate::note!(
                            "the GPU's chip is {} (remembered from ncu --query-metrics on this machine)",
                            c.name
                        );
                    }
                    let _ = chip.set(Some(c));
                }
                None => {
                    let (ncu, verbose) = (ncu.clone(), opts.verbose);
                    asking = Some(std::thread::spawn(move || {
                        let c = local_chip(&ncu, None, verbose).ok().flatten();
                        if let (Some(c), Some(file)) = (c, cache) {
                            chip_cache::write(&file, c);
                        }
                        c
                    }));
                }
            }
        }
    }
    Ok(Prepared {
        ncu,
        chip,
        asking: std::sync::Mutex::new(asking),
    })
}

/// A temporary CSV, removed when dropped.
pub(crate) fn temp_csv(prefix: &str) -> Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(prefix)
        .suffix(".csv")
        .tempfile()
        .map_err(|e| Error::new(format!("cannot create a temporary file: {e}")))
}

/// Where the profiled program's own stdout goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ProgramOutput {
    Inherit,
    /// Machine formats own stdout.
    Stderr,
    /// A second run of the program (the timing pass) would print it all again.
    Discard,
}

/// At most this many launches are timed by [`time_every_launch`]: about two minutes.
pub const MAX_TIMED_LAUNCHES: u64 = 10_000;

/// Times every launch, the sampled and the left out: one more ncu run of the program, only
/// the duration, at most [`MAX_TIMED_LAUNCHES`]. Caches are not flushed between launches,
/// as in the program's own run: about 4 ms a launch on the H200 against 9 ms with the
/// flush (lab/runs/2026-11-30-kernel-id-sample.txt). Returns its raw-page CSV, removed when
/// dropped.
pub fn time_every_launch(
    opts: &NcuOptions,
    ncu: &Path,
    program: &[std::ffi::OsString],
) -> Result<tempfile::NamedTempFile> {
    let log = temp_csv("gpulint-timing-")?;
    let mut extra_args = opts.extra_args.clone();
    if !gives_option(&extra_args, &["--cache-control"]) {
        extra_args.extend(["--cache-control".into(), "none".into()]);
    }
    let timing = NcuOptions {
        sample: None,
        launch_count: Some(opts.launch_count.unwrap_or(MAX_TIMED_LAUNCHES)),
        extra_args,
        ..opts.clone()
    };
    let mut args = build_args(
        &timing,
        &["gpu__time_duration.sum"],
        Output::RawCsv,
        log.path(),
        program,
    );
    let _no_sections = leave_default_sections_out(&mut args, &timing.extra_args);
    if opts.verbose {
        crate::note!("timing pass: {} {}", ncu.display(), shell_words(&args));
    }
    let (status, _) = run_ncu(ncu, &args, None, ProgramOutput::Discard, None, None)?;
    check_log(log.path(), status.code())?;
    Ok(log)
}

/// Runs ncu with a progress line on a terminal. Ctrl-C reaches ncu and the program
/// too; gpulint waits for them to stop, then cleans up instead of dying with the
/// temporary file left behind. Returns ncu's status and whether it was stopped as hung.
fn run_ncu(
    ncu: &Path,
    args: &[std::ffi::OsString],
    progress_log: Option<&Path>,
    program_output: ProgramOutput,
    expected_launches: Option<u64>,
    watch: Option<HangWatch>,
) -> Result<(ExitStatus, bool)> {
    // Only the timing pass has no log to read progress from.
    let activity = match progress_log {
        Some(_) => Activity::Profiling,
        None => Activity::Timing,
    };
    let interrupted = interrupted();
    let mut command = Command::new(ncu);
    command.args(args);
    if program_output == ProgramOutput::Discard {
        command.stdout(std::process::Stdio::null());
    }
    if program_output == ProgramOutput::Stderr {
        command.stdout(std::io::stderr());
    }
    let mut child = command
        .spawn()
        .map_err(|e| Error::new(format!("cannot start {}: {e}", ncu.display())))?;
    let progress = std::io::stderr().is_terminal().then(|| {
        Progress::start(
            activity,
            progress_log.map(Path::to_path_buf),
            expected_launches,
        )
    });
    let mut hung = || match (&watch, progress_log) {
        (Some(w), Some(log)) => w.hung(log),
        _ => false,
    };
    // ncu, stopped as hung, writes its report before it exits: 15 s for that.
    let waited = wait_or_stop_when(&mut child, interrupted, &mut hung, Duration::from_secs(15))?;
    let (status, stopped) = (waited.status, waited.stopped_as_hung);
    if let Some(p) = progress {
        p.stop();
    }
    if let (true, Some(w), Some(log)) = (stopped, &watch, progress_log) {
        say_why_stopped(w, log);
    }
    if interrupted.load(Ordering::SeqCst) {
        return Err(interrupted_error("ncu and the program were", &waited.left));
    }
    Ok((status, stopped))
}

/// Why ncu's run was stopped: it reached its bound under `--window`, or did nothing for
/// too long.
fn say_why_stopped(w: &HangWatch, log: &Path) {
    if let Some(bound) = w.past_bound() {
        crate::note!(
            "ncu's run reached its bound under --window ({:.0} s: the traced run's {:.1} s and \
             about {SECONDS_PER_LAUNCH} s for each of the {} launches chosen) after {} of \
             them were profiled: ncu and the program were stopped, and what ncu profiled is \
             linted; the kernels it did not reach are listed as not profiled",
            bound.as_secs_f64(),
            w.traced_run_time.as_secs_f64(),
            w.launches,
            w.profiled(log),
        );
    } else {
        crate::note!(
            "ncu and the program did nothing for {} s (the traced run took {:.1} s \
             in all), after {} of the {} launches chosen were profiled: they were stopped, \
             and what ncu profiled is linted. ncu 2025.3.1 hangs on a program that forks \
             after starting CUDA, and on one that execs under --target-processes all \
             (--ncu-arg=--target-processes --ncu-arg=application-only avoids that one)",
            w.grace.as_secs(),
            w.traced_run_time.as_secs_f64(),
            w.profiled(log),
            w.launches,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::progress::{Profiled, kernel_of_profiling_line, progress_line};
    use super::*;

    /// ncu writes no line per launch while it prints source pages (`--csv`): the watch
    /// waits 3 s more a launch before it calls such a run hung.
    #[test]
    fn a_run_quiet_while_it_profiles_gets_more_grace() {
        let traced = Duration::from_secs(2);
        assert_eq!(HangWatch::new(10, traced).grace, Duration::from_secs(26));
        let quiet = HangWatch::new(10, traced).quiet_while_profiling();
        assert_eq!(quiet.grace, Duration::from_secs(56));
    }

    /// Lines as ncu 2025.3 wrote them on the H200 with -o and --kernel-id
    /// (lab/runs/2026-11-30-tail-and-progress.txt), and one being profiled.
    #[test]
    fn the_progress_line_counts_the_launches_ncu_logged() {
        let log = "==PROF== Connected to process 1264 (/work/lud)\n\
            ==PROF== Profiling \"1:7:lud_diagonal(float *, int, int):1\": 0%....50%....100% - 8 passes\n\
            ==PROF== Profiling \"1:7:lud_perimeter(float *, int, int):1\": 0%....50%....100% - 8 passes\n\
            ==PROF== Profiling \"1:7:lud_internal(float *, int, int):1\": 0%....50";
        let seen = profiled_so_far(log);
        assert_eq!(seen.launches, 2);
        assert_eq!(seen.passes, Some(8));
        assert_eq!(
            seen.last.as_deref(),
            Some("lud_internal(float *, int, int)")
        );
        assert_eq!(
            progress_line(Activity::Profiling, &seen, None, 3, None),
            "profiled 2 launch(es), 8 passes each, last lud_internal, 3 s"
        );
        assert_eq!(
            progress_line(Activity::Profiling, &seen, Some(22), 3, Some(5)),
            "[#-------------------] profiled 2 of 22 launches, 8 passes each, last lud_internal, \
             about 5 s left"
        );
        assert_eq!(
            progress_line(Activity::Profiling, &Profiled::default(), Some(22), 1, None),
            "ncu is profiling the program, 22 launch(es) to profile, 1 s"
        );
        assert_eq!(
            progress_line(Activity::Profiling, &Profiled::default(), None, 1, None),
            "ncu is profiling the program, 1 s"
        );
        assert_eq!(
            progress_line(Activity::Timing, &Profiled::default(), None, 2, None),
            "timing every launch (duration only), 2 s"
        );
        // More launches than expected: the total was wrong, so neither it nor the time
        // left is shown.
        assert_eq!(
            progress_line(Activity::Profiling, &seen, Some(1), 3, Some(0)),
            "profiled 2 launch(es), 8 passes each, last lud_internal, 3 s"
        );
        let all = Profiled {
            launches: 22,
            ..seen
        };
        assert!(
            progress_line(Activity::Profiling, &all, Some(22), 9, Some(0))
                .starts_with("[####################] profiled 22 of 22")
        );
        // Before ncu 2023 the line named the kernel alone; a name with colons stays whole.
        let old = profiled_so_far("==PROF== Profiling \"copy\" - 0: 0%....50%....100% - 13 passes");
        assert_eq!((old.launches, old.passes), (1, Some(13)));
        assert_eq!(old.last.as_deref(), Some("copy"));
        assert_eq!(
            kernel_of_profiling_line("1:7:at::native::k<float>():12"),
            "at::native::k<float>()"
        );
        assert_eq!(kernel_of_profiling_line("ns::k()"), "ns::k()");
    }
}
