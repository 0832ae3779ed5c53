//! `gpulint baseline` and `gpulint diff`: the regression gate.

use super::Output;
use super::shared::{gate_rules, use_color, write_output};
use crate::cli::{DiffArgs, DiffFormat, GateArgs};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::load::load;
use crate::pipeline::analyze;
use crate::report;
use crate::rules::{self, Rule};

/// `gpulint baseline FILE... [-o OUT]`: the committable summary CI diffs against.
pub fn baseline(
    files: &[String],
    output: Option<&str>,
    ncu_version: Option<String>,
    gate: &GateArgs,
    out: &mut Output,
) -> Result<u8> {
    let (rules, config) = gate_rules(gate)?;
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, true);
    let profiles = load(files, false, gate.read.jobs, Some(&mut linter))?;
    let analysis = analyze(
        &profiles,
        linter.finish(),
        &rules,
        &super::shared::analysis_settings(&gate.selection, gate.min_share),
    )?;
    let b = crate::baseline::build(
        &profiles,
        &analysis.findings,
        &analysis.skips,
        &analysis.coverage.needs_launch_trace,
        &rules,
        ncu_version,
    );
    let text = crate::baseline::to_json(&b);
    match output {
        Some(path) => {
            write_output(path, text.as_bytes(), files, "baseline")?;
            crate::note!("wrote {path} ({} kernel(s))", b.kernels.len());
        }
        None => out.emit(&text)?,
    }
    Ok(0)
}

/// `gpulint diff`: the candidate against the baseline, in the format asked for.
pub fn diff_command(req: &DiffArgs, out: &mut Output) -> Result<u8> {
    let (baseline, candidate) = (req.baseline.as_str(), req.candidate.as_str());
    let (strict, thresholds, gate_duration) = (req.strict, &req.thresholds, req.gate_duration);
    let (rules, config) = gate_rules(&req.gate)?;
    let base = load_side(baseline, &rules, &config, &req.gate)?;
    crate::baseline::check_gates_something(&base, baseline)?;
    let cand = load_side(candidate, &rules, &config, &req.gate)?;
    let mut gates = crate::diff::default_gates(gate_duration || config.diff.gate_duration);
    let from_config: Vec<(String, String)> = config
        .diff
        .thresholds
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    crate::diff::apply_thresholds(&mut gates, &from_config, "gpulint.toml [diff.thresholds]")?;
    let from_cli = thresholds
        .iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| Error::new(format!("--threshold {t:?}: expected METRIC=VALUE")))
        })
        .collect::<Result<Vec<_>>>()?;
    crate::diff::apply_thresholds(&mut gates, &from_cli, "--threshold")?;
    let also = parse_also_write(&req.also_write)?;
    if !(0.0..=100.0).contains(&req.min_compared) {
        return Err(Error::new(format!(
            "--min-compared {}: a percentage from 0 to 100",
            req.min_compared
        )));
    }
    let d = crate::diff::diff_with(&base, &cand, &gates, strict, req.min_compared);
    crate::diff::refuse_nothing_compared(&d, baseline, candidate)?;
    if strict && !d.caveats.is_empty() {
        return Err(Error::new(format!(
            "refusing to compare {baseline} with {candidate} (--strict): {}",
            d.caveats.join("; ")
        )));
    }
    let lines = |kernel: &str| cand.kernels.get(kernel).and_then(|k| k.source.clone());
    let write = |format: DiffFormat, color: bool, w: &mut dyn std::io::Write| match format {
        DiffFormat::Human => report::human::write_diff(&d, color, req.gate.read.verbose, w),
        DiffFormat::Concise => report::concise::write_diff(&d, &rules, candidate, &lines, w),
        DiffFormat::Markdown => report::markdown::write_diff(&d, w),
        DiffFormat::Github => report::github::write_diff(&d, candidate, &lines, w),
        DiffFormat::Sarif => report::sarif::write_diff(&d, &rules, candidate, &lines, w),
        DiffFormat::Json => w.write_all(diff_json(&d).as_bytes()),
    };
    let inputs = [baseline.to_string(), candidate.to_string()];
    for (format, path) in &also {
        let mut text = Vec::new();
        write(*format, false, &mut text)
            .map_err(|e| Error::in_file(path.as_str(), format!("cannot render the diff: {e}")))?;
        write_output(path, &text, &inputs, "report")?;
    }
    let color = use_color(req.color, out);
    out.emit_with(|w| write(req.format, color, w))?;
    Ok(u8::from(d.failed() && !req.exit_zero))
}

/// The verdict and its reasons, explicit for machines.
fn diff_json(d: &crate::diff::DiffReport) -> String {
    #[derive(serde::Serialize)]
    struct Gate<'a> {
        #[serde(flatten)]
        diff: &'a crate::diff::DiffReport,
        verdict: &'static str,
        reasons: Vec<String>,
    }
    let gate = Gate {
        diff: d,
        verdict: if d.failed() { "fail" } else { "pass" },
        reasons: d.reasons(),
    };
    serde_json::to_string_pretty(&gate).expect("plain data") + "\n"
}

/// `--also-write FORMAT=FILE` options, checked before anything is compared.
fn parse_also_write(specs: &[String]) -> Result<Vec<(DiffFormat, String)>> {
    use clap::ValueEnum;
    specs
        .iter()
        .map(|spec| {
            let (format, path) = spec.split_once('=').ok_or_else(|| {
                Error::new(format!("--also-write {spec:?}: expected FORMAT=FILE"))
            })?;
            let format = DiffFormat::from_str(format.trim(), true).map_err(|_| {
                Error::new(format!(
                    "--also-write {spec:?}: no format {format:?} (human, concise, json, markdown, github, sarif)"
                ))
            })?;
            if path.is_empty() {
                return Err(Error::new(format!("--also-write {spec:?}: no FILE")));
            }
            Ok((format, path.to_string()))
        })
        .collect()
}

/// One side of a diff: a saved baseline (JSON) or an export, linted and summarised.
fn load_side(
    path: &str,
    rules: &[Rule],
    config: &Config,
    gate: &GateArgs,
) -> Result<crate::baseline::Baseline> {
    if starts_like_json(path)? {
        let bytes =
            std::fs::read(path).map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
        return crate::baseline::parse(path, &String::from_utf8_lossy(&bytes));
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(rules, &ignored, true);
    let profiles = load(
        &[path.to_string()],
        false,
        gate.read.jobs,
        Some(&mut linter),
    )?;
    let analysis = analyze(
        &profiles,
        linter.finish(),
        rules,
        &super::shared::analysis_settings(&gate.selection, gate.min_share),
    )?;
    Ok(crate::baseline::build(
        &profiles,
        &analysis.findings,
        &analysis.skips,
        &analysis.coverage.needs_launch_trace,
        rules,
        None,
    ))
}

/// Whether a file's first non-blank byte opens a JSON object (a saved baseline).
fn starts_like_json(path: &str) -> Result<bool> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
    Ok(head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{'))
}
