//! Rules are data: one TOML file per rule under `rules/`, embedded at build time, with
//! `--rules DIR` to add or override. This module loads and checks them; [`engine`]
//! applies them to launches.

pub mod engine;
pub mod expr;
mod finding;
mod judge;
pub mod selftest;
pub mod template;

#[cfg(test)]
mod meta_tests;
#[cfg(test)]
mod threshold_cases;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::metrics;
pub use judge::COLLECT_HINT;
pub use template::Template;

include!(concat!(env!("OUT_DIR"), "/embedded_rules.rs"));

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

/// What puts a finding on a source line: the source page's per-line counter that carries
/// its cause.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineCause {
    /// L2 sectors fetched beyond the ideal (coalescing, alignment).
    ExcessSectors,
    /// The warps' stall samples, with each line's top reason (waiting).
    StallSamples,
    /// Shared-memory bank conflicts.
    SharedConflicts,
    /// Local-memory loads and stores (spills, arrays indexed at run time).
    LocalAccesses,
    /// Branches where a warp's threads went different ways.
    DivergentBranches,
    /// Conversions between float and double (float math promoted to double).
    DoubleConversions,
    /// Global atomics and reductions.
    GlobalAtomics,
}

/// Which folded findings a note belongs on, by the grids of the launches they cover: a
/// kernel always launched as one block is a serial step, one whose grid changes from
/// launch to launch follows the work of each step (a wavefront, a shrinking matrix).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GridScope {
    /// Every launch the finding covers has the same number of blocks.
    Same,
    /// The launches it covers have grids of different sizes.
    Varying,
}

impl GridScope {
    /// Whether a finding over grids of `fewest` to `most` blocks is in this scope.
    pub fn holds(self, [fewest, most]: [u64; 2]) -> bool {
        match self {
            GridScope::Same => fewest == most,
            GridScope::Varying => fewest != most,
        }
    }
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A rule file, as written.
/// `context_kernels`: the kernels whose launches `context_launches` counts.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContextFile {
    pattern: String,
    /// Only launches whose grid has a z of 2 or more (batched GEMMs: one slice per batch
    /// and attention head).
    #[serde(default)]
    batched: bool,
}

/// Other kernels of the same profile a rule's judgement depends on.
#[derive(Debug, Clone)]
pub struct Context {
    pub pattern: regex::Regex,
    pub batched: bool,
}

impl Context {
    /// Whether `launch` is one of the kernels `context_launches` counts.
    pub fn counts(&self, launch: &crate::ingest::Launch) -> bool {
        (!self.batched || launch.grid.is_some_and(|g| g[2] >= 2))
            && self.pattern.is_match(&launch.name)
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleFile {
    code: String,
    slug: String,
    category: String,
    severity: Severity,
    summary: String,
    reads: Vec<String>,
    when: String,
    #[serde(default)]
    info_when: Option<String>,
    /// Findings whose launches take less than this share (%) of the profile's GPU time
    /// are info: decided once every launch is read.
    #[serde(default)]
    info_below_share_pct: Option<f64>,
    #[serde(default)]
    params: BTreeMap<String, f64>,
    /// Parameters that are another rule's threshold: `{ PARAM = "RULE.PARAM" }`. Each
    /// takes that parameter's value, also when `--param` moves it, so that a threshold two
    /// rules share is declared once.
    #[serde(default)]
    params_from: BTreeMap<String, String>,
    message: String,
    stake: String,
    /// The stake is the GPU's idle wait before the launches, not a share of the kernel's
    /// own time: it may exceed 1 (a 2 us kernel after a 10 us wait puts 10 us at stake).
    #[serde(default)]
    stake_is_waiting: bool,
    fix: String,
    #[serde(default)]
    evidence: Vec<String>,
    #[serde(default)]
    notes: Vec<NoteFile>,
    #[serde(default)]
    fallback: Option<FallbackFile>,
    /// Stay quiet on a launch that another rule already flags.
    #[serde(default)]
    defer_to_other_findings: bool,
    /// A deferring rule that names a bound without its cause (latency-bound): it judges
    /// after every other rule, deferring ones included, so that a rule naming the cause
    /// (serial-loads) speaks instead.
    #[serde(default)]
    catch_all: bool,
    /// The fix is one switch for the whole program (a precision setting): one warning per
    /// profile, on the kernel with the most at stake; the others are info and point to it.
    #[serde(default)]
    program_wide_fix: bool,
    /// Other kernels of the profile the judgement needs (`context_launches` counts their
    /// launches): the rule judges after the whole profile is read.
    #[serde(default)]
    context_kernels: Option<ContextFile>,
    /// Judge only launches that failed (grid or block of zero); every other rule
    /// skips them.
    #[serde(default)]
    judges_failed_launches: bool,
    /// Which per-line counters of a source page (`--source`, `--source-page`) name the
    /// lines behind a finding.
    #[serde(default)]
    source_lines: Option<LineCause>,
    /// Reported by `gpulint diff` only (regressions); the linter never runs it.
    #[serde(default)]
    diff_only: bool,
    /// A regular expression on the kernel's name: the rule applies only to kernels it
    /// matches (a library's FP32 GEMMs, say).
    #[serde(default)]
    kernel_pattern: Option<String>,
    doc: Doc,
    #[serde(default)]
    tests: Tests,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteFile {
    when: String,
    text: String,
    /// Keep the note only on findings whose launches' grids are all one size, or vary.
    #[serde(default)]
    grids: Option<GridScope>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FallbackFile {
    reads: Vec<String>,
    when: String,
    message: String,
    note: String,
    #[serde(default)]
    evidence: Vec<String>,
}

/// The four sections every rule documents, as ruff and clippy do.
#[derive(Debug, Clone, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Doc {
    pub what: String,
    pub why: String,
    pub example: String,
    pub fix: String,
}

/// Launches where the rule must fire and where it must not: `FILE#ID`, with FILE
/// relative to the rule file. `gpulint test-rules DIR` and the meta-test run them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tests {
    #[serde(default)]
    pub fires: Vec<String>,
    #[serde(default)]
    pub clean: Vec<String>,
}

/// A condition with its source text, for messages.
#[derive(Debug, Clone)]
pub struct Condition {
    pub source: String,
    pub expr: expr::Expr,
}

#[derive(Debug, Clone)]
pub struct Note {
    pub when: Condition,
    pub text: Template,
    /// See `NoteFile::grids`: decided once the launches are folded.
    pub grids: Option<GridScope>,
}

/// A second way to judge when the primary metrics are not in the export, with a note
/// that says what was missing and what it costs.
#[derive(Debug, Clone)]
pub struct Fallback {
    pub reads: Vec<String>,
    /// The slot of each of `reads`, found when the rule is read.
    pub read_slots: Vec<Option<crate::metrics::KeyId>>,
    pub when: Condition,
    pub message: Template,
    pub note: String,
    pub evidence: Vec<String>,
}

fn slots(names: &[String]) -> Vec<Option<crate::metrics::KeyId>> {
    names.iter().map(|n| crate::metrics::KeyId::of(n)).collect()
}

/// A loaded, checked rule.
#[derive(Debug, Clone)]
pub struct Rule {
    pub code: String,
    pub slug: String,
    pub category: String,
    pub severity: Severity,
    pub summary: String,
    pub reads: Vec<String>,
    /// The slot of each of `reads`, found when the rule is read.
    pub read_slots: Vec<Option<crate::metrics::KeyId>>,
    pub when: Condition,
    pub info_when: Option<Condition>,
    /// See `RuleFile::info_below_share_pct`.
    pub info_below_share_pct: Option<f64>,
    pub params: BTreeMap<String, f64>,
    /// See `RuleFile::params_from`: parameter -> (rule slug, its parameter).
    pub params_from: BTreeMap<String, (String, String)>,
    pub message: Template,
    /// The share of the kernel's time the finding puts at stake, 0 to 1.
    pub stake: Condition,
    /// See `RuleFile::stake_is_waiting`: the stake's share is not capped at 1.
    pub stake_is_waiting: bool,
    pub fix: String,
    pub evidence: Vec<String>,
    pub notes: Vec<Note>,
    pub fallback: Option<Fallback>,
    pub defer_to_other_findings: bool,
    /// See `RuleFile::catch_all`.
    pub catch_all: bool,
    pub program_wide_fix: bool,
    pub context: Option<Context>,
    pub judges_failed_launches: bool,
    /// The per-line counters that name the lines behind a finding, with a source page.
    pub source_lines: Option<LineCause>,
    pub diff_only: bool,
    /// The kernels the rule applies to, by name; every kernel when `None`.
    pub kernel_pattern: Option<regex::Regex>,
    pub doc: Doc,
    pub tests: Tests,
    /// Where the rule came from: `rules/x.toml` (embedded) or a path under `--rules`.
    pub origin: String,
}

/// Every metric key the rules read, in any expression, template or evidence list: what
/// `gpulint run` asks ncu for.
pub fn metric_keys(rules: &[Rule]) -> Vec<String> {
    rules.iter().flat_map(Rule::metric_keys).collect()
}

impl Rule {
    /// A key the rule reads that only gpulint's launch trace has, if any: such a rule does
    /// not apply to an ncu export.
    pub fn launch_trace_key(&self) -> Option<&'static str> {
        crate::ingest::trace::TIMELINE_KEYS
            .into_iter()
            .find(|k| self.reads.iter().any(|r| r == k))
    }

    /// Whether the rule applies to a kernel of this name (its `kernel_pattern`).
    pub fn applies_to(&self, kernel: &str) -> bool {
        self.kernel_pattern
            .as_ref()
            .is_none_or(|p| p.is_match(kernel))
    }

    /// Does `selector` (a code, a code prefix, a slug or `ALL`, in any case) pick this
    /// rule?
    pub fn matches(&self, selector: &str) -> bool {
        selector.eq_ignore_ascii_case("ALL")
            || selector.eq_ignore_ascii_case(&self.slug)
            || self.code.starts_with(&selector.to_ascii_uppercase())
    }

    /// Is `name` this rule's slug or code, in any case? The one test `--param`,
    /// `[params]`, `[severity]` and `explain` use, as `--select` does.
    pub fn is_named(&self, name: &str) -> bool {
        name.eq_ignore_ascii_case(&self.slug) || name.eq_ignore_ascii_case(&self.code)
    }

    /// Every metric key the rule may read (conditions, messages, notes, evidence), for
    /// the ncu runner. Parameters are not metrics and are left out.
    pub fn metric_keys(&self) -> Vec<String> {
        let mut names: Vec<String> = self.reads.iter().chain(&self.evidence).cloned().collect();
        self.when.expr.variables(&mut names);
        if let Some(c) = &self.info_when {
            c.expr.variables(&mut names);
        }
        self.message.variables(&mut names);
        self.stake.expr.variables(&mut names);
        for n in &self.notes {
            n.when.expr.variables(&mut names);
            n.text.variables(&mut names);
        }
        if let Some(f) = &self.fallback {
            names.extend(f.reads.iter().chain(&f.evidence).cloned());
            f.when.expr.variables(&mut names);
            f.message.variables(&mut names);
        }
        names.retain(|n| !self.params.contains_key(n));
        names.sort();
        names.dedup();
        names
    }
}

/// Names a condition may use: canonical and derived metrics.
pub fn is_known_metric(name: &str) -> bool {
    metrics::def(name).is_some() || metrics::DERIVED.iter().any(|d| d.key == name)
}

fn condition(
    origin: &str,
    field: &str,
    src: &str,
    params: &BTreeMap<String, f64>,
) -> Result<Condition> {
    let expr = expr::parse(src)
        .map_err(|e| Error::in_file(origin, format!("field `{field}`: {e} in `{src}`")))?;
    check_names(origin, field, &expr, params)?;
    Ok(Condition {
        source: src.to_string(),
        expr,
    })
}

fn check_names(
    origin: &str,
    field: &str,
    expr: &expr::Expr,
    params: &BTreeMap<String, f64>,
) -> Result<()> {
    let mut names = Vec::new();
    expr.variables(&mut names);
    for name in names {
        if !params.contains_key(&name) && !is_known_metric(&name) {
            return Err(Error::in_file(
                origin,
                format!(
                    "field `{field}`: `{name}` is neither a metric gpulint knows nor a parameter of this rule"
                ),
            ));
        }
    }
    Ok(())
}

/// A catch-all judges after the rules that name causes, and must defer to them: else it
/// would speak anyway, doubling their finding.
fn check_catch_all(origin: &str, file: &RuleFile) -> Result<()> {
    if file.catch_all && !file.defer_to_other_findings {
        return Err(Error::in_file(
            origin,
            "field `catch_all`: a catch-all judges after the rules that name causes and \
             defers to them; set `defer_to_other_findings = true` with it",
        ));
    }
    Ok(())
}

/// Parses and checks one rule file.
pub fn parse_rule(origin: &str, text: &str) -> Result<Rule> {
    let file = read_rule_file(origin, text)?;
    check_fields(origin, &file)?;
    let params = &file.params;
    let when = condition(origin, "when", &file.when, params)?;
    let stake = condition(origin, "stake", &file.stake, params)?;
    let info_when = file
        .info_when
        .as_deref()
        .map(|s| condition(origin, "info_when", s, params))
        .transpose()?;
    let message = Template::parse(&file.message)
        .map_err(|e| Error::in_file(origin, format!("field `message`: {e}")))?;
    message.check(|e| check_names(origin, "message", e, params))?;
    let notes = file
        .notes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let text = Template::parse(&n.text)
                .map_err(|e| Error::in_file(origin, format!("field `notes[{i}].text`: {e}")))?;
            text.check(|e| check_names(origin, "notes.text", e, params))?;
            Ok(Note {
                when: condition(origin, &format!("notes[{i}].when"), &n.when, params)?,
                text,
                grids: n.grids,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let fallback = file
        .fallback
        .as_ref()
        .map(|f| {
            let message = Template::parse(&f.message)
                .map_err(|e| Error::in_file(origin, format!("field `fallback.message`: {e}")))?;
            message.check(|e| check_names(origin, "fallback.message", e, params))?;
            Ok::<_, Error>(Fallback {
                reads: f.reads.clone(),
                read_slots: slots(&f.reads),
                when: condition(origin, "fallback.when", &f.when, params)?,
                message,
                note: f.note.clone(),
                evidence: f.evidence.clone(),
            })
        })
        .transpose()?;
    let context = context(origin, &file)?;
    let kernel_pattern = kernel_pattern(origin, file.kernel_pattern.as_deref())?;
    Ok(Rule {
        code: file.code,
        slug: file.slug,
        category: file.category,
        severity: file.severity,
        summary: file.summary,
        read_slots: slots(&file.reads),
        reads: file.reads,
        when,
        info_when,
        info_below_share_pct: file.info_below_share_pct,
        params_from: params_from(origin, &file.params_from)?,
        params: file.params,
        message,
        stake,
        stake_is_waiting: file.stake_is_waiting,
        fix: file.fix,
        evidence: file.evidence,
        notes,
        fallback,
        defer_to_other_findings: file.defer_to_other_findings,
        catch_all: file.catch_all,
        program_wide_fix: file.program_wide_fix,
        context,
        judges_failed_launches: file.judges_failed_launches,
        source_lines: file.source_lines,
        diff_only: file.diff_only,
        kernel_pattern,
        doc: file.doc,
        tests: file.tests,
        origin: origin.to_string(),
    })
}

/// The TOML of a rule file, or an error at its line.
fn read_rule_file(origin: &str, text: &str) -> Result<RuleFile> {
    toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64);
        let msg = format!("malformed rule file: {}", e.message());
        match line {
            Some(l) => Error::at(origin, l, None, msg),
            None => Error::in_file(origin, msg),
        }
    })
}

/// A rule's `context_kernels`, its pattern compiled.
fn context(origin: &str, rule: &RuleFile) -> Result<Option<Context>> {
    // Its launches wait for the whole profile: only the kernels it names, never all.
    if rule.context_kernels.is_some() && rule.kernel_pattern.is_none() {
        return Err(Error::in_file(
            origin,
            "field `context_kernels`: a rule that judges with other kernels' launches needs a \
             `kernel_pattern` (it keeps the launches it judges until the profile is read)",
        ));
    }
    rule.context_kernels
        .as_ref()
        .map(|c| {
            Ok(Context {
                pattern: regex::Regex::new(&c.pattern).map_err(|e| {
                    Error::in_file(
                        origin,
                        format!("field `context_kernels.pattern`: not a regular expression: {e}"),
                    )
                })?,
                batched: c.batched,
            })
        })
        .transpose()
}

fn kernel_pattern(origin: &str, pattern: Option<&str>) -> Result<Option<regex::Regex>> {
    pattern
        .map(|p| {
            regex::Regex::new(p).map_err(|e| {
                Error::in_file(
                    origin,
                    format!("field `kernel_pattern`: not a regular expression: {e}"),
                )
            })
        })
        .transpose()
}

/// The plain checks on a rule file's fields: code and slug shapes, non-empty docs, known
/// metrics, a share floor that is a percentage.
fn check_fields(origin: &str, file: &RuleFile) -> Result<()> {
    check_catch_all(origin, file)?;
    let code_ok = file.code.len() >= 3
        && file.code.starts_with("GL")
        && file.code[2..].chars().all(|c| c.is_ascii_digit());
    if !code_ok {
        return Err(Error::in_file(
            origin,
            format!("field `code`: {:?} is not of the form GL123", file.code),
        ));
    }
    if file.slug.is_empty()
        || !file
            .slug
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '-' || c.is_ascii_digit())
    {
        return Err(Error::in_file(
            origin,
            format!(
                "field `slug`: {:?} must be lowercase words joined by `-`",
                file.slug
            ),
        ));
    }
    for (field, value) in [
        ("doc.what", &file.doc.what),
        ("doc.why", &file.doc.why),
        ("doc.example", &file.doc.example),
        ("doc.fix", &file.doc.fix),
        ("fix", &file.fix),
        ("summary", &file.summary),
    ] {
        if value.trim().is_empty() {
            return Err(Error::in_file(origin, format!("field `{field}` is empty")));
        }
    }
    for name in file.reads.iter().chain(&file.evidence) {
        if !is_known_metric(name) {
            return Err(Error::in_file(
                origin,
                format!("field `reads`/`evidence`: `{name}` is not a metric gpulint knows"),
            ));
        }
    }
    if let Some(share) = file.info_below_share_pct
        && !(0.0..=100.0).contains(&share)
    {
        return Err(Error::in_file(
            origin,
            format!("field `info_below_share_pct`: {share} is not a percentage from 0 to 100"),
        ));
    }
    Ok(())
}

/// The built-in rules, plus those of `extra_dir`: a file there with the slug of a
/// built-in rule replaces it.
pub fn load(extra_dir: Option<&str>) -> Result<Vec<Rule>> {
    let mut rules = EMBEDDED_RULES
        .iter()
        .map(|(origin, text)| parse_rule(origin, text))
        .collect::<Result<Vec<_>>>()?;
    if let Some(dir) = extra_dir {
        for rule in load_dir(dir)? {
            rules.retain(|r| r.slug != rule.slug);
            rules.push(rule);
        }
    }
    check_unique(&rules)?;
    rules.sort_by(|a, b| a.code.cmp(&b.code));
    link_shared_params(&mut rules)?;
    Ok(rules)
}

/// `params_from`'s `"RULE.PARAM"` references, split.
fn params_from(
    origin: &str,
    refs: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, (String, String)>> {
    refs.iter()
        .map(|(param, target)| {
            let (rule, other) = target.split_once('.').ok_or_else(|| {
                Error::in_file(
                    origin,
                    format!("field `params_from.{param}`: {target:?} is not RULE.PARAM"),
                )
            })?;
            Ok((param.clone(), (rule.to_string(), other.to_string())))
        })
        .collect()
}

/// Gives each `params_from` parameter the value of the parameter it follows, in these
/// rules (after the config's and `--param`'s overrides); one that follows a rule not
/// among them keeps its own default.
pub fn link_shared_params(rules: &mut [Rule]) -> Result<()> {
    let mut values = Vec::new();
    for r in rules.iter() {
        for (param, (slug, other)) in &r.params_from {
            let Some(target) = rules.iter().find(|t| t.slug == *slug) else {
                continue;
            };
            let v = target.params.get(other).copied().ok_or_else(|| {
                Error::new(format!(
                    "rule {}: params_from.{param} names {slug}.{other}, which {slug} does not have",
                    r.slug
                ))
            })?;
            values.push((r.slug.clone(), param.clone(), v));
        }
    }
    for (slug, param, v) in values {
        if let Some(r) = rules.iter_mut().find(|r| r.slug == slug) {
            r.params.insert(param, v);
        }
    }
    Ok(())
}

/// The rule files of one directory (every `*.toml` but `origins.toml`), by file name.
pub fn load_dir(dir: &str) -> Result<Vec<Rule>> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Error::in_file(dir, format!("cannot read rules directory: {e}")))?;
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .filter(|p| p.file_name().is_some_and(|n| n != "origins.toml"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let origin = path.display().to_string();
            let text = std::fs::read_to_string(path)
                .map_err(|e| Error::in_file(&origin, format!("cannot read: {e}")))?;
            parse_rule(&origin, &text)
        })
        .collect()
}

/// One rule file, as a list (for `gpulint test-rules FILE`).
pub fn load_file(path: &str) -> Result<Vec<Rule>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
    Ok(vec![parse_rule(path, &text)?])
}

fn check_unique(rules: &[Rule]) -> Result<()> {
    for (i, a) in rules.iter().enumerate() {
        for b in &rules[i + 1..] {
            if a.code == b.code || a.slug == b.slug {
                return Err(Error::in_file(
                    &b.origin,
                    format!(
                        "rule {} `{}` clashes with {} `{}` in {}",
                        b.code, b.slug, a.code, a.slug, a.origin
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// " (did you mean `uncoalesced-load`?)" for a name near one rule's slug (at most a third
/// of its letters off), or nothing.
pub fn did_you_mean(rules: &[Rule], name: &str) -> String {
    let name = name.to_ascii_lowercase();
    rules
        .iter()
        .map(|r| (strsim::levenshtein(&r.slug, &name), &r.slug))
        .filter(|(d, slug)| *d > 0 && *d <= (slug.len() / 3).max(2))
        .min_by_key(|(d, _)| *d)
        .map(|(_, slug)| format!(" (did you mean `{slug}`?)"))
        .unwrap_or_default()
}

/// Finds a rule by slug or code.
pub fn find<'a>(rules: &'a [Rule], name: &str) -> Option<&'a Rule> {
    rules.iter().find(|r| r.is_named(name))
}
