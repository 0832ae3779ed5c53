//! The source lines behind findings: from the source page's per-line counters (or the
//! launch tracer's), the line each finding of a rule that asks for one belongs on, with
//! the note that names it and, where the fix is one edit, the edit.

use crate::ingest::{self, Profile};
use crate::rules::engine::Finding;
use crate::rules::{self, Rule};

/// Names the source lines behind the findings of rules that ask for them, from the source
/// page's per-line counter that carries the rule's cause ([`rules::LineCause`]): the worst
/// lines by excess sectors, the lines the warps wait on most, the lines with the bank
/// conflicts (and the tile's declaration, with its padding as an edit), the local-memory
/// accesses, or the divergent branches.
pub(super) fn attach_source_lines(profiles: &[Profile], rules: &[Rule], findings: &mut [Finding]) {
    let rule = |slug: &str| rules.iter().find(|r| r.slug == slug);
    for p in profiles.iter().filter(|p| !p.source_blocks.is_empty()) {
        for f in findings.iter_mut().filter(|f| f.file == p.file) {
            let Some(cause) = rule(&f.rule).and_then(|r| r.source_lines) else {
                continue;
            };
            let Some(block) = block_of(p, f) else {
                continue;
            };
            let line = lines_behind(block, cause, f);
            if let Some(l) = line {
                f.source = Some(rules::engine::SourceLocation {
                    file: l.file.clone(),
                    line: l.line,
                });
            }
        }
    }
}

/// The source page's block for a finding's launch: the page's blocks follow each kernel's
/// profiled launches in order, and a kernel with one block (the source pass profiles one
/// launch of it) has it stand for all of them.
fn block_of<'a>(p: &'a Profile, f: &Finding) -> Option<&'a ingest::source::SourceBlock> {
    let blocks = ingest::source::blocks_of(&p.source_blocks, &f.kernel);
    match blocks.len() {
        1 => Some(blocks[0]),
        _ => blocks.get(f.nth_of_kernel).copied(),
    }
}

/// Adds the note that names the lines behind `f` and returns the line it belongs on.
fn lines_behind<'a>(
    block: &'a ingest::source::SourceBlock,
    cause: rules::LineCause,
    f: &mut Finding,
) -> Option<&'a ingest::source::SourceLine> {
    use ingest::source::{self, Counter};
    use rules::LineCause;
    let counted = |counter, notes: &mut Vec<String>| {
        source::describe_counter(block, counter).map(|(text, place)| {
            notes.push(text);
            place
        })
    };
    match cause {
        // On the worst line in the user's own files: an inlined toolkit header's line
        // (wmma's load in mma.hpp) is not one to change.
        LineCause::ExcessSectors => counted(Counter::ExcessSectors, &mut f.notes),
        LineCause::SplitElements => {
            let line = counted(Counter::ExcessSectors, &mut f.notes)?;
            aligned_type(block, line, f);
            Some(line)
        }
        LineCause::StallSamples => source::describe_stalls(block).map(|(text, top)| {
            f.notes.push(text);
            top
        }),
        LineCause::SharedConflicts => {
            let line = counted(Counter::SharedConflicts, &mut f.notes)
                .or_else(|| counted(Counter::SharedAccesses, &mut f.notes))?;
            padded_array(block, line, f);
            Some(line)
        }
        LineCause::LocalAccesses => counted(Counter::LocalAccesses, &mut f.notes),
        LineCause::DivergentBranches => counted(Counter::DivergentBranches, &mut f.notes),
        LineCause::GlobalAtomics => {
            let line = counted(Counter::GlobalAtomics, &mut f.notes)?;
            Some(atomic_call_site(block, line, f))
        }
        LineCause::DoubleConversions => {
            let line = counted(Counter::DoubleConversions, &mut f.notes)?;
            f.edit = float_literals_edit(line);
            Some(line)
        }
    }
}

/// The `__shared__` array a bank-conflicted `line` indexes, as a note, and for a 2D tile its
/// padded declaration as the suggested edit.
fn padded_array(
    block: &ingest::source::SourceBlock,
    line: &ingest::source::SourceLine,
    f: &mut Finding,
) {
    use ingest::source;
    let Some(decl) = source::shared_declaration(block, line) else {
        return;
    };
    let name = source::file_name(&decl.file);
    f.notes
        .push(format!("the array: {name}:{} `{}`", decl.line, decl.text));
    f.edit = source::padded_declaration(&decl)
        .map(|after| edit_on_line(&decl.file, decl.line, &decl.text, after));
    if source::dimensions(&decl).is_some_and(|d| d.len() == 1) {
        f.notes.push(format!(
            "`{}` has one dimension: its conflicts come from the index, not the \
             shape; index it so that a warp's lanes read consecutive words \
             (sequential addressing, `a[tid] += a[tid + s]`), or swizzle the index",
            decl.name
        ));
    }
}

/// The declaration of the struct a split-load finding's `line` splits, as a note, and the
/// type `__align__`ed to the width of one load of its element (its evidence's
/// `load_element_bytes`) as the suggested edit.
fn aligned_type(
    block: &ingest::source::SourceBlock,
    line: &ingest::source::SourceLine,
    f: &mut Finding,
) {
    use ingest::source::{self, element_type};
    let Some(&element) = f.evidence.get("load_element_bytes") else {
        return;
    };
    let bytes = crate::metrics::wide_load_bytes(element);
    let types = element_type::named_types(&f.kernel);
    let Some(decl) = element_type::unaligned_declaration(block, line, &types) else {
        return;
    };
    let name = source::file_name(&decl.file);
    f.notes
        .push(format!("the type: {name}:{} `{}`", decl.line, decl.text));
    f.edit = element_type::aligned_declaration(&decl, bytes)
        .map(|after| edit_on_line(&decl.file, decl.line, &decl.text, after));
}

/// Where global atomics belong: their `line`, unless the page put them on the line of
/// CUDA's atomic functions header they are inlined from; then the kernel's own atomic call
/// when it has one, with every call named in a note.
fn atomic_call_site<'a>(
    block: &'a ingest::source::SourceBlock,
    line: &'a ingest::source::SourceLine,
    f: &mut Finding,
) -> &'a ingest::source::SourceLine {
    use ingest::source;
    if !source::toolkit_header(&line.file) {
        return line;
    }
    let calls = source::atomic_calls(block);
    if !calls.is_empty() {
        let listed: Vec<String> = (calls.iter().take(4))
            .map(|l| format!("{}:{} `{}`", source::file_name(&l.file), l.line, l.text))
            .collect();
        f.notes
            .push(format!("the kernel's atomic calls: {}", listed.join("; ")));
    }
    if calls.len() == 1 { calls[0] } else { line }
}

/// The line's double literals with the `f` suffix, as a suggested edit; never on a toolkit
/// header's line.
fn float_literals_edit(line: &ingest::source::SourceLine) -> Option<rules::engine::Edit> {
    use ingest::source;
    if source::toolkit_header(&line.file) {
        return None;
    }
    source::float_suffixed(&line.text)
        .map(|after| edit_on_line(&line.file, line.line, &line.text, after))
}

/// The suggested edit of `before` into `after` on `line` of `file`, at the column where
/// `before` starts in the file on disk, when it is there.
fn edit_on_line(file: &str, line: u64, before: &str, after: String) -> rules::engine::Edit {
    rules::engine::Edit {
        file: file.to_string(),
        line,
        column: ingest::source::column_of_text(file, line, before),
        before: before.to_string(),
        after,
    }
}
