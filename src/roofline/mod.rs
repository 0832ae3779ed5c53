//! Roofline placement: arithmetic intensity (FLOPs per DRAM byte) against the ridge
//! point, achieved FLOP/s and bytes/s, and how close each kernel runs to its roof.

mod describe;
pub mod gpus;
mod hierarchy;
mod tags;

pub use describe::{FAR_BELOW_ROOF_PCT, si};
pub use hierarchy::MemoryLevel;
use hierarchy::hierarchy;
pub use tags::{Bars, Verdict};
use tags::{TENSOR_BUSY_PCT, busiest_unit, side_of_ridge, tags};

use serde::Serialize;

use crate::ingest::Launch;
use crate::metrics::{self, Precision};

/// Metric keys the roofline reads, so `gpulint run` collects them.
pub const METRIC_KEYS: &[&str] = &[
    "inst_ffma",
    "inst_fadd",
    "inst_fmul",
    "inst_dfma",
    "inst_dadd",
    "inst_dmul",
    "inst_hfma",
    "inst_hadd",
    "inst_hmul",
    "dram_bytes_read",
    "dram_bytes_write",
    "duration_ns",
    "sm_clock_hz",
    "dram_clock_hz",
    "ffma_peak_per_cycle",
    "dfma_peak_per_cycle",
    "dram_bytes_peak_per_cycle",
    "l1_bytes",
    "l1_bytes_peak_per_cycle",
    "l1_clock_hz",
    "l2_bytes",
    "l2_bytes_peak_per_cycle",
    "l2_clock_hz",
    "tensor_pipe_pct",
    "sm_throughput_pct",
    "memory_throughput_pct",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    Memory,
    Compute,
    /// The SM is busy with work the FLOP counters do not see and the export lacks the
    /// tensor-pipe metric: a tensor-core kernel cannot be told from a memory-bound one.
    Unknown,
    /// No FP work, and the issue slots nearer their ceiling than DRAM is to its roof: on the
    /// instruction roofline, instructions set the time.
    Instruction,
}

impl Bound {
    /// As the JSON and CSV write it: `memory` or `compute`.
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
            Bound::Unknown => "unknown",
            Bound::Instruction => "instruction",
        }
    }

    /// As reports print it: `memory-bound` or `compute-bound`.
    pub fn label(self) -> &'static str {
        match self {
            Bound::Memory => "memory-bound",
            Bound::Compute => "compute-bound",
            Bound::Unknown => "bound unknown (no tensor-pipe metric)",
            Bound::Instruction => "instruction-bound",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Roofline {
    pub flops: f64,
    /// Which FLOP counter dominates and sets the compute roof: fp32, fp64 or fp16; or
    /// `tensor` when the tensor pipe is busy (then `pct_of_roof` is its utilisation).
    pub precision: &'static str,
    pub dram_bytes: f64,
    pub arithmetic_intensity: f64,
    pub bound: Bound,
    /// Both compute and memory throughput far below their ceilings.
    pub latency_bound: bool,
    /// The busiest L2 slice's atomic unit, % busy, when global atomics on a few addresses
    /// are the roof the kernel hits (contended-atomics' case): then it is not latency-bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atomic_slice_pct: Option<f64>,
    pub achieved_flops: f64,
    pub achieved_bytes_per_s: f64,
    pub peak_flops: f64,
    pub peak_bytes_per_s: f64,
    pub ridge: f64,
    pub pct_of_roof: f64,
    /// The busiest unit besides DRAM and the FP units (the L2, L1 or the SM's other
    /// pipes) and how busy, %: where a kernel far below the DRAM and FP roofs may still
    /// meet its limit. `None` when the export has none of their figures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub busiest_unit: Option<(&'static str, f64)>,
    /// Where the peaks came from: the profile's own metrics, or the built-in table.
    pub peaks_from: String,
    /// The tensor pipe is busy: FP32/FP64 counters miss its work.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tensor_pipe_pct: Option<f64>,
    /// The L1 load/store pipe's utilisation, when it is the roof the kernel hits: busy
    /// while the kernel runs far below its DRAM-roofline roof (GL502's case).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_store_pipe_pct: Option<f64>,
    /// The SM's issue slots' utilisation, when instructions are the roof the kernel hits:
    /// busy, with little arithmetic and no memory unit as busy (GL503's case).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub issue_slots_pct: Option<f64>,
    /// The busier of the ALU and XU pipes, when that pipe is the roof the kernel hits
    /// (pipe-bound's case): then the issue slots are not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipe_pct: Option<f64>,
    /// For a kernel with no FP work, where the FLOP roofline has nothing to place: its
    /// instruction issue rate as a share of the SM's issue ceiling (warp instructions per
    /// cycle over elapsed cycles), the instruction roofline's vertical coordinate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_pct_of_roof: Option<f64>,
    /// The instruction roofline's coordinates (NERSC's, Ding & Williams 2019), for a kernel
    /// with no FP work: warp instructions per DRAM sector (32 bytes) and per second, and the
    /// issue ceiling (4 warp instructions a cycle per SM). Needs the SM count and clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction_roofline: Option<InstructionRoofline>,
    /// The hierarchical roofline (Yang and Williams' method): the kernel against L1, L2 and
    /// DRAM, each with its own intensity and bandwidth roof, where the export has their
    /// bytes and peaks. Empty without them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hierarchy: Vec<MemoryLevel>,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct InstructionRoofline {
    pub warp_instructions_per_sector: f64,
    pub warp_instructions_per_s: f64,
    pub peak_warp_instructions_per_s: f64,
}

/// How many points nearer its ceiling than DRAM is to its roof the issue rate must be for a
/// kernel without FP work to be called instruction-bound (torus_shift in
/// samples/corpus/compute_classes.cu read 41/47 and 50/44 in two H200 runs).
const INSTRUCTION_MARGIN_PCT: f64 = 10.0;

/// `work` per unit of DRAM traffic; infinite with no traffic.
fn per_byte(work: f64, traffic: f64) -> f64 {
    if traffic > 0.0 {
        work / traffic
    } else {
        f64::INFINITY
    }
}

/// Warp instructions each SM can issue per cycle: one per scheduler, four schedulers since
/// Volta.
const ISSUE_PER_SM_CYCLE: f64 = 4.0;

/// A no-FP kernel's place on the instruction roofline, from its issue slots' utilisation,
/// the device's SMs and clock, its duration and its DRAM bytes.
fn instruction_roofline(
    launch: &Launch,
    seconds: f64,
    dram_bytes: f64,
) -> Option<InstructionRoofline> {
    let m = |k: &str| launch.metrics.get(k).copied();
    let peak = m("sm_count")? * ISSUE_PER_SM_CYCLE * m("sm_clock_hz")?;
    let achieved = m("issue_slots_pct")? / 100.0 * peak;
    Some(InstructionRoofline {
        warp_instructions_per_sector: per_byte(achieved * seconds, dram_bytes / 32.0),
        warp_instructions_per_s: achieved,
        peak_warp_instructions_per_s: peak,
    })
}

/// Places one launch with the rules' default bars (`place_with`).
pub fn place(launch: &Launch, gpu_override: Option<&gpus::GpuPeaks>) -> Option<Roofline> {
    place_with(launch, gpu_override, &Bars::default())
}

/// Places one launch. `None` when the export lacks the FLOP counters, DRAM bytes or
/// duration, or no peak is known for the device.
pub fn place_with(
    launch: &Launch,
    gpu_override: Option<&gpus::GpuPeaks>,
    bars: &Bars,
) -> Option<Roofline> {
    let m = |k: &str| launch.metrics.get(k).copied();
    let (precision, flops) = counted_flops(launch)?;
    let dram_bytes = m("dram_bytes_read")? + m("dram_bytes_write")?;
    let seconds = m("duration_ns")? * 1e-9;
    if seconds <= 0.0 {
        return None;
    }
    let (peak_flops, peak_bytes_per_s, peaks_from) = peaks(launch, precision, gpu_override)?;
    let ridge = peak_flops / peak_bytes_per_s;
    let arithmetic_intensity = per_byte(flops, dram_bytes);
    let achieved_flops = flops / seconds;
    let achieved_bytes_per_s = dram_bytes / seconds;
    let tensor = m("tensor_pipe_pct").filter(|p| *p >= TENSOR_BUSY_PCT);
    let bound = side_of_ridge(
        launch,
        bars,
        arithmetic_intensity >= ridge,
        achieved_flops < 0.1 * peak_flops,
    );
    let (precision, pct_of_roof) = match tensor {
        // The FP32/FP64 counters miss tensor-core work, so intensity reads low: a busy
        // tensor pipe makes the kernel compute-bound, and its utilisation is the measure.
        Some(t) => ("tensor", t),
        None if bound == Bound::Compute => (precision, achieved_flops / peak_flops * 100.0),
        None => (precision, achieved_bytes_per_s / peak_bytes_per_s * 100.0),
    };
    // No FP work: the FLOP roofline has nothing to place, so the instruction roofline
    // decides, by whichever ceiling the kernel is nearer: issue slots or DRAM. A near tie
    // (within INSTRUCTION_MARGIN_PCT) stays memory-bound: two captures of one kernel
    // differ by that much, and the verdict must not flip between them.
    let instruction_pct_of_roof = m("issue_slots_pct").filter(|_| flops <= 0.0 && tensor.is_none());
    let flop_roof_pct = pct_of_roof;
    let (bound, pct_of_roof) = match instruction_pct_of_roof {
        Some(issue) if issue >= pct_of_roof + INSTRUCTION_MARGIN_PCT => (Bound::Instruction, issue),
        _ => (bound, pct_of_roof),
    };
    let roofs = tags(launch, bars, flop_roof_pct);
    let busiest_unit = busiest_unit(launch);
    Some(Roofline {
        flops,
        precision,
        dram_bytes,
        busiest_unit,
        arithmetic_intensity,
        bound,
        latency_bound: roofs.latency_bound,
        atomic_slice_pct: roofs.atomic_slice_pct,
        achieved_flops,
        achieved_bytes_per_s,
        peak_flops,
        peak_bytes_per_s,
        ridge,
        pct_of_roof,
        peaks_from,
        tensor_pipe_pct: tensor,
        load_store_pipe_pct: roofs.load_store_pipe_pct,
        issue_slots_pct: roofs.issue_slots_pct,
        pipe_pct: roofs.pipe_pct,
        instruction_pct_of_roof,
        instruction_roofline: instruction_pct_of_roof
            .and_then(|_| instruction_roofline(launch, seconds, dram_bytes)),
        // The FLOP counters miss a tensor pipe's work: its levels are placed by bandwidth.
        hierarchy: hierarchy(
            launch,
            if tensor.is_some() { 0.0 } else { flops },
            seconds,
            peak_flops,
            (dram_bytes, peak_bytes_per_s),
        ),
    })
}

/// The FLOPs of the dominant precision: FP32 and FP64 as add + mul + 2 x fma; FP16 with
/// half2 instructions counted double. `None` without the FP32 counters.
fn counted_flops(launch: &Launch) -> Option<(&'static str, f64)> {
    let m = |k: &str| launch.metrics.get(k).copied();
    let fp32 = metrics::flops(&launch.metrics, Precision::Fp32)?;
    let fp64 = metrics::flops(&launch.metrics, Precision::Fp64).unwrap_or(0.0);
    // half2 instructions do two operations per thread: count them double. ptxas also
    // emits HFMA2.MMA as a plain register move, so HFMA alone, with no HADD or HMUL, is
    // not taken as FP16 work.
    let fp16 = match (m("inst_hadd"), m("inst_hmul"), m("inst_hfma")) {
        (Some(a), Some(b), Some(f)) if a + b > 0.0 => 2.0 * (a + b + 2.0 * f),
        _ => 0.0,
    };
    Some(
        [("fp32", fp32), ("fp64", fp64), ("fp16", fp16)]
            .into_iter()
            .fold(
                ("fp32", fp32),
                |best, x| if x.1 > best.1 { x } else { best },
            ),
    )
}

/// Peak FLOP/s and DRAM bytes/s, and where they came from: the profile's own peak
/// metrics times its clocks, or the table (always, with `--gpu`).
fn peaks(
    launch: &Launch,
    precision: &str,
    gpu_override: Option<&gpus::GpuPeaks>,
) -> Option<(f64, f64, String)> {
    let m = |k: &str| launch.metrics.get(k).copied();
    let from_profile = || -> Option<(f64, f64)> {
        let bw = m("dram_bytes_peak_per_cycle")? * m("dram_clock_hz")?;
        let per_cycle = match precision {
            "fp64" => m("dfma_peak_per_cycle")?,
            // FP16 runs at least at the FP32 rate on these parts; the FP32 roof is the
            // conservative one.
            _ => m("ffma_peak_per_cycle")?,
        };
        Some((2.0 * per_cycle * m("sm_clock_hz")?, bw))
    };
    if let (None, Some((f, b))) = (gpu_override, from_profile()) {
        return Some((f, b, "profile".to_string()));
    }
    let g = gpu_override.or_else(|| launch.device.as_deref().and_then(gpus::lookup))?;
    let f = if precision == "fp64" {
        g.fp64_flops
    } else {
        g.fp32_flops
    };
    Some((
        f,
        g.dram_bytes_per_s,
        format!("table: {} ({})", g.name, g.source),
    ))
}
