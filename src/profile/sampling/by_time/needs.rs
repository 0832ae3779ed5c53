//! What the sample by time must profile: a launch near each configuration's median (and
//! its longest where its time comes unevenly), and a launch of each kernel that carries
//! time.

use super::counted::Counted;

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

/// A launch a configuration needs profiled: any of `numbers` (sorted) of its `kernel`.
pub(super) struct Need {
    pub(super) kernel: usize,
    pub(super) numbers: Vec<u64>,
    pub(super) weight: f64,
    /// A kernel's own need ([`kernel_needs`]): any launch of it, weighing as its time.
    pub(super) whole_kernel: bool,
    /// A kind of a kernel's grids ([`grid_kind_needs`]): met after the kernels' own needs,
    /// before the configurations'.
    pub(super) grid_kind: bool,
}

/// The needs of one configuration: a launch near its median, and its longest where the
/// long launches carry a good part of its time.
pub(super) fn needs_of(counted: &Counted, configuration: usize) -> Vec<Need> {
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
        grid_kind: false,
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
pub(super) const KERNEL_SHARE: f64 = crate::profile::sample::KERNEL_SHARE_PCT / 100.0;

/// One need per kernel with [`KERNEL_SHARE`] of the time: any launch of its busiest
/// configuration, weighing as the whole kernel. Its counters are what its findings read;
/// a launch near the median is the configuration's own need. The CG solver's cg_scalars
/// (4.5% of the time), whose first launch is 16-41% off its median, would otherwise cost
/// a launch number of its own, a launch of every kernel, and was left out with its two
/// warnings. `by_time`: configurations, the most time first.
pub(super) fn kernel_needs(counted: &Counted, by_time: &[usize]) -> Vec<Need> {
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
            grid_kind: false,
        });
    }
    needs
}

/// One need per kind of grid of each kernel with [`KERNEL_SHARE`] of the time whose grids
/// are of both kinds, under one wave (fewer blocks than SMs) and not: any launch of that
/// kind, weighing as the kind's time, met after every kernel's own need and before more
/// configurations (the cover's second tier). What a grid under one
/// wave makes of a kernel (latency where it hid it, a small grid) no launch of a big one
/// shows: LU's trailing update shrinks from 3,969 blocks to 1, and a sample of its big grids
/// alone lost its latency-bound finding. Without the SM count (`sm_count`), no such need.
pub(super) fn grid_kind_needs(counted: &Counted, sm_count: Option<u64>) -> Vec<Need> {
    let Some(sms) = sm_count.filter(|s| *s > 0) else {
        return Vec::new();
    };
    let kernels = counted.kernels.len();
    // Per kernel and kind (0: under one wave, 1: one or more): time and launch numbers.
    let mut time = vec![[0.0f64; 2]; kernels];
    let mut numbers: Vec<[Vec<u64>; 2]> = vec![[Vec::new(), Vec::new()]; kernels];
    for (&(kernel, number, _, duration), &blocks) in counted.launches.iter().zip(&counted.blocks) {
        let kind = usize::from(blocks >= sms);
        time[kernel][kind] += duration;
        if numbers[kernel][kind].len() < CANDIDATES {
            numbers[kernel][kind].push(number);
        }
    }
    let mut needs = Vec::new();
    for (kernel, (time, numbers)) in time.into_iter().zip(numbers).enumerate() {
        let both = numbers.iter().all(|n| !n.is_empty());
        if !both || time[0] + time[1] < KERNEL_SHARE * counted.total {
            continue;
        }
        for (kind_time, kind_numbers) in time.into_iter().zip(numbers) {
            needs.push(Need {
                kernel,
                numbers: kind_numbers,
                weight: kind_time.max(f64::MIN_POSITIVE),
                whole_kernel: false,
                grid_kind: true,
            });
        }
    }
    needs
}
