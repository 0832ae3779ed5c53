//! gpulint's launch tracer (launch_tracer.cpp): a CUPTI library that the CUDA driver loads
//! into the program through `CUDA_INJECTION64_PATH`, which writes every kernel launch to a
//! trace (see [`crate::ingest::trace`]). On the H200 a traced run took the time of a bare
//! run, where ncu's duration-only pass took 1.6-12.9 s more
//! (lab/runs/2026-12-01-launch-trace.txt).
//!
//! It runs the user's program once more, so everything it needs is checked before that
//! run (ncu is checked by the caller): the CUPTI to load ([`cupti`]) and the built library
//! ([`cache`]). The traced run gets the program's input and output as the profiled run
//! does, and a watchdog: a program done with CUDA that does not exit is stopped.

pub mod cache;
pub mod cupti;

use std::io::{Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// The launch tracer's source as the compiler reads it on stdin: launch_tracer.cpp with
/// the parts it includes put in place of their `#include` lines (the file itself compiles
/// where its folder is at hand: the tests and the device scripts build it by path).
pub(crate) static SOURCE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    with_parts(
        include_str!("launch_tracer.cpp"),
        &[
            (
                "launch_tracer_sass.inc",
                include_str!("launch_tracer_sass.inc"),
            ),
            (
                "launch_tracer_stalls.inc",
                include_str!("launch_tracer_stalls.inc"),
            ),
            (
                "launch_tracer_counters.inc",
                include_str!("launch_tracer_counters.inc"),
            ),
        ],
    )
});

/// `main` with each `#include "NAME"` line of `parts` replaced by that part's text.
fn with_parts(main: &str, parts: &[(&str, &str)]) -> String {
    let mut source = String::new();
    for line in main.split_inclusive('\n') {
        let directive = line.trim_end();
        let part = (parts.iter()).find(|(name, _)| directive == format!("#include \"{name}\""));
        source.push_str(part.map_or(line, |(_, text)| text));
    }
    source
}

/// Names a built tracer library to use as is, or `off` to never trace.
pub const TRACER_ENV: &str = "GPULINT_LAUNCH_TRACER";

/// Names the CUPTI library the tracer loads, where gpulint would not find it.
pub const CUPTI_ENV: &str = "GPULINT_CUPTI";

/// Seconds after its first kernel launch at which the tracer ends the program (`--window`).
pub const WINDOW_ENV: &str = "GPULINT_TRACE_WINDOW_S";

/// The line the tracer writes when the window ended the program.
pub const WINDOW_ENDED: &str = "# stopped at the end of its window";

/// How long a program may go on after its trace says it is done with CUDA.
pub const EXIT_GRACE: Duration = Duration::from_secs(10);

/// What a traced run needs: the tracer library and the CUPTI library it loads.
#[derive(Debug)]
pub struct Tracer {
    pub library: PathBuf,
    pub cupti: cupti::Cupti,
    /// Keeps a private build alive for the run.
    _built: Option<cache::Library>,
}

/// Whether `GPULINT_LAUNCH_TRACER=off` says the program is not to run under the tracer.
pub fn switched_off() -> bool {
    std::env::var_os(TRACER_ENV).is_some_and(|v| v == "off")
}

/// The tracer: `$GPULINT_LAUNCH_TRACER`, else the one built from this gpulint's source,
/// building it the first time; and the CUPTI that suits `ncu` and the driver. `Err` says
/// why there is none.
pub fn prepare(ncu: &Path, verbose: bool) -> Result<Tracer, String> {
    let chosen = std::env::var_os(TRACER_ENV).filter(|v| !v.is_empty());
    if switched_off() {
        return Err(format!("{TRACER_ENV}=off"));
    }
    // Found first: where there is no CUPTI, nothing is built.
    let cupti = cupti::choose(Some(ncu), cupti::driver_cuda_version())?;
    if verbose {
        let version = cupti
            .version
            .map_or("version unknown".into(), |v| format!("CUPTI {v}"));
        crate::note!(
            "the launch tracer loads {} ({version}, {})",
            cupti.path.display(),
            cupti.found
        );
    }
    if let Some(v) = chosen {
        let library = PathBuf::from(v);
        if !library.is_file() {
            return Err(format!("{TRACER_ENV}={}: no such file", library.display()));
        }
        return Ok(Tracer {
            library,
            cupti,
            _built: None,
        });
    }
    let compiler = compiler().ok_or("no C++ compiler (c++, g++ or clang++) on PATH to build it")?;
    let toolchain = cache::Toolchain::probe(&compiler);
    let built = cache::library(
        &toolchain,
        crate::profile::cache_folder::cache_dir().as_deref(),
        verbose,
    )?;
    if let (true, Some(why)) = (verbose, &built.cache_passed_over) {
        crate::note!(
            "the launch tracer's cache is not used ({why}); it was built privately for this run"
        );
    }
    Ok(Tracer {
        library: built.path.clone(),
        cupti,
        _built: Some(built),
    })
}

/// The first C++ compiler on PATH.
pub fn compiler() -> Option<PathBuf> {
    ["c++", "g++", "clang++"]
        .iter()
        .find_map(|c| which::which(c).ok())
}

/// What the program reads in the traced run, so that the profiled run reads the same.
pub enum Input {
    /// A terminal, /dev/null or nothing: each run reads it as it is.
    Shared,
    /// A file: read by the traced run, then rewound to where it stood.
    File { file: std::fs::File, at: u64 },
}

/// How gpulint's stdin can be given to two runs of the program, or why it cannot: a pipe
/// or socket is read once, so the program then runs once.
pub fn input() -> Result<Input, String> {
    let Some(mut file) = crate::platform::stdin_file() else {
        return Ok(Input::Shared);
    };
    let Ok(meta) = file.metadata() else {
        return Ok(Input::Shared);
    };
    let kind = meta.file_type();
    if kind.is_file() {
        let at = file.stream_position().unwrap_or(0);
        return Ok(Input::File { file, at });
    }
    if crate::platform::is_pipe(&kind) {
        return Err(
            "stdin is a pipe, which only one run of the program can read (give it \
                    a file with < FILE to count every launch)"
                .into(),
        );
    }
    Ok(Input::Shared)
}

impl Input {
    /// Puts a file back where the traced run found it, for the profiled run.
    fn rewind(&mut self) {
        if let Input::File { file, at } = self {
            let _ = file.seek(SeekFrom::Start(*at));
        }
    }
}

/// What a traced run gave: the trace's text, how long the program ran, and, where asked
/// for, the SASS counters of the first launch of each of the user's kernels and the warps'
/// stall samples of the user's kernels over the run (each `None` when the CUPTI loaded
/// lacks the API, or nothing was collected).
pub struct Traced {
    pub text: String,
    pub took: Duration,
    /// The program's exit status (`None`: a signal).
    pub program_status: Option<i32>,
    /// gpulint's watchdog stopped it, done with CUDA and hung: its status says nothing.
    pub stopped_after_cuda: bool,
    pub source_counters: Option<String>,
    pub stall_samples: Option<String>,
    /// What the tracer wrote of the counters [`Asked::counters`] asked for, where it wrote
    /// anything: its header line, a row per profiled launch, and the step that failed.
    pub counters: Option<String>,
}

/// What a traced run is asked for besides the trace: to end `window` seconds after its
/// first CUDA call, `--source`'s counts, and `counters` on the launches the tracer picks
/// (one run of the program: `crate::profile::one_run`).
#[derive(Clone, Copy, Default)]
pub struct Asked<'a> {
    pub window: Option<u64>,
    pub source: Option<&'a TracedSource>,
    pub counters: Option<&'a RunCounters>,
}

/// The counters the tracer reads with CUPTI's range profiler in the traced run itself
/// (launch_tracer_counters.inc): these metrics (ncu's names), on at most `most_launches`
/// launches it picks as they come.
#[derive(Debug, Clone, PartialEq)]
pub struct RunCounters {
    pub metrics: Vec<String>,
    pub most_launches: u64,
}

/// Names the file the tracer writes the counters' rows to.
pub const COUNTERS_OUT_ENV: &str = "GPULINT_COUNTERS_OUT";
/// Names the metrics (comma-separated) the tracer's counters read.
pub const COUNTER_METRICS_ENV: &str = "GPULINT_COUNTER_METRICS";
/// The most launches the tracer's counters profile.
pub const COUNTER_LAUNCHES_ENV: &str = "GPULINT_COUNTER_LAUNCHES";

impl RunCounters {
    /// Tells the tracer what to read, and that its rows go to `out`.
    fn name_in(&self, command: &mut Command, out: &Path) {
        command
            .env(COUNTERS_OUT_ENV, out)
            .env(COUNTER_METRICS_ENV, self.metrics.join(","))
            .env(COUNTER_LAUNCHES_ENV, self.most_launches.to_string());
    }
}

/// What the traced run collects for `--source`, besides the trace: the SASS counters of
/// the first launch of each of the user's kernels (of these, by mangled name, where
/// `kernels` names some), and where `stalls`, the warps' stall samples of the user's
/// kernels over the run.
#[derive(Debug, Clone, PartialEq)]
pub struct TracedSource {
    pub stalls: bool,
    pub kernels: Option<Vec<String>>,
}

/// Names the file the tracer writes `--source`'s SASS counters to.
pub const SASS_OUT_ENV: &str = "GPULINT_SASS_OUT";
/// Names the file the tracer writes `--source`'s stall samples to.
pub const STALL_OUT_ENV: &str = "GPULINT_STALL_OUT";
/// Names the kernels (mangled, comma-separated) whose first launch the tracer counts.
pub const SASS_KERNELS_ENV: &str = "GPULINT_SASS_KERNELS";

/// A temporary CSV file for what the traced run writes, named `prefix...`: ncu's own
/// ([`super::temp_csv`]), its error as the traced run's reasons are.
fn temporary(prefix: &str) -> Result<tempfile::NamedTempFile, String> {
    super::temp_csv(prefix).map_err(|e| e.to_string())
}

/// The files the tracer writes `--source`'s rows to, as `source` asks, and the kernels it
/// counts.
struct SourceFiles {
    counters: Option<tempfile::NamedTempFile>,
    stalls: Option<tempfile::NamedTempFile>,
    kernels: Option<String>,
}

impl SourceFiles {
    /// The files for `source`, the stall samples' only where the CUPTI's records are
    /// `sampling_known`.
    fn new(source: Option<&TracedSource>, sampling_known: bool) -> Result<SourceFiles, String> {
        Ok(SourceFiles {
            counters: source.map(|_| temporary("gpulint-sass-")).transpose()?,
            stalls: (source.is_some_and(|s| s.stalls) && sampling_known)
                .then(|| temporary("gpulint-stalls-"))
                .transpose()?,
            kernels: source.and_then(|s| Some(s.kernels.as_ref()?.join(","))),
        })
    }

    /// Names the files and the kernels to the tracer.
    fn name_in(&self, command: &mut Command) {
        if let Some(c) = &self.counters {
            command.env(SASS_OUT_ENV, c.path());
        }
        if let Some(s) = &self.stalls {
            command.env(STALL_OUT_ENV, s.path());
        }
        if let Some(k) = &self.kernels {
            command.env(SASS_KERNELS_ENV, k);
        }
    }

    /// What the tracer wrote: the counters and the stall samples, each where it wrote rows.
    fn read(self) -> (Option<String>, Option<String>) {
        let rows = |file: Option<tempfile::NamedTempFile>| {
            file.and_then(|f| std::fs::read_to_string(f.path()).ok())
                .filter(|t| t.lines().nth(1).is_some())
        };
        (rows(self.counters), rows(self.stalls))
    }
}

/// Runs the program once under the tracer, with gpulint's stdin, its stdout where the
/// profiled run sends it (stderr when a machine format owns stdout), and returns the
/// trace's text, how long the program ran, and what `source` asks for `--source`. `Err`
/// says why there is none: a program that made no CUDA call, or one killed before it could
/// write it. A program that does not exit [`EXIT_GRACE`] after its trace says it is done
/// with CUDA (hung in a teardown) is stopped, and its trace kept.
pub fn trace(
    tracer: &Tracer,
    program: &[std::ffi::OsString],
    input: &mut Input,
    output_to_stderr: bool,
    asked: &Asked,
    verbose: bool,
) -> Result<Traced, String> {
    let Asked {
        window,
        source,
        counters,
    } = *asked;
    let out = temporary("gpulint-trace-")?;
    let version = tracer.cupti.version;
    let sampling_known = version.is_some_and(|v| v >= cupti::PC_SAMPLING_SINCE);
    if verbose && source.is_some_and(|s| s.stalls) && !sampling_known {
        crate::note!(
            "--source: the tracer samples no stalls under CUPTI {} (its PC-sampling records \
             are known from {} on); the stall samples come from ncu",
            version.map_or("of unknown version".into(), |v| v.to_string()),
            cupti::PC_SAMPLING_SINCE
        );
    }
    let files = SourceFiles::new(source, sampling_known)?;
    let counted = counters
        .map(|c| Ok::<_, String>((c, temporary("gpulint-counters-")?)))
        .transpose()?;
    let mut command = traced_command(tracer, program, out.path(), window);
    files.name_in(&mut command);
    if let Some((c, file)) = &counted {
        c.name_in(&mut command, file.path());
    }
    if output_to_stderr {
        command.stdout(std::io::stderr());
    }
    if verbose {
        crate::note!(
            "counting every launch: CUDA_INJECTION64_PATH={} {CUPTI_ENV}={} {}",
            tracer.library.display(),
            tracer.cupti.path.display(),
            crate::profile::command_line(program)
        );
    }
    let interrupted = super::interrupted();
    let started = Instant::now();
    let mut child = command
        .spawn()
        .map_err(|e| format!("{}: {e}", crate::profile::program_name(program)))?;
    let outcome = wait_with_watchdog(&mut child, out.path(), EXIT_GRACE);
    input.rewind();
    let ended = outcome?;
    let took = started.elapsed();
    if interrupted.load(Ordering::SeqCst) {
        return Err(super::interrupted_error("the program was", &ended.left).to_string());
    }
    let text = std::fs::read_to_string(out.path()).unwrap_or_default();
    if text.is_empty() {
        return Err(format!(
            "the traced run ({}) wrote no trace: it made no CUDA call, or did not exit \
             normally",
            ended.status
        ));
    }
    say_how_it_stopped(window, &text, &ended, program);
    let (source_counters, stall_samples) = files.read();
    let counters = counted.and_then(|(_, file)| std::fs::read_to_string(file.path()).ok());
    Ok(Traced {
        text,
        took,
        program_status: ended.status.code(),
        stopped_after_cuda: ended.stopped_after_cuda,
        source_counters,
        stall_samples,
        counters: counters.filter(|t| !t.is_empty()),
    })
}

/// Where gpulint ended the traced run, says so: at the end of its `window`, or done with
/// CUDA and hung.
fn say_how_it_stopped(
    window: Option<u64>,
    text: &str,
    ended: &Ended,
    program: &[std::ffi::OsString],
) {
    if let (Some(seconds), true) = (window, text.contains(WINDOW_ENDED)) {
        crate::note!(
            "the traced run of {} was stopped at the end of its {seconds} s window \
             (--window)",
            crate::profile::program_name(program)
        );
    } else if ended.stopped_after_cuda {
        crate::note!(
            "the traced run of {} was done with CUDA but had not exited {} s later; \
             it was stopped, and its trace kept",
            crate::profile::program_name(program),
            EXIT_GRACE.as_secs()
        );
    }
}

/// The program under the tracer, its trace to `out`, ended after `window` seconds if given.
fn traced_command(
    tracer: &Tracer,
    program: &[std::ffi::OsString],
    out: &Path,
    window: Option<u64>,
) -> Command {
    let mut command = Command::new(&program[0]);
    command
        .args(&program[1..])
        .env("CUDA_INJECTION64_PATH", &tracer.library)
        .env(CUPTI_ENV, &tracer.cupti.path)
        .env("GPULINT_TRACE_OUT", out)
        .stdin(Stdio::inherit());
    if let Some(seconds) = window {
        command.env(WINDOW_ENV, seconds.to_string());
    }
    command
}

/// How a traced run ended.
pub struct Ended {
    pub status: std::process::ExitStatus,
    /// The watchdog stopped it after its trace was written.
    pub stopped_after_cuda: bool,
    /// What outlived a stop (see [`super::process::Waited::left`]).
    pub left: Vec<u32>,
}

/// Waits for the traced program, through [`super::wait_or_stop_when`]: Ctrl-C stops it as
/// it stops ncu, and a program whose own block of the trace has closed (the tracer's `# end
/// of process PID` line) and that has not exited `grace` later is stopped as hung: its tree
/// gets SIGTERM, then SIGKILL 3 s later (it has no report to write, unlike ncu).
pub fn wait_with_watchdog(
    child: &mut std::process::Child,
    trace: &Path,
    grace: Duration,
) -> Result<Ended, String> {
    let done_line = format!("# end of process {}\n", child.id());
    let mut done_since: Option<Instant> = None;
    let mut trace_len = 0;
    let mut hung = || {
        // Only a trace that grew is read again.
        let len = std::fs::metadata(trace).map_or(0, |m| m.len());
        if done_since.is_none() && len != trace_len {
            trace_len = len;
            let text = std::fs::read_to_string(trace).unwrap_or_default();
            if text.contains(&done_line) {
                done_since = Some(Instant::now());
            }
        }
        done_since.is_some_and(|t| t.elapsed() >= grace)
    };
    let waited = super::wait_or_stop_when(
        child,
        super::interrupted(),
        &mut hung,
        Duration::from_secs(3),
    )
    .map_err(|e| format!("waiting for the traced program: {e}"))?;
    Ok(Ended {
        status: waited.status,
        stopped_after_cuda: waited.stopped_as_hung,
        left: waited.left,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tracer writes the very line gpulint looks for when the window ended a run
    /// (tests/tracer.rs sees the built tracer write it).
    #[test]
    fn the_tracer_writes_the_window_line_gpulint_reads() {
        assert!(SOURCE.contains(&format!("fprintf(out, \"{WINDOW_ENDED}\\n\")")));
    }

    /// The source on stdin holds its parts in place of their #include lines: no include
    /// of a file beside it is left for a compiler that reads stdin.
    #[test]
    fn the_source_given_the_compiler_holds_its_parts() {
        assert!(!SOURCE.contains("#include \"launch_tracer_"));
        let sass = SOURCE.find("namespace sass {").unwrap();
        let stalls = SOURCE.find("namespace stalls {").unwrap();
        let callbacks = SOURCE.find("void on_launch(").unwrap();
        assert!(sass < stalls && stalls < callbacks);
    }

    /// A program that wrote its trace (its block closed by the tracer's end line) and then
    /// hangs, as a child stuck in a teardown held its parent: it is stopped once the grace
    /// is over, and the run says so. One that exits by itself is waited for.
    #[test]
    fn a_program_done_with_cuda_that_does_not_exit_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("trace.csv");
        let script = format!(
            "echo '# end of process '$$ >> '{}'; sleep 30",
            trace.display()
        );
        let started = Instant::now();
        let mut hung = Command::new("sh").args(["-c", &script]).spawn().unwrap();
        let ended = wait_with_watchdog(&mut hung, &trace, Duration::from_millis(300)).unwrap();
        assert!(ended.stopped_after_cuda);
        assert!(!ended.status.success());
        assert!(started.elapsed() < Duration::from_secs(10));

        let mut quick = Command::new("sh")
            .args(["-c", "sleep 0.5; exit 3"])
            .spawn()
            .unwrap();
        let ended = wait_with_watchdog(&mut quick, &trace, Duration::from_millis(100)).unwrap();
        assert!(!ended.stopped_after_cuda);
        assert_eq!(ended.status.code(), Some(3));
    }
}
