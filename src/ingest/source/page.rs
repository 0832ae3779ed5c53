//! The source page ncu prints (`--page source --print-source cuda,sass`), read into one
//! block per profiled launch: each source line's counters, and, from the SASS rows under
//! it, its shared, local, atomic and conversion instructions.

use super::{SourceBlock, SourceLine};
use crate::error::{Error, Result};

/// The counted columns of the source page this reads, by ncu's labels: the source pass asks
/// ncu for these and their inputs only (`crate::profile::ncu::source_section`).
pub const EXCESS_SECTORS: &str = "L2 Theoretical Sectors Global Excessive";
pub const SECTORS: &str = "L2 Theoretical Sectors Global";
pub const CONFLICTS: &str = "L1 Conflicts Shared N-Way";
pub const WAVEFRONTS: &str = "L1 Wavefronts Shared";
pub const IDEAL_WAVEFRONTS: &str = "L1 Wavefronts Shared Ideal";
pub const DIVERGENT: &str = "Divergent Branches";
pub const ADDRESS_SPACE: &str = "Address Space";
pub const EXECUTED: &str = "Instructions Executed";
pub const COUNTED_COLUMNS: [&str; 6] = [
    EXCESS_SECTORS,
    SECTORS,
    CONFLICTS,
    DIVERGENT,
    ADDRESS_SPACE,
    EXECUTED,
];
/// The sampled column of all stall samples (its reasons' columns are `stall_*`).
const STALL_SAMPLES: &str = "Warp Stall Sampling (All Samples)";

/// Where a `Line No` header row puts the columns read: the excess and total L2 sectors,
/// the source text, and the stall sampling.
struct Columns {
    excess: usize,
    sectors: usize,
    source: usize,
    stalls: (Option<usize>, Vec<(usize, String)>),
    conflicts: Option<usize>,
    /// On SASS rows: shared wavefronts and their ideal, whose difference is the conflicts'
    /// replays (a 128-bit load's 4 wavefronts are its ideal, not conflicts).
    wavefronts: Option<(usize, usize)>,
    divergent: Option<usize>,
    /// On SASS rows: the instruction's address space and how often warps executed it.
    address_space: Option<usize>,
    executed: Option<usize>,
    /// On SASS rows: the instruction (the page's second `Source` column).
    instruction: Option<usize>,
}

impl Columns {
    fn of(origin: &str, header: &csv::StringRecord) -> Result<Columns> {
        let find = |name: &str| header.iter().position(|c| c == name);
        match (find(EXCESS_SECTORS), find(SECTORS), find("Source")) {
            (Some(excess), Some(sectors), Some(source)) => Ok(Columns {
                excess,
                sectors,
                source,
                stalls: stall_columns(header),
                conflicts: find(CONFLICTS),
                wavefronts: find(WAVEFRONTS).zip(find(IDEAL_WAVEFRONTS)),
                divergent: find(DIVERGENT),
                address_space: find(ADDRESS_SPACE),
                executed: find(EXECUTED),
                instruction: (header.iter().enumerate())
                    .filter(|(_, c)| *c == "Source")
                    .nth(1)
                    .map(|(i, _)| i),
            }),
            _ => Err(Error::in_file(
                origin,
                "source page lacks the L2 Theoretical Sectors Global columns; profile with --section SourceCounters",
            )),
        }
    }

    /// One source line's row; a counter that is not a number (a line without code shows
    /// `-`) counts 0.
    fn line(&self, rec: &csv::StringRecord, file: &str, line: u64) -> SourceLine {
        let num = |i: usize| number(rec, i);
        let count = |i: Option<usize>| i.and_then(num).unwrap_or(0.0);
        let top_stall = self
            .stalls
            .1
            .iter()
            .filter_map(|(i, reason)| num(*i).map(|n| (reason.clone(), n)))
            .filter(|(_, n)| *n > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let text = crate::printable::printable(rec.get(self.source).unwrap_or("").trim());
        SourceLine {
            excess_sectors: count(Some(self.excess)),
            sectors: count(Some(self.sectors)),
            stall_samples: count(self.stalls.0),
            top_stall,
            divergent_branches: count(self.divergent),
            ..SourceLine::at(file, line, text.into())
        }
    }

    /// Adds a SASS row's memory instructions to the source line it was compiled from:
    /// how often warps executed it, by its address space, and its bank-conflict replays.
    fn add_instruction(&self, rec: &csv::StringRecord, line: &mut SourceLine) {
        let space = self
            .address_space
            .and_then(|i| rec.get(i))
            .unwrap_or("")
            .trim();
        let executed = self.executed.and_then(|i| number(rec, i)).unwrap_or(0.0);
        let instruction = self.instruction.and_then(|i| rec.get(i)).unwrap_or("");
        if converts_float_and_double(instruction) {
            line.double_conversions += executed;
        }
        if global_atomic(instruction) {
            line.global_atomics += executed;
        }
        if space.eq_ignore_ascii_case("local") {
            line.local_accesses += executed;
        } else if space.eq_ignore_ascii_case("shared") {
            line.shared_accesses += executed;
            let excess = self
                .wavefronts
                .and_then(|(w, ideal)| Some(number(rec, w)? - number(rec, ideal)?));
            let ways = self.conflicts.and_then(|i| number(rec, i)).unwrap_or(0.0);
            line.shared_conflicts += excess.unwrap_or((ways - 1.0) * executed).max(0.0);
        }
    }
}

/// A SASS instruction's opcode, past its predicate (`@P0 F2F.F64.F32 R2, R3`).
fn opcode(instruction: &str) -> &str {
    (instruction.split_whitespace())
        .find(|w| !w.starts_with('@'))
        .unwrap_or("")
}

/// Whether a SASS instruction converts between float and double.
fn converts_float_and_double(instruction: &str) -> bool {
    let op = opcode(instruction);
    op.starts_with("F2F.F64.F32") || op.starts_with("F2F.F32.F64")
}

/// Whether a SASS instruction is a global atomic or reduction (`ATOMG`, `REDG`; `ATOM`
/// and `RED` before Hopper; not `ATOMS`, shared memory's).
fn global_atomic(instruction: &str) -> bool {
    let name = opcode(instruction).split('.').next().unwrap_or("");
    matches!(name, "ATOMG" | "REDG" | "ATOM" | "RED")
}

fn number(rec: &csv::StringRecord, i: usize) -> Option<f64> {
    rec.get(i)
        .and_then(|v| v.replace(',', "").parse::<f64>().ok())
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
                        stalls_over_run: false,
                    });
                }
            }
            // A SASS row follows the source line it was compiled from.
            "" => {
                if let (Some(cols), Some(line)) =
                    (&cols, blocks.last_mut().and_then(|b| b.lines.last_mut()))
                {
                    cols.add_instruction(&rec, line);
                }
            }
            first => {
                let (Some(cols), Some(block), Ok(line)) =
                    (&cols, blocks.last_mut(), first.parse::<u64>())
                else {
                    continue;
                };
                block.lines.push(cols.line(&rec, &file, line));
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

/// The stall sampling columns of a `Line No` header row: the samples and each reason's
/// (`stall_long_sb`, not the "(Not Issued)" ones), when the page has them.
fn stall_columns(header: &csv::StringRecord) -> (Option<usize>, Vec<(usize, String)>) {
    let samples = header.iter().position(|c| c == STALL_SAMPLES);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::source::{Counter, describe_counter};

    /// matmul_variants' register-tiled matmul (fixtures/h200-source/source_matmul_regtile.csv):
    /// its float4 shared loads (:74, :75) take 2 and 4 wavefronts, their ideal, and ncu's
    /// N-way column says 2 and 4; the conflicts are the transposing store's (:67), 64
    /// wavefronts where 4 would do.
    #[test]
    fn conflicts_are_wavefronts_over_their_ideal_not_the_n_way() {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/h200-source/source_matmul_regtile.csv"
        ))
        .unwrap();
        let blocks = parse("page", &text).unwrap();
        let conflicts = |n: u64| {
            (blocks[0].lines.iter())
                .filter(|l| l.line == n)
                .map(|l| l.shared_conflicts)
                .sum::<f64>()
        };
        assert!(conflicts(67) > 0.0);
        assert_eq!((conflicts(74), conflicts(75)), (0.0, 0.0));
    }

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
        let (text, place) = describe_counter(&blocks[2], Counter::ExcessSectors).unwrap();
        assert_eq!(place.line, 26);
        assert!(
            text.starts_with("worst source lines: zoo.cu:26 (100% of excess sectors)"),
            "{text}"
        );
    }
}
