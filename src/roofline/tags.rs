//! The roofs a kernel hits besides DRAM and the FP units (latency, the load/store pipe, the
//! issue slots, the ALU and XU pipes): each the linter's finding of its rule where the
//! rules ran (one judge of one verdict), else the bars those rules set by default.

use crate::ingest::Launch;

use super::Bound;

// The bars below judge only where no rules ran (the library's `place`); `check`, `run` and
// `roofline` take each tag from the linter's findings (`Bars::verdict`, which
// tests/roofline.rs holds to them on every fixture). A test keeps the bars equal to the
// rules' defaults.

/// Below this share of peak in both compute and memory throughput, latency is not hidden.
pub const LATENCY_BOUND_PCT: f64 = 40.0;
/// Tensor pipe busier than this: the kernel is a tensor-core kernel.
pub(super) const TENSOR_BUSY_PCT: f64 = 10.0;
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
/// The busiest L2 slice's atomic unit at least this busy, and at least
/// [`ATOMIC_CONCENTRATION`] times the average slice's, is the roof: atomics on a few
/// addresses (contended-atomics' thresholds; a test keeps them equal).
pub const ATOMIC_SLICE_BUSY_PCT: f64 = 20.0;
pub const ATOMIC_CONCENTRATION: f64 = 4.0;

/// The bars the roofline's tags share with the rules that name the same bounds
/// (latency-bound, load-store-bound, issue-bound, pipe-bound): their parameters, so that
/// `--param latency-bound.max_busy_pct=30` moves the tag with the rule; and, where the
/// rules ran, whether the linter reported each on a launch, so that the roofline calls a
/// kernel latency-bound exactly when the report has a latency-bound finding on it.
#[derive(Clone, Copy)]
pub struct Bars<'a> {
    pub latency_busy_pct: f64,
    pub load_store_busy_pct: f64,
    pub load_store_max_roof_pct: f64,
    pub issue_busy_pct: f64,
    pub issue_max_math_pct: f64,
    pub pipe_busy_pct: f64,
    pub atomic_slice_busy_pct: f64,
    pub atomic_concentration: f64,
    /// Whether the linter reported the rule of a slug on a launch; `None` for a rule not enabled. Without
    /// it (the library's [`super::place`]), the bars above decide.
    pub verdict: Option<Verdict<'a>>,
}

/// A rule's verdict on a launch, by the rule's slug: `Some(true)` when the linter
/// reported it there, `None` for a rule not enabled.
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
            atomic_slice_busy_pct: ATOMIC_SLICE_BUSY_PCT,
            atomic_concentration: ATOMIC_CONCENTRATION,
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
            atomic_slice_busy_pct: param("contended-atomics", "min_busiest_slice_pct")
                .unwrap_or(d.atomic_slice_busy_pct),
            atomic_concentration: param("contended-atomics", "min_concentration")
                .unwrap_or(d.atomic_concentration),
            verdict: Some(verdict),
        }
    }
}

/// Compute or memory by the side of the ridge; a busy tensor pipe is compute. Issuing at
/// least as busily as a latency-bound kernel never does, with almost no counted FLOPs
/// (`few_flops`), is unknown without the tensor-pipe metric: that may be a tensor-core GEMM.
pub(super) fn side_of_ridge(
    launch: &Launch,
    bars: &Bars,
    past_ridge: bool,
    few_flops: bool,
) -> Bound {
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
pub(super) fn busiest_unit(launch: &Launch) -> Option<(&'static str, f64)> {
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

/// The roofs a kernel hits besides DRAM and the FP units (latency-bound, load-store-bound,
/// issue-bound, pipe-bound and contended-atomics' cases), with the thresholds of those
/// rules. A kernel queued at one L2 slice's atomic unit waits on it, not on latency.
pub(super) struct Tags {
    pub(super) latency_bound: bool,
    pub(super) atomic_slice_pct: Option<f64>,
    pub(super) load_store_pipe_pct: Option<f64>,
    pub(super) issue_slots_pct: Option<f64>,
    pub(super) pipe_pct: Option<f64>,
}

pub(super) fn tags(launch: &Launch, bars: &Bars, flop_roof_pct: f64) -> Tags {
    let m = |k: &str| launch.metrics.get(k).copied();
    let pipe = match (m("alu_pipe_pct"), m("xu_pipe_pct")) {
        (Some(alu), Some(xu)) => Some(alu.max(xu)),
        _ => None,
    };
    // Where the rules ran, each tag is their finding; a rule not enabled gives none.
    if let Some(verdict) = bars.verdict {
        let fires = |slug: &str| verdict(slug, launch) == Some(true);
        let atomic_slice_pct =
            m("l2_atomic_busiest_slice_pct").filter(|_| fires("contended-atomics"));
        return Tags {
            // serial-loads names the same bound with its cause, up to 60% busy.
            latency_bound: (fires("latency-bound") || fires("serial-loads"))
                && atomic_slice_pct.is_none(),
            atomic_slice_pct,
            load_store_pipe_pct: m("l1_data_pipe_pct").filter(|_| fires("load-store-bound")),
            issue_slots_pct: m("issue_slots_pct").filter(|_| fires("issue-bound")),
            pipe_pct: pipe.filter(|_| fires("pipe-bound")),
        };
    }
    let atomic_slice_pct = m("l2_atomic_busiest_slice_pct").filter(|p| {
        *p >= bars.atomic_slice_busy_pct
            && m("l2_atomic_concentration").is_some_and(|c| c >= bars.atomic_concentration)
    });
    let latency_bound = match (m("sm_throughput_pct"), m("memory_throughput_pct")) {
        (Some(sm), Some(mem)) => sm.max(mem) < bars.latency_busy_pct && atomic_slice_pct.is_none(),
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
        atomic_slice_pct,
        load_store_pipe_pct,
        issue_slots_pct,
        pipe_pct,
    }
}

/// The roofline's tags and the rules that name the same bound read one number each.
#[cfg(test)]
mod agreement {
    use super::{
        ATOMIC_CONCENTRATION, ATOMIC_SLICE_BUSY_PCT, ISSUE_BUSY_PCT, ISSUE_MAX_MATH_PCT,
        LATENCY_BOUND_PCT, LOAD_STORE_BUSY_PCT, LOAD_STORE_MAX_ROOF_PCT, PIPE_BUSY_PCT,
    };

    /// A parameter of a rule, by the rule's slug, from the rule files.
    fn param(slug: &str, name: &str) -> f64 {
        let rules = crate::rules::load(None).unwrap();
        rules.iter().find(|r| r.slug == slug).unwrap().params[name]
    }

    #[test]
    fn latency_threshold_is_one_number() {
        // The roofline's latency-bound tag and GL501 must call the same kernels latency-bound.
        assert_eq!(param("latency-bound", "max_busy_pct"), LATENCY_BOUND_PCT);
    }

    #[test]
    fn atomic_thresholds_are_one_pair_of_numbers() {
        // The roofline's atomic tag and GL508 must call the same kernels bound by one slice.
        assert_eq!(
            param("contended-atomics", "min_busiest_slice_pct"),
            ATOMIC_SLICE_BUSY_PCT
        );
        assert_eq!(
            param("contended-atomics", "min_concentration"),
            ATOMIC_CONCENTRATION
        );
    }

    #[test]
    fn issue_thresholds_are_one_pair_of_numbers() {
        // The roofline's issue-bound tag and GL503 must call the same kernels issue-bound.
        assert_eq!(param("issue-bound", "min_issue_pct"), ISSUE_BUSY_PCT);
        assert_eq!(param("issue-bound", "max_math_pct"), ISSUE_MAX_MATH_PCT);
    }

    #[test]
    fn pipe_threshold_is_one_number() {
        // The roofline's pipe-bound tag, GL504 and GL503's deferral to it agree.
        assert_eq!(param("pipe-bound", "min_pipe_pct"), PIPE_BUSY_PCT);
        assert_eq!(param("issue-bound", "pipe_bound_pct"), PIPE_BUSY_PCT);
    }

    #[test]
    fn load_store_thresholds_are_one_pair_of_numbers() {
        // The roofline's load/store tag and GL502 must call the same kernels load/store-bound.
        assert_eq!(
            param("load-store-bound", "min_pipe_pct"),
            LOAD_STORE_BUSY_PCT
        );
        assert_eq!(
            param("load-store-bound", "max_arith_pct"),
            LOAD_STORE_MAX_ROOF_PCT
        );
    }
}
