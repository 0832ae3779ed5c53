//! `--source` after a sample by time. Where the traced run counted the user's kernels'
//! lines (`crate::ingest::source::traced`), the sample's run takes no section, and a pass
//! after it reads only what those counts lack ([`PassFor::NotTraced`]). Otherwise, where
//! the user's kernels take most of the sample,
//! the source counters ride in its own run (gpulint's section of the columns it reads),
//! and ncu prints the launches' source pages as it profiles; the user's sampled kernels'
//! are read ([`source_counters`]). The warps' stall samples cost a replay pass on every
//! launch: a sample of at most 10 launches takes them too ([`stall_samples_in_run`]),
//! unless the last run of the command had no finding that reads them
//! ([`super::source_memory`]); otherwise a pass after the sample ([`SourcePass`]) takes
//! them, on one launch of each of the user's kernels ([`UserKernels`]) with a finding that
//! reads them. Where the sample is mostly library kernels, that pass reads every source
//! counter.

use std::collections::HashMap;

use crate::ingest;
use crate::profile::ncu::mangled_fits_kernel_id;
pub use crate::profile::ncu::source_pass::{SourcePlan, SourceTarget};
use crate::rules::Rule;
use crate::rules::engine::Finding;

/// At most this many kernels get their source lines: the findings ranked first by time
/// at stake are the ones a user reads.
pub const MOST_KERNELS: usize = 8;

/// Where `--source` reads the source counters after a sample by time that names its
/// kernels.
#[derive(Debug, PartialEq)]
pub enum SourceCounters {
    /// In the sample's own run, with the pages of these kernels (the user's, by the names
    /// the trace gives them) read from the pages ncu prints; a pass follows only for the
    /// stall samples, and only after a sample of more than 10 launches.
    InSampleRun(Vec<String>),
    /// In a pass of its own after the sample, on the kernels with a finding on a line.
    InPass,
}

/// Where the source counters are read, for a sample of these kernels (`mangled`) at these
/// launch numbers: in the sample's own run when the user's kernels take at least half its
/// launches, their pages those of the user's sampled kernels with the most traced GPU time
/// (at most [`MOST_KERNELS`]). The section costs every launch of the run, 0.16-0.5 s a
/// launch on the H200, where a pass of its own costs ncu's start with the program (1.2-1.5
/// s) and 0.3-0.45 s a kernel (lab/runs/2026-12-03-source-cost.txt): a sample of library
/// kernels, whose lines are not the user's, is cheaper left to a pass.
pub fn source_counters(
    mangled: &[String],
    numbers: &[u64],
    every: &ingest::Profile,
    rules_dir: Option<&str>,
) -> crate::error::Result<SourceCounters> {
    let users_kernels = UserKernels::load(rules_dir, every)?;
    // Per sampled kernel: its traced name, launches and GPU time.
    let mut traced: HashMap<&str, (&str, u64, f64)> = HashMap::new();
    for l in &every.launches {
        let Some(m) = l
            .mangled
            .as_deref()
            .filter(|m| mangled.iter().any(|s| s == m))
        else {
            continue;
        };
        let t = traced.entry(m).or_insert((l.name.as_str(), 0, 0.0));
        t.1 += 1;
        t.2 += l.metrics.get("duration_ns").copied().unwrap_or(0.0);
    }
    let (mut users, mut user_launches, mut launches) = (Vec::new(), 0, 0);
    for (name, count, time) in traced.into_values() {
        let sampled = numbers.iter().filter(|&&n| n <= count).count();
        launches += sampled;
        if users_kernels.contains(name) {
            user_launches += sampled;
            users.push((name, time));
        }
    }
    if users.is_empty() || 2 * user_launches < launches {
        return Ok(SourceCounters::InPass);
    }
    users.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    Ok(SourceCounters::InSampleRun(
        users
            .into_iter()
            .take(MOST_KERNELS)
            .map(|(k, _)| k.to_string())
            .collect(),
    ))
}

/// The most launches a sample may take for the warps' stall samples to ride in its own run.
/// The sampling costs the run 0.1-0.2 s a launch, where a pass of its own costs 2.7-3.5 s,
/// and a finding that reads stall samples (latency-bound, global-accumulator,
/// serial-loads) came on 6 of 12 programs measured with `--source` on the H200: in the run
/// it costs less on average while 0.15 s x launches < 0.5 x 2.9 s, about ten launches
/// (lab/runs/2026-12-03-source-cost.txt, sixteenth session).
pub const STALL_SAMPLES_IN_RUN_MOST_LAUNCHES: u64 = 10;

/// Whether a sample of `launches` launches takes the warps' stall samples in its own run.
pub fn stall_samples_in_run(launches: u64) -> bool {
    launches <= STALL_SAMPLES_IN_RUN_MOST_LAUNCHES
}

/// Which findings' lines a pass after the sample reads.
#[derive(Debug, Clone, PartialEq)]
pub enum PassFor {
    /// Every finding with a line cause: nothing before read the source counters.
    All,
    /// Those on the warps' stall samples: the sample's own run read the other counters.
    StallSamples,
    /// Those the traced run did not give: the float-double conversions (told by their
    /// SASS opcodes), the warps' stall samples on a kernel it did not `sample`, and every
    /// other cause on a kernel whose first launch it did not `count` (by the names its
    /// blocks give).
    NotTraced {
        counted: Vec<String>,
        sampled: Vec<String>,
    },
}

impl PassFor {
    /// Whether a finding on the user's `kernel` with line `cause` waits for the pass.
    fn wants(&self, cause: crate::rules::LineCause, kernel: &str) -> bool {
        use crate::rules::LineCause::{DoubleConversions, StallSamples};
        let base = crate::ingest::base_name(kernel);
        let has = |kernels: &[String]| kernels.iter().any(|k| crate::ingest::base_name(k) == base);
        match self {
            PassFor::All => true,
            PassFor::StallSamples => cause == StallSamples,
            PassFor::NotTraced { .. } if cause == DoubleConversions => true,
            PassFor::NotTraced { sampled, .. } if cause == StallSamples => !has(sampled),
            PassFor::NotTraced { counted, .. } => !has(counted),
        }
    }

    fn what(&self) -> &'static str {
        match self {
            PassFor::StallSamples => "in the warps' stall samples",
            PassFor::NotTraced { .. } => "that the traced run did not give",
            PassFor::All => "on a source line",
        }
    }
}

/// What the source pass runs: ncu's options, what was checked, and the program.
pub struct SourcePass<'a> {
    opts: &'a crate::profile::ncu::NcuOptions,
    prepared: &'a crate::profile::ncu::Prepared,
    program: &'a [std::ffi::OsString],
    /// The findings whose lines it reads.
    pass_for: PassFor,
}

impl<'a> SourcePass<'a> {
    pub fn new(
        opts: &'a crate::profile::ncu::NcuOptions,
        prepared: &'a crate::profile::ncu::Prepared,
        program: &'a [std::ffi::OsString],
        pass_for: PassFor,
    ) -> Self {
        SourcePass {
            opts,
            prepared,
            program,
            pass_for,
        }
    }

    /// The source pages of one launch of each of the `users` kernels whose findings have a
    /// line cause, from `every` launch the trace counted. When the pass fails, the
    /// findings go without their lines.
    pub fn source_lines(
        &self,
        findings: &[Finding],
        rules: &[Rule],
        every: &ingest::Profile,
        users: &UserKernels,
    ) -> Vec<ingest::source::SourceBlock> {
        let is_users = |k: &str| users.contains(k);
        let Some(plan) = plan(findings, rules, every, &is_users, &self.pass_for) else {
            if self.opts.verbose {
                crate::note!(
                    "source pass: no finding on your kernels has its cause {}; none is run",
                    self.pass_for.what()
                );
            }
            return Vec::new();
        };
        let what = if self.pass_for == PassFor::StallSamples {
            "the warps' stall samples of"
        } else {
            "the source counters of"
        };
        crate::note!(
            "source pass: {what} {} kernel(s) with a finding on a line ({} launch(es)); ncu \
             stops {} once they are profiled",
            plan.targets.len(),
            plan.launches,
            crate::profile::program_name(self.program)
        );
        match crate::profile::ncu::profile_sources(self.opts, self.prepared, &plan, self.program) {
            Ok(blocks) => blocks,
            Err(e) => {
                crate::warning!("the source pass failed, so no finding names its line: {e}");
                Vec::new()
            }
        }
    }
}

/// Whether a finding on the `users` kernels reads the warps' stall samples for its lines:
/// what [`super::source_memory`] keeps for the next `--source` run of the program.
pub fn reads_stall_samples(findings: &[Finding], rules: &[Rule], users: &UserKernels) -> bool {
    let is_users = |k: &str| users.contains(k);
    !wanted(
        findings,
        &line_cause_in(rules),
        &is_users,
        &PassFor::StallSamples,
    )
    .is_empty()
}

/// The mangled names, as the traced run `every` gives them, of the `users` kernels with a
/// finding whose rule has a line cause, by time at stake: the kernels whose first launch
/// the next `--source` run counts ([`super::source_memory`]).
pub fn line_cause_kernels(
    findings: &[Finding],
    rules: &[Rule],
    every: &ingest::Profile,
    users: &UserKernels,
) -> Vec<String> {
    let mangled: HashMap<u64, &str> = (every.launches.iter())
        .filter_map(|l| Some((l.id, l.mangled.as_deref()?)))
        .collect();
    let is_users = |k: &str| users.contains(k);
    let mut kernels: Vec<String> = Vec::new();
    for f in wanted(findings, &line_cause_in(rules), &is_users, &PassFor::All) {
        let named = std::iter::once(f.launch)
            .chain(f.launches.iter().copied())
            .find_map(|id| mangled.get(&id));
        if let Some(&m) = named
            && !kernels.iter().any(|k| k == m)
        {
            kernels.push(m.to_string());
        }
    }
    kernels
}

/// The user's own kernels, told from libraries' by the origins in the rules folder and
/// the objects that launched the kernels profiled: only theirs have lines worth a pass.
pub struct UserKernels(crate::origin::Origins);

impl UserKernels {
    /// By the origins in `rules_dir`, and the objects that launched the kernels of
    /// `profiled`.
    pub fn load(rules_dir: Option<&str>, profiled: &ingest::Profile) -> crate::error::Result<Self> {
        let mut origins = crate::origin::load(rules_dir)?;
        origins.learn_launching_objects(
            (profiled.launches.iter()).map(|l| (&l.name, l.launched_from.as_ref())),
        );
        Ok(UserKernels(origins))
    }

    pub fn contains(&self, kernel: &str) -> bool {
        self.0.describe(kernel).kind == crate::origin::Kind::User
    }
}

/// The line cause of a finding's rule, if it has one.
fn line_cause_in(rules: &[Rule]) -> impl Fn(&Finding) -> Option<crate::rules::LineCause> + '_ {
    |f: &Finding| {
        (rules.iter())
            .find(|r| r.slug == f.rule)
            .and_then(|r| r.source_lines)
    }
}

/// The plan for the findings of rules with a line cause that `pass_for` takes, on kernels
/// `is_users` accepts, from every launch the launch trace counted (their ids are the
/// findings' launch ids). `None` when no such finding has a traced launch with a mangled
/// name.
pub fn plan(
    findings: &[Finding],
    rules: &[Rule],
    every: &ingest::Profile,
    is_users: &dyn Fn(&str) -> bool,
    pass_for: &PassFor,
) -> Option<SourcePlan> {
    let traced = TracedNumbers::of(every);
    let line_cause = line_cause_in(rules);
    let wanted = wanted(findings, &line_cause, is_users, pass_for);
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

/// The findings on the user's kernels whose rule has a line cause that `pass_for` takes,
/// by time at stake, most first.
fn wanted<'a>(
    findings: &'a [Finding],
    line_cause: &dyn Fn(&Finding) -> Option<crate::rules::LineCause>,
    is_users: &dyn Fn(&str) -> bool,
    pass_for: &PassFor,
) -> Vec<&'a Finding> {
    let mut wanted: Vec<&Finding> = findings
        .iter()
        .filter(|f| {
            line_cause(f).is_some_and(|c| pass_for.wants(c, &f.kernel)) && is_users(&f.kernel)
        })
        .collect();
    wanted.sort_by(|a, b| {
        let stake = |f: &Finding| f.time_at_stake_ns.unwrap_or(0.0);
        stake(b).total_cmp(&stake(a))
    });
    wanted
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

    /// After the traced run, the pass takes what it lacks: the conversions on any kernel,
    /// the stall samples on a kernel it did not sample, every cause on a kernel it did not
    /// count (told by its base name: ncu and the tracer spell signatures differently).
    #[test]
    fn a_pass_after_the_traced_counts_takes_what_they_lack() {
        use crate::rules::LineCause::{
            DoubleConversions, ExcessSectors, LocalAccesses, SharedConflicts, StallSamples,
        };
        let traced = PassFor::NotTraced {
            counted: vec!["tile<4>(float const*, float*, int)".into()],
            sampled: Vec::new(),
        };
        let counted = "void tile<4>(const float *, float *, int)";
        assert!(!traced.wants(ExcessSectors, counted));
        assert!(!traced.wants(SharedConflicts, counted));
        assert!(traced.wants(StallSamples, counted));
        assert!(traced.wants(DoubleConversions, counted));
        assert!(traced.wants(ExcessSectors, "other(int)"));
        // Where the traced run also sampled a kernel's stalls, the pass takes them only
        // on the kernels it did not.
        let sampled = PassFor::NotTraced {
            counted: vec!["tile<4>(float const*, float*, int)".into()],
            sampled: vec!["tile<4>(float const*, float*, int)".into()],
        };
        assert!(!sampled.wants(StallSamples, counted));
        assert!(sampled.wants(StallSamples, "other(int)"));
        assert!(sampled.wants(DoubleConversions, counted));
        assert!(!PassFor::StallSamples.wants(ExcessSectors, "other(int)"));
        assert!(PassFor::All.wants(LocalAccesses, "other(int)"));
    }

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

    /// The zoo's launch trace, and the mangled names of its kernels.
    fn zoo_trace() -> (ingest::Profile, Vec<String>) {
        let every = crate::ingest::read_path(&format!(
            "{}/fixtures/h200-zoo/derived_trace.csv",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let mut mangled: Vec<String> = (every.launches.iter())
            .filter_map(|l| l.mangled.as_deref().map(String::from))
            .collect();
        mangled.sort();
        mangled.dedup();
        (every, mangled)
    }

    /// A sample of the user's kernels reads the counters in its own run, and the pages of
    /// at most eight of them, those with the most GPU time first.
    #[test]
    fn the_users_kernels_read_their_counters_in_the_samples_run() {
        let (every, mangled) = zoo_trace();
        let SourceCounters::InSampleRun(kernels) =
            source_counters(&mangled, &[1], &every, None).unwrap()
        else {
            panic!("a pass for the zoo's own kernels");
        };
        assert_eq!(kernels.len(), MOST_KERNELS);
        assert!(kernels[0].starts_with("copy_strided"), "{kernels:?}");
    }

    /// Where library kernels take most of the sample's launches, the section would cost
    /// each of them: a pass of its own reads the user's counters.
    #[test]
    fn a_sample_of_library_kernels_leaves_the_counters_to_a_pass() {
        let (mut every, mangled) = zoo_trace();
        let strided = |l: &ingest::Launch| l.name.starts_with("copy_strided");
        for l in every.launches.iter_mut().filter(|l| !strided(l)) {
            l.launched_from = Some("/usr/lib/libcublas.so.12".into());
        }
        assert_eq!(
            source_counters(&mangled, &[1], &every, None).unwrap(),
            SourceCounters::InPass
        );
        // The user's kernel alone in the sample: in its run.
        let own = vec!["_Z12copy_stridedPKfPfmi".to_string()];
        assert_eq!(
            source_counters(&own, &[1, 2], &every, None).unwrap(),
            SourceCounters::InSampleRun(vec![
                "copy_strided(const float *, float *, unsigned long, int)".into()
            ])
        );
    }

    /// The section's warp sampling is collected only for a finding whose line cause is
    /// the stall samples (latency-bound here), not for excess sectors.
    #[test]
    fn only_a_finding_on_stall_samples_needs_the_sampling() {
        let (rules, finding, every) = strided();
        let users = |_: &str| true;
        let sectors = plan(
            std::slice::from_ref(&finding),
            &rules,
            &every,
            &users,
            &PassFor::All,
        )
        .unwrap();
        assert_eq!(sectors.targets.len(), 1);
        assert!(!sectors.needs_sampling);
        let mut waits = finding.clone();
        waits.rule = "latency-bound".into();
        let both = plan(
            &[finding.clone(), waits.clone()],
            &rules,
            &every,
            &users,
            &PassFor::All,
        )
        .unwrap();
        assert!(both.needs_sampling);
        // After a sample whose own run read the counters, only the stall samples want a
        // pass.
        assert!(
            plan(
                std::slice::from_ref(&finding),
                &rules,
                &every,
                &users,
                &PassFor::StallSamples
            )
            .is_none()
        );
        let stalls = plan(
            &[finding, waits],
            &rules,
            &every,
            &users,
            &PassFor::StallSamples,
        )
        .unwrap();
        assert!(stalls.needs_sampling);
    }
}
