//! The types a row parser produces, shared by the raw-page and details-page parsers
//! and the streaming reader that drives them: a leaf, so the parsers do not import the
//! reader that imports them.

use std::collections::{BTreeMap, BTreeSet};

use super::number::{self, NumberStyle};
use super::{Launch, NvidiaRule};
use crate::error::{Error, Result};
use crate::metrics::SourceName;

/// A launch as parsed from rows, before its metrics are resolved.
#[derive(Debug)]
pub(crate) struct Parsed {
    pub id: u64,
    pub name: String,
    pub grid: Option<[u64; 3]>,
    pub block: Option<[u64; 3]>,
    pub device: Option<String>,
    /// The export's `Process ID`.
    pub process: Option<u64>,
    pub line: u64,
    /// Converted cells, in column order (the first of a key wins).
    pub values: Vec<(SourceName, f64)>,
    /// Cells of the first chunk, kept as text until the number style is known.
    pub pending: Vec<PendingCell>,
    pub nvidia_rules: Vec<NvidiaRule>,
    /// `--print-summary`: how many launches this entry's averages stand for.
    pub invocations: Option<u64>,
}

impl Parsed {
    /// Adds a cell: converted when the number style is known, else kept as text.
    pub(super) fn add_cell(
        &mut self,
        ctx: &RowCtx,
        key: SourceName,
        unit: std::borrow::Cow<str>,
        text: std::borrow::Cow<str>,
        column: u64,
    ) -> Result<()> {
        match ctx.style {
            Some(style) => {
                if let Some(v) = convert(ctx.file, key.name, &unit, &text, style, ctx.line, column)?
                {
                    self.values.push((key, v));
                }
            }
            None => self.pending.push(PendingCell {
                key,
                unit: unit.into_owned(),
                text: text.into_owned(),
                line: ctx.line,
                column,
            }),
        }
        Ok(())
    }
}

#[derive(Debug)]
pub(crate) struct PendingCell {
    pub key: SourceName,
    pub unit: String,
    pub text: String,
    pub line: u64,
    pub column: u64,
}

/// What parsing one chunk gave.
#[derive(Default)]
pub(super) struct ChunkOut {
    /// Launches that may continue in the next chunk (details page), or whose cells wait
    /// for the number style (first chunk).
    pub launches: Vec<Parsed>,
    /// Launches finished on the worker: raw-page rows are whole launches.
    pub finished: Vec<Launch>,
    pub notes: Vec<String>,
    pub row_warnings: Vec<String>,
    pub unknown_sections: BTreeSet<String>,
    /// Details pages: rows that end before the value column (the section tables
    /// `--print-details all` writes among the metric rows, or a row cut short).
    pub short_rows: u64,
    /// GUI exports: per metric, values written with fewer than three significant digits.
    pub coarse_values: BTreeMap<&'static str, u64>,
    /// Lines of ncu messages or program output inside the CSV.
    pub skipped: u64,
    /// The raw page's units row, seen in the first chunk.
    pub units: Option<csv::ByteRecord>,
    pub error: Option<Error>,
}

/// Context a row parser needs to place what it reads.
pub(super) struct RowCtx<'a> {
    pub file: &'a str,
    pub line: u64,
    pub style: Option<NumberStyle>,
    pub first_row_of_file: bool,
}

/// Converts one cell: `None` when the metric was not collected.
pub(super) fn convert(
    file: &str,
    key: &str,
    unit: &str,
    text: &str,
    style: NumberStyle,
    line: u64,
    column: u64,
) -> Result<Option<f64>> {
    match number::parse_cell(text, unit, style) {
        Ok(number::Cell::Value(v)) => Ok(Some(v)),
        Ok(number::Cell::Absent) => Ok(None),
        Err(why) => Err(Error::at(
            file,
            line,
            Some(column),
            format!("metric `{key}`: {why}"),
        )),
    }
}

/// The note for a file whose numbers use a decimal comma.
pub(super) fn style_note(style: NumberStyle) -> Option<String> {
    (style == NumberStyle::CommaDecimal)
        .then(|| "numbers use a comma as the decimal mark (European locale)".into())
}

/// The note naming the sections whose labels were skipped, if any.
pub(super) fn unknown_sections_note(sections: BTreeSet<String>) -> Option<String> {
    (!sections.is_empty()).then(|| {
        format!(
            "sections gpulint does not read were skipped: {}",
            sections.into_iter().collect::<Vec<_>>().join(", ")
        )
    })
}

/// The warning for a GUI export whose columns rounded small values away, if any did.
pub(super) fn coarse_values_note(coarse: &BTreeMap<&'static str, u64>) -> Option<String> {
    let total: u64 = coarse.values().sum();
    if total == 0 {
        return None;
    }
    let mut most: Vec<(&&str, &u64)> = coarse.iter().collect();
    most.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let named: Vec<String> = most
        .iter()
        .take(4)
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let more = if most.len() > 4 { ", ..." } else { "" };
    Some(format!(
        "{}the GUI writes each column to 2 decimals of one unit, so {total} value(s) kept fewer \
         than 3 significant digits ({}{more}): small values are coarse or read as 0, and so are \
         the shares and figures drawn from them; ncu's command line exports them exact (`ncu \
         --import REPORT --csv --page raw`)",
        super::WARNING,
        named.join(", ")
    ))
}

/// Takes the style the first chunk's numbers prove; point-decimal when they prove none.
pub(super) fn decide_style(launches: &[Parsed]) -> NumberStyle {
    let (mut point, mut comma) = (0usize, 0usize);
    for cell in launches.iter().flat_map(|p| &p.pending) {
        match number::style_evidence(number::aggregate_value(&cell.text)) {
            Some(NumberStyle::PointDecimal) => point += 1,
            Some(NumberStyle::CommaDecimal) => comma += 1,
            None => {}
        }
    }
    if comma > point {
        NumberStyle::CommaDecimal
    } else {
        NumberStyle::PointDecimal
    }
}

pub(super) fn convert_pending(file: &str, p: &mut Parsed, style: NumberStyle) -> Result<()> {
    for cell in std::mem::take(&mut p.pending) {
        if let Some(v) = convert(
            file,
            cell.key.name,
            &cell.unit,
            &cell.text,
            style,
            cell.line,
            cell.column,
        )? {
            p.values.push((cell.key, v));
        }
    }
    Ok(())
}

/// The warning for a `--print-summary` export, CSV or text: averages hide a slow launch.
pub(super) fn summary_note(launches: Option<u64>) -> String {
    let in_all = launches
        .map(|n| format!(" ({n} in all)"))
        .unwrap_or_default();
    format!(
        "{}this is a `--print-summary` export: each kernel's values are the averages over its \
         launches{in_all}, so one slow launch cannot be told apart",
        super::WARNING
    )
}
