//! Canonical metric names: one short key per quantity, whichever export it came from.
//!
//! A key resolves from the first ncu metric name the export has, then from the
//! details-page label. Equivalent counters go by one key, so rules never care which
//! form of export they read. Derived quantities (sectors per request, excess sectors,
//! the binding occupancy limit) exist only when all their inputs do: a missing input is
//! never read as zero.

use std::collections::{BTreeMap, HashSet};

/// Where a canonical metric can come from.
pub struct Source {
    /// The ncu metric name, as a raw-page column or a details-page `Metric Name`.
    pub name: &'static str,
    /// When set, the value is a per-cycle rate and is multiplied by this metric (the
    /// elapsed cycles) to give a count.
    pub times: Option<&'static str>,
}

const fn n(name: &'static str) -> Source {
    Source { name, times: None }
}

const fn per_cycle(name: &'static str, cycles: &'static str) -> Source {
    Source {
        name,
        times: Some(cycles),
    }
}

pub struct MetricDef {
    pub key: &'static str,
    pub doc: &'static str,
    pub sources: &'static [Source],
    /// Details-page labels as `Section Name/Label`.
    pub labels: &'static [&'static str],
}

macro_rules! metric {
    ($key:literal, $doc:literal, [$($src:expr),* $(,)?], [$($label:literal),* $(,)?]) => {
        MetricDef { key: $key, doc: $doc, sources: &[$($src),*], labels: &[$($label),*] }
    };
}

/// Every metric gpulint reads. The order is the order of the JSON `metrics` object.
pub static METRICS: &[MetricDef] = &[
    metric!(
        "duration_ns",
        "kernel duration, ns",
        // ncu 2019 raw pages name it without `.sum`.
        [n("gpu__time_duration.sum"), n("gpu__time_duration")],
        // ncu 2019.x-2020.1 call the section "GPU Speed Of Light".
        [
            "GPU Speed Of Light Throughput/Duration",
            "GPU Speed Of Light/Duration"
        ]
    ),
    metric!(
        "block_size",
        "threads per block",
        [n("launch__block_size")],
        ["Launch Statistics/Block Size"]
    ),
    metric!(
        "block_dim_x",
        "threads per block along x: the lanes of a warp that share one row",
        [n("launch__block_dim_x")],
        []
    ),
    metric!(
        "max_warps_per_sm",
        "warp slots per SM on the device",
        [n("device__attribute_max_warps_per_multiprocessor")],
        []
    ),
    metric!(
        "grid_blocks",
        "blocks in the grid",
        [n("launch__grid_size")],
        ["Launch Statistics/Grid Size"]
    ),
    metric!(
        "sm_count",
        "streaming multiprocessors on the device",
        [
            n("launch__sm_count"),
            n("device__attribute_multiprocessor_count")
        ],
        ["Launch Statistics/# SMs"]
    ),
    metric!(
        "waves_per_sm",
        "grid size in waves of resident blocks",
        [n("launch__waves_per_multiprocessor")],
        ["Launch Statistics/Waves Per SM"]
    ),
    metric!(
        "registers_per_thread",
        "registers per thread",
        [n("launch__registers_per_thread")],
        ["Launch Statistics/Registers Per Thread"]
    ),
    metric!(
        "shared_mem_static_per_block",
        "static shared memory per block, bytes",
        [n("launch__shared_mem_per_block_static")],
        ["Launch Statistics/Static Shared Memory Per Block"]
    ),
    metric!(
        "shared_mem_dynamic_per_block",
        "dynamic shared memory per block, bytes",
        [n("launch__shared_mem_per_block_dynamic")],
        ["Launch Statistics/Dynamic Shared Memory Per Block"]
    ),
    metric!(
        "limit_blocks",
        "blocks per SM allowed by the block-slot limit",
        [n("launch__occupancy_limit_blocks")],
        ["Occupancy/Block Limit SM"]
    ),
    metric!(
        "limit_warps",
        "blocks per SM allowed by the warp limit",
        [n("launch__occupancy_limit_warps")],
        ["Occupancy/Block Limit Warps"]
    ),
    metric!(
        "limit_registers",
        "blocks per SM allowed by the register file",
        [n("launch__occupancy_limit_registers")],
        ["Occupancy/Block Limit Registers"]
    ),
    metric!(
        "limit_shared_mem",
        "blocks per SM allowed by shared memory",
        [n("launch__occupancy_limit_shared_mem")],
        ["Occupancy/Block Limit Shared Mem"]
    ),
    metric!(
        "theoretical_occupancy_pct",
        "theoretical occupancy, % of the SM's warp slots",
        [n("sm__maximum_warps_per_active_cycle_pct")],
        ["Occupancy/Theoretical Occupancy"]
    ),
    metric!(
        "achieved_occupancy_pct",
        "achieved occupancy, % of the SM's warp slots",
        [n("sm__warps_active.avg.pct_of_peak_sustained_active")],
        ["Occupancy/Achieved Occupancy"]
    ),
    metric!(
        "sm_throughput_pct",
        "compute (SM) throughput, % of peak: ncu's sm__throughput, the busiest SM unit over elapsed cycles",
        // sm__throughput takes 9 replay passes alone: `gpulint run` collects six of its
        // sub-units instead (COMPUTE_PARTS), and `derive_throughput` takes their maximum.
        [n("sm__throughput.avg.pct_of_peak_sustained_elapsed")],
        [
            "GPU Speed Of Light Throughput/Compute (SM) Throughput",
            "GPU Speed Of Light Throughput/Compute (SM) [%]",
            "GPU Speed Of Light/SM [%]"
        ]
    ),
    metric!(
        "memory_throughput_pct",
        "memory throughput, % of peak: ncu's gpu__compute_memory_throughput, the busiest memory unit over elapsed cycles",
        [n(
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
        )],
        [
            "GPU Speed Of Light Throughput/Memory Throughput",
            "GPU Speed Of Light Throughput/Memory [%]",
            "GPU Speed Of Light/Memory [%]"
        ]
    ),
    metric!(
        "dram_throughput_pct",
        "DRAM throughput, % of peak",
        [
            n("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            n("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
        ],
        // "SOL FB": the frame buffer, DRAM, in ncu 2019.x-2020.1.
        [
            "GPU Speed Of Light Throughput/DRAM Throughput",
            "GPU Speed Of Light/SOL FB"
        ]
    ),
    metric!(
        "l2_throughput_pct",
        "L2 sector throughput, % of peak",
        [n("lts__t_sectors.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    metric!(
        "l1_throughput_pct",
        "L1 sector throughput, % of peak",
        [n("l1tex__t_sectors.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    metric!(
        "l1_data_pipe_pct",
        "L1 data-pipe (LSU) wavefronts, % of peak: global, local and shared-memory accesses",
        // The unit ncu's Memory Throughput reads for shared-memory-bound kernels; one
        // replay pass more than the rest of `gpulint run`'s list (8 in all on an H200).
        [n(
            "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    // Sub-units of ncu's sm__throughput and gpu__compute_memory_throughput (members of
    // their `breakdown:`), each over elapsed cycles like the whole. Their maximum is
    // what `gpulint run` reads in place of each whole (see COMPUTE_PARTS, MEMORY_PARTS).
    metric!(
        "issue_slots_pct",
        "SM issue slots used, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n("sm__inst_issued.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    metric!(
        "lsu_inst_pct",
        "load/store-unit instructions, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "adu_inst_pct",
        "address-divergence-unit instructions, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "mio_inst_pct",
        "memory input/output instructions issued, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n("sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    metric!(
        "mio_queue_read_pct",
        "memory input/output queue reads, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__mio_pq_read_cycles_active.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "shared_pipe_pct",
        "shared pipe (FMA-heavy and FP64 lanes) active, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "dram_active_pct",
        "DRAM cycles active, % of peak over elapsed cycles (a sub-unit of gpu__compute_memory_throughput)",
        [n("dram__cycles_active.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    metric!(
        "l2_input_pct",
        "L2 input from the crossbar, cycles active, % of peak (a sub-unit of gpu__compute_memory_throughput)",
        [n(
            "lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "l2_tag_pct",
        "L2 tag requests, % of peak over elapsed cycles (a sub-unit of gpu__compute_memory_throughput)",
        [n("lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    metric!(
        "cc_major",
        "the device's compute capability, major version (8 and later have TF32 and BF16 tensor cores)",
        [n("device__attribute_compute_capability_major")],
        []
    ),
    metric!(
        "cc_minor",
        "the device's compute capability, minor version (0 on the data-center chips: A100, H100, H200, B200)",
        [n("device__attribute_compute_capability_minor")],
        []
    ),
    metric!(
        "threads_per_inst",
        "active threads per executed warp instruction (32 = no divergence)",
        [n("smsp__thread_inst_executed_per_inst_executed.ratio")],
        ["Warp State Statistics/Avg. Active Threads Per Warp"]
    ),
    metric!(
        "stall_long_scoreboard",
        "warp cycles per issued instruction stalled on global/local memory (L1TEX) results",
        [n(
            "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_barrier",
        "warp cycles per issued instruction stalled at a barrier (__syncthreads)",
        [n(
            "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_short_scoreboard",
        "warp cycles per issued instruction stalled on shared-memory or special-function results",
        [n(
            "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_mio_throttle",
        "warp cycles per issued instruction stalled on a full memory-input/output queue (shared memory)",
        [n(
            "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_math_pipe_throttle",
        "warp cycles per issued instruction stalled on a busy math pipe",
        [n(
            "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_no_instruction",
        "warp cycles per issued instruction stalled waiting for instructions (instruction cache)",
        [n(
            "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_not_selected",
        "warp cycles per issued instruction ready but not selected (another warp issued)",
        [n(
            "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_selected",
        "warp cycles per issued instruction spent issuing (1 per instruction)",
        [n(
            "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "stall_wait",
        "warp cycles per issued instruction stalled on a fixed-latency dependency",
        [n(
            "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio"
        )],
        []
    ),
    metric!(
        "sectors_ld",
        "L1 sectors of global loads",
        [n("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")],
        []
    ),
    metric!(
        "sectors_st",
        "L1 sectors of global stores",
        [n("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")],
        []
    ),
    metric!(
        "requests_ld",
        "L1 requests of global loads",
        [n("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")],
        []
    ),
    metric!(
        "requests_st",
        "L1 requests of global stores",
        [n("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")],
        []
    ),
    metric!(
        "sectors_per_request_ld",
        "sectors per global load request",
        [n(
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio"
        )],
        []
    ),
    metric!(
        "sectors_per_request_st",
        "sectors per global store request",
        [n(
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio"
        )],
        []
    ),
    metric!(
        "bytes_per_sector_ld",
        "useful bytes per sector of global loads (32 = all used)",
        [n(
            "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio"
        )],
        []
    ),
    metric!(
        "bytes_per_sector_st",
        "useful bytes per sector of global stores (32 = all used)",
        [n(
            "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio"
        )],
        []
    ),
    metric!(
        "local_sectors_ld",
        "L1 sectors of local-memory loads",
        [n("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")],
        []
    ),
    metric!(
        "local_sectors_st",
        "L1 sectors of local-memory stores",
        [n("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum")],
        []
    ),
    metric!(
        "bank_conflicts_ld",
        "shared-memory bank conflicts on loads",
        [n(
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
        )],
        []
    ),
    metric!(
        "bank_conflicts_st",
        "shared-memory bank conflicts on stores",
        [n(
            "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"
        )],
        []
    ),
    metric!(
        "shared_wavefronts_ld",
        "shared-memory load wavefronts",
        [n("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")],
        []
    ),
    metric!(
        "shared_wavefronts_st",
        "shared-memory store wavefronts",
        [n("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")],
        []
    ),
    metric!(
        "replay_passes",
        "times ncu replayed the kernel to collect its metrics",
        [n("profiler__replayer_passes")],
        []
    ),
    metric!(
        "local_spill_requests",
        "local-memory requests caused by register spills",
        [n("derived__local_spilling_requests")],
        ["Memory Workload Analysis/Local Memory Spilling Requests"]
    ),
    metric!(
        "local_spill_overhead_pct",
        "spill requests as % of all L1 requests",
        [n("derived__local_spilling_requests_pct")],
        ["Memory Workload Analysis/Local Memory Spilling Request Overhead"]
    ),
    metric!(
        "dram_bytes_read",
        "DRAM bytes read",
        // GB20x (RTX 50-series) names them by operation.
        [n("dram__bytes_read.sum"), n("dram__bytes_op_read.sum")],
        []
    ),
    metric!(
        "dram_bytes_write",
        "DRAM bytes written",
        [n("dram__bytes_write.sum"), n("dram__bytes_op_write.sum")],
        []
    ),
    metric!(
        "inst_ffma",
        "FP32 fused multiply-adds (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_ffma_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_fadd",
        "FP32 adds (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_fadd_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_fmul",
        "FP32 multiplies (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_fmul_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_dfma",
        "FP64 fused multiply-adds (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_dfma_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_dadd",
        "FP64 adds (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_dadd_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_dmul",
        "FP64 multiplies (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_dmul_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_dmul_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_hfma",
        "FP16 fused multiply-adds (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_hfma_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_hadd",
        "FP16 adds (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_hadd_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_hadd_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "inst_hmul",
        "FP16 multiplies (thread instructions)",
        [
            n("sm__sass_thread_inst_executed_op_hmul_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_hmul_pred_on.sum"),
            per_cycle(
                "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum.per_cycle_elapsed",
                "smsp__cycles_elapsed.avg"
            )
        ],
        []
    ),
    metric!(
        "tensor_pipe_pct",
        "tensor pipe active cycles, % of peak",
        [
            n("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed"),
            n(
                "sm__pipe_tensor_type_hmma_hgmma_qgmma_imma_igmma_bmma_bgmma_cycles_active.avg.pct_of_peak_sustained_elapsed"
            )
        ],
        []
    ),
    metric!(
        "sm_clock_hz",
        "SM clock during the kernel, Hz",
        [n("sm__cycles_elapsed.avg.per_second")],
        ["GPU Speed Of Light Throughput/SM Frequency"]
    ),
    metric!(
        "dram_clock_hz",
        "DRAM clock during the kernel, Hz",
        [n("dram__cycles_elapsed.avg.per_second")],
        ["GPU Speed Of Light Throughput/DRAM Frequency"]
    ),
    metric!(
        "ffma_peak_per_cycle",
        "peak FP32 FMAs per SM-cycle, whole device",
        [n(
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"
        )],
        []
    ),
    metric!(
        "dfma_peak_per_cycle",
        "peak FP64 FMAs per SM-cycle, whole device",
        [n(
            "sm__sass_thread_inst_executed_op_dfma_pred_on.sum.peak_sustained"
        )],
        []
    ),
    metric!(
        "dram_bytes_peak_per_cycle",
        "peak DRAM bytes per DRAM cycle, whole device",
        [n("dram__bytes.sum.peak_sustained")],
        []
    ),
];

/// A quantity computed from other metrics (the arithmetic is in [`derive`]).
pub struct Derived {
    pub key: &'static str,
    pub doc: &'static str,
    /// What it is computed from, so that `gpulint run` can collect the inputs.
    pub inputs: &'static [&'static str],
}

macro_rules! derived {
    ($key:literal, $doc:literal, [$($input:literal),* $(,)?]) => {
        Derived { key: $key, doc: $doc, inputs: &[$($input),*] }
    };
}

pub static DERIVED: &[Derived] = &[
    derived!(
        "useful_bytes_per_request_ld",
        "bytes_per_sector_ld x sectors_per_request_ld",
        ["bytes_per_sector_ld", "sectors_per_request_ld"]
    ),
    derived!(
        "useful_bytes_per_request_st",
        "as for loads",
        ["bytes_per_sector_st", "sectors_per_request_st"]
    ),
    derived!(
        "ideal_sectors_per_request_ld",
        "fewest 32-byte sectors that hold the useful bytes of one request",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "sectors_ld"
        ]
    ),
    derived!(
        "ideal_sectors_per_request_st",
        "as for loads",
        [
            "bytes_per_sector_st",
            "sectors_per_request_st",
            "sectors_st"
        ]
    ),
    derived!(
        "excess_sectors_per_request_ld",
        "sectors_per_request_ld - ideal_sectors_per_request_ld",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "sectors_ld"
        ]
    ),
    derived!(
        "excess_sectors_per_request_st",
        "as for loads",
        [
            "bytes_per_sector_st",
            "sectors_per_request_st",
            "sectors_st"
        ]
    ),
    derived!(
        "excess_sector_share_ld",
        "share of fetched load sectors that carry no useful byte",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "sectors_ld"
        ]
    ),
    derived!(
        "excess_sector_share_st",
        "as for loads",
        [
            "bytes_per_sector_st",
            "sectors_per_request_st",
            "sectors_st"
        ]
    ),
    derived!(
        "efficiency_ld_pct",
        "bytes_per_sector_ld / 32, in %",
        ["bytes_per_sector_ld"]
    ),
    derived!("efficiency_st_pct", "as for loads", ["bytes_per_sector_st"]),
    derived!(
        "global_share_ld",
        "share of the kernel's global sectors that are loads",
        ["sectors_ld", "sectors_st"]
    ),
    derived!(
        "global_share_st",
        "share of the kernel's global sectors that are stores",
        ["sectors_ld", "sectors_st"]
    ),
    derived!(
        "mixed_access_ld",
        "1 when sectors per load request is no single access pattern's value: an average over different load instructions",
        ["sectors_per_request_ld"]
    ),
    derived!(
        "mixed_access_st",
        "the same for stores",
        ["sectors_per_request_st"]
    ),
    derived!("warps_per_block", "ceil(block_size / 32)", ["block_size"]),
    derived!(
        "partial_warp_lanes",
        "threads in the last, partly filled warp of a block (0 when full)",
        ["block_size"]
    ),
    derived!(
        "occupancy_limit_min",
        "fewest blocks per SM over the warp, block, register and shared-memory limits",
        [
            "limit_warps",
            "limit_blocks",
            "limit_registers",
            "limit_shared_mem"
        ]
    ),
    derived!(
        "shared_mem_per_block",
        "static + dynamic shared memory per block, bytes",
        [
            "shared_mem_static_per_block",
            "shared_mem_dynamic_per_block"
        ]
    ),
    derived!(
        "local_sectors",
        "local_sectors_ld + local_sectors_st",
        ["local_sectors_ld", "local_sectors_st"]
    ),
    derived!(
        "local_share",
        "share of L1 global+local sectors that are local memory",
        [
            "local_sectors_ld",
            "local_sectors_st",
            "sectors_ld",
            "sectors_st"
        ]
    ),
    derived!(
        "shared_wavefronts",
        "shared_wavefronts_ld + shared_wavefronts_st",
        ["shared_wavefronts_ld", "shared_wavefronts_st"]
    ),
    derived!(
        "bank_conflicts",
        "bank_conflicts_ld + bank_conflicts_st",
        ["bank_conflicts_ld", "bank_conflicts_st"]
    ),
    derived!(
        "bank_conflict_share",
        "bank conflicts / shared-memory wavefronts (0 without shared-memory traffic)",
        [
            "bank_conflicts_ld",
            "bank_conflicts_st",
            "shared_wavefronts_ld",
            "shared_wavefronts_st"
        ]
    ),
    derived!(
        "sm_throughput_subunits",
        "present only when sm_throughput_pct is not ncu's sm__throughput but the maximum of this many of its sub-units (the *_inst_pct, issue_slots_pct, mio_queue_read_pct and shared_pipe_pct keys): a lower bound, equal to ncu's within 0.05 points on 268 of 268 H200 launches",
        [
            "issue_slots_pct",
            "lsu_inst_pct",
            "adu_inst_pct",
            "mio_inst_pct",
            "mio_queue_read_pct",
            "shared_pipe_pct"
        ]
    ),
    derived!(
        "memory_throughput_subunits",
        "present only when memory_throughput_pct is not ncu's gpu__compute_memory_throughput but the maximum of this many of its sub-units (l1_data_pipe_pct, l2_input_pct, l2_tag_pct, l2_throughput_pct, dram_active_pct): a lower bound, within 2.4 points of ncu's on 268 of 268 H200 launches",
        [
            "l1_data_pipe_pct",
            "l2_input_pct",
            "l2_tag_pct",
            "l2_throughput_pct",
            "dram_active_pct"
        ]
    ),
    derived!(
        "memory_throughput_floor_pct",
        "the least the memory system is busy, % of peak: memory_throughput_pct where known, else the busiest of the sub-units the export has (DRAM, L2 sectors, L1 data pipe, ...); for exports that carry only some of them",
        [
            "dram_throughput_pct",
            "l2_throughput_pct",
            "l1_data_pipe_pct"
        ]
    ),
    derived!(
        "dram_headroom",
        "1 - dram_throughput_pct / 100: the most of a kernel's time a fix that moves the same bytes through DRAM can save (it cannot beat moving them at peak bandwidth); 1 when the export has no DRAM throughput (no bound known)",
        ["dram_throughput_pct"]
    ),
    derived!(
        "l1_pipe_headroom",
        "1 - the busier of issue slots and DRAM, over the L1 data pipe's utilisation: the most of a kernel's time that relieving its load/store pipe (bank conflicts, loads per FMA) can save before the next busiest unit sets the time; 1 when the export lacks the pipe's utilisation (no bound known)",
        ["l1_data_pipe_pct", "issue_slots_pct", "dram_throughput_pct"]
    ),
    derived!(
        "busiest_throughput_pct",
        "max(sm_throughput_pct, memory_throughput_pct)",
        ["sm_throughput_pct", "memory_throughput_pct"]
    ),
    derived!(
        "flop_pct_of_peak",
        "FP32 FLOP/s (add + mul + 2 x fma) as % of the FP32 peak (2 x ffma_peak_per_cycle x sm_clock_hz), or the FP64 share of the FP64 peak where that is larger",
        [
            "inst_fadd",
            "inst_fmul",
            "inst_ffma",
            "ffma_peak_per_cycle",
            "sm_clock_hz",
            "duration_ns"
        ]
    ),
    derived!(
        "row_segments_per_request",
        "contiguous row segments one warp-wide request covers: 32 / block_dim_x lanes per row when blockDim.x < 32 (2 for 16x16 blocks), else 1",
        ["block_dim_x", "block_size"]
    ),
    derived!(
        "misaligned_ld",
        "1 when global loads take about one sector per row segment more than their bytes need (sector-straddling rows, not a stride); 0 otherwise",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "sectors_ld",
            "block_dim_x",
            "block_size"
        ]
    ),
    derived!(
        "misaligned_st",
        "the same for global stores",
        [
            "bytes_per_sector_st",
            "sectors_per_request_st",
            "sectors_st",
            "block_dim_x",
            "block_size"
        ]
    ),
    derived!(
        "grid_warps",
        "warps the grid launches: grid_blocks x warps_per_block",
        ["grid_blocks", "block_size"]
    ),
    derived!(
        "warp_slots",
        "warps the device can hold at once: sm_count x max_warps_per_sm (or the warp limit's blocks x warps per block)",
        ["sm_count", "max_warps_per_sm"]
    ),
    derived!(
        "grid_slot_fill_pct",
        "grid_warps / warp_slots in %, at most 100: how much of the machine the grid can keep busy",
        ["grid_blocks", "block_size", "sm_count", "max_warps_per_sm"]
    ),
    derived!(
        "mostly_serial",
        "1 when fewer than a quarter of the lanes a warp has (min(block_size, 32)) are active per executed instruction: one thread, or a few, does the work; 0 when more are, or when the export lacks threads_per_inst (absent evidence suppresses nothing)",
        ["threads_per_inst", "block_size"]
    ),
    Derived {
        key: "stall_total",
        doc: "warp cycles per issued instruction over the stall reasons gpulint collects",
        inputs: &STALL_KEYS,
    },
    // Computed with stall_total, from the same nine reasons.
    Derived {
        key: "stall_top",
        doc: "the largest stall reason that is a cause (all but selected and not_selected), cycles per issued instruction",
        inputs: &STALL_KEYS,
    },
];

/// The stall reasons gpulint collects: the ones that cost no replay pass beyond the
/// rest of its list on an H200 (docs/runs/2026-11-30-corpus-measure.txt).
pub const STALL_KEYS: [&str; 9] = [
    "stall_long_scoreboard",
    "stall_barrier",
    "stall_short_scoreboard",
    "stall_mio_throttle",
    "stall_math_pipe_throttle",
    "stall_no_instruction",
    "stall_not_selected",
    "stall_selected",
    "stall_wait",
];

/// ncu adds these on the raw page by itself, and derived__ values exist only in section
/// output: none of them may be passed to `--metrics`. The others here cost several replay
/// passes each (measured with samples/passes_per_metric.sh on an H200: sm__throughput 9,
/// gpu__compute_memory_throughput 6, each sectors-per-request ratio 3); `gpulint run`
/// collects cheaper inputs for the same quantities, see [`COLLECT_INSTEAD`].
fn not_collected(name: &str) -> bool {
    [
        "launch__",
        "device__",
        "derived__",
        "profiler__",
        "sm__maximum_warps",
    ]
    .iter()
    .any(|p| name.starts_with(p))
        || [
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
            "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio",
        ]
        .contains(&name)
}

/// Sub-units of ncu's sm__throughput whose maximum equals it (within 0.05 points) on
/// all 268 launches of the H200 `--set full` captures in fixtures/; `issue_slots_pct`
/// first, the one every chip has. Never above ncu's figure: a lower bound by definition.
pub const COMPUTE_PARTS: &[&str] = &[
    "issue_slots_pct",
    "lsu_inst_pct",
    "adu_inst_pct",
    "mio_inst_pct",
    "mio_queue_read_pct",
    "shared_pipe_pct",
];

/// As [`COMPUTE_PARTS`], for gpu__compute_memory_throughput: within 2.4 points on all 268
/// launches (L1 data pipe, DRAM, L2 input, tags and sectors). `l1_data_pipe_pct` first.
pub const MEMORY_PARTS: &[&str] = &[
    "l1_data_pipe_pct",
    "l2_input_pct",
    "l2_tag_pct",
    "l2_throughput_pct",
    "dram_active_pct",
];

/// Keys that [`derive`] computes from others when an export lacks them: what
/// `gpulint run` collects for them.
const COLLECT_INSTEAD: &[(&str, &[&str])] = &[
    ("sm_throughput_pct", COMPUTE_PARTS),
    ("memory_throughput_pct", MEMORY_PARTS),
    ("sectors_per_request_ld", &["sectors_ld", "requests_ld"]),
    ("sectors_per_request_st", &["sectors_st", "requests_st"]),
];

/// The ncu metric names to pass to `--metrics` so that `keys` (canonical or derived)
/// can be resolved: the first collectable source of each, sorted and without repeats.
pub fn collection_list<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    collection_plan(keys, None).metrics
}

/// What `gpulint run` asks ncu for on one chip, and what that chip cannot give.
#[derive(Debug, Default)]
pub struct Plan {
    pub metrics: Vec<&'static str>,
    /// Canonical keys none of whose sources exist on the chip.
    pub unavailable: Vec<&'static str>,
}

/// As [`collection_list`], on `chip` when known: each key from the first of its sources
/// that exists there (`dram__bytes_op_read` on GB20x, say); keys with none are listed as
/// unavailable, and the rules that read them are skipped.
pub fn collection_plan<'a>(
    keys: impl IntoIterator<Item = &'a str>,
    chip: Option<crate::chips::Chip>,
) -> Plan {
    let mut plan = Plan::default();
    let mut stack: Vec<&str> = keys.into_iter().collect();
    let exists = |name: &str| chip.is_none_or(|c| c.has(name));
    while let Some(key) = stack.pop() {
        if let Some(d) = DERIVED.iter().find(|d| d.key == key) {
            stack.extend(d.inputs.iter().copied());
        } else if let Some((_, inputs)) = COLLECT_INSTEAD.iter().find(|(k, _)| *k == key) {
            stack.extend(inputs.iter().copied());
        } else if let Some(d) = def(key) {
            let collectable = d.sources.iter().filter(|s| !not_collected(s.name));
            let mut any = false;
            for src in collectable.clone() {
                if exists(src.name) && src.times.is_none_or(exists) {
                    plan.metrics.push(src.name);
                    plan.metrics.extend(src.times);
                    any = true;
                    break;
                }
            }
            if !any && collectable.count() > 0 {
                plan.unavailable.push(d.key);
            }
        }
    }
    plan.metrics.sort_unstable();
    plan.metrics.dedup();
    plan.unavailable.sort_unstable();
    plan.unavailable.dedup();
    plan
}

/// ncu's section identifiers (`--section NAME`) by the name the details page shows.
const SECTION_IDS: &[(&str, &str)] = &[
    ("GPU Speed Of Light Throughput", "SpeedOfLight"),
    ("GPU Speed Of Light", "SpeedOfLight"),
    ("Launch Statistics", "LaunchStats"),
    ("Occupancy", "Occupancy"),
    ("Memory Workload Analysis", "MemoryWorkloadAnalysis"),
    ("Warp State Statistics", "WarpStateStats"),
];

/// The ncu sections (`--section` identifiers) whose details-page labels give `key`, or
/// `None` when some of what it needs is only on the raw page (no label).
pub fn sections_giving(key: &str) -> Option<Vec<&'static str>> {
    let mut sections = Vec::new();
    let mut stack = vec![key];
    while let Some(key) = stack.pop() {
        if let Some(d) = def(key).filter(|d| !d.labels.is_empty()) {
            let shown = d.labels[0].split('/').next().unwrap_or_default();
            let id = SECTION_IDS.iter().find(|(name, _)| *name == shown)?.1;
            sections.push(id);
        } else if let Some(d) = DERIVED.iter().find(|d| d.key == key) {
            stack.extend(d.inputs.iter().copied());
        } else {
            return None;
        }
    }
    sections.sort_unstable();
    sections.dedup();
    Some(sections)
}

/// Whether a key is a count (sectors, requests, bytes, instructions, wavefronts, the
/// duration) rather than a rate, share or ratio: ncu sums counters over the GPU
/// (`.sum`), and a few derived keys add counts up.
pub fn is_count(key: &str) -> bool {
    const DERIVED_COUNTS: &[&str] = &[
        "local_spill_requests",
        "local_sectors",
        "shared_wavefronts",
        "bank_conflicts",
        "grid_warps",
        "warp_slots",
    ];
    DERIVED_COUNTS.contains(&key)
        || def(key).is_some_and(|d| d.sources.first().is_some_and(|s| s.name.ends_with(".sum")))
}

/// Looks a metric up by key.
pub fn def(key: &str) -> Option<&'static MetricDef> {
    METRICS.iter().find(|m| m.key == key)
}

/// The ncu metric names gpulint can read: what ingest keeps from a raw page, and what
/// `gpulint run` asks ncu to collect.
pub fn source_names() -> impl Iterator<Item = &'static str> {
    METRICS
        .iter()
        .flat_map(|m| m.sources.iter())
        .flat_map(|s| std::iter::once(s.name).chain(s.times))
}

/// The values one launch carries, keyed by ncu metric name or by `Section/Label`.
pub type RawValues<'a> = rustc_hash::FxHashMap<&'a str, f64>;

/// A launch's canonical and derived metrics. Keys are the static names of
/// [`METRICS`] and [`DERIVED`], so a launch's map holds no strings of its own.
pub type Metrics = BTreeMap<&'static str, f64>;

/// The static name of a canonical or derived metric.
pub fn key(name: &str) -> Option<&'static str> {
    static KEYS: std::sync::OnceLock<HashSet<&'static str>> = std::sync::OnceLock::new();
    let keys = KEYS.get_or_init(|| {
        METRICS
            .iter()
            .map(|m| m.key)
            .chain(DERIVED.iter().map(|d| d.key))
            .collect()
    });
    keys.get(name).copied()
}

/// Resolves canonical metrics for one launch, then adds the derived ones.
pub fn resolve(raw: &RawValues) -> Metrics {
    let mut out = Metrics::new();
    for def in METRICS {
        if let Some(v) = resolve_one(def, raw) {
            out.insert(def.key, v);
        }
    }
    derive(&mut out);
    out
}

/// Gives a launch whose export lacks them the device's SM count and warps per SM (from
/// gpulint's GPU table, by device name), and what they let be derived. Returns the keys
/// it filled.
pub fn fill_device_shape(
    m: &mut Metrics,
    sm_count: f64,
    max_warps_per_sm: f64,
) -> Vec<&'static str> {
    let mut filled = Vec::new();
    for (name, value) in [
        ("sm_count", sm_count),
        ("max_warps_per_sm", max_warps_per_sm),
    ] {
        if !m.contains_key(name) {
            let k = key(name).expect("a metric");
            m.insert(k, value);
            filled.push(k);
        }
    }
    if !filled.is_empty() {
        derive_grid_fill(m);
    }
    filled
}

fn resolve_one(def: &MetricDef, raw: &RawValues) -> Option<f64> {
    for src in def.sources {
        if let Some(v) = raw.get(src.name) {
            match src.times {
                None => return Some(*v),
                Some(cycles) => {
                    if let Some(c) = raw.get(cycles) {
                        return Some(v * c);
                    }
                }
            }
        }
    }
    def.labels.iter().find_map(|l| raw.get(*l).copied())
}

/// Sectors one warp-wide request needs at best for this many useful bytes: a kernel
/// average, so a small tolerance keeps 4.02 from rounding up to 5.
fn ideal_sectors(useful_bytes: f64) -> f64 {
    (useful_bytes / 32.0 - 0.05).ceil().max(1.0)
}

fn get(m: &Metrics, k: &str) -> Option<f64> {
    m.get(k).copied()
}

/// Sets a derived key unless the export had it; a non-finite value is no value.
fn put(m: &mut Metrics, k: &str, v: Option<f64>) {
    if let Some(v) = v.filter(|v| v.is_finite()) {
        let k = key(k).unwrap_or_else(|| panic!("derived metric `{k}` is not in DERIVED"));
        m.entry(k).or_insert(v);
    }
}

/// How a kernel is launched rather than what it did: the device's SMs and warp slots, and
/// the serial-code guard (a property of the kernel's code).
const LAUNCH_ATTRIBUTES: &[&str] = &["sm_count", "max_warps_per_sm", "threads_per_inst"];

/// What sets the blocks per SM: true of another launch only with the same block,
/// registers and shared memory.
const OCCUPANCY_ATTRIBUTES: &[&str] = &[
    "registers_per_thread",
    "shared_mem_static_per_block",
    "shared_mem_dynamic_per_block",
    "limit_blocks",
    "limit_warps",
    "limit_registers",
    "limit_shared_mem",
    "theoretical_occupancy_pct",
];

/// The metrics of a launch known only by its shape (one a launch trace saw and ncu did
/// not profile), for the launch-shape rules: the attributes of a profiled launch `like`
/// it, with its own grid, block and duration. The occupancy limits are `like`'s only when
/// `same_resources` (same block, registers and shared memory); otherwise they are absent.
pub fn launch_shape_metrics(
    like: &Metrics,
    grid: [u64; 3],
    block: [u64; 3],
    duration_ns: Option<f64>,
    same_resources: bool,
) -> Metrics {
    let mut m: Metrics = like
        .iter()
        .filter(|(k, _)| {
            LAUNCH_ATTRIBUTES.contains(k) || (same_resources && OCCUPANCY_ATTRIBUTES.contains(k))
        })
        .map(|(k, v)| (*k, *v))
        .collect();
    let product = |d: [u64; 3]| d.iter().product::<u64>() as f64;
    put(&mut m, "grid_blocks", Some(product(grid)));
    put(&mut m, "block_size", Some(product(block)));
    put(&mut m, "block_dim_x", Some(block[0] as f64));
    put(&mut m, "duration_ns", duration_ns);
    derive(&mut m);
    m
}

/// Adds every derived quantity whose inputs the launch has, in dependency order.
fn derive(m: &mut Metrics) {
    for dir in ["ld", "st"] {
        derive_access(m, dir);
    }
    derive_traffic_shares(m);
    derive_launch_shape(m);
    derive_local_and_shared(m);
    derive_throughput(m);
    derive_row_segments(m);
    derive_grid_fill(m);
    derive_warp_states(m);
}

/// Sectors per request, the fewest sectors the useful bytes need, the excess, and
/// whether the average mixes access patterns, for loads or stores.
fn derive_access(m: &mut Metrics, dir: &str) {
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let spr = ratio(
        get(m, &format!("sectors_{dir}")),
        get(m, &format!("requests_{dir}")),
    );
    put(m, &format!("sectors_per_request_{dir}"), spr);
    let spr = get(m, &format!("sectors_per_request_{dir}"));
    let bps = get(m, &format!("bytes_per_sector_{dir}"));
    // A zero useful-bytes ratio on real traffic means the SASS byte counter did not see
    // these accesses (cp.async / LDGSTS and TMA copies bypass it): unknown, not 0%.
    let sectors = get(m, &format!("sectors_{dir}"));
    let bps = bps.filter(|b| *b > 0.0 || sectors.is_none_or(|s| s == 0.0));
    if let (Some(spr), Some(bps)) = (spr, bps) {
        let useful = bps * spr;
        let ideal = ideal_sectors(useful);
        put(m, &format!("useful_bytes_per_request_{dir}"), Some(useful));
        put(m, &format!("ideal_sectors_per_request_{dir}"), Some(ideal));
        put(
            m,
            &format!("excess_sectors_per_request_{dir}"),
            Some((spr - ideal).max(0.0)),
        );
        put(
            m,
            &format!("excess_sector_share_{dir}"),
            (spr > 0.0).then(|| ((spr - ideal) / spr).max(0.0)),
        );
    }
    if let Some(bps) = bps {
        put(
            m,
            &format!("efficiency_{dir}_pct"),
            Some(bps / 32.0 * 100.0),
        );
    }
    // No global access of this kind at all: nothing is wasted.
    if sectors == Some(0.0) {
        for k in [
            "excess_sector_share",
            "excess_sectors_per_request",
            "ideal_sectors_per_request",
        ] {
            put(m, &format!("{k}_{dir}"), Some(0.0));
        }
    }
    if let Some(spr) = get(m, &format!("sectors_per_request_{dir}")) {
        // Uniform access patterns give these averages; anything else mixes patterns.
        const PURE: [f64; 9] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 5.0, 9.0, 17.0];
        let pure = PURE.iter().any(|p| (spr - p).abs() <= 0.15);
        put(
            m,
            &format!("mixed_access_{dir}"),
            Some(if pure { 0.0 } else { 1.0 }),
        );
    }
}

/// The shares of the kernel's global sectors that are loads and stores.
fn derive_traffic_shares(m: &mut Metrics) {
    if let (Some(ld), Some(st)) = (get(m, "sectors_ld"), get(m, "sectors_st")) {
        let total = ld + st;
        let share = |x: f64| Some(if total > 0.0 { x / total } else { 0.0 });
        put(m, "global_share_ld", share(ld));
        put(m, "global_share_st", share(st));
    }
}

/// Warps per block, the lanes of a partial warp, shared memory per block, and the
/// binding occupancy limit.
fn derive_launch_shape(m: &mut Metrics) {
    if let Some(b) = get(m, "block_size") {
        put(m, "warps_per_block", Some((b / 32.0).ceil()));
        put(m, "partial_warp_lanes", Some(b % 32.0));
    }
    let limits: Option<Vec<f64>> = [
        "limit_warps",
        "limit_blocks",
        "limit_registers",
        "limit_shared_mem",
    ]
    .iter()
    .map(|k| get(m, k))
    .collect();
    put(
        m,
        "occupancy_limit_min",
        limits.map(|l| l.into_iter().fold(f64::INFINITY, f64::min)),
    );
    if let (Some(st), Some(dy)) = (
        get(m, "shared_mem_static_per_block"),
        get(m, "shared_mem_dynamic_per_block"),
    ) {
        put(m, "shared_mem_per_block", Some(st + dy));
    }
}

/// Local-memory traffic against global, and bank conflicts against shared wavefronts.
fn derive_local_and_shared(m: &mut Metrics) {
    // ncu prints "no data" for the spill overhead when there was no spill request (0 of
    // 0 requests): no spills is no overhead, not an unknown one.
    if get(m, "local_spill_requests") == Some(0.0) {
        put(m, "local_spill_overhead_pct", Some(0.0));
    }
    if let (Some(l_ld), Some(l_st)) = (get(m, "local_sectors_ld"), get(m, "local_sectors_st")) {
        let local = l_ld + l_st;
        put(m, "local_sectors", Some(local));
        if let (Some(ld), Some(st)) = (get(m, "sectors_ld"), get(m, "sectors_st")) {
            let total = local + ld + st;
            put(
                m,
                "local_share",
                Some(if total > 0.0 { local / total } else { 0.0 }),
            );
        }
    }
    if let (Some(w_ld), Some(w_st)) = (
        get(m, "shared_wavefronts_ld"),
        get(m, "shared_wavefronts_st"),
    ) {
        put(m, "shared_wavefronts", Some(w_ld + w_st));
        if let (Some(c_ld), Some(c_st)) = (get(m, "bank_conflicts_ld"), get(m, "bank_conflicts_st"))
        {
            put(m, "bank_conflicts", Some(c_ld + c_st));
            // No shared-memory traffic: no conflicts, rather than an unknown share.
            let share = if w_ld + w_st > 0.0 {
                (c_ld + c_st) / (w_ld + w_st)
            } else {
                0.0
            };
            put(m, "bank_conflict_share", Some(share));
        }
    }
}

/// Compute and memory throughput from their parts when ncu's combined figures are
/// missing, the least memory is busy, and the busier of compute and memory.
fn derive_throughput(m: &mut Metrics) {
    from_parts(
        m,
        "sm_throughput_pct",
        COMPUTE_PARTS,
        "sm_throughput_subunits",
    );
    from_parts(
        m,
        "memory_throughput_pct",
        MEMORY_PARTS,
        "memory_throughput_subunits",
    );
    // Every one of these is a sub-unit of gpu__compute_memory_throughput: never above it.
    let floor = ["memory_throughput_pct", "dram_throughput_pct"]
        .iter()
        .chain(MEMORY_PARTS)
        .filter_map(|k| get(m, k))
        .reduce(f64::max);
    put(m, "memory_throughput_floor_pct", floor);
    let dram = get(m, "dram_throughput_pct").map_or(0.0, |d| d.clamp(0.0, 100.0));
    put(m, "dram_headroom", Some(1.0 - dram / 100.0));
    // Time follows the busiest unit: the pipe's share above the next busiest is what a fix
    // that only relieves the pipe can take.
    let next = get(m, "issue_slots_pct").unwrap_or(0.0).max(dram);
    let l1_headroom = get(m, "l1_data_pipe_pct")
        .filter(|p| *p > 0.0)
        .map_or(1.0, |p| (1.0 - next / p).clamp(0.0, 1.0));
    put(m, "l1_pipe_headroom", Some(l1_headroom));
    if let (Some(sm), Some(mem)) = (get(m, "sm_throughput_pct"), get(m, "memory_throughput_pct")) {
        put(m, "busiest_throughput_pct", Some(sm.max(mem)));
    }
    derive_flop_share(m);
}

/// Fills `key` with the maximum of the sub-units present when the export lacks ncu's own
/// figure and has the first sub-unit, and records how many were taken in `count_key`:
/// the JSON and `gpulint keys` then say the number is that lower bound, not ncu's.
/// Older captures with other stand-ins get neither (the rules that read it are skipped).
fn from_parts(m: &mut Metrics, key: &'static str, parts: &[&str], count_key: &'static str) {
    if m.contains_key(key) || get(m, parts[0]).is_none() {
        return;
    }
    let present: Vec<f64> = parts.iter().filter_map(|p| get(m, p)).collect();
    put(m, key, present.iter().copied().reduce(f64::max));
    put(m, count_key, Some(present.len() as f64));
}

/// FP32 or FP64 arithmetic.
#[derive(Debug, Clone, Copy)]
pub enum Precision {
    Fp32,
    Fp64,
}

/// FLOPs of one precision from its thread-instruction counts: add + mul + 2 x fma; `None`
/// when a count is missing. The roofline and `flop_pct_of_peak` both count this way.
pub fn flops(m: &Metrics, precision: Precision) -> Option<f64> {
    let [add, mul, fma] = match precision {
        Precision::Fp32 => ["inst_fadd", "inst_fmul", "inst_ffma"],
        Precision::Fp64 => ["inst_dadd", "inst_dmul", "inst_dfma"],
    };
    Some(get(m, add)? + get(m, mul)? + 2.0 * get(m, fma)?)
}

/// How much of the FP32 (or FP64) peak the kernel's arithmetic reaches: what the roofline
/// calls % of roof for a compute-bound kernel, from the profile's own peaks and clock.
fn derive_flop_share(m: &mut Metrics) {
    let seconds = get(m, "duration_ns").map(|d| d * 1e-9).filter(|s| *s > 0.0);
    let clock = get(m, "sm_clock_hz");
    let share = |precision: Precision, peak: &str| -> Option<f64> {
        let flops = flops(m, precision)?;
        let peak = 2.0 * get(m, peak)? * clock?;
        let seconds = seconds?;
        (peak > 0.0).then(|| flops / seconds / peak * 100.0)
    };
    let fp32 = share(Precision::Fp32, "ffma_peak_per_cycle");
    let fp64 = share(Precision::Fp64, "dfma_peak_per_cycle");
    if let Some(fp32) = fp32 {
        put(
            m,
            "flop_pct_of_peak",
            Some(fp64.map_or(fp32, |d| d.max(fp32))),
        );
    }
}

/// Serial code and the stall reasons: what a latency-bound kernel waits on.
fn derive_warp_states(m: &mut Metrics) {
    // A guard, not a measurement: without the counter nothing counts as serial.
    let serial = match (get(m, "threads_per_inst"), get(m, "block_size")) {
        (Some(t), Some(b)) if b > 0.0 => t < 0.25 * b.min(32.0),
        _ => false,
    };
    put(m, "mostly_serial", Some(if serial { 1.0 } else { 0.0 }));
    let stalls: Option<Vec<f64>> = STALL_KEYS.iter().map(|k| get(m, k)).collect();
    if let Some(stalls) = stalls {
        put(m, "stall_total", Some(stalls.iter().sum()));
        let causes = STALL_KEYS
            .iter()
            .zip(&stalls)
            .filter(|(k, _)| !k.ends_with("selected"))
            .map(|(_, v)| *v);
        put(m, "stall_top", Some(causes.fold(0.0, f64::max)));
    }
}

/// Misalignment adds one sector per contiguous row segment a request covers: a warp of
/// a 16x16 block covers two 64-byte rows, so a one-element halo offset turns 4 sectors
/// into 6; a 16-thread block's request covers one row, 2 sectors into 3.
fn derive_row_segments(m: &mut Metrics) {
    let get = |m: &Metrics, k: &str| m.get(k).copied();
    let (Some(dim_x), Some(block)) = (get(m, "block_dim_x"), get(m, "block_size")) else {
        return;
    };
    if dim_x < 1.0 {
        return;
    }
    let lanes = block.min(32.0);
    let segments = if dim_x >= 32.0 {
        1.0
    } else {
        (lanes / dim_x).ceil().max(1.0)
    };
    m.insert(
        key("row_segments_per_request").expect("in DERIVED"),
        segments,
    );
    for dir in ["ld", "st"] {
        let excess = get(m, &format!("excess_sectors_per_request_{dir}"));
        let ideal = get(m, &format!("ideal_sectors_per_request_{dir}"));
        if let (Some(excess), Some(ideal)) = (excess, ideal) {
            // One extra sector per segment, each segment at least two sectors wide (a
            // one-sector segment that takes two is as much a stride as a shift).
            let per_segment = excess / segments;
            let misaligned = ideal >= 2.0 * segments && (0.5..=1.2).contains(&per_segment);
            let k = key(&format!("misaligned_{dir}")).expect("in DERIVED");
            m.insert(k, if misaligned { 1.0 } else { 0.0 });
        }
    }
}

/// The warps a grid provides against the warp slots of the whole device.
fn derive_grid_fill(m: &mut Metrics) {
    let get = |m: &Metrics, k: &str| m.get(k).copied();
    let (Some(blocks), Some(block)) = (get(m, "grid_blocks"), get(m, "block_size")) else {
        return;
    };
    let warps_per_block = (block / 32.0).ceil();
    let grid_warps = blocks * warps_per_block;
    m.insert(key("grid_warps").expect("in DERIVED"), grid_warps);
    // Exports without the device attribute (details pages) still carry the warp limit.
    let per_sm =
        get(m, "max_warps_per_sm").or_else(|| get(m, "limit_warps").map(|l| l * warps_per_block));
    if let (Some(sms), Some(per_sm)) = (get(m, "sm_count"), per_sm)
        && sms * per_sm > 0.0
    {
        let slots = sms * per_sm;
        m.insert(key("warp_slots").expect("in DERIVED"), slots);
        let fill = (grid_warps / slots * 100.0).min(100.0);
        m.insert(key("grid_slot_fill_pct").expect("in DERIVED"), fill);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LU's perimeter kernel as the GUI's Summary page gives it: 14 blocks of 32 threads,
    /// no SM count. The table's shape fills the gap; an export's own count is kept.
    #[test]
    fn a_device_shape_fills_only_what_the_export_lacks() {
        let mut raw = RawValues::default();
        raw.insert("launch__grid_size", 14.0);
        raw.insert("launch__block_size", 32.0);
        let mut m = resolve(&raw);
        assert!(!m.contains_key("grid_slot_fill_pct"));
        assert_eq!(
            fill_device_shape(&mut m, 132.0, 64.0),
            ["sm_count", "max_warps_per_sm"]
        );
        assert_eq!(m["warp_slots"], 8448.0);
        assert!((m["grid_slot_fill_pct"] - 14.0 / 8448.0 * 100.0).abs() < 1e-9);
        assert!(fill_device_shape(&mut m, 40.0, 32.0).is_empty());
        assert_eq!(m["sm_count"], 132.0);
    }

    /// LU's internal kernel as ncu profiled its first launch on the H200 (63x63 blocks of
    /// 16x16), standing for a traced tail launch of 4x4 blocks.
    #[test]
    fn a_traced_launch_takes_the_attributes_but_not_the_grid_of_the_launch_like_it() {
        let profiled: Metrics = [
            ("sm_count", 132.0),
            ("max_warps_per_sm", 64.0),
            ("threads_per_inst", 32.0),
            ("registers_per_thread", 32.0),
            ("limit_blocks", 32.0),
            ("limit_warps", 8.0),
            ("limit_registers", 8.0),
            ("limit_shared_mem", 32.0),
            ("theoretical_occupancy_pct", 100.0),
            ("achieved_occupancy_pct", 91.0),
            ("grid_blocks", 3969.0),
            ("duration_ns", 9000.0),
        ]
        .into_iter()
        .collect();
        let m = launch_shape_metrics(&profiled, [4, 4, 1], [16, 16, 1], Some(2500.0), true);
        assert_eq!(m["grid_blocks"], 16.0);
        assert_eq!(m["duration_ns"], 2500.0);
        assert_eq!(m["limit_warps"], 8.0);
        assert_eq!(m["occupancy_limit_min"], 8.0);
        // 16 blocks of 8 warps on 132 SMs of 64 warp slots.
        assert_eq!(m["grid_warps"], 128.0);
        assert!((m["grid_slot_fill_pct"] - 128.0 / 8448.0 * 100.0).abs() < 1e-9);
        // What the profiled launch measured is not the traced launch's.
        assert!(!m.contains_key("achieved_occupancy_pct"));
        let other = launch_shape_metrics(&profiled, [4, 4, 1], [32, 8, 1], None, false);
        for key in [
            "limit_warps",
            "occupancy_limit_min",
            "theoretical_occupancy_pct",
        ] {
            assert!(!other.contains_key(key), "{key}");
        }
        assert_eq!(other["sm_count"], 132.0);
        assert!(!other.contains_key("duration_ns"));
    }

    #[test]
    fn a_missing_metric_names_the_sections_that_give_it() {
        assert_eq!(sections_giving("sm_count"), Some(vec!["LaunchStats"]));
        assert_eq!(
            sections_giving("theoretical_occupancy_pct"),
            Some(vec!["Occupancy"])
        );
        assert_eq!(sections_giving("bank_conflict_share"), None);
        // Every label's section has an identifier to pass to `--section`.
        for m in METRICS {
            for label in m.labels {
                let shown = label.split('/').next().unwrap();
                assert!(
                    SECTION_IDS.iter().any(|(name, _)| *name == shown),
                    "{label}"
                );
            }
        }
    }

    fn raw<'a>(pairs: &[(&'a str, f64)]) -> RawValues<'a> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn equivalent_counters_resolve_to_one_key() {
        let a = resolve(&raw(&[(
            "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
            10.0,
        )]));
        let b = resolve(&raw(&[
            (
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
                2.0,
            ),
            ("smsp__cycles_elapsed.avg", 5.0),
        ]));
        assert_eq!(a.get("inst_ffma"), Some(&10.0));
        assert_eq!(b.get("inst_ffma"), Some(&10.0));
    }

    #[test]
    fn missing_inputs_give_no_derived_value() {
        let m = resolve(&raw(&[(
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            8.0,
        )]));
        assert!(!m.contains_key("sectors_per_request_ld"));
        assert!(!m.contains_key("excess_sector_share_ld"));
    }

    #[test]
    fn excess_sectors_follow_the_physics() {
        // (bytes per sector, sectors per request) -> excess share
        let cases = [
            (32.0, 4.0, 0.0),   // stride-1 floats
            (25.6, 5.0, 0.2),   // 4 bytes off: one extra sector in five
            (4.0, 32.0, 0.875), // stride >= 8 words
            (32.0, 16.0, 0.0),  // float4, coalesced
            (4.0, 1.0, 0.0),    // broadcast: one sector is the least possible
            (8.0, 4.0, 0.75),   // 1-byte loads at 4-byte spacing
        ];
        for (bps, spr, want) in cases {
            let m = resolve(&raw(&[
                (
                    "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
                    bps,
                ),
                (
                    "l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio",
                    spr,
                ),
            ]));
            let got = m["excess_sector_share_ld"];
            assert!(
                (got - want).abs() < 1e-9,
                "bps {bps} spr {spr}: {got} != {want}"
            );
        }
    }
}
