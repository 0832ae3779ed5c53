//! What the sample by time must profile: a launch near each configuration's median (and
//! its longest where its time comes unevenly), and a launch of each kernel that carries
//! time.

use super::counted::Counted;
use crate::profile::visible_gpus::Shape;

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
#[derive(Clone)]
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

impl Need {
    fn of_configuration(kernel: usize, numbers: Vec<u64>, weight: f64) -> Need {
        Need {
            kernel,
            numbers,
            weight: weight.max(f64::MIN_POSITIVE),
            whole_kernel: false,
            grid_kind: false,
        }
    }
}

/// The launch numbers (sorted) of `launches` (indices) whose durations are within
/// [`NEAR_MEDIAN`] of `target`, at most [`CANDIDATES`] of them, taken in the order given;
/// the first launch where none is (durations of 0: a launch the trace could not time).
fn near(counted: &Counted, launches: &[usize], target: f64) -> Vec<u64> {
    let mut numbers: Vec<u64> = launches
        .iter()
        .filter(|&&i| (counted.launches[i].3 - target).abs() <= NEAR_MEDIAN * target)
        .map(|&i| counted.launches[i].1)
        .take(CANDIDATES)
        .collect();
    if numbers.is_empty() {
        numbers.push(counted.launches[launches[0]].1);
    }
    // Sorted, as a need's numbers are searched.
    numbers.sort_unstable();
    numbers
}

/// The needs of one configuration: a launch near its median, and its longest where the
/// long launches carry a good part of its time.
pub(super) fn needs_of(counted: &Counted, configuration: usize) -> Vec<Need> {
    let (kernel, time, launches) = &counted.configurations[configuration];
    let mut sorted: Vec<f64> = launches.iter().map(|&i| counted.launches[i].3).collect();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[(sorted.len() - 1) / 2];
    let longest = sorted[sorted.len() - 1];
    let mut needs = vec![Need::of_configuration(
        *kernel,
        near(counted, launches, median),
        *time,
    )];
    let long_time: f64 = sorted
        .iter()
        .filter(|&&d| d > LONGEST_FACTOR * median)
        .sum();
    if long_time >= LONG_SHARE * time {
        needs.push(Need::of_configuration(
            *kernel,
            near(counted, launches, longest),
            *time,
        ));
    }
    needs
}

/// The needs of one configuration whose launches' durations span more than a factor of
/// two: its launches in octaves, each from the shortest launch not yet in one up to twice
/// its duration (so that jitter around a power of two splits nothing), and a launch near
/// the median of each octave that carries [`LONG_SHARE`] of its time, weighing as that
/// octave's time. Launches of one kernel and grid that differ twofold in time do
/// different work (a frontier that grows and shrinks, a solver's early and late
/// iterations), and their counters can judge otherwise: BFS's Kernel waits on one load
/// after another at its 22-us level alone, between its short levels and the long ones
/// whose gathers are uncoalesced (lab/runs/2026-12-05-augment.txt). Met only with
/// launches the cap leaves once every other need is met.
pub(super) fn octave_needs(counted: &Counted, configuration: usize) -> Vec<Need> {
    let (kernel, time, launches) = &counted.configurations[configuration];
    let mut by_duration: Vec<usize> = (launches.iter().copied())
        .filter(|&i| counted.launches[i].3 > 0.0)
        .collect();
    by_duration.sort_by(|&a, &b| counted.launches[a].3.total_cmp(&counted.launches[b].3));
    let mut octaves: Vec<&[usize]> = Vec::new();
    let mut rest = by_duration.as_slice();
    while let Some(&first) = rest.first() {
        let end = 2.0 * counted.launches[first].3;
        let len = rest.partition_point(|&i| counted.launches[i].3 < end);
        octaves.push(&rest[..len]);
        rest = &rest[len..];
    }
    if octaves.len() < 2 {
        return Vec::new();
    }
    let mut needs = Vec::new();
    for octave in octaves {
        let octave_time: f64 = octave.iter().map(|&i| counted.launches[i].3).sum();
        if octave_time < LONG_SHARE * time {
            continue;
        }
        let median = counted.launches[octave[(octave.len() - 1) / 2]].3;
        needs.push(Need::of_configuration(
            *kernel,
            near(counted, octave, median),
            octave_time,
        ));
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
    let time = counted.kernel_times();
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
/// are of more than one kind: under one block per SM (fewer blocks than SMs), under one
/// wave (fewer than the SMs hold at once), or whole waves. Each is any launch of that
/// kind, weighing as the kind's time, met after every kernel's own need and before more
/// configurations (the cover's second tier). What a small grid makes of a kernel no launch
/// of a big one shows: LU's trailing update shrinks from 3,969 blocks to 1; a sample of its
/// big grids alone lost its latency-bound finding, which lives on its grids from 2,601
/// blocks down to 289 (lab/runs/2026-12-05-one-run.txt): two and a half waves of its
/// resident blocks (1,056) and less, but over one block per SM. Without the GPU's shape
/// (`gpu`), no such need.
pub(super) fn grid_kind_needs(counted: &Counted, gpu: Option<Shape>) -> Vec<Need> {
    let Some(gpu) = gpu.filter(|g| g.sms > 0) else {
        return Vec::new();
    };
    let kernels = counted.kernels.len();
    // Per kernel and kind: time and launch numbers.
    let mut time = vec![[0.0f64; 3]; kernels];
    let mut numbers: Vec<[Vec<u64>; 3]> = vec![Default::default(); kernels];
    let launches = counted.launches.iter().zip(&counted.blocks);
    for ((&(kernel, number, _, duration), &blocks), &resources) in
        launches.zip(&counted.block_resources)
    {
        let kind = if blocks < gpu.sms {
            0
        } else if blocks < gpu.sms * resident_blocks(gpu, resources) {
            1
        } else {
            2
        };
        time[kernel][kind] += duration;
        if numbers[kernel][kind].len() < CANDIDATES {
            numbers[kernel][kind].push(number);
        }
    }
    let mut needs = Vec::new();
    for (kernel, (time, numbers)) in time.into_iter().zip(numbers).enumerate() {
        let kinds = numbers.iter().filter(|n| !n.is_empty()).count();
        if kinds < 2 || time.iter().sum::<f64>() < KERNEL_SHARE * counted.total {
            continue;
        }
        let present = time.into_iter().zip(numbers).filter(|(_, n)| !n.is_empty());
        for (kind_time, kind_numbers) in present {
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

/// Blocks of a launch of `threads` threads and `registers` registers a thread that one SM
/// holds at once, by its warp slots and a register file of 65,536 (every GPU since compute
/// capability 5.0), at most 32 blocks. Not by shared memory: the trace has the launch's,
/// but gpulint's GPU table not the SM's, so a wave is at most this. At least 1.
fn resident_blocks(gpu: Shape, (threads, registers): (u64, u64)) -> u64 {
    use crate::metrics::occupancy::{Block, Device, limits};
    let device = Device {
        max_warps_per_sm: gpu.max_warps_per_sm,
        max_blocks_per_sm: 32,
        registers_per_sm: 65_536,
        max_registers_per_block: 65_536,
        schedulers_per_sm: 4,
        max_shared_mem_per_sm: 0,
        reserved_shared_mem_per_block: 0,
    };
    let block = Block {
        threads,
        registers_per_thread: registers,
        shared_mem_bytes: 0,
        shared_mem_config_bytes: None,
    };
    limits(&device, &block).map_or(1, |l| l.min()).max(1)
}
