//! The GitHub Action's two scripts (scripts/action/), run as the runner runs them: with
//! bash, the action's environment, and files for GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and
//! GITHUB_PATH. The gate runs this build's gpulint on the real H200 pipeline pair; the
//! installer runs with stand-ins for curl and cargo that record what they were asked.
// Unix only: the action's steps are bash scripts.
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::transcript;

const BASE: &str = "fixtures/h200-samples/pipeline_base.csv";
const CAND: &str = "fixtures/h200-samples/pipeline_regressed.csv";

/// A job's files and folders: what the runner would give one step.
struct Job {
    dir: common::Scratch,
}

impl Job {
    fn new(name: &str) -> Job {
        let dir = common::scratch_dir(&format!("action-{name}"));
        for f in ["output", "summary", "path"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        Job { dir }
    }

    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap_or_default()
    }

    /// Runs an action script with bash, PATH first holding `bin`.
    fn run(&self, script: &str, bin: &Path, env: &[(&str, &str)]) -> Output {
        let root = env!("CARGO_MANIFEST_DIR");
        let path = format!("{}:/usr/bin:/bin", bin.display());
        let mut cmd = Command::new("bash");
        cmd.arg(Path::new(root).join("scripts/action").join(script))
            .current_dir(root)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.dir)
            .env("TMPDIR", &self.dir)
            .env("GITHUB_OUTPUT", self.dir.join("output"))
            .env("GITHUB_STEP_SUMMARY", self.dir.join("summary"))
            .env("GITHUB_PATH", self.dir.join("path"))
            .env("ACTION_PATH", root);
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().expect("run bash")
    }

    /// The gate script with this build's gpulint on PATH.
    fn gate(&self, baseline: &str, args: &str, sarif: &str) -> Output {
        self.gate_with(baseline, args, &[("SARIF", sarif)])
    }

    fn gate_with(&self, baseline: &str, args: &str, more: &[(&str, &str)]) -> Output {
        let exe = PathBuf::from(env!("CARGO_BIN_EXE_gpulint"));
        let mut env = vec![("BASELINE", baseline), ("CANDIDATE", CAND), ("ARGS", args)];
        env.extend_from_slice(more);
        self.run("gate.sh", exe.parent().unwrap(), &env)
    }
}

fn baseline_of(csv: &str, job: &Job) -> String {
    let path = job.dir.join("gpulint-baseline.json");
    let out = common::gpulint(&["baseline", csv, "-o", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    path.to_str().unwrap().to_string()
}

#[test]
fn no_baseline_passes_and_says_how_to_make_one() {
    let job = Job::new("none");
    let out = job.gate("gpulint-baseline.json", "", "gpulint.sarif");
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("::notice title=gpulint::no baseline at gpulint-baseline.json"),
        "{}",
        transcript(&out)
    );
    assert!(job.file("summary").contains("gpulint baseline"));
    assert_eq!(job.file("output"), "sarif=\n");
}

/// A profiling step that produced no candidate (missing, or empty) fails the gate with a
/// `::error` annotation and a summary that says so, instead of an empty job summary.
#[test]
fn a_missing_or_empty_candidate_is_an_error_with_a_summary() {
    let job = Job::new("no-candidate");
    let bl = baseline_of(CAND, &job);
    let empty = job.dir.join("empty.csv");
    std::fs::write(&empty, "").unwrap();
    let missing = job.dir.join("missing.csv");
    for (candidate, what) in [(&missing, "does not exist"), (&empty, "is empty")] {
        std::fs::write(job.dir.join("summary"), "").unwrap();
        let out = job.gate_with(
            &bl,
            "",
            &[("CANDIDATE", candidate.to_str().unwrap()), ("SARIF", "")],
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
        assert!(
            stdout.starts_with(&format!(
                "::error title=gpulint::the candidate profile {} {what}",
                candidate.display()
            )),
            "{}",
            transcript(&out)
        );
        assert!(
            job.file("summary").contains("**Not compared**"),
            "{}",
            job.file("summary")
        );
    }
    // A candidate gpulint refuses to compare: the summary says so too.
    std::fs::write(job.dir.join("summary"), "").unwrap();
    let out = job.gate_with(
        &bl,
        "",
        &[
            ("CANDIDATE", "fixtures/h200-corpus/min_lud.csv"),
            ("SARIF", ""),
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("::error title=gpulint::gpulint diff could not compare")
    );
    assert!(
        job.file("summary").contains("**Not compared**"),
        "{}",
        job.file("summary")
    );
}

#[test]
fn a_clean_candidate_passes_with_summary_and_sarif() {
    let job = Job::new("clean");
    // The candidate against a baseline of itself.
    let bl = baseline_of(CAND, &job);
    let sarif = job.dir.join("out.sarif");
    let out = job.gate(&bl, "", sarif.to_str().unwrap());
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(
        job.file("summary").contains("**PASS**"),
        "{}",
        job.file("summary")
    );
    assert_eq!(job.file("output"), format!("sarif={}\n", sarif.display()));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert_eq!(doc["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn a_regression_fails_once_with_every_output() {
    let job = Job::new("regressed");
    let bl = baseline_of(BASE, &job);
    let sarif = job.dir.join("out.sarif");
    let out = job.gate(&bl, "", sarif.to_str().unwrap());
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("::error file="), "{stdout}");
    assert!(
        job.file("summary").contains("**FAIL**"),
        "{}",
        job.file("summary")
    );
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert!(!doc["runs"][0]["results"].as_array().unwrap().is_empty());
    // No SARIF asked for: none written, the output says so.
    let job = Job::new("no-sarif");
    let out = job.gate(&bl, "", "");
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert_eq!(job.file("output"), "sarif=\n");
}

/// The candidate's whole report as one HTML page, written whether or not a baseline
/// exists, named in the step's outputs for the upload, and linked from the summary.
#[test]
fn the_html_report_is_written_and_linked() {
    for with_baseline in [true, false] {
        let job = Job::new(if with_baseline { "html" } else { "html-none" });
        let bl = if with_baseline {
            baseline_of(BASE, &job)
        } else {
            "gpulint-baseline.json".to_string()
        };
        let html = job.dir.join("report.html");
        let out = job.gate_with(
            &bl,
            "",
            &[
                ("SARIF", ""),
                ("HTML", html.to_str().unwrap()),
                ("GITHUB_REPOSITORY", "me/kernels"),
                ("GITHUB_RUN_ID", "42"),
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(u8::from(with_baseline).into()),
            "{}",
            transcript(&out)
        );
        let page = std::fs::read_to_string(&html).unwrap();
        assert!(page.contains("<h1>gpulint report</h1>"));
        assert!(
            job.file("output")
                .contains(&format!("html={}\n", html.display())),
            "{}",
            job.file("output")
        );
        let summary = job.file("summary");
        assert!(
            summary.contains("`gpulint-report` artifact of [this run](https://github.com/me/kernels/actions/runs/42)"),
            "{summary}"
        );
    }
}

#[test]
fn quoted_args_reach_gpulint_as_words_and_are_never_run() {
    let job = Job::new("args");
    let bl = baseline_of(BASE, &job);
    // A wide band on both ld metrics, quoted two ways: the stride regression of
    // scale_rows (4 to 32 sectors per request) still fails, and nothing else is misread.
    let out = job.gate(
        &bl,
        r#"--threshold "sectors_per_request_ld=5%"  --threshold 'bytes_per_sector_ld=2%'"#,
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        !transcript(&out).contains("no gated metric"),
        "{}",
        transcript(&out)
    );
    assert!(job.file("summary").contains("**FAIL**: 2 regressed"));
    // Bands wide enough to take the stride regression in: read as one word each, they
    // leave only the new finding.
    let job = Job::new("args-wide");
    let out = job.gate(
        &bl,
        r#"--threshold "sectors_per_request_ld=1000%" --threshold 'bytes_per_sector_ld=1000%'"#,
        "",
    );
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        job.file("summary").contains("**FAIL**: 0 regressed"),
        "{}",
        job.file("summary")
    );
    // Shell syntax in the input is text: `$(...)` is passed on, not run.
    let marker = job.dir.join("ran");
    let out = job.gate(
        &bl,
        &format!("--threshold \"$(touch {})\"", marker.display()),
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(!marker.exists(), "the args input ran a command");
    assert!(
        transcript(&out).contains("--threshold \"$(touch"),
        "{}",
        transcript(&out)
    );
    // An unmatched quote is an error that names the input.
    let out = job.gate(&bl, r#"--threshold "x=5%"#, "");
    assert_eq!(out.status.code(), Some(2), "{}", transcript(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("::error title=gpulint::cannot split the args input"),
        "{}",
        transcript(&out)
    );
}

/// A folder of stand-ins: `curl` fails as with no release (or serves `release`), `cargo`
/// records its arguments and "builds" by copying this build's gpulint.
fn stand_ins(job: &Job, release: bool) -> PathBuf {
    let bin = job.dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let exe = env!("CARGO_BIN_EXE_gpulint");
    let log = job.dir.join("calls");
    let curl = if release {
        // A release tarball as release.yml packs it: ./gpulint and the licences. Its
        // gpulint runs this build's (a script, not a copy: compressing a debug binary took
        // most of the test's time).
        let pack = job.dir.join("pack");
        std::fs::create_dir_all(&pack).unwrap();
        let packed = pack.join("gpulint");
        common::executable::write_executable(&packed, &format!("#!/bin/sh\nexec {exe} \"$@\"\n"));
        std::fs::write(pack.join("README.md"), "").unwrap();
        let tar = job.dir.join("release.tar.gz");
        let ok = Command::new("tar")
            .args([
                "-czf",
                tar.to_str().unwrap(),
                "-C",
                pack.to_str().unwrap(),
                ".",
            ])
            .status()
            .unwrap();
        assert!(ok.success());
        format!(
            "echo \"curl $*\" >> {}\ncat {}\n",
            log.display(),
            tar.display()
        )
    } else {
        format!("echo \"curl $*\" >> {}\nexit 22\n", log.display())
    };
    let cargo = format!(
        "echo \"cargo $*\" >> {log}\nroot=\"${{@: -1}}\"\nmkdir -p \"$root/bin\"\ncp {exe} \"$root/bin/gpulint\"\n",
        log = log.display()
    );
    for (name, body) in [("curl", curl), ("cargo", cargo)] {
        common::executable::write_executable(&bin.join(name), &format!("#!/bin/bash\n{body}"));
    }
    bin
}

#[test]
fn install_takes_the_release_binary_else_builds_the_action_source() {
    let version = env!("CARGO_PKG_VERSION");
    // No release: auto falls back to cargo on the action's own source.
    let job = Job::new("install-cargo");
    let bin = stand_ins(&job, false);
    let bin_dir = job.dir.join("cache");
    let env = [("BIN_DIR", bin_dir.to_str().unwrap())];
    let out = job.run("install.sh", &bin, &env);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    let calls = job.file("calls");
    assert!(
        calls.contains(&format!(
            "releases/download/v{version}/gpulint-v{version}-{}-unknown-linux-gnu.tar.gz",
            std::env::consts::ARCH
        )),
        "{calls}"
    );
    assert!(
        calls.contains(&format!(
            "cargo install --locked --quiet --path {} --root",
            env!("CARGO_MANIFEST_DIR")
        )),
        "{calls}"
    );
    assert_eq!(job.file("path"), format!("{}\n", bin_dir.display()));
    // The cached binary is used as it is: neither curl nor cargo runs again.
    std::fs::write(job.dir.join("calls"), "").unwrap();
    let out = job.run("install.sh", &bin, &env);
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert_eq!(job.file("calls"), "");

    // A release: its binary is unpacked, and cargo never runs.
    let job = Job::new("install-release");
    let bin = stand_ins(&job, true);
    let bin_dir = job.dir.join("cache");
    let out = job.run(
        "install.sh",
        &bin,
        &[("BIN_DIR", bin_dir.to_str().unwrap())],
    );
    assert_eq!(out.status.code(), Some(0), "{}", transcript(&out));
    assert!(bin_dir.join("gpulint").exists());
    assert!(
        !job.file("calls").contains("cargo"),
        "{}",
        job.file("calls")
    );

    // install: release with no release fails and says where it looked.
    let job = Job::new("install-none");
    let bin = stand_ins(&job, false);
    let bin_dir = job.dir.join("cache");
    let out = job.run(
        "install.sh",
        &bin,
        &[
            ("BIN_DIR", bin_dir.to_str().unwrap()),
            ("GPULINT_INSTALL", "release"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        transcript(&out)
            .contains("no release binary at https://github.com/gpulint/gpulint/releases/download/"),
        "{}",
        transcript(&out)
    );
    // Another version than the action's own cannot come from its source.
    let out = job.run(
        "install.sh",
        &bin,
        &[
            ("BIN_DIR", bin_dir.to_str().unwrap()),
            ("GPULINT_VERSION", "9.9.9"),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", transcript(&out));
    assert!(
        transcript(&out).contains("pin the action to v9.9.9"),
        "{}",
        transcript(&out)
    );
}
