//! The details page: one row per metric per launch, with section names and labels, and
//! NVIDIA's own rule results in the trailing columns. `--print-summary per-kernel` (or
//! `per-gpu`) in CSV has the same shape, one block per kernel and configuration instead of
//! per launch: no `ID`, an `Invocations` column, and Minimum, Maximum and Average instead
//! of the value (the raw page's summary also has no `Section Name`).

use std::collections::{BTreeSet, HashMap, HashSet};

use super::fields::Row;
use super::row::{ChunkOut, Parsed, RowCtx};
use super::{NvidiaRule, parse_dim3, text, wanted_keys};
use crate::error::{Error, Result};
use crate::ingest::number::{NumberStyle, parse_plain_number};

/// Where a details page keeps what gpulint reads.
pub(super) struct DetailsLayout {
    /// `None` in a summary: a kernel's block is told by its name, grid and block.
    id: Option<usize>,
    name: usize,
    section: Option<usize>,
    metric: usize,
    unit: usize,
    /// `Metric Value`, or a summary's `Average`.
    value: usize,
    invocations: Option<usize>,
    block: Option<usize>,
    grid: Option<usize>,
    process: Option<usize>,
    rule: Option<usize>,
    rule_type: Option<usize>,
    speedup: Option<usize>,
    wanted: HashSet<&'static str>,
}

pub(super) fn layout(
    file: &str,
    header_line: u64,
    header: &csv::ByteRecord,
) -> Result<DetailsLayout> {
    let mut columns: HashMap<String, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        columns.entry(text(name).into_owned()).or_insert(i);
    }
    let col = |name: &str| columns.get(name).copied();
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            Error::at(
                file,
                header_line,
                None,
                format!("details page has no `{name}` column"),
            )
        })
    };
    let invocations = col("Invocations");
    let summary = invocations.is_some();
    Ok(DetailsLayout {
        id: if summary {
            col("ID")
        } else {
            Some(need("ID")?)
        },
        name: need("Kernel Name")?,
        section: if summary {
            col("Section Name")
        } else {
            Some(need("Section Name")?)
        },
        metric: need("Metric Name")?,
        unit: need("Metric Unit")?,
        value: if summary {
            need("Average")?
        } else {
            need("Metric Value")?
        },
        invocations,
        block: col("Block Size"),
        grid: col("Grid Size"),
        process: col("Process ID"),
        rule: col("Rule Name"),
        rule_type: col("Rule Type"),
        speedup: col("Estimated Speedup"),
        wanted: wanted_keys(),
    })
}

impl DetailsLayout {
    pub(super) fn row(&self, ctx: &RowCtx, record: &impl Row, out: &mut ChunkOut) -> Result<()> {
        if record.count() <= self.value {
            out.short_rows += 1;
            return Ok(());
        }
        let get = |c: Option<usize>| record.text(c);
        let id = match self.id {
            Some(column) => {
                super::parse_launch_id(ctx.file, ctx.line, column, get(Some(column)).trim())?
            }
            // Stable across chunk seams, so a kernel's rows join up; renumbered in file
            // order once whole.
            None => block_key(&[&get(Some(self.name)), &get(self.grid), &get(self.block)]),
        };
        if out.launches.last().is_none_or(|l| l.id != id) {
            out.launches.push(Parsed {
                id,
                name: get(Some(self.name)).into_owned(),
                grid: parse_dim3(&get(self.grid)),
                block: parse_dim3(&get(self.block)),
                device: None,
                process: super::parse_pid(&get(self.process)),
                line: ctx.line,
                values: Vec::new(),
                pending: Vec::new(),
                nvidia_rules: Vec::new(),
                invocations: self
                    .invocations
                    .and_then(|c| get(Some(c)).trim().replace(',', "").parse().ok()),
            });
        }
        let launch = out.launches.last_mut().expect("pushed above");
        let rule = get(self.rule);
        let rule = rule.trim();
        if !rule.is_empty() {
            launch.nvidia_rules.push(NvidiaRule {
                name: rule.to_string(),
                kind: get(self.rule_type).trim().to_string(),
                estimated_speedup: parse_plain_number(
                    &get(self.speedup),
                    NumberStyle::PointDecimal,
                ),
            });
            return Ok(());
        }
        let section = get(self.section);
        let section = section.trim();
        let metric = get(Some(self.metric));
        let metric = metric.trim();
        if metric == "device__attribute_display_name" {
            launch.device = Some(get(Some(self.value)).trim().to_string());
            return Ok(());
        }
        let Some(key) = metric_key(&self.wanted, section, metric, &mut out.unknown_sections) else {
            return Ok(());
        };
        let unit = get(Some(self.unit));
        let value = get(Some(self.value));
        let column = self.value as u64 + 1;
        launch.add_cell(
            ctx,
            crate::metrics::SourceName::of(key),
            unit,
            value,
            column,
        )
    }
}
/// A summary block's stand-in launch ID: a hash of its kernel name, grid and block.
fn block_key(cells: &[&str]) -> u64 {
    cells.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, cell| {
        cell.bytes()
            .chain([0])
            .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    })
}

/// The key a metric row gives, if gpulint reads it. Metric names (`--print-metric-name
/// name`, `--metrics` runs) carry `__`; labels do not and are read with their section. A
/// label gpulint does not read, of a section it does not know, adds that section to
/// `unknown` (for the note that it was skipped).
pub(super) fn metric_key(
    wanted: &HashSet<&'static str>,
    section: &str,
    metric: &str,
    unknown: &mut BTreeSet<String>,
) -> Option<&'static str> {
    if metric.contains("__") {
        return wanted.get(metric).copied();
    }
    let key = wanted.get(format!("{section}/{metric}").as_str()).copied();
    if key.is_none() && !KNOWN_SECTIONS.contains(&section) {
        unknown.insert(section.to_string());
    }
    key
}

/// Sections of ncu's default and full sets since 2019.1: their other labels are skipped
/// quietly.
const KNOWN_SECTIONS: &[&str] = &[
    "GPU Speed Of Light Throughput",
    // ncu 2019.x-2020.1.
    "GPU Speed Of Light",
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
    // ncu 2025.3.1 with `--print-details all`: the bodies of the chart sections.
    "GPU Speed Of Light Roofline Chart",
    "GPU Speed Of Light Hierarchical Roofline Chart (Double Precision)",
    "GPU Speed Of Light Hierarchical Roofline Chart (Half Precision)",
    "GPU Speed Of Light Hierarchical Roofline Chart (Single Precision)",
    "GPU Speed Of Light Hierarchical Roofline Chart (Tensor Core)",
    "Memory Workload Analysis Chart",
    "Memory Workload Analysis Tables",
];
