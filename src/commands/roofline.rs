//! `gpulint roofline`: placements as a list, CSV, or a chart.

use super::check::write_svg;
use super::shared::{emit, gpu_override, load};
use crate::error::{Error, Result};
use crate::{ingest, report};

pub fn roofline_command(
    files: &[String],
    format: crate::cli::RooflineFormat,
    svg: Option<&str>,
    gpu: Option<&str>,
) -> Result<u8> {
    let profiles = load(files, false, None, None)?;
    let gpu = gpu_override(gpu)?;
    let placed: Vec<(&ingest::Launch, crate::roofline::Roofline)> = profiles
        .iter()
        .flat_map(|p| &p.launches)
        .filter_map(|l| crate::roofline::place(l, gpu).map(|r| (l, r)))
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
        crate::cli::RooflineFormat::Human => {
            let mut t = String::new();
            for (l, r) in &placed {
                t.push_str(&format!(
                    "{:>3}  {} ({}x)  AI {:.3} FLOP/B, {}, {:.0}% of roof, {} {}, {}\n",
                    l.id,
                    report::short_name(&l.name),
                    l.count,
                    r.arithmetic_intensity,
                    r.bound.label(),
                    r.pct_of_roof,
                    crate::roofline::si(r.achieved_flops, "FLOP/s"),
                    r.precision,
                    crate::roofline::si(r.achieved_bytes_per_s, "B/s")
                ));
            }
            t
        }
        crate::cli::RooflineFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let _ = w.write_record([
                "launch",
                "launches",
                "kernel",
                "short_name",
                "arithmetic_intensity",
                "achieved_flops",
                "achieved_bytes_per_s",
                "peak_flops",
                "peak_bytes_per_s",
                "ridge",
                "bound",
                "pct_of_roof",
                "precision",
            ]);
            for (l, r) in &placed {
                let _ = w.write_record([
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
                    r.pct_of_roof.to_string(),
                    r.precision.to_string(),
                ]);
            }
            String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
        }
        crate::cli::RooflineFormat::Json => {
            let list: Vec<serde_json::Value> = placed
                .iter()
                .map(|(l, r)| serde_json::json!({ "launch": l.id, "launches": l.count, "name": l.name, "roofline": r }))
                .collect();
            serde_json::to_string_pretty(&list).expect("plain data") + "\n"
        }
    };
    emit(&text)?;
    Ok(0)
}
