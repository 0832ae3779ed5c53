//! The streaming linter: applies the rules to launches as they arrive (judging each with
//! `judge`), merges repeats of a kernel into one finding per rule, judges rules that need the
//! whole profile once it is read, and keeps the coverage.

use std::collections::HashMap;

use super::Rule;
pub use super::finding::{
    Coverage, Edit, Finding, LISTED_LAUNCHES, Outcome, Skip, SourceLocation, rank,
};
pub use super::judge::{Judgement, Unjudged, check_in_profile};
use super::judge::{judge, judge_with};
use crate::ingest::{Launch, Profile};

/// Whether a rule is switched off for a kernel, by its name (gpulint.toml's
/// `ignore-kernel`); the engine asks, and does not know where the answer comes from.
pub type KernelFilter<'a> = &'a dyn Fn(&str, &Rule) -> bool;

/// A filter that switches nothing off.
pub fn no_filter(_: &str, _: &Rule) -> bool {
    false
}

/// Runs every rule on every launch of every profile.
pub fn lint(profiles: &[Profile], rules: &[Rule]) -> Outcome {
    lint_with(profiles, rules, &no_filter, true)
}

/// As [`lint`], with kernels' rules switched off by `ignored`; `merge` false keeps one
/// finding per launch (`--per-launch`).
pub fn lint_with(
    profiles: &[Profile],
    rules: &[Rule],
    ignored: KernelFilter,
    merge: bool,
) -> Outcome {
    let mut linter = Linter::new(rules, ignored, merge);
    for profile in profiles {
        for launch in &profile.launches {
            linter.add(&profile.file, launch);
        }
    }
    linter.finish()
}

/// What the linter keeps per kernel (file and name) while merging.
struct KernelSlot {
    file: String,
    /// Index into the launch counters of this kernel's base name in its file.
    base: usize,
    /// Per rule (in the linter's order), its merged finding's index.
    findings: Vec<Option<usize>>,
    /// Per rule, whether gpulint.toml's `ignore-kernel` switches it off for this kernel.
    ignored: Vec<bool>,
    /// (rule, reason) of merged skips, with the skip's index.
    skips: Vec<(usize, Unjudged, usize)>,
}

/// Lints launches one at a time, as they stream in. Repeats of a kernel are merged as
/// they come, so memory grows with distinct kernels and rules, not with launches, and
/// a repeat costs no allocation beyond its findings.
pub struct Linter<'a> {
    rules: Vec<&'a Rule>,
    ignored: KernelFilter<'a>,
    merge: bool,
    outcome: Outcome,
    /// Time at stake of the launch each merged finding's message describes.
    shown_stake: Vec<f64>,
    slots: Vec<KernelSlot>,
    /// Slots by kernel name; a name may come from several files.
    kernels: rustc_hash::FxHashMap<String, Vec<usize>>,
    /// Launches seen so far per file and base name, indexed by `KernelSlot::base`.
    launches_of_base: Vec<usize>,
    bases: rustc_hash::FxHashMap<(String, String), usize>,
    /// Per rule (in `rules` order): whether it judged any launch, was skipped on any, and
    /// met a launch without the launch trace it reads.
    judged_any: Vec<bool>,
    skipped_any: Vec<bool>,
    needs_trace_any: Vec<bool>,
    /// Launches of rules with `context_kernels`, judged once the whole profile is read.
    deferred: Vec<Deferred>,
    /// Per (rule, file): the launches of its context kernels seen so far.
    context_launches: HashMap<(usize, String), u64>,
}

/// A launch a rule judges in [`Linter::finish`], when its context is known.
struct Deferred {
    rule: usize,
    slot: usize,
    nth: usize,
    file: String,
    launch: Launch,
}

impl<'a> Linter<'a> {
    pub fn new(rules: &'a [Rule], ignored: KernelFilter<'a>, merge: bool) -> Self {
        // Rules that defer run last, so they see what the others found; a catch-all
        // (latency-bound) after them, so that a rule naming the cause speaks first.
        let linted = || rules.iter().filter(|r| !r.diff_only);
        let rank = |r: &Rule| u8::from(r.defer_to_other_findings) + u8::from(r.catch_all);
        let mut ordered: Vec<&Rule> = linted().collect();
        ordered.sort_by_key(|r| rank(r));
        Linter {
            rules: ordered,
            ignored,
            merge,
            outcome: Outcome::default(),
            shown_stake: Vec::new(),
            slots: Vec::new(),
            kernels: Default::default(),
            launches_of_base: Vec::new(),
            bases: Default::default(),
            judged_any: Vec::new(),
            skipped_any: Vec::new(),
            needs_trace_any: Vec::new(),
            deferred: Vec::new(),
            context_launches: HashMap::new(),
        }
    }

    /// The slot of a launch's kernel, made on first sight. Launches of one kernel with
    /// other grids or blocks share it: an iterative solver's shrinking grid is one kernel.
    fn slot(&mut self, file: &str, launch: &Launch) -> usize {
        let same = |k: &KernelSlot| k.file == file;
        if let Some(i) = self
            .kernels
            .get(&launch.name)
            .and_then(|v| v.iter().copied().find(|&i| same(&self.slots[i])))
        {
            return i;
        }
        let base_key = (file.to_string(), crate::ingest::base_name(&launch.name));
        let next = self.launches_of_base.len();
        let base = *self.bases.entry(base_key).or_insert(next);
        if base == next {
            self.launches_of_base.push(0);
        }
        self.kernels
            .entry(launch.name.clone())
            .or_default()
            .push(self.slots.len());
        self.slots.push(KernelSlot {
            file: file.to_string(),
            base,
            findings: vec![None; self.rules.len()],
            // Switched off for this kernel by the config, or not one the rule applies to
            // (its `kernel_pattern`): decided once per kernel, not per launch.
            ignored: self
                .rules
                .iter()
                .map(|r| (self.ignored)(&launch.name, r) || !r.applies_to(&launch.name))
                .collect(),
            skips: Vec::new(),
        });
        self.slots.len() - 1
    }

    pub fn add(&mut self, file: &str, launch: &Launch) {
        let slot = self.slot(file, launch);
        let base = self.slots[slot].base;
        let nth = self.launches_of_base[base];
        self.launches_of_base[base] += 1;

        // The findings made on this launch: a rule that defers to them and holds too is
        // recorded on them (`Finding::explains`), so that what the roofline calls the
        // bound is the linter's own verdict.
        let mut fired: Vec<usize> = Vec::new();
        // ncu records a launch that failed with grid and block (0,0,0) and no data.
        let failed = ["grid_blocks", "block_size"]
            .iter()
            .any(|k| launch.metrics.get(k) == Some(&0.0));
        for i in 0..self.rules.len() {
            let rule = self.rules[i];
            if self.slots[slot].ignored[i] || rule.judges_failed_launches != failed {
                continue;
            }
            if rule.defer_to_other_findings && !fired.is_empty() {
                self.note_explained(rule, launch, file, &fired);
                continue;
            }
            if rule.context.is_some() {
                self.deferred.push(Deferred {
                    rule: i,
                    slot,
                    nth,
                    file: file.to_string(),
                    launch: launch.clone(),
                });
                continue;
            }
            // Merged into the kernel's finding, a launch's words show only where it has
            // the most at stake (merge_into).
            let shown = match self.merge {
                true => self.slots[slot].findings[i].map(|f| self.shown_stake[f]),
                false => None,
            };
            let judgement = judge_with(rule, launch, file, |stake| {
                shown.is_none_or(|shown| stake.unwrap_or(0.0) > shown)
            });
            fired.extend(self.record(i, slot, nth, launch, judgement));
        }
        self.count_context(file, launch);
    }

    /// A deferring rule on a launch other findings (`fired`) explain: where it holds too,
    /// each of them says so. Its own finding is not made: the report names the cause.
    fn note_explained(&mut self, rule: &Rule, launch: &Launch, file: &str, fired: &[usize]) {
        if !matches!(
            judge_with(rule, launch, file, |_| false),
            Judgement::Fires(_)
        ) {
            return;
        }
        for &i in fired {
            let f = &mut self.outcome.findings[i];
            if !f.explains.contains(&rule.slug) {
                f.explains.push(rule.slug.clone());
            }
        }
    }

    /// Counts `launch` for the rules whose context kernels it is one of.
    fn count_context(&mut self, file: &str, launch: &Launch) {
        for (i, rule) in self.rules.iter().enumerate() {
            if rule.context.as_ref().is_some_and(|c| c.counts(launch)) {
                *self
                    .context_launches
                    .entry((i, file.to_string()))
                    .or_default() += launch.count;
            }
        }
    }

    /// Records what `rule` made of a launch; the finding's index when it fired.
    fn record(
        &mut self,
        rule: usize,
        slot: usize,
        nth: usize,
        launch: &Launch,
        judgement: Judgement,
    ) -> Option<usize> {
        self.note_coverage(rule, &judgement);
        match judgement {
            Judgement::Fires(mut f) => {
                self.outcome.judged += 1;
                f.nth_of_kernel = nth;
                return Some(self.add_finding(slot, rule, *f));
            }
            Judgement::Quiet { partial: None } => self.outcome.judged += 1,
            Judgement::Quiet {
                partial: Some(reason),
            } => {
                self.outcome.judged += 1;
                self.add_skip(slot, rule, launch, reason);
            }
            Judgement::Skipped(reason) => self.add_skip(slot, rule, launch, reason),
            // Said once in the coverage (`needs_launch_trace`), not per launch.
            Judgement::NotApplicable(_) => {}
        }
        None
    }

    /// Judges the deferred launches with their profile's context.
    fn judge_deferred(&mut self) {
        for mut d in std::mem::take(&mut self.deferred) {
            let seen = self
                .context_launches
                .get(&(d.rule, d.file.clone()))
                .copied()
                .unwrap_or(0);
            d.launch.metrics.insert("context_launches", seen as f64);
            let judgement = judge(self.rules[d.rule], &d.launch, &d.file);
            self.record(d.rule, d.slot, d.nth, &d.launch, judgement);
        }
    }

    pub fn finish(mut self) -> Outcome {
        self.judge_deferred();
        for f in &mut self.outcome.findings {
            if !f.explains.is_empty() {
                f.notes.push(format!(
                    "the kernel is {} too, by that rule's own bar: this finding is the cause, \
                     so the report names it instead",
                    f.explains.join(" and ")
                ));
            }
            f.evidence_range.retain(|_, [lo, hi]| lo < hi);
            let grids = f.grid_blocks;
            let kept = std::mem::take(&mut f.grid_notes)
                .into_iter()
                .filter(|(scope, _)| grids.is_some_and(|g| scope.holds(g)))
                .map(|(_, text)| text);
            f.notes.extend(kept);
        }
        let mut coverage = Coverage::default();
        for (i, rule) in self.rules.iter().enumerate() {
            let judged = self.judged_any.get(i).copied().unwrap_or(false);
            if judged {
                coverage.judged.push(rule.slug.clone());
            } else if self.skipped_any.get(i).copied().unwrap_or(false) {
                coverage.not_judged.push(rule.slug.clone());
            } else if self.needs_trace_any.get(i).copied().unwrap_or(false) {
                coverage.needs_launch_trace.push(rule.slug.clone());
            }
        }
        coverage.judged.sort();
        coverage.not_judged.sort();
        self.outcome.coverage = coverage;
        self.outcome
    }

    fn note_coverage(&mut self, rule: usize, judgement: &Judgement) {
        if self.judged_any.len() < self.rules.len() {
            self.judged_any.resize(self.rules.len(), false);
            self.skipped_any.resize(self.rules.len(), false);
            self.needs_trace_any.resize(self.rules.len(), false);
        }
        match judgement {
            Judgement::Skipped(_) => self.skipped_any[rule] = true,
            Judgement::NotApplicable(_) => self.needs_trace_any[rule] = true,
            _ => self.judged_any[rule] = true,
        }
    }

    /// Adds a finding, merged into its kernel's earlier one of the same rule; its index.
    fn add_finding(&mut self, slot: usize, rule: usize, f: Finding) -> usize {
        let next = self.outcome.findings.len();
        if !self.merge {
            self.outcome.findings.push(f);
            return next;
        }
        let entry = &mut self.slots[slot].findings[rule];
        match *entry {
            Some(i) => {
                merge_into(&mut self.outcome.findings[i], f, &mut self.shown_stake[i]);
                i
            }
            None => {
                *entry = Some(next);
                self.shown_stake.push(f.time_at_stake_ns.unwrap_or(0.0));
                let mut f = f;
                f.covered.insert((f.grid, f.block));
                self.outcome.findings.push(f);
                next
            }
        }
    }

    fn add_skip(&mut self, slot: usize, rule: usize, launch: &Launch, reason: Unjudged) {
        if self.merge {
            let known = self.slots[slot]
                .skips
                .iter()
                .find(|(r, why, _)| *r == rule && *why == reason)
                .map(|(_, _, i)| *i);
            if let Some(i) = known {
                self.outcome.skips[i].launch_count += launch.count;
                return;
            }
            let next = self.outcome.skips.len();
            self.slots[slot].skips.push((rule, reason.clone(), next));
        }
        self.outcome.skips.push(Skip {
            rule: self.rules[rule].slug.clone(),
            launch: launch.id,
            launch_count: launch.count,
            kernel: launch.name.clone(),
            reason: reason.to_string(),
        });
    }
}

/// Folds one more launch's finding into a kernel's. The message, evidence and notes are
/// those of the launch with the most time at stake (the first, when none has more);
/// the evidence range and the time at stake cover them all.
fn merge_into(into: &mut Finding, f: Finding, shown_stake: &mut f64) {
    if into.launches.is_empty() {
        into.launches.push(into.launch);
    }
    if into.launches.len() < LISTED_LAUNCHES {
        into.launches.push(f.launch);
    }
    into.profiled_count = match (into.profiled_count, f.profiled_count) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(into.launch_count) + b.unwrap_or(f.launch_count)),
    };
    into.launch_count += f.launch_count;
    // Unsettled only where every launch of the finding's severity is.
    match f.severity.cmp(&into.severity) {
        std::cmp::Ordering::Greater => into.unsettled_in_one_run = f.unsettled_in_one_run,
        std::cmp::Ordering::Equal => into.unsettled_in_one_run &= f.unsettled_in_one_run,
        std::cmp::Ordering::Less => {}
    }
    into.severity = into.severity.max(f.severity);
    if into.covered.insert((f.grid, f.block)) {
        into.configurations = into.covered.len();
    }
    crate::ingest::add_processes(&mut into.processes, &f.processes);
    into.grid_blocks = match (into.grid_blocks, f.grid_blocks) {
        (Some([a, b]), Some([c, d])) => Some([a.min(c), b.max(d)]),
        (a, b) => a.or(b),
    };
    for (k, v) in &f.evidence {
        let old = into.evidence.get(k).copied();
        let range = into.evidence_range.entry(k.clone()).or_insert_with(|| {
            let o = old.unwrap_or(*v);
            [o, o]
        });
        range[0] = range[0].min(*v);
        range[1] = range[1].max(*v);
    }
    let stake = f.time_at_stake_ns.unwrap_or(0.0);
    let total = match (into.time_at_stake_ns, f.time_at_stake_ns) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
    if stake > *shown_stake {
        *shown_stake = stake;
        into.message = f.message;
        into.evidence = f.evidence;
        into.notes = f.notes;
        into.grid_notes = f.grid_notes;
    }
    into.time_at_stake_ns = total;
    into.covered_time_ns = match (into.covered_time_ns, f.covered_time_ns) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launches(file: &str) -> Profile {
        crate::ingest::read_path(&format!("{}/fixtures/{file}", env!("CARGO_MANIFEST_DIR")))
            .unwrap()
    }

    fn findings_of(rules: &[Rule], file: &str, launches: &[Launch], merge: bool) -> Vec<Finding> {
        let mut linter = Linter::new(rules, &no_filter, merge);
        for l in launches {
            linter.add(file, l);
        }
        linter.finish().findings
    }

    /// The bundled rule of that slug, alone.
    fn bundled_rule(slug: &str) -> Vec<Rule> {
        let rules = crate::rules::load(None).unwrap();
        let only: Vec<Rule> = rules.into_iter().filter(|r| r.slug == slug).collect();
        assert_eq!(only.len(), 1, "{slug}");
        only
    }

    /// The zoo's stride-2 copy, launched three times: one finding covering the three when
    /// merged, three findings per launch when not (`--per-launch`).
    #[test]
    fn repeated_launches_of_one_configuration_merge_into_one_finding() {
        let rules = bundled_rule("uncoalesced-load");
        let zoo = launches("h200-zoo/full_raw_base.csv");
        let strided = zoo.launches.iter().find(|l| l.id == 1).unwrap();
        let three: Vec<Launch> = [1, 100, 200]
            .iter()
            .map(|&id| Launch {
                id,
                last_id: id,
                ..strided.clone()
            })
            .collect();
        let merged = findings_of(&rules, "zoo", &three, true);
        assert_eq!(merged.len(), 1, "{merged:#?}");
        assert_eq!(merged[0].launch_count, 3);
        assert_eq!(merged[0].launches, [1, 100, 200]);
        assert_eq!(findings_of(&rules, "zoo", &three, false).len(), 3);
    }

    /// BFS's 9th level in one run (the export's row 9, the program's launch 16) issued in
    /// 40.1% of its cycles, near divergent-warps' 40% bar on the side a warm L2 pushes it
    /// to: unsettled alone, settled once merged with a launch of the kernel well past it.
    #[test]
    fn a_merged_finding_is_unsettled_only_where_each_launch_is() {
        let rules = bundled_rule("divergent-warps");
        let bfs = launches("h100-one-run/loops3_bfs.csv");
        let level = bfs.launches.iter().find(|l| l.id == 9).unwrap();
        let alone = findings_of(&rules, "bfs", std::slice::from_ref(level), true);
        assert!(alone[0].unsettled_in_one_run, "{alone:#?}");
        let mut busy = Launch {
            id: 30,
            last_id: 30,
            ..level.clone()
        };
        busy.metrics.insert("issue_slots_pct", 60.0);
        let merged = findings_of(&rules, "bfs", &[level.clone(), busy], true);
        assert_eq!(merged[0].launch_count, 2);
        assert!(!merged[0].unsettled_in_one_run, "{merged:#?}");
    }

    /// A serial chain under ncu (the first of run_serial_loads.csv: 1.1 loads in flight) is
    /// settled; the same launch read at 1.46, as an H200's one run read a reduction that
    /// ncu did not call serial, is near serial-loads' 1.5 bar on the side a warm replay
    /// pushes it to, and says so.
    #[test]
    fn serial_loads_near_its_bar_is_unsettled() {
        let rules = bundled_rule("serial-loads");
        let chains = launches("h200-serial-loads/run_serial_loads.csv");
        let chain = &chains.launches[0];
        let settled = findings_of(&rules, "chains", std::slice::from_ref(chain), true);
        assert_eq!(settled.len(), 1, "{settled:#?}");
        assert!(!settled[0].unsettled_in_one_run, "{settled:#?}");
        assert!(
            !settled[0]
                .notes
                .iter()
                .any(|n| n.contains("near the limit"))
        );
        let mut near = chain.clone();
        near.metrics.insert("loads_in_flight_while_waiting", 1.46);
        let unsettled = findings_of(&rules, "chains", &[near], true);
        assert!(unsettled[0].unsettled_in_one_run, "{unsettled:#?}");
        let note = unsettled[0]
            .notes
            .iter()
            .find(|n| n.contains("near the limit"));
        assert!(note.is_some_and(|n| n.contains("1.46 loads in flight against the 1.5 bar")));
    }

    /// DRAM writes that are not a launch's own stores, a tenth of its DRAM traffic or more,
    /// make its serial-loads figure unsettled: the window's reduction (window_cnn.csv, row
    /// 67: 12.5 MB written for 576 sectors stored, 0.95 loads in flight where ncu read 3.4)
    /// is; BFS's one-run chain (loops3_bfs.csv, ID 3, the program's launch 10: fewer bytes
    /// written than stored) is not.
    #[test]
    fn serial_loads_beside_others_write_backs_is_unsettled() {
        let rules = bundled_rule("serial-loads");
        let window = launches("h100-one-run/window_cnn.csv");
        let reduction = window.launches.iter().find(|l| l.id == 67).unwrap();
        let found = findings_of(&rules, "window", std::slice::from_ref(reduction), true);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(found[0].unsettled_in_one_run, "{found:#?}");
        assert!(
            (found[0].notes.iter()).any(|n| n.contains("12,482,304 bytes were written to DRAM")),
            "{found:#?}"
        );
        let bfs = launches("h100-one-run/loops3_bfs.csv");
        let level = bfs.launches.iter().find(|l| l.id == 3).unwrap();
        let chain = findings_of(&rules, "bfs", std::slice::from_ref(level), true);
        assert_eq!(chain.len(), 1, "{chain:#?}");
        assert!(!chain[0].unsettled_in_one_run, "{chain:#?}");
    }

    /// latency-bound defers to another finding on the same launch: an LU perimeter step
    /// (122 one-warp blocks) is latency-bound by its own bar, and small-grid names the cause.
    #[test]
    fn a_deferring_rule_gives_way_to_another_finding_on_its_launch() {
        let all = crate::rules::load(None).unwrap();
        let only = |slugs: &[&str]| -> Vec<Rule> {
            all.iter()
                .filter(|r| slugs.contains(&r.slug.as_str()))
                .cloned()
                .collect()
        };
        let lud = launches("h200-corpus/min_lud.csv");
        let step = [lud.launches.iter().find(|l| l.id == 16).unwrap().clone()];
        let rules_of =
            |f: &[Finding]| -> Vec<String> { f.iter().map(|f| f.rule.clone()).collect() };
        let alone = findings_of(&only(&["latency-bound"]), "lud", &step, true);
        assert_eq!(rules_of(&alone), ["latency-bound"]);
        let with_grid = findings_of(&only(&["latency-bound", "small-grid"]), "lud", &step, true);
        assert_eq!(rules_of(&with_grid), ["small-grid"]);
    }
}
