//! `--format github`: workflow commands (`::warning file=...,line=...,title=...::message`),
//! escaped as GitHub's toolkit does: `%`, CR and LF in the message; also `:` and `,` in
//! properties, which C++ kernel names are full of.

use super::Report;
use crate::diff::DiffReport;
use crate::rules::Severity;

pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn command(kind: &str, file: &str, line: u64, title: &str, message: &str) -> String {
    // A run that kept no export has no file an annotation could sit on.
    if super::profiled_program(file).is_some() {
        return format!(
            "::{kind} title={}::{}\n",
            escape_property(title),
            escape_data(message)
        );
    }
    format!(
        "::{kind} file={},line={},title={}::{}\n",
        escape_property(file),
        line.max(1),
        escape_property(title),
        escape_data(message)
    )
}

pub fn write(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::new();
    for f in r.listed_findings() {
        let kind = match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let title = format!("{} {} in {}", f.code, f.rule, super::finding_kernel(f));
        let launches = super::concise::launch_list(f, r.kernel_launches(f));
        let message = format!("{}; {launches}\nhelp: {}", f.message, f.fix);
        let (file, line) = r.code_location(f);
        out.push_str(&command(kind, &file, line, &title, &message));
        super::flush(&mut out, w)?;
    }
    if let Some(left) = r.left_out_by_top() {
        out.push_str(&format!("::notice title=gpulint::{}\n", escape_data(&left)));
    }
    if let Some(left) = super::left_out_text(r) {
        out.push_str(&format!(
            "::notice title=gpulint: not every kernel was profiled::{}\n",
            escape_data(&left)
        ));
    }
    if let Some(summary) = r.coverage.summary() {
        out.push_str(&format!(
            "::notice title=gpulint: not every rule could judge::{}\n",
            escape_data(&summary)
        ));
    }
    super::flush(&mut out, w)
}

pub fn write_diff(
    d: &DiffReport,
    candidate_file: &str,
    lines: &dyn Fn(&str) -> Option<(String, u64)>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let loc = |kernel: &str| lines(kernel).unwrap_or_else(|| (candidate_file.to_string(), 1));
    let mut out = String::new();
    for row in d.regressions() {
        let (file, line) = loc(&row.kernel);
        let title = format!("gpulint GL900 regression: {}", row.metric);
        let msg = row.describe();
        out.push_str(&command("error", &file, line, &title, &msg));
    }
    for nf in &d.new_findings {
        let (file, line) = loc(&nf.kernel);
        let title = format!("gpulint new finding: {}", nf.rule);
        out.push_str(&command("error", &file, line, &title, &nf.describe()));
    }
    for (kernel, line) in d.unmeasured_lines() {
        let (file, at) = loc(kernel);
        out.push_str(&command(
            "error",
            &file,
            at,
            "gpulint: gated metrics not measured",
            &line,
        ));
    }
    for c in &d.caveats {
        out.push_str(&format!("::warning title=gpulint::{}\n", escape_data(c)));
    }
    if !d.not_compared.is_empty() {
        let lines: Vec<String> = d.not_compared.iter().map(|n| n.describe()).collect();
        out.push_str(&format!(
            "::notice title=gpulint: {} baseline finding(s) not compared::{}\n",
            d.not_compared.len(),
            escape_data(&lines.join("\n"))
        ));
    }
    // With --strict, kernels that appear or vanish fail the gate: say so where it fails.
    for (what, k) in d.strict_kernel_changes() {
        out.push_str(&command(
            "error",
            candidate_file,
            1,
            &format!("{what}: {}", super::short_name(k)),
            &format!("{what} {k}; the gate fails on it with --strict"),
        ));
    }
    super::flush(&mut out, w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolkit_escaping() {
        assert_eq!(escape_data("50% used\nnext"), "50%25 used%0Anext");
        assert_eq!(
            escape_property("k(const float *, int): x"),
            "k(const float *%2C int)%3A x"
        );
    }
}
