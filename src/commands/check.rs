//! `gpulint check`: lint exports someone already made (or a saved run, with its trace).

use super::Output;
use super::lint::lint_and_report;
use super::shared::gate_rules;
use crate::cli::ReportArgs;
use crate::error::{Error, Result};
use crate::ingest;
use crate::load::load_as;
use crate::rules::{self, Rule};

/// `gpulint check FILE...`: lint exports someone already made.
pub fn check(files: &[String], source: bool, report: &ReportArgs, out: &mut Output) -> Result<u8> {
    let files = &distinct_files(files);
    if let Some(code) = saved_run(files, source, report, out)? {
        return Ok(code);
    }
    let (rules, config) = gate_rules(&report.gate)?;
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    // Reports go through ncu into temporary CSVs, kept until the profiles are read.
    let mut imported = Vec::new();
    for f in files
        .iter()
        .filter(|f| *f != "-" && crate::profile::ncu::is_report(f))
    {
        imported.push((
            f.clone(),
            crate::profile::ncu::import_report(f, report.gate.read.verbose)?,
        ));
    }
    let inputs: Vec<(&str, &str)> = files
        .iter()
        .map(|f| match imported.iter().find(|(name, _)| name == f) {
            Some((name, rep)) => (rep.csv.path().to_str().unwrap_or(name), name.as_str()),
            None => (f.as_str(), if f == "-" { "<stdin>" } else { f.as_str() }),
        })
        .collect();
    let mut profiles = load_as(
        &inputs,
        report.per_launch,
        report.gate.read.jobs,
        Some(&mut linter),
    )?;
    if source {
        for (name, rep) in &imported {
            let Some(p) = profiles.iter_mut().find(|p| &p.file == name) else {
                continue;
            };
            let raw = ingest::read_path(&rep.csv.path().display().to_string())?;
            p.source_blocks.extend(crate::profile::ncu::source_pages(
                &rep.ncu,
                name,
                &raw,
                report.gate.read.verbose,
            )?);
        }
    }
    for page in &report.source_pages {
        let bytes =
            std::fs::read(page).map_err(|e| Error::in_file(page, format!("cannot read: {e}")))?;
        let blocks = ingest::source::parse(page, &bytes)?;
        for p in &mut profiles {
            p.source_blocks.extend(blocks.iter().cloned());
        }
    }
    let outcome = linter.finish();
    if !imported.is_empty() && !outcome.skips.is_empty() {
        let mut skipped: Vec<&str> = outcome.skips.iter().map(|s| s.rule.as_str()).collect();
        skipped.sort_unstable();
        skipped.dedup();
        crate::note!(
            "note: the report lacks what {} read{} (ncu's default sections leave out \
             the sector, source and bank-conflict counters); capture with `ncu --set full`, or \
             profile with `gpulint run`, to judge them",
            skipped.join(", "),
            if skipped.len() == 1 { "s" } else { "" }
        );
    }
    lint_and_report(&profiles, outcome, &rules, report, Default::default(), out)
}

/// The files to read, each once: the same file given twice would count its launches
/// twice ("launches 0,1,2,0,1,2").
/// Two names with the same bytes (a download saved twice) are one profile too.
fn distinct_files(files: &[String]) -> Vec<String> {
    let mut seen: Vec<std::path::PathBuf> = Vec::new();
    let mut out: Vec<String> = Vec::new();
    for f in files {
        let id = std::fs::canonicalize(f).unwrap_or_else(|_| f.into());
        if f != "-" && seen.contains(&id) {
            crate::warning!("{f} was given more than once; it is read once");
            continue;
        }
        if let Some(twin) = out
            .iter()
            .find(|o| *o != "-" && f != "-" && same_bytes(o, f))
        {
            crate::warning!(
                "{f} holds the same bytes as {twin}: one profile under two \
                 names, read once"
            );
            continue;
        }
        seen.push(id);
        out.push(f.clone());
    }
    out
}

/// Whether two regular files hold the same bytes (sizes first, so that a large export
/// is only read when another has its exact size).
fn same_bytes(a: &str, b: &str) -> bool {
    use std::io::Read;
    let size = |p: &str| {
        std::fs::metadata(p)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len())
    };
    match (size(a), size(b)) {
        (Some(x), Some(y)) if x == y => {}
        _ => return false,
    }
    let (Ok(fa), Ok(fb)) = (std::fs::File::open(a), std::fs::File::open(b)) else {
        return false;
    };
    let (mut ra, mut rb) = (std::io::BufReader::new(fa), std::io::BufReader::new(fb));
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        match ra.read(&mut ba) {
            Ok(0) => return true,
            Ok(n) if rb.read_exact(&mut bb[..n]).is_ok() && ba[..n] == bb[..n] => {}
            _ => return false,
        }
    }
}

/// An export `gpulint run --save-csv` kept, with its launch trace beside it: the run's own
/// report (crate::profile::saved_run). `None` for anything else.
fn saved_run(
    files: &[String],
    source: bool,
    report: &ReportArgs,
    out: &mut Output,
) -> Result<Option<u8>> {
    let [file] = files else { return Ok(None) };
    if file == "-" || source || !report.source_pages.is_empty() {
        return Ok(None);
    }
    let Some((trace, sample, kernel_filter)) = crate::profile::saved_run::read(file)? else {
        return Ok(None);
    };
    if std::path::Path::new(&trace).is_file() {
        return super::saved::report_saved_run(file, &trace, sample, kernel_filter, report, out)
            .map(Some);
    }
    crate::warning!(
        "{file}: the launch trace its run kept ({trace}) is not there: read \
         as a plain export, without every launch's shapes, times and origins"
    );
    Ok(None)
}
