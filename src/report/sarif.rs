//! `--format sarif`: SARIF 2.1.0 as GitHub code scanning accepts it. A finding without a
//! source line points at the profile file and the kernel's row, so every result has a
//! valid location; fingerprints hash the rule and the kernel, so alerts stay stable
//! across runs.

use serde_json::{Value, json};

use super::Report;
use crate::diff::DiffReport;
use crate::rules::{Rule, Severity};

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// FNV-1a, 64 bits: a stable fingerprint that needs no dependency.
pub fn fingerprint(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= b as u64;
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    format!("{h:016x}")
}

fn rule_descriptor(r: &Rule) -> Value {
    json!({
        "id": r.code,
        "name": r.slug,
        "shortDescription": { "text": r.summary },
        "fullDescription": { "text": r.doc.what.trim() },
        "help": {
            "text": r.fix(),
            "markdown": format!("**Why:** {}\n\n**Fix:** {}", r.doc.why.trim(), r.doc.fix.trim()),
        },
        "defaultConfiguration": { "level": level(r.severity) },
        "properties": { "category": r.category },
    })
}

fn location(file: &str, line: u64) -> Value {
    json!([{ "physicalLocation": {
        "artifactLocation": artifact(file),
        "region": { "startLine": line.max(1) },
    }}])
}

/// An artifact location as SARIF wants it: an RFC 3986 URI reference, percent-encoded;
/// relative to `%SRCROOT%` (the working directory) for a relative path, a `file://` URI
/// for an absolute one.
pub fn artifact(path: &str) -> Value {
    // Standard input and a profiled program's run (`ncu:PROG`) are no file a URI could
    // name: SARIF lets a location be described instead.
    if path == "<stdin>" || path.starts_with("ncu:") {
        return json!({ "description": { "text": path } });
    }
    if let Some(abs) = path.strip_prefix('/') {
        json!({ "uri": format!("file:///{}", percent_encode(abs)) })
    } else {
        json!({ "uri": percent_encode(path), "uriBaseId": "%SRCROOT%" })
    }
}

/// Percent-encodes all but RFC 3986's unreserved characters and `/`.
fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The profile row a finding came from, as a related location of its source line.
/// A mechanical fix as SARIF's `fixes`: the edit's line replaced where its old text is.
fn fix(r: &Report, e: &crate::rules::engine::Edit, why: &str) -> Value {
    let file = super::relative_to(&e.file, r.source_root.as_deref());
    json!([{
        "description": { "text": why },
        "artifactChanges": [{
            "artifactLocation": artifact(&file),
            "replacements": [{
                "deletedRegion": deleted_region(e),
                "insertedContent": { "text": e.after },
            }],
        }],
    }])
}

/// The text an edit replaces: from its column to the end of `before` where the column is
/// known, else the line, with `before` as its snippet.
fn deleted_region(e: &crate::rules::engine::Edit) -> Value {
    let mut region = json!({ "startLine": e.line.max(1), "snippet": { "text": e.before } });
    if let Some(c) = e.column {
        region["startColumn"] = json!(c);
        region["endColumn"] = json!(c + e.before.chars().count() as u64);
    }
    region
}

fn related(f: &crate::rules::engine::Finding) -> Value {
    json!([{
        "id": 1,
        "message": { "text": "the kernel's row in the profile" },
        "physicalLocation": {
            "artifactLocation": artifact(&f.file),
            "region": { "startLine": f.line.max(1) },
        },
    }])
}

/// The SARIF log, with notifications about the run (skipped checks, caveats) in
/// `invocations[0].toolExecutionNotifications`.
fn write_document(
    rules: Vec<Value>,
    results: Vec<Value>,
    notes: Vec<Value>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "gpulint",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://github.com/gpulint/gpulint",
                "rules": rules,
            }},
            "results": results,
        }],
    });
    if !notes.is_empty() {
        doc["runs"][0]["invocations"] = json!([{
            "executionSuccessful": true,
            "toolExecutionNotifications": notes,
        }]);
    }
    serde_json::to_writer_pretty(&mut *w, &doc)?;
    w.write_all(b"\n")
}

pub fn write(r: &Report, rules: &[Rule], w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let results = r
        .listed_findings()
        .iter()
        .map(|f| {
            let index = rules.iter().position(|x| x.code == f.code);
            let launches = super::concise::launch_list(f, r.kernel_launches(f));
            let mut text = format!(
                "{}: {}; {launches}",
                super::finding_kernel(f),
                f.message
            );
            for n in &f.notes {
                text.push_str(&format!("\nnote: {n}"));
            }
            text.push_str(&format!("\nhelp: {}", f.fix));
            let (file, line) = r.code_location(f);
            let mut result = json!({
                "ruleId": f.code,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": text },
                "locations": location(&file, line),
                "partialFingerprints": { "gpulint/v1": fingerprint(&[&f.file, &f.rule, &f.kernel, &super::dim3(f.grid), &super::dim3(f.block)]) },
            });
            if f.source.is_some() {
                result["relatedLocations"] = related(f);
            }
            if let Some(e) = &f.edit {
                result["fixes"] = fix(r, e, &f.fix);
            }
            result
        })
        .collect();
    let notes = r
        .coverage
        .not_judged
        .iter()
        .map(|slug| {
            let why = r
                .skips
                .iter()
                .find(|s| &s.rule == slug)
                .map_or("missing metrics", |s| s.reason.as_str());
            let mut note = notification("warning", &format!("{slug} could not judge: {why}"));
            if let Some(i) = rules.iter().position(|x| &x.slug == slug) {
                note["associatedRule"] = json!({ "id": rules[i].code, "index": i });
            }
            note
        })
        .chain(super::left_out_text(r).map(|left| notification("note", &left)))
        .collect();
    write_document(
        rules.iter().map(rule_descriptor).collect(),
        results,
        notes,
        w,
    )
}

pub fn write_diff(
    d: &DiffReport,
    rules: &[Rule],
    candidate_file: &str,
    lines: &dyn Fn(&str) -> Option<(String, u64)>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    // GL900 (rules/GL900-regression.toml) first: regressions refer to index 0. It is
    // described even when --select left it out of the enabled rules.
    let lints: Vec<&Rule> = rules.iter().filter(|r| !r.diff_only).collect();
    let gate = rules.iter().find(|r| r.diff_only).cloned().or_else(|| {
        crate::rules::load(None)
            .ok()?
            .into_iter()
            .find(|r| r.diff_only)
    });
    let mut descriptors: Vec<Value> = gate.iter().map(rule_descriptor).collect();
    descriptors.extend(lints.iter().map(|r| rule_descriptor(r)));
    let rules = lints;
    let loc = |kernel: &str| lines(kernel).unwrap_or_else(|| (candidate_file.to_string(), 1));
    let mut results: Vec<Value> = d
        .regressions()
        .map(|row| {
            let (file, line) = loc(&row.kernel);
            json!({
                "ruleId": "GL900",
                "ruleIndex": 0,
                "level": "error",
                "message": { "text": row.describe() },
                "locations": location(&file, line),
                "partialFingerprints": { "gpulint/v1": fingerprint(&["regression", &row.metric, &row.kernel]) },
            })
        })
        .collect();
    for (what, k) in d.strict_kernel_changes() {
        results.push(json!({
            "ruleId": "GL900",
            "ruleIndex": 0,
            "level": "error",
            "message": { "text": format!("{}: {what}; the gate fails on it with --strict", super::short_name(k)) },
            "locations": location(candidate_file, 1),
            "partialFingerprints": { "gpulint/v1": fingerprint(&[what, k]) },
        }));
    }
    for (kernel, text) in d.unmeasured_lines() {
        let (file, line) = loc(kernel);
        results.push(json!({
            "ruleId": "GL900",
            "ruleIndex": 0,
            "level": "error",
            "message": { "text": text },
            "locations": location(&file, line),
            "partialFingerprints": { "gpulint/v1": fingerprint(&["unmeasured", kernel]) },
        }));
    }
    for nf in &d.new_findings {
        let (file, line) = loc(&nf.kernel);
        let rule = rules.iter().position(|r| r.slug == nf.rule);
        let code = rule.map_or(nf.rule.clone(), |i| rules[i].code.clone());
        results.push(json!({
            "ruleId": code,
            "ruleIndex": rule.map(|i| i + 1),
            "level": "error",
            "message": { "text": nf.describe() },
            "locations": location(&file, line),
            "partialFingerprints": { "gpulint/v1": fingerprint(&["new-finding", &nf.rule, &nf.kernel]) },
        }));
    }
    let notes: Vec<Value> = d
        .caveats
        .iter()
        .map(|c| notification("warning", c))
        .collect();
    write_document(descriptors, results, notes, w)
}

/// A `toolExecutionNotification`: something about the run itself, not a finding.
fn notification(level: &str, text: &str) -> Value {
    json!({ "level": level, "message": { "text": text } })
}

pub fn fmt(v: f64) -> String {
    crate::diff::show_value(v)
}
