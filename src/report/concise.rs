//! `--format concise`: one line per finding, `file:line: severity[CODE] slug: ...`.

use std::fmt::Write;

use super::{Report, short_name};

pub fn write(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::new();
    for f in r.listed_findings() {
        let launches = launch_list(f, r.kernel_launches(f));
        let _ = writeln!(
            out,
            "{}: {}[{}] {} {} {}: {}",
            r.location(f),
            f.severity.as_str(),
            f.code,
            f.rule,
            super::finding_kernel(f),
            launches,
            f.message
        );
        super::flush(&mut out, w)?;
    }
    if let Some(left) = r.left_out_by_top() {
        let _ = writeln!(out, "note: {left}");
    }
    if let Some(left) = super::left_out_text(r) {
        let _ = writeln!(out, "note: {left}");
    }
    if let Some(summary) = r.coverage.summary() {
        let _ = writeln!(out, "note: {summary}");
    }
    super::flush(&mut out, w)
}

/// The diff, one line each: `file:line: error[GL900] ...` for what fails the gate, the
/// caveats, and `PASS` or `FAIL` with the reasons last.
pub fn write_diff(
    d: &crate::diff::DiffReport,
    rules: &[crate::rules::Rule],
    candidate_file: &str,
    lines: &dyn Fn(&str) -> Option<(String, u64)>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let loc = |kernel: &str| lines(kernel).unwrap_or_else(|| (candidate_file.to_string(), 1));
    let mut out = String::new();
    let mut line = |kernel: &str, code: &str, text: &str| {
        let (file, at) = loc(kernel);
        let file = crate::printable::printable(&file);
        let _ = writeln!(out, "{file}:{at}: error[{code}] {text}");
    };
    for r in d.regressions() {
        line(&r.kernel, "GL900", &r.describe());
    }
    for nf in &d.new_findings {
        let code = crate::rules::find(rules, &nf.rule).map_or(nf.rule.as_str(), |r| &r.code);
        line(&nf.kernel, code, &nf.describe());
    }
    for (kernel, text) in d.unmeasured_lines() {
        line(kernel, "GL900", &text);
    }
    for (what, k) in d.strict_kernel_changes() {
        line(k, "GL900", &format!("{what} {} (--strict)", short_name(k)));
    }
    for c in &d.caveats {
        let _ = writeln!(out, "warning: {c}");
    }
    for nc in &d.not_compared {
        let _ = writeln!(out, "note: {}", nc.describe());
    }
    let reasons = d.reasons();
    if reasons.is_empty() {
        let _ = writeln!(out, "PASS ({})", d.overlap.describe());
    } else {
        let _ = writeln!(
            out,
            "FAIL ({}): {}",
            d.overlap.describe(),
            reasons.join("; ")
        );
    }
    super::flush(&mut out, w)
}

pub fn join(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// "launch 3", "launches 3,7,9 (3x)", or with more than are listed, "launches 3,7,…
/// (10000x)"; "(33 of 120)" when the finding holds on only some of the kernel's launches.
pub fn launch_list(f: &crate::rules::engine::Finding, kernel_launches: Option<u64>) -> String {
    let count = match kernel_launches {
        Some(total) if total > f.launch_count => format!("{} of {total}", f.launch_count),
        _ => format!("{}x", f.launch_count),
    };
    // With every launch counted, the launches a finding stands for and those profiled differ.
    let count = match f.profiled_count.filter(|&p| p < f.launch_count) {
        Some(0) => format!("{count}, none profiled"),
        Some(p) => format!("{count}, {p} profiled"),
        None => count,
    };
    // The ranks of a job share one finding on a kernel they all launch.
    let count = match f.processes.len() {
        0 | 1 => count,
        n if f.processes.iter().all(|p| p.rank.is_some()) => format!("{count}, on {n} ranks"),
        n => format!("{count}, on {n} processes"),
    };
    if f.launches.is_empty() && f.launch_count > 1 {
        // One entry that stands for several launches (a timed sample, a summary export):
        // only its first launch number is known.
        format!("launches {},… ({count})", f.launch)
    } else if f.launches.is_empty() {
        match kernel_launches {
            Some(total) if total > 1 => format!("launch {} (1 of {total})", f.launch),
            _ => format!("launch {}", f.launch),
        }
    } else if f.launches.len() as u64 == f.launch_count {
        format!("launches {} ({count})", join(&f.launches))
    } else {
        format!("launches {},… ({count})", join(&f.launches))
    }
}
