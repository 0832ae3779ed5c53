//! The sample planned from the count of every launch, and merged with it: traced kernels
//! named as ncu names them, sampled launches renumbered and weighted by the launches they
//! stand for. What is then judged on every counted launch is `every_launch`'s.

use std::collections::HashMap;

use super::by_time::{self, Budget};
use super::{EveryLaunch, apply_timing, in_program_order};
use crate::ingest;
use crate::kernel;
use crate::profile::collectives;
use crate::profile::ncu::NcuOptions;
use crate::profile::sample::{Sample, SampleInfo, percent};

/// The sample once every launch is counted (`crate::profile::sampling`), and what the progress
/// line expects of it.
pub fn plan_sample(
    opts: &mut NcuOptions,
    chosen: Sample,
    every: &EveryLaunch,
    budget: Budget,
    verbose: bool,
) -> Sample {
    // With -k, ncu's name filter decides which kernels count, which the trace cannot
    // tell; a sample the user chose (--launches-per-config) stays.
    let by_time = (opts.kernel_name.is_none() && chosen == Sample::Spread)
        .then(|| by_time::plan(&every.profile, budget))
        .flatten();
    let planned = match by_time {
        Some(plan) => {
            say_plan(&plan, every, verbose);
            Sample::ByTime(plan.chosen)
        }
        None => chosen,
    };
    opts.sample = Some(planned.clone());
    opts.expected_launches = Some(crate::profile::sampling::launches_to_profile(
        &planned,
        &every.profile,
    ));
    opts.traced_run_time = every.program_time;
    planned
}

/// The stage line between the traced run and ncu's: what the trace counted, and what ncu
/// will profile of it; with `--verbose`, which launch numbers.
fn say_plan(plan: &by_time::Plan, every: &EveryLaunch, verbose: bool) {
    let took = every
        .program_time
        .map_or(String::new(), |t| format!(" in {:.1} s", t.as_secs_f64()));
    crate::note!(
        "{} counted {} launches{took}; ncu profiles {} of them, for {} of {} \
         configurations and {:.1}% of the GPU time",
        every.counted_by(),
        every.profile.launch_count(),
        plan.launches,
        plan.covered_configurations,
        plan.configurations,
        100.0 * plan.covered
    );
    if verbose {
        let numbers: Vec<String> = plan.chosen.numbers.iter().map(u64::to_string).collect();
        let kernels = plan
            .chosen
            .kernels
            .as_ref()
            .map_or("every kernel".into(), |k| {
                format!("{} kernel(s) by mangled name", k.len())
            });
        crate::note!(
            "sampling by time: launch numbers {} of {kernels}",
            numbers.join(", ")
        );
    }
}

/// Makes the sampled profile stand for every counted launch: traced kernels take ncu's
/// names (and, with `-k`, only the sampled kernels are counted), the sampled launches get
/// the program's launch numbers, and each stands for the counted launches most like it
/// (its own configuration, the nearest duration): each is judged (`lint`) with their
/// count and mean duration, as `gpulint check` judges each launch of an export of every
/// launch, then they fold by configuration, weighted by time, for the table. Returns what
/// the reports say of the sample, and whether the launch numbers are the program's (only
/// then do the rules that need no counter judge every counted launch).
pub fn stand_for_every_launch(
    profile: &mut ingest::Profile,
    every: &mut EveryLaunch,
    sample: Sample,
    kernel_filter: bool,
    lint: &mut dyn FnMut(&ingest::Launch),
) -> (SampleInfo, bool) {
    let mut launches = std::mem::take(&mut profile.launches);
    if every.traced() {
        collectives::name_ranks(&mut launches, &every.profile);
        let unpaired = adopt_sampled_names(&mut every.profile.launches, &launches, &sample);
        if kernel_filter {
            every.retain_kernels(&launches);
        }
        if !unpaired.is_empty() {
            profile.notes.push(format!(
                "{}no kernel of the launch trace pairs with the sampled {} (a kernel's first \
                 launch, its function name, grid and block): {} not counted",
                ingest::WARNING,
                unpaired.join(", "),
                if unpaired.len() == 1 {
                    "its launches are"
                } else {
                    "their launches are"
                }
            ));
        }
    }
    let renumbered = in_program_order(&mut launches, every, &sample);
    if let (Sample::Traced(taken), true) = (&sample, renumbered.is_ok()) {
        let note =
            crate::profile::one_run::longer_unprofiled_note(&launches, &every.profile, taken);
        profile.notes.extend(note);
    }
    if renumbered.is_ok() {
        time_instrumented_by_ncu(&mut every.profile, &launches);
    }
    let sampled: std::collections::HashSet<&str> =
        launches.iter().map(|l| l.name.as_str()).collect();
    let coverage = coverage(&sample, every, &sampled);
    let unprofiled_ns = unprofiled_time(&sampled, every);
    let profiled_launches = launches.iter().map(|l| l.count).sum();
    let reference = counted_durations(&launches, every, renumbered.is_ok());
    let by_time = matches!(sample, Sample::ByTime(_) | Sample::Traced(_));
    let nccl_profiled = launches.iter().any(|l| collectives::is_nccl(&l.name));
    profile.launches = launches;
    let note = apply_timing(profile, every, &reference, renumbered.is_ok(), by_time);
    profile.notes.push(note);
    profile.notes.extend(
        coverage
            .as_ref()
            .and_then(|c| left_out_note(c, nccl_profiled, &sample)),
    );
    profile
        .notes
        .extend(collectives::share_note(&every.profile, nccl_profiled));
    // Each configuration's sampled launches count by their time (crate::fold).
    let mut folder = crate::fold::Folder::time_weighted();
    for l in std::mem::take(&mut profile.launches) {
        lint(&l);
        folder.add(l);
    }
    profile.launches = folder.finish();
    let info = SampleInfo {
        sample: Some(sample),
        profiled_launches: Some(profiled_launches),
        every_launch_counted_by: Some(every.counter()),
        counted_launches: Some(every.profile.launch_count()),
        coverage,
        unprofiled_ns,
        // Set by the stage once ncu's run has ended.
        program_end: None,
        traced_objects: launching_objects(&every.profile),
    };
    let in_order = renumbered.is_ok();
    profile.notes.extend(renumbered.err());
    (info, in_order)
}

/// What a sample by time, or the tracer's, covered of the counted launches; `sampled`
/// names the kernels it holds. The tracer profiles every kernel until its cap: those it
/// left out came after it, whatever their share of the time.
fn coverage(
    sample: &Sample,
    every: &EveryLaunch,
    sampled: &std::collections::HashSet<&str>,
) -> Option<crate::profile::sample::Coverage> {
    let unprofiled = match sample {
        Sample::ByTime(_) => None,
        Sample::Traced(_) => Some(crate::profile::sample::LeftOutBecause::AfterTracerCap),
        _ => return None,
    };
    let taken = super::taken_launches(&every.profile.launches, sample);
    let profiled = |name: &str| sampled.contains(name);
    by_time::coverage(&every.profile, &taken, &profiled, unprofiled)
}

/// Each traced kernel's launching object, once per kernel.
fn launching_objects(traced: &ingest::Profile) -> Vec<(String, std::sync::Arc<str>)> {
    let mut seen = std::collections::HashSet::new();
    (traced.launches.iter())
        .filter_map(|l| Some((l.name.clone(), l.launched_from.clone()?)))
        .filter(|(name, _)| seen.insert(name.clone()))
        .collect()
}

/// A traced launch whose duration includes `--source`'s SASS counting (its kernel and
/// shape ran no other launch) takes ncu's measure of it where it was sampled: the counting
/// made matmul_variants' naive matmul 140 times longer on the H200
/// (lab/runs/2026-12-04-sass-lines.txt).
fn time_instrumented_by_ncu(traced: &mut ingest::Profile, sampled: &[ingest::Launch]) {
    let measured: HashMap<u64, f64> = (sampled.iter())
        .filter_map(|l| Some((l.id, *l.metrics.get("duration_ns")?)))
        .collect();
    for t in traced.launches.iter_mut().filter(|t| t.timed_instrumented) {
        if let Some(&d) = measured.get(&t.id) {
            t.metrics.insert("duration_ns", d);
            t.timed_instrumented = false;
        }
    }
}

/// Each sampled launch's duration as the count measured it, where the launch numbers are
/// the program's (else as profiled): what the counted launches are compared with.
fn counted_durations(
    sampled: &[ingest::Launch],
    every: &EveryLaunch,
    renumbered: bool,
) -> Vec<Option<f64>> {
    let counted: HashMap<u64, f64> = (every.profile.launches.iter())
        .filter(|_| renumbered)
        .filter_map(|t| Some((t.id, *t.metrics.get("duration_ns")?)))
        .collect();
    (sampled.iter())
        .map(|l| (counted.get(&l.id).copied()).or(l.metrics.get("duration_ns").copied()))
        .collect()
}

/// The counted GPU time of the kernels the sample holds no launch of (`sampled`: the
/// names of those it holds).
fn unprofiled_time(sampled: &std::collections::HashSet<&str>, every: &EveryLaunch) -> f64 {
    (every.profile.launches.iter())
        .filter(|t| !sampled.contains(t.name.as_str()))
        .filter_map(ingest::Launch::time_ns)
        .sum()
}

/// What the report says of the configurations a sample by time left out: how many, their
/// share, and the kernels with the most of it.
/// NCCL's kernels, when none was profiled, are said apart (collectives::share_note).
fn left_out_note(
    coverage: &crate::profile::sample::Coverage,
    nccl_profiled: bool,
    sample: &Sample,
) -> Option<String> {
    let listed: Vec<&crate::profile::sample::LeftOut> = (coverage.left_out.iter())
        .filter(|l| nccl_profiled || !collectives::is_nccl(&l.kernel))
        .collect();
    if listed.is_empty() {
        return None;
    }
    const SHOWN: usize = 5;
    let configurations: u64 = listed.iter().map(|l| l.configurations).sum();
    let share: f64 = listed.iter().map(|l| l.share).sum();
    let mut kernels: Vec<String> = listed
        .iter()
        .take(SHOWN)
        .map(|l| format!("{} {}", kernel::short_name(&l.kernel), percent(l.share)))
        .collect();
    if listed.len() > SHOWN {
        kernels.push(format!("{} more", listed.len() - SHOWN));
    }
    Some(format!(
        "the profiled launches stand for configurations with {} of the GPU time; {} \
         configuration(s) of {} kernel(s), {}, were not profiled ({}): their time counts \
         toward their kernels' or the total, their counters are not read ({})",
        percent(coverage.profiled_share),
        configurations,
        listed.len(),
        percent(share),
        kernels.join(", "),
        match sample {
            Sample::Traced(_) => "--two-runs has ncu profile a sample by GPU time",
            _ => "--max-launches and --coverage profile more",
        }
    ))
}

/// Gives the traced launches the names ncu gave the sampled ones: the C++ runtime and ncu
/// demangle differently (`float*` and `float *`; PyTorch's `at::native::` is `at::` in
/// ncu). Of the traced launches the sample takes, each kernel's first pairs with a
/// sampled kernel's first, in launch order, each pair with one function name, grid and
/// block. Returns the sampled kernels no traced kernel pairs with.
pub fn adopt_sampled_names(
    traced: &mut [ingest::Launch],
    sampled: &[ingest::Launch],
    sample: &Sample,
) -> Vec<String> {
    let firsts = |launches: &[ingest::Launch], taken: &dyn Fn(usize) -> bool| -> Vec<usize> {
        let mut seen = std::collections::HashSet::new();
        (0..launches.len())
            .filter(|&i| taken(i) && seen.insert(launches[i].name.clone()))
            .collect()
    };
    let taken = super::taken_launches(traced, sample);
    let traced_firsts = firsts(traced, &|i| taken[i]);
    let mut names: HashMap<String, String> = HashMap::new();
    let mut unpaired = Vec::new();
    let mut next = 0;
    for s in firsts(sampled, &|_| true).into_iter().map(|i| &sampled[i]) {
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
            None => unpaired.push(kernel::short_name(&s.name)),
        }
    }
    for l in traced.iter_mut() {
        if let Some(name) = names.get(&l.name) {
            l.name.clone_from(name);
        }
    }
    unpaired
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(id: u64, name: &str, grid: u64) -> ingest::Launch {
        ingest::Launch::of_shape(id, name.into(), [grid, 1, 1], [256, 1, 1], 1)
    }

    /// A traced launch timed with the SASS counting takes ncu's duration of the same
    /// launch; one ncu did not profile, and the others, keep theirs.
    #[test]
    fn instrumented_launches_take_ncus_duration() {
        let timed = |id: u64, ns: f64, instrumented: bool| {
            let mut l = launch(id, "k(int)", 8);
            l.metrics.insert("duration_ns", ns);
            l.timed_instrumented = instrumented;
            l
        };
        let mut traced = ingest::Profile::of_trace(vec![
            timed(0, 400_000.0, true),
            timed(1, 3_000.0, false),
            timed(2, 90_000.0, true),
        ]);
        let sampled = [timed(0, 3_100.0, false), timed(1, 2_900.0, false)];
        time_instrumented_by_ncu(&mut traced, &sampled);
        let durations: Vec<f64> = (traced.launches.iter())
            .map(|l| l.metrics["duration_ns"])
            .collect();
        assert_eq!(durations, [3_100.0, 3_000.0, 90_000.0]);
        assert!(!traced.launches[0].timed_instrumented && traced.launches[2].timed_instrumented);
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
        let unpaired = adopt_sampled_names(&mut traced, &sampled, &Sample::Spread);
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

    /// A two-rank job's trace (each rank shown its GPU as device 0, with an all-reduce)
    /// and ncu's sample of it, from its own run (other pids): the report says each rank's
    /// share and NCCL's, and the sampled kernel, folded, counts both ranks by rank.
    #[test]
    fn a_two_rank_job_is_reported_by_rank() {
        let header = "correlation,device,stream,start_ns,end_ns,grid_x,grid_y,grid_z,\
            block_x,block_y,block_z,registers_per_thread,shared_memory_bytes,name";
        let block = |pid: u64, rank: u64| -> String {
            let mut rows = format!(
                "# gpulint launch trace 1, process {pid}, rank {rank}, dropped records: 0\n\
                 {header}\n"
            );
            for k in 0..10u64 {
                let at = 1_000 * rank + k * 100_000;
                rows += &format!(
                    "{},0,7,{at},{},64,1,1,256,1,1,32,0,\"k(float*)\"\n",
                    k + 1,
                    at + 50_000
                );
            }
            let at = 1_000 * rank + 1_000_000;
            rows += &format!(
                "11,0,9,{at},{},1,1,1,64,1,1,32,0,\"ncclDevKernel_AllReduce_Sum_f32_RING_LL(int)\"\n\
                 # end of process {pid}\n",
                at + 20_000
            );
            rows
        };
        let trace = format!("{}{}", block(7, 0), block(8, 1));
        let mut every = EveryLaunch {
            profile: ingest::trace::read(&trace, "t.csv").unwrap(),
            program_time: None,
            cuda_processes: 1,
            counted_in_run: None,
        };
        let mut profile = every.profile.clone();
        profile.page = ingest::Page::Raw;
        profile.launches = [500, 501]
            .iter()
            .enumerate()
            .map(|(id, &pid)| {
                let mut l = launch(id as u64, "k(float *)", 64);
                l.metrics.insert("duration_ns", 50_000.0);
                l.processes = vec![ingest::Process { rank: None, pid }];
                l
            })
            .collect();
        stand_for_every_launch(&mut profile, &mut every, Sample::Spread, false, &mut |_| {});
        let notes = profile.notes.join("\n");
        assert!(
            notes.contains(
                "the GPU time by rank: 50.0% on rank 0 (device 0), 50.0% on rank 1 (device 0); \
                 NCCL's share of each rank's time: 3.8% on rank 0 (device 0), 3.8% on rank 1 \
                 (device 0)"
            ),
            "{notes}"
        );
        let ranks: Vec<Option<u64>> = profile.launches[0]
            .processes
            .iter()
            .map(|p| p.rank)
            .collect();
        assert_eq!(ranks, [Some(0), Some(1)]);
    }
}
