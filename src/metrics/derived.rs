//! Derived quantities, computed from the canonical keys a launch has: never from a
//! missing one.

use super::map::{get, put};
use super::{COMPUTE_PARTS, MEMORY_PARTS, Metrics, STALL_KEYS};

/// Sectors one warp-wide request needs at best for this many useful bytes: a kernel
/// average, so a small tolerance keeps 4.02 from rounding up to 5.
pub(super) fn ideal_sectors(useful_bytes: f64) -> f64 {
    (useful_bytes / 32.0 - 0.05).ceil().max(1.0)
}

/// Adds every derived quantity whose inputs the launch has, in dependency order.
pub(super) fn derive(m: &mut Metrics) {
    for keys in [&LOADS, &STORES] {
        derive_access(m, keys);
    }
    derive_split_load(m);
    derive_traffic_shares(m);
    derive_split_excess(m);
    derive_launch_shape(m);
    derive_local_and_shared(m);
    derive_throughput(m);
    derive_double_math(m);
    derive_row_segments(m);
    derive_grid_fill(m);
    derive_warp_states(m);
    derive_loads_in_flight(m);
}

/// The keys of one access direction, loads or stores.
pub(super) struct AccessKeys {
    sectors: &'static str,
    requests: &'static str,
    bytes_per_sector: &'static str,
    sectors_per_request: &'static str,
    useful_bytes_per_request: &'static str,
    ideal_sectors_per_request: &'static str,
    excess_sectors_per_request: &'static str,
    excess_sector_share: &'static str,
    efficiency_pct: &'static str,
    mixed_access: &'static str,
    misaligned: &'static str,
}

macro_rules! access_keys {
    ($dir:literal) => {
        AccessKeys {
            sectors: concat!("sectors_", $dir),
            requests: concat!("requests_", $dir),
            bytes_per_sector: concat!("bytes_per_sector_", $dir),
            sectors_per_request: concat!("sectors_per_request_", $dir),
            useful_bytes_per_request: concat!("useful_bytes_per_request_", $dir),
            ideal_sectors_per_request: concat!("ideal_sectors_per_request_", $dir),
            excess_sectors_per_request: concat!("excess_sectors_per_request_", $dir),
            excess_sector_share: concat!("excess_sector_share_", $dir),
            efficiency_pct: concat!("efficiency_", $dir, "_pct"),
            mixed_access: concat!("mixed_access_", $dir),
            misaligned: concat!("misaligned_", $dir),
        }
    };
}

pub(super) const LOADS: AccessKeys = access_keys!("ld");
pub(super) const STORES: AccessKeys = access_keys!("st");

/// Sectors per request, the fewest sectors the useful bytes need, the excess, and
/// whether the average mixes access patterns, for loads or stores.
pub(super) fn derive_access(m: &mut Metrics, k: &AccessKeys) {
    let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) if b > 0.0 => Some(a / b),
        _ => None,
    };
    let sectors = get(m, k.sectors);
    put(m, k.sectors_per_request, ratio(sectors, get(m, k.requests)));
    let spr = get(m, k.sectors_per_request);
    // A zero useful-bytes ratio on real traffic means the SASS byte counter did not see
    // these accesses (cp.async / LDGSTS and TMA copies bypass it): unknown, not 0%.
    let bps = get(m, k.bytes_per_sector).filter(|b| *b > 0.0 || sectors.is_none_or(|s| s == 0.0));
    if let (Some(spr), Some(bps)) = (spr, bps) {
        let useful = bps * spr;
        let ideal = ideal_sectors(useful);
        put(m, k.useful_bytes_per_request, Some(useful));
        put(m, k.ideal_sectors_per_request, Some(ideal));
        put(
            m,
            k.excess_sectors_per_request,
            Some((spr - ideal).max(0.0)),
        );
        put(
            m,
            k.excess_sector_share,
            (spr > 0.0).then(|| ((spr - ideal) / spr).max(0.0)),
        );
    }
    if let Some(bps) = bps {
        put(m, k.efficiency_pct, Some(bps / 32.0 * 100.0));
    }
    // No global access of this kind at all: nothing is wasted.
    if sectors == Some(0.0) {
        for key in [
            k.excess_sector_share,
            k.excess_sectors_per_request,
            k.ideal_sectors_per_request,
        ] {
            put(m, key, Some(0.0));
        }
    }
    if let Some(spr) = spr {
        // Uniform access patterns give these averages; anything else mixes patterns.
        const PURE: [f64; 9] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 5.0, 9.0, 17.0];
        let pure = PURE.iter().any(|p| (spr - p).abs() <= 0.15);
        put(m, k.mixed_access, Some(if pure { 0.0 } else { 1.0 }));
    }
}

/// Whether the loads read each element in several narrow pieces (a struct of 4-byte
/// fields, bytes of a word, that the compiler could not load whole): the lanes' elements
/// sit `S` bytes apart (a request of `S` sectors spans 32 lanes at `S` bytes, for `S`
/// under 32), each load reads `w` of them, and the L1 serves each fetched sector to
/// `1 / (1 - hit share)` loads. Where those pieces make up the element (`k * w = S`, all
/// whole numbers), every fetched byte is read, by sibling loads: a split element, whose fix is one
/// wide load, not a stride or an array of structs read in part (the zoo's
/// bytes_interleaved: 4 loads of 1 byte, 75% hits; aos_read_x: 1 of 16 bytes, no hit).
fn derive_split_load(m: &mut Metrics) {
    let sectors = get(m, slot!("sectors_ld")).filter(|s| *s > 0.0);
    let (Some(sectors), Some(hits)) = (sectors, get(m, slot!("l1_hit_sectors_ld"))) else {
        return;
    };
    let hit_share = (hits / sectors).clamp(0.0, 1.0);
    put(m, slot!("l1_hit_share_ld"), Some(hit_share));
    let pieces = 1.0 / (1.0 - hit_share.min(0.99));
    put(m, slot!("load_pieces_per_element"), Some(pieces));
    let (Some(spr), Some(useful)) = (
        get(m, slot!("sectors_per_request_ld")),
        get(m, slot!("useful_bytes_per_request_ld")),
    ) else {
        return;
    };
    let piece = useful / 32.0;
    put(m, slot!("load_piece_bytes"), Some(piece));
    // One element's pieces, the same in every request: whole bytes, a whole number of
    // pieces of whole bytes that make up the element. A loop over each thread's own
    // consecutive elements whose lengths vary (the CG solver's CSR rows: 3.85 loads of 4
    // bytes over 13.8 bytes) averages to fractions, and stays uncoalesced-load's.
    let whole = |v: f64| (v - v.round()).abs() <= 0.1;
    let (element, count, width) = (spr.round(), pieces.round(), piece.round());
    let split = whole(spr)
        && whole(pieces)
        && whole(piece)
        && width >= 1.0
        && count >= 2.0
        && element < 32.0
        && count * width == element;
    put(m, slot!("split_load"), Some(if split { 1.0 } else { 0.0 }));
    if split {
        put(m, slot!("load_element_bytes"), Some(element));
        put(
            m,
            slot!("wide_load_bytes"),
            Some(wide_load_bytes(element) as f64),
        );
    }
    // A store has no L1 hits to tell a split element from a stride, but stores whose lanes
    // sit as far apart as the split loads' elements, each writing a whole part of one,
    // store the same type the same way (an element copied, out[i] = in[i]).
    let store_split = |m: &Metrics| {
        let spr = get(m, slot!("sectors_per_request_st"))?;
        let piece = get(m, slot!("useful_bytes_per_request_st"))? / 32.0;
        let count = element / piece.round();
        Some(
            whole(spr)
                && spr.round() == element
                && whole(piece)
                && piece >= 1.0
                && whole(count)
                && count >= 2.0,
        )
    };
    let split_store = split && store_split(m).unwrap_or(false);
    put(
        m,
        slot!("split_store"),
        Some(if split_store { 1.0 } else { 0.0 }),
    );
}

/// The width of the one load that reads an element of `element_bytes` whole: the next
/// power of two, at most 16 bytes (`__align__(N)`'s N, the vector type's size).
pub fn wide_load_bytes(element_bytes: f64) -> u64 {
    (element_bytes as u64).next_power_of_two().min(16)
}

/// The share of the global sectors a split element's pieces add: its loads', and its
/// stores' where they are split too (split_store).
fn derive_split_excess(m: &mut Metrics) {
    if get(m, slot!("split_load")) != Some(1.0) {
        return;
    }
    let part = |m: &Metrics, excess, share| Some(get(m, excess)? * get(m, share)?);
    let Some(loads) = part(m, slot!("excess_sector_share_ld"), slot!("global_share_ld")) else {
        return;
    };
    let stores = if get(m, slot!("split_store")) == Some(1.0) {
        part(m, slot!("excess_sector_share_st"), slot!("global_share_st")).unwrap_or(0.0)
    } else {
        0.0
    };
    put(m, slot!("split_excess_share"), Some(loads + stores));
}

/// The shares of the kernel's global sectors that are loads and stores.
pub(super) fn derive_traffic_shares(m: &mut Metrics) {
    if let (Some(ld), Some(st)) = (get(m, slot!("sectors_ld")), get(m, slot!("sectors_st"))) {
        let total = ld + st;
        let share = |x: f64| Some(if total > 0.0 { x / total } else { 0.0 });
        put(m, slot!("global_share_ld"), share(ld));
        put(m, slot!("global_share_st"), share(st));
    }
    // Global stores pass through L2 (L1 writes through). Distinct data beyond the L2's
    // size must reach DRAM; bytes stored many times the larger of the two are the same
    // lines written again and again: a running result kept in global memory. The bytes
    // the threads stored, not the sectors, so that scattered stores count once.
    if let (Some(st), Some(useful), Some(written), Some(l2)) = (
        get(m, slot!("sectors_st")),
        get(m, slot!("bytes_per_sector_st")),
        get(m, slot!("dram_bytes_write")),
        get(m, slot!("l2_cache_bytes")),
    ) && l2 > 0.0
    {
        put(
            m,
            slot!("store_rewrite_factor"),
            Some(st * useful / written.max(l2)),
        );
    }
}

/// Warps per block, the lanes of a partial warp, shared memory per block, the occupancy
/// limits where ncu's are absent, and the binding one.
pub(super) fn derive_launch_shape(m: &mut Metrics) {
    if let Some(b) = get(m, slot!("block_size")) {
        put(m, slot!("warps_per_block"), Some((b / 32.0).ceil()));
        put(m, slot!("partial_warp_lanes"), Some(b % 32.0));
    }
    if let (Some(st), Some(dy)) = (
        get(m, slot!("shared_mem_static_per_block")),
        get(m, slot!("shared_mem_dynamic_per_block")),
    ) {
        put(m, slot!("shared_mem_per_block"), Some(st + dy));
    }
    super::occupancy::derive_limits(m);
    let limits: Option<Vec<f64>> = super::OCCUPANCY_LIMITS.iter().map(|k| get(m, k)).collect();
    put(
        m,
        slot!("occupancy_limit_min"),
        limits.map(|l| l.into_iter().fold(f64::INFINITY, f64::min)),
    );
}

/// Local-memory traffic against global, and bank conflicts against shared wavefronts.
pub(super) fn derive_local_and_shared(m: &mut Metrics) {
    // ncu prints "no data" for the spill overhead when there was no spill request (0 of
    // 0 requests): no spills is no overhead, not an unknown one.
    if get(m, slot!("local_spill_requests")) == Some(0.0) {
        put(m, slot!("local_spill_overhead_pct"), Some(0.0));
    }
    if let (Some(l_ld), Some(l_st)) = (
        get(m, slot!("local_sectors_ld")),
        get(m, slot!("local_sectors_st")),
    ) {
        let local = l_ld + l_st;
        put(m, slot!("local_sectors"), Some(local));
        if let (Some(ld), Some(st)) = (get(m, slot!("sectors_ld")), get(m, slot!("sectors_st"))) {
            let total = local + ld + st;
            put(
                m,
                slot!("local_share"),
                Some(if total > 0.0 { local / total } else { 0.0 }),
            );
        }
    }
    if let (Some(w_ld), Some(w_st)) = (
        get(m, slot!("shared_wavefronts_ld")),
        get(m, slot!("shared_wavefronts_st")),
    ) {
        put(m, slot!("shared_wavefronts"), Some(w_ld + w_st));
        if let (Some(c_ld), Some(c_st)) = (
            get(m, slot!("bank_conflicts_ld")),
            get(m, slot!("bank_conflicts_st")),
        ) {
            put(m, slot!("bank_conflicts"), Some(c_ld + c_st));
            // No shared-memory traffic: no conflicts, rather than an unknown share.
            let share = if w_ld + w_st > 0.0 {
                (c_ld + c_st) / (w_ld + w_st)
            } else {
                0.0
            };
            put(m, slot!("bank_conflict_share"), Some(share));
        }
    }
}

/// Compute and memory throughput from their parts when ncu's combined figures are
/// missing, the least memory is busy, and the busier of compute and memory.
pub(super) fn derive_throughput(m: &mut Metrics) {
    from_parts(
        m,
        "sm_throughput_pct",
        COMPUTE_PARTS,
        "sm_throughput_subunits",
    );
    from_parts(
        m,
        "memory_throughput_pct",
        MEMORY_PARTS,
        "memory_throughput_subunits",
    );
    // Every one of these is a sub-unit of gpu__compute_memory_throughput: never above it.
    let floor = ["memory_throughput_pct", "dram_throughput_pct"]
        .iter()
        .chain(MEMORY_PARTS)
        .filter_map(|k| get(m, k))
        .reduce(f64::max);
    put(m, slot!("memory_throughput_floor_pct"), floor);
    let dram = get(m, slot!("dram_throughput_pct")).map_or(0.0, |d| d.clamp(0.0, 100.0));
    put(m, slot!("dram_headroom"), Some(1.0 - dram / 100.0));
    // Time follows the busiest unit: the pipe's share above the next busiest is what a fix
    // that only relieves the pipe can take.
    let next = get(m, slot!("issue_slots_pct")).unwrap_or(0.0).max(dram);
    let l1_headroom = get(m, slot!("l1_data_pipe_pct"))
        .filter(|p| *p > 0.0)
        .map_or(1.0, |p| (1.0 - next / p).clamp(0.0, 1.0));
    put(m, slot!("l1_pipe_headroom"), Some(l1_headroom));
    if let (Some(sm), Some(mem)) = (
        get(m, slot!("sm_throughput_pct")),
        get(m, slot!("memory_throughput_pct")),
    ) {
        put(m, slot!("busiest_throughput_pct"), Some(sm.max(mem)));
    }
    let busiest = get(m, slot!("busiest_throughput_pct")).map_or(0.0, |b| b.clamp(0.0, 100.0));
    put(m, slot!("busiest_headroom"), Some(1.0 - busiest / 100.0));
    let concentration = match (
        get(m, slot!("l2_atomic_busiest_slice_pct")),
        get(m, slot!("l2_atomic_avg_slice_pct")),
    ) {
        (Some(busiest), Some(avg)) if avg > 0.0 => Some(busiest / avg),
        // No atomics at all: no slice is busier than another.
        (Some(busiest), Some(_)) if busiest <= 0.0 => Some(1.0),
        _ => None,
    };
    put(m, slot!("l2_atomic_concentration"), concentration);
    derive_flop_share(m);
}

/// Fills `key` with the maximum of the sub-units present when the export lacks ncu's own
/// figure and has the first sub-unit, and records how many were taken in `count_key`:
/// the JSON and `gpulint keys` then say the number is that lower bound, not ncu's.
/// Older captures with other stand-ins get neither (the rules that read it are skipped).
pub(super) fn from_parts(
    m: &mut Metrics,
    key: &'static str,
    parts: &[&str],
    count_key: &'static str,
) {
    if m.contains_key(key) || get(m, parts[0]).is_none() {
        return;
    }
    let present: Vec<f64> = parts.iter().filter_map(|p| get(m, p)).collect();
    put(m, key, present.iter().copied().reduce(f64::max));
    put(m, count_key, Some(present.len() as f64));
}

/// How much FP64 arithmetic a kernel does beside its FP32, the conversions around it, and
/// what its FP64 pipe's work would cost at the FP32 rate: what tells float math promoted
/// to double from intended double math.
pub(super) fn derive_double_math(m: &mut Metrics) {
    let sum =
        |keys: [&str; 3]| -> Option<f64> { keys.iter().map(|k| get(m, k)).sum::<Option<f64>>() };
    let fp64 = sum(["inst_dfma", "inst_dadd", "inst_dmul"]);
    let fp32 = sum(["inst_ffma", "inst_fadd", "inst_fmul"]);
    put(m, slot!("fp64_inst"), fp64);
    let share = match (fp64, fp32) {
        (Some(d), Some(f)) if d + f > 0.0 => Some(d / (d + f)),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    put(m, slot!("fp64_inst_share"), share);
    let per_inst = match (get(m, slot!("conversions")), fp64) {
        (Some(c), Some(d)) if d > 0.0 => Some(c / d),
        // No double math: nothing promoted, whatever the conversions.
        (_, Some(d)) if d <= 0.0 => Some(0.0),
        _ => None,
    };
    put(m, slot!("conversions_per_fp64_inst"), per_inst);
    let at_fp32 = match (
        get(m, slot!("fp64_pipe_pct")),
        get(m, slot!("dfma_peak_per_cycle")),
        get(m, slot!("ffma_peak_per_cycle")),
    ) {
        (Some(pipe), Some(d), Some(f)) if f > 0.0 => Some(pipe * d / f),
        _ => None,
    };
    put(m, slot!("fp64_pipe_pct_at_fp32_rate"), at_fp32);
}

/// FP32 or FP64 arithmetic.
#[derive(Debug, Clone, Copy)]
pub enum Precision {
    Fp32,
    Fp64,
}

/// FLOPs of one precision from its thread-instruction counts: add + mul + 2 x fma; `None`
/// when a count is missing. The roofline and `flop_pct_of_peak` both count this way.
pub fn flops(m: &Metrics, precision: Precision) -> Option<f64> {
    let [add, mul, fma] = match precision {
        Precision::Fp32 => ["inst_fadd", "inst_fmul", "inst_ffma"],
        Precision::Fp64 => ["inst_dadd", "inst_dmul", "inst_dfma"],
    };
    Some(get(m, add)? + get(m, mul)? + 2.0 * get(m, fma)?)
}

/// How much of the FP32 (or FP64) peak the kernel's arithmetic reaches: what the roofline
/// calls % of roof for a compute-bound kernel, from the profile's own peaks and clock.
pub(super) fn derive_flop_share(m: &mut Metrics) {
    let seconds = get(m, slot!("duration_ns"))
        .map(|d| d * 1e-9)
        .filter(|s| *s > 0.0);
    let clock = get(m, slot!("sm_clock_hz"));
    let share = |precision: Precision, peak: &str| -> Option<f64> {
        let flops = flops(m, precision)?;
        let peak = 2.0 * get(m, peak)? * clock?;
        let seconds = seconds?;
        (peak > 0.0).then(|| flops / seconds / peak * 100.0)
    };
    let fp32 = share(Precision::Fp32, "ffma_peak_per_cycle");
    let fp64 = share(Precision::Fp64, "dfma_peak_per_cycle");
    if let Some(fp32) = fp32 {
        put(
            m,
            slot!("flop_pct_of_peak"),
            Some(fp64.map_or(fp32, |d| d.max(fp32))),
        );
    }
}

/// Serial code and the stall reasons: what a latency-bound kernel waits on.
pub(super) fn derive_warp_states(m: &mut Metrics) {
    // A guard, not a measurement: without the counter nothing counts as serial.
    let serial = match (
        get(m, slot!("threads_per_inst")),
        get(m, slot!("block_size")),
    ) {
        (Some(t), Some(b)) if b > 0.0 => t < 0.25 * b.min(32.0),
        _ => false,
    };
    put(
        m,
        slot!("mostly_serial"),
        Some(if serial { 1.0 } else { 0.0 }),
    );
    if let (Some(branches), Some(all)) = (
        get(m, slot!("branch_instructions")),
        get(m, slot!("warp_instructions")),
    ) && all > 0.0
    {
        put(m, slot!("branch_inst_pct"), Some(100.0 * branches / all));
    }
    let stalls: Option<Vec<f64>> = STALL_KEYS.iter().map(|k| get(m, k)).collect();
    if let Some(stalls) = stalls {
        put(m, slot!("stall_total"), Some(stalls.iter().sum()));
        let causes = STALL_KEYS
            .iter()
            .zip(&stalls)
            .filter(|(k, _)| !k.ends_with("selected"))
            .map(|(_, v)| *v);
        put(m, slot!("stall_top"), Some(causes.fold(0.0, f64::max)));
    }
}

/// A warp's global loads and how many it has in flight while it waits on memory. Little's
/// law: the loads' cycles in flight over the warp-cycles spent waiting for them. ncu counts
/// stalls per issued instruction, so those warp-cycles are the long-scoreboard stall times
/// the instructions issued. A warp whose every load waits for the one before has one.
pub(super) fn derive_loads_in_flight(m: &mut Metrics) {
    let Some(requests) = get(m, slot!("requests_ld")) else {
        return;
    };
    if let Some(warps) = get(m, slot!("grid_warps")).filter(|w| *w > 0.0) {
        put(m, slot!("loads_per_warp"), Some(requests / warps));
    }
    if let (Some(latency), Some(waiting), Some(issued)) = (
        get(m, slot!("load_latency_cycles")),
        get(m, slot!("stall_long_scoreboard")),
        get(m, slot!("warp_instructions")),
    ) && waiting * issued > 0.0
    {
        put(
            m,
            slot!("loads_in_flight_while_waiting"),
            Some(requests * latency / (waiting * issued)),
        );
    }
}

/// Misalignment adds one sector per contiguous row segment a request covers: a warp of
/// a 16x16 block covers two 64-byte rows, so a one-element halo offset turns 4 sectors
/// into 6; a 16-thread block's request covers one row, 2 sectors into 3.
pub(super) fn derive_row_segments(m: &mut Metrics) {
    let (Some(dim_x), Some(block)) = (get(m, slot!("block_dim_x")), get(m, slot!("block_size")))
    else {
        return;
    };
    if dim_x < 1.0 {
        return;
    }
    let lanes = block.min(32.0);
    let segments = if dim_x >= 32.0 {
        1.0
    } else {
        (lanes / dim_x).ceil().max(1.0)
    };
    m.set(slot!("row_segments_per_request"), segments);
    for k in [&LOADS, &STORES] {
        let excess = get(m, k.excess_sectors_per_request);
        let ideal = get(m, k.ideal_sectors_per_request);
        if let (Some(excess), Some(ideal)) = (excess, ideal) {
            // One extra sector per segment, each segment at least two sectors wide (a
            // one-sector segment that takes two is as much a stride as a shift).
            let per_segment = excess / segments;
            let misaligned = ideal >= 2.0 * segments && (0.5..=1.2).contains(&per_segment);
            m.insert(k.misaligned, if misaligned { 1.0 } else { 0.0 });
        }
    }
}

/// The warps a grid provides against the warp slots of the whole device.
pub(super) fn derive_grid_fill(m: &mut Metrics) {
    let (Some(blocks), Some(block)) = (get(m, slot!("grid_blocks")), get(m, slot!("block_size")))
    else {
        return;
    };
    let warps_per_block = (block / 32.0).ceil();
    let grid_warps = blocks * warps_per_block;
    m.set(slot!("grid_warps"), grid_warps);
    // Exports without the device attribute (details pages) still carry the warp limit.
    let per_sm = get(m, slot!("max_warps_per_sm"))
        .or_else(|| get(m, slot!("limit_warps")).map(|l| l * warps_per_block));
    if let (Some(sms), Some(per_sm)) = (get(m, slot!("sm_count")), per_sm)
        && sms * per_sm > 0.0
    {
        let slots = sms * per_sm;
        m.set(slot!("warp_slots"), slots);
        let fill = (grid_warps / slots * 100.0).min(100.0);
        m.set(slot!("grid_slot_fill_pct"), fill);
    }
    derive_waves(m, blocks);
}

/// The grid in waves of resident blocks, and the share of the time SMs idle at its end
/// (the tail effect): counted in blocks per SM, not waves, since a block with its SM to
/// itself runs faster when blocks share the SM's throughput (tail_heldout.cu: 1.5 waves of
/// two blocks per SM, 3 blocks on every SM, lost nothing).
fn derive_waves(m: &mut Metrics, blocks: f64) {
    let Some(sms) = get(m, slot!("sm_count")).filter(|s| *s > 0.0) else {
        return;
    };
    if let Some(per_sm) = get(m, slot!("occupancy_limit_min")).filter(|p| *p > 0.0) {
        m.set(slot!("grid_waves"), blocks / (sms * per_sm));
    }
    let per_sm = blocks / sms;
    let idle = if blocks > sms {
        1.0 - per_sm / per_sm.ceil()
    } else {
        0.0
    };
    m.set(slot!("tail_idle_share"), idle);
}
