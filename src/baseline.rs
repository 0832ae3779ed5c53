//! Baselines: one entry per kernel with the gated metrics of its launches (count, mean and
//! spread) and the lint findings it had, small and stable enough to commit.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::ingest::{Launch, Profile};
use crate::rules::engine::{Finding, Skip};

/// Bumped when the file's meaning changes; a newer file is refused, not misread.
pub const FORMAT: u32 = 1;

/// The metrics a baseline keeps and `diff` gates by default.
pub const GATED: &[&str] = &[
    "sectors_per_request_ld",
    "sectors_per_request_st",
    "bytes_per_sector_ld",
    "bytes_per_sector_st",
    "theoretical_occupancy_pct",
    "registers_per_thread",
    "local_sectors",
    "bank_conflict_share",
    "duration_ns",
];

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct KernelEntry {
    pub name: String,
    pub grid: Option<[u64; 3]>,
    pub block: Option<[u64; 3]>,
    /// Launches summarised (`launches` in baselines written before 0.2).
    #[serde(rename = "launch_count", alias = "launches")]
    pub launches: u64,
    pub metrics: BTreeMap<String, Stat>,
    /// Slugs of the lint findings at warning or above on this kernel.
    pub findings: Vec<String>,
    /// Slugs of the rules the export was too thin to judge on this kernel: `diff` never
    /// calls a baseline finding on one of these "fixed". Absent in baselines before 0.3.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_judged: Vec<String>,
    /// Where the kernel's first launch is in the export it was built from, for report
    /// locations. Not saved: a committed baseline carries no paths.
    #[serde(skip)]
    pub source: Option<(String, u64)>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    pub format: u32,
    pub gpulint_version: String,
    pub ncu_version: Option<String>,
    pub device: Option<String>,
    /// The slugs of the lint rules that ran, sorted: `diff` compares findings on the rules
    /// both sides ran. Absent in baselines written before 0.2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<String>>,
    /// Keyed by kernel name, with the launch configuration appended only where one name
    /// runs with several.
    pub kernels: BTreeMap<String, KernelEntry>,
}

fn config_label(grid: Option<[u64; 3]>, block: Option<[u64; 3]>) -> String {
    format!(
        "grid {} block {}",
        crate::kernel::dim3(grid),
        crate::kernel::dim3(block)
    )
}

/// Kernel name, grid and block.
type KernelKey = (String, Option<[u64; 3]>, Option<[u64; 3]>);

/// Builds a baseline from parsed profiles, the findings on them and the rules that
/// could not judge them (`skips`).
pub fn build(
    profiles: &[Profile],
    findings: &[Finding],
    skips: &[Skip],
    needs_launch_trace: &[String],
    rules: &[crate::rules::Rule],
    ncu_version: Option<String>,
) -> Baseline {
    // Group launches by (name, grid, block).
    let mut groups: BTreeMap<KernelKey, Vec<(&str, &Launch)>> = BTreeMap::new();
    for p in profiles {
        for l in &p.launches {
            groups
                .entry((l.name.clone(), l.grid, l.block))
                .or_default()
                .push((&p.file, l));
        }
    }
    let mut configs_per_name: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, _, _) in groups.keys() {
        *configs_per_name.entry(name.as_str()).or_default() += 1;
    }
    let mut kernels = BTreeMap::new();
    for ((name, grid, block), launches) in &groups {
        let key = if configs_per_name[name.as_str()] > 1 {
            format!("{name} [{}]", config_label(*grid, *block))
        } else {
            name.clone()
        };
        let metrics = gated_stats(launches);
        let mut slugs: Vec<String> = findings
            .iter()
            .filter(|f| {
                launches.iter().any(|(file, l)| f.covers(file, l))
                    && f.severity >= crate::rules::Severity::Warning
            })
            .map(|f| f.rule.clone())
            .collect();
        slugs.sort();
        slugs.dedup();
        // Skips are kept per kernel name: a rule that could not judge one configuration
        // of a name counts as not judged on all of them, which errs towards "not
        // compared" rather than "fixed".
        // So are the rules that judge only from a launch trace, where there was none.
        let mut not_judged: Vec<String> = skips
            .iter()
            .filter(|s| s.kernel == *name)
            .map(|s| s.rule.clone())
            .chain(needs_launch_trace.iter().cloned())
            .collect();
        not_judged.sort();
        not_judged.dedup();
        kernels.insert(
            key,
            KernelEntry {
                name: name.clone(),
                grid: *grid,
                block: *block,
                launches: launches.iter().map(|(_, l)| l.count).sum(),
                metrics,
                findings: slugs,
                not_judged,
                source: launches.first().map(|(f, l)| (f.to_string(), l.line)),
            },
        );
    }
    let device = profiles
        .iter()
        .flat_map(|p| &p.launches)
        .find_map(|l| l.device.clone());
    Baseline {
        format: FORMAT,
        gpulint_version: env!("CARGO_PKG_VERSION").to_string(),
        ncu_version,
        device,
        rules: Some(ran(rules)),
        kernels,
    }
}

/// The gated metrics of one kernel's launches: count-weighted means and the range.
fn gated_stats(launches: &[(&str, &Launch)]) -> BTreeMap<String, Stat> {
    let mut metrics = BTreeMap::new();
    for m in GATED {
        // Entries may be folded launches: weigh each mean by its count, and take
        // the range from its spread.
        let (mut sum, mut n) = (0.0, 0u64);
        let (mut min, mut max) = (f64::INFINITY, f64::NEG_INFINITY);
        for (_, l) in launches {
            let Some(v) = l.metrics.get(m) else { continue };
            sum += v * l.count as f64;
            n += l.count;
            let [lo, hi] = l.spread.get(*m).copied().unwrap_or([*v, *v]);
            min = min.min(lo);
            max = max.max(hi);
        }
        if n == 0 {
            continue;
        }
        // Rounded to a thousandth so the committed file does not churn on float noise.
        let mean = (sum / n as f64 * 1000.0).round() / 1000.0;
        metrics.insert(m.to_string(), Stat { mean, min, max });
    }
    metrics
}

/// The slugs of the lint rules a run used (the regression gate GL900 is not a lint).
fn ran(rules: &[crate::rules::Rule]) -> Vec<String> {
    let mut slugs: Vec<String> = rules
        .iter()
        .filter(|r| !r.diff_only)
        .map(|r| r.slug.clone())
        .collect();
    slugs.sort();
    slugs
}

/// Refuses a baseline that gates nothing: one that ran no rule, or holds no kernel, or a
/// kernel with no gated metric (a hollowed file would pass any regression).
pub fn check_gates_something(b: &Baseline, file: &str) -> Result<()> {
    let why = if b.rules.as_ref().is_some_and(Vec::is_empty) {
        Some("its `rules` is empty: it gates no finding".to_string())
    } else if b.kernels.is_empty() {
        Some("it holds no kernel".to_string())
    } else {
        b.kernels
            .iter()
            .find(|(_, k)| !k.metrics.keys().any(|m| GATED.contains(&m.as_str())))
            .map(|(key, _)| format!("kernel {key} holds no gated metric"))
    };
    match why {
        Some(why) => Err(Error::in_file(
            file,
            format!(
                "this baseline gates nothing: {why}; write it again with `gpulint baseline` \
                 from an export with the gated metrics"
            ),
        )),
        None => Ok(()),
    }
}

/// Reads a saved baseline; a newer format is an error that says to upgrade.
pub fn parse(file: &str, text: &str) -> Result<Baseline> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        Error::at(
            file,
            e.line() as u64,
            Some(e.column() as u64),
            format!("not a gpulint baseline: {e}"),
        )
    })?;
    match value.get("format").and_then(|f| f.as_u64()) {
        Some(f) if f > FORMAT as u64 => {
            let by = value
                .get("gpulint_version")
                .and_then(|v| v.as_str())
                .unwrap_or("a newer gpulint");
            return Err(Error::in_file(
                file,
                format!(
                    "baseline format {f} was written by gpulint {}; this gpulint ({}) reads format {FORMAT}: upgrade gpulint",
                    crate::printable::printable(by),
                    env!("CARGO_PKG_VERSION")
                ),
            ));
        }
        Some(_) => {}
        None => {
            return Err(Error::in_file(
                file,
                "not a gpulint baseline: field `format` is missing",
            ));
        }
    }
    let mut b: Baseline = serde_json::from_value(value)
        .map_err(|e| Error::in_file(file, format!("not a gpulint baseline: {e}")))?;
    b.make_printable();
    Ok(b)
}

impl Baseline {
    /// A committed baseline is a file a pull request can change: its names are made safe
    /// to print as a profile's are (see [`crate::printable`]).
    fn make_printable(&mut self) {
        use crate::printable::make_printable;
        make_printable(&mut self.gpulint_version);
        for s in self.ncu_version.iter_mut().chain(self.device.iter_mut()) {
            make_printable(s);
        }
        self.rules.iter_mut().flatten().for_each(make_printable);
        let kernels = std::mem::take(&mut self.kernels);
        for (mut key, mut k) in kernels {
            make_printable(&mut key);
            make_printable(&mut k.name);
            k.findings.iter_mut().for_each(make_printable);
            k.not_judged.iter_mut().for_each(make_printable);
            self.kernels.insert(key, k);
        }
    }
}

/// The baseline as committed: pretty, with sorted keys, ending in a newline.
pub fn to_json(b: &Baseline) -> String {
    // serde_json's Value map is a BTreeMap here (no preserve_order), so keys come sorted.
    let value = serde_json::to_value(b).expect("plain data");
    serde_json::to_string_pretty(&value).expect("plain data") + "\n"
}
