//! Judgements that depend on the device follow the device the export describes, not the
//! H200's 132 SMs of 64 warps (fixtures/other-gpus/: real H200 captures with the device
//! and occupancy columns rewritten for a T4, an A100, an L4 and an RTX 4090).

mod common;

use serde_json::Value;

fn report(files: &[&str]) -> Value {
    let mut args = vec!["check", "--format", "json", "--exit-zero"];
    args.extend(files);
    let out = common::gpulint(&args);
    assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn finding<'a>(r: &'a Value, rule: &str, kernel: &str) -> Option<&'a Value> {
    r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == rule && f["kernel"].as_str().unwrap().contains(kernel))
}

#[test]
fn small_grids_are_judged_by_the_devices_warp_slots() {
    // 8 blocks of 8 warps: small everywhere, against each device's own slots.
    for (gpu, slots) in [
        ("t4", 1280),
        ("a100", 6912),
        ("l4", 2784),
        ("rtx4090", 6144),
    ] {
        let r = report(&[&format!("fixtures/other-gpus/{gpu}_zoo.csv")]);
        let f = finding(&r, "small-grid", "copy_gridstride").unwrap();
        assert_eq!(f["evidence"]["warp_slots"], slots as f64, "{gpu}");
        assert!(
            f["message"]
                .as_str()
                .unwrap()
                .contains(&format!("for {} warp slots", common::thousands(slots))),
            "{gpu}: {f}"
        );
    }
    // 256 blocks of 8 warps: a quarter of an H200, more than a T4 or an L4 can hold at once.
    let h200 = report(&["fixtures/h200-corpus/min_particlefilter.csv"]);
    assert!(finding(&h200, "small-grid", "find_index_kernel").is_some());
    for gpu in ["t4", "a100", "l4", "rtx4090"] {
        let r = report(&[&format!("fixtures/other-gpus/{gpu}_particlefilter.csv")]);
        assert!(
            finding(&r, "small-grid", "find_index_kernel").is_none(),
            "{gpu}: {r}"
        );
    }
}

#[test]
fn occupancy_follows_the_device() {
    // 178 registers per thread allow one block of 8 warps on every one of these SMs: 25% of
    // a T4's 32 warp slots, 12.5% of an A100's 64, 16.7% of an Ada SM's 48.
    for (gpu, pct) in [
        ("t4", 25.0),
        ("a100", 12.5),
        ("l4", 16.67),
        ("rtx4090", 16.67),
    ] {
        let r = report(&[&format!("fixtures/other-gpus/{gpu}_zoo.csv")]);
        let f = finding(&r, "register-limited-occupancy", "reg_heavy").unwrap();
        let got = f["evidence"]["theoretical_occupancy_pct"].as_f64().unwrap();
        assert!((got - pct).abs() < 0.01, "{gpu}: {got}");
    }
    // 96 KiB of shared memory per block: one block on an A100's 164 KiB SM, none on a T4's
    // 64 KiB, where the launch fails.
    let a100 = report(&["fixtures/other-gpus/a100_zoo.csv"]);
    let f = finding(&a100, "shared-memory-limited-occupancy", "smem_heavy").unwrap();
    assert!(
        f["message"].as_str().unwrap().contains("allow 1 block(s)"),
        "{f}"
    );
    let t4 = report(&["fixtures/other-gpus/t4_zoo.csv"]);
    assert!(finding(&t4, "shared-memory-limited-occupancy", "smem_heavy").is_none());
    assert_eq!(
        finding(&t4, "failed-launch", "smem_heavy").unwrap()["severity"],
        "info"
    );
}

#[test]
fn without_dram_metrics_the_roofline_says_it_is_unavailable() {
    // A Tegra chip has no dram__ metrics: drop them from a real capture's columns.
    let text = std::fs::read_to_string(common::fixture("h200-corpus/min_stencil2d.csv")).unwrap();
    let start = text.find("\"ID\"").unwrap();
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(&text.as_bytes()[start..]);
    let mut out = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .flexible(true)
        .from_writer(Vec::new());
    let mut keep: Vec<bool> = Vec::new();
    for row in rows.records() {
        let row = row.unwrap();
        if keep.is_empty() {
            keep = row.iter().map(|c| !c.starts_with("dram__")).collect();
        }
        let cells: Vec<&str> = row
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(c, _)| c)
            .collect();
        out.write_record(&cells).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tegra.csv");
    std::fs::write(&path, out.into_inner().unwrap()).unwrap();
    let out = common::gpulint(&["check", path.to_str().unwrap(), "--color", "never"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("roofline unavailable for 1 kernel(s): the export has no DRAM bytes"),
        "{}",
        common::transcript(&out)
    );
    // The memory side of the judgement still stands, from L2 and L1.
    assert!(text.contains("misaligned-access"), "{text}");
}
