//! `--format json`: the machine contract. Top-level `tool`, `version`, `sources`,
//! `kernels` (one per kernel, name, grid and block, with its launch count, metric means
//! and their spread; one per launch with `--per-launch`) and `findings` (rule slug,
//! code, severity, launch,...).
//!
//! Written out one entry at a time, so a profile of thousands of kernels never becomes
//! one JSON tree in memory. The layout is serde_json's pretty printing with sorted keys.

use std::io::Write;

use serde_json::{Value, json};

use super::Report;

/// Writes the document to `out`.
pub fn write(r: &Report, out: &mut dyn Write) -> std::io::Result<()> {
    let kernels = r
        .launches_with_roofline()
        .map(|(p, l, roof)| kernel(r, p, l, roof));
    // A run has one profile, the first: the sample is its.
    let sources = r.profiles.iter().enumerate().map(|(i, p)| {
        let s = if i == 0 {
            r.sample.clone()
        } else {
            Default::default()
        };
        json!({
            "file": p.file,
            "page": p.page,
            "launch_count": p.launch_count(),
            "configurations": p.launches.len(),
            "sample": s.sample.as_ref().map(|s| s.name()),
            "sampled_per_config": match s.sample {
                Some(crate::profile::sample::Sample::PerConfig(n)) => Some(n),
                _ => None,
            },
            "timed_every_launch": s.profiled_launches.is_some(),
            "profiled_launches": s.profiled_launches,
            "counted_launches": s.counted_launches,
            "every_launch_counted_by": s.every_launch_counted_by,
            "profiled_share_of_gpu_time_pct": s.coverage.as_ref().map(|c| 100.0 * c.profiled_share),
            "program_exit": s.program_end.map(program_exit),
            "not_profiled": s.coverage.as_ref().map(|c| c.left_out.iter().map(|l| json!({
                "kernel": l.kernel,
                "share_of_gpu_time_pct": 100.0 * l.share,
                "configurations": l.configurations,
                "launches": l.launches,
                "why": l.because.describe(),
            })).collect::<Vec<_>>()),
        })
    });
    let helpers = r
        .helpers
        .iter()
        .map(|(k, n)| json!({ "kernel": k, "launch_count": n }));

    out.write_all(b"{\n")?;
    let coverage = json!({
        "judged": r.coverage.judged,
        "not_judged": r.coverage.not_judged,
        "needs_launch_trace": r.coverage.needs_launch_trace,
        "judged_pct": r.coverage.judged_pct(),
    });
    let text = serde_json::to_string_pretty(&coverage).expect("plain data");
    writeln!(out, "  \"coverage\": {},", text.replace('\n', "\n  "))?;
    array(out, "findings", r.listed_findings().iter().map(plain))?;
    // Said only where --top left some out: the array is then not every finding.
    let left_out = r.findings_left_out();
    if left_out > 0 {
        writeln!(out, "  \"findings_left_out_by_top\": {left_out},")?;
    }
    array(out, "helpers", helpers)?;
    array(out, "kernels", kernels)?;
    array(out, "skipped", r.skips.iter().map(plain))?;
    array(out, "sources", sources)?;
    writeln!(out, "  \"tool\": \"gpulint\",")?;
    writeln!(
        out,
        "  \"version\": {}",
        Value::from(env!("CARGO_PKG_VERSION"))
    )?;
    out.write_all(b"}\n")
}

/// How the profiled program ended (`gpulint run`): its exit status (null when a signal
/// ended it), whether a signal did, whether it failed (gpulint then exits 3).
fn program_exit(end: crate::profile::sample::ProgramEnd) -> Value {
    use crate::profile::sample::ProgramEnd;
    json!({
        "status": match end { ProgramEnd::Exited(c) => Some(c), _ => None },
        "signalled": end == ProgramEnd::Signalled,
        "stopped_once_profiled": end == ProgramEnd::StoppedOnPurpose,
        "failed": end.failed(),
    })
}

/// One kernel entry: a launch, or the launches folded into it.
fn kernel(
    r: &Report,
    p: &crate::ingest::Profile,
    l: &crate::ingest::Launch,
    roof: Option<&crate::roofline::Roofline>,
) -> Value {
    // Each kernel's share of the profile's GPU time; helper kernels are left out.
    let total = r.gpu_time_ns;
    let counted = r.origins.describe(&l.name).kind != crate::origin::Kind::Helper;
    let mut kernel = json!({
        "launch": l.id,
        "launch_count": l.count,
        "last_launch": l.last_id,
        "name": l.name,
        "grid": l.grid,
        "block": l.block,
        "device": l.device,
        "file": p.file,
        "line": l.line,
        "origin": r.origins.describe(&l.name),
        "share_of_gpu_time_pct": l.metrics.get("duration_ns").filter(|_| total > 0.0 && counted).map(|d| 100.0 * d * l.count as f64 / total),
        "metrics": l.metrics,
        "spread": l.spread,
        "roofline": roof,
    });
    // The ranks of a job, where several launched it.
    if l.processes.len() > 1 {
        kernel["process_count"] = json!(l.processes.len());
    }
    kernel
}

/// A value through serde_json's `Value`, whose objects sort their keys.
fn plain(v: &impl serde::Serialize) -> Value {
    serde_json::to_value(v).expect("plain data")
}

/// `"key": [ ... ],` at the top level, one element at a time.
fn array(
    out: &mut dyn Write,
    key: &str,
    items: impl Iterator<Item = Value>,
) -> std::io::Result<()> {
    write!(out, "  \"{key}\": [")?;
    let mut empty = true;
    for item in items {
        out.write_all(if empty { b"\n" } else { b",\n" })?;
        empty = false;
        let text = serde_json::to_string_pretty(&item).expect("plain data");
        // JSON strings hold no raw newline, so re-indenting by line is safe.
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\n")?;
            }
            write!(out, "    {line}")?;
        }
    }
    out.write_all(if empty { b"],\n" } else { b"\n  ],\n" })
}
