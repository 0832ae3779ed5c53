//! Floating-point instructions by precision and operation (the roofline's FLOPs), and the
//! tensor pipe.

use super::{MetricDef, n, per_cycle};

pub(super) const INSTRUCTIONS: &[MetricDef] = &[
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
];
