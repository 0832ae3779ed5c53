//! Roofline placement: arithmetic intensity (FLOPs per DRAM byte) against the ridge
//! point, achieved FLOP/s and bytes/s, and how close each kernel runs to its roof.

pub mod gpus;
pub mod svg;

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

/// One level of the memory hierarchy on the hierarchical roofline.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryLevel {
    /// `L1`, `L2` or `DRAM`.
    pub level: &'static str,
    pub bytes: f64,
    /// FLOPs per byte moved at this level.
    pub arithmetic_intensity: f64,
    pub peak_bytes_per_s: f64,
    /// Achieved bandwidth as a share of the level's peak, %.
    pub pct_of_bandwidth: f64,
    /// Achieved FLOP/s as a share of this level's roof (the lower of the FP peak and
    /// intensity times bandwidth), %; for a kernel without FP work, its bandwidth share.
    pub pct_of_roof: f64,
    /// The intensity at this level is past its ridge: the FP peak, not this level's
    /// bandwidth, is its roof.
    pub past_ridge: bool,
}

/// The kernel against L1, L2 and DRAM: each level whose bytes, peak and clock the export
/// has.
fn hierarchy(
    launch: &Launch,
    flops: f64,
    seconds: f64,
    peak_flops: f64,
    dram: (f64, f64),
) -> Vec<MemoryLevel> {
    let m = |k: &str| launch.metrics.get(k).copied();
    let level = |name, bytes: Option<f64>, peak: Option<f64>| -> Option<MemoryLevel> {
        let (bytes, peak) = (bytes?, peak?);
        if peak <= 0.0 {
            return None;
        }
        let arithmetic_intensity = per_byte(flops, bytes);
        let pct_of_bandwidth = bytes / seconds / peak * 100.0;
        let past_ridge = flops > 0.0 && arithmetic_intensity * peak >= peak_flops;
        let pct_of_roof = if flops > 0.0 {
            flops / seconds / peak_flops.min(arithmetic_intensity * peak) * 100.0
        } else {
            pct_of_bandwidth
        };
        Some(MemoryLevel {
            level: name,
            bytes,
            arithmetic_intensity,
            peak_bytes_per_s: peak,
            pct_of_bandwidth,
            pct_of_roof,
            past_ridge,
        })
    };
    let peak = |per_cycle: &str, clock: &str| Some(m(per_cycle)? * m(clock)?);
    let levels = [
        level(
            "L1",
            m("l1_bytes"),
            peak("l1_bytes_peak_per_cycle", "l1_clock_hz"),
        ),
        level(
            "L2",
            m("l2_bytes"),
            peak("l2_bytes_peak_per_cycle", "l2_clock_hz"),
        ),
        level("DRAM", Some(dram.0), Some(dram.1)),
    ];
    // DRAM alone is the plain roofline: the hierarchy needs a cache level.
    if levels[..2].iter().all(Option::is_none) {
        return Vec::new();
    }
    levels.into_iter().flatten().collect()
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

// The bars below judge only where no rules are at hand (the library's `place`); `check`,
// `run` and `roofline` take each tag from its rule's verdict (`Bars::verdict`). A test
// keeps them equal to the rules' defaults.

/// Below this share of peak in both compute and memory throughput, latency is not hidden.
pub const LATENCY_BOUND_PCT: f64 = 40.0;
/// Tensor pipe busier than this: the kernel is a tensor-core kernel.
const TENSOR_BUSY_PCT: f64 = 10.0;
/// The L1 load/store pipe at least this busy, with the kernel under
/// [`LOAD_STORE_MAX_ROOF_PCT`] of its roof, is the roof it hits (GL502's thresholds; a test
/// keeps them equal).
pub const LOAD_STORE_BUSY_PCT: f64 = 80.0;
pub const LOAD_STORE_MAX_ROOF_PCT: f64 = 50.0;
/// Issue slots at least this busy, above every memory unit, with FP and tensor work under
/// [`ISSUE_MAX_MATH_PCT`] of peak, are the roof (GL503's thresholds; a test keeps them equal).
pub const ISSUE_BUSY_PCT: f64 = 60.0;
pub const ISSUE_MAX_MATH_PCT: f64 = 5.0;
/// The ALU or XU pipe at least this busy is the roof rather than the issue slots
/// (pipe-bound's `min_pipe_pct`, issue-bound's `pipe_bound_pct`; a test keeps them equal).
pub const PIPE_BUSY_PCT: f64 = 70.0;

/// The bars the roofline's tags share with the rules that name the same bounds
/// (latency-bound, load-store-bound, issue-bound, pipe-bound): their parameters, so that
/// `--param latency-bound.max_busy_pct=30` moves the tag with the rule; and, where the
/// rules are at hand, their own verdict on each launch, so that the roofline calls a
/// kernel latency-bound exactly when latency-bound fires on it (one derivation).
#[derive(Clone, Copy)]
pub struct Bars<'a> {
    pub latency_busy_pct: f64,
    pub load_store_busy_pct: f64,
    pub load_store_max_roof_pct: f64,
    pub issue_busy_pct: f64,
    pub issue_max_math_pct: f64,
    pub pipe_busy_pct: f64,
    /// Whether the rule of a slug fires on a launch; `None` for a rule not enabled. Without
    /// it (the library's [`place`]), the bars above decide.
    pub verdict: Option<Verdict<'a>>,
}

/// A rule's verdict on a launch, by the rule's slug: `Some(true)` when it fires, `None`
/// for a rule not enabled.
pub type Verdict<'a> = &'a dyn Fn(&str, &Launch) -> Option<bool>;

impl Default for Bars<'_> {
    fn default() -> Self {
        Bars {
            latency_busy_pct: LATENCY_BOUND_PCT,
            load_store_busy_pct: LOAD_STORE_BUSY_PCT,
            load_store_max_roof_pct: LOAD_STORE_MAX_ROOF_PCT,
            issue_busy_pct: ISSUE_BUSY_PCT,
            issue_max_math_pct: ISSUE_MAX_MATH_PCT,
            pipe_busy_pct: PIPE_BUSY_PCT,
            verdict: None,
        }
    }
}

impl<'a> Bars<'a> {
    /// The bars from the rules' parameters (`param(slug, name)`), each rule's default where
    /// it is not enabled.
    pub fn with(param: impl Fn(&str, &str) -> Option<f64>, verdict: Verdict<'a>) -> Bars<'a> {
        let d = Bars::default();
        Bars {
            latency_busy_pct: param("latency-bound", "max_busy_pct").unwrap_or(d.latency_busy_pct),
            load_store_busy_pct: param("load-store-bound", "min_pipe_pct")
                .unwrap_or(d.load_store_busy_pct),
            load_store_max_roof_pct: param("load-store-bound", "max_arith_pct")
                .unwrap_or(d.load_store_max_roof_pct),
            issue_busy_pct: param("issue-bound", "min_issue_pct").unwrap_or(d.issue_busy_pct),
            issue_max_math_pct: param("issue-bound", "max_math_pct")
                .unwrap_or(d.issue_max_math_pct),
            pipe_busy_pct: param("pipe-bound", "min_pipe_pct").unwrap_or(d.pipe_busy_pct),
            verdict: Some(verdict),
        }
    }
}

/// Places one launch with the rules' default bars ([`place_with`]).
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
    let Tags {
        latency_bound,
        load_store_pipe_pct,
        issue_slots_pct,
        pipe_pct,
    } = tags(launch, bars, flop_roof_pct);
    let busiest_unit = busiest_unit(launch);
    Some(Roofline {
        flops,
        precision,
        dram_bytes,
        busiest_unit,
        arithmetic_intensity,
        bound,
        latency_bound,
        achieved_flops,
        achieved_bytes_per_s,
        peak_flops,
        peak_bytes_per_s,
        ridge,
        pct_of_roof,
        peaks_from,
        tensor_pipe_pct: tensor,
        load_store_pipe_pct,
        issue_slots_pct,
        pipe_pct,
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

/// Compute or memory by the side of the ridge; a busy tensor pipe is compute. Issuing at
/// least as busily as a latency-bound kernel never does, with almost no counted FLOPs
/// (`few_flops`), is unknown without the tensor-pipe metric: that may be a tensor-core GEMM.
fn side_of_ridge(launch: &Launch, bars: &Bars, past_ridge: bool, few_flops: bool) -> Bound {
    let m = |k: &str| launch.metrics.get(k).copied();
    let tensor = m("tensor_pipe_pct").filter(|p| *p >= TENSOR_BUSY_PCT);
    let unseen_work = m("tensor_pipe_pct").is_none()
        && m("sm_throughput_pct").is_some_and(|p| p >= bars.latency_busy_pct)
        && few_flops;
    if tensor.is_some() || past_ridge {
        Bound::Compute
    } else if unseen_work {
        Bound::Unknown
    } else {
        Bound::Memory
    }
}

/// The busiest unit besides DRAM and the FP units: the L2 (its throughput and its input,
/// output and tag sub-units), the L1 data pipe, or the SM's other pipes.
fn busiest_unit(launch: &Launch) -> Option<(&'static str, f64)> {
    [
        ("L2", "l2_throughput_pct"),
        ("L2", "l2_input_pct"),
        ("L2", "l2_output_pct"),
        ("L2", "l2_tag_pct"),
        ("L1", "l1_data_pipe_pct"),
        ("SM", "sm_throughput_pct"),
    ]
    .into_iter()
    .filter_map(|(level, key)| launch.metrics.get(key).map(|p| (level, *p)))
    .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The roofs a kernel hits besides DRAM and the FP units (latency-bound, load-store-bound
/// and issue-bound's cases), with the thresholds of those rules.
struct Tags {
    latency_bound: bool,
    load_store_pipe_pct: Option<f64>,
    issue_slots_pct: Option<f64>,
    pipe_pct: Option<f64>,
}

fn tags(launch: &Launch, bars: &Bars, flop_roof_pct: f64) -> Tags {
    let m = |k: &str| launch.metrics.get(k).copied();
    let pipe = match (m("alu_pipe_pct"), m("xu_pipe_pct")) {
        (Some(alu), Some(xu)) => Some(alu.max(xu)),
        _ => None,
    };
    // With the rules at hand, each tag is its rule's verdict; a rule not enabled gives none.
    if let Some(verdict) = bars.verdict {
        let fires = |slug: &str| verdict(slug, launch) == Some(true);
        return Tags {
            latency_bound: fires("latency-bound"),
            load_store_pipe_pct: m("l1_data_pipe_pct").filter(|_| fires("load-store-bound")),
            issue_slots_pct: m("issue_slots_pct").filter(|_| fires("issue-bound")),
            pipe_pct: pipe.filter(|_| fires("pipe-bound")),
        };
    }
    let latency_bound = match (m("sm_throughput_pct"), m("memory_throughput_pct")) {
        (Some(sm), Some(mem)) => sm.max(mem) < bars.latency_busy_pct,
        _ => false,
    };
    let load_store_pipe_pct = m("l1_data_pipe_pct")
        .filter(|p| *p >= bars.load_store_busy_pct && flop_roof_pct < bars.load_store_max_roof_pct);
    let math = m("flop_pct_of_peak")
        .unwrap_or(0.0)
        .max(m("tensor_pipe_pct").unwrap_or(0.0));
    let pipe_pct = pipe.filter(|p| {
        *p >= bars.pipe_busy_pct && m("memory_throughput_pct").is_some_and(|mem| mem < *p)
    });
    let issue_slots_pct = m("issue_slots_pct").filter(|p| {
        *p >= bars.issue_busy_pct
            && m("memory_throughput_pct").is_some_and(|mem| mem < *p)
            && math < bars.issue_max_math_pct
            && pipe_pct.is_none()
    });
    Tags {
        latency_bound,
        load_store_pipe_pct,
        issue_slots_pct,
        pipe_pct,
    }
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

/// Under this share of its roof, with no unit named as the one it hits, a kernel is not
/// "compute-bound" or "memory-bound" in any useful sense: its side of the ridge only says
/// which roof is nearer (issue 40: a GEMM at 2% of the FP32 roof was called compute-bound).
pub const FAR_BELOW_ROOF_PCT: f64 = 10.0;

/// A unit this busy is where a kernel far below the DRAM and FP roofs meets its limit:
/// the latency-bound bar (below it nothing is busy).
pub const CACHE_LEVEL_BUSY_PCT: f64 = 40.0;

/// "58.3 TFLOP/s", "4.12 TB/s": SI prefixes for the human report.
impl Roofline {
    /// The unit a kernel far below the DRAM and FP roofs is busiest at, when that is busy
    /// enough to be its limit: the level of the hierarchy it meets.
    pub fn binding_cache(&self) -> Option<(&'static str, f64)> {
        self.busiest_unit
            .filter(|(_, p)| *p >= CACHE_LEVEL_BUSY_PCT && self.far_below_roofs())
    }

    /// Far below both roofs, with no other unit named as its limit: the side of the ridge
    /// is then only where the nearer roof is.
    pub fn far_below_roofs(&self) -> bool {
        self.instruction_pct_of_roof.is_none()
            && self.pct_of_roof < FAR_BELOW_ROOF_PCT
            && !self.latency_bound
            && self.load_store_pipe_pct.is_none()
            && self.pipe_pct.is_none()
            && self.issue_slots_pct.is_none()
    }

    /// The one text rendering of a placement, for `check`'s roofline section and
    /// `gpulint roofline`: "AI 0.31 FLOP/B (ridge 13.9), memory-bound, 87% of roof: 1.31
    /// TFLOP/s fp32, 4.20 TB/s".
    pub fn describe(&self) -> String {
        let ai = if self.arithmetic_intensity.is_finite() {
            format!("{:.2} FLOP/B", self.arithmetic_intensity)
        } else {
            "no DRAM traffic".into()
        };
        let flops = if self.flops > 0.0 {
            format!("{} {}", si(self.achieved_flops, "FLOP/s"), self.precision)
        } else {
            "no FP work".into()
        };
        let mut line = match (self.instruction_pct_of_roof, self.instruction_roofline) {
            // No FP work: placed on the instruction roofline instead.
            (Some(issue), instructions) => {
                let dram = self.achieved_bytes_per_s / self.peak_bytes_per_s * 100.0;
                let per_sector = instructions.map_or(String::new(), |i| {
                    format!(
                        "{:.2} warp instructions per DRAM sector, ",
                        i.warp_instructions_per_sector
                    )
                });
                format!(
                    "no FP work: {per_sector}instructions at {issue:.0}% of the issue ceiling, \
                     DRAM at {dram:.0}% of its roof ({}): {}",
                    si(self.achieved_bytes_per_s, "B/s"),
                    self.bound.label()
                )
            }
            (None, _) if self.far_below_roofs() => format!(
                "AI {ai} (ridge {:.1}), {}: {:.0}% of the nearer of the DRAM and FP roofs, \
                 the {} roof: {flops}, {}",
                self.ridge,
                match (self.binding_cache(), self.busiest_unit) {
                    (Some((level, p)), _) => {
                        format!("far below the DRAM and FP roofs, {level} {p:.0}% busy")
                    }
                    (None, Some(_)) => "far below every roof".into(),
                    (None, None) => "far below the DRAM and FP roofs (the export has no L1, L2 \
                                     or SM figures)"
                        .into(),
                },
                self.pct_of_roof,
                match self.bound {
                    Bound::Memory => "DRAM",
                    _ => "compute",
                },
                si(self.achieved_bytes_per_s, "B/s"),
            ),
            (None, _) => format!(
                "AI {ai} (ridge {:.1}), {}, {:.0}% of roof: {flops}, {}",
                self.ridge,
                self.bound.label(),
                self.pct_of_roof,
                si(self.achieved_bytes_per_s, "B/s"),
            ),
        };
        if self.latency_bound {
            line.push_str(", latency-bound");
        }
        if let Some(t) = self.tensor_pipe_pct {
            line.push_str(&format!(", tensor pipe {t:.0}% busy (not in FLOP count)"));
        }
        if let Some(p) = self.load_store_pipe_pct {
            line.push_str(&format!(", load/store pipe {p:.0}% busy: the roof it hits"));
        }
        if let (Some(p), None) = (self.issue_slots_pct, self.instruction_pct_of_roof) {
            line.push_str(&format!(
                ", issue slots {p:.0}% busy: instructions, not bytes, are the roof it hits"
            ));
        }
        if let Some(p) = self.pipe_pct {
            line.push_str(&format!(", ALU/XU pipe {p:.0}% busy: the roof it hits"));
        }
        if let Some(h) = self.describe_hierarchy() {
            line.push_str("; ");
            line.push_str(&h);
        }
        line
    }

    /// The level of the memory hierarchy nearest its bandwidth roof: where the kernel
    /// binds on the hierarchical roofline. `None` when every level's intensity is past its
    /// ridge (the FP roof binds) or there is no hierarchy.
    pub fn binding_level(&self) -> Option<&MemoryLevel> {
        self.hierarchy
            .iter()
            .filter(|l| !l.past_ridge)
            .max_by(|a, b| a.pct_of_roof.total_cmp(&b.pct_of_roof))
    }

    /// "by level, % of roof: L1 85% (AI 0.12), L2 40% (AI 0.5), DRAM 7% (AI 3.1): L1 is
    /// nearest its roof", or how far the nearest is when every level is far below its
    /// roof, or that the FP roof binds when every level is past its ridge.
    fn describe_hierarchy(&self) -> Option<String> {
        if self.hierarchy.is_empty() {
            return None;
        }
        let levels: Vec<String> = self
            .hierarchy
            .iter()
            .map(|l| {
                let ai = if l.arithmetic_intensity.is_finite() && self.flops > 0.0 {
                    format!(" (AI {:.2})", l.arithmetic_intensity)
                } else {
                    String::new()
                };
                format!("{} {:.0}%{ai}", l.level, l.pct_of_roof)
            })
            .collect();
        let verdict = match self.binding_level() {
            None => "every level's intensity is past its ridge: the FP roof binds".to_string(),
            Some(n) if n.pct_of_roof < FAR_BELOW_ROOF_PCT => format!(
                "every level far below its roof, the nearest {} at {:.0}%",
                n.level, n.pct_of_roof
            ),
            Some(n) => format!("{} is nearest its roof", n.level),
        };
        Some(format!(
            "by level, % of roof: {}: {verdict}",
            levels.join(", ")
        ))
    }

    /// The bound in a word, for the report's list of the kernels that take the time.
    pub fn label(&self) -> &'static str {
        if self.latency_bound {
            "latency-bound"
        } else if self.load_store_pipe_pct.is_some() {
            "load/store-bound"
        } else if self.pipe_pct.is_some() {
            "pipe-bound"
        } else if self.issue_slots_pct.is_some() {
            "issue-bound"
        } else if let Some(level) = self
            .binding_level()
            .filter(|l| l.level != "DRAM" && l.pct_of_roof >= FAR_BELOW_ROOF_PCT)
            .filter(|_| self.far_below_roofs())
        {
            // The hierarchical roofline names the level where the kernel binds.
            match level.level {
                "L2" => "L2-bound (hierarchical roofline)",
                _ => "L1-bound (hierarchical roofline)",
            }
        } else if let Some((level, _)) = self.binding_cache() {
            match level {
                "L2" => "L2-bound (far below the DRAM and FP roofs)",
                "L1" => "L1-bound (far below the DRAM and FP roofs)",
                _ => "SM-bound (far below the DRAM and FP roofs)",
            }
        } else if self.far_below_roofs() && self.busiest_unit.is_some() {
            "far below every roof"
        } else if self.far_below_roofs() {
            "far below the DRAM and FP roofs"
        } else {
            self.bound.label()
        }
    }
}

pub fn si(v: f64, unit: &str) -> String {
    let (scale, prefix) = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(s, _)| v.abs() >= *s)
        .unwrap_or((1.0, ""));
    let x = v / scale;
    let decimals = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:.decimals$} {prefix}{unit}")
}
