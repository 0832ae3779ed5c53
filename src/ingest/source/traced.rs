//! The launch tracer's per-instruction counters (`gpulint run --source`): CUPTI's SASS
//! metrics on the first launch of each of the user's kernels, one row per instruction with
//! its source file and line (launch_tracer.cpp, `GPULINT_SASS_OUT`). They count what the
//! source page's columns count, instruction for instruction (lab/runs/2026-12-04-sass-lines.txt),
//! and read into the same blocks, one per kernel.
//!
//! CUPTI names an inlined instruction's innermost line only: wmma's loads sit on `mma.hpp`
//! lines, where ncu's page also counts them on the kernel's call. An instruction on a CUDA
//! header's line is also counted on the nearest user's line before it in the kernel's code,
//! the call's own arithmetic: matmul_variants' wmma loads land on its `load_matrix_sync`
//! line as they do on the page.

use std::collections::HashMap;

use super::{SourceBlock, SourceLine, toolkit_header};
use crate::error::{Error, Result};

/// The tracer's counters, by CUPTI's names, in the order [`add_counts`] takes them:
/// instructions, global sectors and their ideal, shared wavefronts and their ideal, shared
/// instructions, local loads and stores, divergent branches, global atomics and reductions.
/// A chip without one leaves its column out.
const COUNTERS: [&str; 11] = [
    "smsp__sass_inst_executed",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_shared",
    "smsp__sass_inst_executed_op_local_ld",
    "smsp__sass_inst_executed_op_local_st",
    "smsp__sass_branch_targets_threads_divergent",
    "smsp__sass_inst_executed_op_global_atom",
    "smsp__sass_inst_executed_op_global_red",
];

/// One instruction's row.
struct Instruction {
    pc: u64,
    file: String,
    line: u64,
    counts: [f64; COUNTERS.len()],
}

/// Reads the tracer's rows into one block per kernel, named as `names` (mangled to the
/// trace's name) names it, its lines' text read from the source files where they are on
/// disk. `origin` names the rows in errors.
pub fn read(text: &str, origin: &str, names: &HashMap<String, String>) -> Result<Vec<SourceBlock>> {
    let mut reader = csv::ReaderBuilder::new().from_reader(text.as_bytes());
    let header = reader
        .headers()
        .map_err(|e| Error::at(origin, 1, None, format!("traced counters' header: {e}")))?
        .clone();
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(0), Some(1), Some(2), Some(3)) = (
        column("function"),
        column("pc"),
        column("file"),
        column("line"),
    ) else {
        return Err(Error::at(
            origin,
            1,
            None,
            "not the launch tracer's counters: the header should start function,pc,file,line",
        ));
    };
    let counters: Vec<Option<usize>> = COUNTERS.iter().map(|c| column(c)).collect();
    let mut kernels: Vec<(String, Vec<Instruction>)> = Vec::new();
    for (n, record) in reader.records().enumerate() {
        let row = n as u64 + 2;
        let record = record.map_err(|e| Error::at(origin, row, None, format!("{e}")))?;
        // Each process of the program writes its block under a header of its own.
        if record.get(0) == Some("function") {
            continue;
        }
        let whole = |i: usize| whole_field(&record, &header, i, origin, row);
        let mut counts = [0.0; COUNTERS.len()];
        for (k, i) in counters.iter().enumerate() {
            if let Some(i) = *i {
                counts[k] = whole(i)? as f64;
            }
        }
        let function = record.get(0).unwrap_or("").to_string();
        let instruction = Instruction {
            pc: whole(1)?,
            file: crate::printable::printable(record.get(2).unwrap_or("")).into(),
            line: whole(3)?,
            counts,
        };
        match kernels.iter_mut().find(|(f, _)| *f == function) {
            Some((_, rows)) => rows.push(instruction),
            None => kernels.push((function, vec![instruction])),
        }
    }
    let mut texts = SourceTexts::default();
    // A kernel none of whose lines is known (its module's cubin was not kept, or has no
    // line table) has no block: its lines are left to ncu.
    Ok(kernels
        .into_iter()
        .map(|(mangled, rows)| {
            let name = names.get(&mangled).cloned().unwrap_or(mangled);
            block(name, rows, &mut texts)
        })
        .filter(|b| !b.lines.is_empty())
        .collect())
}

/// Field `i` of row `row` of the tracer's rows `origin` as a whole number; otherwise an
/// error that names the row, the column and the header's name for it.
pub(super) fn whole_field(
    record: &csv::StringRecord,
    header: &csv::StringRecord,
    i: usize,
    origin: &str,
    row: u64,
) -> Result<u64> {
    let field = record.get(i).unwrap_or("");
    field.parse().map_err(|_| {
        Error::at(
            origin,
            row,
            Some(i as u64 + 1),
            format!(
                "field `{}` is {field:?}, expected a whole number",
                header.get(i).unwrap_or("?")
            ),
        )
    })
}

/// A kernel's block: its instructions summed per line, an inlined header's also on the
/// user's line before them, worst line by excess sectors first.
fn block(function: String, mut rows: Vec<Instruction>, texts: &mut SourceTexts) -> SourceBlock {
    rows.sort_by_key(|r| r.pc);
    let mut lines: Vec<SourceLine> = Vec::new();
    let mut add = |file: &str, line: u64, counts: &[f64; COUNTERS.len()]| {
        let at = match lines.iter().position(|l| l.file == file && l.line == line) {
            Some(at) => at,
            None => {
                lines.push(SourceLine::at(file, line, texts.line(file, line)));
                lines.len() - 1
            }
        };
        add_counts(&mut lines[at], counts);
    };
    let mut callers_line: Option<(String, u64)> = None;
    for r in rows.iter().filter(|r| r.line > 0 && !r.file.is_empty()) {
        add(&r.file, r.line, &r.counts);
        if !toolkit_header(&r.file) {
            callers_line = Some((r.file.clone(), r.line));
        } else if let Some((file, line)) = &callers_line {
            add(file, *line, &r.counts);
        }
    }
    lines.retain(|l| l.sectors > 0.0 || l.shared_accesses > 0.0 || has_counts(l));
    lines.sort_by(|a, b| b.excess_sectors.total_cmp(&a.excess_sectors));
    let file = main_file(&rows);
    SourceBlock {
        file,
        function,
        lines,
        stalls_over_run: false,
    }
}

/// The file most of a kernel's instructions come from, outside CUDA's headers.
fn main_file(rows: &[Instruction]) -> String {
    let mut counted: HashMap<&str, usize> = HashMap::new();
    for r in rows.iter().filter(|r| !toolkit_header(&r.file)) {
        *counted.entry(r.file.as_str()).or_default() += 1;
    }
    (counted.into_iter())
        .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0)))
        .map_or_else(String::new, |(f, _)| f.to_string())
}

/// Adds one instruction's counts, in [`COUNTERS`]' order, to its line: the page's
/// excessive sectors are the sectors over the ideal, and its bank conflicts the shared
/// wavefronts over theirs.
fn add_counts(line: &mut SourceLine, c: &[f64; COUNTERS.len()]) {
    let [
        _,
        sectors,
        ideal,
        wavefronts,
        ideal_wavefronts,
        shared,
        ld,
        st,
        divergent,
        atom,
        red,
    ] = *c;
    line.sectors += sectors;
    line.excess_sectors += (sectors - ideal).max(0.0);
    line.shared_conflicts += (wavefronts - ideal_wavefronts).max(0.0);
    line.shared_accesses += shared;
    line.local_accesses += ld + st;
    line.divergent_branches += divergent;
    line.global_atomics += atom + red;
}

fn has_counts(l: &SourceLine) -> bool {
    l.local_accesses > 0.0 || l.divergent_branches > 0.0 || l.global_atomics > 0.0
}

/// Source files' lines, read once each, found as the declarations' search finds them
/// ([`super::on_disk`]: a profile made in another checkout names its paths); a file not on
/// disk gives empty text.
#[derive(Default)]
pub(super) struct SourceTexts(HashMap<String, Option<Vec<String>>>);

impl SourceTexts {
    pub(super) fn line(&mut self, file: &str, line: u64) -> String {
        let lines = self.0.entry(file.to_string()).or_insert_with(|| {
            let text = std::fs::read(super::on_disk(file)?).ok()?;
            let text = String::from_utf8_lossy(&text);
            Some(text.lines().map(|l| l.trim().to_string()).collect())
        });
        (lines.as_ref())
            .and_then(|l| l.get(line.checked_sub(1)? as usize))
            .map(|t| crate::printable::printable(t).into())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "function,pc,file,line,smsp__sass_inst_executed,\
        smsp__sass_sectors_mem_global,smsp__sass_sectors_mem_global_ideal";

    fn names() -> HashMap<String, String> {
        [(
            "_Z4tilePKfPfi".to_string(),
            "tile(float const*, float*, int)".to_string(),
        )]
        .into_iter()
        .collect()
    }

    /// A load inlined from a CUDA header counts on its own line and on the user's line
    /// before it (the call); a line with no memory traffic is left out.
    #[test]
    fn a_header_line_also_counts_on_the_call_before_it() {
        let text = format!(
            "{HEADER}\n\
             \"_Z4tilePKfPfi\",0,\"/src/k.cu\",10,8,0,0\n\
             \"_Z4tilePKfPfi\",16,\"/usr/local/cuda/include/crt/mma.hpp\",91,8,64,32\n\
             \"_Z4tilePKfPfi\",32,\"/src/k.cu\",11,8,4,4\n\
             \"_Z4tilePKfPfi\",48,\"/src/k.cu\",12,8,0,0\n"
        );
        let blocks = read(&text, "rows", &names()).unwrap();
        assert_eq!(blocks.len(), 1);
        let b = &blocks[0];
        assert_eq!(b.function, "tile(float const*, float*, int)");
        assert_eq!(b.file, "/src/k.cu");
        let seen: Vec<(&str, u64, f64, f64)> = (b.lines.iter())
            .map(|l| (l.file.as_str(), l.line, l.excess_sectors, l.sectors))
            .collect();
        assert_eq!(
            seen,
            [
                ("/src/k.cu", 10, 32.0, 64.0),
                ("/usr/local/cuda/include/crt/mma.hpp", 91, 32.0, 64.0),
                ("/src/k.cu", 11, 0.0, 4.0),
            ]
        );
    }

    /// The reader and the tracer (launch_tracer.cpp's kMetrics) name the same counters, in
    /// the same order.
    #[test]
    fn the_tracer_collects_the_counters_read() {
        let source = crate::profile::ncu::tracer::SOURCE.as_str();
        let list = source
            .split("constexpr const char* kMetrics[] = {")
            .nth(1)
            .and_then(|rest| rest.split("};").next())
            .expect("the tracer's list of counters");
        let collected: Vec<&str> = (list.split('"').skip(1).step_by(2)).collect();
        assert_eq!(collected, COUNTERS);
    }

    /// Two processes' blocks, each under its header, read as one.
    #[test]
    fn each_process_block_reads() {
        let row = |kernel: &str| format!("\"{kernel}\",0,\"/src/k.cu\",3,1,32,4\n");
        let text = format!(
            "{HEADER}\n{}{HEADER}\n{}",
            row("_Z4tilePKfPfi"),
            row("_Z5otherv")
        );
        let blocks = read(&text, "rows", &names()).unwrap();
        assert_eq!(blocks.len(), 2);
    }

    /// A line's text comes from its file as this checkout has it, though the rows name the
    /// path of the machine that ran the program.
    #[test]
    fn text_comes_from_the_file_in_this_checkout() {
        let text = format!(
            "{HEADER}\n\"_Z5otherv\",0,\"/elsewhere/repo/src/ingest/source/traced.rs\",1,1,32,4\n"
        );
        let blocks = read(&text, "rows", &names()).unwrap();
        assert!(
            blocks[0].lines[0]
                .text
                .starts_with("//! The launch tracer's"),
            "{:?}",
            blocks[0].lines[0]
        );
    }

    /// A kernel the trace does not name keeps its mangled name; a field that is not a
    /// whole number is an error that says where.
    #[test]
    fn names_and_errors() {
        let text = format!("{HEADER}\n\"_Z5otherv\",0,\"/src/k.cu\",3,1,32,4\n");
        let blocks = read(&text, "rows", &names()).unwrap();
        assert_eq!(blocks[0].function, "_Z5otherv");
        assert_eq!(blocks[0].lines[0].excess_sectors, 28.0);
        let bad = format!("{HEADER}\n\"_Z5otherv\",0,\"/src/k.cu\",x,1,32,4\n");
        let e = read(&bad, "rows", &names()).unwrap_err().to_string();
        assert!(e.contains("rows:2:4") && e.contains("`line`"), "{e}");
        let e = read("kernel,pc\n", "rows", &names())
            .unwrap_err()
            .to_string();
        assert!(e.contains("function,pc,file,line"), "{e}");
        let unplaced = format!("{HEADER}\n\"_Z5otherv\",0,\"\",0,1,32,4\n");
        assert!(read(&unplaced, "rows", &names()).unwrap().is_empty());
    }
}
