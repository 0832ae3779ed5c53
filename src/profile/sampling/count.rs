//! Counting every launch of a sampled `gpulint run`: gpulint's launch tracer when it can
//! be built (a run at the program's own speed), else, with `--time-all-launches`, ncu's
//! duration-only pass. Shares of GPU time and the launch-shape rules then cover every
//! launch, not only the sampled ones.

use std::collections::HashMap;

use super::EveryLaunch;
use crate::error::Result;
use crate::ingest;
use crate::profile::ncu::NcuOptions;
use crate::profile::ncu::tracer::{self, TracedSource};

/// How the count runs, from the command's options and the config.
pub struct CountSettings<'a> {
    /// Why the launch tracer is not wanted (`--no-launch-trace`, or `launch-trace = false`
    /// in gpulint.toml); `None` when it is.
    pub declined: Option<&'a str>,
    /// `--time-all-launches`: without a trace, ncu's timing pass counts them.
    pub time_all_launches: bool,
    /// `--window SECONDS`: the traced run ends that long after its first launch.
    pub window: Option<u64>,
    /// `--save-trace FILE`, and `--save-csv FILE`, beside which the trace is kept.
    pub save_trace: Option<&'a str>,
    pub save_csv: Option<&'a str>,
    /// Threads reading ncu's timing pass.
    pub jobs: Option<usize>,
    /// ncu's run of the program started beside the traced run (`ncu::early`).
    pub ncu_run_beside: bool,
    /// Counters the tracer reads itself, for one run of the program
    /// (`crate::profile::one_run`), and what asked for that run (`--one-run`, `--window`,
    /// the default).
    pub counters: Option<tracer::RunCounters>,
    pub one_run_asked_by: Option<crate::profile::one_run::AskedBy>,
    pub verbose: bool,
}

/// Counts every launch: with the launch tracer when there is one and it is wanted, else
/// with ncu's timing pass when `time_all_launches` asks for it; `None` when neither
/// (`verbose` says why). Before the program runs under the tracer, stderr says that it
/// will run twice.
pub fn count(
    settings: &CountSettings,
    opts: &NcuOptions,
    prepared: &crate::profile::ncu::Prepared,
    program: &[std::ffi::OsString],
) -> Result<Option<EveryLaunch>> {
    let verbose = settings.verbose;
    let started = std::time::Instant::now();
    // Whether the program started under the tracer: then a run of ncu's is its second.
    let mut ran = false;
    let traced = settings
        .declined
        .map_or(Ok(()), |why| Err(why.to_string()))
        .and_then(|()| tracer::input())
        .and_then(|input| Ok((tracer::prepare(&prepared.ncu, verbose)?, input)))
        .and_then(|(t, mut input)| {
            if verbose {
                crate::note!(
                    "time: the launch tracer was ready in {:.2} s",
                    started.elapsed().as_secs_f64()
                );
            }
            let name = crate::profile::program_name(program);
            match &settings.counters {
                Some(c) => crate::note!(
                    "{name} runs once, under gpulint's launch tracer, which counts every \
                     launch and reads the counters of up to {} it picks",
                    c.most_launches
                ),
                None => say_it_runs_twice(&name, settings.ncu_run_beside),
            }
            let source = traced_source(opts, program);
            ran = true;
            let asked = tracer::Asked {
                window: settings.window,
                source: source.as_ref(),
                counters: settings.counters.as_ref(),
            };
            tracer::trace(
                &t,
                program,
                &mut input,
                opts.program_output_to_stderr,
                &asked,
                verbose,
            )
        })
        .and_then(|traced| read_trace(traced, program, verbose, kept_at(settings)));
    let why_not = match traced {
        Ok(read) => return traced_every_launch(verbose, read).map(Some),
        Err(why) => why,
    };
    if crate::profile::ncu::interrupted().load(std::sync::atomic::Ordering::SeqCst) {
        // The traced run's own words where it was the one stopped (what outlived it).
        return Err(crate::error::Error::new(
            if why_not.starts_with("interrupted") {
                why_not
            } else {
                "interrupted; the program was stopped".to_string()
            },
        ));
    }
    say_no_trace(settings, program, &why_not, ran);
    if !settings.time_all_launches {
        return Ok(None);
    }
    crate::note!(
        "{} runs twice: once under ncu's timing pass (--time-all-launches), which \
         counts every launch, then under ncu's sample",
        crate::profile::program_name(program)
    );
    Ok(Some(EveryLaunch {
        profile: timing_pass(opts, &prepared.ncu, program, settings.jobs)?,
        program_time: None,
        cuda_processes: 0,
        counted_in_run: None,
    }))
}

/// Says why there is no launch trace: always where the program `ran` under the tracer for
/// its one run (it runs again under ncu) or one run was asked for by name (`--one-run`,
/// `--window`), else with `--verbose` or `--save-trace`.
fn say_no_trace(
    settings: &CountSettings,
    program: &[std::ffi::OsString],
    why_not: &str,
    ran: bool,
) {
    let name = crate::profile::program_name(program);
    match settings.one_run_asked_by {
        Some(_) if ran => {
            crate::note!("{name} runs again, under ncu: the traced run gave no trace ({why_not})");
        }
        Some(asked_by @ crate::profile::one_run::AskedBy::Option(_)) => crate::note!(
            "{name} runs under ncu, not once under the launch tracer as {asked_by} asks: no \
             launch trace ({why_not})"
        ),
        _ if settings.verbose || settings.save_trace.is_some() => {
            crate::note!("no launch trace: {why_not}");
        }
        _ => {}
    }
}

/// Tells the user, before the traced run, that the program runs twice, and how.
fn say_it_runs_twice(program: &str, ncu_run_beside: bool) {
    if ncu_run_beside {
        crate::note!(
            "{program} runs twice: under gpulint's launch tracer, which counts every launch at \
             the program's own speed, and under ncu, started beside it and held at its first \
             CUDA call until the sample is planned (--overlap; it listens on every \
             interface meanwhile); --no-launch-trace runs the program once"
        );
    } else {
        crate::note!(
            "{program} runs twice: once under gpulint's launch tracer, which counts every launch \
             at the program's own speed, then under ncu (--no-launch-trace runs it once)"
        );
    }
}

/// What the traced run collects for `--source`: the SASS counters of the first launch of
/// the user's kernels, only of those with a finding on a line last time where the last run
/// of the same command named them (each counted launch runs instrumented: matmul_variants'
/// six 2048^3 matmuls cost its traced run 1.1 s), and the warps' stall samples over the
/// run unless that run had no finding that reads them (about 0.5 s;
/// lab/runs/2026-12-04-stall-lines.txt). The counted launches run instrumented, and the
/// kernels one at a time: their traced durations are replaced by a like launch's
/// (`ingest::trace`), so that the sample by time is the plain trace's.
fn traced_source(opts: &NcuOptions, program: &[std::ffi::OsString]) -> Option<TracedSource> {
    if !opts.source {
        return None;
    }
    let memory = super::source_memory::recall(program);
    if opts.verbose {
        say_recalled(memory.as_ref(), program);
    }
    Some(TracedSource {
        stalls: memory.as_ref().is_none_or(|m| m.stall_finding),
        kernels: memory
            .map(|m| m.line_kernels)
            .filter(|kernels| !kernels.is_empty()),
    })
}

/// `--verbose`: what `--source` recalls of the last run of the command, and where, or that
/// the memory is switched off: a run that profiles otherwise than the last says why.
fn say_recalled(memory: Option<&super::source_memory::Memory>, program: &[std::ffi::OsString]) {
    use super::source_memory::{MEMORY_ENV, file_of, switched_off};
    if switched_off() {
        crate::note!("--source: {MEMORY_ENV}=off: nothing of the last run is recalled or kept");
        return;
    }
    let (Some(m), Some(file)) = (memory, file_of(program)) else {
        return;
    };
    crate::note!(
        "--source: remembered from the last run of this command ({}): {} finding read the \
         warps' stall samples, {} kernel(s) had a finding on a line; {MEMORY_ENV}=off goes \
         without it",
        crate::printable::path(&file),
        if m.stall_finding { "a" } else { "no" },
        m.line_kernels.len()
    );
}

/// Every launch as the traced run counted it; its trace written where it is kept.
fn traced_every_launch(verbose: bool, read: TraceRead) -> Result<EveryLaunch> {
    let TraceRead {
        profile,
        took,
        kept,
        cuda_processes,
        counted_in_run,
    } = read;
    if verbose {
        crate::note!(
            "time: the traced run took {:.2} s ({} launches)",
            took.as_secs_f64(),
            profile.launches.len()
        );
    }
    if let Some((dest, text)) = kept {
        crate::atomic_file::write(std::path::Path::new(&dest), text.as_bytes())?;
    }
    Ok(EveryLaunch {
        profile,
        program_time: Some(took),
        cuda_processes,
        counted_in_run,
    })
}

/// What [`read_trace`] gives: the trace read, how long the program ran, where the trace is
/// to be kept with its text, how many processes wrote to it, and the counters the tracer
/// read where it was asked to.
struct TraceRead {
    profile: ingest::Profile,
    took: std::time::Duration,
    kept: Option<(String, String)>,
    cuda_processes: usize,
    counted_in_run: Option<crate::profile::one_run::CountedInRun>,
}

/// The traced run's trace read, with the source lines its SASS counters and stall samples
/// give. Its text is let go once read unless it is `kept` somewhere (a long run's is
/// hundreds of MiB).
fn read_trace(
    traced: tracer::Traced,
    program: &[std::ffi::OsString],
    verbose: bool,
    kept: Option<String>,
) -> std::result::Result<TraceRead, String> {
    let file = format!("launch trace of {}", crate::profile::program_name(program));
    let cuda_processes = ingest::trace::process_blocks(&traced.text);
    let (read, kept) = match kept {
        Some(dest) => (
            ingest::trace::read(&traced.text, &file),
            Some((dest, traced.text)),
        ),
        None => (ingest::trace::read_owned(traced.text, &file), None),
    };
    let mut profile = read.map_err(|e| e.to_string())?;
    if let Some(counters) = &traced.source_counters {
        let names = mangled_names(&profile);
        profile.source_blocks = traced_source_lines(counters, &names, program, verbose);
        if let Some(stalls) = &traced.stall_samples {
            add_stall_samples(&mut profile, stalls, &names, program, verbose);
        }
    }
    let counted_in_run = (traced.counters).map(|text| crate::profile::one_run::CountedInRun {
        text,
        program_end: crate::profile::sample::ProgramEnd::of(
            traced.program_status,
            traced.stopped_after_cuda,
        ),
    });
    Ok(TraceRead {
        profile,
        took: traced.took,
        kept,
        cuda_processes,
        counted_in_run,
    })
}

/// Each traced kernel's name by its mangled one, as the tracer's rows name kernels: read
/// once per kernel, not per launch (a training loop's trace holds 100,000s of launches).
fn mangled_names(trace: &ingest::Profile) -> HashMap<String, String> {
    let mut names = HashMap::new();
    for l in &trace.launches {
        if let Some(m) = l.mangled.as_deref()
            && !names.contains_key(m)
        {
            names.insert(m.to_string(), l.name.clone());
        }
    }
    names
}

/// The source lines of `--source` from the traced run's SASS counters, one block per
/// kernel named as the trace names it; none, with a note, when they cannot be read (the
/// source counters then come from ncu).
fn traced_source_lines(
    counters: &str,
    names: &HashMap<String, String>,
    program: &[std::ffi::OsString],
    verbose: bool,
) -> Vec<ingest::source::SourceBlock> {
    let origin = format!(
        "source counters of the traced run of {}",
        crate::profile::program_name(program)
    );
    match ingest::source::traced::read(counters, &origin, names) {
        Ok(blocks) => {
            if verbose {
                crate::note!(
                    "--source: the traced run counted the source lines of {} kernel(s) at \
                     their first launch",
                    blocks.len()
                );
            }
            blocks
        }
        Err(e) => {
            crate::note!("--source: {e}; the source counters come from ncu");
            Vec::new()
        }
    }
}

/// Adds the traced run's stall samples to its blocks of source lines; with a note, none
/// where they cannot be read (the pass after the sample then takes them from ncu).
fn add_stall_samples(
    profile: &mut ingest::Profile,
    stalls: &str,
    names: &HashMap<String, String>,
    program: &[std::ffi::OsString],
    verbose: bool,
) {
    let origin = format!(
        "stall samples of the traced run of {}",
        crate::profile::program_name(program)
    );
    match ingest::source::sampled::add(&mut profile.source_blocks, stalls, &origin, names) {
        Ok(kernels) if verbose => crate::note!(
            "--source: the traced run sampled the warps' stalls of {kernels} kernel(s) over \
             all their launches"
        ),
        Ok(_) => {}
        Err(e) => crate::note!("--source: {e}; the stall samples come from ncu"),
    }
}

/// Where the trace is written: where `--save-trace` says, or beside a saved export, so that
/// `gpulint check` on it gives this run's report (crate::profile::saved_run, whose record
/// names where the trace went).
fn kept_at(settings: &CountSettings) -> Option<String> {
    let beside_csv = settings
        .save_csv
        .map(|csv| crate::profile::saved_run::sidecars(csv).0);
    settings.save_trace.map(str::to_string).or(beside_csv)
}

/// Runs ncu's timing pass and reads it per launch, in the program's launch order.
fn timing_pass(
    opts: &NcuOptions,
    ncu: &std::path::Path,
    program: &[std::ffi::OsString],
    jobs: Option<usize>,
) -> Result<ingest::Profile> {
    let csv = crate::profile::ncu::time_every_launch(opts, ncu, program)?;
    let path = csv.path().display().to_string();
    let name = format!(
        "ncu:{} (timing pass)",
        crate::profile::program_name(program)
    );
    let read = ingest::ReadOptions {
        jobs: jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
            .max(1),
        ..ingest::ReadOptions::default()
    };
    ingest::read_named(&path, &name, &read)
}
