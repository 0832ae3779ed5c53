//! Captures of this repository's own CUDA samples (samples/src), made on an H200 with
//! samples/run_on_gpu.sh. Each sample's header comment says what gpulint should report;
//! these tests hold it to that.

mod common;

use common::{lint, profile, warnings};

fn slugs(file: &str) -> Vec<(u64, String)> {
    warnings(&profile(&format!("h200-samples/{file}")))
}

#[test]
fn coalesced_copy_and_the_good_pipeline_are_clean() {
    assert_eq!(slugs("coalesced_copy.csv"), vec![]);
    assert_eq!(slugs("pipeline_base.csv"), vec![]);
}

#[test]
fn strided_copy_is_uncoalesced_with_the_efficiency_of_each_stride() {
    let p = profile("h200-samples/strided_copy.csv");
    let rules = gpulint::load_rules(None).unwrap();
    let per_launch = gpulint::lint_with(std::slice::from_ref(&p), &rules, &|_, _| false, false);
    let load = |id: u64| {
        per_launch
            .findings
            .iter()
            .find(|f| f.rule == "uncoalesced-load" && f.launch == id)
            .unwrap_or_else(|| panic!("no uncoalesced-load on launch {id}"))
    };
    // Strides 2, 8 and 32 words: 1/min(s, 8) of each sector's bytes used.
    assert_eq!(load(0).evidence["bytes_per_sector_ld"], 16.0);
    assert_eq!(load(1).evidence["bytes_per_sector_ld"], 4.0);
    assert_eq!(load(2).evidence["bytes_per_sector_ld"], 4.0);

    // Merged: one finding for the kernel (same grid and block), covering all three, with
    // the range of the evidence; its message is the launch with the most time at stake.
    let merged: Vec<_> = lint(&p)
        .into_iter()
        .filter(|f| f.rule == "uncoalesced-load")
        .collect();
    assert_eq!(merged.len(), 1);
    let f = &merged[0];
    assert_eq!(
        (f.launch, f.launch_count, f.launches.clone()),
        (0, 3, vec![0, 1, 2])
    );
    assert_eq!(f.evidence_range["bytes_per_sector_ld"], [4.0, 16.0]);
    let worst = [0, 1, 2]
        .into_iter()
        .max_by(|a, b| {
            let stake = |id| load(id).time_at_stake_ns.unwrap();
            stake(*a).total_cmp(&stake(*b))
        })
        .unwrap();
    assert_eq!(f.message, load(worst).message);
    let total: f64 = [0, 1, 2]
        .iter()
        .map(|id| load(*id).time_at_stake_ns.unwrap())
        .sum();
    assert_eq!(f.time_at_stake_ns, Some(total));
}

#[test]
fn misaligned_copy_is_misalignment_not_a_stride() {
    let got = slugs("misaligned_copy.csv");
    assert_eq!(got, vec![(0, "misaligned-access".to_string())]);
}

#[test]
fn register_heavy_is_register_limited() {
    let got = slugs("register_heavy.csv");
    assert!(
        got.contains(&(0, "register-limited-occupancy".to_string())),
        "{got:?}"
    );
}

#[test]
fn the_regressed_pipeline_has_an_uncoalesced_scale_rows() {
    let p = profile("h200-samples/pipeline_regressed.csv");
    let f = lint(&p);
    assert!(
        f.iter()
            .any(|f| f.rule == "uncoalesced-load" && f.kernel.starts_with("scale_rows")),
        "{f:?}"
    );
}

/// cp.async / TMA loads bypass the SASS byte counter: a zero useful-bytes ratio on real
/// traffic is unknown, never "0% used" (cuBLAS's sm80_xmma GEMM in the PyTorch capture).
#[test]
fn zero_useful_bytes_on_real_traffic_is_not_a_finding() {
    let p = profile("h200-samples/torch_eager.csv");
    let gemm = p
        .launches
        .iter()
        .find(|l| l.name.starts_with("sm80_xmma_gemm"))
        .unwrap();
    assert_eq!(gemm.metrics["bytes_per_sector_ld"], 0.0);
    assert!(!gemm.metrics.contains_key("excess_sector_share_ld"));
    // Its FP32-on-the-FMA-units finding (GL601) is about precision, not its accesses.
    let noisy: Vec<_> = lint(&p)
        .into_iter()
        .filter(|f| f.kernel.starts_with("sm80_xmma_gemm") && f.rule != "fp32-gemm-on-cuda-cores")
        .collect();
    assert!(noisy.is_empty(), "{noisy:?}");
}

/// `gpulint run` collects cheaper inputs for the multi-pass metrics (sub-units of ncu's
/// throughput composites, sector and request counts). The same programs captured both ways
/// must give the same findings.
#[test]
fn the_fast_metric_set_gives_the_same_findings() {
    for s in [
        "coalesced_copy",
        "strided_copy",
        "misaligned_copy",
        "register_heavy",
        "latency_chase",
        "pipeline_base",
        "pipeline_regressed",
    ] {
        let full = slugs(&format!("{s}.csv"));
        let fast = slugs(&format!("fast/{s}.csv"));
        assert_eq!(full, fast, "{s}");
        let p = profile(&format!("h200-samples/fast/{s}.csv"));
        for l in &p.launches {
            assert!(
                l.metrics.contains_key("memory_throughput_subunits")
                    && l.metrics.contains_key("sm_throughput_subunits"),
                "{s}"
            );
            // Sectors per request come from sectors and requests, wherever there are loads.
            assert_eq!(
                l.metrics.contains_key("sectors_per_request_ld"),
                l.metrics["sectors_ld"] > 0.0,
                "{s}"
            );
        }
    }
}
