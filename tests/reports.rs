//! `.ncu-rep` reports, read through the user's own ncu: with a stand-in ncu that answers
//! `--import` with a real capture, `gpulint check x.ncu-rep` lints it; without ncu, it
//! exits 2 and says how to export the report.
// Unix only: the stand-in ncu that reads .ncu-rep reports is a bash script.
#![cfg(unix)]

mod common;

use std::process::Command;

fn report_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("zoo.ncu-rep");
    // Reports start with these bytes; the rest is ncu's business.
    std::fs::write(&path, b"NVR\0\x02\0\0\0 not parsed by gpulint").unwrap();
    let p = path.to_str().unwrap().to_string();
    (dir, p)
}

#[test]
fn a_report_is_read_through_ncu() {
    let (_dir, rep) = report_file();
    let record = tempfile::NamedTempFile::new().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["check", &rep, "--format", "concise", "--color", "never"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env(
            "NCU",
            concat!(env!("CARGO_MANIFEST_DIR"), "/tests/stand-in/ncu"),
        )
        .env("FAKE_NCU_RECORD", record.path())
        .env(
            "FAKE_NCU_REPLAY",
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/fixtures/h200-zoo/min_raw_base.csv"
            ),
        )
        .output()
        .unwrap();
    let text = common::transcript(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    // Findings name the report, not the temporary export.
    assert!(text.contains(&format!("{rep}:")), "{text}");
    assert!(text.contains("small-grid copy_gridstride"), "{text}");
    let calls = std::fs::read_to_string(record.path()).unwrap();
    assert!(
        calls.starts_with(&format!(
            "--import\n{rep}\n--csv\n--page\nraw\n--print-units\nbase\n"
        )),
        "{calls}"
    );
    // The minimal capture lacks what some rules read: the note says how to capture it.
    assert!(text.contains("capture with `ncu --set full`"), "{text}");
}

#[test]
fn without_ncu_a_report_is_refused_with_the_export_command() {
    let (_dir, rep) = report_file();
    let out = common::gpulint(&["check", &rep]);
    let text = common::transcript(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "ncu --import {rep} --csv --page raw --print-units base > export.csv"
        )),
        "{text}"
    );
    // `check` takes no --ncu: the error points at NCU= only.
    assert!(
        text.contains("NCU=/path/to/ncu") && !text.contains("--ncu"),
        "{text}"
    );
}

#[test]
fn a_report_with_source_counters_gives_findings_on_the_code() {
    let (_dir, rep) = report_file();
    let record = tempfile::NamedTempFile::new().unwrap();
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "check",
            &rep,
            "--source",
            "--select",
            "uncoalesced-load",
            "--format",
            "github",
            "--source-root",
            "/work/steering",
        ])
        .current_dir(root)
        .env("NCU", format!("{root}/tests/stand-in/ncu"))
        .env("FAKE_NCU_RECORD", record.path())
        .env(
            "FAKE_NCU_REPLAY",
            format!("{root}/fixtures/h200-zoo/full_raw_base.csv"),
        )
        .env(
            "FAKE_NCU_SOURCE",
            format!("{root}/fixtures/h200-zoo/full_source_cuda_sass_strided.csv"),
        )
        .output()
        .unwrap();
    let text = common::transcript(&out);
    assert!(
        text.contains(
            "::warning file=zoo/zoo.cu,line=26,title=GL101 uncoalesced-load in copy_strided"
        ),
        "{text}"
    );
    let calls = std::fs::read_to_string(record.path()).unwrap();
    assert!(
        calls.contains("--page\nsource\n--print-source\ncuda,sass\n-k\ncopy_strided\n"),
        "{calls}"
    );
}

/// Warnings come before info in every report, each group by time at stake: on a PyTorch
/// capture, info findings on library kernels outweigh the one warning in time, and used
/// to bury it.
#[test]
fn warnings_come_before_info() {
    let file = "fixtures/h200-samples/torch_train.csv";
    let out = common::gpulint(&["check", file, "--format", "json", "--exit-zero"]);
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rank = |s: &str| {
        ["info", "warning", "error"]
            .iter()
            .position(|x| *x == s)
            .unwrap()
    };
    let severities: Vec<usize> = r["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| rank(f["severity"].as_str().unwrap()))
        .collect();
    assert!(
        severities.contains(&1) && severities.contains(&0),
        "{severities:?}"
    );
    assert!(
        severities.windows(2).all(|w| w[0] >= w[1]),
        "{severities:?}"
    );
    for format in ["human", "markdown"] {
        let out = common::gpulint(&["check", file, "--format", format, "--color", "never"]);
        let text = String::from_utf8(out.stdout).unwrap();
        // The human report folds info on library kernels into one summary line per rule.
        let first_info = text
            .find("info[")
            .or_else(|| text.find("\ninfo: "))
            .or_else(|| text.find("| info |"))
            .unwrap();
        let last_warning = text
            .rfind("warning[")
            .or_else(|| text.rfind("| warning |"))
            .unwrap();
        assert!(last_warning < first_info, "{format}:\n{text}");
    }
}

/// A PyTorch training loop's report fits on one screen before --verbose: its 21 info
/// findings on library kernels fold into a line per rule and its 21 roofline lines wait
/// for --verbose, which lists everything.
#[test]
fn a_pytorch_report_fits_on_a_screen() {
    let file = "fixtures/h200-samples/torch_train.csv";
    let short = common::gpulint(&["check", file, "--color", "never"]);
    let text = String::from_utf8_lossy(&short.stdout);
    assert!(
        text.lines().count() <= 50,
        "{} lines:\n{text}",
        text.lines().count()
    );
    assert!(text.contains("warning[GL601]"), "{text}");
    assert!(
        text.contains("info: 21 finding(s), worth knowing"),
        "{text}"
    );
    let small_grid = text.lines().find(|l| l.starts_with("  small-grid "));
    assert!(
        small_grid.is_some_and(|l| l.contains(" and 15 more ")
            && l.ends_with("a library's kernel: the cure is a different call")),
        "{text}"
    );
    assert!(!text.contains("info[GL"), "{text}");
    assert!(
        !text.contains("at stake 0.0 us") && !text.contains("up to 0.0 us"),
        "{text}"
    );
    let long = common::gpulint(&["check", file, "--color", "never", "--verbose"]);
    let all = String::from_utf8_lossy(&long.stdout);
    // Whole, as cards: instantiations of one GEMM with one finding are one card.
    assert_eq!(all.matches("info[GL").count(), 15, "{all}");
    assert_eq!(
        all.matches("the same on 6 more instantiation(s) of at::(anon)::multi_tensor_apply_kernel")
            .count(),
        1,
        "{all}"
    );
    assert!(all.contains("roofline (DRAM):"), "{all}");
}

/// The summary of info findings lists its rows by the time at stake in all, the most
/// first. On the CNN's run (cuDNN, cuBLAS, ATen) they had come in the order of the
/// findings, register-limited-occupancy's 125.4 us after
/// shared-memory-limited-occupancy's 50.8 us.
#[test]
fn library_info_lines_come_by_their_time_at_stake_in_all() {
    let file = "fixtures/h200-by-time/default_cnn3.csv";
    let out = common::gpulint(&["check", file, "--color", "never"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let start = text
        .lines()
        .position(|l| l.starts_with("info: "))
        .unwrap_or_else(|| panic!("no summary:\n{text}"));
    let stake = regex::Regex::new(r"  ([0-9,.]+) us  ").unwrap();
    // After the summary's line and its table's header.
    let stakes: Vec<f64> = (text.lines().skip(start + 2))
        .take_while(|l| l.starts_with("  "))
        .map(|l| {
            stake
                .captures(l)
                .map_or(0.0, |c| c[1].replace(',', "").parse().unwrap())
        })
        .collect();
    assert!(stakes.len() > 3, "{text}");
    assert!(
        stakes.windows(2).all(|w| w[0] >= w[1]),
        "{stakes:?}\n{text}"
    );
}

/// The zoo's export with `copy_gridstride` (8 blocks on 132 SMs: small-grid) as twelve
/// instantiations of one template, `copy_gridstride<1>` to `<12>`: its row copied, each
/// with a launch ID and template argument of its own, as a templated kernel's launches
/// come in an export.
fn twelve_instantiations(dir: &std::path::Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(common::fixture("h200-zoo/full_raw_base.csv")).unwrap();
    let name = "\"copy_gridstride(const float *, float *, unsigned long)\"";
    let row = text.lines().find(|l| l.contains(name)).unwrap();
    let mut out: Vec<String> = text
        .lines()
        .filter(|l| !l.contains(name))
        .map(String::from)
        .collect();
    for n in 1..=12 {
        let id = format!("\"{}\"", 100 + n);
        let renamed = row.replacen(
            name,
            &format!("\"void copy_gridstride<{n}>(const float *, float *, unsigned long)\""),
            1,
        );
        let (_, rest) = renamed.split_once("\",").unwrap();
        out.push(format!("{id},{rest}"));
    }
    let path = dir.join("twelve.csv");
    std::fs::write(&path, out.join("\n") + "\n").unwrap();
    path
}

/// Twelve template instantiations with the same finding are one card, with the other
/// eleven named, in every format people read; the kernel table still marks each instance,
/// and JSON and the baseline keep a finding per kernel.
#[test]
fn template_instantiations_fold_to_one_card() {
    let dir = common::scratch_dir("twelve");
    let file = twelve_instantiations(&dir);
    let file = file.to_str().unwrap();
    let out = common::gpulint(&["check", file, "--color", "never"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let cards = text
        .lines()
        .filter(|l| l.starts_with("warning[GL204]"))
        .count();
    assert_eq!(cards, 1, "{text}");
    assert!(
        text.contains(
            "= note: the same on 11 more instantiation(s) of copy_gridstride: copy_gridstride<"
        ),
        "{text}"
    );
    let table_rows = text
        .lines()
        .filter(|l| l.contains("copy_gridstride<") && l.trim_end().ends_with("GL204"))
        .count();
    assert_eq!(table_rows, 12, "{text}");

    // JSON, the machine contract, keeps a finding per kernel, each with its own stake.
    let json = common::gpulint(&["check", file, "--format", "json", "--exit-zero"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let small: Vec<_> = (v["findings"].as_array().unwrap().iter())
        .filter(|f| f["rule"] == "small-grid")
        .collect();
    assert_eq!(small.len(), 12, "{small:?}");
    assert!(small.iter().all(|f| f.get("instances").is_none()));
    for (format, card) in [
        ("concise", "warning[GL204]"),
        ("sarif", "\"ruleId\": \"GL204\""),
        ("github", "::warning file="),
        (
            "markdown",
            "copy_gridstride<1> and 11 more instantiation(s)",
        ),
    ] {
        let out = common::gpulint(&["check", file, "--format", format, "--exit-zero"]);
        let text = String::from_utf8_lossy(&out.stdout);
        let cards = text
            .lines()
            .filter(|l| l.contains(card) && l.contains("GL204"))
            .count();
        assert_eq!(cards, 1, "{format}:\n{text}");
    }
    let base = common::gpulint(&["baseline", file]);
    let b: serde_json::Value = serde_json::from_slice(&base.stdout).unwrap();
    let with_finding = (b["kernels"].as_object().unwrap().values())
        .filter(|k| {
            k["findings"]
                .as_array()
                .unwrap()
                .contains(&"small-grid".into())
        })
        .count();
    assert_eq!(with_finding, 12);
}
