//! Counting every launch of a sampled `gpulint run`: gpulint's launch tracer when it can
//! be built (a run at the program's own speed), else, with `--time-all-launches`, ncu's
//! duration-only pass. Shares of GPU time and the launch-shape rules then cover every
//! launch, not only the sampled ones.

use super::shared::load_as;
use crate::cli::{NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest;
use crate::ncu::{NcuOptions, tracer};
use crate::sampling::EveryLaunch;

/// Counts every launch: with the launch tracer when there is one and it is wanted
/// (`declined` says why not: `--no-launch-trace`, or `launch-trace = false` in
/// gpulint.toml), else with ncu's timing pass when `--time-all-launches` asks for it;
/// `None` when neither (`--verbose` says why). Before the program runs under the tracer,
/// stderr says that it will run twice.
pub fn count(
    opts: &NcuOptions,
    prepared: &crate::ncu::Prepared,
    program: &[String],
    report: &ReportArgs,
    asked: &NcuArgs,
    declined: Option<&str>,
) -> Result<Option<EveryLaunch>> {
    let verbose = report.gate.read.verbose;
    let started = std::time::Instant::now();
    let traced = declined
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
            crate::note!(
                "{} runs twice: once under gpulint's launch tracer, which counts every \
                 launch at the program's own speed, then under ncu (--no-launch-trace runs it \
                 once)",
                program[0]
            );
            tracer::trace(
                &t,
                program,
                &mut input,
                opts.program_output_to_stderr,
                asked.window,
                verbose,
            )
        })
        .and_then(|(text, time)| {
            let file = format!("launch trace of {}", program[0]);
            let profile = ingest::trace::read(&text, &file).map_err(|e| e.to_string())?;
            Ok((profile, time, text))
        });
    let why_not = match traced {
        Ok((profile, time, text)) => {
            if verbose {
                crate::note!(
                    "time: the traced run took {:.2} s ({} launches)",
                    time.as_secs_f64(),
                    profile.launches.len()
                );
            }
            keep_trace(asked, &text)?;
            return Ok(Some(EveryLaunch {
                profile,
                program_time: Some(time),
            }));
        }
        Err(why) => why,
    };
    if crate::ncu::interrupted().load(std::sync::atomic::Ordering::SeqCst) {
        return Err(crate::error::Error::new(
            "interrupted; the program was stopped",
        ));
    }
    if verbose || asked.save_trace.is_some() {
        crate::note!("no launch trace: {why_not}");
    }
    if !asked.time_all_launches {
        return Ok(None);
    }
    crate::note!(
        "{} runs twice: once under ncu's timing pass (--time-all-launches), which \
         counts every launch, then under ncu's sample",
        program[0]
    );
    Ok(Some(EveryLaunch {
        profile: timing_pass(opts, &prepared.ncu, program, report)?,
        program_time: None,
    }))
}

/// Writes the trace where `--save-trace` says, or beside a saved export, so that `gpulint
/// check` on it gives this run's report (crate::saved_run).
fn keep_trace(asked: &NcuArgs, text: &str) -> Result<()> {
    let beside_csv = asked
        .save_csv
        .as_deref()
        .map(|csv| crate::saved_run::sidecars(csv).0);
    if let Some(dest) = asked.save_trace.as_ref().or(beside_csv.as_ref()) {
        crate::atomic_file::write(std::path::Path::new(dest), text.as_bytes())?;
    }
    Ok(())
}

/// Runs ncu's timing pass and reads it per launch, in the program's launch order.
fn timing_pass(
    opts: &NcuOptions,
    ncu: &std::path::Path,
    program: &[String],
    report: &ReportArgs,
) -> Result<ingest::Profile> {
    let csv = crate::ncu::time_every_launch(opts, ncu, program)?;
    let path = csv.path().display().to_string();
    let name = format!("ncu:{} (timing pass)", program[0]);
    let timed = load_as(
        &[(path.as_str(), name.as_str())],
        true,
        report.gate.read.jobs,
        None,
    )?;
    Ok(timed.into_iter().next().expect("one input, one profile"))
}
