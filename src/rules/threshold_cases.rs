//! Threshold cases for the rules whose bars tests/thresholds.rs cannot flip by itself: a
//! `||` in the condition (misaligned-access, block-size, pipe-bound), or no parameter at
//! all (failed-launch, fp32-gemm-on-cuda-cores). Each case starts from a launch the rule's
//! file says it fires on, switches the other branches off, and sets one key at its bar or
//! just past it; the bar is read from the rule file, never restated here. One test a case.

use super::Rule;
use super::engine::{Judgement, check_in_profile};
use crate::ingest::Launch;

/// A launch the rule fires on (the first its file lists), to be edited.
struct Case {
    rule: Rule,
    launch: Launch,
    all: Vec<Launch>,
}

fn case(slug: &str) -> Case {
    let rule = super::load(None)
        .unwrap()
        .into_iter()
        .find(|r| r.slug == slug)
        .unwrap();
    let dir = std::path::Path::new(&rule.origin).parent().unwrap();
    let (path, id) = super::selftest::spec_path(dir, &rule.tests.fires[0]).unwrap();
    let profile = crate::ingest::read_path(&path.display().to_string()).unwrap();
    let launch = profile
        .launches
        .iter()
        .find(|l| l.id == id)
        .unwrap()
        .clone();
    Case {
        rule,
        launch,
        all: profile.launches,
    }
}

impl Case {
    fn param(&self, name: &str) -> f64 {
        self.rule.params[name]
    }

    fn with(mut self, key: &str, value: f64) -> Case {
        self.launch.metrics.insert(key, value);
        self
    }

    fn fires(&self) -> bool {
        let judged = check_in_profile(&self.rule, &self.launch, &self.all, "case");
        match judged {
            Judgement::Fires(_) => true,
            Judgement::Quiet { .. } => false,
            other => panic!("{}: neither fires nor quiet: {other:?}", self.rule.slug),
        }
    }
}

/// Far below any bar's scale, and past every one of them.
const STEP: f64 = 1e-9;

/// misaligned-access on loads only (its store branch off).
fn misaligned_loads() -> Case {
    let c = case("misaligned-access").with("misaligned_st", 0.0);
    let traffic = c.param("min_traffic_share");
    c.with("misaligned_ld", 1.0)
        .with("global_share_ld", traffic)
}

#[test]
fn misaligned_access_fires_at_its_excess_share() {
    let c = misaligned_loads();
    let bar = c.param("min_excess_share");
    assert!(c.with("excess_sector_share_ld", bar).fires());
}

#[test]
fn misaligned_access_is_quiet_just_below_its_excess_share() {
    let c = misaligned_loads();
    let bar = c.param("min_excess_share");
    assert!(!c.with("excess_sector_share_ld", bar - STEP).fires());
}

#[test]
fn misaligned_access_is_quiet_just_below_its_traffic_share() {
    let c = misaligned_loads();
    let (bar, excess) = (c.param("min_traffic_share"), c.param("min_excess_share"));
    let c = c.with("excess_sector_share_ld", excess);
    assert!(!c.with("global_share_ld", bar - STEP).fires());
}

#[test]
fn misaligned_access_fires_on_stores_alone_at_their_bars() {
    let c = case("misaligned-access").with("misaligned_ld", 0.0);
    let (excess, traffic) = (c.param("min_excess_share"), c.param("min_traffic_share"));
    let c = c
        .with("misaligned_st", 1.0)
        .with("excess_sector_share_st", excess)
        .with("global_share_st", traffic);
    assert!(c.fires());
    assert!(!c.with("excess_sector_share_st", excess - STEP).fires());
}

/// block-size with its block-limit branch off (occupancy at 100%).
fn full_occupancy_block() -> Case {
    case("block-size").with("theoretical_occupancy_pct", 100.0)
}

#[test]
fn block_size_fires_on_one_idle_lane() {
    assert!(
        full_occupancy_block()
            .with("partial_warp_lanes", 1.0)
            .fires()
    );
}

#[test]
fn block_size_is_quiet_with_whole_warps() {
    assert!(
        !full_occupancy_block()
            .with("partial_warp_lanes", 0.0)
            .fires()
    );
}

/// block-size's other branch: whole warps, occupancy limited by the blocks per SM, and a
/// grid that fills every SM's block slots.
fn block_limited() -> Case {
    let c = case("block-size");
    let sms = c.launch.metrics.get("sm_count").copied().unwrap();
    c.with("partial_warp_lanes", 0.0)
        .with("limit_blocks", 1.0)
        .with("occupancy_limit_min", 1.0)
        .with("limit_warps", 2.0)
        .with("grid_blocks", sms)
}

#[test]
fn block_size_fires_just_below_its_occupancy_bar() {
    let c = block_limited();
    let bar = c.param("max_occupancy_pct");
    assert!(c.with("theoretical_occupancy_pct", bar - STEP).fires());
}

#[test]
fn block_size_is_quiet_at_its_occupancy_bar() {
    let c = block_limited();
    let bar = c.param("max_occupancy_pct");
    assert!(!c.with("theoretical_occupancy_pct", bar).fires());
}

/// pipe-bound on the XU pipe alone, memory far below it.
fn xu_bound() -> Case {
    case("pipe-bound")
        .with("alu_pipe_pct", 0.0)
        .with("shared_pipe_pct", 0.0)
        .with("memory_throughput_pct", 1.0)
}

#[test]
fn pipe_bound_fires_at_its_pipe_bar() {
    let c = xu_bound();
    let bar = c.param("min_pipe_pct");
    assert!(c.with("xu_pipe_pct", bar).fires());
}

#[test]
fn pipe_bound_is_quiet_just_below_its_pipe_bar() {
    let c = xu_bound();
    let bar = c.param("min_pipe_pct");
    assert!(!c.with("xu_pipe_pct", bar - STEP).fires());
}

#[test]
fn pipe_bound_is_quiet_when_memory_is_as_busy_as_the_pipe() {
    let c = xu_bound();
    let bar = c.param("min_pipe_pct");
    let c = c.with("xu_pipe_pct", bar);
    assert!(!c.with("memory_throughput_pct", bar).fires());
}

#[test]
fn pipe_bound_on_shared_memory_needs_math_below_its_bar() {
    let shared_bound = || {
        let c = xu_bound().with("xu_pipe_pct", 0.0);
        let pipe = c.param("min_pipe_pct");
        c.with("shared_pipe_pct", pipe)
    };
    let math = shared_bound().param("max_math_pct");
    assert!(!shared_bound().with("flop_pct_of_peak", math).fires());
    assert!(shared_bound().with("flop_pct_of_peak", math - STEP).fires());
}

#[test]
fn failed_launch_fires_on_an_empty_grid_or_block() {
    let c = case("failed-launch")
        .with("grid_blocks", 1.0)
        .with("block_size", 1.0);
    assert!(!c.fires());
    let c = c.with("grid_blocks", 0.0);
    assert!(c.fires());
    assert!(c.with("grid_blocks", 1.0).with("block_size", 0.0).fires());
}

#[test]
fn fp32_gemm_on_cuda_cores_fires_from_compute_capability_8_0() {
    let c = case("fp32-gemm-on-cuda-cores");
    assert!(c.fires());
    let c = c.with("cc_major", 7.0);
    assert!(!c.fires(), "7.0: before TF32");
    let c = c.with("cc_major", 8.0).with("cc_minor", 6.0);
    assert!(
        !c.fires(),
        "8.6: a consumer chip, tensor cores 1-2x its FP32 rate"
    );
    assert!(c.with("cc_major", 9.0).with("cc_minor", 0.0).fires());
}
