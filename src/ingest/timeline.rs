//! The GPU's timeline in a launch trace: how long each device sat idle before each launch,
//! and, over each process's whole run (a rank's, in a job of several), how much of its
//! active time went to waiting for launches.
//! Kernel metrics cannot see this: a step of many short kernels is slow because the CPU
//! launches them one by one, while each kernel alone looks fine.

use std::collections::{BTreeMap, HashMap};

/// An idle gap longer than this is the host doing other work (start-up, loading data,
/// a synchronisation, printing), not the launch of the next kernel: eager PyTorch spends
/// 5-20 us of CPU per op, a CUDA launch call a few.
pub const LAUNCH_WAIT_CAP_NS: f64 = 100_000.0;

/// A kernel shorter than this costs about as much to launch as to run.
pub const SHORT_KERNEL_NS: f64 = 10_000.0;

/// One traced launch on the timeline.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    /// The device's ordinal, as the launching process numbers its devices.
    pub device: u64,
    /// The launching process, by its block's index in the trace.
    pub process: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// The timeline a launch sits on: its device's, shared by the processes that launched on
/// it, or one process's alone on its ordinal where [`lanes`] found that ordinal naming
/// several GPUs.
type Lane = (u64, Option<u64>);

/// Each span's lane, in the order of `spans`. Without MPS a GPU runs one process's kernels
/// at a time, so processes whose kernels overlap in time on one device ordinal ran on
/// different GPUs, each shown its own as that ordinal (a launcher that sets
/// CUDA_VISIBLE_DEVICES per rank); each then gets a lane of its own, where merging them
/// would read one rank's kernels as filling the other's waits. An overlap of at most
/// [`SHARED_DEVICE_OVERLAP`] of the ordinal's busy time is clock noise.
fn lanes(spans: &[Span]) -> Vec<Lane> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].device, spans[i].start_ns));
    // Per ordinal: busy and overlapped time, and each process's latest end so far.
    let mut seen: BTreeMap<u64, (f64, f64, BTreeMap<u64, u64>)> = BTreeMap::new();
    for i in order {
        let s = spans[i];
        let end = s.end_ns.max(s.start_ns);
        let (busy, overlap, ends) = seen.entry(s.device).or_default();
        *busy += (end - s.start_ns) as f64;
        *overlap += (ends.iter())
            .filter(|&(&p, _)| p != s.process)
            .map(|(_, &until)| until.min(end).saturating_sub(s.start_ns) as f64)
            .sum::<f64>();
        let until = ends.entry(s.process).or_insert(end);
        *until = (*until).max(end);
    }
    spans
        .iter()
        .map(|s| {
            let (busy, overlap, _) = &seen[&s.device];
            let apart = *overlap > SHARED_DEVICE_OVERLAP * busy;
            (s.device, apart.then_some(s.process))
        })
        .collect()
}

/// The share of a device ordinal's busy time that its processes' kernels may overlap by
/// and still be read as one GPU's.
const SHARED_DEVICE_OVERLAP: f64 = 0.01;

/// What the trace says of one process's timeline over its whole run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunTimeline {
    /// The process's launches in the trace.
    pub launches: u64,
    /// Share of them shorter than [`SHORT_KERNEL_NS`], %.
    pub short_launch_pct: f64,
    /// Time some kernel of the process ran, summed over its lanes (overlapping kernels
    /// count once).
    pub busy_ns: f64,
    /// Idle time before launches, each gap up to [`LAUNCH_WAIT_CAP_NS`].
    pub wait_ns: f64,
}

impl RunTimeline {
    /// The waits' share of the time the GPU was active (running a kernel or waiting for
    /// the next launch), %.
    pub fn wait_pct(&self) -> f64 {
        let active = self.busy_ns + self.wait_ns;
        if active > 0.0 {
            100.0 * self.wait_ns / active
        } else {
            0.0
        }
    }
}

/// Each launch's wait and burst, in the order of `spans`, and each process's timeline, by
/// its index ([`waits`], [`bursts`]): the lanes both walk are found once.
pub fn read(spans: &[Span]) -> (Vec<f64>, Vec<Burst>, BTreeMap<u64, RunTimeline>) {
    let lanes = lanes(spans);
    let (waits, runs) = waits(spans, &lanes);
    let bursts = bursts(spans, &lanes, &waits);
    (waits, bursts, runs)
}

/// Each launch's wait (the idle time on its lane since the last kernel there ended, 0 when
/// longer than [`LAUNCH_WAIT_CAP_NS`], when kernels overlap, or for a lane's first launch),
/// in the order of `spans`, and each process's timeline, by its index: a rank of a job is
/// judged on its own launches.
fn waits(spans: &[Span], lanes: &[Lane]) -> (Vec<f64>, BTreeMap<u64, RunTimeline>) {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (lanes[i], spans[i].start_ns));
    let mut waits = vec![0.0; spans.len()];
    // Per process: busy and waiting time, launches, short launches.
    let mut runs: BTreeMap<u64, (f64, f64, u64, u64)> = BTreeMap::new();
    let mut last: Option<(Lane, u64)> = None; // (lane, latest end so far)
    for i in order {
        let s = spans[i];
        let end = s.end_ns.max(s.start_ns);
        let run = runs.entry(s.process).or_default();
        run.2 += 1;
        run.3 += u64::from(((end - s.start_ns) as f64) < SHORT_KERNEL_NS);
        let ran_until = match last {
            Some((lane, until)) if lane == lanes[i] => until,
            _ => {
                run.0 += (end - s.start_ns) as f64;
                last = Some((lanes[i], end));
                continue;
            }
        };
        let gap = s.start_ns.saturating_sub(ran_until) as f64;
        if gap <= LAUNCH_WAIT_CAP_NS {
            waits[i] = gap;
            run.1 += gap;
        }
        run.0 += end.saturating_sub(s.start_ns.max(ran_until)) as f64;
        last = Some((lanes[i], ran_until.max(end)));
    }
    let timelines = runs
        .into_iter()
        .map(|(process, (busy_ns, wait_ns, launches, short))| {
            let run = RunTimeline {
                launches,
                short_launch_pct: 100.0 * short as f64 / launches as f64,
                busy_ns,
                wait_ns,
            };
            (process, run)
        })
        .collect();
    (waits, timelines)
}

/// The burst a launch belongs to: a run of consecutive short launches on one lane, each
/// launched within [`LAUNCH_WAIT_CAP_NS`] of the one before, as a per-sample loop launches
/// them. A whole-run judgement misses such a burst when long kernels elsewhere keep the GPU
/// busy; inside it, the GPU may wait more than it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Burst {
    /// Launches in the burst (1 for a launch in none: a long kernel, or a lone short one).
    pub launches: u64,
    /// The burst's waits (between its launches) as % of its active time.
    pub wait_pct: f64,
    /// From a burst's first start to its last end: the median over the bursts alike (its
    /// own where it has none), so that one slow first step does not speak for the rest.
    pub span_ns: f64,
    /// Bursts on the lane of about its size (their launches in the same power of two:
    /// 256 to 511, say), itself included: a loop that runs once a step makes one per step.
    pub alike: u64,
    /// The median time from one of those bursts' start to the next one's: the step, for a
    /// loop run once a step (0 with fewer than two).
    pub period_ns: f64,
}

impl Burst {
    const NONE: Burst = Burst {
        launches: 1,
        wait_pct: 0.0,
        span_ns: 0.0,
        alike: 1,
        period_ns: 0.0,
    };
}

/// Each launch's burst, in the order of `spans`, on `lanes`; `waits` is what [`waits`]
/// gave.
fn bursts(spans: &[Span], lanes: &[Lane], waits: &[f64]) -> Vec<Burst> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (lanes[i], spans[i].start_ns));
    let short =
        |i: usize| ((spans[i].end_ns.saturating_sub(spans[i].start_ns)) as f64) < SHORT_KERNEL_NS;
    // Each burst's launches, in start order.
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut run: Vec<usize> = Vec::new();
    for i in order {
        let continues = run.last().is_some_and(|&prev| {
            lanes[prev] == lanes[i]
                && spans[i].start_ns.saturating_sub(spans[prev].end_ns) as f64 <= LAUNCH_WAIT_CAP_NS
        });
        if (!short(i) || !continues) && !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
        if short(i) {
            run.push(i);
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    let recurrence = recurrences(&runs, spans, lanes);
    let mut out = vec![Burst::NONE; spans.len()];
    for run in &runs {
        // The first launch's wait is before the burst, not in it.
        let busy: f64 = run
            .iter()
            .map(|&i| spans[i].end_ns.saturating_sub(spans[i].start_ns) as f64)
            .sum();
        let wait: f64 = run.iter().skip(1).map(|&i| waits[i]).sum();
        let wait_pct = if busy + wait > 0.0 {
            100.0 * wait / (busy + wait)
        } else {
            0.0
        };
        let own_span = span_of(run, spans);
        let (alike, period_ns, span_ns) = recurrence
            .get(&recurrence_key(run, lanes))
            .copied()
            .unwrap_or((1, 0.0, own_span));
        let burst = Burst {
            launches: run.len() as u64,
            wait_pct,
            span_ns,
            alike,
            period_ns,
        };
        for &i in run {
            out[i] = burst;
        }
    }
    out
}

/// Bursts alike: on one lane, with launches in one power of two (256 to 511, say).
fn recurrence_key(run: &[usize], lanes: &[Lane]) -> (Lane, u32) {
    (lanes[run[0]], run.len().ilog2())
}

fn span_of(run: &[usize], spans: &[Span]) -> f64 {
    let (first, last) = (run[0], run[run.len() - 1]);
    spans[last].end_ns.saturating_sub(spans[first].start_ns) as f64
}

/// For each kind of burst (of two launches or more): how many there are, the median time
/// between their starts, and their median span. One pass over the bursts, which a trace
/// of a long program has by the hundred thousand.
fn recurrences(
    runs: &[Vec<usize>],
    spans: &[Span],
    lanes: &[Lane],
) -> HashMap<(Lane, u32), (u64, f64, f64)> {
    let mut kinds: HashMap<(Lane, u32), Vec<(u64, f64)>> = HashMap::new();
    for run in runs.iter().filter(|r| r.len() >= 2) {
        // Runs come in start order per lane, so each list is sorted.
        kinds
            .entry(recurrence_key(run, lanes))
            .or_default()
            .push((spans[run[0]].start_ns, span_of(run, spans)));
    }
    kinds
        .into_iter()
        .map(|(key, bursts)| {
            let mut gaps: Vec<u64> = bursts.windows(2).map(|w| w[1].0 - w[0].0).collect();
            gaps.sort_unstable();
            let period = gaps.get(gaps.len() / 2).map_or(0.0, |&g| g as f64);
            let mut widths: Vec<f64> = bursts.iter().map(|b| b.1).collect();
            widths.sort_unstable_by(f64::total_cmp);
            let span = widths[widths.len() / 2];
            (key, (bursts.len() as u64, period, span))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 40 launches of 2 us, 4 us apart, then a 1 ms kernel, then 3 more short launches: the
    /// 40 are one burst that waited two thirds of its time; the long kernel and the three
    /// after it are bursts of their own.
    #[test]
    fn a_run_of_short_launches_is_a_burst() {
        let mut spans: Vec<Span> = (0..40u64)
            .map(|k| span(k * 6_000, k * 6_000 + 2_000))
            .collect();
        let long_at = 40 * 6_000;
        spans.push(span(long_at, long_at + 1_000_000));
        for k in 0..3u64 {
            let at = long_at + 1_010_000 + k * 6_000;
            spans.push(span(at, at + 2_000));
        }
        let (_, b, _) = read(&spans);
        assert_eq!(b[0].launches, 40);
        assert_eq!(b[39].launches, 40);
        // 39 waits of 4 us against 40 runs of 2 us.
        let want = 100.0 * (39.0 * 4.0) / (39.0 * 4.0 + 40.0 * 2.0);
        assert!((b[0].wait_pct - want).abs() < 1e-9, "{:?}", b[0]);
        assert_eq!(b[40].launches, 1);
        assert_eq!(b[41].launches, 3);
        // 39 gaps of 6 us and the last 2 us launch; no other burst of its size.
        assert_eq!(b[0].span_ns, 39.0 * 6_000.0 + 2_000.0);
        assert_eq!((b[0].alike, b[0].period_ns), (1, 0.0));
        assert_eq!(read(&[]).1, Vec::new());
    }

    /// Five steps, each 20 short launches then a 1 ms kernel: five bursts alike, one a
    /// step; a burst of 3 launches elsewhere is not one of them.
    #[test]
    fn a_loop_run_once_a_step_makes_one_burst_a_step() {
        let step = 1_200_000u64;
        let mut spans = Vec::new();
        for s in 0..5u64 {
            let at = s * step;
            spans.extend((0..20u64).map(|k| span(at + k * 5_000, at + k * 5_000 + 1_000)));
            spans.push(span(at + 100_000, at + 1_100_000));
        }
        let tail = 5 * step;
        spans.extend((0..3u64).map(|k| span(tail + k * 5_000, tail + k * 5_000 + 1_000)));
        let (_, b, _) = read(&spans);
        assert_eq!(
            (b[0].launches, b[0].alike, b[0].period_ns),
            (20, 5, step as f64)
        );
        assert_eq!(b[0].span_ns, 19.0 * 5_000.0 + 1_000.0);
        assert_eq!(b[20], Burst::NONE, "the long kernel is in no burst");
        let tail_burst = b[spans.len() - 1];
        assert_eq!((tail_burst.launches, tail_burst.alike), (3, 1));
    }

    fn span(start_ns: u64, end_ns: u64) -> Span {
        Span {
            device: 0,
            process: 0,
            start_ns,
            end_ns,
        }
    }

    #[test]
    fn waits_count_short_gaps_and_overlaps_count_once() {
        // 2 us kernels 10 us apart, then a 5 ms pause (host work), then a kernel that
        // overlaps the one before it.
        let spans = [
            span(0, 2_000),
            span(12_000, 14_000),
            span(5_014_000, 5_016_000),
            span(5_015_000, 5_020_000),
        ];
        let (waits, _, t) = read(&spans);
        let t = t[&0];
        assert_eq!(waits, vec![0.0, 10_000.0, 0.0, 0.0]);
        assert_eq!(t.busy_ns, 2_000.0 + 2_000.0 + 6_000.0);
        assert_eq!(t.wait_ns, 10_000.0);
        assert_eq!(t.launches, 4);
        assert_eq!(t.short_launch_pct, 100.0);
        assert!((t.wait_pct() - 50.0).abs() < 1e-9);
    }

    #[test]
    fn a_record_that_ends_before_it_starts_counts_as_instant() {
        // CUPTI's clock seen going backwards: no panic, no negative time.
        let (waits, _, t) = read(&[span(10_000, 5_000), span(12_000, 13_000)]);
        assert_eq!(waits, vec![0.0, 2_000.0]);
        assert_eq!(t[&0].busy_ns, 1_000.0);
        assert_eq!(read(&[]), (Vec::new(), Vec::new(), BTreeMap::new()));
    }

    #[test]
    fn each_device_has_its_own_timeline() {
        let spans = [
            span(0, 2_000),
            Span {
                device: 1,
                process: 0,
                start_ns: 50_000,
                end_ns: 60_000,
            },
            span(4_000, 6_000),
        ];
        let (waits, _, t) = read(&spans);
        assert_eq!(waits, vec![0.0, 0.0, 2_000.0]);
        assert_eq!(t[&0].short_launch_pct, 100.0 * 2.0 / 3.0);
    }

    /// One rank's step: `launches` kernels of 2 us, `gap_ns` apart, from `at`.
    fn rank_steps(process: u64, at: u64, launches: u64, gap_ns: u64) -> Vec<Span> {
        (0..launches)
            .map(|k| Span {
                device: 0,
                process,
                start_ns: at + k * (2_000 + gap_ns),
                end_ns: at + k * (2_000 + gap_ns) + 2_000,
            })
            .collect()
    }

    /// Two ranks each shown its own GPU as device 0, running at once: rank 0 launches
    /// back to back, rank 1 waits 8 us before each launch. On one timeline rank 0's
    /// kernels would fill rank 1's waits; each rank has its own, and its own judgement.
    #[test]
    fn ranks_on_one_ordinal_at_once_each_have_their_own_timeline() {
        let mut spans = rank_steps(0, 0, 50, 0);
        spans.extend(rank_steps(1, 1_000, 10, 8_000));
        let (waits, bursts, runs) = read(&spans);
        assert!(waits[..50].iter().all(|&w| w == 0.0), "{waits:?}");
        assert!(waits[51..].iter().all(|&w| w == 8_000.0), "{waits:?}");
        assert_eq!(runs[&0].wait_pct(), 0.0);
        let want = 100.0 * (9.0 * 8_000.0) / (9.0 * 8_000.0 + 10.0 * 2_000.0);
        assert!((runs[&1].wait_pct() - want).abs() < 1e-9, "{:?}", runs[&1]);
        assert_eq!((runs[&0].launches, runs[&1].launches), (50, 10));
        assert_eq!((bursts[0].launches, bursts[50].launches), (50, 10));
    }

    /// Two processes taking turns on one GPU (no kernel of one overlaps the other's): one
    /// timeline, where each waits only for the gaps the GPU sat idle.
    #[test]
    fn processes_taking_turns_on_a_device_share_its_timeline() {
        let mut spans = rank_steps(0, 0, 10, 1_000);
        spans.extend(rank_steps(1, 100_000, 10, 1_000));
        // The second process's first launch follows the first's last within the cap.
        let (waits, bursts, runs) = read(&spans);
        assert_eq!(waits[10], 100_000.0 - (9 * 3_000 + 2_000) as f64);
        assert_eq!(bursts[0].launches, 20);
        assert_eq!(runs.len(), 2);
    }
}
