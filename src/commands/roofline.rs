//! `gpulint roofline`: placements as a list, CSV, or a chart.

use super::Output;
use super::lint::write_svg;
use super::shared::gpu_override;
use crate::cli::RooflineFormat;
use crate::error::{Error, Result};
use crate::load::load;
use crate::roofline::Roofline;
use crate::{ingest, report};

/// `gpulint roofline FILE...`: each kernel placed on the roofline, over all its launches
/// and configurations, as `check`'s roofline section places it.
pub fn roofline_command(
    files: &[String],
    format: RooflineFormat,
    svg: Option<&str>,
    gpu: Option<&str>,
    out: &mut Output,
) -> Result<u8> {
    // The tags from the rules as gpulint.toml sets them, and their findings, as `check`'s.
    let (rules, config) = super::shared::enabled_rules(&crate::cli::RuleArgs::default())?;
    let ignored = |n: &str, r: &crate::rules::Rule| config.kernel_ignored(n, r);
    let mut linter = crate::rules::engine::Linter::new(&rules, &ignored, true);
    let profiles = load(files, false, None, Some(&mut linter))?;
    let gpu = gpu_override(gpu)?;
    crate::pipeline::warn_gpu_mismatch(gpu, &profiles);
    let settings = super::shared::analysis_settings(&crate::cli::RuleArgs::default(), 0.0);
    let analysis = crate::pipeline::analyze(&profiles, linter.finish(), &rules, &settings)?;
    let rows = crate::pipeline::kernel_rows(&profiles, false, gpu, &rules, &analysis.findings);
    let placed: Vec<Placed> = rows
        .iter()
        .filter_map(|(v, roof)| roof.clone().map(|r| (&v.entry, r)))
        .collect();
    if placed.is_empty() {
        return Err(Error::new(
            "no kernel could be placed: the exports lack FLOP counters, DRAM bytes or the duration \
                     (gpulint run collects them; --gpu NAME supplies peaks)",
        ));
    }
    if let Some(path) = svg {
        write_svg(path, &placed, files)?;
    }
    let text = match format {
        RooflineFormat::Human => human_list(&placed),
        RooflineFormat::Csv => csv_text(&placed)?,
        RooflineFormat::Json => json_text(&placed),
    };
    out.emit(&text)?;
    Ok(0)
}

type Placed<'a> = (&'a ingest::Launch, Roofline);

fn human_list(placed: &[Placed]) -> String {
    let width = placed
        .iter()
        .map(|(l, _)| report::short_name(&l.name).chars().count())
        .max()
        .unwrap_or(0);
    let mut t = String::new();
    for (l, r) in placed {
        t.push_str(&format!(
            "{:>3}  {:<width$}  {:>5}x  {}\n",
            l.id,
            report::short_name(&l.name),
            l.count,
            r.describe()
        ));
    }
    t
}

fn csv_text(placed: &[Placed]) -> Result<String> {
    let failed = |e: csv::Error| Error::new(format!("cannot write the roofline CSV: {e}"));
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "launch",
        "launch_count",
        "kernel",
        "short_name",
        "arithmetic_intensity",
        "achieved_flops",
        "achieved_bytes_per_s",
        "peak_flops",
        "peak_bytes_per_s",
        "ridge",
        "bound",
        "latency_bound",
        "pct_of_roof",
        "precision",
        "flops",
        "dram_bytes",
        "peaks_from",
    ])
    .map_err(failed)?;
    for (l, r) in placed {
        w.write_record([
            l.id.to_string(),
            l.count.to_string(),
            l.name.clone(),
            report::short_name(&l.name),
            r.arithmetic_intensity.to_string(),
            r.achieved_flops.to_string(),
            r.achieved_bytes_per_s.to_string(),
            r.peak_flops.to_string(),
            r.peak_bytes_per_s.to_string(),
            r.ridge.to_string(),
            r.bound.as_str().to_string(),
            r.latency_bound.to_string(),
            r.pct_of_roof.to_string(),
            r.precision.to_string(),
            r.flops.to_string(),
            r.dram_bytes.to_string(),
            r.peaks_from.clone(),
        ])
        .map_err(failed)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| Error::new(format!("cannot write the roofline CSV: {e}")))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

fn json_text(placed: &[Placed]) -> String {
    let list: Vec<serde_json::Value> = placed
        .iter()
        .map(|(l, r)| serde_json::json!({ "launch": l.id, "launch_count": l.count, "name": l.name, "roofline": r }))
        .collect();
    serde_json::to_string_pretty(&list).expect("plain data") + "\n"
}
