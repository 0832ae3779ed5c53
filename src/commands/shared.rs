//! What several commands share: the enabled rules, reading inputs, writing outputs.

use std::io::IsTerminal;

use crate::cli::{ColorChoice, RuleArgs};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ingest::{self, Profile};
use crate::roofline::gpus::{self, GpuPeaks};
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

/// With `--gpu`, warns when the profile was made on another GPU than the one named: its
/// kernels would be measured against the wrong roof.
pub(super) fn warn_gpu_mismatch(
    gpu: Option<&'static crate::roofline::gpus::GpuPeaks>,
    profiles: &[Profile],
) {
    let Some(gpu) = gpu else { return };
    let devices = profiles
        .iter()
        .flat_map(|p| &p.launches)
        .filter_map(|l| l.device.as_deref());
    let mut seen: Vec<&str> = Vec::new();
    for d in devices {
        if seen.contains(&d) {
            continue;
        }
        seen.push(d);
        if crate::roofline::gpus::lookup(d).is_some_and(|g| !std::ptr::eq(g, gpu)) {
            crate::warning!(
                "--gpu {:?}: the profile was made on {d}; its kernels are placed against another GPU's roof",
                gpu.name
            );
        }
    }
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

/// Inputs at least this large get a progress bar when stderr is a terminal.
pub(super) const PROGRESS_MIN_BYTES: u64 = 64 << 20;

/// Streams the exports, lints each launch as it arrives (with a linter), and folds
/// repeats of a kernel into one entry unless `--per-launch`: memory grows with distinct
/// kernels, not launches.
pub(super) fn load(
    files: &[String],
    per_launch: bool,
    jobs: Option<usize>,
    linter: Option<&mut rules::engine::Linter>,
) -> Result<Vec<Profile>> {
    let named: Vec<(&str, &str)> = files
        .iter()
        .map(|f| (f.as_str(), if f == "-" { "<stdin>" } else { f.as_str() }))
        .collect();
    load_as(&named, per_launch, jobs, linter)
}

/// As [`load`], for (path, name in reports) pairs.
pub(super) fn load_as(
    inputs: &[(&str, &str)],
    per_launch: bool,
    jobs: Option<usize>,
    mut linter: Option<&mut rules::engine::Linter>,
) -> Result<Vec<Profile>> {
    let jobs = jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let opts = ingest::ReadOptions {
        jobs: jobs.max(1),
        progress: std::io::stderr().is_terminal().then_some(ingest::Progress {
            min_bytes: PROGRESS_MIN_BYTES,
        }),
        ..ingest::ReadOptions::default()
    };
    let mut profiles = Vec::new();
    for &(path, file) in inputs {
        let mut folder = crate::fold::Folder::new(per_launch);
        let mut from_table = ShapesFromTable::default();
        let mut source = ingest::stream_named(path, file, &opts, &mut |mut launch| {
            from_table.fill(&mut launch);
            if let Some(l) = linter.as_deref_mut() {
                l.add(file, &launch);
            }
            folder.add(launch);
            Ok(())
        })?;
        source.notes.extend(from_table.notes());
        profiles.push(Profile {
            file: file.to_string(),
            page: source.page,
            launches: folder.finish(),
            notes: source.notes,
            source_blocks: Vec::new(),
        });
    }
    Ok(profiles)
}

/// The device shapes the GPU table gave a file's launches: per entry, the keys it filled.
#[derive(Default)]
struct ShapesFromTable(Vec<(&'static GpuPeaks, Vec<&'static str>)>);

impl ShapesFromTable {
    /// A launch whose export names its device but not the device's SM count or warps per
    /// SM takes them from the table.
    fn fill(&mut self, launch: &mut ingest::Launch) {
        let Some(gpu) = launch.device.as_deref().and_then(gpus::lookup) else {
            return;
        };
        let Some(shape) = &gpu.shape else { return };
        let filled = crate::metrics::fill_device_shape(
            &mut launch.metrics,
            f64::from(shape.sms),
            f64::from(shape.max_warps_per_sm),
        );
        if filled.is_empty() {
            return;
        }
        let at = match self.0.iter().position(|(g, _)| std::ptr::eq(*g, gpu)) {
            Some(at) => at,
            None => {
                self.0.push((gpu, Vec::new()));
                self.0.len() - 1
            }
        };
        let keys = &mut self.0[at].1;
        for k in filled {
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
    }

    fn notes(&self) -> impl Iterator<Item = String> + '_ {
        self.0.iter().map(|(gpu, keys)| shape_note(gpu, keys))
    }
}

fn shape_note(gpu: &GpuPeaks, keys: &[&str]) -> String {
    let shape = gpu.shape.as_ref().expect("filled from a shape");
    // What the export lacked, and what the table gave for it.
    let (lacked, taken): (Vec<&str>, Vec<String>) = keys
        .iter()
        .map(|k| match *k {
            "sm_count" => ("its SM count", format!("{} SMs", shape.sms)),
            _ => (
                "its warps per SM",
                format!("{} warps per SM", shape.max_warps_per_sm),
            ),
        })
        .unzip();
    format!(
        "the export names its device but not {}: the launch-shape rules take {} for {} from \
         gpulint's GPU table ({})",
        lacked.join(" or "),
        taken.join(" and "),
        gpu.name,
        shape.source
    )
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
pub(super) fn analysis_settings(rules: &RuleArgs, min_share: f64) -> crate::analysis::Settings {
    crate::analysis::Settings {
        rules_dir: rules.rules.clone(),
        min_share,
        unprofiled_ns: 0.0,
    }
}
