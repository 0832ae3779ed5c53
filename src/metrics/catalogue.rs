//! The catalogue: every canonical key with its ncu names and details-page labels, and the
//! stall reasons gpulint collects.

/// Where a canonical metric can come from.
pub struct Source {
    /// The ncu metric name, as a raw-page column or a details-page `Metric Name`.
    pub name: &'static str,
    /// When set, the value is a per-cycle rate and is multiplied by this metric (the
    /// elapsed cycles) to give a count.
    pub times: Option<&'static str>,
}

pub(super) const fn n(name: &'static str) -> Source {
    Source { name, times: None }
}

pub(super) const fn per_cycle(name: &'static str, cycles: &'static str) -> Source {
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
    // The launch: its duration, shape, the device it filled, and its occupancy limits.
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
    // What sets the occupancy limits where ncu's are absent (a traced launch): see
    // metrics::occupancy.
    metric!(
        "max_blocks_per_sm",
        "resident blocks per SM at most, on the device",
        [n("device__attribute_max_blocks_per_multiprocessor")],
        []
    ),
    metric!(
        "registers_per_sm",
        "32-bit registers per SM on the device",
        [n("device__attribute_max_registers_per_multiprocessor")],
        []
    ),
    metric!(
        "max_registers_per_block",
        "32-bit registers one block may hold at most, on the device",
        [n("device__attribute_max_registers_per_block")],
        []
    ),
    metric!(
        "schedulers_per_sm",
        "warp schedulers per SM, which split the register file",
        [n("device__attribute_num_schedulers_per_multiprocessor")],
        []
    ),
    metric!(
        "max_shared_mem_per_sm",
        "the largest shared-memory carveout of an SM, bytes",
        [n("device__attribute_max_shared_memory_per_multiprocessor")],
        []
    ),
    metric!(
        "reserved_shared_mem_per_block",
        "shared memory the driver takes from every block, bytes",
        [n("device__attribute_reserved_shared_memory_per_block")],
        []
    ),
    metric!(
        "shared_mem_config_bytes",
        "the shared-memory carveout the driver chose for the launch, bytes",
        [n("launch__shared_mem_config_size")],
        ["Launch Statistics/Shared Memory Configuration Size"]
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
        "blocks per SM allowed by shared memory, at the carveout the driver chose (computed for a traced launch: at the largest, which the driver takes before shared memory binds)",
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
    // How busy the SM and memory units were, % of their peak.
    metric!(
        "sm_throughput_pct",
        "compute (SM) throughput, % of peak: ncu's sm__throughput, the busiest SM unit over elapsed cycles",
        // sm__throughput takes 9 replay passes alone: `gpulint run` collects some of its
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
        // The unit ncu's Memory Throughput reads for shared-memory-bound kernels.
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
        "alu_pipe_pct",
        "ALU pipe instructions (integer add, logic, shifts, compares), % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "xu_pipe_pct",
        "XU pipe instructions (special functions, conversions, the reciprocal in integer division), % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "fp64_pipe_pct",
        "FP64 pipe instructions, % of peak over elapsed cycles (a sub-unit of sm__throughput)",
        [n(
            "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed"
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
        "l2_output_pct",
        "L2 output to the crossbar, cycles active, % of peak (a sub-unit of gpu__compute_memory_throughput): the unit a warp's dependent L2 hits keep busy",
        [n(
            "lts__lts2xbar_cycles_active.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "l2_tag_pct",
        "L2 tag requests, % of peak over elapsed cycles (a sub-unit of gpu__compute_memory_throughput)",
        [n("lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed")],
        []
    ),
    // Atomics are done in the L2 slice that holds the address: the busiest slice's
    // atomic unit against the average slice's tells a few hot addresses from spread ones.
    metric!(
        "l2_atomic_busiest_slice_pct",
        "the busiest L2 slice's atomic unit, cycles its input was active, % of peak over elapsed cycles",
        [n(
            "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    metric!(
        "l2_atomic_avg_slice_pct",
        "the average L2 slice's atomic unit, cycles its input was active, % of peak over elapsed cycles",
        [n(
            "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"
        )],
        []
    ),
    // The device, and what the warps issued and waited on.
    metric!(
        "l2_cache_bytes",
        "the device's L2 cache, bytes (ncu adds it to every raw page)",
        [n("device__attribute_l2_cache_size")],
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
        "branch_instructions",
        "branch warp instructions executed (BRA, BRX, JMP, RET and the like): a rolled loop executes one per iteration",
        [
            n("sm__sass_inst_executed_op_branch.sum"),
            n("smsp__inst_executed_op_branch.sum"),
            n("smsp__sass_inst_executed_op_branch.sum")
        ],
        []
    ),
    metric!(
        "warp_instructions",
        "warp instructions executed",
        [n("smsp__inst_executed.sum"), n("sm__inst_executed.sum")],
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
    // Memory accesses (global, local, shared), ncu's replay passes, and the bytes DRAM
    // moved.
    metric!(
        "sectors_ld",
        "L1 sectors of global loads",
        [n("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")],
        []
    ),
    metric!(
        "l1_hit_sectors_ld",
        "L1 sectors of global loads found in the L1 (a sibling load, or an earlier one, had fetched them)",
        [n(
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"
        )],
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
        "L1 requests of global loads: one per warp-level global load instruction",
        // The instruction count comes with the other SASS counts in one instrumented pass;
        // the L1 counter costs a replay pass of its own in `gpulint run`'s list. They were
        // equal on every H200 capture that has both (tests/metric_sources.rs).
        [
            n("smsp__sass_inst_executed_op_global_ld.sum"),
            n("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")
        ],
        []
    ),
    metric!(
        "load_latency_cycles",
        "average SM cycles from issue to retirement of a global or local load (LDG, LDL, ATOMG): the round trip each load waits",
        [n("sm__average_inst_latency_pipe_lsu_mem_lg_cmd_read.ratio")],
        []
    ),
    metric!(
        "requests_st",
        "L1 requests of global stores: one per warp-level global store instruction",
        [
            n("smsp__sass_inst_executed_op_global_st.sum"),
            n("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
        ],
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
    // Floating-point instructions by precision and operation (the roofline's FLOPs), and
    // the tensor pipe.
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
        "conversions",
        "number-format conversions (thread instructions: F2F between float and double, I2F, F2I), which run on the XU pipe",
        [
            n("sm__sass_thread_inst_executed_op_conversion_pred_on.sum"),
            n("smsp__sass_thread_inst_executed_op_conversion_pred_on.sum")
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
    // Clocks and peaks per cycle: the roofline's ceilings.
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
    metric!(
        "l1_bytes",
        "bytes requested of L1TEX (global, local and texture), whole device",
        [n("l1tex__t_bytes.sum")],
        []
    ),
    metric!(
        "l1_bytes_peak_per_cycle",
        "peak L1TEX bytes per L1 cycle, whole device",
        [n("l1tex__t_bytes.sum.peak_sustained")],
        []
    ),
    metric!(
        "l1_clock_hz",
        "L1TEX clock during the kernel, Hz",
        [n("l1tex__cycles_elapsed.avg.per_second")],
        []
    ),
    metric!(
        "l2_bytes",
        "bytes requested of the L2 slices, whole device",
        [n("lts__t_bytes.sum")],
        []
    ),
    metric!(
        "l2_bytes_peak_per_cycle",
        "peak L2 bytes per L2 cycle, whole device",
        [n("lts__t_bytes.sum.peak_sustained")],
        []
    ),
    metric!(
        "l2_clock_hz",
        "L2 clock during the kernel, Hz",
        [n("lts__cycles_elapsed.avg.per_second")],
        []
    ),
];

/// The stall reasons gpulint collects: the ones that cost no replay pass beyond the
/// rest of its list on an H200 (lab/runs/2026-11-30-corpus-measure.txt).
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
