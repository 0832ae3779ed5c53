//! The raw page: one row per launch, one column per metric, a units row under the header.

use std::collections::HashMap;

use super::{CsvText, PendingCell, PendingLaunch, WARNING, parse_dim3, wanted_keys};
use crate::error::{Error, Result};

pub(super) fn parse(file: &str, csv: &CsvText) -> Result<(Vec<PendingLaunch>, Vec<String>)> {
    let mut notes = Vec::new();
    let (header, records) = super::open_csv(file, csv)?;
    let mut columns: HashMap<&str, usize> = HashMap::new();
    for (i, name) in header.iter().enumerate() {
        if columns.contains_key(name) {
            notes.push(format!(
                "{WARNING}column `{name}` appears more than once; the first one (column {}) is used",
                columns[name] + 1
            ));
            continue;
        }
        columns.insert(name, i);
    }
    let col = |name: &str| columns.get(name).copied();
    let id_col = col("ID").ok_or_else(|| {
        Error::at(
            file,
            csv.original_line(1),
            None,
            "header has no `ID` column",
        )
    })?;
    let name_col = col("Kernel Name").ok_or_else(|| {
        Error::at(
            file,
            csv.original_line(1),
            None,
            "header has no `Kernel Name` column",
        )
    })?;
    let (block_col, grid_col) = (col("Block Size"), col("Grid Size"));
    let device_col = col("device__attribute_display_name");
    let wanted = wanted_keys();
    let metric_cols: Vec<(usize, &str)> = header
        .iter()
        .enumerate()
        .filter(|(i, name)| wanted.contains(name) && columns.get(name) == Some(i))
        .collect();
    if metric_cols.is_empty() {
        notes.push(format!(
            "{WARNING}the export has none of the metrics gpulint's rules read"
        ));
    }

    let mut units: Option<csv::StringRecord> = None;
    let mut launches = Vec::new();
    for (index, record) in records.enumerate() {
        let record = record.map_err(|e| csv_error(file, csv, &e))?;
        let line = csv.original_line(record.position().map_or(0, |p| p.line()));
        let id_text = record.get(id_col).unwrap_or("").trim();
        if index == 0 && id_text.is_empty() {
            units = Some(record);
            continue;
        }
        if index == 0 {
            notes.push(format!(
                "{WARNING}no units row under the header; values are taken to be in base units \
                 (export with --print-units base to be sure)"
            ));
        }
        let id = super::parse_launch_id(file, line, id_col, id_text)?;
        if record.len() < header.len() {
            notes.push(format!(
                "{WARNING}line {line}: row has {} of {} columns (truncated?); the missing ones are treated as not collected",
                record.len(),
                header.len()
            ));
        }
        let get = |c: Option<usize>| c.and_then(|c| record.get(c)).unwrap_or("");
        let cells = metric_cols
            .iter()
            .filter_map(|&(c, name)| {
                let text = record.get(c)?;
                Some(PendingCell {
                    key: name.to_string(),
                    unit: units
                        .as_ref()
                        .and_then(|u| u.get(c))
                        .unwrap_or("")
                        .to_string(),
                    text: text.to_string(),
                    line,
                    column: c as u64 + 1,
                })
            })
            .collect();
        let device = Some(get(device_col).trim().to_string()).filter(|d| !d.is_empty());
        launches.push(PendingLaunch {
            id,
            name: get(Some(name_col)).to_string(),
            grid: parse_dim3(get(grid_col)),
            block: parse_dim3(get(block_col)),
            device,
            line,
            cells,
            nvidia_rules: Vec::new(),
        });
    }
    Ok((launches, notes))
}

pub(super) fn csv_error(file: &str, csv: &CsvText, e: &csv::Error) -> Error {
    let line = e
        .position()
        .map(|p| csv.original_line(p.line()))
        .unwrap_or(0);
    Error::at(file, line, None, format!("malformed CSV: {e}"))
}
