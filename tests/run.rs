//! `gpulint run` and `gpulint ./prog` against a stand-in ncu that records its arguments
//! and replays a real H200 capture.
// Linux only: the stand-ins are bash scripts, and stopping a run reads /proc.
#![cfg(target_os = "linux")]

mod common;

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::{Command, Output};

use common::{check_json, fixture, json_report, kernel_shares, transcript, warnings_of};

fn stand_in(name: &str) -> String {
    format!("{}/tests/stand-in/{name}", env!("CARGO_MANIFEST_DIR"))
}

struct Run {
    out: Output,
    args: Vec<String>,
}

fn run_with(mode: &str, gpulint_args: &[&str], extra_env: &[(&str, &str)]) -> Run {
    let scratch = common::scratch_dir("args");
    let record = scratch.join("args");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpulint"));
    cmd.args(gpulint_args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_RECORD", &record)
        .env(
            "FAKE_NCU_REPLAY",
            fixture("h200-zoo/min_raw_stdout_mixed.txt"),
        )
        .env("FAKE_NCU_MODE", mode)
        // Tests choose their launch trace (tests/stand-in/sample writes $FAKE_TRACE).
        .env("GPULINT_LAUNCH_TRACER", "off")
        // A cache of its own: what one run remembers (the stall samples' memory) must not
        // reach another test's run, nor the user's cache.
        .env("XDG_CACHE_HOME", scratch.join("cache"));
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    // The first ncu call's arguments (more calls follow with --source).
    let args = first_call(&record);
    let _ = std::fs::remove_file(record);
    Run { out, args }
}

/// The arguments of the first call a stand-in record holds (none where it holds none).
fn first_call(record: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .take_while(|l| *l != "--END--")
        .map(String::from)
        .collect()
}

/// A user who names sections, a set or a folder of their own gets ncu's folder, not
/// gpulint's empty one.
#[test]
fn the_users_own_sections_keep_ncus_folder() {
    let sample = stand_in("sample");
    for own in [
        ["--ncu-arg=--set", "--ncu-arg=full"],
        [
            "--ncu-arg=--section=SpeedOfLight",
            "--ncu-arg=--clock-control=none",
        ],
        ["--ncu-arg=--section-folder", "--ncu-arg=/mine"],
    ] {
        let mut args = vec!["run", "--launch-count", "1"];
        args.extend(own);
        args.extend(["--format", "concise", "--", &sample]);
        let r = run_with("normal", &args, &[]);
        assert!(
            !r.args.iter().any(|a| a.contains("gpulint-no-sections-")),
            "{own:?}: {:?}",
            r.args
        );
    }
}

#[test]
fn passes_exact_arguments_and_lints_the_replay() {
    let sample = stand_in("sample");
    let r = run_with(
        "normal",
        &[
            "run",
            "-k",
            "regex:copy_.*",
            "--launch-skip",
            "2",
            "--launch-count",
            "5",
            "--target-processes-all",
            "--ncu-arg=--clock-control",
            "--ncu-arg=none",
            "--format",
            "concise",
            "--",
            &sample,
            "a b",
            "--flag",
        ],
        &[],
    );
    // An empty section folder first: ncu then starts without reading its own sections
    // and rules, which a run of named metrics does not use.
    assert_eq!(r.args[0], "--section-folder");
    assert!(r.args[1].contains("gpulint-no-sections-"), "{}", r.args[1]);
    let no_sections = PathBuf::from(&r.args[1]);
    let a = &r.args[2..];
    // A report (-o), imported as the raw page afterwards: ncu then logs each launch it
    // profiles, for the progress line.
    assert_eq!(a[0], "-o");
    assert!(a[1].ends_with("gpulint"), "{}", a[1]);
    assert_eq!(a[2], "--metrics");
    assert_eq!(a[4], "--log-file");
    assert!(
        a[5].contains("gpulint-ncu-") && a[5].ends_with(".csv"),
        "{}",
        a[5]
    );
    let report_dir = PathBuf::from(&a[1]).parent().unwrap().to_path_buf();
    for temporary in [PathBuf::from(&a[5]), report_dir, no_sections] {
        assert!(
            !temporary.exists(),
            "temporary {} was left behind",
            temporary.display()
        );
    }
    assert_eq!(
        &a[6..],
        [
            "--kernel-name",
            "regex:copy_.*",
            "--launch-skip",
            "2",
            "--launch-count",
            "5",
            "--target-processes",
            "all",
            "--clock-control",
            "none",
            &sample,
            "a b",
            "--flag"
        ]
    );
    // The program's output passes through unchanged, before the report.
    let stdout = String::from_utf8_lossy(&r.out.stdout);
    assert!(
        stdout.starts_with("sample ran with: a b --flag\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("warning[GL101] uncoalesced-load copy_strided launch 1"),
        "{stdout}"
    );
    assert_eq!(r.out.status.code(), Some(1));
}

/// The metric list comes from the rule files, names only metrics ncu 2025.3 knows for
/// GH100 (checked against its `--query-metrics`), and leaves out what ncu adds itself.
#[test]
fn metric_list_is_minimal_and_valid_for_gh100() {
    let sample = stand_in("sample");
    let r = run_with(
        "normal",
        &["run", "--format", "concise", "--", &sample],
        &[],
    );
    let metrics: Vec<&str> = arg_after(&r.args, "--metrics").split(',').collect();
    let known: HashSet<String> =
        std::fs::read_to_string(fixture("ncu/query_metrics_gh100_names.txt"))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
    for m in &metrics {
        let base = m.split('.').next().unwrap();
        assert!(known.contains(base), "{m} is not a GH100 metric");
        assert!(
            !m.starts_with("launch__") && !m.starts_with("derived__"),
            "{m}"
        );
    }
    for needed in [
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "gpu__time_duration.sum",
        "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
        "dram__bytes.sum.peak_sustained",
    ] {
        assert!(metrics.contains(&needed), "missing {needed}");
    }
    // Fewer rules, fewer metrics; the roofline's come off with --no-roofline.
    let one = run_with(
        "normal",
        &[
            "run",
            "--select",
            "small-grid",
            "--no-roofline",
            "--format",
            "concise",
            "--",
            &sample,
        ],
        &[],
    );
    let fewer: Vec<&str> = arg_after(&one.args, "--metrics").split(',').collect();
    assert!(fewer.len() < metrics.len() / 3, "{fewer:?}");
    insta::assert_snapshot!(metrics.join("\n"));
}

#[test]
fn bare_program_form_is_run() {
    let sample = stand_in("sample");
    let r = run_with("normal", &[&sample, "--format", "json"], &[]);
    let stdout = String::from_utf8_lossy(&r.out.stdout);
    // Arguments after the program are the program's, not gpulint's.
    assert!(
        stdout.starts_with("sample ran with: --format json\n"),
        "{stdout}"
    );
    assert_eq!(r.args.last().unwrap(), "json");
    assert!(
        stdout.contains("warning[GL103] misaligned-access"),
        "{stdout}"
    );
}

/// A run that kept no export names no file the user lacks (`ncu:./prog:5`): findings
/// point at the program, and GitHub annotations carry no file.
#[test]
fn a_run_without_an_export_points_at_the_program() {
    let sample = stand_in("sample");
    for format in ["human", "concise", "github"] {
        let r = run_with("normal", &["run", "--format", format, "--", &sample], &[]);
        let stdout = String::from_utf8_lossy(&r.out.stdout);
        assert!(!stdout.contains("ncu:"), "{format}: {stdout}");
        if format != "github" {
            assert!(
                stdout.contains(&format!(
                    "{sample} (profiled by gpulint run; --save-csv keeps the export)"
                )),
                "{format}: {stdout}"
            );
        } else {
            assert!(stdout.contains("::warning title=GL103"), "{stdout}");
        }
    }
}

#[test]
fn save_csv_keeps_the_export_for_check() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("saved");
    let saved = scratch.join("saved.csv");
    let r = run_with(
        "normal",
        &[
            "run",
            "--save-csv",
            saved.to_str().unwrap(),
            "--format",
            "concise",
            "--",
            &sample,
        ],
        &[],
    );
    assert_eq!(r.out.status.code(), Some(1));
    let check = common::gpulint(&["check", saved.to_str().unwrap(), "--format", "concise"]);
    let run_report = String::from_utf8_lossy(&r.out.stdout)
        .lines()
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        run_report.trim(),
        String::from_utf8_lossy(&check.stdout).trim()
    );
    std::fs::remove_file(saved).unwrap();
}

/// The program's own arguments reach it as the OS gave them: a file name that is not
/// UTF-8 is passed to ncu, and so to the program, byte for byte.
#[test]
fn a_program_argument_that_is_not_utf8_reaches_the_program() {
    use std::os::unix::ffi::OsStrExt;
    let scratch = common::scratch_dir("non-utf8");
    let record = scratch.join("args");
    let sample = stand_in("sample");
    let arg = std::ffi::OsStr::from_bytes(b"input-\xff.bin");
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["run", "--format", "concise", "--exit-zero", "--"])
        .arg(&sample)
        .arg(arg)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_RECORD", &record)
        .env(
            "FAKE_NCU_REPLAY",
            fixture("h200-zoo/min_raw_stdout_mixed.txt"),
        )
        .env("GPULINT_LAUNCH_TRACER", "off")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded = std::fs::read(&record).unwrap();
    let wanted = [sample.as_bytes(), b"\n", arg.as_bytes(), b"\n--END--"].concat();
    assert!(
        recorded
            .windows(wanted.len())
            .any(|w| w == wanted.as_slice()),
        "{}",
        String::from_utf8_lossy(&recorded)
    );
}

/// A program that fails under ncu is linted on the kernels it ran, and its status is the
/// report's (JSON's `program_exit`, the human footer) and gpulint's: exit 3 whatever the
/// findings, `--exit-zero` or not, so that a gate never passes on half a run.
#[test]
fn failing_program_with_kernels_is_linted_and_reported() {
    let sample = stand_in("sample");
    let r = run_with(
        "normal",
        &["run", "--format", "concise", "--", &sample],
        &[("FAKE_SAMPLE_STATUS", "3")],
    );
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(stderr.contains("exited with status 3"), "{stderr}");
    assert_eq!(r.out.status.code(), Some(3), "{stderr}");
    assert!(String::from_utf8_lossy(&r.out.stdout).contains("GL101"));

    let json = |status: &str| {
        let r = run_with(
            "normal",
            &["run", "--format", "json", "--exit-zero", "--", &sample],
            &[("FAKE_SAMPLE_STATUS", status)],
        );
        (
            json_report(&r.out)["sources"][0]["program_exit"].clone(),
            r.out.status.code(),
        )
    };
    let (failed, code) = json("3");
    assert_eq!(code, Some(3));
    assert_eq!(failed["status"], 3, "{failed}");
    assert_eq!(failed["failed"], true, "{failed}");
    let (clean, code) = json("0");
    assert_eq!(code, Some(0));
    assert_eq!(clean["status"], 0, "{clean}");
    assert_eq!(clean["failed"], false, "{clean}");

    let r = run_with(
        "normal",
        &["run", "--", &sample],
        &[("FAKE_SAMPLE_STATUS", "3")],
    );
    let text = String::from_utf8_lossy(&r.out.stdout);
    assert!(
        text.contains("the program exited with status 3: only the kernels it ran before that were profiled (exit 3)"),
        "{text}"
    );
}

#[test]
fn each_error_exits_2_with_a_clear_message() {
    let sample = stand_in("sample");
    let cases: Vec<(&str, Vec<String>, &str)> = vec![
        (
            "perm",
            vec!["run".into(), "--".into(), sample.clone()],
            "NVreg_RestrictProfilingToAdminUsers=0",
        ),
        (
            "nokernels",
            vec!["run".into(), "--".into(), sample.clone()],
            "no kernel was profiled",
        ),
        (
            "crash",
            vec!["run".into(), "--".into(), sample.clone()],
            "An error was reported by the driver",
        ),
        (
            "normal",
            vec!["run".into(), "--".into(), "./no/such/program".into()],
            "no such file",
        ),
        (
            "normal",
            vec![
                "run".into(),
                "--".into(),
                fixture("h200-zoo/CAPTURES.md").display().to_string(),
            ],
            "not an executable",
        ),
        (
            "normal",
            vec![
                "run".into(),
                "--ncu".into(),
                "/nonexistent/ncu".into(),
                "--".into(),
                sample.clone(),
            ],
            "--ncu /nonexistent/ncu",
        ),
    ];
    for (mode, args, want) in cases {
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run_with(mode, &argv, &[]);
        let stderr = String::from_utf8_lossy(&r.out.stderr);
        assert_eq!(
            r.out.status.code(),
            Some(2),
            "{mode} {args:?}: {}",
            transcript(&r.out)
        );
        assert!(stderr.contains(want), "{mode}: {stderr} should say {want}");
    }
}

#[test]
fn missing_ncu_says_where_it_looked() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["run", "--", "/bin/true"])
        .env_remove("NCU")
        .env("PATH", "/nonexistent")
        .env("CUDA_HOME", "/nonexistent/cuda")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr.contains("looked in: PATH, /nonexistent/cuda/bin/ncu, /usr/local/cuda/bin/ncu"),
        "{stderr}"
    );
    assert!(stderr.contains("--ncu"), "{stderr}");
}

#[test]
fn doctor_reports_each_check() {
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["doctor", "--ncu", &stand_in("ncu")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ok    ncu       "), "{stdout}");
    assert!(stdout.contains("Version 2025.3.1.0 (stand-in)"), "{stdout}");
    for name in ["GPU", "counters", "clocks"] {
        assert!(
            stdout.lines().any(|l| l[6..].starts_with(name)),
            "{name}: {stdout}"
        );
    }
}

#[test]
fn source_runs_a_report_then_names_the_worst_lines() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("src");
    let record = scratch.join("args");
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "run",
            "--source",
            "--select",
            "uncoalesced-load",
            "--color",
            "never",
            "--",
            &sample,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_RECORD", &record)
        .env("FAKE_NCU_REPLAY", fixture("h200-zoo/full_raw_base.csv"))
        .env(
            "FAKE_NCU_SOURCE",
            fixture("h200-zoo/full_source_cuda_sass_strided.csv"),
        )
        .output()
        .unwrap();
    let calls: Vec<Vec<String>> = std::fs::read_to_string(&record)
        .unwrap()
        .split("--END--\n")
        .filter(|c| !c.is_empty())
        .map(|c| c.lines().map(String::from).collect())
        .collect();
    let _ = std::fs::remove_file(&record);
    // 1: profile into a report, with gpulint's section of the source columns it reads
    // (the warps' stall samples with them: no pass follows a sample that does not name
    // its kernels).
    assert_eq!(calls[0][0], "--section-folder");
    assert!(calls[0][1].contains("gpulint-sections-"), "{:?}", calls[0]);
    assert_eq!(calls[0][2..5], ["--section", "GpulintSourceLines", "-o"]);
    assert!(calls[0].contains(&"--metrics".to_string()));
    let report = format!("{}.ncu-rep", calls[0][5]);
    // 2: the raw page from the report; 3..: one source page per kernel, by base name.
    assert_eq!(
        calls[1],
        [
            "--import",
            &report,
            "--csv",
            "--page",
            "raw",
            "--print-units",
            "base"
        ]
    );
    let kernels: Vec<&str> = calls[2..]
        .iter()
        .map(|c| c.last().unwrap().as_str())
        .collect();
    assert!(
        kernels.contains(&"copy_strided") && kernels.contains(&"transpose_tiled"),
        "{kernels:?}"
    );
    assert_eq!(
        &calls[2][..7],
        [
            "--import",
            &report,
            "--csv",
            "--page",
            "source",
            "--print-source",
            "cuda,sass"
        ]
    );
    assert!(
        !std::path::Path::new(&report).exists(),
        "temporary report left behind"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("worst source lines: zoo.cu:26 (100% of excess sectors)"),
        "{}",
        transcript(&out)
    );
}

/// `gpulint run -- sample` in a process group of its own, as a terminal runs it, with the
/// stand-ins named by `envs`; and when it started.
fn run_in_own_group(
    envs: &[(&str, &std::ffi::OsStr)],
) -> (std::process::Child, std::time::Instant) {
    use std::os::unix::process::CommandExt;
    let child = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args(["run", "--", &stand_in("sample")])
        .envs(envs.iter().copied())
        .process_group(0)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    (child, std::time::Instant::now())
}

/// Waits, up to 20 s after `start`, for a stand-in to write `path`.
fn wait_for(path: &std::path::Path, start: std::time::Instant) {
    while !path.exists() && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Ctrl-C: SIGINT to the child's whole process group; it must be gone within 20 s of
/// `start`.
fn interrupt(child: std::process::Child, start: std::time::Instant) -> std::process::Output {
    let status = Command::new("kill")
        .args(["-s", "INT", "--", &format!("-{}", child.id())])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert!(
        start.elapsed() < std::time::Duration::from_secs(20),
        "did not stop"
    );
    out
}

/// Ctrl-C reaches gpulint, ncu and the program together (one process group): gpulint
/// waits for ncu to stop, removes its temporary file, and exits 2.
#[test]
fn ctrl_c_cleans_up() {
    let scratch = common::scratch_dir("int");
    let record = scratch.join("args");
    let _ = std::fs::remove_file(&record);
    let ncu = stand_in("ncu");
    let (child, start) = run_in_own_group(&[
        ("NCU", ncu.as_ref()),
        ("FAKE_NCU_RECORD", record.as_os_str()),
        ("FAKE_NCU_MODE", "hang".as_ref()),
    ]);
    wait_for(&record, start);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let args: Vec<String> = std::fs::read_to_string(&record)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let log = arg_after(&args, "--log-file").to_string();
    let report_dir = std::path::Path::new(arg_after(&args, "-o"))
        .parent()
        .unwrap()
        .to_path_buf();
    assert!(
        std::path::Path::new(&log).exists(),
        "ncu's log should exist while it runs"
    );
    // Its temporary folders are the user's alone: the report names the program's kernels.
    use std::os::unix::fs::PermissionsExt;
    let sections = std::path::PathBuf::from(arg_after(&args, "--section-folder"));
    for dir in [&report_dir, &sections] {
        let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{} is {mode:o}", dir.display());
    }
    let out = interrupt(child, start);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    assert!(
        !std::path::Path::new(&log).exists(),
        "temporary file {log} left behind"
    );
    assert!(
        !report_dir.exists(),
        "temporary folder {} left behind",
        report_dir.display()
    );
    let _ = std::fs::remove_file(&record);
}

/// SIGTERM or SIGHUP sent to gpulint alone (a service manager, a closed terminal, CI's
/// timeout) stop the run as Ctrl-C does: ncu and a program that ignores SIGTERM are
/// stopped too (SIGKILL after 6 s), none outlives gpulint, and it exits 2 saying so.
fn a_signal_to_gpulint_alone_stops_every_process(signal: &str) {
    let scratch = common::scratch_dir("term");
    let (record, pids) = (scratch.join("args"), scratch.join("pids"));
    let ncu = stand_in("ncu");
    let (child, start) = run_in_own_group(&[
        ("NCU", ncu.as_ref()),
        ("FAKE_NCU_RECORD", record.as_os_str()),
        ("FAKE_NCU_MODE", "stubborn".as_ref()),
        ("FAKE_STUBBORN_PIDS", pids.as_os_str()),
    ]);
    let two_pids = || {
        std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse::<u32>().ok())
            .collect::<Vec<_>>()
    };
    while two_pids().len() < 2 && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let stubborn = two_pids();
    assert_eq!(stubborn.len(), 2, "the stand-in did not start its program");
    let status = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "SIG{signal}: {stderr}");
    assert!(
        stderr.contains("interrupted; ncu and the program were stopped"),
        "SIG{signal}: {stderr}"
    );
    let alive = |pid: &u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
            s.rsplit_once(')')
                .is_some_and(|(_, r)| !r.trim_start().starts_with('Z'))
        })
    };
    let left: Vec<&u32> = stubborn.iter().filter(|p| alive(p)).collect();
    for pid in &left {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    assert!(left.is_empty(), "SIG{signal} left {left:?} running");
}

#[test]
fn sigterm_stops_ncu_and_a_program_that_ignores_it() {
    a_signal_to_gpulint_alone_stops_every_process("TERM");
}

#[test]
fn sighup_stops_ncu_and_a_program_that_ignores_it() {
    a_signal_to_gpulint_alone_stops_every_process("HUP");
}

/// The argument after `flag` in a recorded ncu call.
fn arg_after<'a>(args: &'a [String], flag: &str) -> &'a str {
    let i = args
        .iter()
        .position(|a| a == flag)
        .unwrap_or_else(|| panic!("no {flag} in {args:?}"));
    &args[i + 1]
}

/// `gpulint run` asks ncu which chip the GPU has and plans its metric list for it: an
/// RTX 5090 (GB202) gets DRAM bytes by operation, a Jetson Orin (GA10B) no DRAM metric.
#[test]
fn run_plans_the_metrics_for_the_local_chip() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("queries");
    let queries = scratch.join("queries");
    let q = queries.to_str().unwrap();
    let plan = |device: &str, extra: &[&str]| {
        let mut args = vec!["run", "--verbose", "--format", "concise"];
        args.extend(extra);
        args.extend(["--", sample.as_str()]);
        run_with(
            "normal",
            &args,
            &[("FAKE_NCU_DEVICE", device), ("FAKE_NCU_QUERY_RECORD", q)],
        )
    };
    let h200 = plan("NVIDIA H200 (GH100)", &[]);
    let list = |r: &Run| -> Vec<String> {
        arg_after(&r.args, "--metrics")
            .split(',')
            .map(String::from)
            .collect()
    };
    assert!(list(&h200).contains(&"dram__bytes_read.sum".to_string()));
    let stderr = String::from_utf8_lossy(&h200.out.stderr).to_string();
    assert!(stderr.contains("the GPU's chip is gh100"), "{stderr}");

    let rtx = plan("NVIDIA GeForce RTX 5090 (GB202)", &[]);
    let l = list(&rtx);
    assert!(l.contains(&"dram__bytes_op_read.sum".to_string()), "{l:?}");
    assert!(!l.contains(&"dram__bytes_read.sum".to_string()), "{l:?}");
    // Only what gpulint's list for that chip holds (tests/chips.rs checks that list
    // against ncu's own for the chip).
    let for_chip = common::gpulint(&["metrics", "--chip", "gb202"]);
    let for_chip = String::from_utf8(for_chip.stdout).unwrap();
    let for_chip: Vec<&str> = for_chip.trim().split(',').collect();
    assert!(l.iter().all(|m| for_chip.contains(&m.as_str())), "{l:?}");

    let orin = plan("Orin (nvgpu) (GA10B)", &[]);
    assert!(list(&orin).iter().all(|m| !m.starts_with("dram__")));
    let stderr = String::from_utf8_lossy(&orin.out.stderr).to_string();
    assert!(
        stderr.contains("chip ga10b has no metric for dram_active_pct, dram_bytes_peak_per_cycle"),
        "{stderr}"
    );

    // --chip overrides the query, and ncu is not asked.
    let before = std::fs::read_to_string(&queries).unwrap_or_default().len();
    let forced = plan("NVIDIA H200 (GH100)", &["--chip", "gb202"]);
    assert!(list(&forced).contains(&"dram__bytes_op_read.sum".to_string()));
    assert_eq!(std::fs::read_to_string(&queries).unwrap().len(), before);
    let _ = std::fs::remove_file(&queries);
}

/// A long generated kernel name (Triton's run to 99 characters) is matched to its source
/// page in full: a name shortened for display would match nothing.
#[test]
fn source_pages_are_matched_by_the_full_kernel_name() {
    let triton = "triton_red_fused__native_batch_norm_legit_functional_add_mul_native_layer_norm_backward_sum_view_42";
    assert_eq!(triton.len(), 99);
    let renamed = |file: &str| {
        std::fs::read_to_string(fixture(file))
            .unwrap()
            .replace("copy_strided(", &format!("{triton}("))
    };
    let dir = tempfile::tempdir().unwrap();
    let (replay_path, page_path) = (dir.path().join("triton.csv"), dir.path().join("page.csv"));
    std::fs::write(&replay_path, renamed("h200-zoo/full_raw_base.csv")).unwrap();
    std::fs::write(
        &page_path,
        renamed("h200-zoo/full_source_cuda_sass_strided.csv"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "run",
            "--source",
            "--select",
            "uncoalesced-load",
            "--color",
            "never",
            "--",
            &stand_in("sample"),
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_REPLAY", &replay_path)
        .env("FAKE_NCU_SOURCE", &page_path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("worst source lines: zoo.cu:26 (100% of excess sectors)"),
        "{}",
        transcript(&out)
    );
}

/// In a machine format, stdout is the report alone: the program's own output goes to
/// stderr (`gpulint run --format json -- ./prog > report.json` must be JSON).
#[test]
fn machine_formats_keep_the_programs_output_off_stdout() {
    let sample = stand_in("sample");
    let json = run_with(
        "normal",
        &[
            "run",
            "--format",
            "json",
            "--exit-zero",
            "--",
            &sample,
            "hello",
        ],
        &[],
    );
    let stdout = String::from_utf8_lossy(&json.out.stdout);
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_ok(),
        "{}",
        transcript(&json.out)
    );
    assert!(String::from_utf8_lossy(&json.out.stderr).contains("sample ran with: hello"));
    // The human report keeps the program's output where the user sees it run.
    let human = run_with(
        "normal",
        &["run", "--format", "concise", "--", &sample, "hello"],
        &[],
    );
    assert!(String::from_utf8_lossy(&human.out.stdout).contains("sample ran with: hello"));
}

/// `gpulint run ./prog args` works without `--`, as `gpulint ./prog args` does.
#[test]
fn run_takes_the_program_without_a_separator() {
    let sample = stand_in("sample");
    let r = run_with(
        "normal",
        &["run", "--format", "concise", &sample, "--size", "1"],
        &[],
    );
    let text = transcript(&r.out);
    assert!(text.contains("sample ran with: --size 1"), "{text}");
    assert!(
        r.args.ends_with(&[sample, "--size".into(), "1".into()]),
        "{:?}",
        r.args
    );
}

/// Profiling every launch of an iterative program takes minutes (issue 16): by default
/// ncu profiles each kernel's launches 1, 2, 3, 4, 8, 16, ..., counted per demangled name
/// so that two instances of one template each get theirs, and the report says so. NCCL's
/// kernels are left out by name unless `--profile-nccl` (a collective would hang).
#[test]
fn launches_are_sampled_per_kernel_by_default() {
    let sample = stand_in("sample");
    let spread = "1|2|3|4|8|16|32|64|128|256|512|1024|2048|4096|8192|16384|32768|65536|131072|\
                  262144|524288|1048576|2097152|4194304|8388608|16777216|33554432|67108864|\
                  134217728|268435456|536870912|1073741824";
    let default = run_with("normal", &["run", "--", &sample], &[]);
    assert_eq!(
        window(&default.args, "--kernel-name-base"),
        [
            "--kernel-name-base",
            "demangled",
            "--kernel-id",
            &format!("::regex:^(?!(void )?nccl):{spread}")
        ]
    );
    assert!(!default.args.iter().any(|a| a == "--filter-mode"));
    let with_nccl = run_with("normal", &["run", "--profile-nccl", "--", &sample], &[]);
    assert_eq!(
        window(&with_nccl.args, "--kernel-id"),
        ["--kernel-id", &format!(":::{spread}")]
    );
    let stdout = String::from_utf8_lossy(&default.out.stdout);
    assert!(
        stdout.contains(
            "a sample: 3 launch(es) were profiled (launches 1, 2, 3, 4, 8, 16, ... of each \
             kernel); times and shares are of those (no launch trace, --verbose says why; \
             --time-all-launches counts every launch with ncu, --all-launches profiles every \
             one)"
        ),
        "{}",
        transcript(&default.out)
    );
    // ncu ignores --kernel-name beside --kernel-id: the name goes into the id, matched by
    // function name as -k is; one with a `:` cannot, and the sample is per configuration.
    let named = run_with("normal", &["run", "-k", "regex:copy_", "--", &sample], &[]);
    assert_eq!(
        window(&named.args, "--kernel-id"),
        ["--kernel-id", &format!("::regex:copy_:{spread}")]
    );
    assert!(
        !named
            .args
            .iter()
            .any(|a| a == "--kernel-name" || a == "--kernel-name-base"),
        "{:?}",
        named.args
    );
    let scoped = run_with(
        "normal",
        &["run", "-k", "regex:ns::copy", "--", &sample],
        &[],
    );
    assert_eq!(
        window(&scoped.args, "--kernel-name"),
        [
            "--kernel-name",
            "regex:ns::copy",
            "--filter-mode",
            "per-launch-config",
            "--launch-count",
            "3"
        ]
    );

    let five = run_with(
        "normal",
        &[
            "run",
            "--launches-per-config",
            "5",
            "--format",
            "json",
            "--",
            &sample,
        ],
        &[],
    );
    // Configurations counted per demangled name, or ncu merges template instances.
    assert_eq!(
        window(&five.args, "--kernel-name-base"),
        [
            "--kernel-name-base",
            "demangled",
            "--filter-mode",
            "per-launch-config",
            "--launch-count",
            "5"
        ]
    );
    assert!(!five.args.iter().any(|a| a == "--kernel-id"));
    let report = json_report(&five.out);
    assert_eq!(report["sources"][0]["sample"], "per-config");
    assert_eq!(report["sources"][0]["sampled_per_config"], 5);

    // Every launch: on request, or when the user chose launches with ncu's own options.
    for args in [
        vec!["run", "--all-launches", "--", &sample],
        vec!["run", "--launch-count", "7", "--", &sample],
        vec![
            "run",
            "--ncu-arg=--kernel-id",
            "--ncu-arg=::k:2",
            "--",
            &sample,
        ],
    ] {
        let r = run_with("normal", &args, &[]);
        assert!(
            !r.args
                .iter()
                .any(|a| a == "per-launch-config" || a.ends_with(spread)),
            "{args:?}: {:?}",
            r.args
        );
        assert!(
            !String::from_utf8_lossy(&r.out.stdout).contains("a sample:"),
            "{args:?}"
        );
    }
    let conflict = run_with(
        "normal",
        &[
            "run",
            "--all-launches",
            "--launches-per-config",
            "2",
            "--",
            &sample,
        ],
        &[],
    );
    assert_eq!(conflict.out.status.code(), Some(2));
}

/// LU's diagonal kernel keeps one configuration for all its launches while the other two
/// change grid every step: the sample cuts only the first, so its share would read too small.
#[test]
fn a_sample_that_cuts_one_kernel_short_says_so() {
    let sample = stand_in("sample");
    // LU as the sample profiled it on the H200 (lab/scripts/corpus/timing_pass.sh).
    let lud = fixture("h200-corpus/sample_lud.csv");
    let per_config = [
        "run",
        "--launches-per-config",
        "3",
        "--format",
        "concise",
        "--",
        &sample,
    ];
    let r = run_with(
        "normal",
        &per_config,
        &[("FAKE_NCU_REPLAY", lud.to_str().unwrap())],
    );
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains(
            "lud_diagonal reached the sample's 3 launches per configuration while other kernels \
             did not: launches after those were not profiled, so its share of GPU time is \
             understated; --time-all-launches counts every launch"
        ),
        "{}",
        transcript(&r.out)
    );
    // Its other two kernels change grid every step: the sample bounded nothing there.
    assert!(
        stderr.contains(
            "each configuration was profiled: lud_perimeter (63), lud_internal (63); \
             --launch-count N profiles only the first N launches, -k only the kernels named"
        ),
        "{}",
        transcript(&r.out)
    );
    // A loop whose kernels all keep their configuration is cut evenly: nothing to say.
    let gaussian = fixture("h200-corpus/min_gaussian.csv");
    let even = run_with(
        "normal",
        &per_config,
        &[("FAKE_NCU_REPLAY", gaussian.to_str().unwrap())],
    );
    let even_err = String::from_utf8_lossy(&even.out.stderr);
    assert!(
        !even_err.contains("reached the sample") && !even_err.contains("each configuration was"),
        "{}",
        transcript(&even.out)
    );
}

/// `--time-all-launches`: the sample, then one more run of the program timing every launch
/// (duration only). LU's diagonal kernel, cut to 3 of its 64 launches by the sample, gets
/// its share back. Real captures of both runs (lab/scripts/corpus/timing_pass.sh).
#[test]
fn a_timing_pass_counts_every_launch_of_the_sample() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("timing-pass");
    let record = scratch.join("args");
    let sample_csv = fixture("h200-corpus/sample_lud.csv");
    let timing_csv = fixture("h200-corpus/timing_lud.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_gpulint"))
        .args([
            "run",
            "--time-all-launches",
            "--launches-per-config",
            "3",
            "--format",
            "json",
            "--exit-zero",
            "--",
            &sample,
        ])
        .env("NO_COLOR", "1")
        .env("NCU", stand_in("ncu"))
        .env("FAKE_NCU_RECORD", &record)
        .env("FAKE_NCU_REPLAY", &sample_csv)
        .env("FAKE_NCU_TIMING", &timing_csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let calls: Vec<Vec<String>> = std::fs::read_to_string(&record)
        .unwrap()
        .split("--END--\n")
        .filter(|c| !c.is_empty())
        .map(|c| c.lines().map(String::from).collect())
        .collect();
    // The timing pass first (so the sample's progress line knows how many launches it
    // will profile), then the sample, then the import of its report.
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls[1].iter().any(|a| a == "per-launch-config"));
    assert_eq!(calls[2][0], "--import");
    let timing = &calls[0];
    let metrics = timing.iter().position(|a| a == "--metrics").unwrap();
    assert_eq!(timing[metrics + 1], "gpu__time_duration.sum");
    // Without the cache flush between launches: as the program runs, and half the cost.
    let cache = timing.iter().position(|a| a == "--cache-control").unwrap();
    assert_eq!(timing[cache + 1], "none");
    assert!(
        !timing.iter().any(|a| a == "per-launch-config"),
        "{timing:?}"
    );

    let report = json_report(&out);
    assert_eq!(report["sources"][0]["timed_every_launch"], true);
    assert_eq!(report["sources"][0]["launch_count"], 190);
    // The sample profiled 129 of them: one launch of each of 126 configurations of the
    // perimeter and internal kernels, and 3 of the diagonal kernel's one configuration.
    assert_eq!(report["sources"][0]["profiled_launches"], 129);
    // Each kernel's share is the one every launch's time gives.
    let (timed, all) = (kernel_shares(&report), shares_of_every_launch(&timing_csv));
    assert_eq!(timed.len(), 3);
    for (kernel, share) in &all {
        assert!(
            (timed[kernel] - share).abs() < 0.5,
            "{kernel}: {} against {share}",
            timed[kernel]
        );
    }
    assert!(all["lud_diagonal"] > 30.0, "{all:?}");

    // Without a sample there is nothing to time: refused, not ignored.
    for args in [
        vec![
            "run",
            "--time-all-launches",
            "--launch-count",
            "5",
            "--",
            &sample,
        ],
        vec![
            "run",
            "--time-all-launches",
            "--all-launches",
            "--",
            &sample,
        ],
        vec![
            "run",
            "--time-all-launches",
            "--ncu-arg=--kernel-id",
            "--ncu-arg=::k:1",
            "--",
            &sample,
        ],
    ] {
        let r = run_with("normal", &args, &[]);
        assert_eq!(
            r.out.status.code(),
            Some(2),
            "{args:?}: {}",
            transcript(&r.out)
        );
    }
}

/// The finding of `rule` on the kernel whose name starts with `kernel`.
fn finding<'a>(report: &'a serde_json::Value, kernel: &str, rule: &str) -> &'a serde_json::Value {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kernel"].as_str().unwrap().starts_with(kernel) && f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} on {kernel}"))
}

/// The ncu arguments from `from` up to the profiled program (tests/stand-in/sample).
fn window(args: &[String], from: &str) -> Vec<String> {
    let sample = stand_in("sample");
    args.iter()
        .skip_while(|x| *x != from)
        .take_while(|x| **x != sample)
        .cloned()
        .collect()
}

/// The shares `gpulint check` gives a capture of every launch.
fn shares_of_every_launch(csv: &std::path::Path) -> std::collections::BTreeMap<String, f64> {
    kernel_shares(&check_json(csv))
}

/// The default spread on LU, as ncu profiled it on the H200 (lab/scripts/corpus/spread_default.sh):
/// 22 of its 190 launches, where the sample per configuration took 129. Shares are of the
/// sampled launches, and the report names the kernels the spread profiled different numbers
/// of times: 64 diagonal launches weigh as much as 32 of the others.
#[test]
fn a_spread_sample_bounds_a_shrinking_grid_and_says_what_its_shares_are() {
    let sample = stand_in("sample");
    let lud = fixture("h200-corpus/spread_lud.csv");
    let r = run_with(
        "normal",
        &["run", "--", &sample],
        &[("FAKE_NCU_REPLAY", lud.to_str().unwrap())],
    );
    let (stdout, stderr) = (
        String::from_utf8_lossy(&r.out.stdout),
        String::from_utf8_lossy(&r.out.stderr),
    );
    assert!(
        stdout.contains(
            "a sample: 22 launch(es) were profiled (launches 1, 2, 3, 4, 8, 16, ... of each kernel)"
        ),
        "{}",
        transcript(&r.out)
    );
    assert!(
        stderr.contains(
            "shares of GPU time are of the sampled launches, and the spread profiled the \
             kernels different numbers of times, as it does kernels launched different numbers \
             of times (launches profiled: lud_diagonal 8; lud_perimeter, lud_internal 7): those \
             launched more are understated; --time-all-launches counts every launch"
        ),
        "{}",
        transcript(&r.out)
    );
    // The notes of the sample per configuration do not apply to a spread.
    assert!(
        !stderr.contains("each configuration was profiled") && !stderr.contains("reached the"),
        "{}",
        transcript(&r.out)
    );
}

/// `--time-all-launches`: each of the 190 launches the timing pass measured is given to
/// the sampled launch of its kernel most like it, so every kernel's share is the one every
/// launch gives, though few of LU's 127 configurations were profiled.
#[test]
fn a_timing_pass_gives_each_kernel_its_share() {
    let sample = stand_in("sample");
    let timing = fixture("h200-corpus/timing_lud.csv");
    let args = [
        "run",
        "--time-all-launches",
        "--format",
        "json",
        "--exit-zero",
        "--",
        &sample,
    ];
    let mut env = vec![("FAKE_NCU_TIMING", timing.to_str().unwrap())];
    let (cut, _) = replay_of_plan(&env, &args, &fixture("h200-corpus/all_lud.csv"));
    env.push(("FAKE_NCU_REPLAY", cut.to_str().unwrap()));
    let r = run_with("normal", &args, &env);
    let report = json_report(&r.out);
    let source = &report["sources"][0];
    assert_eq!(source["sample"], "by-time");
    assert_eq!(source["launch_count"], 190);
    assert!(source["profiled_launches"].as_u64().unwrap() <= 40);
    let (timed, all) = (kernel_shares(&report), shares_of_every_launch(&timing));
    assert_eq!(timed.len(), 3);
    for (kernel, share) in &all {
        assert!(
            (timed[kernel] - share).abs() < 0.5,
            "{kernel}: {} against {share}",
            timed[kernel]
        );
    }
    // Only the sampled configurations' own launches would give the perimeter kernel (a
    // few of its 63 configurations sampled) a share far from its 45%.
    assert!((all["lud_perimeter"] - 45.5).abs() < 1.0, "{all:?}");
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        !stderr.contains("shares of GPU time are of the sampled"),
        "{stderr}"
    );
}

/// Two instances of one template, the second launched only after the first's 40 launches
/// (samples/corpus/template_phases.cu): counted by function name, the spread would never
/// profile scale<4>. Counted by demangled name, the H200 capture has 6 of its 20 launches,
/// and its strided access is found, as the expectations in the source say.
#[test]
fn the_spread_profiles_each_template_instance() {
    let out = common::gpulint(&[
        "check",
        fixture("h200-corpus/spread_template_phases.csv")
            .to_str()
            .unwrap(),
        "--format",
        "json",
        "--exit-zero",
    ]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let counts: std::collections::BTreeMap<String, u64> = report["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            let name = k["name"].as_str().unwrap().split('(').next().unwrap();
            (name.to_string(), k["launch_count"].as_u64().unwrap())
        })
        .fold(Default::default(), |mut m, (k, n)| {
            *m.entry(k).or_default() += n;
            m
        });
    // 40, 20 and 32 launches: 1, 2, 3, 4, 8, 16, 32 of the first and last, 1-16 of scale<4>.
    assert_eq!(counts["void scale<1>"], 7, "{counts:?}");
    assert_eq!(counts["void scale<4>"], 6, "{counts:?}");
    assert_eq!(counts["block_sum"], 7, "{counts:?}");
    let warned = |kernel: &str, rule: &str| {
        report["findings"].as_array().unwrap().iter().any(|f| {
            f["kernel"].as_str().unwrap().starts_with(kernel)
                && f["rule"] == rule
                && f["severity"] != "info"
        })
    };
    assert!(warned("void scale<4>", "uncoalesced-load"));
    assert!(warned("void scale<4>", "uncoalesced-store"));
    assert!(!warned("void scale<1>", "uncoalesced-load"));
}

/// With a timing pass, the launch-shape rules judge every launch from what the timing
/// pass records: the internal kernel's last 16 launches (grids of 256 blocks and fewer)
/// are a small grid, as in the report of every launch (fixtures/h200-corpus/all_lud.csv,
/// `gpulint run --all-launches --save-csv` on the H200,
/// lab/runs/2026-11-30-kernel-id-sample.txt). The sampled launches carry their numbers in
/// the program, so both kinds of finding name launches alike.
#[test]
fn a_timed_sample_warns_of_what_every_launch_shows() {
    let sample = stand_in("sample");
    let timing = fixture("h200-corpus/timing_lud.csv");
    let args = |format: &'static str| {
        [
            "run",
            "--time-all-launches",
            "--format",
            format,
            "--exit-zero",
            "--",
        ]
        .map(String::from)
        .into_iter()
        .chain([sample.clone()])
        .collect::<Vec<String>>()
    };
    let json_args = args("json");
    let json_args: Vec<&str> = json_args.iter().map(String::as_str).collect();
    let mut env = vec![("FAKE_NCU_TIMING", timing.to_str().unwrap())];
    let (cut, numbers) = replay_of_plan(&env, &json_args, &fixture("h200-corpus/all_lud.csv"));
    env.push(("FAKE_NCU_REPLAY", cut.to_str().unwrap()));
    let r = run_with("normal", &json_args, &env);
    let timed = json_report(&r.out);
    let every = check_json(&fixture("h200-corpus/all_lud.csv"));
    assert_eq!(warnings_of(&timed), warnings_of(&every));
    let tail = finding(&timed, "lud_internal", "small-grid");
    assert_eq!(tail["launch_count"], 16);
    assert_eq!(tail["launch_ids"][0], 143);
    // Judged on every launch from the timing pass: nothing to tell apart.
    assert!(tail.get("profiled_launch_count").is_none());
    // The perimeter kernel's n-th launch is the program's launch 3(n - 1) + 1 (three
    // kernels a step, the perimeter second): its sampled launches carry those numbers.
    let expected: Vec<u64> = numbers
        .iter()
        .filter(|&&n| n <= 63)
        .map(|n| 3 * (n - 1) + 1)
        .collect();
    let conflicts = finding(&timed, "lud_perimeter", "bank-conflicts");
    let ids: Vec<u64> = conflicts["launch_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| expected.contains(id)),
        "{ids:?} of {expected:?}"
    );
    // Every sampled perimeter launch has them (the finding lists its first few).
    assert_eq!(conflicts["profiled_launch_count"], expected.len());
    assert_eq!(conflicts["launch_count"], 63);
    // The diagonal kernel's 64 launches (its n-th is the program's 3(n - 1)), of which
    // those numbered in the sample were profiled, in one finding that names the first of
    // those and the count.
    let concise = run_with(
        "normal",
        &args("concise")
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        &env,
    );
    let text = String::from_utf8_lossy(&concise.out.stdout);
    let diagonal = numbers.iter().filter(|&&n| n <= 64).count();
    let first = 3 * (numbers.first().unwrap() - 1);
    let line = text
        .lines()
        .find(|l| l.contains("bank-conflicts lud_diagonal"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains(&format!("lud_diagonal launches {first},")),
        "{line}"
    );
    assert!(
        line.contains(&format!("(64x, {diagonal} profiled)")),
        "{line}"
    );
}

/// What ncu would have profiled of `every` (a capture of every launch of the program) for
/// the plan gpulint makes with `env` and `args`: a first run only records the launch
/// filter gpulint passes (`--kernel-id :::N1|N2|...`), which the capture is then cut to,
/// as ncu takes it (tests/common, `cut_to_kernel_id`). Returns the cut (in a scratch
/// folder that goes with it) and the launch numbers.
fn replay_of_plan(
    env: &[(&str, &str)],
    args: &[&str],
    every: &std::path::Path,
) -> (common::ScratchFile, std::collections::BTreeSet<u64>) {
    let record = common::scratch_file("calls", b"");
    let mut first_env: Vec<(&str, &str)> = env.to_vec();
    // A run of the test's making: what it finds is not the program's last run's.
    let of_the_test = ["FAKE_STALLS_ASKED", "FAKE_SASS_KERNELS_SEEN"];
    first_env.retain(|(k, _)| {
        !["FAKE_NCU_REPLAY", "XDG_CACHE_HOME"].contains(k) && !of_the_test.contains(k)
    });
    first_env.push(("FAKE_NCU_REPLAY", every.to_str().unwrap()));
    first_env.push(("FAKE_NCU_RECORD", record.to_str().unwrap()));
    run_with("normal", args, &first_env);
    // The profiled run's call: the one with the launch filter (a timing pass has none).
    let calls = std::fs::read_to_string(&*record).unwrap();
    let profiled: Vec<String> = calls
        .split("--END--\n")
        .find(|call| call.lines().any(|a| a == "--kernel-id"))
        .expect("a profiled run with --kernel-id")
        .lines()
        .map(String::from)
        .collect();
    let numbers = common::kernel_id_numbers(&profiled);
    // Kernels named by mangled name are told apart by the trace's demangled names.
    let named = common::kernel_id_names(&profiled).map(|mangled| {
        let trace = env
            .iter()
            .find(|(k, _)| *k == "FAKE_TRACE")
            .expect("a trace")
            .1;
        common::demangled_in_trace(std::path::Path::new(trace), &mangled)
    });
    let cut = common::scratch_file("cut.csv", b"");
    common::cut_to_kernel_id(every, &numbers, named.as_ref(), std::path::Path::new(&*cut));
    (cut, numbers)
}

/// `gpulint run` with no options on a program whose every launch the H200 also profiled:
/// the sample as ncu profiled it, and the trace gpulint's launch tracer wrote of the same
/// program (fixtures/h200-corpus/trace_*.csv, lab/runs/2026-12-01-launch-trace.txt).
/// Checks that its report gives the warnings of every launch, with each kernel's share
/// of GPU time within 5 points, and returns it with the arguments ncu was given.
fn traced_sample_like_every_launch(trace: &str, every: &str) -> (serde_json::Value, Vec<String>) {
    let sample = stand_in("sample");
    let args = ["run", "--format", "json", "--exit-zero", "--", &sample];
    let traced = TracedRun::new(trace, every, &args);
    let r = run_with("normal", &args, &traced.env());
    let traced = json_report(&r.out);
    let every = check_json(&fixture(every));
    assert_eq!(warnings_of(&traced), warnings_of(&every));
    let (traced_shares, every_shares) = (kernel_shares(&traced), kernel_shares(&every));
    assert_eq!(
        traced_shares.keys().collect::<Vec<_>>(),
        every_shares.keys().collect::<Vec<_>>()
    );
    for (kernel, share) in &traced_shares {
        let off = (share - every_shares[kernel]).abs();
        assert!(
            off < 5.0,
            "{kernel}: {share:.1}% traced, {:.1}% of every launch",
            every_shares[kernel]
        );
    }
    (traced, r.args)
}

/// The stand-in environment of a traced run: `trace` as the launch trace the tracer
/// writes, and ncu's replay `every` cut to the launches the plan for `args` asks for.
struct TracedRun {
    /// The cut replay, removed when the run is dropped.
    _cut: Option<common::ScratchFile>,
    vars: Vec<(&'static str, String)>,
}

impl TracedRun {
    fn new(trace: &str, every: &str, args: &[&str]) -> TracedRun {
        let mut vars = TracedRun::traced(trace);
        let env: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let (cut, _) = replay_of_plan(&env, args, &fixture(every));
        vars.push(("FAKE_NCU_REPLAY", cut.to_str().unwrap().to_string()));
        TracedRun {
            _cut: Some(cut),
            vars,
        }
    }

    /// `trace` traced, and every launch of `every` replayed, as `--all-launches` takes it.
    fn uncut(trace: &str, every: &str) -> TracedRun {
        let mut vars = TracedRun::traced(trace);
        let every = fixture(every).to_str().unwrap().to_string();
        vars.push(("FAKE_NCU_REPLAY", every));
        TracedRun { _cut: None, vars }
    }

    /// The stand-in tracer's variables for `trace`.
    fn traced(trace: &str) -> Vec<(&'static str, String)> {
        let tracer = stand_in("ncu");
        // Any file stands for the built tracer and for CUPTI: the stand-in program only
        // checks that the tracer is set.
        vec![
            ("FAKE_TRACE", fixture(trace).to_str().unwrap().to_string()),
            ("GPULINT_LAUNCH_TRACER", tracer.clone()),
            ("GPULINT_CUPTI", tracer),
        ]
    }

    /// LU on the H200: the trace of the tracer that records mangled names, replayed with
    /// the plan's launches of every launch profiled.
    fn lud(args: &[&str]) -> TracedRun {
        TracedRun::new(
            "h200-by-time/default_lud.trace.csv",
            "h200-corpus/all_lud.csv",
            args,
        )
    }

    fn env(&self) -> Vec<(&str, &str)> {
        self.vars.iter().map(|(k, v)| (*k, v.as_str())).collect()
    }
}

/// A trace of the tracer that records mangled names (LU on the H200,
/// fixtures/h200-by-time/default_lud.trace.csv, lab/runs/2026-12-02-cost.txt): ncu is
/// asked for the kernels that carry the time by those names, each of LU's three (the
/// trailing update's 13% is spread over 11 shrinking grids, and it gets a launch all the
/// same), and with --stop-once-profiled ends the program at the sample's last launch.
/// The report warns as every launch does (all_lud.csv, cut to what ncu takes).
#[test]
fn a_trace_with_mangled_names_asks_for_the_kernels_that_carry_the_time() {
    let sample = stand_in("sample");
    let args = [
        "run",
        "--stop-once-profiled",
        "--format",
        "json",
        "--exit-zero",
        "--",
        &sample,
    ];
    let traced = TracedRun::lud(&args);
    let r = run_with("normal", &args, &traced.env());
    let names = common::kernel_id_names(&r.args).expect("kernels named");
    assert_eq!(
        names,
        [
            "_Z12lud_diagonalPfii",
            "_Z13lud_perimeterPfii",
            "_Z12lud_internalPfii"
        ]
    );
    assert_eq!(
        window(&r.args, "--kernel-name-base")[..2],
        ["--kernel-name-base", "mangled"]
    );
    let report = json_report(&r.out);
    let profiled = report["sources"][0]["profiled_launches"].as_u64().unwrap();
    assert_eq!(
        window(&r.args, "--launch-count")[..4],
        [
            "--launch-count".to_string(),
            profiled.to_string(),
            "--kill".into(),
            "on".into()
        ]
    );
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(stderr.contains("ncu will stop"), "{stderr}");
    let every = check_json(&fixture("h200-corpus/all_lud.csv"));
    assert_eq!(warnings_of(&report), warnings_of(&every));
}

/// Without --stop-once-profiled, ncu is still told how many launches the sample takes,
/// with no `--kill`: the program runs to its end, and at its own speed once the last one
/// is profiled (under ncu a filter that can still match slowed a training step from 0.01
/// to 1.2 s: lab/runs/2026-12-03-launch-count.txt).
#[test]
fn ncu_is_told_when_the_sample_is_done_and_the_program_runs_on() {
    let sample = stand_in("sample");
    let args = ["run", "--format", "json", "--exit-zero", "--", &sample];
    let traced = TracedRun::lud(&args);
    let r = run_with("normal", &args, &traced.env());
    let report = json_report(&r.out);
    let profiled = report["sources"][0]["profiled_launches"].as_u64().unwrap();
    assert!(profiled > 1, "{report}");
    assert_eq!(
        window(&r.args, "--launch-count")[..2],
        ["--launch-count".to_string(), profiled.to_string()]
    );
    assert!(!r.args.contains(&"--kill".to_string()), "{:?}", r.args);
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(!stderr.contains("ncu will stop"), "{stderr}");
}

/// A traced run with ncu's run started beside it (`FAKE_NCU_HELD` as the stand-in reads
/// it; `extra` more options before the program): the report, the launch's recorded
/// arguments (empty when there was none), the stderr, and how many times the program ran.
fn run_beside(held: Option<&str>, extra: &[&str]) -> (Run, Vec<String>, String, usize) {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("beside");
    let (launch, ran) = (scratch.join("launch"), scratch.join("ran"));
    let mut args = vec!["run", "--format", "json", "--exit-zero"];
    args.extend(extra);
    args.extend(["--", &sample]);
    let traced = TracedRun::lud(&args);
    let mut env = traced.env();
    env.push(("FAKE_NCU_LAUNCH_RECORD", launch.to_str().unwrap()));
    env.push(("FAKE_SAMPLE_RAN", ran.to_str().unwrap()));
    if let Some(held) = held {
        env.push(("FAKE_NCU_HELD", held));
    }
    let r = run_with("normal", &args, &env);
    let launched = first_call(&launch);
    let stderr = String::from_utf8_lossy(&r.out.stderr).into_owned();
    let runs = std::fs::read_to_string(&ran)
        .unwrap_or_default()
        .lines()
        .count();
    (r, launched, stderr, runs)
}

/// With `--overlap`, ncu's run of the program starts beside the traced run, held at its
/// first CUDA call (`ncu --mode launch`), and ncu attaches to it once the sample is
/// planned, on the ports it was launched with: the program runs twice, the report is the
/// one of the runs in sequence (the default), whose ncu runs the program itself.
#[test]
fn ncus_run_starts_beside_the_traced_run_and_attaches() {
    let sample = stand_in("sample");
    let (r, launched, stderr, runs) = run_beside(None, &["--overlap"]);
    assert_eq!(launched[..2], ["--mode", "launch"], "{launched:?}");
    assert_eq!(launched[4], "--max-connections");
    assert_eq!(&launched[6..], std::slice::from_ref(&sample));
    let port = &launched[3];
    let attach = [
        "--mode",
        "attach",
        "--hostname",
        "127.0.0.1",
        "-p",
        port,
        "--max-connections",
        "2",
    ];
    assert_eq!(
        r.args[r.args.len() - attach.len()..],
        attach,
        "{:?}",
        r.args
    );
    assert!(!r.args.contains(&sample), "{:?}", r.args);
    assert_eq!(runs, 2, "{stderr}");
    assert!(stderr.contains("held at its first CUDA call"), "{stderr}");
    let (sequence, launched, _, runs) = run_beside(None, &[]);
    assert!(launched.is_empty(), "{launched:?}");
    assert_eq!(sequence.args.last(), Some(&sample));
    assert_eq!(runs, 2);
    // The option of earlier builds still runs, in sequence.
    let (_, launched, _, _) = run_beside(None, &["--no-overlap"]);
    assert!(launched.is_empty(), "{launched:?}");
    let report = json_report(&r.out);
    assert_eq!(
        warnings_of(&report),
        warnings_of(&json_report(&sequence.out))
    );
    let every = check_json(&fixture("h200-corpus/all_lud.csv"));
    assert_eq!(warnings_of(&report), warnings_of(&every));
}

/// No trace, no held run: with `GPULINT_LAUNCH_TRACER=off` the program runs once, under
/// ncu, and no port is opened for an attach that could not come, `--overlap` or not.
#[test]
fn no_held_run_without_a_launch_trace() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("no-trace-no-port");
    let (launch, ran) = (scratch.join("launch"), scratch.join("ran"));
    let r = run_with(
        "normal",
        &[
            "run",
            "--format",
            "json",
            "--exit-zero",
            "--overlap",
            "--",
            &sample,
        ],
        &[
            ("FAKE_NCU_LAUNCH_RECORD", launch.to_str().unwrap()),
            ("FAKE_SAMPLE_RAN", ran.to_str().unwrap()),
        ],
    );
    assert!(!launch.exists(), "{}", first_call(&launch).join(" "));
    assert_eq!(r.args.last(), Some(&sample), "{:?}", r.args);
    let runs = std::fs::read_to_string(&ran).unwrap_or_default();
    assert_eq!(
        runs.lines().count(),
        1,
        "{}",
        String::from_utf8_lossy(&r.out.stderr)
    );
}

/// A program that takes its time to reach CUDA is waited for; one that ends without
/// reaching it (as one whose start fails beside the traced run would) runs again under
/// ncu, and the report is whole either way.
#[test]
fn a_held_program_is_waited_for_and_one_never_held_runs_again() {
    let sample = stand_in("sample");
    let every = check_json(&fixture("h200-corpus/all_lud.csv"));
    let (late, _, stderr, runs) = run_beside(Some("after 1.5"), &["--verbose", "--overlap"]);
    assert!(late.args.contains(&"attach".to_string()), "{stderr}");
    assert_eq!(runs, 2);
    assert_eq!(warnings_of(&json_report(&late.out)), warnings_of(&every));
    let (never, launched, stderr, runs) = run_beside(Some("never"), &["--verbose", "--overlap"]);
    assert_eq!(launched[..2], ["--mode", "launch"]);
    assert_eq!(never.args.last(), Some(&sample), "{:?}", never.args);
    assert!(stderr.contains("runs again under ncu"), "{stderr}");
    assert_eq!(runs, 2, "{stderr}");
    assert_eq!(warnings_of(&json_report(&never.out)), warnings_of(&every));
}

/// Where the trace shows a second process that started CUDA (the CNN's torch.compile
/// worker, which launches nothing), the held program is stopped and ncu runs it again,
/// following its processes: held, the worker waited for an attach that never came, and the
/// CNN hung 86 s on the H200 (lab/runs/2026-12-04-launch-attach.txt).
#[test]
fn a_program_of_two_cuda_processes_runs_again_under_ncu() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("two-processes");
    let launch = scratch.join("launch");
    let args = [
        "run",
        "--format",
        "json",
        "--exit-zero",
        "--overlap",
        "--",
        &sample,
    ];
    let traced = TracedRun::new(
        "h200-by-time/default_cnn3.trace.csv",
        "h200-by-time/all_cnn3.csv",
        &args,
    );
    let mut env = traced.env();
    env.push(("FAKE_NCU_LAUNCH_RECORD", launch.to_str().unwrap()));
    let r = run_with("normal", &args, &env);
    let launched = std::fs::read_to_string(&launch).unwrap_or_default();
    assert!(launched.starts_with("--mode\nlaunch\n"), "{launched}");
    assert_eq!(r.args.last(), Some(&sample), "{:?}", r.args);
    assert!(!r.args.contains(&"attach".to_string()), "{:?}", r.args);
    assert!(!warnings_of(&json_report(&r.out)).is_empty());
}

/// The program's exit status is the held program's, not the attach's.
#[test]
fn the_held_programs_exit_status_is_reported() {
    let sample = stand_in("sample");
    let args = [
        "run",
        "--format",
        "concise",
        "--exit-zero",
        "--overlap",
        "--",
        &sample,
    ];
    let traced = TracedRun::lud(&args);
    let mut env = traced.env();
    env.push(("FAKE_SAMPLE_STATUS", "3"));
    let r = run_with("normal", &args, &env);
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(r.args.contains(&"attach".to_string()), "{:?}", r.args);
    assert!(stderr.contains("exited with status 3"), "{stderr}");
}

/// `--per-launch` shows the sampled launches as they are: nothing counts every launch
/// first (the program runs once, under ncu), and each profiled launch is an entry of its
/// own, unfolded.
#[test]
fn a_report_per_launch_counts_nothing_first() {
    let sample = stand_in("sample");
    let scratch = common::scratch_dir("per-launch");
    let ran = scratch.join("ran");
    let args = [
        "run",
        "--per-launch",
        "--format",
        "json",
        "--exit-zero",
        "--",
        &sample,
    ];
    let traced = TracedRun::lud(&args);
    let mut env = traced.env();
    env.push(("FAKE_SAMPLE_RAN", ran.to_str().unwrap()));
    let r = run_with("normal", &args, &env);
    let report = json_report(&r.out);
    assert_eq!(std::fs::read_to_string(&ran).unwrap().lines().count(), 1);
    let kernels = report["kernels"].as_array().unwrap();
    assert!(kernels.len() > 1, "{report}");
    assert!(kernels.iter().all(|k| k["launch_count"] == 1), "{report}");
    assert!(
        report["sources"][0]["counted_launches"].is_null(),
        "{report}"
    );
}

/// `gpulint check` on the files a traced `gpulint run --save-csv` kept (the export, the
/// launch trace and the sample's record beside it) gives the run's own report: every
/// launch's shapes, times and origins, not the sample's alone. Without the record it is a
/// plain export again, with fewer launches.
#[test]
fn check_on_a_saved_run_gives_the_runs_report() {
    let sample = stand_in("sample");
    let trace = fixture("h200-corpus/trace_lud.csv");
    let tracer = stand_in("ncu");
    let scratch = common::scratch_dir("saved-run");
    let saved = scratch.join("lud.csv");
    let mut env = vec![
        ("FAKE_TRACE", trace.to_str().unwrap()),
        ("GPULINT_LAUNCH_TRACER", tracer.as_str()),
        ("GPULINT_CUPTI", tracer.as_str()),
    ];
    let saved_arg = saved.to_str().unwrap();
    let args = [
        "run",
        "--format",
        "json",
        "--exit-zero",
        "--save-csv",
        saved_arg,
        "--",
        &sample,
    ];
    let (cut, _) = replay_of_plan(&env, &args, &fixture("h200-corpus/all_lud.csv"));
    env.push(("FAKE_NCU_REPLAY", cut.to_str().unwrap()));
    let r = run_with("normal", &args, &env);
    let ran = json_report(&r.out);
    assert!(scratch.join("lud.trace.csv").is_file());
    assert!(scratch.join("lud.gpulint.json").is_file());
    let check = |file: &str| {
        let out = common::gpulint(&["check", file, "--format", "json", "--exit-zero"]);
        assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let checked = check(saved_arg);
    assert_eq!(warnings_of(&checked), warnings_of(&ran));
    assert_eq!(kernel_shares(&checked), kernel_shares(&ran));
    assert_eq!(checked["sources"][0]["launch_count"], 190);
    assert_eq!(
        finding(&checked, "lud_internal", "small-grid")["launch_count"],
        16,
        "launch shapes judged on every traced launch"
    );
    // The record gone, the export alone: the sampled launches only.
    std::fs::remove_file(scratch.join("lud.gpulint.json")).unwrap();
    let plain = check(saved_arg);
    assert!(plain["sources"][0]["launch_count"].as_u64().unwrap() < 190);

    // `--save-trace` elsewhere: the record names where the trace went, and `check` on the
    // export finds it there (it had looked for lud.trace.csv beside the export).
    let elsewhere = common::scratch_dir("saved-trace");
    let trace_file = elsewhere.join("kept.trace.csv");
    let again = scratch.join("again.csv");
    let args = [
        "run",
        "--format",
        "json",
        "--exit-zero",
        "--save-csv",
        again.to_str().unwrap(),
        "--save-trace",
        trace_file.to_str().unwrap(),
        "--",
        &sample,
    ];
    let r = run_with("normal", &args, &env);
    let ran = json_report(&r.out);
    assert!(trace_file.is_file());
    assert!(!scratch.join("again.trace.csv").exists());
    let checked = check(again.to_str().unwrap());
    assert_eq!(warnings_of(&checked), warnings_of(&ran));
    assert_eq!(checked["sources"][0]["launch_count"], 190);
}

/// The launch trace counts LU's 190 launches at the program's own speed, so the default
/// run samples by time and judges launch shapes on every launch: the internal kernel's
/// last 16 launches, which no sampled launch is, are a small grid, as in the report of
/// every launch; and each kernel's share of GPU time comes within 5 points of it. The
/// traced names ("float*") become ncu's ("float *"). The trace is of a tracer that wrote
/// no mangled names, so ncu is asked for every kernel's launches with those numbers.
#[test]
fn a_launch_trace_gives_the_sample_what_every_launch_shows() {
    let (traced, args) =
        traced_sample_like_every_launch("h200-corpus/trace_lud.csv", "h200-corpus/all_lud.csv");
    let tail = finding(&traced, "lud_internal", "small-grid");
    assert_eq!(tail["launch_count"], 16);
    assert_eq!(tail["launch_ids"][0], 143);
    assert_eq!(tail["kernel"], "lud_internal(float *, int, int)");
    let source = &traced["sources"][0];
    assert_eq!(source["sample"], "by-time");
    assert_eq!(source["launch_count"], 190);
    assert_eq!(source["timed_every_launch"], true);
    assert_eq!(source["every_launch_counted_by"], "launch trace");
    // At most the 12 launches of a short program's default, where the spread took 22.
    let profiled = source["profiled_launches"].as_u64().unwrap();
    assert!((3..=12).contains(&profiled), "{profiled}");
    assert!(
        args.iter()
            .any(|a| a.starts_with("::regex:^(?!(void )?nccl):")),
        "{args:?}"
    );
}

/// The same on template_phases, held to every launch profiled with the same metrics
/// (all_now_template_phases.csv). Two instances of one template (`scale<1>`, `scale<4>`)
/// pair with their own traced kernels, though the sample does not take the first launch
/// of either, and block_sum's 1-block tail is judged on every launch.
#[test]
fn a_launch_trace_pairs_each_template_instance() {
    let (traced, args) = traced_sample_like_every_launch(
        "h200-corpus/trace_template_phases.csv",
        "h200-corpus/all_now_template_phases.csv",
    );
    let counts: u64 = traced["kernels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["launch_count"].as_u64().unwrap())
        .sum();
    assert_eq!(counts, 92);
    let filter = window(&args, "--kernel-name-base");
    assert_eq!(
        filter[..3],
        ["--kernel-name-base", "demangled", "--kernel-id"]
    );
    let source = &traced["sources"][0];
    assert_eq!(source["sample"], "by-time");
    let covered = source["profiled_share_of_gpu_time_pct"].as_f64().unwrap();
    assert!(covered > 99.0, "{covered}");
}

/// A tracer that writes no trace (here the stand-in program, given no trace to write)
/// leaves the run to the sample, and `--verbose` says why; with --time-all-launches,
/// ncu's timing pass counts every launch instead.
#[test]
fn without_a_launch_trace_the_timing_pass_stands_in() {
    let sample = stand_in("sample");
    let tracer = stand_in("ncu");
    let spread = fixture("h200-corpus/spread_lud.csv");
    let timing = fixture("h200-corpus/timing_lud.csv");
    let env = [
        ("FAKE_NCU_REPLAY", spread.to_str().unwrap()),
        ("FAKE_NCU_TIMING", timing.to_str().unwrap()),
        ("GPULINT_LAUNCH_TRACER", tracer.as_str()),
        ("GPULINT_CUPTI", tracer.as_str()),
    ];
    let base = ["run", "--verbose", "--format", "json", "--exit-zero"];
    // One run, the default, says that the program runs again.
    let once = run_with("normal", &[&base[..], &["--", &sample]].concat(), &env);
    let stderr = String::from_utf8_lossy(&once.out.stderr);
    assert!(
        stderr.contains("runs again, under ncu: the traced run gave no trace (the traced run"),
        "{stderr}"
    );
    let plain = run_with(
        "normal",
        &[&base[..], &["--two-runs", "--", &sample]].concat(),
        &env,
    );
    let stderr = String::from_utf8_lossy(&plain.out.stderr);
    assert!(
        stderr.contains("gpulint: no launch trace: the traced run (exit status: 0) wrote no trace"),
        "{stderr}"
    );
    let report = json_report(&plain.out);
    assert_eq!(report["sources"][0]["launch_count"], 22);
    // With the timing pass, a sample by time: ncu's answer is every launch's capture cut
    // to it.
    let timed_args = [&base[..], &["--time-all-launches", "--", &sample]].concat();
    let (cut, _) = replay_of_plan(&env, &timed_args, &fixture("h200-corpus/all_lud.csv"));
    let mut timed_env = env.to_vec();
    timed_env.retain(|(k, _)| *k != "FAKE_NCU_REPLAY");
    timed_env.push(("FAKE_NCU_REPLAY", cut.to_str().unwrap()));
    let timed = run_with("normal", &timed_args, &timed_env);
    let report = json_report(&timed.out);
    assert_eq!(report["sources"][0]["launch_count"], 190);
    let stderr = String::from_utf8_lossy(&timed.out.stderr);
    assert!(
        stderr.contains("the timing pass measured all 190 launches"),
        "{stderr}"
    );
    let off = run_with(
        "normal",
        &[&base[..], &["--", &sample]].concat(),
        &[
            ("FAKE_NCU_REPLAY", spread.to_str().unwrap()),
            ("GPULINT_LAUNCH_TRACER", "off"),
        ],
    );
    let stderr = String::from_utf8_lossy(&off.out.stderr);
    assert!(
        stderr.contains("gpulint: no launch trace: GPULINT_LAUNCH_TRACER=off"),
        "{stderr}"
    );
}

/// A tracer build that fails (here a stand-in compiler that always does) is tried once:
/// later runs say why from its log in the cache folder, and how to try again, instead of
/// paying for the same failed build each time.
#[test]
fn a_failed_tracer_build_is_not_retried() {
    let scratch = common::scratch_dir("build");
    let root = scratch.to_path_buf();
    let (cuda, bin) = (root.join("cuda"), root.join("bin"));
    for dir in [cuda.join("include"), cuda.join("lib64"), bin.clone()] {
        std::fs::create_dir_all(dir).unwrap();
    }
    std::fs::write(cuda.join("include/cupti.h"), "").unwrap();
    std::fs::write(cuda.join("lib64/libcupti.so"), "").unwrap();
    std::fs::write(
        cuda.join("version.json"),
        r#"{"cuda": {"version": "12.4.1"}}"#,
    )
    .unwrap();
    let calls = root.join("calls");
    let compiler = bin.join("c++");
    // It answers gpulint's questions (version, runtime), and fails every build.
    common::executable::write_executable(
        &compiler,
        &format!(
            "#!/bin/sh\ncase \"$1\" in --version|-print-file-name=*) echo \"$1\"; exit 0;; esac\n\
             echo called >> '{}'\necho 'cupti.h: fatal error: boom' >&2\nexit 1\n",
            calls.display()
        ),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let cache = root.join("cache");
    let env = [
        ("GPULINT_LAUNCH_TRACER", ""),
        ("CUDA_HOME", cuda.to_str().unwrap()),
        ("PATH", path.as_str()),
        ("XDG_CACHE_HOME", cache.to_str().unwrap()),
    ];
    let sample = stand_in("sample");
    let args = ["run", "--verbose", "--format", "json", "--", &sample];
    let first = run_with("normal", &args, &env);
    let stderr = String::from_utf8_lossy(&first.out.stderr);
    assert!(
        stderr.contains("no launch trace: building the launch tracer failed")
            && stderr.contains("boom"),
        "{stderr}"
    );
    let second = run_with("normal", &args, &env);
    let stderr = String::from_utf8_lossy(&second.out.stderr);
    assert!(
        stderr
            .contains("boom (an earlier build, 0 h ago; it is tried again after 24 h, or now if ")
            && stderr.contains(".failed.txt is deleted)"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), "called\n");
    // The run itself went on with the sample both times.
    assert_eq!(second.out.status.code(), first.out.status.code());
    let _ = std::fs::remove_dir_all(root);
}

/// A program that replays a CUDA graph of 3 kernels 30 times (samples/corpus/graph_steps.cu
/// on the H200, lab/runs/2026-12-01-graph-check.txt): the kernels of one graph launch
/// share its call, so the trace orders them by start. The default run counts all 91
/// launches, samples one launch of each kernel, and warns as every launch does
/// (all_graph_steps.csv): the transpose's uncoalesced stores and the reduction's 8-block
/// grid.
#[test]
fn a_launch_trace_orders_the_kernels_of_a_cuda_graph() {
    let (traced, args) = traced_sample_like_every_launch(
        "h200-corpus/trace_graph_steps.csv",
        "h200-corpus/all_graph_steps.csv",
    );
    assert!(args.iter().any(|a| a == "--kernel-id"), "{args:?}");
    let source = &traced["sources"][0];
    assert_eq!(source["launch_count"], 91);
    let profiled = source["profiled_launches"].as_u64().unwrap();
    assert!(profiled <= 4, "{profiled}");
    assert_eq!(
        warnings_of(&traced),
        [
            ("norm_partial".to_string(), "small-grid".to_string()),
            (
                "transpose_naive".to_string(),
                "uncoalesced-store".to_string()
            )
        ]
        .into_iter()
        .collect()
    );
    // The sampled launches carry the program's numbers: the graph's third kernel ends
    // each replay (launches 3, 6, 9, ... after the one axpy outside the graph).
    let grid = finding(&traced, "norm_partial", "small-grid");
    assert_eq!(grid["launch_count"], 30);
    assert_eq!(grid["launch_ids"][0], 3);
    assert_eq!(grid["launch_ids"][1], 6);
}

/// `--no-launch-trace`: no traced run, though a tracer and a trace are at hand; the
/// report's times and shares are of the sampled launches.
#[test]
fn no_launch_trace_leaves_the_shares_to_the_sample() {
    let sample = stand_in("sample");
    let tracer = stand_in("ncu");
    let (spread, trace) = (
        fixture("h200-corpus/spread_lud.csv"),
        fixture("h200-corpus/trace_lud.csv"),
    );
    let env = [
        ("FAKE_NCU_REPLAY", spread.to_str().unwrap()),
        ("FAKE_TRACE", trace.to_str().unwrap()),
        ("GPULINT_LAUNCH_TRACER", tracer.as_str()),
        ("GPULINT_CUPTI", tracer.as_str()),
    ];
    let args = [
        "run",
        "--no-launch-trace",
        "--verbose",
        "--format",
        "json",
        "--",
        &sample,
    ];
    let r = run_with("normal", &args, &env);
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("gpulint: no launch trace: --no-launch-trace"),
        "{stderr}"
    );
    let report = json_report(&r.out);
    assert_eq!(report["sources"][0]["launch_count"], 22);
    assert_eq!(
        report["sources"][0]["every_launch_counted_by"],
        serde_json::Value::Null
    );
}

/// Ctrl-C during the traced run stops the program and gpulint (exit 2, "interrupted")
/// before ncu is started, and the trace's temporary file is removed.
#[test]
fn ctrl_c_during_the_traced_run_stops_everything() {
    let ncu = stand_in("ncu");
    let scratch = common::scratch_dir("int-trace");
    let (marker, record) = (scratch.join("traced"), scratch.join("args"));
    let (child, start) = run_in_own_group(&[
        ("NCU", ncu.as_ref()),
        ("FAKE_NCU_RECORD", record.as_os_str()),
        ("GPULINT_LAUNCH_TRACER", ncu.as_ref()),
        ("GPULINT_CUPTI", ncu.as_ref()),
        ("FAKE_TRACED_HANG", marker.as_os_str()),
    ]);
    wait_for(&marker, start);
    std::thread::sleep(std::time::Duration::from_millis(200));
    let trace = std::fs::read_to_string(&marker).unwrap().trim().to_string();
    assert!(
        std::path::Path::new(&trace).exists(),
        "the trace's file exists while it runs"
    );
    let out = interrupt(child, start);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("interrupted; the program was stopped"),
        "{stderr}"
    );
    assert!(
        !std::path::Path::new(&trace).exists(),
        "{trace} left behind"
    );
    assert!(!record.exists(), "ncu was started after the interrupt");
    let _ = std::fs::remove_file(marker);
}

/// Nothing runs the program before ncu is known to be there and to be Nsight Compute's:
/// with no ncu, or with `--ncu` naming another program, gpulint stops (exit 2) and the
/// program never ran, not even under the launch tracer.
#[test]
fn without_ncu_the_program_never_runs() {
    let scratch = common::scratch_dir("ran");
    let ran = scratch.join("ran");
    let sample = stand_in("sample");
    let tracer = stand_in("ncu");
    let run = |ncu: Option<&str>| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gpulint"));
        command
            .args(["run", "--", &sample])
            .env_remove("NCU")
            .env("PATH", common::path_without_ncu())
            .env("CUDA_HOME", "/nonexistent/cuda")
            .env("GPULINT_LAUNCH_TRACER", &tracer)
            .env("GPULINT_CUPTI", &tracer)
            .env("FAKE_SAMPLE_RAN", &ran);
        if let Some(ncu) = ncu {
            command.env("NCU", ncu);
        }
        command.output().unwrap()
    };
    let not_ncu = run(Some("/bin/true"));
    let stderr = String::from_utf8_lossy(&not_ncu.stderr);
    assert_eq!(not_ncu.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("/bin/true is not Nsight Compute's ncu"),
        "{stderr}"
    );
    assert!(!ran.exists(), "the program ran with no ncu to profile it");
    let none = run(None);
    if String::from_utf8_lossy(&none.stderr).contains("ncu (Nsight Compute) not found") {
        assert_eq!(none.status.code(), Some(2));
        assert!(!ran.exists(), "the program ran with no ncu to profile it");
    }
}

/// Before the program runs under the launch tracer, stderr says it runs twice; both runs
/// read stdin from the same file from its start, and print where the profiled run does.
/// A pipe can be read once: then the program runs once, under ncu, and --verbose says why.
#[test]
fn the_traced_run_is_announced_and_gets_the_programs_input() {
    let sample = stand_in("sample");
    let tracer = stand_in("ncu");
    let scratch = common::scratch_dir("ran");
    let ran = scratch.join("ran");
    let input = common::scratch_file("stdin.txt", b"hello\nworld\n");
    let trace = fixture("h200-corpus/trace_lud.csv");
    let command = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gpulint"));
        command
            .args([
                "run",
                "--verbose",
                "--exit-zero",
                "--two-runs",
                "--",
                &sample,
            ])
            .env("NO_COLOR", "1")
            .env("NCU", stand_in("ncu"))
            .env(
                "FAKE_NCU_REPLAY",
                fixture("h200-zoo/min_raw_stdout_mixed.txt"),
            )
            .env("GPULINT_LAUNCH_TRACER", &tracer)
            .env("GPULINT_CUPTI", &tracer)
            .env("FAKE_TRACE", &trace)
            .env("FAKE_SAMPLE_READS_STDIN", "1")
            .env("FAKE_SAMPLE_RAN", &ran);
        command
    };
    let out = command()
        .stdin(std::fs::File::open(&input).unwrap())
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stderr.contains("runs twice: once under gpulint's launch tracer")
            && stderr.contains("--no-launch-trace runs it once"),
        "{stderr}"
    );
    assert_eq!(stdout.matches("stdin: hello").count(), 2, "{stdout}");
    assert_eq!(std::fs::read_to_string(&ran).unwrap().lines().count(), 2);
    std::fs::remove_file(&ran).unwrap();

    let mut piped = command()
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    piped.stdin.take().unwrap().write_all(b"hello\n").unwrap();
    let out = piped.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        stderr.contains("no launch trace: stdin is a pipe"),
        "{stderr}"
    );
    assert!(!stderr.contains("runs twice"), "{stderr}");
    assert_eq!(stdout.matches("stdin: hello").count(), 1, "{stdout}");
    assert_eq!(std::fs::read_to_string(&ran).unwrap().lines().count(), 1);
    let _ = std::fs::remove_file(ran);
}

/// `gpulint run` on a PyTorch program made of chains of small kernels
/// (samples/apps/torch_chain.py on the H200, `gpulint run --save-csv`: the sample ncu
/// profiled, the launch trace of the same run and the sample's record,
/// lab/runs/2026-12-02-cost.txt), read back as the run's report. Only the trace sees that
/// the GPU waits 82.9% of its active time (49.6 ms of short gaps, as
/// lab/scripts/trace_waits.py computes from the trace apart from gpulint): GL603 warns
/// once, with PyTorch's fix, its stakes adding up to the waiting, on kernels the sample
/// profiled and kernels it left out alike; the per-kernel rules stay info. The fixed
/// program gets no GL603.
#[test]
fn a_chain_of_small_kernels_is_launch_bound_in_a_traced_run() {
    let report = |saved: &str| {
        let out = common::gpulint(&[
            "check",
            fixture(saved).to_str().unwrap(),
            "--format",
            "json",
            "--exit-zero",
        ]);
        serde_json::from_slice::<serde_json::Value>(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", transcript(&out)))
    };
    let written = report("h200-samples/torch_chain.csv");
    assert_eq!(written["sources"][0]["sample"], "by-time");
    let launch_bound: Vec<&serde_json::Value> = written["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "launch-bound")
        .collect();
    let warnings: Vec<_> = launch_bound
        .iter()
        .filter(|f| f["severity"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 1, "{launch_bound:#?}");
    assert!(launch_bound.len() >= 4, "{launch_bound:#?}");
    let lead = warnings[0];
    assert!(
        lead["fix"].as_str().unwrap().contains("torch.compile"),
        "{lead}"
    );
    assert!(
        (lead["evidence"]["program_wait_pct"].as_f64().unwrap() - 82.9).abs() < 0.1,
        "{lead}"
    );
    let notes = lead["notes"].to_string();
    assert!(notes.contains("launch(es) waited"), "{notes}");
    // The waits before the flagged launches: nearly all of the trace's 49.6 ms.
    let stake: f64 = launch_bound
        .iter()
        .map(|f| f["time_at_stake_ns"].as_f64().unwrap())
        .sum();
    assert!((stake / 1e6 - 49.6).abs() < 0.5, "{stake}");
    let other_warnings: Vec<_> = written["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["severity"] == "warning" && f["rule"] != "launch-bound")
        .collect();
    assert!(other_warnings.is_empty(), "{other_warnings:#?}");
    // Judged on the traced launches, though the sampled ones lack the timeline.
    let judged = written["coverage"]["judged"].as_array().unwrap();
    assert!(judged.iter().any(|s| s == "launch-bound"), "{judged:?}");
    assert_eq!(
        written["coverage"]["needs_launch_trace"],
        serde_json::json!([])
    );
    // ncu's own export of the same sample, without the trace and record beside it: the
    // rule does not apply, and says why.
    let alone = common::scratch_file(
        "torch_chain.csv",
        &std::fs::read(fixture("h200-samples/torch_chain.csv")).unwrap(),
    );
    let export = common::gpulint(&[
        "check",
        alone.to_str().unwrap(),
        "--format",
        "json",
        "--exit-zero",
    ]);
    let export: serde_json::Value = serde_json::from_slice(&export.stdout).unwrap();
    assert_eq!(
        export["coverage"]["needs_launch_trace"],
        serde_json::json!(["launch-bound", "launch-burst"])
    );
    // Captured before serial-loads' load latency, contended-atomics' L2 atomic units and
    // split-load's L1 load hits joined gpulint's list: those rules alone are not judged.
    assert_eq!(
        export["coverage"]["not_judged"],
        serde_json::json!(["contended-atomics", "serial-loads", "split-load"])
    );
    let fixed = report("h200-samples/torch_chain_fixed.csv");
    let any = fixed["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["rule"] == "launch-bound");
    assert!(!any, "{}", fixed["findings"]);
}

/// ncu's calls that profile (the sample's run, a pass): those with a launch filter.
fn profiling_calls(calls: &[Vec<String>]) -> Vec<&Vec<String>> {
    calls
        .iter()
        .filter(|c| c.contains(&"--kernel-id".to_string()))
        .collect()
}

/// The strided copy's uncoalesced-load names its line, from the source page.
fn names_the_strided_copys_line(out: &std::process::Output) {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("worst source lines: zoo.cu:26 (100% of excess sectors)"),
        "{}",
        transcript(out)
    );
}

/// `gpulint run --source` on the stand-in's sample with the zoo's trace (derived from its
/// raw page, lab/scripts/zoo_trace.py) and the strided copy's source page, the rules
/// `select` alone: its run, and ncu's calls.
fn source_by_time(select: &str, ncu_args: &[&str]) -> (Run, Vec<Vec<String>>) {
    let page = fixture("h200-zoo/full_source_cuda_sass_strided.csv");
    let trace = fixture("h200-zoo/derived_trace.csv");
    source_by_time_of(&trace, &page, select, ncu_args, "12", &[])
}

/// A sample of at most ten launches takes the warps' stall samples in its own run: the
/// section it gives ncu has the sampling, and no pass follows, though latency-bound reads
/// stall samples. With twelve launches (the other tests), the section goes without the
/// sampling, and a pass follows for it.
#[test]
fn a_small_sample_takes_the_stall_samples_in_its_run() {
    let sections = common::scratch_dir("sections");
    let copied = sections.join("GpulintSourceLines.section");
    let page = fixture("h200-zoo/full_source_cuda_sass_strided.csv");
    let trace = fixture("h200-zoo/derived_trace.csv");
    let env = [("FAKE_NCU_SECTIONS", sections.to_str().unwrap())];
    let select = "uncoalesced-load,latency-bound";
    let (r, calls) = source_by_time_of(&trace, &page, select, &[], "10", &env);
    assert_eq!(profiling_calls(&calls).len(), 1, "no pass: {calls:?}");
    let section = std::fs::read_to_string(&copied).unwrap();
    assert!(section.contains("pcsamp"), "{section}");
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(!stderr.contains("source pass:"), "{stderr}");
    names_the_strided_copys_line(&r.out);
    // Twelve launches: the sample's section without the sampling, then a pass (whose
    // section, copied last, has it).
    let (_, calls) = source_by_time_of(&trace, &page, select, &[], "12", &env);
    let profiling = profiling_calls(&calls);
    assert_eq!(profiling.len(), 2, "the sample, then the pass: {calls:?}");
    assert!(std::fs::read_to_string(&copied).unwrap().contains("pcsamp"));
}

/// A `--source` run after a run of the same program that had no finding on the warps'
/// stall samples leaves them out of the sample's run, though it takes at most ten
/// launches: a pass takes them when a finding needs them after all (latency-bound here),
/// and the next run, remembering that, takes them in its run again.
#[test]
fn the_last_runs_findings_say_whether_the_run_takes_the_stall_samples() {
    let sections = common::scratch_dir("sections");
    let cache = common::scratch_dir("cache");
    let copied = sections.join("GpulintSourceLines.section");
    let page = fixture("h200-zoo/full_source_cuda_sass_strided.csv");
    let trace = fixture("h200-zoo/derived_trace.csv");
    let env = [
        ("FAKE_NCU_SECTIONS", sections.to_str().unwrap()),
        ("XDG_CACHE_HOME", cache.to_str().unwrap()),
    ];
    let select = "uncoalesced-load,latency-bound";
    // No finding on stall samples: remembered.
    let (_, calls) = source_by_time_of(&trace, &page, "uncoalesced-load", &[], "8", &env);
    assert_eq!(profiling_calls(&calls).len(), 1, "{calls:?}");
    let (r, calls) = source_by_time_of(&trace, &page, select, &[], "10", &env);
    let profiling = profiling_calls(&calls);
    assert_eq!(profiling.len(), 2, "the sample, then the pass: {calls:?}");
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("source pass: the warps' stall samples of"),
        "{stderr}"
    );
    names_the_strided_copys_line(&r.out);
    // Latency-bound came: the next run takes the samples in its own run, and no pass.
    let (_, calls) = source_by_time_of(&trace, &page, select, &[], "10", &env);
    assert_eq!(profiling_calls(&calls).len(), 1, "no pass: {calls:?}");
    assert!(std::fs::read_to_string(&copied).unwrap().contains("pcsamp"));
}

/// [`source_by_time`] with the launch trace `trace`, the source page `source_page`, at most
/// `max_launches` launches, and more of the stand-in's settings in `extra_env`.
fn source_by_time_of(
    trace: &std::path::Path,
    source_page: &std::path::Path,
    select: &str,
    ncu_args: &[&str],
    max_launches: &str,
    extra_env: &[(&str, &str)],
) -> (Run, Vec<Vec<String>>) {
    let sample = stand_in("sample");
    let tracer = stand_in("ncu");
    let mut env = vec![
        ("FAKE_TRACE", trace.to_str().unwrap()),
        ("GPULINT_LAUNCH_TRACER", tracer.as_str()),
        ("GPULINT_CUPTI", tracer.as_str()),
        ("FAKE_NCU_SOURCE", source_page.to_str().unwrap()),
    ];
    env.extend_from_slice(extra_env);
    // The zoo's 22 kernels each carry a few percent: with 12 launches (the default is 8
    // for a short program) the sample reaches three of its four strided ones.
    let args: Vec<&str> = [
        &[
            "run",
            "--source",
            "--max-launches",
            max_launches,
            "--select",
            select,
        ][..],
        ncu_args,
        &["--color", "never", "--exit-zero", "--", &sample],
    ]
    .concat();
    let (cut, _) = replay_of_plan(&env, &args, &fixture("h200-zoo/full_raw_base.csv"));
    env.push(("FAKE_NCU_REPLAY", cut.to_str().unwrap()));
    let record = common::scratch_file("calls", b"");
    env.push(("FAKE_NCU_RECORD", record.to_str().unwrap()));
    let r = run_with("normal", &args, &env);
    let calls: Vec<Vec<String>> = std::fs::read_to_string(&*record)
        .unwrap()
        .split("--END--\n")
        .filter(|c| !c.is_empty())
        .map(|c| c.lines().map(String::from).collect())
        .collect();
    (r, calls)
}

/// `--source` after a sample by time: the sampled launches are profiled with gpulint's
/// section of the source columns it reads (written from the stand-in's own
/// SourceCounters.section, tests/stand-in/sections), and ncu prints their source pages to
/// the log as it writes the report, whose raw page alone is imported. No finding here reads
/// stall samples, so no pass of its own follows. The finding names its line.
#[test]
fn source_after_a_sample_by_time_rides_in_its_run() {
    let (r, calls) = source_by_time("uncoalesced-load", &[]);
    let profiling = profiling_calls(&calls);
    assert_eq!(profiling.len(), 1, "the sample alone: {calls:?}");
    let run = profiling[0];
    assert_eq!(
        run[..5],
        ["--csv", "--page", "source", "--print-source", "cuda,sass"],
        "the pages printed by the run: {run:?}"
    );
    assert_eq!(run[5], "--section-folder");
    assert!(run[6].contains("gpulint-sections-"), "{run:?}");
    assert!(
        !std::path::Path::new(&run[6]).exists(),
        "the folder goes with the run"
    );
    assert_eq!(
        run[7..10],
        ["--section", "GpulintSourceLines", "-o"],
        "into a report: {run:?}"
    );
    let imports: Vec<&Vec<String>> = calls
        .iter()
        .filter(|c| c.contains(&"--import".to_string()))
        .collect();
    assert_eq!(imports.len(), 1, "the raw page alone: {imports:?}");
    assert_eq!(window(imports[0], "--page")[..2], ["--page", "raw"]);
    names_the_strided_copys_line(&r.out);
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(!stderr.contains("source pass:"), "{stderr}");
    // A section folder of the user's own: ncu takes one, so the run takes ncu's whole
    // section.
    let (_, calls) = source_by_time(
        "uncoalesced-load",
        &["--ncu-arg=--section-folder", "--ncu-arg=/own"],
    );
    let run = calls
        .iter()
        .find(|c| c.contains(&"--kernel-id".to_string()))
        .expect("the sample's run");
    assert_eq!(
        window(run, "--section")[..2],
        ["--section", "SourceCounters"],
        "{run:?}"
    );
    assert_eq!(
        run.iter().filter(|a| *a == "--section-folder").count(),
        1,
        "{run:?}"
    );
}

/// With `--source` the traced run counts the first launch of the user's kernels (the
/// launch tracer's SASS counters; here the strided copy's alone, written from its page by
/// lab/scripts/rows_from_page.py), of those with a finding on a line in the last run of
/// the command where it is remembered, and samples their stalls, unless that run had no
/// finding that reads them: the sample's run takes no source section and
/// prints no page, and the finding names its line from those counts. The pass after the
/// sample reads only what the traced run lacks: the lines of the uncoalesced kernels it
/// did not count, and the stall samples of latency-bound's kernels it did not sample.
#[test]
fn source_lines_from_the_traced_run_cost_the_sample_no_section() {
    let rows = fixture("h200-zoo/derived_sass_rows_strided.csv");
    let stalls = fixture("h200-zoo/derived_stall_rows_strided.csv");
    let page = fixture("h200-zoo/full_source_cuda_sass_strided.csv");
    let trace = fixture("h200-zoo/derived_trace.csv");
    let cache = common::scratch_dir("cache");
    let asked = common::scratch_file("asked", b"");
    let listed = common::scratch_file("listed", b"");
    // The stand-in CUPTI under the names of CUDA 13.0's and 12.8's: the tracer samples the
    // stalls only under a CUPTI whose PC-sampling records it knows.
    let cuptis = common::scratch_dir("cupti");
    let cupti = |version: &str| {
        let path = cuptis.join(format!("libcupti.so.{version}"));
        std::os::unix::fs::symlink(stand_in("ncu"), &path).unwrap();
        path.to_str().unwrap().to_string()
    };
    let (cupti_13, cupti_12) = (cupti("13.0"), cupti("12.8"));
    let env = [
        ("GPULINT_CUPTI", cupti_13.as_str()),
        ("FAKE_SASS_KERNELS_SEEN", listed.to_str().unwrap()),
        ("FAKE_SASS_ROWS", rows.to_str().unwrap()),
        ("FAKE_STALL_ROWS", stalls.to_str().unwrap()),
        ("FAKE_STALLS_ASKED", asked.to_str().unwrap()),
        ("XDG_CACHE_HOME", cache.to_str().unwrap()),
    ];
    let asked_since = |before: &mut usize| {
        let now = std::fs::read_to_string(&*asked).unwrap().lines().count();
        std::mem::replace(before, now) < now
    };
    let mut seen = 0;
    let last_listed = || {
        let text = std::fs::read_to_string(&*listed).unwrap();
        text.lines().last().unwrap_or_default().to_string()
    };
    let takes_section = |calls: &[Vec<String>]| {
        (profiling_calls(calls)[0].iter()).any(|a| a == "--section" || a == "--page")
    };
    let passed_on = |calls: &[Vec<String>]| {
        let profiling = profiling_calls(calls);
        assert_eq!(profiling.len(), 2, "the sample, then the pass: {calls:?}");
        window(profiling[1], "--kernel-id")[1].clone()
    };
    // Nothing remembered: the stalls are sampled too.
    let (r, calls) = source_by_time_of(&trace, &page, "uncoalesced-load", &[], "12", &env);
    assert!(asked_since(&mut seen));
    assert_eq!(last_listed(), "-", "every kernel counted");
    assert!(!takes_section(&calls), "no section, no page: {calls:?}");
    let passed = passed_on(&calls);
    assert!(
        passed.contains("_Z13gather_randomPKfPKjPfm") && !passed.contains("copy_strided"),
        "{passed}"
    );
    names_the_strided_copys_line(&r.out);
    // The last run had no finding on the stall samples: none are taken.
    let (r, calls) = source_by_time_of(&trace, &page, "uncoalesced-load", &[], "12", &env);
    assert!(!asked_since(&mut seen));
    // Only the kernels the last run had a finding on a line in are counted.
    let counted = last_listed();
    assert!(
        counted.contains("_Z12copy_stridedPKfPfmi")
            && counted.contains("_Z13gather_randomPKfPKjPfm")
            && !counted.contains("copy_coalesced"),
        "{counted}"
    );
    assert!(!takes_section(&calls), "{calls:?}");
    names_the_strided_copys_line(&r.out);
    // What is recalled is said under --verbose; GPULINT_SOURCE_MEMORY=off goes without it,
    // as if nothing were remembered, and keeps nothing.
    let (r, _) = source_by_time_of(
        &trace,
        &page,
        "uncoalesced-load",
        &["--verbose"],
        "12",
        &env,
    );
    assert!(!asked_since(&mut seen));
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("--source: remembered from the last run of this command (")
            && stderr.contains("no finding read the warps' stall samples, ")
            && stderr.contains(" kernel(s) had a finding on a line"),
        "{stderr}"
    );
    let mut off = env.to_vec();
    off.push(("GPULINT_SOURCE_MEMORY", "off"));
    let (r, _) = source_by_time_of(
        &trace,
        &page,
        "uncoalesced-load",
        &["--verbose"],
        "12",
        &off,
    );
    assert!(
        asked_since(&mut seen),
        "the memory was read though switched off"
    );
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("GPULINT_SOURCE_MEMORY=off: nothing"),
        "{stderr}"
    );
    let select = "uncoalesced-load,latency-bound";
    let (r, calls) = source_by_time_of(&trace, &page, select, &[], "12", &env);
    assert!(!asked_since(&mut seen));
    passed_on(&calls);
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("source pass: the source counters of"),
        "{stderr}"
    );
    // Latency-bound came (on kernels the traced run did not count): the next run samples
    // the stalls, and the pass still takes those kernels'.
    let (r, calls) = source_by_time_of(&trace, &page, select, &[], "12", &env);
    assert!(asked_since(&mut seen));
    assert!(!takes_section(&calls), "{calls:?}");
    passed_on(&calls);
    names_the_strided_copys_line(&r.out);
    // Under CUPTI 12.8 no stalls are sampled, whatever the memory says.
    let mut older = env.to_vec();
    older[0].1 = cupti_12.as_str();
    let (r, calls) = source_by_time_of(&trace, &page, select, &[], "12", &older);
    assert!(!asked_since(&mut seen));
    passed_on(&calls);
    names_the_strided_copys_line(&r.out);
}

/// ncu printing no source page (a binary built without -lineinfo prints none of its
/// lines): the findings come without their lines, the report still comes, and a warning
/// says why.
#[test]
fn no_source_page_printed_costs_the_lines_not_the_report() {
    let empty = common::scratch_file("empty.csv", b"");
    let trace = fixture("h200-zoo/derived_trace.csv");
    let (r, _) = source_by_time_of(&trace, &empty, "uncoalesced-load", &[], "12", &[]);
    assert_eq!(r.out.status.code(), Some(0), "{}", transcript(&r.out));
    let stdout = String::from_utf8_lossy(&r.out.stdout);
    assert!(stdout.contains("uncoalesced-load"), "{stdout}");
    assert!(!stdout.contains("worst source lines"), "{stdout}");
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("ncu printed no source page (is the program built with -lineinfo?)"),
        "{stderr}"
    );
}

/// Where library kernels take most of the sample's launches (the zoo's trace with every
/// kernel but the strided copy launched from cuBLAS), the section would cost each of them:
/// the sample's run goes without it, and a pass of its own reads the counters of the
/// user's kernel with a finding on a line.
#[test]
fn a_sample_of_library_kernels_leaves_the_source_counters_to_a_pass() {
    let zoo = std::fs::read_to_string(fixture("h200-zoo/derived_trace.csv")).unwrap();
    let libraries: String = zoo
        .lines()
        .map(|l| {
            if l.contains("/work/zoo/zoo") && !l.contains("copy_strided") {
                l.replace("/work/zoo/zoo", "/usr/lib/libcublas.so.12")
            } else {
                l.to_string()
            }
        })
        .flat_map(|l| [l, "\n".to_string()])
        .collect();
    let trace = common::scratch_file("trace.csv", libraries.as_bytes());
    let page = fixture("h200-zoo/full_source_cuda_sass_strided.csv");
    let (r, calls) = source_by_time_of(&trace, &page, "uncoalesced-load", &[], "12", &[]);
    let profiling = profiling_calls(&calls);
    assert_eq!(profiling.len(), 2, "the sample, then the pass: {calls:?}");
    assert!(
        !profiling[0].contains(&"--section".to_string()),
        "{:?}",
        profiling[0]
    );
    assert_eq!(
        common::kernel_id_names(profiling[1]).unwrap(),
        ["_Z12copy_stridedPKfPfmi"]
    );
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("source pass: the source counters of 1 kernel(s)"),
        "{stderr}"
    );
    names_the_strided_copys_line(&r.out);
}

/// A finding whose line cause is the warps' stall samples (latency-bound on the zoo's
/// coalesced and grid-stride copies): the sample's run cannot afford the sampling on every
/// launch, so a pass of its own follows, on one launch of each of those kernels by mangled
/// name, with the section and its sampling; it prints their pages and stops the program
/// once they are profiled. The uncoalesced finding keeps the line of the sample's run.
#[test]
fn stall_samples_come_from_a_pass_on_the_kernels_that_read_them() {
    let (r, calls) = source_by_time("uncoalesced-load,latency-bound", &[]);
    let profiling = profiling_calls(&calls);
    assert_eq!(profiling.len(), 2, "the sample, then the pass: {calls:?}");
    let pass = profiling[1];
    assert_eq!(
        window(pass, "--section")[..2],
        ["--section", "GpulintSourceLines"],
        "{pass:?}"
    );
    assert!(
        window(pass, "--section-folder")[1].contains("gpulint-sections-"),
        "{pass:?}"
    );
    let stalled = common::kernel_id_names(pass).unwrap();
    assert_eq!(
        stalled,
        ["_Z14copy_coalescedPKfPfm", "_Z15copy_gridstridePKfPfm"],
        "the kernels with latency-bound, by time at stake"
    );
    assert_eq!(window(pass, "--kill")[..2], ["--kill", "on"]);
    assert_eq!(
        window(pass, "--page")[..2],
        ["--page", "source"],
        "the pass prints the pages itself: {pass:?}"
    );
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        stderr.contains("source pass: the warps' stall samples of 2 kernel(s)"),
        "{stderr}"
    );
    names_the_strided_copys_line(&r.out);
}

/// `--quiet` leaves stderr to warnings and errors: the notes on the program's runs and the
/// sample are what a plain run prints, and a quiet one does not.
#[test]
fn quiet_runs_say_nothing_but_warnings() {
    let sample = stand_in("sample");
    let args = ["run", "--exit-zero", "--", &sample];
    let traced = TracedRun::lud(&args);
    let env = traced.env();
    let notes = |out: &Output| -> Vec<String> {
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("gpulint: ") && !l.starts_with("gpulint: warning"))
            .map(String::from)
            .collect()
    };
    let plain = run_with("normal", &args, &env);
    assert!(
        notes(&plain.out).iter().any(|l| l.contains("runs once")),
        "{}",
        transcript(&plain.out)
    );
    let quiet = run_with(
        "normal",
        &["run", "--quiet", "--exit-zero", "--", &sample],
        &env,
    );
    assert_eq!(
        notes(&quiet.out),
        Vec::<String>::new(),
        "{}",
        transcript(&quiet.out)
    );
    // The report itself is the same.
    assert_eq!(quiet.out.stdout, plain.out.stdout);
}

/// Profiled launches far slower than the sample's budget assumed (a CNN's cuDNN launches
/// took 2.5 s each where it assumes 0.33 s) are said to be, once, with the time the rest
/// will take and how to bound such a run. The stand-in logs four launches 1.05 s apart.
#[test]
fn launches_slower_than_the_budget_are_said_to_be() {
    let sample = stand_in("sample");
    let args = ["run", "--exit-zero", "--", &sample];
    let traced = TracedRun::lud(&args);
    let env = traced.env();
    let slow = run_with("slow", &args, &env);
    let stderr = String::from_utf8_lossy(&slow.out.stderr);
    let said: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("profiled launches take"))
        .collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains("x what the sample's budget assumed (0.33 s)")
            && said[0].contains("--max-launches N or --stop-once-profiled"),
        "{stderr}"
    );
    let normal = run_with("normal", &args, &env);
    assert!(
        !String::from_utf8_lossy(&normal.out.stderr).contains("profiled launches take"),
        "{}",
        transcript(&normal.out)
    );
}

/// `--all-launches` profiles every launch and traces them all the same, where gpulint
/// would otherwise have sampled: the rules no counter gives (the waits between launches)
/// judge every launch as by default. On the H200 an augmentation loop's launch-bound
/// warning came by default and not with every launch profiled, which ran no trace
/// (lab/runs/2026-12-05-augment.txt). LU's trace and every launch of it: ncu is given no
/// launch filter, nothing is left for want of a trace, and the report warns as every
/// launch does, with the trace's count.
#[test]
fn every_launch_profiled_is_every_launch_traced_too() {
    let sample = stand_in("sample");
    let args = [
        "run",
        "--all-launches",
        "--format",
        "json",
        "--exit-zero",
        "--",
        &sample,
    ];
    let traced = TracedRun::uncut(
        "h200-by-time/default_lud.trace.csv",
        "h200-corpus/all_lud.csv",
    );
    let r = run_with("normal", &args, &traced.env());
    assert!(!r.args.iter().any(|a| a == "--kernel-id"), "{:?}", r.args);
    let report = json_report(&r.out);
    let every = check_json(&fixture("h200-corpus/all_lud.csv"));
    assert_eq!(warnings_of(&report), warnings_of(&every));
    assert_eq!(
        report["coverage"]["needs_launch_trace"],
        serde_json::json!([])
    );
    assert_ne!(
        every["coverage"]["needs_launch_trace"],
        serde_json::json!([])
    );
    assert_eq!(report["sources"][0]["counted_launches"].as_u64(), Some(190));
}

/// Under `--window`, ncu's run is bounded too: an ncu still running the program toward the
/// sample's last launch (the stand-in's `late`, 30 s) is stopped once it has taken the
/// window (the traced run took less) plus about 0.33 s for each chosen launch, what it
/// profiled is linted, and stderr says why. On the H200 the model kernels of a PyTorch
/// loop came ten steps in, and ncu's run took 127 s after a traced run of 27 s
/// (lab/runs/2026-12-05-augment.txt).
#[test]
fn the_window_bounds_ncus_run_too() {
    let sample = stand_in("sample");
    let args = [
        "run",
        "--window",
        "1",
        "--two-runs",
        "--format",
        "json",
        "--exit-zero",
        "--",
        &sample,
    ];
    let traced = TracedRun::lud(&args);
    let start = std::time::Instant::now();
    let r = run_with("late", &args, &traced.env());
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&r.out.stderr);
    assert!(
        took < std::time::Duration::from_secs(20),
        "{took:?}: {stderr}"
    );
    assert!(
        stderr.contains("reached its bound under --window"),
        "{stderr}"
    );
    let report = json_report(&r.out);
    assert!(!warnings_of(&report).is_empty(), "{stderr}");
}
