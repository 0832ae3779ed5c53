//! `--format html`: one self-contained page to share. Styles, script and the roofline
//! chart are inline and nothing is loaded from elsewhere, so it opens from a CI artifact,
//! an e-mail or a laptop offline. It holds the profile's headline, the kernels by time
//! at stake, every finding with its evidence, fix and source line, the chart with each
//! kernel as a point to hover or click, and what could not be judged.

use std::fmt::Write;

use super::{Report, micros, short_name};
use crate::rules::Severity;
use crate::rules::engine::Finding;
use crate::rules::template::format_number;

/// Above this many kernels, the table shows the ones with the most time at stake and GPU
/// time, and says how many it left out (the JSON has them all).
const KERNEL_ROWS: usize = 200;

/// Text as HTML: the five characters markup gives meaning to.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
.headline { color: #444; } .counts span { margin-right: 1em; font-weight: bold; }
table { border-collapse: collapse; width: 100%; font-size: .9em; }
th, td { text-align: left; padding: .25em .5em; border-bottom: 1px solid #eee; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
tr.hit { background: #fff3b0; }
.finding { border-left: 4px solid #999; padding: .3em .8em; margin: 1em 0; background: #fafafa; }
.finding.error { border-color: #c0392b; } .finding.warning { border-color: #d68910; } .finding.info { border-color: #2e86c1; }
.sev { font-weight: bold; text-transform: uppercase; font-size: .8em; }
.error .sev { color: #c0392b; } .warning .sev { color: #b9770e; } .info .sev { color: #2e86c1; }
.where, .stake { color: #555; font-size: .9em; } .help { color: #1e8449; }
code, pre { font-family: ui-monospace, monospace; font-size: .9em; }
pre.edit del { color: #a00; text-decoration: none; } pre.edit ins { color: #070; text-decoration: none; }
pre.source { background: #f0f0f0; padding: .5em; overflow-x: auto; } pre.source .line { background: #ffe08a; display: block; }
dl.evidence { display: grid; grid-template-columns: max-content auto; gap: 0 1em; font-size: .85em; margin: .4em 0; }
dl.evidence dt { color: #555; } dl.evidence dd { margin: 0; }
.chart svg { max-width: 100%; height: auto; } .chart circle[data-launch] { cursor: pointer; }
details summary { cursor: pointer; color: #2e86c1; }
"#;

/// Clicking a point of the chart marks its kernel's row; the chart's own `<title>`s
/// name the kernel on hover.
const SCRIPT: &str = r#"
document.querySelectorAll('.chart circle[data-launch]').forEach(function (c) {
  c.addEventListener('click', function () {
    var row = document.getElementById('k-' + c.getAttribute('data-launch'));
    if (!row) return;
    document.querySelectorAll('tr.hit').forEach(function (r) { r.classList.remove('hit'); });
    row.classList.add('hit');
    row.scrollIntoView({ block: 'center' });
  });
});
"#;

pub fn write(r: &Report, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut out = String::new();
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let files: Vec<&str> = r.profiles.iter().map(|p| p.file.as_str()).collect();
    let _ = writeln!(
        out,
        "<title>gpulint: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>",
        esc(&files.join(", "))
    );
    headline(r, &mut out);
    super::flush(&mut out, w)?;
    kernels(r, &mut out);
    super::flush(&mut out, w)?;
    findings(r, &mut out);
    super::flush(&mut out, w)?;
    chart(r, &mut out);
    not_judged(r, &mut out);
    let _ = writeln!(
        out,
        "<footer><p class=\"where\">gpulint {}</p></footer>\n<script>{SCRIPT}</script>\n</body>\n</html>",
        env!("CARGO_PKG_VERSION")
    );
    super::flush(&mut out, w)
}

fn count(r: &Report, s: Severity) -> usize {
    r.findings.iter().filter(|f| f.severity == s).count()
}

/// The profile, the GPU, what the sample covered, and the counts.
fn headline(r: &Report, out: &mut String) {
    let _ = writeln!(out, "<h1>gpulint report</h1>");
    let devices: std::collections::BTreeSet<&str> = r
        .launches()
        .filter_map(|(_, l)| l.device.as_deref())
        .collect();
    let kernels: std::collections::HashSet<&str> =
        r.launches().map(|(_, l)| l.name.as_str()).collect();
    let _ = writeln!(
        out,
        "<p class=\"headline\"><b>{}</b>: {}{}</p>",
        esc(&r
            .profiles
            .iter()
            .map(|p| p.file.as_str())
            .collect::<Vec<_>>()
            .join(", ")),
        esc(&super::headline_counts(r, r.launch_total(), kernels.len())),
        if devices.is_empty() {
            String::new()
        } else {
            format!(
                ", on {}",
                esc(&devices.into_iter().collect::<Vec<_>>().join(", "))
            )
        }
    );
    if let Some(sample) = super::sample_text(r) {
        let _ = writeln!(out, "<p class=\"headline\">{}</p>", esc(&sample));
    }
    if let Some(left) = super::left_out_text(r) {
        let _ = writeln!(out, "<p class=\"headline\">{}</p>", esc(&left));
    }
    let _ = writeln!(
        out,
        "<p class=\"counts\"><span>{} error(s)</span><span>{} warning(s)</span><span>{} info</span></p>",
        count(r, Severity::Error),
        count(r, Severity::Warning),
        count(r, Severity::Info)
    );
}

/// The largest stake among a kernel's warnings (as each finding states it).
fn largest_stake(r: &Report, kernel: &str) -> f64 {
    r.findings
        .iter()
        .filter(|f| f.is_on(kernel) && f.severity >= Severity::Warning)
        .filter_map(|f| f.time_at_stake_ns)
        .fold(0.0, f64::max)
}

/// One row per kernel, the most time at stake first, then the most GPU time.
fn kernels(r: &Report, out: &mut String) {
    let total = r.gpu_time_ns;
    let mut rows: Vec<_> = r
        .kernels
        .iter()
        .map(|(v, roof)| {
            let l = &v.entry;
            let time = l.time_ns();
            (v, roof, time, largest_stake(r, &l.name))
        })
        .collect();
    rows.sort_by(|a, b| {
        b.3.total_cmp(&a.3)
            .then(b.2.unwrap_or(0.0).total_cmp(&a.2.unwrap_or(0.0)))
    });
    let _ = writeln!(
        out,
        "<h2>Kernels by time at stake</h2>\n<table id=\"kernels\">\n<tr><th class=\"num\">ID</th><th>kernel</th><th>origin</th><th class=\"num\">launches</th><th class=\"num\">GPU time</th><th class=\"num\">share</th><th>roofline</th><th class=\"num\">at stake</th><th>findings</th></tr>"
    );
    for (v, roof, time, stake) in rows.iter().take(KERNEL_ROWS) {
        let l = &v.entry;
        let origin = r.origins.describe(&l.name);
        let links: Vec<String> = r
            .findings
            .iter()
            .enumerate()
            .filter(|(_, f)| f.file == v.file && f.is_on(&l.name))
            .filter(|(_, f)| !f.covered.is_empty() || f.launch == l.id)
            .map(|(i, f)| format!("<a href=\"#f-{i}\">{}</a>", esc(&f.code)))
            .collect();
        let _ = writeln!(
            out,
            "<tr id=\"k-{}\"><td class=\"num\">{}</td><td title=\"{}\"><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            l.id,
            l.id,
            esc(&l.name),
            esc(&short_name(&l.name)),
            esc(&origin.name),
            l.count,
            time.map_or("-".into(), micros),
            match time {
                Some(t) if total > 0.0 => format!("{:.1}%", t / total * 100.0),
                _ => "-".into(),
            },
            esc(roof.as_ref().map_or("-", |x| x.label())),
            if *stake > 0.0 {
                micros(*stake)
            } else {
                "-".into()
            },
            if links.is_empty() {
                "ok".into()
            } else {
                links.join(" ")
            }
        );
    }
    out.push_str("</table>\n");
    if rows.len() > KERNEL_ROWS {
        let _ = writeln!(
            out,
            "<p class=\"where\">{} more kernel(s) with less at stake and less GPU time: `--format json` lists every one.</p>",
            rows.len() - KERNEL_ROWS
        );
    }
}

/// Warnings and errors in full; info findings as one table (rule, kernels, time at stake,
/// why info), with their cards folded under it, expanded on a click (in full with
/// `--verbose`).
fn findings(r: &Report, out: &mut String) {
    let _ = writeln!(out, "<h2>Findings</h2>");
    if r.findings.is_empty() {
        out.push_str("<p>No findings.</p>\n");
        return;
    }
    let folded = |f: &Finding| !r.verbose && f.severity == Severity::Info;
    let listed = r.listed_findings().len();
    for (i, f) in (r.findings.iter().enumerate()).filter(|(i, f)| *i < listed && !folded(f)) {
        finding(r, i, f, out);
    }
    if let Some(left) = r.left_out_by_top() {
        let _ = writeln!(out, "<p class=\"where\">{}</p>", esc(&left));
    }
    let info: Vec<(usize, &Finding)> = r
        .findings
        .iter()
        .enumerate()
        .filter(|(_, f)| folded(f))
        .collect();
    if info.is_empty() {
        return;
    }
    let groups = super::info_groups(info.iter().map(|(_, f)| *f));
    let _ = writeln!(
        out,
        "<h3>Info: {} finding(s), worth knowing rather than acting on first</h3>\n<table class=\"info\"><tr><th>rule</th><th>kernels</th><th>at stake</th><th>why info</th></tr>",
        groups.iter().map(|g| g.findings).sum::<usize>()
    );
    for g in groups {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td title=\"{}\">{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(g.rule),
            esc(&g.kernels.join("\n")),
            esc(&g.kernels_cell()),
            g.stake_ns.map_or("-".into(), micros),
            esc(g.why)
        );
    }
    out.push_str("</table>\n");
    let _ = writeln!(
        out,
        "<details><summary>the {} info card(s) in full</summary>",
        info.len()
    );
    for (i, f) in info {
        finding(r, i, f, out);
    }
    out.push_str("</details>\n");
}

fn finding(r: &Report, i: usize, f: &Finding, out: &mut String) {
    let sev = f.severity.as_str();
    let _ = writeln!(
        out,
        "<section class=\"finding {sev}\" id=\"f-{i}\">\n<p><span class=\"sev\">{sev}</span> <b>{} {}</b>: {}</p>",
        esc(&f.code),
        esc(&f.rule),
        esc(&f.message)
    );
    let launches = super::concise::launch_list(f, r.kernel_launches(f));
    let _ = writeln!(
        out,
        "<p class=\"where\"><code>{}</code> ({}), {}, {}; {}</p>",
        esc(&super::finding_kernel(f)),
        esc(&r.origins.describe(&f.kernel).name),
        esc(&launches),
        esc(&super::configuration_text(f)),
        esc(&r.location(f))
    );
    if let Some(t) = f.time_at_stake_ns.filter(|t| *t > 0.0) {
        let _ = writeln!(
            out,
            "<p class=\"stake\">at stake: up to {}{}</p>",
            micros(t),
            esc(&super::shared_stake_text(f))
        );
    }
    if !f.evidence.is_empty() {
        out.push_str("<dl class=\"evidence\">");
        for (k, v) in &f.evidence {
            let range = f.evidence_range.get(k).map_or(String::new(), |[lo, hi]| {
                format!(
                    " ({} to {} across the {} launches)",
                    format_number(*lo, None),
                    format_number(*hi, None),
                    f.launch_count
                )
            });
            let _ = write!(
                out,
                "<dt>{}</dt><dd>{}{}</dd>",
                esc(k),
                format_number(*v, None),
                esc(&range)
            );
        }
        out.push_str("</dl>\n");
    }
    for note in &f.notes {
        let _ = writeln!(out, "<p class=\"where\">note: {}</p>", esc(note));
    }
    if f.source.is_some() {
        source_lines(r, f, out);
    }
    let _ = writeln!(out, "<p class=\"help\"><b>help:</b> {}</p>", esc(&f.fix));
    if let Some(e) = &f.edit {
        let name = crate::ingest::source::file_name(&e.file);
        let _ = writeln!(
            out,
            "<p class=\"where\">suggested edit, <code>{}:{}</code>:</p>\n<pre class=\"edit\"><del>- {}</del>\n<ins>+ {}</ins></pre>",
            esc(name),
            e.line,
            esc(&e.before),
            esc(&e.after)
        );
    }
    out.push_str("</section>\n");
}

/// The source line behind a finding, with a few lines around it when the file is on
/// this disk (relative to the source root, as the profile names it, or by the tail of
/// that path below the working directory).
fn source_lines(r: &Report, f: &Finding, out: &mut String) {
    let (file, line) = r.code_location(f);
    let _ = writeln!(
        out,
        "<p class=\"where\">source: <code>{}:{line}</code></p>",
        esc(&file)
    );
    let candidates = [
        r.source_root.as_ref().map(|root| root.join(&file)),
        f.source
            .as_ref()
            .and_then(|s| crate::ingest::source::on_disk(&s.file)),
    ];
    let Some(text) = candidates
        .into_iter()
        .flatten()
        .find_map(|p| std::fs::read_to_string(p).ok())
    else {
        return;
    };
    let lines: Vec<&str> = text.lines().collect();
    let at = line as usize;
    if at == 0 || at > lines.len() {
        return;
    }
    out.push_str("<pre class=\"source\">");
    for n in at.saturating_sub(3).max(1)..=(at + 2).min(lines.len()) {
        let code = format!("{n:>5}  {}", lines[n - 1]);
        if n == at {
            let _ = write!(out, "<span class=\"line\">{}</span>", esc(&code));
        } else {
            let _ = writeln!(out, "{}", esc(&code));
        }
    }
    out.push_str("</pre>\n");
}

/// The roofline chart, inline: each kernel a point, its kernel and launch on hover, its
/// row marked on a click.
fn chart(r: &Report, out: &mut String) {
    let points: Vec<crate::report::roofline_svg::Point> = r
        .kernels
        .iter()
        .filter_map(|(v, roof)| {
            roof.as_ref()
                .map(|roof| crate::report::roofline_svg::Point {
                    name: short_name(&v.entry.name),
                    launch: v.entry.id,
                    roof,
                })
        })
        .collect();
    if points.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "<h2>Roofline</h2>\n<p class=\"where\">Hover a point for its kernel; click it to find the kernel in the table.</p>\n<div class=\"chart\">{}</div>",
        crate::report::roofline_svg::render(&points)
    );
}

/// Which rules could not judge, and on what.
fn not_judged(r: &Report, out: &mut String) {
    if r.coverage.summary().is_none() && r.skips.is_empty() {
        return;
    }
    let _ = writeln!(out, "<h2>Not judged</h2>");
    if let Some(summary) = r.coverage.summary() {
        let _ = writeln!(out, "<p>{}</p>", esc(&summary));
    }
    let mut grouped: Vec<(&str, &str, u64)> = Vec::new();
    for s in r.skips {
        match grouped
            .iter_mut()
            .find(|(rule, why, _)| *rule == s.rule && *why == s.reason)
        {
            Some(g) => g.2 += s.launch_count,
            None => grouped.push((&s.rule, &s.reason, s.launch_count)),
        }
    }
    if !grouped.is_empty() {
        out.push_str(
            "<table>\n<tr><th>rule</th><th class=\"num\">launches</th><th>why</th></tr>\n",
        );
        for (rule, why, n) in grouped {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td class=\"num\">{n}</td><td>{}</td></tr>",
                esc(rule),
                esc(why)
            );
        }
        out.push_str("</table>\n");
    }
}
