//! `gpulint run` collects some quantities from cheaper metrics than ncu's own (each one
//! costs fewer replay passes: lab/runs/2026-12-05-passes.txt). These tests hold each
//! substitution to every real capture under fixtures/ that recorded both sides.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every CSV file under `dir`, sorted.
fn csv_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "csv") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The rows of every raw-page capture that has all of `columns`, as numbers by column
/// (rows where any of them is not a number, such as the units row, are left out), with
/// the file and kernel each row came from.
fn rows_with(columns: &[&str]) -> Vec<(String, BTreeMap<String, f64>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut out = Vec::new();
    for file in csv_files(&root) {
        let mut reader = csv::ReaderBuilder::new()
            .flexible(true)
            .from_path(&file)
            .unwrap();
        let Ok(header) = reader.headers().cloned() else {
            continue;
        };
        let index: Option<Vec<usize>> = columns
            .iter()
            .map(|c| header.iter().position(|h| h == *c))
            .collect();
        let Some(index) = index else { continue };
        let kernel = header.iter().position(|h| h == "Kernel Name");
        for record in reader.records().map_while(Result::ok) {
            let values: Option<BTreeMap<String, f64>> = columns
                .iter()
                .zip(&index)
                .map(|(c, &i)| {
                    let text = record.get(i)?.replace(',', "");
                    Some((c.to_string(), text.parse::<f64>().ok()?))
                })
                .collect();
            if let Some(values) = values {
                let name = kernel.and_then(|k| record.get(k)).unwrap_or("?");
                let at = format!("{} {name}", file.strip_prefix(&root).unwrap().display());
                out.push((at, values));
            }
        }
    }
    out
}

/// Global store requests come from the SASS instruction count (one instrumented pass for
/// all of them) instead of L1TEX's request counter, and exports with only the SASS count
/// are read for loads too: one request per warp-level instruction, vector and double
/// loads, gathers and divergent warps included, on every kernel captured with both (none
/// a library's multistage kernel, whose loads the SASS count misses: memory.rs).
#[test]
fn global_instructions_equal_l1_requests_wherever_both_were_captured() {
    for op in ["ld", "st"] {
        let l1 = format!("l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum");
        let sass = format!("smsp__sass_inst_executed_op_global_{op}.sum");
        let rows = rows_with(&[&l1, &sass]);
        let off: Vec<_> = rows
            .iter()
            .filter(|(_, v)| v[&l1] != v[&sass])
            .map(|(at, v)| format!("{at}: L1 {}, SASS {}", v[&l1], v[&sass]))
            .collect();
        assert!(rows.len() > 100, "{op}: only {} rows compared", rows.len());
        assert!(
            off.is_empty(),
            "{op}: {} of {}:\n{}",
            off.len(),
            rows.len(),
            off.join("\n")
        );
    }
}

/// sm__mio_inst_issued is left out of the sub-units whose maximum stands for ncu's
/// sm__throughput: it is never the busiest of them.
#[test]
fn mio_instructions_are_never_the_busiest_compute_part() {
    let mio = "sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed";
    let others = [
        "sm__inst_issued.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed",
        "sm__mio_pq_read_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",
        "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed",
    ];
    let mut columns = vec![mio];
    columns.extend(others);
    let rows = rows_with(&columns);
    let above: Vec<_> = rows
        .iter()
        .filter_map(|(at, v)| {
            let busiest = others.iter().map(|o| v[*o]).fold(0.0, f64::max);
            (v[mio] > busiest).then(|| format!("{at}: mio {} > {busiest}", v[mio]))
        })
        .collect();
    assert!(rows.len() > 1000, "only {} launches compared", rows.len());
    assert!(above.is_empty(), "{}:\n{}", above.len(), above.join("\n"));
}
