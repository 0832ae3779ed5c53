//! The Nsight Compute GUI's own CSV exports ("Export to CSV" on the Summary and Raw
//! pages): one row per launch like ncu's raw page, but the unit rides in the header
//! (`Duration [usecond]`), the kernel is `Demangled Name`, grids read `"   15,    1,    1"`,
//! a metric with several instances reads `62 (442 instances)`, and the Summary page's
//! columns are labels, not metric names. Either page may be exported transposed (the
//! GUI's Transpose button): one row per column, one column per launch.

use std::collections::{HashMap, HashSet};

use super::raw::RawLayout;
use super::{Page, WARNING, text, wanted_keys};
use crate::error::{Error, Result};
use crate::metrics;

/// The Summary page's metric columns as the GUI labels them, with the metric each shows.
/// From the GUI's default `{Label:metric}` list: Nsight Compute 2022.3 and 2025.3.1 show
/// these five (2025.3.1 adds properties: Estimated Speedup, Runtime Improvement, series
/// and range names). A label the user added in the GUI's options is matched against the
/// details page's labels instead (`Achieved Occupancy`).
const SUMMARY_LABELS: &[(&str, &str)] = &[
    ("Duration", "gpu__time_duration.sum"),
    (
        "Compute Throughput",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "Memory Throughput",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    ("# Registers", "launch__registers_per_thread"),
    ("Cycles", "gpc__cycles_elapsed.max"),
];

/// Columns of either page that describe a launch rather than measure it; not metrics.
const PROPERTIES: &[&str] = &[
    "ID",
    "Time",
    "API Call ID",
    "Issues Detected",
    "Estimated Speedup",
    "Runtime Improvement",
    "Series ID",
    "Series Parameters",
    "Range Name",
    "Function Name",
    "Mangled Name",
    "Demangled Name",
    "Original Demangled Name",
    "Process",
    "Thread ID",
    "Device Name",
    "CUprogram",
    "CUfunction",
    "Grid Offset",
    "Grid Size",
    "Block Size",
    "Cluster Size",
    "Grid Dimensions",
    "Context",
    "Stream",
];

/// A GUI export's header: unquoted, `ID` first, a `Demangled Name` or `Function Name`
/// column, and none of the command line's `Kernel Name`.
pub(super) fn is_header(line: &[u8]) -> bool {
    let has = |s: &[u8]| line.windows(s.len()).any(|w| w == s);
    line.starts_with(b"ID,")
        && (has(b",Demangled Name") || has(b",Function Name"))
        && !has(b"Kernel Name")
}

/// A transposed GUI export's first line: `ID` then launch numbers (`ID,0,1,2`).
pub(super) fn is_transposed_header(line: &[u8]) -> bool {
    let mut fields = line.split(|b| *b == b',');
    fields.next() == Some(b"ID")
        && line.contains(&b',')
        && fields.all(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
}

/// `Duration [usecond]` as ("Duration", "usecond"); a header without a unit as itself.
fn split_unit(header: &str) -> (&str, &str) {
    match header.strip_suffix(']').and_then(|h| h.rsplit_once(" [")) {
        Some((name, unit)) => (name, unit),
        None => (header, ""),
    }
}

/// Details labels by their last part ("Achieved Occupancy" for "Occupancy/Achieved
/// Occupancy"), each with the metric it gives.
type LabelsByName = HashMap<&'static str, Vec<(&'static str, &'static str)>>;

fn labels_by_name() -> LabelsByName {
    let mut labels: LabelsByName = HashMap::new();
    for m in metrics::METRICS {
        for label in m.labels {
            let last = label.rsplit('/').next().unwrap_or(label);
            labels
                .entry(split_unit(last).0)
                .or_default()
                .push((m.key, label));
        }
    }
    labels
}

/// The key a metric column is kept under: a raw metric name as such (Raw page), or a
/// Summary label through [`SUMMARY_LABELS`] or the details labels ending in it (left
/// unread when those give different metrics).
fn column_key(
    name: &str,
    wanted: &HashSet<&'static str>,
    labels: &LabelsByName,
) -> Option<&'static str> {
    if let Some(key) = wanted.get(name) {
        return Some(key);
    }
    if let Some((_, metric)) = SUMMARY_LABELS.iter().find(|(label, _)| *label == name) {
        return wanted.get(metric).copied();
    }
    let found = labels.get(name)?;
    let (metric, label) = found.first()?;
    found.iter().all(|(m, _)| m == metric).then_some(*label)
}

/// Which page the header is, and where its columns go.
pub(super) fn layout(
    file: &str,
    header_line: u64,
    header: &csv::ByteRecord,
    notes: &mut Vec<String>,
) -> Result<(RawLayout, Page)> {
    let names: Vec<String> = header.iter().map(|h| text(h).into_owned()).collect();
    let col = |name: &str| names.iter().position(|n| n == name);
    let name = col("Demangled Name")
        .or_else(|| col("Function Name"))
        .ok_or_else(|| {
            Error::at(
                file,
                header_line,
                None,
                "header has no `Demangled Name` or `Function Name` column",
            )
        })?;
    let (wanted, labels) = (wanted_keys(), labels_by_name());
    let (mut metrics, mut units, mut unread) = (Vec::new(), Vec::new(), Vec::new());
    let mut raw_names = 0;
    for (i, header) in names.iter().enumerate() {
        let (label, unit) = split_unit(header);
        if PROPERTIES.contains(&label) {
            continue;
        }
        raw_names += usize::from(label.contains("__"));
        if metrics.iter().any(|(c, _)| names[*c] == *header) {
            continue;
        }
        match column_key(label, &wanted, &labels) {
            Some(key) => {
                metrics.push((i, key));
                units.push(unit.to_string());
            }
            None if !label.contains("__") => unread.push(label.to_string()),
            None => {}
        }
    }
    let page = if raw_names > 0 {
        Page::GuiRaw
    } else {
        Page::GuiSummary
    };
    if !unread.is_empty() {
        notes.push(format!(
            "columns gpulint does not read were skipped: {}",
            unread.join(", ")
        ));
    }
    if metrics.is_empty() {
        notes.push(format!(
            "{WARNING}the export has none of the metrics gpulint's rules read"
        ));
    }
    let id = col("ID").expect("is_header checked the ID column");
    Ok((
        RawLayout::with_header_units(
            header.len(),
            (id, name),
            [
                col("Grid Size"),
                col("Block Size"),
                col("Device Name"),
                col("Process"),
            ],
            metrics,
            units,
        ),
        page,
    ))
}

/// Turns a transposed export back: its line `i`, column `j` becomes line `j`, column
/// `i`. The GUI pads nothing, so every line has one field per launch plus the label.
pub(super) fn transpose(file: &str, first_line: u64, bytes: &[u8]) -> Result<Vec<u8>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(bytes);
    let mut rows: Vec<csv::ByteRecord> = Vec::new();
    for (i, record) in reader.byte_records().enumerate() {
        let record = record.map_err(|e| {
            Error::at(
                file,
                first_line + i as u64,
                None,
                format!("malformed CSV in a transposed GUI export: {e}"),
            )
        })?;
        if record.iter().all(|f| f.iter().all(u8::is_ascii_whitespace)) {
            continue;
        }
        rows.push(record);
    }
    let width = rows.first().map_or(0, csv::ByteRecord::len);
    if let Some((i, short)) = rows.iter().enumerate().find(|(_, r)| r.len() != width) {
        return Err(Error::at(
            file,
            first_line + i as u64,
            None,
            format!(
                "row has {} fields, the `ID` row {width}: a transposed GUI export needs one per launch",
                short.len()
            ),
        ));
    }
    let mut writer = csv::Writer::from_writer(Vec::new());
    for column in 0..width {
        let record: csv::ByteRecord = rows.iter().map(|r| &r[column]).collect();
        writer
            .write_byte_record(&record)
            .map_err(|e| Error::in_file(file, format!("cannot turn the export back: {e}")))?;
    }
    writer
        .into_inner()
        .map_err(|e| Error::in_file(file, format!("cannot turn the export back: {e}")))
}

/// An error met reading the turned-back table, located in the file as it is: the
/// table's line `l`, column `c` is the file's line `id_row + c - 1`, column `l`.
pub(super) fn turned_back_error(mut error: Error, id_row: u64) -> Error {
    if let Some(loc) = &mut error.location
        && let Some(line) = loc.line
    {
        match loc.column {
            Some(column) => {
                loc.line = Some(id_row + column - 1);
                loc.column = Some(line);
            }
            None => {
                loc.line = None;
                error.message = format!(
                    "{} (in column {line} of the transposed export)",
                    error.message
                );
            }
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_come_off_the_header() {
        assert_eq!(split_unit("Duration [usecond]"), ("Duration", "usecond"));
        assert_eq!(
            split_unit("# Registers [register/thread]"),
            ("# Registers", "register/thread")
        );
        assert_eq!(split_unit("Issues Detected"), ("Issues Detected", ""));
    }

    #[test]
    fn a_transposed_header_is_id_then_launch_numbers() {
        assert!(is_transposed_header(b"ID,0,1,2,11"));
        assert!(!is_transposed_header(b"ID,Issues Detected,Function Name"));
        assert!(!is_transposed_header(b"ID"));
        assert!(!is_transposed_header(b"ID,0,,2"));
    }

    /// A column the user added in the GUI's options is read by its details label; one whose
    /// label two metrics share is not guessed.
    #[test]
    fn added_summary_columns_are_read_by_their_details_labels() {
        let (wanted, labels) = (wanted_keys(), labels_by_name());
        let key = |name: &str| column_key(name, &wanted, &labels);
        assert_eq!(
            key("Achieved Occupancy"),
            Some("Occupancy/Achieved Occupancy")
        );
        assert_eq!(
            key("Theoretical Occupancy"),
            Some("Occupancy/Theoretical Occupancy")
        );
        assert_eq!(
            key("sm__warps_active.avg.pct_of_peak_sustained_active"),
            Some("sm__warps_active.avg.pct_of_peak_sustained_active")
        );
        assert_eq!(key("Duration"), Some("gpu__time_duration.sum"));
        assert_eq!(key("Issued Warp Per Scheduler"), None);
    }

    #[test]
    fn summary_labels_name_metrics_gpulint_reads() {
        let wanted = wanted_keys();
        let read: Vec<&str> = SUMMARY_LABELS
            .iter()
            .filter(|(_, metric)| wanted.contains(metric))
            .map(|(label, _)| *label)
            .collect();
        assert_eq!(
            read,
            [
                "Duration",
                "Compute Throughput",
                "Memory Throughput",
                "# Registers"
            ]
        );
    }
}
