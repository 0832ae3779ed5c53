//! After the rules: whose kernel each finding is about, the source lines behind it,
//! each kernel's share of the GPU time and the severity that follows from it, and the
//! ranking by time at stake. Computed once, for every format.

use std::collections::HashMap;

use crate::error::Result;
use crate::ingest::{self, Profile};

use crate::rules::engine::Finding;
use crate::rules::{self, Rule, Severity};

/// Names the source lines behind the findings of rules that ask for them, from the source
/// page's per-line counter that carries the rule's cause ([`rules::LineCause`]): the worst
/// lines by excess sectors, the lines the warps wait on most, the lines with the bank
/// conflicts (and the tile's declaration, with its padding as an edit), the local-memory
/// accesses, or the divergent branches.
fn attach_source_lines(profiles: &[Profile], rules: &[Rule], findings: &mut [Finding]) {
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

/// What the analysis takes from the command line.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `--rules DIR`: may hold an `origins.toml` of the user's own.
    pub rules_dir: Option<String>,
    /// `--min-share`: findings on kernels under this % of the GPU time become info.
    pub min_share: f64,
    /// GPU time the launch trace counted of kernels a sample did not profile: part of the
    /// total that shares are of, in no kernel's share.
    pub unprofiled_ns: f64,
    /// The launch trace's launching object of each kernel it counted, for the origins of
    /// kernels the sample did not profile.
    pub traced_objects: Vec<(String, std::sync::Arc<str>)>,
}

/// Findings after origins, shares and ranking: what every report and the baseline see.
pub struct Analysis {
    pub findings: Vec<rules::engine::Finding>,
    pub skips: Vec<rules::engine::Skip>,
    pub origins: crate::origin::Origins,
    /// Helper kernels (framework plumbing) and how many launches each had.
    pub helpers: Vec<(String, u64)>,
    /// Which rules could judge, and which could not.
    pub coverage: rules::engine::Coverage,
    /// The profile's GPU time, helper kernels left out: what shares are shares of.
    pub gpu_time_ns: f64,
}

/// Runs the stages after the rules, in order, on what the linter found.
pub fn analyze(
    profiles: &[Profile],
    outcome: rules::engine::Outcome,
    rules: &[Rule],
    settings: &Settings,
) -> Result<Analysis> {
    let mut origins = crate::origin::load(settings.rules_dir.as_deref())?;
    origins.learn_launching_objects(
        (profiles.iter().flat_map(|p| &p.launches)).map(|l| (&l.name, l.launched_from.as_ref())),
    );
    origins.learn_launching_objects(settings.traced_objects.iter().map(|(k, o)| (k, Some(o))));
    let mut findings = outcome.findings;
    apply_origins(&origins, &mut findings);
    attach_source_lines(profiles, rules, &mut findings);
    let helpers = origins.helpers(
        profiles
            .iter()
            .flat_map(|p| &p.launches)
            .map(|l| (l.name.as_str(), l.count)),
    );
    let (shares, gpu_time_ns) = kernel_shares(profiles, &origins, settings.unprofiled_ns);
    apply_share_floors(
        &mut findings,
        rules,
        &shares,
        gpu_time_ns,
        settings.min_share,
    );
    say_mean_waits(&mut findings, rules);
    one_warning_per_program_wide_fix(&mut findings, rules);
    crate::rules::engine::rank(&mut findings);
    one_stake_per_cause(&mut findings);
    Ok(Analysis {
        findings,
        skips: outcome.skips,
        origins,
        helpers,
        coverage: outcome.coverage,
        gpu_time_ns,
    })
}

/// Two findings on the same launches with the same time at stake are capped by one bound
/// (GL101 and GL102 on a strided copy: both by how busy the memory system is), and read
/// as twice the gain: the one ranked lower says whose stake it shares.
fn one_stake_per_cause(findings: &mut [Finding]) {
    let same = |a: f64, b: f64| (a - b).abs() <= 1e-3 * a.abs().max(b.abs());
    for i in 1..findings.len() {
        let Some(t) = findings[i].time_at_stake_ns.filter(|t| *t > 0.0) else {
            continue;
        };
        let (earlier, rest) = findings.split_at_mut(i);
        let f = &mut rest[0];
        let shared = earlier.iter().find(|e| {
            e.file == f.file
                && e.kernel == f.kernel
                && e.launch == f.launch
                && e.stake_shared_with.is_none()
                && e.time_at_stake_ns.is_some_and(|s| same(s, t))
        });
        if let Some(e) = shared {
            f.stake_shared_with = Some(e.code.clone());
        }
    }
}

/// Drops findings on helper kernels, turns library internals into info and names the
/// call to change on library call sites; records each finding's origin.
fn apply_origins(origins: &crate::origin::Origins, findings: &mut Vec<Finding>) {
    findings.retain_mut(|f| match origins.adjust(&f.kernel, &f.rule) {
        crate::origin::Adjustment::Drop => false,
        crate::origin::Adjustment::Keep { to_info, note, fix } => {
            if to_info && f.severity > Severity::Info {
                f.severity = Severity::Info;
                f.info_because = Some("a library's kernel: the cure is a different call".into());
            }
            f.notes.extend(note);
            f.notes.extend(origins.evidence_note(&f.kernel));
            if let Some(fix) = fix {
                f.fix = fix;
            }
            f.origin = Some(origins.describe(&f.kernel));
            true
        }
    });
}

/// A finding whose stake is waiting (`stake_is_waiting`) shows the wait before the launch
/// with the most at stake, the longest; the mean over the launches it covers is the typical
/// one, and their sum is the time at stake.
fn say_mean_waits(findings: &mut [Finding], rules: &[Rule]) {
    for f in findings.iter_mut() {
        let waits = rules.iter().any(|r| r.slug == f.rule && r.stake_is_waiting);
        if let (true, Some(stake)) = (waits, f.time_at_stake_ns) {
            let n = f.launch_count.max(1);
            f.notes.push(format!(
                "the {n} launch(es) waited {} us each on average, {} us in all",
                crate::rules::template::format_number(stake / n as f64 / 1000.0, Some(1)),
                crate::rules::template::format_number(stake / 1000.0, Some(1))
            ));
        }
    }
}

/// A rule whose fix is one switch for the whole program (`program_wide_fix`, such as a
/// precision setting) warns once per profile: on the kernel with the most time at stake.
/// Its other findings become info, each pointing to that one, which counts them.
fn one_warning_per_program_wide_fix(findings: &mut [Finding], rules: &[Rule]) {
    let stake = |f: &Finding| f.time_at_stake_ns.unwrap_or(0.0);
    for rule in rules.iter().filter(|r| r.program_wide_fix) {
        let files: std::collections::BTreeSet<String> = findings
            .iter()
            .filter(|f| f.rule == rule.slug)
            .map(|f| f.file.clone())
            .collect();
        for file in files {
            let mut same: Vec<usize> = (0..findings.len())
                .filter(|&i| {
                    let f = &findings[i];
                    f.rule == rule.slug && f.file == file && f.severity > Severity::Info
                })
                .collect();
            if same.len() < 2 {
                continue;
            }
            same.sort_by(|&a, &b| stake(&findings[b]).total_cmp(&stake(&findings[a])));
            let (first, rest) = (same[0], &same[1..]);
            let lead = crate::report::short_name(&findings[first].kernel);
            let rest_stake: f64 = rest.iter().map(|&i| stake(&findings[i])).sum();
            for &i in rest {
                findings[i].severity = Severity::Info;
                findings[i].info_because =
                    Some(format!("the same fix as the {} warning", rule.code));
                findings[i].notes.push(format!(
                    "the same program-wide fix as the {} warning on {lead}",
                    rule.code
                ));
            }
            findings[first].notes.push(format!(
                "{} more kernel(s) get the same fix, {} us more at stake: listed as info",
                rest.len(),
                crate::rules::template::format_number(rest_stake / 1000.0, Some(1))
            ));
        }
    }
}

/// Each kernel's share of the profile's GPU time in %, by name, over all its launches,
/// and that time in ns; helper kernels are left out.
fn kernel_shares(
    profiles: &[Profile],
    origins: &crate::origin::Origins,
    unprofiled_ns: f64,
) -> (HashMap<String, f64>, f64) {
    let mut times: HashMap<String, f64> = HashMap::new();
    let mut total = unprofiled_ns;
    for l in profiles.iter().flat_map(|p| &p.launches) {
        if origins.describe(&l.name).kind == crate::origin::Kind::Helper {
            continue;
        }
        if let Some(d) = l.metrics.get("duration_ns") {
            let d = d * l.count as f64;
            *times.entry(l.name.clone()).or_default() += d;
            total += d;
        }
    }
    if total > 0.0 {
        times.values_mut().for_each(|t| *t = *t / total * 100.0);
    }
    (times, total)
}

/// Findings under a rule's own floor (`info_below_share_pct`: launch-shape and latency
/// findings on launches that take a negligible share of the GPU time) or on a kernel under
/// `--min-share` become info. The floor weighs the launches a finding covers, not its
/// kernel's: two 1-block tail launches of a kernel that otherwise fills the GPU are noise.
fn apply_share_floors(
    findings: &mut [Finding],
    rules: &[Rule],
    shares: &HashMap<String, f64>,
    gpu_time_ns: f64,
    min_share: f64,
) {
    if shares.is_empty() {
        return;
    }
    for f in findings {
        let covered_pct = (f.covered_time_ns)
            .filter(|_| gpu_time_ns > 0.0)
            .map(|t| t / gpu_time_ns * 100.0);
        // A kernel a sample by time left out has no share in the profile, but the launches
        // the trace judged it on have their own time: never read as 0%.
        let share = (shares.get(&f.kernel).copied())
            .or(covered_pct)
            .unwrap_or(0.0);
        let covered = covered_pct.map_or(share, |c| c.min(share));
        let floor = rules
            .iter()
            .find(|r| r.slug == f.rule)
            .and_then(|r| r.info_below_share_pct);
        if f.severity == Severity::Info {
            continue;
        }
        if let Some(floor) = floor.filter(|floor| covered < *floor) {
            f.severity = Severity::Info;
            f.info_because = Some(format!("under {floor}% of the GPU time"));
            f.notes.push(if covered < share - 1e-9 {
                format!(
                    "the {} launch(es) it covers take {covered:.2}% of the profile's GPU time \
                     (the kernel {share:.2}%), under {floor}%: reported as info",
                    f.launch_count
                )
            } else {
                format!(
                    "this kernel takes {share:.2}% of the profile's GPU time over all its launches, under {floor}%: reported as info"
                )
            });
        } else if min_share > 0.0 && share < min_share {
            f.severity = Severity::Info;
            f.info_because = Some(format!("under --min-share {min_share}% of the GPU time"));
            f.notes.push(format!(
                "this kernel takes {share:.2}% of the profile's GPU time, under --min-share {min_share}%"
            ));
        }
    }
}
