//! A kernel's source lines with their per-line counters, one block per profiled launch:
//! read from ncu's source page ([`page`]) or from the launch tracer's SASS counts
//! ([`traced`]), matched to a finding's kernel however its signature is spelt, and named in
//! its notes ([`notes`]); in [`declaration`], the `__shared__` array behind bank conflicts
//! with its padded form; in [`literals`], a line's double literals with the `f` suffix.

pub mod declaration;
pub mod element_type;
pub mod literals;
pub mod notes;
pub mod page;
pub mod sampled;
pub mod traced;
pub use declaration::{
    column_of_text, dimensions, on_disk, padded_declaration, shared_declaration,
};
pub use literals::float_suffixed;
pub use notes::{Counter, atomic_calls, describe_counter, describe_stalls};
pub use page::{COUNTED_COLUMNS, parse};

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
    /// The lines' stall samples are the traced run's, over all the kernel's launches, not
    /// those of the one launch a page shows.
    pub stalls_over_run: bool,
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

/// A CUDA toolkit header (`.../cuda/.../include/sm_30_intrinsics.hpp`): where inlined
/// intrinsics are, not a line the user can change.
pub fn toolkit_header(file: &str) -> bool {
    file.contains("/cuda") && (file.contains("/include/") || file.contains("/targets/"))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    fn block(function: &str) -> SourceBlock {
        SourceBlock {
            file: "template_phases.cu".into(),
            function: function.into(),
            lines: Vec::new(),
            stalls_over_run: false,
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
}
