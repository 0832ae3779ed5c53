//! A rule file as written (its TOML fields) and how it becomes a checked [`Rule`]: its
//! conditions and templates parsed, the names they use checked against the metrics and
//! its parameters, its fields checked against each other.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::{
    Condition, Context, Doc, Fallback, GridScope, LineCause, Note, Rule, Severity, Template, Tests,
    expr, is_known_metric, slots, trace_key,
};
use crate::error::{Error, Result};

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

/// A rule file, as written.
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
    /// The note holds where the deciding value is near its bar on the side a warm L2
    /// pushes it to: in one run, such a warning is info.
    #[serde(default)]
    unsettled_in_one_run: bool,
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
    for (name, &value) in params {
        if let Err(range) = super::check_param_value(name, value) {
            return Err(Error::in_file(
                origin,
                format!("field `params.{name}`: {value} is not a number in {range}"),
            ));
        }
    }
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
    let fix_template = Template::parse(&file.fix)
        .map_err(|e| Error::in_file(origin, format!("field `fix`: {e}")))?;
    fix_template.check(|e| check_names(origin, "fix", e, params))?;
    let notes = notes(origin, &file.notes, params)?;
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
        trace_key: trace_key(&file.reads),
        reads: file.reads,
        when,
        info_when,
        info_below_share_pct: file.info_below_share_pct,
        params_from: params_from(origin, &file.params_from)?,
        params: file.params,
        message,
        stake,
        stake_is_waiting: file.stake_is_waiting,
        fix_template,
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

/// A rule's `[[notes]]`, their conditions and templates parsed and checked.
fn notes(origin: &str, notes: &[NoteFile], params: &BTreeMap<String, f64>) -> Result<Vec<Note>> {
    (notes.iter().enumerate())
        .map(|(i, n)| {
            let text = Template::parse(&n.text)
                .map_err(|e| Error::in_file(origin, format!("field `notes[{i}].text`: {e}")))?;
            text.check(|e| check_names(origin, "notes.text", e, params))?;
            Ok(Note {
                when: condition(origin, &format!("notes[{i}].when"), &n.when, params)?,
                text,
                grids: n.grids,
                unsettled_in_one_run: n.unsettled_in_one_run,
            })
        })
        .collect()
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
