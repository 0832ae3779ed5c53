//! What each command does, between the parsed command line and the exit code.

use std::io::{IsTerminal, Write};

use clap::Parser;

use crate::cli::{ColorChoice, Command, FailOn, Format, NcuArgs, ReportArgs, RulesFormat};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::ingest::{self, Profile};
use crate::ncu::NcuOptions;
use crate::report::{self, Report};
use crate::rules::{self, Rule, Severity};

/// Runs a command; the number is the process exit code (0 clean, 1 findings).
pub fn run(command: Command) -> Result<u8> {
    match command {
        Command::Check { files, report } => {
            let (rules, config) = enabled_rules(&report)?;
            let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
            let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
            let mut profiles = load(&files, report.per_launch, report.jobs, Some(&mut linter))?;
            for page in &report.source_pages {
                let bytes = std::fs::read(page)
                    .map_err(|e| Error::in_file(page, format!("cannot read: {e}")))?;
                let blocks = ingest::source::parse(page, &bytes)?;
                for p in &mut profiles {
                    p.source_blocks.extend(blocks.iter().cloned());
                }
            }
            lint_and_report(&profiles, linter.finish(), &rules, &report)
        }
        Command::Rules { format, rules } => {
            let rules = rules::load(rules.as_deref())?;
            emit(&match format {
                RulesFormat::Table => rules_table(&rules),
                RulesFormat::Json => rules_json(&rules),
            })?;
            Ok(0)
        }
        Command::Explain { rule, rules } => {
            let all = rules::load(rules.as_deref())?;
            let r = rules::find(&all, &rule).ok_or_else(|| {
                Error::new(format!("no rule {rule:?}; `gpulint rules` lists them"))
            })?;
            emit(&explain(r))?;
            Ok(0)
        }
        Command::Run {
            ncu,
            report,
            program,
        } => run_program(&ncu, &report, &program),
        Command::Baseline {
            files,
            output,
            ncu_version,
            report,
        } => {
            let (rules, config) = enabled_rules(&report)?;
            let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
            let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
            let profiles = load(&files, report.per_launch, report.jobs, Some(&mut linter))?;
            let analysis = analyze(&profiles, linter.finish(), &rules, &report)?;
            let b = crate::baseline::build(&profiles, &analysis.findings, ncu_version);
            let text = crate::baseline::to_json(&b);
            match output {
                Some(path) => {
                    write_output(&path, text.as_bytes(), &files, "baseline")?;
                    eprintln!("gpulint: wrote {path} ({} kernel(s))", b.kernels.len());
                }
                None => emit(&text)?,
            }
            Ok(0)
        }
        Command::Diff {
            baseline,
            candidate,
            strict,
            thresholds,
            gate_duration,
            report,
        } => diff_command(
            &baseline,
            &candidate,
            strict,
            &thresholds,
            gate_duration,
            &report,
        ),
        Command::Roofline {
            files,
            format,
            svg,
            gpu,
        } => roofline_command(&files, format, svg.as_deref(), gpu.as_deref()),
        Command::Metrics {
            no_roofline,
            chip,
            report,
        } => {
            let (rules, _) = enabled_rules(&report)?;
            let chip = chip
                .as_deref()
                .map(|c| crate::chips::find(c).ok_or_else(|| crate::ncu::unknown_chip(c)))
                .transpose()?;
            let plan = crate::ncu::metric_plan(&rules, !no_roofline, chip);
            if let (Some(c), false) = (chip, plan.unavailable.is_empty()) {
                eprintln!(
                    "gpulint: chip {} has no metric for {}; the rules and roofline that read them would be skipped",
                    c.name,
                    plan.unavailable.join(", ")
                );
            }
            emit(&(plan.metrics.join(",") + "\n"))?;
            Ok(0)
        }
        Command::External(program) => {
            // `gpulint ./prog args`: everything after the program is the program's.
            let cli = crate::cli::Cli::parse_from(
                ["gpulint", "run", "--"]
                    .into_iter()
                    .map(String::from)
                    .chain(program),
            );
            run(cli.command)
        }
        Command::Doctor { ncu } => {
            let checks = crate::ncu::doctor::checks(ncu.as_deref());
            let mut text = String::new();
            for c in &checks {
                let mark = match c.status {
                    crate::ncu::doctor::Status::Pass => "ok  ",
                    crate::ncu::doctor::Status::Warn => "warn",
                    crate::ncu::doctor::Status::Fail => "FAIL",
                };
                text.push_str(&format!("{mark}  {:<9} {}\n", c.name, c.detail));
            }
            emit(&text)?;
            let failed = checks
                .iter()
                .any(|c| c.status == crate::ncu::doctor::Status::Fail);
            Ok(u8::from(failed))
        }
    }
}

fn roofline_command(
    files: &[String],
    format: crate::cli::RooflineFormat,
    svg: Option<&str>,
    gpu: Option<&str>,
) -> Result<u8> {
    let profiles = load(files, false, None, None)?;
    let gpu = gpu_override(gpu)?;
    let placed: Vec<(&ingest::Launch, crate::roofline::Roofline)> = profiles
        .iter()
        .flat_map(|p| &p.launches)
        .filter_map(|l| crate::roofline::place(l, gpu).map(|r| (l, r)))
        .collect();
    if placed.is_empty() {
        return Err(Error::new(
            "no kernel could be placed: the exports lack FLOP counters, DRAM bytes or the duration \
                     (gpulint run collects them; --gpu NAME supplies peaks)",
        ));
    }
    if let Some(path) = svg {
        write_svg(path, &placed, files)?;
    }
    let text = match format {
        crate::cli::RooflineFormat::Human => {
            let mut t = String::new();
            for (l, r) in &placed {
                t.push_str(&format!(
                    "{:>3}  {} ({}x)  AI {:.3} FLOP/B, {}, {:.0}% of roof, {} {}, {}\n",
                    l.id,
                    report::short_name(&l.name),
                    l.count,
                    r.arithmetic_intensity,
                    r.bound.label(),
                    r.pct_of_roof,
                    crate::roofline::si(r.achieved_flops, "FLOP/s"),
                    r.precision,
                    crate::roofline::si(r.achieved_bytes_per_s, "B/s")
                ));
            }
            t
        }
        crate::cli::RooflineFormat::Csv => {
            let mut w = csv::Writer::from_writer(Vec::new());
            let _ = w.write_record([
                "launch",
                "launches",
                "kernel",
                "short_name",
                "arithmetic_intensity",
                "achieved_flops",
                "achieved_bytes_per_s",
                "peak_flops",
                "peak_bytes_per_s",
                "ridge",
                "bound",
                "pct_of_roof",
                "precision",
            ]);
            for (l, r) in &placed {
                let _ = w.write_record([
                    l.id.to_string(),
                    l.count.to_string(),
                    l.name.clone(),
                    report::short_name(&l.name),
                    r.arithmetic_intensity.to_string(),
                    r.achieved_flops.to_string(),
                    r.achieved_bytes_per_s.to_string(),
                    r.peak_flops.to_string(),
                    r.peak_bytes_per_s.to_string(),
                    r.ridge.to_string(),
                    r.bound.as_str().to_string(),
                    r.pct_of_roof.to_string(),
                    r.precision.to_string(),
                ]);
            }
            String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
        }
        crate::cli::RooflineFormat::Json => {
            let list: Vec<serde_json::Value> = placed
                .iter()
                .map(|(l, r)| serde_json::json!({ "launch": l.id, "launches": l.count, "name": l.name, "roofline": r }))
                .collect();
            serde_json::to_string_pretty(&list).expect("plain data") + "\n"
        }
    };
    emit(&text)?;
    Ok(0)
}

fn run_program(ncu: &NcuArgs, report: &ReportArgs, program: &[String]) -> Result<u8> {
    let (rules, config) = enabled_rules(report)?;
    // ncu arguments from gpulint.toml come first, so the command line can add to them.
    let extra_args = config
        .ncu_args
        .iter()
        .chain(&ncu.ncu_args)
        .cloned()
        .collect();
    let opts = NcuOptions {
        ncu: ncu.ncu.clone(),
        kernel_name: ncu.kernel_name.clone(),
        launch_skip: ncu.launch_skip,
        launch_count: ncu.launch_count,
        target_processes_all: ncu.target_processes_all,
        extra_args,
        save_csv: ncu.save_csv.clone(),
        roofline: !ncu.no_roofline,
        source: ncu.source,
        chip: ncu.chip.clone(),
        verbose: report.verbose,
    };
    let info = crate::ncu::profile(&opts, &rules, program)?;
    match info.program_status {
        Some(0) => {}
        Some(code) => eprintln!(
            "gpulint: {} exited with status {code}; its kernels profiled before that are linted",
            program[0]
        ),
        None => eprintln!(
            "gpulint: {} was killed by a signal; its kernels profiled before that are linted",
            program[0]
        ),
    }
    if report.verbose {
        eprintln!("gpulint: profiled with {}", info.ncu.display());
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(&rules, &ignored, !report.per_launch);
    let csv = info.csv.path().display().to_string();
    let mut profiles = load_as(
        &[(csv.as_str(), info.name.as_str())],
        report.per_launch,
        report.jobs,
        Some(&mut linter),
    )?;
    profiles[0].source_blocks = info.source_blocks;
    if report.verbose {
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
    lint_and_report(&profiles, linter.finish(), &rules, report)
}

/// The rules that the options and the config leave switched on.
fn enabled_rules(args: &ReportArgs) -> Result<(Vec<Rule>, Config)> {
    let rules = rules::load(args.rules.as_deref())?;
    let mut config = Config::load(args.config.as_deref())?;
    config.merge_cli(&args.select, &args.ignore, &args.params)?;
    let origin = args.config.as_deref().unwrap_or("gpulint.toml");
    let rules = config.apply(rules, origin)?;
    if rules.is_empty() {
        return Err(Error::new(
            "no rules left to run after --select/--ignore and the config; `gpulint rules` lists them",
        ));
    }
    Ok((rules, config))
}

fn gpu_override(name: Option<&str>) -> Result<Option<&'static crate::roofline::gpus::GpuPeaks>> {
    name.map(|name| {
        crate::roofline::gpus::lookup(name).ok_or_else(|| {
            let known: Vec<&str> = crate::roofline::gpus::GPUS.iter().map(|g| g.name).collect();
            Error::new(format!(
                "--gpu {name:?}: not in the table (known: {})",
                known.join(", ")
            ))
        })
    })
    .transpose()
}

/// Writes the roofline chart, never over an input.
fn write_svg(
    path: &str,
    placed: &[(&ingest::Launch, crate::roofline::Roofline)],
    inputs: &[String],
) -> Result<()> {
    let points: Vec<crate::roofline::svg::Point> = placed
        .iter()
        .map(|(l, r)| crate::roofline::svg::Point {
            name: report::short_name(&l.name),
            launch: l.id,
            roof: r,
        })
        .collect();
    write_output(
        path,
        crate::roofline::svg::render(&points).as_bytes(),
        inputs,
        "chart",
    )
}

/// Inputs at least this large get a progress bar when stderr is a terminal.
const PROGRESS_MIN_BYTES: u64 = 64 << 20;

/// Streams the exports, lints each launch as it arrives (with a linter), and folds
/// repeats of a kernel into one entry unless `--per-launch`: memory grows with distinct
/// kernels, not launches.
fn load(
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
fn load_as(
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
        let source = ingest::stream_named(path, file, &opts, &mut |launch| {
            if let Some(l) = linter.as_deref_mut() {
                l.add(file, &launch);
            }
            folder.add(launch);
            Ok(())
        })?;
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

/// Writes an output file atomically, refusing to put it over one of the inputs.
fn write_output(path: &str, bytes: &[u8], inputs: &[String], what: &str) -> Result<()> {
    if inputs.iter().any(|f| same_file(f, path)) {
        return Err(Error::in_file(
            path,
            format!("refusing to write the {what} over an input profile"),
        ));
    }
    crate::ncu::write_atomically(std::path::Path::new(path), bytes)
}

fn same_file(a: &str, b: &str) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    }
}

/// One side of a diff: a saved baseline (JSON) or an export, linted and summarised.
fn load_side(
    path: &str,
    rules: &[Rule],
    config: &Config,
    args: &ReportArgs,
) -> Result<crate::baseline::Baseline> {
    if starts_like_json(path)? {
        let bytes =
            std::fs::read(path).map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
        return crate::baseline::parse(path, &String::from_utf8_lossy(&bytes));
    }
    let ignored = |n: &str, r: &Rule| config.kernel_ignored(n, r);
    let mut linter = rules::engine::Linter::new(rules, &ignored, !args.per_launch);
    let profiles = load(
        &[path.to_string()],
        args.per_launch,
        args.jobs,
        Some(&mut linter),
    )?;
    let analysis = analyze(&profiles, linter.finish(), rules, args)?;
    Ok(crate::baseline::build(&profiles, &analysis.findings, None))
}

/// Whether a file's first non-blank byte opens a JSON object (a saved baseline).
fn starts_like_json(path: &str) -> Result<bool> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)
        .and_then(|f| f.take(4096).read_to_end(&mut head))
        .map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
    Ok(head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{'))
}

fn diff_command(
    baseline: &str,
    candidate: &str,
    strict: bool,
    thresholds: &[String],
    gate_duration: bool,
    report: &ReportArgs,
) -> Result<u8> {
    let (rules, config) = enabled_rules(report)?;
    let base = load_side(baseline, &rules, &config, report)?;
    let cand = load_side(candidate, &rules, &config, report)?;
    let mut gates = crate::diff::default_gates(gate_duration || config.diff.gate_duration);
    let from_config: Vec<(String, String)> = config
        .diff
        .thresholds
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.as_str().map_or_else(|| v.to_string(), str::to_string),
            )
        })
        .collect();
    crate::diff::apply_thresholds(&mut gates, &from_config, "gpulint.toml [diff.thresholds]")?;
    let from_cli = thresholds
        .iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| Error::new(format!("--threshold {t:?}: expected METRIC=VALUE")))
        })
        .collect::<Result<Vec<_>>>()?;
    crate::diff::apply_thresholds(&mut gates, &from_cli, "--threshold")?;
    let d = crate::diff::diff(&base, &cand, &gates, strict);
    let lines = |kernel: &str| cand.kernels.get(kernel).and_then(|k| k.source.clone());
    let color = use_color(report.color);
    let text = match report.format {
        Format::Human | Format::Concise => report::human::render_diff(&d, color),
        Format::Markdown => report::markdown::render_diff(&d),
        Format::Github => report::github::render_diff(&d, candidate, &lines),
        Format::Sarif => report::sarif::render_diff(&d, &rules, candidate, &lines),
        Format::Json => serde_json::to_string_pretty(&d).expect("plain data") + "\n",
    };
    emit(&text)?;
    Ok(u8::from(d.failed() && !report.exit_zero))
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
        }
    }
}

/// Names the source lines behind access-pattern findings, from the source page: its
/// blocks follow the launches of each kernel in order.
fn attach_source_lines(profiles: &[Profile], findings: &mut [rules::engine::Finding]) {
    const ACCESS_RULES: [&str; 3] = ["uncoalesced-load", "uncoalesced-store", "misaligned-access"];
    for p in profiles.iter().filter(|p| !p.source_blocks.is_empty()) {
        for f in findings
            .iter_mut()
            .filter(|f| f.file == p.file && ACCESS_RULES.contains(&f.rule.as_str()))
        {
            let base = ingest::base_name(&f.kernel);
            let block = p
                .source_blocks
                .iter()
                .filter(|b| ingest::base_name(&b.function) == base)
                .nth(f.nth_of_kernel);
            if let Some(text) = block.and_then(ingest::source::describe) {
                f.notes.push(text);
            }
        }
    }
}

/// Findings after origins, shares and ranking: what every report and the baseline see.
pub struct Analysis {
    pub findings: Vec<rules::engine::Finding>,
    pub skips: Vec<rules::engine::Skip>,
    pub origins: crate::origin::Origins,
    /// Helper kernels (framework plumbing) and how many launches each had.
    pub helpers: Vec<(String, u64)>,
    /// Rule checks that could judge their launch.
    pub judged: usize,
}

pub fn analyze(
    profiles: &[Profile],
    outcome: rules::engine::Outcome,
    rules: &[Rule],
    args: &ReportArgs,
) -> Result<Analysis> {
    let origins = crate::origin::load(args.rules.as_deref())?;
    let mut findings = outcome.findings;
    findings.retain_mut(|f| match origins.adjust(&f.kernel, &f.rule) {
        crate::origin::Adjustment::Drop => false,
        crate::origin::Adjustment::Keep { to_info, note, fix } => {
            if to_info {
                f.severity = f.severity.min(Severity::Info);
            }
            f.notes.extend(note);
            if let Some(fix) = fix {
                f.fix = fix;
            }
            true
        }
    });
    attach_source_lines(profiles, &mut findings);
    let helpers = origins.helpers(
        profiles
            .iter()
            .flat_map(|p| &p.launches)
            .map(|l| (l.name.as_str(), l.count)),
    );
    for f in &mut findings {
        f.origin = Some(origins.describe(&f.kernel));
    }
    // Each kernel's share of the profile's GPU time, by name.
    let mut by_kernel: std::collections::HashMap<&str, f64> = std::collections::HashMap::new();
    let mut total = 0.0;
    for l in profiles.iter().flat_map(|p| &p.launches) {
        if origins.describe(&l.name).kind == crate::origin::Kind::Helper {
            continue;
        }
        if let Some(d) = l.metrics.get("duration_ns") {
            let d = d * l.count as f64;
            *by_kernel.entry(l.name.as_str()).or_default() += d;
            total += d;
        }
    }
    // A rule's own floor: launch-shape and latency findings on a kernel that takes a
    // negligible share of the GPU time (all its launches, not one) are info.
    if total > 0.0 {
        for f in &mut findings {
            let Some(floor) = rules
                .iter()
                .find(|r| r.slug == f.rule)
                .and_then(|r| r.info_below_share_pct)
            else {
                continue;
            };
            let share = by_kernel.get(f.kernel.as_str()).copied().unwrap_or(0.0) / total * 100.0;
            if share < floor && f.severity > Severity::Info {
                f.severity = Severity::Info;
                f.notes.push(format!(
                    "this kernel takes {share:.2}% of the profile's GPU time over all its launches, under {floor}%: reported as info"
                ));
            }
        }
    }
    if args.min_share > 0.0 && total > 0.0 {
        for f in &mut findings {
            let share = by_kernel.get(f.kernel.as_str()).copied().unwrap_or(0.0) / total * 100.0;
            if share < args.min_share && f.severity > Severity::Info {
                f.severity = Severity::Info;
                f.notes.push(format!(
                    "this kernel takes {share:.2}% of the profile's GPU time, under --min-share {}%",
                    args.min_share
                ));
            }
        }
    }
    // Most time at stake first; findings without a duration keep their order at the end.
    findings.sort_by(|a, b| {
        b.time_at_stake_ns
            .unwrap_or(-1.0)
            .partial_cmp(&a.time_at_stake_ns.unwrap_or(-1.0))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Ok(Analysis {
        findings,
        skips: outcome.skips,
        origins,
        helpers,
        judged: outcome.judged,
    })
}

/// Analyses what the linter found, prints the report, and picks the exit code.
pub fn lint_and_report(
    profiles: &[Profile],
    outcome: rules::engine::Outcome,
    rules: &[Rule],
    args: &ReportArgs,
) -> Result<u8> {
    let analysis = analyze(profiles, outcome, rules, args)?;
    let color = use_color(args.color);
    if args.verbose {
        print_verbose(profiles, &analysis.skips);
    }
    // Never a clean report for a file nothing could be judged on.
    let launches: u64 = profiles.iter().map(Profile::launch_count).sum();
    if analysis.judged == 0 && launches > 0 {
        let files: Vec<&str> = profiles.iter().map(|p| p.file.as_str()).collect();
        return Err(Error::new(format!(
            "{}: no rule could judge any of the {launches} launch(es): the export lacks the metrics they read \
             (--verbose lists them); export with `--metrics $(gpulint metrics)` or use `gpulint run`",
            files.join(", ")
        )));
    }
    for p in profiles {
        for w in p.warnings() {
            eprintln!("gpulint: warning: {}: {w}", p.file);
        }
    }
    let gpu = gpu_override(args.gpu.as_deref())?;
    let rooflines: Vec<_> = profiles
        .iter()
        .flat_map(|p| p.launches.iter())
        .map(|l| crate::roofline::place(l, gpu))
        .collect();
    if let Some(path) = &args.svg {
        let placed: Vec<_> = profiles
            .iter()
            .flat_map(|p| &p.launches)
            .zip(&rooflines)
            .filter_map(|(l, r)| r.clone().map(|r| (l, r)))
            .collect();
        let inputs: Vec<String> = profiles.iter().map(|p| p.file.clone()).collect();
        write_svg(path, &placed, &inputs)?;
    }
    let kernels: Vec<_> = crate::fold::kernel_views(
        profiles
            .iter()
            .flat_map(|p| p.launches.iter().map(|l| (p.file.as_str(), l))),
        args.per_launch,
    )
    .into_iter()
    .map(|v| {
        let roof = crate::roofline::place(&v.entry, gpu);
        (v, roof)
    })
    .collect();
    let report = Report {
        profiles,
        findings: &analysis.findings,
        skips: &analysis.skips,
        rooflines: &rooflines,
        kernels: &kernels,
        origins: &analysis.origins,
        helpers: &analysis.helpers,
        top: args.top,
        color,
        verbose: args.verbose,
    };
    let text = match args.format {
        Format::Human => report::human::render(&report),
        Format::Concise => report::concise::render(&report),
        // Streamed: the JSON of thousands of kernels is never held whole.
        Format::Json => {
            emit_with(|out| report::json::write(&report, out))?;
            String::new()
        }
        Format::Markdown => report::markdown::render(&report),
        Format::Github => report::github::render(&report),
        Format::Sarif => report::sarif::render(&report, rules),
    };
    emit(&text)?;
    let threshold = match args.fail_on {
        FailOn::Error => Some(Severity::Error),
        FailOn::Warning => Some(Severity::Warning),
        FailOn::Info => Some(Severity::Info),
        FailOn::Never => None,
    };
    let failed = threshold.is_some_and(|t| analysis.findings.iter().any(|f| f.severity >= t));
    Ok(if failed && !args.exit_zero { 1 } else { 0 })
}

fn print_verbose(profiles: &[Profile], skips: &[rules::engine::Skip]) {
    let mut err = std::io::stderr().lock();
    for p in profiles {
        let _ = writeln!(
            err,
            "gpulint: {}: {:?} page, {} launch(es), {} kernel configuration(s)",
            p.file,
            p.page,
            p.launch_count(),
            p.configurations()
        );
        for note in p.notes.iter().filter(|n| !n.starts_with(ingest::WARNING)) {
            let _ = writeln!(err, "gpulint: {}: {note}", p.file);
        }
    }
    // One line per rule and reason, so a 10,000-launch profile does not print 10,000
    // lines: the first launch of each kernel, and how many launches in all.
    let mut grouped: Vec<(&str, &str, Vec<u64>, u64)> = Vec::new();
    for s in skips {
        match grouped
            .iter_mut()
            .find(|(r, why, _, _)| *r == s.rule && *why == s.reason)
        {
            Some((_, _, ids, n)) => {
                ids.push(s.launch);
                *n += s.launch_count;
            }
            None => grouped.push((&s.rule, &s.reason, vec![s.launch], s.launch_count)),
        }
    }
    for (rule, why, ids, n) in grouped {
        let listed = if n as usize > ids.len() {
            format!(
                "{n} launch(es), first of each kernel {}",
                report::concise::join(&ids)
            )
        } else {
            format!("launch(es) {}", report::concise::join(&ids))
        };
        let _ = writeln!(err, "gpulint: skipped {rule} on {listed}: {why}");
    }
}

/// Writes to stdout; a closed pipe (`gpulint ... | head`) is not an error.
pub fn emit(text: &str) -> Result<()> {
    emit_with(|out| out.write_all(text.as_bytes()))
}

/// Writes to stdout through a buffer, as [`emit`].
pub fn emit_with(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match write(&mut out).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Error::new(format!("cannot write output: {e}")))
        }
        _ => Ok(()),
    }
}

fn rules_table(rules: &[Rule]) -> String {
    let width = rules.iter().map(|r| r.slug.len()).max().unwrap_or(0);
    let mut s = String::new();
    for r in rules {
        s.push_str(&format!(
            "{}  {:width$}  {:<9} {:<10} {}\n",
            r.code,
            r.slug,
            r.severity.as_str(),
            r.category,
            r.summary
        ));
    }
    s
}

fn rules_json(rules: &[Rule]) -> String {
    let list: Vec<serde_json::Value> = rules
        .iter()
        .map(|r| {
            serde_json::json!({
                "code": r.code, "slug": r.slug, "category": r.category,
                "severity": r.severity, "summary": r.summary, "reads": r.reads,
                "params": r.params, "fix": r.fix, "doc": r.doc,
            })
        })
        .collect();
    serde_json::to_string_pretty(&list).expect("plain data") + "\n"
}

fn explain(r: &Rule) -> String {
    let mut s = format!("{} ({}): {}\n\n", r.slug, r.code, r.summary);
    s.push_str(&format!(
        "Category: {}. Default severity: {}.\n",
        r.category,
        r.severity.as_str()
    ));
    s.push_str(&format!("Fires when: {}\n", r.when.source.trim()));
    if !r.params.is_empty() {
        let params: Vec<String> = r.params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        s.push_str(&format!("Thresholds: {}\n", params.join(", ")));
    }
    for (title, body) in [
        ("What it does", &r.doc.what),
        ("Why is this bad?", &r.doc.why),
        ("Example", &r.doc.example),
        ("How to fix it", &r.doc.fix),
    ] {
        s.push_str(&format!("\n## {title}\n{}\n", body.trim()));
    }
    s
}
