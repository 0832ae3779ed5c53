//! The source page (`ncu --import R --csv --page source --print-source cuda,sass -k K`):
//! per CUDA source line, the L2 sectors its global accesses fetched against the ideal, and
//! the warps' stall samples with the reason that took most of them. One block per profiled
//! launch of the kernel, in launch order.

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
pub struct SourceLine {
    /// The file the line is in: a kernel's page lists its own file and those it inlined
    /// code from (a CUDA header's intrinsics).
    pub file: String,
    pub line: u64,
    pub text: String,
    pub excess_sectors: f64,
    pub sectors: f64,
    /// Warp stall samples on this line (0 when the page has no sampling).
    pub stall_samples: f64,
    /// The stall reason with the most of them, as the page names it (`long_sb`).
    pub top_stall: Option<(String, f64)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceBlock {
    pub file: String,
    pub function: String,
    /// Source lines with global traffic, worst first.
    pub lines: Vec<SourceLine>,
}

/// Where a `Line No` header row puts the columns read: the excess and total L2 sectors,
/// the source text, and the stall sampling.
struct Columns {
    excess: usize,
    sectors: usize,
    source: usize,
    stalls: (Option<usize>, Vec<(usize, String)>),
}

impl Columns {
    fn of(origin: &str, header: &csv::StringRecord) -> Result<Columns> {
        let find = |name: &str| header.iter().position(|c| c == name);
        match (
            find("L2 Theoretical Sectors Global Excessive"),
            find("L2 Theoretical Sectors Global"),
            find("Source"),
        ) {
            (Some(excess), Some(sectors), Some(source)) => Ok(Columns {
                excess,
                sectors,
                source,
                stalls: stall_columns(header),
            }),
            _ => Err(Error::in_file(
                origin,
                "source page lacks the L2 Theoretical Sectors Global columns; profile with --section SourceCounters",
            )),
        }
    }

    /// One source line's row, when its counters are numbers.
    fn line(&self, rec: &csv::StringRecord, file: &str, line: u64) -> Option<SourceLine> {
        let num = |i: usize| {
            rec.get(i)
                .and_then(|v| v.replace(',', "").parse::<f64>().ok())
        };
        let top_stall = self
            .stalls
            .1
            .iter()
            .filter_map(|(i, reason)| num(*i).map(|n| (reason.clone(), n)))
            .filter(|(_, n)| *n > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        Some(SourceLine {
            file: file.to_string(),
            line,
            text: crate::printable::printable(rec.get(self.source).unwrap_or("").trim()).into(),
            excess_sectors: num(self.excess)?,
            sectors: num(self.sectors)?,
            stall_samples: self.stalls.0.and_then(num).unwrap_or(0.0),
            top_stall,
        })
    }
}

/// Parses a source-page export: one block per launch.
pub fn parse(origin: &str, bytes: &[u8]) -> Result<Vec<SourceBlock>> {
    let text = String::from_utf8_lossy(bytes);
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut blocks: Vec<SourceBlock> = Vec::new();
    let (mut file, mut function) = (String::new(), String::new());
    let mut cols: Option<Columns> = None;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| Error::in_file(origin, format!("malformed source page: {e}")))?;
        match rec.get(0).unwrap_or("") {
            // Paths and names are printed in reports: made printable as a profile's are.
            "File Path" => file = crate::printable::printable(rec.get(1).unwrap_or("")).into(),
            "Function Name" => {
                function = crate::printable::printable(rec.get(1).unwrap_or("")).into();
            }
            "Line No" => {
                cols = Some(Columns::of(origin, &rec)?);
                // One launch's page lists each file it has code from under the same
                // function name: those are one block; the same file again is the next launch.
                let same_launch = blocks.last().is_some_and(|b: &SourceBlock| {
                    b.function == function
                        && b.file != file
                        && b.lines.iter().all(|l| l.file != file)
                });
                if !same_launch {
                    blocks.push(SourceBlock {
                        file: file.clone(),
                        function: function.clone(),
                        lines: Vec::new(),
                    });
                }
            }
            first => {
                let (Some(cols), Some(block), Ok(line)) =
                    (&cols, blocks.last_mut(), first.parse::<u64>())
                else {
                    continue;
                };
                block.lines.extend(cols.line(&rec, &file, line));
            }
        }
    }
    if blocks.is_empty() {
        return Err(Error::in_file(
            origin,
            "not an ncu source page (no \"Line No\" header row)",
        ));
    }
    for b in &mut blocks {
        b.lines.sort_by(|a, b| {
            b.excess_sectors
                .partial_cmp(&a.excess_sectors)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    }
    Ok(blocks)
}

/// "zoo.cu:26 carries 100% of the excess sectors: `if (col < m) ...`", for the worst
/// lines that together hold most of the excess.
pub fn describe(block: &SourceBlock) -> Option<String> {
    let total: f64 = block.lines.iter().map(|l| l.excess_sectors).sum();
    if total <= 0.0 {
        return None;
    }
    let mut parts = Vec::new();
    let mut covered = 0.0;
    for l in block.lines.iter().take(3) {
        if l.excess_sectors <= 0.0 || covered / total >= 0.9 {
            break;
        }
        covered += l.excess_sectors;
        let snippet: String = l.text.chars().take(60).collect();
        let name = l.file.rsplit('/').next().unwrap_or(&l.file);
        parts.push(format!(
            "{name}:{} ({:.0}% of excess sectors) `{snippet}`",
            l.line,
            l.excess_sectors / total * 100.0
        ));
    }
    Some(format!("worst source lines: {}", parts.join("; ")))
}

/// The stall sampling columns of a `Line No` header row: the samples and each reason's
/// (`stall_long_sb`, not the "(Not Issued)" ones), when the page has them.
fn stall_columns(header: &csv::StringRecord) -> (Option<usize>, Vec<(usize, String)>) {
    let samples = header
        .iter()
        .position(|c| c == "Warp Stall Sampling (All Samples)");
    let reasons = header
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let reason = c.strip_prefix("stall_")?;
            (!reason.contains('(')).then(|| (i, reason.to_string()))
        })
        .collect();
    (samples, reasons)
}

/// What ncu's stall reason names mean, for a note.
fn stall_reason(reason: &str) -> &str {
    match reason {
        "long_sb" => "long scoreboard: waiting on global or local memory",
        "short_sb" => "short scoreboard: waiting on shared memory or special functions",
        "mio" => "MIO throttle: the shared-memory instruction queue is full",
        "lg" => "LG throttle: the global/local instruction queue is full",
        "barrier" => "barrier: waiting at __syncthreads",
        "wait" => "wait: fixed-latency dependencies",
        "math" => "math pipe throttle",
        "membar" => "memory barrier",
        "branch_resolving" => "branch resolving",
        "no_inst" => "no instruction",
        "not_selected" => "not selected: another warp issued",
        "selected" => "selected: issuing",
        "tex" => "texture throttle",
        other => other,
    }
}

/// A CUDA toolkit header (`.../cuda/.../include/sm_30_intrinsics.hpp`): where inlined
/// intrinsics are, not a line the user can change.
fn toolkit_header(file: &str) -> bool {
    file.contains("/cuda") && (file.contains("/include/") || file.contains("/targets/"))
}

/// The lines the warps' stall samples fall on, the most first, with each one's share and
/// top reason: "where the warps wait: zoo.cu:98 (41% of the stall samples, mostly long
/// scoreboard: ...)", and the line a finding belongs on: the most sampled one in the
/// user's own files (an intrinsic inlined from a toolkit header waits for the user's
/// load). `None` without sampling.
pub fn describe_stalls(block: &SourceBlock) -> Option<(String, &SourceLine)> {
    let total: f64 = block.lines.iter().map(|l| l.stall_samples).sum();
    if total <= 0.0 {
        return None;
    }
    let mut by_samples: Vec<&SourceLine> = block
        .lines
        .iter()
        .filter(|l| l.stall_samples > 0.0)
        .collect();
    by_samples.sort_by(|a, b| b.stall_samples.total_cmp(&a.stall_samples));
    // The lines that matter: up to three, none under 5% of the samples but the first.
    let parts: Vec<String> = by_samples
        .iter()
        .take(3)
        .enumerate()
        .take_while(|(i, l)| *i == 0 || l.stall_samples / total >= 0.05)
        .map(|(_, l)| {
            let snippet: String = l.text.chars().take(60).collect();
            let name = l.file.rsplit('/').next().unwrap_or(&l.file);
            let why = l.top_stall.as_ref().map_or(String::new(), |(r, _)| {
                format!(", mostly {}", stall_reason(r))
            });
            format!(
                "{name}:{} ({:.0}% of the stall samples{why}) `{snippet}`",
                l.line,
                l.stall_samples / total * 100.0
            )
        })
        .collect();
    let place = by_samples
        .iter()
        .find(|l| !toolkit_header(&l.file))
        .unwrap_or(&by_samples[0]);
    Some((format!("where the warps wait: {}", parts.join("; ")), place))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strided_copy_points_at_its_indexing_line() {
        let bytes = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-zoo/full_source_cuda_sass_strided.csv"
        ))
        .unwrap();
        let blocks = parse("strided.csv", &bytes).unwrap();
        assert_eq!(blocks.len(), 5, "one block per copy_strided launch");
        let worst = &blocks[2].lines[0];
        assert_eq!(worst.line, 26);
        assert_eq!(worst.excess_sectors, 117_440_512.0);
        let text = describe(&blocks[2]).unwrap();
        assert!(
            text.starts_with("worst source lines: zoo.cu:26 (100% of excess sectors)"),
            "{text}"
        );
    }
}
