//! Which launches the source pass profiles (`--source`): after the sampled profile, one
//! launch of each of the user's kernels whose findings have a cause on a source line, so
//! that the SourceCounters section (several replay passes, and a source page to import
//! per kernel) is paid where it names a line, not on every profiled launch.

use std::collections::HashMap;

use crate::ingest;
use crate::profile::ncu::mangled_fits_kernel_id;
pub use crate::profile::ncu::source_pass::{SourcePlan, SourceTarget};
use crate::rules::Rule;
use crate::rules::engine::Finding;

/// At most this many kernels get their source lines: the findings ranked first by time
/// at stake are the ones a user reads.
pub const MOST_KERNELS: usize = 8;

/// What the source pass runs: ncu's options, what was checked, the program, and the
/// rules folder (its `origins.toml` tells the user's kernels from libraries').
pub struct SourcePass<'a> {
    pub opts: &'a crate::profile::ncu::NcuOptions,
    pub prepared: &'a crate::profile::ncu::Prepared,
    pub program: &'a [String],
    pub rules_dir: Option<&'a str>,
}

impl SourcePass<'_> {
    /// The source pages of one launch of each of the user's kernels whose findings have a
    /// line cause, from `every` launch the trace counted and the `profiled` ones. When the
    /// pass fails, the findings go without their lines.
    pub fn source_lines(
        &self,
        findings: &[Finding],
        rules: &[Rule],
        every: &ingest::Profile,
        profiled: &ingest::Profile,
    ) -> crate::error::Result<Vec<ingest::source::SourceBlock>> {
        let mut origins = crate::origin::load(self.rules_dir)?;
        origins.learn_launching_objects(profiled.launches.iter());
        let users = |k: &str| origins.describe(k).kind == crate::origin::Kind::User;
        let Some(plan) = plan(findings, rules, every, &users) else {
            if self.opts.verbose {
                crate::note!(
                    "source pass: no finding on your kernels has a cause on a source line; none is run"
                );
            }
            return Ok(Vec::new());
        };
        crate::note!(
            "source pass: the source counters of {} kernel(s) with a finding on a line \
             ({} launch(es)); ncu stops {} once they are profiled",
            plan.targets.len(),
            plan.launches,
            self.program[0]
        );
        match crate::profile::ncu::profile_sources(self.opts, self.prepared, &plan, self.program) {
            Ok(blocks) => Ok(blocks),
            Err(e) => {
                crate::warning!("the source pass failed, so no finding names its line: {e}");
                Ok(Vec::new())
            }
        }
    }
}

/// The plan for the findings of rules with a line cause on kernels `is_users` accepts,
/// from every launch the launch trace counted (their ids are the findings' launch ids).
/// `None` when no such finding has a traced launch with a mangled name.
pub fn plan(
    findings: &[Finding],
    rules: &[Rule],
    every: &ingest::Profile,
    is_users: &dyn Fn(&str) -> bool,
) -> Option<SourcePlan> {
    let traced = TracedNumbers::of(every);
    let line_cause = |f: &Finding| {
        (rules.iter())
            .find(|r| r.slug == f.rule)
            .and_then(|r| r.source_lines)
    };
    let mut wanted: Vec<&Finding> = findings
        .iter()
        .filter(|f| line_cause(f).is_some() && is_users(&f.kernel))
        .collect();
    wanted.sort_by(|a, b| {
        let stake = |f: &Finding| f.time_at_stake_ns.unwrap_or(0.0);
        stake(b).total_cmp(&stake(a))
    });
    let mut numbers: Vec<u64> = Vec::new();
    let mut chosen: Vec<(String, String, u64)> = Vec::new();
    for f in wanted {
        if chosen.len() == MOST_KERNELS {
            break;
        }
        if chosen.iter().any(|(kernel, ..)| *kernel == f.kernel) {
            continue;
        }
        let candidates: Vec<(&str, u64)> = std::iter::once(f.launch)
            .chain(f.launches.iter().copied())
            .filter_map(|id| traced.by_id.get(&id).copied())
            .collect();
        let Some(&(mangled, _)) = candidates.first() else {
            continue;
        };
        // A number already asked for serves this kernel too; else its earliest launch,
        // so that ncu can stop the program soonest.
        let number = candidates
            .iter()
            .map(|(_, n)| *n)
            .find(|n| numbers.contains(n))
            .or_else(|| candidates.iter().map(|(_, n)| *n).min())?;
        if !numbers.contains(&number) {
            numbers.push(number);
        }
        chosen.push((f.kernel.clone(), mangled.to_string(), number));
    }
    if chosen.is_empty() {
        return None;
    }
    numbers.sort_unstable();
    let mut launches = 0;
    let targets: Vec<SourceTarget> = chosen
        .into_iter()
        .map(|(kernel, mangled, number)| {
            let reached = traced.launches.get(mangled.as_str()).copied().unwrap_or(0);
            launches += numbers.iter().filter(|&&n| n <= reached).count() as u64;
            SourceTarget {
                block_index: numbers.iter().filter(|&&n| n < number).count(),
                kernel,
                mangled,
                number,
            }
        })
        .collect();
    let needs_sampling = findings.iter().any(|f| {
        targets.iter().any(|t| t.kernel == f.kernel)
            && line_cause(f) == Some(crate::rules::LineCause::StallSamples)
    });
    Some(SourcePlan {
        targets,
        numbers,
        launches,
        needs_sampling,
    })
}

/// Each traced launch's mangled name and number among that kernel's launches, by id, and
/// how many launches each mangled name had.
struct TracedNumbers<'a> {
    by_id: HashMap<u64, (&'a str, u64)>,
    launches: HashMap<&'a str, u64>,
}

impl<'a> TracedNumbers<'a> {
    fn of(every: &'a ingest::Profile) -> TracedNumbers<'a> {
        let mut traced = TracedNumbers {
            by_id: HashMap::new(),
            launches: HashMap::new(),
        };
        for l in &every.launches {
            let Some(mangled) = l.mangled.as_deref().filter(|m| mangled_fits_kernel_id(m)) else {
                continue;
            };
            let n = traced.launches.entry(mangled).or_default();
            *n += 1;
            traced.by_id.insert(l.id, (mangled, *n));
        }
        traced
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::engine::{Judgement, check_in_profile};

    /// The zoo's strided copy with its uncoalesced-load finding, and a launch trace that
    /// saw that launch, by its mangled name.
    fn strided() -> (Vec<Rule>, Finding, ingest::Profile) {
        let rules = crate::rules::load(None).unwrap();
        let zoo = crate::ingest::read_path(&format!(
            "{}/fixtures/h200-zoo/full_raw_base.csv",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let launch = zoo.launches.iter().find(|l| l.id == 1).unwrap().clone();
        let rule = rules.iter().find(|r| r.slug == "uncoalesced-load").unwrap();
        let Judgement::Fires(finding) = check_in_profile(rule, &launch, &zoo.launches, "zoo")
        else {
            panic!("uncoalesced-load does not fire on the strided copy");
        };
        let mut traced = launch;
        traced.mangled = Some("_Z12copy_stridedPKfPfmi".into());
        let every = ingest::Profile {
            launches: vec![traced],
            ..zoo
        };
        (rules, *finding, every)
    }

    /// The section's warp sampling is collected only for a finding whose line cause is
    /// the stall samples (latency-bound here), not for excess sectors.
    #[test]
    fn only_a_finding_on_stall_samples_needs_the_sampling() {
        let (rules, finding, every) = strided();
        let users = |_: &str| true;
        let sectors = plan(std::slice::from_ref(&finding), &rules, &every, &users).unwrap();
        assert_eq!(sectors.targets.len(), 1);
        assert!(!sectors.needs_sampling);
        let mut waits = finding.clone();
        waits.rule = "latency-bound".into();
        let both = plan(&[finding, waits], &rules, &every, &users).unwrap();
        assert!(both.needs_sampling);
    }
}
