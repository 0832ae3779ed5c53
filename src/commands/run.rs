//! `gpulint run -- PROG` (and `gpulint PROG`): profile a program with ncu, then lint it.

use super::check::lint_and_report;
use super::every_launch::{self, EveryLaunch};
use super::shared::{enabled_rules, load_as};
use crate::cli::{Format, NcuArgs, ReportArgs};
use crate::error::Result;
use crate::ingest::{self, Sample};
use crate::ncu::NcuOptions;
use crate::report;
use crate::rules::{self, Rule};
use crate::sampling::{SampleKey, sample_key, taken_of};
use std::collections::HashMap;

pub fn run_program(ncu: &NcuArgs, report: &ReportArgs, program: &[String]) -> Result<u8> {
    let (rules, config) = enabled_rules(&report.gate.selection)?;
    // ncu arguments from gpulint.toml come first, so the command line can add to them.
    let extra_args: Vec<String> = config
        .ncu_args
        .iter()
        .chain(&ncu.ncu_args)
        .cloned()
        .collect();
    let mut opts = ncu_options(ncu, report, extra_args);
    let mut sample = opts.sample;
    if ncu.time_all_launches && sample.is_none() {
        return Err(crate::error::Error::new(
            "--time-all-launches times the launches a sample leaves out, and the launch filter \
             given to ncu (--ncu-arg) turns the sample off: every chosen launch is profiled already",
        ));
    }
    // ncu, the program and the chip are checked before anything runs the program.
    let prepared = crate::ncu::prepare(&opts, program)?;
    let declined = trace_declined(ncu, &config);
    // Every launch is counted first, so that the sample's progress line can say how many
    // launches it will profile and about how long that takes. A report per launch
    // (--per-launch) shows the sampled launches as they are, uncounted.
    let mut every = match sample {
        Some(_) if !report.per_launch => {
            every_launch::count(&opts, &prepared, program, report, ncu, declined)?
        }
        _ => None,
    };
    if let (Some(chosen), Some(every)) = (sample, &every) {
        sample = Some(plan_sample(
            &mut opts,
            chosen,
            every,
            report.gate.read.verbose,
        ));
    }
    let info = crate::ncu::profile(&opts, &prepared, &rules, program)?;
    say_program_status(info.program_status, &program[0]);
    if report.gate.read.verbose {
        eprintln!("gpulint: profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let timing = sample.zip(every.as_mut());
    let Loaded {
        mut profiles,
        in_program_order,
    } = load_profiled(
        &info,
        timing,
        opts.kernel_name.is_some(),
        report,
        &mut linter,
    )?;
    profiles[0].source_blocks = info.source_blocks;
    profiles[0].sample = sample;
    add_sample_notes(&mut profiles[0], sample, every.is_some());
    if report.gate.read.verbose {
        for l in &profiles[0].launches {
            if let Some(p) = l.metrics.get("replay_passes") {
                eprintln!(
                    "gpulint: launch {} {} ({}x): {p} replay pass(es)",
                    l.id,
                    report::short_name(&l.name),
                    l.count
                );
            }
        }
    }
    let mut outcome = linter.finish();
    if let Some(every) = every.as_ref().filter(|_| in_program_order) {
        judge_launch_shapes_on_every_launch(&mut outcome, every, &profiles[0], &rules, &ignored);
    }
    lint_and_report(&profiles, outcome, &rules, report)
}

/// Why the program is not to run under the launch tracer, when the user said so.
fn trace_declined(ncu: &NcuArgs, config: &crate::config::Config) -> Option<&'static str> {
    if ncu.no_launch_trace {
        Some("--no-launch-trace")
    } else if config.launch_trace == Some(false) {
        Some("launch-trace = false in gpulint.toml")
    } else {
        None
    }
}

/// The sample once every launch is counted (`crate::sampling`), and what the progress
/// line expects of it.
fn plan_sample(
    opts: &mut NcuOptions,
    chosen: Sample,
    every: &EveryLaunch,
    verbose: bool,
) -> Sample {
    // With -k, counts of the other kernels would weigh in the choice.
    let planned = match opts.kernel_name {
        None => crate::sampling::choose_for_time(chosen, &every.profile, verbose),
        Some(_) => chosen,
    };
    opts.sample = Some(planned);
    opts.expected_launches = Some(crate::sampling::launches_to_profile(
        planned,
        &every.profile,
    ));
    opts.traced_run_time = every.program_time;
    planned
}

/// The warnings a sample without every launch counted deserves: kernels it cut unevenly,
/// kernels whose shares are not comparable, kernels it could not bound.
fn add_sample_notes(profile: &mut ingest::Profile, sample: Option<Sample>, timed: bool) {
    let note = match (sample, timed) {
        (Some(Sample::PerConfig(n)), false) => capped_kernels_note(profile, n),
        (Some(Sample::Spread(_)), false) => uneven_spread_note(profile),
        _ => None,
    };
    profile.notes.extend(note);
    if let Some(Sample::PerConfig(_)) = sample {
        let note = unbounded_kernels_note(profile);
        profile.notes.extend(note);
    }
}

/// With every launch counted, the launch-shape rules (block size, small grid, failed
/// launch) judge every launch instead of the sampled ones: a spread misses LU's last, tiny
/// grids, the count does not. A timing pass records each launch's attributes; a traced
/// launch takes them from the sampled entry most like it. Their findings replace the
/// sample's. They belong to the sample's report (the launch numbers
/// are the program's in both), at the line of the sampled launch most like theirs.
fn judge_launch_shapes_on_every_launch(
    outcome: &mut rules::engine::Outcome,
    every: &EveryLaunch,
    sampled: &ingest::Profile,
    rules: &[Rule],
    ignored: rules::engine::KernelFilter,
) {
    let shape_rules: Vec<Rule> = rules
        .iter()
        .filter(|r| r.category == "launch")
        .cloned()
        .collect();
    let mut linter = rules::engine::Linter::new(&shape_rules, ignored, true);
    for l in &every.profile.launches {
        let like = most_alike(&sampled.launches, l).map(|i| &sampled.launches[i]);
        let mut launch = ingest::Launch {
            line: like.map_or(0, |s| s.line),
            ..l.clone()
        };
        // A traced launch has only its shape and duration: the rest comes from the sampled
        // entry most like it. One no sampled entry is like is not judged.
        if every.traced() {
            let Some(like) = like else { continue };
            launch.metrics = every_launch::traced_launch_metrics(l, like);
        }
        linter.add(&sampled.file, &launch);
    }
    let every = linter.finish();
    let is_shape = |slug: &str| shape_rules.iter().any(|r| r.slug == slug);
    outcome.findings.retain(|f| !is_shape(&f.rule));
    outcome.findings.extend(every.findings);
    outcome.skips.retain(|s| !is_shape(&s.rule));
    outcome.skips.extend(every.skips);
}

/// What ncu is asked for: the command line's options, the config's ncu arguments, and the
/// sample unless the user chose launches themselves.
fn ncu_options(ncu: &NcuArgs, report: &ReportArgs, extra_args: Vec<String>) -> NcuOptions {
    let choice = crate::ncu::LaunchChoice {
        per_config: ncu.launches_per_config,
        all_launches: ncu.all_launches,
        launch_skip: ncu.launch_skip,
        launch_count: ncu.launch_count,
        kernel_name: ncu.kernel_name.as_deref(),
    };
    let sample = crate::ncu::choose_sample(&choice, &extra_args);
    NcuOptions {
        ncu: ncu.ncu.clone(),
        kernel_name: ncu.kernel_name.clone(),
        launch_skip: ncu.launch_skip,
        launch_count: ncu.launch_count,
        sample,
        target_processes_all: ncu.target_processes_all,
        extra_args,
        save_csv: ncu.save_csv.clone(),
        roofline: !ncu.no_roofline,
        source: ncu.source,
        chip: ncu.chip.clone(),
        // Machine formats own stdout; the program's output would corrupt them.
        program_output_to_stderr: !matches!(report.format, Format::Human | Format::Concise),
        expected_launches: None,
        traced_run_time: None,
        verbose: report.gate.read.verbose,
    }
}

fn say_program_status(status: Option<i32>, program: &str) {
    match status {
        Some(0) => {}
        Some(code) => eprintln!(
            "gpulint: {program} exited with status {code}; its kernels profiled before that are linted"
        ),
        None => eprintln!(
            "gpulint: {program} was killed by a signal; its kernels profiled before that are linted"
        ),
    }
}

/// Gives each sampled launch the number the count gave it: its place in the program's
/// launches. The spread profiled launches 1, 2, 3, 4, 8, ... of each kernel, a sample per
/// configuration the first N of each; both runs launch the same kernels in the same order.
/// When the sample holds more or fewer launches of a kernel than that (seen with a cuBLAS
/// GEMM: likely ncu counts per loaded copy of a kernel), which launches it took is
/// unknown: nothing is renumbered, and the note says why.
fn in_program_order(
    sampled: &mut [ingest::Launch],
    every: &EveryLaunch,
    sample: Sample,
) -> std::result::Result<(), String> {
    let timed = &every.profile;
    let mut timed_ids: HashMap<SampleKey, Vec<u64>> = HashMap::new();
    for t in &timed.launches {
        timed_ids
            .entry(sample_key(sample, t))
            .or_default()
            .push(t.id);
    }
    let mut sampled_count: HashMap<SampleKey, u64> = HashMap::new();
    for l in sampled.iter() {
        *sampled_count.entry(sample_key(sample, l)).or_default() += 1;
    }
    let unmatched: Vec<String> = sampled_count
        .iter()
        .filter(|(key, n)| {
            let launched = timed_ids.get(*key).map_or(0, |ids| ids.len() as u64);
            **n != taken_of(sample, launched)
        })
        .map(|(key, _)| report::short_name(&key.0))
        .collect();
    if !unmatched.is_empty() {
        return Err(format!(
            "the sample holds another number of launches of {} than it takes of the launches \
             {} counted (ncu may count a kernel's launches per loaded copy of it): launch \
             numbers are the sample's, and launch shapes are judged on the sampled launches",
            unmatched.join(", "),
            every.counted_by()
        ));
    }
    let spread = sample.invocations();
    let mut seen: HashMap<SampleKey, usize> = HashMap::new();
    for l in sampled {
        let key = sample_key(sample, l);
        let nth = seen.entry(key.clone()).or_default();
        let position = match sample {
            Sample::Spread(_) => spread.get(*nth).map(|n| *n as usize - 1),
            Sample::PerConfig(_) => Some(*nth),
        };
        *nth += 1;
        // A launch the count did not see (a program that varies run to run) keeps
        // its place in the sample.
        if let Some(&id) = position.and_then(|p| timed_ids.get(&key)?.get(p)) {
            l.id = id;
            l.last_id = id;
        }
    }
    Ok(())
}

/// Reads what ncu profiled, linting as it goes; with every launch counted, the sampled
/// launches are numbered in the program's order and given the counts and durations
/// counted first, and linted after. With `-k` (`kernel_filter`), the launches of other
/// kernels are left out of the count, as they are of the sample.
fn load_profiled(
    info: &crate::ncu::RunInfo,
    timing: Option<(Sample, &mut EveryLaunch)>,
    kernel_filter: bool,
    report: &ReportArgs,
    linter: &mut rules::engine::Linter,
) -> Result<Loaded> {
    let csv = info.csv.path().display().to_string();
    let inputs = [(csv.as_str(), info.name.as_str())];
    let jobs = report.gate.read.jobs;
    let Some((sample, every)) = timing else {
        let profiles = load_as(&inputs, report.per_launch, jobs, Some(linter))?;
        return Ok(Loaded {
            profiles,
            in_program_order: false,
        });
    };
    let mut profiles = load_as(&inputs, true, jobs, None)?;
    let mut launches = std::mem::take(&mut profiles[0].launches);
    if every.traced() {
        let unpaired = every_launch::adopt_sampled_names(&mut every.profile.launches, &launches);
        if kernel_filter {
            every.retain_kernels(&launches);
        }
        if !unpaired.is_empty() {
            profiles[0].notes.push(format!(
                "{}no kernel of the launch trace pairs with the sampled {} (a kernel's first \
                 launch, its function name, grid and block): {} not counted",
                ingest::WARNING,
                unpaired.join(", "),
                if unpaired.len() == 1 {
                    "its launches are"
                } else {
                    "their launches are"
                }
            ));
        }
    }
    let renumbered = in_program_order(&mut launches, every, sample);
    // Each configuration's sampled launches count by their time (crate::fold).
    let mut folder = crate::fold::Folder::time_weighted();
    for l in launches {
        folder.add(l);
    }
    profiles[0].launches = folder.finish();
    profiles[0].profiled_launches = Some(profiles[0].launch_count());
    profiles[0].every_launch_counted_by = Some(every.counter());
    let note = apply_timing(&mut profiles[0], every);
    profiles[0].notes.push(note);
    for l in &profiles[0].launches {
        linter.add(&info.name, l);
    }
    let in_program_order = renumbered.is_ok();
    profiles[0].notes.extend(renumbered.err());
    Ok(Loaded {
        profiles,
        in_program_order,
    })
}

/// What [`load_profiled`] read, and whether the sampled launches carry the program's
/// launch numbers (only then do launch-shape rules judge every counted launch).
struct Loaded {
    profiles: Vec<ingest::Profile>,
    in_program_order: bool,
}

/// Gives each sampled entry the counted launches that it stands for, and
/// their mean duration, so shares and time at stake count every launch. A timed launch
/// goes to the sampled entry of its kernel most like it: its own configuration when that
/// was sampled, else the same block and the nearest grid (a spread samples few of LU's
/// 63 shrinking grids). Returns the note saying so.
fn apply_timing(sample: &mut ingest::Profile, every: &EveryLaunch) -> String {
    let timed = &every.profile;
    // Per sampled entry: launches it stands for, their summed time, and whether every
    // one of them had a duration.
    let mut stands_for = vec![(0u64, 0.0f64, true); sample.launches.len()];
    let mut left_out = 0;
    for t in &timed.launches {
        let Some(i) = most_alike(&sample.launches, t) else {
            left_out += t.count;
            continue;
        };
        stands_for[i].0 += t.count;
        match t.metrics.get("duration_ns") {
            Some(d) => stands_for[i].1 += d * t.count as f64,
            None => stands_for[i].2 = false,
        }
    }
    for (l, &(count, time, timed_all)) in sample.launches.iter_mut().zip(&stands_for) {
        // A configuration the count never saw keeps what the sample measured.
        if count == 0 {
            continue;
        }
        l.profiled = Some(l.count);
        l.count = count;
        if timed_all {
            l.metrics.insert("duration_ns", time / count as f64);
        }
    }
    let total = timed.launch_count();
    let by = every.counted_by();
    if !every.traced() && total >= crate::ncu::MAX_TIMED_LAUNCHES {
        return format!(
            "{}the timing pass stopped at {total} launches: later ones are not counted",
            ingest::WARNING
        );
    }
    if left_out > 0 {
        return format!(
            "{}{by} measured {total} launches, {left_out} of them of kernels the sample did \
             not profile: those are not counted",
            ingest::WARNING
        );
    }
    format!(
        "{by} measured all {total} launches; each of the {} sampled configurations stands for \
         those of its kernel most like it",
        sample.launches.len()
    )
}

/// The sampled entry of `timed`'s kernel most like it: the same grid and block, else the
/// same block and the nearest grid (by ratio of blocks), else the nearest grid.
fn most_alike(sampled: &[ingest::Launch], timed: &ingest::Launch) -> Option<usize> {
    let blocks = |g: Option<[u64; 3]>| g.map(|g| g.iter().product::<u64>().max(1) as f64);
    let distance = |l: &ingest::Launch| {
        let grids = match (blocks(l.grid), blocks(timed.grid)) {
            (Some(a), Some(b)) => (a / b).ln().abs(),
            _ => f64::INFINITY,
        };
        // Grids of as many blocks, (128,1,1) and (64,2,1), are still other grids.
        (l.block != timed.block, l.grid != timed.grid, grids)
    };
    sampled
        .iter()
        .enumerate()
        .filter(|(_, l)| l.name == timed.name)
        .min_by(|(_, a), (_, b)| {
            let (a, b) = (distance(a), distance(b));
            (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2))
        })
        .map(|(i, _)| i)
}

/// A profile's entries (one per configuration) grouped by kernel, in order of first sight.
fn by_kernel(profile: &ingest::Profile) -> Vec<(&str, Vec<&ingest::Launch>)> {
    let mut kernels: Vec<(&str, Vec<&ingest::Launch>)> = Vec::new();
    for l in &profile.launches {
        match kernels.iter_mut().find(|(name, _)| *name == l.name) {
            Some(k) => k.1.push(l),
            None => kernels.push((&l.name, vec![l])),
        }
    }
    kernels
}

/// A kernel with more configurations than this was hardly sampled: it is profiled at least
/// this many times, where a few launches would show its findings.
const MANY_CONFIGURATIONS: usize = 10;

/// Kernels whose grid or block changed so often that the sample bounded nothing (LU's
/// shrinking grids: 63 configurations, each profiled), and how to profile fewer.
fn unbounded_kernels_note(profile: &ingest::Profile) -> Option<String> {
    let many: Vec<String> = by_kernel(profile)
        .iter()
        .filter(|(_, configs)| configs.len() > MANY_CONFIGURATIONS)
        .map(|(name, configs)| format!("{} ({})", report::short_name(name), configs.len()))
        .collect();
    (!many.is_empty()).then(|| {
        format!(
            "{}the sample bounds launches per configuration, and these kernels changed grid or \
             block so often that each configuration was profiled: {}; --launch-count N \
             profiles only the first N launches, -k only the kernels named",
            ingest::WARNING,
            many.join(", ")
        )
    })
}

/// With the spread, each kernel's share of GPU time is of its sampled launches, about
/// 1 + log2(N) of its N: a kernel launched 64 times weighs as much as one launched 32
/// times. When the kernels were profiled different numbers of times, names them with their
/// counts (LU: lud_diagonal 8, the other two 7). The counts are not turned into launch
/// counts: a PyTorch GEMM launched 60 times was profiled 11 times, not 7 (likely ncu counts
/// per loaded copy of a kernel; docs/runs/2026-11-30-torch-spread.txt).
fn uneven_spread_note(profile: &ingest::Profile) -> Option<String> {
    let mut counts: Vec<(u64, Vec<String>)> = Vec::new();
    for (name, entries) in by_kernel(profile) {
        let profiled: u64 = entries.iter().map(|l| l.count).sum();
        let name = report::short_name(name);
        match counts.iter_mut().find(|(n, _)| *n == profiled) {
            Some((_, names)) => names.push(name),
            None => counts.push((profiled, vec![name])),
        }
    }
    if counts.len() < 2 {
        return None;
    }
    counts.sort_by_key(|(n, _)| std::cmp::Reverse(*n));
    const SHOWN: usize = 4;
    let mut groups: Vec<String> = counts
        .iter()
        .take(SHOWN)
        .map(|(n, names)| format!("{} {n}", names.join(", ")))
        .collect();
    if counts.len() > SHOWN {
        groups.push("...".into());
    }
    Some(format!(
        "{}shares of GPU time are of the sampled launches, and the spread profiled the \
         kernels different numbers of times, as it does kernels launched different numbers of \
         times (launches profiled: {}): those launched more are understated; \
         --time-all-launches counts every launch",
        ingest::WARNING,
        groups.join("; ")
    ))
}

/// With a sample, a kernel launched many times with one configuration is cut to `cap`
/// launches while a kernel whose grid changes every launch is profiled whole: the first's
/// share of GPU time comes out too small (LU's diagonal kernel: 2.8% sampled, 37.9% of
/// every launch). Names the kernels whose every configuration reached the cap, when others
/// did not.
fn capped_kernels_note(profile: &ingest::Profile, cap: u64) -> Option<String> {
    let kernels = by_kernel(profile);
    let capped: Vec<String> = kernels
        .iter()
        .filter(|(_, configs)| configs.iter().all(|l| l.count >= cap))
        .map(|(name, _)| report::short_name(name))
        .collect();
    (!capped.is_empty() && capped.len() < kernels.len()).then(|| {
        format!(
            "{}{} reached the sample's {cap} launches per configuration while other kernels \
             did not: launches after those were not profiled, so {} share of GPU time is \
             understated; --time-all-launches counts every launch",
            ingest::WARNING,
            capped.join(", "),
            if capped.len() == 1 { "its" } else { "their" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// From the timing pass of LU on the H200 (every launch), the launches each sample
    /// profiles: 22 for the spread and 129 per configuration, as the H200 runs profiled
    /// (fixtures/h200-corpus/spread_lud.csv, sample_lud.csv).
    fn launch(id: u64, name: &str) -> ingest::Launch {
        ingest::Launch::of_shape(id, name.into(), [8, 16, 1], [128, 1, 1], 1)
    }

    /// A GEMM launched 60 times, alternating with another kernel: the spread takes its
    /// launches 1, 2, 3, 4, 8, 16, 32, which are the program's launches 0, 2, 4, 6, 14, 30, 62.
    /// When the sample holds 11 of them instead (as a cuBLAS GEMM's did on the H200,
    /// docs/runs/2026-11-30-torch-spread.txt), nothing is renumbered.
    #[test]
    fn sampled_launches_are_renumbered_only_when_the_counts_agree() {
        let timed = ingest::Profile {
            file: "timing".into(),
            page: ingest::Page::Raw,
            launches: (0..120)
                .map(|i| launch(i, if i % 2 == 0 { "gemm" } else { "relu" }))
                .collect(),
            notes: Vec::new(),
            source_blocks: Vec::new(),
            sample: None,
            profiled_launches: None,
            every_launch_counted_by: None,
        };
        let mut spread: Vec<ingest::Launch> = (0..14)
            .map(|i| launch(100 + i, if i % 2 == 0 { "gemm" } else { "relu" }))
            .collect();
        let timed = EveryLaunch {
            profile: timed,
            program_time: None,
        };
        assert_eq!(
            in_program_order(&mut spread, &timed, Sample::SPREAD),
            Ok(())
        );
        let gemm: Vec<u64> = spread
            .iter()
            .filter(|l| l.name == "gemm")
            .map(|l| l.id)
            .collect();
        assert_eq!(gemm, [0, 2, 4, 6, 14, 30, 62]);
        let mut eleven: Vec<ingest::Launch> = (0..11).map(|i| launch(i, "gemm")).collect();
        let refused = in_program_order(&mut eleven, &timed, Sample::SPREAD).unwrap_err();
        assert!(refused.contains("of gemm"), "{refused}");
        assert_eq!(eleven[10].id, 10);
    }

    /// A cuBLAS-style GEMM sampled with grids (64,2,1) and (128,1,1), as in the PyTorch
    /// loop on the H200: a launch of either grid goes to its own entry, though both grids
    /// have 128 blocks; a grid of 100 blocks to the nearest.
    #[test]
    fn a_counted_launch_goes_to_its_own_grid_first() {
        let grid = |g: [u64; 3]| ingest::Launch::of_shape(0, "gemm".into(), g, [256, 1, 1], 1);
        let sampled = [grid([64, 2, 1]), grid([128, 1, 1]), grid([16, 1, 1])];
        assert_eq!(most_alike(&sampled, &grid([128, 1, 1])), Some(1));
        assert_eq!(most_alike(&sampled, &grid([64, 2, 1])), Some(0));
        assert_eq!(most_alike(&sampled, &grid([20, 1, 1])), Some(2));
        let other = ingest::Launch::of_shape(0, "other".into(), [16, 1, 1], [256, 1, 1], 1);
        assert_eq!(most_alike(&sampled, &other), None);
    }
}
