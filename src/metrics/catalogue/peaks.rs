//! Clocks and peaks per cycle: the roofline's ceilings.

use super::{MetricDef, n};

pub(super) const PEAKS: &[MetricDef] = &[
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
