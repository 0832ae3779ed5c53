//! `gpulint run --one-run`: the launch tracer reads the counters in the program's one run,
//! and ncu does not run it. Driven by the stand-ins (tests/stand-in/sample writes the
//! recorded trace and counters where the tracer would; tests/stand-in/ncu records its
//! calls) on real captures of one run (fixtures/h100-one-run: the tracer's files from an
//! H100, lab/runs/2026-12-05-range-profiler.txt).

mod common;

use std::process::{Command, Output};

fn stand_in(name: &str) -> String {
    format!("{}/tests/stand-in/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn fixture(name: &str) -> String {
    format!("{}/fixtures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `gpulint check --format json` of a fixture.
fn check_fixture(name: &str) -> serde_json::Value {
    common::check_json(std::path::Path::new(&fixture(name)))
}

/// A report's first finding of `rule`.
fn finding<'a>(report: &'a serde_json::Value, rule: &str) -> &'a serde_json::Value {
    (report["findings"].as_array().unwrap().iter())
        .find(|f| f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} finding"))
}

/// What a run gave: its output, ncu's calls (each its arguments), and the metrics the
/// traced run was asked to read (empty where it was not).
struct OneRun {
    out: Output,
    ncu_calls: Vec<Vec<String>>,
    metrics_asked: String,
    /// The most launches the traced run was told to profile.
    launches_asked: String,
}

/// `gpulint run ARGS -- sample` with the traced run writing `trace` (none where empty) and
/// `counters`.
fn one_run(args: &[&str], trace: &str, counters: &str) -> OneRun {
    let scratch = common::scratch_dir("one-run");
    let (record, asked) = (scratch.join("ncu_calls"), scratch.join("metrics"));
    let launches = scratch.join("launches");
    let sample = stand_in("sample");
    let mut all = vec!["run"];
    all.extend(args);
    all.extend(["--", &sample]);
    let mut command = Command::new(env!("CARGO_BIN_EXE_gpulint"));
    if !trace.is_empty() {
        command.env("FAKE_TRACE", fixture(trace));
    }
    let out = command
        .args(&all)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_RECORD", &record)
        .env("FAKE_NCU_REPLAY", fixture("h200-corpus/all_lud.csv"))
        .env("FAKE_NCU_MODE", "normal")
        // Any file stands for the built tracer and for CUPTI: the stand-in program only
        // checks that they are set.
        .env("GPULINT_LAUNCH_TRACER", stand_in("ncu"))
        .env("GPULINT_CUPTI", stand_in("ncu"))
        .env("FAKE_COUNTERS", counters)
        .env("FAKE_COUNTER_METRICS_SEEN", &asked)
        .env("FAKE_COUNTER_LAUNCHES_SEEN", &launches)
        .env("XDG_CACHE_HOME", scratch.join("cache"))
        .output()
        .unwrap();
    let calls = std::fs::read_to_string(&record).unwrap_or_default();
    OneRun {
        out,
        ncu_calls: (calls.split("--END--\n"))
            .filter(|c| !c.is_empty())
            .map(|c| c.lines().map(String::from).collect())
            .collect(),
        metrics_asked: std::fs::read_to_string(&asked)
            .unwrap_or_default()
            .trim()
            .to_string(),
        launches_asked: std::fs::read_to_string(&launches)
            .unwrap_or_default()
            .trim()
            .to_string(),
    }
}

/// Whether ncu was asked to profile (a call with `--metrics`; asking for the chip is not).
fn ncu_profiled(run: &OneRun) -> bool {
    run.ncu_calls
        .iter()
        .any(|c| c.iter().any(|a| a == "--metrics"))
}

/// LU's one run on an H100, the tracer profiling the first launch of each of its three
/// kernels: ncu never profiles, the traced run is asked for the metrics ncu would be
/// given, and the report stands on the tracer's three launches for the trace's 190, each
/// of its warnings one that profiling every launch gives too (the H200's capture of
/// every launch, whose chip is the H100's).
#[test]
fn one_run_reports_from_the_tracers_counters_without_ncu() {
    let counters = fixture("h100-one-run/first_launches_lud.counters.csv");
    let saved = common::scratch_dir("one-run-saved");
    let csv = saved.join("lud.csv");
    let run = one_run(
        &[
            "--one-run",
            "--save-csv",
            csv.to_str().unwrap(),
            "--format",
            "json",
            "--exit-zero",
        ],
        "h100-one-run/first_launches_lud.trace.csv",
        &counters,
    );
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert!(run.out.status.success(), "{stderr}");
    assert!(!ncu_profiled(&run), "{:?}", run.ncu_calls);
    let planned = common::gpulint(&["metrics"]);
    assert_eq!(
        run.metrics_asked,
        String::from_utf8_lossy(&planned.stdout).trim()
    );
    assert!(stderr.contains("ran once"), "{stderr}");
    assert!(!stderr.contains("runs twice"), "{stderr}");
    let report = common::json_report(&run.out);
    let source = &report["sources"][0];
    assert_eq!(source["sample"], "traced", "{source}");
    assert_eq!(source["profiled_launches"], 3);
    assert_eq!(source["counted_launches"], 190);
    let warnings = common::warnings_of(&report);
    let every = common::warnings_of(&check_fixture("h200-corpus/all_lud.csv"));
    assert!(!warnings.is_empty());
    assert!(warnings.is_subset(&every), "{warnings:?} beyond {every:?}");
    // The saved run gives `check` the run's report: its sample, its warnings.
    let checked = common::check_json(&csv);
    assert_eq!(checked["sources"][0]["sample"], "traced");
    assert_eq!(checked["sources"][0]["profiled_launches"], 3);
    assert_eq!(common::warnings_of(&checked), warnings);
}

/// Where the tracer profiled nothing (a metric the chip lacks stopped it), the program
/// runs again under ncu, which profiles the sample by time, and stderr says why.
#[test]
fn one_run_falls_back_to_ncu_where_the_tracer_profiled_nothing() {
    let stopped = common::scratch_file(
        "counters.csv",
        b"# gpulint counters 1, process 753, passes 0, profiled launches 0\n\
          correlation,dram__bytes_read.sum\n\
          # stopped: cuptiProfilerHostConfigAddMetrics returned 1\n",
    );
    let run = one_run(
        &["--one-run", "--format", "json", "--exit-zero"],
        "h100-one-run/first_launches_lud.trace.csv",
        stopped.to_str().unwrap(),
    );
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert!(ncu_profiled(&run), "{stderr}");
    assert!(
        stderr.contains("runs again, under ncu")
            && stderr.contains("cuptiProfilerHostConfigAddMetrics returned 1"),
        "{stderr}"
    );
    let report = common::json_report(&run.out);
    assert_eq!(report["sources"][0]["sample"], "by-time");
}

/// Options that ncu carries out keep the two runs, and say so, whether --one-run or the
/// default asked for one run; with --two-runs the traced run is asked for no counters.
#[test]
fn one_run_gives_way_to_what_only_ncu_does() {
    let counters = fixture("h100-one-run/first_launches_lud.counters.csv");
    let trace = "h100-one-run/first_launches_lud.trace.csv";
    let run = one_run(
        &[
            "--one-run",
            "-k",
            "lud_internal",
            "--format",
            "json",
            "--exit-zero",
        ],
        trace,
        &counters,
    );
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert!(
        stderr.contains("--one-run would run the program once; it runs twice: -k"),
        "{stderr}"
    );
    assert!(
        ncu_profiled(&run) && run.metrics_asked.is_empty(),
        "{stderr}"
    );
    let by_default = one_run(&["-k", "lud_internal", "--exit-zero"], trace, &counters);
    let stderr = String::from_utf8_lossy(&by_default.out.stderr);
    assert!(
        stderr.contains("the default would run the program once; it runs twice: -k"),
        "{stderr}"
    );
    let two = one_run(&["--two-runs", "--exit-zero"], trace, &counters);
    assert!(ncu_profiled(&two) && two.metrics_asked.is_empty());
    let once = one_run(&["--exit-zero"], trace, &counters);
    assert!(!ncu_profiled(&once) && !once.metrics_asked.is_empty());
}

/// A config that turns the tracer off (`launch-trace = false`) leaves no traced run: ncu
/// profiles the program alone. --one-run asked by name is told why; the default is quiet.
#[test]
fn a_config_without_the_tracer_runs_the_program_under_ncu() {
    let scratch = common::scratch_dir("no-tracer-config");
    let config = scratch.join("gpulint.toml");
    std::fs::write(&config, "launch-trace = false\n").unwrap();
    let counters = fixture("h100-one-run/first_launches_lud.counters.csv");
    let trace = "h100-one-run/first_launches_lud.trace.csv";
    let config = config.to_str().unwrap();
    let named = one_run(
        &["--one-run", "--config", config, "--exit-zero"],
        trace,
        &counters,
    );
    let stderr = String::from_utf8_lossy(&named.out.stderr);
    assert!(
        stderr.contains("--one-run would run the program under the launch tracer; launch-trace = false in gpulint.toml says not"),
        "{stderr}"
    );
    assert!(
        ncu_profiled(&named) && named.metrics_asked.is_empty(),
        "{stderr}"
    );
    let quiet = one_run(&["--config", config, "--exit-zero"], trace, &counters);
    let stderr = String::from_utf8_lossy(&quiet.out.stderr);
    assert!(!stderr.contains("would run the program"), "{stderr}");
    assert!(ncu_profiled(&quiet), "{stderr}");
}

/// --window runs the program once, the tracer profiling up to 100 launches (a training
/// step's functions, its backward's included), as one run does without it; --two-runs
/// keeps ncu's run.
#[test]
fn a_window_runs_the_program_once() {
    let counters = fixture("h100-one-run/first_launches_lud.counters.csv");
    let trace = "h100-one-run/first_launches_lud.trace.csv";
    let args = ["--window", "20", "--format", "json", "--exit-zero"];
    let run = one_run(&args, trace, &counters);
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert!(run.out.status.success(), "{stderr}");
    assert!(!ncu_profiled(&run), "{:?}", run.ncu_calls);
    assert!(stderr.contains("ran once"), "{stderr}");
    assert_eq!(run.launches_asked, "100");
    let plain = one_run(
        &["--one-run", "--format", "json", "--exit-zero"],
        trace,
        &counters,
    );
    assert_eq!(plain.launches_asked, "100");
    let mut two = args.to_vec();
    two.push("--two-runs");
    let two = one_run(&two, trace, &counters);
    assert!(ncu_profiled(&two) && two.metrics_asked.is_empty());
    let report = common::json_report(&two.out);
    assert_eq!(report["sources"][0]["sample"], "by-time");
}

/// A saved one run of LU on an H100 (fixtures/h100-one-run/one_lud.*): `gpulint check`
/// reads its traced sample, and the device's attributes the tracer wrote let the rules
/// that need the SM count judge (small-grid, partial-wave, which an export without them
/// skips); each of its warnings is one every launch's capture gives too.
#[test]
fn a_saved_one_run_reads_back_with_the_devices_attributes() {
    let report = check_fixture("h100-one-run/one_lud.csv");
    let source = &report["sources"][0];
    assert_eq!(source["sample"], "traced", "{source}");
    assert_eq!(source["profiled_launches"], 3);
    assert_eq!(source["counted_launches"], 190);
    let judged = report["coverage"]["judged"].as_array().unwrap();
    for rule in ["small-grid", "partial-wave"] {
        assert!(
            judged.iter().any(|r| r == rule),
            "{rule} not judged: {judged:?}"
        );
    }
    let warnings = common::warnings_of(&report);
    let every = common::warnings_of(&check_fixture("h200-corpus/all_lud.csv"));
    assert!(!warnings.is_empty());
    assert!(warnings.is_subset(&every), "{warnings:?} beyond {every:?}");
}

/// Saved one runs of LU and BFS on an H100 (fixtures/h100-one-run/loops_*), each beside
/// `--all-launches` on the same GPU in the same call: LU's 13 profiled launches give every
/// launch's warnings, each kernel's small grids among them.
#[test]
fn a_saved_one_run_of_lu_warns_as_every_launch_does() {
    let one = check_fixture("h100-one-run/loops_lud.csv");
    assert_eq!(one["sources"][0]["profiled_launches"], 13);
    let every = check_fixture("h100-one-run/all_lud.csv");
    assert_eq!(every["sources"][0]["launch_count"], 190);
    assert_eq!(common::warnings_of(&one), common::warnings_of(&every));
}

/// BFS's one run profiled Kernel at its 1st and 8th level (6.5 and 89.5 us by its
/// counters; the trace has no time for a replayed launch). Each unprofiled level stands
/// with the profiled one nearest its duration, so the 8th stands in its kernel's row for
/// the four heavy levels (27-73 us); its counters speak for those within 2x of its time,
/// itself and the 7th level (72.2 us), and its uncoalesced gather is staked on theirs:
/// near what every launch's capture on the same H100 stakes (all_bfs.csv, the gather on 3
/// levels), where standing for all four heavy levels put 44% more at stake.
#[test]
fn a_one_runs_replayed_launches_are_timed_by_their_counters() {
    let report = check_fixture("h100-one-run/loops_bfs.csv");
    let gather = finding(&report, "uncoalesced-load");
    assert_eq!(gather["launch"], 14, "{gather}");
    assert_eq!(gather["launch_count"], 2, "{gather}");
    let row = (report["kernels"].as_array().unwrap().iter())
        .find(|k| k["launch"] == 0)
        .unwrap();
    assert_eq!(row["launch_count"], 11);
    let every = check_fixture("h100-one-run/all_bfs.csv");
    let stake = |f: &serde_json::Value| f["time_at_stake_ns"].as_f64().unwrap();
    let truth = stake(finding(&every, "uncoalesced-load"));
    assert!(
        (stake(gather) / truth - 1.0).abs() < 0.1,
        "{} against every launch's {truth}",
        stake(gather)
    );
}

/// BFS's one run with a steady loop's repeats (fixtures/h100-one-run/loops3_bfs.*) finds
/// divergent-warps on Kernel's 9th level, whose SM issues in 40.1% of its cycles under the
/// range profiler and 36.2% under ncu (all_bfs.csv, the same level), against a 40% bar:
/// the finding says it is near the bar and, its replay's L2 being warm, is info, so the one
/// run warns as every launch's capture does.
#[test]
fn a_one_runs_finding_near_its_bar_says_so() {
    let one = check_fixture("h100-one-run/loops3_bfs.csv");
    let divergent = finding(&one, "divergent-warps");
    let notes = divergent["notes"].to_string();
    assert!(notes.contains("near the limit"), "{notes}");
    assert_eq!(divergent["severity"], "info", "{divergent}");
    assert!(
        (divergent["info_because"].as_str().unwrap()).contains("near its bar"),
        "{divergent}"
    );
    let every = common::warnings_of(&check_fixture("h100-one-run/all_bfs.csv"));
    assert!(!every.iter().any(|(_, rule)| rule == "divergent-warps"));
    assert_eq!(common::warnings_of(&one), every);
}

/// In one run, the configurations the tracer left unprofiled (a build that profiled each
/// kernel's first launch alone left LU's perimeter and internal steps on their later
/// grids, 29.3% of the GPU time) are named with the way to profile them: `--two-runs`,
/// whose ncu run samples by GPU time.
#[test]
fn one_runs_unprofiled_configurations_say_how_to_profile_them() {
    let out = common::gpulint(&[
        "check",
        &fixture("h100-one-run/one_lud.csv"),
        "-v",
        "--exit-zero",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "were not profiled (lud_perimeter 22.8%, lud_internal 6.5%): their time counts \
             toward their kernels' or the total, their counters are not read (--two-runs \
             has ncu profile a sample by GPU time)"
        ),
        "{stderr}"
    );
}

/// The same export read without the record that says the tracer's replay measured it (as
/// an ncu export is read) keeps the warning: only one run's counters are unsettled there.
#[test]
fn near_its_bar_a_finding_is_info_only_in_one_run() {
    let scratch = common::scratch_dir("unsettled");
    let export = scratch.join("loops3_bfs.csv");
    std::fs::copy(fixture("h100-one-run/loops3_bfs.csv"), &export).unwrap();
    let report = common::check_json(&export);
    let divergent = finding(&report, "divergent-warps");
    assert_eq!(divergent["severity"], "warning", "{divergent}");
}

/// A traced run that wrote no trace (the stand-in program writes none) cannot stand for
/// the one run stderr announced: it says the program runs again under ncu, and ncu does.
#[test]
fn one_run_without_a_trace_says_the_program_runs_again() {
    let counters = fixture("h100-one-run/first_launches_lud.counters.csv");
    let run = one_run(
        &["--one-run", "--format", "json", "--exit-zero"],
        "",
        &counters,
    );
    let stderr = String::from_utf8_lossy(&run.out.stderr);
    assert!(
        stderr.contains("runs once")
            && stderr.contains("runs again, under ncu: the traced run gave no trace"),
        "{stderr}"
    );
    assert!(ncu_profiled(&run), "{stderr}");
}
