//! Baselines and the regression gate, on a real before/after pair captured on an H200
//! (samples/src/pipeline.cu built with VARIANT=0 and VARIANT=1 by samples/run_on_gpu.sh):
//! scale_rows regresses to a 32-word stride under the same name and a new launch
//! configuration, old_helper vanishes and new_helper appears.

mod common;

use common::{gpulint, transcript};

const BASE: &str = "fixtures/h200-samples/pipeline_base.csv";
const CAND: &str = "fixtures/h200-samples/pipeline_regressed.csv";

fn write_baseline(dir: &std::path::Path) -> String {
    let path = dir.join("gpulint-baseline.json");
    let out = gpulint(&["baseline", BASE, "-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    path.to_str().unwrap().to_string()
}

#[test]
fn baseline_is_stable_sorted_and_stamped() {
    let dir = common::scratch_dir("stable");
    let a = std::fs::read_to_string(write_baseline(&dir)).unwrap();
    let b = String::from_utf8(gpulint(&["baseline", BASE]).stdout).unwrap();
    assert_eq!(a, b, "two runs must write the same bytes");
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["format"], 1);
    assert_eq!(v["device"], "NVIDIA H200");
    assert!(v["gpulint_version"].is_string());
    let kernels = v["kernels"].as_object().unwrap();
    assert_eq!(kernels.len(), 3);
    let add = &kernels["add_bias(float *, unsigned long, float)"];
    assert_eq!(add["launch_count"], 3, "repeated launches are merged");
    assert!(
        add["metrics"]["duration_ns"]["min"].as_f64()
            <= add["metrics"]["duration_ns"]["max"].as_f64()
    );
    insta::assert_snapshot!(a);
}

#[test]
fn diff_of_the_regressed_pipeline_in_every_format() {
    let dir = common::scratch_dir("formats");
    let bl = write_baseline(&dir);
    for format in ["human", "markdown", "github", "sarif", "json"] {
        let out = gpulint(&["diff", &bl, CAND, "--format", format, "--color", "never"]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        let text = String::from_utf8(out.stdout).unwrap();
        insta::assert_snapshot!(format!("diff_{format}"), text);
    }
}

#[test]
fn diff_exit_codes() {
    let dir = common::scratch_dir("exit");
    let bl = write_baseline(&dir);
    // The baseline against itself, as CSV or saved JSON: nothing regressed.
    assert_eq!(gpulint(&["diff", &bl, BASE]).status.code(), Some(0));
    assert_eq!(
        gpulint(&["diff", BASE, BASE, "--strict"]).status.code(),
        Some(0)
    );
    // The fix direction is an improvement, and old_helper vanishing fails only with --strict.
    let back = gpulint(&["diff", CAND, BASE, "--color", "never"]);
    let text = String::from_utf8_lossy(&back.stdout);
    assert!(text.contains("improved"), "{text}");
    assert_eq!(back.status.code(), Some(0), "{}", transcript(&back));
    assert_eq!(
        gpulint(&["diff", CAND, BASE, "--strict"]).status.code(),
        Some(1)
    );
    // A wide enough band lets the stride through, but the new finding still fails.
    let loose = gpulint(&[
        "diff",
        &bl,
        CAND,
        "--threshold",
        "sectors_per_request_ld=1000%",
        "--threshold",
        "bytes_per_sector_ld=100",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&loose.stdout).unwrap();
    assert!(
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["verdict"] != "regressed")
    );
    assert_eq!(v["new_findings"][0]["rule"], "uncoalesced-load");
    assert_eq!(loose.status.code(), Some(1));
    assert_eq!(
        gpulint(&["diff", &bl, CAND, "--exit-zero"]).status.code(),
        Some(0)
    );
    let bad = gpulint(&["diff", &bl, CAND, "--threshold", "nope=1"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn a_baseline_from_a_newer_gpulint_is_refused() {
    let dir = common::scratch_dir("newer");
    let path = dir.join("future.json");
    std::fs::write(
        &path,
        r#"{"format": 99, "gpulint_version": "9.0.0", "kernels": {}}"#,
    )
    .unwrap();
    let out = gpulint(&["diff", path.to_str().unwrap(), CAND]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        err.contains("future.json") && err.contains("gpulint 9.0.0") && err.contains("upgrade"),
        "{err}"
    );
    let broken = dir.join("broken.json");
    std::fs::write(&broken, "{\"format\": 1, \"kernels\": ").unwrap();
    let out = gpulint(&["diff", broken.to_str().unwrap(), CAND]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.json:1:"));
}

#[test]
fn baseline_never_overwrites_an_input() {
    let dir = common::scratch_dir("input");
    let copy = dir.join("profile.csv");
    std::fs::copy(common::fixture("h200-samples/pipeline_base.csv"), &copy).unwrap();
    let before = std::fs::read(&copy).unwrap();
    let out = gpulint(&[
        "baseline",
        copy.to_str().unwrap(),
        "-o",
        copy.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(&copy).unwrap(), before);
}

#[test]
fn check_formats_for_ci() {
    let zoo = "fixtures/h200-zoo/full_raw_base.csv";
    for format in ["markdown", "github", "sarif"] {
        let out = gpulint(&["check", zoo, "--format", format]);
        assert_eq!(out.status.code(), Some(1));
        insta::assert_snapshot!(
            format!("check_{format}"),
            String::from_utf8(out.stdout).unwrap()
        );
    }
    // SARIF: every result has a rule in the driver, a level, a location and a fingerprint.
    let out = gpulint(&["check", zoo, "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for r in rules {
        for field in [
            "id",
            "name",
            "shortDescription",
            "fullDescription",
            "help",
            "defaultConfiguration",
        ] {
            assert!(!r[field].is_null(), "rule lacks {field}: {r}");
        }
    }
    for res in run["results"].as_array().unwrap() {
        let idx = res["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[idx]["id"], res["ruleId"]);
        assert!(
            res["locations"][0]["physicalLocation"]["region"]["startLine"]
                .as_u64()
                .unwrap()
                >= 2
        );
        assert_eq!(
            res["partialFingerprints"]["gpulint/v1"]
                .as_str()
                .unwrap()
                .len(),
            16
        );
    }
    // GitHub: kernel names with ',' and ':' are escaped in properties.
    let gh = String::from_utf8(gpulint(&["check", zoo, "--format", "github"]).stdout).unwrap();
    assert!(
        gh.lines().all(|l| l.starts_with("::warning file=")
            || l.starts_with("::notice file=")
            // `--set full` lacks serial-loads' load latency: a notice says so.
            || l.starts_with("::notice title=gpulint: not every rule could judge::")),
        "{gh}"
    );
}

/// With --strict, a kernel that appears or vanishes fails the gate, and every format says
/// so: the human summary gives the reasons, GitHub and SARIF carry an error for it, and
/// the JSON has the verdict and its reasons.
#[test]
fn strict_failures_appear_in_every_format() {
    let dir = common::scratch_dir("strict");
    let base = write_baseline(&dir);
    let run = |format: &str| {
        let out = gpulint(&["diff", &base, CAND, "--strict", "--format", format]);
        assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    let human = run("human");
    assert!(human.contains("failed because:"), "{human}");
    assert!(
        human.contains("new kernel new_helper (--strict)"),
        "{human}"
    );
    assert!(run("github").contains("::error file=fixtures/h200-samples/pipeline_regressed.csv,line=1,title=vanished kernel%3A old_helper"));
    let sarif: serde_json::Value = serde_json::from_str(&run("sarif")).unwrap();
    let texts: Vec<&str> = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"]["text"].as_str().unwrap())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("new_helper: new kernel")),
        "{texts:?}"
    );
    let json: serde_json::Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json["verdict"], "fail");
    assert!(
        json["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r == "vanished kernel old_helper (--strict)")
    );
}

/// Every rule id the gate's SARIF uses is one `gpulint rules` lists and `explain` knows.
#[test]
fn every_rule_id_the_gate_emits_is_explainable() {
    let dir = common::scratch_dir("ids");
    let base = write_baseline(&dir);
    let out = gpulint(&["diff", &base, CAND, "--strict", "--format", "sarif"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = String::from_utf8(gpulint(&["rules"]).stdout).unwrap();
    for r in doc["runs"][0]["results"].as_array().unwrap() {
        let id = r["ruleId"].as_str().unwrap();
        assert!(listed.contains(id), "{id} not in `gpulint rules`");
        let explain = gpulint(&["explain", id]);
        assert_eq!(explain.status.code(), Some(0), "{}", transcript(&explain));
    }
}

/// Baselines committed before the counts were named `launch_count` say `launches`: CI
/// must keep reading them.
#[test]
fn a_baseline_written_with_the_old_count_name_still_gates() {
    let dir = common::scratch_dir("old-count-name");
    let path = write_baseline(&dir);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("\"launch_count\""));
    let old = dir.join("old.json");
    std::fs::write(&old, text.replace("\"launch_count\"", "\"launches\"")).unwrap();
    let now = gpulint(&["diff", &path, CAND, "--format", "json"]);
    let before = gpulint(&["diff", old.to_str().unwrap(), CAND, "--format", "json"]);
    assert_eq!(before.status.code(), Some(1), "{}", transcript(&before));
    assert_eq!(before.stdout, now.stdout);
}

/// A baseline captured on one device, a candidate on another: every format says so, and
/// `--strict` refuses to compare. (The H200 baseline with its device renamed stands in
/// for a T4 capture of the same program.)
#[test]
fn a_diff_across_devices_warns_and_strict_refuses() {
    let dir = common::scratch_dir("devices");
    let bl = write_baseline(&dir);
    let text = std::fs::read_to_string(&bl).unwrap();
    assert!(text.contains("\"device\": \"NVIDIA H200\""));
    let t4 = dir.join("t4-baseline.json");
    std::fs::write(&t4, text.replace("NVIDIA H200", "Tesla T4")).unwrap();
    let t4 = t4.to_str().unwrap();
    for (format, mark) in [
        (
            "human",
            "warning: the baseline was captured on Tesla T4 and the candidate on NVIDIA H200",
        ),
        (
            "markdown",
            "> **Warning:** the baseline was captured on Tesla T4",
        ),
        (
            "github",
            "::warning title=gpulint::the baseline was captured on Tesla T4",
        ),
        ("sarif", "\"toolExecutionNotifications\""),
        (
            "json",
            "\"caveats\": [\n    \"the baseline was captured on Tesla T4",
        ),
    ] {
        let out = gpulint(&["diff", t4, BASE, "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", transcript(&out));
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(stdout.contains(mark), "{format}: {stdout}");
    }
    let out = gpulint(&["diff", t4, BASE, "--strict"]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(
        transcript(&out).contains("refusing to compare") && transcript(&out).contains("Tesla T4"),
        "{}",
        transcript(&out)
    );
}

/// A baseline made with `--select GL1` against a run of every rule: findings of rules
/// only one side ran are neither new nor vanished.
#[test]
fn a_diff_compares_findings_on_the_rules_both_sides_ran() {
    let dir = common::scratch_dir("selection");
    let bl = dir.join("gl1.json");
    let zoo = "fixtures/h200-zoo/full_raw.csv";
    let out = gpulint(&[
        "baseline",
        zoo,
        "--select",
        "GL1",
        "-o",
        bl.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&bl).unwrap()).unwrap();
    assert_eq!(
        v["rules"],
        serde_json::json!([
            "misaligned-access",
            "split-load",
            "uncoalesced-load",
            "uncoalesced-store"
        ])
    );
    // The full run finds more on the same capture (block size, grids, occupancy).
    let all = String::from_utf8(gpulint(&["baseline", zoo]).stdout).unwrap();
    assert!(all.contains("\"register-limited-occupancy\""), "{all}");
    let out = gpulint(&["diff", bl.to_str().unwrap(), zoo, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(d["new_findings"], serde_json::json!([]), "{d}");
    assert!(
        d["caveats"][0]
            .as_str()
            .unwrap()
            .contains("findings are compared on the 4 both ran"),
        "{d}"
    );
}

/// A candidate exported with one ncu section lacks the sector, register and spill
/// counters the baseline gated: the gate fails and says which, instead of passing.
#[test]
fn a_thin_candidate_fails_the_gate_in_every_format() {
    let dir = common::scratch_dir("thin");
    let bl = dir.join("knn.json");
    let full = "fixtures/h200-corpus/full_knn.csv";
    let thin = "fixtures/h200-text/details_Occupancy_knn.csv";
    assert_eq!(
        gpulint(&["baseline", full, "-o", bl.to_str().unwrap()])
            .status
            .code(),
        Some(0)
    );
    for format in ["human", "markdown", "github", "sarif", "json"] {
        let out = gpulint(&["diff", bl.to_str().unwrap(), thin, "--format", format]);
        assert_eq!(out.status.code(), Some(1), "{format}: {}", transcript(&out));
        let stdout = String::from_utf8(out.stdout).unwrap().replace("\\_", "_");
        assert!(
            stdout.contains("sectors_per_request_ld, sectors_per_request_st")
                && stdout.contains("not measured in the candidate"),
            "{format}: {stdout}"
        );
    }
    // The full export against its own baseline still passes.
    assert_eq!(
        gpulint(&["diff", bl.to_str().unwrap(), full]).status.code(),
        Some(0)
    );
}

/// `--also-write`: one comparison, several reports, each the same bytes its own
/// `--format` prints.
#[test]
fn also_write_gives_each_format_from_one_comparison() {
    let dir = common::scratch_dir("also");
    let bl = write_baseline(&dir);
    let md = dir.join("summary.md");
    let sarif = dir.join("gpulint.sarif");
    let out = gpulint(&[
        "diff",
        &bl,
        CAND,
        "--format",
        "github",
        "--also-write",
        &format!("markdown={}", md.display()),
        "--also-write",
        &format!("SARIF={}", sarif.display()),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let alone = |format: &str| gpulint(&["diff", &bl, CAND, "--format", format]).stdout;
    assert_eq!(out.stdout, alone("github"));
    assert_eq!(std::fs::read(&md).unwrap(), alone("markdown"));
    assert_eq!(std::fs::read(&sarif).unwrap(), alone("sarif"));
    for bad in ["markdown", "html=x.html", "json="] {
        let out = gpulint(&["diff", &bl, CAND, "--also-write", bad]);
        assert_eq!(out.status.code(), Some(2), "{bad}: {}", transcript(&out));
        assert!(
            transcript(&out).contains("--also-write"),
            "{}",
            transcript(&out)
        );
    }
    // Never over an input.
    let out = gpulint(&["diff", &bl, CAND, "--also-write", &format!("json={CAND}")]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
}

/// Six `gpulint run --save-csv` captures of each of seven programs on an H200
/// (lab/scripts/corpus/gate_noise.sh): every later capture diffed against the first one's
/// baseline passes, and so does the zoo's pair of ncu runs of one binary, where the raw
/// bank-conflict count of smem_heavy moved by 15%.
#[test]
fn captures_of_the_same_binary_pass_the_gate() {
    let dir = common::scratch_dir("repeat");
    let programs = [
        "lud",
        "matmul_variants",
        "reduction",
        "compute_classes",
        "knn",
        "stencil2d",
        "pipeline_base",
    ];
    for program in programs {
        let first = format!("fixtures/h200-repeat/{program}_1.csv");
        let bl = dir.join(format!("{program}.json"));
        let out = gpulint(&["baseline", &first, "-o", bl.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        for round in 2..=6 {
            let cand = format!("fixtures/h200-repeat/{program}_{round}.csv");
            let out = gpulint(&["diff", bl.to_str().unwrap(), &cand, "--format", "concise"]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{program} round {round}: {}",
                transcript(&out)
            );
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.starts_with("PASS ("), "{text}");
        }
    }
    let zoo = gpulint(&[
        "diff",
        "fixtures/h200-zoo/min_raw_base.csv",
        "fixtures/h200-zoo/min_raw.csv",
        "--format",
        "json",
    ]);
    assert_eq!(zoo.status.code(), Some(0), "{}", transcript(&zoo));
    let v: serde_json::Value = serde_json::from_slice(&zoo.stdout).unwrap();
    let smem = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| {
            r["kernel"].as_str().unwrap().starts_with("smem_heavy")
                && r["metric"] == "bank_conflict_share"
        })
        .expect("the share is gated");
    assert_eq!(smem["verdict"], "unchanged");
    assert_eq!(v["overlap"]["compared"], 27);
}

/// The regressed build, captured the same way, fails on its stride.
#[test]
fn a_real_stride_regression_fails_the_gate() {
    let out = gpulint(&[
        "diff",
        "fixtures/h200-repeat/pipeline_base_1.csv",
        "fixtures/h200-repeat/pipeline_regressed_1.csv",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let regressed: Vec<(&str, &str)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["verdict"] == "regressed")
        .map(|r| (r["kernel"].as_str().unwrap(), r["metric"].as_str().unwrap()))
        .collect();
    assert_eq!(
        regressed,
        [
            (
                "scale_rows(const float *, float *, unsigned long, int)",
                "sectors_per_request_ld"
            ),
            (
                "scale_rows(const float *, float *, unsigned long, int)",
                "bytes_per_sector_ld"
            ),
        ]
    );
}

/// Profiles of two programs share no kernel: nothing was compared, which is no pass.
#[test]
fn a_candidate_sharing_no_kernel_is_refused() {
    let out = gpulint(&[
        "diff",
        "fixtures/h200-zoo/min_raw_base.csv",
        "fixtures/h200-corpus/min_lud.csv",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("nothing compared"), "{stderr}");
    assert!(out.stdout.is_empty(), "no verdict is printed");
    // --exit-zero does not turn it into a pass.
    let out = gpulint(&[
        "diff",
        "fixtures/h200-zoo/min_raw_base.csv",
        "fixtures/h200-corpus/min_lud.csv",
        "--exit-zero",
    ]);
    assert_eq!(out.status.code(), Some(2));
}

/// The full capture's findings that the minimal one cannot judge (its export lacks the
/// useful-bytes ratio) are "not compared", never "fixed".
#[test]
fn a_thinner_candidate_fixes_nothing() {
    let out = gpulint(&[
        "diff",
        "fixtures/h200-zoo/full_raw_base.csv",
        "fixtures/h200-zoo/min_raw_base.csv",
        "--format",
        "json",
        "--exit-zero",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let fixed = v["fixed_findings"].as_array().unwrap();
    let not_compared = v["not_compared"].as_array().unwrap();
    assert!(fixed.is_empty(), "{fixed:?}");
    assert!(!not_compared.is_empty());
    assert!(not_compared.iter().all(|n| n["why"]
        == "the candidate's export was too thin for the rule to judge (or had no launch trace)"));
}

const ZOO_FULL: &str = "fixtures/h200-zoo/full_raw_base.csv";

/// The zoo's baseline (27 kernel configurations) written to `dir`, as JSON.
fn zoo_baseline(dir: &std::path::Path) -> (std::path::PathBuf, serde_json::Value) {
    let path = dir.join("zoo-baseline.json");
    let out = gpulint(&["baseline", ZOO_FULL, "-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let json = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, json)
}

/// A candidate that kept 1 of the baseline's 27 kernels (a pull request that renamed
/// the rest, or narrowed `-k`) fails the gate: too little of the baseline's GPU time was
/// compared. `--min-compared` states the share a gate needs.
#[test]
fn a_candidate_that_kept_1_kernel_of_27_fails() {
    let dir = common::scratch_dir("one-of-27");
    let (baseline, json) = zoo_baseline(&dir);
    assert_eq!(json["kernels"].as_object().unwrap().len(), 27);
    // The export's two header lines and the row of one kernel launched once.
    let text = std::fs::read_to_string(ZOO_FULL).unwrap();
    let one: Vec<&str> = (text.lines().take(2))
        .chain(text.lines().filter(|l| l.contains("\"matmul_naive(")))
        .collect();
    assert_eq!(one.len(), 3);
    let candidate = dir.join("one.csv");
    std::fs::write(&candidate, one.join("\n") + "\n").unwrap();
    let (b, c) = (baseline.to_str().unwrap(), candidate.to_str().unwrap());
    let out = gpulint(&["diff", b, c]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        text.starts_with("FAIL: "),
        "the verdict comes first:\n{text}"
    );
    assert!(
        text.contains(
            "of the baseline's GPU time was compared (1 of 27 kernel(s)), under --min-compared 90%"
        ),
        "{text}"
    );
    let out = gpulint(&["diff", b, c, "--min-compared", "0"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let out = gpulint(&["diff", b, c, "--min-compared", "150"]);
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
}

/// A minimal-metrics baseline and a `--set full` candidate of the same binary: the
/// findings of rules the baseline could not judge are "not compared", never new, and
/// the gate passes. The human diff leads with the verdict and counts the unchanged rows;
/// `--verbose` lists them.
#[test]
fn a_richer_export_of_the_same_binary_passes() {
    let out = gpulint(&["diff", "fixtures/h200-zoo/min_raw_base.csv", ZOO_FULL]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(text.starts_with("PASS: "), "{text}");
    assert!(text.contains("0 new finding(s)"), "{text}");
    assert!(
        text.contains(
            "copy_strided: uncoalesced-load not compared: found in the candidate, but the \
             baseline's export was too thin"
        ),
        "{text}"
    );
    assert!(
        text.contains("162 unchanged metric row(s) not shown"),
        "{text}"
    );
    assert!(!text.contains("  unchanged"), "{text}");
    let out = gpulint(&[
        "diff",
        "fixtures/h200-zoo/min_raw_base.csv",
        ZOO_FULL,
        "--verbose",
    ]);
    let verbose = String::from_utf8_lossy(&out.stdout);
    assert_eq!(verbose.matches("  unchanged").count(), 162, "{verbose}");
}

/// A baseline must hold what it claims to gate: one hollowed out (`"rules": []`, a
/// kernel's metrics emptied) is refused (exit 2), not passed with warnings.
#[test]
fn a_hollowed_baseline_is_refused() {
    let dir = common::scratch_dir("hollow");
    let (_, json) = zoo_baseline(&dir);
    for (what, hollow) in [
        ("rules", {
            let mut j = json.clone();
            j["rules"] = serde_json::json!([]);
            j
        }),
        ("metrics", {
            let mut j = json.clone();
            for k in j["kernels"].as_object_mut().unwrap().values_mut() {
                k["metrics"] = serde_json::json!({});
            }
            j
        }),
    ] {
        let path = dir.join(format!("hollow-{what}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&hollow).unwrap()).unwrap();
        let out = gpulint(&["diff", path.to_str().unwrap(), CAND]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {}", transcript(&out));
        assert!(err.contains("this baseline gates nothing"), "{what}: {err}");
    }
}

/// Findings judged from a launch trace (launch-bound) are "not compared" against a
/// candidate that has no trace, never "fixed": the candidate's rule could not judge.
#[test]
fn trace_findings_against_a_traceless_candidate_are_not_compared() {
    let dir = common::scratch_dir("trace-gate");
    let saved = "fixtures/h200-samples/torch_chain.csv";
    let path = dir.join("traced.json");
    let out = gpulint(&["baseline", saved, "-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    // As a traced run's baseline holds it: launch-bound found, and judged.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for k in json["kernels"].as_object_mut().unwrap().values_mut() {
        k["findings"] = serde_json::json!(["launch-bound"]);
        let judged = k["not_judged"].as_array().unwrap().iter();
        let rest: Vec<_> = judged.filter(|r| *r != "launch-bound").cloned().collect();
        k["not_judged"] = serde_json::Value::Array(rest);
    }
    std::fs::write(&path, serde_json::to_string_pretty(&json).unwrap()).unwrap();
    let out = gpulint(&["diff", path.to_str().unwrap(), saved, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["fixed_findings"].as_array().unwrap().is_empty(), "{v}");
    let not_compared = v["not_compared"].as_array().unwrap();
    assert_eq!(not_compared.len(), 6, "{v}");
    assert!(not_compared.iter().all(|n| n["rule"] == "launch-bound"));
}
