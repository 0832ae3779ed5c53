//! The default report: one compiler-style block per finding, then one line per launch.

use std::fmt::Write;

use owo_colors::{OwoColorize, Style};

use super::concise::launch_list;
use super::{Report, dim3, micros, short_name};
use crate::rules::Severity;
use crate::rules::template::format_number;

fn paint(text: &str, style: Style, color: bool) -> String {
    if color {
        text.style(style).to_string()
    } else {
        text.to_string()
    }
}

fn severity_style(s: Severity) -> Style {
    match s {
        Severity::Error => Style::new().red().bold(),
        Severity::Warning => Style::new().yellow().bold(),
        Severity::Info => Style::new().cyan().bold(),
    }
}

fn origin_tag(r: &Report, kernel: &str) -> String {
    let o = r.origins.describe(kernel);
    if o.kind == crate::origin::Kind::User {
        String::new()
    } else {
        format!(" [{}]", o.name)
    }
}

/// Total GPU time and the kernels that take most of it, with what is at stake in each.
fn profile_summary(r: &Report, out: &mut String) {
    let mut kernels: Vec<(&str, f64, u64, Option<&crate::roofline::Roofline>)> = Vec::new();
    for (v, roof) in r.kernels {
        let (l, roof) = (&v.entry, roof.as_ref());
        let Some(d) = l.time_ns() else {
            continue;
        };
        if r.origins.describe(&l.name).kind == crate::origin::Kind::Helper {
            continue;
        }
        match kernels.iter_mut().find(|k| k.0 == l.name) {
            Some(k) => {
                k.1 += d;
                k.2 += l.count;
            }
            None => kernels.push((&l.name, d, l.count, roof)),
        }
    }
    let total = r.gpu_time_ns;
    if kernels.is_empty() || total <= 0.0 {
        return;
    }
    kernels.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    let launches: u64 = kernels.iter().map(|k| k.2).sum();
    let _ = writeln!(
        out,
        "{} {}{}",
        paint("profile:", Style::new().bold(), r.color),
        super::headline_counts(r, launches, kernels.len()),
        if r.helpers.is_empty() {
            ""
        } else {
            " (helpers left out)"
        }
    );
    sample_line(r, out);
    for (name, time, n, roof) in kernels.iter().take(5) {
        // The largest stake among the kernel's warnings, as each finding states it: a
        // launch-bound stake counts waiting and may exceed the kernel's own time.
        let stake: f64 = r
            .findings
            .iter()
            .filter(|f| f.is_on(name) && f.severity >= Severity::Warning)
            .filter_map(|f| f.time_at_stake_ns)
            .fold(0.0, f64::max);
        let bound = roof.map_or("-", |x| x.label());
        // A kernel with nothing at stake says nothing about stake.
        let stake = if stake > 0.0 {
            format!(", at stake {}", micros(stake))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "  {:>5.1}%  {:>12}  {}x  {}{}  {bound}{stake}",
            time / total * 100.0,
            micros(*time),
            n,
            short_name(name),
            origin_tag(r, name),
        );
    }
    if !r.helpers.is_empty() {
        let list: Vec<String> = r
            .helpers
            .iter()
            .map(|(k, n)| format!("{} ({n}x)", short_name(k)))
            .collect();
        let _ = writeln!(out, "  helper kernels, not linted: {}", list.join(", "));
    }
    out.push('\n');
}

/// A kernel's grid or block: its dim3 when it had one configuration, else the range of
/// its sizes ("1-32 blocks").
fn config_range(
    v: &crate::fold::KernelView,
    range: Option<[u64; 2]>,
    first: Option<[u64; 3]>,
    unit: &str,
) -> String {
    match range {
        Some([lo, hi]) if v.configurations > 1 && lo < hi => format!("{lo}-{hi} {unit}"),
        Some([n, _]) if v.configurations > 1 && unit == "blocks" => {
            format!("{n} {unit}, {} shapes", v.configurations)
        }
        _ => dim3(first),
    }
}

pub fn write(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::new();
    profile_summary(r, &mut out);
    super::flush(&mut out, w)?;
    // Info findings are worth knowing, not acting on first: one table row per rule and
    // reason unless --verbose, so that the warnings are what the page shows.
    let folded = |f: &&crate::rules::engine::Finding| !r.verbose && f.severity == Severity::Info;
    let listed: Vec<_> = r.findings.iter().filter(|f| !folded(f)).collect();
    let shown = r.top.unwrap_or(usize::MAX);
    for f in listed.iter().take(shown) {
        finding(r, f, &mut out);
        super::flush(&mut out, w)?;
    }
    if listed.len() > shown {
        let _ = writeln!(
            out,
            "... {} more finding(s) with less time at stake (--top {shown})\n",
            listed.len() - shown
        );
    }
    info_summary(r, r.findings.iter().filter(folded), &mut out);
    super::flush(&mut out, w)?;
    kernel_table(r, &mut out);
    super::flush(&mut out, w)?;
    roofline_lines(r, &mut out);
    closing(r, &mut out);
    super::flush(&mut out, w)
}

/// A finding's evidence, each with its range across the launches where it varied, wrapped
/// to [`EVIDENCE_WIDTH`] columns after "   = evidence: ".
fn evidence_lines(f: &crate::rules::engine::Finding) -> Vec<String> {
    let ev: Vec<String> = f
        .evidence
        .iter()
        .map(|(k, v)| match f.evidence_range.get(k) {
            Some([lo, hi]) => format!(
                "{k} {} ({} to {} across the {} launches)",
                format_number(*v, None),
                format_number(*lo, None),
                format_number(*hi, None),
                f.launch_count
            ),
            None => format!("{k} {}", format_number(*v, None)),
        })
        .collect();
    wrap_items(&ev, EVIDENCE_WIDTH - "   = evidence: ".len())
}

/// Evidence lines are wrapped to this many columns: a finding with a dozen pieces of
/// evidence ran to 320 characters on one line.
const EVIDENCE_WIDTH: usize = 100;

/// `items` joined by ", " into lines of at most `width` characters where they fit (an item
/// longer than that gets a line of its own); the separator ends each line but the last.
fn wrap_items(items: &[String], width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for item in items {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 2 + item.chars().count() <= width => {
                line.push_str(", ");
                line.push_str(item);
            }
            _ => lines.push(item.clone()),
        }
    }
    lines
}

/// `rows` laid out in columns two spaces apart, each as wide as its widest cell, right-
/// aligned where `right` says (numbers), the end of each line trimmed: the kernel table,
/// the diff's metric rows and the info summary.
fn columns<'a, const N: usize>(
    rows: impl Iterator<Item = &'a [String; N]> + Clone,
    right: &[bool; N],
) -> Vec<String> {
    let mut widths = [0usize; N];
    for row in rows.clone() {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    rows.map(|row| {
        let cells: Vec<String> = (row.iter().zip(widths).zip(right))
            .map(|((cell, w), &right)| {
                let pad = " ".repeat(w.saturating_sub(cell.chars().count()));
                if right {
                    format!("{pad}{cell}")
                } else {
                    format!("{cell}{pad}")
                }
            })
            .collect();
        cells.join("  ").trim_end().to_string()
    })
    .collect()
}

/// The folded info findings, as [`super::info_groups`] groups them: a row per rule and
/// reason, with the kernels, the time at stake in all and why it is info.
fn info_summary<'a>(
    r: &Report,
    folded: impl Iterator<Item = &'a crate::rules::engine::Finding>,
    out: &mut String,
) {
    let groups = super::info_groups(folded);
    if groups.is_empty() {
        return;
    }
    let n: usize = groups.iter().map(|g| g.findings).sum();
    let _ = writeln!(
        out,
        "{} {n} finding(s), worth knowing rather than acting on first (--verbose lists them whole):",
        paint("info:", severity_style(Severity::Info), r.color)
    );
    let rows: Vec<[String; 4]> = groups
        .iter()
        .map(|g| {
            [
                g.rule.to_string(),
                g.kernels_cell(),
                g.stake_ns.map_or("-".into(), micros),
                g.why.to_string(),
            ]
        })
        .collect();
    let header = ["rule", "kernels", "at stake", "why info"].map(String::from);
    // The time at stake is a number: right-aligned.
    let right = [false, false, true, false];
    for line in columns(std::iter::once(&header).chain(&rows), &right) {
        let _ = writeln!(out, "  {line}");
    }
    out.push('\n');
}

/// One finding as a compiler diagnostic: what, where, the evidence, the fix.
fn finding(r: &Report, f: &crate::rules::engine::Finding, out: &mut String) {
    let c = r.color;
    let head = format!("{}[{}]", f.severity.as_str(), f.code);
    let _ = writeln!(
        out,
        "{} {}: {}",
        paint(&head, severity_style(f.severity), c),
        paint(&f.rule, Style::new().bold(), c),
        f.message
    );
    let launches = launch_list(f, r.kernel_launches(f));
    let _ = writeln!(
        out,
        "  {} {}  {}{}  {}, {}",
        paint("-->", Style::new().blue().bold(), c),
        r.location(f),
        super::finding_kernel(f),
        origin_tag(r, &f.kernel),
        launches,
        super::configuration_text(f)
    );
    if let Some(t) = f.time_at_stake_ns.filter(|t| *t > 0.0) {
        let _ = writeln!(
            out,
            "   {} at stake: up to {}{}",
            paint("=", Style::new().blue().bold(), c),
            micros(t),
            super::shared_stake_text(f)
        );
    }
    if !f.evidence.is_empty() {
        let _ = writeln!(
            out,
            "   {} evidence: {}",
            paint("=", Style::new().blue().bold(), c),
            evidence_lines(f).join(&format!(",\n{}", " ".repeat("   = evidence: ".len())))
        );
    }
    for note in &f.notes {
        let _ = writeln!(
            out,
            "   {} note: {note}",
            paint("=", Style::new().blue().bold(), c)
        );
    }
    let _ = writeln!(
        out,
        "   {} {}: {}",
        paint("=", Style::new().blue().bold(), c),
        paint("help", Style::new().green().bold(), c),
        f.fix
    );
    if let Some(e) = &f.edit {
        let name = crate::ingest::source::file_name(&e.file);
        let _ = writeln!(
            out,
            "   {} {}: {name}:{}: `{}` -> `{}`",
            paint("=", Style::new().blue().bold(), c),
            paint("suggested edit", Style::new().green().bold(), c),
            e.line,
            e.before,
            e.after
        );
    }
    out.push('\n');
}

/// Which of the kernel table's columns hold numbers, right-aligned: ID, n, duration, occ.
const NUMERIC: [bool; 8] = [true, false, true, false, false, true, true, false];

/// One line per kernel, whatever its configurations (or per launch with --per-launch);
/// metrics are means over its launches.
fn kernel_table(r: &Report, out: &mut String) {
    let c = r.color;
    let rows: Vec<[String; 8]> = r.kernels.iter().map(|(v, _)| kernel_row(r, v)).collect();
    let header = [
        "ID",
        "kernel",
        "n",
        "grid",
        "block",
        "mean time",
        "occ.",
        "findings",
    ];
    let header = header.map(String::from);
    let mut lines = columns(std::iter::once(&header).chain(&rows), &NUMERIC).into_iter();
    let head = lines.next().unwrap_or_default();
    let _ = writeln!(out, "{}", paint(&head, Style::new().bold(), c));
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
}

/// One row of the kernel table: ID, kernel, launches, grid, block, mean duration a launch,
/// occupancy, findings.
fn kernel_row(r: &Report, v: &crate::fold::KernelView) -> [String; 8] {
    let l = &v.entry;
    let codes: Vec<&str> = r
        .findings
        .iter()
        // A merged finding is about the whole kernel; one per launch, its launch.
        .filter(|f| f.file == v.file && f.is_on(&l.name))
        .filter(|f| !f.covered.is_empty() || f.launch == l.id)
        .map(|f| f.code.as_str())
        .collect();
    let metric = |k: &str, suffix: &str, scale: f64, d: usize| {
        l.metrics.get(k).map_or("-".to_string(), |v| {
            format!("{}{suffix}", format_number(v * scale, Some(d)))
        })
    };
    // With several inputs, which file the row is from: same-named kernels of two
    // profiles would otherwise print as identical rows.
    let name = if r.profiles.len() > 1 {
        let file = crate::ingest::source::file_name(&v.file);
        format!("{file}: {}", short_name(&l.name))
    } else {
        short_name(&l.name)
    };
    [
        l.id.to_string(),
        name,
        format!("{}x", l.count),
        config_range(v, v.grid_blocks, l.grid, "blocks"),
        config_range(v, v.block_threads, l.block, "threads"),
        metric("duration_ns", " us", 1e-3, 1),
        // 12.5% is not 12%: one decimal when the value has one.
        metric(
            "theoretical_occupancy_pct",
            "%",
            1.0,
            usize::from(
                l.metrics
                    .get("theoretical_occupancy_pct")
                    .is_some_and(|v| v.fract().abs() > 0.05),
            ),
        ),
        if codes.is_empty() {
            "ok".into()
        } else {
            codes.join(" ")
        },
    ]
}

/// Under the profile line: what a sampled `gpulint run` profiled, and what the times
/// count.
fn sample_line(r: &Report, out: &mut String) {
    if let Some(text) = super::sample_text(r) {
        let _ = writeln!(out, "  {text}");
    }
    if let Some(text) = super::left_out_text(r) {
        let _ = writeln!(out, "  {text}");
    }
}

/// Kernels above which the roofline lines wait for `--verbose`, so that the report of a
/// framework's many kernels fits on a screen.
const ROOFLINE_LINES_MAX: usize = 12;

/// One roofline line per kernel.
fn roofline_lines(r: &Report, out: &mut String) {
    let c = r.color;
    let placed: Vec<_> = r
        .kernels
        .iter()
        .filter_map(|(v, roof)| roof.as_ref().map(|x| (&v.entry, x)))
        .collect();
    if placed.len() > ROOFLINE_LINES_MAX && !r.verbose {
        let _ = writeln!(
            out,
            "\nroofline of {} kernels: --verbose lists it, `gpulint roofline --svg FILE` charts it, \
             and --format html holds both",
            placed.len()
        );
        return;
    }
    if !placed.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            paint(
                if placed.iter().any(|(_, roof)| !roof.hierarchy.is_empty()) {
                    "roofline (DRAM, then by level of the memory hierarchy):"
                } else {
                    "roofline (DRAM):"
                },
                Style::new().bold(),
                c
            )
        );
        let name_width = placed
            .iter()
            .map(|(l, _)| short_name(&l.name).chars().count())
            .max()
            .unwrap_or(0);
        for (l, roof) in &placed {
            let _ = writeln!(
                out,
                "{:>3}  {:<name_width$}  {}",
                l.id,
                short_name(&l.name),
                roof.describe()
            );
        }
    }
}

/// Why a roofline is missing, the counts, and the skipped checks.
fn closing(r: &Report, out: &mut String) {
    // Say why a roofline is missing when the export has FLOP counters but no DRAM bytes
    // (Tegra chips have no dram__ metrics), rather than leave the section out in silence.
    let no_dram = r
        .kernels
        .iter()
        .filter(|(v, roof)| {
            roof.is_none()
                && v.entry.metrics.contains_key("inst_ffma")
                && !v.entry.metrics.contains_key("dram_bytes_read")
        })
        .count();
    if no_dram > 0 {
        let _ = writeln!(
            out,
            "\nroofline unavailable for {no_dram} kernel(s): the export has no DRAM bytes (Tegra chips have no dram__ metrics)"
        );
    }

    let count = |s: Severity| r.findings.iter().filter(|f| f.severity == s).count();
    let _ = writeln!(
        out,
        "\n{} launch(es) of {} kernel(s) in {} configuration(s) checked: {} error(s), {} warning(s), {} info",
        r.launch_total(),
        r.launches()
            .map(|(_, l)| &l.name)
            .collect::<std::collections::HashSet<_>>()
            .len(),
        r.launches()
            .map(|(p, l)| (&p.file, &l.name, l.grid, l.block))
            .collect::<std::collections::HashSet<_>>()
            .len(),
        count(Severity::Error),
        count(Severity::Warning),
        count(Severity::Info)
    );
    let why = if r.verbose {
        ""
    } else {
        "; --verbose says why"
    };
    if r.verbose && !r.coverage.needs_launch_trace.is_empty() {
        let _ = writeln!(
            out,
            "not judged, for want of gpulint's launch trace (`gpulint run`, or `gpulint check` \
             on the file of `gpulint run --save-trace`): {}",
            r.coverage.needs_launch_trace.join(", ")
        );
    }
    if let Some(end) = r.sample.program_end.filter(|e| e.failed()) {
        let _ = writeln!(
            out,
            "the program {}: only the kernels it ran before that were profiled (exit 3)",
            end.describe()
        );
    }
    if let Some(summary) = r.coverage.summary() {
        let _ = writeln!(out, "{summary}{why}");
    } else if !r.skips.is_empty() {
        let _ = writeln!(
            out,
            "{} rule check(s) skipped on some launches for missing metrics{why}",
            r.skips.iter().map(|s| s.launch_count).sum::<u64>()
        );
    }
    if let Some(hint) = raw_page_hint(r) {
        let _ = writeln!(out, "{hint}");
    }
}

/// Where a details page left rules unjudged: the raw page of the same report holds every
/// metric ncu collected, so it is the first thing to try (before a capture of its own).
fn raw_page_hint(r: &Report) -> Option<String> {
    let details = r
        .profiles
        .iter()
        .any(|p| p.page == crate::ingest::Page::Details);
    let unjudged = r.coverage.not_judged.len();
    (details && unjudged > 0).then(|| {
        format!(
            "hint: this is a details page, which shows each section's headline values only; \
             the raw page of the same report (`ncu --import REPORT.ncu-rep --csv --page raw`, \
             or `gpulint check REPORT.ncu-rep`) holds every metric ncu collected, which the \
             {unjudged} rule(s) not judged may find there"
        )
    })
}

/// The diff: the verdict and why first, then the rows that moved (every kernel and gated
/// metric with `verbose`, else the unchanged ones counted), then what changed shape.
pub fn write_diff(
    d: &crate::diff::DiffReport,
    color: bool,
    verbose: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    use crate::diff::Verdict;
    let mut out = String::new();
    diff_verdict(d, color, &mut out);
    out.push('\n');
    let shown: Vec<&crate::diff::MetricDiff> = d
        .rows
        .iter()
        .filter(|r| verbose || r.verdict != Verdict::Unchanged)
        .collect();
    let hidden = d.rows.len() - shown.len();
    out.push_str(&diff_table(&shown, color));
    if hidden > 0 {
        let _ = writeln!(
            out,
            "{hidden} unchanged metric row(s) not shown; --verbose shows them"
        );
    }
    let mut changes = String::new();
    diff_changes(d, &mut changes);
    if !changes.is_empty() {
        out.push('\n');
        out.push_str(&changes);
    }
    super::flush(&mut out, w)
}

/// The metric rows as an aligned table, coloured by verdict; nothing when there are none.
fn diff_table(shown: &[&crate::diff::MetricDiff], color: bool) -> String {
    use crate::diff::Verdict;
    let mut out = String::new();
    let rows: Vec<[String; 6]> = shown
        .iter()
        .map(|r| {
            [
                short_name(&r.kernel),
                r.metric.clone(),
                super::sarif::fmt(r.baseline),
                super::sarif::fmt(r.candidate),
                r.change_pct
                    .map_or_else(|| super::sarif::fmt(r.change), |p| format!("{p:+.1}%")),
                r.verdict.as_str().to_string(),
            ]
        })
        .collect();
    let header = [
        "kernel",
        "metric",
        "baseline",
        "candidate",
        "change",
        "verdict",
    ]
    .map(String::from);
    // Baseline, candidate and change are numbers: right-aligned.
    let right = [false, false, true, true, true, false];
    let mut lines = columns(std::iter::once(&header).chain(&rows), &right).into_iter();
    let head = lines.next().unwrap_or_default();
    if !rows.is_empty() {
        let _ = writeln!(out, "{}", paint(&head, Style::new().bold(), color));
    }
    for (line, r) in lines.zip(shown) {
        let style = match r.verdict {
            Verdict::Regressed => Style::new().red().bold(),
            Verdict::Improved => Style::new().green(),
            Verdict::Unchanged => Style::new(),
        };
        let _ = writeln!(out, "{}", paint(&line, style, color));
    }
    out
}

/// What changed shape: new findings, launch configurations, new and vanished kernels.
fn diff_changes(d: &crate::diff::DiffReport, out: &mut String) {
    for nf in &d.new_findings {
        let _ = writeln!(out, "{}", nf.describe());
    }
    for fixed in &d.fixed_findings {
        let _ = writeln!(out, "{}", fixed.describe_fixed());
    }
    for nc in &d.not_compared {
        let _ = writeln!(out, "{}", nc.describe());
    }
    for c in &d.config_changes {
        let _ = writeln!(
            out,
            "launch configuration changed: {} {} -> {}",
            short_name(&c.kernel),
            c.from,
            c.to
        );
    }
    for (_, line) in d.unmeasured_lines() {
        let _ = writeln!(out, "{line}");
    }
    for c in &d.caveats {
        let _ = writeln!(out, "warning: {c}");
    }
    // New and vanished kernels fail the gate only with --strict.
    let strict_note = if d.strict {
        ""
    } else {
        " (fails only with --strict)"
    };
    for k in &d.new_kernels {
        let _ = writeln!(out, "new kernel: {}{strict_note}", short_name(k));
    }
    for k in &d.vanished_kernels {
        let _ = writeln!(out, "vanished kernel: {}{strict_note}", short_name(k));
    }
}

/// The closing line: pass or FAIL, and the counts.
fn diff_verdict(d: &crate::diff::DiffReport, color: bool, out: &mut String) {
    let t = crate::diff::tally(d);
    let verdict = if d.failed() {
        paint("FAIL", Style::new().red().bold(), color)
    } else {
        paint("PASS", Style::new().green().bold(), color)
    };
    let _ = writeln!(
        out,
        "{verdict}: {} regressed, {} improved, {} unchanged, {} new finding(s), {} fixed, {} not \
         compared; {}",
        t.get("regressed").unwrap_or(&0),
        t.get("improved").unwrap_or(&0),
        t.get("unchanged").unwrap_or(&0),
        d.new_findings.len(),
        d.fixed_findings.len(),
        d.not_compared.len(),
        d.overlap.describe()
    );
    let reasons = d.reasons();
    if !reasons.is_empty() {
        let _ = writeln!(out, "failed because: {}", reasons.join("; "));
    }
}
