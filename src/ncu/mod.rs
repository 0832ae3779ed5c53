//! Running ncu on a program with the fewest metrics the enabled rules need, and reading
//! back what it wrote.

pub mod doctor;
pub mod locate;
pub mod tracer;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::chips::Chip;
use crate::error::{Error, Result};
use crate::ingest::{self, Sample};
use crate::metrics;
use crate::rules::Rule;

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
    /// Also collect the SourceCounters section and read the source page.
    pub source: bool,
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
    pub verbose: bool,
}

/// The metrics `--metrics` gets: what the rules read, the duration and occupancy every
/// report shows, and the roofline's inputs unless they are not wanted.
pub fn metric_list(rules: &[Rule], roofline: bool) -> Vec<&'static str> {
    metric_plan(rules, roofline, None).metrics
}

/// As [`metric_list`], for one chip: only metrics that exist there.
pub fn metric_plan(rules: &[Rule], roofline: bool, chip: Option<Chip>) -> metrics::Plan {
    let mut keys: Vec<String> = rules.iter().flat_map(|r| r.metric_keys()).collect();
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
    let out = Command::new(ncu).arg("--query-metrics").output();
    let chip = out
        .ok()
        .and_then(|o| crate::chips::from_query_output(&String::from_utf8_lossy(&o.stdout)));
    if verbose {
        match chip {
            Some(c) => eprintln!(
                "gpulint: the GPU's chip is {} (ncu --query-metrics)",
                c.name
            ),
            None => eprintln!(
                "gpulint: ncu --query-metrics named no chip; asking for the full metric list"
            ),
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

/// Where ncu writes what it collects.
pub enum Output<'a> {
    /// The raw page as CSV, in base units, to `--log-file`.
    RawCsv,
    /// A report file, imported as the raw page afterwards: ncu then writes a line per
    /// profiled launch to `--log-file`, which the progress line counts (with `--csv` it
    /// writes none), for the same time (docs/runs/2026-11-30-tail-and-progress.txt).
    Report {
        path: &'a Path,
        /// With the SourceCounters section too (`--source`): the source page can only be
        /// exported from a report.
        source: bool,
    },
}

/// ncu's arguments, up to and including the program and its arguments.
pub fn build_args(
    opts: &NcuOptions,
    metrics: &[&str],
    output: Output,
    log_file: &Path,
    program: &[String],
) -> Vec<String> {
    let mut args: Vec<String> = match output {
        Output::RawCsv => ["--csv", "--page", "raw", "--print-units", "base"]
            .map(String::from)
            .to_vec(),
        Output::Report { path, source } => {
            let mut args: Vec<String> = Vec::new();
            if source {
                args.extend(["--section".into(), "SourceCounters".into()]);
            }
            args.extend(["-o".into(), path.display().to_string()]);
            args
        }
    };
    args.extend([
        "--metrics".into(),
        metrics.join(","),
        "--log-file".into(),
        log_file.display().to_string(),
    ]);
    match (opts.sample, &opts.kernel_name) {
        (Some(s @ Sample::Spread(_)), name) => args.extend(spread_args(
            name.as_deref(),
            &s.invocations(),
            &opts.extra_args,
        )),
        (_, Some(k)) => args.extend(["--kernel-name".into(), k.clone()]),
        (_, None) => {}
    }
    if let Some(n) = opts.launch_skip {
        args.extend(["--launch-skip".into(), n.to_string()]);
    }
    match (opts.sample, opts.launch_count) {
        (Some(Sample::PerConfig(n)), _) => {
            if opts.kernel_name.is_none() && !has_kernel_name_base(&opts.extra_args) {
                args.extend(DEMANGLED_BASE.map(String::from));
            }
            args.extend([
                "--filter-mode".into(),
                "per-launch-config".into(),
                "--launch-count".into(),
                n.to_string(),
            ]);
        }
        (Some(Sample::Spread(_)), _) => {}
        (None, Some(n)) => args.extend(["--launch-count".into(), n.to_string()]),
        (None, None) => {}
    }
    if opts.target_processes_all {
        args.extend(["--target-processes".into(), "all".into()]);
    }
    args.extend(opts.extra_args.iter().cloned());
    args.extend(program.iter().cloned());
    args
}

/// The spread: `--kernel-id` with a regex of launch numbers, counted per kernel. ncu ignores
/// `--kernel-name` beside `--kernel-id`, so a name goes into the id, matched as `-k` would
/// (by function name). Without one, launches are counted per demangled name: by function
/// name, two instances of one template share a count, and the second one launched is
/// never profiled (docs/runs/2026-11-30-kernel-id-names.txt).
fn spread_args(
    kernel_name: Option<&str>,
    invocations: &[u64],
    extra_args: &[String],
) -> Vec<String> {
    let invocations: Vec<String> = invocations.iter().map(u64::to_string).collect();
    let mut args = Vec::new();
    if kernel_name.is_none() && !has_kernel_name_base(extra_args) {
        args.extend(DEMANGLED_BASE.map(String::from));
    }
    args.extend([
        "--kernel-id".into(),
        format!("::{}:{}", kernel_name.unwrap_or(""), invocations.join("|")),
    ]);
    args
}

/// Launches counted per demangled name: by ncu's default, the function name, two instances
/// of one template share a count, for `--kernel-id` and for the configurations of
/// `--filter-mode per-launch-config` alike (PyTorch's `vectorized_elementwise_kernel<4,
/// FillFunctor>` and `<4, GeluCUDAKernelImpl>`: docs/runs/2026-12-01-per-config-names.txt).
const DEMANGLED_BASE: [&str; 2] = ["--kernel-name-base", "demangled"];

fn has_kernel_name_base(extra_args: &[String]) -> bool {
    extra_args
        .iter()
        .any(|a| a.split('=').next() == Some("--kernel-name-base"))
}

/// Whether a `-k` pattern can stand in `--kernel-id`, whose fields are separated by `:`.
fn fits_kernel_id(kernel_name: &str) -> bool {
    !kernel_name
        .strip_prefix("regex:")
        .unwrap_or(kernel_name)
        .contains(':')
}

/// ncu options with which the user chose launches themselves: gpulint's sample would
/// change their meaning (`--launch-count` counts per configuration in its filter mode).
const LAUNCH_CHOOSING_ARGS: &[&str] = &[
    "--filter-mode",
    "--launch-count",
    "-c",
    "--launch-skip",
    "-s",
    "--launch-skip-before-match",
    "--kernel-id",
    "--range-filter",
    "--nvtx-include",
    "--nvtx-exclude",
];

/// What the user asked for, or left to gpulint.
pub struct LaunchChoice<'a> {
    pub per_config: Option<u64>,
    pub all_launches: bool,
    pub launch_skip: Option<u64>,
    pub launch_count: Option<u64>,
    pub kernel_name: Option<&'a str>,
}

/// Which launches to profile: `None` (every launch) when the user asked for all, or chose
/// launches with ncu's own options; per configuration when asked, or when a `-k` pattern
/// holds a `:` that `--kernel-id` cannot carry; otherwise the spread.
pub fn choose_sample(choice: &LaunchChoice, extra_args: &[String]) -> Option<Sample> {
    let chosen = extra_args.iter().any(|a| {
        let name = a.split('=').next().unwrap_or(a);
        LAUNCH_CHOOSING_ARGS.contains(&name)
    });
    if choice.all_launches
        || choice.launch_skip.is_some()
        || choice.launch_count.is_some()
        || chosen
    {
        return None;
    }
    match (choice.per_config, choice.kernel_name) {
        (Some(n), _) => Some(Sample::PerConfig(n)),
        (None, Some(k)) if !fits_kernel_id(k) => Some(Sample::PerConfig(DEFAULT_PER_CONFIG)),
        (None, _) => Some(Sample::SPREAD),
    }
}

/// Launches per configuration when a `-k` pattern rules out the spread.
const DEFAULT_PER_CONFIG: u64 = 3;

/// What came back from a run.
pub struct RunInfo {
    pub ncu: PathBuf,
    pub program_status: Option<i32>,
    /// ncu's raw-page CSV, to be streamed like any export; removed when dropped.
    pub csv: tempfile::NamedTempFile,
    /// The name reports give it: the `--save-csv` path, or `ncu:PROGRAM`.
    pub name: String,
    /// Per-source-line sectors (`--source`).
    pub source_blocks: Vec<ingest::source::SourceBlock>,
}

/// What is checked before the program runs at all: the ncu that will profile it (an
/// Nsight Compute ncu, not any file of that name), the program itself, and the chip to
/// plan the metrics for.
pub struct Prepared {
    pub ncu: PathBuf,
    pub chip: Option<Chip>,
}

/// Checks ncu, the program and the chip, before anything runs the program.
pub fn prepare(opts: &NcuOptions, program: &[String]) -> Result<Prepared> {
    // The program first: a typo in its name is the user's to fix on any machine, with
    // or without ncu.
    let first = program
        .first()
        .ok_or_else(|| Error::new("no program given to profile"))?;
    locate::find_program(first)?;
    let ncu = locate::find_ncu(opts.ncu.as_deref())?;
    locate::check_is_ncu(&ncu)?;
    let chip = local_chip(&ncu, opts.chip.as_deref(), opts.verbose)?;
    Ok(Prepared { ncu, chip })
}

/// Profiles `program` and checks what ncu wrote. The CSV is left on disk for the caller
/// to stream: a run of 100,000 launches is never held in memory whole.
pub fn profile(
    opts: &NcuOptions,
    prepared: &Prepared,
    rules: &[Rule],
    program: &[String],
) -> Result<RunInfo> {
    let (ncu, chip) = (prepared.ncu.clone(), prepared.chip);
    let first = &program[0];
    // Removed when dropped: on every return path, and after Ctrl-C below.
    let log = temp_csv("gpulint-ncu-")?;
    let plan = metric_plan(rules, opts.roofline, chip);
    if opts.verbose && !plan.unavailable.is_empty() {
        eprintln!(
            "gpulint: chip {} has no metric for {}; the rules and roofline that read them are skipped",
            chip.map_or("?", |c| c.name),
            plan.unavailable.join(", ")
        );
    }
    let report_dir = tempfile::tempdir()
        .map_err(|e| Error::new(format!("cannot create a temporary folder: {e}")))?;
    let report = report_dir.path().join("gpulint");
    let output = Output::Report {
        path: &report,
        source: opts.source,
    };
    let args = build_args(opts, &plan.metrics, output, log.path(), program);
    if opts.verbose {
        eprintln!("gpulint: {} {}", ncu.display(), shell_words(&args));
    }
    let program_output = if opts.program_output_to_stderr {
        ProgramOutput::Stderr
    } else {
        ProgramOutput::Inherit
    };
    let watch = opts
        .expected_launches
        .zip(opts.traced_run_time)
        .map(|(launches, time)| HangWatch::new(launches, time));
    let status = run_ncu(
        &ncu,
        &args,
        Some(log.path()),
        program_output,
        opts.expected_launches,
        watch,
    )?;
    let source_blocks = from_report(&ncu, &report, log.path(), status.code(), opts)?;
    check_log(log.path(), status.code())?;
    if let Some(dest) = &opts.save_csv {
        crate::atomic_file::copy(log.path(), Path::new(dest))?;
    }
    let name = opts
        .save_csv
        .clone()
        .unwrap_or_else(|| format!("ncu:{first}"));
    Ok(RunInfo {
        ncu,
        program_status: status.code(),
        csv: log,
        name,
        source_blocks,
    })
}

/// A temporary CSV, removed when dropped.
fn temp_csv(prefix: &str) -> Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(prefix)
        .suffix(".csv")
        .tempfile()
        .map_err(|e| Error::new(format!("cannot create a temporary file: {e}")))
}

/// A log without a CSV header: ncu's own message says what went wrong.
fn check_log(log: &Path, status: Option<i32>) -> Result<()> {
    if has_csv_header(log)? {
        return Ok(());
    }
    check_ncu_output(&read_log(log)?, status)
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
/// flush (docs/runs/2026-11-30-kernel-id-sample.txt). Returns its raw-page CSV, removed when
/// dropped.
pub fn time_every_launch(
    opts: &NcuOptions,
    ncu: &Path,
    program: &[String],
) -> Result<tempfile::NamedTempFile> {
    let log = temp_csv("gpulint-timing-")?;
    let mut extra_args = opts.extra_args.clone();
    if !extra_args
        .iter()
        .any(|a| a.split('=').next() == Some("--cache-control"))
    {
        extra_args.extend(["--cache-control".into(), "none".into()]);
    }
    let timing = NcuOptions {
        sample: None,
        launch_count: Some(opts.launch_count.unwrap_or(MAX_TIMED_LAUNCHES)),
        extra_args,
        ..opts.clone()
    };
    let args = build_args(
        &timing,
        &["gpu__time_duration.sum"],
        Output::RawCsv,
        log.path(),
        program,
    );
    if opts.verbose {
        eprintln!(
            "gpulint: timing pass: {} {}",
            ncu.display(),
            shell_words(&args)
        );
    }
    let status = run_ncu(ncu, &args, None, ProgramOutput::Discard, None, None)?;
    check_log(log.path(), status.code())?;
    Ok(log)
}

/// Runs ncu with a progress line on a terminal. Ctrl-C reaches ncu and the program
/// too; gpulint waits for them to stop, then cleans up instead of dying with the
/// temporary file left behind.
fn run_ncu(
    ncu: &Path,
    args: &[String],
    progress_log: Option<&Path>,
    program_output: ProgramOutput,
    expected_launches: Option<u64>,
    watch: Option<HangWatch>,
) -> Result<std::process::ExitStatus> {
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
        let stderr = std::os::fd::AsFd::as_fd(&std::io::stderr())
            .try_clone_to_owned()
            .map_err(|e| Error::new(format!("cannot duplicate stderr: {e}")))?;
        command.stdout(stderr);
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
    let (status, stopped) = wait_or_stop_when(&mut child, interrupted, &mut hung)?;
    if let Some(p) = progress {
        p.stop();
    }
    if let (true, Some(w), Some(log)) = (stopped, &watch, progress_log) {
        eprintln!(
            "gpulint: ncu and the program did nothing for {} s (the traced run took {:.1} s \
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
    if interrupted.load(Ordering::SeqCst) {
        return Err(Error::new("interrupted; ncu and the program were stopped"));
    }
    Ok(status)
}

/// Exports the raw page of the report to where the log was, to be streamed like any
/// export; with `--source`, each kernel's source page too, by its full base name.
fn from_report(
    ncu: &Path,
    report: &Path,
    log: &Path,
    status: Option<i32>,
    opts: &NcuOptions,
) -> Result<Vec<ingest::source::SourceBlock>> {
    let rep = format!("{}.ncu-rep", report.display());
    if !Path::new(&rep).exists() {
        let text = read_log(log)?;
        check_ncu_output(&text, status)?;
        return Err(Error::new(format!(
            "ncu wrote no report; its last lines:\n{text}"
        )));
    }
    let raw_page = [
        "--import",
        &rep,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
    ];
    import_to(ncu, &raw_page, log, opts.verbose)?;
    if !opts.source {
        return Ok(Vec::new());
    }
    let raw = ingest::parse_bytes("ncu report", &read_bytes(log)?)?;
    source_pages(ncu, &rep, &raw, opts.verbose)
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::new(format!("cannot read {}: {e}", path.display())))
}

/// Runs `ncu --import ...` with its output written to `dest`, not held in memory: the
/// raw page of a long run is large.
fn import_to(ncu: &Path, args: &[&str], dest: &Path, verbose: bool) -> Result<()> {
    let file = std::fs::File::create(dest)
        .map_err(|e| Error::new(format!("cannot write {}: {e}", dest.display())))?;
    run_import(ncu, args, file.into(), verbose).map(|_| ())
}

/// Each kernel's source page from a report, by its full base name; a kernel without
/// line info gives none.
pub fn source_pages(
    ncu: &Path,
    rep: &str,
    raw: &ingest::Profile,
    verbose: bool,
) -> Result<Vec<ingest::source::SourceBlock>> {
    let mut bases: Vec<String> = raw
        .launches
        .iter()
        .map(|l| ingest::base_name(&l.name))
        .collect();
    bases.sort();
    bases.dedup();
    let mut blocks = Vec::new();
    for base in bases {
        let source_page = [
            "--import",
            rep,
            "--csv",
            "--page",
            "source",
            "--print-source",
            "cuda,sass",
            "-k",
            &base,
        ];
        let page = import(ncu, &source_page, verbose)?;
        // A kernel without line info has no source rows: nothing to name.
        if let Ok(b) = ingest::source::parse(&format!("source page of {base}"), page.as_bytes()) {
            blocks.extend(b);
        }
    }
    Ok(blocks)
}

/// ncu's log, whole: only read when it holds no CSV (an error), so it is short.
fn read_log(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path)
        .map_err(|e| Error::new(format!("cannot read ncu's output {}: {e}", path.display())))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Whether ncu's log holds a CSV header, read a line at a time.
fn has_csv_header(path: &Path) -> Result<bool> {
    use std::io::BufRead;
    let file = std::fs::File::open(path)
        .map_err(|e| Error::new(format!("cannot read ncu's output {}: {e}", path.display())))?;
    let mut line = Vec::new();
    let mut reader = std::io::BufReader::new(file);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return Ok(false),
            Ok(_) if line.starts_with(b"\"ID\"") || line.starts_with(b"ID,") => return Ok(true),
            Ok(_) => {}
            Err(e) => {
                return Err(Error::new(format!(
                    "cannot read ncu's output {}: {e}",
                    path.display()
                )));
            }
        }
    }
}

/// Set by Ctrl-C, which reaches ncu and the program too (one process group). The handler is
/// installed once per process: a second `ctrlc::set_handler` fails, and a run after the
/// first (the traced run, then ncu) would never see the flag it made.
pub(crate) fn interrupted() -> &'static AtomicBool {
    static INTERRUPTED: AtomicBool = AtomicBool::new(false);
    static HANDLER: std::sync::Once = std::sync::Once::new();
    HANDLER.call_once(|| {
        let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
    &INTERRUPTED
}

/// Waits for ncu. After Ctrl-C, ncu normally stops by itself (the terminal signals the
/// whole process group); if it has not within 3 s, it gets SIGTERM, then SIGKILL, so
/// gpulint always gets to clean up. A child that `hung` says is hung gets SIGTERM at once
/// (ncu then shuts its target down and writes the report of what it profiled), SIGKILL
/// 15 s later. Also says whether it was stopped as hung.
pub(crate) fn wait_or_stop_when(
    child: &mut std::process::Child,
    interrupted: &AtomicBool,
    hung: &mut dyn FnMut() -> bool,
) -> Result<(std::process::ExitStatus, bool)> {
    // When the stop began, and how long to wait before SIGTERM and then SIGKILL.
    let mut since: Option<(std::time::Instant, Duration, Duration)> = None;
    // The processes signalled: the child's whole tree (ncu runs the program under
    // launchers of its own), taken when the stop begins.
    let mut tree: Vec<u32> = Vec::new();
    let mut termed = false;
    let mut stopped_as_hung = false;
    let mut exited = None;
    loop {
        if exited.is_none() {
            exited = child
                .try_wait()
                .map_err(|e| Error::new(format!("waiting for ncu or the program: {e}")))?;
        }
        // A hung tree is waited for whole: no process of it is left behind.
        let tree_gone = !stopped_as_hung || tree.iter().all(|&p| !process_exists(p));
        if let Some(status) = exited.filter(|_| tree_gone) {
            return Ok((status, stopped_as_hung));
        }
        if since.is_none() {
            let now = std::time::Instant::now();
            if interrupted.load(Ordering::SeqCst) {
                since = Some((now, Duration::from_secs(3), Duration::from_secs(6)));
            } else if hung() {
                since = Some((now, Duration::ZERO, Duration::from_secs(15)));
                stopped_as_hung = true;
                tree = process_tree(child.id());
            }
        }
        if let Some((t, term_after, kill_after)) = since {
            if !termed && t.elapsed() >= term_after {
                if tree.is_empty() {
                    tree = process_tree(child.id());
                }
                signal(&tree, "-TERM");
                termed = true;
            } else if t.elapsed() > kill_after {
                signal(&tree, "-KILL");
                let _ = child.kill();
                if let Some(status) = exited {
                    return Ok((status, stopped_as_hung));
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `pid` and every process descended from it, from /proc (parents before children).
pub(crate) fn process_tree(pid: u32) -> Vec<u32> {
    let mut parent_of: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(id) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parent_of.push((id, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parent_of
                .iter()
                .filter(|(_, p)| *p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    tree
}

fn process_exists(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit_once(')')
            .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
    })
}

/// Sends `signal` (`-TERM`, `-KILL`) to each process of `pids`.
pub(crate) fn signal(pids: &[u32], signal: &str) {
    if pids.is_empty() {
        return;
    }
    let _ = Command::new("kill")
        .arg(signal)
        .args(pids.iter().map(u32::to_string))
        .stderr(std::process::Stdio::null())
        .status();
}

/// Tells an ncu run that hangs: its log, where ncu writes a line as each chosen launch is
/// profiled, says nothing new for `grace`, 20 s plus three times the whole traced run of
/// the program. The program then outlived its expected time by a wide margin with no
/// profiling: seen with ncu 2025.3.1 on programs that fork after starting CUDA (right
/// after the fork) and on ones that exec (after the last launch).
pub struct HangWatch {
    launches: u64,
    traced_run_time: Duration,
    grace: Duration,
    log_len: std::cell::Cell<u64>,
    quiet_since: std::cell::Cell<Option<std::time::Instant>>,
}

impl HangWatch {
    pub fn new(launches: u64, traced_run_time: Duration) -> HangWatch {
        HangWatch {
            launches,
            traced_run_time,
            grace: Duration::from_secs(20) + traced_run_time * 3,
            log_len: std::cell::Cell::new(0),
            quiet_since: std::cell::Cell::new(None),
        }
    }

    fn hung(&self, log: &Path) -> bool {
        let len = std::fs::metadata(log).map_or(0, |m| m.len());
        let now = std::time::Instant::now();
        if len != self.log_len.get() || self.quiet_since.get().is_none() {
            self.log_len.set(len);
            self.quiet_since.set(Some(now));
            return false;
        }
        self.quiet_since
            .get()
            .is_some_and(|t| now.duration_since(t) >= self.grace)
    }

    /// Launches profiled so far, by the log.
    fn profiled(&self, log: &Path) -> u64 {
        profiled_so_far(&std::fs::read_to_string(log).unwrap_or_default()).launches
    }
}

/// Runs `ncu --import ...` and returns what it printed.
fn import(ncu: &Path, args: &[&str], verbose: bool) -> Result<String> {
    let out = run_import(ncu, args, std::process::Stdio::piped(), verbose)?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Runs `ncu --import ...` with its output sent to `stdout`; ncu's stderr says why it
/// failed.
fn run_import(
    ncu: &Path,
    args: &[&str],
    stdout: std::process::Stdio,
    verbose: bool,
) -> Result<std::process::Output> {
    if verbose {
        eprintln!("gpulint: {} {}", ncu.display(), args.join(" "));
    }
    let out = Command::new(ncu)
        .args(args)
        .stdout(stdout)
        .output()
        .map_err(|e| Error::new(format!("cannot start {}: {e}", ncu.display())))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "`ncu {}` failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(out)
}

/// Whether a file is an Nsight Compute report rather than a CSV: by its name, or by the
/// `NVR` bytes reports start with.
pub fn is_report(path: &str) -> bool {
    if path.ends_with(".ncu-rep") || path.ends_with(".ncu-repz") {
        return true;
    }
    let mut head = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
        .is_ok_and(|()| &head == b"NVR\0")
}

/// Exports a report's raw page through the user's own ncu (`ncu --import`) into a
/// temporary CSV, read like any export. NVIDIA's report format is not ours to parse.
pub fn import_report(path: &str, verbose: bool) -> Result<Imported> {
    let export = format!("ncu --import {path} --csv --page raw --print-units base > export.csv");
    let ncu = locate::find_ncu(None).map_err(|e| {
        Error::in_file(
            path,
            format!(
                "an Nsight Compute report is read through ncu, and none was found ({e}); \
                 export it where ncu is: `{export}`, then `gpulint check export.csv`"
            ),
        )
    })?;
    let args = [
        "--import",
        path,
        "--csv",
        "--page",
        "raw",
        "--print-units",
        "base",
    ];
    let text = import(&ncu, &args, verbose).map_err(|e| Error::in_file(path, e.to_string()))?;
    let mut csv = temp_csv("gpulint-import-")?;
    csv.write_all(text.as_bytes())
        .map_err(|e| Error::new(format!("cannot write a temporary file: {e}")))?;
    Ok(Imported { csv, ncu })
}

/// A report's raw page, exported to a temporary CSV, and the ncu that did it.
pub struct Imported {
    pub csv: tempfile::NamedTempFile,
    pub ncu: PathBuf,
}

/// Turns ncu's failure modes into one clear message each.
pub fn check_ncu_output(log: &str, status: Option<i32>) -> Result<()> {
    if log.contains("ERR_NVGPUCTRPERM") {
        return Err(Error::new(
            "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): run as root, or \
             let all users profile by loading the nvidia module with \
             NVreg_RestrictProfilingToAdminUsers=0; see \
             https://developer.nvidia.com/ERR_NVGPUCTRPERM",
        ));
    }
    let has_rows = log
        .lines()
        .any(|l| l.starts_with("\"ID\"") || l.starts_with("ID,"));
    if has_rows {
        return Ok(());
    }
    if log.contains("No kernels were profiled") {
        return Err(Error::new(
            "no kernel was profiled: the program launched none, or --kernel-name / --launch-skip \
             matched none",
        ));
    }
    let tail: Vec<&str> = log
        .lines()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let status = status.map_or("killed by a signal".to_string(), |c| {
        format!("exit status {c}")
    });
    Err(Error::new(format!(
        "ncu produced no profile ({status}); its last lines:\n{}",
        if tail.is_empty() {
            "(nothing)".to_string()
        } else {
            tail.join("\n")
        }
    )))
}

fn shell_words(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
            {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What ncu's log says it has profiled so far.
#[derive(Debug, Default, PartialEq)]
struct Profiled {
    /// Launches whose every pass is done.
    launches: u64,
    /// Replay passes per launch, of the last one done.
    passes: Option<u64>,
    /// The kernel of the last launch begun.
    last: Option<String>,
}

/// Reads ncu's `==PROF== Profiling "1:7:lud_diagonal(float *, int, int):1": 0%....100% -
/// 8 passes` lines (`"name" - 0: ...` before 2023). A line without its passes is the
/// launch being profiled.
fn profiled_so_far(log: &str) -> Profiled {
    let mut seen = Profiled::default();
    for line in log.lines().filter(|l| l.starts_with("==PROF== Profiling ")) {
        let Some(quoted) = line.split('"').nth(1) else {
            continue;
        };
        seen.last = Some(kernel_of_profiling_line(quoted).to_string());
        let passes = line
            .rsplit_once(" - ")
            .and_then(|(_, tail)| {
                tail.strip_suffix(" passes")
                    .or_else(|| tail.strip_suffix(" pass"))
            })
            .and_then(|n| n.trim().parse().ok());
        if passes.is_some() {
            seen.launches += 1;
            seen.passes = passes;
        }
    }
    seen
}

/// `1:7:name(args):3` (context, stream, name, launch number of that kernel) or `name`.
fn kernel_of_profiling_line(quoted: &str) -> &str {
    let mut fields = quoted.splitn(3, ':');
    let (context, stream, rest) = (fields.next(), fields.next(), fields.next());
    let numeric =
        |f: Option<&str>| f.is_some_and(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    match rest {
        Some(rest) if numeric(context) && numeric(stream) => match rest.rsplit_once(':') {
            Some((name, n)) if numeric(Some(n)) => name,
            _ => rest,
        },
        _ => quoted,
    }
}

/// What the progress line says before a launch is seen done.
#[derive(Debug, Clone, Copy)]
enum Activity {
    Profiling,
    Timing,
}

/// One status line: what is done, and the time so far or, when the number of launches to
/// profile is known, about how much is left.
fn progress_line(
    activity: Activity,
    seen: &Profiled,
    expected: Option<u64>,
    elapsed: u64,
    left: Option<u64>,
) -> String {
    if seen.launches == 0 {
        return match activity {
            Activity::Profiling => format!("ncu is profiling the program, {elapsed} s"),
            Activity::Timing => format!("timing every launch (duration only), {elapsed} s"),
        };
    }
    let passes = seen
        .passes
        .map(|p| format!(", {p} passes each"))
        .unwrap_or_default();
    // A count past the expected total (ncu may count a kernel's launches per loaded copy
    // of it, and so profile more of them) makes the total and the time left unknown.
    let expected = expected.filter(|&n| n >= seen.launches);
    let left = left.filter(|_| expected.is_some());
    let done = match expected {
        Some(n) => format!("profiled {} of {n} launches", seen.launches),
        None => format!("profiled {} launch(es)", seen.launches),
    };
    let last = seen
        .last
        .as_deref()
        .map(|n| format!(", last {}", crate::kernel::short_name(n)))
        .unwrap_or_default();
    match left {
        Some(left) => format!("{done}{passes}{last}, about {left} s left"),
        None => format!("{done}{passes}{last}, {elapsed} s"),
    }
}

/// Shows on one rewritten stderr line what ncu has profiled, from its log.
struct Progress {
    stop: Arc<AtomicBool>,
    handle: std::thread::JoinHandle<()>,
}

impl Progress {
    /// `log` is ncu's `--log-file` while it writes a report (a line per launch); without
    /// one (the timing pass, whose log is the CSV), only the time so far is shown.
    fn start(activity: Activity, log: Option<PathBuf>, expected: Option<u64>) -> Progress {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            let started = std::time::Instant::now();
            // When the first launch was seen done: the rate is measured from there, after
            // the program's own start-up.
            let mut first: Option<(std::time::Instant, u64)> = None;
            let mut shown = false;
            while !flag.load(Ordering::SeqCst) {
                let seen = log
                    .as_ref()
                    .map(|l| profiled_so_far(&std::fs::read_to_string(l).unwrap_or_default()))
                    .unwrap_or_default();
                if seen.launches > 0 && first.is_none() {
                    first = Some((std::time::Instant::now(), seen.launches));
                }
                let left = match (expected, first) {
                    (Some(n), Some((t, done))) if seen.launches > done => {
                        let per_launch = t.elapsed().as_secs_f64() / (seen.launches - done) as f64;
                        Some((per_launch * n.saturating_sub(seen.launches) as f64).ceil() as u64)
                    }
                    _ => None,
                };
                let elapsed = started.elapsed().as_secs();
                // Quiet for the first second: most small programs are done by then.
                if elapsed >= 1 {
                    let status = progress_line(activity, &seen, expected, elapsed, left);
                    eprint!("\r\x1b[2Kgpulint: {status}");
                    shown = true;
                }
                std::thread::sleep(Duration::from_millis(250));
            }
            if shown {
                eprint!("\r\x1b[2K");
            }
        });
        Progress { stop, handle }
    }

    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.handle.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines as ncu 2025.3 wrote them on the H200 with -o and --kernel-id
    /// (docs/runs/2026-11-30-tail-and-progress.txt), and one being profiled.
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
            "profiled 2 of 22 launches, 8 passes each, last lud_internal, about 5 s left"
        );
        assert_eq!(
            progress_line(Activity::Profiling, &Profiled::default(), Some(22), 1, None),
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

    #[test]
    fn failure_modes_have_their_own_messages() {
        let perm = check_ncu_output(
            "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission",
            Some(1),
        );
        assert!(
            perm.unwrap_err()
                .message
                .contains("NVreg_RestrictProfilingToAdminUsers=0")
        );
        let none = check_ncu_output("==WARNING== No kernels were profiled.\n", Some(0));
        assert!(none.unwrap_err().message.contains("no kernel was profiled"));
        let crash = check_ncu_output(
            "==PROF== Connected\n==ERROR== The application returned an error code (11).\n",
            None,
        );
        let msg = crash.unwrap_err().message;
        assert!(
            msg.contains("killed by a signal") && msg.contains("error code (11)"),
            "{msg}"
        );
        assert!(check_ncu_output("\"ID\",\"Process ID\",\"Kernel Name\"\n", Some(0)).is_ok());
    }
}
