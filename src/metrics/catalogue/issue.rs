//! The device, and what the warps issued and waited on.

use super::{MetricDef, n};

pub(super) const ISSUE: &[MetricDef] = &[
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
];
