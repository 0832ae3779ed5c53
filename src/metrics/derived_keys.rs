//! The derived keys: each with what it means and the keys it is computed from (the
//! arithmetic is in `derived`), so that `gpulint run` can collect the inputs.

use super::STALL_KEYS;

/// A quantity computed from other metrics (the arithmetic is in `derived`).
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
        "l1_hit_share_ld",
        "l1_hit_sectors_ld / sectors_ld: the share of load sectors the L1 already held",
        ["l1_hit_sectors_ld", "sectors_ld"]
    ),
    derived!(
        "load_piece_bytes",
        "useful bytes per request / 32: the bytes each lane's load reads",
        ["bytes_per_sector_ld", "sectors_per_request_ld"]
    ),
    derived!(
        "load_pieces_per_element",
        "1 / (1 - l1_hit_share_ld): how many loads share each fetched sector, where sibling loads read an element's pieces",
        ["l1_hit_sectors_ld", "sectors_ld"]
    ),
    derived!(
        "split_excess_share",
        "excess_sector_share_ld * global_share_ld, plus the stores' own where split_store: the share of global sectors a split element's pieces add",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "l1_hit_sectors_ld",
            "sectors_ld",
            "bytes_per_sector_st",
            "sectors_per_request_st",
            "sectors_st"
        ]
    ),
    derived!(
        "split_store",
        "1 where the loads are split (split_load) and the stores' lanes sit as far apart as the loads' elements, each writing a whole part of one: the same type stored in the same pieces",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "l1_hit_sectors_ld",
            "sectors_ld",
            "bytes_per_sector_st",
            "sectors_per_request_st"
        ]
    ),
    derived!(
        "split_load",
        "1 when each lane's element (sectors_per_request_ld bytes apart, under 32) is read whole in load_pieces_per_element narrow loads of load_piece_bytes each: a struct the compiler split, not a stride",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "l1_hit_sectors_ld",
            "sectors_ld"
        ]
    ),
    derived!(
        "load_element_bytes",
        "sectors_per_request_ld, where split_load: the bytes between consecutive lanes' elements",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "l1_hit_sectors_ld",
            "sectors_ld"
        ]
    ),
    derived!(
        "wide_load_bytes",
        "the one load that reads a split element whole: its size rounded up to a power of two, at most 16 bytes (the widest load)",
        [
            "bytes_per_sector_ld",
            "sectors_per_request_ld",
            "l1_hit_sectors_ld",
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
        "grid_waves",
        "grid_blocks / (sm_count x occupancy_limit_min): the grid in waves of resident blocks (ncu's launch__waves_per_multiprocessor, unrounded)",
        [
            "grid_blocks",
            "sm_count",
            "limit_warps",
            "limit_blocks",
            "limit_registers",
            "limit_shared_mem"
        ]
    ),
    derived!(
        "tail_idle_share",
        "1 - (grid_blocks / sm_count) / ceil(grid_blocks / sm_count) for a grid of more blocks than SMs, else 0: the share of the kernel's time the SMs with fewer blocks sit idle while those with one more finish, if every block takes as long (133 blocks on 132 SMs: 50%; 396: none)",
        ["grid_blocks", "sm_count"]
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
        "branch_inst_pct",
        "branch instructions, % of the warp instructions executed: in a loop-bound kernel each branch comes with a counter update and a compare, so about three times this share is loop control",
        ["branch_instructions", "warp_instructions"]
    ),
    derived!(
        "loads_per_warp",
        "global load requests per warp of the grid (requests_ld / grid_warps): one for a copy, hundreds for a loop",
        ["requests_ld", "grid_warps"]
    ),
    derived!(
        "loads_in_flight_while_waiting",
        "global and local loads a warp has in flight while it waits on memory, by Little's law: the loads' cycles in flight (requests_ld x load_latency_cycles) over the warp-cycles stalled on the long scoreboard (stall_long_scoreboard x warp_instructions, ncu counting stalls per issued instruction); 1 when each load waits for the one before",
        [
            "requests_ld",
            "load_latency_cycles",
            "stall_long_scoreboard",
            "warp_instructions"
        ]
    ),
    derived!(
        "store_rewrite_factor",
        "bytes the threads stored to global memory (sectors_st x bytes_per_sector_st) over the larger of DRAM's written bytes and the L2's size: well above 1, the kernel wrote the same lines again and again, since distinct data past the L2's size must reach DRAM",
        [
            "sectors_st",
            "bytes_per_sector_st",
            "dram_bytes_write",
            "l2_cache_bytes"
        ]
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
            "mio_queue_read_pct",
            "shared_pipe_pct"
        ]
    ),
    derived!(
        "memory_throughput_subunits",
        "present only when memory_throughput_pct is not ncu's gpu__compute_memory_throughput but the maximum of this many of its sub-units (l1_data_pipe_pct, l2_input_pct, l2_output_pct, l2_tag_pct, l2_throughput_pct, dram_active_pct): a lower bound, within 2.4 points of ncu's on 268 of 268 H200 launches",
        [
            "l1_data_pipe_pct",
            "l2_input_pct",
            "l2_output_pct",
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
        "context_launches",
        "launches, in the same profile, of the kernels a rule's `context_kernels` names (only such rules have it; they judge once the profile is read)",
        []
    ),
    derived!(
        "launch_wait_ns",
        "from the launch trace: how long the GPU sat idle before this launch, since the last kernel on its device (its rank's GPU) ended; 0 when the gap was over 100 us (the host doing other work, not launching) or kernels overlapped",
        []
    ),
    derived!(
        "program_wait_pct",
        "from the launch trace, over the whole run of the launching process (a rank's, in a job of several): the launches' waits (launch_wait_ns) as % of the time the GPU was active, running kernels or waiting for the next launch",
        []
    ),
    derived!(
        "program_launches",
        "from the launch trace: kernel launches in the whole run of the launching process",
        []
    ),
    derived!(
        "program_short_launch_pct",
        "from the launch trace: launches of kernels that ran under 10 us, % of all the launching process's launches",
        []
    ),
    derived!(
        "burst_launches",
        "from the launch trace: the launches in this launch's burst, a run of consecutive launches under 10 us on one device, each within 100 us of the one before (1 for a launch in none)",
        []
    ),
    derived!(
        "burst_wait_pct",
        "from the launch trace: the waits between the launches of this launch's burst, % of the burst's active time (running or waiting)",
        []
    ),
    derived!(
        "burst_span_ns",
        "from the launch trace: a burst from its first start to its last end, ns: the median over the bursts alike (this launch's own where it has none)",
        []
    ),
    derived!(
        "bursts_alike",
        "from the launch trace: the bursts on this launch's device with half to twice its burst's launches, its own included: one a step, for a loop run once a step",
        []
    ),
    derived!(
        "burst_period_ns",
        "from the launch trace: the median time from the start of one of those bursts to the next, ns: the step, for a loop run once a step (0 with fewer than two)",
        []
    ),
    derived!(
        "busiest_throughput_pct",
        "max(sm_throughput_pct, memory_throughput_pct)",
        ["sm_throughput_pct", "memory_throughput_pct"]
    ),
    derived!(
        "fp64_inst",
        "FP64 arithmetic, thread instructions: inst_dfma + inst_dadd + inst_dmul",
        ["inst_dfma", "inst_dadd", "inst_dmul"]
    ),
    derived!(
        "fp64_inst_share",
        "fp64_inst over the FP32 and FP64 arithmetic thread instructions together: 1 for a kernel whose float math was all promoted to double, or that is all double",
        [
            "inst_dfma",
            "inst_dadd",
            "inst_dmul",
            "inst_ffma",
            "inst_fadd",
            "inst_fmul"
        ]
    ),
    derived!(
        "conversions_per_fp64_inst",
        "conversions / fp64_inst: about 2 where float math was promoted to double (a conversion to double before each operation, one back after), near 0 for double data; 0 without FP64 work, even where the export lacks the conversions",
        ["conversions", "inst_dfma", "inst_dadd", "inst_dmul"]
    ),
    derived!(
        "fp64_pipe_pct_at_fp32_rate",
        "fp64_pipe_pct x dfma_peak_per_cycle / ffma_peak_per_cycle: how busy the FP64 pipe's work would keep the FP32 units, in float (half on an H200, 1/64 on most GeForce parts)",
        [
            "fp64_pipe_pct",
            "dfma_peak_per_cycle",
            "ffma_peak_per_cycle"
        ]
    ),
    derived!(
        "l2_atomic_concentration",
        "l2_atomic_busiest_slice_pct / l2_atomic_avg_slice_pct: how many times the average slice's atomic work the busiest slice does (about 1 for atomics spread over the L2, the slice count for atomics on one line; 1 without atomics)",
        ["l2_atomic_busiest_slice_pct", "l2_atomic_avg_slice_pct"]
    ),
    derived!(
        "busiest_headroom",
        "1 - busiest_throughput_pct / 100: the most of a kernel's time that more warps in flight can save before its busiest unit saturates; 1 when the launch has no throughputs (no bound known: a traced launch of a configuration no sampled launch had)",
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
