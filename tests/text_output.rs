//! ncu's text output (no `--csv`), captured on the H200 next to the CSV of the same report
//! (lab/scripts/corpus/capture_text.sh, fixtures/h200-text/): both forms must read the same.

mod common;

use common::{fixture, gpulint, profile, transcript, warnings};
use gpulint::{Launch, Page};

/// Text values are rounded to ncu's display precision (three or four significant digits,
/// two decimals for percentages); the CSV in base units is not.
fn close(text: f64, csv: f64) -> bool {
    (text - csv).abs() <= 0.006 * csv.abs().max(1.0) || (text - csv).abs() <= 0.011
}

/// Same launches, and the same value for every metric both forms give. With
/// `every_metric`, the text must give every metric the CSV gives.
fn assert_same_launches(text: &[Launch], csv: &[Launch], every_metric: bool) {
    assert_eq!(text.len(), csv.len());
    for (t, c) in text.iter().zip(csv) {
        assert_eq!(
            (&t.name, t.grid, t.block),
            (&c.name, c.grid, c.block),
            "launch {}",
            c.id
        );
        for (key, &csv_value) in &c.metrics {
            let text_value = t.metrics.get(key).copied();
            if text_value.is_none() && !every_metric {
                continue;
            }
            assert!(
                text_value.is_some_and(|v| close(v, csv_value)),
                "{} launch {}: `{key}` is {text_value:?} in the text, {csv_value} in the CSV",
                c.name,
                c.id
            );
        }
    }
}

#[test]
fn full_set_text_reads_as_the_details_page_of_the_same_report() {
    let text = profile("h200-text/text_full_particlefilter.log");
    let csv = profile("h200-text/details_full_particlefilter.csv");
    assert_eq!(text.page, Page::Text);
    assert_eq!(text.launches.len(), 6);
    assert_same_launches(&text.launches, &csv.launches, true);
    assert_eq!(warnings(&text), warnings(&csv));
}

#[test]
fn metrics_run_text_reads_as_the_raw_page_of_the_same_report() {
    let text = profile("h200-text/text_metrics_knn.log");
    let csv = profile("h200-text/raw_metrics_knn.csv");
    assert_eq!(text.launches.len(), 4);
    // The raw page adds every launch__ and device__attribute_ column; the text prints only
    // the metrics asked for, so the grid's fill of the device is not there to judge.
    assert_same_launches(&text.launches, &csv.launches, false);
    let given = |l: &Launch| l.metrics.len();
    assert!(
        given(&text.launches[0]) >= 40,
        "{:?}",
        text.launches[0].metrics.keys().collect::<Vec<_>>()
    );
    // knn reads 32-byte records one float at a time: the same warning from either form.
    assert_eq!(warnings(&text), warnings(&csv));
    assert!(
        warnings(&text).contains(&(0, "uncoalesced-load".to_string())),
        "{:?}",
        warnings(&text)
    );
}

#[test]
fn print_summary_gives_each_kernel_its_average_and_its_count() {
    let summary = profile("h200-text/text_summary_particlefilter.log");
    let details = profile("h200-text/details_full_particlefilter.csv");
    assert_eq!(summary.launch_count(), 6);
    for kernel in &summary.launches {
        let launches: Vec<&Launch> = details
            .launches
            .iter()
            .filter(|l| l.name == kernel.name)
            .collect();
        assert_eq!(kernel.count, launches.len() as u64, "{}", kernel.name);
        let mean = launches
            .iter()
            .map(|l| l.metrics["duration_ns"])
            .sum::<f64>()
            / launches.len() as f64;
        assert!(
            close(kernel.metrics["duration_ns"], mean),
            "{}: {} against a mean of {mean}",
            kernel.name,
            kernel.metrics["duration_ns"]
        );
    }
    // Averages hide one slow launch: that is said without --verbose.
    let out = gpulint(&[
        "check",
        fixture("h200-text/text_summary_particlefilter.log")
            .to_str()
            .unwrap(),
        "--exit-zero",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("this is a `--print-summary` export"),
        "{}",
        transcript(&out)
    );
}

#[test]
fn live_output_with_the_programs_own_lines_is_read() {
    let p = profile("h200-text/text_default_stencil2d.log");
    assert_eq!(p.launches.len(), 4);
    let first = &p.launches[0];
    assert_eq!(first.grid, Some([256, 256, 1]));
    assert_eq!(first.block, Some([16, 16, 1]));
    assert_eq!(first.metrics["duration_ns"], 62_620.0);
    assert_eq!(first.metrics["sm_count"], 132.0);
    assert!(
        p.notes
            .iter()
            .any(|n| n.contains("skipped 9 line(s) of ncu messages and program output")),
        "{:?}",
        p.notes
    );
}

/// `--print-summary per-kernel` with `--csv`: no launch IDs, an `Invocations` column and
/// Minimum, Maximum and Average. Read as one entry per kernel and configuration, standing
/// for its invocations, however the file is cut into chunks.
#[test]
fn print_summary_as_csv_is_read_whole_across_chunk_seams() {
    let summary = profile("h200-text/summary_details_particlefilter.csv");
    let counts: Vec<(String, u64)> = summary
        .launches
        .iter()
        .map(|l| (gpulint::base_name(&l.name), l.count))
        .collect();
    assert_eq!(
        counts,
        [
            ("find_index_kernel".to_string(), 1),
            ("likelihood_kernel".to_string(), 2),
            ("normalize_weights_kernel".to_string(), 1),
            ("sum_kernel".to_string(), 2)
        ]
    );
    let ids: Vec<u64> = summary.launches.iter().map(|l| l.id).collect();
    assert_eq!(ids, [0, 1, 2, 3], "blocks are numbered in file order");
    assert!(
        summary.warnings().any(|w| w.contains("--print-summary")),
        "{:?}",
        summary.notes
    );

    let path = fixture("h200-text/summary_details_particlefilter.csv");
    let mut cut = Vec::new();
    let opts = gpulint::ReadOptions {
        jobs: 2,
        chunk_bytes: 997,
        ..Default::default()
    };
    gpulint::stream_path(path.to_str().unwrap(), &opts, &mut |l| {
        cut.push(l);
        Ok(())
    })
    .unwrap();
    assert_eq!(cut, summary.launches);

    // The raw page's summary has no Section Name: metrics are read by their names.
    let raw = profile("h200-text/summary_raw_particlefilter_head.csv");
    assert_eq!(raw.launches.len(), 1);
    let k = &raw.launches[0];
    assert_eq!(k.count, 1);
    assert_eq!(k.metrics["sm_count"], 132.0);
    assert!(close(
        k.metrics["duration_ns"],
        summary.launches[0].metrics["duration_ns"]
    ));
    assert_eq!(warnings(&raw), [(0, "small-grid".to_string())]);
}

/// Details exports of one section, as people share them after `ncu --section NAME`: read,
/// judged where they allow it, and what was not judged names the section that would have
/// let it. The Memory Workload Analysis export says "no data" for the spill overhead of
/// kernels with no spill request; that is no spilling, which local-memory can judge.
#[test]
fn one_section_exports_say_which_section_would_judge_the_rest() {
    let memory = fixture("h200-text/details_MemoryWorkloadAnalysis_knn.csv");
    let out = gpulint(&["check", memory.to_str().unwrap(), "--verbose"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "local-memory on launch(es) 0,1: judged by the fallback check only (no finding)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("skipped register-limited-occupancy on launch(es) 0,1: needs `limit_registers`, which this export does not have (ncu's `--section Occupancy` gives it)"),
        "{stderr}"
    );
    let p = profile("h200-text/details_MemoryWorkloadAnalysis_knn.csv");
    assert_eq!(p.launches[0].metrics["local_spill_requests"], 0.0);
    assert_eq!(p.launches[0].metrics["local_spill_overhead_pct"], 0.0);

    let occupancy = fixture("h200-text/details_Occupancy_knn.csv");
    let out = gpulint(&["check", occupancy.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("1 of 21 rules could judge; 20 could not for missing metrics: bank-conflicts, contended-atomics, divergent-warps, double-promotion, global-accumulator, issue-bound,"),
        "{}",
        transcript(&out)
    );
    let verbose = gpulint(&["check", occupancy.to_str().unwrap(), "--verbose"]);
    assert!(
        String::from_utf8_lossy(&verbose.stderr).contains(
            "skipped register-limited-occupancy on launch(es) 0,1: needs `busiest_throughput_pct`, which this export does not have (ncu's `--section SpeedOfLight` gives it)"
        ),
        "{}",
        transcript(&verbose)
    );
}

/// `--print-metric-instances values` writes an instanced metric's aggregate followed by
/// its instances (`16 (16)`, `11.11 (0; 0; ...)`), `details` by keyed instances (`16 (0:
/// 16)`); a metric shown only by its instances (`(49.36; 0; ...)`) has no aggregate. Each
/// form of one report (LU, 3 launches) reads to the same launches in both modes, and the
/// raw page to what an expert sees in LU: grids of 1, 15 and 225 blocks, 16-thread
/// diagonal blocks, and bank conflicts in the shared-memory tiles.
#[test]
fn metric_instances_read_as_their_aggregate() {
    for form in ["raw_lud.csv", "details_lud.csv", "text_lud.log"] {
        let values = profile(&format!("h200-text/instances_values_{form}"));
        let details = profile(&format!("h200-text/instances_details_{form}"));
        assert_eq!(values.launches.len(), 3, "{form}");
        for (v, d) in values.launches.iter().zip(&details.launches) {
            assert_eq!(
                (&v.name, v.grid, v.block, &v.metrics),
                (&d.name, d.grid, d.block, &d.metrics),
                "{form}"
            );
        }
        assert_eq!(values.launches[0].metrics["block_size"], 16.0, "{form}");
        assert_eq!(
            values.launches[0].metrics["registers_per_thread"], 40.0,
            "{form}"
        );
    }
    let raw = profile("h200-text/instances_values_raw_lud.csv");
    let mut found = warnings(&raw);
    found.sort();
    let expected = [
        (0, "bank-conflicts"),
        (0, "block-size"),
        (0, "small-grid"),
        (1, "bank-conflicts"),
        (1, "small-grid"),
        (2, "small-grid"),
    ];
    let expected: Vec<(u64, String)> = expected.iter().map(|(l, r)| (*l, r.to_string())).collect();
    assert_eq!(found, expected);
}

/// ncu's other printing options, on one report of LU (3 launches): each form reads to the
/// launches of its raw page, and gives its findings. `--print-details all` writes section
/// bodies among the details page's rows (indented text, and CSV tables of their own), and
/// `--print-rule-details` a Key Performance Indicators table under each rule message (its
/// `Value` column is no `Metric Value`): both were refused with exit 2.
#[test]
fn other_printing_options_read_as_the_raw_page() {
    let raw = profile("h200-text/print_fp_raw_lud.csv");
    let mangled = profile("h200-text/kernel_base_mangled_raw_lud.csv");
    let names: Vec<&str> = mangled.launches.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "_Z12lud_diagonalPfii",
            "_Z13lud_perimeterPfii",
            "_Z12lud_internalPfii"
        ]
    );
    for (m, r) in mangled.launches.iter().zip(&raw.launches) {
        assert_eq!((m.grid, m.block, &m.metrics), (r.grid, r.block, &r.metrics));
    }
    let lud = |with_bank_conflicts: bool| -> Vec<(u64, String)> {
        let mut all = vec![
            (0, "block-size"),
            (0, "small-grid"),
            (1, "small-grid"),
            (2, "small-grid"),
        ];
        if with_bank_conflicts {
            all.extend([(0, "bank-conflicts"), (1, "bank-conflicts")]);
        }
        let mut all: Vec<(u64, String)> = all.iter().map(|(l, r)| (*l, r.to_string())).collect();
        all.sort();
        all
    };
    let sorted = |p: &gpulint::Profile| {
        let mut w = warnings(p);
        w.sort();
        w
    };
    assert_eq!(sorted(&raw), lud(true));
    // The details page's labels and the raw page's names are not always the same metric
    // (`SM Frequency` against the raw page's clock): these are.
    let same = |form: &[Launch], raw: &[Launch]| {
        for (f, r) in form.iter().zip(raw) {
            assert_eq!((&f.name, f.grid, f.block), (&r.name, r.grid, r.block));
            for key in [
                "duration_ns",
                "registers_per_thread",
                "sm_count",
                "theoretical_occupancy_pct",
                "achieved_occupancy_pct",
                "sm_throughput_pct",
                "memory_throughput_pct",
            ] {
                let (fv, rv) = (f.metrics[key], r.metrics[key]);
                assert!(close(fv, rv), "{} {key}: {fv} against {rv}", f.name);
            }
        }
    };
    let details = profile("h200-text/print_details_all_details_lud_head.csv");
    assert_eq!(details.launches.len(), 1);
    same(&details.launches, &raw.launches[..1]);
    assert!(
        details
            .notes
            .iter()
            .any(|n| n.contains("skipped 2 row(s) that end before the `Metric Value` column")),
        "{:?}",
        details.notes
    );
    for text in [
        "print_rule_details_text_lud.log",
        "print_units_base_text_lud.log",
    ] {
        let p = profile(&format!("h200-text/{text}"));
        assert_eq!(p.page, Page::Text);
        assert_eq!(p.launches.len(), 3);
        same(&p.launches, &raw.launches);
        assert_eq!(sorted(&p), lud(false), "{text}");
    }
}

/// Two forms public exports come in, captured on the H200 from three half-precision GEMMs
/// (lab/scripts/wild_forms.sh): ncu's text output of a `--metrics` run with only duration,
/// DRAM, SM and tensor-pipe throughput, and a SpeedOfLight section pasted without its
/// launch line. Both are judged with what they hold; what could not be judged is said.
#[test]
fn partial_text_exports_are_judged_with_what_they_hold() {
    let four = "fixtures/h200-text/gemm_four_metrics_text.log";
    let out = gpulint(&["check", four, "--format", "json", "-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &r["kernels"][0];
    assert_eq!(k["launch_count"], 3);
    // The means of the three launches (93.53, 93.56, 93.52 and 19.93, 19.95, 19.93).
    let near = |v: &serde_json::Value, want: f64| (v.as_f64().unwrap() - want).abs() < 0.01;
    assert!(near(&k["metrics"]["sm_throughput_pct"], 93.537), "{k}");
    // DRAM is a sub-unit of memory throughput: a floor, not the figure.
    assert!(
        near(&k["metrics"]["memory_throughput_floor_pct"], 19.937),
        "{k}"
    );
    assert!(k["metrics"]["memory_throughput_pct"].is_null());
    assert_eq!(
        r["coverage"]["judged"],
        serde_json::json!(["latency-bound"])
    );
    assert_eq!(r["coverage"]["not_judged"].as_array().unwrap().len(), 20);
    assert_eq!(
        r["findings"],
        serde_json::json!([]),
        "a GEMM at 94% SM is not latency-bound"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("latency-bound on 3 launch(es), first of each kernel 0: judged by the fallback check only"),
        "{stderr}"
    );

    let fragment = "fixtures/h200-text/gemm_speedoflight_fragment.txt";
    let out = gpulint(&["check", fragment, "--format", "json", "-v"]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let k = &r["kernels"][0];
    assert_eq!(r["kernels"].as_array().unwrap().len(), 1);
    assert!(k["name"].as_str().unwrap().starts_with("(unnamed"), "{k}");
    assert_eq!(k["metrics"]["memory_throughput_pct"], 94.67);
    assert_eq!(k["metrics"]["sm_throughput_pct"], 93.5);
    assert_eq!(k["metrics"]["duration_ns"], 1_440_000.0);
    assert!(
        r["coverage"]["judged"]
            .as_array()
            .unwrap()
            .contains(&"latency-bound".into())
    );
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("line 1 opens a section with no launch line above it"),
        "{}",
        transcript(&out)
    );
}
