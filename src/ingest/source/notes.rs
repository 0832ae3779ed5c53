//! The notes a finding gets from its kernel's source lines: the lines that hold most of
//! the counter behind its cause, or the warps' stall samples, each with its share and
//! text, and the line the finding belongs on.

use super::{SourceBlock, SourceLine, file_name, toolkit_header};

/// A line's text as a note quotes it, at most 60 characters after a space (cut with an
/// ellipsis, so that `... += i` never reads as the whole of `+= in[i] * k;`); nothing
/// where the text is unknown (the traced run's counts name a file not on this disk).
pub fn snippet(text: &str) -> String {
    let text = text.trim();
    if text.is_empty() {
        return String::new();
    }
    format!(" `{}`", crate::printable::clip(text, 60))
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
/// scoreboard: ...)", over all the kernel's launches where the traced run sampled them
/// (the finding's numbers are one profiled launch's, whose lines may differ: BFS's first
/// launch waits elsewhere than its run), and the line a finding belongs on: the most
/// sampled one in the user's own files (an intrinsic inlined from a toolkit header waits
/// for the user's load). `None` without sampling.
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
    let over = if block.stalls_over_run {
        " over all its launches"
    } else {
        ""
    };
    Some((
        format!("where the warps wait{over}: {}", parts.join("; ")),
        place,
    ))
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
    use super::*;

    /// A note quotes a line's text when it is known, cut to 60 characters, and leaves out
    /// the quotes where it is not (a file not on this disk).
    #[test]
    fn a_snippet_quotes_known_text_only() {
        assert_eq!(snippet(""), "");
        assert_eq!(snippet("  x[i] = y;"), " `x[i] = y;`");
        // Cut to 60 characters, the last an ellipsis: never a cut that reads as whole code.
        let long = snippet(&"a".repeat(70));
        assert_eq!(long.chars().count(), 60 + 3);
        assert!(long.ends_with("a…`"), "{long}");
    }
}
