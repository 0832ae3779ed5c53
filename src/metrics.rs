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
        [n("gpu__time_duration.sum")],
        ["GPU Speed Of Light Throughput/Duration"]
    ),
    metric!(
        "block_size",
        "threads per block",
        [n("launch__block_size")],
        ["Launch Statistics/Block Size"]
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
        "compute (SM) throughput, % of peak",
        // sm__throughput takes 9 replay passes alone; issue-slot use (1 pass) is what
        // `gpulint run` collects in its place.
        [
            n("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            n("smsp__issue_active.avg.pct_of_peak_sustained_active")
        ],
        ["GPU Speed Of Light Throughput/Compute (SM) Throughput"]
    ),
    metric!(
        "memory_throughput_pct",
        "memory throughput, % of peak",
        [n(
            "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
        )],
        ["GPU Speed Of Light Throughput/Memory Throughput"]
    ),
    metric!(
        "dram_throughput_pct",
        "DRAM throughput, % of peak",
        [
            n("dram__throughput.avg.pct_of_peak_sustained_elapsed"),
            n("gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
        ],
        ["GPU Speed Of Light Throughput/DRAM Throughput"]
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
        [n("dram__bytes_read.sum")],
        []
    ),
    metric!(
        "dram_bytes_write",
        "DRAM bytes written",
        [n("dram__bytes_write.sum")],
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
        "busiest_throughput_pct",
        "max(sm_throughput_pct, memory_throughput_pct)",
        ["sm_throughput_pct", "memory_throughput_pct"]
    ),
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

/// Keys that [`derive`] computes from others when an export lacks them: what
/// `gpulint run` collects for them.
const COLLECT_INSTEAD: &[(&str, &[&str])] = &[
    (
        "memory_throughput_pct",
        &[
            "dram_throughput_pct",
            "l2_throughput_pct",
            "l1_throughput_pct",
        ],
    ),
    ("sectors_per_request_ld", &["sectors_ld", "requests_ld"]),
    ("sectors_per_request_st", &["sectors_st", "requests_st"]),
];

/// The ncu metric names to pass to `--metrics` so that `keys` (canonical or derived)
/// can be resolved: the first collectable source of each, sorted and without repeats.
pub fn collection_list<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    let mut stack: Vec<&str> = keys.into_iter().collect();
    while let Some(key) = stack.pop() {
        if let Some(d) = DERIVED.iter().find(|d| d.key == key) {
            stack.extend(d.inputs.iter().copied());
        } else if let Some((_, inputs)) = COLLECT_INSTEAD.iter().find(|(k, _)| *k == key) {
            stack.extend(inputs.iter().copied());
        } else if let Some(src) =
            def(key).and_then(|d| d.sources.iter().find(|s| !not_collected(s.name)))
        {
            out.push(src.name);
            out.extend(src.times);
        }
    }
    out.sort_unstable();
    out.dedup();
    out
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

fn derive(m: &mut Metrics) {
    let get = |m: &Metrics, k: &str| m.get(k).copied();
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let put = |m: &mut Metrics, k: &str, v: Option<f64>| {
        if let Some(v) = v.filter(|v| v.is_finite()) {
            let k = key(k).unwrap_or_else(|| panic!("derived metric `{k}` is not in DERIVED"));
            m.entry(k).or_insert(v);
        }
    };

    for dir in ["ld", "st"] {
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
        if get(m, &format!("sectors_{dir}")) == Some(0.0) {
            for k in [
                "excess_sector_share",
                "excess_sectors_per_request",
                "ideal_sectors_per_request",
            ] {
                put(m, &format!("{k}_{dir}"), Some(0.0));
            }
        }
    }
    let (ld, st) = (get(m, "sectors_ld"), get(m, "sectors_st"));
    if let (Some(ld), Some(st)) = (ld, st) {
        let total = ld + st;
        put(
            m,
            "global_share_ld",
            Some(if total > 0.0 { ld / total } else { 0.0 }),
        );
        put(
            m,
            "global_share_st",
            Some(if total > 0.0 { st / total } else { 0.0 }),
        );
    }
    put(
        m,
        "warps_per_block",
        get(m, "block_size").map(|b| (b / 32.0).ceil()),
    );
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
    if let (Some(l_ld), Some(l_st)) = (get(m, "local_sectors_ld"), get(m, "local_sectors_st")) {
        let local = l_ld + l_st;
        put(m, "local_sectors", Some(local));
        if let (Some(ld), Some(st)) = (ld, st) {
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
    if let (Some(st), Some(dy)) = (
        get(m, "shared_mem_static_per_block"),
        get(m, "shared_mem_dynamic_per_block"),
    ) {
        put(m, "shared_mem_per_block", Some(st + dy));
    }
    if let Some(b) = get(m, "block_size") {
        put(m, "partial_warp_lanes", Some(b % 32.0));
    }
    for dir in ["ld", "st"] {
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
    // Without ncu's combined memory throughput, the busiest of DRAM, L2 and L1 stands in.
    if !m.contains_key("memory_throughput_pct") {
        let parts: Option<Vec<f64>> = [
            "dram_throughput_pct",
            "l2_throughput_pct",
            "l1_throughput_pct",
        ]
        .iter()
        .map(|k| get(m, k))
        .collect();
        put(
            m,
            "memory_throughput_pct",
            parts.map(|p| p.into_iter().fold(0.0, f64::max)),
        );
    }
    if let (Some(sm), Some(mem)) = (get(m, "sm_throughput_pct"), get(m, "memory_throughput_pct")) {
        put(m, "busiest_throughput_pct", Some(sm.max(mem)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
