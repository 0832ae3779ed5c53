//! ncu's text output (no `--csv`): what `ncu ./prog` prints, what `ncu --import` prints,
//! and what people paste into issues and commit as `ncu.log`. Per launch a header line
//! (`name (grid)x(block), Context 1, Stream 7, Device 0, CC 9.0`; before 2023 a timestamp
//! instead of the grid and block), then `Section:` tables of metric name, unit and value,
//! with NVIDIA's rule messages (`OPT`, `WRN`, `INF`) between them. `--print-summary
//! per-kernel` prints one such block per kernel, with Minimum, Maximum and Average columns
//! and the number of invocations in the header.
//!
//! The text is read whole: the number style (`1,234.5` or `1.234,5`) is decided from every
//! value, and these files are small.

use std::collections::{BTreeSet, HashSet};
use std::io::BufRead;
use std::sync::LazyLock;

use regex::Regex;

use super::row::{
    Parsed, PendingCell, convert_pending, decide_style, style_note, unknown_sections_note,
};
use super::{Launch, NvidiaRule, details, finish_launch, parse_dim3, wanted_keys};
use crate::error::{Error, Result};

/// A launch's (or, in a summary, a kernel's) header line.
#[derive(Debug, PartialEq)]
pub(super) struct LaunchHeader {
    pub name: String,
    pub grid: Option<[u64; 3]>,
    pub block: Option<[u64; 3]>,
    /// `--print-summary`: how many launches the block's averages stand for.
    pub invocations: Option<u64>,
}

static HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^\s*(?P<name>\S.*?)",
        r"(?: (?P<grid>\(\d+, \d+, \d+\))x(?P<block>\(\d+, \d+, \d+\)))?",
        r", (?:\d{4}-[A-Za-z]{3}-\d{2} \d{2}:\d{2}:\d{2}, )?",
        r"(?:Context \d+, Stream \d+(?:, Device \d+, CC \d+\.\d+)?",
        r"|Device \d+, CC \d+\.\d+, Invocations (?P<invocations>\d+))\s*$",
    ))
    .expect("valid pattern")
});

static NVIDIA_RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s+(?P<kind>OPT|WRN|INF|ERR)\s+(?P<text>.*)$").expect("valid pattern")
});

static SPEEDUP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"Est\. (?:Local |Global )?Speedup: (?P<pct>[\d.,]+)%").expect("valid pattern")
});

/// Reads a launch header line; `None` for any other line.
pub(super) fn launch_header(line: &str) -> Option<LaunchHeader> {
    if !line.contains(", Context ") && !line.contains(", Invocations ") {
        return None;
    }
    let c = HEADER.captures(line)?;
    let dim = |name: &str| c.name(name).and_then(|m| parse_dim3(m.as_str()));
    Some(LaunchHeader {
        name: c["name"].to_string(),
        grid: dim("grid"),
        block: dim("block"),
        invocations: c.name("invocations").and_then(|m| m.as_str().parse().ok()),
    })
}

/// Whether a line opens a section table (`    Section: GPU Speed Of Light Throughput`).
pub(super) fn is_section_line(line: &str) -> bool {
    line.trim_start()
        .strip_prefix("Section: ")
        .is_some_and(|name| !name.trim().is_empty())
}

/// The header given to a fragment that starts at a `Section:` line: one launch, unnamed.
const UNNAMED_FRAGMENT: &str = "(unnamed: a section without its launch line), Context 0, Stream 0";

/// A table being read: where its columns start, told by the `---- ----` line above it.
struct Table {
    starts: Vec<usize>,
    unit: usize,
    value: usize,
    /// Rows read since the separator that opened it.
    rows: usize,
    /// A table of another shape, such as `--print-rule-details`' Key Performance
    /// Indicators (`Metric Name | Value | Guidance`): its rows restate metrics, unitless.
    skipped: bool,
}

impl Table {
    fn from_separator(line: &str) -> Option<Table> {
        let bytes = line.as_bytes();
        let starts: Vec<usize> = (0..bytes.len())
            .filter(|&i| bytes[i] == b'-' && (i == 0 || bytes[i - 1] != b'-'))
            .collect();
        // Three columns (name, unit, value) or, in a summary, five (and min, max, average).
        let value = if starts.len() == 5 { 4 } else { 2 };
        (starts.len() >= 2).then_some(Table {
            unit: 1,
            value: value.min(starts.len() - 1),
            starts,
            rows: 0,
            skipped: false,
        })
    }

    /// The cells of a row: each from its column's start to the next column's.
    fn cells<'a>(&self, line: &'a str) -> Vec<&'a str> {
        let by_position: Option<Vec<&str>> = (0..self.starts.len())
            .map(|i| {
                let start = self.starts[i].min(line.len());
                let end = self
                    .starts
                    .get(i + 1)
                    .map_or(line.len(), |&e| e.min(line.len()));
                line.get(if i == 0 { 0 } else { start }..end).map(str::trim)
            })
            .collect();
        by_position.unwrap_or_else(|| split_on_gaps(line))
    }

    /// A `Metric Name | Metric Unit | ...` header row names the value column; a header
    /// row without a `Metric Value` (or a summary's `Average`) is not a metric table.
    fn read_header(&mut self, cells: &[&str]) {
        let find = |label: &str| cells.iter().position(|c| *c == label);
        if let Some(unit) = find("Metric Unit") {
            self.unit = unit;
        }
        match find("Average").or_else(|| find("Metric Value")) {
            Some(value) => self.value = value,
            None => self.skipped = true,
        }
    }
}

/// Cells of a line whose columns lost their alignment: runs of two or more spaces part them.
fn split_on_gaps(line: &str) -> Vec<&str> {
    line.trim()
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && t.bytes().all(|b| b == b'-' || b == b' ') && t.contains("- -")
}

/// What reading the text gives, launch by launch.
struct TextReader<'a> {
    file: &'a str,
    wanted: HashSet<&'static str>,
    launches: Vec<Parsed>,
    section: String,
    table: Option<Table>,
    unknown_sections: BTreeSet<String>,
    /// Lines of program output and ncu messages outside any launch.
    skipped: u64,
}

impl TextReader<'_> {
    fn line(&mut self, number: u64, line: &str) {
        if let Some(h) = launch_header(line) {
            self.start_launch(number, h);
            return;
        }
        let Some(launch) = self.launches.last_mut() else {
            self.skipped += u64::from(!line.trim().is_empty());
            return;
        };
        let section = &self.section;
        if line.starts_with("==") {
            self.skipped += 1;
            return;
        }
        if let Some(section) = line.trim().strip_prefix("Section: ") {
            self.section = section.trim().to_string();
            self.table = None;
            return;
        }
        if let Some(rule) = NVIDIA_RULE.captures(line) {
            let text = &rule["text"];
            launch.nvidia_rules.push(NvidiaRule {
                name: section.clone(),
                kind: rule["kind"].to_string(),
                estimated_speedup: SPEEDUP
                    .captures(text)
                    .and_then(|c| c["pct"].replace(',', ".").parse().ok()),
            });
            self.table = None;
            return;
        }
        if is_separator(line) {
            self.table = match self.table.take() {
                // The separator under a header row, or the one that opens a table.
                Some(t) if t.rows == 0 => Some(t),
                Some(_) => None,
                None => Table::from_separator(line),
            };
            return;
        }
        if line.trim().is_empty() {
            self.table = None;
            return;
        }
        if self.table.is_some() {
            self.row(number, line);
        }
    }

    fn start_launch(&mut self, number: u64, h: LaunchHeader) {
        let id = self.launches.len() as u64;
        self.launches.push(Parsed {
            id,
            name: h.name,
            grid: h.grid,
            block: h.block,
            device: None,
            process: None,
            line: number,
            values: Vec::new(),
            pending: Vec::new(),
            nvidia_rules: Vec::new(),
            invocations: h.invocations,
        });
        self.section.clear();
        self.table = None;
    }

    fn row(&mut self, number: u64, line: &str) {
        let Some(table) = self.table.as_mut() else {
            return;
        };
        let cells = table.cells(line);
        if cells.first() == Some(&"Metric Name") {
            table.read_header(&cells);
            return;
        }
        if table.skipped {
            return;
        }
        table.rows += 1;
        let (unit, value) = if cells.len() == table.starts.len() {
            (cells[table.unit], cells[table.value])
        } else {
            // Cells split on gaps: name, value, or name, unit, value.
            match cells.as_slice() {
                [_, value] => ("", *value),
                [_, unit, value, ..] => (*unit, *value),
                _ => return,
            }
        };
        let Some(name) = cells.first() else {
            return;
        };
        let Some(key) = details::metric_key(
            &self.wanted,
            &self.section,
            name,
            &mut self.unknown_sections,
        ) else {
            return;
        };
        let column = line.find(value).map_or(0, |c| c as u64 + 1);
        let launch = self
            .launches
            .last_mut()
            .expect("a table is inside a launch");
        launch.pending.push(PendingCell {
            key: crate::metrics::SourceName::of(key),
            unit: unit.to_string(),
            text: without_digit_spaces(value),
            line: number,
            column,
        });
    }
}

/// "23 982 976" (a space as the thousands separator, as some locales print) as "23982976".
fn without_digit_spaces(value: &str) -> String {
    let numeric = value
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '\u{a0}' | '\u{202f}' | ',' | '.' | '-'));
    if numeric {
        value.replace([' ', '\u{a0}', '\u{202f}'], "")
    } else {
        value.to_string()
    }
}

/// Reads the text form from its first launch header (`first`, at line `first_line`) to the
/// end, handing each launch to `sink`. `skipped_before` counts the lines before it.
/// Returns the notes and the number of launch blocks.
pub(super) fn read(
    file: &str,
    (first_line, first): (u64, &str),
    skipped_before: u64,
    input: impl BufRead,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<(Vec<String>, u64)> {
    let mut reader = TextReader {
        file,
        wanted: wanted_keys(),
        launches: Vec::new(),
        section: String::new(),
        table: None,
        unknown_sections: BTreeSet::new(),
        skipped: skipped_before,
    };
    let fragment = launch_header(first).is_none();
    if fragment {
        reader.line(first_line, UNNAMED_FRAGMENT);
    }
    reader.line(first_line, first);
    let mut number = first_line;
    for line in input.split(b'\n') {
        let line = line.map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
        number += 1;
        let text = String::from_utf8_lossy(&line);
        reader.line(number, text.trim_end_matches('\r'));
    }
    let (mut notes, count) = finish(reader, sink)?;
    if fragment {
        notes.push(format!(
            "line {first_line} opens a section with no launch line above it: a fragment of \
             ncu's text output, read as one launch with no name, grid or block"
        ));
    }
    Ok((notes, count))
}

fn finish(
    reader: TextReader,
    sink: &mut dyn FnMut(Launch) -> Result<()>,
) -> Result<(Vec<String>, u64)> {
    let TextReader {
        file,
        launches,
        unknown_sections,
        skipped,
        ..
    } = reader;
    let style = decide_style(&launches);
    let mut notes = vec![format!(
        "read ncu's text output: {} launch block(s), values as printed (rounded to ncu's \
         display precision)",
        launches.len()
    )];
    notes.extend(style_note(style));
    let summary_launches: u64 = launches.iter().filter_map(|p| p.invocations).sum();
    if summary_launches > 0 {
        notes.push(super::row::summary_note(Some(summary_launches)));
    }
    notes.extend(unknown_sections_note(unknown_sections));
    if skipped > 0 {
        notes.push(format!(
            "skipped {skipped} line(s) of ncu messages and program output around the launches"
        ));
    }
    let mut count = 0;
    let mut warnings = Vec::new();
    for mut p in launches {
        convert_pending(file, &mut p, style)?;
        count += 1;
        sink(finish_launch(p, &mut warnings))?;
    }
    notes.extend(
        warnings
            .into_iter()
            .map(|w| format!("{}{w}", super::WARNING)),
    );
    Ok((notes, count))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_of_every_version() {
        let modern = launch_header(
            "  void fused<float, 256>(const T1 *, int, float) (3, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 7.5",
        )
        .unwrap();
        assert_eq!(
            modern.name,
            "void fused<float, 256>(const T1 *, int, float)"
        );
        assert_eq!(modern.grid, Some([3, 1, 1]));
        assert_eq!(modern.block, Some([256, 1, 1]));
        let dated = launch_header(
            "  row_sums(float const *,float*,unsigned long), 2020-Jul-28 06:48:36, Context 1, Stream 7",
        )
        .unwrap();
        assert_eq!(dated.name, "row_sums(float const *,float*,unsigned long)");
        assert_eq!((dated.grid, dated.block), (None, None));
        let summary = launch_header(
            "  k(const float *, float *, int) (32, 32, 1)x(32, 32, 1), Device 0, CC 11.0, Invocations 14",
        )
        .unwrap();
        assert_eq!(summary.invocations, Some(14));
        assert_eq!(launch_header("    Section: Occupancy"), None);
        assert_eq!(launch_header("[1803] native@127.0.0.1"), None);
        assert_eq!(
            launch_header("Context switches, Stream of consciousness"),
            None
        );
    }

    #[test]
    fn cells_follow_the_separator_above_them() {
        let t =
            Table::from_separator("    ----------------------- ----------- ------------").unwrap();
        assert_eq!(
            t.cells("    Waves Per SM                               73.14"),
            ["Waves Per SM", "", "73.14"]
        );
        assert_eq!(
            t.cells("    Duration                         us       606.56"),
            ["Duration", "us", "606.56"]
        );
    }

    #[test]
    fn spaces_between_digit_groups_go() {
        assert_eq!(without_digit_spaces("23 982 976"), "23982976");
        assert_eq!(without_digit_spaces("866,86"), "866,86");
        assert_eq!(
            without_digit_spaces("cudaFuncCachePreferNone"),
            "cudaFuncCachePreferNone"
        );
    }
}
