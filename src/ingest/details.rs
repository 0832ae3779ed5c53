//! The details page: one row per metric per launch, with section names and labels, and
//! NVIDIA's own rule results in the trailing columns.

use std::collections::HashMap;

use super::raw::csv_error;
use super::{CsvText, NvidiaRule, PendingCell, PendingLaunch, parse_dim3, wanted_keys};
use crate::error::{Error, Result};
use crate::ingest::number::{NumberStyle, parse_plain_number};

pub(super) fn parse(file: &str, csv: &CsvText) -> Result<(Vec<PendingLaunch>, Vec<String>)> {
    let mut notes = Vec::new();
    let (header, records) = super::open_csv(file, csv)?;
    let mut columns: HashMap<&str, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        columns.entry(name).or_insert(i);
    }
    let header_line = csv.original_line(1);
    let need = |name: &str| {
        columns.get(name).copied().ok_or_else(|| {
            Error::at(
                file,
                header_line,
                None,
                format!("details page has no `{name}` column"),
            )
        })
    };
    let id_col = need("ID")?;
    let name_col = need("Kernel Name")?;
    let section_col = need("Section Name")?;
    let metric_col = need("Metric Name")?;
    let unit_col = need("Metric Unit")?;
    let value_col = need("Metric Value")?;
    let col = |name: &str| columns.get(name).copied();
    let (block_col, grid_col) = (col("Block Size"), col("Grid Size"));
    let (rule_col, rule_type_col, speedup_col) =
        (col("Rule Name"), col("Rule Type"), col("Estimated Speedup"));
    let wanted = wanted_keys();

    let mut launches: Vec<PendingLaunch> = Vec::new();
    let mut unknown_sections = std::collections::BTreeSet::new();
    for record in records {
        let record = record.map_err(|e| csv_error(file, csv, &e))?;
        let line = csv.original_line(record.position().map_or(0, |p| p.line()));
        let get = |c: Option<usize>| c.and_then(|c| record.get(c)).unwrap_or("");
        let id_text = get(Some(id_col)).trim();
        let id = super::parse_launch_id(file, line, id_col, id_text)?;
        if launches.last().is_none_or(|l| l.id != id) {
            launches.push(PendingLaunch {
                id,
                name: get(Some(name_col)).to_string(),
                grid: parse_dim3(get(grid_col)),
                block: parse_dim3(get(block_col)),
                device: None,
                line,
                cells: Vec::new(),
                nvidia_rules: Vec::new(),
            });
        }
        let launch = launches.last_mut().expect("pushed above");
        let rule = get(rule_col).trim();
        if !rule.is_empty() {
            launch.nvidia_rules.push(NvidiaRule {
                name: rule.to_string(),
                kind: get(rule_type_col).trim().to_string(),
                estimated_speedup: parse_plain_number(get(speedup_col), NumberStyle::PointDecimal),
            });
            continue;
        }
        let section = get(Some(section_col)).trim();
        let metric = get(Some(metric_col)).trim();
        if metric == "device__attribute_display_name" {
            launch.device = Some(get(Some(value_col)).trim().to_string());
            continue;
        }
        // Metric names (`--print-metric-name name`) carry `__`; labels do not.
        let key = if metric.contains("__") {
            metric.to_string()
        } else {
            format!("{section}/{metric}")
        };
        if !wanted.contains(key.as_str()) {
            if !metric.contains("__") && !KNOWN_SECTIONS.contains(&section) {
                unknown_sections.insert(section.to_string());
            }
            continue;
        }
        launch.cells.push(PendingCell {
            key,
            unit: get(Some(unit_col)).to_string(),
            text: get(Some(value_col)).to_string(),
            line,
            column: value_col as u64 + 1,
        });
    }
    if !unknown_sections.is_empty() {
        notes.push(format!(
            "sections gpulint does not read were skipped: {}",
            unknown_sections.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok((launches, notes))
}

/// Sections of ncu 2025's default and full sets: their other labels are skipped quietly.
const KNOWN_SECTIONS: &[&str] = &[
    "GPU Speed Of Light Throughput",
    "SpeedOfLight",
    "SpeedOfLight_RooflineChart",
    "PM Sampling",
    "Compute Workload Analysis",
    "ComputeWorkloadAnalysis",
    "Memory Workload Analysis",
    "MemoryWorkloadAnalysis_Chart",
    "MemoryWorkloadAnalysis_Tables",
    "Scheduler Statistics",
    "SchedulerStats",
    "Warp State Statistics",
    "WarpStateStats",
    "Instruction Statistics",
    "InstructionStats",
    "Launch Statistics",
    "LaunchStats",
    "Occupancy",
    "GPU and Memory Workload Distribution",
    "WorkloadDistribution",
    "Source Counters",
    "SourceCounters",
    "Command line profiler metrics",
    "NUMA Affinity",
    "NVLink Topology",
    "Nvlink",
];
