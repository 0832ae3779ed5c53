//! What `gpulint run` asks ncu for: the first collectable source of each key, on the chip
//! that will be profiled, with cheaper sub-units in place of multi-pass composites.

use super::{DERIVED, def};

/// ncu adds these on the raw page by itself, and derived__ values exist only in section
/// output: none of them may be passed to `--metrics`. The others here cost several replay
/// passes each (measured with lab/scripts/passes_per_metric.sh on an H200: sm__throughput 9,
/// gpu__compute_memory_throughput 6, each sectors-per-request ratio 3); `gpulint run`
/// collects cheaper inputs for the same quantities, see [`COLLECT_INSTEAD`].
pub(super) fn not_collected(name: &str) -> bool {
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

/// Sub-units of ncu's sm__throughput whose maximum equals it (within 0.05 points) on
/// all 268 launches of the H200 `--set full` captures in fixtures/, and the ALU, XU and
/// FP64 pipes that ALU- and XU-bound kernels need (compute_classes.cu); `issue_slots_pct`
/// first, the one every chip has. Never above ncu's figure: a lower bound by definition.
/// `mio_inst_pct` is not one: never above the others on any launch in fixtures/
/// (tests/metric_sources.rs), it cost `gpulint run` a replay pass
/// (lab/runs/2026-12-05-passes.txt).
pub const COMPUTE_PARTS: &[&str] = &[
    "issue_slots_pct",
    "lsu_inst_pct",
    "adu_inst_pct",
    "mio_queue_read_pct",
    "shared_pipe_pct",
    "alu_pipe_pct",
    "xu_pipe_pct",
    "fp64_pipe_pct",
];

/// As [`COMPUTE_PARTS`], for gpu__compute_memory_throughput: within 2.4 points on all 268
/// launches (L1 data pipe, DRAM, L2 input, tags and sectors). `l1_data_pipe_pct` first. L2's
/// output to the crossbar joined after warps walking linked lists in L2 kept it at 50% while
/// the others read 35% (samples/corpus/latency_pairs.cu).
pub const MEMORY_PARTS: &[&str] = &[
    "l1_data_pipe_pct",
    "l2_input_pct",
    "l2_output_pct",
    "l2_tag_pct",
    "l2_throughput_pct",
    "dram_active_pct",
];

/// Keys that [`derive()`](super::derived::derive) computes from others when an export lacks them: what
/// `gpulint run` collects for them.
pub(super) const COLLECT_INSTEAD: &[(&str, &[&str])] = &[
    ("sm_throughput_pct", COMPUTE_PARTS),
    ("memory_throughput_pct", MEMORY_PARTS),
    ("sectors_per_request_ld", &["sectors_ld", "requests_ld"]),
    ("sectors_per_request_st", &["sectors_st", "requests_st"]),
];

/// What `gpulint run` asks ncu for on one chip, and what that chip cannot give.
#[derive(Debug, Default)]
pub struct Plan {
    pub metrics: Vec<&'static str>,
    /// Canonical keys none of whose sources exist on the chip.
    pub unavailable: Vec<&'static str>,
}

/// The ncu metric names to pass to `--metrics` so that `keys` (canonical or derived) can
/// be resolved, sorted and without repeats, on `chip` when known: each key from the first
/// of its sources that exists there (`dram__bytes_op_read` on GB20x, say); keys with none are listed as
/// unavailable, and the rules that read them are skipped.
pub fn collection_plan<'a>(
    keys: impl IntoIterator<Item = &'a str>,
    chip: Option<crate::chips::Chip>,
) -> Plan {
    let mut plan = Plan::default();
    let mut stack: Vec<&str> = keys.into_iter().collect();
    let exists = |name: &str| chip.is_none_or(|c| c.has(name));
    while let Some(key) = stack.pop() {
        if let Some(d) = DERIVED.iter().find(|d| d.key == key) {
            stack.extend(d.inputs.iter().copied());
        } else if let Some((_, inputs)) = COLLECT_INSTEAD.iter().find(|(k, _)| *k == key) {
            stack.extend(inputs.iter().copied());
        } else if let Some(d) = def(key) {
            let collectable = d.sources.iter().filter(|s| !not_collected(s.name));
            let mut any = false;
            for src in collectable.clone() {
                if exists(src.name) && src.times.is_none_or(exists) {
                    plan.metrics.push(src.name);
                    plan.metrics.extend(src.times);
                    any = true;
                    break;
                }
            }
            if !any && collectable.count() > 0 {
                plan.unavailable.push(d.key);
            }
        }
    }
    plan.metrics.sort_unstable();
    plan.metrics.dedup();
    plan.unavailable.sort_unstable();
    plan.unavailable.dedup();
    plan
}
