//! The profiled run: ncu on the sample's launches, from the program's start or attached to
//! the program held at its first CUDA call ([`super::early`]), and its report read back.

use super::{
    Duration, Error, ExitStatus, HangWatch, NcuOptions, Output, Path, PathBuf, Prepared,
    ProgramOutput, Result, SourceSection, build_args, check_log, early, from_report, hang_grace,
    ingest, leave_default_sections_out, metric_plan, run_ncu, shell_words, source_section,
    temp_csv,
};

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

/// Profiles `program` and checks what ncu wrote. The CSV is left on disk for the caller
/// to stream: a run of 100,000 launches is never held in memory whole. Where `early` holds
/// the program at its first CUDA call (started beside the traced run), ncu attaches to it;
/// where it is not held, or the attach fails, the program runs again under ncu.
pub fn profile(
    opts: &NcuOptions,
    prepared: &Prepared,
    rule_keys: &[String],
    program: &[std::ffi::OsString],
    early: Option<early::WaitingRun>,
) -> Result<RunInfo> {
    let (ncu, chip) = (prepared.ncu.clone(), prepared.chip());
    // Removed when dropped: on every return path, and after Ctrl-C below.
    let log = temp_csv("gpulint-ncu-")?;
    let plan = metric_plan(rule_keys, opts.roofline, chip);
    if opts.verbose && !plan.unavailable.is_empty() {
        crate::note!(
            "chip {} has no metric for {}; the rules and roofline that read them are skipped",
            chip.map_or("?", |c| c.name),
            plan.unavailable.join(", ")
        );
    }
    let report_dir = crate::platform::private_tempdir("gpulint-report-")
        .map_err(|e| Error::new(format!("cannot create a temporary folder: {e}")))?;
    let report = report_dir.path().join("gpulint");
    let held = early.and_then(|waiting| held_for_attach(waiting, opts));
    // Where the seconds go (`--verbose`): the profiled run, then the report's import.
    let started = std::time::Instant::now();
    let run = ProfiledRun {
        opts,
        ncu: &ncu,
        metrics: &plan.metrics,
        report: &report,
        log: log.path(),
    };
    let (status, program_status) = match held {
        Some(waiting) => match run.attached(waiting)? {
            Some(statuses) => statuses,
            None => {
                if opts.verbose {
                    crate::note!("ncu's attach profiled nothing: the program runs again under ncu");
                }
                let status = run.launched(program)?;
                (status, status)
            }
        },
        None => {
            let status = run.launched(program)?;
            (status, status)
        }
    };
    let ran = started.elapsed();
    let source_blocks = from_report(&ncu, &report, log.path(), status.code(), opts)?;
    if opts.verbose {
        crate::note!(
            "time: the profiled run took {:.2} s, the import {:.2} s",
            ran.as_secs_f64(),
            (started.elapsed() - ran).as_secs_f64()
        );
    }
    check_log(log.path(), status.code())?;
    if let Some(dest) = &opts.save_csv {
        crate::atomic_file::copy(log.path(), Path::new(dest))?;
    }
    let name = opts
        .save_csv
        .clone()
        .unwrap_or_else(|| format!("ncu:{}", crate::profile::program_name(program)));
    Ok(RunInfo {
        ncu,
        program_status: program_status.code(),
        csv: log,
        name,
        source_blocks,
    })
}

/// The program started early, once it is held at its first CUDA call: it started with the
/// traced run, so it gets as long as that run took, and 30 s more.
fn held_for_attach(mut waiting: early::WaitingRun, opts: &NcuOptions) -> Option<early::WaitingRun> {
    let limit = opts.traced_run_time.unwrap_or_default() + Duration::from_secs(30);
    let held = waiting.wait_until_held(limit);
    if opts.verbose {
        match held {
            true => crate::note!(
                "time: the program ncu attaches to was started {:.2} s ago, beside the traced \
                 run, and waits at its first CUDA call",
                waiting.age().as_secs_f64()
            ),
            false => crate::note!(
                "the program started beside the traced run ended or did not reach CUDA within \
                 {} s: it runs again under ncu",
                limit.as_secs()
            ),
        }
    }
    held.then_some(waiting)
}

/// What the profiled run's two forms share: ncu's options for the sample, its report and
/// its log.
struct ProfiledRun<'a> {
    opts: &'a NcuOptions,
    ncu: &'a Path,
    metrics: &'a [&'a str],
    report: &'a Path,
    log: &'a Path,
}

impl ProfiledRun<'_> {
    /// ncu runs `program` from its start (ncu's own mode: launch and attach). Returns
    /// ncu's exit status, which is the program's.
    fn launched(&self, program: &[std::ffi::OsString]) -> Result<ExitStatus> {
        let (args, _folders) = self.args(program);
        Ok(self.run(&args)?.0)
    }

    /// ncu attaches to the program `waiting` holds. Returns ncu's exit status and the
    /// program's, or `None` where ncu wrote no report (the program is then stopped).
    fn attached(&self, waiting: early::WaitingRun) -> Result<Option<(ExitStatus, ExitStatus)>> {
        let (mut args, _folders) = self.args(&[]);
        args.extend(waiting.attach_args().into_iter().map(Into::into));
        let (status, stopped) = self.run(&args)?;
        let rep = format!("{}.ncu-rep", self.report.display());
        if !status.success() && !Path::new(&rep).exists() {
            return Ok(None);
        }
        // A run stopped as hung stops its program; so does --stop-once-profiled, in case
        // ncu's --kill does not reach a program it attached to. Otherwise the program runs
        // to its end, watched as ncu's run is.
        let stop = stopped || self.opts.stop_after().is_some();
        let grace = self.opts.traced_run_time.map(hang_grace);
        Ok(Some((status, waiting.finish(stop, grace)?)))
    }

    fn args(
        &self,
        program: &[std::ffi::OsString],
    ) -> (Vec<std::ffi::OsString>, Vec<tempfile::TempDir>) {
        let (args, folders) = profiled_run_args(
            self.opts,
            self.ncu,
            self.metrics,
            self.report,
            self.log,
            program,
        );
        if self.opts.verbose {
            crate::note!("{} {}", self.ncu.display(), shell_words(&args));
        }
        (args, folders)
    }

    /// Runs ncu with `args`, watched for a hang. Returns its status and whether it was
    /// stopped as hung.
    fn run(&self, args: &[std::ffi::OsString]) -> Result<(ExitStatus, bool)> {
        let opts = self.opts;
        let program_output = if opts.program_output_to_stderr {
            ProgramOutput::Stderr
        } else {
            ProgramOutput::Inherit
        };
        let watch = opts
            .expected_launches
            .zip(opts.traced_run_time)
            .map(|(launches, time)| {
                let watch = HangWatch::new(launches, time);
                let watch = match opts.window {
                    Some(window) => watch.bounded(window),
                    None => watch,
                };
                if opts.prints_source_pages() {
                    watch.quiet_while_profiling()
                } else {
                    watch
                }
            });
        run_ncu(
            self.ncu,
            args,
            Some(self.log),
            program_output,
            opts.expected_launches,
            watch,
        )
    }
}

/// The profiled run's arguments, and the section folders they name, which must outlive
/// the run. With `--source`, the source counters come in this run: gpulint's section of
/// the columns it reads, or, beside sections the user named, ncu's own; after a sample by
/// time, ncu prints the launches' source pages to the log as it writes the report.
fn profiled_run_args(
    opts: &NcuOptions,
    ncu: &Path,
    metrics: &[&str],
    report: &Path,
    log: &Path,
    program: &[std::ffi::OsString],
) -> (Vec<std::ffi::OsString>, Vec<tempfile::TempDir>) {
    let source_folder = opts
        .source
        .then(|| {
            let sampling = opts.source_pages_of.is_none() || opts.source_stall_samples;
            source_section::folder_unless_asked(ncu, &opts.extra_args, sampling)
        })
        .flatten();
    let output = Output::Report {
        path: report,
        source: opts
            .source
            .then(|| SourceSection::from_folder(source_folder.as_ref().map(|d| d.path()))),
        print_pages: opts.prints_source_pages(),
    };
    let mut args = build_args(opts, metrics, output, log, program);
    let no_sections = (!opts.source)
        .then(|| leave_default_sections_out(&mut args, &opts.extra_args))
        .flatten();
    (args, source_folder.into_iter().chain(no_sections).collect())
}
