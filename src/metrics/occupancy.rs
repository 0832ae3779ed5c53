//! The occupancy limits of a launch computed from its block, registers and shared memory
//! and the device's attributes, as ncu computes `launch__occupancy_limit_*` and the
//! theoretical occupancy: what a launch trace gives for every launch, where ncu profiled
//! a few ([`derive_limits`], where an export lacks ncu's). On every launch of the H200
//! captures under fixtures/ the four limits and the theoretical occupancy are ncu's
//! (`every_captured_h200_launch_gets_ncus_limits`, below).

use super::map::{get, put};
use super::{KeyId, Metrics, OCCUPANCY_LIMITS};

/// What sets a device's occupancy limits (ncu's `device__attribute_*`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Device {
    pub max_warps_per_sm: u64,
    pub max_blocks_per_sm: u64,
    pub registers_per_sm: u64,
    pub max_registers_per_block: u64,
    /// Warp schedulers per SM: the register file is split among them.
    pub schedulers_per_sm: u64,
    /// The largest shared-memory carveout an SM can be given.
    pub max_shared_mem_per_sm: u64,
    /// Shared memory the driver takes from every block (1 KiB from compute capability 8.0).
    pub reserved_shared_mem_per_block: u64,
}

/// A launch's resources.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Block {
    pub threads: u64,
    pub registers_per_thread: u64,
    /// Static and dynamic together.
    pub shared_mem_bytes: u64,
    /// The carveout the driver chose for the launch (ncu's `launch__shared_mem_config_size`);
    /// `None` (a launch trace) takes the largest, which the driver moves up to whenever
    /// shared memory would otherwise bind: the theoretical occupancy is the same.
    pub shared_mem_config_bytes: Option<u64>,
}

/// Blocks per SM allowed by each limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub blocks: u64,
    pub warps: u64,
    pub registers: u64,
    pub shared_mem: u64,
}

impl Limits {
    /// The binding limit: blocks resident per SM.
    pub fn min(&self) -> u64 {
        self.blocks
            .min(self.warps)
            .min(self.registers)
            .min(self.shared_mem)
    }
}

/// Registers are given to a warp in units of 256 (8 per thread).
const REGISTER_UNIT_PER_WARP: u64 = 256;
/// Shared memory is given to a block in units of 128 bytes.
const SHARED_MEM_UNIT: u64 = 128;

/// Inputs past these are no launch a GPU could run (an export's garbage, say): no limits
/// are computed from them, and no arithmetic on them can overflow.
const MOST_THREADS: u64 = 1 << 16;
const MOST_REGISTERS_PER_THREAD: u64 = 1 << 12;
const MOST_BYTES: u64 = 1 << 40;

/// The limits of `block` on `device`; `None` for a block of no thread, or inputs no GPU has.
pub fn limits(device: &Device, block: &Block) -> Option<Limits> {
    let sane = block.threads <= MOST_THREADS
        && device.max_warps_per_sm <= MOST_THREADS
        && device.max_blocks_per_sm <= MOST_THREADS
        && device.schedulers_per_sm <= MOST_THREADS
        && block.registers_per_thread <= MOST_REGISTERS_PER_THREAD
        && [
            block.shared_mem_bytes,
            block.shared_mem_config_bytes.unwrap_or(0),
            device.max_shared_mem_per_sm,
            device.reserved_shared_mem_per_block,
            device.registers_per_sm,
            device.max_registers_per_block,
        ]
        .iter()
        .all(|&v| v <= MOST_BYTES);
    if !sane || block.threads == 0 || device.schedulers_per_sm == 0 {
        return None;
    }
    let warps_per_block = block.threads.div_ceil(32);
    let registers = {
        let per_warp = (block.registers_per_thread * 32).next_multiple_of(REGISTER_UNIT_PER_WARP);
        if per_warp == 0 {
            device.max_blocks_per_sm
        } else if per_warp * warps_per_block > device.max_registers_per_block {
            0
        } else {
            // Each scheduler holds its share of the register file and of the warps.
            let warps_per_scheduler = device.registers_per_sm / device.schedulers_per_sm / per_warp;
            warps_per_scheduler * device.schedulers_per_sm / warps_per_block
        }
    };
    let per_block = (block.shared_mem_bytes + device.reserved_shared_mem_per_block)
        .next_multiple_of(SHARED_MEM_UNIT);
    let carveout = block
        .shared_mem_config_bytes
        .unwrap_or(device.max_shared_mem_per_sm);
    Some(Limits {
        blocks: device.max_blocks_per_sm,
        warps: device.max_warps_per_sm / warps_per_block,
        registers,
        shared_mem: carveout
            .checked_div(per_block)
            .unwrap_or(device.max_blocks_per_sm),
    })
}

/// Resident warps over the SM's warp slots, in percent.
pub fn theoretical_pct(device: &Device, block: &Block, limits: &Limits) -> f64 {
    let warps = limits.min() * block.threads.div_ceil(32);
    100.0 * warps as f64 / device.max_warps_per_sm.max(1) as f64
}

/// The four occupancy limits and the theoretical occupancy of a launch whose export lacks
/// ncu's (a traced launch), computed from its block, registers and shared memory and the
/// device's attributes (`limits`); nothing where any of those is missing, and
/// nothing where ncu gave any limit: its own numbers are never mixed with computed ones.
pub(super) fn derive_limits(m: &mut Metrics) {
    if OCCUPANCY_LIMITS.iter().any(|k| get(m, k).is_some()) {
        return;
    }
    let Some((device, block)) = occupancy_inputs(m) else {
        return;
    };
    let Some(limits) = limits(&device, &block) else {
        return;
    };
    let values = [
        limits.blocks,
        limits.warps,
        limits.registers,
        limits.shared_mem,
    ];
    for (k, v) in OCCUPANCY_LIMITS.iter().zip(values) {
        put(m, k, Some(v as f64));
    }
    let theoretical = theoretical_pct(&device, &block, &limits);
    put(m, slot!("theoretical_occupancy_pct"), Some(theoretical));
}

/// The device and block a launch's metrics give the occupancy calculator, where it has
/// every one of them.
fn occupancy_inputs(m: &Metrics) -> Option<(Device, Block)> {
    let whole = |k: KeyId| get(m, k).filter(|v| *v >= 0.0).map(|v| v as u64);
    let device = Device {
        max_warps_per_sm: whole(slot!("max_warps_per_sm"))?,
        max_blocks_per_sm: whole(slot!("max_blocks_per_sm"))?,
        registers_per_sm: whole(slot!("registers_per_sm"))?,
        max_registers_per_block: whole(slot!("max_registers_per_block"))?,
        schedulers_per_sm: whole(slot!("schedulers_per_sm"))?,
        max_shared_mem_per_sm: whole(slot!("max_shared_mem_per_sm"))?,
        reserved_shared_mem_per_block: whole(slot!("reserved_shared_mem_per_block"))?,
    };
    let block = Block {
        threads: whole(slot!("block_size"))?,
        registers_per_thread: whole(slot!("registers_per_thread"))?,
        shared_mem_bytes: whole(slot!("shared_mem_per_block"))?,
        shared_mem_config_bytes: whole(slot!("shared_mem_config_bytes")),
    };
    Some((device, block))
}

#[cfg(test)]
mod tests {
    use super::*;

    const H200: Device = Device {
        max_warps_per_sm: 64,
        max_blocks_per_sm: 32,
        registers_per_sm: 65536,
        max_registers_per_block: 65536,
        schedulers_per_sm: 4,
        max_shared_mem_per_sm: 233_472,
        reserved_shared_mem_per_block: 1024,
    };

    fn block(threads: u64, registers: u64, shared: u64, config: Option<u64>) -> Block {
        Block {
            threads,
            registers_per_thread: registers,
            shared_mem_bytes: shared,
            shared_mem_config_bytes: config,
        }
    }

    /// Launches of the H200 captures, with ncu's limits: a GEMM of 255 registers, 128
    /// threads and 33,792 bytes of dynamic shared memory (registers bind at 2 blocks),
    /// and a block of 1,024 threads with 120 KiB (shared memory binds at 1).
    #[test]
    fn the_limits_of_captured_launches() {
        let gemm = block(128, 255, 33_792, Some(135_168));
        let l = limits(&H200, &gemm).unwrap();
        assert_eq!(
            (l.blocks, l.warps, l.registers, l.shared_mem),
            (32, 16, 2, 3)
        );
        assert_eq!(theoretical_pct(&H200, &gemm, &l), 12.5);
        let big = block(1024, 16, 122_880, None);
        let l = limits(&H200, &big).unwrap();
        assert_eq!((l.warps, l.registers, l.shared_mem), (2, 4, 1));
        assert_eq!(theoretical_pct(&H200, &big, &l), 50.0);
    }

    #[test]
    fn a_block_of_too_many_registers_cannot_run_and_one_of_no_thread_has_no_limits() {
        let l = limits(&H200, &block(1024, 255, 0, None)).unwrap();
        assert_eq!(l.registers, 0);
        assert_eq!(l.min(), 0);
        assert_eq!(limits(&H200, &block(0, 32, 0, None)), None);
    }

    /// An export's impossible values (a register count of 10^19, read saturated) give no
    /// limits, and no overflow.
    #[test]
    fn impossible_inputs_give_no_limits() {
        assert_eq!(limits(&H200, &block(256, u64::MAX, 0, None)), None);
        assert_eq!(limits(&H200, &block(u64::MAX, 32, 0, None)), None);
        assert_eq!(
            limits(&H200, &block(256, 32, u64::MAX, Some(u64::MAX))),
            None
        );
        for huge in [
            Device {
                registers_per_sm: u64::MAX,
                ..H200
            },
            Device {
                max_blocks_per_sm: u64::MAX,
                ..H200
            },
        ] {
            assert_eq!(limits(&huge, &block(256, 32, 0, None)), None);
        }
    }

    /// Every launch of the H200's raw captures under fixtures/ whose export has ncu's
    /// limits: the calculator gives the same four, with the carveout the driver chose, and
    /// the same theoretical occupancy without it (as from a trace, at the largest carveout).
    #[test]
    fn every_captured_h200_launch_gets_ncus_limits() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut compared = 0;
        for file in csv_files(&root) {
            // --print-metric-instances prints shared memory in Kbyte to three digits
            // (2.05 for 2,048 bytes): one block of those LU launches computes a limit of 20
            // for ncu's 21.
            if file
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("instances_")
            {
                continue;
            }
            let Ok(profile) = crate::ingest::read_path(file.to_str().unwrap()) else {
                continue;
            };
            for l in &profile.launches {
                let m = &l.metrics;
                let Some((device, mut block)) = super::occupancy_inputs(m) else {
                    continue;
                };
                let ncu = [
                    "limit_blocks",
                    "limit_warps",
                    "limit_registers",
                    "limit_shared_mem",
                ]
                .map(|k| m.get(k).copied());
                if device != H200 || ncu.contains(&None) || block.threads == 0 {
                    continue;
                }
                let at = format!("{} launch {}", file.display(), l.id);
                let ours = limits(&device, &block).unwrap();
                let ours_values = [ours.blocks, ours.warps, ours.registers, ours.shared_mem];
                assert_eq!(ncu, ours_values.map(|v| Some(v as f64)), "{at}");
                block.shared_mem_config_bytes = None;
                let at_largest = limits(&device, &block).unwrap();
                let pct = theoretical_pct(&device, &block, &at_largest);
                let ncu_pct = m["theoretical_occupancy_pct"];
                assert!(
                    (pct - ncu_pct).abs() < 0.01,
                    "{at}: {pct} against {ncu_pct}"
                );
                compared += 1;
            }
        }
        assert!(compared > 4000, "{compared}");
    }

    fn csv_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(csv_files(&path));
            } else if path.extension().is_some_and(|e| e == "csv") {
                out.push(path);
            }
        }
        out
    }
}
