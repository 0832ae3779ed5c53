//! Every launch the trace counted, by kernel and configuration, with the GPU time of each:
//! what the sample by time ranks and covers.

use std::collections::HashMap;
use std::sync::Arc;

use crate::ingest;

/// Every counted launch, by kernel and configuration. A configuration here is a kernel's
/// launches with one block whose grids are within a power of two: they judge alike (waves,
/// tail effect), and a grid that shrinks every launch (LU's 63) makes a few, not 63.
pub(super) struct Counted {
    /// Per launch, in launch order: its kernel, its number among the kernel's launches
    /// (from 1), its configuration and its duration.
    pub(super) launches: Vec<(usize, u64, usize, f64)>,
    /// Per launch, in launch order: the blocks of its grid.
    pub(super) blocks: Vec<u64>,
    /// Per launch, in launch order: its block's threads and its registers per thread (0:
    /// not known), what sets how many of its blocks an SM holds.
    pub(super) block_resources: Vec<(u64, u64)>,
    /// Per kernel: its name, how many times it was launched, and its mangled name.
    pub(super) kernels: Vec<(String, u64, Option<Arc<str>>)>,
    /// Per configuration: its kernel, its GPU time, and its launches (indices).
    pub(super) configurations: Vec<(usize, f64, Vec<usize>)>,
    pub(super) total: f64,
    /// Whether ncu can be asked for some kernels only: every kernel has a mangled name
    /// that `--kernel-id` can carry.
    pub(super) by_name: bool,
}

type ConfigurationKey = (usize, Option<[u64; 3]>, u32);

impl Counted {
    /// `None` unless the launches were counted one by one, with a GPU time.
    pub(super) fn of(every: &ingest::Profile) -> Option<Counted> {
        if every.launches.iter().any(|l| l.count != 1) {
            return None;
        }
        let mut kernel_at: HashMap<&str, usize> = HashMap::new();
        let mut configuration_at: HashMap<ConfigurationKey, usize> = HashMap::new();
        let mut counted = Counted {
            launches: Vec::with_capacity(every.launches.len()),
            blocks: Vec::with_capacity(every.launches.len()),
            block_resources: Vec::with_capacity(every.launches.len()),
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
            counted.blocks.push(blocks);
            let threads = l.block.map_or(0, |b| b.iter().product::<u64>());
            let registers = l
                .metrics
                .get("registers_per_thread")
                .copied()
                .unwrap_or(0.0);
            counted
                .block_resources
                .push((threads, registers.max(0.0) as u64));
        }
        counted.by_name = (counted.kernels.iter()).all(|k| {
            k.2.as_deref()
                .is_some_and(crate::profile::ncu::mangled_fits_kernel_id)
        });
        (counted.total > 0.0).then_some(counted)
    }

    /// Launches of the kernels `kept` (and `also`) whose number is `n`: one of each
    /// launched that often.
    pub(super) fn cost(&self, n: u64, kept: &[bool], also: usize) -> u64 {
        (self.kernels.iter().zip(kept).enumerate())
            .filter(|(i, (k, kept))| (**kept || *i == also) && k.1 >= n)
            .count() as u64
    }

    /// Per kernel, its GPU time: the sum of its configurations'.
    pub(super) fn kernel_times(&self) -> Vec<f64> {
        let mut time = vec![0.0; self.kernels.len()];
        for &(kernel, configuration_time, _) in &self.configurations {
            time[kernel] += configuration_time;
        }
        time
    }

    pub(super) fn share(&self, covered: &[bool]) -> f64 {
        let time: f64 = (self.configurations.iter().zip(covered))
            .filter(|(_, c)| **c)
            .map(|(c, _)| c.1)
            .sum();
        time / self.total
    }

    /// The configurations with a launch that `taken` takes.
    pub(super) fn covered(&self, taken: &[bool]) -> Vec<bool> {
        let mut covered = vec![false; self.configurations.len()];
        for (&(_, _, configuration, _), taken) in self.launches.iter().zip(taken) {
            covered[configuration] |= *taken;
        }
        covered
    }
}
