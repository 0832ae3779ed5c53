//! The GPU's timeline in a launch trace: how long each device sat idle before each launch,
//! and, over the whole run, how much of its active time went to waiting for launches.
//! Kernel metrics cannot see this: a step of many short kernels is slow because the CPU
//! launches them one by one, while each kernel alone looks fine.

/// An idle gap longer than this is the host doing other work (start-up, loading data,
/// a synchronisation, printing), not the launch of the next kernel: eager PyTorch spends
/// 5-20 us of CPU per op, a CUDA launch call a few.
pub const LAUNCH_WAIT_CAP_NS: f64 = 100_000.0;

/// A kernel shorter than this costs about as much to launch as to run.
pub const SHORT_KERNEL_NS: f64 = 10_000.0;

/// One traced launch on the timeline.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub device: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

/// What the trace says of the whole run's timeline.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunTimeline {
    /// Launches in the trace.
    pub launches: u64,
    /// Share of them shorter than [`SHORT_KERNEL_NS`], %.
    pub short_launch_pct: f64,
    /// Time some kernel ran, summed over devices (overlapping kernels count once).
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

/// Each launch's wait (the idle time on its device since the last kernel there ended, 0 when
/// longer than [`LAUNCH_WAIT_CAP_NS`], when kernels overlap, or for a device's first
/// launch), in the order of `spans`, and the run's timeline.
pub fn waits(spans: &[Span]) -> (Vec<f64>, RunTimeline) {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].device, spans[i].start_ns));
    let mut waits = vec![0.0; spans.len()];
    let (mut busy_ns, mut wait_ns) = (0.0, 0.0);
    let mut last: Option<(u64, u64)> = None; // (device, latest end so far)
    for i in order {
        let s = spans[i];
        let end = s.end_ns.max(s.start_ns);
        let ran_until = match last {
            Some((device, until)) if device == s.device => until,
            _ => {
                busy_ns += (end - s.start_ns) as f64;
                last = Some((s.device, end));
                continue;
            }
        };
        let gap = s.start_ns.saturating_sub(ran_until) as f64;
        if gap <= LAUNCH_WAIT_CAP_NS {
            waits[i] = gap;
            wait_ns += gap;
        }
        busy_ns += end.saturating_sub(s.start_ns.max(ran_until)) as f64;
        last = Some((s.device, ran_until.max(end)));
    }
    let short = spans
        .iter()
        .filter(|s| ((s.end_ns.saturating_sub(s.start_ns)) as f64) < SHORT_KERNEL_NS)
        .count();
    let launches = spans.len() as u64;
    let timeline = RunTimeline {
        launches,
        short_launch_pct: if launches > 0 {
            100.0 * short as f64 / launches as f64
        } else {
            0.0
        },
        busy_ns,
        wait_ns,
    };
    (waits, timeline)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(start_ns: u64, end_ns: u64) -> Span {
        Span {
            device: 0,
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
        let (waits, t) = waits(&spans);
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
        let (waits, t) = waits(&[span(10_000, 5_000), span(12_000, 13_000)]);
        assert_eq!(waits, vec![0.0, 2_000.0]);
        assert_eq!(t.busy_ns, 1_000.0);
        assert_eq!(waits_of_nothing(), (Vec::new(), 0.0));
    }

    fn waits_of_nothing() -> (Vec<f64>, f64) {
        let (w, t) = waits(&[]);
        (w, t.wait_pct())
    }

    #[test]
    fn each_device_has_its_own_timeline() {
        let spans = [
            span(0, 2_000),
            Span {
                device: 1,
                start_ns: 50_000,
                end_ns: 60_000,
            },
            span(4_000, 6_000),
        ];
        let (waits, t) = waits(&spans);
        assert_eq!(waits, vec![0.0, 0.0, 2_000.0]);
        assert_eq!(t.short_launch_pct, 100.0 * 2.0 / 3.0);
    }
}
