//! The sample by time: from every launch the launch trace counted, which launches ncu
//! profiles. Configurations are ranked by their share of the GPU time and taken until
//! they cover [`Budget::coverage`] of it, each by a launch near its median duration (and
//! its longest too, where its launches differ), and every kernel with 1% of the time by
//! one launch, within [`Budget::max_launches`]. ncu takes one set of launch numbers,
//! counted per kernel, for the kernels it is asked for (by mangled name, where the trace
//! recorded them, else every kernel: `--kernel-id :::N1|N2|...`), so the numbers are
//! chosen to serve several configurations at once: in a training loop, one step's
//! launches.

use std::collections::HashMap;
use std::sync::Arc;

mod cover;

use crate::ingest;
use crate::profile::ncu::SECONDS_PER_LAUNCH;
use crate::profile::sample::{Chosen, Coverage, LeftOut, Sample};

/// What a sample by time may profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Share (0 to 1) of the counted GPU time the profiled configurations are to cover.
    pub coverage: f64,
    /// The most launches to profile.
    pub max_launches: u64,
    /// Leave NCCL's kernels out (crate::profile::collectives): by default, since a
    /// collective under ncu's replay waits for ranks it has stopped.
    pub leave_out_nccl: bool,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            coverage: DEFAULT_COVERAGE,
            max_launches: MOST_LAUNCHES,
            leave_out_nccl: true,
        }
    }
}

/// The configurations that carry 99% of the GPU time are profiled by default: the rest
/// has too little at stake to change a verdict.
pub const DEFAULT_COVERAGE: f64 = 0.99;

/// By default the sample's profiling takes about this share of the program's own run
/// time, and at least [`LEAST_PROFILING_S`]: the run then costs about twice the program's,
/// plus a few seconds.
const PROFILING_SHARE_OF_RUN: f64 = 0.25;
/// Twice the program plus 5 s leaves about 3 s for the launches once ncu has attached
/// (about 1 s) and the report is imported (0.6-0.8 s): 8 launches of 0.33-0.45 s
/// (lab/runs/2026-12-03-cost-floor.txt). 12 took the PyTorch transformer 2-4 s past it.
const LEAST_PROFILING_S: f64 = 2.7;

/// The default cap's bounds: 8 launches take a loop's few busiest kernels (and warned as
/// every launch did on every capture: tests/sample_by_time.rs), 40 (13 s) bound a long
/// program's.
const FEWEST_LAUNCHES: u64 = 8;
const MOST_LAUNCHES: u64 = 40;

/// The default cap on profiled launches, for a program that ran `run` under the launch
/// tracer (unknown: the most).
pub fn default_max_launches(run: Option<std::time::Duration>) -> u64 {
    let Some(run) = run else {
        return MOST_LAUNCHES;
    };
    let seconds = (PROFILING_SHARE_OF_RUN * run.as_secs_f64()).max(LEAST_PROFILING_S);
    ((seconds / SECONDS_PER_LAUNCH) as u64).clamp(FEWEST_LAUNCHES, MOST_LAUNCHES)
}

/// A launch stands for its configuration when its duration is within this share of the
/// configuration's median (run-to-run jitter is a few percent).
const NEAR_MEDIAN: f64 = 0.10;

/// A configuration whose launches this much longer than its median carry [`LONG_SHARE`] of
/// its time gets its longest launch profiled too: its time does not come evenly (a search
/// whose frontier grows). A first launch slowed by a cold start alone does not.
const LONGEST_FACTOR: f64 = 1.25;
const LONG_SHARE: f64 = 0.10;

/// Launch numbers looked at per configuration: the first of those near its median.
const CANDIDATES: usize = 128;

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

/// Every counted launch, by kernel and configuration. A configuration here is a kernel's
/// launches with one block whose grids are within a power of two: they judge alike (waves,
/// tail effect), and a grid that shrinks every launch (LU's 63) makes a few, not 63.
struct Counted {
    /// Per launch, in launch order: its kernel, its number among the kernel's launches
    /// (from 1), its configuration and its duration.
    launches: Vec<(usize, u64, usize, f64)>,
    /// Per kernel: its name, how many times it was launched, and its mangled name.
    kernels: Vec<(String, u64, Option<Arc<str>>)>,
    /// Per configuration: its kernel, its GPU time, and its launches (indices).
    configurations: Vec<(usize, f64, Vec<usize>)>,
    total: f64,
    /// Whether ncu can be asked for some kernels only: every kernel has a mangled name
    /// that `--kernel-id` can carry.
    by_name: bool,
}

type ConfigurationKey = (usize, Option<[u64; 3]>, u32);

impl Counted {
    /// `None` unless the launches were counted one by one, with a GPU time.
    fn of(every: &ingest::Profile) -> Option<Counted> {
        if every.launches.iter().any(|l| l.count != 1) {
            return None;
        }
        let mut kernel_at: HashMap<&str, usize> = HashMap::new();
        let mut configuration_at: HashMap<ConfigurationKey, usize> = HashMap::new();
        let mut counted = Counted {
            launches: Vec::with_capacity(every.launches.len()),
            kernels: Vec::new(),
            configurations: Vec::new(),
            total: 0.0,
            by_name: true,
        };
        for (i, l) in every.launches.iter().enumerate() {
            let kernel = *kernel_at.entry(&l.name).or_insert_with(|| {
                counted.kernels.push((l.name.clone(), 0, l.mangled.clone()));
                counted.kernels.len() - 1
            });
            counted.kernels[kernel].1 += 1;
            let blocks = l.grid.map_or(1, |g| g.iter().product::<u64>().max(1));
            let key = (kernel, l.block, blocks.ilog2());
            let configuration = *configuration_at.entry(key).or_insert_with(|| {
                counted.configurations.push((kernel, 0.0, Vec::new()));
                counted.configurations.len() - 1
            });
            let duration = l.metrics.get("duration_ns").copied().unwrap_or(0.0);
            counted.configurations[configuration].1 += duration;
            counted.configurations[configuration].2.push(i);
            counted.total += duration;
            let number = counted.kernels[kernel].1;
            counted
                .launches
                .push((kernel, number, configuration, duration));
        }
        counted.by_name = (counted.kernels.iter()).all(|k| {
            k.2.as_deref()
                .is_some_and(crate::profile::ncu::mangled_fits_kernel_id)
        });
        (counted.total > 0.0).then_some(counted)
    }

    /// Launches of the kernels `kept` (and `also`) whose number is `n`: one of each
    /// launched that often.
    fn cost(&self, n: u64, kept: &[bool], also: usize) -> u64 {
        (self.kernels.iter().zip(kept).enumerate())
            .filter(|(i, (k, kept))| (**kept || *i == also) && k.1 >= n)
            .count() as u64
    }

    fn share(&self, covered: &[bool]) -> f64 {
        let time: f64 = (self.configurations.iter().zip(covered))
            .filter(|(_, c)| **c)
            .map(|(c, _)| c.1)
            .sum();
        time / self.total
    }

    /// The configurations with a launch that `taken` takes.
    fn covered(&self, taken: &[bool]) -> Vec<bool> {
        let mut covered = vec![false; self.configurations.len()];
        for (&(_, _, configuration, _), taken) in self.launches.iter().zip(taken) {
            covered[configuration] |= *taken;
        }
        covered
    }
}

/// A launch a configuration needs profiled: any of `numbers` (sorted) of its `kernel`.
struct Need {
    kernel: usize,
    numbers: Vec<u64>,
    weight: f64,
    /// A kernel's own need ([`kernel_needs`]): any launch of it, weighing as its time.
    whole_kernel: bool,
}

/// The needs of one configuration: a launch near its median, and its longest where the
/// long launches carry a good part of its time.
fn needs_of(counted: &Counted, configuration: usize) -> Vec<Need> {
    let (kernel, time, launches) = &counted.configurations[configuration];
    let duration = |i: &usize| counted.launches[*i].3;
    let mut sorted: Vec<f64> = launches.iter().map(duration).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[(sorted.len() - 1) / 2];
    let longest = sorted[sorted.len() - 1];
    let near = |target: f64| -> Vec<u64> {
        let mut numbers: Vec<u64> = launches
            .iter()
            .filter(|i| (duration(i) - target).abs() <= NEAR_MEDIAN * target)
            .map(|i| counted.launches[*i].1)
            .take(CANDIDATES)
            .collect();
        if numbers.is_empty() {
            // Durations of 0 (a launch the trace could not time): any launch stands.
            numbers.push(counted.launches[launches[0]].1);
        }
        numbers
    };
    let need = |numbers| Need {
        kernel: *kernel,
        numbers,
        weight: time.max(f64::MIN_POSITIVE),
        whole_kernel: false,
    };
    let mut needs = vec![need(near(median))];
    let long_time: f64 = sorted
        .iter()
        .filter(|&&d| d > LONGEST_FACTOR * median)
        .sum();
    if long_time >= LONG_SHARE * time {
        needs.push(need(near(longest)));
    }
    needs
}

/// A kernel with at least this share of the GPU time gets one launch, whatever its
/// configurations' own shares: LU's trailing update spreads its 13% over 11 shrinking
/// grids of about 1% each, none of which would win a place on its own.
const KERNEL_SHARE: f64 = 0.01;

/// One need per kernel with [`KERNEL_SHARE`] of the time: any launch of its busiest
/// configuration, weighing as the whole kernel. Its counters are what its findings read;
/// a launch near the median is the configuration's own need. The CG solver's cg_scalars
/// (4.5% of the time), whose first launch is 16-41% off its median, would otherwise cost
/// a launch number of its own, a launch of every kernel, and was left out with its two
/// warnings. `by_time`: configurations, the most time first.
fn kernel_needs(counted: &Counted, by_time: &[usize]) -> Vec<Need> {
    let mut time = vec![0.0; counted.kernels.len()];
    for c in &counted.configurations {
        time[c.0] += c.1;
    }
    let mut seen = vec![false; counted.kernels.len()];
    let mut needs = Vec::new();
    for &configuration in by_time {
        let kernel = counted.configurations[configuration].0;
        if seen[kernel] || time[kernel] < KERNEL_SHARE * counted.total {
            continue;
        }
        seen[kernel] = true;
        let launches = &counted.configurations[configuration].2;
        let mut numbers: Vec<u64> = (launches.iter().take(CANDIDATES))
            .map(|&i| counted.launches[i].1)
            .collect();
        numbers.sort_unstable();
        needs.push(Need {
            kernel,
            numbers,
            weight: time[kernel].max(f64::MIN_POSITIVE),
            whole_kernel: true,
        });
    }
    needs
}

/// The sample by time of these counted launches, or `None` unless every launch was
/// counted one by one with its duration.
pub fn plan(every: &ingest::Profile, budget: Budget) -> Option<Plan> {
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
    let mut taken = 0.0;
    for configuration in by_time {
        if taken >= budget.coverage * eligible {
            break;
        }
        taken += counted.configurations[configuration].1;
        needs.extend(needs_of(&counted, configuration));
    }
    let pick = cover::choose(&counted, &needs, budget.max_launches);
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

/// What a sample by time covered of the counted launches: the configurations with a
/// launch it took (`taken`) of a kernel the sample holds (`profiled`), and the others by
/// kernel, the most GPU time first.
pub fn coverage(
    every: &ingest::Profile,
    taken: &[bool],
    profiled: &dyn Fn(&str) -> bool,
) -> Option<Coverage> {
    let counted = Counted::of(every)?;
    let taken: Vec<bool> = (taken.iter().zip(&every.launches))
        .map(|(t, l)| *t && profiled(&l.name))
        .collect();
    let covered = counted.covered(&taken);
    let mut left_out: Vec<LeftOut> = Vec::new();
    let mut at: HashMap<usize, usize> = HashMap::new();
    for (c, _) in (counted.configurations.iter().zip(&covered)).filter(|(_, c)| !**c) {
        let i = *at.entry(c.0).or_insert_with(|| {
            left_out.push(LeftOut {
                kernel: counted.kernels[c.0].0.clone(),
                share: 0.0,
                configurations: 0,
                launches: 0,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A traced launch of `blocks` blocks of 256 threads that took `ns`.
    fn timed(name: &str, blocks: u64, ns: f64) -> ingest::Launch {
        let mut l = ingest::Launch::of_shape(0, name.into(), [blocks, 1, 1], [256, 1, 1], 1);
        l.metrics.insert("duration_ns", ns);
        l
    }

    /// What `plan` covers of `every`.
    fn covered(every: &ingest::Profile, plan: &Plan) -> Coverage {
        let sample = Sample::ByTime(plan.chosen.clone());
        let taken = crate::profile::sampling::taken_launches(&every.launches, &sample);
        coverage(every, &taken, &|_| true).unwrap()
    }

    fn trace(mut launches: Vec<ingest::Launch>) -> ingest::Profile {
        for (i, l) in launches.iter_mut().enumerate() {
            l.id = i as u64;
            l.last_id = i as u64;
        }
        ingest::Profile {
            file: "trace".into(),
            page: ingest::Page::Trace,
            launches,
            notes: Vec::new(),
            source_blocks: Vec::new(),
        }
    }

    /// The kernels (mangled) that a sample of at most 8 launches asks ncu for, planned
    /// from a real launch trace of fixtures/h200-by-time.
    fn kernels_of_8_launches(trace: &str) -> Vec<String> {
        let every = crate::ingest::read_path(&format!(
            "{}/fixtures/h200-by-time/{trace}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let budget = Budget {
            max_launches: 8,
            ..Budget::default()
        };
        let plan = plan(&every, budget).unwrap();
        assert!(plan.launches <= 8, "{plan:?}");
        plan.chosen.kernels.unwrap()
    }

    /// LU at 1024 on the H200 (its launch trace): lud_perimeter's shrinking grids make many
    /// configurations, and with 8 launches the cover spent them on it and lud_diagonal at
    /// four numbers, leaving lud_internal (13% of the time) unprofiled. Kernels come first:
    /// all three are asked for.
    #[test]
    fn every_kernel_that_carries_time_comes_before_more_configurations() {
        let kernels = kernels_of_8_launches("default_lud.trace.csv");
        assert!(
            kernels.contains(&"_Z12lud_internalPfii".to_string()),
            "{kernels:?}"
        );
        assert_eq!(kernels.len(), 3);
    }

    /// The CG solver on the H200 (its launch trace): cg_scalars takes 4.4% of the time and
    /// its first launch is 41% off its median. A launch near the median would cost a
    /// number of its own, a launch of each of 7 kernels; its kernel's need takes any launch
    /// of its busiest configuration, so one number serves all 7.
    #[test]
    fn a_kernel_whose_first_launch_is_off_its_median_still_gets_a_launch() {
        let kernels = kernels_of_8_launches("default_cg_solver.trace.csv");
        assert!(
            kernels.iter().any(|k| k.starts_with("_Z10cg_scalars")),
            "{kernels:?}"
        );
        assert_eq!(kernels.len(), 7);
    }

    /// A short program gets the floor, 8 launches; one of 40 s a quarter of its time
    /// (30); one not traced the most.
    #[test]
    fn the_default_cap_follows_the_programs_run() {
        let cap = |s: f64| default_max_launches(Some(std::time::Duration::from_secs_f64(s)));
        assert_eq!((cap(0.5), cap(10.0)), (8, 8));
        assert_eq!(cap(40.0), 30);
        assert_eq!((cap(600.0), default_max_launches(None)), (40, 40));
    }

    /// A training loop: 50 steps of a GEMM, an activation and a tiny bookkeeping kernel,
    /// after a one-off initialisation. One step's launches serve all three, so one launch
    /// number is profiled, and the initialisation (launch 1 of its kernel) is left out.
    #[test]
    fn one_step_of_a_loop_serves_every_configuration() {
        let mut launches = vec![timed("init", 1024, 2_000.0)];
        for step in 0..50 {
            let warm = if step == 0 { 3.0 } else { 1.0 };
            launches.push(timed("gemm", 512, 100_000.0 * warm));
            launches.push(timed("gelu", 2048, 20_000.0));
            launches.push(timed("step_count", 1, 1_500.0));
        }
        let every = trace(launches);
        let plan = plan(&every, Budget::default()).unwrap();
        assert_eq!(plan.chosen.numbers.len(), 1, "{plan:?}");
        assert!(
            plan.chosen.numbers[0] > 1,
            "the first, warm-up step is not the median"
        );
        assert_eq!(plan.launches, 3);
        assert!(plan.covered > 0.99, "{plan:?}");
        let covered = covered(&every, &plan);
        assert_eq!(covered.left_out.len(), 1);
        assert_eq!(covered.left_out[0].kernel, "init");
    }

    /// Where every kernel has a mangled name (a launch trace's), ncu is asked for the
    /// kernels that carry the time only: a loop of 21 kernels a step, 3 of which take 99%
    /// of its time, profiles 3 launches, not 21, and names those 3.
    #[test]
    fn only_the_kernels_that_carry_the_time_are_asked_for() {
        let mut launches = Vec::new();
        for _ in 0..30 {
            for k in 0..21 {
                let ns = if k < 3 { 100_000.0 } else { 50.0 };
                let mut l = timed(&format!("k{k}"), 64, ns);
                l.mangled = Some(format!("_Z2k{k}v").into());
                launches.push(l);
            }
        }
        let every = trace(launches);
        let plan = plan(&every, Budget::default()).unwrap();
        assert_eq!(plan.launches, 3, "{plan:?}");
        assert_eq!(plan.chosen.numbers.len(), 1);
        assert_eq!(
            plan.chosen.kernels.as_deref(),
            Some(&["_Z2k0v".to_string(), "_Z2k1v".into(), "_Z2k2v".into()][..])
        );
        assert!(plan.covered > 0.99);
        // Without mangled names (a timing pass), a launch number costs every kernel.
        let mut unnamed = every.clone();
        unnamed.launches.iter_mut().for_each(|l| l.mangled = None);
        let plan = super::plan(&unnamed, Budget::default()).unwrap();
        assert_eq!((plan.launches, plan.chosen.kernels), (21, None));
    }

    /// A data-parallel step: two GEMMs and NCCL's all-reduce, which carries half the
    /// time. By default the all-reduce is never asked for (a collective under ncu's replay
    /// hangs) and the coverage is of the GEMMs' time; `--profile-nccl` asks for it too.
    #[test]
    fn nccl_kernels_are_left_out_unless_asked_for() {
        let mut launches = Vec::new();
        for _ in 0..20 {
            for (name, mangled, ns) in [
                ("gemm_a(float *)", "_Z6gemm_aPf", 40_000.0),
                ("gemm_b(float *)", "_Z6gemm_bPf", 10_000.0),
                (
                    "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
                    "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE",
                    50_000.0,
                ),
            ] {
                let mut l = timed(name, 64, ns);
                l.mangled = Some(mangled.into());
                launches.push(l);
            }
        }
        let every = trace(launches);
        let plan = plan(&every, Budget::default()).unwrap();
        let kernels = plan.chosen.kernels.clone().unwrap();
        assert_eq!(kernels, ["_Z6gemm_aPf", "_Z6gemm_bPf"], "{plan:?}");
        assert_eq!(plan.launches, 2);
        assert!((plan.covered - 0.5).abs() < 1e-9, "{plan:?}");
        let asked = Budget {
            leave_out_nccl: false,
            ..Budget::default()
        };
        let plan = super::plan(&every, asked).unwrap();
        assert_eq!(plan.chosen.kernels.unwrap().len(), 3);
        assert!(plan.covered > 0.99);
    }

    /// The cap holds however many configurations carry the time, and what is below the
    /// cut is listed, the most GPU time first.
    #[test]
    fn the_cap_bounds_the_launches_and_the_rest_is_listed() {
        // A kernel launched 200 times with a new grid octave every 20 launches, beside a
        // kernel launched 200 times alike: 11 configurations, each wanting its own number.
        let mut launches = Vec::new();
        for i in 0..200u64 {
            launches.push(timed("octaves", 1 << (i / 20), 1_000.0 + (i / 20) as f64));
            launches.push(timed("even", 64, 1_000.0));
        }
        let every = trace(launches);
        let budget = Budget {
            coverage: 1.0,
            max_launches: 8,
            ..Budget::default()
        };
        let plan = plan(&every, budget).unwrap();
        assert!(plan.launches <= 8, "{plan:?}");
        let covered = covered(&every, &plan);
        assert_eq!(covered.left_out.len(), 1);
        assert_eq!(covered.left_out[0].kernel, "octaves");
        // Each number costs 2 (both kernels reach it) and serves one octave: 4 of 10.
        assert_eq!(covered.left_out[0].configurations, 6);
        assert!(covered.profiled_share < 1.0);
    }

    /// 100 kernels launched once each: launch number 1 costs 100 launches, more than the
    /// cap, and is taken all the same, as a sample of nothing would judge nothing.
    #[test]
    fn the_busiest_configuration_is_profiled_whatever_it_costs() {
        let launches: Vec<_> = (0..100)
            .map(|k| timed(&format!("k{k}"), 64, 1_000.0 * (100 - k) as f64))
            .collect();
        let plan = plan(&trace(launches), Budget::default()).unwrap();
        assert_eq!(plan.chosen.numbers, [1]);
        assert_eq!(plan.launches, 100);
    }

    /// A kernel whose grid shrinks every launch (LU's trailing update): its grids make a
    /// configuration per power of two, and the busiest are taken; a kernel whose time
    /// comes late (a growing frontier) gets its longest launch too.
    #[test]
    fn shrinking_grids_and_late_time_are_sampled_where_the_time_is() {
        let mut launches = Vec::new();
        for i in 0..64u64 {
            let blocks = (64 - i) * (64 - i);
            launches.push(timed("shrinks", blocks, blocks as f64 * 10.0));
            let frontier = if (40..44).contains(&i) {
                80_000.0
            } else {
                8_000.0
            };
            launches.push(timed("search", 128, frontier));
        }
        let every = trace(launches);
        let plan = plan(&every, Budget::default()).unwrap();
        let covered = covered(&every, &plan);
        assert!(covered.profiled_share >= 0.99, "{covered:?}");
        assert!(plan.launches <= 40);
        assert!(
            plan.chosen.numbers.iter().any(|n| (41..=44).contains(n)),
            "the search's long launches: {plan:?}"
        );
    }

    /// A trace folded by configuration (counts above 1), or without durations, plans
    /// nothing: the spread stays.
    #[test]
    fn without_launches_counted_one_by_one_there_is_no_plan() {
        let mut folded = timed("k", 64, 1_000.0);
        folded.count = 5;
        assert_eq!(plan(&trace(vec![folded]), Budget::default()), None);
        let untimed = ingest::Launch::of_shape(0, "k".into(), [64, 1, 1], [256, 1, 1], 1);
        assert_eq!(plan(&trace(vec![untimed]), Budget::default()), None);
    }
}
