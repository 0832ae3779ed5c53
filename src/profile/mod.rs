//! The profiling stage of `gpulint run`: the run of a program, in the order it happens.
//! 1. Check the tools: ncu, the program, the chip, CUPTI and the launch tracer
//!    ([`ncu::prepare`]), before anything runs the program.
//! 2. Count every launch: the launch tracer's run, or ncu's timing pass
//!    ([`sampling::count`]). With `--source` the traced run also counts the source lines
//!    of the first launch of the user's kernels (CUPTI's SASS counters,
//!    `ingest::source::traced`) and samples their stalls (CUPTI's PC sampling,
//!    `ingest::source::sampled`), as far as the last run of the command says they are
//!    needed.
//! 3. Plan the sample from the count: by GPU time where the trace gives every duration
//!    ([`sampling::plan_sample`], [`sampling::by_time`]).
//! 4. Run ncu on the sampled launches ([`ncu::profile`]). By default (one run) the traced
//!    run of step 2 read their counters itself, and ncu does not run ([`one_run`]), unless
//!    the tracer profiled nothing.
//! 5. Pair and weight: each sampled launch stands for the counted launches most like it
//!    ([`sampling::stand_for_every_launch`]), and launch shapes are judged on every one.
//! 6. Remember whether a finding read the warps' stall samples, and which of the user's
//!    kernels had a finding on a line, for the next `--source` run of the command
//!    ([`sampling::source_memory`]). With `--source`, where steps 2 and 4 did not read
//!    them all, a pass for the source counters on the kernels whose findings need them:
//!    what the traced run lacks (conversions, stall samples of kernels it did not sample,
//!    kernels it did not count), the stall samples after a sample of more than 10
//!    launches (or of a command whose last run had no finding on them), every counter
//!    after one mostly of library kernels ([`sampling::source_plan`], [`ncu::source_pass`]).
//! 7. Say what was sampled: its notes, its coverage of the GPU time ([`Loaded::conclude`],
//!    which the command calls before its report, as `check` does on a saved run).
//!
//! [`sample`] is the sample's vocabulary, which the reports read too; [`saved_run`] is
//! what `run --save-csv` keeps beside the export for `check` to give the run's report.
//! Reading a saved trace is `crate::ingest::trace`, one more export form.

/// The program's first word as messages print it: lossy where it is not UTF-8, and
/// printable.
pub(crate) fn program_name(program: &[std::ffi::OsString]) -> String {
    program
        .first()
        .map(|w| crate::printable::path(std::path::Path::new(w)))
        .unwrap_or_default()
}

/// The program's words as messages print them, one space apart.
pub(crate) fn command_line(program: &[std::ffi::OsString]) -> String {
    let words: Vec<String> = program
        .iter()
        .map(|w| crate::printable::path(std::path::Path::new(w)))
        .collect();
    words.join(" ")
}

pub mod cache_folder;
pub mod collectives;
pub mod ncu;
pub(crate) mod one_run;
pub(crate) mod sample;
pub(crate) mod sampling;
pub(crate) mod saved_run;
mod source_stage;
pub(crate) mod visible_gpus;

use crate::error::Result;
use crate::ingest;
use crate::rules::{self, Rule};
use sample::{Sample, SampleInfo};
use sampling::EveryLaunch;
use sampling::source_plan::SourcePass;
use source_stage::{memory_and_pass, place_source_counters, traced_lines_and_pages};

/// How the stage runs, from the command's options.
pub(crate) struct Settings<'a> {
    pub ncu: ncu::NcuOptions,
    /// How every launch is counted first (not for a report per launch).
    pub count: sampling::CountSettings<'a>,
    /// Share (0 to 1) of the counted GPU time the sample is to cover.
    pub coverage: f64,
    /// The most launches to profile; by default, from the program's own run time.
    pub max_launches: Option<u64>,
    /// A report per launch shows the sampled launches as they are: nothing is counted.
    pub per_launch: bool,
    pub jobs: Option<usize>,
    /// The user's rules folder, for the origins the source pass reads.
    pub rules_dir: Option<&'a str>,
    /// Start ncu's run of the program beside the traced run, held at its first CUDA call
    /// until the sample is planned (`ncu::early`), where it can be: `--overlap`, for the
    /// held program listens on every interface while it waits.
    pub overlap: bool,
    /// Run the program once: the tracer reads the counters ([`one_run`]), where it can;
    /// what asked for it (`--one-run`, `--window`, the default), `None` for two runs.
    pub one_run: Option<one_run::AskedBy>,
}

/// What the stage gives the report: the sampled launches read and linted, the sample,
/// every launch counted, and the rules' findings.
pub(crate) struct Profiled {
    pub loaded: Loaded,
    pub sample: Option<Sample>,
    pub every: Option<EveryLaunch>,
    pub outcome: rules::engine::Outcome,
}

/// Runs the stage on `program`: steps 1 to 6 of this module's list, the launches linted
/// by `linter` as they are read.
pub(crate) fn profile_program(
    settings: Settings,
    program: &[std::ffi::OsString],
    rules: &[Rule],
    mut linter: rules::engine::Linter,
) -> Result<Profiled> {
    let Settings {
        ncu: mut opts,
        mut count,
        coverage,
        max_launches,
        per_launch,
        jobs,
        rules_dir,
        overlap,
        one_run,
    } = settings;
    // ncu, the program and the chip are checked before anything runs the program.
    let prepared = ncu::prepare(&opts, program)?;
    ask_for_counters(one_run, &opts, per_launch, &mut count, &prepared, rules);
    let early = start_early(
        overlap && !per_launch,
        &opts,
        &mut count,
        &prepared,
        program,
    );
    let (sample, mut every, counted) = count_and_plan(
        &mut opts,
        (!per_launch).then_some(&count),
        &prepared,
        program,
        coverage,
        max_launches,
    )?;
    let after_sample = place_source_counters(
        &mut opts,
        sample.as_ref(),
        every.as_ref(),
        rules_dir,
        program,
    )?;
    let early = early.filter(|_| every.as_ref().is_some_and(EveryLaunch::traced_one_process));
    let (info, program_end) = match counted {
        Some(counted) => counted_in_run(counted, &opts, &prepared, program)?,
        None => profile_sample(&opts, &prepared, rules, program, early)?,
    };
    let kernel_filter = opts.kernel_name.is_some();
    let read = (per_launch, jobs, kernel_filter);
    let mut loaded = load_sample(&info, sample.clone(), every.as_mut(), read, &mut linter)?;
    loaded.sample.program_end = Some(program_end);
    if let (Some(csv), Some(s), Some(e)) = (&opts.save_csv, &sample, &every)
        && e.traced()
    {
        saved_run::write(csv, count.save_trace, s, kernel_filter)?;
    }
    loaded.profiles[0].source_blocks = traced_lines_and_pages(every.as_ref(), info.source_blocks);
    let outcome = linter.finish();
    let named = sample.as_ref().and_then(Sample::named_kernels).is_some();
    let remember = (every.as_ref())
        .filter(|e| named && e.traced())
        .map(|e| (program, e));
    let pass = (after_sample.zip(every.as_ref()))
        .map(|(pass_for, e)| (SourcePass::new(&opts, &prepared, program, pass_for), e));
    memory_and_pass(
        &outcome,
        rules,
        rules_dir,
        remember,
        pass,
        &mut loaded.profiles[0],
    )?;
    Ok(Profiled {
        loaded,
        sample,
        every,
        outcome,
    })
}

/// Step 5: the profiled run's export read, each launch linted as it is read; with every
/// launch counted, paired with the counted launches it stands for. `read` is `--per-launch`,
/// the reading threads, and whether `-k` chose the kernels.
fn load_sample(
    info: &ncu::RunInfo,
    sample: Option<Sample>,
    every: Option<&mut EveryLaunch>,
    (per_launch, jobs, kernel_filter): (bool, Option<usize>, bool),
    linter: &mut rules::engine::Linter,
) -> Result<Loaded> {
    let csv = info.csv.path().display().to_string();
    let inputs = [(csv.as_str(), info.name.as_str())];
    // Every launch profiled, and every launch traced: each profiled launch stands for
    // itself, its waits and program order from the trace.
    let sample = sample.or_else(|| {
        let every = every.as_ref().filter(|e| e.traced())?;
        let most = every.profile.launches.iter().map(|l| l.count).sum::<u64>();
        Some(Sample::ByTime(sample::Chosen::numbers(
            (1..=most).collect(),
        )))
    });
    Ok(match sample.zip(every) {
        Some((sample, every)) => {
            let profiles = crate::load::load_as(&inputs, true, jobs, None)?;
            Loaded::with_count(profiles, every, sample, kernel_filter, &mut |l| {
                linter.add(&info.name, l);
            })
        }
        None => Loaded {
            profiles: crate::load::load_as(&inputs, per_launch, jobs, Some(linter))?,
            in_program_order: false,
            sample: SampleInfo::default(),
        },
    })
}

/// Step 2's companion: ncu's run of the program started now, to wait at its first CUDA
/// call while the traced run goes on, where `wanted` and it can be ([`ncu::early`]): on
/// Linux, before a traced run and a sample, for one process, with a stdin no run reads (a
/// terminal, or nothing), and no ncu option of the launch's own. `count` is told. Where
/// no trace came after all, there is no plan to attach with, and where several processes
/// started CUDA (a torch.compile worker too), the held one's children would be held with
/// nothing to attach to them: the held program is then stopped, and ncu runs it again.
fn start_early(
    wanted: bool,
    opts: &ncu::NcuOptions,
    count: &mut sampling::CountSettings,
    prepared: &ncu::Prepared,
    program: &[std::ffi::OsString],
) -> Option<ncu::early::WaitingRun> {
    let shared_stdin = || matches!(ncu::tracer::input(), Ok(ncu::tracer::Input::Shared));
    let can = wanted
        && cfg!(target_os = "linux")
        && opts.sample.is_some()
        && count.declined.is_none()
        && !ncu::tracer::switched_off()
        && !opts.target_processes_all
        && ncu::early::options_allow(&opts.extra_args)
        && shared_stdin();
    if !can {
        return None;
    }
    match ncu::early::WaitingRun::start(&prepared.ncu, program, opts.program_output_to_stderr) {
        Ok(waiting) => {
            count.ncu_run_beside = true;
            Some(waiting)
        }
        Err(e) => {
            if opts.verbose {
                crate::note!("ncu's run of the program starts after the traced run: {e}");
            }
            None
        }
    }
}

/// Step 4: ncu on the sampled launches (with the source counters, unless none of the
/// kernels whose pages are read was sampled), and what the program's exit says; ncu
/// attaches to the program `early` holds, where it holds one.
fn profile_sample(
    opts: &ncu::NcuOptions,
    prepared: &ncu::Prepared,
    rules: &[Rule],
    program: &[std::ffi::OsString],
    early: Option<ncu::early::WaitingRun>,
) -> Result<(ncu::RunInfo, sample::ProgramEnd)> {
    let main_pass = ncu::NcuOptions {
        source: opts.source && opts.source_pages_of.as_ref().is_none_or(|k| !k.is_empty()),
        ..opts.clone()
    };
    let stopping = ncu::say_whether_it_stops(opts, &program_name(program));
    let keys = rules::metric_keys(rules);
    let info = ncu::profile(&main_pass, prepared, &keys, program, early)?;
    let end = sample::ProgramEnd::of(info.program_status, stopping);
    say_program_failed(end, program);
    if opts.verbose {
        crate::note!("profiled with {}", info.ncu.display());
    }
    Ok((info, end))
}

/// Step 4 where the traced run profiled the sample itself: its export as ncu's run would
/// give it, and what the program's one exit says.
fn counted_in_run(
    (export, end): ExportedInRun,
    opts: &ncu::NcuOptions,
    prepared: &ncu::Prepared,
    program: &[std::ffi::OsString],
) -> Result<(ncu::RunInfo, sample::ProgramEnd)> {
    say_program_failed(end, program);
    let status = match end {
        sample::ProgramEnd::Exited(code) => Some(code),
        _ => None,
    };
    let info = one_run::run_info(export, status, opts, &prepared.ncu, program)?;
    Ok((info, end))
}

/// Says that the program failed, where it did: its report is of what ran before.
fn say_program_failed(end: sample::ProgramEnd, program: &[std::ffi::OsString]) {
    if end.failed() {
        crate::note!(
            "{} {}; its kernels profiled before that are linted",
            program_name(program),
            end.describe()
        );
    }
}

/// One run of the program, where `asked_by` asks for it (`--one-run`, `--window`, the
/// default): the traced run is told to read the profiled run's metrics itself, unless the
/// options want ncu (stderr says why) or there is to be no traced run.
fn ask_for_counters(
    asked_by: Option<one_run::AskedBy>,
    opts: &ncu::NcuOptions,
    per_launch: bool,
    count: &mut sampling::CountSettings,
    prepared: &ncu::Prepared,
    rules: &[Rule],
) {
    let Some(asked_by) = asked_by else {
        return;
    };
    if let Some(why) = count.declined {
        // No traced run at all: only a request by name is told.
        if asked_by != one_run::AskedBy::Default {
            crate::note!(
                "{asked_by} would run the program under the launch tracer; {why} says not"
            );
        }
        return;
    }
    if let Some(why) = one_run::declined(opts, per_launch) {
        crate::note!("{asked_by} would run the program once; it runs twice: {why}");
        return;
    }
    count.one_run_asked_by = Some(asked_by);
    let plan = ncu::metric_plan(&rules::metric_keys(rules), opts.roofline, prepared.chip());
    count.counters = Some(one_run::counters(&plan.metrics));
}

/// The sample the traced run profiled itself, and its export, as ncu's run would give
/// them, with how the program ended. Where it profiled nothing, or its rows cannot
/// stand for ncu's, the program runs again under ncu, and stderr says why.
type ExportedInRun = (one_run::Export, sample::ProgramEnd);

/// Steps 2 and 3: every launch counted (unless `count` is `None`), then the sample
/// planned from the count, which `opts` then carries; or, where the traced run read the
/// counters itself, the launches it profiled ([`ExportedInRun`]), and no sample for ncu.
fn count_and_plan(
    opts: &mut ncu::NcuOptions,
    count: Option<&sampling::CountSettings>,
    prepared: &ncu::Prepared,
    program: &[std::ffi::OsString],
    coverage: f64,
    max_launches: Option<u64>,
) -> Result<(Option<Sample>, Option<EveryLaunch>, Option<ExportedInRun>)> {
    let sample = opts.sample.clone();
    // Every launch is counted first, so that the sample's progress line can say how many
    // launches it will profile and about how long that takes.
    let mut every = match (&sample, count) {
        (Some(_), Some(count)) => sampling::count(count, opts, prepared, program)?,
        (None, Some(count)) if opts.every_launch_traced => {
            sampling::count(count, opts, prepared, program)?
        }
        _ => None,
    };
    if let Some(e) = every.as_mut()
        && let Some(counted) = e.counted_in_run.take()
    {
        match one_run::export(&e.profile, &counted) {
            Ok(export) => {
                say_one_run(&export, e, program);
                let sample = Some(export.sample.clone());
                opts.sample.clone_from(&sample);
                return Ok((sample, every, Some((export, counted.program_end))));
            }
            Err(why) => crate::note!(
                "{} runs again, under ncu: the traced run's counters cannot stand for its \
                 run ({why})",
                program_name(program)
            ),
        }
    }
    let (Some(chosen), Some(counted)) = (sample.clone(), &every) else {
        return Ok((sample, every, None));
    };
    let budget = sampling::by_time::Budget {
        coverage,
        max_launches: max_launches
            .unwrap_or_else(|| sampling::by_time::default_max_launches(counted.program_time)),
        take_every_heavy_kernel: max_launches.is_none(),
        leave_out_nccl: !opts.profile_nccl,
        gpu: visible_gpus::shape(),
    };
    let verbose = opts.verbose;
    let planned = sampling::plan_sample(opts, chosen, counted, budget, verbose);
    Ok((Some(planned), every, None))
}

/// The stage line after one run: what the trace counted, what the tracer profiled of it,
/// and where its profiling stopped early.
fn say_one_run(export: &one_run::Export, every: &EveryLaunch, program: &[std::ffi::OsString]) {
    let took = every
        .program_time
        .map_or(String::new(), |t| format!(" in {:.1} s", t.as_secs_f64()));
    let profiling = (export.profiling_seconds).map_or(String::new(), |s| format!(" in {s:.1} s"));
    crate::note!(
        "{} ran once: the launch trace counted {} launches{took}, and the tracer profiled {} \
         of them{profiling}",
        program_name(program),
        every.profile.launch_count(),
        export.launches
    );
    for stopped in &export.stopped {
        crate::note!("the tracer's profiling stopped early in {stopped}");
    }
    if let Some(left) = export.budget_note() {
        crate::note!("{left}");
    }
}

/// The sampled launches read, with what the reports say of the sample, and whether they
/// carry the program's launch numbers (only then do the rules that need no counter judge every
/// counted launch).
pub(crate) struct Loaded {
    pub profiles: Vec<ingest::Profile>,
    pub in_program_order: bool,
    /// What the reports say of the sample, when every launch was counted.
    pub sample: SampleInfo,
}

impl Loaded {
    /// The sampled launches of `profiles` numbered in the program's order and given the
    /// counts and durations of `every`, then linted by `lint`. With `-k`
    /// (`kernel_filter`), the launches of other kernels are left out of the count, as they
    /// are of the sample.
    pub(crate) fn with_count(
        mut profiles: Vec<ingest::Profile>,
        every: &mut EveryLaunch,
        sample: Sample,
        kernel_filter: bool,
        lint: &mut dyn FnMut(&ingest::Launch),
    ) -> Loaded {
        let (sample, in_program_order) =
            sampling::stand_for_every_launch(&mut profiles[0], every, sample, kernel_filter, lint);
        Loaded {
            profiles,
            in_program_order,
            sample,
        }
    }

    /// Step 7, and the rules that need no counter judged on every counted launch: the sample's notes (and,
    /// with `verbose`, each launch's replay passes), then what the report says of it.
    pub(crate) fn conclude(
        self,
        sample: Option<Sample>,
        every: Option<&EveryLaunch>,
        outcome: &mut rules::engine::Outcome,
        rules: &[Rule],
        ignored: rules::engine::KernelFilter,
        verbose: bool,
    ) -> (Vec<ingest::Profile>, SampleInfo) {
        let Loaded {
            mut profiles,
            in_program_order,
            sample: sample_info,
        } = self;
        sampling::add_sample_notes(&mut profiles[0], sample.as_ref(), every.is_some());
        if verbose {
            sampling::say_replay_passes(&profiles[0]);
        }
        if let Some(every) = every.filter(|_| in_program_order) {
            sampling::judge_on_every_launch(outcome, every, &profiles[0], rules, ignored);
        }
        // Without every launch counted, the report still says which launches the sample
        // took.
        let sample_info = SampleInfo {
            sample,
            ..sample_info
        };
        (profiles, sample_info)
    }
}
