//! Which launches `gpulint run` profiles, from the count of every launch the launch trace
//! (or a timing pass) made before ncu ran: the spread of launch numbers or the first few of
//! each configuration, whichever profiles fewer launches while still taking the launches
//! that carry the GPU time; then the sampled launches reconciled with the count
//! (`reconcile`), and what the report says of the sample (`notes`).

mod merge;
mod notes;
mod reconcile;

pub use merge::{
    adopt_sampled_names, judge_launch_shapes_on_every_launch, plan_sample, stand_for_every_launch,
    traced_launch_metrics,
};
pub use notes::{add_sample_notes, say_replay_passes};
pub use reconcile::{apply_timing, in_program_order, most_alike};

use std::collections::HashMap;

use crate::ingest;
use crate::sample::{ExtraLaunches, Sample};

/// Every launch of the run, in launch order: from the launch tracer (a launch trace), or
/// from ncu's timing pass (a raw page, whose launches carry every launch attribute).
pub struct EveryLaunch {
    pub profile: ingest::Profile,
    /// How long the program ran under the launch tracer.
    pub program_time: Option<std::time::Duration>,
}

impl EveryLaunch {
    /// Whether the launch tracer counted them: its launches have only their shape,
    /// duration, registers and shared memory.
    pub fn traced(&self) -> bool {
        self.profile.page == ingest::Page::Trace
    }

    /// Keeps only the launches of kernels the sample profiled (when `-k` chose them).
    pub fn retain_kernels(&mut self, sampled: &[ingest::Launch]) {
        let kept: std::collections::HashSet<&str> =
            sampled.iter().map(|l| l.name.as_str()).collect();
        self.profile
            .launches
            .retain(|l| kept.contains(l.name.as_str()));
    }

    /// What counted the launches: `launch trace` or `timing pass`.
    pub fn counter(&self) -> &'static str {
        if self.traced() {
            "launch trace"
        } else {
            "timing pass"
        }
    }

    /// The same, for notes: "the launch trace".
    pub fn counted_by(&self) -> String {
        format!("the {}", self.counter())
    }
}

/// Launches per configuration to try, fewest first, when they take fewer launches than the
/// spread: one where no busy configuration's longest launch is more than a quarter longer
/// than its first, else three. On the corpus captures that profiled every launch, and on a
/// PyTorch training loop's 1,450 launches, the first launch of each configuration gives
/// the warnings all of them give wherever its time does not come late, launch shapes
/// aside (which `gpulint run` judges on every traced launch): lab/gpu-runs.md, "One launch
/// per configuration".
const FEWER_PER_CONFIG: [u64; 2] = [1, 3];

/// With every launch counted before ncu runs, the default spread takes the launches that
/// carry the time too ([`time_carriers`]), and gives way to a sample per configuration
/// when that profiles fewer launches and its first launches stand for each busy
/// configuration's time: a training loop launches a few configurations many times (the
/// spread takes 7 of 60 launches of each, 1 per configuration does), while LU's grids
/// change every launch (1 per configuration would be nearly all), and a breadth-first
/// search launches one configuration whose frontier, and time, grows late (its first 3
/// launches miss the ones that matter). A sample the user chose (`--launches-per-config`)
/// stays.
pub fn choose_for_time(chosen: Sample, every: &ingest::Profile, verbose: bool) -> Sample {
    if chosen != Sample::SPREAD {
        return chosen;
    }
    let spread = Sample::Spread(time_carriers(every));
    let spread_takes = launches_to_profile(spread, every);
    let mut missed_by = None;
    for n in FEWER_PER_CONFIG {
        let per_config = Sample::PerConfig(n);
        let per_config_takes = launches_to_profile(per_config, every);
        if per_config_takes >= spread_takes {
            break;
        }
        let missed = configurations_whose_time_comes_late(every, n);
        if missed.is_empty() {
            if verbose {
                eprintln!(
                    "gpulint: sampling {} ({per_config_takes} launches) instead of {} \
                     ({spread_takes} launches)",
                    per_config.describe(),
                    spread.describe()
                );
            }
            return per_config;
        }
        missed_by = Some((per_config, per_config_takes, missed, n));
    }
    if let (true, Some((per_config, takes, missed, n))) = (verbose, missed_by) {
        eprintln!(
            "gpulint: sampling {} ({spread_takes} launches), not {} ({takes}): the longest \
             launches of {} come after their first {n}",
            spread.describe(),
            per_config.describe(),
            missed.join(", ")
        );
    }
    spread
}

/// Share of the counted GPU time a kernel or configuration needs for the sample to care
/// where its time lies.
const BUSY_SHARE: f64 = 0.02;

/// Per kernel (the spread counts launches by kernel), the launch number of its longest
/// launch, for the kernels with the most GPU time whose longest launch is more than a
/// quarter longer than any the powers of two take (not a timing jitter); at most 8. Empty
/// unless every launch was counted one by one.
pub fn time_carriers(every: &ingest::Profile) -> ExtraLaunches {
    let mut extra = [0; 8];
    if every.launches.iter().any(|l| l.count != 1) {
        return extra;
    }
    let total: f64 = every.launches.iter().filter_map(duration).sum();
    // Per kernel, in order of first launch: the durations of its launches.
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut kernels: Vec<Vec<f64>> = Vec::new();
    for l in &every.launches {
        let i = *at.entry(&l.name).or_insert_with(|| {
            kernels.push(Vec::new());
            kernels.len() - 1
        });
        kernels[i].push(duration(l).unwrap_or(0.0));
    }
    let time = |d: &Vec<f64>| d.iter().sum::<f64>();
    kernels.sort_by(|a, b| time(b).total_cmp(&time(a)));
    let spread: Vec<u64> = Sample::spread_invocations().collect();
    let mut slots = extra.iter_mut();
    for durations in kernels.iter().take_while(|d| time(d) >= BUSY_SHARE * total) {
        let (longest_at, longest) = durations
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(i, d)| (i as u64 + 1, *d))
            .unwrap_or((0, 0.0));
        let sampled = spread
            .iter()
            .filter_map(|&n| durations.get(n as usize - 1))
            .fold(0.0, |m: f64, d| m.max(*d));
        if longest <= LATE_FACTOR * sampled {
            continue;
        }
        match slots.next() {
            Some(slot) => *slot = longest_at,
            None => break,
        }
    }
    extra
}

/// How much longer than the sampled launches a launch must be for its time to be missed:
/// a quarter, well above the run-to-run jitter of a launch's duration.
const LATE_FACTOR: f64 = 1.25;

/// The busy configurations (name, grid, block) whose longest launch is more than
/// [`LATE_FACTOR`] times any of their first `n`: taking only those would miss their time.
fn configurations_whose_time_comes_late(every: &ingest::Profile, n: u64) -> Vec<String> {
    let total: f64 = every.launches.iter().filter_map(duration).sum();
    // Per configuration: its key, time, longest launch, longest of its first n, launches.
    let mut at: HashMap<SampleKey, usize> = HashMap::new();
    let mut configs: Vec<(SampleKey, f64, f64, f64, u64)> = Vec::new();
    for l in &every.launches {
        let key = sample_key(Sample::PerConfig(n), l);
        let d = duration(l).unwrap_or(0.0);
        let i = *at.entry(key.clone()).or_insert_with(|| {
            configs.push((key, 0.0, 0.0, 0.0, 0));
            configs.len() - 1
        });
        let c = &mut configs[i];
        c.1 += d * l.count as f64;
        c.2 = c.2.max(d);
        if c.4 < n {
            c.3 = c.3.max(d);
        }
        c.4 += l.count;
    }
    let mut late: Vec<String> = configs
        .into_iter()
        .filter(|c| total > 0.0 && c.1 >= BUSY_SHARE * total && c.2 > LATE_FACTOR * c.3)
        .map(|c| crate::kernel::short_name(&c.0.0))
        .collect();
    late.dedup();
    late
}

fn duration(l: &ingest::Launch) -> Option<f64> {
    l.metrics.get("duration_ns").copied()
}

/// How many launches the sample will profile, from the count of every launch:
/// for the spread, the launch numbers 1, 2, 3, 4, 8, ... each kernel reaches; per
/// configuration, the first N of each.
pub fn launches_to_profile(sample: Sample, timed: &ingest::Profile) -> u64 {
    let mut launched: HashMap<SampleKey, u64> = HashMap::new();
    for l in &timed.launches {
        *launched.entry(sample_key(sample, l)).or_default() += l.count;
    }
    launched.values().map(|&n| taken_of(sample, n)).sum()
}

/// What a sample counts launches by: the kernel (spread) or its configuration.
pub type SampleKey = (String, Option<[u64; 3]>, Option<[u64; 3]>);

pub fn sample_key(sample: Sample, l: &ingest::Launch) -> SampleKey {
    match sample {
        Sample::Spread(_) => (l.name.clone(), None, None),
        Sample::PerConfig(_) => (l.name.clone(), l.grid, l.block),
    }
}

/// How many of `launched` launches the sample takes: for the spread, the launch numbers
/// 1, 2, 3, 4, 8, ... up to it; per configuration, the first N.
pub fn taken_of(sample: Sample, launched: u64) -> u64 {
    match sample {
        Sample::Spread(_) => sample
            .invocations()
            .into_iter()
            .take_while(|&i| i <= launched)
            .count() as u64,
        Sample::PerConfig(cap) => launched.min(cap),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A profile with every launch of a real H200 capture, one entry per launch, as the
    /// launch trace gives them.
    fn every_launch(fixture: &str) -> ingest::Profile {
        let path = format!("{}/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
        let mut all = crate::ingest::read_path(&path).unwrap();
        assert!(all.launches.iter().all(|l| l.count == 1));
        all.launches
            .retain(|l| l.metrics.contains_key("duration_ns"));
        all
    }

    #[test]
    fn the_timing_pass_says_how_many_launches_a_sample_will_profile() {
        let timing = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-corpus/timing_lud.csv"
        );
        let timed = crate::ingest::read_path(timing).unwrap();
        assert_eq!(launches_to_profile(Sample::SPREAD, &timed), 22);
        assert_eq!(launches_to_profile(Sample::PerConfig(3), &timed), 129);
    }

    /// BFS on the H200 (all 11 launches of its expansion kernel, min_bfs.csv): its time
    /// comes with the frontier, in launches 6 to 9 of 11 (75.6 us at the 8th against 6-12
    /// us in the first three), so 3 per configuration would miss it; the spread, which
    /// takes the 8th, stays.
    #[test]
    fn a_kernel_whose_time_comes_late_keeps_the_spread() {
        let bfs = every_launch("h200-corpus/min_bfs.csv");
        let late = configurations_whose_time_comes_late(&bfs, 3);
        assert!(late.contains(&"Kernel".to_string()), "{late:?}");
        let chosen = choose_for_time(Sample::SPREAD, &bfs, false);
        assert!(matches!(chosen, Sample::Spread(_)), "{chosen:?}");
        assert!(chosen.invocations().contains(&8));
    }

    /// A traced launch of 64 blocks of 256 threads that took `ns`.
    fn timed(id: u64, name: &str, ns: f64) -> ingest::Launch {
        let mut l = ingest::Launch::of_shape(id, name.into(), [64, 1, 1], [256, 1, 1], 1);
        l.metrics.insert("duration_ns", ns);
        l
    }

    /// A launch trace of these launches.
    fn trace(launches: Vec<ingest::Launch>) -> ingest::Profile {
        ingest::Profile {
            file: "trace".into(),
            page: ingest::Page::Trace,
            launches,
            notes: Vec::new(),
            source_blocks: Vec::new(),
        }
    }

    /// A busy kernel whose longest launch is not one the powers of two take, and is well
    /// longer than those, gets it added: a kernel of 12 launches whose 6th takes five
    /// times as long, beside a kernel of even launches.
    #[test]
    fn the_longest_launch_of_a_busy_kernel_is_added_to_the_spread() {
        let mut launches = Vec::new();
        for i in 0..12u64 {
            launches.push(timed(
                2 * i,
                "grows",
                if i == 5 { 50_000.0 } else { 10_000.0 },
            ));
            launches.push(timed(2 * i + 1, "even", 10_000.0));
        }
        let every = trace(launches);
        assert_eq!(time_carriers(&every), [6, 0, 0, 0, 0, 0, 0, 0]);
        let chosen = choose_for_time(Sample::SPREAD, &every, false);
        assert_eq!(chosen, Sample::Spread([6, 0, 0, 0, 0, 0, 0, 0]));
        assert_eq!(chosen.invocations()[..6], [1, 2, 3, 4, 6, 8]);
        assert!(
            chosen
                .describe()
                .contains("and its launches 6 (where the launch trace")
        );
    }

    /// A configuration whose second launch is the long one needs its first three: one per
    /// configuration would miss its time, three do not, and three are fewer than the
    /// spread of a kernel launched 40 times.
    #[test]
    fn a_configuration_whose_first_launch_is_short_takes_three() {
        let every = trace(
            (0..40u64)
                .map(|i| timed(i, "warms", if i == 1 { 20_000.0 } else { 10_000.0 }))
                .collect(),
        );
        assert_eq!(configurations_whose_time_comes_late(&every, 1), ["warms"]);
        assert!(configurations_whose_time_comes_late(&every, 3).is_empty());
        assert_eq!(
            choose_for_time(Sample::SPREAD, &every, false),
            Sample::PerConfig(3)
        );
    }

    /// Jitter adds nothing: LU's launches of one kernel differ by a few percent from run
    /// to run, and no kernel's longest launch is a quarter longer than the spread's
    /// (timing_lud.csv, every launch of LU on the H200).
    #[test]
    fn jitter_adds_no_launch() {
        let lud = every_launch("h200-corpus/timing_lud.csv");
        assert_eq!(time_carriers(&lud), [0; 8]);
    }

    /// Per configuration is still taken where each configuration's first launches stand
    /// for its time and it profiles fewer: Gaussian elimination and the CG solver, every
    /// launch of which the H200 captures hold (min_gaussian.csv, min_cg_solver.csv). Their
    /// first launch already does, so one per configuration is taken.
    #[test]
    fn uniform_configurations_still_take_the_cheaper_sample() {
        for program in ["gaussian", "cg_solver"] {
            let every = every_launch(&format!("h200-corpus/min_{program}.csv"));
            assert_eq!(
                configurations_whose_time_comes_late(&every, 1),
                Vec::<String>::new(),
                "{program}"
            );
            assert_eq!(
                choose_for_time(Sample::SPREAD, &every, false),
                Sample::PerConfig(1),
                "{program}"
            );
        }
    }
}
