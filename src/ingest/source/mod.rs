//! The source page (`ncu --import R --csv --page source --print-source cuda,sass -k K`):
//! per CUDA source line, the L2 sectors its global accesses fetched against the ideal, and
//! the warps' stall samples with the reason that took most of them. One block per profiled
//! launch of the kernel, in launch order. The lines each finding's counter names, and, in
//! [`declaration`], the `__shared__` array behind bank conflicts with its padded form; in
//! [`literals`], a line's double literals with the `f` suffix.

use crate::error::{Error, Result};

pub mod declaration;
pub mod literals;
pub mod traced;
pub use declaration::{
    column_of, column_of_text, dimensions, on_disk, padded_declaration, shared_declaration,
};
pub use literals::float_suffixed;

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
    /// Shared-memory bank-conflict replays on this line: over its SASS rows, the shared
    /// wavefronts over their ideal (a 32-way read replays 31 times; a float4 load's 2 to
    /// 4 wavefronts are its ideal); where a page lacks the ideal, the times warps executed
    /// each instruction by its "L1 Conflicts Shared N-Way" less one.
    pub shared_conflicts: f64,
    /// Warp-level shared-memory instructions executed on this line.
    pub shared_accesses: f64,
    /// Warp-level local-memory loads and stores executed on this line (its SASS rows
    /// whose address space is local).
    pub local_accesses: f64,
    /// Branches on this line where a warp's threads went different ways.
    pub divergent_branches: f64,
    /// Warp-level conversions between float and double executed on this line (its SASS
    /// rows `F2F.F64.F32` and `F2F.F32.F64`): where float math was promoted to double.
    pub double_conversions: f64,
    /// Warp-level global atomics and reductions executed on this line (its SASS rows
    /// `ATOMG`, `REDG`, and `ATOM`/`RED` on older GPUs): where atomics queue in the L2.
    pub global_atomics: f64,
}

impl SourceLine {
    /// Line `line` of `file`, reading `text`, with nothing counted on it yet.
    pub fn at(file: &str, line: u64, text: String) -> SourceLine {
        SourceLine {
            file: file.to_string(),
            line,
            text,
            excess_sectors: 0.0,
            sectors: 0.0,
            stall_samples: 0.0,
            top_stall: None,
            shared_conflicts: 0.0,
            shared_accesses: 0.0,
            local_accesses: 0.0,
            divergent_branches: 0.0,
            double_conversions: 0.0,
            global_atomics: 0.0,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SourceBlock {
    pub file: String,
    pub function: String,
    /// Source lines with global traffic, worst first.
    pub lines: Vec<SourceLine>,
}

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

/// The blocks of `kernel` among `blocks`, in page order: those under its full name where
/// the page has them (two instances of a template share a base name), spaces aside, else
/// those of its base name (a demangler that spells the signature otherwise).
pub fn blocks_of<'a>(blocks: &'a [SourceBlock], kernel: &str) -> Vec<&'a SourceBlock> {
    let base = crate::ingest::base_name(kernel);
    let of_base: Vec<&SourceBlock> = blocks
        .iter()
        .filter(|b| crate::ingest::base_name(&b.function) == base)
        .collect();
    let exact: Vec<&SourceBlock> = of_base
        .iter()
        .copied()
        .filter(|b| same_signature(&b.function, kernel))
        .collect();
    if exact.is_empty() { of_base } else { exact }
}

/// A line's text as a note quotes it, its first 60 characters after a space; nothing where
/// the text is unknown (the traced run's counts name a file not on this disk).
pub fn snippet(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    format!(" `{}`", text.chars().take(60).collect::<String>())
}

/// Whether two spellings of a kernel's full name are the same signature: ncu writes
/// `scale<4>(const float *, float, int)` where the launch tracer's demangler writes
/// `scale<4>(float const*, float, int)` (and another may leave out the `void`), and by its
/// base name alone the page's block of `scale<1>` would stand for `scale<4>`. Spaces and
/// `const` are left out of the comparison.
pub fn same_signature(a: &str, b: &str) -> bool {
    bare_signature(a) == bare_signature(b)
}

/// A signature without its return type, spaces or `const` words.
fn bare_signature(s: &str) -> String {
    let mut out = String::new();
    let mut word = String::new();
    let identifier = |c: char| c.is_alphanumeric() || c == '_';
    for c in crate::kernel::without_return_type(s).chars().chain([' ']) {
        if identifier(c) {
            word.push(c);
            continue;
        }
        if word != "const" {
            out.push_str(&word);
        }
        word.clear();
        if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

/// `blocks` with those of each kernel `newer` has a block of replaced by `newer`'s (the
/// same signature, however spelt: the traced run's blocks by ncu's pages).
pub fn replace_kernels(blocks: &mut Vec<SourceBlock>, newer: Vec<SourceBlock>) {
    blocks.retain(|b| {
        !newer
            .iter()
            .any(|n| same_signature(&n.function, &b.function))
    });
    blocks.extend(newer);
}

/// A path's last component, as notes name source files (`zoo.cu`).
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
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
pub fn toolkit_header(file: &str) -> bool {
    file.contains("/cuda") && (file.contains("/include/") || file.contains("/targets/"))
}

/// The lines of the user's own files that call an atomic function (`atomicAdd(`,
/// `atomicCAS(`): where atomics inlined from CUDA's headers were written.
pub fn atomic_calls(block: &SourceBlock) -> Vec<&SourceLine> {
    let call = regex::Regex::new(r"\batomic[A-Z]\w*(_block|_system)?\s*\(").expect("valid");
    let mut calls: Vec<&SourceLine> = (block.lines.iter())
        .filter(|l| !toolkit_header(&l.file) && call.is_match(&l.text))
        .collect();
    calls.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    calls
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
            let snippet = snippet(&l.text);
            let name = file_name(&l.file);
            let why = l.top_stall.as_ref().map_or(String::new(), |(r, _)| {
                format!(", mostly {}", stall_reason(r))
            });
            format!(
                "{name}:{} ({:.0}% of the stall samples{why}){snippet}",
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

/// A per-line counter that carries a finding's cause, and how a note names it.
#[derive(Debug, Clone, Copy)]
pub enum Counter {
    /// L2 sectors fetched beyond the ideal: coalescing and alignment.
    ExcessSectors,
    SharedConflicts,
    SharedAccesses,
    LocalAccesses,
    DivergentBranches,
    DoubleConversions,
    GlobalAtomics,
}

impl Counter {
    fn of(self, l: &SourceLine) -> f64 {
        match self {
            Counter::ExcessSectors => l.excess_sectors,
            Counter::SharedConflicts => l.shared_conflicts,
            Counter::SharedAccesses => l.shared_accesses,
            Counter::LocalAccesses => l.local_accesses,
            Counter::DivergentBranches => l.divergent_branches,
            Counter::DoubleConversions => l.double_conversions,
            Counter::GlobalAtomics => l.global_atomics,
        }
    }

    fn what(self) -> (&'static str, &'static str) {
        match self {
            Counter::ExcessSectors => ("worst source lines", "excess sectors"),
            Counter::SharedConflicts => ("lines with the bank conflicts", "conflicts"),
            Counter::SharedAccesses => (
                "the page counts no conflict on a line (its predicated instructions have no \
                 N-way); the lines with the most shared-memory accesses",
                "shared-memory accesses",
            ),
            Counter::LocalAccesses => ("lines with local-memory accesses", "local accesses"),
            Counter::DivergentBranches => ("branches that diverge", "divergent branches"),
            Counter::DoubleConversions => (
                "lines that convert between float and double",
                "float-double conversions",
            ),
            Counter::GlobalAtomics => ("lines with global atomics", "global atomics"),
        }
    }
}

/// "worst source lines: zoo.cu:26 (100% of excess sectors) `if (col < m) ...`", or "lines
/// with the bank conflicts: ...", for the lines that together hold most of the counter, and the line a finding belongs on: the
/// first of them in the user's own files. `None` when no line has any.
pub fn describe_counter(block: &SourceBlock, counter: Counter) -> Option<(String, &SourceLine)> {
    let total: f64 = block.lines.iter().map(|l| counter.of(l)).sum();
    if total <= 0.0 {
        return None;
    }
    let mut by_count: Vec<&SourceLine> =
        block.lines.iter().filter(|l| counter.of(l) > 0.0).collect();
    by_count.sort_by(|a, b| counter.of(b).total_cmp(&counter.of(a)));
    let (title, unit) = counter.what();
    let mut parts = Vec::new();
    let mut covered = 0.0;
    for l in by_count.iter().take(3) {
        if covered / total >= 0.9 {
            break;
        }
        covered += counter.of(l);
        let snippet = snippet(&l.text);
        let name = file_name(&l.file);
        parts.push(format!(
            "{name}:{} ({:.0}% of {unit}){snippet}",
            l.line,
            counter.of(l) / total * 100.0
        ));
    }
    let place = by_count
        .iter()
        .find(|l| !toolkit_header(&l.file))
        .unwrap_or(&by_count[0]);
    Some((format!("{title}: {}", parts.join("; ")), place))
}

#[cfg(test)]
mod tests {
    /// A note quotes a line's text when it is known, cut to 60 characters, and leaves out
    /// the quotes where it is not (a file not on this disk).
    #[test]
    fn a_snippet_quotes_known_text_only() {
        assert_eq!(snippet(""), "");
        assert_eq!(snippet("  x[i] = y;"), " `x[i] = y;`");
        assert_eq!(snippet(&"a".repeat(70)).len(), 60 + 3);
    }

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

    /// ncu and the launch tracer's demangler spell a signature differently: the same
    /// kernel either way, and a template's instances stay apart.
    #[test]
    fn signatures_compare_without_spaces_or_const() {
        assert!(same_signature(
            "void tile<4>(const float *, float *, int)",
            "tile<4>(float const*, float*, int)"
        ));
        assert!(!same_signature(
            "tile<4>(float const*, float*, int)",
            "tile<1>(float const*, float*, int)"
        ));
        assert!(!same_signature("constant_fill(int)", "ant_fill(int)"));
    }

    use super::*;

    fn block(function: &str) -> SourceBlock {
        SourceBlock {
            file: "template_phases.cu".into(),
            function: function.into(),
            lines: Vec::new(),
        }
    }

    /// Two instances of a template on the page, and a finding that names its kernel as the
    /// launch tracer spells it: its own instance's block, not the first of its base name
    /// (seen on the H200: template_phases' scale<4> took scale<1>'s block and named no
    /// line).
    #[test]
    fn a_template_instance_finds_its_block_however_the_signature_is_spaced() {
        let blocks = [
            block("void scale<1>(float *, float, int)"),
            block("void scale<4>(float *, float, int)"),
        ];
        let found = blocks_of(&blocks, "void scale<4>(float*, float, int)");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].function, "void scale<4>(float *, float, int)");
        assert_eq!(blocks_of(&blocks, "scale<4>(float*,float,int)").len(), 1);
        // A signature spelled otherwise still finds the kernel's blocks by base name.
        assert_eq!(blocks_of(&blocks, "scale<4>(float[], float, int)").len(), 2);
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
