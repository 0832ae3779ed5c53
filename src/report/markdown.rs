//! `--format markdown`: for `$GITHUB_STEP_SUMMARY` or a pull-request comment.

use std::fmt::Write;

use super::Report;
use crate::diff::{DiffReport, Verdict};

/// Pipes and newlines would break a table cell; `_`, `*`, `<` and the like would turn
/// `__launch_bounds__` or `tile[32][33]` into formatting.
fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\n' => out.push(' '),
            '|' | '_' | '*' | '[' | ']' | '<' | '>' | '`' | '#' | '~' | '\\' => {
                out.push('\\');
                out.push(ch);
            }
            _ => out.push(ch),
        }
    }
    out
}

/// Text inside a code span: no escapes apply there, but a backtick would end it and a
/// pipe would end a table cell.
fn code(s: &str) -> String {
    s.replace('`', "'").replace('|', "\\|").replace('\n', " ")
}

/// The mechanical fixes, each as a diff of its line.
fn suggested_edits(r: &Report, out: &mut String) {
    for f in r.findings {
        let Some(e) = &f.edit else { continue };
        let _ = writeln!(
            out,
            "\n**Suggested edit** for `{}` ({}), {}:{}:\n\n```diff\n- {}\n+ {}\n```",
            code(&super::short_name(&f.kernel)),
            f.rule,
            cell(&super::relative_to(&e.file, r.source_root.as_deref())),
            e.line,
            e.before,
            e.after
        );
    }
}

pub fn write(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::from("## gpulint\n\n");
    let not_judged = r
        .coverage
        .summary()
        .map(|s| format!("\n> **Not judged:** {}\n", cell(&s)))
        .unwrap_or_default();
    if r.findings.is_empty() {
        let _ = writeln!(out, "No findings in {} launch(es).", r.launch_total());
        out.push_str(&not_judged);
        return super::flush(&mut out, w);
    }
    out.push_str(
        "| severity | rule | kernel | launch | finding | fix |\n|---|---|---|---|---|---|\n",
    );
    for f in r.listed_findings() {
        let _ = writeln!(
            out,
            "| {} | `{}` {} | `{}` | {} | {} | {} |",
            f.severity.as_str(),
            f.code,
            f.rule,
            code(&super::finding_kernel(f)),
            super::concise::launch_list(f, r.kernel_launches(f)),
            cell(&f.message),
            cell(&f.fix)
        );
        super::flush(&mut out, w)?;
    }
    if let Some(left) = r.left_out_by_top() {
        let _ = writeln!(out, "\n_{}_", cell(&left));
    }
    if let Some(left) = super::left_out_text(r) {
        let _ = writeln!(out, "\n_{}_", cell(&left));
    }
    suggested_edits(r, &mut out);
    let count = |s: crate::rules::Severity| r.findings.iter().filter(|f| f.severity == s).count();
    let _ = writeln!(
        out,
        "\n{} launch(es) checked: {} error(s), {} warning(s), {} info",
        r.launch_total(),
        count(crate::rules::Severity::Error),
        count(crate::rules::Severity::Warning),
        count(crate::rules::Severity::Info)
    );
    out.push_str(&not_judged);
    super::flush(&mut out, w)
}

pub fn write_diff(d: &DiffReport, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::from("## gpulint diff\n\n");
    let t = crate::diff::tally(d);
    let _ = writeln!(
        out,
        "**{}**: {} regressed, {} improved, {} unchanged; {} new finding(s), {} fixed, {} not compared; {} new and {} vanished kernel(s); {}.\n",
        if d.failed() { "FAIL" } else { "PASS" },
        t.get("regressed").unwrap_or(&0),
        t.get("improved").unwrap_or(&0),
        t.get("unchanged").unwrap_or(&0),
        d.new_findings.len(),
        d.fixed_findings.len(),
        d.not_compared.len(),
        d.new_kernels.len(),
        d.vanished_kernels.len(),
        d.overlap.describe()
    );
    let changed: Vec<_> = d
        .rows
        .iter()
        .filter(|r| r.verdict != Verdict::Unchanged)
        .collect();
    if !changed.is_empty() {
        out.push_str("| kernel | metric | baseline | candidate | change | verdict |\n|---|---|---:|---:|---:|---|\n");
        for r in changed {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} |",
                code(&super::short_name(&r.kernel)),
                r.metric,
                super::sarif::fmt(r.baseline),
                super::sarif::fmt(r.candidate),
                r.change_pct.map_or("-".into(), |p| format!("{p:+.1}%")),
                match r.verdict {
                    Verdict::Regressed => "**regressed**",
                    v => v.as_str(),
                }
            );
        }
        out.push('\n');
    }
    for c in &d.caveats {
        let _ = writeln!(out, "> **Warning:** {}\n", cell(c));
    }
    for nf in &d.new_findings {
        let _ = writeln!(out, "- {}", cell(&nf.describe()));
    }
    for fixed in &d.fixed_findings {
        let _ = writeln!(out, "- {}", cell(&fixed.describe_fixed()));
    }
    for nc in &d.not_compared {
        let _ = writeln!(out, "- {}", cell(&nc.describe()));
    }
    for (_, line) in d.unmeasured_lines() {
        let _ = writeln!(out, "- {}", cell(&line));
    }
    for c in &d.config_changes {
        let _ = writeln!(
            out,
            "- `{}`: launch configuration changed from {} to {}",
            code(&super::short_name(&c.kernel)),
            c.from,
            c.to
        );
    }
    for k in &d.new_kernels {
        let _ = writeln!(out, "- new kernel `{}`", code(&super::short_name(k)));
    }
    for k in &d.vanished_kernels {
        let _ = writeln!(out, "- vanished kernel `{}`", code(&super::short_name(k)));
    }
    super::flush(&mut out, w)
}
