//! `gpulint.toml`: which rules run, their thresholds and severities, and kernels to
//! leave alone. Given with `--config`, or found as ruff finds its own: the nearest
//! `gpulint.toml`, or `pyproject.toml` with a `[tool.gpulint]` table, in the working
//! directory or a folder above it, up to the repository's root. A config found that
//! another user owns is passed over with a warning, as git refuses a repository another
//! user owns: it could hide findings, or hand ncu a library to load into the program.

use std::collections::BTreeMap;

use regex::Regex;
use serde::Deserialize;

use crate::error::{Error, Result};
use crate::rules::{Rule, Severity};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ConfigFile {
    select: Option<Vec<String>>,
    #[serde(default)]
    ignore: Vec<String>,
    #[serde(default)]
    params: BTreeMap<String, BTreeMap<String, f64>>,
    #[serde(default)]
    severity: BTreeMap<String, Severity>,
    #[serde(default)]
    ignore_kernel: Vec<KernelIgnoreFile>,
    #[serde(default)]
    ncu_args: Vec<String>,
    launch_trace: Option<bool>,
    #[serde(default)]
    diff: DiffConfig,
}

/// `[diff]`: bands per gated metric (`sectors_per_request_ld = "5%"` or an absolute
/// number) and whether duration is gated.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct DiffConfig {
    #[serde(default)]
    pub thresholds: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub gate_duration: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelIgnoreFile {
    pattern: String,
    #[serde(default)]
    rules: Vec<String>,
}

/// Kernels whose name matches `pattern` skip `rules` (all rules when empty).
#[derive(Debug, Clone)]
pub struct KernelIgnore {
    pub pattern: Regex,
    pub rules: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Config {
    pub select: Option<Vec<String>>,
    pub ignore: Vec<String>,
    pub params: BTreeMap<String, BTreeMap<String, f64>>,
    pub severity: BTreeMap<String, Severity>,
    pub ignore_kernel: Vec<KernelIgnore>,
    /// Extra arguments for every ncu run (`ncu-args = ["--clock-control", "none"]`).
    pub ncu_args: Vec<String>,
    /// `launch-trace = false`: `gpulint run` never runs the program under the launch
    /// tracer (as `--no-launch-trace`).
    pub launch_trace: Option<bool>,
    pub diff: DiffConfig,
    /// The file it was read from (`pyproject.toml` for its `[tool.gpulint]` table);
    /// `None` when no config was found.
    pub source: Option<String>,
    /// Which settings the command line gave: a bad one is reported against its flag, not
    /// the file it is merged into.
    pub from_cli: FromCli,
}

/// The settings [`Config::merge_cli`] took from the command line.
#[derive(Debug, Clone, Default)]
pub struct FromCli {
    select: bool,
    ignore: std::collections::BTreeSet<String>,
    /// `(rule, parameter)` to the `--param` text that set it.
    params: BTreeMap<(String, String), String>,
}

/// Where a setting came from, for its error.
enum Given<'a> {
    File(&'a str),
    /// The flag's text: `--param pipe-bound.min_pipe_pct=60`.
    Flag(&'a str),
}

impl Given<'_> {
    /// The error for a bad setting: `file: field `params.RULE`: ...`, or `--param X: ...`.
    fn error(&self, field: &str, what: String) -> Error {
        match self {
            Given::File(origin) => Error::in_file(origin, format!("field `{field}`: {what}")),
            Given::Flag(flag) => Error::new(format!("{flag}: {what}")),
        }
    }
}

/// A config file found by [`find`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    GpulintToml(std::path::PathBuf),
    /// A `pyproject.toml` with a `[tool.gpulint]` table.
    Pyproject(std::path::PathBuf),
}

/// What the search for a config found: the config, and the candidates passed over
/// because another user owns them (path, owner's uid).
#[derive(Debug, Default)]
pub struct Search {
    pub found: Option<Found>,
    pub foreign: Vec<(std::path::PathBuf, u32)>,
}

/// The nearest config from `start` up to the repository's root (the first folder that
/// holds `.git`; with none, up to `/`): in each folder `gpulint.toml` first, then a
/// `pyproject.toml` that has `[tool.gpulint]` (one without it is passed over, as ruff
/// passes over a `pyproject.toml` without `[tool.ruff]`). A candidate not owned by `me`
/// is passed over and listed; where owners are unknown (`me` is `None`), none is.
pub fn find(start: &std::path::Path, me: Option<u32>) -> Search {
    let mut search = Search::default();
    let foreign = |path: &std::path::Path| {
        let owner = std::fs::metadata(path)
            .ok()
            .and_then(|m| crate::platform::owner(&m));
        owner.filter(|&o| me.is_some_and(|me| o != me))
    };
    for dir in start.ancestors() {
        let own = dir.join("gpulint.toml");
        let pyproject = dir.join("pyproject.toml");
        let candidate = if own.is_file() {
            Some(Found::GpulintToml(own))
        } else if pyproject.is_file() && has_gpulint_table(&pyproject) {
            Some(Found::Pyproject(pyproject))
        } else {
            None
        };
        if let Some(candidate) = candidate {
            let (Found::GpulintToml(path) | Found::Pyproject(path)) = &candidate;
            match foreign(path) {
                Some(owner) => search.foreign.push((path.clone(), owner)),
                None => {
                    search.found = Some(candidate);
                    return search;
                }
            }
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    search
}

fn has_gpulint_table(pyproject: &std::path::Path) -> bool {
    std::fs::read_to_string(pyproject)
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .is_some_and(|t| t.get("tool").and_then(|t| t.get("gpulint")).is_some())
}

/// ncu's options that a config may not give: they load code into the program or into
/// ncu (a library, an injection, section files with Python rules), or choose which files
/// ncu reads its options from or writes to. The user gives them on the command line.
const NCU_ARGS_COMMAND_LINE_ONLY: &[&str] = &[
    "--preload-library",
    "--injection-path-32",
    "--injection-path-64",
    "--section-folder",
    "--section-folder-recursive",
    "--config-file",
    "--config-file-path",
    "-o",
    "--export",
    "--log-file",
    "--import",
];

fn command_line_only(arg: &str) -> bool {
    let name = arg.split('=').next().unwrap_or(arg);
    NCU_ARGS_COMMAND_LINE_ONLY.contains(&name) || (arg.starts_with("-o") && !arg.starts_with("--"))
}

/// Sets one `[params.RULE]` entry, refusing a name the rule lacks and one that follows
/// another rule's parameter (`params_from`).
fn set_param(rule: &mut Rule, rule_name: &str, k: &str, v: f64, given: &Given) -> Result<()> {
    let field = format!("params.{rule_name}");
    if let Some((slug, other)) = rule.params_from.get(k) {
        return Err(given.error(
            &field,
            format!("{k} follows {slug}.{other}; set that instead"),
        ));
    }
    if !rule.params.contains_key(k) {
        let names: Vec<&String> = rule.params.keys().collect();
        let what = match given {
            Given::Flag(_) => format!("rule {rule_name} has no parameter {k:?} (it has {names:?})"),
            Given::File(_) => format!("rule has no parameter {k:?} (it has {names:?})"),
        };
        return Err(given.error(&field, what));
    }
    if let Err(range) = crate::rules::check_param_value(k, v) {
        return Err(given.error(&field, format!("{k} = {v} is not a number in {range}")));
    }
    rule.params.insert(k.to_string(), v);
    Ok(())
}

impl Config {
    /// Reads `path`, or the config `find` finds from the working directory when `path`
    /// is `None`; no config is the defaults.
    pub fn load(path: Option<&str>) -> Result<Config> {
        let found = match path {
            Some(p) if p.ends_with("pyproject.toml") => Found::Pyproject(p.into()),
            Some(p) => Found::GpulintToml(p.into()),
            None => {
                let Ok(cwd) = std::env::current_dir() else {
                    return Ok(Config::default());
                };
                let search = find(&cwd, crate::platform::current_uid());
                for (path, owner) in &search.foreign {
                    crate::warning!(
                        "{} is passed over: user {owner} owns it, not you; \
                         `--config {}` uses it",
                        crate::printable::path(path),
                        crate::printable::path(path)
                    );
                }
                match search.found {
                    Some(found) => found,
                    None => return Ok(Config::default()),
                }
            }
        };
        let (Found::GpulintToml(file) | Found::Pyproject(file)) = &found;
        let shown = file.display().to_string();
        let text = std::fs::read_to_string(file)
            .map_err(|e| Error::in_file(&shown, format!("cannot read config: {e}")))?;
        let mut config = match found {
            Found::GpulintToml(_) => Config::parse(&shown, &text)?,
            Found::Pyproject(_) => Config::parse_pyproject(&shown, &text)?,
        };
        config.source = Some(shown);
        Ok(config)
    }

    /// The `[tool.gpulint]` table of a `pyproject.toml`, with the same keys as
    /// `gpulint.toml`.
    pub fn parse_pyproject(origin: &str, text: &str) -> Result<Config> {
        let doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            Error::in_file(origin, format!("malformed: {}", e.message()))
        })?;
        let Some(table) = doc.get("tool").and_then(|t| t.get("gpulint")) else {
            return Err(Error::in_file(origin, "no [tool.gpulint] table"));
        };
        let file = ConfigFile::deserialize(table.clone()).map_err(|e| {
            Error::in_file(origin, format!("malformed [tool.gpulint]: {}", e.message()))
        })?;
        Config::from_file(origin, file)
    }

    pub fn parse(origin: &str, text: &str) -> Result<Config> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].lines().count().max(1) as u64);
            match line {
                Some(l) => Error::at(
                    origin,
                    l,
                    None,
                    format!("malformed config: {}", e.message()),
                ),
                None => Error::in_file(origin, format!("malformed config: {}", e.message())),
            }
        })?;
        Config::from_file(origin, file)
    }

    fn from_file(origin: &str, file: ConfigFile) -> Result<Config> {
        if let Some(arg) = file.ncu_args.iter().find(|a| command_line_only(a)) {
            return Err(Error::in_file(
                origin,
                format!(
                    "field `ncu-args`: {arg:?} is taken from the command line only \
                     (`--ncu-arg`): from a config, an option that loads a library into the \
                     program or ncu, or names the files ncu reads its options from or \
                     writes to, would act on whoever runs gpulint in this folder"
                ),
            ));
        }
        let ignore_kernel = file
            .ignore_kernel
            .into_iter()
            .map(|k| {
                Regex::new(&k.pattern)
                    .map(|pattern| KernelIgnore {
                        pattern,
                        rules: k.rules,
                    })
                    .map_err(|e| {
                        Error::in_file(origin, format!("field `ignore-kernel.pattern`: {e}"))
                    })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Config {
            select: file.select,
            ignore: file.ignore,
            params: file.params,
            severity: file.severity,
            ignore_kernel,
            ncu_args: file.ncu_args,
            launch_trace: file.launch_trace,
            diff: file.diff,
            source: None,
            from_cli: FromCli::default(),
        })
    }

    /// Adds command-line selections and thresholds on top of the file.
    pub fn merge_cli(
        &mut self,
        select: &[String],
        ignore: &[String],
        thresholds: &[String],
    ) -> Result<()> {
        if !select.is_empty() {
            self.select = Some(select.to_vec());
            self.from_cli.select = true;
        }
        self.ignore.extend(ignore.iter().cloned());
        self.from_cli.ignore.extend(ignore.iter().cloned());
        for t in thresholds {
            let (lhs, value) = t
                .split_once('=')
                .ok_or_else(|| Error::new(format!("--param {t:?}: expected RULE.PARAM=VALUE")))?;
            let (rule, param) = lhs
                .split_once('.')
                .ok_or_else(|| Error::new(format!("--param {t:?}: expected RULE.PARAM=VALUE")))?;
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| Error::new(format!("--param {t:?}: {value:?} is not a number")))?;
            self.params
                .entry(rule.to_string())
                .or_default()
                .insert(param.to_string(), value);
            self.from_cli.params.insert(
                (rule.to_string(), param.to_string()),
                format!("--param {t}"),
            );
        }
        Ok(())
    }

    /// Applies the config to the rules: drops unselected ones, sets parameters and
    /// severities. Unknown rule or parameter names are errors, so typos do not pass
    /// silently.
    pub fn apply(&self, mut rules: Vec<Rule>, origin: &str) -> Result<Vec<Rule>> {
        let known = |sel: &str, field: &str, from_cli: bool| {
            if rules.iter().any(|r| r.matches(sel)) {
                return Ok(());
            }
            let hint = crate::rules::did_you_mean(&rules, sel);
            Err(if from_cli {
                Error::new(format!(
                    "--{field} {sel}: no rule matches{hint}; `gpulint rules` lists them"
                ))
            } else {
                Error::in_file(
                    origin,
                    format!("field `{field}`: no rule matches {sel:?}{hint}"),
                )
            })
        };
        for s in self.select.iter().flatten() {
            known(s, "select", self.from_cli.select)?;
        }
        for s in &self.ignore {
            known(s, "ignore", self.from_cli.ignore.contains(s))?;
        }
        let suggest = |name: &str| crate::rules::did_you_mean(&rules, name);
        let hints: Vec<(String, String)> = self
            .params
            .keys()
            .chain(self.severity.keys())
            .map(|n| (n.clone(), suggest(n)))
            .collect();
        let hint = |name: &str| {
            hints
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, h)| h.clone())
                .unwrap_or_default()
        };
        for (rule_name, params) in &self.params {
            let given = |k: &str| match self.from_cli.params.get(&(rule_name.clone(), k.into())) {
                Some(flag) => Given::Flag(flag),
                None => Given::File(origin),
            };
            let Some(rule) = rules.iter_mut().find(|r| r.is_named(rule_name)) else {
                let first = params.keys().next().map_or("", String::as_str);
                let what = format!("no rule {rule_name:?}{}", hint(rule_name));
                return Err(given(first).error("params", what));
            };
            for (k, v) in params {
                set_param(rule, rule_name, k, *v, &given(k))?;
            }
        }
        for (rule_name, sev) in &self.severity {
            let rule = rules
                .iter_mut()
                .find(|r| r.is_named(rule_name))
                .ok_or_else(|| {
                    Error::in_file(
                        origin,
                        format!("field `severity`: no rule {rule_name:?}{}", hint(rule_name)),
                    )
                })?;
            rule.severity = *sev;
        }
        rules.retain(|r| {
            let selected = self
                .select
                .as_ref()
                .is_none_or(|sel| sel.iter().any(|s| r.matches(s)));
            selected && !self.ignore.iter().any(|s| r.matches(s))
        });
        Ok(rules)
    }

    /// Whether `rule` is switched off for the kernel `name`.
    pub fn kernel_ignored(&self, name: &str, rule: &Rule) -> bool {
        self.ignore_kernel.iter().any(|k| {
            k.pattern.is_match(name)
                && (k.rules.is_empty() || k.rules.iter().any(|s| rule.matches(s)))
        })
    }
}
