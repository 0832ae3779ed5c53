//! Which launches `gpulint run` profiles: with every launch counted before ncu ran (the
//! launch trace, or a timing pass: `count`), those that carry the GPU time (`by_time`); without,
//! the spread of launch numbers. Then the sampled launches reconciled with the count
//! (`reconcile`), and what the report says of the sample (`notes`). With `--source`, where
//! the source counters are read (`source_plan`), and what the last run of the command
//! found that the next `--source` run needs (`source_memory`).

pub mod by_time;
mod count;
mod every_launch;
mod merge;
mod notes;
mod reconcile;
pub mod source_memory;
pub mod source_plan;

pub use count::{CountSettings, count};
pub use every_launch::judge_on_every_launch;
pub use merge::{plan_sample, stand_for_every_launch};
pub use notes::{add_sample_notes, say_replay_passes};
pub use reconcile::{apply_timing, in_program_order, most_alike};

use std::collections::HashMap;

use crate::ingest;
use crate::profile::sample::Sample;

/// Every launch of the run, in launch order: from the launch tracer (a launch trace), or
/// from ncu's timing pass (a raw page, whose launches carry every launch attribute).
pub struct EveryLaunch {
    pub profile: ingest::Profile,
    /// How long the program ran under the launch tracer.
    pub program_time: Option<std::time::Duration>,
    /// The processes that started CUDA under the launch tracer (the trace's blocks, a
    /// compile worker's without kernels too); 0 without a trace.
    pub cuda_processes: usize,
    /// The counters the tracer read on the launches it picked, where the traced run was
    /// asked for them (one run of the program).
    pub counted_in_run: Option<crate::profile::one_run::CountedInRun>,
}

impl EveryLaunch {
    /// Whether the launch tracer counted them: its launches have only their shape,
    /// duration, registers and shared memory.
    pub fn traced(&self) -> bool {
        self.profile.page == ingest::Page::Trace
    }

    /// Whether one process alone started CUDA under the launch tracer: ncu's run held at
    /// its first CUDA call (`ncu::early`) can follow no other. A torch.compile worker that
    /// starts CUDA is held too, with nothing to attach to it, and the script waits on it
    /// (the CNN hung 86 s: lab/runs/2026-12-04-launch-attach.txt).
    pub fn of_one_process(&self) -> bool {
        self.cuda_processes == 1
    }

    /// Traced, in one process that started CUDA: what ncu's held run can attach to.
    pub fn traced_one_process(&self) -> bool {
        self.traced() && self.of_one_process()
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

/// How many launches the sample will profile, from the count of every launch:
/// for the spread, the launch numbers 1, 2, 3, 4, 8, ... each kernel reaches; per
/// configuration, the first N of each.
pub fn launches_to_profile(sample: &Sample, timed: &ingest::Profile) -> u64 {
    if timed.launches.iter().all(|l| l.count == 1) {
        let all = count_taken(&mut timed.launches.iter(), sample);
        // A job of several processes: ncu may number a kernel's launches in each process
        // apart (no two-rank capture has shown which), and then profiles each one's. The
        // larger count, so that `--launch-count` cuts no rank's launches short.
        let pid = |l: &ingest::Launch| l.processes.first().map(|p| p.pid);
        let processes: std::collections::BTreeSet<u64> =
            timed.launches.iter().filter_map(pid).collect();
        if processes.len() < 2 {
            return all;
        }
        let apart: u64 = (processes.iter())
            .map(|&p| {
                count_taken(
                    &mut timed.launches.iter().filter(|l| pid(l) == Some(p)),
                    sample,
                )
            })
            .sum();
        return all.max(apart);
    }
    let mut launched: HashMap<SampleKey, u64> = HashMap::new();
    for l in &timed.launches {
        *launched.entry(sample_key(sample, l)).or_default() += l.count;
    }
    launched.values().map(|&n| taken_of(sample, n)).sum()
}

/// What a sample counts launches by: the kernel (spread) or its configuration.
pub type SampleKey = (String, Option<[u64; 3]>, Option<[u64; 3]>);

pub fn sample_key(sample: &Sample, l: &ingest::Launch) -> SampleKey {
    match sample {
        Sample::Spread | Sample::ByTime(_) | Sample::Traced(_) => (l.name.clone(), None, None),
        Sample::PerConfig(_) => (l.name.clone(), l.grid, l.block),
    }
}

/// How many of `launched` launches the sample takes: for the spread, the launch numbers
/// 1, 2, 3, 4, 8, ... up to it; per configuration, the first N.
pub fn taken_of(sample: &Sample, launched: u64) -> u64 {
    match sample {
        Sample::Spread | Sample::ByTime(_) => sample
            .invocations()
            .into_iter()
            .take_while(|&i| i <= launched)
            .count() as u64,
        Sample::PerConfig(cap) => launched.min(*cap),
        // Taken by their number in the program, which a count per kernel does not give:
        // a traced sample's launches are counted where every launch was traced.
        Sample::Traced(_) => 0,
    }
}

/// Per counted launch, whether the sample takes it: its number among its kernel's (or
/// configuration's) launches is one the sample profiles, and, where the sample names its
/// kernels, its kernel is one of them.
pub fn taken_launches(every: &[ingest::Launch], sample: &Sample) -> Vec<bool> {
    taken_among(&mut every.iter(), sample)
}

/// How many of the launches `every` gives the sample takes.
fn count_taken(every: &mut dyn Iterator<Item = &ingest::Launch>, sample: &Sample) -> u64 {
    taken_among(every, sample)
        .into_iter()
        .filter(|t| *t)
        .count() as u64
}

/// [`taken_launches`], of the launches `every` gives.
fn taken_among(every: &mut dyn Iterator<Item = &ingest::Launch>, sample: &Sample) -> Vec<bool> {
    let numbers = sample.invocations();
    let kernels: Option<std::collections::HashSet<&str>> = match sample {
        Sample::ByTime(chosen) => chosen
            .kernels
            .as_ref()
            .map(|k| k.iter().map(String::as_str).collect()),
        _ => None,
    };
    let mut seen: HashMap<SampleKey, u64> = HashMap::new();
    // Without kernels named, ncu's filter leaves NCCL's out (crate::profile::collectives).
    // With --profile-nccl it does not, and a sample that names no kernels is then counted
    // short: its launches are paired by number no more, and the report says so.
    every
        .map(|l| {
            let nth = seen.entry(sample_key(sample, l)).or_default();
            *nth += 1;
            let named = match (&kernels, sample) {
                (Some(k), _) => l.mangled.as_deref().is_some_and(|m| k.contains(m)),
                // The tracer chose them itself, NCCL's never.
                (None, Sample::Traced(_)) => true,
                (None, _) => !crate::profile::collectives::is_nccl(&l.name),
            };
            named
                && match sample {
                    Sample::PerConfig(n) => *nth <= *n,
                    Sample::Traced(taken) => taken.binary_search(&l.id).is_ok(),
                    _ => numbers.binary_search(nth).is_ok(),
                }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CNN's trace on the H200 holds two blocks, the script's and a torch.compile
    /// worker's, which started CUDA and launched nothing: two processes, whose run ncu
    /// does not hold. The transformer's holds one.
    #[test]
    fn a_compile_worker_counts_as_a_process_of_cuda() {
        let trace = |fixture: &str| {
            let path = format!("{}/fixtures/{fixture}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap();
            EveryLaunch {
                profile: ingest::trace::read(&text, &path).unwrap(),
                program_time: None,
                cuda_processes: ingest::trace::process_blocks(&text),
                counted_in_run: None,
            }
        };
        let cnn = trace("h200-by-time/default_cnn3.trace.csv");
        assert_eq!(cnn.cuda_processes, 2);
        assert!(!cnn.of_one_process());
        assert!(trace("h200-by-time/default_transformer.trace.csv").of_one_process());
    }

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

    /// Two ranks launching a kernel ten times each: the spread takes launch numbers 1, 2,
    /// 3, 4, 8 and 16 of its twenty; numbered in each rank apart, 1 to 8 of each rank's
    /// ten. ncu is told to expect the larger, 10; one process of twenty, 6.
    #[test]
    fn a_job_of_several_processes_expects_each_ranks_launches() {
        let trace = |ranks: &[(u64, u64)]| -> ingest::Profile {
            let header = "correlation,device,stream,start_ns,end_ns,grid_x,grid_y,grid_z,\
                block_x,block_y,block_z,registers_per_thread,shared_memory_bytes,name";
            let mut text = String::new();
            for &(pid, launches) in ranks {
                text += &format!(
                    "# gpulint launch trace 1, process {pid}, dropped records: 0\n{header}\n"
                );
                for k in 0..launches {
                    let at = pid + k * 10_000;
                    text += &format!(
                        "{},0,7,{at},{},8,1,1,256,1,1,32,0,\"k()\"\n",
                        k + 1,
                        at + 2_000
                    );
                }
                text += &format!("# end of process {pid}\n");
            }
            ingest::trace::read(&text, "t.csv").unwrap()
        };
        assert_eq!(
            launches_to_profile(&Sample::Spread, &trace(&[(7, 10), (8, 10)])),
            10
        );
        assert_eq!(launches_to_profile(&Sample::Spread, &trace(&[(7, 20)])), 6);
    }

    /// BFS on the H200 (min_bfs.csv, every launch): its expansion kernel's time comes
    /// with the frontier, in its launches 6 to 9 of 11, and the sample by time takes one
    /// of those besides one near its median. LU (timing_lud.csv): within the 40 launches
    /// of a program whose run time is unknown, 99% of its GPU time.
    #[test]
    fn the_sample_by_time_takes_the_launches_that_carry_the_time() {
        let bfs = every_launch("h200-corpus/min_bfs.csv");
        let plan = by_time::plan(&bfs, by_time::Budget::default()).unwrap();
        assert!(
            plan.chosen.numbers.iter().any(|n| (6..=9).contains(n)),
            "{plan:?}"
        );
        assert_eq!(plan.covered, 1.0);
        let lud = every_launch("h200-corpus/timing_lud.csv");
        let plan = by_time::plan(&lud, by_time::Budget::default()).unwrap();
        assert!(plan.launches <= 40 && plan.covered >= 0.99, "{plan:?}");
    }

    #[test]
    fn the_timing_pass_says_how_many_launches_a_sample_will_profile() {
        let timing = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-corpus/timing_lud.csv"
        );
        let timed = crate::ingest::read_path(timing).unwrap();
        assert_eq!(launches_to_profile(&Sample::Spread, &timed), 22);
        assert_eq!(launches_to_profile(&Sample::PerConfig(3), &timed), 129);
    }
}
