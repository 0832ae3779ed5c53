//! The source page (`ncu --import R --csv --page source --print-source cuda,sass -k K`):
//! per CUDA source line, the L2 sectors its global accesses fetched against the ideal.
//! One block per profiled launch of the kernel, in launch order.

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq)]
pub struct SourceLine {
    pub line: u64,
    pub text: String,
    pub excess_sectors: f64,
    pub sectors: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceBlock {
    pub file: String,
    pub function: String,
    /// Source lines with global traffic, worst first.
    pub lines: Vec<SourceLine>,
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
    let mut cols: Option<(usize, usize, usize)> = None;
    for rec in rdr.records() {
        let rec = rec.map_err(|e| Error::in_file(origin, format!("malformed source page: {e}")))?;
        match rec.get(0).unwrap_or("") {
            // Paths and names are printed in reports: made printable as a profile's are.
            "File Path" => file = crate::printable::printable(rec.get(1).unwrap_or("")).into(),
            "Function Name" => {
                function = crate::printable::printable(rec.get(1).unwrap_or("")).into();
            }
            "Line No" => {
                let find = |name: &str| rec.iter().position(|c| c == name);
                cols = match (
                    find("L2 Theoretical Sectors Global Excessive"),
                    find("L2 Theoretical Sectors Global"),
                    find("Source"),
                ) {
                    (Some(e), Some(t), Some(s)) => Some((e, t, s)),
                    _ => {
                        return Err(Error::in_file(
                            origin,
                            "source page lacks the L2 Theoretical Sectors Global columns; profile with --section SourceCounters",
                        ));
                    }
                };
                blocks.push(SourceBlock {
                    file: file.clone(),
                    function: function.clone(),
                    lines: Vec::new(),
                });
            }
            first => {
                let (Some((e, t, s)), Some(block), Ok(line)) =
                    (cols, blocks.last_mut(), first.parse::<u64>())
                else {
                    continue;
                };
                let num = |i: usize| {
                    rec.get(i)
                        .and_then(|v| v.replace(',', "").parse::<f64>().ok())
                };
                if let (Some(excess), Some(sectors)) = (num(e), num(t)) {
                    block.lines.push(SourceLine {
                        line,
                        text: crate::printable::printable(rec.get(s).unwrap_or("").trim()).into(),
                        excess_sectors: excess,
                        sectors,
                    });
                }
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
    let name = block.file.rsplit('/').next().unwrap_or(&block.file);
    let mut parts = Vec::new();
    let mut covered = 0.0;
    for l in block.lines.iter().take(3) {
        if l.excess_sectors <= 0.0 || covered / total >= 0.9 {
            break;
        }
        covered += l.excess_sectors;
        let snippet: String = l.text.chars().take(60).collect();
        parts.push(format!(
            "{name}:{} ({:.0}% of excess sectors) `{snippet}`",
            l.line,
            l.excess_sectors / total * 100.0
        ));
    }
    Some(format!("worst source lines: {}", parts.join("; ")))
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
