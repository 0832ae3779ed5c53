//! What several commands share: the enabled rules, writing outputs.

use crate::cli::{ColorChoice, RuleArgs};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::rules::{self, Rule};

/// The rules that the options and the config leave switched on.
pub(super) fn enabled_rules(args: &RuleArgs) -> Result<(Vec<Rule>, Config)> {
    let rules = rules::load(args.rules.as_deref())?;
    let mut config = Config::load(args.config.as_deref())?;
    config.merge_cli(&args.select, &args.ignore, &args.params)?;
    let origin = config
        .source
        .clone()
        .unwrap_or_else(|| "gpulint.toml".into());
    let mut rules = config.apply(rules, &origin)?;
    rules::link_shared_params(&mut rules)?;
    if rules.is_empty() {
        return Err(Error::new(
            "no rules left to run after --select/--ignore and the config; `gpulint rules` lists them",
        ));
    }
    Ok((rules, config))
}

/// [`enabled_rules`] for a command with `--verbose`, which then says which config file
/// was used, or that none was found.
pub(super) fn gate_rules(gate: &crate::cli::GateArgs) -> Result<(Vec<Rule>, Config)> {
    let (rules, config) = enabled_rules(&gate.selection)?;
    if gate.read.verbose {
        match &config.source {
            Some(file) => crate::note!("config: {file}"),
            None => crate::note!(
                "config: none (no gpulint.toml, or pyproject.toml with [tool.gpulint], \
                 here or in a folder above)"
            ),
        }
    }
    Ok((rules, config))
}

pub(super) fn gpu_override(
    name: Option<&str>,
) -> Result<Option<&'static crate::roofline::gpus::GpuPeaks>> {
    let Some(name) = name else {
        return Ok(None);
    };
    let found = crate::roofline::gpus::named(name);
    let exact = found.iter().find(|g| g.name.eq_ignore_ascii_case(name));
    match (found.as_slice(), exact) {
        (_, Some(g)) | ([g], None) => Ok(Some(*g)),
        ([], None) => {
            let known: Vec<&str> = crate::roofline::gpus::GPUS.iter().map(|g| g.name).collect();
            Err(Error::new(format!(
                "--gpu {name:?}: not in the table (known: {})",
                known.join(", ")
            )))
        }
        (several, None) => {
            let names: Vec<&str> = several.iter().map(|g| g.name).collect();
            Err(Error::new(format!(
                "--gpu {name:?} could be any of: {}; name one",
                names.join(", ")
            )))
        }
    }
}

/// Writes an output file atomically, refusing to put it over one of the inputs.
pub(super) fn write_output(path: &str, bytes: &[u8], inputs: &[String], what: &str) -> Result<()> {
    refuse_overwriting_input(path, inputs, what)?;
    crate::atomic_file::write(std::path::Path::new(path), bytes)
}

/// Nothing the user gave is overwritten: `path` must not be one of the `inputs`.
pub(super) fn refuse_overwriting_input(path: &str, inputs: &[String], what: &str) -> Result<()> {
    if inputs.iter().any(|f| same_file(f, path)) {
        return Err(Error::in_file(
            path,
            format!("refusing to write the {what} over an input profile"),
        ));
    }
    Ok(())
}

fn same_file(a: &str, b: &str) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// Whether to colour a report: `--color auto` colours one that goes to a terminal (a
/// report sent to a file with `-o` is plain text, whatever the terminal).
pub(super) fn use_color(choice: ColorChoice, out: &super::Output) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none()
                && std::env::var_os("TERM").is_none_or(|t| t != "dumb")
                && out.is_terminal()
        }
    }
}

/// The analysis stage's settings, taken from the command line once.
pub(super) fn analysis_settings(rules: &RuleArgs, min_share: f64) -> crate::pipeline::Settings {
    crate::pipeline::Settings {
        rules_dir: rules.rules.clone(),
        min_share,
        unprofiled_ns: 0.0,
        traced_objects: Vec::new(),
        warm_replay: false,
    }
}
