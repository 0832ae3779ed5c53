//! The sample by time on traces built here and on real ones (fixtures/h200-by-time).

use super::{
    Budget, Chosen, Counted, Coverage, Plan, Sample, coverage, default_max_launches, heavy_kernels,
    ingest, plan, plan_with,
};

/// The H200's shape, as gpulint's GPU table gives it.
const H200: crate::profile::visible_gpus::Shape = crate::profile::visible_gpus::Shape {
    sms: 132,
    max_warps_per_sm: 64,
};

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
    coverage(every, &taken, &|_| true, None).unwrap()
}

fn trace(mut launches: Vec<ingest::Launch>) -> ingest::Profile {
    for (i, l) in launches.iter_mut().enumerate() {
        l.id = i as u64;
        l.last_id = i as u64;
    }
    ingest::Profile::of_trace(launches)
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

/// A short program gets the floor, 12 launches; one of 40 s a quarter of its time
/// (30); one not traced the most.
#[test]
fn the_default_cap_follows_the_programs_run() {
    let cap = |s: f64| default_max_launches(Some(std::time::Duration::from_secs_f64(s)));
    assert_eq!((cap(0.5), cap(10.0)), (12, 12));
    assert_eq!(cap(40.0), 30);
    assert_eq!((cap(600.0), default_max_launches(None)), (40, 40));
}

/// Fourteen kernels of 5.7-8.6% of the time each (split_structs.cu's ten copies, 7-19%
/// each, and four more) raise a short program's cap of 12 to 14, and the sample then takes
/// each one; a cap the user gave holds; the H200 transformer's trace (6 kernels of 5% or
/// more) keeps the floor.
#[test]
fn every_kernel_with_a_twentieth_of_the_time_gets_a_launch() {
    let launches = (0..14)
        .map(|k| {
            let mut l = timed(
                &format!("copy_{k}"),
                65_536,
                50_000.0 + 2_000.0 * f64::from(k),
            );
            l.mangled = Some(format!("_Z6copy_{k}v").into());
            l
        })
        .collect();
    let every = trace(launches);
    let short = Some(std::time::Duration::from_secs_f64(0.5));
    let budget = Budget {
        max_launches: default_max_launches(short),
        ..Budget::default()
    };
    assert_eq!(budget.max_launches, 12);
    let chosen = plan(&every, budget).unwrap();
    assert_eq!(chosen.launches, 14);
    assert_eq!(chosen.chosen.kernels.map(|k| k.len()), Some(14));
    let users = Budget {
        take_every_heavy_kernel: false,
        ..budget
    };
    assert_eq!(plan(&every, users).unwrap().launches, 12);
    let transformer = crate::ingest::read_path(&format!(
        "{}/fixtures/h200-by-time/default_transformer.trace.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    assert_eq!(heavy_kernels(&Counted::of(&transformer).unwrap()), 6);
    assert!(plan(&transformer, budget).unwrap().launches <= 12);
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

/// LU at 1024 on the H200 (its launch trace): lud_internal's grid shrinks from 63x63
/// blocks to 1. Its big grids alone were sampled, and profiling every launch found it
/// latency-bound on its grids from 2,601 blocks down to 289 (issue 58,
/// lab/runs/2026-12-05-one-run.txt). With the GPU's shape, 8 launches take every kernel and
/// a grid of each of its two busiest kinds; 12, all three.
#[test]
fn a_kernel_whose_grids_shrink_under_one_wave_gets_a_launch_of_each_kind() {
    let every = crate::ingest::read_path(&format!(
        "{}/fixtures/h200-by-time/default_lud.trace.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let internal_grids = |budget: Budget| -> Vec<u64> {
        let plan = plan(&every, budget).unwrap();
        assert!(plan.launches <= budget.max_launches, "{plan:?}");
        assert_eq!(
            plan.chosen.kernels.as_ref().map(Vec::len),
            Some(3),
            "{plan:?}"
        );
        let taken = crate::profile::sampling::taken_launches(
            &every.launches,
            &Sample::ByTime(plan.chosen.clone()),
        );
        (every.launches.iter().zip(taken))
            .filter(|(l, t)| *t && l.name.starts_with("lud_internal"))
            .map(|(l, _)| l.grid.unwrap().iter().product())
            .collect()
    };
    let eight = Budget {
        max_launches: 8,
        ..Budget::default()
    };
    assert!(internal_grids(eight).iter().all(|&b| b >= 132));
    let known = internal_grids(Budget {
        gpu: Some(H200),
        ..eight
    });
    // lud_internal's 8 warps a block and 32 registers a thread: 8 blocks an SM, a wave of
    // 1,056. Its grids under a wave but over a block per SM, all among those every launch
    // found latency-bound on the H200, get a launch; its smallest, under a block per SM, whose
    // small-grid finding the trace gives on every launch, carry the least time of the
    // three kinds and are outranked under the cap of 8.
    assert!(known.iter().any(|&b| (132..1056).contains(&b)), "{known:?}");
    assert!(known.iter().any(|&b| b >= 1056), "{known:?}");
    let ample = internal_grids(Budget {
        max_launches: 12,
        ..Budget {
            gpu: Some(H200),
            ..eight
        }
    });
    assert!(ample.iter().any(|&b| b < 132), "{ample:?}");
}

/// The launch traces of `gpulint run`'s default runs on the H200 (fixtures/h200-by-time),
/// by name.
fn h200_traces() -> impl Iterator<Item = (&'static str, ingest::Profile)> {
    let names = [
        "default_bfs",
        "default_cg_solver",
        "default_cnn3",
        "default_lud",
        "default_nw",
        "default_train_loop",
        "default_transformer",
    ];
    names.into_iter().map(|trace| {
        let path = format!(
            "{}/fixtures/h200-by-time/{trace}.trace.csv",
            env!("CARGO_MANIFEST_DIR")
        );
        (trace, crate::ingest::read_path(&path).unwrap())
    })
}

/// A launch of each kind of grid comes after every kernel's own launch: on the H200's
/// traces of fixtures/h200-by-time, 8 launches with the SM count known profile as many
/// kernels as without it.
#[test]
fn grid_kinds_never_cost_a_kernel_its_launch() {
    for (trace, every) in h200_traces() {
        let kernels = |gpu| {
            let budget = Budget {
                max_launches: 8,
                gpu,
                ..Budget::default()
            };
            let plan = plan(&every, budget).unwrap();
            assert!(plan.launches <= 8, "{trace}: {plan:?}");
            plan.chosen.kernels.map_or(0, |k| k.len())
        };
        assert_eq!(kernels(Some(H200)), kernels(None), "{trace}");
    }
}

/// BFS's trace on the H200 (this session's, fixtures/h200-by-time/trace_bfs.csv) under
/// the default cap of a 0.6-s program, 8: each kernel's median and longest take two launch
/// numbers, and the two left go to Kernel's octaves, its 22-us level (number 6, launch 10,
/// the one level whose loads every launch found serial) among them.
#[test]
fn the_launches_left_go_to_a_configurations_octaves() {
    let every = crate::ingest::read_path(&format!(
        "{}/fixtures/h200-by-time/trace_bfs.csv",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let budget = Budget {
        max_launches: 8,
        gpu: Some(H200),
        ..Budget::default()
    };
    let plan = plan(&every, budget).unwrap();
    assert_eq!(plan.launches, 8, "{plan:?}");
    let Chosen { numbers, .. } = &plan.chosen;
    assert!(numbers.contains(&6), "{numbers:?}");
}

/// The octaves' needs take only what the cap leaves: on every H200 trace of
/// fixtures/h200-by-time, with 8 launches, the plan keeps every launch number and kernel
/// of the plan without them, within the cap, and its last launch is theirs.
#[test]
fn octaves_never_cost_another_need_its_launch() {
    for (trace, every) in h200_traces() {
        let budget = Budget {
            max_launches: 8,
            gpu: Some(H200),
            ..Budget::default()
        };
        let with = plan(&every, budget).unwrap();
        let without = plan_with(&every, budget, false).unwrap();
        assert!(with.launches <= 8, "{trace}: {with:?}");
        assert!(
            (without.chosen.numbers.iter()).all(|n| with.chosen.numbers.contains(n)),
            "{trace}: {with:?} against {without:?}"
        );
        let kernels = |p: &Plan| p.chosen.kernels.clone().unwrap_or_default();
        let (k_with, k_without) = (kernels(&with), kernels(&without));
        assert!(
            k_without.iter().all(|k| k_with.contains(k)),
            "{trace}: {k_with:?} against {k_without:?}"
        );
        assert!(with.covered >= without.covered, "{trace}");
        let last = |p: &Plan| {
            let sample = Sample::ByTime(p.chosen.clone());
            let taken = crate::profile::sampling::taken_launches(&every.launches, &sample);
            taken.iter().rposition(|t| *t)
        };
        assert_eq!(last(&with), last(&without), "{trace}: ncu runs as far");
    }
}

/// A kernel no sample took a launch of is left out for its small share or the cap, as a
/// sample by time leaves kernels out, unless the sample gives its own reason (the
/// tracer's cap in one run); a kernel with another configuration profiled says so either
/// way.
#[test]
fn a_kernel_left_out_takes_the_samples_own_reason() {
    use crate::profile::sample::LeftOutBecause;
    let every = trace(vec![
        timed("big", 1024, 90_000.0),
        timed("big", 8, 5_000.0),
        timed("late", 1024, 4_000.0),
        timed("tiny", 8, 100.0),
    ]);
    let taken = [true, false, false, false];
    let reasons = |unprofiled| -> Vec<(String, LeftOutBecause)> {
        let c = coverage(&every, &taken, &|_| true, unprofiled).unwrap();
        (c.left_out.into_iter())
            .map(|l| (l.kernel, l.because))
            .collect()
    };
    assert_eq!(
        reasons(None),
        [
            ("big".into(), LeftOutBecause::OtherConfigurationsProfiled),
            ("late".into(), LeftOutBecause::LaunchCap),
            ("tiny".into(), LeftOutBecause::SmallShare),
        ]
    );
    assert_eq!(
        reasons(Some(LeftOutBecause::AfterTracerCap)),
        [
            ("big".into(), LeftOutBecause::OtherConfigurationsProfiled),
            ("late".into(), LeftOutBecause::AfterTracerCap),
            ("tiny".into(), LeftOutBecause::AfterTracerCap),
        ]
    );
    // Each reason says how to profile what it left out.
    assert!(
        LeftOutBecause::AfterTracerCap
            .describe()
            .contains("--two-runs has ncu profile")
    );
}
