//! The raw page: one row per launch, one column per metric, a units row under the header.

use std::collections::HashMap;

use super::fields::{Row, Wanted};
use super::row::{ChunkOut, Parsed, RowCtx};
use super::{WARNING, number, parse_dim3, text, wanted_keys};
use crate::error::{Error, Result};
use crate::metrics::SourceName;

/// Where a raw page keeps what gpulint reads.
pub(super) struct RawLayout {
    columns: usize,
    id: usize,
    name: usize,
    block: Option<usize>,
    grid: Option<usize>,
    device: Option<usize>,
    process: Option<usize>,
    /// Metric columns gpulint reads, with the key each is kept under.
    metrics: Vec<(usize, SourceName)>,
    /// The units row, per entry of `metrics`; empty until seen.
    units: Vec<String>,
    /// The factor each unit scales by (`None` for a unit gpulint does not know, which the
    /// full conversion reports).
    scales: Vec<Option<f64>>,
    /// A GUI export (see [`super::gui`]): units come with the header, no units row
    /// follows, and values are rounded to 2 decimals.
    from_gui: bool,
    /// Every column [`RawLayout::row`] reads.
    pub(super) wanted: Wanted,
}

/// Each metric column with its name and where it leads, found once.
fn sources(metrics: &[(usize, &'static str)]) -> Vec<(usize, SourceName)> {
    metrics
        .iter()
        .map(|&(c, k)| (c, SourceName::of(k)))
        .collect()
}

fn columns_read(
    (id, name): (usize, usize),
    shape: [Option<usize>; 4],
    metrics: &[(usize, &'static str)],
) -> Wanted {
    Wanted::new(
        [id, name]
            .into_iter()
            .chain(shape.into_iter().flatten())
            .chain(metrics.iter().map(|(c, _)| *c))
            .collect(),
    )
}

pub(super) fn layout(
    file: &str,
    header_line: u64,
    header: &csv::ByteRecord,
    notes: &mut Vec<String>,
) -> Result<RawLayout> {
    let mut columns: HashMap<String, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        let name = text(name).into_owned();
        if let Some(first) = columns.get(&name) {
            notes.push(format!(
                "{WARNING}column `{name}` appears more than once; the first one (column {}) is used",
                first + 1
            ));
            continue;
        }
        columns.insert(name, i);
    }
    let col = |name: &str| columns.get(name).copied();
    let need = |name: &str| {
        col(name).ok_or_else(|| {
            Error::at(
                file,
                header_line,
                None,
                format!("header has no `{name}` column"),
            )
        })
    };
    let (id, name) = (need("ID")?, need("Kernel Name")?);
    let wanted = wanted_keys();
    let mut metrics: Vec<(usize, &'static str)> = columns
        .iter()
        .filter_map(|(name, &i)| wanted.get(name.as_str()).map(|key| (i, *key)))
        .collect();
    metrics.sort_unstable();
    if metrics.is_empty() {
        notes.push(format!(
            "{WARNING}the export has none of the metrics gpulint's rules read"
        ));
    }
    let (block, grid, device, process) = (
        col("Block Size"),
        col("Grid Size"),
        col("device__attribute_display_name"),
        col("Process ID"),
    );
    Ok(RawLayout {
        columns: header.len(),
        id,
        name,
        block,
        grid,
        device,
        process,
        wanted: columns_read((id, name), [block, grid, device, process], &metrics),
        metrics: sources(&metrics),
        units: Vec::new(),
        scales: Vec::new(),
        from_gui: false,
    })
}

impl RawLayout {
    /// A GUI export's layout: the units are the header's.
    pub(super) fn with_header_units(
        columns: usize,
        (id, name): (usize, usize),
        [grid, block, device, process]: [Option<usize>; 4],
        metrics: Vec<(usize, &'static str)>,
        units: Vec<String>,
    ) -> RawLayout {
        RawLayout {
            columns,
            id,
            name,
            block,
            grid,
            device,
            process,
            wanted: columns_read((id, name), [grid, block, device, process], &metrics),
            metrics: sources(&metrics),
            scales: units.iter().map(|u| number::unit_scale(u)).collect(),
            units,
            from_gui: true,
        }
    }

    pub(super) fn set_units(&mut self, units: &csv::ByteRecord) {
        self.units = self
            .metrics
            .iter()
            .map(|(c, _)| {
                units
                    .get(*c)
                    .map(|u| text(u).into_owned())
                    .unwrap_or_default()
            })
            .collect();
        self.scales = self.units.iter().map(|u| number::unit_scale(u)).collect();
    }

    pub(super) fn row(&self, ctx: &RowCtx, record: &impl Row, out: &mut ChunkOut) -> Result<()> {
        let get = |c: Option<usize>| record.text(c);
        let id_text = get(Some(self.id));
        let id_text = id_text.trim();
        if ctx.first_row_of_file && !self.from_gui {
            if id_text.is_empty() {
                out.units = Some(record.to_record());
                return Ok(());
            }
            out.notes.push(format!(
                "{WARNING}no units row under the header; values are taken to be in base units \
                 (export with --print-units base to be sure)"
            ));
        }
        let id = super::parse_launch_id(ctx.file, ctx.line, self.id, id_text)?;
        if record.count() < self.columns {
            out.row_warnings.push(format!(
                "line {}: row has {} of {} columns (truncated?); the missing ones are treated as not collected",
                ctx.line,
                record.count(),
                self.columns
            ));
        }
        let mut launch = Parsed {
            id,
            name: get(Some(self.name)).into_owned(),
            grid: parse_dim3(&get(self.grid)),
            block: parse_dim3(&get(self.block)),
            device: Some(get(self.device).trim().to_string()).filter(|d| !d.is_empty()),
            process: super::parse_pid(&get(self.process)),
            line: ctx.line,
            values: Vec::with_capacity(self.metrics.len()),
            pending: Vec::new(),
            nvidia_rules: Vec::new(),
            invocations: None,
        };
        // The first chunk's units row is still in `out`; later chunks use the stored one.
        let first_units = out.units.as_ref();
        for (i, &(c, source)) in self.metrics.iter().enumerate() {
            let Some(cell) = record.field(c) else {
                continue;
            };
            // Most cells are a plain number in a known unit: converted without the checks
            // for ncu's other spellings, which the rest take.
            if let (Some(Some(scale)), Some(style), false) =
                (self.scales.get(i), ctx.style, self.from_gui)
                && let Some(v) = number::plain_value(cell, style)
            {
                launch.values.push((source, v * scale));
                continue;
            }
            let cell = text(cell);
            let unit = match (self.units.get(i), first_units) {
                (Some(u), _) => u.as_str().into(),
                (None, Some(units)) => units.get(c).map(text).unwrap_or_default(),
                (None, None) => "".into(),
            };
            if self.from_gui {
                // A percentage or a ratio to 0.01 is all a rule needs; a time, an amount
                // or a rate that multiplies into one loses what the rounding took.
                let measures_an_amount =
                    !matches!(unit.trim(), "%" | "") && !source.name.ends_with(".ratio");
                let shown = super::number::aggregate_value(&cell);
                if measures_an_amount && super::number::few_significant_digits(shown) {
                    *out.coarse_values.entry(source.name).or_default() += 1;
                }
            }
            let column = c as u64 + 1;
            launch.add_cell(ctx, source, unit, cell, column)?;
        }
        out.launches.push(launch);
        Ok(())
    }
}
