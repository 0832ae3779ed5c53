//! How busy the SM and memory units were: ncu's throughputs, the sub-units `gpulint run`
//! reads in their place, and the L2 slices' atomic units.

use super::{MetricDef, n};

pub(super) const BUSY: &[MetricDef] = &[
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
];
