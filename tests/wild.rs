//! Exports other people made with other ncu versions (fixtures/wild/SOURCES.md): each is
//! read, and judged as an expert would judge what it holds.

mod common;

use common::{fixture, gpulint, transcript};
use serde_json::Value;

fn json(path: &str) -> Value {
    let out = gpulint(&["check", path, "--format", "json", "--exit-zero"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// ncu 2020 on a V100 names its throughput section "GPU Speed Of Light" and its labels
/// `SM [%]`, `Memory [%]`. Read as today's names, nothing was judged and the file passed.
#[test]
fn a_2020_details_export_is_read_and_judged() {
    let path = fixture("wild/v100_ncu2020_cfd_details_head.log");
    let report = json(path.to_str().unwrap());
    let durations: Vec<(String, f64)> = report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["name"].as_str().unwrap().to_string(),
                k["metrics"]["duration_ns"].as_f64().expect("a duration"),
            )
        })
        .collect();
    assert_eq!(
        durations,
        [
            ("cuda_compute_step_factor".to_string(), 10720.0),
            ("cuda_compute_flux".to_string(), 39200.0)
        ]
    );
    // compute_flux: 58 registers allow 5 blocks of 6 warps (46.9%), its busiest unit is at
    // 35%: registers are the limit while latency goes unhidden. step_factor runs at 93.8%.
    let findings: Vec<(String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["kernel"].as_str().unwrap().to_string(),
                f["rule"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        findings,
        [(
            "cuda_compute_flux".to_string(),
            "register-limited-occupancy".to_string()
        )]
    );
    let out = gpulint(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));

    // What it could not judge, and where that would come from: no SM count in 2020's
    // Launch Statistics, no sector counters in any section it holds.
    let verbose = gpulint(&["check", path.to_str().unwrap(), "--verbose"]);
    let stderr = String::from_utf8_lossy(&verbose.stderr);
    assert!(
        stderr.contains("skipped small-grid on launch(es) 0,1: needs `grid_slot_fill_pct` (or `sm_count` for the fallback check), which this export does not have (ncu's `--section LaunchStats` gives it)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("skipped uncoalesced-load on launch(es) 0,1:")
            && stderr.contains(
                "export the report's raw page first, `ncu --import REPORT.ncu-rep --csv --page raw`"
            ),
        "{stderr}"
    );
}

/// ncu 2019's raw page names the duration `gpu__time_duration`, without `.sum`. No such file
/// was found in the wild yet: our own H200 capture with the column renamed stands in.
#[test]
fn the_2019_duration_column_name_is_read() {
    let original = fixture("h200-zoo/min_raw_base.csv");
    let text = std::fs::read_to_string(&original).unwrap();
    assert!(text.contains("\"gpu__time_duration.sum\""));
    let renamed = common::scratch_file(
        "raw_2019_duration.csv",
        text.replace("\"gpu__time_duration.sum\"", "\"gpu__time_duration\"")
            .as_bytes(),
    );
    let durations = |r: &Value| -> Vec<Value> {
        r["kernels"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| k["metrics"]["duration_ns"].clone())
            .collect()
    };
    let want = durations(&json(original.to_str().unwrap()));
    assert!(want.iter().all(Value::is_f64), "{want:?}");
    assert_eq!(durations(&json(renamed.to_str().unwrap())), want);
}

/// ncu's text output before 2023 (an A100, PyTorch, December 2022): the launch header has a
/// timestamp where the grid and block now are, tables have no header row, clocks are in
/// `cycle/nsecond` and the throughputs are labelled `Memory [%]` and `Compute (SM) [%]`.
#[test]
fn a_2022_text_log_is_read_and_judged() {
    let p = common::profile("wild/a100_ncu2022_pytorch_text_head.log");
    let got: Vec<(String, f64, f64, f64, f64)> = p
        .launches
        .iter()
        .map(|l| {
            (
                gpulint::base_name(&l.name).to_string(),
                l.metrics["duration_ns"],
                l.metrics["sm_clock_hz"],
                l.metrics["sm_throughput_pct"],
                l.metrics["limit_registers"],
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "at::native::<unnamed>::distribution_elementwise_grid_stride_kernel".to_string(),
                29_380.0,
                1.05e9,
                64.22,
                6.0
            ),
            (
                "at::native::<unnamed>::vectorized_layer_norm_kernel".to_string(),
                23_680.0,
                1.06e9,
                55.4,
                12.0
            )
        ]
    );
    // Both run at 75% theoretical occupancy (registers allow 48 of 64 warps) with the SM
    // 55-64% busy: nothing an expert would flag. There is no SM count in this version's
    // Launch Statistics, and the text names no device: small-grid says it could not judge.
    assert_eq!(common::warnings(&p), []);
    let path = fixture("wild/a100_ncu2022_pytorch_text_head.log");
    let out = gpulint(&["check", path.to_str().unwrap(), "--verbose"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("skipped small-grid on launch(es) 0,1: needs `grid_slot_fill_pct`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("[PyTorch ATen]")
            || String::from_utf8_lossy(&out.stdout).contains("[PyTorch ATen]")
    );
}

/// Recent ncu text output (units `Ghz`, `us`; a `Uses Green Context` row) on a T4 (CC 7.5, 40 SMs), the program's own output first: a
/// fused RMSNorm launched on 3 blocks for a 3-row test input.
#[test]
fn a_t4_text_log_flags_its_three_block_grid() {
    let path = fixture("wild/t4_rmsnorm_text.log");
    let report = json(path.to_str().unwrap());
    let findings: Vec<(&str, &str)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    // 3 blocks of 8 warps on 40 SMs of 32 warp slots: 24 of 1,280 slots.
    assert_eq!(findings, [("small-grid", "warning")]);
    let k = &report["kernels"][0];
    assert_eq!(k["grid"], serde_json::json!([3, 1, 1]));
    assert_eq!(k["metrics"]["sm_count"], 40.0);
    assert_eq!(k["metrics"]["duration_ns"], 5660.0);
}

/// The table of what each ncu version writes (fixtures/wild/versions.toml): every label it
/// names is one gpulint reads, and every version's real file gives the keys it lists.
#[test]
fn every_version_in_the_table_is_read() {
    let text = std::fs::read_to_string(fixture("wild/versions.toml")).unwrap();
    let table: toml::Value = toml::from_str(&text).unwrap();
    let versions = table["version"].as_array().unwrap();
    assert!(versions.len() >= 5);
    let strings = |v: &toml::Value, field: &str| -> Vec<String> {
        v[field]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    // `gpulint keys`: a line per key, its metric names and labels after the second tab.
    let keys = common::gpulint(&["keys"]);
    let keys = String::from_utf8(keys.stdout).unwrap();
    let read: Vec<&str> = keys
        .lines()
        .filter_map(|l| l.splitn(3, '\t').nth(2))
        .flat_map(|names| names.split(" | "))
        .collect();
    for v in versions {
        let what = format!("ncu {} ({})", v["ncu"].as_str().unwrap(), v["fixture"]);
        for label in strings(v, "labels") {
            assert!(
                read.contains(&label.as_str()),
                "{what}: gpulint does not read the label {label:?}"
            );
        }
        let p = common::profile(v["fixture"].as_str().unwrap());
        let first = &p.launches[0].metrics;
        for key in strings(v, "keys") {
            assert!(
                first.contains_key(key.as_str()),
                "{what}: no `{key}` in {first:?}"
            );
        }
        for key in strings(v, "absent") {
            assert!(
                !first.contains_key(key.as_str()),
                "{what}: `{key}` should be absent"
            );
        }
    }
}

/// A log committed next to a report: ncu ran with `-o`, so the log holds its messages and
/// no results. gpulint says where the results are and how to read them, instead of that the
/// file has no CSV header.
#[test]
fn a_log_of_a_run_that_wrote_a_report_points_to_the_report() {
    let path = fixture("wild/gemm_ncu_report_log.log");
    let out = gpulint(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "this is the log of an ncu run that saved its results (4 launch(es) profiled) to \
             a report, /home/nwadekar/dphpc/dphpc-gemm/ncu_analysis.ncu-rep; the log holds \
             none. Check the report instead: `gpulint check \
             /home/nwadekar/dphpc/dphpc-gemm/ncu_analysis.ncu-rep` reads it through ncu"
        ),
        "{stderr}"
    );
}

/// A launch that failed under ncu 2023.2 on an RTX 40-series GPU: every value is `(!) nan` or
/// `(!) n/a`, and grid and block are (0, 0, 0). gpulint refused the file ("(!) nan" is not a
/// number); it now reads the values as absent, reports the failed launch as info, and
/// repeats ncu's errors.
#[test]
fn a_failed_launch_with_unreadable_values_is_reported_not_refused() {
    let path = fixture("wild/rtx40_ncu2023_failed_launch_text.txt");
    let out = gpulint(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["rule"], "failed-launch");
    assert_eq!(findings[0]["severity"], "info");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "ncu reported errors while profiling (LaunchFailed; The application returned an \
             error code (9); An error occurred while trying to profile)"
        ),
        "{stderr}"
    );
}

/// A `--metrics` run on Windows (an RTX 4070 Laptop GPU): four metrics none of the rules
/// reads, after the program's own output. All 18 launches are read, and gpulint says that
/// no rule could judge them and which sections would let them, with exit 2, rather than
/// calling the program clean.
#[test]
fn a_metrics_run_that_no_rule_can_judge_says_what_would() {
    let path = fixture("wild/rtx4070laptop_windows_metrics_text.txt");
    let p = common::profile("wild/rtx4070laptop_windows_metrics_text.txt");
    assert_eq!(p.launches.len(), 18);
    // sm__warps_active.avg.pct_of_peak_sustained_active is the achieved occupancy.
    assert_eq!(p.launches[0].metrics["achieved_occupancy_pct"], 14.38);
    let out = gpulint(&["check", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "no rule could judge any of the 18 launch(es): the export lacks the metrics they \
             read"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("--section LaunchStats"), "{stderr}");
}

/// `ncu --query-metrics` lists what a GPU offers (its header: Metric Name, Metric Type,
/// Metric Unit, Metric Description); given to `check`, it is named as such, with the commands
/// that make a profile. The file is the first 1,980 bytes (cut at a line end) of ncu
/// 2025.3.1's own list for an AD102, from fixtures/ncu/query_metrics_all_chips.tar.xz.
#[test]
fn a_query_metrics_list_is_named_not_read_as_a_profile() {
    let list = fixture("ncu/query_metrics_ad102_head.txt");
    let out = gpulint(&["check", list.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "this is `ncu --query-metrics`' list of the metrics a GPU offers, not a profile"
        ),
        "{stderr}"
    );
}
