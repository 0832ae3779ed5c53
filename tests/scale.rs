//! Streaming ingestion: however an export is cut into chunks and however many threads
//! parse them, the launches, their order, their line numbers and the notes are the same.

mod common;

use common::fixture;
use gpulint::{Launch, ReadOptions};

fn read(rel: &str, opts: &ReadOptions) -> (Vec<Launch>, Vec<String>) {
    let path = fixture(rel);
    let mut launches = Vec::new();
    let source = gpulint::stream_path(path.to_str().unwrap(), opts, &mut |l| {
        launches.push(l);
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{rel}: {e}"));
    (launches, source.notes)
}

const EXPORTS: &[&str] = &[
    "h200-zoo/full_raw_base.csv",
    "h200-zoo/full_raw.csv",
    "h200-zoo/full_details.csv",
    "h200-zoo/min_raw.csv",
    "h200-zoo/min_details.csv",
    "h200-zoo/min_raw_stdout_mixed.txt",
    "h200-samples/torch_eager.csv",
    "h200-samples/jax_jit.csv",
];

#[test]
fn chunking_and_threads_change_nothing() {
    for rel in EXPORTS {
        let whole = read(rel, &ReadOptions::default());
        assert!(!whole.0.is_empty(), "{rel}");
        for (jobs, chunk_bytes) in [(1, 4096), (2, 4096), (2, 1), (3, 50_000)] {
            let opts = ReadOptions {
                jobs,
                chunk_bytes,
                ..ReadOptions::default()
            };
            let cut = read(rel, &opts);
            assert_eq!(
                whole.0.len(),
                cut.0.len(),
                "{rel}: jobs {jobs}, chunks of {chunk_bytes} B"
            );
            for (a, b) in whole.0.iter().zip(&cut.0) {
                assert_eq!(a, b, "{rel}: jobs {jobs}, chunks of {chunk_bytes} B");
            }
            assert_eq!(
                whole.1, cut.1,
                "{rel}: notes, jobs {jobs}, chunks of {chunk_bytes} B"
            );
        }
    }
}

#[test]
fn an_error_in_a_late_chunk_names_its_line() {
    // The bad cell sits far past the first chunk; every job count reports the same place.
    let text = std::fs::read_to_string(fixture("h200-zoo/full_raw_base.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let last = lines.len() - 1;
    let header: Vec<&str> = lines[0].split("\",\"").collect();
    let col = header
        .iter()
        .position(|h| h.contains("gpu__time_duration.sum"))
        .unwrap();
    let mut cells: Vec<String> = lines[last].split("\",\"").map(String::from).collect();
    cells[col] = "fast".into();
    lines[last] = cells.join("\",\"");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    for jobs in [1, 2] {
        let opts = ReadOptions {
            jobs,
            chunk_bytes: 4096,
            ..ReadOptions::default()
        };
        let err = gpulint::stream_path(path.to_str().unwrap(), &opts, &mut |_| Ok(())).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "{}:{}:{}: metric `gpu__time_duration.sum`: value \"fast\" is not a number",
                path.display(),
                last + 1,
                col + 1
            ),
            "jobs {jobs}"
        );
    }
}

#[test]
fn a_consumer_that_stops_stops_the_threads() {
    // The sink refuses the third launch: the reader and workers must wind down, not hang.
    let path = fixture("h200-zoo/full_details.csv");
    let opts = ReadOptions {
        jobs: 2,
        chunk_bytes: 2048,
        ..ReadOptions::default()
    };
    let mut seen = 0;
    let err = gpulint::stream_path(path.to_str().unwrap(), &opts, &mut |_| {
        seen += 1;
        if seen == 3 {
            Err(gpulint::Error::new("enough"))
        } else {
            Ok(())
        }
    })
    .unwrap_err();
    assert_eq!(err.message, "enough");
    assert_eq!(seen, 3);
}

/// Writes `rel`'s launch rows `copies` times over with fresh IDs, as a long run of an
/// application launching the same kernels again and again would.
fn replicate(rel: &str, copies: usize, dir: &std::path::Path) -> (std::path::PathBuf, usize) {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let mut lines = text.lines().skip_while(|l| !l.starts_with("\"ID\""));
    let mut out = String::new();
    for _ in 0..2 {
        out.push_str(lines.next().unwrap());
        out.push('\n');
    }
    let rows: Vec<&str> = lines.filter(|l| l.starts_with('"')).collect();
    for copy in 0..copies {
        for (i, row) in rows.iter().enumerate() {
            let rest = &row[row[1..].find('"').unwrap() + 2..];
            out.push_str(&format!("\"{}\"{rest}\n", copy * rows.len() + i));
        }
    }
    let path = dir.join("repeated.csv");
    std::fs::write(&path, out).unwrap();
    (path, rows.len() * copies)
}

#[test]
fn ten_thousand_launches_read_as_one_finding_per_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let (path, launches) = replicate("h200-zoo/min_raw_base.csv", 360, dir.path());
    let json = |file: &str| {
        let out = common::gpulint(&["check", file, "--format", "json", "--exit-zero"]);
        assert_eq!(out.status.code(), Some(0), "{}", common::transcript(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let once = json("fixtures/h200-zoo/min_raw_base.csv");
    let many = json(path.to_str().unwrap());
    assert_eq!(many["sources"][0]["launch_count"], launches as u64);
    // The same kernel entries, with 360 times the launches and the same mean metrics.
    let (ka, kb) = (
        once["kernels"].as_array().unwrap(),
        many["kernels"].as_array().unwrap(),
    );
    assert_eq!(ka.len(), kb.len());
    for (a, b) in ka.iter().zip(kb) {
        assert_eq!(
            (&a["name"], &a["grid"], &a["block"]),
            (&b["name"], &b["grid"], &b["block"])
        );
        assert_eq!(b["launch_count"], a["launch_count"].as_u64().unwrap() * 360);
        for (key, value) in a["metrics"].as_object().unwrap() {
            let (x, y) = (value.as_f64().unwrap(), b["metrics"][key].as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-9 * x.abs().max(1.0),
                "{key}: {x} vs {y}"
            );
        }
    }
    let (a, b) = (
        once["findings"].as_array().unwrap(),
        many["findings"].as_array().unwrap(),
    );
    assert_eq!(
        a.len(),
        b.len(),
        "one finding per rule and kernel, however many launches"
    );
    for (f, g) in a.iter().zip(b) {
        assert_eq!(
            (&f["rule"], &f["kernel"], &f["message"]),
            (&g["rule"], &g["kernel"], &g["message"])
        );
        assert_eq!(g["launch_count"], f["launch_count"].as_u64().unwrap() * 360);
        assert_eq!(
            g["launch_ids"].as_array().unwrap().len(),
            8,
            "IDs listed are capped"
        );
    }
}

#[test]
fn rows_the_fast_splitter_declines_are_read_by_the_csv_crate() {
    // An escaped quote in one kernel name sends its chunk to the csv crate; every launch
    // reads the same as before, and the name keeps its quote.
    let text = std::fs::read_to_string(fixture("h200-zoo/min_raw_base.csv")).unwrap();
    let edited = text.replacen(
        "\"copy_vec4(const float4 *, float4 *, unsigned long)\"",
        "\"copy_vec4<\"\"x\"\">(const float4 *, float4 *, unsigned long)\"",
        1,
    );
    assert_ne!(edited, text);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quoted.csv");
    std::fs::write(&path, &edited).unwrap();
    let original = read("h200-zoo/min_raw_base.csv", &ReadOptions::default()).0;
    for chunk_bytes in [ReadOptions::default().chunk_bytes, 2048] {
        let opts = ReadOptions {
            jobs: 2,
            chunk_bytes,
            ..ReadOptions::default()
        };
        let mut got = Vec::new();
        gpulint::stream_path(path.to_str().unwrap(), &opts, &mut |l| {
            got.push(l);
            Ok(())
        })
        .unwrap();
        assert_eq!(got.len(), original.len());
        for (a, b) in original.iter().zip(&got) {
            if b.name.starts_with("copy_vec4<\"x\">") {
                assert_eq!(a.metrics, b.metrics);
            } else {
                assert_eq!(a, b);
            }
        }
        assert!(got.iter().any(|l| l.name.starts_with("copy_vec4<\"x\">(")));
    }
}

#[test]
fn a_merged_finding_shows_its_launches_and_the_range_of_its_evidence() {
    // Strides 2, 8 and 32 of one kernel, grid and block: one finding per rule, the message
    // of the launch with the most at stake, and each varying piece of evidence's range.
    let out = common::gpulint(&["check", "fixtures/h200-samples/strided_copy.csv"]);
    insta::assert_snapshot!(common::transcript(&out));
}

#[test]
fn a_real_training_loop_folds_without_losing_a_launch() {
    // 60 steps of a PyTorch training loop on the H200 (samples/apps/torch_train.py):
    // 1,450 launches of a few dozen kernels.
    let p = common::profile("h200-samples/torch_train.csv");
    assert_eq!(p.launches.len(), 1450);
    let rules = gpulint::load_rules(None).unwrap();
    let one = |merge| gpulint::lint_with(std::slice::from_ref(&p), &rules, &|_, _| false, merge);
    let (merged, per_launch) = (one(true), one(false));
    // Every per-launch finding is counted in exactly one merged finding (one per kernel
    // and rule, whatever the grid), whose listed launches are the first ones, in order.
    type Key<'a> = (&'a str, &'a str);
    let mut expected: std::collections::BTreeMap<Key, Vec<u64>> = Default::default();
    for f in &per_launch.findings {
        expected
            .entry((&f.rule, &f.kernel))
            .or_default()
            .push(f.launch);
    }
    assert_eq!(merged.findings.len(), expected.len());
    for f in &merged.findings {
        let ids = &expected[&(f.rule.as_str(), f.kernel.as_str())];
        assert_eq!(
            f.launch_count,
            ids.len() as u64,
            "{} on {}",
            f.rule,
            f.kernel
        );
        assert_eq!(f.launch, ids[0]);
        if ids.len() > 1 {
            assert_eq!(f.launches, ids[..ids.len().min(8)].to_vec());
        }
    }
    assert_eq!(merged.judged, per_launch.judged);

    // The report: one warning for the transpose copy launched every step, with the fix
    // at the call site; the whole JSON stays small.
    let out = common::gpulint(&[
        "check",
        "fixtures/h200-samples/torch_train.csv",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["sources"][0]["launch_count"], 1450);
    // The five FP32 GEMM kernels on the FMA units (GL601, each once over its launches): one
    // switch fixes them all, so one warning and four info.
    let precision = |severity: &str| {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == severity && f["rule"] == "fp32-gemm-on-cuda-cores")
            .count()
    };
    assert_eq!((precision("warning"), precision("info")), (1, 4));
    let others = |severity: &str| -> Vec<&serde_json::Value> {
        v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["severity"] == severity && f["rule"] != "fp32-gemm-on-cuda-cores")
            .collect()
    };
    assert!(others("warning").is_empty(), "{:?}", others("warning"));
    // The transposing copy (0.79% of the GPU time) is info, still with the layout call.
    let copy = others("info")
        .into_iter()
        .find(|f| f["rule"] == "uncoalesced-load")
        .expect("the transposing copy");
    assert_eq!(copy["launch_count"], 60);
    assert!(copy["fix"].as_str().unwrap().contains(".contiguous()"));
    assert!(v["kernels"].as_array().unwrap().len() < 40);
}
