//! The launch: its duration and shape, the device it filled, its occupancy limits, and
//! what sets them where ncu's are absent (a traced launch).

use super::{MetricDef, n};

pub(super) const LAUNCH: &[MetricDef] = &[
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
];
