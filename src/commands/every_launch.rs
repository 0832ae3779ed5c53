//! Counting every launch of a sampled `gpulint run`: gpulint's launch tracer when it can
//! be built (a run at the program's own speed), else, with `--time-all-launches`, ncu's
//! duration-only pass. Shares of GPU time and the launch-shape rules then cover every
//! launch, not only the sampled ones.

use super::shared::load_as;
use crate::cli::{NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest;
use crate::ncu::{NcuOptions, tracer};
use crate::report;
use crate::sampling::EveryLaunch;
use std::collections::HashMap;

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
    let traced = declined
        .map_or(Ok(()), |why| Err(why.to_string()))
        .and_then(|()| tracer::input())
        .and_then(|input| Ok((tracer::prepare(&prepared.ncu, verbose)?, input)))
        .and_then(|(t, mut input)| {
            eprintln!(
                "gpulint: {} runs twice: once under gpulint's launch tracer, which counts every \
                 launch at the program's own speed, then under ncu (--no-launch-trace runs it \
                 once)",
                program[0]
            );
            tracer::trace(
                &t,
                program,
                &mut input,
                opts.program_output_to_stderr,
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
            if let Some(dest) = &asked.save_trace {
                crate::atomic_file::write(std::path::Path::new(dest), text.as_bytes())?;
            }
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
        eprintln!("gpulint: no launch trace: {why_not}");
    }
    if !asked.time_all_launches {
        return Ok(None);
    }
    eprintln!(
        "gpulint: {} runs twice: once under ncu's timing pass (--time-all-launches), which \
         counts every launch, then under ncu's sample",
        program[0]
    );
    Ok(Some(EveryLaunch {
        profile: timing_pass(opts, &prepared.ncu, program, report)?,
        program_time: None,
    }))
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

/// Gives the traced launches the names ncu gave the sampled ones: the C++ runtime and ncu
/// demangle differently (`float*` and `float *`; PyTorch's `at::native::` is `at::` in
/// ncu). The sample holds the first launch of every kernel it profiled, so the kernels'
/// first launches pair up in launch order, each pair with one function name, grid and
/// block. Returns the sampled kernels no traced kernel pairs with.
pub fn adopt_sampled_names(
    traced: &mut [ingest::Launch],
    sampled: &[ingest::Launch],
) -> Vec<String> {
    let firsts = |launches: &[ingest::Launch]| -> Vec<usize> {
        let mut seen = std::collections::HashSet::new();
        (0..launches.len())
            .filter(|&i| seen.insert(launches[i].name.clone()))
            .collect()
    };
    let traced_firsts = firsts(traced);
    let mut names: HashMap<String, String> = HashMap::new();
    let mut unpaired = Vec::new();
    let mut next = 0;
    for s in firsts(sampled).into_iter().map(|i| &sampled[i]) {
        let identifier = crate::kernel::function_identifier(&s.name);
        let pair = traced_firsts[next..].iter().position(|&t| {
            let t = &traced[t];
            t.grid == s.grid
                && t.block == s.block
                && crate::kernel::function_identifier(&t.name) == identifier
        });
        match pair {
            Some(k) => {
                names.insert(traced[traced_firsts[next + k]].name.clone(), s.name.clone());
                next += k + 1;
            }
            None => unpaired.push(report::short_name(&s.name)),
        }
    }
    for l in traced.iter_mut() {
        if let Some(name) = names.get(&l.name) {
            l.name.clone_from(name);
        }
    }
    unpaired
}

/// The metrics a traced launch gets for the launch-shape rules: its grid, block and
/// duration, with the launch attributes of the sampled entry `like` it (the occupancy
/// limits only when its block, registers and shared memory are the same).
pub fn traced_launch_metrics(
    traced: &ingest::Launch,
    like: &ingest::Launch,
) -> crate::metrics::Metrics {
    let same = |key: &str| {
        let value = traced.metrics.get(key);
        value.is_some() && like.metrics.get(key) == value
    };
    let same_resources =
        traced.block == like.block && same("registers_per_thread") && same("shared_mem_per_block");
    crate::metrics::launch_shape_metrics(
        &like.metrics,
        traced.grid.unwrap_or([0; 3]),
        traced.block.unwrap_or([0; 3]),
        traced.metrics.get("duration_ns").copied(),
        same_resources,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(id: u64, name: &str, grid: u64) -> ingest::Launch {
        ingest::Launch::of_shape(id, name.into(), [grid, 1, 1], [256, 1, 1], 1)
    }

    /// Two instances of one template, named as the C++ runtime and ncu write them, and a
    /// kernel the sample left out (`-k`): each instance pairs with its own, in launch
    /// order; a sampled kernel whose first launch no traced kernel matches is returned.
    #[test]
    fn traced_kernels_take_the_names_of_the_sampled_ones_they_pair_with() {
        let mut traced = vec![
            launch(0, "void scale<1>(float*, int)", 64),
            launch(1, "helper(float const*)", 8),
            launch(2, "void scale<1>(float*, int)", 64),
            launch(3, "void scale<4>(float*, int)", 64),
        ];
        let sampled = vec![
            launch(0, "void scale<1>(float *, int)", 64),
            launch(2, "void scale<1>(float *, int)", 64),
            launch(3, "void scale<4>(float *, int)", 64),
            launch(9, "reduce(const float *)", 1),
        ];
        let unpaired = adopt_sampled_names(&mut traced, &sampled);
        let names: Vec<&str> = traced.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "void scale<1>(float *, int)",
                "helper(float const*)",
                "void scale<1>(float *, int)",
                "void scale<4>(float *, int)"
            ]
        );
        assert_eq!(unpaired, ["reduce"]);
    }
}
