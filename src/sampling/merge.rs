//! The sample planned from the count of every launch, and merged with it: traced kernels
//! named as ncu names them, sampled launches renumbered and weighted by the launches they
//! stand for, and the launch-shape rules judged on every counted launch.

use std::collections::HashMap;

use super::{EveryLaunch, apply_timing, in_program_order, most_alike};
use crate::ingest;
use crate::ncu::NcuOptions;
use crate::report;
use crate::rules::{self, Rule};
use crate::sample::{Sample, SampleInfo};

/// The sample once every launch is counted (`crate::sampling`), and what the progress
/// line expects of it.
pub fn plan_sample(
    opts: &mut NcuOptions,
    chosen: Sample,
    every: &EveryLaunch,
    verbose: bool,
) -> Sample {
    // With -k, counts of the other kernels would weigh in the choice.
    let planned = match opts.kernel_name {
        None => crate::sampling::choose_for_time(chosen, &every.profile, verbose),
        Some(_) => chosen,
    };
    opts.sample = Some(planned);
    opts.expected_launches = Some(crate::sampling::launches_to_profile(
        planned,
        &every.profile,
    ));
    opts.traced_run_time = every.program_time;
    planned
}

/// Makes the sampled profile stand for every counted launch: traced kernels take ncu's
/// names (and, with `-k`, only the sampled kernels are counted), the sampled launches get
/// the program's launch numbers, fold by configuration weighted by time, and take the
/// count's launches and durations. Returns what the reports say of the sample, and whether
/// the launch numbers are the program's (only then do the launch-shape rules judge every
/// counted launch).
pub fn stand_for_every_launch(
    profile: &mut ingest::Profile,
    every: &mut EveryLaunch,
    sample: Sample,
    kernel_filter: bool,
) -> (SampleInfo, bool) {
    let mut launches = std::mem::take(&mut profile.launches);
    if every.traced() {
        let unpaired = adopt_sampled_names(&mut every.profile.launches, &launches);
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
    let renumbered = in_program_order(&mut launches, every, sample);
    // Each configuration's sampled launches count by their time (crate::fold).
    let mut folder = crate::fold::Folder::time_weighted();
    for l in launches {
        folder.add(l);
    }
    profile.launches = folder.finish();
    let info = SampleInfo {
        sample: Some(sample),
        profiled_launches: Some(profile.launch_count()),
        every_launch_counted_by: Some(every.counter()),
    };
    let note = apply_timing(profile, every);
    profile.notes.push(note);
    let in_order = renumbered.is_ok();
    profile.notes.extend(renumbered.err());
    (info, in_order)
}

/// With every launch counted, the launch-shape rules (block size, small grid, failed
/// launch) judge every launch instead of the sampled ones: a spread misses LU's last, tiny
/// grids, the count does not. A timing pass records each launch's attributes; a traced
/// launch takes them from the sampled entry most like it. Their findings replace the
/// sample's. They belong to the sample's report (the launch numbers
/// are the program's in both), at the line of the sampled launch most like theirs.
pub fn judge_launch_shapes_on_every_launch(
    outcome: &mut rules::engine::Outcome,
    every: &EveryLaunch,
    sampled: &ingest::Profile,
    rules: &[Rule],
    ignored: rules::engine::KernelFilter,
) {
    let shape_rules: Vec<Rule> = rules
        .iter()
        .filter(|r| r.category == "launch")
        .cloned()
        .collect();
    let mut linter = rules::engine::Linter::new(&shape_rules, ignored, true);
    for l in &every.profile.launches {
        let like = most_alike(&sampled.launches, l).map(|i| &sampled.launches[i]);
        let mut launch = ingest::Launch {
            line: like.map_or(0, |s| s.line),
            ..l.clone()
        };
        // A traced launch has only its shape and duration: the rest comes from the sampled
        // entry most like it. One no sampled entry is like is not judged.
        if every.traced() {
            let Some(like) = like else { continue };
            launch.metrics = traced_launch_metrics(l, like);
        }
        linter.add(&sampled.file, &launch);
    }
    let every = linter.finish();
    let is_shape = |slug: &str| shape_rules.iter().any(|r| r.slug == slug);
    outcome.findings.retain(|f| !is_shape(&f.rule));
    outcome.findings.extend(every.findings);
    outcome.skips.retain(|s| !is_shape(&s.rule));
    outcome.skips.extend(every.skips);
    // What judged the launch-shape rules is every launch now, not the sample: a rule that
    // reads the trace's timeline could not judge the sampled launches, and did these.
    let (to, from) = (&mut outcome.coverage, every.coverage);
    for (list, more) in [
        (&mut to.judged, from.judged),
        (&mut to.not_judged, from.not_judged),
        (&mut to.needs_launch_trace, from.needs_launch_trace),
    ] {
        list.retain(|slug| !is_shape(slug));
        list.extend(more);
        list.sort();
    }
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
    let mut metrics = crate::metrics::launch_shape_metrics(
        &like.metrics,
        traced.grid.unwrap_or([0; 3]),
        traced.block.unwrap_or([0; 3]),
        traced.metrics.get("duration_ns").copied(),
        same_resources,
    );
    for key in ingest::trace::TIMELINE_KEYS {
        if let Some(&v) = traced.metrics.get(key) {
            metrics.insert(key, v);
        }
    }
    metrics
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
