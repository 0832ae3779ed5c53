//! Canonical metric names: one short key per quantity, whichever export it came from.
//!
//! A key resolves from the first ncu metric name the export has, then from the
//! details-page label. Equivalent counters go by one key, so rules never care which
//! form of export they read. Derived quantities (sectors per request, excess sectors,
//! the binding occupancy limit) exist only when all their inputs do: a missing input is
//! never read as zero.

/// A key's slot, found once per call site (the lookups by name were a tenth of deriving):
/// for the derivations (`derived`, `occupancy`), which run on every launch.
macro_rules! slot {
    ($name:literal) => {{
        static ID: std::sync::OnceLock<$crate::metrics::KeyId> = std::sync::OnceLock::new();
        *ID.get_or_init(|| $crate::metrics::KeyId::known($name))
    }};
}

mod catalogue;
mod derived;
mod derived_keys;
mod map;
pub mod occupancy;
mod plan;
mod sections;

pub use catalogue::{METRICS, MetricDef, STALL_KEYS};
pub use derived::{Precision, flops, wide_load_bytes};
use derived::{derive, derive_grid_fill};
pub use derived_keys::DERIVED;
use map::put;
pub use map::{KeyId, KeySet, Metrics};
pub use plan::{COMPUTE_PARTS, MEMORY_PARTS, Plan, collection_plan};
pub use sections::sections_giving;

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

/// The static name of a canonical or derived metric.
pub fn key(name: &str) -> Option<&'static str> {
    KeyId::of(name).map(KeyId::name)
}

/// Where each source name and label of [`METRICS`] leads: (index of the metric, rank of
/// the source: earlier sources, then labels, win). Metrics with a per-cycle source, whose
/// value needs a second column, are resolved after the pass over a launch's values from
/// what that pass kept of the names they read (`Lead::per_cycle`).
struct SourceIndex {
    leads: Vec<Lead>,
    by_name: rustc_hash::FxHashMap<&'static str, u16>,
    per_cycle: Vec<PerCycle>,
}

/// A per-cycle metric: its sources as (name, cycles) numbers among the names kept for
/// per-cycle metrics, then its labels'.
struct PerCycle {
    metric: usize,
    sources: Vec<(u16, Option<u16>)>,
    labels: Vec<u16>,
}

#[derive(Default)]
struct Lead {
    metrics: Vec<(u16, u16)>,
    /// The name's number among the names per-cycle metrics read.
    per_cycle: Option<u16>,
}

/// More than the canonical metrics (checked when the index is built).
const METRICS_MAX: usize = 128;
/// More than the names per-cycle metrics read (checked when the index is built).
const PER_CYCLE_NAMES_MAX: usize = 32;

fn source_index() -> &'static SourceIndex {
    static INDEX: std::sync::OnceLock<SourceIndex> = std::sync::OnceLock::new();
    INDEX.get_or_init(|| {
        assert!(METRICS.len() <= METRICS_MAX, "raise metrics::METRICS_MAX");
        let mut index = SourceIndex {
            leads: Vec::new(),
            by_name: Default::default(),
            per_cycle: Vec::new(),
        };
        let mut per_cycle_names = 0u16;
        let lead = |index: &mut SourceIndex, name: &'static str| -> usize {
            let next = index.leads.len();
            let i = *index.by_name.entry(name).or_insert(next as u16) as usize;
            if i == next {
                index.leads.push(Lead::default());
            }
            i
        };
        for (d, def) in METRICS.iter().enumerate() {
            if def.sources.iter().any(|s| s.times.is_some()) {
                let mut number = |index: &mut SourceIndex, name: &'static str| -> u16 {
                    let i = lead(index, name);
                    *index.leads[i].per_cycle.get_or_insert_with(|| {
                        per_cycle_names += 1;
                        per_cycle_names - 1
                    })
                };
                let sources = def
                    .sources
                    .iter()
                    .map(|s| {
                        (
                            number(&mut index, s.name),
                            s.times.map(|t| number(&mut index, t)),
                        )
                    })
                    .collect();
                let labels = def.labels.iter().map(|l| number(&mut index, l)).collect();
                index.per_cycle.push(PerCycle {
                    metric: d,
                    sources,
                    labels,
                });
                continue;
            }
            let names = def
                .sources
                .iter()
                .map(|s| s.name)
                .chain(def.labels.iter().copied());
            for (rank, name) in names.enumerate() {
                let i = lead(&mut index, name);
                index.leads[i].metrics.push((d as u16, rank as u16));
            }
        }
        assert!(
            usize::from(per_cycle_names) <= PER_CYCLE_NAMES_MAX,
            "raise metrics::PER_CYCLE_NAMES_MAX"
        );
        index
    })
}

/// A name an export gives values under (an ncu metric name or a details-page label),
/// with where it leads among gpulint's metrics, found once: a raw page's column or a
/// label is looked up when the layout is read, not on every launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceName {
    pub name: &'static str,
    lead: Option<u16>,
}

impl SourceName {
    pub fn of(name: &'static str) -> SourceName {
        SourceName {
            name,
            lead: source_index().by_name.get(name).copied(),
        }
    }
}

/// Resolves canonical metrics for one launch, then adds the derived ones.
pub fn resolve(raw: &RawValues) -> Metrics {
    let index = source_index();
    resolve_leads(raw.iter().map(|(k, v)| (index.by_name.get(k).copied(), *v)))
}

/// As [`resolve`], from a launch's values as read; where a name comes twice, the first
/// wins. Walks the launch's values (tens) rather than every metric's sources (hundreds):
/// what a long export spends its time on.
pub fn resolve_sources(values: &[(SourceName, f64)]) -> Metrics {
    resolve_leads(values.iter().map(|(s, v)| (s.lead, *v)))
}

fn resolve_leads(values: impl Iterator<Item = (Option<u16>, f64)>) -> Metrics {
    let index = source_index();
    let mut best = [(u16::MAX, 0.0); METRICS_MAX];
    let mut per_cycle_values = [None; PER_CYCLE_NAMES_MAX];
    for (lead, v) in values {
        let Some(lead) = lead.map(|l| &index.leads[l as usize]) else {
            continue;
        };
        for &(d, rank) in &lead.metrics {
            if rank < best[d as usize].0 {
                best[d as usize] = (rank, v);
            }
        }
        if let Some(n) = lead.per_cycle {
            per_cycle_values[n as usize].get_or_insert(v);
        }
    }
    let value = |n: u16| per_cycle_values[n as usize];
    for PerCycle {
        metric,
        sources,
        labels,
    } in &index.per_cycle
    {
        let from_source = sources.iter().find_map(|&(name, times)| match times {
            None => value(name),
            Some(cycles) => Some(value(name)? * value(cycles)?),
        });
        if let Some(v) = from_source.or_else(|| labels.iter().find_map(|&l| value(l))) {
            best[*metric] = (0, v);
        }
    }
    let mut out = Metrics::new();
    for (d, &(rank, v)) in best.iter().enumerate().take(METRICS.len()) {
        if rank != u16::MAX {
            out.set(KeyId::of_metric(d), v);
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

/// The four occupancy limits, blocks per SM allowed by each, in the order
/// `occupancy::Limits` gives them: ncu's, or computed where an export lacks them.
pub const OCCUPANCY_LIMITS: [&str; 4] = [
    "limit_blocks",
    "limit_warps",
    "limit_registers",
    "limit_shared_mem",
];

/// The device's shape and what sets its occupancy limits: the same for every kernel that
/// ran on it.
pub const DEVICE_ATTRIBUTES: &[&str] = &[
    "sm_count",
    "max_warps_per_sm",
    "max_blocks_per_sm",
    "registers_per_sm",
    "max_registers_per_block",
    "schedulers_per_sm",
    "max_shared_mem_per_sm",
    "reserved_shared_mem_per_block",
    "cc_major",
    "cc_minor",
];

/// What a launch trace records of a launch's resources: with the block and the device's
/// attributes, what its occupancy limits are computed from (`occupancy`).
const TRACED_RESOURCES: &[&str] = &["registers_per_thread", "shared_mem_per_block"];

/// Besides the device's shape, what a traced launch takes from any profiled launch of its
/// kernel: the serial-code guard, a property of the kernel's code.
const CODE_ATTRIBUTES: &[&str] = &["threads_per_inst"];

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

/// How busy the GPU's units were: true of another launch of the same kernel only in the
/// same configuration (grid and block), which a sampled launch stands for. The launch-shape
/// rules' stakes are capped by the busiest unit's headroom.
const BUSY_ATTRIBUTES: &[&str] = &["sm_throughput_pct", "memory_throughput_pct"];

/// How alike a traced launch and the profiled launch it is judged by are.
#[derive(Debug, Clone, Copy)]
pub struct Likeness {
    /// The same block, registers and shared memory: the same occupancy limits.
    pub resources: bool,
    /// The same grid and block as well: the same configuration, as busy.
    pub configuration: bool,
}

/// The metrics of a launch known only by its shape (one a launch trace saw and ncu did
/// not profile), for the rules judged from the trace: the attributes of a profiled launch
/// `like` it, with its own grid, block, duration and resources (`own`: its registers and
/// shared memory, where recorded). The occupancy limits are `like`'s with the same
/// resources, else computed from its own; its throughputs are `like`'s only in the same
/// configuration, else absent.
pub fn launch_shape_metrics(
    like: &Metrics,
    own: &Metrics,
    grid: [u64; 3],
    block: [u64; 3],
    duration_ns: Option<f64>,
    likeness: Likeness,
) -> Metrics {
    let mut m: Metrics = like
        .iter()
        .filter(|(k, _)| {
            DEVICE_ATTRIBUTES.contains(k)
                || CODE_ATTRIBUTES.contains(k)
                || (likeness.resources && OCCUPANCY_ATTRIBUTES.contains(k))
                || (likeness.resources && likeness.configuration && BUSY_ATTRIBUTES.contains(k))
        })
        .map(|(k, v)| (*k, *v))
        .collect();
    let product = |d: [u64; 3]| d.iter().product::<u64>() as f64;
    put(&mut m, "grid_blocks", Some(product(grid)));
    put(&mut m, "block_size", Some(product(block)));
    put(&mut m, "block_dim_x", Some(block[0] as f64));
    put(&mut m, "duration_ns", duration_ns);
    for k in TRACED_RESOURCES {
        put(&mut m, k, own.get(k).copied());
    }
    derive(&mut m);
    m
}

#[cfg(test)]
mod tests {
    use super::sections::SECTION_IDS;
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

    /// cuDNN's implicit-GEMM fprop of the augmented CNN: the SASS count saw none of the
    /// loads the L1 counted (its one run on an H100; ncu's L1 requests on an H200). Where
    /// an export has both, the L1's requests stand with its sectors: 4.9 a request, one
    /// more than a coalesced load needs.
    #[test]
    fn load_requests_are_the_l1s_where_the_sass_count_missed_them() {
        let mut raw = RawValues::default();
        raw.insert("smsp__sass_inst_executed_op_global_ld.sum", 0.0);
        raw.insert("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 284_416.0);
        raw.insert(
            "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
            1_399_040.0,
        );
        let m = resolve(&raw);
        assert_eq!(m["requests_ld"], 284_416.0);
        assert!((m["sectors_per_request_ld"] - 4.919).abs() < 1e-3);
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
        let alike = Likeness {
            resources: true,
            configuration: false,
        };
        let m = launch_shape_metrics(
            &profiled,
            &Metrics::default(),
            [4, 4, 1],
            [16, 16, 1],
            Some(2500.0),
            alike,
        );
        assert_eq!(m["grid_blocks"], 16.0);
        assert_eq!(m["duration_ns"], 2500.0);
        assert_eq!(m["limit_warps"], 8.0);
        assert_eq!(m["occupancy_limit_min"], 8.0);
        // 16 blocks of 8 warps on 132 SMs of 64 warp slots.
        assert_eq!(m["grid_warps"], 128.0);
        assert!((m["grid_slot_fill_pct"] - 128.0 / 8448.0 * 100.0).abs() < 1e-9);
        // What the profiled launch measured is not the traced launch's.
        assert!(!m.contains_key("achieved_occupancy_pct"));
        let unlike = Likeness {
            resources: false,
            configuration: false,
        };
        let other = launch_shape_metrics(
            &profiled,
            &Metrics::default(),
            [4, 4, 1],
            [32, 8, 1],
            None,
            unlike,
        );
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

    /// How busy the units were is the sampled launch's only in its configuration: there a
    /// traced launch's stake caps take its throughputs; in another grid they have no bound.
    #[test]
    fn throughputs_are_borrowed_only_in_the_same_configuration() {
        let profiled: Metrics = [
            ("sm_count", 132.0),
            ("max_warps_per_sm", 64.0),
            ("sm_throughput_pct", 80.0),
            ("memory_throughput_pct", 30.0),
        ]
        .into_iter()
        .collect();
        let same = Likeness {
            resources: true,
            configuration: true,
        };
        let m = launch_shape_metrics(
            &profiled,
            &Metrics::default(),
            [128, 1, 1],
            [128, 1, 1],
            Some(1e5),
            same,
        );
        assert_eq!(m["busiest_throughput_pct"], 80.0);
        assert!((m["busiest_headroom"] - 0.2).abs() < 1e-9);
        let other_grid = Likeness {
            resources: true,
            configuration: false,
        };
        let m = launch_shape_metrics(
            &profiled,
            &Metrics::default(),
            [512, 1, 1],
            [128, 1, 1],
            Some(1e5),
            other_grid,
        );
        assert!(!m.contains_key("sm_throughput_pct"));
        assert!(!m.contains_key("busiest_throughput_pct"));
        assert_eq!(m["busiest_headroom"], 1.0);
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
