//! The sample by time: from every launch the launch trace counted, which launches ncu
//! profiles. Configurations are ranked by their share of the GPU time and taken until
//! they cover [`Budget::coverage`] of it, each by a launch near its median duration (and
//! its longest too, where its launches differ), and every kernel with 1% of the time by
//! one launch (one of each kind, where its grids are of more than one: under a block per
//! SM, under one wave of resident blocks, whole waves), within
//! [`Budget::max_launches`]; what the cap leaves goes to the octaves of a configuration's
//! durations (`needs::octave_needs`). ncu takes one set of launch numbers,
//! counted per kernel, for the kernels it is asked for (by mangled name, where the trace
//! recorded them, else every kernel: `--kernel-id :::N1|N2|...`), so the numbers are
//! chosen to serve several configurations at once: in a training loop, one step's
//! launches.

use std::collections::HashMap;

mod counted;
mod cover;
mod needs;
#[cfg(test)]
mod tests;

use crate::ingest;
use crate::profile::ncu::SECONDS_PER_LAUNCH;
use crate::profile::sample::{Chosen, Coverage, LeftOut, LeftOutBecause, Sample};
use counted::Counted;
use needs::{KERNEL_SHARE, Need, grid_kind_needs, kernel_needs, needs_of, octave_needs};

/// What a sample by time may profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Share (0 to 1) of the counted GPU time the profiled configurations are to cover.
    pub coverage: f64,
    /// The most launches to profile.
    pub max_launches: u64,
    /// Raise `max_launches` to give each kernel with [`ALWAYS_PROFILED_SHARE`] of the time
    /// its own launch: the default cap does, a cap the user gave does not.
    pub take_every_heavy_kernel: bool,
    /// Leave NCCL's kernels out (crate::profile::collectives): by default, since a
    /// collective under ncu's replay waits for ranks it has stopped.
    pub leave_out_nccl: bool,
    /// The GPU's SMs and warp slots per SM, where known before ncu runs: a kernel whose
    /// grids are of more than one kind (under one block per SM, under one wave of
    /// resident blocks, whole waves) gets a launch of each kind.
    pub gpu: Option<crate::profile::visible_gpus::Shape>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            coverage: DEFAULT_COVERAGE,
            max_launches: MOST_LAUNCHES,
            take_every_heavy_kernel: true,
            leave_out_nccl: true,
            gpu: None,
        }
    }
}

/// The configurations that carry 99% of the GPU time are profiled by default: the rest
/// has too little at stake to change a verdict.
pub const DEFAULT_COVERAGE: f64 = 0.99;

/// By default the sample's profiling takes about this share of the program's own run
/// time, and at least [`FEWEST_LAUNCHES`]' worth: the run then costs about twice the
/// program's, plus a few seconds.
const PROFILING_SHARE_OF_RUN: f64 = 0.25;

/// The default cap's bounds: 12 launches take a loop's few busiest kernels (and warned as
/// every launch did on every capture: tests/sample_by_time.rs), 40 (13 s) bound a long
/// program's. At 10 replay passes a launch 8 (the floor until 2026-12-05) was what twice
/// the program plus 5 s left after ncu's start and the import, and 12 took the PyTorch
/// transformer 2-4 s past it (lab/runs/2026-12-03-cost-floor.txt). At 8 passes, on an
/// H100: BFS with 12 warned serial-loads in 3 runs of 3 (with 8 in none), 4.3-5.6 s
/// against a target of 6.1-6.2; the attention script with 12 took 25.3 s, with 8 25.7 s
/// (lab/runs/2026-12-05-range-profiler.txt).
const FEWEST_LAUNCHES: u64 = 12;
const MOST_LAUNCHES: u64 = 40;

/// A kernel with this share of the counted GPU time or more is never left out of the
/// default sample: the cap rises to give each its own launch
/// ([`Budget::take_every_heavy_kernel`]). No more than 20 kernels can
/// hold 5% each. split_structs.cu's ten copies (7-19% each, a 0.5 s program) lost one
/// kernel's warning to the floor of 8 it had then (lab/runs/2026-12-05-one-run.txt, call
/// 5); the transformer's 6 and the CNN's 3 such kernels fit under it.
const ALWAYS_PROFILED_SHARE: f64 = 0.05;

/// The default cap on profiled launches, for a program that ran `run` under the launch
/// tracer (unknown: the most).
pub fn default_max_launches(run: Option<std::time::Duration>) -> u64 {
    let Some(run) = run else {
        return MOST_LAUNCHES;
    };
    let seconds = PROFILING_SHARE_OF_RUN * run.as_secs_f64();
    ((seconds / SECONDS_PER_LAUNCH) as u64).clamp(FEWEST_LAUNCHES, MOST_LAUNCHES)
}

/// How many kernels hold [`ALWAYS_PROFILED_SHARE`] of the counted GPU time or more.
fn heavy_kernels(counted: &Counted) -> u64 {
    (counted.kernel_times().iter())
        .filter(|t| **t >= ALWAYS_PROFILED_SHARE * counted.total)
        .count() as u64
}

/// Which launches to profile, and what they will cover.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub chosen: Chosen,
    /// Launches ncu will profile: the chosen kernels' launches with those numbers.
    pub launches: u64,
    /// Share of the counted GPU time in configurations with a profiled launch.
    pub covered: f64,
    pub configurations: usize,
    pub covered_configurations: usize,
}

/// The sample by time of these counted launches, or `None` unless every launch was
/// counted one by one with its duration.
pub fn plan(every: &ingest::Profile, budget: Budget) -> Option<Plan> {
    plan_with(every, budget, true)
}

/// As [`plan`], with or without the octaves' needs (`needs::octave_needs`).
fn plan_with(every: &ingest::Profile, budget: Budget, with_octaves: bool) -> Option<Plan> {
    let counted = Counted::of(every)?;
    let mut by_time: Vec<usize> = (0..counted.configurations.len()).collect();
    by_time.sort_by(|&a, &b| {
        counted.configurations[b]
            .1
            .total_cmp(&counted.configurations[a].1)
    });
    // NCCL's configurations are left out, and the coverage is of the time of the rest.
    let left_out: Vec<bool> = (counted.kernels.iter())
        .map(|k| budget.leave_out_nccl && crate::profile::collectives::is_nccl(&k.0))
        .collect();
    by_time.retain(|&c| !left_out[counted.configurations[c].0]);
    let eligible: f64 = by_time.iter().map(|&c| counted.configurations[c].1).sum();
    let mut needs = kernel_needs(&counted, &by_time);
    needs.extend(
        grid_kind_needs(&counted, budget.gpu)
            .into_iter()
            .filter(|n| !left_out[n.kernel]),
    );
    let mut taken = 0.0;
    let mut octaves = Vec::new();
    for configuration in by_time {
        if taken >= budget.coverage * eligible {
            break;
        }
        taken += counted.configurations[configuration].1;
        needs.extend(needs_of(&counted, configuration));
        if with_octaves {
            octaves.extend(octave_needs(&counted, configuration));
        }
    }
    let cap = match budget.take_every_heavy_kernel {
        true => budget.max_launches.max(heavy_kernels(&counted)),
        false => budget.max_launches,
    };
    let pick = cover::choose(&counted, &needs, octaves, cap);
    let chosen = Chosen {
        numbers: pick.numbers.iter().copied().collect(),
        kernels: counted.by_name.then(|| {
            (counted.kernels.iter().zip(&pick.kernels))
                .filter(|(_, kept)| **kept)
                .filter_map(|(k, _)| k.2.as_deref().map(String::from))
                .collect()
        }),
    };
    let taken = super::taken_launches(&every.launches, &Sample::ByTime(chosen.clone()));
    let covered = counted.covered(&taken);
    Some(Plan {
        launches: taken.iter().filter(|t| **t).count() as u64,
        covered: counted.share(&covered),
        configurations: covered.len(),
        covered_configurations: covered.iter().filter(|c| **c).count(),
        chosen,
    })
}

/// What a sample covered of the counted launches: the configurations with a launch it
/// took (`taken`) of a kernel the sample holds (`profiled`), and the others by kernel, the
/// most GPU time first. A kernel with no profiled configuration was left out for its
/// small share or the launch cap, as a sample by time leaves kernels out, unless
/// `unprofiled` gives the sample's own reason (the tracer's, which takes every kernel
/// until its cap).
pub fn coverage(
    every: &ingest::Profile,
    taken: &[bool],
    profiled: &dyn Fn(&str) -> bool,
    unprofiled: Option<LeftOutBecause>,
) -> Option<Coverage> {
    let counted = Counted::of(every)?;
    let taken: Vec<bool> = (taken.iter().zip(&every.launches))
        .map(|(t, l)| *t && profiled(&l.name))
        .collect();
    let covered = counted.covered(&taken);
    let kernel_time = counted.kernel_times();
    let mut kernel_profiled = vec![false; counted.kernels.len()];
    for (c, &covered) in counted.configurations.iter().zip(&covered) {
        kernel_profiled[c.0] |= covered;
    }
    let because = |kernel: usize| {
        if crate::profile::collectives::is_nccl(&counted.kernels[kernel].0) {
            LeftOutBecause::Nccl
        } else if kernel_profiled[kernel] {
            LeftOutBecause::OtherConfigurationsProfiled
        } else if let Some(why) = unprofiled {
            why
        } else if kernel_time[kernel] < KERNEL_SHARE * counted.total {
            LeftOutBecause::SmallShare
        } else {
            LeftOutBecause::LaunchCap
        }
    };
    let mut left_out: Vec<LeftOut> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (c, _) in (counted.configurations.iter().zip(&covered)).filter(|(_, c)| !**c) {
        let i = *at.entry(c.0).or_insert_with(|| {
            left_out.push(LeftOut {
                kernel: counted.kernels[c.0].0.clone(),
                share: 0.0,
                configurations: 0,
                launches: 0,
                because: because(c.0),
            });
            left_out.len() - 1
        });
        left_out[i].share += c.1 / counted.total;
        left_out[i].configurations += 1;
        left_out[i].launches += c.2.len() as u64;
    }
    left_out.sort_by(|a, b| b.share.total_cmp(&a.share));
    Some(Coverage {
        profiled_share: counted.share(&covered),
        left_out,
    })
}
