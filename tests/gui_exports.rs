//! The Nsight Compute GUI's "Export to CSV" of its Summary and Raw pages
//! (fixtures/h200-gui/README.md): each export is held to ncu's own raw page of the same
//! report, launch by launch, and judged as far as its columns allow.

mod common;

use std::collections::BTreeSet;

use common::{fixture, gpulint, profile, transcript};
use gpulint::{Launch, Page, Profile};
use serde_json::Value;

/// (kernel, rule, severity) of every finding, sorted.
fn findings(rel: &str) -> Vec<(String, String, String)> {
    let path = fixture(rel);
    let out = gpulint(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        transcript(&out)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut found: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let kernel = f["kernel"].as_str().unwrap();
            let short = kernel.split('(').next().unwrap().to_string();
            let field = |k: &str| f[k].as_str().unwrap().to_string();
            (short, field("rule"), field("severity"))
        })
        .collect();
    found.sort();
    found
}

fn finding(kernel: &str, rule: &str, severity: &str) -> (String, String, String) {
    (kernel.into(), rule.into(), severity.into())
}

/// Every launch the same as ncu's: number, name, grid, block and device. Returns the
/// metrics both have (at least `at_least` per launch) that differ by more than the GUI's 2
/// decimals explain where they kept 3 significant digits: 5 us on a time, else 0.5% or
/// 0.005.
fn differing_metrics(gui: &Profile, cli: &Profile, at_least: usize) -> BTreeSet<&'static str> {
    assert_eq!(gui.launches.len(), cli.launches.len());
    let mut differing = BTreeSet::new();
    for (g, c) in gui.launches.iter().zip(&cli.launches) {
        let shape = |l: &Launch| (l.id, l.name.clone(), l.grid, l.block, l.device.clone());
        assert_eq!(shape(g), shape(c));
        let shared: Vec<&'static str> = g
            .metrics
            .keys()
            .filter(|k| c.metrics.contains_key(k))
            .copied()
            .collect();
        assert!(shared.len() >= at_least, "launch {}: {shared:?}", g.id);
        for key in shared {
            let (gv, cv) = (g.metrics[key], c.metrics[key]);
            let slack = if key == "duration_ns" {
                5_000.0
            } else {
                (cv.abs() * 0.005).max(0.0051)
            };
            if (gv - cv).abs() > slack {
                differing.insert(key);
            }
        }
    }
    differing
}

/// Every metric gpulint reads from a `--set full` export is on the GUI's Raw page, equal
/// to ncu's but where the GUI's rounding took digits: instruction rates per cycle (0.08
/// inst/cycle), multiplied into counts, and particlefilter's DRAM reads and durations in
/// a column of larger ones. The warning names exactly those columns. A ratio of two tiny
/// percentages rounded to 0.02 and 0.05 (LU's L1 pipe headroom) moves with them.
#[test]
fn the_raw_page_reads_as_ncus_own_raw_page() {
    let rounded = [
        (
            "lud",
            vec!["inst_ffma", "inst_hfma", "l1_pipe_headroom"],
            "8 value(s) kept fewer than 3 significant digits \
             (smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed 4, \
             smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed 4)",
        ),
        (
            "particlefilter",
            vec!["dram_bytes_read", "inst_fadd", "inst_ffma", "inst_hfma"],
            "22 value(s) kept fewer than 3 significant digits (dram__bytes_read.sum 6, \
             gpu__time_duration.sum 4, \
             smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed 4, \
             smsp__sass_thread_inst_executed_op_hfma_pred_on.sum.per_cycle_elapsed 4, ...)",
        ),
    ];
    for (program, rounded, said) in rounded {
        let gui = profile(&format!("h200-gui/{program}_raw.csv"));
        let cli = profile(&format!("h200-gui/{program}_cli_raw.csv"));
        assert_eq!(gui.page, Page::GuiRaw);
        // Every metric of ncu's raw page, but the FP share of a launch whose duration the
        // GUI rounded to 0.
        for (g, c) in gui.launches.iter().zip(&cli.launches) {
            let missing: Vec<&&str> = c
                .metrics
                .keys()
                .filter(|k| !g.metrics.contains_key(k))
                .collect();
            let rounded_away = g.metrics["duration_ns"] == 0.0;
            let expected: Vec<&&str> = if rounded_away {
                vec![&"flop_pct_of_peak"]
            } else {
                vec![]
            };
            assert_eq!(missing, expected, "{program} launch {}", g.id);
        }
        let cli_keys = cli.launches[0].metrics.len() - 1;
        let differing = differing_metrics(&gui, &cli, cli_keys);
        assert_eq!(differing, rounded.iter().copied().collect(), "{program}");
        let warnings: Vec<&str> = gui.warnings().collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains(said), "{warnings:?}");
        assert_eq!(
            findings(&format!("h200-gui/{program}_raw.csv")),
            findings(&format!("h200-gui/{program}_cli_raw.csv")),
            "{program}"
        );
    }
}

/// The Summary page has each launch's duration, compute and memory throughput, registers,
/// grid, block and device. LU's grids of 1 and 12-15 blocks of one warp, and its internal
/// kernel's 144-225 blocks, are the small grids ncu's raw page shows too; the 16-thread
/// diagonal blocks are too small. Bank conflicts need shared-memory counters the page
/// lacks. The SM count and warps per SM come from the GPU table, by device name.
#[test]
fn the_summary_page_is_judged_as_far_as_its_columns_allow() {
    let gui = profile("h200-gui/lud_summary.csv");
    let cli = profile("h200-gui/lud_cli_raw.csv");
    assert_eq!(gui.page, Page::GuiSummary);
    // dram_headroom and l1_pipe_headroom are 1 (no bound known) where DRAM throughput and
    // the L1 pipe are unknown (the page has neither), as mostly_serial is 0 where threads
    // per instruction are.
    assert_eq!(
        differing_metrics(&gui, &cli, 4),
        BTreeSet::from(["dram_headroom", "l1_pipe_headroom"])
    );
    // 0.03% of peak to two decimals is exact enough: no warning.
    assert_eq!(gui.warnings().count(), 0, "{:?}", gui.notes);
    for key in [
        "duration_ns",
        "sm_throughput_pct",
        "memory_throughput_pct",
        "registers_per_thread",
    ] {
        assert!(gui.launches[0].metrics.contains_key(key), "{key}");
    }
    let full = findings("h200-gui/lud_cli_raw.csv");
    let without_bank_conflicts: Vec<_> = full
        .into_iter()
        .filter(|(_, rule, _)| rule != "bank-conflicts")
        .collect();
    assert_eq!(findings("h200-gui/lud_summary.csv"), without_bank_conflicts);
    assert_eq!(
        findings("h200-gui/lud_summary.csv"),
        [
            finding("lud_diagonal", "block-size", "warning"),
            finding("lud_diagonal", "small-grid", "warning"),
            finding("lud_internal", "small-grid", "warning"),
            finding("lud_perimeter", "small-grid", "warning"),
        ]
    );
    let path = fixture("h200-gui/lud_summary.csv");
    let out = gpulint(&["check", path.to_str().unwrap(), "--verbose"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Nsight Compute GUI's Summary page, 12 launch(es)")
            && stderr.contains(
                "take 132 SMs and 64 warps per SM for NVIDIA H200 SXM from gpulint's GPU table"
            )
            && stderr.contains("columns gpulint does not read were skipped: Cycles")
            && stderr.contains("skipped bank-conflicts"),
        "{stderr}"
    );
}

/// particlefilter's normalize kernel runs 3.9 ms, so the GUI writes every duration in
/// msecond: the 3.36 us likelihood launches read as 0.00 (and sum_kernel's 8.6 us as
/// 0.01), and gpulint says so. Its one
/// thread building the CDF is latency, not a small grid: the raw page's threads per
/// instruction show the serial code, the Summary page cannot, so there it is judged by its
/// 256 blocks as its neighbours are (absent evidence suppresses nothing).
#[test]
fn the_summary_page_says_what_its_rounding_hides() {
    let gui = profile("h200-gui/particlefilter_summary.csv");
    let cli = profile("h200-gui/particlefilter_cli_raw.csv");
    // mostly_serial is 0 where threads per instruction are unknown (the page has none),
    // dram_headroom and l1_pipe_headroom 1 where DRAM throughput and the L1 pipe are.
    assert_eq!(
        differing_metrics(&gui, &cli, 4),
        BTreeSet::from(["dram_headroom", "l1_pipe_headroom", "mostly_serial"])
    );
    assert_eq!(gui.launches[0].metrics["duration_ns"], 0.0);
    assert_eq!(cli.launches[0].metrics["duration_ns"], 3360.0);
    let warnings: Vec<&str> = gui.warnings().collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0]
            .contains("4 value(s) kept fewer than 3 significant digits (gpu__time_duration.sum 4)"),
        "{warnings:?}"
    );
    assert_eq!(
        findings("h200-gui/particlefilter_summary.csv"),
        [
            finding("find_index_kernel", "small-grid", "warning"),
            finding("likelihood_kernel", "small-grid", "info"),
            finding("normalize_weights_kernel", "small-grid", "warning"),
            finding("sum_kernel", "small-grid", "info"),
        ]
    );
    assert!(
        findings("h200-gui/particlefilter_cli_raw.csv").contains(&finding(
            "normalize_weights_kernel",
            "latency-bound",
            "warning"
        ))
    );
}

#[test]
fn a_transposed_export_reads_as_the_one_it_turns() {
    let turned = profile("h200-gui/lud_summary_transposed.csv");
    let plain = profile("h200-gui/lud_summary.csv");
    assert_eq!(turned.page, Page::GuiSummary);
    assert_eq!(turned.launches.len(), plain.launches.len());
    for (t, p) in turned.launches.iter().zip(&plain.launches) {
        assert_eq!(
            (t.id, &t.name, t.grid, t.block, &t.metrics),
            (p.id, &p.name, p.grid, p.block, &p.metrics)
        );
        // A launch is a column there: it points at the `ID` row.
        assert_eq!(t.line, 1);
    }
    assert!(turned.notes.iter().any(|n| n.contains("transposed")));
}

/// A bad value in a transposed export is placed where the file has it: the `Duration`
/// row, the column of its launch.
#[test]
fn an_error_in_a_transposed_export_names_its_row_and_column() {
    let text = std::fs::read_to_string(fixture("h200-gui/lud_summary_transposed.csv")).unwrap();
    let (row, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.starts_with("Duration"))
        .unwrap();
    let mut cells: Vec<&str> = line.split(',').collect();
    cells[3] = "fast";
    let broken = text.replace(line, &cells.join(","));
    let path = common::scratch_file("transposed.csv", broken.as_bytes());
    let out = gpulint(&["check", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("transposed.csv:{}:4:", row + 1))
            && stderr.contains("\"fast\" is not a number"),
        "{stderr}"
    );
}

/// The issue that asked for this form saw GUI exports with a decimal comma. The 2022.3 GUI
/// wrote points under a German locale, so this is the real LU summary with each decimal
/// value rewritten as such a locale writes it (`"11,26"`, quoted for its comma): it must
/// read to the same launches.
#[test]
fn a_summary_with_a_decimal_comma_reads_the_same() {
    let text = std::fs::read_to_string(fixture("h200-gui/lud_summary.csv")).unwrap();
    let mut lines = text.lines();
    let mut comma = format!("{}\n", lines.next().unwrap());
    let mut rewritten = 0;
    for line in lines {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_reader(line.as_bytes());
        let record = reader.records().next().unwrap().unwrap();
        let cells: Vec<String> = record
            .iter()
            .map(|cell| match cell.split_once('.') {
                Some((whole, decimals))
                    if !whole.is_empty()
                        && whole.bytes().all(|b| b.is_ascii_digit())
                        && decimals.len() == 2
                        && decimals.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    rewritten += 1;
                    format!("\"{whole},{decimals}\"")
                }
                _ if cell.contains(',') => format!("\"{cell}\""),
                _ => cell.to_string(),
            })
            .collect();
        comma.push_str(&cells.join(","));
        comma.push('\n');
    }
    assert_eq!(rewritten, 36, "3 decimal columns of 12 launches");
    let path = common::scratch_file("lud_summary_comma.csv", comma.as_bytes());
    let read = profile(path.to_str().unwrap());
    let plain = profile("h200-gui/lud_summary.csv");
    assert!(
        read.notes.iter().any(|n| n.contains("decimal mark")),
        "{:?}",
        read.notes
    );
    for (c, p) in read.launches.iter().zip(&plain.launches) {
        assert_eq!((c.grid, c.block, &c.metrics), (p.grid, p.block, &p.metrics));
    }
}
