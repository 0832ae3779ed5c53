//! Memory accesses (global, local, shared), ncu's replay passes, and the bytes DRAM moved.

use super::{MetricDef, n};

pub(super) const MEMORY: &[MetricDef] = &[
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
        // The L1's count, as its sectors are: the SASS instruction count misses the loads
        // of cuBLAS's, CUTLASS's and cuDNN's multistage kernels (cuDNN's implicit-GEMM
        // fprop: 0 instructions for 1,399,040 L1 sectors and 284,416 L1 requests). It costs
        // no replay pass in `gpulint run`'s list on GA100-GB202 (one on TU102: CUPTI's
        // count, lab/runs/2026-12-05-window-one-run.txt).
        [
            n("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            n("smsp__sass_inst_executed_op_global_ld.sum")
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
        // The SASS count shares the instrumented pass; the L1's would cost a pass of its
        // own, and no capture has a store the SASS count missed.
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
];
