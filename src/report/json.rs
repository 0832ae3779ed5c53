//! `--format json`: the machine contract. Top-level `tool`, `version`, `sources`,
//! `kernels` (one per kernel, name, grid and block, with its launch count, metric means
//! and their spread; one per launch with `--per-launch`) and `findings` (rule slug,
//! code, severity, launch,...).

use serde_json::{Value, json};

use super::Report;

pub fn render(r: &Report) -> String {
    let sources: Vec<Value> = r
        .profiles
        .iter()
        .map(|p| {
            let launches: u64 = p.launches.iter().map(|l| l.count).sum();
            json!({ "file": p.file, "page": p.page, "launches": launches, "kernels": p.launches.len() })
        })
        .collect();
    // Each launch's share of the profile's GPU time; helper kernels are left out.
    let counted =
        |l: &crate::ingest::Launch| r.origins.describe(&l.name).kind != crate::origin::Kind::Helper;
    let total: f64 = r
        .launches()
        .filter(|(_, l)| counted(l))
        .filter_map(|(_, l)| l.metrics.get("duration_ns").map(|d| d * l.count as f64))
        .sum();
    let kernels: Vec<Value> = r
        .launches_with_roofline()
        .map(|(p, l, roof)| {
            json!({
                "launch": l.id,
                "launches": l.count,
                "last_launch": l.last_id,
                "name": l.name,
                "grid": l.grid,
                "block": l.block,
                "device": l.device,
                "file": p.file,
                "line": l.line,
                "origin": r.origins.describe(&l.name),
                "share_of_gpu_time": l.metrics.get("duration_ns").filter(|_| total > 0.0 && counted(l)).map(|d| d * l.count as f64 / total),
                "metrics": l.metrics,
                "spread": l.spread,
                "roofline": roof,
            })
        })
        .collect();
    let doc = json!({
        "tool": "gpulint",
        "version": env!("CARGO_PKG_VERSION"),
        "sources": sources,
        "kernels": kernels,
        "findings": r.findings,
        "skipped": r.skips,
        "helpers": r.helpers.iter().map(|(k, n)| json!({ "kernel": k, "launches": n })).collect::<Vec<_>>(),
    });
    let mut s = serde_json::to_string_pretty(&doc).expect("JSON of plain data");
    s.push('\n');
    s
}
