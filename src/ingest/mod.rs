//! Reading ncu CSV exports: the raw page, the details page, and ncu's stdout with the
//! CSV mixed into the program's own output. The form is told from the content.

mod details;
pub mod number;
mod raw;
pub mod source;

use std::collections::{BTreeMap, HashSet};
use std::io::Read;

use crate::error::{Error, Result};
use crate::metrics::{self, RawValues};
use number::{Cell, NumberStyle};

/// Notes that start with this are shown even without `--verbose`: the file was read, but
/// not all of it as ncu wrote it.
pub const WARNING: &str = "warning: ";

/// Which page of ncu's CSV output a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Page {
    Raw,
    Details,
}

/// One rule result from NVIDIA's guided analysis, carried by details pages.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NvidiaRule {
    pub name: String,
    pub kind: String,
    pub estimated_speedup: Option<f64>,
}

/// One kernel launch, as one ncu `ID`.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub id: u64,
    pub name: String,
    pub grid: Option<[u64; 3]>,
    pub block: Option<[u64; 3]>,
    pub device: Option<String>,
    /// Line in the input file where this launch starts (1-based), for locations.
    pub line: u64,
    /// Canonical and derived metrics (see [`crate::metrics`]).
    pub metrics: BTreeMap<String, f64>,
    pub nvidia_rules: Vec<NvidiaRule>,
}

/// A parsed export.
#[derive(Debug, Clone)]
pub struct Profile {
    pub file: String,
    pub page: Page,
    pub launches: Vec<Launch>,
    /// Things worth telling the user with `--verbose` (skipped lines, guessed units);
    /// those starting with [`WARNING`] are always shown.
    pub notes: Vec<String>,
    /// Per-source-line sectors from ncu's source page, when given (`--source`).
    pub source_blocks: Vec<source::SourceBlock>,
}

impl Profile {
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.notes.iter().filter_map(|n| n.strip_prefix(WARNING))
    }
}

/// A cell kept for later: numbers are parsed once the file's number style is known.
struct PendingCell {
    key: String,
    unit: String,
    text: String,
    line: u64,
    column: u64,
}

/// A launch whose cells are not parsed yet.
struct PendingLaunch {
    id: u64,
    name: String,
    grid: Option<[u64; 3]>,
    block: Option<[u64; 3]>,
    device: Option<String>,
    line: u64,
    cells: Vec<PendingCell>,
    nvidia_rules: Vec<NvidiaRule>,
}

/// The CSV part of an input, with ncu's and the program's lines taken out.
struct CsvText {
    text: String,
    /// Original 1-based line number of each line of `text`.
    lines: Vec<u64>,
    skipped: usize,
}

impl CsvText {
    fn original_line(&self, csv_line: u64) -> u64 {
        self.lines
            .get(csv_line.saturating_sub(1) as usize)
            .copied()
            .unwrap_or(csv_line)
    }
}

/// Reads a file (or `-` for stdin) and parses it.
pub fn read_path(path: &str) -> Result<Profile> {
    let bytes = if path == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Error::in_file("<stdin>", format!("cannot read: {e}")))?;
        buf
    } else {
        std::fs::read(path).map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?
    };
    let name = if path == "-" { "<stdin>" } else { path };
    parse_bytes(name, &bytes)
}

/// Parses the bytes of an export.
pub fn parse_bytes(file: &str, bytes: &[u8]) -> Result<Profile> {
    if bytes.starts_with(b"NVR\0") {
        return Err(Error::in_file(
            file,
            "this is an Nsight Compute report (.ncu-rep), not a CSV; export it with \
             `ncu --import FILE.ncu-rep --csv --page raw --print-units base > FILE.csv` \
             on a machine with ncu, then lint the CSV",
        ));
    }
    if bytes.is_empty() {
        return Err(Error::in_file(
            file,
            "the file is empty; expected an ncu --csv export",
        ));
    }
    let sample = &bytes[..bytes.len().min(4096)];
    let binary = sample.iter().filter(|b| **b == 0 || (**b < 0x09)).count();
    if binary > 0 {
        return Err(Error::in_file(
            file,
            "the file holds binary data, not text; expected an ncu --csv export",
        ));
    }
    let text = String::from_utf8_lossy(bytes);
    let csv = extract_csv(file, &text)?;
    let first = csv.text.lines().next().unwrap_or_default();
    let is_details = first.contains("\"Metric Name\"") || first.contains(",Metric Name,");
    let (page, pending, mut notes) = if is_details {
        let (p, n) = details::parse(file, &csv)?;
        (Page::Details, p, n)
    } else {
        let (p, n) = raw::parse(file, &csv)?;
        (Page::Raw, p, n)
    };
    if csv.skipped > 0 {
        notes.push(format!(
            "skipped {} line(s) of ncu messages and program output around the CSV",
            csv.skipped
        ));
    }
    if pending.is_empty() {
        return Err(Error::in_file(
            file,
            "the export has a header but no kernel launch rows",
        ));
    }
    let style = detect_style(&pending);
    if style == NumberStyle::CommaDecimal {
        notes.push("numbers use a comma as the decimal mark (European locale)".into());
    }
    let launches = pending
        .into_iter()
        .map(|p| finish_launch(file, p, style))
        .collect::<Result<Vec<_>>>()?;
    Ok(Profile {
        file: file.to_string(),
        page,
        launches,
        notes,
        source_blocks: Vec::new(),
    })
}

/// Finds the CSV header and keeps the lines from there on that are not ncu's own
/// messages. Program output before the header is dropped.
fn extract_csv(file: &str, text: &str) -> Result<CsvText> {
    let mut out = CsvText {
        text: String::new(),
        lines: Vec::new(),
        skipped: 0,
    };
    let mut in_csv = false;
    for (idx, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = if idx == 0 {
            line.strip_prefix('\u{feff}').unwrap_or(line)
        } else {
            line
        };
        if line.starts_with("==") {
            out.skipped += 1;
            continue;
        }
        if !in_csv {
            if is_header(line) {
                in_csv = true;
            } else {
                if !line.trim().is_empty() {
                    out.skipped += 1;
                }
                continue;
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        out.text.push_str(line);
        out.text.push('\n');
        out.lines.push(idx as u64 + 1);
    }
    if !in_csv {
        return Err(Error::in_file(
            file,
            "no ncu CSV header found (a row starting \"ID\",\"Process ID\",... with a \
             \"Kernel Name\" column); expected the output of `ncu --csv --page raw` or \
             `--page details`",
        ));
    }
    Ok(out)
}

fn is_header(line: &str) -> bool {
    let trimmed = line.trim_start_matches('"');
    (trimmed.starts_with("ID\",") || trimmed.starts_with("ID,")) && line.contains("Kernel Name")
}

/// A kernel's function name as ncu's `-k` matches it by default: no `void`, no
/// parameters, no template arguments.
pub fn base_name(full: &str) -> String {
    let short = crate::report::short_name(full);
    let cut = short.find('<').unwrap_or(short.len());
    short[..cut].to_string()
}

/// The header row and a reader over the rows after it. Rows may be ragged: ncu writes
/// details rows without the trailing rule columns.
fn open_csv<'a>(
    file: &str,
    csv: &'a CsvText,
) -> Result<(csv::StringRecord, csv::StringRecordsIntoIter<&'a [u8]>)> {
    let mut records = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv.text.as_bytes())
        .into_records();
    match records.next() {
        Some(Ok(h)) => Ok((h, records)),
        Some(Err(e)) => Err(raw::csv_error(file, csv, &e)),
        None => Err(Error::in_file(file, "the CSV has no header row")),
    }
}

/// The `ID` cell of a row: ncu's launch number, possibly with a thousands separator.
fn parse_launch_id(file: &str, line: u64, column: usize, text: &str) -> Result<u64> {
    text.replace([',', '.'], "").parse::<u64>().map_err(|_| {
        Error::at(
            file,
            line,
            Some(column as u64 + 1),
            format!("field `ID` is {text:?}, expected a launch number"),
        )
    })
}

/// Reads "(256, 1, 1)" as [256, 1, 1].
pub(crate) fn parse_dim3(s: &str) -> Option<[u64; 3]> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut parts = inner
        .split(',')
        .map(|p| p.trim().replace(['.', '\''], "").parse::<u64>());
    let d = [
        parts.next()?.ok()?,
        parts.next()?.ok()?,
        parts.next()?.ok()?,
    ];
    parts.next().is_none().then_some(d)
}

fn detect_style(pending: &[PendingLaunch]) -> NumberStyle {
    let (mut point, mut comma) = (0usize, 0usize);
    for cell in pending.iter().flat_map(|p| p.cells.iter()) {
        match number::style_evidence(&cell.text) {
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

fn finish_launch(file: &str, p: PendingLaunch, style: NumberStyle) -> Result<Launch> {
    let mut raw = RawValues::new();
    for cell in &p.cells {
        match number::parse_cell(&cell.text, &cell.unit, style) {
            Ok(Cell::Value(v)) => {
                raw.entry(cell.key.clone()).or_insert(v);
            }
            Ok(Cell::Absent) => {}
            Err(why) => {
                return Err(Error::at(
                    file,
                    cell.line,
                    Some(cell.column),
                    format!("metric `{}`: {why}", cell.key),
                ));
            }
        }
    }
    // The Grid Size and Block Size columns are always there; they stand in for the
    // launch__ metrics when an export lacks them.
    if let Some(b) = p.block {
        raw.entry("launch__block_size".into())
            .or_insert((b[0] * b[1] * b[2]) as f64);
    }
    if let Some(g) = p.grid {
        raw.entry("launch__grid_size".into())
            .or_insert((g[0] * g[1] * g[2]) as f64);
    }
    let metrics = metrics::resolve(&raw);
    Ok(Launch {
        id: p.id,
        name: p.name,
        grid: p.grid,
        block: p.block,
        device: p.device,
        line: p.line,
        metrics,
        nvidia_rules: p.nvidia_rules,
    })
}

/// The metric names and labels worth keeping from an export.
fn wanted_keys() -> HashSet<&'static str> {
    let mut set: HashSet<&'static str> = metrics::source_names().collect();
    set.extend(
        metrics::METRICS
            .iter()
            .flat_map(|m| m.labels.iter().copied()),
    );
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dim3() {
        assert_eq!(parse_dim3("(256, 1, 1)"), Some([256, 1, 1]));
        assert_eq!(parse_dim3("(256, 1)"), None);
        assert_eq!(parse_dim3("256"), None);
    }

    #[test]
    fn ncu_report_is_named() {
        let err = parse_bytes("x.ncu-rep", b"NVR\0\x02\0\0\0").unwrap_err();
        assert!(err.message.contains("ncu --import"), "{err}");
    }

    #[test]
    fn header_is_found_after_program_output() {
        let csv = extract_csv(
            "f",
            "\u{feff}hello\n==PROF== x\n\"ID\",\"Process ID\",\"Kernel Name\"\r\n\"0\",\"1\",\"k\"\r\n",
        )
        .unwrap();
        assert_eq!(csv.lines, vec![3, 4]);
        assert_eq!(csv.skipped, 2);
    }
}
