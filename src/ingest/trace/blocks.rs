//! The trace file: a block per process that used CUDA, under a first line naming it (its
//! pid, its rank, the records CUPTI dropped), each a CSV of its launches in launch order.

use crate::error::{Error, Result};

#[derive(Debug, serde::Deserialize)]
pub(super) struct Row {
    pub(super) correlation: u64,
    /// Every trace the tracer writes has it; optional so that hand-trimmed traces still read.
    #[serde(default)]
    pub(super) device: u64,
    pub(super) start_ns: u64,
    pub(super) end_ns: u64,
    pub(super) grid_x: u64,
    pub(super) grid_y: u64,
    pub(super) grid_z: u64,
    pub(super) block_x: u64,
    pub(super) block_y: u64,
    pub(super) block_z: u64,
    pub(super) registers_per_thread: u64,
    pub(super) shared_memory_bytes: u64,
    pub(super) name: String,
    /// Empty when the tracer could not tell (a CUPTI without the callback API, a CUDA
    /// graph's kernels); absent from traces of tracers before it.
    #[serde(default)]
    pub(super) launched_from: String,
    /// The name as compiled, before demangling: on a kernel's first row only (the reader
    /// carries it to the others); absent from traces of earlier tracers.
    #[serde(default)]
    pub(super) mangled: String,
    /// 1 where the launch ran with `--source`'s SASS counters (its kernel's first): its
    /// duration is not its own. Absent from traces of earlier tracers.
    #[serde(default)]
    pub(super) instrumented: u8,
}

/// The first line of every trace, with the version of its columns.
pub(super) const MAGIC: &str = "# gpulint launch trace 1,";

/// Each process's block of the trace, with the line number (from 1) of its first line.
pub(super) fn blocks(text: &str) -> Vec<(u64, &str)> {
    let mut starts: Vec<usize> = text.match_indices(MAGIC).map(|(at, _)| at).collect();
    starts.retain(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n');
    let mut ends = starts[1..].to_vec();
    ends.push(text.len());
    starts
        .iter()
        .zip(ends)
        .map(|(&start, end)| {
            let line = text[..start].matches('\n').count() as u64 + 1;
            (line, &text[start..end])
        })
        .collect()
}

/// One process's launches with their line in the file, in its launch order: the order of
/// its launch calls, and within one call (the kernels of a CUDA graph launch share it) the
/// order they ran in. The tracer writes them so.
pub(super) fn read_block(block: &str, first_line: u64, file: &str) -> Result<Vec<(u64, Row)>> {
    let mut reader = csv::ReaderBuilder::new()
        .comment(Some(b'#'))
        .from_reader(block.as_bytes());
    let headers = reader
        .headers()
        .map_err(|e| {
            Error::at(
                file,
                first_line + 1,
                None,
                format!("launch trace header: {e}"),
            )
        })?
        .clone();
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| {
            let line = e
                .position()
                .map_or(first_line, |p| first_line + p.line() - 1);
            Error::at(file, line, None, format!("launch trace row: {e}"))
        })?;
        let line = record
            .position()
            .map_or(first_line, |p| first_line + p.line() - 1);
        let row: Row = record
            .deserialize(Some(&headers))
            .map_err(|e| row_error(file, line, &headers, &record, &e))?;
        refuse_impossible(&row, file, line)?;
        rows.push((line, row));
    }
    rows.sort_by_key(|(_, r)| (r.correlation, r.start_ns));
    // The tracer writes a kernel's mangled name on its first row only.
    let mut mangled: rustc_hash::FxHashMap<String, String> = Default::default();
    for (_, r) in &mut rows {
        if r.mangled.is_empty() {
            if let Some(m) = mangled.get(&r.name) {
                r.mangled.clone_from(m);
            }
        } else {
            mangled.insert(r.name.clone(), r.mangled.clone());
        }
    }
    Ok(rows)
}

/// Refuses a row whose shape no CUDA launch has (a grid past `ingest::MOST_GRID_BLOCKS`, a
/// block of more than 1,024 threads a side, more registers or shared memory than any GPU
/// holds), naming the field: products of such values overflow, and a trace is read from a
/// file that anyone may have written.
fn refuse_impossible(row: &Row, file: &str, line: u64) -> Result<()> {
    const BLOCK: u64 = 1024;
    let [grid_x, grid_y, grid_z] = crate::ingest::MOST_GRID_BLOCKS;
    let fields = [
        ("grid_x", row.grid_x, grid_x),
        ("grid_y", row.grid_y, grid_y),
        ("grid_z", row.grid_z, grid_z),
        ("block_x", row.block_x, BLOCK),
        ("block_y", row.block_y, BLOCK),
        ("block_z", row.block_z, BLOCK),
        ("registers_per_thread", row.registers_per_thread, 1 << 16),
        ("shared_memory_bytes", row.shared_memory_bytes, 1 << 32),
    ];
    for (field, value, most) in fields {
        if value > most {
            return Err(Error::at(
                file,
                line,
                None,
                format!(
                    "launch trace field `{field}`: {value} is more than any CUDA launch has \
                     (at most {most})"
                ),
            ));
        }
    }
    Ok(())
}

/// The process a block's first line names (`# gpulint launch trace 1, process 4910, rank 1,
/// dropped records: 0`), and its rank where the tracer found one; pid 0 where the line
/// names none (a trace trimmed by hand).
pub(super) fn process_of(block: &str) -> crate::ingest::Process {
    let first = block.lines().next().unwrap_or_default();
    crate::ingest::Process {
        rank: number_field(first, "rank"),
        pid: number_field(first, "process").unwrap_or(0),
    }
}

/// The number a tracer's first line gives after `name` among its comma-separated fields
/// (`process 4910` in `# gpulint launch trace 1, process 4910, rank 1, ...`).
pub(crate) fn number_field(line: &str, name: &str) -> Option<u64> {
    line.split(", ").find_map(|part| {
        part.strip_prefix(name)?
            .strip_prefix(' ')?
            .parse::<u64>()
            .ok()
    })
}

/// A block that cannot stand for every launch of its process: one from which CUPTI
/// dropped records.
pub(super) fn refuse_partial(block: &str, first_line: u64, file: &str) -> Result<()> {
    let first = block.lines().next().unwrap_or_default();
    let dropped = first
        .rsplit_once("dropped records: ")
        .and_then(|(_, n)| n.trim().parse::<u64>().ok());
    if dropped != Some(0) {
        return Err(Error::at(
            file,
            first_line,
            None,
            format!("CUPTI dropped records, so launches are missing: {first:?}"),
        ));
    }
    Ok(())
}

/// Names the field a row could not be read at, its column and its text.
fn row_error(
    file: &str,
    line: u64,
    headers: &csv::StringRecord,
    record: &csv::StringRecord,
    e: &csv::Error,
) -> Error {
    let column = match e.kind() {
        csv::ErrorKind::Deserialize { err, .. } => err.field().map(|c| c as usize),
        _ => None,
    };
    let Some(column) = column else {
        return Error::at(file, line, None, format!("launch trace row: {e}"));
    };
    Error::at(
        file,
        line,
        Some(column as u64 + 1),
        format!(
            "field `{}` is {:?}, expected a whole number",
            headers.get(column).unwrap_or("?"),
            record.get(column).unwrap_or("")
        ),
    )
}
